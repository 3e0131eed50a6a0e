/*
 * listener.c: the glue between `mcchunk serve` and the RakNet endpoint: the
 * server-list string built from the server's configuration and player count,
 * the endpoint's log lines in the server's log, and the connection hook
 * where the Bedrock game layer will go (until then a connected client is
 * disconnected with a logged explanation).
 */
#include "server/raknet/listener.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "mcchunk/bedrock.h"
#include "server/raknet/raknet.h"
#include "server/core.h"

/* What the server-list ping announces: the newest Bedrock release the
 * library's tables know. */
#define ANNOUNCED_PROTOCOL MC_BEDROCK_PROTO_1_26_51

struct srv_bedrock_listener {
    srv_server *srv;
    srv_rak_uv *uv;
    uint64_t guid;
    int port;
    int announced_online; /* the player count in the current pong, -1 none yet */
};

static void on_log(void *user, int level, const char *line)
{
    srv_bedrock_listener *l = user;
    srv_log(l->srv, level == MC_RAK_LOG_WARN ? MC_LOG_WARN : MC_LOG_INFO, "bedrock %s", line);
}

static void on_connected(void *user, srv_rak_peer *peer)
{
    srv_bedrock_listener *l = user;
    srv_log(l->srv, MC_LOG_INFO,
               "bedrock %s: RakNet protocol %u, MTU %u; the Bedrock game layer (login) is not implemented yet",
               srv_rak_peer_name(peer), srv_rak_peer_protocol(peer), srv_rak_peer_mtu(peer));
    srv_rak_disconnect(peer, "Bedrock login is not implemented yet");
}

static void on_message(void *user, srv_rak_peer *peer, const uint8_t *data, size_t len) {}

static void on_disconnected(void *user, srv_rak_peer *peer, const char *reason) {}

/* "MCPE;motd;protocol;version;online;max;guid;level;mode;mode id;port4;port6;0;" */
static void update_pong(srv_bedrock_listener *l)
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
        srv_rak_set_pong(srv_rak_uv_endpoint(l->uv), pong, (size_t)n < sizeof pong ? (size_t)n : sizeof pong - 1);
    l->announced_online = l->srv->online;
}

srv_bedrock_listener *srv_bedrock_listener_start(srv_server *srv, int *port)
{
    srv_bedrock_listener *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->srv = srv;
    /* A server's GUID only has to differ between servers a client sees. */
    l->guid = uv_hrtime() ^ ((uint64_t)getpid() << 40) ^ srv->cfg->seed;
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    cfg.accept = true;
    cfg.guid = l->guid;
    cfg.max_peers = (unsigned)(srv->cfg->max_players > 0 ? srv->cfg->max_players : 0) + 16;
    srv_rak_callbacks cb = {.user = l,
                           .connected = on_connected,
                           .message = on_message,
                           .disconnected = on_disconnected,
                           .log = on_log};
    char err[160];
    l->uv = srv_rak_uv_start(srv->loop, srv->cfg->bind, srv->cfg->bedrock_port, &cfg, &cb, err, sizeof err);
    if (!l->uv) {
        srv_log(srv, MC_LOG_WARN, "Bedrock listener off: %s", err);
        free(l);
        return NULL;
    }
    l->port = srv_rak_uv_port(l->uv);
    *port = l->port;
    update_pong(l);
    return l;
}

void srv_bedrock_listener_tick(srv_bedrock_listener *l)
{
    if (l && l->announced_online != l->srv->online)
        update_pong(l);
}

void srv_bedrock_listener_stop(srv_bedrock_listener *l)
{
    if (!l)
        return;
    srv_rak_uv_close(l->uv, "Server closed");
    free(l);
}
