/*
 * chunknbt_cache.c: the palette-entry cache of the chunk NBT reader.
 *
 * Resolving a palette entry {Name, Properties{...}} through the registry
 * means hashing the name and matching every property; a region file holds
 * thousands of sections whose palettes repeat the same few hundred entries.
 * The cache keys an entry by its bytes as stored (name, then key=value pairs
 * in stored order, which vanilla keeps stable) in an open-addressing table
 * with linear probing, so each distinct entry meets the registry once per
 * thread. Biome names are cached the same way with a tag byte in the key.
 * Entries of every registry share the table (a slot names its registry), so
 * a world whose chunks were saved by several game versions does not empty
 * the cache at every change of DataVersion.
 */
#include "chunknbt/chunknbt_private.h"

#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

/* SSE2 is part of every x86-64 CPU: no run-time dispatch needed. */
#if defined(__SSE2__) && !defined(MC_PORTABLE)
#include <emmintrin.h>
#define CACHE_SSE2 1
#else
#define CACHE_SSE2 0
#endif

/* 16 bytes, so the table of a thread that met tens of thousands of
 * distinct entries (a world of every block state: 57,000 in the corpus)
 * takes 2 MB, not 4: every look-up's first probe is a cache miss into it,
 * and its pages are first-touch faults. The key's length and bytes are
 * in `keys` ([u32 length][bytes] at off). */
typedef struct slot {
    uint32_t hash;   /* the low 32 bits of the key's hash; 0: empty */
    uint32_t off;    /* of the key's record in keys */
    uint32_t value;
    uint16_t reg;    /* index in regs */
    int16_t status;  /* mc_status of the lookup */
} slot;

struct mc_chunknbt_cache {
    const mc_allocator *alloc;
    slot *slots;
    size_t cap, used; /* cap: power of two */
    char *keys;
    size_t keys_len, keys_cap;
    const mc_registry **regs; /* the registries keys were looked up in */
    size_t nregs, regs_cap, last_reg;
    char *scratch;
    size_t scratch_cap;
    mc_nbt_doc *doc; /* for entries met as raw bytes (mc__cache_block_raw) */
    uint16_t *legacy_slots; /* mc__cache_legacy_slots: all zero between uses */
};

/* The key bytes and the table of a thread that met tens of thousands of
 * entries reach 8 and 2 MiB, first touched page by page as they fill: a
 * converter's 4 KiB faults in them were 2,000 of its 6,300 over the corpus.
 * Blocks of 2 MiB and more (both double from below that, so they are whole
 * multiples of it) are mapped 2 MiB-aligned with transparent huge pages
 * asked for: one fault per 2 MiB where the system grants them (THP
 * "madvise" or "always"), else the same small pages as before. Only with
 * the default allocator: a caller's own allocator gets every block. */
#ifdef MADV_HUGEPAGE
#define HUGE_BLOCK ((size_t)2 << 20)
#endif

static bool is_huge(const mc_chunknbt_cache *c, size_t n)
{
#ifdef HUGE_BLOCK
    return n >= HUGE_BLOCK && c->alloc == mc_default_allocator();
#else
    (void)c, (void)n;
    return false;
#endif
}

static void *block_alloc(mc_chunknbt_cache *c, size_t n)
{
#ifdef HUGE_BLOCK
    if (is_huge(c, n)) {
        const size_t span = n + HUGE_BLOCK;
        uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        uint8_t *p = m + ((HUGE_BLOCK - ((uintptr_t)m & (HUGE_BLOCK - 1))) & (HUGE_BLOCK - 1));
        if (p > m)
            munmap(m, (size_t)(p - m));
        if (m + span > p + n)
            munmap(p + n, (size_t)(m + span - (p + n)));
        madvise(p, n, MADV_HUGEPAGE); /* advice only: refused, the block is just made of small pages */
        return p;
    }
#endif
    return c->alloc->alloc(c->alloc->user, n);
}

static void block_free(mc_chunknbt_cache *c, void *p, size_t n)
{
    if (!p)
        return;
#ifdef HUGE_BLOCK
    if (is_huge(c, n)) {
        munmap(p, n);
        return;
    }
#endif
    c->alloc->free(c->alloc->user, p, n);
}

mc_chunknbt_cache *mc_chunknbt_cache_new(const mc_allocator *alloc)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    mc_chunknbt_cache *c = a->alloc(a->user, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->alloc = a;
    return c;
}

void mc_chunknbt_cache_free(mc_chunknbt_cache *c)
{
    if (!c)
        return;
    const mc_allocator *a = c->alloc;
    block_free(c, c->slots, c->cap * sizeof *c->slots);
    block_free(c, c->keys, c->keys_cap);
    if (c->regs)
        a->free(a->user, c->regs, c->regs_cap * sizeof *c->regs);
    if (c->scratch)
        a->free(a->user, c->scratch, c->scratch_cap);
    mc_nbt_doc_free(c->doc);
    if (c->legacy_slots)
        a->free(a->user, c->legacy_slots, MC__LEGACY_STATES * sizeof *c->legacy_slots);
    a->free(a->user, c, sizeof *c);
}

/* The key's bytes and its registry; the low 32 bits never 0. Keys of 16 to 64 bytes (most
 * palette entries) are read as eight words at offsets clamped into the key
 * (overlapping when it is shorter: still a function of its bytes), with no
 * branch on the length: the entries of a palette have lengths a branch
 * predictor cannot learn, and a mispredicted loop exit per key cost more
 * than the whole hash. Longer keys go 16 bytes a step; shorter ones a word
 * or a byte loop. Two multiply lanes, then a full avalanche. Equality is
 * always checked byte for byte, so any mix of the bytes is correct. */
static uint64_t hash_bytes(const char *key, size_t n, const mc_registry *reg)
{
    const uint8_t *p = (const uint8_t *)key;
    uint64_t h1 = 0x9E3779B97F4A7C15ull ^ n, h2 = 0xC2B2AE3D27D4EB4Full ^ (uint64_t)(uintptr_t)reg;
    /* 16 bytes at offset o, one word into each lane */
#define MIX16(o) (h1 = (h1 ^ mc_load_u64le(p + (o))) * 0xff51afd7ed558ccdull, \
                  h2 = (h2 ^ mc_load_u64le(p + (o) + 8)) * 0xc4ceb9fe1a85ec53ull)
    if (n >= 16 && n <= 64) {
        size_t m, t;
        mc__middle16(n, &m, &t);
        MIX16(0);
        MIX16(m);
        MIX16(t);
        MIX16(n - 16);
    } else if (n > 64) {
        size_t i = 0;
        for (; i + 16 < n; i += 16)
            MIX16(i);
        MIX16(n - 16);
    } else if (n >= 8) {
        h1 = (h1 ^ mc_load_u64le(p)) * 0xff51afd7ed558ccdull;
        h2 = (h2 ^ mc_load_u64le(p + n - 8)) * 0xc4ceb9fe1a85ec53ull;
    } else {
        uint64_t t = 0;
        for (size_t k = 0; k < n; k++)
            t |= (uint64_t)p[k] << (8 * k);
        h1 = (h1 ^ t) * 0xff51afd7ed558ccdull;
    }
#undef MIX16
    uint64_t h = h1 ^ (h2 << 31 | h2 >> 33);
    h ^= h >> 32;
    h *= 0x9FB21C651E98DF25ull;
    h ^= h >> 29;
    return (uint32_t)h ? h : h | 1; /* slots keep the low 32 bits, 0 marking an empty one */
}

static bool grow(mc_chunknbt_cache *c)
{
    size_t ncap = c->cap ? c->cap * 2 : 1024;
    slot *ns = block_alloc(c, ncap * sizeof *ns);
    if (!ns)
        return false;
    memset(ns, 0, ncap * sizeof *ns);
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->slots[i].hash)
            continue;
        size_t j = c->slots[i].hash & (ncap - 1); /* ncap <= 2^32: the stored bits place it */
        while (ns[j].hash)
            j = (j + 1) & (ncap - 1);
        ns[j] = c->slots[i];
    }
    block_free(c, c->slots, c->cap * sizeof *c->slots);
    c->slots = ns;
    c->cap = ncap;
    return true;
}

/* reg_index's slow path: a search of regs, reg added when not there. */
static long reg_index_add(mc_chunknbt_cache *c, const mc_registry *reg)
{
    for (size_t i = 0; i < c->nregs; i++)
        if (c->regs[i] == reg)
            return (long)(c->last_reg = i);
    if (c->nregs == UINT16_MAX + 1u)
        return -1;
    if (c->nregs == c->regs_cap) {
        size_t ncap = c->regs_cap ? c->regs_cap * 2 : 8;
        const mc_registry **nr = c->alloc->realloc(c->alloc->user, c->regs, c->regs_cap * sizeof *nr,
                                                   ncap * sizeof *nr);
        if (!nr)
            return -1;
        c->regs = nr;
        c->regs_cap = ncap;
    }
    c->regs[c->nregs] = reg;
    return (long)(c->last_reg = c->nregs++);
}

/* The index of reg in c->regs, added at first meeting; -1 when the cache
 * cannot take another (no memory, or 65,536 registries already). Nearly
 * always the registry of the call before. */
static inline long reg_index(mc_chunknbt_cache *c, const mc_registry *reg)
{
    if (c->last_reg < c->nregs && c->regs[c->last_reg] == reg)
        return (long)c->last_reg;
    return reg_index_add(c, reg);
}

static uint32_t stored_len(const mc_chunknbt_cache *c, const slot *s)
{
    uint32_t n;
    memcpy(&n, c->keys + s->off, sizeof n);
    return n;
}

/* Finds key; returns the slot or NULL (then *insert_at is where it goes). */
static slot *find(mc_chunknbt_cache *c, uint16_t reg, const char *key, size_t len, uint64_t h,
                  size_t *insert_at)
{
    if (!c->cap)
        return NULL;
    const uint32_t h32 = (uint32_t)h;
    size_t j = h32 & (c->cap - 1);
    while (c->slots[j].hash) {
        slot *s = &c->slots[j];
        if (s->hash == h32 && s->reg == reg && stored_len(c, s) == len &&
            mc__bytes_equal(c->keys + s->off + 4, key, len))
            return s;
        j = (j + 1) & (c->cap - 1);
    }
    *insert_at = j;
    return NULL;
}

/* Where a find() that missed said the key goes, and the table's size
 * and fill then: the place holds while the table neither grew nor took a
 * key since (a miss may insert other keys first: mc__cache_block_raw's
 * parsed path); else insert() probes again. reg < 0: the key is not to be
 * cached (see reg_index). */
typedef struct miss {
    size_t at, used, cap;
    long reg;
} miss;

static inline slot *find_or_miss(mc_chunknbt_cache *c, const mc_registry *reg, const char *key, size_t len, uint64_t h,
                                 miss *m)
{
    m->at = 0;
    m->used = c->used;
    m->cap = c->cap;
    m->reg = reg_index(c, reg);
    return m->reg < 0 ? NULL : find(c, (uint16_t)m->reg, key, len, h, &m->at);
}

static void insert(mc_chunknbt_cache *c, const char *key, size_t len, uint64_t h, miss m, uint32_t value,
                   mc_status st)
{
    if (m.reg < 0 || ((c->used + 1) * 2 > c->cap && !grow(c)))
        return; /* a cache that cannot grow just stops caching */
    size_t at = m.at;
    if ((m.used != c->used || m.cap != c->cap) && find(c, (uint16_t)m.reg, key, len, h, &at))
        return;
    const size_t need = c->keys_len + 4 + len;
    if (need > UINT32_MAX)
        return; /* off is 32 bits */
    if (need > c->keys_cap) {
        size_t ncap = c->keys_cap ? c->keys_cap * 2 : 16384;
        while (ncap < need)
            ncap *= 2;
        char *nk;
        if (is_huge(c, ncap)) {
            if (!(nk = block_alloc(c, ncap)))
                return;
            memcpy(nk, c->keys, c->keys_len);
            block_free(c, c->keys, c->keys_cap);
        } else if (!(nk = c->alloc->realloc(c->alloc->user, c->keys, c->keys_cap, ncap))) {
            return;
        }
        c->keys = nk;
        c->keys_cap = ncap;
    }
    const uint32_t len32 = (uint32_t)len;
    memcpy(c->keys + c->keys_len, &len32, 4);
    memcpy(c->keys + c->keys_len + 4, key, len);
    slot s = {(uint32_t)h, (uint32_t)c->keys_len, value, (uint16_t)m.reg, (int16_t)st};
    c->slots[at] = s;
    c->keys_len = need;
    c->used++;
}

static bool scratch_reserve(mc_chunknbt_cache *c, size_t n)
{
    if (n <= c->scratch_cap)
        return true;
    size_t ncap = c->scratch_cap ? c->scratch_cap : 256;
    while (ncap < n)
        ncap *= 2;
    char *ns = c->alloc->realloc(c->alloc->user, c->scratch, c->scratch_cap, ncap);
    if (!ns)
        return false;
    c->scratch = ns;
    c->scratch_cap = ncap;
    return true;
}

#define MAX_PROPS 64

mc_status mc__cache_block(mc_chunknbt_cache *c, const mc_registry *reg, const mc_nbt_tag *entry,
                          uint32_t *state, mc_error *err)
{
    const char *name = NULL;
    size_t name_len = 0;
    const mc_nbt_tag *props_tag = NULL;
    if (mc_nbt_tag_type(entry) != MC_NBT_COMPOUND)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette entry is not a compound");
    for (mc_nbt_tag *t = mc_nbt_first(entry); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        if (kl == 4 && !memcmp(k, "Name", 4)) {
            if (mc_nbt_get_string(t, &name, &name_len) != MC_OK)
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette entry Name is not a string");
        } else if (kl == 10 && !memcmp(k, "Properties", 10)) {
            props_tag = t;
        }
    }
    if (!name)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette entry without Name");
    mc_state_prop props[MAX_PROPS];
    size_t np = 0;
    size_t key_len = 1 + name_len;
    if (props_tag) {
        if (mc_nbt_tag_type(props_tag) != MC_NBT_COMPOUND)
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette entry Properties is not a compound");
        for (mc_nbt_tag *t = mc_nbt_first(props_tag); t; t = mc_nbt_next(t)) {
            if (np == MAX_PROPS)
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "palette entry with over %d properties", MAX_PROPS);
            props[np].key = mc_nbt_tag_key(t, &props[np].key_len);
            if (mc_nbt_get_string(t, &props[np].value, &props[np].value_len) != MC_OK)
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "property %.*s of %.*s is not a string",
                                    (int)(props[np].key_len > 64 ? 64 : props[np].key_len), props[np].key,
                                    (int)(name_len > 64 ? 64 : name_len), name);
            key_len += props[np].key_len + props[np].value_len + 2;
            np++;
        }
    }
    if (!scratch_reserve(c, key_len))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    char *k = c->scratch;
    size_t p = 0;
    k[p++] = 'B';
    memcpy(k + p, name, name_len);
    p += name_len;
    for (size_t i = 0; i < np; i++) {
        k[p++] = '\0';
        memcpy(k + p, props[i].key, props[i].key_len);
        p += props[i].key_len;
        k[p++] = '=';
        memcpy(k + p, props[i].value, props[i].value_len);
        p += props[i].value_len;
    }
    uint64_t h = hash_bytes(k, p, reg);
    miss m;
    slot *s = find_or_miss(c, reg, k, p, h, &m);
    if (s) {
        *state = s->value;
        return (mc_status)s->status;
    }
    uint32_t st_id = 0;
    mc_status st = mc_registry_lookup(reg, name, name_len, props, np, &st_id, NULL);
    if (st != MC_OK && st != MC_ERR_NOT_FOUND)
        return mc_error_set(err, st, SIZE_MAX, "registry lookup failed");
    insert(c, k, p, h, m, st_id, st);
    *state = st_id;
    return st;
}

/* 1 in each byte of w that is 0, else 0 (exact: no carry crosses a byte). */
static inline uint64_t zero_flags(uint64_t w)
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
    return (~(((w & low7) + low7) | w) & ~low7) >> 7;
}

/* How many bytes of entry[0..len) are 0 (len at most 2040: a byte lane
 * of the sum counts to 255); false when any is 0x80 or more. Eight bytes
 * a step, the last few as the entry's last 8 bytes with those already
 * counted shifted out (and 1s shifted in). */
#if CACHE_SSE2
/* count_zero_bytes sixteen bytes a step (len 16..2040): a lane of the
 * count takes 1 per 0 byte met in it, at most 128 over 2040 bytes; the
 * last bytes are the entry's last 16 with the lanes already counted set
 * to 1 (a 1 changes neither test). */
static bool count_zero_bytes16(const uint8_t *entry, size_t len, size_t *zeros)
{
    static const uint8_t counted[32] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const __m128i zero = _mm_setzero_si128();
    __m128i count = zero, any = zero;
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(entry + i));
        any = _mm_or_si128(any, w);
        count = _mm_sub_epi8(count, _mm_cmpeq_epi8(w, zero)); /* a 0 byte's lane is -1 */
    }
    if (i < len) {
        const size_t done = 16 - (len - i); /* lanes of the last 16 bytes counted already: 1..15 */
        const __m128i w = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(entry + len - 16)),
                                       _mm_loadu_si128((const __m128i *)(const void *)(counted + 16 - done)));
        any = _mm_or_si128(any, w);
        count = _mm_sub_epi8(count, _mm_cmpeq_epi8(w, zero));
    }
    const __m128i sums = _mm_sad_epu8(count, zero); /* two 64-bit lanes, each the sum of 8 bytes */
    *zeros = (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    return _mm_movemask_epi8(any) == 0;
}
#endif

static bool count_zero_bytes(const uint8_t *entry, size_t len, size_t *zeros)
{
#if CACHE_SSE2
    if (len >= 16)
        return count_zero_bytes16(entry, len, zeros);
#endif
    uint64_t any = 0, sum = 0;
    size_t i = 0;
    if (len < 8) {
        for (; i < len; i++) {
            any |= entry[i];
            sum += entry[i] == 0;
        }
        *zeros = (size_t)sum;
        return !(any & 0x80);
    }
    for (; i + 8 <= len; i += 8) {
        const uint64_t w = mc_load_u64le(entry + i);
        any |= w;
        sum += zero_flags(w);
    }
    if (i < len) {
        const unsigned done = (unsigned)(8 - (len - i)) * 8; /* bits of the last word counted already: 8..56 */
        const uint64_t w = mc_load_u64le(entry + len - 8) >> done | 0x0101010101010101ull << (64 - done);
        any |= w;
        sum += zero_flags(w);
    }
    /* the byte lanes added: pairs into 16-bit lanes, then those */
    sum = (sum & 0x00FF00FF00FF00FFull) + (sum >> 8 & 0x00FF00FF00FF00FFull);
    *zeros = (size_t)((sum * 0x0001000100010001ull) >> 48);
    return !(any & 0x8080808080808080ull);
}

/* A u16-length-prefixed run of bytes at entry[*p], within len (false
 * otherwise); the length's 0 bytes are added to *zeros. */
static inline bool take_text(const uint8_t *entry, size_t len, size_t *p, const char **s, size_t *n, size_t *zeros)
{
    if (len - *p < 2)
        return false;
    *zeros += (size_t)(entry[*p] == 0) + (entry[*p + 1] == 0);
    *n = mc_load_u16be(entry + *p);
    *p += 2;
    if (len - *p < *n)
        return false;
    *s = (const char *)entry + *p;
    *p += *n;
    return true;
}

/* The game's shape of a palette entry, {Name: string, Properties?:
 * {key: string ...}} in ASCII, read straight from its bytes: the name
 * and the properties in stored order, as mc__cache_block takes them from
 * the tree. False for anything else (the parse then reads it). The text
 * is checked once for the whole entry, not string by string: no byte of
 * it may be 0x80 or more (a length of 128 or more goes to the parse too,
 * which reads it the same), and its 0 bytes must all be the structure's
 * (end tags, lengths' bytes), none inside a string (modified UTF-8 has no
 * 0 byte; ASCII 1..127 is the same in it and in UTF-8). An entry over
 * 2040 bytes goes to the parse as well. */
static bool plain_entry(const uint8_t *entry, size_t len, const char **name, size_t *name_len,
                        mc_state_prop *props, size_t *np)
{
    size_t p = 0, zeros = 0, structural = 0;
    bool have_props = false;
    *name = NULL;
    *np = 0;
    if (len > 2040 || !count_zero_bytes(entry, len, &zeros))
        return false;
    for (;;) {
        if (p >= len)
            return false;
        const unsigned t = entry[p++];
        if (t == MC_NBT_END)
            return p == len && *name && structural + 1 == zeros;
        const char *k;
        size_t kl;
        if (!take_text(entry, len, &p, &k, &kl, &structural))
            return false;
        if (t == MC_NBT_STRING && kl == 4 && !memcmp(k, "Name", 4) && !*name) {
            if (!take_text(entry, len, &p, name, name_len, &structural))
                return false;
        } else if (t == MC_NBT_COMPOUND && kl == 10 && !memcmp(k, "Properties", 10) && !have_props) {
            have_props = true;
            for (;;) {
                if (p >= len)
                    return false;
                const unsigned pt = entry[p++];
                if (pt == MC_NBT_END) {
                    structural++;
                    break;
                }
                if (pt != MC_NBT_STRING || *np == MAX_PROPS)
                    return false;
                mc_state_prop *q = &props[(*np)++];
                if (!take_text(entry, len, &p, &q->key, &q->key_len, &structural) ||
                    !take_text(entry, len, &p, &q->value, &q->value_len, &structural))
                    return false;
            }
        } else {
            return false;
        }
    }
}

mc_status mc__cache_block_raw(mc_chunknbt_cache *c, const mc_registry *reg, const uint8_t *entry,
                              size_t len, uint32_t *state)
{
    /* keyed by the bytes themselves: they start with a tag type (1-12),
     * never with the 'B' / 'b' of the built keys */
    if (len > UINT32_MAX - 4 || !len)
        return MC_ERR_MALFORMED;
    const char *key = (const char *)entry;
    uint64_t h = hash_bytes(key, len, reg);
    miss m;
    slot *s = find_or_miss(c, reg, key, len, h, &m);
    if (s) {
        *state = s->value;
        return (mc_status)s->status;
    }
    /* a miss: the common shape read from the bytes, else the entry
     * parsed as an NBT root (TAG_Compound, empty name) */
    const char *name;
    size_t name_len = 0, np = 0;
    mc_state_prop props[MAX_PROPS];
    uint32_t id = 0;
    mc_status st;
    if (plain_entry(entry, len, &name, &name_len, props, &np)) {
        st = mc_registry_lookup(reg, name, name_len, props, np, &id, NULL);
    } else {
        if (!c->doc && !(c->doc = mc_nbt_doc_new(c->alloc)))
            return MC_ERR_NOMEM;
        if (!scratch_reserve(c, len + 3))
            return MC_ERR_NOMEM;
        c->scratch[0] = MC_NBT_COMPOUND;
        c->scratch[1] = c->scratch[2] = 0;
        memcpy(c->scratch + 3, entry, len);
        /* a copying parse: mc__cache_block builds its key in the scratch */
        st = mc_nbt_parse_ex(c->doc, c->scratch, len + 3, MC_NBT_JAVA, MC_NBT_PARSE_COPY, NULL, NULL, NULL);
        if (st == MC_OK)
            st = mc__cache_block(c, reg, mc_nbt_doc_root(c->doc), &id, NULL);
    }
    if (st == MC_ERR_NOMEM)
        return st;
    if (st != MC_OK && st != MC_ERR_NOT_FOUND)
        st = MC_ERR_MALFORMED;
    insert(c, key, len, h, m, id, st);
    *state = id;
    return st;
}

mc_status mc_chunknbt_cache_block_bytes(mc_chunknbt_cache *cache, const mc_registry *reg, const uint8_t *entry,
                                         size_t len, uint32_t *state)
{
    if (!cache || !reg || !entry || !state)
        return MC_ERR_INVALID_ARG;
    mc_status st = mc__cache_block_raw(cache, reg, entry, len, state);
    if (st == MC_ERR_NOT_FOUND)
        *state = mc_registry_air(reg);
    return st;
}

mc_status mc__cache_biome(mc_chunknbt_cache *c, const mc_registry *reg, const char *name, size_t len,
                          uint32_t *id)
{
    if (!scratch_reserve(c, len + 2))
        return MC_ERR_NOMEM;
    c->scratch[0] = 'b';
    memcpy(c->scratch + 1, name, len);
    uint64_t h = hash_bytes(c->scratch, len + 1, reg);
    miss m;
    slot *s = find_or_miss(c, reg, c->scratch, len + 1, h, &m);
    if (s) {
        *id = s->value;
        return (mc_status)s->status;
    }
    /* mc_registry_biome_id wants a C string */
    c->scratch[len + 1] = '\0';
    uint32_t v = mc_registry_biome_id(reg, c->scratch + 1);
    mc_status st = v == MC_STATE_NONE ? MC_ERR_NOT_FOUND : MC_OK;
    if (st != MC_OK)
        v = 0;
    insert(c, c->scratch, len + 1, h, m, v, st);
    *id = v;
    return st;
}

size_t mc__cache_entries(const mc_chunknbt_cache *c)
{
    return c->used;
}

uint16_t *mc__cache_legacy_slots(mc_chunknbt_cache *c)
{
    if (!c->legacy_slots) {
        c->legacy_slots = c->alloc->alloc(c->alloc->user, MC__LEGACY_STATES * sizeof *c->legacy_slots);
        if (c->legacy_slots)
            memset(c->legacy_slots, 0, MC__LEGACY_STATES * sizeof *c->legacy_slots);
    }
    return c->legacy_slots;
}

mc_container_rules mc__block_rules(const mc_registry *reg)
{
    return mc_container_rules_blocks(mc_registry_direct_bits(reg));
}

mc_container_rules mc__biome_rules(const mc_registry *reg)
{
    unsigned b = mc_registry_biome_direct_bits(reg);
    if (mc_registry_biome_count(reg) > 0 && mc_registry_state_count(reg) == 4096 && b < 8)
        b = 8; /* legacy numeric biome ids are bytes */
    return mc_container_rules_biomes(b ? b : 1);
}
