/*
 * chunknbt_write.c: mc_column -> chunk NBT of a chosen DataVersion.
 *
 * The writer builds the tree the game would write for the target version
 * from the model, then lays the column's extra NBT (what the reader could
 * not interpret) back into its places. Extras are only carried within one
 * format era (1.8-1.12, 1.13-1.17, 1.18+ with its 2832+ snapshots), because
 * their keys and meaning change at the era boundaries; across eras they are
 * dropped and listed in the report, and the writer adds the keys a chunk of
 * the target era needs (Status, LastUpdate, ...) instead. Within the 1.18
 * era the snapshots 2832..2843 moved and renamed keys in steps (see
 * chunknbt_private.h): extras are carried across those steps the way the
 * game's DataFixers carry them (the Level wrapper, the renames, the tick
 * lists of ChunkProtoTickListFix), and back down by the same renames.
 *
 * Palettes: an indirect container whose palette the game would keep is
 * written in its own order with its own indices (1.13-1.17: always, unused
 * entries included, as the game's section palette is written as it is in
 * memory; 1.18+: when every entry is used, since the game writes a
 * compacted palette in first-occurrence order). Anything else, and every
 * container whose ids were translated to another registry, is written with
 * a palette built in first-occurrence order, which is what the game does.
 */
#include "chunknbt/chunknbt_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct writer {
    const mc_column *col;
    const mc_registry *sreg, *treg;
    const uint32_t *map;     /* sreg -> treg, NULL when the same */
    uint32_t map_count;
    int32_t sdv, tdv;
    int32_t be_sdv; /* the DataVersion the block entities follow (sdv unless translated) */
    mc__chunk_era sera, tera;
    bool carry;              /* extras are carried (same era) */
    bool swrapped, twrapped; /* source extras / target keys under "Level" */
    mc_nbt_doc *doc;
    mc_chunknbt_report *rep;
    mc_error *err;
    const mc_nbt_tag *xroot, *xlevel, *xsections;
    const mc_nbt_tag *src_level; /* the extras' chunk keys, even when not carried */
    uint32_t tair;
    const mc__section_rules *rules; /* the target's section rules */
    int32_t tmin, tcount;    /* the target's section range */
    uint8_t *sky_fill;       /* filled sky light of the range (lazily) */
    uint32_t light_filled;   /* sections whose light was filled */
    uint32_t *bmap;          /* biome map sreg -> treg (lazily) */
    size_t bmap_n;
    uint32_t *seen;          /* source states already reported */
    size_t seen_n, seen_cap;
    uint32_t *vals, *idx;    /* scratch, 4096 each */
    mc_chunknbt_cache *cache; /* for re-reading kept raw palettes */
    uint8_t *be;             /* scratch longs */
    /* block entities translated for another DataVersion (translate.h):
     * the new compounds (detached, NULL where the target has none), in the
     * column's order and then those made from block states, and the block
     * states they decide, by position */
    bool be_walk;
    mc_nbt_tag **be_out;
    size_t be_n, be_cap;
    struct be_override {
        int32_t sy;
        uint16_t index;
        uint32_t state;
    } *ov;
    size_t ov_n, ov_cap;
    int32_t cur_sy;          /* the section being written */
    /* the bytes path (NULL: the tree only): the sections list goes into
     * wr->sections as Java NBT bytes, its tag in the tree stays empty */
    mc_chunknbt_writer *wr;
    uint32_t sec_n;          /* sections written into wr->sections */
} writer;

/* A reusable writer (mcchunk/chunknbt.h): the scratch of one chunk, the
 * sections list of the chunk last built, and the Java NBT bytes of every
 * palette entry written so far (by target state or biome, for one registry
 * and DataVersion at a time). */
typedef struct entry_cache {
    const mc_registry *reg;
    int32_t dv;              /* (biome names depend on the DataVersion) */
    size_t n;
    uint32_t *at;            /* offset + 1 into bytes, 0: not made yet */
    uint16_t *len;
    mc_buf bytes;
} entry_cache;

struct mc_chunknbt_writer {
    mc_buf sections;          /* the held list's payload: type, count, elements */
    const mc_nbt_tag *held;   /* the empty list standing for it in the tree */
    const mc_nbt_tag *held_in; /* the compound holding that list */
    mc_nbt_doc *scratch;      /* one entry or one section made as a tree */
    mc_nbt_doc *doc;          /* mc_chunknbt_writer_write_bytes' tree */
    entry_cache blocks, biomes;
    uint32_t *vals, *idx;     /* 4096 each */
    uint8_t *be;              /* 4096 longs */
};

static void report(writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends one line of n bytes to the report's text (cut to "..." when the
 * text is full). */
static void report_line(writer *w, const char *line, size_t n)
{
    mc_chunknbt_report *r = w->rep;
    size_t room = sizeof r->text - r->text_len;
    if (room < 5)
        return;
    if (n + 2 > room - 4) {
        memcpy(r->text + r->text_len, "...", 4);
        r->text_len = sizeof r->text - 1;
        return;
    }
    memcpy(r->text + r->text_len, line, n);
    r->text_len += n;
    r->text[r->text_len++] = '\n';
    r->text[r->text_len] = '\0';
}

static void report(writer *w, const char *fmt, ...)
{
    if (!w->rep)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* a line longer than `line` (a long key) is the part that fits */
    if (n >= 0)
        report_line(w, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* report(w, "key %s%.*s (the format era differs)", prefix, kl, k) without
 * printf (a line for every extra key a chunk of another era drops: a
 * printf each was 1% of converting the older corpus files) */
static void report_dropped_key(writer *w, const char *prefix, const char *k, size_t kl)
{
    if (!w->rep)
        return;
    static const char head[] = "key ", tail[] = " (the format era differs)";
    char line[512];
    size_t n = 0;
    const char *parts[4] = {head, prefix, k, tail};
    const size_t lens[4] = {sizeof head - 1, strlen(prefix), kl, sizeof tail - 1};
    for (int i = 0; i < 4; i++) {
        const size_t take = lens[i] < sizeof line - 1 - n ? lens[i] : sizeof line - 1 - n;
        memcpy(line + n, parts[i], take);
        n += take;
    }
    report_line(w, line, n);
}

static mc_status nomem(writer *w)
{
    return mc_error_set(w->err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
}

static bool is_bookkeeping(const mc_nbt_tag *t)
{
    size_t l;
    const char *k = mc_nbt_tag_key(t, &l);
    return l >= sizeof MC__KEY_PREFIX - 1 && memcmp(k, MC__KEY_PREFIX, sizeof MC__KEY_PREFIX - 1) == 0;
}

/* ------------------------------------------------------------- states */

static bool seen_state(writer *w, uint32_t s)
{
    for (size_t i = 0; i < w->seen_n; i++)
        if (w->seen[i] == s)
            return true;
    if (w->seen_n == w->seen_cap) {
        size_t cap = w->seen_cap ? w->seen_cap * 2 : 64;
        uint32_t *n = realloc(w->seen, cap * sizeof *n);
        if (!n)
            return true;
        w->seen = n;
        w->seen_cap = cap;
    }
    w->seen[w->seen_n++] = s;
    return false;
}

static uint32_t tstate(writer *w, uint32_t s)
{
    if (!w->map)
        return s;
    uint32_t t = mc_registry_map_apply(w->map, w->map_count, s, w->tair);
    if (w->rep && !seen_state(w, s)) {
        unsigned how = 0;
        mc_registry_translate_state(w->sreg, w->treg, s, &how);
        if (how & (MC_TRANSLATE_PROP_DROPPED | MC_TRANSLATE_VALUE_DEFAULTED | MC_TRANSLATE_ANCESTOR |
                   MC_TRANSLATE_AIR)) {
            char a[256], b[256];
            if (!mc_registry_format_state(w->sreg, s, a, sizeof a, MC_FORMAT_SORTED))
                snprintf(a, sizeof a, "#%u", s);
            if (!mc_registry_format_state(w->treg, t, b, sizeof b, MC_FORMAT_SORTED))
                snprintf(b, sizeof b, "#%u", t);
            w->rep->dropped |= MC_CHUNKNBT_DROP_STATES;
            w->rep->states_inexact++;
            if (how & MC_TRANSLATE_AIR)
                w->rep->states_to_air++;
            report(w, "state %s -> %s (%s)", a, b,
                   how & MC_TRANSLATE_AIR ? "no counterpart" :
                   how & MC_TRANSLATE_ANCESTOR ? "nearest older block" :
                   how & MC_TRANSLATE_PROP_DROPPED ? "property dropped" : "value defaulted");
        }
    }
    return t;
}

static const char *biome_name_for(const writer *w, const char *name)
{
    if (w->tera != MC__ERA_MODERN || w->tdv >= MC__DV_BIOME_RENAMES)
        return name;
    const char *old = mc__biome_pre_2838_name(name);
    return old ? old : name;
}

static uint32_t tbiome(writer *w, uint32_t b)
{
    if (w->sreg == w->treg)
        return b;
    if (!w->bmap) {
        w->bmap_n = 256;
        if (mc_registry_biome_count(w->sreg) > w->bmap_n)
            w->bmap_n = mc_registry_biome_count(w->sreg);
        w->bmap = malloc(w->bmap_n * sizeof *w->bmap);
        if (!w->bmap)
            return 0;
        for (size_t i = 0; i < w->bmap_n; i++)
            w->bmap[i] = MC_STATE_NONE;
    }
    if (b >= w->bmap_n)
        return 0;
    if (w->bmap[b] == MC_STATE_NONE) {
        const char *name = mc_registry_biome_name(w->sreg, b);
        uint32_t t = name ? mc_registry_biome_id(w->treg, name) : MC_STATE_NONE;
        if (t == MC_STATE_NONE && name)
            t = mc__biome_renamed_id(w->treg, name);
        if (t == MC_STATE_NONE) { /* the target's biome of the nearest climate */
            unsigned how = 0;
            t = mc_registry_translate_biome(w->sreg, w->treg, b, &how);
            if (t == MC_STATE_NONE)
                t = 0;
            if (w->rep) {
                w->rep->dropped |= MC_CHUNKNBT_DROP_BIOMES;
                w->rep->biomes_inexact++;
            }
            report(w, "biome %s -> %s (not in %s; %s)", name ? name : "?", mc_registry_biome_name(w->treg, t),
                   mc_registry_name(w->treg),
                   how & MC_TRANSLATE_AIR ? "no such biome" : how & MC_TRANSLATE_SAME_FAMILY ? "same category"
                                                                                             : "nearest climate");
        }
        w->bmap[b] = t;
    }
    return w->bmap[b];
}

/* -------------------------------------------------------- containers */

/* Whether block entities decide target states in section sy. */
static bool overridden(const writer *w, int32_t sy)
{
    for (size_t i = 0; i < w->ov_n; i++)
        if (w->ov[i].sy == sy)
            return true;
    return false;
}

/* The target states block entities decided, over a section's mapped values. */
static void apply_overrides(const writer *w, uint32_t *vals)
{
    for (size_t i = 0; i < w->ov_n; i++)
        if (w->ov[i].sy == w->cur_sy)
            vals[w->ov[i].index] = w->ov[i].state;
}

/* First-occurrence palette of mapped values: fills pal/idx, returns n. */
static size_t first_occurrence(const uint32_t *vals, size_t count, uint32_t *pal, uint32_t *idx)
{
    /* small open-addressing table: id -> palette index, at least twice as
     * many slots as values (a biome container's 64 clear 128 slots, not
     * the 8192 a section of blocks needs) */
    enum { TB = 8192 };
    static const uint32_t EMPTY = 0xFFFFFFFFu;
    uint32_t keys[TB], slots[TB];
    uint32_t mask = 127;
    while (mask + 1 < 2 * count && mask + 1 < TB)
        mask = mask * 2 + 1;
    memset(keys, 0xFF, (mask + 1) * sizeof keys[0]);
    size_t n = 0;
    uint32_t last = EMPTY, last_i = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = vals[i];
        if (v == last) {
            idx[i] = last_i;
            continue;
        }
        uint32_t h = (v * 2654435761u) & mask;
        while (keys[h] != EMPTY && keys[h] != v)
            h = (h + 1) & mask;
        if (keys[h] == EMPTY) {
            keys[h] = v;
            slots[h] = (uint32_t)n;
            pal[n++] = v;
        }
        last = v;
        last_i = slots[h];
        idx[i] = last_i;
    }
    return n;
}

/* Whether a 4-bit index k is among the nibbles of longs [from, to): each
 * long XORed with k in every nibble has a zero nibble where k is, which the
 * borrow of subtracting 1 from every nibble shows in its top bit (exact as
 * a yes or no: a false top bit only ever sits above a true zero nibble). */
static bool nibble_in(const uint64_t *longs, size_t from, size_t to, uint32_t k)
{
    const uint64_t ones = 0x1111111111111111ull, pattern = ones * k;
    for (size_t i = from; i < to; i++) {
        const uint64_t v = longs[i] ^ pattern;
        if ((v - ones) & ~v & (ones << 3))
            return true;
    }
    return false;
}

/* Which of the 4-bit entries 8 * half .. 8 * half + 7 are among the
 * entries [from, size) of c (from a multiple of 16), as bits 8 * half and
 * up: the entries looked up as bytes (a byte shuffle) in a table giving
 * each of the eight its own bit, the bytes then ORed a word at a time. */
static uint32_t nibbles_present(const mc_container *c, size_t from, unsigned half)
{
    uint8_t table[256], bytes[4096];
    const size_t count = c->rules.size - from;
    memset(table, 0, sizeof table);
    for (unsigned k = 0; k < 8; k++)
        table[8 * half + k] = (uint8_t)(1u << k);
    mc_bits_unpack_map_u8(c->longs + from / 16, count, 4, MC_BITS_PADDED, table, bytes);
    uint64_t g0 = 0, g1 = 0;
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        uint64_t x, y;
        memcpy(&x, bytes + i, 8);
        memcpy(&y, bytes + i + 8, 8);
        g0 |= x;
        g1 |= y;
    }
    for (; i < count; i++)
        g0 |= bytes[i];
    g0 |= g1;
    g0 |= g0 >> 32;
    g0 |= g0 >> 16;
    g0 |= g0 >> 8;
    return (uint32_t)(g0 & 255) << (8 * half);
}

/* all_used for 4-bit indices (palettes of up to 16 entries, most block
 * sections), without unpacking 4,096 indices: each entry looked for in the
 * first longs, where most are met within a long or two; a few still
 * missing (a rare block) are looked for in the rest one by one, more of
 * them through nibbles_present (marking the rest's bytes in a table of 256
 * was 5,000 instructions a section). */
static bool all_used_nibbles(const mc_container *c)
{
    const size_t nl = c->rules.size / 16, first = nl < 32 ? nl : 32;
    uint32_t missing[16], need = 0;
    size_t m = 0;
    for (uint32_t k = 0; k < c->palette_len; k++)
        if (!nibble_in(c->longs, 0, first, k)) {
            missing[m++] = k;
            need |= 1u << k;
        }
    if (m <= 3) {
        for (size_t i = 0; i < m; i++)
            if (!nibble_in(c->longs, first, nl, missing[i]))
                return false;
        return true;
    }
    uint32_t got = 0;
    if (need & 0xFF)
        got |= nibbles_present(c, first * 16, 0);
    if (need & 0xFF00)
        got |= nibbles_present(c, first * 16, 1);
    return (got & need) == need;
}

/* Whether an entry of pal[0..n) (n <= 256) is there twice: pairwise for a
 * short palette; else each entry's place (plus one) kept in a table of 512
 * slots by a hash of its value, probed onwards (at most half full), where
 * the pairs of a palette of 30 were a third of this check's cost. */
static bool palette_repeats(const uint32_t *pal, uint32_t n)
{
    if (n <= 16) {
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (pal[i] == pal[j])
                    return true;
        return false;
    }
    uint16_t slot_of[512];
    memset(slot_of, 0, sizeof slot_of);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t h = (pal[i] * 0x9E3779B1u) >> 23;
        for (; slot_of[h]; h = (h + 1) & 511)
            if (pal[slot_of[h] - 1] == pal[i])
                return true;
        slot_of[h] = (uint16_t)(i + 1);
    }
    return false;
}

/* Whether an indirect container's palette has no entry twice and every
 * entry is used: the entries are checked first, then the indices walked
 * until each entry was seen (usually long before the last block). idx:
 * room for 4096 indices, to unpack them into. */
static bool all_used(const mc_container *c, uint16_t *idx)
{
    if (c->kind != MC_CONTAINER_INDIRECT || c->palette_len > 256 || palette_repeats(c->palette, c->palette_len))
        return false;
    uint8_t seen[256];
    if (c->rules.size > 4096)
        return false;
    if (c->bits == 4 && c->palette_len <= 16 && c->rules.size % 16 == 0)
        return all_used_nibbles(c);
    mc_bits_unpack_u16(c->longs, c->rules.size, c->bits, MC_BITS_PADDED, idx);
    if (c->palette_len <= 64) {
        /* the common case: the entries seen as bits of one word (four
         * words over a run of 256, so that the ORs do not wait for each
         * other: this walk was a tenth of world convert's instructions) */
        const uint64_t all = c->palette_len == 64 ? ~0ull : (1ull << c->palette_len) - 1;
        uint64_t got = 0;
        for (size_t from = 0; from < c->rules.size; from += 256) {
            size_t to = from + 256 < c->rules.size ? from + 256 : c->rules.size;
            uint64_t g0 = 0, g1 = 0, g2 = 0, g3 = 0;
            size_t i = from;
            for (; i + 4 <= to; i += 4) {
                g0 |= 1ull << (idx[i] & 63);
                g1 |= 1ull << (idx[i + 1] & 63);
                g2 |= 1ull << (idx[i + 2] & 63);
                g3 |= 1ull << (idx[i + 3] & 63);
            }
            for (; i < to; i++)
                g0 |= 1ull << (idx[i] & 63);
            got |= g0 | g1 | g2 | g3;
            if ((got & all) == all)
                return true;
        }
        return false;
    }
    memset(seen, 0, sizeof seen);
    /* marks without a branch, a run of 256 at a time, then a look */
    for (size_t from = 0; from < c->rules.size; from += 256) {
        size_t to = from + 256 < c->rules.size ? from + 256 : c->rules.size;
        uint16_t over = 0;
        for (size_t i = from; i < to; i++) {
            seen[idx[i] & 255] = 1;
            over |= idx[i];
        }
        if (over >= 256)
            return false; /* (an index past any palette this checks) */
        uint32_t k = 0;
        while (k < c->palette_len && seen[k])
            k++;
        if (k == c->palette_len)
            return true;
    }
    return false;
}

/* The place in the new palette pal[0..*n) of entry k of c's palette,
 * mapped (tstate, tbiome) when `translated`: an entry met before, or a new
 * one appended. */
static uint8_t new_place(writer *w, const mc_container *c, bool biomes, bool translated, uint32_t *pal, size_t *n,
                         uint32_t k)
{
    const uint32_t s = c->palette[k];
    const uint32_t v = !translated ? s : biomes ? tbiome(w, s) : tstate(w, s);
    uint32_t j = 0;
    while (j < *n && pal[j] != v)
        j++;
    if (j == *n)
        pal[(*n)++] = v;
    return (uint8_t)j;
}

/* first_occurrence for an indirect container of up to 8 bits, over its
 * indices: each palette entry used is mapped (tstate, tbiome) once and
 * given its place in the new palette in the order of the entries' first
 * places (entries mapping to one target share it), so no value of the
 * 4,096 is hashed. The indices are read as bytes (a byte shuffle at 4 and
 * 5 bits), each entry's first place found walking them backwards without a
 * branch, and the new indices looked up from the longs the same way, left
 * in idx (room for 4096) for mc_bits_pack_be_u16: walking 16-bit indices
 * forwards with a branch each and packing 32-bit ones were two thirds of
 * world convert's writing of the 1.13-1.17 sections whose palettes hold
 * unused entries. Returns the new palette's length. */
static size_t first_occurrence_indexed(writer *w, const mc_container *c, bool biomes, bool translated,
                                       uint32_t *pal, uint16_t *idx)
{
    uint8_t out_of[256];
    const size_t size = c->rules.size;
    size_t n = 0;
    memset(out_of, 0, sizeof out_of);
    uint8_t bytes[4096], same[256];
    uint16_t first[256], order[256];
    for (uint32_t k = 0; k < 256; k++)
        same[k] = (uint8_t)k;
    mc_bits_unpack_map_u8(c->longs, size, c->bits, MC_BITS_PADDED, same, bytes);
    for (uint32_t k = 0; k < c->palette_len; k++)
        first[k] = UINT16_MAX;
    for (size_t i = size; i-- > 0;)
        first[bytes[i]] = (uint16_t)i;
    /* the entries used, by first place (an insertion sort: a few dozen) */
    uint32_t used = 0;
    for (uint32_t k = 0; k < c->palette_len; k++) {
        if (first[k] == UINT16_MAX)
            continue;
        uint32_t j = used++;
        for (; j > 0 && first[order[j - 1]] > first[k]; j--)
            order[j] = order[j - 1];
        order[j] = (uint16_t)k;
    }
    for (uint32_t j = 0; j < used; j++)
        out_of[order[j]] = new_place(w, c, biomes, translated, pal, &n, order[j]);
    mc_bits_unpack_map_u8(c->longs, size, c->bits, MC_BITS_PADDED, out_of, bytes);
    size_t i = 0;
    for (; i + 16 <= size; i += 16)
        for (unsigned k = 0; k < 16; k++)
            idx[i + k] = bytes[i + k];
    for (; i < size; i++)
        idx[i] = bytes[i];
    return n;
}

/* Palette entry {Name, Properties?} of a target state. */
static mc_status put_block_entry(writer *w, mc_nbt_tag *list, uint32_t state)
{
    const char *name = mc_registry_state_name(w->treg, state);
    if (!name) {
        state = w->tair;
        name = mc_registry_state_name(w->treg, state);
        if (!name)
            name = "minecraft:air";
    }
    mc_nbt_tag *e = mc_nbt_list_append(w->doc, list, MC_NBT_COMPOUND);
    if (!e || mc_nbt_put_string(w->doc, e, "Name", name, strlen(name)) != MC_OK)
        return nomem(w);
    unsigned np = mc_registry_state_prop_count(w->treg, state);
    if (np) {
        mc_nbt_tag *p = mc_nbt_put_compound(w->doc, e, "Properties");
        if (!p)
            return nomem(w);
        for (unsigned i = 0; i < np; i++) {
            const char *k, *v;
            if (mc_registry_state_prop(w->treg, state, i, &k, &v) &&
                mc_nbt_put_string(w->doc, p, k, v, strlen(v)) != MC_OK)
                return nomem(w);
        }
    }
    return MC_OK;
}

static mc_status put_longs(writer *w, mc_nbt_tag *parent, const char *key, const uint8_t *be, size_t n)
{
    mc_nbt_tag *t = mc_nbt_put(w->doc, parent, key, strlen(key), MC_NBT_LONG_ARRAY);
    if (!t || mc_nbt_set_long_array_be(w->doc, t, be, n) != MC_OK)
        return nomem(w);
    return MC_OK;
}

/* ---------------------------------------------------------- the sink */

/* Where a section's keys go: a compound of the tree (tag), or, on the bytes
 * path, the Java NBT payload of one appended to buf. Both give the same
 * bytes once the tree is written (tests/unit/test_chunknbt_write_bytes.c). */
typedef struct sink {
    mc_nbt_tag *tag;
    mc_buf *buf;
} sink;

/* A key's header: type, then the name (ASCII: the writer's own keys). */
static void emit_key(mc_buf *b, unsigned type, const char *key)
{
    const size_t n = strlen(key);
    uint8_t *p = mc_buf_extend(b, 3 + n);
    if (!p)
        return;
    p[0] = (uint8_t)type;
    mc_store_u16be(p + 1, (uint16_t)n);
    memcpy(p + 3, key, n);
}

/* Appends the payload of `tag` as Java NBT: the tag written as a root
 * named "" (type, empty name, payload), its three header bytes dropped. */
static mc_status emit_payload(writer *w, mc_buf *b, const mc_nbt_tag *tag)
{
    const size_t start = b->len;
    mc_status st = mc_nbt_write_tag(tag, "", 0, MC_NBT_JAVA, b, w->err);
    if (st != MC_OK)
        return st;
    memmove(b->data + start, b->data + start + 3, b->len - start - 3);
    b->len -= 3;
    return MC_OK;
}

static mc_status sk_byte(writer *w, sink *o, const char *key, int8_t v)
{
    if (o->buf) {
        emit_key(o->buf, MC_NBT_BYTE, key);
        mc_buf_put_u8(o->buf, (uint8_t)v);
        return MC_OK;
    }
    return mc_nbt_put_byte(w->doc, o->tag, key, v) == MC_OK ? MC_OK : nomem(w);
}

static mc_status sk_byte_array(writer *w, sink *o, const char *key, const void *v, size_t n)
{
    if (o->buf) {
        emit_key(o->buf, MC_NBT_BYTE_ARRAY, key);
        mc_buf_put_u32be(o->buf, (uint32_t)n);
        mc_buf_put(o->buf, v, n);
        return MC_OK;
    }
    return mc_nbt_put_byte_array(w->doc, o->tag, key, v, n) == MC_OK ? MC_OK : nomem(w);
}

/* n big-endian longs at be. */
static mc_status sk_longs(writer *w, sink *o, const char *key, const uint8_t *be, size_t n)
{
    if (o->buf) {
        emit_key(o->buf, MC_NBT_LONG_ARRAY, key);
        mc_buf_put_u32be(o->buf, (uint32_t)n);
        mc_buf_put(o->buf, be, n * 8);
        return MC_OK;
    }
    return put_longs(w, o->tag, key, be, n);
}

/* A compound under `key`: its keys go to *child, closed by sk_end. */
static mc_status sk_compound(writer *w, sink *o, const char *key, sink *child)
{
    child->buf = o->buf;
    child->tag = NULL;
    if (o->buf) {
        emit_key(o->buf, MC_NBT_COMPOUND, key);
        return MC_OK;
    }
    child->tag = mc_nbt_put_compound(w->doc, o->tag, key);
    return child->tag ? MC_OK : nomem(w);
}

static void sk_end(sink *o)
{
    if (o->buf)
        mc_buf_put_u8(o->buf, MC_NBT_END);
}

/* A string's Java NBT payload (length, bytes) when it is plain ASCII, the
 * same bytes in modified UTF-8; false (nothing written) otherwise. Put
 * with one extend (170,385 calls on the older corpus chunks). */
static bool put_ascii(mc_buf *b, const char *s)
{
    const size_t n = strlen(s);
    if (n > 0xFFFF)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)s[i] >= 0x80)
            return false;
    uint8_t *at = mc_buf_extend(b, n + 2); /* (NULL: b failed, which the caller checks) */
    if (at) {
        mc_store_u16be(at, (uint16_t)n);
        memcpy(at + 2, s, n);
    }
    return true;
}

/* The payload of the palette entry of target state (blocks) or biome id
 * `v` appended to b as put_block_entry's compound (Name, then Properties
 * in the registry's order) or the biome's name are written by the tree
 * writer, without the tree (building and writing it was a quarter of
 * world convert's writing of the older corpus chunks, whose 2,193 chunks
 * meet 17,137 distinct 1.21.4 states, each made once). False when a string
 * is not plain ASCII (the caller then goes through the tree; b may hold a
 * part). */
enum { ENTRY_PROPS = 16 }; /* properties read at once (a 1.21 block has at most 7) */

static bool entry_bytes(writer *w, bool biomes, uint32_t v, mc_buf *b)
{
    if (biomes) {
        const char *nm = mc_registry_biome_name(w->treg, v);
        return put_ascii(b, biome_name_for(w, nm ? nm : "minecraft:plains"));
    }
    const char *name = mc_registry_state_name(w->treg, v);
    if (!name) {
        v = w->tair;
        name = mc_registry_state_name(w->treg, v);
        if (!name)
            name = "minecraft:air";
    }
    emit_key(b, MC_NBT_STRING, "Name");
    if (!put_ascii(b, name))
        return false;
    const char *keys[ENTRY_PROPS], *vals[ENTRY_PROPS];
    const unsigned np = mc_registry_state_props(w->treg, v, keys, vals, ENTRY_PROPS);
    if (np) {
        emit_key(b, MC_NBT_COMPOUND, "Properties");
        for (unsigned i = 0; i < np; i++) {
            const char *k = i < ENTRY_PROPS ? keys[i] : NULL, *val = i < ENTRY_PROPS ? vals[i] : NULL;
            if (i >= ENTRY_PROPS && !mc_registry_state_prop(w->treg, v, i, &k, &val))
                continue;
            mc_buf_put_u8(b, MC_NBT_STRING);
            if (!put_ascii(b, k) || !put_ascii(b, val))
                return false;
        }
        mc_buf_put_u8(b, MC_NBT_END);
    }
    mc_buf_put_u8(b, MC_NBT_END);
    return true;
}

/* The payload bytes of the palette entry of target state (blocks) or
 * biome id `v`: made once (entry_bytes, or as the tree path makes it:
 * put_block_entry, the biome's name, written by the tree writer), then
 * kept. */
/* entry_bytes through a tree in wr->scratch (put_block_entry, the biome's
 * name), written by the tree writer. */
static mc_status entry_via_tree(writer *w, bool biomes, uint32_t v, mc_buf *b)
{
    mc_chunknbt_writer *wr = w->wr;
    mc_nbt_doc *tree = w->doc;
    w->doc = wr->scratch;
    mc_nbt_doc_reset(wr->scratch);
    mc_nbt_tag *root = mc_nbt_doc_new_root(wr->scratch, MC_NBT_COMPOUND);
    mc_nbt_tag *list = root ? mc_nbt_put_list(wr->scratch, root, "", biomes ? MC_NBT_STRING : MC_NBT_COMPOUND)
                            : NULL;
    mc_status st = list ? MC_OK : nomem(w);
    if (st == MC_OK && biomes) {
        const char *nm = mc_registry_biome_name(w->treg, v);
        nm = biome_name_for(w, nm ? nm : "minecraft:plains");
        mc_nbt_tag *s = mc_nbt_list_append(wr->scratch, list, MC_NBT_STRING);
        if (!s || mc_nbt_set_string(wr->scratch, s, nm, strlen(nm)) != MC_OK)
            st = nomem(w);
    } else if (st == MC_OK) {
        st = put_block_entry(w, list, v);
    }
    w->doc = tree;
    return st == MC_OK ? emit_payload(w, b, mc_nbt_first(list)) : st;
}

static mc_status cached_entry(writer *w, bool biomes, uint32_t v, const uint8_t **p, size_t *len)
{
    mc_chunknbt_writer *wr = w->wr;
    entry_cache *c = biomes ? &wr->biomes : &wr->blocks;
    const int32_t dv = biomes ? w->tdv : 0;
    if (c->reg != w->treg || c->dv != dv) {
        free(c->at);
        free(c->len);
        c->n = biomes ? mc_registry_biome_count(w->treg) : mc_registry_state_count(w->treg);
        c->at = calloc(c->n + 1, sizeof *c->at);
        c->len = calloc(c->n + 1, sizeof *c->len);
        c->bytes.len = 0;
        c->reg = c->at && c->len ? w->treg : NULL;
        c->dv = dv;
        if (!c->reg)
            return nomem(w);
    }
    const size_t slot = v < c->n ? v : c->n; /* (ids past the registry: made each time) */
    if (slot == c->n || !c->at[slot]) {
        const size_t at = c->bytes.len;
        mc_status st = MC_OK;
        if (!entry_bytes(w, biomes, v, &c->bytes)) {
            c->bytes.len = at; /* (a string not plain ASCII: the tree writes it) */
            st = entry_via_tree(w, biomes, v, &c->bytes);
        }
        if (st == MC_OK && (!mc_buf_ok(&c->bytes) || c->bytes.len - at > 0xFFFF || at >= UINT32_MAX))
            st = nomem(w);
        if (st != MC_OK)
            return st;
        c->at[slot] = (uint32_t)at + 1;
        c->len[slot] = (uint16_t)(c->bytes.len - at);
    }
    *p = c->bytes.data + c->at[slot] - 1;
    *len = c->len[slot];
    return MC_OK;
}

/* A palette list: {Name, Properties?} compounds of target states, or the
 * names of target biomes. */
static mc_status sk_palette(writer *w, sink *o, const char *key, bool biomes, const uint32_t *pal, size_t n)
{
    if (o->buf) {
        emit_key(o->buf, MC_NBT_LIST, key);
        mc_buf_put_u8(o->buf, biomes ? MC_NBT_STRING : MC_NBT_COMPOUND);
        mc_buf_put_u32be(o->buf, (uint32_t)n);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = NULL;
            size_t len = 0;
            mc_status st = cached_entry(w, biomes, pal[i], &p, &len);
            if (st != MC_OK)
                return st;
            mc_buf_put(o->buf, p, len);
        }
        return MC_OK;
    }
    mc_nbt_tag *list = mc_nbt_put_list(w->doc, o->tag, key, biomes ? MC_NBT_STRING : MC_NBT_COMPOUND);
    if (!list)
        return nomem(w);
    for (size_t i = 0; i < n; i++) {
        if (biomes) {
            const char *nm = mc_registry_biome_name(w->treg, pal[i]);
            if (!nm)
                nm = "minecraft:plains";
            nm = biome_name_for(w, nm);
            mc_nbt_tag *s = mc_nbt_list_append(w->doc, list, MC_NBT_STRING);
            if (!s || mc_nbt_set_string(w->doc, s, nm, strlen(nm)) != MC_OK)
                return nomem(w);
        } else {
            mc_status st = put_block_entry(w, list, pal[i]);
            if (st != MC_OK)
                return st;
        }
    }
    return MC_OK;
}

/* Writes a block or biome container as palette + packed data.
 *   blocks: palette list of {Name, Properties} at pal_key, data at data_key;
 *   biomes: palette list of strings.
 * min_bits 4 (blocks) or 0 (biomes); always_data: 1.13-1.17 write the longs
 * even for one entry. */
static mc_status put_paletted(writer *w, sink *parent, const mc_container *c, bool biomes,
                              const char *pal_key, const char *data_key, unsigned min_bits,
                              mc_bits_layout layout, bool always_data, bool keep_unused)
{
    uint32_t pal_buf[4096];
    uint16_t idx[4096];      /* indices: all_used's, then first_occurrence_indexed's */
    const uint32_t *pal;
    size_t n;
    bool direct_idx = false; /* indices straight from the container */
    bool idx16 = false;      /* the new indices in idx, not w->idx */
    bool translated = biomes ? w->sreg != w->treg : w->map != NULL;
    const bool decided = !biomes && overridden(w, w->cur_sy);
    if (c->kind == MC_CONTAINER_SINGLE && !decided) {
        pal_buf[0] = biomes ? tbiome(w, c->value) : tstate(w, c->value);
        pal = pal_buf;
        n = 1;
        if (always_data) /* (else nothing is packed) */
            memset(w->idx, 0, c->rules.size * sizeof *w->idx);
    } else if (c->kind == MC_CONTAINER_INDIRECT && !translated && !decided && (keep_unused || c->compact || all_used(c, idx))) {
        pal = c->palette;
        n = c->palette_len;
        direct_idx = true;
    } else if (c->kind == MC_CONTAINER_INDIRECT && !decided && c->rules.size <= 4096 && c->bits <= 8 &&
               c->palette_len <= 256) {
        n = first_occurrence_indexed(w, c, biomes, translated, pal_buf, idx);
        pal = pal_buf;
        idx16 = true;
    } else {
        size_t size = c->rules.size;
        mc_container_get_all(c, w->vals);
        if (translated) /* (else every value is its own target) */
            for (size_t i = 0; i < size; i++)
                w->vals[i] = biomes ? tbiome(w, w->vals[i]) : tstate(w, w->vals[i]);
        if (decided)
            apply_overrides(w, w->vals);
        n = first_occurrence(w->vals, size, pal_buf, w->idx);
        pal = pal_buf;
    }
    mc_status st = sk_palette(w, parent, pal_key, biomes, pal, n);
    if (st != MC_OK)
        return st;
    if (n == 1 && !always_data)
        return MC_OK;
    unsigned bits = mc_bits_ceil_log2(n);
    if (bits < min_bits)
        bits = min_bits;
    if (bits == 0)
        bits = 1;
    size_t size = c->rules.size;
    size_t nl = mc_bits_longs(size, bits, layout);
    if (direct_idx) {
        if (mc_container_write_be(c, bits, layout, MC_WRITE_INDICES, w->be) != MC_OK)
            return mc_error_set(w->err, MC_ERR_RANGE, SIZE_MAX, "chunk nbt: palette indices do not fit %u bits", bits);
    } else if (idx16) {
        mc_bits_pack_be_u16(idx, size, bits, layout, w->be);
    } else {
        mc_bits_pack_be_u32(w->idx, size, bits, layout, w->be);
    }
    return sk_longs(w, parent, data_key, w->be, nl);
}

/* ------------------------------------------------------------ helpers */

static const mc_nbt_tag *xsection_for(writer *w, int32_t y, const mc_nbt_tag *after)
{
    (void)after;
    for (mc_nbt_tag *e = mc_nbt_first(w->xsections); e; e = mc_nbt_next(e)) {
        int64_t v;
        if (mc_nbt_get_integer(mc_nbt_get(e, "Y"), &v) == MC_OK && v == y)
            return e;
    }
    return NULL;
}

static bool in_list(writer *w, const char *key, int32_t y)
{
    mc_nbt_array a;
    if (!w->carry || mc_nbt_get_array(mc_nbt_get(w->xlevel, key), MC_NBT_INT_ARRAY, &a) != MC_OK)
        return false;
    for (size_t i = 0; i < a.count; i++)
        if (mc_nbt_array_i32(&a, i) == y)
            return true;
    return false;
}

static mc_status copy_keys(writer *w, mc_nbt_tag *dst, const mc_nbt_tag *src)
{
    for (mc_nbt_tag *t = mc_nbt_first(src); t; t = mc_nbt_next(t)) {
        if (is_bookkeeping(t))
            continue;
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        mc_nbt_tag *c = mc_nbt_copy(w->doc, t);
        if (!c || mc_nbt_attach(w->doc, dst, k, kl, c) != MC_OK)
            return nomem(w);
    }
    return MC_OK;
}

/* ------------------------------------------------- 1.18 snapshot keys */

/* The chunk keys the 1.18 snapshots renamed, by DataVersion: 2841
 * ChunkProtoTickListFix renames Level.LiquidTicks to fluid_ticks; 2842
 * ChunkRenamesFix moves the Level keys to the root and renames the others
 * (structures' Starts included) [MOJ-J util/datafix/fixes]. Before 2832
 * every era uses the old names. */
enum { KEY_SECTIONS, KEY_BLOCK_ENTITIES, KEY_BLOCK_TICKS, KEY_FLUID_TICKS, KEY_ENTITIES, KEY_STRUCTURES,
       KEY_COUNT };

static const char *chunk_key(int32_t dv, int key)
{
    bool renamed = dv >= MC__DV_RENAMES;
    switch (key) {
    case KEY_SECTIONS: return renamed ? "sections" : "Sections";
    case KEY_BLOCK_ENTITIES: return renamed ? "block_entities" : "TileEntities";
    case KEY_BLOCK_TICKS: return renamed ? "block_ticks" : "TileTicks";
    case KEY_FLUID_TICKS: return dv >= MC__DV_PROTO_TICKS ? "fluid_ticks" : "LiquidTicks";
    case KEY_ENTITIES: return renamed ? "entities" : "Entities";
    default: return renamed ? "structures" : "Structures";
    }
}

static bool key_eq(const char *k, size_t kl, const char *lit)
{
    return strlen(lit) == kl && memcmp(k, lit, kl) == 0;
}

/* 2841 ChunkProtoTickListFix: a proto-chunk with neither TileTicks nor
 * LiquidTicks has its ToBeTicked / LiquidsToBeTicked (one list of packed
 * shorts per section from the lowest) turned into tick compounds. */
static bool converts_proto_ticks(const writer *w)
{
    return w->carry && w->tera == MC__ERA_MODERN && w->sdv < MC__DV_PROTO_TICKS &&
           w->tdv >= MC__DV_PROTO_TICKS && w->xlevel && !mc_nbt_get(w->xlevel, "TileTicks") &&
           !mc_nbt_get(w->xlevel, "LiquidTicks");
}

/* The fluid ChunkProtoTickListFix names for a block (its getLiquid): water
 * and lava by name, the always-waterlogged plants as water, else empty.
 * The fix reads Properties.level with asInt(0) and waterlogged with
 * asBoolean(false), but palette properties are string tags, which NbtOps
 * does not read as numbers (getNumberValue: "Not a number"), so a level is
 * always 0 (never flowing_water/flowing_lava) and waterlogged always false. */
static const char *proto_fluid_name(const char *block)
{
    static const char *const always_waterlogged[] = {"minecraft:bubble_column", "minecraft:kelp",
                                                     "minecraft:kelp_plant", "minecraft:seagrass",
                                                     "minecraft:tall_seagrass"};
    if (!block)
        return "minecraft:empty";
    if (!strcmp(block, "minecraft:water") || !strcmp(block, "minecraft:lava"))
        return block;
    for (size_t i = 0; i < sizeof always_waterlogged / sizeof always_waterlogged[0]; i++)
        if (!strcmp(block, always_waterlogged[i]))
            return "minecraft:water";
    return "minecraft:empty";
}

/* Builds one tick list of the fix from the model's blocks: entries
 * {i, x, y, z, t: 0, p: 0} with absolute positions; list k is section
 * (lowest section + k); packed values <= 0 are skipped as the fix does. */
static mc_status put_proto_ticks(writer *w, mc_nbt_tag *level, const char *src_key, const char *dst_key,
                                 bool fluids)
{
    const mc_nbt_tag *src = mc_nbt_get(w->xlevel, src_key);
    mc_nbt_tag *list = mc_nbt_put_list(w->doc, level, dst_key, MC_NBT_END);
    if (!list)
        return nomem(w);
    int32_t cmin = mc_column_min_section(w->col), cmax = cmin + (int32_t)mc_column_section_count(w->col) - 1;
    int32_t k = 0;
    for (mc_nbt_tag *sec = mc_nbt_tag_type(src) == MC_NBT_LIST ? mc_nbt_first(src) : NULL; sec;
         sec = mc_nbt_next(sec), k++) {
        int32_t sy = w->tmin + k;
        if (mc_nbt_tag_type(sec) != MC_NBT_LIST)
            continue;
        for (mc_nbt_tag *e = mc_nbt_first(sec); e; e = mc_nbt_next(e)) {
            int64_t v;
            int32_t packed = mc_nbt_get_integer(e, &v) == MC_OK ? (int16_t)v : -1;
            if (packed <= 0)
                continue;
            int32_t x = packed & 15, y = (packed >> 4) & 15, z = (packed >> 8) & 15;
            const char *block = NULL;
            if (sy >= cmin && sy <= cmax)
                block = mc_registry_state_name(w->treg, tstate(w, mc_column_get_block(w->col, x, sy * 16 + y, z)));
            const char *name = fluids ? proto_fluid_name(block) : block ? block : "minecraft:air";
            mc_nbt_tag *t = mc_nbt_list_append(w->doc, list, MC_NBT_COMPOUND);
            if (!t || mc_nbt_put_string(w->doc, t, "i", name, strlen(name)) != MC_OK ||
                mc_nbt_put_int(w->doc, t, "x", mc_column_x(w->col) * 16 + x) != MC_OK ||
                mc_nbt_put_int(w->doc, t, "y", sy * 16 + y) != MC_OK ||
                mc_nbt_put_int(w->doc, t, "z", mc_column_z(w->col) * 16 + z) != MC_OK ||
                mc_nbt_put_int(w->doc, t, "t", 0) != MC_OK || mc_nbt_put_int(w->doc, t, "p", 0) != MC_OK)
                return nomem(w);
        }
    }
    return MC_OK;
}

/* Copies one carried chunk key (of the source's Level, or of its root from
 * 2842) into `dst` under the target's name for it. */
static mc_status carry_key(writer *w, mc_nbt_tag *dst, const mc_nbt_tag *t)
{
    size_t kl;
    const char *k = mc_nbt_tag_key(t, &kl);
    const char *name = NULL;
    int which = KEY_COUNT;
    if (w->tera == MC__ERA_MODERN && w->sdv != w->tdv) {
        for (int i = 0; i < KEY_COUNT && !name; i++)
            if (key_eq(k, kl, chunk_key(w->sdv, i))) {
                name = chunk_key(w->tdv, i);
                which = i;
            }
        if ((key_eq(k, kl, "ToBeTicked") || key_eq(k, kl, "LiquidsToBeTicked")) && converts_proto_ticks(w))
            return MC_OK; /* become tick compounds (put_proto_ticks) */
        bool s_ypos = w->sdv >= MC__DV_YPOS, t_ypos = w->tdv >= MC__DV_YPOS;
        if (key_eq(k, kl, "yPos") && s_ypos != t_ypos)
            return MC_OK; /* the writer puts its own yPos from 2844, none before */
        if (s_ypos && !t_ypos && (key_eq(k, kl, "below_zero_retrogen") || key_eq(k, kl, "blending_data"))) {
            /* 21w43a (2844) keys: an older snapshot has no place for them */
            if (w->rep) {
                w->rep->dropped |= MC_CHUNKNBT_DROP_EXTRA;
                w->rep->extra_dropped++;
            }
            report(w, "key %.*s (added in DataVersion %d)", (int)kl, k, MC__DV_YPOS);
            return MC_OK;
        }
    }
    mc_nbt_tag *c;
    if (which == KEY_STRUCTURES && mc_nbt_tag_type(t) == MC_NBT_COMPOUND &&
        (w->sdv >= MC__DV_RENAMES) != (w->tdv >= MC__DV_RENAMES)) {
        /* structures{References, starts} <-> Structures{References, Starts} */
        const char *from = w->sdv >= MC__DV_RENAMES ? "starts" : "Starts";
        const char *to = w->tdv >= MC__DV_RENAMES ? "starts" : "Starts";
        c = mc_nbt_put_compound(w->doc, dst, name);
        for (mc_nbt_tag *e = c ? mc_nbt_first(t) : NULL; e; e = mc_nbt_next(e)) {
            size_t el;
            const char *ek = mc_nbt_tag_key(e, &el);
            mc_nbt_tag *ec = mc_nbt_copy(w->doc, e);
            if (key_eq(ek, el, from)) {
                ek = to;
                el = strlen(to);
            }
            if (!ec || mc_nbt_attach(w->doc, c, ek, el, ec) != MC_OK)
                return nomem(w);
        }
        return c ? MC_OK : nomem(w);
    }
    c = mc_nbt_copy(w->doc, t);
    if (!c || mc_nbt_attach(w->doc, dst, name ? name : k, name ? strlen(name) : kl, c) != MC_OK)
        return nomem(w);
    return MC_OK;
}

static bool section_is_air(const writer *w, const mc_section *s)
{
    return s->blocks.kind == MC_CONTAINER_SINGLE &&
           (s->blocks.value == mc_registry_air(w->sreg) ||
            (mc_registry_state_flags(w->sreg, s->blocks.value) & MC_STATE_AIR));
}

/* ------------------------------------------------------------ sections */

/* Sky light for the sections of the target's range that have none, as a
 * straight-down fill: each x,z column from the top of the column down is at
 * the level the lowest stored sky light above it has at its bottom layer (15
 * above everything), and 0 from its highest non-air block down. Stored sky
 * light is kept as it is; only the missing sections are filled. Not a light
 * engine (no spreading sideways, every non-air block stops the sky), but
 * light the game reads and relights where it changes things. */
static const uint8_t *sky_fill(writer *w, int32_t y)
{
    if (!w->sky_fill) {
        w->sky_fill = calloc((size_t)w->tcount, MC_LIGHT_BYTES);
        if (!w->sky_fill)
            return NULL;
        uint8_t level[256];
        memset(level, 15, sizeof level);
        int32_t cmin = mc_column_min_section(w->col);
        int32_t top = cmin + (int32_t)mc_column_section_count(w->col) - 1;
        if (top < w->tmin + w->tcount - 1)
            top = w->tmin + w->tcount - 1;
        for (int32_t sy = top; sy >= w->tmin; sy--) {
            const mc_section *s = sy >= cmin && sy < cmin + (int32_t)mc_column_section_count(w->col)
                                      ? mc_column_section_const(w->col, sy) : NULL;
            uint8_t *out = sy < w->tmin + w->tcount ? w->sky_fill + (size_t)(sy - w->tmin) * MC_LIGHT_BYTES : NULL;
            if (!s && !out) {
                /* the open sky between a column far above the target (yPos
                 * as read: 16 million in a fuzzed chunk) and the target's
                 * top changes nothing: jumped, not walked 4096 blocks a Y */
                sy = w->tmin + w->tcount;
                continue;
            }
            if (s && s->sky_light) {
                for (unsigned i = 0; i < 256; i++)
                    level[i] = (uint8_t)mc_light_get(s->sky_light, i);
                continue;
            }
            bool air = !s || section_is_air(w, s);
            if (!air)
                mc_container_get_all(&s->blocks, w->vals);
            for (int ly = 15; ly >= 0; ly--)
                for (unsigned i = 0; i < 256; i++) {
                    unsigned idx = ((unsigned)ly << 8) | i;
                    if (!air && level[i]) {
                        uint32_t v = w->vals[idx];
                        if (v != mc_registry_air(w->sreg) && !(mc_registry_state_flags(w->sreg, v) & MC_STATE_AIR))
                            level[i] = 0;
                    }
                    if (out)
                        mc_light_set(out, idx, level[i]);
                }
        }
    }
    return w->sky_fill + (size_t)(y - w->tmin) * MC_LIGHT_BYTES;
}

/* The section's light; where the target stores light in every section
 * (mc__section_rules), what it lacks is filled: block light 0, sky light
 * by sky_fill. */
static mc_status put_light(writer *w, sink *sec, int32_t y, const mc_section *s)
{
    const uint8_t *block = s->block_light, *sky = s->sky_light;
    static const uint8_t dark[MC_LIGHT_BYTES];
    if (w->rules->light_required && y >= w->tmin && y < w->tmin + w->tcount && (!block || !sky)) {
        if (!block)
            block = dark;
        if (!sky && !(sky = sky_fill(w, y)))
            return nomem(w);
        w->light_filled++;
    }
    mc_status st = block ? sk_byte_array(w, sec, "BlockLight", block, MC_LIGHT_BYTES) : MC_OK;
    if (st == MC_OK && sky)
        st = sk_byte_array(w, sec, "SkyLight", sky, MC_LIGHT_BYTES);
    return st;
}

static mc_status put_legacy_blocks(writer *w, sink *sec, const mc_section *s)
{
    mc_container_get_all(&s->blocks, w->vals);
    int8_t blocks[4096], data[2048], add[2048];
    memset(data, 0, sizeof data);
    memset(add, 0, sizeof add);
    bool need_add = false;
    for (unsigned i = 0; i < 4096; i++)
        w->vals[i] = tstate(w, w->vals[i]);
    apply_overrides(w, w->vals);
    for (unsigned i = 0; i < 4096; i++) {
        uint32_t v = w->vals[i];
        uint32_t id = v >> 4, meta = v & 15;
        blocks[i] = (int8_t)(id & 0xFF);
        data[i >> 1] = (int8_t)(data[i >> 1] | (int8_t)(meta << ((i & 1) * 4)));
        if (id > 255) {
            need_add = true;
            add[i >> 1] = (int8_t)(add[i >> 1] | (int8_t)(((id >> 8) & 15) << ((i & 1) * 4)));
        }
    }
    mc_status st = sk_byte_array(w, sec, "Blocks", blocks, 4096);
    if (st == MC_OK && need_add)
        st = sk_byte_array(w, sec, "Add", add, 2048);
    return st == MC_OK ? sk_byte_array(w, sec, "Data", data, 2048) : st;
}

/* A section whose palette named states (or biomes) the registry lacks kept
 * its original block data in the extras. Use it when the model's container
 * still reads the same (nothing was edited) and no translation happens. */
static bool keep_raw(writer *w, const mc_nbt_tag *xs, const mc_section *s, bool biomes, int32_t y)
{
    const mc_nbt_tag *pal, *data;
    if (w->tera == MC__ERA_MODERN) {
        const mc_nbt_tag *c = mc_nbt_get(xs, biomes ? "biomes" : "block_states");
        pal = mc_nbt_get(c, "palette");
        data = mc_nbt_get(c, "data");
    } else {
        pal = mc_nbt_get(xs, "Palette");
        data = mc_nbt_get(xs, "BlockStates");
    }
    if (!pal)
        return false;
    bool same = false;
    if (w->sreg == w->treg && w->tdv == w->sdv) {
        if (!w->cache)
            w->cache = mc_chunknbt_cache_new(NULL);
        const mc_container *model = biomes ? &s->biomes : &s->blocks;
        mc_container tmp;
        mc_container_rules rules = model->rules;
        if (w->cache &&
            mc__read_paletted(pal, data, biomes, biomes ? 0 : 4,
                              w->tdv >= MC_CHUNKNBT_DV_PADDED ? MC_BITS_PADDED : MC_BITS_SPANNING, w->sreg,
                              w->cache, &rules, true, NULL, &tmp, NULL, NULL) == MC_OK) {
            same = mc_container_equal(&tmp, model);
            mc_container_free(&tmp);
        }
    }
    if (!same)
        report(w, "section Y=%d: %s unknown to the registry not written (the section changed)", (int)y,
               biomes ? "biomes" : "block states");
    return same;
}

static mc_status put_section(writer *w, mc_nbt_tag *list, int32_t y, const mc_section *s,
                             const mc_nbt_tag *xs);

/* A carried section entry of the extras, as it is, into the list. */
static mc_status put_extra_section(writer *w, mc_nbt_tag *list, const mc_nbt_tag *xs)
{
    if (w->wr) {
        if (mc_nbt_tag_type(xs) != MC_NBT_COMPOUND)
            return MC_ERR_UNSUPPORTED; /* (a list of other tags: the tree path writes it) */
        w->sec_n++;
        return emit_payload(w, &w->wr->sections, xs);
    }
    mc_nbt_tag *c = mc_nbt_copy(w->doc, xs);
    return c && mc_nbt_list_attach(w->doc, list, c) == MC_OK ? MC_OK : nomem(w);
}

/* The bytes path's section with extra keys: made as a tree (in the
 * scratch document), then written as bytes. */
static mc_status section_via_tree(writer *w, int32_t y, const mc_section *s, const mc_nbt_tag *xs)
{
    mc_chunknbt_writer *wr = w->wr;
    mc_nbt_doc *tree = w->doc;
    w->doc = wr->scratch;
    w->wr = NULL;
    mc_nbt_doc_reset(wr->scratch);
    mc_nbt_tag *root = mc_nbt_doc_new_root(wr->scratch, MC_NBT_COMPOUND);
    mc_nbt_tag *list = root ? mc_nbt_put_list(wr->scratch, root, "", MC_NBT_END) : NULL;
    mc_status st = list ? put_section(w, list, y, s, xs) : nomem(w);
    w->doc = tree;
    w->wr = wr;
    if (st == MC_OK && mc_nbt_count(list)) {
        w->sec_n++;
        st = emit_payload(w, &wr->sections, mc_nbt_first(list));
    }
    return st;
}

static mc_status put_section(writer *w, mc_nbt_tag *list, int32_t y, const mc_section *s,
                             const mc_nbt_tag *xs)
{
    bool blocks_out;
    w->cur_sy = y;
    if (w->tera == MC__ERA_MODERN)
        /* the game stores every section of the range; one read without
         * block data stays so while it is air */
        blocks_out = !section_is_air(w, s) || !in_list(w, MC__KEY_NO_DATA_SECTIONS, y);
    else
        blocks_out = !section_is_air(w, s) || in_list(w, MC__KEY_AIR_SECTIONS, y);
    bool light = s->block_light || s->sky_light;
    if (!blocks_out) {
        /* a section without block data: written (light only, or its Y and
         * extra keys) where the target has such sections; where it has not
         * (before 1.14), one with extra keys is written whole, as air */
        if (!xs && (!light || !w->rules->without_blocks))
            return MC_OK;
        if (!w->rules->without_blocks)
            blocks_out = true;
    }
    if (w->wr && xs)
        return section_via_tree(w, y, s, xs); /* its extra keys come first, as the tree has them */
    sink sec = {NULL, NULL};
    if (w->wr) {
        sec.buf = &w->wr->sections;
        w->sec_n++;
    } else if (!(sec.tag = mc_nbt_list_append(w->doc, list, MC_NBT_COMPOUND))) {
        return nomem(w);
    }
    mc_status st = MC_OK;
    if (xs)
        st = copy_keys(w, sec.tag, xs);
    if (st == MC_OK)
        st = sk_byte(w, &sec, "Y", (int8_t)y);
    if (st != MC_OK)
        return st;
    bool raw_blocks = xs && !overridden(w, y) && keep_raw(w, xs, s, false, y);
    bool raw_biomes = xs && w->tera == MC__ERA_MODERN && keep_raw(w, xs, s, true, y);
    if (w->tera == MC__ERA_MODERN && blocks_out) {
        /* 1.18+ disk: blocks max(4, ceil(log2 n)) bits, biomes ceil(log2 n), no data for one entry */
        sink c;
        if (!raw_blocks && (st = sk_compound(w, &sec, "block_states", &c)) == MC_OK) {
            st = put_paletted(w, &c, &s->blocks, false, "palette", "data", 4, MC_BITS_PADDED, false, false);
            sk_end(&c);
        }
        if (st == MC_OK && !raw_biomes && (st = sk_compound(w, &sec, "biomes", &c)) == MC_OK) {
            st = put_paletted(w, &c, &s->biomes, true, "palette", "data", 0, MC_BITS_PADDED, false, false);
            sk_end(&c);
        }
    } else if (w->tera == MC__ERA_FLAT) {
        /* 1.13-1.17 disk: max(4, ceil(log2 n)) bits, spanning before 2527 */
        if (blocks_out && !raw_blocks)
            st = put_paletted(w, &sec, &s->blocks, false, "Palette", "BlockStates", 4,
                              w->tdv >= MC_CHUNKNBT_DV_PADDED ? MC_BITS_PADDED : MC_BITS_SPANNING, true,
                              true);
    } else {
        st = put_legacy_blocks(w, &sec, s);
    }
    if (st == MC_OK)
        st = put_light(w, &sec, y, s);
    sk_end(&sec);
    return st;
}

static mc_status put_sections(writer *w, mc_nbt_tag *parent, const char *key)
{
    mc_nbt_tag *list = mc_nbt_put_list(w->doc, parent, key, MC_NBT_END);
    if (!list)
        return nomem(w);
    if (w->wr) {
        /* the list stays empty in the tree; its payload goes to the bytes,
         * its element type and count set when it is done */
        w->wr->held = list;
        w->wr->held_in = parent;
        w->wr->sections.len = 0;
        mc_buf_put(&w->wr->sections, "\0\0\0\0\0", 5);
    }
    int32_t cmin = mc_column_min_section(w->col);
    int32_t cmax = cmin + (int32_t)mc_column_section_count(w->col) - 1;
    int32_t lo = w->tmin, hi = w->tmin + w->tcount - 1;
    /* the Ys of extra entries, merged in order with the target's range
     * (visited as a sorted union, so a stray Y costs nothing) */
    size_t nx = mc_nbt_count(w->xsections), k = 0;
    int64_t *ys = malloc((nx + 1) * sizeof *ys);
    if (!ys)
        return nomem(w);
    for (mc_nbt_tag *e = mc_nbt_first(w->xsections); e; e = mc_nbt_next(e)) {
        int64_t v;
        /* sections outside the range only where the target has them */
        if (mc_nbt_get_integer(mc_nbt_get(e, "Y"), &v) == MC_OK && (v < lo || v > hi) && w->rules->edges)
            ys[k++] = v;
    }
    /* insertion sort: a handful of entries */
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && ys[j - 1] > ys[j]; j--) {
            int64_t t = ys[j];
            ys[j] = ys[j - 1];
            ys[j - 1] = t;
        }
    size_t xi = 0;
    mc_status st = MC_OK;
    int64_t next = lo;
    for (;;) {
        /* next Y: the smaller of the next extra-only Y and the next range Y */
        int64_t cur;
        if (xi < k && (next > hi || ys[xi] < next))
            cur = ys[xi++];
        else if (next <= hi)
            cur = next++;
        else
            break;
        if (xi > 0 && cur == ys[xi - 1] && xi > 1 && ys[xi - 2] == cur)
            continue; /* duplicate Y among extras: written once */
        const mc_nbt_tag *xs = w->xsections ? xsection_for(w, (int32_t)cur, NULL) : NULL;
        const mc_section *s = cur >= lo && cur <= hi ? mc_column_section_const(w->col, (int32_t)cur) : NULL;
        bool in_range = cur >= lo && cur <= hi;
        if (s) {
            st = put_section(w, list, (int32_t)cur, s, xs);
        } else if (in_range && (w->rules->every_section || (xs && !w->rules->without_blocks))) {
            /* the target is taller than the column (or has extra keys for a
             * section the target must store whole): an air section */
            mc_section air;
            mc_section_init(&air, w->sreg, NULL);
            st = put_section(w, list, (int32_t)cur, &air, xs);
            mc_section_free(&air);
        } else if (xs) {
            st = put_extra_section(w, list, xs);
        }
        if (st != MC_OK)
            break;
    }
    free(ys);
    if (st != MC_OK)
        return st;
    /* extra entries without a Y go last */
    for (mc_nbt_tag *e = mc_nbt_first(w->xsections); e; e = mc_nbt_next(e)) {
        int64_t v;
        if (mc_nbt_get_integer(mc_nbt_get(e, "Y"), &v) == MC_OK)
            continue;
        if ((st = put_extra_section(w, list, e)) != MC_OK)
            return st;
    }
    if (w->wr) {
        mc_buf *b = &w->wr->sections;
        if (!mc_buf_ok(b))
            return nomem(w);
        b->data[0] = w->sec_n ? MC_NBT_COMPOUND : MC_NBT_END;
        mc_store_u32be(b->data + 1, w->sec_n);
    }
    /* column sections the target cannot hold */
    for (int32_t y = cmin; y <= cmax; y++) {
        if (y >= lo && y <= hi)
            continue;
        const mc_section *s = mc_column_section_const(w->col, y);
        if (!section_is_air(w, s) && w->rep) {
            w->rep->dropped |= MC_CHUNKNBT_DROP_SECTIONS;
            w->rep->sections_dropped++;
            report(w, "section Y=%d (outside the target height %d..%d)", (int)y, (int)lo, (int)hi);
        }
    }
    return MC_OK;
}

/* ------------------------------------------------------------- biomes */

static int32_t sample_cell_y(const writer *w)
{
    /* 2D biomes take the cell at y=64 (sea level), or the column's bottom */
    int32_t miny = mc_column_min_y(w->col), maxy = miny + (int32_t)mc_column_height(w->col) - 1;
    int32_t y = 64 >= miny && 64 <= maxy ? 64 : miny;
    return y >> 2;
}

static mc_status put_biomes_legacy(writer *w, mc_nbt_tag *level)
{
    if (w->carry && mc_nbt_get(w->xlevel, MC__KEY_NO_BIOMES))
        return MC_OK;
    bool bytes = w->tdv < MC_CHUNKNBT_DV_FLATTENING;
    if (w->tdv < MC_CHUNKNBT_DV_BIOMES_3D) {
        /* carried 2D array of the right shape wins (the model holds 4x4 cells) */
        const mc_nbt_tag *x = w->carry ? mc_nbt_get(w->xlevel, "Biomes") : NULL;
        if (x && (w->tdv == w->sdv ||
                  (mc_nbt_count(x) == 256 && mc_nbt_tag_type(x) == (bytes ? MC_NBT_BYTE_ARRAY : MC_NBT_INT_ARRAY))))
            return MC_OK; /* copied with the extras */
        int32_t cy = sample_cell_y(w);
        int32_t v[256];
        for (int z = 0; z < 16; z++)
            for (int x2 = 0; x2 < 16; x2++)
                v[z * 16 + x2] = (int32_t)tbiome(w, mc_column_get_biome(w->col, x2 >> 2, cy, z >> 2));
        if (w->rep && mc_column_section_count(w->col) > 1)
            w->rep->dropped |= MC_CHUNKNBT_DROP_BIOME_RES;
        if (bytes) {
            int8_t b[256];
            for (int i = 0; i < 256; i++)
                b[i] = (int8_t)(v[i] & 0xFF);
            return mc_nbt_put_byte_array(w->doc, level, "Biomes", b, 256) == MC_OK ? MC_OK : nomem(w);
        }
        return mc_nbt_put_int_array(w->doc, level, "Biomes", v, 256) == MC_OK ? MC_OK : nomem(w);
    }
    const mc_nbt_tag *x = w->carry ? mc_nbt_get(w->xlevel, "Biomes") : NULL;
    if (x)
        return MC_OK; /* kept as is by the reader (did not fit the model) */
    size_t n = (size_t)w->tcount * 64;
    int32_t *v = malloc(n * sizeof *v);
    if (!v)
        return nomem(w);
    int32_t cmin = mc_column_min_section(w->col), cmax = cmin + (int32_t)mc_column_section_count(w->col) - 1;
    for (int32_t k = 0; k < w->tcount; k++) {
        int32_t sy = w->tmin + k;
        if (sy < cmin) sy = cmin;
        if (sy > cmax) sy = cmax;
        const mc_section *s = mc_column_section_const(w->col, sy);
        for (unsigned i = 0; i < 64; i++)
            v[(size_t)k * 64 + i] = (int32_t)tbiome(w, mc_container_get(&s->biomes, i));
    }
    mc_status st = mc_nbt_put_int_array(w->doc, level, "Biomes", v, n) == MC_OK ? MC_OK : nomem(w);
    free(v);
    return st;
}

/* --------------------------------------------------------- heightmaps */

static mc_status put_heightmaps(writer *w, mc_nbt_tag *level)
{
    const mc_nbt_tag *xh = w->carry ? mc_nbt_get(w->xlevel, "Heightmaps") : NULL;
    bool any = false;
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
        any |= mc_column_has_heightmap(w->col, (mc_heightmap_type)k);
    if (!any && !xh)
        return MC_OK;
    if (xh && mc_nbt_tag_type(xh) != MC_NBT_COMPOUND)
        return MC_OK; /* copied as is with the extras */
    mc_nbt_tag *h = mc_nbt_put_compound(w->doc, level, "Heightmaps");
    if (!h)
        return nomem(w);
    if (xh) {
        mc_status st = copy_keys(w, h, xh);
        if (st != MC_OK)
            return st;
    }
    bool same_range = w->tmin == mc_column_min_section(w->col) &&
                      (uint32_t)w->tcount == mc_column_section_count(w->col);
    if (!same_range)
        return MC_OK; /* values are relative to the column's bottom: the game recomputes */
    mc_bits_layout layout = w->tdv >= MC_CHUNKNBT_DV_PADDED ? MC_BITS_PADDED : MC_BITS_SPANNING;
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++) {
        mc_heightmap_type type = (mc_heightmap_type)k;
        if (!mc_column_has_heightmap(w->col, type))
            continue;
        size_t nl = mc_bits_longs(256, mc_column_heightmap_bits(w->col), layout);
        if (mc_column_heightmap_write_be(w->col, type, layout, w->be) != MC_OK)
            continue;
        mc_status st = put_longs(w, h, mc_heightmap_name(type), w->be, nl);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

static mc_status put_legacy_heightmap(writer *w, mc_nbt_tag *level)
{
    if (w->carry)
        return MC_OK; /* the original HeightMap (if any) is in the extras */
    int32_t v[256];
    for (int i = 0; i < 256; i++) {
        v[i] = 0;
        for (int y = 255; y >= 0; y--) {
            uint32_t s = mc_column_get_block(w->col, i & 15, y, i >> 4);
            if (!(mc_registry_state_flags(w->sreg, s) & MC_STATE_AIR) && s != mc_registry_air(w->sreg)) {
                v[i] = y + 1;
                break;
            }
        }
    }
    return mc_nbt_put_int_array(w->doc, level, "HeightMap", v, 256) == MC_OK ? MC_OK : nomem(w);
}

/* ----------------------------------------------------- block entities */

/* Whether a block entity at y lies in the target's height (else reported). */
static bool be_in_height(writer *w, int32_t x, int32_t y, int32_t z)
{
    if (y >= w->tmin * 16 && y < (w->tmin + w->tcount) * 16)
        return true;
    if (w->rep) {
        w->rep->dropped |= MC_CHUNKNBT_DROP_BLOCK_ENTITIES;
        w->rep->block_entities_dropped++;
    }
    report(w, "block entity at %d %d %d (outside the target height)", (int)x, (int)y, (int)z);
    return false;
}

static mc_status put_block_entities(writer *w, mc_nbt_tag *level, const char *key)
{
    size_t n = mc_column_block_entity_count(w->col);
    /* a list the reader kept is carried under the target's name (carry_key) */
    const mc_nbt_tag *xl = w->carry ? mc_nbt_get(w->xlevel, chunk_key(w->sdv, KEY_BLOCK_ENTITIES)) : NULL;
    if (w->carry && (n == 0 || mc_nbt_count(xl) > 0) && w->be_n == 0)
        return MC_OK; /* the original list (empty, kept as is, or absent) */
    mc_nbt_tag *list = mc_nbt_put_list(w->doc, level, key, MC_NBT_END);
    if (!list)
        return nomem(w);
    if (w->be_walk) {
        for (size_t i = 0; i < w->be_n; i++)
            if (w->be_out[i] && mc_nbt_list_attach(w->doc, list, w->be_out[i]) != MC_OK)
                return nomem(w);
        return MC_OK;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(w->col, i, &x, &y, &z);
        if (!be_in_height(w, x, y, z))
            continue;
        mc_nbt_tag *c = mc_nbt_copy(w->doc, t);
        if (!c || mc_nbt_list_attach(w->doc, list, c) != MC_OK)
            return nomem(w);
    }
    return MC_OK;
}

/* ------------------------------------------- block entity translation */

static mc_status be_push(writer *w, mc_nbt_tag *tag)
{
    if (w->be_n == w->be_cap) {
        size_t cap = w->be_cap ? w->be_cap * 2 : 16;
        mc_nbt_tag **n = realloc(w->be_out, cap * sizeof *n);
        if (!n)
            return nomem(w);
        w->be_out = n;
        w->be_cap = cap;
    }
    w->be_out[w->be_n++] = tag;
    return MC_OK;
}

static mc_status override_push(writer *w, int32_t x, int32_t y, int32_t z, uint32_t state)
{
    if (w->ov_n == w->ov_cap) {
        size_t cap = w->ov_cap ? w->ov_cap * 2 : 16;
        struct be_override *n = realloc(w->ov, cap * sizeof *n);
        if (!n)
            return nomem(w);
        w->ov = n;
        w->ov_cap = cap;
    }
    const int32_t sy = y >= 0 ? y / 16 : -((15 - y) / 16); /* floor(y / 16) */
    w->ov[w->ov_n++] = (struct be_override){sy, (uint16_t)mc_block_index((unsigned)x, (unsigned)y, (unsigned)z),
                                            state};
    return MC_OK;
}

/* One block entity (src NULL: made for the block) through the translation;
 * the state it decides becomes an override. */
static mc_status be_one(writer *w, const mc_be_translation *t, const mc_nbt_tag *src, int32_t x, int32_t y,
                        int32_t z)
{
    const uint32_t from = mc_column_get_block(w->col, x, y, z);
    const uint32_t mapped = w->map ? mc_registry_map_apply(w->map, w->map_count, from, w->tair) : from;
    uint32_t to = mapped;
    mc_nbt_tag *out = NULL;
    mc_status st = mc_block_entity_translate(t, src, x, y, z, from, &to, w->doc, &out);
    if (st != MC_OK)
        return mc_error_set(w->err, st, SIZE_MAX, "chunk nbt: block entity at %d %d %d: %s", (int)x, (int)y,
                            (int)z, mc_status_name(st));
    if (to != mapped && (st = override_push(w, x, y, z, to)) != MC_OK)
        return st;
    return out || src ? be_push(w, out) : MC_OK;
}

/* Blocks without a block entity that the target needs one for (1.13+ pots
 * and note blocks for 1.8-1.12, 1.8-1.11 beds for 1.12): a palette look
 * first, positions only in sections that hold such a state. */
/* mc_block_entity_needed of a state, remembered for the column (the
 * sections' palettes share most states; the question costs a name). */
typedef struct needed_memo {
    uint32_t state[64];
    bool needed[64];
} needed_memo;

static bool needed_for(needed_memo *m, const mc_be_translation *t, uint32_t state)
{
    unsigned h = (state * 2654435761u) >> 26;
    if (m->state[h] != state) {
        m->state[h] = state;
        m->needed[h] = mc_block_entity_needed(t, state);
    }
    return m->needed[h];
}

static mc_status be_made(writer *w, const mc_be_translation *t)
{
    const int32_t cmin = mc_column_min_section(w->col), cx = mc_column_x(w->col), cz = mc_column_z(w->col);
    mc_status st = MC_OK;
    needed_memo memo;
    memset(memo.state, 0xFF, sizeof memo.state); /* MC_STATE_NONE: no entry (and no block entity) */
    memset(memo.needed, 0, sizeof memo.needed);
    for (int32_t sy = w->tmin; sy < w->tmin + w->tcount && st == MC_OK; sy++) {
        const mc_section *s = mc_column_section_const(w->col, sy);
        if (!s || sy < cmin)
            continue;
        size_t plen = 0;
        const uint32_t *pal = mc_container_palette(&s->blocks, &plen);
        bool any = !pal; /* direct: look at the entries */
        for (size_t i = 0; pal && i < plen && !any; i++)
            any = needed_for(&memo, t, pal[i]);
        if (!any)
            continue;
        mc_container_get_all(&s->blocks, w->vals);
        uint32_t last = MC_STATE_NONE;
        bool last_needed = false;
        for (unsigned i = 0; i < 4096 && st == MC_OK; i++) {
            if (w->vals[i] != last) {
                last = w->vals[i];
                last_needed = needed_for(&memo, t, last);
            }
            if (!last_needed)
                continue;
            const int32_t x = cx * 16 + (int32_t)(i & 15), y = sy * 16 + (int32_t)(i >> 8),
                          z = cz * 16 + (int32_t)((i >> 4) & 15);
            if (!mc_column_block_entity(w->col, x, y, z))
                st = be_one(w, t, NULL, x, y, z);
        }
    }
    return st;
}

/* Every block entity of the column for the target's DataVersion, before
 * the sections are written (the states they decide go into them). */
static mc_status be_translate_all(writer *w)
{
    mc_be_translation t = {w->sreg, w->treg, w->be_sdv, w->tdv, w->rep ? &w->rep->block_entity_report : NULL};
    w->be_walk = true;
    mc_status st = MC_OK;
    const size_t n = mc_column_block_entity_count(w->col);
    for (size_t i = 0; i < n && st == MC_OK; i++) {
        int32_t x, y, z;
        mc_nbt_tag *tag = mc_column_block_entity_at(w->col, i, &x, &y, &z);
        if (be_in_height(w, x, y, z))
            st = be_one(w, &t, tag, x, y, z);
    }
    if (st == MC_OK)
        st = be_made(w, &t);
    if (st == MC_OK && w->rep) {
        const mc_be_report *r = &w->rep->block_entity_report;
        for (int k = 0; k < MC_BE_LOSS_COUNT; k++)
            if (r->lost[k]) {
                w->rep->dropped |= MC_CHUNKNBT_DROP_BLOCK_ENTITY_DATA;
                report(w, "block entities: %u %s not carried (DataVersion %d)", (unsigned)r->lost[k],
                       mc_be_loss_name((mc_be_loss)k), (int)w->tdv);
            }
    }
    return st;
}

/* ------------------------------------------------------------ extras */

static void report_dropped_extras(writer *w, const mc_nbt_tag *c, const char *prefix)
{
    for (mc_nbt_tag *t = mc_nbt_first(c); t; t = mc_nbt_next(t)) {
        if (is_bookkeeping(t))
            continue;
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        /* keys the writer makes from the model anyway */
#define KEY(s) {s, sizeof s - 1}
        static const struct {
            const char *key;
            size_t len;
        } regenerated[] = {KEY("Level"), KEY("DataVersion"), KEY("Heightmaps"), KEY("sections"),
                           KEY("Sections"), KEY("block_entities"), KEY("TileEntities"), KEY("Biomes"),
                           KEY("HeightMap"), KEY("xPos"), KEY("zPos"), KEY("yPos"), KEY("LastUpdate"),
                           KEY("InhabitedTime")};
#undef KEY
        bool skip = false;
        for (size_t i = 0; i < sizeof regenerated / sizeof regenerated[0] && !skip; i++)
            skip = regenerated[i].len == kl && !memcmp(k, regenerated[i].key, kl);
        if (skip)
            continue;
        if (w->rep) {
            w->rep->dropped |= MC_CHUNKNBT_DROP_EXTRA;
            w->rep->extra_dropped++;
        }
        report_dropped_key(w, prefix, k, kl);
    }
}

static const char *status_full(int32_t dv)
{
    /* 1.13 called a finished chunk "postprocessed"; 1905 renamed it "full";
     * 3450 namespaced statuses */
    if (dv < 1905)
        return "postprocessed";
    return dv < 3450 ? "full" : "minecraft:full";
}

/* Puts an empty list under `key` unless the chunk has that key already. */
static bool default_list(writer *w, mc_nbt_tag *level, const char *key, mc_nbt_type elem)
{
    return mc_nbt_get(level, key) || mc_nbt_put_list(w->doc, level, key, elem) != NULL;
}

/* Whether any section of the column holds light: what isLightOn (1.14+)
 * and LightPopulated (1.8-1.12) say, so that the game computes the light
 * of a column written without any instead of trusting its absence. */
static bool column_has_light(const mc_column *col)
{
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)i);
        if (s->sky_light || s->block_light)
            return true;
    }
    return false;
}

/* The keys a full chunk of the target has that the model does not make:
 * all of them for a converted column, the missing ones for a column built
 * in memory (its extra NBT, if any, was copied first and wins). */
static mc_status put_defaults(writer *w, mc_nbt_tag *level)
{
    mc_nbt_doc *d = w->doc;
    /* the two keys every era has with one meaning come from the source */
    int64_t last = 0, inhabited = 0;
    mc_nbt_get_integer(mc_nbt_get(w->src_level, "LastUpdate"), &last);
    mc_nbt_get_integer(mc_nbt_get(w->src_level, "InhabitedTime"), &inhabited);
    const int8_t lit = column_has_light(w->col);
    bool ok = (mc_nbt_get(level, "LastUpdate") || mc_nbt_put_long(d, level, "LastUpdate", last) == MC_OK) &&
              (mc_nbt_get(level, "InhabitedTime") ||
               mc_nbt_put_long(d, level, "InhabitedTime", inhabited) == MC_OK);
    if (w->tera == MC__ERA_LEGACY) {
        ok = ok && (mc_nbt_get(level, "TerrainPopulated") || mc_nbt_put_byte(d, level, "TerrainPopulated", 1) == MC_OK) &&
             (mc_nbt_get(level, "LightPopulated") || mc_nbt_put_byte(d, level, "LightPopulated", lit) == MC_OK) &&
             default_list(w, level, "Entities", MC_NBT_END) && default_list(w, level, "TileTicks", MC_NBT_END);
        if (w->tdv <= 0)
            ok = ok && (mc_nbt_get(level, "V") || mc_nbt_put_byte(d, level, "V", 1) == MC_OK);
    } else {
        const char *s = status_full(w->tdv);
        ok = ok && (mc_nbt_get(level, "Status") || mc_nbt_put_string(d, level, "Status", s, strlen(s)) == MC_OK);
        if (w->tdv >= 1934)
            ok = ok && (mc_nbt_get(level, "isLightOn") || mc_nbt_put_byte(d, level, "isLightOn", lit) == MC_OK);
        if (w->tdv < 2681) /* 20w45a moved entities to entities/ */
            ok = ok && default_list(w, level, "Entities", MC_NBT_END);
        /* empty tick lists, structure references and post-processing lists
         * (one per section), as a full chunk of the target has them, under
         * the names of its DataVersion (TileTicks/LiquidTicks, fluid_ticks
         * from 2841, block_ticks and structures{starts} from 2842) */
        ok = ok && default_list(w, level, chunk_key(w->tdv, KEY_BLOCK_TICKS), MC_NBT_END) &&
             default_list(w, level, chunk_key(w->tdv, KEY_FLUID_TICKS), MC_NBT_END);
        const char *skey = chunk_key(w->tdv, KEY_STRUCTURES);
        if (ok && !mc_nbt_get(level, skey)) {
            mc_nbt_tag *st = mc_nbt_put_compound(d, level, skey);
            ok = st && mc_nbt_put_compound(d, st, "References") &&
                 mc_nbt_put_compound(d, st, w->tdv >= MC__DV_RENAMES ? "starts" : "Starts");
        }
        if (ok && !mc_nbt_get(level, "PostProcessing")) {
            mc_nbt_tag *pp = mc_nbt_put_list(d, level, "PostProcessing", MC_NBT_LIST);
            for (int32_t i = 0; pp && i < w->tcount; i++)
                if (!mc_nbt_list_append(d, pp, MC_NBT_LIST))
                    pp = NULL;
            ok = pp != NULL;
        }
    }
    return ok ? MC_OK : nomem(w);
}

/* -------------------------------------------------------------- write */

/* mc_chunknbt_write, and with wr the bytes path's tree (the sections list
 * held in wr as bytes). */
static mc_status write_tree(mc_chunknbt_writer *wr, const mc_column *col, int32_t data_version, mc_nbt_doc *out,
                            mc_chunknbt_report *dropped, mc_error *err)
{
    if (!col || !out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: write needs a column and a document");
    mc_column *mcol = (mc_column *)col; /* extra/nbt accessors create lazily */
    writer w;
    memset(&w, 0, sizeof w);
    w.col = col;
    w.doc = out;
    w.err = err;
    w.rep = dropped;
    if (dropped) {
        memset(dropped, 0, sizeof *dropped);
    }
    w.sreg = mc_column_registry(col);
    if (!w.sreg)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: the column has no registry");
    w.sdv = mc_chunknbt_column_data_version(mcol);
    w.be_sdv = w.sdv;
    {
        const mc_nbt_tag *xp = mc_column_extra_peek(col);
        int32_t d;
        if (xp && mc_nbt_get_int(mc_nbt_get(xp, MC__KEY_BLOCK_ENTITIES_DV), &d) == MC_OK && d >= 0)
            w.be_sdv = d;
    }
    w.tdv = data_version == MC_CHUNKNBT_OWN_VERSION ? w.sdv : data_version;
    if (w.tdv < 0)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "chunk nbt: DataVersion %d", (int)w.tdv);
    w.treg = mc_chunknbt_registry_for(w.tdv);
    if (!w.treg)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "chunk nbt: no registry for DataVersion %d", (int)w.tdv);
    if (data_version == MC_CHUNKNBT_OWN_VERSION)
        w.treg = w.sreg;
    w.sera = mc__era_of(w.sdv);
    w.tera = mc__era_of(w.tdv);
    if (mc_registry_state_count(w.sreg) == 4096 && w.sdv >= MC_CHUNKNBT_DV_FLATTENING)
        w.sera = MC__ERA_LEGACY; /* a legacy registry's column */
    w.carry = w.sera == w.tera;
    if (w.treg != w.sreg) {
        w.map = mc_registry_map(w.sreg, w.treg);
        w.map_count = mc_registry_state_count(w.sreg);
        if (!w.map)
            return nomem(&w);
    }
    w.tair = mc_registry_air(w.treg);
    mc_nbt_tag *x = mc_column_extra(mcol);
    if (!x) /* out of memory, or deferred bytes that do not parse: nothing is written without them */
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: the column's extra NBT cannot be had");
    unsigned shape = 0;
    if (w.carry) {
        int8_t sb = 0;
        if (mc_nbt_get_byte(mc_nbt_get(x, MC__KEY_SHAPE), &sb) == MC_OK)
            shape = (uint8_t)sb;
    }
    w.xroot = x;
    /* "Level" holds the chunk keys before 2842 (ChunkRenamesFix) */
    w.swrapped = (w.sera != MC__ERA_MODERN || mc__dv_has_level(w.sdv)) && !(shape & MC__SHAPE_NO_LEVEL);
    w.twrapped = (w.tera != MC__ERA_MODERN || mc__dv_has_level(w.tdv)) && !(shape & MC__SHAPE_NO_LEVEL);
    w.xlevel = w.swrapped ? mc_nbt_get(x, "Level") : x;
    w.src_level = w.xlevel;
    if (!w.carry) {
        if (x)
            report_dropped_extras(&w, x, "");
        if (w.xlevel && w.xlevel != x)
            report_dropped_extras(&w, w.xlevel, "Level.");
        w.xroot = w.xlevel = NULL;
    }
    /* the target's height */
    /* 1.17's custom heights only exist for columns read from such a
     * chunk; a converted column gets the overworld's 0..255 before 1.18 */
    w.rules = mc__section_rules_of(w.tdv);
    if (w.rules->range == MC__RANGE_COLUMN || (w.rules->range == MC__RANGE_CARRIED && w.carry)) {
        w.tmin = mc_column_min_section(col);
        w.tcount = (int32_t)mc_column_section_count(col);
    } else {
        w.tmin = 0;
        w.tcount = 16;
    }
    const char *sec_key = chunk_key(w.tdv, KEY_SECTIONS);
    if (w.xlevel) {
        w.xsections = mc_nbt_get(w.xlevel, chunk_key(w.sdv, KEY_SECTIONS));
        if (mc_nbt_tag_type(w.xsections) != MC_NBT_LIST)
            w.xsections = NULL;
    }
    w.wr = wr;
    if (wr) {
        wr->held = wr->held_in = NULL;
        w.vals = wr->vals;
        w.idx = wr->idx;
        w.be = wr->be;
    } else {
        w.vals = malloc(4096 * sizeof *w.vals);
        w.idx = malloc(4096 * sizeof *w.idx);
        w.be = malloc(8 * 4096);
    }
    mc_status st = MC_OK;
    if (!w.vals || !w.idx || !w.be) {
        st = nomem(&w);
        goto done;
    }

    mc_nbt_doc_reset(out);
    mc_nbt_tag *root = mc_nbt_doc_new_root(out, MC_NBT_COMPOUND);
    if (!root) {
        st = nomem(&w);
        goto done;
    }
    mc_nbt_tag *level = root;
    if (w.carry && w.swrapped && w.xroot) {
        /* the root keys beside Level as read, model keys after */
        for (mc_nbt_tag *t = mc_nbt_first(w.xroot); t && st == MC_OK; t = mc_nbt_next(t)) {
            if (is_bookkeeping(t) || t == w.xlevel)
                continue;
            size_t kl;
            const char *k = mc_nbt_tag_key(t, &kl);
            mc_nbt_tag *c = mc_nbt_copy(out, t);
            if (!c || mc_nbt_attach(out, root, k, kl, c) != MC_OK)
                st = nomem(&w);
        }
    }
    if (st != MC_OK)
        goto done;
    if (w.twrapped) {
        level = mc_nbt_put_compound(out, root, "Level");
        if (!level) {
            st = nomem(&w);
            goto done;
        }
    }
    if (w.carry && w.xlevel) {
        /* the chunk keys as read (renamed where the target's DataVersion
         * names them otherwise), model keys after */
        for (mc_nbt_tag *t = mc_nbt_first(w.xlevel); t && st == MC_OK; t = mc_nbt_next(t)) {
            if (is_bookkeeping(t) || t == w.xsections)
                continue;
            size_t kl;
            const char *k = mc_nbt_tag_key(t, &kl);
            if (kl == 10 && !memcmp(k, "Heightmaps", 10) && mc_nbt_tag_type(t) == MC_NBT_COMPOUND)
                continue;
            if (level != root && key_eq(k, kl, "DataVersion"))
                continue; /* a root key (unwrapped source, wrapped target) */
            st = carry_key(&w, level, t);
        }
        if (st == MC_OK && converts_proto_ticks(&w)) {
            st = put_proto_ticks(&w, level, "ToBeTicked", chunk_key(w.tdv, KEY_BLOCK_TICKS), false);
            if (st == MC_OK)
                st = put_proto_ticks(&w, level, "LiquidsToBeTicked", chunk_key(w.tdv, KEY_FLUID_TICKS), true);
        }
    }
    if (st != MC_OK)
        goto done;
    if (w.tdv > 0) {
        if (mc_nbt_put_int(out, root, "DataVersion", w.tdv) != MC_OK)
            st = nomem(&w);
    } else {
        mc_nbt_remove(root, "DataVersion", 11);
    }
    /* a column built in memory (no source DataVersion) is written as a
     * full chunk of the target even when nothing is converted */
    if (st == MC_OK && (!w.carry || !mc_nbt_get(x, MC__KEY_SOURCE_DV)))
        st = put_defaults(&w, level);
    if (st == MC_OK && !(shape & MC__SHAPE_NO_POS) &&
        (mc_nbt_put_int(out, level, "xPos", mc_column_x(col)) != MC_OK ||
                        mc_nbt_put_int(out, level, "zPos", mc_column_z(col)) != MC_OK ||
                        (w.tera == MC__ERA_MODERN && w.tdv >= MC__DV_YPOS && !mc_nbt_get(level, "yPos") &&
                         mc_nbt_put_int(out, level, "yPos", w.tmin) != MC_OK)))
        st = nomem(&w);
    /* block entities for another DataVersion first: they decide states */
    if (st == MC_OK && w.be_sdv != w.tdv && !(w.carry && mc_nbt_count(mc_nbt_get(w.xlevel, chunk_key(w.sdv, KEY_BLOCK_ENTITIES)))))
        st = be_translate_all(&w);
    if (st == MC_OK && !(shape & MC__SHAPE_NO_SECTIONS))
        st = put_sections(&w, level, sec_key);
    if (st == MC_OK && w.light_filled && dropped) {
        dropped->light_filled = w.light_filled;
        report(&w, "light of %u sections filled (block light 0, sky light straight down from the top): "
                   "DataVersion %d stores light in every section",
               (unsigned)w.light_filled, (int)w.tdv);
    }
    if (st == MC_OK && w.tera != MC__ERA_MODERN)
        st = put_biomes_legacy(&w, level);
    if (st == MC_OK) {
        if (w.tera == MC__ERA_LEGACY)
            st = put_legacy_heightmap(&w, level);
        else
            st = put_heightmaps(&w, level);
    }
    if (st == MC_OK)
        st = put_block_entities(&w, level, chunk_key(w.tdv, KEY_BLOCK_ENTITIES));

done:
    if (!wr) {
        free(w.vals);
        free(w.idx);
        free(w.be);
    }
    free(w.bmap);
    free(w.seen);
    free(w.sky_fill);
    free(w.be_out);
    free(w.ov);
    mc_chunknbt_cache_free(w.cache);
    if (st != MC_OK)
        mc_nbt_doc_reset(out);
    return st;
}

mc_status mc_chunknbt_write(const mc_column *col, int32_t data_version, mc_nbt_doc *out,
                            mc_chunknbt_report *dropped, mc_error *err)
{
    return write_tree(NULL, col, data_version, out, dropped, err);
}

/* ------------------------------------------------------ the bytes path */

mc_chunknbt_writer *mc_chunknbt_writer_new(void)
{
    mc_chunknbt_writer *wr = calloc(1, sizeof *wr);
    if (!wr)
        return NULL;
    wr->scratch = mc_nbt_doc_new(NULL);
    wr->doc = mc_nbt_doc_new(NULL);
    wr->vals = malloc(4096 * sizeof *wr->vals);
    wr->idx = malloc(4096 * sizeof *wr->idx);
    wr->be = malloc(8 * 4096);
    if (!wr->scratch || !wr->doc || !wr->vals || !wr->idx || !wr->be) {
        mc_chunknbt_writer_free(wr);
        return NULL;
    }
    return wr;
}

static void entry_cache_free(entry_cache *c)
{
    free(c->at);
    free(c->len);
    mc_buf_free(&c->bytes);
}

void mc_chunknbt_writer_free(mc_chunknbt_writer *wr)
{
    if (!wr)
        return;
    mc_buf_free(&wr->sections);
    mc_nbt_doc_free(wr->scratch);
    mc_nbt_doc_free(wr->doc);
    entry_cache_free(&wr->blocks);
    entry_cache_free(&wr->biomes);
    free(wr->vals);
    free(wr->idx);
    free(wr->be);
    free(wr);
}

mc_status mc_chunknbt_writer_build(mc_chunknbt_writer *wr, const mc_column *col, int32_t data_version,
                                   mc_nbt_doc *out, mc_chunknbt_report *dropped, mc_error *err)
{
    if (!wr)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: no writer");
    mc_status st = write_tree(wr, col, data_version, out, dropped, err);
    if (st == MC_ERR_UNSUPPORTED) /* a section list the bytes cannot hold as the tree does */
        st = write_tree(NULL, col, data_version, out, dropped, err);
    if (st != MC_OK)
        wr->held = wr->held_in = NULL;
    return st;
}

/* A key's header from the tree (type, name), the name as it is when it
 * needs no modified-UTF-8 form (the writer's own keys always). */
static bool emit_tree_key(mc_buf *out, unsigned type, const mc_nbt_tag *t)
{
    size_t kl;
    const char *k = mc_nbt_tag_key(t, &kl);
    for (size_t i = 0; i < kl; i++)
        if (k[i] == 0 || (uint8_t)k[i] >= 0x80)
            return false;
    mc_buf_put_u8(out, (uint8_t)type);
    mc_buf_put_u16be(out, (uint16_t)kl);
    mc_buf_put(out, k, kl);
    return true;
}

/* A compound's payload from the tree, the held sections list spliced in. */
static mc_status emit_compound(const mc_chunknbt_writer *wr, const mc_nbt_tag *c, mc_buf *out, bool *found,
                               mc_error *err)
{
    for (const mc_nbt_tag *t = mc_nbt_first(c); t; t = mc_nbt_next(t)) {
        if (t == wr->held || t == wr->held_in) {
            if (!emit_tree_key(out, mc_nbt_tag_type(t), t))
                return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "chunk nbt: key not plain ASCII");
            if (t == wr->held) {
                mc_buf_put(out, wr->sections.data, wr->sections.len);
                *found = true;
                continue;
            }
            mc_status st = emit_compound(wr, t, out, found, err);
            if (st != MC_OK)
                return st;
            continue;
        }
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        mc_status st = mc_nbt_write_tag(t, k, kl, MC_NBT_JAVA, out, err);
        if (st != MC_OK)
            return st;
    }
    mc_buf_put_u8(out, MC_NBT_END);
    return MC_OK;
}

mc_status mc_chunknbt_writer_serialise(const mc_chunknbt_writer *wr, const mc_nbt_doc *doc, mc_buf *out,
                                       mc_error *err)
{
    if (!wr || !doc || !out)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: serialise needs a writer, a tree and a buffer");
    const mc_nbt_tag *root = mc_nbt_doc_root(doc);
    if (!wr->held || !root)
        return mc_nbt_write(doc, MC_NBT_JAVA, out, err); /* no sections list held */
    size_t nl;
    const char *name = mc_nbt_doc_root_name(doc, &nl);
    if (mc_nbt_tag_type(root) != MC_NBT_COMPOUND || nl)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: not the tree the writer built");
    (void)name;
    const size_t start = out->len;
    mc_buf_put(out, "\x0a\0\0", 3);
    bool found = false;
    mc_status st = emit_compound(wr, root, out, &found, err);
    if (st == MC_OK && !found)
        st = mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "chunk nbt: the sections list left the tree");
    if (st == MC_OK && !mc_buf_ok(out))
        st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
    if (st != MC_OK && mc_buf_ok(out))
        out->len = start;
    return st;
}

mc_status mc_chunknbt_writer_write_bytes(mc_chunknbt_writer *wr, const mc_column *col, int32_t data_version,
                                         mc_buf *out, mc_chunknbt_report *dropped, mc_error *err)
{
    mc_status st = mc_chunknbt_writer_build(wr, col, data_version, wr ? wr->doc : NULL, dropped, err);
    return st == MC_OK ? mc_chunknbt_writer_serialise(wr, wr->doc, out, err) : st;
}

mc_status mc_chunknbt_write_bytes(const mc_column *col, int32_t data_version, mc_buf *out,
                                  mc_chunknbt_report *dropped, mc_error *err)
{
    mc_chunknbt_writer *wr = mc_chunknbt_writer_new();
    if (!wr)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "chunk nbt: out of memory");
    mc_status st = mc_chunknbt_writer_write_bytes(wr, col, data_version, out, dropped, err);
    mc_chunknbt_writer_free(wr);
    return st;
}
