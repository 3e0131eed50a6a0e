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

/* Reads the chunks of one region file (just the offset table and zlib). */
static void load_region(const char *path, payload_set *set, mc_nbt_doc *doc)
{
    uint8_t *file;
    size_t len;
    if (mc_read_file(path, NULL, &file, &len, NULL) != MC_OK) {
        fprintf(stderr, "bench_nbt: cannot read %s\n", path);
        return;
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
        if (!is_full_chunk(doc, raw, rlen)) {
            mc_default_allocator()->free(NULL, raw, rcap);
            continue;
        }
        if (set->n == set->cap) {
            set->cap = set->cap ? set->cap * 2 : 256;
            set->data = realloc(set->data, set->cap * sizeof *set->data);
            set->len = realloc(set->len, set->cap * sizeof *set->len);
        }
        /* a private exact-size copy, so the allocator's slack is not shared */
        set->data[set->n] = malloc(rlen);
        memcpy(set->data[set->n], raw, rlen);
        set->len[set->n] = rlen;
        set->bytes += rlen;
        set->n++;
        mc_default_allocator()->free(NULL, raw, rcap);
    }
    mc_default_allocator()->free(NULL, file, len);
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
        load_region(path, &set, doc);
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

    /* Ours: warm up once, then whole rounds for `seconds`. */
    size_t sink = 0;
    for (size_t i = 0; i < set.n; i++)
        mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL);
    size_t rounds = 0;
    double t0 = now(), el;
    do {
        for (size_t i = 0; i < set.n; i++) {
            if (mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL) != MC_OK)
                return 1;
            sink += mc_nbt_count(mc_nbt_doc_root(doc));
        }
        rounds++;
        el = now() - t0;
    } while (el < seconds);
    double ours = el * 1e6 / (double)(rounds * set.n);
    double ours35 = ours * (35.0 * 1024) / avg;

    /* The "typical 35 KiB chunk" directly: payloads of 30-40 KiB only. */
    size_t band = 0, band_rounds = 0;
    double band_el;
    for (size_t i = 0; i < set.n; i++)
        band += set.len[i] >= 30 * 1024 && set.len[i] <= 40 * 1024;
    double b0 = now();
    do {
        for (size_t i = 0; i < set.n; i++)
            if (set.len[i] >= 30 * 1024 && set.len[i] <= 40 * 1024) {
                mc_nbt_parse(doc, set.data[i], set.len[i], MC_NBT_JAVA, NULL, NULL);
                sink += mc_nbt_count(mc_nbt_doc_root(doc));
            }
        band_rounds++;
        band_el = now() - b0;
    } while (band && band_el < seconds / 2);
    double band_us = band ? band_el * 1e6 / (double)(band_rounds * band) : 0;

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

    printf("mcchunk parse:          %8.2f us/payload  %8.2f us per 35 KiB  (%.2f GB/s, %.1f ns/tag)\n", ours,
           ours35, avg / (ours * 1e3), ours * 1e3 * (double)set.n / (double)tags);
    if (band)
        printf("mcchunk parse, 30-40 KiB payloads only (%zu): %.2f us/payload\n", band, band_us);
    printf("mcchunk parse+write:    %8.2f us/payload\n", parse_write);
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
    fprintf(stderr, "(sink %zu)\n", sink);
    mc_buf_free(&out);
    mc_nbt_doc_free(doc);
    for (size_t i = 0; i < set.n; i++)
        free(set.data[i]);
    free(set.data);
    free(set.len);
    return 0;
}
