/*
 * mcchunk/palette.h: paletted containers, the storage of a section's 4096
 * block states and 64 biome cells, kept packed in memory exactly as the
 * 1.18+ game keeps them.
 *
 * A container holds `size` entries (registry ids) in one of three strategies
 * (vanilla 1.18+ PalettedContainer.Strategy):
 *
 *   MC_CONTAINER_SINGLE    one value, no longs (bits 0)
 *   MC_CONTAINER_INDIRECT  a palette of registry ids + padded longs of
 *                          palette indices. Blocks: a palette needing 1-4
 *                          bits is stored at 4 bits, 5-8 bits at its exact
 *                          width. Biomes: exactly 1-3 bits.
 *   MC_CONTAINER_DIRECT    registry ids in the longs, at the registry's
 *                          width ceil(log2(registry size)) (the "global"
 *                          palette), above 8 bits (blocks) / 3 bits (biomes)
 *
 * The longs are native uint64_t in the 1.16+ padded layout, so encoding a
 * modern packet or chunk NBT is a byte-swapping copy.
 *
 * Growth follows the game: when a value is set that the palette lacks and
 * the palette is full (1 << bits entries), the container moves to bits+1
 * (switching to direct past the indirect range); the new palette holds the
 * values in the order they first occur in the old data (unused entries are
 * dropped), then the new value. Setting never shrinks a container;
 * mc_container_compact() does, on demand (the codecs call it before
 * writing), giving the smallest strategy with the palette in first-occurrence
 * order, which is what vanilla writes to disk.
 *
 * The struct is public so that sections can embed containers; its fields
 * are read-only for callers (use the functions).
 *
 * Errors: MC_ERR_NOMEM; MC_ERR_RANGE for values that do not fit the direct
 * width; MC_ERR_MALFORMED (with a message) for outside data that is not a
 * valid container. On any error the container is left unchanged.
 */
#ifndef MCCHUNK_PALETTE_H
#define MCCHUNK_PALETTE_H

#include "mcchunk/bits.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mc_container_kind {
    MC_CONTAINER_SINGLE = 0,
    MC_CONTAINER_INDIRECT = 1,
    MC_CONTAINER_DIRECT = 2
} mc_container_kind;

/* The strategy of a kind of container: its entry count and widths. */
typedef struct mc_container_rules {
    uint32_t size;             /* entries: 4096 (blocks) or 64 (biomes) */
    uint8_t min_indirect_bits; /* blocks 4 (1-4 are stored at 4), biomes 1 */
    uint8_t max_indirect_bits; /* blocks 8, biomes 3 */
    uint8_t direct_bits;       /* ceil(log2(registry size)), 1..31 */
} mc_container_rules;

#define MC_SECTION_BLOCKS 4096u
#define MC_SECTION_BIOMES 64u

/* Rules for block states (4096, 4/8) and biomes (64, 1/3) with the given
 * direct width (mc_registry_direct_bits(), mc_registry_biome_direct_bits(),
 * or what a codec's era uses). */
MC_API mc_container_rules mc_container_rules_blocks(unsigned direct_bits);
MC_API mc_container_rules mc_container_rules_biomes(unsigned direct_bits);

/* The width the rules give a palette of n distinct values: 0 for n <= 1,
 * max(ceil(log2 n), min) when that is <= max, else direct_bits. */
MC_API unsigned mc_container_rules_bits(const mc_container_rules *rules, size_t n);

typedef struct mc_container {
    uint64_t *longs;           /* padded longs; NULL when single */
    uint32_t *palette;         /* indirect only: palette_cap slots */
    uint32_t palette_len;
    uint32_t palette_cap;
    uint32_t value;            /* single only: the value */
    mc_container_rules rules;
    uint8_t kind;              /* mc_container_kind */
    uint8_t bits;              /* width of the longs (0 for single) */
    uint8_t joint;             /* the palette lives in the longs' block, after
                                * the longs (one allocation of both; the
                                * container's own business) */
    uint8_t compact;           /* 1: every palette entry is used and none is
                                * there twice, as its maker knew (the legacy
                                * reader, translation's merges); 0: not
                                * known. Any change clears it; a writer may
                                * skip its own check when it is set */
    const mc_allocator *alloc;
} mc_container;

/* ------------------------------------------------------------ lifecycle */

/* Starts a single-value container (no allocation; cannot fail). `alloc` NULL
 * means the default allocator. Rules must have 1 <= size <= 4096, 1 <= min
 * <= max <= 16 and 1 <= direct_bits <= 31 (values outside are clamped). */
MC_API void mc_container_init(mc_container *c, const mc_container_rules *rules,
                              uint32_t value, const mc_allocator *alloc);
/* Frees the container's memory; it becomes single-valued 0 (reusable). */
MC_API void mc_container_free(mc_container *c);
/* Makes dst an independent copy of src (dst must not hold memory: either
 * fresh or freed). */
MC_API mc_status mc_container_copy(mc_container *dst, const mc_container *src);

/* ------------------------------------------------------------ entries */

/* Entry i (0 <= i < size). */
MC_API uint32_t mc_container_get(const mc_container *c, size_t i);
/* Sets entry i to value, growing as the game does. *old (may be NULL)
 * receives the previous value. */
MC_API mc_status mc_container_set(mc_container *c, size_t i, uint32_t value, uint32_t *old);
/* Every entry to one value (becomes single, frees the longs). */
MC_API void mc_container_fill(mc_container *c, uint32_t value);
/* All entries from values[0..size): the smallest strategy for the distinct
 * values, palette in first-occurrence order. */
MC_API mc_status mc_container_set_all(mc_container *c, const uint32_t *values);
/* All entries from a palette of n distinct values, in the order they first
 * occur in idx, and the index of each entry into it (idx[0..size)): the
 * container mc_container_set_all gives for the values palette[idx[i]], made
 * without hashing the values (for translations that remap indices).
 * MC_ERR_INVALID_ARG for an index past n. */
MC_API mc_status mc_container_set_indexed(mc_container *c, const uint32_t *palette, size_t n,
                                          const uint16_t *idx);
/* All entries into out[0..size). */
MC_API void mc_container_get_all(const mc_container *c, uint32_t *out);
/* Calls fn(index, value, user) for every entry in index order; stops early
 * (returning false) when fn returns false. */
MC_API bool mc_container_each(const mc_container *c,
                              bool (*fn)(size_t index, uint32_t value, void *user), void *user);
/* Number of entries whose value satisfies pred. The predicate runs once per
 * palette entry (per distinct value in a run for direct containers). */
MC_API size_t mc_container_count_if(const mc_container *c,
                                    bool (*pred)(uint32_t value, void *user), void *user);
/* How many times each palette index occurs: counts[0..palette_len) (single:
 * counts[0] = size; direct: not available, returns false). */
MC_API bool mc_container_histogram(const mc_container *c, uint32_t *counts);

/* Drops unused palette entries and shrinks to the smallest strategy
 * (direct -> indirect/single when few values remain). */
MC_API mc_status mc_container_compact(mc_container *c);
/* Same entries? (by content: representation, palette order and garbage in
 * padding bits do not matter) */
MC_API bool mc_container_equal(const mc_container *a, const mc_container *b);
/* Bytes of heap memory the container holds. */
MC_API size_t mc_container_memory(const mc_container *c);

/* ----------------------------------------------- raw access for codecs */

static inline mc_container_kind mc_container_get_kind(const mc_container *c)
{
    return (mc_container_kind)c->kind;
}
static inline unsigned mc_container_bits(const mc_container *c) { return c->bits; }
/* The palette: indirect: the palette; single: one entry (the value);
 * direct: NULL, *len = 0. */
MC_API const uint32_t *mc_container_palette(const mc_container *c, size_t *len);
/* The padded native longs and their count (NULL/0 for single). */
MC_API const uint64_t *mc_container_longs(const mc_container *c, size_t *nlongs);

/* Builds c from outside data (the container is initialised here; on error it
 * is left single-valued 0 and holds no memory).
 *   bits, layout: how the longs are packed (0 = single: no longs).
 *   palette/palette_len: the palette for indirect and single data; NULL/0
 *     means the longs hold registry ids directly.
 *   be/nlongs: big-endian long bytes (8*nlongs bytes), as NBT long arrays
 *     and packets carry them.
 * Validates everything: bits <= 32; nlongs == mc_bits_longs(size, bits,
 * layout); a single container has exactly one palette entry and no longs;
 * palette_len <= 1 << bits; every index < palette_len; every direct value
 * fits the rules' direct width. The container then takes the strategy the
 * game would: indirect at max(bits, min) when bits <= max (so a 1.18 client's
 * view of a packet), otherwise the rules' width for the palette, or direct.
 * When bits and layout already match (the modern case) the longs are copied
 * with a byte swap and nothing is repacked. */
MC_API mc_status mc_container_from_be(mc_container *c, const mc_container_rules *rules,
                                      unsigned bits, mc_bits_layout layout,
                                      const uint32_t *palette, size_t palette_len,
                                      const uint8_t *be, size_t nlongs,
                                      const mc_allocator *alloc, mc_error *err);
/* The same from native longs. */
MC_API mc_status mc_container_from_longs(mc_container *c, const mc_container_rules *rules,
                                         unsigned bits, mc_bits_layout layout,
                                         const uint32_t *palette, size_t palette_len,
                                         const uint64_t *longs, size_t nlongs,
                                         const mc_allocator *alloc, mc_error *err);
/* Takes ownership of a palette (palette_cap slots, allocated with `alloc`)
 * and padded longs (mc_bits_longs(size, bits, PADDED), allocated with
 * `alloc`) that already follow the rules (kind/bits as the game would have
 * them); validated like mc_container_from_be. On success the container owns
 * both; on failure the caller still does. palette may be NULL for direct. */
MC_API mc_status mc_container_adopt(mc_container *c, const mc_container_rules *rules,
                                    mc_container_kind kind, unsigned bits,
                                    uint32_t *palette, size_t palette_len, size_t palette_cap,
                                    uint64_t *longs, const mc_allocator *alloc, mc_error *err);

/* What a writer emits: palette indices (with mc_container_palette) or
 * registry ids (a direct encoding, from any kind). */
typedef enum mc_container_values {
    MC_WRITE_INDICES = 0,
    MC_WRITE_IDS = 1
} mc_container_values;

/* Writes the entries as big-endian longs at `bits` in `layout` into
 * out[0 .. 8*mc_bits_longs(size, bits, layout)). MC_WRITE_INDICES needs an
 * indirect or single container. MC_ERR_RANGE when some entry does not fit
 * `bits` (e.g. 4 bits for a 20-entry palette). E.g. 1.13's wire form of a
 * direct container: bits 14, MC_BITS_SPANNING, MC_WRITE_IDS. */
MC_API mc_status mc_container_write_be(const mc_container *c, unsigned bits,
                                       mc_bits_layout layout, mc_container_values what,
                                       uint8_t *out);
/* The same, appended to an mc_buf. */
MC_API mc_status mc_container_write_be_buf(const mc_container *c, unsigned bits,
                                           mc_bits_layout layout, mc_container_values what,
                                           mc_buf *out);

#ifdef __cplusplus
}
#endif
#endif
