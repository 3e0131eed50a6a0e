/*
 * listener.h: `mcchunk serve`'s Bedrock listener — a RakNet endpoint on the
 * server's loop that answers the server-list ping with the server's MOTD,
 * players and maximum, and accepts RakNet connections. The Bedrock game
 * layer (login, chunks) is not written yet: a connected client is told so
 * in the log and disconnected cleanly; the game layer will take over the
 * `connected` and `message` callbacks in listener.c.
 */
#ifndef MC_SERVER_RAKNET_LISTENER_H
#define MC_SERVER_RAKNET_LISTENER_H

struct srv_server;
typedef struct srv_bedrock_listener srv_bedrock_listener;

/* Starts listening on the server's bind address, UDP port
 * srv->cfg->bedrock_port (0: any free one); *port gets the bound port.
 * NULL when it cannot (logged as a warning: the server goes on with Java). */
srv_bedrock_listener *srv_bedrock_listener_start(struct srv_server *srv, int *port);
/* Refreshes the server-list answer (players online); call on the tick. */
void srv_bedrock_listener_tick(srv_bedrock_listener *l);
/* Disconnects every Bedrock client and closes the socket (freed once libuv
 * has closed it). */
void srv_bedrock_listener_stop(srv_bedrock_listener *l);

#endif
