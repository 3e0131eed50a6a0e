/*
 * world.c: where a world folder keeps its region files.
 *
 * Up to 1.21.11 the overworld's folders are directly in the world folder
 * (region/, entities/, poi/), the Nether's in DIM-1/, the End's in DIM1/, and
 * datapack dimensions (1.16+) in dimensions/<namespace>/<path>/. From 26.1
 * on, every dimension -- vanilla ones included -- lives in
 * dimensions/<namespace>/<path>/ (minecraft:overworld, minecraft:the_nether,
 * minecraft:the_end). A world is recognised as 26.1 when its
 * dimensions/minecraft/overworld folder exists.
 *
 * A chunk's file is r.<X >> 5>.<Z >> 5>.mca (arithmetic shift: chunk -1 is in
 * region -1) and its local coordinates are X & 31, Z & 31.
 *
 * A world folder comes from elsewhere (a download, a backup), and what the
 * library reads from it is served to clients or printed. So the files found
 * through it stay inside it: the region folder must resolve (realpath, so
 * links to places inside the world are fine) to a folder inside the world
 * folder's own resolved path, and the region file itself must be a regular
 * file, not a link (lstat). The .mcc files beside it are opened without
 * following links by region.c, and every open refuses non-regular files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcchunk/anvil.h"

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

mc_world_layout mc_world_detect_layout(const char *world)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/dimensions/minecraft/overworld", world);
    if (n > 0 && (size_t)n < sizeof path && is_dir(path))
        return MC_WORLD_LAYOUT_26_1;
    return MC_WORLD_LAYOUT_LEGACY;
}

static const char *kind_folder(mc_region_kind kind)
{
    switch (kind) {
    case MC_REGION_KIND_ENTITIES: return "entities";
    case MC_REGION_KIND_POI: return "poi";
    default: return "region";
    }
}

/* Splits "ns:path" (or a bare vanilla short name) into namespace and path. */
static bool split_dimension(const char *dim, char *ns, size_t ns_size, char *path,
                            size_t path_size)
{
    static const struct { const char *alias, *path; } aliases[] = {
        {"overworld", "overworld"}, {"nether", "the_nether"}, {"the_nether", "the_nether"},
        {"end", "the_end"}, {"the_end", "the_end"}, {"0", "overworld"},
        {"-1", "the_nether"}, {"1", "the_end"}, {"DIM-1", "the_nether"}, {"DIM1", "the_end"},
    };
    if (!dim || !*dim)
        return false;
    const char *colon = strchr(dim, ':');
    if (!colon) {
        for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
            if (!strcmp(dim, aliases[i].alias)) {
                snprintf(ns, ns_size, "minecraft");
                snprintf(path, path_size, "%s", aliases[i].path);
                return true;
            }
        return false;
    }
    size_t nl = (size_t)(colon - dim);
    if (nl == 0 || nl >= ns_size || !colon[1] || strlen(colon + 1) >= path_size)
        return false;
    memcpy(ns, dim, nl);
    ns[nl] = 0;
    strcpy(path, colon + 1);
    /* Resource locations: [a-z0-9_.-] and '/' in the path; refuse "..". */
    for (const char *p = ns; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("_.-", *p)))
            return false;
    for (const char *p = path; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("_.-/", *p)))
            return false;
    return strstr(path, "..") == NULL && strcmp(ns, "..") != 0;
}

mc_status mc_world_region_dir(const char *world, mc_world_layout layout, const char *dimension,
                              mc_region_kind kind, char *out, size_t out_size, mc_error *err)
{
    char ns[256], path[1024];
    if (!world || !split_dimension(dimension, ns, sizeof ns, path, sizeof path))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "world: bad dimension \"%s\"",
                            dimension ? dimension : "(null)");
    if (layout == MC_WORLD_LAYOUT_AUTO)
        layout = mc_world_detect_layout(world);
    const char *folder = kind_folder(kind);
    int n;
    if (layout == MC_WORLD_LAYOUT_LEGACY && !strcmp(ns, "minecraft") &&
        (!strcmp(path, "overworld") || !strcmp(path, "the_nether") || !strcmp(path, "the_end"))) {
        const char *sub = !strcmp(path, "overworld") ? "" : !strcmp(path, "the_nether") ? "DIM-1/" : "DIM1/";
        n = snprintf(out, out_size, "%s/%s%s", world, sub, folder);
    } else {
        n = snprintf(out, out_size, "%s/dimensions/%s/%s/%s", world, ns, path, folder);
    }
    if (n < 0 || (size_t)n >= out_size)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "world: path too long");
    return MC_OK;
}

/* MC_OK when the folder `dir` does not exist (nothing will be read from it)
 * or resolves to a place inside the folder `world` resolves to. */
static mc_status check_inside(const char *world, const char *dir, mc_error *err)
{
    char *d = realpath(dir, NULL);
    if (!d)
        return MC_OK;
    char *w = realpath(world, NULL);
    size_t wl = w ? strlen(w) : 0;
    bool inside = w && (!strcmp(w, "/") || (!strncmp(d, w, wl) && (d[wl] == '/' || !d[wl])));
    mc_status st = MC_OK;
    if (!inside)
        st = mc_error_set(err, MC_ERR_IO, SIZE_MAX,
                          "world: region folder %s leads to %s, outside the world folder %s; "
                          "not followed", dir, d, w ? w : world);
    free(d);
    free(w);
    return st;
}

mc_status mc_world_region_path(const char *world, mc_world_layout layout, const char *dimension,
                               mc_region_kind kind, int32_t cx, int32_t cz, char *out,
                               size_t out_size, int *lx, int *lz, mc_error *err)
{
    mc_status st = mc_world_region_dir(world, layout, dimension, kind, out, out_size, err);
    if (st)
        return st;
    size_t used = strlen(out);
    /* Arithmetic shift of a negative value: written as floor division so it
     * does not depend on the compiler. */
    int32_t rx = cx >= 0 ? cx / 32 : -((-(cx + 1)) / 32) - 1;
    int32_t rz = cz >= 0 ? cz / 32 : -((-(cz + 1)) / 32) - 1;
    int n = snprintf(out + used, out_size - used, "/r.%d.%d.mca", (int)rx, (int)rz);
    if (n < 0 || (size_t)n >= out_size - used)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "world: path too long");
    if (lx)
        *lx = (int)((uint32_t)cx & 31);
    if (lz)
        *lz = (int)((uint32_t)cz & 31);
    out[used] = 0; /* the folder alone, for the check */
    st = check_inside(world, out, err);
    out[used] = '/';
    if (st)
        return st;
    struct stat sb;
    if (lstat(out, &sb) != 0)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "world: no region file %s", out);
    if (S_ISLNK(sb.st_mode))
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX,
                            "world: %s is a symbolic link; links inside a region folder are not "
                            "followed (put the file itself there)", out);
    if (!S_ISREG(sb.st_mode))
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "world: %s is not a regular file", out);
    return MC_OK;
}

/* ------------------------------------------------------------ listing */

/* A growing list of strings, or of region coordinates. */
typedef struct name_list {
    char **names;
    size_t count, cap;
} name_list;

static bool list_add(name_list *l, const char *s)
{
    for (size_t i = 0; i < l->count; i++)
        if (!strcmp(l->names[i], s))
            return true;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **n = realloc(l->names, cap * sizeof *n);
        if (!n)
            return false;
        l->names = n;
        l->cap = cap;
    }
    char *d = strdup(s);
    if (!d)
        return false;
    l->names[l->count++] = d;
    return true;
}

void mc_world_free_list(char **list, size_t count)
{
    for (size_t i = 0; list && i < count; i++)
        free(list[i]);
    free(list);
}

static bool is_real_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when folder `dir` holds a region, entities or poi folder (a link to
 * a folder counts: mc_world_region_path checks where it leads). */
static bool holds_region_folders(const char *dir)
{
    static const char *const kinds[] = {"region", "entities", "poi"};
    char p[4096];
    for (size_t i = 0; i < 3; i++) {
        int n = snprintf(p, sizeof p, "%s/%s", dir, kinds[i]);
        if (n > 0 && (size_t)n < sizeof p && is_dir(p))
            return true;
    }
    return false;
}

static bool resource_chars(const char *s, bool slash)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr(slash ? "_.-/" : "_.-", *p)))
            return false;
    return strstr(s, "..") == NULL;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every folder under dimensions/<ns>/ (to a depth of 8, not through links)
 * that holds region folders is dimension "ns:relative/path". */
static bool walk_dimension_folder(const char *dir, const char *ns, const char *rel, int depth, name_list *out)
{
    if (depth > 8)
        return true;
    DIR *d = opendir(dir);
    if (!d)
        return true;
    bool ok = true;
    struct dirent *e;
    name_list subs = {0};
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !resource_chars(e->d_name, false))
            continue;
        ok = list_add(&subs, e->d_name);
    }
    closedir(d);
    if (subs.count)
        qsort(subs.names, subs.count, sizeof *subs.names, compare_names);
    for (size_t i = 0; ok && i < subs.count; i++) {
        char path[4096], id[1024];
        int n = snprintf(path, sizeof path, "%s/%s", dir, subs.names[i]);
        int m = snprintf(id, sizeof id, "%s%s%s", rel, *rel ? "/" : "", subs.names[i]);
        if (n < 0 || (size_t)n >= sizeof path || m < 0 || (size_t)m >= sizeof id || !is_real_dir(path))
            continue;
        if (!strcmp(subs.names[i], "region") || !strcmp(subs.names[i], "entities") ||
            !strcmp(subs.names[i], "poi") || !strcmp(subs.names[i], "data"))
            continue;
        if (holds_region_folders(path)) {
            char full[1400];
            snprintf(full, sizeof full, "%s:%s", ns, id);
            ok = list_add(out, full);
        }
        ok = ok && walk_dimension_folder(path, ns, id, depth + 1, out);
    }
    mc_world_free_list(subs.names, subs.count);
    return ok;
}

mc_status mc_world_list_dimensions(const char *world, mc_world_layout layout, char ***out, size_t *count,
                                   mc_error *err)
{
    *out = NULL;
    *count = 0;
    if (!world || !is_dir(world))
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "world: %s is not a folder",
                            world ? world : "(null)");
    if (layout == MC_WORLD_LAYOUT_AUTO)
        layout = mc_world_detect_layout(world);
    name_list l = {0};
    bool ok = true;
    char p[4096];
    /* the vanilla three first, in this order */
    static const char *const vanilla[] = {"minecraft:overworld", "minecraft:the_nether", "minecraft:the_end"};
    for (size_t i = 0; ok && i < 3; i++) {
        int n;
        if (layout == MC_WORLD_LAYOUT_LEGACY)
            n = snprintf(p, sizeof p, "%s%s", world, i == 0 ? "" : i == 1 ? "/DIM-1" : "/DIM1");
        else
            n = snprintf(p, sizeof p, "%s/dimensions/minecraft/%s", world, vanilla[i] + 10);
        if (n > 0 && (size_t)n < sizeof p && holds_region_folders(p))
            ok = list_add(&l, vanilla[i]);
    }
    size_t fixed = l.count;
    int n = snprintf(p, sizeof p, "%s/dimensions", world);
    DIR *d = n > 0 && (size_t)n < sizeof p ? opendir(p) : NULL;
    name_list namespaces = {0};
    struct dirent *e;
    while (ok && d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && resource_chars(e->d_name, false))
            ok = list_add(&namespaces, e->d_name);
    if (d)
        closedir(d);
    if (namespaces.count)
        qsort(namespaces.names, namespaces.count, sizeof *namespaces.names, compare_names);
    for (size_t i = 0; ok && i < namespaces.count; i++) {
        char nsdir[4096];
        n = snprintf(nsdir, sizeof nsdir, "%s/dimensions/%s", world, namespaces.names[i]);
        if (n > 0 && (size_t)n < sizeof nsdir && is_real_dir(nsdir))
            ok = walk_dimension_folder(nsdir, namespaces.names[i], "", 1, &l);
    }
    mc_world_free_list(namespaces.names, namespaces.count);
    if (!ok) {
        mc_world_free_list(l.names, l.count);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "world: out of memory");
    }
    /* (list_add drops the vanilla ones found again under dimensions/) */
    if (l.count > fixed)
        qsort(l.names + fixed, l.count - fixed, sizeof *l.names, compare_names);
    *out = l.names;
    *count = l.count;
    return MC_OK;
}

static int compare_coords(const void *a, const void *b)
{
    const int32_t *p = a, *q = b;
    if (p[0] != q[0])
        return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : p[1] > q[1];
}

mc_status mc_world_list_regions(const char *world, mc_world_layout layout, const char *dimension,
                                mc_region_kind kind, int32_t **coords, size_t *count, mc_error *err)
{
    *coords = NULL;
    *count = 0;
    char dir[4096];
    mc_status st = mc_world_region_dir(world, layout, dimension, kind, dir, sizeof dir, err);
    if (st)
        return st;
    if (!is_dir(dir))
        return MC_OK;
    st = check_inside(world, dir, err);
    if (st)
        return st;
    DIR *d = opendir(dir);
    if (!d)
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "world: cannot list %s: %s", dir, strerror(errno));
    int32_t *c = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int rx, rz, used = 0;
        if (sscanf(e->d_name, "r.%d.%d.mca%n", &rx, &rz, &used) != 2 || !used || e->d_name[used])
            continue;
        char canonical[64], path[4400];
        snprintf(canonical, sizeof canonical, "r.%d.%d.mca", rx, rz);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        /* exactly the name mc_world_region_path makes, a regular file, not a link */
        if (strcmp(canonical, e->d_name) || lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            int32_t *g = realloc(c, ncap * 2 * sizeof *g);
            if (!g) {
                free(c);
                closedir(d);
                return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "world: out of memory");
            }
            c = g;
            cap = ncap;
        }
        c[2 * n] = rx;
        c[2 * n + 1] = rz;
        n++;
    }
    closedir(d);
    if (n)
        qsort(c, n, 2 * sizeof *c, compare_coords);
    *coords = c;
    *count = n;
    return MC_OK;
}
