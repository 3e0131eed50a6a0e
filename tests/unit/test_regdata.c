/*
 * test_regdata.c: the stored form of the registry tables and the one
 * Bedrock version table.
 *
 * The per-block tables are stored as runs copied from the registry before
 * (src/registry/tables.c): every registry must decode, whatever order they
 * are first used in, to tables that agree with the registry's counts and
 * with the pool (first state ids = running sum of the kinds' state counts,
 * maps pointing at real states, 1.13 holding the maps to and from 1.12). The Bedrock version table, shared by the
 * registry module and the Bedrock packet code, must still answer every
 * name and protocol the packet code's own table used to.
 */
#include "support.h"

#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/registry.h"
#include "registry/reg_private.h"

static void check_tables(const mc_registry *reg)
{
    const mc__tables *t = mc__tables_of(reg);
    if (!t)
        fail_msg("registry %s: tables do not decode", mc_registry_name(reg));
    assert_ptr_equal(mc__tables_of(reg), t); /* decoded once */
    assert_int_equal(t->biome_count, reg->biome_count);
    for (uint32_t i = 0; i < t->biome_count; i++)
        assert_true(t->biomes[i] == MC__NONE || t->biomes[i] < mc__reg_strings_size);
    if (reg->kind == MC__KIND_FLAT) {
        assert_int_equal(t->kind_count, reg->block_count);
        uint32_t first = 0;
        for (uint32_t b = 0; b < reg->block_count; b++) {
            assert_true(t->block_kinds[b] < mc__reg_kind_count);
            assert_int_equal(t->block_min[b], first);
            first += mc__reg_kinds[t->block_kinds[b]].count;
        }
        assert_int_equal(first, reg->state_count);
        assert_int_equal(t->block_min[reg->block_count], reg->state_count);
    } else {
        assert_int_equal(t->kind_count, 0);
    }
    if (reg->mapped) {
        const mc_registry *java = mc_registry_at(reg->java_index);
        assert_int_equal(mc_registry_edition(java), MC_EDITION_JAVA);
        assert_int_equal(t->j2b_count, mc_registry_state_count(java));
        assert_int_equal(t->b2j_count, reg->state_count);
        uint32_t mapped = 0;
        for (uint32_t s = 0; s < t->j2b_count; s++) {
            assert_true(t->j2b[s] == 0xFFFF || t->j2b[s] < reg->state_count);
            mapped += t->j2b[s] != 0xFFFF;
        }
        for (uint32_t s = 0; s < t->b2j_count; s++)
            assert_true(t->b2j[s] == 0xFFFF || t->b2j[s] < mc_registry_state_count(java));
        assert_true(mapped > t->j2b_count / 2);
    } else {
        assert_null(t->j2b);
        assert_null(t->b2j);
    }
    if (reg->edition == MC_EDITION_JAVA && reg->index == mc__java_pivot) { /* 1.13: the maps to and from 1.12 */
        assert_ptr_equal(mc_registry_find("1.13"), reg);
        assert_int_equal(t->l2p_count, 4096);
        assert_int_equal(t->p2l_count, reg->state_count);
        uint32_t mapped = 0;
        for (uint32_t s = 0; s < 4096; s++) {
            assert_true(t->legacy_to_pivot[s] == 0xFFFF || t->legacy_to_pivot[s] < reg->state_count);
            mapped += t->legacy_to_pivot[s] != 0xFFFF;
        }
        assert_true(mapped > 1000);
        for (uint32_t s = 0; s < t->p2l_count; s++)
            assert_true(t->pivot_to_legacy[s] < 4096);
        assert_int_equal(t->legacy_to_pivot[1 << 4], 1); /* 1:0 stone -> stone */
        assert_int_equal(t->pivot_to_legacy[1], 1 << 4);
    } else {
        assert_int_equal(t->l2p_count + t->p2l_count, 0);
    }
}

/* Newest first, so each registry is decoded through the whole chain before
 * it (nothing older is cached yet), then the older ones from scratch. */
static void test_every_registry_decodes(void **state)
{
    (void)state;
    size_t n = mc_registry_count();
    assert_true(n > 50);
    for (size_t i = n; i-- > 0;)
        check_tables(mc_registry_at(i));
}

/* What the decoded tables say, on states checked by hand. */
static void test_decoded_facts(void **state)
{
    (void)state;
    const mc_registry *j = mc_registry_find("1.21.4"), *b = mc_registry_find_bedrock("1.21.60");
    assert_non_null(j);
    assert_non_null(b);
    assert_string_equal(mc_registry_biome_name(j, 0), "minecraft:badlands");
    uint32_t stone = mc_registry_default_state(j, "minecraft:stone");
    assert_int_equal(stone, 1);
    unsigned how = 0;
    uint32_t bs = mc_registry_translate_state(j, b, stone, &how);
    assert_true(how & MC_TRANSLATE_MAPPED);
    assert_string_equal(mc_registry_state_name(b, bs), "minecraft:stone");
    uint32_t back = mc_registry_translate_state(b, j, bs, &how);
    assert_int_equal(back, stone);
}

/* The table src/bedrock/packets.c had by hand before it used the registry
 * module's: every name with its protocol, oldest first. */
static const struct {
    const char *name;
    int proto;
} old_table[] = {
    {"1.16.201", 422}, {"1.16.210", 428}, {"1.16.220", 431}, {"1.17.0", 440},
    {"1.17.10", 448},  {"1.17.30", 465},  {"1.17.40", 471},  {"1.18.0", 475},
    {"1.18.10", 486},  {"1.18.11", 486},  {"1.18.30", 503},  {"1.19.1", 527},
    {"1.19.10", 534},  {"1.19.20", 544},  {"1.19.21", 545},  {"1.19.30", 554},
    {"1.19.40", 557},  {"1.19.50", 560},  {"1.19.60", 567},  {"1.19.62", 567},
    {"1.19.63", 568},  {"1.19.70", 575},  {"1.19.80", 582},  {"1.20.0", 589},
    {"1.20.10", 594},  {"1.20.15", 594},  {"1.20.30", 618},  {"1.20.40", 622},
    {"1.20.50", 630},  {"1.20.60", 649},  {"1.20.61", 649},  {"1.20.70", 662},
    {"1.20.71", 662},  {"1.20.80", 671},  {"1.21.0", 685},   {"1.21.2", 686},
    {"1.21.20", 712},  {"1.21.30", 729},  {"1.21.40", 748},  {"1.21.42", 748},
    {"1.21.50", 766},  {"1.21.60", 776},  {"1.21.70", 786},  {"1.21.80", 800},
    {"1.21.90", 818},  {"1.21.93", 819},  {"1.21.100", 827}, {"1.21.111", 844},
    {"1.21.120", 859}, {"1.21.124", 860}, {"1.21.130", 898}, {"1.26.0", 924},
    {"1.26.10", 944},  {"1.26.20", 975},  {"1.26.30", 1001}, {"1.26.40", 2168},
    {"1.26.45", 2169}, {"1.26.51", 2193},
};
#define OLD_COUNT (sizeof old_table / sizeof old_table[0])

static void test_bedrock_version_table(void **state)
{
    (void)state;
    assert_int_equal(mc_bedrock_version_count(), OLD_COUNT);
    for (size_t i = 0; i < OLD_COUNT; i++) {
        mc_version_info v;
        assert_true(mc_bedrock_version_at(i, &v));
        assert_string_equal(v.name, old_table[i].name);
        assert_int_equal(v.protocol, old_table[i].proto);
        assert_int_equal(mc_bedrock_protocol(old_table[i].name), old_table[i].proto);
        /* the newest name of a protocol, as the old table's last match */
        const char *newest = NULL;
        for (size_t k = 0; k < OLD_COUNT; k++)
            if (old_table[k].proto == old_table[i].proto)
                newest = old_table[k].name;
        assert_string_equal(mc_bedrock_version_name(old_table[i].proto), newest);
        /* one table: the registry API finds what the version table says */
        assert_ptr_equal(mc_registry_find_bedrock(v.name), v.registry);
        if (v.registry)
            assert_int_equal(mc_registry_edition(v.registry), MC_EDITION_BEDROCK);
    }
    mc_version_info v;
    assert_false(mc_bedrock_version_at(OLD_COUNT, &v));
    /* before the oldest data: no registry; a hotfix twin: its twin's */
    assert_null(mc_registry_find_bedrock("1.16.201"));
    assert_non_null(mc_registry_find_bedrock("1.16.220"));
    assert_ptr_equal(mc_registry_find_bedrock("1.20.60"), mc_registry_find_bedrock("1.20.61"));
    assert_ptr_equal(mc_registry_find_bedrock("1.18.10"), mc_registry_find_bedrock("1.18.11"));
    assert_int_equal(mc_bedrock_protocol("776"), 776);
    assert_int_equal(mc_bedrock_protocol("9.9.9"), 0);
    assert_null(mc_bedrock_version_name(1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_registry_decodes),
        cmocka_unit_test(test_decoded_facts),
        cmocka_unit_test(test_bedrock_version_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
