/*
 * world.c: the world the server serves, and each player's view of it.
 *
 * Columns come from the built-in generator (terrain.c) or from a Java world
 * folder, and are kept in a bounded cache in the world's own registry. What
 * a client receives is the column encoded for its protocol (translated to its
 * registry on the way) and framed; since the compression threshold is the
 * server's, the framed, compressed bytes are the same for every client of a
 * protocol, so they are cached too (bounded by bytes) and serving a chunk a
 * second time costs a memcpy into the socket's queue. That is what makes the
 * cost of serving the kernel's, not the encoder's.
 *
 * A player's view is the square of columns within the view distance of the
 * chunk it stands in. On join and whenever it crosses a chunk border, columns
 * that left the view are unloaded and new ones are queued nearest first (a
 * spiral); 1.20.2+ clients get them in Chunk Batches paced by the rate they
 * report, older ones as fast as the socket takes them (the send queue limit
 * still applies).
 */
#define _GNU_SOURCE /* qsort_r */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcchunk/chunk.h"
#include "server/session.h"
#include "server/terrain.h"

#define COLUMN_CACHE_MAX 8192u

typedef struct col_slot {
    int32_t x, z;
    mc_column *col; /* NULL: empty slot */
    uint64_t last_use;
} col_slot;

typedef struct enc_entry {
    uint32_t protocol;
    int32_t x, z;
    uint8_t *bytes; /* framed packets, ready to send */
    size_t len;
    uint64_t last_use;
    struct enc_entry *next; /* hash chain */
} enc_entry;

struct mc_world {
    mc_terrain *terrain;        /* built-in world */
    const mc_registry *reg;     /* registry of the world's columns */
    int32_t spawn_x, spawn_y, spawn_z;
    col_slot *cols;             /* open addressing, COLUMN_CACHE_MAX * 2 slots */
    size_t ncols;
    uint64_t clock;
    enc_entry **enc;            /* hash buckets */
    size_t enc_buckets;
    size_t enc_bytes, enc_budget;
    uint32_t *scratch_blocks, *scratch_biomes;
};

/* ------------------------------------------------------------ columns */

static size_t col_hash(int32_t x, int32_t z)
{
    uint64_t h = (uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)z * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 29));
}

/* The column at (cx, cz), from the cache or made now; NULL when the world
 * has none there (or memory ran out). */
static mc_column *world_column(mc_world *w, int32_t cx, int32_t cz)
{
    size_t cap = COLUMN_CACHE_MAX * 2, i = col_hash(cx, cz) & (cap - 1);
    while (w->cols[i].col) {
        if (w->cols[i].x == cx && w->cols[i].z == cz) {
            w->cols[i].last_use = ++w->clock;
            return w->cols[i].col;
        }
        i = (i + 1) & (cap - 1);
    }
    if (w->ncols >= COLUMN_CACHE_MAX) {
        /* Evict the least recently used half; rehash the rest. */
        col_slot *old = w->cols;
        uint64_t *uses = malloc(w->ncols * sizeof *uses);
        size_t k = 0;
        for (size_t j = 0; j < cap; j++)
            if (old[j].col)
                uses[k++] = old[j].last_use;
        uint64_t cut = 0;
        for (size_t j = 0; j < k; j++) /* the mean stamp: drops roughly the older half */
            cut += uses[j] / k;
        free(uses);
        w->cols = calloc(cap, sizeof *w->cols);
        w->ncols = 0;
        for (size_t j = 0; j < cap; j++) {
            if (!old[j].col)
                continue;
            if (old[j].last_use < cut) {
                mc_column_free(old[j].col);
                continue;
            }
            size_t p = col_hash(old[j].x, old[j].z) & (cap - 1);
            while (w->cols[p].col)
                p = (p + 1) & (cap - 1);
            w->cols[p] = old[j];
            w->ncols++;
        }
        free(old);
        return world_column(w, cx, cz);
    }
    mc_column *col = w->terrain ? mc_terrain_column(w->terrain, cx, cz, w->scratch_blocks, w->scratch_biomes) : NULL;
    if (!col)
        return NULL;
    w->cols[i].x = cx;
    w->cols[i].z = cz;
    w->cols[i].col = col;
    w->cols[i].last_use = ++w->clock;
    w->ncols++;
    return col;
}

/* ------------------------------------------------------------ lifecycle */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mc_world_open(mc_server *srv)
{
    mc_world *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    srv->world = w;
    w->cols = calloc(COLUMN_CACHE_MAX * 2, sizeof *w->cols);
    w->enc_buckets = 4096;
    w->enc = calloc(w->enc_buckets, sizeof *w->enc);
    w->enc_budget = srv->cfg->cache_bytes;
    if (!w->cols || !w->enc)
        return -1;
    const char *dir = srv->cfg->world;
    if (!dir) {
        w->reg = mc_registry_find("26.1");
        w->terrain = w->reg ? mc_terrain_new(w->reg, srv->cfg->seed) : NULL;
        w->scratch_blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
        w->scratch_biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
        if (!w->terrain || !w->scratch_blocks || !w->scratch_biomes) {
            mc_srv_log(srv, MC_LOG_ERROR, "cannot set up the built-in world");
            return -1;
        }
        mc_terrain_find_spawn(w->terrain, &w->spawn_x, &w->spawn_y, &w->spawn_z);
        /* Generate the spawn area now, so that the first player does not wait for it. */
        uint64_t t0 = uv_hrtime();
        int vd = srv->cfg->view_distance, n = 0;
        for (int dz = -vd; dz <= vd; dz++)
            for (int dx = -vd; dx <= vd; dx++)
                n += world_column(w, (w->spawn_x >> 4) + dx, (w->spawn_z >> 4) + dz) != NULL;
        mc_srv_log(srv, MC_LOG_INFO, "world: built-in (seed %llu), spawn %d %d %d; %d columns generated in %.0f ms",
                   (unsigned long long)srv->cfg->seed, w->spawn_x, w->spawn_y, w->spawn_z, n,
                   (double)(uv_hrtime() - t0) / 1e6);
        return 0;
    }
    if (!is_dir(dir)) {
        mc_srv_log(srv, MC_LOG_ERROR, "world folder '%s' does not exist", dir);
        return -1;
    }
    mc_srv_log(srv, MC_LOG_ERROR, "serving a world folder needs the Anvil chunk reader, not in this build yet");
    return -1;
}

void mc_world_close(mc_server *srv)
{
    mc_world *w = srv->world;
    if (!w)
        return;
    if (w->cols)
        for (size_t i = 0; i < COLUMN_CACHE_MAX * 2; i++)
            mc_column_free(w->cols[i].col);
    free(w->cols);
    if (w->enc)
        for (size_t b = 0; b < w->enc_buckets; b++)
            for (enc_entry *e = w->enc[b], *n; e; e = n) {
                n = e->next;
                free(e->bytes);
                free(e);
            }
    free(w->enc);
    mc_terrain_free(w->terrain);
    free(w->scratch_blocks);
    free(w->scratch_biomes);
    free(w);
    srv->world = NULL;
}

void mc_world_spawn(mc_server *srv, int32_t *x, int32_t *y, int32_t *z)
{
    mc_world *w = srv->world;
    *x = w->spawn_x;
    *y = w->spawn_y;
    *z = w->spawn_z;
}

size_t mc_world_cached_columns(const mc_server *srv)
{
    return srv->world ? srv->world->ncols : 0;
}

mc_column *mc_world_column(mc_server *srv, int32_t cx, int32_t cz)
{
    return world_column(srv->world, cx, cz);
}

/* ------------------------------------------------------- encoded cache */

static size_t enc_bucket(const mc_world *w, uint32_t protocol, int32_t x, int32_t z)
{
    return (col_hash(x, z) ^ protocol * 0x2545F491u) & (w->enc_buckets - 1);
}

/* Drops the least recently used entries until `need` more bytes fit. */
static void enc_make_room(mc_world *w, size_t need)
{
    while (w->enc_bytes + need > w->enc_budget && w->enc_bytes > 0) {
        enc_entry **victim = NULL;
        uint64_t oldest = UINT64_MAX;
        /* A sampled scan keeps eviction cheap: look at a window of buckets. */
        size_t start = (size_t)(w->clock * 2654435761u) & (w->enc_buckets - 1);
        for (size_t k = 0; k < 256; k++) {
            size_t b = (start + k) & (w->enc_buckets - 1);
            for (enc_entry **pe = &w->enc[b]; *pe; pe = &(*pe)->next)
                if ((*pe)->last_use < oldest) {
                    oldest = (*pe)->last_use;
                    victim = pe;
                }
        }
        if (!victim) { /* window was empty: full scan */
            for (size_t b = 0; b < w->enc_buckets; b++)
                for (enc_entry **pe = &w->enc[b]; *pe; pe = &(*pe)->next)
                    if ((*pe)->last_use < oldest) {
                        oldest = (*pe)->last_use;
                        victim = pe;
                    }
        }
        if (!victim)
            return;
        enc_entry *e = *victim;
        *victim = e->next;
        w->enc_bytes -= e->len;
        free(e->bytes);
        free(e);
    }
}

/* The framed packets that carry column (cx, cz) to clients of c's protocol
 * (Chunk Data, plus Update Light for 1.14-1.17), from the cache or encoded
 * now. *len 0 when the world has no column there. */
static bool encoded_column(mc_conn *c, int32_t cx, int32_t cz, const uint8_t **bytes, size_t *len)
{
    mc_server *srv = c->srv;
    mc_world *w = srv->world;
    size_t b = enc_bucket(w, c->protocol, cx, cz);
    for (enc_entry *e = w->enc[b]; e; e = e->next)
        if (e->protocol == c->protocol && e->x == cx && e->z == cz) {
            e->last_use = ++w->clock;
            *bytes = e->bytes;
            *len = e->len;
            return true;
        }
    mc_column *col = world_column(w, cx, cz);
    *bytes = NULL;
    *len = 0;
    if (!col)
        return true;
    mc_buf chunk, light, framed;
    mc_buf_init(&chunk, NULL);
    mc_buf_init(&light, NULL);
    mc_buf_init(&framed, NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status st = mc_server_encode_column(col, c->protocol, &chunk, &light, &err);
    if (st == MC_OK)
        st = mc_java_frame_write(&framed, chunk.data, chunk.len, c->threshold, c->z, &err);
    if (st == MC_OK && light.len)
        st = mc_java_frame_write(&framed, light.data, light.len, c->threshold, c->z, &err);
    mc_buf_free(&chunk);
    mc_buf_free(&light);
    if (st != MC_OK || !mc_buf_ok(&framed)) {
        mc_srv_log(srv, MC_LOG_ERROR, "cannot encode column %d %d for protocol %u: %s", cx, cz, c->protocol,
                   err.message[0] ? err.message : "out of memory");
        mc_buf_free(&framed);
        return false;
    }
    size_t n;
    uint8_t *data = mc_buf_detach(&framed, &n, NULL);
    /* Compression is the same for every client only if the threshold is. */
    if (c->threshold != srv->cfg->compression_threshold || w->enc_budget < n) {
        mc_conn_send_framed(c, data, n);
        free(data);
        *bytes = NULL;
        *len = SIZE_MAX; /* sent already */
        return true;
    }
    enc_make_room(w, n);
    enc_entry *e = malloc(sizeof *e);
    if (!e) {
        free(data);
        return false;
    }
    e->protocol = c->protocol;
    e->x = cx;
    e->z = cz;
    e->bytes = data;
    e->len = n;
    e->last_use = ++w->clock;
    e->next = w->enc[b];
    w->enc[b] = e;
    w->enc_bytes += n;
    *bytes = data;
    *len = n;
    return true;
}

/* ------------------------------------------------------------- views */

typedef struct view {
    int32_t cx, cz; /* chunk the player stands in */
    int vd;
    uint64_t *loaded; /* set of packed (x, z); 0 = empty slot (key is offset) */
    size_t loaded_cap, loaded_n;
    int32_t *queue; /* (x, z) pairs to send, nearest first */
    size_t qhead, qlen, qcap;
    int batches_in_flight;
    float chunks_per_tick; /* as the client reports (1.20.2+) */
    uint64_t sent_total;
} view;

static uint64_t key_of(int32_t x, int32_t z)
{
    return ((uint64_t)(uint32_t)(x + 0x40000000) << 32) | (uint32_t)(z + 0x40000000);
}

static bool set_has(const view *v, uint64_t k)
{
    if (!v->loaded_cap)
        return false;
    size_t i = (size_t)(k * 0x9E3779B97F4A7C15ULL >> 20) & (v->loaded_cap - 1);
    while (v->loaded[i]) {
        if (v->loaded[i] == k)
            return true;
        i = (i + 1) & (v->loaded_cap - 1);
    }
    return false;
}

static void set_rebuild(view *v, size_t cap);

static bool set_add(view *v, uint64_t k)
{
    if ((v->loaded_n + 1) * 2 > v->loaded_cap)
        set_rebuild(v, v->loaded_cap ? v->loaded_cap * 2 : 256);
    if (!v->loaded)
        return false;
    size_t i = (size_t)(k * 0x9E3779B97F4A7C15ULL >> 20) & (v->loaded_cap - 1);
    while (v->loaded[i]) {
        if (v->loaded[i] == k)
            return false;
        i = (i + 1) & (v->loaded_cap - 1);
    }
    v->loaded[i] = k;
    v->loaded_n++;
    return true;
}

static void set_rebuild(view *v, size_t cap)
{
    uint64_t *old = v->loaded;
    size_t oldcap = v->loaded_cap;
    v->loaded = calloc(cap, sizeof *v->loaded);
    v->loaded_cap = v->loaded ? cap : 0;
    v->loaded_n = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] && v->loaded)
            set_add(v, old[i]);
    free(old);
}

static void send_unload(mc_conn *c, int32_t x, int32_t z)
{
    c->pkt.len = 0;
    mc_error err;
    if (mc_java_encode_unload(x, z, c->protocol, &c->pkt, &err) == MC_OK)
        mc_conn_send(c, &c->pkt);
}

static int cmp_dist(const void *a, const void *b, void *ctx)
{
    const int32_t *pa = a, *pb = b, *center = ctx;
    int64_t da = (int64_t)(pa[0] - center[0]) * (pa[0] - center[0]) + (int64_t)(pa[1] - center[1]) * (pa[1] - center[1]);
    int64_t db = (int64_t)(pb[0] - center[0]) * (pb[0] - center[0]) + (int64_t)(pb[1] - center[1]) * (pb[1] - center[1]);
    return da < db ? -1 : da > db;
}

/* Recomputes the wanted set around (cx, cz): unloads what left, queues what
 * is new, nearest first. */
static void view_recenter(mc_conn *c, view *v, int32_t cx, int32_t cz)
{
    v->cx = cx;
    v->cz = cz;
    int vd = v->vd;
    /* Unload loaded columns now out of range; rebuild the set without them. */
    uint64_t *old = v->loaded;
    size_t oldcap = v->loaded_cap;
    v->loaded = NULL;
    v->loaded_cap = v->loaded_n = 0;
    set_rebuild(v, oldcap ? oldcap : 256);
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i])
            continue;
        int32_t x = (int32_t)(old[i] >> 32) - 0x40000000, z = (int32_t)(uint32_t)old[i] - 0x40000000;
        if (abs(x - cx) > vd || abs(z - cz) > vd)
            send_unload(c, x, z);
        else
            set_add(v, old[i]);
    }
    free(old);
    /* The queue becomes every wanted column not loaded yet. */
    size_t side = (size_t)(2 * vd + 1), need = side * side * 2;
    if (v->qcap < need) {
        int32_t *q = realloc(v->queue, need * sizeof *q);
        if (!q) {
            mc_conn_close(c, "out of memory");
            return;
        }
        v->queue = q;
        v->qcap = need;
    }
    v->qhead = v->qlen = 0;
    for (int32_t dz = -vd; dz <= vd; dz++)
        for (int32_t dx = -vd; dx <= vd; dx++)
            if (!set_has(v, key_of(cx + dx, cz + dz))) {
                v->queue[2 * v->qlen] = cx + dx;
                v->queue[2 * v->qlen + 1] = cz + dz;
                v->qlen++;
            }
    int32_t center[2] = {cx, cz};
    qsort_r(v->queue, v->qlen, 2 * sizeof(int32_t), cmp_dist, center);
    if (c->protocol >= 477 && mc_conn_begin(c, MC_JAVA_PLAY, "update_view_position")) { /* 1.14+ */
        mc_buf_put_varint(&c->pkt, cx);
        mc_buf_put_varint(&c->pkt, cz);
        mc_conn_send(c, &c->pkt);
    }
}

/* Sends up to `max` queued columns; returns how many went out. */
static size_t send_some(mc_conn *c, view *v, size_t max)
{
    size_t sent = 0;
    while (v->qhead < v->qlen && sent < max && !c->closing) {
        int32_t x = v->queue[2 * v->qhead], z = v->queue[2 * v->qhead + 1];
        v->qhead++;
        const uint8_t *bytes;
        size_t len;
        if (!encoded_column(c, x, z, &bytes, &len)) {
            mc_conn_disconnect(c, "Internal error encoding a chunk");
            return sent;
        }
        if (len == 0)
            continue; /* nothing there */
        if (len != SIZE_MAX)
            mc_conn_send_framed(c, bytes, len);
        set_add(v, key_of(x, z));
        sent++;
    }
    v->sent_total += sent;
    return sent;
}

/* 1.20.2+: one Chunk Batch, sized from the client's reported rate. */
static void send_batch(mc_conn *c, view *v)
{
    if (v->qhead >= v->qlen || v->batches_in_flight >= 2)
        return;
    float rate = v->chunks_per_tick > 0 ? v->chunks_per_tick : 32.0f;
    size_t n = (size_t)(rate * 2.0f);
    if (n < 8)
        n = 8;
    if (n > 128)
        n = 128;
    if (!mc_conn_begin(c, MC_JAVA_PLAY, "chunk_batch_start"))
        return;
    mc_conn_send(c, &c->pkt);
    size_t sent = send_some(c, v, n);
    if (!mc_conn_begin(c, MC_JAVA_PLAY, "chunk_batch_finished"))
        return;
    mc_buf_put_varint(&c->pkt, (int32_t)sent);
    mc_conn_send(c, &c->pkt);
    v->batches_in_flight++;
}

static void pump(mc_conn *c, view *v)
{
    if (c->protocol >= 764) {
        while (v->batches_in_flight < 2 && v->qhead < v->qlen && !c->closing)
            send_batch(c, v);
    } else {
        send_some(c, v, SIZE_MAX);
    }
}

void mc_world_send_initial_chunks(mc_conn *c)
{
    view *v = calloc(1, sizeof *v);
    if (!v) {
        mc_conn_close(c, "out of memory");
        return;
    }
    c->view = v;
    v->vd = c->srv->cfg->view_distance;
    int32_t x, y, z;
    mc_world_spawn(c->srv, &x, &y, &z);
    view_recenter(c, v, x >> 4, z >> 4);
    pump(c, v);
}

void mc_world_view_free(mc_conn *c)
{
    view *v = c->view;
    if (!v)
        return;
    free(v->loaded);
    free(v->queue);
    free(v);
    c->view = NULL;
}

uint64_t mc_world_view_sent(const mc_conn *c)
{
    const view *v = c->view;
    return v ? v->sent_total : 0;
}

void mc_world_player_packet(mc_conn *c, const char *name, mc_reader *r)
{
    view *v = c->view;
    if (!v)
        return;
    if (!strcmp(name, "chunk_batch_received")) {
        float rate = mc_read_f32be(r);
        if (mc_reader_ok(r) && rate == rate && rate > 0 && rate < 1e6f) /* not NaN */
            v->chunks_per_tick = rate;
        if (v->batches_in_flight > 0)
            v->batches_in_flight--;
        pump(c, v);
    } else if (!strcmp(name, "position") || !strcmp(name, "position_look")) {
        double x = mc_read_f64be(r); /* every era starts with x, (feet) y, z */
        mc_read_f64be(r);
        double z = mc_read_f64be(r);
        if (!mc_reader_ok(r) || !(fabs(x) < 3.0e7) || !(fabs(z) < 3.0e7))
            return; /* vanilla kicks for this; ignoring is kinder and safe */
        mc_world_player_moved(c, x, z);
    }
}

void mc_world_player_moved(mc_conn *c, double x, double z)
{
    view *v = c->view;
    if (!v)
        return;
    int32_t cx = (int32_t)floor(x) >> 4, cz = (int32_t)floor(z) >> 4;
    if (cx != v->cx || cz != v->cz) {
        view_recenter(c, v, cx, cz);
        pump(c, v);
    }
}
