/*
 * colors.c: block-state colours for maps in every registry. The colour
 * registry (the newest Java one) has its own table (colors_base.c); any
 * other registry gets a per-state table on first use by mapping each state
 * to the colour registry (mc_registry_map) and taking that state's colour.
 * When the translation has nothing better than air for a visible state (a
 * Bedrock-only block, a metadata value the game would repair on load), the
 * block's default state (legacy: its first meta) is tried instead, so such
 * a state is drawn like its block rather than as a hole. Tables are
 * published like the registry's flag tables: an atomic compare-and-swap
 * into a slot per registry; they live for the process.
 */
#include "registry/colors_data.h"
#include "registry/reg_private.h"

#include <stdatomic.h>
#include <stdlib.h>

static const mc_block_color no_color = {0, 0, 0, 0, MC_TINT_NONE};

/* A visible state that translates to air: another state of its block. */
static uint32_t same_block_fallback(const mc_registry *reg, const uint32_t *map, const mc_registry *to,
                                    uint32_t state)
{
    uint32_t to_count = mc_registry_state_count(to);
    if (reg->kind == MC__KIND_LEGACY) {
        for (uint32_t meta = 0; meta < 16; meta++) {
            uint32_t other = (state & ~15u) | meta;
            if (other == state || !mc_registry_state_valid(reg, other))
                continue;
            uint32_t t = mc_registry_map_apply(map, reg->state_count, other, MC__NONE);
            if (t < to_count && !(mc_registry_state_flags(to, t) & MC_STATE_AIR))
                return t;
        }
        return MC__NONE;
    }
    const char *name = mc_registry_state_name(reg, state);
    uint32_t def = name ? mc_registry_default_state(reg, name) : MC_STATE_NONE;
    if (def == MC_STATE_NONE || def == state)
        return MC__NONE;
    uint32_t t = mc_registry_map_apply(map, reg->state_count, def, MC__NONE);
    return t < to_count && !(mc_registry_state_flags(to, t) & MC_STATE_AIR) ? t : MC__NONE;
}

/* Another registry's table, through the translation map. */
static bool map_colors(const mc_registry *reg, const mc_registry *to, const mc_block_color *to_colors,
                       mc_block_color *out)
{
    const uint32_t *map = mc_registry_map(reg, to);
    if (!map)
        return false;
    uint32_t to_count = mc_registry_state_count(to);
    for (uint32_t s = 0; s < reg->state_count; s++) {
        uint32_t flags = mc_registry_state_flags(reg, s);
        uint32_t t = map[s];
        if (!(flags & MC_STATE_VALID) || (flags & MC_STATE_AIR) || t >= to_count) {
            out[s] = no_color;
            continue;
        }
        if (mc_registry_state_flags(to, t) & MC_STATE_AIR) {
            t = same_block_fallback(reg, map, to, s);
            if (t == MC__NONE) {
                out[s] = no_color;
                continue;
            }
        }
        out[s] = to_colors[t];
    }
    return true;
}

static _Atomic(mc_block_color *) color_tables[MC__MAX_REGISTRIES];

const mc_block_color *mc_registry_color_table(const mc_registry *reg, size_t *count)
{
    if (count)
        *count = 0;
    const mc_registry *to = NULL;
    const mc_block_color *to_colors = mc__color_own_table(&to);
    if (!reg || !to || !to_colors || reg->index >= MC__MAX_REGISTRIES)
        return NULL;
    if (reg == to) {
        if (count)
            *count = reg->state_count;
        return to_colors;
    }
    mc_block_color *table = atomic_load_explicit(&color_tables[reg->index], memory_order_acquire);
    if (!table) {
        mc_block_color *fresh = malloc((reg->state_count ? reg->state_count : 1) * sizeof *fresh);
        if (!fresh)
            return NULL;
        if (!map_colors(reg, to, to_colors, fresh)) {
            free(fresh);
            return NULL;
        }
        mc_block_color *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&color_tables[reg->index], &expected, fresh,
                                                    memory_order_acq_rel, memory_order_acquire))
            table = fresh;
        else {
            free(fresh); /* another thread won */
            table = expected;
        }
    }
    if (count)
        *count = reg->state_count;
    return table;
}

mc_block_color mc_registry_state_color(const mc_registry *reg, uint32_t state)
{
    size_t count;
    const mc_block_color *table = mc_registry_color_table(reg, &count);
    return table && state < count ? table[state] : no_color;
}

