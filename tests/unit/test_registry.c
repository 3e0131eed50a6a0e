/*
 * test_registry.c: the registry module against facts checked by hand
 * (state counts, ids and flags of well-known states), plus exhaustive
 * properties: every state of every registry prints, parses back to the same
 * id, and keeps its name, and gives its properties alike one by one and
 * at once; lookups with missing properties take defaults;
 * parsing rejects malformed text.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/registry.h"
#include "registry/reg_private.h"

static void test_contract_versions(void **state)
{
    (void)state;
    const mc_registry *r1214 = mc_test_registry("1.21.4");
    const mc_registry *r1122 = mc_test_registry("1.12.2");
    const mc_registry *r189 = mc_test_registry("1.8.9");
    const mc_registry *r261 = mc_test_registry("26.1");
    assert_string_equal(mc_registry_name(r1214), "1.21.4");
    assert_string_equal(mc_registry_name(r1122), "1.12.2");
    assert_string_equal(mc_registry_name(r189), "1.8.9");
    assert_int_equal(mc_registry_edition(r1214), MC_EDITION_JAVA);
    /* minecraft-data 1.21.4: maxStateId 27865; 65 biomes */
    assert_int_equal(mc_registry_state_count(r1214), 27866);
    assert_int_equal(mc_registry_direct_bits(r1214), 15);
    assert_int_equal(mc_registry_biome_count(r1214), 65);
    assert_int_equal(mc_registry_biome_direct_bits(r1214), 7);
    assert_int_equal(mc_registry_state_count(r1122), 4096);
    assert_int_equal(mc_registry_state_count(r189), 4096);
    assert_int_equal(mc_registry_direct_bits(r1122), 12);
    assert_int_equal(mc_registry_air(r1214), 0);
    assert_int_equal(mc_registry_air(r189), 0);
    assert_non_null(r261);
    assert_null(mc_registry_find("1.7.10"));
    assert_null(mc_registry_find("nonsense"));
    assert_null(mc_registry_find(NULL));
    /* releases sharing data: 1.8.x, 1.21.2 -> 1.21.3, 1.21.7 -> 1.21.8 */
    assert_ptr_equal(mc_test_registry("1.8"), r189);
    assert_ptr_equal(mc_test_registry("1.21.2"), mc_test_registry("1.21.3"));
    assert_ptr_equal(mc_test_registry("1.21.7"), mc_test_registry("1.21.8"));
    /* biome counts (ORACLES.md: 61 for 1.18.2, 64 for 1.20.x) */
    assert_int_equal(mc_registry_biome_count(mc_test_registry("1.18.2")), 61);
    assert_int_equal(mc_registry_biome_count(mc_test_registry("1.20.6")), 64);
}

/* The flag table agrees with mc_registry_state_flags and with the state's
 * class found through its block (mc__state_class: the search the table,
 * filled block by block, avoids) for every id of every registry (legacy,
 * flattened and Bedrock), and is NULL without one. */
static void test_flag_table(void **state)
{
    (void)state;
    size_t n = 99;
    assert_null(mc_registry_state_flag_table(NULL, &n));
    assert_int_equal(n, 0);
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *r = mc_registry_at(i);
        const uint8_t *t = mc_registry_state_flag_table(r, &n);
        assert_non_null(t);
        assert_int_equal(n, mc_registry_state_count(r));
        assert_ptr_equal(mc_registry_state_flag_table(r, NULL), t); /* built once */
        for (uint32_t s = 0; s < n; s++)
            if (t[s] != mc_registry_state_flags(r, s) || t[s] != (mc__state_class(r, s) & MC__PUBLIC_FLAGS))
                fail_msg("%s: state %u table %u flags %u class %u", mc_registry_name(r), s, t[s],
                         mc_registry_state_flags(r, s), mc__state_class(r, s));
        assert_int_equal(mc_registry_state_flags(r, (uint32_t)n), 0);
    }
}

static void test_contract_flags(void **state)
{
    (void)state;
    const mc_registry *r = mc_test_registry("1.21.4");
    assert_int_equal(mc_registry_state_flags(r, 0), MC_STATE_AIR | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "cave_air")), MC_STATE_AIR | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "void_air")), MC_STATE_AIR | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, 1), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID); /* stone */
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "water")), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "lava[level=3]")), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "oak_leaves")),
                     MC_STATE_LEAVES | MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "oak_stairs[waterlogged=true]")),
                     MC_STATE_FLUID | MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "oak_stairs")), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "short_grass")), MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "seagrass")), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "kelp_plant")), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "torch")), MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "white_carpet")), MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "snow[layers=8]")), MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "cobweb")), MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "glass")), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "oak_slab[type=bottom]")), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, mc_test_state(r, "oak_fence")), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(r, 27866), 0);
    assert_int_equal(mc_registry_state_flags(r, 0xFFFFFFFFu), 0);

    const mc_registry *l = mc_test_registry("1.12.2");
    assert_int_equal(mc_registry_state_flags(l, 0), MC_STATE_AIR | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, 1 << 4), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, (8 << 4) | 3), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, (9 << 4)), MC_STATE_FLUID | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, (18 << 4) | 2), MC_STATE_LEAVES | MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, (161 << 4) | 1), MC_STATE_LEAVES | MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
    assert_int_equal(mc_registry_state_flags(l, (2 << 4) | 1), 0); /* grass has no meta 1 */
    assert_int_equal(mc_registry_state_flags(mc_test_registry("1.8.9"), 251 << 4), 0); /* concrete is 1.12 */
    assert_int_equal(mc_registry_state_flags(l, 251 << 4), MC_STATE_BLOCKS_MOTION | MC_STATE_VALID);
}

static void test_known_ids(void **state)
{
    (void)state;
    const mc_registry *r = mc_test_registry("1.21.4");
    /* minecraft-data 1.21.4: oak_stairs 2929..3008, default 2940 */
    assert_int_equal(mc_test_state(r, "minecraft:oak_stairs"), 2940);
    assert_int_equal(mc_test_state(r, "oak_stairs[facing=north,half=top,shape=straight,waterlogged=true]"), 2929);
    assert_int_equal(mc_test_state(r, "oak_stairs[waterlogged=false,shape=outer_right,half=bottom,facing=east]"), 3008);
    assert_int_equal(mc_test_state(r, "oak_stairs[]"), 2940);
    char buf[256];
    assert_int_equal(mc_registry_format_state(r, 2929, buf, sizeof buf, 0),
                     strlen("minecraft:oak_stairs[facing=north,half=top,shape=straight,waterlogged=true]"));
    assert_string_equal(buf, "minecraft:oak_stairs[facing=north,half=top,shape=straight,waterlogged=true]");
    mc_registry_format_state(r, mc_test_state(r, "redstone_wire"), buf, sizeof buf, MC_FORMAT_SORTED);
    assert_string_equal(buf, "minecraft:redstone_wire[east=none,north=none,power=0,south=none,west=none]");
    mc_registry_format_state(r, 1, buf, sizeof buf, MC_FORMAT_NO_NAMESPACE);
    assert_string_equal(buf, "stone");
    /* truncation behaves like snprintf */
    assert_int_equal(mc_registry_format_state(r, 1, buf, 4, 0), strlen("minecraft:stone"));
    assert_string_equal(buf, "min");
    assert_string_equal(mc_registry_state_prop_value(r, 2929, "half"), "top");
    assert_null(mc_registry_state_prop_value(r, 2929, "nope"));
    assert_int_equal(mc_registry_default_state(r, "minecraft:oak_stairs"), 2940);
    assert_int_equal(mc_registry_default_state(r, "unknown_block"), MC_STATE_NONE);

    const mc_registry *l = mc_test_registry("1.12.2");
    assert_int_equal(mc_test_state(l, "minecraft:stone[meta=3]"), (1 << 4) | 3);
    assert_int_equal(mc_test_state(l, "wool[meta=14]"), (35 << 4) | 14);
    assert_int_equal(mc_test_state(l, "chest"), (54 << 4) | 2); /* 54:0 is not a state; lowest valid meta */
    assert_string_equal(mc_registry_state_name(l, (53 << 4) | 3), "minecraft:oak_stairs");
    mc_registry_format_state(l, (17 << 4) | 5, buf, sizeof buf, MC_FORMAT_SORTED);
    assert_string_equal(buf, "minecraft:log[axis=x,variant=spruce]");
    /* 1.8-1.12 states as the game names them (F3), and the id:meta forms */
    assert_int_equal(mc_test_state(l, "minecraft:stone[variant=granite]"), (1 << 4) | 1);
    assert_int_equal(mc_test_state(l, "minecraft:chest[facing=north]"), (54 << 4) | 2);
    assert_int_equal(mc_test_state(l, "1:1"), (1 << 4) | 1);
    assert_int_equal(mc_test_state(l, "minecraft:stone:3"), (1 << 4) | 3);
    assert_int_equal(mc_test_state(l, "wool[color=silver]"), (35 << 4) | 8);
    assert_int_equal(mc_test_state(l, "log[axis=z]"), (17 << 4) | 8); /* variant: the default's, oak */
    assert_int_equal(mc_test_state(l, "wooden_door[half=upper,hinge=right]"), (64 << 4) | 9);
    assert_int_equal(mc_test_state(l, "stone_slab[half=top,variant=wood_old]"), (44 << 4) | 10);
    /* what metadata does not store (a fence's connections) takes any valid value */
    assert_int_equal(mc_test_state(l, "fence[east=true,north=false]"), 85 << 4);
    mc_registry_format_state(l, (64 << 4) | 9, buf, sizeof buf, MC_FORMAT_SORTED);
    assert_string_equal(buf, "minecraft:wooden_door[facing=east,half=upper,hinge=right,open=false,powered=false]");
    mc_registry_format_state(l, 0x7d3, buf, sizeof buf, MC_FORMAT_SORTED); /* 125:3 */
    assert_string_equal(buf, "minecraft:double_wooden_slab[variant=jungle]");
    assert_string_equal(mc_registry_state_prop_value(l, (18 << 4) | 12, "check_decay"), "true");
    assert_string_equal(mc_registry_state_prop_value(l, (18 << 4) | 12, "decayable"), "false");

    assert_string_equal(mc_registry_biome_name(r, 0), "minecraft:badlands");
    assert_int_equal(mc_registry_biome_id(r, "plains"), mc_registry_biome_id(r, "minecraft:plains"));
    assert_int_not_equal(mc_registry_biome_id(r, "plains"), MC_STATE_NONE);
    assert_int_equal(mc_registry_biome_id(r, "nope"), MC_STATE_NONE);
    assert_string_equal(mc_registry_biome_name(l, 1), "minecraft:plains");
    assert_null(mc_registry_biome_name(l, 40)); /* a gap in the legacy biome ids */
}

static void test_parse_errors(void **state)
{
    (void)state;
    const mc_registry *r = mc_test_registry("1.21.4");
    static const struct { const char *text; mc_status status; } bad[] = {
        {"", MC_ERR_MALFORMED},
        {"[a=b]", MC_ERR_MALFORMED},
        {"stone[", MC_ERR_MALFORMED},
        {"stone]", MC_ERR_MALFORMED},
        {"oak_stairs[facing]", MC_ERR_MALFORMED},
        {"oak_stairs[facing=]", MC_ERR_MALFORMED},
        {"oak_stairs[=east]", MC_ERR_MALFORMED},
        {"oak_stairs[facing=east,]", MC_ERR_MALFORMED},
        {"oak_stairs[facing=east]x", MC_ERR_MALFORMED},
        {"oak_stairs[facing=east=west]", MC_ERR_MALFORMED},
        {"oak stairs", MC_ERR_MALFORMED},
        {"nope", MC_ERR_NOT_FOUND},
        {"minecraft:", MC_ERR_NOT_FOUND},
        {"oak_stairs[colour=red]", MC_ERR_NOT_FOUND},
        {"oak_stairs[facing=up]", MC_ERR_NOT_FOUND},
        {"oak_stairs[facing=eastt]", MC_ERR_NOT_FOUND},
        {"other:stone", MC_ERR_NOT_FOUND},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t s = 12345;
        mc_error err;
        mc_error_clear(&err);
        mc_status st = mc_registry_parse_state(r, bad[i].text, strlen(bad[i].text), &s, &err);
        if (st != bad[i].status)
            fail_msg("'%s': got %s (%s), want %s", bad[i].text, mc_status_name(st), err.message,
                     mc_status_name(bad[i].status));
        assert_int_equal(s, 12345);
        assert_true(err.message[0] != '\0');
    }
    const mc_registry *l = mc_test_registry("1.12.2");
    uint32_t s;
    assert_int_equal(mc_registry_parse_state(l, "stone[meta=7]", 13, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "stone[meta=16]", 14, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "stone[data=1]", 13, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "stone[variant=nope]", 19, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "fence[east=maybe]", 17, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "1:16", 4, &s, NULL), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_registry_parse_state(l, "2:5", 3, &s, NULL), MC_ERR_NOT_FOUND); /* not a state */
}

/* back is s, or (1.8-1.12) an id the game reads as the same state: torch
 * meta 0 and 5 are both facing=up, and the name gives the canonical one. */
static bool same_state(const mc_registry *reg, uint32_t back, uint32_t s)
{
    if (back == s)
        return true;
    char a[1024], b[1024];
    return mc_registry_state_count(reg) == 4096 && mc_registry_format_state(reg, back, a, sizeof a, 0) &&
           mc_registry_format_state(reg, s, b, sizeof b, 0) && !strcmp(a, b);
}

/* Every state of every registry: text -> id -> text round trip, both orders. */
/* The text mc_registry_format_state must give, made from the state's name
 * and its properties read one by one (sorted by key with strcmp when
 * `sorted`): the reference its shortcuts (lengths from the pool's tables,
 * first bytes compared inline) are checked against. */
static size_t expected_text(const mc_registry *reg, uint32_t s, bool sorted, char *out, size_t cap)
{
    const char *keys[64], *values[64];
    unsigned n = mc_registry_state_prop_count(reg, s);
    assert_true(n <= 64);
    for (unsigned i = 0; i < n; i++) {
        assert_true(mc_registry_state_prop(reg, s, i, &keys[i], &values[i]));
        for (unsigned j = i; sorted && j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *k = keys[j], *v = values[j];
            keys[j] = keys[j - 1];
            values[j] = values[j - 1];
            keys[j - 1] = k;
            values[j - 1] = v;
        }
    }
    size_t len = (size_t)snprintf(out, cap, "%s", mc_registry_state_name(reg, s));
    for (unsigned i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s=%s", i ? "," : "[", keys[i], values[i]);
    if (n)
        len += (size_t)snprintf(out + len, cap - len, "]");
    assert_true(len < cap);
    return len;
}

/* mc_registry_state_props (all properties at one block look-up) against
 * mc_registry_state_prop read one index at a time; a `max` below the count
 * fills that many and touches no slot past them. */
static void check_props_at_once(const mc_registry *reg, uint32_t s)
{
    const char *keys[65], *values[65], *k, *v;
    const unsigned n = mc_registry_state_prop_count(reg, s);
    assert_true(n < 64);
    const unsigned max = s % 3 ? 64 : s / 3 % (n + 1);
    for (unsigned i = 0; i <= 64; i++)
        keys[i] = values[i] = NULL;
    if (mc_registry_state_props(reg, s, keys, values, max) != n)
        fail_msg("%s: state %u: props gives another count than %u", mc_registry_name(reg), s, n);
    for (unsigned i = 0; i < n && i < max; i++) {
        assert_true(mc_registry_state_prop(reg, s, i, &k, &v));
        if (keys[i] != k || values[i] != v)
            fail_msg("%s: state %u property %u: %s=%s at once, %s=%s alone", mc_registry_name(reg), s, i,
                     keys[i] ? keys[i] : "(none)", values[i] ? values[i] : "(none)", k, v);
    }
    assert_null(keys[n < max ? n : max]);
    assert_null(values[n < max ? n : max]);
    assert_int_equal(mc_registry_state_props(reg, s, NULL, NULL, 64), n);
}

static void test_round_trip_all(void **state)
{
    (void)state;
    char text[1024], again[1024], want[1024];
    size_t total = 0;
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *reg = mc_registry_at(i);
        uint32_t count = 0;
        for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(reg, s)) {
            for (unsigned opt = 0; opt < 2; opt++) {
                size_t n = mc_registry_format_state(reg, s, text, sizeof text, opt ? MC_FORMAT_SORTED : 0);
                assert_true(n > 0 && n < sizeof text);
                if (s % 4 == opt) { /* (a quarter of the states each way: the test's time) */
                    if (n != expected_text(reg, s, opt, want, sizeof want) || strcmp(text, want))
                        fail_msg("%s: state %u is %s, want %s", mc_registry_name(reg), s, text, want);
                    /* cut short: snprintf's contract, the cut anywhere in the text */
                    const size_t cut = 1 + s / 4 % n;
                    assert_int_equal(mc_registry_format_state(reg, s, again, cut, opt ? MC_FORMAT_SORTED : 0), n);
                    assert_true(strlen(again) == cut - 1 && !strncmp(again, want, cut - 1));
                }
                uint32_t back = MC_STATE_NONE;
                mc_error err;
                mc_error_clear(&err);
                if (mc_registry_parse_state(reg, text, n, &back, &err) != MC_OK || !same_state(reg, back, s))
                    fail_msg("%s: %s -> %u (%s), want %u", mc_registry_name(reg), text, back, err.message, s);
            }
            mc_registry_format_state(reg, s, again, sizeof again, 0);
            assert_true(!strncmp(again, mc_registry_state_name(reg, s), strlen(mc_registry_state_name(reg, s))));
            assert_true(mc_registry_state_flags(reg, s) & MC_STATE_VALID);
            check_props_at_once(reg, s);
            count++;
        }
        assert_true(count > 0);
        /* past the states: no text */
        assert_int_equal(mc_registry_format_state(reg, mc_registry_state_count(reg), text, sizeof text, 0), 0);
        assert_int_equal(mc_registry_state_props(reg, mc_registry_state_count(reg), NULL, NULL, 0), 0);
        assert_string_equal(text, "");
        if (mc_registry_edition(reg) == MC_EDITION_JAVA && mc_registry_state_count(reg) != 4096)
            assert_int_equal(count, mc_registry_state_count(reg));
        total += count;
    }
    print_message("round trip: %zu states in %zu registries\n", total, mc_registry_count());
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* mc_registry_state_text_id: over every state of every registry, states
 * with one nonzero identity format to one text (both option sets), the
 * states of one registry have distinct identities, every valid state of a
 * flattened registry has one and the 1.8-1.12 ones and invalid ones none; and identities
 * are shared across registries (what world stats relies on to format a
 * text once). A table of identity -> (registry, state) first met. */
static void test_text_ids(void **state)
{
    (void)state;
    enum { SLOTS = 1u << 21 };
    struct seen { uint64_t id; const mc_registry *reg; uint32_t state; } *tab = calloc(SLOTS, sizeof *tab);
    assert_non_null(tab);
    char a[1024], b[1024];
    size_t shared = 0, ids = 0;
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *reg = mc_registry_at(i);
        const bool legacy = mc_registry_edition(reg) == MC_EDITION_JAVA && mc_registry_state_count(reg) == 4096;
        assert_int_equal(mc_registry_state_text_id(reg, mc_registry_state_count(reg)), 0);
        const uint32_t count = mc_registry_state_count(reg);
        uint64_t *mine = malloc((count + 1) * sizeof *mine); /* this registry's identities */
        assert_non_null(mine);
        size_t n_mine = 0;
        for (uint32_t s = 0; s < count; s++)
            if (!mc_registry_state_valid(reg, s))
                assert_int_equal(mc_registry_state_text_id(reg, s), 0);
        for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(reg, s)) {
            const uint64_t id = mc_registry_state_text_id(reg, s);
            if (legacy) {
                assert_int_equal(id, 0);
                continue;
            }
            assert_true(id != 0);
            mine[n_mine++] = id;
            size_t k = (size_t)((id * 0x9E3779B97F4A7C15ull) >> 43) & (SLOTS - 1);
            while (tab[k].id && tab[k].id != id)
                k = (k + 1) & (SLOTS - 1);
            if (!tab[k].id) {
                assert_true(++ids < SLOTS / 2);
                tab[k] = (struct seen){id, reg, s};
                continue;
            }
            if (tab[k].reg == reg)
                fail_msg("%s: states %u and %u share identity %llx", mc_registry_name(reg), tab[k].state, s,
                         (unsigned long long)id);
            for (unsigned opt = 0; opt < 2; opt++) {
                mc_registry_format_state(tab[k].reg, tab[k].state, a, sizeof a, opt ? MC_FORMAT_SORTED : 0);
                mc_registry_format_state(reg, s, b, sizeof b, opt ? MC_FORMAT_SORTED : 0);
                if (strcmp(a, b))
                    fail_msg("identity %llx: %s state %u is %s, %s state %u is %s", (unsigned long long)id,
                             mc_registry_name(tab[k].reg), tab[k].state, a, mc_registry_name(reg), s, b);
            }
            shared++;
        }
        qsort(mine, n_mine, sizeof *mine, cmp_u64);
        for (size_t j = 1; j < n_mine; j++)
            if (mine[j] == mine[j - 1])
                fail_msg("%s: two states share identity %llx", mc_registry_name(reg), (unsigned long long)mine[j]);
        free(mine);
    }
    free(tab);
    print_message("text identities: %zu, met again in another registry %zu times\n", ids, shared);
    assert_true(shared > ids);
}

static void test_version_table(void **state)
{
    (void)state;
    mc_version_info v;
    assert_true(mc_java_version_count() > 70);
    assert_true(mc_java_version_at(0, &v));
    assert_string_equal(v.name, "1.8");
    assert_int_equal(v.protocol, 47);
    assert_true(mc_java_version_find("1.21.4", &v));
    assert_int_equal(v.protocol, 769);
    assert_int_equal(v.data_version, 4189);
    assert_ptr_equal(v.registry, mc_test_registry("1.21.4"));
    assert_true(mc_java_version_find("1.12.2", &v));
    assert_int_equal(v.protocol, 340);
    assert_int_equal(v.data_version, 1343);
    assert_true(mc_java_version_find("26.1", &v));
    assert_int_equal(v.protocol, 775);
    assert_false(mc_java_version_find("1.7.10", &v));
    assert_false(mc_java_version_at(100000, &v));
    assert_ptr_equal(mc_registry_find_protocol(47), mc_test_registry("1.8.9"));
    assert_ptr_equal(mc_registry_find_protocol(340), mc_test_registry("1.12.2"));
    assert_ptr_equal(mc_registry_find_protocol(769), mc_test_registry("1.21.4"));
    assert_ptr_equal(mc_registry_find_protocol(775), mc_test_registry("26.1"));
    assert_null(mc_registry_find_protocol(12345));
    assert_ptr_equal(mc_registry_find_data_version(1343), mc_test_registry("1.12.2"));
    assert_ptr_equal(mc_registry_find_data_version(1497), mc_test_registry("1.13")); /* 18w22a */
    assert_ptr_equal(mc_registry_find_data_version(2845), mc_test_registry("1.18"));  /* 21w44a */
    assert_ptr_equal(mc_registry_find_data_version(3829), mc_test_registry("1.20.5")); /* 1.20.5-pre1 */
    assert_ptr_equal(mc_registry_find_data_version(4671), mc_test_registry("1.21.11"));
    assert_null(mc_registry_find_data_version(1000000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contract_versions),
        cmocka_unit_test(test_contract_flags),
        cmocka_unit_test(test_flag_table),
        cmocka_unit_test(test_known_ids),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_round_trip_all),
        cmocka_unit_test(test_text_ids),
        cmocka_unit_test(test_version_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
