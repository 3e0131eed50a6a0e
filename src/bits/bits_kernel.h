/*
 * bits_kernel.h: the portable bulk kernels of bits.c, written once and
 * instantiated per width. bits.c includes this file 32 times with MC_KB set
 * to 1..32; every shift, mask and loop bound below is then a compile-time
 * constant, so the compiler unrolls the per-long loops completely and no
 * division, modulo or variable shift is left in the hot path.
 *
 * Padded (1.16+): a long holds K = 64/B entries; one load, K shift+mask
 * pairs. For u16 output with B <= 16, four entries are spread into the four
 * 16-bit lanes of one 64-bit word (two shift/or/and steps) and stored with a
 * single 8-byte store, which halves the work and quarters the stores; with
 * GNU C, two such words at once in a 128-bit vector (unpack_padded_).
 *
 * Spanning (pre-1.16): 64 entries fill exactly B longs, so one fully unrolled
 * period of 64 entries has constant long indices and shifts; entries that
 * cross a long boundary combine two longs.
 *
 * Requires: MC_KB defined; bits_private.h included.
 */
#ifndef MC_KB
#error "define MC_KB before including bits_kernel.h"
#endif

#define MC_KCAT2(a, b) a##b
#define MC_KCAT(a, b) MC_KCAT2(a, b)
#define MC_KFN(name) MC_KCAT(name, MC_KB)

#define MC_KK (64 / MC_KB)
#define MC_KMASK ((uint64_t)(MC_KB == 32 ? 0xFFFFFFFFu : ((1u << (MC_KB & 31)) - 1u)))

/* Writes the K entries (or the first n) of long v to out (element size es). */
static MC_ALWAYS_INLINE void MC_KFN(emit_long_)(uint64_t v, void *out, size_t first, unsigned n, int es)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB <= 16
    if (es == 2 && n == MC_KK) {
        /* Four entries at a time into the 16-bit lanes of one word. */
        uint16_t *o = (uint16_t *)out + first;
        enum { G = MC_KK / 4 };
        /* Lane masks: entries 0/2 and 1/3 of a pair step, then 0..3 of the
         * 16-bit lanes; every step keeps what it moved apart. */
        const uint64_t b2 = MC_KB * 2 >= 32 ? 0xFFFFFFFFull : ((1ull << (MC_KB * 2)) - 1);
        const uint64_t lo4 = MC_KB * 4 >= 64 ? ~0ull : ((1ull << ((MC_KB * 4) & 63)) - 1);
        const uint64_t lane_lo = MC_KMASK | (MC_KMASK << 32);
        const uint64_t lane_hi = (MC_KMASK << 16) | (MC_KMASK << 48);
        MC_UNROLL
        for (unsigned g = 0; g < G; g++) {
            uint64_t x = (v >> (g * 4 * MC_KB)) & lo4;
            x = (x & b2) | ((x << (32 - 2 * MC_KB)) & (b2 << 32));
            x = (x & lane_lo) | ((x << (16 - MC_KB)) & lane_hi);
            memcpy(o + 4 * g, &x, 8);
        }
        MC_UNROLL
        for (unsigned j = G * 4; j < MC_KK; j++)
            o[j] = (uint16_t)((v >> (j * MC_KB)) & MC_KMASK);
        return;
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (es == 4 && n == MC_KK && MC_KK >= 2) {
        /* Two entries per 8-byte store: stores, not shifts, bound this loop. */
        uint32_t *o = (uint32_t *)out + first;
        MC_UNROLL
        for (unsigned g = 0; g < MC_KK / 2; g++) {
            uint64_t x = v >> (g * 2 * MC_KB);
            uint64_t pair = (x & MC_KMASK) | (((x >> MC_KB) & MC_KMASK) << 32);
            memcpy(o + 2 * g, &pair, 8);
        }
        if (MC_KK & 1)
            o[MC_KK - 1] = (uint32_t)((v >> ((MC_KK - 1) * MC_KB)) & MC_KMASK);
        return;
    }
#endif
    if (es == 2) {
        uint16_t *o = (uint16_t *)out + first;
        MC_UNROLL
        for (unsigned j = 0; j < MC_KK; j++)
            if (j < n)
                o[j] = (uint16_t)((v >> (j * MC_KB)) & MC_KMASK);
    } else {
        uint32_t *o = (uint32_t *)out + first;
        MC_UNROLL
        for (unsigned j = 0; j < MC_KK; j++)
            if (j < n)
                o[j] = (uint32_t)((v >> (j * MC_KB)) & MC_KMASK);
    }
}

static MC_ALWAYS_INLINE void MC_KFN(unpack_padded_)(const uint64_t *src, size_t count, void *out, int es)
{
    size_t full = count / MC_KK, l = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (MC_KB == 16 || MC_KB == 32)
    if (es == MC_KB / 8) {
        /* the entries are the bytes of the longs */
        memcpy(out, src, count * (size_t)es);
        return;
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB == 8 &&         \
    defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
    {
        /* the entries are the bytes of the longs: zero-extend 16 at a time */
        typedef uint8_t v16u8 __attribute__((vector_size(16)));
        const v16u8 zero = {0};
        for (; l + 2 <= full; l += 2) {
            v16u8 x;
            memcpy(&x, src + l, 16);
            const v16u8 lo = __builtin_shufflevector(x, zero, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
            const v16u8 hi =
                __builtin_shufflevector(x, zero, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
            if (es == 2) {
                memcpy((uint16_t *)out + l * 8, &lo, 16);
                memcpy((uint16_t *)out + l * 8 + 8, &hi, 16);
            } else {
                const mc__v8u16 z16 = {0}, l16 = (mc__v8u16)lo, h16 = (mc__v8u16)hi;
                const mc__v8u16 w0 = __builtin_shufflevector(l16, z16, 0, 8, 1, 9, 2, 10, 3, 11);
                const mc__v8u16 w1 = __builtin_shufflevector(l16, z16, 4, 12, 5, 13, 6, 14, 7, 15);
                const mc__v8u16 w2 = __builtin_shufflevector(h16, z16, 0, 8, 1, 9, 2, 10, 3, 11);
                const mc__v8u16 w3 = __builtin_shufflevector(h16, z16, 4, 12, 5, 13, 6, 14, 7, 15);
                uint32_t *o = (uint32_t *)out + l * 8;
                memcpy(o, &w0, 16);
                memcpy(o + 4, &w1, 16);
                memcpy(o + 8, &w2, 16);
                memcpy(o + 12, &w3, 16);
            }
        }
    }
#endif
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB <= 15
    if (es == 2) {
        /* u16 out, 1..15 bits: the four-lane spread of emit_long_ on two
         * 64-bit lanes of a 128-bit GNU C vector (plain SSE2/NEON shifts and
         * masks, the same count in both lanes). With K >= 8 the lanes hold
         * entries 8g..8g+3 and 8g+4..8g+7 of one long, which makes one
         * 16-byte store; the last 1 or 2 entries of a long (K = 9, 10)
         * are stored on their own, a last group of 3 or more starts at K - 8
         * and rewrites a few entries with the same values. With K = 4..7 the lanes hold two neighbouring longs: groups
         * at entry 0 and K - 4 of each (for K = 4, one 16-byte store). Bits
         * above a group's four entries (the next entries, the padding) are
         * dropped by the spread's masks. */
        typedef uint64_t v2u64 __attribute__((vector_size(16)));
        const uint64_t b2 = (1ull << (MC_KB * 2)) - 1;
        const uint64_t lane_lo = MC_KMASK | (MC_KMASK << 32), lane_hi = (MC_KMASK << 16) | (MC_KMASK << 48);
#define MC_KSPREAD(x)                                                                                   \
    do {                                                                                                \
        (x) = ((x) & b2) | (((x) << (32 - 2 * MC_KB)) & (b2 << 32));                                    \
        (x) = ((x) & lane_lo) | (((x) << (16 - MC_KB)) & lane_hi);                                      \
    } while (0)
        uint16_t *o = (uint16_t *)out;
        if (MC_KK == 12) {
            /* entries 0..7 of each long as below, 8..11 of two longs at once */
            for (; l + 2 <= full; l += 2) {
                MC_UNROLL
                for (unsigned h = 0; h < 2; h++) {
                    const uint64_t a = src[l + h];
                    v2u64 x = {a, a >> (4 * MC_KB)};
                    MC_KSPREAD(x);
                    memcpy(o + (l + h) * MC_KK, &x, 16);
                }
                v2u64 y;
                memcpy(&y, src + l, 16);
                y >>= (8 * MC_KB) & 63; /* (K = 12: 5 bits; the mask quiets other widths) */
                MC_KSPREAD(y);
                const uint64_t y0 = y[0], y1 = y[1];
                memcpy(o + l * MC_KK + 8, &y0, 8);
                memcpy(o + l * MC_KK + 20, &y1, 8);
            }
        }
        if (MC_KK >= 8) {
            for (; l < full; l++) {
                const uint64_t a = src[l];
                const v2u64 t = {a, a >> (4 * MC_KB)};
                const unsigned kk = MC_KK, rest = kk % 8;
                MC_UNROLL
                for (unsigned g = 0; g < (rest > 2 ? (kk + 7) / 8 : kk / 8); g++) {
                    const unsigned first = 8 * g + 8 <= kk ? 8 * g : kk - 8;
                    v2u64 x = t >> (first * MC_KB);
                    MC_KSPREAD(x);
                    memcpy(o + l * MC_KK + first, &x, 16);
                }
                if (rest == 1) {
                    o[l * MC_KK + kk - 1] = (uint16_t)((a >> ((kk - 1) * MC_KB)) & MC_KMASK);
                } else if (rest == 2) {
                    const uint32_t p = (uint32_t)((a >> ((kk - 2) * MC_KB)) & MC_KMASK) |
                                       (uint32_t)((a >> ((kk - 1) * MC_KB)) & MC_KMASK) << 16;
                    memcpy(o + l * MC_KK + kk - 2, &p, 4);
                }
            }
        } else {
            for (; l + 2 <= full; l += 2) {
                v2u64 v;
                memcpy(&v, src + l, 16);
                v2u64 x = v;
                MC_KSPREAD(x);
                if (MC_KK == 4) {
                    memcpy(o + l * MC_KK, &x, 16);
                    continue;
                }
                const uint64_t x0 = x[0], x1 = x[1];
                if (MC_KK == 5) {
                    /* the fifth entries on their own */
                    memcpy(o + l * MC_KK, &x0, 8);
                    memcpy(o + (l + 1) * MC_KK, &x1, 8);
                    o[l * MC_KK + 4] = (uint16_t)((src[l] >> (4 * MC_KB)) & MC_KMASK);
                    o[l * MC_KK + 9] = (uint16_t)((src[l + 1] >> (4 * MC_KB)) & MC_KMASK);
                    continue;
                }
                v2u64 y = v >> ((MC_KK - 4) * MC_KB);
                MC_KSPREAD(y);
                const uint64_t y0 = y[0], y1 = y[1];
                memcpy(o + l * MC_KK, &x0, 8);
                memcpy(o + l * MC_KK + MC_KK - 4, &y0, 8);
                memcpy(o + (l + 1) * MC_KK, &x1, 8);
                memcpy(o + (l + 1) * MC_KK + MC_KK - 4, &y1, 8);
            }
        }
#undef MC_KSPREAD
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB > 21
    if (es == 4) {
        /* Two entries per long: two longs at a time in a 128-bit GNU C
         * vector (plain SSE2/NEON shifts), four entries per store. */
        typedef uint64_t v2u64 __attribute__((vector_size(16)));
        for (; l + 2 <= full; l += 2) {
            v2u64 x;
            memcpy(&x, src + l, 16);
            v2u64 r = (x & MC_KMASK) | (((x >> MC_KB) & MC_KMASK) << 32);
            memcpy((uint32_t *)out + 2 * l, &r, 16);
        }
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KK == 3
    if (es == 4) {
        /* Three entries per long (17..21 bits): four longs a, b, c, d at a
         * time as two 128-bit GNU C vectors X = {a, c}, Y = {b, d} (plain
         * SSE2/NEON shifts and masks), so one vector op builds the pair of
         * 8-byte stores a0|a1 and c0|c1, a2|b0 and c2|d0, b1|b2 and d1|d2.
         * Each half is stored on its own: no shuffles on the way out. Every
         * field is masked, so the padding bit(s) above 3B never leak. */
        typedef uint64_t v2u64 __attribute__((vector_size(16)));
        const uint64_t hi = MC_KMASK << 32;
        for (; l + 4 <= full; l += 4) {
            const v2u64 x = {src[l], src[l + 2]}, y = {src[l + 1], src[l + 3]};
            const v2u64 p0 = (x & MC_KMASK) | ((x << (32 - MC_KB)) & hi);
            const v2u64 p1 = ((x >> (2 * MC_KB)) & MC_KMASK) | ((y << 32) & hi);
            const v2u64 p2 = ((y >> MC_KB) & MC_KMASK) | ((y >> (2 * MC_KB - 32)) & hi);
            uint32_t *o = (uint32_t *)out + l * 3;
            const uint64_t q0 = p0[0], q1 = p1[0], q2 = p2[0], q3 = p0[1], q4 = p1[1], q5 = p2[1];
            memcpy(o, &q0, 8);
            memcpy(o + 2, &q1, 8);
            memcpy(o + 4, &q2, 8);
            memcpy(o + 6, &q3, 8);
            memcpy(o + 8, &q4, 8);
            memcpy(o + 10, &q5, 8);
        }
    }
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (es == 4 && (MC_KK & 1) && MC_KK >= 3) {
        /* Odd K: two longs hold 2K entries, K pairs, one 8-byte store each
         * (no lone 4-byte store per long). */
        for (; l + 2 <= full; l += 2) {
            const uint64_t a = src[l], b = src[l + 1];
            uint32_t *o = (uint32_t *)out + l * MC_KK;
            MC_UNROLL
            for (unsigned j = 0; j < MC_KK; j++) {
                const unsigned i0 = 2 * j, i1 = 2 * j + 1;
                const uint64_t v0 = i0 < MC_KK ? (a >> ((i0 * MC_KB) & 63)) & MC_KMASK
                                               : (b >> (((i0 - MC_KK) * MC_KB) & 63)) & MC_KMASK;
                const uint64_t v1 = i1 < MC_KK ? (a >> ((i1 * MC_KB) & 63)) & MC_KMASK
                                               : (b >> (((i1 - MC_KK) * MC_KB) & 63)) & MC_KMASK;
                const uint64_t pair = v0 | (v1 << 32);
                memcpy(o + 2 * j, &pair, 8);
            }
        }
    }
#endif
    for (; l < full; l++)
        MC_KFN(emit_long_)(src[l], out, l * MC_KK, MC_KK, es);
    if (count > full * MC_KK)
        MC_KFN(emit_long_)(src[full], out, full * MC_KK, (unsigned)(count - full * MC_KK), es);
}

static MC_ALWAYS_INLINE uint64_t MC_KFN(span_entry_)(const uint64_t *w, unsigned j)
{
    /* Entry j of a 64-entry period starting at w[0]. */
    const unsigned bit = j * MC_KB, a = bit >> 6, s = bit & 63;
    uint64_t v = w[a] >> s;
    if (s + MC_KB > 64)
        v |= w[a + 1] << (64 - s);
    return v & MC_KMASK;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB <= 15
/* Spanning, u16 out: the four entries at bits [r, r + 4B) of each 64-bit
 * lane of x, one per u16 lane. Lane j needs entry j inside its 16 bits:
 * x shifted left by 16 - B - r holds e0 at the top of lane 0 and e1 at the
 * bottom of lane 1, x shifted by 48 - 3B - r holds e2 at the top of lane 2
 * and e3 at the bottom of lane 3; one blend takes the low half of the first
 * and the high half of the second, a u16 multiply moves the odd lanes to
 * the top (dropping what lies above them) and a u16 shift brings all four
 * down (dropping what lay below). */
static MC_ALWAYS_INLINE mc__v8u16 MC_KFN(span_spread16_)(mc__v2u64 x, unsigned r)
{
    const int sa = 16 - MC_KB - (int)r, sb = 48 - 3 * MC_KB - (int)r;
    const mc__v2u64 a = sa >= 0 ? x << (sa & 63) : x >> (-sa & 63);
    const mc__v2u64 c = sb >= 0 ? x << (sb & 63) : x >> (-sb & 63);
    const uint16_t f = (uint16_t)(1u << (16 - MC_KB));
    const mc__v8u16 mul = {1, f, 1, f, 1, f, 1, f};
    const mc__v2u64 z = (a & 0xFFFFFFFFull) | (c & ~0xFFFFFFFFull);
    return ((mc__v8u16)z * mul) >> (16 - MC_KB);
}
#endif

/* Spanning, the vector part: whole groups of 16 entries from the start,
 * returns how many entries it wrote. Eight entries fill exactly B bytes,
 * so entry 8g + j sits at byte gB + (jB >> 3), bit (jB & 7): the offsets
 * inside an octet are constants, and the same in every octet. */
static MC_ALWAYS_INLINE size_t MC_KFN(unpack_spanning_vec_)(const uint64_t *src, size_t count, void *out, int es)
{
    size_t i = 0;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                     \
    defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#if MC_KB <= 15 || (MC_KB >= 17 && MC_KB <= 31)
    const uint8_t *bytes = (const uint8_t *)src;
    /* the array's whole longs; reads stay below (g + 2)B + 8 bytes */
    const size_t nbytes = 8 * ((count * MC_KB + 63) / 64);
#endif
#if MC_KB <= 15
    {
        /* u16 lanes: octets g and g + 1 side by side, the first four
         * entries of each in one vector (bit 0), the last four in another
         * (bit 4B & 7, the same for both); two 64-bit interleaves put each
         * octet's eight entries together. */
        enum { O1 = (4 * MC_KB) >> 3, R1 = (4 * MC_KB) & 7 };
        for (; i + 16 <= count && (i / 8 + 2) * MC_KB + 8 <= nbytes; i += 16) {
            const uint8_t *p = bytes + (i / 8) * MC_KB;
            uint64_t a0, a1, c0, c1;
            memcpy(&a0, p, 8);
            memcpy(&a1, p + MC_KB, 8);
            memcpy(&c0, p + O1, 8);
            memcpy(&c1, p + MC_KB + O1, 8);
            const mc__v2u64 x = {a0, a1}, y = {c0, c1};
            const mc__v2u64 s0 = (mc__v2u64)MC_KFN(span_spread16_)(x, 0);
            const mc__v2u64 s1 = (mc__v2u64)MC_KFN(span_spread16_)(y, R1);
            const mc__v8u16 o0 = (mc__v8u16)__builtin_shufflevector(s0, s1, 0, 2);
            const mc__v8u16 o1 = (mc__v8u16)__builtin_shufflevector(s0, s1, 1, 3);
            if (es == 2) {
                memcpy((uint16_t *)out + i, &o0, 16);
                memcpy((uint16_t *)out + i + 8, &o1, 16);
            } else {
                const mc__v8u16 zero = {0, 0, 0, 0, 0, 0, 0, 0};
                const mc__v8u16 w0 = __builtin_shufflevector(o0, zero, 0, 8, 1, 9, 2, 10, 3, 11);
                const mc__v8u16 w1 = __builtin_shufflevector(o0, zero, 4, 12, 5, 13, 6, 14, 7, 15);
                const mc__v8u16 w2 = __builtin_shufflevector(o1, zero, 0, 8, 1, 9, 2, 10, 3, 11);
                const mc__v8u16 w3 = __builtin_shufflevector(o1, zero, 4, 12, 5, 13, 6, 14, 7, 15);
                uint32_t *o = (uint32_t *)out + i;
                memcpy(o, &w0, 16);
                memcpy(o + 4, &w1, 16);
                memcpy(o + 8, &w2, 16);
                memcpy(o + 12, &w3, 16);
            }
        }
    }
#elif MC_KB >= 17 && MC_KB <= 31
    if (es == 4) {
        /* u32 lanes: pair k (entries 2k, 2k + 1) of octets g and g + 1 side
         * by side in one vector (the same bit offset r in both). Shifted so
         * that the first entry of a pair ends at bit 32 and, in another
         * copy, the second ends at bit 64, one shuffle picks the four
         * u32 halves that hold them at their tops: (g.2k, g+1.2k, g.2k+1,
         * g+1.2k+1). Two such vectors make two runs of four entries, with
         * one shuffle each; one shift drops what lay below. When a pair
         * does not fit in the 64 bits from its first byte (31 bits at
         * r = 6), its second entry is read from its own byte. */
        for (; i + 16 <= count && (i / 8 + 2) * MC_KB + 8 <= nbytes; i += 16) {
            const uint8_t *p = bytes + (i / 8) * MC_KB;
            mc__v4u32 w[4];
            MC_UNROLL
            for (unsigned k = 0; k < 4; k++) {
                const unsigned b0 = 2 * k * MC_KB, b1 = b0 + MC_KB;
                const unsigned r0 = b0 & 7, at0 = b0 >> 3;
                uint64_t a0, a1;
                memcpy(&a0, p + at0, 8);
                memcpy(&a1, p + MC_KB + at0, 8);
                const mc__v2u64 x = {a0, a1};
                const int s1 = 32 - (int)MC_KB - (int)r0;
                const mc__v2u64 t1 = s1 >= 0 ? x << (s1 & 63) : x >> (-s1 & 63);
                mc__v2u64 t2;
                if (r0 + 2 * MC_KB <= 64) {
                    const int s2 = 64 - 2 * (int)MC_KB - (int)r0;
                    t2 = s2 >= 0 ? x << (s2 & 63) : x >> (-s2 & 63);
                } else {
                    const unsigned r1 = b1 & 7, at1 = b1 >> 3;
                    uint64_t c0, c1;
                    memcpy(&c0, p + at1, 8);
                    memcpy(&c1, p + MC_KB + at1, 8);
                    const mc__v2u64 y = {c0, c1};
                    t2 = y << ((64 - MC_KB - r1) & 63);
                }
                w[k] = __builtin_shufflevector((mc__v4u32)t1, (mc__v4u32)t2, 0, 2, 5, 7);
            }
            uint32_t *o = (uint32_t *)out + i;
            const mc__v4u32 q0 = __builtin_shufflevector(w[0], w[1], 0, 2, 4, 6) >> (32 - MC_KB);
            const mc__v4u32 q1 = __builtin_shufflevector(w[2], w[3], 0, 2, 4, 6) >> (32 - MC_KB);
            const mc__v4u32 q2 = __builtin_shufflevector(w[0], w[1], 1, 3, 5, 7) >> (32 - MC_KB);
            const mc__v4u32 q3 = __builtin_shufflevector(w[2], w[3], 1, 3, 5, 7) >> (32 - MC_KB);
            memcpy(o, &q0, 16);
            memcpy(o + 4, &q1, 16);
            memcpy(o + 8, &q2, 16);
            memcpy(o + 12, &q3, 16);
        }
    }
#endif
#endif
#endif
    (void)src;
    (void)count;
    (void)out;
    (void)es;
    return i;
}

static MC_ALWAYS_INLINE void MC_KFN(unpack_spanning_)(const uint64_t *src, size_t count, void *out, int es)
{
    const size_t done = MC_KFN(unpack_spanning_vec_)(src, count, out, es);
    if (done) {
        /* the few entries after the vector groups */
        const size_t nl = (count * MC_KB + 63) / 64;
        for (size_t i = done; i < count; i++) {
            uint64_t v = mc__bits_get_spanning_bounded(src, nl, i, MC_KB);
            if (es == 2)
                ((uint16_t *)out)[i] = (uint16_t)v;
            else
                ((uint32_t *)out)[i] = (uint32_t)v;
        }
        return;
    }
    size_t periods = count / 64, p;
    for (p = 0; p < periods; p++) {
        const uint64_t *w = src + p * MC_KB;
        if (es == 2) {
            uint16_t *o = (uint16_t *)out + p * 64;
            MC_UNROLL
            for (unsigned j = 0; j < 64; j++)
                o[j] = (uint16_t)MC_KFN(span_entry_)(w, j);
        } else {
            uint32_t *o = (uint32_t *)out + p * 64;
            MC_UNROLL
            for (unsigned j = 0; j < 64; j++)
                o[j] = (uint32_t)MC_KFN(span_entry_)(w, j);
        }
    }
    /* The tail: the last period may be cut anywhere, so read with bounds. */
    size_t nlongs = (count * MC_KB + 63) / 64;
    for (size_t i = periods * 64; i < count; i++) {
        uint64_t v = mc__bits_get_spanning_bounded(src, nlongs, i, MC_KB);
        if (es == 2)
            ((uint16_t *)out)[i] = (uint16_t)v;
        else
            ((uint32_t *)out)[i] = (uint32_t)v;
    }
}

static MC_ALWAYS_INLINE uint64_t MC_KFN(in_)(const void *in, size_t i, int es)
{
    return es == 2 ? (uint64_t)((const uint16_t *)in)[i] : (uint64_t)((const uint32_t *)in)[i];
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB <= 15
/* Packs the u16 lanes skip..3 of each 64-bit lane of x (four u16 entries,
 * any bits above B) into bits [pos + skip*B, pos + 4B) of that lane, all
 * other bits clear. pos is a constant, so is everything below.
 *
 * Four entries e0..e3: a u16 multiply by (2^(16-B), 1, 2^(16-B), 1) puts e0
 * just below e1 and e2 just below e3 (dropping the bits of e0 and e2 above
 * B; a factor 0 drops a skipped lane). Then e2 e3 already lie at
 * [48 - B, 48 + B), and the lane shifted left by 32 - 2B brings e0 e1 to
 * [48 - 3B, 48 - B); one mask each keeps exactly those bits (which drops
 * the bits of e1 and e3 above B), and one shift takes the four to pos. */
static MC_ALWAYS_INLINE mc__v2u64 MC_KFN(pack_quad16_)(mc__v2u64 x, unsigned skip, unsigned pos)
{
    enum { S = 16 - MC_KB, T = 48 - 3 * MC_KB };
    const uint64_t m = MC_KMASK;
    if (skip == 3) {
        /* e3 alone, from bit 48 to bit pos + 3B */
        const unsigned to = pos + 3 * MC_KB;
        return to >= 48 ? (x << ((to - 48) & 63)) & (m << (to & 63)) : (x >> ((48 - to) & 63)) & (m << (to & 63));
    }
    const uint16_t f = (uint16_t)(1u << S);
    const mc__v8u16 mul = {skip > 0 ? 0 : f, skip > 1 ? 0 : 1, f, 1, skip > 0 ? 0 : f, skip > 1 ? 0 : 1, f, 1};
    const mc__v2u64 v = (mc__v2u64)((mc__v8u16)x * mul);
    const uint64_t hi = ((1ull << (48 + MC_KB)) - 1) & ~0xFFFFFFFFull;
    mc__v2u64 q = v & hi;
    if (skip < 2)
        q |= (v << (32 - 2 * MC_KB)) & ((1ull << (48 - MC_KB)) - 1);
    return pos >= T ? q << ((pos - T) & 63) : q >> ((T - pos) & 63);
}
#endif

static MC_ALWAYS_INLINE void MC_KFN(pack_padded_)(const void *in, size_t count, uint64_t *dst, int es)
{
    size_t full = count / MC_KK, l = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (MC_KB == 16 || MC_KB == 32)
    if (es == MC_KB / 8) {
        /* whole longs are the input bytes */
        memcpy(dst, in, full * 8);
        l = full;
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB <= 15
    if (es == 2) {
        /* Two longs at a time, one in each 64-bit lane of a vector: quad j
         * of each long (entries 4j..4j+3; the last quad of a long ends at
         * its last entry and drops the lanes an earlier quad packed) is
         * packed in place and shifted to bit 4Bj (a constant). Loads stay
         * inside the two longs' entries. */
        enum { NQ = (MC_KK + 3) / 4 };
        const uint16_t *in16 = (const uint16_t *)in;
        for (; l + 2 <= full; l += 2) {
            const uint16_t *p = in16 + l * MC_KK;
            mc__v2u64 acc = {0, 0};
            MC_UNROLL
            for (unsigned j = 0; j < NQ; j++) {
                const unsigned at = 4 * j + 4 <= MC_KK ? 4 * j : MC_KK - 4;
                uint64_t a, c;
                memcpy(&a, p + at, 8);
                memcpy(&c, p + MC_KK + at, 8);
                const mc__v2u64 x = {a, c};
                acc |= MC_KFN(pack_quad16_)(x, 4 * j - at, at * MC_KB);
            }
            memcpy(dst + l, &acc, 16);
        }
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && MC_KB > 16 && MC_KB < 32
    if (es == 4) {
        /* Pairs e0 | e1 << 32 in 64-bit lanes become e0 | e1 << B. Two
         * entries per long: one vector is two longs. Three: the pairs
         * (e0, e1) of two longs, and the third entries from the high halves
         * of (e1, e2). */
        const uint32_t *in32 = (const uint32_t *)in;
        const uint64_t m = MC_KMASK;
#define MC_KPAIR(x) (((x) & m) | (((x) >> (32 - MC_KB)) & (m << MC_KB)))
        if (MC_KK == 2) {
            _Pragma("GCC unroll 4")
            for (; l + 2 <= full; l += 2) {
                mc__v2u64 x;
                memcpy(&x, in32 + 2 * l, 16);
                x = MC_KPAIR(x);
                memcpy(dst + l, &x, 16);
            }
        } else {
            for (; l + 2 <= full; l += 2) {
                const uint32_t *p = in32 + 3 * l;
                uint64_t a, c, d, e;
                memcpy(&a, p, 8);
                memcpy(&c, p + 3, 8);
                memcpy(&d, p + 1, 8);
                memcpy(&e, p + 4, 8);
                const mc__v2u64 x = {a, c}, y = {d, e};
                const mc__v2u64 r = MC_KPAIR(x) | ((y & (m << 32)) << ((2 * MC_KB - 32) & 63));
                memcpy(dst + l, &r, 16);
            }
        }
#undef MC_KPAIR
    }
#endif
    for (; l < full; l++) {
        uint64_t v = 0;
        size_t b = l * MC_KK;
        MC_UNROLL
        for (unsigned j = 0; j < MC_KK; j++)
            v |= (MC_KFN(in_)(in, b + j, es) & MC_KMASK) << (j * MC_KB);
        dst[l] = v;
    }
    if (count > full * MC_KK) {
        uint64_t v = 0;
        size_t b = full * MC_KK;
        for (unsigned j = 0; b + j < count; j++)
            v |= (MC_KFN(in_)(in, b + j, es) & MC_KMASK) << (j * MC_KB);
        dst[full] = v;
    }
}

static MC_ALWAYS_INLINE void MC_KFN(pack_spanning_)(const void *in, size_t count, uint64_t *dst, int es)
{
    size_t periods = count / 64, p;
    for (p = 0; p < periods; p++) {
        uint64_t w[MC_KB];
        MC_UNROLL
        for (unsigned a = 0; a < MC_KB; a++)
            w[a] = 0;
        MC_UNROLL
        for (unsigned j = 0; j < 64; j++) {
            const unsigned bit = j * MC_KB, a = bit >> 6, s = bit & 63;
            uint64_t v = MC_KFN(in_)(in, p * 64 + j, es) & MC_KMASK;
            w[a] |= v << s;
            if (s + MC_KB > 64)
                w[a + 1] |= v >> (64 - s);
        }
        memcpy(dst + p * MC_KB, w, sizeof w);
    }
    size_t nlongs = (count * MC_KB + 63) / 64;
    for (size_t a = periods * MC_KB; a < nlongs; a++)
        dst[a] = 0;
    for (size_t i = periods * 64; i < count; i++) {
        uint64_t v = MC_KFN(in_)(in, i, es) & MC_KMASK;
        size_t bit = i * MC_KB;
        unsigned s = (unsigned)(bit & 63);
        dst[bit >> 6] |= v << s;
        if (s + MC_KB > 64)
            dst[(bit >> 6) + 1] |= v >> (64 - s);
    }
}

/* The out-of-line instances bits.c puts in its dispatch tables. */
static void MC_KFN(mc_unpack_padded_u16_)(const uint64_t *s, size_t n, void *o) { MC_KFN(unpack_padded_)(s, n, o, 2); }
static void MC_KFN(mc_unpack_padded_u32_)(const uint64_t *s, size_t n, void *o) { MC_KFN(unpack_padded_)(s, n, o, 4); }
static void MC_KFN(mc_unpack_spanning_u16_)(const uint64_t *s, size_t n, void *o) { MC_KFN(unpack_spanning_)(s, n, o, 2); }
static void MC_KFN(mc_unpack_spanning_u32_)(const uint64_t *s, size_t n, void *o) { MC_KFN(unpack_spanning_)(s, n, o, 4); }
static void MC_KFN(mc_pack_padded_u16_)(const void *i, size_t n, uint64_t *d) { MC_KFN(pack_padded_)(i, n, d, 2); }
static void MC_KFN(mc_pack_padded_u32_)(const void *i, size_t n, uint64_t *d) { MC_KFN(pack_padded_)(i, n, d, 4); }
static void MC_KFN(mc_pack_spanning_u16_)(const void *i, size_t n, uint64_t *d) { MC_KFN(pack_spanning_)(i, n, d, 2); }
static void MC_KFN(mc_pack_spanning_u32_)(const void *i, size_t n, uint64_t *d) { MC_KFN(pack_spanning_)(i, n, d, 4); }

#undef MC_KK
#undef MC_KMASK
#undef MC_KFN
#undef MC_KCAT
#undef MC_KCAT2
