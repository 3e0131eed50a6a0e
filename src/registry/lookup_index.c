/*
 * lookup_index.c: the fast path of mc_registry_lookup (name + properties ->
 * state) for flattened registries.
 *
 * The generic lookup (registry.c) compares strings byte by byte: find the
 * block by name, find each key among the block's properties, scan the
 * property's values. On a shuffled workload each of those loops ends at an
 * unpredictable place, and the mispredicted branches and the several
 * tables it walks cost more than the work. This index reduces every string
 * to a fixed-size "canonical form" (see canon()) that equals another
 * string's form exactly when the strings are equal, so a comparison is a
 * few word compares and a search is one probe:
 *
 *   names   open addressing over 64-bit slots, at most a third full: the
 *           upper half a fingerprint of the name's hash, the lower half
 *           where the block's record is in the blob.
 *   blob    one record per block: canonical name, first state, the default
 *           state's offset, its keys' buckets (16 nibbles: key hash ->
 *           property index, a rotation of the hash chosen per block so its
 *           keys do not share one), then per property (the game's order) its key
 *           (an index into keys), its default value index, its stride in the
 *           mixed-radix state numbering and its value list's hash.
 *   perm    Bedrock blocks whose states are listed in an order of their own
 *           (most of them): mixed-radix index -> the state's offset, so
 *           they need no search either.
 *   keys    the canonical form of every key the registry uses (a hundred or
 *           so: they stay in the L1 cache).
 *   values  per value list (property definition) a perfect hash table:
 *           value v sits alone in slot base + (mix(v) * mult) >> shift,
 *           where mult was searched for when the index was built, so a
 *           lookup probes exactly one slot and compares it.
 *
 * A lookup then costs a name hash, one slot, one record, and per given
 * property one key compare (the key's bucket in the record names the one
 * property that can hold it, whatever order the caller lists them in) and
 * one value probe. The state is the
 * default state moved by (value - default) x stride per given property, so
 * properties not given keep their default without a pass over them.
 *
 * Anything the index does not cover returns false and the generic path
 * answers (and explains errors): keys or values longer than 32 bytes (none
 * in today's data), a key given twice, a value list without a perfect hash
 * (the build found none; none in today's data), a listed Bedrock block too
 * sparse for a permutation table (none today), unknown names and values.
 * Built once per registry with the rest of its runtime index (registry.c),
 * read-only afterwards.
 */
#include "registry/reg_private.h"

#include <stdatomic.h>
#include <stdlib.h>

#define CANON_MAX 32 /* strings up to this length have an exact canonical form */

#if defined(__GNUC__)
#define LK_COLD __attribute__((cold, noinline))
#else
#define LK_COLD
#endif

/* A property of a block record. */
typedef struct {
    uint64_t mult;   /* the value list's perfect hash; 0: none (every probe lands on empty slot 0) */
    uint32_t stride; /* mixed-radix weight of one value step (0 for ORDER_SCAN blocks) */
    uint32_t base;   /* the value list's first slot */
    uint16_t key;    /* index in the key table */
    uint8_t shift;
    uint8_t def;     /* the default state's value index */
    uint8_t pad[4];
} lk_prop;

/* How a block numbers its states. */
enum {
    ORDER_RADIX = 0, /* mixed radix over its properties (every Java block) */
    ORDER_PERM = 1,  /* listed (Bedrock "explicit" kinds): the mixed-radix index goes through perm */
    ORDER_SCAN = 2   /* listed, no perm table (too sparse): mc__kind_offset searches */
};

/* A block record; its nprops lk_prop records follow it. */
typedef struct {
    uint64_t name[4]; /* canonical bare name (without "minecraft:") */
    uint32_t first;   /* first state id of the block */
    uint32_t perm;    /* ORDER_PERM: mixed-radix index -> state offset at rt->lk_perm[perm + index] */
    uint16_t default_off; /* the default state's mixed-radix index */
    uint16_t block;
    uint8_t name_len; /* bare length; 255: only the generic path finds this block */
    uint8_t nprops;
    uint8_t order;    /* ORDER_* */
    uint8_t key_rot;  /* key_slots' bucket of a key: (key_hash >> key_rot) & 15 */
    uint64_t key_slots; /* 16 nibbles: bucket -> the property index holding that key (15: none) */
} lk_block;

struct mc__lk_key {
    uint64_t w[4]; /* canonical key */
    uint32_t len;  /* UINT32_MAX: too long, never equal */
    uint32_t name; /* string offset (while building) */
};

struct mc__lk_value {
    uint64_t w0, w3; /* words 0 and 3 of value_canon(); 1 and 2 (0 up to 16
                        bytes) are in rt->lk_value_mid, read for long values only */
    uint32_t len;    /* UINT32_MAX: empty */
    uint32_t index;
};

_Static_assert(sizeof(lk_prop) == 24 && sizeof(lk_block) == 56, "compact records, 8-byte aligned");
_Static_assert(MC__MAX_PROPS <= 32, "the seen-mask is 32 bits");

static inline uint64_t load8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t load4(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Word 0 of the canonical form of a string shorter than 8 bytes. */
static inline uint64_t canon_short(const char *p, size_t n)
{
    if (n >= 4)
        return load4(p) | load4(p + n - 4) << 32;
    if (n)
        return (uint64_t)(uint8_t)p[0] | (uint64_t)(uint8_t)p[n >> 1] << 8 | (uint64_t)(uint8_t)p[n - 1] << 16;
    return 0;
}

/*
 * The canonical form of a string of length n: four words read from it
 * without reading outside it. For 8 <= n <= 32 they are the 8 bytes at
 * offsets 0, a, n-8-a and n-8 with a = ceil((n-8)/3), gaps of at most 8, so
 * every byte is in some word; for 4 <= n < 8 word 0 is the 4 bytes at 0 and
 * at n-4, below that bytes 0, n/2 and n-1, and the other words are 0. The
 * positions depend on n alone and cover every byte, so two strings of one
 * length are equal exactly when their forms are. Up to 16 bytes words 0
 * and 3 already cover every byte (canon2 computes just those). Past 32
 * bytes the words are a sample: good for hashing, but equality then needs
 * a full compare.
 */
static inline void canon(const char *p, size_t n, uint64_t w[4])
{
    if (n >= 8) {
        size_t a = (n - 6) / 3;
        w[0] = load8(p);
        w[1] = load8(p + a);
        w[2] = load8(p + n - 8 - a);
        w[3] = load8(p + n - 8);
    } else {
        w[0] = canon_short(p, n);
        w[1] = w[2] = w[3] = 0;
    }
}

/* Words 0 and 3 of the canonical form. */
static inline void canon2(const char *p, size_t n, uint64_t *lo, uint64_t *hi)
{
    if (n >= 8) {
        *lo = load8(p);
        *hi = load8(p + n - 8);
    } else {
        *lo = canon_short(p, n);
        *hi = 0;
    }
}

/* The canonical form of a value: up to 16 bytes words 0 and 3 cover it
 * and words 1 and 2 are left 0 (two loads instead of four, for almost
 * every value); longer values (up to 27 bytes today) take all four. */
static inline void value_canon(const char *p, size_t n, uint64_t w[4])
{
    if (n <= 16) {
        canon2(p, n, &w[0], &w[3]);
        w[1] = w[2] = 0;
    } else {
        canon(p, n, w);
    }
}

static inline bool same4(const uint64_t a[4], const uint64_t b[4])
{
    return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}

static inline uint64_t rotl(uint64_t x, unsigned r) { return x << r | x >> (64 - r); }

/* One multiply: the hash is on the critical path of every lookup, and the
 * table is sparse enough that a plain mix does. Slot: low bits; fingerprint:
 * the upper half. */
static inline uint64_t name_hash(const uint64_t w[4], uint64_t len)
{
    uint64_t h = (w[0] ^ rotl(w[1], 16) ^ rotl(w[2], 32) ^ rotl(w[3], 48) ^ len) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

/* The word a value list's perfect hash multiplies. Distinct values of one
 * list give distinct words (the length keeps "2" and "12" apart); the build
 * checks, since a collision would leave the list without a perfect hash. */
static inline uint64_t value_mix(const uint64_t w[4], uint64_t len)
{
    return w[0] ^ rotl(w[3], 29) ^ rotl(w[1], 13) ^ rotl(w[2], 43) ^ len << 56;
}

static inline uint32_t value_slot(uint64_t mult, uint32_t base, unsigned shift, const uint64_t w[4], uint64_t len)
{
    return base + (uint32_t)((value_mix(w, len) * mult) >> shift);
}

/* A key's hash for the per-block key buckets (words 0 and 3 and the length
 * tell keys apart up to 16 bytes; longer keys are checked in full anyway). */
static inline uint64_t key_hash(uint64_t w0, uint64_t w3, uint64_t len)
{
    return (w0 ^ rotl(w3, 31) ^ len << 56) * 0x9E3779B97F4A7C15ull;
}

static size_t record_size(const mc__kind *k) { return sizeof(lk_block) + (size_t)k->nprops * sizeof(lk_prop); }

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A value list's perfect hash, while building. */
typedef struct {
    uint64_t mult; /* 0: none found */
    uint32_t base;
    uint8_t shift;
} list_plan;

enum { PLAN_TRIES = 2048, PLAN_MAX_BITS = 8 };

/* Finds a multiplier that puts every value of the list in its own slot of
 * the smallest table (1 to 256 slots, at least one per value) where one of
 * PLAN_TRIES fixed candidates does; returns the table size, 0 when none
 * did (the list's lookups then take the generic path). Deterministic. */
static uint32_t plan_list(const mc__propdef *def, list_plan *plan)
{
    uint64_t mix[1u << PLAN_MAX_BITS];
    uint32_t c = 0;
    if (def->count > 1u << PLAN_MAX_BITS)
        return 0;
    for (uint32_t v = 0; v < def->count; v++) {
        uint8_t len = mc__reg_value_lens[def->values + v];
        if (len > CANON_MAX)
            continue;
        uint64_t w[4];
        value_canon(mc__str(mc__reg_value_refs[def->values + v]), len, w);
        mix[c++] = value_mix(w, len);
    }
    unsigned bits = 1;
    while ((1u << bits) < c)
        bits++;
    for (; bits <= PLAN_MAX_BITS; bits++) {
        uint64_t seed = 0x5EED;
        for (unsigned t = 0; t < PLAN_TRIES; t++) {
            uint64_t mult = splitmix(&seed) | 1, taken[(1u << PLAN_MAX_BITS) / 64] = {0};
            uint32_t v = 0;
            for (; v < c; v++) {
                uint32_t slot = (uint32_t)((mix[v] * mult) >> (64 - bits));
                if (taken[slot / 64] >> (slot % 64) & 1)
                    break;
                taken[slot / 64] |= 1ull << (slot % 64);
            }
            if (v == c) {
                plan->mult = mult;
                plan->shift = (uint8_t)(64 - bits);
                return 1u << bits;
            }
        }
    }
    return 0;
}

/* plan_list's answers by property definition, for every registry: the
 * pool shares definitions among versions (a world of seven releases builds
 * 583 value lists over a few hundred definitions), and the search for a
 * multiplier was most of a registry's index build. memo_shift 0: not
 * planned yet; PLAN_NONE: no perfect hash. Threads building at once store
 * the same values (the plan depends on the definition alone): the mult is
 * stored before the shift is released. Definitions past PLAN_MEMO (none
 * today) are planned each time. */
enum { PLAN_MEMO = 4096, PLAN_NONE = 255 };
static _Atomic uint64_t memo_mult[PLAN_MEMO];
static _Atomic uint8_t memo_shift[PLAN_MEMO];

/* plan_list of definition d, from the memo when planned before. */
static uint32_t plan_def(uint16_t d, list_plan *plan)
{
    if (d >= PLAN_MEMO)
        return plan_list(&mc__reg_propdefs[d], plan);
    const uint8_t shift = atomic_load_explicit(&memo_shift[d], memory_order_acquire);
    if (shift == PLAN_NONE)
        return 0;
    if (shift) {
        plan->mult = atomic_load_explicit(&memo_mult[d], memory_order_relaxed);
        plan->shift = shift;
        return 1u << (64 - shift);
    }
    const uint32_t size = plan_list(&mc__reg_propdefs[d], plan);
    atomic_store_explicit(&memo_mult[d], size ? plan->mult : 0, memory_order_relaxed);
    atomic_store_explicit(&memo_shift[d], size ? plan->shift : (uint8_t)PLAN_NONE, memory_order_release);
    return size;
}

/* Value lists: one perfect hash per property definition in use; slot 0 of
 * the table stays empty (lists without a hash point there). */
static bool build_values(const mc_registry *reg, mc__runtime *rt, uint16_t *list_of, list_plan *plans,
                         uint16_t *def_of)
{
    uint32_t list_count = 0, slots = 1;
    for (uint32_t b = 0; b < reg->block_count; b++) {
        const mc__kind *k = mc__kind_of(rt->tables, b);
        for (unsigned i = 0; i < k->nprops; i++) {
            uint16_t d = mc__reg_prop_lists[k->props + i];
            if (list_of[d])
                continue;
            list_plan *plan = &plans[list_count];
            uint32_t size = plan_def(d, plan);
            plan->base = size ? slots : 0;
            slots += size;
            def_of[list_count] = d;
            list_of[d] = (uint16_t)++list_count;
        }
    }
    rt->lk_values = malloc((size_t)slots * sizeof *rt->lk_values);
    rt->lk_value_mid = calloc((size_t)slots * 2, sizeof *rt->lk_value_mid);
    if (!rt->lk_values || !rt->lk_value_mid)
        return false;
    for (uint32_t i = 0; i < slots; i++)
        rt->lk_values[i] = (struct mc__lk_value){0, 0, UINT32_MAX, 0};
    for (uint32_t li = 0; li < list_count; li++) {
        const list_plan *plan = &plans[li];
        const mc__propdef *def = &mc__reg_propdefs[def_of[li]];
        for (uint32_t v = 0; plan->mult && v < def->count; v++) {
            uint8_t len = mc__reg_value_lens[def->values + v];
            if (len > CANON_MAX)
                continue;
            uint64_t w[4];
            value_canon(mc__str(mc__reg_value_refs[def->values + v]), len, w);
            uint32_t slot = value_slot(plan->mult, plan->base, plan->shift, w, len);
            rt->lk_values[slot] = (struct mc__lk_value){w[0], w[3], len, v};
            rt->lk_value_mid[2 * slot] = w[1];
            rt->lk_value_mid[2 * slot + 1] = w[2];
        }
    }
    return true;
}

/* The key table index of a key (pooled strings are unique: same offset,
 * same key), adding it on first sight. */
static uint16_t key_index(mc__runtime *rt, uint32_t *key_count, const mc__propdef *def)
{
    uint32_t key = 0;
    while (key < *key_count && rt->lk_keys[key].name != def->name)
        key++;
    if (key == *key_count) {
        struct mc__lk_key *kk = &rt->lk_keys[(*key_count)++];
        canon(mc__str(def->name), def->name_len, kk->w);
        kk->len = def->name_len <= CANON_MAX ? def->name_len : UINT32_MAX;
        kk->name = def->name;
    }
    return (uint16_t)key;
}

/* The product of a kind's value counts (its mixed-radix size), capped. */
static uint64_t radix_size(const mc__kind *k)
{
    uint64_t size = 1;
    for (unsigned i = 0; i < k->nprops && size <= UINT32_MAX; i++)
        size *= mc__propdef_of(k, i)->count;
    return size;
}

/* A listed kind gets a permutation table when it is not much larger than
 * its state list (today every Bedrock one is exactly a full product) and
 * offsets fit the 16-bit entries. */
static bool wants_perm(const mc__kind *k)
{
    return k->explicit_digits != MC__NONE && radix_size(k) <= 4u * (uint64_t)k->count + 16 &&
           radix_size(k) < UINT16_MAX && k->count < UINT16_MAX;
}

/* Fills a kind's permutation table (UINT16_MAX: no such state). */
static void write_perm(const mc__kind *k, uint16_t *perm)
{
    uint64_t size = radix_size(k);
    for (uint64_t i = 0; i < size; i++)
        perm[i] = UINT16_MAX;
    const uint8_t *digits = mc__reg_default_digits + k->explicit_digits;
    for (uint32_t s = 0; s < k->count; s++, digits += k->nprops) {
        uint32_t index = 0;
        for (unsigned i = 0; i < k->nprops; i++)
            index = index * mc__propdef_of(k, i)->count + digits[i];
        perm[index] = (uint16_t)s;
    }
}

/* The record's key buckets: the first rotation of the key hash that puts
 * each of its keys in a bucket of its own (tried 0..60; none found, or
 * more than 15 properties: every bucket empty, lookups walk the list). */
static void plan_key_slots(const mc__runtime *rt, lk_block *rec, const lk_prop *props)
{
    rec->key_slots = UINT64_MAX;
    rec->key_rot = 0;
    if (rec->nprops > 15)
        return;
    for (unsigned rot = 0; rot <= 60; rot++) {
        uint64_t slots = UINT64_MAX;
        unsigned used = 0, i;
        for (i = 0; i < rec->nprops; i++) {
            const struct mc__lk_key *key = &rt->lk_keys[props[i].key];
            unsigned bucket = (unsigned)(key_hash(key->w[0], key->w[3], key->len) >> rot) & 15;
            if (used >> bucket & 1)
                break;
            used |= 1u << bucket;
            slots &= ~(UINT64_C(15) << (bucket * 4));
            slots |= (uint64_t)i << (bucket * 4);
        }
        if (i == rec->nprops) {
            rec->key_slots = slots;
            rec->key_rot = (uint8_t)rot;
            return;
        }
    }
}

static void write_record(const mc_registry *reg, mc__runtime *rt, uint32_t b, uint8_t *at,
                         const uint16_t *list_of, const list_plan *plans, uint32_t *key_count)
{
    const mc__kind *k = mc__kind_of(rt->tables, b);
    lk_block *rec = (lk_block *)(void *)at;
    const char *name = mc__str(k->name);
    size_t full = strlen(name), len = full;
    mc__strip_namespace(&name, &len);
    memset(rec, 0, record_size(k));
    canon(name, len, rec->name);
    rec->first = rt->tables->block_min[b];
    rec->block = (uint16_t)b;
    /* a pooled name without the namespace is one the generic path never
     * matches either (it compares namespaced names); blocks past the 16-bit
     * fields go that way too (none today) */
    rec->name_len = (uint8_t)(len >= 255 || len == full || b > UINT16_MAX ? 255 : len);
    rec->nprops = k->nprops;
    rec->order = k->explicit_digits == MC__NONE ? ORDER_RADIX : wants_perm(k) ? ORDER_PERM : ORDER_SCAN;
    lk_prop *props = (lk_prop *)(rec + 1);
    uint32_t stride = 1, default_off = 0; /* the last property varies fastest */
    for (unsigned i = k->nprops; i-- > 0;) {
        uint16_t d = mc__reg_prop_lists[k->props + i];
        const list_plan *plan = &plans[list_of[d] - 1];
        lk_prop *pp = &props[i];
        pp->mult = plan->mult;
        pp->base = plan->base;
        pp->shift = plan->shift;
        pp->key = key_index(rt, key_count, &mc__reg_propdefs[d]);
        pp->def = mc__reg_default_digits[k->default_digits + i];
        pp->stride = rec->order == ORDER_SCAN ? 0 : stride;
        default_off += pp->def * pp->stride; /* the kind's own default_off for ORDER_RADIX */
        stride *= mc__reg_propdefs[d].count;
    }
    plan_key_slots(rt, rec, props);
    if (default_off > UINT16_MAX)
        rec->name_len = 255;
    rec->default_off = (uint16_t)default_off;
    uint64_t h = name_hash(rec->name, len);
    uint32_t i = (uint32_t)h & rt->lk_name_mask;
    while (rt->lk_names[i])
        i = (i + 1) & rt->lk_name_mask;
    rt->lk_names[i] = (h >> 32) << 32 | ((uint32_t)((at - rt->lk_blob) / 8) + 1);
}

bool mc__lk_build(const mc_registry *reg, mc__runtime *rt)
{
    size_t total = 0, prop_total = 0, perm_total = 0;
    uint32_t max_def = 0;
    for (uint32_t b = 0; b < reg->block_count; b++) {
        const mc__kind *k = mc__kind_of(rt->tables, b);
        total += record_size(k);
        prop_total += k->nprops;
        if (wants_perm(k))
            perm_total += radix_size(k);
        for (unsigned i = 0; i < k->nprops; i++)
            if (mc__reg_prop_lists[k->props + i] > max_def)
                max_def = mc__reg_prop_lists[k->props + i];
    }
    if (total / 8 >= UINT32_MAX || prop_total > UINT16_MAX)
        return false;
    uint32_t name_size = 16; /* at most a third full: few second probes */
    while (name_size < reg->block_count * 3u)
        name_size <<= 1;
    size_t lists = prop_total ? prop_total : 1; /* at most one list (and key) per property */
    rt->lk_name_mask = name_size - 1;
    rt->lk_blob = malloc(total ? total : 1);
    rt->lk_names = calloc(name_size, sizeof *rt->lk_names);
    rt->lk_keys = malloc(lists * sizeof *rt->lk_keys);
    uint16_t *list_of = calloc((size_t)max_def + 1, sizeof *list_of); /* definition -> list + 1 */
    uint16_t *def_of = malloc(lists * sizeof *def_of);
    list_plan *plans = calloc(lists, sizeof *plans);
    rt->lk_perm = malloc((perm_total ? perm_total : 1) * sizeof *rt->lk_perm);
    bool ok = rt->lk_blob && rt->lk_names && rt->lk_keys && list_of && def_of && plans && rt->lk_perm &&
              perm_total < UINT32_MAX && build_values(reg, rt, list_of, plans, def_of);
    uint32_t key_count = 0, perm_used = 0;
    uint8_t *at = rt->lk_blob;
    for (uint32_t b = 0; ok && b < reg->block_count; b++) {
        const mc__kind *k = mc__kind_of(rt->tables, b);
        write_record(reg, rt, b, at, list_of, plans, &key_count);
        if (wants_perm(k)) {
            ((lk_block *)(void *)at)->perm = perm_used;
            write_perm(k, rt->lk_perm + perm_used);
            perm_used += (uint32_t)radix_size(k);
        }
        at += record_size(k);
    }
    free(list_of);
    free(def_of);
    free(plans);
    if (ok) { /* room was made for one key per property; a registry has a hundred or so */
        struct mc__lk_key *keys = realloc(rt->lk_keys, (key_count ? key_count : 1) * sizeof *keys);
        if (keys)
            rt->lk_keys = keys;
    }
    return ok;
}

void mc__lk_free(mc__runtime *rt)
{
    free(rt->lk_blob);
    free(rt->lk_names);
    free(rt->lk_keys);
    free(rt->lk_values);
    free(rt->lk_value_mid);
    free(rt->lk_perm);
}

static inline const lk_block *find_record(const mc_registry *reg, const mc__runtime *rt, const char *name,
                                          size_t len)
{
    uint64_t w[4];
    canon(name, len, w);
    uint64_t h = name_hash(w, len);
    for (uint32_t i = (uint32_t)h & rt->lk_name_mask;; i = (i + 1) & rt->lk_name_mask) {
        uint64_t slot = rt->lk_names[i];
        if (!slot)
            return NULL;
        if ((slot >> 32) != (h >> 32))
            continue;
        const lk_block *rec = (const lk_block *)(const void *)(rt->lk_blob + ((uint32_t)slot - 1) * (size_t)8);
        /* past CANON_MAX the form is a sample: compare the whole name (the
         * pooled name of a record has the 10-byte namespace) */
        if (rec->name_len == len && same4(rec->name, w) &&
            (len <= CANON_MAX || !memcmp(mc__str(mc__kind_of(rt->tables, rec->block)->name) + 10, name, len)))
            return rec;
    }
}

/* Up to 16 bytes words 0 and 3 cover a key: they are all that is computed. */
#define KEY_EQUALS(key, k, len) ((key)->len == (len) && (((key)->w[0] ^ (k)[0]) | ((key)->w[3] ^ (k)[3])) == 0 && \
                                 ((len) <= 16 || same4((key)->w, (k))))

/* find_key's walk for a key not in its bucket (an unknown key, or a block
 * whose keys share buckets): kept out of the lookup's code. */
LK_COLD static unsigned walk_keys(const struct mc__lk_key *keys, const lk_prop *pp, unsigned n, const uint64_t k[4],
                                  size_t len)
{
    unsigned pi = 0;
    while (pi < n && !KEY_EQUALS(&keys[pp[pi].key], k, len))
        pi++;
    return pi;
}

/* The property index of key k (len bytes) in the record's list; n when
 * the block has no such key. Files list a block's properties in an order
 * of their own (1.13-1.17: Java's hash map order, not the registry's), so
 * the key's bucket in the record's key_slots names the one candidate. */
static inline unsigned find_key(const struct mc__lk_key *keys, const lk_block *rec, const lk_prop *pp, unsigned n,
                                const uint64_t k[4], size_t len)
{
    unsigned bucket = (unsigned)(key_hash(k[0], k[3], len) >> rec->key_rot) & 15;
    unsigned guess = (unsigned)(rec->key_slots >> (bucket * 4)) & 15;
    if (guess < n && KEY_EQUALS(&keys[pp[guess].key], k, len))
        return guess;
    return walk_keys(keys, pp, n, k, len);
}

/* A property with a key or value past 16 bytes (rare: a few Bedrock keys
 * and values): all four words of both forms. Kept out of the common path.
 * The property index goes to *pi; returns its value's slot, or UINT32_MAX. */
LK_COLD static uint32_t long_prop(const mc__runtime *rt, const lk_block *rec, const lk_prop *pp, unsigned n,
                          const mc_state_prop *pr, unsigned *pi)
{
    uint64_t k[4] = {0, 0, 0, 0}, v[4];
    if (pr->key_len <= 16)
        canon2(pr->key, pr->key_len, &k[0], &k[3]);
    else
        canon(pr->key, pr->key_len, k);
    value_canon(pr->value, pr->value_len, v);
    *pi = find_key(rt->lk_keys, rec, pp, n, k, pr->key_len);
    if (*pi == n)
        return UINT32_MAX;
    const lk_prop *p = &pp[*pi];
    uint32_t slot = value_slot(p->mult, p->base, p->shift, v, pr->value_len);
    const struct mc__lk_value *e = &rt->lk_values[slot];
    if (((e->w0 ^ v[0]) | (e->w3 ^ v[3]) | (e->len ^ pr->value_len)) != 0 ||
        ((rt->lk_value_mid[2 * slot] ^ v[1]) | (rt->lk_value_mid[2 * slot + 1] ^ v[2])) != 0)
        return UINT32_MAX;
    return slot;
}

bool mc__lk_lookup(const mc_registry *reg, const mc__runtime *rt, const char *name, size_t len,
                   const mc_state_prop *props, size_t count, uint32_t *state)
{
    mc__strip_namespace(&name, &len);
    if (len == 0 || len >= 255)
        return false;
    const lk_block *rec = find_record(reg, rt, name, len);
    if (!rec)
        return false;
    const lk_prop *pp = (const lk_prop *)(rec + 1);
    unsigned n = rec->nprops;
    uint32_t off = rec->default_off, seen = 0;
    uint8_t given[MC__MAX_PROPS];
    for (size_t q = 0; q < count; q++) {
        const mc_state_prop *pr = &props[q];
        unsigned pi;
        uint32_t slot;
        if (pr->key_len <= 16 && pr->value_len <= 16) {
            /* words 1 and 2 of both forms are 0 here and need no loads */
            uint64_t k[4] = {0, 0, 0, 0}, v[4] = {0, 0, 0, 0};
            canon2(pr->key, pr->key_len, &k[0], &k[3]);
            canon2(pr->value, pr->value_len, &v[0], &v[3]);
            pi = find_key(rt->lk_keys, rec, pp, n, k, pr->key_len);
            if (pi == n)
                return false;
            const lk_prop *p = &pp[pi];
            slot = value_slot(p->mult, p->base, p->shift, v, pr->value_len);
            const struct mc__lk_value *e = &rt->lk_values[slot];
            if (((e->w0 ^ v[0]) | (e->w3 ^ v[3]) | (e->len ^ pr->value_len)) != 0)
                return false; /* (a long value has another length) */
        } else if (pr->key_len > CANON_MAX || pr->value_len > CANON_MAX ||
                   (slot = long_prop(rt, rec, pp, n, pr, &pi)) == UINT32_MAX) {
            return false;
        }
        if (seen >> pi & 1)
            return false; /* a key given twice: the generic path keeps the last */
        seen |= 1u << pi;
        uint32_t vi = rt->lk_values[slot].index;
        given[pi] = (uint8_t)vi;
        off += (vi - pp[pi].def) * pp[pi].stride; /* wraps around for a smaller value, as it should */
    }
    if (rec->order == ORDER_PERM) {
        uint16_t s = rt->lk_perm[rec->perm + off];
        if (s == UINT16_MAX)
            return false;
        off = s;
    } else if (rec->order == ORDER_SCAN) {
        uint8_t digits[MC__MAX_PROPS];
        for (unsigned i = 0; i < n; i++)
            digits[i] = (seen >> i & 1) ? given[i] : pp[i].def;
        off = mc__kind_offset(mc__kind_of(rt->tables, rec->block), digits);
        if (off == MC__NONE)
            return false;
    }
    *state = rec->first + off;
    return true;
}

int mc__lk_key_guess(const mc_registry *reg, const mc__runtime *rt, const char *name, size_t len, const char *key,
                     size_t key_len)
{
    mc__strip_namespace(&name, &len);
    const lk_block *rec = len && len < 255 && key_len <= CANON_MAX ? find_record(reg, rt, name, len) : NULL;
    if (!rec)
        return -1;
    uint64_t k[4];
    canon(key, key_len, k);
    unsigned bucket = (unsigned)(key_hash(k[0], k[3], key_len) >> rec->key_rot) & 15;
    return (int)(rec->key_slots >> (bucket * 4) & 15);
}
