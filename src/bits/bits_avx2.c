/*
 * bits_avx2.c: AVX2 unpack kernels for packed arrays, for CPUs with AVX2 but
 * without AVX-512 VBMI (bits.c tries AVX-512 first, then these, then the
 * portable kernels).
 *
 * AVX2 cannot shuffle bytes across its two 128-bit lanes, so each lane loads
 * its own 16-byte window (the two longs from the one holding the lane's
 * first entry) and vpshufb gathers each entry's window inside the lane.
 * Widths up to 9 take 16-bit windows, 8 entries per lane: a vpmullw by
 * 2^(16-bits-shift) drops the bits above the entry and a right shift by
 * 16-bits drops those below. Wider entries take 32-bit windows, 4 per lane,
 * with vpsrlvd and a mask (used for 32-bit output only: measured, the
 * portable kernels match it for 16-bit output). The tables (bits_tables_avx2.h, from
 * gen_bits_tables.py) hold per width and layout the windows of each step of
 * the repeating pattern; for big-endian input they index the mirrored bytes.
 * Steps whose loads would pass the end of the input, and the last few
 * entries, go through the single-entry functions.
 */
#include "bits_private.h"

#ifdef MC_HAVE_AVX512_KERNELS /* x86-64, GNU C, not MC_PORTABLE */

#include <immintrin.h>

#include "bits_tables_avx2.h"

#define MC_AVX2 __attribute__((target("avx2")))

static MC_AVX2 inline __attribute__((always_inline)) void
a_loop(const uint8_t *src, bool be, size_t nbytes, size_t count, unsigned bits,
       mc_bits_layout layout, const mc__bits_tab2 *tab, void *out, int es, int mode)
{
    const unsigned lanes = mode == 1 ? 16 : 8;
    const __m256i mask = _mm256_set1_epi32((int)(bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1)));
    const __m128i sr = _mm_cvtsi32_si128((int)(16 - (bits < 16 ? bits : 16)));
    size_t e = 0, base = 0;
    unsigned t = 0;
    while (e + lanes <= count) {
        size_t o0 = base + 8u * tab->offs[t][0], o1 = base + 8u * tab->offs[t][1];
        if (o0 + 16 > nbytes || o1 + 16 > nbytes)
            break;
        __m256i v = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src + o0))),
            _mm_loadu_si128((const __m128i *)(src + o1)), 1);
        v = _mm256_shuffle_epi8(v, _mm256_loadu_si256((const __m256i *)tab->idx[t]));
        __m256i mul = _mm256_loadu_si256((const __m256i *)tab->mul[t]);
        if (mode == 1) {
            v = _mm256_srl_epi16(_mm256_mullo_epi16(v, mul), sr);
            if (es == 2) {
                _mm256_storeu_si256((__m256i *)((uint16_t *)out + e), v);
            } else {
                uint32_t *o = (uint32_t *)out + e;
                _mm256_storeu_si256((__m256i *)o, _mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)));
                _mm256_storeu_si256((__m256i *)(o + 8), _mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)));
            }
        } else {
            v = _mm256_and_si256(_mm256_srlv_epi32(v, mul), mask);
            if (es == 4) {
                _mm256_storeu_si256((__m256i *)((uint32_t *)out + e), v);
            } else {
                /* bits <= 16 here: saturation never triggers */
                __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
                _mm_storeu_si128((__m128i *)((uint16_t *)out + e), _mm256_castsi256_si128(w));
            }
        }
        e += lanes;
        if (++t == tab->period) {
            t = 0;
            base += 8u * tab->longs;
        }
    }
    for (; e < count; e++) {
        uint32_t x = be ? mc_bits_get_be(src, e, bits, layout)
                        : mc_bits_get((const uint64_t *)(const void *)src, e, bits, layout);
        if (es == 2)
            ((uint16_t *)out)[e] = (uint16_t)x;
        else
            ((uint32_t *)out)[e] = x;
    }
}

MC_AVX2 bool mc__bits_unpack_avx2(const void *src, bool be, size_t count, unsigned bits,
                                  mc_bits_layout layout, void *out, int es)
{
    if (bits == 0 || bits > 32 || count == 0)
        return false;
    const mc__bits_tab2 *tab = &mc__bits_tabs2[layout == MC_BITS_SPANNING][be][bits];
    const size_t nbytes = 8 * mc_bits_longs(count, bits, layout);
    switch (tab->mode * 8 + es) {
    case 8 + 2: a_loop(src, be, nbytes, count, bits, layout, tab, out, 2, 1); return true;
    case 8 + 4: a_loop(src, be, nbytes, count, bits, layout, tab, out, 4, 1); return true;
    case 16 + 4:
        /* 32-bit windows pay for themselves only with 32-bit output and more
         * than two entries per long; elsewhere the portable kernels (packing
         * four 16-bit or two 32-bit entries per store) are as fast */
        if (layout == MC_BITS_PADDED && 64 / bits == 2)
            return false;
        a_loop(src, be, nbytes, count, bits, layout, tab, out, 4, 2);
        return true;
    }
    return false;
}

#else

bool mc__bits_unpack_avx2(const void *src, bool be, size_t count, unsigned bits,
                          mc_bits_layout layout, void *out, int es)
{
    (void)src; (void)be; (void)count; (void)bits; (void)layout; (void)out; (void)es;
    return false;
}

#endif
