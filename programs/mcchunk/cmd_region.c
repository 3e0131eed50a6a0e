/*
 * cmd_region.c: `mcchunk region`, whole region files from the command line.
 *
 *   info     per file: chunks, size, sectors used and free, compressions,
 *            external chunks, timestamp range
 *   ls       one line per chunk: x z offset sectors length compression timestamp
 *   verify   every problem (overlaps, out-of-file sectors, bad lengths,
 *            compression, NBT, positions); exit 1 when any file has one
 *   salvage  FILE -o OUT: copy every intact chunk into a new file
 *   compact  rewrite each file without holes (new file + atomic rename)
 *   relight  recompute the light of every full chunk (region_relight.c)
 *
 * Runs over many files print progress on stderr when it is a terminal. All
 * work goes through the public API in mcchunk/anvil.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "tool_common.h"
#include "region_relight.h"
#include "mcchunk/anvil.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk region info FILE...\n"
            "       mcchunk region ls [--json] FILE...\n"
            "       mcchunk region verify [-q] [--json] FILE...\n"
            "       mcchunk region salvage FILE -o OUT\n"
            "       mcchunk region compact FILE...\n"
            "       mcchunk region relight [--deflate-level N] FILE...\n"
            "\n"
            "Region files (.mca, .mcr; also entities/ and poi/ files).\n"
            "  info     chunks, file size, used and free sectors, compressions, external\n"
            "           (.mcc) chunks and the timestamp range of each file\n"
            "  ls       a header line per file ('# FILE: region RX RZ ...; columns: ...'),\n"
            "           then one line per chunk: x z (absolute chunk coordinates when the\n"
            "           name is r.X.Z.mca, else local) sector-offset sectors length\n"
            "           compression timestamp\n"
            "  verify   checks every record: location, overlap, length, compression, .mcc,\n"
            "           NBT and chunk position; prints a header line per file, each problem\n"
            "           ('FILE: chunk X Z ...', absolute coordinates) and a summary (-q: only\n"
            "           the summary)\n"
            "  --json   ls, verify: one JSON array, an object per file, instead of lines\n"
            "  salvage  writes every chunk that reads, inflates and parses into OUT (which\n"
            "           must not exist) and names the chunks left behind (on stderr);\n"
            "           fails when nothing could be saved\n"
            "  compact  rewrites each file without free sectors; the original is replaced\n"
            "           atomically (a crash leaves the old or the new file, never a mix)\n"
            "  relight  recomputes the sky and block light of every full chunk (1.14+)\n"
            "           with the light engine, sets isLightOn, and puts each file back\n"
            "           whole, crash-safely (the old or the relit file after a crash;\n"
            "           chunks at the file's edge: the next file's chunks count as not\n"
            "           loaded; `mcchunk world relight` reads them); --deflate-level N\n"
            "           (1..12): the level of the zlib records written, default 6 (the\n"
            "           game's); 1 relights ~1.7x faster for larger files\n"
            "\n"
            "\n"
            "A file cut inside its 8 KiB header (the chunk table) fails info and ls: what\n"
            "the table lost cannot be listed.\n"
            "exit status: 0 ok, 1 a file failed or has problems (unreadable, truncated\n"
            "header, verify found problems, salvage saved nothing), 2 usage error\n");
}

typedef struct progress {
    bool on;
    int done, total;
} progress;

static void progress_step(progress *p, const char *file)
{
    if (!p->on || p->total < 2)
        return;
    p->done++;
    fprintf(stderr, "\r\033[K[%d/%d] %s", p->done, p->total, file);
    if (p->done == p->total)
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

static mc_region *open_or_complain(const char *file)
{
    mc_region *r = NULL;
    mc_error err;
    mc_error_clear(&err);
    if (mc_region_open(file, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "mcchunk region: %s\n", err.message);
        return NULL;
    }
    return r;
}

/* The library's problem messages name chunks by local coordinates
 * ("chunk LX LZ ..." first, and an overlap's other chunk last); people and
 * scripts want absolute ones. Rewrites those into `out` when the file name
 * gives the region (the NBT position message in between is already
 * absolute and stays as it is). */
static void absolute_message(const mc_region *r, const mc_region_problem *p, char *out, size_t cap)
{
    int32_t rx, rz;
    snprintf(out, cap, "%s", p->message);
    if (p->lx < 0 || !mc_region_origin(r, &rx, &rz))
        return;
    char buf[sizeof p->message + 64];
    size_t o = 0;
    int done = 0, wanted = p->kind == MC_REGION_PROBLEM_OVERLAP ? 2 : 1;
    for (const char *q = p->message; *q && o + 1 < sizeof buf;) {
        int a, b, used = 0;
        if (done < wanted && o + 40 < sizeof buf && !strncmp(q, "chunk ", 6) &&
            sscanf(q, "chunk %d %d%n", &a, &b, &used) == 2 && a >= 0 && a < 32 && b >= 0 && b < 32 &&
            (done || (a == p->lx && b == p->lz))) {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "chunk %ld %ld", (long)rx * 32 + a, (long)rz * 32 + b);
            q += used;
            done++;
        } else {
            buf[o++] = *q++;
        }
    }
    buf[o] = 0;
    snprintf(out, cap, "%s", buf);
}

static const char *problem_kind_name(mc_region_problem_kind k)
{
    static const char *const names[] = {"header", "in_header", "out_of_file", "overlap", "bad_length",
                                        "bad_compression", "external", "bad_nbt", "position"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "other";
}

/* "region RX RZ, chunks X0..X1 Z0..Z1" or the local-coordinates note. */
static void region_header(const mc_region *r, const char *file, const char *tail)
{
    int32_t rx, rz;
    if (mc_region_origin(r, &rx, &rz))
        printf("# %s: region %d %d, chunks x %ld..%ld z %ld..%ld%s\n", file, (int)rx, (int)rz, (long)rx * 32,
               (long)rx * 32 + 31, (long)rz * 32, (long)rz * 32 + 31, tail);
    else
        printf("# %s: region unknown (name is not r.X.Z.mca), local chunk coordinates 0..31%s\n", file, tail);
}

/* A file cut inside the 8 KiB header has lost part of its chunk table. */
static bool header_cut(const mc_region *r, const char *sub, const char *file)
{
    uint64_t size = mc_region_file_size(r);
    if (size >= 8192)
        return false;
    fprintf(stderr, "mcchunk region %s: %s is truncated: %llu bytes, cut inside the 8192-byte header (chunk "
                    "locations and timestamps); `mcchunk region verify` names what is lost, `mcchunk region "
                    "salvage` keeps what can be read\n", sub, file, (unsigned long long)size);
    return true;
}

static int info(mc_region *r, const char *file)
{
    size_t chunks = 0, external = 0, by_comp[128] = {0};
    uint64_t used_sectors = 0;
    uint32_t tmin = UINT32_MAX, tmax = 0;
    uint64_t sectors = (mc_region_file_size(r) + 4095) / 4096;
    uint8_t *used = calloc(sectors ? (size_t)sectors : 1, 1);
    mc_buf raw;
    mc_buf_init(&raw, NULL);
    for (int i = 0; i < 1024; i++) {
        int lx = i & 31, lz = i >> 5;
        if (!mc_region_has_chunk(r, lx, lz))
            continue;
        chunks++;
        mc_region_entry e = mc_region_get_entry(r, lx, lz);
        for (uint64_t s = e.sector_offset; s < (uint64_t)e.sector_offset + e.sector_count && s < sectors; s++)
            if (used && !used[s]) {
                used[s] = 1;
                used_sectors++;
            }
        if (e.timestamp < tmin) tmin = e.timestamp;
        if (e.timestamp > tmax) tmax = e.timestamp;
        mc_region_record rec;
        mc_error err;
        raw.len = 0;
        if (mc_region_read_raw(r, lx, lz, &raw, &rec, &err) == MC_OK || rec.length) {
            by_comp[rec.compression & 0x7F]++;
            if (rec.external)
                external++;
        }
    }
    mc_buf_free(&raw);
    free(used);
    uint64_t data_sectors = sectors > 2 ? sectors - 2 : 0;
    printf("%s\n", file);
    printf("  chunks        %zu\n", chunks);
    printf("  file size     %llu bytes (%llu sectors)\n",
           (unsigned long long)mc_region_file_size(r), (unsigned long long)sectors);
    printf("  used sectors  %llu\n", (unsigned long long)used_sectors);
    printf("  free sectors  %llu\n",
           (unsigned long long)(data_sectors > used_sectors ? data_sectors - used_sectors : 0));
    printf("  compressions ");
    bool any = false;
    for (int c = 0; c < 128; c++)
        if (by_comp[c]) {
            if (strcmp(mc_compression_name(c), "unknown"))
                printf(" %s:%zu", mc_compression_name(c), by_comp[c]);
            else
                printf(" id%d:%zu", c, by_comp[c]);
            any = true;
        }
    printf("%s\n", any ? "" : " -");
    printf("  external      %zu\n", external);
    if (chunks)
        printf("  timestamps    %u .. %u\n", tmin, tmax);
    return MC_EXIT_OK;
}

static int ls(mc_region *r, const char *file, bool json, bool first)
{
    int32_t rx = 0, rz = 0;
    bool abs = mc_region_origin(r, &rx, &rz);
    if (json) {
        printf("%s{\"file\": ", first ? "[" : ",\n ");
        mc_tool_json_string(stdout, file);
        if (abs)
            printf(", \"region\": [%d, %d], \"chunks\": [", (int)rx, (int)rz);
        else
            printf(", \"region\": null, \"chunks\": [");
    } else {
        region_header(r, file, "; columns: x z sector sectors length compression timestamp");
    }
    mc_buf raw;
    mc_buf_init(&raw, NULL);
    bool any = false;
    for (int i = 0; i < 1024; i++) {
        int lx = i & 31, lz = i >> 5;
        if (!mc_region_has_chunk(r, lx, lz))
            continue;
        mc_region_entry e = mc_region_get_entry(r, lx, lz);
        mc_region_record rec;
        mc_error err;
        raw.len = 0;
        mc_status st = mc_region_read_raw(r, lx, lz, &raw, &rec, &err);
        char comp[80];
        if (st && !rec.length)
            snprintf(comp, sizeof comp, "unreadable");
        else if (rec.compression == MC_COMPRESSION_CUSTOM)
            snprintf(comp, sizeof comp, "custom:%s%s", rec.custom_name, rec.external ? "+mcc" : "");
        else
            snprintf(comp, sizeof comp, "%s%s", mc_compression_name(rec.compression),
                     rec.external ? "+mcc" : "");
        long x = abs ? (long)rx * 32 + lx : (long)lx, z = abs ? (long)rz * 32 + lz : (long)lz;
        if (json) {
            printf("%s\n  {\"x\": %ld, \"z\": %ld, \"sector\": %u, \"sectors\": %u, \"length\": %u, "
                   "\"compression\": ", any ? "," : "", x, z, e.sector_offset, e.sector_count, rec.length);
            mc_tool_json_string(stdout, comp);
            printf(", \"timestamp\": %u}", e.timestamp);
        } else {
            printf("%ld %ld %u %u %u %s %u\n", x, z, e.sector_offset, e.sector_count, rec.length, comp,
                   e.timestamp);
        }
        any = true;
    }
    if (json)
        printf("]}");
    mc_buf_free(&raw);
    return MC_EXIT_OK;
}

typedef struct verify_ctx {
    const char *file;
    const mc_region *r;
    bool quiet, json;
    size_t count;
} verify_ctx;

static void print_problem(void *user, const mc_region_problem *p)
{
    verify_ctx *v = user;
    char msg[MC_ERROR_MESSAGE_MAX + 64];
    absolute_message(v->r, p, msg, sizeof msg);
    if (v->json) {
        int32_t rx = 0, rz = 0;
        bool abs = mc_region_origin(v->r, &rx, &rz);
        printf("%s\n  {\"kind\": \"%s\", ", v->count ? "," : "", problem_kind_name(p->kind));
        if (p->lx >= 0)
            printf("\"x\": %ld, \"z\": %ld, ", abs ? (long)rx * 32 + p->lx : (long)p->lx,
                   abs ? (long)rz * 32 + p->lz : (long)p->lz);
        printf("\"message\": ");
        mc_tool_json_string(stdout, msg);
        printf("}");
    } else if (!v->quiet) {
        printf("%s: %s\n", v->file, msg);
    }
    v->count++;
}

typedef struct lost_ctx {
    const char *file;
    const mc_region *r;
} lost_ctx;

static void print_lost(void *user, const mc_region_problem *p)
{
    lost_ctx *l = user;
    char msg[MC_ERROR_MESSAGE_MAX + 64];
    absolute_message(l->r, p, msg, sizeof msg);
    fprintf(stderr, "%s: %s\n", l->file, msg);
}

int mc_cmd_region(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? MC_EXIT_USAGE : MC_EXIT_OK;
    }
    const char *sub = argv[1];
    bool quiet = false, json = false;
    int deflate_level = 0;
    const char *out = NULL;
    const char *files[4096];
    int nfiles = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
            quiet = true;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (++i >= argc) {
                fprintf(stderr, "mcchunk region: -o needs a file\n");
                return MC_EXIT_USAGE;
            }
            out = argv[i];
        } else if (!strcmp(argv[i], "--deflate-level")) {
            if (++i >= argc) {
                fprintf(stderr, "mcchunk region: --deflate-level needs a value\n");
                return MC_EXIT_USAGE;
            }
            if (!mc_tool_parse_int("mcchunk region", "--deflate-level", argv[i], 1, 12, &deflate_level))
                return MC_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "mcchunk region: unknown option %s\n", argv[i]);
            return MC_EXIT_USAGE;
        } else if (nfiles < (int)(sizeof files / sizeof files[0])) {
            files[nfiles++] = argv[i];
        } else {
            fprintf(stderr, "mcchunk region: too many files (at most 4096 per run)\n");
            return MC_EXIT_USAGE;
        }
    }
    bool known = !strcmp(sub, "info") || !strcmp(sub, "ls") || !strcmp(sub, "verify") ||
                 !strcmp(sub, "salvage") || !strcmp(sub, "compact") || !strcmp(sub, "relight");
    if (!known) {
        fprintf(stderr, "mcchunk region: unknown subcommand '%s'\n\n", sub);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (nfiles == 0) {
        fprintf(stderr, "mcchunk region %s: no FILE given\n", sub);
        return MC_EXIT_USAGE;
    }
    if (deflate_level && strcmp(sub, "relight")) {
        fprintf(stderr, "mcchunk region %s: --deflate-level is for relight\n", sub);
        return MC_EXIT_USAGE;
    }
    if (json && strcmp(sub, "ls") && strcmp(sub, "verify")) {
        fprintf(stderr, "mcchunk region %s: --json is for ls and verify\n", sub);
        return MC_EXIT_USAGE;
    }
    for (int f = 0; f < nfiles; f++)
        if (mc_tool_is_dir(files[f])) {
            fprintf(stderr, "mcchunk region %s: %s is a directory; give region files (e.g. %s/r.0.0.mca)\n", sub,
                    files[f], files[f]);
            return MC_EXIT_USAGE;
        }
    if (!strcmp(sub, "relight") && !out)
        return mc_region_relight(nfiles, files, quiet, deflate_level);
    if (!strcmp(sub, "salvage")) {
        if (nfiles != 1 || !out) {
            fprintf(stderr, "mcchunk region salvage: needs one FILE and -o OUT\n");
            return MC_EXIT_USAGE;
        }
        mc_region *r = open_or_complain(files[0]);
        if (!r)
            return MC_EXIT_FAIL;
        size_t saved = 0, lost = 0;
        mc_error err;
        mc_error_clear(&err);
        lost_ctx lc = {files[0], r};
        uint64_t size = mc_region_file_size(r);
        mc_status st = mc_region_salvage(r, out, NULL, print_lost, &lc, &saved, &lost, &err);
        mc_region_close(r);
        if (st) {
            fprintf(stderr, "mcchunk region salvage: %s\n", err.message);
            return MC_EXIT_FAIL;
        }
        if (!saved && (lost || size < 8192)) {
            /* nothing to show for it: the new file would only mislead */
            remove(out);
            if (lost)
                fprintf(stderr, "mcchunk region salvage: %s: every chunk is lost (%zu); nothing saved, %s not "
                                "written\n", files[0], lost, out);
            else
                fprintf(stderr, "mcchunk region salvage: %s: truncated inside its 8192-byte header (%llu "
                                "bytes): no chunk table, nothing saved, %s not written\n", files[0],
                        (unsigned long long)size, out);
            return MC_EXIT_FAIL;
        }
        printf("%s: %zu chunks saved to %s, %zu lost\n", files[0], saved, out, lost);
        return MC_EXIT_OK;
    }
    if (out) {
        fprintf(stderr, "mcchunk region %s: -o is for salvage\n", sub);
        return MC_EXIT_USAGE;
    }

    progress prog = {isatty(2) != 0, 0, nfiles};
    int rc = MC_EXIT_OK;
    bool json_first = true; /* "[" comes with the first file's object: a failure alone prints nothing */
    size_t total_problems = 0, total_ok = 0;
    for (int f = 0; f < nfiles; f++) {
        const char *file = files[f];
        progress_step(&prog, file);
        if (!strcmp(sub, "compact")) {
            uint64_t before = 0, after = 0;
            mc_error err;
            mc_error_clear(&err);
            if (mc_region_compact(file, NULL, &before, &after, &err)) {
                fprintf(stderr, "mcchunk region compact: %s\n", err.message);
                rc = MC_EXIT_FAIL;
            } else {
                printf("%s: %llu -> %llu bytes\n", file, (unsigned long long)before,
                       (unsigned long long)after);
            }
            continue;
        }
        mc_region *r = open_or_complain(file);
        if (!r) {
            rc = MC_EXIT_FAIL;
            continue;
        }
        if (!strcmp(sub, "info") || !strcmp(sub, "ls")) {
            if (header_cut(r, sub, file)) {
                rc = MC_EXIT_FAIL;
            } else if (!strcmp(sub, "info")) {
                info(r, file);
            } else {
                ls(r, file, json, json_first);
                json_first = false;
            }
        } else {
            verify_ctx v = {file, r, quiet, json, 0};
            size_t ok = 0;
            if (json) {
                printf("%s{\"file\": ", json_first ? "[" : ",\n ");
                mc_tool_json_string(stdout, file);
                printf(", \"problems\": [");
                json_first = false;
            } else if (!quiet) {
                region_header(r, file, "");
            }
            size_t n = mc_region_verify(r, print_problem, &v, &ok);
            total_problems += n;
            total_ok += ok;
            if (n)
                rc = MC_EXIT_FAIL;
            if (json)
                printf("], \"ok\": %s, \"chunks_ok\": %zu}", n ? "false" : "true", ok);
            else if (n)
                printf("%s: %zu problem%s, %zu chunks fine\n", file, n, n == 1 ? "" : "s", ok);
            else if (!quiet || nfiles == 1)
                printf("%s: ok, %zu chunks\n", file, ok);
        }
        mc_region_close(r);
    }
    if (json && !json_first)
        printf("]\n");
    else if (json && rc == MC_EXIT_OK)
        printf("[]\n");
    else if (!strcmp(sub, "verify") && nfiles > 1)
        printf("%d files: %zu problems, %zu chunks fine\n", nfiles, total_problems, total_ok);
    return rc;
}
