/*
 * test_palette.c: paletted containers against a plain array model.
 *
 * Property tests run thousands of random operation sequences (set, fill,
 * set_all, compact, copy, write/read through big-endian bytes in both
 * layouts at several widths) on block and biome containers with value pools
 * chosen to cross every palette transition (single -> 4 bits -> 5..8 ->
 * direct for blocks, single -> 1 -> 2 -> 3 -> direct for biomes), checking
 * every entry and the strategy invariants after each step. Fixed tests pin
 * the exact vanilla growth order, the seed's 00...CC FF section, and the
 * validation of outside data.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/palette.h"

static void check_invariants(const mc_container *c)
{
    const mc_container_rules *r = &c->rules;
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        assert_int_equal(c->bits, 0);
        assert_null(c->longs);
        break;
    case MC_CONTAINER_INDIRECT:
        assert_true(c->bits >= r->min_indirect_bits && c->bits <= r->max_indirect_bits);
        assert_true(c->palette_len >= 1 && c->palette_len <= (1u << c->bits));
        assert_int_equal(c->palette_cap, 1u << c->bits);
        assert_non_null(c->longs);
        break;
    case MC_CONTAINER_DIRECT:
        assert_int_equal(c->bits, r->direct_bits);
        assert_non_null(c->longs);
        break;
    default:
        fail();
    }
}

static void check_model(const mc_container *c, const uint32_t *model)
{
    uint32_t *all = malloc(c->rules.size * 4);
    mc_container_get_all(c, all);
    assert_memory_equal(all, model, c->rules.size * 4);
    for (size_t i = 0; i < c->rules.size; i += 37)
        assert_int_equal(mc_container_get(c, i), model[i]);
    free(all);
}

static bool is_even(uint32_t v, void *user)
{
    (void)user;
    return (v & 1) == 0;
}

/* Writes c at `bits` in `layout` (indices when indirect fits, else ids) and
 * reads it back; the result must equal the model. */
static void roundtrip(const mc_container *c, const uint32_t *model, mc_bits_layout layout, mc_test_rng *rng)
{
    size_t plen;
    const uint32_t *pal = mc_container_palette(c, &plen);
    mc_container back;
    mc_error err;
    unsigned bits;
    mc_container_values what;
    if (c->kind == MC_CONTAINER_DIRECT || (mc_test_rand(rng) & 3) == 0) {
        what = MC_WRITE_IDS;
        bits = c->rules.direct_bits;
        pal = NULL;
        plen = 0;
    } else {
        what = MC_WRITE_INDICES;
        unsigned need = mc_bits_ceil_log2(plen);
        /* any width from the minimum up to 8 (e.g. 1.13's max(4, need)) */
        bits = need + (unsigned)(mc_test_rand(rng) % 3);
        if (bits == 0)
            bits = 1;
        if (c->kind == MC_CONTAINER_SINGLE && (mc_test_rand(rng) & 1))
            bits = 0;
    }
    size_t nl = mc_bits_longs(c->rules.size, bits, layout);
    uint8_t *be = malloc(nl * 8 + 1);
    assert_int_equal(mc_container_write_be(c, bits, layout, what, be), MC_OK);
    assert_int_equal(mc_container_from_be(&back, &c->rules, bits, layout, pal, plen, be, nl, NULL, &err), MC_OK);
    check_invariants(&back);
    check_model(&back, model);
    assert_true(mc_container_equal(&back, c));
    mc_container_free(&back);
    free(be);
}

static void run_sequences(const mc_container_rules *rules, const uint32_t pool_sizes[], size_t npools,
                          int sequences, int ops, uint64_t seed)
{
    mc_test_rng rng = {seed};
    const size_t n = rules->size;
    uint32_t *model = malloc(n * 4), *vals = malloc(n * 4);
    uint32_t dmax = (1u << rules->direct_bits) - 1;
    for (int s = 0; s < sequences; s++) {
        uint32_t pool = pool_sizes[(size_t)s % npools];
        uint32_t base = (uint32_t)(mc_test_rand(&rng) % 1000);
        mc_container c;
        uint32_t v0 = (base) % (dmax + 1);
        mc_container_init(&c, rules, v0, NULL);
        for (size_t i = 0; i < n; i++)
            model[i] = v0;
        for (int o = 0; o < ops; o++) {
            unsigned op = (unsigned)(mc_test_rand(&rng) % 100);
#define PICK() ((base + (uint32_t)(mc_test_rand(&rng) % pool) * 7u) % (dmax + 1))
            if (op < 80) {
                /* bursts of sets: most of the work, and all the growth */
                int burst = 1 + (int)(mc_test_rand(&rng) % 64);
                for (int b = 0; b < burst; b++) {
                    size_t i = mc_test_rand(&rng) % n;
                    uint32_t v = PICK(), old;
                    assert_int_equal(mc_container_set(&c, i, v, &old), MC_OK);
                    assert_int_equal(old, model[i]);
                    model[i] = v;
                    assert_int_equal(mc_container_get(&c, i), v);
                }
            } else if (op < 83) {
                uint32_t v = PICK();
                mc_container_fill(&c, v);
                for (size_t i = 0; i < n; i++)
                    model[i] = v;
            } else if (op < 87) {
                for (size_t i = 0; i < n; i++)
                    vals[i] = (mc_test_rand(&rng) & 1) ? PICK() : model[i];
                assert_int_equal(mc_container_set_all(&c, vals), MC_OK);
                memcpy(model, vals, n * 4);
            } else if (op < 91) {
                assert_int_equal(mc_container_compact(&c), MC_OK);
                /* compaction gives the smallest strategy */
                size_t plen;
                mc_container_palette(&c, &plen);
                if (c.kind == MC_CONTAINER_INDIRECT)
                    assert_int_equal(c.bits, mc_container_rules_bits(rules, plen));
            } else if (op < 94) {
                mc_container cp;
                assert_int_equal(mc_container_copy(&cp, &c), MC_OK);
                assert_true(mc_container_equal(&cp, &c));
                if (n > 1) {
                    uint32_t v = model[0] == 0 ? 1 : 0, old;
                    assert_int_equal(mc_container_set(&cp, 0, v, &old), MC_OK);
                    assert_false(mc_container_equal(&cp, &c));
                }
                mc_container_free(&cp);
            } else {
                roundtrip(&c, model, (mc_bits_layout)(op & 1), &rng);
            }
#undef PICK
            check_invariants(&c);
            if ((o & 7) == 7 || o == ops - 1) {
                check_model(&c, model);
                size_t even = 0;
                for (size_t i = 0; i < n; i++)
                    even += (model[i] & 1) == 0;
                assert_int_equal(mc_container_count_if(&c, is_even, NULL), even);
                assert_true(mc_container_memory(&c) <= 8 * mc_bits_longs(n, c.bits, MC_BITS_PADDED) + 4u * c.palette_cap);
            }
        }
        mc_container_free(&c);
    }
    free(model);
    free(vals);
}

static void test_property_blocks(void **state)
{
    (void)state;
    /* pools chosen to stop at each strategy: 1 (single), 2..16 (4 bits),
     * 17..32 (5), 100 (7), 256 (8), 257+ (direct at 15) */
    static const uint32_t pools[] = {1, 2, 3, 16, 17, 31, 33, 100, 256, 257, 600, 4000};
    mc_container_rules r = mc_container_rules_blocks(15);
    run_sequences(&r, pools, sizeof pools / sizeof pools[0], 1500, 24, 1);
    /* a 12-bit registry (pre-flattening era widths also fit) */
    r = mc_container_rules_blocks(12);
    run_sequences(&r, pools, sizeof pools / sizeof pools[0], 300, 16, 2);
}

static void test_property_biomes(void **state)
{
    (void)state;
    static const uint32_t pools[] = {1, 2, 3, 4, 5, 8, 9, 20, 64};
    mc_container_rules r = mc_container_rules_biomes(7);
    run_sequences(&r, pools, sizeof pools / sizeof pools[0], 3000, 40, 3);
    r = mc_container_rules_biomes(6);
    run_sequences(&r, pools, sizeof pools / sizeof pools[0], 1000, 40, 4);
}

/* Growth order and widths exactly as vanilla's onResize produces them. */
static void test_vanilla_growth_blocks(void **state)
{
    (void)state;
    mc_container_rules r = mc_container_rules_blocks(15);
    mc_container c;
    mc_container_init(&c, &r, 0, NULL);
    size_t plen;
    const uint32_t *pal;
    for (uint32_t i = 0; i < 15; i++) {
        assert_int_equal(mc_container_set(&c, i, i + 1, NULL), MC_OK);
        assert_int_equal(c.kind, MC_CONTAINER_INDIRECT);
        assert_int_equal(c.bits, 4); /* 1..4 bits are stored at 4 */
    }
    pal = mc_container_palette(&c, &plen);
    assert_int_equal(plen, 16);
    for (uint32_t i = 0; i < 16; i++)
        assert_int_equal(pal[i], i); /* [0, 1, ..., 15]: appended in order */
    /* the 17th value: resize to 5 bits; the palette is rebuilt from the data
     * (first occurrence: 1..15 at positions 0..14, then 0), then 16 */
    assert_int_equal(mc_container_set(&c, 15, 16, NULL), MC_OK);
    assert_int_equal(c.bits, 5);
    pal = mc_container_palette(&c, &plen);
    assert_int_equal(plen, 17);
    for (uint32_t i = 0; i < 15; i++)
        assert_int_equal(pal[i], i + 1);
    assert_int_equal(pal[15], 0);
    assert_int_equal(pal[16], 16);
    /* unused entries are dropped at the next resize, not before */
    for (uint32_t v = 17; v < 32; v++)
        assert_int_equal(mc_container_set(&c, 100, v, NULL), MC_OK); /* each overwrites the last */
    pal = mc_container_palette(&c, &plen);
    assert_int_equal(plen, 32);
    assert_int_equal(c.bits, 5);
    assert_int_equal(mc_container_set(&c, 100, 32, NULL), MC_OK);
    assert_int_equal(c.bits, 6);
    pal = mc_container_palette(&c, &plen);
    /* first occurrence in the data: 1..15 (positions 0..14), 16 (15), 0
     * (16), 31 (at 100 when copied; 17..30 were overwritten and dropped),
     * then the new value 32 */
    assert_int_equal(plen, 19);
    assert_int_equal(pal[14], 15);
    assert_int_equal(pal[15], 16);
    assert_int_equal(pal[16], 0);
    assert_int_equal(pal[17], 31);
    assert_int_equal(pal[18], 32);
    assert_int_equal(mc_container_get(&c, 100), 32);
    /* up to 256 values: indirect 8 bits; the 257th goes direct at 15 */
    uint32_t next = 1000;
    while (c.kind == MC_CONTAINER_INDIRECT) {
        assert_true(c.bits <= 8);
        assert_int_equal(mc_container_set(&c, 200 + (next - 1000), next, NULL), MC_OK);
        next++;
    }
    assert_int_equal(c.kind, MC_CONTAINER_DIRECT);
    assert_int_equal(c.bits, 15);
    pal = mc_container_palette(&c, &plen);
    assert_null(pal);
    assert_int_equal(plen, 0);
    /* 32768 does not fit 15 bits */
    assert_int_equal(mc_container_set(&c, 0, 32768, NULL), MC_ERR_RANGE);
    /* compaction brings it back to a palette */
    mc_container_fill(&c, 7);
    assert_int_equal(c.kind, MC_CONTAINER_SINGLE);
    assert_int_equal(mc_container_memory(&c), 0);
    mc_container_free(&c);
}

static void test_vanilla_growth_biomes(void **state)
{
    (void)state;
    mc_container_rules r = mc_container_rules_biomes(6);
    mc_container c;
    mc_container_init(&c, &r, 10, NULL);
    static const unsigned want_bits[] = {1, 2, 2, 3, 3, 3, 3, 6};
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(mc_container_set(&c, i, 11 + i, NULL), MC_OK);
        assert_int_equal(c.bits, want_bits[i]);
        assert_int_equal(c.kind, i < 7 ? MC_CONTAINER_INDIRECT : MC_CONTAINER_DIRECT);
    }
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(mc_container_get(&c, i), i < 8 ? 11 + i : 10);
    assert_int_equal(mc_container_compact(&c), MC_OK);
    assert_int_equal(c.kind, MC_CONTAINER_DIRECT); /* 9 values need 4 bits > 3 */
    mc_container_fill(&c, 3);
    assert_int_equal(mc_container_set(&c, 5, 4, NULL), MC_OK);
    assert_int_equal(c.bits, 1);
    mc_container_free(&c);
}

/* 000_ac38556b76dd1524.txt: "00 00 | 00 00 00 | 01 02 27 03 01 CC FF CC FF
 * CC FF CC FF": block count 0, blocks single air, biomes 1 bit with palette
 * [0x27, 0x03] and one long. */
static void test_seed_section_example(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x27, 0x03,
                                    0x01, 0xCC, 0xFF, 0xCC, 0xFF, 0xCC, 0xFF, 0xCC, 0xFF};
    mc_reader rd;
    mc_error err;
    mc_reader_init(&rd, bytes, sizeof bytes, "section", &err);
    assert_int_equal(mc_read_u16be(&rd), 0);
    /* blocks */
    unsigned bpe = mc_read_u8(&rd);
    assert_int_equal(bpe, 0);
    uint32_t value = (uint32_t)mc_read_varint(&rd);
    size_t nl = (size_t)mc_read_varint(&rd);
    mc_container_rules rb = mc_container_rules_blocks(15), rbi = mc_container_rules_biomes(6);
    mc_container blocks, biomes;
    assert_int_equal(mc_container_from_be(&blocks, &rb, bpe, MC_BITS_PADDED, &value, 1, NULL, nl, NULL, &err), MC_OK);
    assert_int_equal(blocks.kind, MC_CONTAINER_SINGLE);
    assert_int_equal(mc_container_get(&blocks, 4095), 0);
    /* biomes */
    bpe = mc_read_u8(&rd);
    uint32_t pal[2];
    size_t plen = (size_t)mc_read_varint(&rd);
    assert_int_equal(plen, 2);
    pal[0] = (uint32_t)mc_read_varint(&rd);
    pal[1] = (uint32_t)mc_read_varint(&rd);
    nl = (size_t)mc_read_varint(&rd);
    const uint8_t *data = mc_read_bytes(&rd, nl * 8, "data");
    assert_true(mc_reader_ok(&rd));
    assert_int_equal(mc_reader_remaining(&rd), 0);
    assert_int_equal(mc_container_from_be(&biomes, &rbi, bpe, MC_BITS_PADDED, pal, plen, data, nl, NULL, &err), MC_OK);
    assert_int_equal(biomes.kind, MC_CONTAINER_INDIRECT);
    assert_int_equal(biomes.bits, 1);
    /* low byte FF: cells 0..7 -> palette[1] = 3; byte CC = 11001100b: cells
     * 8,9 -> 0x27, 10,11 -> 3 */
    assert_int_equal(mc_container_get(&biomes, 0), 3);
    assert_int_equal(mc_container_get(&biomes, 8), 0x27);
    assert_int_equal(mc_container_get(&biomes, 10), 3);
    assert_int_equal(mc_container_get(&biomes, 60), 0x27);
    assert_int_equal(mc_container_get(&biomes, 63), 3);
    /* and back to the same bytes */
    uint8_t out[8];
    assert_int_equal(mc_container_write_be(&biomes, 1, MC_BITS_PADDED, MC_WRITE_INDICES, out), MC_OK);
    assert_memory_equal(out, data, 8);
    size_t pl2;
    const uint32_t *p2 = mc_container_palette(&biomes, &pl2);
    assert_int_equal(pl2, 2);
    assert_int_equal(p2[0], 0x27);
    assert_int_equal(p2[1], 0x03);
    mc_container_free(&blocks);
    mc_container_free(&biomes);
}

/* 001_dba366030a0a6b9e.txt: a 13-bit direct (global palette) section,
 * spanning; the container keeps it direct at the registry width and writes
 * the same bytes back. */
static void test_seed_13bit_direct_section(void **state)
{
    (void)state;
    static const uint32_t first[9] = {0x20, 0x30, 0x30, 0x31, 0x10, 0x10, 0x13, 0xD0, 0xD0};
    uint32_t ids[4096];
    mc_test_rng rng = {5};
    for (size_t i = 0; i < 4096; i++)
        ids[i] = i < 9 ? first[i] : (uint32_t)(mc_test_rand(&rng) % 4096);
    size_t nl = mc_bits_longs(4096, 13, MC_BITS_SPANNING);
    assert_int_equal(nl, 832);
    uint8_t *be = malloc(nl * 8), *be2 = malloc(nl * 8);
    mc_bits_pack_be_u32(ids, 4096, 13, MC_BITS_SPANNING, be);
    assert_true(mc_load_u64be(be) == 0x01001880C0060020ull);
    assert_true((mc_load_u64be(be + 8) & ((1ull << 53) - 1)) == (0x0200D0068004C020ull & ((1ull << 53) - 1)));
    mc_container_rules r = mc_container_rules_blocks(13);
    mc_container c;
    mc_error err;
    assert_int_equal(mc_container_from_be(&c, &r, 13, MC_BITS_SPANNING, NULL, 0, be, nl, NULL, &err), MC_OK);
    assert_int_equal(c.kind, MC_CONTAINER_DIRECT);
    for (size_t i = 0; i < 4096; i++)
        assert_int_equal(mc_container_get(&c, i), ids[i]);
    assert_int_equal(mc_container_write_be(&c, 13, MC_BITS_SPANNING, MC_WRITE_IDS, be2), MC_OK);
    assert_memory_equal(be, be2, nl * 8);
    /* 1.13: write the same at 14 bits spanning, from a 15-bit container */
    mc_container_rules r15 = mc_container_rules_blocks(15);
    mc_container d;
    assert_int_equal(mc_container_from_be(&d, &r15, 13, MC_BITS_SPANNING, NULL, 0, be, nl, NULL, &err), MC_OK);
    assert_int_equal(d.bits, 15);
    size_t nl14 = mc_bits_longs(4096, 14, MC_BITS_SPANNING);
    uint8_t *b14 = malloc(nl14 * 8);
    assert_int_equal(mc_container_write_be(&d, 14, MC_BITS_SPANNING, MC_WRITE_IDS, b14), MC_OK);
    for (size_t i = 0; i < 4096; i += 13)
        assert_int_equal(mc_bits_get_be(b14, i, 14, MC_BITS_SPANNING), ids[i]);
    /* indices cannot be written from a direct container; ids must fit */
    assert_int_equal(mc_container_write_be(&d, 14, MC_BITS_SPANNING, MC_WRITE_INDICES, b14), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_container_write_be(&d, 11, MC_BITS_SPANNING, MC_WRITE_IDS, b14), MC_ERR_RANGE);
    mc_container_free(&c);
    mc_container_free(&d);
    free(be);
    free(be2);
    free(b14);
}

static void test_outside_data_validation(void **state)
{
    (void)state;
    mc_container_rules r = mc_container_rules_blocks(15);
    mc_container c;
    mc_error err;
    uint8_t be[4096 * 8];
    uint32_t pal[300];
    for (int i = 0; i < 300; i++)
        pal[i] = (uint32_t)i * 3;
    memset(be, 0, sizeof be);
    /* wrong long count */
    assert_int_equal(mc_container_from_be(&c, &r, 4, MC_BITS_PADDED, pal, 16, be, 255, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "256"));
    assert_null(c.longs);
    /* too wide */
    assert_int_equal(mc_container_from_be(&c, &r, 33, MC_BITS_PADDED, pal, 16, be, 0, NULL, &err), MC_ERR_MALFORMED);
    /* palette larger than the width can index */
    assert_int_equal(mc_container_from_be(&c, &r, 4, MC_BITS_PADDED, pal, 17, be, 256, NULL, &err), MC_ERR_MALFORMED);
    /* single with two palette entries, single with longs */
    assert_int_equal(mc_container_from_be(&c, &r, 0, MC_BITS_PADDED, pal, 2, be, 0, NULL, &err), MC_ERR_MALFORMED);
    assert_int_equal(mc_container_from_be(&c, &r, 0, MC_BITS_PADDED, pal, 1, be, 1, NULL, &err), MC_ERR_MALFORMED);
    /* an index beyond the palette, in the fast path and the repacking path */
    mc_bits_set_be(be, 4000, 4, MC_BITS_PADDED, 9);
    assert_int_equal(mc_container_from_be(&c, &r, 4, MC_BITS_PADDED, pal, 9, be, 256, NULL, &err), MC_ERR_MALFORMED);
    assert_int_equal(mc_container_from_be(&c, &r, 4, MC_BITS_PADDED, pal, 10, be, 256, NULL, &err), MC_OK);
    assert_int_equal(mc_container_get(&c, 4000), 27);
    mc_container_free(&c);
    memset(be, 0, sizeof be);
    mc_bits_set_be(be, 7, 4, MC_BITS_SPANNING, 12);
    assert_int_equal(mc_container_from_be(&c, &r, 4, MC_BITS_SPANNING, pal, 12, be, 256, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "entry 7"));
    /* blocks at 2 bits (never sent by vanilla) are stored at 4 like the client does */
    memset(be, 0, sizeof be);
    mc_bits_set_be(be, 1, 2, MC_BITS_PADDED, 3);
    assert_int_equal(mc_container_from_be(&c, &r, 2, MC_BITS_PADDED, pal, 4, be, 128, NULL, &err), MC_OK);
    assert_int_equal(c.bits, 4);
    assert_int_equal(mc_container_get(&c, 1), 9);
    mc_container_free(&c);
    /* 1.13 disk: a 300-entry palette at 9 bits spanning becomes direct */
    memset(be, 0, sizeof be);
    for (size_t i = 0; i < 4096; i++)
        mc_bits_set_be(be, i, 9, MC_BITS_SPANNING, (uint32_t)(i % 300));
    assert_int_equal(mc_container_from_be(&c, &r, 9, MC_BITS_SPANNING, pal, 300, be, 576, NULL, &err), MC_OK);
    assert_int_equal(c.kind, MC_CONTAINER_DIRECT);
    assert_int_equal(mc_container_get(&c, 299), 897);
    mc_container_free(&c);
    /* ... and a 200-entry palette at 9 bits becomes indirect 8 bits */
    for (size_t i = 0; i < 4096; i++)
        mc_bits_set_be(be, i, 9, MC_BITS_SPANNING, (uint32_t)(i % 200));
    assert_int_equal(mc_container_from_be(&c, &r, 9, MC_BITS_SPANNING, pal, 200, be, 576, NULL, &err), MC_OK);
    assert_int_equal(c.kind, MC_CONTAINER_INDIRECT);
    assert_int_equal(c.bits, 8);
    assert_int_equal(mc_container_get(&c, 4095), (4095 % 200) * 3);
    mc_container_free(&c);
    /* direct ids wider than the registry */
    memset(be, 0, sizeof be);
    mc_bits_set_be(be, 5, 16, MC_BITS_PADDED, 40000);
    assert_int_equal(mc_container_from_be(&c, &r, 16, MC_BITS_PADDED, NULL, 0, be, 1024, NULL, &err), MC_ERR_MALFORMED);
}

/* Entry 2049 of vals made one past the palette and packed spanning into
 * span: refused, named, nothing kept. */
static void refuses_entry_2049(const mc_container_rules *r, unsigned bits, const uint32_t *pal, size_t plen,
                               uint32_t *vals, uint8_t *span, size_t ns)
{
    mc_container a;
    mc_error err;
    vals[2049] = (uint32_t)plen;
    mc_bits_pack_be_u32(vals, 4096, bits, MC_BITS_SPANNING, span);
    assert_int_equal(mc_container_from_be(&a, r, bits, MC_BITS_SPANNING, pal, plen, span, ns, NULL, &err),
                     MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "entry 2049 "));
    assert_null(a.longs);
}

/* 1.13-1.15 disk longs span entries across longs: read at 4 bits (where
 * spanning and padded are the same bytes) and at 5-8 (unpacked and packed
 * again at the game's width, 16 bits an index), each must hold the values
 * of the padded reading, and an index past the palette names its entry. */
static void test_spanning_source(void **state)
{
    (void)state;
    mc_container_rules r = mc_container_rules_blocks(15);
    uint32_t pal[256], vals[4096], got[4096];
    static uint8_t span[4096 * 8 / 64 * 8 * 8], padded[4096 * 8];
    for (unsigned i = 0; i < 256; i++)
        pal[i] = 7 * i + 1;
    for (unsigned bits = 4; bits <= 8; bits++) {
        const size_t plen = ((size_t)1 << (bits - 1)) + 3, ns = mc_bits_longs(4096, bits, MC_BITS_SPANNING),
                     np = mc_bits_longs(4096, bits, MC_BITS_PADDED);
        for (unsigned i = 0; i < 4096; i++)
            vals[i] = (i * 13u + i / 100u) % plen;
        mc_bits_pack_be_u32(vals, 4096, bits, MC_BITS_SPANNING, span);
        mc_bits_pack_be_u32(vals, 4096, bits, MC_BITS_PADDED, padded);
        mc_container a, b;
        mc_error err;
        assert_int_equal(mc_container_from_be(&a, &r, bits, MC_BITS_SPANNING, pal, plen, span, ns, NULL, &err), MC_OK);
        assert_int_equal(mc_container_from_be(&b, &r, bits, MC_BITS_PADDED, pal, plen, padded, np, NULL, &err), MC_OK);
        assert_int_equal(a.kind, MC_CONTAINER_INDIRECT);
        assert_int_equal(a.bits, bits);
        assert_true(mc_container_equal(&a, &b));
        mc_container_get_all(&a, got);
        for (unsigned i = 0; i < 4096; i++)
            assert_int_equal(got[i], pal[vals[i]]);
        mc_container_free(&a);
        mc_container_free(&b);
        refuses_entry_2049(&r, bits, pal, plen, vals, span, ns); /* one past the palette */
    }
    /* (not the game's) indices wider than 16 bits for a short palette:
     * unpacked as 32-bit values, narrowed to the rules' width */
    for (unsigned bits = 17; bits <= 20; bits += 3) {
        const size_t plen = 10, ns = mc_bits_longs(4096, bits, MC_BITS_SPANNING);
        for (unsigned i = 0; i < 4096; i++)
            vals[i] = (i * 13u + i / 100u) % plen;
        mc_bits_pack_be_u32(vals, 4096, bits, MC_BITS_SPANNING, span);
        mc_container a;
        mc_error err;
        assert_int_equal(mc_container_from_be(&a, &r, bits, MC_BITS_SPANNING, pal, plen, span, ns, NULL, &err), MC_OK);
        assert_int_equal(a.kind, MC_CONTAINER_INDIRECT);
        assert_int_equal(a.bits, 4);
        mc_container_get_all(&a, got);
        for (unsigned i = 0; i < 4096; i++)
            assert_int_equal(got[i], pal[vals[i]]);
        mc_container_free(&a);
        refuses_entry_2049(&r, bits, pal, plen, vals, span, ns);
    }
}

static void test_adopt_and_raw(void **state)
{
    (void)state;
    const mc_allocator *a = mc_default_allocator();
    mc_container_rules r = mc_container_rules_blocks(15);
    uint32_t *pal = a->alloc(a->user, 16 * 4);
    uint64_t *longs = a->alloc(a->user, 256 * 8);
    pal[0] = 1;
    pal[1] = 9;
    memset(longs, 0, 256 * 8);
    mc_bits_set(longs, 77, 4, MC_BITS_PADDED, 1);
    mc_container c;
    mc_error err;
    assert_int_equal(mc_container_adopt(&c, &r, MC_CONTAINER_INDIRECT, 4, pal, 2, 16, longs, NULL, &err), MC_OK);
    assert_int_equal(mc_container_get(&c, 77), 9);
    assert_int_equal(mc_container_get(&c, 78), 1);
    size_t nl, plen;
    assert_ptr_equal(mc_container_longs(&c, &nl), longs);
    assert_int_equal(nl, 256);
    assert_ptr_equal(mc_container_palette(&c, &plen), pal);
    assert_int_equal(plen, 2);
    assert_int_equal(mc_container_count_if(&c, is_even, NULL), 0);
    mc_container_free(&c);
    /* a width the rules do not use is refused, and ownership stays */
    pal = a->alloc(a->user, 64 * 4);
    longs = a->alloc(a->user, 1024 * 8);
    memset(longs, 0, 1024 * 8);
    pal[0] = 0;
    assert_int_equal(mc_container_adopt(&c, &r, MC_CONTAINER_INDIRECT, 16, pal, 1, 64, longs, NULL, &err), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_container_adopt(&c, &r, MC_CONTAINER_DIRECT, 15, NULL, 0, 0, longs, NULL, &err), MC_OK);
    assert_int_equal(mc_container_get(&c, 5), 0);
    mc_container_free(&c);
    a->free(a->user, pal, 64 * 4);
}

/* mc_container_set_indexed gives mc_container_set_all's container: single,
 * 4-bit, exact-width and direct palettes, and bad indices refused. */
static void test_set_indexed(void **state)
{
    (void)state;
    const mc_container_rules r = mc_container_rules_blocks(15);
    static const size_t sizes[] = {1, 2, 9, 17, 200, 300};
    uint64_t seed = 7;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        uint32_t pal[300], vals[4096];
        uint16_t idx[4096];
        for (size_t i = 0; i < n; i++)
            pal[i] = (uint32_t)(1000 + i * 37);
        /* indices whose first occurrences come in palette order */
        for (size_t i = 0; i < 4096; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            idx[i] = (uint16_t)(i < n ? i : (seed >> 33) % n);
            vals[i] = pal[idx[i]];
        }
        mc_container a, b;
        mc_container_init(&a, &r, 0, NULL);
        mc_container_init(&b, &r, 0, NULL);
        assert_int_equal(mc_container_set_indexed(&a, pal, n, idx), MC_OK);
        assert_int_equal(mc_container_set_all(&b, vals), MC_OK);
        assert_int_equal(a.kind, b.kind);
        assert_int_equal(a.bits, b.bits);
        size_t la, lb, na, nb;
        const uint32_t *pa = mc_container_palette(&a, &la), *pb = mc_container_palette(&b, &lb);
        assert_int_equal(la, lb);
        if (la)
            assert_memory_equal(pa, pb, la * 4);
        const uint64_t *xa = mc_container_longs(&a, &na), *xb = mc_container_longs(&b, &nb);
        assert_int_equal(na, nb);
        if (na)
            assert_memory_equal(xa, xb, na * 8);
        mc_container_free(&a);
        mc_container_free(&b);
    }
    mc_container c;
    mc_container_init(&c, &r, 0, NULL);
    uint32_t pal[2] = {4, 5};
    uint16_t idx[4096] = {0};
    idx[9] = 2;
    assert_int_equal(mc_container_set_indexed(&c, pal, 2, idx), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_container_get(&c, 9), 0); /* unchanged */
}

/* The compact mark (every entry used once, as its maker knew) goes with
 * any change: a value set, the values replaced. */
static void test_compact_cleared(void **state)
{
    (void)state;
    mc_container_rules r = mc_container_rules_blocks(15);
    mc_container c;
    mc_container_init(&c, &r, 0, NULL);
    assert_int_equal(c.compact, 0);
    uint32_t pal[2] = {7, 9};
    uint16_t idx[MC_SECTION_BLOCKS] = {0};
    idx[5] = 1;
    assert_int_equal(mc_container_set_indexed(&c, pal, 2, idx), MC_OK);
    c.compact = 1;
    uint32_t old;
    assert_int_equal(mc_container_set(&c, 6, 9, &old), MC_OK); /* nothing unused yet: still a change */
    assert_int_equal(c.compact, 0);
    c.compact = 1;
    assert_int_equal(mc_container_set(&c, 6, 9, &old), MC_OK); /* no change */
    assert_int_equal(c.compact, 1);
    assert_int_equal(mc_container_set_indexed(&c, pal, 2, idx), MC_OK);
    assert_int_equal(c.compact, 0);
    mc_container_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_indexed),
        cmocka_unit_test(test_compact_cleared),
        cmocka_unit_test(test_vanilla_growth_blocks),
        cmocka_unit_test(test_vanilla_growth_biomes),
        cmocka_unit_test(test_seed_section_example),
        cmocka_unit_test(test_seed_13bit_direct_section),
        cmocka_unit_test(test_outside_data_validation),
        cmocka_unit_test(test_spanning_source),
        cmocka_unit_test(test_adopt_and_raw),
        cmocka_unit_test(test_property_blocks),
        cmocka_unit_test(test_property_biomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
