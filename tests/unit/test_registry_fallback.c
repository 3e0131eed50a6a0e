/*
 * test_registry_fallback.c: translation loses nothing visible.
 *
 * Over every pair of adjacent Java registries in both directions, 26.1 ->
 * 1.8.9, 1.21.4 -> 1.12.2, 1.12.2 -> 1.21.4 and Java <-> Bedrock for
 * several versions, every state of the source is checked through the
 * public API only (mc_registry_map and mc_registry_map_how):
 *   - no state that is not air-like (air, cave_air, void_air, light,
 *     structure_void) becomes air, and none becomes one of Bedrock's
 *     placeholder blocks (unknown, info_update, reserved6, ...);
 *   - a stairs stays stairs, a slab a slab, a wall a wall, ... whenever the
 *     target has blocks of that family (the test's own short list of name
 *     endings; for 1.8-1.12 targets the names of their 1.13 equivalents);
 *   - a property that the source state and its target block both have,
 *     with a value the target knows, keeps its value (Java pairs; for
 *     1.8-1.12 targets the properties 1.12 metadata stores: axis and
 *     rotation, a stairs' facing and half, a slab's type, a lower door's
 *     facing and open);
 *   - round trips: a state that exists in both registries (translated with
 *     no rule but the data tables, and the only source state of its
 *     target; not a Bedrock placeholder) comes back to itself (not checked
 *     between 1.8-1.12 and Bedrock, see check_pair).
 * Each pair's counts per kind of approximation are printed as a table row
 * (docs/TRANSLATION.md holds the table). Biomes over the same pairs: every
 * biome has one in the target, water stays water, the nether and the end
 * stay there, and known cases by name.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/registry.h"

static const mc_registry *java(const char *v)
{
    const mc_registry *r = mc_registry_find(v);
    if (!r)
        fail_msg("no Java registry %s", v);
    return r;
}

static const mc_registry *bedrock(const char *v)
{
    const mc_registry *r = mc_registry_find_bedrock(v);
    if (!r)
        fail_msg("no Bedrock registry %s", v);
    return r;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static bool air_like(const char *name)
{
    const char *bare = strncmp(name, "minecraft:", 10) ? name : name + 10;
    return !strcmp(bare, "air") || !strcmp(bare, "cave_air") || !strcmp(bare, "void_air") ||
           !strcmp(bare, "light") || !strcmp(bare, "structure_void") || !strncmp(bare, "light_block", 11);
}

static bool placeholder(const char *name)
{
    static const char *const bad[] = {"minecraft:unknown", "minecraft:info_update", "minecraft:info_update2",
                                      "minecraft:reserved6", "minecraft:update_block"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!strcmp(name, bad[i]))
            return true;
    return false;
}

/* The shape families the test holds translations to (name endings). */
static const char *const families[] = {"_stairs", "_slab", "_wall", "_fence", "_fence_gate", "_door", "_trapdoor",
                                       "_button", "_pressure_plate", "sign", "_banner", "_bed", "_carpet", "_pane"};
enum { FAMILIES = sizeof families / sizeof families[0] };

static int family_of(const char *name)
{
    for (int f = 0; f < FAMILIES; f++)
        if (ends_with(name, families[f]))
            return f;
    return -1;
}

/* A state's name as flat Java names it: 1.8-1.12 through its 1.13 state. */
typedef struct namer {
    const mc_registry *reg, *pivot;
    const uint32_t *to_pivot; /* legacy only */
} namer;

static namer namer_of(const mc_registry *reg)
{
    namer n = {reg, NULL, NULL};
    if (mc_registry_state_count(reg) == 4096 && mc_registry_edition(reg) == MC_EDITION_JAVA) {
        n.pivot = java("1.13");
        n.to_pivot = mc_registry_map(reg, n.pivot);
        assert_non_null(n.to_pivot);
    }
    return n;
}

static const char *flat_name(const namer *n, uint32_t s, uint32_t *flat_state, const mc_registry **flat_reg)
{
    *flat_state = n->to_pivot ? n->to_pivot[s] : s;
    *flat_reg = n->to_pivot ? n->pivot : n->reg;
    return mc_registry_state_name(*flat_reg, *flat_state);
}

typedef struct pair_stats {
    uint32_t kinds[MC_TRANSLATE_KIND_COUNT], states, lost, placeholders, family_broken, props_checked,
        props_changed, round_trips, round_trip_failures;
} pair_stats;

/* Is property `key` one 1.12 metadata stores for this (1.13-named) block? */
static bool legacy_stores(const char *name, const char *key, const mc_registry *reg, uint32_t state)
{
    if (!strcmp(key, "rotation")) /* a skull's is in its block entity */
        return ends_with(name, "sign") || ends_with(name, "banner");
    if (!strcmp(key, "axis")) /* 1.12's six-sided bark (log, axis=none) has no axis */
        return !ends_with(name, "_wood") && !ends_with(name, "_hyphae");
    if ((ends_with(name, "_stairs") || ends_with(name, "_trapdoor")) && (!strcmp(key, "facing") || !strcmp(key, "half")))
        return true;
    if (ends_with(name, "_slab") && !strcmp(key, "type"))
        return true;
    if (ends_with(name, "_door") && (!strcmp(key, "facing") || !strcmp(key, "open"))) {
        const char *half = mc_registry_state_prop_value(reg, state, "half");
        return half && !strcmp(half, "lower");
    }
    return false;
}

/* Does state t of reg's block have property key with value `value` among its values? */
static bool block_knows(const mc_registry *reg, uint32_t t, const char *key, const char *value)
{
    const char *have = mc_registry_state_prop_value(reg, t, key);
    if (!have)
        return false;
    char text[512];
    size_t n = (size_t)snprintf(text, sizeof text, "%s[%s=%s]", mc_registry_state_name(reg, t), key, value);
    uint32_t probe;
    return n < sizeof text && mc_registry_parse_state(reg, text, n, &probe, NULL) == MC_OK;
}

static void check_props(const mc_registry *from, uint32_t s, const mc_registry *to_flat, uint32_t t,
                        bool legacy_target, const char *tname, pair_stats *st)
{
    const char *key, *value;
    for (unsigned i = 0; mc_registry_state_prop(from, s, i, &key, &value); i++) {
        const char *got = mc_registry_state_prop_value(to_flat, t, key);
        if (!got || (legacy_target && !legacy_stores(tname, key, to_flat, t)))
            continue;
        st->props_checked++;
        /* a different value is a change when the target block has the source's value */
        if (strcmp(got, value) && block_knows(to_flat, t, key, value)) {
            if (st->props_changed++ < 5)
                print_error("%s -> %s: state %u %s=%s became %s=%s (%s)\n", mc_registry_name(from),
                            mc_registry_name(to_flat), s, key, value, key, got, tname);
        }
    }
}

static void check_pair(const mc_registry *from, const mc_registry *to, bool print)
{
    const uint32_t *map = mc_registry_map(from, to);
    const uint16_t *how = mc_registry_map_how(from, to);
    const uint32_t *back = mc_registry_map(to, from);
    assert_non_null(map);
    assert_non_null(how);
    assert_non_null(back);
    pair_stats st = {0};
    const bool java_pair = mc_registry_edition(from) == MC_EDITION_JAVA && mc_registry_edition(to) == MC_EDITION_JAVA;
    const bool to_bedrock = mc_registry_edition(to) == MC_EDITION_BEDROCK;
    const bool legacy_from = java_pair && mc_registry_state_count(from) == 4096;
    /* 1.8-1.12 <-> Bedrock: Bedrock merges states 1.13+ tells apart (a
     * floor lever facing east or west); seen from 1.12, a round trip
     * through such a state may come back as its twin. Not counted. */
    const bool legacy_bedrock = !java_pair && (mc_registry_state_count(from) == 4096 || mc_registry_state_count(to) == 4096);
    namer tn = namer_of(to);
    /* the families the target has (by its flat names) */
    bool has[FAMILIES] = {false};
    for (uint32_t t = mc_registry_next_state(to, MC_STATE_NONE); t != MC_STATE_NONE; t = mc_registry_next_state(to, t)) {
        uint32_t fs;
        const mc_registry *fr;
        int f = family_of(flat_name(&tn, t, &fs, &fr));
        if (f >= 0)
            has[f] = true;
    }
    /* how many source states reach each target state (round trips need one) */
    uint32_t n_to = mc_registry_state_count(to);
    uint16_t *reach = calloc(n_to ? n_to : 1, sizeof *reach);
    assert_non_null(reach);
    for (uint32_t s = mc_registry_next_state(from, MC_STATE_NONE); s != MC_STATE_NONE; s = mc_registry_next_state(from, s))
        if (map[s] < n_to && reach[map[s]] < 0xFFFF)
            reach[map[s]]++;
    for (uint32_t s = mc_registry_next_state(from, MC_STATE_NONE); s != MC_STATE_NONE; s = mc_registry_next_state(from, s)) {
        const char *sname = mc_registry_state_name(from, s);
        uint32_t t = map[s];
        assert_true(mc_registry_state_valid(to, t));
        const char *tname = mc_registry_state_name(to, t);
        st.states++;
        st.kinds[mc_translate_kind_of(how[s])]++;
        if ((mc_registry_state_flags(to, t) & MC_STATE_AIR) && !air_like(sname)) {
            if (st.lost++ < 5)
                print_error("%s -> %s: %s (%u) became %s\n", mc_registry_name(from), mc_registry_name(to), sname, s, tname);
        }
        if (to_bedrock && placeholder(tname) && st.placeholders++ < 5)
            print_error("%s -> %s: %s became %s\n", mc_registry_name(from), mc_registry_name(to), sname, tname);
        uint32_t tflat;
        const mc_registry *tflat_reg;
        const char *tflat_name = flat_name(&tn, t, &tflat, &tflat_reg);
        int f = legacy_from ? -1 : family_of(sname);
        /* a double slab is a full block: the full block of its material
         * (Bedrock's diorite_double_slab -> 1.12's diorite) keeps its look */
        if (strstr(sname, "double_slab"))
            f = -1;
        if (f >= 0 && has[f] && !to_bedrock && family_of(tflat_name) != f) {
            if (st.family_broken++ < 5)
                print_error("%s -> %s: %s lost its family: %s\n", mc_registry_name(from), mc_registry_name(to), sname,
                            tflat_name);
        }
        if (java_pair && !legacy_from && !(how[s] & MC_TRANSLATE_AIR_LIKE))
            check_props(from, s, tflat_reg, tflat, tn.to_pivot != NULL, tflat_name, &st);
        /* round trip of a state both registries have */
        /* (Bedrock's unknown is blocksB2J's stand-in for a Java test block,
         * which goes back to a real block, never to unknown) */
        bool exact = !(how[s] & ~(unsigned)MC_TRANSLATE_MAPPED) && !placeholder(sname) && !legacy_bedrock;
        if (exact && reach[t] == 1) {
            st.round_trips++;
            if (back[t] != s && st.round_trip_failures++ < 5)
                print_error("%s -> %s -> %s: %s (%u) came back as %u\n", mc_registry_name(from), mc_registry_name(to),
                            mc_registry_name(from), sname, s, back[t]);
        }
    }
    free(reach);
    if (print) {
        print_message("| %s -> %s | %u | %u | %u | %u | %u | %u | %u | %u |\n", mc_registry_name(from), mc_registry_name(to),
                      st.states, st.kinds[MC_TRANSLATE_KIND_EXACT], st.kinds[MC_TRANSLATE_KIND_RENAMED],
                      st.kinds[MC_TRANSLATE_KIND_SAME_SHAPE], st.kinds[MC_TRANSLATE_KIND_NEAREST_COLOR],
                      st.kinds[MC_TRANSLATE_KIND_AIR_LIKE], st.kinds[MC_TRANSLATE_KIND_LOST], st.round_trips);
    }
    if (st.lost || st.placeholders || st.family_broken || st.props_changed || st.round_trip_failures ||
        st.kinds[MC_TRANSLATE_KIND_LOST])
        fail_msg("%s -> %s: %u to air, %u to placeholders, %u out of their family, %u of %u properties changed, "
                 "%u of %u round trips failed",
                 mc_registry_name(from), mc_registry_name(to), st.lost, st.placeholders, st.family_broken,
                 st.props_changed, st.props_checked, st.round_trip_failures, st.round_trips);
    assert_true(st.round_trips > 0 || legacy_bedrock);
}

static void print_header(void)
{
    print_message("| pair | states | exact | renamed | same shape | nearest colour | air-like | lost | round trips |\n");
    print_message("|---|---|---|---|---|---|---|---|---|\n");
}

static void test_adjacent_java(void **state)
{
    (void)state;
    size_t java_count = 0;
    while (java_count < mc_registry_count() && mc_registry_edition(mc_registry_at(java_count)) == MC_EDITION_JAVA)
        java_count++;
    print_header();
    for (size_t i = 0; i + 1 < java_count; i++) {
        check_pair(mc_registry_at(i), mc_registry_at(i + 1), true);
        check_pair(mc_registry_at(i + 1), mc_registry_at(i), true);
    }
}

static void test_distant_java(void **state)
{
    (void)state;
    print_header();
    check_pair(java("26.1"), java("1.8.9"), true);
    check_pair(java("1.21.4"), java("1.12.2"), true);
    check_pair(java("1.12.2"), java("1.21.4"), true);
    check_pair(java("1.8.9"), java("26.1"), true);
}

static void test_java_bedrock(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"1.21.4", "1.21.60"}, {"1.20.4", "1.20.50"}, {"1.18.2", "1.18.11"}, {"26.1", "1.26.10"},
        {"1.21.4", "1.26.10"}, {"1.12.2", "1.21.60"},
    };
    print_header();
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        check_pair(java(pairs[i][0]), bedrock(pairs[i][1]), true);
        check_pair(bedrock(pairs[i][1]), java(pairs[i][0]), true);
    }
    /* Bedrock before 1.20.50 has one skull block (its kind in the block
     * entity): a skull still, not the nearest-colour planks */
    const mc_registry *old_bedrock = bedrock("1.16.220"), *to = java("1.20.1");
    static const char skull[] = "minecraft:skull[facing_direction=1,no_drop_bit=false]";
    uint32_t s;
    assert_int_equal(mc_registry_parse_state(old_bedrock, skull, sizeof skull - 1, &s, NULL), MC_OK);
    const char *t = mc_registry_state_name(to, mc_registry_translate_state(old_bedrock, to, s, NULL));
    if (!t || !strstr(t, "skull"))
        fail_msg("Bedrock 1.16.220 %s became %s", skull, t ? t : "(none)");
}

/* Biomes: every biome of every pair above has a biome in the target, never
 * the fallback (MC_TRANSLATE_AIR), water stays water (ocean, river) and
 * land land, the nether and the end stay there; and a few by name. */
static bool wet(const char *name) { return strstr(name, "ocean") || strstr(name, "river"); }

static int dimension_of(const char *name)
{
    static const char *const nether[] = {"nether", "hell", "crimson", "warped", "soul", "basalt"};
    for (size_t i = 0; i < sizeof nether / sizeof nether[0]; i++)
        if (strstr(name, nether[i]))
            return 1;
    return strstr(name, "end") && !strstr(name, "legend") ? 2 : 0;
}

static void check_biomes(const mc_registry *from, const mc_registry *to)
{
    for (uint32_t b = 0; b < mc_registry_biome_count(from); b++) {
        const char *name = mc_registry_biome_name(from, b);
        if (!name)
            continue;
        unsigned how = 0;
        uint32_t t = mc_registry_translate_biome(from, to, b, &how);
        const char *tname = mc_registry_biome_name(to, t);
        if (!tname || (how & MC_TRANSLATE_AIR) || wet(name) != wet(tname) || dimension_of(name) != dimension_of(tname))
            fail_msg("%s -> %s: biome %s became %s (how %#x)", mc_registry_name(from), mc_registry_name(to), name,
                     tname ? tname : "(none)", how);
        if (!strcmp(name, tname) != !how && mc_registry_biome_id(to, name) != MC_STATE_NONE)
            fail_msg("%s -> %s: %s exists in both but became %s", mc_registry_name(from), mc_registry_name(to),
                     name, tname);
    }
}

static const char *biome_to(const char *from, const char *name, const mc_registry *to, unsigned *how)
{
    const mc_registry *f = mc_registry_find(from) ? mc_registry_find(from) : mc_registry_find_bedrock(from);
    uint32_t id = mc_registry_biome_id(f, name);
    assert_int_not_equal(id, MC_STATE_NONE);
    return mc_registry_biome_name(to, mc_registry_translate_biome(f, to, id, how));
}

static void test_biomes(void **state)
{
    (void)state;
    size_t java_count = 0;
    while (java_count < mc_registry_count() && mc_registry_edition(mc_registry_at(java_count)) == MC_EDITION_JAVA)
        java_count++;
    for (size_t i = 0; i + 1 < java_count; i++) {
        check_biomes(mc_registry_at(i), mc_registry_at(i + 1));
        check_biomes(mc_registry_at(i + 1), mc_registry_at(i));
    }
    check_biomes(java("26.1"), java("1.8.9"));
    check_biomes(java("1.8.9"), java("26.1"));
    check_biomes(java("1.21.4"), bedrock("1.21.60"));
    check_biomes(bedrock("1.21.60"), java("1.21.4"));
    check_biomes(bedrock("1.21.60"), java("1.12.2"));
    unsigned how;
    const mc_registry *old = java("1.12.2"), *r18 = java("1.18.2"), *r17 = java("1.17.1");
    assert_string_equal(biome_to("1.17.1", "mountains", r18, &how), "minecraft:windswept_hills");
    assert_int_equal(how, MC_TRANSLATE_RENAMED);
    assert_string_equal(biome_to("1.18.2", "windswept_hills", r17, &how), "minecraft:mountains");
    assert_string_equal(biome_to("1.17.1", "desert_hills", r18, &how), "minecraft:desert");
    assert_int_equal(mc_translate_kind_of(how), MC_TRANSLATE_KIND_SAME_SHAPE);
    assert_string_equal(biome_to("1.21.4", "mangrove_swamp", old, &how), "minecraft:swamp");
    assert_string_equal(biome_to("1.21.4", "end_highlands", old, &how), "minecraft:the_end");
    assert_string_equal(biome_to("1.21.4", "deep_frozen_ocean", old, &how), "minecraft:frozen_ocean");
    assert_string_equal(biome_to("1.21.60", "mesa", java("1.21.4"), &how), "minecraft:badlands");
    assert_int_equal(how, MC_TRANSLATE_RENAMED);
    /* an id the source lacks: plains, and said so */
    uint32_t t = mc_registry_translate_biome(r18, old, 9999, &how);
    assert_string_equal(mc_registry_biome_name(old, t), "minecraft:plains");
    assert_int_equal(mc_translate_kind_of(how), MC_TRANSLATE_KIND_LOST);
}

/* The check itself must catch a broken translation: a map that sends a
 * stairs to air is reported (through the same counting), and so is one
 * that changes a property. */
static void test_checks_bite(void **state)
{
    (void)state;
    const mc_registry *a = java("1.21.4");
    uint32_t stairs = mc_registry_default_state(a, "cherry_stairs");
    assert_true(family_of(mc_registry_state_name(a, stairs)) == 0);
    assert_false(air_like(mc_registry_state_name(a, stairs)));
    assert_true(air_like("minecraft:cave_air"));
    assert_true(placeholder("minecraft:info_update"));
    assert_true(legacy_stores("minecraft:oak_stairs", "half", a, stairs));
    assert_false(legacy_stores("minecraft:oak_stairs", "shape", a, stairs));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks_bite),
        cmocka_unit_test(test_distant_java),
        cmocka_unit_test(test_adjacent_java),
        cmocka_unit_test(test_java_bedrock),
        cmocka_unit_test(test_biomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
