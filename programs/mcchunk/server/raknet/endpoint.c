/*
 * endpoint.c: a RakNet endpoint — the table of peers by address, the
 * offline messages (unconnected ping/pong, open connection request/reply
 * 1 and 2, incompatible protocol, no free connections) for both the server
 * and the client side, timeouts, and the reaping of peers that are gone.
 *
 * The offline handshake keeps no state on the server until the second
 * request: reply 1 is computed from request 1 alone (its size is the MTU
 * probe), so a flood of first requests costs nothing but the answers. A
 * peer is created by request 2, counted against max_peers and timed out if
 * it does not finish connecting. Peers are freed only here, at the end of
 * an entry point (never inside a callback), after their `disconnected`.
 */
#include <stdio.h>
#include <stdlib.h>

#include "server/raknet/raknet_private.h"

#define HANDSHAKE_RESEND_MS 500
#define RECENT_PROTOCOLS 256

void srv_rak_config_defaults(srv_rak_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->max_peers = 1024;
    cfg->max_mtu = MC_RAK_MAX_MTU;
    cfg->protocol = 11;
    cfg->min_protocol = 10;
    cfg->max_protocol = 11;
    cfg->max_split_parts = 8192;
    cfg->max_splits = 16;
    cfg->max_reassembly_bytes = (size_t)16 << 20;
    cfg->max_message_bytes = (size_t)4 << 20;
    cfg->send_window_bytes = (size_t)16 << 20;
    cfg->max_in_flight = 512;
    cfg->idle_timeout_ms = 10000;
    cfg->ack_timeout_ms = 15000;
    cfg->handshake_timeout_ms = 10000;
    cfg->ping_interval_ms = 2000;
    cfg->max_bad_datagrams = 64;
}

/* The protocol each recent first request announced (request 2 does not
 * repeat it), so that a peer can say what it speaks: one slot per address,
 * the oldest reused. A peer whose slot was reused by then (a flood of first
 * requests) reports protocol 0. */
typedef struct recent_protocol {
    srv_rak_addr addr;
    uint8_t protocol;
} recent_protocol;

typedef struct endpoint {
    srv_rak rak;
    recent_protocol recent[RECENT_PROTOCOLS];
    unsigned recent_next;
} endpoint;

srv_rak *srv_rak_new(const srv_rak_config *cfg, const srv_rak_callbacks *cb)
{
    endpoint *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    srv_rak *rak = &e->rak;
    rak->cfg = *cfg;
    rak->cb = *cb;
    if (rak->cfg.max_mtu < MC_RAK_MIN_MTU || rak->cfg.max_mtu > MC_RAK_MAX_MTU)
        rak->cfg.max_mtu = MC_RAK_MAX_MTU;
    if (rak->cfg.max_in_flight == 0 || rak->cfg.max_in_flight > 1024)
        rak->cfg.max_in_flight = 1024;
    if (rak->cfg.max_splits == 0)
        rak->cfg.max_splits = 1;
    return rak;
}

static void free_peer(srv_rak_peer *p)
{
    srv__rak_peer_release(p);
    free(p);
}

void srv_rak_free(srv_rak *rak)
{
    if (!rak)
        return;
    for (srv_rak_peer *p = rak->peers, *next; p; p = next) {
        next = p->next;
        free_peer(p);
    }
    free(rak->pong);
    free((endpoint *)rak);
}

void srv_rak_set_pong(srv_rak *rak, const char *data, size_t len)
{
    if (len > 0xFFFF)
        len = 0xFFFF;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return;
    memcpy(copy, data, len);
    free(rak->pong);
    rak->pong = copy;
    rak->pong_len = len;
}

void srv_rak_addr_format(const srv_rak_addr *a, char *buf, size_t cap)
{
    if (a->family == 6) {
        char ip[48];
        size_t n = 0;
        for (int i = 0; i < 16; i += 2)
            n += (size_t)snprintf(ip + n, sizeof ip - n, "%s%x", i ? ":" : "", a->ip[i] << 8 | a->ip[i + 1]);
        snprintf(buf, cap, "[%s]:%u", ip, a->port);
    } else {
        snprintf(buf, cap, "%u.%u.%u.%u:%u", a->ip[0], a->ip[1], a->ip[2], a->ip[3], a->port);
    }
}

static srv_rak_peer *find_peer(srv_rak *rak, const srv_rak_addr *a)
{
    for (srv_rak_peer *p = rak->peers; p; p = p->next)
        if (p->state != MC__RAK_DEAD && srv__rak_addr_equal(&p->addr, a))
            return p;
    return NULL;
}

static srv_rak_peer *new_peer(srv_rak *rak, const srv_rak_addr *a)
{
    if (rak->npeers >= rak->cfg.max_peers)
        return NULL;
    srv_rak_peer *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->rak = rak;
    p->addr = *a;
    srv_rak_addr_format(a, p->name, sizeof p->name);
    p->created_ms = p->last_recv_ms = rak->now;
    p->next = rak->peers;
    rak->peers = p;
    rak->npeers++;
    return p;
}

/* Frees the peers that are gone, unless inside an entry point. */
static void reap(srv_rak *rak)
{
    if (rak->depth)
        return;
    for (srv_rak_peer **pp = &rak->peers; *pp;) {
        srv_rak_peer *p = *pp;
        if (p->state == MC__RAK_DEAD) {
            srv__rak_peer_notify(p, "closed");
            *pp = p->next;
            rak->npeers--;
            free_peer(p);
        } else {
            pp = &p->next;
        }
    }
}

/* ------------------------------------------------------ offline messages */

static void send_ocr1(srv_rak_peer *p)
{
    uint8_t d[MC_RAK_MAX_MTU];
    size_t len = (size_t)p->mtu - MC__RAK_UDP_OVERHEAD;
    memset(d, 0, len);
    d[0] = MC__RAK_OPEN_REQUEST_1;
    memcpy(d + 1, srv__rak_magic, MC__RAK_MAGIC_LEN);
    d[17] = p->rak->cfg.protocol;
    srv__rak_emit(p->rak, &p->addr, d, len);
}

static void send_ocr2(srv_rak_peer *p)
{
    uint8_t d[64];
    size_t n = 0;
    d[n++] = MC__RAK_OPEN_REQUEST_2;
    memcpy(d + n, srv__rak_magic, MC__RAK_MAGIC_LEN);
    n += MC__RAK_MAGIC_LEN;
    n += srv__rak_addr_write(d + n, &p->addr);
    mc_store_u16be(d + n, p->mtu);
    mc_store_u64be(d + n + 2, p->rak->cfg.guid);
    n += 10;
    srv__rak_emit(p->rak, &p->addr, d, n);
}

static void send_reply2(srv_rak *rak, const srv_rak_peer *p)
{
    uint8_t d[64];
    size_t n = 0;
    d[n++] = MC__RAK_OPEN_REPLY_2;
    memcpy(d + n, srv__rak_magic, MC__RAK_MAGIC_LEN);
    n += MC__RAK_MAGIC_LEN;
    mc_store_u64be(d + n, rak->cfg.guid);
    n += 8;
    n += srv__rak_addr_write(d + n, &p->addr);
    mc_store_u16be(d + n, p->mtu);
    d[n + 2] = 0; /* no security */
    n += 3;
    srv__rak_emit(rak, &p->addr, d, n);
}

/* id, magic, guid: the shape of "incompatible protocol" (after the
 * protocol byte) and "no free incoming connections". */
static void send_refusal(srv_rak *rak, const srv_rak_addr *to, uint8_t id, bool with_protocol)
{
    uint8_t d[26];
    size_t n = 0;
    d[n++] = id;
    if (with_protocol)
        d[n++] = rak->cfg.max_protocol;
    memcpy(d + n, srv__rak_magic, MC__RAK_MAGIC_LEN);
    n += MC__RAK_MAGIC_LEN;
    mc_store_u64be(d + n, rak->cfg.guid);
    n += 8;
    srv__rak_emit(rak, to, d, n);
}

static void handle_ping(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len)
{
    if (!rak->cfg.accept || len < 33)
        return;
    uint8_t *d = malloc(35 + rak->pong_len);
    if (!d)
        return;
    d[0] = MC__RAK_UNCONNECTED_PONG;
    memcpy(d + 1, data + 1, 8); /* their time */
    mc_store_u64be(d + 9, rak->cfg.guid);
    memcpy(d + 17, srv__rak_magic, MC__RAK_MAGIC_LEN);
    mc_store_u16be(d + 33, (uint16_t)rak->pong_len);
    if (rak->pong_len)
        memcpy(d + 35, rak->pong, rak->pong_len);
    srv__rak_emit(rak, from, d, 35 + rak->pong_len);
    free(d);
}

static void handle_ocr1(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len)
{
    if (!rak->cfg.accept || len < 18)
        return;
    uint8_t protocol = data[17];
    if (protocol < rak->cfg.min_protocol || protocol > rak->cfg.max_protocol) {
        srv__rak_log(rak, MC_RAK_LOG_INFO, "incompatible RakNet protocol %u from a client (this server speaks %u-%u)",
                    protocol, rak->cfg.min_protocol, rak->cfg.max_protocol);
        send_refusal(rak, from, MC__RAK_INCOMPATIBLE, true);
        return;
    }
    endpoint *e = (endpoint *)rak;
    recent_protocol *slot = NULL; /* the address's own slot (MTU discovery repeats request 1), else the oldest */
    for (unsigned i = 0; i < RECENT_PROTOCOLS && !slot; i++)
        if (srv__rak_addr_equal(&e->recent[i].addr, from))
            slot = &e->recent[i];
    if (!slot)
        slot = &e->recent[e->recent_next++ % RECENT_PROTOCOLS];
    *slot = (recent_protocol){*from, protocol};
    size_t mtu = len + MC__RAK_UDP_OVERHEAD;
    if (mtu > rak->cfg.max_mtu)
        mtu = rak->cfg.max_mtu;
    uint8_t d[28];
    d[0] = MC__RAK_OPEN_REPLY_1;
    memcpy(d + 1, srv__rak_magic, MC__RAK_MAGIC_LEN);
    mc_store_u64be(d + 17, rak->cfg.guid);
    d[25] = 0; /* no security */
    mc_store_u16be(d + 26, (uint16_t)mtu);
    srv__rak_emit(rak, from, d, sizeof d);
}

static void handle_ocr2(srv_rak *rak, srv_rak_peer *p, const srv_rak_addr *from, const uint8_t *data, size_t len)
{
    if (!rak->cfg.accept)
        return;
    mc_reader r;
    mc_reader_init(&r, data + 17, len - 17, "raknet", NULL);
    srv_rak_addr server;
    if (!srv__rak_addr_read(&r, &server))
        return;
    uint16_t mtu = mc_read_u16be(&r);
    uint64_t guid = mc_read_u64be(&r);
    if (!mc_reader_ok(&r) || mtu < MC_RAK_MIN_MTU)
        return;
    if (mtu > rak->cfg.max_mtu)
        mtu = rak->cfg.max_mtu;
    if (p && !p->client && p->guid == guid) {
        /* Our reply was lost: say it again. */
        if (p->state == MC__RAK_CONNECTING)
            send_reply2(rak, p);
        return;
    }
    if (p && !p->client) /* a new client on the address of an old one (a restart) */
        srv__rak_peer_drop(p, "a new connection from the same address");
    else if (p)
        return;
    p = new_peer(rak, from);
    if (!p) {
        send_refusal(rak, from, MC__RAK_NO_FREE_CONNECTIONS, false);
        return;
    }
    p->mtu = mtu;
    p->guid = guid;
    endpoint *e = (endpoint *)rak;
    for (unsigned i = 0; i < RECENT_PROTOCOLS; i++)
        if (srv__rak_addr_equal(&e->recent[i].addr, from))
            p->protocol = e->recent[i].protocol;
    if (!srv__rak_peer_start(p)) {
        p->state = MC__RAK_DEAD;
        return;
    }
    p->state = MC__RAK_CONNECTING;
    send_reply2(rak, p);
}

static void handle_reply1(srv_rak_peer *p, const uint8_t *data, size_t len)
{
    if (!p || !p->client || p->state != MC__RAK_HANDSHAKE_1 || len < 28)
        return;
    if (data[25]) {
        srv__rak_peer_drop(p, "the server wants RakNet security, which is not supported");
        return;
    }
    uint16_t mtu = mc_load_u16be(data + 26);
    if (mtu < MC_RAK_MIN_MTU) {
        srv__rak_peer_drop(p, "the server offers MTU %u", mtu);
        return;
    }
    if (mtu < p->mtu)
        p->mtu = mtu;
    p->guid = mc_load_u64be(data + 17);
    p->protocol = p->rak->cfg.protocol;
    p->state = MC__RAK_HANDSHAKE_2;
    p->hs_tries = 0;
    p->hs_next_ms = p->rak->now + HANDSHAKE_RESEND_MS;
    send_ocr2(p);
}

static void handle_reply2(srv_rak_peer *p, const uint8_t *data, size_t len)
{
    if (!p || !p->client || p->state != MC__RAK_HANDSHAKE_2 || len < 25)
        return;
    mc_reader r;
    mc_reader_init(&r, data + 25, len - 25, "raknet", NULL);
    srv_rak_addr us;
    if (!srv__rak_addr_read(&r, &us))
        return;
    uint16_t mtu = mc_read_u16be(&r);
    uint8_t security = mc_read_u8(&r);
    if (!mc_reader_ok(&r) || security || mtu < MC_RAK_MIN_MTU)
        return;
    if (mtu < p->mtu)
        p->mtu = mtu;
    if (!srv__rak_peer_start(p)) {
        srv__rak_peer_drop(p, "out of memory");
        return;
    }
    p->state = MC__RAK_CONNECTING;
    srv__rak_peer_send_connection_request(p);
}

static void handle_offline(srv_rak *rak, srv_rak_peer *p, const srv_rak_addr *from, const uint8_t *data, size_t len)
{
    uint8_t id = data[0];
    /* Where the magic sits in each message. */
    size_t magic_at = id == MC__RAK_UNCONNECTED_PING || id == MC__RAK_UNCONNECTED_PING_OPEN ? 9
                      : id == MC__RAK_UNCONNECTED_PONG                                     ? 17
                      : id == MC__RAK_INCOMPATIBLE                                         ? 2
                                                                                           : 1;
    bool known = id == MC__RAK_UNCONNECTED_PING || id == MC__RAK_UNCONNECTED_PING_OPEN ||
                 id == MC__RAK_UNCONNECTED_PONG || id == MC__RAK_OPEN_REQUEST_1 || id == MC__RAK_OPEN_REPLY_1 ||
                 id == MC__RAK_OPEN_REQUEST_2 || id == MC__RAK_OPEN_REPLY_2 || id == MC__RAK_INCOMPATIBLE ||
                 id == MC__RAK_NO_FREE_CONNECTIONS;
    if (!known || len < magic_at + MC__RAK_MAGIC_LEN || memcmp(data + magic_at, srv__rak_magic, MC__RAK_MAGIC_LEN)) {
        rak->stats.bad_datagrams++;
        return;
    }
    switch (id) {
    case MC__RAK_UNCONNECTED_PING:
    case MC__RAK_UNCONNECTED_PING_OPEN:
        handle_ping(rak, from, data, len);
        break;
    case MC__RAK_UNCONNECTED_PONG:
        if (len >= 35 && rak->cb.pong) {
            size_t n = mc_load_u16be(data + 33);
            if (n <= len - 35)
                rak->cb.pong(rak->cb.user, from, data + 35, n);
        }
        break;
    case MC__RAK_OPEN_REQUEST_1:
        handle_ocr1(rak, from, data, len);
        break;
    case MC__RAK_OPEN_REQUEST_2:
        handle_ocr2(rak, p, from, data, len);
        break;
    case MC__RAK_OPEN_REPLY_1:
        handle_reply1(p, data, len);
        break;
    case MC__RAK_OPEN_REPLY_2:
        handle_reply2(p, data, len);
        break;
    case MC__RAK_INCOMPATIBLE:
        if (p && p->client && p->state <= MC__RAK_HANDSHAKE_2)
            srv__rak_peer_drop(p, "incompatible RakNet protocol (the server speaks %u)", data[1]);
        break;
    case MC__RAK_NO_FREE_CONNECTIONS:
        if (p && p->client && p->state <= MC__RAK_HANDSHAKE_2)
            srv__rak_peer_drop(p, "the server has no free connections");
        break;
    }
}

/* -------------------------------------------------------- entry points */

static void flush_all(srv_rak *rak)
{
    for (srv_rak_peer *p = rak->peers; p; p = p->next)
        srv__rak_peer_flush(p);
}

/* One datagram; flush: send what it brought about now (else the caller
 * flushes once after a batch of them). */
static void receive(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len, uint64_t now_ms,
                    bool flush)
{
    rak->now = now_ms;
    rak->stats.datagrams_received++;
    if (len == 0)
        return;
    rak->depth++;
    srv_rak_peer *p = find_peer(rak, from);
    if (data[0] & MC__RAK_VALID) {
        if (p && p->rs) {
            p->last_recv_ms = now_ms;
            srv__rak_peer_datagram(p, data, len);
        } else {
            rak->stats.bad_datagrams++;
        }
    } else {
        handle_offline(rak, p, from, data, len);
    }
    if (flush)
        flush_all(rak);
    rak->depth--;
    reap(rak);
}

void srv_rak_receive(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len, uint64_t now_ms)
{
    receive(rak, from, data, len, now_ms, true);
}

void srv_rak_receive_unflushed(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len,
                               uint64_t now_ms)
{
    receive(rak, from, data, len, now_ms, false);
}

static void tick_handshake(srv_rak_peer *p)
{
    srv_rak *rak = p->rak;
    if (rak->now < p->hs_next_ms)
        return;
    p->hs_tries++;
    p->hs_next_ms = rak->now + HANDSHAKE_RESEND_MS;
    if (p->state == MC__RAK_HANDSHAKE_1) {
        /* MTU discovery: two tries at each size. */
        p->mtu = p->hs_tries < 2 ? rak->cfg.max_mtu : p->hs_tries < 4 ? 1200 : MC_RAK_MIN_MTU;
        if (p->mtu > rak->cfg.max_mtu)
            p->mtu = rak->cfg.max_mtu;
        send_ocr1(p);
    } else {
        send_ocr2(p);
    }
}

void srv_rak_tick(srv_rak *rak, uint64_t now_ms)
{
    rak->now = now_ms;
    rak->depth++;
    for (srv_rak_peer *p = rak->peers; p; p = p->next) {
        if (p->state == MC__RAK_DEAD)
            continue;
        if (p->state == MC__RAK_CLOSING) {
            srv__rak_peer_tick(p);
            if (p->state == MC__RAK_CLOSING && (srv__rak_peer_idle(p) || now_ms >= p->close_deadline_ms))
                p->state = MC__RAK_DEAD;
            continue;
        }
        if (now_ms - p->last_recv_ms > rak->cfg.idle_timeout_ms) {
            srv__rak_peer_drop(p, "silent for %u ms", rak->cfg.idle_timeout_ms);
            continue;
        }
        if (p->state != MC__RAK_CONNECTED && now_ms - p->created_ms > rak->cfg.handshake_timeout_ms) {
            srv__rak_peer_drop(p, "connection not established within %u ms", rak->cfg.handshake_timeout_ms);
            continue;
        }
        if (p->state == MC__RAK_HANDSHAKE_1 || p->state == MC__RAK_HANDSHAKE_2)
            tick_handshake(p);
        else
            srv__rak_peer_tick(p);
    }
    rak->depth--;
    reap(rak);
}

void srv_rak_flush(srv_rak *rak, uint64_t now_ms)
{
    rak->now = now_ms;
    flush_all(rak);
}

srv_rak_peer *srv_rak_connect(srv_rak *rak, const srv_rak_addr *to, uint64_t now_ms)
{
    rak->now = now_ms;
    if (find_peer(rak, to))
        return NULL;
    srv_rak_peer *p = new_peer(rak, to);
    if (!p)
        return NULL;
    p->client = true;
    p->state = MC__RAK_HANDSHAKE_1;
    p->mtu = rak->cfg.max_mtu;
    p->hs_next_ms = now_ms + HANDSHAKE_RESEND_MS;
    send_ocr1(p);
    return p;
}

void srv_rak_ping(srv_rak *rak, const srv_rak_addr *to, uint64_t now_ms)
{
    rak->now = now_ms;
    uint8_t d[33];
    d[0] = MC__RAK_UNCONNECTED_PING;
    mc_store_u64be(d + 1, now_ms);
    memcpy(d + 9, srv__rak_magic, MC__RAK_MAGIC_LEN);
    mc_store_u64be(d + 25, rak->cfg.guid);
    srv__rak_emit(rak, to, d, sizeof d);
}

void srv_rak_disconnect_all(srv_rak *rak, const char *reason)
{
    rak->depth++;
    for (srv_rak_peer *p = rak->peers; p; p = p->next) {
        if (p->state == MC__RAK_HANDSHAKE_1 || p->state == MC__RAK_HANDSHAKE_2) {
            p->state = MC__RAK_DEAD;
            srv__rak_peer_notify(p, reason);
        } else {
            srv_rak_disconnect(p, reason);
        }
    }
    flush_all(rak);
    rak->depth--;
    reap(rak);
}

unsigned srv_rak_peer_count(const srv_rak *rak) { return rak->npeers; }
uint64_t srv_rak_now(const srv_rak *rak) { return rak->now; }
void srv_rak_peer_set_user(srv_rak_peer *p, void *user) { p->user = user; }
void *srv_rak_peer_user(const srv_rak_peer *p) { return p->user; }
const srv_rak_addr *srv_rak_peer_addr(const srv_rak_peer *p) { return &p->addr; }
const char *srv_rak_peer_name(const srv_rak_peer *p) { return p->name; }
uint16_t srv_rak_peer_mtu(const srv_rak_peer *p) { return p->mtu; }
uint8_t srv_rak_peer_protocol(const srv_rak_peer *p) { return p->protocol; }
uint64_t srv_rak_peer_guid(const srv_rak_peer *p) { return p->guid; }
bool srv_rak_peer_connected(const srv_rak_peer *p) { return p->state == MC__RAK_CONNECTED; }
const srv_rak_stats *srv_rak_get_stats(const srv_rak *rak) { return &rak->stats; }
