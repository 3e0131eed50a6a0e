/*
 * conn.h: a Java client's TCP connection (conn.c): what it has received and
 * not yet cut into packets, its send queue with the back-pressure that keeps
 * chunk sending at the client's pace, and the ways it ends (at once, after
 * the queue is flushed, or dropped as too slow). What the packets mean is
 * for the layers above (server.c, session.c, world.c), reached through the
 * server's hooks (core.h).
 */
#ifndef MC_SERVER_CONN_H
#define MC_SERVER_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "mcchunk/core.h"
#include "mcchunk/java.h"
#include "server/core.h"
#include "server/java_era.h"

typedef struct srv_conn srv_conn;

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
    srv_java_era era;  /* the protocol's packet switches (set with it) */
    int threshold;     /* compression threshold in force, < 0 off */
    bool closing;
    bool draining;         /* disconnected: reading and dropping until the client closes */
    uint64_t drain_until;  /* srv_server_clock() time to stop waiting for that */
    bool in_game; /* counted in srv->online */
    bool status_sent;
    uint64_t connected_ms, last_recv_ms;
    size_t pending_write;  /* bytes queued (gathered or handed to libuv) and not yet sent */
    struct write_req *gather; /* this loop turn's small writes, one send at its end */
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
    srv_player player; /* in the server's list once joined (session.c) */
    void *session; /* session.c's per-player state */
    void *view;    /* world.c's per-player view */
};

/* A new connection in srv's list, its TCP handle initialized (not yet
 * accepted or opened), or NULL. */
srv_conn *srv__conn_new(srv_server *srv);
/* Accepts a connection waiting on `listener` and starts reading it. */
void srv_conn_accept(srv_server *srv, uv_stream_t *listener);
/* Handles `n` bytes just appended to c->in (the read callback's work; the
 * server fuzz target calls it directly): cuts frames (srv->on_packet gets
 * each packet), or answers a pre-1.7 legacy ping. */
void srv__conn_received(srv_conn *c, size_t n);

/* Starts a packet in c->pkt with the id of `name` in `state`; false (and
 * the client is dropped) when its protocol lacks the packet. */
bool srv_conn_begin(srv_conn *c, mc_java_state state, const char *name);
/* Frames (compressing per the threshold) and queues a packet. */
void srv_conn_send(srv_conn *c, const mc_buf *packet);
/* Queues bytes that are already framed (e.g. cached chunk packets). */
void srv_conn_send_framed(srv_conn *c, const uint8_t *data, size_t len);
/* Hands every connection's gathered bytes to the socket now (the end of a
 * loop turn does it by itself). */
void srv_conn_flush_all(srv_server *srv);
/* Appends a text component: a JSON string before 1.20.3 (and always in the
 * login state), a nameless NBT string tag from 1.20.3 on. */
void srv_conn_put_text(srv_conn *c, mc_java_state state, const char *text);
/* Appends {"text": ...} as a VarInt-prefixed JSON string. */
void srv_put_json_text(mc_buf *pkt, const char *text);

/* Back-pressure for chunk sending: true when c's send queue holds so much
 * that no more chunks should be queued now. The connection then remembers
 * that chunks wait, and calls srv->on_drained once the queue has drained to
 * half of that. */
bool srv_conn_chunks_must_wait(srv_conn *c);

/* Sends the state's disconnect packet with `reason` (where it has one) and
 * closes after it is flushed. */
void srv_conn_disconnect(srv_conn *c, const char *reason);
/* Closes after the queued bytes are sent (`why` logged when not NULL). */
void srv_conn_close_after_flush(srv_conn *c, const char *why);
/* Closes now (`why` logged when not NULL). */
void srv_conn_close(srv_conn *c, const char *why);
/* Closes a connection whatever it is doing (draining, flushing). */
void srv_conn_close_now(srv_conn *c);

/* The connection's own timers, on every tick: a drain or flush that has
 * gone on long enough ends, a send queue that took nothing for
 * --send-timeout drops its client. False when the connection is closing. */
bool srv_conn_tick(srv_conn *c, uint64_t now);
/* For players, on every tick: the bytes per second the client took over
 * the last tick (tick_ms long) while it had a backlog (what sizes its chunk
 * queue), and chunk sending resumed when the queue has drained. */
void srv_conn_measure_drain(srv_conn *c, uint64_t tick_ms);
void srv_conn_resume_if_drained(srv_conn *c);

#endif
