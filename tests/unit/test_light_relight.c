/*
 * test_light_relight.c: `mcchunk region relight` run as a program on a
 * temporary copy of a corpus region (1.19.4, 144 full chunks): exit 0, then
 * every full chunk holds isLightOn 1, the blocks it had, and exactly the
 * light mc_light_column computes from the original file (neighbours from
 * the same file, absent beyond it). Usage errors exit 2, a missing file 1.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/mcchunk.h"


static mc_column *load(mc_region *r, int lx, int lz)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_column *col = NULL;
    mc_error err;
    if (mc_region_has_chunk(r, lx, lz) && mc_region_read_chunk(r, lx, lz, &b, NULL, &err) == MC_OK)
        mc_chunknbt_read_bytes(b.data, b.len, NULL, &col, &err);
    mc_buf_free(&b);
    return col;
}

static bool full_lit(mc_column *col, int8_t *lit)
{
    mc_nbt_tag *x = mc_column_extra(col), *st = mc_nbt_get(x, "Status"), *on = mc_nbt_get(x, "isLightOn");
    const char *s;
    size_t n;
    *lit = 0;
    if (on)
        mc_nbt_get_byte(on, lit);
    return st && mc_nbt_get_string(st, &s, &n) == MC_OK &&
           ((n == 4 && !memcmp(s, "full", 4)) || (n == 14 && !memcmp(s, "minecraft:full", 14)));
}

static void test_relight_command(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    mc_test_tool(); /* (skips when the tool is not built) */
    const char *src = mc_test_corpus_path("anvil/1.19.4/ppa-r.0.0.mca");
    size_t len;
    uint8_t *bytes = mc_test_read_file(src, &len);
    char tmp[] = "/tmp/mcchunk-relight-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char path[256], args[600];
    snprintf(path, sizeof path, "%s/r.0.0.mca", tmp);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    free(bytes);

    /* the expected light, from the original */
    mc_region *orig;
    mc_error err;
    assert_int_equal(mc_region_open(path, NULL, &orig, &err), MC_OK);
    static mc_column *cols[32][32];
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++)
            cols[z][x] = load(orig, x, z);
    mc_region_close(orig);

    snprintf(args, sizeof args, "region relight '%s'", path);
    assert_int_equal(mc_test_run_tool(args), 0);

    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_region *out;
    assert_int_equal(mc_region_open(path, NULL, &out, &err), MC_OK);
    unsigned checked = 0, unlit_before = 0;
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++) {
            int8_t lit;
            if (!cols[z][x] || !full_lit(cols[z][x], &lit))
                continue;
            unlit_before += !lit;
            const mc_column *nb[8];
            int k = 0;
            for (int dz = -1; dz <= 1; dz++)
                for (int dx = -1; dx <= 1; dx++)
                    if (dx || dz)
                        nb[k++] = x + dx >= 0 && x + dx < 32 && z + dz >= 0 && z + dz < 32 ? cols[z + dz][x + dx] : NULL;
            assert_int_equal(mc_light_column(e, cols[z][x], nb, MC_LIGHT_BOTH, &err), MC_OK);
            mc_column *got = load(out, x, z);
            assert_non_null(got);
            assert_true(full_lit(got, &lit));
            assert_int_equal(lit, 1);
            assert_int_equal(mc_column_section_count(got), mc_column_section_count(cols[z][x]));
            for (uint32_t s = 0; s < mc_column_section_count(got); s++) {
                const mc_section *a = mc_column_section_at(got, s), *b = mc_column_section_at(cols[z][x], s);
                assert_true(mc_container_equal(&a->blocks, &b->blocks));
                assert_non_null(a->sky_light);
                assert_non_null(a->block_light);
                assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
                assert_memory_equal(a->block_light, b->block_light, MC_LIGHT_BYTES);
            }
            mc_column_free(got);
            checked++;
        }
    mc_region_close(out);
    assert_int_equal(checked, 144);
    print_message("relit %u full chunks (%u had isLightOn 0)\n", checked, unlit_before);

    /* usage and failures */
    assert_int_equal(mc_test_run_tool("region relight"), 2);
    snprintf(args, sizeof args, "region relight '%s/none.mca'", tmp);
    assert_int_equal(mc_test_run_tool(args), 1);

    mc_light_engine_free(e);
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++)
            mc_column_free(cols[z][x]);
    snprintf(args, sizeof args, "rm -rf '%s'", tmp);
    assert_int_equal(system(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relight_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
