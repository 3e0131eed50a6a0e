/*
 * colors_data.h: layout of the generated colour tables
 * (src/registry/data/colors.c, written by scripts/gen-block-colors.js).
 *
 * Block colours are given for the states of one registry, the newest Java
 * one (mc__color_version): a palette of the distinct colours and, in state
 * id order, runs of one palette index (stairs, walls and fences have dozens
 * of states that look alike from above, so 29,873 states fit in ~5,600
 * runs). colors.c expands them, and maps every other registry's states onto
 * them through the translation maps. Biome colours are by name, sorted
 * (bsearch), without the "minecraft:" namespace.
 */
#ifndef MC_REGISTRY_COLORS_DATA_H
#define MC_REGISTRY_COLORS_DATA_H

#include <stdint.h>

#include "mcchunk/registry.h"

typedef struct mc__color_entry {
    uint32_t rgba; /* 0xRRGGBBAA */
    uint8_t tint;  /* mc_tint */
} mc__color_entry;

typedef struct mc__color_run {
    uint16_t length; /* states */
    uint16_t index;  /* into mc__color_palette */
} mc__color_run;

typedef struct mc__biome_color {
    const char *name; /* "plains" */
    uint32_t grass, foliage, dry_foliage, water; /* 0xRRGGBB */
} mc__biome_color;

extern const char mc__color_version[];
extern const uint32_t mc__color_state_count;
extern const mc__color_entry mc__color_palette[];
extern const uint32_t mc__color_palette_count;
extern const mc__color_run mc__color_runs[];
extern const uint32_t mc__color_run_count;
extern const mc__biome_color mc__biome_colors[];
extern const uint32_t mc__biome_color_count;

/* The colour registry's own per-state colours (colors_base.c, built on
 * first use), its registry in *reg; NULL when it cannot be built. */
const mc_block_color *mc__color_own_table(const mc_registry **reg);

#endif
