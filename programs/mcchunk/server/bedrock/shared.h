/*
 * shared.h: what every Bedrock client of the server shares (shared.c), and
 * the limits each one is held to. The Bedrock game layer's files stand in
 * layers, each using only those below it:
 *   layout, batch, crypto, login, items   packets, framing, encryption,
 *                                         the identity, the item palettes
 *   shared    the listener's state every client uses
 *   client    one client's side of the transport: batches out, sealing,
 *             the disconnect with a reason
 *   chunks    columns for Bedrock clients (variants, cached answers, blobs)
 *             and each client's view and queue of subchunk requests
 *   session   a client's states from RequestNetworkSettings to play
 *   listener  the RakNet endpoint, the server list, one session per peer
 * and as a whole above the world (columns, the fair share of work) and
 * RakNet (the transport), below server.c.
 */
#ifndef MC_SERVER_BEDROCK_SHARED_H
#define MC_SERVER_BEDROCK_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "server/bedrock/batch.h"
#include "server/bedrock/items.h"
#include "server/core.h"
#include "server/raknet/raknet.h"

/* ------------------------------------------------------------- limits */

/* A client that goes past one of these is disconnected with the reason in
 * the log (others are unaffected). */
#define SRV_BEDROCK_MAX_OFFSETS 8192        /* offsets in one SubChunkRequest (1.26.30's own cap) */
#define SRV_BEDROCK_MAX_REQUESTS_PER_S 400  /* SubChunkRequest packets a second */
#define SRV_BEDROCK_MAX_PENDING 32768       /* subchunks asked for and not yet answered */
#define SRV_BEDROCK_MAX_BLOBS_ASKED 8192    /* blob ids in one ClientCacheBlobStatus */
/* Chunk data is queued to RakNet only while the client's unacknowledged
 * bytes and messages are under these (the rest waits as offsets or view
 * entries, a few bytes each); RakNet's send window (listener.c) is the hard
 * limit. The message count stays under what a receiver's ordering window
 * holds while one message is lost and resent (RakNet implementations keep
 * 1024 or more: ours does 1024; every answer is a message). */
#define SRV_BEDROCK_CHUNK_WINDOW ((size_t)768 << 10)
#define SRV_BEDROCK_CHUNK_MESSAGES 768u
/* Subchunk answers one client sends per turn of the fair share. */
#define SRV_BEDROCK_ANSWERS_PER_TURN 256u
/* RakNet per peer (listener.c): bytes being reassembled (the largest
 * message a client may send), and bytes queued or unacknowledged (the
 * largest message the server sends, and the send window). */
#define SRV_BEDROCK_RAKNET_IN ((size_t)4 << 20)
#define SRV_BEDROCK_RAKNET_OUT ((size_t)4 << 20)
/* Variants of chunk data (protocol x id mode x blob cache) at most. */
#define SRV_BEDROCK_MAX_VARIANTS 64

/* --------------------------------------------------------------- state */

typedef struct srv_bvariant srv_bvariant; /* chunks.c */
struct srv_bblobs;                         /* chunks.c */

typedef struct srv_bshared {
    srv_server *srv;
    srv_rak_uv *uv;                 /* the UDP socket, or NULL when the caller owns the endpoint */
    srv_rak *rak;
    srv_bcodec_shared codec;        /* compression state and buffers (one event loop) */
    struct srv_bblobs *blobs;       /* where recently announced blobs are */
    srv_bvariant *variants[SRV_BEDROCK_MAX_VARIANTS];
    unsigned nvariants;
    srv_bitems *items;              /* loaded on first use */
    bool items_failed;
    int64_t next_entity_id;
} srv_bshared;

/* Sends what the clients queued now rather than at RakNet's next tick. */
void srv_bshared_flush(srv_bshared *sh);
/* The item palettes (loaded once), or NULL (logged). */
srv_bitems *srv_bshared_items(srv_bshared *sh);
/* --bedrock-ids: hashed runtime ids where the version can take them. */
bool srv_bshared_hashed(const srv_bshared *sh);

#endif
