/* fuzz_server_bedrock.c: the server's Bedrock game layer
 * (programs/mcchunk/server/bedrock) on hostile client bytes -- batches
 * (the 0xFE framing, raw DEFLATE, the algorithm byte, the pre-1.20.60
 * guessing), the login's JSON and JWTs, and every packet the server
 * parses (RequestNetworkSettings, Login, the resource pack responses,
 * ClientCacheStatus, RequestChunkRadius, SetLocalPlayerAsInitialized,
 * MovePlayer, PlayerAuthInput, SubChunkRequest, ClientCacheBlobStatus,
 * CommandRequest, Disconnect).
 *
 * One in-process server (the built-in world, view distance 2, silent)
 * lives across inputs, as it does across clients: its world's caches must
 * stay within their budget. Its Bedrock listener runs on a socket-free
 * RakNet endpoint; per input a client endpoint of our own connects to it
 * through the real handshake in memory (RakNet protocol 10 when the input's
 * first byte is odd, else 11), then the rest of the input is a series of
 * records [len u16 LE][bytes], each sent as one reliable ordered message
 * (with 0xFE in front when it starts below 0x80, the ids RakNet keeps for
 * itself), the datagrams of both sides delivered and the server's loop
 * turned after each. At the end the client disconnects and the server must
 * free its session within a bounded number of turns (one that never goes
 * is reported as a crash).
 * Seeds: fuzz/corpus/fuzz_server_bedrock/ (scripts/gen-fuzz-bedrock-seeds.js). */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "server/bedrock/listener.h"
#include "server/conn.h"
#include "server/raknet/raknet.h"
#include "server/server.h"
#include "server/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct datagram {
    uint8_t data[1500];
    size_t len;
    int to; /* 0 the server, 1 the client */
} datagram;

#define QUEUE 512

static srv_server srv;
static srv_server_config cfg;
static srv_blistener *listener;
static srv_rak *server_rak;
static const srv_rak_addr server_addr = {.family = 4, .ip = {127, 0, 0, 1}, .port = 19132};
static const srv_rak_addr client_addr = {.family = 4, .ip = {127, 0, 0, 2}, .port = 50000};
static datagram queue[QUEUE];
static int queued;

/* Datagrams in flight: beyond the queue they are lost (RakNet resends). */
static void enqueue(int to, const uint8_t *d, size_t len)
{
    if (queued < QUEUE && len <= sizeof queue[0].data) {
        memcpy(queue[queued].data, d, len);
        queue[queued].len = len;
        queue[queued++].to = to;
    }
}

static void to_client(void *user, const srv_rak_addr *to, const uint8_t *d, size_t len) { enqueue(1, d, len); }
static void to_server(void *user, const srv_rak_addr *to, const uint8_t *d, size_t len) { enqueue(0, d, len); }

static void setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    srv_server_config_defaults(&cfg);
    cfg.view_distance = 2;
    cfg.cache_bytes = 16u << 20;
    cfg.quiet = !getenv("MCCHUNK_FUZZ_LOG"); /* set it to see the server's log */
    cfg.silent = cfg.quiet;
    srv_server_init(&srv, &cfg, uv_default_loop());
    if (srv_world_open(&srv) != 0)
        abort();
    listener = srv__blistener_new(&srv);
    srv_rak_config rc;
    srv_rak_callbacks cb;
    if (!listener)
        abort();
    srv__blistener_config(listener, &rc, &cb);
    cb.send = to_client;
    server_rak = srv_rak_new(&rc, &cb);
    if (!server_rak)
        abort();
    srv__blistener_attach(listener, server_rak, server_addr.port);
    srv.bedrock = listener;
}

/* Delivers what is in flight (both ways), ticks both endpoints and turns
 * the server's loop (the world's work waits for idle turns). */
static void turn(srv_rak *client, uint64_t *now)
{
    for (int round = 0; round < 8 && queued; round++) {
        static datagram batch[QUEUE];
        int n = queued;
        memcpy(batch, queue, sizeof batch[0] * (size_t)n);
        queued = 0;
        for (int i = 0; i < n; i++) {
            if (batch[i].to == 0)
                srv_rak_receive(server_rak, &client_addr, batch[i].data, batch[i].len, *now);
            else
                srv_rak_receive(client, &server_addr, batch[i].data, batch[i].len, *now);
        }
    }
    uv_run(srv.loop, UV_RUN_NOWAIT);
    *now += 10;
    srv_rak_tick(server_rak, *now);
    srv_rak_tick(client, *now);
}

static bool connected;
static srv_rak_peer *peer; /* our client's side, NULL once it is gone */
static void on_connected(void *user, srv_rak_peer *p) { connected = true; }
static void on_disconnected(void *user, srv_rak_peer *p, const char *why) { peer = NULL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1)
        return 0;
    static uint64_t now = 1000; /* RakNet's clock, ours (the server's keeps the loop's) */
    srv_rak_config ccfg;
    srv_rak_config_defaults(&ccfg);
    ccfg.guid = 7;
    ccfg.protocol = data[0] & 1 ? 10 : 11;
    srv_rak_callbacks ccb = {.send = to_server, .connected = on_connected, .disconnected = on_disconnected};
    srv_rak *client = srv_rak_new(&ccfg, &ccb);
    if (!client)
        abort();
    connected = false;
    queued = 0;
    peer = srv_rak_connect(client, &server_addr, now);
    for (int i = 0; i < 50 && !connected; i++)
        turn(client, &now);
    if (!connected || srv_bedrock_listener_clients(listener) != 1) {
        fprintf(stderr, "fuzz_server_bedrock: our client did not connect (%d, %u sessions)\n", connected,
                srv_bedrock_listener_clients(listener));
        abort(); /* the handshake of our own client must work */
    }
    uint8_t msg[65536 + 1];
    for (size_t pos = 1; pos + 2 <= size && peer && srv_rak_peer_connected(peer);) {
        size_t len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        pos += 2;
        if (len > size - pos)
            len = size - pos;
        size_t n = 0;
        if (!len || data[pos] < 0x80)
            msg[n++] = 0xFE;
        memcpy(msg + n, data + pos, len);
        pos += len;
        srv_rak_send(peer, msg, n + len, MC_RAK_RELIABLE_ORDERED, 0);
        srv_rak_flush(client, now);
        for (int i = 0; i < 4; i++)
            turn(client, &now);
    }
    if (peer)
        srv_rak_disconnect(peer, "fuzz input done");
    for (int i = 0; i < 400 && srv_bedrock_listener_clients(listener); i++)
        turn(client, &now);
    /* RakNet lets a closing peer flush for 2 s: then it is gone too */
    now += 3000;
    srv_rak_tick(server_rak, now);
    if (srv_bedrock_listener_clients(listener)) {
        fprintf(stderr, "fuzz_server_bedrock: the session was never freed\n");
        abort();
    }
    srv_rak_free(client);
    queued = 0;
    if (srv_rak_peer_count(server_rak)) {
        fprintf(stderr, "fuzz_server_bedrock: RakNet kept the peer\n");
        abort();
    }
    if (srv_world_cache_bytes(&srv) > cfg.cache_bytes + ((size_t)1 << 20))
        abort(); /* the caches outgrew their budget */
    return 0;
}
