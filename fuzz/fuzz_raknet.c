/* fuzz_raknet.c: the RakNet endpoint (programs/mcchunk/server/raknet) on hostile
 * datagrams — the offline messages, the datagram and frame parser, ACK/NACK
 * ranges, split reassembly, ordering windows and the connection messages.
 *
 * Each input starts from the same state: a server endpoint (tight limits,
 * so that they are reached) with one client of our own already connected
 * through the real handshake, so that the fuzzer reaches the connected
 * layer without having to discover the handshake. The input is then a
 * series of records [ctl u8][len u16 LE][bytes]: ctl's low 2 bits choose
 * the sender (0 the connected client, 1 and 2 strangers, 3 an IPv6 one),
 * bit 2 ticks the server after the datagram, bit 3 moves the clock 2 s
 * first (timeouts, resends). Whatever the server sends is discarded; at the
 * end it is freed (leaks and bad accesses show under the sanitizers).
 * Seeds: fuzz/corpus/fuzz_raknet/ (scripts/gen-fuzz-raknet-seeds.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/raknet/raknet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct pending {
    uint8_t data[1500];
    size_t len;
    int to; /* 0 server, 1 client */
} pending;

typedef struct world {
    srv_rak *server, *client;
    srv_rak_addr server_addr, client_addr;
    pending q[64];
    int n;
    bool setup; /* deliver between the two while connecting */
} world;

static void on_send_server(void *user, const srv_rak_addr *to, const uint8_t *d, size_t len)
{
    world *w = user;
    if (w->setup && w->n < 64 && len <= 1500) {
        memcpy(w->q[w->n].data, d, len);
        w->q[w->n].len = len;
        w->q[w->n++].to = 1;
    }
}

static void on_send_client(void *user, const srv_rak_addr *to, const uint8_t *d, size_t len)
{
    world *w = user;
    if (w->setup && w->n < 64 && len <= 1500) {
        memcpy(w->q[w->n].data, d, len);
        w->q[w->n].len = len;
        w->q[w->n++].to = 0;
    }
}

/* Echoes user messages back, as a game layer answering would. */
static void on_message(void *user, srv_rak_peer *p, const uint8_t *d, size_t len)
{
    srv_rak_send(p, d, len, MC_RAK_RELIABLE_ORDERED, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    world w;
    memset(&w, 0, sizeof w);
    w.server_addr = (srv_rak_addr){.family = 4, .ip = {127, 0, 0, 1}, .port = 19132};
    w.client_addr = (srv_rak_addr){.family = 4, .ip = {127, 0, 0, 2}, .port = 50000};
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    cfg.accept = true;
    cfg.guid = 1;
    cfg.max_peers = 4;
    cfg.max_split_parts = 32;
    cfg.max_splits = 4;
    cfg.max_reassembly_bytes = 64 << 10;
    cfg.send_window_bytes = 256 << 10;
    cfg.max_bad_datagrams = 8;
    srv_rak_callbacks cb = {.user = &w, .send = on_send_server, .message = on_message};
    w.server = srv_rak_new(&cfg, &cb);
    srv_rak_config_defaults(&cfg);
    cfg.guid = 2;
    srv_rak_callbacks ccb = {.user = &w, .send = on_send_client};
    w.client = srv_rak_new(&cfg, &ccb);
    if (!w.server || !w.client)
        abort();
    srv_rak_set_pong(w.server, "MCPE;fuzz;1;1;0;1;1;fuzz;Creative;1;1;1;0;", 43);

    uint64_t now = 1000;
    w.setup = true;
    srv_rak_connect(w.client, &w.server_addr, now);
    for (int round = 0; round < 50 && w.n; round++) {
        pending q[64];
        int n = w.n;
        memcpy(q, w.q, sizeof q[0] * (size_t)n);
        w.n = 0;
        for (int i = 0; i < n; i++) {
            if (q[i].to == 0)
                srv_rak_receive(w.server, &w.client_addr, q[i].data, q[i].len, now);
            else
                srv_rak_receive(w.client, &w.server_addr, q[i].data, q[i].len, now);
        }
        now++;
    }
    w.setup = false;

    srv_rak_addr senders[4] = {w.client_addr,
                              {.family = 4, .ip = {10, 0, 0, 1}, .port = 1},
                              {.family = 4, .ip = {10, 0, 0, 2}, .port = 2},
                              {.family = 6, .ip = {[15] = 1}, .port = 3}};
    size_t pos = 0;
    while (pos + 3 <= size) {
        uint8_t ctl = data[pos];
        size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
        pos += 3;
        if (len > size - pos)
            len = size - pos;
        if (ctl & 8)
            now += 2000;
        srv_rak_receive(w.server, &senders[ctl & 3], data + pos, len, now);
        pos += len;
        if (ctl & 4) {
            now += 50;
            srv_rak_tick(w.server, now);
        }
    }
    srv_rak_tick(w.server, now + 100);
    srv_rak_disconnect_all(w.server, "done");
    srv_rak_free(w.server);
    srv_rak_free(w.client);
    return 0;
}
