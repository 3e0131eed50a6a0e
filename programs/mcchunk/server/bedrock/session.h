/*
 * session.h: one Bedrock client's session (session.c), from its RakNet
 * connection to play: the states of the login, the packets it sends, its
 * transport (client.h) and its chunks (chunks.h).
 */
#ifndef MC_SERVER_BEDROCK_SESSION_H
#define MC_SERVER_BEDROCK_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "server/bedrock/chunks.h"
#include "server/bedrock/client.h"
#include "server/bedrock/login.h"

typedef enum srv_bstate {
    SRV_BS_NEW,          /* RakNet connected: RequestNetworkSettings or Login next */
    SRV_BS_LOGIN,        /* NetworkSettings sent: Login next */
    SRV_BS_HANDSHAKE,    /* encryption offered: ClientToServerHandshake next */
    SRV_BS_PACKS,        /* ResourcePacksInfo sent */
    SRV_BS_STACK,        /* ResourcePackStack sent */
    SRV_BS_RADIUS,       /* StartGame sent: RequestChunkRadius next */
    SRV_BS_SPAWNING,     /* chunks going out; PlayStatus player_spawn when the nearest are sent */
    SRV_BS_INITIALIZING, /* player_spawn sent: SetLocalPlayerAsInitialized next */
    SRV_BS_PLAYING
} srv_bstate;

typedef struct srv_bsession {
    struct srv_bsession *prev, *next; /* the listener's list */
    srv_bclient client;
    srv_bchunks chunks;
    srv_bstate state;
    srv_blogin login;
    int64_t entity_id;
    int32_t early_radius;      /* a RequestChunkRadius that came before StartGame (0: none) */
    bool counted;              /* in srv->online */
    srv_player player;         /* in the server's list of players (for the log) */
    uint64_t connected_ms;
    unsigned busy;             /* calls into the session in progress */
    bool free_later;           /* gone while busy */
} srv_bsession;

/* A session on a connected peer (NULL without memory). */
srv_bsession *srv_bsession_new(srv_bshared *sh, srv_rak_peer *peer);
/* A RakNet message of the client (a batch; decrypted in place). */
void srv_bsession_message(srv_bsession *s, uint8_t *data, size_t len);
/* RakNet let the peer go: the session is freed (at the end of the call in
 * progress, if any). */
void srv_bsession_gone(srv_bsession *s, const char *reason);
/* RakNet has room for the client again. */
void srv_bsession_writable(srv_bsession *s);
/* The server's tick: the login deadline. */
void srv_bsession_tick(srv_bsession *s, uint64_t now_ms);
/* Bytes the session holds. */
size_t srv_bsession_memory(const srv_bsession *s);

#endif
