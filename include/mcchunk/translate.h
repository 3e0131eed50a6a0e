/*
 * mcchunk/translate.h: moving a whole column from one registry to another
 * (one game version's block states and biomes to another's).
 *
 * Translation remaps palettes, not blocks: an indirect container keeps its
 * packed longs and only its palette entries go through the registry
 * module's cached state map (mc_registry_map), so the cost is O(palette).
 * Single-value containers cost one lookup; only direct (global-palette)
 * containers take a pass over their 4096 entries. When two source states
 * become the same target state the palette is rebuilt without duplicates.
 *
 * Biomes go by name (mc_biome_translate): the same name, else a short table
 * of the game's renames (1.18 renamed many biomes: mountains <->
 * windswept_hills, ...), else the documented fallback MC_BIOME_FALLBACK
 * ("minecraft:plains", present in every registry), else id 0.
 *
 * Light, block entities and the column's extra NBT are copied. Heightmaps
 * are recomputed for the maps the source had when the registries differ
 * (the flags that decide them are per state and may differ); the block and
 * fluid counts are recounted with the target registry.
 */
#ifndef MCCHUNK_TRANSLATE_H
#define MCCHUNK_TRANSLATE_H

#include "mcchunk/chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The biome used when the target registry lacks a biome under every name. */
#define MC_BIOME_FALLBACK "minecraft:plains"

/* A biome id of `from` as an id of `to` (see above). *fallback (may be
 * NULL) is set true when the fallback was used (also for ids `from` lacks). */
MC_API uint32_t mc_biome_translate(const mc_registry *from, const mc_registry *to, uint32_t biome,
                                   bool *fallback);

/* A new column in registry `to` with the blocks and biomes of `src`
 * translated, and everything else copied (see the top of this file).
 * `to` == the source's registry gives a deep copy. `alloc` NULL: default.
 * NULL on failure (err says why: MC_ERR_NOMEM, MC_ERR_INVALID_ARG). */
MC_API mc_column *mc_column_translate(const mc_column *src, const mc_registry *to,
                                      const mc_allocator *alloc, mc_error *err);

/* A copy of `src` over sections min_section .. min_section+count-1: the
 * sections both ranges share are copied, the others are dropped or added
 * as air (biome: the nearest kept section's lowest cells; no light), and
 * so are the block entities. Heightmaps are recomputed for the maps the
 * source had. For serving a column of one dimension height to a client of
 * another (a 0..255 column to a 1.18+ overworld client, say). NULL on
 * failure (err says why). */
MC_API mc_column *mc_column_reshape(const mc_column *src, int32_t min_section, uint32_t count,
                                    const mc_allocator *alloc, mc_error *err);

/* Translates one container in place through a state map of `map_len`
 * entries (ids beyond it become `fallback`), giving it `rules` (the target's
 * widths). Palette-only when no two entries merge. */
MC_API mc_status mc_container_translate(mc_container *c, const uint32_t *map, uint32_t map_len,
                                        uint32_t fallback, const mc_container_rules *rules);

#ifdef __cplusplus
}
#endif
#endif
