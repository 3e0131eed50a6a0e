/*
 * chunk_decode.c: Chunk Data packet bytes -> mc_column, for every protocol
 * era from 1.8 to 26.1, plus Map Chunk Bulk, Chunk Biomes and Unload Chunk.
 *
 * Everything is read through a bounded mc_reader; the section data is read
 * through a second reader bounded by the packet's size field, so a lying
 * size cannot make a section read past it, and offsets in messages are
 * offsets in the whole packet.
 *
 * Sections are decoded into a scratch array first and moved into the column
 * once their number is known (1.18+ packets do not say how many there are;
 * the dimension does). Two modes (mcchunk/java.h): strict, which refuses
 * what the vanilla server never writes, and lenient, which accepts what the
 * vanilla client accepts and ends up with what the client would show.
 */
#include "java/chunk_era.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SECTIONS 256

typedef struct dec {
    const mc__era *e;
    const uint8_t *flags; /* the registry's flag table (NULL: ask per id) */
    size_t nflags;
    bool strict;
    const mc_allocator *alloc;
    mc_error *err;
} dec;

/* ------------------------------------------------------- containers */

/* Reads one paletted container of `rules` into c. `biomes`: biome rules
 * (1-3 exact; ids checked against the biome registry). */
static mc_status read_container(mc_reader *r, const dec *d, mc_container *c,
                                const mc_container_rules *rules, bool biomes)
{
    const mc__era *e = d->e;
    const mc_registry *reg = e->reg;
    const bool modern = e->kind >= MC__ERA_1_18;
    const char *what = biomes ? "biome" : "block";
    const size_t bits_at = r->pos;
    unsigned bits = mc_read_u8(r);
    if (!mc_reader_ok(r))
        return r->status;
    unsigned client_bits; /* the width the client stores the data at */
    bool direct = false, single = false;
    if (bits == 0 && modern) {
        single = true;
        client_bits = 0;
    } else if (bits <= rules->max_indirect_bits) {
        if (bits < rules->min_indirect_bits || bits == 0) {
            if (d->strict)
                return mc_reader_fail_at(r, bits_at, MC_ERR_MALFORMED,
                                         "%s palette at %u bits (vanilla: %u-%u)", what,
                                         bits, rules->min_indirect_bits, rules->max_indirect_bits);
            client_bits = rules->min_indirect_bits;
        } else {
            client_bits = bits;
        }
    } else {
        direct = true;
        const unsigned want = biomes ? e->biome_bits : e->direct_bits;
        if (bits != want && d->strict)
            return mc_reader_fail_at(r, bits_at, MC_ERR_MALFORMED,
                                     "%s global palette at %u bits (vanilla: %u)", what,
                                     bits, want);
        client_bits = want; /* the client ignores the sent width */
    }
    uint32_t palette[256];
    size_t plen = 0;
    if (single) {
        size_t at = r->pos;
        int32_t v = mc_read_varint(r);
        if (!mc_reader_ok(r))
            return r->status;
        palette[0] = (uint32_t)v;
        plen = 1;
        (void)at;
    } else if (!direct || e->kind == MC__ERA_1_9) {
        /* 1.9-1.12 send a palette length even for the global palette (0). */
        size_t at = r->pos;
        int32_t n = mc_read_varint(r);
        if (!mc_reader_ok(r))
            return r->status;
        if (direct) {
            if (n != 0 && d->strict)
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                                         "palette length %d with the global palette", n);
            for (int32_t i = 0; i < n && mc_reader_ok(r); i++)
                (void)mc_read_varint(r);
            if (n < 0 || n > 4096)
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "palette length %d", n);
        } else {
            if (n <= 0 || (uint32_t)n > (1u << client_bits) || n > 256)
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                                         "%s palette length %d at %u bits", what, n,
                                         client_bits);
            plen = (size_t)n;
            size_t i = 0;
            /* Entries of 1-2 bytes (every id below 16384) inline while 5
             * bytes stay in bounds; anything else the checked way. */
            if (r->status == MC_OK && r->pos <= r->len) {
                const uint8_t *p = r->data + r->pos, *end = r->data + r->len;
                for (; i < plen && end - p >= 5; i++) {
                    if (!(p[0] & 0x80)) {
                        palette[i] = p[0];
                        p += 1;
                    } else if (!(p[1] & 0x80)) {
                        palette[i] = (p[0] & 0x7Fu) | (uint32_t)p[1] << 7;
                        p += 2;
                    } else {
                        break;
                    }
                }
                r->pos = (size_t)(p - r->data);
            }
            for (; i < plen; i++)
                palette[i] = (uint32_t)mc_read_varint(r);
        }
        if (!mc_reader_ok(r))
            return r->status;
    }
    if (d->strict) {
        for (size_t i = 0; i < plen; i++) {
            bool ok = biomes ? palette[i] < mc_registry_biome_count(reg)
                      : e->kind == MC__ERA_1_8 || e->kind == MC__ERA_1_9 ? palette[i] < 4096
                      : d->flags ? palette[i] < d->nflags && (d->flags[palette[i]] & MC_STATE_VALID)
                                 : mc_registry_state_valid(reg, palette[i]);
            if (!ok)
                return mc_reader_fail_at(r, bits_at, MC_ERR_MALFORMED,
                                         "%s palette entry %zu is %u, not in the registry",
                                         what, i, palette[i]);
        }
    }
    const mc_bits_layout layout = e->layout;
    const size_t expect = mc_bits_longs(rules->size, client_bits, layout);
    size_t nlongs = expect;
    const size_t len_at = r->pos;
    if (!e->no_data_length) {
        int32_t n = mc_read_varint(r);
        if (!mc_reader_ok(r))
            return r->status;
        if (n < 0 || (size_t)n > mc_reader_remaining(r) / 8)
            return mc_reader_fail_at(r, len_at, MC_ERR_MALFORMED,
                                     "%s data array length %d exceeds the data", what, n);
        nlongs = (size_t)n;
    }
    const uint8_t *be = mc_read_bytes(r, nlongs * 8, "data array");
    if (!be)
        return r->status;
    if (single && nlongs == 0) {
        /* the common empty section: no longs, nothing to check */
        mc_container_init(c, rules, palette[0], d->alloc);
        return MC_OK;
    }
    mc_error local;
    mc_error_clear(&local);
    if (nlongs != expect || (single && nlongs != 0)) {
        if (d->strict)
            return mc_reader_fail_at(r, len_at, MC_ERR_MALFORMED,
                                     "%s data array length %zu, %u bits need %zu", what,
                                     nlongs, client_bits, expect);
        /* The client's read goes to a discarded array: palette entry 0 everywhere. */
        mc_container_init(c, rules, direct ? 0 : palette[0], d->alloc);
        return MC_OK;
    }
    mc_status st = mc_container_from_be(c, rules, client_bits, layout, direct ? NULL : palette,
                                        direct ? 0 : plen, be, nlongs, d->alloc, &local);
    if (st != MC_OK)
        return mc_reader_fail_at(r, bits_at, st, "%s container: %s", what, local.message);
    return MC_OK;
}

/* ------------------------------------------------------------ helpers */

/* The counts a packet states are not checked against the blocks, even in
 * strict mode: vanilla keeps them incrementally and they drift (a vanilla
 * 1.19 capture states 4150 non-air blocks in a section of 4096). Only
 * impossible values are refused. The model's own counts are left to be
 * counted when asked (MC_SECTION_COUNT_UNKNOWN, mcchunk/chunk.h): most
 * readers of a decoded column never ask, and counting is most of what a
 * decode costs after the copies. */
static mc_status check_count(mc_reader *r, const dec *d, size_t at, const char *what, unsigned got)
{
    if (d->strict && got > 32767u)
        return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "%s %u is over 32767", what, got);
    return MC_OK;
}

static void counts_unknown(mc_section *s)
{
    s->block_count = s->fluid_count = MC_SECTION_COUNT_UNKNOWN;
}

static mc_column *new_column(const dec *d, int32_t x, int32_t z, int32_t min_sec, uint32_t count)
{
    return mc_column_new(d->e->reg, x, z, min_sec, count, d->alloc);
}

static mc_status set_biomes_2d(mc_column *col, const uint32_t *b)
{
    int32_t v[256];
    for (int i = 0; i < 256; i++)
        v[i] = (int32_t)b[i];
    mc_nbt_tag *extra = mc_column_extra(col);
    if (!extra || mc_nbt_put_int_array(mc_column_nbt(col), extra, MC__KEY_BIOMES2D, v, 256) != MC_OK)
        return MC_ERR_NOMEM;
    /* Cells: the biome at the cell's corner block. */
    uint32_t cells[64];
    for (int y = 0; y < 4; y++)
        for (int z = 0; z < 4; z++)
            for (int x = 0; x < 4; x++)
                cells[(y << 4) | (z << 2) | x] = b[(x * 4) + (z * 4) * 16];
    for (uint32_t i = 0; i < mc_column_section_count(col); i++)
        if (mc_container_set_all(&mc_column_section_at(col, i)->biomes, cells) != MC_OK)
            return MC_ERR_NOMEM;
    return MC_OK;
}

static mc_status set_biomes_3d(mc_column *col, const uint32_t *b, size_t n)
{
    for (uint32_t s = 0; s < mc_column_section_count(col) && (s + 1) * 64 <= n; s++)
        if (mc_container_set_all(&mc_column_section_at(col, s)->biomes, b + s * 64) != MC_OK)
            return MC_ERR_NOMEM;
    return MC_OK;
}

static mc_status read_heightmaps(mc_reader *r, const dec *d, mc_column *col, mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    const mc_bits_layout layout = e->kind >= MC__ERA_1_16 ? MC_BITS_PADDED : MC_BITS_SPANNING;
    if (e->heightmap_array) {
        size_t at = r->pos;
        int32_t n = mc_read_varint(r);
        if (!mc_reader_ok(r))
            return r->status;
        if (n < 0 || n > 6)
            return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "%d heightmaps", n);
        for (int32_t i = 0; i < n; i++) {
            size_t tat = r->pos;
            int32_t type = mc_read_varint(r);
            int32_t cnt = mc_read_varint(r);
            if (!mc_reader_ok(r))
                return r->status;
            if (type < 0 || type >= MC_HEIGHTMAP_COUNT || cnt < 0 ||
                (size_t)cnt > mc_reader_remaining(r) / 8)
                return mc_reader_fail_at(r, tat, MC_ERR_MALFORMED,
                                         "heightmap type %d with %d longs", type, cnt);
            const uint8_t *be = mc_read_bytes(r, (size_t)cnt * 8, "heightmap");
            mc_error local;
            if (mc_column_heightmap_from_be(col, (mc_heightmap_type)type, be, (size_t)cnt, layout,
                                            &local) != MC_OK && d->strict)
                return mc_reader_fail_at(r, tat, MC_ERR_MALFORMED, "heightmap %d: %s",
                                         type, local.message);
            if (info)
                info->heightmaps |= 1u << type;
        }
        return MC_OK;
    }
    mc_nbt_doc *doc = mc_nbt_doc_new(d->alloc);
    if (!doc)
        return mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
    size_t used = 0;
    mc_error local;
    size_t at = r->pos;
    mc_status st = mc_nbt_parse_ex(doc, r->data + r->pos, r->len - r->pos,
                                   e->nameless_nbt ? MC_NBT_JAVA_NETWORK : MC_NBT_JAVA,
                                   MC_NBT_PARSE_PREFIX, NULL, &used, &local);
    if (st != MC_OK) {
        mc_nbt_doc_free(doc);
        return mc_reader_fail_at(r, at, st, "heightmaps NBT: %s", local.message);
    }
    r->pos += used;
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    for (mc_nbt_tag *t = mc_nbt_first(root); t; t = mc_nbt_next(t)) {
        size_t klen;
        const char *key = mc_nbt_tag_key(t, &klen);
        mc_heightmap_type type;
        mc_nbt_array a;
        if (!mc_heightmap_from_name(key, klen, &type) ||
            mc_nbt_get_array(t, MC_NBT_LONG_ARRAY, &a) != MC_OK)
            continue;
        if (a.order != MC_NBT_ORDER_BE)
            continue;
        if (mc_column_heightmap_from_be(col, type, a.data, a.count, layout, &local) != MC_OK &&
            d->strict) {
            mc_nbt_doc_free(doc);
            return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "heightmap %s: %s",
                                     mc_heightmap_name(type), local.message);
        }
        if (info)
            info->heightmaps |= 1u << type;
    }
    mc_nbt_doc_free(doc);
    return MC_OK;
}

static mc_status read_block_entities(mc_reader *r, const dec *d, mc_column *col,
                                     mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    size_t at = r->pos;
    int32_t n = mc_read_varint(r);
    if (!mc_reader_ok(r))
        return r->status;
    if (n < 0 || (size_t)n > mc_reader_remaining(r))
        return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "%d block entities", n);
    if (info)
        info->block_entities = (uint32_t)n;
    mc_nbt_doc *doc = mc_nbt_doc_new(d->alloc);
    if (!doc)
        return mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
    mc_status st = MC_OK;
    const int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), /* wraps: chunk x from input may be huge */
        bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    for (int32_t i = 0; i < n && st == MC_OK; i++) {
        int32_t x = 0, y = 0, z = 0, type = -1;
        size_t eat = r->pos;
        if (e->kind >= MC__ERA_1_18) {
            uint8_t xz = mc_read_u8(r);
            y = (int16_t)mc_read_u16be(r);
            type = mc_read_varint(r);
            x = bx + (xz >> 4);
            z = bz + (xz & 15);
            if (!mc_reader_ok(r)) {
                st = r->status;
                break;
            }
            if (mc_reader_remaining(r) && r->data[r->pos] == MC_NBT_END) {
                r->pos++; /* no data */
                mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
                goto store;
            }
        }
        {
            size_t used = 0;
            mc_error local;
            st = mc_nbt_parse_ex(doc, r->data + r->pos, r->len - r->pos,
                                 e->nameless_nbt ? MC_NBT_JAVA_NETWORK : MC_NBT_JAVA,
                                 MC_NBT_PARSE_PREFIX | MC_NBT_PARSE_COPY, NULL, &used, &local);
            if (st != MC_OK) {
                mc_reader_fail_at(r, r->pos, st, "block entity %d NBT: %s", i,
                                  local.message);
                break;
            }
            r->pos += used;
        }
        if (mc_nbt_tag_type(mc_nbt_doc_root(doc)) != MC_NBT_COMPOUND) {
            st = mc_reader_fail_at(r, eat, MC_ERR_MALFORMED,
                                   "block entity %d is not a compound", i);
            break;
        }
        if (e->kind < MC__ERA_1_18) {
            mc_nbt_tag *root = mc_nbt_doc_root(doc);
            if (mc_nbt_get_int(mc_nbt_get(root, "x"), &x) != MC_OK ||
                mc_nbt_get_int(mc_nbt_get(root, "y"), &y) != MC_OK ||
                mc_nbt_get_int(mc_nbt_get(root, "z"), &z) != MC_OK) {
                if (d->strict) {
                    st = mc_reader_fail_at(r, eat, MC_ERR_MALFORMED,
                                           "block entity %d without x/y/z", i);
                    break;
                }
                continue;
            }
        }
    store:
        st = mc_column_put_block_entity(col, x, y, z, mc_nbt_doc_root(doc));
        if (st == MC_OK && e->kind >= MC__ERA_1_18) {
            mc_nbt_tag *t = mc_column_block_entity(col, x, y, z);
            const char *name = mc__be_type_name(e->protocol, type);
            st = name ? mc_nbt_put_string(mc_column_nbt(col), t, "id", name, strlen(name))
                      : mc_nbt_put_int(mc_column_nbt(col), t, MC__KEY_BE_TYPE, type);
        }
        if (st != MC_OK)
            mc_reader_fail(r, st, "no memory");
    }
    mc_nbt_doc_free(doc);
    return st;
}

/* A scratch list of decoded sections. */
typedef struct sec_list {
    mc_section s[MAX_SECTIONS];
    uint32_t n;
} sec_list;

static void sec_list_free(sec_list *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        mc_section_free(&l->s[i]);
    l->n = 0;
}

/* Moves the listed sections into the column at section y sy[i]. */
static void sec_list_move(sec_list *l, mc_column *col, const int32_t *sy, bool with_biomes)
{
    for (uint32_t i = 0; i < l->n; i++) {
        mc_section *dst = mc_column_section(col, sy[i]);
        if (!dst)
            continue;
        if (!with_biomes) {
            /* the column's biomes came from elsewhere in the packet: keep them */
            mc_container tmp = dst->biomes;
            dst->biomes = l->s[i].biomes;
            l->s[i].biomes = tmp;
        }
        mc_section_free(dst);
        *dst = l->s[i];
        memset(&l->s[i], 0, sizeof l->s[i]);
        mc_container_init(&l->s[i].blocks, &dst->blocks.rules, 0, NULL);
        mc_container_init(&l->s[i].biomes, &dst->biomes.rules, 0, NULL);
    }
}

/* --------------------------------------------------------------- 1.8 */

static mc_status read_data_1_8(mc_reader *r, const dec *d, mc_column *col, uint16_t mask, bool full,
                               int sky_opt, bool *sky_out)
{
    const unsigned n = (unsigned)__builtin_popcount(mask);
    const size_t rem = mc_reader_remaining(r);
    const size_t base = n * (8192u + 2048u) + (full ? 256u : 0u);
    bool sky;
    if (sky_opt == 1)
        sky = true;
    else if (sky_opt == 2)
        sky = false;
    else
        sky = rem >= base + n * 2048u && (rem == base + n * 2048u || rem != base);
    const size_t need = base + (sky ? n * 2048u : 0);
    if (sky_out)
        *sky_out = sky;
    if (rem < need || (d->strict && rem != need))
        return mc_reader_fail(r, MC_ERR_MALFORMED,
                              "1.8 data of %zu bytes, %u sections need %zu", rem, n, need);
    uint32_t vals[MC_SECTION_BLOCKS];
    for (int sy = 0; sy < 16; sy++) {
        if (!((mask >> sy) & 1))
            continue;
        size_t at = r->pos;
        const uint8_t *p = mc_read_bytes(r, 8192, "1.8 blocks");
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            vals[i] = mc_load_u16le(p + 2 * i);
            if (vals[i] >= 4096)
                return mc_reader_fail_at(r, at + 2 * i, MC_ERR_MALFORMED,
                                         "1.8 block %u is beyond id<<4|meta", vals[i]);
        }
        mc_section *s = mc_column_section(col, sy);
        if (mc_container_set_all(&s->blocks, vals) != MC_OK)
            return mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
        counts_unknown(s);
    }
    for (int pass = 0; pass < (sky ? 2 : 1); pass++)
        for (int sy = 0; sy < 16; sy++) {
            if (!((mask >> sy) & 1))
                continue;
            const uint8_t *p = mc_read_bytes(r, 2048, "light");
            mc_section *s = mc_column_section(col, sy);
            if (pass == 0)
                mc_section_set_block_light(s, p);
            else
                mc_section_set_sky_light(s, p);
        }
    if (full) {
        const uint8_t *p = mc_read_bytes(r, 256, "biomes");
        uint32_t b[256];
        for (int i = 0; i < 256; i++)
            b[i] = p[i];
        if (set_biomes_2d(col, b) != MC_OK)
            return mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
    }
    return r->status;
}

/* ------------------------------------------------------- 1.9 - 1.17 */

/* The masked sections of 1.9-1.17 (light inside up to 1.13, when `sky`
 * also sky light), then (1.9-1.14, full) the biomes. */
static mc_status read_masked(mc_reader *r, const dec *d, sec_list *l, int32_t *sy, int32_t base,
                             uint64_t mask, unsigned nsec_max, bool full, bool sky, uint32_t *biomes2d,
                             mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    const mc_container_rules brules = mc_container_rules_blocks(mc_registry_direct_bits(e->reg));
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(e->reg));
    for (unsigned i = 0; i < nsec_max; i++) {
        if (!((mask >> i) & 1))
            continue;
        if (l->n >= MAX_SECTIONS)
            return mc_reader_fail(r, MC_ERR_LIMIT, "too many sections");
        mc_section *s = &l->s[l->n];
        mc_section_init_rules(s, &brules, &mrules, 0, 0, d->alloc);
        sy[l->n] = base + (int32_t)i; /* mask bit i: the i-th section from the bottom */
        l->n++;
        size_t cat = r->pos;
        unsigned count = 0;
        if (e->kind >= MC__ERA_1_14)
            count = mc_read_u16be(r);
        mc_container_free(&s->blocks);
        mc_status st = read_container(r, d, &s->blocks, &brules, false);
        if (st != MC_OK)
            return st;
        counts_unknown(s);
        if (e->kind >= MC__ERA_1_14 && check_count(r, d, cat, "block count", count))
            return r->status;
        if (info) {
            info->sections_sent++;
            if (s->blocks.kind == MC_CONTAINER_DIRECT)
                info->direct_sections++;
            else
                info->indirect_sections++;
        }
        if (e->kind <= MC__ERA_1_13) {
            const uint8_t *p = mc_read_bytes(r, 2048, "block light");
            if (p)
                mc_section_set_block_light(s, p);
            if (sky) {
                p = mc_read_bytes(r, 2048, "sky light");
                if (p)
                    mc_section_set_sky_light(s, p);
            }
        }
        if (!mc_reader_ok(r))
            return r->status;
    }
    if (full && e->kind <= MC__ERA_1_14) {
        for (int i = 0; i < 256; i++)
            biomes2d[i] = e->kind == MC__ERA_1_9 ? mc_read_u8(r) : mc_read_u32be(r);
        if (!mc_reader_ok(r))
            return r->status;
        if (d->strict)
            for (int i = 0; i < 256; i++)
                if (biomes2d[i] >= mc_registry_biome_count(e->reg) && e->kind != MC__ERA_1_9)
                    return mc_reader_fail(r, MC_ERR_MALFORMED, "biome id %u unknown",
                                          biomes2d[i]);
    }
    return MC_OK;
}

static mc_status decode_masked(mc_reader *r, const dec *d, const mc_java_decode_opts *o,
                               mc_column **out, mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    int32_t x = (int32_t)mc_read_u32be(r), z = (int32_t)mc_read_u32be(r);
    bool full = true;
    if (e->kind < MC__ERA_1_17) {
        size_t at = r->pos;
        uint8_t f = mc_read_u8(r);
        if (mc_reader_ok(r) && f > 1)
            return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "full-chunk byte %u", f);
        full = f == 1;
    }
    if (e->ignore_old_data)
        (void)mc_read_u8(r);
    uint64_t mask = 0;
    size_t mask_at = r->pos;
    if (e->kind == MC__ERA_1_8) {
        mask = mc_read_u16be(r);
    } else if (e->kind == MC__ERA_1_17) {
        int32_t nw = mc_read_varint(r);
        if (mc_reader_ok(r) && (nw < 0 || nw > 64))
            return mc_reader_fail_at(r, mask_at, MC_ERR_MALFORMED, "mask of %d longs", nw);
        for (int32_t i = 0; i < nw; i++) {
            uint64_t w = mc_read_u64be(r);
            if (i == 0)
                mask = w;
            else if (w)
                return mc_reader_fail_at(r, mask_at, MC_ERR_UNSUPPORTED,
                                         "sections beyond 64 in the mask");
        }
    } else {
        mask = (uint32_t)mc_read_varint(r);
    }
    if (!mc_reader_ok(r))
        return r->status;
    int32_t min_y = o && o->has_height ? o->min_y : 0;
    uint32_t height = o && o->has_height ? o->height : 256;
    if (min_y % 16 || height % 16 || height == 0 || height > 4096)
        return mc_error_set(d->err, MC_ERR_INVALID_ARG, SIZE_MAX, "java chunk: bad dimension height");
    const unsigned nsec = height / 16;
    if (nsec < 64 && (mask >> nsec) && d->strict)
        return mc_reader_fail_at(r, mask_at, MC_ERR_MALFORMED,
                                 "mask 0x%llx has sections above %u", (unsigned long long)mask,
                                 nsec);
    if (info) {
        info->x = x;
        info->z = z;
        info->full = full;
        info->mask = mask;
    }
    mc_column *col = new_column(d, x, z, min_y / 16, nsec);
    if (!col)
        return mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
    mc_status st = MC_OK;
    if (e->kind >= MC__ERA_1_14)
        st = read_heightmaps(r, d, col, info);
    uint32_t b3[4096];
    if (st == MC_OK && full && e->kind >= MC__ERA_1_15) {
        size_t at = r->pos;
        size_t cnt = 1024;
        if (e->varint_biomes) {
            int32_t c = mc_read_varint(r);
            if (mc_reader_ok(r) && (c < 0 || c > 4096 || (d->strict && (uint32_t)c != nsec * 64)))
                st = mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "%d biomes", c);
            cnt = (size_t)c;
        }
        for (size_t i = 0; i < cnt && st == MC_OK && mc_reader_ok(r); i++) {
            b3[i] = e->varint_biomes ? (uint32_t)mc_read_varint(r) : mc_read_u32be(r);
            if (d->strict && b3[i] >= mc_registry_biome_count(e->reg))
                st = mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "biome %zu id %u unknown",
                                       i, b3[i]);
        }
        if (st == MC_OK && r->status != MC_OK)
            st = r->status;
        if (st == MC_OK && set_biomes_3d(col, b3, cnt) != MC_OK)
            st = mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
    }
    size_t size_at = r->pos;
    int32_t size = st == MC_OK ? mc_read_varint(r) : 0;
    if (st == MC_OK && !mc_reader_ok(r))
        st = r->status;
    if (st == MC_OK && (size < 0 || (size_t)size > mc_reader_remaining(r)))
        st = mc_reader_fail_at(r, size_at, MC_ERR_TRUNCATED,
                               "data size %d exceeds the %zu bytes left", size,
                               mc_reader_remaining(r));
    if (st != MC_OK) {
        mc_column_free(col);
        return st;
    }
    if (info)
        info->data_size = (size_t)size;
    mc_reader dr;
    mc_reader_init(&dr, r->data + r->pos, (size_t)size, "java chunk", d->err);
    dr.base = r->base + r->pos;
    r->pos += (size_t)size;
    if (e->kind == MC__ERA_1_8) {
        int sky_opt = o ? o->sky : 0;
        bool sky = false;
        st = read_data_1_8(&dr, d, col, (uint16_t)mask, full, sky_opt, &sky);
        if (info) {
            info->sections_sent = (uint32_t)__builtin_popcount((unsigned)mask);
            info->unload = full && mask == 0;
            info->sky_light = sky;
            info->data_used = dr.pos;
        }
        if (st != MC_OK) {
            mc_column_free(col);
            return st;
        }
        *out = col;
        return MC_OK;
    }
    sec_list *l = malloc(sizeof *l);
    int32_t sy[MAX_SECTIONS];
    uint32_t b2[256];
    if (!l) {
        mc_column_free(col);
        return mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
    }
    l->n = 0;
    /* 1.9-1.13 carry sky light in sections only in dimensions with a sky,
     * which the packet does not say: try with it, then without. */
    bool sky = e->kind <= MC__ERA_1_13;
    int sky_opt = o ? o->sky : 0;
    if (sky_opt == 2)
        sky = false;
    mc_java_chunk_info saved;
    if (info)
        saved = *info;
    st = read_masked(&dr, d, l, sy, min_y / 16, mask, nsec < 64 ? nsec : 64, full, sky, b2, info);
    const size_t tail = full && e->kind <= MC__ERA_1_14 ? 0 : 0;
    (void)tail;
    bool fits = st == MC_OK && (mc_reader_remaining(&dr) == 0 || !d->strict);
    if (sky && sky_opt <= 0 && (!fits || (st == MC_OK && mc_reader_remaining(&dr) != 0))) {
        mc_reader dr2;
        mc_reader_init(&dr2, dr.data, dr.len, "java chunk", NULL);
        dr2.base = dr.base;
        sec_list_free(l);
        if (info)
            *info = saved;
        mc_status st2 = read_masked(&dr2, d, l, sy, min_y / 16, mask, nsec < 64 ? nsec : 64, full, false, b2, info);
        if (st2 == MC_OK && mc_reader_remaining(&dr2) == 0) {
            dr = dr2;
            st = MC_OK;
            sky = false;
        } else {
            /* back to the first reading for its error */
            sec_list_free(l);
            if (info)
                *info = saved;
            mc_reader_init(&dr, dr2.data, dr2.len, "java chunk", d->err);
            dr.base = dr2.base;
            st = read_masked(&dr, d, l, sy, min_y / 16, mask, nsec < 64 ? nsec : 64, full, true, b2, info);
        }
    }
    if (info) {
        info->sky_light = sky;
        info->data_used = dr.pos;
    }
    if (st == MC_OK && d->strict && mc_reader_remaining(&dr))
        st = mc_reader_fail(&dr, MC_ERR_MALFORMED, "%zu bytes of data left over",
                            mc_reader_remaining(&dr));
    if (st == MC_OK) {
        sec_list_move(l, col, sy, false);
        if (full && e->kind <= MC__ERA_1_14 && set_biomes_2d(col, b2) != MC_OK)
            st = mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
    }
    sec_list_free(l);
    free(l);
    if (st == MC_OK && e->block_entities)
        st = read_block_entities(r, d, col, info);
    if (st != MC_OK) {
        if (d->err && d->err->status == MC_OK)
            mc_error_set(d->err, st, SIZE_MAX, "java chunk: %s", mc_status_name(st));
        mc_column_free(col);
        return st;
    }
    *out = col;
    return MC_OK;
}

/* -------------------------------------------------------------- 1.18+ */

/* One 1.18+ section (counts, blocks, biomes) into s. */
static mc_status read_modern_section(mc_reader *dr, const dec *d, mc_section *s,
                                     const mc_container_rules *brules,
                                     const mc_container_rules *mrules, mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    const size_t cat = dr->pos;
    const unsigned count = mc_read_u16be(dr);
    const unsigned fluids = e->fluid_count ? mc_read_u16be(dr) : 0;
    if (!mc_reader_ok(dr))
        return dr->status;
    mc_container_free(&s->blocks);
    mc_status st = read_container(dr, d, &s->blocks, brules, false);
    if (st == MC_OK) {
        mc_container_free(&s->biomes);
        st = read_container(dr, d, &s->biomes, mrules, true);
    }
    if (st != MC_OK)
        return st;
    counts_unknown(s);
    if (check_count(dr, d, cat, "block count", count) ||
        (e->fluid_count && check_count(dr, d, cat + 2, "fluid count", fluids)))
        return dr->status;
    if (info) {
        info->sections_sent++;
        info->direct_sections += s->blocks.kind == MC_CONTAINER_DIRECT;
        info->indirect_sections += s->blocks.kind == MC_CONTAINER_INDIRECT;
        info->single_sections += s->blocks.kind == MC_CONTAINER_SINGLE;
    }
    return MC_OK;
}

static mc_status decode_modern(mc_reader *r, const dec *d, const mc_java_decode_opts *o,
                               mc_column **out, mc_java_chunk_info *info)
{
    const mc__era *e = d->e;
    int32_t x = (int32_t)mc_read_u32be(r), z = (int32_t)mc_read_u32be(r);
    if (!mc_reader_ok(r))
        return r->status;
    if (info) {
        info->x = x;
        info->z = z;
        info->full = true;
    }
    int32_t min_y = o && o->has_height ? o->min_y : e->default_min_y;
    uint32_t height = o && o->has_height ? o->height : e->default_height;
    if (min_y % 16 || height % 16 || height > MAX_SECTIONS * 16)
        return mc_error_set(d->err, MC_ERR_INVALID_ARG, SIZE_MAX, "java chunk: bad dimension height");
    /* Heightmaps need a column: a provisional one of the expected height. */
    mc_column *col = new_column(d, x, z, min_y / 16, height ? height / 16 : 24);
    if (!col)
        return mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
    mc_status st = read_heightmaps(r, d, col, info);
    size_t size_at = r->pos;
    int32_t size = st == MC_OK ? mc_read_varint(r) : 0;
    if (st == MC_OK && !mc_reader_ok(r))
        st = r->status;
    if (st == MC_OK && (size < 0 || (size_t)size > mc_reader_remaining(r)))
        st = mc_reader_fail_at(r, size_at, MC_ERR_TRUNCATED,
                               "data size %d exceeds the %zu bytes left", size,
                               mc_reader_remaining(r));
    if (st == MC_OK && size > 2097152)
        st = mc_reader_fail_at(r, size_at, MC_ERR_LIMIT, "data size %d over 2 MiB", size);
    const uint32_t want = height / 16;
    sec_list *l = st == MC_OK && !want ? malloc(sizeof *l) : NULL;
    if (st == MC_OK && !want && !l)
        st = mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
    if (st != MC_OK) {
        mc_column_free(col);
        return st;
    }
    if (l)
        l->n = 0;
    if (info)
        info->data_size = (size_t)size;
    mc_reader dr;
    mc_reader_init(&dr, r->data + r->pos, (size_t)size, "java chunk", d->err);
    dr.base = r->base + r->pos;
    r->pos += (size_t)size;
    const mc_container_rules brules = mc_container_rules_blocks(mc_registry_direct_bits(e->reg));
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(e->reg));
    /* With the height known (the usual case) the sections are decoded
     * straight into the column; otherwise into the scratch list, whose
     * length gives the height. */
    uint32_t n_read = 0;
    while (st == MC_OK && (want ? n_read < want : mc_reader_remaining(&dr) > 0)) {
        if (n_read >= MAX_SECTIONS) {
            st = mc_reader_fail(&dr, MC_ERR_LIMIT, "more than %u sections", MAX_SECTIONS);
            break;
        }
        mc_section *s;
        if (want) {
            s = mc_column_section_at(col, n_read);
        } else {
            s = &l->s[l->n++];
            mc_section_init_rules(s, &brules, &mrules, 0, 0, d->alloc);
        }
        n_read++;
        st = read_modern_section(&dr, d, s, &brules, &mrules, info);
    }
    if (info)
        info->data_used = dr.pos;
    if (st == MC_OK && e->size_slack) {
        /* 1.18-1.21.4 vanilla: one zero byte per single-value block container */
        size_t want_slack = 0;
        for (uint32_t i = 0; i < n_read; i++)
            want_slack += (want ? mc_column_section_at(col, i) : &l->s[i])->blocks.kind ==
                          MC_CONTAINER_SINGLE;
        size_t rem = mc_reader_remaining(&dr);
        bool zeros = true;
        for (size_t i = 0; i < rem; i++)
            zeros = zeros && dr.data[dr.pos + i] == 0;
        if (rem == want_slack && zeros)
            dr.pos += rem;
    }
    if (st == MC_OK && d->strict && mc_reader_remaining(&dr))
        st = mc_reader_fail(&dr, MC_ERR_MALFORMED,
                            "%zu bytes of section data left over after %u sections",
                            mc_reader_remaining(&dr), n_read);
    if (st == MC_OK && n_read == 0)
        st = mc_reader_fail(&dr, MC_ERR_MALFORMED, "no sections");
    if (st == MC_OK && !want && l->n != mc_column_section_count(col)) {
        /* The height came from the data: a column of that many sections. */
        mc_column *c2 = new_column(d, x, z, min_y / 16, l->n);
        if (!c2)
            st = mc_error_set(d->err, MC_ERR_NOMEM, SIZE_MAX, "java chunk: no memory");
        else {
            uint16_t hv[256];
            for (int t = 0; t < MC_HEIGHTMAP_COUNT; t++)
                if (mc_column_heightmap_get_all(col, (mc_heightmap_type)t, hv) &&
                    mc_column_heightmap_bits(c2) == mc_column_heightmap_bits(col))
                    mc_column_heightmap_set_all(c2, (mc_heightmap_type)t, hv);
            mc_column_free(col);
            col = c2;
        }
    }
    if (st == MC_OK && !want) {
        int32_t sy[MAX_SECTIONS];
        for (uint32_t i = 0; i < l->n; i++)
            sy[i] = min_y / 16 + (int32_t)i;
        sec_list_move(l, col, sy, true);
    }
    if (l) {
        sec_list_free(l);
        free(l);
    }
    if (st == MC_OK)
        st = read_block_entities(r, d, col, info);
    if (st == MC_OK && e->trust_edges) {
        size_t at = r->pos;
        uint8_t t = mc_read_u8(r);
        if (mc_reader_ok(r) && t > 1)
            st = mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "trustEdges byte %u", t);
        else
            st = r->status;
    }
    if (st == MC_OK)
        st = mc__read_light(r, e, col, d->strict);
    if (st != MC_OK) {
        if (d->err && d->err->status == MC_OK)
            mc_error_set(d->err, st, SIZE_MAX, "java chunk: %s", mc_status_name(st));
        mc_column_free(col);
        return st;
    }
    *out = col;
    return MC_OK;
}

/* ---------------------------------------------------------- entry points */

static dec make_dec(const mc__era *e, const mc_java_decode_opts *opts, mc_error *err)
{
    dec d = {e, NULL, 0, !(opts && opts->lenient), opts ? opts->alloc : NULL, err};
    if (e->kind != MC__ERA_1_8 && e->kind != MC__ERA_1_9)
        d.flags = mc_registry_state_flag_table(e->reg, &d.nflags);
    return d;
}

static mc_status read_id(mc_reader *r, uint32_t protocol, const char *name)
{
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, name);
    int32_t got = mc_read_varint(r);
    if (!mc_reader_ok(r))
        return r->status;
    if (got != id)
        return mc_reader_fail_at(r, 0, MC_ERR_MALFORMED,
                                 "packet id 0x%x is not %s (0x%x in protocol %u)", got, name,
                                 id, protocol);
    return MC_OK;
}

mc_status mc_java_decode_chunk(const uint8_t *packet, size_t len, uint32_t protocol,
                               const mc_java_decode_opts *opts, mc_column **out,
                               mc_java_chunk_info *info, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    if (!out || (!packet && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "java chunk: NULL argument");
    *out = NULL;
    if (info) {
        memset(info, 0, sizeof *info);
        info->packet_id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "map_chunk");
    }
    dec d = make_dec(&e, opts, err);
    mc_reader r;
    mc_reader_init(&r, packet, len, "java chunk", err);
    st = read_id(&r, protocol, "map_chunk");
    if (st != MC_OK)
        return st;
    mc_column *col = NULL;
    st = e.kind == MC__ERA_1_18 ? decode_modern(&r, &d, opts, &col, info)
                                : decode_masked(&r, &d, opts, &col, info);
    if (st == MC_OK && d.strict && mc_reader_remaining(&r)) {
        st = mc_reader_fail(&r, MC_ERR_MALFORMED, "%zu bytes after the packet",
                            mc_reader_remaining(&r));
    }
    if (st != MC_OK) {
        mc_column_free(col);
        return st;
    }
    *out = col;
    return MC_OK;
}

mc_status mc_java_decode_unload(const uint8_t *packet, size_t len, uint32_t protocol, int32_t *x,
                                int32_t *z, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    mc_reader r;
    mc_reader_init(&r, packet, len, "java unload", err);
    if (e.kind == MC__ERA_1_8) {
        mc_java_chunk_info info;
        mc_column *col = NULL;
        st = mc_java_decode_chunk(packet, len, protocol, NULL, &col, &info, err);
        mc_column_free(col);
        if (st != MC_OK)
            return st;
        if (!info.unload)
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                "java unload: a 1.8 Chunk Data with sections is not an unload");
        if (x)
            *x = info.x;
        if (z)
            *z = info.z;
        return MC_OK;
    }
    st = read_id(&r, protocol, "unload_chunk");
    if (st != MC_OK)
        return st;
    int32_t a = (int32_t)mc_read_u32be(&r), b = (int32_t)mc_read_u32be(&r);
    if (!mc_reader_ok(&r))
        return r.status;
    if (mc_reader_remaining(&r))
        return mc_reader_fail(&r, MC_ERR_MALFORMED, "%zu bytes after the packet",
                              mc_reader_remaining(&r));
    if (protocol >= 764) { /* 1.20.2: z then x */
        int32_t t = a;
        a = b;
        b = t;
    }
    if (x)
        *x = a;
    if (z)
        *z = b;
    return MC_OK;
}

void mc_java_free_columns(mc_column **cols, size_t n, const mc_allocator *alloc)
{
    if (!cols)
        return;
    for (size_t i = 0; i < n; i++)
        mc_column_free(cols[i]);
    const mc_allocator *a = mc_alloc_or_default(alloc);
    a->free(a->user, cols, (n ? n : 1) * sizeof *cols);
}

mc_status mc_java_decode_chunk_bulk(const uint8_t *packet, size_t len, uint32_t protocol,
                                    const mc_java_decode_opts *opts, mc_column ***cols, size_t *n,
                                    mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    if (e.kind != MC__ERA_1_8)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "java chunk: Map Chunk Bulk is 1.8 only");
    *cols = NULL;
    *n = 0;
    mc_reader r;
    mc_reader_init(&r, packet, len, "java chunk bulk", err);
    st = read_id(&r, protocol, "map_chunk_bulk");
    if (st != MC_OK)
        return st;
    size_t at = r.pos;
    uint8_t sky = mc_read_u8(&r);
    int32_t count = mc_read_varint(&r);
    if (!mc_reader_ok(&r))
        return r.status;
    if (sky > 1 || count < 0 || (size_t)count > mc_reader_remaining(&r) / 10)
        return mc_reader_fail_at(&r, at, MC_ERR_MALFORMED, "sky %u, count %d", sky,
                                 count);
    const mc_allocator *a = mc_alloc_or_default(opts ? opts->alloc : NULL);
    mc_column **list = a->alloc(a->user, (count ? (size_t)count : 1) * sizeof *list);
    if (!list)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java chunk bulk: no memory");
    memset(list, 0, (count ? (size_t)count : 1) * sizeof *list);
    const uint8_t *meta = mc_read_bytes(&r, (size_t)count * 10, "bulk meta");
    dec d = make_dec(&e, opts, err);
    for (int32_t i = 0; i < count && mc_reader_ok(&r); i++) {
        int32_t x = (int32_t)mc_load_u32be(meta + 10 * i), z = (int32_t)mc_load_u32be(meta + 10 * i + 4);
        uint16_t mask = mc_load_u16be(meta + 10 * i + 8);
        unsigned ns = (unsigned)__builtin_popcount(mask);
        size_t size = ns * (8192u + 2048u + (sky ? 2048u : 0u)) + 256u;
        if (size > mc_reader_remaining(&r)) {
            mc_reader_fail(&r, MC_ERR_TRUNCATED, "column %d needs %zu bytes", i, size);
            break;
        }
        list[i] = new_column(&d, x, z, 0, 16);
        if (!list[i]) {
            mc_reader_fail(&r, MC_ERR_NOMEM, "no memory");
            break;
        }
        mc_reader dr;
        mc_reader_init(&dr, r.data + r.pos, size, "java chunk bulk", err);
        dr.base = r.pos;
        r.pos += size;
        st = read_data_1_8(&dr, &d, list[i], mask, true, sky ? 1 : 2, NULL);
        if (st != MC_OK) {
            r.status = st;
            break;
        }
    }
    if (mc_reader_ok(&r) && d.strict && mc_reader_remaining(&r))
        mc_reader_fail(&r, MC_ERR_MALFORMED, "%zu bytes after the packet",
                       mc_reader_remaining(&r));
    if (!mc_reader_ok(&r)) {
        mc_java_free_columns(list, (size_t)count, opts ? opts->alloc : NULL);
        return r.status;
    }
    *cols = list;
    *n = (size_t)count;
    return MC_OK;
}

mc_status mc_java_decode_chunk_biomes(const uint8_t *packet, size_t len, uint32_t protocol,
                                      const mc_java_decode_opts *opts, mc_column *const *cols, size_t n,
                                      mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    mc_reader r;
    mc_reader_init(&r, packet, len, "java chunk biomes", err);
    st = read_id(&r, protocol, "chunk_biomes");
    if (st != MC_OK)
        return st;
    dec d = make_dec(&e, opts, err);
    size_t at = r.pos;
    int32_t count = mc_read_varint(&r);
    if (mc_reader_ok(&r) && (count < 0 || (size_t)count > mc_reader_remaining(&r) / 9))
        return mc_reader_fail_at(&r, at, MC_ERR_MALFORMED, "count %d", count);
    const mc_container_rules mrules = mc_container_rules_biomes(mc_registry_biome_direct_bits(e.reg));
    for (int32_t i = 0; i < count && mc_reader_ok(&r); i++) {
        int32_t z = (int32_t)mc_read_u32be(&r), x = (int32_t)mc_read_u32be(&r);
        int32_t size = mc_read_varint(&r);
        if (!mc_reader_ok(&r))
            break;
        if (size < 0 || (size_t)size > mc_reader_remaining(&r)) {
            mc_reader_fail(&r, MC_ERR_TRUNCATED, "size %d", size);
            break;
        }
        mc_reader dr;
        mc_reader_init(&dr, r.data + r.pos, (size_t)size, "java chunk biomes", err);
        dr.base = r.pos;
        r.pos += (size_t)size;
        mc_column *col = NULL;
        for (size_t k = 0; k < n; k++)
            if (mc_column_x(cols[k]) == x && mc_column_z(cols[k]) == z)
                col = cols[k];
        for (uint32_t s = 0; mc_reader_remaining(&dr) > 0; s++) {
            mc_container c;
            st = read_container(&dr, &d, &c, &mrules, true);
            if (st != MC_OK) {
                r.status = st;
                break;
            }
            mc_section *sec = col ? mc_column_section_at(col, s) : NULL;
            if (sec) {
                mc_container_free(&sec->biomes);
                sec->biomes = c;
            } else {
                mc_container_free(&c);
            }
        }
    }
    if (mc_reader_ok(&r) && d.strict && mc_reader_remaining(&r))
        mc_reader_fail(&r, MC_ERR_MALFORMED, "%zu bytes after the packet",
                       mc_reader_remaining(&r));
    return r.status;
}
