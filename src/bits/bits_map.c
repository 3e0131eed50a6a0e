/*
 * bits_map.c: unpacking fused with a byte-table lookup
 * (mc_bits_unpack_map_u8): out[i] = table[entry i]. It is how a per-palette
 * fact (the light engine's kind of each state) becomes a per-block byte
 * array without a 16-bit array in between.
 *
 * 4-bit padded arrays (palettes of up to 16 states: most sections) hold two
 * entries per byte, low nibble first, so a byte shuffle with the 16-entry
 * table looks up 32 entries at once: AVX2 does 64 entries per step, the
 * portable loop one long (16 entries) per step. Padded 5-bit arrays
 * (palettes of 17..32 states: most of the rest) go to bytes a long (12
 * entries) at a time by shifts and masks, then are looked up in place
 * (AVX2: the same shifts and masks on four longs at once, looked up with
 * two byte shuffles before they are stored). Other widths unpack to 16
 * bits with the dispatched kernels and look up from there: widths 6..8
 * (palettes of 33..256 states) with AVX2 as 4..16 byte shuffles of the
 * table's 16-entry pieces (the high bits of an entry pick the piece), 32
 * entries a step, the others (and CPUs without AVX2) an entry at a time.
 */
#include "bits_private.h"

#include <string.h>

#ifdef MC_HAVE_AVX512_KERNELS

#include <immintrin.h>

#define MC_AVX2 __attribute__((target("avx2")))

/* The whole 64-entry steps of a 4-bit padded array; returns entries done. */
static MC_AVX2 size_t map4_avx2(const uint64_t *longs, size_t count, const uint8_t *table, uint8_t *out)
{
    const __m256i tab = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
    const __m256i nibble = _mm256_set1_epi8(15);
    const uint8_t *src = (const uint8_t *)longs;
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(src + i / 2));
        const __m256i lo = _mm256_shuffle_epi8(tab, _mm256_and_si256(v, nibble));
        const __m256i hi = _mm256_shuffle_epi8(tab, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
        /* byte k holds entries 2k (low nibble) and 2k+1: interleave, then
         * put the lanes back in order (unpack works within 128-bit lanes) */
        const __m256i a = _mm256_unpacklo_epi8(lo, hi), b = _mm256_unpackhi_epi8(lo, hi);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_permute2x128_si256(a, b, 0x20));
        _mm256_storeu_si256((__m256i *)(out + i + 32), _mm256_permute2x128_si256(a, b, 0x31));
    }
    return i;
}

/* out[k] = table[idx[k]] for the whole 32-entry steps of n entries of
 * `bits` (5..8) bits each; returns entries done. */
static MC_AVX2 size_t map_u16_avx2(const uint16_t *idx, size_t n, unsigned bits, const uint8_t *table, uint8_t *out)
{
    const unsigned pieces = 1u << (bits - 4);
    __m256i tab[16];
    for (unsigned j = 0; j < pieces; j++)
        tab[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(table + 16 * j)));
    const __m256i nibble = _mm256_set1_epi8(15);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(idx + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(idx + i + 16));
        /* 32 entries as bytes, in order (packus works within 128-bit lanes) */
        const __m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
        const __m256i lo = _mm256_and_si256(v, nibble), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        __m256i r = _mm256_shuffle_epi8(tab[0], lo);
        for (unsigned j = 1; j < pieces; j++)
            r = _mm256_blendv_epi8(r, _mm256_shuffle_epi8(tab[j], lo), _mm256_cmpeq_epi8(hi, _mm256_set1_epi8((char)j)));
        _mm256_storeu_si256((__m256i *)(out + i), r);
    }
    return i;
}

/* The table lookup over n bytes in place, each below 32 (2 byte
 * shuffles of the table's 16-entry halves a 32-byte step); returns the
 * bytes done. */
static MC_AVX2 size_t map5_bytes_avx2(uint8_t *io, size_t n, const uint8_t *table)
{
    const __m256i tab0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
    const __m256i tab1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(table + 16)));
    const __m256i nibble = _mm256_set1_epi8(15);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(io + i)), lo = _mm256_and_si256(v, nibble);
        const __m256i r = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab0, lo), _mm256_shuffle_epi8(tab1, lo),
                                             _mm256_cmpgt_epi8(v, nibble));
        _mm256_storeu_si256((__m256i *)(io + i), r);
    }
    return i;
}

/* The whole longs of a padded 5-bit array, four a step, looked up into
 * out: spread5's shifts and masks on four 64-bit lanes at once, each long's
 * 12 entry bytes moved to the front of its 16 with a byte shuffle, looked
 * up as map5_bytes_avx2 does, and stored 16 bytes at 12-byte steps (each
 * store's last 4 bytes are overwritten by the next; the loop stops 4 bytes
 * short of count, so none lands past it). Returns entries done. */
static MC_AVX2 size_t map5_spread_avx2(const uint64_t *longs, size_t count, const uint8_t *table, uint8_t *out)
{
    const __m256i tab0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
    const __m256i tab1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(table + 16)));
    const __m256i nibble = _mm256_set1_epi8(15);
    const __m256i m40 = _mm256_set1_epi64x(0xFFFFFFFFFFll), m20 = _mm256_set1_epi64x(0xFFFFFll);
    const __m256i m10 = _mm256_set1_epi64x(0x000003FF000003FFll), m5 = _mm256_set1_epi64x(0x001F001F001F001Fll);
    const __m256i b10 = _mm256_set1_epi64x(0x3FFll), b5 = _mm256_set1_epi64x(0x001F001Fll);
    /* per 128-bit lane (a long's a, then its b): bytes 0..7 of a, 8..11 of b first */
    const __m256i front = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, -1, -1, -1, 0, 1, 2, 3, 4,
                                           5, 6, 7, 8, 9, 10, 11, -1, -1, -1, -1);
    size_t i = 0;
    for (const uint64_t *w = longs; i + 52 <= count; i += 48, w += 4) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)w);
        __m256i a = _mm256_and_si256(v, m40), b = _mm256_and_si256(_mm256_srli_epi64(v, 40), m20);
        a = _mm256_or_si256(_mm256_and_si256(a, m20), _mm256_slli_epi64(_mm256_srli_epi64(a, 20), 32));
        a = _mm256_or_si256(_mm256_and_si256(a, m10), _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(a, 10), m10), 16));
        a = _mm256_or_si256(_mm256_and_si256(a, m5), _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(a, 5), m5), 8));
        b = _mm256_or_si256(_mm256_and_si256(b, b10), _mm256_slli_epi64(_mm256_srli_epi64(b, 10), 16));
        b = _mm256_or_si256(_mm256_and_si256(b, b5), _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(b, 5), b5), 8));
        /* lanes: longs 0, 2 and 1, 3 */
        const __m256i e02 = _mm256_shuffle_epi8(_mm256_unpacklo_epi64(a, b), front);
        const __m256i e13 = _mm256_shuffle_epi8(_mm256_unpackhi_epi64(a, b), front);
        const __m256i r02 = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab0, _mm256_and_si256(e02, nibble)),
                                               _mm256_shuffle_epi8(tab1, _mm256_and_si256(e02, nibble)),
                                               _mm256_cmpgt_epi8(e02, nibble));
        const __m256i r13 = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab0, _mm256_and_si256(e13, nibble)),
                                               _mm256_shuffle_epi8(tab1, _mm256_and_si256(e13, nibble)),
                                               _mm256_cmpgt_epi8(e13, nibble));
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm256_castsi256_si128(r02));
        _mm_storeu_si128((__m128i *)(void *)(out + i + 12), _mm256_castsi256_si128(r13));
        _mm_storeu_si128((__m128i *)(void *)(out + i + 24), _mm256_extracti128_si256(r02, 1));
        _mm_storeu_si128((__m128i *)(void *)(out + i + 36), _mm256_extracti128_si256(r13, 1));
    }
    return i;
}

#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The entries of the whole longs of a padded 5-bit array (palettes of
 * 17..32 states) as bytes: a long's 12 entries by shifts and masks (its
 * low 40 bits as 20-bit halves, then 10-bit quarters, then fields of 5 in
 * bytes; the next 20 bits the same from the quarters), stored as 8 + 4
 * bytes. Returns entries done (a multiple of 12). */
static size_t spread5(const uint64_t *longs, size_t count, uint8_t *out)
{
    size_t i = 0;
    for (const uint64_t *w = longs; i + 12 <= count; i += 12, w++) {
        uint64_t a = *w & 0xFFFFFFFFFFull, b = *w >> 40 & 0xFFFFFull;
        a = (a & 0xFFFFFull) | (a >> 20) << 32;
        a = (a & 0x000003FF000003FFull) | (a >> 10 & 0x000003FF000003FFull) << 16;
        a = (a & 0x001F001F001F001Full) | (a >> 5 & 0x001F001F001F001Full) << 8;
        b = (b & 0x3FFull) | (b >> 10) << 16;
        b = (b & 0x001F001Full) | (b >> 5 & 0x001F001Full) << 8;
        const uint32_t b4 = (uint32_t)b;
        memcpy(out + i, &a, 8);
        memcpy(out + i + 8, &b4, 4);
    }
    return i;
}
#endif

void mc_bits_unpack_map_u8(const uint64_t *longs, size_t count, unsigned bits, mc_bits_layout layout,
                           const uint8_t table[256], uint8_t *out)
{
    if (bits == 0 || bits > 8) {
        memset(out, table[0], count);
        return;
    }
    if (bits == 4) { /* padded and spanning are the same layout at 4 bits */
        size_t i = 0;
#ifdef MC_HAVE_AVX512_KERNELS
        if (mc__bits_have_avx2())
            i = map4_avx2(longs, count, table, out);
#endif
        for (; i + 16 <= count; i += 16) {
            const uint64_t w = longs[i / 16];
            for (unsigned k = 0; k < 16; k++)
                out[i + k] = table[(w >> (4 * k)) & 15];
        }
        for (; i < count; i++)
            out[i] = table[mc_bits_get(longs, i, 4, layout)];
        return;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (bits == 5 && layout == MC_BITS_PADDED) { /* the entries as bytes, then looked up in place */
        size_t i = 0;
#ifdef MC_HAVE_AVX512_KERNELS
        if (mc__bits_have_avx2())
            i = map5_spread_avx2(longs, count, table, out);
#endif
        const size_t whole = i + spread5(longs + i / 12, count - i, out + i);
#ifdef MC_HAVE_AVX512_KERNELS
        if (mc__bits_have_avx2())
            i += map5_bytes_avx2(out + i, whole - i, table);
#endif
        for (; i < whole; i++)
            out[i] = table[out[i]];
        for (; i < count; i++)
            out[i] = table[mc_bits_get(longs, i, 5, layout)];
        return;
    }
#endif
    uint16_t tmp[1024];
    for (size_t i = 0; i < count;) {
        /* whole longs per step, so that each step starts on a long */
        const size_t per = 64 / bits; /* padded: entries per long */
        const size_t step = layout == MC_BITS_PADDED ? 1024 / per * per : 1024; /* spanning: 64 entries fill `bits` longs */
        const size_t n = count - i < step ? count - i : step;
        const size_t first_long = layout == MC_BITS_PADDED ? i / per : i / 64 * bits;
        mc_bits_unpack_u16(longs + first_long, n, bits, layout, tmp);
        size_t k = 0;
#ifdef MC_HAVE_AVX512_KERNELS
        if (bits >= 5 && mc__bits_have_avx2())
            k = map_u16_avx2(tmp, n, bits, table, out + i);
#endif
        for (; k < n; k++)
            out[i + k] = table[tmp[k]];
        i += n;
    }
}
