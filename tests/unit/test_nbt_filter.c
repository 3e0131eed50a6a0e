/*
 * test_nbt_filter.c: parsing with a key filter (mc_nbt_parse_filtered) and
 * the chunk reader's lean parse built on it (mc_chunknbt_parse).
 *
 *  - random trees of every tag type in the fixed-size encodings: the
 *    filtered tree holds exactly the kept keys, each equal to the full
 *    parse's value, and nothing of the declined ones; the filter is asked
 *    with the right depth and parent key;
 *  - skipped values are still checked: truncation at every byte, random
 *    byte mutations (whatever the full parse accepts, the filtered one
 *    accepts with the same kept values), depth bombs, negative lengths,
 *    lists of end tags inside a declined value;
 *  - real chunks: reading a lean parse gives the same column as reading
 *    the full parse with the same flags.
 */
#include "support.h"
#include "corpus_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunk.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/nbt.h"
#include "mcchunk/palette.h"

/* Declines keys starting with 'x' at depth 1, and keys starting with 'y'
 * at depth 2 inside a compound named "Level"; counts the questions. */
typedef struct {
    unsigned asked;
    unsigned bad_depth;
} rule_stats;

static bool rule(unsigned depth, const char *parent, size_t plen, const char *key, size_t klen)
{
    if (depth == 1)
        return !(klen && key[0] == 'x');
    if (depth == 2 && plen == 5 && !memcmp(parent, "Level", 5))
        return !(klen && key[0] == 'y');
    return true;
}

static bool keep_fn(void *user, unsigned depth, const char *parent, size_t plen, const char *key,
                    size_t klen)
{
    rule_stats *s = user;
    s->asked++;
    if (depth == 0 || depth > 2)
        s->bad_depth++;
    return rule(depth, parent, plen, key, klen);
}

/* ---------------------------------------------------------- generation */

static const char *const key_starts[] = {"x", "y", "Level", "a", "b", "z"};

static void random_key(mc_test_rng *r, char *key, size_t cap, int index)
{
    const char *s = key_starts[mc_test_rand(r) % 6];
    if (!strcmp(s, "Level") && mc_test_rand(r) % 2)
        snprintf(key, cap, "Level");
    else
        snprintf(key, cap, "%s%d", s, index);
}

static void fill(mc_test_rng *r, mc_nbt_doc *doc, mc_nbt_tag *parent, int depth);

static void put_value(mc_test_rng *r, mc_nbt_doc *doc, mc_nbt_tag *c, const char *key, int depth)
{
    unsigned kind = (unsigned)(mc_test_rand(r) % (depth < 4 ? 14 : 11));
    int8_t b[40];
    int32_t iv[20];
    int64_t lv[12];
    size_t n = (size_t)(mc_test_rand(r) % 12);
    for (size_t i = 0; i < 40; i++)
        b[i] = (int8_t)mc_test_rand(r);
    for (size_t i = 0; i < 20; i++)
        iv[i] = (int32_t)mc_test_rand(r);
    for (size_t i = 0; i < 12; i++)
        lv[i] = (int64_t)mc_test_rand(r);
    switch (kind) {
    case 0: assert_int_equal(mc_nbt_put_byte(doc, c, key, b[0]), MC_OK); break;
    case 1: assert_int_equal(mc_nbt_put_short(doc, c, key, (int16_t)iv[0]), MC_OK); break;
    case 2: assert_int_equal(mc_nbt_put_int(doc, c, key, iv[1]), MC_OK); break;
    case 3: assert_int_equal(mc_nbt_put_long(doc, c, key, lv[0]), MC_OK); break;
    case 4: assert_int_equal(mc_nbt_put_float(doc, c, key, 1.5f), MC_OK); break;
    case 5: assert_int_equal(mc_nbt_put_double(doc, c, key, -2.25), MC_OK); break;
    case 6: assert_int_equal(mc_nbt_put_string(doc, c, key, "minecraft:stone", n), MC_OK); break;
    case 7: assert_int_equal(mc_nbt_put_byte_array(doc, c, key, b, n * 3), MC_OK); break;
    case 8: assert_int_equal(mc_nbt_put_int_array(doc, c, key, iv, n), MC_OK); break;
    case 9: assert_int_equal(mc_nbt_put_long_array(doc, c, key, lv, n), MC_OK); break;
    case 10: { /* list of scalars or strings */
        static const mc_nbt_type et[] = {MC_NBT_BYTE, MC_NBT_INT, MC_NBT_LONG, MC_NBT_DOUBLE, MC_NBT_STRING};
        mc_nbt_type t = et[mc_test_rand(r) % 5];
        mc_nbt_tag *l = mc_nbt_put_list(doc, c, key, n ? t : MC_NBT_END);
        assert_non_null(l);
        for (size_t i = 0; i < n; i++) {
            mc_nbt_tag *e = mc_nbt_list_append(doc, l, t);
            assert_non_null(e);
            if (t == MC_NBT_STRING)
                assert_int_equal(mc_nbt_set_string(doc, e, "abc", i % 4), MC_OK);
            else if (t == MC_NBT_INT)
                assert_int_equal(mc_nbt_set_int(e, iv[i % 20]), MC_OK);
        }
        break;
    }
    case 11: case 12: { /* compound */
        mc_nbt_tag *cc = mc_nbt_put_compound(doc, c, key);
        assert_non_null(cc);
        fill(r, doc, cc, depth + 1);
        break;
    }
    default: { /* list of compounds or of lists */
        bool lists = mc_test_rand(r) % 3 == 0;
        mc_nbt_tag *l = mc_nbt_put_list(doc, c, key, lists ? MC_NBT_LIST : MC_NBT_COMPOUND);
        assert_non_null(l);
        for (size_t i = 0; i < n % 5; i++) {
            mc_nbt_tag *e = mc_nbt_list_append(doc, l, lists ? MC_NBT_LIST : MC_NBT_COMPOUND);
            assert_non_null(e);
            if (!lists) {
                fill(r, doc, e, depth + 2);
            } else if (i % 2) {
                mc_nbt_tag *x = mc_nbt_list_append(doc, e, MC_NBT_SHORT);
                assert_non_null(x);
            }
        }
        break;
    }
    }
}

static void fill(mc_test_rng *r, mc_nbt_doc *doc, mc_nbt_tag *parent, int depth)
{
    int n = (int)(mc_test_rand(r) % 7);
    for (int i = 0; i < n; i++) {
        char key[32];
        random_key(r, key, sizeof key, i);
        if (mc_nbt_get(parent, key))
            continue;
        put_value(r, doc, parent, key, depth);
    }
}

/* ------------------------------------------------------------ checking */

/* f is the filtered counterpart of the fully parsed a; `frame` is the
 * nesting depth of a's own frame (the root compound: 1). */
static void check_same(const mc_nbt_tag *a, const mc_nbt_tag *f, unsigned frame, unsigned max_depth)
{
    assert_int_equal(mc_nbt_tag_type(a), mc_nbt_tag_type(f));
    if (mc_nbt_tag_type(a) == MC_NBT_LIST) {
        assert_int_equal(mc_nbt_count(a), mc_nbt_count(f));
        mc_nbt_tag *y = mc_nbt_first(f);
        for (mc_nbt_tag *x = mc_nbt_first(a); x; x = mc_nbt_next(x), y = mc_nbt_next(y))
            check_same(x, y, frame + 1, max_depth);
        return;
    }
    if (mc_nbt_tag_type(a) != MC_NBT_COMPOUND || frame > max_depth) {
        assert_true(mc_nbt_equal(a, f));
        return;
    }
    size_t plen = 0;
    const char *parent = mc_nbt_tag_key(a, &plen);
    if (!parent) {
        parent = "";
        plen = 0;
    }
    size_t kept = 0;
    for (mc_nbt_tag *x = mc_nbt_first(a); x; x = mc_nbt_next(x)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(x, &kl);
        char key[64];
        assert_true(kl < sizeof key);
        memcpy(key, k, kl);
        key[kl] = '\0';
        mc_nbt_tag *y = mc_nbt_get(f, key);
        if (rule(frame, parent, plen, k, kl)) {
            assert_non_null(y);
            check_same(x, y, frame + 1, max_depth);
            kept++;
        } else {
            assert_null(y);
        }
    }
    assert_int_equal(mc_nbt_count(f), kept);
}

static const mc_nbt_format fixed_formats[] = {MC_NBT_JAVA, MC_NBT_JAVA_NETWORK, MC_NBT_BEDROCK,
                                              MC_NBT_BEDROCK_LEVEL_DAT};

static void test_random_trees(void **state)
{
    (void)state;
    mc_test_rng r = {0x5eed0f17e5ull};
    mc_nbt_doc *src = mc_nbt_doc_new(NULL), *full = mc_nbt_doc_new(NULL), *filt = mc_nbt_doc_new(NULL);
    mc_buf b;
    mc_buf_init(&b, NULL);
    unsigned declined_total = 0;
    for (int round = 0; round < 400; round++) {
        mc_nbt_tag *root = mc_nbt_doc_new_root(src, MC_NBT_COMPOUND);
        assert_non_null(root);
        fill(&r, src, root, 0);
        if (round % 4 == 0) {
            /* a chunk-like Level wrapper with keys to decline inside */
            mc_nbt_tag *lv = mc_nbt_get(root, "Level");
            if (!lv || mc_nbt_tag_type(lv) != MC_NBT_COMPOUND)
                lv = mc_nbt_put_compound(src, root, "Level2") ? mc_nbt_get(root, "Level2") : NULL;
            if (lv && mc_nbt_tag_type(lv) == MC_NBT_COMPOUND)
                fill(&r, src, lv, 1);
        }
        for (size_t fi = 0; fi < sizeof fixed_formats / sizeof fixed_formats[0]; fi++) {
            mc_nbt_format fmt = fixed_formats[fi];
            b.len = 0;
            assert_int_equal(mc_nbt_write(src, fmt, &b, NULL), MC_OK);
            assert_int_equal(mc_nbt_parse(full, b.data, b.len, fmt, NULL, NULL), MC_OK);
            rule_stats st = {0, 0};
            mc_nbt_filter f = {2, keep_fn, &st, NULL, false};
            mc_error err;
            mc_error_clear(&err);
            assert_int_equal(mc_nbt_parse_filtered(filt, b.data, b.len, fmt, 0, &f, NULL, NULL, &err), MC_OK);
            assert_int_equal(st.bad_depth, 0);
            check_same(mc_nbt_doc_root(full), mc_nbt_doc_root(filt), 1, 2);
            declined_total += (unsigned)(mc_nbt_count(mc_nbt_doc_root(full)) -
                                         mc_nbt_count(mc_nbt_doc_root(filt)));
        }
    }
    assert_true(declined_total > 200); /* the rule did decline things */
    mc_buf_free(&b);
    mc_nbt_doc_free(src);
    mc_nbt_doc_free(full);
    mc_nbt_doc_free(filt);
}

static bool decline_x(void *user, unsigned depth, const char *parent, size_t plen, const char *key, size_t klen)
{
    (void)user;
    return rule(depth, parent, plen, key, klen);
}

/* A Java document whose root holds a large declined subtree "xbig" (lists
 * of compounds, arrays, strings) between two kept keys. */
static void big_declined_doc(mc_buf *b)
{
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = mc_nbt_doc_new_root(d, MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_int(d, root, "a", 7), MC_OK);
    mc_nbt_tag *big = mc_nbt_put_compound(d, root, "xbig");
    mc_nbt_tag *ticks = mc_nbt_put_list(d, big, "ticks", MC_NBT_COMPOUND);
    for (int i = 0; i < 6; i++) {
        mc_nbt_tag *t = mc_nbt_list_append(d, ticks, MC_NBT_COMPOUND);
        assert_int_equal(mc_nbt_put_string(d, t, "i", "minecraft:water", 15), MC_OK);
        assert_int_equal(mc_nbt_put_int(d, t, "x", i), MC_OK);
        int64_t l[3] = {1, 2, 3};
        assert_int_equal(mc_nbt_put_long_array(d, t, "l", l, 3), MC_OK);
        mc_nbt_tag *ll = mc_nbt_put_list(d, t, "ll", MC_NBT_LIST);
        mc_nbt_tag *inner = mc_nbt_list_append(d, ll, MC_NBT_LIST);
        assert_non_null(mc_nbt_list_append(d, inner, MC_NBT_FLOAT));
    }
    /* tick lists stepped over by shape (skip_shaped): flat compounds, some
     * of them different (an extra key, another type, a longer key, another
     * string length) so that the fast path stops and resumes */
    mc_nbt_tag *xt = mc_nbt_put_list(d, root, "xticks", MC_NBT_COMPOUND);
    for (int i = 0; i < 40; i++) {
        mc_nbt_tag *t = mc_nbt_list_append(d, xt, MC_NBT_COMPOUND);
        const char *id = i % 7 == 3 ? "minecraft:lava" : "minecraft:water";
        assert_int_equal(mc_nbt_put_string(d, t, "i", id, strlen(id)), MC_OK);
        assert_int_equal(mc_nbt_put_int(d, t, "x", i), MC_OK);
        if (i == 17)
            assert_int_equal(mc_nbt_put_long(d, t, "y", i), MC_OK);
        else
            assert_int_equal(mc_nbt_put_int(d, t, "y", -i), MC_OK);
        assert_int_equal(mc_nbt_put_int(d, t, "z", i * 3), MC_OK);
        assert_int_equal(mc_nbt_put_long(d, t, "t", 1000 + i), MC_OK);
        assert_int_equal(mc_nbt_put_byte(d, t, "p", 0), MC_OK);
        if (i == 25)
            assert_int_equal(mc_nbt_put_byte(d, t, "extra", 1), MC_OK);
        if (i == 31)
            assert_int_equal(mc_nbt_put_short(d, t, "longerkey", 1), MC_OK);
    }
    assert_int_equal(mc_nbt_put_string(d, root, "z", "end", 3), MC_OK);
    b->len = 0;
    assert_int_equal(mc_nbt_write(d, MC_NBT_JAVA, b, NULL), MC_OK);
    mc_nbt_doc_free(d);
}

/* take(): a value it reads is not stepped over by the parser (the parse
 * goes on where it says); NULL or a position beyond the input means "step
 * over it as usual". */
typedef struct take_state {
    int mode; /* 0: take "xarr" by its length, 1: NULL, 2: past the end */
    unsigned calls, taken;
    unsigned type;
} take_state;

static const uint8_t *take_x(void *user, unsigned depth, const char *key, size_t key_len, unsigned type,
                             const uint8_t *value, const uint8_t *end)
{
    take_state *t = user;
    assert_int_equal(depth, 1);
    t->calls++;
    if (!(key_len == 4 && !memcmp(key, "xarr", 4)))
        return NULL;
    t->type = type;
    if (t->mode == 1)
        return NULL;
    if (t->mode == 2)
        return end + 1;
    if (end - value < 4)
        return NULL;
    uint32_t n = mc_load_u32be(value);
    if ((uint64_t)n * 8 > (uint64_t)(end - value - 4))
        return NULL;
    t->taken++;
    return value + 4 + (size_t)n * 8;
}

static void test_take(void **state)
{
    (void)state;
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = mc_nbt_doc_new_root(d, MC_NBT_COMPOUND);
    int64_t l[5] = {1, -2, 3, -4, 5};
    assert_int_equal(mc_nbt_put_int(d, root, "a", 7), MC_OK);
    assert_int_equal(mc_nbt_put_long_array(d, root, "xarr", l, 5), MC_OK);
    assert_int_equal(mc_nbt_put_string(d, root, "xs", "hello", 5), MC_OK);
    assert_int_equal(mc_nbt_put_string(d, root, "z", "end", 3), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(d, MC_NBT_JAVA, &b, NULL), MC_OK);
    mc_nbt_doc_free(d);
    mc_nbt_doc *plain = mc_nbt_doc_new(NULL), *doc = mc_nbt_doc_new(NULL);
    mc_nbt_filter f0 = {1, decline_x, NULL, NULL, false};
    assert_int_equal(mc_nbt_parse_filtered(plain, b.data, b.len, MC_NBT_JAVA, 0, &f0, NULL, NULL, NULL), MC_OK);
    assert_int_equal(mc_nbt_count(mc_nbt_doc_root(plain)), 2);
    for (int mode = 0; mode < 3; mode++) {
        take_state t = {mode, 0, 0, 0};
        mc_nbt_filter f = {1, decline_x, &t, take_x, false};
        assert_int_equal(mc_nbt_parse_filtered(doc, b.data, b.len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_OK);
        assert_int_equal(t.calls, 2); /* xarr and xs */
        assert_int_equal(t.type, MC_NBT_LONG_ARRAY);
        assert_int_equal(t.taken, mode == 0 ? 1 : 0);
        /* the same tree whoever stepped over the value */
        assert_true(mc_nbt_equal(mc_nbt_doc_root(plain), mc_nbt_doc_root(doc)));
        /* truncated input: every cut still fails (taken or not) */
        for (size_t n = 0; n < b.len; n++)
            assert_int_not_equal(mc_nbt_parse_filtered(doc, b.data, n, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_OK);
    }
    mc_nbt_doc_free(plain);
    mc_nbt_doc_free(doc);
    mc_buf_free(&b);
}

/* A Java tag's type id and key. */
static void put_head(mc_buf *b, uint8_t type, const char *key)
{
    mc_buf_put_u8(b, type);
    mc_buf_put_u16be(b, (uint16_t)strlen(key));
    mc_buf_put(b, key, strlen(key));
}

/* Java bytes of root { a: 1, x: <declined value of `bad`>, z: "end" }: a
 * string, a key and a tick list (stepped over by shape) holding bytes that
 * are not modified UTF-8 (0xFF) in a declined value. */
static void text_doc(mc_buf *b, int bad)
{
    b->len = 0;
    put_head(b, 10, ""); /* the root */
    put_head(b, 3, "a");
    mc_buf_put_u32be(b, 1);
    if (bad == 0) { /* x: "ab\xff" */
        put_head(b, 8, "x");
        mc_buf_put_u16be(b, 3);
        mc_buf_put(b, "ab\xff", 3);
    } else if (bad == 1) { /* x: { "k\xff": 1b } */
        put_head(b, 10, "x");
        mc_buf_put_u8(b, 1);
        mc_buf_put_u16be(b, 2);
        mc_buf_put(b, "k\xff", 2);
        mc_buf_put_u8(b, 1);
        mc_buf_put_u8(b, 0);
    } else { /* x: 8 x { i: "minecraft:stone", t: 1 }, the 6th i ends in 0xff */
        put_head(b, 9, "x");
        mc_buf_put_u8(b, 10);
        mc_buf_put_u32be(b, 8);
        for (int i = 0; i < 8; i++) {
            put_head(b, 8, "i");
            mc_buf_put_u16be(b, 15);
            mc_buf_put(b, i == 5 ? "minecraft:ston\xff" : "minecraft:stone", 15);
            put_head(b, 3, "t");
            mc_buf_put_u32be(b, (uint32_t)i);
            mc_buf_put_u8(b, 0);
        }
    }
    put_head(b, 8, "z");
    mc_buf_put_u16be(b, 3);
    mc_buf_put(b, "end", 3);
    mc_buf_put_u8(b, 0);
}

static void test_check_text(void **state)
{
    (void)state;
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_nbt_filter loose = {1, decline_x, NULL, NULL, false}, strict = {1, decline_x, NULL, NULL, true};
    for (int bad = 0; bad < 3; bad++) {
        text_doc(&b, bad);
        mc_error err;
        mc_error_clear(&err);
        /* the full parse refuses it, and so does a filtered one that checks text */
        assert_int_equal(mc_nbt_parse(d, b.data, b.len, MC_NBT_JAVA, NULL, NULL), MC_ERR_MALFORMED);
        assert_int_equal(mc_nbt_parse_filtered(d, b.data, b.len, MC_NBT_JAVA, 0, &strict, NULL, NULL, &err),
                         MC_ERR_MALFORMED);
        assert_non_null(strstr(err.message, "modified UTF-8"));
        assert_non_null(strstr(err.message, bad == 1 ? "key" : "string"));
        /* the offset is the bad byte's */
        assert_int_equal(b.data[err.offset], 0xff);
        /* one that checks the structure only steps over it */
        assert_int_equal(mc_nbt_parse_filtered(d, b.data, b.len, MC_NBT_JAVA, 0, &loose, NULL, NULL, NULL), MC_OK);
        assert_int_equal(mc_nbt_count(mc_nbt_doc_root(d)), 2);
    }
    mc_buf_free(&b);
    mc_nbt_doc_free(d);
}

static void test_parse_into(void **state)
{
    (void)state;
    /* tags of a compound's payload, as a reader keeps them */
    mc_nbt_doc *src = mc_nbt_doc_new(NULL);
    mc_nbt_tag *sr = mc_nbt_doc_new_root(src, MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_int(src, sr, "b", 2), MC_OK);
    mc_nbt_tag *l = mc_nbt_put_list(src, sr, "list", MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_string(src, mc_nbt_list_append(src, l, MC_NBT_COMPOUND), "s", "caf\xc3\xa9", 5), MC_OK);
    assert_int_equal(mc_nbt_put_string(src, sr, "c", "new", 3), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(src, MC_NBT_JAVA, &b, NULL), MC_OK);
    /* the payload: after the root's type and empty name */
    uint8_t *payload = malloc(b.len);
    const size_t plen = b.len - 3;
    memcpy(payload, b.data + 3, plen);

    for (int copy = 0; copy < 2; copy++) {
        mc_nbt_doc *d = mc_nbt_doc_new(NULL);
        mc_nbt_tag *root = mc_nbt_doc_new_root(d, MC_NBT_COMPOUND);
        assert_int_equal(mc_nbt_put_int(d, root, "a", 1), MC_OK);
        assert_int_equal(mc_nbt_put_string(d, root, "c", "old", 3), MC_OK);
        mc_nbt_tag *keep = mc_nbt_put_compound(d, root, "k");
        assert_int_equal(mc_nbt_parse_into(d, keep, payload, plen, MC_NBT_JAVA, copy ? MC_NBT_PARSE_COPY : 0, NULL),
                         MC_OK);
        assert_true(mc_nbt_equal(keep, sr));
        /* into the root: "c" replaced, the others kept, new ones after */
        assert_int_equal(mc_nbt_parse_into(d, root, payload, plen, MC_NBT_JAVA, copy ? MC_NBT_PARSE_COPY : 0, NULL),
                         MC_OK);
        assert_int_equal(mc_nbt_count(root), 5); /* a, k, b, list, c */
        const char *want[] = {"a", "k", "b", "list", "c"};
        size_t i = 0;
        for (mc_nbt_tag *t = mc_nbt_first(root); t; t = mc_nbt_next(t), i++) {
            size_t kl;
            const char *k = mc_nbt_tag_key(t, &kl);
            assert_int_equal(kl, strlen(want[i]));
            assert_memory_equal(k, want[i], kl);
        }
        const char *cs;
        size_t cl;
        assert_int_equal(mc_nbt_get_string(mc_nbt_get(root, "c"), &cs, &cl), MC_OK);
        assert_int_equal(cl, 3);
        assert_memory_equal(cs, "new", 3);
        /* with a copy the tree no longer needs the caller's bytes */
        if (copy) {
            memset(payload, 0xee, plen);
            assert_true(mc_nbt_equal(mc_nbt_get(root, "list"), mc_nbt_get(sr, "list")));
            memcpy(payload, b.data + 3, plen);
        }
        /* the document still writes (the tree is whole) */
        mc_buf w;
        mc_buf_init(&w, NULL);
        assert_int_equal(mc_nbt_write(d, MC_NBT_JAVA, &w, NULL), MC_OK);
        mc_buf_free(&w);
        /* failures leave the compound as it was: every cut, a missing end
         * tag, bytes after it, a bad byte inside */
        mc_nbt_tag *e = mc_nbt_put_compound(d, root, "e");
        for (size_t n = 0; n < plen; n++) {
            mc_error err;
            mc_error_clear(&err);
            assert_int_not_equal(mc_nbt_parse_into(d, e, payload, n, MC_NBT_JAVA, 0, &err), MC_OK);
            assert_true(err.message[0] != '\0');
            assert_int_equal(mc_nbt_count(e), 0);
        }
        uint8_t *more = malloc(plen + 1);
        memcpy(more, payload, plen);
        more[plen] = 0;
        mc_error err;
        assert_int_equal(mc_nbt_parse_into(d, e, more, plen + 1, MC_NBT_JAVA, 0, &err), MC_ERR_MALFORMED);
        assert_non_null(strstr(err.message, "after the end tag"));
        assert_int_equal(mc_nbt_count(e), 0);
        free(more);
        /* not a compound, no compound */
        assert_int_equal(mc_nbt_parse_into(d, mc_nbt_get(root, "a"), payload, plen, MC_NBT_JAVA, 0, NULL), MC_ERR_TYPE);
        assert_int_equal(mc_nbt_parse_into(d, NULL, payload, plen, MC_NBT_JAVA, 0, NULL), MC_ERR_INVALID_ARG);
        assert_int_equal(mc_nbt_parse_into(d, e, payload, plen, MC_NBT_BEDROCK_NETWORK, 0, NULL), MC_ERR_UNSUPPORTED);
        /* an empty payload (just the end tag) adds nothing */
        static const uint8_t end_only[] = {0};
        assert_int_equal(mc_nbt_parse_into(d, e, end_only, 1, MC_NBT_JAVA, 0, NULL), MC_OK);
        assert_int_equal(mc_nbt_count(e), 0);
        mc_nbt_doc_free(d);
    }
    free(payload);
    mc_buf_free(&b);
    mc_nbt_doc_free(src);
}

static void test_truncation_and_mutation(void **state)
{
    (void)state;
    mc_buf b;
    mc_buf_init(&b, NULL);
    big_declined_doc(&b);
    mc_nbt_doc *full = mc_nbt_doc_new(NULL), *filt = mc_nbt_doc_new(NULL);
    mc_nbt_filter f = {2, decline_x, NULL, NULL, false};
    assert_int_equal(mc_nbt_parse_filtered(filt, b.data, b.len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_OK);
    assert_null(mc_nbt_get(mc_nbt_doc_root(filt), "xbig"));
    assert_null(mc_nbt_get(mc_nbt_doc_root(filt), "xticks"));
    assert_int_equal(mc_nbt_count(mc_nbt_doc_root(filt)), 2);
    const char *zs = NULL;
    size_t zl = 0;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_nbt_doc_root(filt), "z"), &zs, &zl), MC_OK);
    assert_int_equal(zl, 3);
    assert_memory_equal(zs, "end", 3);
    for (size_t n = 0; n < b.len; n++) {
        mc_error err;
        mc_error_clear(&err);
        mc_status st = mc_nbt_parse_filtered(filt, b.data, n, MC_NBT_JAVA, 0, &f, NULL, NULL, &err);
        assert_int_not_equal(st, MC_OK);
        assert_true(err.message[0] != '\0');
        assert_null(mc_nbt_doc_root(filt));
    }
    /* mutations: what the full parse accepts, the filtered one accepts too,
     * with the kept keys equal */
    mc_nbt_filter ft = {2, decline_x, NULL, NULL, true};
    mc_test_rng r = {42};
    uint8_t *m = malloc(b.len);
    unsigned both = 0, text_errors = 0;
    for (int i = 0; i < 40000; i++) {
        memcpy(m, b.data, b.len);
        int flips = 1 + (int)(mc_test_rand(&r) % 3);
        for (int k = 0; k < flips; k++)
            m[mc_test_rand(&r) % b.len] = (uint8_t)mc_test_rand(&r);
        mc_error ea;
        mc_error_clear(&ea);
        mc_status a = mc_nbt_parse(full, m, b.len, MC_NBT_JAVA, NULL, &ea);
        /* with check_text, exactly what the full parse accepts */
        mc_status ct = mc_nbt_parse_filtered(filt, m, b.len, MC_NBT_JAVA, 0, &ft, NULL, NULL, NULL);
        assert_int_equal(ct == MC_OK, a == MC_OK);
        text_errors += a != MC_OK && strstr(ea.message, "UTF-8") != NULL;
        mc_status c = mc_nbt_parse_filtered(filt, m, b.len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL);
        /* structure errors are found in declined values too; only string
         * contents are not decoded there */
        if (a != MC_OK && !strstr(ea.message, "UTF-8"))
            assert_int_not_equal(c, MC_OK);
        if (a == MC_OK) {
            assert_int_equal(c, MC_OK);
            check_same(mc_nbt_doc_root(full), mc_nbt_doc_root(filt), 1, 2);
            both++;
        } /* else c may be MC_OK: bad modified UTF-8 inside a declined string */
    }
    assert_true(both > 100);
    assert_true(text_errors > 10);
    free(m);
    mc_buf_free(&b);
    mc_nbt_doc_free(full);
    mc_nbt_doc_free(filt);
}

/* Java bytes of root {a: 7, xt: [ticks...], z: "end"}: n flat compounds of
 * one shape, the children in `order` (i: a string, b/c/d: bytes, s: a
 * short, l: a long, other letters: ints), string lengths varying (some over 32
 * bytes, one not plain ASCII) so that every word of both runs of the
 * shape-matched skip holds header bytes somewhere. */
static void tick_doc(mc_buf *b, const char *order, int n, mc_nbt_format format)
{
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = mc_nbt_doc_new_root(d, MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_int(d, root, "a", 7), MC_OK);
    mc_nbt_tag *xt = mc_nbt_put_list(d, root, "xt", MC_NBT_COMPOUND);
    static const char *const ids[] = {"minecraft:oak_leaves", "minecraft:water", "minecraft:lava",
                                      "minecraft:weeping_vines_plant_and_more_x", "minecraft:caf\xc3\xa9",
                                      ""};
    for (int i = 0; i < n; i++) {
        mc_nbt_tag *t = mc_nbt_list_append(d, xt, MC_NBT_COMPOUND);
        const char *id = ids[i % 6];
        for (const char *k = order; *k; k++) {
            const char key[2] = {*k, 0};
            switch (*k) {
            case 'i': assert_int_equal(mc_nbt_put_string(d, t, key, id, strlen(id)), MC_OK); break;
            case 'b': case 'c': case 'd': assert_int_equal(mc_nbt_put_byte(d, t, key, (int8_t)i), MC_OK); break;
            case 's': assert_int_equal(mc_nbt_put_short(d, t, key, (int16_t)(i * 7)), MC_OK); break;
            case 'l': assert_int_equal(mc_nbt_put_long(d, t, key, -i), MC_OK); break;
            default: assert_int_equal(mc_nbt_put_int(d, t, key, i * 31 - 5), MC_OK); break;
            }
        }
    }
    assert_int_equal(mc_nbt_put_string(d, root, "z", "end", 3), MC_OK);
    b->len = 0;
    assert_int_equal(mc_nbt_write(d, format, b, NULL), MC_OK);
    mc_nbt_doc_free(d);
}

/* Tick lists of the game's shape (p, t, x, i, y, z) and others whose runs
 * fill one to four words: every byte of the list changed in turn (three
 * ways), and cut at every length, in Java's and Bedrock's byte order. The
 * filtered parse that checks text accepts exactly what the full parse
 * accepts, with the same kept values; without the text check it still
 * fails on every structural error. */
static void test_tick_shapes_every_byte(void **state)
{
    (void)state;
    /* runs (bytes before the string's length, after its contents); up to
     * 32 bytes each the SSE2 loop takes the shape, else the word loop */
    static const char *const shapes[] = {
        "ptxiyz",  /* vanilla 1.18+: 28 and 17 */
        "ixyz",    /* the string first: 4 and 25 */
        "lxisyzb", /* 24 and 28 */
        "ipts",    /* 4 and 23 */
        "ixybcd",  /* 4 and 32 */
        "lxyiz",   /* 32 and 9 */
        "pitxyzb", /* 12 and 38: the word loop */
        "ptxyi",   /* the string last: 36 and 1 */
        "xyzblsi", /* 51 and 1 */
    };
    mc_nbt_doc *full = mc_nbt_doc_new(NULL), *filt = mc_nbt_doc_new(NULL);
    mc_nbt_filter ft = {2, decline_x, NULL, NULL, true}, f = {2, decline_x, NULL, NULL, false};
    mc_buf b;
    mc_buf_init(&b, NULL);
    unsigned accepted = 0, rejected = 0;
    static const mc_nbt_format formats[] = {MC_NBT_JAVA, MC_NBT_BEDROCK};
    for (size_t s = 0; s < 2 * (sizeof shapes / sizeof shapes[0]); s++) {
        const mc_nbt_format fmt = formats[s & 1];
        tick_doc(&b, shapes[s / 2], 13, fmt);
        assert_int_equal(mc_nbt_parse_filtered(filt, b.data, b.len, fmt, 0, &ft, NULL, NULL, NULL), MC_OK);
        assert_int_equal(mc_nbt_count(mc_nbt_doc_root(filt)), 2);
        uint8_t *m = malloc(b.len);
        assert_non_null(m);
        for (size_t at = 0; at < b.len; at++) {
            static const uint8_t flips[] = {0x01, 0x80, 0xFF};
            for (size_t k = 0; k < sizeof flips; k++) {
                memcpy(m, b.data, b.len);
                m[at] ^= flips[k];
                mc_error ea;
                mc_error_clear(&ea);
                mc_status a = mc_nbt_parse(full, m, b.len, fmt, NULL, &ea);
                mc_status ct = mc_nbt_parse_filtered(filt, m, b.len, fmt, 0, &ft, NULL, NULL, NULL);
                if ((ct == MC_OK) != (a == MC_OK))
                    fail_msg("shape %s (format %d), byte %zu ^ 0x%02x: full parse %d, filtered %d",
                             shapes[s / 2], (int)fmt, at, flips[k], a, ct);
                if (a == MC_OK)
                    check_same(mc_nbt_doc_root(full), mc_nbt_doc_root(filt), 1, 2);
                mc_status c = mc_nbt_parse_filtered(filt, m, b.len, fmt, 0, &f, NULL, NULL, NULL);
                if (a != MC_OK && !strstr(ea.message, "UTF-8") && c == MC_OK)
                    fail_msg("shape %s (format %d), byte %zu ^ 0x%02x: unchecked filtered parse took it",
                             shapes[s / 2], (int)fmt, at, flips[k]);
                accepted += a == MC_OK;
                rejected += a != MC_OK;
            }
        }
        for (size_t n = 0; n < b.len; n++)
            assert_int_not_equal(mc_nbt_parse_filtered(filt, b.data, n, fmt, 0, &ft, NULL, NULL, NULL), MC_OK);
        free(m);
    }
    assert_true(accepted > 1000); /* changed int values, string bytes */
    assert_true(rejected > 1000); /* changed headers, lengths, end tags */
    mc_buf_free(&b);
    mc_nbt_doc_free(full);
    mc_nbt_doc_free(filt);
}

/* Java bytes of root { x: [[[... one empty byte list ...]]] } with `levels`
 * lists inside x. */
static void nested_lists(mc_buf *b, int levels)
{
    b->len = 0;
    put_head(b, 10, ""); /* the root */
    put_head(b, 9, "x");
    for (int i = 0; i < levels; i++) {
        mc_buf_put_u8(b, 9);
        mc_buf_put_u32be(b, 1);
    }
    mc_buf_put_u8(b, 1);
    mc_buf_put_u32be(b, 0);
    mc_buf_put_u8(b, 0);
}

static void test_hostile_declined_values(void **state)
{
    (void)state;
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_nbt_filter f = {1, decline_x, NULL, NULL, false};
    mc_error err;
    /* root { x: list of lists of lists ... } nested past the depth limit */
    mc_buf b;
    mc_buf_init(&b, NULL);
    nested_lists(&b, 600);
    mc_error_clear(&err);
    assert_int_equal(mc_nbt_parse_filtered(d, b.data, b.len, MC_NBT_JAVA, 0, &f, NULL, NULL, &err), MC_ERR_LIMIT);
    assert_non_null(strstr(err.message, "nesting"));
    /* the same 40 deep is fine, and a lower max_depth limit applies */
    nested_lists(&b, 40);
    assert_int_equal(mc_nbt_parse_filtered(d, b.data, b.len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_OK);
    assert_int_equal(mc_nbt_count(mc_nbt_doc_root(d)), 0);
    mc_nbt_limits lim = {20, 0};
    assert_int_equal(mc_nbt_parse_filtered(d, b.data, b.len, MC_NBT_JAVA, 0, &f, &lim, NULL, NULL), MC_ERR_LIMIT);
    assert_int_equal(mc_nbt_parse(d, b.data, b.len, MC_NBT_JAVA, &lim, NULL), MC_ERR_LIMIT);

    /* negative array length, list of end tags, bad type: inside "x" */
    static const uint8_t neg[] = {10, 0, 0, 12, 0, 1, 'x', 0xff, 0xff, 0xff, 0xfe, 0};
    mc_error_clear(&err);
    assert_int_equal(mc_nbt_parse_filtered(d, neg, sizeof neg, MC_NBT_JAVA, 0, &f, NULL, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "negative"));
    static const uint8_t ends[] = {10, 0, 0, 9, 0, 1, 'x', 0, 0, 0, 0, 2, 0};
    assert_int_equal(mc_nbt_parse_filtered(d, ends, sizeof ends, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_ERR_MALFORMED);
    static const uint8_t empty_ends[] = {10, 0, 0, 9, 0, 1, 'x', 0, 0, 0, 0, 0, 0};
    assert_int_equal(mc_nbt_parse_filtered(d, empty_ends, sizeof empty_ends, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_OK);
    static const uint8_t badtype[] = {10, 0, 0, 10, 0, 1, 'x', 13, 0, 1, 'q', 0, 0};
    assert_int_equal(mc_nbt_parse_filtered(d, badtype, sizeof badtype, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_ERR_MALFORMED);
    static const uint8_t longarr[] = {10, 0, 0, 12, 0, 1, 'x', 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0};
    assert_int_equal(mc_nbt_parse_filtered(d, longarr, sizeof longarr, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL), MC_ERR_TRUNCATED);
    /* varint encodings are refused, not silently parsed in full */
    assert_int_equal(mc_nbt_parse_filtered(d, neg, sizeof neg, MC_NBT_BEDROCK_NETWORK, 0, &f, NULL, NULL, NULL),
                     MC_ERR_UNSUPPORTED);
    mc_buf_free(&b);
    mc_nbt_doc_free(d);
}

/* ---------------------------------------------------- chunk lean parse */

typedef struct {
    mc_nbt_doc *full, *lean;
    mc_chunknbt_cache *cache;
    int chunks, declined;
} chunk_ctx;

static void same_columns(const mc_column *a, const mc_column *b)
{
    assert_int_equal(mc_column_section_count(a), mc_column_section_count(b));
    assert_int_equal(mc_column_min_section(a), mc_column_min_section(b));
    for (uint32_t i = 0; i < mc_column_section_count(a); i++) {
        const mc_section *x = mc_column_section_at((mc_column *)a, i);
        const mc_section *y = mc_column_section_at((mc_column *)b, i);
        assert_true(mc_container_equal(&x->blocks, &y->blocks));
        assert_true(mc_container_equal(&x->biomes, &y->biomes));
        assert_int_equal(mc_section_block_count(x, mc_column_registry(a)),
                         mc_section_block_count(y, mc_column_registry(b)));
        assert_int_equal(!x->sky_light, !y->sky_light);
        if (x->sky_light)
            assert_memory_equal(x->sky_light, y->sky_light, MC_LIGHT_BYTES);
    }
    assert_int_equal(mc_column_block_entity_count(a), mc_column_block_entity_count(b));
}

static int lean_chunk(void *user, int index, const uint8_t *nbt, size_t len)
{
    (void)index;
    chunk_ctx *c = user;
    const unsigned flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    assert_int_equal(mc_nbt_parse(c->full, nbt, len, MC_NBT_JAVA, NULL, NULL), MC_OK);
    assert_int_equal(mc_chunknbt_parse(c->lean, nbt, len, flags, NULL), MC_OK);
    mc_chunknbt_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.cache = c->cache;
    mc_column *a = NULL, *b = NULL;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(c->full), &o, &a, NULL), MC_OK);
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(c->lean), &o, &b, NULL), MC_OK);
    same_columns(a, b);
    c->declined += (int)(mc_nbt_count(mc_nbt_doc_root(c->full)) - mc_nbt_count(mc_nbt_doc_root(c->lean)));
    /* without NO_EXTRA it is the plain parse */
    assert_int_equal(mc_chunknbt_parse(c->lean, nbt, len, 0, NULL), MC_OK);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(c->full), mc_nbt_doc_root(c->lean)));
    mc_column_free(a);
    mc_column_free(b);
    c->chunks++;
    return 0;
}

static void test_chunk_lean_parse(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    static const char *const files[] = {"anvil/1.21.1/ppa-r.0.0.mca", "anvil/1.12.2/ppa-r.0.-1.mca",
                                        "anvil/1.18.2/ppa-r.0.0.mca"};
    chunk_ctx c = {mc_nbt_doc_new(NULL), mc_nbt_doc_new(NULL), mc_chunknbt_cache_new(NULL), 0, 0};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *p = mc_test_corpus_path(files[i]);
        assert_non_null(p);
        assert_true(mc_test_region_chunks(p, lean_chunk, &c, NULL) > 0);
    }
    assert_true(c.chunks > 100);
    assert_true(c.declined > c.chunks); /* ticks, structures... were left out */
    mc_nbt_doc_free(c.full);
    mc_nbt_doc_free(c.lean);
    mc_chunknbt_cache_free(c.cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_trees),
        cmocka_unit_test(test_truncation_and_mutation),
        cmocka_unit_test(test_tick_shapes_every_byte),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_check_text),
        cmocka_unit_test(test_parse_into),
        cmocka_unit_test(test_hostile_declined_values),
        cmocka_unit_test(test_chunk_lean_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
