/*
 * http_players.c: the players in the game, for the web map's
 * /players.json (http.c): name, edition, dimension and feet position of
 * every connection past login. Java players only, for now: the Bedrock
 * listener does not take players into the game yet.
 */
#include <stdio.h>
#include <string.h>

#include "server/session.h"

void srv_players_json(void *user, mc_buf *out)
{
    srv_server *srv = user;
    mc_buf_put_u8(out, '[');
    bool first = true;
    for (srv_conn *c = srv->conns; c; c = c->next) {
        double x, y, z;
        if (!c->in_game || c->closing || !srv_world_player_position(c, &x, &y, &z))
            continue;
        const char *open = first ? "{\"name\": " : ", {\"name\": ";
        mc_buf_put(out, open, strlen(open));
        srv_json_string(out, c->name);
        char rest[160];
        int n = snprintf(rest, sizeof rest, ", \"edition\": \"java\", \"dimension\": \"overworld\", \"x\": %.2f, "
                         "\"y\": %.2f, \"z\": %.2f}", x, y, z);
        mc_buf_put(out, rest, (size_t)n);
        first = false;
    }
    mc_buf_put_u8(out, ']');
}
