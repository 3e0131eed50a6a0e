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
