/*
 * world.h: the pipeline behind `mcchunk world ...` (cmd_world*.c).
 *
 * Every whole-world command is the same loop: list the world's regions
 * (each dimension, or one; the region, entities and poi files of a region
 * coordinate form one task), keep those of this shard and area, hand them
 * to worker threads one at a time, and let each worker do the command's
 * work on its region -- reading, and writing through mc_region_writer
 * (a region is put in place whole, so every file is untouched or complete).
 * A worker holds one region's work at a time, so peak memory is about
 * threads x one region's working set, whatever the world's size.
 *
 *   scan.c     the task list: dimensions, regions, --shard K/N, --area
 *   pool.c     worker threads (libuv), progress on a TTY, Ctrl-C
 *   options.c  the options every world command shares
 *   level.c    level.dat: read, convert between versions, create
 *   summary.c  the few keys of a chunk the tools look at without decoding it
 *   window.c   three rows of decoded columns with their neighbours, across
 *              region borders (light needs the eight neighbours)
 *   stats.c    counting tables, JSON/CSV/text output, --merge
 *   json.c     a small bounded JSON reader (for --merge) and string output
 *
 * Names here are the tool's own (world_*); mc_ is the library's.
 */
#ifndef MC_TOOLS_WORLD_H
#define MC_TOOLS_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mcchunk/mcchunk.h"

/* ------------------------------------------------------------- options */

typedef struct world_opts {
    const char *prog;          /* "mcchunk world convert", for messages */
    const char *dir;           /* the world folder */
    const char *dimension;     /* --dimension (NULL: every dimension) */
    int threads;               /* --threads (0: every core) */
    uint32_t shard_k, shard_n; /* --shard K/N (n == 0: none) */
    bool quiet;                /* --quiet */
    bool json;                 /* --json (where the command prints data) */
    bool area;                 /* --area X0,Z0,X1,Z1 (chunk coordinates, inclusive) */
    int32_t area_x0, area_z0, area_x1, area_z1;
    int deflate_level;         /* --deflate-level (0: not given: the command's default) */
} world_opts;

/* Which shared options a command takes. */
enum { WORLD_OPT_JSON = 1, WORLD_OPT_AREA = 2, WORLD_OPT_DIMENSION = 4, WORLD_OPT_DEFLATE = 8 };

/* The deflate level of the zlib records create and relight write unless
 * --deflate-level says otherwise: the game's 6 (libdeflate's here). Level
 * 1 is ISA-L's igzip (region_compress.c), what world convert writes
 * (CONVERT_DEFLATE_LEVEL): a third of level 6's CPU or less; region files
 * ~5% larger on the corpus' real chunks, but ~40% larger on chunks as
 * regular as the built-in generator's (its light arrays, long runs of one
 * block), which level 6 packs much tighter. */
#define WORLD_DEFLATE_GAME 6
/* The level o asks for, else the command's default `dflt`. */
int world_deflate_level(const world_opts *o, int dflt);

/* If argv[*i] is a shared option the command takes (`which`: WORLD_OPT_*;
 * --threads, --shard and --quiet always), reads it (and its value) into o,
 * advances *i past it and returns 1; returns 0 when it is not one, or
 * MC_EXIT_USAGE's negation (-2) after printing why the value is bad. */
int world_parse_option(world_opts *o, unsigned which, int argc, char **argv, int *i);
/* "X0,Z0,X1,Z1" (chunk coordinates) into box[] ordered x0 <= x1, z0 <= z1;
 * false after printing why (`what` names the option). */
bool world_parse_box(const char *prog, const char *what, const char *s, int32_t box[4]);
/* --compression NAME (zlib, lz4 or none: the region-file-compression the
 * game offers) for records read by release `target`, with o's
 * --deflate-level: 0 with *out set, or MC_EXIT_USAGE after printing why (an
 * unknown name, one `target` cannot read: lz4 before 1.20.5, none before
 * 1.15; a deflate level for records that are not zlib). */
int world_parse_compression(const world_opts *o, const char *name, const mc_version_info *target,
                            mc_compression *out);
/* The lines of --help describing the shared options of `which`. */
void world_help_options(FILE *out, unsigned which);
/* The argument loop of a command that takes one world folder and the
 * shared options `which`: --help prints usage and returns MC_EXIT_OK,
 * errors print why and return MC_EXIT_USAGE (MC_EXIT_FAIL when DIR is not
 * a folder); -1 means go on, with o->dir set. */
int world_parse_dir_args(world_opts *o, unsigned which, int argc, char **argv, void (*usage)(FILE *));
/* The number of worker threads o asks for (every core when 0). */
int world_threads(const world_opts *o);

/* ---------------------------------------------------------------- scan */

/* One task: the files of one region coordinate of one dimension. */
typedef struct world_task {
    uint16_t dim;              /* index into world_scan.dims */
    bool has[3];               /* region, entities, poi file present (mc_region_kind order) */
    int32_t rx, rz;
} world_task;

typedef struct world_scan {
    mc_world_layout layout;
    char **dims;               /* dimension ids */
    size_t ndims;
    world_task *tasks;         /* sorted: dimension, rx, rz */
    size_t count;
    size_t skipped_shard;      /* tasks of other shards */
} world_scan;

/* Whether o->dir is a world: a folder with level.dat or with a region,
 * entities or poi file (r.<x>.<z>.mca) in some dimension. A real world may
 * be empty (level.dat alone); a folder with neither is not one, and a
 * command run on it would do nothing and say it succeeded. MC_EXIT_OK, or
 * MC_EXIT_FAIL after saying why on stderr (with the files skipped). */
int world_check_dir(const world_opts *o);
/* Lists the tasks of o's world (world_check_dir first): every dimension (or
 * o->dimension), every region coordinate with a region, entities or poi
 * file (`kinds`: bit k for mc_region_kind k), kept when in o's shard and
 * touching o's area. Prints why and returns MC_EXIT_FAIL when DIR is not a
 * world or cannot be listed. */
int world_scan_build(const world_opts *o, unsigned kinds, world_scan *out);
void world_scan_free(world_scan *s);
/* The shard of region (rx, rz) among n: a fixed 64-bit mix of the two
 * coordinates, modulo n (the same for every dimension and file kind, so a
 * region's three files go to one shard). */
uint32_t world_shard_of(int32_t rx, int32_t rz, uint32_t n);
/* Path of a task's file of `kind` in world `dir`: MC_OK, MC_ERR_NOT_FOUND
 * (absent) or another status with err set (a link, a folder outside). */
mc_status world_task_path(const world_scan *s, const char *dir, const world_task *t, mc_region_kind kind,
                          char *out, size_t out_size, mc_error *err);
/* True when chunk (cx, cz) is inside o's area (always without --area). */
bool world_in_area(const world_opts *o, int32_t cx, int32_t cz);

/* ---------------------------------------------------------------- pool */

/* A job: `ntasks` tasks, run(user, worker, task) on `threads` threads
 * (worker = 0..threads-1, so each may keep its own state). run returns 0
 * or an MC_EXIT_* code; a task that fails does not stop the others. */
typedef struct world_job {
    const char *prog;
    size_t ntasks;
    int threads;
    bool progress;             /* the progress line (stderr is a TTY, not --quiet) */
    int (*run)(void *user, int worker, size_t task);
    void *user;
} world_job;

typedef struct world_outcome {
    size_t done, failed;       /* tasks finished, of which failed */
    bool interrupted;          /* Ctrl-C (SIGINT) or SIGTERM stopped it */
    double seconds;
    uint64_t chunks;           /* what the tasks reported with world_count_chunks */
} world_outcome;

/* Installs the SIGINT/SIGTERM handlers that ask for a stop, once, for the
 * rest of the process (mc_cmd_world does it before any subcommand works).
 * The same signal a second time ends the process at once. */
void world_stop_install(void);
/* Runs the job. A stop asked for before or during it makes the workers
 * stop: each finishes or abandons the region in hand (world_stop_requested
 * says when) and takes no new one; the same signal again ends the process at
 * once (files are still untouched or complete: every region is put in
 * place whole). */
void world_job_run(const world_job *job, world_outcome *out);
/* Adds chunks done (for the progress line's chunks/s and the outcome). */
void world_count_chunks(uint64_t n);
/* True once a stop was asked for (check between chunks). */
bool world_stop_requested(void);
/* Whether to show progress: stderr is a terminal and not --quiet. */
bool world_progress_wanted(const world_opts *o);

/* ------------------------------------------------------------- summary */

/* Generation statuses in one order for every version (1.13's names and
 * the 1.20 renames map onto these; pre-1.13 chunks: TerrainPopulated 0 is
 * WORLD_STATUS_LIQUID_CARVERS, 1 is FULL). */
enum {
    WORLD_STATUS_EMPTY, WORLD_STATUS_STRUCTURE_STARTS, WORLD_STATUS_STRUCTURE_REFERENCES,
    WORLD_STATUS_BIOMES, WORLD_STATUS_NOISE, WORLD_STATUS_SURFACE, WORLD_STATUS_CARVERS,
    WORLD_STATUS_LIQUID_CARVERS, WORLD_STATUS_FEATURES, WORLD_STATUS_INITIALIZE_LIGHT,
    WORLD_STATUS_LIGHT, WORLD_STATUS_SPAWN, WORLD_STATUS_HEIGHTMAPS, WORLD_STATUS_FULL,
    WORLD_STATUS_COUNT,
    WORLD_STATUS_UNKNOWN = 255
};
/* The status rank of a name ("minecraft:full", "postprocessed", "carved",
 * ...); WORLD_STATUS_UNKNOWN for others. */
int world_status_rank(const char *name, size_t len);
const char *world_status_name(int rank);

/* The keys of a chunk the tools read without decoding it. */
typedef struct world_chunk_summary {
    int32_t data_version;      /* 0: none (1.8) */
    int32_t x, z;              /* its position (when has_position) */
    bool has_position;
    int status;                /* WORLD_STATUS_* */
    int64_t inhabited;         /* InhabitedTime (ticks), 0 when absent */
    int64_t last_update;
} world_chunk_summary;

/* Reads those keys from uncompressed chunk NBT (root or Level; a parse
 * that steps over everything else). `doc` is reset and reused. */
mc_status world_chunk_summarize(mc_nbt_doc *doc, const uint8_t *nbt, size_t len, world_chunk_summary *out,
                                mc_error *err);

/* --------------------------------------------------------------- level */

/* A level.dat held as NBT (NULL doc: none). */
typedef struct world_level {
    mc_nbt_doc *doc;
    int32_t data_version;      /* Data.DataVersion (0 when absent) */
    char version_name[64];     /* Data.Version.Name ("" when absent) */
    char name[128];            /* Data.LevelName */
    int64_t seed;
    bool has_seed;
    int32_t spawn[3];
    bool has_spawn;
} world_level;

/* Reads DIR/level.dat (gzip NBT, bounded). MC_ERR_NOT_FOUND when absent;
 * other errors with err set. */
mc_status world_level_read(const char *dir, world_level *out, mc_error *err);
void world_level_free(world_level *l);
/* Rewrites l for release `target` (its DataVersion, the Version compound,
 * the world-generation keys of its era: RandomSeed/generatorName before
 * 1.16, WorldGenSettings from it, the 1.18 overworld biome source, the spawn
 * keys). Appends a line per change it could not make exactly to `notes`
 * (may be NULL). */
mc_status world_level_convert(world_level *l, const mc_version_info *target, mc_buf *notes, mc_error *err);
/* A new level.dat for `target`: a world named `name`, `seed`, spawn at
 * `spawn`, the default generator, survival, normal difficulty. */
mc_status world_level_create(world_level *l, const mc_version_info *target, const char *name, int64_t seed,
                             const int32_t spawn[3], mc_error *err);
/* Writes l as DIR/level.dat (gzip), crash-safely (level.dat_new, fsync,
 * rename, folder fsync). */
mc_status world_level_write(const world_level *l, const char *dir, mc_error *err);

/* --------------------------------------------------------------- files */

/* True when `path` is absent or an empty folder. */
bool world_folder_empty(const char *path);
/* mkdir -p (0755). False with errno set on failure. */
bool world_mkdirs(const char *path);
/* Writes `len` bytes to `path` crash-safely: path.tmp, fsync, rename,
 * fsync of the folder. */
mc_status world_write_file_atomic(const char *path, const void *data, size_t len, mc_error *err);

#endif
