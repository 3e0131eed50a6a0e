/*
 * bench_inflate.c: libdeflate next to ISA-L (isal_inflate_stateless) on the
 * zlib streams of every chunk of the corpus region files, in the same run.
 *
 * Why: `world stats` and every region reader spend about a third of their
 * instructions in inflate (callgrind of world stats over the corpus: 425 M of
 * 1,195 M in libdeflate_zlib_decompress). ISA-L is already linked (igzip
 * compresses for convert); this measures whether its inflate is faster on
 * these small (a few KiB) streams, before anything is switched.
 *
 * Input: every zlib record (compression type 2) of every .mca/.mcr under the
 * corpus's anvil/ folder (1.8.9 to 1.21.11, proto-chunks and full ones),
 * loaded into memory first. Each round inflates every record once with each
 * library into a reused buffer, taking turns (which goes first alternates),
 * until each has run the given CPU seconds. Both outputs are compared byte
 * for byte once before timing.
 *
 * usage: bench_inflate [seconds, default 2] [--only libdeflate|isal]
 *   --only runs a single pass with one library (for callgrind: compare the
 *   Ir of the two runs; loading is the same in both).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <dirent.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcchunk/anvil.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct record {
    uint8_t *data; /* zlib stream */
    size_t len;
} record;

typedef struct records {
    record *v;
    size_t n, cap, comp_bytes, max_raw;
    size_t files;
} records;

static void add_region(records *rs, const char *path)
{
    mc_region *reg = NULL;
    if (mc_region_open(path, NULL, &reg, NULL) != MC_OK)
        return;
    rs->files++;
    mc_buf raw, nbt;
    mc_buf_init(&raw, NULL);
    mc_buf_init(&nbt, NULL);
    for (int i = 0; i < 1024; i++) {
        raw.len = nbt.len = 0;
        mc_region_record rec;
        if (!mc_region_has_chunk(reg, i & 31, i >> 5) ||
            mc_region_read_raw(reg, i & 31, i >> 5, &raw, &rec, NULL) != MC_OK ||
            rec.compression != MC_COMPRESSION_ZLIB ||
            mc_region_read_chunk(reg, i & 31, i >> 5, &nbt, NULL, NULL) != MC_OK)
            continue;
        if (rs->n == rs->cap) {
            rs->cap = rs->cap ? rs->cap * 2 : 1024;
            rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
            if (!rs->v)
                abort();
        }
        record *r = &rs->v[rs->n++];
        r->data = malloc(raw.len);
        if (!r->data)
            abort();
        memcpy(r->data, raw.data, raw.len);
        r->len = raw.len;
        rs->comp_bytes += raw.len;
        if (nbt.len > rs->max_raw)
            rs->max_raw = nbt.len;
    }
    mc_buf_free(&raw);
    mc_buf_free(&nbt);
    mc_region_close(reg);
}

/* Every region file under dir, in name order (so runs are comparable). */
static void add_dir(records *rs, const char *dir)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, nm);
        size_t l = strlen(nm);
        if (nm[0] == '.') {
            /* skip . .. and hidden */
        } else if (l > 4 && (!strcmp(nm + l - 4, ".mca") || !strcmp(nm + l - 4, ".mcr"))) {
            add_region(rs, path);
        } else {
            DIR *d = opendir(path);
            if (d) {
                closedir(d);
                add_dir(rs, path);
            }
        }
        free(names[i]);
    }
    free(names);
}

static size_t inflate_libdeflate(struct libdeflate_decompressor *dec, const record *r, uint8_t *out, size_t cap)
{
    size_t got = 0;
    if (libdeflate_zlib_decompress(dec, r->data, r->len, out, cap, &got) != LIBDEFLATE_SUCCESS)
        return SIZE_MAX;
    return got;
}

static size_t inflate_isal(struct inflate_state *st, const record *r, uint8_t *out, size_t cap)
{
    isal_inflate_init(st);
    st->next_in = r->data;
    st->avail_in = (uint32_t)r->len;
    st->next_out = out;
    st->avail_out = (uint32_t)cap;
    st->crc_flag = ISAL_ZLIB;
    if (isal_inflate_stateless(st) != ISAL_DECOMP_OK || st->block_state != ISAL_BLOCK_FINISH)
        return SIZE_MAX;
    return st->total_out;
}

int main(int argc, char **argv)
{
    double seconds = 2;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--only") && i + 1 < argc &&
            (!strcmp(argv[i + 1], "libdeflate") || !strcmp(argv[i + 1], "isal"))) {
            only = argv[++i];
        } else if ((seconds = strtod(argv[i], &end)), end == argv[i] || *end || !(seconds > 0 && seconds < 1e6)) {
            fprintf(stderr, "usage: bench_inflate [SECONDS > 0, default 2] [--only libdeflate|isal]\n");
            return 2;
        }
    }
    const char *corpus = getenv("MCCHUNK_CORPUS");
    if (!corpus)
        corpus = MC_CORPUS_DIR;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/anvil", corpus);
    records rs = {0};
    add_dir(&rs, dir);
    if (!rs.n) {
        fprintf(stderr, "bench_inflate: no chunks (corpus at %s?)\n", corpus);
        return 1;
    }
    size_t cap = rs.max_raw + 64;
    uint8_t *a = malloc(cap), *b = malloc(cap);
    struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
    struct inflate_state *st = malloc(sizeof *st);
    if (!a || !b || !dec || !st)
        abort();
    size_t sink = 0;
    if (only) {
        bool isal = !strcmp(only, "isal");
        for (size_t i = 0; i < rs.n; i++)
            sink += isal ? inflate_isal(st, &rs.v[i], a, cap) : inflate_libdeflate(dec, &rs.v[i], a, cap);
        printf("%s: one pass over %zu chunks (sink %zu)\n", isal ? "isal" : "libdeflate", rs.n, sink);
        free(a);
        free(b);
        free(st);
        libdeflate_free_decompressor(dec);
        return 0;
    }
    size_t raw_bytes = 0;
    for (size_t i = 0; i < rs.n; i++) {
        size_t x = inflate_libdeflate(dec, &rs.v[i], a, cap), y = inflate_isal(st, &rs.v[i], b, cap);
        if (x == SIZE_MAX || x != y || memcmp(a, b, x)) {
            fprintf(stderr, "bench_inflate: chunk %zu: libdeflate and ISA-L disagree (%zu vs %zu bytes)\n", i, x, y);
            return 1;
        }
        raw_bytes += x;
    }
    printf("chunks: %zu zlib records from %zu region files, %.2f KiB compressed, %.2f KiB inflated per chunk\n",
           rs.n, rs.files, (double)rs.comp_bytes / 1024.0 / (double)rs.n, (double)raw_bytes / 1024.0 / (double)rs.n);
    double el_ld = 0, el_isal = 0;
    size_t rounds = 0;
    do {
        for (int turn = 0; turn < 2; turn++) {
            bool isal = (turn ^ (int)(rounds & 1)) != 0;
            double t0 = now();
            for (size_t i = 0; i < rs.n; i++)
                sink += isal ? inflate_isal(st, &rs.v[i], a, cap) : inflate_libdeflate(dec, &rs.v[i], a, cap);
            double t1 = now();
            *(isal ? &el_isal : &el_ld) += t1 - t0;
        }
        rounds++;
    } while (el_ld < seconds || el_isal < seconds);
    double us_ld = el_ld * 1e6 / (double)(rounds * rs.n), us_isal = el_isal * 1e6 / (double)(rounds * rs.n);
    printf("rounds: %zu, CPU time, turns alternate (sink %zu)\n", rounds, sink);
    printf("  libdeflate zlib_decompress: %7.2f us/chunk %9.0f chunks/s %7.1f MB/s out\n", us_ld, 1e6 / us_ld,
           (double)raw_bytes / (el_ld / (double)rounds) / 1e6);
    printf("  ISA-L isal_inflate_stateless: %5.2f us/chunk %9.0f chunks/s %7.1f MB/s out\n", us_isal,
           1e6 / us_isal, (double)raw_bytes / (el_isal / (double)rounds) / 1e6);
    printf("  ISA-L / libdeflate time: %.3f (below 1: ISA-L faster)\n", us_isal / us_ld);
    for (size_t i = 0; i < rs.n; i++)
        free(rs.v[i].data);
    free(rs.v);
    free(a);
    free(b);
    free(st);
    libdeflate_free_decompressor(dec);
    return 0;
}
