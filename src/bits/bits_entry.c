/*
 * bits_entry.c: the sizes of packed arrays and their single entries, for
 * any width at run time (see include/mcchunk/bits.h).
 *
 * These are the bottom of the module: the bulk kernels (bits.c's portable
 * ones, bits_avx2.c, bits_avx512.c) use them for the few entries at the
 * edge of a run, and nothing here calls a kernel, so the dispatcher above
 * them and the kernels below never call each other in a circle. Positions
 * are found without a division (a table of entries per long and one of
 * reciprocals), because containers ask for them on every read.
 */
#include "bits_private.h"
/* ---------------------------------------------------------------- sizes */

unsigned mc_bits_per_long(unsigned bits)
{
    return bits == 0 || bits > 64 ? 0 : 64 / bits;
}

/* Entries per long in the padded layout, by width (no division at run time). */
static const uint8_t per_long[33] = {0, 64, 32, 21, 16, 12, 10, 9, 8, 7, 6, 5, 5, 4, 4, 4, 4,
                                     3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

/* mc_bits_longs(4096, b, MC_BITS_PADDED) by width: block containers ask for
 * it several times per section read. */
#define MC_L4096(b) ((4096u + 64u / (b) - 1u) / (64u / (b)))
const uint16_t mc__bits_longs_4096[33] = {
    0,            MC_L4096(1),  MC_L4096(2),  MC_L4096(3),  MC_L4096(4),  MC_L4096(5),  MC_L4096(6),
    MC_L4096(7),  MC_L4096(8),  MC_L4096(9),  MC_L4096(10), MC_L4096(11), MC_L4096(12), MC_L4096(13),
    MC_L4096(14), MC_L4096(15), MC_L4096(16), MC_L4096(17), MC_L4096(18), MC_L4096(19), MC_L4096(20),
    MC_L4096(21), MC_L4096(22), MC_L4096(23), MC_L4096(24), MC_L4096(25), MC_L4096(26), MC_L4096(27),
    MC_L4096(28), MC_L4096(29), MC_L4096(30), MC_L4096(31), MC_L4096(32)};
#undef MC_L4096
/* and for the 64 entries of a biome container */
#define MC_L64(b) ((64u + 64u / (b) - 1u) / (64u / (b)))
const uint8_t mc__bits_longs_64[33] = {
    0,          MC_L64(1),  MC_L64(2),  MC_L64(3),  MC_L64(4),  MC_L64(5),  MC_L64(6),  MC_L64(7),
    MC_L64(8),  MC_L64(9),  MC_L64(10), MC_L64(11), MC_L64(12), MC_L64(13), MC_L64(14), MC_L64(15),
    MC_L64(16), MC_L64(17), MC_L64(18), MC_L64(19), MC_L64(20), MC_L64(21), MC_L64(22), MC_L64(23),
    MC_L64(24), MC_L64(25), MC_L64(26), MC_L64(27), MC_L64(28), MC_L64(29), MC_L64(30), MC_L64(31),
    MC_L64(32)};
#undef MC_L64

size_t mc_bits_longs(size_t count, unsigned bits, mc_bits_layout layout)
{
    if (bits > MC_BITS_MAX)
        return SIZE_MAX;
    if (bits == 0 || count == 0)
        return 0;
    if (layout == MC_BITS_PADDED) {
        if (count == 4096) /* the two container sizes: tables */
            return mc__bits_longs_4096[bits];
        if (count == 64)
            return mc__bits_longs_64[bits];
        const size_t k = per_long[bits]; /* a table, not a division */
        if (count < ((size_t)1 << 26)) {
            /* division by reciprocal (exact below 2^26): called per
             * container on every read */
            const size_t q = (size_t)((count * mc__bits_recip[k]) >> 32);
            return q + (q * k != count);
        }
        return count / k + (count % k != 0);
    }
    if (count > SIZE_MAX / 64)
        return SIZE_MAX;
    return (count * bits + 63) / 64;
}

unsigned mc_bits_ceil_log2(uint64_t n)
{
    if (n <= 1)
        return 0;
    return 64u - (unsigned)__builtin_clzll(n - 1);
}

static inline uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

/* -------------------------------------------------------- single entries */

#define R(k) (((1ull << 32) + (k) - 1) / (k))
const uint64_t mc__bits_recip[65] = {
    0, R(1), R(2), R(3), R(4), R(5), R(6), R(7), R(8), R(9), R(10), R(11), R(12), R(13), R(14),
    R(15), R(16), R(17), R(18), R(19), R(20), R(21), R(22), R(23), R(24), R(25), R(26), R(27),
    R(28), R(29), R(30), R(31), R(32), R(33), R(34), R(35), R(36), R(37), R(38), R(39), R(40),
    R(41), R(42), R(43), R(44), R(45), R(46), R(47), R(48), R(49), R(50), R(51), R(52), R(53),
    R(54), R(55), R(56), R(57), R(58), R(59), R(60), R(61), R(62), R(63), R(64)};
#undef R

/* Where entry `index` lives: long a, shift s (spanning: may continue in a+1). */
static inline void locate(size_t index, unsigned bits, mc_bits_layout layout, size_t *a, unsigned *s)
{
    if (layout == MC_BITS_PADDED) {
        unsigned k = per_long[bits];
        *a = index < (1u << 26) ? (size_t)((index * mc__bits_recip[k]) >> 32) : index / k;
        *s = (unsigned)(index - *a * k) * bits;
    } else {
        size_t bit = index * bits;
        *a = bit >> 6;
        *s = (unsigned)(bit & 63);
    }
}

uint32_t mc_bits_get(const uint64_t *longs, size_t index, unsigned bits, mc_bits_layout layout)
{
    if (bits == 0 || bits > MC_BITS_MAX)
        return 0;
    size_t a;
    unsigned s;
    locate(index, bits, layout, &a, &s);
    uint64_t v = longs[a] >> s;
    if (s + bits > 64)
        v |= longs[a + 1] << (64 - s);
    return (uint32_t)(v & width_mask(bits));
}

void mc_bits_set(uint64_t *longs, size_t index, unsigned bits, mc_bits_layout layout, uint32_t value)
{
    if (bits == 0 || bits > MC_BITS_MAX)
        return;
    size_t a;
    unsigned s;
    locate(index, bits, layout, &a, &s);
    uint64_t m = width_mask(bits), v = value & m;
    longs[a] = (longs[a] & ~(m << s)) | (v << s);
    if (s + bits > 64) {
        unsigned r = 64 - s; /* bits already stored in long a */
        longs[a + 1] = (longs[a + 1] & ~(m >> r)) | (v >> r);
    }
}

uint32_t mc_bits_get_be(const uint8_t *be, size_t index, unsigned bits, mc_bits_layout layout)
{
    if (bits == 0 || bits > MC_BITS_MAX)
        return 0;
    size_t a;
    unsigned s;
    locate(index, bits, layout, &a, &s);
    uint64_t v = mc_load_u64be(be + 8 * a) >> s;
    if (s + bits > 64)
        v |= mc_load_u64be(be + 8 * (a + 1)) << (64 - s);
    return (uint32_t)(v & width_mask(bits));
}

void mc_bits_set_be(uint8_t *be, size_t index, unsigned bits, mc_bits_layout layout, uint32_t value)
{
    if (bits == 0 || bits > MC_BITS_MAX)
        return;
    size_t a;
    unsigned s;
    locate(index, bits, layout, &a, &s);
    uint64_t m = width_mask(bits), v = value & m;
    uint64_t w = mc_load_u64be(be + 8 * a);
    mc_store_u64be(be + 8 * a, (w & ~(m << s)) | (v << s));
    if (s + bits > 64) {
        unsigned r = 64 - s;
        w = mc_load_u64be(be + 8 * (a + 1));
        mc_store_u64be(be + 8 * (a + 1), (w & ~(m >> r)) | (v >> r));
    }
}
