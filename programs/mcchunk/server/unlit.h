/* unlit.h: light for the columns the server reads without any (see unlit.c). */
#ifndef MC_SERVER_UNLIT_H
#define MC_SERVER_UNLIT_H

#include <stdint.h>

#include "mcchunk/chunk.h"

typedef struct srv_world srv_world;

/* Reads column (cx, cz) of the world: a column the caller frees, or NULL
 * when there is none (world.c's read_column). */
typedef mc_column *(*srv_column_reader)(srv_world *w, int32_t cx, int32_t cz);

/* Gives col, which has no light at all, the sky and block light the light
 * engine computes from its blocks and its eight neighbours' (read through
 * `read` and freed again; a neighbour the world lacks counts as not
 * loaded). While the neighbours are read, a call from inside `read` (the
 * neighbours are unlit too) returns at once without touching its column,
 * so `read` may call this for every column it reads. Without memory for
 * the engine, col gets the simple sky light (srv_simple_sky_light). */
void srv_light_unlit(srv_world *w, mc_column *col, srv_column_reader read);

#endif
