/*
 * mcchunk/bits.h: packed arrays of small unsigned integers in 64-bit longs,
 * the storage under every paletted container, heightmap and biome array.
 *
 * The game has packed such arrays in two ways, and both are here:
 *
 *   MC_BITS_PADDED   (1.16+) each long holds floor(64/bits) entries, the first
 *                    in the lowest bits; the unused high bits are padding and
 *                    no entry spans two longs.
 *   MC_BITS_SPANNING (1.9-1.15) one continuous little-endian bit stream: entry
 *                    i occupies bits [i*bits, (i+1)*bits) of the array, so an
 *                    entry may start in one long and end in the next.
 *
 * Widths are 0..32. Width 0 holds no longs at all (every entry reads as 0).
 *
 * Longs come in two representations and every bulk function exists for both:
 *   - native: an array of uint64_t in host order (what mcchunk keeps in memory);
 *   - "_be": the bytes of big-endian longs as NBT long arrays and Java packets
 *     carry them. The _be kernels read and write those bytes directly, with
 *     the byte swap folded into their shuffles, so a codec never needs a
 *     converted copy.
 *
 * The bulk kernels are specialised per width and use AVX-512 (VBMI) shuffles
 * when the CPU has them, else AVX2 shuffles for unpacking (chosen at run
 * time, capped by MCCHUNK_CPU: see mc_bits_kernel_name; never when the
 * library is built with MC_PORTABLE), otherwise portable word-at-a-time
 * code. Results are identical on every path.
 *
 * Nothing here allocates or validates: callers pass arrays of the sizes given
 * by mc_bits_longs(). Values written are masked to `bits` bits.
 */
#ifndef MCCHUNK_BITS_H
#define MCCHUNK_BITS_H

#include "mcchunk/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mc_bits_layout {
    MC_BITS_PADDED = 0,   /* 1.16+: floor(64/bits) entries per long */
    MC_BITS_SPANNING = 1  /* before 1.16: a continuous bit stream */
} mc_bits_layout;

#define MC_BITS_MAX 32

/* Entries per long in the padded layout: floor(64/bits) (0 for bits 0). */
MC_API unsigned mc_bits_per_long(unsigned bits);

/* Number of longs that hold `count` entries of `bits` bits in `layout`:
 * padded ceil(count / floor(64/bits)), spanning ceil(count*bits / 64);
 * 0 when bits is 0 or count is 0. Returns SIZE_MAX for bits > 32. */
MC_API size_t mc_bits_longs(size_t count, unsigned bits, mc_bits_layout layout);

/* ceil(log2(n)) for n >= 1 (0 for n <= 1): the width that can hold the
 * values 0..n-1. */
MC_API unsigned mc_bits_ceil_log2(uint64_t n);

/* -------------------------------------------------------- single entries */

/* Entry `index` of a native array. `index` must be below the array's count. */
MC_API uint32_t mc_bits_get(const uint64_t *longs, size_t index, unsigned bits,
                            mc_bits_layout layout);
/* Stores `value & mask(bits)` at `index`, leaving every other bit as it was. */
MC_API void mc_bits_set(uint64_t *longs, size_t index, unsigned bits,
                        mc_bits_layout layout, uint32_t value);
/* The same on big-endian long bytes. */
MC_API uint32_t mc_bits_get_be(const uint8_t *be, size_t index, unsigned bits,
                               mc_bits_layout layout);
MC_API void mc_bits_set_be(uint8_t *be, size_t index, unsigned bits,
                           mc_bits_layout layout, uint32_t value);

/* ------------------------------------------------------------ bulk unpack */

/* Unpacks `count` entries into out[0..count). The _u16 forms need bits <= 16
 * (wider entries are truncated to their low 16 bits). */
MC_API void mc_bits_unpack_u16(const uint64_t *longs, size_t count, unsigned bits,
                               mc_bits_layout layout, uint16_t *out);
MC_API void mc_bits_unpack_u32(const uint64_t *longs, size_t count, unsigned bits,
                               mc_bits_layout layout, uint32_t *out);
MC_API void mc_bits_unpack_be_u16(const uint8_t *be, size_t count, unsigned bits,
                                  mc_bits_layout layout, uint16_t *out);
MC_API void mc_bits_unpack_be_u32(const uint8_t *be, size_t count, unsigned bits,
                                  mc_bits_layout layout, uint32_t *out);

/* Unpacks `count` entries of width `bits` (1..8) and writes table[entry]
 * for each: out[i] = table[entry i]. For turning a per-palette fact into a
 * per-entry byte array in one pass (4-bit arrays: 32 or 64 entries per
 * step with a byte shuffle). bits 0 or above 8: out is table[0] throughout. */
MC_API void mc_bits_unpack_map_u8(const uint64_t *longs, size_t count, unsigned bits,
                                  mc_bits_layout layout, const uint8_t table[256], uint8_t *out);

/* -------------------------------------------------------------- bulk pack */

/* Packs in[0..count) (each masked to `bits`) into exactly
 * mc_bits_longs(count, bits, layout) longs, which are fully written:
 * padding bits and the unused tail of the last long are zero. */
MC_API void mc_bits_pack_u16(const uint16_t *in, size_t count, unsigned bits,
                             mc_bits_layout layout, uint64_t *longs);
MC_API void mc_bits_pack_u32(const uint32_t *in, size_t count, unsigned bits,
                             mc_bits_layout layout, uint64_t *longs);
MC_API void mc_bits_pack_be_u16(const uint16_t *in, size_t count, unsigned bits,
                                mc_bits_layout layout, uint8_t *be);
MC_API void mc_bits_pack_be_u32(const uint32_t *in, size_t count, unsigned bits,
                                mc_bits_layout layout, uint8_t *be);

/* ------------------------------------------------------------- conversion */

/* Copies n longs between big-endian bytes and native order. */
MC_API void mc_bits_load_be(const uint8_t *be, size_t n, uint64_t *longs);
MC_API void mc_bits_store_be(const uint64_t *longs, size_t n, uint8_t *be);

/* Re-packs `count` entries from one width/layout to another (native arrays;
 * src and dst must not overlap). Entries wider than dst_bits are masked. */
MC_API void mc_bits_repack(const uint64_t *src, unsigned src_bits, mc_bits_layout src_layout,
                           uint64_t *dst, unsigned dst_bits, mc_bits_layout dst_layout,
                           size_t count);

/* The largest entry among the first `count` (0 for count 0 or bits 0). */
MC_API uint32_t mc_bits_max(const uint64_t *longs, size_t count, unsigned bits,
                            mc_bits_layout layout);

/* Padded layout only: true when each of the first `count` entries is below
 * `limit` (a palette length). Much faster than mc_bits_max; use that for the
 * offending value once this says no. */
MC_API bool mc_bits_all_below(const uint64_t *longs, size_t count, unsigned bits, uint64_t limit);

/* Padded layout only: how many of the first `count` entries equal `value`
 * (a few hundred ns for a 4096-entry section; no unpacking). */
MC_API size_t mc_bits_count_equal(const uint64_t *longs, size_t count, unsigned bits, uint32_t value);

/* Which kernels the bulk functions use in this process: the tier
 * "avx512vbmi", "avx2" or "portable", followed by "+vbmi2" when the AVX-512
 * tier also uses VBMI2 and by "+vpopcntdq" when the counts use VPOPCNTDQ
 * (e.g. "avx512vbmi+vbmi2+vpopcntdq"). The CPU decides, lowered by the
 * environment variable MCCHUNK_CPU (read once, at the first bulk call):
 * "portable", "avx2" (AVX2, BMI2, POPCNT) or "avx512vbmi" (adds AVX-512
 * F/BW/VL/VBMI) caps the extensions used, never adding one the CPU lacks;
 * unset, "native" or any other value uses all the CPU has. */
MC_API const char *mc_bits_kernel_name(void);

#ifdef __cplusplus
}
#endif
#endif
