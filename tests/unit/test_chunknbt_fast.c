/*
 * test_chunknbt_fast.c: mc_chunknbt_read_bytes, which reads the sections of
 * 1.18+ chunks straight from their bytes, against the tree reader
 * (mc_chunknbt_parse + mc_chunknbt_read_ex) on the same bytes.
 *
 * For every input both must agree: the status, the error message, the
 * info, the number of warnings, and the column, compared by writing both
 * back for their own DataVersion (the NBT bytes must be identical: blocks,
 * biomes, light, heightmaps, block entities and extra NBT in order). And the
 * fast way must really be taken where it should (info.sections_from_bytes)
 * and declined where it must not decide (a section key of its own, an
 * unknown state, a warning, malformed bytes); a light section outside the
 * column is taken (kept whole in the extra NBT from its bytes). Inputs: chunks built here (random palettes of 1 to 600
 * states, light, biomes, block entities, ticks) for three DataVersions, the
 * same with one thing changed per case, truncations and corruptions, and
 * every chunk of every region file in the corpus.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

static void count_warning(void *user, const char *message)
{
    (void)message;
    (*(unsigned *)user)++;
}

typedef struct outcome {
    mc_status st;
    mc_chunknbt_info info;
    unsigned warnings;
    mc_buf written;
    char message[MC_ERROR_MESSAGE_MAX];
} outcome;

static void read_both(const uint8_t *nbt, size_t len, unsigned flags, mc_chunknbt_cache *cache,
                      outcome *fast, outcome *tree)
{
    mc_nbt_doc *scratch = mc_nbt_doc_new(NULL);
    for (int way = 0; way < 2; way++) {
        outcome *o = way ? tree : fast;
        memset(o, 0, sizeof *o);
        mc_buf_init(&o->written, NULL);
        mc_chunknbt_options opt = {0};
        opt.flags = flags;
        opt.cache = cache;
        opt.warn = count_warning;
        opt.warn_user = &o->warnings;
        mc_column *col = NULL;
        mc_error err;
        mc_error_clear(&err);
        if (way == 0) {
            opt.doc = scratch;
            o->st = mc_chunknbt_read_bytes_ex(nbt, len, &opt, &col, &o->info, &err);
        } else {
            mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
            o->st = mc_chunknbt_parse(doc, nbt, len, flags, &err);
            if (o->st == MC_OK)
                o->st = mc_chunknbt_read_ex(mc_nbt_doc_root(doc), &opt, &col, &o->info, &err);
            mc_nbt_doc_free(doc);
        }
        snprintf(o->message, sizeof o->message, "%s", err.message);
        if (o->st == MC_OK)
            assert_int_equal(mc_chunknbt_write_bytes(col, MC_CHUNKNBT_OWN_VERSION, &o->written, NULL, &err), MC_OK);
        mc_column_free(col);
    }
    mc_nbt_doc_free(scratch);
}

/* Both ways agree; returns whether the fast one read the sections. */
static bool agree(const uint8_t *nbt, size_t len, unsigned flags, mc_chunknbt_cache *cache)
{
    outcome f, t;
    read_both(nbt, len, flags, cache, &f, &t);
    assert_int_equal(f.st, t.st);
    assert_string_equal(f.message, t.message);
    assert_int_equal(f.warnings, t.warnings);
    assert_int_equal(f.info.data_version, t.info.data_version);
    assert_int_equal(f.info.sections_read, t.info.sections_read);
    assert_int_equal(f.info.unknown_states, t.info.unknown_states);
    assert_int_equal(f.info.unknown_biomes, t.info.unknown_biomes);
    assert_int_equal(f.info.warnings, t.info.warnings);
    assert_int_equal(f.info.newer_than_known, t.info.newer_than_known);
    assert_int_equal(f.info.status_len, t.info.status_len);
    if (f.info.status_len)
        assert_memory_equal(f.info.status, t.info.status, f.info.status_len);
    assert_false(t.info.sections_from_bytes);
    assert_int_equal(f.written.len, t.written.len);
    if (f.written.len)
        assert_memory_equal(f.written.data, t.written.data, f.written.len);
    bool fast = f.info.sections_from_bytes;
    if (fast)
        assert_int_equal(f.st, MC_OK);
    mc_buf_free(&f.written);
    mc_buf_free(&t.written);
    return fast;
}

static const unsigned flag_sets[] = {0, MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES, MC_CHUNKNBT_NO_LIGHT,
                                     MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT, MC_CHUNKNBT_STRICT};
#define NFLAGS (sizeof flag_sets / sizeof flag_sets[0])

/* ----------------------------------------------------------- generated */

/* A chunk of `version` written by our writer, then given what real chunks
 * carry besides the model (block entity, ticks, post-processing). */
static mc_nbt_doc *make_chunk(const char *version, int32_t dv, uint64_t seed)
{
    const mc_registry *reg = mc_registry_find(version);
    assert_non_null(reg);
    mc_test_rng rng = {seed};
    mc_column *col = mc_column_new(reg, 3, -7, -4, 24, NULL);
    assert_non_null(col);
    const uint32_t nstates = mc_registry_state_count(reg);
    /* section k: palette of about (1, 2, 5, 16, 17, 60, 256, 600)[k % 8] states */
    static const unsigned sizes[] = {1, 2, 5, 16, 17, 60, 256, 600};
    for (int k = 0; k < 20; k++) {
        unsigned want = sizes[k % 8];
        uint32_t pal[600];
        for (unsigned i = 0; i < want; i++)
            pal[i] = (uint32_t)(mc_test_rand(&rng) % nstates);
        if (want == 1 && k % 3 == 0)
            continue; /* stays air: a single-entry palette without data */
        for (int i = 0; i < 4096; i++) {
            uint32_t s = want == 1 ? pal[0] : pal[i < (int)want ? (uint64_t)i : mc_test_rand(&rng) % want];
            assert_int_equal(mc_column_set_block(col, i & 15, (-4 + k) * 16 + (i >> 8), (i >> 4) & 15, s), MC_OK);
        }
        for (int i = 0; i < 64; i += 7)
            mc_column_set_biome(col, i & 3, (-4 + k) * 4 + (i >> 4), (i >> 2) & 3,
                                (uint32_t)(mc_test_rand(&rng) % 4));
        if (k % 2)
            mc_column_set_block_light(col, k % 16, (-4 + k) * 16 + 3, 5, (unsigned)(k % 15) + 1);
    }
    for (int x = 0; x < 16; x += 5)
        mc_column_set_sky_light(col, x, 100, 2, 15);
    mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write(col, dv, doc, NULL, &err), MC_OK);
    mc_column_free(col);
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    mc_nbt_remove(root, "block_entities", 14);
    mc_nbt_tag *bes = mc_nbt_put_list(doc, root, "block_entities", MC_NBT_COMPOUND);
    mc_nbt_tag *be = mc_nbt_list_append(doc, bes, MC_NBT_COMPOUND);
    assert_non_null(be);
    mc_nbt_put_string(doc, be, "id", "minecraft:chest", 15);
    mc_nbt_put_int(doc, be, "x", 3 * 16 + 1);
    mc_nbt_put_int(doc, be, "y", 70);
    mc_nbt_put_int(doc, be, "z", -7 * 16 + 2);
    mc_nbt_put_list(doc, be, "Items", MC_NBT_COMPOUND);
    mc_nbt_tag *ticks = mc_nbt_put_list(doc, root, "block_ticks", MC_NBT_COMPOUND);
    for (int i = 0; i < 5; i++) {
        mc_nbt_tag *t = mc_nbt_list_append(doc, ticks, MC_NBT_COMPOUND);
        mc_nbt_put_string(doc, t, "i", "minecraft:water", 15);
        mc_nbt_put_int(doc, t, "x", 48 + i);
        mc_nbt_put_int(doc, t, "y", 60);
        mc_nbt_put_int(doc, t, "z", -110);
        mc_nbt_put_int(doc, t, "t", i);
        mc_nbt_put_int(doc, t, "p", 0);
    }
    mc_nbt_tag *pp = mc_nbt_put_list(doc, root, "PostProcessing", MC_NBT_LIST);
    for (int i = 0; i < 24; i++) {
        mc_nbt_tag *l = mc_nbt_list_append(doc, pp, MC_NBT_LIST);
        (void)l;
    }
    mc_nbt_put_long(doc, root, "InhabitedTime", 1234);
    return doc;
}

static void to_bytes(const mc_nbt_doc *doc, mc_buf *out)
{
    mc_buf_init(out, NULL);
    mc_error err;
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, out, &err), MC_OK);
}

static const struct { const char *version; int32_t dv; } modern[] = {
    {"1.18.2", 2975}, {"1.21.1", 3955}, {"1.21.11", 4671}};

static void test_generated_read_fast(void **state)
{
    (void)state;
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    for (size_t v = 0; v < sizeof modern / sizeof modern[0]; v++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            mc_nbt_doc *doc = make_chunk(modern[v].version, modern[v].dv, seed * 7919 + v);
            mc_buf b;
            to_bytes(doc, &b);
            for (size_t f = 0; f < NFLAGS; f++) {
                assert_true(agree(b.data, b.len, flag_sets[f], cache));
                assert_true(agree(b.data, b.len, flag_sets[f], NULL)); /* a cache per call */
            }
            /* the round trip of the fast read is the input itself */
            mc_column *col = NULL;
            mc_error err;
            assert_int_equal(mc_chunknbt_read_bytes(b.data, b.len, NULL, &col, &err), MC_OK);
            mc_nbt_doc *back = mc_nbt_doc_new(NULL);
            assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, back, NULL, &err), MC_OK);
            assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(back)));
            mc_nbt_doc_free(back);
            mc_column_free(col);
            mc_buf_free(&b);
            mc_nbt_doc_free(doc);
        }
    mc_chunknbt_cache_free(cache);
}

/* One shared cache, chunks of three registries in turn: entries are told
 * apart by registry (the same bytes are other states in another release). */
static void test_cache_across_registries(void **state)
{
    (void)state;
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    mc_buf bytes[3];
    for (size_t v = 0; v < 3; v++) {
        mc_nbt_doc *doc = make_chunk(modern[v].version, modern[v].dv, 42); /* same random draws */
        to_bytes(doc, &bytes[v]);
        mc_nbt_doc_free(doc);
    }
    for (int round = 0; round < 3; round++)
        for (size_t v = 0; v < 3; v++) {
            mc_column *shared = NULL, *alone = NULL;
            mc_chunknbt_options opt = {0};
            opt.cache = cache;
            assert_int_equal(mc_chunknbt_read_bytes(bytes[v].data, bytes[v].len, &opt, &shared, NULL), MC_OK);
            assert_int_equal(mc_chunknbt_read_bytes(bytes[v].data, bytes[v].len, NULL, &alone, NULL), MC_OK);
            for (int y = -64; y < 256; y += 3)
                for (int i = 0; i < 256; i += 17)
                    assert_int_equal(mc_column_get_block(shared, i & 15, y, i >> 4),
                                     mc_column_get_block(alone, i & 15, y, i >> 4));
            mc_column_free(shared);
            mc_column_free(alone);
        }
    for (size_t v = 0; v < 3; v++)
        mc_buf_free(&bytes[v]);
    mc_chunknbt_cache_free(cache);
}

/* Each change makes the fast way decline; the tree's read is the result. */
typedef void (*change_fn)(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections);

static void section_key(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_put_byte(doc, mc_nbt_list_at(sections, 5), "mod:extra", 1);
}
static void light_section_below(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_tag *s = mc_nbt_list_append(doc, sections, MC_NBT_COMPOUND);
    mc_nbt_put_byte(doc, s, "Y", -5);
    int8_t light[2048];
    memset(light, 0x11, sizeof light);
    mc_nbt_put_byte_array(doc, s, "SkyLight", light, 2048);
}
static void unknown_state(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_tag *pal = mc_nbt_get(mc_nbt_get(mc_nbt_list_at(sections, 3), "block_states"), "palette");
    mc_nbt_set_string(doc, mc_nbt_get(mc_nbt_list_at(pal, 1), "Name"), "mod:unknown_block", 17);
}
static void unknown_biome(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_tag *pal = mc_nbt_get(mc_nbt_get(mc_nbt_list_at(sections, 2), "biomes"), "palette");
    mc_nbt_set_string(doc, mc_nbt_list_at(pal, 0), "minecraft:n\xc3\xa9" "ant", 13);
}
static void short_light(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    int8_t light[100] = {1};
    mc_nbt_remove(mc_nbt_list_at(sections, 4), "BlockLight", 10);
    mc_nbt_put_byte_array(doc, mc_nbt_list_at(sections, 4), "BlockLight", light, 100);
}
static void y_as_int(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_tag *s = mc_nbt_list_at(sections, 6);
    int8_t y;
    mc_nbt_get_byte(mc_nbt_get(s, "Y"), &y);
    mc_nbt_remove(s, "Y", 1);
    mc_nbt_put_int(doc, s, "Y", y);
}
static void newer_version(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)doc;
    (void)sections;
    mc_nbt_set_int(mc_nbt_get(root, "DataVersion"), 999999);
}
static void data_too_short(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)root;
    mc_nbt_tag *bs = mc_nbt_get(mc_nbt_list_at(sections, 3), "block_states");
    int64_t longs[3] = {1, 2, 3};
    mc_nbt_remove(bs, "data", 4);
    mc_nbt_put_long_array(doc, bs, "data", longs, 3);
}
static void index_out_of_range(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)doc;
    (void)root;
    /* section 2 has 5 entries at 4 bits: index 15 is beyond them */
    mc_nbt_tag *bs = mc_nbt_get(mc_nbt_list_at(sections, 2), "block_states");
    mc_nbt_tag *data = mc_nbt_get(bs, "data");
    int64_t v[256];
    size_t n = 0;
    mc_nbt_array_copy_i64(data, v, 256, &n);
    v[7] = -1;
    mc_nbt_set_long_array(doc, data, v, n);
}
static void no_sections(mc_nbt_doc *doc, mc_nbt_tag *root, mc_nbt_tag *sections)
{
    (void)doc;
    (void)sections;
    mc_nbt_tag *s = mc_nbt_get(root, "sections");
    while (mc_nbt_count(s))
        mc_nbt_list_remove(s, 0);
}

static void test_declines(void **state)
{
    (void)state;
    static const struct { const char *name; change_fn fn; bool fast; } cases[] = {
        {"a section key of its own", section_key, false},
        {"a light section below the column (into the extra NBT from its bytes)", light_section_below, true},
        {"an unknown block state", unknown_state, false},
        {"an unknown non-ASCII biome", unknown_biome, false},
        {"BlockLight of 100 bytes", short_light, false},
        {"Y as an int", y_as_int, false},
        {"a DataVersion newer than known", newer_version, false},
        {"a data array too short", data_too_short, false},
        {"a palette index out of range", index_out_of_range, false},
        {"an empty section list", no_sections, true},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mc_nbt_doc *doc = make_chunk("1.21.1", 3955, 99 + c);
        mc_nbt_tag *root = mc_nbt_doc_root(doc);
        cases[c].fn(doc, root, mc_nbt_get(root, "sections"));
        mc_buf b;
        to_bytes(doc, &b);
        for (size_t f = 0; f < NFLAGS; f++) {
            bool fast = agree(b.data, b.len, flag_sets[f], NULL);
            bool want = cases[c].fast;
            if (fast != want && !(flag_sets[f] & MC_CHUNKNBT_NO_LIGHT && c == 4))
                fail_msg("%s, flags %u: sections_from_bytes %d", cases[c].name, flag_sets[f], fast);
        }
        mc_buf_free(&b);
        mc_nbt_doc_free(doc);
    }
}

/* ------------------------------------------------------- entry shapes */

/* Palette entry e rebuilt as {Properties, Name} (the game's order, which the
 * section scan steps in a straight line), then given what `shape` asks. */
enum { GAME_ORDER, PROPS_WITH_BYTE, KEY_AFTER_NAME, EMPTY_PROPS, KEY_BEFORE_PROPS, NAME_THEN_BYTE };
static void reshape_entry(mc_nbt_doc *doc, mc_nbt_tag *e, int shape)
{
    const char *name;
    size_t nl;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(e, "Name"), &name, &nl), MC_OK);
    char nbuf[128];
    assert_true(nl < sizeof nbuf);
    memcpy(nbuf, name, nl);
    mc_nbt_tag *props = mc_nbt_get(e, "Properties");
    mc_nbt_tag *pc = props ? mc_nbt_copy(doc, props) : NULL;
    mc_nbt_remove(e, "Name", 4);
    mc_nbt_remove(e, "Properties", 10);
    if (shape == KEY_BEFORE_PROPS)
        mc_nbt_put_string(doc, e, "mod:tag", "x", 1);
    if (shape == EMPTY_PROPS && !pc)
        pc = mc_nbt_put_compound(doc, e, "Properties");
    else if (pc)
        assert_int_equal(mc_nbt_attach(doc, e, "Properties", 10, pc), MC_OK);
    if (shape == PROPS_WITH_BYTE && pc)
        mc_nbt_put_byte(doc, pc, "mod:level", 3);
    mc_nbt_put_string(doc, e, "Name", nbuf, nl);
    if (shape == KEY_AFTER_NAME)
        mc_nbt_put_string(doc, e, "mod:after", "y", 1);
    if (shape == NAME_THEN_BYTE)
        mc_nbt_put_byte(doc, e, "mod:b", 1);
}

/* Entries in the game's order and in shapes the straight-line steps of the
 * scan give up on midway (a non-string property, a key after Name or
 * before Properties, an empty Properties): the general walk takes over
 * from the entry's start, and the fast way reads what the tree way reads
 * (a property that is not a string is refused by both, with one message). */
static void test_entry_shapes(void **state)
{
    (void)state;
    static const struct { const char *what; int shape; bool ok; } cases[] = {
        {"the game's order", GAME_ORDER, true},
        {"a byte among the properties", PROPS_WITH_BYTE, false},
        {"a key after Name", KEY_AFTER_NAME, true},
        {"an empty Properties", EMPTY_PROPS, true},
        {"a key before Properties", KEY_BEFORE_PROPS, true},
        {"a byte after Name", NAME_THEN_BYTE, true},
    };
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mc_nbt_doc *doc = make_chunk("1.21.1", 3955, 501 + c);
        mc_nbt_tag *sections = mc_nbt_get(mc_nbt_doc_root(doc), "sections");
        size_t reshaped = 0, with_props = 0;
        for (mc_nbt_tag *sec = mc_nbt_first(sections); sec; sec = mc_nbt_next(sec)) {
            mc_nbt_tag *pal = mc_nbt_get(mc_nbt_get(sec, "block_states"), "palette");
            size_t i = 0;
            for (mc_nbt_tag *e = mc_nbt_first(pal); e; e = mc_nbt_next(e), i++) {
                /* the game's order everywhere; the odd shape on every third entry */
                with_props += mc_nbt_get(e, "Properties") != NULL;
                reshape_entry(doc, e, i % 3 == 1 ? cases[c].shape : GAME_ORDER);
                reshaped++;
            }
        }
        assert_true(reshaped > 100 && with_props > 30);
        mc_buf b;
        to_bytes(doc, &b);
        for (size_t f = 0; f < NFLAGS; f++) {
            outcome fast, tree;
            read_both(b.data, b.len, flag_sets[f], cache, &fast, &tree);
            if ((fast.st == MC_OK) != cases[c].ok)
                fail_msg("%s, flags %u: status %d (%s)", cases[c].what, flag_sets[f], (int)fast.st, fast.message);
            mc_buf_free(&fast.written);
            mc_buf_free(&tree.written);
            const bool took = agree(b.data, b.len, flag_sets[f], cache);
            if (took != cases[c].ok)
                fail_msg("%s, flags %u: sections_from_bytes %d", cases[c].what, flag_sets[f], took);
        }
        mc_buf_free(&b);
        mc_nbt_doc_free(doc);
    }
    mc_chunknbt_cache_free(cache);
}

/* Broken bytes: both ways fail alike (same status and message) or read alike. */
static void test_malformed(void **state)
{
    (void)state;
    mc_nbt_doc *doc = make_chunk("1.21.1", 3955, 5);
    mc_buf b;
    to_bytes(doc, &b);
    mc_nbt_doc_free(doc);
    uint8_t *copy = malloc(b.len);
    assert_non_null(copy);
    /* whole: read from bytes; every cut fails alike, whichever way fails it */
    assert_true(agree(b.data, b.len, 0, NULL));
    for (size_t cut = 0; cut < b.len; cut += 1 + cut / 50)
        assert_false(agree(b.data, cut, 0, NULL));
    mc_test_rng rng = {77};
    for (int i = 0; i < 300; i++) {
        memcpy(copy, b.data, b.len);
        for (int k = 0; k < 1 + i % 3; k++)
            copy[mc_test_rand(&rng) % b.len] ^= (uint8_t)(1u << (mc_test_rand(&rng) % 8));
        agree(copy, b.len, (unsigned)i % 2 ? MC_CHUNKNBT_STRICT : 0, NULL);
    }
    free(copy);
    mc_buf_free(&b);
}

/* Chunks before 1.18 read their Level.Sections from bytes, with the extra
 * NBT kept or not (the other keys of Level go to the extra NBT from the
 * tree, or from their bytes: test_level_raw_keys): generated 1.12 (Blocks, Data, Add for ids past 255), 1.13 and
 * 1.15 (spanning longs), 1.16 (padded) chunks with palettes of 1 to 600
 * states, given a key under Level the model does not read (ticks). */
static void test_older_eras(void **state)
{
    (void)state;
    static const int32_t dvs[] = {1343, 1631, 2230, 2586};
    static const unsigned sizes[] = {1, 2, 5, 16, 17, 60, 256, 600};
    for (size_t d = 0; d < sizeof dvs / sizeof dvs[0]; d++) {
        const mc_registry *reg = mc_chunknbt_registry_for(dvs[d]);
        assert_non_null(reg);
        mc_test_rng rng = {11 + d};
        mc_column *col = mc_column_new(reg, 1, 2, 0, 16, NULL);
        const uint32_t nstates = mc_registry_state_count(reg);
        for (int k = 0; k < 8; k++) {
            uint32_t pal[600];
            for (unsigned i = 0; i < sizes[k]; i++)
                do
                    pal[i] = (uint32_t)(mc_test_rand(&rng) % nstates);
                while (!mc_registry_state_name(reg, pal[i]));
            for (int i = 0; i < 4096; i++)
                assert_int_equal(mc_column_set_block(col, i & 15, k * 16 + (i >> 8), (i >> 4) & 15,
                                                     pal[(i >> 4) % 3 ? mc_test_rand(&rng) % sizes[k] : 0]),
                                 MC_OK);
        }
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_error err;
        assert_int_equal(mc_chunknbt_write(col, dvs[d], doc, NULL, &err), MC_OK);
        mc_nbt_tag *level = mc_nbt_get(mc_nbt_doc_root(doc), "Level");
        mc_nbt_tag *ticks = mc_nbt_put_list(doc, level, "mod:ticks", MC_NBT_COMPOUND);
        mc_nbt_tag *tick = mc_nbt_list_append(doc, ticks, MC_NBT_COMPOUND);
        assert_non_null(tick);
        mc_nbt_put_string(doc, tick, "i", "minecraft:water", 15);
        mc_nbt_put_int(doc, tick, "t", 3);
        mc_buf b;
        to_bytes(doc, &b);
        mc_nbt_doc_free(doc);
        for (size_t f = 0; f < NFLAGS; f++)
            if (!agree(b.data, b.len, flag_sets[f], NULL))
                fail_msg("DataVersion %d, flags %u: not read from bytes", (int)dvs[d], flag_sets[f]);
        mc_buf_free(&b);
        mc_column_free(col);
    }
}

/* Level's keys the model does not read are stepped over by the fast path
 * and parsed from their bytes into the extra NBT in their place
 * (read_level_keys): keys first, between read ones, right after Sections
 * and last must come out where the tree reader's copy has them (the
 * written bytes compare them, in order), also in a Level of 40 keys (the
 * list of them grown out of its place: the sanitizer build sees it freed).
 * Levels the fast path leaves to the tree reader (a duplicate key, a
 * bookkeeping key, two Levels, over 256 keys) agree too, and are seen not
 * taken. */
static void patch_once(mc_buf *b, const char *from, const char *to)
{
    const size_t n = strlen(from);
    uint8_t *at = NULL;
    for (size_t i = 0; i + n <= b->len; i++)
        if (!memcmp(b->data + i, from, n)) {
            assert_null(at);
            at = b->data + i;
        }
    assert_non_null(at);
    memcpy(at, to, n);
}

static void level_chunk(int32_t dv, int variant, mc_buf *b)
{
    const mc_registry *reg = mc_chunknbt_registry_for(dv);
    mc_column *col = mc_column_new(reg, -3, 5, 0, 16, NULL);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(mc_column_set_block(col, i & 15, 16 + (i >> 8), (i >> 4) & 15, 1 + (uint32_t)(i % 7)),
                         MC_OK);
    mc_nbt_doc *src = mc_nbt_doc_new(NULL), *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write(col, dv, src, NULL, &err), MC_OK);
    mc_column_free(col);
    mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    mc_nbt_put_int(doc, root, "DataVersion", dv);
    mc_nbt_tag *level = mc_nbt_put_compound(doc, root, "Level");
    mc_nbt_put_byte(doc, level, "mod:first", 1);
    for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(mc_nbt_doc_root(src), "Level")); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        assert_int_equal(mc_nbt_attach(doc, level, k, kl, mc_nbt_copy(doc, t)), MC_OK);
        if (kl == 4 && !memcmp(k, "xPos", 4))
            mc_nbt_put_long(doc, level, "LastUpdate", 77);
        if (kl == 8 && !memcmp(k, "Sections", 8)) {
            mc_nbt_tag *mid = mc_nbt_put_list(doc, level, "mod:mid", MC_NBT_COMPOUND);
            mc_nbt_put_string(doc, mc_nbt_list_append(doc, mid, MC_NBT_COMPOUND), "n", "\xc3\xa9t\xc3\xa9", 5);
        }
    }
    mc_nbt_tag *ticks = mc_nbt_put_list(doc, level, "TileTicks", MC_NBT_COMPOUND);
    mc_nbt_tag *tick = mc_nbt_list_append(doc, ticks, MC_NBT_COMPOUND);
    mc_nbt_put_string(doc, tick, "i", "minecraft:water", 15);
    mc_nbt_put_int(doc, tick, "t", 3);
    mc_nbt_put_int(doc, level, "mod:last", 5); /* (the writer's Level has TileTicks already) */
    if (variant == 1) {
        mc_nbt_put_int(doc, level, "mod:dupa", 1);
        mc_nbt_put_string(doc, level, "mod:dupb", "x", 1);
    } else if (variant == 2) {
        mc_nbt_put_byte(doc, level, "mcchunk:air_sections", 4);
    } else if (variant == 3) {
        mc_nbt_tag *l2 = mc_nbt_put_compound(doc, root, "Levex");
        mc_nbt_put_int(doc, l2, "xPos", 9);
    } else if (variant >= 4) {
        /* more keys than the reader's list holds in place (32: it grows),
         * or than the fast path takes (256: the tree reader) */
        for (int k = 0; k < (variant == 4 ? 40 : 300); k++) {
            char key[16];
            snprintf(key, sizeof key, "mod:k%d", k);
            mc_nbt_put_int(doc, level, key, k);
        }
    }
    mc_nbt_doc_free(src);
    to_bytes(doc, b);
    mc_nbt_doc_free(doc);
    if (variant == 1)
        patch_once(b, "mod:dupb", "mod:dupa");
    else if (variant == 3)
        patch_once(b, "Levex", "Level");
}

static void test_level_raw_keys(void **state)
{
    (void)state;
    static const int32_t dvs[] = {1343, 2586};
    for (size_t d = 0; d < sizeof dvs / sizeof dvs[0]; d++)
        for (int variant = 0; variant < 6; variant++) {
            mc_buf b;
            level_chunk(dvs[d], variant, &b);
            for (size_t f = 0; f < NFLAGS; f++) {
                bool fast = agree(b.data, b.len, flag_sets[f], NULL);
                if (flag_sets[f] == 0 && fast != (variant == 0 || variant == 4))
                    fail_msg("DataVersion %d, case %d: from bytes %d", (int)dvs[d], variant, fast);
            }
            mc_buf_free(&b);
        }
}

/* ----------------------------------------------------------------- corpus */

static void test_corpus(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    /* The sanitizer pass of .ci/run (MCCHUNK_SAMPLE=1) takes every sixth
     * chunk, a different sixth in each file (both readers of every older
     * chunk under ASan cost two minutes at every third); the normal build
     * every one. */
    const char *sample = getenv("MCCHUNK_SAMPLE");
    const int step = sample && !strcmp(sample, "1") ? 6 : 1;
    size_t chunks = 0, modern_chunks = 0, fast = 0, nfiles = 0, old_chunks = 0, fast_old = 0, fast_old_extra = 0;
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
            chunks++;
            mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
            bool parsed = mc_nbt_parse(doc, buf.data, buf.len, MC_NBT_JAVA, NULL, NULL) == MC_OK;
            const bool terrain = strstr(*f, "/entities") == NULL && strstr(*f, "poi") == NULL;
            const int32_t dv = parsed ? mc_chunknbt_data_version(mc_nbt_doc_root(doc)) : 0;
            bool is_modern = parsed && terrain && dv >= MC_CHUNKNBT_DV_NO_LEVEL &&
                             mc_nbt_get(mc_nbt_doc_root(doc), "sections");
            bool is_old = parsed && terrain && dv < 2832 &&
                          mc_nbt_tag_type(mc_nbt_path(mc_nbt_doc_root(doc), "Level.Sections")) == MC_NBT_LIST;
            mc_nbt_doc_free(doc);
            modern_chunks += is_modern;
            old_chunks += is_old;
            for (size_t k = 0; k < NFLAGS; k++) {
                bool took = agree(buf.data, buf.len, flag_sets[k], cache);
                if (k == 0)
                    fast += took;
                if (flag_sets[k] == (MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT))
                    fast_old += took && is_old;
                if (k == 0)
                    fast_old_extra += took && is_old;
                if (took && !is_modern && !is_old)
                    fail_msg("%s chunk %d: read from bytes but neither a 1.18+ terrain chunk nor an older one",
                             *f, i);
            }
        }
        mc_buf_free(&buf);
        mc_region_close(r);
    }
    print_message("%zu files, %zu chunks, %zu of 1.18+, %zu read from bytes; %zu older, %zu of them from bytes "
                  "without the extra NBT, %zu with it\n", nfiles, chunks, modern_chunks, fast, old_chunks, fast_old,
                  fast_old_extra);
    mc_chunknbt_cache_free(cache);
    mc_test_free_list(files);
    assert_true(nfiles > 0);
    assert_true(modern_chunks > 1000 / (size_t)step);
    /* every 1.18+ terrain chunk of the corpus is plain enough, and nearly
     * every older one (2491 of 2501: the others hold unknown states) */
    assert_int_equal(fast, modern_chunks + fast_old_extra);
    assert_true(old_chunks > 2000 / (size_t)step && fast_old * 100 >= old_chunks * 99);
    assert_true(fast_old_extra * 100 >= old_chunks * 98);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_read_fast),
        cmocka_unit_test(test_cache_across_registries),
        cmocka_unit_test(test_declines),
        cmocka_unit_test(test_entry_shapes),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_older_eras),
        cmocka_unit_test(test_level_raw_keys),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
