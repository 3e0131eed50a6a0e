/*
 * test_heightmap.c: the six heightmaps computed from blocks through registry
 * flags, against a brute-force scan of every column; hand-checked values
 * (leaves, water, glass, air kinds); packing at ceil(log2(height+1)) bits in
 * both layouts (37 padded / 36 spanning longs for 384 and 256 blocks) and
 * validation of maps read from outside.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunk.h"

static const mc_registry *reg_or_skip(void)
{
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg) {
        print_message("registry 1.21.4 not available: skipping\n");
        skip();
    }
    return reg;
}

static uint32_t brute(const mc_column *col, const mc_registry *reg, mc_heightmap_type t, int x, int z)
{
    int32_t lo = mc_column_min_y(col), hi = lo + (int32_t)mc_column_height(col) - 1;
    for (int32_t y = hi; y >= lo; y--)
        if (mc_heightmap_matches(t, mc_registry_state_flags(reg, mc_column_get_block(col, x, y, z))))
            return (uint32_t)(y + 1 - lo);
    return 0;
}

static void test_hand_values(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    uint32_t stone = mc_registry_default_state(reg, "stone");
    uint32_t water = mc_registry_default_state(reg, "water");
    uint32_t leaves = mc_registry_default_state(reg, "oak_leaves");
    uint32_t cave = mc_registry_default_state(reg, "cave_air");
    uint32_t torch = mc_registry_default_state(reg, "torch");
    assert_true(mc_registry_state_flags(reg, leaves) & MC_STATE_LEAVES);
    /* column (0,0): stone at y=-64..10, water 11..20, leaves at 30, torch at 31, cave air at 40 */
    for (int y = -64; y <= 10; y++)
        mc_column_set_block(col, 0, y, 0, stone);
    for (int y = 11; y <= 20; y++)
        mc_column_set_block(col, 0, y, 0, water);
    mc_column_set_block(col, 0, 30, 0, leaves);
    mc_column_set_block(col, 0, 31, 0, torch);
    mc_column_set_block(col, 0, 40, 0, cave);
    /* column (15,15): only the top block */
    mc_column_set_block(col, 15, 319, 15, stone);
    assert_int_equal(mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL), MC_OK);
    /* value = y + 1 - minY = y + 65 */
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_WORLD_SURFACE, 0, 0), 31 + 65);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_WORLD_SURFACE_WG, 0, 0), 31 + 65);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_OCEAN_FLOOR, 0, 0), 30 + 65);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_MOTION_BLOCKING, 0, 0), 30 + 65);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES, 0, 0), 20 + 65);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_WORLD_SURFACE, 15, 15), 384);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_WORLD_SURFACE, 1, 0), 0);
    /* leaves gone: ocean floor is the stone (water does not block motion) */
    mc_column_set_block(col, 0, 30, 0, mc_registry_air(reg));
    assert_int_equal(mc_column_compute_heightmaps(col, 1u << MC_HEIGHTMAP_OCEAN_FLOOR), MC_OK);
    assert_int_equal(mc_column_heightmap_get(col, MC_HEIGHTMAP_OCEAN_FLOOR, 0, 0), 10 + 65);
    /* packing: 9 bits, 37 padded longs, 36 spanning */
    assert_int_equal(mc_column_heightmap_bits(col), 9);
    uint8_t pad[37 * 8], span[36 * 8];
    assert_int_equal(mc_column_heightmap_write_be(col, MC_HEIGHTMAP_WORLD_SURFACE, MC_BITS_PADDED, pad), MC_OK);
    assert_int_equal(mc_column_heightmap_write_be(col, MC_HEIGHTMAP_WORLD_SURFACE, MC_BITS_SPANNING, span), MC_OK);
    assert_int_equal(mc_bits_get_be(pad, 255, 9, MC_BITS_PADDED), 384);
    assert_int_equal(mc_bits_get_be(span, 255, 9, MC_BITS_SPANNING), 384);
    assert_int_equal(mc_bits_get_be(pad, 0, 9, MC_BITS_PADDED), 96);
    /* stored when read, in either layout */
    mc_column *c2 = mc_column_new(reg, 0, 0, -4, 24, NULL);
    mc_error err;
    assert_false(mc_column_has_heightmap(c2, MC_HEIGHTMAP_WORLD_SURFACE));
    assert_int_equal(mc_column_heightmap_from_be(c2, MC_HEIGHTMAP_WORLD_SURFACE, span, 36, MC_BITS_SPANNING, &err), MC_OK);
    assert_int_equal(mc_column_heightmap_get(c2, MC_HEIGHTMAP_WORLD_SURFACE, 15, 15), 384);
    uint8_t pad2[37 * 8];
    assert_int_equal(mc_column_heightmap_write_be(c2, MC_HEIGHTMAP_WORLD_SURFACE, MC_BITS_PADDED, pad2), MC_OK);
    assert_memory_equal(pad, pad2, sizeof pad);
    assert_int_equal(mc_column_heightmap_from_be(c2, MC_HEIGHTMAP_OCEAN_FLOOR, span, 37, MC_BITS_SPANNING, &err), MC_ERR_MALFORMED);
    memset(pad2, 0xFF, sizeof pad2); /* 511 > 384 */
    assert_int_equal(mc_column_heightmap_from_be(c2, MC_HEIGHTMAP_OCEAN_FLOOR, pad2, 37, MC_BITS_PADDED, &err), MC_ERR_MALFORMED);
    assert_false(mc_column_has_heightmap(c2, MC_HEIGHTMAP_OCEAN_FLOOR));
    /* padded read: garbage in the padding bits (bit 63 of each long, the
     * unused entries of the last) is dropped; the height itself (384) is a
     * valid value, one more is not, wherever it is */
    memcpy(pad2, pad, sizeof pad);
    for (int l = 0; l < 37; l++)
        pad2[8 * l] |= 0x80;
    pad2[36 * 8 + 1] |= 0x0F; /* entries 4..6 of the last long (past 256) */
    assert_int_equal(mc_column_heightmap_from_be(c2, MC_HEIGHTMAP_OCEAN_FLOOR, pad2, 37, MC_BITS_PADDED, &err), MC_OK);
    uint8_t pad3[37 * 8];
    assert_int_equal(mc_column_heightmap_write_be(c2, MC_HEIGHTMAP_OCEAN_FLOOR, MC_BITS_PADDED, pad3), MC_OK);
    assert_memory_equal(pad, pad3, sizeof pad);
    for (int at = 0; at < 256; at += 85) {
        memcpy(pad2, pad, sizeof pad);
        mc_bits_set_be(pad2, (size_t)at, 9, MC_BITS_PADDED, 385);
        assert_int_equal(mc_column_heightmap_from_be(c2, MC_HEIGHTMAP_MOTION_BLOCKING, pad2, 37, MC_BITS_PADDED, &err),
                         MC_ERR_MALFORMED);
        assert_non_null(strstr(err.message, "exceeds the height"));
    }
    mc_column_heightmap_remove(c2, MC_HEIGHTMAP_OCEAN_FLOOR);
    assert_int_equal(mc_column_heightmap_write_be(c2, MC_HEIGHTMAP_OCEAN_FLOOR, MC_BITS_PADDED, pad2), MC_ERR_NOT_FOUND);
    mc_column_heightmap_remove(c2, MC_HEIGHTMAP_WORLD_SURFACE);
    assert_false(mc_column_has_heightmap(c2, MC_HEIGHTMAP_WORLD_SURFACE));
    mc_column_free(c2);
    mc_column_free(col);
}

static void test_names(void **state)
{
    (void)state;
    mc_heightmap_type t;
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++) {
        const char *n = mc_heightmap_name((mc_heightmap_type)k);
        assert_true(mc_heightmap_from_name(n, strlen(n), &t));
        assert_int_equal(t, k);
    }
    assert_string_equal(mc_heightmap_name(MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES), "MOTION_BLOCKING_NO_LEAVES");
    assert_false(mc_heightmap_from_name("LIGHT_BLOCKING", 14, &t));
    assert_true(mc_heightmap_matches(MC_HEIGHTMAP_MOTION_BLOCKING, MC_STATE_FLUID));
    assert_false(mc_heightmap_matches(MC_HEIGHTMAP_OCEAN_FLOOR, MC_STATE_FLUID));
    assert_false(mc_heightmap_matches(MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES, MC_STATE_BLOCKS_MOTION | MC_STATE_LEAVES));
    assert_false(mc_heightmap_matches(MC_HEIGHTMAP_WORLD_SURFACE, MC_STATE_AIR));
}

static void test_random_columns_vs_brute_force(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    const char *names[] = {"air", "cave_air", "stone", "water", "lava", "oak_leaves", "torch", "glass",
                           "kelp", "short_grass", "snow", "oak_slab", "bamboo_sapling", "cactus"};
    uint32_t pool[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pool[i] = mc_registry_default_state(reg, names[i]);
        assert_true(mc_registry_state_valid(reg, pool[i]));
    }
    mc_test_rng rng = {99};
    static const struct { int32_t min; uint32_t count; } dims[] = {{-4, 24}, {0, 16}, {-2, 3}, {0, 1}};
    for (int round = 0; round < 16; round++) {
        int32_t min = dims[round % 4].min;
        uint32_t count = dims[round % 4].count;
        mc_column *col = mc_column_new(reg, 0, 0, min, count, NULL);
        int32_t lo = min * 16;
        /* sparse random blocks, denser toward the bottom, some single-valued sections */
        for (uint32_t s = 0; s < count; s++) {
            if (mc_test_rand(&rng) % 5 == 0) {
                mc_container_fill(&mc_column_section_at(col, s)->blocks, pool[mc_test_rand(&rng) % 14]);
                mc_section_recount(mc_column_section_at(col, s), reg);
                continue;
            }
            int n = (int)(mc_test_rand(&rng) % 600);
            for (int i = 0; i < n; i++) {
                uint32_t v = pool[mc_test_rand(&rng) % 14];
                if (round >= 12 && (mc_test_rand(&rng) & 1))
                    v = (uint32_t)(mc_test_rand(&rng) % mc_registry_state_count(reg)); /* direct */
                mc_column_set_block(col, (int32_t)(mc_test_rand(&rng) & 15), lo + (int32_t)(s * 16 + (mc_test_rand(&rng) & 15)),
                                    (int32_t)(mc_test_rand(&rng) & 15), v);
            }
        }
        assert_int_equal(mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL), MC_OK);
        for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++)
                    assert_int_equal(mc_column_heightmap_get(col, (mc_heightmap_type)k, x, z),
                                     brute(col, reg, (mc_heightmap_type)k, x, z));
        uint16_t all[256];
        assert_true(mc_column_heightmap_get_all(col, MC_HEIGHTMAP_MOTION_BLOCKING, all));
        assert_int_equal(all[17], mc_column_heightmap_get(col, MC_HEIGHTMAP_MOTION_BLOCKING, 1, 1));
        mc_column_free(col);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_hand_values),
        cmocka_unit_test(test_random_columns_vs_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
