/*
 * map.h: top-down maps of a world, shared by `mcchunk render` (one PNG or
 * a static tile pyramid) and the server's live web map (tiles on demand).
 *
 * The unit of work is a region: 32x32 chunks, 512x512 blocks, which is also
 * a zoom-0 tile, so a tile and `render --area` of the same blocks are the
 * same pixels by construction. A pixel is one block column seen from above:
 *
 *   colour  walking down from the top of the column, every block with a
 *           visible colour (mc_registry_state_color, alpha > 0) is
 *           composited front to back with its biome tint
 *           (mc_block_color_tinted, the biome cell of that block) until the
 *           pixel is opaque: translucent blocks (glass, leaves, flowers)
 *           show what is below. Water is drawn with half its alpha per block
 *           and darkened by 4% per block below the surface (at most 8
 *           steps), so shallow water shows its floor and deep water darkens.
 *   height  the y of the highest block that blocks motion or holds a fluid
 *           (the game's MOTION_BLOCKING heightmap; flowers and torches do
 *           not count), else of the highest visible block.
 *   shade   step = (h - h_north) + (h - h_west), clamped to -4..4, from the
 *           heights of the blocks at z-1 and x-1 (0 where either is absent);
 *           each of r, g, b becomes min(255, (c * (220 + 9*step) + 110) / 220)
 *           (flat ground keeps its colour; slopes facing north-west are
 *           lighter). Not in height mode.
 *   absent  a missing chunk, or a column without visible blocks: (0,0,0,0).
 *
 * Modes: normal (the above); height (a colour ramp of the height);
 * biome (a colour per biome name, shaded); light (normal, darkened by the
 * block light of the block above the surface: the map at night).
 *
 * Chunks come from a map_world: a world folder's dimension or a list of
 * region files; or from a function that makes columns (the server's
 * built-in world, generated: map_reader_new_columns). Each thread renders
 * with its own map_reader (open region files, buffers, registry caches):
 * nothing is shared but the world's list.
 */
#ifndef MC_MAP_H
#define MC_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcchunk/mcchunk.h"

#define MAP_REGION_BLOCKS 512
#define MAP_REGION_BYTES (MAP_REGION_BLOCKS * MAP_REGION_BLOCKS * 4)
#define MAP_NO_HEIGHT INT16_MIN
/* Regions lie within +-30,000,000 blocks: |rx|, |rz| <= 58594. */
#define MAP_REGION_LIMIT 58594

typedef enum map_mode { MAP_MODE_NORMAL = 0, MAP_MODE_HEIGHT, MAP_MODE_BIOME, MAP_MODE_LIGHT } map_mode;

/* "normal", "height", "biome", "light" -> mode; false when unknown. */
bool map_mode_parse(const char *name, map_mode *out);
const char *map_mode_name(map_mode mode);

/* snprintf into an error buffer (a message cut at the buffer's end is fine). */
void map_say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------- world */

typedef struct map_region_file {
    int32_t rx, rz;
    char *path;
    int64_t mtime_ns; /* modification time when listed */
    uint64_t size;
} map_region_file;

typedef struct map_world map_world;

/* A world folder's dimension ("overworld", "the_nether", "the_end" or any
 * id mc_world_region_dir takes): every r.X.Z.mca of its region folder. On
 * failure returns NULL and writes the reason to err. */
map_world *map_world_open_folder(const char *folder, const char *dimension, char *err, size_t err_size);
/* Region files given by path; each one's position comes from its name
 * (r.X.Z.mca, also with a prefix: "backup-r.0.0.mca"), else from its first
 * chunk's xPos/zPos. Two files at one position are an error. */
map_world *map_world_open_files(char *const *paths, size_t count, char *err, size_t err_size);
void map_world_free(map_world *w);
/* Lists the region files again (a world that is being played grows). */
bool map_world_rescan(map_world *w, char *err, size_t err_size);
size_t map_world_region_count(const map_world *w);
const map_region_file *map_world_region_at(const map_world *w, size_t i);
/* The region file at (rx, rz), or NULL. */
const map_region_file *map_world_region(const map_world *w, int32_t rx, int32_t rz);
/* Bounding box of the present chunks (absolute chunk coordinates,
 * inclusive); false when there is none. Reads every region's header. */
bool map_world_chunk_bounds(const map_world *w, int32_t *cx0, int32_t *cz0, int32_t *cx1, int32_t *cz1);

/* --------------------------------------------------------------- reader */

typedef struct map_reader map_reader;

typedef struct map_stats {
    uint64_t chunks;       /* chunks read and drawn */
    uint64_t edge_chunks;  /* neighbours' chunks read for the hillshade */
    uint64_t bad_chunks;   /* chunks that failed to read (left transparent) */
} map_stats;

map_reader *map_reader_new(const map_world *w, map_mode mode);
/* Columns made by a function instead of read from files: make(user, cx,
 * cz) returns the column of chunk (cx, cz), which the reader frees
 * (mc_column_free), or NULL where there is none. Drawn exactly as a column
 * read from a region file is, so a world written from the same columns
 * renders the same pixels. */
typedef mc_column *(*map_make_column)(void *user, int32_t cx, int32_t cz);
map_reader *map_reader_new_columns(map_make_column make, void *user, map_mode mode);
void map_reader_free(map_reader *r);

/* Renders region (rx, rz) into rgba (MAP_REGION_BYTES, row-major, x fastest,
 * straight alpha): pixel (i, j) = block (512*rx + i, 512*rz + j). A region
 * without a file is all transparent. Chunks that fail to read are left
 * transparent and counted (the first failure's message in the reader:
 * map_reader_last_error). Returns false only when memory runs out. */
bool map_render_region(map_reader *r, int32_t rx, int32_t rz, uint8_t *rgba, map_stats *stats);
const char *map_reader_last_error(const map_reader *r);
/* The reference way to draw (true): chunks read whole into the model and
 * every block through the one compositing step. By default the 1.8-1.12
 * sections' blocks are looked at where they are stored, only those a
 * column reaches from the top (MC_CHUNKNBT_LEGACY_RAW), and a run of
 * water is added without the questions its first block answered. The
 * same pixels either way (test_map_render checks every corpus region);
 * for tests and measurements. */
void map_reader_full_model(map_reader *r, bool full);

/* ------------------------------------------------------------------ png */

/* Encodes width x height RGBA rows (stride bytes apart) as a PNG into a
 * malloc'ed buffer. False (with a reason) on failure. */
bool map_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, uint8_t **out,
                    size_t *out_len, char *err, size_t err_size);

/* Decodes a 512x512 PNG tile into rgba (MAP_REGION_BYTES); false when it
 * is not one. */
bool map_png_decode_tile(const uint8_t *png, size_t len, uint8_t *rgba);

/* A PNG written a band of rows at a time (bounded memory for big images). */
typedef struct map_png_writer map_png_writer;
map_png_writer *map_png_writer_open(const char *path, uint32_t width, uint32_t height, char *err,
                                    size_t err_size);
bool map_png_writer_rows(map_png_writer *pw, const uint8_t *rgba, uint32_t rows, size_t stride, char *err,
                         size_t err_size);
/* Finishes the file; false when it failed (the file is then removed). */
bool map_png_writer_close(map_png_writer *pw, char *err, size_t err_size);
void map_png_writer_abort(map_png_writer *pw);

/* --------------------------------------------------------------- zooms */

/* Shrinks a 2x2 block of 512x512 tiles (NULL: transparent; order: top
 * left, top right, bottom left, bottom right) into one 512x512 tile:
 * each pixel the average of 4, weighted by alpha. */
void map_downsample(const uint8_t *const quads[4], uint8_t *out);

#endif
