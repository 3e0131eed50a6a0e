/*
 * chunknbt_private.h: what the chunk NBT reader and writer share: the
 * palette-entry cache, the format eras, and the names of the bookkeeping
 * keys the reader leaves in a column's extra NBT for the writer.
 */
#ifndef MC_ANVIL_CHUNKNBT_PRIVATE_H
#define MC_ANVIL_CHUNKNBT_PRIVATE_H

#include "mcchunk/chunknbt.h"

#include <string.h>

/* Format classes: how sections look (where the chunk keys live and what
 * they are called is a finer matter within MODERN, see below). */
typedef enum mc__chunk_era {
    MC__ERA_LEGACY = 0, /* < 1451: Level, Blocks/Add/Data */
    MC__ERA_FLAT = 1,   /* 1451..2831: Level, Palette/BlockStates */
    MC__ERA_MODERN = 2  /* 2832+: block_states/biomes containers */
} mc__chunk_era;

/* The 1.18 snapshots changed the chunk in steps (DataFixer schemas of
 * DataFixers.java, 1.18 [MOJ-J]); vanilla snapshots wrote 2834-2840
 * (21w37a-21w42a), 2841-2843 exist as fixer steps inside 21w43a's chain:
 *   2832 ChunkHeightAndBiomeFix: Level.Sections[] gain block_states{palette,
 *        data?} and biomes{palette, data?}; Level.Biomes goes;
 *   2838 "Caves and Cliffs biome renames" (CavesAndCliffsRenames);
 *   2841 ChunkProtoTickListFix: Level.LiquidTicks -> Level.fluid_ticks;
 *        proto-chunks' ToBeTicked/LiquidsToBeTicked (per-section lists of
 *        packed shorts) -> TileTicks/fluid_ticks lists of {i, x, y, z, t, p};
 *   2842 ChunkRenamesFix: the Level wrapper goes (its keys move to the root),
 *        TileEntities -> block_entities, TileTicks -> block_ticks, Entities ->
 *        entities, Sections -> sections, Structures{Starts} ->
 *        structures{starts};
 *   2844 (21w43a, MC_CHUNKNBT_DV_NO_LEVEL) ChunkSerializer writes yPos (and
 *        below_zero_retrogen / blending_data); no fixer adds yPos before. */
#define MC__DV_CONTAINERS 2832
#define MC__DV_BIOME_RENAMES 2838
#define MC__DV_RENAMED_BIOMES_GONE 2843 /* "Remove Deep Warm Ocean" */
#define MC__DV_PROTO_TICKS 2841
#define MC__DV_RENAMES 2842
#define MC__DV_YPOS MC_CHUNKNBT_DV_NO_LEVEL

static inline mc__chunk_era mc__era_of(int32_t dv)
{
    if (dv < MC_CHUNKNBT_DV_FLATTENING)
        return MC__ERA_LEGACY;
    return dv < MC__DV_CONTAINERS ? MC__ERA_FLAT : MC__ERA_MODERN;
}

/* Whether chunks of a DataVersion keep their keys under "Level". */
static inline bool mc__dv_has_level(int32_t dv)
{
    return dv < MC__DV_RENAMES;
}

/* Which sections a chunk of a DataVersion range stores and what each must
 * hold: the one place the writer takes these rules from, whatever era the
 * column came from. The facts come from the game's chunk serializers and
 * are the shapes the corpus's vanilla regions show (tests/unit/
 * test_chunknbt_layout.c checks each row against them):
 *   < 1451 (1.8-1.12): Y 0..15, only sections with blocks, each with
 *       Blocks, Data (Add) and BlockLight + SkyLight of 2048 bytes;
 *   1451 (1.13, 17w47a-18w42a): Y 0..15, each section with Palette,
 *       BlockStates, BlockLight and SkyLight; 1.13 reads the light arrays
 *       without a check (a NibbleArray of another length fails the load), so
 *       a section without light, or without blocks, is not a 1.13 section;
 *   1901 (18w43a, 1.14's light engine): light is stored only where the
 *       engine has it; sections may hold light (or nothing but their Y)
 *       without block data, including the two just outside 0..15 (Y -1, 16);
 *   2709 (21w15a): as 1901, in the column's own range when the chunk came
 *       with a custom height (a converted column keeps 0..15);
 *   2832 (1.18 snapshots on; yPos from 2844): every section of the
 *       column's range, with its block_states and biomes unless it was
 *       read without them, light where the engine has it; light-only
 *       sections just outside the range. */
typedef enum mc__section_range {
    MC__RANGE_256 = 0,     /* sections 0..15 whatever the column holds */
    MC__RANGE_CARRIED = 1, /* the column's range when carried within the era, else 0..15 */
    MC__RANGE_COLUMN = 2   /* the column's range */
} mc__section_range;

typedef struct mc__section_rules {
    int32_t first_dv;         /* the row holds from here to the next row */
    mc__section_range range;
    bool every_section;       /* each section of the range is written, with its blocks */
    bool light_required;      /* each written section has BlockLight and SkyLight */
    bool without_blocks;      /* a section may be written without block data */
    bool edges;               /* sections just outside the range (light only) may be written */
} mc__section_rules;

static inline const mc__section_rules *mc__section_rules_of(int32_t dv)
{
    static const mc__section_rules rows[] = {
        /* first DV                  range              every  light  no-blocks edges */
        {0,                          MC__RANGE_256,     false, true,  false,    false}, /* 1.8-1.12 */
        {MC_CHUNKNBT_DV_FLATTENING,  MC__RANGE_256,     false, true,  false,    false}, /* 1.13 */
        {1901,                       MC__RANGE_256,     false, false, true,     true},  /* 1.14-1.16 */
        {MC_CHUNKNBT_DV_HEIGHT,      MC__RANGE_CARRIED, false, false, true,     true},  /* 1.17 */
        {MC__DV_CONTAINERS,          MC__RANGE_COLUMN,  true,  false, true,     true},  /* 1.18+ */
    };
    size_t i = sizeof rows / sizeof rows[0] - 1;
    while (i > 0 && dv < rows[i].first_dv)
        i--;
    return &rows[i];
}

/* Bookkeeping keys in the extra NBT (never written out). */
#define MC__KEY_PREFIX "mcchunk:"
/* int[]: section Ys (pre-1.18) stored with block data although all air */
#define MC__KEY_AIR_SECTIONS "mcchunk:air_sections"
/* int[]: section Ys (1.18+) of the column's range stored without block data */
#define MC__KEY_NO_DATA_SECTIONS "mcchunk:no_data_sections"
/* byte: the chunk had no Biomes (pre-1.18 proto-chunks) */
#define MC__KEY_NO_BIOMES "mcchunk:no_biomes"
/* int: the DataVersion the column was read from (also when absent: 0) */
#define MC__KEY_SOURCE_DV "mcchunk:data_version"
/* int: the DataVersion the column's block entities follow when
 * mc_column_translate translated them (chunk's MC__KEY_COLUMN_BE_DV);
 * absent: MC__KEY_SOURCE_DV's */
#define MC__KEY_BLOCK_ENTITIES_DV "mcchunk:block_entities_data_version"

/* byte: how the chunk departs from its era's shape (MC__SHAPE_*) */
#define MC__KEY_SHAPE "mcchunk:shape"
enum {
    MC__SHAPE_NO_LEVEL = 1,    /* pre-1.18 era without the Level wrapper */
    MC__SHAPE_NO_SECTIONS = 2, /* no section list (entities/poi files) */
    MC__SHAPE_NO_POS = 4       /* no xPos/zPos */
};

/* The two middle 16-byte chunks of a run of 16 to 64 bytes, [m, m+16) and
 * [t, t+16): with [0, 16) and [n-16, n) they cover every byte, clamped into
 * the run (overlapping when it is shorter), so that a key is read with no
 * branch on its length. The cache's hash and mc__bytes_equal read the same
 * chunks. */
static inline void mc__middle16(size_t n, size_t *m, size_t *t)
{
    *m = n <= 32 ? n - 16 : 16;
    *t = n <= 32 ? 0 : n - 32;
}

/* Byte equality without a library call for short runs: 16 to 64 bytes
 * (most palette entries, most one-entry palettes) as eight word pairs (the
 * chunks of mc__middle16 and the ends), folded into one test; longer runs go
 * to memcmp. */
static inline bool mc__bytes_equal(const void *pa, const void *pb, size_t n)
{
    const uint8_t *a = pa, *b = pb;
    if (n >= 16 && n <= 64) {
        size_t m, t;
        mc__middle16(n, &m, &t);
#define MC__DIFF16(o) ((mc_load_u64le(a + (o)) ^ mc_load_u64le(b + (o))) | \
                       (mc_load_u64le(a + (o) + 8) ^ mc_load_u64le(b + (o) + 8)))
        return (MC__DIFF16(0) | MC__DIFF16(m) | MC__DIFF16(t) | MC__DIFF16(n - 16)) == 0;
#undef MC__DIFF16
    }
    if (n > 64)
        return memcmp(a, b, n) == 0;
    if (n >= 8)
        return mc_load_u64le(a) == mc_load_u64le(b) && mc_load_u64le(a + n - 8) == mc_load_u64le(b + n - 8);
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Cache lookups (chunknbt_cache.c). `entry` is a palette compound
 * {Name, Properties?}; returns MC_OK with the state, MC_ERR_NOT_FOUND for
 * an unknown state, MC_ERR_MALFORMED for a bad entry. */
mc_status mc__cache_block(mc_chunknbt_cache *cache, const mc_registry *reg,
                          const mc_nbt_tag *entry, uint32_t *state, mc_error *err);
/* A palette compound by its Java NBT payload bytes entry[0..len) (its tags
 * up to and including the TAG_End), as the fast section reader finds it:
 * keyed by those bytes, resolved on a miss by parsing them (which checks
 * them) and asking mc__cache_block. Same results. */
mc_status mc__cache_block_raw(mc_chunknbt_cache *cache, const mc_registry *reg, const uint8_t *entry,
                              size_t len, uint32_t *state);
/* Where the block palette entry (a compound's payload: {Name,
 * Properties?} in the game's shapes, any other compound in a general walk)
 * at p ends, NULL when it is malformed or runs past end (read.c's byte
 * scan, shared with recode.c). */
const uint8_t *mc__palette_entry_end(const uint8_t *p, const uint8_t *end);
/* Every value a pre-1.13 block can have: (Add << 8 | Blocks) << 4 | Data. */
#define MC__LEGACY_STATES 65536u
/* The cache's table of MC__LEGACY_STATES palette slots for
 * mc__legacy_section (made on first use, NULL without memory). It is all
 * zero between calls: a user puts back to zero every slot it set. */
uint16_t *mc__cache_legacy_slots(mc_chunknbt_cache *cache);

/* A pre-1.13 section's Blocks byte[4096], Data byte[2048] and Add
 * byte[2048] (NULL when absent) -> container `out` (initialised here with
 * `rules`): the one mc_container_set_all makes of the values
 * (Add << 8 | Blocks) << 4 | Data, palette in first-occurrence order, but
 * through the cache's slot table instead of a hash. Values >= limit (the
 * registry's state count) are `air`, counted in *replaced; `strict`: they
 * fail with MC_ERR_RANGE instead. MC_ERR_NOMEM without memory
 * (read_legacy.c). */
mc_status mc__legacy_section(mc_chunknbt_cache *cache, const uint8_t *blocks, const uint8_t *data,
                             const uint8_t *add, uint32_t limit, uint32_t air, bool strict,
                             const mc_container_rules *rules, const mc_allocator *alloc, uint32_t *replaced,
                             mc_container *out);

/* Biome by name (string tag); MC_ERR_NOT_FOUND when unknown. */
mc_status mc__cache_biome(mc_chunknbt_cache *cache, const mc_registry *reg, const char *name,
                          size_t len, uint32_t *id);

/* How many keys the cache holds (each distinct key once: for tests). */
size_t mc__cache_entries(const mc_chunknbt_cache *cache);


/* Reads palette + packed data into a container (chunknbt_read.c). */
mc_status mc__read_paletted(const mc_nbt_tag *pal, const mc_nbt_tag *data, bool biomes,
                            unsigned min_bits, mc_bits_layout layout, const mc_registry *reg,
                            mc_chunknbt_cache *cache, const mc_container_rules *rules, bool lenient,
                            uint32_t *unknown, mc_container *out, const mc_allocator *alloc,
                            mc_error *err);

/* The 1.18 name of a biome 1.18 renamed or merged (schema 2838 "Caves and
 * Cliffs biome renames", 2843 "Remove Deep Warm Ocean"), or NULL
 * (chunknbt_write.c). */
const char *mc__biome_renamed_1_18(const char *name, size_t len);
/* The name chunks of DataVersion 2832..2837 use for a biome schema 2838
 * renamed one to one, or NULL (versions.c). */
const char *mc__biome_pre_2838_name(const char *name);
/* The id in `to` of a biome under its other-era name (old -> new, or new ->
 * its first old name), or MC_STATE_NONE (versions.c). */
uint32_t mc__biome_renamed_id(const mc_registry *to, const char *name);
/* The newest DataVersion the registries know (versions.c). */
int32_t mc__newest_known_dv(void);

/* The container rules the model uses for a registry (biomes of pre-1.18
 * registries hold numeric ids up to 255). */
mc_container_rules mc__block_rules(const mc_registry *reg);
mc_container_rules mc__biome_rules(const mc_registry *reg);

#endif
