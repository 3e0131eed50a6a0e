/*
 * test_bits.c: packed arrays against a bit-by-bit reference model, for every
 * width 0..32, both layouts, native and big-endian longs, u16 and u32
 * entries, whole sections and ragged counts; plus the worked examples of the
 * seeds (the 5-bit padded example of the modern chunk-format page, the
 * 0xCCFF... biome long, the 13-bit spanning example of the 1.12 page).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/bits.h"
#include "bits/bits_private.h" /* the portable kernels, tested on every CPU */

/* Reference: entry i is bits [pos, pos+b) of the little-endian bit string of
 * the longs, with pos = i*b (spanning) or (i/k)*64 + (i%k)*b (padded). */
static size_t ref_pos(size_t i, unsigned b, mc_bits_layout layout)
{
    if (layout == MC_BITS_SPANNING)
        return i * b;
    size_t k = 64 / b;
    return (i / k) * 64 + (i % k) * b;
}
static uint32_t ref_get(const uint64_t *w, size_t i, unsigned b, mc_bits_layout layout)
{
    uint32_t v = 0;
    size_t p = ref_pos(i, b, layout);
    for (unsigned k = 0; k < b; k++, p++)
        v |= (uint32_t)((w[p / 64] >> (p % 64)) & 1) << k;
    return v;
}
static void ref_pack(const uint32_t *in, size_t n, unsigned b, mc_bits_layout layout, uint64_t *w, size_t nl)
{
    memset(w, 0, nl * 8);
    for (size_t i = 0; i < n; i++) {
        size_t p = ref_pos(i, b, layout);
        for (unsigned k = 0; k < b; k++, p++)
            w[p / 64] |= (uint64_t)((in[i] >> k) & 1) << (p % 64);
    }
}

static void check_one(mc_test_rng *rng, unsigned b, mc_bits_layout layout, size_t n, int pattern)
{
    size_t nl = mc_bits_longs(n, b, layout);
    uint32_t *in = malloc((n + 1) * 4), *out32 = malloc((n + 1) * 4);
    uint16_t *in16 = malloc((n + 1) * 2), *out16 = malloc((n + 1) * 2);
    uint64_t *ref = calloc(nl + 1, 8), *got = calloc(nl + 1, 8);
    uint8_t *be = calloc(nl + 1, 8), *be2 = calloc(nl + 1, 8);
    uint64_t m = b == 32 ? 0xFFFFFFFFull : ((1ull << b) - 1);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = mc_test_rand(rng);
        if (pattern == 1)
            r = m; /* all ones: catches masks and padding */
        else if (pattern == 2)
            r = i;
        in[i] = (uint32_t)(r & m);
        in16[i] = (uint16_t)in[i];
    }
    ref_pack(in, n, b, layout, ref, nl);

    /* pack u32 (extra high bits in the input must be masked away) */
    uint32_t *dirty = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++)
        dirty[i] = in[i] | (b < 32 ? (uint32_t)(mc_test_rand(rng) << b) : 0);
    got[nl] = 0x5555;
    mc_bits_pack_u32(dirty, n, b, layout, got);
    assert_memory_equal(got, ref, nl * 8);
    assert_true(got[nl] == 0x5555); /* wrote exactly nl longs */
    if (b <= 16) {
        memset(got, 0xAB, nl * 8);
        mc_bits_pack_u16(in16, n, b, layout, got);
        assert_memory_equal(got, ref, nl * 8);
    }
    /* the portable kernels directly (the dispatched path may be SIMD) */
    memset(got, 0xCD, nl * 8);
    mc__bits_pack_portable(dirty, 4, n, b, layout, got);
    assert_memory_equal(got, ref, nl * 8);
    if (b <= 16) {
        memset(got, 0xCD, nl * 8);
        mc__bits_pack_portable(in16, 2, n, b, layout, got);
        assert_memory_equal(got, ref, nl * 8);
    }
    /* big-endian pack */
    mc_bits_pack_be_u32(in, n, b, layout, be);
    for (size_t l = 0; l < nl; l++)
        assert_true(mc_load_u64be(be + 8 * l) == ref[l]);
    if (b <= 16) {
        mc_bits_pack_be_u16(in16, n, b, layout, be2);
        assert_memory_equal(be, be2, nl * 8);
    }

    /* unpack; put garbage into the padding and the unused tail first */
    uint64_t *noisy = calloc(nl + 1, 8);
    memcpy(noisy, ref, nl * 8);
    if (layout == MC_BITS_PADDED && b > 0) {
        unsigned used = (64 / b) * b;
        for (size_t l = 0; l < nl && used < 64; l++)
            noisy[l] |= mc_test_rand(rng) << used;
    }
    mc_bits_store_be(noisy, nl, be);
    /* the byte swaps (SIMD for whole vectors, scalar after) against the
     * byte-at-a-time definition, and back */
    for (size_t l = 0; l < nl; l++)
        assert_true(mc_load_u64be(be + 8 * l) == noisy[l]);
    {
        uint64_t *back = malloc(nl * 8 + 8);
        back[nl] = 0x1122334455667788ull;
        mc_bits_load_be(be, nl, back);
        assert_memory_equal(back, noisy, nl * 8);
        assert_true(back[nl] == 0x1122334455667788ull);
        free(back);
    }
    out32[n] = 0xDEADBEEF;
    mc_bits_unpack_u32(noisy, n, b, layout, out32);
    assert_memory_equal(out32, in, n * 4);
    assert_true(out32[n] == 0xDEADBEEF);
    memset(out32, 0, n * 4);
    mc__bits_unpack_portable(noisy, n, b, layout, out32, 4);
    assert_memory_equal(out32, in, n * 4);
    if (mc__bits_have_avx2()) {
        /* the AVX2 kernels, which the dispatcher skips on AVX-512 CPUs */
        memset(out32, 0, n * 4);
        if (mc__bits_unpack_avx2(noisy, false, n, b, layout, out32, 4))
            assert_memory_equal(out32, in, n * 4);
        memset(out32, 0, n * 4);
        if (mc__bits_unpack_avx2(be, true, n, b, layout, out32, 4))
            assert_memory_equal(out32, in, n * 4);
        if (b <= 16) {
            memset(out16, 0, n * 2);
            if (mc__bits_unpack_avx2(noisy, false, n, b, layout, out16, 2))
                assert_memory_equal(out16, in16, n * 2);
            memset(out16, 0, n * 2);
            if (mc__bits_unpack_avx2(be, true, n, b, layout, out16, 2))
                assert_memory_equal(out16, in16, n * 2);
        }
    }
    if (mc__bits_have_avx512()) {
        /* the AVX-512 kernels directly too: the dispatcher routes some
         * widths elsewhere (a copy at 16/32 bits) */
        const unsigned cpu = mc__cpu_features();
        memset(out32, 0, n * 4);
        if (mc__bits_unpack_avx512(noisy, false, n, b, layout, out32, 4, cpu))
            assert_memory_equal(out32, in, n * 4);
        memset(out32, 0, n * 4);
        if (mc__bits_unpack_avx512(be, true, n, b, layout, out32, 4, cpu))
            assert_memory_equal(out32, in, n * 4);
        if (b <= 16) {
            memset(out16, 0, n * 2);
            if (mc__bits_unpack_avx512(noisy, false, n, b, layout, out16, 2, cpu))
                assert_memory_equal(out16, in16, n * 2);
            memset(out16, 0, n * 2);
            if (mc__bits_unpack_avx512(be, true, n, b, layout, out16, 2, cpu))
                assert_memory_equal(out16, in16, n * 2);
        }
    }
    memset(out32, 0, n * 4);
    mc_bits_unpack_be_u32(be, n, b, layout, out32);
    assert_memory_equal(out32, in, n * 4);
    if (b <= 16) {
        out16[n] = 0xBEEF;
        mc_bits_unpack_u16(noisy, n, b, layout, out16);
        assert_memory_equal(out16, in16, n * 2);
        assert_true(out16[n] == 0xBEEF);
        memset(out16, 0, n * 2);
        mc__bits_unpack_portable(noisy, n, b, layout, out16, 2);
        assert_memory_equal(out16, in16, n * 2);
        memset(out16, 0, n * 2);
        mc_bits_unpack_be_u16(be, n, b, layout, out16);
        assert_memory_equal(out16, in16, n * 2);
    }
    /* single gets, then sets against the reference */
    for (size_t t = 0; t < 64 && n; t++) {
        size_t i = mc_test_rand(rng) % n;
        assert_int_equal(mc_bits_get(noisy, i, b, layout), in[i]);
        assert_int_equal(mc_bits_get_be(be, i, b, layout), in[i]);
        assert_int_equal(ref_get(noisy, i, b, layout), in[i]);
    }
    for (size_t t = 0; t < 200 && n; t++) {
        size_t i = mc_test_rand(rng) % n;
        uint32_t v = (uint32_t)mc_test_rand(rng);
        in[i] = (uint32_t)(v & m);
        mc_bits_set(noisy, i, b, layout, v);
        mc_bits_set_be(be, i, b, layout, v);
    }
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ref_get(noisy, i, b, layout), in[i]);
    for (size_t l = 0; l < nl; l++)
        assert_true(mc_load_u64be(be + 8 * l) == noisy[l]);
    if (n) {
        uint32_t mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = in[i] > mx ? in[i] : mx;
        assert_int_equal(mc_bits_max(noisy, n, b, layout), mx);
        if (layout == MC_BITS_PADDED) {
            /* the SWAR bound check agrees with the max, with garbage in the
             * padding bits and past n in the last long */
            const uint64_t lims[] = {0, 1, mx, (uint64_t)mx + 1, (uint64_t)mx + 2,
                                     mx ? (uint64_t)mx - 1 : 0, (uint64_t)m + 1,
                                     1 + mc_test_rand(rng) % ((uint64_t)m + 1)};
            uint64_t *swapped = malloc((nl + 1) * 8);
            assert_non_null(swapped);
            for (size_t k = 0; k < sizeof lims / sizeof lims[0]; k++) {
                assert_int_equal(mc_bits_all_below(noisy, n, b, lims[k]), (uint64_t)mx < lims[k]);
                /* the fused big-endian load and check: same answer, same longs */
                swapped[nl] = 0x5A5A5A5A5A5A5A5Aull;
                assert_int_equal(mc__bits_load_be_all_below(be, nl, swapped, n, b, lims[k]),
                                 (uint64_t)mx < lims[k]);
                assert_memory_equal(swapped, noisy, nl * 8);
                assert_true(swapped[nl] == 0x5A5A5A5A5A5A5A5Aull);
            }
            /* counting equal entries agrees with a plain count, for values
             * present (first entry, max, random entry) and absent (m+1 when
             * it fits: 0 matches) */
            const uint32_t vals[] = {in[0], mx, in[mc_test_rand(rng) % n], 0};
            for (size_t k = 0; k < 4; k++) {
                size_t want = 0;
                for (size_t i = 0; i < n; i++)
                    want += in[i] == vals[k];
                assert_int_equal(mc_bits_count_equal(noisy, n, b, vals[k]), want);
            }
            /* one entry at the limit, anywhere (first, last, random), is found */
            if (mx > 0) {
                size_t at[] = {0, n - 1, mc_test_rand(rng) % n};
                for (size_t k = 0; k < 3; k++) {
                    uint32_t old = ref_get(noisy, at[k], b, layout);
                    mc_bits_set(noisy, at[k], b, layout, mx);
                    mc_bits_set_be(be, at[k], b, layout, mx);
                    assert_false(mc_bits_all_below(noisy, n, b, mx));
                    assert_true(mc_bits_all_below(noisy, n, b, (uint64_t)mx + 1));
                    assert_false(mc__bits_load_be_all_below(be, nl, swapped, n, b, mx));
                    assert_true(mc__bits_load_be_all_below(be, nl, swapped, n, b, (uint64_t)mx + 1));
                    mc_bits_set(noisy, at[k], b, layout, old);
                    mc_bits_set_be(be, at[k], b, layout, old);
                }
            }
            free(swapped);
        }
    }
    free(in); free(out32); free(in16); free(out16); free(ref); free(got);
    free(be); free(be2); free(noisy); free(dirty);
}

/* Long counts against plain division, every width, counts up to 2^18 and
 * around the 2^26 switch to the division path. */
static void test_longs_count(void **state)
{
    (void)state;
    for (unsigned b = 1; b <= 32; b++) {
        const size_t k = 64 / b;
        for (size_t n = 0; n < ((size_t)1 << 18); n += 1 + (n >> 10))
            assert_int_equal(mc_bits_longs(n, b, MC_BITS_PADDED), (n + k - 1) / k);
        for (size_t n = ((size_t)1 << 26) - 70; n < ((size_t)1 << 26) + 70; n++)
            assert_int_equal(mc_bits_longs(n, b, MC_BITS_PADDED), (n + k - 1) / k);
        /* the inline shortcut of the containers, at 4096 and elsewhere */
        for (size_t n = 4000; n < 4200; n++)
            assert_int_equal(mc__bits_longs_padded(n, b), (n + k - 1) / k);
    }
    assert_int_equal(mc__bits_longs_padded(4096, 0), 0);
    assert_int_equal(mc__bits_longs_padded(64, 0), 0);
}

static void test_every_width_both_layouts(void **state)
{
    (void)state;
    mc_test_rng rng = {0x9E3779B97F4A7C15ull};
    static const size_t counts[] = {4096, 64, 256, 1, 2, 63, 65, 100, 257, 1000, 1023, 4095, 5000};
    for (unsigned b = 1; b <= 32; b++)
        for (int lay = 0; lay < 2; lay++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int pat = 0; pat < 3; pat++)
                    check_one(&rng, b, (mc_bits_layout)lay, counts[c], pat);
    /* ragged counts at random */
    for (int t = 0; t < 300; t++) {
        unsigned b = 1 + (unsigned)(mc_test_rand(&rng) % 32);
        check_one(&rng, b, (mc_bits_layout)(t & 1), (size_t)(mc_test_rand(&rng) % 2000), 0);
    }
}

/* mc_bits_unpack_map_u8 against the reference and a random table, every
 * width 1..8 (and the 0 / too-wide cases), both layouts, counts that do
 * and do not fill the AVX2 steps of 64 entries and the 1024-entry blocks
 * of the other widths (48, 52: the 5-bit AVX2 steps of four longs, whose
 * 16-byte stores run 4 bytes past their 48), under each MCCHUNK_CPU tier in CI. */
static void test_unpack_map_u8(void **state)
{
    (void)state;
    mc_test_rng rng = {0x1234567ull};
    static const size_t counts[] = {4096, 64, 1, 48, 52, 63, 65, 100, 1023, 1024, 1025, 2050, 4095};
    uint8_t table[256];
    for (int i = 0; i < 256; i++)
        table[i] = (uint8_t)mc_test_rand(&rng);
    uint32_t *in = malloc(5000 * sizeof *in);
    uint64_t *w = malloc(5000 * 8 + 64);
    uint8_t *out = malloc(5000 + 1);
    for (unsigned b = 1; b <= 8; b++)
        for (int lay = 0; lay < 2; lay++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                const size_t n = counts[c], nl = mc_bits_longs(n, b, (mc_bits_layout)lay);
                for (size_t i = 0; i < n; i++)
                    in[i] = (uint32_t)(mc_test_rand(&rng) & ((1u << b) - 1));
                ref_pack(in, n, b, (mc_bits_layout)lay, w, nl);
                out[n] = 0xA5;
                mc_bits_unpack_map_u8(w, n, b, (mc_bits_layout)lay, table, out);
                for (size_t i = 0; i < n; i++)
                    if (out[i] != table[ref_get(w, i, b, (mc_bits_layout)lay)])
                        fail_msg("bits %u layout %d count %zu: entry %zu is %u, not %u", b, lay, n, i, out[i],
                                 table[in[i]]);
                assert_int_equal(out[n], 0xA5); /* nothing past count */
            }
    memset(out, 0, 16);
    mc_bits_unpack_map_u8(w, 16, 0, MC_BITS_PADDED, table, out);
    for (int i = 0; i < 16; i++)
        assert_int_equal(out[i], table[0]);
    free(in);
    free(w);
    free(out);
}

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(mc_bits_longs(4096, 4, MC_BITS_PADDED), 256);
    assert_int_equal(mc_bits_longs(4096, 5, MC_BITS_PADDED), 342); /* 12 per long */
    assert_int_equal(mc_bits_longs(4096, 15, MC_BITS_PADDED), 1024);
    assert_int_equal(mc_bits_longs(4096, 13, MC_BITS_SPANNING), 832); /* the 1.12 page: 64*13 */
    assert_int_equal(mc_bits_longs(4096, 14, MC_BITS_SPANNING), 896);
    assert_int_equal(mc_bits_longs(256, 9, MC_BITS_PADDED), 37);   /* 1.16+ heightmap */
    assert_int_equal(mc_bits_longs(256, 9, MC_BITS_SPANNING), 36); /* 1.14-1.15 heightmap */
    assert_int_equal(mc_bits_longs(64, 1, MC_BITS_PADDED), 1);
    assert_int_equal(mc_bits_longs(4096, 0, MC_BITS_PADDED), 0);
    assert_int_equal(mc_bits_longs(0, 7, MC_BITS_SPANNING), 0);
    assert_true(mc_bits_longs(10, 33, MC_BITS_PADDED) == SIZE_MAX);
    assert_int_equal(mc_bits_ceil_log2(1), 0);
    assert_int_equal(mc_bits_ceil_log2(2), 1);
    assert_int_equal(mc_bits_ceil_log2(64), 6);
    assert_int_equal(mc_bits_ceil_log2(65), 7);
    assert_int_equal(mc_bits_ceil_log2(27914), 15);
    assert_int_equal(mc_bits_ceil_log2(385), 9);
    assert_int_equal(mc_bits_per_long(5), 12);
    uint32_t out[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    mc_bits_unpack_u32(NULL, 8, 0, MC_BITS_PADDED, out);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i], 0);
    assert_int_equal(mc_bits_get(NULL, 3, 0, MC_BITS_PADDED), 0);
}

/* 000_ac38556b76dd1524.txt, "Visual example": 5 bits per entry, padded. */
static void test_seed_5bit_visual_example(void **state)
{
    (void)state;
    static const uint8_t be[16] = {0x00, 0x20, 0x86, 0x31, 0x48, 0x41, 0x88, 0x41,
                                   0x01, 0x01, 0x8A, 0x72, 0x60, 0xF6, 0x8C, 0x87};
    static const uint32_t want[24] = {1, 2, 2, 3, 4, 4, 5, 6, 6, 4, 8, 0,
                                      7, 4, 3, 13, 15, 16, 9, 14, 10, 12, 0, 2};
    uint32_t got[24];
    mc_bits_unpack_be_u32(be, 24, 5, MC_BITS_PADDED, got);
    assert_memory_equal(got, want, sizeof want);
    uint8_t back[16];
    mc_bits_pack_be_u32(want, 24, 5, MC_BITS_PADDED, back);
    assert_memory_equal(back, be, 16);
    uint64_t w[2];
    mc_bits_load_be(be, 2, w);
    assert_true(w[0] == 0x0020863148418841ull && w[1] == 0x01018A7260F68C87ull);
    for (int i = 0; i < 24; i++)
        assert_int_equal(mc_bits_get(w, (size_t)i, 5, MC_BITS_PADDED), want[i]);
}

/* 000_ac38556b76dd1524.txt, the section example: biomes at 1 bit, one long
 * CC FF CC FF CC FF CC FF (64 one-bit entries, low bit first). */
static void test_seed_ccff_biome_long(void **state)
{
    (void)state;
    static const uint8_t be[8] = {0xCC, 0xFF, 0xCC, 0xFF, 0xCC, 0xFF, 0xCC, 0xFF};
    uint16_t got[64];
    mc_bits_unpack_be_u16(be, 64, 1, MC_BITS_PADDED, got);
    uint64_t v = 0xCCFFCCFFCCFFCCFFull;
    for (int i = 0; i < 64; i++)
        assert_int_equal(got[i], (v >> i) & 1);
    /* low byte 0xFF: cells 0..7 are palette entry 1; byte 0xCC: 0,0,1,1,0,0,1,1 */
    assert_int_equal(got[0], 1);
    assert_int_equal(got[8], 0);
    assert_int_equal(got[10], 1);
    uint8_t back[8];
    mc_bits_pack_be_u16(got, 64, 1, MC_BITS_PADDED, back);
    assert_memory_equal(back, be, 8);
}

/* 001_dba366030a0a6b9e.txt, "Compacted data array": 13 bits per entry,
 * global palette (id<<4|meta), spanning. */
static void test_seed_13bit_spanning_example(void **state)
{
    (void)state;
    static const uint8_t be[16] = {0x01, 0x00, 0x18, 0x80, 0xC0, 0x06, 0x00, 0x20,
                                   0x02, 0x00, 0xD0, 0x06, 0x80, 0x04, 0xC0, 0x20};
    /* grass 2:0, dirt 3:0, dirt 3:0, coarse dirt 3:1, stone 1:0, stone 1:0,
     * diorite 1:3, gravel 13:0, gravel 13:0 */
    static const uint32_t want[9] = {0x20, 0x30, 0x30, 0x31, 0x10, 0x10, 0x13, 0xD0, 0xD0};
    uint32_t got[9];
    mc_bits_unpack_be_u32(be, 9, 13, MC_BITS_SPANNING, got);
    assert_memory_equal(got, want, sizeof want);
    /* the 10th entry starts at bit 117 = bit 53 of long 1 and would end in
     * a third long */
    uint64_t w[2];
    mc_bits_load_be(be, 2, w);
    /* entry 4 (stone) crosses the long boundary: bits 52..64 */
    assert_int_equal(mc_bits_get(w, 4, 13, MC_BITS_SPANNING), 0x10);
    uint8_t back[16];
    memset(back, 0, sizeof back);
    uint32_t ten[10];
    memcpy(ten, want, sizeof want);
    ten[9] = (uint32_t)(w[1] >> 53); /* only 11 of its 13 bits are in these longs */
    mc_bits_pack_be_u32(ten, 9, 13, MC_BITS_SPANNING, back);
    /* the first 117 bits are the nine entries; the rest belong to entry 10 */
    assert_memory_equal(back + 0, be + 0, 8);
    assert_true((mc_load_u64be(back + 8) & ((1ull << 53) - 1)) == (w[1] & ((1ull << 53) - 1)));
}

static void test_repack(void **state)
{
    (void)state;
    mc_test_rng rng = {42};
    uint32_t in[4096], out[4096];
    static uint64_t a[4096], b[4096];
    for (unsigned sb = 1; sb <= 32; sb++) {
        unsigned db = 1 + (unsigned)(mc_test_rand(&rng) % 32);
        if (db < sb)
            db = sb;
        for (int ls = 0; ls < 2; ls++)
            for (int ld = 0; ld < 2; ld++) {
                size_t n = (sb & 1) ? 4096 : 1000 + mc_test_rand(&rng) % 3000;
                for (size_t i = 0; i < n; i++)
                    in[i] = (uint32_t)(mc_test_rand(&rng) & (sb == 32 ? 0xFFFFFFFFu : ((1u << sb) - 1)));
                mc_bits_pack_u32(in, n, sb, (mc_bits_layout)ls, a);
                mc_bits_repack(a, sb, (mc_bits_layout)ls, b, db, (mc_bits_layout)ld, n);
                mc_bits_unpack_u32(b, n, db, (mc_bits_layout)ld, out);
                assert_memory_equal(out, in, n * 4);
            }
    }
    /* 1.13 wire: 15-bit padded direct data written as 14-bit spanning */
    for (size_t i = 0; i < 4096; i++)
        in[i] = (uint32_t)(mc_test_rand(&rng) % 11337);
    mc_bits_pack_u32(in, 4096, 15, MC_BITS_PADDED, a);
    mc_bits_repack(a, 15, MC_BITS_PADDED, b, 14, MC_BITS_SPANNING, 4096);
    assert_int_equal(mc_bits_longs(4096, 14, MC_BITS_SPANNING), 896);
    for (size_t i = 0; i < 4096; i++)
        assert_int_equal(mc_bits_get(b, i, 14, MC_BITS_SPANNING), in[i]);
}

/* Unpack into outputs at every 4-byte offset inside a 64-byte line (the
 * AVX-512 kernels align their stores by starting the loop mid-array), from
 * inputs of exactly the packed size (so ASan sees any over-read), native
 * and big-endian, with guards on both sides of the output; counts around
 * the 16- and 48-entry steps and a whole section. */
static void test_unpack_output_offsets(void **state)
{
    (void)state;
    mc_test_rng rng = {0xC0FFEEull};
    static const size_t counts[] = {0, 1, 5, 15, 16, 17, 31, 47, 48, 49, 63, 64, 95, 96, 97, 111, 150, 4095, 4096};
    uint32_t *in = malloc(4096 * 4), *buf = aligned_alloc(64, (4096 + 64) * 4);
    for (unsigned b = 1; b <= 32; b++) {
        const uint32_t m = b == 32 ? 0xFFFFFFFFu : ((1u << b) - 1);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const size_t n = counts[c], nl = mc_bits_longs(n, b, MC_BITS_PADDED);
            uint64_t *w = malloc(nl * 8 + 1);
            uint8_t *be = malloc(nl * 8 + 1);
            for (size_t i = 0; i < n; i++)
                in[i] = (uint32_t)mc_test_rand(&rng) & m;
            ref_pack(in, n, b, MC_BITS_PADDED, w, nl);
            if ((64 / b) * b < 64) /* garbage in the padding bits */
                for (size_t l = 0; l < nl; l++)
                    w[l] |= mc_test_rand(&rng) << ((64 / b) * b);
            mc_bits_store_be(w, nl, be);
            for (size_t off = 0; off < 16; off++)
                for (int from_be = 0; from_be < 2; from_be++) {
                    memset(buf, 0xA5, (4096 + 64) * 4);
                    uint32_t *out = buf + 16 + off;
                    if (from_be)
                        mc_bits_unpack_be_u32(be, n, b, MC_BITS_PADDED, out);
                    else
                        mc_bits_unpack_u32(w, n, b, MC_BITS_PADDED, out);
                    if (n)
                        assert_memory_equal(out, in, n * 4);
                    for (size_t i = 0; i < 16 + off; i++)
                        assert_true(buf[i] == 0xA5A5A5A5u);
                    for (size_t i = 16 + off + n; i < 4096 + 64; i++)
                        assert_true(buf[i] == 0xA5A5A5A5u);
                }
            free(w);
            free(be);
        }
    }
    free(in);
    free(buf);
}

/* The portable three-per-long kernel (17..21 bits, u32 out) steps four longs
 * (12 entries) at a time, then finishes in pairs of longs and single longs:
 * every count around those steps, random and all-ones entries, the padding
 * bits above 3B full of garbage, guards on both sides, odd output offsets. */
static void test_portable_three_per_long(void **state)
{
    (void)state;
    mc_test_rng rng = {0x3C0DE17ull};
    uint32_t *in = malloc(4200 * 4), *buf = malloc((4200 + 32) * 4);
    for (unsigned b = 17; b <= 21; b++) {
        const uint32_t m = (1u << b) - 1;
        for (size_t n = 0; n <= 4200; n += (n < 64 ? 1 : n < 4080 ? 97 : 1)) {
            const size_t nl = mc_bits_longs(n, b, MC_BITS_PADDED);
            uint64_t *w = malloc(nl * 8 + 8);
            for (int pat = 0; pat < 2; pat++) {
                for (size_t i = 0; i < n; i++)
                    in[i] = pat ? m : (uint32_t)mc_test_rand(&rng) & m;
                ref_pack(in, n, b, MC_BITS_PADDED, w, nl);
                for (size_t l = 0; l < nl; l++)
                    w[l] |= (pat ? ~0ull : mc_test_rand(&rng)) << (3 * b);
                const size_t off = n % 7;
                memset(buf, 0xA5, (4200 + 32) * 4);
                mc__bits_unpack_portable(w, n, b, MC_BITS_PADDED, buf + 8 + off, 4);
                if (n)
                    assert_memory_equal(buf + 8 + off, in, n * 4);
                for (size_t i = 0; i < 8 + off; i++)
                    assert_true(buf[i] == 0xA5A5A5A5u);
                for (size_t i = 8 + off + n; i < 4200 + 32; i++)
                    assert_true(buf[i] == 0xA5A5A5A5u);
            }
            free(w);
        }
    }
    free(in);
    free(buf);
}

/* u16 outputs at every 2-byte offset inside a 64-byte line, for the
 * dispatched kernels (native and big-endian) and the portable one, from
 * inputs of exactly the packed size with garbage in the padding bits, with
 * guards on both sides; counts around the kernels' steps (one long, two
 * longs, 32 entries, the unrolled table periods) and a whole section. */
static void test_unpack_u16_offsets(void **state)
{
    (void)state;
    mc_test_rng rng = {0x16B175ull};
    static const size_t counts[] = {0, 1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 17, 20, 21, 22, 24, 31, 32, 33,
                                    42, 63, 64, 65, 96, 127, 129, 160, 255, 289, 300, 673, 1000, 4095, 4096};
    uint16_t *in = malloc(4096 * 2), *buf = aligned_alloc(64, (4096 + 128) * 2);
    for (unsigned b = 1; b <= 16; b++) {
        const uint16_t m = (uint16_t)((1u << b) - 1);
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const size_t n = counts[c], nl = mc_bits_longs(n, b, MC_BITS_PADDED);
            uint64_t *w = malloc(nl * 8 + 1);
            uint8_t *be = malloc(nl * 8 + 1);
            uint32_t *in32 = malloc(n * 4 + 4);
            for (size_t i = 0; i < n; i++) {
                in[i] = (uint16_t)(mc_test_rand(&rng) & m);
                in32[i] = in[i];
            }
            ref_pack(in32, n, b, MC_BITS_PADDED, w, nl);
            if ((64 / b) * b < 64)
                for (size_t l = 0; l < nl; l++)
                    w[l] |= mc_test_rand(&rng) << ((64 / b) * b);
            mc_bits_store_be(w, nl, be);
            for (size_t off = 0; off < 32; off++)
                for (int how = 0; how < 3; how++) {
                    memset(buf, 0xA5, (4096 + 128) * 2);
                    uint16_t *out = buf + 32 + off;
                    if (how == 0)
                        mc_bits_unpack_u16(w, n, b, MC_BITS_PADDED, out);
                    else if (how == 1)
                        mc_bits_unpack_be_u16(be, n, b, MC_BITS_PADDED, out);
                    else
                        mc__bits_unpack_portable(w, n, b, MC_BITS_PADDED, out, 2);
                    if (n)
                        assert_memory_equal(out, in, n * 2);
                    for (size_t i = 0; i < 32 + off; i++)
                        assert_true(buf[i] == 0xA5A5u);
                    for (size_t i = 32 + off + n; i < 4096 + 128; i++)
                        assert_true(buf[i] == 0xA5A5u);
                }
            free(w);
            free(be);
            free(in32);
        }
    }
    free(in);
    free(buf);
}

/* Pack into exactly sized longs with guards behind them, from inputs of
 * exactly `count` entries (ASan sees any over-read) with garbage above the
 * width, u16 and u32, every count around the 8-long steps of the merge
 * kernels and a whole section. */
static void test_pack_guards(void **state)
{
    (void)state;
    mc_test_rng rng = {0x9AC4ull};
    for (unsigned b = 1; b <= 32; b++) {
        const uint32_t m = b == 32 ? 0xFFFFFFFFu : ((1u << b) - 1);
        for (size_t n = 1; n <= 4200; n += (n < 140 ? 1 : n < 4000 ? 233 : 1)) {
            const size_t nl = mc_bits_longs(n, b, MC_BITS_PADDED);
            uint32_t *clean = malloc(n * 4), *dirty = malloc(n * 4);
            uint16_t *d16 = malloc(n * 2);
            uint64_t *ref = malloc(nl * 8), *got = malloc((nl + 4) * 8);
            for (size_t i = 0; i < n; i++) {
                uint32_t r = (uint32_t)mc_test_rand(&rng);
                clean[i] = r & m;
                dirty[i] = b == 32 ? r : r | (((uint32_t)mc_test_rand(&rng) | 1u) << b);
                d16[i] = (uint16_t)dirty[i];
            }
            ref_pack(clean, n, b, MC_BITS_PADDED, ref, nl);
            for (int how = 0; how < (b <= 16 ? 2 : 1); how++) {
                memset(got, 0x5A, (nl + 4) * 8);
                if (how == 0)
                    mc_bits_pack_u32(dirty, n, b, MC_BITS_PADDED, got);
                else
                    mc_bits_pack_u16(d16, n, b, MC_BITS_PADDED, got);
                assert_memory_equal(got, ref, nl * 8);
                for (size_t l = nl; l < nl + 4; l++)
                    assert_true(got[l] == 0x5A5A5A5A5A5A5A5Aull);
            }
            free(clean);
            free(dirty);
            free(d16);
            free(ref);
            free(got);
        }
    }
}

/* The portable kernels alone, on every CPU: pack from exactly sized inputs
 * with garbage above the width into exactly sized longs with guards behind
 * them, and unpack from exactly sized longs (garbage in the padding and in
 * the unused tail of the last long) into exactly sized outputs with guards;
 * u16 and u32 entries, both layouts, every count 0..200 and around 4096
 * (the vector kernels' groups, remainders and read bounds). */
static void portable_exact_one(mc_test_rng *rng, unsigned b, mc_bits_layout layout, size_t n)
{
    const uint32_t m = b == 32 ? 0xFFFFFFFFu : ((1u << b) - 1);
    const size_t nl = mc_bits_longs(n, b, layout);
    uint32_t *clean = malloc(n * 4 + 4), *d32 = malloc(n ? n * 4 : 1), *o32 = malloc(n * 4 + 16);
    uint16_t *d16 = malloc(n ? n * 2 : 1), *o16 = malloc(n * 2 + 8);
    uint64_t *ref = malloc(nl * 8 + 8), *got = malloc((nl + 4) * 8), *noisy = malloc(nl ? nl * 8 : 1);
    for (size_t i = 0; i < n; i++) {
        const uint32_t r = (uint32_t)mc_test_rand(rng);
        clean[i] = r & m;
        d32[i] = b == 32 ? r : r | (((uint32_t)mc_test_rand(rng) | 1u) << b);
        d16[i] = (uint16_t)d32[i];
    }
    ref_pack(clean, n, b, layout, ref, nl);
    for (int es = 2; es <= 4; es += 2) {
        if (es == 2 && b > 16)
            continue;
        memset(got, 0x5A, (nl + 4) * 8);
        mc__bits_pack_portable(es == 2 ? (const void *)d16 : (const void *)d32, es, n, b, layout, got);
        assert_memory_equal(got, ref, nl * 8);
        for (size_t l = nl; l < nl + 4; l++)
            assert_true(got[l] == 0x5A5A5A5A5A5A5A5Aull);
    }
    memcpy(noisy, ref, nl * 8);
    if (nl) {
        if (layout == MC_BITS_PADDED) {
            const unsigned used = (64 / b) * b;
            for (size_t l = 0; l < nl && used < 64; l++)
                noisy[l] |= mc_test_rand(rng) << used;
            const size_t last = n - (nl - 1) * (64 / b); /* entries in the last long */
            if (last * b < 64)
                noisy[nl - 1] |= mc_test_rand(rng) << (last * b);
        } else if ((n * b) % 64) {
            noisy[nl - 1] |= mc_test_rand(rng) << ((n * b) % 64);
        }
    }
    for (size_t i = 0; i < 4; i++)
        o32[n + i] = 0xDEADBEEF;
    mc__bits_unpack_portable(noisy, n, b, layout, o32, 4);
    assert_memory_equal(o32, clean, n * 4);
    for (size_t i = 0; i < 4; i++)
        assert_true(o32[n + i] == 0xDEADBEEF);
    if (b <= 16) {
        for (size_t i = 0; i < 4; i++)
            o16[n + i] = 0xBEEF;
        mc__bits_unpack_portable(noisy, n, b, layout, o16, 2);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(o16[i], clean[i]);
        for (size_t i = 0; i < 4; i++)
            assert_true(o16[n + i] == 0xBEEF);
    }
    free(clean);
    free(d32);
    free(o32);
    free(d16);
    free(o16);
    free(ref);
    free(got);
    free(noisy);
}

static void test_portable_exact(void **state)
{
    (void)state;
    mc_test_rng rng = {0x5EC7104Eull};
    for (unsigned b = 1; b <= 32; b++)
        for (int lay = 0; lay < 2; lay++) {
            for (size_t n = 0; n <= 200; n++)
                portable_exact_one(&rng, b, (mc_bits_layout)lay, n);
            for (size_t n = 4080; n <= 4112; n++)
                portable_exact_one(&rng, b, (mc_bits_layout)lay, n);
        }
}

/* The dispatcher's kernel per width (mc__bits_unpack_choice), for feature
 * sets of each tier given directly (the choice is a pure function of them,
 * so every tier is checked on any CPU): where the padded longs are the
 * entries (16 bits into u16, 32 into u32, little-endian) it copies on every
 * tier; on AVX2 CPUs the widths the AVX2 kernels lose go to the portable
 * ones; big-endian input and the spanning layout keep the SIMD kernels. */
static void test_unpack_routing(void **state)
{
    (void)state;
    const unsigned tiers[] = {MC_CPU_DETECTED, MC_CPU_DETECTED | MC_CPU_CAP_AVX2,
                              MC_CPU_DETECTED | MC_CPU_CAP_AVX512VBMI,
                              MC_CPU_DETECTED | MC_CPU_CAP_AVX512VBMI | MC_CPU_AVX512VBMI2 | MC_CPU_AVX512VPOPCNTDQ};
    for (size_t t = 0; t < sizeof tiers / sizeof tiers[0]; t++) {
        const unsigned cpu = tiers[t];
        assert_int_equal(mc__bits_unpack_choice(16, MC_BITS_PADDED, false, 2, cpu), MC__UNPACK_COPY);
        assert_int_equal(mc__bits_unpack_choice(32, MC_BITS_PADDED, false, 4, cpu), MC__UNPACK_COPY);
        assert_int_not_equal(mc__bits_unpack_choice(16, MC_BITS_PADDED, true, 2, cpu), MC__UNPACK_COPY);
        assert_int_not_equal(mc__bits_unpack_choice(16, MC_BITS_PADDED, false, 4, cpu), MC__UNPACK_COPY);
        assert_int_not_equal(mc__bits_unpack_choice(32, MC_BITS_PADDED, false, 2, cpu), MC__UNPACK_COPY);
        assert_int_not_equal(mc__bits_unpack_choice(8, MC_BITS_PADDED, false, 2, cpu), MC__UNPACK_COPY);
    }
    const unsigned avx2 = MC_CPU_DETECTED | MC_CPU_CAP_AVX2, avx512 = MC_CPU_DETECTED | MC_CPU_CAP_AVX512VBMI;
    for (unsigned b = 1; b <= 32; b++) {
        const mc_bits_layout lay = 64 % b == 0 ? MC_BITS_PADDED : MC_BITS_SPANNING;
        assert_int_equal(mc__bits_unpack_choice(b, lay, true, 4, MC_CPU_DETECTED), MC__UNPACK_PORTABLE);
        assert_int_equal(mc__bits_unpack_choice(b, MC_BITS_PADDED, true, 4, avx512), MC__UNPACK_AVX512);
        assert_int_equal(mc__bits_unpack_choice(b, MC_BITS_PADDED, true, 4, avx2), MC__UNPACK_AVX2);
        assert_int_equal(mc__bits_unpack_choice(b, lay, false, 4, avx2),
                         b == 32 ? MC__UNPACK_COPY
                         : b >= 17 && b <= 21 && lay == MC_BITS_PADDED ? MC__UNPACK_PORTABLE
                                                                       : MC__UNPACK_AVX2);
        if (b <= 16)
            assert_int_equal(mc__bits_unpack_choice(b, MC_BITS_PADDED, false, 2, avx2),
                             b == 16 ? MC__UNPACK_COPY
                             : b == 1 || b == 2 || b == 8 ? MC__UNPACK_PORTABLE
                                                          : MC__UNPACK_AVX2);
        if (b != 16 && b != 32)
            assert_int_equal(mc__bits_unpack_choice(b, MC_BITS_PADDED, false, 2, avx512), MC__UNPACK_AVX512);
    }
    /* the copy path at ragged counts, through the public calls, against the
     * entries themselves (the longs of 16/32-bit entries) */
    uint64_t w[5] = {0x0004000300020001ull, 0x0008000700060005ull, 0x000c000b000a0009ull, 0x0010000f000e000dull,
                     0x0014001300120011ull};
    for (size_t n = 0; n <= 20; n++) {
        uint16_t o16[21];
        uint32_t o32[11];
        o16[n] = 0xBEEF;
        mc_bits_unpack_u16(w, n, 16, MC_BITS_PADDED, o16);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(o16[i], i + 1);
        assert_int_equal(o16[n], 0xBEEF);
        if (n <= 10) {
            o32[n] = 0xDEADBEEF;
            mc_bits_unpack_u32(w, n, 32, MC_BITS_SPANNING, o32);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(o32[i], (uint32_t)(w[i / 2] >> (32 * (i % 2))));
            assert_int_equal(o32[n], 0xDEADBEEF);
        }
    }
}

int main(void)
{
    print_message("bits kernels: %s\n", mc_bits_kernel_name());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_portable_three_per_long),
        cmocka_unit_test(test_seed_5bit_visual_example),
        cmocka_unit_test(test_seed_ccff_biome_long),
        cmocka_unit_test(test_seed_13bit_spanning_example),
        cmocka_unit_test(test_longs_count),
        cmocka_unit_test(test_every_width_both_layouts),
        cmocka_unit_test(test_unpack_map_u8),
        cmocka_unit_test(test_repack),
        cmocka_unit_test(test_unpack_output_offsets),
        cmocka_unit_test(test_unpack_u16_offsets),
        cmocka_unit_test(test_pack_guards),
        cmocka_unit_test(test_portable_exact),
        cmocka_unit_test(test_unpack_routing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
