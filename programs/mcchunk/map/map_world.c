/*
 * map_world.c: where a map's chunks come from: the region files of one
 * dimension of a world folder, or region files named on the command line.
 *
 * The list is sorted by (rz, rx) so that lookups are a binary search and
 * renders walk the world in rows. A world folder's files are found by
 * listing its region folder and then asking mc_world_region_path for each
 * name, which refuses links and files that are not regular, so the map
 * reads only what the library would read.
 */
#include "map/map.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct map_world {
    char *folder;    /* NULL: files */
    char *dimension;
    mc_world_layout layout;
    map_region_file *files;
    size_t count;
};

static int by_position(const void *a, const void *b)
{
    const map_region_file *x = a, *y = b;
    if (x->rz != y->rz)
        return x->rz < y->rz ? -1 : 1;
    return x->rx < y->rx ? -1 : x->rx > y->rx;
}

static void free_files(map_region_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(files[i].path);
    free(files);
}

static bool stat_file(const char *path, map_region_file *f)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    f->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    f->size = (uint64_t)st.st_size;
    return true;
}

/* "r.X.Z.mca" exactly (a world's own names) */
static bool region_name(const char *name, int32_t *rx, int32_t *rz)
{
    int x, z, used = 0;
    if (sscanf(name, "r.%d.%d.mca%n", &x, &z, &used) != 2 || name[used] != '\0')
        return false;
    if (x < -MAP_REGION_LIMIT || x > MAP_REGION_LIMIT || z < -MAP_REGION_LIMIT || z > MAP_REGION_LIMIT)
        return false; /* beyond the world's 30,000,000 blocks */
    *rx = x;
    *rz = z;
    return true;
}

static bool list_folder(map_world *w, char *err, size_t err_size)
{
    char dir[4096];
    mc_error e;
    if (mc_world_region_dir(w->folder, w->layout, w->dimension, MC_REGION_KIND_REGION, dir, sizeof dir, &e) !=
        MC_OK) {
        map_say(err, err_size, "%s", e.message);
        return false;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) { /* a dimension never visited: an empty map */
            free_files(w->files, w->count);
            w->files = NULL;
            w->count = 0;
            return true;
        }
        map_say(err, err_size, "%s: %s", dir, strerror(errno));
        return false;
    }
    map_region_file *files = NULL;
    size_t count = 0, cap = 0;
    bool ok = true;
    struct dirent *de;
    while (ok && (de = readdir(d)) != NULL) {
        map_region_file f = {0};
        if (!region_name(de->d_name, &f.rx, &f.rz))
            continue;
        char path[4096];
        if (mc_world_region_path(w->folder, w->layout, w->dimension, MC_REGION_KIND_REGION, f.rx * 32, f.rz * 32,
                                 path, sizeof path, NULL, NULL, &e) != MC_OK)
            continue; /* a link or not a regular file: not read */
        if (!stat_file(path, &f))
            continue;
        if (count == cap) {
            cap = cap ? cap * 2 : 64;
            map_region_file *grown = realloc(files, cap * sizeof *files);
            if (!grown) {
                ok = false;
                break;
            }
            files = grown;
        }
        if (!(f.path = strdup(path))) {
            ok = false;
            break;
        }
        files[count++] = f;
    }
    closedir(d);
    if (!ok) {
        free_files(files, count);
        map_say(err, err_size, "out of memory");
        return false;
    }
    qsort(files, count, sizeof *files, by_position);
    free_files(w->files, w->count);
    w->files = files;
    w->count = count;
    return true;
}

map_world *map_world_open_folder(const char *folder, const char *dimension, char *err, size_t err_size)
{
    map_world *w = calloc(1, sizeof *w);
    if (!w || !(w->folder = strdup(folder)) || !(w->dimension = strdup(dimension))) {
        map_world_free(w);
        map_say(err, err_size, "out of memory");
        return NULL;
    }
    w->layout = mc_world_detect_layout(folder);
    if (!list_folder(w, err, err_size)) {
        map_world_free(w);
        return NULL;
    }
    return w;
}

/* A region file's position from its first chunk's xPos/zPos. */
static bool origin_from_chunk(mc_region *region, int32_t *rx, int32_t *rz)
{
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    bool found = false;
    for (int i = 0; i < 1024 && !found; i++) {
        if (!mc_region_has_chunk(region, i % 32, i / 32))
            continue;
        mc_column *col = NULL;
        mc_chunknbt_options opt = {.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT};
        nbt.len = 0;
        if (mc_region_read_chunk(region, i % 32, i / 32, &nbt, NULL, NULL) == MC_OK &&
            mc_chunknbt_read_bytes(nbt.data, nbt.len, &opt, &col, NULL) == MC_OK) {
            *rx = (mc_column_x(col) - i % 32) >> 5; /* floor division: the slot's region */
            *rz = (mc_column_z(col) - i / 32) >> 5;
            found = true;
        }
        mc_column_free(col);
    }
    mc_buf_free(&nbt);
    return found;
}

map_world *map_world_open_files(char *const *paths, size_t count, char *err, size_t err_size)
{
    map_world *w = calloc(1, sizeof *w);
    if (!w || !(w->files = calloc(count ? count : 1, sizeof *w->files))) {
        free(w);
        map_say(err, err_size, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        map_region_file *f = &w->files[i];
        mc_region *region;
        mc_error e;
        if (mc_region_open(paths[i], NULL, &region, &e) != MC_OK) {
            map_say(err, err_size, "%s: %s", paths[i], e.message);
            map_world_free(w);
            return NULL;
        }
        bool placed = mc_region_origin(region, &f->rx, &f->rz) || origin_from_chunk(region, &f->rx, &f->rz);
        mc_region_close(region);
        if (!placed) {
            map_say(err, err_size, "%s: neither its name (r.X.Z.mca) nor a chunk in it says where it lies", paths[i]);
            map_world_free(w);
            return NULL;
        }
        if (!(f->path = strdup(paths[i])) || !stat_file(paths[i], f)) {
            map_say(err, err_size, "%s: %s", paths[i], f->path ? strerror(errno) : "out of memory");
            map_world_free(w);
            return NULL;
        }
        w->count = i + 1;
    }
    qsort(w->files, w->count, sizeof *w->files, by_position);
    for (size_t i = 1; i < w->count; i++)
        if (!by_position(&w->files[i - 1], &w->files[i])) {
            map_say(err, err_size, "%s and %s are both region %d %d", w->files[i - 1].path, w->files[i].path,
                w->files[i].rx, w->files[i].rz);
            map_world_free(w);
            return NULL;
        }
    return w;
}

void map_world_free(map_world *w)
{
    if (!w)
        return;
    free_files(w->files, w->count);
    free(w->folder);
    free(w->dimension);
    free(w);
}

bool map_world_rescan(map_world *w, char *err, size_t err_size)
{
    if (w->folder)
        return list_folder(w, err, err_size);
    for (size_t i = 0; i < w->count; i++)
        stat_file(w->files[i].path, &w->files[i]);
    return true;
}

size_t map_world_region_count(const map_world *w)
{
    return w->count;
}

const map_region_file *map_world_region_at(const map_world *w, size_t i)
{
    return i < w->count ? &w->files[i] : NULL;
}

const map_region_file *map_world_region(const map_world *w, int32_t rx, int32_t rz)
{
    map_region_file key = {.rx = rx, .rz = rz};
    return bsearch(&key, w->files, w->count, sizeof key, by_position);
}

bool map_world_chunk_bounds(const map_world *w, int32_t *cx0, int32_t *cz0, int32_t *cx1, int32_t *cz1)
{
    bool any = false;
    for (size_t i = 0; i < w->count; i++) {
        mc_region *region;
        if (mc_region_open(w->files[i].path, NULL, &region, NULL) != MC_OK)
            continue;
        for (int c = 0; c < 1024; c++) {
            if (!mc_region_has_chunk(region, c % 32, c / 32))
                continue;
            int32_t x = w->files[i].rx * 32 + c % 32, z = w->files[i].rz * 32 + c / 32;
            if (!any || x < *cx0)
                *cx0 = x;
            if (!any || x > *cx1)
                *cx1 = x;
            if (!any || z < *cz0)
                *cz0 = z;
            if (!any || z > *cz1)
                *cz1 = z;
            any = true;
        }
        mc_region_close(region);
    }
    return any;
}
