/*
 * mcchunk/light.h: sky light and block light computed from the blocks, the
 * way the game's light engine (Java 1.14 and later) computes them.
 *
 * THE RULES
 * Every block state has a light dampening ("opacity", 0..15) and a
 * luminance (0..15), from minecraft-data (blocks.json: filterLight,
 * emitLight; scripts/gen-light-data.js) plus the rules that depend on the
 * state: lit furnaces, smokers and blast furnaces 13, lit redstone ore 9,
 * lit redstone torches 7, lit redstone lamps 15, lit campfires 15 (soul 10),
 * candles 3 per candle when lit, candle cakes 3 when lit, sea pickles
 * 3 + 3 * pickles when waterlogged, the light block its level, respawn
 * anchors 0/3/7/11/15 by charges, cave vines with berries 14, glow lichen 7,
 * copper bulbs by oxidation when lit; a waterlogged state dampens at least 1;
 * blocks whose light occlusion is their shape (slabs, stairs, snow layers,
 * farmland, dirt paths, pistons, ...) dampen 15 when the shape is a full
 * cube and otherwise block light only across the faces their shape covers
 * completely (a bottom slab lets light in from above but not out below).
 * Light moving from one block to the next loses max(1, opacity of the
 * block it enters), except sky light at 15 moving down into a block of
 * opacity 0, which stays 15. A block's block light is the larger of its
 * luminance and what reaches it. Java 1.8-1.13 registries are looked up
 * through their 1.13 equivalents and Bedrock registries through the newest
 * Java registry (mc_registry_map), so every registry works; the results are
 * the 1.14+ engine's, which older clients accept.
 *
 * NEIGHBOURS
 * Light crosses chunk borders, so a column is lit together with its eight
 * neighbours, given as an array indexed by (dz + 1) * 3 + (dx + 1) with the
 * centre (index 4) skipped: 0 = (-1,-1), 1 = (0,-1), 2 = (+1,-1),
 * 3 = (-1,0), 4 = (+1,0), 5 = (-1,+1), 6 = (0,+1), 7 = (+1,+1). Their blocks
 * (not their stored light) feed the computation out to 14 blocks from the
 * centre column, which is as far as any light that reaches it can come
 * from; only the centre column is written. A NULL neighbour (or one with
 * another registry or section range) is treated as the game treats a chunk
 * that is not loaded: nothing there, no light enters it or comes out of it
 * (a wall of opaque blocks that gives no light). The whole array may be
 * NULL.
 *
 * THE SECTIONS BELOW AND ABOVE
 * The game also keeps light for one section below and one above a column
 * (no blocks, light only). The model has no sections there (chunk NBT keeps
 * them in the column's extra NBT), so the engine computes them and hands
 * them out through mc_light_edges() rather than writing them anywhere.
 * Light flows out of the world into them but not back (our choice: it
 * makes an update independent of light the model does not keep; a path
 * that leaves the world and comes back is all but unknown in real worlds).
 *
 * THREADS AND MEMORY
 * An mc_light_engine holds the work area and a cache of per-state tables,
 * one per registry seen (built on first use, a few dozen KB each). The
 * work area covers the nine columns over the rows where light is not
 * simply full sky or dark (for real terrain a few dozen; at most the whole
 * height): three bytes a block (kind, sky, block light), 3200 bytes a row
 * each, and the bit floods' sets, about 2.2 KB a row, plus 5 KB per
 * section whose blocks it had to unpack; grown on demand and kept between
 * calls (a full 384-block column with its edge sections: about 5 MB). It
 * is not thread-safe: use one engine per thread.
 * Columns are only read, apart from the centre column's light arrays.
 */
#ifndef MCCHUNK_LIGHT_H
#define MCCHUNK_LIGHT_H

#include "mcchunk/chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_light_engine mc_light_engine;

/* Which light to compute. */
#define MC_LIGHT_SKY 1u
#define MC_LIGHT_BLOCK 2u
#define MC_LIGHT_BOTH 3u

/* A new engine (alloc NULL: the default allocator); NULL when out of memory. */
MC_API mc_light_engine *mc_light_engine_new(const mc_allocator *alloc);
MC_API void mc_light_engine_free(mc_light_engine *e);

/* The luminance (0..15) and the light dampening (0..15) of a state of reg;
 * 0 for an invalid state or when the table cannot be built (no memory). */
MC_API unsigned mc_light_emission(mc_light_engine *e, const mc_registry *reg, uint32_t state);
MC_API unsigned mc_light_opacity(mc_light_engine *e, const mc_registry *reg, uint32_t state);

/* Computes the light of `col` from the blocks of col and its neighbours and
 * writes it into every section of col (arrays allocated where absent,
 * replaced where present). `what` is MC_LIGHT_SKY, MC_LIGHT_BLOCK or both; a
 * light not asked for is left as it was. MC_ERR_NOMEM when the work area
 * cannot grow; MC_ERR_INVALID_ARG for a NULL engine or column or an empty
 * `what`. */
MC_API mc_status mc_light_column(mc_light_engine *e, mc_column *col,
                                 const mc_column *const neighbours[8], unsigned what, mc_error *err);

/* Re-lights col after the blocks in the box x0..x1, y0..y1, z0..z1
 * (inclusive; y absolute; x and z relative to col's corner, -16..31, so
 * that the box may lie in a neighbour) changed, starting from the light col
 * and its neighbours hold: the light of everything the change can reach is
 * taken away and flows back in from the blocks' own sources (luminance,
 * straight-down sky) and from the ring of blocks just beyond, which keep
 * their stored light (the change cannot reach them). Only the part
 * of col the change can reach is touched: 15 blocks round the box, and the
 * columns under it for sky light; a box further away changes nothing. Only
 * col is written: call it for every column within 15 blocks of the box (the
 * box given relative to each). When the light of col and its neighbours
 * agreed with the blocks before the change and every column near the box
 * is updated, the result equals mc_light_column on the changed blocks (the
 * tests check this on random edits). Sections of col without an array of a
 * light asked for are lit as by mc_light_column instead. Errors as
 * mc_light_column, and MC_ERR_RANGE for a box outside that range or col's
 * height. */
MC_API mc_status mc_light_update(mc_light_engine *e, mc_column *col,
                                 const mc_column *const neighbours[8], int32_t x0, int32_t y0,
                                 int32_t z0, int32_t x1, int32_t y1, int32_t z1, unsigned what,
                                 mc_error *err);

/* Batches. Lighting many columns next to each other (a region, a world)
 * decodes each column's blocks for every call that has it as the centre
 * or a neighbour: nine times. Between mc_light_batch_begin and
 * mc_light_batch_end, mc_light_column keeps what it learns of each
 * column's blocks (their light kinds, where sky light stops falling, the
 * blocks that shine) and uses it again when the same column (the same
 * address) comes back, for at most max_columns columns (0: 128; at least
 * 16), the least recently used given up first: 5 KB per section of mixed
 * blocks and at most 50 KB more per column (its shining blocks, when
 * there are at most 4096 of them). The 5 KB arrays a batch gave up
 * (and all of them at mc_light_batch_end) stay with the engine for the
 * next entries and batches, so that they are not allocated and written as
 * new memory again: mc_light_engine_free frees them. The results are the same as
 * without a batch. While a batch is open, a column given to the engine
 * must keep its blocks and its address: call mc_light_forget(e, col)
 * before changing its blocks or freeing it. mc_light_update never uses
 * what a batch kept. batch_begin ends a batch already open; MC_ERR_NOMEM
 * (no batch then) or MC_OK. */
MC_API mc_status mc_light_batch_begin(mc_light_engine *e, size_t max_columns);
MC_API void mc_light_forget(mc_light_engine *e, const mc_column *col);
MC_API void mc_light_batch_end(mc_light_engine *e);

/* The light of the section below (index 0) and above (index 1) col, as the
 * last mc_light_column or mc_light_update on this engine computed it:
 * copies 2048 bytes into each non-NULL argument. False when the engine has
 * computed nothing yet or that light was not asked for. */
MC_API bool mc_light_edges(const mc_light_engine *e, uint8_t *sky_below, uint8_t *sky_above,
                           uint8_t *block_below, uint8_t *block_above);

#ifdef __cplusplus
}
#endif
#endif
