/*
 * world/stats_raw.h: `world stats`' own reader of 1.8-1.17 chunks
 * (stats_raw.c): one walk over a chunk's NBT bytes that finds what the
 * counting needs -- each section's Blocks/Data/Add or Palette/BlockStates,
 * the Biomes array, the block entity and entity lists -- and counts a
 * section's blocks straight from those bytes, with no mc_column and no
 * tree of the sections. It gives what the model reader
 * (mc_chunknbt_read_bytes) would give for the same chunk, or declines:
 * anything it does not take exactly as the model reader does (1.18+
 * chunks, 1.17 custom heights, duplicate sections, an unknown key in a
 * section, a malformed array ...) is left to the model reader, which then
 * reads, warns and fails as it always did.
 */
#ifndef MC_TOOLS_WORLD_STATS_RAW_H
#define MC_TOOLS_WORLD_STATS_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include "mcchunk/mcchunk.h"

/* One section of the column (y 0..15) that holds block data. */
typedef struct raw_section {
    const uint8_t *blocks, *data, *add; /* 1.8-1.12: byte[4096], nibbles, Add nibbles (NULL) */
    uint32_t npal, at_first, pal_first; /* 1.13-1.17: the palette (stats_raw.c's) */
    const uint8_t *longs;               /* its BlockStates, big-endian (NULL: none) */
    uint32_t nlongs;
} raw_section;

typedef struct raw_chunk {
    const mc_registry *reg;
    int32_t data_version;
    bool legacy;                 /* 1.8-1.12 sections, else 1.13-1.17 palettes */
    uint16_t have;               /* bit y: sec[y] holds block data (the others are air) */
    raw_section sec[16];
    bool biomes_same;            /* every section has biomes[0] (2D biomes, or none) */
    uint32_t biomes[16][64];     /* per section, its 4x4x4 cells (y<<4|z<<2|x) */
    const mc_nbt_tag *level;     /* Level (for TileEntities and Entities) */
} raw_chunk;

typedef enum raw_result { RAW_OK, RAW_DECLINED, RAW_NOMEM } raw_result;

typedef struct stats_raw stats_raw;

/* A reader for one thread; palette entries resolve through `cache`
 * (borrowed: the model reader's, so both share what they resolved). */
stats_raw *stats_raw_new(mc_chunknbt_cache *cache);
void stats_raw_free(stats_raw *r);

/* Reads chunk NBT nbt[0..len) into *c (valid until the next call; it
 * points into nbt, which must stay as it is till then). */
raw_result stats_raw_scan(stats_raw *r, const uint8_t *nbt, size_t len, raw_chunk *c);

/* The counts of section y's blocks (bit y of c->have set): with
 * per_layer, of each of its 16 block layers (bottom first), else of the
 * whole section. Pairs states[i], counts[i] for i in
 * [layer_end[l - 1], layer_end[l]) (layer_end[-1] = 0), l < 16 or 1;
 * states and counts hold 4096 entries, a state may come twice. RAW_DECLINED
 * when the section's data is not what the model reader accepts (the whole
 * chunk must then go to it). */
raw_result stats_raw_blocks(stats_raw *r, const raw_chunk *c, int y, bool per_layer, uint32_t *states,
                            uint32_t *counts, uint32_t *layer_end);

/* The block entities the model reader would hold, in order: calls
 * fn(user, tag, x, y, z) for each; false when fn does. */
bool stats_raw_block_entities(const raw_chunk *c,
                              bool (*fn)(void *user, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z),
                              void *user);

#endif
