/*
 * bench_nbt.c: how fast mc_nbt_parse reads real chunk NBT, next to
 * prismarine-nbt on the same payloads in the same run.
 *
 * Payloads: every fully generated chunk ("full" status) of the modern region
 * files in the corpus, inflated once up front (inflation is not what is
 * measured). We time parsing all of them, round after round, with one
 * reused document (as a region scanner would), and report microseconds per
 * payload and per 35 KiB of payload. Then bench/nbt_bench.js times
 * prismarine-nbt's parseUncompressed over the very same bytes (written to a
 * temporary file) and we print both figures and their ratio.
 *
 * Each round (one pass over a set, well under a millisecond) is timed on
 * its own and we report the median round (and the fastest): on a shared
 * machine a mean over seconds mostly measures the other processes. The
 * "typical 35 KiB chunk" figure is the median over the 30-40 KiB payloads.
 * Then one chunk near 35 KiB from a region file of each of several game
 * versions, parsed over and over on its own: its size and median time.
 *
 * usage: bench_nbt [seconds per side, default 2] [--no-peer]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/nbt.h"

static const char *const regions[] = {
    "anvil/1.18.2/ppa-r.0.0.mca",     "anvil/1.19.4/ppa-r.0.0.mca",
    "anvil/1.20.6/ppa-r.0.0.mca",     "anvil/1.21.1/ppa-r.0.0.mca",
    "anvil/1.21.11/minestom-r.-1.-1.mca", "anvil/1.18/amulet-superflat-r.-1.-1.mca",
};

typedef struct {
    uint8_t **data;
    size_t *len;
    size_t n, cap, bytes;
} payload_set;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One chunk per game version for the per-version lines: the one nearest to
 * 35 KiB. */
static const char *const version_regions[] = {
    "anvil/1.12.2/ppa-r.0.-1.mca",   "anvil/1.16/ppa-r.0.-1.mca",
    "anvil/1.17.1/amulet-region-r.0.0.mca", "anvil/1.18.2/ppa-r.0.0.mca",
    "anvil/1.20.6/ppa-r.0.0.mca",    "anvil/1.21.1/ppa-r.0.0.mca",
    "anvil/1.21.11/minestom-r.-1.-1.mca",
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Per-round timings: the median and the fastest round, in us per payload. */
typedef struct {
    double median, min;
    size_t rounds;
} round_stats;

static round_stats stats_of(double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    return (round_stats){n ? t[n / 2] : 0, n ? t[0] : 0, n};
}

/* Parses payloads [i] with lo <= len <= hi, round after round for `seconds`
 * (at least 5 rounds), each round timed on its own. */
static round_stats time_rounds(mc_nbt_doc *doc, uint8_t *const *data, const size_t *len, size_t n,
                               size_t lo, size_t hi, double seconds, size_t *sink)
{
    size_t cap = 1 << 16, rounds = 0, in_band = 0;
    double *t = malloc(cap * sizeof *t);
    for (size_t i = 0; i < n; i++)
        in_band += len[i] >= lo && len[i] <= hi;
    if (!t || !in_band) {
        free(t);
        return (round_stats){0, 0, 0};
    }
    double start = now();
    do {
        double r0 = now();
        for (size_t i = 0; i < n; i++)
            if (len[i] >= lo && len[i] <= hi) {
                if (mc_nbt_parse(doc, data[i], len[i], MC_NBT_JAVA, NULL, NULL) != MC_OK)
                    exit(1);
                *sink += mc_nbt_count(mc_nbt_doc_root(doc));
            }
        t[rounds++] = (now() - r0) * 1e6 / (double)in_band;
    } while (rounds < cap && (rounds < 5 || now() - start < seconds));
    round_stats st = stats_of(t, rounds);
    free(t);
    return st;
}

static bool is_full_chunk(mc_nbt_doc *doc, const uint8_t *p, size_t n)
{
    if (mc_nbt_parse(doc, p, n, MC_NBT_JAVA, NULL, NULL) != MC_OK)
        return false;
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    mc_nbt_tag *status = mc_nbt_get(root, "Status");
    if (!status)
        status = mc_nbt_path(root, "Level.Status");
    const char *s;
    size_t len;
    if (mc_nbt_get_string(status, &s, &len) != MC_OK)
        return false;
    return (len == 4 && !memcmp(s, "full", 4)) || (len == 14 && !memcmp(s, "minecraft:full", 14));
}

/* Calls fn for every chunk of a region file, inflated (just the offset
 * table and zlib: what is measured is the parse, not the region reader). */
typedef void chunk_fn(void *ctx, mc_nbt_doc *doc, const uint8_t *raw, size_t len);

static bool for_each_chunk(const char *path, mc_nbt_doc *doc, chunk_fn *fn, void *ctx)
{
    uint8_t *file;
    size_t len;
    if (mc_read_file(path, NULL, &file, &len, NULL) != MC_OK) {
        fprintf(stderr, "bench_nbt: cannot read %s\n", path);
        return false;
    }
    for (int i = 0; i < 1024 && len >= 8192; i++) {
        uint32_t e = mc_load_u32be(file + 4 * i);
        size_t off = (size_t)(e >> 8) * 4096;
        if (!e || off + 5 > len)
            continue;
        uint32_t clen = mc_load_u32be(file + off);
        if (clen < 1 || off + 4 + clen > len || (file[off + 4] != 1 && file[off + 4] != 2))
            continue;
        uint8_t *raw;
        size_t rlen, rcap;
        if (mc_nbt_decompress(file + off + 5, clen - 1, NULL, 0, &raw, &rlen, &rcap, NULL, NULL) != MC_OK)
            continue;
        fn(ctx, doc, raw, rlen);
        mc_default_allocator()->free(NULL, raw, rcap);
    }
    mc_default_allocator()->free(NULL, file, len);
    return true;
}

/* Keeps full chunks: a private exact-size copy each, so the allocator's
 * slack is not shared. */
static void add_full_chunk(void *ctx, mc_nbt_doc *doc, const uint8_t *raw, size_t rlen)
{
    payload_set *set = ctx;
    if (!is_full_chunk(doc, raw, rlen))
        return;
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 256;
        set->data = realloc(set->data, set->cap * sizeof *set->data);
        set->len = realloc(set->len, set->cap * sizeof *set->len);
    }
    set->data[set->n] = malloc(rlen);
    memcpy(set->data[set->n], raw, rlen);
    set->len[set->n] = rlen;
    set->bytes += rlen;
    set->n++;
}

/* Keeps the chunk nearest to 35 KiB (whatever its status). */
typedef struct {
    uint8_t *data;
    size_t len;
} nearest;

static void keep_nearest(void *ctx, mc_nbt_doc *doc, const uint8_t *raw, size_t rlen)
{
    nearest *best = ctx;
    size_t dist = rlen > 35 * 1024 ? rlen - 35 * 1024 : 35 * 1024 - rlen;
    size_t best_dist = best->len > 35 * 1024 ? best->len - 35 * 1024 : 35 * 1024 - best->len;
    if (mc_nbt_parse(doc, raw, rlen, MC_NBT_JAVA, NULL, NULL) != MC_OK || (best->data && dist >= best_dist))
        return;
    free(best->data);
    best->data = malloc(rlen);
    memcpy(best->data, raw, rlen);
    best->len = rlen;
}

static size_t count_tags(const mc_nbt_tag *t)
{
    size_t n = 1;
    for (const mc_nbt_tag *c = mc_nbt_first(t); c; c = mc_nbt_next(c))
        n += count_tags(c);
    return n;
}

static double run_peer(const payload_set *set, double seconds)
{
    char tmpl[] = "/tmp/bench_nbt_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "wb");
    uint8_t hdr[4];
    mc_store_u32le(hdr, (uint32_t)set->n);
    fwrite(hdr, 1, 4, f);
    for (size_t i = 0; i < set->n; i++) {
        mc_store_u32le(hdr, (uint32_t)set->len[i]);
        fwrite(hdr, 1, 4, f);
        fwrite(set->data[i], 1, set->len[i], f);
    }
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "node '%s/bench/nbt_bench.js' '%s' %g", MC_SOURCE_DIR, tmpl, seconds);
    FILE *p = popen(cmd, "r");
    double us = -1;
    char line[512];
    if (p) {
        while (fgets(line, sizeof line, p)) {
            const char *k = strstr(line, "\"us_per_payload\":");
            if (k)
                us = strtod(k + 17, NULL);
        }
        pclose(p);
    }
    unlink(tmpl);
    return us;
}

int main(int argc, char **argv)
{
    double seconds = 2;
    bool peer = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-peer"))
            peer = false;
        else
            seconds = atof(argv[i]);
    }
    const char *corpus = getenv("MCCHUNK_CORPUS");
    if (!corpus)
        corpus = MC_CORPUS_DIR;

    payload_set set = {0};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    for (size_t r = 0; r < sizeof regions / sizeof regions[0]; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", corpus, regions[r]);
        for_each_chunk(path, doc, add_full_chunk, &set);
    }
    if (!set.n) {
        fprintf(stderr, "bench_nbt: no payloads (corpus at %s?)\n", corpus);
        return 1;
    }
    double avg = (double)set.bytes / (double)set.n;
    size_t tags = 0;
    for (size_t i = 0; i < set.n; i++) {
        mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL);
        tags += count_tags(mc_nbt_doc_root(doc));
    }
    printf("payloads: %zu full chunks from %zu region files, %.1f KiB and %.0f tags on average\n", set.n,
           sizeof regions / sizeof regions[0], avg / 1024, (double)tags / (double)set.n);

    /* Ours: warm up once, then rounds for `seconds`. */
    size_t sink = 0;
    for (size_t i = 0; i < set.n; i++)
        mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL);
    round_stats all = time_rounds(doc, set.data, set.len, set.n, 0, SIZE_MAX, seconds, &sink);
    double ours = all.median;
    double ours35 = ours * (35.0 * 1024) / avg;

    /* The "typical 35 KiB chunk" directly: payloads of 30-40 KiB only. */
    size_t band = 0, band_bytes = 0;
    for (size_t i = 0; i < set.n; i++)
        if (set.len[i] >= 30 * 1024 && set.len[i] <= 40 * 1024) {
            band++;
            band_bytes += set.len[i];
        }
    round_stats b = time_rounds(doc, set.data, set.len, set.n, 30 * 1024, 40 * 1024, seconds / 2, &sink);

    /* Writing, for reference (parse once, write many times). */
    mc_buf out;
    mc_buf_init(&out, NULL);
    size_t wrounds = 0;
    double w0 = now(), wel;
    do {
        for (size_t i = 0; i < set.n; i++) {
            mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL);
            out.len = 0;
            mc_nbt_write(doc, MC_NBT_JAVA, &out, NULL);
            sink += out.len;
        }
        wrounds++;
        wel = now() - w0;
    } while (wel < seconds / 2);
    double parse_write = wel * 1e6 / (double)(wrounds * set.n);

    printf("mcchunk parse:          %8.2f us/payload  %8.2f us per 35 KiB  (%.2f GB/s, %.1f ns/tag; "
           "median of %zu rounds, fastest %.2f)\n",
           ours, ours35, avg / (ours * 1e3), ours * 1e3 * (double)set.n / (double)tags, all.rounds, all.min);
    if (band)
        printf("mcchunk parse, 30-40 KiB payloads only (%zu, %.1f KiB on average): %.2f us/payload "
               "(median of %zu rounds, fastest %.2f)\n",
               band, (double)band_bytes / (double)band / 1024, b.median, b.rounds, b.min);
    printf("mcchunk parse+write:    %8.2f us/payload (mean)\n", parse_write);

    /* One chunk near 35 KiB per game version, parsed repeatedly on its own
     * (so from warm caches: a best case next to the figures above). */
    printf("one chunk per version, parsed repeatedly (median):\n");
    for (size_t r = 0; r < sizeof version_regions / sizeof version_regions[0]; r++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", corpus, version_regions[r]);
        nearest one = {NULL, 0};
        if (!for_each_chunk(path, doc, keep_nearest, &one) || !one.data)
            continue;
        uint8_t *const data1[1] = {one.data};
        round_stats v = time_rounds(doc, data1, &one.len, 1, 0, SIZE_MAX, seconds / 8, &sink);
        printf("  %-40s %6.1f KiB  %6.2f us\n", version_regions[r], (double)one.len / 1024, v.median);
        free(one.data);
    }

    if (peer) {
        double theirs = run_peer(&set, seconds);
        if (theirs > 0) {
            printf("prismarine-nbt parse:   %8.2f us/payload  %8.2f us per 35 KiB\n", theirs,
                   theirs * (35.0 * 1024) / avg);
            printf("ratio (prismarine/mcchunk): %.1fx\n", theirs / ours);
        } else {
            printf("prismarine-nbt: unavailable (node or tests/interop/node_modules missing)\n");
        }
    }
    fflush(stdout);
    fprintf(stderr, "(sink %zu)\n", sink);
    mc_buf_free(&out);
    mc_nbt_doc_free(doc);
    for (size_t i = 0; i < set.n; i++)
        free(set.data[i]);
    free(set.data);
    free(set.len);
    return 0;
}
