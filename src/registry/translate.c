/*
 * translate.c: state translation between any two registries, and the cached
 * translation maps (one uint32 per source state) the chunk module applies to
 * palettes.
 *
 * Between two flattened registries of one edition a state keeps its block
 * name and its property values wherever the target has them. Because every
 * string is interned once in the generated pool, "same name" and "same
 * value" are comparisons of pool offsets, so a map is built block by block:
 * resolve the target block once, then remap each state's property digits.
 * Everything else is composed from those maps and the data tables:
 *   Java 1.8-1.12 -> X   = legacy.json (1.12 id:meta -> 1.13) then 1.13 -> X
 *   X -> Java 1.8-1.12   = X -> 1.13, then the closest 1.12 id:meta
 *   Java -> Bedrock      = Java -> the Java version of blocksJ2B, then J2B
 *   Bedrock -> Java      = blocksB2J, then that Java version -> target
 * A block missing from the target is looked for under its other names
 * (renames) and then as its closest older relative (the ancestor rules
 * below); failing that it becomes air.
 *
 * Maps are built once per (from, to) pair and published with an atomic
 * compare-and-swap into a lazily allocated slot table; they live for the
 * process.
 */
#include "registry/registry_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* Names of one block in different versions (the game renamed it). */
static const char *const renames[][2] = {
    {"minecraft:grass", "minecraft:short_grass"},     /* 1.20.3 */
    {"minecraft:grass_path", "minecraft:dirt_path"},  /* 1.17 */
    {"minecraft:sign", "minecraft:oak_sign"},         /* 1.14 */
    {"minecraft:wall_sign", "minecraft:oak_wall_sign"}, /* 1.14 */
    {"minecraft:chain", "minecraft:iron_chain"},      /* 1.21.9 */
};

/* A newer block -> the older block it is a variant of. */
static const char *const ancestors[][2] = {
    {"cave_air", "air"}, {"void_air", "air"},
    {"deepslate", "stone"}, {"reinforced_deepslate", "deepslate"}, {"tuff", "stone"},
    {"calcite", "diorite"}, {"dripstone_block", "stone"}, {"smooth_basalt", "basalt"},
    {"basalt", "stone"}, {"blackstone", "cobblestone"}, {"mud", "dirt"}, {"packed_mud", "dirt"},
    {"mud_bricks", "bricks"}, {"rooted_dirt", "dirt"}, {"moss_block", "grass_block"},
    {"pale_moss_block", "moss_block"}, {"moss_carpet", "green_carpet"},
    {"pale_moss_carpet", "moss_carpet"}, {"crimson_nylium", "netherrack"},
    {"warped_nylium", "netherrack"}, {"soul_soil", "soul_sand"}, {"crying_obsidian", "obsidian"},
    {"nether_gold_ore", "nether_quartz_ore"}, {"raw_iron_block", "iron_block"},
    {"raw_gold_block", "gold_block"}, {"suspicious_sand", "sand"}, {"suspicious_gravel", "gravel"},
    {"azalea_leaves", "oak_leaves"}, {"flowering_azalea_leaves", "azalea_leaves"},
    {"glow_lichen", "vine"}, {"short_dry_grass", "dead_bush"}, {"tall_dry_grass", "dead_bush"},
    {"bush", "short_grass"}, {"firefly_bush", "dead_bush"}, {"creaking_heart", "pale_oak_log"},
    {"budding_amethyst", "amethyst_block"}, {"amethyst_block", "purple_stained_glass"},
    {"candle_cake", "cake"}, {"soul_lantern", "lantern"}, {"lantern", "torch"},
    {"soul_torch", "torch"}, {"soul_wall_torch", "wall_torch"}, {"soul_fire", "fire"},
    {"target", "hay_block"}, {"lodestone", "stone"}, {"respawn_anchor", "obsidian"},
    {"ancient_debris", "netherrack"}, {"netherite_block", "obsidian"},
    {"magma_block", "netherrack"}, {"nether_wart_block", "red_wool"},
    {"shroomlight", "glowstone"}, {"honey_block", "slime_block"},
    {"honeycomb_block", "hay_block"}, {"bee_nest", "oak_log"}, {"beehive", "oak_planks"},
    {"barrel", "chest"}, {"smoker", "furnace"}, {"blast_furnace", "furnace"},
    {"dirt_path", "grass_path"}, {"grass_path", "grass_block"},
    {"smooth_stone_slab", "stone_slab"}, /* 1.13's stone_slab is 1.14's smooth_stone_slab */
    {"chain", "iron_bars"}, {"end_rod", "torch"}, {"purpur_block", "quartz_block"},
    {"purpur_pillar", "quartz_block"}, {"purpur_stairs", "quartz_stairs"}, {"purpur_slab", "quartz_slab"},
    {"end_stone_bricks", "end_stone"}, {"frosted_ice", "ice"},
    {"red_nether_bricks", "nether_bricks"}, {"bone_block", "quartz_block"},
    {"observer", "dispenser"}, {"iron_chain", "chain"}, {"shulker_box", "chest"},
};

/* Suffix rewrites (colour variants added after 1.8). */
static const char *const suffix_rules[][2] = {
    {"_concrete_powder", "_concrete"}, {"_concrete", "_wool"}, {"_glazed_terracotta", "_terracotta"},
    {"_shulker_box", "shulker_box"}, {"_bed", "red_bed"},
};

/* Prefix rewrites tried in order when no exact ancestor applies. */
static const char *const prefix_rules[][2] = {
    {"waxed_", ""}, {"exposed_", ""}, {"weathered_", ""}, {"oxidized_", ""},
    {"stripped_", ""}, {"cobbled_deepslate", "cobblestone"},
    {"polished_deepslate", "polished_andesite"}, {"deepslate_brick", "stone_brick"},
    {"deepslate_tile", "stone_brick"}, {"deepslate_", ""}, {"polished_blackstone", "stone"},
    {"mangrove_", "oak_"}, {"cherry_", "oak_"}, {"bamboo_", "oak_"}, {"pale_oak_", "oak_"},
    {"crimson_", "oak_"}, {"warped_", "oak_"}, {"potted_", "flower_pot"},
};

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && !strcmp(s + len - n, suffix);
}

/* Writes the next candidate for `name` (with namespace) into out; false
 * when there is none. */
static bool ancestor_of(const char *name, char *out, size_t cap)
{
    static const char ns[] = "minecraft:";
    if (strncmp(name, ns, 10))
        return false;
    const char *bare = name + 10;
    size_t len = strlen(bare);
    for (size_t i = 0; i < sizeof ancestors / sizeof ancestors[0]; i++)
        if (!strcmp(bare, ancestors[i][0]))
            return (size_t)snprintf(out, cap, "%s%s", ns, ancestors[i][1]) < cap;
    /* hanging signs -> signs; stems/hyphae -> logs/wood; candles -> air */
    if (ends_with(bare, len, "_wall_hanging_sign"))
        return (size_t)snprintf(out, cap, "%soak_wall_sign", ns) < cap;
    if (ends_with(bare, len, "_hanging_sign"))
        return (size_t)snprintf(out, cap, "%soak_sign", ns) < cap;
    if (ends_with(bare, len, "_stem") && !strncmp(bare, "oak_", 4))
        return (size_t)snprintf(out, cap, "%s%.*s_log", ns, (int)(len - 5), bare) < cap;
    if (ends_with(bare, len, "_hyphae") && !strncmp(bare, "oak_", 4))
        return (size_t)snprintf(out, cap, "%s%.*s_wood", ns, (int)(len - 7), bare) < cap;
    if (ends_with(bare, len, "_candle_cake"))
        return (size_t)snprintf(out, cap, "%scandle_cake", ns) < cap;
    for (size_t i = 0; i < sizeof suffix_rules / sizeof suffix_rules[0]; i++) {
        size_t sl = strlen(suffix_rules[i][0]);
        if (ends_with(bare, len, suffix_rules[i][0]) && strcmp(bare, suffix_rules[i][1])) {
            const char *repl = suffix_rules[i][1];
            if (repl[0] == '_') /* keep the colour */
                return (size_t)snprintf(out, cap, "%s%.*s%s", ns, (int)(len - sl), bare, repl) < cap;
            return (size_t)snprintf(out, cap, "%s%s", ns, repl) < cap;
        }
    }
    for (size_t i = 0; i < sizeof prefix_rules / sizeof prefix_rules[0]; i++) {
        size_t pl = strlen(prefix_rules[i][0]);
        if (!strncmp(bare, prefix_rules[i][0], pl) && len > pl) {
            if (!strcmp(prefix_rules[i][0], "potted_"))
                return (size_t)snprintf(out, cap, "%sflower_pot", ns) < cap;
            return (size_t)snprintf(out, cap, "%s%s%s", ns, prefix_rules[i][1], bare + pl) < cap;
        }
    }
    return false;
}

/* Names the game gave to another block while the old name stayed in use:
 * going from before `since` to `since` or later, old means new. */
static const struct { const char *old_name, *new_name, *since; } moved_names[] = {
    {"minecraft:stone_slab", "minecraft:smooth_stone_slab", "1.14"}, /* 1.14 added a plain stone slab */
};

static const char *moved_name(const mc_registry *from, const mc_registry *to, const char *name)
{
    if (!from || from->edition != MC_EDITION_JAVA || to->edition != MC_EDITION_JAVA)
        return name;
    for (size_t i = 0; i < sizeof moved_names / sizeof moved_names[0]; i++) {
        const mc_registry *since = mc_registry_find(moved_names[i].since);
        if (since && from->index < since->index && to->index >= since->index &&
            !strcmp(name, moved_names[i].old_name))
            return moved_names[i].new_name;
    }
    return name;
}

/* The block of `to` for a block named `name` in `from`: itself, a rename,
 * or an ancestor (up to 8 hops). MC__NONE when none. */
static uint32_t resolve_block(const mc_registry *from, const mc_registry *to, const char *name, unsigned *how)
{
    char buf[2][128];
    const char *cur = moved_name(from, to, name);
    if (cur != name)
        *how |= MC_TRANSLATE_RENAMED;
    for (unsigned hop = 0; hop < 8; hop++) {
        uint32_t b = mc__find_block(to, cur, strlen(cur));
        if (b != MC__NONE) {
            if (hop)
                *how |= MC_TRANSLATE_ANCESTOR;
            return b;
        }
        for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++)
            for (int side = 0; side < 2; side++)
                if (!strcmp(cur, renames[i][side])) {
                    b = mc__find_block(to, renames[i][!side], strlen(renames[i][!side]));
                    if (b != MC__NONE) {
                        *how |= hop ? MC_TRANSLATE_ANCESTOR : MC_TRANSLATE_RENAMED;
                        return b;
                    }
                }
        if (!ancestor_of(cur, buf[hop & 1], sizeof buf[0]))
            return MC__NONE;
        cur = buf[hop & 1];
    }
    return MC__NONE;
}

/* Values that mean the same thing in another version: 1.16 gave wall sides
 * none/low/tall instead of false/true. Tried only when the target lacks the
 * value itself. */
static const char *const value_aliases[][2] = {
    {"true", "low"}, {"false", "none"}, {"low", "true"}, {"tall", "true"}, {"none", "false"},
};

static uint32_t find_value(const mc__propdef *td, uint32_t value)
{
    uint32_t v = 0;
    while (v < td->count && mc__reg_value_refs[td->values + v] != value)
        v++;
    if (v < td->count)
        return v;
    const char *text = mc__str(value);
    for (size_t a = 0; a < sizeof value_aliases / sizeof value_aliases[0]; a++) {
        if (strcmp(text, value_aliases[a][0]))
            continue;
        for (v = 0; v < td->count; v++)
            if (!strcmp(mc__str(mc__reg_value_refs[td->values + v]), value_aliases[a][1]))
                return v;
    }
    return MC__NONE;
}

/* The state of target block tb (tables tt) matching source kind fk at offset off. */
static uint32_t map_props(const mc__kind *fk, uint32_t off, const mc__tables *tt, uint32_t tb,
                          unsigned *how)
{
    const mc__kind *tk = mc__kind_of(tt, tb);
    uint8_t digits[MC__MAX_PROPS];
    memcpy(digits, mc__reg_default_digits + tk->default_digits, tk->nprops);
    for (unsigned i = 0; i < fk->nprops; i++) {
        const mc__propdef *fd = mc__propdef_of(fk, i);
        uint32_t value = mc__reg_value_refs[fd->values + mc__prop_digit(fk, off, i)];
        unsigned j = 0;
        const mc__propdef *td = NULL;
        for (; j < tk->nprops; j++) {
            td = mc__propdef_of(tk, j);
            if (td->name == fd->name)
                break;
        }
        if (j == tk->nprops) {
            *how |= MC_TRANSLATE_PROP_DROPPED;
            continue;
        }
        uint32_t v = find_value(td, value);
        if (v == MC__NONE) {
            *how |= MC_TRANSLATE_VALUE_DEFAULTED;
            continue;
        }
        digits[j] = (uint8_t)v;
    }
    uint32_t toff = mc__kind_offset(tk, digits);
    if (toff == MC__NONE) { /* a combination this (Bedrock) block lacks */
        *how |= MC_TRANSLATE_VALUE_DEFAULTED;
        toff = tk->default_off;
    }
    return tt->block_min[tb] + toff;
}

static uint32_t flat_translate(const mc_registry *from, const mc_registry *to, uint32_t state,
                               unsigned *how)
{
    const mc__tables *tf = mc__tables_of(from);
    uint32_t fb = tf ? mc__block_of_state(from, tf, state) : MC__NONE;
    const mc__kind *fk = fb != MC__NONE ? mc__kind_of(tf, fb) : NULL;
    uint32_t tb = fk ? resolve_block(from, to, mc__str(fk->name), how) : MC__NONE;
    if (tb == MC__NONE) {
        *how |= MC_TRANSLATE_AIR;
        return mc_registry_air(to);
    }
    return map_props(fk, state - tf->block_min[fb], mc__tables_of(to) /* decoded: tb was found in it */, tb,
                     how);
}

static const mc_registry *pivot(void) { return &mc__java_registries[mc__java_pivot]; }

/* The maps between 1.12 and the pivot, which the pivot's tables t hold
 * (NULL: memory ran out): 1.12 id<<4|meta -> 1.13 state (0xFFFF: none)
 * and back (0: air). */
static uint16_t legacy_to_pivot(const mc__tables *t, uint32_t s)
{
    return t && s < t->l2p_count ? t->legacy_to_pivot[s] : 0xFFFF;
}

static uint32_t pivot_to_legacy(const mc__tables *t, uint32_t p)
{
    return t && p < t->p2l_count ? t->pivot_to_legacy[p] : 0;
}
static const mc_registry *java_of(const mc_registry *bedrock) { return &mc__java_registries[bedrock->java_index]; }

/* The state of legacy registry `to` for 1.13 state p: the closest 1.12
 * id:meta; when `to` (an older legacy version) lacks it, the same for the
 * block's ancestors (grass_path -> grass_block for 1.8); else air. */
static uint32_t legacy_from_pivot(const mc__tables *tp, const mc_registry *to, uint32_t p, unsigned *how)
{
    const mc_registry *pv = pivot();
    uint32_t l = pivot_to_legacy(tp, p);
    if (mc_registry_state_valid(to, l) && (l != 0 || p == 0))
        return l;
    char buf[2][128];
    uint32_t fb = tp ? mc__block_of_state(pv, tp, p) : MC__NONE;
    if (fb == MC__NONE) {
        *how |= MC_TRANSLATE_AIR;
        return 0;
    }
    const mc__kind *fk = mc__kind_of(tp, fb);
    const char *cur = mc__str(fk->name);
    for (unsigned hop = 0; hop < 6 && ancestor_of(cur, buf[hop & 1], sizeof buf[0]); hop++) {
        cur = buf[hop & 1];
        uint32_t b = mc__find_block(pv, cur, strlen(cur));
        if (b == MC__NONE)
            continue;
        unsigned h = 0;
        uint32_t q = map_props(fk, p - tp->block_min[fb], tp, b, &h);
        l = pivot_to_legacy(tp, q);
        if (mc_registry_state_valid(to, l) && (l != 0 || q == 0)) {
            *how |= MC_TRANSLATE_ANCESTOR;
            return l;
        }
    }
    *how |= MC_TRANSLATE_AIR;
    return 0;
}

static uint32_t translate(const mc_registry *from, const mc_registry *to, uint32_t s, unsigned *how)
{
    if (!mc_registry_state_valid(from, s)) {
        *how |= MC_TRANSLATE_AIR;
        return mc_registry_air(to);
    }
    if (from == to)
        return s;
    const mc__tables *tf = from->mapped ? mc__tables_of(from) : NULL; /* decoded: s is valid */
    if (from->edition == MC_EDITION_BEDROCK && to->edition == MC_EDITION_JAVA && tf && tf->b2j[s] != 0xFFFF) {
        *how |= MC_TRANSLATE_MAPPED;
        return translate(java_of(from), to, tf->b2j[s], how);
    }
    if (from->edition == MC_EDITION_JAVA && to->edition == MC_EDITION_BEDROCK && to->mapped) {
        uint32_t js = translate(from, java_of(to), s, how);
        const mc__tables *tt = mc__tables_of(to);
        uint32_t t = tt && js < mc_registry_state_count(java_of(to)) ? tt->j2b[js] : 0xFFFF;
        if (t == 0xFFFF) /* not in blocksJ2B: by name */
            return flat_translate(java_of(to), to, js, how);
        *how |= MC_TRANSLATE_MAPPED;
        return t;
    }
    if (from->kind == MC__KIND_LEGACY && to->kind == MC__KIND_LEGACY) {
        if (mc_registry_state_valid(to, s))
            return s;
        const mc__tables *tp = mc__tables_of(pivot());
        uint16_t p = legacy_to_pivot(tp, s);
        uint32_t back = p == 0xFFFF ? 0 : pivot_to_legacy(tp, p);
        if (p != 0xFFFF && mc_registry_state_valid(to, back)) {
            *how |= MC_TRANSLATE_ANCESTOR;
            return back;
        }
        *how |= MC_TRANSLATE_AIR;
        return 0;
    }
    if (from->kind == MC__KIND_LEGACY) {
        uint16_t p = legacy_to_pivot(mc__tables_of(pivot()), s);
        if (p == 0xFFFF) {
            *how |= MC_TRANSLATE_AIR;
            return mc_registry_air(to);
        }
        *how |= MC_TRANSLATE_MAPPED;
        return translate(pivot(), to, p, how);
    }
    if (to->kind == MC__KIND_LEGACY) {
        uint32_t p = from == pivot() ? s : translate(from, pivot(), s, how);
        *how |= MC_TRANSLATE_MAPPED;
        return legacy_from_pivot(mc__tables_of(pivot()), to, p, how);
    }
    return flat_translate(from, to, s, how);
}

uint32_t mc_registry_translate_state(const mc_registry *from, const mc_registry *to, uint32_t state,
                                     unsigned *how)
{
    unsigned h = 0;
    uint32_t r = (from && to) ? translate(from, to, state, &h) : MC_STATE_NONE;
    if (how)
        *how = h;
    return r;
}

/* ------------------------------------------------------------ maps */

static bool fill_flat(const mc_registry *from, const mc_registry *to, uint32_t *map)
{
    const mc__tables *tf = mc__tables_of(from), *tt = mc__tables_of(to);
    if (!tf || !tt)
        return false;
    for (uint32_t b = 0; b < from->block_count; b++) {
        const mc__kind *fk = mc__kind_of(tf, b);
        unsigned how = 0;
        uint32_t tb = resolve_block(from, to, mc__str(fk->name), &how);
        uint32_t first = tf->block_min[b];
        if (tb == MC__NONE) {
            if (!mc__runtime_of(to))
                return false;
            uint32_t air = mc_registry_air(to);
            for (uint32_t i = 0; i < fk->count; i++)
                map[first + i] = air;
            continue;
        }
        for (uint32_t i = 0; i < fk->count; i++)
            map[first + i] = map_props(fk, i, tt, tb, &how);
    }
    return true;
}

/* An intermediate map: the cached one, or (fresh) a new one the caller frees. */
static const uint32_t *via_map(const mc_registry *from, const mc_registry *to, bool fresh, uint32_t **owned)
{
    if (!fresh)
        return mc_registry_map(from, to);
    *owned = mc__map_build(from, to, true);
    return *owned;
}

uint32_t *mc__map_build(const mc_registry *from, const mc_registry *to, bool fresh)
{
    uint32_t *owned = NULL;
    uint32_t n = from->state_count;
    uint32_t *map = malloc((size_t)(n ? n : 1) * sizeof *map);
    if (!map)
        return NULL;
    uint32_t air = mc_registry_air(to);
    const uint32_t *via;
    if (from == to) {
        for (uint32_t s = 0; s < n; s++)
            map[s] = mc_registry_state_valid(from, s) ? s : air;
    } else if (from->kind == MC__KIND_FLAT && to->kind == MC__KIND_FLAT && from->edition == to->edition) {
        if (!fill_flat(from, to, map))
            goto fail;
    } else if (from->edition == MC_EDITION_JAVA && to->edition == MC_EDITION_JAVA && to->kind == MC__KIND_LEGACY &&
               from->kind == MC__KIND_FLAT) {
        const mc__tables *tp = mc__tables_of(pivot());
        if (!tp || !(via = via_map(from, pivot(), fresh, &owned)))
            goto fail;
        for (uint32_t s = 0; s < n; s++) {
            unsigned how = 0;
            map[s] = legacy_from_pivot(tp, to, via[s], &how);
        }
    } else if (from->edition == MC_EDITION_JAVA && to->edition == MC_EDITION_JAVA && from->kind == MC__KIND_LEGACY &&
               to->kind == MC__KIND_FLAT) {
        const mc__tables *tp = mc__tables_of(pivot());
        if (!tp || !(via = via_map(pivot(), to, fresh, &owned)))
            goto fail;
        for (uint32_t s = 0; s < n; s++) {
            uint16_t p = legacy_to_pivot(tp, s);
            map[s] = (mc_registry_state_valid(from, s) && p != 0xFFFF) ? via[p] : air;
        }
    } else if (from->edition == MC_EDITION_JAVA && to->edition == MC_EDITION_BEDROCK && to->mapped) {
        const mc__tables *tt = mc__tables_of(to);
        if (!tt || !(via = via_map(from, java_of(to), fresh, &owned)))
            goto fail;
        for (uint32_t s = 0; s < n; s++) {
            unsigned how = 0;
            uint32_t t = mc_registry_state_valid(from, s) ? tt->j2b[via[s]] : 0xFFFF;
            map[s] = t != 0xFFFF ? t : mc_registry_state_valid(from, s) ? flat_translate(java_of(to), to, via[s], &how) : air;
        }
    } else if (from->edition == MC_EDITION_BEDROCK && to->edition == MC_EDITION_JAVA && from->mapped) {
        const mc__tables *tf = mc__tables_of(from);
        if (!tf || !(via = via_map(java_of(from), to, fresh, &owned)))
            goto fail;
        for (uint32_t s = 0; s < n; s++) {
            uint32_t js = tf->b2j[s];
            unsigned how = 0;
            /* states neither table maps: by name (Bedrock and Java names often agree) */
            map[s] = js != 0xFFFF ? via[js] : translate(from, to, s, &how);
        }
    } else {
        for (uint32_t s = 0; s < n; s++) {
            unsigned how = 0;
            map[s] = translate(from, to, s, &how);
        }
    }
    free(owned);
    return map;
fail:
    free(owned);
    free(map);
    return NULL;
}

typedef _Atomic(uint32_t *) map_slot;
static _Atomic(map_slot *) map_slots;

const uint32_t *mc_registry_map(const mc_registry *from, const mc_registry *to)
{
    if (!from || !to)
        return NULL;
    size_t count = mc_registry_count();
    map_slot *slots = atomic_load_explicit(&map_slots, memory_order_acquire);
    if (!slots) {
        map_slot *fresh = calloc(count * count, sizeof *fresh);
        if (!fresh)
            return NULL;
        for (size_t i = 0; i < count * count; i++)
            atomic_init(&fresh[i], NULL);
        map_slot *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&map_slots, &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            slots = fresh;
        else {
            free(fresh);
            slots = expected;
        }
    }
    map_slot *slot = &slots[(size_t)from->index * count + to->index];
    uint32_t *map = atomic_load_explicit(slot, memory_order_acquire);
    if (map)
        return map;
    uint32_t *built = mc__map_build(from, to, false);
    if (!built)
        return NULL;
    uint32_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expected, built, memory_order_acq_rel,
                                                memory_order_acquire))
        return built;
    free(built);
    return expected;
}
