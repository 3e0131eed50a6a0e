/*
 * region_relight.h: `mcchunk region relight` (region_relight.c), called by
 * cmd_region.c's dispatch.
 */
#ifndef MC_TOOLS_REGION_RELIGHT_H
#define MC_TOOLS_REGION_RELIGHT_H

#include <stdbool.h>

/* Relights every full chunk of each file in place; prints a line per file
 * unless quiet. deflate_level: of the zlib records written (0: the game's,
 * WORLD_DEFLATE_GAME). Returns an MC_EXIT_* code. */
int mc_region_relight(int nfiles, const char *const *files, bool quiet, int deflate_level);

#endif
