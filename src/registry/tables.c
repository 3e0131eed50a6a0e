/*
 * tables.c: decodes a registry's per-block tables (regdata.h's mc__tables)
 * from the code the generator stores for it, on first use.
 *
 * Why coded: from one game version to the next, the kind of each block, the
 * biome names and Bedrock's maps to and from Java states are mostly the
 * previous version's, shifted (a new block moves every later state id by a
 * constant). So each registry stores its tables as runs copied from the
 * registry before it in its edition's table (or from earlier in the same
 * table), with a constant added, and literal values where nothing matches;
 * scripts/registry-code.js writes the code and says the format in full.
 * Stored whole, the registry data was 2.9 MB of the library and 87k lines
 * of generated C; coded, 0.37 MB and 5.3k lines. The 1.13 registry also
 * holds the maps to and from 1.12's id<<4|meta.
 *
 * Decoding a registry decodes the ones before it, from the nearest one
 * already decoded (or the first), into scratch tables it frees; only the
 * registry asked for is kept. Like the name indexes of registry.c, the
 * result is built once and published with an atomic compare-and-swap, so
 * there is no unsynchronised mutable state. The first state id of each
 * block is not stored: it is the sum of the state counts of the kinds
 * before it.
 */
#include "registry/reg_private.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* registry-code.js's alphabet: the value of a character, 5 bits, plus 32
 * when more characters of the same number follow; 64: not in the alphabet */
static const uint8_t digit_of[128] = {
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 62, 64, 64, /* '-' */
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 64, 64, 64, 64, 64, 64, /* '0'-'9' */
    64, 0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, /* 'A'- */
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 64, 64, 64, 64, 63, /* -'Z', '_' */
    64, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, /* 'a'- */
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 64, 64, 64, 64, 64, /* -'z' */
};

typedef struct {
    const char *p;
    bool bad;
} code_reader;

static uint32_t next(code_reader *r)
{
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35; shift += 5) {
        unsigned char c = (unsigned char)*r->p;
        unsigned d = c < 128 ? digit_of[c] : 64;
        if (d == 64) /* also the string's end */
            break;
        r->p++;
        v |= (uint32_t)(d & 31) << shift;
        if (d < 32)
            return v;
    }
    r->bad = true;
    return 0;
}

static inline int32_t unzigzag(uint32_t z) { return (int32_t)(z >> 1) ^ -(int32_t)(z & 1); }

/* An array of 16- or 32-bit values (NONE: all ones of the width). */
typedef struct {
    void *v;
    uint32_t n;
    bool wide;
} field;

static inline uint32_t get(const field *f, uint32_t i)
{
    return f->wide ? ((const uint32_t *)f->v)[i] : ((const uint16_t *)f->v)[i];
}

static inline void put(field *f, uint32_t i, uint32_t x)
{
    if (f->wide)
        ((uint32_t *)f->v)[i] = x;
    else
        ((uint16_t *)f->v)[i] = (uint16_t)x;
}

/* Fills out (out->n values) from the code, copying from prev. */
static bool decode_field(code_reader *r, field *out, const field *prev)
{
    uint32_t none = out->wide ? UINT32_MAX : UINT16_MAX, prev_none = prev->wide ? UINT32_MAX : UINT16_MAX;
    int64_t sd = 0, add = 0, last = -1;
    uint32_t i = 0;
    while (i < out->n && !r->bad) {
        uint32_t op = next(r), len = op >> 1;
        if (len == 0 || len > out->n - i)
            return false;
        if (op & 1) {
            sd += unzigzag(next(r));
            add += unzigzag(next(r));
            /* the source: prev, then the values decoded so far */
            int64_t src = (int64_t)i + sd;
            if (src < 0 || src >= (int64_t)prev->n + i)
                return false;
            for (uint32_t t = 0; t < len; t++, i++, src++) {
                uint32_t p = src < prev->n ? get(prev, (uint32_t)src) : get(out, (uint32_t)(src - prev->n));
                if (p == (src < prev->n ? prev_none : none))
                    put(out, i, none);
                else
                    put(out, i, (uint32_t)(p + add));
            }
        } else {
            for (uint32_t t = 0; t < len; t++, i++) {
                uint32_t c = next(r);
                if (c == 0) {
                    put(out, i, none);
                    continue;
                }
                last += 1 + (int64_t)unzigzag(c - 1);
                if (last < 0 || (uint64_t)last >= none)
                    return false;
                put(out, i, (uint32_t)last);
            }
        }
    }
    return !r->bad && i == out->n;
}

/* The registries of reg's edition, and reg's position among them. */
static const struct mc_registry *edition_table(const mc_registry *reg, uint32_t *pos)
{
    if (reg->edition == MC_EDITION_BEDROCK) {
        *pos = reg->index - mc__java_registry_count;
        return mc__bedrock_registries;
    }
    *pos = reg->index;
    return mc__java_registries;
}

/* reg's tables in one allocation, decoded against prev (NULL: the first of
 * its edition); NULL when memory runs out or the code is bad. */
static mc__tables *decode(const mc_registry *reg, const mc__tables *prev)
{
    static const mc__tables empty;
    if (!prev)
        prev = &empty;
    uint32_t kinds = reg->kind == MC__KIND_FLAT ? reg->block_count : 0;
    uint32_t j2b = reg->mapped ? mc__java_registries[reg->java_index].state_count : 0;
    uint32_t b2j = reg->mapped ? reg->state_count : 0;
    bool pivot = reg->edition == MC_EDITION_JAVA && reg->index == mc__java_pivot;
    uint32_t l2p = pivot ? 4096 : 0, p2l = pivot ? reg->state_count : 0;
    /* the 32-bit arrays first, so that every array is aligned */
    size_t size = sizeof(mc__tables) + ((size_t)kinds + 1 + reg->biome_count) * sizeof(uint32_t) +
                  ((size_t)kinds + j2b + b2j + l2p + p2l) * sizeof(uint16_t);
    mc__tables *t = malloc(size);
    if (!t)
        return NULL;
    uint32_t *min = (uint32_t *)(void *)(t + 1), *biomes = min + kinds + 1;
    uint16_t *block_kinds = (uint16_t *)(void *)(biomes + reg->biome_count);
    uint16_t *j2b_map = block_kinds + kinds, *b2j_map = j2b_map + j2b;
    uint16_t *l2p_map = b2j_map + b2j, *p2l_map = l2p_map + l2p;
    *t = (mc__tables){block_kinds, min, biomes, j2b ? j2b_map : NULL, b2j ? b2j_map : NULL,
                      l2p ? l2p_map : NULL, p2l ? p2l_map : NULL,
                      kinds, reg->biome_count, j2b, b2j, l2p, p2l};
    code_reader r = {reg->code, false};
    field f[6][2] = { /* the fields in the generator's order, each with prev's */
        {{block_kinds, kinds, false}, {(void *)prev->block_kinds, prev->kind_count, false}},
        {{biomes, reg->biome_count, true}, {(void *)prev->biomes, prev->biome_count, true}},
        {{j2b_map, j2b, false}, {(void *)prev->j2b, prev->j2b_count, false}},
        {{b2j_map, b2j, false}, {(void *)prev->b2j, prev->b2j_count, false}},
        {{l2p_map, l2p, false}, {(void *)prev->legacy_to_pivot, prev->l2p_count, false}},
        {{p2l_map, p2l, false}, {(void *)prev->pivot_to_legacy, prev->p2l_count, false}},
    };
    bool ok = true;
    for (int i = 0; i < 6 && ok; i++)
        ok = decode_field(&r, &f[i][0], &f[i][1]);
    /* first states: the state counts of the kinds before */
    uint32_t first = 0;
    for (uint32_t b = 0; ok && b < kinds; b++) {
        if (block_kinds[b] >= mc__reg_kind_count)
            ok = false;
        else {
            min[b] = first;
            first += mc__reg_kinds[block_kinds[b]].count;
        }
    }
    min[kinds] = first;
    if (!ok || *r.p || (kinds && first != reg->state_count)) {
        free(t);
        return NULL;
    }
    return t;
}

static _Atomic(mc__tables *) decoded[MC__MAX_REGISTRIES];

const mc__tables *mc__tables_of(const mc_registry *reg)
{
    if (reg->index >= MC__MAX_REGISTRIES)
        return NULL;
    mc__tables *t = atomic_load_explicit(&decoded[reg->index], memory_order_acquire);
    if (t)
        return t;
    uint32_t pos, start;
    const struct mc_registry *table = edition_table(reg, &pos);
    const mc__tables *prev = NULL;
    for (start = pos; start > 0; start--) /* back to the nearest decoded one */
        if ((prev = atomic_load_explicit(&decoded[table[start - 1].index], memory_order_acquire)))
            break;
    mc__tables *scratch = NULL;
    for (uint32_t i = start; i <= pos; i++) {
        t = decode(&table[i], prev);
        free(scratch);
        if (!t)
            return NULL;
        prev = scratch = t;
    }
    mc__tables *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&decoded[reg->index], &expected, t, memory_order_acq_rel,
                                                memory_order_acquire))
        return t;
    free(t); /* another thread won; use its tables */
    return expected;
}

/* ------------------------------------------- states in the decoded tables
 *
 * A flat registry's state ids run block by block (block_min), and inside a
 * block by its properties' value digits, the last property fastest (or by
 * an explicit digit list where the game's order is not that product). */

uint32_t mc__block_of_state(const mc_registry *reg, const mc__tables *t, uint32_t state)
{
    if (reg->kind != MC__KIND_FLAT || state >= reg->state_count)
        return MC__NONE;
    /* the last block with min <= state, in [lo, lo + n): halved without a
     * branch on the comparison (a select), whose outcome is a coin toss
     * the predictor lost at nearly every step (the palette writers ask
     * this for each property of each entry they write) */
    uint32_t lo = 0, n = reg->block_count;
    while (n > 1) {
        const uint32_t half = n / 2;
        lo = t->block_min[lo + half] <= state ? lo + half : lo;
        n -= half;
    }
    return lo;
}

uint32_t mc__kind_offset(const mc__kind *k, const uint8_t *digits)
{
    if (k->explicit_digits != MC__NONE) {
        const uint8_t *t = mc__reg_default_digits + k->explicit_digits;
        for (uint32_t s = 0; s < k->count; s++, t += k->nprops)
            if (!memcmp(t, digits, k->nprops))
                return s;
        return MC__NONE;
    }
    uint32_t off = 0;
    for (unsigned i = 0; i < k->nprops; i++)
        off = off * mc__propdef_of(k, i)->count + digits[i];
    return off;
}

uint32_t mc__prop_digit(const mc__kind *k, uint32_t offset, unsigned index)
{
    if (k->explicit_digits != MC__NONE)
        return mc__reg_default_digits[k->explicit_digits + offset * k->nprops + index];
    uint32_t stride = 1;
    for (unsigned i = k->nprops; i-- > index + 1;)
        stride *= mc__propdef_of(k, i)->count;
    return (offset / stride) % mc__propdef_of(k, index)->count;
}
