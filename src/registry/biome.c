/*
 * biome.c: a biome of one registry as a biome of another.
 *
 * The game keys biomes by name, so a biome keeps its name when the target
 * has it, or takes the name the game renamed it to (1.18 renamed many:
 * mountains -> windswept_hills; Bedrock keeps older names: mesa,
 * extreme_hills, hell). A biome the target lacks under every name becomes
 * the target's biome of the nearest climate in the same dimension:
 * temperature and downfall (scripts/registry-biomes.js, from
 * minecraft-data), precipitation, a penalty when the category differs
 * (a new mangrove_swamp is a swamp before it is anything as warm and wet),
 * and the map colour as the last, weak term. Only an id the source does
 * not have comes out as a fallback biome, and says so (MC_TRANSLATE_AIR):
 * nothing becomes id 0 silently.
 */
#include "registry/registry_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Names of one biome in different versions and editions (old, new). */
static const char *const biome_renames[][2] = {
    /* Java 1.18 */
    {"mountains", "windswept_hills"}, {"gravelly_mountains", "windswept_gravelly_hills"},
    {"wooded_mountains", "windswept_forest"}, {"shattered_savanna", "windswept_savanna"},
    {"snowy_tundra", "snowy_plains"}, {"jungle_edge", "sparse_jungle"}, {"stone_shore", "stony_shore"},
    {"giant_tree_taiga", "old_growth_pine_taiga"}, {"giant_spruce_taiga", "old_growth_spruce_taiga"},
    {"tall_birch_forest", "old_growth_birch_forest"}, {"wooded_badlands_plateau", "wooded_badlands"},
    /* Java 1.16 */
    {"nether", "nether_wastes"},
    /* Bedrock's names */
    {"hell", "nether_wastes"}, {"swampland", "swamp"}, {"mushroom_island", "mushroom_fields"},
    {"ice_plains", "snowy_plains"}, {"ice_plains_spikes", "ice_spikes"}, {"mesa", "badlands"},
    {"roofed_forest", "dark_forest"}, {"extreme_hills", "windswept_hills"}, {"stone_beach", "stony_shore"},
    {"cold_beach", "snowy_beach"}, {"mega_taiga", "old_growth_pine_taiga"}, {"cold_taiga", "snowy_taiga"},
    {"extreme_hills_plus_trees", "windswept_forest"}, {"savanna_mutated", "windswept_savanna"},
    {"mesa_bryce", "eroded_badlands"}, {"redwood_taiga_mutated", "old_growth_spruce_taiga"},
    {"birch_forest_mutated", "old_growth_birch_forest"}, {"extreme_hills_mutated", "windswept_gravelly_hills"},
    {"soulsand_valley", "soul_sand_valley"},
};

/* Words that make a variant of a biome (Java before 1.18 and Bedrock: hills,
 * plateaus, "mutated" M variants, deep oceans): without them, the biome
 * it varies. */
static const char *const variant_suffixes[] = {"_mutated", "_hills", "_plateau", "_mountains", "_edge", "_shore", NULL};
static const char *const variant_prefixes[] = {"deep_", "legacy_", "modified_", NULL};

static const mc__biome_climate *climate_of(uint32_t name)
{
    uint32_t lo = 0, hi = mc__reg_biome_climate_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (mc__reg_biome_climates[mid].name < name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < mc__reg_biome_climate_count && mc__reg_biome_climates[lo].name == name ? &mc__reg_biome_climates[lo]
                                                                                        : NULL;
}

/* 2: water (ocean, river), 1: shore, 0: land. */
static int wetness(const mc__biome_climate *c)
{
    return c->category == MC__BIOME_CAT_OCEAN || c->category == MC__BIOME_CAT_RIVER ? 2
           : c->category == MC__BIOME_CAT_BEACH                                      ? 1
                                                                                     : 0;
}

/* Snow falls below 0.15 (the game's rule for precipitation as snow). */
static bool snowy(const mc__biome_climate *c) { return c->temperature < 150; }

/* How far apart two climates are (smaller: nearer); temperature and
 * downfall in thousandths, each rule's penalty in the same unit. */
static uint32_t climate_distance(const mc__biome_climate *a, const mc__biome_climate *b)
{
    uint32_t d = (uint32_t)abs(a->temperature - b->temperature) + (uint32_t)abs(a->downfall - b->downfall);
    if (a->category != b->category)
        d += a->category && b->category ? 800 : 400; /* an unknown category: half */
    if (a->precipitation != b->precipitation)
        d += 300;
    if (snowy(a) != snowy(b))
        d += 800;
    d += 1500u * (uint32_t)abs(wetness(a) - wetness(b)); /* land stays land, water water */
    int dr = (int)(a->color >> 16) - (int)(b->color >> 16), dg = (int)((a->color >> 8) & 255) - (int)((b->color >> 8) & 255),
        db = (int)(a->color & 255) - (int)(b->color & 255);
    return d + (uint32_t)(abs(dr) + abs(dg) + abs(db)) / 8; /* at most ~95: only breaks near ties */
}

static uint32_t by_name(const mc_registry *to, const mc__tables *tt, const char *name)
{
    for (uint32_t i = 0; i < to->biome_count; i++)
        if (tt->biomes[i] != MC__NONE && !strcmp(mc__str(tt->biomes[i]), name))
            return i;
    return MC__NONE;
}

static uint32_t by_rename(const mc_registry *to, const mc__tables *tt, const char *name)
{
    if (strncmp(name, "minecraft:", 10))
        return MC__NONE;
    char buf[96];
    for (size_t i = 0; i < sizeof biome_renames / sizeof biome_renames[0]; i++)
        for (int side = 0; side < 2; side++)
            if (!strcmp(name + 10, biome_renames[i][side])) {
                snprintf(buf, sizeof buf, "minecraft:%s", biome_renames[i][!side]);
                uint32_t id = by_name(to, tt, buf);
                if (id != MC__NONE)
                    return id;
            }
    return MC__NONE;
}

/* The name without one variant word after another, and its renames. */
static uint32_t by_variant(const mc_registry *to, const mc__tables *tt, const char *name)
{
    char cur[96];
    if ((size_t)snprintf(cur, sizeof cur, "%s", name) >= sizeof cur || strncmp(cur, "minecraft:", 10))
        return MC__NONE;
    for (unsigned hop = 0; hop < 3; hop++) {
        bool cut = false;
        size_t len = strlen(cur);
        for (const char *const *s = variant_suffixes; *s && !cut; s++) {
            size_t sl = strlen(*s);
            if (len > 10 + sl && !strcmp(cur + len - sl, *s)) {
                cur[len - sl] = '\0';
                cut = true;
            }
        }
        for (const char *const *p = variant_prefixes; *p && !cut; p++) {
            size_t pl = strlen(*p);
            if (!strncmp(cur + 10, *p, pl)) {
                memmove(cur + 10, cur + 10 + pl, len - 10 - pl + 1);
                cut = true;
            }
        }
        if (!cut)
            return MC__NONE;
        uint32_t id = by_name(to, tt, cur);
        if (id == MC__NONE)
            id = by_rename(to, tt, cur);
        if (id != MC__NONE)
            return id;
    }
    return MC__NONE;
}

/* The target biome of the nearest climate in the same dimension. */
static uint32_t by_climate(const mc_registry *to, const mc__tables *tt, const mc__biome_climate *c, unsigned *how)
{
    uint32_t best = MC__NONE, best_d = 0;
    for (uint32_t i = 0; i < to->biome_count; i++) {
        const mc__biome_climate *t = tt->biomes[i] != MC__NONE ? climate_of(tt->biomes[i]) : NULL;
        if (!t || t->dimension != c->dimension || !strcmp(mc__str(tt->biomes[i]), "minecraft:the_void"))
            continue; /* the void is a technical biome, never a stand-in */
        uint32_t d = climate_distance(c, t);
        if (best == MC__NONE || d < best_d) {
            best = i;
            best_d = d;
        }
    }
    if (best != MC__NONE) {
        const mc__biome_climate *t = climate_of(tt->biomes[best]);
        *how |= t->category == c->category ? MC_TRANSLATE_SAME_FAMILY | MC_TRANSLATE_ANCESTOR
                                           : MC_TRANSLATE_NEAREST_COLOR | MC_TRANSLATE_ANCESTOR;
    }
    return best;
}

/* For an id the source lacks: plains, else the first biome the target has. */
static uint32_t fallback_biome(const mc_registry *to, const mc__tables *tt)
{
    uint32_t id = by_name(to, tt, "minecraft:plains");
    for (uint32_t i = 0; id == MC__NONE && i < to->biome_count; i++)
        if (tt->biomes[i] != MC__NONE)
            id = i;
    return id == MC__NONE ? 0 : id;
}

uint32_t mc_registry_translate_biome(const mc_registry *from, const mc_registry *to, uint32_t biome, unsigned *how)
{
    unsigned h = 0;
    uint32_t id = MC_STATE_NONE;
    const mc__tables *tf = from ? mc__tables_of(from) : NULL, *tt = to ? mc__tables_of(to) : NULL;
    if (!tf || !tt || !to->biome_count) {
        h = MC_TRANSLATE_AIR;
        id = to && to->biome_count ? 0 : MC_STATE_NONE;
    } else if (biome >= from->biome_count || tf->biomes[biome] == MC__NONE) {
        h = MC_TRANSLATE_AIR;
        id = fallback_biome(to, tt);
    } else if (from == to) {
        id = biome;
    } else {
        const char *name = mc__str(tf->biomes[biome]);
        const mc__biome_climate *c = climate_of(tf->biomes[biome]);
        if ((id = by_name(to, tt, name)) == MC__NONE && (id = by_rename(to, tt, name)) != MC__NONE)
            h |= MC_TRANSLATE_RENAMED;
        if (id == MC__NONE && (id = by_variant(to, tt, name)) != MC__NONE)
            h |= MC_TRANSLATE_SAME_FAMILY | MC_TRANSLATE_ANCESTOR;
        if (id == MC__NONE && c)
            id = by_climate(to, tt, c, &h);
        if (id == MC__NONE) {
            h |= MC_TRANSLATE_AIR;
            id = fallback_biome(to, tt);
        }
    }
    if (how)
        *how = h;
    return id;
}
