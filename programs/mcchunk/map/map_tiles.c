/*
 * map_tiles.c: `mcchunk render --tiles OUT`, a static web map (layout in
 * map_tiles.h) that is brought up to date by re-running.
 *
 * What changed is decided per region file from its modification time and
 * size, against tiles/DIM/state.txt of the previous run: a changed, new or
 * removed region is re-rendered (or its tile deleted), and so are its south
 * and east neighbours, whose hillshade reads its edge; each zoom level above
 * is rebuilt only where a tile below changed (a parent is the 2x2 average of
 * its four children, read back from their PNGs). The state file is written
 * last: a run that is interrupted leaves the previous state, so the next run
 * redoes what it may have left half done. Every file is written beside its
 * place and renamed over it, so a tile is always whole. Tiles with nothing
 * in them are not written (the page draws absent tiles as transparent, from
 * the list in map-data.js, without asking for them).
 */
#include "map/map_tiles.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "map/map_jobs.h"

#define PROG "mcchunk render"

typedef struct region_state {
    int32_t rx, rz;
    int64_t mtime_ns;
    uint64_t size;
} region_state;

/* A set of tile positions (open addressing on a packed key). */
typedef struct tile_set {
    uint64_t *keys; /* key + 1; 0 = empty */
    size_t cap, count;
} tile_set;

static uint64_t tile_key(int32_t x, int32_t z)
{
    return ((uint64_t)(uint32_t)x << 32 | (uint32_t)z) + 1;
}

static bool set_add(tile_set *s, int32_t x, int32_t z)
{
    if ((s->count + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *keys = calloc(cap, sizeof *keys);
        if (!keys)
            return false;
        for (size_t i = 0; i < s->cap; i++)
            if (s->keys[i]) {
                size_t j = (size_t)(s->keys[i] * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
                while (keys[j])
                    j = (j + 1) & (cap - 1);
                keys[j] = s->keys[i];
            }
        free(s->keys);
        s->keys = keys;
        s->cap = cap;
    }
    uint64_t k = tile_key(x, z);
    size_t j = (size_t)(k * 0x9E3779B97F4A7C15ull >> 20) & (s->cap - 1);
    for (; s->keys[j]; j = (j + 1) & (s->cap - 1))
        if (s->keys[j] == k)
            return true;
    s->keys[j] = k;
    s->count++;
    return true;
}

static void set_position(uint64_t key, int32_t *x, int32_t *z)
{
    key--;
    *x = (int32_t)(uint32_t)(key >> 32);
    *z = (int32_t)(uint32_t)key;
}

static int32_t half_floor(int32_t v)
{
    return v >= 0 ? v / 2 : -((-v + 1) / 2);
}

static bool make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return false;
            buf[i] = c;
        }
    return true;
}

/* Writes a whole file by rename (the folder must exist). */
static bool write_atomic(const char *path, const void *data, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok)
        unlink(tmp);
    return ok;
}

typedef struct tiles_run {
    const map_tiles_options *o;
    char root[4096]; /* OUT/tiles/DIM */
    char error[512];
    uint64_t written, removed;
} tiles_run;

static void tile_path(const tiles_run *t, int zoom, int32_t tx, int32_t tz, char *out, size_t n, bool dir_only)
{
    if (dir_only)
        snprintf(out, n, "%s/%d/%d", t->root, zoom, tx);
    else
        snprintf(out, n, "%s/%d/%d/%d.png", t->root, zoom, tx, tz);
}

static bool all_clear(const uint8_t *rgba)
{
    for (size_t i = 3; i < MAP_REGION_BYTES; i += 4)
        if (rgba[i])
            return false;
    return true;
}

/* Stores one tile (or removes it when empty). Called from worker threads:
 * each tile has its own file, and mkdir of a shared folder is idempotent. */
static bool store_tile(tiles_run *t, int zoom, int32_t tx, int32_t tz, const uint8_t *rgba)
{
    char path[4200], dir[4200], err[256];
    tile_path(t, zoom, tx, tz, path, sizeof path, false);
    if (!rgba || all_clear(rgba)) {
        if (unlink(path) == 0)
            __atomic_add_fetch(&t->removed, 1, __ATOMIC_RELAXED);
        return true;
    }
    uint8_t *png;
    size_t len;
    tile_path(t, zoom, tx, tz, dir, sizeof dir, true);
    if (!map_png_encode(rgba, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS * 4, &png, &len, err,
                        sizeof err))
        return false;
    bool ok = make_dirs(dir) && write_atomic(path, png, len);
    free(png);
    if (!ok)
        map_say(t->error, sizeof t->error, "cannot write %s: %s", path, strerror(errno));
    else
        __atomic_add_fetch(&t->written, 1, __ATOMIC_RELAXED);
    return ok;
}

static bool store_region_tile(void *user, const map_job *job, const uint8_t *rgba)
{
    return store_tile(user, 0, job->rx, job->rz, rgba);
}

/* A tile read back from its PNG into buf, or NULL when absent. */
static const uint8_t *load_tile(const tiles_run *t, int zoom, int32_t tx, int32_t tz, uint8_t *buf)
{
    char path[4200];
    tile_path(t, zoom, tx, tz, path, sizeof path, false);
    uint8_t *png;
    size_t len;
    if (mc_read_file(path, NULL, &png, &len, NULL) != MC_OK)
        return NULL;
    bool ok = map_png_decode_tile(png, len, buf);
    free(png);
    return ok ? buf : NULL;
}

/* ---------------------------------------------------------------- state */

static region_state *load_state(const tiles_run *t, size_t *count, char *mode, size_t mode_size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/state.txt", t->root);
    *count = 0;
    mode[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    region_state *list = NULL;
    size_t cap = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        region_state s;
        long long mt;
        unsigned long long size;
        char m[32];
        if (sscanf(line, "mode %31s", m) == 1) {
            snprintf(mode, mode_size, "%s", m);
            continue;
        }
        if (sscanf(line, "%d %d %lld %llu", &s.rx, &s.rz, &mt, &size) != 4)
            continue;
        s.mtime_ns = mt;
        s.size = size;
        if (*count == cap) {
            cap = cap ? cap * 2 : 64;
            region_state *grown = realloc(list, cap * sizeof *list);
            if (!grown)
                break;
            list = grown;
        }
        list[(*count)++] = s;
    }
    fclose(f);
    return list;
}

static bool save_state(const tiles_run *t, const map_world *w)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/state.txt", t->root);
    mc_buf b;
    mc_buf_init(&b, NULL);
    char line[160];
    int n = snprintf(line, sizeof line, "# mcchunk render --tiles: region files as last rendered\nmode %s\n",
                     map_mode_name(t->o->mode));
    mc_buf_put(&b, line, (size_t)n);
    for (size_t i = 0; i < map_world_region_count(w); i++) {
        const map_region_file *f = map_world_region_at(w, i);
        n = snprintf(line, sizeof line, "%d %d %lld %llu\n", f->rx, f->rz, (long long)f->mtime_ns,
                     (unsigned long long)f->size);
        mc_buf_put(&b, line, (size_t)n);
    }
    bool ok = write_atomic(path, b.data, b.len);
    mc_buf_free(&b);
    return ok;
}

static const region_state *find_state(const region_state *list, size_t count, int32_t rx, int32_t rz)
{
    for (size_t i = 0; i < count; i++)
        if (list[i].rx == rx && list[i].rz == rz)
            return &list[i];
    return NULL;
}

/* ---------------------------------------------------------------- page */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "Z/TX/TZ" of every tile file on disk, sorted. */
static char **list_tiles(const tiles_run *t, int zooms, size_t *count)
{
    char **list = NULL;
    size_t n = 0, cap = 0;
    for (int z = 0; z <= zooms; z++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%d", t->root, z);
        DIR *zd = opendir(dir);
        struct dirent *xe;
        while (zd && (xe = readdir(zd)) != NULL) {
            char *end;
            long tx = strtol(xe->d_name, &end, 10);
            if (end == xe->d_name || *end)
                continue;
            char xdir[4400];
            map_say(xdir, sizeof xdir, "%s/%s", dir, xe->d_name);
            DIR *xd = opendir(xdir);
            struct dirent *ze;
            while (xd && (ze = readdir(xd)) != NULL) {
                long tz = strtol(ze->d_name, &end, 10);
                if (end == ze->d_name || strcmp(end, ".png"))
                    continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 256;
                    char **grown = realloc(list, cap * sizeof *list);
                    if (!grown)
                        break;
                    list = grown;
                }
                char name[64];
                snprintf(name, sizeof name, "%d/%ld/%ld", z, tx, tz);
                if ((list[n] = strdup(name)) != NULL)
                    n++;
            }
            if (xd)
                closedir(xd);
        }
        if (zd)
            closedir(zd);
    }
    if (n)
        qsort(list, n, sizeof *list, compare_strings);
    *count = n;
    return list;
}

static bool write_page(const tiles_run *t, const map_world *w)
{
    const map_tiles_options *o = t->o;
    char path[4200];
    for (size_t i = 0; i < map_web_asset_count; i++) {
        const map_web_asset *a = &map_web_assets[i];
        snprintf(path, sizeof path, "%s/%s", o->out, a->path);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (!make_dirs(path))
            return false;
        *slash = '/';
        if (!write_atomic(path, a->data, a->len))
            return false;
    }
    int32_t bounds[4] = {0, 0, 0, 0}, c[4];
    if (map_world_chunk_bounds(w, &c[0], &c[1], &c[2], &c[3])) {
        bounds[0] = c[0] * 16, bounds[1] = c[1] * 16, bounds[2] = c[2] * 16 + 15, bounds[3] = c[3] * 16 + 15;
    }
    size_t ntiles;
    char **tiles = list_tiles(t, o->zooms, &ntiles);
    char *js = map_web_data_js(o->dimension, o->zooms, false, bounds, tiles, ntiles);
    for (size_t i = 0; i < ntiles; i++)
        free(tiles[i]);
    free(tiles);
    snprintf(path, sizeof path, "%s/map-data.js", t->root);
    bool ok = js && write_atomic(path, js, strlen(js));
    free(js);
    if (!ok)
        return false;
    /* dimensions.js: every tiles/DIM with a map-data.js */
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_buf_put(&b, "window.MCCHUNK_DIMENSIONS = [", 29);
    snprintf(path, sizeof path, "%s/tiles", o->out);
    DIR *d = opendir(path);
    struct dirent *de;
    bool first = true;
    while (d && (de = readdir(d)) != NULL) {
        char data[4400];
        struct stat st;
        map_say(data, sizeof data, "%s/%s/map-data.js", path, de->d_name);
        if (de->d_name[0] == '.' || stat(data, &st) != 0 || strpbrk(de->d_name, "\"\\<>"))
            continue;
        char item[300];
        int n = snprintf(item, sizeof item, "%s\"%s\"", first ? "" : ", ", de->d_name);
        mc_buf_put(&b, item, (size_t)n);
        first = false;
    }
    if (d)
        closedir(d);
    mc_buf_put(&b, "];\n", 3);
    snprintf(path, sizeof path, "%s/dimensions.js", o->out);
    ok = write_atomic(path, b.data, b.len);
    mc_buf_free(&b);
    return ok;
}

/* ------------------------------------------------------------------ run */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Which zoom-0 tiles to redo: changed regions and their south and east
 * neighbours; removed regions' tiles are deleted here. */
static bool find_dirty(tiles_run *t, const map_world *w, tile_set *dirty, tile_set *changed)
{
    char old_mode[32];
    size_t nold;
    region_state *old = load_state(t, &nold, old_mode, sizeof old_mode);
    bool same_mode = !strcmp(old_mode, map_mode_name(t->o->mode));
    bool ok = true;
    for (size_t i = 0; i < map_world_region_count(w) && ok; i++) {
        const map_region_file *f = map_world_region_at(w, i);
        const region_state *s = find_state(old, nold, f->rx, f->rz);
        char path[4200];
        struct stat st;
        tile_path(t, 0, f->rx, f->rz, path, sizeof path, false);
        bool fresh = same_mode && s && s->mtime_ns == f->mtime_ns && s->size == f->size;
        if (fresh && stat(path, &st) != 0 && errno != ENOENT)
            fresh = false;
        if (fresh)
            continue;
        ok = set_add(dirty, f->rx, f->rz);
        if (map_world_region(w, f->rx + 1, f->rz))
            ok = ok && set_add(dirty, f->rx + 1, f->rz);
        if (map_world_region(w, f->rx, f->rz + 1))
            ok = ok && set_add(dirty, f->rx, f->rz + 1);
    }
    for (size_t i = 0; i < nold && ok; i++) {
        if (map_world_region(w, old[i].rx, old[i].rz))
            continue;
        ok = store_tile(t, 0, old[i].rx, old[i].rz, NULL) && set_add(changed, old[i].rx, old[i].rz);
        if (map_world_region(w, old[i].rx + 1, old[i].rz))
            ok = ok && set_add(dirty, old[i].rx + 1, old[i].rz);
        if (map_world_region(w, old[i].rx, old[i].rz + 1))
            ok = ok && set_add(dirty, old[i].rx, old[i].rz + 1);
    }
    free(old);
    return ok;
}

/* Rebuilds zoom levels 1..zooms above the changed tiles. */
static bool build_zooms(tiles_run *t, tile_set *changed)
{
    uint8_t *children = malloc((size_t)MAP_REGION_BYTES * 5);
    if (!children)
        return false;
    bool ok = true;
    for (int z = 1; z <= t->o->zooms && ok; z++) {
        tile_set parents = {0};
        for (size_t i = 0; i < changed->cap && ok; i++)
            if (changed->keys[i]) {
                int32_t x, zz;
                set_position(changed->keys[i], &x, &zz);
                ok = set_add(&parents, half_floor(x), half_floor(zz));
            }
        for (size_t i = 0; i < parents.cap && ok && !(t->o->stop && *t->o->stop); i++) {
            if (!parents.keys[i])
                continue;
            int32_t px, pz;
            set_position(parents.keys[i], &px, &pz);
            const uint8_t *quads[4];
            bool any = false;
            for (int q = 0; q < 4; q++) {
                quads[q] = load_tile(t, z - 1, 2 * px + (q & 1), 2 * pz + (q >> 1), children + (size_t)q * MAP_REGION_BYTES);
                any |= quads[q] != NULL;
            }
            uint8_t *out = children + (size_t)4 * MAP_REGION_BYTES;
            if (any)
                map_downsample(quads, out);
            ok = store_tile(t, z, px, pz, any ? out : NULL);
        }
        free(changed->keys);
        *changed = parents;
    }
    free(children);
    return ok;
}

int map_tiles_build(map_world *w, const map_tiles_options *o)
{
    tiles_run t = {0};
    t.o = o;
    snprintf(t.root, sizeof t.root, "%s/tiles/%s", o->out, o->dimension);
    if (strchr(o->dimension, '/') || strstr(o->dimension, "..") || !make_dirs(t.root)) {
        fprintf(stderr, PROG ": cannot make %s: %s\n", t.root, strerror(errno));
        return MC_EXIT_FAIL;
    }
    double start = now_seconds();
    tile_set dirty = {0}, changed = {0};
    if (!find_dirty(&t, w, &dirty, &changed)) {
        fprintf(stderr, PROG ": out of memory\n");
        return MC_EXIT_FAIL;
    }
    map_job *jobs = calloc(dirty.count ? dirty.count : 1, sizeof *jobs);
    size_t n = 0;
    bool ok = jobs != NULL;
    for (size_t i = 0; ok && i < dirty.cap; i++)
        if (dirty.keys[i]) {
            set_position(dirty.keys[i], &jobs[n].rx, &jobs[n].rz);
            ok = set_add(&changed, jobs[n].rx, jobs[n].rz);
            n++;
        }
    map_stats st = {0};
    char chunk_error[256] = "";
    if (ok && !o->quiet && isatty(2))
        fprintf(stderr, "rendering %zu regions...", n);
    ok = ok && map_jobs_run(w, o->mode, jobs, n, o->threads, store_region_tile, &t, o->stop, &st, chunk_error,
                            sizeof chunk_error);
    if (!o->quiet && isatty(2))
        fprintf(stderr, "\r\033[K");
    ok = ok && !(o->stop && *o->stop) && build_zooms(&t, &changed) && !(o->stop && *o->stop);
    free(jobs);
    free(dirty.keys);
    free(changed.keys);
    if (ok && (!write_page(&t, w) || !save_state(&t, w))) {
        snprintf(t.error, sizeof t.error, "cannot write the page into %s: %s", o->out, strerror(errno));
        ok = false;
    }
    if (!ok) {
        if (o->stop && *o->stop)
            fprintf(stderr, PROG ": interrupted; every tile in %s is whole, the next run finishes the rest\n", o->out);
        else
            fprintf(stderr, PROG ": %s\n", t.error[0] ? t.error : "out of memory");
        return MC_EXIT_FAIL;
    }
    if (st.bad_chunks)
        fprintf(stderr, PROG ": %llu chunks could not be read (left transparent); the first: %s\n",
                (unsigned long long)st.bad_chunks, chunk_error);
    double seconds = now_seconds() - start;
    if (o->json) {
        mc_buf name;
        mc_buf_init(&name, NULL);
        map_json_string(&name, o->out);
        printf("{\"output\": %.*s, \"mode\": \"%s\", \"regions_rendered\": %zu, \"regions\": %zu, \"chunks\": %llu, "
               "\"bad_chunks\": %llu, \"tiles_written\": %llu, \"tiles_removed\": %llu, \"seconds\": %.3f}\n",
               (int)name.len, (const char *)name.data, map_mode_name(o->mode), n, map_world_region_count(w), (unsigned long long)st.chunks,
               (unsigned long long)st.bad_chunks, (unsigned long long)t.written, (unsigned long long)t.removed,
               seconds);
        mc_buf_free(&name);
    } else if (!o->quiet)
        printf("%s: %zu of %zu regions rendered (%llu chunks, %llu unreadable), %llu tiles written, %llu removed, "
               "%.2f s\n", o->out, n, map_world_region_count(w), (unsigned long long)st.chunks,
               (unsigned long long)st.bad_chunks, (unsigned long long)t.written, (unsigned long long)t.removed,
               seconds);
    return MC_EXIT_OK;
}
