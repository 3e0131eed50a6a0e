/*
 * listener.h: `mcchunk serve`'s Bedrock side — a RakNet endpoint on the
 * server's loop (UDP) that answers the server-list ping with the server's
 * MOTD, players and maximum, and runs the Bedrock game layer for every
 * connected client (bedrock_private.h lists its parts).
 */
#ifndef MC_SERVER_BEDROCK_LISTENER_H
#define MC_SERVER_BEDROCK_LISTENER_H

#include <stddef.h>

struct srv_server;
typedef struct srv_blistener srv_blistener;

/* Starts listening on the server's bind address, UDP port
 * srv->cfg->bedrock_port (0: any free one); *port gets the bound port.
 * NULL when it cannot (logged as a warning: the server goes on with Java). */
srv_blistener *srv_bedrock_listener_start(struct srv_server *srv, int *port);
/* Refreshes the server-list answer (players online) and the sessions'
 * timers; call on the tick. */
void srv_bedrock_listener_tick(srv_blistener *l);
/* Disconnects every Bedrock client and closes the socket (freed once libuv
 * has closed it). */
void srv_bedrock_listener_stop(srv_blistener *l);

/* Bedrock clients connected, and the bytes the listener holds for them
 * (sessions, RakNet state; not the world's cache). */
unsigned srv_bedrock_listener_clients(const srv_blistener *l);
size_t srv_bedrock_listener_memory(const srv_blistener *l);

#endif
