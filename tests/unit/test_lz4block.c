/*
 * test_lz4block.c: the LZ4 block-stream framing of region compression 4.
 * Round trips over block-size edges, stored blocks for incompressible data,
 * the terminator, and rejection of every broken field (magic, method,
 * lengths, checksum, truncation, output limit).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "anvil/anvil_private.h"

static uint8_t *sample(size_t n, bool noise, uint64_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    mc_test_rng rng = {seed | 1};
    for (size_t i = 0; i < n; i++)
        p[i] = noise ? (uint8_t)(mc_test_rand(&rng) >> 56) : (uint8_t)("minecraft:stone"[i % 15]);
    return p;
}

static void round_trip(size_t n, bool noise)
{
    uint8_t *in = sample(n, noise, n + 7);
    mc_buf enc, dec;
    mc_buf_init(&enc, NULL);
    mc_buf_init(&dec, NULL);
    mc_error err;
    assert_int_equal(mc_region_compress(MC_COMPRESSION_LZ4, 0, in, n, &enc, &err), MC_OK);
    /* Walk the framing by hand: blocks of <= 64 KiB, then the terminator. */
    size_t pos = 0, total = 0, blocks = 0;
    for (;;) {
        assert_true(pos + 21 <= enc.len);
        assert_memory_equal(enc.data + pos, "LZ4Block", 8);
        uint8_t token = enc.data[pos + 8];
        uint32_t clen = mc_load_u32le(enc.data + pos + 9), dlen = mc_load_u32le(enc.data + pos + 13);
        uint32_t check = mc_load_u32le(enc.data + pos + 17);
        assert_int_equal(token & 0x0F, 6);
        if (dlen == 0) {
            assert_int_equal(token, 0x16);
            assert_int_equal(clen, 0);
            assert_int_equal(check, 0);
            pos += 21;
            break;
        }
        assert_true(dlen <= 65536);
        assert_int_equal(check, XXH32(in + total, dlen, 0x9747B28C) & 0x0FFFFFFF);
        if (noise)
            assert_int_equal(token, 0x16); /* stored */
        total += dlen;
        pos += 21 + clen;
        blocks++;
    }
    assert_int_equal(pos, enc.len);
    assert_int_equal(total, n);
    assert_int_equal(blocks, (n + 65535) / 65536);
    /* Decoding ignores padding after the terminator. */
    mc_buf_put(&enc, "\0\0\0\0\0\0\0", 7);
    assert_int_equal(mc_region_decompress(MC_COMPRESSION_LZ4, enc.data, enc.len, &dec, 0, &err), MC_OK);
    assert_int_equal(dec.len, n);
    if (n)
        assert_memory_equal(dec.data, in, n);
    mc_buf_free(&enc);
    mc_buf_free(&dec);
    free(in);
}

static void test_round_trips(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 100, 65535, 65536, 65537, 200000, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        round_trip(sizes[i], false);
        round_trip(sizes[i], true);
    }
}

static mc_status decode(const mc_buf *b, size_t limit, mc_error *err)
{
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_status st = mc_region_decompress(MC_COMPRESSION_LZ4, b->data, b->len, &out, limit, err);
    mc_buf_free(&out);
    return st;
}

static void test_rejects_damage(void **state)
{
    (void)state;
    uint8_t *in = sample(100000, false, 3);
    mc_buf enc;
    mc_buf_init(&enc, NULL);
    mc_error err;
    assert_int_equal(mc_region_compress(MC_COMPRESSION_LZ4, 0, in, 100000, &enc, &err), MC_OK);
    assert_int_equal(decode(&enc, 0, &err), MC_OK);

    struct { size_t at; uint8_t xor; } damage[] = {
        {0, 1},   /* magic */
        {8, 0x40},/* method 0x60 */
        {8, 0x0F},/* level 9: still valid, decodes */
        {9, 1},   /* compressed length */
        {13, 0x80},/* decompressed length */
        {17, 1},  /* checksum */
        {30, 0x55},/* payload */
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        enc.data[damage[i].at] ^= damage[i].xor;
        mc_status st = decode(&enc, 0, &err);
        if (damage[i].at == 8 && damage[i].xor == 0x0F)
            assert_int_equal(st, MC_OK);
        else
            assert_int_not_equal(st, MC_OK);
        enc.data[damage[i].at] ^= damage[i].xor;
    }
    /* Terminator with a checksum. */
    enc.data[enc.len - 1] = 1;
    assert_int_equal(decode(&enc, 0, &err), MC_ERR_COMPRESSION);
    enc.data[enc.len - 1] = 0;
    /* Cut anywhere inside a block: truncated; cut at a block boundary (no
     * terminator): accepted, as lz4-java does at end of stream. */
    size_t full = enc.len;
    enc.len = full - 21;
    assert_int_equal(decode(&enc, 0, &err), MC_OK);
    enc.len = full - 30;
    assert_int_not_equal(decode(&enc, 0, &err), MC_OK);
    enc.len = 10;
    assert_int_equal(decode(&enc, 0, &err), MC_ERR_TRUNCATED);
    enc.len = full;
    /* Output limit. */
    assert_int_equal(decode(&enc, 50000, &err), MC_ERR_LIMIT);
    assert_non_null(strstr(err.message, "limit"));
    mc_buf_free(&enc);
    free(in);
}

static void test_other_compressions(void **state)
{
    (void)state;
    uint8_t *in = sample(300000, false, 9);
    const mc_compression cs[] = {MC_COMPRESSION_GZIP, MC_COMPRESSION_ZLIB, MC_COMPRESSION_NONE};
    for (size_t i = 0; i < 3; i++) {
        mc_buf enc, dec;
        mc_buf_init(&enc, NULL);
        mc_buf_init(&dec, NULL);
        mc_error err;
        assert_int_equal(mc_region_compress(cs[i], 0, in, 300000, &enc, &err), MC_OK);
        assert_int_equal(mc_region_decompress(cs[i], enc.data, enc.len, &dec, 0, &err), MC_OK);
        assert_int_equal(dec.len, 300000);
        assert_memory_equal(dec.data, in, 300000);
        dec.len = 0;
        assert_int_equal(mc_region_decompress(cs[i], enc.data, enc.len, &dec, 1000, &err), MC_ERR_LIMIT);
        if (cs[i] != MC_COMPRESSION_NONE) {
            enc.data[enc.len / 2] ^= 0xFF;
            dec.len = 0;
            assert_int_not_equal(mc_region_decompress(cs[i], enc.data, enc.len, &dec, 0, &err), MC_OK);
        }
        mc_buf_free(&enc);
        mc_buf_free(&dec);
    }
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_rejects_damage),
        cmocka_unit_test(test_other_compressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
