/*
 * test_section.c: sections with a real registry (1.21.4): block and fluid
 * counts kept by set against a recount and a brute-force count (air,
 * cave_air and void_air are not blocks; water and waterlogged states are
 * fluids), light arrays (absent vs zero, nibble order), copies.
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

static void test_counts_follow_vanilla(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    uint32_t air = mc_registry_air(reg);
    uint32_t cave = mc_registry_default_state(reg, "cave_air");
    uint32_t vair = mc_registry_default_state(reg, "void_air");
    uint32_t stone = mc_registry_default_state(reg, "stone");
    uint32_t water = mc_registry_default_state(reg, "water");
    uint32_t leaves = mc_registry_default_state(reg, "oak_leaves");
    uint32_t kelp = mc_registry_default_state(reg, "kelp");
    assert_true(cave != air && vair != air && stone != air && water != stone);
    assert_true(mc_registry_state_flags(reg, cave) & MC_STATE_AIR);
    mc_section s;
    mc_section_init(&s, reg, NULL);
    assert_int_equal(s.block_count, 0);
    assert_true(mc_section_is_air(&s, reg));
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 3, stone), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 4, cave), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 5, vair), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 6, water), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 7, kelp), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 2, 8, leaves), MC_OK);
    assert_int_equal(s.block_count, 4); /* stone, water, kelp, leaves */
    assert_int_equal(s.fluid_count, 2); /* water, kelp (always waterlogged) */
    assert_int_equal(mc_section_get_block(&s, 1, 2, 3), stone);
    assert_int_equal(mc_container_get(&s.blocks, 2 * 256 + 3 * 16 + 1), stone);
    /* random churn against recount and a brute-force count */
    uint32_t pool[] = {air, cave, vair, stone, water, leaves, kelp, stone + 1, water + 3};
    mc_test_rng rng = {7};
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 3000; i++) {
            uint32_t v = pool[mc_test_rand(&rng) % (sizeof pool / sizeof pool[0])];
            if (round == 3)
                v = (uint32_t)(mc_test_rand(&rng) % mc_registry_state_count(reg)); /* goes direct */
            unsigned x = (unsigned)(mc_test_rand(&rng) & 15), y = (unsigned)(mc_test_rand(&rng) & 15),
                     z = (unsigned)(mc_test_rand(&rng) & 15);
            assert_int_equal(mc_section_set_block(&s, reg, x, y, z, v), MC_OK);
        }
        unsigned blocks = 0, fluids = 0;
        for (unsigned i = 0; i < 4096; i++) {
            uint32_t f = mc_registry_state_flags(reg, mc_container_get(&s.blocks, i));
            blocks += !(f & MC_STATE_AIR);
            fluids += !!(f & MC_STATE_FLUID);
        }
        assert_int_equal(s.block_count, blocks);
        assert_int_equal(s.fluid_count, fluids);
        uint16_t kept_b = s.block_count, kept_f = s.fluid_count;
        mc_section_recount(&s, reg);
        assert_int_equal(s.block_count, kept_b);
        assert_int_equal(s.fluid_count, kept_f);
    }
    assert_int_equal(s.blocks.kind, MC_CONTAINER_DIRECT);
    assert_int_equal(s.blocks.bits, mc_registry_direct_bits(reg));
    mc_section_free(&s);
}

/* Recount of indirect sections whose palettes hold many air and fluid
 * states (kelp ages, water levels, waterlogged blocks): every strategy of
 * the recount (a popcount pass per flagged entry, or the histogram past
 * 24) against a brute-force count. */
static void test_recount_many_flagged(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    uint32_t flagged[512], plain[512];
    size_t nf = 0, np = 0;
    for (uint32_t st = 0; st < mc_registry_state_count(reg) && (nf < 512 || np < 512); st++) {
        uint32_t f = mc_registry_state_flags(reg, st);
        if (!(f & MC_STATE_VALID))
            continue;
        if ((f & (MC_STATE_AIR | MC_STATE_FLUID)) && nf < 512)
            flagged[nf++] = st;
        else if (!(f & (MC_STATE_AIR | MC_STATE_FLUID)) && np < 512)
            plain[np++] = st;
    }
    assert_true(nf >= 200 && np >= 200);
    mc_test_rng rng = {11};
    const unsigned plens[] = {8, 16, 30, 64, 200, 256};
    const unsigned nflag[] = {1, 6, 7, 24, 25, 60, 200};
    for (size_t a = 0; a < sizeof plens / sizeof plens[0]; a++)
        for (size_t b = 0; b < sizeof nflag / sizeof nflag[0]; b++) {
            const unsigned plen = plens[a], k = nflag[b] < plen ? nflag[b] : plen;
            uint32_t pool[256], values[4096];
            for (unsigned i = 0; i < plen; i++)
                pool[i] = i < k ? flagged[(i * 7) % nf] : plain[(i * 5) % np];
            unsigned blocks = 0, fluids = 0;
            for (unsigned i = 0; i < 4096; i++) {
                /* every pool entry at least once, the rest at random */
                values[i] = pool[i < plen ? i : mc_test_rand(&rng) % plen];
                uint32_t f = mc_registry_state_flags(reg, values[i]);
                blocks += !(f & MC_STATE_AIR);
                fluids += !!(f & MC_STATE_FLUID);
            }
            mc_section s;
            mc_section_init(&s, reg, NULL);
            assert_int_equal(mc_container_set_all(&s.blocks, values), MC_OK);
            assert_int_equal(s.blocks.kind, MC_CONTAINER_INDIRECT);
            /* counted on demand (each count alone, and both) before the
             * stored recount */
            s.block_count = s.fluid_count = MC_SECTION_COUNT_UNKNOWN;
            unsigned ob = 0, of = 0;
            mc_section_counts(&s, reg, &ob, &of);
            if (ob != blocks || of != fluids || mc_section_block_count(&s, reg) != blocks ||
                mc_section_fluid_count(&s, reg) != fluids)
                fail_msg("palette %u, %u flagged: counts on demand %u/%u, brute force %u/%u", plen, k,
                         ob, of, blocks, fluids);
            assert_int_equal(s.block_count, MC_SECTION_COUNT_UNKNOWN); /* not stored */
            mc_section_recount(&s, reg);
            if (s.block_count != blocks || s.fluid_count != fluids)
                fail_msg("palette %u, %u flagged: counts %u/%u, brute force %u/%u", plen, k,
                         s.block_count, s.fluid_count, blocks, fluids);
            mc_section_free(&s);
        }
}

/* Counts left unknown (as the Java packet decoder leaves them): asked
 * through the accessors they are counted, set_block keeps them unknown (an
 * increment of an unknown count would be a wrong count), a copy keeps them
 * unknown, recount stores them, and one known count is kept as stated. */
static void test_unknown_counts(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    const uint32_t stone = mc_registry_default_state(reg, "stone");
    const uint32_t water = mc_registry_default_state(reg, "water");
    mc_section s, t;
    mc_section_init(&s, reg, NULL);
    s.block_count = s.fluid_count = MC_SECTION_COUNT_UNKNOWN;
    assert_true(mc_section_is_air(&s, reg)); /* single air: counted as 0 */
    assert_int_equal(mc_section_fluid_count(&s, reg), 0);
    assert_int_equal(mc_section_set_block(&s, reg, 0, 0, 0, stone), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 0, 0, water), MC_OK);
    assert_int_equal(mc_section_set_block(&s, reg, 2, 0, 0, water), MC_OK);
    assert_int_equal(s.block_count, MC_SECTION_COUNT_UNKNOWN);
    assert_int_equal(s.fluid_count, MC_SECTION_COUNT_UNKNOWN);
    assert_false(mc_section_is_air(&s, reg));
    unsigned b = 0, f = 0;
    mc_section_counts(&s, reg, &b, &f);
    assert_int_equal(b, 3);
    assert_int_equal(f, 2);
    mc_section_counts(&s, reg, NULL, &f); /* either pointer may be NULL */
    assert_int_equal(f, 2);
    assert_int_equal(mc_section_copy(&t, &s), MC_OK);
    assert_int_equal(t.block_count, MC_SECTION_COUNT_UNKNOWN);
    assert_int_equal(mc_section_block_count(&t, reg), 3);
    mc_section_free(&t);
    /* one count known: kept as stated, the other counted */
    s.block_count = 7;
    mc_section_counts(&s, reg, &b, &f);
    assert_int_equal(b, 7);
    assert_int_equal(f, 2);
    mc_section_recount(&s, reg);
    assert_int_equal(s.block_count, 3);
    assert_int_equal(s.fluid_count, 2);
    assert_int_equal(mc_section_set_block(&s, reg, 1, 0, 0, stone), MC_OK);
    assert_int_equal(s.block_count, 3);
    assert_int_equal(s.fluid_count, 1); /* known again: updated per block */
    mc_section_free(&s);
}

static void test_light_and_copy(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    mc_section s, t;
    mc_section_init(&s, reg, NULL);
    assert_null(s.block_light);
    assert_null(s.sky_light);
    uint8_t zeros[MC_LIGHT_BYTES], light[MC_LIGHT_BYTES];
    memset(zeros, 0, sizeof zeros);
    assert_int_equal(mc_section_set_sky_light(&s, zeros), MC_OK);
    assert_non_null(s.sky_light); /* present and all zero: not absent */
    assert_null(s.block_light);
    /* nibble order: index (y<<8)|(z<<4)|x, even index in the low nibble */
    for (int i = 0; i < MC_LIGHT_BYTES; i++)
        light[i] = (uint8_t)i;
    assert_int_equal(mc_section_set_block_light(&s, light), MC_OK);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(0, 0, 0)), 0);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(1, 0, 0)), 0);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(2, 0, 0)), 1);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(3, 1, 0)), (0x81 >> 4) & 15);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(2, 1, 0)), 0x81 & 15);
    mc_light_set(s.block_light, mc_block_index(5, 7, 9), 13);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(5, 7, 9)), 13);
    assert_int_equal(mc_light_get(s.block_light, mc_block_index(4, 7, 9)), light[(7 * 256 + 9 * 16 + 4) >> 1] & 15);
    assert_int_equal(mc_section_set_block(&s, reg, 3, 3, 3, mc_registry_default_state(reg, "stone")), MC_OK);
    assert_int_equal(mc_section_set_biome(&s, 1, 2, 3, 5), MC_OK);
    assert_int_equal(mc_section_get_biome(&s, 1, 2, 3), 5);
    assert_int_equal(mc_container_get(&s.biomes, 2 * 16 + 3 * 4 + 1), 5);
    assert_int_equal(mc_section_copy(&t, &s), MC_OK);
    assert_true(mc_container_equal(&t.blocks, &s.blocks));
    assert_true(mc_container_equal(&t.biomes, &s.biomes));
    assert_memory_equal(t.block_light, s.block_light, MC_LIGHT_BYTES);
    assert_ptr_not_equal(t.block_light, s.block_light);
    assert_int_equal(t.block_count, 1);
    assert_true(mc_section_memory(&t) >= 2 * MC_LIGHT_BYTES);
    assert_int_equal(mc_section_set_block_light(&t, NULL), MC_OK);
    assert_null(t.block_light);
    mc_section_free(&t);
    mc_section_free(&s);
}

static void test_without_registry(void **state)
{
    (void)state;
    mc_container_rules b = mc_container_rules_blocks(15), m = mc_container_rules_biomes(6);
    mc_section s;
    mc_section_init_rules(&s, &b, &m, 0, 1, NULL);
    assert_int_equal(mc_section_get_biome(&s, 0, 0, 0), 1);
    assert_int_equal(mc_section_set_block(&s, NULL, 0, 0, 0, 9), MC_OK);
    assert_int_equal(s.block_count, 1);
    assert_int_equal(mc_section_set_block(&s, NULL, 0, 0, 0, 0), MC_OK);
    assert_int_equal(s.block_count, 0);
    mc_section_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_follow_vanilla),
        cmocka_unit_test(test_recount_many_flagged),
        cmocka_unit_test(test_unknown_counts),
        cmocka_unit_test(test_light_and_copy),
        cmocka_unit_test(test_without_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
