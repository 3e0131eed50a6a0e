/*
 * chunks.h: the world as Bedrock clients get it (chunks.c): the variants
 * of chunk data (per client protocol, id mode and blob cache), made once
 * per column and kept in the world's cache; and per client its view of
 * columns, its queue of subchunk requests and its limits.
 */
#ifndef MC_SERVER_BEDROCK_CHUNKS_H
#define MC_SERVER_BEDROCK_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/bedrock/client.h"
#include "server/view.h"
#include "server/world.h"

/* A request waiting to be answered: one subchunk, absolute. */
typedef struct srv_boffset {
    int32_t x, y, z, dimension;
} srv_boffset;

/* A client's chunk state. */
typedef struct srv_bchunks {
    srv_bclient *client;
    srv_bvariant *variant;     /* what it is sent (NULL until a radius is asked) */
    bool cache;                /* its blob cache is on */
    srv_view view;
    int radius;                /* chunk radius in force (0: none asked yet) */
    double x, y, z;            /* where the player is (feet) */
    srv_boffset *pending;      /* ring of subchunks to answer */
    uint32_t pending_head, pending_len, pending_cap;
    uint64_t rate_second;      /* SubChunkRequests counted in this second */
    unsigned rate_count;
    uint64_t answered;         /* subchunk answers sent */
    uint64_t level_chunks;     /* LevelChunks sent */
    bool waiting_writable;     /* paused on RakNet's window, resumed by its callback */
    /* Set by the session: the columns around the player are awaited
     * (spawn_pending) and spawn_ready(user) is called once they are out;
     * work.turn is the session's way back in at the client's go. */
    bool spawn_pending;
    void (*spawn_ready)(void *user);
    void *user;
    srv_work_client work;
} srv_bchunks;

void srv_bchunks_init(srv_bchunks *ch, srv_bclient *client);
void srv_bchunks_free(srv_bchunks *ch);
/* RequestChunkRadius: the radius in force (up to the server's maximum);
 * starts or resizes the view around (x, z). */
int srv_bchunks_radius(srv_bchunks *ch, int wanted);
/* The player is at (x, y, z) (blocks, feet): recenters the view when it
 * changed column. */
void srv_bchunks_moved(srv_bchunks *ch, double x, double y, double z);
/* ClientCacheStatus: later columns and answers in that form. */
bool srv_bchunks_set_cache(srv_bchunks *ch, bool on);
/* Sends what is due: answers first, then the view's columns, as far as
 * RakNet's window and the turn's share of work allow. */
void srv_bchunks_pump(srv_bchunks *ch);
/* A SubChunkRequest body; false when the client was dropped for it. */
bool srv_bchunks_request(srv_bchunks *ch, const uint8_t *body, size_t len);
/* A ClientCacheBlobStatus body. */
bool srv_bchunks_blob_status(srv_bchunks *ch, const uint8_t *body, size_t len);
/* RakNet has room again for this client. */
void srv_bchunks_writable(srv_bchunks *ch);
/* Bytes this client's chunk state holds. */
size_t srv_bchunks_memory(const srv_bchunks *ch);

/* The shared part (the listener owns it): the variants and the blob index. */
struct srv_bblobs *srv_bblobs_new(void);
void srv_bblobs_free(struct srv_bblobs *b);
/* Frees every variant of sh. */
void srv_bvariants_free(srv_bshared *sh);

#endif
