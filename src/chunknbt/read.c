/*
 * chunknbt_read.c: chunk NBT of every DataVersion -> mc_column.
 *
 * One reader walks every era, because the eras share their skeleton: a
 * compound of chunk keys (the root from 1.18, "Level" before), a list of
 * sections with a "Y", block data in one of three shapes, light, heightmaps
 * and block entities. What differs is decided per chunk from its
 * DataVersion (long layout, biome shape, registry) and per section from the
 * keys present (Blocks, Palette or block_states), so a DataVersion newer than
 * we know still reads with the newest rules.
 *
 * Losslessness comes from the column's extra NBT: every key the model does
 * not interpret is copied there in its original place (see chunknbt.h), and
 * what the model holds only lossily (2D biomes, the legacy HeightMap,
 * heightmaps of unknown type or length) is copied there as well. The writer
 * puts the tree back together from the model plus that copy.
 *
 * Speed: the tree comes from a zero-copy parse, palette entries resolve
 * through a per-thread cache (chunknbt_cache.c), and 1.16+ padded longs at
 * the container's width are byte-swapped straight into the container.
 */
#include "chunknbt/chunknbt_private.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tag of the root or of Level where the fast path's parse met it (its
 * type byte; the key follows), and what became of it. */
enum { ROOT_TREE, ROOT_DEFER, ROOT_TAKEN };
enum { LEVEL_TREE, LEVEL_RAW, LEVEL_TAKEN };
typedef struct root_tag {
    const uint8_t *start;
    uint8_t kind;
} root_tag;

/* Root keys the byte scan (the fast path) reads from their bytes rather than the tree
 * (they are deferred with the other root keys the model does not use, so
 * that the extra NBT keeps the chunk's order of keys). */
typedef struct root_facts {
    int32_t dv;            /* 0: absent or not a usable integer */
    const uint8_t *status; /* NULL: absent or not a string */
    size_t status_len;
    /* keep() of a root tag asks this first: true when the tag is deferred
     * with the others instead of copied */
    bool (*defer_root_tag)(void *user, const mc_nbt_tag *t);
    void *user;
    /* Level's tags in order (pre-1.18; none: the tree has them all), the
     * LEVEL_RAW ones not in the tree, and where Level's end tag is */
    const root_tag *level;
    size_t nlevel;
    const uint8_t *level_end;
} root_facts;

typedef struct pal_memo {
    const uint8_t *bytes;
    size_t len;
    uint32_t n;
    unsigned cur;         /* ids[cur] are the memo's; the other is where a
                           * new palette resolves, so keeping it costs no copy */
    uint32_t ids[2][64];
} pal_memo;

typedef struct reader {
    const mc_chunknbt_options *opt;
    mc_chunknbt_cache *cache;
    const mc_registry *reg;
    mc_column *col;
    mc_error *err;
    mc_chunknbt_info *info;
    int32_t dv;
    bool keep_extra;
    bool strict;
    mc_nbt_doc *xdoc;
    mc_nbt_tag *xroot;      /* extra compound (column's) */
    mc_nbt_tag *xlevel;     /* extra "Level" (pre-1.18), or xroot */
    mc_nbt_tag *xsections;  /* extra section list, created lazily */
    const mc_allocator *alloc; /* for containers (the column's) */
    const char *sections_key;
    mc_container_rules brules, mrules;
    uint32_t air;
    bool fast;      /* sections come from their bytes (mc_chunknbt_read_bytes) */
    const struct fscan *scan;
    bool declined;  /* fast path: met something only the tree reader handles */
    const root_facts *facts; /* the fast path's, when it defers root keys */
    /* the fast path's last palette of blocks [0] and of biomes [1], as bytes
     * and resolved ids: the sections of a chunk often repeat their
     * neighbour's (biomes above all), and one memcmp is cheaper than a
     * cache look-up per entry */
    pal_memo memo[2];
} reader;

static void warn(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(reader *r, const char *fmt, ...)
{
    if (r->fast) {
        /* the tree reader says it when it reads the chunk again */
        r->declined = true;
        return;
    }
    if (r->info)
        r->info->warnings++;
    if (!r->opt || !r->opt->warn)
        return;
    char msg[MC_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->opt->warn(r->opt->warn_user, msg);
}

static bool key_is(const mc_nbt_tag *t, const char *k, size_t klen)
{
    size_t l;
    const char *s = mc_nbt_tag_key(t, &l);
    return l == klen && memcmp(s, k, klen) == 0;
}
#define KEY_IS(t, lit) key_is((t), lit, sizeof lit - 1)

/* --------------------------------------------------------------- extra */

static mc_status nomem(reader *r)
{
    return mc_error_set(r->err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
}

/* Copies `t` under its key into compound `dst` of the extra document. */
static mc_status keep(reader *r, mc_nbt_tag *dst, const mc_nbt_tag *t)
{
    if (!r->keep_extra)
        return MC_OK;
    if (r->facts && dst == r->xroot && r->facts->defer_root_tag(r->facts->user, t))
        return MC_OK;
    mc_nbt_tag *c = mc_nbt_copy(r->xdoc, t);
    size_t kl;
    const char *k = mc_nbt_tag_key(t, &kl);
    if (!c || mc_nbt_attach(r->xdoc, dst, k, kl, c) != MC_OK)
        return nomem(r);
    return MC_OK;
}

static bool ensure_xsections(reader *r)
{
    if (!r->xsections)
        r->xsections = mc_nbt_put_list(r->xdoc, r->xlevel, r->sections_key, MC_NBT_COMPOUND);
    return r->xsections != NULL;
}

/* A new extra section entry holding a copy of `ytag` as its "Y". */
static mc_nbt_tag *xsection(reader *r, const mc_nbt_tag *ytag)
{
    if (!ensure_xsections(r))
        return NULL;
    mc_nbt_tag *e = mc_nbt_list_append(r->xdoc, r->xsections, MC_NBT_COMPOUND);
    if (!e)
        return NULL;
    if (ytag) {
        mc_nbt_tag *c = mc_nbt_copy(r->xdoc, ytag);
        if (!c || mc_nbt_attach(r->xdoc, e, "Y", 1, c) != MC_OK)
            return NULL;
    }
    return e;
}

/* ---------------------------------------------------------- containers */

/* Reads a palette list of block compounds into ids (unknown: air). */
static mc_status read_block_palette(mc_chunknbt_cache *cache, const mc_registry *reg,
                                    const mc_nbt_tag *list, uint32_t *ids, size_t n, bool lenient,
                                    uint32_t *unknown, mc_error *err)
{
    size_t i = 0;
    for (mc_nbt_tag *e = mc_nbt_first(list); e && i < n; e = mc_nbt_next(e), i++) {
        mc_status st = mc__cache_block(cache, reg, e, &ids[i], err);
        if (st == MC_ERR_NOT_FOUND) {
            if (!lenient) {
                const char *nm = NULL;
                size_t nl = 0;
                mc_nbt_get_string(mc_nbt_get(e, "Name"), &nm, &nl);
                return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX,
                                    "palette entry %zu: unknown block state %.*s in registry %s", i,
                                    (int)(nl > 100 ? 100 : nl), nm ? nm : "", mc_registry_name(reg));
            }
            ids[i] = mc_registry_air(reg);
            if (unknown)
                (*unknown)++;
        } else if (st != MC_OK) {
            return st;
        }
    }
    return MC_OK;
}

static mc_status read_biome_palette(mc_chunknbt_cache *cache, const mc_registry *reg,
                                    const mc_nbt_tag *list, uint32_t *ids, size_t n, bool lenient,
                                    uint32_t *unknown, mc_error *err)
{
    size_t i = 0;
    for (mc_nbt_tag *e = mc_nbt_first(list); e && i < n; e = mc_nbt_next(e), i++) {
        const char *s;
        size_t l;
        if (mc_nbt_get_string(e, &s, &l) != MC_OK)
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "biome palette entry %zu is not a string", i);
        mc_status st = mc__cache_biome(cache, reg, s, l, &ids[i]);
        if (st == MC_ERR_NOT_FOUND) {
            if (!lenient)
                return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "unknown biome %.*s in registry %s",
                                    (int)(l > 100 ? 100 : l), s, mc_registry_name(reg));
            ids[i] = 0;
            if (unknown)
                (*unknown)++;
        } else if (st != MC_OK) {
            return mc_error_set(err, st, SIZE_MAX, "out of memory");
        }
    }
    return MC_OK;
}

/* The container of palette ids[0..n) and its big-endian longs be[0..count)
 * (have_data false: no "data" tag, allowed for one entry only), at the disk
 * width max(min_bits, ceil(log2 n)). Shared by both readers. */
static mc_status paletted_from_be(mc_container *out, const mc_container_rules *rules, const uint32_t *ids,
                                  size_t n, unsigned min_bits, bool have_data, const uint8_t *be,
                                  size_t count, mc_bits_layout layout, const mc_allocator *alloc,
                                  mc_error *err)
{
    if (!have_data && n != 1)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette of %zu entries without data", n);
    if (!have_data || (n == 1 && count == 0))
        return mc_container_from_be(out, rules, 0, layout, ids, 1, NULL, 0, alloc, err);
    unsigned bits = mc_bits_ceil_log2(n);
    if (bits < min_bits)
        bits = min_bits;
    return mc_container_from_be(out, rules, bits, layout, ids, n, be, count, alloc, err);
}

/* A palette + packed indices container, any era. `min_bits` is 4 for block
 * states (1.13+ disk: max(4, ceil(log2 n))), 0 for biomes. */
mc_status mc__read_paletted(const mc_nbt_tag *pal, const mc_nbt_tag *data, bool biomes,
                               unsigned min_bits, mc_bits_layout layout, const mc_registry *reg,
                               mc_chunknbt_cache *cache, const mc_container_rules *rules, bool lenient,
                               uint32_t *unknown, mc_container *out, const mc_allocator *alloc,
                               mc_error *err)
{
    mc_container_init(out, rules, 0, alloc);
    if (mc_nbt_tag_type(pal) != MC_NBT_LIST)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette is not a list");
    size_t n = mc_nbt_count(pal);
    if (n == 0 || n > 4096)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette of %zu entries", n);
    if (mc_nbt_list_type(pal) != (biomes ? MC_NBT_STRING : MC_NBT_COMPOUND))
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette of %s", mc_nbt_type_name(mc_nbt_list_type(pal)));
    uint32_t stack_ids[256];
    uint32_t *ids = n <= 256 ? stack_ids : malloc(n * sizeof *ids);
    if (!ids)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    mc_status st = biomes ? read_biome_palette(cache, reg, pal, ids, n, lenient, unknown, err)
                          : read_block_palette(cache, reg, pal, ids, n, lenient, unknown, err);
    if (st == MC_OK) {
        mc_nbt_array arr = {0};
        if (!data) {
            /* 1.18+: data omitted for a single entry (1.13-1.17 always have it) */
            st = paletted_from_be(out, rules, ids, n, min_bits, false, NULL, 0, layout, alloc, err);
        } else if (mc_nbt_get_array(data, MC_NBT_LONG_ARRAY, &arr) != MC_OK) {
            st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "data is a %s, not a long array",
                              mc_nbt_type_name(mc_nbt_tag_type(data)));
        } else if (arr.order != MC_NBT_ORDER_BE && !(n == 1 && arr.count == 0)) {
            /* a tree built in memory: convert to big-endian first */
            uint8_t *be = malloc(arr.count * 8 + 1);
            if (!be) {
                st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
            } else {
                for (size_t i = 0; i < arr.count; i++)
                    mc_store_u64be(be + 8 * i, (uint64_t)mc_nbt_array_i64(&arr, i));
                st = paletted_from_be(out, rules, ids, n, min_bits, true, be, arr.count, layout, alloc, err);
                free(be);
            }
        } else {
            st = paletted_from_be(out, rules, ids, n, min_bits, true, arr.data, arr.count, layout, alloc, err);
        }
    }
    if (ids != stack_ids)
        free(ids);
    return st;
}

mc_status mc_chunknbt_read_container(const mc_nbt_tag *container, bool biomes, const mc_registry *reg,
                                     mc_chunknbt_cache *cache, bool lenient, uint32_t *unknown,
                                     mc_container *out, const mc_allocator *alloc, mc_error *err)
{
    if (!reg || !out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: container needs a registry");
    mc_chunknbt_cache *own = NULL;
    if (!cache && !(cache = own = mc_chunknbt_cache_new(alloc)))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    mc_container_rules rules = biomes ? mc__biome_rules(reg) : mc__block_rules(reg);
    mc_status st;
    if (mc_nbt_tag_type(container) != MC_NBT_COMPOUND) {
        mc_container_init(out, &rules, 0, alloc);
        st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "container is not a compound");
    } else {
        st = mc__read_paletted(mc_nbt_get(container, "palette"), mc_nbt_get(container, "data"), biomes,
                           biomes ? 0 : 4, MC_BITS_PADDED, reg, cache, &rules, lenient, unknown, out,
                           alloc, err);
    }
    mc_chunknbt_cache_free(own);
    return st;
}


/* ------------------------------------------------------------ sections */

/* Pre-1.13 arrays (checked: 4096, 2048 and 2048 bytes, add may be NULL)
 * into section s's blocks; values past the registry read as air with a
 * warning (strict: an error). Shared by both readers. */
static mc_status legacy_blocks(reader *r, const uint8_t *blocks, const uint8_t *data, const uint8_t *add,
                               mc_section *s, int32_t y)
{
    mc_container_free(&s->blocks);
    uint32_t replaced = 0;
    mc_status st = mc__legacy_section(r->cache, blocks, data, add, mc_registry_state_count(r->reg), r->air,
                                      r->strict, &r->brules, r->alloc, &replaced, &s->blocks);
    if (st == MC_ERR_RANGE)
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX,
                            "section Y=%d: block ids beyond 255 (Add) not in registry %s", (int)y,
                            mc_registry_name(r->reg));
    if (st != MC_OK)
        return nomem(r);
    if (replaced) {
        if (r->info)
            r->info->unknown_states += replaced;
        warn(r, "section Y=%d: %u blocks with ids beyond the registry read as air", (int)y, replaced);
    }
    return MC_OK;
}

/* Pre-1.13: Blocks byte[4096], Add nibbles?, Data nibbles -> id<<4|meta. */
static mc_status read_legacy_blocks(reader *r, const mc_nbt_tag *sec, mc_section *s, int32_t y)
{
    mc_nbt_array blocks, data, add = {0};
    if (mc_nbt_get_array(mc_nbt_get(sec, "Blocks"), MC_NBT_BYTE_ARRAY, &blocks) != MC_OK ||
        blocks.count != 4096)
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "section Y=%d: Blocks is not byte[4096]", (int)y);
    if (mc_nbt_get_array(mc_nbt_get(sec, "Data"), MC_NBT_BYTE_ARRAY, &data) != MC_OK || data.count != 2048)
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "section Y=%d: Data is not byte[2048]", (int)y);
    const mc_nbt_tag *addt = mc_nbt_get(sec, "Add");
    if (addt && (mc_nbt_get_array(addt, MC_NBT_BYTE_ARRAY, &add) != MC_OK || add.count != 2048))
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "section Y=%d: Add is not byte[2048]", (int)y);
    return legacy_blocks(r, blocks.data, data.data, add.data, s, y);
}

static mc_status read_light(reader *r, const mc_nbt_tag *t, mc_section *s, bool sky, mc_nbt_tag **xs,
                            const mc_nbt_tag *ytag)
{
    mc_nbt_array a;
    if (mc_nbt_get_array(t, MC_NBT_BYTE_ARRAY, &a) == MC_OK && a.count == MC_LIGHT_BYTES) {
        if (r->opt && (r->opt->flags & MC_CHUNKNBT_NO_LIGHT))
            return MC_OK;
        mc_status st = sky ? mc_section_set_sky_light(s, a.data) : mc_section_set_block_light(s, a.data);
        return st == MC_OK ? MC_OK : nomem(r);
    }
    if (r->strict)
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "%s is not byte[2048]", sky ? "SkyLight" : "BlockLight");
    /* keep whatever it is as is */
    if (!r->keep_extra)
        return MC_OK;
    if (!*xs && !(*xs = xsection(r, ytag)))
        return nomem(r);
    return keep(r, *xs, t);
}

/* Does a palette (block_states/biomes compound, or a 1.13-1.17 Palette)
 * name something the registry lacks? Only asked of palettes just read, so
 * the cache answers. */
static bool unknown_here(reader *r, const mc_nbt_tag *t, bool biomes)
{
    if (!t)
        return false;
    const mc_nbt_tag *pal = mc_nbt_tag_type(t) == MC_NBT_LIST ? t : mc_nbt_get(t, "palette");
    for (mc_nbt_tag *e = mc_nbt_first(pal); e; e = mc_nbt_next(e)) {
        uint32_t id;
        if (biomes) {
            const char *s;
            size_t l;
            if (mc_nbt_get_string(e, &s, &l) == MC_OK && mc__cache_biome(r->cache, r->reg, s, l, &id) == MC_ERR_NOT_FOUND)
                return true;
        } else if (mc__cache_block(r->cache, r->reg, e, &id, NULL) == MC_ERR_NOT_FOUND) {
            return true;
        }
    }
    return false;
}

/* 2832..2842 chunks name biomes as the game did before schema 2838
 * ("Caves and Cliffs biome renames") and 2843 ("Remove Deep Warm Ocean");
 * their registry (1.18) knows the new names only. Reads the biomes again
 * with the palette renamed as those fixers rename it (only reached when a
 * biome of such a chunk was unknown). */
static mc_status read_renamed_biomes(reader *r, const mc_nbt_tag *bio, mc_section *s, uint32_t *unknown)
{
    mc_nbt_doc *tmp = mc_nbt_doc_new(NULL);
    mc_nbt_tag *c = tmp ? mc_nbt_copy(tmp, bio) : NULL;
    if (!c) {
        mc_nbt_doc_free(tmp);
        return nomem(r);
    }
    for (mc_nbt_tag *e = mc_nbt_first(mc_nbt_get(c, "palette")); e; e = mc_nbt_next(e)) {
        const char *name, *renamed;
        size_t len;
        if (mc_nbt_get_string(e, &name, &len) == MC_OK && (renamed = mc__biome_renamed_1_18(name, len)) &&
            mc_nbt_set_string(tmp, e, renamed, strlen(renamed)) != MC_OK) {
            mc_nbt_doc_free(tmp);
            return nomem(r);
        }
    }
    *unknown = 0;
    mc_container_free(&s->biomes);
    mc_status st = mc__read_paletted(mc_nbt_get(c, "palette"), mc_nbt_get(c, "data"), true, 0, MC_BITS_PADDED,
                                     r->reg, r->cache, &r->mrules, !r->strict, unknown, &s->biomes, r->alloc,
                                     r->err);
    mc_nbt_doc_free(tmp);
    return st;
}

/* Reads one section compound whose Y is inside the column. */
static mc_status read_section(reader *r, const mc_nbt_tag *sec, const mc_nbt_tag *ytag, int32_t y,
                              mc__chunk_era era, mc_bits_layout layout, bool *with_data,
                              bool *air_with_data)
{
    mc_section *s = mc_column_section(r->col, y);
    mc_nbt_tag *xs = NULL;
    const mc_nbt_tag *pal = NULL, *states = NULL, *bs = NULL, *bio = NULL;
    bool legacy = false;
    mc_status st = MC_OK;
    uint32_t unk_states = 0, unk_biomes = 0;
    uint32_t *unknown = &unk_states;
    for (mc_nbt_tag *t = mc_nbt_first(sec); t && st == MC_OK; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        if (kl == 1 && k[0] == 'Y')
            continue;
        if (era == MC__ERA_MODERN && KEY_IS(t, "block_states")) {
            bs = t;
        } else if (era == MC__ERA_MODERN && KEY_IS(t, "biomes")) {
            bio = t;
        } else if (era == MC__ERA_FLAT && KEY_IS(t, "Palette")) {
            pal = t;
        } else if (era == MC__ERA_FLAT && KEY_IS(t, "BlockStates")) {
            states = t;
        } else if (era == MC__ERA_LEGACY && (KEY_IS(t, "Blocks") || KEY_IS(t, "Data") || KEY_IS(t, "Add"))) {
            legacy = true;
        } else if (KEY_IS(t, "BlockLight")) {
            st = read_light(r, t, s, false, &xs, ytag);
        } else if (KEY_IS(t, "SkyLight")) {
            st = read_light(r, t, s, true, &xs, ytag);
        } else if (r->keep_extra) {
            if (!xs && !(xs = xsection(r, ytag)))
                return nomem(r);
            st = keep(r, xs, t);
        }
    }
    if (st != MC_OK)
        return st;
    bool lenient = !r->strict;
    bool had_blocks = false;
    if (bs) {
        mc_container_free(&s->blocks);
        st = mc_nbt_tag_type(bs) != MC_NBT_COMPOUND
                 ? mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "block_states is not a compound")
                 : mc__read_paletted(mc_nbt_get(bs, "palette"), mc_nbt_get(bs, "data"), false, 4,
                                 MC_BITS_PADDED, r->reg, r->cache, &r->brules, lenient, unknown,
                                 &s->blocks, r->alloc, r->err);
        had_blocks = true;
    } else if (pal) {
        mc_container_free(&s->blocks);
        st = mc__read_paletted(pal, states, false, 4, layout, r->reg, r->cache, &r->brules, lenient,
                           unknown, &s->blocks, r->alloc, r->err);
        had_blocks = true;
    } else if (states) {
        st = mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "BlockStates without Palette");
    } else if (legacy) {
        st = read_legacy_blocks(r, sec, s, y);
        had_blocks = true;
    }
    if (st == MC_OK && bio) {
        mc_container_free(&s->biomes);
        st = mc_nbt_tag_type(bio) != MC_NBT_COMPOUND
                 ? mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "biomes is not a compound")
                 : mc__read_paletted(mc_nbt_get(bio, "palette"), mc_nbt_get(bio, "data"), true, 0,
                                 MC_BITS_PADDED, r->reg, r->cache, &r->mrules, lenient,
                                 &unk_biomes, &s->biomes, r->alloc, r->err);
        if ((unk_biomes || st == MC_ERR_NOT_FOUND) && r->dv >= MC__DV_CONTAINERS &&
            r->dv < MC__DV_RENAMED_BIOMES_GONE)
            st = read_renamed_biomes(r, bio, s, &unk_biomes);
    }
    if (st != MC_OK) {
        /* prefix the section to the message */
        if (r->err) {
            char m[MC_ERROR_MESSAGE_MAX];
            snprintf(m, sizeof m, "%s", r->err->message);
            mc_error_set(r->err, r->err->status, SIZE_MAX, "chunk nbt: section Y=%d: %s", (int)y, m);
        }
        return st;
    }
    if (unk_states || unk_biomes) {
        if (r->info) {
            r->info->unknown_states += unk_states;
            r->info->unknown_biomes += unk_biomes;
        }
        warn(r, "section Y=%d: %u unknown block states / %u biomes read as air / biome 0 (original kept)",
             (int)y, unk_states, unk_biomes);
    }
    if (r->keep_extra && (unk_states || unk_biomes) &&
        (unknown_here(r, bs ? bs : pal, false) || unknown_here(r, bio, true))) {
        /* states or biomes the registry lacks: the original block data
         * stays in the extra NBT; the writer uses it while the model's
         * container still holds what was read */
        if (!xs && !(xs = xsection(r, ytag)))
            return nomem(r);
        const mc_nbt_tag *raw[3] = {bs ? bs : pal, bs ? NULL : states, bio};
        for (int i = 0; i < 3; i++)
            if (raw[i] && (st = keep(r, xs, raw[i])) != MC_OK)
                return st;
    }
    if (!had_blocks && !xs && !s->block_light && !s->sky_light && r->keep_extra &&
        !(r->opt && (r->opt->flags & MC_CHUNKNBT_NO_LIGHT))) {
        /* a section stored with nothing in it: remember that it was there */
        if (!xsection(r, ytag))
            return nomem(r);
    }
    *with_data = had_blocks;
    if (had_blocks) {
        s->block_count = s->fluid_count = MC_SECTION_COUNT_UNKNOWN; /* counted when asked */
        if (r->info)
            r->info->sections_read++;
        *air_with_data = s->blocks.kind == MC_CONTAINER_SINGLE && s->blocks.value == r->air;
    }
    return MC_OK;
}

/* ------------------------------------------------- sections from bytes */

/* mc_chunknbt_read_bytes reads the sections of a 1.18+ chunk from their
 * NBT bytes: the parse builds a tree of every other key and steps over
 * "sections" (checking its structure), and this reader finds each section's
 * palettes, long arrays and light in those bytes. A palette entry is looked
 * up in the cache by its bytes as stored, the long arrays go to the
 * containers as they are, and no tag is built for the whole section list.
 * It takes only sections the tree reader would read without a warning or
 * an extra key: {Y: byte, block_states{palette, data?}, biomes{palette,
 * data?}, BlockLight/SkyLight byte[2048]}; a section outside the column
 * (1.14-1.17 store the light of the sections below and above it) goes
 * whole into the extra NBT from its bytes, as the tree reader copies it.
 * It reads the Level.Sections of older chunks the same way: {Y: byte,
 * Palette: list, BlockStates: long[]} (1.13-1.17, spanning or padded longs)
 * or {Y, Blocks, Data, Add?} (1.8-1.12, through read_legacy.c), with their
 * light; the parse then builds a tree of Level's other keys only (world
 * convert reads every older chunk so: the section list was a third of the
 * tree it built). For
 * anything else it gives up (r->declined, or a failed scan) and the caller
 * reads the chunk with the tree reader, which then gives the column, the
 * warnings and the errors. So both readers give the same column, which
 * test_chunknbt_fast checks on every chunk of the corpus. */

typedef struct fpal {
    uint32_t n;             /* entries */
    uint32_t first;         /* their starts: scan->at[first .. first + n], the last one the end */
    uint8_t elem;           /* element type */
    bool present;
    const uint8_t *data;    /* big-endian longs, NULL without "data" */
    uint32_t data_n;
} fpal;

typedef struct fsec {
    int32_t y;
    const uint8_t *start;  /* the section compound's payload (its tags and end tag) */
    size_t len;
    fpal blocks, biomes;   /* Level.Sections: blocks is Palette + BlockStates */
    const uint8_t *block_light, *sky_light;
    /* Level.Sections of 1.8-1.12: Blocks, Data, Add and their lengths
     * (NULL: absent) */
    const uint8_t *legacy[3];
    uint32_t legacy_n[3];
} fsec;

/* What the scan of a section list found. A chunk's sections and palette
 * entries fit the arrays inside (on the reader's stack): heap blocks of
 * these sizes, made and freed per chunk, cost glibc a consolidation of its
 * bins each time. */
#define FSCAN_SECS 32
#define FSCAN_AT 512
typedef struct fscan {
    fsec *sec;
    size_t n;
    bool wrapped; /* the sections are Level.Sections (pre-1.18 shapes) */
    const uint8_t **at; /* palette entry starts (see fpal) */
    size_t at_len, at_cap;
    fsec sec_here[FSCAN_SECS];
    const uint8_t *at_here[FSCAN_AT];
} fscan;

static void fscan_init(fscan *f)
{
    f->sec = NULL;
    f->n = 0;
    f->wrapped = false;
    f->at = f->at_here;
    f->at_len = 0;
    f->at_cap = FSCAN_AT;
}

static void fscan_free(fscan *f)
{
    if (f->sec != f->sec_here)
        free(f->sec);
    if (f->at != f->at_here)
        free(f->at);
    fscan_init(f);
}

static bool fscan_grow(fscan *f)
{
    size_t ncap = f->at_cap * 2;
    const uint8_t **na = f->at == f->at_here ? malloc(ncap * sizeof *na) : realloc(f->at, ncap * sizeof *na);
    if (!na)
        return false;
    if (f->at == f->at_here)
        memcpy(na, f->at_here, f->at_len * sizeof *na);
    f->at = na;
    f->at_cap = ncap;
    return true;
}

static inline bool fscan_at(fscan *f, const uint8_t *p)
{
    if (f->at_len == f->at_cap && !fscan_grow(f))
        return false;
    f->at[f->at_len++] = p;
    return true;
}

/* A bounded cursor of its own rather than mc_reader (core.h), on purpose:
 * the fast scan only asks "is this the shape I expect?", and gives up on any
 * surprise by handing the chunk to the tree reader, which reports the error.
 * So it needs no message, offset or sticky error state -- just two pointers
 * that stay in registers -- while mc_reader carries those for decoders that
 * must say what went wrong and where. (nbt's parser, parse_tmpl.h, likewise
 * keeps its cursor in locals and checks every length against the bytes left;
 * it reports errors through the document, with the offset.) */
typedef struct bscan {
    const uint8_t *p, *end;
} bscan;

static bool bs_need(const bscan *b, size_t n)
{
    return (size_t)(b->end - b->p) >= n;
}

/* A tag key: its bytes, false when truncated. */
static bool bs_key(bscan *b, const uint8_t **k, size_t *kl)
{
    if (!bs_need(b, 2))
        return false;
    *kl = mc_load_u16be(b->p);
    b->p += 2;
    if (!bs_need(b, *kl))
        return false;
    *k = b->p;
    b->p += *kl;
    return true;
}

static bool bs_count(bscan *b, uint32_t *n)
{
    if (!bs_need(b, 4))
        return false;
    int32_t v = (int32_t)mc_load_u32be(b->p);
    b->p += 4;
    if (v < 0)
        return false;
    *n = (uint32_t)v;
    return true;
}

/* Steps over a payload of `type`; false on anything malformed (the parse
 * that stepped over it first already checked it: this is a second guard). */
static bool bs_skip(bscan *b, unsigned type, unsigned depth)
{
    static const uint8_t fixed[7] = {0, 1, 2, 4, 8, 4, 8};
    if (depth > 64)
        return false;
    switch (type) {
    case MC_NBT_BYTE: case MC_NBT_SHORT: case MC_NBT_INT: case MC_NBT_LONG: case MC_NBT_FLOAT:
    case MC_NBT_DOUBLE:
        if (!bs_need(b, fixed[type]))
            return false;
        b->p += fixed[type];
        return true;
    case MC_NBT_STRING: {
        const uint8_t *k;
        size_t kl;
        return bs_key(b, &k, &kl);
    }
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY: {
        uint32_t n;
        if (!bs_count(b, &n))
            return false;
        uint64_t bytes = (uint64_t)n * (type == MC_NBT_BYTE_ARRAY ? 1 : type == MC_NBT_INT_ARRAY ? 4 : 8);
        if (bytes > (uint64_t)(b->end - b->p))
            return false;
        b->p += bytes;
        return true;
    }
    case MC_NBT_LIST: {
        uint32_t n;
        if (!bs_need(b, 1))
            return false;
        unsigned elem = *b->p++;
        if (!bs_count(b, &n) || elem > MC_NBT_LONG_ARRAY || (elem == MC_NBT_END && n))
            return false;
        for (uint32_t i = 0; i < n; i++)
            if (!bs_skip(b, elem, depth + 1))
                return false;
        return true;
    }
    case MC_NBT_COMPOUND:
        for (;;) {
            if (!bs_need(b, 1))
                return false;
            unsigned t = *b->p++;
            if (t == MC_NBT_END)
                return true;
            const uint8_t *k;
            size_t kl;
            if (t > MC_NBT_LONG_ARRAY || !bs_key(b, &k, &kl) || !bs_skip(b, t, depth + 1))
                return false;
        }
    default:
        return false;
    }
}

/* Past a u16-length-prefixed run of bytes (a key, a string) at p; NULL
 * when it does not fit before end. */
static inline const uint8_t *skip_u16_bytes(const uint8_t *p, const uint8_t *end)
{
    if (end - p < 2)
        return NULL;
    const size_t n = mc_load_u16be(p);
    return (size_t)(end - p - 2) < n ? NULL : p + 2 + n;
}

/* Past `Name: "..."` and the entry's end tag at p (the shape of the
 * game's entries: {Properties: {...}, Name} or {Name}); NULL otherwise. */
static inline const uint8_t *name_then_end(const uint8_t *p, const uint8_t *end)
{
    /* TAG_String, key "Name": 08 00 04 'N' 'a' 'm' 'e', compared as two
     * overlapping words (a memcmp of 7 bytes is a library call) */
    if (end - p < 10 || mc_load_u32be(p) != 0x0800044Eu || mc_load_u32be(p + 3) != 0x4E616D65u)
        return NULL;
    const size_t n = mc_load_u16be(p + 7);
    return (size_t)(end - p - 10) >= n && p[9 + n] == MC_NBT_END ? p + 10 + n : NULL;
}

/* A block palette entry (a compound of strings and compounds of strings,
 * {Name, Properties{...}}) stepped over: the game's two shapes in straight
 * lines, anything else in one loop (other tags inside go to bs_skip). */
static bool bs_skip_entry(bscan *b)
{
    const uint8_t *p = b->p, *const end = b->end;
    /* every branch of the general walk below is one more chance to
     * mispredict, per entry */
    const uint8_t *q = name_then_end(p, end);
    /* TAG_Compound, key "Properties": 0A 00 0A 'P' 'r' 'o' 'p' 'e' 'r' 't' 'i' 'e' 's' */
    if (!q && end - p >= 13 && mc_load_u64be(p) == 0x0A000A50726F7065ull &&
        mc_load_u64be(p + 5) == 0x6F70657274696573ull) {
        q = p + 13;
        while (q && q < end && *q == MC_NBT_STRING)
            if ((q = skip_u16_bytes(q + 1, end))) /* the key */
                q = skip_u16_bytes(q, end);       /* the value */
        q = q && q < end && *q == MC_NBT_END ? name_then_end(q + 1, end) : NULL;
    }
    if (q) {
        b->p = q;
        return true;
    }
    int inner = 0; /* inside a nested compound */
    for (;;) {
        if (p >= end)
            return false;
        const unsigned t = *p++;
        if (t == MC_NBT_END) {
            if (!inner) {
                b->p = p;
                return true;
            }
            inner = 0;
            continue;
        }
        if (!(p = skip_u16_bytes(p, end))) /* the key */
            return false;
        if (t == MC_NBT_STRING) {
            if (!(p = skip_u16_bytes(p, end)))
                return false;
        } else if (t == MC_NBT_COMPOUND && !inner) {
            inner = 1;
        } else {
            b->p = p;
            if (t > MC_NBT_LONG_ARRAY || !bs_skip(b, t, 5))
                return false;
            p = b->p;
        }
    }
}

const uint8_t *mc__palette_entry_end(const uint8_t *p, const uint8_t *end)
{
    bscan b = {p, end};
    return bs_skip_entry(&b) ? b.p : NULL;
}

#define BS_KEY_IS(k, kl, lit) ((kl) == sizeof lit - 1 && memcmp((k), lit, sizeof lit - 1) == 0)

/* A palette list's payload (element type, count, entries) into c. */
static bool scan_palette(bscan *b, fscan *f, fpal *c)
{
    if (!bs_need(b, 1))
        return false;
    c->elem = *b->p++;
    if (!bs_count(b, &c->n) || c->elem > MC_NBT_LONG_ARRAY || c->n > 4096 || (c->elem == 0 && c->n))
        return false;
    c->first = (uint32_t)f->at_len;
    if (c->elem == MC_NBT_COMPOUND) {
        for (uint32_t i = 0; i < c->n; i++)
            if (!fscan_at(f, b->p) || !bs_skip_entry(b))
                return false;
    } else {
        for (uint32_t i = 0; i < c->n; i++)
            if (!fscan_at(f, b->p) || !bs_skip(b, c->elem, 3))
                return false;
    }
    if (!fscan_at(f, b->p))
        return false;
    c->present = true;
    return true;
}

/* A long array's payload: where its longs start and how many. */
static bool scan_longs(bscan *b, fpal *c)
{
    if (!bs_count(b, &c->data_n) || (uint64_t)c->data_n * 8 > (uint64_t)(b->end - b->p))
        return false;
    c->data = b->p;
    b->p += (size_t)c->data_n * 8;
    return true;
}

/* A block_states or biomes compound: {palette: list, data?: long[]}. */
static bool scan_container(bscan *b, fscan *f, fpal *c)
{
    bool have_data = false;
    for (;;) {
        if (!bs_need(b, 1))
            return false;
        unsigned t = *b->p++;
        if (t == MC_NBT_END)
            break;
        const uint8_t *k;
        size_t kl;
        if (!bs_key(b, &k, &kl))
            return false;
        if (BS_KEY_IS(k, kl, "palette") && t == MC_NBT_LIST && !c->present) {
            if (!scan_palette(b, f, c))
                return false;
        } else if (BS_KEY_IS(k, kl, "data") && t == MC_NBT_LONG_ARRAY && !have_data) {
            if (!scan_longs(b, c))
                return false;
            have_data = true;
        } else {
            return false; /* another key, type or a repeated key */
        }
    }
    return c->present;
}

/* One key of a pre-1.18 section (Level.Sections) of type t at b: Palette,
 * BlockStates, Blocks, Data, Add (each once, of its type); false for
 * anything else. */
static bool scan_old_key(bscan *b, fscan *f, fsec *s, unsigned t, const uint8_t *k, size_t kl, bool *have_states)
{
    static const char *const arrays[3] = {"Blocks", "Data", "Add"};
    if (BS_KEY_IS(k, kl, "Palette") && t == MC_NBT_LIST && !s->blocks.present)
        return scan_palette(b, f, &s->blocks);
    if (BS_KEY_IS(k, kl, "BlockStates") && t == MC_NBT_LONG_ARRAY && !*have_states)
        return (*have_states = true) && scan_longs(b, &s->blocks);
    for (int a = 0; a < 3; a++)
        if (kl == strlen(arrays[a]) && memcmp(k, arrays[a], kl) == 0) {
            uint32_t n;
            if (t != MC_NBT_BYTE_ARRAY || s->legacy[a] || !bs_count(b, &n) || !bs_need(b, n))
                return false;
            s->legacy[a] = b->p;
            s->legacy_n[a] = n;
            b->p += n;
            return true;
        }
    return false;
}

/* A section list's payload at v (ending at most at end) -> descriptors;
 * returns where the list ends, NULL when it holds anything but the plain
 * shape above (or is malformed: the parse then checks it). */
static const uint8_t *scan_sections(const uint8_t *v, const uint8_t *end, fscan *f, bool wrapped)
{
    bscan b = {v, end};
    uint32_t n;
    f->wrapped = wrapped;
    if (!bs_need(&b, 1))
        return NULL;
    unsigned elem = *b.p++;
    if (!bs_count(&b, &n) || elem > MC_NBT_LONG_ARRAY || (elem == MC_NBT_END && n))
        return NULL;
    if (n == 0)
        return b.p;
    if (elem != MC_NBT_COMPOUND || n > 4096)
        return NULL;
    if (n <= FSCAN_SECS) {
        f->sec = f->sec_here;
        memset(f->sec, 0, n * sizeof *f->sec);
    } else if (!(f->sec = calloc(n, sizeof *f->sec))) {
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        fsec *s = &f->sec[i];
        bool have_y = false, have_states = false;
        s->start = b.p;
        for (;;) {
            if (!bs_need(&b, 1))
                return NULL;
            unsigned t = *b.p++;
            if (t == MC_NBT_END)
                break;
            const uint8_t *k;
            size_t kl;
            if (!bs_key(&b, &k, &kl))
                return NULL;
            if (BS_KEY_IS(k, kl, "Y") && t == MC_NBT_BYTE && !have_y) {
                if (!bs_need(&b, 1))
                    return NULL;
                s->y = (int8_t)*b.p++;
                have_y = true;
            } else if (!wrapped && BS_KEY_IS(k, kl, "block_states") && t == MC_NBT_COMPOUND && !s->blocks.present) {
                if (!scan_container(&b, f, &s->blocks))
                    return NULL;
            } else if (!wrapped && BS_KEY_IS(k, kl, "biomes") && t == MC_NBT_COMPOUND && !s->biomes.present) {
                if (!scan_container(&b, f, &s->biomes))
                    return NULL;
            } else if ((BS_KEY_IS(k, kl, "BlockLight") || BS_KEY_IS(k, kl, "SkyLight")) &&
                       t == MC_NBT_BYTE_ARRAY) {
                const uint8_t **dst = kl == 10 ? &s->block_light : &s->sky_light;
                uint32_t an;
                if (*dst || !bs_count(&b, &an) || an != MC_LIGHT_BYTES || !bs_need(&b, an))
                    return NULL;
                *dst = b.p;
                b.p += an;
            } else if (!wrapped || !scan_old_key(&b, f, s, t, k, kl, &have_states)) {
                return NULL;
            }
        }
        if (!have_y || (have_states && !s->blocks.present))
            return NULL;
        s->len = (size_t)(b.p - s->start);
    }
    f->n = n;
    return b.p;
}

/* One container from its descriptor, as mc__read_paletted reads the tree;
 * MC_ERR_UNSUPPORTED: give up (the tree reader takes the chunk). */
static mc_status read_paletted_fast(reader *r, const fpal *p, bool biomes, mc_bits_layout layout,
                                    mc_container *out)
{
    const mc_container_rules *rules = biomes ? &r->mrules : &r->brules;
    mc_container_init(out, rules, 0, r->alloc);
    const uint32_t n = p->n;
    if (n == 0 || n > 4096 || p->elem != (biomes ? MC_NBT_STRING : MC_NBT_COMPOUND))
        return MC_ERR_UNSUPPORTED;
    uint32_t stack_ids[256];
    const uint8_t *const *at = r->scan->at + p->first;
    const size_t plen = (size_t)(at[n] - at[0]);
    pal_memo *memo = &r->memo[biomes];
    const uint32_t memo_cap = sizeof memo->ids[0] / sizeof memo->ids[0][0];
    uint32_t *ids;
    mc_status st = MC_OK;
    if (memo->n == n && memo->len == plen && mc__bytes_equal(memo->bytes, at[0], plen)) {
        ids = memo->ids[memo->cur]; /* the previous section's palette */
    } else {
        ids = n <= memo_cap ? memo->ids[!memo->cur] : n <= 256 ? stack_ids : malloc(n * sizeof *ids);
        if (!ids)
            return nomem(r);
        if (biomes) {
            for (uint32_t i = 0; i < n && st == MC_OK; i++) {
                const uint8_t *name = at[i] + 2;
                const size_t len = (size_t)(at[i + 1] - name);
                for (size_t j = 0; j < len && st == MC_OK; j++)
                    if (name[j] == 0 || name[j] >= 0x80) /* not plain ASCII: the tree reader decodes it */
                        st = MC_ERR_UNSUPPORTED;
                if (st == MC_OK)
                    st = mc__cache_biome(r->cache, r->reg, (const char *)name, len, &ids[i]);
            }
        } else {
            for (uint32_t i = 0; i < n && st == MC_OK; i++)
                st = mc__cache_block_raw(r->cache, r->reg, at[i], (size_t)(at[i + 1] - at[i]), &ids[i]);
        }
        if (st == MC_OK && n <= memo_cap) {
            memo->bytes = at[0];
            memo->len = plen;
            memo->n = n;
            memo->cur = !memo->cur;
        }
    }
    if (st == MC_OK) {
        mc_error e;
        st = paletted_from_be(out, rules, ids, n, biomes ? 0 : 4, p->data != NULL, p->data, p->data_n, layout,
                              r->alloc, &e);
    }
    if (n > 256 && ids != memo->ids[0] && ids != memo->ids[1])
        free(ids);
    if (st == MC_ERR_NOMEM)
        return nomem(r);
    return st == MC_OK ? MC_OK : MC_ERR_UNSUPPORTED;
}

/* Whether a scanned section holds block data in the chunk's era (the
 * tree's has_block_data). */
static bool fsec_has_blocks(const fsec *f, mc__chunk_era era)
{
    return era == MC__ERA_LEGACY ? f->legacy[0] != NULL : f->blocks.present;
}

/* Whether a 1.8-1.12 section read from bytes is left as stored
 * (MC_CHUNKNBT_LEGACY_RAW): without Add its values are below 4096, so
 * every one is a state of a registry of 4096 or more (none is replaced). */
static bool raw_legacy(const reader *r, const fsec *f)
{
    return r->info && r->opt && (r->opt->flags & MC_CHUNKNBT_LEGACY_RAW) && !r->keep_extra && !f->legacy[2] &&
           f->y >= 0 && f->y < 16 && mc_registry_state_count(r->reg) >= 4096;
}

/* read_section for a section from bytes (inside the column): block_states
 * and biomes (1.18+), Palette and BlockStates (1.13-1.17) or Blocks, Data
 * and Add (1.8-1.12), whichever the era reads, and light. */
static mc_status read_section_fast(reader *r, const fsec *f, mc__chunk_era era, mc_bits_layout layout,
                                   bool *with_data, bool *air_with_data)
{
    mc_section *s = mc_column_section(r->col, f->y);
    const bool no_light = r->opt && (r->opt->flags & MC_CHUNKNBT_NO_LIGHT);
    mc_status st;
    if (!no_light && ((f->block_light && mc_section_set_block_light(s, f->block_light) != MC_OK) ||
                      (f->sky_light && mc_section_set_sky_light(s, f->sky_light) != MC_OK)))
        return nomem(r);
    const bool legacy = era == MC__ERA_LEGACY && (f->legacy[0] || f->legacy[1] || f->legacy[2]);
    const bool paletted = era != MC__ERA_LEGACY && f->blocks.present;
    if (legacy) {
        if (!f->legacy[0] || f->legacy_n[0] != 4096 || !f->legacy[1] || f->legacy_n[1] != 2048 ||
            (f->legacy[2] && f->legacy_n[2] != 2048))
            return MC_ERR_UNSUPPORTED; /* the tree reader says what is wrong */
        if (raw_legacy(r, f)) {
            r->info->legacy_blocks[f->y][0] = f->legacy[0];
            r->info->legacy_blocks[f->y][1] = f->legacy[1];
        } else if ((st = legacy_blocks(r, f->legacy[0], f->legacy[1], f->legacy[2], s, f->y)) != MC_OK) {
            return st;
        }
    } else if (paletted) {
        mc_container_free(&s->blocks);
        if ((st = read_paletted_fast(r, &f->blocks, false, layout, &s->blocks)) != MC_OK)
            return st;
    }
    if (f->biomes.present) {
        mc_container_free(&s->biomes);
        if ((st = read_paletted_fast(r, &f->biomes, true, MC_BITS_PADDED, &s->biomes)) != MC_OK)
            return st;
    }
    *with_data = legacy || paletted;
    if (!*with_data && !f->block_light && !f->sky_light && r->keep_extra && !no_light) {
        /* a section stored with nothing in it: remember that it was there */
        mc_nbt_tag *e = ensure_xsections(r) ? mc_nbt_list_append(r->xdoc, r->xsections, MC_NBT_COMPOUND) : NULL;
        if (!e || mc_nbt_put_byte(r->xdoc, e, "Y", (int8_t)f->y) != MC_OK)
            return nomem(r);
    }
    if (*with_data) {
        s->block_count = s->fluid_count = MC_SECTION_COUNT_UNKNOWN; /* counted when asked */
        if (r->info)
            r->info->sections_read++;
        *air_with_data = s->blocks.kind == MC_CONTAINER_SINGLE && s->blocks.value == r->air;
    }
    return MC_OK;
}

/* ------------------------------------------------------- column ranges */

static bool section_y(const mc_nbt_tag *sec, int32_t *y)
{
    int64_t v;
    if (mc_nbt_get_integer(mc_nbt_get(sec, "Y"), &v) != MC_OK || v < INT32_MIN / 32 || v > INT32_MAX / 32)
        return false;
    *y = (int32_t)v;
    return true;
}

static bool has_block_data(const mc_nbt_tag *sec, mc__chunk_era era)
{
    if (era == MC__ERA_MODERN)
        return mc_nbt_get(sec, "block_states") != NULL;
    if (era == MC__ERA_FLAT)
        return mc_nbt_get(sec, "Palette") != NULL;
    return mc_nbt_get(sec, "Blocks") != NULL;
}

/* ------------------------------------------------------------- biomes */

/* Pre-1.15 2D biomes (byte[256] or int[256], index z*16+x) -> cells: each
 * 4x4 cell takes the column at its centre (2, 2). The original array stays
 * in the extra NBT for the writer. */
static mc_status biomes_2d(reader *r, const mc_nbt_array *a)
{
    uint32_t limit = 1u << r->mrules.direct_bits;
    uint32_t cells[16];
    for (unsigned cz = 0; cz < 4; cz++)
        for (unsigned cx = 0; cx < 4; cx++) {
            size_t i = (size_t)(cz * 4 + 2) * 16 + cx * 4 + 2;
            uint32_t v = a->elem_size == 1 ? a->data[i] : (uint32_t)mc_nbt_array_i32(a, i);
            cells[cz * 4 + cx] = v < limit ? v : 0;
        }
    uint32_t vals[64];
    for (unsigned i = 0; i < 64; i++)
        vals[i] = cells[i & 15];
    /* every section the same: built once, copied */
    const mc_container *first = NULL;
    for (uint32_t k = 0; k < mc_column_section_count(r->col); k++) {
        mc_container *b = &mc_column_section_at(r->col, k)->biomes;
        mc_status st;
        if (first) {
            mc_container_free(b);
            st = mc_container_copy(b, first);
        } else {
            st = mc_container_set_all(b, vals);
            first = b;
        }
        if (st != MC_OK)
            return nomem(r);
    }
    return MC_OK;
}

/* 1.15-1.17 3D biomes int[64 * sections], index y<<4|z<<2|x in cells from
 * the column's bottom. False when they do not fit the model (kept raw). */
static bool biomes_3d(reader *r, const mc_nbt_array *a, mc_status *st)
{
    uint32_t count = mc_column_section_count(r->col);
    *st = MC_OK;
    if (a->count != (size_t)count * 64)
        return false;
    uint32_t limit = 1u << r->mrules.direct_bits;
    for (size_t i = 0; i < a->count; i++)
        if ((uint32_t)mc_nbt_array_i32(a, i) >= limit)
            return false;
    uint32_t vals[64];
    for (uint32_t k = 0; k < count; k++) {
        for (unsigned i = 0; i < 64; i++)
            vals[i] = (uint32_t)mc_nbt_array_i32(a, (size_t)k * 64 + i);
        if (mc_container_set_all(&mc_column_section_at(r->col, k)->biomes, vals) != MC_OK) {
            *st = nomem(r);
            return true;
        }
    }
    return true;
}

/* ------------------------------------------------------------ the chunk */

static mc_status read_heightmaps(reader *r, const mc_nbt_tag *hms, mc_bits_layout layout)
{
    mc_nbt_tag *xh = NULL;
    if (r->keep_extra) {
        xh = mc_nbt_put_compound(r->xdoc, r->xlevel, "Heightmaps");
        if (!xh)
            return nomem(r);
    }
    if (mc_nbt_tag_type(hms) != MC_NBT_COMPOUND) {
        /* not a compound: keep it as it is */
        if (r->keep_extra) {
            mc_nbt_remove(r->xlevel, "Heightmaps", 10);
            return keep(r, r->xlevel, hms);
        }
        return MC_OK;
    }
    for (mc_nbt_tag *t = mc_nbt_first(hms); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        mc_heightmap_type type;
        mc_nbt_array a;
        bool ok = false;
        if (mc_heightmap_from_name(k, kl, &type) &&
            mc_nbt_get_array(t, MC_NBT_LONG_ARRAY, &a) == MC_OK && a.order == MC_NBT_ORDER_BE &&
            !mc_column_has_heightmap(r->col, type)) {
            mc_error e;
            ok = mc_column_heightmap_from_be(r->col, type, a.data, a.count, layout, &e) == MC_OK;
            if (ok) {
                /* only if writing it back gives the same longs (padding bits) */
                uint8_t back[8 * 64];
                if (a.count <= 64 && mc_column_heightmap_write_be(r->col, type, layout, back) == MC_OK &&
                    memcmp(back, a.data, a.count * 8) != 0)
                    ok = false;
                if (!ok)
                    mc_column_heightmap_remove(r->col, type);
            } else {
                warn(r, "heightmap %.*s: %s (kept as is)", (int)kl, k, e.message);
            }
        }
        if (!ok && r->keep_extra) {
            mc_status st = keep(r, xh, t);
            if (st != MC_OK)
                return st;
        }
    }
    return MC_OK;
}

static mc_status read_block_entities(reader *r, const mc_nbt_tag *list)
{
    if (!r->keep_extra && !(r->opt && (r->opt->flags & MC_CHUNKNBT_BLOCK_ENTITIES)))
        return MC_OK;
    bool ok = mc_nbt_tag_type(list) == MC_NBT_LIST &&
              (mc_nbt_list_type(list) == MC_NBT_COMPOUND || mc_nbt_count(list) == 0) &&
              (mc_nbt_count(list) > 0 || mc_nbt_list_type(list) == MC_NBT_END);
    for (mc_nbt_tag *e = ok ? mc_nbt_first(list) : NULL; e && ok; e = mc_nbt_next(e)) {
        int32_t x, y, z;
        if (mc_nbt_get_int(mc_nbt_get(e, "x"), &x) != MC_OK || mc_nbt_get_int(mc_nbt_get(e, "y"), &y) != MC_OK ||
            mc_nbt_get_int(mc_nbt_get(e, "z"), &z) != MC_OK || mc_column_block_entity(r->col, x, y, z)) {
            ok = false;
            break;
        }
        if (mc_column_put_block_entity(r->col, x, y, z, e) != MC_OK)
            return nomem(r);
    }
    if (ok && mc_nbt_count(list) == 0)
        return keep(r, r->xlevel, list); /* an empty list: only its presence matters */
    if (!ok) {
        /* entries without a position, duplicates, another list type: keep
         * the list itself for the writer */
        warn(r, "block entity list kept as is (entries without a unique x/y/z)");
        return keep(r, r->xlevel, list);
    }
    return MC_OK;
}

static mc_status add_int_list(reader *r, mc_nbt_tag *dst, const char *key, const int32_t *v, size_t n)
{
    return mc_nbt_put_int_array(r->xdoc, dst, key, v, n) == MC_OK ? MC_OK : nomem(r);
}

/* What read_impl's steps share about the chunk besides the reader: where
 * its keys are (Level or the root), its era and sections, and the range of
 * the column it becomes. */
typedef struct chunk_shape {
    const mc_nbt_tag *root, *level;
    bool wrapped;                /* pre-1.18: keys inside "Level" */
    mc__chunk_era era;
    const mc_nbt_tag *sections;  /* the tree's section list (NULL: fast, or none) */
    const fsec *fs;              /* the fast scan's sections */
    size_t nfs;
    mc_bits_layout layout;
    const mc_nbt_tag *biomes_tag; /* pre-1.18 "Biomes" */
    mc_nbt_array biomes_arr;
    bool have_biomes_arr;
    int32_t min_sec;
    uint32_t count;
} chunk_shape;

/* Step 1: the era from the DataVersion, corrected by what the sections
 * hold (a newer or a hand-made chunk tells its own shape). */
static mc_status find_sections(reader *r, chunk_shape *c)
{
    c->level = mc_nbt_get(c->root, "Level");
    c->wrapped = mc_nbt_tag_type(c->level) == MC_NBT_COMPOUND;
    if (!c->wrapped)
        c->level = c->root;
    c->era = mc__era_of(r->dv);
    const bool wrapped_scan = r->fast && r->scan->wrapped;
    if (r->fast && (wrapped_scan ? !c->wrapped || c->era == MC__ERA_MODERN
                                 : c->wrapped || c->era != MC__ERA_MODERN || r->dv < MC__DV_YPOS))
        return MC_ERR_UNSUPPORTED; /* sections of another shape: for the tree reader */
    c->sections = NULL;
    if (!r->fast) {
        c->sections = mc_nbt_get(c->level, c->wrapped ? "Sections" : "sections");
        if (!c->sections)
            c->sections = mc_nbt_get(c->level, c->wrapped ? "sections" : "Sections");
    }
    if (wrapped_scan) {
        /* Level.Sections from bytes: the era of the first section with
         * blocks, as below (the scan took none with block_states) */
        for (size_t i = 0; i < c->nfs; i++) {
            if (c->fs[i].blocks.present) { c->era = MC__ERA_FLAT; break; }
            if (c->fs[i].legacy[0]) { c->era = MC__ERA_LEGACY; break; }
        }
    } else if (r->fast) {
        /* only the modern shape was taken: era stays MODERN */
    } else if (mc_nbt_tag_type(c->sections) == MC_NBT_LIST) {
        for (mc_nbt_tag *s = mc_nbt_first(c->sections); s; s = mc_nbt_next(s)) {
            if (mc_nbt_get(s, "block_states")) { c->era = MC__ERA_MODERN; break; }
            if (mc_nbt_get(s, "Palette")) { c->era = MC__ERA_FLAT; break; }
            if (mc_nbt_get(s, "Blocks")) { c->era = MC__ERA_LEGACY; break; }
        }
    } else if (c->sections) {
        /* not a terrain chunk (poi files keep a compound here): the model
         * gets no sections from it, the extra NBT keeps it */
        if (r->strict)
            return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "chunk nbt: sections is not a list");
        c->sections = NULL;
    }
    r->sections_key = r->fast ? (wrapped_scan ? "Sections" : "sections")
                      : c->sections ? (KEY_IS(c->sections, "Sections") ? "Sections" : "sections")
                                    : (c->wrapped ? "Sections" : "sections");
    c->layout = r->dv >= MC_CHUNKNBT_DV_PADDED || c->era == MC__ERA_MODERN ? MC_BITS_PADDED : MC_BITS_SPANNING;
    return MC_OK;
}

/* Step 2: the registry of the DataVersion and what depends on it. */
static mc_status choose_registry(reader *r)
{
    const mc_chunknbt_options *opt = r->opt;
    r->reg = opt && opt->registry ? opt->registry : mc_chunknbt_registry_for(r->dv);
    if (!r->reg)
        return mc_error_set(r->err, MC_ERR_UNSUPPORTED, SIZE_MAX, "chunk nbt: no registry for DataVersion %d",
                            (int)r->dv);
    int32_t newest = mc__newest_known_dv();
    if (r->dv > newest) {
        if (r->info)
            r->info->newer_than_known = true;
        warn(r, "DataVersion %d is newer than every known one (%d): read with the newest rules", (int)r->dv,
             (int)newest);
    }
    r->brules = mc__block_rules(r->reg);
    r->mrules = mc__biome_rules(r->reg);
    r->air = mc_registry_air(r->reg);
    return MC_OK;
}

/* Step 3: the column's range of sections: the caller's, else yPos and the
 * sections with block data (1.18+), else 0..15 but for 1.17's custom
 * heights (the biome array has 64 cells per section). */
static mc_status column_range(reader *r, chunk_shape *c)
{
    const mc_chunknbt_options *opt = r->opt;
    c->min_sec = 0;
    c->count = 16;
    c->biomes_tag = c->era == MC__ERA_MODERN ? NULL : mc_nbt_get(c->level, "Biomes");
    c->have_biomes_arr = c->biomes_tag &&
                         (mc_nbt_get_array(c->biomes_tag, MC_NBT_INT_ARRAY, &c->biomes_arr) == MC_OK ||
                          mc_nbt_get_array(c->biomes_tag, MC_NBT_BYTE_ARRAY, &c->biomes_arr) == MC_OK);
    if (opt && opt->section_count) {
        c->min_sec = opt->min_section;
        c->count = opt->section_count;
    } else {
        int32_t lo = INT32_MAX, hi = INT32_MIN, any_lo = INT32_MAX;
        for (size_t i = 0; i < c->nfs; i++) {
            const int32_t y = c->fs[i].y;
            if (y < any_lo)
                any_lo = y;
            if (fsec_has_blocks(&c->fs[i], c->era)) {
                if (y < lo) lo = y;
                if (y > hi) hi = y;
            }
        }
        for (mc_nbt_tag *s = c->sections ? mc_nbt_first(c->sections) : NULL; s; s = mc_nbt_next(s)) {
            int32_t y;
            if (!section_y(s, &y))
                continue;
            if (y < any_lo)
                any_lo = y;
            if (has_block_data(s, c->era)) {
                if (y < lo) lo = y;
                if (y > hi) hi = y;
            }
        }
        int64_t yp;
        const mc_nbt_array *ba = &c->biomes_arr;
        if (c->era == MC__ERA_MODERN) {
            if (mc_nbt_get_integer(mc_nbt_get(c->level, "yPos"), &yp) == MC_OK && yp > INT32_MIN / 32 &&
                yp < INT32_MAX / 32)
                c->min_sec = (int32_t)yp;
            else
                c->min_sec = lo != INT32_MAX ? lo : (any_lo != INT32_MAX ? any_lo + 1 : -4);
            c->count = hi >= c->min_sec && hi != INT32_MIN ? (uint32_t)(hi - c->min_sec + 1) : 24;
        } else if (r->dv >= MC_CHUNKNBT_DV_HEIGHT &&
                   (lo < 0 || hi > 15 || (c->have_biomes_arr && ba->elem_size == 4 && ba->count != 1024))) {
            c->min_sec = lo != INT32_MAX ? lo : 0;
            if (c->have_biomes_arr && ba->elem_size == 4 && ba->count % 64 == 0 && ba->count)
                c->count = (uint32_t)(ba->count / 64);
            else
                c->count = hi >= c->min_sec ? (uint32_t)(hi - c->min_sec + 1) : 16;
            if (hi != INT32_MIN && (int64_t)c->min_sec + c->count <= hi)
                c->count = (uint32_t)(hi - c->min_sec + 1);
        }
    }
    if (c->count == 0 || c->count > 4096)
        return mc_error_set(r->err, MC_ERR_MALFORMED, SIZE_MAX, "chunk nbt: %u sections", c->count);
    return MC_OK;
}

/* Step 4: the extra NBT the model does not hold, begun: the source
 * DataVersion, what the chunk's shape lacked (so the writer leaves it out
 * again), the Level wrapper and the root keys beside it. */
static mc_status begin_extra(reader *r, const chunk_shape *c)
{
    r->xroot = mc_column_extra(r->col);
    r->xdoc = mc_column_nbt(r->col);
    if (!r->xroot || mc_nbt_put_int(r->xdoc, r->xroot, MC__KEY_SOURCE_DV, r->dv) != MC_OK)
        return nomem(r);
    r->xlevel = r->xroot;
    unsigned shape = 0;
    if (!c->wrapped && (c->era != MC__ERA_MODERN || mc__dv_has_level(r->dv)))
        shape |= MC__SHAPE_NO_LEVEL;
    if (!r->fast && !c->sections) /* (a section list taken from bytes is there) */
        shape |= MC__SHAPE_NO_SECTIONS;
    if (!mc_nbt_get(c->level, "xPos") || !mc_nbt_get(c->level, "zPos"))
        shape |= MC__SHAPE_NO_POS;
    if (shape && mc_nbt_put_byte(r->xdoc, r->xroot, MC__KEY_SHAPE, (int8_t)shape) != MC_OK)
        return nomem(r);
    if (!c->wrapped)
        return MC_OK;
    r->xlevel = mc_nbt_put_compound(r->xdoc, r->xroot, "Level");
    if (!r->xlevel)
        return nomem(r);
    /* root keys besides Level (pre-1.18: DataVersion and what mods add) */
    mc_status st = MC_OK;
    for (mc_nbt_tag *t = mc_nbt_first(c->root); t && st == MC_OK; t = mc_nbt_next(t))
        if (!KEY_IS(t, "Level"))
            st = keep(r, r->xroot, t);
    return st;
}

/* Remembers, in the extra NBT, which sections were stored otherwise than
 * the writer would store them: pre-1.18, sections with block data although
 * all air (the writer would leave them out); 1.18+, sections of the range
 * stored without block data (the writer would add them). had[i]: 1 = stored
 * with block data, 2 = and all air. */
static mc_status note_odd_sections(reader *r, const chunk_shape *c, const uint8_t *had)
{
    int32_t *ys = malloc((size_t)c->count * sizeof *ys);
    if (!ys)
        return nomem(r);
    size_t n = 0;
    for (uint32_t i = 0; i < c->count; i++)
        if (c->era == MC__ERA_MODERN ? had[i] == 0 : had[i] == 2)
            ys[n++] = c->min_sec + (int32_t)i;
    mc_status st = MC_OK;
    if (n)
        st = add_int_list(r, r->xlevel, c->era == MC__ERA_MODERN ? MC__KEY_NO_DATA_SECTIONS : MC__KEY_AIR_SECTIONS,
                          ys, n);
    free(ys);
    return st;
}

/* Step 5: the sections, from the fast scan's bytes or from the tree; a
 * section outside the column (or not a section) goes to the extra NBT. */
static mc_status read_sections(reader *r, const chunk_shape *c)
{
    uint8_t *had = calloc(c->count, 1);
    if (!had)
        return nomem(r);
    mc_status st = MC_OK;
    for (size_t i = 0; i < c->nfs && st == MC_OK; i++) {
        if (!mc_column_section(r->col, c->fs[i].y)) {
            if (!r->keep_extra)
                continue; /* as the tree reader does: nowhere to keep it */
            /* kept whole in the extra NBT, as the tree reader copies it
             * (1.14-1.17 keep the light of the sections below and above) */
            mc_nbt_tag *e = ensure_xsections(r) ? mc_nbt_list_append(r->xdoc, r->xsections, MC_NBT_COMPOUND) : NULL;
            if (!e || mc_nbt_parse_into(r->xdoc, e, c->fs[i].start, c->fs[i].len, MC_NBT_JAVA, MC_NBT_PARSE_COPY,
                                        NULL) != MC_OK)
                st = MC_ERR_UNSUPPORTED; /* (out of memory) for the tree reader */
            continue;
        }
        bool air_with_data = false, with_data = false;
        st = read_section_fast(r, &c->fs[i], c->era, c->layout, &with_data, &air_with_data);
        if (st == MC_OK && with_data)
            had[c->fs[i].y - c->min_sec] = air_with_data ? 2 : 1;
    }
    for (mc_nbt_tag *s = c->sections ? mc_nbt_first(c->sections) : NULL; s && st == MC_OK; s = mc_nbt_next(s)) {
        int32_t y;
        const mc_nbt_tag *ytag = mc_nbt_get(s, "Y");
        if (mc_nbt_tag_type(s) != MC_NBT_COMPOUND || !section_y(s, &y) || !mc_column_section(r->col, y)) {
            if (r->keep_extra) {
                if (!ensure_xsections(r)) {
                    st = nomem(r);
                    break;
                }
                mc_nbt_tag *cp = mc_nbt_copy(r->xdoc, s);
                if (!cp || mc_nbt_list_attach(r->xdoc, r->xsections, cp) != MC_OK)
                    st = nomem(r);
            }
            continue;
        }
        bool air_with_data = false, with_data = false;
        st = read_section(r, s, ytag, y, c->era, c->layout, &with_data, &air_with_data);
        if (st == MC_OK && with_data)
            had[y - c->min_sec] = air_with_data ? 2 : 1;
    }
    if (st == MC_OK && r->keep_extra)
        st = note_odd_sections(r, c, had);
    free(had);
    return st;
}

/* Pre-1.18 "Biomes": 2D (256 cells; the tag is kept too, the model holds
 * 4x4 cells only) or 3D (64 per section); anything else kept as it is. */
static mc_status read_old_biomes(reader *r, chunk_shape *c, const mc_nbt_tag *t)
{
    mc_status st = MC_OK;
    if (c->have_biomes_arr && c->biomes_arr.count == 256) {
        st = biomes_2d(r, &c->biomes_arr);
        return st == MC_OK ? keep(r, r->xlevel, t) : st;
    }
    bool used = false;
    if (c->have_biomes_arr && c->biomes_arr.elem_size == 4)
        used = biomes_3d(r, &c->biomes_arr, &st);
    if (!used && st == MC_OK) {
        warn(r, "Biomes of %zu entries does not fit the column: kept as is", mc_nbt_count(t));
        st = keep(r, r->xlevel, t);
    }
    return st;
}

/* Step 6: the chunk's other keys: position (kept only when it is not what
 * the writer would write), heightmaps, block entities, old biomes; the
 * rest goes to the extra NBT as it is. One key of the tree here. */
static mc_status other_key(reader *r, chunk_shape *c, const mc_nbt_tag *t, bool *saw_biomes)
{
    const bool modern_root = c->era == MC__ERA_MODERN && !c->wrapped;
    mc_status st = MC_OK;
    if (t == c->sections)
        return MC_OK;
    if (KEY_IS(t, "xPos") || KEY_IS(t, "zPos")) {
        if (mc_nbt_tag_type(t) != MC_NBT_INT)
            st = keep(r, r->xlevel, t); /* another type: the writer cannot know */
    } else if (c->era == MC__ERA_MODERN && KEY_IS(t, "yPos")) {
        int64_t yp;
        if (mc_nbt_tag_type(t) != MC_NBT_INT || mc_nbt_get_integer(t, &yp) != MC_OK ||
            yp != mc_column_min_section(r->col))
            st = keep(r, r->xlevel, t);
    } else if (KEY_IS(t, "Heightmaps")) {
        st = read_heightmaps(r, t, c->layout);
    } else if (KEY_IS(t, "block_entities") || KEY_IS(t, "TileEntities")) {
        st = read_block_entities(r, t);
        if (st == MC_OK && r->keep_extra && !mc_nbt_get(r->xlevel, mc_nbt_tag_key(t, NULL)) &&
            !(modern_root ? KEY_IS(t, "block_entities") : KEY_IS(t, "TileEntities")))
            st = keep(r, r->xlevel, t); /* under the other era's name: keep */
    } else if (c->era != MC__ERA_MODERN && KEY_IS(t, "Biomes")) {
        *saw_biomes = true;
        st = read_old_biomes(r, c, t);
    } else {
        st = keep(r, r->xlevel, t);
    }
    return st;
}

/* A run of Level's tags the fast path stepped over, [from, to), parsed
 * into the extra "Level" (after what is there, as keep() would copy them:
 * level_key made sure no key is there already). */
static mc_status parse_level_run(reader *r, const uint8_t *from, const uint8_t *to)
{
    const size_t n = (size_t)(to - from);
    if (to == r->facts->level_end) /* Level's own end tag closes the run */
        return mc_nbt_parse_into(r->xdoc, r->xlevel, from, n + 1, MC_NBT_JAVA, MC_NBT_PARSE_COPY, NULL) == MC_OK
                   ? MC_OK
                   : nomem(r);
    uint8_t *buf = malloc(n + 1);
    if (!buf)
        return nomem(r);
    memcpy(buf, from, n);
    buf[n] = MC_NBT_END;
    mc_status st = mc_nbt_parse_into(r->xdoc, r->xlevel, buf, n + 1, MC_NBT_JAVA, MC_NBT_PARSE_COPY, NULL);
    free(buf);
    return st == MC_OK ? MC_OK : nomem(r);
}

/* Step 6 of the fast path for a chunk with Level: its tags in their order,
 * those in the tree through other_key, the runs of stepped-over ones parsed
 * from their bytes. A tree that does not hold what was recorded is
 * MC_ERR_UNSUPPORTED (the tree reader). */
static mc_status read_level_keys(reader *r, chunk_shape *c, bool *saw_biomes)
{
    const root_facts *f = r->facts;
    const mc_nbt_tag *t = mc_nbt_first(c->level);
    const uint8_t *run = NULL;
    mc_status st = MC_OK;
    for (size_t i = 0; i < f->nlevel && st == MC_OK; i++) {
        const root_tag *k = &f->level[i];
        if (k->kind == LEVEL_RAW) {
            run = run ? run : k->start;
            continue;
        }
        if (run && r->keep_extra)
            st = parse_level_run(r, run, k->start);
        run = NULL;
        if (st != MC_OK || k->kind != LEVEL_TREE)
            continue;
        if (!t || (const uint8_t *)mc_nbt_tag_key(t, NULL) != k->start + 3)
            return MC_ERR_UNSUPPORTED;
        st = other_key(r, c, t, saw_biomes);
        t = mc_nbt_next(t);
    }
    if (st == MC_OK && run && r->keep_extra)
        st = parse_level_run(r, run, f->level_end);
    return st == MC_OK && t ? MC_ERR_UNSUPPORTED : st;
}

static mc_status read_other_keys(reader *r, chunk_shape *c)
{
    bool saw_biomes = false;
    mc_status st = MC_OK;
    if (r->facts && r->facts->nlevel && c->wrapped) {
        st = read_level_keys(r, c, &saw_biomes);
    } else {
        for (mc_nbt_tag *t = mc_nbt_first(c->level); t && st == MC_OK; t = mc_nbt_next(t))
            st = other_key(r, c, t, &saw_biomes);
    }
    if (st == MC_OK && c->era != MC__ERA_MODERN && !saw_biomes && r->keep_extra)
        st = mc_nbt_put_byte(r->xdoc, r->xlevel, MC__KEY_NO_BIOMES, 1) == MC_OK ? MC_OK : nomem(r);
    return st;
}

/* The chunk's Status for the caller (the fast scan read it from bytes). */
static void report_status(reader *r, const chunk_shape *c)
{
    mc_chunknbt_info *info = r->info;
    if (r->facts && !c->wrapped) {
        info->status = (const char *)r->facts->status;
        info->status_len = r->facts->status ? r->facts->status_len : 0;
    } else if (mc_nbt_get_string(mc_nbt_get(c->level, "Status"), &info->status, &info->status_len) != MC_OK) {
        info->status = NULL;
        info->status_len = 0;
    }
}

/* The tree reader, and the fast path's second half (scan != NULL: the
 * sections come from their bytes, and anything it does not handle returns
 * MC_ERR_UNSUPPORTED for the caller to read the chunk again from the
 * tree). The steps above, in order. */
static mc_status read_impl(const mc_nbt_tag *root, const mc_chunknbt_options *opt, const fscan *scan,
                           const root_facts *facts, mc_column **out, mc_chunknbt_info *info, mc_error *err)
{
    if (out)
        *out = NULL;
    if (!out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: no output");
    if (mc_nbt_tag_type(root) != MC_NBT_COMPOUND)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "chunk nbt: the root is not a compound");
    reader r;
    memset(&r, 0, sizeof r);
    r.fast = scan != NULL;
    r.scan = scan;
    r.facts = facts;
    r.opt = opt;
    r.err = err;
    r.info = info;
    if (info)
        memset(info, 0, sizeof *info);
    r.strict = opt && (opt->flags & MC_CHUNKNBT_STRICT);
    r.alloc = opt ? opt->alloc : NULL;
    r.keep_extra = !(opt && (opt->flags & MC_CHUNKNBT_NO_EXTRA));
    r.dv = facts ? facts->dv : mc_chunknbt_data_version(root);
    if (info)
        info->data_version = r.dv;
    chunk_shape c;
    memset(&c, 0, sizeof c);
    c.root = root;
    c.fs = scan ? scan->sec : NULL;
    c.nfs = scan ? scan->n : 0;
    mc_status st = find_sections(&r, &c);
    if (st == MC_OK)
        st = choose_registry(&r);
    if (st != MC_OK)
        return st;
    mc_chunknbt_cache *own_cache = NULL;
    r.cache = opt ? opt->cache : NULL;
    if (!r.cache && !(r.cache = own_cache = mc_chunknbt_cache_new(opt ? opt->alloc : NULL)))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");

    int64_t xv = 0, zv = 0;
    if (mc_nbt_get_integer(mc_nbt_get(c.level, "xPos"), &xv) != MC_OK ||
        mc_nbt_get_integer(mc_nbt_get(c.level, "zPos"), &zv) != MC_OK) {
        if (r.strict)
            st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "chunk nbt: no int xPos/zPos");
        else
            warn(&r, "no xPos/zPos: chunk placed at 0, 0");
    }
    if (st == MC_OK)
        st = column_range(&r, &c);
    if (st == MC_OK && !(r.col = mc_column_new(r.reg, (int32_t)xv, (int32_t)zv, c.min_sec, c.count,
                                               opt ? opt->alloc : NULL)))
        st = nomem(&r);
    if (st == MC_OK && r.keep_extra)
        st = begin_extra(&r, &c);
    if (st == MC_OK)
        st = read_sections(&r, &c);
    if (st == MC_OK)
        st = read_other_keys(&r, &c);
    if (st == MC_OK && info)
        report_status(&r, &c);

    mc_chunknbt_cache_free(own_cache);
    if (st == MC_OK && r.declined)
        st = MC_ERR_UNSUPPORTED;
    if (st != MC_OK) {
        mc_column_free(r.col);
        return r.fast ? MC_ERR_UNSUPPORTED : st;
    }
    *out = r.col;
    return MC_OK;
}

mc_status mc_chunknbt_read_ex(const mc_nbt_tag *root, const mc_chunknbt_options *opt, mc_column **out,
                              mc_chunknbt_info *info, mc_error *err)
{
    return read_impl(root, opt, NULL, NULL, out, info, err);
}

mc_status mc_chunknbt_read(const mc_nbt_tag *root, const mc_chunknbt_options *opt, mc_column **out,
                           mc_error *err)
{
    return mc_chunknbt_read_ex(root, opt, out, NULL, err);
}

/* The keys a read without extra NBT uses, at the root and under Level. */
static bool lean_key(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                     size_t key_len)
{
    const unsigned flags = *(const unsigned *)user;
    if (depth == 2 && !(parent_len == 5 && !memcmp(parent, "Level", 5)))
        return true;
    static const struct { const char *k; uint8_t len; } used[] = {
        {"DataVersion", 11}, {"Level", 5}, {"xPos", 4}, {"zPos", 4}, {"yPos", 4}, {"Status", 6},
        {"sections", 8}, {"Sections", 8}, {"Heightmaps", 10}, {"Biomes", 6},
    };
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
        if (key_len == used[i].len && !memcmp(key, used[i].k, key_len))
            return true;
    if (flags & MC_CHUNKNBT_BLOCK_ENTITIES)
        return (key_len == 14 && !memcmp(key, "block_entities", 14)) ||
               (key_len == 12 && !memcmp(key, "TileEntities", 12));
    return false;
}

mc_status mc_chunknbt_parse(mc_nbt_doc *doc, const void *nbt, size_t len, unsigned flags, mc_error *err)
{
    if (!(flags & MC_CHUNKNBT_NO_EXTRA))
        return mc_nbt_parse(doc, nbt, len, MC_NBT_JAVA, NULL, err);
    mc_nbt_filter f = {2, lean_key, &flags, NULL, false};
    return mc_nbt_parse_filtered(doc, nbt, len, MC_NBT_JAVA, 0, &f, NULL, NULL, err);
}

/* The parse of the fast path: "sections" at the root (or "Sections" under
 * Level) is read by scan_sections instead of the parser, and the root keys the model does
 * not read are stepped over: with MC_CHUNKNBT_NO_EXTRA dropped (what
 * lean_key leaves out), else checked as a full parse checks them and
 * deferred as bytes into the column's extra NBT, which parses them only if
 * someone asks (mc_column_defer_extra). Building their tree and copying it
 * into the column was most of the cost of reading a full chunk (ticks,
 * structures: about 18 KB of a 49 KB chunk).
 *
 * So that the extra NBT holds the chunk's keys in their order, every root
 * tag is recorded where it starts (the root's tags are contiguous, and a
 * key as the parser hands it points 3 bytes into its tag when it is in the
 * input): the deferred bytes are the runs of stepped-over tags plus the
 * tags read_impl would copy into the extra NBT (an empty block entity
 * list, a yPos of another type), which it defers instead (defer_root_tag).
 * Before 1.18 the chunk's keys are Level's: those the model does not read
 * are stepped over as well and parsed once from their bytes, into the
 * extra "Level" in their place (level_key, read_level_keys); the column's
 * deferred bytes hold root keys only, so they are not deferred past the
 * read. */

typedef struct fast_parse {
    unsigned flags;
    unsigned seen;  /* root "sections" met */
    bool taken;     /* and scan_sections took it */
    bool defer;     /* the keys the model does not read are deferred */
    bool failed;    /* deferring is not possible (a key not in the input,
                       out of memory): the tree reader does it */
    fscan scan;
    const uint8_t *in, *in_end;
    root_tag *keys;
    size_t nkeys, keys_cap;
    root_tag *lkeys; /* Level's tags (pre-1.18), kinds LEVEL_* */
    size_t nlkeys, lkeys_cap;
    root_tag keys_here[32];
    root_tag lkeys_here[32];
} fast_parse;

/* Appends a tag's start to one of fast_parse's growing lists (false when
 * out of memory). */
static bool push_tag(root_tag **v, size_t *n, size_t *cap, root_tag *here, const uint8_t *start, uint8_t kind)
{
    if (*n == *cap) {
        size_t ncap = *cap * 2;
        root_tag *nv = *v == here ? malloc(ncap * sizeof *nv) : realloc(*v, ncap * sizeof *nv);
        if (!nv)
            return false;
        if (*v == here)
            memcpy(nv, here, *n * sizeof *nv);
        *v = nv;
        *cap = ncap;
    }
    (*v)[*n].start = start;
    (*v)[(*n)++].kind = kind;
    return true;
}

/* Whether `key` (as the parser hands it) is in the input, 3 bytes into its
 * tag (not converted from modified UTF-8). */
static bool key_in_input(const fast_parse *fp, const char *key, size_t key_len)
{
    const uint8_t *k = (const uint8_t *)key;
    return k >= fp->in + 3 && k + key_len <= fp->in_end && mc_load_u16be(k - 2) == key_len;
}

/* A tag of Level (pre-1.18) met by fast_key: recorded in its place. The
 * keys the model does not read are stepped over (checked) and parsed once,
 * straight into the extra "Level" from their bytes (read_level_keys),
 * instead of parsed into the tree and deep-copied from it. Anything that
 * would make that differ from the tree reader's copy (a duplicate key, a
 * bookkeeping key, a key not in the input, a Level that is not the root's
 * one compound, more than MAX_LEVEL_KEYS keys) leaves the chunk to the
 * tree reader. */
#define MAX_LEVEL_KEYS 256 /* vanilla's Level has about 20 */
static bool level_key(fast_parse *fp, const char *key, size_t key_len, bool keep, uint8_t kind)
{
    const root_tag *lv = fp->nkeys ? &fp->keys[fp->nkeys - 1] : NULL;
    if (fp->failed)
        return keep;
    if (!lv || lv->start[0] != MC_NBT_COMPOUND || mc_load_u16be(lv->start + 1) != 5 ||
        memcmp(lv->start + 3, "Level", 5) != 0 || !key_in_input(fp, key, key_len) ||
        (key_len >= sizeof MC__KEY_PREFIX - 1 && !memcmp(key, MC__KEY_PREFIX, sizeof MC__KEY_PREFIX - 1))) {
        fp->failed = true;
        return keep;
    }
    if (fp->nlkeys >= MAX_LEVEL_KEYS) { /* (the duplicate check below is quadratic) */
        fp->failed = true;
        return keep;
    }
    for (size_t i = 0; i < fp->nlkeys; i++)
        if (mc_load_u16be(fp->lkeys[i].start + 1) == key_len && !memcmp(fp->lkeys[i].start + 3, key, key_len)) {
            fp->failed = true;
            return keep;
        }
    if (!push_tag(&fp->lkeys, &fp->nlkeys, &fp->lkeys_cap, fp->lkeys_here, (const uint8_t *)key - 3, kind))
        fp->failed = true;
    return keep;
}

static bool fast_key(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                     size_t key_len)
{
    fast_parse *fp = user;
    bool keep;
    uint8_t kind;
    const bool in_level = depth == 2 && parent_len == 5 && !memcmp(parent, "Level", 5);
    if (depth == 1 && key_len == 8 && !memcmp(key, "sections", 8)) {
        keep = false;
        kind = ROOT_TAKEN;
    } else if (in_level && key_len == 8 && !memcmp(key, "Sections", 8)) {
        /* Level.Sections: for fast_take */
        return fp->defer ? level_key(fp, key, key_len, false, LEVEL_TAKEN) : false;
    } else if (in_level && fp->defer) {
        const unsigned f = fp->flags | MC_CHUNKNBT_BLOCK_ENTITIES;
        keep = lean_key((void *)&f, depth, parent, parent_len, key, key_len);
        return level_key(fp, key, key_len, keep, keep ? LEVEL_TREE : LEVEL_RAW);
    } else if (depth == 2 && fp->defer) {
        return true; /* the keys under the root's other compounds: all kept (the extra NBT) */
    } else if (depth == 1 && fp->defer &&
               ((key_len == 11 && !memcmp(key, "DataVersion", 11)) || (key_len == 6 && !memcmp(key, "Status", 6)))) {
        keep = false; /* deferred; read_impl is told them from their bytes */
        kind = ROOT_DEFER;
    } else {
        const unsigned f = fp->flags | (fp->defer ? MC_CHUNKNBT_BLOCK_ENTITIES : 0);
        keep = lean_key((void *)&f, depth, parent, parent_len, key, key_len);
        kind = keep ? ROOT_TREE : ROOT_DEFER;
    }
    if (depth != 1 || !fp->defer || fp->failed)
        return keep;
    if (!key_in_input(fp, key, key_len)) {
        fp->failed = true; /* a key converted from modified UTF-8: not in the input */
        return keep;
    }
    if (key_len == 5 && !memcmp(key, "Level", 5))
        for (size_t i = 0; i < fp->nkeys; i++)
            if (mc_load_u16be(fp->keys[i].start + 1) == 5 && !memcmp(fp->keys[i].start + 3, "Level", 5))
                fp->failed = true; /* two Levels: which one the tree keeps is the tree reader's business */
    if (!push_tag(&fp->keys, &fp->nkeys, &fp->keys_cap, fp->keys_here, (const uint8_t *)key - 3, kind))
        fp->failed = true;
    return keep;
}

/* read_impl's keep() of a root tag: deferred in its place instead. */
static bool defer_root_tag(void *user, const mc_nbt_tag *t)
{
    fast_parse *fp = user;
    size_t kl;
    const uint8_t *k = (const uint8_t *)mc_nbt_tag_key(t, &kl);
    for (size_t i = 0; i < fp->nkeys; i++)
        if (fp->keys[i].start + 3 == k && fp->keys[i].kind == ROOT_TREE) {
            fp->keys[i].kind = ROOT_DEFER;
            return true;
        }
    return false;
}

/* DataVersion and Status, read from their (checked) bytes, and Level's
 * tags; false when the Status is not ASCII (the tree reader converts it) or
 * Level's end is not where it must be. `root_end`: the root's end tag. */
static bool root_facts_of(fast_parse *fp, root_facts *rf, const uint8_t *root_end)
{
    memset(rf, 0, sizeof *rf);
    rf->defer_root_tag = defer_root_tag;
    rf->user = fp;
    bool dv_seen = false, status_seen = false;
    for (size_t i = 0; i < fp->nkeys; i++) {
        const uint8_t *tag = fp->keys[i].start;
        const size_t kl = mc_load_u16be(tag + 1);
        const uint8_t *v = tag + 3 + kl;
        if (kl == 5 && !memcmp(tag + 3, "Level", 5) && fp->nlkeys) {
            /* the tags of a compound are contiguous, its end tag last */
            rf->level = fp->lkeys;
            rf->nlevel = fp->nlkeys;
            rf->level_end = (i + 1 < fp->nkeys ? fp->keys[i + 1].start : root_end) - 1;
            if (rf->level_end < fp->lkeys[fp->nlkeys - 1].start || *rf->level_end != MC_NBT_END)
                return false;
        } else if (kl == 11 && !memcmp(tag + 3, "DataVersion", 11) && !dv_seen) {
            int64_t dv = -1;
            switch (tag[0]) {
            case MC_NBT_BYTE: dv = (int8_t)v[0]; break;
            case MC_NBT_SHORT: dv = (int16_t)mc_load_u16be(v); break;
            case MC_NBT_INT: dv = (int32_t)mc_load_u32be(v); break;
            case MC_NBT_LONG: dv = (int64_t)mc_load_u64be(v); break;
            default: break;
            }
            dv_seen = true;
            rf->dv = dv >= 0 && dv <= INT32_MAX ? (int32_t)dv : 0;
        } else if (kl == 6 && !memcmp(tag + 3, "Status", 6) && !status_seen) {
            status_seen = true;
            if (tag[0] == MC_NBT_STRING) {
                rf->status = v + 2;
                rf->status_len = mc_load_u16be(v);
                for (size_t j = 0; j < rf->status_len; j++)
                    if (rf->status[j] - 1u >= 0x7Fu)
                        return false;
            }
        }
    }
    return true;
}

static const uint8_t *fast_take(void *user, unsigned depth, const char *key, size_t key_len, unsigned type,
                                const uint8_t *value, const uint8_t *end)
{
    fast_parse *fp = user;
    /* keep() declines no other key at depth 2 than Level's (lean_key) */
    const bool wrapped = depth == 2 && key_len == 8 && !memcmp(key, "Sections", 8);
    if (!wrapped && !(depth == 1 && key_len == 8 && !memcmp(key, "sections", 8)))
        return NULL;
    if (fp->seen++ || type != MC_NBT_LIST)
        return NULL;
    const uint8_t *after = scan_sections(value, end, &fp->scan, wrapped);
    fp->taken = after != NULL;
    return after;
}

mc_status mc_chunknbt_read_bytes_ex(const uint8_t *nbt, size_t len, const mc_chunknbt_options *opt,
                                    mc_column **out, mc_chunknbt_info *info, mc_error *err)
{
    if (out)
        *out = NULL;
    if (!out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: no output");
    if (info)
        memset(info, 0, sizeof *info);
    const unsigned flags = opt ? opt->flags : 0;
    mc_nbt_doc *doc = opt && opt->doc ? opt->doc : mc_nbt_doc_new(opt ? opt->alloc : NULL);
    if (!doc)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
    fast_parse fp;
    memset(&fp, 0, offsetof(fast_parse, scan)); /* the arrays inside need no clearing */
    fscan_init(&fp.scan);
    fp.keys = fp.keys_here;
    fp.nkeys = 0;
    fp.keys_cap = sizeof fp.keys_here / sizeof fp.keys_here[0];
    fp.lkeys = fp.lkeys_here;
    fp.nlkeys = 0;
    fp.lkeys_cap = sizeof fp.lkeys_here / sizeof fp.lkeys_here[0];
    fp.flags = flags;
    fp.defer = !(flags & MC_CHUNKNBT_NO_EXTRA);
    fp.in = nbt;
    fp.in_end = nbt + len;
    mc_nbt_filter f = {2, fast_key, &fp, fast_take, fp.defer};
    mc_status st = mc_nbt_parse_filtered(doc, nbt, len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL);
    root_facts facts;
    const root_facts *rf = NULL;
    if (st == MC_OK && fp.defer && !fp.failed) {
        if (root_facts_of(&fp, &facts, nbt + len - 1))
            rf = &facts;
        else
            fp.failed = true;
    }
    bool done = false;
    if (st == MC_OK && fp.failed) {
        /* the tree reader */
    } else if (st == MC_OK && fp.seen == 0) {
        /* no root "sections" (older chunks, other files): the tree holds
         * every key the model reads */
        st = read_impl(mc_nbt_doc_root(doc), opt, NULL, rf, out, info, err);
        done = st != MC_ERR_UNSUPPORTED; /* (Level's keys not as recorded: the tree reader) */
    } else if (st == MC_OK && fp.seen == 1 && fp.taken) {
        mc_error local;
        st = read_impl(mc_nbt_doc_root(doc), opt, &fp.scan, rf, out, info, &local);
        done = st == MC_OK;
        if (done && info)
            info->sections_from_bytes = true;
    }
    if (done && st == MC_OK && rf && fp.nkeys) {
        /* the deferred runs: a tag ends where the next starts, the last
         * where the root's end tag is (the input's last byte) */
        const void *part_here[32];
        size_t plen_here[32];
        const void **part = fp.nkeys <= 32 ? part_here : malloc(fp.nkeys * sizeof *part);
        size_t *plen = fp.nkeys <= 32 ? plen_here : malloc(fp.nkeys * sizeof *plen);
        size_t n = 0;
        for (size_t i = 0; part && plen && i < fp.nkeys; i++) {
            if (fp.keys[i].kind != ROOT_DEFER)
                continue;
            const uint8_t *a0 = fp.keys[i].start;
            const uint8_t *a1 = i + 1 < fp.nkeys ? fp.keys[i + 1].start : nbt + len - 1;
            if (n && (const uint8_t *)part[n - 1] + plen[n - 1] == a0) {
                plen[n - 1] += (size_t)(a1 - a0); /* the run goes on */
            } else {
                part[n] = a0;
                plen[n++] = (size_t)(a1 - a0);
            }
        }
        if (!part || !plen || (n && mc_column_defer_extra(*out, n, part, plen) != MC_OK)) {
            mc_column_free(*out);
            *out = NULL;
            st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
        }
        if (part != part_here)
            free(part);
        if (plen != plen_here)
            free(plen);
    }
    if (fp.keys != fp.keys_here)
        free(fp.keys);
    if (fp.lkeys != fp.lkeys_here)
        free(fp.lkeys);
    fscan_free(&fp.scan);
    if (!done) {
        /* the tree reader: the whole chunk parsed, errors and warnings its own */
        if (info)
            memset(info, 0, sizeof *info);
        st = mc_chunknbt_parse(doc, nbt, len, flags, err);
        if (st == MC_OK)
            st = read_impl(mc_nbt_doc_root(doc), opt, NULL, NULL, out, info, err);
    }
    if (info && info->status &&
        !((const uint8_t *)info->status >= nbt && (const uint8_t *)info->status + info->status_len <= nbt + len)) {
        info->status = NULL; /* only a pointer into the input outlives the tree */
        info->status_len = 0;
    }
    if (!(opt && opt->doc))
        mc_nbt_doc_free(doc);
    else
        mc_nbt_doc_reset(doc);
    return st;
}

mc_status mc_chunknbt_read_bytes(const uint8_t *nbt, size_t len, const mc_chunknbt_options *opt,
                                 mc_column **out, mc_error *err)
{
    return mc_chunknbt_read_bytes_ex(nbt, len, opt, out, NULL, err);
}

