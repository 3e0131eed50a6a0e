/*
 * bits.c: packed arrays in both layouts the game has used (see
 * include/mcchunk/bits.h).
 *
 * Sizes and single-entry get/set live in bits_entry.c. The bulk functions
 * pick a kernel per call (mc__bits_unpack_choice: the fastest measured per
 * width and tier): a plain copy where the padded longs already are the
 * entry array (16 bits into u16, 32 into u32, little-endian input), the
 * AVX-512 table-driven kernels of bits_avx512.c
 * when the CPU has them, else (unpack) the AVX2 ones of bits_avx2.c,
 * otherwise the portable kernels instantiated per
 * width from bits_kernel.h (a table of function pointers indexed by width,
 * so every kernel sees its width as a constant).
 *
 * Big-endian input on the portable path is converted in stack-sized blocks
 * (64 longs, or one whole number of 64-entry periods for spanning arrays)
 * right before the native kernel runs over it, so the bytes are touched once
 * while they are still in L1; the SIMD kernels fold the swap into their
 * shuffles instead.
 */
#include "bits_private.h"

#include <string.h>

/* ------------------------------------------------------- portable kernels */

#define MC_KB 1
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 2
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 3
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 4
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 5
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 6
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 7
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 8
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 9
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 10
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 11
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 12
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 13
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 14
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 15
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 16
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 17
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 18
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 19
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 20
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 21
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 22
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 23
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 24
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 25
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 26
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 27
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 28
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 29
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 30
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 31
#include "bits_kernel.h"
#undef MC_KB
#define MC_KB 32
#include "bits_kernel.h"
#undef MC_KB

typedef void (*unpack_fn)(const uint64_t *src, size_t count, void *out);
typedef void (*pack_fn)(const void *in, size_t count, uint64_t *dst);

#define MC_ALL_WIDTHS(X, name)                                                  \
    NULL, X(name, 1), X(name, 2), X(name, 3), X(name, 4), X(name, 5), X(name, 6), \
    X(name, 7), X(name, 8), X(name, 9), X(name, 10), X(name, 11), X(name, 12),   \
    X(name, 13), X(name, 14), X(name, 15), X(name, 16), X(name, 17), X(name, 18), \
    X(name, 19), X(name, 20), X(name, 21), X(name, 22), X(name, 23), X(name, 24), \
    X(name, 25), X(name, 26), X(name, 27), X(name, 28), X(name, 29), X(name, 30), \
    X(name, 31), X(name, 32)
#define MC_KREF(name, b) name##b

/* [layout][es == 4][bits] */
static const unpack_fn unpack_table[2][2][33] = {
    {{MC_ALL_WIDTHS(MC_KREF, mc_unpack_padded_u16_)}, {MC_ALL_WIDTHS(MC_KREF, mc_unpack_padded_u32_)}},
    {{MC_ALL_WIDTHS(MC_KREF, mc_unpack_spanning_u16_)}, {MC_ALL_WIDTHS(MC_KREF, mc_unpack_spanning_u32_)}},
};
static const pack_fn pack_table[2][2][33] = {
    {{MC_ALL_WIDTHS(MC_KREF, mc_pack_padded_u16_)}, {MC_ALL_WIDTHS(MC_KREF, mc_pack_padded_u32_)}},
    {{MC_ALL_WIDTHS(MC_KREF, mc_pack_spanning_u16_)}, {MC_ALL_WIDTHS(MC_KREF, mc_pack_spanning_u32_)}},
};


/* ------------------------------------------------------------ conversion */

void mc_bits_load_be(const uint8_t *be, size_t n, uint64_t *longs)
{
    size_t i = 0;
#if defined(MC_HAVE_AVX512_KERNELS) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8 && mc__bits_have_avx2())
        i = mc__bits_swap_avx2(be, n, (uint8_t *)longs);
#endif
    for (; i < n; i++)
        longs[i] = mc_load_u64be(be + 8 * i);
}

void mc_bits_store_be(const uint64_t *longs, size_t n, uint8_t *be)
{
    size_t i = 0;
#if defined(MC_HAVE_AVX512_KERNELS) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 8 && mc__bits_have_avx2())
        i = mc__bits_swap_avx2((const uint8_t *)longs, n, be);
#endif
    for (; i < n; i++)
        mc_store_u64be(be + 8 * i, longs[i]);
}

/* ------------------------------------------------------------ bulk unpack */

/* The kernels in force: the unpack tier, then the extras used on top of it
 * (VBMI2 by the AVX-512 spanning unpack, VPOPCNTDQ by mc_bits_count_equal). */
const char *mc_bits_kernel_name(void)
{
    static const char *const names[3][2][2] = {
        {{"portable", "portable+vpopcntdq"}, {"portable", "portable+vpopcntdq"}},
        {{"avx2", "avx2+vpopcntdq"}, {"avx2", "avx2+vpopcntdq"}},
        {{"avx512vbmi", "avx512vbmi+vpopcntdq"}, {"avx512vbmi+vbmi2", "avx512vbmi+vbmi2+vpopcntdq"}},
    };
    const int tier = mc__bits_have_avx512() ? 2 : mc__bits_have_avx2() ? 1 : 0;
    return names[tier][mc__cpu_has(MC_CPU_AVX512VBMI2)][mc__bits_have_vpopcntdq()];
}

static void fill_zero(void *out, size_t count, int es)
{
    memset(out, 0, count * (size_t)es);
}

/* The unpack kernel for a width, per tier: the fastest one measured
 * (bench_bits, a pool of 16 sections, every kernel's samples interleaved):
 *   - 16 bits into 16-bit entries and 32 into 32-bit ones, little-endian:
 *     the padded longs are the entry array itself, and a copy beats every
 *     shuffling kernel (AVX-512's took 88 / 110 ns a section where the
 *     portable loop took 36 / 70);
 *   - AVX2 CPUs: the portable kernels at 1, 2 and 8 bits into u16 (the
 *     compiler's widening loops; 8 bits: 220 against 560 ns) and at 17..21
 *     bits padded into u32 (650-680 against 900-1000 ns), little-endian
 *     input; big-endian input keeps the AVX2 kernels, which fold the swap.
 * `layout` is the normalised one (padded for widths dividing 64). */
mc__unpack_kernel mc__bits_unpack_choice(unsigned bits, mc_bits_layout layout, bool be, int es, unsigned cpu)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (!be && bits == 8u * (unsigned)es)
        return MC__UNPACK_COPY;
#endif
    if ((cpu & MC_CPU_AVX512_KERNELS) == MC_CPU_AVX512_KERNELS)
        return MC__UNPACK_AVX512;
    if (cpu & MC_CPU_AVX2) {
        bool portable_faster = !be && ((es == 2 && (bits == 1 || bits == 2 || bits == 8)) ||
                                       (es == 4 && layout == MC_BITS_PADDED && bits >= 17 && bits <= 21));
        return portable_faster ? MC__UNPACK_PORTABLE : MC__UNPACK_AVX2;
    }
    return MC__UNPACK_PORTABLE;
}

/* Longs per block when big-endian input is converted on the stack. */
#define BE_BLOCK_LONGS 256

static void unpack_any(const void *src, bool be, size_t count, unsigned bits,
                       mc_bits_layout layout, void *out, int es)
{
    if (count == 0)
        return;
    if (bits == 0 || bits > MC_BITS_MAX) {
        fill_zero(out, count, es);
        return;
    }
    if (64 % bits == 0)
        layout = MC_BITS_PADDED; /* 1, 2, 4, 8, 16, 32 bits: both layouts are one */
    const unsigned cpu = mc__cpu_features();
    switch (mc__bits_unpack_choice(bits, layout, be, es, cpu)) {
    case MC__UNPACK_COPY:
        memcpy(out, src, count * (size_t)es);
        return;
    case MC__UNPACK_AVX512:
        if (mc__bits_unpack_avx512(src, be, count, bits, layout, out, es, cpu))
            return;
        break;
    case MC__UNPACK_AVX2:
        if (mc__bits_unpack_avx2(src, be, count, bits, layout, out, es))
            return;
        break;
    case MC__UNPACK_PORTABLE:
        break;
    }
    unpack_fn fn = unpack_table[layout == MC_BITS_SPANNING][es == 4][bits];
    if (!be) {
        fn((const uint64_t *)src, count, out);
        return;
    }
    /* A block is a whole number of longs that ends on an entry boundary:
     * padded, any number of longs; spanning, whole 64-entry periods
     * (`bits` longs each). */
    uint64_t tmp[BE_BLOCK_LONGS];
    size_t block_longs, block_entries;
    if (layout == MC_BITS_PADDED) {
        block_longs = BE_BLOCK_LONGS;
        block_entries = block_longs * (64 / bits);
    } else {
        block_longs = (BE_BLOCK_LONGS / bits) * bits;
        block_entries = (block_longs / bits) * 64;
    }
    const uint8_t *p = src;
    size_t done = 0;
    while (done < count) {
        size_t n = count - done < block_entries ? count - done : block_entries;
        size_t nl = mc_bits_longs(n, bits, layout);
        mc_bits_load_be(p, nl, tmp);
        fn(tmp, n, (uint8_t *)out + done * (size_t)es);
        p += 8 * block_longs;
        done += n;
    }
}

void mc_bits_unpack_u16(const uint64_t *longs, size_t count, unsigned bits, mc_bits_layout layout, uint16_t *out)
{
    unpack_any(longs, false, count, bits, layout, out, 2);
}
void mc_bits_unpack_u32(const uint64_t *longs, size_t count, unsigned bits, mc_bits_layout layout, uint32_t *out)
{
    unpack_any(longs, false, count, bits, layout, out, 4);
}
void mc_bits_unpack_be_u16(const uint8_t *be, size_t count, unsigned bits, mc_bits_layout layout, uint16_t *out)
{
    unpack_any(be, true, count, bits, layout, out, 2);
}
void mc_bits_unpack_be_u32(const uint8_t *be, size_t count, unsigned bits, mc_bits_layout layout, uint32_t *out)
{
    unpack_any(be, true, count, bits, layout, out, 4);
}

/* -------------------------------------------------------------- bulk pack */

static void pack_native(const void *in, int es, size_t count, unsigned bits,
                        mc_bits_layout layout, uint64_t *dst)
{
    const unsigned cpu = mc__cpu_features();
    if ((cpu & MC_CPU_AVX512_KERNELS) == MC_CPU_AVX512_KERNELS &&
        mc__bits_pack_avx512(in, es, count, bits, layout, dst, cpu))
        return;
    pack_table[layout == MC_BITS_SPANNING][es == 4][bits](in, count, dst);
}

static void pack_any(const void *in, int es, size_t count, unsigned bits,
                     mc_bits_layout layout, void *dst, bool be)
{
    if (count == 0 || bits == 0 || bits > MC_BITS_MAX)
        return;
    if (64 % bits == 0)
        layout = MC_BITS_PADDED; /* 1, 2, 4, 8, 16, 32 bits: both layouts are one */
    if (!be) {
        pack_native(in, es, count, bits, layout, dst);
        return;
    }
    uint64_t tmp[BE_BLOCK_LONGS];
    size_t block_longs, block_entries;
    if (layout == MC_BITS_PADDED) {
        block_longs = BE_BLOCK_LONGS;
        block_entries = block_longs * (64 / bits);
    } else {
        block_longs = (BE_BLOCK_LONGS / bits) * bits;
        block_entries = (block_longs / bits) * 64;
    }
    uint8_t *p = dst;
    size_t done = 0;
    while (done < count) {
        size_t n = count - done < block_entries ? count - done : block_entries;
        size_t nl = mc_bits_longs(n, bits, layout);
        pack_native((const uint8_t *)in + done * (size_t)es, es, n, bits, layout, tmp);
        mc_bits_store_be(tmp, nl, p);
        p += 8 * block_longs;
        done += n;
    }
}

void mc_bits_pack_u16(const uint16_t *in, size_t count, unsigned bits, mc_bits_layout layout, uint64_t *longs)
{
    pack_any(in, 2, count, bits, layout, longs, false);
}
void mc_bits_pack_u32(const uint32_t *in, size_t count, unsigned bits, mc_bits_layout layout, uint64_t *longs)
{
    pack_any(in, 4, count, bits, layout, longs, false);
}
void mc_bits_pack_be_u16(const uint16_t *in, size_t count, unsigned bits, mc_bits_layout layout, uint8_t *be)
{
    pack_any(in, 2, count, bits, layout, be, true);
}
void mc_bits_pack_be_u32(const uint32_t *in, size_t count, unsigned bits, mc_bits_layout layout, uint8_t *be)
{
    pack_any(in, 4, count, bits, layout, be, true);
}

/* ------------------------------------------------------ repack and max */

static size_t gcd_size(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Entries per aligned unit: a padded long or a 64-entry spanning period. */
static size_t unit_entries(unsigned bits, mc_bits_layout layout)
{
    if (bits == 0)
        return 1;
    return layout == MC_BITS_PADDED ? 64 / bits : 64;
}
static size_t unit_longs(unsigned bits, mc_bits_layout layout)
{
    if (bits == 0)
        return 0;
    return layout == MC_BITS_PADDED ? 1 : bits;
}

#define REPACK_CHUNK 4096

void mc_bits_repack(const uint64_t *src, unsigned src_bits, mc_bits_layout src_layout,
                    uint64_t *dst, unsigned dst_bits, mc_bits_layout dst_layout, size_t count)
{
    if (dst_bits == 0 || dst_bits > MC_BITS_MAX || count == 0)
        return;
    uint32_t tmp[REPACK_CHUNK];
    /* A chunk is a common multiple of both units, so each chunk starts on a
     * long boundary of both arrays (the lcm of two units <= 64 is <= 4032). */
    size_t us = unit_entries(src_bits, src_layout), ud = unit_entries(dst_bits, dst_layout);
    size_t l = us / gcd_size(us, ud) * ud;
    size_t chunk = (REPACK_CHUNK / l) * l;
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        const uint64_t *s = src + (done / us) * unit_longs(src_bits, src_layout);
        uint64_t *d = dst + (done / ud) * unit_longs(dst_bits, dst_layout);
        unpack_any(s, false, n, src_bits, src_layout, tmp, 4);
        pack_any(tmp, 4, n, dst_bits, dst_layout, d, false);
    }
}

uint32_t mc_bits_max(const uint64_t *longs, size_t count, unsigned bits, mc_bits_layout layout)
{
    if (bits == 0 || bits > MC_BITS_MAX || count == 0)
        return 0;
    uint32_t tmp[REPACK_CHUNK], m = 0;
    size_t u = unit_entries(bits, layout);
    size_t chunk = (REPACK_CHUNK / u) * u;
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        unpack_any(longs + (done / u) * unit_longs(bits, layout), false, n, bits, layout, tmp, 4);
        for (size_t i = 0; i < n; i++)
            m = tmp[i] > m ? tmp[i] : m;
    }
    return m;
}

/* Padded layout: is every one of the first `count` entries below `limit`?
 * Branch-free SWAR over whole longs: the even-numbered fields of a long and,
 * shifted down by one field, the odd-numbered ones each get (2^bits - limit)
 * added; a field >= limit carries into the bit just above it, which belongs
 * to the (masked-out) neighbouring field, so the carries of all longs can be
 * or-ed together and tested once. The padding bits above the last field of a
 * long and the entries past `count` in the last long are not looked at. */
/* The SWAR constants of the bound check (see above). */
typedef struct below_masks {
    uint64_t even, odd, add_e, add_o, carry;
} below_masks;

static below_masks make_below_masks(unsigned bits, uint64_t limit)
{
    const unsigned per = 64 / bits;
    const uint64_t fm = ((uint64_t)1 << bits) - 1, add1 = ((uint64_t)1 << bits) - limit;
    below_masks m = {0, 0, 0, 0, 0};
    for (unsigned k = 0; k < per; k += 2) {
        m.even |= fm << (k * bits);
        m.add_e |= add1 << (k * bits);
        m.carry |= (uint64_t)1 << (k * bits + bits); /* k*bits+bits <= 63: see below */
        if (k + 1 < per) {
            m.odd |= fm << (k * bits);
            m.add_o |= add1 << (k * bits);
        }
    }
    /* An even field k < per ends at bit (k+1)*bits-1; its carry bit (k+1)*bits
     * is 64 only if k = per-1 and bits divides 64, but then per is even and
     * per-1 is odd: odd fields are tested shifted down one field. */
    return m;
}

static MC_ALWAYS_INLINE uint64_t below_acc(uint64_t x, unsigned bits, const below_masks *m)
{
    return ((x & m->even) + m->add_e) | (((x >> bits) & m->odd) + m->add_o);
}

/* The partial last long: only its first rem fields are looked at (a
 * dropped field reads 0, which is below any limit > 0). */
static uint64_t below_tail(uint64_t x, size_t rem, unsigned bits, const below_masks *m)
{
    const uint64_t live = rem * bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (rem * bits)) - 1;
    return below_acc(x & live, bits, m);
}

bool mc_bits_all_below(const uint64_t *longs, size_t count, unsigned bits, uint64_t limit)
{
    if (count == 0 || bits == 0)
        return count == 0 || limit > 0;
    if (bits > MC_BITS_MAX)
        return false;
    if (limit >= ((uint64_t)1 << bits))
        return true;
    if (limit == 0)
        return false;
    const unsigned per = 64 / bits;
    const below_masks m = make_below_masks(bits, limit);
    const size_t full = count / per;
    uint64_t acc = 0;
    size_t i = 0;
#ifdef MC_HAVE_AVX512_KERNELS
    if (full >= 4 && mc__bits_have_avx2())
        acc = mc__bits_below_avx2(longs, full, bits, m.even, m.odd, m.add_e, m.add_o, &i);
#endif
    for (; i < full; i++)
        acc |= below_acc(longs[i], bits, &m);
    const size_t rem = count - full * per;
    if (rem)
        acc |= below_tail(longs[full], rem, bits, &m);
    return (acc & m.carry) == 0;
}

bool mc__bits_load_be_all_below(const uint8_t *be, size_t nlongs, uint64_t *longs, size_t count,
                                unsigned bits, uint64_t limit)
{
    const unsigned per = bits == 0 || bits > MC_BITS_MAX ? 0 : 64 / bits;
    if (per == 0 || limit == 0 || limit >= ((uint64_t)1 << bits) || count / per > nlongs ||
        (count % per && count / per >= nlongs)) {
        /* nothing to fuse: the plain load and the generic check */
        mc_bits_load_be(be, nlongs, longs);
        return mc_bits_all_below(longs, count, bits, limit);
    }
    const below_masks m = make_below_masks(bits, limit);
    const size_t full = count / per;
    uint64_t acc = 0;
    size_t i = 0;
#if defined(MC_HAVE_AVX512_KERNELS) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (full >= 8 && mc__bits_have_avx512())
        acc = mc__bits_load_be_below_avx512(be, full, longs, bits, m.even, m.odd, m.add_e, m.add_o, &i);
#endif
    for (; i < full; i++) {
        longs[i] = mc_load_u64be(be + 8 * i);
        acc |= below_acc(longs[i], bits, &m);
    }
    for (i = full; i < nlongs; i++)
        longs[i] = mc_load_u64be(be + 8 * i);
    const size_t rem = count - full * per;
    if (rem)
        acc |= below_tail(longs[full], rem, bits, &m);
    return (acc & m.carry) == 0;
}

/* Counting equal lanes: per long, the lanes equal to v are zero after an
 * XOR with v in every lane; ((t & low) + low) | t sets a lane's top bit iff
 * the lane is non-zero (no carry leaves a lane), so the clear top bits are
 * the matches, counted with popcount. The loop is compiled twice: with the
 * popcnt instruction, chosen at run time, and with an inline SWAR popcount
 * (the builtin is a libgcc call without -mpopcnt). */
static MC_ALWAYS_INLINE unsigned swar_popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

#define COUNT_EQUAL_BODY(POPCOUNT)                                                   \
    size_t n = 0;                                                                    \
    for (size_t i = 0; i < full; i++) {                                              \
        const uint64_t t = longs[i] ^ pattern;                                       \
        n += POPCOUNT(~(((t & low) + low) | t) & high);                              \
    }                                                                                \
    return n;

static size_t count_equal_swar(const uint64_t *longs, size_t full, uint64_t pattern, uint64_t low,
                               uint64_t high)
{
    COUNT_EQUAL_BODY(swar_popcount64)
}

#ifdef MC_HAVE_AVX512_KERNELS
__attribute__((target("popcnt"))) static size_t count_equal_popcnt(const uint64_t *longs, size_t full,
                                                                    uint64_t pattern, uint64_t low,
                                                                    uint64_t high)
{
    COUNT_EQUAL_BODY(__builtin_popcountll)
}
#endif

size_t mc_bits_count_equal(const uint64_t *longs, size_t count, unsigned bits, uint32_t value)
{
    if (count == 0)
        return 0;
    if (bits == 0)
        return value == 0 ? count : 0;
    if (bits > MC_BITS_MAX || (bits < 32 && (value >> bits)))
        return 0;
    const unsigned per = 64 / bits;
    uint64_t one = 0; /* 1 at the bottom of every lane */
    for (unsigned i = 0; i < per; i++)
        one |= (uint64_t)1 << (i * bits);
    const uint64_t high = one << (bits - 1), low = high - one, pattern = one * value;
    const size_t full = count / per, rest = count - full * per;
    size_t n = 0, i = 0;
#ifdef MC_HAVE_AVX512_KERNELS
    if (full >= 8 && mc__bits_have_vpopcntdq())
        n = mc__bits_count_avx512(longs, full, pattern, low, high, &i);
    if (mc__cpu_has(MC_CPU_POPCNT))
        n += count_equal_popcnt(longs + i, full - i, pattern, low, high);
    else
#endif
        n += count_equal_swar(longs + i, full - i, pattern, low, high);
    if (rest) {
        const uint64_t t = longs[full] ^ pattern;
        const uint64_t keep = ((uint64_t)1 << (rest * bits)) - 1; /* rest * bits < 64 */
        n += swar_popcount64(~(((t & low) + low) | t) & high & keep);
    }
    return n;
}

void mc__bits_unpack_portable(const uint64_t *src, size_t count, unsigned bits,
                              mc_bits_layout layout, void *out, int es)
{
    if (count == 0)
        return;
    if (bits == 0 || bits > MC_BITS_MAX) {
        fill_zero(out, count, es);
        return;
    }
    unpack_table[layout == MC_BITS_SPANNING][es == 4][bits](src, count, out);
}

void mc__bits_pack_portable(const void *in, int es, size_t count, unsigned bits,
                            mc_bits_layout layout, uint64_t *dst)
{
    if (count == 0 || bits == 0 || bits > MC_BITS_MAX)
        return;
    pack_table[layout == MC_BITS_SPANNING][es == 4][bits](in, count, dst);
}
