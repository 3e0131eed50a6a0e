/*
 * cmd_world_stats.c: `mcchunk world stats`: what a world is made of --
 * block states and biomes (every position, air included, so the counts add
 * up to the volume), block entities and entities by type -- over the whole
 * world or an --area, optionally per y level, biome, dimension or chunk
 * (--by). The ore-by-height table is `--by y --csv`.
 *
 * Counting never looks at a block twice and never makes a string per
 * block: a section's palette indices are unpacked once and counted per
 * palette entry (the whole section from the container's histogram when
 * nothing is grouped, per layer with --by y, per biome cell with --by
 * biome), then added into the worker's numeric table (world/stats.c).
 * Names -- block states exactly as `chunk blocks` prints them -- are made
 * once per distinct key at the end. A biome covers its 4x4x4 cell: 64
 * blocks, or 16 per layer of it with --by y.
 *
 * Chunks of 1.8-1.17 (Level.Sections) are not made into a column at all:
 * world/stats_raw.c walks their NBT bytes and counts each section's
 * Blocks/Data or Palette/BlockStates straight from them (the same counts,
 * which test_world_stats checks on every corpus chunk); whatever it does
 * not take exactly as the model reader would -- 1.18+ chunks, 1.17 custom
 * heights, odd sections -- and every chunk with --by biome (biomes by
 * position) go through the model reader as before. MCCHUNK_STATS_READER=
 * model sends every chunk there, =report says on stderr how many each
 * read (for the tests).
 *
 * Entities come from entities/ region files (1.17+) or the chunk's
 * Level.Entities (before), block entities from the chunk; with --by y or
 * biome they go by their position (an entity of a chunk that has no
 * terrain chunk goes to biome "none").
 *
 * --merge A.json B.json ... adds up outputs of --json (shards of one world,
 * or several worlds) and prints them in any of the formats.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "world/histogram.h"
#include "world/stats.h"
#include "world/stats_raw.h"
#include "world/subcommands.h"
#include "world/world.h"

enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV };

/* Counts of one (registry, group) in plain arrays indexed by state and
 * biome id: without grouping (or by dimension) nearly every count lands in
 * a few of these, an increment instead of a hash lookup. Named straight
 * into the result at the end (name_counts). */
typedef struct dense_counts {
    const mc_registry *reg;
    uint64_t group;
    uint64_t *blocks, *biomes;
    uint32_t nblocks, nbiomes;
} dense_counts;

#define MAX_DENSE 16

/* A worker's state. */
typedef struct stats_worker {
    dense_counts dense[MAX_DENSE];
    size_t ndense;
    dense_counts *cur;                      /* the column's, or NULL */
    world_stat_counter *counter;
    mc_chunknbt_cache *cache;
    stats_raw *raw;                         /* NULL: every chunk through the model reader */
    raw_chunk rc;
    uint64_t raw_chunks[2];                 /* read by stats_raw: [1] 1.8-1.12, [0] 1.13-1.17 */
    uint32_t raw_states[16 * MC_SECTION_BLOCKS], raw_counts[16 * MC_SECTION_BLOCKS]; /* a chunk's pairs */
    mc_nbt_doc *doc, *edoc;
    mc_buf nbt, ebuf;
    uint64_t chunks, regions, volume;
    uint16_t idx[MC_SECTION_BLOCKS];
    uint32_t vals[MC_SECTION_BLOCKS];
    uint32_t local_pal[MC_SECTION_BLOCKS];  /* a direct section's distinct values */
    uint32_t tally[64 * 256];               /* counts per (group slot, palette index) */
    uint32_t *biome_names;                  /* per biome id of the chunk's registry: interned name + 1 */
    size_t biome_names_cap;
    const mc_registry *biome_names_reg;
} stats_worker;

typedef struct stats_job {
    const world_opts *o;
    const world_scan *scan;
    world_stat_by by;
    stats_worker *workers;
} stats_job;

/* ------------------------------------------------------------ grouping */

static uint64_t chunk_group(int32_t x, int32_t z)
{
    return (uint64_t)(uint32_t)x << 32 | (uint32_t)z;
}

static uint64_t y_group(int32_t y)
{
    return (uint64_t)(int64_t)y;
}

/* The interned name of biome b of reg (as a group of --by biome). */
static uint32_t biome_group(stats_worker *w, const mc_registry *reg, uint32_t b)
{
    size_t n = mc_registry_biome_count(reg);
    if (w->biome_names_reg != reg || w->biome_names_cap < n) {
        free(w->biome_names);
        w->biome_names = calloc(n ? n : 1, sizeof *w->biome_names);
        w->biome_names_cap = w->biome_names ? n : 0;
        w->biome_names_reg = w->biome_names ? reg : NULL;
    }
    if (b < w->biome_names_cap && w->biome_names[b])
        return w->biome_names[b] - 1;
    const char *name = mc_registry_biome_name(reg, b);
    if (!name)
        name = "unknown";
    uint32_t id = world_stat_intern(w->counter, name, strlen(name));
    if (b < w->biome_names_cap && id != UINT32_MAX)
        w->biome_names[b] = id + 1;
    return id;
}

/* ------------------------------------------------------------- counting */

/* The dense table of (reg, group), made when new; NULL when there is no
 * room (or memory): the caller then counts through the hash table. */
static dense_counts *dense_for(stats_worker *w, const mc_registry *reg, uint64_t group)
{
    for (size_t i = 0; i < w->ndense; i++)
        if (w->dense[i].reg == reg && w->dense[i].group == group)
            return &w->dense[i];
    if (w->ndense == MAX_DENSE)
        return NULL;
    dense_counts *d = &w->dense[w->ndense];
    d->nblocks = mc_registry_state_count(reg);
    d->nbiomes = mc_registry_biome_count(reg);
    d->blocks = calloc(d->nblocks + 1, sizeof *d->blocks);
    d->biomes = calloc(d->nbiomes + 1, sizeof *d->biomes);
    if (!d->blocks || !d->biomes) {
        free(d->blocks);
        free(d->biomes);
        return NULL;
    }
    d->reg = reg;
    d->group = group;
    w->ndense++;
    return d;
}

/* Adds n to (reg, group, kind, value): a dense table when there is one. */
static bool tally(stats_worker *w, dense_counts *d, const mc_registry *reg, uint64_t group, int kind,
                  uint32_t value, uint64_t n)
{
    if (d && kind == STAT_BLOCK && value < d->nblocks) {
        d->blocks[value] += n;
        return true;
    }
    if (d && kind == STAT_BIOME && value < d->nbiomes) {
        d->biomes[value] += n;
        return true;
    }
    return world_stat_count(w->counter, reg, group, kind, value, n);
}

/* Frees the dense tables (their counts named or not needed). */
static void free_dense(stats_worker *w)
{
    for (size_t i = 0; i < w->ndense; i++) {
        free(w->dense[i].blocks);
        free(w->dense[i].biomes);
    }
    w->ndense = 0;
}

/* The section's block palette and each block's index in it (w->idx);
 * returns the palette length (1 for a single value: idx not filled). */
static size_t section_indices(stats_worker *w, const mc_container *c, const uint32_t **pal)
{
    size_t plen;
    const uint32_t *p = mc_container_palette(c, &plen);
    size_t nlongs;
    const uint64_t *longs = mc_container_longs(c, &nlongs);
    switch (mc_container_get_kind(c)) {
    case MC_CONTAINER_SINGLE:
        *pal = p;
        return 1;
    case MC_CONTAINER_INDIRECT:
        mc_bits_unpack_u16(longs, MC_SECTION_BLOCKS, mc_container_bits(c), MC_BITS_PADDED, w->idx);
        *pal = p;
        return plen;
    default:
        /* direct: make a local palette (values in first-seen order) */
        mc_bits_unpack_u32(longs, MC_SECTION_BLOCKS, mc_container_bits(c), MC_BITS_PADDED, w->vals);
        plen = 0;
        for (size_t i = 0; i < MC_SECTION_BLOCKS; i++) {
            size_t k = 0;
            /* (few distinct values per section even here: a short scan back) */
            while (k < plen && w->local_pal[k] != w->vals[i])
                k++;
            if (k == plen)
                w->local_pal[plen++] = w->vals[i];
            w->idx[i] = (uint16_t)k;
        }
        *pal = w->local_pal;
        return plen;
    }
}

/* Counts of a container's palette entries from its histogram (single:
 * the one value; direct containers: false, count them otherwise), times
 * `weight`, added under (reg, group, kind). */
static bool count_palette(stats_worker *w, const mc_registry *reg, uint64_t group, int kind, const mc_container *c,
                          uint64_t weight, bool *ok)
{
    size_t plen;
    const uint32_t *pal = mc_container_palette(c, &plen);
    if (mc_container_get_kind(c) == MC_CONTAINER_DIRECT)
        return false;
    if (mc_container_get_kind(c) == MC_CONTAINER_SINGLE) {
        *ok = tally(w, w->cur, reg, group, kind, pal[0], (uint64_t)c->rules.size * weight);
        return true;
    }
    uint32_t *t = w->tally; /* (an indirect palette has at most 256 entries) */
    memset(t, 0, plen * sizeof *t);
    if (!world_histogram_blocks(c, t))
        mc_container_histogram(c, t);
    for (size_t k = 0; k < plen && *ok; k++)
        if (t[k])
            *ok = tally(w, w->cur, reg, group, kind, pal[k], t[k] * weight);
    return true;
}

static bool count_blocks(stats_worker *w, stats_job *j, const mc_registry *reg, const mc_section *s, int32_t sy,
                         uint64_t group)
{
    bool ok = true;
    /* ungrouped within the section: the palette's histogram, no unpacking */
    if ((j->by == STAT_BY_NONE || j->by == STAT_BY_DIMENSION || j->by == STAT_BY_CHUNK) &&
        count_palette(w, reg, group, STAT_BLOCK, &s->blocks, 1, &ok))
        return ok;
    const uint32_t *pal;
    size_t plen = section_indices(w, &s->blocks, &pal);
    if (plen == 1 && mc_container_get_kind(&s->blocks) == MC_CONTAINER_SINGLE) {
        if (j->by == STAT_BY_Y) {
            for (int l = 0; l < 16 && ok; l++)
                ok = world_stat_count(w->counter, reg, y_group(sy * 16 + l), STAT_BLOCK, pal[0], 256);
        } else if (j->by == STAT_BY_BIOME) {
            for (int cell = 0; cell < 64 && ok; cell++)
                ok = world_stat_count(w->counter, reg,
                                      biome_group(w, reg, mc_container_get(&s->biomes, (size_t)cell)), STAT_BLOCK,
                                      pal[0], 64);
        } else {
            ok = tally(w, w->cur, reg, group, STAT_BLOCK, pal[0], MC_SECTION_BLOCKS);
        }
        return ok;
    }
    if (plen > 256 && j->by == STAT_BY_BIOME) {
        /* a direct section with very many states, by biome: one by one */
        for (size_t i = 0; i < MC_SECTION_BLOCKS && ok; i++) {
            size_t cell = ((i >> 10) << 4) | (((i >> 6) & 3) << 2) | ((i >> 2) & 3);
            ok = world_stat_count(w->counter, reg, biome_group(w, reg, mc_container_get(&s->biomes, cell)),
                                  STAT_BLOCK, pal[w->idx[i]], 1);
        }
        return ok;
    }
    if (j->by == STAT_BY_Y) {
        for (int l = 0; l < 16 && ok; l++) {
            uint32_t *t = w->tally;
            memset(t, 0, plen * sizeof *t);
            for (size_t i = (size_t)l * 256; i < (size_t)l * 256 + 256; i++)
                t[w->idx[i]]++;
            for (size_t k = 0; k < plen && ok; k++)
                if (t[k])
                    ok = world_stat_count(w->counter, reg, y_group(sy * 16 + l), STAT_BLOCK, pal[k], t[k]);
        }
        return ok;
    }
    if (j->by == STAT_BY_BIOME) {
        /* tally per (cell's biome slot, palette index) */
        uint32_t bslot_of[64], bval[64], nb = 0;
        for (uint32_t cell = 0; cell < 64; cell++) {
            uint32_t b = mc_container_get(&s->biomes, cell), k = 0;
            while (k < nb && bval[k] != b)
                k++;
            if (k == nb)
                bval[nb++] = b;
            bslot_of[cell] = k;
        }
        memset(w->tally, 0, (size_t)nb * 256 * sizeof *w->tally);
        for (size_t i = 0; i < MC_SECTION_BLOCKS; i++) {
            size_t cell = ((i >> 10) << 4) | (((i >> 6) & 3) << 2) | ((i >> 2) & 3);
            w->tally[bslot_of[cell] * 256 + w->idx[i]]++;
        }
        for (uint32_t b = 0; b < nb && ok; b++)
            for (size_t k = 0; k < plen && ok; k++)
                if (w->tally[b * 256 + k])
                    ok = world_stat_count(w->counter, reg, biome_group(w, reg, bval[b]), STAT_BLOCK, pal[k],
                                          w->tally[b * 256 + k]);
        return ok;
    }
    uint32_t *t = w->tally; /* (plen <= 4096 < its size) */
    memset(t, 0, plen * sizeof *t);
    if (mc_container_get_kind(&s->blocks) == MC_CONTAINER_INDIRECT) {
        if (!world_histogram_blocks(&s->blocks, t))
            mc_container_histogram(&s->blocks, t);
    } else {
        for (size_t i = 0; i < MC_SECTION_BLOCKS; i++)
            t[w->idx[i]]++;
    }
    for (size_t k = 0; k < plen && ok; k++)
        if (t[k])
            ok = tally(w, w->cur, reg, group, STAT_BLOCK, pal[k], t[k]);
    return ok;
}

static bool count_biomes(stats_worker *w, stats_job *j, const mc_registry *reg, const mc_section *s, int32_t sy,
                         uint64_t group)
{
    bool ok = true;
    /* each cell is 64 blocks */
    if ((j->by == STAT_BY_NONE || j->by == STAT_BY_DIMENSION || j->by == STAT_BY_CHUNK) &&
        count_palette(w, reg, group, STAT_BIOME, &s->biomes, 64, &ok))
        return ok;
    for (uint32_t cell = 0; cell < 64 && ok; cell++) {
        uint32_t b = mc_container_get(&s->biomes, cell);
        if (j->by == STAT_BY_Y) {
            int32_t y0 = sy * 16 + (int32_t)(cell >> 4) * 4;
            for (int l = 0; l < 4 && ok; l++)
                ok = world_stat_count(w->counter, reg, y_group(y0 + l), STAT_BIOME, b, 16);
        } else {
            uint64_t g = j->by == STAT_BY_BIOME ? biome_group(w, reg, b) : group;
            ok = j->by == STAT_BY_BIOME ? world_stat_count(w->counter, reg, g, STAT_BIOME, b, 64)
                                        : tally(w, w->cur, reg, g, STAT_BIOME, b, 64);
        }
    }
    return ok;
}

/* The group of a thing at absolute (x, y, z) of column col (may be NULL). */
static uint64_t place_group(stats_worker *w, stats_job *j, const mc_column *col, uint64_t group, double x, double y,
                            double z)
{
    if (j->by == STAT_BY_Y)
        return y_group((int32_t)floor(y));
    if (j->by != STAT_BY_BIOME)
        return group;
    if (!col)
        return world_stat_intern(w->counter, "none", 4);
    int32_t bx = (int32_t)floor(x), by = (int32_t)floor(y), bz = (int32_t)floor(z);
    uint32_t b = mc_column_get_biome(col, (bx & 15) >> 2, by >> 2, (bz & 15) >> 2);
    return biome_group(w, mc_column_registry(col), b);
}

/* The "id" of an entity or block entity compound ("unknown" without). */
static uint32_t id_of(stats_worker *w, const mc_nbt_tag *t)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(t, "id"), &s, &n) != MC_OK)
        s = "unknown", n = 7;
    return world_stat_intern(w->counter, s, n);
}

static bool count_entity_list(stats_worker *w, stats_job *j, const mc_column *col, const mc_nbt_tag *list,
                              uint64_t group)
{
    bool ok = true;
    for (mc_nbt_tag *e = mc_nbt_first(list); e && ok; e = mc_nbt_next(e)) {
        double p[3] = {0, 0, 0};
        mc_nbt_tag *pos = mc_nbt_get(e, "Pos");
        for (size_t k = 0; k < 3 && pos; k++)
            mc_nbt_get_double(mc_nbt_list_at(pos, k), &p[k]);
        ok = world_stat_count(w->counter, NULL, place_group(w, j, col, group, p[0], p[1], p[2]), STAT_ENTITY,
                              id_of(w, e), 1);
    }
    return ok;
}

static bool count_column(stats_worker *w, stats_job *j, mc_column *col, uint64_t group)
{
    const mc_registry *reg = mc_column_registry(col);
    bool ok = true;
    /* plain arrays when the group is one of a few (see dense_counts) */
    w->cur = j->by == STAT_BY_NONE || j->by == STAT_BY_DIMENSION ? dense_for(w, reg, group) : NULL;
    for (uint32_t i = 0; i < mc_column_section_count(col) && ok; i++) {
        const mc_section *s = mc_column_section_at(col, i);
        int32_t sy = mc_column_min_section(col) + (int32_t)i;
        ok = count_blocks(w, j, reg, s, sy, group) && count_biomes(w, j, reg, s, sy, group);
    }
    w->volume += (uint64_t)mc_column_height(col) * 256;
    size_t nbe = mc_column_block_entity_count(col);
    for (size_t i = 0; i < nbe && ok; i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(col, i, &x, &y, &z);
        ok = world_stat_count(w->counter, NULL, place_group(w, j, col, group, x, y, z), STAT_BLOCK_ENTITY,
                              id_of(w, t), 1);
    }
    return ok;
}

/* ------------------------------------------------ 1.8-1.17, from bytes */

/* A chunk read by stats_raw (never with --by biome): blocks per section
 * (per layer with --by y), biomes per cell, block entities. RAW_DECLINED
 * when a section turns out to be for the model reader (nothing counted:
 * sections are checked before anything is added). */
static raw_result count_raw_blocks(stats_worker *w, stats_job *j, const raw_chunk *c, uint64_t group)
{
    const bool by_y = j->by == STAT_BY_Y;
    uint32_t ends[16][16], total = 0;
    /* the sections' counts first (a declined one leaves the counters as
     * they were), then added up */
    for (int y = 0; y < 16; y++)
        if (c->have >> y & 1) {
            uint32_t *end = ends[y];
            raw_result rr = stats_raw_blocks(w->raw, c, y, by_y, w->raw_states + total, w->raw_counts + total, end);
            if (rr != RAW_OK)
                return rr;
            for (int l = 0; l < (by_y ? 16 : 1); l++)
                end[l] += total;
            total = end[by_y ? 15 : 0]; /* (at most 4096 a section) */
        }
    const mc_registry *reg = c->reg;
    const uint32_t air = mc_registry_air(reg);
    bool ok = true;
    uint32_t at = 0;
    for (int y = 0; y < 16 && ok; y++) {
        for (int l = 0; l < (by_y ? 16 : 1) && ok; l++) {
            const uint64_t g = by_y ? y_group(y * 16 + l) : group;
            dense_counts *d = by_y ? NULL : w->cur;
            if (!(c->have >> y & 1)) {
                ok = tally(w, d, reg, g, STAT_BLOCK, air, by_y ? 256 : MC_SECTION_BLOCKS);
                continue;
            }
            for (; at < ends[y][l] && ok; at++)
                ok = tally(w, d, reg, g, STAT_BLOCK, w->raw_states[at], w->raw_counts[at]);
        }
    }
    return ok ? RAW_OK : RAW_NOMEM;
}

/* Whether the 8 cells c[0..8) all hold biome b (four 64-bit compares). */
static inline bool same_cells(const uint32_t *c, uint32_t b)
{
    const uint64_t b2 = b * 0x0000000100000001ull;
    uint64_t w[4];
    memcpy(w, c, sizeof w);
    return ((w[0] ^ b2) | (w[1] ^ b2) | (w[2] ^ b2) | (w[3] ^ b2)) == 0;
}

static bool count_raw_biomes(stats_worker *w, stats_job *j, const raw_chunk *c, uint64_t group)
{
    bool ok = true;
    uint32_t run_biome = 0;
    uint64_t run = 0; /* blocks of run_biome not yet counted */
    for (int y = 0; y < 16 && ok; y++) {
        const uint32_t *cells = c->biomes[c->biomes_same ? 0 : y];
        if (j->by == STAT_BY_Y) {
            /* per band of 4 layers (16 cells), by runs of one biome */
            for (uint32_t cell = 0; cell < 64 && ok;) {
                const uint32_t b = cells[cell], band_end = (cell | 15) + 1;
                uint32_t n = 0;
                for (; cell < band_end && cells[cell] == b; cell++)
                    n++;
                for (int l = 0; l < 4 && ok; l++)
                    ok = world_stat_count(w->counter, c->reg, y_group(y * 16 + (int)((band_end - 1) >> 4) * 4 + l),
                                          STAT_BIOME, b, 16 * n);
            }
            continue;
        }
        if (c->biomes_same && y)
            break; /* every section the same: counted 16 times below */
        /* by runs of one biome (most cells have their neighbours' biome),
         * a run going on into the next section */
        const uint64_t times = c->biomes_same ? 16 : 1;
        for (uint32_t cell = 0; cell < 64 && ok; cell++) {
            if (!(cell & 7) && same_cells(cells + cell, run_biome)) {
                run += 8 * 64 * times; /* eight cells of the run's biome at once */
                cell += 7;
                continue;
            }
            if (cells[cell] == run_biome) {
                run += 64 * times;
                continue;
            }
            ok = !run || tally(w, w->cur, c->reg, group, STAT_BIOME, run_biome, run);
            run_biome = cells[cell];
            run = 64 * times;
        }
    }
    return ok && (!run || tally(w, w->cur, c->reg, group, STAT_BIOME, run_biome, run));
}

typedef struct raw_place {
    stats_worker *w;
    stats_job *j;
    uint64_t group;
} raw_place;

static bool count_raw_block_entity(void *user, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z)
{
    raw_place *p = user;
    return world_stat_count(p->w->counter, NULL, place_group(p->w, p->j, NULL, p->group, x, y, z), STAT_BLOCK_ENTITY,
                            id_of(p->w, t), 1);
}

/* The chunk nbt[0..len) through stats_raw: RAW_DECLINED (nothing counted)
 * sends it to the model reader. */
static raw_result count_raw(stats_worker *w, stats_job *j, const uint8_t *nbt, size_t len, uint64_t group)
{
    raw_chunk *c = &w->rc;
    raw_result rr = stats_raw_scan(w->raw, nbt, len, c);
    if (rr != RAW_OK)
        return rr;
    w->cur = j->by == STAT_BY_NONE || j->by == STAT_BY_DIMENSION ? dense_for(w, c->reg, group) : NULL;
    if ((rr = count_raw_blocks(w, j, c, group)) != RAW_OK)
        return rr;
    raw_place place = {w, j, group};
    const mc_nbt_tag *ents = c->data_version < 2681 ? mc_nbt_get(c->level, "Entities") : NULL;
    if (!count_raw_biomes(w, j, c, group) || !stats_raw_block_entities(c, count_raw_block_entity, &place) ||
        (ents && !count_entity_list(w, j, NULL, ents, group)))
        return RAW_NOMEM;
    w->volume += 16 * MC_SECTION_BLOCKS;
    w->raw_chunks[c->legacy]++;
    return RAW_OK;
}

static bool key_is(const char *k, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(k, lit, n);
}

static bool keep_entities(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                          size_t key_len)
{
    (void)user;
    return depth == 1 ? key_is(key, key_len, "Level") : key_is(parent, parent_len, "Level") &&
                                                             key_is(key, key_len, "Entities");
}

/* Whether the chunk's bytes may hold a non-empty list named "Entities":
 * false only when every place the bytes of such a list's head occur (tag
 * 9, name length 8, "Entities", element type) says 0 elements -- the real
 * Level.Entities, when there is one, is among those places, so false means
 * it is empty or absent. Most chunks have no entities: this search over
 * the bytes (no parse) lets them skip the parse below. */
static bool may_have_entities(const uint8_t *nbt, size_t len)
{
    static const uint8_t head[] = {9, 0, 8, 'E', 'n', 't', 'i', 't', 'i', 'e', 's'};
    if (len < sizeof head)
        return false;
    const uint8_t *p = nbt + 3, *end = nbt + len;
    /* (memchr on the name's first byte, then the whole head: C11 has no memmem) */
    while ((p = memchr(p, 'E', (size_t)(end - p))) != NULL) {
        const uint8_t *h = p - 3, *count = h + sizeof head + 1; /* after the element type */
        p++;
        if ((size_t)(end - h) < sizeof head || memcmp(h, head, sizeof head))
            continue;
        if (end - count < 4 || count[0] | count[1] | count[2] | count[3])
            return true;
    }
    return false;
}

/* Before 1.17 (20w45a, DataVersion 2681) entities are in the chunk, as
 * Level.Entities: read from the chunk's bytes by a parse that keeps only
 * those (the column was read without its extra keys). */
static bool count_chunk_entities(stats_worker *w, stats_job *j, const mc_column *col, uint64_t group)
{
    if (!may_have_entities(w->nbt.data, w->nbt.len))
        return true;
    mc_nbt_filter f = {2, keep_entities, NULL, NULL, false};
    mc_error err;
    mc_nbt_doc_reset(w->edoc);
    if (mc_nbt_parse_filtered(w->edoc, w->nbt.data, w->nbt.len, MC_NBT_JAVA, 0, &f, NULL, NULL, &err) != MC_OK)
        return true; /* (the chunk read: this cannot fail but for memory) */
    mc_nbt_tag *list = mc_nbt_path(mc_nbt_doc_root(w->edoc), "Level.Entities");
    return !list || count_entity_list(w, j, col, list, group);
}

/* The entities record of chunk (lx, lz) in `ents` (may be NULL). */
static bool count_entities_record(stats_worker *w, stats_job *j, mc_region *ents, int lx, int lz,
                                  const mc_column *col, uint64_t group)
{
    if (!ents || !mc_region_has_chunk(ents, lx, lz))
        return true;
    mc_error err;
    w->ebuf.len = 0;
    mc_nbt_doc_reset(w->edoc);
    if (mc_region_read_chunk(ents, lx, lz, &w->ebuf, NULL, &err) != MC_OK ||
        mc_nbt_parse(w->edoc, w->ebuf.data, w->ebuf.len, MC_NBT_JAVA, NULL, &err) != MC_OK)
        return true; /* (verify's business) */
    return count_entity_list(w, j, col, mc_nbt_get(mc_nbt_doc_root(w->edoc), "Entities"), group);
}

static mc_region *open_kind(stats_job *j, const world_task *t, mc_region_kind kind, int *rc)
{
    char path[4200];
    mc_error err;
    mc_region *r = NULL;
    if (!t->has[kind])
        return NULL;
    if (world_task_path(j->scan, j->o->dir, t, kind, path, sizeof path, &err) != MC_OK ||
        mc_region_open(path, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", j->o->prog, err.message);
        *rc = MC_EXIT_FAIL;
        return NULL;
    }
    return r;
}

static int stats_task(void *user, int worker, size_t ti)
{
    stats_job *j = user;
    stats_worker *w = &j->workers[worker];
    const world_task *t = &j->scan->tasks[ti];
    int rc = MC_EXIT_OK;
    mc_region *reg = open_kind(j, t, MC_REGION_KIND_REGION, &rc);
    mc_region *ents = open_kind(j, t, MC_REGION_KIND_ENTITIES, &rc);
    w->regions++;
    for (int i = 0; i < 1024 && rc == MC_EXIT_OK; i++) {
        int lx = i & 31, lz = i >> 5;
        int32_t cx = t->rx * 32 + lx, cz = t->rz * 32 + lz;
        bool has = reg && mc_region_has_chunk(reg, lx, lz);
        if ((!has && !(ents && mc_region_has_chunk(ents, lx, lz))) || !world_in_area(j->o, cx, cz))
            continue;
        if (world_stop_requested()) {
            rc = MC_EXIT_FAIL;
            break;
        }
        uint64_t group = j->by == STAT_BY_DIMENSION ? t->dim : j->by == STAT_BY_CHUNK ? chunk_group(cx, cz) : 0;
        mc_column *col = NULL;
        mc_error err;
        raw_result raw = RAW_DECLINED;
        if (has) {
            w->nbt.len = 0;
            if (mc_region_read_chunk(reg, lx, lz, &w->nbt, NULL, &err) != MC_OK) {
                fprintf(stderr, "%s: chunk %d %d: %s\n", j->o->prog, (int)cx, (int)cz, err.message);
                rc = MC_EXIT_FAIL;
                break;
            }
            if (w->raw && (raw = count_raw(w, j, w->nbt.data, w->nbt.len, group)) == RAW_NOMEM) {
                fprintf(stderr, "%s: out of memory\n", j->o->prog);
                rc = MC_EXIT_FAIL;
                break;
            }
        }
        if (has && raw == RAW_OK) {
            w->chunks++;
            world_count_chunks(1);
        } else if (has) {
            mc_chunknbt_options opt = {0};
            /* blocks, biomes and block entities only */
            opt.flags = MC_CHUNKNBT_NO_LIGHT | MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
            opt.cache = w->cache;
            opt.doc = w->doc;
            if (mc_chunknbt_read_bytes(w->nbt.data, w->nbt.len, &opt, &col, &err) != MC_OK) {
                fprintf(stderr, "%s: chunk %d %d: %s\n", j->o->prog, (int)cx, (int)cz, err.message);
                rc = MC_EXIT_FAIL;
                break;
            }
            w->chunks++;
            world_count_chunks(1);
            if (!count_column(w, j, col, group) ||
                (mc_chunknbt_column_data_version(col) < 2681 && !count_chunk_entities(w, j, col, group)))
                rc = MC_EXIT_FAIL;
        }
        if (rc == MC_EXIT_OK && !count_entities_record(w, j, ents, lx, lz, col, group))
            rc = MC_EXIT_FAIL;
        mc_column_free(col);
    }
    mc_region_close(reg);
    mc_region_close(ents);
    return rc;
}

/* ------------------------------------------------------------- naming */

/* Block state text identities (mc_registry_state_text_id) -> the name's
 * id in the result: a world saved by several versions holds the same
 * states under several registries (and --by y names a state once per
 * level), and each text is formatted and hashed once. Open addressing,
 * linear probing, identity 0 = empty slot, grown at half full. */
typedef struct text_ids {
    uint64_t *ids;
    uint32_t *names;
    size_t cap, used;
} text_ids;

static uint64_t id_hash(uint64_t z) /* (splitmix64's finalizer) */
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t text_ids_find(const text_ids *t, uint64_t id)
{
    for (size_t k = t->cap ? id_hash(id) & (t->cap - 1) : 0; t->cap && t->ids[k]; k = (k + 1) & (t->cap - 1))
        if (t->ids[k] == id)
            return t->names[k];
    return UINT32_MAX;
}

/* Adds id -> name (not there yet); out of memory it just is not kept. */
static void text_ids_put(text_ids *t, uint64_t id, uint32_t name)
{
    if ((t->used + 1) * 2 > t->cap) {
        text_ids n = {calloc(t->cap ? t->cap * 2 : 4096, sizeof *n.ids), NULL, t->cap ? t->cap * 2 : 4096, 0};
        n.names = n.ids ? malloc(n.cap * sizeof *n.names) : NULL;
        if (!n.names) {
            free(n.ids);
            return;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->ids[i])
                text_ids_put(&n, t->ids[i], t->names[i]);
        free(t->ids);
        free(t->names);
        *t = n;
    }
    size_t k = id_hash(id) & (t->cap - 1);
    while (t->ids[k])
        k = (k + 1) & (t->cap - 1);
    t->ids[k] = id;
    t->names[k] = name;
    t->used++;
}

typedef struct naming {
    text_ids *ids;
    world_stat_result *res;
    const world_scan *scan;
    const world_stat_counter *counter;  /* for --by biome's group names */
    world_stat_by by;
    bool ok;
} naming;

static void group_text(const naming *nm, uint64_t group, char *out, size_t n, int64_t *order)
{
    *order = 0;
    const char *s;
    switch (nm->by) {
    case STAT_BY_Y:
        *order = (int64_t)group;
        snprintf(out, n, "%" PRId64, (int64_t)group);
        break;
    case STAT_BY_BIOME:
        s = group <= UINT32_MAX ? world_stat_string(nm->counter, (uint32_t)group) : NULL;
        snprintf(out, n, "%s", s ? s : "unknown");
        break;
    case STAT_BY_DIMENSION:
        *order = (int64_t)group;
        snprintf(out, n, "%s", group < nm->scan->ndims ? nm->scan->dims[group] : "?");
        break;
    case STAT_BY_CHUNK:
        snprintf(out, n, "%d,%d", (int)(int32_t)(group >> 32), (int)(int32_t)(uint32_t)group);
        break;
    default:
        out[0] = 0;
    }
}

/* The id in nm->res of block state `value`'s text: through nm->ids when
 * the state has a text identity, else formatted ("#N" when invalid). */
static uint32_t state_name(naming *nm, const mc_registry *reg, uint32_t value)
{
    const uint64_t tid = mc_registry_state_text_id(reg, value);
    uint32_t id = tid ? text_ids_find(nm->ids, tid) : UINT32_MAX;
    if (id != UINT32_MAX)
        return id;
    char text[512];
    if (!mc_registry_format_state(reg, value, text, sizeof text, MC_FORMAT_SORTED))
        snprintf(text, sizeof text, "#%u", value);
    id = world_stat_name_id(nm->res, text, strlen(text));
    if (tid && id != UINT32_MAX)
        text_ids_put(nm->ids, tid, id);
    return id;
}

static void add_named(void *user, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                      const char *name, uint64_t n)
{
    naming *nm = user;
    char g[600];
    uint32_t id;
    if (kind == STAT_BLOCK) {
        id = state_name(nm, reg, value);
    } else {
        if (kind == STAT_BIOME && !(name = mc_registry_biome_name(reg, value)))
            name = "unknown";
        id = world_stat_name_id(nm->res, name, strlen(name));
    }
    int64_t order;
    bool ok = id != UINT32_MAX && world_stat_add_id(nm->res, NULL, 0, kind, id, n);
    if (nm->by != STAT_BY_NONE) {
        group_text(nm, group, g, sizeof g, &order);
        ok = ok && world_stat_add_id(nm->res, g, order, kind, id, n);
    }
    nm->ok &= ok;
}

/* Names a worker's counts into res: the dense tables' straight from
 * them (not moved into the counter first: with many distinct states that
 * grew its hash table to megabytes of fresh pages, a third of the run's
 * page faults), then the counter's. A key in both is added twice, which
 * world_stat_add sums. */
static bool name_counts(text_ids *ids, world_stat_result *res, const world_scan *scan, world_stat_by by,
                        stats_worker *w)
{
    naming nm = {ids, res, scan, w->counter, by, true};
    for (size_t i = 0; i < w->ndense; i++) {
        const dense_counts *d = &w->dense[i];
        for (uint32_t v = 0; v < d->nblocks; v++)
            if (d->blocks[v])
                add_named(&nm, d->reg, d->group, STAT_BLOCK, v, NULL, d->blocks[v]);
        for (uint32_t v = 0; v < d->nbiomes; v++)
            if (d->biomes[v])
                add_named(&nm, d->reg, d->group, STAT_BIOME, v, NULL, d->biomes[v]);
    }
    free_dense(w);
    world_stat_each(w->counter, add_named, &nm);
    world_stat_add_meta(res, w->chunks, w->regions, w->volume);
    return nm.ok;
}

/* ----------------------------------------------------------------- main */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk world stats DIR [--by y|biome|dimension|chunk] [--json|--csv] [options]\n"
            "       mcchunk world stats [--by ...] [--json|--csv] --merge A.json B.json ...\n\n"
            "Counts what world DIR is made of: every block state (as `chunk blocks` prints\n"
            "it: minecraft:name[k=v,...], properties sorted; air included, so the counts add\n"
            "up to the volume), biomes (per block: each biome cell is 64 blocks), block\n"
            "entities and entities by id (entities/ files for 1.17+, the chunk's entities\n"
            "before). Text: each kind, largest counts first. --json: one object {\"chunks\",\n"
            "\"regions\", \"volume\", \"blocks\": {state: count}, \"biomes\", \"block_entities\",\n"
            "\"entities\"}, with --by also \"by\" and \"groups\": {group: {...}}; keys sorted.\n"
            "--csv: 'kind,name,count' rows (with --by: 'GROUP,kind,name,count'). Names in\n"
            "each kind's own form; a chunk that cannot be read fails the run.\n"
            "  --by y          per block y (the ore-distribution table: --by y --csv)\n"
            "  --by biome      per biome (blocks, block entities, entities by position)\n"
            "  --by dimension  per dimension     --by chunk   per chunk ('X,Z')\n"
            "  --json, --csv   the output format (default: text)\n"
            "  --merge FILE... add up the --json outputs FILE... (of shards: --shard K/N,\n"
            "                  or of several worlds) instead of reading a world; their --by\n"
            "                  must be the one given\n"
            "options:\n");
    world_help_options(out, WORLD_OPT_AREA | WORLD_OPT_DIMENSION);
    fprintf(out, "memory: peak about 16 MB + 8 MB per thread plus the distinct keys counted\n"
                 "(a few MB; with --by chunk it grows with the chunks), whatever the size of\n"
                 "the world\n"
                 "exit status: 0 ok, 1 a chunk or file could not be read (or a merge input is not\n"
                 "`world stats --json` output), 2 usage error\n");
}

static int merge_files(const char *prog, world_stat_result *res, int n, char **files)
{
    for (int i = 0; i < n; i++) {
        uint8_t *data = NULL;
        size_t len = 0;
        if (!mc_tool_read_input(prog, files[i], &data, &len))
            return MC_EXIT_FAIL;
        mc_error err;
        mc_error_clear(&err);
        mc_status st = world_stat_merge_json(res, data, len, &err);
        free(data);
        if (st) {
            fprintf(stderr, "%s: %s: %s\n", prog, files[i], err.message);
            return st == MC_ERR_INVALID_ARG ? MC_EXIT_USAGE : MC_EXIT_FAIL;
        }
    }
    return MC_EXIT_OK;
}

static void print_result(const world_stat_result *res, int format)
{
    if (format == FORMAT_JSON)
        world_stat_print_json(res, stdout);
    else if (format == FORMAT_CSV)
        world_stat_print_csv(res, stdout);
    else {
        printf("%" PRIu64 " chunks in %" PRIu64 " regions, %" PRIu64 " blocks\n", world_stat_chunks(res),
               world_stat_regions(res), world_stat_volume(res));
        world_stat_print_text(res, stdout, 0);
    }
}

static int count_world(world_opts *o, world_stat_by by, world_stat_result *res)
{
    world_scan scan;
    int rc = world_scan_build(o, 1u << MC_REGION_KIND_REGION | 1u << MC_REGION_KIND_ENTITIES, &scan);
    if (rc)
        return rc;
    int threads = world_threads(o);
    /* 1.8-1.17 chunks from their bytes (stats_raw.c) but with --by biome
     * (which looks biomes up by position in the column); see the top */
    const char *reader = getenv("MCCHUNK_STATS_READER");
    const bool raw_reader = by != STAT_BY_BIOME && !(reader && !strcmp(reader, "model"));
    stats_job j = {o, &scan, by, calloc((size_t)threads, sizeof(stats_worker))};
    bool ok = j.workers != NULL;
    for (int w = 0; ok && w < threads; w++) {
        stats_worker *sw = &j.workers[w];
        sw->counter = world_stat_counter_new();
        sw->cache = mc_chunknbt_cache_new(NULL);
        sw->doc = mc_nbt_doc_new(NULL);
        sw->edoc = mc_nbt_doc_new(NULL);
        sw->raw = raw_reader && sw->cache ? stats_raw_new(sw->cache) : NULL;
        mc_buf_init(&sw->nbt, NULL);
        mc_buf_init(&sw->ebuf, NULL);
        ok = sw->counter && sw->cache && sw->doc && sw->edoc && (sw->raw || !raw_reader);
    }
    rc = MC_EXIT_FAIL;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", o->prog);
    } else {
        world_job job = {o->prog, scan.count, threads, world_progress_wanted(o), stats_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        rc = MC_EXIT_OK;
        uint64_t legacy = 0, flat = 0, all = 0;
        for (int w = 0; w < threads; w++) {
            legacy += j.workers[w].raw_chunks[1];
            flat += j.workers[w].raw_chunks[0];
            all += j.workers[w].chunks;
        }
        if (reader && !strcmp(reader, "report"))
            fprintf(stderr, "%s: chunks read from their bytes: %" PRIu64 " 1.8-1.12, %" PRIu64 " 1.13-1.17; %" PRIu64
                    " by the model reader\n", o->prog, legacy, flat, all - legacy - flat);
        text_ids ids = {0};
        for (int w = 0; w < threads; w++)
            if (!name_counts(&ids, res, &scan, by, &j.workers[w])) {
                fprintf(stderr, "%s: out of memory\n", o->prog);
                rc = MC_EXIT_FAIL;
            }
        free(ids.ids);
        free(ids.names);
        if (out.interrupted) {
            fprintf(stderr, "%s: interrupted after %zu of %zu regions; nothing printed\n", o->prog, out.done,
                    scan.count);
            rc = MC_EXIT_FAIL;
        } else if (out.failed) {
            rc = MC_EXIT_FAIL;
        }
    }
    for (int w = 0; j.workers && w < threads; w++) {
        stats_worker *sw = &j.workers[w];
        world_stat_counter_free(sw->counter);
        stats_raw_free(sw->raw);
        mc_chunknbt_cache_free(sw->cache);
        mc_nbt_doc_free(sw->doc);
        mc_nbt_doc_free(sw->edoc);
        mc_buf_free(&sw->nbt);
        mc_buf_free(&sw->ebuf);
        free(sw->biome_names);
        free_dense(sw); /* (what naming did not) */
    }
    free(j.workers);
    world_scan_free(&scan);
    return rc;
}

int world_cmd_stats(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world stats"};
    world_stat_by by = STAT_BY_NONE;
    int format = FORMAT_TEXT;
    bool merge = false;
    char **merge_files_list = calloc((size_t)argc, sizeof *merge_files_list);
    int nmerge = 0;
    if (!merge_files_list) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
        return MC_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(merge_files_list);
            return MC_EXIT_OK;
        }
        int r = world_parse_option(&o, WORLD_OPT_AREA | WORLD_OPT_DIMENSION, argc, argv, &i);
        if (r < 0) {
            free(merge_files_list);
            return -r;
        }
        if (r)
            continue;
        if (!strcmp(a, "--json") || !strcmp(a, "--csv")) {
            format = a[2] == 'j' ? FORMAT_JSON : FORMAT_CSV;
        } else if (!strcmp(a, "--by")) {
            if (i + 1 >= argc || !world_stat_by_parse(argv[i + 1], &by)) {
                fprintf(stderr, "%s: --by is y, biome, dimension or chunk\n", o.prog);
                free(merge_files_list);
                return MC_EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--merge")) {
            merge = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: unknown option %s\n", o.prog, a);
            free(merge_files_list);
            return MC_EXIT_USAGE;
        } else if (merge) {
            merge_files_list[nmerge++] = argv[i]; /* every word after --merge that is not an option */
        } else if (o.dir) {
            fprintf(stderr, "%s: one world folder only (%s, then %s)\n", o.prog, o.dir, a);
            free(merge_files_list);
            return MC_EXIT_USAGE;
        } else {
            o.dir = a;
        }
    }
    int rc = MC_EXIT_OK;
    if (merge && (o.dir || !nmerge)) {
        fprintf(stderr, "%s: --merge takes the JSON files to add up (after it), and no world folder\n", o.prog);
        rc = MC_EXIT_USAGE;
    } else if (!merge && !o.dir) {
        fprintf(stderr, "%s: needs a world folder (or --merge FILE...)\n\n", o.prog);
        usage(stderr);
        rc = MC_EXIT_USAGE;
    } else if (o.dir && !mc_tool_is_dir(o.dir)) {
        fprintf(stderr, "%s: %s is not a folder\n", o.prog, o.dir);
        rc = MC_EXIT_FAIL;
    }
    world_stat_result *res = rc ? NULL : world_stat_result_new(by);
    if (!rc && !res) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
        rc = MC_EXIT_FAIL;
    }
    if (rc) {
        free(merge_files_list);
        return rc;
    }
    rc = merge ? merge_files(o.prog, res, nmerge, merge_files_list) : count_world(&o, by, res);
    free(merge_files_list);
    if (rc == MC_EXIT_OK)
        print_result(res, format);
    world_stat_result_free(res);
    return rc;
}
