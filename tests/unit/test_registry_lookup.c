/*
 * test_registry_lookup.c: mc_registry_lookup (name + properties -> state)
 * pinned down, and its fast index (src/registry/lookup_index.c) held to the
 * generic lookup it replaces:
 *  - every state of every registry round-trips name + properties -> id, in
 *    the game's order and reversed, with and without "minecraft:", and the
 *    index answers every flattened state it is meant to (not the fallback),
 *    each key found by its bucket in the block's record (not a walk);
 *  - properties left out take the default state's values, checked against
 *    the states themselves for every block of several registries;
 *  - errors, keys given twice, odd bytes and lengths, and a few hundred
 *    thousand random mutations of real queries give the same status and
 *    state as the generic lookup.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "mcchunk/registry.h"
#include "registry/reg_private.h"

typedef struct {
    const char *name;
    size_t name_len;
    mc_state_prop props[MC__MAX_PROPS];
    size_t count;
} query;

static void query_of(const mc_registry *reg, uint32_t s, query *q)
{
    q->name = mc_registry_state_name(reg, s);
    q->name_len = strlen(q->name);
    q->count = 0;
    const char *k, *v;
    for (unsigned i = 0; i < MC__MAX_PROPS && mc_registry_state_prop(reg, s, i, &k, &v); i++)
        q->props[q->count++] = (mc_state_prop){k, strlen(k), v, strlen(v)};
}

/* Both lookups agree (status and, on success, state); returns the status. */
static mc_status both(const mc_registry *reg, const char *name, size_t len, const mc_state_prop *props,
                      size_t count, uint32_t *state)
{
    uint32_t fast = 0xDEADBEEF, slow = 0xDEADBEEF;
    mc_error err;
    mc_error_clear(&err);
    mc_status a = mc_registry_lookup(reg, name, len, props, count, &fast, &err);
    mc_status b = mc__lookup_generic(reg, name, len, props, count, &slow, NULL);
    if (a != b || (a == MC_OK && fast != slow))
        fail_msg("%s: '%.*s' with %zu properties: lookup %s %u, generic %s %u", mc_registry_name(reg),
                 (int)len, name, count, mc_status_name(a), fast, mc_status_name(b), slow);
    if (a != MC_OK && (fast != 0xDEADBEEF || !err.message[0]))
        fail_msg("%s: a failed lookup wrote its result or gave no message", mc_registry_name(reg));
    if (state)
        *state = fast;
    return a;
}

static bool index_covers(const query *q)
{
    for (size_t i = 0; i < q->count; i++)
        if (q->props[i].key_len > 32 || q->props[i].value_len > 32)
            return false;
    return true;
}

/* got is s, or (1.8-1.12) an id the game reads as the same state: torch
 * meta 0 and 5 are both facing=up, and the name gives the one the game
 * writes. */
static bool same_state(const mc_registry *reg, uint32_t got, uint32_t s)
{
    if (got == s)
        return true;
    char a[1024], b[1024];
    return reg->kind == MC__KIND_LEGACY && mc_registry_format_state(reg, got, a, sizeof a, 0) &&
           mc_registry_format_state(reg, s, b, sizeof b, 0) && !strcmp(a, b);
}

static void test_every_state(void **state)
{
    (void)state;
    size_t total = 0, indexed = 0;
    for (size_t r = 0; r < mc_registry_count(); r++) {
        const mc_registry *reg = mc_registry_at(r);
        const mc__runtime *rt = mc__runtime_of(reg);
        assert_non_null(rt);
        for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(reg, s)) {
            query q, rev;
            query_of(reg, s, &q);
            uint32_t got;
            if (both(reg, q.name, q.name_len, q.props, q.count, &got) != MC_OK || !same_state(reg, got, s))
                fail_msg("%s: state %u does not round-trip", mc_registry_name(reg), s);
            rev = q;
            for (size_t i = 0; i < q.count; i++)
                rev.props[i] = q.props[q.count - 1 - i];
            if (both(reg, q.name, q.name_len, rev.props, rev.count, &got) != MC_OK || !same_state(reg, got, s))
                fail_msg("%s: state %u in reverse order", mc_registry_name(reg), s);
            if (!strncmp(q.name, "minecraft:", 10) &&
                (both(reg, q.name + 10, q.name_len - 10, q.props, q.count, &got) != MC_OK || !same_state(reg, got, s)))
                fail_msg("%s: state %u without the namespace", mc_registry_name(reg), s);
            if (reg->kind == MC__KIND_FLAT && index_covers(&q)) {
                uint32_t via = MC_STATE_NONE;
                if (!mc__lk_lookup(reg, rt, q.name, q.name_len, q.props, q.count, &via) || via != s)
                    fail_msg("%s: the index misses state %u (%s)", mc_registry_name(reg), s, q.name);
                /* each key's bucket names its own property: no walk of the keys */
                for (size_t i = 0; i < q.count; i++)
                    if (mc__lk_key_guess(reg, rt, q.name, q.name_len, q.props[i].key, q.props[i].key_len) != (int)i)
                        fail_msg("%s: %s's key %s is not in its own bucket", mc_registry_name(reg), q.name,
                                 q.props[i].key);
                indexed++;
            }
            total++;
        }
    }
    print_message("%zu states round-trip, %zu through the index\n", total, indexed);
    assert_true(indexed > total / 2);
}

/* For every block: no properties gives the default state; one property
 * given gives the state with that value and the default's others. The
 * expectation is found among the block's states by their printed values. */
static void check_defaults(const mc_registry *reg)
{
    uint32_t n = mc_registry_state_count(reg);
    uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE);
    while (s != MC_STATE_NONE) {
        const char *name = mc_registry_state_name(reg, s);
        uint32_t end = s; /* the block's states: s .. end-1 (consecutive, one name) */
        while (end < n && mc_registry_state_valid(reg, end) && mc_registry_state_name(reg, end) == name)
            end++;
        uint32_t def;
        assert_int_equal(both(reg, name, strlen(name), NULL, 0, &def), MC_OK);
        assert_true(def >= s && def < end);
        assert_int_equal(mc_registry_default_state(reg, name), def);
        query dq;
        query_of(reg, def, &dq);
        for (uint32_t t = s; t < end; t++) {
            query tq;
            query_of(reg, t, &tq);
            assert_int_equal(tq.count, dq.count);
            for (size_t i = 0; i < tq.count; i++) {
                /* t differs from the default in property i only? then one property suffices */
                bool only_i = true;
                for (size_t j = 0; j < tq.count && only_i; j++)
                    if (j != i && strcmp(tq.props[j].value, dq.props[j].value))
                        only_i = false;
                if (!only_i)
                    continue;
                uint32_t got;
                if (both(reg, name, strlen(name), &tq.props[i], 1, &got) != MC_OK || got != t)
                    fail_msg("%s: %s with only %s=%s gives %u, want %u", mc_registry_name(reg), name,
                             tq.props[i].key, tq.props[i].value, got, t);
            }
        }
        s = end < n ? mc_registry_next_state(reg, end - 1) : MC_STATE_NONE;
    }
}

static void test_defaults(void **state)
{
    (void)state;
    static const char *const java[] = {"1.13", "1.16.5", "1.20.1", "1.21.4", "26.1"};
    for (size_t i = 0; i < sizeof java / sizeof java[0]; i++) {
        const mc_registry *reg = mc_registry_find(java[i]);
        assert_non_null(reg);
        check_defaults(reg);
    }
    const mc_registry *bedrock = mc_registry_find_bedrock("1.21.50");
    assert_non_null(bedrock);
    check_defaults(bedrock);
}

#define P(k, v) {k, sizeof k - 1, v, sizeof v - 1}

static void test_known_and_odd(void **state)
{
    (void)state;
    const mc_registry *r = mc_registry_find("1.21.4");
    uint32_t s, t;
    /* hand-checked ids (the game's numbering, 1.21.4) */
    mc_state_prop stairs[] = {P("facing", "east"), P("half", "top"), P("shape", "straight"), P("waterlogged", "false")};
    assert_int_equal(both(r, "minecraft:oak_stairs", 20, stairs, 4, &s), MC_OK);
    assert_int_equal(s, 2990); /* 2929 + east 3 x 20 + top 0 x 10 + straight 0 x 2 + false 1 */
    assert_int_equal(both(r, "oak_stairs", 10, stairs, 2, &t), MC_OK); /* shape, waterlogged: default */
    assert_int_equal(t, s);
    mc_state_prop wire[] = {P("power", "15"), P("east", "side")};
    assert_int_equal(both(r, "redstone_wire", 13, wire, 2, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(r, s, "power"), "15");
    assert_string_equal(mc_registry_state_prop_value(r, s, "east"), "side");
    assert_string_equal(mc_registry_state_prop_value(r, s, "north"), "none");
    /* a key given twice: the last one counts */
    mc_state_prop twice[] = {P("facing", "west"), P("half", "top"), P("facing", "east")};
    assert_int_equal(both(r, "oak_stairs", 10, twice, 3, &t), MC_OK);
    assert_int_equal(t, 2990);
    /* long keys and values (past 16 bytes all four words of the form count) */
    mc_state_prop trial[] = {P("trial_spawner_state", "waiting_for_reward_ejection"), P("ominous", "true")};
    assert_int_equal(both(r, "trial_spawner", 13, trial, 2, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(r, s, "trial_spawner_state"), "waiting_for_reward_ejection");
    mc_state_prop drip[] = {P("vertical_direction", "down"), P("thickness", "tip_merge")};
    assert_int_equal(both(r, "pointed_dripstone", 17, drip, 2, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(r, s, "vertical_direction"), "down");

    /* misses: each must fail the same way in both lookups */
    static const struct { const char *name; size_t len; } names[] = {
        {"", 0}, {"minecraft:", 10}, {"stone\0", 6}, {"ston", 4}, {"stonee", 6}, {"other:stone", 11},
        {"MINECRAFT:stone", 15}, {"minecraft:minecraft:stone", 25}, {"oak_stairs ", 11},
        {"waxed_weathered_cut_copper_stairs", 33}, {"waxed_weathered_cut_copper_stairz", 33},
        {"polished_blackstone_pressure_plate", 34}, {"polished_blackstone_pressure_plata", 34},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        both(r, names[i].name, names[i].len, NULL, 0, NULL);
    assert_int_equal(both(r, "stone\0", 6, NULL, 0, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(both(r, "waxed_weathered_cut_copper_stairs", 33, NULL, 0, NULL), MC_OK);
    assert_int_equal(both(r, "waxed_weathered_cut_copper_stairz", 33, NULL, 0, NULL), MC_ERR_NOT_FOUND);
    static const mc_state_prop bad[][1] = {
        {P("facing", "up")}, {P("facing", "eas")}, {P("facing", "eastt")}, {P("facin", "east")},
        {P("facing\0", "east")}, {P("facing", "east\0")}, {P("", "east")}, {P("facing", "")},
        {P("waterlogged", "False")}, {P("colour", "red")},
        {P("facing_facing_facing_facing_facing", "east")}, {P("facing", "east_east_east_east_")},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(both(r, "oak_stairs", 10, bad[i], 1, NULL), MC_ERR_NOT_FOUND);
    static const mc_state_prop bad_power[][1] = {
        {P("power", "16")}, {P("power", "05")}, {P("power", "-1")}, {P("power", "1 ")}, {P("power", "")},
        {P("power", "0015")}, {P("power", "x")},
    };
    for (size_t i = 0; i < sizeof bad_power / sizeof bad_power[0]; i++)
        assert_int_equal(both(r, "redstone_wire", 13, bad_power[i], 1, NULL), MC_ERR_NOT_FOUND);
    mc_state_prop none[] = {P("facing", "east")};
    assert_int_equal(both(r, "stone", 5, none, 1, NULL), MC_ERR_NOT_FOUND); /* stone has no properties */

    /* Bedrock: long keys go through the index too */
    const mc_registry *b = mc_registry_find_bedrock("1.21.50");
    mc_state_prop bstairs[] = {P("upside_down_bit", "true"), P("weirdo_direction", "2")};
    assert_int_equal(both(b, "minecraft:oak_stairs", 20, bstairs, 2, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(b, s, "weirdo_direction"), "2");
    mc_state_prop bwall[] = {P("wall_post_bit", "true"), P("wall_connection_type_north", "tall")};
    assert_int_equal(both(b, "cobblestone_wall", 16, bwall, 2, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(b, s, "wall_connection_type_north"), "tall");
    assert_string_equal(mc_registry_state_prop_value(b, s, "wall_connection_type_east"), "none");
    mc_state_prop bfurnace[] = {P("minecraft:cardinal_direction", "west")};
    assert_int_equal(both(b, "furnace", 7, bfurnace, 1, &s), MC_OK);
    assert_string_equal(mc_registry_state_prop_value(b, s, "minecraft:cardinal_direction"), "west");
}

/* Real queries with one random change each, compared with the generic path. */
static void test_mutations(void **state)
{
    (void)state;
    static const char *const versions[] = {"1.13", "1.17.1", "1.21.4", "26.1"};
    static const char alphabet[] = "abcdeinorstuw_0123456789:=[],\0\xff";
    mc_test_rng rng = {0x5EED1234ABCDull};
    char name_buf[80], key_buf[80], value_buf[80];
    size_t done = 0;
    for (size_t vi = 0; vi < sizeof versions / sizeof versions[0] + 2; vi++) {
        const mc_registry *reg = vi < 4 ? mc_registry_find(versions[vi])
                                        : mc_registry_find_bedrock(vi == 4 ? "1.20.80" : "1.26.51");
        assert_non_null(reg);
        uint32_t n = mc_registry_state_count(reg);
        for (int round = 0; round < 40000; round++) {
            uint32_t s = (uint32_t)(mc_test_rand(&rng) % n);
            if (!mc_registry_state_valid(reg, s))
                continue;
            query q;
            query_of(reg, s, &q);
            unsigned what = (unsigned)(mc_test_rand(&rng) % 8);
            size_t pi = q.count ? (size_t)(mc_test_rand(&rng) % q.count) : 0;
            /* the string to change: the name, or a key or value of property pi */
            const char **str = &q.name;
            size_t *len = &q.name_len;
            char *buf = name_buf;
            if (q.count && (what & 1)) {
                str = what & 2 ? &q.props[pi].key : &q.props[pi].value;
                len = what & 2 ? &q.props[pi].key_len : &q.props[pi].value_len;
                buf = what & 2 ? key_buf : value_buf;
            }
            if (*len >= 60)
                continue;
            memcpy(buf, *str, *len);
            size_t at = *len ? (size_t)(mc_test_rand(&rng) % *len) : 0;
            char c = alphabet[mc_test_rand(&rng) % (sizeof alphabet - 1)];
            switch (what >> 1) {
            case 0: buf[at] = c; break;                       /* replace a byte */
            case 1: memmove(buf + at + 1, buf + at, *len - at); buf[at] = c; (*len)++; break; /* insert */
            case 2: if (*len) { memmove(buf + at, buf + at + 1, *len - at - 1); (*len)--; } break; /* delete */
            default: /* swap two properties, or give one twice, or drop one */
                if (q.count >= 2) {
                    size_t pj = (size_t)(mc_test_rand(&rng) % q.count);
                    if (c & 1) {
                        mc_state_prop tmp = q.props[pi];
                        q.props[pi] = q.props[pj];
                        q.props[pj] = tmp;
                    } else
                        q.props[pi] = q.props[pj];
                } else if (q.count) {
                    q.count--;
                }
                break;
            }
            *str = buf;
            both(reg, q.name, q.name_len, q.props, q.count, NULL);
            done++;
        }
    }
    print_message("%zu mutated lookups agree\n", done);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_state),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_known_and_odd),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
