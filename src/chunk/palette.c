/*
 * palette.c: paletted containers (include/mcchunk/palette.h).
 *
 * The container is always packed: a single value, or a palette plus padded
 * longs of indices, or registry ids in padded longs. Single-entry access
 * works on the longs in place; whole-container operations (growth,
 * compaction, bulk set, equality, counting) unpack into a stack array of at
 * most 4096 entries with the bulk kernels of bits.c, work on plain integers
 * and pack again -- a few microseconds, and far simpler than bit surgery.
 *
 * Building a palette from plain values (growth, compaction, set_all) uses a
 * small open-addressing table on the stack that maps value -> palette index
 * and remembers first-occurrence order, which is the order vanilla produces
 * when it copies storage into a new palette.
 *
 * Growth mirrors vanilla 1.18+ (PalettedContainer.onResize): a palette is
 * full at 1 << bits entries; the next new value moves the container to
 * bits + 1 (indirect while that is within the rules, direct beyond), and the
 * new palette is rebuilt from the data, dropping values no longer used.
 */
#include "mcchunk/palette.h"

#include <stdlib.h>
#include <string.h>

#include "bits/bits_private.h"
#include "chunk/chunk_private.h"

#define MAX_SIZE 4096u

/* ------------------------------------------------------------------ rules */

mc_container_rules mc_container_rules_blocks(unsigned direct_bits)
{
    /* 1.18+ SECTION_STATES: 0 single, 1-4 linear at 4, 5-8 hashmap, else global */
    mc_container_rules r = {MC_SECTION_BLOCKS, 4, 8, (uint8_t)direct_bits};
    return r;
}

mc_container_rules mc_container_rules_biomes(unsigned direct_bits)
{
    /* 1.18+ SECTION_BIOMES: 0 single, 1-3 linear (exact), else global */
    mc_container_rules r = {MC_SECTION_BIOMES, 1, 3, (uint8_t)direct_bits};
    return r;
}

static bool rules_valid(const mc_container_rules *r)
{
    return r && r->size >= 1 && r->size <= MAX_SIZE && r->min_indirect_bits >= 1 &&
           r->min_indirect_bits <= r->max_indirect_bits && r->max_indirect_bits <= 16 &&
           r->direct_bits >= 1 && r->direct_bits <= 31;
}

/* Width of the strategy vanilla picks for `bits` (0 single; indirect or
 * direct otherwise). */
static unsigned config_bits(const mc_container_rules *r, unsigned bits)
{
    if (bits == 0)
        return 0;
    if (bits <= r->max_indirect_bits)
        return bits < r->min_indirect_bits ? r->min_indirect_bits : bits;
    return r->direct_bits;
}

static mc_container_kind config_kind(const mc_container_rules *r, unsigned bits)
{
    if (bits == 0)
        return MC_CONTAINER_SINGLE;
    return bits <= r->max_indirect_bits ? MC_CONTAINER_INDIRECT : MC_CONTAINER_DIRECT;
}

unsigned mc_container_rules_bits(const mc_container_rules *rules, size_t n)
{
    return config_bits(rules, mc_bits_ceil_log2(n));
}

/* ------------------------------------------------------- value -> index map */

/* Open addressing, 2x the entries, keys + 1 (0 marks an empty slot). Only
 * the slots a container's size needs are used (and cleared): a biome
 * container of 64 entries clears 128 slots, not the 8192 of a section. */
#define MAP_SLOTS 8192u
typedef struct value_map {
    uint32_t keys[MAP_SLOTS];
    uint16_t idx[MAP_SLOTS];
    uint32_t order[MAX_SIZE]; /* distinct values in first-occurrence order */
    uint32_t n;
    uint32_t mask;  /* slots in use - 1 */
    unsigned shift; /* 32 - log2(slots in use) */
} value_map;

static void map_init(value_map *m, size_t size)
{
    unsigned lg = mc_bits_ceil_log2(2 * size);
    if (lg < 4)
        lg = 4;
    if (lg > 13) /* MAP_SLOTS: room for MAX_SIZE + 1 values */
        lg = 13;
    m->mask = (1u << lg) - 1;
    m->shift = 32 - lg;
    memset(m->keys, 0, ((size_t)m->mask + 1) * sizeof m->keys[0]);
    m->n = 0;
}

/* Index of v, adding it when new (at most MAX_SIZE distinct values fit). */
static uint32_t map_add(value_map *m, uint32_t v)
{
    uint32_t h = (v * 0x9E3779B1u) >> m->shift;
    for (;;) {
        uint32_t k = m->keys[h];
        if (k == 0) {
            m->keys[h] = v + 1;
            m->idx[h] = (uint16_t)m->n;
            m->order[m->n] = v;
            return m->n++;
        }
        if (k == v + 1)
            return m->idx[h];
        h = (h + 1) & m->mask;
    }
}

/* Fills idx_out[i] = index of values[i] (first-occurrence order). Values
 * equal to UINT32_MAX cannot be keys; they are rare enough to go through a
 * separate slot. */
static void map_values(value_map *m, const uint32_t *values, size_t n, uint16_t *idx_out)
{
    uint32_t last = 0, last_idx = 0;
    bool have_last = false, have_max = false;
    uint32_t max_idx = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = values[i];
        if (have_last && v == last) {
            idx_out[i] = (uint16_t)last_idx;
            continue;
        }
        uint32_t ix;
        if (v == UINT32_MAX) {
            if (!have_max) {
                max_idx = m->n;
                m->order[m->n++] = v;
                have_max = true;
            }
            ix = max_idx;
        } else {
            ix = map_add(m, v);
        }
        idx_out[i] = (uint16_t)ix;
        last = v;
        last_idx = ix;
        have_last = true;
    }
}

/* ------------------------------------------------------------ lifecycle */

void mc_container_init(mc_container *c, const mc_container_rules *rules, uint32_t value,
                       const mc_allocator *alloc)
{
    memset(c, 0, sizeof *c);
    if (rules)
        c->rules = *rules;
    /* the documented ranges; clamped so that no later call can overrun */
    if (c->rules.size == 0 || c->rules.size > MAX_SIZE)
        c->rules.size = c->rules.size ? MAX_SIZE : 1;
    if (c->rules.direct_bits == 0 || c->rules.direct_bits > 31)
        c->rules.direct_bits = c->rules.direct_bits ? 31 : 1;
    if (c->rules.max_indirect_bits > 16)
        c->rules.max_indirect_bits = 16;
    if (c->rules.min_indirect_bits == 0 || c->rules.min_indirect_bits > c->rules.max_indirect_bits)
        c->rules.min_indirect_bits = c->rules.max_indirect_bits ? c->rules.max_indirect_bits : 1;
    if (c->rules.max_indirect_bits == 0)
        c->rules.max_indirect_bits = c->rules.min_indirect_bits;
    c->kind = MC_CONTAINER_SINGLE;
    c->value = value;
    c->alloc = mc_alloc_or_default(alloc);
}

static size_t nlongs_of(const mc_container *c)
{
    return mc__bits_longs_padded(c->rules.size, c->bits);
}

static void release(const mc_allocator *a, uint64_t *longs, size_t nlongs, uint32_t *pal, size_t cap)
{
    if (longs)
        a->free(a->user, longs, nlongs * 8);
    if (pal)
        a->free(a->user, pal, cap * 4);
}

/* Longs and, for an indirect container, its palette of `cap` slots in one
 * block (a reader makes a container per section: one allocation, not two);
 * released by release_joint. */
static uint64_t *alloc_joint(const mc_allocator *a, size_t nlongs, size_t cap, uint32_t **pal)
{
    uint64_t *longs = a->alloc(a->user, nlongs * 8 + cap * 4);
    *pal = longs && cap ? (uint32_t *)(longs + nlongs) : NULL;
    return longs;
}

static void release_joint(const mc_allocator *a, uint64_t *longs, size_t nlongs, size_t cap)
{
    if (longs)
        a->free(a->user, longs, nlongs * 8 + cap * 4);
}

/* Frees what c holds, however it was allocated. */
static void release_container(const mc_allocator *a, const mc_container *c)
{
    const size_t nl = c->longs ? nlongs_of(c) : 0;
    if (c->joint)
        release_joint(a, c->longs, nl, c->palette_cap);
    else
        release(a, c->longs, nl, c->palette, c->palette_cap);
}

void mc_container_free(mc_container *c)
{
    if (!c->alloc)
        c->alloc = mc_default_allocator();
    release_container(c->alloc, c);
    c->longs = NULL;
    c->palette = NULL;
    c->palette_len = c->palette_cap = 0;
    c->kind = MC_CONTAINER_SINGLE;
    c->bits = 0;
    c->joint = 0;
    c->value = 0;
}

mc_status mc_container_copy(mc_container *dst, const mc_container *src)
{
    const mc_allocator *a = mc_alloc_or_default(src->alloc);
    mc_container t = *src;
    t.alloc = a;
    t.longs = NULL;
    t.palette = NULL;
    t.joint = 0; /* the copy's are two blocks */
    size_t nl = src->longs ? nlongs_of(src) : 0;
    if (nl) {
        t.longs = a->alloc(a->user, nl * 8);
        if (!t.longs)
            return MC_ERR_NOMEM;
        memcpy(t.longs, src->longs, nl * 8);
    }
    if (src->palette_cap) {
        t.palette = a->alloc(a->user, (size_t)src->palette_cap * 4);
        if (!t.palette) {
            release(a, t.longs, nl, NULL, 0);
            return MC_ERR_NOMEM;
        }
        memcpy(t.palette, src->palette, (size_t)src->palette_len * 4);
    }
    *dst = t;
    return MC_OK;
}

size_t mc_container_memory(const mc_container *c)
{
    return (c->longs ? nlongs_of(c) * 8 : 0) + (size_t)c->palette_cap * 4;
}

/* ---------------------------------------------------------- build helpers */

/* Replaces c's storage by a fresh one of the given kind/bits holding
 * `values` (already mapped: palette indices for indirect, ids for direct).
 * Allocates everything first so that failure leaves c unchanged. */
static mc_status install(mc_container *c, mc_container_kind kind, unsigned bits,
                         const uint32_t *pal, size_t pal_len, const void *entries, int es)
{
    const mc_allocator *a = c->alloc ? c->alloc : mc_default_allocator();
    uint64_t *longs = NULL;
    uint32_t *palette = NULL;
    size_t cap = 0, nl = 0;
    if (kind != MC_CONTAINER_SINGLE) {
        nl = mc_bits_longs(c->rules.size, bits, MC_BITS_PADDED);
        cap = kind == MC_CONTAINER_INDIRECT ? (size_t)1 << bits : 0;
        longs = alloc_joint(a, nl, cap, &palette);
        if (!longs)
            return MC_ERR_NOMEM;
        if (palette)
            memcpy(palette, pal, pal_len * 4);
    }
    if (longs) {
        if (es == 2)
            mc_bits_pack_u16(entries, c->rules.size, bits, MC_BITS_PADDED, longs);
        else
            mc_bits_pack_u32(entries, c->rules.size, bits, MC_BITS_PADDED, longs);
    }
    uint32_t single = kind == MC_CONTAINER_SINGLE ? pal[0] : 0;
    release_container(a, c);
    c->alloc = a;
    c->longs = longs;
    c->palette = palette;
    c->joint = longs != NULL;
    c->palette_len = kind == MC_CONTAINER_INDIRECT ? (uint32_t)pal_len : 0;
    c->palette_cap = (uint32_t)cap;
    c->kind = (uint8_t)kind;
    c->bits = (uint8_t)bits;
    c->value = single;
    c->compact = 0; /* (its callers that know better set it) */
    return MC_OK;
}

/* Rebuilds c from plain values with the smallest strategy for their
 * distinct count, unless force_bits (> 0) asks for a given vanilla width
 * (growth). Palette in first-occurrence order. */
static mc_status rebuild(mc_container *c, const uint32_t *values, unsigned force_bits)
{
    const size_t n = c->rules.size;
    value_map *m = malloc(sizeof *m);
    uint16_t *idx = malloc(n * sizeof *idx);
    if (!m || !idx) {
        free(m);
        free(idx);
        return MC_ERR_NOMEM;
    }
    map_init(m, n);
    map_values(m, values, n, idx);
    unsigned need = mc_bits_ceil_log2(m->n);
    unsigned bits = config_bits(&c->rules, force_bits > need ? force_bits : need);
    mc_container_kind kind = config_kind(&c->rules, force_bits > need ? force_bits : need);
    mc_status st;
    if (kind == MC_CONTAINER_DIRECT) {
        uint32_t lim = c->rules.direct_bits >= 32 ? UINT32_MAX : (1u << c->rules.direct_bits) - 1;
        st = MC_OK;
        for (uint32_t k = 0; k < m->n; k++)
            if (m->order[k] > lim)
                st = MC_ERR_RANGE;
        if (st == MC_OK)
            st = install(c, kind, bits, NULL, 0, values, 4);
    } else {
        st = install(c, kind, bits, m->order, m->n, idx, 2);
    }
    free(m);
    free(idx);
    return st;
}

mc_status mc_container_set_indexed(mc_container *c, const uint32_t *palette, size_t n, const uint16_t *idx)
{
    const size_t size = c->rules.size;
    if (!palette || !idx || n == 0 || n > size)
        return MC_ERR_INVALID_ARG;
    /* the largest index, in eight lanes without a branch (vectorised) */
    uint16_t top[8] = {0};
    size_t j = 0;
    for (; j + 8 <= size; j += 8)
        for (unsigned k = 0; k < 8; k++)
            top[k] = idx[j + k] > top[k] ? idx[j + k] : top[k];
    for (; j < size; j++)
        top[0] = idx[j] > top[0] ? idx[j] : top[0];
    for (unsigned k = 1; k < 8; k++)
        top[0] = top[k] > top[0] ? top[k] : top[0];
    if (top[0] >= n)
        return MC_ERR_INVALID_ARG;
    return mc__container_set_indexed_below(c, palette, n, idx);
}

mc_status mc__container_set_indexed_below(mc_container *c, const uint32_t *palette, size_t n, const uint16_t *idx)
{
    const size_t size = c->rules.size;
    if (!palette || !idx || n == 0 || n > size)
        return MC_ERR_INVALID_ARG;
    const unsigned need = mc_bits_ceil_log2(n);
    const unsigned bits = config_bits(&c->rules, need);
    const mc_container_kind kind = config_kind(&c->rules, need);
    if (kind != MC_CONTAINER_DIRECT)
        return install(c, kind, bits, palette, n, idx, 2);
    /* past the indirect range: the values themselves */
    const uint32_t lim = c->rules.direct_bits >= 32 ? UINT32_MAX : (1u << c->rules.direct_bits) - 1;
    uint32_t *values = malloc(size * sizeof *values);
    if (!values)
        return MC_ERR_NOMEM;
    mc_status st = MC_OK;
    for (size_t i = 0; i < size && st == MC_OK; i++) {
        values[i] = palette[idx[i]];
        if (values[i] > lim)
            st = MC_ERR_RANGE;
    }
    if (st == MC_OK)
        st = install(c, kind, bits, NULL, 0, values, 4);
    free(values);
    return st;
}

/* ------------------------------------------------------------ entries */

uint32_t mc_container_get(const mc_container *c, size_t i)
{
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        return c->value;
    case MC_CONTAINER_INDIRECT:
        /* 1..8 bits: the common widths get a constant divisor */
        switch (c->bits) {
        case 4: return c->palette[mc__bits_get_padded(c->longs, i, 4)];
        case 1: return c->palette[mc__bits_get_padded(c->longs, i, 1)];
        case 2: return c->palette[mc__bits_get_padded(c->longs, i, 2)];
        case 3: return c->palette[mc__bits_get_padded(c->longs, i, 3)];
        default: return c->palette[mc__bits_get_padded(c->longs, i, c->bits)];
        }
    default:
        return mc__bits_get_padded(c->longs, i, c->bits);
    }
}

void mc_container_get_all(const mc_container *c, uint32_t *out)
{
    const size_t n = c->rules.size;
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        for (size_t i = 0; i < n; i++)
            out[i] = c->value;
        break;
    case MC_CONTAINER_INDIRECT: {
        uint16_t idx[MAX_SIZE];
        mc_bits_unpack_u16(c->longs, n, c->bits, MC_BITS_PADDED, idx);
        const uint32_t *p = c->palette;
        /* Indices beyond the palette cannot occur: constructors validate. */
        for (size_t i = 0; i < n; i++)
            out[i] = p[idx[i]];
        break;
    }
    default:
        mc_bits_unpack_u32(c->longs, n, c->bits, MC_BITS_PADDED, out);
    }
}

static int palette_find(const mc_container *c, uint32_t v)
{
    const uint32_t *p = c->palette;
    for (uint32_t i = 0; i < c->palette_len; i++)
        if (p[i] == v)
            return (int)i;
    return -1;
}

mc_status mc_container_set(mc_container *c, size_t i, uint32_t value, uint32_t *old)
{
    if (i >= c->rules.size)
        return MC_ERR_RANGE;
    uint32_t prev = mc_container_get(c, i);
    if (old)
        *old = prev;
    if (prev == value)
        return MC_OK;
    c->compact = 0;
    if (c->kind == MC_CONTAINER_INDIRECT) {
        int ix = palette_find(c, value);
        if (ix < 0 && c->palette_len < c->palette_cap) {
            ix = (int)c->palette_len;
            c->palette[c->palette_len++] = value;
        }
        if (ix >= 0) {
            mc_bits_set(c->longs, i, c->bits, MC_BITS_PADDED, (uint32_t)ix);
            return MC_OK;
        }
    } else if (c->kind == MC_CONTAINER_DIRECT) {
        if (c->rules.direct_bits < 32 && value >> c->rules.direct_bits)
            return MC_ERR_RANGE;
        mc_bits_set(c->longs, i, c->bits, MC_BITS_PADDED, value);
        return MC_OK;
    }
    /* Full palette (or single value): grow to the next width. The new
     * palette is the old data's values in first-occurrence order, then the
     * new value -- exactly what rebuilding from the changed data gives,
     * except that the new value must come last, so rebuild from the old data
     * with the new value appended as a virtual entry. */
    const size_t n = c->rules.size;
    uint32_t *vals = malloc((n + 1) * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    mc_container_get_all(c, vals);
    unsigned next = c->kind == MC_CONTAINER_SINGLE ? 1 : c->bits + 1u;
    /* Vanilla grows from the palette's own width: blocks linear palettes
     * hold 16 at 4 bits, so "bits + 1" is 5, never 2..3. */
    mc_status st = MC_OK;
    {
        value_map *m = malloc(sizeof *m);
        uint16_t *idx = malloc((n + 1) * sizeof *idx);
        if (!m || !idx) {
            free(m);
            free(idx);
            free(vals);
            return MC_ERR_NOMEM;
        }
        map_init(m, n + 1);
        map_values(m, vals, n, idx);
        uint32_t vix;
        if (value == UINT32_MAX) {
            /* map_values keeps UINT32_MAX out of the table */
            vix = m->n;
            for (uint32_t k = 0; k < m->n; k++)
                if (m->order[k] == UINT32_MAX)
                    vix = k;
            if (vix == m->n)
                m->order[m->n++] = value;
        } else {
            vix = map_add(m, value);
        }
        idx[i] = (uint16_t)vix;
        vals[i] = value;
        unsigned need = mc_bits_ceil_log2(m->n);
        unsigned want = next > need ? next : need;
        mc_container_kind kind = config_kind(&c->rules, want);
        unsigned bits = config_bits(&c->rules, want);
        if (kind == MC_CONTAINER_DIRECT) {
            uint32_t lim = (1u << c->rules.direct_bits) - 1;
            for (uint32_t k = 0; k < m->n; k++)
                if (m->order[k] > lim)
                    st = MC_ERR_RANGE;
            if (st == MC_OK)
                st = install(c, kind, bits, NULL, 0, vals, 4);
        } else {
            st = install(c, kind, bits, m->order, m->n, idx, 2);
        }
        free(m);
        free(idx);
    }
    free(vals);
    return st;
}

void mc_container_fill(mc_container *c, uint32_t value)
{
    uint32_t v = value;
    (void)install(c, MC_CONTAINER_SINGLE, 0, &v, 1, NULL, 4); /* cannot fail */
}

mc_status mc_container_set_all(mc_container *c, const uint32_t *values)
{
    return rebuild(c, values, 0);
}

mc_status mc_container_compact(mc_container *c)
{
    if (c->kind == MC_CONTAINER_SINGLE)
        return MC_OK;
    uint32_t *vals = malloc(c->rules.size * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    mc_container_get_all(c, vals);
    mc_status st = rebuild(c, vals, 0);
    free(vals);
    return st;
}

bool mc_container_each(const mc_container *c, bool (*fn)(size_t, uint32_t, void *), void *user)
{
    uint32_t vals[MAX_SIZE];
    mc_container_get_all(c, vals);
    for (size_t i = 0; i < c->rules.size; i++)
        if (!fn(i, vals[i], user))
            return false;
    return true;
}

bool mc_container_histogram(const mc_container *c, uint32_t *counts)
{
    if (c->kind == MC_CONTAINER_SINGLE) {
        counts[0] = c->rules.size;
        return true;
    }
    if (c->kind != MC_CONTAINER_INDIRECT)
        return false;
    uint16_t idx[MAX_SIZE];
    mc_bits_unpack_u16(c->longs, c->rules.size, c->bits, MC_BITS_PADDED, idx);
    if (c->bits <= 8) {
        /* four tables in turn: runs of one index (terrain is full of them)
         * would otherwise chain every increment on the previous one */
        uint16_t h[4][256];
        memset(h, 0, sizeof h);
        size_t i = 0;
        for (; i + 4 <= c->rules.size; i += 4) {
            h[0][idx[i]]++;
            h[1][idx[i + 1]]++;
            h[2][idx[i + 2]]++;
            h[3][idx[i + 3]]++;
        }
        for (; i < c->rules.size; i++)
            h[0][idx[i]]++;
        for (uint32_t k = 0; k < c->palette_len; k++)
            counts[k] = (uint32_t)h[0][k] + h[1][k] + h[2][k] + h[3][k];
    } else {
        memset(counts, 0, c->palette_len * sizeof *counts);
        for (size_t i = 0; i < c->rules.size; i++)
            counts[idx[i]]++;
    }
    return true;
}

size_t mc_container_count_if(const mc_container *c, bool (*pred)(uint32_t, void *), void *user)
{
    if (c->kind == MC_CONTAINER_SINGLE)
        return pred(c->value, user) ? c->rules.size : 0;
    if (c->kind == MC_CONTAINER_INDIRECT) {
        uint32_t small[256];
        uint32_t *counts = c->palette_len <= 256 ? small : malloc(c->palette_len * sizeof *counts);
        if (!counts)
            return 0; /* out of memory: counts are advisory */
        mc_container_histogram(c, counts);
        size_t total = 0;
        for (uint32_t k = 0; k < c->palette_len; k++)
            if (counts[k] && pred(c->palette[k], user))
                total += counts[k];
        if (counts != small)
            free(counts);
        return total;
    }
    uint32_t vals[MAX_SIZE];
    mc_container_get_all(c, vals);
    size_t total = 0;
    uint32_t last = 0;
    bool last_res = false, have = false;
    for (size_t i = 0; i < c->rules.size; i++) {
        if (!have || vals[i] != last) {
            last = vals[i];
            last_res = pred(last, user);
            have = true;
        }
        total += last_res;
    }
    return total;
}

bool mc_container_equal(const mc_container *a, const mc_container *b)
{
    if (a->rules.size != b->rules.size)
        return false;
    if (a->kind == MC_CONTAINER_SINGLE && b->kind == MC_CONTAINER_SINGLE)
        return a->value == b->value;
    uint32_t va[MAX_SIZE], vb[MAX_SIZE];
    mc_container_get_all(a, va);
    mc_container_get_all(b, vb);
    return memcmp(va, vb, a->rules.size * sizeof va[0]) == 0;
}

/* ----------------------------------------------- raw access for codecs */

const uint32_t *mc_container_palette(const mc_container *c, size_t *len)
{
    switch (c->kind) {
    case MC_CONTAINER_SINGLE:
        *len = 1;
        return &c->value;
    case MC_CONTAINER_INDIRECT:
        *len = c->palette_len;
        return c->palette;
    default:
        *len = 0;
        return NULL;
    }
}

const uint64_t *mc_container_longs(const mc_container *c, size_t *nlongs)
{
    *nlongs = c->longs ? nlongs_of(c) : 0;
    return c->longs;
}

/* The largest of v[0..n), in eight lanes without a branch. */
static uint32_t max_u32(const uint32_t *v, size_t n)
{
    uint32_t top[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (unsigned k = 0; k < 8; k++)
            top[k] = v[i + k] > top[k] ? v[i + k] : top[k];
    for (; i < n; i++)
        top[0] = v[i] > top[0] ? v[i] : top[0];
    for (unsigned k = 1; k < 8; k++)
        top[0] = top[k] > top[0] ? top[k] : top[0];
    return top[0];
}

/* The largest of v[0..n), in sixteen lanes without a branch. */
static uint16_t max_u16(const uint16_t *v, size_t n)
{
    uint16_t top[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (unsigned k = 0; k < 16; k++)
            top[k] = v[i + k] > top[k] ? v[i + k] : top[k];
    for (; i < n; i++)
        top[0] = v[i] > top[0] ? v[i] : top[0];
    for (unsigned k = 1; k < 16; k++)
        top[0] = top[k] > top[0] ? top[k] : top[0];
    return top[0];
}

/* The error for the first entry of src (bits, layout) at or past
 * palette_len, as the general path words it (MC_OK when there is none). */
static mc_status bad_index(const void *src, bool be, size_t n, unsigned bits, mc_bits_layout layout,
                           size_t palette_len, mc_error *err)
{
    uint32_t *vals = malloc(n * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    if (be)
        mc_bits_unpack_be_u32(src, n, bits, layout, vals);
    else
        mc_bits_unpack_u32(src, n, bits, layout, vals);
    size_t i = 0;
    while (i < n && vals[i] < palette_len)
        i++;
    const uint32_t v = i < n ? vals[i] : 0;
    free(vals);
    if (i == n)
        return MC_OK;
    return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "container: entry %zu is palette index %u, palette has %zu",
                        i, v, palette_len);
}

/* from_source's indirect result at another width or layout than the
 * source's (1.13-1.15's spanning longs at 5 to 8 bits, a width below the
 * rules' least): the indices unpacked as 16-bit entries (a palette holds at
 * most 4096), checked against the palette and packed at tbits. */
static mc_status from_source_indices(mc_container *c, unsigned tbits, mc_bits_layout layout,
                                     const uint32_t *palette, size_t palette_len, const void *src, bool be,
                                     unsigned bits, mc_error *err)
{
    const size_t n = c->rules.size;
    uint16_t idx[MAX_SIZE];
    if (bits > 16) {
        /* (not the game's) wider than any palette needs: unpacked once as
         * 32-bit values, each checked, then narrowed */
        uint32_t *vals = malloc(n * sizeof *vals);
        if (!vals)
            return MC_ERR_NOMEM;
        if (be)
            mc_bits_unpack_be_u32(src, n, bits, layout, vals);
        else
            mc_bits_unpack_u32(src, n, bits, layout, vals);
        const bool bad = max_u32(vals, n) >= palette_len;
        for (size_t i = 0; !bad && i < n; i++)
            idx[i] = (uint16_t)vals[i];
        free(vals);
        if (bad)
            return bad_index(src, be, n, bits, layout, palette_len, err);
    } else {
        if (be)
            mc_bits_unpack_be_u16(src, n, bits, layout, idx);
        else
            mc_bits_unpack_u16(src, n, bits, layout, idx);
        if (max_u16(idx, n) >= palette_len)
            return bad_index(src, be, n, bits, layout, palette_len, err);
    }
    return install(c, MC_CONTAINER_INDIRECT, tbits, palette, palette_len, idx, 2);
}

/* Builds from outside longs (native or big-endian). */
static mc_status from_source(mc_container *c, const mc_container_rules *rules, unsigned bits,
                             mc_bits_layout layout, const uint32_t *palette, size_t palette_len,
                             const void *src, bool be, size_t nlongs,
                             const mc_allocator *alloc, mc_error *err)
{
    mc_container_init(c, rules, 0, alloc);
    if (!rules_valid(rules))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "container: invalid rules");
    if (layout != MC_BITS_PADDED && layout != MC_BITS_SPANNING)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "container: invalid layout");
    if (bits > MC_BITS_MAX)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                            "container: %u bits per entry exceeds 32", bits);
    const size_t n = rules->size;
    size_t want = layout == MC_BITS_PADDED ? mc__bits_longs_padded(n, bits) : mc_bits_longs(n, bits, layout);
    if (nlongs != want)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                            "container: %zu longs given, %u bits per entry %s need %zu", nlongs,
                            bits, layout == MC_BITS_PADDED ? "padded" : "spanning", want);
    if (palette_len && !palette)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "container: NULL palette");
    if (bits == 0) {
        if (palette_len > 1)
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                "container: %zu palette entries with 0 bits per entry", palette_len);
        c->value = palette_len ? palette[0] : 0;
        if (!palette_len && rules->direct_bits < 32 && c->value >> rules->direct_bits)
            return MC_ERR_RANGE;
        return MC_OK;
    }
    if (palette_len > ((size_t)1 << bits))
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                            "container: palette of %zu entries cannot be indexed with %u bits",
                            palette_len, bits);

    /* The strategy the game would take. */
    mc_container_kind kind;
    unsigned tbits;
    if (palette_len) {
        if (bits <= rules->max_indirect_bits) {
            kind = MC_CONTAINER_INDIRECT;
            tbits = config_bits(rules, bits);
        } else {
            unsigned need = mc_bits_ceil_log2(palette_len);
            kind = config_kind(rules, need ? need : 1);
            tbits = config_bits(rules, need ? need : 1);
        }
    } else {
        kind = MC_CONTAINER_DIRECT;
        tbits = rules->direct_bits;
    }

    const uint64_t dlim = rules->direct_bits >= 32 ? UINT32_MAX : ((1ull << rules->direct_bits) - 1);
    const mc_allocator *a = c->alloc;
    size_t tl = mc__bits_longs_padded(n, tbits);
    /* at a width dividing 64 (1.13-1.15's 4-bit sections, most of their
     * blocks) spanning longs are padded ones: the same bytes */
    const mc_bits_layout given = layout;
    if (64 % bits == 0)
        layout = MC_BITS_PADDED;

    /* Fast path: the modern case, same width and padded: copy the longs. */
    if (tbits == bits && layout == MC_BITS_PADDED &&
        (kind == MC_CONTAINER_INDIRECT || (kind == MC_CONTAINER_DIRECT && tbits <= rules->direct_bits))) {
        const size_t cap = kind == MC_CONTAINER_INDIRECT ? (size_t)1 << tbits : 0;
        uint32_t *pal;
        uint64_t *longs = alloc_joint(a, tl, cap, &pal);
        if (!longs)
            return MC_ERR_NOMEM;
        bool below;
        if (be && kind == MC_CONTAINER_INDIRECT) {
            below = mc__bits_load_be_all_below(src, tl, longs, n, bits, palette_len);
        } else {
            if (be)
                mc_bits_load_be(src, tl, longs);
            else
                memcpy(longs, src, tl * 8);
            below = kind != MC_CONTAINER_INDIRECT || mc_bits_all_below(longs, n, bits, palette_len);
        }
        if (kind == MC_CONTAINER_INDIRECT) {
            mc_status bad;
            if (!below && given != layout && (bad = bad_index(src, be, n, bits, layout, palette_len, err))) {
                release_joint(a, longs, tl, cap); /* worded as the spanning path said it */
                return bad;
            }
            if (!below) {
                uint32_t mx = mc_bits_max(longs, n, bits, MC_BITS_PADDED);
                release_joint(a, longs, tl, cap);
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                    "container: palette index %u >= palette length %zu", mx,
                                    palette_len);
            }
            memcpy(pal, palette, palette_len * 4);
        }
        c->longs = longs;
        c->palette = pal;
        c->palette_len = kind == MC_CONTAINER_INDIRECT ? (uint32_t)palette_len : 0;
        c->palette_cap = (uint32_t)cap;
        c->kind = (uint8_t)kind;
        c->bits = (uint8_t)tbits;
        c->joint = 1;
        return MC_OK;
    }

    if (kind == MC_CONTAINER_INDIRECT)
        return from_source_indices(c, tbits, layout, palette, palette_len, src, be, bits, err);
    /* General path: unpack, validate, map, pack at the game's width. */
    uint32_t *vals = malloc(n * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    if (be)
        mc_bits_unpack_be_u32(src, n, bits, layout, vals);
    else
        mc_bits_unpack_u32(src, n, bits, layout, vals);
    mc_status st = MC_OK;
    /* the largest entry first (a loop the compiler vectorises); the one at
     * fault is looked for only when it is too large */
    const uint64_t top = palette_len ? palette_len - 1 : dlim;
    for (size_t i = max_u32(vals, n) > top ? 0 : n; i < n; i++) {
        if (palette_len ? vals[i] >= palette_len : vals[i] > dlim) {
            st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                              palette_len ? "container: entry %zu is palette index %u, palette has %zu"
                                          : "container: entry %zu is id %u, beyond %zu bits",
                              i, vals[i], palette_len ? palette_len : (size_t)rules->direct_bits);
            break;
        }
    }
    if (st == MC_OK) {
        if (kind == MC_CONTAINER_INDIRECT) {
            st = install(c, kind, tbits, palette, palette_len, vals, 4);
        } else if (palette_len) {
            /* a palette too large for indirect (1.13-1.15 disk, up to 4096
             * entries at 9-12 bits): ids go direct */
            for (size_t i = 0; i < n && st == MC_OK; i++) {
                vals[i] = palette[vals[i]];
                if (vals[i] > dlim)
                    st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                      "container: palette id %u beyond the direct width %u",
                                      vals[i], rules->direct_bits);
            }
            if (st == MC_OK)
                st = install(c, kind, tbits, NULL, 0, vals, 4);
        } else {
            st = install(c, kind, tbits, NULL, 0, vals, 4);
        }
    }
    free(vals);
    if (st != MC_OK)
        mc_container_free(c);
    return st;
}

mc_status mc_container_from_be(mc_container *c, const mc_container_rules *rules, unsigned bits,
                               mc_bits_layout layout, const uint32_t *palette, size_t palette_len,
                               const uint8_t *be, size_t nlongs, const mc_allocator *alloc,
                               mc_error *err)
{
    return from_source(c, rules, bits, layout, palette, palette_len, be, true, nlongs, alloc, err);
}

mc_status mc_container_from_longs(mc_container *c, const mc_container_rules *rules, unsigned bits,
                                  mc_bits_layout layout, const uint32_t *palette, size_t palette_len,
                                  const uint64_t *longs, size_t nlongs, const mc_allocator *alloc,
                                  mc_error *err)
{
    return from_source(c, rules, bits, layout, palette, palette_len, longs, false, nlongs, alloc, err);
}

mc_status mc_container_adopt(mc_container *c, const mc_container_rules *rules, mc_container_kind kind,
                             unsigned bits, uint32_t *palette, size_t palette_len, size_t palette_cap,
                             uint64_t *longs, const mc_allocator *alloc, mc_error *err)
{
    mc_container_init(c, rules, 0, alloc);
    if (!rules_valid(rules))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "container: invalid rules");
    const mc_allocator *a = c->alloc;
    switch (kind) {
    case MC_CONTAINER_SINGLE:
        if (bits != 0 || palette_len != 1 || !palette || longs)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "container: single value needs 0 bits, one palette entry, no longs");
        c->value = palette[0];
        a->free(a->user, palette, palette_cap * 4);
        return MC_OK;
    case MC_CONTAINER_INDIRECT:
        if (bits == 0 || bits > rules->max_indirect_bits || config_bits(rules, bits) != bits ||
            !palette || !longs || palette_len == 0 || palette_len > ((size_t)1 << bits) ||
            palette_cap < ((size_t)1 << bits))
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "container: %u-bit indirect data does not follow the rules", bits);
        if (!mc_bits_all_below(longs, rules->size, bits, palette_len))
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                "container: palette index %u >= palette length %zu",
                                mc_bits_max(longs, rules->size, bits, MC_BITS_PADDED), palette_len);
        c->palette = palette;
        c->palette_len = (uint32_t)palette_len;
        c->palette_cap = (uint32_t)palette_cap;
        break;
    case MC_CONTAINER_DIRECT:
        if (bits != rules->direct_bits || !longs)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "container: direct data must be at %u bits", rules->direct_bits);
        if (palette)
            a->free(a->user, palette, palette_cap * 4);
        break;
    default:
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "container: bad kind");
    }
    c->longs = longs;
    c->kind = (uint8_t)kind;
    c->bits = (uint8_t)bits;
    return MC_OK;
}

/* ---------------------------------------------------------------- writers */

mc_status mc_container_write_be(const mc_container *c, unsigned bits, mc_bits_layout layout,
                                 mc_container_values what, uint8_t *out)
{
    const size_t n = c->rules.size;
    if (bits > MC_BITS_MAX)
        return MC_ERR_RANGE;
    if (what == MC_WRITE_INDICES && c->kind == MC_CONTAINER_DIRECT)
        return MC_ERR_INVALID_ARG;
    size_t nl = mc_bits_longs(n, bits, layout);
    const uint64_t lim = bits >= 32 ? UINT32_MAX : ((1ull << bits) - 1);

    /* Copy: the representation already is the requested one. */
    if (bits == c->bits && layout == MC_BITS_PADDED && c->longs &&
        ((what == MC_WRITE_INDICES && c->kind == MC_CONTAINER_INDIRECT) ||
         (what == MC_WRITE_IDS && c->kind == MC_CONTAINER_DIRECT))) {
        mc_bits_store_be(c->longs, nl, out);
        return MC_OK;
    }
    if (c->kind == MC_CONTAINER_SINGLE) {
        uint32_t v = what == MC_WRITE_IDS ? c->value : 0;
        if (v > lim)
            return MC_ERR_RANGE;
        if (v == 0) {
            memset(out, 0, nl * 8);
            return MC_OK;
        }
    }
    uint32_t *vals = malloc(n * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    if (what == MC_WRITE_IDS)
        mc_container_get_all(c, vals);
    else if (c->kind == MC_CONTAINER_SINGLE)
        memset(vals, 0, n * sizeof *vals);
    else
        mc_bits_unpack_u32(c->longs, n, c->bits, MC_BITS_PADDED, vals);
    mc_status st = MC_OK;
    if (lim < UINT32_MAX)
        for (size_t i = 0; i < n; i++)
            if (vals[i] > lim) {
                st = MC_ERR_RANGE;
                break;
            }
    if (st == MC_OK && nl)
        mc_bits_pack_be_u32(vals, n, bits, layout, out);
    free(vals);
    return st;
}

mc_status mc_container_write_be_buf(const mc_container *c, unsigned bits, mc_bits_layout layout,
                                     mc_container_values what, mc_buf *out)
{
    size_t nl = mc_bits_longs(c->rules.size, bits, layout);
    if (nl == SIZE_MAX)
        return MC_ERR_RANGE;
    size_t at = out->len;
    if (!mc_buf_extend(out, nl * 8))
        return MC_ERR_NOMEM;
    mc_status st = mc_container_write_be(c, bits, layout, what, out->data + at);
    if (st != MC_OK)
        out->len = at;
    return st;
}
