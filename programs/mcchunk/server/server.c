/*
 * server.c: the top of the reference server (core.h draws the layers).
 *
 * One event loop, one thread. The listener accepts Java connections (conn.c
 * carries their bytes) and runs their first states here, as the Java
 * protocol has them: handshake, then status (server-list ping) or login
 * (offline mode: UUIDs as the game derives them, optional Set Compression,
 * Login Success in each era's shape), then configuration (1.20.2+) and play,
 * which belong to the session (session.c). The Bedrock listener (RakNet on
 * UDP) runs beside it on the same loop. A tick timer drops idle connections
 * and connections that do not finish logging in, drives the sessions'
 * timers, writes a status line, and stops the server when asked to. Once
 * listening, the log is rate-limited (core.c).
 */
#include "server/server.h"

#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>
#if defined(__GLIBC__) /* defined by the headers above */
#include <malloc.h>
#endif

#include "mcchunk/java.h"
#include "server/conn.h"
#include "server/bedrock/listener.h"
#include "server/http.h"
#include "server/session.h"
#include "server/terrain.h"
#include "server/uuid.h"
#include "server/world.h"

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
    c->era = srv_java_era_of(c->protocol);
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
            srv_put_json_text(&c->pkt, why);
            srv_conn_send(c, &c->pkt);
            srv_conn_close_after_flush(c, why);
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
        srv_conn_close_after_flush(c, "status ping answered");
    } else {
        srv_conn_close(c, "unexpected status packet");
    }
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
    if (c->era.login_uuid_string) {
        char s[37];
        srv_uuid_format(c->uuid, s);
        mc_buf_put_str_varint(&c->pkt, s, 36);
    } else {
        mc_buf_put(&c->pkt, c->uuid, 16);
    }
    mc_buf_put_str_varint(&c->pkt, c->name, nlen);
    if (c->era.login_properties) /* none offline */
        mc_buf_put_varint(&c->pkt, 0);
    if (c->era.login_strict_errors)
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
        if (!c->era.configuration) { /* the client is in play at once */
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

/* A packet of a connection (conn.c's hook): by the connection's state. */
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

/* ------------------------------------------------------- tick and stop */

/* While the server stops, every client has this long to take its "Server
 * closed" before what is left is closed. */
#define MC_STOP_GRACE_MS 3000u

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
            srv_conn_close_now(c);
        else
            srv_conn_disconnect(c, "Server closed");
    }
    uv_close((uv_handle_t *)&srv->listener, NULL);
    srv_bedrock_listener_stop(srv->bedrock);
    srv->bedrock = NULL;
    srv_http_stop(srv->http);
    srv->http = NULL;
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
        srv_conn_close_now(c);
    uv_close((uv_handle_t *)&srv->tick, NULL);
    if (srv->flush_ready)
        uv_close((uv_handle_t *)&srv->flush, NULL);
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
        if (!srv_conn_tick(c, now))
            continue;
        if (now - c->last_recv_ms > (uint64_t)srv->cfg->idle_timeout_ms)
            srv_conn_disconnect(c, "Timed out");
        else if (c->state < MC_JAVA_CONFIGURATION && now - c->connected_ms > (uint64_t)srv->cfg->login_timeout_ms)
            srv_conn_disconnect(c, "Took too long to log in");
        else if (c->state >= MC_JAVA_CONFIGURATION) {
            srv_conn_measure_drain(c, now - srv->last_tick_ms);
            srv_session_tick(c, now);
            srv_conn_resume_if_drained(c);
        }
    }
    srv->last_tick_ms = now;
}

static void on_connection(uv_stream_t *listener, int status)
{
    srv_server *srv = listener->data;
    if (status < 0) {
        srv_log(srv, MC_LOG_WARN, "accept failed: %s", uv_strerror(status));
        return;
    }
    srv_conn_accept(srv, listener);
}

static void on_signal(uv_signal_t *s, int signum)
{
    stop_server(s->data, signum == SIGINT ? "interrupted" : "terminated");
}

/* A connection about to be freed (conn.c's hook): its player goes. */
static void conn_freed(srv_conn *c)
{
    srv_session_free(c);
    srv_world_view_free(c);
}

void srv_server_init(srv_server *srv, const srv_server_config *cfg, uv_loop_t *loop)
{
    memset(srv, 0, sizeof *srv);
    srv->cfg = cfg;
    srv->loop = loop;
    srv->on_packet = dispatch;
    srv->on_drained = srv_world_resume;
    srv->on_conn_free = conn_freed;
    srv->clock_real_ms = uv_now(loop);
}

static void web_map_log(void *user, int level, const char *message)
{
    srv_log(user, level ? MC_LOG_WARN : MC_LOG_INFO, "%s", message);
}

/* The web map's player_chunks hook: the chunk each player stands in. */
static size_t player_chunks(void *user, int32_t *xz, size_t max)
{
    srv_server *srv = user;
    size_t n = 0;
    for (const srv_player *p = srv->players; p && n < max; p = p->next, n++) {
        xz[2 * n] = (int32_t)floor(p->x) >> 4;
        xz[2 * n + 1] = (int32_t)floor(p->z) >> 4;
    }
    return n;
}

/* The web map (http.c) on this loop, for the world served. */
static int start_web_map(srv_server *srv)
{
    srv_http_config h;
    srv_http_config_defaults(&h);
    h.bind = srv->cfg->http_bind ? srv->cfg->http_bind : "127.0.0.1";
    h.port = srv->cfg->http_port;
    h.world = srv->cfg->world;
    const srv_terrain *terrain = srv_world_terrain(srv);
    if (terrain) {
        int32_t x, y, z;
        srv_world_spawn(srv, &x, &y, &z);
        h.terrain_registry = srv_terrain_registry(terrain);
        h.seed = srv->cfg->seed;
        h.spawn_cx = x >> 4;
        h.spawn_cz = z >> 4;
        h.map_radius = h.player_radius = srv->cfg->view_distance; /* what a player there sees */
        h.player_chunks = player_chunks;
    }
    h.players_json = srv_world_players_json;
    h.players_user = srv;
    h.log = web_map_log;
    h.log_user = srv;
    return srv_http_start(srv->loop, &h, &srv->http, NULL);
}

int srv_server_run(const srv_server_config *cfg)
{
    srv_server srv;
    srv_server_init(&srv, cfg, uv_default_loop());
    /* The parent --exit-with-parent watches: taken before the world opens
     * (making the built-in world's columns takes seconds), so that a parent
     * that dies meanwhile is seen gone, not replaced by the one that
     * inherits the orphan. */
    srv.parent_pid = (long)getppid();
    /* A client that closes while we write must not kill the server: with
     * SIGPIPE ignored the write fails with EPIPE and only that client goes. */
    signal(SIGPIPE, SIG_IGN);
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
    if (cfg->http_port >= 0 && start_web_map(&srv) != 0) {
        stop_server(&srv, "the web map could not start");
        uv_run(srv.loop, UV_RUN_DEFAULT);
        srv_world_close(&srv);
        return 1;
    }
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
    srv_log(&srv, MC_LOG_INFO, "mcchunk serve: listening on %s:%d (Java Edition 1.8 to 26.1)", cfg->bind, port);
    if (srv.bedrock)
        srv_log(&srv, MC_LOG_INFO, "Bedrock (RakNet) on UDP %s:%d (Bedrock Edition 1.16.220 to 1.26.51%s)", cfg->bind,
                bedrock_port, cfg->bedrock_encryption ? ", encrypted" : "");
    srv_log(&srv, MC_LOG_WARN, "OFFLINE MODE: players are not authenticated with Mojang; names are taken on trust");
    srv.log_limited = true;
    uv_run(srv.loop, UV_RUN_DEFAULT);
    srv_world_close(&srv);
    srv_session_release_cache(&srv);
    uv_loop_close(srv.loop);
    srv_log(&srv, MC_LOG_INFO, "stopped");
    return 0;
}
