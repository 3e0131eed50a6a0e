/*
 * tool_common.h: pieces every subcommand shares, so that each rule is
 * written once: how a number or a chunk coordinate on the command line is
 * read (whole string, range, a message naming the option and the range),
 * how a chunk's region file is found and checked, how input files and
 * stdin are read, how an unknown version is reported, and the one line
 * format of blocks.
 *
 * Every function that can fail prints its message on stderr, prefixed with
 * the caller's `prog` ("mcchunk chunk get"), and tells the caller the exit
 * code (MC_EXIT_USAGE for bad arguments, MC_EXIT_FAIL for failed work).
 */
#ifndef MC_TOOLS_COMMON_H
#define MC_TOOLS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunk.h"

/* The game's world ends at 30,000,000 blocks from the origin: chunk
 * coordinates lie in -MC_TOOL_CHUNK_LIMIT .. MC_TOOL_CHUNK_LIMIT. */
#define MC_TOOL_BLOCK_LIMIT 30000000
#define MC_TOOL_CHUNK_LIMIT (MC_TOOL_BLOCK_LIMIT / 16)

/* ------------------------------------------------------------- numbers */

/* Reads `s` whole as a decimal integer in lo..hi. On failure prints
 * "PROG: WHAT must be an integer in LO..HI, not 'S'" and returns false (the
 * caller exits MC_EXIT_USAGE). `what` names the option ("--seed") or the
 * argument ("X"). */
bool mc_tool_parse_ll(const char *prog, const char *what, const char *s, long long lo, long long hi,
                      long long *out);
bool mc_tool_parse_int(const char *prog, const char *what, const char *s, int lo, int hi, int *out);
bool mc_tool_parse_i32(const char *prog, const char *what, const char *s, int32_t lo, int32_t hi, int32_t *out);
/* A 64-bit seed: 0..18446744073709551615, or a negative 64-bit number (the
 * game's seeds are signed), kept as its two's complement. */
bool mc_tool_parse_seed(const char *prog, const char *what, const char *s, uint64_t *out);
/* A decimal number (no inf/nan) in lo..hi. */
bool mc_tool_parse_double(const char *prog, const char *what, const char *s, double lo, double hi, double *out);
/* A chunk coordinate: an integer within +-MC_TOOL_CHUNK_LIMIT. */
bool mc_tool_parse_chunk(const char *prog, const char *what, const char *s, int32_t *out);
/* "X,Z", both chunk coordinates. */
bool mc_tool_parse_chunk_pair(const char *prog, const char *what, const char *s, int32_t *x, int32_t *z);

/* --------------------------------------------------------------- files */

bool mc_tool_is_dir(const char *path);
/* Reads FILE whole ("-": stdin) into a malloc'ed buffer (free()). Prints
 * "PROG: FILE: reason" ("is a directory" for a folder) and returns false on
 * failure. */
bool mc_tool_read_input(const char *prog, const char *file, uint8_t **data, size_t *len);
/* Writes len bytes to PATH ("-": stdout); prints "PROG: cannot write PATH:
 * reason" and returns false on failure. */
bool mc_tool_write_output(const char *prog, const char *path, const void *data, size_t len);
/* The last component of a path. */
const char *mc_tool_basename(const char *path);

/* -------------------------------------------------------------- chunks */

/* Finds the region file and local coordinates of absolute chunk (x, z) of
 * PATH: a world folder (`dimension`, `kind` pick the region folder) or a
 * region file, which must hold the chunk: "chunk X Z is not in r.A.B.mca"
 * otherwise (a file not named r.A.B.mca takes local coordinates 0..31).
 * `for_write`: a missing region file is fine (it will be created).
 * Returns an MC_EXIT_* code; `out` receives the region file's path. */
int mc_tool_locate_chunk(const char *prog, const char *path, const char *dimension, mc_region_kind kind,
                         int32_t x, int32_t z, bool for_write, char *out, size_t out_size, int *lx, int *lz);

/* Prints the failure of reading chunk (x, z) of region file `file`:
 * "chunk X Z is absent from FILE" for an absent one, else the library's
 * message. */
void mc_tool_chunk_error(const char *prog, int32_t x, int32_t z, const char *file, const mc_error *err);

/* Reads absolute chunk (x, z) of PATH (see mc_tool_locate_chunk; dimension
 * NULL: the overworld) into a column. Returns an MC_EXIT_* code. */
int mc_tool_load_column(const char *prog, const char *path, const char *dimension, int32_t x, int32_t z,
                        mc_column **out);

/* Cuts or extends *col to min_y .. min_y+height-1 (multiples of 16) when it
 * differs. Blocks that do not fit are counted and said once on stderr:
 * "PROG: N blocks outside VERSION's height (y A..B) dropped". Returns an
 * MC_EXIT_* code (*col is replaced; on failure it is freed and NULL). */
int mc_tool_fit_height(const char *prog, const char *version, mc_column **col, int32_t min_y, int32_t height);

/* Copies src's extra NBT (mc_column_extra: the keys the model does not
 * interpret -- Status, InhabitedTime, LastUpdate, ticks, structures, the
 * DataVersion it was read from...) into dst, except the per-section
 * entries ("sections"), which belong to src's sections. For a column made
 * by mc_column_reshape, which keeps blocks, biomes, light and block
 * entities but not the rest. Returns an mc_status. */
mc_status mc_tool_copy_extra(mc_column *dst, mc_column *src);

/* ------------------------------------------------------------ versions */

/* The registry of Java release V ("1.17.1", "26.1"; also a registry name),
 * NULL when unknown. *before_1_18 (may be NULL) is true for releases before
 * 1.18, whose worlds are y 0..255. */
const mc_registry *mc_tool_java_registry(const char *version, bool *before_1_18);

/* ------------------------------------------------------------ messages */

/* "PROG: unknown version V; `mcchunk registry --versions` lists them";
 * returns MC_EXIT_USAGE. */
int mc_tool_unknown_version(const char *prog, const char *version);
/* Prints `s` as a JSON string (quotes and escapes). */
void mc_tool_json_string(FILE *out, const char *s);

/* ------------------------------------------------------------- blocks */

/* Prints a column's blocks as `x y z state` lines in absolute coordinates,
 * ordered by y, then z, then x (the format of `mcchunk chunk blocks`).
 *   out_reg  translate states to this registry first (NULL: the column's own)
 *   ids      numeric state ids instead of minecraft:name[k=v,...] (sorted)
 *   every    when > 0: every every-th position (air included), for sampling
 *   all      print air too
 * Returns an MC_EXIT_* code. */
int mc_tool_print_blocks(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all);

#endif
