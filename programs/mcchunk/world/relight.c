/*
 * relight.c: one region file's full chunks relit with the light engine and
 * the file put back whole -- the work of `region relight FILE` (no
 * neighbouring files: chunks beyond the file count as not loaded) and of
 * `world relight` (the neighbouring region files of the world supply the
 * chunks across the edges, so light crosses region borders as in the
 * game).
 *
 * Full chunks (Status "full" / "minecraft:full", 1.14+: the game's light
 * engine of this kind) are decoded, lit from their blocks and their eight
 * neighbours' (mc_light_column), given isLightOn, and written back for
 * their own DataVersion in their own compression; every other chunk
 * (proto-chunks, older versions, chunks that do not decode) is copied
 * byte for byte. The file is rewritten through mc_region_writer: it is
 * the old file or the relit one after any crash, and costs one fsync.
 * The light-only sections below and above the world keep what they held.
 * The file is lit in one light batch (mc_light_batch_begin): a column the
 * window frees is forgotten by the engine first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world/relight.h"
#include "world/window.h"

/* The compound holding Status and isLightOn: the root, or Level before 1.18. */
static mc_nbt_tag *status_holder(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col);
    if (!x)
        return NULL;
    mc_nbt_tag *level = mc_nbt_get(x, "Level");
    return level ? level : x;
}

bool world_column_is_full(mc_column *col)
{
    mc_nbt_tag *h = status_holder(col), *st = h ? mc_nbt_get(h, "Status") : NULL;
    const char *s;
    size_t n;
    return st && mc_nbt_get_string(st, &s, &n) == MC_OK && world_status_rank(s, n) == WORLD_STATUS_FULL;
}

mc_status world_set_light_on(mc_column *col)
{
    mc_nbt_tag *h = status_holder(col), *on = h ? mc_nbt_get(h, "isLightOn") : NULL;
    if (on)
        return mc_nbt_set_byte(on, 1);
    return h ? mc_nbt_put_byte(mc_column_nbt(col), h, "isLightOn", 1) : MC_ERR_NOMEM;
}

bool world_complete_chunk(mc_nbt_doc *doc, int32_t dv)
{
    mc_nbt_tag *root = mc_nbt_doc_root(doc), *level = mc_nbt_get(root, "Level");
    mc_nbt_tag *h = level ? level : root;
    const char *key = dv >= 2842 ? "block_entities" : "TileEntities";
    return !h || mc_nbt_get(h, key) || mc_nbt_put_list(doc, h, key, MC_NBT_END) != NULL;
}

mc_status world_write_chunk_bytes(const mc_column *col, int32_t dv, mc_nbt_doc *doc, mc_buf *out, mc_error *err)
{
    mc_nbt_doc_reset(doc);
    mc_status st = mc_chunknbt_write(col, dv, doc, NULL, err);
    if (!st && !world_complete_chunk(doc, dv))
        st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    return st ? st : mc_nbt_write(doc, MC_NBT_JAVA, out, err);
}

bool world_relight_worker_init(world_relight_worker *w)
{
    memset(w, 0, sizeof *w);
    w->engine = mc_light_engine_new(NULL);
    w->cache = mc_chunknbt_cache_new(NULL);
    w->doc = mc_nbt_doc_new(NULL);
    mc_buf_init(&w->nbt, NULL);
    mc_buf_init(&w->raw, NULL);
    w->deflate_level = WORLD_DEFLATE_GAME;
    return w->engine && w->cache && w->doc;
}

void world_relight_worker_free(world_relight_worker *w)
{
    mc_light_engine_free(w->engine);
    mc_chunknbt_cache_free(w->cache);
    mc_nbt_doc_free(w->doc);
    mc_buf_free(&w->nbt);
    mc_buf_free(&w->raw);
    memset(w, 0, sizeof *w);
}

/* What the walk over one file keeps. */
typedef struct relight_run {
    world_relight_worker *w;
    mc_region *const *around;  /* 9 handles, [4] = the file */
    int32_t rx, rz;
    uint8_t comp[1024];        /* own chunks: compression id as read */
    int32_t dv[1024];
    bool decoded[1024];
} relight_run;

static int32_t floor_div32(int32_t v)
{
    return v >= 0 ? v / 32 : -((-(v + 1)) / 32) - 1;
}

static mc_column *load_column(void *user, int32_t cx, int32_t cz, bool own)
{
    relight_run *run = user;
    int32_t dx = floor_div32(cx) - run->rx, dz = floor_div32(cz) - run->rz;
    mc_region *r = run->around[(dz + 1) * 3 + (dx + 1)];
    int lx = (int)((uint32_t)cx & 31), lz = (int)((uint32_t)cz & 31);
    if (!r || !mc_region_has_chunk(r, lx, lz))
        return NULL;
    world_relight_worker *w = run->w;
    mc_region_record rec;
    mc_error err;
    w->nbt.len = 0;
    if (mc_region_read_chunk(r, lx, lz, &w->nbt, &rec, &err) != MC_OK)
        return NULL;
    mc_chunknbt_options opt = {0};
    opt.cache = w->cache;
    opt.doc = w->doc;
    /* a neighbour lends its blocks only */
    opt.flags = own ? 0 : MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT;
    mc_column *col = NULL;
    if (mc_chunknbt_read_bytes(w->nbt.data, w->nbt.len, &opt, &col, &err) != MC_OK)
        return NULL;
    if (own) {
        int i = lx + 32 * lz;
        run->comp[i] = rec.compression;
        run->dv[i] = mc_chunknbt_column_data_version(col);
        run->decoded[i] = true;
    }
    return col;
}

static void free_column(void *user, mc_column *col)
{
    relight_run *run = user;
    mc_light_forget(run->w->engine, col); /* the batch must not outlive it */
    mc_column_free(col);
}

/* Copies own chunk i as it is stored. */
static mc_status copy_raw(relight_run *run, mc_region_writer *out, int i, mc_error *err)
{
    mc_region *r = run->around[4];
    mc_region_record rec;
    run->w->raw.len = 0;
    mc_status st = mc_region_read_raw(r, i & 31, i >> 5, &run->w->raw, &rec, err);
    if (st)
        return st;
    return mc_region_writer_put_raw(out, i & 31, i >> 5, run->w->raw.data, run->w->raw.len, rec.compression,
                                    mc_region_get_entry(r, i & 31, i >> 5).timestamp, err);
}

/* Lights own chunk (lx, row) and puts it into `out`; false when it is not
 * a chunk to light (it is then copied). */
static mc_status relight_chunk(relight_run *run, world_window *win, mc_region_writer *out, int lx, int lz,
                               bool *lit, mc_error *err)
{
    int i = lx + 32 * lz;
    *lit = false;
    mc_column *col = world_window_get(win, lx);
    if (!col || !run->decoded[i] || run->dv[i] < 1952 || !world_column_is_full(col))
        return copy_raw(run, out, i, err);
    const mc_column *nb[8];
    world_window_neighbours(win, lx, nb);
    mc_status st = mc_light_column(run->w->engine, col, nb, MC_LIGHT_BOTH, err);
    if (!st && (st = world_set_light_on(col)) != MC_OK)
        mc_error_set(err, st, SIZE_MAX, "out of memory");
    if (st)
        return st;
    /* written back with the compression it had (custom cannot be read,
     * so is never here) */
    const int c = run->comp[i];
    const mc_compression comp = c == MC_COMPRESSION_GZIP || c == MC_COMPRESSION_NONE || c == MC_COMPRESSION_LZ4
                                    ? (mc_compression)c
                                    : MC_COMPRESSION_ZLIB;
    run->w->nbt.len = 0;
    st = mc_chunknbt_write_bytes(col, run->dv[i], &run->w->nbt, NULL, err);
    if (!st)
        st = mc_region_writer_put_chunk(out, lx, lz, run->w->nbt.data, run->w->nbt.len, comp, 0, err);
    *lit = st == MC_OK;
    return st;
}

mc_status world_relight_region(const char *path, mc_region *const around[9], int32_t rx, int32_t rz,
                               world_relight_worker *w, world_relight_counts *c, mc_error *err)
{
    relight_run run;
    memset(&run, 0, sizeof run);
    run.w = w;
    run.around = around;
    run.rx = rx;
    run.rz = rz;
    mc_region_writer *out = NULL;
    mc_region_options ro = {0};
    ro.level = w->deflate_level;
    mc_status st = mc_region_writer_new(path, &ro, &out, err);
    if (st)
        return st;
    /* one light batch for the file: each decoded column's light kinds are
     * worked out once, not for each of the nine calls that read it (three
     * rows of the window: 102 columns) */
    if ((st = mc_light_batch_begin(w->engine, 3 * WORLD_WINDOW_WIDTH)) != MC_OK) {
        mc_region_writer_abandon(out);
        return mc_error_set(err, st, SIZE_MAX, "out of memory");
    }
    world_window win;
    world_window_init(&win, rx, rz, load_column, &run);
    win.free_col = free_column;
    world_relight_counts here = {0};
    for (int lz = 0; lz < 32 && !st; lz++) {
        world_window_row(&win, lz);
        uint64_t in_row = 0;
        for (int lx = 0; lx < 32 && !st; lx++) {
            if (!mc_region_has_chunk(around[4], lx, lz))
                continue;
            if (world_stop_requested()) {
                st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "interrupted");
                break;
            }
            bool lit;
            st = relight_chunk(&run, &win, out, lx, lz, &lit, err);
            here.chunks++;
            here.relit += lit;
            in_row++;
        }
        world_count_chunks(in_row);
    }
    world_window_free(&win);
    mc_light_batch_end(w->engine);
    if (st) {
        mc_region_writer_abandon(out);
        return st;
    }
    st = mc_region_writer_commit(out, NULL, err);
    if (!st) {
        c->chunks += here.chunks;
        c->relit += here.relit;
    }
    return st;
}
