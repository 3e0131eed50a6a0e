/*
 * bedrock_private.h: what the files of the Bedrock game layer share. The
 * layer stands above the world (it reads columns and shares the fair
 * budget of column work) and RakNet (its transport), beside the Java
 * session, below server.c:
 *   listener.c  the RakNet endpoint on the server's loop, the server-list
 *               answer, one session per connected peer
 *   session.c   a client's states from RequestNetworkSettings to play, and
 *               the packets it sends and is sent
 *   chunks.c    columns for Bedrock clients: per client version and id
 *               mode the skeleton LevelChunks and the answers to every
 *               subchunk, made by the library's request engine, compressed
 *               once and kept in the world's cache; each client's view and
 *               its queue of requests, answered within its limits
 * and beneath them layout.c (packets from generated layouts), batch.c
 * (framing, compression), crypto.c (encryption), login.c (the identity).
 */
#ifndef MC_SERVER_BEDROCK_PRIVATE_H
#define MC_SERVER_BEDROCK_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "mcchunk/bedrock.h"
#include "server/bedrock/batch.h"
#include "server/bedrock/layout.h"
#include "server/bedrock/listener.h"
#include "server/bedrock/login.h"
#include "server/core.h"
#include "server/raknet/raknet.h"
#include "server/view.h"
#include "server/world.h"

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
/* A client that has not finished logging in after this long is dropped. */
#define SRV_BEDROCK_LOGIN_MS 30000u

/* Play status codes (play_status). */
enum {
    SRV_BSTATUS_LOGIN_SUCCESS = 0,
    SRV_BSTATUS_FAILED_CLIENT = 1, /* the client is too old */
    SRV_BSTATUS_FAILED_SPAWN = 2,  /* the server is too old (the client is too new) */
    SRV_BSTATUS_PLAYER_SPAWN = 3,
    SRV_BSTATUS_SERVER_FULL = 7
};

/* --------------------------------------------------------------- chunks */

/* What every client of one protocol and id mode is sent, made once. */
typedef struct srv_bvariant srv_bvariant;

/* A request waiting to be answered: one subchunk, absolute. */
typedef struct srv_boffset {
    int32_t x, y, z, dimension;
} srv_boffset;

/* A client's chunk state (chunks.c). */
typedef struct srv_bchunks {
    srv_bvariant *variant;
    bool cache;                /* the client's blob cache is on */
    srv_view view;
    int radius;                /* chunk radius in force (0: none asked yet) */
    srv_boffset *pending;      /* ring of subchunks to answer */
    uint32_t pending_head, pending_len, pending_cap;
    uint64_t rate_second;      /* SubChunkRequests counted in this second */
    unsigned rate_count;
    uint64_t answered;         /* subchunk answers sent */
    uint64_t level_chunks;     /* LevelChunks sent */
    bool waiting_writable;     /* paused on RakNet's window, resumed by its callback */
    srv_work_client work;
} srv_bchunks;

/* ------------------------------------------------------------- sessions */

typedef enum srv_bstate {
    SRV_BS_NEW,          /* RakNet connected: RequestNetworkSettings or Login next */
    SRV_BS_LOGIN,        /* NetworkSettings sent: Login next */
    SRV_BS_HANDSHAKE,    /* encryption offered: ClientToServerHandshake next */
    SRV_BS_PACKS,        /* ResourcePacksInfo sent */
    SRV_BS_STACK,        /* ResourcePackStack sent */
    SRV_BS_RADIUS,       /* StartGame sent: RequestChunkRadius next */
    SRV_BS_SPAWNING,     /* chunks going out; PlayStatus player_spawn when the nearest are sent */
    SRV_BS_INITIALIZING, /* player_spawn sent: SetLocalPlayerAsInitialized next */
    SRV_BS_PLAYING,
    SRV_BS_GONE          /* disconnected (the peer is being freed) */
} srv_bstate;

typedef struct srv_bsession {
    srv_blistener *l;
    srv_rak_peer *peer;
    struct srv_bsession *prev, *next;
    srv_bcodec codec;
    srv_bstate state;
    const srv_bedrock_version *v;
    srv_blogin login;
    char peer_name[64];
    int64_t entity_id;
    double x, y, z;            /* feet */
    bool counted;              /* in srv->online */
    srv_player player;         /* in the server's list of players (for the log) */
    mc_buf out;                /* packets of the batch being built */
    mc_buf msg;                /* scratch: a batch body, a sealed message */
    srv_bchunks chunks;
    uint64_t connected_ms;
    unsigned busy;             /* calls into the session in progress */
    bool free_later;           /* gone while busy */
    char gone_reason[128];
} srv_bsession;

/* listener.c */
srv_server *srv__blistener_server(srv_blistener *l);
srv_bcodec_shared *srv__blistener_codec(srv_blistener *l);
bool srv__blistener_encryption(const srv_blistener *l);
bool srv__blistener_hashed(const srv_blistener *l);
int64_t srv__blistener_entity_id(srv_blistener *l);
struct srv_bitems *srv__blistener_items(srv_blistener *l);
/* Sends what the sessions queued now rather than at RakNet's next tick. */
void srv_bedrock_listener_flush(srv_blistener *l);
/* The variant of (protocol, id mode, blob cache) (made on first use), or
 * NULL without memory. */
srv_bvariant *srv__blistener_variant(srv_blistener *l, const srv_bedrock_version *v, bool hashed, bool cache);
/* The locations of recently announced blobs (chunks.c keeps them). */
struct srv_bblobs *srv__blistener_blobs(srv_blistener *l);

/* session.c */
/* Starts a session on a connected peer (NULL: out of memory). */
srv_bsession *srv__bsession_new(srv_blistener *l, srv_rak_peer *peer);
void srv__bsession_message(srv_bsession *s, uint8_t *data, size_t len);
/* The peer went away (RakNet): frees the session (at the end of the
 * session's call in progress, if any). */
void srv__bsession_gone(srv_bsession *s, const char *reason);
/* RakNet has room for this client again. */
void srv__bsession_writable(srv_bsession *s);
/* The server's tick: the login deadline. */
void srv__bsession_tick(srv_bsession *s, uint64_t now_ms);
/* Entry points from outside the session (RakNet, the world's turns) are
 * bracketed by these: a session that goes inside is freed at the end. */
void srv__bsession_enter(srv_bsession *s);
void srv__bsession_leave(srv_bsession *s);
/* Sends a packet (id + body) in the batch being built. */
void srv__bsession_packet(srv_bsession *s, const uint8_t *packet, size_t len);
/* Writes packet `sent` from its layout with `values` into the batch. */
bool srv__bsession_write(srv_bsession *s, int sent, srv_bvalue_fn values, void *ctx);
/* Sends the batch being built (if any) as one message. */
void srv__bsession_flush(srv_bsession *s);
/* Sends a cleartext batch body made elsewhere (a cached chunk answer),
 * after what is being built. False when RakNet refuses it (closed). */
bool srv__bsession_send_body(srv_bsession *s, const uint8_t *body, size_t len);
/* Disconnects with a reason shown to the player and logged (warning when
 * `warn`: the server protecting itself). */
void srv__bsession_kick(srv_bsession *s, const char *reason, bool warn);
/* The nearest columns around the player are out: PlayStatus player_spawn. */
void srv__bsession_spawn_ready(srv_bsession *s);

/* chunks.c */
void srv__bchunks_init(srv_bsession *s);
void srv__bchunks_free(srv_bsession *s);
/* RequestChunkRadius: the radius in force (up to the server's maximum);
 * starts or resizes the view. */
int srv__bchunks_radius(srv_bsession *s, int wanted);
/* The player is at (x, z) (blocks): recenters the view when it changed
 * column. */
void srv__bchunks_moved(srv_bsession *s, double x, double z);
/* Starts (or resumes) sending: answers, then the view's columns. */
void srv__bchunks_pump(srv_bsession *s);
/* A SubChunkRequest body; false when the client was dropped for it. */
bool srv__bchunks_request(srv_bsession *s, const uint8_t *body, size_t len);
/* A ClientCacheBlobStatus body. */
bool srv__bchunks_blob_status(srv_bsession *s, const uint8_t *body, size_t len);
/* RakNet has room again for this client: more answers and columns. */
void srv__bchunks_writable(srv_bsession *s);
/* Bytes this client's chunk state holds. */
size_t srv__bchunks_memory(const srv_bsession *s);

/* The world-wide part of chunks.c, owned by the listener. */
srv_bvariant *srv__bvariant_new(srv_server *srv, const srv_bedrock_version *v, bool hashed, bool cache, uint32_t kind);
void srv__bvariant_free(srv_bvariant *var);
bool srv__bvariant_matches(const srv_bvariant *var, const srv_bedrock_version *v, bool hashed, bool cache);
struct srv_bblobs *srv__bblobs_new(void);
void srv__bblobs_free(struct srv_bblobs *b);

#endif
