/*
 * http.h: the live web map of `mcchunk serve --http PORT` (http.c), an
 * HTTP/1.1 server on the server's libuv loop that answers only GET/HEAD of
 *   /, /index.html, /map.js, /leaflet/leaflet.js, /leaflet/leaflet.css  the page
 *   /dimensions.js, /tiles/DIM/map-data.js  what the page needs (live)
 *   /tiles/DIM/Z/TX/TZ.png  tiles of the map module (map/map.h), rendered on
 *                           demand on worker threads, the same pixels as
 *                           `mcchunk render --area` of their blocks
 *   /players.json           [{"name", "edition", "dimension", "x", "y", "z"}]
 * and nothing else: no file is read by path from a request. The tiles show
 * a world folder's dimensions, or the server's built-in world: its
 * overworld columns as the server makes and lights them (terrain.c, from
 * the same registry and seed), made on the render threads by generators of
 * their own, within map_radius chunks of the spawn chunk and player_radius
 * chunks of the chunk each player stands in (elsewhere transparent, so the
 * work a request can cause is bounded). Bounded: at
 * most max_connections open (more are answered 429 and closed), requests of
 * at most 8 KiB of headers read within 10 s, tile renders queued at most
 * 64 deep (429 beyond), encoded tiles cached within cache_bytes.
 */
#ifndef MC_SERVER_HTTP_H
#define MC_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "mcchunk/core.h"

#define SRV_HTTP_MAX_ZOOM 6 /* a zoom-6 tile covers 64 x 64 regions */

typedef struct srv_http_config {
    const char *bind;         /* default 127.0.0.1 */
    int port;                 /* 0: any free port */
    const char *world;        /* world folder; NULL: the built-in world, or none */
    /* The built-in world (world NULL): the generator's registry (NULL: no
     * world, the map is empty) and seed, the spawn chunk, and the radii (in
     * chunks) of the squares the map shows around it and around players. */
    const struct mc_registry *terrain_registry;
    uint64_t seed;
    int32_t spawn_cx, spawn_cz, map_radius, player_radius;
    /* The chunks the players stand in (loop thread, players_user): at most
     * max (x, z) pairs into xz; returns how many. NULL: none. */
    size_t (*player_chunks)(void *user, int32_t *xz, size_t max);
    int zooms;                /* levels above zoom 0 the page offers, 0..SRV_HTTP_MAX_ZOOM */
    size_t cache_bytes;       /* encoded tiles kept */
    unsigned render_threads;  /* tiles rendered at once */
    unsigned max_connections;
    /* Appends the players as a JSON array (loop thread); NULL: none. */
    void (*players_json)(void *user, mc_buf *out);
    void *players_user;
    /* Log lines (loop thread); NULL: stderr. level 0 info, 1 warning. */
    void (*log)(void *user, int level, const char *message);
    void *log_user;
} srv_http_config;

typedef struct srv_http srv_http;

/* Fills a config with the defaults (port 8080 on 127.0.0.1, 4 zooms,
 * 64 MiB cache, 2 render threads, 512 connections, a built-in world shown
 * within 10 chunks of spawn and of each player). */
void srv_http_config_defaults(srv_http_config *cfg);

/* Starts listening on `loop`. Returns 0, or a libuv error (logged). *port
 * (may be NULL) receives the bound port. */
int srv_http_start(uv_loop_t *loop, const srv_http_config *cfg, srv_http **out, int *port);
/* Stops: closes the listener and every connection; renders in flight
 * finish on their threads and are dropped. The loop must run to let the
 * handles close; srv_http is freed then. */
void srv_http_stop(srv_http *h);

/* ------------------------------------------------------------- parsing */

#define SRV_HTTP_DIMENSIONS 3
extern const char *const srv_http_dimensions[SRV_HTTP_DIMENSIONS]; /* "overworld", "the_nether", "the_end" */

enum { SRV_HTTP_ASSET = 1, SRV_HTTP_DIMENSIONS_JS, SRV_HTTP_PLAYERS, SRV_HTTP_MAP_DATA, SRV_HTTP_TILE };

/* What a request asks for (http_parse.c). */
typedef struct srv_http_request {
    int status;            /* 0: answer `route`; else this 4xx, with `error` as the text */
    const char *error;
    bool head;             /* HEAD: the headers only */
    int route;             /* SRV_HTTP_* */
    const struct map_web_asset *asset; /* SRV_HTTP_ASSET */
    int dimension;         /* MAP_DATA, TILE: index in srv_http_dimensions */
    int32_t zoom, tx, tz;  /* TILE */
} srv_http_request;

/* Parses a request head (its bytes up to and including the blank line;
 * only the request line is read). */
void srv_http_parse(const char *buf, size_t len, int max_zoom, srv_http_request *out);

/* Counters, for tests and the status line. */
typedef struct srv_http_stats {
    uint64_t requests, tiles_rendered, cache_hits, refused, bad_requests;
    size_t connections, cache_bytes, queued;
} srv_http_stats;
void srv_http_get_stats(const srv_http *h, srv_http_stats *out);

#endif
