/*
 * server.c: the reference server's network core, on libuv.
 *
 * One event loop, one thread. Each connection owns a receive buffer into
 * which libuv reads directly; complete frames are cut from its front by
 * mc_java_frame_read, which also enforces vanilla's frame and inflated-size
 * limits, so a connection never holds more than one maximal frame plus one
 * read of input. Writes are queued to libuv with a counter of bytes not yet
 * sent. Chunks are queued only while that counter is low (back-pressure:
 * the world resumes when it drains); a client that lets it grow past
 * max_pending_write, or whose queue takes nothing for send_timeout, is too
 * slow and is dropped, so a stalled client cannot make the server buffer a
 * world. Once listening, the log is rate-limited: a flood of connections
 * becomes one line of counts a second, not a line each.
 *
 * The connection state machine follows the Java protocol: handshake, then
 * status (server-list ping, plus the pre-1.7 "legacy" ping that starts with
 * 0xFE) or login (offline mode: UUIDs as the game derives them, optional
 * Set Compression, Login Success in each era's shape), then configuration
 * (1.20.2+) and play. A tick timer drops idle connections and connections
 * that do not finish logging in, and stops the server when asked to.
 */
#include "server/server.h"

#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>
#if defined(__GLIBC__) /* defined by the headers above */
#include <malloc.h>
#endif

#include "mcchunk/java.h"
#include "server/raknet/listener.h"
#include "server/uuid.h"
#include "server/session.h"

void srv_server_config_defaults(srv_server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind = "127.0.0.1";
    cfg->port = 25565;
    cfg->bedrock_port = 19132;
    cfg->view_distance = 10;
    cfg->max_players = 20;
    cfg->motd = "An mcchunk server";
    cfg->compression_threshold = 256;
    cfg->idle_timeout_ms = 30000;
    cfg->login_timeout_ms = 30000;
    cfg->max_pending_write = (size_t)MC_SEND_QUEUE_DEFAULT_KB << 10;
    cfg->send_timeout_ms = MC_SEND_TIMEOUT_DEFAULT_S * 1000;
    cfg->seed = 20260101;
    cfg->cache_bytes = (size_t)256 << 20;
}

/* ------------------------------------------------------------- logging */

static void log_prefix(int level)
{
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    fprintf(stderr, "[%s %s] ", when, level == MC_LOG_WARN ? "WARN" : level == MC_LOG_ERROR ? "ERROR" : "INFO");
}

void srv__srv_log_flush(srv_server *srv)
{
    unsigned *h = srv->log_held;
    if (!h[MC_LOG_INFO] && !h[MC_LOG_WARN] && !h[MC_LOG_ERROR])
        return;
    log_prefix(h[MC_LOG_WARN] || h[MC_LOG_ERROR] ? MC_LOG_WARN : MC_LOG_INFO);
    fprintf(stderr, "log: %u more lines in that second not shown (over %u a second): %u info, %u warnings, %u errors\n",
            h[0] + h[1] + h[2], MC_LOG_LINES_PER_SECOND, h[MC_LOG_INFO], h[MC_LOG_WARN], h[MC_LOG_ERROR]);
    memset(srv->log_held, 0, sizeof srv->log_held);
}

void srv_log(srv_server *srv, int level, const char *fmt, ...)
{
    if ((level == MC_LOG_INFO && srv->cfg->quiet) || srv->cfg->silent)
        return;
    if (srv->log_limited) {
        uint64_t second = uv_hrtime() / 1000000000u;
        if (second != srv->log_second) {
            srv__srv_log_flush(srv);
            srv->log_second = second;
            srv->log_lines = 0;
        }
        if (++srv->log_lines > MC_LOG_LINES_PER_SECOND) {
            srv->log_held[level == MC_LOG_WARN ? MC_LOG_WARN : level == MC_LOG_ERROR ? MC_LOG_ERROR : MC_LOG_INFO]++;
            return;
        }
    }
    log_prefix(level);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Per-connection buffers larger than this are freed once used. */
#define CONN_BUF_KEEP ((size_t)256 << 10)

/* ------------------------------------------------------------- writing */

typedef struct write_req {
    uv_write_t req;
    srv_conn *conn;
    size_t len;
    uint8_t data[];
} write_req;

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
static void conn_measure_drain(srv_conn *c, uint64_t tick_ms)
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
    if (c->chunks_waiting && !c->closing && c->pending_write <= chunk_queue_limit(c) / 2) {
        c->chunks_waiting = false;
        srv_world_resume(c);
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

static void conn_write_raw(srv_conn *c, const uint8_t *data, size_t len)
{
    if (c->closing || len == 0)
        return;
    write_req *w = malloc(sizeof *w + len);
    if (!w) {
        srv_conn_close(c, "out of memory");
        return;
    }
    memcpy(w->data, data, len);
    w->conn = c;
    w->len = len;
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)len);
    if (c->pending_write == 0)
        c->write_progress_ms = srv_server_clock(c->srv); /* the stall clock starts with the queue */
    c->pending_write += len;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_write);
    if (rc < 0) {
        c->pending_write -= len;
        free(w);
        srv_conn_close(c, "write failed");
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
    srv_session_free(c);
    srv_world_view_free(c);
    mc_buf_free(&c->in);
    mc_buf_free(&c->scratch);
    mc_buf_free(&c->pkt);
    mc_buf_free(&c->frame);
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
 * dropped. While the server stops, MC_STOP_GRACE_MS bounds the whole wait. */
#define MC_DRAIN_MS 2000u
#define MC_STOP_GRACE_MS 3000u
#define MC_FLUSH_STALL_MS 5000u

static void conn_close_now(srv_conn *c)
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
        conn_close_now(s->data);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    srv_conn *c = req->data;
    free(req);
    c->flushing = false;
    if (status < 0 || c->srv->stopping || uv_read_start((uv_stream_t *)&c->tcp, on_drain_alloc, on_drain_read) < 0) {
        conn_close_now(c);
        return;
    }
    c->draining = true;
    c->drain_until = srv_server_clock(c->srv) + MC_DRAIN_MS;
}

/* Closes after the queued bytes are sent (used after a disconnect packet). */
static void conn_close_after_flush(srv_conn *c, const char *why)
{
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
void srv_json_string(mc_buf *b, const char *s)
{
    mc_buf_put_u8(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            mc_buf_put_u8(b, '\\');
            mc_buf_put_u8(b, *p);
        } else if (*p < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            mc_buf_put(b, esc, 6);
        } else {
            mc_buf_put_u8(b, *p);
        }
    }
    mc_buf_put_u8(b, '"');
}

/* Appends {"text": ...} as a VarInt-prefixed JSON string. */
static void put_json_text(mc_buf *pkt, const char *text)
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
static void put_text(srv_conn *c, mc_java_state state, const char *text)
{
    if (state != MC_JAVA_LOGIN && c->protocol >= 765) {
        size_t n = strlen(text);
        if (n > 65535)
            n = 65535;
        mc_buf_put_u8(&c->pkt, 8); /* TAG_String, no name (1.20.2+ network NBT) */
        mc_buf_put_str_u16be(&c->pkt, text, n);
        return;
    }
    put_json_text(&c->pkt, text);
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
        put_text(c, st, reason);
        srv_conn_send(c, &c->pkt);
    }
    conn_close_after_flush(c, reason);
}

/* ------------------------------------------------------------ handshake */

static bool protocol_supported(uint32_t p)
{
    return p >= MC_SERVER_MIN_PROTOCOL && p <= MC_SERVER_MAX_PROTOCOL && mc_java_protocol_known(p, NULL);
}

static void handle_handshake(srv_conn *c, mc_reader *r, int id)
{
    if (id != 0) {
        srv_conn_close(c, "expected a handshake");
        return;
    }
    int32_t proto = mc_read_varint(r);
    size_t hn;
    const uint8_t *host = mc_read_str_varint(r, 255 * 4, &hn);
    mc_read_u16be(r);
    int32_t next = mc_read_varint(r);
    (void)host;
    if (!mc_reader_ok(r)) {
        srv_conn_close(c, "malformed handshake");
        return;
    }
    c->protocol = (uint32_t)proto;
    if (next == 1) {
        c->state = MC_JAVA_STATUS;
    } else if (next == 2 || next == 3) { /* 3 = transfer (1.20.5+): treated as a login */
        c->state = MC_JAVA_LOGIN;
        if (!protocol_supported(c->protocol)) {
            char why[160];
            snprintf(why, sizeof why, "Unsupported client version (protocol %d); this server speaks 1.8 to 26.1", proto);
            /* The login disconnect packet is id 0 with a JSON string in every version. */
            c->pkt.len = 0;
            mc_buf_put_varint(&c->pkt, 0);
            put_json_text(&c->pkt, why);
            srv_conn_send(c, &c->pkt);
            conn_close_after_flush(c, why);
        }
    } else {
        srv_conn_close(c, "bad next state in handshake");
    }
}

/* --------------------------------------------------------------- status */

static void handle_status(srv_conn *c, mc_reader *r, int id)
{
    srv_server *srv = c->srv;
    if (id == 0 && !c->status_sent) {
        c->status_sent = true;
        uint32_t shown = protocol_supported(c->protocol) ? c->protocol : MC_SERVER_MAX_PROTOCOL;
        mc_buf json;
        mc_buf_init(&json, NULL);
        char head[160];
        int n = snprintf(head, sizeof head,
                         "{\"version\":{\"name\":\"mcchunk 1.8-26.1\",\"protocol\":%u},"
                         "\"players\":{\"max\":%d,\"online\":%d,\"sample\":[]},\"description\":{\"text\":",
                         shown, srv->cfg->max_players, srv->online);
        mc_buf_put(&json, head, (size_t)n);
        srv_json_string(&json, srv->cfg->motd);
        mc_buf_put(&json, "},\"enforcesSecureChat\":false}", 29);
        c->pkt.len = 0;
        mc_buf_put_varint(&c->pkt, 0);
        mc_buf_put_str_varint(&c->pkt, json.data, json.len);
        mc_buf_free(&json);
        srv_conn_send(c, &c->pkt);
    } else if (id == 1) {
        uint64_t payload = mc_read_u64be(r);
        if (!mc_reader_ok(r)) {
            srv_conn_close(c, "malformed ping");
            return;
        }
        c->pkt.len = 0;
        mc_buf_put_varint(&c->pkt, 1);
        mc_buf_put_u64be(&c->pkt, payload);
        srv_conn_send(c, &c->pkt);
        conn_close_after_flush(c, "status ping answered");
    } else {
        srv_conn_close(c, "unexpected status packet");
    }
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
    conn_close_after_flush(c, "legacy ping answered");
}

/* ---------------------------------------------------------------- login */

static bool valid_name(const uint8_t *s, size_t n)
{
    if (n < 1 || n > 16)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7F)
            return false;
    return true;
}

static void send_login_success(srv_conn *c)
{
    if (!srv_conn_begin(c, MC_JAVA_LOGIN, "success"))
        return;
    size_t nlen = strlen(c->name);
    if (c->protocol < 735) { /* before 1.16: the UUID as a hyphenated string */
        char s[37];
        srv_uuid_format(c->uuid, s);
        mc_buf_put_str_varint(&c->pkt, s, 36);
    } else {
        mc_buf_put(&c->pkt, c->uuid, 16);
    }
    mc_buf_put_str_varint(&c->pkt, c->name, nlen);
    if (c->protocol >= 759) /* 1.19+: profile properties (none offline) */
        mc_buf_put_varint(&c->pkt, 0);
    if (c->protocol >= 766 && c->protocol <= 767) /* 1.20.5-1.21.1: strictErrorHandling */
        mc_buf_put_u8(&c->pkt, 0);
    srv_conn_send(c, &c->pkt);
}

static void handle_login(srv_conn *c, mc_reader *r, int id)
{
    srv_server *srv = c->srv;
    const char *pname = mc_java_packet_name(c->protocol, MC_JAVA_LOGIN, MC_JAVA_TO_SERVER, id);
    if (!pname) {
        srv_conn_disconnect(c, "Unexpected packet during login");
        return;
    }
    if (!strcmp(pname, "login_start") && !c->name[0]) {
        size_t n;
        const uint8_t *s = mc_read_str_varint(r, 16 * 4, &n);
        if (!mc_reader_ok(r) || !valid_name(s, n)) {
            srv_conn_disconnect(c, "Invalid player name");
            return;
        }
        memcpy(c->name, s, n);
        c->name[n] = '\0';
        if (srv->online >= srv->cfg->max_players) {
            srv_conn_disconnect(c, "The server is full");
            return;
        }
        srv_offline_uuid(c->name, n, c->uuid);
        char us[37];
        srv_uuid_format(c->uuid, us);
        srv_log(srv, MC_LOG_INFO, "%s logging in as %s (%s, protocol %u)", c->peer, c->name, us, c->protocol);
        if (srv->cfg->compression_threshold >= 0) {
            if (!srv_conn_begin(c, MC_JAVA_LOGIN, "compress"))
                return;
            mc_buf_put_varint(&c->pkt, srv->cfg->compression_threshold);
            srv_conn_send(c, &c->pkt);
            c->threshold = srv->cfg->compression_threshold;
        }
        send_login_success(c);
        c->in_game = true;
        srv->online++;
        if (c->protocol < 764) { /* before 1.20.2 the client is in play at once */
            c->state = MC_JAVA_PLAY;
            srv_session_begin(c);
        }
    } else if (!strcmp(pname, "login_acknowledged") && c->name[0]) {
        c->state = MC_JAVA_CONFIGURATION;
        srv_session_begin(c);
    } else {
        srv_conn_disconnect(c, "Unexpected packet during login");
    }
}

/* -------------------------------------------------------------- reading */

static void dispatch(srv_conn *c, const uint8_t *p, size_t n)
{
    mc_error err;
    mc_error_clear(&err);
    mc_reader r;
    mc_reader_init(&r, p, n, "packet", &err);
    int32_t id = mc_read_varint(&r);
    if (!mc_reader_ok(&r) || id < 0) {
        srv_conn_close(c, "malformed packet id");
        return;
    }
    switch (c->state) {
    case MC_JAVA_HANDSHAKING: handle_handshake(c, &r, id); break;
    case MC_JAVA_STATUS: handle_status(c, &r, id); break;
    case MC_JAVA_LOGIN: handle_login(c, &r, id); break;
    default: srv_session_packet(c, &r, id); break;
    }
}

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
        dispatch(c, pkt, plen);
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

static void on_connection(uv_stream_t *listener, int status)
{
    srv_server *srv = listener->data;
    if (status < 0) {
        srv_log(srv, MC_LOG_WARN, "accept failed: %s", uv_strerror(status));
        return;
    }
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

/* ------------------------------------------------------- tick and stop */

static void stop_server(srv_server *srv, const char *why)
{
    if (srv->stopping)
        return;
    srv->stopping = true;
    srv__srv_log_flush(srv);
    srv->log_limited = false; /* what stopping says is shown whole */
    srv_log(srv, MC_LOG_INFO, "stopping: %s", why);
    for (srv_conn *c = srv->conns; c; c = c->next) {
        if (c->draining)
            conn_close_now(c);
        else
            srv_conn_disconnect(c, "Server closed");
    }
    uv_close((uv_handle_t *)&srv->listener, NULL);
    srv_bedrock_listener_stop(srv->bedrock);
    srv->bedrock = NULL;
    uv_close((uv_handle_t *)&srv->sigint, NULL);
    uv_close((uv_handle_t *)&srv->sigterm, NULL);
    /* The tick goes on until every client has its "Server closed" or
     * MC_STOP_GRACE_MS pass: a client that does not read would otherwise keep
     * its unsent bytes, and with them the server, alive for ever. */
    srv->stop_until = srv_server_clock(srv) + MC_STOP_GRACE_MS;
}

/* While stopping: closes what is left once every client is gone or it is
 * time, and the tick with it (the loop then ends). */
static void stop_tick(srv_server *srv, uint64_t now)
{
    if (srv->conns && now < srv->stop_until)
        return;
    for (srv_conn *c = srv->conns; c; c = c->next)
        conn_close_now(c);
    uv_close((uv_handle_t *)&srv->tick, NULL);
}

uint64_t srv_server_clock(srv_server *srv)
{
    uint64_t real = uv_now(srv->loop);
    if (real > srv->clock_real_ms) {
        uint64_t step = real - srv->clock_real_ms;
        srv->clock_ms += step < MC_SERVER_MAX_STEP_MS ? step : MC_SERVER_MAX_STEP_MS;
        srv->clock_real_ms = real;
    }
    return srv->clock_ms;
}

/* Freed memory goes back to the system when clients have left (at most
 * once a second): glibc keeps freed blocks in its heap, and after many
 * columns, packets and connections have come and gone, free pages in the
 * middle of the heap would otherwise stay resident. */
static void give_memory_back(srv_server *srv, uint64_t now)
{
    if (!srv->trim_wanted || now - srv->last_trim_ms < 1000)
        return;
    srv->trim_wanted = false;
    srv->last_trim_ms = now;
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

/* Once a minute while players are online, one INFO line says how the
 * server keeps up: players, columns sent and the time their making took,
 * the longest the loop went between two ticks (250 ms when nothing holds
 * it), and what the caches hold. */
#define STATUS_EVERY_MS 60000u

static void status_line(srv_server *srv, uint64_t now)
{
    uint64_t t = uv_hrtime();
    if (srv->tick_real_ns && t - srv->tick_real_ns > srv->max_tick_gap_ns)
        srv->max_tick_gap_ns = t - srv->tick_real_ns;
    srv->tick_real_ns = t;
    if (now - srv->status_ms < STATUS_EVERY_MS)
        return;
    uint64_t columns, ns;
    srv_world_work(srv, &columns, &ns);
    if (srv->online > 0)
        srv_log(srv, MC_LOG_INFO,
                "status: %d players; %" PRIu64 " columns sent in the last %" PRIu64 " s (%.0f ms of work); "
                "longest tick gap %.0f ms; caches %.1f MiB",
                srv->online, columns - srv->status_columns, (now - srv->status_ms) / 1000,
                (double)(ns - srv->status_work_ns) / 1e6, (double)srv->max_tick_gap_ns / 1e6,
                (double)srv_world_cache_bytes(srv) / (1 << 20));
    srv->status_ms = now;
    srv->status_columns = columns;
    srv->status_work_ns = ns;
    srv->max_tick_gap_ns = 0;
}

static void on_tick(uv_timer_t *t)
{
    srv_server *srv = t->data;
    uint64_t now = srv_server_clock(srv);
    status_line(srv, now);
    if (srv->log_limited && uv_hrtime() / 1000000000u != srv->log_second)
        srv__srv_log_flush(srv);
    give_memory_back(srv, now);
    if (srv->stopping) {
        stop_tick(srv, now);
        return;
    }
    if (srv->cfg->exit_after > 0 && (double)(now - srv->started_ms) >= srv->cfg->exit_after * 1000.0) {
        stop_server(srv, "--exit-after reached");
        return;
    }
    if (srv->cfg->exit_with_parent && (long)getppid() != srv->parent_pid) {
        stop_server(srv, "the parent process exited");
        return;
    }
    srv_bedrock_listener_tick(srv->bedrock);
    for (srv_conn *c = srv->conns, *next; c; c = next) {
        next = c->next;
        if (c->draining && now >= c->drain_until)
            conn_close_now(c);
        if (c->flushing && now - c->write_progress_ms > MC_FLUSH_STALL_MS) {
            c->flushing = false;
            conn_close_now(c);
        }
        if (c->closing)
            continue;
        if (c->pending_write && now - c->write_progress_ms > (uint64_t)srv->cfg->send_timeout_ms) {
            char why[96];
            snprintf(why, sizeof why, "its send queue took nothing for %d s", srv->cfg->send_timeout_ms / 1000);
            conn_drop_slow(c, why);
        } else if (now - c->last_recv_ms > (uint64_t)srv->cfg->idle_timeout_ms)
            srv_conn_disconnect(c, "Timed out");
        else if (c->state < MC_JAVA_CONFIGURATION && now - c->connected_ms > (uint64_t)srv->cfg->login_timeout_ms)
            srv_conn_disconnect(c, "Took too long to log in");
        else if (c->state >= MC_JAVA_CONFIGURATION) {
            conn_measure_drain(c, now - srv->last_tick_ms);
            srv_session_tick(c, now);
            if (c->chunks_waiting && !c->closing && c->pending_write <= chunk_queue_limit(c) / 2) {
                c->chunks_waiting = false;
                srv_world_resume(c);
            }
        }
    }
    srv->last_tick_ms = now;
}

static void on_signal(uv_signal_t *s, int signum)
{
    stop_server(s->data, signum == SIGINT ? "interrupted" : "terminated");
}

int srv_server_run(const srv_server_config *cfg)
{
    srv_server srv;
    memset(&srv, 0, sizeof srv);
    srv.cfg = cfg;
    /* A client that closes while we write must not kill the server: with
     * SIGPIPE ignored the write fails with EPIPE and only that client goes. */
    signal(SIGPIPE, SIG_IGN);
    srv.loop = uv_default_loop();
    if (srv_world_open(&srv) != 0)
        return 1;
    struct sockaddr_storage addr;
    int rc = uv_ip4_addr(cfg->bind, cfg->port, (struct sockaddr_in *)&addr);
    if (rc < 0)
        rc = uv_ip6_addr(cfg->bind, cfg->port, (struct sockaddr_in6 *)&addr);
    if (rc < 0) {
        srv_log(&srv, MC_LOG_ERROR, "bad bind address '%s'", cfg->bind);
        srv_world_close(&srv);
        return 1;
    }
    uv_tcp_init(srv.loop, &srv.listener);
    srv.listener.data = &srv;
    rc = uv_tcp_bind(&srv.listener, (struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv.listener, 128, on_connection);
    if (rc < 0) {
        srv_log(&srv, MC_LOG_ERROR, "cannot listen on %s:%d: %s", cfg->bind, cfg->port, uv_strerror(rc));
        uv_close((uv_handle_t *)&srv.listener, NULL);
        uv_run(srv.loop, UV_RUN_DEFAULT);
        srv_world_close(&srv);
        return 1;
    }
    int port = cfg->port;
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    if (uv_tcp_getsockname(&srv.listener, (struct sockaddr *)&bound, &blen) == 0)
        port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                                : ((struct sockaddr_in6 *)&bound)->sin6_port);
    int bedrock_port = -1;
    if (cfg->bedrock_port >= 0)
        srv.bedrock = srv_bedrock_listener_start(&srv, &bedrock_port);
    if (cfg->port_file) {
        FILE *f = fopen(cfg->port_file, "w");
        if (f) {
            if (srv.bedrock) /* a second line: the Bedrock UDP port */
                fprintf(f, "%d\n%d\n", port, bedrock_port);
            else
                fprintf(f, "%d\n", port);
            fclose(f);
        }
    }
    uv_timer_init(srv.loop, &srv.tick);
    srv.tick.data = &srv;
    uv_timer_start(&srv.tick, on_tick, 250, 250);
    uv_signal_init(srv.loop, &srv.sigint);
    uv_signal_init(srv.loop, &srv.sigterm);
    srv.sigint.data = srv.sigterm.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    srv.clock_real_ms = uv_now(srv.loop);
    srv.clock_ms = 0;
    srv.started_ms = srv_server_clock(&srv);
    srv.parent_pid = (long)getppid();
    srv_log(&srv, MC_LOG_INFO, "mcchunk serve: listening on %s:%d (Java Edition 1.8 to 26.1)", cfg->bind, port);
    if (srv.bedrock)
        srv_log(&srv, MC_LOG_INFO, "Bedrock (RakNet) on UDP %s:%d", cfg->bind, bedrock_port);
    srv_log(&srv, MC_LOG_WARN, "OFFLINE MODE: players are not authenticated with Mojang; names are taken on trust");
    srv.log_limited = true;
    uv_run(srv.loop, UV_RUN_DEFAULT);
    srv_world_close(&srv);
    srv_session_release_cache(&srv);
    uv_loop_close(srv.loop);
    srv_log(&srv, MC_LOG_INFO, "stopped");
    return 0;
}
