/*
 * map_tiles.h: the static web map of `mcchunk render --tiles OUT`
 * (map_tiles.c) and the files of its page, which the server's live map
 * serves too (map_web.c).
 *
 * Layout of OUT:
 *   index.html, map.js, leaflet/leaflet.js, leaflet/leaflet.css   the page
 *   tiles/DIM/Z/TX/TZ.png     tiles (zoom 0 = 1 px per block = one region)
 *   tiles/DIM/map-data.js     what the page needs: zooms, bounds, the tiles
 *                             that exist (absent ones are transparent)
 *   tiles/DIM/state.txt       per region file: position, mtime, size (what
 *                             the next run compares to find changed regions)
 *   dimensions.js             the dimensions rendered into OUT
 */
#ifndef MC_MAP_TILES_H
#define MC_MAP_TILES_H

#include <signal.h>

#include "map/map.h"

typedef struct map_tiles_options {
    const char *out;       /* the folder */
    const char *dimension; /* its name in tiles/ ("overworld") */
    map_mode mode;
    int zooms;             /* levels above zoom 0 */
    unsigned threads;
    bool quiet, json;
    volatile const sig_atomic_t *stop;
} map_tiles_options;

/* Renders (or brings up to date) the web map; prints a summary unless
 * quiet. Returns an MC_EXIT_* code. */
int map_tiles_build(map_world *w, const map_tiles_options *opt);

/* ------------------------------------------------------------ the page */

typedef struct map_web_asset {
    const char *path;         /* "index.html", "leaflet/leaflet.js" */
    const char *content_type; /* "text/html; charset=utf-8" */
    const char *data;
    size_t len;
} map_web_asset;

/* Every file of the page (generated: map/data/web_assets.c). */
extern const map_web_asset map_web_assets[];
extern const size_t map_web_asset_count;
/* The asset at `path` (no leading slash), or NULL. */
const map_web_asset *map_web_find(const char *path);

/* The page's per-dimension data (tiles/DIM/map-data.js): the JavaScript
 * text, malloc'ed. `tiles` (may be NULL: live, any tile may be asked for)
 * lists the existing tiles as "Z/TX/TZ" strings. */
char *map_web_data_js(const char *dimension, int zooms, bool live, const int32_t bounds[4], char *const *tiles,
                      size_t ntiles);

/* Appends s as a JSON string (quotes, escapes; '<' too, for pages). */
void map_json_string(mc_buf *b, const char *s);

#endif
