/*
 * cpu.c: which SIMD kernels this process may use, decided once.
 *
 * Every run-time kernel choice of the packed-array code (bits.c,
 * bits_scan.c, bits_avx512.c) asks mc__cpu_features() (bits_private.h)
 * instead of asking the CPU itself. The first call detects the CPU's
 * extensions, lowers them to the cap named by the environment variable
 * MCCHUNK_CPU, and caches the result in one atomic word; later calls are a
 * relaxed load and a test, as cheap as __builtin_cpu_supports. Threads that
 * race on the first call compute the same value, so no lock is needed.
 *
 * The cap exists so that the lower tiers can be tested on a machine that
 * has everything (and so that a user can rule out a kernel):
 *   portable    no SIMD kernels at all
 *   avx2        AVX2, BMI2, POPCNT
 *   avx512vbmi  the above and AVX-512 F/BW/VL/VBMI (not VBMI2, VPOPCNTDQ)
 *   native      everything detected (also when unset, empty or unknown)
 * A cap only takes features away: it never enables one the CPU lacks.
 * The variable is read once, at the first dispatch in the process.
 */
#include "bits_private.h"

#include <stdlib.h>
#include <string.h>

#ifdef MC_HAVE_AVX512_KERNELS

/* The detected features capped by MCCHUNK_CPU, with MC_CPU_DETECTED set;
 * 0 until the first call. A cache of a fact about the process, not state
 * any caller can change. */
_Atomic unsigned mc__cpu_cached;

static unsigned detect(void)
{
    /* libgcc fills its CPU model from a constructor; this may run from an
     * earlier one */
    __builtin_cpu_init();
    unsigned f = 0;
    f |= __builtin_cpu_supports("popcnt") ? MC_CPU_POPCNT : 0;
    f |= __builtin_cpu_supports("bmi2") ? MC_CPU_BMI2 : 0;
    f |= __builtin_cpu_supports("avx2") ? MC_CPU_AVX2 : 0;
    f |= __builtin_cpu_supports("avx512f") ? MC_CPU_AVX512F : 0;
    f |= __builtin_cpu_supports("avx512bw") ? MC_CPU_AVX512BW : 0;
    f |= __builtin_cpu_supports("avx512vl") ? MC_CPU_AVX512VL : 0;
    f |= __builtin_cpu_supports("avx512vbmi") ? MC_CPU_AVX512VBMI : 0;
    f |= __builtin_cpu_supports("avx512vbmi2") ? MC_CPU_AVX512VBMI2 : 0;
    f |= __builtin_cpu_supports("avx512vpopcntdq") ? MC_CPU_AVX512VPOPCNTDQ : 0;
    return f;
}

unsigned mc__cpu_detect(void)
{
    unsigned f = (detect() & mc__cpu_cap(getenv("MCCHUNK_CPU"))) | MC_CPU_DETECTED;
    atomic_store_explicit(&mc__cpu_cached, f, memory_order_relaxed);
    return f;
}

#else /* no SIMD kernels in this build: nothing to detect */

unsigned mc__cpu_detect(void)
{
    return MC_CPU_DETECTED;
}

#endif

unsigned mc__cpu_cap(const char *value)
{
    if (value && strcmp(value, "portable") == 0)
        return MC_CPU_CAP_PORTABLE;
    if (value && strcmp(value, "avx2") == 0)
        return MC_CPU_CAP_AVX2;
    if (value && strcmp(value, "avx512vbmi") == 0)
        return MC_CPU_CAP_AVX512VBMI;
    return MC_CPU_CAP_NATIVE; /* unset, "native", or a value we do not know */
}
