/*
 * world/window.h: three rows of decoded columns around the row a worker
 * is on, loaded on demand (see window.c), for work that needs each
 * chunk's eight neighbours (light).
 */
#ifndef MC_TOOLS_WORLD_WINDOW_H
#define MC_TOOLS_WORLD_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "mcchunk/chunk.h"

#define WORLD_WINDOW_WIDTH 34 /* x = -1 .. 32 of a region */

/* Returns the column of absolute chunk (cx, cz) (the window owns it and
 * hands it back to free_col), or NULL when there is none. `own`: the
 * chunk is in the window's region (it may become a chunk worked on; a
 * chunk of another region is only ever a neighbour). */
typedef mc_column *(*world_window_load)(void *user, int32_t cx, int32_t cz, bool own);

typedef struct world_window {
    int32_t rx, rz;
    world_window_load load;
    void (*free_col)(void *user, mc_column *col);
    void *user;
    int row_z;                                /* the centre row (local z) */
    mc_column *col[3][WORLD_WINDOW_WIDTH];    /* rows row_z-1, row_z, row_z+1 */
    bool tried[3][WORLD_WINDOW_WIDTH];
} world_window;

/* Set w->free_col after this (the loader's way of freeing a column). */
void world_window_init(world_window *w, int32_t rx, int32_t rz, world_window_load load, void *user);
void world_window_free(world_window *w);
/* Moves the centre to local row lz (rows are walked 0..31 in order: each
 * step frees one row and keeps two). */
void world_window_row(world_window *w, int lz);
/* The column at local (lx, row) (loaded when first asked), or NULL. */
mc_column *world_window_get(world_window *w, int lx);
/* Frees the column at local (lx, row) now, when no neighbour will need it
 * (work without light): the next column then reuses its memory, still in
 * cache, instead of a fresh one. Asking for it again gives NULL. */
void world_window_release(world_window *w, int lx);
/* Its eight neighbours in mc_light_column's order (NULL where none). */
void world_window_neighbours(world_window *w, int lx, const mc_column *nb[8]);

#endif
