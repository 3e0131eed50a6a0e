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
 * the source had are copied when every state keeps the flags they test
 * (air, blocks motion, fluid, leaves: the source's maps are then exact, and
 * may be the game's own), and recomputed from the translated blocks
 * otherwise; the block and fluid counts are recounted with the target
 * registry.
 *
 * Encoders that only read the result need not copy the column at all: a
 * translated view (mc_column_view_new, below) gives the same sections with
 * new palettes over the source's packed longs.
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

/* ------------------------------------------------------------- views */

/* The biome map from -> to: an array of mc_registry_biome_count(from) ids of
 * `to` (map[b] = mc_biome_translate(from, to, b, NULL)). Built on first use,
 * cached for the life of the process and shared between threads (published
 * once, never changed); never free it. NULL only when memory runs out. */
MC_API const uint32_t *mc_biome_map(const mc_registry *from, const mc_registry *to);

/*
 * A translated view: a column seen in another registry without copying it,
 * for encoders that only read (a Chunk Data packet for another protocol).
 * Its sections are what mc_column_translate would give, but an indirect or
 * single container only gets a new palette (the mapped entries, held by the
 * view) over the source's own packed longs; a container whose entries merge
 * (two source states, one target state) or that is direct is rebuilt, as
 * mc_column_translate rebuilds it. Building a view costs O(palette) per
 * section plus one pass per rebuilt container.
 *
 * Counts: a section whose states all keep their air and fluid flags keeps
 * the source's counts (as they were: known or MC_SECTION_COUNT_UNKNOWN);
 * otherwise they are MC_SECTION_COUNT_UNKNOWN, to be counted with the
 * target registry (mc_section_counts). Heightmaps: the source's hold for the
 * view when every state of every section keeps the flags heightmaps test
 * (air, blocks motion, fluid, leaves: mc_column_view_heightmaps_kept);
 * mc_column_translate copies them in exactly that case and recomputes them
 * otherwise.
 *
 * The view borrows the source column (its longs, light, block entities,
 * extra NBT): the column must outlive it and not change meanwhile. A view
 * belongs to one thread at a time.
 */
typedef struct mc_column_view mc_column_view;

/* A view of `src` in registry `to` (`to` may be the source's own: then the
 * sections are the source's). NULL on failure (err: MC_ERR_NOMEM,
 * MC_ERR_INVALID_ARG). */
MC_API mc_column_view *mc_column_view_new(const mc_column *src, const mc_registry *to,
                                          const mc_allocator *alloc, mc_error *err);
MC_API void mc_column_view_free(mc_column_view *v);
/* The section with section y `sy` as the target registry reads it, or NULL
 * outside the column. Read-only: never pass it to a function that changes or
 * frees a section. */
MC_API const mc_section *mc_column_view_section(const mc_column_view *v, int32_t sy);
/* Whether the source's heightmaps are the view's (see above). */
MC_API bool mc_column_view_heightmaps_kept(const mc_column_view *v);
/* A biome id of the source as an id of the target (the cached biome map;
 * ids the source registry lacks become 0, as 2D biome arrays translate). */
MC_API uint32_t mc_column_view_biome(const mc_column_view *v, uint32_t biome);
/* The source column and the target registry. */
MC_API const mc_column *mc_column_view_source(const mc_column_view *v);
MC_API const mc_registry *mc_column_view_registry(const mc_column_view *v);

#ifdef __cplusplus
}
#endif
#endif
