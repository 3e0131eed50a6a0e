/*
 * bench_anvil_read.c: reading region files into the chunk model, next to
 * libdeflate alone and to prismarine-provider-anvil in the same run.
 *
 * Input: every chunk of the modern region files of the corpus (1.18 to
 * 1.21.11; real worlds, so full chunks and proto-chunks as the game left
 * them), their compressed records loaded into memory first (the disk is not
 * what is measured). Three timings, interleaved round by round (a round is
 * one pass of each over all chunks) until the read has taken the given
 * seconds, on one core:
 *   inflate  libdeflate alone: zlib-decompress every record into a reused
 *            buffer (the floor any reader of these files pays);
 *   read     what a region reader does: inflate (the same libdeflate call),
 *            then mc_chunknbt_read_bytes (zero-copy NBT parse into a reused
 *            document, 1.18+ sections read from their bytes) into a column
 *            with every section decoded (block and biome containers, light,
 *            heightmaps, block entities and extra NBT), then free the column;
 *   peer     bench/anvil_read_ppa.js: prismarine-provider-anvil 2.13.0
 *            reading the same region files (copies in a temporary folder)
 *            chunk by chunk into prismarine-chunk columns.
 * It prints chunks per second, read/inflate (target <= 1.3), and
 * peer/read (target >= 10).
 *
 * usage: bench_anvil_read [seconds per timing, default 2] [--no-peer] [--only-full]
 */
#define _POSIX_C_SOURCE 200809L /* popen, clock_gettime */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

static const struct {
    const char *path;
    const char *version; /* for the peer */
} regions[] = {
    {"anvil/1.18.2/ppa-r.0.0.mca", "1.18.2"},
    {"anvil/1.19.4/ppa-r.0.0.mca", "1.19.4"},
    {"anvil/1.20.6/ppa-r.0.0.mca", "1.20.6"},
    {"anvil/1.21.1/ppa-r.0.0.mca", "1.21.1"},
    {"anvil/1.21.11/minestom-r.-1.-1.mca", "1.21.11"},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct record {
    uint8_t *data; /* compressed payload (zlib) */
    size_t len;
    size_t raw_len;
    bool full;     /* Status full: a finished chunk */
} record;

typedef struct timing {
    double us_inflate, us_parse, us_read;
    size_t failed, n;
} timing;

static bool full_status(const uint8_t *p, size_t n)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    bool full = false;
    if (mc_nbt_parse(doc, p, n, MC_NBT_JAVA, NULL, NULL) == MC_OK) {
        mc_nbt_tag *root = mc_nbt_doc_root(doc);
        mc_nbt_tag *st = mc_nbt_get(root, "Status");
        const char *s;
        size_t len;
        if (mc_nbt_get_string(st, &s, &len) == MC_OK)
            full = (len == 4 && !memcmp(s, "full", 4)) || (len == 14 && !memcmp(s, "minecraft:full", 14));
    }
    mc_nbt_doc_free(doc);
    return full;
}

/* Times inflate alone and the whole read over the records selected by
 * `only_full` (all when false). */
static timing measure(record *recs, size_t nrec, bool only_full, size_t max_raw, double seconds, unsigned flags)
{
    timing t = {0, 0, 0, 0, 0};
    struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
    uint8_t *out = malloc(max_raw + 64);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    mc_chunknbt_options opt = {0};
    opt.cache = cache;
    opt.flags = flags;
    opt.doc = doc;
    size_t sink = 0;
    for (size_t i = 0; i < nrec; i++)
        t.n += !only_full || recs[i].full;

    /* The three timings interleaved round by round (each round: one pass
     * of each over the chunks), so that the machine's drift over the run
     * (this is a noisy VM) falls on all three alike and the ratios hold. */
    double el_inflate = 0, el_parse = 0, el_read = 0;
    size_t rounds = 0;
    do {
        double t0 = now();
        for (size_t i = 0; i < nrec; i++) {
            if (only_full && !recs[i].full)
                continue;
            size_t got = 0;
            if (libdeflate_zlib_decompress(dec, recs[i].data, recs[i].len, out, max_raw + 64, &got) !=
                LIBDEFLATE_SUCCESS)
                t.failed++;
            sink += got;
        }
        double t1 = now();
        /* inflate + NBT parse, no model */
        for (size_t i = 0; i < nrec; i++) {
            if (only_full && !recs[i].full)
                continue;
            size_t got = 0;
            if (libdeflate_zlib_decompress(dec, recs[i].data, recs[i].len, out, max_raw + 64, &got) !=
                    LIBDEFLATE_SUCCESS ||
                mc_nbt_parse(doc, out, got, MC_NBT_JAVA, NULL, NULL) != MC_OK)
                t.failed++;
            sink += got;
        }
        double t2 = now();
        for (size_t i = 0; i < nrec; i++) {
            if (only_full && !recs[i].full)
                continue;
            size_t got = 0;
            mc_column *col = NULL;
            if (libdeflate_zlib_decompress(dec, recs[i].data, recs[i].len, out, max_raw + 64, &got) !=
                    LIBDEFLATE_SUCCESS ||
                mc_chunknbt_read_bytes(out, got, &opt, &col, NULL) != MC_OK) {
                t.failed++;
                continue;
            }
            sink += mc_column_section_count(col);
            mc_column_free(col);
        }
        double t3 = now();
        el_inflate += t1 - t0;
        el_parse += t2 - t1;
        el_read += t3 - t2;
        rounds++;
    } while (el_read < seconds);
    t.us_inflate = el_inflate * 1e6 / (double)(rounds * t.n);
    t.us_parse = el_parse * 1e6 / (double)(rounds * t.n);
    t.us_read = el_read * 1e6 / (double)(rounds * t.n);
    fprintf(stderr, "(sink %zu)\n", sink);
    mc_chunknbt_cache_free(cache);
    mc_nbt_doc_free(doc);
    libdeflate_free_decompressor(dec);
    free(out);
    return t;
}

static void print_timing(const char *what, const timing *t)
{
    printf("%s (%zu chunks):\n", what, t->n);
    printf("  libdeflate inflate only:            %8.2f us/chunk  %9.0f chunks/s\n", t->us_inflate,
           1e6 / t->us_inflate);
    printf("  inflate + NBT parse (no model):     %8.2f us/chunk  %9.0f chunks/s  (%.2fx inflate)\n",
           t->us_parse, 1e6 / t->us_parse, t->us_parse / t->us_inflate);
    printf("  mcchunk read (inflate+parse+model): %8.2f us/chunk  %9.0f chunks/s  (%.2fx inflate%s)\n",
           t->us_read, 1e6 / t->us_read, t->us_read / t->us_inflate, t->failed ? ", SOME CHUNKS FAILED" : "");
}


static double run_peer(const char *corpus, double seconds, size_t *chunks)
{
    char cmd[8192];
    int n = snprintf(cmd, sizeof cmd, "node '%s/bench/anvil_read_ppa.js' %g", MC_SOURCE_DIR, seconds);
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " '%s/%s' %s", corpus, regions[i].path, regions[i].version);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " 2>/dev/null");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[512] = "";
    double us = -1;
    unsigned long c = 0;
    if (fgets(line, sizeof line, p)) {
        const char *k = strstr(line, "\"us_per_chunk\":");
        const char *q = strstr(line, "\"chunks\":");
        if (k)
            us = atof(k + 15);
        if (q)
            c = strtoul(q + 9, NULL, 10);
    }
    pclose(p);
    *chunks = c;
    return us;
}

int main(int argc, char **argv)
{
    double seconds = 2;
    bool peer = true, only_full = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-peer"))
            peer = false;
        else if (!strcmp(argv[i], "--only-full"))
            only_full = true;
        else
            seconds = atof(argv[i]);
    }
    const char *corpus = getenv("MCCHUNK_CORPUS");
    if (!corpus)
        corpus = MC_CORPUS_DIR;

    record *recs = NULL;
    size_t nrec = 0, cap = 0, comp_bytes = 0, raw_bytes = 0, max_raw = 0;
    for (size_t r = 0; r < sizeof regions / sizeof regions[0]; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, regions[r].path);
        mc_region *reg = NULL;
        mc_error err;
        if (mc_region_open(path, NULL, &reg, &err) != MC_OK) {
            fprintf(stderr, "bench_anvil_read: %s\n", err.message);
            return 1;
        }
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
            if (nrec == cap) {
                cap = cap ? cap * 2 : 1024;
                recs = realloc(recs, cap * sizeof *recs);
            }
            recs[nrec].data = malloc(raw.len);
            memcpy(recs[nrec].data, raw.data, raw.len);
            recs[nrec].len = raw.len;
            recs[nrec].raw_len = nbt.len;
            recs[nrec].full = full_status(nbt.data, nbt.len);
            comp_bytes += raw.len;
            raw_bytes += nbt.len;
            if (nbt.len > max_raw)
                max_raw = nbt.len;
            nrec++;
        }
        mc_buf_free(&raw);
        mc_buf_free(&nbt);
        mc_region_close(reg);
    }
    if (!nrec) {
        fprintf(stderr, "bench_anvil_read: no chunks (corpus at %s?)\n", corpus);
        return 1;
    }
    printf("chunks: %zu from %zu region files (1.18.2-1.21.11), %.1f KiB compressed, %.1f KiB NBT per chunk\n",
           nrec, sizeof regions / sizeof regions[0], comp_bytes / 1024.0 / (double)nrec,
           raw_bytes / 1024.0 / (double)nrec);

    size_t nfull = 0, full_bytes = 0;
    for (size_t i = 0; i < nrec; i++)
        if (recs[i].full) {
            nfull++;
            full_bytes += recs[i].len;
        }
    printf("full chunks (Status full, real-sized): %zu, %.1f KiB compressed each\n", nfull,
           nfull ? full_bytes / 1024.0 / (double)nfull : 0.0);
    timing all = {0, 0, 1, 0, 0};
    if (!only_full) {
        all = measure(recs, nrec, false, max_raw, seconds, 0);
        print_timing("every chunk of the files (mostly proto-chunks)", &all);
    }
    timing full = measure(recs, nrec, true, max_raw, seconds, 0);
    print_timing("full chunks only", &full);
    /* a viewer's read: blocks, biomes and heightmaps, no light, no extra NBT */
    timing lean = measure(recs, nrec, true, max_raw, seconds, MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT);
    print_timing("full chunks, MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT", &lean);
    double us_read = all.us_read;
    size_t failed = all.failed + full.failed + lean.failed;
    if (peer) {
        size_t pc = 0;
        double theirs = run_peer(corpus, seconds, &pc);
        if (theirs > 0)
            printf("prismarine-provider-anvil 2.13.0, every chunk (%zu): %8.2f us/chunk  %9.0f chunks/s  "
                   "(mcchunk %.1fx faster)\n", pc, theirs, 1e6 / theirs, theirs / us_read);
        else
            printf("prismarine-provider-anvil: unavailable (node or tests/interop/node_modules missing)\n");
    }
    printf("fastanvil (Rust) could not be fetched in this environment: no comparison.\n");
    for (size_t i = 0; i < nrec; i++)
        free(recs[i].data);
    free(recs);
    return failed ? 1 : 0;
}
