/*
 * cmd_world_relight.c: `mcchunk world relight DIR`: the light of every full
 * chunk of the world recomputed with the light engine, region by region on
 * every core. Unlike `region relight`, a chunk at a region's edge is lit
 * with its neighbours from the next region file (read only: light never
 * changes blocks, so another worker -- or another shard -- rewriting that
 * file at the same time changes nothing this one reads). Each region file
 * is put back whole (world/relight.c): after Ctrl-C or a crash every file
 * is the old one or the relit one, and running the command again finishes
 * the job.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "world/json.h"
#include "world/relight.h"
#include "world/subcommands.h"
#include "world/world.h"

typedef struct relight_job {
    const world_opts *o;
    const world_scan *scan;
    world_relight_worker *workers;
    world_relight_counts *counts;   /* per worker */
} relight_job;

static int relight_task(void *user, int worker, size_t ti)
{
    relight_job *j = user;
    const world_task *t = &j->scan->tasks[ti];
    if (!t->has[MC_REGION_KIND_REGION])
        return MC_EXIT_OK;
    mc_region *around[9] = {NULL};
    char path[4200], centre[4200];
    mc_error err;
    int rc = MC_EXIT_OK;
    for (int k = 0; k < 9; k++) {
        world_task n = *t;
        n.rx += k % 3 - 1;
        n.rz += k / 3 - 1;
        mc_status st = world_task_path(j->scan, j->o->dir, &n, MC_REGION_KIND_REGION, path, sizeof path, &err);
        if (st == MC_ERR_NOT_FOUND && k != 4)
            continue;
        if (!st)
            st = mc_region_open(path, NULL, &around[k], &err);
        if (st) {
            fprintf(stderr, "%s: %s\n", j->o->prog, err.message);
            rc = MC_EXIT_FAIL;
            if (k == 4)
                break;
        }
        if (k == 4)
            snprintf(centre, sizeof centre, "%s", path);
    }
    if (around[4] && world_relight_region(centre, around, t->rx, t->rz, &j->workers[worker], &j->counts[worker],
                                          &err) != MC_OK) {
        if (!world_stop_requested())
            fprintf(stderr, "%s: %s: %s (the file is left as it was)\n", j->o->prog, centre, err.message);
        rc = MC_EXIT_FAIL;
    }
    for (int k = 0; k < 9; k++)
        mc_region_close(around[k]);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: mcchunk world relight DIR [--dimension D] [options]\n\n"
                 "Recomputes the sky and block light of every full chunk (1.14+) of world DIR\n"
                 "with the light engine, neighbours across region files included, sets\n"
                 "isLightOn, and puts each region file back whole (the old or the relit file\n"
                 "after Ctrl-C or a crash: run it again to finish). Proto-chunks and chunks\n"
                 "before 1.14 are left as they are. Prints the regions, chunks and relit chunks.\n"
                 "Relit chunks are written in the compression they had, zlib at the game's level\n"
                 "6 unless --deflate-level says otherwise (1: ~1.7x faster relights).\n"
                 "options:\n");
    world_help_options(out, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_DEFLATE);
    fprintf(out, "memory: peak at most 16 MB + 64 MB per thread (three rows of decoded chunks, the\n"
                 "light engine's work area and its batch of up to 102 columns' light kinds and\n"
                 "light sources), whatever the size of the world\n"
                 "exit status: 0 ok, 1 a region failed or the run was interrupted, 2 usage error\n");
}

int world_cmd_relight(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world relight"};
    int rc = world_parse_dir_args(&o, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_DEFLATE, argc, argv, usage);
    if (rc >= 0)
        return rc;
    world_scan scan;
    rc = world_scan_build(&o, 1u << MC_REGION_KIND_REGION, &scan);
    if (rc)
        return rc;
    int threads = world_threads(&o);
    relight_job j = {&o, &scan, calloc((size_t)threads, sizeof(world_relight_worker)),
                     calloc((size_t)threads, sizeof(world_relight_counts))};
    bool ok = j.workers && j.counts;
    for (int w = 0; ok && w < threads; w++) {
        ok = world_relight_worker_init(&j.workers[w]);
        j.workers[w].deflate_level = world_deflate_level(&o, WORLD_DEFLATE_GAME);
    }
    rc = MC_EXIT_FAIL;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
    } else {
        world_job job = {o.prog, scan.count, threads, world_progress_wanted(&o), relight_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        world_relight_counts all = {0};
        for (int w = 0; w < threads; w++) {
            all.chunks += j.counts[w].chunks;
            all.relit += j.counts[w].relit;
        }
        if (o.json) {
            world_json js;
            world_json_init(&js, stdout, true);
            world_json_begin_object(&js, NULL);
            world_json_uint(&js, "regions", out.done - out.failed);
            world_json_uint(&js, "regions_failed", out.failed);
            world_json_uint(&js, "chunks", all.chunks);
            world_json_uint(&js, "relit", all.relit);
            world_json_bool(&js, "interrupted", out.interrupted);
            world_json_double(&js, "seconds", out.seconds);
            world_json_end_object(&js);
            world_json_finish(&js);
        } else if (!o.quiet) {
            printf("%s: %zu region%s relit, %zu failed; %" PRIu64 " chunks, %" PRIu64 " full and relit (%.1f s)\n",
                   o.dir, out.done - out.failed, out.done - out.failed == 1 ? "" : "s", out.failed, all.chunks,
                   all.relit, out.seconds);
        }
        if (out.interrupted)
            fprintf(stderr, "%s: interrupted: %zu of %zu regions done, the others untouched; run it again to "
                            "finish\n", o.prog, out.done, scan.count);
        rc = out.failed || out.interrupted ? MC_EXIT_FAIL : MC_EXIT_OK;
    }
    for (int w = 0; j.workers && w < threads; w++)
        world_relight_worker_free(&j.workers[w]);
    free(j.workers);
    free(j.counts);
    world_scan_free(&scan);
    return rc;
}
