/*
 * cmd_world_convert.c: `mcchunk world convert SRC DST --to VERSION`: a
 * whole Java world written again for another release, up or down, region
 * by region on every core. SRC is only read.
 *
 * Per chunk (terrain):
 *   - read with its own DataVersion's reader (mc_chunknbt_read_bytes);
 *   - a proto-chunk (not fully generated) whose format era differs from the
 *     target's (1.8-1.12 | 1.13-1.17 | 1.18+: the eras whose extra keys the
 *     chunk writer can carry) is dropped and counted: its half-made state
 *     has no meaning in the other era, and the game generates a missing
 *     chunk afresh. Within an era proto-chunks are carried;
 *   - fitted to the target's height (the overworld is y -64..319 from 1.18,
 *     0..255 before; the Nether and the End 0..255; datapack dimensions keep
 *     theirs unless the target predates variable heights, 1.17): blocks
 *     outside are dropped and counted (non-air ones), new sections are air;
 *   - translated to the target's registry (mc_column_translate: palette
 *     remaps through mc_registry_map), every block counted by how it was
 *     translated (the MC_TRANSLATE_* bits of mc_registry_translate_state:
 *     exact, property dropped, value defaulted, renamed, ancestor, air,
 *     mapped -- any bit the registry adds later is counted by its number);
 *     biomes the target lacks (mc_biome_translate's fallback) counted too;
 *   - light: versions before 1.14 keep no light engine state and trust the
 *     stored light, so for them the light of every full chunk is computed
 *     with the light engine (neighbours converted the same way, across
 *     region files: world/window.c); 1.14+ relight a chunk whose isLightOn
 *     is 0, so for them the stale light is dropped and isLightOn set to 0
 *     (the game lights the chunk when it loads it), unless --light asks to
 *     compute it here;
 *   - written with mc_chunknbt_write for the target's DataVersion (block
 *     entities through it), through an mc_region_writer in the
 *     compression --compression names (zlib by default, the game's; lz4 and
 *     none as server.properties' region-file-compression offers them, for
 *     the releases that read them), entities/ and poi/ records likewise.
 * Entities: before 1.17 (DataVersion 2681) they are in the chunk
 * (Level.Entities), from it in entities/ region files ({DataVersion,
 * Position, Entities}); they are carried across in either direction,
 * entities outside the target's height dropped and counted. Their contents
 * are not translated: carried up, the entities/ record keeps the source's
 * DataVersion so the game's own DataFixers upgrade them; carried down (or
 * out of a chunk) they take the target's, and are counted as carried
 * untranslated. Points of interest (poi/, 1.14+) are carried likewise
 * (sections outside the target's height left out); a target without them,
 * or a source before 1.14, has none, and the game rebuilds them from the
 * blocks.
 * level.dat (world/level.c) and the other files of the world folder
 * (playerdata, data, advancements, stats, datapacks, ...: copied as they
 * are; the game upgrades them from their own DataVersion) are written
 * first, so that DST is a whole world at every moment of the run.
 *
 * Crash safety and --resume: every DST file is written whole (region files
 * through mc_region_writer, the others through a temporary and a rename),
 * so an interruption leaves each file absent or complete. After the
 * region, entities and poi files of a region coordinate are in place
 * (durably: the writer syncs each file and its folder before it returns),
 * a line naming it is appended to DST/mcchunk-convert.log (one per
 * --shard: mcchunk-convert.K-of-N.log); --resume skips the regions named
 * there and redoes the others (their files are replaced whole). The line
 * is not synced by itself: a line the disk has can only name files it had
 * before, and a line a power cut loses costs its region being converted
 * again (the same files), not a region missing. (A sync per region was a
 * third of the run's syncs, and syncs of one file system wait for each
 * other: two workers' syncs are not done in parallel.) The log is synced
 * at the end, with its last line, "complete", when every region is done.
 * level.dat and the other files are written by the unsharded run or shard
 * 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "commands.h"
#include "tool_common.h"
#include "world/json.h"
#include "world/relight.h"
#include "world/stats.h"
#include "world/subcommands.h"
#include "world/window.h"
#include "world/world.h"

#define DV_LIGHT_ENGINE 1952   /* 1.14: isLightOn and a light engine of this kind */
#define DV_POI 1952            /* 1.14: poi/ */
#define DV_ENTITIES_FILES 2681 /* 20w45a (1.17): entities/ */
#define DV_VARIABLE_HEIGHT 2709 /* 21w15a (1.17): dimension heights */
#define DV_TALL_OVERWORLD 2825 /* 1.18: the overworld is y -64..319 */
#define TRANSLATE_BITS 16      /* kinds counted (MC_TRANSLATE_* bits) */
/* The deflate level of the records written: 1, not the game's 6 (world.h,
 * WORLD_DEFLATE_GAME, has the trade-off): a converted chunk deflates in a
 * quarter of level 6's CPU (bench_world: the corpus converted to 1.21.4),
 * for records 14% larger in bytes but region files only 5% larger, as most
 * chunks fit in the same whole 4 KiB sectors either way (bench_world prints
 * both levels' sizes). */
#define CONVERT_DEFLATE_LEVEL 1

/* The chunk writer's format eras (extras are carried only within one). */
static int era_of(int32_t dv)
{
    return dv < MC_CHUNKNBT_DV_FLATTENING ? 0 : dv < 2832 ? 1 : 2;
}

/* ------------------------------------------------------------- report */

typedef struct convert_report {
    uint64_t chunks_read, chunks_written, protos_dropped, unreadable;
    uint64_t blocks_outside, sections_outside, block_entities_dropped;
    uint64_t blocks_by_kind[TRANSLATE_BITS], blocks_exact, blocks_translated;
    uint64_t biome_cells_fallback;
    uint64_t extra_keys_dropped;
    uint64_t light_computed, light_left_to_game;
    uint64_t entities_carried, entities_untranslated, entities_outside, entities_no_chunk;
    uint64_t poi_carried, poi_sections_outside, poi_dropped;
    uint64_t regions_written, bytes_written;
    uint64_t chunks_recoded;          /* of chunks_written: by the byte path (recode_chunk) */
} convert_report;

static void report_add(convert_report *a, const convert_report *b)
{
    const uint64_t *p = (const uint64_t *)b;
    uint64_t *q = (uint64_t *)a;
    for (size_t i = 0; i < sizeof *a / sizeof(uint64_t); i++)
        q[i] += p[i];
}

/* ------------------------------------------------------------- state */

/* How each state of one source registry translates: the MC_TRANSLATE_*
 * bits its translation map was built with (mc_registry_map_how, which
 * equals mc_registry_translate_state state by state: a look-up, where
 * asking the slow path for each state met was 4.6% of converting the
 * older corpus files). */
typedef struct how_table {
    const mc_registry *from;
    const uint16_t *how;       /* mc_registry_state_count(from) entries, the registry's */
    uint32_t states;
    uint8_t *biome_fallback;   /* per biome id: 1 fallback, 2 exact, 0 unknown */
} how_table;

typedef struct convert_worker {
    mc_chunknbt_cache *cache;
    mc_chunknbt_recoder *recoder;     /* 1.18+ -> 1.18+ bytes to bytes (NULL: model path only) */
    mc_nbt_doc *doc, *out_doc, *edoc;
    mc_chunknbt_writer *chunk_writer; /* the sections list straight to bytes */
    mc_buf nbt, raw, bytes;
    world_relight_worker light;       /* the light engine (when lighting) */
    how_table how[8];
    size_t nhow;
    world_stat_counter *inexact;      /* (reg, state) -> blocks, group = how bits */
    convert_report rep;
    uint32_t hist[MC_SECTION_BLOCKS];
    uint32_t vals[MC_SECTION_BLOCKS];
} convert_worker;

typedef struct convert_job {
    world_opts *o;
    const char *dst;
    world_scan *scan;
    mc_version_info target;
    mc_world_layout dst_layout;
    bool dry_run, light, compute_light;
    mc_compression compression;       /* of every record written */
    convert_worker *workers;
    size_t *order;                    /* the tasks in the order they are handed out */
    bool *skip;                       /* per task: done in an earlier run */
    int log_fd;                       /* the manifest (-1: dry run) */
    uv_mutex_t log_lock;
} convert_job;

/* One region's walk. */
typedef struct convert_run {
    convert_job *j;
    convert_worker *w;
    const world_task *t;
    mc_region *src[9];                /* SRC terrain regions around, [4] = own */
    mc_region *src_entities, *src_poi;
    mc_nbt_doc *entities[1024];       /* own chunks' entities taken out of the chunk */
    mc_column *source[1024];          /* own chunks in their own registry (when lighting:
                                       * the window holds them translated) */
    bool dropped[1024];               /* own chunks dropped (proto-chunks) */
    bool full[1024];
    bool changed[1024];               /* own chunks whose blocks or height the conversion changed */
    int32_t src_dv[1024];
    int32_t min_section, sections;    /* the target dimension's range (sections = 0: the column's) */
    int raw_chunk;                    /* own chunk whose NBT bytes w->nbt holds (the byte path
                                       * declined it), -1: none */
    size_t nbt_len;                   /* their length */
} convert_run;

/* ------------------------------------------------------ target heights */

/* The target's section range for a dimension (count 0: keep the column's). */
static void target_range(const convert_job *j, const char *dim, int32_t *min_section, int32_t *count)
{
    bool overworld = !strcmp(dim, "minecraft:overworld");
    bool vanilla = overworld || !strcmp(dim, "minecraft:the_nether") || !strcmp(dim, "minecraft:the_end");
    int32_t dv = j->target.data_version;
    *min_section = 0;
    *count = 16;
    if (overworld && dv >= DV_TALL_OVERWORLD)
        *min_section = -4, *count = 24;
    else if (!vanilla && dv >= DV_VARIABLE_HEIGHT)
        *count = 0;
}

/* ------------------------------------------------------- translation */

static how_table *how_for(convert_worker *w, const mc_registry *from, const mc_registry *to)
{
    for (size_t i = 0; i < w->nhow; i++)
        if (w->how[i].from == from)
            return &w->how[i];
    if (w->nhow == sizeof w->how / sizeof w->how[0]) {
        free(w->how[0].biome_fallback);
        memmove(w->how, w->how + 1, sizeof w->how - sizeof w->how[0]);
        w->nhow--;
    }
    how_table *h = &w->how[w->nhow];
    h->from = from;
    h->how = mc_registry_map_how(from, to);
    h->states = mc_registry_state_count(from);
    h->biome_fallback = calloc(mc_registry_biome_count(from) + 1, 1);
    if (!h->how || !h->biome_fallback) {
        free(h->biome_fallback);
        return NULL;
    }
    w->nhow++;
    return h;
}

/* (bits 0-6 counted: the kinds the report has always named) */
static unsigned how_of(const how_table *h, const mc_registry *to, uint32_t state)
{
    (void)to;
    return state < h->states ? h->how[state] & 0x7Fu : MC_TRANSLATE_AIR;
}

static void count_state(convert_worker *w, how_table *h, const mc_registry *to, uint32_t state, uint64_t n)
{
    unsigned how = how_of(h, to, state);
    for (unsigned b = 0; b < TRANSLATE_BITS; b++)
        if (how & (1u << b))
            w->rep.blocks_by_kind[b] += n;
    /* through a data table (1.12 <-> 1.13) is a way, not a loss */
    if (!(how & ~(unsigned)MC_TRANSLATE_MAPPED)) {
        w->rep.blocks_exact += n;
        return;
    }
    w->rep.blocks_translated += n;
    world_stat_count(w->inexact, h->from, how, STAT_BLOCK, state, n);
}

/* True when every entry of a palette translates the same way and that way
 * is exact (then a section's blocks count as one). */
static bool exact_palette(how_table *h, const mc_registry *to, const uint32_t *pal, size_t plen)
{
    unsigned first = how_of(h, to, pal[0]);
    if (first & ~(unsigned)MC_TRANSLATE_MAPPED)
        return false;
    for (size_t k = 1; k < plen; k++)
        if (how_of(h, to, pal[k]) != first)
            return false;
    return true;
}

/* Whether biome b of `from` has no equal in `to` (ids past the registry's
 * end count as such). */
static bool biome_falls_back(how_table *h, const mc_registry *from, const mc_registry *to, uint32_t b)
{
    if (b >= mc_registry_biome_count(from))
        return true;
    if (!h->biome_fallback[b]) {
        bool fb = false;
        mc_biome_translate(from, to, b, &fb);
        h->biome_fallback[b] = fb ? 1 : 2;
    }
    return h->biome_fallback[b] == 1;
}

/* The cells of a section's biome container whose biome has no equal in
 * `to`: looked at cell by cell only when its palette has such a biome. */
static unsigned biome_cells_fallback(how_table *h, const mc_registry *from, const mc_registry *to,
                                     const mc_container *biomes)
{
    size_t plen = 0;
    const uint32_t *pal = mc_container_palette(biomes, &plen);
    if (mc_container_get_kind(biomes) != MC_CONTAINER_DIRECT) {
        bool any = false;
        for (size_t k = 0; k < plen && !any; k++)
            any = biome_falls_back(h, from, to, pal[k]);
        if (!any)
            return 0;
    }
    unsigned n = 0;
    for (uint32_t cell = 0; cell < 64; cell++)
        n += biome_falls_back(h, from, to, mc_container_get(biomes, cell));
    return n;
}

/* Counts a section's blocks given as palette[0..n) and its packed indices
 * (big-endian longs, `bits` each; NULL: n is 1), as account_translation
 * counts a container of that palette. The indices are unpacked only when
 * the palette's entries translate in different ways. */
static void count_indexed_blocks(convert_worker *w, how_table *h, const mc_registry *to, const uint32_t *pal,
                                 size_t n, const uint8_t *longs, unsigned bits)
{
    if (n == 1 || !longs || exact_palette(h, to, pal, n)) {
        count_state(w, h, to, pal[0], MC_SECTION_BLOCKS);
        return;
    }
    mc_bits_unpack_be_u32(longs, MC_SECTION_BLOCKS, bits, MC_BITS_PADDED, w->vals);
    memset(w->hist, 0, n * sizeof *w->hist);
    for (size_t i = 0; i < MC_SECTION_BLOCKS; i++)
        w->hist[w->vals[i]]++;
    for (size_t k = 0; k < n; k++)
        if (w->hist[k])
            count_state(w, h, to, pal[k], w->hist[k]);
}

/* Counts how the blocks and biomes of col will translate to `to`. */
static void account_translation(convert_worker *w, const mc_column *col, const mc_registry *to)
{
    const mc_registry *from = mc_column_registry(col);
    how_table *h = how_for(w, from, to);
    if (!h)
        return;
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)i);
        size_t plen;
        const uint32_t *pal = mc_container_palette(&s->blocks, &plen);
        switch (mc_container_get_kind(&s->blocks)) {
        case MC_CONTAINER_SINGLE:
            count_state(w, h, to, pal[0], MC_SECTION_BLOCKS);
            break;
        case MC_CONTAINER_INDIRECT:
            if (exact_palette(h, to, pal, plen)) {
                /* every entry translates the same exact way: no need to
                 * know which has how many blocks */
                count_state(w, h, to, pal[0], MC_SECTION_BLOCKS);
                break;
            }
            memset(w->hist, 0, plen * sizeof *w->hist);
            mc_container_histogram(&s->blocks, w->hist);
            for (size_t k = 0; k < plen; k++)
                if (w->hist[k])
                    count_state(w, h, to, pal[k], w->hist[k]);
            break;
        default:
            mc_container_get_all(&s->blocks, w->vals);
            for (size_t k = 0; k < MC_SECTION_BLOCKS; k++)
                count_state(w, h, to, w->vals[k], 1);
        }
        w->rep.biome_cells_fallback += biome_cells_fallback(h, from, to, &s->biomes);
    }
}

/* ------------------------------------------------------------ entities */

/* Moves Level.Entities (before 1.17) out of the column's extra NBT into a
 * document of its own (root: the list), or NULL when there is none. */
static mc_nbt_doc *take_chunk_entities(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col);
    mc_nbt_tag *level = mc_nbt_get(x, "Level");
    mc_nbt_tag *holder = level ? level : x;
    mc_nbt_tag *list = mc_nbt_get(holder, "Entities");
    if (!list || mc_nbt_tag_type(list) != MC_NBT_LIST)
        return NULL;
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_nbt_tag *c = d ? mc_nbt_copy(d, list) : NULL;
    if (!c || mc_nbt_doc_set_root(d, c) != MC_OK) {
        mc_nbt_doc_free(d);
        return NULL;
    }
    mc_nbt_remove(holder, "Entities", 8);
    return d;
}

/* True when an entity's Pos[1] lies in y lo..hi-1 (no Pos: kept). */
static bool entity_in_height(const mc_nbt_tag *e, int32_t lo, int32_t hi)
{
    double y;
    mc_nbt_tag *pos = mc_nbt_get(e, "Pos");
    if (!pos || mc_nbt_get_double(mc_nbt_list_at(pos, 1), &y) != MC_OK)
        return true;
    return floor(y) >= lo && floor(y) < hi;
}

/* Copies the entities of `list` that fit y lo..hi-1 into list `out` of doc d. */
static bool copy_entities(convert_worker *w, mc_nbt_doc *d, mc_nbt_tag *out, const mc_nbt_tag *list, int32_t lo,
                          int32_t hi, bool untranslated)
{
    for (mc_nbt_tag *e = mc_nbt_first(list); e; e = mc_nbt_next(e)) {
        if (!entity_in_height(e, lo, hi)) {
            w->rep.entities_outside++;
            continue;
        }
        mc_nbt_tag *c = mc_nbt_copy(d, e);
        if (!c || mc_nbt_list_attach(d, out, c) != MC_OK)
            return false;
        w->rep.entities_carried++;
        w->rep.entities_untranslated += untranslated;
    }
    return true;
}

/* The entities of own chunk i as a list tag in w->edoc (NULL: none):
 * taken out of the chunk, or read from SRC's entities file. *dv receives
 * their DataVersion. */
static const mc_nbt_tag *source_entities(convert_run *run, int i, int32_t *dv)
{
    convert_worker *w = run->w;
    if (run->entities[i]) {
        *dv = run->src_dv[i];
        return mc_nbt_doc_root(run->entities[i]);
    }
    mc_region *r = run->src_entities;
    if (!r || !mc_region_has_chunk(r, i & 31, i >> 5))
        return NULL;
    mc_error err;
    w->raw.len = 0;
    mc_nbt_doc_reset(w->edoc);
    if (mc_region_read_chunk(r, i & 31, i >> 5, &w->raw, NULL, &err) != MC_OK ||
        mc_nbt_parse(w->edoc, w->raw.data, w->raw.len, MC_NBT_JAVA, NULL, &err) != MC_OK)
        return NULL;
    mc_nbt_tag *root = mc_nbt_doc_root(w->edoc);
    int32_t v = 0;
    mc_nbt_get_int(mc_nbt_get(root, "DataVersion"), &v);
    *dv = v;
    return mc_nbt_get(root, "Entities");
}

/* ---------------------------------------------------------- per chunk */

static void free_column(void *user, mc_column *col)
{
    (void)user;
    mc_column_free(col);
}

/* Whether a chunk's light is left to the game: a 1.14+ target relights a
 * chunk whose isLightOn is 0, which is what a full chunk whose blocks or
 * height changed is written with unless the light is computed here. */
static bool leaves_light_to_game(const convert_job *j, bool full, bool changed)
{
    return full && changed && !j->compute_light && j->target.data_version >= DV_LIGHT_ENGINE;
}

static void drop_light(mc_column *col)
{
    for (uint32_t s = 0; s < mc_column_section_count(col); s++) {
        mc_section_set_sky_light(mc_column_section_at(col, s), NULL);
        mc_section_set_block_light(mc_column_section_at(col, s), NULL);
    }
}

/* Fits col to the run's target range, counting what is dropped. */
static mc_column *fit_height(convert_run *run, mc_column *col, bool own)
{
    if (!run->sections || (mc_column_min_section(col) == run->min_section &&
                           mc_column_section_count(col) == (uint32_t)run->sections))
        return col;
    const int32_t lo = run->min_section, hi = run->min_section + run->sections;
    if (own)
        for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
            int32_t sy = mc_column_min_section(col) + (int32_t)i;
            if (sy >= lo && sy < hi)
                continue;
            unsigned blocks = 0;
            mc_section_counts(mc_column_section_const(col, sy), mc_column_registry(col), &blocks, NULL);
            run->w->rep.blocks_outside += blocks;
            run->w->rep.sections_outside += blocks > 0;
        }
    size_t be = mc_column_block_entity_count(col);
    mc_error err;
    mc_column *r = mc_column_reshape(col, run->min_section, (uint32_t)run->sections, NULL, &err);
    /* reshape keeps blocks, biomes, light and block entities: the rest
     * (Status, InhabitedTime, the source's DataVersion, ...) is copied */
    if (r && own && mc_tool_copy_extra(r, col) != MC_OK) {
        mc_column_free(r);
        r = NULL;
    }
    if (r && own)
        run->w->rep.block_entities_dropped += be - mc_column_block_entity_count(r);
    mc_column_free(col);
    return r;
}

/* Reads, fits and translates chunk (cx, cz) of SRC, counting how its
 * blocks translate. `own`: a chunk of the run's region (bookkeeping and
 * counts); else only a light neighbour (the light must come from the
 * target's blocks: neighbours are translated too). */
static mc_column *load_converted(void *user, int32_t cx, int32_t cz, bool own)
{
    convert_run *run = user;
    convert_worker *w = run->w;
    int32_t rx = cx >= 0 ? cx / 32 : -((-(cx + 1)) / 32) - 1, rz = cz >= 0 ? cz / 32 : -((-(cz + 1)) / 32) - 1;
    mc_region *r = run->src[(rz - run->t->rz + 1) * 3 + (rx - run->t->rx + 1)];
    int lx = (int)((uint32_t)cx & 31), lz = (int)((uint32_t)cz & 31), i = lx + 32 * lz;
    if (!r || !mc_region_has_chunk(r, lx, lz))
        return NULL;
    mc_error err;
    w->nbt.len = 0;
    mc_chunknbt_options opt = {0};
    opt.cache = w->cache;
    opt.doc = w->doc;
    opt.flags = own ? 0 : MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT;
    mc_column *col = NULL;
    const bool have = own && run->raw_chunk == i; /* read already by recode_chunk */
    if (have)
        w->nbt.len = run->nbt_len;
    run->raw_chunk = -1;
    if ((!have && mc_region_read_chunk(r, lx, lz, &w->nbt, NULL, &err) != MC_OK) ||
        mc_chunknbt_read_bytes(w->nbt.data, w->nbt.len, &opt, &col, &err) != MC_OK) {
        if (own) {
            w->rep.unreadable++;
            fprintf(stderr, "%s: chunk %d %d: %s (left out)\n", run->j->o->prog, (int)cx, (int)cz, err.message);
            run->dropped[i] = true;
        }
        return NULL;
    }
    const int32_t tdv = run->j->target.data_version, sdv = mc_chunknbt_column_data_version(col);
    const mc_registry *to = run->j->target.registry;
    if (own) {
        bool full = world_column_is_full(col);
        /* pre-1.13 chunks have no Status: TerrainPopulated says it */
        if (sdv < MC_CHUNKNBT_DV_FLATTENING) {
            int8_t pop = 0;
            mc_nbt_get_byte(mc_nbt_path(mc_column_extra(col), "Level.TerrainPopulated"), &pop);
            full = pop != 0;
        }
        w->rep.chunks_read++;
        run->src_dv[i] = sdv;
        run->full[i] = full;
        if (!full && era_of(sdv) != era_of(tdv)) {
            w->rep.protos_dropped++;
            run->dropped[i] = true;
            mc_column_free(col);
            return NULL;
        }
        if (sdv < DV_ENTITIES_FILES)
            run->entities[i] = take_chunk_entities(col);
        run->changed[i] = mc_column_registry(col) != to || sdv < DV_LIGHT_ENGINE ||
                          (run->sections && (mc_column_min_section(col) != run->min_section ||
                                             mc_column_section_count(col) != (uint32_t)run->sections));
        /* light the writer will drop is not carried through the height
         * fitting and the translation (copies of it) either */
        if (leaves_light_to_game(run->j, full, run->changed[i]))
            drop_light(col);
    }
    col = fit_height(run, col, own);
    if (col && own && mc_column_registry(col) != to)
        account_translation(w, col, to);
    /* Translated here (a palette remap) unless the target is 1.8-1.12: the
     * chunk writer takes a column in a legacy registry for a legacy chunk
     * and would carry the keys of its own era, so such columns go to it
     * untranslated (it translates them, block by block); when they are lit,
     * the window holds a translated copy. */
    const bool legacy_target = era_of(tdv) == 0;
    if (col && mc_column_registry(col) != to && (!legacy_target || run->j->compute_light)) {
        mc_column *t;
        if (own && legacy_target) {
            t = mc_column_translate(col, to, NULL, &err);
            if (t)
                run->source[i] = col;
            else
                mc_column_free(col);
        } else {
            t = mc_column_translate_take(col, to, NULL, &err); /* (its extra NBT moved, not copied) */
        }
        col = t;
    }
    if (!col && own) {
        run->dropped[i] = true;
        fprintf(stderr, "%s: chunk %d %d: out of memory (left out)\n", run->j->o->prog, (int)cx, (int)cz);
    }
    return col;
}

/* Copies the light of every section of `lit` into `col` (same range). */
static mc_status copy_light(mc_column *col, const mc_column *lit)
{
    mc_status st = MC_OK;
    for (uint32_t s = 0; s < mc_column_section_count(col) && !st; s++) {
        const mc_section *from = mc_column_section_const(lit, mc_column_min_section(col) + (int32_t)s);
        mc_section *to = mc_column_section_at(col, s);
        if (from)
            st = mc_section_set_sky_light(to, from->sky_light) ? MC_ERR_NOMEM
                 : mc_section_set_block_light(to, from->block_light) ? MC_ERR_NOMEM : MC_OK;
    }
    return st;
}

/* The compound of a written chunk holding Status, isLightOn and Entities. */
static mc_nbt_tag *chunk_holder(mc_nbt_doc *d)
{
    mc_nbt_tag *root = mc_nbt_doc_root(d), *level = mc_nbt_get(root, "Level");
    return level ? level : root;
}

/* Lights (or marks for the game to light) own chunk i, writes its terrain
 * record and, for a target before 1.17, puts its entities into it. */
static mc_status write_chunk(convert_run *run, world_window *win, mc_region_writer *out, int lx, int lz,
                             mc_column *col, mc_error *err)
{
    convert_worker *w = run->w;
    convert_job *j = run->j;
    const int i = lx + 32 * lz;
    const int32_t tdv = j->target.data_version;
    bool full = run->full[i], left_to_game = false;
    mc_status st = MC_OK;
    if (full && j->compute_light) {
        const mc_column *nb[8];
        world_window_neighbours(win, lx, nb);
        st = mc_light_column(w->light.engine, col, nb, MC_LIGHT_BOTH, err);
        w->rep.light_computed += st == MC_OK;
        /* the untranslated column is what is written (see load_converted) */
        if (!st && run->source[i] && (st = copy_light(run->source[i], col)) != MC_OK)
            mc_error_set(err, st, SIZE_MAX, "out of memory");
    } else if (leaves_light_to_game(j, full, run->changed[i])) {
        /* the game relights it (isLightOn 0 below): no stale light kept */
        drop_light(col);
        left_to_game = true;
        w->rep.light_left_to_game++;
    }
    if (st)
        return st;
    if (run->source[i])
        col = run->source[i];
    mc_chunknbt_report rep;
    memset(&rep, 0, sizeof rep);
    mc_nbt_doc_reset(w->out_doc);
    st = mc_chunknbt_writer_build(w->chunk_writer, col, tdv < 169 ? 0 : tdv, w->out_doc, &rep, err);
    if (st)
        return st;
    w->rep.extra_keys_dropped += rep.extra_dropped;
    w->rep.block_entities_dropped += rep.block_entities_dropped;
    mc_nbt_tag *h = chunk_holder(w->out_doc);
    if (!world_complete_chunk(w->out_doc, tdv))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    mc_nbt_tag *on = left_to_game ? mc_nbt_get(h, "isLightOn") : NULL;
    if (on)
        mc_nbt_set_byte(on, 0);
    else if (left_to_game && mc_nbt_put_byte(w->out_doc, h, "isLightOn", 0) != MC_OK)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    if (tdv < DV_ENTITIES_FILES) {
        /* the entities go into the chunk */
        int32_t edv = 0;
        const mc_nbt_tag *list = source_entities(run, i, &edv);
        mc_nbt_remove(h, "Entities", 8);
        mc_nbt_tag *dst = mc_nbt_put_list(w->out_doc, h, "Entities", MC_NBT_COMPOUND);
        if (!dst || (list && !copy_entities(w, w->out_doc, dst, list, mc_column_min_y(col),
                                            mc_column_min_y(col) + (int32_t)mc_column_height(col), edv != tdv)))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    }
    w->bytes.len = 0;
    st = mc_chunknbt_writer_serialise(w->chunk_writer, w->out_doc, &w->bytes, err);
    if (!st && out)
        st = mc_region_writer_put_chunk(out, lx, lz, w->bytes.data, w->bytes.len, j->compression, 0, err);
    if (!st)
        w->rep.chunks_written++;
    return st;
}

/* The entities/ record of own chunk i for a 1.17+ target, into `out`. */
static mc_status write_entities(convert_run *run, mc_region_writer *out, int i, int32_t lo, int32_t hi,
                                mc_error *err)
{
    convert_worker *w = run->w;
    const int32_t tdv = run->j->target.data_version;
    int32_t edv = 0;
    const mc_nbt_tag *list = source_entities(run, i, &edv);
    if (!list || !mc_nbt_count(list))
        return MC_OK;
    /* carried up from an entities/ record: the source's DataVersion, so the
     * game upgrades them; otherwise the target's */
    bool from_file = !run->entities[i];
    int32_t record_dv = from_file && edv <= tdv ? edv : tdv;
    mc_nbt_doc *d = w->out_doc;
    mc_nbt_doc_reset(d);
    mc_nbt_tag *root = mc_nbt_doc_new_root(d, MC_NBT_COMPOUND);
    int32_t pos[2] = {run->t->rx * 32 + (i & 31), run->t->rz * 32 + (i >> 5)};
    mc_nbt_tag *dst = root ? mc_nbt_put_list(d, root, "Entities", MC_NBT_COMPOUND) : NULL;
    if (!dst || mc_nbt_put_int(d, root, "DataVersion", record_dv) || mc_nbt_put_int_array(d, root, "Position", pos, 2) ||
        !copy_entities(w, d, dst, list, lo, hi, !(from_file && edv <= tdv) && edv != tdv))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    if (!mc_nbt_count(dst))
        return MC_OK;
    w->bytes.len = 0;
    mc_status st = mc_nbt_write(d, MC_NBT_JAVA, &w->bytes, err);
    if (!st && out)
        st = mc_region_writer_put_chunk(out, i & 31, i >> 5, w->bytes.data, w->bytes.len, run->j->compression,
                                        mc_region_get_entry(run->src_entities ? run->src_entities : run->src[4],
                                                            i & 31, i >> 5).timestamp, err);
    return st;
}

/* The poi/ record of own chunk i (1.14+ target and source), sections
 * outside sy lo..hi-1 left out. */
static mc_status write_poi(convert_run *run, mc_region_writer *out, int i, int32_t lo, int32_t hi, mc_error *err)
{
    convert_worker *w = run->w;
    mc_region *r = run->src_poi;
    if (!r || !mc_region_has_chunk(r, i & 31, i >> 5))
        return MC_OK;
    w->raw.len = 0;
    mc_nbt_doc_reset(w->edoc);
    if (mc_region_read_chunk(r, i & 31, i >> 5, &w->raw, NULL, err) != MC_OK ||
        mc_nbt_parse(w->edoc, w->raw.data, w->raw.len, MC_NBT_JAVA, NULL, err) != MC_OK)
        return MC_OK; /* an unreadable record: the game rebuilds it */
    mc_nbt_tag *root = mc_nbt_doc_root(w->edoc);
    const int32_t tdv = run->j->target.data_version;
    int32_t dv = 0;
    mc_nbt_tag *dvt = mc_nbt_get(root, "DataVersion");
    mc_nbt_get_int(dvt, &dv);
    if (dv > tdv && dvt)
        mc_nbt_set_int(dvt, tdv);
    mc_nbt_tag *sections = mc_nbt_get(root, "Sections");
    for (mc_nbt_tag *s = mc_nbt_first(sections), *next; s; s = next) {
        next = mc_nbt_next(s);
        size_t kl;
        const char *k = mc_nbt_tag_key(s, &kl);
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)(kl < 15 ? kl : 15), k);
        long y = strtol(key, NULL, 10);
        if (run->sections && (y < lo || y >= hi)) {
            mc_nbt_remove(sections, k, kl);
            w->rep.poi_sections_outside++;
        } else {
            w->rep.poi_carried++;
        }
    }
    w->bytes.len = 0;
    mc_status st = mc_nbt_write(w->edoc, MC_NBT_JAVA, &w->bytes, err);
    if (!st && out)
        st = mc_region_writer_put_chunk(out, i & 31, i >> 5, w->bytes.data, w->bytes.len, run->j->compression,
                                        mc_region_get_entry(r, i & 31, i >> 5).timestamp, err);
    return st;
}

/* ------------------------------------------------------ 1.18+ byte path */

/* A chunk of 1.18 or later going to 1.18 or later, light left as the model
 * path leaves it: mc_chunknbt_recode writes it from its bytes (no tree, no
 * column), with the counts and the light decided here exactly as
 * load_converted and write_chunk decide them; what it declines goes the
 * model path. MCCHUNK_CONVERT_MODEL=1 in the environment turns it off (for
 * tests/unit/test_world_recode.c, which checks that both give the same
 * chunks and the same report). */
typedef struct recode_ctx {
    convert_run *run;
    how_table *h;             /* NULL: not translated (nothing counted) */
    bool full, drop_light;
    int32_t dv, min_section, sections;
} recode_ctx;

static unsigned recode_decide(void *user, const mc_chunknbt_recode_facts *f)
{
    recode_ctx *c = user;
    convert_run *run = c->run;
    /* a column of another range is fitted by the model path (fit_height) */
    if (run->sections && (f->min_section != run->min_section || f->section_count != (uint32_t)run->sections))
        return MC_RECODE_DECLINE;
    c->full = f->status && world_status_rank(f->status, f->status_len) == WORLD_STATUS_FULL;
    c->drop_light = leaves_light_to_game(run->j, c->full, f->translated);
    c->h = f->translated ? how_for(run->w, f->registry, run->j->target.registry) : NULL;
    if (f->translated && !c->h)
        return MC_RECODE_DECLINE;
    c->dv = f->data_version;
    c->min_section = f->min_section;
    c->sections = (int32_t)f->section_count;
    return c->drop_light ? MC_RECODE_DROP_LIGHT : 0;
}

/* account_translation's counts, from a section's palette and indices. */
static void recode_count(void *user, const mc_registry *from, bool biomes, const uint32_t *pal, size_t n,
                         const uint8_t *longs, unsigned bits)
{
    recode_ctx *c = user;
    convert_worker *w = c->run->w;
    const mc_registry *to = c->run->j->target.registry;
    if (!c->h)
        return;
    if (!biomes) {
        count_indexed_blocks(w, c->h, to, pal, n, longs, bits);
        return;
    }
    bool any = false;
    for (size_t k = 0; k < n && !any; k++)
        any = biome_falls_back(c->h, from, to, pal[k]);
    if (!any)
        return;
    if (longs)
        mc_bits_unpack_be_u32(longs, 64, bits, MC_BITS_PADDED, w->vals);
    for (unsigned cell = 0; cell < 64; cell++)
        w->rep.biome_cells_fallback += biome_falls_back(c->h, from, to, pal[longs ? w->vals[cell] : 0]);
}

/* Own chunk (lx, lz) through the byte path into `out`; *done false when
 * the path declined it (or could not read it: the model path says why).
 * *lo, *hi: the heights its entities and poi must fit. */
static mc_status recode_chunk(convert_run *run, mc_region_writer *out, int lx, int lz, int32_t *lo, int32_t *hi,
                              bool *done, mc_error *err)
{
    convert_worker *w = run->w;
    const int i = lx + 32 * lz;
    *done = false;
    w->nbt.len = 0;
    if (mc_region_read_chunk(run->src[4], lx, lz, &w->nbt, NULL, err) != MC_OK)
        return MC_OK;
    recode_ctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    mc_chunknbt_recode_options ro = {run->j->target.data_version, recode_decide, recode_count, &c};
    w->bytes.len = 0;
    mc_status st = mc_chunknbt_recode(w->recoder, w->nbt.data, w->nbt.len, &ro, &w->bytes, err);
    if (st == MC_ERR_UNSUPPORTED) {
        run->raw_chunk = i; /* the model path reads these bytes, not the file again */
        run->nbt_len = w->nbt.len;
        return MC_OK;
    }
    if (st)
        return st;
    *done = true;
    w->rep.chunks_read++;
    w->rep.chunks_recoded++;
    w->rep.light_left_to_game += c.drop_light;
    run->src_dv[i] = c.dv;
    run->full[i] = c.full;
    *lo = c.min_section * 16;
    *hi = *lo + c.sections * 16;
    if (out)
        st = mc_region_writer_put_chunk(out, lx, lz, w->bytes.data, w->bytes.len, run->j->compression, 0, err);
    if (!st)
        w->rep.chunks_written++;
    return st;
}

/* ----------------------------------------------------------- per region */

static mc_status open_writer(convert_run *run, mc_region_kind kind, mc_region_writer **out, mc_error *err)
{
    *out = NULL;
    convert_job *j = run->j;
    if (j->dry_run)
        return MC_OK;
    char dir[4096], path[4400];
    mc_status st = mc_world_region_dir(j->dst, j->dst_layout, j->scan->dims[run->t->dim], kind, dir, sizeof dir, err);
    if (st)
        return st;
    if (!world_mkdirs(dir))
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "cannot make %s: %s", dir, strerror(errno));
    snprintf(path, sizeof path, "%s/r.%d.%d.mca", dir, (int)run->t->rx, (int)run->t->rz);
    mc_region_options ro = {0};
    ro.level = world_deflate_level(run->j->o, CONVERT_DEFLATE_LEVEL); /* zlib only; lz4 and none have none */
    return mc_region_writer_new(path, &ro, out, err);
}

static mc_status open_sources(convert_run *run, mc_error *err)
{
    convert_job *j = run->j;
    char path[4200];
    for (int k = 0; k < 9; k++) {
        if (k != 4 && !j->compute_light)
            continue;
        world_task n = *run->t;
        n.rx += k % 3 - 1;
        n.rz += k / 3 - 1;
        mc_status st = world_task_path(j->scan, j->o->dir, &n, MC_REGION_KIND_REGION, path, sizeof path, err);
        if (st == MC_ERR_NOT_FOUND)
            continue;
        if (!st)
            st = mc_region_open(path, NULL, &run->src[k], err);
        if (st)
            return st;
    }
    for (int kind = MC_REGION_KIND_ENTITIES; kind <= MC_REGION_KIND_POI; kind++) {
        mc_region **r = kind == MC_REGION_KIND_ENTITIES ? &run->src_entities : &run->src_poi;
        if (!run->t->has[kind])
            continue;
        mc_status st = world_task_path(j->scan, j->o->dir, run->t, (mc_region_kind)kind, path, sizeof path, err);
        if (!st)
            st = mc_region_open(path, NULL, r, err);
        if (st)
            return st;
    }
    return MC_OK;
}

/* Appends "done DIM RX RZ" to the manifest (not synced: see the top). */
static bool log_done(convert_job *j, const world_task *t)
{
    char line[1200];
    int n = snprintf(line, sizeof line, "done %s %d %d\n", j->scan->dims[t->dim], (int)t->rx, (int)t->rz);
    if (n <= 0 || (size_t)n >= sizeof line)
        return false;
    uv_mutex_lock(&j->log_lock);
    bool ok = write(j->log_fd, line, (size_t)n) == n;
    uv_mutex_unlock(&j->log_lock);
    return ok;
}

static mc_status convert_region(convert_run *run, mc_error *err)
{
    convert_job *j = run->j;
    const int32_t tdv = j->target.data_version;
    mc_region_writer *out = NULL, *ents = NULL, *poi = NULL;
    mc_status st = open_sources(run, err);
    if (!st && run->src[4])
        st = open_writer(run, MC_REGION_KIND_REGION, &out, err);
    if (!st && tdv >= DV_ENTITIES_FILES)
        st = open_writer(run, MC_REGION_KIND_ENTITIES, &ents, err);
    if (!st && tdv >= DV_POI && run->src_poi)
        st = open_writer(run, MC_REGION_KIND_POI, &poi, err);
    world_window win;
    world_window_init(&win, run->t->rx, run->t->rz, load_converted, run);
    win.free_col = free_column;
    for (int lz = 0; lz < 32 && !st; lz++) {
        world_window_row(&win, lz);
        uint64_t in_row = 0;
        for (int lx = 0; lx < 32 && !st; lx++) {
            const int i = lx + 32 * lz;
            if (world_stop_requested()) {
                st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "interrupted");
                break;
            }
            bool has = run->src[4] && mc_region_has_chunk(run->src[4], lx, lz);
            int32_t lo = -2048, hi = 2048; /* the height entities and poi must fit */
            bool recoded = false;
            if (has && run->w->recoder && (st = recode_chunk(run, out, lx, lz, &lo, &hi, &recoded, err)) != MC_OK)
                break;
            mc_column *col = has && !recoded ? world_window_get(&win, lx) : NULL;
            in_row += has;
            if (recoded) {
                /* written from its bytes */
            } else if (col) {
                lo = mc_column_min_y(col);
                hi = lo + (int32_t)mc_column_height(col);
                st = write_chunk(run, &win, out, lx, lz, col, err);
                mc_column_free(run->source[i]); /* (the window keeps the translated one a while) */
                run->source[i] = NULL;
                if (!j->compute_light)
                    world_window_release(&win, lx); /* no neighbour needs it */
            } else if (run->sections) {
                lo = run->min_section * 16;
                hi = lo + run->sections * 16;
            }
            if (st)
                break;
            if ((has && run->dropped[i]) || (!has && tdv < DV_ENTITIES_FILES)) {
                /* a dropped chunk's entities and poi go with it; before 1.17
                 * entities live in a chunk, and without one they have none */
                int32_t edv;
                const mc_nbt_tag *list = source_entities(run, i, &edv);
                run->w->rep.entities_no_chunk += list ? mc_nbt_count(list) : 0;
                if (has)
                    continue;
            }
            if (tdv >= DV_ENTITIES_FILES)
                st = write_entities(run, ents, i, lo, hi, err);
            if (!st && run->src_poi && tdv >= DV_POI)
                st = write_poi(run, poi, i, lo >> 4, hi >> 4, err);
            else if (!st && run->src_poi && mc_region_has_chunk(run->src_poi, lx, lz))
                run->w->rep.poi_dropped++;
        }
        world_count_chunks(in_row);
    }
    world_window_free(&win);
    for (int i = 0; i < 1024; i++) {
        mc_nbt_doc_free(run->entities[i]);
        mc_column_free(run->source[i]);
    }
    /* entities and poi first: the terrain file is the last to change */
    mc_region_writer *writers[3] = {ents, poi, out};
    for (int k = 0; k < 3; k++) {
        if (!writers[k])
            continue;
        uint64_t size = 0;
        if (st)
            mc_region_writer_abandon(writers[k]);
        else if ((st = mc_region_writer_commit(writers[k], &size, err)) == MC_OK && size)
            run->w->rep.regions_written++, run->w->rep.bytes_written += size;
    }
    return st;
}

static int convert_task(void *user, int worker, size_t next)
{
    convert_job *j = user;
    size_t ti = j->order[next];
    if (j->skip[ti])
        return MC_EXIT_OK;
    convert_run *run = calloc(1, sizeof *run);
    if (!run)
        return MC_EXIT_FAIL;
    run->j = j;
    run->w = &j->workers[worker];
    run->t = &j->scan->tasks[ti];
    run->raw_chunk = -1;
    target_range(j, j->scan->dims[run->t->dim], &run->min_section, &run->sections);
    mc_error err;
    mc_error_clear(&err);
    convert_report before = run->w->rep;
    mc_status st = convert_region(run, &err);
    for (int k = 0; k < 9; k++)
        mc_region_close(run->src[k]);
    mc_region_close(run->src_entities);
    mc_region_close(run->src_poi);
    int rc = MC_EXIT_OK;
    if (st) {
        run->w->rep = before; /* nothing of this region was written */
        if (!world_stop_requested())
            fprintf(stderr, "%s: %s region %d %d: %s\n", j->o->prog, j->scan->dims[run->t->dim], (int)run->t->rx,
                    (int)run->t->rz, err.message);
        rc = MC_EXIT_FAIL;
    } else if (!j->dry_run && !log_done(j, run->t)) {
        fprintf(stderr, "%s: cannot record region %d %d as done in the log: %s\n", j->o->prog, (int)run->t->rx,
                (int)run->t->rz, strerror(errno));
        rc = MC_EXIT_FAIL;
    }
    free(run);
    return rc;
}

/* ------------------------------------------------------------ the order */

typedef struct sized_task {
    uint64_t bytes;
    size_t index;
} sized_task;

static int larger_first(const void *a, const void *b)
{
    const sized_task *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The tasks largest terrain file first, so that the last ones to finish are
 * small: the workers then run out of work at nearly the same time instead
 * of one converting a big region alone at the end (a region is a few
 * percent of a shard's time). Which files are written does not depend on
 * the order. */
static size_t *task_order(const convert_job *j)
{
    const world_scan *scan = j->scan;
    size_t *order = malloc((scan->count + 1) * sizeof *order);
    sized_task *st = malloc((scan->count + 1) * sizeof *st);
    if (!order || !st) {
        free(order);
        free(st);
        return NULL;
    }
    for (size_t t = 0; t < scan->count; t++) {
        char path[4200];
        mc_error err;
        struct stat sb;
        st[t].index = t;
        st[t].bytes = scan->tasks[t].has[MC_REGION_KIND_REGION] &&
                              world_task_path(scan, j->o->dir, &scan->tasks[t], MC_REGION_KIND_REGION, path,
                                              sizeof path, &err) == MC_OK && stat(path, &sb) == 0
                          ? (uint64_t)sb.st_size : 0;
    }
    qsort(st, scan->count, sizeof *st, larger_first);
    for (size_t t = 0; t < scan->count; t++)
        order[t] = st[t].index;
    free(st);
    return order;
}

/* ------------------------------------------------------------ the log */

static void log_name(const convert_job *j, char *out, size_t n)
{
    if (j->o->shard_n)
        snprintf(out, n, "%s/mcchunk-convert.%u-of-%u.log", j->dst, j->o->shard_k, j->o->shard_n);
    else
        snprintf(out, n, "%s/mcchunk-convert.log", j->dst);
}

/* The first line: what this conversion is, so that --resume continues the
 * same one. */
static void log_header(const convert_job *j, const char *src_real, char *out, size_t n)
{
    /* the compression is named only when not the default: logs of runs
     * before --compression existed still --resume */
    char comp[32] = "";
    if (j->compression != MC_COMPRESSION_ZLIB)
        snprintf(comp, sizeof comp, " compression %s", mc_compression_name(j->compression));
    snprintf(out, n, "mcchunk-convert 1 to %s dv %d%s shard %u/%u from %s\n", j->target.name,
             (int)j->target.data_version, comp, j->o->shard_k, j->o->shard_n, src_real);
}

static bool same_region(const world_task *a, const char *dim, int32_t rx, int32_t rz, const world_scan *s)
{
    return !strcmp(s->dims[a->dim], dim) && a->rx == rx && a->rz == rz;
}

/* --resume: reads the log, checks its header, marks the regions done.
 * *complete: the run had finished. */
static int read_log(convert_job *j, const char *path, const char *header, bool *complete)
{
    uint8_t *data = NULL;
    size_t len = 0;
    mc_error err;
    if (mc_read_file(path, NULL, &data, &len, &err) != MC_OK) {
        fprintf(stderr, "%s: --resume: %s is not a conversion in progress (%s)\n", j->o->prog, j->dst, err.message);
        return MC_EXIT_FAIL;
    }
    size_t hl = strlen(header);
    int rc = MC_EXIT_OK;
    if (len < hl || memcmp(data, header, hl)) {
        fprintf(stderr, "%s: --resume: %s was begun as another conversion (its log starts '%.*s')\n", j->o->prog,
                j->dst, (int)(memchr(data, '\n', len) ? (char *)memchr(data, '\n', len) - (char *)data : 0),
                (char *)data);
        rc = MC_EXIT_FAIL;
    }
    *complete = false;
    size_t skipped = 0;
    for (size_t p = hl; rc == MC_EXIT_OK && p < len;) {
        uint8_t *nl = memchr(data + p, '\n', len - p);
        if (!nl)
            break; /* a line cut by a crash: not done */
        char line[1200];
        size_t n = (size_t)(nl - (data + p));
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), (char *)data + p);
        p += n + 1;
        char dim[1024];
        int rx, rz;
        if (!strcmp(line, "complete")) {
            *complete = true;
        } else if (sscanf(line, "done %1023s %d %d", dim, &rx, &rz) == 3) {
            for (size_t t = 0; t < j->scan->count; t++)
                if (!j->skip[t] && same_region(&j->scan->tasks[t], dim, rx, rz, j->scan)) {
                    j->skip[t] = true;
                    skipped++;
                    break;
                }
        }
    }
    if (rc == MC_EXIT_OK && !j->o->quiet)
        fprintf(stderr, "%s: resuming: %zu of %zu regions were done\n", j->o->prog, skipped, j->scan->count);
    free(data);
    return rc;
}

/* ---------------------------------------------------------- other files */

/* Copies one file to dst crash-safely (tmp, fsync, rename), 1 MiB at a time. */
static bool copy_file(const char *src, const char *dst)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    int in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (in < 0)
        return false;
    struct stat st;
    if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
        close(in);
        return false;
    }
    unlink(tmp);
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    bool ok = out >= 0;
    static const size_t block = 1 << 20;
    char *buf = ok ? malloc(block) : NULL;
    ok = buf != NULL;
    for (ssize_t n; ok && (n = read(in, buf, block)) != 0;) {
        if (n < 0) {
            ok = errno == EINTR;
            continue;
        }
        for (ssize_t w = 0, k; ok && w < n; w += k > 0 ? k : 0)
            ok = (k = write(out, buf + w, (size_t)(n - w))) > 0 || (k < 0 && errno == EINTR);
    }
    free(buf);
    close(in);
    if (out >= 0) {
        ok = ok && fsync(out) == 0;
        ok = close(out) == 0 && ok;
    }
    ok = ok && rename(tmp, dst) == 0;
    if (!ok && out >= 0)
        unlink(tmp);
    return ok;
}

/* The names in the world folder that are not copied: the region data this
 * command writes, level.dat (written), locks, logs. */
static bool not_copied(const char *name, bool top)
{
    static const char *const skip_top[] = {"region", "entities", "poi", "DIM-1", "DIM1", "dimensions", "level.dat",
                                           "level.dat_old", "level.dat_new", "session.lock"};
    if (!strncmp(name, "mcchunk-convert", 15))
        return top;
    for (size_t i = 0; top && i < sizeof skip_top / sizeof skip_top[0]; i++)
        if (!strcmp(name, skip_top[i]))
            return true;
    return false;
}

static void copy_tree(const char *src, const char *dst, bool top, uint64_t *files, uint64_t *failed, int depth)
{
    DIR *d = depth < 16 ? opendir(src) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || not_copied(e->d_name, top))
            continue;
        char s[4200], t[4200];
        snprintf(s, sizeof s, "%s/%s", src, e->d_name);
        snprintf(t, sizeof t, "%s/%s", dst, e->d_name);
        struct stat st;
        if (lstat(s, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (world_mkdirs(t))
                copy_tree(s, t, false, files, failed, depth + 1);
            else
                (*failed)++;
        } else if (S_ISREG(st.st_mode)) {
            if (copy_file(s, t))
                (*files)++;
            else
                (*failed)++;
        }
    }
    closedir(d);
}

/* --------------------------------------------------------------- report */

/* The MC_TRANSLATE_* bits in words (bits added later: by number). */
static void kinds_text(unsigned how, char *out, size_t n)
{
    static const char *const names[6] = {"property dropped", "value defaulted", "renamed", "closest older block",
                                         "air: nothing fits", "through a data table"};
    size_t k = 0;
    out[0] = 0;
    for (unsigned b = 0; b < TRANSLATE_BITS && k < n; b++)
        if (how & (1u << b)) {
            int w = b < 6 ? snprintf(out + k, n - k, "%s%s", k ? ", " : "", names[b])
                          : snprintf(out + k, n - k, "%skind bit %u", k ? ", " : "", b);
            k += w > 0 ? (size_t)w : 0;
        }
}

static void print_report_text(const convert_job *j, const convert_report *r, const world_outcome *out,
                              const world_stat_result *inexact, const char *level_notes, uint64_t copied)
{
    FILE *f = stdout;
    fprintf(f, "%s%s -> %s (%s, DataVersion %d): %" PRIu64 " chunks read, %" PRIu64 " written, %" PRIu64
               " region files (%" PRIu64 " bytes)%s\n",
            j->dry_run ? "dry run: " : "", j->o->dir, j->dst, j->target.name, (int)j->target.data_version, r->chunks_read,
            r->chunks_written, r->regions_written, r->bytes_written, j->dry_run ? ", nothing written" : "");
    fprintf(f, "blocks: %" PRIu64 " exact, %" PRIu64 " approximated; by how they were translated:\n",
            r->blocks_exact, r->blocks_translated);
    for (int b = 0; b < TRANSLATE_BITS; b++)
        if (r->blocks_by_kind[b]) {
            char k[64];
            kinds_text(1u << b, k, sizeof k);
            fprintf(f, "  %" PRIu64 " blocks: %s\n", r->blocks_by_kind[b], k);
        }
    if (r->blocks_outside)
        fprintf(f, "dropped: %" PRIu64 " blocks outside the target's height (%" PRIu64 " sections)\n",
                r->blocks_outside, r->sections_outside);
    fprintf(f, "biome cells without an equal in the target (became %s or the first biome): %" PRIu64 "\n",
            MC_BIOME_FALLBACK, r->biome_cells_fallback);
    fprintf(f, "proto-chunks dropped (another format era; the game generates them again): %" PRIu64 "\n",
            r->protos_dropped);
    fprintf(f, "unreadable chunks left out: %" PRIu64 "\nblock entities dropped: %" PRIu64
               "\nchunk keys of another format era dropped: %" PRIu64 "\n",
            r->unreadable, r->block_entities_dropped, r->extra_keys_dropped);
    fprintf(f, "light: %" PRIu64 " chunks lit with the light engine, %" PRIu64 " left to the game (isLightOn 0)\n",
            r->light_computed, r->light_left_to_game);
    fprintf(f, "entities: %" PRIu64 " carried (%" PRIu64 " with contents untranslated), %" PRIu64
               " outside the height dropped, %" PRIu64 " dropped with their chunk or without one\n",
            r->entities_carried, r->entities_untranslated, r->entities_outside, r->entities_no_chunk);
    fprintf(f, "points of interest: %" PRIu64 " sections carried, %" PRIu64 " outside the height, %" PRIu64
               " records dropped (the game rebuilds them)\n",
            r->poi_carried, r->poi_sections_outside, r->poi_dropped);
    if (copied)
        fprintf(f, "other files copied as they are: %" PRIu64 "\n", copied);
    if (level_notes && *level_notes)
        fputs(level_notes, f);
    if (inexact && world_stat_size(inexact)) {
        fprintf(f, "approximated states (the 40 with most blocks):\n");
        world_stat_print_text(inexact, f, 40);
    }
    if (out->interrupted)
        fprintf(f, "interrupted: %zu of %zu regions done\n", out->done, j->scan->count);
}

static void print_report_json(const convert_job *j, const convert_report *r, const world_outcome *out,
                              const char *level_notes, uint64_t copied)
{
    world_json js;
    world_json_init(&js, stdout, true);
    world_json_begin_object(&js, NULL);
    world_json_str(&js, "source", j->o->dir);
    world_json_str(&js, "destination", j->dst);
    world_json_str(&js, "to", j->target.name);
    world_json_int(&js, "data_version", j->target.data_version);
    world_json_bool(&js, "dry_run", j->dry_run);
    world_json_bool(&js, "interrupted", out->interrupted);
    world_json_uint(&js, "regions_done", out->done);
    world_json_uint(&js, "regions_failed", out->failed);
    static const char *const keys[] = {"chunks_read", "chunks_written", "protos_dropped", "unreadable",
                                       "blocks_outside", "sections_outside", "block_entities_dropped"};
    const uint64_t vals[] = {r->chunks_read, r->chunks_written, r->protos_dropped, r->unreadable,
                             r->blocks_outside, r->sections_outside, r->block_entities_dropped};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        world_json_uint(&js, keys[i], vals[i]);
    world_json_uint(&js, "blocks_exact", r->blocks_exact);
    world_json_uint(&js, "blocks_approximated", r->blocks_translated);
    world_json_begin_object(&js, "blocks_by_kind");
    static const char *const kinds[6] = {"prop_dropped", "value_defaulted", "renamed", "ancestor", "air", "mapped"};
    for (int b = 0; b < TRANSLATE_BITS; b++)
        if (r->blocks_by_kind[b]) {
            char k[32];
            snprintf(k, sizeof k, "bit%d", b);
            world_json_uint(&js, b < 6 ? kinds[b] : k, r->blocks_by_kind[b]);
        }
    world_json_end_object(&js);
    world_json_uint(&js, "biome_cells_fallback", r->biome_cells_fallback);
    world_json_uint(&js, "extra_keys_dropped", r->extra_keys_dropped);
    world_json_uint(&js, "light_computed", r->light_computed);
    world_json_uint(&js, "light_left_to_game", r->light_left_to_game);
    world_json_uint(&js, "chunks_recoded", r->chunks_recoded);
    world_json_uint(&js, "entities_carried", r->entities_carried);
    world_json_uint(&js, "entities_untranslated", r->entities_untranslated);
    world_json_uint(&js, "entities_outside", r->entities_outside);
    world_json_uint(&js, "entities_no_chunk", r->entities_no_chunk);
    world_json_uint(&js, "poi_sections_carried", r->poi_carried);
    world_json_uint(&js, "poi_sections_outside", r->poi_sections_outside);
    world_json_uint(&js, "poi_records_dropped", r->poi_dropped);
    world_json_uint(&js, "region_files_written", r->regions_written);
    world_json_uint(&js, "bytes_written", r->bytes_written);
    world_json_uint(&js, "other_files_copied", copied);
    world_json_begin_array(&js, "notes");
    for (const char *p = level_notes, *e; p && (e = strchr(p, '\n')); p = e + 1)
        world_json_strn(&js, NULL, p, (size_t)(e - p));
    world_json_end_array(&js);
    world_json_end_object(&js);
    world_json_finish(&js);
}

/* Names the inexact states of every worker: "from -> to (how)". */
typedef struct inexact_ctx {
    world_stat_result *res;
    const mc_registry *to;
} inexact_ctx;

static void name_inexact(void *user, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                         const char *name, uint64_t n)
{
    (void)kind, (void)name;
    inexact_ctx *c = user;
    char a[300], b[300], how[200], line[900];
    if (!mc_registry_format_state(reg, value, a, sizeof a, MC_FORMAT_SORTED))
        snprintf(a, sizeof a, "#%u", value);
    uint32_t t = mc_registry_translate_state(reg, c->to, value, NULL);
    if (!mc_registry_format_state(c->to, t, b, sizeof b, MC_FORMAT_SORTED))
        snprintf(b, sizeof b, "#%u", t);
    kinds_text((unsigned)group, how, sizeof how);
    snprintf(line, sizeof line, "%s -> %s (%s)", a, b, how);
    world_stat_add(c->res, NULL, 0, STAT_BLOCK, line, n);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk world convert SRC DST --to VERSION [--dry-run] [--resume] [--light] [options]\n\n"
            "Writes world SRC again as a world of Java release VERSION in DST (SRC is only\n"
            "read), region by region: chunks for VERSION's DataVersion (blocks and biomes\n"
            "translated, block entities, heights fitted: blocks outside VERSION's height\n"
            "dropped and counted), entities (in the chunk before 1.17, entities/ files from\n"
            "it: carried across either way), points of interest (poi/, 1.14+), level.dat for\n"
            "VERSION, the world folder's other files copied, the 26.1 folder layout when\n"
            "VERSION is 26.1 or later. Proto-chunks of another format era are dropped (the\n"
            "game generates them again). Light: computed with the light engine for targets\n"
            "before 1.14 (they trust stored light); 1.14+ targets get isLightOn 0 and relight\n"
            "chunks themselves, unless --light. Prints a report of what was approximated or\n"
            "dropped (counts by kind; --json: one object).\n"
            "  --to VERSION    the target release (`mcchunk registry --versions`)\n"
            "  --dry-run       convert everything in memory and report; write nothing\n"
            "  --resume        continue an interrupted conversion into DST: the regions its\n"
            "                  log (DST/mcchunk-convert.log) names as done are skipped\n"
            "  --light         also compute the light of 1.14+ targets here\n"
            "  --compression zlib|lz4|none\n"
            "                  the region compression of the records written (chunks,\n"
            "                  entities, poi): zlib (default; what the game writes unless\n"
            "                  server.properties says otherwise), lz4 (read by 1.20.5+:\n"
            "                  lz4-java's block stream, faster to write and read, larger\n"
            "                  files) or none (read by 1.15+); zlib at deflate level 1 unless\n"
            "                  --deflate-level says otherwise (6: the game's file sizes)\n"
            "options:\n");
    world_help_options(out, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_DEFLATE);
    fprintf(out,
            "DST must be empty or absent (or, with --resume, the same conversion begun). Every\n"
            "file is written whole (temporary + rename): after Ctrl-C, kill -9 or a crash each\n"
            "file of DST is absent or complete, and --resume finishes the job. With --shard\n"
            "K/N, shards write disjoint files and their own logs; shard 0 writes level.dat.\n"
            "memory: peak at most 16 MB + 48 MB per thread (a thread holds three rows of\n"
            "decoded chunks of one region and writes its records 256 KiB at a time),\n"
            "whatever the size of the world\n"
            "exit status: 0 ok, 1 a region failed, the run was interrupted or DST is in the\n"
            "way, 2 usage error\n");
}

/* True when a is b or inside it (both resolved). */
static bool inside(const char *a, const char *b)
{
    size_t n = strlen(b);
    return !strncmp(a, b, n) && (a[n] == 0 || a[n] == '/' || !strcmp(b, "/"));
}

/* The resolved path of `p`, which need not exist yet: its nearest existing
 * ancestor resolved, the rest appended (free()). */
static char *resolve_future(const char *p)
{
    char *r = realpath(p, NULL);
    if (r || errno != ENOENT)
        return r;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", p);
    char *slash = strrchr(buf, '/');
    while (slash && slash > buf && slash[1] == 0) { /* trailing slashes */
        *slash = 0;
        slash = strrchr(buf, '/');
    }
    const char *rest = slash ? slash + 1 : buf;
    char *parent = slash ? (slash == buf ? strdup("/") : (*slash = 0, resolve_future(buf))) : realpath(".", NULL);
    if (!parent)
        return NULL;
    char *out = malloc(strlen(parent) + strlen(rest) + 2);
    if (out)
        sprintf(out, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", rest);
    free(parent);
    return out;
}

static int finish_world(convert_job *j, const world_level *src_level, bool have_level, mc_buf *notes,
                        uint64_t *copied)
{
    if (j->o->shard_n && j->o->shard_k != 0)
        return MC_EXIT_OK;
    mc_error err;
    world_level lv;
    mc_status st;
    if (have_level) {
        lv = *src_level;
        st = world_level_convert(&lv, &j->target, notes, &err);
    } else {
        int32_t spawn[3] = {0, 64, 0};
        st = world_level_create(&lv, &j->target, "converted", 0, spawn, &err);
        const char *n = "level.dat: SRC had none; a new one was made (seed 0)\n";
        mc_buf_put(notes, n, strlen(n));
    }
    if (!st && !j->dry_run)
        st = world_level_write(&lv, j->dst, &err);
    if (!have_level)
        world_level_free(&lv);
    if (st) {
        fprintf(stderr, "%s: level.dat: %s\n", j->o->prog, err.message);
        return MC_EXIT_FAIL;
    }
    uint64_t failed = 0;
    if (!j->dry_run)
        copy_tree(j->o->dir, j->dst, true, copied, &failed, 0);
    if (failed) {
        fprintf(stderr, "%s: %" PRIu64 " other files could not be copied\n", j->o->prog, failed);
        return MC_EXIT_FAIL;
    }
    return MC_EXIT_OK;
}

int world_cmd_convert(int argc, char **argv)
{
#ifdef M_TOP_PAD
    /* A worker's malloc arena grows and shrinks by the chunk (documents,
     * buffers, columns come and go); with glibc's 128 KiB of padding it gave
     * pages back (madvise) only to fault them in again at the next chunk:
     * 4 MiB of padding took 510 of the 4,240 page faults of a conversion of
     * the corpus off (none; zlib 440 of 4,365), for 0.5-1 MB of peak RSS. */
    mallopt(M_TOP_PAD, 4 << 20);
#endif
    world_opts o = {.prog = "mcchunk world convert"};
    const char *pos[2] = {NULL, NULL}, *to = NULL;
    int npos = 0;
    bool dry = false, resume = false, light = false;
    const char *compression = "zlib";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
        int r = world_parse_option(&o, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_DEFLATE, argc, argv, &i);
        if (r < 0)
            return -r;
        if (r)
            continue;
        if (!strcmp(a, "--to")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: --to needs a version\n", o.prog);
                return MC_EXIT_USAGE;
            }
            to = argv[++i];
        } else if (!strcmp(a, "--dry-run")) {
            dry = true;
        } else if (!strcmp(a, "--resume")) {
            resume = true;
        } else if (!strcmp(a, "--light")) {
            light = true;
        } else if (!strcmp(a, "--compression")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: --compression needs zlib, lz4 or none\n", o.prog);
                return MC_EXIT_USAGE;
            }
            compression = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: unknown option %s\n", o.prog, a);
            return MC_EXIT_USAGE;
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "%s: takes SRC and DST only, not %s\n", o.prog, a);
            return MC_EXIT_USAGE;
        }
    }
    if (npos != 2 || !to) {
        fprintf(stderr, "%s: needs SRC DST --to VERSION\n\n", o.prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (dry && resume) {
        fprintf(stderr, "%s: --dry-run writes nothing, so there is nothing to --resume\n", o.prog);
        return MC_EXIT_USAGE;
    }
    convert_job j;
    memset(&j, 0, sizeof j);
    j.o = &o;
    o.dir = pos[0];
    j.dst = pos[1];
    if (!mc_java_version_find(to, &j.target) || !j.target.registry)
        return mc_tool_unknown_version(o.prog, to);
    j.dry_run = dry;
    j.light = light;
    int rc_comp = world_parse_compression(&o, compression, &j.target, &j.compression);
    if (rc_comp)
        return rc_comp;
    j.compute_light = light || j.target.data_version < DV_LIGHT_ENGINE;
    j.dst_layout = j.target.data_version >= 4786 ? MC_WORLD_LAYOUT_26_1 : MC_WORLD_LAYOUT_LEGACY;
    int rc_src = world_check_dir(&o); /* before DST is made: nothing is written for a SRC that is not a world */
    if (rc_src)
        return rc_src;
    char *src_real = realpath(o.dir, NULL);
    char *dst_real = resolve_future(j.dst);
    int rc = MC_EXIT_OK;
    if (!src_real) {
        fprintf(stderr, "%s: %s: %s\n", o.prog, o.dir, strerror(errno));
        rc = MC_EXIT_FAIL;
    } else if (dst_real && (inside(dst_real, src_real) || inside(src_real, dst_real))) {
        fprintf(stderr, "%s: DST %s and SRC %s must be separate folders (neither inside the other)\n", o.prog, j.dst,
                o.dir);
        rc = MC_EXIT_USAGE;
    } else if (!dry && !resume && !world_folder_empty(j.dst)) {
        fprintf(stderr, "%s: %s is not empty; give an empty or new folder (--resume continues a conversion "
                        "begun there)\n", o.prog, j.dst);
        rc = MC_EXIT_FAIL;
    } else if (!dry && !world_mkdirs(j.dst)) {
        fprintf(stderr, "%s: cannot make %s: %s\n", o.prog, j.dst, strerror(errno));
        rc = MC_EXIT_FAIL;
    }
    world_scan scan;
    memset(&scan, 0, sizeof scan);
    if (rc == MC_EXIT_OK)
        rc = world_scan_build(&o, 7, &scan);
    j.scan = &scan;
    int threads = world_threads(&o);
    j.workers = rc ? NULL : calloc((size_t)threads, sizeof *j.workers);
    j.skip = rc ? NULL : calloc(scan.count + 1, sizeof *j.skip);
    j.order = rc ? NULL : task_order(&j);
    j.log_fd = -1;
    if (rc == MC_EXIT_OK && (!j.workers || !j.skip || !j.order)) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
        rc = MC_EXIT_FAIL;
    }
    for (int w = 0; rc == MC_EXIT_OK && w < threads; w++) {
        convert_worker *cw = &j.workers[w];
        cw->cache = mc_chunknbt_cache_new(NULL);
        cw->doc = mc_nbt_doc_new(NULL);
        cw->out_doc = mc_nbt_doc_new(NULL);
        cw->chunk_writer = mc_chunknbt_writer_new();
        cw->edoc = mc_nbt_doc_new(NULL);
        cw->inexact = world_stat_counter_new();
        const char *model_only = getenv("MCCHUNK_CONVERT_MODEL");
        if (!j.compute_light && j.target.data_version >= MC_CHUNKNBT_DV_NO_LEVEL &&
            !(model_only && *model_only && strcmp(model_only, "0")))
            cw->recoder = mc_chunknbt_recoder_new();
        mc_buf_init(&cw->nbt, NULL);
        mc_buf_init(&cw->raw, NULL);
        mc_buf_init(&cw->bytes, NULL);
        bool ok = cw->cache && cw->doc && cw->out_doc && cw->chunk_writer && cw->edoc && cw->inexact &&
                  (!j.compute_light || world_relight_worker_init(&cw->light));
        if (!ok) {
            fprintf(stderr, "%s: out of memory\n", o.prog);
            rc = MC_EXIT_FAIL;
        }
    }
    /* the log: continued (--resume) or begun */
    char log_path[4400], header[5000];
    bool complete = false;
    if (rc == MC_EXIT_OK && !dry) {
        log_name(&j, log_path, sizeof log_path);
        log_header(&j, src_real, header, sizeof header);
        if (resume)
            rc = read_log(&j, log_path, header, &complete);
        if (rc == MC_EXIT_OK) {
            j.log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
            if (j.log_fd < 0 || (!resume && (write(j.log_fd, header, strlen(header)) != (ssize_t)strlen(header) ||
                                              fsync(j.log_fd) != 0))) {
                fprintf(stderr, "%s: cannot write %s: %s\n", o.prog, log_path, strerror(errno));
                rc = MC_EXIT_FAIL;
            }
        }
    }
    if (rc == MC_EXIT_OK && complete) {
        if (!o.quiet)
            printf("%s: the conversion into %s is already complete\n", o.prog, j.dst);
        rc = -1; /* nothing more to do */
    }
    world_level src_level;
    mc_error err;
    bool have_level = rc == MC_EXIT_OK && world_level_read(o.dir, &src_level, &err) == MC_OK;
    mc_buf notes;
    mc_buf_init(&notes, NULL);
    uint64_t copied = 0;
    /* level.dat and the other files first: DST is a whole world (with
     * regions still to come) at every moment */
    if (rc == MC_EXIT_OK)
        rc = finish_world(&j, &src_level, have_level, &notes, &copied);
    if (rc == MC_EXIT_OK) {
        uv_mutex_init(&j.log_lock);
        world_job job = {o.prog, scan.count, threads, world_progress_wanted(&o), convert_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        uv_mutex_destroy(&j.log_lock);
        convert_report all;
        memset(&all, 0, sizeof all);
        world_stat_result *inexact = world_stat_result_new(STAT_BY_NONE);
        inexact_ctx ic = {inexact, j.target.registry};
        for (int w = 0; w < threads; w++) {
            report_add(&all, &j.workers[w].rep);
            if (inexact)
                world_stat_each(j.workers[w].inexact, name_inexact, &ic);
        }
        rc = out.failed || out.interrupted ? MC_EXIT_FAIL : MC_EXIT_OK;
        if (rc == MC_EXIT_OK && j.log_fd >= 0 && (write(j.log_fd, "complete\n", 9) != 9 || fsync(j.log_fd))) {
            fprintf(stderr, "%s: cannot write %s: %s\n", o.prog, log_path, strerror(errno));
            rc = MC_EXIT_FAIL;
        }
        mc_buf_put(&notes, "", 1);
        if (!o.quiet || o.json) {
            if (o.json)
                print_report_json(&j, &all, &out, (const char *)notes.data, copied);
            else
                print_report_text(&j, &all, &out, inexact, (const char *)notes.data, copied);
        }
        if (out.interrupted)
            fprintf(stderr, "%s: interrupted: %zu of %zu regions done; every file of %s is absent or complete, and "
                            "--resume finishes the job\n", o.prog, out.done, scan.count, j.dst);
        world_stat_result_free(inexact);
    }
    mc_buf_free(&notes);
    if (have_level)
        world_level_free(&src_level);
    if (j.log_fd >= 0)
        close(j.log_fd);
    for (int w = 0; j.workers && w < threads; w++) {
        convert_worker *cw = &j.workers[w];
        mc_chunknbt_cache_free(cw->cache);
        mc_chunknbt_recoder_free(cw->recoder);
        mc_nbt_doc_free(cw->doc);
        mc_nbt_doc_free(cw->out_doc);
        mc_chunknbt_writer_free(cw->chunk_writer);
        mc_nbt_doc_free(cw->edoc);
        world_stat_counter_free(cw->inexact);
        mc_buf_free(&cw->nbt);
        mc_buf_free(&cw->raw);
        mc_buf_free(&cw->bytes);
        if (j.compute_light)
            world_relight_worker_free(&cw->light);
        for (size_t h = 0; h < cw->nhow; h++)
            free(cw->how[h].biome_fallback);
    }
    free(j.workers);
    free(j.skip);
    free(j.order);
    world_scan_free(&scan);
    free(src_real);
    free(dst_real);
    return rc < 0 ? MC_EXIT_OK : rc;
}
