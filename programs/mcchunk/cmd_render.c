/*
 * cmd_render.c: `mcchunk render WORLD...`: a top-down map of a world as one
 * PNG (-o) or as a static web map (--tiles, map_tiles.c). The drawing rules
 * are in map/map.h.
 *
 * One PNG is made a band at a time: the regions of one row of regions are
 * rendered on every thread, copied into a band of 512 block rows (scaled),
 * and the band's rows go to the PNG encoder before the next row starts, so
 * memory is one band however large the world. The file is written beside
 * the target and renamed when complete; Ctrl-C stops between regions and
 * leaves the target as it was.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "map/map.h"
#include "map/map_jobs.h"
#include "map/map_tiles.h"
#include "tool_common.h"

#define PROG "mcchunk render"
/* widest image band (pixels, after --scale): 200,000 x 512 x 4 bytes = 400 MiB */
#define MAX_WIDTH 200000
#define MAX_HEIGHT 2000000

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk render WORLD -o MAP.png [--area X0,Z0,X1,Z1] [--dimension D] [--scale N]\n"
            "                      [--mode normal|height|biome|light] [--threads N] [--quiet] [--json]\n"
            "       mcchunk render WORLD --tiles OUT [--zooms N] [--dimension D] [--mode M] [--threads N]\n"
            "                      [--quiet] [--json]\n"
            "\n"
            "A top-down map of a Java world. WORLD is a world folder (its --dimension:\n"
            "overworld (default), the_nether, the_end or any ns:path) or one or more region\n"
            "files (r.X.Z.mca; their position from the name, else from their first chunk).\n"
            "A pixel is one block column seen from above: the blocks with a visible colour\n"
            "(the game's textures, seen from above), blended top-down with their biome's\n"
            "grass, foliage and water tints until opaque (water darkens with depth),\n"
            "lit by a hillshade from the heights north and west. Missing chunks and\n"
            "columns without visible blocks are transparent. Chunks of any status are drawn.\n"
            "\n"
            "  -o MAP.png     one PNG: pixel (i, j) shows block (X0 + i/N, Z0 + j/N)\n"
            "  --area X0,Z0,X1,Z1  block corners, both included (default: the bounding box\n"
            "                 of the present chunks, printed first)\n"
            "  --scale N      N x N pixels per block, 1..16 (default 1)\n"
            "  --mode M       normal (default), height (a colour ramp of the surface height),\n"
            "                 biome (a colour per biome), light (night: darkened by the\n"
            "                 block light above the surface)\n"
            "  --tiles OUT    a static web map in folder OUT: OUT/index.html (Leaflet, opens\n"
            "                 from the file system or any web server) and 512x512 PNG tiles\n"
            "                 OUT/tiles/DIMENSION/Z/TX/TZ.png: zoom 0 = one pixel per block,\n"
            "                 tile TX TZ = blocks [512 TX, 512 TX + 512) x [512 TZ, ...),\n"
            "                 zoom k = 2^k blocks per pixel. Re-running re-renders only the\n"
            "                 regions whose files changed (and their south and east\n"
            "                 neighbours, whose hillshade reads them) and the zooms above\n"
            "  --zooms N      zoomed-out levels 1..N above zoom 0, 0..8 (default 4)\n"
            "  --dimension D  with a world folder\n"
            "  --threads N    rendering threads, 1..256 (default: every core)\n"
            "  --quiet        no summary; --json: the summary as one JSON object\n"
            "\n"
            "Prints the area and a summary (chunks drawn, chunks that failed to read,\n"
            "seconds) on stdout; progress on stderr when it is a terminal. A chunk that\n"
            "fails to read is left transparent and named on stderr (the rest is drawn).\n"
            "Peak memory: a band of 512 x N block rows, (width in pixels) x 2 KiB x N,\n"
            "plus 8 MiB per thread (--tiles: 8 MiB per thread and 6 MiB per zoom level).\n"
            "Ctrl-C leaves MAP.png as it was (a tile is replaced whole or not at all).\n"
            "exit status: 0 ok, 1 the world could not be read or the output written,\n"
            "or interrupted, 2 usage error\n");
}

typedef struct band_ctx {
    uint8_t *band;      /* (area width * scale) x (512 * scale) pixels */
    size_t stride;
    int32_t x0, z0, x1, z1; /* the area (inclusive) */
    int32_t band_z0;    /* first block row of the band */
    unsigned scale;
} band_ctx;

/* Copies the part of a region inside the area into the band (scaled). */
static bool copy_into_band(void *user, const map_job *job, const uint8_t *rgba)
{
    band_ctx *b = user;
    int32_t bx0 = job->rx * 512, bz0 = job->rz * 512;
    int32_t from_x = bx0 > b->x0 ? bx0 : b->x0, to_x = bx0 + 511 < b->x1 ? bx0 + 511 : b->x1;
    int32_t from_z = bz0 > b->z0 ? bz0 : b->z0, to_z = bz0 + 511 < b->z1 ? bz0 + 511 : b->z1;
    for (int32_t z = from_z; z <= to_z; z++) {
        const uint8_t *src = rgba + ((size_t)(z - bz0) * 512 + (size_t)(from_x - bx0)) * 4;
        for (unsigned sz = 0; sz < b->scale; sz++) {
            uint8_t *dst = b->band + (size_t)((z - b->band_z0) * (int32_t)b->scale + (int32_t)sz) * b->stride +
                           (size_t)(from_x - b->x0) * b->scale * 4;
            if (b->scale == 1) {
                memcpy(dst, src, (size_t)(to_x - from_x + 1) * 4);
                continue;
            }
            for (int32_t x = 0; x <= to_x - from_x; x++)
                for (unsigned sx = 0; sx < b->scale; sx++)
                    memcpy(dst + ((size_t)x * b->scale + sx) * 4, src + (size_t)x * 4, 4);
        }
    }
    return true;
}

static int32_t floor_div(int32_t a, int32_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct render_opts {
    const char *out, *tiles, *dimension;
    bool have_area, quiet, json;
    int32_t area[4];
    int scale, zooms, threads;
    map_mode mode;
} render_opts;

static void print_summary(const render_opts *o, const map_stats *st, double seconds, const char *what)
{
    if (o->quiet)
        return;
    if (o->json) {
        printf("{\"output\": ");
        mc_tool_json_string(stdout, what);
        printf(", \"mode\": \"%s\", \"area\": [%d, %d, %d, %d], \"chunks\": %llu, \"edge_chunks\": %llu, "
               "\"bad_chunks\": %llu, \"seconds\": %.3f}\n",
               map_mode_name(o->mode), o->area[0], o->area[1], o->area[2], o->area[3],
               (unsigned long long)st->chunks, (unsigned long long)st->edge_chunks,
               (unsigned long long)st->bad_chunks, seconds);
        return;
    }
    printf("%s: %llu chunks drawn, %llu unreadable, %.2f s\n", what, (unsigned long long)st->chunks,
           (unsigned long long)st->bad_chunks, seconds);
}

static int render_png(map_world *w, render_opts *o)
{
    int32_t x0 = o->area[0], z0 = o->area[1], x1 = o->area[2], z1 = o->area[3];
    uint64_t width = (uint64_t)(x1 - x0 + 1) * (uint64_t)o->scale, height = (uint64_t)(z1 - z0 + 1) * (uint64_t)o->scale;
    if (width > MAX_WIDTH || height > MAX_HEIGHT) {
        fprintf(stderr, PROG ": the image would be %llu x %llu pixels; at most %d x %d (choose a smaller "
                        "--area or --scale)\n", (unsigned long long)width, (unsigned long long)height, MAX_WIDTH,
                MAX_HEIGHT);
        return MC_EXIT_USAGE;
    }
    char err[512] = "";
    map_png_writer *pw = map_png_writer_open(o->out, (uint32_t)width, (uint32_t)height, err, sizeof err);
    if (!pw) {
        fprintf(stderr, PROG ": %s\n", err);
        return MC_EXIT_FAIL;
    }
    band_ctx b = {0};
    b.stride = (size_t)width * 4;
    b.band = malloc(b.stride * 512 * (size_t)o->scale);
    b.x0 = x0, b.z0 = z0, b.x1 = x1, b.z1 = z1, b.scale = (unsigned)o->scale;
    int32_t rx0 = floor_div(x0, 512), rx1 = floor_div(x1, 512), rz0 = floor_div(z0, 512), rz1 = floor_div(z1, 512);
    map_job *jobs = calloc((size_t)(rx1 - rx0 + 1), sizeof *jobs);
    if (!b.band || !jobs) {
        fprintf(stderr, PROG ": out of memory for a band of %llu x %d pixels\n", (unsigned long long)width,
                512 * o->scale);
        map_png_writer_abort(pw);
        free(b.band);
        free(jobs);
        return MC_EXIT_FAIL;
    }
    map_stats st = {0};
    char chunk_error[256] = "";
    bool tty = isatty(2) && !o->quiet;
    double start = now_seconds();
    bool ok = true;
    for (int32_t rz = rz0; rz <= rz1 && ok; rz++) {
        b.band_z0 = rz * 512 > z0 ? rz * 512 : z0;
        int32_t band_z1 = rz * 512 + 511 < z1 ? rz * 512 + 511 : z1;
        uint32_t rows = (uint32_t)(band_z1 - b.band_z0 + 1) * (uint32_t)o->scale;
        memset(b.band, 0, b.stride * rows);
        size_t n = 0;
        for (int32_t rx = rx0; rx <= rx1; rx++)
            if (map_world_region(w, rx, rz))
                jobs[n++] = (map_job){rx, rz, 0};
        if (tty)
            fprintf(stderr, "\r\033[Kregion row %d of %d (z %d)", rz - rz0 + 1, rz1 - rz0 + 1, rz * 512);
        ok = map_jobs_run(w, o->mode, jobs, n, (unsigned)o->threads, copy_into_band, &b, &interrupted, &st,
                          chunk_error, sizeof chunk_error) &&
             !interrupted;
        if (ok && !map_png_writer_rows(pw, b.band, rows, b.stride, err, sizeof err)) {
            fprintf(stderr, PROG ": %s\n", err);
            ok = false;
        }
    }
    if (tty)
        fprintf(stderr, "\r\033[K");
    free(b.band);
    free(jobs);
    if (!ok) {
        map_png_writer_abort(pw);
        if (interrupted)
            fprintf(stderr, PROG ": interrupted; %s left as it was\n", o->out);
        return MC_EXIT_FAIL;
    }
    if (!map_png_writer_close(pw, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        return MC_EXIT_FAIL;
    }
    if (st.bad_chunks)
        fprintf(stderr, PROG ": %llu chunks could not be read (left transparent); the first: %s\n",
                (unsigned long long)st.bad_chunks, chunk_error);
    print_summary(o, &st, now_seconds() - start, o->out);
    return MC_EXIT_OK;
}

static bool parse_area(const char *s, int32_t out[4])
{
    long long v[4];
    char *end;
    const char *p = s;
    for (int i = 0; i < 4; i++) {
        v[i] = strtoll(p, &end, 10);
        if (end == p || (i < 3 && *end != ',') || (i == 3 && *end) || v[i] < -MC_TOOL_BLOCK_LIMIT ||
            v[i] > MC_TOOL_BLOCK_LIMIT)
            return false;
        p = end + 1;
    }
    if (v[2] < v[0] || v[3] < v[1])
        return false;
    for (int i = 0; i < 4; i++)
        out[i] = (int32_t)v[i];
    return true;
}

int mc_cmd_render(int argc, char **argv)
{
    render_opts o = {0};
    o.dimension = "overworld";
    o.scale = 1;
    o.zooms = 4;
    o.threads = (int)map_default_threads();
    bool dimension_given = false;
    char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t ninputs = 0;
    if (!inputs)
        return MC_EXIT_FAIL;
    int rc = MC_EXIT_OK;
    for (int i = 1; i < argc && rc == MC_EXIT_OK; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(inputs);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o.quiet = true;
        } else if (!strcmp(a, "--json")) {
            o.json = true;
        } else if (a[0] == '-' && a[1] && strcmp(a, "-o") && strcmp(a, "--area") && strcmp(a, "--dimension") &&
                   strcmp(a, "--scale") && strcmp(a, "--mode") && strcmp(a, "--threads") && strcmp(a, "--tiles") &&
                   strcmp(a, "--zooms")) {
            fprintf(stderr, PROG ": unknown option %s (see --help)\n", a);
            rc = MC_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] && !has_value) {
            fprintf(stderr, PROG ": %s needs a value\n", a);
            rc = MC_EXIT_USAGE;
        } else if (!strcmp(a, "-o")) {
            o.out = argv[++i];
        } else if (!strcmp(a, "--tiles")) {
            o.tiles = argv[++i];
        } else if (!strcmp(a, "--dimension")) {
            o.dimension = argv[++i];
            dimension_given = true;
        } else if (!strcmp(a, "--area")) {
            if (!parse_area(argv[++i], o.area)) {
                fprintf(stderr, PROG ": --area must be X0,Z0,X1,Z1 (block coordinates within +-%d, X0 <= X1, "
                                "Z0 <= Z1), not '%s'\n", MC_TOOL_BLOCK_LIMIT, argv[i]);
                rc = MC_EXIT_USAGE;
            }
            o.have_area = true;
        } else if (!strcmp(a, "--scale")) {
            if (!mc_tool_parse_int(PROG, "--scale", argv[++i], 1, 16, &o.scale))
                rc = MC_EXIT_USAGE;
        } else if (!strcmp(a, "--zooms")) {
            if (!mc_tool_parse_int(PROG, "--zooms", argv[++i], 0, 8, &o.zooms))
                rc = MC_EXIT_USAGE;
        } else if (!strcmp(a, "--threads")) {
            if (!mc_tool_parse_int(PROG, "--threads", argv[++i], 1, 256, &o.threads))
                rc = MC_EXIT_USAGE;
        } else if (!strcmp(a, "--mode")) {
            if (!map_mode_parse(argv[++i], &o.mode)) {
                fprintf(stderr, PROG ": --mode must be normal, height, biome or light, not '%s'\n", argv[i]);
                rc = MC_EXIT_USAGE;
            }
        } else {
            inputs[ninputs++] = argv[i];
        }
    }
    if (rc == MC_EXIT_OK && !ninputs) {
        fprintf(stderr, PROG ": which world? (a world folder or region files; see --help)\n");
        rc = MC_EXIT_USAGE;
    } else if (rc == MC_EXIT_OK && !!o.out == !!o.tiles) {
        fprintf(stderr, PROG ": give one of -o MAP.png and --tiles OUT\n");
        rc = MC_EXIT_USAGE;
    } else if (rc == MC_EXIT_OK && o.tiles && (o.have_area || o.scale != 1)) {
        fprintf(stderr, PROG ": --area and --scale are for -o (tiles cover every region)\n");
        rc = MC_EXIT_USAGE;
    } else if (rc == MC_EXIT_OK && o.json && o.quiet) {
        fprintf(stderr, PROG ": --json and --quiet exclude each other\n");
        rc = MC_EXIT_USAGE;
    }
    bool folder = rc == MC_EXIT_OK && mc_tool_is_dir(inputs[0]);
    if (rc == MC_EXIT_OK && folder && ninputs > 1) {
        fprintf(stderr, PROG ": one world folder, or region files: not both (%s)\n", inputs[1]);
        rc = MC_EXIT_USAGE;
    } else if (rc == MC_EXIT_OK && !folder && dimension_given) {
        fprintf(stderr, PROG ": --dimension is for a world folder\n");
        rc = MC_EXIT_USAGE;
    }
    if (rc != MC_EXIT_OK) {
        free(inputs);
        return rc;
    }
    /* from here a Ctrl-C is a clean stop (opening a large world takes a moment) */
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char err[512] = "";
    map_world *w = folder ? map_world_open_folder(inputs[0], o.dimension, err, sizeof err)
                          : map_world_open_files(inputs, ninputs, err, sizeof err);
    free(inputs);
    if (!w) {
        fprintf(stderr, PROG ": %s\n", err);
        return MC_EXIT_FAIL;
    }
    if (o.tiles) {
        map_tiles_options t = {o.tiles, folder ? o.dimension : "overworld", o.mode, o.zooms, (unsigned)o.threads,
                               o.quiet, o.json, &interrupted};
        rc = map_tiles_build(w, &t);
    } else {
        int32_t cx0, cz0, cx1, cz1;
        if (!o.have_area) {
            if (!map_world_chunk_bounds(w, &cx0, &cz0, &cx1, &cz1)) {
                fprintf(stderr, PROG ": no chunks in %s\n", folder ? o.dimension : "these files");
                map_world_free(w);
                return MC_EXIT_FAIL;
            }
            o.area[0] = cx0 * 16, o.area[1] = cz0 * 16, o.area[2] = cx1 * 16 + 15, o.area[3] = cz1 * 16 + 15;
            if (!o.quiet && !o.json)
                printf("area %d,%d,%d,%d (%d x %d blocks)\n", o.area[0], o.area[1], o.area[2], o.area[3],
                       o.area[2] - o.area[0] + 1, o.area[3] - o.area[1] + 1);
        }
        rc = render_png(w, &o);
    }
    map_world_free(w);
    return rc;
}
