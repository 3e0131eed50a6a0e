/*
 * session.h: the server's shared state (server, connection) and the
 * interfaces between its parts: the network core (server.c), the per-player
 * session in configuration and play (session.c), and the world (world.c).
 */
#ifndef MC_SERVER_SESSION_H
#define MC_SERVER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "mcchunk/core.h"
#include "mcchunk/java.h"
#include "server/server.h"

typedef struct srv_conn srv_conn;
typedef struct srv_world srv_world;

typedef struct srv_server {
    const srv_server_config *cfg;
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_timer_t tick;
    uv_signal_t sigint, sigterm;
    srv_conn *conns;
    unsigned nconns;
    int online; /* players past login */
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
    srv_world *world;
    uint8_t **join_cache; /* inflated join data per protocol (session.c) */
    bool trim_wanted;     /* a client left: give freed memory back to the system */
    uint64_t last_trim_ms;
    /* Log rate limit (srv_log): lines in the current second, and those
     * held back, by level, to be reported as one line of counts. */
    bool log_limited;
    uint64_t log_second;
    unsigned log_lines;
    unsigned log_held[3];
    struct srv_bedrock_listener *bedrock; /* UDP listener (raknet/listener.c), or NULL */
} srv_server;

struct srv_conn {
    uv_tcp_t tcp;
    srv_server *srv;
    srv_conn *next, *prev;
    mc_buf in;      /* received bytes not yet cut into frames */
    mc_buf scratch; /* inflated packet */
    mc_buf pkt;     /* packet being built */
    mc_buf frame;   /* framed packet being sent */
    mc_java_zctx *z;
    int state;         /* an mc_java_state */
    uint32_t protocol; /* from the handshake */
    int threshold;     /* compression threshold in force, < 0 off */
    bool closing;
    bool draining;         /* disconnected: reading and dropping until the client closes */
    uint64_t drain_until;  /* srv_server_clock() time to stop waiting for that */
    bool in_game; /* counted in srv->online */
    bool status_sent;
    uint64_t connected_ms, last_recv_ms;
    size_t pending_write;  /* bytes handed to libuv whose write has not completed */
    uint64_t write_progress_ms; /* when a write last completed (or the queue last started) */
    bool chunks_waiting;   /* chunk sending paused until the queue drains */
    uint64_t drain_mark;   /* bytes_sent at the previous tick */
    size_t drain_rate;     /* bytes/s taken while backlogged; 0 = not measured */
    bool drain_backlogged; /* the queue was not empty at the previous tick */
    bool flushing;         /* closing after the queued bytes are sent */
    uint64_t bytes_sent, bytes_received;
    char peer[64];
    char name[17];
    uint8_t uuid[16];
    void *session; /* session.c's per-player state */
    void *view;    /* world.c's per-player view */
};

enum { MC_LOG_INFO, MC_LOG_WARN, MC_LOG_ERROR };

/* Once the server listens, at most this many log lines are written a
 * second; the rest are counted and reported as one line (a flood of
 * connections must not turn into a flood of log). */
#define MC_LOG_LINES_PER_SECOND 20u
/* Writes the line of counts for lines held back in a second now past. */
void srv__srv_log_flush(srv_server *srv);

/* The server's clock in milliseconds, for every timeout it keeps: the loop's
 * monotonic time, except that one step counts at most MC_SERVER_MAX_STEP_MS.
 * A virtual machine paused or migrated can see its monotonic clock leap by
 * minutes; counted in full, that leap would drop every client at once and
 * end an --exit-after run early, for time in which nothing ran. */
#define MC_SERVER_MAX_STEP_MS 2000u
uint64_t srv_server_clock(srv_server *srv);

/* A new connection in srv's list, its TCP handle initialized (not yet
 * accepted or opened), or NULL. */
srv_conn *srv__conn_new(srv_server *srv);
/* Handles `n` bytes just appended to c->in (the read callback's work; the
 * server fuzz target calls it directly). */
void srv__conn_received(srv_conn *c, size_t n);
void srv_log(srv_server *srv, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Back-pressure for chunk sending: true when c's send queue holds so much
 * that no more chunks should be queued now. The connection then remembers
 * that chunks wait, and calls srv_world_resume once the queue has drained to
 * half of that. */
bool srv_conn_chunks_must_wait(srv_conn *c);

/* Network core services for the session. */
bool srv_conn_begin(srv_conn *c, mc_java_state state, const char *name);
/* Queues bytes that are already framed (e.g. cached chunk packets). */
void srv_conn_send_framed(srv_conn *c, const uint8_t *data, size_t len);
void srv_conn_send(srv_conn *c, const mc_buf *packet);
void srv_conn_disconnect(srv_conn *c, const char *reason);
void srv_conn_close(srv_conn *c, const char *why);
void srv_json_string(mc_buf *b, const char *s);

/* Session: called when a player enters configuration (1.20.2+) or play
 * (older), for each packet in those states, on every tick, and on close. */
void srv_session_begin(srv_conn *c);
void srv_session_packet(srv_conn *c, mc_reader *r, int id);
void srv_session_tick(srv_conn *c, uint64_t now_ms);
void srv_session_free(srv_conn *c);
void srv_session_release_cache(srv_server *srv);

/* World: opened before listening (0 ok), closed after the loop ends. */
int srv_world_open(srv_server *srv);
void srv_world_close(srv_server *srv);
/* Block position where players appear (feet). */
void srv_world_spawn(srv_server *srv, int32_t *x, int32_t *y, int32_t *z);
/* Sends the chunks around a player who just joined (play state). */
void srv_world_send_initial_chunks(srv_conn *c);
/* The world's column at (cx, cz) (cached), or NULL where it has none. */
struct mc_column *srv_world_column(srv_server *srv, int32_t cx, int32_t cz);
size_t srv_world_cached_columns(const srv_server *srv);
/* Columns sent to players since the start, and the time spent fetching,
 * making and encoding them (the status line's figures). */
void srv_world_work(const srv_server *srv, uint64_t *columns, uint64_t *ns);
/* Bytes the world's caches hold (entries and reader scratch), which
 * cache_bytes bounds but for the newest entry. */
size_t srv_world_cache_bytes(const srv_server *srv);
void srv_world_view_free(srv_conn *c);
/* The player is now at block x, z (teleport): recenter its view. */
void srv_world_player_moved(srv_conn *c, double x, double z);
uint64_t srv_world_view_sent(const srv_conn *c);
/* Encodes a column for a protocol: Chunk Data (id + body) into chunk, and
 * for 1.14-1.17 Update Light into light (left empty otherwise). */
mc_status srv_server_encode_column(const struct mc_column *col, uint32_t protocol, mc_buf *chunk, mc_buf *light,
                                  mc_error *err);
/* The player's send queue has drained: sends more of what its view lacks. */
void srv_world_resume(srv_conn *c);
/* A play packet from a joined player (movement etc.), by minecraft-data name. */
void srv_world_player_packet(srv_conn *c, const char *name, mc_reader *r);

#endif
