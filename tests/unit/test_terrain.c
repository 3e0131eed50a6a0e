/* test_terrain.c: the built-in world is deterministic (same bytes for a
 * column whatever was generated before it), in range, varied (several
 * palette sizes, a direct-palette showcase section), and spawns on land;
 * its served columns carry the light the engine gives them with their
 * eight neighbours (whatever columns were served before), and its torches
 * and glowstone shine. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/light.h"
#include "server/terrain.h"

static unsigned distinct(const uint32_t *v, size_t n)
{
    uint32_t *copy = malloc(n * sizeof *copy);
    memcpy(copy, v, n * sizeof *copy);
    unsigned d = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < d && !seen; j++)
            seen = copy[j] == v[i];
        if (!seen)
            copy[d++] = v[i];
    }
    free(copy);
    return d;
}

static void test_deterministic_and_varied(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("26.1");
    assert_non_null(reg);
    srv_terrain *t = srv_terrain_new(reg, 12345);
    srv_terrain *t2 = srv_terrain_new(reg, 12345);
    size_t nb = (size_t)MC_TERRAIN_SECTIONS * 4096, nbi = (size_t)MC_TERRAIN_SECTIONS * 64;
    uint32_t *a = malloc(nb * 4), *b = malloc(nb * 4), *ba = malloc(nbi * 4), *bb = malloc(nbi * 4);
    /* Same column from two generators after different histories. */
    srv_terrain_generate(t, 3, -2, a, ba);
    srv_terrain_generate(t2, 4, -2, b, bb);
    srv_terrain_generate(t2, 3, -3, b, bb);
    srv_terrain_generate(t2, 3, -2, b, bb);
    assert_memory_equal(a, b, nb * 4);
    assert_memory_equal(ba, bb, nbi * 4);

    uint32_t count = mc_registry_state_count(reg);
    unsigned widths[16] = {0};
    bool any_water = false, any_leaves = false;
    uint32_t water = 0, leaves = 0;
    assert_int_equal(mc_registry_parse_state(reg, "water", 5, &water, NULL), MC_OK);
    for (int cz = -4; cz < 4; cz++)
        for (int cx = -4; cx < 4; cx++) {
            srv_terrain_generate(t, cx, cz, a, ba);
            for (size_t i = 0; i < nb; i++) {
                assert_true(a[i] < count);
                any_water |= a[i] == water;
                any_leaves |= (mc_registry_state_flags(reg, a[i]) & MC_STATE_LEAVES) != 0;
            }
            for (int s = 0; s < MC_TERRAIN_SECTIONS; s++) {
                unsigned d = distinct(a + (size_t)s * 4096, 4096);
                unsigned w = d <= 1 ? 0 : d <= 16 ? 4 : d <= 32 ? 5 : d <= 64 ? 6 : d <= 256 ? 8 : 15;
                widths[w]++;
            }
        }
    (void)leaves;
    assert_true(any_water);
    assert_true(any_leaves);
    assert_true(widths[0] > 0 && widths[4] > 0 && widths[5] > 0);
    assert_true(widths[15] >= 1); /* the showcase section needs the global palette */

    int32_t x, y, z;
    srv_terrain_find_spawn(t, &x, &y, &z);
    assert_true(y > 62);
    assert_int_equal(y - 1, srv_terrain_surface(t, x, z));
    srv_terrain_free(t);
    srv_terrain_free(t2);
    free(a);
    free(b);
    free(ba);
    free(bb);
}

/* Column (cx, cz) built from srv_terrain_generate alone, without light. */
static mc_column *plain_column(srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes)
{
    const mc_registry *reg = srv_terrain_registry(t);
    srv_terrain_generate(t, cx, cz, blocks, biomes);
    mc_column *col = mc_column_new(reg, cx, cz, MC_TERRAIN_MIN_Y >> 4, MC_TERRAIN_SECTIONS, NULL);
    for (uint32_t i = 0; i < MC_TERRAIN_SECTIONS; i++)
        assert_int_equal(mc_container_set_all(&mc_column_section_at(col, i)->blocks, blocks + (size_t)i * 4096), MC_OK);
    return col;
}

/* The served column's light is mc_light_column's over the nine generated
 * columns, in an order that sends columns back and forth through the
 * generator's cache of neighbours; torches and glowstone are there and lit. */
static void test_light(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("26.1");
    assert_non_null(reg);
    srv_terrain *t = srv_terrain_new(reg, 20260101);
    uint32_t *blocks = malloc((size_t)MC_TERRAIN_SECTIONS * 4096 * 4), *biomes = malloc(MC_TERRAIN_SECTIONS * 64 * 4);
    mc_light_engine *e = mc_light_engine_new(NULL);
    uint32_t torch = 0, glowstone = 0;
    assert_int_equal(mc_registry_parse_state(reg, "torch", 5, &torch, NULL), MC_OK);
    assert_int_equal(mc_registry_parse_state(reg, "glowstone", 9, &glowstone, NULL), MC_OK);
    static const int order[][2] = {{0, 0}, {1, 0}, {5, 5}, {0, 1}, {-1, -1}, {1, 1}, {2, 0}, {6, 5}, {0, 0}, {4, 0}};
    unsigned torches = 0, glows = 0;
    for (size_t n = 0; n < sizeof order / sizeof order[0]; n++) {
        const int cx = order[n][0], cz = order[n][1];
        mc_column *served = srv_terrain_column(t, cx, cz, blocks, biomes);
        assert_non_null(served);
        mc_column *around[9];
        for (int k = 0; k < 9; k++)
            around[k] = plain_column(t, cx + k % 3 - 1, cz + k / 3 - 1, blocks, biomes);
        const mc_column *nb[8] = {around[0], around[1], around[2], around[3], around[5], around[6], around[7], around[8]};
        mc_error err;
        assert_int_equal(mc_light_column(e, around[4], nb, MC_LIGHT_BOTH, &err), MC_OK);
        static const uint8_t dark[MC_LIGHT_BYTES];
        for (uint32_t i = 0; i < MC_TERRAIN_SECTIONS; i++) {
            const mc_section *a = mc_column_section_at(served, i), *b = mc_column_section_at(around[4], i);
            assert_non_null(a->sky_light);
            assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
            /* a section without block light keeps no array */
            assert_memory_equal(a->block_light ? a->block_light : dark, b->block_light, MC_LIGHT_BYTES);
            if (a->block_light)
                assert_memory_not_equal(a->block_light, dark, MC_LIGHT_BYTES);
        }
        /* a torch on the ground: 14, and one less per block straight up */
        for (int32_t y = MC_TERRAIN_MIN_Y; y < MC_TERRAIN_MIN_Y + 16 * MC_TERRAIN_SECTIONS; y++)
            for (int32_t z = 0; z < 16; z++)
                for (int32_t x = 0; x < 16; x++) {
                    const uint32_t s = mc_column_get_block(served, x, y, z);
                    if (s == glowstone) {
                        glows++;
                        assert_int_equal(mc_column_get_block_light(served, x, y, z), 15);
                    }
                    if (s != torch)
                        continue;
                    torches++;
                    for (int k = 0; k <= 5; k++)
                        assert_int_equal(mc_column_get_block_light(served, x, y + k, z), 14 - k);
                }
        for (int k = 0; k < 9; k++)
            mc_column_free(around[k]);
        mc_column_free(served);
    }
    assert_true(torches >= 2);
    assert_true(glows >= 2);
    mc_light_engine_free(e);
    srv_terrain_free(t);
    free(blocks);
    free(biomes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_deterministic_and_varied), cmocka_unit_test(test_light)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
