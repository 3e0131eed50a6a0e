/* test_frame.c: Java packet framing — exact bytes, compression round trips,
 * incomplete frames at every cut, and each refusal vanilla makes. */
#include "support.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/java.h"

static mc_status read1(const uint8_t *d, size_t n, int thr, mc_buf *scratch, const uint8_t **p,
                       size_t *pl, size_t *used, mc_error *e)
{
    return mc_java_frame_read(d, n, thr, 0, NULL, scratch, p, pl, used, e);
}

static void test_exact_bytes(void **state)
{
    (void)state;
    mc_buf b;
    mc_buf_init(&b, NULL);
    const uint8_t ping[] = {0x01, 1, 2, 3, 4, 5, 6, 7, 8}; /* id 1 + long */
    assert_int_equal(mc_java_frame_write(&b, ping, sizeof ping, -1, NULL, NULL), MC_OK);
    const uint8_t plain[] = {0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(b.len, sizeof plain);
    assert_memory_equal(b.data, plain, sizeof plain);
    b.len = 0;
    /* Compression on, packet under the threshold: data length 0. */
    assert_int_equal(mc_java_frame_write(&b, ping, sizeof ping, 256, NULL, NULL), MC_OK);
    const uint8_t small[] = {0x0a, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(b.len, sizeof small);
    assert_memory_equal(b.data, small, sizeof small);
    mc_buf_free(&b);
}

static void test_roundtrip_sizes(void **state)
{
    (void)state;
    mc_java_zctx *z = mc_java_zctx_new(6);
    mc_buf out, scratch;
    mc_buf_init(&out, NULL);
    mc_buf_init(&scratch, NULL);
    mc_test_rng rng = {12345};
    static const size_t sizes[] = {1, 2, 127, 128, 255, 256, 257, 16383, 16384, 100000, 2000000};
    for (int thr = -1; thr <= 256; thr += 257 / 2 + 1) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            uint8_t *pkt = malloc(n);
            for (size_t i = 0; i < n; i++) /* compressible but not trivial */
                pkt[i] = (uint8_t)((mc_test_rand(&rng) & 7) + (i % 13));
            out.len = 0;
            mc_status s = mc_java_frame_write(&out, pkt, n, thr, z, NULL);
            if (thr < 0 && n + 3 > MC_JAVA_MAX_FRAME) {
                assert_int_equal(s, MC_ERR_RANGE);
                free(pkt);
                continue;
            }
            assert_int_equal(s, MC_OK);
            const uint8_t *p;
            size_t pl, used;
            mc_error e;
            assert_int_equal(mc_java_frame_read(out.data, out.len, thr, 0, z, &scratch, &p, &pl, &used, &e), MC_OK);
            assert_int_equal(used, out.len);
            assert_int_equal(pl, n);
            assert_memory_equal(p, pkt, n);
            /* An independent inflate (libdeflate directly) of compressed frames. */
            if (thr >= 0 && n >= (size_t)thr) {
                mc_reader r;
                mc_reader_init(&r, out.data, out.len, "t", NULL);
                int32_t fl = mc_read_varint(&r);
                size_t fstart = r.pos;
                int32_t dl = mc_read_varint(&r);
                assert_int_equal(dl, (int32_t)n);
                assert_int_equal((size_t)fl, out.len - fstart);
                uint8_t *chk = malloc(n);
                struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
                assert_int_equal(libdeflate_zlib_decompress(d, out.data + r.pos, out.len - r.pos, chk, n, NULL),
                                 LIBDEFLATE_SUCCESS);
                libdeflate_free_decompressor(d);
                assert_memory_equal(chk, pkt, n);
                free(chk);
            }
            free(pkt);
        }
    }
    mc_buf_free(&out);
    mc_buf_free(&scratch);
    mc_java_zctx_free(z);
}

static void test_incomplete_and_stream(void **state)
{
    (void)state;
    mc_buf out, scratch;
    mc_buf_init(&out, NULL);
    mc_buf_init(&scratch, NULL);
    uint8_t pkt[600];
    for (size_t i = 0; i < sizeof pkt; i++)
        pkt[i] = (uint8_t)(i * 7);
    for (int f = 0; f < 3; f++)
        assert_int_equal(mc_java_frame_write(&out, pkt, sizeof pkt - (size_t)f * 100, 256, NULL, NULL), MC_OK);
    size_t first_len;
    {
        const uint8_t *p;
        size_t pl;
        assert_int_equal(read1(out.data, out.len, 256, &scratch, &p, &pl, &first_len, NULL), MC_OK);
    }
    /* Every cut inside the first frame reports "incomplete", never an error. */
    for (size_t cut = 0; cut < first_len; cut++) {
        const uint8_t *p;
        size_t pl, used = 99;
        assert_int_equal(read1(out.data, cut, 256, &scratch, &p, &pl, &used, NULL), MC_ERR_TRUNCATED);
        assert_int_equal(used, 0);
    }
    /* The three frames parse back to back. */
    size_t off = 0;
    for (int f = 0; f < 3; f++) {
        const uint8_t *p;
        size_t pl, used;
        assert_int_equal(read1(out.data + off, out.len - off, 256, &scratch, &p, &pl, &used, NULL), MC_OK);
        assert_int_equal(pl, sizeof pkt - (size_t)f * 100);
        assert_memory_equal(p, pkt, pl);
        off += used;
    }
    assert_int_equal(off, out.len);
    mc_buf_free(&out);
    mc_buf_free(&scratch);
}

static void test_refusals(void **state)
{
    (void)state;
    mc_buf scratch;
    mc_buf_init(&scratch, NULL);
    const uint8_t *p;
    size_t pl, used;
    mc_error e;
    /* Length varint of 4 bytes. */
    const uint8_t long_len[] = {0x80, 0x80, 0x80, 0x01, 0};
    assert_int_equal(read1(long_len, sizeof long_len, -1, &scratch, &p, &pl, &used, &e), MC_ERR_MALFORMED);
    assert_non_null(strstr(e.message, "3 bytes"));
    /* A frame over a smaller configured limit. */
    const uint8_t big[] = {0xff, 0xff, 0x01};
    assert_int_equal(mc_java_frame_read(big, sizeof big, -1, 1000, NULL, &scratch, &p, &pl, &used, &e), MC_ERR_LIMIT);
    /* Empty frame. */
    const uint8_t empty[] = {0x00};
    assert_int_equal(read1(empty, 1, -1, &scratch, &p, &pl, &used, &e), MC_ERR_MALFORMED);
    /* Compressed packet stated below the threshold. */
    const uint8_t below[] = {0x03, 0x0a, 0x78, 0x9c};
    assert_int_equal(read1(below, sizeof below, 256, &scratch, &p, &pl, &used, &e), MC_ERR_MALFORMED);
    assert_non_null(strstr(e.message, "threshold"));
    /* Stated size beyond 8 MiB. */
    const uint8_t huge[] = {0x05, 0x80, 0x80, 0x80, 0x05, 0x00};
    assert_int_equal(read1(huge, sizeof huge, 256, &scratch, &p, &pl, &used, &e), MC_ERR_LIMIT);
    /* Garbage instead of zlib. */
    uint8_t bad[] = {0x06, 0x80, 0x04, 0x01, 0x02, 0x03, 0x04};
    assert_int_equal(read1(bad, sizeof bad, 256, &scratch, &p, &pl, &used, &e), MC_ERR_COMPRESSION);
    /* Valid zlib that inflates to fewer bytes than stated. */
    mc_buf out;
    mc_buf_init(&out, NULL);
    uint8_t pkt[300] = {0};
    assert_int_equal(mc_java_frame_write(&out, pkt, sizeof pkt, 256, NULL, NULL), MC_OK);
    /* data length is at out.data[1..2] (varint 300 = ac 02): claim 301. */
    assert_int_equal(out.data[1], 0xac);
    out.data[1] = 0xad;
    assert_int_equal(read1(out.data, out.len, 256, &scratch, &p, &pl, &used, &e), MC_ERR_COMPRESSION);
    mc_buf_free(&out);
    mc_buf_free(&scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_bytes),
        cmocka_unit_test(test_roundtrip_sizes),
        cmocka_unit_test(test_incomplete_and_stream),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
