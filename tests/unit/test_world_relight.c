/*
 * test_world_relight.c: `mcchunk world relight` lights a chunk at a region
 * file's edge with its neighbours from the next file, which `region
 * relight FILE` cannot see.
 *
 * A world of four region files (`world create --radius 5`: chunks -5..5,
 * regions -1..0 both ways) is made, then every file is relit on its own
 * (`region relight`: the chunks across the edge count as not loaded), then
 * the world is relit (`world relight --threads 2`). After it, every chunk
 * along the two region borders (x = -1 | 0 and z = -1 | 0) holds exactly the
 * light mc_light_column computes here from the chunk and its eight
 * neighbours read from whichever file holds them, and isLightOn is set; and
 * the edge chunks did differ after `region relight` (so the check can see
 * the difference). Usage errors exit 2.
 *
 * --deflate-level: the world relit again by default, with --deflate-level 6
 * and with --deflate-level 1 holds the same chunk NBT in every record; the
 * default's records are byte for byte those of level 6 (the game's), level
 * 1's differ and take more bytes in all; `region relight` by default and
 * with --deflate-level 1 likewise.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/mcchunk.h"


#define R 5 /* radius: chunks -5..5 in four region files */

/* Every chunk of the world, [z + R][x + R]. */
static mc_column *cols[2 * R + 1][2 * R + 1];

static void load_all(const char *world)
{
    for (int z = -R; z <= R; z++)
        for (int x = -R; x <= R; x++) {
            char path[1024];
            mc_error err;
            int lx, lz;
            mc_column_free(cols[z + R][x + R]);
            cols[z + R][x + R] = NULL;
            assert_int_equal(mc_world_region_path(world, MC_WORLD_LAYOUT_AUTO, "overworld", MC_REGION_KIND_REGION,
                                                  x, z, path, sizeof path, &lx, &lz, &err), MC_OK);
            mc_region *r;
            assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
            mc_buf b;
            mc_buf_init(&b, NULL);
            assert_int_equal(mc_region_read_chunk(r, lx, lz, &b, NULL, &err), MC_OK);
            assert_int_equal(mc_chunknbt_read_bytes(b.data, b.len, NULL, &cols[z + R][x + R], &err), MC_OK);
            mc_buf_free(&b);
            mc_region_close(r);
        }
}

/* True when chunk (x, z) holds the light computed from all its neighbours. */
static bool lit_with_neighbours(mc_light_engine *e, int x, int z)
{
    const mc_column *nb[8];
    int k = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dx = -1; dx <= 1; dx++)
            if (dx || dz) {
                int nx = x + dx, nz = z + dz;
                nb[k++] = nx >= -R && nx <= R && nz >= -R && nz <= R ? cols[nz + R][nx + R] : NULL;
            }
    mc_column *have = cols[z + R][x + R];
    mc_error err;
    mc_column *want = mc_column_translate(have, mc_column_registry(have), NULL, &err); /* a copy */
    assert_non_null(want);
    assert_int_equal(mc_light_column(e, want, nb, MC_LIGHT_BOTH, &err), MC_OK);
    bool same = true;
    for (uint32_t s = 0; s < mc_column_section_count(have) && same; s++) {
        const mc_section *a = mc_column_section_at(have, s), *b = mc_column_section_at(want, s);
        same = a->sky_light && a->block_light && !memcmp(a->sky_light, b->sky_light, MC_LIGHT_BYTES) &&
               !memcmp(a->block_light, b->block_light, MC_LIGHT_BYTES);
    }
    mc_column_free(want);
    return same;
}

/* Chunks along the borders between the four region files. */
static unsigned count_edges_lit(mc_light_engine *e, unsigned *total)
{
    unsigned ok = 0;
    *total = 0;
    for (int z = -R; z <= R; z++)
        for (int x = -R; x <= R; x++) {
            if (x != -1 && x != 0 && z != -1 && z != 0)
                continue;
            (*total)++;
            ok += lit_with_neighbours(e, x, z);
        }
    return ok;
}

/* Over every chunk of the four files of worlds a, b: the compressed record
 * bytes equal (*same_raw), the inflated NBT equal (asserted), and the sum
 * of each world's record lengths. */
static void compare_worlds(const char *a, const char *b, bool *same_raw, size_t *len_a, size_t *len_b)
{
    *same_raw = true;
    *len_a = *len_b = 0;
    for (int rz = -1; rz <= 0; rz++)
        for (int rx = -1; rx <= 0; rx++) {
            char pa[300], pb[300];
            snprintf(pa, sizeof pa, "%s/region/r.%d.%d.mca", a, rx, rz);
            snprintf(pb, sizeof pb, "%s/region/r.%d.%d.mca", b, rx, rz);
            mc_region *ra, *rb;
            mc_error err;
            assert_int_equal(mc_region_open(pa, NULL, &ra, &err), MC_OK);
            assert_int_equal(mc_region_open(pb, NULL, &rb, &err), MC_OK);
            for (int i = 0; i < 1024; i++) {
                if (!mc_region_has_chunk(ra, i & 31, i >> 5))
                    continue;
                mc_buf x, y;
                mc_buf_init(&x, NULL);
                mc_buf_init(&y, NULL);
                assert_int_equal(mc_region_read_raw(ra, i & 31, i >> 5, &x, NULL, &err), MC_OK);
                assert_int_equal(mc_region_read_raw(rb, i & 31, i >> 5, &y, NULL, &err), MC_OK);
                *len_a += x.len, *len_b += y.len;
                if (x.len != y.len || memcmp(x.data, y.data, x.len))
                    *same_raw = false;
                x.len = y.len = 0;
                assert_int_equal(mc_region_read_chunk(ra, i & 31, i >> 5, &x, NULL, &err), MC_OK);
                assert_int_equal(mc_region_read_chunk(rb, i & 31, i >> 5, &y, NULL, &err), MC_OK);
                assert_int_equal(x.len, y.len);
                assert_memory_equal(x.data, y.data, x.len);
                mc_buf_free(&x);
                mc_buf_free(&y);
            }
            mc_region_close(ra);
            mc_region_close(rb);
        }
}

static void test_world_relight(void **state)
{
    (void)state;
    const char *tool = mc_test_tool();
    char tmp[] = "/tmp/mcchunk-world-relight-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char world[256], args[1200];
    snprintf(world, sizeof world, "%s/w", tmp);
    snprintf(args, sizeof args, "world create '%s' --version 1.20.1 --radius %d --quiet", world, R);
    assert_int_equal(mc_test_run_tool(args), 0);
    /* each file on its own: the edges lose their neighbours' light */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' region relight '%s'/region/r.*.mca >/dev/null 2>&1", tool, world);
    assert_int_equal(system(cmd), 0);
    mc_light_engine *e = mc_light_engine_new(NULL);
    load_all(world);
    unsigned total = 0, before = count_edges_lit(e, &total);
    snprintf(args, sizeof args, "world relight '%s' --threads 2 --quiet", world);
    assert_int_equal(mc_test_run_tool(args), 0);
    load_all(world);
    unsigned after = count_edges_lit(e, &total);
    print_message("%u border chunks: %u lit as with all neighbours after region relight, %u after world relight\n",
                  total, before, after);
    assert_int_equal(total, 4 * (2 * R + 1) - 4);
    assert_int_equal(after, total);
    assert_true(before + 5 < total); /* (caves and overhangs near an edge differ) */
    /* isLightOn everywhere */
    for (int z = -R; z <= R; z++)
        for (int x = -R; x <= R; x++) {
            int8_t on = 0;
            mc_nbt_get_byte(mc_nbt_get(mc_column_extra(cols[z + R][x + R]), "isLightOn"), &on);
            assert_int_equal(on, 1);
            mc_column_free(cols[z + R][x + R]);
            cols[z + R][x + R] = NULL;
        }
    mc_light_engine_free(e);
    /* --deflate-level: the same light, records deflated at that level */
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/w1' && cp -r '%s' '%s/w6'", world, tmp, world, tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(args, sizeof args, "world relight '%s' --quiet", world);
    assert_int_equal(mc_test_run_tool(args), 0);
    snprintf(args, sizeof args, "world relight '%s/w1' --quiet --deflate-level 1", tmp);
    assert_int_equal(mc_test_run_tool(args), 0);
    snprintf(args, sizeof args, "world relight '%s/w6' --quiet --deflate-level 6", tmp);
    assert_int_equal(mc_test_run_tool(args), 0);
    char w1[300], w6[300];
    snprintf(w1, sizeof w1, "%s/w1", tmp);
    snprintf(w6, sizeof w6, "%s/w6", tmp);
    bool same;
    size_t len_default, len1, len6;
    compare_worlds(world, w6, &same, &len_default, &len6);
    assert_true(same);
    compare_worlds(w6, w1, &same, &len6, &len1);
    print_message("records: %zu bytes at the default level, %zu at level 1, %zu at level 6\n", len_default, len1,
                  len6);
    assert_false(same);
    assert_true(len6 < len1);
    /* region relight: the default's records against --deflate-level 1's */
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/r1' && cp -r '%s' '%s/r6'", world, tmp, world, tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' region relight '%s'/r6/region/r.*.mca >/dev/null 2>&1", tool, tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' region relight --deflate-level 1 '%s'/r1/region/r.*.mca >/dev/null 2>&1", tool,
             tmp);
    assert_int_equal(system(cmd), 0);
    snprintf(w1, sizeof w1, "%s/r1", tmp);
    snprintf(w6, sizeof w6, "%s/r6", tmp);
    compare_worlds(w6, w1, &same, &len6, &len1);
    print_message("region relight: %zu bytes by default, %zu at level 1\n", len6, len1);
    assert_false(same);
    assert_true(len6 < len1);
    assert_int_equal(mc_test_run_tool("world relight /nonexistent --deflate-level 0"), 2);
    assert_int_equal(mc_test_run_tool("world relight /nonexistent --deflate-level 13"), 2);
    assert_int_equal(mc_test_run_tool("region relight --deflate-level x /nonexistent"), 2);
    assert_int_equal(mc_test_run_tool("region verify --deflate-level 6 /nonexistent"), 2);
    assert_int_equal(mc_test_run_tool("world relight"), 2);
    assert_int_equal(mc_test_run_tool("world relight /nonexistent --threads 0"), 2);
    snprintf(args, sizeof args, "world relight '%s/none'", tmp);
    assert_int_equal(mc_test_run_tool(args), 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_relight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
