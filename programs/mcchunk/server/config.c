/* config.c: the defaults of `mcchunk serve`'s options (config.h). */
#include "server/config.h"

#include <string.h>

void srv_server_config_defaults(srv_server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->bind = "127.0.0.1";
    cfg->port = 25565;
    cfg->bedrock_port = 19132;
    cfg->view_distance = 10;
    cfg->max_players = 20;
    cfg->motd = "An mcchunk server";
    cfg->compression_threshold = 256;
    cfg->idle_timeout_ms = 30000;
    cfg->login_timeout_ms = 30000;
    cfg->max_pending_write = (size_t)MC_SEND_QUEUE_DEFAULT_KB << 10;
    cfg->send_timeout_ms = MC_SEND_TIMEOUT_DEFAULT_S * 1000;
    cfg->seed = 20260101;
    cfg->cache_bytes = (size_t)256 << 20;
    cfg->http_port = -1;
}
