/*
 * histogram.c: see histogram.h. A 1.18+ block section is an indirect
 * container of 4096 indices, 4-8 bits each, packed in padded longs (no
 * index spans two longs). Counting them needs no unpacking into 4096
 * u16 first:
 *  - 4 and 8 bits: an index never spans a byte, and a count does not care
 *    in which order the bytes come, so each byte of a long is counted in a
 *    table of 256 (4 bits: both of its nibbles get that byte's count when
 *    the table is read back);
 *  - 5, 6, 7 bits: the long's 12, 10 or 9 indices taken with shifts the
 *    compiler knows (one loop per width), the last long's padding skipped.
 * Either way runs of equal longs (stone, deepslate, water: most of
 * terrain) count once with their length as the weight. An index at or
 * past the palette's end is not counted but refused: the caller then uses
 * mc_container_histogram as before.
 */
#include "world/histogram.h"

#include <string.h>

#define SECTION 4096u

/* Adds `run` to the counts of the 8 bytes of long w (stats_raw.c has an
 * unrolled twin for the 1.13-1.15 byte path). */
static inline void count_bytes(uint16_t *bytes, uint64_t w, uint16_t run)
{
    for (unsigned k = 0; k < 64; k += 8)
        bytes[w >> k & 255] = (uint16_t)(bytes[w >> k & 255] + run);
}

/* Adds `run` to the counts of the n indices of `bits` each at the bottom
 * of long w (inlined per width: the shifts become constants). */
static inline __attribute__((always_inline)) void count_indices(uint16_t *cnt, uint64_t w, unsigned bits, unsigned n,
                                                                uint16_t run)
{
    const uint64_t mask = (1u << bits) - 1;
    for (unsigned k = 0; k < n; k++)
        cnt[w >> (k * bits) & mask] = (uint16_t)(cnt[w >> (k * bits) & mask] + run);
}

/* Counts the n longs: runs of equal longs once each, weighted by their
 * length (16-bit counts: at most 4096 indices in all); `bits` 0 counts
 * bytes, otherwise whole longs of 64 / bits indices. */
static inline __attribute__((always_inline)) void count_longs(uint16_t *cnt, const uint64_t *longs, size_t n,
                                                              unsigned bits)
{
    uint64_t prev = longs[0];
    uint16_t run = 1;
    for (size_t i = 1; i < n; i++) {
        if (longs[i] == prev) {
            run++;
            continue;
        }
        if (bits)
            count_indices(cnt, prev, bits, 64 / bits, run);
        else
            count_bytes(cnt, prev, run);
        prev = longs[i];
        run = 1;
    }
    if (bits)
        count_indices(cnt, prev, bits, 64 / bits, run);
    else
        count_bytes(cnt, prev, run);
}

/* 5-7 bits: the whole longs, then the last one's indices up to 4096. */
static inline __attribute__((always_inline)) void count_padded(uint16_t *cnt, const uint64_t *longs, unsigned bits)
{
    const unsigned per = 64 / bits, whole = SECTION / per, rest = SECTION % per;
    count_longs(cnt, longs, whole, bits);
    if (rest)
        count_indices(cnt, longs[whole], bits, rest, 1);
}

/* Copies the table's counts of values below `len` into counts; false if a
 * value at or past it was counted. */
static bool read_back(const uint16_t *cnt, unsigned values, uint32_t len, uint32_t *counts)
{
    for (unsigned v = len; v < values; v++)
        if (cnt[v])
            return false;
    for (uint32_t k = 0; k < len && k < values; k++)
        counts[k] = cnt[k];
    for (uint32_t k = values; k < len; k++)
        counts[k] = 0;
    return true;
}

bool world_histogram_blocks(const mc_container *c, uint32_t *counts)
{
    if (c->kind != MC_CONTAINER_INDIRECT || c->rules.size != SECTION || c->bits < 4 || c->bits > 8 || !c->longs)
        return false;
    uint16_t cnt[256];
    memset(cnt, 0, sizeof cnt);
    switch (c->bits) {
    case 4: {
        count_longs(cnt, c->longs, SECTION * 4 / 64, 0);
        uint16_t nib[16] = {0};
        for (unsigned b = 0; b < 256; b += 16) {
            uint64_t q[4];
            memcpy(q, cnt + b, sizeof q);
            if (!(q[0] | q[1] | q[2] | q[3]))
                continue; /* no byte with this high nibble */
            for (unsigned j = b; j < b + 16; j++) {
                nib[j & 15] = (uint16_t)(nib[j & 15] + cnt[j]);
                nib[j >> 4] = (uint16_t)(nib[j >> 4] + cnt[j]);
            }
        }
        return read_back(nib, 16, c->palette_len, counts);
    }
    case 8:
        count_longs(cnt, c->longs, SECTION * 8 / 64, 0);
        break;
    case 5:
        count_padded(cnt, c->longs, 5);
        break;
    case 6:
        count_padded(cnt, c->longs, 6);
        break;
    default:
        count_padded(cnt, c->longs, 7);
        break;
    }
    return read_back(cnt, 1u << c->bits, c->palette_len, counts);
}
