/* tool_common.h: pieces several subcommands share. */
#ifndef MC_TOOLS_COMMON_H
#define MC_TOOLS_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "mcchunk/chunk.h"

/* Reads absolute chunk (x, z) of PATH (a region file, where x and z are
 * taken modulo 32, or a world folder with `dimension`) into a column.
 * Errors are printed prefixed with `prog`. Returns an MC_EXIT_* code. */
int mc_tool_load_column(const char *prog, const char *path, const char *dimension, int32_t x, int32_t z,
                        mc_column **out);

/* Prints a column's blocks as `x y z state` lines in absolute coordinates,
 * ordered by y, then z, then x (the format of `mcchunk chunk blocks`).
 *   out_reg  translate states to this registry first (NULL: the column's own)
 *   ids      numeric state ids instead of minecraft:name[k=v,...] (sorted)
 *   every    when > 0: every every-th position (air included), for sampling
 *   all      print air too
 * Returns an MC_EXIT_* code. */
int mc_tool_print_blocks(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all);

#endif
