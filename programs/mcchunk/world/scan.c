/*
 * scan.c: the task list of a world command. A world is its dimensions
 * (mc_world_list_dimensions: both folder layouts), a dimension its region
 * coordinates; the region, entities and poi files of one coordinate are one
 * task, so that the worker that converts or prunes a region also handles
 * the entities and points of interest of the same chunks, and no two
 * workers (or shards) ever write the same file.
 *
 * Sharding (--shard K/N) keeps the regions whose coordinates mix to K
 * modulo N: a fixed function of (rx, rz) alone, so the split is the same on
 * every machine and for every file kind, and neighbouring regions land on
 * different shards (balanced load for worlds that grew from the centre).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "tool_common.h"
#include "world/world.h"

uint32_t world_shard_of(int32_t rx, int32_t rz, uint32_t n)
{
    /* splitmix64's finaliser over the two coordinates */
    uint64_t z = ((uint64_t)(uint32_t)rx << 32 | (uint32_t)rz) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return n ? (uint32_t)(z % n) : 0;
}

bool world_in_area(const world_opts *o, int32_t cx, int32_t cz)
{
    return !o->area || (cx >= o->area_x0 && cx <= o->area_x1 && cz >= o->area_z0 && cz <= o->area_z1);
}

static bool region_in_area(const world_opts *o, int32_t rx, int32_t rz)
{
    if (!o->area)
        return true;
    int64_t x0 = (int64_t)rx * 32, z0 = (int64_t)rz * 32;
    return x0 + 31 >= o->area_x0 && x0 <= o->area_x1 && z0 + 31 >= o->area_z0 && z0 <= o->area_z1;
}

static int compare_tasks(const void *a, const void *b)
{
    const world_task *p = a, *q = b;
    if (p->dim != q->dim)
        return p->dim < q->dim ? -1 : 1;
    if (p->rx != q->rx)
        return p->rx < q->rx ? -1 : 1;
    return p->rz < q->rz ? -1 : p->rz > q->rz;
}

/* Adds the files of one kind of one dimension, merging with the task of
 * the same coordinate (the lists come sorted, so the merge is a walk). */
static bool add_kind(world_scan *s, size_t first, uint16_t dim, mc_region_kind kind, const int32_t *c, size_t n,
                     size_t *cap, const world_opts *o)
{
    size_t have = s->count;
    for (size_t i = 0; i < n; i++) {
        int32_t rx = c[2 * i], rz = c[2 * i + 1];
        if (!region_in_area(o, rx, rz))
            continue;
        if (o->shard_n && world_shard_of(rx, rz, o->shard_n) != o->shard_k) {
            s->skipped_shard++;
            continue;
        }
        world_task key = {dim, {false, false, false}, rx, rz};
        world_task *found = have > first ? bsearch(&key, s->tasks + first, have - first, sizeof key, compare_tasks)
                                         : NULL;
        if (found) {
            found->has[kind] = true;
            continue;
        }
        if (s->count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            world_task *t = realloc(s->tasks, ncap * sizeof *t);
            if (!t)
                return false;
            s->tasks = t;
            *cap = ncap;
        }
        key.has[kind] = true;
        s->tasks[s->count++] = key;
    }
    if (s->count > have)
        qsort(s->tasks + first, s->count - first, sizeof *s->tasks, compare_tasks);
    return true;
}

/* The game reads only files named r.<x>.<z>.mca, and the library takes
 * only those (and no symbolic links: file safety). Anything else ending
 * in .mca in a region folder is someone's file that the command will not
 * read or touch: said on stderr, so that "0 chunks" is never a surprise. */
static void warn_skipped(const world_opts *o, const world_scan *s, uint16_t dim, mc_region_kind kind)
{
    char dir[4096];
    mc_error err;
    mc_error_clear(&err);
    if (mc_world_region_dir(o->dir, s->layout, s->dims[dim], kind, dir, sizeof dir, &err))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".mca"))
            continue;
        int rx, rz, used = 0;
        char canonical[64], path[4400];
        bool named = sscanf(e->d_name, "r.%d.%d.mca%n", &rx, &rz, &used) == 2 && used && !e->d_name[used];
        if (named) {
            snprintf(canonical, sizeof canonical, "r.%d.%d.mca", rx, rz);
            named = !strcmp(canonical, e->d_name);
        }
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        const char *why = NULL;
        if (!named)
            why = "not a region file name (r.<x>.<z>.mca, as the game names them)";
        else if (lstat(path, &sb) != 0)
            why = strerror(errno);
        else if (S_ISLNK(sb.st_mode))
            why = "a symbolic link (not followed)";
        else if (!S_ISREG(sb.st_mode))
            why = "not a regular file";
        if (why)
            fprintf(stderr, "%s: skipping %s: %s\n", o->prog, path, why);
    }
    closedir(d);
}

/* Whether any dimension of the world at o->dir has a region, entities or
 * poi file; when none has, the files skipped there are said on stderr. */
static bool has_region_files(const world_opts *o)
{
    world_scan s;
    memset(&s, 0, sizeof s);
    mc_error err;
    mc_error_clear(&err);
    s.layout = mc_world_detect_layout(o->dir);
    if (mc_world_list_dimensions(o->dir, s.layout, &s.dims, &s.ndims, &err))
        return true; /* not listable: world_scan_build says why */
    bool found = false;
    for (size_t d = 0; d < s.ndims && !found; d++)
        for (int k = 0; k < 3 && !found; k++) {
            int32_t *c = NULL;
            size_t n = 0;
            mc_status st = mc_world_list_regions(o->dir, s.layout, s.dims[d], (mc_region_kind)k, &c, &n, &err);
            free(c);
            found = st != MC_OK || n > 0; /* an error: world_scan_build says it */
        }
    for (size_t d = 0; d < s.ndims && !found && d < 65535; d++)
        for (int k = 0; k < 3; k++)
            warn_skipped(o, &s, (uint16_t)d, (mc_region_kind)k);
    world_scan_free(&s);
    return found;
}

int world_check_dir(const world_opts *o)
{
    if (!mc_tool_is_dir(o->dir)) {
        fprintf(stderr, "%s: %s is not a folder\n", o->prog, o->dir);
        return MC_EXIT_FAIL;
    }
    char level[4200];
    struct stat sb;
    snprintf(level, sizeof level, "%s/level.dat", o->dir);
    if ((lstat(level, &sb) == 0 && S_ISREG(sb.st_mode)) || has_region_files(o))
        return MC_EXIT_OK;
    fprintf(stderr,
            "%s: %s is not a Minecraft world: it has no level.dat and no region, entities or poi file named "
            "r.<x>.<z>.mca in any dimension (looked for %s/level.dat, and in the region/, entities/ and poi/ "
            "folders of %s, DIM-1/, DIM1/ and dimensions/<namespace>/<path>/)\n",
            o->prog, o->dir, o->dir, o->dir);
    return MC_EXIT_FAIL;
}

int world_scan_build(const world_opts *o, unsigned kinds, world_scan *out)
{
    memset(out, 0, sizeof *out);
    int rc = world_check_dir(o);
    if (rc != MC_EXIT_OK)
        return rc;
    mc_error err;
    mc_error_clear(&err);
    out->layout = mc_world_detect_layout(o->dir);
    mc_status st = mc_world_list_dimensions(o->dir, out->layout, &out->dims, &out->ndims, &err);
    if (!st && o->dimension) {
        /* just the one asked for (it may have no folder: then no task) */
        char dir[4096];
        mc_world_free_list(out->dims, out->ndims);
        out->ndims = 0;
        out->dims = calloc(1, sizeof *out->dims);
        if (!out->dims || !(out->dims[0] = strdup(o->dimension)))
            st = mc_error_set(&err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        else
            out->ndims = 1;
        if (!st)
            st = mc_world_region_dir(o->dir, out->layout, o->dimension, MC_REGION_KIND_REGION, dir, sizeof dir,
                                     &err);
    }
    if (st) {
        fprintf(stderr, "%s: %s\n", o->prog, err.message);
        world_scan_free(out);
        return st == MC_ERR_INVALID_ARG ? MC_EXIT_USAGE : MC_EXIT_FAIL;
    }
    size_t cap = 0;
    for (size_t d = 0; d < out->ndims && d < 65535; d++) {
        size_t first = out->count;
        for (int k = 0; k < 3; k++) {
            if (!(kinds & (1u << k)))
                continue;
            int32_t *c = NULL;
            size_t n = 0;
            st = mc_world_list_regions(o->dir, out->layout, out->dims[d], (mc_region_kind)k, &c, &n, &err);
            if (st) {
                fprintf(stderr, "%s: %s\n", o->prog, err.message);
                free(c);
                world_scan_free(out);
                return MC_EXIT_FAIL;
            }
            warn_skipped(o, out, (uint16_t)d, (mc_region_kind)k);
            bool ok = add_kind(out, first, (uint16_t)d, (mc_region_kind)k, c, n, &cap, o);
            free(c);
            if (!ok) {
                fprintf(stderr, "%s: out of memory\n", o->prog);
                world_scan_free(out);
                return MC_EXIT_FAIL;
            }
        }
    }
    return MC_EXIT_OK;
}

void world_scan_free(world_scan *s)
{
    mc_world_free_list(s->dims, s->ndims);
    free(s->tasks);
    memset(s, 0, sizeof *s);
}

mc_status world_task_path(const world_scan *s, const char *dir, const world_task *t, mc_region_kind kind,
                          char *out, size_t out_size, mc_error *err)
{
    return mc_world_region_path(dir, s->layout, s->dims[t->dim], kind, t->rx * 32, t->rz * 32, out, out_size,
                                NULL, NULL, err);
}
