/*
 * test_colors.c: block-state and biome colours (src/registry/colors.c and
 * the tables scripts/gen-block-colors.js derives from the game's textures).
 *
 * Known facts checked: stone is an opaque grey; a grass block's top is grey
 * and grass-tinted, and green once tinted; water is translucent and
 * water-tinted; glass mostly transparent; air, barrier and light invisible;
 * a log shows its rings on top when upright and its bark when lying (the
 * blockstate's x rotation); redstone wire reddens with power; spruce leaves
 * carry their fixed tint. Biome tints equal the game's documented colours
 * (plains grass #91BD59, foliage #77AB2F, water #3F76E4; swamp water
 * #617B64; dark forest grass #507A32 from its modifier; badlands grass
 * #90814D; cherry grove #B6DB61). Older Java and Bedrock registries get
 * the colour of the 26.1 state they translate to, and a state translation
 * sends to air (1.12 torch meta 0) that of its block.
 */
#include "support.h"

#include <string.h>

#include "mcchunk/registry.h"

static const mc_registry *newest(void)
{
    const mc_registry *reg = mc_registry_find("26.1");
    assert_non_null(reg);
    return reg;
}

static mc_block_color color_of(const mc_registry *reg, const char *state)
{
    uint32_t id;
    mc_error err;
    if (mc_registry_parse_state(reg, state, strlen(state), &id, &err) != MC_OK)
        fail_msg("%s: %s", state, err.message);
    return mc_registry_state_color(reg, id);
}

static bool grey(mc_block_color c)
{
    int lo = c.r < c.g ? c.r : c.g, hi = c.r > c.g ? c.r : c.g;
    lo = c.b < lo ? c.b : lo;
    hi = c.b > hi ? c.b : hi;
    return hi - lo <= 6;
}

static void assert_same_color(mc_block_color a, mc_block_color b)
{
    if (a.r != b.r || a.g != b.g || a.b != b.b || a.a != b.a || a.tint != b.tint)
        fail_msg("colours differ: %u,%u,%u,%u tint %u vs %u,%u,%u,%u tint %u", a.r, a.g, a.b, a.a, a.tint,
                 b.r, b.g, b.b, b.a, b.tint);
}

static void test_known_states(void **state)
{
    (void)state;
    const mc_registry *reg = newest();
    mc_block_color stone = color_of(reg, "stone");
    assert_true(grey(stone) && stone.r > 100 && stone.r < 140);
    assert_int_equal(stone.a, 255);
    assert_int_equal(stone.tint, MC_TINT_NONE);

    mc_block_color grass = color_of(reg, "grass_block[snowy=false]");
    assert_true(grey(grass));
    assert_int_equal(grass.a, 255);
    assert_int_equal(grass.tint, MC_TINT_GRASS);
    /* snowy (snow above it): the model's top is the grass texture, untinted */
    mc_block_color snowy = color_of(reg, "grass_block[snowy=true]");
    assert_int_equal(snowy.tint, MC_TINT_NONE);
    assert_true(grey(snowy));
    mc_block_color green = mc_block_color_tinted(grass, NULL);
    assert_true(green.g > green.r + 20 && green.g > green.b + 40);
    assert_int_equal(green.tint, MC_TINT_NONE);

    mc_block_color water = color_of(reg, "water[level=0]");
    assert_int_equal(water.tint, MC_TINT_WATER);
    assert_true(water.a > 100 && water.a < 255);
    mc_block_color blue = mc_block_color_tinted(water, NULL);
    assert_true(blue.b > blue.r + 60);

    assert_true(color_of(reg, "glass").a < 128);
    assert_int_equal(color_of(reg, "air").a, 0);
    assert_int_equal(color_of(reg, "cave_air").a, 0);
    assert_int_equal(color_of(reg, "barrier").a, 0);
    assert_int_equal(color_of(reg, "light[level=15]").a, 0);
    assert_true(color_of(reg, "oak_leaves").a < 255); /* cut-out texture */
    assert_int_equal(color_of(reg, "oak_leaves").tint, MC_TINT_FOLIAGE);
    mc_block_color spruce = color_of(reg, "spruce_leaves");
    assert_int_equal(spruce.tint, MC_TINT_FIXED);
    assert_true(spruce.g > spruce.r && spruce.g > spruce.b);

    /* upright: the rings (light wood); lying: the bark (dark) */
    mc_block_color top = color_of(reg, "oak_log[axis=y]"), side = color_of(reg, "oak_log[axis=x]");
    assert_true(top.r > side.r + 20);
    assert_same_color(side, color_of(reg, "oak_log[axis=z]"));
    assert_same_color(top, color_of(reg, "oak_log[axis=y]"));
    /* a stair upside down shows its full bottom face: oak planks */
    assert_same_color(color_of(reg, "oak_stairs[half=top]"), color_of(reg, "oak_planks"));

    mc_block_color off = color_of(reg, "redstone_wire[power=0]"), on = color_of(reg, "redstone_wire[power=15]");
    assert_int_equal(on.tint, MC_TINT_FIXED);
    assert_true(on.r > off.r + 60);
    assert_true(color_of(reg, "torch").a < 64); /* a small thing seen from above */
    assert_true(color_of(reg, "poppy").a < 128);
}

/* A wall without post and sides shows nothing (a state the game never
 * places but that exists). */
static bool bare_wall(const mc_registry *reg, uint32_t s)
{
    const char *name = mc_registry_state_name(reg, s);
    size_t len = strlen(name);
    if (len < 5 || strcmp(name + len - 5, "_wall") != 0)
        return false;
    static const char *const sides[] = {"north", "south", "east", "west"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(mc_registry_state_prop_value(reg, s, sides[i]), "none") != 0)
            return false;
    return strcmp(mc_registry_state_prop_value(reg, s, "up"), "false") == 0;
}

/* Every visible state of the colour registry has a colour; the invisible
 * ones are exactly the blocks that have no texels from above. */
static void test_every_state_colored(void **state)
{
    (void)state;
    const mc_registry *reg = newest();
    size_t count;
    const mc_block_color *table = mc_registry_color_table(reg, &count);
    assert_non_null(table);
    assert_int_equal(count, mc_registry_state_count(reg));
    assert_ptr_equal(mc_registry_color_table(reg, NULL), table); /* built once */
    static const char *const invisible[] = {"minecraft:barrier", "minecraft:light", "minecraft:structure_void",
                                            "minecraft:moving_piston"};
    size_t visible = 0;
    for (uint32_t s = 0; s < count; s++) {
        const char *name = mc_registry_state_name(reg, s);
        bool air = mc_registry_state_flags(reg, s) & MC_STATE_AIR;
        bool expected_invisible = air || bare_wall(reg, s);
        for (size_t i = 0; i < sizeof invisible / sizeof invisible[0]; i++)
            expected_invisible |= strcmp(name, invisible[i]) == 0;
        if (expected_invisible != (table[s].a == 0))
            fail_msg("%s (state %u): alpha %u", name, s, table[s].a);
        assert_true(table[s].tint <= MC_TINT_FIXED);
        visible += table[s].a > 0;
    }
    assert_true(visible > count * 99 / 100);
    assert_int_equal(mc_registry_state_color(reg, (uint32_t)count).a, 0); /* out of range */
    assert_int_equal(mc_registry_state_color(NULL, 1).a, 0);
}

static void test_other_registries(void **state)
{
    (void)state;
    const mc_registry *reg = newest();
    const mc_registry *old = mc_registry_find("1.12.2"), *v18 = mc_registry_find("1.8.9");
    const mc_registry *bedrock = mc_registry_find_bedrock("1.21.60");
    assert_non_null(old);
    assert_non_null(v18);
    assert_non_null(bedrock);
    assert_same_color(mc_registry_state_color(old, 2 << 4), color_of(reg, "grass_block[snowy=false]"));
    assert_same_color(mc_registry_state_color(v18, 1 << 4), color_of(reg, "stone"));
    assert_same_color(mc_registry_state_color(old, 9 << 4), color_of(reg, "water[level=0]"));
    /* torch:0 is no 1.13 state (translation: air); drawn as its block */
    assert_same_color(mc_registry_state_color(old, 50 << 4), color_of(reg, "wall_torch[facing=east]"));
    assert_int_equal(mc_registry_state_color(old, 0).a, 0);
    assert_same_color(color_of(bedrock, "minecraft:stone"), color_of(reg, "stone"));
    assert_same_color(color_of(bedrock, "minecraft:grass_block"), color_of(reg, "grass_block[snowy=false]"));
    /* every registry builds a table of its own length */
    for (size_t i = 0; i < mc_registry_count(); i++) {
        size_t count;
        const mc_registry *r = mc_registry_at(i);
        assert_non_null(mc_registry_color_table(r, &count));
        assert_int_equal(count, mc_registry_state_count(r));
        assert_int_equal(mc_registry_state_color(r, mc_registry_air(r)).a, 0);
    }
}

static void assert_biome(const char *name, uint32_t grass, uint32_t foliage, uint32_t water)
{
    mc_biome_colors c;
    if (!mc_biome_colors_by_name(name, &c))
        fail_msg("no colours for biome %s", name);
    if ((grass && c.grass != grass) || (foliage && c.foliage != foliage) || (water && c.water != water))
        fail_msg("%s: grass %06x foliage %06x water %06x", name, c.grass, c.foliage, c.water);
}

static void test_biomes(void **state)
{
    (void)state;
    assert_biome("minecraft:plains", 0x91bd59, 0x77ab2f, 0x3f76e4);
    assert_biome("forest", 0x79c05a, 0x59ae30, 0);
    assert_biome("jungle", 0x59c93c, 0x30bb0b, 0);
    assert_biome("desert", 0xbfb755, 0xaea42a, 0);
    assert_biome("swamp", 0x6a7039, 0x6a7039, 0x617b64);
    assert_biome("mangrove_swamp", 0, 0x8db127, 0x3a7a6a);
    assert_biome("dark_forest", 0x507a32, 0, 0);
    assert_biome("badlands", 0x90814d, 0x9e814d, 0);
    assert_biome("cherry_grove", 0xb6db61, 0xb6db61, 0x5db7ef);
    assert_biome("meadow", 0, 0, 0x0e4ecf);
    assert_biome("warm_ocean", 0, 0, 0x43d5ee);
    assert_biome("roofed_forest", 0x507a32, 0, 0); /* Bedrock's dark forest */

    const mc_registry *old = mc_registry_find("1.12.2");
    mc_biome_colors c;
    assert_true(mc_registry_biome_colors(old, 6, &c)); /* swamp */
    assert_int_equal(c.water, 0x617b64);
    assert_false(mc_registry_biome_colors(old, 200, &c)); /* no such biome: plains */
    assert_int_equal(c.grass, 0x91bd59);
    assert_false(mc_biome_colors_by_name("nowhere", &c));
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *r = mc_registry_at(i);
        for (uint32_t b = 0; b < 256; b++)
            if (mc_registry_biome_name(r, b) && !mc_registry_biome_colors(r, b, &c))
                fail_msg("%s: no colours for %s", mc_registry_name(r), mc_registry_biome_name(r, b));
    }

    mc_biome_colors swamp;
    mc_biome_colors_by_name("swamp", &swamp);
    mc_block_color water = color_of(newest(), "water[level=0]");
    mc_block_color tinted = mc_block_color_tinted(water, &swamp);
    assert_int_equal(tinted.r, (water.r * 0x61 + 127) / 255);
    assert_int_equal(tinted.g, (water.g * 0x7b + 127) / 255);
    assert_int_equal(tinted.b, (water.b * 0x64 + 127) / 255);
    assert_int_equal(tinted.a, water.a);
    mc_block_color stone = color_of(newest(), "stone");
    assert_same_color(mc_block_color_tinted(stone, &swamp), stone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_states),
        cmocka_unit_test(test_every_state_colored),
        cmocka_unit_test(test_other_registries),
        cmocka_unit_test(test_biomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
