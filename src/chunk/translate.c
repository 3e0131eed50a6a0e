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
#include "mcchunk/translate.h"

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

static mc_status rebuild(mc_container *c, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                         const mc_container_rules *rules)
{
    uint32_t vals[MC_SECTION_BLOCKS];
    const size_t n = c->rules.size;
    if (n > MC_SECTION_BLOCKS || rules->size != n)
        return MC_ERR_INVALID_ARG;
    mc_container_get_all(c, vals);
    for (size_t i = 0; i < n; i++)
        vals[i] = mc_registry_map_apply(map, map_len, vals[i], fallback);
    mc_container fresh;
    mc_container_init(&fresh, rules, vals[0], c->alloc);
    mc_status st = mc_container_set_all(&fresh, vals);
    if (st != MC_OK) {
        mc_container_free(&fresh);
        return st;
    }
    mc_container_free(c);
    *c = fresh;
    return MC_OK;
}

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
        for (uint32_t i = 0; i < len; i++) {
            mapped[i] = mc_registry_map_apply(map, map_len, c->palette[i], fallback);
            for (uint32_t j = 0; j < i; j++)
                if (mapped[j] == mapped[i])
                    return rebuild(c, map, map_len, fallback, rules); /* entries merged */
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

typedef struct biome_map {
    const mc_registry *from, *to;
    uint32_t count;
    uint32_t map[1024];
} biome_map;

/* Makes sure the entries a container uses are in the lazily filled map. */
static void biome_map_fill(biome_map *bm, const mc_container *c)
{
    size_t len;
    const uint32_t *pal = mc_container_palette(c, &len);
    uint32_t vals[MC_SECTION_BIOMES];
    if (!pal && c->rules.size == MC_SECTION_BIOMES) {
        mc_container_get_all(c, vals);
        pal = vals;
        len = MC_SECTION_BIOMES;
    }
    for (size_t i = 0; pal && i < len; i++)
        if (pal[i] < bm->count && bm->map[pal[i]] == MC_STATE_NONE)
            bm->map[pal[i]] = mc_biome_translate(bm->from, bm->to, pal[i], NULL);
}

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
        biome_map_fill(bm, &biomes);
        uint32_t fb = mc_registry_biome_id(to, MC_BIOME_FALLBACK);
        st = mc_container_translate(&biomes, bm->map, bm->count, fb == MC_STATE_NONE ? 0 : fb,
                                    mrules);
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
    if (map)
        mc_section_recount(dst, to);
    else {
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
        if (v < bm->count && bm->map[v] == MC_STATE_NONE)
            bm->map[v] = mc_biome_translate(bm->from, bm->to, v, NULL);
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

mc_column *mc_column_translate(const mc_column *src, const mc_registry *to,
                               const mc_allocator *alloc, mc_error *err)
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
        bm->from = from;
        bm->to = to;
        bm->count = mc_registry_biome_count(from);
        if (bm->count > 1024)
            bm->count = 1024;
        memset(bm->map, 0xFF, sizeof bm->map);
    }
    const uint32_t count = mc_column_section_count(src);
    mc_column *dst = mc_column_new(to, mc_column_x(src), mc_column_z(src),
                                   mc_column_min_section(src), count, alloc);
    if (!dst) {
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "translate: no memory for the column");
        return NULL;
    }
    const mc_container_rules brules = mc_container_rules_blocks(mc_registry_direct_bits(to));
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(to));
    const uint32_t air = mc_registry_air(to);
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const mc_section *s = mc_column_section_const(src, mc_column_min_section(src) + (int32_t)i);
        st = copy_section(mc_column_section_at(dst, i), s, map, map_len, air, bm, &brules, &mrules,
                          to);
    }
    /* Block entities and the extra data. (The accessors are not const: the
     * column creates its NBT document on first use.) */
    mc_column *msrc = (mc_column *)src;
    size_t nbe = mc_column_block_entity_count(src);
    for (size_t i = 0; i < nbe && st == MC_OK; i++) {
        int32_t x, y, z;
        mc_nbt_tag *tag = mc_column_block_entity_at(src, i, &x, &y, &z);
        st = mc_column_put_block_entity(dst, x, y, z, tag);
    }
    if (st == MC_OK && (nbe || mc_column_nbt(msrc))) {
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
        }
    }
    /* Heightmaps: copied when the registry is the same, recomputed otherwise. */
    unsigned mask = 0;
    for (int t = 0; t < MC_HEIGHTMAP_COUNT; t++)
        if (mc_column_has_heightmap(src, (mc_heightmap_type)t))
            mask |= 1u << t;
    if (st == MC_OK && mask) {
        if (same) {
            uint16_t vals[256];
            for (int t = 0; t < MC_HEIGHTMAP_COUNT && st == MC_OK; t++)
                if ((mask >> t) & 1u) {
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
