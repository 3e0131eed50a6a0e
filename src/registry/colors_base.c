/*
 * colors_base.c: the colour registry's own colours (the generated tables
 * of data/colors.c, see colors_data.h and scripts/gen-block-colors.js):
 * its per-state block colours expanded from the runs, the biome colours,
 * and the biome tint. It stands below the translation: the fallback rules
 * (material.c) read measured colours here, and colors.c maps every other
 * registry's states onto these through the translation. The table is
 * published like the registry's flag tables: an atomic compare-and-swap;
 * it lives for the process.
 */
#include "registry/colors_data.h"
#include "registry/reg_private.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const mc_block_color no_color = {0, 0, 0, 0, MC_TINT_NONE};

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

static _Atomic(mc_block_color *) own_table;

const mc_block_color *mc__color_own_table(const mc_registry **reg)
{
    const mc_registry *cr = mc_registry_find(mc__color_version);
    if (reg)
        *reg = cr;
    if (!cr)
        return NULL;
    mc_block_color *table = atomic_load_explicit(&own_table, memory_order_acquire);
    if (table)
        return table;
    mc_block_color *fresh = malloc((cr->state_count ? cr->state_count : 1) * sizeof *fresh);
    if (!fresh)
        return NULL;
    expand_runs(fresh, cr->state_count);
    mc_block_color *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&own_table, &expected, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    free(fresh); /* another thread won */
    return expected;
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
