/*
 * stats_raw.c: see stats_raw.h. The chunk is parsed with the key filter
 * of the model reader's lean parse (DataVersion, and under Level Biomes,
 * TileEntities, Heightmaps ... kept as a tree: small, checked and read as
 * the model reader does) plus Level.Entities, and Level.Sections handed
 * over as bytes: that list is walked here with a bounded cursor, recording
 * where each section's arrays and palette entries are. Counting a section
 * then needs no container:
 *  - 1.8-1.12: Blocks, Data (and Add) combine to id<<4|meta, which is the
 *    state of those releases' registries (a value past the registry is
 *    air, as in read_legacy.c), histogrammed in a table of 65536 counts of
 *    which only the touched slots are read back and cleared (a whole
 *    section without Add: straight from the two arrays, a row of 16 at a
 *    time, only rows of mixed blocks combined);
 *  - 1.13-1.17: each palette entry's state comes from the chunk reader's
 *    cache keyed by the entry's bytes (mc_chunknbt_cache_block_bytes: the
 *    registry meets each distinct entry once per thread; the previous
 *    section's palette, often the same bytes, is reused with one memcmp),
 *    the indices are unpacked from the big-endian longs (spanning before
 *    1.16, padded after) and histogrammed the same way.
 * Rows of 16 equal values (air, stone, water: most of terrain) count with
 * one add. The rules of the model reader this follows are in
 * src/chunknbt/read.c (column_range, read_section_fast, biomes_2d,
 * biomes_3d, read_block_entities); test_world_stats.js checks both give
 * the same counts on every chunk of the corpus.
 */
#include "world/stats_raw.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && !defined(MC_PORTABLE)
#include <emmintrin.h>
#endif

#define SECTION 4096u
#define MAX_PALETTE 4096u

struct stats_raw {
    mc_chunknbt_cache *cache;
    mc_nbt_doc *doc;
    uint32_t *states;            /* palette states of the chunk's sections */
    size_t nstates, states_cap;
    const uint8_t **at;          /* where palette entries start (see take_palette) */
    size_t nat, at_cap;
    uint16_t *count;             /* [65536], zero between uses */
    uint16_t touched[SECTION];
    uint16_t vals[SECTION];
    /* the filtered parse's findings */
    raw_chunk *chunk;            /* being read: its sections (the rest after the parse) */
    raw_result sections;         /* what reading Level.Sections gave */
    int era, lo, hi;             /* see place_section */
    unsigned nsections_keys, nlevels, ntile_lists;
    bool odd;                    /* something the model reader reads otherwise */
};

stats_raw *stats_raw_new(mc_chunknbt_cache *cache)
{
    stats_raw *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->cache = cache;
    r->doc = mc_nbt_doc_new(NULL);
    r->count = calloc(65536, sizeof *r->count);
    if (!r->doc || !r->count) {
        stats_raw_free(r);
        return NULL;
    }
    return r;
}

void stats_raw_free(stats_raw *r)
{
    if (!r)
        return;
    mc_nbt_doc_free(r->doc);
    free(r->states);
    free(r->at);
    free(r->count);
    free(r);
}

/* ------------------------------------------------------------ cursor */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static bool has(const cursor *c, size_t n)
{
    return (size_t)(c->end - c->p) >= n;
}

static bool take_u8(cursor *c, unsigned *v)
{
    if (!has(c, 1))
        return false;
    *v = *c->p++;
    return true;
}

/* A count (int32, not negative). */
static bool take_count(cursor *c, uint32_t *n)
{
    if (!has(c, 4))
        return false;
    int32_t v = (int32_t)mc_load_u32be(c->p);
    c->p += 4;
    *n = (uint32_t)v;
    return v >= 0;
}

/* A u16-length run of bytes (a key or a string). */
static bool take_text(cursor *c, const uint8_t **s, size_t *n)
{
    if (!has(c, 2))
        return false;
    *n = mc_load_u16be(c->p);
    c->p += 2;
    if (!has(c, *n))
        return false;
    *s = c->p;
    c->p += *n;
    return true;
}

/* An array payload of n elements of `size` bytes. */
static bool take_array(cursor *c, size_t size, const uint8_t **data, uint32_t *n)
{
    if (!take_count(c, n) || (uint64_t)*n * size > (uint64_t)(c->end - c->p))
        return false;
    *data = c->p;
    c->p += (size_t)*n * size;
    return true;
}

/* Steps over a payload of `type` (a palette entry's insides). */
static bool skip(cursor *c, unsigned type, unsigned depth)
{
    static const uint8_t fixed[7] = {0, 1, 2, 4, 8, 4, 8};
    static const uint8_t elem[13] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 8};
    const uint8_t *s;
    size_t n;
    uint32_t k;
    if (depth > 16)
        return false;
    if (type >= MC_NBT_BYTE && type <= MC_NBT_DOUBLE) {
        if (!has(c, fixed[type]))
            return false;
        c->p += fixed[type];
        return true;
    }
    switch (type) {
    case MC_NBT_STRING:
        return take_text(c, &s, &n);
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
        return take_array(c, elem[type], &s, &k);
    case MC_NBT_LIST: {
        unsigned t;
        if (!take_u8(c, &t) || !take_count(c, &k) || t > MC_NBT_LONG_ARRAY || (t == MC_NBT_END && k))
            return false;
        for (uint32_t i = 0; i < k; i++)
            if (!skip(c, t, depth + 1))
                return false;
        return true;
    }
    case MC_NBT_COMPOUND:
        for (;;) {
            unsigned t;
            if (!take_u8(c, &t))
                return false;
            if (t == MC_NBT_END)
                return true;
            if (t > MC_NBT_LONG_ARRAY || !take_text(c, &s, &n) || !skip(c, t, depth + 1))
                return false;
        }
    default:
        return false;
    }
}

/* Steps over a palette entry's compound payload: the game's shape
 * (strings, and one level of compound holding strings) in one loop, any
 * other tag through skip(). */
static bool skip_entry(cursor *c)
{
    const uint8_t *s;
    size_t n;
    bool inner = false; /* inside Properties */
    for (;;) {
        unsigned t;
        if (!take_u8(c, &t))
            return false;
        if (t == MC_NBT_END) {
            if (!inner)
                return true;
            inner = false;
            continue;
        }
        if (!take_text(c, &s, &n))
            return false;
        if (t == MC_NBT_STRING) {
            if (!take_text(c, &s, &n))
                return false;
        } else if (t == MC_NBT_COMPOUND && !inner) {
            inner = true;
        } else if (t > MC_NBT_LONG_ARRAY || !skip(c, t, 2)) {
            return false;
        }
    }
}

/* (inline: the length of a literal folds to a constant) */
static inline bool key_is(const uint8_t *k, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(k, lit, n);
}

/* ----------------------------------------------------------- sections */

/* One section as found in the bytes. */
typedef struct found {
    int y;
    bool have_y, have_states;
    const uint8_t *legacy[3]; /* Blocks, Data, Add */
    uint32_t legacy_n[3];
    const uint8_t *pal;           /* the Palette entries' bytes (NULL: none) */
    uint32_t npal, at_first;
    const uint8_t *longs;
    uint32_t nlongs;
} found;

static bool grow_states(stats_raw *r, size_t n)
{
    if (r->nstates + n <= r->states_cap)
        return true;
    size_t cap = r->states_cap ? r->states_cap : 1024;
    while (cap < r->nstates + n)
        cap *= 2;
    uint32_t *s = realloc(r->states, cap * sizeof *s);
    if (!s)
        return false;
    r->states = s;
    r->states_cap = cap;
    return true;
}

static bool grow_at(stats_raw *r, size_t n)
{
    if (r->nat + n <= r->at_cap)
        return true;
    size_t cap = r->at_cap ? r->at_cap : 1024;
    while (cap < r->nat + n)
        cap *= 2;
    const uint8_t **a = realloc(r->at, cap * sizeof *a);
    if (!a)
        return false;
    r->at = a;
    r->at_cap = cap;
    return true;
}

/* A Palette list payload: where its entries start (r->at[f->at_first ..],
 * one more for the end), resolved once the DataVersion is known
 * (resolve_palettes: vanilla stores it after Level). */
static raw_result take_palette(stats_raw *r, cursor *c, found *f)
{
    unsigned t;
    if (!take_u8(c, &t) || !take_count(c, &f->npal) || t != MC_NBT_COMPOUND || f->npal == 0 ||
        f->npal > MAX_PALETTE || f->pal)
        return RAW_DECLINED;
    if (!grow_at(r, f->npal + 1))
        return RAW_NOMEM;
    f->pal = c->p;
    f->at_first = (uint32_t)r->nat;
    for (uint32_t i = 0; i < f->npal; i++) {
        r->at[r->nat++] = c->p;
        if (!skip_entry(c))
            return RAW_DECLINED;
    }
    r->at[r->nat++] = c->p;
    return RAW_OK;
}

/* The states of the palettes of the column's sections (s->pal_first):
 * through the cache, or the previous palette's when the bytes are the
 * same. */
static raw_result resolve_palettes(stats_raw *r, raw_chunk *ch)
{
    const uint8_t *memo = NULL;
    size_t memo_len = 0;
    uint32_t memo_first = 0, memo_n = 0;
    r->nstates = 0;
    for (int y = 0; y < 16; y++) {
        raw_section *s = &ch->sec[y];
        if (!(ch->have >> y & 1) || !s->npal)
            continue;
        const uint8_t *const *at = r->at + s->at_first;
        const size_t len = (size_t)(at[s->npal] - at[0]);
        if (memo && memo_n == s->npal && memo_len == len && !memcmp(memo, at[0], len)) {
            s->pal_first = memo_first;
            continue;
        }
        if (!grow_states(r, s->npal))
            return RAW_NOMEM;
        uint32_t *states = r->states + r->nstates;
        for (uint32_t i = 0; i < s->npal; i++) {
            mc_status st = mc_chunknbt_cache_block_bytes(r->cache, ch->reg, at[i], (size_t)(at[i + 1] - at[i]),
                                                         &states[i]);
            if (st != MC_OK && st != MC_ERR_NOT_FOUND)
                return st == MC_ERR_NOMEM ? RAW_NOMEM : RAW_DECLINED;
        }
        s->pal_first = memo_first = (uint32_t)r->nstates;
        memo = at[0];
        memo_len = len;
        memo_n = s->npal;
        r->nstates += s->npal;
    }
    return RAW_OK;
}

/* One key of a section: Y, the block arrays, Palette, BlockStates, light
 * (byte[2048], stepped over); anything else declines. */
static raw_result section_key(stats_raw *r, cursor *c, found *f, unsigned t, const uint8_t *k, size_t kl)
{
    static const char *const arrays[3] = {"Blocks", "Data", "Add"};
    const uint8_t *s;
    uint32_t n;
    if (key_is(k, kl, "Y") && t == MC_NBT_BYTE && !f->have_y) {
        unsigned v;
        if (!take_u8(c, &v))
            return RAW_DECLINED;
        f->y = (int8_t)v;
        f->have_y = true;
        return RAW_OK;
    }
    if ((key_is(k, kl, "BlockLight") || key_is(k, kl, "SkyLight")) && t == MC_NBT_BYTE_ARRAY)
        return take_array(c, 1, &s, &n) && n == MC_LIGHT_BYTES ? RAW_OK : RAW_DECLINED;
    if (key_is(k, kl, "Palette") && t == MC_NBT_LIST)
        return take_palette(r, c, f);
    if (key_is(k, kl, "BlockStates") && t == MC_NBT_LONG_ARRAY && !f->have_states) {
        f->have_states = true;
        return take_array(c, 8, &f->longs, &f->nlongs) ? RAW_OK : RAW_DECLINED;
    }
    for (int a = 0; a < 3; a++)
        if (key_is(k, kl, arrays[a]) && t == MC_NBT_BYTE_ARRAY && !f->legacy[a])
            return take_array(c, 1, &f->legacy[a], &f->legacy_n[a]) ? RAW_OK : RAW_DECLINED;
    return RAW_DECLINED;
}

/* A section into the chunk; `era` is 0 till the first section with block
 * data says legacy (1) or palette (2), as the model reader decides. */
static raw_result place_section(const found *f, raw_chunk *ch, int *era, int *lo, int *hi)
{
    const bool legacy = f->legacy[0] || f->legacy[1] || f->legacy[2], flat = f->pal != NULL;
    if (!f->have_y || (f->have_states && !flat) || (legacy && flat))
        return RAW_DECLINED;
    if (!legacy && !flat)
        return RAW_OK; /* light only: air */
    if (*era && *era != (legacy ? 1 : 2))
        return RAW_DECLINED; /* both shapes in one chunk */
    *era = legacy ? 1 : 2;
    if (legacy && (f->legacy_n[0] != SECTION || f->legacy_n[1] != SECTION / 2 || !f->legacy[1] ||
                   !f->legacy[0] || (f->legacy[2] && f->legacy_n[2] != SECTION / 2)))
        return RAW_DECLINED;
    if (flat && !f->longs && f->npal != 1)
        return RAW_DECLINED;
    if (f->y < *lo)
        *lo = f->y;
    if (f->y > *hi)
        *hi = f->y;
    if (f->y < 0 || f->y > 15)
        return RAW_OK; /* outside the column: not read */
    if (ch->have >> f->y & 1)
        return RAW_DECLINED; /* a second section of that Y */
    ch->have |= (uint16_t)(1u << f->y);
    raw_section *s = &ch->sec[f->y];
    memset(s, 0, sizeof *s);
    s->blocks = f->legacy[0];
    s->data = f->legacy[1];
    s->add = f->legacy[2];
    s->npal = f->npal;
    s->at_first = f->at_first;
    s->longs = f->longs;
    s->nlongs = f->nlongs;
    return RAW_OK;
}

/* Level.Sections' payload in c: every section into ch. */
static raw_result scan_sections(stats_raw *r, cursor *cur, raw_chunk *ch, int *era, int *lo, int *hi)
{
    cursor c = *cur;
    unsigned t;
    uint32_t n;
    if (!take_u8(&c, &t) || !take_count(&c, &n) || t > MC_NBT_LONG_ARRAY || (t != MC_NBT_COMPOUND && n) || n > 64)
        return RAW_DECLINED;
    for (uint32_t i = 0; i < n; i++) {
        found f;
        memset(&f, 0, sizeof f);
        for (;;) {
            const uint8_t *k;
            size_t kl;
            if (!take_u8(&c, &t))
                return RAW_DECLINED;
            if (t == MC_NBT_END)
                break;
            if (!take_text(&c, &k, &kl))
                return RAW_DECLINED;
            raw_result rr = section_key(r, &c, &f, t, k, kl);
            if (rr != RAW_OK)
                return rr;
        }
        raw_result rr = place_section(&f, ch, era, lo, hi);
        if (rr != RAW_OK)
            return rr;
    }
    cur->p = c.p;
    return RAW_OK;
}

/* ------------------------------------------------------------- parse */

/* The keys kept as a tree: those the model reader's lean parse keeps
 * (lean_key in src/chunknbt/read.c, with MC_CHUNKNBT_BLOCK_ENTITIES), so
 * that the same values are checked as a full parse checks them (modified
 * UTF-8 above all) and a chunk the model reader fails on is declined here,
 * plus Level.Entities; Level.Sections is read from its bytes instead
 * (take_sections). */
static bool keep_key(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                     size_t key_len)
{
#define USED(s) {s, sizeof s - 1}
    static const struct { const char *s; size_t n; } used[] = {
        USED("DataVersion"), USED("Level"), USED("xPos"), USED("zPos"), USED("yPos"), USED("Status"),
        USED("sections"), USED("Sections"), USED("Heightmaps"), USED("Biomes"), USED("TileEntities"),
        USED("block_entities"), USED("Entities")};
#undef USED
    stats_raw *r = user;
    const uint8_t *k = (const uint8_t *)key;
    if (depth == 2 && !key_is((const uint8_t *)parent, parent_len, "Level"))
        return true; /* the insides of another root compound kept */
    if (depth == 1 && key_is(k, key_len, "Level"))
        r->nlevels++;
    if (key_is(k, key_len, "sections") || (depth == 2 && key_is(k, key_len, "block_entities")))
        r->odd = true; /* 1.18 shapes */
    if (depth == 2 && key_is(k, key_len, "TileEntities") && ++r->ntile_lists > 1)
        r->odd = true; /* (duplicates would be looked for across both) */
    if (depth == 2 && key_is(k, key_len, "Sections"))
        return false;
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
        if (key_len == used[i].n && !memcmp(k, used[i].s, key_len))
            return true;
    return false;
}

/* The filter's take: Level.Sections, read here in one pass. */
static const uint8_t *take_sections(void *user, unsigned depth, const char *key, size_t key_len, unsigned type,
                                    const uint8_t *value, const uint8_t *end)
{
    stats_raw *r = user;
    raw_chunk *ch = r->chunk;
    if (depth != 2 || !key_is((const uint8_t *)key, key_len, "Sections"))
        return NULL;
    if (r->nsections_keys++ || type != MC_NBT_LIST) {
        r->sections = RAW_DECLINED; /* (the model reader's tree checks it) */
        return NULL;
    }
    cursor c = {value, end};
    r->sections = scan_sections(r, &c, ch, &r->era, &r->lo, &r->hi);
    return r->sections == RAW_OK ? c.p : NULL; /* (else the parse steps over it, or fails) */
}

/* ------------------------------------------------------------ biomes */

/* Biome ids at or past this read as 0 (the model's container rules:
 * mc__biome_rules in src/chunknbt/cache.c). */
static uint32_t biome_limit(const mc_registry *reg)
{
    unsigned b = mc_registry_biome_direct_bits(reg);
    if (mc_registry_biome_count(reg) > 0 && mc_registry_state_count(reg) == 4096 && b < 8)
        b = 8;
    return 1u << (b ? b : 1);
}

/* Level.Biomes as the model reads it (read_old_biomes): 2D byte/int[256]
 * (each 4x4 cell takes its centre column), 3D int[1024], else biome 0. */
static void read_biomes(raw_chunk *ch)
{
    memset(ch->biomes[0], 0, sizeof ch->biomes[0]);
    ch->biomes_same = true;
    mc_nbt_array a;
    const mc_nbt_tag *t = mc_nbt_get(ch->level, "Biomes");
    if (mc_nbt_get_array(t, MC_NBT_INT_ARRAY, &a) != MC_OK && mc_nbt_get_array(t, MC_NBT_BYTE_ARRAY, &a) != MC_OK)
        return;
    const uint32_t limit = biome_limit(ch->reg);
    if (a.count == 256) {
        for (unsigned i = 0; i < 64; i++) {
            const unsigned cz = (i >> 2) & 3, cx = i & 3;
            const size_t at = (size_t)(cz * 4 + 2) * 16 + cx * 4 + 2;
            const uint32_t v = a.elem_size == 1 ? a.data[at] : (uint32_t)mc_nbt_array_i32(&a, at);
            ch->biomes[0][i] = v < limit ? v : 0;
        }
        return;
    }
    if (a.elem_size != 4 || a.count != 16 * 64)
        return;
    /* copied in one pass, then undone if any id is past the limit */
    uint32_t past = 0;
    for (size_t i = 0; i < a.count; i++) {
        const uint32_t v = (uint32_t)mc_nbt_array_i32(&a, i);
        ch->biomes[i / 64][i % 64] = v;
        past |= v >= limit;
    }
    if (past) {
        memset(ch->biomes, 0, sizeof ch->biomes);
        return;
    }
    ch->biomes_same = false;
}

/* Whether the bytes hold a compound tag named "Level" anywhere (every
 * chunk before 1.18 does, at its root): a search, so that 1.18+ chunks go
 * to the model reader without a parse here first. */
static bool may_be_wrapped(const uint8_t *nbt, size_t len)
{
    static const uint8_t head[] = {MC_NBT_COMPOUND, 0, 5, 'L', 'e', 'v', 'e', 'l'};
    const uint8_t *p = nbt + 3, *end = nbt + len;
    if (len < sizeof head)
        return false;
    /* (memchr for the name's first byte, then the whole head: C11 has no memmem) */
    while ((p = memchr(p, 'L', (size_t)(end - p))) != NULL) {
        if ((size_t)(end - p) >= 5 && !memcmp(p - 3, head, sizeof head))
            return true;
        p++;
    }
    return false;
}

raw_result stats_raw_scan(stats_raw *r, const uint8_t *nbt, size_t len, raw_chunk *ch)
{
    if (!may_be_wrapped(nbt, len))
        return RAW_DECLINED;
    r->chunk = ch;
    r->sections = RAW_OK;
    r->nsections_keys = r->nlevels = r->ntile_lists = 0;
    r->era = 0;
    r->lo = 16;
    r->hi = -1;
    r->odd = false;
    r->nat = 0;
    memset(ch, 0, offsetof(raw_chunk, sec));
    mc_nbt_filter f = {2, keep_key, r, take_sections, false};
    if (mc_nbt_parse_filtered(r->doc, nbt, len, MC_NBT_JAVA, 0, &f, NULL, NULL, NULL) != MC_OK)
        return r->sections == RAW_NOMEM ? RAW_NOMEM : RAW_DECLINED;
    if (r->sections != RAW_OK)
        return r->sections;
    const mc_nbt_tag *root = mc_nbt_doc_root(r->doc);
    ch->level = mc_nbt_get(root, "Level");
    const int32_t dv = ch->data_version = mc_chunknbt_data_version(root);
    if (r->odd || r->nlevels != 1 || r->nsections_keys > 1 || mc_nbt_tag_type(ch->level) != MC_NBT_COMPOUND ||
        dv >= 2832 /* 1.18's containers */ || !(ch->reg = mc_chunknbt_registry_for(dv)))
        return RAW_DECLINED;
    raw_result rr = resolve_palettes(r, ch);
    if (rr != RAW_OK)
        return rr;
    ch->legacy = r->era ? r->era == 1 : dv < MC_CHUNKNBT_DV_FLATTENING;
    const int lo = r->lo, hi = r->hi;
    read_biomes(ch);
    if (ch->data_version >= MC_CHUNKNBT_DV_HEIGHT) {
        /* 1.17 may say another height: the model reader's column_range */
        mc_nbt_array a;
        const mc_nbt_tag *b = mc_nbt_get(ch->level, "Biomes");
        if (lo < 0 || hi > 15 || (mc_nbt_get_array(b, MC_NBT_INT_ARRAY, &a) == MC_OK && a.count != 1024))
            return RAW_DECLINED;
    }
    return RAW_OK;
}

/* ---------------------------------------------------------- counting */

/* Adds `run` to value v's count, listing v when new. */
static inline void add_run(stats_raw *r, uint16_t v, uint32_t run, uint32_t *nt)
{
    if (!r->count[v])
        r->touched[(*nt)++] = v;
    r->count[v] = (uint16_t)(r->count[v] + run);
}

/* Histograms vals[from, to) (a multiple of 4 long) into r->count, listing
 * the values met in r->touched from *nt on: by runs of one value, four
 * values compared at a time (terrain is mostly runs: air, stone, water). */
static void histogram(stats_raw *r, const uint16_t *vals, unsigned from, unsigned to, uint32_t *nt)
{
    uint16_t prev = vals[from];
    uint64_t prev4 = prev * 0x0001000100010001ull;
    uint32_t run = 0;
    for (unsigned i = from; i < to; i += 4) {
        uint64_t w;
        memcpy(&w, vals + i, sizeof w);
        if (w == prev4) {
            run += 4;
            continue;
        }
        for (unsigned k = 0; k < 4; k++) {
            const uint16_t v = vals[i + k];
            if (v == prev) {
                run++;
                continue;
            }
            add_run(r, prev, run, nt);
            prev = v;
            run = 1;
        }
        prev4 = prev * 0x0001000100010001ull;
    }
    add_run(r, prev, run, nt);
}

/* Whether any of the 64 counts c[0..64) is not 0. */
static inline bool any_count(const uint16_t *c)
{
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)c), _mm_loadu_si128((const __m128i *)(c + 8)));
    for (unsigned k = 16; k < 64; k += 16)
        a = _mm_or_si128(a, _mm_or_si128(_mm_loadu_si128((const __m128i *)(c + k)),
                                         _mm_loadu_si128((const __m128i *)(c + k + 8))));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_setzero_si128())) != 0xFFFF;
#else
    uint64_t w[16], any = 0;
    memcpy(w, c, sizeof w);
    for (unsigned k = 0; k < 16; k++)
        any |= w[k];
    return any != 0;
#endif
}

/* Whether the 16 values v[0..16) are all v[0]. */
static inline bool same_row(const uint16_t *v)
{
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    const __m128i first = _mm_set1_epi16((short)v[0]);
    const __m128i eq = _mm_and_si128(_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)v), first),
                                     _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(v + 8)), first));
    return _mm_movemask_epi8(eq) == 0xFFFF;
#else
    uint64_t w[4];
    memcpy(w, v, sizeof w);
    const uint64_t v4 = v[0] * 0x0001000100010001ull;
    return ((w[0] ^ v4) | (w[1] ^ v4) | (w[2] ^ v4) | (w[3] ^ v4)) == 0;
#endif
}

static void list_counts(stats_raw *r, unsigned range, uint32_t *nt);

/* One count per value of the row v[0..16), four at a step. */
static inline void count_row(uint16_t *cnt, const uint16_t *v)
{
    for (unsigned i = 0; i < 16; i += 4) {
        cnt[v[i]]++;
        cnt[v[i + 1]]++;
        cnt[v[i + 2]]++;
        cnt[v[i + 3]]++;
    }
}

/* The same for a whole section whose values are below `range` (a
 * multiple of 16, at most 4096): a plain count per value (no branch per
 * block: mixed terrain mispredicts a run test) but for rows of 16 equal
 * values, then the counts read back four at a time. */
static void histogram_direct(stats_raw *r, const uint16_t *vals, unsigned range, uint32_t *nt)
{
    uint16_t *cnt = r->count;
    for (unsigned row = 0; row < SECTION; row += 16) {
        const uint16_t *v = vals + row;
        if (same_row(v)) {
            cnt[v[0]] += 16; /* a row of one block: one add, not 16 dependent ones */
            continue;
        }
        count_row(cnt, v);
    }
    list_counts(r, range, nt);
}

/* Lists in r->touched the values below `range` (a multiple of 16, at most
 * 4096) whose count is not 0: 64 counts a step (from range 64 on: a
 * multiple of 64), then 16: a section has a few dozen values at most. */
static void list_counts(stats_raw *r, unsigned range, uint32_t *nt)
{
    const uint16_t *cnt = r->count;
    for (unsigned v = 0; v < range; v += 64) {
        if (range >= 64 && !any_count(cnt + v))
            continue;
        for (unsigned q = v; q < v + 64 && q < range; q += 16) {
            uint64_t w[4];
            memcpy(w, cnt + q, sizeof w);
            if (!(w[0] | w[1] | w[2] | w[3]))
                continue;
            for (unsigned k = 0; k < 16; k++)
                if (cnt[q + k])
                    r->touched[(*nt)++] = (uint16_t)(q + k);
        }
    }
}

/* Adds `run` to the counts of the 8 bytes of long w (unrolled: one
 * shift, mask and add a byte; world/histogram.c's twin is a loop, which
 * measured cheaper there). */
static inline void count_bytes(uint16_t *bytes, uint64_t w, uint16_t run)
{
    bytes[w & 255] = (uint16_t)(bytes[w & 255] + run);
    bytes[w >> 8 & 255] = (uint16_t)(bytes[w >> 8 & 255] + run);
    bytes[w >> 16 & 255] = (uint16_t)(bytes[w >> 16 & 255] + run);
    bytes[w >> 24 & 255] = (uint16_t)(bytes[w >> 24 & 255] + run);
    bytes[w >> 32 & 255] = (uint16_t)(bytes[w >> 32 & 255] + run);
    bytes[w >> 40 & 255] = (uint16_t)(bytes[w >> 40 & 255] + run);
    bytes[w >> 48 & 255] = (uint16_t)(bytes[w >> 48 & 255] + run);
    bytes[w >> 56] = (uint16_t)(bytes[w >> 56] + run);
}

/* The same for entries of 4 or 8 bits, straight from their big-endian
 * longs be[0..n bytes) (n a multiple of 16 at most 4096: no entry spans a
 * byte, and the order of bytes does not matter to a count): runs of equal
 * longs, two compared at a step, then each byte of a run's long (16-bit
 * counts: at most 4096 bytes), then the bytes' counts, eight read at a
 * time, split into the entries. */
static void histogram_bytes(stats_raw *r, const uint8_t *be, size_t n, unsigned bits, uint32_t *nt)
{
    uint16_t bytes[256];
    memset(bytes, 0, sizeof bytes);
    uint64_t prev;
    memcpy(&prev, be, sizeof prev);
    uint16_t run = 0;
    for (size_t i = 0; i < n; i += 16) {
        uint64_t w[2];
        memcpy(w, be + i, sizeof w);
        if (((w[0] ^ prev) | (w[1] ^ prev)) == 0) {
            run = (uint16_t)(run + 2);
            continue;
        }
        for (unsigned k = 0; k < 2; k++) {
            if (w[k] == prev) {
                run++;
                continue;
            }
            count_bytes(bytes, prev, run);
            prev = w[k];
            run = 1;
        }
    }
    count_bytes(bytes, prev, run);
    for (unsigned b = 0; b < 256; b += 8) {
        uint64_t q[2];
        memcpy(q, bytes + b, sizeof q);
        if (!(q[0] | q[1]))
            continue;
        for (unsigned j = b; j < b + 8; j++) {
            if (!bytes[j])
                continue;
            if (bits == 8) {
                add_run(r, (uint16_t)j, bytes[j], nt);
            } else {
                add_run(r, (uint16_t)(j & 15), bytes[j], nt);
                add_run(r, (uint16_t)(j >> 4), bytes[j], nt);
            }
        }
    }
}

/* id<<4|meta of every block (Add << 12 too); `restrict` lets the
 * compiler vectorise the loops at -O2. */
static void combine(const uint8_t *restrict b, const uint8_t *restrict d, const uint8_t *restrict a,
                    uint16_t *restrict out)
{
    for (unsigned j = 0; j < SECTION / 2; j++) {
        out[2 * j] = (uint16_t)((unsigned)b[2 * j] << 4 | (d[j] & 15u));
        out[2 * j + 1] = (uint16_t)((unsigned)b[2 * j + 1] << 4 | (d[j] >> 4));
    }
    if (a)
        for (unsigned j = 0; j < SECTION / 2; j++) {
            out[2 * j] = (uint16_t)(out[2 * j] | (a[j] & 15u) << 12);
            out[2 * j + 1] = (uint16_t)(out[2 * j + 1] | (unsigned)(a[j] >> 4) << 12);
        }
}

/* Whether the 16 bytes b[0..16) are all b[0]. */
static inline bool same_bytes(const uint8_t *b)
{
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    const __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)b), _mm_set1_epi8((char)b[0]));
    return _mm_movemask_epi8(eq) == 0xFFFF;
#else
    uint64_t w[2];
    memcpy(w, b, sizeof w);
    const uint64_t b8 = b[0] * 0x0101010101010101ull;
    return ((w[0] ^ b8) | (w[1] ^ b8)) == 0;
#endif
}

/* id<<4|meta of the 16 blocks of a row (b[0..16), d[0..8)): combine()'s
 * values (its first loop), a row at a time. */
static inline void combine_row(const uint8_t *b, const uint8_t *d, uint16_t *out)
{
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    const __m128i bv = _mm_loadu_si128((const __m128i *)b), dv = _mm_loadl_epi64((const __m128i *)d);
    const __m128i low4 = _mm_set1_epi8(15), zero = _mm_setzero_si128();
    /* meta of block 2j is d[j]'s low nibble, of 2j+1 its high one */
    const __m128i meta = _mm_unpacklo_epi8(_mm_and_si128(dv, low4), _mm_and_si128(_mm_srli_epi16(dv, 4), low4));
    _mm_storeu_si128((__m128i *)out, _mm_or_si128(_mm_slli_epi16(_mm_unpacklo_epi8(bv, zero), 4),
                                                  _mm_unpacklo_epi8(meta, zero)));
    _mm_storeu_si128((__m128i *)(out + 8), _mm_or_si128(_mm_slli_epi16(_mm_unpackhi_epi8(bv, zero), 4),
                                                        _mm_unpackhi_epi8(meta, zero)));
#else
    for (unsigned j = 0; j < 8; j++) {
        out[2 * j] = (uint16_t)((unsigned)b[2 * j] << 4 | (d[j] & 15u));
        out[2 * j + 1] = (uint16_t)((unsigned)b[2 * j + 1] << 4 | (d[j] >> 4));
    }
#endif
}

/* histogram_direct for a 1.8-1.12 section without Add, straight from its
 * Blocks and Data: a row of 16 of one block and one meta (16 equal bytes,
 * 16 equal nibbles) is one add with no value made; only the other rows are
 * combined (combine_row) and counted one by one. */
static void histogram_legacy(stats_raw *r, const uint8_t *blocks, const uint8_t *data, uint32_t *nt)
{
    uint16_t *cnt = r->count;
    unsigned range = SECTION;
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    __m128i top = _mm_setzero_si128(); /* each byte lane's largest block id */
#endif
    for (unsigned row = 0; row < SECTION; row += 16) {
        const uint8_t *b = blocks + row, *d = data + row / 2;
#if defined(__SSE2__) && !defined(MC_PORTABLE)
        top = _mm_max_epu8(top, _mm_loadu_si128((const __m128i *)b));
#endif
        uint64_t dw;
        memcpy(&dw, d, sizeof dw);
        if (same_bytes(b) && dw == (dw & 15) * 0x1111111111111111ull) {
            cnt[(unsigned)b[0] << 4 | (d[0] & 15u)] += 16;
            continue;
        }
        uint16_t v[16];
        combine_row(b, d, v);
        count_row(cnt, v);
    }
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    /* the values are below (largest id + 1) << 4: only those counts are
     * read back (most sections' ids end well below 255) */
    top = _mm_max_epu8(top, _mm_srli_si128(top, 8));
    top = _mm_max_epu8(top, _mm_srli_si128(top, 4));
    top = _mm_max_epu8(top, _mm_srli_si128(top, 2));
    top = _mm_max_epu8(top, _mm_srli_si128(top, 1));
    range = (((unsigned)_mm_cvtsi128_si32(top) & 255u) + 1) * 16;
    range = (range + 63) & ~63u;
#endif
    list_counts(r, range, nt);
}

raw_result stats_raw_blocks(stats_raw *r, const raw_chunk *c, int y, bool per_layer, uint32_t *states,
                            uint32_t *counts, uint32_t *layer_end)
{
    const raw_section *s = &c->sec[y];
    const uint32_t *pal = c->legacy ? NULL : r->states + s->pal_first; /* (no states yet: NULL) */
    const uint32_t limit = mc_registry_state_count(c->reg), air = mc_registry_air(c->reg);
    const unsigned layers = per_layer ? 16 : 1;
    unsigned bits = 0;  /* of the palette indices, when counted from their bytes */
    unsigned range = 0; /* the values are below it (0: not known) */
    const bool fused = c->legacy && !s->add && !per_layer; /* histogram_legacy: no combine() */
    if (c->legacy) {
        if (!fused) /* (with Add or per layer: counted by histogram()) */
            combine(s->blocks, s->data, s->add, r->vals);
    } else if (!s->longs || (s->npal == 1 && s->nlongs == 0)) {
        /* one state, no indices */
        for (unsigned l = 0; l < layers; l++) {
            states[l] = pal[0];
            counts[l] = SECTION / layers;
            layer_end[l] = l + 1;
        }
        return RAW_OK;
    } else {
        bits = mc_bits_ceil_log2(s->npal);
        if (bits < 4)
            bits = 4;
        const mc_bits_layout layout = c->data_version >= MC_CHUNKNBT_DV_PADDED ? MC_BITS_PADDED : MC_BITS_SPANNING;
        if (s->nlongs != mc_bits_longs(SECTION, bits, layout))
            return RAW_DECLINED;
        if (bits != 4 && bits != 8) {
            mc_bits_unpack_be_u16(s->longs, SECTION, bits, layout, r->vals);
            range = 1u << bits; /* (bits >= 5 here) */
            bits = 0;
        }
    }
    uint32_t n = 0;
    raw_result rr = RAW_OK;
    for (unsigned l = 0; l < layers; l++) {
        uint32_t nt = 0;
        const unsigned from = l * (SECTION / layers), to = from + SECTION / layers;
        if (fused)
            histogram_legacy(r, s->blocks, s->data, &nt);
        else if (bits)
            histogram_bytes(r, s->longs + from * bits / 8, (to - from) * bits / 8, bits, &nt);
        else if (range && !per_layer)
            histogram_direct(r, r->vals, range, &nt);
        else
            histogram(r, r->vals, from, to, &nt);
        for (uint32_t i = 0; i < nt; i++) {
            const uint16_t v = r->touched[i];
            if (c->legacy)
                states[n] = v < limit ? v : air;
            else if (v < s->npal)
                states[n] = pal[v];
            else
                rr = RAW_DECLINED; /* an index past the palette: the model reader fails */
            counts[n++] = r->count[v];
            r->count[v] = 0;
        }
        layer_end[l] = n;
    }
    return rr;
}

bool stats_raw_block_entities(const raw_chunk *c,
                              bool (*fn)(void *user, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z),
                              void *user)
{
    /* read_block_entities: the entries up to the first without an int
     * x/y/z or at a position already taken (one list: stats_raw_scan
     * declines chunks with two) */
    const mc_nbt_tag *list = mc_nbt_get(c->level, "TileEntities");
    const size_t n = mc_nbt_count(list);
    if (mc_nbt_tag_type(list) != MC_NBT_LIST || mc_nbt_list_type(list) != MC_NBT_COMPOUND || !n)
        return true;
    int32_t here[64][3], (*pos)[3] = n <= 64 ? here : malloc(n * sizeof *pos);
    if (!pos)
        return false;
    size_t i = 0;
    bool ok = true;
    for (mc_nbt_tag *e = mc_nbt_first(list); e && ok; e = mc_nbt_next(e), i++) {
        int32_t *p = pos[i];
        if (mc_nbt_get_int(mc_nbt_get(e, "x"), &p[0]) != MC_OK || mc_nbt_get_int(mc_nbt_get(e, "y"), &p[1]) != MC_OK ||
            mc_nbt_get_int(mc_nbt_get(e, "z"), &p[2]) != MC_OK)
            break;
        size_t j = 0;
        while (j < i && memcmp(pos[j], p, sizeof pos[j]))
            j++;
        if (j < i)
            break;
        ok = fn(user, e, p[0], p[1], p[2]);
    }
    if (pos != here)
        free(pos);
    return ok;
}
