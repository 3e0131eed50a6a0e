/*
 * bench_bits.c: nanoseconds per 4096-entry section for the packed-array
 * kernels, every width, next to a naive divide/modulo loop timed in the same
 * run (the "peer": what a straightforward implementation does per entry).
 *
 * The main table walks a pool of 16 different sections (inputs and outputs
 * together about the size of an L2 cache at 32 bits: 16 x 16 KiB in and
 * out), one per call, as a column encoder walks a column's sections; the
 * one-section, L1-hot figure of the dispatched unpack follows as "hot".
 * Column k names the kernel the dispatcher picks for the width (c copy,
 * x AVX-512, a AVX2, p portable; mc__bits_unpack_choice). A '<' after the
 * unpack figure marks a width where another kernel of the table (avx2 or
 * unp_port) beat the dispatched one by more than 20% (the same kernel
 * measured twice differs by up to ~10% on a busy machine).
 *
 * Columns:
 *   unpack   mc_bits_unpack_u16 (u32 above 16 bits), padded, dispatched path
 *   avx2     the AVX2 unpack kernel of the same call (portable where it
 *            declines: padded widths above 21 bits)
 *   unp_port the portable kernel of the same call
 *   unp_be   mc_bits_unpack_be_*, from big-endian long bytes (packet/NBT)
 *   naive    per entry: long = i / (64/b), shift = (i % (64/b)) * b
 *   pack     mc_bits_pack_u16/u32 padded, dispatched (and pk_port portable)
 *   span     spanning unpack, dispatched (and sp_port portable)
 *   sp_naive the naive spanning loop (bit = i*b, two-long read)
 *
 *   hot      mc_bits_unpack_* on one section over and over (L1-hot)
 *
 * Every figure is the median of 15 samples of 208 calls each (13 passes
 * over the pool), the samples of all kernels of a width interleaved; the whole program runs in a few seconds. `bench_bits B`
 * runs only width B.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits/bits_private.h"

#define N 4096
#define POOL 16
#define SAMPLES 15
#define CALLS 208

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Defeats constant propagation of the width into the naive loops. */
static volatile unsigned opaque_bits;

__attribute__((noinline)) static void naive_unpack(const uint64_t *w, unsigned b, uint32_t *out)
{
    unsigned k = 64 / b;
    uint64_t m = (1ull << b) - 1;
    for (unsigned i = 0; i < N; i++)
        out[i] = (uint32_t)((w[i / k] >> ((i % k) * b)) & m);
}

__attribute__((noinline)) static void naive_spanning(const uint64_t *w, unsigned b, uint32_t *out)
{
    uint64_t m = (1ull << b) - 1;
    for (unsigned i = 0; i < N; i++) {
        unsigned bit = i * b, a = bit / 64, s = bit % 64;
        uint64_t v = w[a] >> s;
        if (s + b > 64)
            v |= w[a + 1] << (64 - s);
        out[i] = (uint32_t)(v & m);
    }
}

enum { OP_UNPACK, OP_UNPACK_AVX2, OP_UNPACK_PORT, OP_UNPACK_BE, OP_NAIVE, OP_PACK, OP_PACK_PORT,
       OP_SPAN, OP_SPAN_PORT, OP_SPAN_NAIVE, OP_HOT, OP_COUNT };

/* The pool: section k of each array is [k]. Outputs get their own slot
 * per section so that stores stream through the pool too. */
static _Alignas(64) uint64_t longs[POOL][N], span_longs[POOL][N];
static _Alignas(64) uint8_t be_bytes[POOL][N * 8];
static _Alignas(64) uint16_t in16[POOL][N], out16[POOL][N + 64];
static _Alignas(64) uint32_t in32[POOL][N], out32[POOL][N + 64];
static _Alignas(64) uint64_t packed[POOL][N];

static void run_op(int op, unsigned b, unsigned k)
{
    int es = b <= 16 ? 2 : 4;
    void *out = es == 2 ? (void *)out16[k] : (void *)out32[k];
    const void *in = es == 2 ? (const void *)in16[k] : (const void *)in32[k];
    switch (op) {
    case OP_HOT:
        k = 0;
        /* fall through: the dispatched unpack of section 0 only */
    case OP_UNPACK:
        if (es == 2)
            mc_bits_unpack_u16(longs[k], N, b, MC_BITS_PADDED, out16[k]);
        else
            mc_bits_unpack_u32(longs[k], N, b, MC_BITS_PADDED, out32[k]);
        break;
    case OP_UNPACK_PORT:
        mc__bits_unpack_portable(longs[k], N, b, MC_BITS_PADDED, out, es);
        break;
    case OP_UNPACK_AVX2:
        if (!mc__bits_have_avx2() || !mc__bits_unpack_avx2(longs[k], false, N, b, MC_BITS_PADDED, out, es))
            mc__bits_unpack_portable(longs[k], N, b, MC_BITS_PADDED, out, es);
        break;
    case OP_UNPACK_BE:
        if (es == 2)
            mc_bits_unpack_be_u16(be_bytes[k], N, b, MC_BITS_PADDED, out16[k]);
        else
            mc_bits_unpack_be_u32(be_bytes[k], N, b, MC_BITS_PADDED, out32[k]);
        break;
    case OP_NAIVE:
        naive_unpack(longs[k], opaque_bits, out32[k]);
        break;
    case OP_PACK:
        if (es == 2)
            mc_bits_pack_u16(in16[k], N, b, MC_BITS_PADDED, packed[k]);
        else
            mc_bits_pack_u32(in32[k], N, b, MC_BITS_PADDED, packed[k]);
        break;
    case OP_PACK_PORT:
        mc__bits_pack_portable(in, es, N, b, MC_BITS_PADDED, packed[k]);
        break;
    case OP_SPAN:
        if (es == 2)
            mc_bits_unpack_u16(span_longs[k], N, b, MC_BITS_SPANNING, out16[k]);
        else
            mc_bits_unpack_u32(span_longs[k], N, b, MC_BITS_SPANNING, out32[k]);
        break;
    case OP_SPAN_PORT:
        mc__bits_unpack_portable(span_longs[k], N, b, MC_BITS_SPANNING, out, es);
        break;
    case OP_SPAN_NAIVE:
        naive_spanning(span_longs[k], opaque_bits, out32[k]);
        break;
    }
}

/* All ops of width b, their samples interleaved (sample i of every op,
 * then sample i + 1): on a shared machine a busy moment then costs every
 * kernel alike instead of whichever was running. Medians into r. */
static void measure_all(unsigned b, double *r)
{
    static double s[OP_COUNT][SAMPLES];
    opaque_bits = b;
    for (int op = 0; op < OP_COUNT; op++)
        for (int w = 0; w < 2 * POOL; w++)
            run_op(op, b, (unsigned)w % POOL);
    for (int i = 0; i < SAMPLES; i++)
        for (int op = 0; op < OP_COUNT; op++) {
            /* one untimed pass first: the op before used other arrays, and
             * whichever op came first would pay for bringing the pool back */
            for (int w = 0; w < POOL; w++)
                run_op(op, b, (unsigned)w);
            uint64_t t0 = now_ns();
            for (int c = 0; c < CALLS; c++) {
                run_op(op, b, (unsigned)c % POOL);
                __asm__ volatile("" ::: "memory");
            }
            s[op][i] = (double)(now_ns() - t0) / CALLS;
        }
    for (int op = 0; op < OP_COUNT; op++) {
        qsort(s[op], SAMPLES, sizeof s[op][0], cmp_double);
        r[op] = s[op][SAMPLES / 2];
    }
}

int main(int argc, char **argv)
{
    unsigned only = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    uint64_t x = 88172645463325252ull;
    printf("mcchunk bench_bits: ns per 4096-entry section, each call on the next of a pool of %d sections "
           "(L2-sized), median of %d x %d calls; kernels: %s\n",
           POOL, SAMPLES, CALLS, mc_bits_kernel_name());
    printf("%3s %2s %9s %8s %8s %8s %8s | %8s %8s | %8s %8s %8s | %6s | %6s\n", "b", "k", "unpack", "avx2", "unp_port",
           "unp_be", "naive", "pack", "pk_port", "span", "sp_port", "sp_naive", "x_naive", "hot");
    double worst[OP_COUNT] = {0};
    int slower = 0;
    for (unsigned b = 1; b <= 32; b++) {
        if (only && b != only)
            continue;
        uint32_t m = b == 32 ? 0xFFFFFFFFu : ((1u << b) - 1);
        for (int k = 0; k < POOL; k++) {
            for (int i = 0; i < N; i++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                in32[k][i] = (uint32_t)x & m;
                in16[k][i] = (uint16_t)in32[k][i];
            }
            mc_bits_pack_u32(in32[k], N, b, MC_BITS_PADDED, longs[k]);
            mc_bits_store_be(longs[k], mc_bits_longs(N, b, MC_BITS_PADDED), be_bytes[k]);
            mc_bits_pack_u32(in32[k], N, b, MC_BITS_SPANNING, span_longs[k]);
        }
        double r[OP_COUNT];
        measure_all(b, r);
        for (int op = 0; op < OP_COUNT; op++)
            if (r[op] > worst[op])
                worst[op] = r[op];
        double best_other = r[OP_UNPACK_AVX2] < r[OP_UNPACK_PORT] ? r[OP_UNPACK_AVX2] : r[OP_UNPACK_PORT];
        bool lost = r[OP_UNPACK] > 1.2 * best_other;
        slower += lost;
        static const char kname[] = {'c', 'x', 'a', 'p'}; /* copy, avx512, avx2, portable */
        int es = b <= 16 ? 2 : 4;
        char k = kname[mc__bits_unpack_choice(b, MC_BITS_PADDED, false, es, mc__cpu_features())];
        printf("%3u %2c %8.0f%c %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f | %8.0f %8.0f %8.0f | %5.1fx | %6.0f\n", b,
               k, r[OP_UNPACK], lost ? '<' : ' ', r[OP_UNPACK_AVX2], r[OP_UNPACK_PORT], r[OP_UNPACK_BE], r[OP_NAIVE],
               r[OP_PACK], r[OP_PACK_PORT], r[OP_SPAN], r[OP_SPAN_PORT], r[OP_SPAN_NAIVE],
               r[OP_NAIVE] / r[OP_UNPACK], r[OP_HOT]);
    }
    printf("max    %8.0f  %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f | %8.0f %8.0f %8.0f |        | %6.0f\n",
           worst[OP_UNPACK], worst[OP_UNPACK_AVX2], worst[OP_UNPACK_PORT], worst[OP_UNPACK_BE], worst[OP_NAIVE],
           worst[OP_PACK], worst[OP_PACK_PORT], worst[OP_SPAN], worst[OP_SPAN_PORT], worst[OP_SPAN_NAIVE],
           worst[OP_HOT]);
    printf("dispatched unpack more than 20%% slower than another kernel at %d width(s) (k: the kernel it "
           "picks here: c copy, x AVX-512, a AVX2, p portable)\n", slower);
    return 0;
}
