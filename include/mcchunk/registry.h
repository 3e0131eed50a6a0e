/*
 * mcchunk/registry.h: block-state and biome registries of game versions.
 *
 * A block state in mcchunk is a number in a registry: the global palette of
 * one game version (Java 1.8-1.12: id<<4|meta; Java 1.13+: flattened state
 * ids; Bedrock: runtime ids). Registries are generated const tables; a
 * registry pointer stays valid for the life of the process and may be shared
 * by any number of threads.
 *
 * CONTRACT (fixed; other modules depend on these names): the functions in
 * the first block below. The registry module adds lookups by version,
 * names/properties, parsing/printing and translation maps after it.
 */
#ifndef MCCHUNK_REGISTRY_H
#define MCCHUNK_REGISTRY_H

#include "mcchunk/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_registry mc_registry;

typedef enum mc_edition { MC_EDITION_JAVA = 0, MC_EDITION_BEDROCK = 1 } mc_edition;

/* Per-state flags, the facts the chunk model needs (heightmaps, counts). */
enum {
    MC_STATE_AIR = 1u << 0,           /* air, cave_air, void_air: not counted as blocks */
    MC_STATE_FLUID = 1u << 1,         /* has a fluid state: water, lava, waterlogged=true, bubble column, kelp, seagrass... */
    MC_STATE_BLOCKS_MOTION = 1u << 2, /* "solid" for heightmaps (OCEAN_FLOOR, MOTION_BLOCKING) */
    MC_STATE_LEAVES = 1u << 3,        /* leaves (excluded by MOTION_BLOCKING_NO_LEAVES) */
    MC_STATE_VALID = 1u << 7          /* the id names a state (pre-1.13: a valid id:meta pair) */
};

/* Number of ids in the global palette: max state id + 1 (pre-1.13: 4096
 * id<<4|meta slots for 1.8-1.12). */
MC_API uint32_t mc_registry_state_count(const mc_registry *reg);
/* Number of biomes as the vanilla server sends them. */
MC_API uint32_t mc_registry_biome_count(const mc_registry *reg);
/* MC_STATE_* flags of a state id; 0 for ids outside the registry. */
MC_API uint32_t mc_registry_state_flags(const mc_registry *reg, uint32_t state);
/* The same flags as one byte per state id, for loops over many ids: the
 * table (valid as long as the registry) and its length in *count; NULL (and
 * 0) when reg is NULL or the table cannot be built (no memory), in which
 * case mc_registry_state_flags still answers. */
MC_API const uint8_t *mc_registry_state_flag_table(const mc_registry *reg, size_t *count);
/* The air state id (0 in every Java registry). */
MC_API uint32_t mc_registry_air(const mc_registry *reg);
/* Width of the direct (global) palette for block states and biomes:
 * ceil(log2(count)). (Eras that override it, e.g. 13 bits for 1.9-1.12 on the
 * wire, are the codecs' business.) */
MC_API unsigned mc_registry_direct_bits(const mc_registry *reg);
MC_API unsigned mc_registry_biome_direct_bits(const mc_registry *reg);
/* Edition and a display name such as "1.21.4" (the newest version using it). */
MC_API mc_edition mc_registry_edition(const mc_registry *reg);
MC_API const char *mc_registry_name(const mc_registry *reg);

/* Finds a Java registry by release name ("1.21.4", "1.8.9") or NULL. */
MC_API const mc_registry *mc_registry_find(const char *version);

/* ===================================================================== */
/* Everything below extends the contract (registry module API).          */
/*
 * Where the data comes from. scripts/gen-registries.js turns minecraft-data
 * 3.117.0 into const tables compiled into the library (about 2.9 MB of
 * read-only data for 25 Java and 31 Bedrock registries; no data file to
 * install or find at run time, and pages of versions never used are never
 * touched). Java: every release from 1.8 to 26.1.2; releases with the same
 * block states and biomes share a registry. Java 1.8-1.12 states are
 * id<<4|meta, valid for the metas minecraft-data lists (legacy.json's 1.12
 * states and each version's variations), with the properties the game
 * names them by (minecraft:stone[variant=granite]; 1.12.2's block classes,
 * scripts/data/legacy-block-states.txt, the same for every 1.8-1.12
 * registry). Bedrock: every version with a
 * blockStates.json (1.16.220 to 1.26.51); runtime ids are the sorted-list
 * indices, hashed ids are computed (mc_registry_state_hash).
 *
 * How the MC_STATE_* flags are derived (scripts/registry-flags.js):
 *   AIR: air, cave_air, void_air. FLUID: water, lava (and 1.8-1.12
 *   flowing_*), bubble_column, kelp, kelp_plant, seagrass, tall_seagrass, and
 *   every state with waterlogged=true. LEAVES: names ending in "leaves".
 *   BLOCKS_MOTION: the game's 1.20+ rule on the state's collision shape from
 *   minecraft-data (non-empty, and mean bounding-box edge >= 0.7291666 or
 *   height >= 1), except cobweb, bamboo_sapling and snow layers (never);
 *   without shape data (Bedrock), boundingBox == "block". Java 1.8-1.12
 *   states take the flags of the 1.13 state legacy.json maps them to.
 *   MOTION_BLOCKING = BLOCKS_MOTION or FLUID; OCEAN_FLOOR = BLOCKS_MOTION.
 */

/* A state id that names no state ("not found", "end of iteration"). */
#define MC_STATE_NONE 0xFFFFFFFFu

/* ------------------------------------------------------------ finding */

/* Java registry of the newest release with this protocol number (47 ->
 * 1.8.9, 769 -> 1.21.4), or NULL. */
MC_API const mc_registry *mc_registry_find_protocol(int32_t protocol);
/* Java registry for a chunk's DataVersion: the release with exactly that
 * DataVersion, else the first release after it (a snapshot's blocks are
 * those of the release it leads to: 18w22a, DV 1497 -> 1.13), or NULL when
 * it is newer than every release with a registry. */
MC_API const mc_registry *mc_registry_find_data_version(int32_t data_version);
/* Bedrock registry by version ("1.21.60", "1.20.80"; minecraft-data's list
 * of Bedrock versions), or NULL. */
MC_API const mc_registry *mc_registry_find_bedrock(const char *version);
/* mc_registry_find or mc_registry_find_bedrock. */
MC_API const mc_registry *mc_registry_find_edition(mc_edition edition, const char *version);

/* All registries (Java first, oldest first; then Bedrock), for iteration. */
MC_API size_t mc_registry_count(void);
MC_API const mc_registry *mc_registry_at(size_t index);

/* -------------------------------------------------------- version table */

typedef struct mc_version_info {
    const char *name;            /* "1.21.4" */
    int32_t protocol;            /* 769 (Bedrock: the network protocol, 0 when unknown) */
    int32_t data_version;        /* 4189 (Bedrock: 0) */
    const mc_registry *registry; /* NULL for releases newer than the tables */
} mc_version_info;

/* Every Java release from 1.8 on, oldest first (minecraft-data's
 * protocolVersions.json). Returns false when index is out of range. */
MC_API size_t mc_java_version_count(void);
MC_API bool mc_java_version_at(size_t index, mc_version_info *out);
/* The Java release with this exact name; false when unknown. */
MC_API bool mc_java_version_find(const char *name, mc_version_info *out);
/* Every Bedrock release from 1.16.201 on, oldest first (minecraft-data's
 * list and the hotfix-twin releases it skips, e.g. 1.20.60 beside 1.20.61);
 * a release without its own registry has the one of the newest release
 * with the same protocol, else none (NULL: 1.16.201, 1.16.210). */
MC_API size_t mc_bedrock_version_count(void);
MC_API bool mc_bedrock_version_at(size_t index, mc_version_info *out);

/* --------------------------------------------------------------- states */

/* True when `state` names a state (MC_STATE_VALID). */
MC_API bool mc_registry_state_valid(const mc_registry *reg, uint32_t state);
/* Iteration over the valid states in id order:
 *   for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
 *        s = mc_registry_next_state(reg, s)) ...
 * (MC_STATE_NONE as the argument starts at the first state.) */
MC_API uint32_t mc_registry_next_state(const mc_registry *reg, uint32_t state);

/* The block name of a state, "minecraft:oak_stairs", or NULL when invalid.
 * Java 1.8-1.12 names are the legacy ones ("minecraft:grass" is id 2). */
MC_API const char *mc_registry_state_name(const mc_registry *reg, uint32_t state);
/* Number of properties of the state's block (0 for invalid states). Java
 * 1.8-1.12 states have the properties the game names them by (F3:
 * stone[variant=granite], log[axis=x,variant=spruce]); the ones the
 * metadata does not store (a fence's connections, a stairs' shape) show
 * the value the game's 1.13 flattening gives that id:meta. */
MC_API unsigned mc_registry_state_prop_count(const mc_registry *reg, uint32_t state);
/* Property `index` (the game's order) of a state: key and value strings,
 * valid for the life of the process. False when out of range. */
MC_API bool mc_registry_state_prop(const mc_registry *reg, uint32_t state, unsigned index,
                                   const char **key, const char **value);
/* Every property of a state at once, as mc_registry_state_prop gives
 * them in the game's order: keys[i] and values[i] for i < min(count, max)
 * (either array may be NULL); returns count, the state's
 * mc_registry_state_prop_count (0 for invalid states). One look-up of the
 * state's block where mc_registry_state_prop makes one per property. */
MC_API unsigned mc_registry_state_props(const mc_registry *reg, uint32_t state, const char **keys,
                                        const char **values, unsigned max);
/* The value of property `key` of a state, or NULL. */
MC_API const char *mc_registry_state_prop_value(const mc_registry *reg, uint32_t state,
                                                const char *key);
/* Default state of a block ("minecraft:" may be omitted), or MC_STATE_NONE. */
MC_API uint32_t mc_registry_default_state(const mc_registry *reg, const char *name);

/* One property of a lookup; lengths let callers pass slices of a larger text. */
typedef struct mc_state_prop {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
} mc_state_prop;

/* The state of block `name` (name_len bytes; "minecraft:" may be omitted)
 * with the given properties; properties not given take the block's default
 * state's values. MC_ERR_NOT_FOUND (with a message in err) for an unknown
 * block, property or value. Thread-safe; the first call per registry builds
 * its name hash table. */
MC_API mc_status mc_registry_lookup(const mc_registry *reg, const char *name, size_t name_len,
                                    const mc_state_prop *props, size_t prop_count,
                                    uint32_t *state, mc_error *err);
/* Parses "minecraft:oak_stairs[facing=east,half=top]" (also "oak_stairs",
 * "stone[]") and looks it up as mc_registry_lookup does. MC_ERR_MALFORMED
 * for bad syntax, MC_ERR_LIMIT beyond 64 properties. Java 1.8-1.12 also
 * reads "ID:META" ("1:1"), "NAME:META" ("minecraft:stone:1") and
 * "name[meta=N]"; a property the metadata does not store takes any valid
 * value; among the metadata matching, the one the game writes (torch meta
 * 5, not 0, for facing=up). */
MC_API mc_status mc_registry_parse_state(const mc_registry *reg, const char *text, size_t len,
                                         uint32_t *state, mc_error *err);

/* Output options of mc_registry_format_state. */
enum {
    MC_FORMAT_SORTED = 1u << 0, /* properties sorted by key (else the game's order) */
    MC_FORMAT_NO_NAMESPACE = 1u << 1 /* omit "minecraft:" */
};
/* Writes "minecraft:name[k=v,...]" (no brackets without properties) into
 * buf (always NUL-terminated when cap > 0, truncated if needed). Returns the
 * length the full text needs (as snprintf), 0 for an invalid state. */
MC_API size_t mc_registry_format_state(const mc_registry *reg, uint32_t state, char *buf,
                                       size_t cap, unsigned options);
/* An identity of the text mc_registry_format_state writes for a state,
 * valid across the registries of this build: two states (of one registry
 * or of two) with the same nonzero identity format to the same text with
 * the same options (one text may have several identities). 0 when there
 * is none to give (an invalid state, the 1.8-1.12 registries): format it.
 * Lets a caller naming many states of several versions (world stats)
 * format each text once. */
MC_API uint64_t mc_registry_state_text_id(const mc_registry *reg, uint32_t state);

/* Bedrock: the hashed runtime id of a state (used when StartGame's
 * block_network_ids_are_hashes is set): FNV-1a 32 of the state's NBT
 * {name, states} (see src/registry/bedrock_hash.c). MC_STATE_NONE for Java
 * registries and invalid states. */
MC_API uint32_t mc_registry_state_hash(const mc_registry *reg, uint32_t state);
/* The state (sorted-list runtime id) with that hash, or MC_STATE_NONE. */
MC_API uint32_t mc_registry_state_from_hash(const mc_registry *reg, uint32_t hash);

/* --------------------------------------------------------------- biomes */

/* "minecraft:plains", or NULL for an id no biome has. */
MC_API const char *mc_registry_biome_name(const mc_registry *reg, uint32_t id);
/* Id of a biome ("minecraft:" may be omitted), or MC_STATE_NONE. */
MC_API uint32_t mc_registry_biome_id(const mc_registry *reg, const char *name);
/* A biome id of `from` as an id of `to`: the same name, else the name the
 * game renamed it to (1.18's windswept_hills for mountains, Bedrock's
 * older names both ways; MC_TRANSLATE_RENAMED), else the biome of `to` of
 * the nearest climate in the same dimension (temperature, downfall,
 * precipitation, then category and map colour, from minecraft-data;
 * MC_TRANSLATE_SAME_FAMILY when the category is the same, else
 * MC_TRANSLATE_NEAREST_COLOR). An id `from` does not have becomes `to`'s
 * plains with MC_TRANSLATE_AIR: never id 0 silently. `how` may be NULL.
 * MC_STATE_NONE only when `to` has no biomes. */
MC_API uint32_t mc_registry_translate_biome(const mc_registry *from, const mc_registry *to, uint32_t biome,
                                            unsigned *how);

/* ---------------------------------------------------------- translation */

/* How a state was translated (bits; 0 = exactly: the same block with every
 * property). The first two say what happened to properties, the others
 * which rule picked the block (at most one of RENAMED, SAME_FAMILY,
 * NEAREST_COLOR, AIR_LIKE, AIR is set). */
enum {
    MC_TRANSLATE_PROP_DROPPED = 1u << 0,    /* the target's state lacks a property (or does not store it) */
    MC_TRANSLATE_VALUE_DEFAULTED = 1u << 1, /* the target lacks a value; its default is taken */
    MC_TRANSLATE_RENAMED = 1u << 2,         /* the same block under another name (grass -> short_grass) */
    MC_TRANSLATE_ANCESTOR = 1u << 3,        /* another block stands in: set with SAME_FAMILY and NEAREST_COLOR */
    MC_TRANSLATE_AIR = 1u << 4,             /* a block that is not air-like became air (invalid source id) */
    MC_TRANSLATE_MAPPED = 1u << 5,          /* through a data table (legacy.json, blocksJ2B/B2J) */
    MC_TRANSLATE_SAME_FAMILY = 1u << 6,     /* a variant or a member of its shape family (cherry_stairs ->
                                               birch_stairs, candle -> torch, seagrass -> water) */
    MC_TRANSLATE_NEAREST_COLOR = 1u << 7,   /* the ordinary full block of the closest material and colour */
    MC_TRANSLATE_AIR_LIKE = 1u << 8         /* an air-like block (cave_air, light, structure_void) became air */
};

/* The kinds of approximation a report counts, one per translated state. */
typedef enum mc_translate_kind {
    MC_TRANSLATE_KIND_EXACT = 0,     /* the same block (properties may be dropped or defaulted) */
    MC_TRANSLATE_KIND_RENAMED = 1,   /* MC_TRANSLATE_RENAMED */
    MC_TRANSLATE_KIND_SAME_SHAPE = 2, /* MC_TRANSLATE_SAME_FAMILY */
    MC_TRANSLATE_KIND_NEAREST_COLOR = 3, /* MC_TRANSLATE_NEAREST_COLOR */
    MC_TRANSLATE_KIND_AIR_LIKE = 4,  /* MC_TRANSLATE_AIR_LIKE */
    MC_TRANSLATE_KIND_LOST = 5,      /* MC_TRANSLATE_AIR: nothing stood in (never for a valid state) */
    MC_TRANSLATE_KIND_COUNT = 6
} mc_translate_kind;

/* The kind of a translation's MC_TRANSLATE_* bits, and its name in reports
 * ("exact", "renamed", "same-shape", "nearest-colour", "air-like", "lost"). */
MC_API mc_translate_kind mc_translate_kind_of(unsigned how);
MC_API const char *mc_translate_kind_name(mc_translate_kind kind);

/* Translates one state of `from` into `to`. The block is chosen by rules
 * (src/registry/fallback.c), tried in order, the first that the target
 * has winning:
 *  - the same name, then an older or newer name of it (renames: grass <->
 *    short_grass, sign <-> oak_sign, 1.13's stone_slab <-> 1.14's
 *    smooth_stone_slab, ...); Java 1.8-1.12 <-> 1.13+ goes through the
 *    game's flattening (legacy.json), Java <-> Bedrock through blocksJ2B /
 *    blocksB2J of the Bedrock registry's version;
 *  - air-like blocks (air, cave_air, void_air, light, structure_void)
 *    become air; barrier is not air-like (it is solid);
 *  - water plants become water; a variant becomes its base block
 *    (waxed_cut_copper -> cut_copper, polished_andesite -> andesite);
 *  - a block of a shape family (stairs, slab, wall, fence, fence gate,
 *    door, trapdoor, button, pressure plate, sign, banner, bed, carpet,
 *    glass pane, ...) becomes the family member of the closest material;
 *    families the target lacks fall back to a related one (hanging sign
 *    -> sign, candle -> torch, stained glass pane -> glass pane, concrete
 *    -> wool, shulker box -> chest, ...); plants become plants;
 *  - anything else becomes the ordinary full block of the nearest colour.
 * Properties are matched by name: a property the target block lacks is
 * dropped, a value it lacks becomes the target block's default (after the
 * 1.16 wall-side equivalents true/low, false/none, tall -> true), and
 * properties only the target has take defaults. Only an invalid source id
 * becomes air with MC_TRANSLATE_AIR. `how` (may be NULL) receives the
 * MC_TRANSLATE_* bits. Slow path (one state at a time); use
 * mc_registry_map for columns. */
MC_API uint32_t mc_registry_translate_state(const mc_registry *from, const mc_registry *to,
                                            uint32_t state, unsigned *how);
/* The translation map from -> to: an array of mc_registry_state_count(from)
 * state ids of `to` (map[s] = mc_registry_translate_state(from, to, s)).
 * Built on first use, cached for the life of the process, shared between
 * threads (lock-free); never free it. NULL only when memory runs out. */
MC_API const uint32_t *mc_registry_map(const mc_registry *from, const mc_registry *to);
/* The MC_TRANSLATE_* bits of every entry of that map (same length, same
 * lifetime, built with it): what a caller translating a palette counts to
 * say what it approximated. NULL only when memory runs out. */
MC_API const uint16_t *mc_registry_map_how(const mc_registry *from, const mc_registry *to);

/* Applies a map to one id, bounds-checked: ids beyond the source registry
 * become `fallback` (normally mc_registry_air(to)). */
static inline uint32_t mc_registry_map_apply(const uint32_t *map, uint32_t from_count,
                                             uint32_t state, uint32_t fallback)
{
    return state < from_count ? map[state] : fallback;
}

/* -------------------------------------------------------------- colours */
/*
 * What a block state and a biome look like on a top-down map.
 * scripts/gen-block-colors.js derives them from the game's own textures
 * (npm minecraft-assets 1.19.0, Java 26.1) and climate data (minecraft-data
 * 3.117.0): a state's colour is the average of the texels seen from above
 * (its model's upward faces, turned as its blockstate turns them; crosses
 * such as flowers: all their faces; fluids and blocks drawn by code: their
 * particle texture), alpha-weighted; its alpha is how much of the block's
 * top the texels cover and how opaque they are, so water, glass, leaves,
 * flowers and torches are translucent and a map blends them over what lies
 * below. Fully transparent (a = 0): air, barrier, light, structure_void and
 * blocks without texels. Every other registry (older Java, Bedrock) maps its
 * states through mc_registry_map to 26.1; a state that translation sends to
 * air takes the colour of its block's default state (legacy: of its first
 * meta that translates).
 */

/* Which colour multiplies a state's colour (the game's block tints). */
typedef enum mc_tint {
    MC_TINT_NONE = 0,        /* the colour is final */
    MC_TINT_GRASS = 1,       /* multiply by the biome's grass colour (grass block, grass, ferns, sugar cane) */
    MC_TINT_FOLIAGE = 2,     /* by the biome's foliage colour (oak, jungle, acacia, dark oak, mangrove leaves, vines) */
    MC_TINT_DRY_FOLIAGE = 3, /* by the biome's dry foliage colour (leaf litter) */
    MC_TINT_WATER = 4,       /* by the biome's water colour (water, bubble columns, water cauldrons) */
    MC_TINT_FIXED = 5        /* a tint that does not depend on the biome (spruce and birch leaves, lily
                                pads, stems, redstone wire by power), already multiplied in: final */
} mc_tint;

/* A state's colour: straight (not premultiplied) sRGB and alpha, and the
 * tint (mc_tint) the renderer applies: r*tint_r/255, ... */
typedef struct mc_block_color {
    uint8_t r, g, b, a;
    uint8_t tint;
} mc_block_color;

/* The colour of a state of any registry ({0,0,0,0,MC_TINT_NONE} for
 * invalid states and a NULL registry). */
MC_API mc_block_color mc_registry_state_color(const mc_registry *reg, uint32_t state);
/* The colours of all of a registry's states, indexed by state id (length
 * mc_registry_state_count in *count): built on first use per registry,
 * shared by all threads, valid for the life of the process; never free it.
 * NULL (and 0) when memory runs out; mc_registry_state_color still answers. */
MC_API const mc_block_color *mc_registry_color_table(const mc_registry *reg, size_t *count);

/* A biome's tint colours, 0xRRGGBB each. */
typedef struct mc_biome_colors {
    uint32_t grass, foliage, dry_foliage, water;
} mc_biome_colors;

/* The tints of biome `biome` of `reg` (any Java or Bedrock registry; older
 * and Bedrock-only names included): the colormaps sampled at the biome's
 * temperature and downfall, or the biome's own colours (swamps, badlands,
 * dark forests, cherry grove, pale garden...), water per biome. False for an
 * id no biome has or a name the tables lack; *out then holds plains' colours. */
MC_API bool mc_registry_biome_colors(const mc_registry *reg, uint32_t biome, mc_biome_colors *out);
/* The same by name ("minecraft:swamp" or "swamp"). */
MC_API bool mc_biome_colors_by_name(const char *name, mc_biome_colors *out);
/* A state colour with its biome tint applied (tint becomes MC_TINT_NONE,
 * or stays MC_TINT_FIXED); `biome` NULL means plains. */
MC_API mc_block_color mc_block_color_tinted(mc_block_color color, const mc_biome_colors *biome);

#ifdef __cplusplus
}
#endif
#endif
