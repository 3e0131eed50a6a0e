/*
 * bits_private.h: what the files of src/chunk share about packed arrays:
 * compiler helpers for the per-width kernel template and the entry points of
 * the SIMD kernels (bits_avx512.c), which report whether they handled a call
 * so that bits.c can fall back to the portable kernels.
 */
#ifndef MC_CHUNK_BITS_PRIVATE_H
#define MC_CHUNK_BITS_PRIVATE_H

#include "mcchunk/bits.h"

#if defined(__GNUC__)
#define MC_ALWAYS_INLINE inline __attribute__((always_inline))
#define MC_UNROLL _Pragma("GCC unroll 64")
/* 128-bit GNU C vectors for the portable kernels (SSE2 on x86-64, NEON on
 * arm64, plain scalar code where the target has no vectors). */
typedef uint16_t mc__v8u16 __attribute__((vector_size(16)));
typedef uint32_t mc__v4u32 __attribute__((vector_size(16)));
typedef uint64_t mc__v2u64 __attribute__((vector_size(16)));
#else
#define MC_ALWAYS_INLINE inline
#define MC_UNROLL
/* The portable kernels alone (benchmarks compare them with the dispatched
 * path in one run). */
void mc__bits_unpack_portable(const uint64_t *src, size_t count, unsigned bits,
                              mc_bits_layout layout, void *out, int es);
void mc__bits_pack_portable(const void *in, int es, size_t count, unsigned bits,
                            mc_bits_layout layout, uint64_t *dst);

#endif

#if !defined(MC_PORTABLE) && defined(__x86_64__) && defined(__GNUC__)
#define MC_HAVE_AVX512_KERNELS 1
/* The portable kernels alone (benchmarks compare them with the dispatched
 * path in one run). */
void mc__bits_unpack_portable(const uint64_t *src, size_t count, unsigned bits,
                              mc_bits_layout layout, void *out, int es);
void mc__bits_pack_portable(const void *in, int es, size_t count, unsigned bits,
                            mc_bits_layout layout, uint64_t *dst);

#endif

/* Entry i of a spanning array (the entry lies wholly inside the array). */
static inline uint64_t mc__bits_get_spanning_bounded(const uint64_t *w, size_t nlongs, size_t i, unsigned b)
{
    size_t bit = i * b, a = bit >> 6;
    unsigned s = (unsigned)(bit & 63);
    uint64_t v = w[a] >> s;
    if (s + b > 64 && a + 1 < nlongs)
        v |= w[a + 1] << (64 - s);
    return v & (b == 32 ? 0xFFFFFFFFull : ((1ull << b) - 1));
}

/* ceil(2^32 / k) for k = 1..64: i / k == (i * recip[k]) >> 32 exactly for
 * every i < 2^26, which replaces the division in single-entry access. */
extern const uint64_t mc__bits_recip[65];

/* Padded longs of 4096 entries by width 0..32, and the inline shortcut for
 * mc_bits_longs(count, bits, MC_BITS_PADDED) (the same value). */
extern const uint16_t mc__bits_longs_4096[33];
extern const uint8_t mc__bits_longs_64[33];
static inline size_t mc__bits_longs_padded(size_t count, unsigned bits)
{
    if (count == 4096 && bits <= 32)
        return mc__bits_longs_4096[bits];
    if (count == 64 && bits <= 32)
        return mc__bits_longs_64[bits];
    return mc_bits_longs(count, bits, MC_BITS_PADDED);
}

/* Entry i (< 2^26) of a padded native array, bits 1..32. */
static inline uint32_t mc__bits_get_padded(const uint64_t *w, size_t i, unsigned bits)
{
    const unsigned k = 64 / bits; /* constant-folded where bits is */
    const size_t a = (size_t)((i * mc__bits_recip[k]) >> 32);
    const unsigned s = (unsigned)(i - a * k) * bits;
    return (uint32_t)((w[a] >> s) & ((1ull << bits) - 1));
}

/* mc_bits_load_be of nlongs longs and mc_bits_all_below of the first count
 * padded entries in one pass over the data. */
bool mc__bits_load_be_all_below(const uint8_t *be, size_t nlongs, uint64_t *longs, size_t count,
                                unsigned bits, uint64_t limit);

/* ---------------------------------------------------------- CPU features
 * The SIMD extensions this process may use (cpu.c): those the CPU has,
 * capped by the environment variable MCCHUNK_CPU, decided at the first call
 * and cached; 0 in builds without SIMD kernels. Every run-time kernel choice
 * goes through here, so that a cap reaches all of them. */
#define MC_CPU_POPCNT (1u << 0)
#define MC_CPU_BMI2 (1u << 1)
#define MC_CPU_AVX2 (1u << 2)
#define MC_CPU_AVX512F (1u << 3)
#define MC_CPU_AVX512BW (1u << 4)
#define MC_CPU_AVX512VL (1u << 5)
#define MC_CPU_AVX512VBMI (1u << 6)
#define MC_CPU_AVX512VBMI2 (1u << 7)
#define MC_CPU_AVX512VPOPCNTDQ (1u << 8)
#define MC_CPU_DETECTED (1u << 31) /* set in every cached value: 0 is "not yet" */
/* The features each MCCHUNK_CPU value allows (a cap; the CPU may have less). */
#define MC_CPU_CAP_PORTABLE 0u
#define MC_CPU_CAP_AVX2 (MC_CPU_AVX2 | MC_CPU_BMI2 | MC_CPU_POPCNT)
#define MC_CPU_CAP_AVX512VBMI \
    (MC_CPU_CAP_AVX2 | MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VL | MC_CPU_AVX512VBMI)
#define MC_CPU_CAP_NATIVE (~MC_CPU_DETECTED)
/* What the table-driven AVX-512 kernels of bits_avx512.c need. */
#define MC_CPU_AVX512_KERNELS (MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VL | MC_CPU_AVX512VBMI)

/* The cap of one MCCHUNK_CPU value: "portable", "avx2", "avx512vbmi";
 * anything else (NULL, "native", unknown) is MC_CPU_CAP_NATIVE. */
unsigned mc__cpu_cap(const char *value);
/* Detects, caps, caches and returns the features (the slow first call). */
unsigned mc__cpu_detect(void);

#ifdef MC_HAVE_AVX512_KERNELS
#include <stdatomic.h>
extern _Atomic unsigned mc__cpu_cached;
static inline unsigned mc__cpu_features(void)
{
    const unsigned f = atomic_load_explicit(&mc__cpu_cached, memory_order_relaxed);
    return __builtin_expect(f != 0, 1) ? f : mc__cpu_detect();
}
#else
static inline unsigned mc__cpu_features(void)
{
    return 0; /* constant: every SIMD branch folds away */
}
#endif

/* True when every feature of `want` may be used. */
static inline bool mc__cpu_has(unsigned want)
{
    return (mc__cpu_features() & want) == want;
}

/* True when this process may use the AVX-512 kernels. */
static inline bool mc__bits_have_avx512(void)
{
    return mc__cpu_has(MC_CPU_AVX512_KERNELS);
}
/* True when this process may use the AVX2 kernels. */
static inline bool mc__bits_have_avx2(void)
{
    return mc__cpu_has(MC_CPU_AVX2);
}
/* True when this process may use the VPOPCNTDQ count (bits_scan.c). */
static inline bool mc__bits_have_vpopcntdq(void)
{
    return mc__cpu_has(MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VPOPCNTDQ);
}

/* The scans of bits_scan.c: each does whole vectors and returns (or stores
 * in *done) how many longs it did; the caller finishes the rest. */
size_t mc__bits_swap_avx2(const uint8_t *src, size_t n, uint8_t *dst);
uint64_t mc__bits_below_avx2(const uint64_t *longs, size_t full, unsigned bits, uint64_t even,
                             uint64_t odd, uint64_t add_e, uint64_t add_o, size_t *done);
uint64_t mc__bits_load_be_below_avx512(const uint8_t *src, size_t full, uint64_t *dst, unsigned bits,
                                       uint64_t even, uint64_t odd, uint64_t add_e, uint64_t add_o,
                                       size_t *done);
size_t mc__bits_count_avx512(const uint64_t *longs, size_t full, uint64_t pattern, uint64_t low,
                             uint64_t high, size_t *done);
/* The AVX2 unpack kernels (bits_avx2.c), same contract as below. */
bool mc__bits_unpack_avx2(const void *src, bool be, size_t count, unsigned bits,
                          mc_bits_layout layout, void *out, int es);

/* SIMD bulk kernels. They return false (having done nothing) when they do
 * not cover (bits, layout); `be` selects big-endian long bytes as input.
 * es is the output element size (2 or 4). `cpu` is the caller's
 * mc__cpu_features() (with MC_CPU_AVX512_KERNELS): the extensions beyond
 * those (VBMI2 for unpack, BMI2 for pack) are tested in it, not asked for
 * again (an atomic load there costs the large kernels their code layout). */
bool mc__bits_unpack_avx512(const void *src, bool be, size_t count, unsigned bits,
                            mc_bits_layout layout, void *out, int es, unsigned cpu);
bool mc__bits_pack_avx512(const void *in, int es, size_t count, unsigned bits,
                          mc_bits_layout layout, uint64_t *dst, unsigned cpu);

/* Which kernel the bulk unpack uses for (bits, normalised layout, input
 * byte order, output size) under the features `cpu` (bits.c; tests assert
 * the routing, bench_bits prints it). AVX512/AVX2 fall back to the
 * portable kernel where the SIMD kernel declines the case. */
typedef enum {
    MC__UNPACK_COPY, /* the longs are the entries: memcpy */
    MC__UNPACK_AVX512,
    MC__UNPACK_AVX2,
    MC__UNPACK_PORTABLE
} mc__unpack_kernel;
mc__unpack_kernel mc__bits_unpack_choice(unsigned bits, mc_bits_layout layout, bool be, int es, unsigned cpu);

/* The portable kernels alone (benchmarks compare them with the dispatched
 * path in one run). */
void mc__bits_unpack_portable(const uint64_t *src, size_t count, unsigned bits,
                              mc_bits_layout layout, void *out, int es);
void mc__bits_pack_portable(const void *in, int es, size_t count, unsigned bits,
                            mc_bits_layout layout, uint64_t *dst);

#endif
