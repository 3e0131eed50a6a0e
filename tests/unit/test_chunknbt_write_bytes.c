/*
 * test_chunknbt_write_bytes.c: the writer's bytes path (mc_chunknbt_writer:
 * the sections list written straight from the model, palette entries kept
 * as bytes) against its tree path (mc_chunknbt_write, then mc_nbt_write).
 *
 * Both must give the same status, the same report and the same bytes, for
 * the chunks of every region file of the corpus (a sixth of them; all with
 * MCCHUNK_LONG=1), written for its own
 * DataVersion and for 1.21.4, 1.16.5, 1.12.2 and 1.8.9 (the column as read,
 * which the writer translates, and for the newest target also the column
 * translated first, as `world convert` writes it), with one writer reused
 * across all of them (its kept entries change registry and DataVersion).
 * And the tree of mc_chunknbt_writer_build, changed the way `world convert`
 * changes it (a key set, a key added, a key removed and put again), must
 * serialise to what mc_nbt_write makes of the same change to the tree path's
 * tree; a tree whose sections list was removed is refused. And the check
 * that decides whether a 1.18+ palette of 4-bit indices is kept as it is
 * (every entry used) must see entries met late, or never; and a container
 * marked compact (which skips that check) must have every entry used once.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"
#include "mcchunk/bits.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

static int32_t dv_of(const char *version)
{
    mc_version_info vi;
    assert_true(mc_java_version_find(version, &vi));
    return vi.data_version < 169 ? 0 : vi.data_version;
}

/* The tree path's bytes and report. */
static mc_status tree_bytes(const mc_column *col, int32_t dv, mc_buf *out, mc_chunknbt_report *rep)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_status st = mc_chunknbt_write(col, dv, doc, rep, &err);
    if (st == MC_OK)
        st = mc_nbt_write(doc, MC_NBT_JAVA, out, &err);
    mc_nbt_doc_free(doc);
    return st;
}

/* Every indirect container of col marked compact (which lets the writer
 * keep its palette unchecked) has each palette entry used, none twice;
 * returns how many were marked. */
static size_t compact_hold(mc_column *col)
{
    size_t marked = 0;
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_container *c = &mc_column_section_at(col, i)->blocks;
        if (!c->compact)
            continue;
        assert_int_equal(c->kind, MC_CONTAINER_INDIRECT);
        uint16_t idx[MC_SECTION_BLOCKS];
        bool used[256] = {false};
        assert_true(c->palette_len <= 256 && c->rules.size <= MC_SECTION_BLOCKS);
        mc_bits_unpack_u16(c->longs, c->rules.size, c->bits, MC_BITS_PADDED, idx);
        for (size_t j = 0; j < c->rules.size; j++)
            used[idx[j] & 255] = true;
        for (uint32_t k = 0; k < c->palette_len; k++) {
            assert_true(used[k]);
            for (uint32_t m = k + 1; m < c->palette_len; m++)
                assert_int_not_equal(c->palette[k], c->palette[m]);
        }
        marked++;
    }
    return marked;
}

/* The change `world convert` makes before writing a chunk. */
static void edit(mc_nbt_doc *doc)
{
    mc_nbt_tag *root = mc_nbt_doc_root(doc), *level = mc_nbt_get(root, "Level");
    mc_nbt_tag *h = level ? level : root;
    mc_nbt_tag *on = mc_nbt_get(h, "isLightOn");
    if (on)
        assert_int_equal(mc_nbt_set_byte(on, 0), MC_OK);
    else
        assert_int_equal(mc_nbt_put_byte(doc, h, "isLightOn", 0), MC_OK);
    mc_nbt_remove(h, "Entities", 8);
    mc_nbt_tag *list = mc_nbt_put_list(doc, h, "Entities", MC_NBT_COMPOUND);
    assert_non_null(list);
    mc_nbt_tag *e = mc_nbt_list_append(doc, list, MC_NBT_COMPOUND);
    assert_non_null(e);
    assert_int_equal(mc_nbt_put_string(doc, e, "id", "minecraft:pig", 13), MC_OK);
}

/* Both paths for one column and DataVersion agree; returns whether the
 * bytes path held a sections list. */
static bool agree(mc_chunknbt_writer *wr, const mc_column *col, int32_t dv, bool edited)
{
    mc_buf a, b;
    mc_buf_init(&a, NULL);
    mc_buf_init(&b, NULL);
    mc_chunknbt_report ra, rb;
    mc_error err;
    mc_status sa = tree_bytes(col, dv, &a, &ra);
    mc_status sb = mc_chunknbt_writer_write_bytes(wr, col, dv, &b, &rb, &err);
    assert_int_equal(sa, sb);
    if (sa == MC_OK) {
        assert_int_equal(ra.dropped, rb.dropped);
        assert_int_equal(ra.light_filled, rb.light_filled);
        assert_string_equal(ra.text, rb.text);
    }
    assert_int_equal(a.len, b.len);
    if (a.len)
        assert_memory_equal(a.data, b.data, a.len);
    bool sections = false;
    if (edited && sa == MC_OK) {
        /* the same change on both trees */
        mc_nbt_doc *t = mc_nbt_doc_new(NULL), *s = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_chunknbt_write(col, dv, t, NULL, &err), MC_OK);
        assert_int_equal(mc_chunknbt_writer_build(wr, col, dv, s, NULL, &err), MC_OK);
        edit(t);
        edit(s);
        a.len = b.len = 0;
        assert_int_equal(mc_nbt_write(t, MC_NBT_JAVA, &a, &err), MC_OK);
        assert_int_equal(mc_chunknbt_writer_serialise(wr, s, &b, &err), MC_OK);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        /* the held list taken out of the tree: refused, nothing appended */
        mc_nbt_tag *root = mc_nbt_doc_root(s), *level = mc_nbt_get(root, "Level");
        mc_nbt_tag *h = level ? level : root;
        const char *key = mc_nbt_get(h, "sections") ? "sections" : "Sections";
        if (mc_nbt_tag_type(mc_nbt_get(h, key)) == MC_NBT_LIST) {
            sections = true;
            mc_nbt_remove(h, key, strlen(key));
            b.len = 0;
            assert_int_equal(mc_chunknbt_writer_serialise(wr, s, &b, &err), MC_ERR_INVALID_ARG);
            assert_int_equal(b.len, 0);
        }
        mc_nbt_doc_free(t);
        mc_nbt_doc_free(s);
    }
    mc_buf_free(&a);
    mc_buf_free(&b);
    return sections;
}

static void test_corpus(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    const int32_t targets[] = {MC_CHUNKNBT_OWN_VERSION, dv_of("1.21.4"), dv_of("1.16.5"), dv_of("1.12.2"),
                               dv_of("1.8.9")};
    const mc_registry *newest = mc_chunknbt_registry_for(targets[1]);
    assert_non_null(newest);
    /* every sixth chunk (a different sixth in each file; about 4 s), every
     * 48th in the sanitizer pass of .ci/run (MCCHUNK_SAMPLE=1; about 6 s);
     * MCCHUNK_LONG=1: every chunk (by hand, about 25 s) */
    const char *sample = getenv("MCCHUNK_SAMPLE"), *lng = getenv("MCCHUNK_LONG");
    const int step = lng && !strcmp(lng, "1") ? 1 : sample && !strcmp(sample, "1") ? 48 : 6;
    mc_chunknbt_writer *wr = mc_chunknbt_writer_new();
    assert_non_null(wr);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    size_t nfiles = 0, chunks = 0, writes = 0, edited = 0, compact = 0;
    for (char **f = files; *f; f++, nfiles++) {
        mc_region *r = NULL;
        mc_error err;
        assert_int_equal(mc_region_open(*f, NULL, &r, &err), MC_OK);
        mc_buf buf;
        mc_buf_init(&buf, NULL);
        for (int i = (int)(nfiles % (size_t)step); i < 1024; i += step) {
            buf.len = 0;
            if (!mc_region_has_chunk(r, i & 31, i >> 5) ||
                mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err) != MC_OK)
                continue;
            mc_chunknbt_options opt = {0};
            opt.cache = cache;
            mc_column *col = NULL;
            if (mc_chunknbt_read_bytes(buf.data, buf.len, &opt, &col, &err) != MC_OK)
                continue;
            chunks++;
            compact += compact_hold(col);
            for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++, writes++)
                edited += agree(wr, col, targets[k], k == 1);
            mc_column *t = mc_column_translate(col, newest, NULL, &err);
            if (t) {
                compact += compact_hold(t);
                agree(wr, t, targets[1], true);
                writes++;
            }
            mc_column_free(t);
            mc_column_free(col);
        }
        mc_buf_free(&buf);
        mc_region_close(r);
    }
    print_message("%zu files, %zu chunks, %zu writes compared, %zu edited trees with sections, %zu compact "
                  "containers checked\n",
                  nfiles, chunks, writes, edited, compact);
    mc_chunknbt_cache_free(cache);
    mc_chunknbt_writer_free(wr);
    mc_test_free_list(files);
    assert_true(nfiles > 0);
    assert_true(chunks > 4000 / (size_t)step);
    assert_true(edited > 4000 / (size_t)step);
    assert_true(compact > 1000 / (size_t)step);
}

/* A column built in memory (no extra NBT), every era, and a writer that
 * is handed no column or no tree. */
static void test_built(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.20.4");
    assert_non_null(reg);
    mc_column *col = mc_column_new(reg, 5, -3, -4, 24, NULL);
    assert_non_null(col);
    mc_test_rng rng = {7};
    const uint32_t n = mc_registry_state_count(reg);
    for (int k = 0; k < 300; k++)
        mc_column_set_block(col, (int)(mc_test_rand(&rng) & 15), (int)(mc_test_rand(&rng) % 384) - 64,
                            (int)(mc_test_rand(&rng) & 15), (uint32_t)(mc_test_rand(&rng) % n));
    mc_chunknbt_writer *wr = mc_chunknbt_writer_new();
    assert_non_null(wr);
    const int32_t dvs[] = {MC_CHUNKNBT_OWN_VERSION, 4189, 2860, 2586, 1976, 1343, 0};
    for (size_t i = 0; i < sizeof dvs / sizeof dvs[0]; i++)
        agree(wr, col, dvs[i], true);
    mc_error err;
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_chunknbt_writer_write_bytes(wr, NULL, 4189, &b, NULL, &err), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_chunknbt_writer_serialise(wr, NULL, &b, &err), MC_ERR_INVALID_ARG);
    assert_int_equal(b.len, 0);
    mc_buf_free(&b);
    mc_chunknbt_writer_free(wr);
    mc_column_free(col);
}

/* The palette of section Y=0 as written for `dv`: entry count and the
 * Name of entry `at`. */
static size_t written_palette(const mc_column *col, int32_t dv, size_t at, char *name, size_t cap)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write_bytes(col, dv, &b, NULL, &err), MC_OK);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(doc, b.data, b.len, MC_NBT_JAVA, NULL, &err), MC_OK);
    size_t n = 0;
    for (mc_nbt_tag *s = mc_nbt_first(mc_nbt_get(mc_nbt_doc_root(doc), "sections")); s; s = mc_nbt_next(s)) {
        int8_t y = -1;
        if (mc_nbt_get_byte(mc_nbt_get(s, "Y"), &y) != MC_OK || y != 0)
            continue;
        mc_nbt_tag *pal = mc_nbt_path(s, "block_states.palette");
        n = mc_nbt_count(pal);
        const char *str = NULL;
        size_t len = 0;
        assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_nbt_list_at(pal, at), "Name"), &str, &len), MC_OK);
        snprintf(name, cap, "%.*s", (int)len, str);
    }
    mc_nbt_doc_free(doc);
    mc_buf_free(&b);
    return n;
}

/* A 1.18+ palette of 4-bit indices is kept as it is (its order, its
 * indices) when every entry is used, else rebuilt in first-occurrence
 * order: entries met late (past the first 32 longs: one, or more than
 * three of them) or never, and all sixteen. */
static void test_palette_kept(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.4");
    assert_non_null(reg);
    static const char *const names[16] = {"stone", "dirt", "granite", "diorite", "andesite", "gravel", "sand",
                                          "clay", "glass", "oak_log", "oak_planks", "bricks", "tnt",
                                          "bookshelf", "obsidian", "ice"};
    uint32_t pal[16];
    for (int i = 0; i < 16; i++)
        pal[i] = mc_registry_default_state(reg, names[i]);
    struct {
        unsigned n;       /* palette entries */
        unsigned late;    /* entries n-late .. n-1 only past long 32 */
        bool one_unused;  /* entry n-1 nowhere */
    } cases[] = {{6, 1, false}, {6, 1, true}, {6, 3, false}, {6, 3, true}, {8, 5, false},
                 {8, 5, true},  {16, 0, false}, {16, 12, false}, {16, 12, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const unsigned n = cases[c].n, late = cases[c].late;
        uint64_t longs[256];
        /* the early indices: entries 1, 0, 2, 3 .. (first occurrence is not the
         * palette's order), then entry 0; the late ones near the end */
        uint8_t idx[4096];
        memset(idx, 0, sizeof idx);
        for (unsigned i = 0; i < n - late; i++)
            idx[i] = (uint8_t)(i == 0 ? 1 : i == 1 ? 0 : i);
        for (unsigned k = n - late; k < n; k++)
            if (!(cases[c].one_unused && k == n - 1))
                idx[4000 + k] = (uint8_t)k;
        if (cases[c].one_unused && late == 0)
            idx[n - 1] = 0;
        for (int l = 0; l < 256; l++) {
            longs[l] = 0;
            for (int j = 0; j < 16; j++)
                longs[l] |= (uint64_t)idx[l * 16 + j] << (4 * j);
        }
        mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
        assert_non_null(col);
        mc_section *s = mc_column_section(col, 0);
        mc_container_rules rules = s->blocks.rules;
        mc_container_free(&s->blocks);
        mc_error err;
        assert_int_equal(mc_container_from_longs(&s->blocks, &rules, 4, MC_BITS_PADDED, pal, n, longs, 256, NULL,
                                                 &err),
                         MC_OK);
        char name[64];
        const size_t got = written_palette(col, 4189, 0, name, sizeof name);
        if (cases[c].one_unused) { /* rebuilt: the unused entry dropped, entry 1 first */
            assert_int_equal(got, n - 1);
            assert_string_equal(name + 10, names[1]);
        } else { /* kept */
            assert_int_equal(got, n);
            assert_string_equal(name + 10, names[0]);
        }
        mc_column_free(col);
    }
}

/* Extra keys a write for another format era drops are counted and named
 * in the report, one line each ("key Level.X (the format era differs)"),
 * a key too long for a line cut to 511 bytes; keys the writer makes
 * anyway are not named. Both paths give the same report (agree). */
static void test_dropped_keys_reported(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.16.5");
    assert_non_null(reg);
    mc_column *col = mc_column_new(reg, 1, 2, 0, 16, NULL);
    assert_non_null(col);
    mc_nbt_doc *doc = mc_column_nbt(col);
    mc_nbt_tag *x = mc_column_extra(col);
    assert_non_null(x);
    mc_nbt_tag *level = mc_nbt_put_compound(doc, x, "Level");
    char long_key[1001];
    memset(long_key, 'k', 1000);
    long_key[1000] = '\0';
    assert_non_null(level);
    assert_int_equal(mc_nbt_put_int(doc, level, "Structures", 1), MC_OK);
    assert_int_equal(mc_nbt_put_long(doc, level, "InhabitedTime", 5), MC_OK); /* made anyway */
    assert_int_equal(mc_nbt_put_int(doc, level, long_key, 2), MC_OK);
    assert_int_equal(mc_nbt_put_int(doc, x, "Top", 3), MC_OK);
    mc_chunknbt_writer *wr = mc_chunknbt_writer_new();
    assert_non_null(wr);
    agree(wr, col, 3953, true); /* 1.21: another era */
    mc_chunknbt_report rep;
    memset(&rep, 0, sizeof rep);
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_writer_write_bytes(wr, col, 3953, &b, &rep, &err), MC_OK);
    assert_int_equal(rep.extra_dropped, 3);
    assert_true(rep.dropped & MC_CHUNKNBT_DROP_EXTRA);
    char want[600];
    snprintf(want, sizeof want, "key Top (the format era differs)\nkey Level.Structures (the format era differs)\n"
                                "key Level.%.501s\n", long_key);
    assert_int_equal(rep.text_len, strlen(rep.text));
    assert_string_equal(rep.text, want);
    mc_buf_free(&b);
    mc_chunknbt_writer_free(wr);
    mc_column_free(col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_built),
        cmocka_unit_test(test_palette_kept),
        cmocka_unit_test(test_dropped_keys_reported),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
