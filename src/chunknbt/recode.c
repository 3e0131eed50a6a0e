/*
 * recode.c: chunk NBT of a 1.18+ DataVersion written again for another 1.18+
 * DataVersion, bytes to bytes, without a tree or a column.
 *
 * Between two DataVersions of 21w43a (2844) or later a chunk keeps its
 * shape: the root holds the chunk keys, the sections hold block_states and
 * biomes containers. What `mc_chunknbt_read_bytes` + `mc_column_translate`
 * + `mc_chunknbt_write` change between two such versions is small, and this
 * file does exactly that, on the bytes:
 *   - the palettes: each block state through mc_registry_map (air for what
 *     the target lacks), each biome through mc_biome_map; a palette whose
 *     entries stay distinct and are all used keeps its order and its packed
 *     indices (the longs are copied); any other is rebuilt in first-occurrence
 *     order of the mapped values, as the model path rebuilds it;
 *   - DataVersion set to the target's; on request (the caller's decide())
 *     the light of the sections dropped and isLightOn set to 0;
 *   - an absent block_entities written as an empty list;
 *   - every other key copied as its bytes: heightmaps, structures, ticks,
 *     post-processing, Status, sections outside the column (light only).
 * Anything else -- block entities (their shape changes across versions),
 * palette entries the registry does not know, heightmaps the translation
 * would recompute, odd section shapes, strings that are not plain ASCII,
 * older or snapshot layouts -- makes it decline (MC_ERR_UNSUPPORTED, nothing
 * written), and the caller takes the model path for that chunk. So the
 * output equals the model path's as NBT content (key order aside), which
 * tests/unit/test_world_recode.c checks on every 1.18+ corpus chunk.
 *
 * All checks come first (phase 1: scan, resolve, unpack); only then are the
 * caller's callbacks run and bytes written (phase 2), so a decline leaves
 * no trace in the caller's counts.
 */
#include "chunknbt/chunknbt_private.h"

#include "mcchunk/translate.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && !defined(MC_PORTABLE)
#include <emmintrin.h>
#endif

#define RC_MAX_SECTIONS 64
#define RC_MAX_TAGS 64
#define RC_DV_FIRST 2844 /* 21w43a: yPos, no Level wrapper (MC__DV_YPOS) */

/* A container of one section: its palette (resolved) and indices. */
typedef struct rc_container {
    uint32_t n;            /* palette entries */
    uint32_t first;        /* their starts rc->at[first .. first + n], then
                            * their ids rc->ids[first .. first + n) */
    const uint8_t *pal, *pal_end; /* the palette's entries (once resolved) */
    size_t out_at, out_len; /* where it was written in the output */
    const uint8_t *data;   /* big-endian longs (NULL: none) */
    uint32_t data_n;
    unsigned bits;         /* of the data */
    uint16_t *idx;         /* room for the indices (NULL when n == 1) */
    uint32_t unpacked;     /* how many of them are unpacked so far (see indices) */
} rc_container;

typedef struct rc_section {
    int32_t y;
    const uint8_t *start, *end; /* the compound's payload */
    const uint8_t *y_at;        /* Y's value in it */
    bool in_range;
    rc_container blocks, biomes;
    const uint8_t *block_light, *sky_light;
} rc_section;

typedef struct rc_tag {
    const uint8_t *start, *end; /* type byte .. end of value */
    const uint8_t *key, *value;
    uint16_t key_len;
    uint8_t type;
} rc_tag;

struct mc_chunknbt_recoder {
    mc_chunknbt_cache *cache;
    /* target palette entries as bytes, per state of `treg` */
    const mc_registry *treg;
    uint32_t *entry_at;   /* offset + 1 into `entries` (0: not made) */
    uint16_t *entry_len;
    uint32_t entry_states;
    mc_buf entries;
    /* per chunk */
    rc_tag tags[RC_MAX_TAGS];
    size_t ntags;
    rc_section sec[RC_MAX_SECTIONS];
    size_t nsec;
    const uint8_t **at;       /* palette entry starts (each container's n + 1) */
    size_t at_len, at_cap;
    uint32_t *ids;
    size_t ids_len, ids_cap;
    uint16_t *idx_store;      /* RC_MAX_SECTIONS * (4096 + 64) */
    uint32_t vals[4096], pal[4096], oidx[4096];
    uint8_t be[8 * 4096];
    uint64_t longs[512];      /* a container's longs in native order (bits <= 8) */
};

mc_chunknbt_recoder *mc_chunknbt_recoder_new(void)
{
    mc_chunknbt_recoder *rc = calloc(1, sizeof *rc);
    if (!rc)
        return NULL;
    rc->cache = mc_chunknbt_cache_new(NULL);
    rc->idx_store = malloc((size_t)RC_MAX_SECTIONS * (4096 + 64) * sizeof *rc->idx_store);
    mc_buf_init(&rc->entries, NULL);
    if (!rc->cache || !rc->idx_store) {
        mc_chunknbt_recoder_free(rc);
        return NULL;
    }
    return rc;
}

void mc_chunknbt_recoder_free(mc_chunknbt_recoder *rc)
{
    if (!rc)
        return;
    mc_chunknbt_cache_free(rc->cache);
    free(rc->entry_at);
    free(rc->entry_len);
    mc_buf_free(&rc->entries);
    free(rc->ids);
    free(rc->at);
    free(rc->idx_store);
    free(rc);
}

/* ------------------------------------------------------------ scanning */

typedef struct rscan {
    const uint8_t *p, *end;
} rscan;

static inline bool rs_need(const rscan *s, size_t n)
{
    return (size_t)(s->end - s->p) >= n;
}

/* Whether p[0..n) is ASCII without NUL: eight bytes at a time (a byte is
 * 0 when (v - 0x01..) & ~v has its top bit, >= 0x80 when v has it). */
static bool plain_ascii(const uint8_t *p, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
    uint64_t bad = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint64_t v = mc_load_u64le(p + i);
        bad |= ((v - ones) & ~v) | v;
    }
    for (; i < n; i++)
        bad |= (uint64_t)(p[i] == 0 || p[i] >= 0x80) << 7;
    return !(bad & tops);
}

/* A string or key: u16 length + bytes, plain ASCII without NUL (what the
 * parser keeps byte for byte). */
static inline bool rs_str(rscan *s, const uint8_t **str, uint16_t *len, bool check)
{
    if (!rs_need(s, 2))
        return false;
    const uint16_t n = mc_load_u16be(s->p);
    s->p += 2;
    if (!rs_need(s, n) || (check && !plain_ascii(s->p, n)))
        return false;
    *str = s->p;
    *len = n;
    s->p += n;
    return true;
}

static bool rs_count(rscan *s, uint32_t *n)
{
    if (!rs_need(s, 4))
        return false;
    const int32_t v = (int32_t)mc_load_u32be(s->p);
    s->p += 4;
    *n = (uint32_t)v;
    return v >= 0;
}

/* Steps over a payload of `type`, checking it as the parser does (its
 * strings plain ASCII too when `check`: for what is copied as bytes). */
static bool rs_skip(rscan *s, unsigned type, unsigned depth, bool check)
{
    static const uint8_t fixed[7] = {0, 1, 2, 4, 8, 4, 8};
    if (depth > 64)
        return false;
    const uint8_t *k;
    uint16_t kl;
    uint32_t n;
    switch (type) {
    case MC_NBT_BYTE: case MC_NBT_SHORT: case MC_NBT_INT: case MC_NBT_LONG: case MC_NBT_FLOAT:
    case MC_NBT_DOUBLE:
        if (!rs_need(s, fixed[type]))
            return false;
        s->p += fixed[type];
        return true;
    case MC_NBT_STRING:
        return rs_str(s, &k, &kl, check);
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY: {
        if (!rs_count(s, &n))
            return false;
        const uint64_t bytes = (uint64_t)n * (type == MC_NBT_BYTE_ARRAY ? 1 : type == MC_NBT_INT_ARRAY ? 4 : 8);
        if (bytes > (uint64_t)(s->end - s->p))
            return false;
        s->p += bytes;
        return true;
    }
    case MC_NBT_LIST: {
        if (!rs_need(s, 1))
            return false;
        const unsigned elem = *s->p++;
        if (!rs_count(s, &n) || elem > MC_NBT_LONG_ARRAY || (elem == MC_NBT_END && n))
            return false;
        if (elem >= MC_NBT_BYTE && elem <= MC_NBT_DOUBLE) { /* fixed size: stepped over at once */
            if ((uint64_t)n * fixed[elem] > (uint64_t)(s->end - s->p))
                return false;
            s->p += (size_t)n * fixed[elem];
            return true;
        }
        for (uint32_t i = 0; i < n; i++)
            if (!rs_skip(s, elem, depth + 1, check))
                return false;
        return true;
    }
    case MC_NBT_COMPOUND:
        for (;;) {
            if (!rs_need(s, 1))
                return false;
            const unsigned t = *s->p++;
            if (t == MC_NBT_END)
                return true;
            if (t > MC_NBT_LONG_ARRAY || !rs_str(s, &k, &kl, check))
                return false;
            if (t <= MC_NBT_DOUBLE && depth < 64) { /* numbers (most of a tick's keys): no call */
                if (!rs_need(s, fixed[t]))
                    return false;
                s->p += fixed[t];
            } else if (!rs_skip(s, t, depth + 1, check)) {
                return false;
            }
        }
    default:
        return false;
    }
}

static inline bool key_is(const uint8_t *k, uint16_t kl, const char *lit)
{
    return strlen(lit) == kl && memcmp(k, lit, kl) == 0;
}

static inline const rc_tag *find_tag(const rc_tag *tags, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (key_is(tags[i].key, tags[i].key_len, key))
            return &tags[i];
    return NULL;
}

/* One tag's head at s: its type (0: the compound's end) and key. */
static bool rs_head(rscan *s, unsigned *type, const uint8_t **key, uint16_t *kl, bool check)
{
    if (!rs_need(s, 1))
        return false;
    *type = *s->p++;
    if (*type == MC_NBT_END)
        return true;
    return *type <= MC_NBT_LONG_ARRAY && rs_str(s, key, kl, check);
}

/* ------------------------------------------------------------ phase 1 */

/* Room for n more entry starts in rc->at. */
static bool at_room(mc_chunknbt_recoder *rc, size_t n)
{
    if (rc->at_len + n <= rc->at_cap)
        return true;
    size_t cap = rc->at_cap ? rc->at_cap : 1024;
    while (cap < rc->at_len + n)
        cap *= 2;
    const uint8_t **p = realloc(rc->at, cap * sizeof *p);
    if (!p)
        return false;
    rc->at = p;
    rc->at_cap = cap;
    return true;
}

/* A block_states or biomes compound {palette, data?} stepped over once:
 * where its entries start (rc->at) and where its longs are. */
static bool scan_container(mc_chunknbt_recoder *rc, rscan *s, bool biomes, rc_container *c)
{
    bool have_pal = false, have_data = false;
    for (;;) {
        unsigned t;
        const uint8_t *k = NULL;
        uint16_t kl = 0;
        if (!rs_head(s, &t, &k, &kl, false))
            return false;
        if (t == MC_NBT_END)
            return have_pal;
        if (t == MC_NBT_LIST && key_is(k, kl, "palette") && !have_pal) {
            if (!rs_need(s, 1))
                return false;
            const unsigned elem = *s->p++;
            uint32_t n;
            if (!rs_count(s, &n) || n == 0 || n > (biomes ? 64u : 256u) ||
                elem != (biomes ? MC_NBT_STRING : MC_NBT_COMPOUND))
                return false;
            if (!at_room(rc, (size_t)n + 1))
                return false;
            c->n = n;
            c->first = (uint32_t)rc->at_len;
            const uint8_t **at = rc->at + rc->at_len;
            for (uint32_t i = 0; i < n; i++) {
                const uint8_t *str;
                uint16_t sl;
                at[i] = s->p;
                if (!(biomes ? rs_str(s, &str, &sl, false) : (s->p = mc__palette_entry_end(s->p, s->end)) != NULL))
                    return false;
            }
            at[n] = s->p;
            rc->at_len += (size_t)n + 1;
            have_pal = true;
        } else if (t == MC_NBT_LONG_ARRAY && key_is(k, kl, "data") && !have_data) {
            if (!rs_count(s, &c->data_n) || (uint64_t)c->data_n * 8 > (uint64_t)(s->end - s->p))
                return false;
            c->data = s->p;
            s->p += (size_t)c->data_n * 8;
            have_data = true;
        } else {
            return false;
        }
    }
}

/* One section compound: Y, block_states, biomes, BlockLight, SkyLight
 * (each once); one without block data is copied as it is, so its strings
 * are checked. */
static bool scan_section(mc_chunknbt_recoder *rc, rscan *s, rc_section *sec)
{
    memset(sec, 0, sizeof *sec);
    sec->start = s->p;
    bool have_y = false, have_b = false, have_m = false;
    for (;;) {
        unsigned t;
        const uint8_t *k = NULL;
        uint16_t kl = 0;
        if (!rs_head(s, &t, &k, &kl, false))
            return false;
        if (t == MC_NBT_END)
            break;
        if (t == MC_NBT_BYTE && key_is(k, kl, "Y") && !have_y) {
            if (!rs_need(s, 1))
                return false;
            sec->y_at = s->p;
            sec->y = (int8_t)*s->p++;
            have_y = true;
        } else if (t == MC_NBT_COMPOUND && key_is(k, kl, "block_states") && !have_b) {
            if (!scan_container(rc, s, false, &sec->blocks))
                return false;
            have_b = true;
        } else if (t == MC_NBT_COMPOUND && key_is(k, kl, "biomes") && !have_m) {
            if (!scan_container(rc, s, true, &sec->biomes))
                return false;
            have_m = true;
        } else if (t == MC_NBT_BYTE_ARRAY && (key_is(k, kl, "BlockLight") || key_is(k, kl, "SkyLight"))) {
            const uint8_t **dst = kl == 10 ? &sec->block_light : &sec->sky_light;
            uint32_t n;
            if (*dst || !rs_count(s, &n) || n != MC_LIGHT_BYTES || !rs_need(s, n))
                return false;
            *dst = s->p;
            s->p += n;
        } else {
            return false;
        }
    }
    sec->end = s->p;
    sec->in_range = have_b;
    if (!have_y || have_b != have_m)
        return false;
    rscan again = {sec->start, sec->end}; /* copied as it is: its strings checked */
    return have_b || rs_skip(&again, MC_NBT_COMPOUND, 2, true);
}

/* Whether the section at s has the bytes of `below` (scanned) but for its
 * Y's value: then it scans as below does (air above the ground, the sky's
 * light), and sec becomes below's with its own bounds and Y, its palette
 * entry starts and longs read from below's bytes, which are the same. */
static bool repeat_section(rscan *s, const rc_section *below, rc_section *sec)
{
    const size_t len = (size_t)(below->end - below->start), yo = (size_t)(below->y_at - below->start);
    if (!rs_need(s, len) || memcmp(s->p, below->start, yo) || memcmp(s->p + yo + 1, below->y_at + 1, len - yo - 1))
        return false;
    *sec = *below;
    sec->start = s->p;
    sec->end = s->p + len;
    sec->y_at = s->p + yo;
    sec->y = (int8_t)*sec->y_at;
    s->p += len;
    return true;
}

/* The sections list's payload at s, each section scanned. */
static bool scan_sections(mc_chunknbt_recoder *rc, rscan *s)
{
    if (!rs_need(s, 1))
        return false;
    const unsigned elem = *s->p++;
    uint32_t n;
    if (!rs_count(s, &n) || elem != MC_NBT_COMPOUND || n == 0 || n > RC_MAX_SECTIONS || rc->nsec)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!(i && repeat_section(s, &rc->sec[i - 1], &rc->sec[i])) && !scan_section(rc, s, &rc->sec[i]))
            return false;
    rc->nsec = n;
    return true;
}

/* The root compound's tags (the sections scanned on the way), no key twice;
 * the bytes of every other tag are checked as they are copied. */
static bool scan_root(mc_chunknbt_recoder *rc, rscan *s)
{
    size_t n = 0;
    for (;;) {
        unsigned t;
        rc_tag tag;
        tag.start = s->p;
        if (!rs_head(s, &t, &tag.key, &tag.key_len, true))
            return false;
        if (t == MC_NBT_END)
            break;
        if (n == RC_MAX_TAGS)
            return false;
        tag.value = s->p;
        tag.type = (uint8_t)t;
        const bool sections = t == MC_NBT_LIST && key_is(tag.key, tag.key_len, "sections");
        if (!(sections ? scan_sections(rc, s) : rs_skip(s, t, 1, true)))
            return false;
        tag.end = s->p;
        for (size_t i = 0; i < n; i++)
            if (rc->tags[i].key_len == tag.key_len && !memcmp(rc->tags[i].key, tag.key, tag.key_len))
                return false;
        rc->tags[n++] = tag;
    }
    rc->ntags = n;
    return true;
}

static bool ids_room(mc_chunknbt_recoder *rc, size_t n)
{
    if (rc->ids_len + n <= rc->ids_cap)
        return true;
    size_t cap = rc->ids_cap ? rc->ids_cap : 1024;
    while (cap < rc->ids_len + n)
        cap *= 2;
    uint32_t *p = realloc(rc->ids, cap * sizeof *p);
    if (!p)
        return false;
    rc->ids = p;
    rc->ids_cap = cap;
    return true;
}

/* A palette's n entries at `at` looked up in `reg`, their ids put after
 * rc->ids_len. */
static bool resolve_entries(mc_chunknbt_recoder *rc, const mc_registry *reg, bool biomes, const uint8_t *const *at,
                            uint32_t n)
{
    if (!ids_room(rc, n))
        return false;
    uint32_t *ids = rc->ids + rc->ids_len;
    for (uint32_t i = 0; i < n; i++) {
        if (biomes) {
            const uint8_t *name = at[i] + 2;
            const size_t nl = (size_t)(at[i + 1] - name);
            if (!plain_ascii(name, nl) || mc__cache_biome(rc->cache, reg, (const char *)name, nl, &ids[i]) != MC_OK)
                return false;
        } else if (mc__cache_block_raw(rc->cache, reg, at[i], (size_t)(at[i + 1] - at[i]), &ids[i]) != MC_OK) {
            return false;
        }
    }
    return true;
}

/* A scanned container resolved in `reg` (c->first becomes the ids' start)
 * and its longs checked; idx is where indices() unpacks them, when and as
 * far as they are needed (the counts and most kept palettes never need all
 * 4096). A palette whose bytes are those of `prev` (the section below's,
 * resolved: air above the ground, one biome all the way up) shares its ids
 * without a look-up. */
static bool resolve_container(mc_chunknbt_recoder *rc, const mc_registry *reg, bool biomes, uint16_t *idx,
                              const rc_container *prev, rc_container *c)
{
    const uint32_t n = c->n;
    const uint8_t *const *at = rc->at + c->first;
    c->pal = at[0];
    c->pal_end = at[n];
    const size_t bytes = (size_t)(c->pal_end - c->pal);
    if (prev && prev->n == n && (size_t)(prev->pal_end - prev->pal) == bytes &&
        (prev->pal == c->pal || !memcmp(prev->pal, c->pal, bytes))) { /* (the same bytes: a repeated section) */
        c->first = prev->first;
    } else if (!resolve_entries(rc, reg, biomes, at, n)) {
        return false;
    } else {
        c->first = (uint32_t)rc->ids_len;
        rc->ids_len += n;
    }
    const size_t size = biomes ? 64 : 4096;
    c->idx = NULL;
    c->unpacked = 0;
    if (n == 1)
        return !c->data || c->data_n == 0;
    if (!c->data)
        return false;
    unsigned bits = mc_bits_ceil_log2(n);
    if (!biomes && bits < 4)
        bits = 4;
    c->bits = bits;
    if (c->data_n != mc_bits_longs(size, bits, MC_BITS_PADDED))
        return false;
    /* padding bits and the tail of the last long clear (the game's): the
     * model would write them cleared */
    const unsigned per = 64 / bits, last = (unsigned)(size - (size_t)(c->data_n - 1) * per);
    const uint64_t used = per * bits >= 64 ? ~0ull : (1ull << (per * bits)) - 1;
    uint64_t pad = 0;
    for (uint32_t i = 0; used != ~0ull && i + 1 < c->data_n; i++)
        pad |= mc_load_u64be(c->data + 8 * i) & ~used;
    pad |= mc_load_u64be(c->data + 8 * (c->data_n - 1)) & ~(last * bits >= 64 ? ~0ull : (1ull << (last * bits)) - 1);
    if (pad)
        return false;
    if (n < (1u << bits)) { /* every index inside the palette */
        if (c->data_n > sizeof rc->longs / sizeof rc->longs[0])
            return false;
        mc_bits_load_be(c->data, c->data_n, rc->longs);
        if (!mc_bits_all_below(rc->longs, size, bits, n))
            return false;
    }
    c->idx = idx;
    return true;
}

/* c's first `count` indices, unpacked on the first call that asks for them
 * (a container with n > 1). */
static const uint16_t *indices(rc_container *c, size_t count)
{
    if (c->unpacked < count) {
        mc_bits_unpack_be_u16(c->data, count, c->bits, MC_BITS_PADDED, c->idx);
        c->unpacked = (uint32_t)count;
    }
    return c->idx;
}

static int by_y(const void *a, const void *b)
{
    const rc_section *x = a, *y = b;
    return (x->y > y->y) - (x->y < y->y);
}

/* The scanned sections sorted by Y (the order the writer puts them in),
 * the column's range checked -- every Y from yPos up to the highest with
 * data has data, no section without data lies inside -- and those inside
 * resolved in `reg`. */
static bool resolve_sections(mc_chunknbt_recoder *rc, const mc_registry *reg, int32_t ypos, int32_t *count)
{
    const size_t n = rc->nsec;
    size_t first_unsorted = 1;
    while (first_unsorted < n && rc->sec[first_unsorted - 1].y <= rc->sec[first_unsorted].y)
        first_unsorted++;
    if (first_unsorted < n) /* (the game's chunks come sorted: no qsort) */
        qsort(rc->sec, n, sizeof rc->sec[0], by_y);
    int32_t hi = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        if (i && rc->sec[i].y == rc->sec[i - 1].y)
            return false;
        if (rc->sec[i].in_range)
            hi = rc->sec[i].y;
    }
    if (hi < ypos)
        return false;
    *count = hi - ypos + 1;
    int32_t expect = ypos;
    for (size_t i = 0; i < n; i++) {
        rc_section *c = &rc->sec[i];
        const bool inside = c->y >= ypos && c->y <= hi;
        if (inside != c->in_range || (inside && c->y != expect++))
            return false;
        uint16_t *idx = rc->idx_store + i * (4096 + 64);
        const rc_section *below = i && rc->sec[i - 1].in_range ? &rc->sec[i - 1] : NULL;
        if (inside && (!resolve_container(rc, reg, false, idx, below ? &below->blocks : NULL, &c->blocks) ||
                       !resolve_container(rc, reg, true, idx + 4096, below ? &below->biomes : NULL, &c->biomes)))
            return false;
    }
    return expect == hi + 1;
}

/* A state's MC_STATE_* flags, from the registry's table when it has one. */
static uint32_t flags_of(const uint8_t *table, size_t n, const mc_registry *reg, uint32_t s)
{
    return table ? (s < n ? table[s] : 0) : mc_registry_state_flags(reg, s);
}

/* Whether every block state of the column keeps, in the target, the flags
 * heightmaps test (else mc_column_translate recomputes the heightmaps). */
static bool heightmap_flags_kept(const mc_chunknbt_recoder *rc, const mc_registry *from, const mc_registry *to,
                                 const uint32_t *map, uint32_t map_len, uint32_t tair)
{
    const uint32_t f = MC_STATE_AIR | MC_STATE_FLUID | MC_STATE_BLOCKS_MOTION | MC_STATE_LEAVES;
    size_t nf, nt;
    const uint8_t *ff = mc_registry_state_flag_table(from, &nf), *tf = mc_registry_state_flag_table(to, &nt);
    for (size_t i = 0; i < rc->nsec; i++) {
        const rc_container *b = &rc->sec[i].blocks;
        for (uint32_t k = 0; rc->sec[i].in_range && k < b->n; k++) {
            const uint32_t s = rc->ids[b->first + k], t = mc_registry_map_apply(map, map_len, s, tair);
            if ((flags_of(ff, nf, from, s) ^ flags_of(tf, nt, to, t)) & f)
                return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------ phase 2 */

static inline void put_key_n(mc_buf *o, unsigned type, const char *key, size_t n)
{
    uint8_t *p = mc_buf_extend(o, 3 + n);
    if (!p)
        return;
    p[0] = (uint8_t)type;
    mc_store_u16be(p + 1, (uint16_t)n);
    memcpy(p + 3, key, n);
}

static void put_key(mc_buf *o, unsigned type, const char *key)
{
    put_key_n(o, type, key, strlen(key));
}

/* A key given as a string literal: its length known at compile time. */
#define PUT_KEY(o, type, lit) put_key_n((o), (type), (lit), sizeof(lit) - 1)

static void put_string(mc_buf *o, const char *s)
{
    const size_t n = strlen(s);
    mc_buf_put_u16be(o, (uint16_t)n);
    mc_buf_put(o, s, n);
}

/* The palette compound payload of a target state {Name, Properties?}, as
 * the chunk writer makes it (made once per state and kept). */
static bool entry_bytes(mc_chunknbt_recoder *rc, const mc_registry *to, uint32_t state, const uint8_t **p,
                        size_t *len)
{
    if (rc->treg != to) {
        free(rc->entry_at);
        free(rc->entry_len);
        rc->entry_states = mc_registry_state_count(to);
        rc->entry_at = calloc(rc->entry_states + 1, sizeof *rc->entry_at);
        rc->entry_len = calloc(rc->entry_states + 1, sizeof *rc->entry_len);
        rc->entries.len = 0;
        rc->treg = rc->entry_at && rc->entry_len ? to : NULL;
        if (!rc->treg)
            return false;
    }
    if (state < rc->entry_states && rc->entry_at[state]) {
        *p = rc->entries.data + rc->entry_at[state] - 1;
        *len = rc->entry_len[state];
        return true;
    }
    const char *name = state < rc->entry_states ? mc_registry_state_name(to, state) : NULL;
    if (!name) {
        state = mc_registry_air(to);
        name = mc_registry_state_name(to, state);
        if (!name)
            return false;
    }
    if (!rc->entry_at[state]) {
        mc_buf *o = &rc->entries;
        const size_t at = o->len;
        PUT_KEY(o, MC_NBT_STRING, "Name");
        put_string(o, name);
        const unsigned np = mc_registry_state_prop_count(to, state);
        if (np) {
            PUT_KEY(o, MC_NBT_COMPOUND, "Properties");
            for (unsigned i = 0; i < np; i++) {
                const char *k, *v;
                if (mc_registry_state_prop(to, state, i, &k, &v)) {
                    put_key(o, MC_NBT_STRING, k);
                    put_string(o, v);
                }
            }
            mc_buf_put_u8(o, MC_NBT_END);
        }
        mc_buf_put_u8(o, MC_NBT_END);
        if (!mc_buf_ok(o) || o->len - at > 0xFFFF || at >= UINT32_MAX)
            return false;
        rc->entry_at[state] = (uint32_t)at + 1;
        rc->entry_len[state] = (uint16_t)(o->len - at);
    }
    *p = rc->entries.data + rc->entry_at[state] - 1;
    *len = rc->entry_len[state];
    return true;
}

/* Whether the 4-bit index k occurs in the packed bytes be[0..bytes) (two
 * indices a byte): 32 bytes a branch, both nibbles compared, stopping at
 * the first hit (the rare block sought is usually met well before the end). */
static bool nibble_occurs(const uint8_t *be, size_t bytes, unsigned k)
{
    size_t i = 0;
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    const __m128i low = _mm_set1_epi8(0x0F), want = _mm_set1_epi8((char)k);
    for (; i + 32 <= bytes; i += 32) { /* two steps a branch */
        const __m128i v = _mm_loadu_si128((const __m128i *)(be + i));
        const __m128i w = _mm_loadu_si128((const __m128i *)(be + i + 16));
        const __m128i a = _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(v, low), want),
                                       _mm_cmpeq_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), low), want));
        const __m128i b = _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(w, low), want),
                                       _mm_cmpeq_epi8(_mm_and_si128(_mm_srli_epi16(w, 4), low), want));
        if (_mm_movemask_epi8(_mm_or_si128(a, b)))
            return true;
    }
    for (; i + 16 <= bytes; i += 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(be + i));
        const __m128i lo = _mm_cmpeq_epi8(_mm_and_si128(v, low), want);
        const __m128i hi = _mm_cmpeq_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), low), want);
        if (_mm_movemask_epi8(_mm_or_si128(lo, hi)))
            return true;
    }
#endif
    for (; i < bytes; i++)
        if ((be[i] & 15) == k || (be[i] >> 4) == k)
            return true;
    return false;
}

/* all_used for 4-bit indices: each index looked for in the bytes of the
 * longs, nothing unpacked (a common block is met in the first step; a
 * section with a rare block would otherwise be walked index by index to
 * its end). */
static bool all_used_nibbles(const uint8_t *be, size_t bytes, uint32_t n)
{
    for (unsigned k = 0; k < n && k < 16; k++)
        if (!nibble_occurs(be, bytes, k))
            return false;
    return n <= 16;
}

/* Whether every index below n occurs in c's size indices: 4-bit ones
 * through all_used_nibbles (be: the packed longs, NULL when not 4-bit),
 * the others looked at after each run of 256 (most palettes are all seen
 * long before the end, so only the first 512 are unpacked before the rest
 * is needed). */
static bool all_used(rc_container *c, size_t size, uint32_t n, const uint8_t *be)
{
    if (be)
        return all_used_nibbles(be, size / 2, n);
    uint64_t seen[4] = {0};
    const uint64_t full[4] = {
        n >= 64 ? ~0ull : (1ull << n) - 1, n >= 128 ? ~0ull : n <= 64 ? 0 : (1ull << (n - 64)) - 1,
        n >= 192 ? ~0ull : n <= 128 ? 0 : (1ull << (n - 128)) - 1, n >= 256 ? ~0ull : n <= 192 ? 0 : (1ull << (n - 192)) - 1};
    for (size_t from = 0; from < size; from += 256) {
        const size_t to = from + 256 < size ? from + 256 : size;
        const uint16_t *idx = indices(c, to <= 512 ? (size < 512 ? size : 512) : size);
        if (n <= 64) {
            uint64_t g0 = 0, g1 = 0;
            size_t i = from;
            for (; i + 2 <= to; i += 2) {
                g0 |= 1ull << (idx[i] & 63);
                g1 |= 1ull << (idx[i + 1] & 63);
            }
            seen[0] |= g0 | g1;
        } else {
            for (size_t i = from; i < to; i++)
                seen[idx[i] >> 6] |= 1ull << (idx[i] & 63);
        }
        if ((seen[0] & full[0]) == full[0] && (seen[1] & full[1]) == full[1] && (seen[2] & full[2]) == full[2] &&
            (seen[3] & full[3]) == full[3])
            return true;
    }
    return false;
}

/* A container written for the target: the mapped palette kept with the
 * source's longs when its entries stay distinct and are all used, else a
 * palette rebuilt in first-occurrence order of the mapped values. */
static bool write_container(mc_chunknbt_recoder *rc, mc_buf *o, rc_container *c, bool biomes,
                            const uint32_t *map, uint32_t map_len, uint32_t fallback, const mc_registry *to)
{
    const size_t size = biomes ? 64 : 4096;
    const uint32_t *src = rc->ids + c->first;
    uint32_t *mapped = rc->pal;
    for (uint32_t i = 0; i < c->n; i++)
        mapped[i] = map ? mc_registry_map_apply(map, map_len, src[i], fallback) : src[i];
    bool keep = c->n > 1 && c->n <= (biomes ? 8u : 256u);
    for (uint32_t i = 0; keep && i < c->n; i++)
        for (uint32_t j = i + 1; keep && j < c->n; j++)
            keep = mapped[i] != mapped[j];
    if (keep)
        keep = all_used(c, size, c->n, c->bits == 4 ? c->data : NULL);
    uint32_t n = c->n;
    const uint8_t *data = NULL;
    unsigned bits = 0;
    if (keep) {
        data = c->data;
        bits = c->bits;
    } else if (n > 1) {
        /* first occurrence of the mapped values: each source index gets its
         * output index the first time it is met (merged with an earlier
         * entry of the same mapped value) */
        uint32_t *vals = rc->vals, *out_of = rc->oidx, *pal = rc->pal + 256;
        const uint16_t *idx = indices(c, size);
        for (uint32_t i = 0; i < c->n; i++)
            out_of[i] = UINT32_MAX;
        n = 0;
        for (size_t i = 0; i < size; i++) {
            const uint16_t k = idx[i];
            if (out_of[k] == UINT32_MAX) {
                uint32_t j = 0;
                while (j < n && pal[j] != mapped[k])
                    j++;
                if (j == n)
                    pal[n++] = mapped[k];
                out_of[k] = j;
            }
            vals[i] = out_of[k];
        }
        mapped = pal;
        if (n > 1) {
            bits = mc_bits_ceil_log2(n);
            if (!biomes && bits < 4)
                bits = 4;
            mc_bits_pack_be_u32(vals, size, bits, MC_BITS_PADDED, rc->be);
            data = rc->be;
        }
    }
    /* the palette's key, element type and count: one store of known size */
    static const uint8_t head[15] = {MC_NBT_LIST, 0, 7, 'p', 'a', 'l', 'e', 't', 't', 'e'};
    uint8_t *h = mc_buf_extend(o, sizeof head);
    if (h) {
        memcpy(h, head, sizeof head);
        h[10] = biomes ? MC_NBT_STRING : MC_NBT_COMPOUND;
        mc_store_u32be(h + 11, n);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (biomes) {
            const char *nm = mc_registry_biome_name(to, mapped[i]);
            put_string(o, nm ? nm : "minecraft:plains");
        } else {
            const uint8_t *e;
            size_t el;
            if (!entry_bytes(rc, to, mapped[i], &e, &el))
                return false;
            mc_buf_put(o, e, el);
        }
    }
    if (data) {
        const size_t nl = mc_bits_longs(size, bits, MC_BITS_PADDED);
        PUT_KEY(o, MC_NBT_LONG_ARRAY, "data");
        mc_buf_put_u32be(o, (uint32_t)nl);
        mc_buf_put(o, data, nl * 8);
    }
    mc_buf_put_u8(o, MC_NBT_END);
    return true;
}

/* Whether containers a and b are written as the same bytes: the same ids
 * (a palette shared with the section below) and the same longs. */
static bool same_container(const rc_container *a, const rc_container *b)
{
    return a->first == b->first && a->n == b->n &&
           (a->n == 1 || (a->data_n == b->data_n && !memcmp(a->data, b->data, (size_t)a->data_n * 8)));
}

/* write_container, or the bytes written for `below` (the section below's
 * container) again when c is the same. */
static bool put_container(mc_chunknbt_recoder *rc, mc_buf *o, rc_container *c, const rc_container *below,
                          bool biomes, const uint32_t *map, uint32_t map_len, uint32_t fallback,
                          const mc_registry *to)
{
    const size_t at = o->len;
    bool ok = true;
    if (below && same_container(c, below)) {
        if (mc_buf_reserve(o, below->out_len)) {
            memcpy(o->data + at, o->data + below->out_at, below->out_len);
            o->len += below->out_len;
        }
    } else {
        ok = write_container(rc, o, c, biomes, map, map_len, fallback, to);
    }
    c->out_at = at;
    c->out_len = o->len - at;
    return ok;
}

static void put_tag(mc_buf *o, const rc_tag *t)
{
    mc_buf_put(o, t->start, (size_t)(t->end - t->start));
}

/* Whether a compound tag (scanned already) has a key the writer takes for
 * its own bookkeeping ("mcchunk:..."), which the model path leaves out. */
static bool has_bookkeeping_key(const rc_tag *t)
{
    rscan s = {t->value, t->end};
    for (;;) {
        unsigned type;
        const uint8_t *k = NULL;
        uint16_t kl = 0;
        if (!rs_head(&s, &type, &k, &kl, false) || type == MC_NBT_END)
            return false;
        if (kl >= 8 && !memcmp(k, MC__KEY_PREFIX, 8))
            return true;
        if (!rs_skip(&s, type, 2, false))
            return false;
    }
}

/* The value of the first TAG_Int "DataVersion" in nbt[0..len), NULL when
 * there is none (a memchr for the key's one 'V', then the whole tag head;
 * 'V' is rarer in a chunk's longs and light than 'D', 0x44, two index-4
 * nibbles in a row: ~9 hits before the key on the corpus instead of ~82). */
static const uint8_t *find_data_version(const uint8_t *nbt, size_t len)
{
    static const uint8_t key[14] = {MC_NBT_INT, 0, 11, 'D', 'a', 't', 'a', 'V', 'e', 'r', 's', 'i', 'o', 'n'};
    if (len < sizeof key + 4) /* the tag head and its int: nbt + 7 would point past the end */
        return NULL;
    const uint8_t *end = nbt + len, *p = nbt + 7;
    while (p < end && (p = memchr(p, 'V', (size_t)(end - p))) != NULL) {
        if (end - p >= 11 && !memcmp(p - 7, key, sizeof key))
            return p + 7;
        p++;
    }
    return NULL;
}

mc_status mc_chunknbt_recode(mc_chunknbt_recoder *rc, const uint8_t *nbt, size_t len,
                             const mc_chunknbt_recode_options *opt, mc_buf *out, mc_error *err)
{
    const mc_status no = MC_ERR_UNSUPPORTED;
    if (!rc || !nbt || !opt || !out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk recode: missing argument");
    if (opt->data_version < RC_DV_FIRST)
        return no;
    /* an older chunk (Level, DataVersion below 2844; the rest of the
     * world) declined at the cost of a search: the first DataVersion int
     * in the bytes (a root key in every chunk that gets further) */
    const uint8_t *dvk = find_data_version(nbt, len);
    if (!dvk || (int32_t)mc_load_u32be(dvk) < RC_DV_FIRST)
        return no;
    /* phase 1: the root's tags, the facts, the sections */
    rscan s = {nbt, nbt + len};
    const uint8_t *rn;
    uint16_t rnl;
    rc->at_len = rc->ids_len = 0;
    rc->nsec = 0;
    if (len < 4 || nbt[0] != MC_NBT_COMPOUND || (s.p++, !rs_str(&s, &rn, &rnl, true)) || !scan_root(rc, &s) ||
        s.p != s.end)
        return no;
    const rc_tag *t = rc->tags;
    const size_t nt = rc->ntags;
    for (size_t i = 0; i < nt; i++)
        if (t[i].key_len >= 8 && !memcmp(t[i].key, MC__KEY_PREFIX, 8))
            return no; /* the writer's bookkeeping names */
    const rc_tag *dv = find_tag(t, nt, "DataVersion"), *xp = find_tag(t, nt, "xPos"), *zp = find_tag(t, nt, "zPos");
    const rc_tag *yp = find_tag(t, nt, "yPos"), *secs = find_tag(t, nt, "sections"), *st = find_tag(t, nt, "Status");
    const rc_tag *be = find_tag(t, nt, "block_entities"), *hm = find_tag(t, nt, "Heightmaps");
    const rc_tag *lit = find_tag(t, nt, "isLightOn");
    if (!dv || dv->type != MC_NBT_INT || !xp || xp->type != MC_NBT_INT || !zp || zp->type != MC_NBT_INT || !yp ||
        yp->type != MC_NBT_INT || !secs || secs->type != MC_NBT_LIST || (hm && hm->type != MC_NBT_COMPOUND) ||
        (lit && lit->type != MC_NBT_BYTE) || (be && (be->type != MC_NBT_LIST || mc_load_u32be(be->value + 1))) ||
        (hm && has_bookkeeping_key(hm)))
        return no;
    mc_chunknbt_recode_facts f;
    memset(&f, 0, sizeof f);
    f.data_version = (int32_t)mc_load_u32be(dv->value);
    if (f.data_version < RC_DV_FIRST || f.data_version > mc__newest_known_dv())
        return no;
    f.registry = mc_chunknbt_registry_for(f.data_version);
    const mc_registry *to = mc_chunknbt_registry_for(opt->data_version);
    if (!f.registry || !to)
        return no;
    if (st && st->type == MC_NBT_STRING) {
        f.status = (const char *)st->value + 2;
        f.status_len = mc_load_u16be(st->value);
    }
    f.min_section = (int32_t)mc_load_u32be(yp->value);
    if (f.min_section < -2048 || f.min_section > 2048)
        return no;
    int32_t count = 0;
    if (!resolve_sections(rc, f.registry, f.min_section, &count))
        return no;
    f.section_count = (uint32_t)count;
    f.translated = f.registry != to;
    const uint32_t *map = NULL, *bmap = NULL;
    uint32_t map_len = 0, bmap_len = 0, tair = mc_registry_air(to), bfall = 0;
    if (f.translated) {
        map = mc_registry_map(f.registry, to);
        bmap = mc_biome_map(f.registry, to);
        if (!map || !bmap)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk recode: out of memory");
        map_len = mc_registry_state_count(f.registry);
        bmap_len = mc_registry_biome_count(f.registry);
        bfall = bmap[bmap_len]; /* the target's fallback biome, kept after the map */
        /* heightmaps the translation would recompute: the model path */
        if (hm && hm->value[0] != MC_NBT_END && !heightmap_flags_kept(rc, f.registry, to, map, map_len, tair))
            return no;
    }
    const unsigned how = opt->decide ? opt->decide(opt->user, &f) : 0;
    if (how & MC_RECODE_DECLINE)
        return no;
    const bool drop_light = how & MC_RECODE_DROP_LIGHT;

    /* phase 2: the counts, then the bytes */
    for (size_t i = 0; i < rc->nsec && opt->container; i++) {
        const rc_section *c = &rc->sec[i];
        if (!c->in_range)
            continue;
        opt->container(opt->user, f.registry, false, rc->ids + c->blocks.first, c->blocks.n,
                       c->blocks.idx ? c->blocks.data : NULL, c->blocks.bits);
        opt->container(opt->user, f.registry, true, rc->ids + c->biomes.first, c->biomes.n,
                       c->biomes.idx ? c->biomes.data : NULL, c->biomes.bits);
    }
    const size_t start = out->len;
    mc_buf_put_u8(out, MC_NBT_COMPOUND);
    mc_buf_put_u16be(out, 0);
    for (size_t i = 0; i < nt; i++) {
        const rc_tag *g = &t[i];
        if (g == secs || g == hm || g == xp || g == zp || g == yp)
            continue;
        if (g == dv) {
            PUT_KEY(out, MC_NBT_INT, "DataVersion");
            mc_buf_put_u32be(out, (uint32_t)opt->data_version);
        } else if (g == lit && drop_light) {
            PUT_KEY(out, MC_NBT_BYTE, "isLightOn");
            mc_buf_put_u8(out, 0);
        } else {
            put_tag(out, g);
        }
    }
    if (!lit && drop_light) {
        PUT_KEY(out, MC_NBT_BYTE, "isLightOn");
        mc_buf_put_u8(out, 0);
    }
    put_tag(out, xp);
    put_tag(out, zp);
    put_tag(out, yp);
    PUT_KEY(out, MC_NBT_LIST, "sections");
    mc_buf_put_u8(out, MC_NBT_COMPOUND);
    mc_buf_put_u32be(out, (uint32_t)rc->nsec);
    bool ok = true;
    for (size_t i = 0; i < rc->nsec && ok; i++) {
        rc_section *c = &rc->sec[i];
        if (!c->in_range) {
            mc_buf_put(out, c->start, (size_t)(c->end - c->start)); /* outside the column: as it is */
            continue;
        }
        const rc_section *below = i && rc->sec[i - 1].in_range ? &rc->sec[i - 1] : NULL;
        /* Y and the block_states key: one store of known size */
        static const uint8_t head[20] = {MC_NBT_BYTE, 0, 1, 'Y', 0, MC_NBT_COMPOUND, 0, 12,
                                         'b', 'l', 'o', 'c', 'k', '_', 's', 't', 'a', 't', 'e', 's'};
        uint8_t *h = mc_buf_extend(out, sizeof head);
        if (h) {
            memcpy(h, head, sizeof head);
            h[4] = (uint8_t)c->y;
        }
        ok = put_container(rc, out, &c->blocks, below ? &below->blocks : NULL, false, map, map_len, tair, to);
        PUT_KEY(out, MC_NBT_COMPOUND, "biomes");
        ok = ok && put_container(rc, out, &c->biomes, below ? &below->biomes : NULL, true, bmap, bmap_len, bfall, to);
        for (int k = 0; k < 2 && !drop_light; k++) {
            const uint8_t *l = k ? c->sky_light : c->block_light;
            if (!l)
                continue;
            put_key(out, MC_NBT_BYTE_ARRAY, k ? "SkyLight" : "BlockLight");
            mc_buf_put_u32be(out, MC_LIGHT_BYTES);
            mc_buf_put(out, l, MC_LIGHT_BYTES);
        }
        mc_buf_put_u8(out, MC_NBT_END);
    }
    if (hm)
        put_tag(out, hm);
    if (!be) {
        PUT_KEY(out, MC_NBT_LIST, "block_entities");
        mc_buf_put_u8(out, MC_NBT_END);
        mc_buf_put_u32be(out, 0);
    }
    mc_buf_put_u8(out, MC_NBT_END);
    if (!ok || !mc_buf_ok(out)) {
        out->len = start;
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk recode: out of memory");
    }
    return MC_OK;
}
