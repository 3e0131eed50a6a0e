/*
 * client.c: one Bedrock client's side of the transport (client.h). The
 * packets a handler writes go out as one batch: framed, compressed (or
 * not, under the threshold and before NetworkSettings) into a body, sealed
 * (0xFE, encrypted with its checksum when encryption is on) and handed to
 * RakNet as one reliable ordered message. Cached bodies (chunk answers,
 * made once for every client of a version) are only sealed.
 */
#include "server/bedrock/client.h"

#include <stdio.h>
#include <string.h>

/* Bytes a client's buffers may keep between batches (a StartGame with its
 * item palette grows them once). */
#define KEEP_BUFFER ((size_t)256 << 10)

void srv_bclient_init(srv_bclient *c, srv_bshared *sh, srv_rak_peer *peer, const char *name)
{
    memset(c, 0, sizeof *c);
    c->sh = sh;
    c->peer = peer;
    c->name = name;
    mc_buf_init(&c->out, NULL);
    mc_buf_init(&c->msg, NULL);
    snprintf(c->peer_name, sizeof c->peer_name, "%s", srv_rak_peer_name(peer));
}

void srv_bclient_free(srv_bclient *c)
{
    srv_bcipher_free(c->codec.cipher);
    c->codec.cipher = NULL;
    mc_buf_free(&c->out);
    mc_buf_free(&c->msg);
}

void srv_bclient_packet(srv_bclient *c, const uint8_t *packet, size_t len)
{
    srv_bpacket_frame(&c->out, packet, len);
}

bool srv_bclient_write(srv_bclient *c, int sent, srv_bvalue_fn values, void *ctx)
{
    /* before the client said its version, the oldest layout (those of the
     * packets sent then never changed) */
    const srv_bedrock_version *v = c->v ? c->v : srv_bedrock_version_first();
    mc_buf pkt;
    mc_buf_init(&pkt, NULL);
    mc_error err;
    mc_error_clear(&err);
    bool ok = srv_bedrock_write(&pkt, v, sent, values, ctx, &err) == MC_OK;
    if (ok)
        srv_bclient_packet(c, pkt.data, pkt.len);
    else
        srv_log(c->sh->srv, MC_LOG_ERROR, "bedrock %s: %s", c->peer_name, err.message);
    mc_buf_free(&pkt);
    return ok;
}

/* Seals a cleartext batch body and hands it to RakNet. */
static bool send_message(srv_bclient *c, const uint8_t *body, size_t len)
{
    if (!c->peer || c->gone)
        return false;
    srv_bcodec_shared *sh = &c->sh->codec;
    sh->sealed.len = 0;
    if (!srv_bcodec_seal(&c->codec, body, len, &sh->sealed)) {
        srv_bclient_kick(c, "Server out of memory", true);
        return false;
    }
    srv_rak_send_result r = srv_rak_send(c->peer, sh->sealed.data, sh->sealed.len, MC_RAK_RELIABLE_ORDERED, 0);
    if (r == MC_RAK_FULL) {
        srv_bclient_kick(c, "Too slow: over 4 MiB sent and not acknowledged", true);
        return false;
    }
    return r == MC_RAK_SENT;
}

void srv_bclient_flush(srv_bclient *c)
{
    if (!c->out.len || c->gone)
        return;
    c->msg.len = 0;
    bool ok = srv_bcodec_body(&c->codec, &c->sh->codec, c->out.data, c->out.len, false, &c->msg);
    c->out.len = 0;
    if (ok)
        send_message(c, c->msg.data, c->msg.len);
    else
        srv_bclient_kick(c, "Server out of memory", true);
    if (c->msg.cap > KEEP_BUFFER)
        mc_buf_free(&c->msg);
    if (c->out.cap > KEEP_BUFFER)
        mc_buf_free(&c->out);
}

bool srv_bclient_send_body(srv_bclient *c, const uint8_t *body, size_t len)
{
    srv_bclient_flush(c);
    return send_message(c, body, len);
}

void srv_bclient_kick(srv_bclient *c, const char *reason, bool warn)
{
    if (c->gone || !c->peer)
        return;
    srv_log(c->sh->srv, warn ? MC_LOG_WARN : MC_LOG_INFO, "bedrock %s%s%s disconnected: %s%s", c->peer_name,
            c->name[0] ? " " : "", c->name, reason,
            c->v ? "" : " (its release is not known yet: RakNet's disconnect only, no Disconnect packet)");
    /* The Disconnect's layout changed (1.20.40 put a reason code before the
     * message, 1.21.20 made the message a switch on hide_disconnect_reason
     * with a filtered message), and the RakNet protocol does not tell the
     * release (jsp-raknet speaks 10 for every release): before the client
     * said its release, any layout is wrong for some client, which then
     * fails to parse it (a 1.20.61 client reading the oldest layout:
     * bedrock-protocol's "string size 26, expected 88"). So it gets only
     * RakNet's disconnect. */
    if (c->v) {
        srv_bfield f[] = {SRV_BINT("hide_disconnect_reason", 0), SRV_BSTR("message", reason), {NULL, {0}}};
        srv_bclient_write(c, SRV_BSENT_DISCONNECT, srv_bvalues_lookup, f);
    }
    srv_bclient_flush(c);
    c->gone = true; /* logged: RakNet's callback stays quiet */
    srv_rak_disconnect(c->peer, reason);
}
