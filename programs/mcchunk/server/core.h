/*
 * core.h: the server's shared state (srv_server) and the two services every
 * part of it uses: the log (rate-limited once listening) and the clock
 * (the loop's time with leaps capped).
 *
 * The server's files stand in layers, each using only those below it:
 *   config, core, java_era, terrain, uuid, raknet/   the bottom
 *   conn      a Java client's TCP connection: bytes in and out, framing,
 *             the send queue and its back-pressure, closing
 *   world     the world's columns, their caches, each player's view, the
 *             fair sharing of the work of making columns
 *   session   a Java player after login (configuration and play)
 *   bedrock/  the Bedrock game layer over RakNet
 *   http      the web map (http.c, http_parse.c): the page and map tiles
 *             (programs/mcchunk/map) over HTTP; it knows nothing of the
 *             layers above but the players' JSON, asked through a hook
 *   server    the top: listening, the handshake/status/login states, the
 *             tick, starting and stopping
 * A lower layer reaches a higher one only through the hooks below, which the
 * higher one sets (a function pointer is the one way down -> up).
 */
#ifndef MC_SERVER_CORE_H
#define MC_SERVER_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "mcchunk/core.h"
#include "server/config.h"

struct srv_conn;
struct srv_world;
struct srv_blistener;
struct srv_player;
struct srv_http;

typedef struct srv_server {
    const srv_server_config *cfg;
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_timer_t tick;
    uv_signal_t sigint, sigterm;
    /* Java writes are gathered per connection during a loop turn and handed
     * to the socket once, at its end (conn.c): this check handle runs then,
     * only while some connection has bytes gathered. */
    uv_check_t flush;
    bool flush_ready, flush_active;
    struct srv_conn *conns; /* Java connections (conn.c) */
    unsigned nconns;
    int online; /* players past login, both editions */
    uint64_t started_ms;
    uint64_t last_tick_ms; /* the previous tick, for per-tick rates */
    /* The status line (once a minute while players are online): since the
     * last one, the longest gap between two ticks (a loop held busy shows
     * here) and the world's work counters then. */
    uint64_t status_ms, status_columns, status_work_ns, tick_real_ns;
    uint64_t max_tick_gap_ns;
    uint64_t clock_ms, clock_real_ms; /* srv_server_clock() */
    long parent_pid;                  /* for cfg->exit_with_parent */
    bool stopping;
    uint64_t stop_until; /* stopping: clients still sending are closed then */
    struct srv_world *world;
    uint8_t **join_cache; /* inflated join data per protocol (session.c) */
    bool trim_wanted;     /* a client left: give freed memory back to the system */
    uint64_t last_trim_ms;
    /* Log rate limit (srv_log): lines in the current second, and those
     * held back, by level, to be reported as one line of counts. */
    bool log_limited;
    uint64_t log_second;
    unsigned log_lines;
    unsigned log_held[3];
    struct srv_blistener *bedrock; /* the Bedrock listener (bedrock/listener.c), or NULL */
    struct srv_player *players;     /* both editions, joined (srv_player_join) */
    struct srv_http *http;          /* the web map (http.c), or NULL */
    /* Hooks of the connection layer (conn.c), set by the layers above it:
     * a packet cut from a connection's stream (server.c dispatches it by
     * state); a send queue that has drained enough for more chunks
     * (world.c); a connection about to be freed (its session and view go). */
    void (*on_packet)(struct srv_conn *c, const uint8_t *packet, size_t len);
    void (*on_drained)(struct srv_conn *c);
    void (*on_conn_free)(struct srv_conn *c);
} srv_server;

enum { MC_LOG_INFO, MC_LOG_WARN, MC_LOG_ERROR };

/* Once the server listens, at most this many log lines are written a
 * second; the rest are counted and reported as one line (a flood of
 * connections must not turn into a flood of log). */
#define MC_LOG_LINES_PER_SECOND 20u
void srv_log(srv_server *srv, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Writes the line of counts for lines held back in a second now past. */
void srv__srv_log_flush(srv_server *srv);

/* The server's clock in milliseconds, for every timeout it keeps: the loop's
 * monotonic time, except that one step counts at most MC_SERVER_MAX_STEP_MS.
 * A virtual machine paused or migrated can see its monotonic clock leap by
 * minutes; counted in full, that leap would drop every client at once and
 * end an --exit-after run early, for time in which nothing ran. */
#define MC_SERVER_MAX_STEP_MS 2000u
uint64_t srv_server_clock(srv_server *srv);

/* A player of either edition in the server's list, so that the log can
 * say where everyone is: who else is online (and where) when a player
 * joins, and each player's position when it enters another column. The
 * sessions own the struct; the list only links it. */
typedef struct srv_player {
    const char *edition; /* "java" or "bedrock" */
    const char *name;    /* the session's */
    double x, y, z;      /* feet */
    bool listed;
    struct srv_player *prev, *next;
} srv_player;
/* Adds p at (x, y, z) and logs every player's position. */
void srv_player_join(srv_server *srv, srv_player *p, double x, double y, double z);
/* p is now at (x, y, z): logged when it entered another column. */
void srv_player_moved(srv_server *srv, srv_player *p, double x, double y, double z);
void srv_player_leave(srv_server *srv, srv_player *p);

/* Appends a JSON string literal (quotes included) for UTF-8 text. */
void srv_json_string(mc_buf *b, const char *s);

#endif
