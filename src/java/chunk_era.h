/*
 * chunk_era.h (private to src/java): what one protocol's chunk packets look
 * like, as a set of switches the encoder and decoder share. Every fact is a
 * one-line note naming the version that introduced it (FORMATS.md §1).
 */
#ifndef MC_JAVA_CHUNK_ERA_H
#define MC_JAVA_CHUNK_ERA_H

#include "mcchunk/chunk.h"
#include "mcchunk/java.h"

typedef enum mc__era_kind {
    MC__ERA_1_8 = 0,   /* 47: u16le id<<4|meta, light, 2D biome bytes */
    MC__ERA_1_9 = 1,   /* 107-340: palettes, spanning, 13-bit global, light in sections */
    MC__ERA_1_13 = 2,  /* 393-404: flattened, no palette field when direct, int[256] biomes */
    MC__ERA_1_14 = 3,  /* 477-498: heightmaps, block count, light in Update Light */
    MC__ERA_1_15 = 4,  /* 573-578: int[1024] biomes before the data */
    MC__ERA_1_16 = 5,  /* 735-754: padded longs (1.16.2: varint biomes, no ignoreOldData) */
    MC__ERA_1_17 = 6,  /* 755-756: BitSet masks, no full-chunk flag */
    MC__ERA_1_18 = 7   /* 757+: every section, paletted biomes, light in the packet */
} mc__era_kind;

typedef struct mc__era {
    uint32_t protocol;
    const mc_registry *reg;     /* the protocol's registry */
    mc__era_kind kind;
    bool block_entities;        /* 1.9.4 (110)+ */
    bool ignore_old_data;       /* 1.16-1.16.1 (735-736) */
    bool varint_biomes;         /* 1.16.2 (751)+ */
    bool trust_edges;           /* Update Light 1.16-1.19.4; chunk packet 1.18-1.19.4 */
    bool nameless_nbt;          /* 1.20.2 (764)+ */
    bool no_data_length;        /* 1.21.5 (770)+: paletted data arrays lose their length */
    bool heightmap_array;       /* 1.21.5 (770)+: heightmaps as [{type, long[]}] */
    bool fluid_count;           /* 26.1 (775)+ */
    bool size_slack;            /* 1.18-1.21.4: the size counts 2 bytes for the
                                   empty data-array length of single-value
                                   block containers (1 is written): 1 zero
                                   byte per such section after the data */
    mc_bits_layout layout;      /* spanning before 1.16, padded after */
    unsigned direct_bits;       /* block global palette width on the wire */
    unsigned biome_bits;        /* 1.18+: biome global palette width */
    int32_t default_min_y;      /* 0, or -64 from 1.18 (overworld) */
    uint32_t default_height;    /* 256, or 384 from 1.18 */
} mc__era;

/* Fills *e for a protocol; MC_ERR_UNSUPPORTED (with a message) when the
 * protocol is not a release from 1.8 on or has no registry. */
mc_status mc__era_get(uint32_t protocol, mc__era *e, mc_error *err);

/* Light arrays of the two sections outside a column (below min, above max),
 * kept in the column's extra NBT so that a round trip keeps them. */
#define MC__KEY_SKY_BELOW "mcchunk:sky_light_below"
#define MC__KEY_SKY_ABOVE "mcchunk:sky_light_above"
#define MC__KEY_BLOCK_BELOW "mcchunk:block_light_below"
#define MC__KEY_BLOCK_ABOVE "mcchunk:block_light_above"
/* The empty-light masks a decoded packet had (long arrays, one bit per
 * light entry): an all-zero array is sent "empty" exactly where these say,
 * so a re-encode keeps vanilla's choice (1.14-1.19 send zero layers that
 * exist as full arrays). Without them every all-zero array is sent empty. */
#define MC__KEY_EMPTY_SKY "mcchunk:empty_sky_light_mask"
#define MC__KEY_EMPTY_BLOCK "mcchunk:empty_block_light_mask"
/* 2D biomes (x + z*16, before 1.15) kept verbatim (int array of 256). */
#define MC__KEY_BIOMES2D "mcchunk:biomes2d"
/* Block entity type id (1.18+) when the type has no name in our table. */
#define MC__KEY_BE_TYPE "mcchunk:type"

/* Block entity type: registry id in `protocol` for "minecraft:chest" etc.
 * (-1 unknown) and back (NULL unknown). */
int mc__be_type_id(uint32_t protocol, const char *name, size_t len);
const char *mc__be_type_name(uint32_t protocol, int id);

/* The sections an era sends: before 1.17 section y 0..15 (the 256-block
 * world, whatever the column holds); 1.17 and later the column's own range
 * (the dimension's height). */
void mc__era_window(const mc__era *e, const mc_column *col, int32_t *lo, uint32_t *n);

/* Light of sections lo-1 .. lo+n: index 0 = below, 1..n = sections, n+1 =
 * above; NULL = absent. The edges of the column's own range come from its
 * extra NBT. The pointers refer into the column. */
void mc__light_arrays(const mc_column *col, bool sky, int32_t lo, uint32_t n, const uint8_t **out);

/* Writes the light masks and arrays of the era's window (1.14-1.16: varint
 * masks; 1.17+: BitSets and counted arrays), shared by Update Light and
 * 1.18+ Chunk Data. */
void mc__write_light(mc_buf *out, const mc__era *e, const mc_column *col);

/* Reads the same into the column (sections, and edges into extra NBT). */
mc_status mc__read_light(mc_reader *r, const mc__era *e, mc_column *col, bool strict);

#endif
