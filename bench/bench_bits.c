/*
 * bench_bits.c: nanoseconds per 4096-entry section for the packed-array
 * kernels, every width, next to a naive divide/modulo loop timed in the same
 * run (the "peer": what a straightforward implementation does per entry).
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
 * Every figure is the median of 15 samples of 200 calls each; the whole
 * program runs in a few seconds. `bench_bits B` runs only width B.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bits/bits_private.h"

#define N 4096
#define SAMPLES 15
#define CALLS 200

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
       OP_SPAN, OP_SPAN_PORT, OP_SPAN_NAIVE, OP_COUNT };

static _Alignas(64) uint64_t longs[N], span_longs[N];
static _Alignas(64) uint8_t be_bytes[N * 8];
static _Alignas(64) uint16_t in16[N], out16[N + 64];
static _Alignas(64) uint32_t in32[N], out32[N + 64];
static uint64_t packed[N];

static void run_op(int op, unsigned b)
{
    int es = b <= 16 ? 2 : 4;
    void *out = es == 2 ? (void *)out16 : (void *)out32;
    const void *in = es == 2 ? (const void *)in16 : (const void *)in32;
    switch (op) {
    case OP_UNPACK:
        if (es == 2)
            mc_bits_unpack_u16(longs, N, b, MC_BITS_PADDED, out16);
        else
            mc_bits_unpack_u32(longs, N, b, MC_BITS_PADDED, out32);
        break;
    case OP_UNPACK_PORT:
        mc__bits_unpack_portable(longs, N, b, MC_BITS_PADDED, out, es);
        break;
    case OP_UNPACK_AVX2:
        if (!mc__bits_have_avx2() || !mc__bits_unpack_avx2(longs, false, N, b, MC_BITS_PADDED, out, es))
            mc__bits_unpack_portable(longs, N, b, MC_BITS_PADDED, out, es);
        break;
    case OP_UNPACK_BE:
        if (es == 2)
            mc_bits_unpack_be_u16(be_bytes, N, b, MC_BITS_PADDED, out16);
        else
            mc_bits_unpack_be_u32(be_bytes, N, b, MC_BITS_PADDED, out32);
        break;
    case OP_NAIVE:
        naive_unpack(longs, opaque_bits, out32);
        break;
    case OP_PACK:
        if (es == 2)
            mc_bits_pack_u16(in16, N, b, MC_BITS_PADDED, packed);
        else
            mc_bits_pack_u32(in32, N, b, MC_BITS_PADDED, packed);
        break;
    case OP_PACK_PORT:
        mc__bits_pack_portable(in, es, N, b, MC_BITS_PADDED, packed);
        break;
    case OP_SPAN:
        if (es == 2)
            mc_bits_unpack_u16(span_longs, N, b, MC_BITS_SPANNING, out16);
        else
            mc_bits_unpack_u32(span_longs, N, b, MC_BITS_SPANNING, out32);
        break;
    case OP_SPAN_PORT:
        mc__bits_unpack_portable(span_longs, N, b, MC_BITS_SPANNING, out, es);
        break;
    case OP_SPAN_NAIVE:
        naive_spanning(span_longs, opaque_bits, out32);
        break;
    }
}

static double measure(int op, unsigned b)
{
    double s[SAMPLES];
    opaque_bits = b;
    for (int w = 0; w < 20; w++)
        run_op(op, b);
    for (int i = 0; i < SAMPLES; i++) {
        uint64_t t0 = now_ns();
        for (int c = 0; c < CALLS; c++) {
            run_op(op, b);
            __asm__ volatile("" ::: "memory");
        }
        s[i] = (double)(now_ns() - t0) / CALLS;
    }
    qsort(s, SAMPLES, sizeof s[0], cmp_double);
    return s[SAMPLES / 2];
}

int main(int argc, char **argv)
{
    unsigned only = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    uint64_t x = 88172645463325252ull;
    printf("mcchunk bench_bits: ns per 4096-entry section (median of %d x %d calls); kernels: %s\n",
           SAMPLES, CALLS, mc_bits_kernel_name());
    printf("%3s %8s %8s %8s %8s %8s | %8s %8s | %8s %8s %8s | %6s\n", "b", "unpack", "avx2", "unp_port",
           "unp_be", "naive", "pack", "pk_port", "span", "sp_port", "sp_naive", "x_naive");
    double worst[OP_COUNT] = {0};
    for (unsigned b = 1; b <= 32; b++) {
        if (only && b != only)
            continue;
        uint32_t m = b == 32 ? 0xFFFFFFFFu : ((1u << b) - 1);
        for (int i = 0; i < N; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            in32[i] = (uint32_t)x & m;
            in16[i] = (uint16_t)in32[i];
        }
        mc_bits_pack_u32(in32, N, b, MC_BITS_PADDED, longs);
        mc_bits_store_be(longs, mc_bits_longs(N, b, MC_BITS_PADDED), be_bytes);
        mc_bits_pack_u32(in32, N, b, MC_BITS_SPANNING, span_longs);
        double r[OP_COUNT];
        for (int op = 0; op < OP_COUNT; op++) {
            r[op] = measure(op, b);
            if (r[op] > worst[op])
                worst[op] = r[op];
        }
        printf("%3u %8.0f %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f | %8.0f %8.0f %8.0f | %5.1fx\n", b,
               r[OP_UNPACK], r[OP_UNPACK_AVX2], r[OP_UNPACK_PORT], r[OP_UNPACK_BE], r[OP_NAIVE], r[OP_PACK],
               r[OP_PACK_PORT], r[OP_SPAN], r[OP_SPAN_PORT], r[OP_SPAN_NAIVE],
               r[OP_NAIVE] / r[OP_UNPACK]);
    }
    printf("max %8.0f %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f | %8.0f %8.0f %8.0f\n", worst[OP_UNPACK],
           worst[OP_UNPACK_AVX2], worst[OP_UNPACK_PORT], worst[OP_UNPACK_BE], worst[OP_NAIVE], worst[OP_PACK],
           worst[OP_PACK_PORT], worst[OP_SPAN], worst[OP_SPAN_PORT], worst[OP_SPAN_NAIVE]);
    return 0;
}
