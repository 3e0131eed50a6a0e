/*
 * bench_region.c: how fast mcchunk reads region files, next to libdeflate
 * alone inflating the same payloads in the same run.
 *
 * Every corpus region file (../shared/corpus/anvil, or $MCCHUNK_CORPUS) is
 * loaded once. Then, per pass over all of them:
 *   region+inflate   mc_region_open + mc_region_read_chunk of every chunk
 *                    (pread of the record from the page cache, header and
 *                    length checks, inflate into a growing buffer)
 *   memory+inflate   the same through mc_region_open_memory (no syscalls)
 *   +nbt parse       memory+inflate, then mc_nbt_parse of every chunk
 *   libdeflate       the peer: libdeflate_zlib_decompress of the same
 *                    compressed payloads into a buffer of the known exact
 *                    size (its best case: no record parsing, no size guess)
 * Each figure is the median of 7 passes; the ratio column is the row's time
 * over libdeflate's (1.00 = no overhead beyond inflating).
 * `bench_region [passes]` changes the number of passes.
 */
#include <dirent.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mcchunk/anvil.h"
#include "mcchunk/nbt.h"

typedef struct region_file {
    char path[1024];
    uint8_t *data;
    size_t len;
} region_file;

typedef struct payload {
    const uint8_t *data;
    size_t len;
    size_t out_len;
    int comp;
} payload;

static region_file files[256];
static int nfiles;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void find_regions(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && nfiles < 256) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            find_regions(p);
        } else if (n > 4 && !strcmp(e->d_name + n - 4, ".mca")) {
            region_file *f = &files[nfiles];
            snprintf(f->path, sizeof f->path, "%s", p);
            mc_error err;
            if (mc_read_file(p, NULL, &f->data, &f->len, &err) == MC_OK)
                nfiles++;
        }
    }
    closedir(d);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

enum { MODE_FILE, MODE_MEMORY, MODE_NBT };

static size_t pass(int mode, mc_buf *out, mc_nbt_doc *doc, size_t *bytes_out)
{
    size_t chunks = 0, bytes = 0;
    for (int f = 0; f < nfiles; f++) {
        mc_region *r = NULL;
        mc_error err;
        mc_status st = mode == MODE_FILE
            ? mc_region_open(files[f].path, NULL, &r, &err)
            : mc_region_open_memory(files[f].data, files[f].len, NULL, &r, &err);
        if (st) {
            fprintf(stderr, "%s: %s\n", files[f].path, err.message);
            exit(1);
        }
        for (int i = 0; i < 1024; i++) {
            if (!mc_region_has_chunk(r, i & 31, i >> 5))
                continue;
            out->len = 0;
            if (mc_region_read_chunk(r, i & 31, i >> 5, out, NULL, &err)) {
                fprintf(stderr, "%s: %s\n", files[f].path, err.message);
                exit(1);
            }
            if (mode == MODE_NBT && mc_nbt_parse(doc, out->data, out->len, MC_NBT_JAVA, NULL, &err)) {
                fprintf(stderr, "%s: %s\n", files[f].path, err.message);
                exit(1);
            }
            chunks++;
            bytes += out->len;
        }
        mc_region_close(r);
    }
    *bytes_out = bytes;
    return chunks;
}

int main(int argc, char **argv)
{
    int passes = argc > 1 ? atoi(argv[1]) : 7;
    if (passes < 1)
        passes = 1;
    const char *env = getenv("MCCHUNK_CORPUS");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/anvil", env && *env ? env : MC_CORPUS_DIR);
    find_regions(dir);
    if (!nfiles) {
        printf("bench_region: no region files under %s (corpus absent): nothing to measure\n", dir);
        return 0;
    }

    /* The peer's input: every compressed payload with its exact output size. */
    size_t npay = 0, cap = 8192, max_out = 0, comp_bytes = 0;
    payload *pay = malloc(cap * sizeof *pay);
    mc_buf scratch;
    mc_buf_init(&scratch, NULL);
    for (int f = 0; f < nfiles; f++) {
        mc_region *r;
        mc_error err;
        mc_region_open_memory(files[f].data, files[f].len, NULL, &r, &err);
        for (int i = 0; i < 1024; i++) {
            if (!mc_region_has_chunk(r, i & 31, i >> 5))
                continue;
            mc_region_entry e = mc_region_get_entry(r, i & 31, i >> 5);
            const uint8_t *rec = files[f].data + (size_t)e.sector_offset * 4096;
            uint32_t length = mc_load_u32be(rec);
            scratch.len = 0;
            mc_region_read_chunk(r, i & 31, i >> 5, &scratch, NULL, &err);
            if (npay == cap)
                pay = realloc(pay, (cap *= 2) * sizeof *pay);
            pay[npay++] = (payload){rec + 5, length - 1, scratch.len, rec[4]};
            comp_bytes += length - 1;
            if (scratch.len > max_out)
                max_out = scratch.len;
        }
        mc_region_close(r);
    }
    mc_buf_free(&scratch);

    struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
    uint8_t *outbuf = malloc(max_out ? max_out : 1);
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    const char *names[4] = {"region+inflate", "memory+inflate", "+nbt parse", "libdeflate"};
    uint64_t t[4][64];
    size_t chunks = 0, bytes = 0;
    if (passes > 64)
        passes = 64;
    for (int p = 0; p < passes; p++) {
        for (int m = 0; m < 3; m++) {
            uint64_t t0 = now_ns();
            chunks = pass(m, &out, doc, &bytes);
            t[m][p] = now_ns() - t0;
        }
        uint64_t t0 = now_ns();
        for (size_t i = 0; i < npay; i++) {
            size_t got = 0;
            enum libdeflate_result res = pay[i].comp == 2
                ? libdeflate_zlib_decompress(dec, pay[i].data, pay[i].len, outbuf, pay[i].out_len, &got)
                : libdeflate_gzip_decompress(dec, pay[i].data, pay[i].len, outbuf, pay[i].out_len, &got);
            if (res != LIBDEFLATE_SUCCESS || got != pay[i].out_len) {
                fprintf(stderr, "libdeflate failed on payload %zu\n", i);
                return 1;
            }
        }
        t[3][p] = now_ns() - t0;
    }
    double med[4];
    for (int m = 0; m < 4; m++) {
        qsort(t[m], (size_t)passes, sizeof t[m][0], cmp_u64);
        med[m] = (double)t[m][passes / 2] / 1e9;
    }
    printf("bench_region: %d region files, %zu chunks, %.1f MB compressed -> %.1f MB NBT, "
           "median of %d passes\n",
           nfiles, chunks, comp_bytes / 1e6, bytes / 1e6, passes);
    printf("%-16s %10s %12s %12s %8s\n", "", "ms/pass", "chunks/s", "MB/s out", "ratio");
    for (int m = 0; m < 4; m++)
        printf("%-16s %10.2f %12.0f %12.1f %8.2f\n", names[m], med[m] * 1e3,
               (double)chunks / med[m], bytes / 1e6 / med[m], med[m] / med[3]);
    mc_nbt_doc_free(doc);
    mc_buf_free(&out);
    free(outbuf);
    free(pay);
    libdeflate_free_decompressor(dec);
    for (int f = 0; f < nfiles; f++)
        mc_default_allocator()->free(NULL, files[f].data, files[f].len);
    return 0;
}
