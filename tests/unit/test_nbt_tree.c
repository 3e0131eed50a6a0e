/*
 * test_nbt_tree.c: the NBT tree API (build, look up, typed getters, change,
 * copy, compare), arrays in every byte order, and the SNBT/JSON text forms.
 */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/nbt.h"

static const mc_nbt_format all_formats[] = {MC_NBT_JAVA, MC_NBT_JAVA_NETWORK, MC_NBT_BEDROCK,
                                            MC_NBT_BEDROCK_LEVEL_DAT, MC_NBT_BEDROCK_NETWORK};

/* A tree with every tag type. */
static mc_nbt_tag *build_all_types(mc_nbt_doc *doc)
{
    mc_nbt_tag *r = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    assert_non_null(r);
    assert_int_equal(mc_nbt_doc_set_root_name(doc, "root", 4), MC_OK);
    assert_int_equal(mc_nbt_put_byte(doc, r, "b", -5), MC_OK);
    assert_int_equal(mc_nbt_put_short(doc, r, "s", -30000), MC_OK);
    assert_int_equal(mc_nbt_put_int(doc, r, "i", INT32_MIN), MC_OK);
    assert_int_equal(mc_nbt_put_long(doc, r, "l", INT64_MIN + 1), MC_OK);
    assert_int_equal(mc_nbt_put_float(doc, r, "f", 0.1f), MC_OK);
    assert_int_equal(mc_nbt_put_double(doc, r, "d", -1e300), MC_OK);
    assert_int_equal(mc_nbt_put_string(doc, r, "str", "h\xc3\xa9llo \"w\" \xf0\x9f\x98\x80", 15), MC_OK);
    int8_t ba[] = {1, -2, 3};
    int32_t ia[] = {1, -2, 0x7fffffff};
    int64_t la[] = {1, -2, INT64_MAX};
    assert_int_equal(mc_nbt_put_byte_array(doc, r, "ba", ba, 3), MC_OK);
    assert_int_equal(mc_nbt_put_int_array(doc, r, "ia", ia, 3), MC_OK);
    assert_int_equal(mc_nbt_put_long_array(doc, r, "la", la, 3), MC_OK);
    mc_nbt_tag *list = mc_nbt_put_list(doc, r, "list", MC_NBT_END);
    for (int k = 0; k < 3; k++) {
        mc_nbt_tag *c = mc_nbt_list_append(doc, list, MC_NBT_COMPOUND);
        assert_non_null(c);
        assert_int_equal(mc_nbt_put_int(doc, c, "k", k), MC_OK);
    }
    mc_nbt_tag *nested = mc_nbt_put_compound(doc, r, "with space");
    mc_nbt_tag *ll = mc_nbt_put_list(doc, nested, "ll", MC_NBT_LIST);
    mc_nbt_tag *inner = mc_nbt_list_append(doc, ll, MC_NBT_LIST);
    mc_nbt_set_double(mc_nbt_list_append(doc, inner, MC_NBT_DOUBLE), 2.5);
    mc_nbt_put_list(doc, nested, "empty", MC_NBT_STRING);
    mc_nbt_put_compound(doc, nested, "");
    return r;
}

static void test_build_and_get(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *r = build_all_types(doc);
    int8_t b;
    int16_t s;
    int32_t i;
    int64_t l;
    float f;
    double d;
    assert_int_equal(mc_nbt_get_byte(mc_nbt_get(r, "b"), &b), MC_OK);
    assert_int_equal(b, -5);
    assert_int_equal(mc_nbt_get_short(mc_nbt_get(r, "s"), &s), MC_OK);
    assert_int_equal(s, -30000);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "i"), &i), MC_OK);
    assert_int_equal(i, INT32_MIN);
    assert_int_equal(mc_nbt_get_long(mc_nbt_get(r, "l"), &l), MC_OK);
    assert_true(l == INT64_MIN + 1);
    assert_int_equal(mc_nbt_get_float(mc_nbt_get(r, "f"), &f), MC_OK);
    assert_true(f == 0.1f);
    assert_int_equal(mc_nbt_get_double(mc_nbt_get(r, "d"), &d), MC_OK);
    assert_true(d == -1e300);
    /* wrong type, absent key, chained look-ups through NULL */
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "b"), &i), MC_ERR_TYPE);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "nope"), &i), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(mc_nbt_get(r, "b"), "x"), &i), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_nbt_get_integer(mc_nbt_get(r, "s"), &l), MC_OK);
    assert_int_equal(l, -30000);
    assert_int_equal(mc_nbt_get_number(mc_nbt_get(r, "f"), &d), MC_OK);
    assert_int_equal(mc_nbt_get_integer(mc_nbt_get(r, "f"), &l), MC_ERR_TYPE);
    const char *str;
    size_t n;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(r, "str"), &str, &n), MC_OK);
    assert_int_equal(n, 15);
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(r, "i"), &str, &n), MC_ERR_TYPE);
    /* iteration order = insertion order */
    const char *keys[] = {"b", "s", "i", "l", "f", "d", "str", "ba", "ia", "la", "list", "with space"};
    size_t k = 0;
    for (mc_nbt_tag *c = mc_nbt_first(r); c; c = mc_nbt_next(c), k++) {
        size_t kl;
        const char *key = mc_nbt_tag_key(c, &kl);
        assert_true(kl == strlen(keys[k]) && !memcmp(key, keys[k], kl));
    }
    assert_int_equal(k, 12);
    assert_int_equal(mc_nbt_count(r), 12);
    /* lists */
    mc_nbt_tag *list = mc_nbt_get(r, "list");
    assert_int_equal(mc_nbt_list_type(list), MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_count(list), 3);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(mc_nbt_list_at(list, 2), "k"), &i), MC_OK);
    assert_int_equal(i, 2);
    assert_null(mc_nbt_list_at(list, 3));
    assert_null(mc_nbt_list_append(doc, list, MC_NBT_INT)); /* wrong element type */
    /* paths */
    assert_int_equal(mc_nbt_get_int(mc_nbt_path(r, "list[1].k"), &i), MC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(mc_nbt_get_double(mc_nbt_path(r, "\"with space\".ll[0][0]"), &d), MC_OK);
    assert_true(d == 2.5);
    assert_null(mc_nbt_path(r, "list[9].k"));
    assert_null(mc_nbt_path(r, "list[x]"));
    /* arrays */
    int64_t la[3];
    size_t cnt;
    assert_int_equal(mc_nbt_array_copy_i64(mc_nbt_get(r, "la"), la, 3, &cnt), MC_OK);
    assert_true(cnt == 3 && la[2] == INT64_MAX);
    assert_int_equal(mc_nbt_array_copy_i64(mc_nbt_get(r, "la"), la, 2, &cnt), MC_ERR_RANGE);
    assert_int_equal(mc_nbt_array_copy_i64(mc_nbt_get(r, "ia"), la, 3, &cnt), MC_ERR_TYPE);
    mc_nbt_array view;
    assert_int_equal(mc_nbt_get_array(mc_nbt_get(r, "ia"), MC_NBT_INT_ARRAY, &view), MC_OK);
    assert_int_equal(mc_nbt_array_i32(&view, 1), -2);
    assert_int_equal(mc_nbt_get_array(mc_nbt_get(r, "ia"), MC_NBT_LONG_ARRAY, &view), MC_ERR_TYPE);
    mc_nbt_doc_free(doc);
}

static void test_set_remove_replace(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *r = build_all_types(doc);
    /* put replaces in place */
    assert_int_equal(mc_nbt_put_string(doc, r, "i", "now a string", 12), MC_OK);
    assert_int_equal(mc_nbt_count(r), 12);
    assert_int_equal(mc_nbt_tag_type(mc_nbt_list_at(r, 0)), MC_NBT_END); /* not a list */
    assert_int_equal(mc_nbt_tag_type(mc_nbt_next(mc_nbt_next(mc_nbt_first(r)))), MC_NBT_STRING);
    assert_int_equal(mc_nbt_set_int(mc_nbt_get(r, "i"), 5), MC_ERR_TYPE);
    assert_int_equal(mc_nbt_set_byte(mc_nbt_get(r, "b"), 9), MC_OK);
    assert_int_equal(mc_nbt_remove(r, "b", 1), MC_OK);
    assert_int_equal(mc_nbt_remove(r, "b", 1), MC_ERR_NOT_FOUND);
    assert_null(mc_nbt_get(r, "b"));
    assert_int_equal(mc_nbt_count(r), 11);
    mc_nbt_tag *list = mc_nbt_get(r, "list");
    assert_int_equal(mc_nbt_list_remove(list, 1), MC_OK);
    assert_int_equal(mc_nbt_list_remove(list, 5), MC_ERR_RANGE);
    int32_t k;
    assert_int_equal(mc_nbt_get_int(mc_nbt_path(list, "[1].k"), &k), MC_OK);
    assert_int_equal(k, 2);
    /* replace an array's contents with big-endian bytes */
    const uint8_t be[16] = {0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    assert_int_equal(mc_nbt_set_long_array_be(doc, mc_nbt_get(r, "la"), be, 2), MC_OK);
    int64_t la[2];
    assert_int_equal(mc_nbt_array_copy_i64(mc_nbt_get(r, "la"), la, 2, NULL), MC_OK);
    assert_true(la[0] == 1 && la[1] == -2);
    /* writes stay exact through every encoding */
    for (size_t f = 0; f < 5; f++) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        assert_int_equal(mc_nbt_write(doc, all_formats[f], &b, NULL), MC_OK);
        mc_nbt_doc *d2 = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(d2, b.data, b.len, all_formats[f], NULL, NULL), MC_OK);
        assert_true(mc_nbt_equal(r, mc_nbt_doc_root(d2)));
        mc_nbt_doc_free(d2);
        mc_buf_free(&b);
    }
    mc_nbt_doc_free(doc);
}

static void test_copy_and_equal(void **state)
{
    (void)state;
    mc_nbt_doc *a = mc_nbt_doc_new(NULL), *b = mc_nbt_doc_new(NULL);
    mc_nbt_tag *ra = build_all_types(a);
    mc_nbt_doc *c = mc_nbt_doc_clone(a, NULL);
    assert_true(mc_nbt_equal(ra, mc_nbt_doc_root(c)));
    /* compounds compare as sets: same keys in another order are equal */
    mc_nbt_tag *x = mc_nbt_doc_new_root(b, MC_NBT_COMPOUND);
    for (mc_nbt_tag *t = mc_nbt_first(ra); t; t = mc_nbt_next(t)) {
        /* attach a copy at the front by rebuilding in reverse later */
        (void)t;
    }
    size_t n = mc_nbt_count(ra);
    for (size_t i = n; i-- > 0;) {
        mc_nbt_tag *t = mc_nbt_first(ra);
        for (size_t j = 0; j < i; j++)
            t = mc_nbt_next(t);
        size_t kl;
        const char *key = mc_nbt_tag_key(t, &kl);
        mc_nbt_tag *cp = mc_nbt_copy(b, t);
        assert_non_null(cp);
        assert_int_equal(mc_nbt_attach(b, x, key, kl, cp), MC_OK);
        assert_int_equal(mc_nbt_attach(b, x, key, kl, cp), MC_ERR_INVALID_ARG); /* attached already */
    }
    assert_true(mc_nbt_equal(ra, x));
    /* one change breaks equality */
    mc_nbt_set_double(mc_nbt_path(x, "\"with space\".ll[0][0]"), 2.25);
    assert_false(mc_nbt_equal(ra, x));
    mc_nbt_set_double(mc_nbt_path(x, "\"with space\".ll[0][0]"), 2.5);
    assert_true(mc_nbt_equal(ra, x));
    mc_nbt_put_byte(b, x, "extra", 1);
    assert_false(mc_nbt_equal(ra, x));
    assert_false(mc_nbt_equal(x, ra));
    /* the copy does not depend on the source */
    mc_nbt_doc_free(a);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(c), mc_nbt_doc_root(c)));
    size_t nl;
    const char *rn = mc_nbt_doc_root_name(c, &nl); /* not NUL-terminated */
    assert_true(nl == 4 && !memcmp(rn, "root", 4));
    /* NaN equals the same NaN */
    mc_nbt_tag *r1 = mc_nbt_doc_new_root(b, MC_NBT_DOUBLE);
    mc_nbt_set_double(r1, NAN);
    mc_nbt_tag *r2 = mc_nbt_copy(b, r1);
    assert_true(mc_nbt_equal(r1, r2));
    mc_nbt_doc_free(b);
    mc_nbt_doc_free(c);
}

/* Arrays parsed from Java point into the input, big-endian; from Bedrock
 * disk, little-endian; from Bedrock network, decoded. All read the same. */
static void test_array_views(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *r = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    int64_t la[5] = {0, 1, -1, INT64_MIN, 0x0102030405060708ll};
    mc_nbt_put_long_array(doc, r, "data", la, 5);
    mc_nbt_order want[] = {MC_NBT_ORDER_BE, MC_NBT_ORDER_BE, MC_NBT_ORDER_LE, MC_NBT_ORDER_LE,
                           MC_NBT_ORDER_NATIVE};
    for (size_t f = 0; f < 5; f++) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        assert_int_equal(mc_nbt_write(doc, all_formats[f], &b, NULL), MC_OK);
        mc_nbt_doc *d2 = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(d2, b.data, b.len, all_formats[f], NULL, NULL), MC_OK);
        mc_nbt_array v;
        assert_int_equal(mc_nbt_get_array(mc_nbt_get(mc_nbt_doc_root(d2), "data"), MC_NBT_LONG_ARRAY, &v), MC_OK);
        assert_int_equal(v.order, want[f]);
        assert_int_equal(v.count, 5);
        if (want[f] != MC_NBT_ORDER_NATIVE)
            assert_true(v.data >= b.data && v.data + 40 <= b.data + b.len); /* zero-copy */
        for (size_t i = 0; i < 5; i++)
            assert_true(mc_nbt_array_i64(&v, i) == la[i]);
        if (all_formats[f] == MC_NBT_JAVA)
            assert_true(v.data[7] == 0 && v.data[15] == 1);
        mc_nbt_doc_free(d2);
        mc_buf_free(&b);
    }
    mc_nbt_doc_free(doc);
}

static char *to_snbt(const mc_nbt_tag *t, unsigned flags)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_to_snbt(t, flags, &b), MC_OK);
    mc_buf_put_u8(&b, 0);
    return (char *)b.data;
}

static void test_snbt_print(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *r = build_all_types(doc);
    char *s = to_snbt(r, 0);
    assert_string_equal(s,
        "{b:-5b,s:-30000s,i:-2147483648,l:-9223372036854775807L,f:0.1f,d:-1.0E300d,"
        "str:'h\xc3\xa9llo \"w\" \xf0\x9f\x98\x80',ba:[B;1B,-2B,3B],ia:[I;1,-2,2147483647],"
        "la:[L;1L,-2L,9223372036854775807L],list:[{k:0},{k:1},{k:2}],"
        "\"with space\":{ll:[[2.5d]],empty:[],\"\":{}}}");
    free(s);
    s = to_snbt(mc_nbt_get(r, "list"), MC_NBT_PRINT_PRETTY);
    assert_string_equal(s, "[\n    {\n        k: 0\n    },\n    {\n        k: 1\n    },\n    {\n        k: 2\n    }\n]");
    free(s);
    mc_buf j;
    mc_buf_init(&j, NULL);
    assert_int_equal(mc_nbt_to_json(mc_nbt_get(r, "with space"), 0, &j), MC_OK);
    assert_int_equal(j.len, strlen("{\"ll\":[[2.5]],\"empty\":[],\"\":{}}"));
    assert_memory_equal(j.data, "{\"ll\":[[2.5]],\"empty\":[],\"\":{}}", j.len);
    j.len = 0;
    assert_int_equal(mc_nbt_to_json(mc_nbt_get(r, "str"), 0, &j), MC_OK);
    assert_memory_equal(j.data, "\"h\xc3\xa9llo \\\"w\\\" \xf0\x9f\x98\x80\"", j.len);
    mc_buf_free(&j);
    mc_nbt_doc_free(doc);
}

static void snbt_ok(const char *text, const char *expect_compact)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    if (mc_snbt_parse(doc, text, strlen(text), NULL, &err) != MC_OK)
        fail_msg("'%s': %s", text, err.message);
    char *s = to_snbt(mc_nbt_doc_root(doc), 0);
    if (strcmp(s, expect_compact))
        fail_msg("'%s' printed as '%s', want '%s'", text, s, expect_compact);
    free(s);
    mc_nbt_doc_free(doc);
}

static void snbt_bad(const char *text, mc_status want, const char *needle)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status s = mc_snbt_parse(doc, text, strlen(text), NULL, &err);
    if (s != want)
        fail_msg("'%s': want %s, got %s (%s)", text, mc_status_name(want), mc_status_name(s), err.message);
    if (needle && !strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, err.message, needle);
    assert_null(mc_nbt_doc_root(doc));
    mc_nbt_doc_free(doc);
}

static void test_snbt_parse(void **state)
{
    (void)state;
    snbt_ok("{a:1b, b:2s , c:3, d:4L, e:5.5f, f:6.5d, g:7.5, h:8e3, i:true, j:false}",
            "{a:1b,b:2s,c:3,d:4L,e:5.5f,f:6.5d,g:7.5d,h:8000.0d,i:1b,j:0b}");
    /* suffixes in either case; integers with a d/f suffix */
    snbt_ok("[1B,2b]", "[1b,2b]");
    snbt_ok("{x:1D,y:2F,z:3l,w:4S}", "{x:1.0d,y:2.0f,z:3L,w:4s}");
    /* (the 1.21.5+ number grammar and its errors: test_snbt.c) */
    snbt_ok("[abc,_x,a-b.c+d]", "[\"abc\",\"_x\",\"a-b.c+d\"]");
    snbt_ok("9223372036854775807L", "9223372036854775807L");
    /* quoting and escapes */
    snbt_ok("{'k\"':\"q\\\"\\\\\\n\\t\\u00e9\\x41\\U0001F600\"}",
            "{'k\"':'q\"\\\\\\n\\t\xc3\xa9" "A\xf0\x9f\x98\x80'}");
    /* typed arrays, empty ones, trailing commas, whitespace */
    snbt_ok(" [B; 1b, 2b ,] ", "[B;1B,2B]");
    snbt_ok("[I;]", "[I;]");
    snbt_ok("[L;1L,-2L]", "[L;1L,-2L]");
    snbt_ok("[I;1,2,3]", "[I;1,2,3]");
    snbt_ok("{a:[],b:{},c:[[],[1]],}", "{a:[],b:{},c:[[],[1]]}");
    /* a repeated key keeps the last value */
    snbt_ok("{a:1,b:2,a:3}", "{b:2,a:3}");
    /* the game has no NaN or infinity literal: our printer's NaNd reads
     * back as the string it looks like */
    snbt_ok("[NaNd,Infinityd]", "[\"NaNd\",\"Infinityd\"]");

    snbt_bad("{a:1", MC_ERR_MALFORMED, "expected '}' but the text ended at offset 4");
    snbt_bad("{a 1}", MC_ERR_MALFORMED, "expected ':', found '1' at offset 3");
    snbt_bad("{:1}", MC_ERR_MALFORMED, "expected a key at offset 1");
    snbt_bad("[1,2b,]]", MC_ERR_MALFORMED, "unexpected ']' after the value at offset 7");
    snbt_bad("[X;1]", MC_ERR_MALFORMED, "invalid array type 'X'");
    snbt_bad("[B;1b,{}]", MC_ERR_MALFORMED, "can't insert '{...' into byte_array");
    snbt_bad("[B;1b,300]", MC_ERR_MALFORMED, "out of range for a signed byte at offset 6");
    snbt_bad("\"abc", MC_ERR_MALFORMED, "not closed");
    snbt_bad("\"\\q\"", MC_ERR_MALFORMED, "invalid escape");
    snbt_bad("{a:1} x", MC_ERR_MALFORMED, "after the value at offset 6");
    snbt_bad("", MC_ERR_MALFORMED, "ended");
    snbt_bad("{a:'it''s'}", MC_ERR_MALFORMED, NULL);
    /* depth: 512 nested lists parse, 513 do not */
    for (int depth = 512; depth <= 513; depth++) {
        char *t = malloc(2 * (size_t)depth + 1);
        memset(t, '[', (size_t)depth);
        memset(t + depth, ']', (size_t)depth);
        t[2 * depth] = 0;
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_error err;
        assert_int_equal(mc_snbt_parse(doc, t, strlen(t), NULL, &err), depth <= 512 ? MC_OK : MC_ERR_LIMIT);
        mc_nbt_doc_free(doc);
        free(t);
    }
}

/* SNBT of real chunks parses back to equal trees. */
static void test_snbt_round_trip_corpus(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil/chunk-nbt", "");
    for (char **f = files; *f; f++) {
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *back = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, NULL), MC_OK);
        for (unsigned flags = 0; flags <= MC_NBT_PRINT_PRETTY; flags++) {
            mc_buf b;
            mc_buf_init(&b, NULL);
            assert_int_equal(mc_nbt_to_snbt(mc_nbt_doc_root(doc), flags, &b), MC_OK);
            mc_error err;
            if (mc_snbt_parse(back, (const char *)b.data, b.len, NULL, &err) != MC_OK)
                fail_msg("%s: %s", *f, err.message);
            assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(back)));
            b.len = 0;
            assert_int_equal(mc_nbt_to_json(mc_nbt_doc_root(doc), flags, &b), MC_OK);
            mc_buf_free(&b);
        }
        mc_nbt_doc_free(doc);
        mc_nbt_doc_free(back);
        free(data);
    }
    mc_test_free_list(files);
}

/* Random trees: write/parse in every encoding, and SNBT, give equal trees. */
static mc_nbt_tag *random_tag(mc_nbt_doc *doc, mc_test_rng *rng, mc_nbt_tag *parent, mc_nbt_type type, int depth)
{
    mc_nbt_tag *t;
    char key[8];
    snprintf(key, sizeof key, "k%u", (unsigned)(mc_test_rand(rng) % 1000));
    if (mc_nbt_tag_type(parent) == MC_NBT_LIST)
        t = mc_nbt_list_append(doc, parent, type);
    else
        t = mc_nbt_put(doc, parent, key, strlen(key), type);
    assert_non_null(t);
    uint64_t v = mc_test_rand(rng);
    switch (type) {
    case MC_NBT_BYTE: mc_nbt_set_byte(t, (int8_t)v); break;
    case MC_NBT_SHORT: mc_nbt_set_short(t, (int16_t)v); break;
    case MC_NBT_INT: mc_nbt_set_int(t, (int32_t)v); break;
    case MC_NBT_LONG: mc_nbt_set_long(t, (int64_t)v); break;
    case MC_NBT_FLOAT: mc_nbt_set_float(t, (float)((int32_t)v) / 7.0f); break;
    case MC_NBT_DOUBLE: mc_nbt_set_double(t, (double)(int64_t)v / 3.0); break;
    case MC_NBT_STRING: {
        static const char *const pool[] = {"", "minecraft:stone", "a\0b", "\xc3\xa9\xe2\x82\xac", "\xf0\x9f\x98\x80", "q'\"\\"};
        size_t p = v % 6;
        mc_nbt_set_string(doc, t, pool[p], p == 2 ? 3 : strlen(pool[p]));
        break;
    }
    case MC_NBT_BYTE_ARRAY: { int8_t a[5] = {1, -1, 0, 127, -128}; mc_nbt_set_byte_array(doc, t, a, v % 6); break; }
    case MC_NBT_INT_ARRAY: { int32_t a[3] = {INT32_MIN, -1, 7}; mc_nbt_set_int_array(doc, t, a, v % 4); break; }
    case MC_NBT_LONG_ARRAY: { int64_t a[3] = {INT64_MIN, -1, 7}; mc_nbt_set_long_array(doc, t, a, v % 4); break; }
    case MC_NBT_LIST: {
        mc_nbt_type et = (mc_nbt_type)(1 + mc_test_rand(rng) % 12);
        int n = depth > 4 ? 0 : (int)(mc_test_rand(rng) % 4);
        for (int i = 0; i < n; i++)
            random_tag(doc, rng, t, et, depth + 1);
        break;
    }
    case MC_NBT_COMPOUND: {
        int n = depth > 4 ? 0 : (int)(mc_test_rand(rng) % 6);
        for (int i = 0; i < n; i++)
            random_tag(doc, rng, t, (mc_nbt_type)(1 + mc_test_rand(rng) % 12), depth + 1);
        break;
    }
    default: break;
    }
    return t;
}

static void test_random_trees(void **state)
{
    (void)state;
    mc_test_rng rng = {12345};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *back = mc_nbt_doc_new(NULL);
    mc_buf b;
    mc_buf_init(&b, NULL);
    for (int iter = 0; iter < 300; iter++) {
        mc_nbt_doc_reset(doc);
        mc_nbt_tag *r = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
        for (int i = 0; i < 6; i++)
            random_tag(doc, &rng, r, (mc_nbt_type)(1 + mc_test_rand(&rng) % 12), 0);
        for (size_t f = 0; f < 5; f++) {
            b.len = 0;
            assert_int_equal(mc_nbt_write(doc, all_formats[f], &b, NULL), MC_OK);
            mc_error err;
            if (mc_nbt_parse(back, b.data, b.len, all_formats[f], NULL, &err) != MC_OK)
                fail_msg("iter %d %s: %s", iter, mc_nbt_format_name(all_formats[f]), err.message);
            assert_true(mc_nbt_equal(r, mc_nbt_doc_root(back)));
            /* and the bytes are a fixpoint */
            mc_buf b2;
            mc_buf_init(&b2, NULL);
            assert_int_equal(mc_nbt_write(back, all_formats[f], &b2, NULL), MC_OK);
            assert_true(b2.len == b.len && !memcmp(b2.data, b.data, b.len));
            mc_buf_free(&b2);
        }
        b.len = 0;
        assert_int_equal(mc_nbt_to_snbt(r, iter & 1 ? MC_NBT_PRINT_PRETTY : 0, &b), MC_OK);
        mc_error err;
        if (mc_snbt_parse(back, (const char *)b.data, b.len, NULL, &err) != MC_OK)
            fail_msg("iter %d snbt: %s\n%.*s", iter, err.message, (int)b.len, (const char *)b.data);
        if (!mc_nbt_equal(r, mc_nbt_doc_root(back)))
            fail_msg("iter %d: snbt tree differs\n%.*s", iter, (int)b.len, (const char *)b.data);
    }
    mc_buf_free(&b);
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(back);
}

/* Trees built deeper than the limit are refused by writers and printers. */
static void test_deep_built_tree(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *t = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    for (int i = 0; i < 600; i++)
        t = mc_nbt_put_compound(doc, t, "a");
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_buf_put_u8(&b, 0xAA);
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &b, NULL), MC_ERR_LIMIT);
    assert_int_equal(b.len, 1); /* restored */
    assert_int_equal(mc_nbt_to_snbt(mc_nbt_doc_root(doc), 0, &b), MC_ERR_LIMIT);
    assert_null(mc_nbt_copy(doc, mc_nbt_doc_root(doc)));
    mc_buf_free(&b);
    mc_nbt_doc_free(doc);
    /* the copy's limit holds for leaves too (they are copied without a
     * call of their own): a byte at depth MC_NBT_MAX_DEPTH copies, one
     * level deeper it does not */
    for (int extra = 0; extra < 2; extra++) {
        doc = mc_nbt_doc_new(NULL);
        t = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
        for (int i = 0; i < MC_NBT_MAX_DEPTH - 1 + extra; i++)
            t = mc_nbt_put_compound(doc, t, "a");
        mc_nbt_put_byte(doc, t, "b", 7);
        mc_nbt_tag *cp = mc_nbt_copy(doc, mc_nbt_doc_root(doc));
        if (extra)
            assert_null(cp);
        else
            assert_true(cp && mc_nbt_equal(cp, mc_nbt_doc_root(doc)));
        mc_nbt_doc_free(doc);
    }
}

/* A document reused for many parses stops growing. */
static void test_reuse(void **state)
{
    (void)state;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *r = build_all_types(doc);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &b, NULL), MC_OK);
    (void)r;
    mc_nbt_doc *p = mc_nbt_doc_new(NULL);
    size_t mem = 0;
    for (int i = 0; i < 100; i++) {
        assert_int_equal(mc_nbt_parse(p, b.data, b.len, MC_NBT_JAVA, NULL, NULL), MC_OK);
        if (i == 1)
            mem = mc_nbt_doc_memory(p);
    }
    assert_int_equal(mc_nbt_doc_memory(p), mem);
    mc_buf_free(&b);
    mc_nbt_doc_free(p);
    mc_nbt_doc_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_get),
        cmocka_unit_test(test_set_remove_replace),
        cmocka_unit_test(test_copy_and_equal),
        cmocka_unit_test(test_array_views),
        cmocka_unit_test(test_snbt_print),
        cmocka_unit_test(test_snbt_parse),
        cmocka_unit_test(test_snbt_round_trip_corpus),
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_deep_built_tree),
        cmocka_unit_test(test_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
