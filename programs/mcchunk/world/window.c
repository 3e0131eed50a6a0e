/*
 * window.c: the decoded columns a worker holds while it goes through a
 * region row by row, and the light work done with them (relight.c uses it
 * for `region relight` and `world relight`, cmd_world_convert.c for the
 * light of converted chunks).
 *
 * Light crosses chunk borders, so lighting chunk (x, z) needs its eight
 * neighbours' blocks -- at a region's edge, chunks of the next region
 * file. Holding a whole region decoded would cost hundreds of MB per
 * worker; the window holds three rows instead: row z-1, z and z+1, each
 * 34 columns wide (x = -1 .. 32), about a tenth of a region. Columns are
 * loaded when first asked for (as a chunk to work on or as a neighbour),
 * so a chunk nobody lights is never decoded, and a row leaves the window
 * when the walk has passed it. The loader decides where a column comes
 * from (the region itself, a neighbouring file, or nowhere) and in what
 * form (read, translated for convert).
 */
#include <stdlib.h>
#include <string.h>

#include "world/window.h"

void world_window_init(world_window *w, int32_t rx, int32_t rz, world_window_load load, void *user)
{
    memset(w, 0, sizeof *w);
    w->rx = rx;
    w->rz = rz;
    w->load = load;
    w->user = user;
    w->row_z = -2; /* nothing loaded */
}

static void free_row(world_window *w, int r)
{
    for (int i = 0; i < WORLD_WINDOW_WIDTH; i++) {
        if (w->col[r][i])
            w->free_col(w->user, w->col[r][i]);
        w->col[r][i] = NULL;
        w->tried[r][i] = false;
    }
}

void world_window_free(world_window *w)
{
    for (int r = 0; r < 3; r++)
        free_row(w, r);
}

void world_window_row(world_window *w, int lz)
{
    if (lz == w->row_z)
        return;
    if (lz == w->row_z + 1) {
        free_row(w, 0);
        /* shift rows up: 1 -> 0, 2 -> 1 */
        memcpy(w->col[0], w->col[1], sizeof w->col[0]);
        memcpy(w->tried[0], w->tried[1], sizeof w->tried[0]);
        memcpy(w->col[1], w->col[2], sizeof w->col[1]);
        memcpy(w->tried[1], w->tried[2], sizeof w->tried[1]);
        memset(w->col[2], 0, sizeof w->col[2]);
        memset(w->tried[2], 0, sizeof w->tried[2]);
    } else {
        world_window_free(w);
    }
    w->row_z = lz;
}

/* Column at local (lx, lz) with lx in -1..32 and lz in row_z-1..row_z+1. */
static mc_column *slot(world_window *w, int lx, int lz)
{
    int r = lz - w->row_z + 1, i = lx + 1;
    if (!w->tried[r][i]) {
        w->tried[r][i] = true;
        bool own = lx >= 0 && lx < 32 && lz >= 0 && lz < 32;
        w->col[r][i] = w->load(w->user, w->rx * 32 + lx, w->rz * 32 + lz, own);
    }
    return w->col[r][i];
}

mc_column *world_window_get(world_window *w, int lx)
{
    return slot(w, lx, w->row_z);
}

void world_window_neighbours(world_window *w, int lx, const mc_column *nb[8])
{
    int k = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dx = -1; dx <= 1; dx++)
            if (dx || dz)
                nb[k++] = slot(w, lx + dx, w->row_z + dz);
}

void world_window_release(world_window *w, int lx)
{
    mc_column **c = &w->col[1][lx + 1];
    if (*c)
        w->free_col(w->user, *c);
    *c = NULL;
    w->tried[1][lx + 1] = true;
}
