/*
 * bench_world.c: the whole-world commands (`mcchunk world ...`) at world
 * scale, each figure next to a baseline measured in the same run. It runs
 * the built tool (the `mcchunk` beside this program) as a child and takes
 * its CPU time and peak memory from wait4 (what /usr/bin/time -v reports)
 * and its wall time from the clock.
 *
 * 1. Real chunks: every Anvil region file of the corpus (1.8.9 to 1.21.11,
 *    full chunks and proto-chunks as the game left them), each in a
 *    dimension of its own in a temporary world, on one thread:
 *      verify   `region verify` of the same files: the read-only baseline
 *               (inflate and parse every chunk);
 *      stats    `world stats`: chunks per CPU second (target >= 20,000),
 *               for the 1.18+ chunks and for the older ones apart (and
 *               those split: 1.8-1.12, 1.13-1.17), and the older ones'
 *               and the 1.13-1.17 ones' marginal rates: the same files
 *               four times over less once
 *               (what is paid once per distinct palette entry and state,
 *               not per chunk, taken out);
 *      relight  `world relight` of a copy of the corpus world, one thread,
 *               at deflate level 6 (its default) and 1: chunks per CPU
 *               second (the relit ones, full 1.14+ chunks, and all it
 *               read) against verify's;
 *      convert  `world convert` to 1.21.4 (light left to the game) in each
 *               region compression (--compression zlib, lz4, none), also
 *               for the 1.18+ files (mostly the byte path, mc_chunknbt_recode;
 *               and again with MCCHUNK_CONVERT_MODEL=1, the model path
 *               only, as the byte path's baseline) and the older ones
 *               apart, and
 *               to 1.12.2 (light computed): chunks per CPU second, the
 *               CPU per chunk as a multiple of verify's (target <= 3),
 *               the bytes written; the 1.21.4 zlib and lz4 outputs read
 *               back by `region verify`;
 *      deflate  the chunks convert wrote to 1.21.4, deflated again here
 *               at the level convert uses (1) and at 6 (zlib's default,
 *               what the game writes): bytes, 4 KiB sectors (what the
 *               region file takes) and CPU per chunk of each.
 * 2. Scale: a world of >= 200 region files made by `world create` (1.20.1,
 *    radius 224: 449 x 449 chunks, 225 regions) in a temporary folder
 *    (MCCHUNK_BENCH_WORLD=DIR keeps it there and reuses it):
 *      convert  the whole world to 1.21.4 on 2 threads: peak RSS against the
 *               bound `world convert --help` states (16 MB + 48 MB a thread);
 *      threads  one eighth of it (--shard 0/8; all of it when it has fewer
 *               than 64 regions: --radius below 127) on 1 thread and on 2: the
 *               wall-time speed-up (target >= 1.7; the machine must have 2
 *               idle cores for it to mean anything: the load is printed),
 *               and what the CPU times say whatever the load: the CPU
 *               parallel efficiency (1 thread's CPU / 2 threads' CPU: 1.0
 *               when two threads do no more work than one, no spinning,
 *               no work done twice) and the cores each run kept busy
 *               (CPU / wall: 2 threads with nothing serial between them
 *               and two idle cores keep 2.0 busy; a loaded machine gives
 *               them less, which the wall speed-up then shows), and
 *               the speed-up of the wall times less the time the worker
 *               threads waited runnable for a CPU (schedstat's run delay,
 *               polled every 20 ms): the wait other processes cause,
 *               taken out, leaving the tool's own CPU, I/O and locks;
 *               and, since one run's CPU varies by 10-20% on a loaded
 *               machine, the same at equal CPU: 2 x the share of that time
 *               the two workers ran / the share one worker ran;
 *      stats    `world stats` over it on 2 threads.
 *
 * Every run writes to a directory of its own and the outputs are deleted
 * only at the end, after the last timed run (why: bench_scale's comment).
 *
 * usage: bench_world [--no-scale] [--radius R]
 */
#define _GNU_SOURCE /* wait4 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/anvil.h"

static char tool[4096];

typedef struct run_result {
    int status;
    double wall, cpu;   /* seconds */
    long max_rss_kb;
    char *out;          /* stdout (malloc) */
    /* from /proc/PID/task/TID/schedstat, read every 20 ms while it runs:
     * of the threads that did a tenth of the work or more (the workers),
     * how many, and the mean time each waited runnable for a CPU (which
     * other processes on a loaded machine cause, not the tool) */
    int workers;
    double worker_delay;
} run_result;

/* The latest schedstat (ns on a CPU, ns runnable waiting) of each thread. */
typedef struct thread_stats {
    int n;
    long tid[64];
    unsigned long long cpu[64], delay[64];
} thread_stats;

static void poll_threads(pid_t pid, thread_stats *ts)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%ld/schedstat", (int)pid, tid);
        FILE *f = fopen(path, "r");
        unsigned long long cpu, delay;
        if (f && fscanf(f, "%llu %llu", &cpu, &delay) == 2) {
            int k = 0;
            while (k < ts->n && ts->tid[k] != tid)
                k++;
            if (k < 64) {
                ts->n += k == ts->n;
                ts->tid[k] = tid;
                ts->cpu[k] = cpu;
                ts->delay[k] = delay;
            }
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
}

static void worker_delay(const thread_stats *ts, run_result *r)
{
    unsigned long long total = 0, delay = 0;
    for (int k = 0; k < ts->n; k++)
        total += ts->cpu[k];
    r->workers = 0;
    for (int k = 0; k < ts->n; k++)
        if (ts->cpu[k] * 10 >= total && total) {
            r->workers++;
            delay += ts->delay[k];
        }
    r->worker_delay = r->workers ? (double)delay / r->workers * 1e-9 : 0;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs the tool with argv (NULL-terminated, argv[0] ignored); stdout kept. */
static run_result run_tool(char *const argv[])
{
    run_result r = {-1, 0, 0, 0, NULL, 0, 0};
    char path[] = "/tmp/mcchunk-bench-world-out-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return r;
    unlink(path);
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 1);
        int devnull = open("/dev/null", 1);
        if (devnull >= 0)
            dup2(devnull, 2);
        execv(tool, argv);
        _exit(127);
    }
    struct rusage ru;
    int st = 0;
    thread_stats ts = {0};
    pid_t got = 0;
    while (pid > 0 && (got = wait4(pid, &st, WNOHANG, &ru)) == 0) {
        poll_threads(pid, &ts);
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    if (pid > 0 && got == pid) {
        r.wall = wall_now() - t0;
        worker_delay(&ts, &r);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        r.cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                ru.ru_stime.tv_usec * 1e-6;
        r.max_rss_kb = ru.ru_maxrss;
    }
    off_t n = lseek(fd, 0, SEEK_END);
    r.out = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    if (r.out && n > 0)
        r.out[pread(fd, r.out, (size_t)n, 0) > 0 ? n : 0] = 0;
    close(fd);
    return r;
}

/* The number after "key": in the tool's JSON output (-1 when absent). */
static double json_number(const char *out, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = out ? strstr(out, pat) : NULL;
    return p ? strtod(p + strlen(pat), NULL) : -1;
}

static bool copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    bool ok = a && b;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a)
        fclose(a);
    if (b)
        ok = fclose(b) == 0 && ok;
    return ok;
}

/* Region files under dir, recursively, into files[n..max) (terrain_only:
 * not entities/ or poi/ ones, by name). */
static int list_regions(const char *dir, char files[][4096], int max, int n, bool terrain_only)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode))
            n = list_regions(p, files, max, n, terrain_only);
        else if (strstr(e->d_name, ".mca") && (!terrain_only || (!strstr(e->d_name, "poi") && !strstr(e->d_name, "entities"))))
            snprintf(files[n++], 4096, "%s", p);
    }
    if (d)
        closedir(d);
    return n;
}

/* "...r.X.Z.mca" -> "r.X.Z.mca". */
static const char *region_name(const char *path)
{
    const char *r = strstr(path, "r.");
    const char *last = r;
    while (r && (r = strstr(r + 1, "r.")) != NULL)
        last = r;
    return last ? last : path;
}

static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

/* ------------------------------------------------------------- 1. corpus */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The chunks of every region file under dir (as written: decompressed),
 * deflated (zlib) at `level`: bytes, whole 4 KiB sectors their records
 * take, CPU seconds. */
static void deflate_at(const char *dir, int level, double *bytes, double *sectors, double *cpu, long *chunks)
{
    static char files[256][4096];
    int n = list_regions(dir, files, 256, 0, false);
    mc_buf nbt, out;
    mc_buf_init(&nbt, NULL);
    mc_buf_init(&out, NULL);
    *bytes = *sectors = *cpu = 0;
    *chunks = 0;
    for (int f = 0; f < n; f++) {
        mc_region *r = NULL;
        mc_error err;
        if (mc_region_open(files[f], NULL, &r, &err) != MC_OK)
            continue;
        for (int i = 0; i < 1024; i++) {
            nbt.len = 0;
            if (!mc_region_has_chunk(r, i & 31, i >> 5) ||
                mc_region_read_chunk(r, i & 31, i >> 5, &nbt, NULL, &err) != MC_OK)
                continue;
            out.len = 0;
            double t0 = cpu_now();
            if (mc_region_compress(MC_COMPRESSION_ZLIB, level, nbt.data, nbt.len, &out, &err) != MC_OK)
                continue;
            *cpu += cpu_now() - t0;
            *bytes += (double)out.len;
            *sectors += (double)((out.len + 5 + 4095) / 4096);
            (*chunks)++;
        }
        mc_region_close(r);
    }
    mc_buf_free(&nbt);
    mc_buf_free(&out);
}

/* Convert's deflate level (1) against zlib's default (6) on what it wrote. */
static void bench_deflate_levels(const char *converted)
{
    double b1, s1, c1, b6, s6, c6;
    long n1, n6;
    deflate_at(converted, 1, &b1, &s1, &c1, &n1);
    deflate_at(converted, 6, &b6, &s6, &c6, &n6);
    if (!n1 || n1 != n6)
        return;
    printf("  deflate of the %ld records written -> 1.21.4 (chunks, entities, poi; zlib format), level 1 (convert's: ISA-L igzip) vs 6 (libdeflate) "
           "(zlib's default, the game's):\n", n1);
    printf("    level 1: %.2f MB, %.0f sectors, %.1f us/chunk; level 6: %.2f MB, %.0f sectors, %.1f us/chunk\n",
           b1 / 1e6, s1, c1 / (double)n1 * 1e6, b6 / 1e6, s6, c6 / (double)n1 * 1e6);
    printf("    level 1 is %.2fx level 6's bytes, %.3fx its sectors (the file size), %.2fx its CPU\n", b1 / b6,
           s1 / s6, c1 / c6);
}

/* `region verify` of what convert wrote (the region files only): the read
 * of a converted world in compression `comp`, next to the corpus' read. */
static void bench_read_back(const char *dir, const char *comp, double verify_us)
{
    static char files[256][4096];
    int n = list_regions(dir, files, 256, 0, true);
    if (n > 76)
        n = 76;
    char *argv[80] = {"mcchunk", "region", "verify", "-q"};
    for (int i = 0; i < n; i++)
        argv[4 + i] = files[i];
    argv[4 + n] = NULL;
    run_result v = run_tool(argv);
    const char *p = v.out ? strstr(v.out, "problems, ") : NULL;
    long chunks = p ? strtol(p + 10, NULL, 10) : 0;
    if (chunks)
        printf("    read back (region verify of the %ld chunks written, %s): %.1f us/chunk, %.2fx the corpus' read\n",
               chunks, comp, v.cpu / (double)chunks * 1e6, v.cpu / (double)chunks * 1e6 / verify_us);
    free(v.out);
}

/* CPU per chunk of `region verify` over the region files under dir. */
static double verify_us_of(const char *dir)
{
    static char files[256][4096];
    int n = list_regions(dir, files, 256, 0, true);
    if (n > 76)
        n = 76;
    char *argv[80] = {"mcchunk", "region", "verify", "-q"};
    for (int i = 0; i < n; i++)
        argv[4 + i] = files[i];
    argv[4 + n] = NULL;
    run_result v = run_tool(argv);
    const char *p = v.out ? strstr(v.out, "problems, ") : NULL;
    long chunks = p ? strtol(p + 10, NULL, 10) : 0;
    free(v.out);
    return chunks ? v.cpu / (double)chunks * 1e6 : 0;
}

/* `world convert` of one part of the corpus (the 1.18+ files or the older
 * ones), as the line above it: the 1.18+ chunks go mostly by the byte path
 * (mc_chunknbt_recode), the older ones by the model path. Beside the ratio
 * to the whole corpus' verify, the ratio to `region verify` of the part's
 * own files in this run (the 1.18+ chunks read faster than the average). */
static void bench_convert_part(const char *world, const char *name, const char *tmp, const char *to,
                               const char *comp, double verify_us, bool model)
{
    static double own_verify[2];
    const int part = name[0] == '1' ? 0 : 1;
    if (!own_verify[part])
        own_verify[part] = verify_us_of(world);
    char dst[4400];
    snprintf(dst, sizeof dst, "%s/converted-%s-%s-%s%s", tmp, to, comp, name[0] == '1' ? "modern" : "older",
             model ? "-model" : "");
    if (model)
        setenv("MCCHUNK_CONVERT_MODEL", "1", 1); /* the model path only: the baseline of the byte path */
    char *argv[] = {"mcchunk", "world", "convert", (char *)world, dst, "--to", (char *)to, "--compression",
                    (char *)comp, "--threads", "1", "--json", NULL};
    run_result c = run_tool(argv);
    unsetenv("MCCHUNK_CONVERT_MODEL");
    double read = json_number(c.out, "chunks_read"), recoded = json_number(c.out, "chunks_recoded");
    if (read > 0)
        printf("    %-34s %9.0f chunks/s per core  %7.1f us/chunk  (%.1fx verify; %.1fx its files' verify, %.1f us) "
               "[%.0f chunks, %.0f by the byte path]\n",
               name, read / c.cpu, c.cpu / read * 1e6, c.cpu / read * 1e6 / verify_us,
               own_verify[part] ? c.cpu / read * 1e6 / own_verify[part] : 0, own_verify[part], read, recoded);
    free(c.out);
}

/* Region file `file` into world's dimension bench/DIM (made when new);
 * the copy's path into `to` when given. */
static bool copy_as_dimension(const char *world, const char *dim, const char *file, char *to, size_t to_size)
{
    char dir[4400], path[4600], cmd[4500];
    snprintf(dir, sizeof dir, "%s/dimensions/bench/%s/region", world, dim);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd))
        return false;
    snprintf(path, sizeof path, "%s/%s", dir, region_name(file));
    copy_file(file, path);
    if (to)
        snprintf(to, to_size, "%s", path);
    return true;
}

/* `world relight` of a copy of the corpus world (it rewrites the files in
 * place), one thread, at its default deflate level (6, the game's) and at
 * --deflate-level 1: the full 1.14+ chunks are relit (light engine, the
 * eight neighbours across files), every other chunk is read and kept. */
static void bench_relight(const char *world, const char *tmp, double verify_us)
{
    for (int k = 0; k < 2; k++) {
        char copy[4400], cmd[9000], label[64];
        snprintf(copy, sizeof copy, "%s/relight-%d", tmp, k);
        snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", world, copy);
        if (system(cmd)) {
            printf("  world relight: cannot copy the corpus world\n");
            return;
        }
        char *argv[] = {"mcchunk", "world", "relight", copy, "--threads", "1", "--json", "--quiet",
                        k ? "--deflate-level" : NULL, "1", NULL};
        run_result r = run_tool(argv);
        double chunks = json_number(r.out, "chunks"), relit = json_number(r.out, "relit");
        snprintf(label, sizeof label, "world relight%s", k ? ", --deflate-level 1" : " (deflate level 6)");
        if (r.status || relit <= 0)
            printf("  %s failed (status %d)\n", label, r.status);
        else
            printf("  %-36s %9.0f chunks/s per core  %7.1f us/chunk  (%.1fx verify) [%.0f of %.0f chunks relit: "
                   "%.0f relit chunks/s per core, the rest read and kept]\n",
                   label, chunks / r.cpu, r.cpu / chunks * 1e6, r.cpu / chunks * 1e6 / verify_us, relit, chunks,
                   relit / r.cpu);
        free(r.out);
    }
}

static void bench_corpus(const char *tmp)
{
    static char files[64][4096];
    int n = list_regions(MC_CORPUS_DIR "/anvil", files, 64, 0, true);
    if (!n) {
        printf("corpus absent: the real-chunk figures are skipped\n");
        return;
    }
    char world[4200], modern[4200], old[4200], old4[4200], legacy[4200], flat[4200], flat4[4200];
    snprintf(world, sizeof world, "%s/corpus", tmp);
    snprintf(legacy, sizeof legacy, "%s/corpus-1.8-1.12", tmp);
    snprintf(flat, sizeof flat, "%s/corpus-1.13-1.17", tmp);
    snprintf(modern, sizeof modern, "%s/corpus-1.18+", tmp);
    snprintf(old, sizeof old, "%s/corpus-older", tmp);
    snprintf(old4, sizeof old4, "%s/corpus-older-x4", tmp);
    snprintf(flat4, sizeof flat4, "%s/corpus-1.13-1.17-x4", tmp);
    char *verify_argv[80] = {"mcchunk", "region", "verify", "-q"};
    int va = 4;
    for (int i = 0; i < n; i++) {
        char dim[64], to[4600];
        bool is_modern = strstr(files[i], "/1.18") || strstr(files[i], "/1.19") || strstr(files[i], "/1.2");
        bool is_legacy = strstr(files[i], "/1.8") || strstr(files[i], "/1.9") || strstr(files[i], "/1.10") ||
                         strstr(files[i], "/1.11") || strstr(files[i], "/1.12");
        snprintf(dim, sizeof dim, "d%d", i);
        if (!copy_as_dimension(world, dim, files[i], to, sizeof to) ||
            !copy_as_dimension(is_modern ? modern : old, dim, files[i], NULL, 0) ||
            (!is_modern && !copy_as_dimension(is_legacy ? legacy : flat, dim, files[i], NULL, 0)))
            return;
        if (va < 78)
            verify_argv[va++] = strdup(to);
        for (int copy = 0; copy < 4 && !is_modern; copy++) {
            /* the older files four times over, each copy a dimension, and
             * the 1.13-1.17 ones apart */
            snprintf(dim, sizeof dim, "c%d-%d", copy, i);
            if (!copy_as_dimension(old4, dim, files[i], NULL, 0) ||
                (!is_legacy && !copy_as_dimension(flat4, dim, files[i], NULL, 0)))
                return;
        }
    }
    verify_argv[va] = NULL;
    run_result v = run_tool(verify_argv);
    long chunks = 0;
    const char *p = v.out ? strstr(v.out, "problems, ") : NULL;
    if (p)
        chunks = strtol(p + 10, NULL, 10);
    if (!chunks) {
        printf("region verify failed (status %d)\n", v.status);
        return;
    }
    double verify_us = v.cpu / (double)chunks * 1e6;
    printf("real chunks: %d corpus region files, %ld chunks (1.8.9 .. 1.21.11), one thread\n", n, chunks);
    printf("  %-36s %9.0f chunks/s per core  %7.1f us/chunk  (baseline)\n", "region verify (read only)",
           chunks / v.cpu, verify_us);
    /* Each set once; a set with x4 (the same files four times over, each
     * copy a dimension) also as a marginal rate. The files' run pays once
     * for what does not grow with the chunks -- each distinct palette entry
     * resolved through the registry, each distinct state named, the output
     * -- and that is much of it (some files hold thousands of distinct
     * entries). The copies pay it once again (they share their
     * registries): x4 less x1 is the cost of the extra chunks alone, what a
     * world of many chunks pays per chunk. */
    const struct { const char *name, *dir, *x4, *marginal; } sets[5] = {
        {"world stats, every chunk", world, NULL, NULL},
        {"world stats, 1.18+ chunks", modern, NULL, NULL},
        {"world stats, 1.8-1.12 chunks", legacy, NULL, NULL},
        {"world stats, 1.13-1.17 chunks", flat, flat4, "world stats, 1.13-1.17, marginal"},
        {"world stats, older chunks", old, old4, "world stats, older chunks, marginal"}};
    double once_chunks[5], once_cpu[5];
    for (int k = 0; k < 5; k++) {
        char *argv[] = {"mcchunk", "world", "stats", (char *)sets[k].dir, "--threads", "1", "--json", "--quiet", NULL};
        run_result s = run_tool(argv);
        double c = json_number(s.out, "chunks");
        free(s.out);
        once_chunks[k] = c;
        once_cpu[k] = s.cpu;
        printf("  %-36s %9.0f chunks/s per core  %7.1f us/chunk  (%.1fx verify; target >= 20,000 chunks/s)\n",
               sets[k].name, c / s.cpu, s.cpu / c * 1e6, s.cpu / c * 1e6 / verify_us);
    }
    for (int k = 0; k < 5; k++) {
        if (!sets[k].x4)
            continue;
        char *argv[] = {"mcchunk", "world", "stats", (char *)sets[k].x4, "--threads", "1", "--json", "--quiet", NULL};
        run_result s = run_tool(argv);
        double c = json_number(s.out, "chunks");
        free(s.out);
        double dc = c - once_chunks[k], dcpu = s.cpu - once_cpu[k];
        if (dc > 0 && dcpu > 0)
            printf("  %-36s %9.0f chunks/s per core  %7.1f us/chunk  (%.1fx verify; the files x4 less x1: "
                   "per chunk, once-per-distinct-key work taken out)\n",
                   sets[k].marginal, dc / dcpu, dcpu / dc * 1e6, dcpu / dc * 1e6 / verify_us);
    }
    bench_relight(world, tmp, verify_us);
    /* to 1.21.4 in each region compression the game offers, then to 1.12.2 */
    const struct { const char *to, *comp, *note; } targets[4] = {
        {"1.21.4", "zlib", "light left to the game"},
        {"1.21.4", "lz4", "light left to the game"},
        {"1.21.4", "none", "light left to the game"},
        {"1.12.2", "zlib", "light computed"},
    };
    double zlib_bytes = 0;
    for (int k = 0; k < 4; k++) {
        char dst[4400], label[64];
        snprintf(dst, sizeof dst, "%s/converted-%s-%s", tmp, targets[k].to, targets[k].comp);
        char *argv[] = {"mcchunk", "world", "convert", world, dst, "--to", (char *)targets[k].to, "--compression",
                        (char *)targets[k].comp, "--threads", "1", "--json", NULL};
        run_result c = run_tool(argv);
        double read = json_number(c.out, "chunks_read"), bytes = json_number(c.out, "bytes_written");
        if (k == 0)
            zlib_bytes = bytes;
        snprintf(label, sizeof label, "world convert -> %s, %s", targets[k].to, targets[k].comp);
        printf("  %-36s %9.0f chunks/s per core  %7.1f us/chunk  (%.1fx verify; target <= 3x) [%s; %.2f MB written",
               label, read / c.cpu, c.cpu / read * 1e6, c.cpu / read * 1e6 / verify_us, targets[k].note, bytes / 1e6);
        if (k == 1 || k == 2)
            printf(", %.2fx zlib's", bytes / zlib_bytes);
        printf("]\n");
        free(c.out);
        for (int part = 0; k < 3 && part < 3; part++)
            bench_convert_part(part == 2 ? old : modern,
                               part == 2 ? "older files" : part ? "1.18+ files, model path only" : "1.18+ files", tmp,
                               targets[k].to, targets[k].comp, verify_us, part == 1);
        if (k == 0)
            bench_deflate_levels(dst);
        if (k <= 1)
            bench_read_back(dst, targets[k].comp, verify_us);
    }
    free(v.out);
}

/* ------------------------------------------------------------- 2. scale */

static void bench_scale(const char *tmp, int radius)
{
    char world[4200], dst[4200];
    const char *keep = getenv("MCCHUNK_BENCH_WORLD");
    snprintf(world, sizeof world, "%s", keep ? keep : "");
    if (!keep)
        snprintf(world, sizeof world, "%s/big", tmp);
    struct stat st;
    char r[16];
    snprintf(r, sizeof r, "%d", radius);
    if (stat(world, &st) != 0) {
        char *argv[] = {"mcchunk", "world", "create", world, "--version", "1.20.1", "--radius", r, "--json", NULL};
        run_result c = run_tool(argv);
        printf("scale: world create 1.20.1 --radius %d: %.0f chunks in %.0f region files, %.0f s (%.0f s CPU)\n",
               radius, json_number(c.out, "chunks"), json_number(c.out, "region_files"), c.wall, c.cpu);
        free(c.out);
        if (c.status) {
            printf("  world create failed (status %d)\n", c.status);
            return;
        }
    } else {
        printf("scale: the world in %s\n", world);
    }
    /* Each convert below writes to a directory of its own and none is
     * deleted until every timed run is over: ext4 keeps an inode freed in
     * the last minute (five when its table block is dirty) from being
     * reused, so a child started right after an `rm -rf` of the run before
     * spends its inode allocation skipping those (perf: ext4's
     * recently_deleted, 2-6% of convert's samples) -- a cost of the
     * benchmark, not of the tool, and uneven between the runs compared. */
    snprintf(dst, sizeof dst, "%s/big-1.21.4", tmp);
    char *argv[] = {"mcchunk", "world", "convert", world, dst, "--to", "1.21.4", "--threads", "2", "--json", NULL};
    double load = load_average();
    run_result c = run_tool(argv);
    double chunks = json_number(c.out, "chunks_read"), regions = json_number(c.out, "regions_done");
    double bound_kb = (16 + 2 * 48) * 1024.0;
    printf("  world convert -> 1.21.4, 2 threads: %.0f chunks in %.0f regions, %.0f s wall (%.0f chunks/s), "
           "%.0f s CPU; peak RSS %.1f MB, bound stated in --help %.0f MB: %s (load average %.1f)\n",
           chunks, regions, c.wall, chunks / c.wall, c.cpu, c.max_rss_kb / 1024.0, bound_kb / 1024,
           c.max_rss_kb <= bound_kb ? "under" : "OVER", load);
    free(c.out);
    double walls[2] = {0, 0}, cpus[2] = {0, 0}, idle[2] = {0, 0}, busy[2] = {0, 0};
    for (int t = 1; t <= 2; t++) {
        char threads[4];
        snprintf(threads, sizeof threads, "%d", t);
        snprintf(dst, sizeof dst, "%s/big-1.21.4-%dt", tmp, t);
        char *a[] = {"mcchunk", "world", "convert", world, dst, "--to", "1.21.4", "--threads", threads, "--json",
                     "--shard", "0/8", NULL};
        if (regions < 64)
            a[10] = NULL; /* the whole world: an eighth would be a few regions */
        load = load_average();
        run_result s = run_tool(a);
        walls[t - 1] = s.wall;
        cpus[t - 1] = s.cpu;
        idle[t - 1] = s.wall - s.worker_delay;
        /* of the time the workers did not wait for a CPU, the share they
         * ran on one (the rest: I/O, locks, the end of the job) */
        busy[t - 1] = s.workers ? s.cpu / s.workers / idle[t - 1] : 0;
        printf("  %s, %d thread%s: %.0f chunks, %.1f s wall, %.1f s CPU (%.2f cores busy), peak RSS %.1f MB "
               "(load %.1f before, %.1f after)\n", regions < 64 ? "whole world" : "--shard 0/8", t, t == 1 ? "" : "s",
               json_number(s.out, "chunks_read"), s.wall, s.cpu, s.cpu / s.wall, s.max_rss_kb / 1024.0, load,
               load_average());
        printf("    its %d worker thread%s waited %.1f s each (mean) for a CPU: %.1f s wall without that wait, "
               "%.0f%% of it on a CPU\n", s.workers, s.workers == 1 ? "" : "s", s.worker_delay, idle[t - 1],
               100 * busy[t - 1]);
        free(s.out);
    }
    printf("  2 threads vs 1: %.2fx faster in wall time (target >= 1.7); CPU parallel efficiency %.2f (1 thread's "
           "CPU / 2 threads'); cores busy %.2f of 2 (1 thread: %.2f of 1)\n", walls[0] / walls[1], cpus[0] / cpus[1],
           cpus[1] / walls[1], cpus[0] / walls[0]);
    printf("  2 threads vs 1 in wall time less the workers' wait for a CPU: %.2fx; at equal CPU (the CPU of one "
           "run varies by 10-20%% on a loaded machine), what two idle cores would give: 2 x %.2f / %.2f = %.2fx\n",
           idle[0] / idle[1], busy[1], busy[0], busy[0] > 0 ? 2 * busy[1] / busy[0] : 0);
    char *sa[] = {"mcchunk", "world", "stats", world, "--threads", "2", "--json", NULL};
    run_result s = run_tool(sa);
    printf("  world stats, 2 threads: %.0f chunks, %.1f s wall (%.0f chunks/s), %.0f chunks per CPU second, "
           "peak RSS %.1f MB\n", json_number(s.out, "chunks"), s.wall, json_number(s.out, "chunks") / s.wall,
           json_number(s.out, "chunks") / s.cpu, s.max_rss_kb / 1024.0);
    free(s.out);
}

int main(int argc, char **argv)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    snprintf(tool, sizeof tool, "%s/mcchunk", dirname(self));
    if (access(tool, X_OK)) {
        fprintf(stderr, "bench_world: %s not built\n", tool);
        return 1;
    }
    bool scale = true;
    int radius = 224;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-scale"))
            scale = false;
        else if (!strcmp(argv[i], "--radius") && i + 1 < argc)
            radius = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_world [--no-scale] [--radius R]\n");
            return 2;
        }
    }
    char tmp[] = "/tmp/mcchunk-bench-world-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    printf("bench_world: mcchunk world commands, CPU and peak memory of the tool as a child process "
           "(load average %.1f)\n", load_average());
    bench_corpus(tmp);
    if (scale)
        bench_scale(tmp, radius);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) ? 1 : 0;
}
