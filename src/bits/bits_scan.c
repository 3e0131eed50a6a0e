/*
 * bits_scan.c: SIMD versions of the whole-array scans of bits.c that the
 * codecs run on every section they read: the byte swap of big-endian longs
 * (mc_bits_load_be / mc_bits_store_be), the bound check of padded entries
 * (mc_bits_all_below) and the count of entries equal to a value
 * (mc_bits_count_equal). Each is the portable SWAR loop of bits.c over
 * whole longs, four (AVX2) or eight (AVX-512) longs per instruction; bits.c
 * calls them after a run-time CPU check and does the partial last long
 * itself. Built with MC_PORTABLE they are absent and bits.c never calls them.
 */
#include "bits_private.h"

#ifdef MC_HAVE_AVX512_KERNELS

#include <immintrin.h>

#define MC_AVX2 __attribute__((target("avx2")))
#define MC_AVX512POP __attribute__((target("avx512f,avx512bw,avx512vpopcntdq")))

/* bswap of each 64-bit lane */
static MC_AVX2 inline __m256i bswap64_256(__m256i v)
{
    const __m256i m = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8,
                                       7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
    return _mm256_shuffle_epi8(v, m);
}

MC_AVX2 size_t mc__bits_swap_avx2(const uint8_t *src, size_t n, uint8_t *dst)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + 8 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 8 * i + 32));
        _mm256_storeu_si256((__m256i *)(dst + 8 * i), bswap64_256(a));
        _mm256_storeu_si256((__m256i *)(dst + 8 * i + 32), bswap64_256(b));
    }
    return i;
}

MC_AVX2 uint64_t mc__bits_below_avx2(const uint64_t *longs, size_t full, unsigned bits, uint64_t even,
                                     uint64_t odd, uint64_t add_e, uint64_t add_o, size_t *done)
{
    const __m256i ve = _mm256_set1_epi64x((long long)even), vo = _mm256_set1_epi64x((long long)odd);
    const __m256i ae = _mm256_set1_epi64x((long long)add_e), ao = _mm256_set1_epi64x((long long)add_o);
    const __m128i sh = _mm_cvtsi32_si128((int)bits);
    __m256i acc = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 4 <= full; i += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(longs + i));
        __m256i e = _mm256_add_epi64(_mm256_and_si256(x, ve), ae);
        __m256i o = _mm256_add_epi64(_mm256_and_si256(_mm256_srl_epi64(x, sh), vo), ao);
        acc = _mm256_or_si256(acc, _mm256_or_si256(e, o));
    }
    uint64_t t[4];
    _mm256_storeu_si256((__m256i *)t, acc);
    *done = i;
    return t[0] | t[1] | t[2] | t[3];
}

#define MC_AVX512BW __attribute__((target("avx512f,avx512bw")))

/* mc__bits_swap_avx2 and mc__bits_below_avx2 in one pass, eight longs at a
 * time: the swapped longs are stored and tested while in a register. */
MC_AVX512BW uint64_t mc__bits_load_be_below_avx512(const uint8_t *src, size_t full, uint64_t *dst,
                                                   unsigned bits, uint64_t even, uint64_t odd,
                                                   uint64_t add_e, uint64_t add_o, size_t *done)
{
    const __m512i swap = _mm512_broadcast_i32x4(
        _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8));
    const __m512i ve = _mm512_set1_epi64((long long)even), vo = _mm512_set1_epi64((long long)odd);
    const __m512i ae = _mm512_set1_epi64((long long)add_e), ao = _mm512_set1_epi64((long long)add_o);
    const __m128i sh = _mm_cvtsi32_si128((int)bits);
    __m512i acc = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 8 <= full; i += 8) {
        __m512i x = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(src + 8 * i)), swap);
        _mm512_storeu_si512((void *)(dst + i), x);
        __m512i e = _mm512_add_epi64(_mm512_and_si512(x, ve), ae);
        __m512i o = _mm512_add_epi64(_mm512_and_si512(_mm512_srl_epi64(x, sh), vo), ao);
        acc = _mm512_ternarylogic_epi64(acc, e, o, 0xFE); /* acc | e | o */
    }
    *done = i;
    return (uint64_t)_mm512_reduce_or_epi64(acc);
}

MC_AVX512POP size_t mc__bits_count_avx512(const uint64_t *longs, size_t full, uint64_t pattern,
                                          uint64_t low, uint64_t high, size_t *done)
{
    const __m512i p = _mm512_set1_epi64((long long)pattern), lo = _mm512_set1_epi64((long long)low);
    const __m512i hi = _mm512_set1_epi64((long long)high);
    __m512i acc = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 8 <= full; i += 8) {
        __m512i t = _mm512_xor_si512(_mm512_loadu_si512((const void *)(longs + i)), p);
        __m512i nz = _mm512_or_si512(_mm512_add_epi64(_mm512_and_si512(t, lo), lo), t);
        acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_andnot_si512(nz, hi)));
    }
    *done = i;
    return (size_t)_mm512_reduce_add_epi64(acc);
}

#endif
