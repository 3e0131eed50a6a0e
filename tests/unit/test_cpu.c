/*
 * test_cpu.c: the MCCHUNK_CPU cap on the SIMD kernels (src/chunk/cpu.c).
 *
 * The cap is read once per process, so the test runs its own binary again
 * (`test_cpu --report`) under each value and reads back the features and
 * the kernel name the child settled on, after the child has checked a few
 * round trips through the kernels it chose. What to expect comes from the
 * CPU itself (asked here directly with __builtin_cpu_supports, not through
 * the library) and the tiers as documented, so on any machine the test
 * asserts only what must hold there: a cap never adds a feature, an unknown
 * value means native, and the tiers nest.
 */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcchunk/bits.h"
#include "bits/bits_private.h"

extern char **environ;

/* Path of this program, for the children. */
static char self_path[4096];

/* The CPU's features, bypassing the library's cache and cap. */
static unsigned raw_features(void)
{
    unsigned f = 0;
#ifdef MC_HAVE_AVX512_KERNELS
    __builtin_cpu_init();
    f |= __builtin_cpu_supports("popcnt") ? MC_CPU_POPCNT : 0;
    f |= __builtin_cpu_supports("bmi2") ? MC_CPU_BMI2 : 0;
    f |= __builtin_cpu_supports("avx2") ? MC_CPU_AVX2 : 0;
    f |= __builtin_cpu_supports("avx512f") ? MC_CPU_AVX512F : 0;
    f |= __builtin_cpu_supports("avx512bw") ? MC_CPU_AVX512BW : 0;
    f |= __builtin_cpu_supports("avx512vl") ? MC_CPU_AVX512VL : 0;
    f |= __builtin_cpu_supports("avx512vbmi") ? MC_CPU_AVX512VBMI : 0;
    f |= __builtin_cpu_supports("avx512vbmi2") ? MC_CPU_AVX512VBMI2 : 0;
    f |= __builtin_cpu_supports("avx512vpopcntdq") ? MC_CPU_AVX512VPOPCNTDQ : 0;
#endif
    return f;
}

/* The tiers as HACKING.md and bits.h state them (written out here rather
 * than taken from the library's own macros). */
static unsigned documented_cap(const char *value)
{
    const unsigned avx2 = MC_CPU_AVX2 | MC_CPU_BMI2 | MC_CPU_POPCNT;
    if (value && strcmp(value, "portable") == 0)
        return 0;
    if (value && strcmp(value, "avx2") == 0)
        return avx2;
    if (value && strcmp(value, "avx512vbmi") == 0)
        return avx2 | MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VL | MC_CPU_AVX512VBMI;
    return ~0u;
}

/* mc_bits_kernel_name() as documented, for a feature set. */
static void expected_name(unsigned f, char *out, size_t cap)
{
    const unsigned vbmi = MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VL | MC_CPU_AVX512VBMI;
    const unsigned pop = MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VPOPCNTDQ;
    const bool avx512 = (f & vbmi) == vbmi;
    snprintf(out, cap, "%s%s%s", avx512 ? "avx512vbmi" : (f & MC_CPU_AVX2) ? "avx2" : "portable",
             avx512 && (f & MC_CPU_AVX512VBMI2) ? "+vbmi2" : "", (f & pop) == pop ? "+vpopcntdq" : "");
}

/* ------------------------------------------------------------ the child */

/* A few round trips through whatever kernels this process chose (both
 * layouts, native and big-endian longs, u16 and u32, widths from every
 * kernel family), plus the scans; 0 when all agree. */
static int child_selfcheck(void)
{
    static const unsigned widths[] = {1, 2, 3, 5, 8, 9, 13, 16, 17, 21, 22, 24, 31, 32};
    enum { N = 4096 + 37 };
    static uint32_t in[N], out[N];
    static uint16_t in16[N], out16[N];
    static uint64_t longs[N];
    static uint8_t be[N * 8];
    mc_test_rng rng = {0xC0FFEEull};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const unsigned b = widths[w];
        const uint32_t m = b == 32 ? 0xFFFFFFFFu : (1u << b) - 1;
        for (size_t i = 0; i < N; i++) {
            in[i] = (uint32_t)mc_test_rand(&rng) & m;
            in16[i] = (uint16_t)in[i];
        }
        for (int lay = 0; lay < 2; lay++) {
            const mc_bits_layout layout = (mc_bits_layout)lay;
            const size_t nl = mc_bits_longs(N, b, layout);
            mc_bits_pack_u32(in, N, b, layout, longs);
            for (size_t i = 0; i < N; i += 97)
                if (mc_bits_get(longs, i, b, layout) != in[i])
                    return 1;
            mc_bits_unpack_u32(longs, N, b, layout, out);
            if (memcmp(out, in, sizeof in) != 0)
                return 2;
            mc_bits_pack_be_u32(in, N, b, layout, be);
            mc_bits_unpack_be_u32(be, N, b, layout, out);
            if (memcmp(out, in, sizeof in) != 0)
                return 3;
            mc_bits_load_be(be, nl, longs);
            mc_bits_unpack_u32(longs, N, b, layout, out);
            if (memcmp(out, in, sizeof in) != 0)
                return 4;
            if (b <= 16) {
                mc_bits_pack_u16(in16, N, b, layout, longs);
                mc_bits_unpack_u16(longs, N, b, layout, out16);
                if (memcmp(out16, in16, sizeof in16) != 0)
                    return 5;
            }
            if (layout == MC_BITS_PADDED) {
                mc_bits_pack_u32(in, N, b, layout, longs);
                size_t equal = 0;
                for (size_t i = 0; i < N; i++)
                    equal += in[i] == in[0];
                if (mc_bits_count_equal(longs, N, b, in[0]) != equal)
                    return 6;
                if (mc_bits_all_below(longs, N, b, m) != (mc_bits_max(longs, N, b, layout) < m))
                    return 7;
            }
        }
    }
    return 0;
}

/* `test_cpu --report`: self-check, then "features-hex kernel-name". */
static int child_main(void)
{
    int bad = child_selfcheck();
    if (bad) {
        printf("selfcheck-failed-%d %s\n", bad, mc_bits_kernel_name());
        return 1;
    }
    printf("%x %s\n", mc__cpu_features() & ~MC_CPU_DETECTED, mc_bits_kernel_name());
    return 0;
}

/* ----------------------------------------------------------- the parent */

typedef struct report {
    unsigned features;
    char name[64];
} report;

/* Runs `self --report` with MCCHUNK_CPU=value (unset when value is NULL). */
static report run_child(const char *value)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 2, sizeof *envp), *var = NULL;
    assert_non_null(envp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "MCCHUNK_CPU=", 12) != 0)
            envp[k++] = environ[i];
    if (value) {
        var = malloc(strlen(value) + 13);
        assert_non_null(var);
        strcpy(var, "MCCHUNK_CPU=");
        strcat(var, value);
        envp[k++] = var;
    }
    envp[k] = NULL;

    int fd[2];
    assert_int_equal(pipe(fd), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    char *argv[] = {self_path, "--report", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, self_path, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    assert_int_equal(rc, 0);

    char buf[256];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fd[0], buf + len, sizeof buf - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    buf[len] = 0;
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        assert_int_equal(errno, EINTR);
    free(var);
    free(envp);

    print_message("MCCHUNK_CPU=%s: %s", value ? value : "(unset)", buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    report out = {0, {0}};
    assert_int_equal(sscanf(buf, "%x %63s", &out.features, out.name), 2);
    return out;
}

/* The value parser, in this process. */
static void test_cap_values(void **state)
{
    (void)state;
    assert_int_equal(mc__cpu_cap("portable"), 0);
    assert_int_equal(mc__cpu_cap("avx2"), documented_cap("avx2") & ~MC_CPU_DETECTED);
    assert_int_equal(mc__cpu_cap("avx512vbmi"), documented_cap("avx512vbmi") & ~MC_CPU_DETECTED);
    const unsigned all = MC_CPU_POPCNT | MC_CPU_BMI2 | MC_CPU_AVX2 | MC_CPU_AVX512F | MC_CPU_AVX512BW |
                         MC_CPU_AVX512VL | MC_CPU_AVX512VBMI | MC_CPU_AVX512VBMI2 | MC_CPU_AVX512VPOPCNTDQ;
    /* native: every feature; so is anything unknown (case matters) */
    const char *native[] = {NULL, "native", "", "bogus", "AVX2", "avx2 ", "avx512", "avx512vbmi2"};
    for (size_t i = 0; i < sizeof native / sizeof native[0]; i++)
        assert_int_equal(mc__cpu_cap(native[i]) & all, all);
}

/* This process obeys the MCCHUNK_CPU it was started with (CI runs the
 * suite under each value). */
static void test_this_process(void **state)
{
    (void)state;
    const char *value = getenv("MCCHUNK_CPU");
    const unsigned f = mc__cpu_features() & ~MC_CPU_DETECTED;
    char name[64];
#ifdef MC_HAVE_AVX512_KERNELS
    assert_int_equal(f, raw_features() & documented_cap(value));
#else
    (void)value;
    assert_int_equal(f, 0);
#endif
    expected_name(f, name, sizeof name);
    assert_string_equal(mc_bits_kernel_name(), name);
    print_message("this process: MCCHUNK_CPU=%s, kernels %s\n", value ? value : "(unset)", name);
}

/* Each value in a child of its own: the features are the CPU's under the
 * cap (never more), the name matches them, unknown values mean native. */
static void test_children(void **state)
{
    (void)state;
    const unsigned raw = raw_features();
    const char *values[] = {NULL, "native", "", "bogus", "portable", "avx2", "avx512vbmi"};
    report r[sizeof values / sizeof values[0]];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        r[i] = run_child(values[i]);
        assert_int_equal(r[i].features & ~raw, 0); /* never raises */
#ifdef MC_HAVE_AVX512_KERNELS
        assert_int_equal(r[i].features, raw & documented_cap(values[i]));
#else
        assert_int_equal(r[i].features, 0);
#endif
        char name[64];
        expected_name(r[i].features, name, sizeof name);
        assert_string_equal(r[i].name, name);
    }
    /* unset, native, empty and unknown agree; the tiers nest below them */
    for (size_t i = 1; i < 4; i++) {
        assert_int_equal(r[i].features, r[0].features);
        assert_string_equal(r[i].name, r[0].name);
    }
    assert_string_equal(r[4].name, "portable");
    assert_int_equal(r[4].features, 0);
    assert_int_equal(r[4].features & ~r[5].features, 0);
    assert_int_equal(r[5].features & ~r[6].features, 0);
    assert_int_equal(r[6].features & ~r[0].features, 0);
    /* what the tiers must reach on a CPU that has them */
    if (raw & MC_CPU_AVX2)
        assert_string_equal(r[5].name, "avx2");
    const unsigned vbmi = MC_CPU_AVX512F | MC_CPU_AVX512BW | MC_CPU_AVX512VL | MC_CPU_AVX512VBMI;
#ifdef MC_HAVE_AVX512_KERNELS
    if ((raw & vbmi) == vbmi)
        assert_string_equal(r[6].name, "avx512vbmi");
#else
    (void)vbmi;
#endif
}

/* Files under `dir` (recursively, .c and .h) that ask the CPU directly;
 * each found is printed. */
static int count_direct_checks(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            found += count_direct_checks(path);
            continue;
        }
        size_t n = strlen(path);
        if (n < 2 || path[n - 2] != '.' || (path[n - 1] != 'c' && path[n - 1] != 'h') ||
            strcmp(e->d_name, "cpu.c") == 0)
            continue;
        size_t len;
        uint8_t *text = mc_test_read_file(path, &len);
        char *z = malloc(len + 1);
        assert_non_null(z);
        memcpy(z, text, len);
        z[len] = 0;
        if (strstr(z, "__builtin_cpu_supports") || strstr(z, "__builtin_cpu_is")) {
            print_message("asks the CPU directly, not through mc__cpu_features(): %s\n", path);
            found++;
        }
        free(z);
        free(text);
    }
    closedir(d);
    return found;
}

/* A kernel choice that asks the CPU itself would escape the cap: only cpu.c
 * may. */
static void test_one_place(void **state)
{
    (void)state;
    assert_int_equal(count_direct_checks(MC_SOURCE_DIR "/src"), 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--report") == 0)
        return child_main();
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n > 0)
        self_path[n] = 0;
    else
        snprintf(self_path, sizeof self_path, "%s", argv[0]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cap_values),
        cmocka_unit_test(test_this_process),
        cmocka_unit_test(test_children),
        cmocka_unit_test(test_one_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
