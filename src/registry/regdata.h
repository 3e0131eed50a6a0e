/*
 * regdata.h: layout of the generated registry tables (src/registry/data/,
 * written by scripts/gen-registries.js) and the module's private helpers.
 *
 * Strings live once in mc__reg_strings and are referenced by byte offset.
 * A property definition is a name and an ordered list of values; a block
 * "kind" is a name, a run of property definitions (the game's order), the
 * default state's offset and the per-state flags. A flattened registry is,
 * per block, a kind index and the block's first state id; the state id of a
 * property combination is first + mixed-radix index of the value indices,
 * first property slowest (the game's numbering). A legacy registry (Java
 * 1.8-1.12) is, per block id, a name, the mask of valid metadata values and
 * 16 flag bytes; its state ids are id<<4|meta.
 *
 * The per-block tables of a registry (block kinds, biome names, Bedrock's
 * maps to and from Java) change little from one version to the next, so
 * each registry stores them as runs copied from the registry before it
 * (scripts/registry-code.js); tables.c decodes them on first use.
 */
#ifndef MC_REGISTRY_REGDATA_H
#define MC_REGISTRY_REGDATA_H

#include <stddef.h>
#include <stdint.h>

#include "mcchunk/registry.h"

#define MC__NONE 0xFFFFFFFFu

enum { MC__KIND_LEGACY = 0, MC__KIND_FLAT = 1 };

/* Flag-byte bits beyond the public MC_STATE_* ones: a state's shape class
 * (scripts/registry-flags.js), which only the translation's fallbacks read
 * (mc__state_class); the public flag functions mask them off. */
enum {
    MC__CLASS_FULL = 1u << 4,   /* collision shape = the unit cube */
    MC__CLASS_NOCOLL = 1u << 5, /* no collision shape */
    MC__PUBLIC_FLAGS = MC_STATE_AIR | MC_STATE_FLUID | MC_STATE_BLOCKS_MOTION | MC_STATE_LEAVES | MC_STATE_VALID
};

/* NBT types of Bedrock property values (Java values are all strings). */
enum { MC__PT_STRING = 0, MC__PT_BYTE = 1, MC__PT_INT = 2 };

typedef struct mc__propdef {
    uint32_t name;   /* string offset */
    uint32_t values; /* index of the first value in mc__reg_value_refs */
    uint32_t count;  /* number of values */
    uint16_t type;   /* MC__PT_* (Bedrock hashing needs it) */
    uint16_t name_len;
    int32_t int_first; /* values are "int_first", "int_first+1", ...; -1: not so */
} mc__propdef;

typedef struct mc__kind {
    uint32_t name;        /* string offset, "minecraft:..." */
    uint32_t props;       /* index of the first entry in mc__reg_prop_lists */
    uint32_t flag_seq;    /* MC__NONE: all states have base_flags; else offset in mc__reg_flag_bytes */
    uint32_t count;       /* number of states */
    uint32_t default_off; /* default state - first state */
    uint32_t default_digits; /* offset in mc__reg_default_digits: the default's value indices */
    uint32_t explicit_digits; /* MC__NONE: states are the mixed-radix combinations; else offset in
                                 mc__reg_default_digits of count x nprops value indices (Bedrock
                                 blocks whose states are not every combination) */
    uint8_t nprops;
    uint8_t base_flags;
    uint8_t material; /* MC__MAT_*: coarse material class (scripts/registry-flags.js) */
} mc__kind;

/* Material classes of block kinds (minecraft-data's "material"). */
enum { MC__MAT_UNKNOWN = 0, MC__MAT_ROCK = 1, MC__MAT_WOOD = 2, MC__MAT_EARTH = 3, MC__MAT_PLANT = 4,
       MC__MAT_WOOL = 5, MC__MAT_LEAVES = 6 };

typedef struct mc__legacy_block {
    uint32_t name;     /* string offset; MC__NONE: no block with this id */
    uint32_t flag_seq; /* 16 flag bytes (one per meta) in mc__reg_flag_bytes */
    uint32_t schema;   /* its properties: index in mc__reg_legacy_schemas; MC__NONE: none */
    uint16_t valid;    /* bit m: id:m is a state */
} mc__legacy_block;

/* The properties of a 1.8-1.12 block as the game names them
 * (scripts/data/legacy-block-states.txt): per metadata, the value index of
 * each property, and which of them the metadata stores (the others, such
 * as a fence's connections, the game computes). */
typedef struct mc__legacy_schema {
    uint32_t props;  /* index of the first entry in mc__reg_prop_lists */
    uint32_t digits; /* offset in mc__reg_default_digits: 16 x nprops value indices */
    uint32_t stored; /* offset in mc__reg_legacy_stored: 16 bytes, bit i: property i stored */
    uint32_t nprops;
} mc__legacy_schema;

struct mc_registry {
    uint32_t name;        /* display name (string offset) */
    uint8_t edition;      /* mc_edition */
    uint8_t kind;         /* MC__KIND_* */
    uint16_t index;       /* global index: Java registries, then Bedrock */
    uint32_t state_count;
    uint32_t block_count;
    uint32_t biome_count;
    const mc__legacy_block *legacy; /* LEGACY: per block id */
    const char *code;     /* the per-block tables, coded against the registry before this one
                             in its edition's table (decoded by tables.c into mc__tables) */
    uint32_t java_index;  /* Bedrock with maps: the Java registry whose states j2b/b2j use */
    uint8_t mapped;       /* Bedrock: has j2b/b2j (blocksJ2B, blocksB2J) */
};

/* A registry's tables, decoded from its code on first use (tables.c). */
typedef struct mc__tables {
    const uint16_t *block_kinds; /* FLAT: kind of each block */
    const uint32_t *block_min;   /* FLAT: first state of each block (ascending), then state_count */
    const uint32_t *biomes;      /* string offsets by id (MC__NONE: unused id) */
    const uint16_t *j2b;         /* mapped: Java state (of java_index) -> this registry; 0xFFFF none */
    const uint16_t *b2j;         /* mapped: state -> Java state of java_index; 0xFFFF none */
    const uint16_t *legacy_to_pivot; /* the pivot (1.13): 1.12 id<<4|meta -> state here; 0xFFFF: none */
    const uint16_t *pivot_to_legacy; /* the pivot: state here -> closest 1.12 id<<4|meta (0: air) */
    uint32_t kind_count, biome_count, j2b_count, b2j_count; /* lengths (0: absent) */
    uint32_t l2p_count, p2l_count;                          /* 4096 and state_count, or 0 */
} mc__tables;

/* The climate of a biome name (scripts/registry-biomes.js), for the
 * translation of biomes a version lacks. */
typedef struct mc__biome_climate {
    uint32_t name;       /* string offset */
    int16_t temperature; /* x1000 */
    int16_t downfall;    /* x1000 */
    uint32_t color;      /* 0xRRGGBB */
    uint8_t category;    /* MC__BIOME_CAT_* */
    uint8_t dimension;   /* 0 overworld, 1 nether, 2 end */
    uint8_t precipitation; /* 1: rain or snow */
} mc__biome_climate;

/* Biome categories (scripts/registry-biomes.js CATEGORIES, same order). */
enum { MC__BIOME_CAT_NONE = 0, MC__BIOME_CAT_OCEAN, MC__BIOME_CAT_PLAINS, MC__BIOME_CAT_DESERT,
       MC__BIOME_CAT_MOUNTAIN, MC__BIOME_CAT_FOREST, MC__BIOME_CAT_TAIGA, MC__BIOME_CAT_SWAMP,
       MC__BIOME_CAT_RIVER, MC__BIOME_CAT_NETHER, MC__BIOME_CAT_END, MC__BIOME_CAT_ICY,
       MC__BIOME_CAT_MUSHROOM, MC__BIOME_CAT_BEACH, MC__BIOME_CAT_JUNGLE, MC__BIOME_CAT_SAVANNA,
       MC__BIOME_CAT_MESA, MC__BIOME_CAT_UNDERGROUND };

typedef struct mc__version {
    uint32_t name;
    int32_t protocol;
    int32_t data_version;
    int32_t registry; /* index in mc__java_registries / mc__bedrock_registries, -1: none */
} mc__version;

extern const char mc__reg_strings[];
extern const uint32_t mc__reg_strings_size;
extern const uint32_t mc__reg_value_refs[];
extern const uint8_t mc__reg_value_lens[]; /* parallel to mc__reg_value_refs */
extern const mc__propdef mc__reg_propdefs[];
extern const uint16_t mc__reg_prop_lists[];
extern const uint8_t mc__reg_flag_bytes[];
extern const uint8_t mc__reg_default_digits[];
extern const mc__kind mc__reg_kinds[];
extern const uint32_t mc__reg_kind_count;

extern const mc__legacy_schema mc__reg_legacy_schemas[];
extern const uint8_t mc__reg_legacy_stored[];
extern const mc__biome_climate mc__reg_biome_climates[]; /* sorted by name */
extern const uint32_t mc__reg_biome_climate_count;

extern const struct mc_registry mc__java_registries[];
extern const uint32_t mc__java_registry_count;
extern const uint32_t mc__java_pivot; /* the 1.13 registry: its tables hold the maps to and from 1.12 */
extern const mc__version mc__java_versions[];
extern const uint32_t mc__java_version_count;

extern const struct mc_registry mc__bedrock_registries[];
extern const uint32_t mc__bedrock_registry_count;
extern const mc__version mc__bedrock_versions[];
extern const uint32_t mc__bedrock_version_count;

static inline const char *mc__str(uint32_t off) { return mc__reg_strings + off; }

#endif
