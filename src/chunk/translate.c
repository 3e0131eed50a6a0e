/*
 * translate.c: a column from one registry into another, by remapping
 * palettes.
 *
 * A container's packed longs hold palette indices, and those do not depend
 * on the registry, so translating an indirect or single container only
 * rewrites its palette through the registry module's cached state map. Two
 * source states may land on the same target state (a property the target
 * lacks, an ancestor block); the palette would then hold a duplicate, which
 * no vanilla writer produces, so such a container is rebuilt from its
 * entries instead. Direct containers are rebuilt in one pass over 4096 ids
 * (the rebuild picks the smallest strategy under the target's rules).
 *
 * Biomes are translated by name, which is what the game keys them by; the
 * few renames of 1.18 are in a table, and a biome the target lacks becomes
 * MC_BIOME_FALLBACK.
 */
#include "chunk/chunk_private.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Biomes renamed in 1.18 (old name, new name); also the two of 1.19/1.20. */
static const char *const biome_renames[][2] = {
    {"minecraft:mountains", "minecraft:windswept_hills"},
    {"minecraft:gravelly_mountains", "minecraft:windswept_gravelly_hills"},
    {"minecraft:wooded_mountains", "minecraft:windswept_forest"},
    {"minecraft:shattered_savanna", "minecraft:windswept_savanna"},
    {"minecraft:snowy_tundra", "minecraft:snowy_plains"},
    {"minecraft:jungle_edge", "minecraft:sparse_jungle"},
    {"minecraft:stone_shore", "minecraft:stony_shore"},
    {"minecraft:giant_tree_taiga", "minecraft:old_growth_pine_taiga"},
    {"minecraft:giant_spruce_taiga", "minecraft:old_growth_spruce_taiga"},
    {"minecraft:tall_birch_forest", "minecraft:old_growth_birch_forest"},
    {"minecraft:wooded_badlands_plateau", "minecraft:wooded_badlands"},
    {"minecraft:nether", "minecraft:nether_wastes"},
    /* biomes 1.18 merged away: their closest survivor */
    {"minecraft:snowy_mountains", "minecraft:snowy_plains"},
    {"minecraft:desert_hills", "minecraft:desert"},
    {"minecraft:wooded_hills", "minecraft:forest"},
    {"minecraft:taiga_hills", "minecraft:taiga"},
    {"minecraft:jungle_hills", "minecraft:jungle"},
    {"minecraft:birch_forest_hills", "minecraft:birch_forest"},
    {"minecraft:snowy_taiga_hills", "minecraft:snowy_taiga"},
    {"minecraft:dark_forest_hills", "minecraft:dark_forest"},
    {"minecraft:giant_tree_taiga_hills", "minecraft:old_growth_pine_taiga"},
    {"minecraft:giant_spruce_taiga_hills", "minecraft:old_growth_spruce_taiga"},
    {"minecraft:tall_birch_hills", "minecraft:old_growth_birch_forest"},
    {"minecraft:badlands_plateau", "minecraft:badlands"},
    {"minecraft:modified_badlands_plateau", "minecraft:badlands"},
    {"minecraft:modified_wooded_badlands_plateau", "minecraft:wooded_badlands"},
    {"minecraft:mushroom_field_shore", "minecraft:mushroom_fields"},
    {"minecraft:swamp_hills", "minecraft:swamp"},
    {"minecraft:modified_jungle", "minecraft:jungle"},
    {"minecraft:modified_jungle_edge", "minecraft:sparse_jungle"},
    {"minecraft:snowy_taiga_mountains", "minecraft:snowy_taiga"},
    {"minecraft:taiga_mountains", "minecraft:taiga"},
    {"minecraft:shattered_savanna_plateau", "minecraft:windswept_savanna"},
    {"minecraft:savanna_plateau", "minecraft:savanna_plateau"},
    {"minecraft:deep_warm_ocean", "minecraft:warm_ocean"},
    {"minecraft:bamboo_jungle_hills", "minecraft:bamboo_jungle"},
    {"minecraft:mountain_edge", "minecraft:windswept_hills"},
    /* newer biomes -> an older neighbour (for old targets) */
    {"minecraft:meadow", "minecraft:plains"},
    {"minecraft:grove", "minecraft:snowy_taiga"},
    {"minecraft:snowy_slopes", "minecraft:snowy_mountains"},
    {"minecraft:frozen_peaks", "minecraft:snowy_mountains"},
    {"minecraft:jagged_peaks", "minecraft:snowy_mountains"},
    {"minecraft:stony_peaks", "minecraft:mountains"},
    {"minecraft:dripstone_caves", "minecraft:plains"},
    {"minecraft:lush_caves", "minecraft:plains"},
    {"minecraft:deep_dark", "minecraft:plains"},
    {"minecraft:mangrove_swamp", "minecraft:swamp"},
    {"minecraft:cherry_grove", "minecraft:plains"},
    {"minecraft:pale_garden", "minecraft:dark_forest"},
    {"minecraft:soul_sand_valley", "minecraft:nether_wastes"},
    {"minecraft:crimson_forest", "minecraft:nether_wastes"},
    {"minecraft:warped_forest", "minecraft:nether_wastes"},
    {"minecraft:basalt_deltas", "minecraft:nether_wastes"},
};

static uint32_t biome_by_name(const mc_registry *to, const char *name, int depth)
{
    uint32_t id = mc_registry_biome_id(to, name);
    if (id != MC_STATE_NONE || depth > 3)
        return id;
    for (size_t i = 0; i < sizeof biome_renames / sizeof biome_renames[0]; i++) {
        const char *other = NULL;
        if (strcmp(biome_renames[i][0], name) == 0)
            other = biome_renames[i][1];
        else if (strcmp(biome_renames[i][1], name) == 0 && depth == 0)
            other = biome_renames[i][0]; /* a rename, read backwards (new -> old) */
        if (other && strcmp(other, name) != 0) {
            id = biome_by_name(to, other, depth + 1);
            if (id != MC_STATE_NONE)
                return id;
        }
    }
    return MC_STATE_NONE;
}

uint32_t mc_biome_translate(const mc_registry *from, const mc_registry *to, uint32_t biome,
                            bool *fallback)
{
    if (fallback)
        *fallback = false;
    if (from == to && biome < mc_registry_biome_count(to))
        return biome;
    const char *name = mc_registry_biome_name(from, biome);
    uint32_t id = name ? biome_by_name(to, name, 0) : MC_STATE_NONE;
    if (id != MC_STATE_NONE)
        return id;
    if (fallback)
        *fallback = true;
    id = mc_registry_biome_id(to, MC_BIOME_FALLBACK);
    return id == MC_STATE_NONE ? 0 : id;
}

/* ---------------------------------------------------------- containers */

/* The container `src` through the map, built afresh into `out` (the
 * smallest strategy under the target's rules); src is not changed. */
static mc_status rebuild_into(const mc_container *src, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                              const mc_container_rules *rules, mc_container *out)
{
    uint32_t vals[MC_SECTION_BLOCKS];
    const size_t n = src->rules.size;
    if (n > MC_SECTION_BLOCKS || rules->size != n)
        return MC_ERR_INVALID_ARG;
    mc_container_get_all(src, vals);
    for (size_t i = 0; i < n; i++)
        vals[i] = mc_registry_map_apply(map, map_len, vals[i], fallback);
    mc_container_init(out, rules, vals[0], src->alloc);
    mc_status st = mc_container_set_all(out, vals);
    if (st != MC_OK)
        mc_container_free(out);
    return st;
}

static mc_status rebuild(mc_container *c, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                         const mc_container_rules *rules)
{
    mc_container fresh;
    mc_status st = rebuild_into(c, map, map_len, fallback, rules, &fresh);
    if (st != MC_OK)
        return st;
    mc_container_free(c);
    *c = fresh;
    return MC_OK;
}

static mc_status reindex_into(const mc_container *src, const uint32_t *target, const mc_container_rules *rules,
                              mc_container *out);
static bool has_duplicate(const uint32_t *v, uint32_t n);

mc_status mc_container_translate(mc_container *c, const uint32_t *map, uint32_t map_len,
                                 uint32_t fallback, const mc_container_rules *rules)
{
    if (!c || !map || !rules)
        return MC_ERR_INVALID_ARG;
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        c->value = mc_registry_map_apply(map, map_len, c->value, fallback);
        c->rules = *rules;
        return MC_OK;
    case MC_CONTAINER_INDIRECT: {
        uint32_t mapped[256];
        const uint32_t len = c->palette_len;
        if (len > 256 || c->bits > rules->max_indirect_bits)
            return rebuild(c, map, map_len, fallback, rules);
        for (uint32_t i = 0; i < len; i++)
            mapped[i] = mc_registry_map_apply(map, map_len, c->palette[i], fallback);
        if (has_duplicate(mapped, len)) {
            /* entries merged: the indices remapped (rebuilding the
             * container from its 4096 mapped values cost 4x as much) */
            mc_container fresh;
            mc_status st = reindex_into(c, mapped, rules, &fresh);
            if (st != MC_OK)
                return st;
            mc_container_free(c);
            *c = fresh;
            return MC_OK;
        }
        memcpy(c->palette, mapped, len * sizeof *mapped);
        c->rules = *rules;
        return MC_OK;
    }
    default:
        return rebuild(c, map, map_len, fallback, rules);
    }
}

/* ------------------------------------------------------------- columns */

/* The OR of the MC_STATE_* flags that differ between each state a container
 * holds (its palette entries, or every entry of a direct container) and the
 * state it becomes: what decides whether counts and heightmaps carry over. */
typedef struct flag_pair {
    const mc_registry *from, *to;
    const uint8_t *ff, *tf;
    size_t nff, ntf;
} flag_pair;

static uint32_t flags_of(const uint8_t *table, size_t n, const mc_registry *reg, uint32_t s)
{
    return table ? (s < n ? table[s] : 0) : mc_registry_state_flags(reg, s);
}

static uint32_t flag_changes(const flag_pair *fp, const mc_container *c, const uint32_t *map, uint32_t map_len,
                             uint32_t fallback)
{
    uint32_t diff = 0, vals[MC_SECTION_BLOCKS];
    size_t n = 0;
    const uint32_t *pal = mc_container_palette(c, &n);
    if (!pal) {
        if (c->rules.size > MC_SECTION_BLOCKS)
            return 0xFF;
        mc_container_get_all(c, vals);
        pal = vals;
        n = c->rules.size;
    }
    for (size_t i = 0; i < n; i++) {
        const uint32_t s = pal[i];
        const uint32_t t = mc_registry_map_apply(map, map_len, s, fallback);
        diff |= flags_of(fp->ff, fp->nff, fp->from, s) ^ flags_of(fp->tf, fp->ntf, fp->to, t);
    }
    return diff;
}

static void flag_pair_init(flag_pair *fp, const mc_registry *from, const mc_registry *to)
{
    fp->from = from;
    fp->to = to;
    fp->ff = mc_registry_state_flag_table(from, &fp->nff);
    fp->tf = mc_registry_state_flag_table(to, &fp->ntf);
}

#define COUNT_FLAGS (MC_STATE_AIR | MC_STATE_FLUID)
#define HEIGHTMAP_FLAGS (MC_STATE_AIR | MC_STATE_FLUID | MC_STATE_BLOCKS_MOTION | MC_STATE_LEAVES)


/* The pair's biome map (mc_biome_map: built once a pair and kept, where a
 * map filled lazily per column cost a 4 KB clear and a name search for
 * the fallback each column), its first `count` entries used. */
typedef struct biome_map {
    const uint32_t *map;
    uint32_t count;
    uint32_t fallback;  /* the target's MC_BIOME_FALLBACK (0 if none) */
} biome_map;

static mc_status copy_section(mc_section *dst, const mc_section *src, const uint32_t *map,
                              uint32_t map_len, uint32_t air, biome_map *bm,
                              const mc_container_rules *brules, const mc_container_rules *mrules,
                              const mc_registry *to)
{
    mc_container blocks, biomes;
    if (mc_container_copy(&blocks, &src->blocks) != MC_OK)
        return MC_ERR_NOMEM;
    if (mc_container_copy(&biomes, &src->biomes) != MC_OK) {
        mc_container_free(&blocks);
        return MC_ERR_NOMEM;
    }
    mc_status st = MC_OK;
    if (map)
        st = mc_container_translate(&blocks, map, map_len, air, brules);
    if (st == MC_OK && bm) {
        st = mc_container_translate(&biomes, bm->map, bm->count, bm->fallback, mrules);
    }
    if (st == MC_OK)
        st = mc_section_set_block_light(dst, src->block_light);
    if (st == MC_OK)
        st = mc_section_set_sky_light(dst, src->sky_light);
    if (st != MC_OK) {
        mc_container_free(&blocks);
        mc_container_free(&biomes);
        return st;
    }
    mc_container_free(&dst->blocks);
    mc_container_free(&dst->biomes);
    dst->blocks = blocks;
    dst->biomes = biomes;
    if (map) {
        /* counted when asked (section.c): world convert's writer never asks,
         * and counting was a scan of every translated section */
        dst->block_count = dst->fluid_count = MC_SECTION_COUNT_UNKNOWN;
    } else {
        dst->block_count = src->block_count;
        dst->fluid_count = src->fluid_count;
    }
    return MC_OK;
}

/* 2D biome arrays (pre-1.15 packets) kept by the Java codecs in the extra
 * NBT under this key: translated like the containers. */
#define BIOMES2D_KEY "mcchunk:biomes2d"

static void map_2d(biome_map *bm, int32_t *vals)
{
    for (size_t i = 0; i < 256; i++) {
        uint32_t v = (uint32_t)vals[i];
        vals[i] = (int32_t)(v < bm->count ? bm->map[v] : 0);
    }
}

/* 2D biome arrays kept in the extra NBT: the Java codecs' BIOMES2D_KEY and
 * an Anvil 1.8-1.14 chunk's Level.Biomes (bytes or ints). */
static mc_status translate_extra(mc_column *dst, biome_map *bm)
{
    mc_nbt_tag *extra = mc_column_extra(dst);
    if (!extra || !bm)
        return MC_OK;
    mc_nbt_doc *doc = mc_column_nbt(dst);
    int32_t vals[256];
    size_t n = 0;
    mc_nbt_tag *b2 = mc_nbt_get(extra, BIOMES2D_KEY);
    if (b2 && mc_nbt_array_copy_i32(b2, vals, 256, &n) == MC_OK && n == 256) {
        map_2d(bm, vals);
        mc_status st = mc_nbt_set_int_array(doc, b2, vals, 256);
        if (st != MC_OK)
            return st;
    }
    mc_nbt_tag *lv = mc_nbt_get(extra, "Level");
    mc_nbt_tag *lb = lv ? mc_nbt_get(lv, "Biomes") : NULL;
    if (!lb || mc_nbt_count(lb) != 256)
        return MC_OK;
    if (mc_nbt_tag_type(lb) == MC_NBT_BYTE_ARRAY) {
        int8_t raw[256];
        if (mc_nbt_array_copy_i8(lb, raw, 256, &n) != MC_OK || n != 256)
            return MC_OK;
        for (int i = 0; i < 256; i++)
            vals[i] = (uint8_t)raw[i];
        map_2d(bm, vals);
        for (int i = 0; i < 256; i++)
            raw[i] = (int8_t)(uint8_t)vals[i];
        return mc_nbt_set_byte_array(doc, lb, raw, 256);
    }
    if (mc_nbt_array_copy_i32(lb, vals, 256, &n) == MC_OK && n == 256) {
        map_2d(bm, vals);
        return mc_nbt_set_int_array(doc, lb, vals, 256);
    }
    return MC_OK;
}

/* Whether every state of every section keeps the flags heightmaps test
 * (then the source's heightmaps are the translation's). */
static bool heightmaps_kept(const mc_column *src, const mc_registry *to, const uint32_t *map, uint32_t map_len)
{
    flag_pair fp;
    flag_pair_init(&fp, mc_column_registry(src), to);
    const uint32_t air = mc_registry_air(to);
    for (uint32_t i = 0; i < mc_column_section_count(src); i++) {
        const mc_section *s = mc_column_section_const(src, mc_column_min_section(src) + (int32_t)i);
        if (flag_changes(&fp, &s->blocks, map, map_len, air) & HEIGHTMAP_FLAGS)
            return false;
    }
    return true;
}

static bool java_pair(const mc_registry *from, const mc_registry *to);
static const uint32_t *packed_map(const mc_registry *from, const mc_registry *to);
static mc_status translate_block_entities(mc_column *dst, const mc_column *src, const uint32_t *packed,
                                          const mc_registry *to, const mc_container_rules *brules,
                                          bool *heightmaps_ok);

/* A column whose block entities were translated: their DataVersion is the
 * target's from now on, recorded beside the DataVersion the reader
 * recorded (which stays: it says the layout of the rest of the extra
 * data). A column built in memory records neither: its registry's release
 * says both. */
static mc_status record_data_version(mc_column *dst, int32_t to_dv)
{
    mc_nbt_tag *x = mc_column_extra(dst);
    if (!x || !mc_nbt_get(x, MC__KEY_COLUMN_DV))
        return MC_OK;
    return mc__column_put_extra_int(dst, MC__KEY_COLUMN_BE_DV, to_dv);
}

/* mc_column_translate; with `take`, src's NBT document (its extra NBT)
 * is lent to the result instead of its keys copied (src is then only read
 * until the caller frees it). */
static mc_column *translate_impl(mc_column *src, const mc_registry *to, const mc_allocator *alloc, bool take,
                                 mc_error *err)
{
    if (!src || !to) {
        mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "translate: NULL column or registry");
        return NULL;
    }
    const mc_registry *from = mc_column_registry(src);
    const bool same = from == to;
    const uint32_t *map = NULL;
    uint32_t map_len = 0;
    if (!same) {
        map = mc_registry_map(from, to);
        map_len = mc_registry_state_count(from);
        if (!map) {
            mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "translate: no memory for the state map");
            return NULL;
        }
    }
    biome_map *bm = NULL, bm_store;
    if (!same) {
        bm = &bm_store;
        const uint32_t n = mc_registry_biome_count(from);
        bm->map = mc_biome_map(from, to);
        if (!bm->map) {
            mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "translate: no memory for the biome map");
            return NULL;
        }
        bm->count = n > 1024 ? 1024 : n;
        bm->fallback = bm->map[n]; /* the map's hidden last entry */
    }
    /* a Java pair (block entities translated) and the target's
     * DataVersion: from the pair's packed map, which the block entities
     * need anyway (each asked of the registries was a search of the
     * version table, twice a column) */
    const uint32_t *packed = same ? NULL : packed_map(from, to);
    const bool java = packed ? (packed[map_len] >> 24) & MC__PACKED_JAVA : !same && java_pair(from, to);
    const int32_t to_dv = packed ? (int32_t)packed[map_len + 2] : mc__registry_data_version(to);
    const uint32_t count = mc_column_section_count(src);
    mc_column *dst = mc_column_new(to, mc_column_x(src), mc_column_z(src),
                                   mc_column_min_section(src), count, alloc);
    if (!dst) {
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "translate: no memory for the column");
        return NULL;
    }
    const bool lent = take && mc__column_lend_nbt(dst, src);
    const mc_container_rules brules = mc_container_rules_blocks(mc_registry_direct_bits(to));
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(to));
    const uint32_t air = mc_registry_air(to);
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const mc_section *s = mc_column_section_const(src, mc_column_min_section(src) + (int32_t)i);
        st = copy_section(mc_column_section_at(dst, i), s, map, map_len, air, bm, &brules, &mrules,
                          to);
    }
    /* Block entities (translated between Java versions, with the states
     * they decide) and the extra data. (The accessors are not const: the
     * column creates its NBT document on first use.) */
    mc_column *msrc = (mc_column *)src;
    size_t nbe = mc_column_block_entity_count(src);
    bool overrides_keep_heightmaps = true;
    if (st == MC_OK && java)
        st = translate_block_entities(dst, src, packed, to, &brules, &overrides_keep_heightmaps);
    for (size_t i = 0; i < nbe && st == MC_OK && !java; i++) {
        int32_t x, y, z;
        mc_nbt_tag *tag = mc_column_block_entity_at(src, i, &x, &y, &z);
        st = mc_column_put_block_entity(dst, x, y, z, tag);
    }
    if (st == MC_OK && lent) {
        /* the extra keys are dst's already */
        mc_nbt_tag *extra = mc_column_extra(dst);
        if (!extra)
            st = MC_ERR_NOMEM;
        else if (mc_nbt_count(extra) && (st = translate_extra(dst, bm)) == MC_OK && java)
            st = record_data_version(dst, to_dv);
    } else if (st == MC_OK && (nbe || mc_column_nbt(msrc))) {
        mc_nbt_tag *extra = mc_nbt_doc_root(mc_column_nbt(msrc)) ? mc_column_extra(msrc) : NULL;
        if (extra && mc_nbt_count(extra)) {
            mc_nbt_tag *dextra = mc_column_extra(dst);
            for (mc_nbt_tag *t = mc_nbt_first(extra); t && st == MC_OK && dextra; t = mc_nbt_next(t)) {
                size_t klen;
                const char *key = mc_nbt_tag_key(t, &klen);
                mc_nbt_tag *copy = mc_nbt_copy(mc_column_nbt(dst), t);
                st = copy ? mc_nbt_attach(mc_column_nbt(dst), dextra, key, klen, copy) : MC_ERR_NOMEM;
            }
            if (st == MC_OK)
                st = translate_extra(dst, bm);
            if (st == MC_OK && java)
                st = record_data_version(dst, to_dv);
        }
    }
    /* Heightmaps: copied when the registry is the same or every state keeps
     * the flags they test (the source's maps are then exact, and may be
     * vanilla's own), recomputed otherwise. */
    unsigned mask = 0;
    for (int t = 0; t < MC_HEIGHTMAP_COUNT; t++)
        if (mc_column_has_heightmap(src, (mc_heightmap_type)t))
            mask |= 1u << t;
    if (st == MC_OK && mask) {
        if (same || (overrides_keep_heightmaps && heightmaps_kept(src, to, map, map_len))) {
            uint16_t vals[256];
            for (int t = 0; t < MC_HEIGHTMAP_COUNT && st == MC_OK; t++)
                if (((mask >> t) & 1u) && !(take && mc__column_lend_heightmap(dst, src, (mc_heightmap_type)t))) {
                    mc_column_heightmap_get_all(src, (mc_heightmap_type)t, vals);
                    st = mc_column_heightmap_set_all(dst, (mc_heightmap_type)t, vals);
                }
        } else {
            st = mc_column_compute_heightmaps(dst, mask);
        }
    }
    if (st != MC_OK) {
        mc_error_set(err, st, SIZE_MAX, "translate: %s", mc_status_name(st));
        mc_column_free(dst);
        return NULL;
    }
    return dst;
}

mc_column *mc_column_translate(const mc_column *src, const mc_registry *to, const mc_allocator *alloc,
                               mc_error *err)
{
    /* (the accessors are not const: the column creates its NBT document on
     * first use) */
    return translate_impl((mc_column *)src, to, alloc, false, err);
}

mc_column *mc_column_translate_take(mc_column *src, const mc_registry *to, const mc_allocator *alloc,
                                    mc_error *err)
{
    mc_column *t = translate_impl(src, to, alloc, true, err);
    mc_column_free(src);
    return t;
}

mc_column *mc_column_reshape(const mc_column *src, int32_t min_section, uint32_t count,
                             const mc_allocator *alloc, mc_error *err)
{
    if (!src || count == 0 || count > 4096) {
        mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "reshape: bad column or range");
        return NULL;
    }
    const mc_registry *reg = mc_column_registry(src);
    mc_column *dst = mc_column_new(reg, mc_column_x(src), mc_column_z(src), min_section, count, alloc);
    if (!dst) {
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "reshape: no memory");
        return NULL;
    }
    const int32_t smin = mc_column_min_section(src);
    const int32_t smax = smin + (int32_t)mc_column_section_count(src) - 1;
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const int32_t sy = min_section + (int32_t)i;
        mc_section *d = mc_column_section_at(dst, i);
        const mc_section *s = mc_column_section_const(src, sy);
        if (s) {
            mc_section tmp;
            st = mc_section_copy(&tmp, s);
            if (st == MC_OK) {
                mc_section_free(d);
                *d = tmp;
            }
        } else {
            /* biomes of the nearest section the source has */
            const mc_section *near = mc_column_section_const(src, sy < smin ? smin : smax);
            uint32_t b = mc_container_get(&near->biomes, sy < smin ? 0 : 48);
            mc_container_fill(&d->biomes, b);
        }
    }
    size_t nbe = mc_column_block_entity_count(src);
    const int32_t lo = min_section * 16, hi = (min_section + (int32_t)count) * 16;
    for (size_t i = 0; i < nbe && st == MC_OK; i++) {
        int32_t x, y, z;
        mc_nbt_tag *tag = mc_column_block_entity_at(src, i, &x, &y, &z);
        if (y >= lo && y < hi)
            st = mc_column_put_block_entity(dst, x, y, z, tag);
    }
    unsigned mask = 0;
    for (int t = 0; t < MC_HEIGHTMAP_COUNT; t++)
        if (mc_column_has_heightmap(src, (mc_heightmap_type)t))
            mask |= 1u << t;
    if (st == MC_OK && mask)
        st = mc_column_compute_heightmaps(dst, mask);
    if (st != MC_OK) {
        mc_error_set(err, st, SIZE_MAX, "reshape: %s", mc_status_name(st));
        mc_column_free(dst);
        return NULL;
    }
    return dst;
}

/* ------------------------------------------------- per-pair caches */

/* Tables computed once per (from, to) registry pair and kept for the
 * process: the biome map, and the facts a view needs about each state.
 * Each kind has a lazily allocated slot table indexed by the two
 * registries' indices; a table is published with a compare-and-swap (a
 * thread that loses the race frees its copy), like the registry module's
 * state maps, and never changes afterwards. */
typedef _Atomic(void *) pair_slot;
typedef void *(*pair_build_fn)(const mc_registry *from, const mc_registry *to);

/* Registry pointer -> index (mc_registry_at order): an open-addressing
 * table of every registry, built once and published like the tables. */
#define INDEX_SLOTS 1024u
typedef struct index_entry {
    const mc_registry *reg;
    size_t index;
} index_entry;
static _Atomic(index_entry *) registry_indices;

static size_t index_hash(const mc_registry *reg)
{
    return (size_t)(((uintptr_t)reg >> 4) * 0x9E3779B97F4A7C15ull >> 54) & (INDEX_SLOTS - 1);
}

static size_t registry_index(const mc_registry *reg)
{
    index_entry *t = atomic_load_explicit(&registry_indices, memory_order_acquire);
    if (!t) {
        const size_t n = mc_registry_count();
        index_entry *fresh = n < INDEX_SLOTS / 2 ? calloc(INDEX_SLOTS, sizeof *fresh) : NULL;
        if (!fresh) { /* out of memory (or a huge table): a linear search */
            for (size_t i = 0; i < n; i++)
                if (mc_registry_at(i) == reg)
                    return i;
            return SIZE_MAX;
        }
        for (size_t i = 0; i < n; i++) {
            size_t h = index_hash(mc_registry_at(i));
            while (fresh[h].reg)
                h = (h + 1) & (INDEX_SLOTS - 1);
            fresh[h].reg = mc_registry_at(i);
            fresh[h].index = i;
        }
        index_entry *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&registry_indices, &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            t = fresh;
        else {
            free(fresh);
            t = expected;
        }
    }
    for (size_t h = index_hash(reg);; h = (h + 1) & (INDEX_SLOTS - 1)) {
        if (t[h].reg == reg)
            return t[h].index;
        if (!t[h].reg)
            return SIZE_MAX;
    }
}

static void *pair_cache_get(_Atomic(pair_slot *) *table, const mc_registry *from, const mc_registry *to,
                            pair_build_fn build)
{
    const size_t count = mc_registry_count();
    const size_t fi = from ? registry_index(from) : SIZE_MAX, ti = to ? registry_index(to) : SIZE_MAX;
    if (fi == SIZE_MAX || ti == SIZE_MAX)
        return NULL;
    pair_slot *slots = atomic_load_explicit(table, memory_order_acquire);
    if (!slots) {
        pair_slot *fresh = calloc(count * count, sizeof *fresh);
        if (!fresh)
            return NULL;
        for (size_t i = 0; i < count * count; i++)
            atomic_init(&fresh[i], NULL);
        pair_slot *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(table, &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            slots = fresh;
        else {
            free(fresh);
            slots = expected;
        }
    }
    pair_slot *slot = &slots[fi * count + ti];
    void *have = atomic_load_explicit(slot, memory_order_acquire);
    if (have)
        return have;
    void *built = build(from, to);
    if (!built)
        return NULL;
    void *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expected, built, memory_order_acq_rel,
                                                memory_order_acquire))
        return built;
    free(built);
    return expected;
}

/* n entries, then (hidden, for views) the target's fallback biome. */
static void *biome_map_build(const mc_registry *from, const mc_registry *to)
{
    const uint32_t n = mc_registry_biome_count(from);
    uint32_t *map = malloc(((size_t)n + 1) * sizeof *map);
    if (!map)
        return NULL;
    for (uint32_t b = 0; b < n; b++)
        map[b] = mc_biome_translate(from, to, b, NULL);
    const uint32_t fb = mc_registry_biome_id(to, MC_BIOME_FALLBACK);
    map[n] = fb == MC_STATE_NONE ? 0 : fb;
    return map;
}

static _Atomic(pair_slot *) biome_maps;

const uint32_t *mc_biome_map(const mc_registry *from, const mc_registry *to)
{
    return pair_cache_get(&biome_maps, from, to, biome_map_build);
}

/* The state map with facts (chunk_private.h: the "packed map"): one
 * uint32 per source state, the target state in the low 24 bits and in the
 * top byte the MC_STATE_* flags (air, fluid, blocks motion, leaves) the
 * translation changes, MC__PACKED_MAKES_BE when a block entity may have to
 * be made for the state, MC__PACKED_SHARED when another source state has
 * the same target (a palette holding both merges); then the facts of the
 * pair (MC__PACKED_EXTRA entries). One load per palette entry gives a view
 * all it needs. */
#define PACKED_STATE MC__PACKED_STATE
#define STATE_SHARED MC__PACKED_SHARED

static void *packed_map_build(const mc_registry *from, const mc_registry *to)
{
    const uint32_t n = mc_registry_state_count(from), tn = mc_registry_state_count(to);
    const uint32_t *map = mc_registry_map(from, to);
    uint32_t *packed = malloc(((size_t)n + MC__PACKED_EXTRA) * sizeof *packed);
    uint8_t *hits = calloc(tn ? tn : 1, 1); /* sources per target: 0, 1, 2 = more */
    if (!map || !packed || !hits || tn > PACKED_STATE) {
        free(packed);
        free(hits);
        return NULL;
    }
    flag_pair fp;
    flag_pair_init(&fp, from, to);
    /* block entities made for blocks: only Java pairs across 1.12 or 1.13 */
    const mc_be_translation bt = {from, to, mc__registry_data_version(from), mc__registry_data_version(to), NULL};
    const bool java = bt.from_dv >= 0 && bt.to_dv >= 0;
    uint32_t pair = 0;
    for (uint32_t s = 0; s < n; s++)
        if (map[s] < tn && hits[map[s]] < 2)
            hits[map[s]]++;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t t = map[s], sf = flags_of(fp.ff, fp.nff, from, s); /* (MC_STATE_VALID among them) */
        uint32_t f = (sf ^ flags_of(fp.tf, fp.ntf, to, t)) & MC__PACKED_FLAGS;
        f |= t >= tn || hits[t] > 1 ? STATE_SHARED : 0;
        if (java && (sf & MC_STATE_VALID) && mc_block_entity_needed(&bt, s))
            f |= MC__PACKED_MAKES_BE;
        pair |= f & MC__PACKED_MAKES_BE;
        packed[s] = (t & PACKED_STATE) | f << 24;
    }
    packed[n] = (pair | (java ? MC__PACKED_JAVA : 0)) << 24;
    packed[n + 1] = (uint32_t)bt.from_dv;
    packed[n + 2] = (uint32_t)bt.to_dv;
    free(hits);
    return packed;
}

static _Atomic(pair_slot *) packed_maps;

static const uint32_t *packed_map(const mc_registry *from, const mc_registry *to)
{
    return pair_cache_get(&packed_maps, from, to, packed_map_build);
}

/* mc_column_translate's block entities: the set a view would hold, put
 * into dst, and the states they decide into dst's sections (recounted).
 * *heightmaps_ok false when such a state changes a heightmap flag. */
static mc_status translate_block_entities(mc_column *dst, const mc_column *src, const uint32_t *packed,
                                          const mc_registry *to, const mc_container_rules *brules,
                                          bool *heightmaps_ok)
{
    if (!packed)
        return MC_ERR_NOMEM;
    mc__be_set set;
    mc_status st = mc__be_set_build(&set, src, to, packed);
    for (size_t i = 0; i < set.count && st == MC_OK; i++) {
        const mc__be_entry *e = &set.entries[i];
        st = mc__column_add_block_entity(dst, e->x, e->y, e->z, e->tag); /* one per position */
    }
    for (uint32_t i = 0; i < mc_column_section_count(dst) && st == MC_OK && set.override_count; i++) {
        const int32_t sy = mc_column_min_section(dst) + (int32_t)i;
        if (!mc__be_set_touches(&set, sy))
            continue;
        mc_section *d = mc_column_section_at(dst, i);
        mc_container fresh;
        uint32_t changed = 0;
        st = mc__be_set_apply(&set, sy, &d->blocks, to, brules, &fresh, &changed);
        if (st != MC_OK)
            break;
        mc_container_free(&d->blocks);
        d->blocks = fresh;
        mc_section_recount(d, to);
        if (changed & HEIGHTMAP_FLAGS)
            *heightmaps_ok = false;
    }
    mc__be_set_free(&set);
    return st;
}

/* ----------------------------------------------------------------- views */

/* Per section of a view: the two containers and, for indirect ones that
 * were only remapped, the mapped palettes they point at. */
#define VIEW_PALETTE (256 + 8)

struct mc_column_view {
    const mc_column *src;
    const mc_registry *to;
    const mc_allocator *alloc;
    int32_t min_section;
    uint32_t count;
    bool same;             /* `to` is the source's registry: the source's sections */
    bool heightmaps_kept;
    const uint32_t *biome_map;
    uint32_t biome_count;
    mc_section *sections;  /* count views (unused when same) */
    uint8_t *owned;        /* per section: 1 blocks rebuilt, 2 biomes rebuilt */
    uint32_t *palettes;    /* count * VIEW_PALETTE */
    bool be_java;          /* a Java pair: the block entities are translated (be) */
    mc__be_set be;         /* the translated block entities and the states they decide */
};

/* Whether two of the n values are equal: pairwise for short lists, else
 * through a small open-addressing table. */
static bool has_duplicate(const uint32_t *v, uint32_t n)
{
    if (n <= 12) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (v[j] == v[i])
                    return true;
        return false;
    }
    uint32_t table[512]; /* n <= 256: at most half full */
    memset(table, 0xFF, sizeof table);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = (v[i] * 0x9E3779B1u) >> 23;
        while (table[h] != 0xFFFFFFFFu) {
            if (table[h] == v[i])
                return true;
            h = (h + 1) & 511;
        }
        table[h] = v[i];
    }
    return false;
}

/* rebuild_into for a view of an indirect container whose entries merge:
 * the old indices are remapped (each to the first-occurring index of its
 * target value) instead of the values hashed, which gives the container
 * mc_container_set_all makes. Through the packed map when fp is given. */
static mc_status view_reindex(const mc_container *src, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                              const flag_pair *fp, const mc_container_rules *rules, mc_container *out)
{
    uint32_t target[256];
    const uint32_t len = src->palette_len;
    for (uint32_t i = 0; i < len; i++) {
        const uint32_t s = src->palette[i];
        target[i] = s < map_len ? (fp ? map[s] & PACKED_STATE : map[s]) : fallback;
    }
    return reindex_into(src, target, rules, out);
}

/* An indirect container (at most 256 entries) whose entries become
 * target[0..palette_len), some of them equal: built afresh into `out` by
 * remapping its indices (each old index to the first-occurring index of
 * its target value) instead of hashing 4096 values, which gives the
 * container mc_container_set_all makes of the targets. */
static mc_status reindex_into(const mc_container *src, const uint32_t *target, const mc_container_rules *rules,
                              mc_container *out)
{
    const size_t n = src->rules.size;
    if (n > MC_SECTION_BLOCKS || rules->size != n || src->kind != MC_CONTAINER_INDIRECT || !src->palette_len ||
        src->palette_len > 256)
        return MC_ERR_INVALID_ARG;
    uint16_t idx[MC_SECTION_BLOCKS];
    uint16_t to_new[256];
    uint32_t pal[256];
    for (uint32_t i = 0; i < src->palette_len; i++)
        to_new[i] = 0xFFFF;
    mc_bits_unpack_u16(src->longs, n, src->bits, MC_BITS_PADDED, idx);
    size_t npal = 0, k = 0;
    for (uint32_t unseen = src->palette_len; k < n && unseen; k++) {
        const uint16_t o = idx[k];
        if (to_new[o] == 0xFFFF) { /* first sight of this old index: its target's new index */
            size_t j = 0;
            while (j < npal && pal[j] != target[o])
                j++;
            if (j == npal)
                pal[npal++] = target[o];
            to_new[o] = (uint16_t)j;
            unseen--;
        }
        idx[k] = to_new[o];
    }
    for (; k < n; k++) /* every old index met: a plain look-up */
        idx[k] = to_new[idx[k]];
    mc_container_init(out, rules, pal[0], src->alloc);
    mc_status st = mc__container_set_indexed_below(out, pal, npal, idx);
    if (st != MC_OK)
        mc_container_free(out);
    else /* every target met, each once */
        out->compact = out->kind == MC_CONTAINER_INDIRECT;
    return st;
}

/* rebuild_into for a view: through the packed map when fp is given (the
 * changed flags of every entry of a direct container into *diff), else a
 * plain map. An indirect container (its flags came from its palette) has
 * its indices remapped. */
static mc_status view_rebuild(const mc_container *src, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                              const flag_pair *fp, const mc_container_rules *rules, mc_container *out, uint32_t *diff)
{
    uint32_t vals[MC_SECTION_BLOCKS];
    const size_t n = src->rules.size;
    if (n > MC_SECTION_BLOCKS || rules->size != n)
        return MC_ERR_INVALID_ARG;
    if (src->kind == MC_CONTAINER_INDIRECT && fp) { /* flags by palette entry, as flag_changes */
        uint32_t f = 0;
        bool outside = false;
        for (uint32_t i = 0; i < src->palette_len; i++) {
            if (src->palette[i] < map_len)
                f |= map[src->palette[i]];
            else
                outside = true;
        }
        *diff = ((f >> 24) & MC__PACKED_FLAGS) | (outside ? flags_of(fp->tf, fp->ntf, fp->to, fallback) : 0);
    }
    if (src->kind == MC_CONTAINER_INDIRECT && src->palette_len <= 256 && src->palette_len > 0)
        return view_reindex(src, map, map_len, fallback, fp, rules, out);
    mc_container_get_all(src, vals);
    uint32_t f = 0;
    bool outside = false;
    for (size_t i = 0; i < n; i++) {
        if (vals[i] < map_len) {
            const uint32_t e = map[vals[i]];
            f |= e;
            vals[i] = fp ? e & PACKED_STATE : e;
        } else {
            vals[i] = fallback;
            outside = true;
        }
    }
    if (fp && src->kind != MC_CONTAINER_INDIRECT)
        *diff = ((f >> 24) & MC__PACKED_FLAGS) | (outside ? flags_of(fp->tf, fp->ntf, fp->to, fallback) : 0);
    mc_container_init(out, rules, vals[0], src->alloc);
    mc_status st = mc_container_set_all(out, vals);
    if (st != MC_OK)
        mc_container_free(out);
    return st;
}

/* The view of one container: `out` shares the source's longs with a mapped
 * palette in `store` (VIEW_PALETTE slots), or is rebuilt (*owned: the view
 * owns it), as mc_container_translate decides. Blocks go through the packed
 * map (`fp` not NULL: *diff receives the flags the container's states
 * change, as flag_changes gives them, and the pairwise check for merged
 * entries runs only when two entries are shared states); biomes through a
 * plain map (fp NULL). */
static mc_status view_container(const mc_container *src, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                                const mc_container_rules *rules, const flag_pair *fp, uint32_t *store,
                                mc_container *out, bool *owned, uint32_t *diff)
{
    const uint32_t mask = fp ? PACKED_STATE : 0xFFFFFFFFu;
    *owned = false;
    *out = *src;
    out->rules = *rules;
    *diff = 0;
    if (src->kind == MC_CONTAINER_SINGLE) {
        const uint32_t e = src->value < map_len ? map[src->value] : fallback;
        out->value = e & mask;
        if (fp)
            *diff = src->value < map_len ? (e >> 24) & MC__PACKED_FLAGS : flags_of(fp->tf, fp->ntf, fp->to, fallback);
        return MC_OK;
    }
    if (src->kind == MC_CONTAINER_INDIRECT && src->palette_len <= 256 && src->palette_cap <= VIEW_PALETTE &&
        src->bits <= rules->max_indirect_bits) {
        /* two entries can only merge when both are shared states */
        const uint32_t len = src->palette_len;
        uint32_t f = 0, shared = fp ? 0 : len;
        bool outside = false;
        for (uint32_t i = 0; i < len; i++) {
            const uint32_t s = src->palette[i];
            if (s < map_len) {
                const uint32_t e = map[s];
                store[i] = e & mask;
                f |= e;
                shared += e >> 31; /* STATE_SHARED */
            } else {
                store[i] = fallback;
                outside = true;
            }
        }
        if (fp)
            *diff = ((f >> 24) & MC__PACKED_FLAGS) | (outside ? flags_of(fp->tf, fp->ntf, fp->to, fallback) : 0);
        if ((shared < 2 && !outside) || !has_duplicate(store, len)) {
            out->palette = store;
            out->joint = 0;
            return MC_OK;
        }
    }
    mc_status st = view_rebuild(src, map, map_len, fallback, fp, rules, out, diff);
    *owned = st == MC_OK;
    return st;
}

static void view_release(mc_column_view *v)
{
    for (uint32_t i = 0; v->owned && i < v->count; i++) {
        if (v->owned[i] & 1)
            mc_container_free(&v->sections[i].blocks);
        if (v->owned[i] & 2)
            mc_container_free(&v->sections[i].biomes);
    }
}

/* Whether both registries are Java ones (block entities of chunk NBT of
 * some DataVersion: those are translated; others are carried as they are). */
static bool java_pair(const mc_registry *from, const mc_registry *to)
{
    return mc_registry_edition(from) == MC_EDITION_JAVA && mc_registry_edition(to) == MC_EDITION_JAVA &&
           mc__registry_data_version(from) >= 0 && mc__registry_data_version(to) >= 0;
}

/* The view's block entities, translated, and the states they decide put
 * into its sections (each touched block container rebuilt, its counts to
 * be made, the heightmaps recomputed when a heightmap flag changes). */
static mc_status view_block_entities(mc_column_view *v, const uint32_t *packed, const mc_container_rules *brules)
{
    v->be_java = (packed[mc_registry_state_count(mc_column_registry(v->src))] >> 24) & MC__PACKED_JAVA;
    if (!v->be_java)
        return MC_OK;
    mc_status st = mc__be_set_build(&v->be, v->src, v->to, packed);
    for (uint32_t i = 0; i < v->count && st == MC_OK && v->be.override_count; i++) {
        const int32_t sy = v->min_section + (int32_t)i;
        if (!mc__be_set_touches(&v->be, sy))
            continue;
        mc_section *d = &v->sections[i];
        mc_container fresh;
        uint32_t changed = 0;
        st = mc__be_set_apply(&v->be, sy, &d->blocks, v->to, brules, &fresh, &changed);
        if (st != MC_OK)
            break;
        if (v->owned[i] & 1)
            mc_container_free(&d->blocks);
        d->blocks = fresh;
        v->owned[i] |= 1;
        d->block_count = d->fluid_count = MC_SECTION_COUNT_UNKNOWN;
        if (changed & HEIGHTMAP_FLAGS)
            v->heightmaps_kept = false;
    }
    return st;
}

mc_column_view *mc_column_view_new(const mc_column *src, const mc_registry *to, const mc_allocator *alloc,
                                   mc_error *err)
{
    if (!src || !to) {
        mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "view: NULL column or registry");
        return NULL;
    }
    const mc_allocator *a = mc_alloc_or_default(alloc);
    const mc_registry *from = mc_column_registry(src);
    const bool same = from == to;
    const uint32_t count = mc_column_section_count(src);
    const size_t nsec = same ? 0 : count;
    const size_t size = sizeof(mc_column_view) + nsec * (sizeof(mc_section) + VIEW_PALETTE * 4 + 1);
    mc_column_view *v = a->alloc(a->user, size);
    const uint32_t *bmap = same ? NULL : mc_biome_map(from, to);
    const uint32_t *packed = same ? NULL : packed_map(from, to);
    if (!v || (!same && (!packed || !bmap))) {
        if (v)
            a->free(a->user, v, size);
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "view: out of memory");
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->src = src;
    v->to = to;
    v->alloc = a;
    v->min_section = mc_column_min_section(src);
    v->count = count;
    v->same = same;
    v->heightmaps_kept = true;
    if (same)
        return v;
    v->biome_map = bmap;
    v->biome_count = mc_registry_biome_count(from);
    /* layout after the struct: sections, palettes, owned bytes */
    v->sections = (mc_section *)(void *)(v + 1);
    v->palettes = (uint32_t *)(void *)(v->sections + count);
    v->owned = (uint8_t *)(v->palettes + (size_t)count * VIEW_PALETTE);
    memset(v->owned, 0, count);
    const uint32_t map_len = mc_registry_state_count(from), air = mc_registry_air(to);
    const uint32_t bfallback = bmap[v->biome_count]; /* the map's hidden last entry */
    const mc_container_rules brules = mc_container_rules_blocks(mc_registry_direct_bits(to));
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(to));
    flag_pair fp;
    flag_pair_init(&fp, from, to);
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const mc_section *s = mc_column_section_const(src, v->min_section + (int32_t)i);
        mc_section *d = &v->sections[i];
        uint32_t *store = v->palettes + (size_t)i * VIEW_PALETTE;
        bool owned_blocks = false, owned_biomes = false;
        uint32_t diff = 0, unused;
        *d = *s;
        st = view_container(&s->blocks, packed, map_len, air, &brules, &fp, store, &d->blocks, &owned_blocks, &diff);
        if (st == MC_OK)
            st = view_container(&s->biomes, bmap, v->biome_count, bfallback, &mrules, NULL, store + 256, &d->biomes,
                                &owned_biomes, &unused);
        v->owned[i] = (uint8_t)((owned_blocks ? 1 : 0) | (owned_biomes ? 2 : 0));
        if (diff & COUNT_FLAGS)
            d->block_count = d->fluid_count = MC_SECTION_COUNT_UNKNOWN;
        if (diff & HEIGHTMAP_FLAGS)
            v->heightmaps_kept = false;
    }
    if (st == MC_OK)
        st = view_block_entities(v, packed, &brules);
    if (st != MC_OK) {
        mc_column_view_free(v);
        mc_error_set(err, st, SIZE_MAX, "view: %s", mc_status_name(st));
        return NULL;
    }
    return v;
}

void mc_column_view_free(mc_column_view *v)
{
    if (!v)
        return;
    view_release(v);
    mc__be_set_free(&v->be);
    const size_t nsec = v->same ? 0 : v->count;
    const mc_allocator *a = v->alloc;
    a->free(a->user, v, sizeof(mc_column_view) + nsec * (sizeof(mc_section) + VIEW_PALETTE * 4 + 1));
}

const mc_section *mc_column_view_section(const mc_column_view *v, int32_t sy)
{
    if (v->same)
        return mc_column_section_const(v->src, sy);
    if (sy < v->min_section || sy - v->min_section >= (int32_t)v->count)
        return NULL;
    return &v->sections[sy - v->min_section];
}

bool mc_column_view_heightmaps_kept(const mc_column_view *v)
{
    return v->heightmaps_kept;
}

uint32_t mc_column_view_biome(const mc_column_view *v, uint32_t biome)
{
    if (v->same)
        return biome;
    return biome < v->biome_count ? v->biome_map[biome] : 0;
}

const mc_column *mc_column_view_source(const mc_column_view *v)
{
    return v->src;
}

const mc_registry *mc_column_view_registry(const mc_column_view *v)
{
    return v->to;
}

size_t mc_column_view_block_entity_count(const mc_column_view *v)
{
    return v->be_java ? v->be.count : mc_column_block_entity_count(v->src);
}

const mc_nbt_tag *mc_column_view_block_entity_at(const mc_column_view *v, size_t i, int32_t *x, int32_t *y,
                                                 int32_t *z)
{
    if (!v->be_java)
        return mc_column_block_entity_at(v->src, i, x, y, z);
    if (i >= v->be.count)
        return NULL;
    const mc__be_entry *e = &v->be.entries[i];
    if (x)
        *x = e->x;
    if (y)
        *y = e->y;
    if (z)
        *z = e->z;
    return e->tag;
}

const mc_be_report *mc_column_view_block_entity_report(const mc_column_view *v)
{
    return &v->be.report;
}
