/*
 * mcchunk/chunk.h: the chunk model every codec reads into and writes from.
 *
 *   mc_section  one 16x16x16 section: a block-state container (4096), a
 *               biome container (64 cells of 4x4x4), the non-air block count
 *               and the fluid count (kept up to date on every set), and
 *               optional block light and sky light (2048-byte nibble arrays;
 *               NULL means "absent", which is not the same as all zeros).
 *   mc_column   a chunk column: x, z, the registry its ids belong to, a range
 *               of sections (min section y and count: any dimension height,
 *               negative y included), the six heightmaps, block entities
 *               (NBT keyed by position) and the extra root data of a chunk
 *               format the model does not interpret (NBT, so that a round
 *               trip loses nothing).
 *
 * Packed arrays and containers are in bits.h and palette.h (included).
 *
 * Coordinates: section functions take local x, y, z in 0..15 (biome cells
 * 0..3). Column functions take x and z in any form (only the low 4 bits are
 * used, so world coordinates work) and absolute y; biome functions take cell
 * coordinates (x>>2, y>>2, z>>2, with absolute cell y).
 *
 * Block order inside a section: index (y<<8)|(z<<4)|x; biome cells
 * (y<<4)|(z<<2)|x; light nibbles (y<<8)|(z<<4)|x, byte index>>1, even index
 * in the low nibble (every version's DataLayer).
 */
#ifndef MCCHUNK_CHUNK_H
#define MCCHUNK_CHUNK_H

#include "mcchunk/bits.h"
#include "mcchunk/nbt.h"
#include "mcchunk/palette.h"
#include "mcchunk/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_LIGHT_BYTES 2048

static inline unsigned mc_block_index(unsigned x, unsigned y, unsigned z)
{
    return ((y & 15u) << 8) | ((z & 15u) << 4) | (x & 15u);
}
static inline unsigned mc_biome_index(unsigned x, unsigned y, unsigned z)
{
    return ((y & 3u) << 4) | ((z & 3u) << 2) | (x & 3u);
}
/* Nibble `index` of a 2048-byte light array. */
static inline unsigned mc_light_get(const uint8_t *light, unsigned index)
{
    uint8_t b = light[(index >> 1) & 2047u];
    return (index & 1) ? (unsigned)(b >> 4) : (unsigned)(b & 15u);
}
static inline void mc_light_set(uint8_t *light, unsigned index, unsigned level)
{
    uint8_t *b = &light[(index >> 1) & 2047u];
    if (index & 1)
        *b = (uint8_t)((*b & 0x0F) | ((level & 15u) << 4));
    else
        *b = (uint8_t)((*b & 0xF0) | (level & 15u));
}

/* ------------------------------------------------------------- sections */

/* A section count not made yet (block_count / fluid_count): the Java packet
 * decoder and the chunk NBT readers leave them so (counting is most of a
 * decode's cost after the copies, and most readers never ask; a program that
 * holds columns and asks often calls mc_section_recount once), and they are
 * counted when asked through
 * mc_section_block_count / mc_section_fluid_count / mc_section_counts (or
 * stored by mc_section_recount). Read the counts through those. */
#define MC_SECTION_COUNT_UNKNOWN 0xFFFFu

typedef struct mc_section {
    mc_container blocks;   /* 4096 block-state ids */
    mc_container biomes;   /* 64 biome ids */
    uint16_t block_count;  /* states without MC_STATE_AIR (air, cave_air, void_air), or UNKNOWN */
    uint16_t fluid_count;  /* states with MC_STATE_FLUID, or MC_SECTION_COUNT_UNKNOWN */
    uint8_t *block_light;  /* MC_LIGHT_BYTES or NULL (absent) */
    uint8_t *sky_light;    /* MC_LIGHT_BYTES or NULL (absent) */
} mc_section;

/* An all-air section (air = mc_registry_air, biome 0, no light) whose
 * container widths come from the registry. Cannot fail. */
MC_API void mc_section_init(mc_section *s, const mc_registry *reg, const mc_allocator *alloc);
/* The same with explicit rules and fill values, for callers without a
 * registry (counts then treat `air` as the only air state). */
MC_API void mc_section_init_rules(mc_section *s, const mc_container_rules *blocks,
                                  const mc_container_rules *biomes, uint32_t air,
                                  uint32_t biome, const mc_allocator *alloc);
MC_API void mc_section_free(mc_section *s);
MC_API mc_status mc_section_copy(mc_section *dst, const mc_section *src);

static inline uint32_t mc_section_get_block(const mc_section *s, unsigned x, unsigned y, unsigned z)
{
    return mc_container_get(&s->blocks, mc_block_index(x, y, z));
}
/* Sets a block and updates block_count/fluid_count from the registry's
 * flags (reg NULL: only id 0 is air, nothing is fluid); a count left
 * unknown stays unknown. */
MC_API mc_status mc_section_set_block(mc_section *s, const mc_registry *reg, unsigned x, unsigned y,
                                      unsigned z, uint32_t state);
static inline uint32_t mc_section_get_biome(const mc_section *s, unsigned x, unsigned y, unsigned z)
{
    return mc_container_get(&s->biomes, mc_biome_index(x, y, z));
}
MC_API mc_status mc_section_set_biome(mc_section *s, unsigned x, unsigned y, unsigned z, uint32_t biome);
/* Recomputes block_count and fluid_count from the blocks (after a codec
 * replaced the container) and stores them. */
MC_API void mc_section_recount(mc_section *s, const mc_registry *reg);
/* Copies 2048 bytes of light in (NULL: makes it absent). */
MC_API mc_status mc_section_set_block_light(mc_section *s, const uint8_t *light);
MC_API mc_status mc_section_set_sky_light(mc_section *s, const uint8_t *light);
/* The counts, counted from the blocks with reg's flags when unknown (s is
 * not changed: mc_section_recount stores them). Either pointer may be NULL,
 * and a count not asked for is not counted. */
MC_API void mc_section_counts(const mc_section *s, const mc_registry *reg, unsigned *blocks,
                              unsigned *fluids);
MC_API unsigned mc_section_block_count(const mc_section *s, const mc_registry *reg);
MC_API unsigned mc_section_fluid_count(const mc_section *s, const mc_registry *reg);
/* True when the section has no non-air block (vanilla's hasOnlyAir). */
static inline bool mc_section_is_air(const mc_section *s, const mc_registry *reg)
{
    return (s->block_count != MC_SECTION_COUNT_UNKNOWN ? s->block_count
                                                       : mc_section_block_count(s, reg)) == 0;
}
MC_API size_t mc_section_memory(const mc_section *s);

/* ------------------------------------------------------------ heightmaps */

typedef enum mc_heightmap_type {
    MC_HEIGHTMAP_WORLD_SURFACE_WG = 0,
    MC_HEIGHTMAP_WORLD_SURFACE = 1,
    MC_HEIGHTMAP_OCEAN_FLOOR_WG = 2,
    MC_HEIGHTMAP_OCEAN_FLOOR = 3,
    MC_HEIGHTMAP_MOTION_BLOCKING = 4,
    MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES = 5,
    MC_HEIGHTMAP_COUNT = 6
} mc_heightmap_type;
#define MC_HEIGHTMAP_ALL 0x3Fu

/* "WORLD_SURFACE_WG", ... as in NBT and packets. */
MC_API const char *mc_heightmap_name(mc_heightmap_type type);
/* Parses a name (as given by mc_heightmap_name); false when unknown. */
MC_API bool mc_heightmap_from_name(const char *name, size_t len, mc_heightmap_type *out);
/* Does a state with these MC_STATE_* flags count for the heightmap?
 * WORLD_SURFACE*: not air; OCEAN_FLOOR*: blocks motion; MOTION_BLOCKING:
 * blocks motion or has a fluid; ..._NO_LEAVES: that and not leaves. */
MC_API bool mc_heightmap_matches(mc_heightmap_type type, uint32_t state_flags);

/* ---------------------------------------------------------------- column */

typedef struct mc_column mc_column;

/* A column of `section_count` all-air sections from `min_section_y` (e.g.
 * -4 and 24 for the 1.18+ overworld, 0 and 16 before 1.17). The registry
 * must outlive the column. NULL when out of memory or count is 0 or > 4095
 * (vanilla allows at most 254: 4064 blocks). */
MC_API mc_column *mc_column_new(const mc_registry *reg, int32_t x, int32_t z, int32_t min_section_y,
                                uint32_t section_count, const mc_allocator *alloc);
MC_API void mc_column_free(mc_column *col);

MC_API int32_t mc_column_x(const mc_column *col);
MC_API int32_t mc_column_z(const mc_column *col);
MC_API const mc_registry *mc_column_registry(const mc_column *col);
MC_API int32_t mc_column_min_section(const mc_column *col);
MC_API uint32_t mc_column_section_count(const mc_column *col);
/* Lowest block y (min_section*16) and height (count*16). */
MC_API int32_t mc_column_min_y(const mc_column *col);
MC_API uint32_t mc_column_height(const mc_column *col);

/* Section with section y `sy` (absolute), or NULL outside the column. */
MC_API mc_section *mc_column_section(mc_column *col, int32_t sy);
/* Section number i (0 = lowest), or NULL. */
MC_API mc_section *mc_column_section_at(mc_column *col, uint32_t i);
MC_API const mc_section *mc_column_section_const(const mc_column *col, int32_t sy);

/* Blocks by absolute y (x, z: low 4 bits). Outside the column: air, and
 * set returns MC_ERR_RANGE. */
MC_API uint32_t mc_column_get_block(const mc_column *col, int32_t x, int32_t y, int32_t z);
MC_API mc_status mc_column_set_block(mc_column *col, int32_t x, int32_t y, int32_t z, uint32_t state);
/* Biomes by cell (x, z: low 2 bits; cell y = block y >> 2, absolute). */
MC_API uint32_t mc_column_get_biome(const mc_column *col, int32_t cx, int32_t cy, int32_t cz);
MC_API mc_status mc_column_set_biome(mc_column *col, int32_t cx, int32_t cy, int32_t cz, uint32_t biome);
/* Light level 0..15 at absolute y, or -1 when that section's array is
 * absent (or y is outside). set allocates a zeroed array when absent. */
MC_API int mc_column_get_block_light(const mc_column *col, int32_t x, int32_t y, int32_t z);
MC_API int mc_column_get_sky_light(const mc_column *col, int32_t x, int32_t y, int32_t z);
MC_API mc_status mc_column_set_block_light(mc_column *col, int32_t x, int32_t y, int32_t z, unsigned level);
MC_API mc_status mc_column_set_sky_light(mc_column *col, int32_t x, int32_t y, int32_t z, unsigned level);

/* Heightmaps. Values are highest matching y + 1 - min_y (0 when none), 256
 * per map, index x + z*16, kept packed at mc_column_heightmap_bits() bits. */
MC_API unsigned mc_column_heightmap_bits(const mc_column *col); /* ceil(log2(height+1)) */
/* Computes the heightmaps in `mask` (bit 1 << type) from the blocks. */
MC_API mc_status mc_column_compute_heightmaps(mc_column *col, unsigned mask);
MC_API bool mc_column_has_heightmap(const mc_column *col, mc_heightmap_type type);
/* Value at (x, z) (0 when the map is absent). */
MC_API uint32_t mc_column_heightmap_get(const mc_column *col, mc_heightmap_type type, int32_t x, int32_t z);
/* All 256 values into out (false when absent). */
MC_API bool mc_column_heightmap_get_all(const mc_column *col, mc_heightmap_type type, uint16_t *out);
MC_API mc_status mc_column_heightmap_set_all(mc_column *col, mc_heightmap_type type, const uint16_t *values);
/* Stores a heightmap read from a packet or NBT: big-endian longs at
 * heightmap bits in `layout` (1.14-1.15 spanning, 1.16+ padded). A wrong
 * long count or a value above the height is MC_ERR_MALFORMED (vanilla then
 * recomputes the map: the caller decides). */
MC_API mc_status mc_column_heightmap_from_be(mc_column *col, mc_heightmap_type type,
                                             const uint8_t *be, size_t nlongs,
                                             mc_bits_layout layout, mc_error *err);
/* Writes a present heightmap as big-endian longs (8*mc_bits_longs(256,
 * bits, layout) bytes). MC_ERR_NOT_FOUND when absent. */
MC_API mc_status mc_column_heightmap_write_be(const mc_column *col, mc_heightmap_type type,
                                              mc_bits_layout layout, uint8_t *out);
MC_API void mc_column_heightmap_remove(mc_column *col, mc_heightmap_type type);

/* Block entities: NBT compounds keyed by absolute position. They live in the
 * column's NBT document (mc_column_nbt), together with the extra data
 * (mc_column_nbt parses deferred extra data first, see below). */
MC_API mc_nbt_doc *mc_column_nbt(mc_column *col);
/* Stores a copy of `tag` at (x, y, z), replacing any there. */
MC_API mc_status mc_column_put_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z,
                                            const mc_nbt_tag *tag);
MC_API mc_nbt_tag *mc_column_block_entity(const mc_column *col, int32_t x, int32_t y, int32_t z);
MC_API bool mc_column_remove_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z);
MC_API size_t mc_column_block_entity_count(const mc_column *col);
/* The i-th block entity (in insertion order) and its position. */
MC_API mc_nbt_tag *mc_column_block_entity_at(const mc_column *col, size_t i, int32_t *x, int32_t *y,
                                             int32_t *z);
/* The compound holding root data the model does not interpret (created on
 * first use; NULL only when out of memory). Codecs put unknown keys here on
 * read and write them back. */
MC_API mc_nbt_tag *mc_column_extra(mc_column *col);
/* Defers root data the model does not interpret: Java binary NBT tags as a
 * compound holds them (type id, key, payload, one after another; no end
 * tag), given in parts that are joined in order and appended to what is
 * deferred already. They are copied, kept as bytes, and parsed into the
 * extra compound (appended to it, a key there replaced) only when
 * mc_column_extra or mc_column_nbt is first called, so that a reader that
 * carries many keys through pays for their tree only if someone asks (the
 * chunk NBT reader does this). The caller vouches that they parse: if they
 * do not, those two return NULL and the bytes stay deferred. */
MC_API mc_status mc_column_defer_extra(mc_column *col, size_t nparts, const void *const *parts,
                                       const size_t *lens);
/* Whether deferred bytes wait to be parsed. */
MC_API bool mc_column_extra_deferred(const mc_column *col);
/* The extra compound as it stands, deferred bytes left unparsed and nothing
 * created (NULL when there is none yet): for the keys a codec put there
 * itself, which are never among the deferred ones. */
MC_API const mc_nbt_tag *mc_column_extra_peek(const mc_column *col);

/* Recomputes every section's counts (after codecs replaced containers). */
MC_API void mc_column_recount(mc_column *col);
/* Compacts every container (before serialisation). */
MC_API mc_status mc_column_compact(mc_column *col);
/* Heap bytes held by the column: sections, containers, light, heightmaps
 * (NBT excluded: see mc_nbt_doc_memory). */
MC_API size_t mc_column_memory(const mc_column *col);

#ifdef __cplusplus
}
#endif
#endif
