/*
 * chunks.c: the world as Bedrock clients get it.
 *
 * A variant is what every client of one protocol, id mode (hashed or
 * index runtime ids) and blob-cache setting is sent. For a column, a
 * variant makes everything at once, the first time any of its clients
 * needs the column: the world's column converted to Bedrock runtime ids
 * (the library's Java column -> Bedrock column), then through the library's
 * request engine the skeleton LevelChunk (1.18+; the highest subchunk to
 * ask for, the biomes) and the answer to a request for each of the
 * column's subchunks (result, payload or blob id, heightmap), each packet
 * compressed once into a batch body. Before 1.18 the one packet is a full
 * LevelChunk. The bodies stay in the world's cache under the same budget
 * as Java's packets, so serving a subchunk to the next client is a lookup
 * and a copy into RakNet; with encryption each client seals its copy.
 *
 * Every subchunk is answered as its own SubChunk packet whose center is the
 * subchunk itself (offset 0,0,0): the packets are then the same for every
 * client, whatever center and grouping its requests had. Answers that need
 * no blocks (another dimension, a column the world lacks, a y outside the
 * column) are made by the engine on the spot and not kept.
 *
 * A client's view (the columns within its radius) is sent nearest first;
 * its SubChunkRequests are queued as absolute positions and answered in
 * order. Both go out only while RakNet's unacknowledged bytes for the
 * client are under SRV_BEDROCK_CHUNK_WINDOW (RakNet calls back when they
 * fall), and only within the fair share of column work the world gives
 * each client per turn of the loop, shared with the Java players.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/chunk.h"
#include "mcchunk/translate.h"
#include "server/bedrock/chunks.h"

/* The overworld's subchunks: -4..19 from 1.18, 0..15 before. */
#define MAX_SUBCHUNKS 24
/* Levels of spawn readiness: player_spawn once every column this close
 * (or the whole radius, when smaller) has been sent. */
#define SPAWN_RADIUS 4
/* The engine's own blob cache: it only has to hold one column's blobs
 * until they are copied out (the world's cache keeps them). */
#define ENGINE_BLOBS ((size_t)512 << 10)
/* Blob locations remembered for ClientCacheBlobStatus (a table slot is
 * 32 bytes: 1 MiB). */
#define BLOB_SLOTS 32768u
/* LevelChunks one client sends per turn of the fair share. */
#define COLUMNS_PER_TURN 8u

struct srv_bvariant {
    srv_server *srv;
    const srv_bedrock_version *v;
    int protocol;
    bool hashed, cache, full;
    uint32_t kind;             /* its entries in the world's cache */
    const mc_registry *reg;    /* the Bedrock registry of the version */
    int32_t min_y;
    uint32_t count;
    mc_bedrock_engine *engine;
    const mc_bedrock_column *current; /* what the engine's source gives now */
    int32_t current_x, current_z;
    mc_bedrock_column range;   /* an empty column of the range: for answers that need no blocks */
    bool have_range;
    struct {
        const mc_registry *from;
        mc_bedrock_ids ids;
    } maps[4];
    unsigned nmaps;
    srv_bcodec codec;          /* the framing its clients' batches have (no cipher) */
};

/* A column as a variant's clients get it: batch bodies, ready to seal. */
typedef struct bcol {
    bool absent;                       /* the world has no column here */
    uint32_t count;                    /* subchunk answers (0 for full LevelChunks) */
    int32_t min_y;
    uint8_t *data;
    size_t data_len;
    uint32_t level_off, level_len;     /* the LevelChunk */
    uint32_t sub_off[MAX_SUBCHUNKS + 1]; /* answer i: [sub_off[i], sub_off[i + 1]) */
    /* blob cache variants: the biome blob and each subchunk's */
    uint64_t biome_id;
    uint32_t biome_off, biome_len;
    uint64_t blob_id[MAX_SUBCHUNKS];
    uint32_t blob_off[MAX_SUBCHUNKS], blob_len[MAX_SUBCHUNKS];
} bcol;

typedef struct blob_slot {
    uint64_t id;
    uint64_t stamp; /* when it was stored (0: empty) */
    uint32_t kind;
    int32_t x, z;
} blob_slot;

/* Where blobs are: a table probed over a window of BLOB_WINDOW slots; a
 * new blob takes an empty slot of its window, its own old one, or the
 * window's oldest (the table forgets the least recently announced). */
#define BLOB_WINDOW 8u
struct srv_bblobs {
    uint64_t clock;
    blob_slot slots[BLOB_SLOTS];
};

static uint32_t blob_home(uint64_t id)
{
    return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 40) % BLOB_SLOTS;
}

/* ------------------------------------------------------------ variants */

static mc_status source_get(void *user, int32_t dimension, int32_t cx, int32_t cz, const mc_bedrock_column **col)
{
    srv_bvariant *var = user;
    if (!var->current || cx != var->current_x || cz != var->current_z)
        return MC_ERR_NOT_FOUND;
    *col = var->current;
    return MC_OK;
}

static void variant_free(srv_bvariant *var);

static srv_bvariant *variant_new(srv_server *srv, const srv_bedrock_version *v, bool hashed, bool cache, uint32_t kind)
{
    const mc_registry *reg = mc_registry_find_bedrock(v->name);
    if (!reg)
        return NULL;
    srv_bvariant *var = calloc(1, sizeof *var);
    if (!var)
        return NULL;
    var->srv = srv;
    var->v = v;
    var->protocol = v->protocol;
    /* hashed ids from 1.19.80, where StartGame can announce them */
    var->hashed = hashed && v->protocol >= MC_BEDROCK_PROTO_1_19_80;
    var->full = v->protocol < MC_BEDROCK_PROTO_1_18_0;
    var->cache = cache && !var->full; /* full LevelChunks go without the cache */
    var->kind = kind;
    var->reg = reg;
    var->min_y = var->full ? 0 : -4;
    var->count = var->full ? 16 : 24;
    var->codec.protocol = v->protocol;
    var->codec.compressing = true;
    var->codec.algorithm_byte = v->protocol >= MC_BEDROCK_PROTO_1_20_60;
    var->codec.threshold = 0; /* chunk data is always worth compressing */
    mc_bedrock_world_source src = {var, source_get, NULL};
    mc_bedrock_engine_options opt = {v->protocol, var->cache, MC_BEDROCK_OVERWORLD, ENGINE_BLOBS};
    var->engine = mc_bedrock_engine_new(&src, &opt, NULL);
    var->have_range = var->engine && mc_bedrock_column_init_range(&var->range, 0, 0, MC_BEDROCK_OVERWORLD, var->min_y,
                                                                    var->count, mc_registry_air(reg), NULL) == MC_OK;
    if (!var->have_range) {
        variant_free(var);
        return NULL;
    }
    if (var->hashed)
        var->range.air = mc_registry_state_hash(reg, mc_registry_air(reg));
    return var;
}

static bool variant_matches(const srv_bvariant *var, const srv_bedrock_version *v, bool hashed, bool cache)
{
    return var->v == v && var->hashed == (hashed && v->protocol >= MC_BEDROCK_PROTO_1_19_80) &&
           var->cache == (cache && v->protocol >= MC_BEDROCK_PROTO_1_18_0);
}

static void variant_free(srv_bvariant *var)
{
    if (!var)
        return;
    mc_bedrock_engine_free(var->engine);
    if (var->have_range)
        mc_bedrock_column_free(&var->range);
    free(var);
}

/* The variant of (protocol, id mode, blob cache), made on first use (its
 * slot is the kind of its entries in the world's cache), or NULL. */
static srv_bvariant *variant_of(srv_bshared *sh, const srv_bedrock_version *v, bool hashed, bool cache)
{
    for (unsigned i = 0; i < sh->nvariants; i++)
        if (variant_matches(sh->variants[i], v, hashed, cache))
            return sh->variants[i];
    if (sh->nvariants == SRV_BEDROCK_MAX_VARIANTS)
        return NULL;
    srv_bvariant *var = variant_new(sh->srv, v, hashed, cache, SRV_WORLD_KIND_OTHER + sh->nvariants);
    if (var)
        sh->variants[sh->nvariants++] = var;
    return var;
}

void srv_bvariants_free(srv_bshared *sh)
{
    for (unsigned i = 0; i < sh->nvariants; i++)
        variant_free(sh->variants[i]);
    sh->nvariants = 0;
}

/* The id mapping from a column's registry to the variant's runtime ids. */
static const mc_bedrock_ids *ids_for(srv_bvariant *var, const mc_registry *from)
{
    for (unsigned i = 0; i < var->nmaps; i++)
        if (var->maps[i].from == from)
            return &var->maps[i].ids;
    unsigned slot = var->nmaps < 4 ? var->nmaps++ : 3; /* worlds mix few registries */
    if (mc_bedrock_ids_init(&var->maps[slot].ids, from, var->reg, var->hashed) != MC_OK) {
        var->maps[slot].from = NULL;
        return NULL;
    }
    var->maps[slot].from = from;
    return &var->maps[slot].ids;
}

/* ------------------------------------------------------- making columns */

static void bcol_free(void *p)
{
    bcol *c = p;
    free(c->data);
    free(c);
}

/* Frames a packet (id varint + body) and compresses it into a batch body
 * appended to data; *off and *len locate it. */
static bool add_body(srv_bvariant *var, srv_bcodec_shared *sh, mc_buf *data, uint32_t id, const mc_buf *body,
                     uint32_t *off, uint32_t *len)
{
    mc_buf pkt, framed;
    mc_buf_init(&pkt, NULL);
    mc_buf_init(&framed, NULL);
    mc_buf_put_uvarint32(&pkt, id);
    mc_buf_put(&pkt, body->data, body->len);
    if (mc_buf_ok(&pkt))
        srv_bpacket_frame(&framed, pkt.data, pkt.len);
    size_t start = data->len;
    bool ok = mc_buf_ok(&framed) && srv_bcodec_body(&var->codec, sh, framed.data, framed.len, true, data);
    mc_buf_free(&pkt);
    mc_buf_free(&framed);
    *off = (uint32_t)start;
    *len = (uint32_t)(data->len - start);
    return ok && mc_buf_ok(data);
}

/* The column's blobs (the bytes the engine hashed and announced). */
static bool add_blobs(bcol *c, const mc_bedrock_column *bc, mc_buf *data, mc_error *err)
{
    mc_buf one;
    mc_buf_init(&one, NULL);
    bool ok = bc->biomes.count == 0 || mc_bedrock_biomes_net_encode(&bc->biomes, &one, err) == MC_OK;
    c->biome_id = mc_bedrock_blob_hash(one.data, one.len);
    c->biome_off = (uint32_t)data->len;
    c->biome_len = (uint32_t)one.len;
    mc_buf_put(data, one.data, one.len);
    for (uint32_t i = 0; ok && i < c->count; i++) {
        one.len = 0;
        ok = mc_bedrock_column_subchunk_payload(bc, i, &one, err) == MC_OK;
        c->blob_id[i] = mc_bedrock_blob_hash(one.data, one.len);
        c->blob_off[i] = (uint32_t)data->len;
        c->blob_len[i] = (uint32_t)one.len;
        mc_buf_put(data, one.data, one.len);
    }
    mc_buf_free(&one);
    return ok && mc_buf_ok(data);
}

/* The request engine's answer for subchunk y of (x, z), as a batch body. */
static bool add_answer(srv_bvariant *var, srv_bcodec_shared *sh, mc_buf *data, int32_t dim, int32_t x, int32_t y,
                       int32_t z, uint32_t *off, uint32_t *len, mc_error *err)
{
    static const uint8_t here[3] = {0, 0, 0};
    mc_bedrock_subchunk_request req = {dim, x, y, z, 1, var->protocol >= MC_BEDROCK_PROTO_1_18_10 ? here : NULL};
    mc_buf body;
    mc_buf_init(&body, NULL);
    bool ok = mc_bedrock_engine_answer_request(var->engine, &req, &body, err) == MC_OK &&
              add_body(var, sh, data, SRV_BPID_SUBCHUNK, &body, off, len);
    mc_buf_free(&body);
    return ok;
}

static bool make_pieces(srv_bvariant *var, srv_bcodec_shared *sh, bcol *c, const mc_bedrock_column *bc,
                        mc_buf *data, mc_error *err)
{
    mc_buf body;
    mc_buf_init(&body, NULL);
    bool ok;
    if (var->full) {
        mc_buf payload;
        mc_buf_init(&payload, NULL);
        uint32_t n = 0;
        ok = mc_bedrock_column_full_payload(bc, var->protocol, &payload, &n, err) == MC_OK;
        mc_bedrock_level_chunk lc;
        memset(&lc, 0, sizeof lc);
        lc.x = bc->x;
        lc.z = bc->z;
        lc.sub_chunk_count = n;
        lc.payload = payload.data;
        lc.payload_len = payload.len;
        ok = ok && mc_bedrock_level_chunk_encode(&lc, var->protocol, &body, err) == MC_OK &&
             add_body(var, sh, data, SRV_BPID_LEVEL_CHUNK, &body, &c->level_off, &c->level_len);
        mc_buf_free(&payload);
        c->count = 0;
    } else {
        var->current = bc;
        var->current_x = bc->x;
        var->current_z = bc->z;
        ok = mc_bedrock_engine_level_chunk(var->engine, bc, &body, err) == MC_OK &&
             add_body(var, sh, data, SRV_BPID_LEVEL_CHUNK, &body, &c->level_off, &c->level_len);
        c->count = bc->count < MAX_SUBCHUNKS ? bc->count : MAX_SUBCHUNKS;
        for (uint32_t i = 0; ok && i < c->count; i++) {
            uint32_t len;
            ok = add_answer(var, sh, data, MC_BEDROCK_OVERWORLD, bc->x, c->min_y + (int32_t)i, bc->z, &c->sub_off[i],
                            &len, err);
            c->sub_off[i + 1] = c->sub_off[i] + len;
        }
        var->current = NULL;
        if (ok && var->cache)
            ok = add_blobs(c, bc, data, err);
    }
    mc_buf_free(&body);
    return ok;
}

/* Remembers where the column's blobs are, for ClientCacheBlobStatus. */
static void index_blobs(struct srv_bblobs *b, const srv_bvariant *var, const bcol *c, int32_t x, int32_t z)
{
    for (int i = -1; i < (int)c->count; i++) {
        uint64_t id = i < 0 ? c->biome_id : c->blob_id[i];
        uint32_t home = blob_home(id);
        blob_slot *pick = NULL;
        for (uint32_t k = 0; k < BLOB_WINDOW; k++) {
            blob_slot *s = &b->slots[(home + k) % BLOB_SLOTS];
            if (!s->stamp || s->id == id) {
                pick = s;
                break;
            }
            if (!pick || s->stamp < pick->stamp)
                pick = s;
        }
        pick->id = id;
        pick->stamp = ++b->clock;
        pick->kind = var->kind;
        pick->x = x;
        pick->z = z;
    }
}

/* Makes the variant's column (x, z) and puts it in the world's cache;
 * NULL without memory or on an encoder failure (logged). */
static bcol *make_column(srv_bshared *sh, srv_bvariant *var, int32_t x, int32_t z)
{
    srv_server *srv = var->srv;
    bcol *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->min_y = var->min_y;
    mc_column *col = srv_world_column(srv, x, z);
    if (!col) {
        c->absent = true;
        srv_world_cache_put(srv, var->kind, x, z, c, sizeof *c, bcol_free);
        return c;
    }
    mc_error err;
    mc_error_clear(&err);
    mc_column *cut = var->full ? mc_column_reshape(col, 0, 16, NULL, &err) : NULL;
    const mc_column *src = var->full ? cut : col;
    const mc_bedrock_ids *ids = src ? ids_for(var, mc_column_registry(src)) : NULL;
    mc_bedrock_column bc;
    bool have = ids && mc_bedrock_column_from_mc_column(&bc, src, MC_BEDROCK_OVERWORLD, ids, NULL, &err) == MC_OK;
    mc_column_free(cut);
    mc_buf data;
    mc_buf_init(&data, NULL);
    bool ok = have && make_pieces(var, &sh->codec, c, &bc, &data, &err);
    if (have)
        mc_bedrock_column_free(&bc);
    if (!ok) {
        srv_log(srv, MC_LOG_ERROR, "bedrock: cannot make column %d %d for %s: %s", x, z, var->v->name,
                err.message[0] ? err.message : "out of memory");
        mc_buf_free(&data);
        free(c);
        return NULL;
    }
    c->data = mc_buf_detach(&data, &c->data_len, NULL);
    if (var->cache)
        index_blobs(sh->blobs, var, c, x, z);
    srv_world_cache_put(srv, var->kind, x, z, c, sizeof *c + c->data_len, bcol_free);
    return c;
}

static srv_server *server_of(const srv_bchunks *ch)
{
    return ch->client->sh->srv;
}

/* The variant's column (x, z): cached, or made now (charged to the turn's
 * work, counted as a column). */
static bcol *column(srv_bchunks *ch, int32_t x, int32_t z)
{
    srv_bvariant *var = ch->variant;
    srv_server *srv = server_of(ch);
    bcol *c = srv_world_cache_get(srv, var->kind, x, z);
    if (c)
        return c;
    uint64_t t0 = uv_hrtime();
    c = make_column(ch->client->sh, var, x, z);
    srv_world_work_charge(srv->world, uv_hrtime() - t0, 1);
    return c;
}

/* ------------------------------------------------------------ sending */

/* Whether RakNet has room for more chunk data (bytes and messages); when
 * not, RakNet will call back (srv_bchunks_writable) once it has. */
static bool room(srv_bchunks *ch)
{
    srv_rak_peer *peer = ch->client->peer;
    if (srv_rak_peer_backlog(peer) < SRV_BEDROCK_CHUNK_WINDOW && srv_rak_peer_frames(peer) < SRV_BEDROCK_CHUNK_MESSAGES)
        return true;
    if (srv_rak_peer_notify_writable(peer, SRV_BEDROCK_CHUNK_WINDOW / 2, SRV_BEDROCK_CHUNK_MESSAGES / 2))
        return true;
    ch->waiting_writable = true;
    return false;
}

/* An answer made on the spot (nothing cached): another dimension, a
 * column the world lacks (`exists` false), a y outside the column. */
static bool answer_now(srv_bchunks *ch, const srv_boffset *o, bool exists)
{
    srv_bvariant *var = ch->variant;
    if (exists) { /* the empty column of the variant's range says only "out of bounds" */
        var->range.x = o->x;
        var->range.z = o->z;
        var->current = &var->range;
        var->current_x = o->x;
        var->current_z = o->z;
    }
    mc_buf data;
    mc_buf_init(&data, NULL);
    mc_error err;
    mc_error_clear(&err);
    uint32_t off, len;
    bool ok = add_answer(var, &ch->client->sh->codec, &data, o->dimension, o->x, o->y, o->z, &off, &len, &err);
    var->current = NULL;
    if (ok)
        ok = srv_bclient_send_body(ch->client, data.data + off, len);
    else
        srv_log(server_of(ch), MC_LOG_ERROR, "bedrock: cannot answer subchunk %d %d %d: %s", o->x, o->y, o->z,
                err.message);
    mc_buf_free(&data);
    return ok;
}

static bool answer(srv_bchunks *ch, const srv_boffset *o)
{
    srv_bvariant *var = ch->variant;
    if (o->dimension != MC_BEDROCK_OVERWORLD)
        return answer_now(ch, o, false);
    bcol *c = column(ch, o->x, o->z);
    if (!c)
        return false;
    int32_t i = o->y - c->min_y;
    if (c->absent || var->full || i < 0 || (uint32_t)i >= c->count)
        return answer_now(ch, o, !c->absent && !var->full);
    return srv_bclient_send_body(ch->client, c->data + c->sub_off[i], c->sub_off[i + 1] - c->sub_off[i]);
}

static void publisher_update(srv_bchunks *ch)
{
    srv_bfield f[] = {SRV_BINT("coordinates.x", (int32_t)ch->x), SRV_BINT("coordinates.y", (int32_t)ch->y),
                      SRV_BINT("coordinates.z", (int32_t)ch->z), SRV_BINT("radius", ch->radius << 4), {NULL, {0}}};
    srv_bclient_write(ch->client, SRV_BSENT_NETWORK_CHUNK_PUBLISHER_UPDATE, srv_bvalues_lookup, f);
}

/* Whether the columns within SPAWN_RADIUS are out (the queue is sorted by
 * distance: its next column tells). */
static bool spawn_area_sent(const srv_bchunks *ch)
{
    const srv_view *v = &ch->view;
    if (!srv_view_waiting(v))
        return true;
    int32_t dx = v->queue[2 * v->qhead] - v->cx, dz = v->queue[2 * v->qhead + 1] - v->cz;
    int r = ch->radius < SPAWN_RADIUS ? ch->radius : SPAWN_RADIUS;
    return dx * dx + dz * dz > r * r;
}

/* One go: answers first (a client waiting for blocks it can see), then
 * the view's columns, each as far as the window and the turn's budget go. */
void srv_bchunks_pump(srv_bchunks *ch)
{
    srv_bclient *c = ch->client;
    srv_world *w = server_of(ch)->world;
    if (ch->work.queued || ch->waiting_writable || c->gone || !ch->variant)
        return;
    srv_bclient_flush(c); /* control packets go before the chunk data */
    unsigned answers = 0, columns = 0;
    bool more = false;
    while (ch->pending_len && !c->gone) {
        if (!room(ch))
            return;
        if (answers++ == SRV_BEDROCK_ANSWERS_PER_TURN || srv_world_work_spent(w)) {
            more = true;
            break;
        }
        srv_boffset o = ch->pending[ch->pending_head];
        ch->pending_head = (ch->pending_head + 1) % ch->pending_cap;
        ch->pending_len--;
        uint64_t t0 = uv_hrtime();
        bool ok = answer(ch, &o);
        srv_world_work_charge(w, uv_hrtime() - t0, 0);
        if (!ok)
            return;
        ch->answered++;
    }
    while (!more && srv_view_waiting(&ch->view) && !c->gone) {
        if (!room(ch))
            return;
        if (columns++ == COLUMNS_PER_TURN || srv_world_work_spent(w)) {
            more = true;
            break;
        }
        int32_t x, z;
        srv_view_next(&ch->view, &x, &z);
        bcol *col = column(ch, x, z);
        if (!col)
            return;
        if (col->absent)
            continue;
        if (!srv_bclient_send_body(c, col->data + col->level_off, col->level_len))
            return;
        srv_view_add(&ch->view, x, z);
        ch->view.sent_total++;
        ch->level_chunks++;
    }
    if (ch->spawn_pending && spawn_area_sent(ch)) {
        ch->spawn_pending = false;
        ch->spawn_ready(ch->user);
    }
    if (more)
        srv_world_work_wait(w, &ch->work);
    srv_bshared_flush(c->sh); /* out now, not at RakNet's next tick */
}

void srv_bchunks_writable(srv_bchunks *ch)
{
    ch->waiting_writable = false;
    srv_bchunks_pump(ch);
}

/* ------------------------------------------------------------- requests */

static bool pending_push(srv_bchunks *ch, const srv_boffset *o)
{
    if (ch->pending_len == ch->pending_cap) {
        uint32_t cap = ch->pending_cap ? ch->pending_cap * 2 : 256;
        srv_boffset *p = malloc((size_t)cap * sizeof *p);
        if (!p)
            return false;
        for (uint32_t i = 0; i < ch->pending_len; i++)
            p[i] = ch->pending[(ch->pending_head + i) % ch->pending_cap];
        free(ch->pending);
        ch->pending = p;
        ch->pending_cap = cap;
        ch->pending_head = 0;
    }
    ch->pending[(ch->pending_head + ch->pending_len) % ch->pending_cap] = *o;
    ch->pending_len++;
    return true;
}

bool srv_bchunks_request(srv_bchunks *ch, const uint8_t *body, size_t len)
{
    uint64_t second = srv_server_clock(server_of(ch)) / 1000;
    if (second != ch->rate_second) {
        ch->rate_second = second;
        ch->rate_count = 0;
    }
    char why[320];
    mc_error err;
    mc_error_clear(&err);
    mc_bedrock_subchunk_request req;
    if (++ch->rate_count > SRV_BEDROCK_MAX_REQUESTS_PER_S) {
        snprintf(why, sizeof why, "more than %u SubChunkRequests in a second", SRV_BEDROCK_MAX_REQUESTS_PER_S);
    } else if (mc_bedrock_subchunk_request_decode(&req, ch->client->v->protocol, body, len, &err) != MC_OK) {
        snprintf(why, sizeof why, "a malformed SubChunkRequest: %s", err.message);
    } else if (req.count > SRV_BEDROCK_MAX_OFFSETS) {
        snprintf(why, sizeof why, "a SubChunkRequest of %u subchunks (at most %u)", req.count, SRV_BEDROCK_MAX_OFFSETS);
    } else if ((uint64_t)ch->pending_len + req.count > SRV_BEDROCK_MAX_PENDING) {
        snprintf(why, sizeof why, "over %u subchunks asked for and not yet answered", SRV_BEDROCK_MAX_PENDING);
    } else if (!ch->variant) {
        return true; /* before StartGame: nothing to answer with (vanilla ignores it too) */
    } else {
        for (uint32_t i = 0; i < req.count; i++) {
            int8_t dx, dy, dz;
            mc_bedrock_request_offset(&req, i, &dx, &dy, &dz);
            srv_boffset o = {req.x + dx, req.y + dy, req.z + dz, req.dimension};
            if (!pending_push(ch, &o)) {
                srv_bclient_kick(ch->client, "Server out of memory", true);
                return false;
            }
        }
        srv_bchunks_pump(ch);
        return true;
    }
    srv_bclient_kick(ch->client, why, true);
    return false;
}

/* ---------------------------------------------------------------- blobs */

struct srv_bblobs *srv_bblobs_new(void)
{
    return calloc(1, sizeof(struct srv_bblobs));
}

void srv_bblobs_free(struct srv_bblobs *b)
{
    free(b);
}

/* Finds blob `id` among the cached columns: its bytes, or NULL. */
static const uint8_t *find_blob(srv_bchunks *ch, uint64_t id, size_t *len)
{
    struct srv_bblobs *b = ch->client->sh->blobs;
    const blob_slot *slot = NULL;
    for (uint32_t k = 0, home = blob_home(id); k < BLOB_WINDOW && !slot; k++) {
        const blob_slot *t = &b->slots[(home + k) % BLOB_SLOTS];
        if (t->stamp && t->id == id)
            slot = t;
    }
    if (!slot)
        return NULL;
    const bcol *c = srv_world_cache_get(server_of(ch), slot->kind, slot->x, slot->z);
    if (!c || c->absent)
        return NULL;
    if (c->biome_id == id) {
        *len = c->biome_len;
        return c->data + c->biome_off;
    }
    for (uint32_t i = 0; i < c->count; i++)
        if (c->blob_id[i] == id) {
            *len = c->blob_len[i];
            return c->data + c->blob_off[i];
        }
    return NULL;
}

bool srv_bchunks_blob_status(srv_bchunks *ch, const uint8_t *body, size_t len)
{
    mc_error err;
    mc_error_clear(&err);
    mc_bedrock_blob_status st;
    char why[320];
    if (mc_bedrock_blob_status_decode(&st, ch->client->v->protocol, body, len, &err) != MC_OK) {
        snprintf(why, sizeof why, "a malformed ClientCacheBlobStatus: %s", err.message);
        srv_bclient_kick(ch->client, why, true);
        return false;
    }
    if (st.missing_count > SRV_BEDROCK_MAX_BLOBS_ASKED) {
        snprintf(why, sizeof why, "%u blobs asked for at once (at most %u)", st.missing_count,
                 SRV_BEDROCK_MAX_BLOBS_ASKED);
        srv_bclient_kick(ch->client, why, true);
        return false;
    }
    if (!st.missing_count)
        return true;
    mc_bedrock_blob *blobs = malloc((size_t)st.missing_count * sizeof *blobs);
    if (!blobs)
        return false;
    uint32_t n = 0, unknown = 0;
    for (uint32_t i = 0; i < st.missing_count; i++) {
        uint64_t id = mc_bedrock_u64_at(st.missing, i);
        size_t blen = 0;
        const uint8_t *p = find_blob(ch, id, &blen);
        if (p)
            blobs[n++] = (mc_bedrock_blob){id, p, blen};
        else
            unknown++;
    }
    if (unknown)
        srv_log(server_of(ch), MC_LOG_WARN,
                "bedrock %s: %u of the %u blobs it misses are no longer known (its columns left the cache)",
                ch->client->name, unknown, st.missing_count);
    mc_buf pkt;
    mc_buf_init(&pkt, NULL);
    mc_buf_put_uvarint32(&pkt, SRV_BPID_CLIENT_CACHE_MISS_RESPONSE);
    bool ok = n == 0 || (mc_bedrock_miss_response_encode(blobs, n, &pkt) == MC_OK && mc_buf_ok(&pkt));
    if (ok && n)
        srv_bclient_packet(ch->client, pkt.data, pkt.len);
    mc_buf_free(&pkt);
    free(blobs);
    return true;
}

/* -------------------------------------------------------------- view */

static void recenter(srv_bchunks *ch, int32_t cx, int32_t cz)
{
    /* Bedrock has no unload: the client drops what leaves its radius */
    if (!srv_view_recenter(&ch->view, cx, cz, ch->radius, NULL, NULL)) {
        srv_bclient_kick(ch->client, "Server out of memory", true);
        return;
    }
    publisher_update(ch);
}

static int32_t column_of(double v)
{
    return (int32_t)floor(v) >> 4; /* positions are checked to lie within the world */
}

int srv_bchunks_radius(srv_bchunks *ch, int wanted)
{
    srv_bclient *c = ch->client;
    int max = server_of(ch)->cfg->view_distance;
    int r = wanted < 1 ? 1 : wanted > max ? max : wanted;
    if (!ch->variant) {
        ch->variant = variant_of(c->sh, c->v, srv_bshared_hashed(c->sh), ch->cache);
        if (!ch->variant) {
            srv_bclient_kick(c, "Server out of memory", true);
            return r;
        }
    }
    ch->radius = r;
    recenter(ch, column_of(ch->x), column_of(ch->z));
    return r;
}

bool srv_bchunks_set_cache(srv_bchunks *ch, bool on)
{
    ch->cache = on;
    if (!ch->variant) /* chosen when the radius is asked */
        return true;
    srv_bclient *c = ch->client;
    ch->variant = variant_of(c->sh, c->v, srv_bshared_hashed(c->sh), on);
    if (!ch->variant)
        srv_bclient_kick(c, "Server out of memory", true);
    return ch->variant != NULL;
}

void srv_bchunks_moved(srv_bchunks *ch, double x, double y, double z)
{
    ch->x = x, ch->y = y, ch->z = z;
    if (!ch->radius)
        return;
    int32_t cx = column_of(x), cz = column_of(z);
    if (cx != ch->view.cx || cz != ch->view.cz) {
        recenter(ch, cx, cz);
        srv_bchunks_pump(ch);
    }
}

void srv_bchunks_init(srv_bchunks *ch, srv_bclient *client)
{
    memset(ch, 0, sizeof *ch);
    ch->client = client;
}

void srv_bchunks_free(srv_bchunks *ch)
{
    srv_server *srv = server_of(ch);
    if (srv->world)
        srv_world_work_cancel(srv->world, &ch->work);
    srv_view_free(&ch->view);
    free(ch->pending);
    ch->pending = NULL;
    ch->pending_len = ch->pending_cap = 0;
}

size_t srv_bchunks_memory(const srv_bchunks *ch)
{
    return srv_view_memory(&ch->view) + (size_t)ch->pending_cap * sizeof(srv_boffset);
}
