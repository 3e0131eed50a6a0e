/*
 * session.h: a Java player's session after login (session.c): the
 * configuration phase (1.20.2+) and play, its keep-alive, its commands.
 */
#ifndef MC_SERVER_SESSION_H
#define MC_SERVER_SESSION_H

#include <stdint.h>

#include "mcchunk/core.h"
#include "server/conn.h"

/* Called when a player enters configuration (1.20.2+) or play (older), for
 * each packet in those states, on every tick, and on close. */
void srv_session_begin(srv_conn *c);
void srv_session_packet(srv_conn *c, mc_reader *r, int id);
void srv_session_tick(srv_conn *c, uint64_t now_ms);
void srv_session_free(srv_conn *c);
/* Frees the inflated join data kept for the server's life. */
void srv_session_release_cache(srv_server *srv);

#endif
