/*
 * http.c: the live web map's HTTP server (interface and limits in http.h).
 *
 * Requests are read into a fixed 8 KiB buffer per connection, parsed once
 * complete, answered, and the connection closed (Connection: close; the
 * page's few dozen tiles do not need keep-alive). Paths are matched against
 * a fixed list and the tile pattern, character by character: nothing from a
 * request becomes a file name, so there is nothing to traverse.
 *
 * Tiles: zoom 0 is one region (map_render_region), zoom k the 2x2 average
 * of four tiles of zoom k-1. A tile's validity stamp hashes the mtime and
 * size of every region file it reads (its regions, and the row north and
 * column west of them for the hillshade); the region list of each dimension
 * is re-listed at most every 2 s, when asked for. Encoded tiles live in an
 * LRU cache bounded in bytes, shared with the render threads under a mutex
 * (a zoom-k render takes its children from it). Renders run in libuv's
 * thread pool, at most render_threads at once; requests for a tile being
 * rendered wait for that render; a tile over no region file is the shared
 * empty tile, answered at once.
 *
 * The built-in world has no files: a "snapshot" of it is the list of
 * squares of chunks the map shows (around spawn and each player, http.h),
 * taken again when the players have moved, and a tile's stamp hashes those
 * squares clipped to the chunks the tile reads, so a tile is rendered again
 * only when the chunks it shows change. Its columns are made by the
 * server's generator (terrain.c): one per render thread at a time, kept in
 * a small pool, since a generator keeps the columns it made last to light
 * their neighbours and is used by one thread at a time.
 */
#include "server/http.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "map/map_tiles.h"
#include "server/terrain.h"

#define REQUEST_MAX 8192
#define REQUEST_TIMEOUT_MS 10000
#define RENDER_QUEUE_MAX 64
#define RESCAN_MS 2000
#define CACHE_BUCKETS 4096
#define MAX_AREAS 1025 /* the spawn's square and 1,024 players' */

#define NDIM SRV_HTTP_DIMENSIONS
#define dimensions srv_http_dimensions

/* --------------------------------------------------------------- blobs */

/* A response body shared by the cache and the writes that send it. */
typedef struct blob {
    atomic_int refs;
    size_t len;
    uint8_t data[];
} blob;

static blob *blob_new(const void *data, size_t len)
{
    blob *b = malloc(sizeof *b + len);
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->len = len;
    memcpy(b->data, data, len);
    return b;
}

static blob *blob_ref(blob *b)
{
    atomic_fetch_add(&b->refs, 1);
    return b;
}

static void blob_unref(blob *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1)
        free(b);
}

/* ---------------------------------------------------------------- cache */

typedef struct cache_entry {
    uint64_t key, stamp;
    blob *png;
    struct cache_entry *next_in_bucket, *older, *newer;
} cache_entry;

typedef struct tile_cache {
    uv_mutex_t lock;
    cache_entry *buckets[CACHE_BUCKETS];
    cache_entry *newest, *oldest;
    size_t bytes, limit;
} tile_cache;

static size_t bucket_of(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) & (CACHE_BUCKETS - 1);
}

static void lru_unlink(tile_cache *c, cache_entry *e)
{
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    e->older = e->newer = NULL;
}

static void lru_push(tile_cache *c, cache_entry *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest)
        c->newest->newer = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

static void cache_remove(tile_cache *c, cache_entry *e)
{
    cache_entry **p = &c->buckets[bucket_of(e->key)];
    while (*p != e)
        p = &(*p)->next_in_bucket;
    *p = e->next_in_bucket;
    lru_unlink(c, e);
    c->bytes -= e->png->len + sizeof *e;
    blob_unref(e->png);
    free(e);
}

/* The cached PNG of `key` at `stamp` (a new reference), or NULL. */
static blob *cache_get(tile_cache *c, uint64_t key, uint64_t stamp)
{
    uv_mutex_lock(&c->lock);
    blob *found = NULL;
    for (cache_entry *e = c->buckets[bucket_of(key)]; e; e = e->next_in_bucket)
        if (e->key == key) {
            if (e->stamp == stamp) {
                lru_unlink(c, e);
                lru_push(c, e);
                found = blob_ref(e->png);
            } else {
                cache_remove(c, e); /* the world changed under it */
            }
            break;
        }
    uv_mutex_unlock(&c->lock);
    return found;
}

static void cache_put(tile_cache *c, uint64_t key, uint64_t stamp, blob *png)
{
    uv_mutex_lock(&c->lock);
    for (cache_entry *e = c->buckets[bucket_of(key)]; e; e = e->next_in_bucket)
        if (e->key == key) {
            cache_remove(c, e);
            break;
        }
    cache_entry *e = png->len + sizeof *e <= c->limit ? calloc(1, sizeof *e) : NULL;
    if (e) {
        e->key = key;
        e->stamp = stamp;
        e->png = blob_ref(png);
        e->next_in_bucket = c->buckets[bucket_of(key)];
        c->buckets[bucket_of(key)] = e;
        lru_push(c, e);
        c->bytes += png->len + sizeof *e;
        while (c->bytes > c->limit && c->oldest)
            cache_remove(c, c->oldest);
    }
    uv_mutex_unlock(&c->lock);
}

/* ---------------------------------------------------------------- world */

/* One listing of a dimension's region files, or the squares of the built-in
 * world shown, shared with the renders that use it (the next listing
 * replaces it; the last user frees it). */
typedef struct world_snap {
    atomic_int refs;
    map_world *world;  /* a folder's dimension; NULL: the built-in world */
    int32_t bounds[4]; /* blocks, inclusive; all 0 when empty */
    bool has_bounds;
    size_t nareas;     /* built-in world: squares of chunks, x0 z0 x1 z1 inclusive */
    int32_t areas[][4];
} world_snap;

static void snap_unref(world_snap *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        map_world_free(s->world);
        free(s);
    }
}

/* A generator of the built-in world and its scratch, for one render. */
typedef struct terrain_slot {
    srv_terrain *terrain;
    uint32_t *blocks, *biomes;
    const world_snap *snap; /* the render's */
    struct terrain_slot *next;
} terrain_slot;

static void terrain_slot_free(terrain_slot *t)
{
    if (!t)
        return;
    srv_terrain_free(t->terrain);
    free(t->blocks);
    free(t->biomes);
    free(t);
}

/* ------------------------------------------------------------- requests */

typedef struct http_conn http_conn;

typedef struct render_job {
    uv_work_t work;
    struct srv_http *h;
    world_snap *snap;
    uint64_t key, stamp;
    int zoom;
    int32_t tx, tz;
    blob *png;        /* the result */
    http_conn **waiters;
    size_t nwaiters, cap_waiters;
    bool started;
    struct render_job *next; /* queue / in flight list */
} render_job;

struct http_conn {
    uv_tcp_t tcp;
    struct srv_http *h;
    char buf[REQUEST_MAX];
    size_t len;
    uint64_t started_ms;
    bool answered, closing, head;
    render_job *waiting;
    http_conn *prev, *next;
};

typedef struct write_req {
    uv_write_t req;
    blob *body;
    char head[512];
} write_req;

struct srv_http {
    uv_loop_t *loop;
    srv_http_config cfg;
    uv_tcp_t listener;
    uv_timer_t timer;
    bool stopping;
    int open_handles;
    http_conn *conns;
    size_t nconns;
    tile_cache cache;
    world_snap *snaps[NDIM];
    uint64_t scanned_ms[NDIM];
    render_job *queue, *running; /* waiting to start; started */
    terrain_slot *idle_terrains; /* under cache.lock */
    int32_t player_xz[2 * (MAX_AREAS - 1)]; /* the players' chunks, asked for */
    size_t queued, in_flight;
    blob *empty_tile;
    srv_http_stats stats;
};

static void say(srv_http *h, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(srv_http *h, int level, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (h->cfg.log)
        h->cfg.log(h->cfg.log_user, level, line);
    else
        fprintf(stderr, "[http %s] %s\n", level ? "WARN" : "INFO", line);
}

void srv_http_config_defaults(srv_http_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind = "127.0.0.1";
    cfg->port = 8080;
    cfg->zooms = 4;
    cfg->cache_bytes = (size_t)64 << 20;
    cfg->render_threads = 2;
    cfg->max_connections = 512;
    cfg->map_radius = 10;
    cfg->player_radius = 10;
}

static void on_closed(uv_handle_t *handle);

/* Frees h once stopped and nothing refers to it: no handle open, no render
 * in flight (a render's end comes back to the loop and reads h). */
static void free_when_idle(srv_http *h)
{
    if (!h->stopping || h->open_handles || h->in_flight)
        return;
    while (h->cache.oldest) /* renders that ended after the stop cached their tiles */
        cache_remove(&h->cache, h->cache.oldest);
    uv_mutex_destroy(&h->cache.lock);
    while (h->idle_terrains) {
        terrain_slot *t = h->idle_terrains;
        h->idle_terrains = t->next;
        terrain_slot_free(t);
    }
    blob_unref(h->empty_tile);
    free(h);
}

static void conn_close(http_conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    srv_http *h = c->h;
    if (c->waiting) { /* leave the render's waiters */
        render_job *j = c->waiting;
        for (size_t i = 0; i < j->nwaiters; i++)
            if (j->waiters[i] == c)
                j->waiters[i] = NULL;
        c->waiting = NULL;
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        h->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    h->nconns--;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void on_closed(uv_handle_t *handle)
{
    http_conn *c = handle->data;
    srv_http *h = c->h;
    free(c);
    h->open_handles--;
    free_when_idle(h);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status;
    write_req *w = (write_req *)req;
    http_conn *c = req->handle->data;
    blob_unref(w->body);
    free(w);
    conn_close(c);
}

/* Sends a whole response and closes the connection after it. */
static void respond(http_conn *c, int code, const char *type, blob *body, const char *extra)
{
    if (c->answered || c->closing)
        return;
    c->answered = true;
    static const struct { int code; const char *text; } reasons[] = {
        {200, "OK"}, {400, "Bad Request"}, {404, "Not Found"}, {405, "Method Not Allowed"},
        {408, "Request Timeout"}, {414, "URI Too Long"}, {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"}, {500, "Internal Server Error"}};
    const char *reason = "Error";
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (reasons[i].code == code)
            reason = reasons[i].text;
    write_req *w = calloc(1, sizeof *w);
    if (!w) {
        conn_close(c);
        return;
    }
    size_t len = body ? body->len : 0;
    int n = snprintf(w->head, sizeof w->head,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-cache\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n%s\r\n",
                     code, reason, type, len, extra ? extra : "");
    w->body = body && !c->head ? blob_ref(body) : NULL;
    uv_buf_t bufs[2] = {uv_buf_init(w->head, (unsigned)n), uv_buf_init(w->body ? (char *)w->body->data : NULL,
                                                                      w->body ? (unsigned)w->body->len : 0)};
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, bufs, w->body ? 2 : 1, on_written) != 0) {
        blob_unref(w->body);
        free(w);
        conn_close(c);
    }
}

static void respond_text(http_conn *c, int code, const char *text)
{
    blob *b = blob_new(text, strlen(text));
    if (code >= 400)
        c->h->stats.bad_requests += code != 429;
    respond(c, code, "text/plain; charset=utf-8", b, NULL);
    blob_unref(b);
}

/* --------------------------------------------------------------- world */

static uint64_t now_ms(srv_http *h)
{
    return uv_now(h->loop);
}

static world_snap *snap_new(size_t nareas)
{
    world_snap *s = calloc(1, sizeof *s + nareas * sizeof s->areas[0]);
    if (s) {
        atomic_init(&s->refs, 1);
        s->nareas = nareas;
    }
    return s;
}

static void snap_replace(srv_http *h, int d, world_snap *s)
{
    snap_unref(h->snaps[d]);
    h->snaps[d] = s;
    h->scanned_ms[d] = now_ms(h);
}

/* The built-in world's squares now: the spawn's, then each player's. */
static world_snap *generated_snap(srv_http *h)
{
    int32_t *xz = h->player_xz, areas[MAX_AREAS][4];
    size_t n = 1, players = h->cfg.player_chunks ? h->cfg.player_chunks(h->cfg.players_user, xz, MAX_AREAS - 1) : 0;
    int32_t r = h->cfg.map_radius, pr = h->cfg.player_radius;
    areas[0][0] = h->cfg.spawn_cx - r, areas[0][1] = h->cfg.spawn_cz - r;
    areas[0][2] = h->cfg.spawn_cx + r, areas[0][3] = h->cfg.spawn_cz + r;
    for (size_t i = 0; i < players && i < MAX_AREAS - 1; i++, n++) {
        areas[n][0] = xz[2 * i] - pr, areas[n][1] = xz[2 * i + 1] - pr;
        areas[n][2] = xz[2 * i] + pr, areas[n][3] = xz[2 * i + 1] + pr;
    }
    world_snap *old = h->snaps[0];
    if (old && old->nareas == n && !memcmp(old->areas, areas, n * sizeof areas[0]))
        return old;
    world_snap *s = snap_new(n);
    if (!s)
        return old;
    memcpy(s->areas, areas, n * sizeof areas[0]);
    s->has_bounds = true;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            int32_t b = k < 2 ? areas[i][k] * 16 : areas[i][k] * 16 + 15;
            if (!i || (k < 2 ? b < s->bounds[k] : b > s->bounds[k]))
                s->bounds[k] = b;
        }
    snap_replace(h, 0, s);
    return s;
}

/* The current listing of dimension d (re-listed when older than 2 s); NULL
 * without a world. */
static world_snap *snap_of(srv_http *h, int d)
{
    if (!h->cfg.world)
        return h->cfg.terrain_registry && d == 0 ? generated_snap(h) : NULL;
    if (h->snaps[d] && now_ms(h) - h->scanned_ms[d] < RESCAN_MS)
        return h->snaps[d];
    char err[256];
    map_world *w = map_world_open_folder(h->cfg.world, dimensions[d], err, sizeof err);
    world_snap *s = w ? snap_new(0) : NULL;
    if (!s) {
        map_world_free(w);
        say(h, 1, "cannot list %s of %s: %s", dimensions[d], h->cfg.world, w ? "out of memory" : err);
        return h->snaps[d];
    }
    s->world = w;
    int32_t c[4];
    if ((s->has_bounds = map_world_chunk_bounds(w, &c[0], &c[1], &c[2], &c[3]))) {
        s->bounds[0] = c[0] * 16, s->bounds[1] = c[1] * 16, s->bounds[2] = c[2] * 16 + 15, s->bounds[3] = c[3] * 16 + 15;
    }
    snap_replace(h, d, s);
    return s;
}

static uint64_t tile_key(int d, int zoom, int32_t tx, int32_t tz)
{
    return (uint64_t)d << 60 | (uint64_t)zoom << 56 | (uint64_t)(uint32_t)(tx + (1 << 27)) << 28 |
           (uint64_t)(uint32_t)(tz + (1 << 27));
}

static uint64_t stamp_mix(uint64_t stamp, uint64_t v)
{
    return (stamp ^ v) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
}

/* The built-in world's stamp: the squares clipped to the chunks the tile
 * reads (its own and the row north and column west of them). */
static uint64_t generated_stamp(const world_snap *s, int zoom, int32_t tx, int32_t tz)
{
    int32_t side = 32 << zoom, x0 = tx * side, z0 = tz * side, x1 = x0 + side - 1, z1 = z0 + side - 1;
    uint64_t stamp = 0;
    bool own = false;
    for (size_t i = 0; i < s->nareas; i++) {
        const int32_t *a = s->areas[i];
        int32_t cx0 = a[0] > x0 - 1 ? a[0] : x0 - 1, cz0 = a[1] > z0 - 1 ? a[1] : z0 - 1;
        int32_t cx1 = a[2] < x1 ? a[2] : x1, cz1 = a[3] < z1 ? a[3] : z1;
        if (cx0 > cx1 || cz0 > cz1)
            continue;
        own |= cx1 >= x0 && cz1 >= z0;
        stamp = stamp_mix(stamp, (uint64_t)(uint32_t)cx0 << 32 | (uint32_t)cz0);
        stamp = stamp_mix(stamp, (uint64_t)(uint32_t)cx1 << 32 | (uint32_t)cz1);
    }
    return own ? (stamp ? stamp : 1) : 0;
}

/* A hash of what a tile shows: of the files it reads (a world folder); 0
 * when it shows nothing. */
static uint64_t tile_stamp(const world_snap *s, int zoom, int32_t tx, int32_t tz)
{
    const map_world *w = s->world;
    if (!w)
        return generated_stamp(s, zoom, tx, tz);
    int32_t span = 1 << zoom, x0 = tx * span, z0 = tz * span;
    uint64_t stamp = 0;
    bool own = false;
    for (int32_t rz = z0 - 1; rz < z0 + span; rz++)
        for (int32_t rx = x0 - 1; rx < x0 + span; rx++) {
            const map_region_file *f = map_world_region(w, rx, rz);
            if (!f)
                continue;
            own |= rx >= x0 && rz >= z0;
            uint64_t v = (uint64_t)f->mtime_ns ^ (f->size << 17) ^ ((uint64_t)(uint32_t)rx << 32 | (uint32_t)rz);
            stamp = stamp_mix(stamp, v);
        }
    return own ? (stamp ? stamp : 1) : 0;
}

/* ---------------------------------------------------------------- render */

/* The RGBA of a tile (worker thread): zoom 0 rendered, above from the four
 * children (cached PNGs when valid, else rendered and cached). */
static bool tile_rgba(srv_http *h, const world_snap *w, map_reader *reader, int d, int zoom, int32_t tx, int32_t tz,
                      uint8_t *out)
{
    if (zoom == 0)
        return map_render_region(reader, tx, tz, out, NULL);
    uint8_t *kids = malloc((size_t)MAP_REGION_BYTES * 4);
    if (!kids)
        return false;
    const uint8_t *quads[4];
    bool ok = true;
    for (int q = 0; q < 4 && ok; q++) {
        int32_t cx = 2 * tx + (q & 1), cz = 2 * tz + (q >> 1);
        uint8_t *buf = kids + (size_t)q * MAP_REGION_BYTES;
        uint64_t stamp = tile_stamp(w, zoom - 1, cx, cz);
        quads[q] = NULL;
        if (!stamp)
            continue; /* nothing there */
        uint64_t key = tile_key(d, zoom - 1, cx, cz);
        blob *png = cache_get(&h->cache, key, stamp);
        if (png && map_png_decode_tile(png->data, png->len, buf)) {
            quads[q] = buf;
        } else if ((ok = tile_rgba(h, w, reader, d, zoom - 1, cx, cz, buf))) {
            quads[q] = buf;
            uint8_t *enc;
            size_t len;
            if (map_png_encode(buf, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS * 4, &enc, &len, NULL, 0)) {
                blob *b = blob_new(enc, len);
                free(enc);
                if (b) {
                    cache_put(&h->cache, key, stamp, b);
                    blob_unref(b);
                }
            }
        }
        blob_unref(png);
    }
    if (ok)
        map_downsample(quads, out);
    free(kids);
    return ok;
}

/* The built-in world's column (cx, cz) when the render's squares hold it
 * (a render thread's map_make_column). */
static mc_column *make_column(void *user, int32_t cx, int32_t cz)
{
    terrain_slot *t = user;
    for (size_t i = 0; i < t->snap->nareas; i++) {
        const int32_t *a = t->snap->areas[i];
        if (cx >= a[0] && cx <= a[2] && cz >= a[1] && cz <= a[3])
            return srv_terrain_column(t->terrain, cx, cz, t->blocks, t->biomes);
    }
    return NULL;
}

/* A generator from the pool, or a new one (render thread). */
static terrain_slot *take_terrain(srv_http *h)
{
    uv_mutex_lock(&h->cache.lock);
    terrain_slot *t = h->idle_terrains;
    if (t)
        h->idle_terrains = t->next;
    uv_mutex_unlock(&h->cache.lock);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (t) {
        t->terrain = srv_terrain_new(h->cfg.terrain_registry, h->cfg.seed);
        t->blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
        t->biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    }
    if (t && (!t->terrain || !t->blocks || !t->biomes)) {
        terrain_slot_free(t);
        t = NULL;
    }
    return t;
}

static void give_back_terrain(srv_http *h, terrain_slot *t)
{
    if (!t)
        return;
    t->snap = NULL;
    uv_mutex_lock(&h->cache.lock);
    t->next = h->idle_terrains;
    h->idle_terrains = t;
    uv_mutex_unlock(&h->cache.lock);
}

static void render_work(uv_work_t *req)
{
    render_job *j = req->data;
    uint8_t *rgba = malloc(MAP_REGION_BYTES);
    terrain_slot *gen = NULL;
    map_reader *reader = NULL;
    if (j->snap->world) {
        reader = map_reader_new(j->snap->world, MAP_MODE_NORMAL);
    } else if ((gen = take_terrain(j->h))) {
        gen->snap = j->snap;
        reader = map_reader_new_columns(make_column, gen, MAP_MODE_NORMAL);
    }
    int d = (int)(j->key >> 60);
    if (rgba && reader && tile_rgba(j->h, j->snap, reader, d, j->zoom, j->tx, j->tz, rgba)) {
        uint8_t *png;
        size_t len;
        if (map_png_encode(rgba, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS * 4, &png, &len, NULL, 0)) {
            j->png = blob_new(png, len);
            free(png);
        }
    }
    map_reader_free(reader);
    give_back_terrain(j->h, gen);
    free(rgba);
}

static void start_renders(srv_http *h);

/* Answers a render's waiters and frees it (it is on no list any more). */
static void finish_job(srv_http *h, render_job *j)
{
    if (j->png && !h->stopping) {
        h->stats.tiles_rendered++;
        cache_put(&h->cache, j->key, j->stamp, j->png);
    }
    for (size_t i = 0; i < j->nwaiters; i++) {
        http_conn *c = j->waiters[i];
        if (!c)
            continue;
        c->waiting = NULL;
        if (j->png)
            respond(c, 200, "image/png", j->png, NULL);
        else
            respond_text(c, 500, "the tile could not be rendered\n");
    }
    blob_unref(j->png);
    snap_unref(j->snap);
    free(j->waiters);
    free(j);
}

static void render_done(uv_work_t *req, int status)
{
    (void)status;
    render_job *j = req->data;
    srv_http *h = j->h;
    render_job **p = &h->running;
    while (*p != j)
        p = &(*p)->next;
    *p = j->next;
    h->in_flight--;
    finish_job(h, j);
    if (h->stopping) {
        free_when_idle(h);
        return;
    }
    start_renders(h);
}

static void start_renders(srv_http *h)
{
    while (!h->stopping && h->queue && h->in_flight < h->cfg.render_threads) {
        render_job *j = h->queue;
        h->queue = j->next;
        h->queued--;
        j->work.data = j;
        if (uv_queue_work(h->loop, &j->work, render_work, render_done) != 0) {
            finish_job(h, j); /* no result: its waiters get 500 */
            continue;
        }
        j->started = true;
        j->next = h->running;
        h->running = j;
        h->in_flight++;
    }
}

static bool add_waiter(render_job *j, http_conn *c)
{
    if (j->nwaiters == j->cap_waiters) {
        size_t cap = j->cap_waiters ? j->cap_waiters * 2 : 4;
        http_conn **grown = realloc(j->waiters, cap * sizeof *grown);
        if (!grown)
            return false;
        j->waiters = grown;
        j->cap_waiters = cap;
    }
    j->waiters[j->nwaiters++] = c;
    c->waiting = j;
    return true;
}

static void serve_tile(http_conn *c, int d, int zoom, int32_t tx, int32_t tz)
{
    srv_http *h = c->h;
    world_snap *s = snap_of(h, d);
    uint64_t stamp = s ? tile_stamp(s, zoom, tx, tz) : 0;
    if (!stamp) {
        respond(c, 200, "image/png", h->empty_tile, NULL);
        return;
    }
    uint64_t key = tile_key(d, zoom, tx, tz);
    blob *png = cache_get(&h->cache, key, stamp);
    if (png) {
        h->stats.cache_hits++;
        respond(c, 200, "image/png", png, NULL);
        blob_unref(png);
        return;
    }
    for (int list = 0; list < 2; list++)
        for (render_job *j = list ? h->running : h->queue; j; j = j->next)
            if (j->key == key && j->stamp == stamp) {
                if (!add_waiter(j, c))
                    respond_text(c, 500, "out of memory\n");
                return;
            }
    if (h->queued >= RENDER_QUEUE_MAX) {
        h->stats.refused++;
        respond_text(c, 429, "too many tiles waiting to be rendered; ask again\n");
        return;
    }
    render_job *j = calloc(1, sizeof *j);
    if (!j || !add_waiter(j, c)) {
        free(j);
        respond_text(c, 500, "out of memory\n");
        return;
    }
    j->h = h;
    j->snap = s;
    atomic_fetch_add(&s->refs, 1);
    j->key = key;
    j->stamp = stamp;
    j->zoom = zoom;
    j->tx = tx;
    j->tz = tz;
    render_job **tail = &h->queue; /* first come, first rendered */
    while (*tail)
        tail = &(*tail)->next;
    *tail = j;
    h->queued++;
    start_renders(h);
}

/* ------------------------------------------------------------- routing */

static void serve_data_js(http_conn *c, int d)
{
    srv_http *h = c->h;
    world_snap *s = snap_of(h, d);
    int32_t bounds[4] = {0, 0, 0, 0};
    if (s && s->has_bounds)
        memcpy(bounds, s->bounds, sizeof bounds);
    char *js = map_web_data_js(dimensions[d], h->cfg.zooms, true, bounds, NULL, 0);
    blob *b = js ? blob_new(js, strlen(js)) : NULL;
    free(js);
    if (!b) {
        respond_text(c, 500, "out of memory\n");
        return;
    }
    respond(c, 200, "text/javascript; charset=utf-8", b, NULL);
    blob_unref(b);
}

static void serve_players(http_conn *c)
{
    mc_buf out;
    mc_buf_init(&out, NULL);
    if (c->h->cfg.players_json)
        c->h->cfg.players_json(c->h->cfg.players_user, &out);
    else
        mc_buf_put(&out, "[]", 2);
    blob *b = mc_buf_ok(&out) ? blob_new(out.data, out.len) : NULL;
    mc_buf_free(&out);
    if (!b) {
        respond_text(c, 500, "out of memory\n");
        return;
    }
    respond(c, 200, "application/json", b, NULL);
    blob_unref(b);
}

static void serve_static(http_conn *c, const char *type, const char *data, size_t len)
{
    blob *b = blob_new(data, len);
    if (!b) {
        respond_text(c, 500, "out of memory\n");
        return;
    }
    respond(c, 200, type, b, NULL);
    blob_unref(b);
}

/* A complete request head is in c->buf. */
static void handle_request(http_conn *c)
{
    srv_http_request r;
    srv_http_parse(c->buf, c->len, c->h->cfg.zooms, &r);
    c->h->stats.requests++;
    c->head = r.head;
    if (r.status == 405) {
        c->h->stats.bad_requests++;
        respond(c, 405, "text/plain; charset=utf-8", NULL, "Allow: GET, HEAD\r\n");
        return;
    }
    if (r.status) {
        respond_text(c, r.status, r.error);
        return;
    }
    static const char dims_js[] = "window.MCCHUNK_DIMENSIONS = [\"overworld\", \"the_nether\", \"the_end\"];\n";
    switch (r.route) {
    case SRV_HTTP_ASSET: serve_static(c, r.asset->content_type, r.asset->data, r.asset->len); break;
    case SRV_HTTP_DIMENSIONS_JS: serve_static(c, "text/javascript; charset=utf-8", dims_js, sizeof dims_js - 1); break;
    case SRV_HTTP_PLAYERS: serve_players(c); break;
    case SRV_HTTP_MAP_DATA: serve_data_js(c, r.dimension); break;
    default: serve_tile(c, r.dimension, r.zoom, r.tx, r.tz); break;
    }
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    http_conn *c = handle->data;
    buf->base = c->buf + c->len;
    buf->len = sizeof c->buf - c->len;
}

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    http_conn *c = stream->data;
    if (n < 0) {
        uv_read_stop(stream);
        if (!c->waiting)
            conn_close(c);
        return;
    }
    if (c->answered || c->waiting)
        return; /* one request per connection: the rest is ignored */
    c->len += (size_t)n;
    size_t from = c->len > (size_t)n + 3 ? c->len - (size_t)n - 3 : 0;
    for (size_t i = from; i + 3 < c->len; i++)
        if (!memcmp(c->buf + i, "\r\n\r\n", 4)) {
            uv_read_stop(stream);
            handle_request(c);
            return;
        }
    if (c->len == sizeof c->buf) {
        uv_read_stop(stream);
        respond_text(c, 431, "request head over 8 KiB\n");
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    srv_http *h = server->data;
    if (status < 0 || h->stopping)
        return;
    http_conn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->h = h;
    c->tcp.data = c;
    if (uv_tcp_init(h->loop, &c->tcp) != 0) {
        free(c);
        return;
    }
    h->open_handles++;
    c->next = h->conns;
    if (h->conns)
        h->conns->prev = c;
    h->conns = c;
    h->nconns++;
    c->started_ms = now_ms(h);
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        conn_close(c);
        return;
    }
    if (h->nconns > h->cfg.max_connections) {
        h->stats.refused++;
        respond_text(c, 429, "too many connections\n");
        return;
    }
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) != 0)
        conn_close(c);
}

/* Closes connections that have not sent a whole request in time. */
static void on_tick(uv_timer_t *t)
{
    srv_http *h = t->data;
    uint64_t now = now_ms(h);
    for (http_conn *c = h->conns, *next; c; c = next) {
        next = c->next;
        if (!c->answered && !c->waiting && now - c->started_ms > REQUEST_TIMEOUT_MS) {
            uv_read_stop((uv_stream_t *)&c->tcp);
            respond_text(c, 408, "request not received in time\n");
        }
    }
}

static void on_handle_closed(uv_handle_t *handle)
{
    srv_http *h = handle->data;
    h->open_handles--;
    free_when_idle(h);
}

int srv_http_start(uv_loop_t *loop, const srv_http_config *cfg, srv_http **out, int *port)
{
    srv_http *h = calloc(1, sizeof *h);
    if (!h)
        return UV_ENOMEM;
    h->loop = loop;
    h->cfg = *cfg;
    if (h->cfg.zooms < 0 || h->cfg.zooms > SRV_HTTP_MAX_ZOOM)
        h->cfg.zooms = 4;
    if (!h->cfg.render_threads)
        h->cfg.render_threads = 1;
    if (!h->cfg.max_connections)
        h->cfg.max_connections = 512;
    h->cache.limit = cfg->cache_bytes;
    uint8_t *clear = calloc(1, MAP_REGION_BYTES), *png = NULL;
    size_t len = 0;
    int rc = uv_mutex_init(&h->cache.lock);
    if (rc || !clear || !map_png_encode(clear, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS, MAP_REGION_BLOCKS * 4, &png, &len,
                                        NULL, 0) || !(h->empty_tile = blob_new(png, len))) {
        free(clear);
        free(png);
        free(h);
        return rc ? rc : UV_ENOMEM;
    }
    free(clear);
    free(png);
    struct sockaddr_storage addr;
    rc = uv_ip4_addr(cfg->bind, cfg->port, (struct sockaddr_in *)&addr);
    if (rc)
        rc = uv_ip6_addr(cfg->bind, cfg->port, (struct sockaddr_in6 *)&addr);
    if (rc) {
        say(h, 1, "bad --http-bind address '%s'", cfg->bind);
    } else {
        uv_tcp_init(loop, &h->listener);
        h->listener.data = h;
        h->open_handles++;
        rc = uv_tcp_bind(&h->listener, (struct sockaddr *)&addr, 0);
        if (!rc)
            rc = uv_listen((uv_stream_t *)&h->listener, 511, on_connection);
        if (rc)
            say(h, 1, "cannot listen on %s:%d for the web map: %s", cfg->bind, cfg->port, uv_strerror(rc));
    }
    if (rc) {
        h->stopping = true;
        if (h->open_handles)
            uv_close((uv_handle_t *)&h->listener, on_handle_closed);
        else
            free_when_idle(h);
        return rc;
    }
    uv_timer_init(loop, &h->timer);
    h->timer.data = h;
    h->open_handles++;
    uv_timer_start(&h->timer, on_tick, 1000, 1000);
    uv_unref((uv_handle_t *)&h->timer);
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&h->listener, (struct sockaddr *)&bound, &blen);
    int p = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                              : ((struct sockaddr_in *)&bound)->sin_port);
    if (port)
        *port = p;
    if (cfg->world || !cfg->terrain_registry)
        say(h, 0, "web map on http://%s:%d/ (%s)", cfg->bind, p, cfg->world ? cfg->world : "no world: empty map");
    else
        say(h, 0, "web map on http://%s:%d/ (the built-in world within %d chunks of spawn and %d of each player)",
            cfg->bind, p, (int)cfg->map_radius, (int)cfg->player_radius);
    *out = h;
    return 0;
}

void srv_http_stop(srv_http *h)
{
    if (!h || h->stopping)
        return;
    h->stopping = true;
    for (render_job *j = h->queue, *next; j; j = next) { /* never started */
        next = j->next;
        snap_unref(j->snap);
        free(j->waiters);
        free(j);
    }
    h->queue = NULL;
    for (render_job *j = h->running; j; j = j->next) /* they finish on their own */
        for (size_t i = 0; i < j->nwaiters; i++)
            j->waiters[i] = NULL;
    while (h->conns) {
        http_conn *c = h->conns;
        c->waiting = NULL;
        conn_close(c);
    }
    for (int d = 0; d < NDIM; d++) {
        snap_unref(h->snaps[d]);
        h->snaps[d] = NULL;
    }
    uv_mutex_lock(&h->cache.lock);
    while (h->cache.oldest)
        cache_remove(&h->cache, h->cache.oldest);
    uv_mutex_unlock(&h->cache.lock);
    uv_close((uv_handle_t *)&h->listener, on_handle_closed);
    uv_close((uv_handle_t *)&h->timer, on_handle_closed);
}

void srv_http_get_stats(const srv_http *h, srv_http_stats *out)
{
    *out = h->stats;
    out->connections = h->nconns;
    out->queued = h->queued + h->in_flight;
    out->cache_bytes = h->cache.bytes;
}
