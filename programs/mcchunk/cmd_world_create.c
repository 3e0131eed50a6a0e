/*
 * cmd_world_create.c: `mcchunk world create DIR --version V`: the built-in
 * world (the server's generator, server/terrain.c) written as a real Java
 * world of release V: level.dat for V, and the square of chunks within
 * --radius chunks of the origin as full chunks -- blocks and biomes
 * translated to V's registry (and fitted to V's height: y 0..255 before
 * 1.18, the generator's blocks below 0 then dropped), heightmaps, and light
 * from the light engine with each chunk's eight neighbours (generated the
 * same way, across region borders: world/window.c) -- in region files of
 * the folder layout V uses. For tests, benchmarks and people who want a
 * test world. The generator is deterministic for a seed, so a world can be
 * made again, or in pieces on several machines (--shard).
 *
 * The game itself generates what lies beyond the radius with its own
 * generator from level.dat's seed: the built-in terrain is not vanilla
 * terrain, so there is a seam at the edge.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "server/terrain.h"
#include "tool_common.h"
#include "world/json.h"
#include "world/relight.h"
#include "world/subcommands.h"
#include "world/window.h"
#include "world/world.h"

typedef struct create_worker {
    srv_terrain *terrain;            /* the worker's own: a generator caches and lights (not thread-safe) */
    uint32_t *blocks, *biomes;       /* the generator's scratch */
    world_relight_worker light;
    mc_buf nbt;
    uint64_t chunks, bytes, files;
} create_worker;

typedef struct create_job {
    world_opts *o;
    mc_version_info target;
    const mc_registry *gen_reg;
    srv_terrain *terrain;
    int32_t radius;
    int32_t *regions;                /* (rx, rz) pairs of this shard */
    size_t nregions;
    mc_world_layout layout;
    mc_compression compression;      /* of the records (--compression) */
    create_worker *workers;
} create_job;

typedef struct create_run {
    create_job *j;
    create_worker *w;
} create_run;

/* The column of chunk (cx, cz) in the target's registry and height, or
 * NULL outside the radius. */
static mc_column *generate(void *user, int32_t cx, int32_t cz, bool own)
{
    (void)own;
    create_run *run = user;
    create_job *j = run->j;
    if (cx < -j->radius || cx > j->radius || cz < -j->radius || cz > j->radius)
        return NULL;
    mc_column *col = srv_terrain_column(run->w->terrain, cx, cz, run->w->blocks, run->w->biomes);
    mc_error err;
    if (col && j->target.registry != j->gen_reg) {
        mc_column *t = mc_column_translate(col, j->target.registry, NULL, &err);
        mc_column_free(col);
        col = t;
    }
    if (col && j->target.data_version < 2825) { /* before 1.18: y 0..255 */
        mc_column *r = mc_column_reshape(col, 0, 16, NULL, &err);
        mc_column_free(col);
        col = r;
    }
    return col;
}

static void free_column(void *user, mc_column *col)
{
    (void)user;
    mc_column_free(col);
}

static int create_task(void *user, int worker, size_t ti)
{
    create_job *j = user;
    create_run run = {j, &j->workers[worker]};
    create_worker *w = run.w;
    int32_t rx = j->regions[2 * ti], rz = j->regions[2 * ti + 1];
    char dir[4096], path[4400];
    mc_error err;
    mc_status st = mc_world_region_dir(j->o->dir, j->layout, "minecraft:overworld", MC_REGION_KIND_REGION, dir,
                                       sizeof dir, &err);
    if (!st && !world_mkdirs(dir))
        st = mc_error_set(&err, MC_ERR_IO, SIZE_MAX, "cannot make %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/r.%d.%d.mca", dir, (int)rx, (int)rz);
    mc_region_writer *out = NULL;
    mc_region_options ro = {0};
    ro.level = world_deflate_level(j->o, WORLD_DEFLATE_GAME);
    if (!st)
        st = mc_region_writer_new(path, &ro, &out, &err);
    world_window win;
    world_window_init(&win, rx, rz, generate, &run);
    win.free_col = free_column;
    const int32_t dv = j->target.data_version < 169 ? 0 : j->target.data_version;
    for (int lz = 0; lz < 32 && !st; lz++) {
        world_window_row(&win, lz);
        uint64_t made = 0;
        for (int lx = 0; lx < 32 && !st; lx++) {
            if (world_stop_requested()) {
                st = mc_error_set(&err, MC_ERR_IO, SIZE_MAX, "interrupted");
                break;
            }
            mc_column *col = world_window_get(&win, lx);
            if (!col)
                continue;
            const mc_column *nb[8];
            world_window_neighbours(&win, lx, nb);
            w->nbt.len = 0;
            st = mc_light_column(w->light.engine, col, nb, MC_LIGHT_BOTH, &err);
            if (!st)
                st = world_write_chunk_bytes(col, dv, w->light.doc, &w->nbt, &err);
            if (!st)
                st = mc_region_writer_put_chunk(out, lx, lz, w->nbt.data, w->nbt.len, j->compression, 0, &err);
            made += st == MC_OK;
        }
        w->chunks += made;
        world_count_chunks(made);
    }
    world_window_free(&win);
    uint64_t size = 0;
    if (st) {
        mc_region_writer_abandon(out);
    } else if ((st = mc_region_writer_commit(out, &size, &err)) == MC_OK) {
        w->bytes += size;
        w->files += size > 0;
    }
    if (st && !world_stop_requested())
        fprintf(stderr, "%s: region %d %d: %s\n", j->o->prog, (int)rx, (int)rz, err.message);
    return st ? MC_EXIT_FAIL : MC_EXIT_OK;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk world create DIR --version V [--radius R] [--seed N] [options]\n\n"
            "Writes the built-in world (the generator of `mcchunk serve`) as a Java world of\n"
            "release V in DIR (absent or empty): level.dat for V (creative, commands on,\n"
            "spawn on dry land near 0 0) and the chunks within R chunks of the origin (a\n"
            "square of (2R+1)^2 chunks) as full chunks in V's format: blocks and biomes\n"
            "in V's registry (before 1.18 only y 0..255), heightmaps, light from the light\n"
            "engine; region files in V's folder layout (26.1's for 26.1 and later). The game\n"
            "generates what lies beyond with its own generator (a seam at the edge).\n"
            "Prints the chunks, region files and bytes written (--json: one object).\n"
            "  --version V     the release (`mcchunk registry --versions`)\n"
            "  --radius R      0..2048 chunks (default 8: 17x17 chunks)\n"
            "  --seed N        the generator's seed (default 20260101, the server's and\n"
            "                  `mcchunk generate`'s), also level.dat's\n"
            "  --compression zlib|lz4|none\n"
            "                  the region compression of the chunks: zlib (default, the\n"
            "                  game's), lz4 (read by 1.20.5+) or none (read by 1.15+)\n"
            "  --deflate-level N\n"
            "                  the deflate level (1..12) of zlib records (not with lz4 or\n"
            "                  none): default 6, the game's (the generated terrain takes\n"
            "                  ~40%% more bytes at 1, for little less CPU: most of it is\n"
            "                  generating and lighting)\n"
            "options:\n");
    world_help_options(out, WORLD_OPT_JSON);
    fprintf(out,
            "Each region file is written whole (temporary + rename); level.dat last (shard 0).\n"
            "memory: peak at most 16 MB + 48 MB per thread (three rows of generated chunks and\n"
            "the light engine), whatever the radius\n"
            "exit status: 0 ok, 1 a region failed, DIR is not empty or the run was\n"
            "interrupted, 2 usage error\n");
}

static int region_floor(int32_t c)
{
    return c >= 0 ? c / 32 : -((-(c + 1)) / 32) - 1;
}

int world_cmd_create(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world create"};
    const char *version = NULL;
    int32_t radius = 8;
    uint64_t seed = 20260101; /* the server's (and generate's) */
    const char *compression = "zlib";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
        int r = world_parse_option(&o, WORLD_OPT_JSON | WORLD_OPT_DEFLATE, argc, argv, &i);
        if (r < 0)
            return -r;
        if (r)
            continue;
        bool takes = !strcmp(a, "--version") || !strcmp(a, "--radius") || !strcmp(a, "--seed") ||
                     !strcmp(a, "--compression");
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", o.prog, a);
            return MC_EXIT_USAGE;
        }
        if (!strcmp(a, "--version")) {
            version = argv[++i];
        } else if (!strcmp(a, "--radius")) {
            if (!mc_tool_parse_i32(o.prog, "--radius", argv[++i], 0, 2048, &radius))
                return MC_EXIT_USAGE;
        } else if (!strcmp(a, "--seed")) {
            if (!mc_tool_parse_seed(o.prog, "--seed", argv[++i], &seed))
                return MC_EXIT_USAGE;
        } else if (!strcmp(a, "--compression")) {
            compression = argv[++i];
        } else if ((a[0] == '-' && a[1]) || o.dir) {
            fprintf(stderr, "%s: %s %s\n", o.prog, o.dir ? "one folder only, not" : "unknown option", a);
            return MC_EXIT_USAGE;
        } else {
            o.dir = a;
        }
    }
    if (!o.dir || !version) {
        fprintf(stderr, "%s: needs DIR --version V\n\n", o.prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    create_job j;
    memset(&j, 0, sizeof j);
    j.o = &o;
    j.radius = radius;
    if (!mc_java_version_find(version, &j.target) || !j.target.registry)
        return mc_tool_unknown_version(o.prog, version);
    if (world_parse_compression(&o, compression, &j.target, &j.compression))
        return MC_EXIT_USAGE;
    if (!world_folder_empty(o.dir)) {
        fprintf(stderr, "%s: %s is not empty (a new world goes into an empty or new folder)\n", o.prog, o.dir);
        return MC_EXIT_FAIL;
    }
    if (!world_mkdirs(o.dir)) {
        fprintf(stderr, "%s: cannot make %s: %s\n", o.prog, o.dir, strerror(errno));
        return MC_EXIT_FAIL;
    }
    j.layout = j.target.data_version >= 4786 ? MC_WORLD_LAYOUT_26_1 : MC_WORLD_LAYOUT_LEGACY;
    j.gen_reg = mc_registry_find("26.1");
    j.terrain = j.gen_reg ? srv_terrain_new(j.gen_reg, seed) : NULL;
    int32_t r0 = region_floor(-radius), r1 = region_floor(radius);
    size_t side = (size_t)(r1 - r0 + 1);
    j.regions = malloc(side * side * 2 * sizeof *j.regions);
    int threads = world_threads(&o);
    j.workers = calloc((size_t)threads, sizeof *j.workers);
    int rc = MC_EXIT_OK;
    if (!j.terrain || !j.regions || !j.workers) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
        rc = MC_EXIT_FAIL;
    }
    for (int32_t rz = r0; rc == MC_EXIT_OK && rz <= r1; rz++)
        for (int32_t rx = r0; rx <= r1; rx++)
            if (!o.shard_n || world_shard_of(rx, rz, o.shard_n) == o.shard_k) {
                j.regions[2 * j.nregions] = rx;
                j.regions[2 * j.nregions + 1] = rz;
                j.nregions++;
            }
    for (int w = 0; rc == MC_EXIT_OK && w < threads; w++) {
        create_worker *cw = &j.workers[w];
        cw->terrain = srv_terrain_new(j.gen_reg, seed);
        cw->blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
        cw->biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
        mc_buf_init(&cw->nbt, NULL);
        if (!cw->terrain || !cw->blocks || !cw->biomes || !world_relight_worker_init(&cw->light)) {
            fprintf(stderr, "%s: out of memory\n", o.prog);
            rc = MC_EXIT_FAIL;
        }
    }
    if (rc == MC_EXIT_OK) {
        world_job job = {o.prog, j.nregions, threads, world_progress_wanted(&o), create_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        uint64_t chunks = 0, bytes = 0, files = 0;
        for (int w = 0; w < threads; w++) {
            chunks += j.workers[w].chunks;
            bytes += j.workers[w].bytes;
            files += j.workers[w].files;
        }
        rc = out.failed || out.interrupted ? MC_EXIT_FAIL : MC_EXIT_OK;
        if (rc == MC_EXIT_OK && (!o.shard_n || o.shard_k == 0)) {
            int32_t spawn[3];
            srv_terrain_find_spawn(j.terrain, &spawn[0], &spawn[1], &spawn[2]);
            if (j.target.data_version < 2825 && spawn[1] < 1)
                spawn[1] = 64;
            world_level lv;
            mc_error err;
            mc_status st = world_level_create(&lv, &j.target, "mcchunk built-in world", (int64_t)seed, spawn, &err);
            if (!st)
                st = world_level_write(&lv, o.dir, &err);
            if (lv.doc)
                world_level_free(&lv);
            if (st) {
                fprintf(stderr, "%s: level.dat: %s\n", o.prog, err.message);
                rc = MC_EXIT_FAIL;
            }
        }
        if (o.json) {
            world_json js;
            world_json_init(&js, stdout, true);
            world_json_begin_object(&js, NULL);
            world_json_str(&js, "world", o.dir);
            world_json_str(&js, "version", j.target.name);
            world_json_int(&js, "data_version", j.target.data_version);
            world_json_uint(&js, "chunks", chunks);
            world_json_uint(&js, "region_files", files);
            world_json_uint(&js, "bytes", bytes);
            world_json_bool(&js, "interrupted", out.interrupted);
            world_json_double(&js, "seconds", out.seconds);
            world_json_end_object(&js);
            world_json_finish(&js);
        } else if (!o.quiet) {
            printf("%s: %s (DataVersion %d): %" PRIu64 " chunks in %" PRIu64 " region files, %" PRIu64
                   " bytes (%.1f s)\n", o.dir, j.target.name, (int)j.target.data_version, chunks, files, bytes,
                   out.seconds);
        }
        if (out.interrupted)
            fprintf(stderr, "%s: interrupted: %zu of %zu regions written (each complete)\n", o.prog, out.done,
                    j.nregions);
    }
    for (int w = 0; j.workers && w < threads; w++) {
        srv_terrain_free(j.workers[w].terrain);
        free(j.workers[w].blocks);
        free(j.workers[w].biomes);
        mc_buf_free(&j.workers[w].nbt);
        world_relight_worker_free(&j.workers[w].light);
    }
    free(j.workers);
    free(j.regions);
    srv_terrain_free(j.terrain);
    return rc;
}
