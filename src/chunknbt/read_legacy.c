/*
 * read_legacy.c: a pre-1.13 section's block arrays into the model's
 * paletted container.
 *
 * A 1.8-1.12 section stores each block as a byte of Blocks, a nibble of
 * Data and, for ids past 255, a nibble of Add (FORMATS.md); the model keeps
 * a palette of states (id << 4 | meta) and packed indices into it. A state
 * is a number below 65536, so the palette is built without hashing: a table
 * of 65536 slots (the cache's, kept across sections) says each state's
 * palette index + 1, 0 for a state not met yet in this section. After the
 * section only the slots of its palette are put back to 0: a section of
 * terrain has a dozen states, so the table costs neither a clear nor a
 * probe per block. The result is the container mc_container_set_all makes
 * of the same values (palette in first-occurrence order), which
 * test_chunknbt checks.
 */
#include "chunk/chunk_private.h"
#include "chunknbt/chunknbt_private.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define SECTION 4096u

/* The values (Add << 8 | Blocks) << 4 | Data of a section: for entry i,
 * Blocks[i] and the low nibble of Data[i / 2] (Add likewise) when i is
 * even, the high nibbles when it is odd. Two entries a step: the loop
 * the compiler vectorises. */
static void combine(const uint8_t *blocks, const uint8_t *data, const uint8_t *add, uint16_t *out)
{
    if (add) {
        for (unsigned j = 0; j < SECTION / 2; j++) {
            const unsigned d = data[j], a = add[j];
            out[2 * j] = (uint16_t)(((a & 15u) << 12) | (unsigned)blocks[2 * j] << 4 | (d & 15u));
            out[2 * j + 1] = (uint16_t)(((a >> 4) << 12) | (unsigned)blocks[2 * j + 1] << 4 | (d >> 4));
        }
    } else {
        for (unsigned j = 0; j < SECTION / 2; j++) {
            const unsigned d = data[j];
            out[2 * j] = (uint16_t)((unsigned)blocks[2 * j] << 4 | (d & 15u));
            out[2 * j + 1] = (uint16_t)((unsigned)blocks[2 * j + 1] << 4 | (d >> 4));
        }
    }
}

/* How many values are >= limit; with replace, they become `air`. */
static uint32_t beyond(uint16_t *vals, uint32_t limit, uint32_t air, bool replace)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < SECTION; i++) {
        const bool out = vals[i] >= limit;
        n += out;
        if (out && replace)
            vals[i] = (uint16_t)air;
    }
    return n;
}

/* Whether vals[0..16) all equal v: a row of a section along x, one
 * compare of two 8-lane vectors where the compiler has them. */
static inline bool row_is(const uint16_t *vals, uint16_t v)
{
    uint64_t w[4];
    memcpy(w, vals, sizeof w);
    const uint64_t v4 = v * 0x0001000100010001ull;
    return ((w[0] ^ v4) | (w[1] ^ v4) | (w[2] ^ v4) | (w[3] ^ v4)) == 0;
}

/* Palette (first-occurrence order) and indices of vals through the zeroed
 * slot table, left zeroed again; returns the palette's length. Terrain is
 * made of rows of one block (air, stone, water: 6 rows in 7 of the corpus's
 * 1.8 sections), so a row equal to its first entry takes one look-up. */
static uint32_t index_states(uint16_t *slots, const uint16_t *vals, uint32_t *palette, uint16_t *idx)
{
    uint32_t n = 0;
    for (unsigned row = 0; row < SECTION; row += 16) {
        const uint16_t *v = vals + row;
        uint16_t *ix = idx + row;
        if (row_is(v, v[0])) {
            uint32_t s = slots[v[0]];
            if (!s) {
                palette[n] = v[0];
                s = slots[v[0]] = (uint16_t)++n;
            }
            for (unsigned i = 0; i < 16; i++)
                ix[i] = (uint16_t)(s - 1);
            continue;
        }
        for (unsigned i = 0; i < 16; i++) {
            uint32_t s = slots[v[i]];
            if (!s) {
                palette[n] = v[i];
                s = slots[v[i]] = (uint16_t)++n; /* n <= 4096 */
            }
            ix[i] = (uint16_t)(s - 1);
        }
    }
    for (uint32_t k = 0; k < n; k++)
        slots[palette[k]] = 0;
    return n;
}

/* One slot-table look-up: the palette index of state v, added when new. */
static inline uint16_t slot_of(uint16_t *slots, uint32_t v, uint32_t *palette, uint32_t *n)
{
    uint32_t s = slots[v];
    if (!s) {
        palette[*n] = v;
        s = slots[v] = (uint16_t)++*n; /* n <= 4096 */
    }
    return (uint16_t)(s - 1);
}

#if defined(__SSE2__)
/* A mixed row of index_bytes: its 16 values made as combine makes them, in
 * two vectors, then matched a value at a time: the first lane not yet
 * matched is looked up and every lane equal to it takes its index (a row
 * of terrain holds two or three blocks: stone and an ore, dirt and grass).
 * Values are met in the order of their first lane, so the palette keeps
 * the first-occurrence order; past 8 values the rest go one lane at a time
 * (in lane order: the same order again). */
static void index_row(uint16_t *slots, const uint8_t *b, const uint8_t *d, uint32_t *palette, uint32_t *n,
                      uint16_t *ix)
{
    const __m128i zero = _mm_setzero_si128(), low = _mm_set1_epi8(15);
    const __m128i bb = _mm_loadu_si128((const __m128i *)(const void *)b);
    const __m128i dd = _mm_loadl_epi64((const __m128i *)(const void *)d);
    /* Data's nibbles in lane order: the low one of byte j is entry 2j */
    const __m128i nib = _mm_unpacklo_epi8(_mm_and_si128(dd, low), _mm_and_si128(_mm_srli_epi16(dd, 4), low));
    const __m128i v0 = _mm_or_si128(_mm_slli_epi16(_mm_unpacklo_epi8(bb, zero), 4), _mm_unpacklo_epi8(nib, zero));
    const __m128i v1 = _mm_or_si128(_mm_slli_epi16(_mm_unpackhi_epi8(bb, zero), 4), _mm_unpackhi_epi8(nib, zero));
    uint16_t vals[16];
    _mm_storeu_si128((__m128i *)(void *)vals, v0);
    _mm_storeu_si128((__m128i *)(void *)(vals + 8), v1);
    __m128i i0 = zero, i1 = zero;
    unsigned left = 0xFFFF; /* lanes not matched yet */
    for (unsigned round = 0; left && round < 8; round++) {
        const uint16_t v = vals[__builtin_ctz(left)];
        const __m128i vv = _mm_set1_epi16((short)v), ss = _mm_set1_epi16((short)slot_of(slots, v, palette, n));
        const __m128i e0 = _mm_cmpeq_epi16(v0, vv), e1 = _mm_cmpeq_epi16(v1, vv);
        i0 = _mm_or_si128(i0, _mm_and_si128(e0, ss));
        i1 = _mm_or_si128(i1, _mm_and_si128(e1, ss));
        left &= ~(unsigned)_mm_movemask_epi8(_mm_packs_epi16(e0, e1));
    }
    _mm_storeu_si128((__m128i *)(void *)ix, i0);
    _mm_storeu_si128((__m128i *)(void *)(ix + 8), i1);
    for (; left; left &= left - 1) {
        const unsigned i = (unsigned)__builtin_ctz(left);
        ix[i] = slot_of(slots, vals[i], palette, n);
    }
}
#else
static void index_row(uint16_t *slots, const uint8_t *b, const uint8_t *d, uint32_t *palette, uint32_t *n,
                      uint16_t *ix)
{
    for (unsigned i = 0; i < 16; i += 2) {
        const uint32_t dd = d[i / 2];
        ix[i] = slot_of(slots, (uint32_t)b[i] << 4 | (dd & 15u), palette, n);
        ix[i + 1] = slot_of(slots, (uint32_t)b[i + 1] << 4 | (dd >> 4), palette, n);
    }
}
#endif

/* index_states straight from Blocks and Data (no Add: every value is
 * below 4096, none past the registry), without the 4,096 values between:
 * a row of 16 is one block when its 16 Blocks bytes are one byte and its 8
 * Data bytes one nibble (three word compares), else index_row matches its
 * values. Same palette and indices. */
static uint32_t index_bytes(uint16_t *slots, const uint8_t *blocks, const uint8_t *data, uint32_t *palette,
                            uint16_t *idx)
{
    uint32_t n = 0;
    for (unsigned row = 0; row < SECTION; row += 16) {
        const uint8_t *b = blocks + row, *d = data + row / 2;
        uint16_t *ix = idx + row;
        const uint64_t b0 = mc_load_u64le(b), b1 = mc_load_u64le(b + 8), dw = mc_load_u64le(d);
        if (b0 == b1 && b0 == (b0 & 0xFF) * 0x0101010101010101ull && dw == (dw & 15) * 0x1111111111111111ull) {
            const uint16_t s = slot_of(slots, (uint32_t)(b0 & 0xFF) << 4 | (uint32_t)(dw & 15), palette, &n);
            for (unsigned i = 0; i < 16; i++)
                ix[i] = s;
        } else {
            index_row(slots, b, d, palette, &n, ix);
        }
    }
    for (uint32_t k = 0; k < n; k++)
        slots[palette[k]] = 0;
    return n;
}

/* The values with those >= limit as an air beyond 16 bits (a registry
 * the caller chose): through mc_container_set_all. */
static mc_status set_all_wide(mc_container *out, const uint16_t *vals, uint32_t limit, uint32_t air)
{
    uint32_t *wide = malloc(SECTION * sizeof *wide);
    if (!wide)
        return MC_ERR_NOMEM;
    for (unsigned i = 0; i < SECTION; i++)
        wide[i] = vals[i] >= limit ? air : vals[i];
    mc_status st = mc_container_set_all(out, wide);
    free(wide);
    return st;
}

/* The container of palette[0..n) and indices idx, marked compact: a
 * palette of the values met, each once. */
static mc_status set_compact(mc_container *out, const uint32_t *palette, uint32_t n, const uint16_t *idx)
{
    mc_status st = mc__container_set_indexed_below(out, palette, n, idx);
    out->compact = st == MC_OK && out->kind == MC_CONTAINER_INDIRECT;
    return st;
}

mc_status mc__legacy_section(mc_chunknbt_cache *cache, const uint8_t *blocks, const uint8_t *data,
                             const uint8_t *add, uint32_t limit, uint32_t air, bool strict,
                             const mc_container_rules *rules, const mc_allocator *alloc, uint32_t *replaced,
                             mc_container *out)
{
    mc_container_init(out, rules, air, alloc);
    *replaced = 0;
    uint32_t palette[SECTION];
    uint16_t idx[SECTION];
    if (!add && limit >= SECTION) {
        uint16_t *slots = mc__cache_legacy_slots(cache);
        if (!slots)
            return MC_ERR_NOMEM;
        return set_compact(out, palette, index_bytes(slots, blocks, data, palette, idx), idx);
    }
    uint16_t vals[SECTION];
    combine(blocks, data, add, vals);
    /* without Add every value is below 4096, the state count of the
     * 1.8-1.12 registries */
    if ((add || limit < SECTION) && limit < MC__LEGACY_STATES) {
        *replaced = beyond(vals, limit, air, false);
        if (*replaced && strict)
            return MC_ERR_RANGE;
        if (*replaced && air >= MC__LEGACY_STATES)
            return set_all_wide(out, vals, limit, air);
        if (*replaced)
            beyond(vals, limit, air, true);
    }
    uint16_t *slots = mc__cache_legacy_slots(cache);
    if (!slots)
        return MC_ERR_NOMEM;
    return set_compact(out, palette, index_states(slots, vals, palette, idx), idx);
}
