/*
 * test_registry_translate.c: translation between registries.
 *
 * A table of tricky states, each checked by hand against the game's own
 * numbering (stairs, doors, redstone, waterlogged blocks, grass vs
 * short_grass, renamed and newer blocks), translated between distant (26.1
 * <-> 1.8.9) and adjacent versions; then exhaustive properties: a cached map
 * equals the state-by-state translation, every mapped id is a valid state of
 * the target, a registry maps to itself as the identity, translating to an
 * adjacent version and back keeps almost every state, and many threads
 * building the same maps at once get one shared map.
 *
 * (Tests on real corpus chunks need the Anvil module; they belong to the
 * chunk-translation tests there.)
 */
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mcchunk/registry.h"

typedef struct {
    const char *from_version, *from, *to_version, *to;
} case_t;

/* Expected results in the target's sorted-property text form. */
static const case_t cases[] = {
    /* 26.1 -> 1.8.9 (id<<4|meta, named as the game names them: properties the
     * metadata does not store show the value of the 1.13 flattening) */
    {"26.1", "oak_stairs[facing=east,half=top,shape=inner_left,waterlogged=true]", "1.8.9", "minecraft:oak_stairs[facing=east,half=top,shape=straight]"},
    {"26.1", "oak_stairs[facing=north,half=bottom]", "1.8.9", "minecraft:oak_stairs[facing=north,half=bottom,shape=straight]"},
    {"26.1", "oak_door[half=lower,facing=west,open=true]", "1.8.9", "minecraft:wooden_door[facing=west,half=lower,hinge=right,open=true,powered=false]"},
    {"26.1", "oak_door[half=upper,hinge=left,open=true,facing=south]", "1.8.9", "minecraft:wooden_door[facing=east,half=upper,hinge=left,open=false,powered=false]"},
    {"26.1", "oak_door[half=upper,hinge=right,powered=true]", "1.8.9", "minecraft:wooden_door[facing=east,half=upper,hinge=right,open=false,powered=true]"},
    {"26.1", "redstone_wire[power=7,east=side,north=up]", "1.8.9", "minecraft:redstone_wire[east=none,north=none,power=7,south=none,west=none]"},
    {"26.1", "repeater[delay=3,facing=east]", "1.8.9", "minecraft:unpowered_repeater[delay=3,facing=east,locked=false]"},
    {"26.1", "lever[face=wall,facing=north,powered=true]", "1.8.9", "minecraft:lever[facing=north,powered=true]"},
    {"26.1", "short_grass", "1.8.9", "minecraft:tallgrass[type=tall_grass]"},
    {"26.1", "grass_block[snowy=true]", "1.8.9", "minecraft:grass[snowy=false]"},
    {"26.1", "tall_grass[half=upper]", "1.8.9", "minecraft:double_plant[facing=north,half=upper,variant=double_grass]"},
    {"26.1", "water[level=0]", "1.8.9", "minecraft:water[level=0]"},
    {"26.1", "water[level=3]", "1.8.9", "minecraft:water[level=3]"},
    {"26.1", "lava", "1.8.9", "minecraft:lava[level=0]"},
    {"26.1", "seagrass", "1.8.9", "minecraft:water[level=0]"},
    {"26.1", "oak_leaves[persistent=true,waterlogged=true]", "1.8.9", "minecraft:leaves[check_decay=false,decayable=false,variant=oak]"},
    {"26.1", "cave_air", "1.8.9", "minecraft:air"},
    {"26.1", "deepslate_iron_ore", "1.8.9", "minecraft:iron_ore"},
    {"26.1", "red_concrete", "1.8.9", "minecraft:wool[color=red]"},
    {"26.1", "oak_sign[rotation=4]", "1.8.9", "minecraft:standing_sign[rotation=4]"},
    {"26.1", "smooth_stone_slab[type=top]", "1.8.9", "minecraft:stone_slab[half=top,variant=stone]"},
    {"26.1", "oak_log[axis=x]", "1.8.9", "minecraft:log[axis=x,variant=oak]"},
    {"26.1", "piston[extended=true,facing=up]", "1.8.9", "minecraft:piston[extended=true,facing=up]"},
    {"26.1", "white_wool", "1.8.9", "minecraft:wool[color=white]"},
    {"26.1", "diorite", "1.8.9", "minecraft:stone[variant=diorite]"},
    {"26.1", "barrier", "1.8.9", "minecraft:barrier"}, /* not air-like: solid */
    {"26.1", "stripped_spruce_log[axis=z]", "1.8.9", "minecraft:log[axis=z,variant=spruce]"},
    {"26.1", "dark_oak_wall_hanging_sign[facing=west]", "1.8.9", "minecraft:wall_sign[facing=west]"},
    {"26.1", "soul_wall_torch[facing=south]", "1.8.9", "minecraft:torch[facing=south]"},
    /* 1.8.9 -> 26.1 */
    {"1.8.9", "grass", "26.1", "minecraft:grass_block[snowy=false]"},
    {"1.8.9", "tallgrass[meta=1]", "26.1", "minecraft:short_grass"},
    {"1.8.9", "stone[meta=3]", "26.1", "minecraft:diorite"},
    {"1.8.9", "oak_stairs[meta=6]", "26.1", "minecraft:oak_stairs[facing=south,half=top,shape=straight,waterlogged=false]"},
    {"1.8.9", "oak_stairs[meta=0]", "26.1", "minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=false]"},
    {"1.8.9", "wooden_door[meta=8]", "26.1", "minecraft:oak_door[facing=east,half=upper,hinge=left,open=false,powered=false]"},
    {"1.8.9", "wooden_door[meta=3]", "26.1", "minecraft:oak_door[facing=north,half=lower,hinge=right,open=false,powered=false]"},
    {"1.8.9", "redstone_wire[meta=9]", "26.1", "minecraft:redstone_wire[east=none,north=none,power=9,south=none,west=none]"},
    {"1.8.9", "leaves[meta=5]", "26.1", "minecraft:spruce_leaves[distance=1,persistent=true,waterlogged=false]"},
    {"1.8.9", "water[meta=0]", "26.1", "minecraft:water[level=0]"},
    {"1.8.9", "flowing_lava[meta=2]", "26.1", "minecraft:lava[level=2]"},
    {"1.8.9", "double_plant[meta=10]", "26.1", "minecraft:tall_grass[half=upper]"},
    {"1.8.9", "stone_slab[meta=8]", "26.1", "minecraft:smooth_stone_slab[type=top,waterlogged=false]"},
    {"1.8.9", "wool[meta=14]", "26.1", "minecraft:red_wool"},
    {"1.8.9", "standing_sign[meta=4]", "26.1", "minecraft:oak_sign[rotation=4,waterlogged=false]"},
    {"1.8.9", "log[meta=8]", "26.1", "minecraft:oak_log[axis=z]"},
    {"1.8.9", "unpowered_repeater[meta=11]", "26.1", "minecraft:repeater[delay=3,facing=east,locked=false,powered=false]"},
    /* adjacent and near versions */
    {"1.20.2", "grass", "1.20.3", "minecraft:short_grass"},
    {"1.20.3", "short_grass", "1.20.2", "minecraft:grass"},
    {"1.16.5", "grass_path", "1.17", "minecraft:dirt_path"},
    {"1.13.2", "sign[rotation=3]", "1.14", "minecraft:oak_sign[rotation=3,waterlogged=false]"},
    {"1.14", "oak_wall_sign[facing=east]", "1.13.2", "minecraft:wall_sign[facing=east,waterlogged=false]"},
    {"1.13", "stone_slab[type=double]", "1.14", "minecraft:smooth_stone_slab[type=double,waterlogged=false]"},
    {"1.21.8", "chain[axis=x,waterlogged=true]", "1.21.9", "minecraft:iron_chain[axis=x,waterlogged=true]"},
    {"1.21.9", "iron_chain[axis=z]", "1.21.8", "minecraft:chain[axis=z,waterlogged=false]"},
    /* 1.16 walls: sides became none/low/tall (true <-> low, false <-> none, tall -> true) */
    {"1.15.2", "cobblestone_wall[east=true]", "1.16.1",
     "minecraft:cobblestone_wall[east=low,north=none,south=none,up=true,waterlogged=false,west=none]"},
    {"1.16.1", "cobblestone_wall[east=tall,north=low]", "1.15.2",
     "minecraft:cobblestone_wall[east=true,north=true,south=false,up=true,waterlogged=false,west=false]"},
    /* a property the target lacks is dropped (1.13 leaves have no waterlogged) */
    {"1.19", "oak_leaves[waterlogged=true,distance=3]", "1.18.2", "minecraft:oak_leaves[distance=3,persistent=false]"},
    /* blocks the target lacks: renamed, variants */
    {"1.21.4", "stone_slab[type=top]", "1.13", "minecraft:stone_slab[type=top,waterlogged=false]"},
    {"1.21.4", "smooth_stone_slab[type=top]", "1.13.2", "minecraft:stone_slab[type=top,waterlogged=false]"},
    {"1.17", "waxed_oxidized_copper", "1.17", "minecraft:waxed_oxidized_copper"},
    {"1.21.4", "waxed_weathered_cut_copper_stairs[half=top,facing=east]", "1.17",
     "minecraft:waxed_weathered_cut_copper_stairs[facing=east,half=top,shape=straight,waterlogged=false]"},
    {"1.19", "mangrove_roots[waterlogged=true]", "1.19", "minecraft:mangrove_roots[waterlogged=true]"},
    {"1.21.4", "kelp[age=7]", "1.12.2", "minecraft:water[level=0]"},
    {"1.21.4", "light[level=15]", "1.16.5", "minecraft:air"},
    {"1.21.4", "structure_void", "1.9.4", "minecraft:air"},
    {"1.21.4", "chiseled_bookshelf[facing=east]", "1.19.2", "minecraft:bookshelf"},
    {"1.21.4", "attached_melon_stem[facing=west]", "1.12.2", "minecraft:melon_stem[age=0,facing=up]"},
};

static void test_tricky_blocks(void **state)
{
    (void)state;
    char got[512];
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const case_t *c = &cases[i];
        const mc_registry *from = mc_test_registry(c->from_version), *to = mc_test_registry(c->to_version);
        uint32_t s = mc_test_state(from, c->from);
        unsigned how = 0;
        uint32_t t = mc_registry_translate_state(from, to, s, &how);
        mc_registry_format_state(to, t, got, sizeof got, MC_FORMAT_SORTED);
        if (strcmp(got, c->to)) {
            print_error("%s %s -> %s: got %s, want %s\n", c->from_version, c->from, c->to_version, got, c->to);
            bad++;
        }
        /* the cached map agrees */
        const uint32_t *map = mc_registry_map(from, to);
        assert_non_null(map);
        assert_int_equal(map[s], t);
    }
    assert_int_equal(bad, 0);
}

/* Stand-ins whose exact block depends on colours (material.c today, the
 * texture averages later): the rule (kind), the shape family (a name
 * ending) and the properties that must survive, not the material. */
typedef struct {
    const char *from_version, *from, *to_version;
    mc_translate_kind kind;
    const char *name_end; /* "" : any block but air */
    const char *props;    /* "key=value,..." the target keeps */
} stand_in_t;

static const stand_in_t stand_ins[] = {
    {"26.1", "cherry_stairs[facing=south,half=top]", "1.8.9", MC_TRANSLATE_KIND_SAME_SHAPE, "_stairs", "facing=south,half=top"},
    {"1.20", "cherry_planks", "1.19.3", MC_TRANSLATE_KIND_SAME_SHAPE, "_planks", ""},
    {"1.21.4", "pale_oak_log[axis=x]", "1.21.1", MC_TRANSLATE_KIND_SAME_SHAPE, "_log", "axis=x"},
    {"1.17", "waxed_oxidized_cut_copper_stairs[half=top,facing=west]", "1.16.5", MC_TRANSLATE_KIND_SAME_SHAPE, "_stairs",
     "facing=west,half=top"},
    {"1.21.4", "andesite_wall[east=low,up=false]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "cobblestone_wall", ""},
    {"1.21.4", "acacia_hanging_sign[rotation=5]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "standing_sign", "rotation=5"},
    {"1.21.4", "red_candle[candles=3,lit=true]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "torch", ""},
    {"1.21.4", "polished_deepslate_slab[type=top]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "_slab", "half=top"},
    {"1.21.4", "mangrove_door[half=lower,facing=south,open=true]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "_door",
     "facing=south,open=true"},
    {"1.21.4", "crimson_trapdoor[half=top,facing=east]", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "trapdoor",
     "facing=east,half=top"},
    {"1.21.4", "cornflower", "1.12.2", MC_TRANSLATE_KIND_SAME_SHAPE, "red_flower", ""},
    {"1.21.4", "purple_stained_glass_pane", "1.8.9", MC_TRANSLATE_KIND_EXACT, "stained_glass_pane", "color=purple"},
    {"1.21.4", "lime_glazed_terracotta[facing=north]", "1.11.2", MC_TRANSLATE_KIND_SAME_SHAPE, "stained_hardened_clay",
     "color=lime"},
    {"1.17", "deepslate", "1.16.5", MC_TRANSLATE_KIND_NEAREST_COLOR, "", ""},
    {"1.17", "amethyst_cluster[facing=up]", "1.16.5", MC_TRANSLATE_KIND_NEAREST_COLOR, "", ""},
    {"1.21.4", "blue_ice", "1.12.2", MC_TRANSLATE_KIND_NEAREST_COLOR, "", ""},
};

/* "k=v,k2=v2" all present in state t of reg? */
static bool has_props(const mc_registry *reg, uint32_t t, const char *props)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", props);
    for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        *eq = '\0';
        const char *v = mc_registry_state_prop_value(reg, t, kv);
        if (!v || strcmp(v, eq + 1))
            return false;
    }
    return true;
}

static void test_stand_ins(void **state)
{
    (void)state;
    char got[512];
    int bad = 0;
    for (size_t i = 0; i < sizeof stand_ins / sizeof stand_ins[0]; i++) {
        const stand_in_t *c = &stand_ins[i];
        const mc_registry *from = mc_test_registry(c->from_version), *to = mc_test_registry(c->to_version);
        unsigned how = 0;
        uint32_t t = mc_registry_translate_state(from, to, mc_test_state(from, c->from), &how);
        mc_registry_format_state(to, t, got, sizeof got, MC_FORMAT_SORTED);
        const char *name = mc_registry_state_name(to, t);
        size_t nl = strlen(name), el = strlen(c->name_end);
        if (mc_translate_kind_of(how) != c->kind || (mc_registry_state_flags(to, t) & MC_STATE_AIR) ||
            nl < el || strcmp(name + nl - el, c->name_end) || !has_props(to, t, c->props)) {
            print_error("%s %s -> %s: got %s (%s), want a %s ending in '%s' with %s\n", c->from_version, c->from,
                        c->to_version, got, mc_translate_kind_name(mc_translate_kind_of(how)),
                        mc_translate_kind_name(c->kind), c->name_end, c->props);
            bad++;
        }
    }
    assert_int_equal(bad, 0);
}

static void test_how_bits(void **state)
{
    (void)state;
    const mc_registry *a = mc_test_registry("1.20.2"), *b = mc_test_registry("1.20.3");
    unsigned how;
    mc_registry_translate_state(b, a, mc_test_state(b, "short_grass"), &how);
    assert_int_equal(how, MC_TRANSLATE_RENAMED);
    mc_registry_translate_state(a, b, mc_test_state(a, "stone"), &how);
    assert_int_equal(how, 0);
    const mc_registry *n = mc_test_registry("1.19"), *o = mc_test_registry("1.18.2");
    mc_registry_translate_state(n, o, mc_test_state(n, "oak_leaves[waterlogged=true]"), &how);
    assert_int_equal(how, MC_TRANSLATE_PROP_DROPPED);
    uint32_t roots = mc_registry_translate_state(n, o, mc_test_state(n, "mangrove_roots"), &how);
    assert_false(how & MC_TRANSLATE_AIR); /* a block 1.18 lacks: a stand-in, never air */
    assert_true(how & (MC_TRANSLATE_SAME_FAMILY | MC_TRANSLATE_NEAREST_COLOR));
    assert_false(mc_registry_state_flags(o, roots) & MC_STATE_AIR);
    mc_registry_translate_state(n, o, mc_test_state(n, "cave_air"), &how);
    assert_int_equal(how, 0); /* 1.18.2 has cave_air */
    assert_int_equal(mc_registry_translate_state(n, mc_test_registry("1.12.2"), mc_test_state(n, "cave_air"), &how), 0);
    assert_int_equal(mc_translate_kind_of(how), MC_TRANSLATE_KIND_AIR_LIKE);
    assert_string_equal(mc_translate_kind_name(MC_TRANSLATE_KIND_NEAREST_COLOR), "nearest-colour");

    const mc_registry *w = mc_test_registry("1.16.1"), *v = mc_test_registry("1.15.2");
    mc_registry_translate_state(w, v, mc_test_state(w, "cobblestone_wall[east=tall]"), &how);
    assert_int_equal(how, 0); /* tall -> true */
    /* 1.14 added note-block instruments 1.13 lacks: the default (harp) */
    const mc_registry *r1144 = mc_test_registry("1.14.4"), *r1132 = mc_test_registry("1.13.2");
    uint32_t t = mc_registry_translate_state(r1144, r1132, mc_test_state(r1144, "note_block[instrument=iron_xylophone,note=3]"), &how);
    assert_int_equal(how, MC_TRANSLATE_VALUE_DEFAULTED);
    assert_string_equal(mc_registry_state_prop_value(r1132, t, "instrument"), "harp");
    assert_string_equal(mc_registry_state_prop_value(r1132, t, "note"), "3");
    const mc_registry *r1214 = mc_test_registry("1.21.4"), *r1213 = mc_test_registry("1.21.3");
    /* 1.21.4 creaking_heart has active and natural; 1.21.3 has creaking instead */
    mc_registry_translate_state(r1214, r1213, mc_test_state(r1214, "creaking_heart"), &how);
    assert_true(how & MC_TRANSLATE_PROP_DROPPED);
    /* invalid source ids become the target's air */
    assert_int_equal(mc_registry_translate_state(n, o, 0xFFFFFF, &how), 0);
    assert_true(how & MC_TRANSLATE_AIR);
    const mc_registry *l = mc_test_registry("1.12.2");
    assert_int_equal(mc_registry_translate_state(l, n, (2 << 4) | 5, &how), 0); /* 2:5 is no state */
}

/* For a pair: the map equals state-by-state translation; every entry is a
 * valid target state. */
static void check_map(const mc_registry *from, const mc_registry *to)
{
    const uint32_t *map = mc_registry_map(from, to);
    const uint16_t *hows = mc_registry_map_how(from, to);
    assert_non_null(map);
    assert_non_null(hows);
    assert_ptr_equal(map, mc_registry_map(from, to)); /* cached */
    uint32_t n = mc_registry_state_count(from);
    for (uint32_t s = 0; s < n; s++) {
        if (!mc_registry_state_valid(to, map[s]))
            fail_msg("%s -> %s: state %u maps to invalid %u", mc_registry_name(from), mc_registry_name(to), s, map[s]);
        unsigned how = 0;
        uint32_t t = mc_registry_translate_state(from, to, s, &how);
        if (t != map[s] || how != hows[s])
            fail_msg("%s -> %s: state %u: map %u (how %#x), translate %u (how %#x)", mc_registry_name(from),
                     mc_registry_name(to), s, map[s], hows[s], t, how);
    }
}

static void test_maps_match_translation(void **state)
{
    (void)state;
    size_t java = 0;
    while (java < mc_registry_count() && mc_registry_edition(mc_registry_at(java)) == MC_EDITION_JAVA)
        java++;
    /* all adjacent Java pairs both ways, and the distant ones */
    for (size_t i = 0; i + 1 < java; i++) {
        check_map(mc_registry_at(i), mc_registry_at(i + 1));
        check_map(mc_registry_at(i + 1), mc_registry_at(i));
    }
    check_map(mc_test_registry("26.1"), mc_test_registry("1.8.9"));
    check_map(mc_test_registry("1.8.9"), mc_test_registry("26.1"));
    check_map(mc_test_registry("1.21.4"), mc_test_registry("1.12.2"));
    check_map(mc_test_registry("1.12.2"), mc_test_registry("1.21.4"));
}

static void test_identity_and_round_trip(void **state)
{
    (void)state;
    size_t java = 0;
    while (java < mc_registry_count() && mc_registry_edition(mc_registry_at(java)) == MC_EDITION_JAVA)
        java++;
    for (size_t i = 0; i < java; i++) {
        const mc_registry *r = mc_registry_at(i);
        const uint32_t *id = mc_registry_map(r, r);
        for (uint32_t s = mc_registry_next_state(r, MC_STATE_NONE); s != MC_STATE_NONE; s = mc_registry_next_state(r, s))
            assert_int_equal(id[s], s);
    }
    /* flattened neighbours: going to the next version and back keeps every
     * state whose block still exists with the same properties */
    for (size_t i = 0; i + 1 < java; i++) {
        const mc_registry *a = mc_registry_at(i), *b = mc_registry_at(i + 1);
        if (mc_registry_state_count(a) == 4096)
            continue;
        const uint32_t *ab = mc_registry_map(a, b), *ba = mc_registry_map(b, a);
        uint32_t kept = 0, exact = 0;
        for (uint32_t s = 0; s < mc_registry_state_count(a); s++) {
            unsigned how;
            mc_registry_translate_state(a, b, s, &how);
            if (how)
                continue;
            exact++;
            kept += ba[ab[s]] == s;
        }
        if (kept != exact)
            fail_msg("%s <-> %s: %u of %u exact states come back", mc_registry_name(a), mc_registry_name(b), kept, exact);
        assert_true(exact > mc_registry_state_count(a) / 2);
    }
}

/* Legacy 1.12.2 -> 1.13 -> 1.12.2 keeps every state legacy.json maps
 * one-to-one (states whose 1.13 form is shared, e.g. 8:x and 9:x water, or
 * the unused bits of old metadata, may collapse). */
static void test_legacy_round_trip(void **state)
{
    (void)state;
    const mc_registry *l = mc_test_registry("1.12.2"), *f = mc_test_registry("1.13");
    const uint32_t *lf = mc_registry_map(l, f), *fl = mc_registry_map(f, l);
    uint32_t valid = 0, back = 0;
    for (uint32_t s = 0; s < 4096; s++) {
        if (!mc_registry_state_valid(l, s))
            continue;
        valid++;
        back += fl[lf[s]] == s;
    }
    print_message("1.12.2 -> 1.13 -> 1.12.2: %u of %u states come back\n", back, valid);
    assert_true(back * 10 > valid * 8);
}

static void test_bedrock(void **state)
{
    (void)state;
    const mc_registry *b = mc_registry_find_bedrock("1.21.60");
    const mc_registry *j = mc_test_registry("1.21.4");
    assert_non_null(b);
    assert_int_equal(mc_registry_edition(b), MC_EDITION_BEDROCK);
    assert_ptr_equal(mc_registry_find_edition(MC_EDITION_BEDROCK, "1.21.60"), b);
    assert_null(mc_registry_find_bedrock("1.21.4"));
    /* minecraft-data 1.21.60: 15168 states, air is 11996 */
    assert_int_equal(mc_registry_state_count(b), 15168);
    assert_int_equal(mc_registry_direct_bits(b), 14);
    assert_int_equal(mc_registry_air(b), 11996);
    assert_int_equal(mc_registry_state_flags(b, 11996), MC_STATE_AIR | MC_STATE_VALID);
    /* hashed network id of minecraft:air: -604749536 as an int32 */
    assert_int_equal(mc_registry_state_hash(b, 11996), (uint32_t)-604749536);
    assert_int_equal(mc_registry_state_from_hash(b, (uint32_t)-604749536), 11996);
    assert_int_equal(mc_registry_state_from_hash(b, 12345), MC_STATE_NONE);
    for (uint32_t s = 0; s < mc_registry_state_count(b); s++)
        assert_int_equal(mc_registry_state_from_hash(b, mc_registry_state_hash(b, s)), s);
    assert_int_equal(mc_registry_state_hash(j, 1), MC_STATE_NONE);

    static const char *const pairs[][2] = {
        {"oak_stairs[facing=east,half=top]", "minecraft:oak_stairs[upside_down_bit=true,weirdo_direction=0]"},
        {"oak_stairs[facing=north,half=bottom]", "minecraft:oak_stairs[upside_down_bit=false,weirdo_direction=3]"},
        {"water[level=0]", "minecraft:water[liquid_depth=0]"},
        {"redstone_wire[power=5]", "minecraft:redstone_wire[redstone_signal=5]"},
        {"short_grass", "minecraft:short_grass"},
        {"stone", "minecraft:stone"},
        {"granite", "minecraft:granite"},
    };
    char got[512];
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        uint32_t js = mc_test_state(j, pairs[i][0]);
        uint32_t bs = mc_registry_translate_state(j, b, js, NULL);
        mc_registry_format_state(b, bs, got, sizeof got, MC_FORMAT_SORTED);
        if (strcmp(got, pairs[i][1]))
            fail_msg("%s -> %s, want %s", pairs[i][0], got, pairs[i][1]);
        assert_int_equal(mc_registry_translate_state(b, j, bs, NULL), js);
        assert_int_equal(mc_registry_map(j, b)[js], bs);
        assert_int_equal(mc_registry_map(b, j)[bs], js);
    }
    /* 26.1 -> Bedrock goes through the Java version of the mapping */
    const mc_registry *n = mc_test_registry("26.1");
    uint32_t t = mc_registry_translate_state(n, b, mc_test_state(n, "stone"), NULL);
    assert_string_equal(mc_registry_state_name(b, t), "minecraft:stone");
    /* every map entry is a valid state, both ways, for every Bedrock registry */
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *r = mc_registry_at(i);
        if (mc_registry_edition(r) != MC_EDITION_BEDROCK)
            continue;
        const uint32_t *to_b = mc_registry_map(j, r), *to_j = mc_registry_map(r, j);
        assert_non_null(to_b);
        assert_non_null(to_j);
        for (uint32_t s = 0; s < mc_registry_state_count(j); s++)
            assert_true(mc_registry_state_valid(r, to_b[s]));
        for (uint32_t s = 0; s < mc_registry_state_count(r); s++)
            assert_true(mc_registry_state_valid(j, to_j[s]));
    }
}

typedef struct {
    const mc_registry *a, *b;
    const uint32_t *map;
    uint32_t state;
} thread_arg;

static void *thread_main(void *p)
{
    thread_arg *t = p;
    t->map = mc_registry_map(t->a, t->b);
    t->state = mc_registry_default_state(t->a, "minecraft:oak_stairs");
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    enum { N = 8 };
    pthread_t th[N];
    thread_arg args[N];
    const mc_registry *a = mc_test_registry("1.19.4"), *b = mc_test_registry("1.9.4");
    for (int i = 0; i < N; i++) {
        args[i] = (thread_arg){a, b, NULL, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < N; i++) {
        assert_non_null(args[i].map);
        assert_ptr_equal(args[i].map, args[0].map);
        assert_int_equal(args[i].state, args[0].state);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_tricky_blocks),
        cmocka_unit_test(test_how_bits),
        cmocka_unit_test(test_stand_ins),
        cmocka_unit_test(test_maps_match_translation),
        cmocka_unit_test(test_identity_and_round_trip),
        cmocka_unit_test(test_legacy_round_trip),
        cmocka_unit_test(test_bedrock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
