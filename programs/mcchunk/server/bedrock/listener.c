/*
 * listener.c: the glue between `mcchunk serve` and the RakNet endpoint:
 * the server-list string built from the server's configuration and player
 * count, the endpoint's log lines in the server's log, one session per
 * connected peer (session.c), and the state the sessions share (shared.h).
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

#include "mcchunk/bedrock.h"
#include "server/bedrock/session.h"

/* What the server-list ping announces: the newest Bedrock release known. */
#define ANNOUNCED_PROTOCOL MC_BEDROCK_PROTO_1_26_51

struct srv_blistener {
    srv_bshared sh;
    uint64_t guid;
    int port;
    int announced_online; /* the player count in the current pong, -1 none yet */
    srv_bsession *sessions;
    unsigned nsessions;
};

/* ------------------------------------------------------------ RakNet */

static void on_log(void *user, int level, const char *line)
{
    srv_blistener *l = user;
    srv_log(l->sh.srv, level == MC_RAK_LOG_WARN ? MC_LOG_WARN : MC_LOG_INFO, "bedrock %s", line);
}

static void on_connected(void *user, srv_rak_peer *peer)
{
    srv_blistener *l = user;
    srv_bsession *s = srv_bsession_new(&l->sh, peer);
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
        srv_bsession_message(s, (uint8_t *)data, len); /* RakNet's buffer, the session may decrypt in place */
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
    srv_bsession_gone(s, reason);
}

static void on_writable(void *user, srv_rak_peer *peer)
{
    srv_bsession *s = srv_rak_peer_user(peer);
    if (s)
        srv_bsession_writable(s);
}

/* "MCPE;motd;protocol;version;online;max;guid;level;mode;mode id;port4;port6;0;" */
static void update_pong(srv_blistener *l)
{
    const srv_server_config *cfg = l->sh.srv->cfg;
    char motd[256];
    snprintf(motd, sizeof motd, "%s", cfg->motd);
    for (char *c = motd; *c; c++)
        if (*c == ';' || *c == '\n')
            *c = ' '; /* the separator cannot appear inside a field */
    const char *version = mc_bedrock_version_name(ANNOUNCED_PROTOCOL);
    char pong[512];
    int n = snprintf(pong, sizeof pong, "MCPE;%s;%d;%s;%d;%d;%llu;mcchunk;Creative;1;%d;%d;0;", motd,
                     ANNOUNCED_PROTOCOL, version ? version : "", l->sh.srv->online, cfg->max_players,
                     (unsigned long long)l->guid, l->port, l->port);
    if (n > 0)
        srv_rak_set_pong(l->sh.rak, pong, (size_t)n < sizeof pong ? (size_t)n : sizeof pong - 1);
    l->announced_online = l->sh.srv->online;
}

static void listener_free(srv_blistener *l)
{
    srv_bvariants_free(&l->sh);
    srv_bblobs_free(l->sh.blobs);
    srv_bitems_free(l->sh.items);
    srv_bcodec_shared_free(&l->sh.codec);
    free(l);
}

srv_blistener *srv__blistener_new(srv_server *srv)
{
    srv_blistener *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->sh.srv = srv;
    l->sh.blobs = srv_bblobs_new();
    if (!srv_bcodec_shared_init(&l->sh.codec) || !l->sh.blobs) {
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
    cfg->max_peers = (unsigned)(l->sh.srv->cfg->max_players > 0 ? l->sh.srv->cfg->max_players : 0) + 16;
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
    l->sh.rak = rak;
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
    l->sh.uv = srv_rak_uv_start(srv->loop, srv->cfg->bind, srv->cfg->bedrock_port, &cfg, &cb, err, sizeof err);
    if (!l->sh.uv) {
        srv_log(srv, MC_LOG_WARN, "Bedrock listener off: %s", err);
        listener_free(l);
        return NULL;
    }
    srv__blistener_attach(l, srv_rak_uv_endpoint(l->sh.uv), srv_rak_uv_port(l->sh.uv));
    *port = l->port;
    return l;
}

void srv_bedrock_listener_tick(srv_blistener *l)
{
    if (!l)
        return;
    if (l->announced_online != l->sh.srv->online)
        update_pong(l);
    uint64_t now = srv_server_clock(l->sh.srv);
    for (srv_bsession *s = l->sessions, *next; s; s = next) {
        next = s->next;
        srv_bsession_tick(s, now);
    }
}

void srv_bedrock_listener_stop(srv_blistener *l)
{
    if (!l)
        return;
    srv_rak_uv_close(l->sh.uv, "Server closed"); /* every session goes (on_disconnected) */
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
    size_t n = sizeof *l + l->sh.codec.inflated.cap + l->sh.codec.sealed.cap;
    for (const srv_bsession *s = l->sessions; s; s = s->next)
        n += srv_bsession_memory(s);
    return n;
}
