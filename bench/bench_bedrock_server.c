/*
 * bench_bedrock_server.c: how fast `mcchunk serve` answers Bedrock
 * clients' subchunk requests, measured by minimal clients built on the
 * server's own RakNet and batch code (the library encodes their
 * SubChunkRequests): they log in as 1.21.60 (protocol 776), answer the
 * resource pack offers, ask for a chunk radius, and count the answers
 * without decoding the subchunks -- so the figures are the server's, not a
 * client's parser's.
 *
 *   bench_bedrock_server PORT --pid PID [--radius N] [--clients N] [--min-cpu SECONDS]
 *
 * 1. One client, radius N (default 10): it asks for every subchunk of each
 *    column up to the column's highest as its skeleton LevelChunk arrives,
 *    as a client would; printed: the time from PlayStatus player_spawn to
 *    the last answer, for a cold server (its first client of that version:
 *    conversion and compression of every column) and warm (a second
 *    client), with the server's CPU time for each.
 * 2. N clients (default 20) join and get their LevelChunks; then, all at
 *    once, each asks for every subchunk of its columns; rounds repeat until
 *    the server used --min-cpu seconds (default 0.5) of CPU in them. The
 *    figure: subchunks answered per server CPU second (its threads'
 *    schedstat, proc_cpu.h).
 * 3. The baseline, in this process: the same subchunks answered by the
 *    library's request engine from the converted columns, each answer then
 *    compressed as a batch (libdeflate level 1) -- what a server pays per
 *    answer without the server's per-version cache of compressed answers
 *    (the conversion not counted) -- subchunks per CPU second, and the
 *    ratio.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/registry.h"
#include "proc_cpu.h"
#include "server/bedrock/batch.h"
#include "server/raknet/raknet.h"
#include "server/terrain.h"

#define PROTOCOL 776 /* 1.21.60 */
#define MAX_COLUMNS 4400

typedef struct client {
    srv_rak_uv *uv;
    srv_rak_peer *peer;
    srv_bcodec codec;
    uint64_t runtime_id;
    int32_t cols[MAX_COLUMNS][3]; /* x, z, highest */
    unsigned ncols;
    bool ask_on_arrival; /* request each column's subchunks as its LevelChunk comes */
    unsigned unasked;    /* columns from here on not asked for yet (one request a tick) */
    uv_timer_t tick;
    uint64_t asked, answered;
    bool spawned, failed;
    double t_spawn, t_done;
    char name[16];
} client;

static uv_loop_t *loop;
static srv_bcodec_shared shared;
static srv_rak_addr server;
static unsigned want_columns;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ sending */

static void send_packets(client *c, const mc_buf *packets)
{
    mc_buf body, msg;
    mc_buf_init(&body, NULL);
    mc_buf_init(&msg, NULL);
    if (srv_bcodec_body(&c->codec, &shared, packets->data, packets->len, false, &body) &&
        srv_bcodec_seal(&c->codec, body.data, body.len, &msg))
        srv_rak_send(c->peer, msg.data, msg.len, MC_RAK_RELIABLE_ORDERED, 0);
    mc_buf_free(&body);
    mc_buf_free(&msg);
}

static void send_one(client *c, const mc_buf *pkt)
{
    mc_buf framed;
    mc_buf_init(&framed, NULL);
    srv_bpacket_frame(&framed, pkt->data, pkt->len);
    send_packets(c, &framed);
    mc_buf_free(&framed);
}

static void put_b64url(mc_buf *b, const char *json)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t n = strlen(json);
    const uint8_t *p = (const uint8_t *)json;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        mc_buf_put_u8(b, (uint8_t)t[v >> 18 & 63]);
        mc_buf_put_u8(b, (uint8_t)t[v >> 12 & 63]);
        if (i + 1 < n)
            mc_buf_put_u8(b, (uint8_t)t[v >> 6 & 63]);
        if (i + 2 < n)
            mc_buf_put_u8(b, (uint8_t)t[v & 63]);
    }
}

/* Login: an offline identity; the server reads the JWTs' JSON and does
 * not check their (empty) signatures. */
static void send_login(client *c)
{
    char json[256];
    mc_buf identity, data, pkt;
    mc_buf_init(&identity, NULL);
    mc_buf_init(&data, NULL);
    mc_buf_init(&pkt, NULL);
    mc_buf_put(&identity, "{\"chain\":[\"", 11);
    put_b64url(&identity, "{\"alg\":\"ES384\"}");
    mc_buf_put_u8(&identity, '.');
    snprintf(json, sizeof json, "{\"extraData\":{\"displayName\":\"%s\",\"XUID\":\"0\"}}", c->name);
    put_b64url(&identity, json);
    mc_buf_put(&identity, ".\"]}", 4);
    put_b64url(&data, "{\"alg\":\"ES384\"}");
    mc_buf_put_u8(&data, '.');
    put_b64url(&data, "{\"DeviceModel\":\"bench\"}");
    mc_buf_put_u8(&data, '.');
    mc_buf_put_uvarint32(&pkt, 1);
    mc_buf_put_u32be(&pkt, PROTOCOL);
    mc_buf_put_uvarint32(&pkt, (uint32_t)(identity.len + data.len + 8));
    mc_buf_put_u32le(&pkt, (uint32_t)identity.len);
    mc_buf_put(&pkt, identity.data, identity.len);
    mc_buf_put_u32le(&pkt, (uint32_t)data.len);
    mc_buf_put(&pkt, data.data, data.len);
    send_one(c, &pkt);
    mc_buf_free(&identity);
    mc_buf_free(&data);
    mc_buf_free(&pkt);
}

static void send_simple(client *c, uint32_t id, const uint8_t *body, size_t n)
{
    mc_buf pkt;
    mc_buf_init(&pkt, NULL);
    mc_buf_put_uvarint32(&pkt, id);
    mc_buf_put(&pkt, body, n);
    send_one(c, &pkt);
    mc_buf_free(&pkt);
}

/* One SubChunkRequest for subchunks -4 .. -4+highest of columns
 * [from, to): what a client asks for in one tick (vanilla: one request a
 * tick, offsets around the player). */
static void request_columns(client *c, unsigned from, unsigned to)
{
    static uint8_t offsets[3 * 24 * MAX_COLUMNS];
    uint32_t n = 0;
    for (unsigned i = from; i < to; i++)
        for (int32_t k = 0; k <= c->cols[i][2] && k < 24; k++) {
            offsets[3 * n] = (uint8_t)(int8_t)(c->cols[i][0] - c->cols[from][0]);
            offsets[3 * n + 1] = (uint8_t)(int8_t)(-4 + k);
            offsets[3 * n + 2] = (uint8_t)(int8_t)(c->cols[i][1] - c->cols[from][1]);
            n++;
        }
    for (uint32_t done = 0; done < n;) { /* at most 8192 offsets a request */
        uint32_t part = n - done < 8192 ? n - done : 8192;
        mc_bedrock_subchunk_request req = {0, c->cols[from][0], 0, c->cols[from][1], part, offsets + 3 * done};
        mc_buf pkt;
        mc_buf_init(&pkt, NULL);
        mc_buf_put_uvarint32(&pkt, 175);
        mc_error err;
        if (mc_bedrock_subchunk_request_encode(&req, PROTOCOL, &pkt, &err) == MC_OK)
            send_one(c, &pkt);
        mc_buf_free(&pkt);
        done += part;
    }
    c->asked += n;
}

static void request_all(client *c)
{
    request_columns(c, 0, c->ncols);
}

static void on_tick(uv_timer_t *t)
{
    client *c = t->data;
    if (c->peer && c->unasked < c->ncols) {
        request_columns(c, c->unasked, c->ncols);
        c->unasked = c->ncols;
    }
}

/* ------------------------------------------------------------ receiving */

static bool finished(const client *c)
{
    return c->spawned && c->ncols >= want_columns && c->unasked >= c->ncols && c->answered >= c->asked;
}

static void level_chunk(client *c, mc_reader *r)
{
    int32_t x = mc_read_zigzag32(r), z = mc_read_zigzag32(r);
    mc_read_zigzag32(r); /* dimension (649+) */
    uint32_t count = mc_read_uvarint32(r);
    int32_t highest = count == MC_BEDROCK_REQUEST_LIMITED ? mc_read_u16le(r) : 23;
    if (!mc_reader_ok(r) || c->ncols == MAX_COLUMNS)
        return;
    unsigned i = c->ncols++;
    c->cols[i][0] = x, c->cols[i][1] = z, c->cols[i][2] = highest;
    if (!c->ask_on_arrival)
        c->unasked = c->ncols;
}

static void handle(client *c, uint32_t id, mc_reader *r)
{
    switch (id) {
    case 143: /* NetworkSettings: compression on */ {
        uint16_t threshold = mc_read_u16le(r);
        c->codec.compressing = true;
        c->codec.algorithm_byte = true;
        c->codec.threshold = threshold;
        send_login(c);
        break;
    }
    case 2: /* PlayStatus */
        if (mc_read_i32be(r) == 3) {
            c->spawned = true;
            c->t_spawn = now_s();
            mc_buf body;
            mc_buf_init(&body, NULL);
            mc_buf_put_uvarint64(&body, c->runtime_id);
            send_simple(c, 113, body.data, body.len);
            mc_buf_free(&body);
        }
        break;
    case 6: /* ResourcePacksInfo */
    case 7: /* ResourcePackStack */ {
        static const uint8_t completed[3] = {4, 0, 0}; /* status, no pack ids (li16) */
        send_simple(c, 8, completed, sizeof completed);
        break;
    }
    case 11: /* StartGame: the player's runtime id, then the radius */ {
        mc_read_zigzag64(r);
        c->runtime_id = mc_read_uvarint64(r);
        int vd = 0;
        for (unsigned k = 1; (2 * k + 1) * (2 * k + 1) <= want_columns; k++)
            vd = (int)k;
        mc_buf b;
        mc_buf_init(&b, NULL);
        mc_buf_put_zigzag32(&b, vd);
        mc_buf_put_u8(&b, (uint8_t)vd);
        send_simple(c, 69, b.data, b.len);
        mc_buf_free(&b);
        break;
    }
    case 58: level_chunk(c, r); break;
    case 174: /* SubChunk: cache flag, dimension, center, count */
        mc_read_u8(r);
        mc_read_zigzag32(r);
        for (int k = 0; k < 3; k++)
            mc_read_zigzag32(r);
        c->answered += mc_read_u32le(r);
        if (finished(c) && !c->t_done)
            c->t_done = now_s();
        break;
    case 5: /* Disconnect */
        c->failed = true;
        break;
    default: break;
    }
}

static void on_message(void *user, srv_rak_peer *p, const uint8_t *data, size_t len)
{
    client *c = user;
    char why[160];
    if (!srv_bcodec_open(&c->codec, &shared, (uint8_t *)data, len, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", c->name, why);
        c->failed = true;
        return;
    }
    srv_bpackets it;
    srv_bpackets_init(&it, shared.inflated.data, shared.inflated.len);
    const uint8_t *pkt;
    size_t n;
    bool bad;
    while (srv_bpackets_next(&it, &pkt, &n, &bad)) {
        mc_error err;
        mc_reader r;
        mc_reader_init(&r, pkt, n, "packet", &err);
        uint32_t id = mc_read_uvarint32(&r) & 0x3FF;
        handle(c, id, &r);
    }
}

static void on_connected(void *user, srv_rak_peer *p)
{
    client *c = user;
    c->peer = p;
    static const uint8_t settings[4] = {0, 0, PROTOCOL >> 8, PROTOCOL & 0xFF}; /* i32 BE */
    send_simple(c, 193, settings, sizeof settings);
}

static void on_disconnected(void *user, srv_rak_peer *p, const char *why)
{
    client *c = user;
    if (!finished(c))
        fprintf(stderr, "%s: disconnected: %s\n", c->name, why);
    c->peer = NULL;
    c->failed = c->failed || !finished(c);
}

static client *client_new(int i, bool ask_on_arrival)
{
    client *c = calloc(1, sizeof *c);
    snprintf(c->name, sizeof c->name, "bench%d", i);
    c->ask_on_arrival = ask_on_arrival;
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    cfg.guid = 1000 + (uint64_t)i;
    srv_rak_callbacks cb = {.user = c, .connected = on_connected, .message = on_message, .disconnected = on_disconnected};
    char err[160];
    c->uv = srv_rak_uv_start(loop, "127.0.0.1", 0, &cfg, &cb, err, sizeof err);
    if (!c->uv) {
        fprintf(stderr, "client: %s\n", err);
        exit(1);
    }
    srv_rak_connect(srv_rak_uv_endpoint(c->uv), &server, srv_rak_uv_now(c->uv));
    uv_timer_init(loop, &c->tick);
    c->tick.data = c;
    uv_timer_start(&c->tick, on_tick, 50, 50); /* a game tick */
    return c;
}

static void on_tick_closed(uv_handle_t *h)
{
    free(h->data);
}

static void client_free(client *c)
{
    srv_rak_uv_close(c->uv, "bench done");
    uv_close((uv_handle_t *)&c->tick, on_tick_closed);
}

/* Turns the loop until every client is `done` (or failed), at most `secs`. */
static bool run_until(client **cs, int n, bool (*done)(const client *), double secs)
{
    double t0 = now_s();
    for (;;) {
        bool all = true;
        for (int i = 0; i < n; i++)
            all = all && (cs[i]->failed || done(cs[i]));
        if (all)
            break;
        if (now_s() - t0 > secs)
            return false;
        uv_run(loop, UV_RUN_ONCE);
        for (int i = 0; i < n; i++)
            srv_rak_uv_flush(cs[i]->uv);
    }
    for (int i = 0; i < n; i++)
        if (cs[i]->failed)
            return false;
    return true;
}

static bool has_all_columns(const client *c) { return c->spawned && c->ncols >= want_columns; }

/* ------------------------------------------------------------ baseline */

/* The same subchunks answered by the library's engine from converted
 * columns, each answer compressed as a batch: subchunks per CPU second. */
typedef struct base_src {
    mc_bedrock_column *cols;
    unsigned n;
} base_src;

static mc_status base_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_bedrock_column **col)
{
    base_src *s = user;
    for (unsigned i = 0; i < s->n; i++)
        if (s->cols[i].x == cx && s->cols[i].z == cz) {
            *col = &s->cols[i];
            return MC_OK;
        }
    return MC_ERR_NOT_FOUND;
}

static double baseline(const client *c, uint64_t seed, uint64_t *answers)
{
    const mc_registry *java = mc_registry_find("26.1"), *bed = mc_registry_find_bedrock("1.21.60");
    srv_terrain *t = srv_terrain_new(java, seed);
    uint32_t *blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
    uint32_t *biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    base_src src = {calloc(c->ncols, sizeof(mc_bedrock_column)), c->ncols};
    mc_bedrock_ids ids;
    mc_bedrock_ids_init(&ids, java, bed, true);
    mc_error err;
    for (unsigned i = 0; i < c->ncols; i++) {
        mc_column *col = srv_terrain_column(t, c->cols[i][0], c->cols[i][1], blocks, biomes);
        mc_bedrock_column_from_mc_column(&src.cols[i], col, 0, &ids, NULL, &err);
        mc_column_free(col);
    }
    mc_bedrock_world_source ws = {&src, base_get, NULL};
    mc_bedrock_engine_options opt = {PROTOCOL, false, 0, 0};
    mc_bedrock_engine *e = mc_bedrock_engine_new(&ws, &opt, NULL);
    struct libdeflate_compressor *z = libdeflate_alloc_compressor(1);
    mc_buf out, zout;
    mc_buf_init(&out, NULL);
    mc_buf_init(&zout, NULL);
    static const uint8_t here[3] = {0, 0, 0};
    *answers = 0;
    clock_t t0 = clock();
    do {
        for (unsigned i = 0; i < c->ncols; i++)
            for (int32_t k = 0; k <= c->cols[i][2]; k++) {
                mc_bedrock_subchunk_request req = {0, c->cols[i][0], -4 + k, c->cols[i][1], 1, here};
                out.len = 0;
                mc_bedrock_engine_answer_request(e, &req, &out, &err);
                if (!mc_buf_reserve(&zout, out.len + 1024))
                    exit(1);
                libdeflate_deflate_compress(z, out.data, out.len, zout.data, zout.cap);
                (*answers)++;
            }
    } while ((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5);
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    libdeflate_free_compressor(z);
    mc_buf_free(&out);
    mc_buf_free(&zout);
    mc_bedrock_engine_free(e);
    for (unsigned i = 0; i < src.n; i++)
        mc_bedrock_column_free(&src.cols[i]);
    free(src.cols);
    free(blocks);
    free(biomes);
    srv_terrain_free(t);
    return cpu;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_bedrock_server PORT --pid PID [--radius N] [--clients N] [--min-cpu S] [--seed N]\n");
        return 2;
    }
    int port = atoi(argv[1]), pid = 0, radius = 10, nclients = 20;
    double min_cpu = 0.5;
    uint64_t seed = 20260101;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pid"))
            pid = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--radius"))
            radius = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--clients"))
            nclients = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-cpu"))
            min_cpu = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
    }
    if (radius < 1 || radius > 32 || nclients < 1 || nclients > 200 || !pid) {
        fprintf(stderr, "bench_bedrock_server: bad arguments (--pid is required)\n");
        return 2;
    }
    loop = uv_default_loop();
    srv_bcodec_shared_init(&shared);
    server = (srv_rak_addr){.family = 4, .ip = {127, 0, 0, 1}, .port = (uint16_t)port};
    want_columns = (unsigned)((2 * radius + 1) * (2 * radius + 1));
    bool ns;
    printf("bench_bedrock_server: Bedrock 1.21.60 clients, radius %d (%u columns), server pid %d\n", radius,
           want_columns, pid);

    /* 1. one client, cold then warm */
    const char *label[2] = {"cold", "warm"};
    client *last = NULL;
    for (int round = 0; round < 2; round++) {
        double cpu0 = cpu_of(pid, &ns);
        client *c = client_new(round, true);
        client *cs[1] = {c};
        if (!run_until(cs, 1, finished, 120)) {
            fprintf(stderr, "%s client: did not finish (%llu of %llu answers, %u columns)\n", label[round],
                    (unsigned long long)c->answered, (unsigned long long)c->asked, c->ncols);
            return 1;
        }
        double cpu = cpu_of(pid, &ns) - cpu0;
        printf("one client, %s server: %llu subchunks asked for and answered; the last answer %.0f ms after "
               "player_spawn; server CPU %.0f ms for the whole join\n", label[round], (unsigned long long)c->asked,
               (c->t_done - c->t_spawn) * 1000, cpu * 1000);
        if (last)
            client_free(last);
        last = c;
    }

    /* 2. many clients asking at once */
    client **cs = calloc((size_t)nclients, sizeof *cs);
    for (int i = 0; i < nclients; i++)
        cs[i] = client_new(10 + i, false);
    if (!run_until(cs, nclients, has_all_columns, 180)) {
        fprintf(stderr, "%d clients: not all joined with their columns\n", nclients);
        return 1;
    }
    uint64_t answered = 0;
    double cpu_total = 0, wall_total = 0, user0 = 0, kernel0 = 0, user1 = 0, kernel1 = 0;
    int rounds = 0;
    bool split = user_kernel_of(pid, &user0, &kernel0);
    while (cpu_total < min_cpu && rounds < 50) {
        for (int i = 0; i < nclients; i++)
            cs[i]->answered = cs[i]->asked = 0, cs[i]->t_done = 0;
        double cpu0 = cpu_of(pid, &ns), t0 = now_s();
        for (int i = 0; i < nclients; i++)
            request_all(cs[i]);
        if (!run_until(cs, nclients, finished, 120)) {
            fprintf(stderr, "round %d: not every request was answered\n", rounds);
            return 1;
        }
        cpu_total += cpu_of(pid, &ns) - cpu0;
        wall_total += now_s() - t0;
        for (int i = 0; i < nclients; i++)
            answered += cs[i]->answered;
        rounds++;
    }
    split = split && user_kernel_of(pid, &user1, &kernel1);
    double per_cpu = (double)answered / cpu_total;
    printf("%d clients asking at once, %d rounds: %llu subchunks answered in %.0f ms of server CPU (%s) and %.0f ms "
           "wall: %.0f subchunks per server CPU second\n", nclients, rounds, (unsigned long long)answered,
           cpu_total * 1000, ns ? "schedstat" : "ticks", wall_total * 1000, per_cpu);
    if (split && user1 + kernel1 > user0 + kernel0)
        printf("  of the server's CPU in those rounds (/proc/PID/stat ticks): user %.0f ms, kernel %.0f ms (%.0f%% "
               "kernel)\n", (user1 - user0) * 1000, (kernel1 - kernel0) * 1000,
               100 * (kernel1 - kernel0) / (user1 - user0 + kernel1 - kernel0));

    /* 3. the baseline */
    uint64_t base_answers;
    double base_cpu = baseline(cs[0], seed, &base_answers);
    double base_rate = (double)base_answers / base_cpu;
    printf("baseline (this process): the library's engine answering the same subchunks from converted columns, "
           "each answer DEFLATEd (level 1): %.0f subchunks per CPU second; the server answers %.1fx as many per CPU "
           "second\n", base_rate, per_cpu / base_rate);
    for (int i = 0; i < nclients; i++)
        client_free(cs[i]);
    client_free(last);
    uv_run(loop, UV_RUN_NOWAIT);
    free(cs);
    return 0;
}
