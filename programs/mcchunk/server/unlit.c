/*
 * unlit.c: light for the columns a world folder holds without any: worlds
 * written by tools that store no light, and chunks whose light was left
 * out. Before the light engine, the server gave them sky light straight
 * down and no block light; now they are lit as the game would light them,
 * from their blocks and their neighbours' blocks, before they are cached
 * and sent.
 *
 * The neighbours come from the same reader as the column (so the same
 * world, the same rules for proto-chunks) and are unlit too: reading them
 * calls this again, which a per-thread flag turns into a no-op; only their
 * blocks matter. A column is lit once, when it enters the server's cache.
 */
#include "server/unlit.h"

#include "mcchunk/light.h"
#include "server/terrain.h"

/* Set while this thread reads a column's neighbours. */
static _Thread_local bool reading_neighbours;

void srv_light_unlit(srv_world *w, mc_column *col, srv_column_reader read)
{
    if (reading_neighbours)
        return; /* a neighbour being read for another column: its blocks are all we need */
    const int32_t cx = mc_column_x(col), cz = mc_column_z(col);
    mc_column *around[8];
    reading_neighbours = true;
    for (int k = 0, n = 0; k < 9; k++)
        if (k != 4)
            around[n++] = read(w, cx + k % 3 - 1, cz + k / 3 - 1);
    reading_neighbours = false;
    const mc_column *nb[8];
    for (int k = 0; k < 8; k++)
        nb[k] = around[k];
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    if (!e || mc_light_column(e, col, nb, MC_LIGHT_BOTH, &err) != MC_OK)
        srv_simple_sky_light(col);
    mc_light_engine_free(e);
    for (int k = 0; k < 8; k++)
        mc_column_free(around[k]);
}
