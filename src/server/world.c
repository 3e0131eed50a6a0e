/*
 * world.c: the world the server serves: a Java world folder given with
 * --world, or the built-in generated world. Opening checks that a given
 * folder exists and holds region files, so a mistake is reported at start,
 * not when the first player arrives.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "server/session.h"

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mc_world_open(mc_server *srv)
{
    const char *w = srv->cfg->world;
    if (!w) {
        mc_srv_log(srv, MC_LOG_INFO, "world: built-in");
        return 0;
    }
    if (!is_dir(w)) {
        mc_srv_log(srv, MC_LOG_ERROR, "world folder '%s' does not exist", w);
        return -1;
    }
    char region[4096];
    snprintf(region, sizeof region, "%s/region", w);
    char region26[4096];
    snprintf(region26, sizeof region26, "%s/dimensions/minecraft/overworld/region", w);
    if (!is_dir(region) && !is_dir(region26)) {
        mc_srv_log(srv, MC_LOG_ERROR, "'%s' is not a Java world: no region/ or dimensions/minecraft/overworld/region/", w);
        return -1;
    }
    mc_srv_log(srv, MC_LOG_INFO, "world: %s", w);
    return 0;
}

void mc_world_close(mc_server *srv)
{
    (void)srv;
}

void mc_world_spawn(mc_server *srv, int32_t *x, int32_t *y, int32_t *z)
{
    (void)srv;
    *x = 8;
    *y = 100;
    *z = 8;
}

void mc_world_send_initial_chunks(mc_conn *c)
{
    /* Chunk streaming arrives with the Java chunk codecs (src/java). */
    (void)c;
}

void mc_world_player_packet(mc_conn *c, const char *name, mc_reader *r)
{
    (void)c;
    (void)name;
    (void)r;
}
