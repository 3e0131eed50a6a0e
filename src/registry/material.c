/*
 * material.c: the colour the translation's fallbacks give a block, by name.
 *
 * The last fallback for a block a version lacks is the full block of the
 * nearest average colour, and inside a shape family the member of the
 * closest material. Both need a block's colour:
 *   - measured: the colour the map renderer derives from the game's
 *     textures (colors.c, scripts/gen-block-colors.js) for the default
 *     state of the block of that name in the colour registry (the newest
 *     Java one), as seen from above, tinted as in plains. Only the colour
 *     registry's own table is read, never another registry's: those are
 *     made through the translation maps, which this file serves;
 *   - else, for names the colour registry does not have (older Java names,
 *     Bedrock's own), a rule: the words of the name that say a material
 *     or a dye (the sixteen dye colours, wood species, stones, metals),
 *     each with the rough colour of that material, most specific first
 *     ("red_nether" before "red", "deepslate" before "ore").
 * A name with neither has no colour (false): the callers then rank by
 * material class and name alone. This is the only place that knows
 * colours.
 */
#include "registry/colors_data.h"
#include "registry/fallback.h"

#include <string.h>

typedef struct word_color {
    const char *word; /* one or more '_'-joined words of a block name */
    uint8_t r, g, b;
} word_color;

/* Most specific first. Rough colours of the materials (0-255 sRGB). */
static const word_color word_colors[] = {
    /* compound words that would otherwise read as a dye or a second material */
    {"red_nether", 69, 7, 9},       {"red_sandstone", 181, 97, 31},  {"red_sand", 190, 102, 33},
    {"dark_oak", 66, 43, 20},        {"darkoak", 66, 43, 20},        {"pale_oak", 228, 217, 215},     {"dark_prismarine", 51, 91, 75},
    {"end_stone", 219, 222, 158},   {"blue_ice", 116, 167, 253},     {"packed_ice", 141, 180, 250},
    {"crying_obsidian", 32, 10, 60}, {"packed_mud", 142, 106, 79},    {"mud_brick", 137, 103, 79},
    {"nether_brick", 44, 21, 26},    {"nether_wart", 115, 3, 2},      {"warped_wart", 22, 119, 121},
    {"dead", 130, 123, 119},         {"soul", 81, 62, 50},            {"deepslate", 80, 80, 82},
    {"light_blue", 58, 175, 217},    {"light_gray", 142, 142, 134},   {"magma", 142, 63, 31},
    /* the sixteen dye colours (wool) */
    {"white", 233, 236, 236},  {"orange", 240, 118, 19}, {"magenta", 189, 68, 179}, {"yellow", 248, 197, 39},
    {"lime", 112, 185, 25},    {"pink", 237, 141, 172},  {"gray", 62, 68, 71},      {"silver", 142, 142, 134},
    {"cyan", 21, 137, 145},    {"purple", 121, 42, 172}, {"blue", 53, 57, 157},     {"brown", 114, 71, 40},
    {"green", 84, 109, 27},    {"red", 160, 39, 34},     {"black", 20, 21, 25},
    /* wood species */
    {"oak", 162, 130, 78},     {"spruce", 114, 84, 48},   {"birch", 192, 175, 121},  {"jungle", 160, 115, 80},
    {"acacia", 168, 90, 50},   {"mangrove", 117, 54, 48}, {"cherry", 226, 178, 172}, {"bamboo", 193, 173, 80},
    {"crimson", 101, 48, 70},  {"warped", 43, 104, 99},   {"wooden", 162, 130, 78},  {"wood", 162, 130, 78},
    {"planks", 162, 130, 78},  {"azalea", 101, 124, 47},
    /* copper ages */
    {"oxidized", 82, 162, 132}, {"weathered", 108, 153, 110}, {"exposed", 161, 125, 103}, {"copper", 192, 107, 79},
    /* stones, earths, and the rest */
    {"ore", 130, 128, 126},     {"andesite", 136, 136, 136}, {"diorite", 188, 188, 188}, {"granite", 149, 103, 85},
    {"tuff", 108, 109, 102},    {"calcite", 223, 224, 220},  {"blackstone", 42, 35, 40},  {"basalt", 80, 81, 86},
    {"dripstone", 134, 107, 92}, {"sandstone", 216, 203, 155}, {"purpur", 169, 125, 169}, {"quartz", 235, 229, 222},
    {"prismarine", 99, 156, 151}, {"netherrack", 97, 38, 38}, {"nether", 97, 38, 38},   {"cobblestone", 127, 127, 127},
    {"cobbled", 127, 127, 127}, {"stone", 125, 125, 125},    {"bricks", 150, 97, 83},     {"brick", 150, 97, 83},
    {"terracotta", 152, 94, 67}, {"clay", 160, 166, 179},    {"mud", 60, 57, 60},         {"dirt", 134, 96, 67},
    {"podzol", 92, 63, 24},     {"mycelium", 111, 99, 105},  {"gravel", 131, 127, 126},   {"sand", 219, 207, 163},
    {"grass", 127, 178, 56},    {"moss", 89, 109, 45},       {"sculk", 12, 29, 36},       {"snow", 249, 254, 254},
    {"ice", 145, 183, 253},     {"obsidian", 15, 10, 24},    {"iron", 220, 220, 220},     {"gold", 246, 208, 61},
    {"diamond", 98, 237, 228},  {"emerald", 42, 203, 87},    {"lapis", 30, 67, 140},      {"redstone", 175, 24, 5},
    {"coal", 16, 15, 15},       {"netherite", 66, 61, 63},   {"amethyst", 133, 97, 191},  {"glowstone", 171, 131, 84},
    {"shroomlight", 240, 146, 70}, {"froglight", 245, 235, 200}, {"pot", 150, 85, 60}, {"honeycomb", 229, 148, 29}, {"honey", 251, 185, 52}, {"slime", 111, 192, 91},
    {"hay", 166, 136, 38},      {"bone", 229, 225, 207},     {"melon", 111, 145, 30},     {"pumpkin", 198, 118, 24},
    {"kelp", 50, 58, 36},       {"sponge", 195, 192, 74},    {"bookshelf", 117, 94, 59},  {"resin", 217, 99, 25},
    {"chorus", 93, 57, 93},     {"glass", 200, 220, 225},    {"leaves", 60, 120, 40},     {"vine", 60, 110, 40},
    {"tube", 49, 87, 207},      {"brain", 207, 91, 159},     {"bubble", 165, 26, 162},    {"fire", 164, 35, 47},
    {"horn", 216, 200, 66},     {"lava", 207, 92, 20},       {"water", 63, 118, 228},
    {"shulker", 125, 60, 160}, {"torch", 250, 200, 100},    {"candle", 230, 220, 200},   {"bell", 230, 190, 60},
    {"ochre", 250, 240, 190},   {"verdant", 220, 245, 210},  {"pearlescent", 245, 225, 235},
    /* plants */
    {"cornflower", 70, 100, 200}, {"lily", 230, 230, 230},   {"wither", 30, 30, 30},      {"torchflower", 220, 130, 50},
    {"rose", 180, 30, 30},      {"poppy", 190, 30, 30},      {"dandelion", 240, 220, 40}, {"orchid", 40, 160, 230},
    {"allium", 180, 120, 220},  {"bluet", 220, 225, 230},    {"daisy", 230, 230, 200},    {"eyeblossom", 200, 120, 60},
    {"spore", 210, 120, 170},   {"berry", 70, 110, 40},      {"dripleaf", 90, 150, 40},   {"petals", 240, 170, 200},
    {"pickle", 100, 120, 40},   {"cane", 130, 170, 80},      {"fern", 80, 120, 50},       {"bush", 100, 130, 50},
    {"roots", 110, 80, 60},     {"sapling", 80, 120, 40},    {"fungus", 150, 60, 50},     {"sprouts", 40, 140, 120},
};

/* Is `word` a run of whole '_'-separated words of bare (len bytes), whose
 * words start at the `n` offsets `starts`? */
static bool has_words(const char *bare, size_t len, const uint8_t *starts, unsigned n, const char *word)
{
    size_t wl = strlen(word);
    for (unsigned k = 0; k < n; k++) {
        size_t i = starts[k];
        if (i + wl <= len && (i + wl == len || bare[i + wl] == '_') && !memcmp(bare + i, word, wl))
            return true;
    }
    return false;
}

/* The measured colour of block `bare` (see the top of the file). */
static bool measured_color(const char *bare, uint8_t rgb[3])
{
    const mc_registry *cr = mc_registry_find(mc__color_version);
    uint32_t b = cr ? mc__find_block(cr, bare, strlen(bare)) : MC__NONE;
    const mc__tables *t = b != MC__NONE ? mc__tables_of(cr) : NULL;
    size_t n = 0;
    const mc_block_color *table = t ? mc_registry_color_table(cr, &n) : NULL;
    uint32_t s = t ? t->block_min[b] + mc__kind_of(t, b)->default_off : 0;
    if (!table || s >= n || table[s].a == 0)
        return false;
    mc_block_color c = mc_block_color_tinted(table[s], NULL);
    rgb[0] = c.r;
    rgb[1] = c.g;
    rgb[2] = c.b;
    return true;
}

/* The rough colour of the most telling word of a name. */
static bool rule_color(const char *bare, uint8_t rgb[3])
{
    size_t len = strlen(bare);
    uint8_t starts[32];
    unsigned n = 0;
    for (size_t i = 0; i < len && i < 256 && n < 32; i++)
        if (i == 0 || bare[i - 1] == '_')
            starts[n++] = (uint8_t)i;
    for (size_t i = 0; i < sizeof word_colors / sizeof word_colors[0]; i++)
        if (has_words(bare, len, starts, n, word_colors[i].word)) {
            rgb[0] = word_colors[i].r;
            rgb[1] = word_colors[i].g;
            rgb[2] = word_colors[i].b;
            return true;
        }
    return false;
}

bool mc__block_color(const char *bare, uint8_t rgb[3])
{
    return measured_color(bare, rgb) || rule_color(bare, rgb);
}
