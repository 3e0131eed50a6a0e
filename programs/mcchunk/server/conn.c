/*
 * conn.c: a Java client's TCP connection, on libuv (conn.h).
 *
 * Each connection owns a receive buffer into which libuv reads directly;
 * complete frames are cut from its front by mc_java_frame_read, which also
 * enforces vanilla's frame and inflated-size limits, so a connection never
 * holds more than one maximal frame plus one read of input. Writes are
 * queued to libuv with a counter of bytes not yet sent. Chunks are queued
 * only while that counter is low (back-pressure: the world resumes when it
 * drains); a client that lets it grow past max_pending_write, or whose queue
 * takes nothing for send_timeout, is too slow and is dropped, so a stalled
 * client cannot make the server buffer a world. A connection that opens
 * with 0xFE is a pre-1.7 server-list ping, answered here: it has no frames.
 */
#include "server/conn.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-connection buffers larger than this are freed once used. */
#define CONN_BUF_KEEP ((size_t)256 << 10)

/* ------------------------------------------------------------- writing */

typedef struct write_req {
    uv_write_t req;
    srv_conn *conn;
    size_t len, cap;
    uint8_t data[];
} write_req;

/* A loop turn sends many packets to one client (a column is a packet or
 * two of 1-3 KiB, then keep-alives, block and entity updates). Handed to
 * the socket one by one, each cost a write system call and a TCP segment of
 * its own: about 1.3 writes per column, with two thirds of the server's
 * CPU in the kernel (bench_server, 1.21.1 clients). Packets below
 * GATHER_BYTES are gathered in one buffer per connection instead, sent when
 * it is full and at the end of the loop turn (the server's check handle),
 * so none waits longer than the turn it was made in. */
#define GATHER_BYTES ((size_t)64 << 10)

/* Chunks are queued to a client only while its queue holds less than this,
 * and resume once it is half as full. The queue is what a keep-alive or a
 * block change sent now waits behind, so it is kept to about a second of
 * what the client has been reading (its drain rate, measured while it had a
 * backlog), between 128 KiB and 1 MiB (and half the hard limit): a fast
 * client keeps a full pipe, a slow one (a crowded bot process, a bad link)
 * still gets its keep-alives within seconds and simply receives columns at
 * its own pace. What the view still lacks waits in the view's own list
 * (8 bytes a column), not as encoded packets. */
#define CHUNK_QUEUE_MIN ((size_t)128 << 10)
#define CHUNK_QUEUE_MAX ((size_t)1 << 20)

static size_t chunk_queue_limit(const srv_conn *c)
{
    size_t limit = c->srv->cfg->max_pending_write / 2;
    if (limit > CHUNK_QUEUE_MAX)
        limit = CHUNK_QUEUE_MAX;
    if (c->drain_rate && c->drain_rate < limit)
        limit = c->drain_rate < CHUNK_QUEUE_MIN ? CHUNK_QUEUE_MIN : c->drain_rate;
    return limit;
}

bool srv_conn_chunks_must_wait(srv_conn *c)
{
    if (c->pending_write < chunk_queue_limit(c))
        return false;
    c->chunks_waiting = true;
    return true;
}

/* On every tick: the bytes per second the client took while it had a
 * backlog (a client with an empty queue reads as fast as we send, which
 * says nothing of its pace). An average over about a second. */
void srv_conn_measure_drain(srv_conn *c, uint64_t tick_ms)
{
    uint64_t delta = c->bytes_sent - c->drain_mark;
    c->drain_mark = c->bytes_sent;
    if (c->drain_backlogged && tick_ms) {
        uint64_t rate = delta * 1000u / tick_ms;
        c->drain_rate = c->drain_rate ? (size_t)((c->drain_rate + rate) / 2) : (size_t)rate;
        if (!c->drain_rate)
            c->drain_rate = 1; /* measured, and nothing got through */
    }
    c->drain_backlogged = c->pending_write > 0;
}

static void on_write(uv_write_t *req, int status)
{
    write_req *w = (write_req *)req;
    srv_conn *c = w->conn;
    c->pending_write -= w->len;
    c->bytes_sent += w->len;
    c->write_progress_ms = srv_server_clock(c->srv);
    free(w);
    if (status < 0 && !c->closing) {
        srv_conn_close(c, "write failed");
        return;
    }
    srv_conn_resume_if_drained(c);
}

void srv_conn_resume_if_drained(srv_conn *c)
{
    if (c->chunks_waiting && !c->closing && c->pending_write <= chunk_queue_limit(c) / 2) {
        c->chunks_waiting = false;
        if (c->srv->on_drained)
            c->srv->on_drained(c);
    }
}

/* Drops a client that does not take what is sent to it. The reason is a
 * warning: it is the server protecting itself, not a player leaving. */
static void conn_drop_slow(srv_conn *c, const char *why)
{
    if (c->closing)
        return;
    srv_log(c->srv, MC_LOG_WARN, "%s%s%s disconnected: client too slow: %s (%zu KiB unsent)", c->peer,
               c->name[0] ? " " : "", c->name, why, c->pending_write >> 10);
    srv_conn_close(c, NULL);
}

/* Queues raw bytes (already framed). */
static void conn_write_raw(srv_conn *c, const uint8_t *data, size_t len);
void srv_conn_send_framed(srv_conn *c, const uint8_t *data, size_t len)
{
    conn_write_raw(c, data, len);
}

/* Hands a filled buffer to libuv; false when the connection had to close. */
static bool write_queued(srv_conn *c, write_req *w)
{
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)w->len);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_write) < 0) {
        c->pending_write -= w->len;
        free(w);
        srv_conn_close(c, "write failed");
        return false;
    }
    return true;
}

/* Sends what the connection gathered this turn; false when it had to close. */
static bool gather_send(srv_conn *c)
{
    write_req *w = c->gather;
    c->gather = NULL;
    return w ? write_queued(c, w) : true;
}

static void on_flush(uv_check_t *h)
{
    srv_server *srv = h->data;
    srv_conn_flush_all(srv);
    uv_check_stop(h);
    srv->flush_active = false;
}

void srv_conn_flush_all(srv_server *srv)
{
    for (srv_conn *c = srv->conns; c; c = c->next)
        if (c->gather && !c->closing)
            gather_send(c);
}

/* The end of this loop turn sends what was gathered; false when it cannot
 * (the server has stopped its handles): send now. */
static bool gather_arm(srv_server *srv)
{
    if (!srv->flush_ready) {
        uv_check_init(srv->loop, &srv->flush);
        srv->flush.data = srv;
        srv->flush_ready = true;
    }
    if (uv_is_closing((uv_handle_t *)&srv->flush))
        return false;
    if (!srv->flush_active) {
        uv_check_start(&srv->flush, on_flush);
        srv->flush_active = true;
    }
    return true;
}

static void conn_write_raw(srv_conn *c, const uint8_t *data, size_t len)
{
    if (c->closing || len == 0)
        return;
    if (c->gather && c->gather->len + len > c->gather->cap && !gather_send(c))
        return;
    if (c->pending_write == 0)
        c->write_progress_ms = srv_server_clock(c->srv); /* the stall clock starts with the queue */
    c->pending_write += len;
    write_req *w = c->gather;
    if (!w) {
        size_t cap = len < GATHER_BYTES ? GATHER_BYTES : len;
        w = malloc(sizeof *w + cap);
        if (!w) {
            c->pending_write -= len;
            srv_conn_close(c, "out of memory");
            return;
        }
        w->conn = c;
        w->len = 0;
        w->cap = cap;
    }
    memcpy(w->data + w->len, data, len);
    w->len += len;
    if (w != c->gather) { /* a new buffer: this turn's, or a large packet sent at once */
        if (len < GATHER_BYTES && gather_arm(c->srv))
            c->gather = w;
        else if (!write_queued(c, w))
            return;
    }
    if (c->pending_write > c->srv->cfg->max_pending_write)
        conn_drop_slow(c, "send queue over --send-queue-kb");
}

void srv_conn_send(srv_conn *c, const mc_buf *packet)
{
    if (c->closing)
        return;
    if (!mc_buf_ok(packet)) {
        srv_conn_close(c, "out of memory building a packet");
        return;
    }
    c->frame.len = 0;
    mc_error err;
    if (mc_java_frame_write(&c->frame, packet->data, packet->len, c->threshold, c->z, &err) != MC_OK) {
        srv_log(c->srv, MC_LOG_ERROR, "%s: cannot frame packet: %s", c->peer, err.message);
        srv_conn_close(c, "packet too large");
        return;
    }
    conn_write_raw(c, c->frame.data, c->frame.len);
    if (c->frame.cap > CONN_BUF_KEEP)
        mc_buf_free(&c->frame);
    if (c->pkt.cap > CONN_BUF_KEEP)
        mc_buf_free(&c->pkt);
}

/* Starts a packet in c->pkt with the id of `name` in the current state;
 * returns false (and drops the client) when its protocol lacks the packet. */
bool srv_conn_begin(srv_conn *c, mc_java_state state, const char *name)
{
    int id = mc_java_packet_id(c->protocol, state, MC_JAVA_TO_CLIENT, name);
    c->pkt.len = 0;
    if (id < 0) {
        srv_log(c->srv, MC_LOG_ERROR, "%s: protocol %u has no packet %s", c->peer, c->protocol, name);
        srv_conn_close(c, "internal error: missing packet id");
        return false;
    }
    mc_buf_put_varint(&c->pkt, id);
    return true;
}

/* ------------------------------------------------------------- closing */

static void on_closed(uv_handle_t *h)
{
    srv_conn *c = h->data;
    srv_server *srv = c->srv;
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    srv->nconns--;
    srv->trim_wanted = true;
    if (srv->on_conn_free)
        srv->on_conn_free(c);
    mc_buf_free(&c->in);
    mc_buf_free(&c->scratch);
    mc_buf_free(&c->pkt);
    mc_buf_free(&c->frame);
    free(c->gather); /* closed before its turn ended: never sent */
    mc_java_zctx_free(c->z);
    free(c);
}

/* Marks a connection as going away (it stops counting as a player and stops
 * reading); false when it already was. */
static bool mark_closing(srv_conn *c, const char *why)
{
    if (c->closing)
        return false;
    c->closing = true;
    if (c->in_game) {
        c->srv->online--;
        c->in_game = false;
    }
    if (why)
        srv_log(c->srv, MC_LOG_INFO, "%s%s%s disconnected: %s", c->peer, c->name[0] ? " " : "", c->name, why);
    uv_read_stop((uv_stream_t *)&c->tcp);
    return true;
}

void srv_conn_close(srv_conn *c, const char *why)
{
    if (mark_closing(c, why))
        uv_close((uv_handle_t *)&c->tcp, on_closed);
}

/* After a disconnect packet and our FIN, what the client still sends is read
 * and dropped until it closes too (or MC_DRAIN_MS pass): closing a socket with
 * unread bytes makes the kernel send a reset and throw away what it had not
 * yet sent, so that a client behind on reading (megabytes of chunks queued)
 * would never see the disconnect packet at the end, nor learn why it was
 * dropped. While the server stops, its own grace (server.c) bounds the whole
 * wait. */
#define MC_DRAIN_MS 2000u
#define MC_FLUSH_STALL_MS 5000u

void srv_conn_close_now(srv_conn *c)
{
    c->draining = false;
    if (!uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void on_drain_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    static char sink[16384]; /* the loop is single-threaded; the bytes are dropped */
    (void)h;
    (void)suggested;
    buf->base = sink;
    buf->len = sizeof sink;
}

static void on_drain_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    if (nread < 0)
        srv_conn_close_now(s->data);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    srv_conn *c = req->data;
    free(req);
    c->flushing = false;
    if (status < 0 || c->srv->stopping || uv_read_start((uv_stream_t *)&c->tcp, on_drain_alloc, on_drain_read) < 0) {
        srv_conn_close_now(c);
        return;
    }
    c->draining = true;
    c->drain_until = srv_server_clock(c->srv) + MC_DRAIN_MS;
}

/* Closes after the queued bytes are sent (used after a disconnect packet). */
void srv_conn_close_after_flush(srv_conn *c, const char *why)
{
    if (c->closing || !gather_send(c)) /* the shutdown waits for what libuv holds */
        return;
    if (!mark_closing(c, why))
        return;
    uv_shutdown_t *req = malloc(sizeof *req);
    if (!req || uv_shutdown(req, (uv_stream_t *)&c->tcp, on_shutdown) < 0) {
        free(req);
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return;
    }
    req->data = c;
    /* The shutdown completes once the queue is sent; a client that does not
     * read would keep it (and the queue's memory) for ever: the tick closes
     * the connection when its queue stops moving (MC_FLUSH_STALL_MS). */
    c->flushing = true;
    c->write_progress_ms = srv_server_clock(c->srv);
}

/* Appends a JSON string literal (quotes included) for UTF-8 text. */
/* Appends {"text": ...} as a VarInt-prefixed JSON string. */
void srv_put_json_text(mc_buf *pkt, const char *text)
{
    mc_buf json;
    mc_buf_init(&json, NULL);
    mc_buf_put(&json, "{\"text\":", 8);
    srv_json_string(&json, text);
    mc_buf_put_u8(&json, '}');
    mc_buf_put_str_varint(pkt, json.data, json.len);
    mc_buf_free(&json);
}

/* Appends a text component: a JSON string before 1.20.3 (and always in the
 * login state), a nameless NBT string tag from 1.20.3 (765) on. */
void srv_conn_put_text(srv_conn *c, mc_java_state state, const char *text)
{
    if (state != MC_JAVA_LOGIN && c->era.text_nbt) {
        size_t n = strlen(text);
        if (n > 65535)
            n = 65535;
        mc_buf_put_u8(&c->pkt, 8); /* TAG_String, no name (1.20.2+ network NBT) */
        mc_buf_put_str_u16be(&c->pkt, text, n);
        return;
    }
    srv_put_json_text(&c->pkt, text);
}

void srv_conn_disconnect(srv_conn *c, const char *reason)
{
    if (c->closing)
        return;
    const char *name = NULL;
    mc_java_state st = (mc_java_state)c->state;
    if (st == MC_JAVA_LOGIN || st == MC_JAVA_CONFIGURATION)
        name = "disconnect";
    else if (st == MC_JAVA_PLAY)
        name = "kick_disconnect";
    if (name && mc_java_packet_id(c->protocol, st, MC_JAVA_TO_CLIENT, name) >= 0) {
        srv_conn_begin(c, st, name);
        srv_conn_put_text(c, st, reason);
        srv_conn_send(c, &c->pkt);
    }
    srv_conn_close_after_flush(c, reason);
}

/* Appends UTF-8 text as UTF-16BE code units (BMP only; others become '?'). */
static size_t put_utf16be(mc_buf *b, const char *s)
{
    size_t units = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp = '?';
        size_t n = 1;
        if (p[0] < 0x80)
            cp = p[0];
        else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80)
            cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F), n = 2;
        else if ((p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80)
            cp = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F), n = 3;
        else
            while (p[n] && (p[n] & 0xC0) == 0x80)
                n++;
        mc_buf_put_u16be(b, (uint16_t)cp);
        units++;
        p += n;
    }
    return units;
}

/* Pre-1.7 clients open with 0xFE (1.4-1.6 add 0x01 and a plugin message).
 * The answer is a kick packet 0xFF, a u16 length in UTF-16 units, and
 * UTF-16BE text: 1.4+ "\u00a71\0protocol\0version\0motd\0online\0max",
 * older clients "motd\u00a7online\u00a7max". */
static void handle_legacy_ping(srv_conn *c)
{
    srv_server *srv = c->srv;
    bool v14 = c->in.len >= 2 && c->in.data[1] == 0x01;
    char online[16], max[16];
    snprintf(online, sizeof online, "%d", srv->online);
    snprintf(max, sizeof max, "%d", srv->cfg->max_players);
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_buf_put_u8(&out, 0xFF);
    mc_buf_put_u16be(&out, 0);
    size_t units = 0;
    if (v14) {
        const char *parts[] = {"\xc2\xa7" "1", "127", "1.8-26.1", srv->cfg->motd, online, max};
        for (size_t i = 0; i < 6; i++) {
            if (i) {
                mc_buf_put_u16be(&out, 0);
                units++;
            }
            units += put_utf16be(&out, parts[i]);
        }
    } else {
        units += put_utf16be(&out, srv->cfg->motd);
        units += put_utf16be(&out, "\xc2\xa7");
        units += put_utf16be(&out, online);
        units += put_utf16be(&out, "\xc2\xa7");
        units += put_utf16be(&out, max);
    }
    if (mc_buf_ok(&out) && units <= 0xFFFF) {
        mc_store_u16be(out.data + 1, (uint16_t)units);
        conn_write_raw(c, out.data, out.len);
    }
    mc_buf_free(&out);
    srv_conn_close_after_flush(c, "legacy ping answered");
}

/* -------------------------------------------------------------- reading */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    srv_conn *c = h->data;
    if (!mc_buf_reserve(&c->in, 65536)) {
        buf->base = NULL;
        buf->len = 0;
        return;
    }
    buf->base = (char *)c->in.data + c->in.len;
    buf->len = c->in.cap - c->in.len;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    srv_conn *c = s->data;
    if (nread < 0) {
        srv_conn_close(c, nread == UV_EOF ? "connection closed by client" : uv_strerror((int)nread));
        return;
    }
    if (nread == 0)
        return;
    if (!buf->base) {
        srv_conn_close(c, "out of memory");
        return;
    }
    srv__conn_received(c, (size_t)nread);
}

void srv__conn_received(srv_conn *c, size_t n)
{
    c->in.len += n;
    c->bytes_received += (uint64_t)n;
    c->last_recv_ms = srv_server_clock(c->srv);
    size_t off = 0;
    while (!c->closing && off < c->in.len) {
        if (c->state == MC_JAVA_HANDSHAKING && off == 0 && c->in.data[0] == 0xFE) {
            handle_legacy_ping(c);
            return;
        }
        const uint8_t *pkt;
        size_t plen, used;
        mc_error err;
        mc_error_clear(&err);
        mc_status st = mc_java_frame_read(c->in.data + off, c->in.len - off, c->threshold, 0, c->z, &c->scratch,
                                          &pkt, &plen, &used, &err);
        if (st == MC_ERR_TRUNCATED)
            break;
        if (st != MC_OK) {
            srv_log(c->srv, MC_LOG_WARN, "%s: bad frame: %s", c->peer, err.message);
            srv_conn_disconnect(c, "Malformed or oversized packet");
            return;
        }
        off += used;
        c->srv->on_packet(c, pkt, plen);
    }
    if (c->closing)
        return;
    if (off) {
        memmove(c->in.data, c->in.data + off, c->in.len - off);
        c->in.len -= off;
    }
    /* A large packet (up to vanilla's 2 MiB frame, 8 MiB inflated) grows
     * these buffers once; they are not kept that large for the rest of the
     * connection. */
    if (c->in.len == 0 && c->in.cap > CONN_BUF_KEEP)
        mc_buf_free(&c->in);
    if (c->scratch.cap > CONN_BUF_KEEP)
        mc_buf_free(&c->scratch);
}

/* ------------------------------------------------------------ accepting */

srv_conn *srv__conn_new(srv_server *srv)
{
    srv_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->srv = srv;
    c->threshold = -1;
    c->state = MC_JAVA_HANDSHAKING;
    mc_buf_init(&c->in, NULL);
    mc_buf_init(&c->scratch, NULL);
    mc_buf_init(&c->pkt, NULL);
    mc_buf_init(&c->frame, NULL);
    c->z = mc_java_zctx_new(4);
    uv_tcp_init(srv->loop, &c->tcp);
    c->tcp.data = c;
    c->next = srv->conns;
    if (srv->conns)
        srv->conns->prev = c;
    srv->conns = c;
    srv->nconns++;
    snprintf(c->peer, sizeof c->peer, "client");
    c->connected_ms = c->last_recv_ms = srv_server_clock(srv);
    return c;
}

void srv_conn_accept(srv_server *srv, uv_stream_t *listener)
{
    srv_conn *c = srv__conn_new(srv);
    if (!c)
        return;
    if (!c->z || uv_accept(listener, (uv_stream_t *)&c->tcp) < 0) {
        srv_conn_close(c, NULL);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    /* Unsent bytes wait in our queue, not the kernel's: the socket takes at
     * most this much beyond what is in flight, so that the queue the
     * back-pressure measures is the real one (Linux; elsewhere a no-op). */
    uv_os_fd_t fd;
    int lowat = 128 << 10;
#ifdef TCP_NOTSENT_LOWAT
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat);
#else
    (void)fd, (void)lowat;
#endif
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
        char ip[64] = "?";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
    }
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}


/* ---------------------------------------------------------------- tick */

bool srv_conn_tick(srv_conn *c, uint64_t now)
{
    srv_server *srv = c->srv;
    if (c->draining && now >= c->drain_until)
        srv_conn_close_now(c);
    if (c->flushing && now - c->write_progress_ms > MC_FLUSH_STALL_MS) {
        c->flushing = false;
        srv_conn_close_now(c);
    }
    if (c->closing)
        return false;
    if (c->pending_write && now - c->write_progress_ms > (uint64_t)srv->cfg->send_timeout_ms) {
        char why[96];
        snprintf(why, sizeof why, "its send queue took nothing for %d s", srv->cfg->send_timeout_ms / 1000);
        conn_drop_slow(c, why);
        return false;
    }
    return true;
}
