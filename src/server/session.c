/*
 * session.c: a player's session after login: the configuration phase
 * (1.20.2+) and play.
 *
 * What stands: keep-alive (sent every 15 s in configuration and play, as
 * vanilla does; a client that has not answered within 30 s is dropped) and
 * the packet dispatch. Joining the world (join game of each era, registry
 * data for 1.20.2+, spawn, chunk streaming) needs the Java chunk codecs and
 * is not written yet, so a session that reaches this point is ended with a
 * disconnect that says so, in the client's own protocol.
 */
#include <stdlib.h>
#include <string.h>

#include "server/session.h"

typedef struct session {
    uint64_t keepalive_id;
    uint64_t keepalive_sent_ms; /* 0: none outstanding */
    uint64_t last_keepalive_ms;
} session;

void mc_session_begin(mc_conn *c)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        mc_conn_close(c, "out of memory");
        return;
    }
    c->session = s;
    s->last_keepalive_ms = uv_now(c->srv->loop);
    mc_conn_disconnect(c, "mcchunk serve: status and login work; joining the world is not implemented in this build yet");
}

static void send_keepalive(mc_conn *c, session *s, uint64_t now)
{
    mc_java_state st = (mc_java_state)c->state;
    if (!mc_conn_begin(c, st, "keep_alive"))
        return;
    s->keepalive_id = now ^ 0x5DEECE66DULL;
    if (st == MC_JAVA_PLAY && c->protocol < 340) /* before 1.12.2 the id is a VarInt */
        mc_buf_put_varint(&c->pkt, (int32_t)(s->keepalive_id & 0x7FFFFFFF));
    else
        mc_buf_put_u64be(&c->pkt, s->keepalive_id);
    mc_conn_send(c, &c->pkt);
    s->keepalive_sent_ms = now;
    s->last_keepalive_ms = now;
}

void mc_session_tick(mc_conn *c, uint64_t now)
{
    session *s = c->session;
    if (!s)
        return;
    if (s->keepalive_sent_ms && now - s->keepalive_sent_ms > 30000) {
        mc_conn_disconnect(c, "Timed out (no keep-alive answer)");
        return;
    }
    if (!s->keepalive_sent_ms && now - s->last_keepalive_ms >= 15000)
        send_keepalive(c, s, now);
}

void mc_session_packet(mc_conn *c, mc_reader *r, int id)
{
    session *s = c->session;
    const char *name = mc_java_packet_name(c->protocol, (mc_java_state)c->state, MC_JAVA_TO_SERVER, id);
    if (!name) {
        mc_conn_disconnect(c, "Unknown packet");
        return;
    }
    if (!strcmp(name, "keep_alive") && s) {
        uint64_t got = (c->state == MC_JAVA_PLAY && c->protocol < 340) ? (uint64_t)(uint32_t)mc_read_varint(r)
                                                                         : mc_read_u64be(r);
        uint64_t want = (c->state == MC_JAVA_PLAY && c->protocol < 340) ? (s->keepalive_id & 0x7FFFFFFF)
                                                                          : s->keepalive_id;
        if (!mc_reader_ok(r) || !s->keepalive_sent_ms || got != want) {
            mc_conn_disconnect(c, "Bad keep-alive");
            return;
        }
        s->keepalive_sent_ms = 0;
    }
    /* Other packets (settings, brand, movement, ...) are accepted and ignored. */
}

void mc_session_free(mc_conn *c)
{
    free(c->session);
    c->session = NULL;
}
