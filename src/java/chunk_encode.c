/*
 * chunk_encode.c: mc_column -> Chunk Data packet bytes, for every protocol
 * era from 1.8 to 26.1.
 *
 * The model keeps containers in the 1.18+ in-memory form (padded longs,
 * vanilla strategies), so the modern encoder is nearly a copy: per section
 * the counts, the bits byte, the palette varints and the longs byte-swapped
 * into place. Older eras need the container in their own form, which differs
 * only in a few ways: no single-value containers before 1.18 (a uniform
 * section is a 4-bit palette of one entry, as vanilla's containers start),
 * spanning longs before 1.16, the 13-bit id<<4|meta global palette of
 * 1.9-1.12, and 1.8's raw little-endian u16 ids.
 *
 * The data-size varint precedes the data, so the data is written first after
 * a 3-byte gap, which is closed up (one memmove) once its size is known.
 *
 * A column in another registry than the protocol's is seen through a
 * translated view (mc_column_view): each container gets the protocol's
 * palette over the column's own packed longs, so the cost of serving another
 * version is O(palette) per section, plus one pass over the entries of the
 * few containers whose palette entries merge or that are direct. Counts and
 * heightmaps are the column's own where every state keeps the flags that
 * decide them (nearly always between 1.18+ releases), else counted and
 * computed from the view. Before the flattening (1.8-1.12) nearly every
 * section merges states (properties 1.12 lacks) and the spanning or u16
 * layouts repack every section anyway.
 */
#include "java/chunk_era.h"
#include "mcchunk/translate.h"

#include <stdlib.h>
#include <string.h>

/* Sections an era before 1.18 sends: section y 0..15 (the 256-block world). */
#define LEGACY_SECTIONS 16

/* The column as the protocol's registry sees it: the column itself, or a
 * translated view of it. Positions, light, block entities and extra NBT
 * are always the column's own. */
typedef struct enc_col {
    const mc_column *col;
    const mc_registry *reg;   /* the protocol's */
    mc_column_view *view;     /* NULL when the column is in reg */
} enc_col;

static const mc_section *section_or_null(const enc_col *c, int32_t sy)
{
    return c->view ? mc_column_view_section(c->view, sy) : mc_column_section_const(c->col, sy);
}

/* A biome id of the column's registry as the protocol's (2D arrays). */
static uint32_t enc_biome(const enc_col *c, uint32_t b)
{
    return c->view ? mc_column_view_biome(c->view, b) : b;
}

static uint32_t enc_get_biome(const enc_col *c, int32_t cx, int32_t cy, int32_t cz)
{
    const mc_section *s = section_or_null(c, cy >> 2);
    return s ? mc_section_get_biome(s, (unsigned)cx, (unsigned)cy, (unsigned)cz) : 0;
}

/* The column for a protocol's registry `reg`: a view when it is another's
 * (mc_column_view_free(c->view) afterwards). */
static mc_status enc_col_open(enc_col *c, const mc_column *col, const mc_registry *reg, mc_error *err)
{
    c->col = col;
    c->reg = reg;
    c->view = NULL;
    if (mc_column_registry(col) == reg)
        return MC_OK;
    c->view = mc_column_view_new(col, reg, NULL, err);
    if (!c->view)
        return err && err->status != MC_OK ? err->status : MC_ERR_NOMEM;
    return MC_OK;
}

/* ------------------------------------------------------------ helpers */

static void put_longs_native_be(mc_buf *out, const uint64_t *longs, size_t n)
{
    uint8_t *p = mc_buf_extend(out, n * 8);
    if (p)
        mc_bits_store_be(longs, n, p);
}

/* A 1.18+ paletted container (blocks or biomes) as the container holds it. */
static void put_container_modern(mc_buf *out, const mc_container *c, unsigned direct_bits,
                                 bool no_len)
{
    size_t nlongs = 0, plen = 0;
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        mc_buf_put_u8(out, 0);
        mc_buf_put_varint(out, (int32_t)c->value);
        if (!no_len)
            mc_buf_put_u8(out, 0); /* <= 1.21.4: an empty data array */
        return;
    case MC_CONTAINER_INDIRECT: {
        const uint32_t *pal = mc_container_palette(c, &plen);
        const uint64_t *longs = mc_container_longs(c, &nlongs);
        mc_buf_put_u8(out, c->bits);
        mc_buf_put_varint(out, (int32_t)plen);
        for (size_t i = 0; i < plen; i++)
            mc_buf_put_varint(out, (int32_t)pal[i]);
        if (!no_len)
            mc_buf_put_varint(out, (int32_t)nlongs);
        put_longs_native_be(out, longs, nlongs);
        return;
    }
    default: {
        mc_buf_put_u8(out, (uint8_t)direct_bits);
        nlongs = mc_bits_longs(c->rules.size, direct_bits, MC_BITS_PADDED);
        if (!no_len)
            mc_buf_put_varint(out, (int32_t)nlongs);
        if (c->bits == direct_bits) {
            const uint64_t *longs = mc_container_longs(c, &nlongs);
            put_longs_native_be(out, longs, nlongs);
        } else {
            mc_container_write_be_buf(c, direct_bits, MC_BITS_PADDED, MC_WRITE_IDS, out);
        }
        return;
    }
    }
}

/* A 1.9-1.17 block container: bits 4..8 with a palette, or the era's
 * global width. `palette_len_when_direct`: 1.9-1.12 send a 0 length. */
static void put_container_legacy(mc_buf *out, const mc_container *c, const mc__era *e)
{
    const bool direct = c->kind == MC_CONTAINER_DIRECT;
    const unsigned bits = direct ? e->direct_bits : (c->kind == MC_CONTAINER_SINGLE ? 4 : c->bits);
    mc_buf_put_u8(out, (uint8_t)bits);
    if (direct) {
        if (e->kind == MC__ERA_1_9)
            mc_buf_put_u8(out, 0); /* 1.9-1.12: palette length 0 = global palette */
    } else {
        size_t plen;
        const uint32_t *pal = mc_container_palette(c, &plen);
        mc_buf_put_varint(out, (int32_t)plen);
        for (size_t i = 0; i < plen; i++)
            mc_buf_put_varint(out, (int32_t)pal[i]);
    }
    size_t nlongs = mc_bits_longs(MC_SECTION_BLOCKS, bits, e->layout);
    mc_buf_put_varint(out, (int32_t)nlongs);
    if (c->kind == MC_CONTAINER_INDIRECT && e->layout == MC_BITS_PADDED) {
        size_t n;
        const uint64_t *longs = mc_container_longs(c, &n);
        put_longs_native_be(out, longs, n);
    } else if (c->kind == MC_CONTAINER_SINGLE) {
        uint8_t *p = mc_buf_extend(out, nlongs * 8);
        if (p)
            memset(p, 0, nlongs * 8);
    } else {
        mc_container_write_be_buf(c, bits, e->layout, direct ? MC_WRITE_IDS : MC_WRITE_INDICES, out);
    }
}

static void put_light_or(mc_buf *out, const uint8_t *light, uint8_t fill)
{
    uint8_t *p = mc_buf_extend(out, MC_LIGHT_BYTES);
    if (!p)
        return;
    if (light)
        memcpy(p, light, MC_LIGHT_BYTES);
    else
        memset(p, fill, MC_LIGHT_BYTES);
}

/* 2D biomes (x + z*16) for eras before 1.15: the kept array, else the cells
 * at sea level (y 64) of the column. */
static void biomes_2d(const enc_col *c, uint32_t *out)
{
    const mc_column *col = c->col;
    mc_column *m = (mc_column *)col;
    const mc_nbt_tag *xp = mc_column_extra_peek(col);
    if (xp) {
        mc_nbt_tag *t = mc_nbt_get(xp, MC__KEY_BIOMES2D);
        int32_t v[256];
        size_t n = 0;
        if (t && mc_nbt_array_copy_i32(t, v, 256, &n) == MC_OK && n == 256) {
            for (int i = 0; i < 256; i++)
                out[i] = enc_biome(c, (uint32_t)v[i]);
            return;
        }
    }
    /* Anvil 1.8-1.14 chunks keep their 2D array as extra Level.Biomes */
    if (xp || mc_column_extra_deferred(col)) {
        mc_nbt_tag *lv = mc_nbt_get(mc_column_extra(m), "Level");
        mc_nbt_tag *t = lv ? mc_nbt_get(lv, "Biomes") : NULL;
        mc_nbt_array a;
        if (t && mc_nbt_count(t) == 256 &&
            (mc_nbt_get_array(t, MC_NBT_BYTE_ARRAY, &a) == MC_OK || mc_nbt_get_array(t, MC_NBT_INT_ARRAY, &a) == MC_OK)) {
            int32_t v[256];
            size_t n = 0;
            if (a.elem_size == 1) {
                for (int i = 0; i < 256; i++)
                    out[i] = (uint8_t)enc_biome(c, a.data[i]); /* a byte array keeps the low byte */
                return;
            }
            if (mc_nbt_array_copy_i32(t, v, 256, &n) == MC_OK && n == 256) {
                for (int i = 0; i < 256; i++)
                    out[i] = enc_biome(c, (uint32_t)v[i]);
                return;
            }
        }
    }
    int32_t cy = 64 >> 2;
    int32_t lo = mc_column_min_y(col) >> 2, hi = lo + (int32_t)(mc_column_height(col) >> 2);
    if (cy < lo || cy >= hi)
        cy = lo;
    for (int z = 0; z < 16; z++)
        for (int x = 0; x < 16; x++)
            out[x + z * 16] = enc_get_biome(c, x >> 2, cy, z >> 2);
}

/* 3D biome cells of sections 0..n-1 from y 0 (1.15-1.17): index (y<<4)|(z<<2)|x. */
static void biomes_3d(const enc_col *c, int32_t lo, uint32_t nsec, uint32_t *out)
{
    for (uint32_t s = 0; s < nsec; s++) {
        const mc_section *sec = section_or_null(c, lo + (int32_t)s);
        if (sec)
            mc_container_get_all(&sec->biomes, out + s * 64);
        else {
            uint32_t b = enc_get_biome(c, 0, (lo + (int32_t)s) * 4, 0);
            for (int i = 0; i < 64; i++)
                out[s * 64 + i] = b;
        }
    }
}

/* ---------------------------------------------------------- heightmaps */

/* Highest matching y + 1 - (bottom of section lo) for every x + z*16,
 * from the blocks of sections lo .. lo+n-1 (absent ones are air). */
static void compute_heightmap(const enc_col *c, int32_t lo, uint32_t n, mc_heightmap_type type,
                              uint16_t *out)
{
    const mc_registry *reg = c->reg;
    size_t nflags = 0;
    const uint8_t *flags = mc_registry_state_flag_table(reg, &nflags); /* once, not per block */
    memset(out, 0, 256 * sizeof *out);
    bool pending[256];
    memset(pending, 1, sizeof pending);
    unsigned open = 256;
    uint32_t vals[MC_SECTION_BLOCKS];
    for (int64_t si = (int64_t)n - 1; si >= 0 && open; si--) {
        const mc_section *s = section_or_null(c, lo + (int32_t)si);
        if (!s)
            continue;
        if (s->blocks.kind == MC_CONTAINER_SINGLE) {
            if (!mc_heightmap_matches(type, mc_registry_state_flags(reg, s->blocks.value)))
                continue;
            for (int xz = 0; xz < 256; xz++)
                if (pending[xz]) {
                    out[xz] = (uint16_t)(si * 16 + 16);
                    pending[xz] = false;
                }
            open = 0;
            break;
        }
        mc_container_get_all(&s->blocks, vals);
        for (int y = 15; y >= 0 && open; y--)
            for (int xz = 0; xz < 256; xz++) {
                if (!pending[xz])
                    continue;
                uint32_t st = vals[(y << 8) | xz];
                uint32_t f = flags ? (st < nflags ? flags[st] : 0) : mc_registry_state_flags(reg, st);
                if (mc_heightmap_matches(type, f)) {
                    out[xz] = (uint16_t)(si * 16 + y + 1);
                    pending[xz] = false;
                    open--;
                }
            }
    }
}

/* The heightmap's longs over sections lo .. lo+n-1, big-endian, into dst
 * (8*nlongs bytes): the column's own map when it covers exactly that
 * range, else computed from the blocks. */
static void heightmap_be(const enc_col *c, int32_t lo, uint32_t n, mc_heightmap_type type,
                         mc_bits_layout layout, uint8_t *dst)
{
    const mc_column *col = c->col;
    if ((!c->view || mc_column_view_heightmaps_kept(c->view)) &&
        lo == mc_column_min_section(col) && n == mc_column_section_count(col) &&
        mc_column_has_heightmap(col, type) &&
        mc_column_heightmap_write_be(col, type, layout, dst) == MC_OK)
        return;
    uint16_t vals[256];
    compute_heightmap(c, lo, n, type, vals);
    mc_bits_pack_be_u16(vals, 256, mc_bits_ceil_log2((uint64_t)n * 16 + 1), layout, dst);
}

static void put_nbt_name(mc_buf *out, const mc__era *e)
{
    if (!e->nameless_nbt) {
        mc_buf_put_u8(out, 0); /* named root "" before 1.20.2 */
        mc_buf_put_u8(out, 0);
    }
}

static void put_heightmaps(mc_buf *out, const mc__era *e, const enc_col *c)
{
    const mc_column *col = c->col;
    const mc_bits_layout layout = e->kind >= MC__ERA_1_16 ? MC_BITS_PADDED : MC_BITS_SPANNING;
    int32_t lo;
    uint32_t nsec;
    mc__era_window(e, col, &lo, &nsec);
    const unsigned bits = mc_bits_ceil_log2((uint64_t)nsec * 16 + 1);
    const size_t nlongs = mc_bits_longs(256, bits, layout);
    if (e->heightmap_array) {
        /* 1.21.5+: [{type varint, long[]}]; the client maps are WORLD_SURFACE,
         * MOTION_BLOCKING and MOTION_BLOCKING_NO_LEAVES. */
        static const mc_heightmap_type types[3] = {MC_HEIGHTMAP_WORLD_SURFACE,
                                                   MC_HEIGHTMAP_MOTION_BLOCKING,
                                                   MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES};
        mc_buf_put_u8(out, 3);
        for (int i = 0; i < 3; i++) {
            mc_buf_put_u8(out, (uint8_t)types[i]);
            mc_buf_put_varint(out, (int32_t)nlongs);
            uint8_t *p = mc_buf_extend(out, nlongs * 8);
            if (p)
                heightmap_be(c, lo, nsec, types[i], layout, p);
        }
        return;
    }
    /* 1.14-1.21.4: an NBT compound; vanilla's HashMap puts MOTION_BLOCKING first. */
    static const mc_heightmap_type types[2] = {MC_HEIGHTMAP_MOTION_BLOCKING,
                                               MC_HEIGHTMAP_WORLD_SURFACE};
    mc_buf_put_u8(out, MC_NBT_COMPOUND);
    put_nbt_name(out, e);
    for (int i = 0; i < 2; i++) {
        const char *name = mc_heightmap_name(types[i]);
        mc_buf_put_u8(out, MC_NBT_LONG_ARRAY);
        mc_buf_put_str_u16be(out, name, strlen(name));
        mc_buf_put_u32be(out, (uint32_t)nlongs);
        uint8_t *p = mc_buf_extend(out, nlongs * 8);
        if (p)
            heightmap_be(c, lo, nsec, types[i], layout, p);
    }
    mc_buf_put_u8(out, MC_NBT_END);
}

/* ------------------------------------------------------ block entities */

static bool key_is(const char *k, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(k, s, n) == 0;
}

static bool has_key(const mc_nbt_tag *t, const char *key)
{
    return mc_nbt_get(t, key) != NULL;
}

/* Children of a compound, minus the keys the packet form carries elsewhere. */
static mc_status put_children(mc_buf *out, const mc_nbt_tag *tag, bool strip_position)
{
    for (mc_nbt_tag *c = mc_nbt_first(tag); c; c = mc_nbt_next(c)) {
        size_t klen;
        const char *key = mc_nbt_tag_key(c, &klen);
        if (key_is(key, klen, MC__KEY_BE_TYPE))
            continue;
        if (strip_position && (key_is(key, klen, "x") || key_is(key, klen, "y") ||
                               key_is(key, klen, "z") || key_is(key, klen, "id") ||
                               key_is(key, klen, "keepPacked")))
            continue;
        mc_status st = mc_nbt_write_tag(c, key, klen, MC_NBT_JAVA, out, NULL);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

static size_t count_children(const mc_nbt_tag *tag)
{
    size_t n = 0;
    for (mc_nbt_tag *c = mc_nbt_first(tag); c; c = mc_nbt_next(c)) {
        size_t klen;
        const char *key = mc_nbt_tag_key(c, &klen);
        if (!(key_is(key, klen, "x") || key_is(key, klen, "y") || key_is(key, klen, "z") ||
              key_is(key, klen, "id") || key_is(key, klen, "keepPacked") ||
              key_is(key, klen, MC__KEY_BE_TYPE)))
            n++;
    }
    return n;
}

static void put_int_tag(mc_buf *out, const char *name, int32_t v)
{
    mc_buf_put_u8(out, MC_NBT_INT);
    mc_buf_put_str_u16be(out, name, strlen(name));
    mc_buf_put_u32be(out, (uint32_t)v);
}

static int be_type_of(const mc__era *e, const mc_nbt_tag *tag)
{
    const char *id;
    size_t len;
    mc_nbt_tag *t = mc_nbt_get(tag, "id");
    if (t && mc_nbt_get_string(t, &id, &len) == MC_OK) {
        int v = mc__be_type_id(e->protocol, id, len);
        if (v >= 0)
            return v;
    }
    int32_t v;
    t = mc_nbt_get(tag, MC__KEY_BE_TYPE);
    if (t && mc_nbt_get_int(t, &v) == MC_OK && v >= 0)
        return v;
    return -1;
}

/* The block entities the protocol sees: the column's, or the view's
 * (translated to the protocol's version, translate.h). */
static size_t enc_be_count(const enc_col *c)
{
    return c->view ? mc_column_view_block_entity_count(c->view) : mc_column_block_entity_count(c->col);
}

static const mc_nbt_tag *enc_be_at(const enc_col *c, size_t i, int32_t *x, int32_t *y, int32_t *z)
{
    return c->view ? mc_column_view_block_entity_at(c->view, i, x, y, z)
                   : mc_column_block_entity_at(c->col, i, x, y, z);
}

static mc_status put_block_entities(mc_buf *out, const mc__era *e, const enc_col *c, int32_t min_y,
                                    int32_t max_y)
{
    const mc_column *col = c->col;
    const size_t n = enc_be_count(c);
    /* Only those inside the sent height (and, 1.18+, with a known type). */
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *t = enc_be_at(c, i, &x, &y, &z);
        if (y >= min_y && y < max_y && mc_nbt_tag_type(t) == MC_NBT_COMPOUND &&
            (e->kind < MC__ERA_1_18 || be_type_of(e, t) >= 0))
            cnt++;
    }
    mc_buf_put_varint(out, (int32_t)cnt);
    const int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), /* wraps: chunk x from input may be huge */
        bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    for (size_t i = 0; i < n; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *t = enc_be_at(c, i, &x, &y, &z);
        if (!(y >= min_y && y < max_y && mc_nbt_tag_type(t) == MC_NBT_COMPOUND))
            continue;
        mc_status st;
        if (e->kind >= MC__ERA_1_18) {
            int type = be_type_of(e, t);
            if (type < 0)
                continue;
            mc_buf_put_u8(out, (uint8_t)(((x & 15) << 4) | (z & 15)));
            mc_buf_put_u16be(out, (uint16_t)(int16_t)y);
            mc_buf_put_varint(out, type);
            if (!count_children(t)) {
                mc_buf_put_u8(out, MC_NBT_END); /* vanilla: no update tag */
                continue;
            }
            mc_buf_put_u8(out, MC_NBT_COMPOUND);
            put_nbt_name(out, e);
            st = put_children(out, t, true);
            mc_buf_put_u8(out, MC_NBT_END);
        } else {
            /* 1.9.4-1.17: the whole compound with id, x, y, z (absolute). */
            mc_buf_put_u8(out, MC_NBT_COMPOUND);
            put_nbt_name(out, e);
            st = put_children(out, t, false);
            if (!has_key(t, "x"))
                put_int_tag(out, "x", bx + (x & 15));
            if (!has_key(t, "y"))
                put_int_tag(out, "y", y);
            if (!has_key(t, "z"))
                put_int_tag(out, "z", bz + (z & 15));
            mc_buf_put_u8(out, MC_NBT_END);
        }
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

/* ---------------------------------------------------------- data size */

/* Starts the size-prefixed data: leaves a 3-byte gap and returns where. */
static size_t begin_sized(mc_buf *out)
{
    size_t at = out->len;
    uint8_t *p = mc_buf_extend(out, 3);
    (void)p;
    return at;
}

/* Writes the size varint into the gap, closing it up. */
static void end_sized(mc_buf *out, size_t at)
{
    if (!mc_buf_ok(out))
        return;
    size_t size = out->len - at - 3;
    uint8_t tmp[5];
    size_t n = 0;
    uint32_t v = (uint32_t)size;
    do {
        uint8_t b = v & 0x7F;
        v >>= 7;
        tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    if (n > 3) {
        if (!mc_buf_extend(out, n - 3))
            return;
        memmove(out->data + at + n, out->data + at + 3, size);
    } else if (n < 3) {
        memmove(out->data + at + n, out->data + at + 3, size);
        out->len -= 3 - n;
    }
    memcpy(out->data + at, tmp, n);
}

/* ------------------------------------------------------------- eras */

/* The mask of the sections lo .. lo+n-1 (n <= 64) vanilla sends (not only
 * air), and their block counts into counts[] when not NULL: each section is
 * counted once per encode (a column read by a codec counts on demand). */
static uint64_t window_mask(const enc_col *col, int32_t lo, uint32_t n, uint16_t *counts)
{
    const mc_registry *reg = col->reg;
    uint64_t mask = 0;
    for (uint32_t i = 0; i < n && i < 64; i++) {
        const mc_section *s = section_or_null(col, lo + (int32_t)i);
        const unsigned c = s ? mc_section_block_count(s, reg) : 0;
        if (counts)
            counts[i] = (uint16_t)c;
        if (c)
            mask |= 1ull << i;
    }
    return mask;
}

static uint64_t legacy_mask(const enc_col *col)
{
    return window_mask(col, 0, LEGACY_SECTIONS, NULL);
}

/* Whether a sent section of the 256-block world (mask over sections
 * 0..15) has sky light. */
static bool column_has_sky(const enc_col *col, uint64_t mask)
{
    for (int32_t sy = 0; sy < LEGACY_SECTIONS; sy++) {
        const mc_section *s = section_or_null(col, sy);
        if (((mask >> sy) & 1) && s->sky_light)
            return true;
    }
    return false;
}

/* The 1.8 column data: blocks (u16le) of each present section, block light,
 * sky light (when `sky`), then 256 biome bytes. */
static void put_data_1_8(mc_buf *out, const enc_col *col, uint64_t mask, bool sky, bool biomes)
{
    uint32_t vals[MC_SECTION_BLOCKS];
    for (int32_t sy = 0; sy < LEGACY_SECTIONS; sy++) {
        if (!((mask >> sy) & 1))
            continue;
        const mc_section *s = section_or_null(col, sy);
        mc_container_get_all(&s->blocks, vals);
        uint8_t *p = mc_buf_extend(out, MC_SECTION_BLOCKS * 2);
        if (!p)
            return;
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++)
            mc_store_u16le(p + 2 * i, (uint16_t)vals[i]); /* 1.8: u16 little-endian id<<4|meta */
    }
    for (int32_t sy = 0; sy < LEGACY_SECTIONS; sy++)
        if ((mask >> sy) & 1)
            put_light_or(out, section_or_null(col, sy)->block_light, 0);
    if (sky)
        for (int32_t sy = 0; sy < LEGACY_SECTIONS; sy++)
            if ((mask >> sy) & 1)
                put_light_or(out, section_or_null(col, sy)->sky_light, 0xFF);
    if (biomes) {
        uint32_t b[256];
        biomes_2d(col, b);
        uint8_t *p = mc_buf_extend(out, 256);
        if (p)
            for (int i = 0; i < 256; i++)
                p[i] = (uint8_t)b[i];
    }
}

static mc_status encode_1_8(mc_buf *out, const mc__era *e, const enc_col *c)
{
    (void)e;
    const enc_col *col = c;
    uint64_t mask = legacy_mask(col);
    mc_buf_put_u32be(out, (uint32_t)mc_column_x(c->col));
    mc_buf_put_u32be(out, (uint32_t)mc_column_z(c->col));
    mc_buf_put_u8(out, 1); /* ground-up */
    mc_buf_put_u16be(out, (uint16_t)mask);
    size_t at = begin_sized(out);
    put_data_1_8(out, col, mask, column_has_sky(col, mask), true);
    end_sized(out, at);
    return MC_OK;
}

/* 1.9-1.17: masked sections in the era's container form. */
static mc_status encode_masked(mc_buf *out, const mc__era *e, const enc_col *c)
{
    const mc_column *col = c->col;
    int32_t lo;
    uint32_t nsec;
    mc__era_window(e, col, &lo, &nsec);
    uint16_t counts[64];
    const uint64_t mask = window_mask(c, lo, nsec, counts);
    const bool sky = e->kind <= MC__ERA_1_13 && column_has_sky(c, mask); /* lo 0, 16 sections */
    mc_buf_put_u32be(out, (uint32_t)mc_column_x(col));
    mc_buf_put_u32be(out, (uint32_t)mc_column_z(col));
    if (e->kind < MC__ERA_1_17)
        mc_buf_put_u8(out, 1); /* ground-up / full chunk */
    if (e->ignore_old_data)
        mc_buf_put_u8(out, 1); /* 1.16-1.16.1: ignoreOldData, true for full chunks */
    if (e->kind == MC__ERA_1_17) {
        mc_buf_put_varint(out, mask ? 1 : 0); /* 1.17: BitSet (one long here) */
        if (mask)
            mc_buf_put_u64be(out, mask);
    } else {
        mc_buf_put_varint(out, (int32_t)mask);
    }
    if (e->kind >= MC__ERA_1_14)
        put_heightmaps(out, e, c);
    if (e->kind >= MC__ERA_1_15) {
        uint32_t b[64 * 64];
        const uint32_t nb = nsec * 64; /* 1024 for the 256-block world */
        biomes_3d(c, lo, nsec, b);
        if (e->varint_biomes) {
            mc_buf_put_varint(out, (int32_t)nb);
            for (uint32_t i = 0; i < nb; i++)
                mc_buf_put_varint(out, (int32_t)b[i]);
        } else {
            for (uint32_t i = 0; i < nb; i++)
                mc_buf_put_u32be(out, b[i]);
        }
    }
    size_t at = begin_sized(out);
    for (uint32_t i = 0; i < nsec; i++) {
        if (!((mask >> i) & 1))
            continue;
        const mc_section *s = section_or_null(c, lo + (int32_t)i);
        if (e->kind >= MC__ERA_1_14)
            mc_buf_put_u16be(out, counts[i]);
        put_container_legacy(out, &s->blocks, e);
        if (e->kind <= MC__ERA_1_13) {
            put_light_or(out, s->block_light, 0);
            if (sky)
                put_light_or(out, s->sky_light, 0xFF);
        }
    }
    if (e->kind <= MC__ERA_1_14) {
        uint32_t b[256];
        biomes_2d(c, b);
        if (e->kind == MC__ERA_1_9) {
            uint8_t *p = mc_buf_extend(out, 256);
            if (p)
                for (int i = 0; i < 256; i++)
                    p[i] = (uint8_t)b[i];
        } else {
            for (int i = 0; i < 256; i++)
                mc_buf_put_u32be(out, b[i]); /* 1.13-1.14: int[256] */
        }
    }
    end_sized(out, at);
    if (e->block_entities)
        return put_block_entities(out, e, c, lo * 16, (lo + (int32_t)nsec) * 16);
    return MC_OK;
}

/* 1.18+: every section of the column; light in the packet. */
static mc_status encode_modern(mc_buf *out, const mc__era *e, const enc_col *c)
{
    const mc_column *col = c->col;
    mc_buf_put_u32be(out, (uint32_t)mc_column_x(col));
    mc_buf_put_u32be(out, (uint32_t)mc_column_z(col));
    put_heightmaps(out, e, c);
    const uint32_t n = mc_column_section_count(col);
    const int32_t min = mc_column_min_section(col);
    const mc_registry *reg = c->reg;
    size_t slack = 0;
    size_t at = begin_sized(out);
    for (uint32_t i = 0; i < n; i++) {
        const mc_section *s = section_or_null(c, min + (int32_t)i);
        unsigned blocks, fluids;
        mc_section_counts(s, reg, &blocks, e->fluid_count ? &fluids : NULL);
        mc_buf_put_u16be(out, (uint16_t)blocks);
        if (e->fluid_count)
            mc_buf_put_u16be(out, (uint16_t)fluids); /* 26.1 */
        put_container_modern(out, &s->blocks, e->direct_bits, e->no_data_length);
        put_container_modern(out, &s->biomes, e->biome_bits, e->no_data_length);
        slack += e->size_slack && s->blocks.kind == MC_CONTAINER_SINGLE;
    }
    if (slack) {
        uint8_t *p = mc_buf_extend(out, slack); /* vanilla's over-counted size, zero-filled */
        if (p)
            memset(p, 0, slack);
    }
    end_sized(out, at);
    mc_status st = put_block_entities(out, e, c, mc_column_min_y(col),
                                      mc_column_min_y(col) + (int32_t)mc_column_height(col));
    if (st != MC_OK)
        return st;
    if (e->trust_edges)
        mc_buf_put_u8(out, 1); /* 1.18-1.19.4: trustEdges */
    mc__write_light(out, e, col);
    return MC_OK;
}

/* Chunk Data (and Update Light) of an opened column. */
static mc_status encode_chunk_of(const mc__era *ep, const enc_col *cp, uint32_t protocol, mc_buf *out,
                                 mc_buf *light_out, mc_error *err)
{
    const mc__era e = *ep;
    const enc_col c = *cp;
    const mc_column *col = c.col;
    mc_status st;
    const int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "map_chunk");
    const size_t start = out->len, lstart = light_out ? light_out->len : 0;
    mc_buf_put_varint(out, id);
    switch (e.kind) {
    case MC__ERA_1_8:
        st = encode_1_8(out, &e, &c);
        break;
    case MC__ERA_1_18:
        st = encode_modern(out, &e, &c);
        break;
    default:
        st = encode_masked(out, &e, &c);
        break;
    }
    if (st == MC_OK && light_out && e.kind >= MC__ERA_1_14 && e.kind <= MC__ERA_1_17)
        st = mc_java_encode_update_light(col, protocol, light_out, err);
    if (st == MC_OK && (!mc_buf_ok(out) || (light_out && !mc_buf_ok(light_out))))
        st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: out of memory");
    else if (st != MC_OK && (!err || err->status == MC_OK))
        mc_error_set(err, st, SIZE_MAX, "java chunk: %s", mc_status_name(st));
    if (st != MC_OK) {
        out->len = start;
        if (light_out)
            light_out->len = lstart;
    }
    return st;
}

mc_status mc_java_encode_chunk(const mc_column *col, uint32_t protocol, mc_buf *out,
                               mc_buf *light_out, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    if (!col || !out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "java chunk: NULL argument");
    enc_col c;
    st = enc_col_open(&c, col, e.reg, err);
    if (st != MC_OK)
        return st;
    st = encode_chunk_of(&e, &c, protocol, out, light_out, err);
    mc_column_view_free(c.view);
    return st;
}

/* ------------------------------------ block entities before 1.9.4 */

/* How a 1.8-1.9.2 server sends a block entity after the chunk: Update
 * Block Entity's action (1 spawner, 2 command block, 3 beacon, 4 skull,
 * 5 flower pot, 6 banner; 1.9: 7 structure block, 8 end gateway), 0 for
 * kinds it does not send (chests, furnaces...: the client needs nothing),
 * -1 for a sign (Update Sign). By the id of 1.8-1.10 (no namespace
 * before 1.11; vanilla's TileEntity*.getDescriptionPacket, wiki.vg). */
static int legacy_be_action(const mc_nbt_tag *be, uint32_t protocol)
{
    static const struct {
        const char *id;
        int action;
        uint32_t since;
    } kinds[] = {{"Sign", -1, 47},     {"MobSpawner", 1, 47}, {"Control", 2, 47},       {"Beacon", 3, 47},
                 {"Skull", 4, 47},     {"FlowerPot", 5, 47},  {"Banner", 6, 47},        {"Structure", 7, 107},
                 {"EndGateway", 8, 107}};
    const char *id;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(be, "id"), &id, &n) != MC_OK)
        return 0;
    if (n > 10 && !memcmp(id, "minecraft:", 10))
        id += 10, n -= 10;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (protocol >= kinds[i].since && strlen(kinds[i].id) == n && !memcmp(kinds[i].id, id, n))
            return kinds[i].action;
    return 0;
}

/* A block position as 1.8-1.13 packets write it (x 26 bits, y 12, z 26). */
static void put_position_legacy(mc_buf *out, int32_t x, int32_t y, int32_t z)
{
    mc_buf_put_u64be(out, ((uint64_t)((uint32_t)x & 0x3FFFFFFu) << 38) | ((uint64_t)((uint32_t)y & 0xFFFu) << 26) |
                              ((uint32_t)z & 0x3FFFFFFu));
}

/* Update Sign: the four lines (JSON text; "" when absent, as vanilla 1.8
 * writes an empty line). */
static void put_update_sign(mc_buf *out, int id, const mc_nbt_tag *be, int32_t x, int32_t y, int32_t z)
{
    mc_buf_put_varint(out, id);
    put_position_legacy(out, x, y, z);
    static const char *const keys[] = {"Text1", "Text2", "Text3", "Text4"};
    for (int i = 0; i < 4; i++) {
        const char *s;
        size_t n;
        if (mc_nbt_get_string(mc_nbt_get(be, keys[i]), &s, &n) != MC_OK)
            s = "\"\"", n = 2;
        mc_buf_put_str_varint(out, s, n);
    }
}

/* Update Block Entity: position, action, the whole compound (with x, y, z
 * as the game's writeToNBT has them). */
static mc_status put_update_block_entity(mc_buf *out, int id, int action, const mc_nbt_tag *be, int32_t x,
                                         int32_t y, int32_t z)
{
    mc_buf_put_varint(out, id);
    put_position_legacy(out, x, y, z);
    mc_buf_put_u8(out, (uint8_t)action);
    mc_buf_put_u8(out, MC_NBT_COMPOUND);
    mc_buf_put_u16be(out, 0); /* the root's name, "" */
    mc_status st = put_children(out, be, false);
    if (!has_key(be, "x"))
        put_int_tag(out, "x", x);
    if (!has_key(be, "y"))
        put_int_tag(out, "y", y);
    if (!has_key(be, "z"))
        put_int_tag(out, "z", z);
    mc_buf_put_u8(out, MC_NBT_END);
    return st;
}

/* The block entity packets of an opened column for 1.8-1.9.2, each to emit. */
static mc_status emit_legacy_block_entities(const enc_col *c, uint32_t protocol, mc_java_packet_fn emit,
                                            void *user, mc_buf *buf, mc_error *err)
{
    const int sign_id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "update_sign");
    const int data_id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "tile_entity_data");
    if (sign_id < 0 || data_id < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "java chunk: protocol %u has no update_sign",
                            protocol);
    const size_t n = enc_be_count(c);
    for (size_t i = 0; i < n; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *be = enc_be_at(c, i, &x, &y, &z);
        if (y < 0 || y >= LEGACY_SECTIONS * 16 || mc_nbt_tag_type(be) != MC_NBT_COMPOUND)
            continue;
        const int action = legacy_be_action(be, protocol);
        if (!action)
            continue;
        buf->len = 0;
        mc_status st = MC_OK;
        if (action < 0)
            put_update_sign(buf, sign_id, be, x, y, z);
        else
            st = put_update_block_entity(buf, data_id, action, be, x, y, z);
        if (st == MC_OK && !mc_buf_ok(buf))
            st = MC_ERR_NOMEM;
        if (st == MC_OK)
            st = emit(user, buf->data, buf->len);
        if (st != MC_OK)
            return mc_error_set(err, st, SIZE_MAX, "java chunk: block entity at %d %d %d: %s", (int)x, (int)y,
                                (int)z, mc_status_name(st));
    }
    return MC_OK;
}

mc_status mc_java_encode_column_packets(const mc_column *col, uint32_t protocol, mc_java_packet_fn emit,
                                        void *user, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    if (!col || !emit)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "java chunk: NULL argument");
    enc_col c;
    st = enc_col_open(&c, col, e.reg, err);
    if (st != MC_OK)
        return st;
    mc_buf chunk, light;
    mc_buf_init(&chunk, NULL);
    mc_buf_init(&light, NULL);
    st = encode_chunk_of(&e, &c, protocol, &chunk, &light, err);
    if (st == MC_OK && (st = emit(user, chunk.data, chunk.len)) == MC_OK && light.len)
        st = emit(user, light.data, light.len);
    if (st != MC_OK && (!err || err->status == MC_OK))
        mc_error_set(err, st, SIZE_MAX, "java chunk: %s", mc_status_name(st));
    if (st == MC_OK && !e.block_entities) /* 1.8-1.9.2: after the chunk */
        st = emit_legacy_block_entities(&c, protocol, emit, user, &chunk, err);
    mc_buf_free(&chunk);
    mc_buf_free(&light);
    mc_column_view_free(c.view);
    return st;
}

/* ------------------------------------------------- the small packets */

mc_status mc_java_encode_unload(int32_t x, int32_t z, uint32_t protocol, mc_buf *out, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    if (e.kind == MC__ERA_1_8) {
        /* 1.8: Chunk Data, ground-up with an empty mask (and 256 biome bytes). */
        mc_buf_put_varint(out, mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "map_chunk"));
        mc_buf_put_u32be(out, (uint32_t)x);
        mc_buf_put_u32be(out, (uint32_t)z);
        mc_buf_put_u8(out, 1);
        mc_buf_put_u16be(out, 0);
        mc_buf_put_varint(out, 256);
        uint8_t *p = mc_buf_extend(out, 256);
        if (p)
            memset(p, 0, 256);
    } else {
        int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "unload_chunk");
        if (id < 0)
            return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                                "java chunk: protocol %u has no unload_chunk", protocol);
        mc_buf_put_varint(out, id);
        if (protocol >= 764) { /* 1.20.2: ChunkPos as z then x */
            mc_buf_put_u32be(out, (uint32_t)z);
            mc_buf_put_u32be(out, (uint32_t)x);
        } else {
            mc_buf_put_u32be(out, (uint32_t)x);
            mc_buf_put_u32be(out, (uint32_t)z);
        }
    }
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: out of memory");
}

static mc_status batch_packet(uint32_t protocol, const char *name, mc_buf *out, mc_error *err)
{
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, name);
    if (id < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java chunk: protocol %u has no %s (1.20.2+)", protocol, name);
    mc_buf_put_varint(out, id);
    return MC_OK;
}

mc_status mc_java_encode_batch_start(uint32_t protocol, mc_buf *out, mc_error *err)
{
    mc_status st = batch_packet(protocol, "chunk_batch_start", out, err);
    return st == MC_OK && !mc_buf_ok(out) ? MC_ERR_NOMEM : st;
}

mc_status mc_java_encode_batch_finished(uint32_t protocol, int32_t batch_size, mc_buf *out,
                                        mc_error *err)
{
    mc_status st = batch_packet(protocol, "chunk_batch_finished", out, err);
    if (st == MC_OK)
        mc_buf_put_varint(out, batch_size);
    return st == MC_OK && !mc_buf_ok(out) ? MC_ERR_NOMEM : st;
}

mc_status mc_java_encode_chunk_bulk(const mc_column *const *cols, size_t n, uint32_t protocol,
                                    bool sky, mc_buf *out, mc_error *err)
{
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "map_chunk_bulk");
    if (protocol != 47 || id < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java chunk: Map Chunk Bulk is a 1.8 packet");
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    const size_t start = out->len;
    enc_col *cs = calloc(n ? n : 1, sizeof *cs);
    uint64_t *masks = calloc(n ? n : 1, sizeof *masks); /* one count of each section */
    if (!cs || !masks) {
        free(cs);
        free(masks);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: out of memory");
    }
    for (size_t i = 0; i < n && st == MC_OK; i++)
        st = enc_col_open(&cs[i], cols[i], e.reg, err);
    if (st == MC_OK) {
        mc_buf_put_varint(out, id);
        mc_buf_put_u8(out, sky ? 1 : 0);
        mc_buf_put_varint(out, (int32_t)n);
        for (size_t i = 0; i < n; i++) {
            mc_buf_put_u32be(out, (uint32_t)mc_column_x(cols[i]));
            mc_buf_put_u32be(out, (uint32_t)mc_column_z(cols[i]));
            masks[i] = legacy_mask(&cs[i]);
            mc_buf_put_u16be(out, (uint16_t)masks[i]);
        }
        for (size_t i = 0; i < n; i++)
            put_data_1_8(out, &cs[i], masks[i], sky, true);
        if (!mc_buf_ok(out))
            st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        mc_column_view_free(cs[i].view);
    free(cs);
    free(masks);
    if (st != MC_OK)
        out->len = start;
    return st;
}

mc_status mc_java_encode_chunk_biomes(const mc_column *const *cols, size_t n, uint32_t protocol,
                                      mc_buf *out, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "chunk_biomes");
    if (id < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java chunk: protocol %u has no chunk_biomes (1.19.4+)", protocol);
    const size_t start = out->len;
    mc_buf_put_varint(out, id);
    mc_buf_put_varint(out, (int32_t)n);
    for (size_t i = 0; i < n && st == MC_OK; i++) {
        const mc_column *c = cols[i];
        enc_col ec;
        if ((st = enc_col_open(&ec, c, e.reg, err)) != MC_OK)
            break;
        /* ChunkPos as a long: x in the low half, z in the high half (z then x). */
        mc_buf_put_u32be(out, (uint32_t)mc_column_z(c));
        mc_buf_put_u32be(out, (uint32_t)mc_column_x(c));
        size_t at = begin_sized(out);
        for (uint32_t s = 0; s < mc_column_section_count(c); s++)
            put_container_modern(out, &section_or_null(&ec, mc_column_min_section(c) + (int32_t)s)->biomes,
                                 e.biome_bits, e.no_data_length);
        end_sized(out, at);
        mc_column_view_free(ec.view);
    }
    if (st == MC_OK && !mc_buf_ok(out))
        st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: out of memory");
    if (st != MC_OK)
        out->len = start;
    return st;
}
