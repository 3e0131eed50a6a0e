/*
 * colors.c: block-state and biome colours for maps (the generated tables
 * of data/colors.c, see colors_data.h and scripts/gen-block-colors.js).
 *
 * The tables describe the states of one registry, the newest Java one.
 * Every registry gets its own per-state table on first use: the colour
 * registry's by expanding the runs, any other's by mapping each state to
 * the colour registry (mc_registry_map) and taking that state's colour.
 * When the translation has nothing better than air for a visible state (a
 * Bedrock-only block, a metadata value the game would repair on load), the
 * block's default state (legacy: its first meta) is tried instead, so such
 * a state is drawn like its block rather than as a hole. Tables are
 * published like the registry's flag tables: an atomic compare-and-swap
 * into a slot per registry; they live for the process.
 */
#include "registry/colors_data.h"
#include "registry/registry_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

static const mc_block_color no_color = {0, 0, 0, 0, MC_TINT_NONE};

static const mc_registry *color_registry(void)
{
    return mc_registry_find(mc__color_version);
}

static mc_block_color entry_color(const mc__color_entry *e)
{
    mc_block_color c = {(uint8_t)(e->rgba >> 24), (uint8_t)(e->rgba >> 16), (uint8_t)(e->rgba >> 8),
                        (uint8_t)e->rgba, e->tint};
    return c;
}

/* The colour registry's own table, from the runs. */
static void expand_runs(mc_block_color *out, uint32_t count)
{
    uint32_t state = 0;
    for (uint32_t r = 0; r < mc__color_run_count && state < count; r++) {
        mc_block_color c = entry_color(&mc__color_palette[mc__color_runs[r].index]);
        for (uint32_t i = 0; i < mc__color_runs[r].length && state < count; i++)
            out[state++] = c;
    }
    while (state < count)
        out[state++] = no_color;
}

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
    const mc_registry *to = color_registry();
    if (!reg || !to || reg->index >= MC__MAX_REGISTRIES)
        return NULL;
    mc_block_color *table = atomic_load_explicit(&color_tables[reg->index], memory_order_acquire);
    if (!table) {
        const mc_block_color *to_colors = NULL;
        if (reg != to && !(to_colors = mc_registry_color_table(to, NULL)))
            return NULL;
        mc_block_color *fresh = malloc((reg->state_count ? reg->state_count : 1) * sizeof *fresh);
        if (!fresh)
            return NULL;
        if (reg == to)
            expand_runs(fresh, reg->state_count);
        else if (!map_colors(reg, to, to_colors, fresh)) {
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

/* --------------------------------------------------------------- biomes */

static int biome_compare(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const mc__biome_color *)elem)->name);
}

static const mc__biome_color *plains(void)
{
    return bsearch("plains", mc__biome_colors, mc__biome_color_count, sizeof mc__biome_colors[0],
                   biome_compare);
}

static void fill(mc_biome_colors *out, const mc__biome_color *b)
{
    out->grass = b->grass;
    out->foliage = b->foliage;
    out->dry_foliage = b->dry_foliage;
    out->water = b->water;
}

bool mc_biome_colors_by_name(const char *name, mc_biome_colors *out)
{
    const mc__biome_color *b = NULL;
    if (name) {
        size_t len = strlen(name);
        mc__strip_namespace(&name, &len);
        b = bsearch(name, mc__biome_colors, mc__biome_color_count, sizeof mc__biome_colors[0],
                    biome_compare);
    }
    if (out)
        fill(out, b ? b : plains());
    return b != NULL;
}

bool mc_registry_biome_colors(const mc_registry *reg, uint32_t biome, mc_biome_colors *out)
{
    return mc_biome_colors_by_name(reg ? mc_registry_biome_name(reg, biome) : NULL, out);
}

static uint8_t multiply(uint8_t channel, uint32_t tint, unsigned shift)
{
    return (uint8_t)((channel * ((tint >> shift) & 0xff) + 127) / 255);
}

mc_block_color mc_block_color_tinted(mc_block_color color, const mc_biome_colors *biome)
{
    mc_biome_colors fallback;
    if (!biome) {
        mc_biome_colors_by_name("plains", &fallback);
        biome = &fallback;
    }
    uint32_t tint;
    switch (color.tint) {
    case MC_TINT_GRASS: tint = biome->grass; break;
    case MC_TINT_FOLIAGE: tint = biome->foliage; break;
    case MC_TINT_DRY_FOLIAGE: tint = biome->dry_foliage; break;
    case MC_TINT_WATER: tint = biome->water; break;
    default: return color;
    }
    color.r = multiply(color.r, tint, 16);
    color.g = multiply(color.g, tint, 8);
    color.b = multiply(color.b, tint, 0);
    color.tint = MC_TINT_NONE;
    return color;
}
