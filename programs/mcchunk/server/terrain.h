/* terrain.h: the built-in world's generator (see terrain.c). */
#ifndef MC_SERVER_TERRAIN_H
#define MC_SERVER_TERRAIN_H

#include <stdint.h>

#include "mcchunk/registry.h"

/* The built-in world is an overworld: y from -64, 384 blocks, 24 sections. */
#define MC_TERRAIN_MIN_Y (-64)
#define MC_TERRAIN_SECTIONS 24

typedef struct srv_terrain srv_terrain;

/* A generator whose states are ids of `reg` (a Java 1.18+ registry). It
 * caches columns and owns a light engine: one thread at a time (threads
 * each make their own). */
srv_terrain *srv_terrain_new(const mc_registry *reg, uint64_t seed);
void srv_terrain_free(srv_terrain *t);
const mc_registry *srv_terrain_registry(const srv_terrain *t);

/* Fills blocks[24 * 4096] (section-major, index (y&15)<<8 | z<<4 | x) and
 * biomes[24 * 64] (index (y<<2|z)<<2|x per section) of column (cx, cz). */
void srv_terrain_generate(const srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes);

/* The column as the server serves it: blocks, biomes, block counts,
 * heightmaps and its sky and block light as the light engine computes it
 * from the column and its eight neighbours (generated too: t keeps the last
 * few dozen columns for that, so a generator is used by one thread at a
 * time), in the generator's registry. blocks/biomes are scratch arrays of
 * the sizes srv_terrain_generate takes. The caller owns the column. NULL:
 * no memory. */
struct mc_column;
struct mc_column *srv_terrain_column(srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes);

/* Gives every section sky light: 15 above the highest non-air block of each
 * (x, z), 0 below (no spreading). For columns stored without light. */
void srv_simple_sky_light(struct mc_column *col);

/* The y of the highest solid block (or the sea level over water) at x, z. */
int srv_terrain_surface(const srv_terrain *t, int32_t x, int32_t z);

/* A spawn point on dry land near the origin: x, z of a block column and
 * y of the air block above its surface. */
void srv_terrain_find_spawn(const srv_terrain *t, int32_t *x, int32_t *y, int32_t *z);

#endif
