/*
 * world/relight.h: relighting one region file (relight.c), shared by
 * `mcchunk region relight` and `mcchunk world relight`.
 */
#ifndef MC_TOOLS_WORLD_RELIGHT_H
#define MC_TOOLS_WORLD_RELIGHT_H

#include "world/world.h"

/* A worker's reusable state: the light engine and the reading buffers. */
typedef struct world_relight_worker {
    mc_light_engine *engine;
    mc_chunknbt_cache *cache;
    mc_nbt_doc *doc;
    mc_buf nbt, raw;
    int deflate_level;         /* of the zlib records written (WORLD_DEFLATE_GAME after init) */
} world_relight_worker;

bool world_relight_worker_init(world_relight_worker *w);
void world_relight_worker_free(world_relight_worker *w);

typedef struct world_relight_counts {
    uint64_t chunks;  /* chunks in the file */
    uint64_t relit;   /* of which full (1.14+) and relit */
} world_relight_counts;

/* Relights region file `path` (region coordinates rx, rz). around[] are
 * open read handles of the region files around it, indexed
 * (dz + 1) * 3 + (dx + 1), around[4] being `path` itself; NULL where there
 * is none (those chunks count as not loaded). The file is rewritten whole
 * (mc_region_writer) or, on failure or a stop request, left as it was.
 * Counts are added to *c on success. */
mc_status world_relight_region(const char *path, mc_region *const around[9], int32_t rx, int32_t rz,
                               world_relight_worker *w, world_relight_counts *c, mc_error *err);

/* Status "full" / "minecraft:full" / "postprocessed" (from the column's
 * extra NBT: root or Level). */
bool world_column_is_full(mc_column *col);
/* Adds to a chunk written for DataVersion dv (root or Level) the empty
 * block entity list the game always writes (block_entities from 1.18's
 * 2842, TileEntities before) when the chunk writer left it out (it does
 * for a chunk without block entities, and readers such as
 * prismarine-provider-anvil need it). False when out of memory. */
bool world_complete_chunk(mc_nbt_doc *doc, int32_t dv);
/* mc_chunknbt_write for DataVersion dv into `doc` (reset), completed as
 * above, appended to `out` as Java NBT bytes. */
mc_status world_write_chunk_bytes(const mc_column *col, int32_t dv, mc_nbt_doc *doc, mc_buf *out, mc_error *err);
/* Sets isLightOn (root or Level) to 1. */
mc_status world_set_light_on(mc_column *col);

#endif
