/* test_terrain.c: the built-in world is deterministic (same bytes for a
 * column whatever was generated before it), in range, varied (several
 * palette sizes, a direct-palette showcase section), and spawns on land. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_deterministic_and_varied)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
