/*
 * convert.c: between the chunk model (mc_column / mc_section) and Bedrock
 * subchunks, and a world source that serves mc_column providers to the
 * request engine.
 *
 * The model keeps sections as Java-style paletted containers: registry ids
 * in YZX order (index y<<8 | z<<4 | x) in 64-bit padded longs. A Bedrock
 * storage wants XZY order in 32-bit words. The conversion therefore works on
 * palette indices: the container's indices are unpacked once (the bits
 * module's kernels), its palette goes through the id mapping once per entry
 * (state map to the Bedrock registry, then the hash for hashed clients,
 * duplicates merged), and the words are packed in one pass that walks the
 * unpacked indices in XZY order. Only direct (global palette) containers
 * need a per-block mapping.
 *
 * The water layer (include/mcchunk/bedrock.h says what goes where): from a
 * Java section, palette entries with waterlogged=true mark a 1-bit storage
 * 1 packed from the same unpacked indices; into a Java section, storage 1's
 * water turns storage 0's blocks into their waterlogged=true variants
 * (looked up once per palette entry, when first needed); between a Bedrock
 * column and a Bedrock-registry mc_column, storages past 0 travel through
 * the column's extra NBT ("mcchunk:bedrock_layers") as words + state texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"
#include "mcchunk/nbt.h"
#include "mcchunk/translate.h"

/* ------------------------------------------------------------ id mapping */

mc_status mc_bedrock_ids_init(mc_bedrock_ids *ids, const mc_registry *from, const mc_registry *to,
                              bool hashed)
{
    memset(ids, 0, sizeof *ids);
    if (!from || !to || mc_registry_edition(to) != MC_EDITION_BEDROCK)
        return MC_ERR_INVALID_ARG;
    ids->from = from;
    ids->to = to;
    ids->hashed = hashed;
    ids->from_count = mc_registry_state_count(from);
    if (from != to) {
        ids->map = mc_registry_map(from, to);
        if (!ids->map)
            return MC_ERR_NOMEM;
    }
    uint32_t air = mc_registry_air(to);
    ids->air = hashed ? mc_registry_state_hash(to, air) : air;
    ids->from_java = mc_registry_edition(from) == MC_EDITION_JAVA;
    uint32_t water;
    static const char water_text[] = "minecraft:water[liquid_depth=0]";
    if (mc_registry_parse_state(to, water_text, sizeof water_text - 1, &water, NULL) != MC_OK)
        water = mc_registry_default_state(to, "minecraft:water");
    ids->water = water == MC_STATE_NONE ? MC_STATE_NONE : hashed ? mc_registry_state_hash(to, water) : water;
    return MC_OK;
}

bool mc__bedrock_java_waterlogged(const mc_registry *java, uint32_t state)
{
    if (!(mc_registry_state_flags(java, state) & MC_STATE_FLUID))
        return false; /* every waterlogged=true state has the fluid flag */
    const char *v = mc_registry_state_prop_value(java, state, "waterlogged");
    return v && !strcmp(v, "true");
}

uint32_t mc_bedrock_ids_map(const mc_bedrock_ids *ids, uint32_t state)
{
    uint32_t s = state;
    if (ids->map)
        s = mc_registry_map_apply(ids->map, ids->from_count, state, mc_registry_air(ids->to));
    return ids->hashed ? mc_registry_state_hash(ids->to, s) : s;
}

/* ------------------------------------------------------ section -> subchunk */

/* Packs 4096 palette indices given in YZX order into XZY words. The body
 * is instantiated once per width (the switch below passes constants), so
 * the shifts and the word boundary are known to the compiler. */
#if defined(__GNUC__)
#define MC_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define MC_ALWAYS_INLINE inline
#endif
static MC_ALWAYS_INLINE void pack_xzy_w(uint32_t *words, const unsigned bits, const uint16_t *yzx,
                                        const uint16_t *remap)
{
    const unsigned per = 32 / bits;
    unsigned k = 0;
    uint32_t w = 0;
    size_t wi = 0;
    for (unsigned x = 0; x < 16; x++)
        for (unsigned z = 0; z < 16; z++) {
            const uint16_t *col = yzx + (z << 4) + x;
            for (unsigned y = 0; y < 16; y++) {
                w |= (uint32_t)remap[col[y << 8]] << (k * bits);
                if (++k == per) {
                    words[wi++] = w;
                    w = 0;
                    k = 0;
                }
            }
        }
    if (k)
        words[wi] = w;
}

static void pack_xzy(uint32_t *words, unsigned bits, const uint16_t *yzx, const uint16_t *remap)
{
    switch (bits) {
    case 1: pack_xzy_w(words, 1, yzx, remap); break;
    case 2: pack_xzy_w(words, 2, yzx, remap); break;
    case 3: pack_xzy_w(words, 3, yzx, remap); break;
    case 4: pack_xzy_w(words, 4, yzx, remap); break;
    case 5: pack_xzy_w(words, 5, yzx, remap); break;
    case 6: pack_xzy_w(words, 6, yzx, remap); break;
    case 8: pack_xzy_w(words, 8, yzx, remap); break;
    default: pack_xzy_w(words, 16, yzx, remap); break;
    }
}

/* A biome storage from a section's 64 cells (4x4x4 blocks each). */
static mc_status biome_storage_from_cells(mc_bedrock_storage *st, const uint32_t cells[64], const mc_allocator *a)
{
    uint32_t uniq[64];
    uint16_t remap[64];
    uint32_t n = 0;
    for (unsigned i = 0; i < 64; i++) {
        uint32_t j = 0;
        while (j < n && uniq[j] != cells[i])
            j++;
        if (j == n)
            uniq[n++] = cells[i];
        remap[i] = (uint16_t)j;
    }
    if (n == 1)
        return mc_bedrock_storage_init_single(st, uniq[0], a);
    unsigned bits = mc_bedrock_bits_for(n);
    mc_status status = mc__bedrock_storage_alloc(st, bits, n, a);
    if (status != MC_OK)
        return status;
    memcpy(st->palette, uniq, n * sizeof *uniq);
    st->palette_len = n;
    unsigned per = 32 / bits, k = 0;
    uint32_t w = 0;
    size_t wi = 0;
    for (unsigned x = 0; x < 16; x++)
        for (unsigned z = 0; z < 16; z++)
            for (unsigned y = 0; y < 16; y++) {
                w |= (uint32_t)remap[mc_biome_index(x >> 2, y >> 2, z >> 2)] << (k * bits);
                if (++k == per) {
                    st->words[wi++] = w;
                    w = 0;
                    k = 0;
                }
            }
    if (k)
        st->words[wi] = w;
    return MC_OK;
}

/* Storage 1 of waterlogged blocks: water where wl[] (indexed like the
 * storage 0 indices `idx`, YZX) says so, air elsewhere. */
static mc_status water_layer_from_indices(mc_bedrock_storage *st, const uint16_t *yzx, const uint16_t *wl,
                                          const mc_bedrock_ids *ids, const mc_allocator *a)
{
    mc_status status = mc__bedrock_storage_alloc(st, 1, 2, a);
    if (status != MC_OK)
        return status;
    st->palette[0] = ids->air; /* vanilla's order: air first, then water */
    st->palette[1] = ids->water;
    st->palette_len = 2;
    pack_xzy(st->words, 1, yzx, wl);
    return MC_OK;
}

mc_status mc_bedrock_subchunk_from_section(mc_bedrock_subchunk *sc, const mc_section *s,
                                           const mc_bedrock_ids *ids, int8_t y_index)
{
    const mc_allocator *a = sc->alloc ? sc->alloc : mc_default_allocator();
    mc_bedrock_subchunk_free(sc);
    sc->alloc = a;
    sc->version = 9;
    sc->kind = MC_BEDROCK_PALETTE_RUNTIME;
    sc->y_index = y_index;
    unsigned blocks, fluids;
    mc_section_counts(s, ids->from, &blocks, &fluids);
    if (blocks == 0)
        return MC_OK;
    /* Java waterlogged=true states become the block (storage 0) plus water
     * in storage 1; only sections with a fluid can hold one. */
    bool water = ids->from_java && ids->water != MC_STATE_NONE && fluids > 0;
    unsigned layers = 1;
    const mc_container *c = &s->blocks;
    mc_bedrock_storage *st = &sc->storages[0];
    mc_status status = MC_OK;
    switch (mc_container_get_kind(c)) {
    case MC_CONTAINER_SINGLE:
        status = mc_bedrock_storage_init_single(st, mc_bedrock_ids_map(ids, c->value), a);
        if (status == MC_OK && water && mc__bedrock_java_waterlogged(ids->from, c->value)) {
            status = mc_bedrock_storage_init_single(&sc->storages[1], ids->water, a);
            layers = 2;
        }
        break;
    case MC_CONTAINER_INDIRECT: {
        size_t plen, nlongs;
        const uint32_t *pal = mc_container_palette(c, &plen);
        const uint64_t *longs = mc_container_longs(c, &nlongs);
        uint16_t remap[256] = {0}; /* indices past the palette (invalid) read entry 0 */
        uint16_t wl[256] = {0};
        bool any_wl = false;
        uint32_t uniq[256];
        uint32_t n = 0;
        for (size_t i = 0; i < plen && i < 256; i++) {
            uint32_t v = mc_bedrock_ids_map(ids, pal[i]);
            uint32_t j = 0;
            while (j < n && uniq[j] != v)
                j++;
            if (j == n)
                uniq[n++] = v;
            remap[i] = (uint16_t)j;
            if (water && mc__bedrock_java_waterlogged(ids->from, pal[i])) {
                wl[i] = 1;
                any_wl = true;
            }
        }
        uint16_t idx[MC_BEDROCK_SUBCHUNK_VOLUME];
        mc_bits_unpack_u16(longs, MC_BEDROCK_SUBCHUNK_VOLUME, mc_container_bits(c), MC_BITS_PADDED, idx);
        unsigned bits = mc_bedrock_bits_for(n);
        status = mc__bedrock_storage_alloc(st, bits, n, a);
        if (status != MC_OK)
            break;
        memcpy(st->palette, uniq, n * sizeof *uniq);
        st->palette_len = n;
        if (bits)
            pack_xzy(st->words, bits, idx, remap);
        if (any_wl) {
            status = water_layer_from_indices(&sc->storages[1], idx, wl, ids, a);
            layers = 2;
        }
        break;
    }
    default: { /* direct: ids per block */
        uint32_t *yzx = a->alloc(a->user, 2 * MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *yzx);
        if (!yzx)
            return MC_ERR_NOMEM;
        uint32_t *xzy = yzx + MC_BEDROCK_SUBCHUNK_VOLUME;
        mc_container_get_all(c, yzx);
        uint16_t wl_yzx[MC_BEDROCK_SUBCHUNK_VOLUME];
        static const uint16_t ident[2] = {0, 1};
        bool any_wl = false;
        uint32_t last_in = ~yzx[0], last_out = 0;
        bool last_wl = false;
        for (unsigned x = 0; x < 16; x++)
            for (unsigned z = 0; z < 16; z++)
                for (unsigned y = 0; y < 16; y++) {
                    unsigned i = (y << 8) | (z << 4) | x;
                    uint32_t v = yzx[i];
                    if (v != last_in) {
                        last_in = v;
                        last_out = mc_bedrock_ids_map(ids, v);
                        last_wl = water && mc__bedrock_java_waterlogged(ids->from, v);
                    }
                    xzy[(x << 8) | (z << 4) | y] = last_out;
                    wl_yzx[i] = last_wl;
                    any_wl |= last_wl;
                }
        status = mc_bedrock_storage_from_values(st, xzy, a);
        if (status == MC_OK && any_wl) {
            status = water_layer_from_indices(&sc->storages[1], wl_yzx, ident, ids, a);
            layers = 2;
        }
        a->free(a->user, yzx, 2 * MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *yzx);
        break;
    }
    }
    if (status != MC_OK) {
        mc_bedrock_subchunk_free(sc);
        return status;
    }
    sc->storage_count = (uint8_t)layers;
    return MC_OK;
}

/* ------------------------------------------------------ subchunk -> section */

/* The registry state of entry i of storage k's palette. */
static mc_status palette_state(const mc_bedrock_subchunk *sc, unsigned k, uint32_t i, const mc_registry *reg,
                               bool hashed, uint32_t *out, mc_error *err)
{
    uint32_t v = sc->storages[k].palette[i];
    if (sc->kind == MC_BEDROCK_PALETTE_RUNTIME) {
        uint32_t state = hashed ? mc_registry_state_from_hash(reg, v) : v;
        if (state == MC_STATE_NONE || !mc_registry_state_valid(reg, state))
            return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "bedrock: runtime id %u names no state of %s", v,
                                mc_registry_name(reg));
        *out = state;
        return MC_OK;
    }
    size_t len;
    const uint8_t *t = mc_bedrock_subchunk_tag(sc, v, &len);
    return t ? mc_bedrock_state_from_nbt(reg, t, len, sc->kind == MC_BEDROCK_PALETTE_PERSISTENT, out, err)
             : mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: palette value without tag");
}

/* The registry states of storage k's palette (pal[palette_len]). */
static mc_status storage_states(const mc_bedrock_subchunk *sc, unsigned k, const mc_registry *reg, bool hashed,
                                uint32_t *pal, mc_error *err)
{
    for (uint32_t i = 0; i < sc->storages[k].palette_len; i++) {
        mc_status status = palette_state(sc, k, i, reg, hashed, &pal[i], err);
        if (status != MC_OK)
            return status;
    }
    return MC_OK;
}

static bool is_water_name(const char *name)
{
    return name && (!strcmp(name, "minecraft:water") || !strcmp(name, "minecraft:flowing_water"));
}

/* The waterlogged=true variant of a Java state, or MC_STATE_NONE when its
 * block has no waterlogged property. */
static uint32_t java_waterlogged_variant(const mc_registry *java, uint32_t state)
{
    unsigned n = mc_registry_state_prop_count(java, state);
    mc_state_prop props[64];
    bool has = false;
    if (n > 64)
        return MC_STATE_NONE;
    for (unsigned i = 0; i < n; i++) {
        const char *k, *v;
        if (!mc_registry_state_prop(java, state, i, &k, &v))
            return MC_STATE_NONE;
        if (!strcmp(k, "waterlogged")) {
            v = "true";
            has = true;
        }
        props[i] = (mc_state_prop){k, strlen(k), v, strlen(v)};
    }
    const char *name = mc_registry_state_name(java, state);
    uint32_t out;
    if (!has || !name || mc_registry_lookup(java, name, strlen(name), props, n, &out, NULL) != MC_OK)
        return MC_STATE_NONE;
    return out;
}

#define WL_UNKNOWN 0xFFFFFFFEu /* not computed yet (MC_STATE_NONE: no variant) */

mc_status mc_bedrock_subchunk_to_section_in(const mc_bedrock_subchunk *sc, mc_section *s, const mc_registry *reg,
                                            bool hashed, const mc_registry *target, const mc_allocator *alloc,
                                            mc_error *err)
{
    if (!target)
        target = reg;
    mc_section_init(s, target, alloc);
    if (sc->storage_count == 0)
        return MC_OK;
    if (sc->kind == MC_BEDROCK_PALETTE_LEGACY)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "bedrock: legacy (pre-1.2.13) subchunks have no states");
    const mc_bedrock_storage *st = &sc->storages[0];
    const mc_bedrock_storage *wst = &sc->storages[1];
    bool fold = mc_registry_edition(target) == MC_EDITION_JAVA && sc->storage_count >= 2 && wst->palette_len;
    const uint32_t *map = target != reg ? mc_registry_map(reg, target) : NULL;
    uint32_t reg_count = mc_registry_state_count(reg), tair = mc_registry_air(target);
    size_t plen = st->palette_len ? st->palette_len : 1;
    size_t wlen = fold ? wst->palette_len : 0;
    /* pal: storage 0 states; wl: their waterlogged variants (lazily);
     * wpal: storage 1 states, wtarget: those in the target (water or not) */
    uint32_t *pal = malloc((2 * plen + 2 * wlen) * sizeof *pal);
    uint32_t *vals = malloc(MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *vals);
    mc_status status = MC_OK;
    if (!pal || !vals || (target != reg && !map)) {
        status = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
        goto done;
    }
    uint32_t *wl = pal + plen, *wpal = wl + plen, *wtarget = wpal + wlen;
    status = storage_states(sc, 0, reg, hashed, pal, err);
    if (status == MC_OK && fold)
        status = storage_states(sc, 1, reg, hashed, wpal, err);
    if (status != MC_OK)
        goto done;
    for (uint32_t i = 0; i < st->palette_len; i++) {
        if (map)
            pal[i] = mc_registry_map_apply(map, reg_count, pal[i], tair);
        wl[i] = WL_UNKNOWN;
    }
    if (!st->palette_len)
        pal[0] = tair;
    bool any_water = false;
    for (uint32_t j = 0; j < wlen; j++) {
        bool w = is_water_name(mc_registry_state_name(reg, wpal[j]));
        wtarget[j] = w ? mc_registry_map_apply(map, reg_count, wpal[j], tair) : MC_STATE_NONE;
        any_water |= w;
    }
    fold = fold && any_water;
    for (unsigned x = 0; x < 16; x++)
        for (unsigned z = 0; z < 16; z++)
            for (unsigned y = 0; y < 16; y++) {
                unsigned bi = mc_bedrock_index(x, y, z);
                uint32_t pi = mc_bedrock_storage_get_index(st, bi);
                pi = pi < st->palette_len ? pi : 0;
                uint32_t v = pal[pi];
                if (fold) {
                    uint32_t wj = mc_bedrock_storage_get_index(wst, bi);
                    if (wj < wlen && wtarget[wj] != MC_STATE_NONE) {
                        if (wl[pi] == WL_UNKNOWN)
                            wl[pi] = java_waterlogged_variant(target, v);
                        if (wl[pi] != MC_STATE_NONE)
                            v = wl[pi];
                        else if (mc_registry_state_flags(target, v) & MC_STATE_AIR)
                            v = wtarget[wj]; /* water alone in the water layer */
                    }
                }
                vals[(y << 8) | (z << 4) | x] = v;
            }
    status = mc_container_set_all(&s->blocks, vals);
    if (status != MC_OK)
        mc_error_set(err, status, SIZE_MAX, "bedrock: cannot build the section's container");
    mc_section_recount(s, target);
done:
    free(pal);
    free(vals);
    return status;
}

mc_status mc_bedrock_subchunk_to_section(const mc_bedrock_subchunk *sc, mc_section *s, const mc_registry *reg,
                                         bool hashed, const mc_allocator *alloc, mc_error *err)
{
    return mc_bedrock_subchunk_to_section_in(sc, s, reg, hashed, reg, alloc, err);
}

/* ----------------------------------------------- extra storages (layers) */

/* A Bedrock-registry column keeps storages 1..7 of its subchunks in its
 * extra NBT under LAYERS_KEY: a list of {y: int (section y), layer: byte
 * (storage index), bits: byte, palette: [string state texts of the Bedrock
 * registry], words: int[] (the storage's words)}. */
#define LAYERS_KEY "mcchunk:bedrock_layers"

static mc_status layer_to_extra(mc_column *col, mc_nbt_tag **list, int32_t sy, unsigned k,
                                const mc_bedrock_subchunk *sc, const mc_registry *reg, bool hashed, mc_error *err)
{
    const mc_bedrock_storage *st = &sc->storages[k];
    mc_nbt_doc *doc = mc_column_nbt(col);
    mc_nbt_tag *extra = mc_column_extra(col);
    if (!doc || !extra)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    if (!*list) {
        mc_nbt_remove(extra, LAYERS_KEY, sizeof LAYERS_KEY - 1);
        *list = mc_nbt_put_list(doc, extra, LAYERS_KEY, MC_NBT_COMPOUND);
        if (!*list)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    }
    uint32_t *pal = malloc((st->palette_len ? st->palette_len : 1) * sizeof *pal);
    if (!pal)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    mc_status status = storage_states(sc, k, reg, hashed, pal, err);
    mc_nbt_tag *e = status == MC_OK ? mc_nbt_list_append(doc, *list, MC_NBT_COMPOUND) : NULL;
    mc_nbt_tag *p = e ? mc_nbt_put_list(doc, e, "palette", MC_NBT_STRING) : NULL;
    if (status == MC_OK && !p)
        status = MC_ERR_NOMEM;
    if (status == MC_OK && (mc_nbt_put_int(doc, e, "y", sy) != MC_OK || mc_nbt_put_byte(doc, e, "layer", (int8_t)k) != MC_OK ||
                            mc_nbt_put_byte(doc, e, "bits", (int8_t)st->bits) != MC_OK ||
                            mc_nbt_put_int_array(doc, e, "words", (const int32_t *)st->words,
                                                 mc_bedrock_word_count(st->bits)) != MC_OK))
        status = MC_ERR_NOMEM;
    char text[1024];
    for (uint32_t i = 0; i < st->palette_len && status == MC_OK; i++) {
        size_t n = mc_registry_format_state(reg, pal[i], text, sizeof text, 0);
        mc_nbt_tag *t = n < sizeof text ? mc_nbt_list_append(doc, p, MC_NBT_STRING) : NULL;
        if (!t || mc_nbt_set_string(doc, t, text, n) != MC_OK)
            status = MC_ERR_NOMEM;
    }
    free(pal);
    if (status != MC_OK && err && err->status == MC_OK)
        mc_error_set(err, status, SIZE_MAX, "bedrock: cannot keep storage %u of subchunk %d", k, sy);
    return status;
}

/* Storage `k` of a subchunk from one entry of the layers list: palette
 * texts looked up in the output registry (else in the column's Bedrock
 * registry and mapped; else air). Entries that do not make a valid storage
 * are skipped (MC_ERR_MALFORMED; the extra NBT is input like any other). */
static mc_status layer_from_extra(mc_bedrock_storage *st, const mc_nbt_tag *e, const mc_bedrock_ids *ids,
                                  const mc_allocator *a)
{
    int8_t bits;
    mc_nbt_tag *p = mc_nbt_get(e, "palette");
    mc_nbt_tag *w = mc_nbt_get(e, "words");
    if (mc_nbt_get_byte(mc_nbt_get(e, "bits"), &bits) != MC_OK || bits < 0 || !mc_bedrock_bits_valid((unsigned)bits) ||
        !p || mc_nbt_tag_type(p) != MC_NBT_LIST || !w)
        return MC_ERR_MALFORMED;
    size_t plen = mc_nbt_count(p), nw = mc_bedrock_word_count((unsigned)bits);
    if (plen == 0 || plen > MC_BEDROCK_SUBCHUNK_VOLUME || (bits == 0 && plen != 1))
        return MC_ERR_MALFORMED;
    mc_status status = mc__bedrock_storage_alloc(st, (unsigned)bits, (uint32_t)plen, a);
    if (status != MC_OK)
        return status;
    size_t got = 0;
    if (nw && (mc_nbt_array_copy_i32(w, (int32_t *)st->words, nw, &got) != MC_OK || got != nw)) {
        mc_bedrock_storage_free(st, a);
        return MC_ERR_MALFORMED;
    }
    st->palette_len = (uint32_t)plen;
    size_t i = 0;
    for (mc_nbt_tag *t = mc_nbt_first(p); t && i < plen; t = mc_nbt_next(t), i++) {
        const char *text;
        size_t tl;
        uint32_t state = MC_STATE_NONE;
        if (mc_nbt_get_string(t, &text, &tl) == MC_OK &&
            mc_registry_parse_state(ids->to, text, tl, &state, NULL) == MC_OK) {
            state = ids->hashed ? mc_registry_state_hash(ids->to, state) : state;
        } else if (mc_nbt_get_string(t, &text, &tl) == MC_OK && !ids->from_java &&
                   mc_registry_parse_state(ids->from, text, tl, &state, NULL) == MC_OK) {
            state = mc_bedrock_ids_map(ids, state);
        } else {
            state = ids->air;
        }
        st->palette[i] = state;
    }
    /* every index must name a palette entry */
    uint16_t idx[MC_BEDROCK_SUBCHUNK_VOLUME];
    mc__bedrock_unpack_indices(st, idx);
    for (unsigned k = 0; k < MC_BEDROCK_SUBCHUNK_VOLUME; k++)
        if (idx[k] >= st->palette_len) {
            mc_bedrock_storage_free(st, a);
            return MC_ERR_MALFORMED;
        }
    return MC_OK;
}

/* Adds the kept storages of the layers list to the column's subchunks. */
static mc_status layers_from_extra(mc_bedrock_column *out, const mc_column *col, const mc_bedrock_ids *ids)
{
    /* The column creates its NBT document on first use (see java.h). */
    mc_nbt_doc *doc = mc_column_nbt((mc_column *)col);
    mc_nbt_tag *root = doc ? mc_nbt_doc_root(doc) : NULL;
    mc_nbt_tag *list = root ? mc_nbt_get(root, LAYERS_KEY) : NULL;
    if (!list || mc_nbt_tag_type(list) != MC_NBT_LIST)
        return MC_OK;
    for (mc_nbt_tag *e = mc_nbt_first(list); e; e = mc_nbt_next(e)) {
        int32_t sy;
        int8_t k;
        if (mc_nbt_get_int(mc_nbt_get(e, "y"), &sy) != MC_OK || mc_nbt_get_byte(mc_nbt_get(e, "layer"), &k) != MC_OK ||
            k < 1 || k >= MC_BEDROCK_MAX_STORAGES || sy < out->min_y || sy - out->min_y >= (int64_t)out->count)
            continue;
        mc_bedrock_subchunk *sc = &out->subchunks[sy - out->min_y];
        mc_bedrock_storage tmp;
        memset(&tmp, 0, sizeof tmp);
        mc_status st = layer_from_extra(&tmp, e, ids, out->alloc);
        if (st == MC_ERR_NOMEM)
            return st;
        if (st != MC_OK)
            continue;
        if (sc->storage_count == 0) { /* an air storage 0 below the layer */
            st = mc_bedrock_storage_init_single(&sc->storages[0], out->air, out->alloc);
            if (st != MC_OK) {
                mc_bedrock_storage_free(&tmp, out->alloc);
                return st;
            }
            sc->storage_count = 1;
        }
        /* storages between the last one and k: air */
        while (sc->storage_count < (unsigned)k && st == MC_OK)
            st = mc_bedrock_storage_init_single(&sc->storages[sc->storage_count++], out->air, out->alloc);
        if (st != MC_OK) {
            mc_bedrock_storage_free(&tmp, out->alloc);
            return st;
        }
        mc_bedrock_storage_free(&sc->storages[k], out->alloc);
        sc->storages[k] = tmp;
        if (sc->storage_count <= (unsigned)k)
            sc->storage_count = (uint8_t)(k + 1);
    }
    return MC_OK;
}

/* ------------------------------------------------------------- columns */

/* A Java block entity into subchunk idx's list; a 1.8-1.12 one that keeps
 * its block's kind (skulls) sets the Bedrock block it decides. */
static mc_status be_from_java(mc_bedrock_column *out, const mc_column *col, const mc_bedrock_ids *ids,
                              const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z, int32_t idx, mc_error *err)
{
    uint32_t java_state = mc_column_get_block(col, x, y, z);
    mc_bedrock_subchunk *sc = &out->subchunks[idx];
    uint32_t b = sc->storage_count ? mc__bedrock_state_from_java_be(ids->from, java_state, t, x, y, z, ids->to)
                                   : MC_STATE_NONE;
    if (b != MC_STATE_NONE && b != mc_registry_air(ids->to)) {
        uint32_t v = ids->hashed ? mc_registry_state_hash(ids->to, b) : b;
        mc_status st = mc_bedrock_storage_set(&sc->storages[0],
                                              mc_bedrock_index((unsigned)x & 15, (unsigned)y & 15, (unsigned)z & 15), v,
                                              out->alloc);
        if (st != MC_OK)
            return mc_error_set(err, st, SIZE_MAX, "bedrock: out of memory");
    }
    return mc__bedrock_be_from_java(col, t, x, y, z, &out->block_entities[idx], err);
}

/* A Java 1.8-1.12 flower pot's block entity ("minecraft:flower_pot",
 * "FlowerPot"). */
static bool is_java_pot_be(const mc_nbt_tag *t)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(t, "id"), &s, &n) != MC_OK)
        return false;
    return (n == 20 && !memcmp(s, "minecraft:flower_pot", 20)) || (n == 9 && !memcmp(s, "FlowerPot", 9));
}

/* Bedrock FlowerPot block entities for a 1.13+ Java column's potted blocks
 * (the plant is in the block: blockentity.c). Only sections whose palette
 * holds a potted block are walked, block by block. */
static mc_status pots_from_java(mc_bedrock_column *out, const mc_column *col, const mc_bedrock_ids *ids, mc_error *err)
{
    const mc_registry *java = ids->from;
    if (mc_registry_default_state(java, "minecraft:potted_poppy") == MC_STATE_NONE)
        return MC_OK; /* before 1.13 */
    int32_t min_sy = mc_column_min_section(col);
    uint32_t count = mc_column_section_count(col);
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const mc_container *c = &mc_column_section_const(col, min_sy + (int32_t)i)->blocks;
        bool any = mc_container_get_kind(c) == MC_CONTAINER_DIRECT;
        if (mc_container_get_kind(c) == MC_CONTAINER_SINGLE) {
            any = mc__bedrock_is_pot(java, c->value);
        } else if (mc_container_get_kind(c) == MC_CONTAINER_INDIRECT) {
            size_t plen;
            const uint32_t *pal = mc_container_palette(c, &plen);
            for (size_t k = 0; k < plen && !any; k++)
                any = mc__bedrock_is_pot(java, pal[k]);
        }
        int32_t x0 = mc_column_x(col) * 16, y0 = (min_sy + (int32_t)i) * 16, z0 = mc_column_z(col) * 16;
        for (int32_t y = y0; any && y < y0 + 16 && st == MC_OK; y++)
            for (int32_t z = z0; z < z0 + 16 && st == MC_OK; z++)
                for (int32_t x = x0; x < x0 + 16 && st == MC_OK; x++) {
                    uint32_t s = mc_column_get_block(col, x, y, z);
                    if (mc__bedrock_is_pot(java, s))
                        st = mc__bedrock_pot_from_java(java, s, NULL, x, y, z, ids->to, &out->block_entities[i], err);
                }
    }
    return st;
}

mc_status mc_bedrock_column_from_mc_column(mc_bedrock_column *out, const mc_column *col, int32_t dimension,
                                           const mc_bedrock_ids *ids, const mc_allocator *alloc, mc_error *err)
{
    int32_t min_sy = mc_column_min_section(col);
    uint32_t count = mc_column_section_count(col);
    mc_status st = mc_bedrock_column_init_range(out, mc_column_x(col), mc_column_z(col), dimension, min_sy, count,
                                                ids->air, alloc);
    if (st != MC_OK)
        return mc_error_set(err, st, SIZE_MAX, "bedrock: cannot make a column of %u sections from %d", count, min_sy);
    const mc_registry *from = mc_column_registry(col);
    bool translate_biomes = from != ids->to;
    out->biomes.count = count <= MC_BEDROCK_MAX_BIOME_STORAGES ? count : MC_BEDROCK_MAX_BIOME_STORAGES;
    for (uint32_t i = 0; i < count && st == MC_OK; i++) {
        const mc_section *s = mc_column_section_const(col, min_sy + (int32_t)i);
        st = mc_bedrock_subchunk_from_section(&out->subchunks[i], s, ids, (int8_t)(min_sy + (int32_t)i));
        if (st != MC_OK || i >= out->biomes.count)
            continue;
        /* biomes: 64 cells -> 4096 XZY entries */
        const mc_container *b = &s->biomes;
        if (mc_container_get_kind(b) == MC_CONTAINER_SINGLE) {
            uint32_t v = b->value;
            if (translate_biomes)
                v = mc_biome_translate(from, ids->to, v, NULL);
            st = mc_bedrock_storage_init_single(&out->biomes.storages[i], v, out->alloc);
            continue;
        }
        uint32_t cells[64];
        mc_container_get_all(b, cells);
        if (translate_biomes) {
            uint32_t last = ~cells[0], last_out = 0;
            for (int k = 0; k < 64; k++) {
                if (cells[k] != last) {
                    last = cells[k];
                    last_out = mc_biome_translate(from, ids->to, cells[k], NULL);
                }
                cells[k] = last_out;
            }
        }
        st = biome_storage_from_cells(&out->biomes.storages[i], cells, out->alloc);
    }
    /* storages past the blocks that a Bedrock column kept */
    if (st == MC_OK)
        st = layers_from_extra(out, col, ids);
    /* block entities, as network NBT into their subchunk: Java ones
     * translated (blockentity.c), Bedrock ones as they are */
    size_t nbe = mc_column_block_entity_count(col);
    for (size_t i = 0; i < nbe && st == MC_OK; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *t = mc_column_block_entity_at(col, i, &x, &y, &z);
        int32_t idx = (y >> 4) - min_sy;
        if (!t || idx < 0 || (uint32_t)idx >= count)
            continue;
        if (ids->from_java && is_java_pot_be(t))
            st = mc__bedrock_pot_from_java(from, mc_column_get_block(col, x, y, z), t, x, y, z, ids->to,
                                           &out->block_entities[idx], err);
        else if (ids->from_java)
            st = be_from_java(out, col, ids, t, x, y, z, idx, err);
        else
            st = mc_nbt_write_tag(t, "", 0, MC_NBT_BEDROCK_NETWORK, &out->block_entities[idx], err);
    }
    if (st == MC_OK && ids->from_java)
        st = pots_from_java(out, col, ids, err);
    if (st != MC_OK) {
        mc_bedrock_column_free(out);
        if (err && err->status == MC_OK)
            mc_error_set(err, st, SIZE_MAX, "bedrock: cannot convert the column");
        return st;
    }
    mc_bedrock_column_update_heights(out);
    return MC_OK;
}

/* The Bedrock block at absolute (x, y, z) of `c` (storage 0; air outside). */
static uint32_t bedrock_state_at(const mc_bedrock_column *c, const mc_registry *reg, bool hashed, int32_t x,
                                 int32_t y, int32_t z)
{
    int64_t i = (int64_t)(y >> 4) - c->min_y;
    uint32_t state = mc_registry_air(reg);
    if (i < 0 || i >= (int64_t)c->count || c->subchunks[i].storage_count == 0)
        return state;
    const mc_bedrock_subchunk *sc = &c->subchunks[i];
    uint32_t pi = mc_bedrock_storage_get_index(&sc->storages[0], mc_bedrock_index((unsigned)x & 15, (unsigned)y & 15,
                                                                                    (unsigned)z & 15));
    if (pi >= sc->storages[0].palette_len || palette_state(sc, 0, pi, reg, hashed, &state, NULL) != MC_OK)
        state = mc_registry_air(reg);
    return state;
}

/* One Bedrock block entity into the Java column: the Java shape of the
 * target's version, the block it decides (blockentity_java.c). */
static mc_status be_to_java(mc_column *col, const mc__bedrock_to_java *tj, const mc_bedrock_column *c, bool hashed,
                            const mc_nbt_tag *root, int32_t x, int32_t y, int32_t z, mc_nbt_doc *doc, mc_error *err)
{
    if (y < mc_column_min_section(col) * 16 ||
        y >= (mc_column_min_section(col) + (int32_t)mc_column_section_count(col)) * 16 ||
        (x >> 4) != mc_column_x(col) || (z >> 4) != mc_column_z(col))
        return MC_OK; /* not in this column */
    uint32_t before = mc_column_get_block(col, x, y, z), state = before;
    mc_nbt_tag *java = NULL;
    mc_status st = mc__bedrock_be_to_java(tj, root, x, y, z, bedrock_state_at(c, tj->bedrock, hashed, x, y, z), &state,
                                          doc, &java);
    if (st == MC_OK && state != before)
        st = mc_column_set_block(col, x, y, z, state);
    if (st == MC_OK && java)
        st = mc_column_put_block_entity(col, x, y, z, java);
    if (st != MC_OK)
        mc_error_set(err, st, SIZE_MAX, "bedrock: cannot translate the block entity at %d %d %d", x, y, z);
    return st;
}

mc_column *mc_bedrock_column_to_mc_column_in(const mc_bedrock_column *c, const mc_registry *reg, bool hashed,
                                             const mc_registry *target, const mc_allocator *alloc, mc_error *err)
{
    return mc_bedrock_column_to_mc_column_report(c, reg, hashed, target, alloc, NULL, err);
}

mc_column *mc_bedrock_column_to_mc_column_report(const mc_bedrock_column *c, const mc_registry *reg, bool hashed,
                                                 const mc_registry *target, const mc_allocator *alloc,
                                                 struct mc_be_report *report, mc_error *err)
{
    if (!target)
        target = reg;
    bool java = mc_registry_edition(target) == MC_EDITION_JAVA;
    mc_column *col = mc_column_new(target, c->x, c->z, c->min_y, c->count, alloc);
    if (!col) {
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
        return NULL;
    }
    mc_status st = MC_OK;
    mc_nbt_tag *layers = NULL;
    for (uint32_t i = 0; i < c->count && st == MC_OK; i++) {
        mc_section *s = mc_column_section_at(col, i);
        mc_section_free(s);
        const mc_bedrock_subchunk *sc = &c->subchunks[i];
        st = mc_bedrock_subchunk_to_section_in(sc, s, reg, hashed, target, alloc, err);
        if (st != MC_OK)
            break;
        /* storages past the blocks: folded into Java states above; a
         * Bedrock column keeps them in its extra NBT */
        for (unsigned k = 1; !java && k < sc->storage_count && st == MC_OK; k++)
            st = layer_to_extra(col, &layers, c->min_y + (int32_t)i, k, sc, reg, hashed, err);
        if (i < c->biomes.count)
            for (unsigned cy = 0; cy < 4 && st == MC_OK; cy++)
                for (unsigned cz = 0; cz < 4 && st == MC_OK; cz++)
                    for (unsigned cx = 0; cx < 4 && st == MC_OK; cx++) {
                        uint32_t b = mc_bedrock_storage_get(&c->biomes.storages[i],
                                                            mc_bedrock_index(cx * 4, cy * 4, cz * 4));
                        if (target != reg)
                            b = mc_biome_translate(reg, target, b, NULL);
                        st = mc_section_set_biome(s, cx, cy, cz, b);
                    }
    }
    /* block entities: network NBT compounds with x, y, z */
    mc__bedrock_to_java tj;
    bool to_java = java && st == MC_OK && mc__bedrock_to_java_init(&tj, reg, target, report);
    mc_nbt_doc *doc = st == MC_OK ? mc_nbt_doc_new(alloc) : NULL;
    if (st == MC_OK && !doc)
        st = MC_ERR_NOMEM;
    for (uint32_t i = 0; doc && i < c->count && st == MC_OK; i++) {
        const mc_buf *be = &c->block_entities[i];
        size_t off = 0;
        while (off < be->len && st == MC_OK) {
            size_t used = 0;
            st = mc_nbt_parse_ex(doc, be->data + off, be->len - off, MC_NBT_BEDROCK_NETWORK, MC_NBT_PARSE_PREFIX, NULL,
                                 &used, err);
            if (st != MC_OK)
                break;
            mc_nbt_tag *root = mc_nbt_doc_root(doc);
            int32_t x, y, z;
            if (mc_nbt_get_int(mc_nbt_get(root, "x"), &x) == MC_OK && mc_nbt_get_int(mc_nbt_get(root, "y"), &y) == MC_OK &&
                mc_nbt_get_int(mc_nbt_get(root, "z"), &z) == MC_OK) {
                if (to_java)
                    st = be_to_java(col, &tj, c, hashed, root, x, y, z, doc, err);
                else if (java)
                    st = mc__bedrock_be_rename_to_java(doc, root);
                if (st == MC_OK && !to_java)
                    st = mc_column_put_block_entity(col, x, y, z, root);
            }
            off += used ? used : be->len;
        }
    }
    mc_nbt_doc_free(doc);
    if (st != MC_OK) {
        if (err && err->status == MC_OK)
            mc_error_set(err, st, SIZE_MAX, "bedrock: cannot convert the column");
        mc_column_free(col);
        return NULL;
    }
    return col;
}

mc_column *mc_bedrock_column_to_mc_column(const mc_bedrock_column *c, const mc_registry *reg, bool hashed,
                                          const mc_allocator *alloc, mc_error *err)
{
    return mc_bedrock_column_to_mc_column_in(c, reg, hashed, reg, alloc, err);
}

/* --------------------------------------------- mc_column world source */

typedef struct cached_column {
    int32_t dim, cx, cz;
    bool used;
    unsigned pins;
    uint64_t stamp;
    mc_bedrock_column col;
} cached_column;

struct mc_bedrock_mc_source {
    mc_bedrock_column_provider provider;
    const mc_registry *bedrock;
    bool hashed;
    const mc_allocator *alloc;
    cached_column *cols;
    size_t max;
    uint64_t clock;
};

mc_bedrock_mc_source *mc_bedrock_mc_source_new(const mc_bedrock_column_provider *provider,
                                               const mc_registry *bedrock, bool hashed, size_t max_columns,
                                               const mc_allocator *alloc)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    if (!provider || !provider->get || !bedrock || mc_registry_edition(bedrock) != MC_EDITION_BEDROCK)
        return NULL;
    mc_bedrock_mc_source *s = a->alloc(a->user, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->provider = *provider;
    s->bedrock = bedrock;
    s->hashed = hashed;
    s->alloc = a;
    s->max = max_columns ? max_columns : 256;
    s->cols = a->alloc(a->user, s->max * sizeof *s->cols);
    if (!s->cols) {
        a->free(a->user, s, sizeof *s);
        return NULL;
    }
    memset(s->cols, 0, s->max * sizeof *s->cols);
    return s;
}

void mc_bedrock_mc_source_free(mc_bedrock_mc_source *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->max; i++)
        if (s->cols[i].used)
            mc_bedrock_column_free(&s->cols[i].col);
    s->alloc->free(s->alloc->user, s->cols, s->max * sizeof *s->cols);
    s->alloc->free(s->alloc->user, s, sizeof *s);
}

void mc_bedrock_mc_source_invalidate(mc_bedrock_mc_source *s, int32_t dimension, int32_t cx, int32_t cz)
{
    for (size_t i = 0; i < s->max; i++) {
        cached_column *c = &s->cols[i];
        if (c->used && c->dim == dimension && c->cx == cx && c->cz == cz && !c->pins) {
            mc_bedrock_column_free(&c->col);
            c->used = false;
        }
    }
}

static mc_status source_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_bedrock_column **out)
{
    mc_bedrock_mc_source *s = user;
    cached_column *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < s->max; i++) {
        cached_column *c = &s->cols[i];
        if (c->used && c->dim == dim && c->cx == cx && c->cz == cz) {
            c->stamp = ++s->clock;
            c->pins++;
            *out = &c->col;
            return MC_OK;
        }
        if (!c->used && !free_slot)
            free_slot = c;
        if (c->used && !c->pins && (!oldest || c->stamp < oldest->stamp))
            oldest = c;
    }
    cached_column *slot = free_slot ? free_slot : oldest;
    if (!slot)
        return MC_ERR_LIMIT; /* every cached column is in use */
    const mc_column *col = NULL;
    mc_status st = s->provider.get(s->provider.user, dim, cx, cz, &col);
    if (st != MC_OK)
        return st;
    if (slot->used) {
        mc_bedrock_column_free(&slot->col);
        slot->used = false;
    }
    mc_bedrock_ids ids;
    st = mc_bedrock_ids_init(&ids, mc_column_registry(col), s->bedrock, s->hashed);
    if (st == MC_OK)
        st = mc_bedrock_column_from_mc_column(&slot->col, col, dim, &ids, s->alloc, NULL);
    if (s->provider.release)
        s->provider.release(s->provider.user, col);
    if (st != MC_OK)
        return st;
    slot->used = true;
    slot->dim = dim;
    slot->cx = cx;
    slot->cz = cz;
    slot->pins = 1;
    slot->stamp = ++s->clock;
    *out = &slot->col;
    return MC_OK;
}

static void source_release(void *user, const mc_bedrock_column *col)
{
    mc_bedrock_mc_source *s = user;
    for (size_t i = 0; i < s->max; i++)
        if (s->cols[i].used && &s->cols[i].col == col && s->cols[i].pins)
            s->cols[i].pins--;
}

mc_bedrock_world_source mc_bedrock_mc_source_world(mc_bedrock_mc_source *s)
{
    mc_bedrock_world_source w = {s, source_get, source_release};
    return w;
}
