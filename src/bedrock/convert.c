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
    return MC_OK;
}

uint32_t mc_bedrock_ids_map(const mc_bedrock_ids *ids, uint32_t state)
{
    uint32_t s = state;
    if (ids->map)
        s = mc_registry_map_apply(ids->map, ids->from_count, state, mc_registry_air(ids->to));
    return ids->hashed ? mc_registry_state_hash(ids->to, s) : s;
}

/* --------------------------------------------------- NBT state look-up */

mc_status mc_bedrock_state_from_nbt(const mc_registry *reg, const uint8_t *nbt, size_t len, bool network,
                                    uint32_t *state, mc_error *err)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    mc_status st = mc_nbt_parse(doc, nbt, len, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, NULL, err);
    if (st != MC_OK) {
        mc_nbt_doc_free(doc);
        return st;
    }
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    const char *name;
    size_t nl;
    if (mc_nbt_get_string(mc_nbt_get(root, "name"), &name, &nl) != MC_OK) {
        mc_nbt_doc_free(doc);
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: state tag without a name");
    }
    mc_state_prop props[64];
    char values[64][24];
    size_t n = 0;
    mc_nbt_tag *bytes[64];
    for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(root, "states")); t && n < 64; t = mc_nbt_next(t)) {
        props[n].key = mc_nbt_tag_key(t, &props[n].key_len);
        bytes[n] = NULL;
        int64_t iv;
        if (mc_nbt_get_string(t, &props[n].value, &props[n].value_len) == MC_OK) {
            n++;
            continue;
        }
        if (mc_nbt_get_integer(t, &iv) != MC_OK) {
            const char *type = mc_nbt_type_name(mc_nbt_tag_type(t)); /* a static string */
            mc_nbt_doc_free(doc);
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: state value of type %s", type);
        }
        if (mc_nbt_tag_type(t) == MC_NBT_BYTE && (iv == 0 || iv == 1)) {
            bytes[n] = t;
            snprintf(values[n], sizeof values[n], "%s", iv ? "true" : "false");
        } else {
            snprintf(values[n], sizeof values[n], "%lld", (long long)iv);
        }
        props[n].value = values[n];
        props[n].value_len = strlen(values[n]);
        n++;
    }
    st = mc_registry_lookup(reg, name, nl, props, n, state, NULL);
    if (st == MC_ERR_NOT_FOUND) {
        /* byte states the registry spells as numbers */
        bool any = false;
        for (size_t i = 0; i < n; i++)
            if (bytes[i]) {
                snprintf(values[i], sizeof values[i], "%c", values[i][0] == 't' ? '1' : '0');
                props[i].value_len = 1;
                any = true;
            }
        if (any)
            st = mc_registry_lookup(reg, name, nl, props, n, state, NULL);
    }
    if (st != MC_OK)
        mc_error_set(err, st, SIZE_MAX, "bedrock: the registry has no state %.*s", (int)nl, name);
    mc_nbt_doc_free(doc);
    return st;
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

mc_status mc_bedrock_subchunk_from_section(mc_bedrock_subchunk *sc, const mc_section *s,
                                           const mc_bedrock_ids *ids, int8_t y_index)
{
    const mc_allocator *a = sc->alloc ? sc->alloc : mc_default_allocator();
    mc_bedrock_subchunk_free(sc);
    sc->alloc = a;
    sc->version = 9;
    sc->kind = MC_BEDROCK_PALETTE_RUNTIME;
    sc->y_index = y_index;
    if (mc_section_is_air(s))
        return MC_OK;
    const mc_container *c = &s->blocks;
    mc_bedrock_storage *st = &sc->storages[0];
    mc_status status = MC_OK;
    switch (mc_container_get_kind(c)) {
    case MC_CONTAINER_SINGLE:
        status = mc_bedrock_storage_init_single(st, mc_bedrock_ids_map(ids, c->value), a);
        break;
    case MC_CONTAINER_INDIRECT: {
        size_t plen, nlongs;
        const uint32_t *pal = mc_container_palette(c, &plen);
        const uint64_t *longs = mc_container_longs(c, &nlongs);
        uint16_t remap[256] = {0}; /* indices past the palette (invalid) read entry 0 */
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
        break;
    }
    default: { /* direct: ids per block */
        uint32_t *yzx = a->alloc(a->user, 2 * MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *yzx);
        if (!yzx)
            return MC_ERR_NOMEM;
        uint32_t *xzy = yzx + MC_BEDROCK_SUBCHUNK_VOLUME;
        mc_container_get_all(c, yzx);
        uint32_t last_in = ~yzx[0], last_out = 0;
        for (unsigned x = 0; x < 16; x++)
            for (unsigned z = 0; z < 16; z++)
                for (unsigned y = 0; y < 16; y++) {
                    uint32_t v = yzx[(y << 8) | (z << 4) | x];
                    if (v != last_in) {
                        last_in = v;
                        last_out = mc_bedrock_ids_map(ids, v);
                    }
                    xzy[(x << 8) | (z << 4) | y] = last_out;
                }
        status = mc_bedrock_storage_from_values(st, xzy, a);
        a->free(a->user, yzx, 2 * MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *yzx);
        break;
    }
    }
    if (status != MC_OK) {
        mc_bedrock_subchunk_free(sc);
        return status;
    }
    sc->storage_count = 1;
    return MC_OK;
}

/* ------------------------------------------------------ subchunk -> section */

mc_status mc_bedrock_subchunk_to_section(const mc_bedrock_subchunk *sc, mc_section *s, const mc_registry *reg,
                                         bool hashed, const mc_allocator *alloc, mc_error *err)
{
    mc_section_init(s, reg, alloc);
    if (sc->storage_count == 0)
        return MC_OK;
    if (sc->kind == MC_BEDROCK_PALETTE_LEGACY)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "bedrock: legacy (pre-1.2.13) subchunks have no states");
    const mc_bedrock_storage *st = &sc->storages[0];
    uint32_t *pal = malloc((st->palette_len ? st->palette_len : 1) * sizeof *pal);
    uint32_t *vals = malloc(2 * MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *vals);
    mc_status status = MC_OK;
    if (!pal || !vals) {
        status = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < st->palette_len && status == MC_OK; i++) {
        uint32_t v = st->palette[i];
        if (sc->kind == MC_BEDROCK_PALETTE_RUNTIME) {
            uint32_t state = hashed ? mc_registry_state_from_hash(reg, v) : v;
            if (state == MC_STATE_NONE || !mc_registry_state_valid(reg, state))
                status = mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "bedrock: runtime id %u names no state of %s",
                                      v, mc_registry_name(reg));
            pal[i] = state;
        } else {
            size_t len;
            const uint8_t *t = mc_bedrock_subchunk_tag(sc, v, &len);
            status = t ? mc_bedrock_state_from_nbt(reg, t, len, sc->kind == MC_BEDROCK_PALETTE_PERSISTENT, &pal[i], err)
                       : mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: palette value without tag");
        }
    }
    if (status != MC_OK)
        goto done;
    uint32_t *yzx = vals + MC_BEDROCK_SUBCHUNK_VOLUME;
    for (unsigned x = 0; x < 16; x++)
        for (unsigned z = 0; z < 16; z++)
            for (unsigned y = 0; y < 16; y++) {
                uint32_t pi = mc_bedrock_storage_get_index(st, mc_bedrock_index(x, y, z));
                yzx[(y << 8) | (z << 4) | x] = pal[pi < st->palette_len ? pi : 0];
            }
    status = mc_container_set_all(&s->blocks, yzx);
    if (status != MC_OK)
        mc_error_set(err, status, SIZE_MAX, "bedrock: cannot build the section's container");
    mc_section_recount(s, reg);
done:
    free(pal);
    free(vals);
    return status;
}

/* ------------------------------------------------------------- columns */

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
    /* block entities, as network NBT into their subchunk */
    size_t nbe = mc_column_block_entity_count(col);
    for (size_t i = 0; i < nbe && st == MC_OK; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *t = mc_column_block_entity_at(col, i, &x, &y, &z);
        int32_t idx = (y >> 4) - min_sy;
        if (!t || idx < 0 || (uint32_t)idx >= count)
            continue;
        st = mc_nbt_write_tag(t, "", 0, MC_NBT_BEDROCK_NETWORK, &out->block_entities[idx], err);
    }
    if (st != MC_OK) {
        mc_bedrock_column_free(out);
        if (err && err->status == MC_OK)
            mc_error_set(err, st, SIZE_MAX, "bedrock: cannot convert the column");
        return st;
    }
    mc_bedrock_column_update_heights(out);
    return MC_OK;
}

mc_column *mc_bedrock_column_to_mc_column(const mc_bedrock_column *c, const mc_registry *reg, bool hashed,
                                          const mc_allocator *alloc, mc_error *err)
{
    mc_column *col = mc_column_new(reg, c->x, c->z, c->min_y, c->count, alloc);
    if (!col) {
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
        return NULL;
    }
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < c->count && st == MC_OK; i++) {
        mc_section *s = mc_column_section_at(col, i);
        mc_section_free(s);
        st = mc_bedrock_subchunk_to_section(&c->subchunks[i], s, reg, hashed, alloc, err);
        if (st != MC_OK)
            break;
        if (i < c->biomes.count)
            for (unsigned cy = 0; cy < 4 && st == MC_OK; cy++)
                for (unsigned cz = 0; cz < 4 && st == MC_OK; cz++)
                    for (unsigned cx = 0; cx < 4 && st == MC_OK; cx++)
                        st = mc_section_set_biome(s, cx, cy, cz,
                                                  mc_bedrock_storage_get(&c->biomes.storages[i],
                                                                         mc_bedrock_index(cx * 4, cy * 4, cz * 4)));
    }
    /* block entities: network NBT compounds with x, y, z */
    mc_nbt_doc *doc = st == MC_OK ? mc_nbt_doc_new(alloc) : NULL;
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
                mc_nbt_get_int(mc_nbt_get(root, "z"), &z) == MC_OK)
                st = mc_column_put_block_entity(col, x, y, z, root);
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
