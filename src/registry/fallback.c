/*
 * fallback.c: the block a version has for a block it lacks, chosen by
 * rules over names and the generated per-block facts, never by a table of
 * per-block answers.
 *
 * The rules, in the order they are tried (the first that finds an
 * available block wins, and says so in MC_TRANSLATE_* bits):
 *   1. the same name;
 *   2. air-like blocks (air, cave_air, void_air, light, structure_void)
 *      become the target's air (AIR_LIKE);
 *   3. the same block under another name: the game's renames, both ways
 *      (grass <-> short_grass, sign <-> oak_sign, ...), Bedrock's names
 *      (snow_layer, X_double_slab = X_slab with type=double imposed), and
 *      for another edition's name, the same letters without underscores
 *      (trip_wire, tripwire) (RENAMED);
 *   4. water plants (kelp, seagrass, bubble_column: always a fluid) become
 *      water (SAME_FAMILY);
 *   5. a variant of the block: its name without a variant prefix
 *      (waxed_, weathered_, stripped_, cracked_, polished_, ...), also
 *      with "_block" after it (cut_copper -> copper_block) (SAME_FAMILY);
 *   6. the shape family. A name's family is its last word or words
 *      (stairs, slab, wall, fence_gate, door, trapdoor, button,
 *      pressure_plate, sign, banner, bed, carpet, ...); families the target
 *      may lack fall back to a related one (hanging_sign -> sign, candle
 *      -> torch, stained_glass_pane -> glass_pane, shulker_box -> chest,
 *      concrete -> wool, ...). For a block that is not a full cube, the
 *      first family of that chain with members in the target wins; among
 *      the members, the closest material (below) (SAME_FAMILY);
 *   7. a plant (no collision, a plant's name or material) becomes the
 *      target plant of the closest material (SAME_FAMILY);
 *   8. anything else becomes the ordinary full block of the closest
 *      material and colour (NEAREST_COLOR); a full cube also considers its
 *      own family's members here, preferred when the material ties.
 * "Closest material" ranks candidates by: no redstone behaviour unless the
 * source has it (a soul torch becomes a torch, not a redstone torch), then
 * material words shared with the source name (iron in deepslate_iron_ore
 * and iron_ore; red in red_concrete and red_wool), then the family chain's
 * order, then the same material
 * class (rock, wood, earth, plant, wool), then the colour distance
 * (material.c), then fewer words the source does not have, then the lowest
 * block index (so the choice is stable).
 *
 * "Ordinary" full blocks exclude what a stand-in must not be: anything that
 * falls (sand, gravel, concrete powder), explodes, melts, is unbreakable or
 * technical (bedrock, barrier, command and structure blocks), holds a block
 * entity or does something (furnaces, spawners, note blocks), lights up,
 * or is an ore or a precious block; and blocks with properties other than
 * axis and snowy.
 */
#include "registry/fallback.h"

#include <stdio.h>
#include <stdlib.h>

#define NS "minecraft:"
#define NS_LEN 10
#define MAX_WORDS 16
#define NAME_CAP 128

/* ---------------------------------------------------------------- words */

typedef struct words {
    unsigned n;
    const char *w[MAX_WORDS];
    uint8_t len[MAX_WORDS];
} words;

/* Materials named with two words, read as one ("dark_oak" shares nothing
 * with "dark_prismarine", "end_stone" nothing with "stone"). */
static const char *const compound_words[] = {
    "dark_oak", "pale_oak", "dark_prismarine", "red_sandstone", "red_sand", "red_nether", "end_stone",
    "light_blue", "light_gray", "blue_ice", "packed_ice", NULL};

static void split_words(const char *bare, words *out)
{
    out->n = 0;
    const char *p = bare;
    while (*p && out->n < MAX_WORDS) {
        const char *e = strchr(p, '_');
        for (const char *const *c = compound_words; *c && e; c++) {
            size_t cl = strlen(*c);
            if (!strncmp(p, *c, cl) && (p[cl] == '_' || p[cl] == '\0')) {
                e = p[cl] ? p + cl : NULL;
                break;
            }
        }
        size_t l = e ? (size_t)(e - p) : strlen(p);
        out->w[out->n] = p;
        out->len[out->n++] = (uint8_t)(l > 255 ? 255 : l);
        if (!e)
            break;
        p = e + 1;
    }
}

static bool word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && !memcmp(w, s, len);
}

/* A word as a number, for the rankings' comparisons: FNV-1a of its
 * letters, a final 's' dropped, so that a plural is its singular
 * (beetroot, beetroots). */
static uint32_t word_key(const char *w, size_t len)
{
    if (len > 3 && w[len - 1] == 's')
        len--;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)w[i]) * 16777619u;
    return h;
}

static bool keys_have(const uint32_t *keys, unsigned n, uint32_t key)
{
    for (unsigned i = 0; i < n; i++)
        if (keys[i] == key)
            return true;
    return false;
}

static bool word_in_list(const char *w, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (word_is(w, len, *list))
            return true;
    return false;
}

static bool name_has_word(const char *bare, const char *const *list)
{
    words ws;
    split_words(bare, &ws);
    for (unsigned i = 0; i < ws.n; i++)
        if (word_in_list(ws.w[i], ws.len[i], list))
            return true;
    return false;
}

static bool ends_with_key(const char *bare, size_t len, const char *key)
{
    size_t kl = strlen(key);
    if (len == kl)
        return !memcmp(bare, key, kl);
    return len > kl && bare[len - kl - 1] == '_' && !memcmp(bare + len - kl, key, kl);
}

static const char *bare_name(const char *name)
{
    return strncmp(name, NS, NS_LEN) ? name : name + NS_LEN;
}

/* ------------------------------------------------------------- families */

enum family {
    F_NONE, F_WALL_HANGING_SIGN, F_HANGING_SIGN, F_WALL_SIGN, F_SIGN, F_WALL_BANNER, F_BANNER,
    F_CANDLE_CAKE, F_CAKE, F_CANDLE, F_WALL_TORCH, F_TORCH, F_LANTERN, F_CAMPFIRE, F_ROD,
    F_STAINED_GLASS_PANE, F_GLASS_PANE, F_STAINED_GLASS, F_GLASS, F_GLAZED_TERRACOTTA, F_TERRACOTTA,
    F_CONCRETE_POWDER, F_CONCRETE, F_CARPET, F_WOOL, F_BED, F_SHULKER_BOX, F_CHEST, F_STAIRS, F_SLAB,
    F_FENCE_GATE, F_FENCE, F_WALL, F_TRAPDOOR, F_DOOR, F_BUTTON, F_PRESSURE_PLATE, F_WALL_SKULL,
    F_SKULL, F_CORAL_WALL_FAN, F_CORAL_FAN, F_CORAL_BLOCK, F_CORAL, F_MUSHROOM_BLOCK, F_MUSHROOM,
    F_LEAVES, F_LOG, F_WOOD, F_PLANKS, F_SAPLING, F_ORE, F_BRICKS, F_RAIL, F_CAULDRON, F_FLOWER_POT,
    F_ANVIL, F_VINE, F_BARS, F_AMETHYST_BUD, F_CROP, F_COUNT
};

/* A name ending in "_key" (or equal to key) is of that family; the more
 * specific keys first. */
static const struct { const char *key; uint8_t family; } family_keys[] = {
    /* names that end like a family without being of it */
    {"piston_head", F_NONE}, {"sea_lantern", F_NONE}, {"jack_o_lantern", F_NONE},
    {"wall_hanging_sign", F_WALL_HANGING_SIGN}, {"hanging_sign", F_HANGING_SIGN}, {"wall_sign", F_WALL_SIGN},
    {"sign", F_SIGN}, {"wall_banner", F_WALL_BANNER}, {"banner", F_BANNER}, {"candle_cake", F_CANDLE_CAKE},
    {"cake", F_CAKE}, {"candle", F_CANDLE}, {"wall_torch", F_WALL_TORCH}, {"torch", F_TORCH},
    {"lantern", F_LANTERN}, {"campfire", F_CAMPFIRE}, {"rod", F_ROD},
    {"stained_glass_pane", F_STAINED_GLASS_PANE}, {"glass_pane", F_GLASS_PANE}, {"pane", F_GLASS_PANE},
    {"stained_glass", F_STAINED_GLASS}, {"glass", F_GLASS}, {"glazed_terracotta", F_GLAZED_TERRACOTTA},
    {"terracotta", F_TERRACOTTA}, {"concrete_powder", F_CONCRETE_POWDER}, {"concrete", F_CONCRETE},
    {"carpet", F_CARPET}, {"wool", F_WOOL}, {"bed", F_BED}, {"shulker_box", F_SHULKER_BOX},
    {"chest", F_CHEST}, {"stairs", F_STAIRS}, {"slab", F_SLAB}, {"fence_gate", F_FENCE_GATE},
    {"fence", F_FENCE}, {"wall", F_WALL}, {"trapdoor", F_TRAPDOOR}, {"door", F_DOOR},
    {"button", F_BUTTON}, {"pressure_plate", F_PRESSURE_PLATE}, {"wall_head", F_WALL_SKULL},
    {"wall_skull", F_WALL_SKULL}, {"head", F_SKULL}, {"skull", F_SKULL},
    {"coral_wall_fan", F_CORAL_WALL_FAN}, {"coral_fan", F_CORAL_FAN}, {"coral_block", F_CORAL_BLOCK},
    {"coral", F_CORAL}, {"mushroom_block", F_MUSHROOM_BLOCK}, {"mushroom_stem", F_MUSHROOM_BLOCK},
    {"mushroom", F_MUSHROOM}, {"fungus", F_MUSHROOM}, {"leaves", F_LEAVES}, {"log", F_LOG},
    {"hyphae", F_WOOD}, {"wood", F_WOOD}, {"planks", F_PLANKS}, {"sapling", F_SAPLING},
    {"propagule", F_SAPLING}, {"ore", F_ORE}, {"bricks", F_BRICKS}, {"tiles", F_BRICKS},
    {"rail", F_RAIL}, {"cauldron", F_CAULDRON}, {"pot", F_FLOWER_POT}, {"anvil", F_ANVIL},
    {"vines_plant", F_VINE}, {"vines", F_VINE}, {"vine", F_VINE}, {"lichen", F_VINE}, {"vein", F_VINE},
    {"bars", F_BARS}, {"chain", F_BARS}, {"amethyst_bud", F_AMETHYST_BUD},
    {"amethyst_cluster", F_AMETHYST_BUD}, {"crop", F_CROP}, {"wheat", F_CROP}, {"carrots", F_CROP},
    {"potatoes", F_CROP}, {"beetroots", F_CROP}, {"beetroot", F_CROP},
    {"stem", F_LOG}, {"block", F_LOG}, /* only when wood: see family_of */
};

/* The family to try when the target has no member of this one. */
static uint8_t family_next(uint8_t f)
{
    switch (f) {
    case F_WALL_HANGING_SIGN: return F_WALL_SIGN;
    case F_HANGING_SIGN: return F_SIGN;
    case F_CANDLE_CAKE: return F_CAKE;
    case F_CANDLE: case F_LANTERN: case F_CAMPFIRE: case F_ROD: return F_TORCH;
    case F_STAINED_GLASS_PANE: return F_GLASS_PANE;
    case F_STAINED_GLASS: return F_GLASS;
    case F_GLAZED_TERRACOTTA: return F_TERRACOTTA;
    case F_CONCRETE_POWDER: return F_CONCRETE;
    case F_CONCRETE: return F_WOOL;
    case F_SHULKER_BOX: return F_CHEST;
    case F_CORAL_WALL_FAN: return F_CORAL_FAN;
    case F_CORAL_FAN: return F_CORAL;
    case F_WOOD: return F_LOG;
    default: return F_NONE;
    }
}

/* Does registry `reg` have "<word>_planks" for some word of `bare`? (A
 * crimson_stem or a bamboo_block is a log: its wood has planks.) */
static bool wood_material(const mc_registry *reg, const char *bare)
{
    words ws;
    split_words(bare, &ws);
    for (unsigned i = 0; i < ws.n; i++) {
        char buf[NAME_CAP];
        int n = snprintf(buf, sizeof buf, "%.*s_planks", (int)ws.len[i], ws.w[i]);
        if (n > 0 && (size_t)n < sizeof buf && mc__find_block(reg, buf, (size_t)n) != MC__NONE)
            return true;
    }
    return false;
}

/* The family of a bare name and the length of its family key (0: none). */
static uint8_t family_of(const mc_registry *reg, const char *bare, size_t *key_len)
{
    size_t len = strlen(bare);
    *key_len = 0;
    if (!strncmp(bare, "potted_", 7))
        return F_FLOWER_POT;
    for (size_t i = 0; i < sizeof family_keys / sizeof family_keys[0]; i++) {
        const char *key = family_keys[i].key;
        if (!ends_with_key(bare, len, key))
            continue;
        if ((!strcmp(key, "stem") || !strcmp(key, "block")) && !wood_material(reg, bare))
            return F_NONE; /* a melon_stem, a copper_block */
        *key_len = family_keys[i].family == F_NONE ? 0 : strlen(key);
        return family_keys[i].family;
    }
    /* the family word elsewhere in the name (Bedrock's colored_torch_red) */
    static const char *const inner_keys[] = {"torch", "slab", "stairs", "door", "fence", "button", "leaves",
                                             "vines", "carpet", "glass", NULL};
    words ws;
    split_words(bare, &ws);
    for (unsigned i = 0; i + 1 < ws.n; i++)
        for (const char *const *k = inner_keys; *k; k++)
            if (word_is(ws.w[i], ws.len[i], *k)) {
                size_t kl;
                return family_of(reg, *k, &kl);
            }
    return F_NONE;
}

/* Words that say a form, not a material: shared, they make no two blocks
 * alike. */
static const char *const form_words[] = {
    "polished", "smooth", "cut", "chiseled", "cracked", "waxed", "exposed", "weathered", "oxidized",
    "stripped", "infested", "dead", "brick", "bricks", "tile", "tiles", "block", "wall", "stairs", "slab",
    "double", "hanging", "standing", "small", "large", "tall", "short", "big", "potted", "lit", "powered",
    "unpowered", "upper", "lower", "hard", "colored", "element", "bush", NULL};

/* Words of blocks that act (power, signal): a stand-in only for their like. */
static const char *const active_words[] = {"redstone", "powered", "observer", "comparator", "repeater", NULL};

/* Prefixes that make a variant of a block ("waxed_cut_copper" is cut_copper). */
static const char *const variant_prefixes[] = {
    "waxed_", "exposed_", "weathered_", "oxidized_", "stripped_", "attached_", "infested_", "chipped_",
    "damaged_", "dead_", "cracked_", "mossy_", "chiseled_", "polished_", "smooth_", "cut_", "hard_",
    "flowering_", "lit_", "suspicious_", "budding_", "reinforced_", "crying_", "packed_", "cobbled_",
    "gilded_", "underwater_", NULL};

/* Plants by name, for the registries whose material data says nothing. */
static const char *const plant_words[] = {
    "flower", "grass", "fern", "bush", "roots", "sprouts", "fungus", "vine", "vines", "petals", "blossom",
    "sapling", "propagule", "tulip", "orchid", "daisy", "bluet", "allium", "rose", "lily", "poppy",
    "dandelion", "cornflower", "eyeblossom", "berry", "berries", "dripleaf", "azalea", "coral", "lichen",
    "pickle", "mushroom", "cactus", "cane", "reeds", "bamboo", "wart", "crop", "crops", "wheat",
    "carrots", "potatoes", "beetroot", "beetroots", "torchflower", "pitcher", "spore", "litter",
    "wildflowers", "moss", "deadbush", "waterlily", "seagrass", "kelp", "plant", "shrub", "clover", NULL};

/* Words no ordinary stand-in block may have (see the top of the file). */
static const char *const unordinary_words[] = {
    "ore", "command", "structure", "jigsaw", "barrier", "bedrock", "spawner", "tnt", "infested",
    "monster", "egg", "sand", "red_sand", "gravel", "powder", "anvil", "ice", "magma", "sponge", "slime", "honey",
    "target", "note", "noteblock", "jukebox", "dispenser", "dropper", "observer", "crafting", "furnace",
    "smoker", "loom", "barrel", "beehive", "nest", "lodestone", "anchor", "beacon", "conduit",
    "enchanting", "reinforced", "budding", "sculk", "vault", "trial", "crafter", "diamond", "emerald",
    "gold", "netherite", "iron", "debris", "raw", "redstone", "lamp", "glowstone", "lantern",
    "shroomlight", "froglight", "light", "portal", "frame", "gateway", "table", "bee", "respawn",
    "suspicious", "lapis", "bookshelf", "heart", "creaking", "test", "unknown", "reserved6", "update",
    "info", "element", "allow", "deny", "border", "camera", "placeholder", "invisible", "chalkboard",
    "reactor", "netherreactor", "glowingobsidian", "chemical", "compound", "lab", "constructor",
    "reducer", "heat", "deprecated", "client", "glass", NULL};

/* Plants no plant may stand in for: crops and what grows on something. */
static const char *const unplantable_words[] = {
    "stem", "wart", "cocoa", "wheat", "carrots", "potatoes", "beetroots", "crop", "attached", "seagrass",
    "kelp", "chorus", "vine", "vines", "lichen", "vein", NULL};

static const char *const plain_props[] = {"axis", "snowy", NULL};

bool mc__air_like_name(const char *bare)
{
    size_t len = strlen(bare);
    return !strcmp(bare, "air") || !strcmp(bare, "light") || !strcmp(bare, "structure_void") ||
           (len > 4 && !strcmp(bare + len - 4, "_air")) || !strncmp(bare, "light_block", 11);
}

/* ------------------------------------------------------------ the view */

enum { INFO_ORDINARY = 1, INFO_PLANT = 2, INFO_FULL = 4, INFO_ACTIVE = 8 };

#define INFO_WORDS 8

typedef struct block_info {
    const char *bare; /* the name without "minecraft:" */
    uint8_t family;
    uint8_t material;
    uint8_t kind;   /* INFO_* */
    uint8_t has_rgb;
    uint8_t rgb[3];
    uint8_t nwords; /* its words (split_words), as word_key numbers */
    uint32_t wkey[INFO_WORDS];
} block_info;

struct mc__view {
    const mc_registry *reg;
    const mc__tables *t;
    uint8_t *avail;      /* per block; NULL: all */
    block_info *info;    /* per block */
    uint32_t air, water; /* blocks, MC__NONE when absent */
    uint32_t *finish;    /* mc__view_set_finish */
    uint16_t *finish_how;
    /* the available blocks by rule: full blocks (INFO_FULL), plants, and
     * each family's members (family_first[f] .. family_first[f + 1]) */
    uint32_t *full, *plants, *members;
    uint32_t full_n, plants_n;
    uint32_t family_first[F_COUNT + 1];
};

const mc_registry *mc__view_registry(const mc__view *v) { return v->reg; }

void mc__view_set_finish(mc__view *v, uint32_t *target, uint16_t *how)
{
    v->finish = target;
    v->finish_how = how;
}

uint32_t mc__view_finish(const mc__view *v, uint32_t q, unsigned *how)
{
    if (!v->finish)
        return q;
    *how |= v->finish_how[q];
    return v->finish[q];
}

bool mc__view_has(const mc__view *v, uint32_t block)
{
    return block < v->reg->block_count && (!v->avail || v->avail[block]);
}

static uint32_t default_state(const mc__tables *t, uint32_t block)
{
    return t->block_min[block] + mc__kind_of(t, block)->default_off;
}

static bool plain_properties(const mc__kind *k)
{
    for (unsigned i = 0; i < k->nprops; i++)
        if (!word_in_list(mc__str(mc__propdef_of(k, i)->name), mc__propdef_of(k, i)->name_len, plain_props))
            return false;
    return true;
}

static bool has_property(const mc__kind *k, const char *name)
{
    for (unsigned i = 0; i < k->nprops; i++)
        if (!strcmp(mc__str(mc__propdef_of(k, i)->name), name))
            return true;
    return false;
}

static bool plant_like(const char *bare, uint8_t material)
{
    return material == MC__MAT_PLANT || name_has_word(bare, plant_words);
}

static void describe(const mc_registry *reg, const mc__tables *t, uint32_t block, block_info *bi)
{
    const mc__kind *k = mc__kind_of(t, block);
    const char *bare = bare_name(mc__str(k->name));
    uint32_t cls = mc__state_class(reg, default_state(t, block));
    size_t kl;
    bi->family = family_of(reg, bare, &kl);
    bi->material = k->material;
    bi->kind = 0;
    if ((cls & MC__CLASS_FULL) && !(cls & (MC_STATE_LEAVES | MC_STATE_FLUID | MC_STATE_AIR)) &&
        !name_has_word(bare, unordinary_words))
        bi->kind |= plain_properties(k) ? INFO_FULL | INFO_ORDINARY : INFO_FULL;
    if ((cls & MC__CLASS_NOCOLL) && !(cls & (MC_STATE_FLUID | MC_STATE_AIR)) && plant_like(bare, k->material) &&
        k->material != MC__MAT_LEAVES && !name_has_word(bare, unplantable_words) && !has_property(k, "half"))
        bi->kind |= INFO_PLANT; /* single-block plants: no half of a tall one */
    if (name_has_word(bare, active_words))
        bi->kind |= INFO_ACTIVE;
    bi->has_rgb = mc__block_color(bare, bi->rgb);
    bi->bare = bare;
    words ws;
    split_words(bare, &ws);
    bi->nwords = (uint8_t)(ws.n < INFO_WORDS ? ws.n : INFO_WORDS);
    for (unsigned i = 0; i < bi->nwords; i++)
        bi->wkey[i] = word_key(ws.w[i], ws.len[i]);
}

static uint32_t find_named(const mc__view *v, const char *bare)
{
    uint32_t b = mc__find_block(v->reg, bare, strlen(bare));
    return b != MC__NONE && mc__view_has(v, b) ? b : MC__NONE;
}

/* The candidate lists of the view (see struct mc__view). */
static bool index_candidates(mc__view *v)
{
    uint32_t n = v->reg->block_count ? v->reg->block_count : 1;
    v->full = malloc(n * sizeof *v->full);
    v->plants = malloc(n * sizeof *v->plants);
    v->members = malloc(n * sizeof *v->members);
    if (!v->full || !v->plants || !v->members)
        return false;
    uint32_t count[F_COUNT] = {0};
    for (uint32_t b = 0; b < v->reg->block_count; b++) {
        if (!mc__view_has(v, b))
            continue;
        const block_info *bi = &v->info[b];
        if (bi->kind & INFO_FULL)
            v->full[v->full_n++] = b;
        if (bi->kind & INFO_PLANT)
            v->plants[v->plants_n++] = b;
        count[bi->family]++;
    }
    v->family_first[0] = 0;
    for (unsigned f = 0; f < F_COUNT; f++)
        v->family_first[f + 1] = v->family_first[f] + count[f];
    uint32_t fill[F_COUNT];
    memcpy(fill, v->family_first, sizeof fill);
    for (uint32_t b = 0; b < v->reg->block_count; b++)
        if (mc__view_has(v, b))
            v->members[fill[v->info[b].family]++] = b;
    return true;
}

mc__view *mc__view_new(const mc_registry *reg, uint8_t *avail)
{
    const mc__tables *t = reg && reg->kind == MC__KIND_FLAT ? mc__tables_of(reg) : NULL;
    mc__view *v = t && mc__runtime_of(reg) ? calloc(1, sizeof *v) : NULL;
    block_info *info = v ? calloc(reg->block_count ? reg->block_count : 1, sizeof *info) : NULL;
    if (!info) {
        free(v);
        free(avail);
        return NULL;
    }
    *v = (mc__view){.reg = reg, .t = t, .avail = avail, .info = info, .air = MC__NONE, .water = MC__NONE};
    for (uint32_t b = 0; b < reg->block_count; b++)
        describe(reg, t, b, &info[b]);
    if (!index_candidates(v)) {
        mc__view_free(v);
        return NULL;
    }
    v->air = find_named(v, "air");
    v->water = find_named(v, "water");
    return v;
}

void mc__view_free(mc__view *v)
{
    if (!v)
        return;
    free(v->avail);
    free(v->info);
    free(v->finish);
    free(v->finish_how);
    free(v->full);
    free(v->plants);
    free(v->members);
    free(v);
}

/* ------------------------------------------------------------- renames */

/* Names of one block in different versions (the game renamed it). */
static const char *const renames[][2] = {
    {"grass", "short_grass"},     /* 1.20.3 */
    {"grass_path", "dirt_path"},  /* 1.17 */
    {"sign", "oak_sign"},         /* 1.14 */
    {"wall_sign", "oak_wall_sign"}, /* 1.14 */
    {"chain", "iron_chain"},      /* 1.21.9 */
    /* Bedrock's names of Java blocks, for the Bedrock states blocksB2J
     * does not map (its pre-1.20 names, education and technical blocks) */
    {"snow_layer", "snow"},       {"waterlily", "lily_pad"},       {"reeds", "sugar_cane"},
    {"web", "cobweb"},            {"invisible_bedrock", "barrier"}, {"portal", "nether_portal"},
    {"powered_comparator", "comparator"}, {"unpowered_comparator", "comparator"},
    {"powered_repeater", "repeater"}, {"unpowered_repeater", "repeater"}, {"lit_furnace", "furnace"},
    {"unlit_redstone_torch", "redstone_torch"}, {"lit_pumpkin", "jack_o_lantern"},
    {"wooden_door", "oak_door"},  {"fence_gate", "oak_fence_gate"}, {"trapdoor", "oak_trapdoor"},
    {"wooden_pressure_plate", "oak_pressure_plate"}, {"wooden_button", "oak_button"},
    {"standing_banner", "white_banner"}, {"wall_banner", "white_wall_banner"},
    {"darkoak_wall_sign", "dark_oak_wall_sign"}, {"darkoak_standing_sign", "dark_oak_sign"},
    {"silver_glazed_terracotta", "light_gray_glazed_terracotta"}, {"beetroot", "beetroots"},
    /* before 1.20.50 one skull block whose kind is in its block entity
     * (src/bedrock/blockentity_java.c reads it when there is one) */
    {"skull", "skeleton_skull"},
};

/* Bedrock's double slabs are blocks of their own (X_double_slab,
 * double_cut_copper_slab): the name without the word "double", with
 * type=double imposed. False when the name is not one. */
static bool double_slab_name(const char *bare, char *out, size_t cap, mc__forced *forced)
{
    size_t len = strlen(bare);
    const char *d = strstr(bare, "double_");
    if (len < 5 || strcmp(bare + len - 4, "slab") || !d || (d != bare && d[-1] != '_'))
        return false;
    if ((size_t)snprintf(out, cap, "%.*s%s", (int)(d - bare), bare, d + 7) >= cap)
        return false;
    forced->key = "type";
    forced->value = "double";
    return true;
}

/* Names equal but for underscores (Bedrock's trip_wire, Java's tripwire). */
static uint32_t find_unspaced(const mc__view *v, const char *bare)
{
    char want[NAME_CAP];
    size_t n = 0;
    for (const char *p = bare; *p && n + 1 < sizeof want; p++)
        if (*p != '_')
            want[n++] = *p;
    want[n] = '\0';
    for (uint32_t b = 0; b < v->reg->block_count; b++) {
        if (!mc__view_has(v, b))
            continue;
        const char *c = v->info[b].bare;
        size_t i = 0;
        for (; *c; c++)
            if (*c != '_' && (i >= n || *c != want[i++]))
                break;
        if (!*c && i == n)
            return b;
    }
    return MC__NONE;
}

/* Names the game gave to another block while the old name stayed in use:
 * before `since`, old_name means what new_name means from `since` on. */
static const struct { const char *old_name, *new_name, *since; } moved_names[] = {
    {"stone_slab", "smooth_stone_slab", "1.14"}, /* 1.14 added a plain stone slab */
};

/* Java only: the name `bare` of `from` has in `to`, when it moved. */
static const char *moved_name(const mc_registry *from, const mc_registry *to, const char *bare)
{
    if (from->edition != MC_EDITION_JAVA || to->edition != MC_EDITION_JAVA || from->kind != MC__KIND_FLAT)
        return NULL;
    for (size_t i = 0; i < sizeof moved_names / sizeof moved_names[0]; i++) {
        if (strcmp(bare, moved_names[i].old_name) && strcmp(bare, moved_names[i].new_name))
            continue;
        const mc_registry *since = mc_registry_find(moved_names[i].since);
        if (!since)
            continue;
        bool from_new = from->index >= since->index, to_new = to->index >= since->index;
        if (!from_new && to_new && !strcmp(bare, moved_names[i].old_name))
            return moved_names[i].new_name;
        if (from_new && !to_new && !strcmp(bare, moved_names[i].new_name))
            return moved_names[i].old_name;
    }
    return NULL;
}

static uint32_t find_renamed(const mc__view *v, const char *bare)
{
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++)
        for (int side = 0; side < 2; side++)
            if (!strcmp(bare, renames[i][side])) {
                uint32_t b = find_named(v, renames[i][!side]);
                if (b != MC__NONE)
                    return b;
            }
    return MC__NONE;
}

/* The name without its variant prefixes, one at a time, then with
 * "_block" after it: the first the view has. */
static uint32_t find_variant(const mc__view *v, const char *bare)
{
    const char *cur = bare;
    for (unsigned hop = 0; hop < 4; hop++) {
        const char *next = NULL;
        for (const char *const *p = variant_prefixes; *p && !next; p++)
            if (!strncmp(cur, *p, strlen(*p)) && cur[strlen(*p)])
                next = cur + strlen(*p);
        if (!next)
            return MC__NONE;
        cur = next;
        uint32_t b = find_named(v, cur);
        char buf[NAME_CAP];
        if (b == MC__NONE && (size_t)snprintf(buf, sizeof buf, "%s_block", cur) < sizeof buf)
            b = find_named(v, buf);
        if (b != MC__NONE)
            return b;
    }
    return MC__NONE;
}

/* ------------------------------------------------------------- ranking */

typedef struct source {
    const char *bare;
    words all;      /* every word of the name */
    words material; /* the words that say a material (no family key, no form words) */
    uint8_t family, mat, has_rgb, rgb[3];
    uint8_t chain[8]; /* the family and its fallbacks */
    unsigned chain_len;
    bool active; /* the source acts (redstone): active stand-ins allowed */
    unsigned all_n, material_n; /* the words as word_key numbers */
    uint32_t all_keys[MAX_WORDS], material_keys[MAX_WORDS];
} source;

typedef struct rank {
    int acts; /* a redstone stand-in for a block that is not */
    int shared, chain, mismatch;
    uint32_t dist;
    int extra;
    uint32_t block;
} rank;

static bool rank_better(const rank *a, const rank *b)
{
    if (a->acts != b->acts) return a->acts < b->acts;
    if (a->shared != b->shared) return a->shared > b->shared;
    if (a->chain != b->chain) return a->chain < b->chain;
    if (a->mismatch != b->mismatch) return a->mismatch < b->mismatch;
    if (a->dist != b->dist) return a->dist < b->dist;
    if (a->extra != b->extra) return a->extra < b->extra;
    return a->block < b->block;
}

static uint32_t color_distance(const uint8_t a[3], const uint8_t b[3])
{
    int dr = a[0] - b[0], dg = a[1] - b[1], db = a[2] - b[2];
    return (uint32_t)(2 * dr * dr + 4 * dg * dg + 3 * db * db);
}

static void source_init(source *s, const mc_registry *from, const char *bare, uint8_t material)
{
    size_t key_len;
    s->bare = bare;
    s->family = family_of(from, bare, &key_len);
    s->mat = material;
    s->has_rgb = mc__block_color(bare, s->rgb);
    if (!s->has_rgb && plant_like(bare, material)) { /* unknown: a leaf green for a plant */
        s->rgb[0] = 80, s->rgb[1] = 130, s->rgb[2] = 50;
    } else if (!s->has_rgb) { /* else a neutral grey, which leans to stone */
        s->rgb[0] = s->rgb[1] = s->rgb[2] = 125;
    }
    split_words(bare, &s->all);
    words kw;
    split_words(bare + (strlen(bare) - key_len), &kw);
    s->material.n = 0;
    for (unsigned i = 0; i < s->all.n; i++) {
        if (key_len && i + kw.n >= s->all.n)
            break; /* the family key's words */
        if (!word_in_list(s->all.w[i], s->all.len[i], form_words)) {
            s->material.w[s->material.n] = s->all.w[i];
            s->material.len[s->material.n++] = s->all.len[i];
        }
    }
    if (!s->material.n && s->family != F_NONE && !s->has_rgb) {
        /* a bare family name (fence_gate, wall_banner): the game's default
         * member, oak for wood, white for dyed things, red for a bed */
        static const char *const oak = "oak", *const white = "white", *const red = "red";
        uint8_t f = s->family;
        const char *m = f == F_BED ? red
                        : (f == F_BANNER || f == F_WALL_BANNER || f == F_CARPET || f == F_WOOL || f == F_CANDLE ||
                           f == F_STAINED_GLASS || f == F_STAINED_GLASS_PANE || f == F_CONCRETE ||
                           f == F_TERRACOTTA || f == F_GLAZED_TERRACOTTA) ? white : oak;
        s->material.w[0] = m;
        s->material.len[0] = (uint8_t)strlen(m);
        s->material.n = 1;
        s->has_rgb = mc__block_color(m, s->rgb);
    }
    s->active = name_has_word(bare, active_words);
    s->all_n = s->all.n;
    for (unsigned i = 0; i < s->all.n; i++)
        s->all_keys[i] = word_key(s->all.w[i], s->all.len[i]);
    s->material_n = s->material.n;
    for (unsigned i = 0; i < s->material.n; i++)
        s->material_keys[i] = word_key(s->material.w[i], s->material.len[i]);
    s->chain_len = 0;
    for (uint8_t f = s->family; f != F_NONE && s->chain_len < 8; f = family_next(f))
        s->chain[s->chain_len++] = f;
}

static void rank_of(const mc__view *v, const source *s, uint32_t b, int chain, rank *r)
{
    const block_info *bi = &v->info[b];
    r->shared = 0;
    for (unsigned i = 0; i < s->material_n; i++)
        r->shared += keys_have(bi->wkey, bi->nwords, s->material_keys[i]);
    r->extra = 0;
    for (unsigned i = 0; i < bi->nwords; i++)
        r->extra += !keys_have(s->all_keys, s->all_n, bi->wkey[i]);
    r->chain = chain;
    r->mismatch = s->mat && bi->material && s->mat != bi->material;
    r->dist = bi->has_rgb ? color_distance(s->rgb, bi->rgb) : 0xFFFFFFFu;
    r->block = b;
}

/* The chain position of a candidate's family (255: not in the chain). */
static int chain_position(const source *s, uint8_t family)
{
    for (unsigned i = 0; i < s->chain_len; i++)
        if (s->chain[i] == family)
            return (int)i;
    return 255;
}

typedef enum pick { PICK_FAMILY, PICK_PLANT, PICK_FULL } pick;

/* Best available block of the view for the source under one rule;
 * *chain_out gets the chain position of the winner. */
static void consider(const mc__view *v, const source *s, pick mode, int level, uint32_t b, rank *best,
                     uint32_t *found)
{
    rank r;
    const block_info *bi = &v->info[b];
    int chain = chain_position(s, bi->family);
    if (mode == PICK_FAMILY && chain != level)
        return;
    if (mode == PICK_FULL && !(bi->kind & (INFO_ORDINARY | INFO_FULL)) && chain == 255)
        return;
    rank_of(v, s, b, mode == PICK_PLANT ? 0 : chain, &r);
    /* a full block with properties (carved_pumpkin) only for the same material */
    if (mode == PICK_FULL && !(bi->kind & INFO_ORDINARY) && chain == 255 && !r.shared)
        return;
    r.acts = (bi->kind & INFO_ACTIVE) && !s->active;
    if (*found == MC__NONE || rank_better(&r, best)) {
        *best = r;
        *found = b;
    }
}

static uint32_t best_candidate(const mc__view *v, const source *s, pick mode, int level, int *chain_out)
{
    rank best = {0};
    uint32_t found = MC__NONE;
    if (mode == PICK_PLANT)
        for (uint32_t i = 0; i < v->plants_n; i++)
            consider(v, s, mode, level, v->plants[i], &best, &found);
    if (mode == PICK_FULL)
        for (uint32_t i = 0; i < v->full_n; i++)
            consider(v, s, mode, level, v->full[i], &best, &found);
    /* family members (a full source's too, whatever their shape) */
    for (unsigned c = 0; mode != PICK_PLANT && c < s->chain_len; c++) {
        if (mode == PICK_FAMILY && (int)c != level)
            continue;
        for (uint32_t i = v->family_first[s->chain[c]]; i < v->family_first[s->chain[c] + 1]; i++)
            if (mode == PICK_FAMILY || !(v->info[v->members[i]].kind & INFO_FULL))
                consider(v, s, mode, level, v->members[i], &best, &found);
    }
    *chain_out = found == MC__NONE ? 255 : best.chain;
    return found;
}

uint32_t mc__view_resolve(const mc__view *v, const mc_registry *from, uint32_t fb, unsigned *how,
                          mc__forced *forced)
{
    forced->key = forced->value = NULL;
    const mc__tables *tf = mc__tables_of(from);
    if (!tf || fb >= from->block_count)
        return MC__NONE;
    const mc__kind *fk = mc__kind_of(tf, fb);
    const char *bare = bare_name(mc__str(fk->name));
    const char *moved = moved_name(from, v->reg, bare);
    uint32_t b = moved ? find_named(v, moved) : MC__NONE;
    if (b != MC__NONE) {
        *how |= MC_TRANSLATE_RENAMED;
        return b;
    }
    if ((b = find_named(v, bare)) != MC__NONE)
        return b;
    if (mc__air_like_name(bare)) {
        *how |= MC_TRANSLATE_AIR_LIKE;
        return v->air;
    }
    char single[NAME_CAP];
    if (double_slab_name(bare, single, sizeof single, forced)) {
        bare = single; /* the rules below, for the single slab */
        if ((b = find_named(v, bare)) != MC__NONE) {
            *how |= MC_TRANSLATE_RENAMED;
            return b;
        }
    }
    if ((b = find_renamed(v, bare)) != MC__NONE ||
        (from->edition != v->reg->edition && (b = find_unspaced(v, bare)) != MC__NONE)) {
        *how |= MC_TRANSLATE_RENAMED;
        return b;
    }
    uint32_t cls = mc__state_class(from, default_state(tf, fb));
    bool waterloggable = has_property(fk, "waterlogged");
    unsigned stand_in = MC_TRANSLATE_SAME_FAMILY | MC_TRANSLATE_ANCESTOR;
    if ((cls & MC_STATE_FLUID) && !waterloggable && strcmp(bare, "lava") && v->water != MC__NONE) {
        *how |= stand_in;
        return v->water;
    }
    if ((b = find_variant(v, bare)) != MC__NONE) {
        *how |= stand_in;
        return b;
    }
    source s;
    source_init(&s, from, bare, fk->material);
    int chain;
    if (!(cls & MC__CLASS_FULL))
        for (unsigned level = 0; level < s.chain_len; level++)
            if ((b = best_candidate(v, &s, PICK_FAMILY, (int)level, &chain)) != MC__NONE) {
                *how |= stand_in;
                return b;
            }
    if (!(cls & MC__CLASS_FULL) && plant_like(bare, fk->material) && fk->material != MC__MAT_LEAVES &&
        (b = best_candidate(v, &s, PICK_PLANT, 0, &chain)) != MC__NONE) {
        *how |= stand_in;
        return b;
    }
    b = best_candidate(v, &s, PICK_FULL, 0, &chain);
    if (b != MC__NONE)
        *how |= chain == 255 ? MC_TRANSLATE_NEAREST_COLOR | MC_TRANSLATE_ANCESTOR : stand_in;
    return b;
}
