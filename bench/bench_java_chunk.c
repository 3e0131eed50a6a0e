/*
 * bench_java_chunk.c: the cost of serving a chunk: mc_column -> Chunk Data
 * packet bytes (encode), packet -> column (decode), and Anvil chunk NBT ->
 * packet (chunk NBT parse + model + encode), next to prismarine-chunk's
 * dump()/load() of the same columns measured in the same run
 * (bench/java_chunk_bench.js) and the ratio.
 *
 * Columns: the full-status chunks of the corpus 1.21.1 region (24 sections,
 * real terrain), encoded for 1.21.1 (protocol 767); without the corpus,
 * generated columns. Readers and the decoder leave each section's block and
 * fluid counts to be made when asked (MC_SECTION_COUNT_UNKNOWN): the held
 * columns are counted once, as a server does; "decode" is without the
 * counts, "decode + every section counted" with them, and the Anvil -> packet
 * timings include them (the encoder counts).
 *
 * Cross-version: the same columns held in the 1.21.4 registry (translated
 * once at load, as a server holds its world in one registry) encoded for
 * 1.21.4 itself and for 1.20.1, 1.18.2, 26.1 (other 1.18+ protocols),
 * 1.12.2 and 1.8 (before the flattening), each next to the same-protocol
 * encode of the same run, and next to the path the encoder used before
 * translated views: copy the column into the protocol's registry
 * (mc_column_translate), then encode the copy. Then the same columns with
 * five block entities each (sign, banner, head, chest, bed: their shapes
 * change between 1.20.1 and 1.21.4, and again before 1.13), whose
 * translation the translated encode pays, for 1.20.1 and 1.12.2.
 * Cold path per era: one corpus region per era from 1.8 to 1.21.11, each
 * finished chunk read from the file, inflated, read into a column, counted
 * and encoded for that era's protocol (no cache of any kind).
 *
 * Usage: bench_java_chunk [seconds] [--no-peer]
 * [--only encode|decode|anvil|cross|cold] (one timing, e.g. to profile it)
 * [--cross-to PROTOCOL] (the cross-version timing for that protocol only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chunk_gen.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

#define PROTOCOL 767
#define HELD_PROTOCOL 769 /* 1.21.4: the registry the cross-version columns are held in */
#define PEER_VERSION "1.21.1"
#define MAX_COLS 256

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: fair on a busy machine */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct set {
    mc_column *cols[MAX_COLS];
    uint8_t *nbt[MAX_COLS]; /* uncompressed chunk NBT (corpus only) */
    size_t nbt_len[MAX_COLS];
    size_t n;
} set;

static void load_corpus(set *s)
{
    const char *corpus = getenv("MCCHUNK_CORPUS");
    char path[4096];
    snprintf(path, sizeof path, "%s/anvil/1.21.1/ppa-r.0.0.mca", corpus ? corpus : MC_CORPUS_DIR);
    mc_region *r = NULL;
    mc_error err;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK)
        return;
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    for (int z = 0; z < 32 && s->n < MAX_COLS; z++)
        for (int x = 0; x < 32 && s->n < MAX_COLS; x++) {
            mc_buf nbt;
            mc_buf_init(&nbt, NULL);
            if (mc_region_read_chunk(r, x, z, &nbt, NULL, &err) != MC_OK) {
                mc_buf_free(&nbt);
                continue;
            }
            mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
            mc_chunknbt_info info;
            mc_column *col = NULL;
            mc_chunknbt_options o = {0};
            o.cache = cache;
            bool full = false;
            if (mc_nbt_parse(doc, nbt.data, nbt.len, MC_NBT_JAVA, NULL, &err) == MC_OK &&
                mc_chunknbt_read_ex(mc_nbt_doc_root(doc), &o, &col, &info, &err) == MC_OK) {
                full = info.status && info.status_len >= 4 &&
                       !memcmp(info.status + info.status_len - 4, "full", 4) &&
                       mc_column_section_count(col) == 24;
            }
            mc_nbt_doc_free(doc);
            if (!full) {
                mc_column_free(col);
                mc_buf_free(&nbt);
                continue;
            }
            /* held, as a server holds the columns it serves: counted once
             * (the reader leaves the counts to be made when asked) */
            for (uint32_t k = 0; k < mc_column_section_count(col); k++)
                mc_section_recount(mc_column_section_at(col, k), mc_column_registry(col));
            s->cols[s->n] = col;
            s->nbt_len[s->n] = nbt.len;
            s->nbt[s->n] = mc_buf_detach(&nbt, &s->nbt_len[s->n], NULL);
            s->n++;
        }
    mc_chunknbt_cache_free(cache);
    mc_region_close(r);
}

static double peer(const char *file, double seconds, double *load_us)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "node '%s/bench/java_chunk_bench.js' '%s' %s %g 2>/dev/null", MC_SOURCE_DIR,
             file, PEER_VERSION, seconds);
    FILE *p = popen(cmd, "r");
    double dump = -1;
    *load_us = -1;
    char line[512];
    if (!p)
        return -1;
    while (fgets(line, sizeof line, p)) {
        const char *k = strstr(line, "\"dump_us\":");
        if (k)
            dump = strtod(k + 10, NULL);
        k = strstr(line, "\"load_us\":");
        if (k)
            *load_us = strtod(k + 10, NULL);
    }
    pclose(p);
    return dump;
}

/* us per column of chunk NBT parse + read with `o` + encode, for `seconds`. */
static double anvil_to_packet(const set *s, mc_nbt_doc *doc, const mc_chunknbt_options *o, mc_buf *out,
                              double seconds)
{
    size_t iters = 0;
    double t0 = now(), t;
    do {
        for (size_t i = 0; i < s->n; i++) {
            mc_column *c = NULL;
            mc_chunknbt_options oo = *o;
            oo.doc = doc;
            mc_chunknbt_read_bytes(s->nbt[i], s->nbt_len[i], &oo, &c, NULL);
            out->len = 0;
            mc_java_encode_chunk(c, PROTOCOL, out, NULL, NULL);
            mc_column_free(c);
        }
        iters += s->n;
    } while ((t = now()) - t0 < seconds);
    return (t - t0) * 1e6 / (double)iters;
}

/* us per column of decoding the packets (and counting every section when
 * `count`) for `seconds`. */
static double decode_loop(const set *s, const mc_buf *pk, bool count, double seconds)
{
    size_t iters = 0;
    double t0 = now(), t;
    do {
        for (size_t i = 0; i < s->n; i++) {
            mc_column *c = NULL;
            mc_java_decode_chunk(pk[i].data, pk[i].len, PROTOCOL, NULL, &c, NULL, NULL);
            if (c && count)
                for (uint32_t k = 0; k < mc_column_section_count(c); k++)
                    mc_section_recount(mc_column_section_at(c, k), mc_column_registry(c));
            mc_column_free(c);
        }
        iters += s->n;
    } while ((t = now()) - t0 < seconds);
    return (t - t0) * 1e6 / (double)iters;
}

/* The cold path of one era, as a server without any cache pays it per
 * column: read the chunk from its region file (record + inflate),
 * chunk NBT -> column, count every section, encode for the era's own
 * protocol (Update Light too for 1.14-1.17). Chunks that the game had not
 * finished (see finished()) are left out, as a server does; the
 * region file is opened once. us per column over `seconds`; *n the columns. */
static const struct {
    const char *region;
    uint32_t protocol;
    const char *version;
} eras[] = {
    {"anvil/1.8.9/ppa-r.-1.0.mca", 47, "1.8"},          {"anvil/1.12.2/ppa-r.0.-1.mca", 340, "1.12.2"},
    {"anvil/1.13.2/mcaselector-r.0.0.mca", 404, "1.13.2"},   {"anvil/1.14.4/mcaselector-r.0.0.mca", 498, "1.14.4"},
    {"anvil/1.15.2/mcaselector-r.0.0.mca", 578, "1.15.2"}, {"anvil/1.16/ppa-r.0.-1.mca", 735, "1.16"},
    {"anvil/1.17.1/amulet-region-r.0.0.mca", 756, "1.17.1"}, {"anvil/1.18.2/ppa-r.0.0.mca", 758, "1.18.2"},
    {"anvil/1.19.4/ppa-r.0.0.mca", 762, "1.19.4"},     {"anvil/1.20.6/ppa-r.0.0.mca", 766, "1.20.6"},
    {"anvil/1.21.1/ppa-r.0.0.mca", 767, "1.21.1"},     {"anvil/1.21.11/minestom-r.-1.-1.mca", 774, "1.21.11"},
};

/* A finished chunk: no Status (before 1.13), or full / fullchunk /
 * postprocessed (1.13's last step). */
static bool finished(const char *st, size_t len)
{
    if (!st)
        return true;
    return (len >= 4 && !memcmp(st + len - 4, "full", 4)) || (len >= 9 && !memcmp(st + len - 9, "fullchunk", 9)) ||
           (len >= 13 && !memcmp(st + len - 13, "postprocessed", 13));
}

static double cold_era(const char *rel, uint32_t protocol, double seconds, size_t *ncols, size_t *bytes)
{
    const char *corpus = getenv("MCCHUNK_CORPUS");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", corpus ? corpus : MC_CORPUS_DIR, rel);
    mc_region *r = NULL;
    mc_error err;
    *ncols = 0;
    *bytes = 0;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK)
        return -1;
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_buf nbt, out, light;
    mc_buf_init(&nbt, NULL);
    mc_buf_init(&out, NULL);
    mc_buf_init(&light, NULL);
    static int which[1024];
    size_t n = 0;
    for (int k = 0; k < 1024; k++) { /* the finished chunks, found once */
        if (!mc_region_has_chunk(r, k & 31, k >> 5))
            continue;
        nbt.len = 0;
        mc_column *c = NULL;
        mc_chunknbt_info info;
        mc_chunknbt_options o = {0};
        o.cache = cache;
        if (mc_region_read_chunk(r, k & 31, k >> 5, &nbt, NULL, &err) != MC_OK)
            continue;
        if (mc_nbt_parse(doc, nbt.data, nbt.len, MC_NBT_JAVA, NULL, &err) == MC_OK &&
            mc_chunknbt_read_ex(mc_nbt_doc_root(doc), &o, &c, &info, &err) == MC_OK &&
            finished(info.status, info.status_len))
            which[n++] = k;
        mc_column_free(c);
    }
    size_t iters = 0;
    double t0 = now(), t = t0;
    while (n) {
        for (size_t i = 0; i < n; i++) {
            int k = which[i];
            nbt.len = 0;
            mc_column *c = NULL;
            mc_chunknbt_options o = {0};
            o.cache = cache;
            o.doc = doc;
            if (mc_region_read_chunk(r, k & 31, k >> 5, &nbt, NULL, NULL) == MC_OK &&
                mc_chunknbt_read_bytes(nbt.data, nbt.len, &o, &c, NULL) == MC_OK) {
                for (uint32_t j = 0; j < mc_column_section_count(c); j++)
                    mc_section_recount(mc_column_section_at(c, j), mc_column_registry(c));
                out.len = 0;
                light.len = 0;
                mc_java_encode_chunk(c, protocol, &out, &light, NULL);
                if (!iters)
                    *bytes += out.len + light.len;
            }
            mc_column_free(c);
        }
        iters += n;
        if ((t = now()) - t0 >= seconds)
            break;
    }
    mc_buf_free(&nbt);
    mc_buf_free(&out);
    mc_buf_free(&light);
    mc_nbt_doc_free(doc);
    mc_chunknbt_cache_free(cache);
    mc_region_close(r);
    *ncols = n;
    if (n)
        *bytes /= n;
    return n ? (t - t0) * 1e6 / (double)iters : -1;
}

/* us per column encoding the held columns for another protocol (the
 * encoder sees them through a translated view, as a server with one world
 * pays it per column for every other version it serves); with `copy`, the
 * old path: a translated copy of each column, then its encode. */
static double encode_for(const set *s, uint32_t protocol, bool copy, mc_buf *out, double seconds, size_t *bytes)
{
    const mc_registry *reg = mc_registry_find_protocol((int32_t)protocol);
    mc_buf light;
    mc_buf_init(&light, NULL);
    size_t iters = 0;
    *bytes = 0;
    double t0 = now(), t;
    do {
        for (size_t i = 0; i < s->n; i++) {
            out->len = 0;
            light.len = 0;
            mc_column *t = copy ? mc_column_translate(s->cols[i], reg, NULL, NULL) : NULL;
            mc_status st = mc_java_encode_chunk(t ? t : s->cols[i], protocol, out, &light, NULL);
            mc_column_free(t);
            if (st != MC_OK) {
                mc_buf_free(&light);
                return -1;
            }
            if (!iters)
                *bytes += out->len + light.len;
        }
        iters += s->n;
    } while ((t = now()) - t0 < seconds);
    mc_buf_free(&light);
    *bytes /= s->n;
    return (t - t0) * 1e6 / (double)iters;
}

/* The block entities bench_with_block_entities puts into each column, on
 * their blocks (1.21.4 states and shapes), one above the other at x 3, z 4. */
static const struct {
    const char *state, *be;
} placed_bes[] = {
    {"minecraft:oak_sign[rotation=0,waterlogged=false]",
     "{id:\"minecraft:sign\",is_waxed:0b,front_text:{messages:['\"Hello\"','\"from\"','\"mcchunk\"','\"\"'],"
     "color:\"black\",has_glowing_text:0b},back_text:{messages:['\"\"','\"\"','\"\"','\"\"'],color:\"black\","
     "has_glowing_text:0b}}"},
    {"minecraft:blue_banner[rotation=0]",
     "{id:\"minecraft:banner\",patterns:[{pattern:\"minecraft:creeper\",color:\"red\"},"
     "{pattern:\"minecraft:border\",color:\"white\"}]}"},
    {"minecraft:player_head[powered=false,rotation=0]", "{id:\"minecraft:skull\",profile:{name:\"Steve\"}}"},
    {"minecraft:chest[facing=north,type=single,waterlogged=false]",
     "{id:\"minecraft:chest\",Items:[{Slot:0b,id:\"minecraft:diamond\",count:5},{Slot:1b,id:\"minecraft:iron_pickaxe\","
     "count:1,components:{\"minecraft:damage\":12}}]}"},
    {"minecraft:red_bed[facing=north,occupied=false,part=head]", "{id:\"minecraft:bed\"}"},
};
#define N_PLACED_BES (sizeof placed_bes / sizeof placed_bes[0])

/* Copies of the held columns with placed_bes in each (NULL on failure). */
static bool with_block_entities(const set *held, set *out)
{
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    bool ok = d != NULL;
    for (out->n = 0; ok && out->n < held->n; out->n++) {
        mc_column *c = mc_column_translate(held->cols[out->n], mc_column_registry(held->cols[out->n]), NULL, NULL);
        out->cols[out->n] = c;
        const int32_t bx = mc_column_x(c) * 16 + 3, bz = mc_column_z(c) * 16 + 4;
        for (size_t i = 0; ok && c && i < N_PLACED_BES; i++) {
            uint32_t st;
            const mc_registry *r = mc_column_registry(c);
            ok = mc_registry_parse_state(r, placed_bes[i].state, strlen(placed_bes[i].state), &st, NULL) == MC_OK &&
                 mc_column_set_block(c, bx, 100 + (int32_t)i, bz, st) == MC_OK &&
                 mc_snbt_parse(d, placed_bes[i].be, strlen(placed_bes[i].be), NULL, NULL) == MC_OK &&
                 mc_column_put_block_entity(c, bx, 100 + (int32_t)i, bz, mc_nbt_doc_root(d)) == MC_OK;
        }
        ok = ok && c;
        for (uint32_t k = 0; ok && k < mc_column_section_count(c); k++)
            mc_section_recount(mc_column_section_at(c, k), mc_column_registry(c));
    }
    mc_nbt_doc_free(d);
    return ok;
}

/* Interleaved rounds of the same-protocol encode and the encode for
 * `protocol` of `s` for `seconds`: us per column of each. */
static void encode_pair(const set *s, uint32_t protocol, mc_buf *out, double seconds, double *same_us,
                        double *cross_us, size_t *same_bytes, size_t *cross_bytes)
{
    double same_sum = 0, cross_sum = 0;
    size_t rounds = 0;
    const double t_end = now() + seconds;
    do {
        same_sum += encode_for(s, HELD_PROTOCOL, false, out, 0, same_bytes);
        cross_sum += encode_for(s, protocol, false, out, 0, cross_bytes);
        rounds++;
    } while (now() < t_end);
    *same_us = same_sum / (double)rounds;
    *cross_us = cross_sum / (double)rounds;
}

int main(int argc, char **argv)
{
    double seconds = 1;
    bool with_peer = true;
    const char *only = NULL;
    uint32_t cross_to = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-peer"))
            with_peer = false;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i], with_peer = false;
        else if (!strcmp(argv[i], "--cross-to") && i + 1 < argc)
            cross_to = (uint32_t)atoi(argv[++i]);
        else
            seconds = atof(argv[i]);
    }
    static set s;
    load_corpus(&s);
    const char *what = "corpus 1.21.1 region, full chunks";
    if (!s.n) {
        what = "generated columns";
        const mc_registry *reg = mc_registry_find_protocol(PROTOCOL);
        for (; s.n < 16; s.n++)
            s.cols[s.n] = mc__gen_column(reg, s.n + 1, (int32_t)s.n, 0, -4, 24);
    }
    /* The packets, once, for the decoder and the peer. */
    mc_buf *pk = calloc(s.n, sizeof *pk);
    size_t total = 0;
    mc_error err;
    for (size_t i = 0; i < s.n; i++) {
        mc_buf_init(&pk[i], NULL);
        if (mc_java_encode_chunk(s.cols[i], PROTOCOL, &pk[i], NULL, &err) != MC_OK) {
            fprintf(stderr, "encode: %s\n", err.message);
            return 1;
        }
        total += pk[i].len;
    }
    printf("bench_java_chunk: %zu columns (%s), 24 sections, protocol %d (%s); mean packet %zu bytes\n",
           s.n, what, PROTOCOL, PEER_VERSION, total / s.n);

    /* encode: into a reused buffer, as a server would */
    mc_buf out;
    mc_buf_init(&out, NULL);
    size_t iters = 0;
    double t0 = now(), t;
    const double enc_s = only && strcmp(only, "encode") ? 0 : seconds;
    const double dec_s = only && strcmp(only, "decode") ? 0 : seconds;
    const double nbt_s = only && strcmp(only, "anvil") ? 0 : seconds;
    do {
        for (size_t i = 0; i < s.n; i++) {
            out.len = 0;
            mc_java_encode_chunk(s.cols[i], PROTOCOL, &out, NULL, NULL);
        }
        iters += s.n;
    } while ((t = now()) - t0 < enc_s);
    const double enc_us = (t - t0) * 1e6 / (double)iters;

    const double dec_us = decode_loop(&s, pk, false, dec_s);
    /* decode, then every section's counts asked (the decoder leaves them to
     * be counted on demand: this is the cost when a reader needs them) */
    const double dec_count_us = decode_loop(&s, pk, true, dec_s);

    double anvil_us = -1, parse_us = -1, read_us = -1, served_us = -1;
    if (s.nbt[0]) {
        mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
        mc_chunknbt_options o = {0};
        o.cache = cache;
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        anvil_us = anvil_to_packet(&s, doc, &o, &out, nbt_s);
        /* the same as the server reads (block entities, no other extra NBT) */
        mc_chunknbt_options lean = o;
        lean.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
        served_us = anvil_to_packet(&s, doc, &lean, &out, nbt_s);
        /* its parts: the NBT parse alone, and parse + chunk NBT read */
        iters = 0;
        t0 = now();
        do {
            for (size_t i = 0; i < s.n; i++)
                mc_nbt_parse(doc, s.nbt[i], s.nbt_len[i], MC_NBT_JAVA, NULL, NULL);
            iters += s.n;
        } while ((t = now()) - t0 < nbt_s);
        parse_us = (t - t0) * 1e6 / (double)iters;
        iters = 0;
        t0 = now();
        do {
            for (size_t i = 0; i < s.n; i++) {
                mc_column *c = NULL;
                mc_chunknbt_options oo = o;
                oo.doc = doc;
                mc_chunknbt_read_bytes(s.nbt[i], s.nbt_len[i], &oo, &c, NULL);
                mc_column_free(c);
            }
            iters += s.n;
        } while ((t = now()) - t0 < nbt_s);
        read_us = (t - t0) * 1e6 / (double)iters;
        mc_nbt_doc_free(doc);
        mc_chunknbt_cache_free(cache);
    }

    /* cross-version encodes of the same columns held as 1.21.4 */
    const double x_s = only && strcmp(only, "cross") ? 0 : seconds / 2;
    static set held;
    const mc_registry *r4 = mc_registry_find_protocol(HELD_PROTOCOL);
    for (held.n = 0; held.n < s.n; held.n++) {
        held.cols[held.n] = mc_column_translate(s.cols[held.n], r4, NULL, NULL);
        for (uint32_t k = 0; k < mc_column_section_count(held.cols[held.n]); k++)
            mc_section_recount(mc_column_section_at(held.cols[held.n], k), r4);
    }
    static const uint32_t cross[] = {763, 758, 775, 340, 47};
    enum { NCROSS = sizeof cross / sizeof cross[0] };
    double cross_us[NCROSS], copy_us[NCROSS], same_us[NCROSS];
    size_t cross_bytes[NCROSS], same_bytes;
    for (int k = 0; k < NCROSS; k++) {
        if (cross_to && cross[k] != cross_to) {
            cross_us[k] = copy_us[k] = same_us[k] = -1;
            continue;
        }
        /* rounds of the same-protocol encode and the translated one in
         * turn, so that both see the same machine (it is shared and busy) */
        encode_pair(&held, cross[k], &out, x_s, &same_us[k], &cross_us[k], &same_bytes, &cross_bytes[k]);
        copy_us[k] = encode_for(&held, cross[k], true, &out, x_s / 2, &cross_bytes[k]);
    }
    /* the same with block entities in every column, translated too */
    static const uint32_t be_cross[] = {763, 340};
    enum { NBE = sizeof be_cross / sizeof be_cross[0] };
    double be_same_us[NBE], be_cross_us[NBE];
    size_t be_bytes[NBE];
    static set with_bes;
    const bool bes_ok = x_s > 0 && with_block_entities(&held, &with_bes);
    for (int k = 0; bes_ok && k < NBE; k++)
        if (!cross_to || be_cross[k] == cross_to)
            encode_pair(&with_bes, be_cross[k], &out, x_s, &be_same_us[k], &be_cross_us[k], &same_bytes, &be_bytes[k]);
        else
            be_cross_us[k] = -1;

    printf("mcchunk  encode (column -> packet)      %8.2f us/column\n", enc_us);
    printf("mcchunk  the same columns held as 1.21.4 (protocol %d), encoded for another protocol "
           "(translated view) vs for 1.21.4 itself, and vs the copy-then-encode path:\n", HELD_PROTOCOL);
    for (int k = 0; k < NCROSS; k++) {
        if (cross_us[k] < 0)
            continue;
        const char *v = "?";
        mc_java_protocol_known(cross[k], &v);
        printf("  -> %-6s (protocol %3u) %8.2f us/column = %5.2fx the 1.21.4 encode (%.2f us); copy then encode "
               "%8.2f us (%.1fx slower); %zu B\n", v, cross[k], cross_us[k], cross_us[k] / same_us[k], same_us[k],
               copy_us[k], copy_us[k] / cross_us[k], cross_bytes[k]);
    }
    if (bes_ok) {
        printf("mcchunk  the same with %zu block entities in each column (a sign with text, a banner with patterns, "
               "a player head, a chest with items, a bed), translated to the protocol's version:\n", N_PLACED_BES);
        for (int k = 0; k < NBE; k++) {
            if (be_cross_us[k] < 0)
                continue;
            const char *v = "?";
            mc_java_protocol_known(be_cross[k], &v);
            printf("  -> %-6s (protocol %3u) %8.2f us/column = %5.2fx the 1.21.4 encode (%.2f us); %zu B\n", v,
                   be_cross[k], be_cross_us[k], be_cross_us[k] / be_same_us[k], be_same_us[k], be_bytes[k]);
        }
    }
    printf("mcchunk  decode (packet -> column)      %8.2f us/column\n", dec_us);
    printf("mcchunk  decode + every section counted %8.2f us/column\n", dec_count_us);
    if (anvil_us >= 0)
        printf("mcchunk  Anvil NBT -> packet (parse+read+encode) %8.2f us/column (NBT parse %.2f, + chunk "
               "NBT read %.2f)\n", anvil_us, parse_us, read_us);
    if (served_us >= 0)
        printf("mcchunk  Anvil NBT -> packet, server's read (block entities, no other extra NBT) %8.2f us/column\n",
               served_us);
    if (!only || !strcmp(only, "cold")) {
        printf("mcchunk  cold path per era: region file -> inflate -> chunk NBT -> column -> counts -> packet "
               "(+ Update Light 1.14-1.17), the era's own protocol:\n");
        for (size_t e = 0; e < sizeof eras / sizeof eras[0]; e++) {
            size_t n, bytes;
            double us = cold_era(eras[e].region, eras[e].protocol, seconds / 4, &n, &bytes);
            if (us < 0)
                printf("  %-8s protocol %3u: no finished chunk read from %s (corpus missing?)\n", eras[e].version,
                       eras[e].protocol, eras[e].region);
            else
                printf("  %-8s protocol %3u: %8.2f us/column (%zu finished chunks of %s, %zu B packets)\n",
                       eras[e].version, eras[e].protocol, us, n, eras[e].region, bytes);
        }
    }
    if (with_peer) {
        char tmpl[] = "/tmp/bench_java_chunk_XXXXXX";
        int fd = mkstemp(tmpl);
        FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (f) {
            uint8_t hdr[4];
            mc_store_u32le(hdr, (uint32_t)s.n);
            fwrite(hdr, 1, 4, f);
            for (size_t i = 0; i < s.n; i++) {
                mc_store_u32le(hdr, (uint32_t)pk[i].len);
                fwrite(hdr, 1, 4, f);
                fwrite(pk[i].data, 1, pk[i].len, f);
            }
            fclose(f);
            double load_us;
            double dump_us = peer(tmpl, seconds, &load_us);
            unlink(tmpl);
            if (dump_us > 0) {
                printf("prismarine-chunk dump()                 %8.2f us/column  (mcchunk %.1fx faster)\n",
                       dump_us, dump_us / enc_us);
                printf("prismarine-chunk load()                 %8.2f us/column  (mcchunk %.1fx faster)\n",
                       load_us, load_us / dec_us);
            } else {
                printf("prismarine-chunk: unavailable (node or tests/interop/node_modules missing)\n");
            }
        }
    }
    for (size_t i = 0; i < s.n; i++) {
        mc_buf_free(&pk[i]);
        mc_column_free(s.cols[i]);
        mc_column_free(held.cols[i]);
        free(s.nbt[i]);
    }
    free(pk);
    mc_buf_free(&out);
    return 0;
}
