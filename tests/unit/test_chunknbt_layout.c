/*
 * test_chunknbt_layout.c: the sections the chunk NBT writer stores for a
 * target DataVersion, against what vanilla stores for that version.
 *
 * The facts come from the corpus's vanilla regions of each target (read
 * here, never written down): whether every section has BlockLight and
 * SkyLight, whether sections without block data occur, whether sections
 * outside 0..15 occur (before 1.18). The rules table the writer uses
 * (mc__section_rules, chunknbt_private.h) must agree with them, and chunks
 * of every source era converted to each target must keep them: light arrays
 * of 2048 bytes, light in every section where vanilla always has it, no
 * section without blocks or outside 0..15 where vanilla has none. Then the
 * filled light itself: a chunk without any light (1.21.11's region has
 * none) written for 1.13.2 gets block light 0 and sky light 15 down to the
 * first non-air block of each x,z column and 0 from there, and says so in
 * the report; stored light is kept as it was.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunknbt/chunknbt_private.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

typedef struct target {
    const char *name;
    int32_t dv;
    const char *vanilla; /* a vanilla region of that version */
} target;

static const target targets[] = {
    {"1.8.9", 0, "anvil/1.8.9/ppa-r.-1.0.mca"},
    {"1.12.2", 1343, "anvil/1.12.2/ppa-r.0.-1.mca"},
    {"1.13.2", 1631, "anvil/1.13.2/ppa-r.-1.-1.mca"},
    {"1.14.4", 1976, "anvil/1.14.4/mcaselector-r.0.0.mca"},
    {"1.16", 2566, "anvil/1.16/ppa-r.0.-1.mca"},
    {"1.17.1", 2730, "anvil/1.17.1/amulet-region-r.0.0.mca"},
    {"1.18.2", 2975, "anvil/1.18.2/ppa-r.0.0.mca"},
    {"1.21.1", 3955, "anvil/1.21.1/ppa-r.0.0.mca"},
};

static const char *const sources[] = {
    "anvil/1.8.9/ppa-r.-1.0.mca",       "anvil/1.12.2/mcaselector-r.0.0.mca", "anvil/1.13.2/mcaselector-r.0.0.mca",
    "anvil/1.14.4/mcaselector-r.0.0.mca", "anvil/1.16/ppa-r.0.-1.mca",        "anvil/1.17.1/amulet-region-r.0.0.mca",
    "anvil/1.18.2/ppa-r.0.0.mca",       "anvil/1.21.1/ppa-r.0.0.mca",         "anvil/1.21.11/minestom-r.-1.-1.mca",
};

typedef struct facts {
    bool light_always; /* every section has both light arrays */
    bool no_blocks;    /* some section has no block data */
    bool outside;      /* some section lies outside 0..15 (before 1.18) */
    unsigned chunks;
} facts;

static const mc_nbt_tag *sections_of(const mc_nbt_tag *root)
{
    const mc_nbt_tag *lvl = mc_nbt_get(root, "Level");
    if (!lvl)
        lvl = root;
    const mc_nbt_tag *s = mc_nbt_get(lvl, "Sections");
    return s ? s : mc_nbt_get(lvl, "sections");
}

static bool has_blocks(const mc_nbt_tag *s)
{
    return mc_nbt_get(s, "Blocks") || mc_nbt_get(s, "Palette") || mc_nbt_get(s, "block_states");
}

static bool light_ok(const mc_nbt_tag *s, const char *key)
{
    mc_nbt_array a;
    const mc_nbt_tag *t = mc_nbt_get(s, key);
    return !t || (mc_nbt_get_array(t, MC_NBT_BYTE_ARRAY, &a) == MC_OK && a.count == MC_LIGHT_BYTES);
}

/* Calls fn on the first `max` chunks (0: all) of a corpus region that have a section list. */
typedef void (*chunk_fn)(const mc_nbt_tag *root, const uint8_t *nbt, size_t len, void *ctx);
static void each_chunk(const char *rel, unsigned max, chunk_fn fn, void *ctx)
{
    mc_region *r = NULL;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path(rel), NULL, &r, &err), MC_OK);
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    unsigned n = 0;
    for (int i = 0; i < 1024 && (!max || n < max); i++) {
        if (!mc_region_has_chunk(r, i & 31, i >> 5))
            continue;
        buf.len = 0;
        assert_int_equal(mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err), MC_OK);
        assert_int_equal(mc_nbt_parse(doc, buf.data, buf.len, MC_NBT_JAVA, NULL, &err), MC_OK);
        if (!mc_nbt_count(sections_of(mc_nbt_doc_root(doc))))
            continue;
        fn(mc_nbt_doc_root(doc), buf.data, buf.len, ctx);
        n++;
    }
    mc_nbt_doc_free(doc);
    mc_buf_free(&buf);
    mc_region_close(r);
}

static void gather(const mc_nbt_tag *root, const uint8_t *nbt, size_t len, void *ctx)
{
    (void)nbt;
    (void)len;
    facts *f = ctx;
    int64_t dv = 0;
    mc_nbt_get_integer(mc_nbt_get(root, "DataVersion"), &dv);
    f->chunks++;
    for (mc_nbt_tag *s = mc_nbt_first(sections_of(root)); s; s = mc_nbt_next(s)) {
        int64_t y;
        assert_int_equal(mc_nbt_get_integer(mc_nbt_get(s, "Y"), &y), MC_OK);
        if (!mc_nbt_get(s, "BlockLight") || !mc_nbt_get(s, "SkyLight"))
            f->light_always = false;
        if (!has_blocks(s))
            f->no_blocks = true;
        if (dv < MC__DV_CONTAINERS && (y < 0 || y > 15))
            f->outside = true;
    }
}

static facts vanilla_facts(const target *t)
{
    facts f = {true, false, false, 0};
    each_chunk(t->vanilla, 0, gather, &f);
    assert_true(f.chunks > 0);
    return f;
}

/* The rules table agrees with what vanilla writes. */
static void test_rules_match_vanilla(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        const target *t = &targets[i];
        facts f = vanilla_facts(t);
        const mc__section_rules *r = mc__section_rules_of(t->dv);
        print_message("%-7s vanilla: light in every section %d, sections without blocks %d, outside 0..15 %d "
                      "(%u chunks)\n", t->name, f.light_always, f.no_blocks, f.outside, f.chunks);
        assert_int_equal(r->light_required, f.light_always);
        if (f.no_blocks)
            assert_true(r->without_blocks);
        if (!r->without_blocks)
            assert_false(f.no_blocks);
        if (f.outside)
            assert_true(r->edges);
        if (t->dv < MC__DV_CONTAINERS && !r->edges)
            assert_false(f.outside);
    }
}

typedef struct convert_ctx {
    const target *t;
    const facts *f;
    const char *src;
    unsigned chunks, sections, filled;
} convert_ctx;

static void convert_one(const mc_nbt_tag *root, const uint8_t *nbt, size_t len, void *vctx)
{
    (void)root;
    convert_ctx *c = vctx;
    mc_error err;
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(nbt, len, NULL, &col, &err), MC_OK);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    mc_chunknbt_report rep;
    assert_int_equal(mc_chunknbt_write(col, c->t->dv, out, &rep, &err), MC_OK);
    for (mc_nbt_tag *s = mc_nbt_first(sections_of(mc_nbt_doc_root(out))); s; s = mc_nbt_next(s)) {
        int64_t y;
        assert_int_equal(mc_nbt_get_integer(mc_nbt_get(s, "Y"), &y), MC_OK);
        bool bad = !light_ok(s, "BlockLight") || !light_ok(s, "SkyLight") ||
                   (c->f->light_always && (!mc_nbt_get(s, "BlockLight") || !mc_nbt_get(s, "SkyLight"))) ||
                   (!c->f->no_blocks && !has_blocks(s)) ||
                   (c->t->dv < MC__DV_CONTAINERS && !c->f->outside && (y < 0 || y > 15));
        if (bad)
            fail_msg("%s chunk %d %d as %s: section Y=%d (blocks %d, BlockLight %d, SkyLight %d) is not one "
                     "vanilla %s writes", c->src, (int)mc_column_x(col), (int)mc_column_z(col), c->t->name, (int)y,
                     has_blocks(s), mc_nbt_get(s, "BlockLight") != NULL, mc_nbt_get(s, "SkyLight") != NULL,
                     c->t->name);
        c->sections++;
    }
    if (rep.light_filled) {
        assert_true(c->f->light_always);
        assert_non_null(strstr(rep.text, "light of"));
    }
    c->filled += rep.light_filled;
    c->chunks++;
    mc_nbt_doc_free(out);
    mc_column_free(col);
}

/* Chunks of every source era written for each target keep its layout. */
static void test_converted_layouts(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        facts f = vanilla_facts(&targets[i]);
        unsigned total = 0, filled = 0, secs = 0;
        for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
            convert_ctx c = {&targets[i], &f, sources[k], 0, 0, 0};
            each_chunk(sources[k], 3, convert_one, &c);
            total += c.chunks;
            secs += c.sections;
            filled += c.filled;
        }
        print_message("%-7s %u chunks, %u sections, light filled in %u\n", targets[i].name, total, secs, filled);
        assert_true(total > 0);
    }
}

/* The filled light: straight down from the top, block light 0. */
static void check_fill(const mc_nbt_tag *root, const uint8_t *nbt, size_t len, void *vctx)
{
    (void)root;
    unsigned *count = vctx;
    mc_error err;
    mc_column *col = NULL, *back = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(nbt, len, NULL, &col, &err), MC_OK);
    const mc_registry *reg = mc_column_registry(col);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    mc_chunknbt_report rep;
    assert_int_equal(mc_chunknbt_write(col, 1631, out, &rep, &err), MC_OK);
    size_t written = mc_nbt_count(sections_of(mc_nbt_doc_root(out)));
    assert_int_equal(rep.light_filled, written); /* the source has no light at all */
    assert_true(written == 0 || strstr(rep.text, "light of") != NULL);
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(out), NULL, &back, &err), MC_OK);
    /* expected: 15 above the highest non-air block of each x,z (the whole
     * source column counts, also above 255), 0 from it down */
    int32_t top = mc_column_min_y(col) + (int32_t)mc_column_height(col) - 1;
    for (int z = 0; z < 16; z++)
        for (int x = 0; x < 16; x++) {
            int level = 15;
            for (int32_t y = top; y >= 0; y--) {
                uint32_t s = mc_column_get_block(col, x, y, z);
                if (s != mc_registry_air(reg) && !(mc_registry_state_flags(reg, s) & MC_STATE_AIR))
                    level = 0;
                if (y > 255)
                    continue;
                const mc_section *sec = mc_column_section_const(back, y >> 4);
                if (!sec || (!sec->sky_light && !sec->block_light))
                    continue; /* a section 1.13 does not store */
                assert_int_equal(mc_column_get_sky_light(back, x, y, z), level);
                assert_int_equal(mc_column_get_block_light(back, x, y, z), 0);
            }
        }
    (*count)++;
    mc_column_free(back);
    mc_nbt_doc_free(out);
    mc_column_free(col);
}

static void test_filled_light(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    unsigned n = 0;
    each_chunk("anvil/1.21.11/minestom-r.-1.-1.mca", 4, check_fill, &n);
    assert_int_equal(n, 4);

    /* stored light is kept: 1.16 (light only where the engine had it) as 1.13.2 */
    mc_region *r = NULL;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path("anvil/1.16/ppa-r.0.-1.mca"), NULL, &r, &err), MC_OK);
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    int lx = -1, lz = -1;
    for (int i = 0; i < 1024 && lx < 0; i++)
        if (mc_region_has_chunk(r, i & 31, i >> 5)) {
            lx = i & 31;
            lz = i >> 5;
        }
    assert_int_equal(mc_region_read_chunk(r, lx, lz, &buf, NULL, &err), MC_OK);
    mc_column *col = NULL, *back = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, NULL, &col, &err), MC_OK);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    mc_chunknbt_report rep;
    assert_int_equal(mc_chunknbt_write(col, 1631, out, &rep, &err), MC_OK);
    assert_true(rep.light_filled > 0);
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(out), NULL, &back, &err), MC_OK);
    unsigned kept = 0;
    for (int32_t sy = 0; sy < 16; sy++) {
        const mc_section *a = mc_column_section_const(col, sy), *b = mc_column_section_const(back, sy);
        if (!b->sky_light)
            continue; /* not stored for 1.13 (air) */
        if (a->sky_light) {
            assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
            kept++;
        }
        if (a->block_light)
            assert_memory_equal(a->block_light, b->block_light, MC_LIGHT_BYTES);
    }
    assert_true(kept > 0);
    /* a section without stored sky light under one with it continues that
     * one's bottom layer straight down */
    for (int32_t sy = 14; sy >= 0; sy--) {
        const mc_section *a = mc_column_section_const(col, sy), *above = mc_column_section_const(col, sy + 1);
        if (a->sky_light || !above->sky_light || !mc_column_section_const(back, sy)->sky_light)
            continue;
        for (int i = 0; i < 256; i++)
            if (mc_light_get(above->sky_light, (unsigned)i) == 0)
                assert_int_equal(mc_light_get(mc_column_section_const(back, sy)->sky_light, (unsigned)(15 << 8 | i)), 0);
    }
    mc_column_free(back);
    mc_column_free(col);
    mc_nbt_doc_free(out);
    mc_buf_free(&buf);
    mc_region_close(r);
}

/* The block palettes written for 1.18+: a palette whose entries are all
 * used and differ is kept in its own order; one with an unused entry (used
 * by the last block only, or by none) or an entry twice is written as the
 * game compacts it, in first-occurrence order. */
static size_t expect_palette(const uint32_t *pal, size_t n, const uint16_t *idx, const char *want)
{
    const int32_t dv = 4189; /* 1.21.4 */
    const mc_registry *reg = mc_chunknbt_registry_for(dv);
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    assert_non_null(col);
    uint64_t longs[512];
    memset(longs, 0, sizeof longs);
    const unsigned bits = n > 16 ? 8 : 4;
    mc_bits_pack_u16(idx, 4096, bits, MC_BITS_PADDED, longs);
    mc_section *sec = mc_column_section(col, 0);
    mc_container_free(&sec->blocks);
    mc_container_rules rules = mc_container_rules_blocks(mc_registry_direct_bits(reg));
    mc_error err;
    assert_int_equal(mc_container_from_longs(&sec->blocks, &rules, bits, MC_BITS_PADDED, pal, n, longs,
                                             mc_bits_longs(4096, bits, MC_BITS_PADDED), NULL, &err), MC_OK);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_chunknbt_write(col, dv, out, NULL, &err), MC_OK);
    char got[256] = "";
    size_t entries = 0;
    const mc_nbt_tag *secs = sections_of(mc_nbt_doc_root(out));
    for (size_t i = 0; i < mc_nbt_count(secs); i++) {
        const mc_nbt_tag *e = mc_nbt_list_at(secs, i);
        int64_t y = -100;
        mc_nbt_get_integer(mc_nbt_get(e, "Y"), &y);
        if (y != 0)
            continue;
        const mc_nbt_tag *p = mc_nbt_path(e, "block_states.palette");
        entries = mc_nbt_count(p);
        for (size_t k = 0; k < mc_nbt_count(p) && want && strlen(got) < 150; k++) {
            const char *name;
            size_t len;
            assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_nbt_list_at(p, k), "Name"), &name, &len), MC_OK);
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s", k ? " " : "", (int)len, name);
        }
    }
    if (want && want[0] == '^') /* only the first entry */
        assert_int_equal(strncmp(got, want + 1, strlen(want + 1)), 0);
    else if (want)
        assert_string_equal(got, want);
    mc_nbt_doc_free(out);
    mc_column_free(col);
    return entries;
}

static void test_written_palettes(void **state)
{
    (void)state;
    const mc_registry *reg = mc_chunknbt_registry_for(4189);
    uint32_t air, stone, dirt, granite;
    mc_error err;
    assert_int_equal(mc_registry_parse_state(reg, "air", 3, &air, &err), MC_OK);
    assert_int_equal(mc_registry_parse_state(reg, "stone", 5, &stone, &err), MC_OK);
    assert_int_equal(mc_registry_parse_state(reg, "dirt", 4, &dirt, &err), MC_OK);
    assert_int_equal(mc_registry_parse_state(reg, "granite", 7, &granite, &err), MC_OK);
    static uint16_t idx[4096];
    /* all used, not in first-occurrence order: kept */
    memset(idx, 0, sizeof idx);
    idx[0] = 1, idx[4095] = 2;
    expect_palette((uint32_t[]){stone, air, granite}, 3, idx, "minecraft:stone minecraft:air minecraft:granite");
    expect_palette((uint32_t[]){stone, dirt, air, granite}, 4, (idx[1] = 2, idx[4095] = 3, idx[2] = 1, idx),
                   "minecraft:stone minecraft:dirt minecraft:air minecraft:granite");
    /* granite used by the last block only, dirt by none: compacted */
    memset(idx, 0, sizeof idx);
    idx[100] = 1, idx[4095] = 3;
    expect_palette((uint32_t[]){air, stone, dirt, granite}, 4, idx, "minecraft:air minecraft:stone minecraft:granite");
    /* the last entry unused */
    idx[4095] = 1;
    expect_palette((uint32_t[]){air, stone, granite}, 3, idx, "minecraft:air minecraft:stone");
    /* an entry twice */
    idx[4095] = 2;
    expect_palette((uint32_t[]){air, stone, stone}, 3, idx, "minecraft:air minecraft:stone");
    /* more than 64 entries: all used (the last one by the last block), then
     * one of them unused */
    uint32_t many[100];
    for (uint32_t k = 0; k < 100; k++)
        many[k] = 1 + k;
    for (size_t i = 0; i < 4096; i++)
        idx[i] = (uint16_t)(98 - i % 99); /* first-occurrence order: the reverse */
    idx[4095] = 99;
    char first[80];
    assert_true(mc_registry_format_state(reg, many[0], first + 1, sizeof first - 1, 0));
    first[0] = '^';
    assert_int_equal(expect_palette(many, 100, idx, first), 100); /* kept: many[0] first */
    idx[4095] = 0;
    assert_int_equal(expect_palette(many, 100, idx, NULL), 99);
    /* more than 16 entries, every one used, one of them twice (the first
     * and the last met): merged */
    idx[4095] = 99;
    many[99] = many[98];
    assert_int_equal(expect_palette(many, 100, idx, NULL), 99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_match_vanilla),
        cmocka_unit_test(test_converted_layouts),
        cmocka_unit_test(test_filled_light),
        cmocka_unit_test(test_written_palettes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
