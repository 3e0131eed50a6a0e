/* test_unlit.c: the server's light for world-folder columns stored without
 * light (server/unlit.c) is the light engine's over the column and its
 * eight neighbours, read through the world's reader; the reader's own
 * (nested) calls for those neighbours do nothing, so one column costs
 * eight reads; a missing neighbour counts as not loaded. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/light.h"
#include "server/terrain.h"
#include "server/unlit.h"

/* A 5 x 5 world of generated columns (no light), centred on chunk 0 0. */
static mc_column *world[5][5];
static unsigned reads;
static bool hole; /* column (1, 0) missing */

static mc_column *copy_of(const mc_column *c)
{
    mc_column *n = mc_column_new(mc_column_registry(c), mc_column_x(c), mc_column_z(c), mc_column_min_section(c),
                                 mc_column_section_count(c), NULL);
    for (uint32_t i = 0; i < mc_column_section_count(c); i++)
        assert_int_equal(mc_section_copy(mc_column_section_at(n, i), mc_column_section_const(c, mc_column_min_section(c) +
                                                                                                    (int32_t)i)),
                         MC_OK);
    return n;
}

/* As world.c's read_column: a fresh copy, lit through srv_light_unlit
 * when it has no light (which it never has here). */
static mc_column *reader(srv_world *w, int32_t cx, int32_t cz)
{
    reads++;
    if (cx < -2 || cx > 2 || cz < -2 || cz > 2 || (hole && cx == 1 && cz == 0))
        return NULL;
    mc_column *c = copy_of(world[cz + 2][cx + 2]);
    srv_light_unlit(w, c, reader);
    return c;
}

static int setup(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("26.1");
    srv_terrain *t = srv_terrain_new(reg, 20260101);
    uint32_t *blocks = malloc((size_t)MC_TERRAIN_SECTIONS * 4096 * 4), *biomes = malloc(MC_TERRAIN_SECTIONS * 64 * 4);
    for (int z = 0; z < 5; z++)
        for (int x = 0; x < 5; x++) {
            srv_terrain_generate(t, x - 2, z - 2, blocks, biomes);
            mc_column *c = mc_column_new(reg, x - 2, z - 2, MC_TERRAIN_MIN_Y >> 4, MC_TERRAIN_SECTIONS, NULL);
            for (uint32_t i = 0; i < MC_TERRAIN_SECTIONS; i++)
                mc_container_set_all(&mc_column_section_at(c, i)->blocks, blocks + (size_t)i * 4096);
            world[z][x] = c;
        }
    free(blocks);
    free(biomes);
    srv_terrain_free(t);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int z = 0; z < 5; z++)
        for (int x = 0; x < 5; x++)
            mc_column_free(world[z][x]);
    return 0;
}

static void check(int32_t cx, int32_t cz)
{
    reads = 0;
    mc_column *col = copy_of(world[cz + 2][cx + 2]);
    srv_light_unlit(NULL, col, reader);
    assert_int_equal(reads, 8);
    /* the engine over the same blocks */
    mc_column *want = copy_of(world[cz + 2][cx + 2]);
    const mc_column *nb[8];
    for (int k = 0, n = 0; k < 9; k++) {
        const int x = cx + k % 3 - 1, z = cz + k / 3 - 1;
        if (k != 4)
            nb[n++] = (hole && x == 1 && z == 0) ? NULL : world[z + 2][x + 2];
    }
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    assert_int_equal(mc_light_column(e, want, nb, MC_LIGHT_BOTH, &err), MC_OK);
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *a = mc_column_section_at(col, i), *b = mc_column_section_at(want, i);
        assert_non_null(a->sky_light);
        assert_non_null(a->block_light);
        assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
        assert_memory_equal(a->block_light, b->block_light, MC_LIGHT_BYTES);
    }
    mc_light_engine_free(e);
    mc_column_free(want);
    mc_column_free(col);
}

static void test_unlit_columns(void **state)
{
    (void)state;
    check(0, 0);
    check(-1, 1);
    hole = true;
    check(0, 0);
    hole = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_unlit_columns)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
