/*
 * listener.h: `mcchunk serve`'s Bedrock side — a RakNet endpoint on the
 * server's loop (UDP) that answers the server-list ping with the server's
 * MOTD, players and maximum, and runs the Bedrock game layer for every
 * connected client (shared.h lists its parts).
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

/* For tests and the fuzz target: a listener on an endpoint the caller
 * owns (no socket). new, then srv_rak_new with the config and callbacks
 * config fills (the caller supplies cb->send), then attach; free it after
 * the endpoint's peers are gone. */
struct srv_rak;
struct srv_rak_config;
struct srv_rak_callbacks;
srv_blistener *srv__blistener_new(struct srv_server *srv);
void srv__blistener_config(const srv_blistener *l, struct srv_rak_config *cfg, struct srv_rak_callbacks *cb);
void srv__blistener_attach(srv_blistener *l, struct srv_rak *rak, int port);
void srv__blistener_free(srv_blistener *l);

/* Bedrock clients connected, and the bytes the listener holds for them
 * (sessions, RakNet state; not the world's cache). */
unsigned srv_bedrock_listener_clients(const srv_blistener *l);
size_t srv_bedrock_listener_memory(const srv_blistener *l);

#endif
