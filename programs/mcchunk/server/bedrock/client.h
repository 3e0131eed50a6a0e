/*
 * client.h: one Bedrock client's side of the transport (client.c): the
 * packets of the batch being built, batches compressed and sealed into
 * RakNet messages, cached batch bodies sent as they are, and the
 * disconnect with a reason shown to the player and logged.
 */
#ifndef MC_SERVER_BEDROCK_CLIENT_H
#define MC_SERVER_BEDROCK_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/bedrock/layout.h"
#include "server/bedrock/shared.h"

typedef struct srv_bclient {
    srv_bshared *sh;
    srv_rak_peer *peer;             /* NULL once RakNet let it go */
    srv_bcodec codec;
    const srv_bedrock_version *v;   /* the client's release, once it said */
    char peer_name[64];
    const char *name;               /* the player's name ("" until logged in) */
    bool gone;                      /* disconnected: nothing more is sent */
    mc_buf out;                     /* packets of the batch being built */
    mc_buf msg;                     /* scratch: a batch body */
} srv_bclient;

void srv_bclient_init(srv_bclient *c, srv_bshared *sh, srv_rak_peer *peer, const char *name);
void srv_bclient_free(srv_bclient *c);
/* Adds a packet (id + body) to the batch being built. */
void srv_bclient_packet(srv_bclient *c, const uint8_t *packet, size_t len);
/* Writes packet `sent` from its layout with `values` into the batch. */
bool srv_bclient_write(srv_bclient *c, int sent, srv_bvalue_fn values, void *ctx);
/* Sends the batch being built (if any) as one message. */
void srv_bclient_flush(srv_bclient *c);
/* Sends a cleartext batch body made elsewhere (a cached chunk answer),
 * after what is being built. False when it could not be sent. */
bool srv_bclient_send_body(srv_bclient *c, const uint8_t *body, size_t len);
/* Disconnects with a reason shown to the player and logged (a warning when
 * `warn`: the server protecting itself). A client that has not yet said
 * its release gets RakNet's disconnect alone: the Disconnect's layout
 * depends on the release. RakNet then reports the peer gone
 * (the session ends through the listener). */
void srv_bclient_kick(srv_bclient *c, const char *reason, bool warn);

#endif
