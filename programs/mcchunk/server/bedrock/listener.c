/*
 * listener.c: the glue between `mcchunk serve` and the RakNet endpoint:
 * the server-list string built from the server's configuration and player
 * count, the endpoint's log lines in the server's log, one session per
 * connected peer (session.c), and what the sessions share: the compression
 * state, the item palettes, the variants of chunk data (one per client
 * protocol, id mode and blob-cache setting) and where recent blobs are.
 *
 * RakNet is configured for game clients: a message of at most 4 MiB each
 * way, at most 4 MiB being reassembled and 4 MiB queued or unacknowledged
 * per peer (the send window; chunk data stops well before it, see
 * SRV_BEDROCK_CHUNK_WINDOW), which with the session's own state bounds what
 * one client can make the server hold (serve --help states the sum).
 */
#include "server/bedrock/listener.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "server/bedrock/bedrock_private.h"
#include "server/bedrock/items.h"

/* What the server-list ping announces: the newest Bedrock release known. */
#define ANNOUNCED_PROTOCOL MC_BEDROCK_PROTO_1_26_51
#define MAX_VARIANTS 64

struct srv_blistener {
    srv_server *srv;
    srv_rak_uv *uv;  /* the UDP socket, or NULL when the caller owns the endpoint */
    srv_rak *rak;
    uint64_t guid;
    int port;
    int announced_online; /* the player count in the current pong, -1 none yet */
    srv_bcodec_shared codec;
    srv_bsession *sessions;
    unsigned nsessions;
    srv_bvariant *variants[MAX_VARIANTS];
    unsigned nvariants;
    struct srv_bblobs *blobs;
    srv_bitems *items;
    bool items_failed;
    int64_t next_entity_id;
};

srv_server *srv__blistener_server(srv_blistener *l) { return l->srv; }
srv_bcodec_shared *srv__blistener_codec(srv_blistener *l) { return &l->codec; }
bool srv__blistener_encryption(const srv_blistener *l) { return l->srv->cfg->bedrock_encryption; }
bool srv__blistener_hashed(const srv_blistener *l) { return !l->srv->cfg->bedrock_index_ids; }
struct srv_bblobs *srv__blistener_blobs(srv_blistener *l) { return l->blobs; }
int64_t srv__blistener_entity_id(srv_blistener *l) { return ++l->next_entity_id; }

srv_bitems *srv__blistener_items(srv_blistener *l)
{
    if (!l->items && !l->items_failed) {
        l->items = srv_bitems_load();
        l->items_failed = !l->items;
        if (l->items_failed)
            srv_log(l->srv, MC_LOG_ERROR, "bedrock: the item palettes cannot be read (out of memory?)");
    }
    return l->items;
}

srv_bvariant *srv__blistener_variant(srv_blistener *l, const srv_bedrock_version *v, bool hashed, bool cache)
{
    /* the kind of a variant's entries in the world's cache: its slot */
    for (unsigned i = 0; i < l->nvariants; i++) {
        srv_bvariant *var = l->variants[i];
        if (srv__bvariant_matches(var, v, hashed, cache))
            return var;
    }
    if (l->nvariants == MAX_VARIANTS)
        return NULL;
    srv_bvariant *var = srv__bvariant_new(l->srv, v, hashed, cache, SRV_WORLD_KIND_OTHER + l->nvariants);
    if (var)
        l->variants[l->nvariants++] = var;
    return var;
}

/* ------------------------------------------------------------ RakNet */

static void on_log(void *user, int level, const char *line)
{
    srv_blistener *l = user;
    srv_log(l->srv, level == MC_RAK_LOG_WARN ? MC_LOG_WARN : MC_LOG_INFO, "bedrock %s", line);
}

static void on_connected(void *user, srv_rak_peer *peer)
{
    srv_blistener *l = user;
    srv_bsession *s = srv__bsession_new(l, peer);
    if (!s) {
        srv_rak_disconnect(peer, "server out of memory");
        return;
    }
    s->next = l->sessions;
    if (l->sessions)
        l->sessions->prev = s;
    l->sessions = s;
    l->nsessions++;
    srv_rak_peer_set_user(peer, s);
}

static void on_message(void *user, srv_rak_peer *peer, const uint8_t *data, size_t len)
{
    srv_bsession *s = srv_rak_peer_user(peer);
    if (s)
        srv__bsession_message(s, (uint8_t *)data, len); /* RakNet's buffer, the session may decrypt in place */
}

static void on_disconnected(void *user, srv_rak_peer *peer, const char *reason)
{
    srv_blistener *l = user;
    srv_bsession *s = srv_rak_peer_user(peer);
    if (!s)
        return;
    srv_rak_peer_set_user(peer, NULL);
    if (s->prev)
        s->prev->next = s->next;
    else
        l->sessions = s->next;
    if (s->next)
        s->next->prev = s->prev;
    l->nsessions--;
    srv__bsession_gone(s, reason);
}

static void on_writable(void *user, srv_rak_peer *peer)
{
    srv_bsession *s = srv_rak_peer_user(peer);
    if (s)
        srv__bsession_writable(s);
}

/* "MCPE;motd;protocol;version;online;max;guid;level;mode;mode id;port4;port6;0;" */
static void update_pong(srv_blistener *l)
{
    const srv_server_config *cfg = l->srv->cfg;
    char motd[256];
    snprintf(motd, sizeof motd, "%s", cfg->motd);
    for (char *c = motd; *c; c++)
        if (*c == ';' || *c == '\n')
            *c = ' '; /* the separator cannot appear inside a field */
    const char *version = mc_bedrock_version_name(ANNOUNCED_PROTOCOL);
    char pong[512];
    int n = snprintf(pong, sizeof pong, "MCPE;%s;%d;%s;%d;%d;%llu;mcchunk;Creative;1;%d;%d;0;", motd,
                     ANNOUNCED_PROTOCOL, version ? version : "", l->srv->online, cfg->max_players,
                     (unsigned long long)l->guid, l->port, l->port);
    if (n > 0)
        srv_rak_set_pong(l->rak, pong, (size_t)n < sizeof pong ? (size_t)n : sizeof pong - 1);
    l->announced_online = l->srv->online;
}

static void listener_free(srv_blistener *l)
{
    for (unsigned i = 0; i < l->nvariants; i++)
        srv__bvariant_free(l->variants[i]);
    srv__bblobs_free(l->blobs);
    srv_bitems_free(l->items);
    srv_bcodec_shared_free(&l->codec);
    free(l);
}

srv_blistener *srv__blistener_new(srv_server *srv)
{
    srv_blistener *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->srv = srv;
    l->blobs = srv__bblobs_new();
    if (!srv_bcodec_shared_init(&l->codec) || !l->blobs) {
        listener_free(l);
        return NULL;
    }
    /* A server's GUID only has to differ between servers a client sees. */
    l->guid = uv_hrtime() ^ ((uint64_t)getpid() << 40) ^ srv->cfg->seed;
    return l;
}

void srv__blistener_config(const srv_blistener *l, srv_rak_config *cfg, srv_rak_callbacks *cb)
{
    srv_rak_config_defaults(cfg);
    cfg->accept = true;
    cfg->guid = l->guid;
    cfg->max_peers = (unsigned)(l->srv->cfg->max_players > 0 ? l->srv->cfg->max_players : 0) + 16;
    cfg->max_reassembly_bytes = SRV_BEDROCK_RAKNET_IN;
    cfg->max_message_bytes = SRV_BEDROCK_RAKNET_OUT;
    cfg->send_window_bytes = SRV_BEDROCK_RAKNET_OUT;
    memset(cb, 0, sizeof *cb);
    cb->user = (void *)l;
    cb->connected = on_connected;
    cb->message = on_message;
    cb->disconnected = on_disconnected;
    cb->log = on_log;
    cb->writable = on_writable;
}

void srv__blistener_attach(srv_blistener *l, srv_rak *rak, int port)
{
    l->rak = rak;
    l->port = port;
    update_pong(l);
}

void srv__blistener_free(srv_blistener *l)
{
    if (l)
        listener_free(l);
}

srv_blistener *srv_bedrock_listener_start(srv_server *srv, int *port)
{
    srv_blistener *l = srv__blistener_new(srv);
    if (!l) {
        srv_log(srv, MC_LOG_WARN, "Bedrock listener off: out of memory");
        return NULL;
    }
    srv_rak_config cfg;
    srv_rak_callbacks cb;
    srv__blistener_config(l, &cfg, &cb);
    char err[160];
    l->uv = srv_rak_uv_start(srv->loop, srv->cfg->bind, srv->cfg->bedrock_port, &cfg, &cb, err, sizeof err);
    if (!l->uv) {
        srv_log(srv, MC_LOG_WARN, "Bedrock listener off: %s", err);
        listener_free(l);
        return NULL;
    }
    srv__blistener_attach(l, srv_rak_uv_endpoint(l->uv), srv_rak_uv_port(l->uv));
    *port = l->port;
    return l;
}

void srv_bedrock_listener_tick(srv_blistener *l)
{
    if (!l)
        return;
    if (l->announced_online != l->srv->online)
        update_pong(l);
    uint64_t now = srv_server_clock(l->srv);
    for (srv_bsession *s = l->sessions, *next; s; s = next) {
        next = s->next;
        srv__bsession_tick(s, now);
    }
}

void srv_bedrock_listener_flush(srv_blistener *l)
{
    if (l->uv) /* the binding batches what goes out */
        srv_rak_uv_flush(l->uv);
    else if (l->rak) /* the caller's endpoint, on its own clock */
        srv_rak_flush(l->rak, srv_rak_now(l->rak));
}

void srv_bedrock_listener_stop(srv_blistener *l)
{
    if (!l)
        return;
    srv_rak_uv_close(l->uv, "Server closed"); /* every session goes (on_disconnected) */
    listener_free(l);
}

unsigned srv_bedrock_listener_clients(const srv_blistener *l)
{
    return l ? l->nsessions : 0;
}

size_t srv_bedrock_listener_memory(const srv_blistener *l)
{
    if (!l)
        return 0;
    size_t n = sizeof *l + sizeof(struct srv_bblobs *) + l->codec.inflated.cap + l->codec.sealed.cap;
    for (const srv_bsession *s = l->sessions; s; s = s->next)
        n += sizeof *s + s->out.cap + s->msg.cap + srv__bchunks_memory(s);
    return n;
}
