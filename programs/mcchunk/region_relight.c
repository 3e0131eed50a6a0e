/*
 * region_relight.c: `mcchunk region relight FILE...`: recomputes the sky and
 * block light of every full chunk of region files with the library's light
 * engine, with isLightOn set, and puts each file back whole (the work is
 * world/relight.c's, shared with `mcchunk world relight`; the file is the
 * old one or the relit one after any crash).
 *
 * A region file alone does not know the chunks of the files next to it:
 * chunks at the file's edge are lit with those neighbours absent (as the
 * game treats unloaded chunks); `world relight` reads them from the world.
 * Full chunks: Status "full" / "minecraft:full" (1.14+; older chunks have
 * no light engine of this kind and are left alone, as are proto-chunks).
 */
#include "region_relight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "world/relight.h"

static int relight_file(const char *path, world_relight_worker *w, bool quiet)
{
    mc_region *region;
    mc_error err;
    if (mc_region_open(path, NULL, &region, &err) != MC_OK) {
        fprintf(stderr, "mcchunk region relight: %s: %s\n", path, err.message);
        return MC_EXIT_FAIL;
    }
    int32_t rx = 0, rz = 0;
    mc_region_origin(region, &rx, &rz);
    mc_region *around[9] = {NULL, NULL, NULL, NULL, region, NULL, NULL, NULL, NULL};
    world_relight_counts c = {0};
    mc_status st = world_relight_region(path, around, rx, rz, w, &c, &err);
    mc_region_close(region);
    if (st) {
        fprintf(stderr, "mcchunk region relight: %s: %s (the file is left as it was)\n", path, err.message);
        return MC_EXIT_FAIL;
    }
    if (!quiet)
        printf("%s: %llu chunks, %llu full and relit\n", path, (unsigned long long)c.chunks,
               (unsigned long long)c.relit);
    return MC_EXIT_OK;
}

int mc_region_relight(int nfiles, const char *const *files, bool quiet, int deflate_level)
{
    world_relight_worker w;
    if (!world_relight_worker_init(&w)) {
        world_relight_worker_free(&w);
        fprintf(stderr, "mcchunk region relight: out of memory\n");
        return MC_EXIT_FAIL;
    }
    if (deflate_level)
        w.deflate_level = deflate_level;
    int rc = MC_EXIT_OK;
    for (int i = 0; i < nfiles; i++)
        if (relight_file(files[i], &w, quiet) != MC_EXIT_OK)
            rc = MC_EXIT_FAIL;
    world_relight_worker_free(&w);
    return rc;
}
