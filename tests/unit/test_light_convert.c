/*
 * test_light_convert.c: light where a chunk is written for a version that
 * stores it and the column has none.
 *  - The chunk NBT writer says whether the light is there: isLightOn (1.14+)
 *    and LightPopulated (1.8-1.12) are 0 for a column without any light (the
 *    game lights it on load) and 1 for a lit one.
 *  - `mcchunk chunk convert` lights a chunk stored without light (corpus:
 *    Minestom's 1.21.11 region, which stores none) with the engine, from its
 *    blocks and its neighbours in the same file: the written light is exactly
 *    mc_light_column's over those columns, for a 1.18+ and a 1.12.2 target;
 *    a chunk that has light keeps the light it stored.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcchunk/mcchunk.h"

/* The byte `key` of the chunk NBT (root or Level), -1 when absent. */
static int flag(mc_nbt_doc *doc, const char *key)
{
    mc_nbt_tag *root = mc_nbt_doc_root(doc), *level = mc_nbt_get(root, "Level");
    int8_t v = -1;
    if (mc_nbt_get_byte(mc_nbt_get(level ? level : root, key), &v) != MC_OK)
        return -1;
    return v;
}

static void test_writer_flags(void **st)
{
    (void)st;
    const mc_registry *reg = mc_chunknbt_registry_for(3465); /* 1.20.1 */
    assert_non_null(reg);
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    uint32_t stone = 0;
    assert_int_equal(mc_registry_parse_state(reg, "stone", 5, &stone, NULL), MC_OK);
    for (int z = 0; z < 16; z++)
        for (int x = 0; x < 16; x++)
            for (int y = -64; y < 60; y++)
                mc_column_set_block(col, x, y, z, stone);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    /* no light at all: the game is asked to light it */
    assert_int_equal(mc_chunknbt_write(col, 3465, doc, NULL, &err), MC_OK);
    assert_int_equal(flag(doc, "isLightOn"), 0);
    assert_int_equal(mc_chunknbt_write(col, 1343, doc, NULL, &err), MC_OK); /* 1.12.2: light filled, not trusted */
    assert_int_equal(flag(doc, "LightPopulated"), 0);
    /* lit */
    mc_light_engine *e = mc_light_engine_new(NULL);
    assert_int_equal(mc_light_column(e, col, NULL, MC_LIGHT_BOTH, &err), MC_OK);
    assert_int_equal(mc_chunknbt_write(col, 3465, doc, NULL, &err), MC_OK);
    assert_int_equal(flag(doc, "isLightOn"), 1);
    assert_int_equal(mc_chunknbt_write(col, 1343, doc, NULL, &err), MC_OK);
    assert_int_equal(flag(doc, "LightPopulated"), 1);
    mc_light_engine_free(e);
    mc_nbt_doc_free(doc);
    mc_column_free(col);
}

static const char *tool;

static void find_tool(void)
{
    tool = mc_test_tool(); /* (skips when the tool is not built) */
}

static mc_column *load(mc_region *r, int32_t x, int32_t z)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_column *col = NULL;
    mc_error err;
    if (mc_region_has_chunk(r, x & 31, z & 31) && mc_region_read_chunk(r, x & 31, z & 31, &b, NULL, &err) == MC_OK)
        mc_chunknbt_read_bytes(b.data, b.len, NULL, &col, &err);
    mc_buf_free(&b);
    return col;
}

/* Converts chunk (x, z) of `region` to `version`; the written column. */
static mc_column *convert(const char *region, int32_t x, int32_t z, const char *version)
{
    char out[] = "/tmp/mcchunk-light-convert-XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' chunk convert '%s' %d %d --to-version %s -o '%s' 2>/dev/null", tool, region,
             (int)x, (int)z, version, out);
    assert_int_equal(system(cmd), 0);
    size_t len = 0;
    uint8_t *bytes = mc_test_read_file(out, &len);
    unlink(out);
    mc_column *col = NULL;
    mc_error err;
    assert_int_equal(mc_chunknbt_read_bytes(bytes, len, NULL, &col, &err), MC_OK);
    free(bytes);
    return col;
}

/* The light of got's sections in y0..y1 is want's; a section stored
 * without light must be one the format leaves out (all air, 1.8-1.12). */
static void same_light(const mc_column *got, const mc_column *want, int32_t y0, int32_t y1)
{
    unsigned compared = 0;
    for (int32_t sy = y0 / 16; sy < y1 / 16; sy++) {
        const mc_section *a = mc_column_section_const(got, sy), *b = mc_column_section_const(want, sy);
        if (!a->sky_light && mc_section_block_count(a, mc_column_registry(got)) == 0)
            continue;
        compared++;
        assert_non_null(a->sky_light);
        assert_non_null(a->block_light);
        assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
        assert_memory_equal(a->block_light, b->block_light, MC_LIGHT_BYTES);
    }
    assert_true(compared >= 6);
}

static void test_convert_lights_unlit(void **st)
{
    (void)st;
    MC_SKIP_WITHOUT_CORPUS();
    find_tool();
    char path[4096];
    snprintf(path, sizeof path, "%s", mc_test_corpus_path("anvil/1.21.11/minestom-r.-1.-1.mca"));
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    const int32_t x = -4, z = -4; /* terrain from y -64 to 98, all eight neighbours in the file */
    mc_column *around[9];
    for (int k = 0; k < 9; k++)
        assert_non_null(around[k] = load(r, x + k % 3 - 1, z + k / 3 - 1));
    for (uint32_t i = 0; i < mc_column_section_count(around[4]); i++) /* the premise: no light stored */
        assert_null(mc_column_section_at(around[4], i)->sky_light);
    const mc_column *nb[8] = {around[0], around[1], around[2], around[3], around[5], around[6], around[7], around[8]};
    mc_light_engine *e = mc_light_engine_new(NULL);
    assert_int_equal(mc_light_column(e, around[4], nb, MC_LIGHT_BOTH, &err), MC_OK);
    mc_column *got = convert(path, x, z, "1.21.1");
    same_light(got, around[4], -64, 320);
    mc_column_free(got);
    got = convert(path, x, z, "1.12.2"); /* y 0..255 of the same light */
    same_light(got, around[4], 0, 256);
    mc_column_free(got);
    mc_light_engine_free(e);
    for (int k = 0; k < 9; k++)
        mc_column_free(around[k]);
    mc_region_close(r);
    /* a lit chunk keeps its own light */
    snprintf(path, sizeof path, "%s", mc_test_corpus_path("anvil/1.19.4/ppa-r.0.0.mca"));
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    mc_column *src = NULL;
    int32_t lx = 0, lz = 0;
    for (int i = 0; i < 1024 && !src; i++) {
        mc_column *c = load(r, i % 32, i / 32);
        bool lit = false;
        for (uint32_t k = 0; c && k < mc_column_section_count(c); k++)
            lit = lit || mc_column_section_at(c, k)->sky_light;
        if (lit)
            src = c, lx = i % 32, lz = i / 32;
        else
            mc_column_free(c);
    }
    assert_non_null(src);
    got = convert(path, lx, lz, "1.20.6");
    for (uint32_t k = 0; k < mc_column_section_count(src); k++) {
        const mc_section *a = mc_column_section_at(got, k), *b = mc_column_section_at(src, k);
        assert_true((a->sky_light == NULL) == (b->sky_light == NULL));
        if (b->sky_light)
            assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
    }
    mc_column_free(got);
    mc_column_free(src);
    mc_region_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_flags),
        cmocka_unit_test(test_convert_lights_unlit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
