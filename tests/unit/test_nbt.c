/*
 * test_nbt.c: the NBT module against real files and hostile bytes.
 *
 *  - byte-exact round trip (parse -> write -> same bytes) of every chunk of
 *    every region file in the corpus, of the loose chunk NBT files, of the
 *    Bedrock level.dat files and of Bedrock block-entity records;
 *  - the same trees through every other encoding (Java network, Bedrock disk,
 *    Bedrock network) and back to equal trees;
 *  - every malformed-input class: truncation at every byte, bad tag ids,
 *    negative lengths, depth bombs, invalid modified UTF-8, hostile counts,
 *    the byte budget -- each a clean error with an offset.
 * The tree API and SNBT have their own file, test_nbt_tree.c.
 */
#include "support.h"
#include "corpus_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/nbt.h"

static const mc_nbt_format all_formats[] = {MC_NBT_JAVA, MC_NBT_JAVA_NETWORK, MC_NBT_BEDROCK,
                                            MC_NBT_BEDROCK_LEVEL_DAT, MC_NBT_BEDROCK_NETWORK};

typedef struct {
    mc_nbt_doc *doc, *doc2;
    mc_buf out;
    long payloads;
    long bytes;
    int cross; /* also convert through the other encodings */
    const char *file;
} rt_state;

/* parse -> write must give the same bytes; other encodings must give an
 * equal tree. */
static void round_trip(rt_state *st, const uint8_t *data, size_t len, mc_nbt_format format)
{
    mc_error err;
    mc_error_clear(&err);
    mc_status s = mc_nbt_parse(st->doc, data, len, format, NULL, &err);
    if (s != MC_OK)
        fail_msg("%s: parse failed: %s", st->file, err.message);
    st->out.len = 0;
    s = mc_nbt_write(st->doc, format, &st->out, &err);
    if (s != MC_OK)
        fail_msg("%s: write failed: %s", st->file, err.message);
    if (st->out.len != len || memcmp(st->out.data, data, len)) {
        size_t i = 0;
        while (i < len && i < st->out.len && st->out.data[i] == data[i])
            i++;
        fail_msg("%s: round trip differs at byte %zu (%zu vs %zu bytes)", st->file, i, st->out.len, len);
    }
    st->payloads++;
    st->bytes += (long)len;
    if (!st->cross)
        return;
    for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
        if (all_formats[f] == format)
            continue;
        st->out.len = 0;
        s = mc_nbt_write(st->doc, all_formats[f], &st->out, &err);
        if (s != MC_OK)
            fail_msg("%s: write %s failed: %s", st->file, mc_nbt_format_name(all_formats[f]), err.message);
        s = mc_nbt_parse(st->doc2, st->out.data, st->out.len, all_formats[f], NULL, &err);
        if (s != MC_OK)
            fail_msg("%s: reparse %s failed: %s", st->file, mc_nbt_format_name(all_formats[f]), err.message);
        if (!mc_nbt_equal(mc_nbt_doc_root(st->doc), mc_nbt_doc_root(st->doc2)))
            fail_msg("%s: tree differs after %s", st->file, mc_nbt_format_name(all_formats[f]));
        if (all_formats[f] != MC_NBT_JAVA_NETWORK) {
            size_t n1, n2;
            const char *a = mc_nbt_doc_root_name(st->doc, &n1), *b = mc_nbt_doc_root_name(st->doc2, &n2);
            assert_true(n1 == n2 && !memcmp(a, b, n1));
        }
    }
}

static int chunk_cb(void *user, int index, const uint8_t *nbt, size_t len)
{
    rt_state *st = user;
    /* Cross-encode a sample (every 16th chunk) to keep the test fast. */
    int cross = st->cross;
    st->cross = (index % 16) == 0;
    round_trip(st, nbt, len, MC_NBT_JAVA);
    st->cross = cross;
    return 0;
}

static void rt_init(rt_state *st)
{
    memset(st, 0, sizeof *st);
    st->doc = mc_nbt_doc_new(NULL);
    st->doc2 = mc_nbt_doc_new(NULL);
    mc_buf_init(&st->out, NULL);
}

static void rt_free(rt_state *st)
{
    mc_nbt_doc_free(st->doc);
    mc_nbt_doc_free(st->doc2);
    mc_buf_free(&st->out);
}

static void test_corpus_regions(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    rt_state st;
    rt_init(&st);
    int nfiles = 0;
    for (char **f = files; *f; f++) {
        st.file = *f;
        int skipped = 0;
        int n = mc_test_region_chunks(*f, chunk_cb, &st, &skipped);
        if (n < 0)
            fail_msg("%s: unreadable region", *f);
        nfiles++;
    }
    print_message("round-tripped %ld chunk payloads (%ld bytes) from %d region files\n", st.payloads,
                  st.bytes, nfiles);
    assert_true(nfiles >= 20);
    assert_true(st.payloads > 4000);
    mc_test_free_list(files);
    rt_free(&st);
}

static void test_corpus_chunk_files(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil/chunk-nbt", "");
    rt_state st;
    rt_init(&st);
    st.cross = 1;
    for (char **f = files; *f; f++) {
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        st.file = *f;
        mc_nbt_format fmt;
        assert_int_equal(mc_nbt_detect(data, len, &fmt), MC_OK);
        assert_int_equal(fmt, MC_NBT_JAVA);
        round_trip(&st, data, len, MC_NBT_JAVA);
        free(data);
    }
    assert_true(st.payloads >= 9);
    mc_test_free_list(files);
    rt_free(&st);
}

static void test_corpus_bedrock_level_dat(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("bedrock/leveldb-worlds", "level.dat");
    rt_state st;
    rt_init(&st);
    st.cross = 1;
    for (char **f = files; *f; f++) {
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        st.file = *f;
        mc_nbt_format fmt;
        assert_int_equal(mc_nbt_detect(data, len, &fmt), MC_OK);
        assert_int_equal(fmt, MC_NBT_BEDROCK_LEVEL_DAT);
        round_trip(&st, data, len, MC_NBT_BEDROCK_LEVEL_DAT);
        /* The header's storage version survives. */
        assert_int_equal(mc_nbt_doc_header_version(st.doc), mc_load_u32le(data));
        /* Without its header it is plain Bedrock NBT. */
        round_trip(&st, data + 8, len - 8, MC_NBT_BEDROCK);
        free(data);
    }
    assert_true(st.payloads >= 6);
    mc_test_free_list(files);
    rt_free(&st);
}

/* BlockEntity records are Bedrock NBT compounds back to back. */
static void test_corpus_bedrock_block_entities(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("bedrock/leveldb-extracted", "BlockEntity.bin");
    rt_state st;
    rt_init(&st);
    st.cross = 1;
    long records = 0;
    for (char **f = files; *f; f++) {
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        st.file = *f;
        size_t pos = 0;
        while (pos < len) {
            size_t used = 0;
            mc_error err;
            mc_status s = mc_nbt_parse_ex(st.doc, data + pos, len - pos, MC_NBT_BEDROCK,
                                          MC_NBT_PARSE_PREFIX, NULL, &used, &err);
            if (s != MC_OK)
                fail_msg("%s: %s", *f, err.message);
            round_trip(&st, data + pos, used, MC_NBT_BEDROCK);
            pos += used;
            records++;
        }
        free(data);
    }
    print_message("round-tripped %ld Bedrock block entities\n", records);
    mc_test_free_list(files);
    rt_free(&st);
}

/* ------------------------------------------------------- malformed input */

static uint8_t *load_small_chunk(size_t *len)
{
    const char *p = mc_test_corpus_path("anvil/chunk-nbt/fastnbt-etho-end-r.-6.-1.c.7.25.nbt");
    return p ? mc_test_read_file(p, len) : NULL;
}

static void expect_error(const uint8_t *d, size_t n, mc_nbt_format f, mc_status want, const char *needle)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status s = mc_nbt_parse(doc, d, n, f, NULL, &err);
    if (s != want)
        fail_msg("want %s, got %s (%s)", mc_status_name(want), mc_status_name(s), err.message);
    assert_int_equal(err.status, want);
    assert_true(err.offset <= n);
    assert_non_null(strstr(err.message, "offset"));
    if (needle && !strstr(err.message, needle))
        fail_msg("message '%s' lacks '%s'", err.message, needle);
    assert_null(mc_nbt_doc_root(doc));
    mc_nbt_doc_free(doc);
}

/* Every prefix of a real payload, in every encoding, is a clean error. */
static void test_truncation_everywhere(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    size_t len;
    uint8_t *data = load_small_chunk(&len);
    assert_non_null(data);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_doc *doc2 = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, NULL), MC_OK);
    for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        assert_int_equal(mc_nbt_write(doc, all_formats[f], &b, NULL), MC_OK);
        for (size_t cut = 0; cut < b.len; cut++) {
            mc_error err;
            mc_error_clear(&err);
            /* A copy of exactly `cut` bytes, so ASan sees any overread. */
            uint8_t *prefix = malloc(cut ? cut : 1);
            memcpy(prefix, b.data, cut);
            mc_status s = mc_nbt_parse(doc2, prefix, cut, all_formats[f], NULL, &err);
            free(prefix);
            if (s == MC_OK)
                fail_msg("%s: prefix of %zu/%zu bytes parsed", mc_nbt_format_name(all_formats[f]), cut, b.len);
            assert_true(s == MC_ERR_TRUNCATED || s == MC_ERR_MALFORMED);
            assert_true(err.offset <= cut);
        }
        mc_buf_free(&b);
    }
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(doc2);
    free(data);
}

static void test_bad_tag_ids(void **state)
{
    (void)state;
    /* root id 13 */
    const uint8_t a[] = {13, 0, 0};
    expect_error(a, sizeof a, MC_NBT_JAVA, MC_ERR_MALFORMED, "bad root tag type 13 at offset 0");
    /* child id 99 at offset 3 */
    const uint8_t b[] = {10, 0, 0, 99, 0, 0, 0};
    expect_error(b, sizeof b, MC_NBT_JAVA, MC_ERR_MALFORMED, "bad tag type 99 at offset 3");
    /* list element type 200 */
    const uint8_t c[] = {10, 0, 0, 9, 0, 1, 'l', 200, 0, 0, 0, 1, 0, 0};
    expect_error(c, sizeof c, MC_NBT_JAVA, MC_ERR_MALFORMED, "bad list element type 200");
    /* list of 3 END tags */
    const uint8_t d[] = {10, 0, 0, 9, 0, 1, 'l', 0, 0, 0, 0, 3, 0};
    expect_error(d, sizeof d, MC_NBT_JAVA, MC_ERR_MALFORMED, "end tags");
    /* bytes after the root */
    const uint8_t e[] = {10, 0, 0, 0, 0};
    expect_error(e, sizeof e, MC_NBT_JAVA, MC_ERR_MALFORMED, "after the root tag at offset 4");
    /* empty input */
    expect_error(a, 0, MC_NBT_JAVA, MC_ERR_TRUNCATED, "empty");
}

static void test_negative_lengths(void **state)
{
    (void)state;
    const uint8_t list[] = {10, 0, 0, 9, 0, 1, 'l', 1, 0xff, 0xff, 0xff, 0xfe, 0};
    expect_error(list, sizeof list, MC_NBT_JAVA, MC_ERR_MALFORMED, "negative list length -2 at offset 8");
    const uint8_t arr[] = {10, 0, 0, 12, 0, 1, 'a', 0x80, 0, 0, 0, 0};
    expect_error(arr, sizeof arr, MC_NBT_JAVA, MC_ERR_MALFORMED, "negative long_array length");
    const uint8_t le[] = {10, 0, 0, 11, 1, 0, 'a', 0xff, 0xff, 0xff, 0xff, 0};
    expect_error(le, sizeof le, MC_NBT_BEDROCK, MC_ERR_MALFORMED, "negative int_array length -1");
    /* Bedrock network: zigzag 1 = -1 */
    const uint8_t vi[] = {10, 0, 9, 1, 'l', 1, 1, 0};
    expect_error(vi, sizeof vi, MC_NBT_BEDROCK_NETWORK, MC_ERR_MALFORMED, "negative list length -1");
}

static void test_hostile_counts(void **state)
{
    (void)state;
    /* a list claiming 2^31-1 longs in a 20-byte input: refused before any allocation */
    const uint8_t a[] = {10, 0, 0, 9, 0, 1, 'l', 4, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    expect_error(a, sizeof a, MC_NBT_JAVA, MC_ERR_TRUNCATED, "exceeds remaining");
    const uint8_t b[] = {10, 0, 0, 7, 0, 1, 'b', 0x7f, 0xff, 0xff, 0xff, 0};
    expect_error(b, sizeof b, MC_NBT_JAVA, MC_ERR_TRUNCATED, "byte_array length 2147483647 exceeds");
    const uint8_t c[] = {10, 0, 0, 8, 0xff, 0xff, 'k'};
    expect_error(c, sizeof c, MC_NBT_JAVA, MC_ERR_TRUNCATED, "key length 65535 exceeds remaining 1 bytes at offset 4");
    /* varints: too long, not shortest, over 32 bits */
    const uint8_t d[] = {10, 0, 3, 1, 'i', 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0};
    expect_error(d, sizeof d, MC_NBT_BEDROCK_NETWORK, MC_ERR_MALFORMED, "longer than 5 bytes");
    const uint8_t e[] = {10, 0, 3, 1, 'i', 0x80, 0x00, 0};
    expect_error(e, sizeof e, MC_NBT_BEDROCK_NETWORK, MC_ERR_MALFORMED, "shortest form");
    const uint8_t f[] = {10, 0, 3, 1, 'i', 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
    expect_error(f, sizeof f, MC_NBT_BEDROCK_NETWORK, MC_ERR_MALFORMED, "exceeds 32 bits");
    /* a 64-bit varint whose 10th byte holds more than bit 63 (found by fuzz_nbt_bedrock_network) */
    const uint8_t g[] = {10, 0, 4, 1, 'l', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x41, 0};
    expect_error(g, sizeof g, MC_NBT_BEDROCK_NETWORK, MC_ERR_MALFORMED, "exceeds 64 bits");
    const uint8_t h[] = {10, 0, 4, 1, 'l', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0};
    mc_nbt_doc *hd = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(hd, h, sizeof h, MC_NBT_BEDROCK_NETWORK, NULL, NULL), MC_OK);
    mc_nbt_doc_free(hd);
    /* a list of 1,000,000 empty compounds fits in 1 MB of input, but not in a small budget */
    size_t n = 1000000;
    uint8_t *big = malloc(n + 16);
    const uint8_t head[] = {10, 0, 0, 9, 0, 1, 'l', 10, 0x00, 0x0f, 0x42, 0x40};
    memcpy(big, head, sizeof head);
    memset(big + sizeof head, 0, n);
    big[sizeof head + n] = 0;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_limits lim = {0, 1 << 20};
    mc_error err;
    assert_int_equal(mc_nbt_parse(doc, big, sizeof head + n + 1, MC_NBT_JAVA, &lim, &err), MC_ERR_LIMIT);
    assert_non_null(strstr(err.message, "budget"));
    assert_int_equal(mc_nbt_parse(doc, big, sizeof head + n + 1, MC_NBT_JAVA, NULL, &err), MC_OK);
    assert_int_equal(mc_nbt_count(mc_nbt_get(mc_nbt_doc_root(doc), "l")), n);
    mc_nbt_doc_free(doc);
    free(big);
}

/* nesting: 512 levels are fine, 513 are not, in every encoding; a deep
 * bomb of a million levels ends at the limit without deep recursion */
static void test_depth_bombs(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof all_formats / sizeof all_formats[0]; f++) {
        mc_nbt_format fmt = all_formats[f];
        for (int levels = 510; levels <= 514; levels++) {
            /* root compound (level 1) holding lists of lists ... */
            mc_buf b;
            mc_buf_init(&b, NULL);
            bool le = fmt == MC_NBT_BEDROCK || fmt == MC_NBT_BEDROCK_LEVEL_DAT;
            bool vi = fmt == MC_NBT_BEDROCK_NETWORK;
            if (fmt == MC_NBT_BEDROCK_LEVEL_DAT) {
                mc_buf_put_u32le(&b, 10);
                mc_buf_put_u32le(&b, 0);
            }
            mc_buf_put_u8(&b, 10);
            if (fmt != MC_NBT_JAVA_NETWORK) {
                if (vi) mc_buf_put_u8(&b, 0); else mc_buf_put_u16be(&b, 0);
            }
            mc_buf_put_u8(&b, 9);
            if (vi) { mc_buf_put_u8(&b, 1); } else if (le) { mc_buf_put_u16le(&b, 1); } else { mc_buf_put_u16be(&b, 1); }
            mc_buf_put_u8(&b, 'x');
            for (int i = 2; i < levels; i++) {
                mc_buf_put_u8(&b, 9); /* element type list, one element */
                if (vi) mc_buf_put_zigzag32(&b, 1); else if (le) mc_buf_put_u32le(&b, 1); else mc_buf_put_u32be(&b, 1);
            }
            mc_buf_put_u8(&b, 1);
            if (vi) mc_buf_put_zigzag32(&b, 0); else mc_buf_put_u32be(&b, 0);
            mc_buf_put_u8(&b, 0);
            if (fmt == MC_NBT_BEDROCK_LEVEL_DAT)
                mc_store_u32le(b.data + 4, (uint32_t)(b.len - 8));
            mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
            mc_error err;
            mc_status s = mc_nbt_parse(doc, b.data, b.len, fmt, NULL, &err);
            if (levels <= 512) {
                if (s != MC_OK)
                    fail_msg("%s depth %d: %s", mc_nbt_format_name(fmt), levels, err.message);
                mc_buf o;
                mc_buf_init(&o, NULL);
                assert_int_equal(mc_nbt_write(doc, fmt, &o, NULL), MC_OK);
                assert_true(o.len == b.len && !memcmp(o.data, b.data, b.len));
                mc_buf_free(&o);
            } else {
                assert_int_equal(s, MC_ERR_LIMIT);
                assert_non_null(strstr(err.message, "deeper than 512"));
            }
            mc_nbt_doc_free(doc);
            mc_buf_free(&b);
        }
    }
    /* a million nested compounds */
    size_t n = 1000000;
    uint8_t *bomb = malloc(3 + 4 * n);
    bomb[0] = 10; bomb[1] = 0; bomb[2] = 0;
    for (size_t i = 0; i < n; i++) {
        bomb[3 + 4 * i] = 10; bomb[4 + 4 * i] = 0; bomb[5 + 4 * i] = 1; bomb[6 + 4 * i] = 'a';
    }
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_nbt_parse(doc, bomb, 3 + 4 * n, MC_NBT_JAVA, NULL, &err), MC_ERR_LIMIT);
    /* and a custom limit */
    mc_nbt_limits lim = {8, 0};
    assert_int_equal(mc_nbt_parse(doc, bomb, 3 + 4 * n, MC_NBT_JAVA, &lim, &err), MC_ERR_LIMIT);
    assert_non_null(strstr(err.message, "deeper than 8 at offset 35"));
    mc_nbt_doc_free(doc);
    free(bomb);
}

static void test_modified_utf8(void **state)
{
    (void)state;
    /* "a\0b" + U+1F600 (surrogate pair) + U+00E9 */
    const uint8_t java[] = {8, 0, 0, 0, 12, 'a', 0xC0, 0x80, 'b', 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, 0xC3, 0xA9};
    const uint8_t utf8[] = {'a', 0, 'b', 0xF0, 0x9F, 0x98, 0x80, 0xC3, 0xA9};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(doc, java, sizeof java, MC_NBT_JAVA, NULL, NULL), MC_OK);
    const char *s;
    size_t n;
    assert_int_equal(mc_nbt_get_string(mc_nbt_doc_root(doc), &s, &n), MC_OK);
    assert_int_equal(n, sizeof utf8);
    assert_memory_equal(s, utf8, n);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &b, NULL), MC_OK);
    assert_int_equal(b.len, sizeof java);
    assert_memory_equal(b.data, java, sizeof java);
    /* Bedrock keeps plain UTF-8 */
    b.len = 0;
    assert_int_equal(mc_nbt_write(doc, MC_NBT_BEDROCK, &b, NULL), MC_OK);
    assert_int_equal(b.len, 1 + 2 + 2 + sizeof utf8);
    assert_memory_equal(b.data + 5, utf8, sizeof utf8);
    mc_buf_free(&b);
    /* A lone surrogate stays as is (Java allows it) */
    const uint8_t lone[] = {8, 0, 0, 0, 3, 0xED, 0xA0, 0x80};
    assert_int_equal(mc_nbt_parse(doc, lone, sizeof lone, MC_NBT_JAVA, NULL, NULL), MC_OK);
    mc_nbt_doc_free(doc);

    /* invalid: raw NUL, overlong, 4-byte form, bad continuation, cut sequence, in keys too */
    const uint8_t bad1[] = {8, 0, 0, 0, 2, 'a', 0};
    expect_error(bad1, sizeof bad1, MC_NBT_JAVA, MC_ERR_MALFORMED, "not valid modified UTF-8 (byte 0x00) at offset 6");
    const uint8_t bad2[] = {8, 0, 0, 0, 2, 0xC1, 0x81};
    expect_error(bad2, sizeof bad2, MC_NBT_JAVA, MC_ERR_MALFORMED, "modified UTF-8");
    const uint8_t bad3[] = {8, 0, 0, 0, 4, 0xF0, 0x9F, 0x98, 0x80};
    expect_error(bad3, sizeof bad3, MC_NBT_JAVA, MC_ERR_MALFORMED, "(byte 0xf0) at offset 5");
    const uint8_t bad4[] = {8, 0, 0, 0, 2, 0xC3, 0x41};
    expect_error(bad4, sizeof bad4, MC_NBT_JAVA, MC_ERR_MALFORMED, "modified UTF-8");
    const uint8_t bad5[] = {8, 0, 0, 0, 2, 'x', 0xE2};
    expect_error(bad5, sizeof bad5, MC_NBT_JAVA, MC_ERR_MALFORMED, "at offset 6");
    const uint8_t bad6[] = {10, 0, 0, 1, 0, 1, 0x80, 5, 0};
    expect_error(bad6, sizeof bad6, MC_NBT_JAVA, MC_ERR_MALFORMED, "key is not valid modified UTF-8");
    const uint8_t bad7[] = {10, 0, 2, 0xE0, 0x80, 0};
    expect_error(bad7, sizeof bad7, MC_NBT_JAVA, MC_ERR_MALFORMED, "root name");
}

/* Random bytes and random mutations of a real payload: never a crash, and
 * anything accepted writes back to the same bytes. */
static void test_mutations(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    size_t len;
    uint8_t *data = load_small_chunk(&len);
    mc_test_rng rng = {0x9e3779b97f4a7c15ull};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_buf out;
    mc_buf_init(&out, NULL);
    uint8_t *m = malloc(len);
    int accepted = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(m, data, len);
        int flips = 1 + (int)(mc_test_rand(&rng) % 4);
        for (int k = 0; k < flips; k++)
            m[mc_test_rand(&rng) % len] = (uint8_t)mc_test_rand(&rng);
        mc_nbt_format f = all_formats[mc_test_rand(&rng) % 5];
        if (mc_nbt_parse(doc, m, len, f, NULL, NULL) == MC_OK) {
            out.len = 0;
            assert_int_equal(mc_nbt_write(doc, f, &out, NULL), MC_OK);
            assert_true(out.len == len && !memcmp(out.data, m, len));
            accepted++;
        }
    }
    print_message("%d of 3000 mutants were valid NBT and round-tripped\n", accepted);
    free(m);
    mc_buf_free(&out);
    mc_nbt_doc_free(doc);
    free(data);
}

static void test_prefix_and_copy(void **state)
{
    (void)state;
    /* two Bedrock roots back to back */
    const uint8_t two[] = {10, 1, 0, 'a', 1, 1, 0, 'b', 7, 0, 10, 0, 0, 0};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    size_t used = 0;
    assert_int_equal(mc_nbt_parse_ex(doc, two, sizeof two, MC_NBT_BEDROCK, MC_NBT_PARSE_PREFIX, NULL,
                                     &used, NULL), MC_OK);
    assert_int_equal(used, 10);
    int8_t v;
    assert_int_equal(mc_nbt_get_byte(mc_nbt_get(mc_nbt_doc_root(doc), "b"), &v), MC_OK);
    assert_int_equal(v, 7);
    assert_int_equal(mc_nbt_parse_ex(doc, two + used, sizeof two - used, MC_NBT_BEDROCK,
                                     MC_NBT_PARSE_PREFIX, NULL, &used, NULL), MC_OK);
    assert_int_equal(used, 4);
    /* COPY: the tree survives the input */
    uint8_t *tmp = malloc(sizeof two);
    memcpy(tmp, two, sizeof two);
    assert_int_equal(mc_nbt_parse_ex(doc, tmp, 10, MC_NBT_BEDROCK, MC_NBT_PARSE_COPY, NULL, NULL, NULL),
                     MC_OK);
    memset(tmp, 0xAA, sizeof two);
    free(tmp);
    size_t nl;
    const char *name = mc_nbt_doc_root_name(doc, &nl);
    assert_int_equal(nl, 1);
    assert_int_equal(name[0], 'a');
    assert_int_equal(mc_nbt_get_byte(mc_nbt_get(mc_nbt_doc_root(doc), "b"), &v), MC_OK);
    assert_int_equal(v, 7);
    mc_nbt_doc_free(doc);
}

static void test_compression(void **state)
{
    (void)state;
    const uint8_t java[] = {10, 0, 4, 't', 'e', 's', 't', 3, 0, 1, 'x', 0, 0, 0, 42, 0};
    mc_nbt_compression kinds[] = {MC_NBT_UNCOMPRESSED, MC_NBT_GZIP, MC_NBT_ZLIB};
    for (int k = 0; k < 3; k++) {
        mc_buf z;
        mc_buf_init(&z, NULL);
        assert_int_equal(mc_nbt_compress(java, sizeof java, kinds[k], 0, &z, NULL), MC_OK);
        assert_int_equal(mc_nbt_detect_compression(z.data, z.len), kinds[k]);
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_nbt_compression got;
        mc_nbt_format fmt;
        assert_int_equal(mc_nbt_load(doc, z.data, z.len, MC_NBT_AUTO, NULL, &got, &fmt, NULL), MC_OK);
        mc_buf_free(&z); /* the document does not need the input any more */
        assert_int_equal(got, kinds[k]);
        assert_int_equal(fmt, MC_NBT_JAVA);
        int32_t x;
        assert_int_equal(mc_nbt_get_int(mc_nbt_path(mc_nbt_doc_root(doc), "x"), &x), MC_OK);
        assert_int_equal(x, 42);
        mc_nbt_doc_free(doc);
    }
    /* corrupt gzip */
    const uint8_t badz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_nbt_load(doc, badz, sizeof badz, MC_NBT_AUTO, NULL, NULL, NULL, &err),
                     MC_ERR_COMPRESSION);
    mc_nbt_doc_free(doc);
}

static void test_detect(void **state)
{
    (void)state;
    const uint8_t java[] = {10, 0, 1, 'r', 1, 0, 1, 'b', 5, 0};
    const uint8_t bedrock[] = {10, 1, 0, 'r', 1, 1, 0, 'b', 5, 0};
    const uint8_t jnet[] = {10, 1, 0, 1, 'b', 5, 0};
    const uint8_t bnet[] = {10, 1, 'r', 1, 1, 'b', 5, 0};
    mc_nbt_format f;
    assert_int_equal(mc_nbt_detect(java, sizeof java, &f), MC_OK);
    assert_int_equal(f, MC_NBT_JAVA);
    assert_int_equal(mc_nbt_detect(bedrock, sizeof bedrock, &f), MC_OK);
    assert_int_equal(f, MC_NBT_BEDROCK);
    assert_int_equal(mc_nbt_detect(jnet, sizeof jnet, &f), MC_OK);
    assert_int_equal(f, MC_NBT_JAVA_NETWORK);
    assert_int_equal(mc_nbt_detect(bnet, sizeof bnet, &f), MC_OK);
    assert_int_equal(f, MC_NBT_BEDROCK_NETWORK);
    const uint8_t junk[] = {0xde, 0xad, 0xbe, 0xef};
    assert_int_equal(mc_nbt_detect(junk, sizeof junk, &f), MC_ERR_MALFORMED);
}

/* mc_nbt_decompress grows its buffer from a guess (4x the input, or gzip's
 * ISIZE): 1 MiB of one byte inflates ~1000x, so the first tries are short;
 * the limit is exact; a gzip whose ISIZE lies still inflates whole; a corrupt
 * stream is MC_ERR_COMPRESSION. */
static void test_decompress_growing(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 20;
    uint8_t *plain = malloc(n);
    assert_non_null(plain);
    for (size_t i = 0; i < n; i++)
        plain[i] = (uint8_t)(i / 4096);
    const mc_nbt_compression kinds[] = {MC_NBT_ZLIB, MC_NBT_GZIP};
    for (int k = 0; k < 2; k++) {
        mc_buf z;
        mc_buf_init(&z, NULL);
        mc_error err;
        assert_int_equal(mc_nbt_compress(plain, n, kinds[k], 6, &z, &err), MC_OK);
        assert_true(z.len * 100 < n);
        uint8_t *out = NULL;
        size_t out_len = 0, out_cap = 0;
        mc_nbt_compression got;
        assert_int_equal(mc_nbt_decompress(z.data, z.len, NULL, 0, &out, &out_len, &out_cap, &got, &err), MC_OK);
        assert_int_equal(got, kinds[k]);
        assert_int_equal(out_len, n);
        assert_true(out_cap >= out_len);
        assert_memory_equal(out, plain, n);
        mc_alloc_or_default(NULL)->free(NULL, out, out_cap);
        /* exactly the size is allowed, one byte less is the limit */
        assert_int_equal(mc_nbt_decompress(z.data, z.len, NULL, n, &out, &out_len, &out_cap, NULL, &err), MC_OK);
        mc_alloc_or_default(NULL)->free(NULL, out, out_cap);
        assert_int_equal(mc_nbt_decompress(z.data, z.len, NULL, n - 1, &out, &out_len, &out_cap, NULL, &err),
                         MC_ERR_LIMIT);
        if (kinds[k] == MC_NBT_GZIP) { /* ISIZE says 16 bytes */
            z.data[z.len - 4] = 16; z.data[z.len - 3] = 0; z.data[z.len - 2] = 0; z.data[z.len - 1] = 0;
            assert_int_equal(mc_nbt_decompress(z.data, z.len, NULL, 0, &out, &out_len, &out_cap, NULL, &err),
                             MC_ERR_COMPRESSION); /* libdeflate checks ISIZE against what it inflated */
        }
        z.data[z.len / 2] ^= 0xFF;
        z.data[z.len / 2 + 1] ^= 0x55;
        assert_int_equal(mc_nbt_decompress(z.data, z.len, NULL, 0, &out, &out_len, &out_cap, NULL, &err),
                         MC_ERR_COMPRESSION);
        mc_buf_free(&z);
    }
    free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decompress_growing),
        cmocka_unit_test(test_corpus_regions),
        cmocka_unit_test(test_corpus_chunk_files),
        cmocka_unit_test(test_corpus_bedrock_level_dat),
        cmocka_unit_test(test_corpus_bedrock_block_entities),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_bad_tag_ids),
        cmocka_unit_test(test_negative_lengths),
        cmocka_unit_test(test_hostile_counts),
        cmocka_unit_test(test_depth_bombs),
        cmocka_unit_test(test_modified_utf8),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_prefix_and_copy),
        cmocka_unit_test(test_compression),
        cmocka_unit_test(test_detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
