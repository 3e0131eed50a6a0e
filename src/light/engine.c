/*
 * engine.c: the light engine: flood fills through a grid of the nine
 * columns, only over the rows and from the sources that can change the
 * centre column's light.
 *
 * A full relight (mc_light_column) works like this:
 *  1. Sky light falls straight down at 15 to the "top" of each block column
 *     (blocks.c finds it from the sections, most of which are uniform).
 *     Light that reaches the centre column comes at most 14 blocks, so the
 *     only rows where sky light is anything but 15 above the tops and 0
 *     below them lie between the lowest (top - 15 + distance to the centre
 *     column) and the highest top: the sky band.
 *  2. Block light comes from emitters whose luminance exceeds their distance
 *     to the centre column; each reaches (luminance - distance - 1) rows up
 *     and down.
 *  3. The rows of the sky band and of the emitters' reaches form runs; each
 *     run gets a grid (one kind byte and a sky and a block light byte per
 *     block, the nine columns whole with a wall round them), is flooded, and
 *     its rows of the centre column are written; every other row is
 *     constant (sky 15 above the band, 0 below; block 0).
 *  4. Sky: each block column starts with what falling alone gives it (15
 *     above its top, then one less per block, or the block's opacity, till
 *     0), and only blocks that would brighten a neighbour sideways are
 *     queued (cliff sides, the edges of overhangs, trees): a lake or a flat
 *     field queues nothing.
 *  5. The flood takes a queue per level from 15 down (a block is final the
 *     first time it comes out), and never sets a block whose new level does
 *     not exceed its distance to the centre column: that light could not
 *     reach the centre, so most of the neighbours is never visited.
 *
 * A run whose blocks all have opacity 0, 1 or 15 (real terrain: nearly
 * every run) is flooded instead by bitflood.c, as level sets over
 * bitsets, with the same result in the centre column (test_light_bits
 * checks it at every position); the queue floods (fill_grid, sky_fall,
 * sky_seeds, flood) take the other runs and mc_light_update.
 *
 * Light moves by the rule of light.h: into the next block at the level less
 * max(1, that block's opacity), none across a face that a block's shape
 * covers, and sky light at 15 down into a block of opacity 0 stays 15.
 *
 * mc_light_update clears everything within 14 blocks of the changed box
 * (the whole height: sky light falls down shafts), keeps the stored light
 * of the ring just beyond as sources, re-adds the cleared part's own
 * sources and floods: the ring's light is right whatever order the columns
 * round a change are updated in, which the classic take-away-then-re-add
 * queue (it needs the old light of every column at once) cannot promise.
 */
#include "light/blocks.h"

#include "bits/bits_private.h"

#include <stdlib.h>
#include <string.h>
#ifdef MC_HAVE_AVX512_KERNELS
#include <immintrin.h>
#endif

#define MARGIN 14 /* how far light that reaches a column can come from */
#define GX(lx) ((lx) + 17)
#define ROW MC__GRID_ROW
#define PLANE MC__GRID_PLANE

/* ---------------------------------------------------------------- memory */

static void *xalloc(mc_light_engine *e, size_t n)
{
    return e->alloc.alloc(e->alloc.user, n);
}

static void xfree(mc_light_engine *e, void *p, size_t n)
{
    if (p)
        e->alloc.free(e->alloc.user, p, n);
}

mc_light_engine *mc_light_engine_new(const mc_allocator *alloc)
{
    alloc = mc_alloc_or_default(alloc);
    mc_light_engine *e = alloc->alloc(alloc->user, sizeof *e);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->alloc = *alloc;
    mc__light_bits_init(e);
    memset(e->dist, 255, sizeof e->dist);
    for (int32_t lz = -16; lz < 32; lz++)
        for (int32_t lx = -16; lx < 32; lx++)
            e->dist[GX(lz) * ROW + GX(lx)] = (uint8_t)mc__light_dist(lx, lz);
    mc__light_near_init(e);
    return e;
}

static void free_grid(mc_light_engine *e)
{
    const size_t n = e->grid_rows * PLANE;
    xfree(e, e->kind, n);
    xfree(e, e->sky, n);
    xfree(e, e->blk, n);
    e->kind = e->sky = e->blk = NULL;
    e->grid_rows = 0;
}

void mc_light_engine_free(mc_light_engine *e)
{
    if (!e)
        return;
    mc_light_batch_end(e);
    for (unsigned i = 0; i < e->ntabs; i++)
        mc__light_table_free(&e->tabs[i], &e->alloc);
    free_grid(e);
    mc__light_bits_free(e);
    for (int i = 0; i < 16; i++)
        xfree(e, e->q[i].v, e->q[i].cap * sizeof(uint32_t));
    for (size_t i = 0; i < e->pool_len; i++)
        xfree(e, e->pool[i], MC__SLICE_BYTES);
    xfree(e, e->pool, e->pool_cap * sizeof *e->pool);
    for (size_t i = 0; i < e->spare_len; i++)
        xfree(e, e->spare[i], MC__SLICE_BYTES);
    xfree(e, e->spare, e->spare_cap * sizeof *e->spare);
    xfree(e, e->slices, e->slices_cap * sizeof *e->slices);
    xfree(e, e->emit, e->emit_cap * sizeof *e->emit);
    xfree(e, e->rows, e->rows_cap * sizeof *e->rows);
    mc_allocator a = e->alloc;
    a.free(a.user, e, sizeof *e);
}

mc_status mc_light_batch_begin(mc_light_engine *e, size_t max_columns)
{
    if (!e)
        return MC_ERR_INVALID_ARG;
    mc_light_batch_end(e);
    const size_t cap = max_columns == 0 ? 128 : max_columns < 16 ? 16 : max_columns;
    mc__col_entry *b = xalloc(e, cap * sizeof *b);
    if (!b)
        return MC_ERR_NOMEM;
    memset(b, 0, cap * sizeof *b);
    e->batch = b;
    e->batch_cap = cap;
    return MC_OK;
}

void mc_light_forget(mc_light_engine *e, const mc_column *col)
{
    for (size_t i = 0; e && col && i < e->batch_cap; i++)
        if (e->batch[i].col == col)
            mc__light_entry_clear(e, &e->batch[i]);
}

void mc_light_batch_end(mc_light_engine *e)
{
    if (!e || !e->batch)
        return;
    for (size_t i = 0; i < e->batch_cap; i++)
        if (e->batch[i].col)
            mc__light_entry_clear(e, &e->batch[i]);
    xfree(e, e->batch, e->batch_cap * sizeof *e->batch);
    e->batch = NULL;
    e->batch_cap = 0;
}

static bool grow_grid(mc_light_engine *e, size_t rows)
{
    if (rows <= e->grid_rows)
        return true;
    free_grid(e);
    const size_t n = rows * PLANE;
    e->kind = xalloc(e, n);
    e->sky = xalloc(e, n);
    e->blk = xalloc(e, n);
    if (!e->kind || !e->sky || !e->blk) {
        xfree(e, e->kind, n);
        xfree(e, e->sky, n);
        xfree(e, e->blk, n);
        e->kind = e->sky = e->blk = NULL;
        return false;
    }
    e->grid_rows = rows;
    return true;
}

/* Appends v; false when memory runs out (the caller fails the call). */
static bool qpush_slow(mc_light_engine *e, mc__qvec *q, uint32_t v)
{
    uint32_t *v2 = mc__light_grow(e, q->v, &q->cap, q->len + 1, sizeof *q->v, 4096);
    if (!v2)
        return false;
    q->v = v2;
    q->v[q->len++] = v;
    return true;
}

static inline bool qpush(mc_light_engine *e, mc__qvec *q, uint32_t v)
{
    if (q->len < q->cap) {
        q->v[q->len++] = v;
        return true;
    }
    return qpush_slow(e, q, v);
}

/* ---------------------------------------------------------------- tables */

static const mc__light_table *table_for(mc_light_engine *e, const mc_registry *reg)
{
    for (unsigned i = 0; i < e->ntabs; i++)
        if (e->tabs[i].reg == reg)
            return &e->tabs[i];
    unsigned slot = e->ntabs < MC__LIGHT_MAX_TABLES ? e->ntabs++ : (e->next_tab++ % MC__LIGHT_MAX_TABLES);
    if (e->tabs[slot].info)
        mc__light_table_free(&e->tabs[slot], &e->alloc);
    if (mc__light_table_build(&e->tabs[slot], reg, &e->alloc) != MC_OK) {
        memset(&e->tabs[slot], 0, sizeof e->tabs[slot]);
        return NULL;
    }
    return &e->tabs[slot];
}

unsigned mc_light_emission(mc_light_engine *e, const mc_registry *reg, uint32_t state)
{
    const mc__light_table *t = e && reg ? table_for(e, reg) : NULL;
    return t && state < t->count && mc_registry_state_valid(reg, state) ? t->info[state] >> 4 : 0;
}

unsigned mc_light_opacity(mc_light_engine *e, const mc_registry *reg, uint32_t state)
{
    const mc__light_table *t = e && reg ? table_for(e, reg) : NULL;
    return t && state < t->count && mc_registry_state_valid(reg, state) ? t->info[state] & 15u : 0;
}

/* ------------------------------------------------------------------ grid */

static inline size_t cell(int32_t gx, int32_t gz, int32_t gy)
{
    return (size_t)gy * PLANE + (size_t)gz * ROW + (size_t)gx;
}

static inline int32_t floor16(int32_t y)
{
    return y >= 0 ? y / 16 : -((15 - y) / 16);
}

/* Sets the grid up for the rows ya..yb (absolute) and fills its kinds. */
static bool fill_grid(mc_light_engine *e, int32_t ya, int32_t yb)
{
    e->ylo = ya;
    e->gh = yb - ya + 3;
    if (!grow_grid(e, (size_t)e->gh))
        return false;
    memset(e->kind, MC__KIND_WALL, PLANE);
    memset(e->kind + (size_t)(e->gh - 1) * PLANE, MC__KIND_WALL, PLANE);
    for (int w = 0; w < 2; w++) { /* the floods read the light of a wall before they see it is one */
        memset((w ? e->sky : e->blk), 0, PLANE);
        memset((w ? e->sky : e->blk) + (size_t)(e->gh - 1) * PLANE, 0, PLANE);
    }
    for (int32_t gy = 1; gy < e->gh - 1; gy++) {
        memset(e->kind + cell(0, 0, gy), MC__KIND_WALL, 50);
        memset(e->kind + cell(0, 49, gy), MC__KIND_WALL, 50);
        for (int32_t gz = 1; gz < 49; gz++) {
            e->kind[cell(0, gz, gy)] = MC__KIND_WALL;
            e->kind[cell(49, gz, gy)] = MC__KIND_WALL;
        }
    }
    for (int c = 0; c < 9; c++) {
        const int32_t gx0 = 1 + (c % 3) * 16, gz0 = 1 + (c / 3) * 16;
        for (int32_t sy = floor16(ya); sy <= floor16(yb); sy++) {
            const int32_t k = sy - e->min_sy, y0 = ya > sy * 16 ? ya : sy * 16, y1 = yb < sy * 16 + 15 ? yb : sy * 16 + 15;
            const mc__slice *sl = NULL;
            int fill = MC__KIND_WALL; /* an absent column */
            if (e->cols[c]) {
                fill = 0; /* the air below and above the world */
                if (k >= 0 && (uint32_t)k < e->nsec) {
                    if (!(sl = mc__light_slice(e, c, (uint32_t)k, true)))
                        return false;
                    if (sl->uniform >= 0) {
                        fill = sl->uniform;
                        sl = NULL;
                    }
                }
            }
            for (int32_t y = y0; y <= y1; y++) {
                uint8_t *dst = e->kind + cell(gx0, gz0, y - ya + 1);
                if (sl) {
                    const uint8_t *src = sl->kinds + ((y & 15) << 8);
                    for (int32_t z = 0; z < 16; z++)
                        memcpy(dst + z * ROW, src + z * 16, 16);
                } else {
                    for (int32_t z = 0; z < 16; z++)
                        memset(dst + z * ROW, fill, 16);
                }
            }
        }
    }
    return true;
}

/* -------------------------------------------------------------- flooding */

enum { DOWN, UP, NORTH, SOUTH, WEST, EAST };
static const ptrdiff_t step[6] = {-PLANE, PLANE, -ROW, ROW, -1, 1};
static const uint8_t face_bit[6] = {MC__FACE_DOWN, MC__FACE_UP, MC__FACE_NORTH, MC__FACE_SOUTH,
                                    MC__FACE_WEST, MC__FACE_EAST};
static const uint8_t face_opp[6] = {MC__FACE_UP, MC__FACE_DOWN, MC__FACE_SOUTH, MC__FACE_NORTH,
                                    MC__FACE_EAST, MC__FACE_WEST};

/* Moves light from block i (level lvl, shape faces fi, plane position p,
 * grid row gy) to its neighbour in direction d: sets and queues that
 * neighbour when the light it gets is brighter than what it has and than
 * its distance to the centre column (light no brighter than that cannot
 * reach the centre). False when the queue cannot grow. Inlined with d a
 * constant, so that a plain neighbour (kind = opacity) costs no table. */
static MC__LIGHT_INLINE bool relax(mc_light_engine *e, uint8_t *L, bool sky, uint32_t i, uint32_t p, int32_t gy, unsigned fi,
                         int lvl, int d)
{
    static const int32_t pstep[6] = {0, 0, -ROW, ROW, -1, 1};
    const uint32_t j = (uint32_t)((ptrdiff_t)i + step[d]);
    if (((unsigned)L[j] >= (unsigned)lvl - (sky && d == DOWN && lvl == 15 ? 0u : 1u)) || (fi & face_bit[d]))
        return true; /* as bright as this can make it */
    const unsigned kj = e->kind[j];
    unsigned o = kj;
    if (kj >= MC__KIND_PLAIN) {
        const mc__light_kinds *K = &e->tab->kinds;
        if (K->faces[kj] & face_opp[d])
            return true;
        o = K->opacity[kj];
    }
    const int nl = (sky && d == DOWN && lvl == 15 && o == 0) ? 15 : lvl - (o > 1 ? (int)o : 1);
    if (nl <= (int)e->dist[(int32_t)p + pstep[d]] || nl <= (int)L[j])
        return true; /* cannot reach the centre column, or no brighter */
    if ((d == UP && gy == e->below_top) || (d == DOWN && gy == e->above_bottom))
        return true; /* out of the world and back: see light.h */
    L[j] = (uint8_t)nl;
    return nl < 2 || qpush(e, &e->q[nl], j);
}

/* Floods `L` from the queued blocks, brightest first. */
static bool flood(mc_light_engine *e, uint8_t *L, bool sky)
{
    const mc__light_kinds *K = &e->tab->kinds;
    e->below_top = e->min_y - 1 - e->ylo + 1;
    e->above_bottom = e->min_y + (int32_t)e->height - e->ylo + 1;
    for (int lvl = 15; lvl >= 2; lvl--) {
        mc__qvec *q = &e->q[lvl];
        for (size_t n = 0; n < q->len; n++) { /* may grow while we read (sky at 15 going down) */
            const uint32_t i = q->v[n];
            if (L[i] != (unsigned)lvl)
                continue; /* raised since it was queued: it is in a brighter queue */
            const int32_t gy = (int32_t)(i / PLANE);
            const uint32_t p = i - (uint32_t)gy * PLANE;
            const unsigned ki = e->kind[i], fi = ki >= MC__KIND_PLAIN ? K->faces[ki] : 0;
            if (!relax(e, L, sky, i, p, gy, fi, lvl, DOWN) || !relax(e, L, sky, i, p, gy, fi, lvl, UP) ||
                !relax(e, L, sky, i, p, gy, fi, lvl, NORTH) || !relax(e, L, sky, i, p, gy, fi, lvl, SOUTH) ||
                !relax(e, L, sky, i, p, gy, fi, lvl, WEST) || !relax(e, L, sky, i, p, gy, fi, lvl, EAST))
                return false;
        }
        q->len = 0;
    }
    return true;
}

static void clear_queues(mc_light_engine *e)
{
    for (int i = 0; i < 16; i++)
        e->q[i].len = 0;
}

/* ------------------------------------------------------------------- sky */

/* Sky light as falling alone gives it, in the block columns gx0..gx1-1,
 * gz0..gz1-1: 15 from the top of the grid down to the column's top, then
 * less by max(1, opacity) per block until it is 0 or a shape stops it.
 * The 15s and 0s a row of 16 at a time against the tops as grid rows. */
static void sky_fall(mc_light_engine *e, int32_t gx0, int32_t gx1, int32_t gz0, int32_t gz1, int32_t ylo,
                     int32_t yhi)
{
    const mc__light_kinds *K = &e->tab->kinds;
    uint8_t toprow[64 * 49]; /* grid row of each top, clamped to 0..255 */
    for (int32_t gz = gz0; gz < gz1; gz++)
        for (int32_t gx = 0; gx < 64; gx++) {
            const int32_t t = gx >= 1 && gx < 49 ? e->top[(gz - 1) * 48 + gx - 1] : MC__TOP_NONE;
            const int64_t r = t == MC__TOP_NONE ? 255 : (int64_t)t - e->ylo + 1;
            toprow[gz * 64 + gx] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        }
    /* the whole grid (walls too: the seeds look at whole rows) or a part */
    const bool whole = gx0 == 1 && gx1 == 49 && gz0 == 1 && gz1 == 49;
    const int32_t wx0 = whole ? 0 : gx0, wx1 = whole ? 64 : gx1;
    const int32_t gy0 = ylo - e->ylo + 1 > 1 ? ylo - e->ylo + 1 : 1;
    const int32_t gy1 = yhi - e->ylo + 1 < e->gh - 2 ? yhi - e->ylo + 1 : e->gh - 2;
    for (int32_t gy = gy0; gy <= gy1; gy++) {
        const mc__row16 row_gy = mc__row_splat(gy < 255 ? (unsigned)gy : 255);
        if (whole) {
            memset(e->sky + cell(0, 0, gy), 0, ROW);
            memset(e->sky + cell(0, 49, gy), 0, ROW);
        }
        for (int32_t gz = gz0; gz < gz1; gz++) {
            uint8_t row[64];
            for (int32_t x = wx0 & ~15; x < wx1; x += 16) {
                /* 15 where gy >= the top's row (a row past 254 is compared below) */
                const mc__row16 t = mc__row_load(toprow + gz * 64 + x);
                const mc__row16 lit = mc__row_and(mc__row_ge(row_gy, t), mc__row_splat(15));
                memcpy(row + x, &lit, 16);
            }
            if (gy >= 255) /* a run taller than the rows a byte holds (worlds over 4000 high) */
                for (int32_t gx = gx0; gx < gx1; gx++)
                    row[gx] = e->ylo + gy - 1 >= e->top[(gz - 1) * 48 + gx - 1] ? 15 : 0;
            if (whole) /* a constant size: stores, not a call */
                memcpy(e->sky + cell(0, gz, gy), row, ROW);
            else
                memcpy(e->sky + cell(wx0, gz, gy), row + wx0, (size_t)(wx1 - wx0));
        }
    }
    for (int32_t gz = gz0; gz < gz1; gz++)
        for (int32_t gx = gx0; gx < gx1; gx++) {
            const int32_t t = e->top[(gz - 1) * 48 + gx - 1];
            if (e->dist[gz * ROW + gx] > MARGIN || t == MC__TOP_NONE || t - e->ylo + 1 < 2 ||
                t - e->ylo + 1 > e->gh - 2)
                continue; /* light there cannot reach the centre column */
            size_t i = cell(gx, gz, t - e->ylo + 1);
            const int d = e->dist[gz * ROW + gx];
            unsigned ki = e->kind[i];
            for (int v = 15;;) {
                const size_t j = i - PLANE;
                const unsigned kj = e->kind[j];
                unsigned o = kj;
                if ((ki | kj) >= MC__KIND_PLAIN) { /* a shape, a wall or a light source: the tables */
                    if (kj == MC__KIND_WALL || (K->faces[ki] & MC__FACE_DOWN) || (K->faces[kj] & MC__FACE_UP))
                        break;
                    o = K->opacity[kj];
                }
                v -= o > 1 ? (int)o : 1;
                if (v <= d)
                    break; /* no light that reaches the centre column */
                e->sky[j] = (uint8_t)v;
                i = j;
                ki = kj;
            }
        }
}

/* Whether sky light v in block i (plane position p, shape faces fi) would
 * brighten its neighbour in direction d past that one's distance to the
 * centre column. */
static MC__LIGHT_INLINE bool brightens(const mc_light_engine *e, size_t i, uint32_t p, unsigned fi, unsigned v, int d)
{
    static const int32_t pstep[6] = {0, 0, -ROW, ROW, -1, 1};
    const size_t j = (size_t)((ptrdiff_t)i + step[d]);
    if (e->sky[j] + 1u >= v || (fi & face_bit[d]))
        return false; /* it gets at most v - 1 */
    const unsigned kj = e->kind[j];
    unsigned o = kj;
    if (kj >= MC__KIND_PLAIN) {
        if (e->tab->kinds.faces[kj] & face_opp[d])
            return false;
        o = e->tab->kinds.opacity[kj];
    }
    const int nl = (int)v - (o > 1 ? (int)o : 1);
    return nl > (int)e->dist[(int32_t)p + pstep[d]] && nl > (int)e->sky[j];
}

/* Queues the blocks of the block columns gx0..gx1-1, gz0..gz1-1 whose sky
 * light (as sky_fall left it) would brighten a neighbour sideways (the 15s
 * beside a column whose top is higher, the water and leaves under the top
 * at the edges of a lake or a tree): rows of 16 blocks at a time are
 * screened for a block brighter than some neighbour plus one, and only
 * those are looked at. A lake or a flat field queues nothing. */
static bool sky_seeds(mc_light_engine *e, int32_t gx0, int32_t gx1, int32_t gz0, int32_t gz1, int32_t ylo,
                      int32_t yhi)
{
    static const int dirs[4] = {NORTH, SOUTH, WEST, EAST};
    const mc__light_kinds *K = &e->tab->kinds;
    const mc__row16 one = mc__row_splat(1);
    const int32_t gy0 = ylo - e->ylo + 1 > 1 ? ylo - e->ylo + 1 : 1;
    const int32_t gy1 = yhi - e->ylo + 1 < e->gh - 2 ? yhi - e->ylo + 1 : e->gh - 2;
    for (int32_t gy = gy0; gy <= gy1; gy++)
        for (int32_t gz = gz0; gz < gz1; gz++) {
            const uint8_t *row = e->sky + cell(0, gz, gy);
            for (int32_t x = gx0; x < gx1; x += 16) {
                const mc__row16 v = mc__row_load(row + x);
                if (!mc__row_any(mc__row_gt(v, one)))
                    continue; /* dark or 1: brightens nothing (the lower part of the band) */
                mc__row16 lower = mc__row_gt(v, mc__row_add(mc__row_load(row + x - 1), one));
                lower = mc__row_or(lower, mc__row_gt(v, mc__row_add(mc__row_load(row + x + 1), one)));
                lower = mc__row_or(lower, mc__row_gt(v, mc__row_add(mc__row_load(row + x - ROW), one)));
                lower = mc__row_or(lower, mc__row_gt(v, mc__row_add(mc__row_load(row + x + ROW), one)));
                lower = mc__row_and(lower, mc__row_gt(v, mc__row_load(e->dist + gz * ROW + x)));
                unsigned lanes = mc__row_bits(lower);
                if (x + 16 > gx1)
                    lanes &= (1u << (gx1 - x)) - 1;
                while (lanes) {
                    const int32_t k = mc__lowest_bit(lanes);
                    lanes &= lanes - 1;
                    const size_t i = cell(x + k, gz, gy);
                    const unsigned lv = row[x + k], ki = e->kind[i], fi = ki >= MC__KIND_PLAIN ? K->faces[ki] : 0;
                    for (int d = 0; d < 4; d++)
                        if (brightens(e, i, (uint32_t)(gz * ROW + x + k), fi, lv, dirs[d])) {
                            if (!qpush(e, &e->q[lv], (uint32_t)i))
                                return false;
                            break;
                        }
                }
            }
        }
    return true;
}

/* ------------------------------------------------------------ block light */

/* Puts the blocks of e->emit that lie in the grid's rows into blk. */
static bool block_seeds(mc_light_engine *e)
{
    for (size_t k = 0; k < e->nemit; k++) {
        const mc__emitter *m = &e->emit[k];
        const int32_t gy = m->y - e->ylo + 1;
        if (gy < 1 || gy > e->gh - 2)
            continue;
        for (unsigned lanes = m->lanes; lanes; lanes &= lanes - 1) {
            const size_t i = cell(GX(m->lx + mc__lowest_bit(lanes)), GX(m->lz), gy);
            if (e->blk[i] >= m->level)
                continue;
            e->blk[i] = m->level;
            if (m->level >= 2 && !qpush(e, &e->q[m->level], (uint32_t)i))
                return false;
        }
    }
    return true;
}

/* ----------------------------------------------------------- write back */

/* Packs a layer of the grid's light (16 rows of 16 from src, a grid row
 * apart) into the 128 bytes of a light array's layer: two blocks a byte,
 * the even x low. SSE2: two rows at a time, each 16-bit lane (x even in its
 * low byte, odd in its high byte) folded to one byte; MCCHUNK_PORTABLE
 * builds take the loop. */
static void put_layer(const uint8_t *src, uint8_t *out)
{
#if defined(__SSE2__) && !defined(MC_PORTABLE)
    const __m128i low = _mm_set1_epi16(0x00FF), high = _mm_set1_epi16(0x00F0);
    for (int32_t z = 0; z < 16; z += 2) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + z * ROW));
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + (z + 1) * ROW));
        const __m128i pa = _mm_or_si128(_mm_and_si128(a, low), _mm_and_si128(_mm_srli_epi16(a, 4), high));
        const __m128i pb = _mm_or_si128(_mm_and_si128(b, low), _mm_and_si128(_mm_srli_epi16(b, 4), high));
        _mm_storeu_si128((__m128i *)(void *)(out + z * 8), _mm_packus_epi16(pa, pb));
    }
#else
    for (int32_t z = 0; z < 16; z++)
        for (int32_t x = 0; x < 8; x++)
            out[z * 8 + x] = (uint8_t)(src[z * ROW + 2 * x] | src[z * ROW + 2 * x + 1] << 4);
#endif
}

/* Writes rows y0..y1 (absolute, inside section sy) of the grid's L into a
 * light array, for the centre column's x0..x1, z0..z1. */
static void put_rows(const mc_light_engine *e, const uint8_t *L, uint8_t *arr, int32_t sy, int32_t y0, int32_t y1,
                     int32_t x0, int32_t x1, int32_t z0, int32_t z1)
{
    for (int32_t y = y0; y <= y1; y++) {
        const int32_t gy = y - e->ylo + 1;
        const unsigned ry = (unsigned)(y - sy * 16);
        if (!L) { /* the bit floods' planes (always whole layers) */
            mc__light_bits_put_layer(e, gy, arr + (ry << 7));
            continue;
        }
        if (x0 == 0 && x1 == 15 && z0 == 0 && z1 == 15) { /* a whole layer */
            put_layer(L + cell(GX(0), GX(0), gy), arr + (ry << 7));
            continue;
        }
        for (int32_t z = z0; z <= z1; z++) {
            const uint8_t *src = L + cell(GX(0), GX(z), gy);
            if (x0 == 0 && x1 == 15) { /* a whole row: two blocks a byte */
                uint8_t *out = arr + (ry << 7 | (unsigned)z << 3);
                for (int32_t x = 0; x < 8; x++)
                    out[x] = (uint8_t)(src[2 * x] | src[2 * x + 1] << 4);
                continue;
            }
            for (int32_t x = x0; x <= x1; x++)
                mc_light_set(arr, mc_block_index((unsigned)x, ry, (unsigned)z), src[x]);
        }
    }
}

/* Sets rows y0..y1 of section sy of a light array to `level` for x0..x1,
 * z0..z1. */
static void put_level(uint8_t *arr, int32_t sy, int32_t y0, int32_t y1, int32_t x0, int32_t x1, int32_t z0,
                      int32_t z1, unsigned level)
{
    for (int32_t y = y0; y <= y1; y++) {
        const unsigned ry = (unsigned)(y - sy * 16);
        if (x0 == 0 && x1 == 15 && z0 == 0 && z1 == 15) {
            memset(arr + (ry << 7), (int)(level * 17), 128);
            continue;
        }
        for (int32_t z = z0; z <= z1; z++)
            for (int32_t x = x0; x <= x1; x++)
                mc_light_set(arr, mc_block_index((unsigned)x, ry, (unsigned)z), level);
    }
}

/* The light array of `what` (one of MC_LIGHT_SKY, MC_LIGHT_BLOCK) of the
 * centre column's section sy, where sy may be the section below or above
 * the world (the engine's edge arrays). Allocated when absent; NULL when
 * that fails. */
static uint8_t *centre_array(mc_light_engine *e, mc_column *col, int32_t sy, unsigned what)
{
    static const uint8_t zero[MC_LIGHT_BYTES];
    const bool sky = what == MC_LIGHT_SKY;
    if (sy < e->min_sy || sy >= e->min_sy + (int32_t)e->nsec)
        return e->edge[(sky ? 0 : 2) + (sy >= e->min_sy)];
    mc_section *s = mc_column_section(col, sy);
    uint8_t **dst = sky ? &s->sky_light : &s->block_light;
    if (!*dst && (sky ? mc_section_set_sky_light(s, zero) : mc_section_set_block_light(s, zero)) != MC_OK)
        return NULL;
    return *dst;
}

/* Writes the grid's rows ya..yb (absolute; the edge sections included) of
 * light `what` into the centre column's box x0..x1, z0..z1; rows above
 * the grid get open sky (sky light 15, block light 0). */
static mc_status write_rows(mc_light_engine *e, mc_column *col, unsigned what, int32_t ya, int32_t yb, int32_t x0,
                            int32_t x1, int32_t z0, int32_t z1, mc_error *err)
{
    const uint8_t *L = e->bits_out ? NULL : what == MC_LIGHT_SKY ? e->sky : e->blk;
    const int32_t grid_top = e->ylo + e->gh - 3;
    for (int32_t sy = floor16(ya); sy <= floor16(yb); sy++) {
        uint8_t *arr = centre_array(e, col, sy, what);
        if (!arr)
            return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for a light array");
        const int32_t y0 = ya > sy * 16 ? ya : sy * 16, y1 = yb < sy * 16 + 15 ? yb : sy * 16 + 15;
        if (y0 <= grid_top)
            put_rows(e, L, arr, sy, y0, y1 < grid_top ? y1 : grid_top, x0, x1, z0, z1);
        if (y1 > grid_top)
            put_level(arr, sy, y0 > grid_top ? y0 : grid_top + 1, y1, x0, x1, z0, z1, what == MC_LIGHT_SKY ? 15 : 0);
    }
    return MC_OK;
}

bool mc_light_edges(const mc_light_engine *e, uint8_t *sky_below, uint8_t *sky_above, uint8_t *block_below,
                    uint8_t *block_above)
{
    if (!e || ((sky_below || sky_above) && !e->edge_valid[0]) || ((block_below || block_above) && !e->edge_valid[1]))
        return false;
    uint8_t *dst[4] = {sky_below, sky_above, block_below, block_above};
    for (int i = 0; i < 4; i++)
        if (dst[i])
            memcpy(dst[i], e->edge[i], MC_LIGHT_BYTES);
    return true;
}

/* ------------------------------------------------------ the full relight */

/* Marks rows a..b (absolute, clipped to the world and its edge sections)
 * as needed: e->rows counts, per row, the intervals starting minus those
 * ending there. */
static void need_rows(mc_light_engine *e, int32_t a, int32_t b)
{
    const int32_t lo = e->min_y - 16, hi = e->min_y + (int32_t)e->height + 15;
    a = a < lo ? lo : a;
    b = b > hi ? hi : b;
    if (a > b)
        return;
    e->rows[a - lo]++;
    e->rows[b - lo + 1]--;
}

static bool rows_begin(mc_light_engine *e)
{
    const size_t n = (size_t)e->height + 33;
    int32_t *rows = mc__light_grow(e, e->rows, &e->rows_cap, 2 * n, sizeof *e->rows, 2 * n);
    if (!rows)
        return false;
    e->rows = rows;
    e->reach = rows + n;
    memset(e->rows, 0, n * sizeof *e->rows);
    memset(e->reach, 0xFF, n * sizeof *e->reach); /* -1: nothing shines from that row */
    return true;
}

#ifdef MC_HAVE_AVX512_KERNELS /* x86-64, GNU C, not MC_PORTABLE */
/* sky_band with AVX2: a row of a column eight blocks a step, those
 * farther than MARGIN from the centre column masked out. */
__attribute__((target("avx2"))) static void sky_band_avx2(const mc_light_engine *e, int32_t *lo, int32_t *hi)
{
    const __m256i reach = _mm256_set1_epi32(MARGIN + 1), fifteen = _mm256_set1_epi32(15);
    __m256i l = _mm256_set1_epi32(INT32_MAX), h = _mm256_set1_epi32(INT32_MIN);
    for (int c = 0; c < 9; c++) {
        if (!e->cols[c])
            continue; /* its tops are MC__TOP_NONE */
        const int32_t ox = (c % 3 - 1) * 16, gz0 = 1 + (c / 3) * 16;
        for (int32_t gz = gz0; gz < gz0 + 16; gz++) {
            const int32_t lz = gz - 17, dz = lz < 0 ? -lz : lz > 15 ? lz - 15 : 0;
            if (dz > MARGIN)
                continue; /* the whole row is too far */
            const uint8_t *dist = e->dist + gz * ROW + 17 + ox; /* by x in the column */
            const int32_t *top = e->top + (gz - 1) * 48 + 16 + ox;
            for (int32_t x = 0; x < 16; x += 8) {
                const __m256i d = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(dist + x)));
                const __m256i t = _mm256_loadu_si256((const __m256i *)(const void *)(top + x));
                const __m256i near = _mm256_cmpgt_epi32(reach, d);
                const __m256i cand = _mm256_sub_epi32(_mm256_add_epi32(t, d), fifteen);
                l = _mm256_blendv_epi8(l, _mm256_min_epi32(l, cand), near);
                h = _mm256_blendv_epi8(h, _mm256_max_epi32(h, t), near);
            }
        }
    }
    int32_t la[8], ha[8];
    _mm256_storeu_si256((__m256i *)(void *)la, l);
    _mm256_storeu_si256((__m256i *)(void *)ha, h);
    for (int i = 1; i < 8; i++) {
        la[0] = la[i] < la[0] ? la[i] : la[0];
        ha[0] = ha[i] > ha[0] ? ha[i] : ha[0];
    }
    *lo = la[0];
    *hi = ha[0];
}
#endif

/* The sky band: rows where sky light is neither 15 (above the tops) nor
 * 0 for every block that matters. A row of a column is looked at only
 * over its blocks within MARGIN of the centre column (one interval of x:
 * no test a block; with AVX2, sky_band_avx2). */
static void sky_band(const mc_light_engine *e, int32_t *lo, int32_t *hi)
{
#ifdef MC_HAVE_AVX512_KERNELS
    if (mc__bits_have_avx2()) {
        sky_band_avx2(e, lo, hi);
        return;
    }
#endif
    int32_t l = INT32_MAX, h = INT32_MIN;
    for (int c = 0; c < 9; c++) {
        if (!e->cols[c])
            continue; /* its tops are MC__TOP_NONE */
        const int32_t ox = (c % 3 - 1) * 16, gz0 = 1 + (c / 3) * 16;
        for (int32_t gz = gz0; gz < gz0 + 16; gz++) {
            const int32_t lz = gz - 17, dz = lz < 0 ? -lz : lz > 15 ? lz - 15 : 0, rem = MARGIN - dz;
            if (rem < 0)
                continue; /* the whole row is too far */
            const uint8_t *dist = e->dist + gz * ROW + 17; /* by local x */
            const int32_t *top = e->top + (gz - 1) * 48 + 16;
            const int32_t x0 = ox > -rem ? ox : -rem, x1 = ox + 15 < 15 + rem ? ox + 15 : 15 + rem;
            for (int32_t x = x0; x <= x1; x++) {
                const int32_t d = dist[x], t = top[x];
                l = t - 15 + d < l ? t - 15 + d : l;
                h = t > h ? t : h;
            }
        }
    }
    *lo = l;
    *hi = h;
}

/* The whole column's rows (and the edge sections') set to what they are
 * outside every run: sky 15 from `sky_hi` up and 0 below it, block 0. */
static mc_status put_constants(mc_light_engine *e, mc_column *col, unsigned what, int32_t sky_hi, mc_error *err)
{
    for (int32_t sy = e->min_sy - 1; sy <= e->min_sy + (int32_t)e->nsec; sy++)
        for (unsigned w = MC_LIGHT_SKY; w <= MC_LIGHT_BLOCK; w <<= 1) {
            uint8_t *arr = what & w ? centre_array(e, col, sy, w) : NULL;
            if (!(what & w))
                continue;
            if (!arr)
                return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for a light array");
            const bool lit = w == MC_LIGHT_SKY && sy * 16 >= sky_hi;
            memset(arr, lit ? 0xFF : 0, MC_LIGHT_BYTES);
            if (w == MC_LIGHT_SKY && !lit && sy * 16 + 15 >= sky_hi)
                put_level(arr, sy, sky_hi, sy * 16 + 15, 0, 15, 0, 15, 15);
        }
    return MC_OK;
}

static mc_status nomem(mc_error *err)
{
    return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the work area");
}

/* The rows the emitters of the run ya..yb reach, inside it: false when
 * none shines into the centre column from there. */
static bool block_rows(const mc_light_engine *e, int32_t ya, int32_t yb, int32_t *plo, int32_t *phi)
{
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    const int32_t base = e->min_y - 16, n = (int32_t)e->height + 32;
    for (int32_t y = ya; y <= yb; y++) {
        const int32_t reach = y - base >= 0 && y - base < n ? e->reach[y - base] : -1;
        if (reach < 0)
            continue;
        lo = y - reach < lo ? y - reach : lo;
        hi = y + reach > hi ? y + reach : hi;
    }
    *plo = lo < ya ? ya : lo;
    *phi = hi > yb ? yb : hi;
    return lo <= hi;
}

/* Lights one run of rows ya..yb with the bit floods (bitflood.c), whose
 * layers are prepared: MC_OK, or MC_ERR_UNSUPPORTED (nothing in err) when
 * a flood came to a block they do not model. */
static mc_status light_run_bits(mc_light_engine *e, mc_column *col, unsigned what, int32_t ya, int32_t yb,
                                int32_t sky_lo, int32_t sky_hi, mc_error *err)
{
    mc_status st = MC_OK;
    int32_t lo, hi;
    e->bits_out = true;
    if ((what & MC_LIGHT_SKY) && sky_lo >= ya && sky_hi <= yb) {
        const int done = mc__light_bits_sky(e, sky_lo, sky_hi);
        st = done < 0   ? nomem(err)
             : done == 0 ? MC_ERR_UNSUPPORTED
                         : write_rows(e, col, MC_LIGHT_SKY, sky_lo, sky_hi, 0, 15, 0, 15, err);
    }
    if (st == MC_OK && (what & MC_LIGHT_BLOCK) && block_rows(e, ya, yb, &lo, &hi)) {
        const int done = mc__light_bits_block(e);
        st = done < 0   ? nomem(err)
             : done == 0 ? MC_ERR_UNSUPPORTED
                         : write_rows(e, col, MC_LIGHT_BLOCK, lo, hi, 0, 15, 0, 15, err);
    }
    e->bits_out = false;
    return st;
}

/* Lights one run of rows ya..yb: with the bit floods unless they come to
 * a block they do not model, then (all of it again) with the queue floods. */
static mc_status light_run(mc_light_engine *e, mc_column *col, unsigned what, int32_t ya, int32_t yb, int32_t sky_lo,
                           int32_t sky_hi, mc_error *err)
{
    if (!e->exact_only) {
        if (mc__light_bits_prepare(e, ya, yb) < 0)
            return nomem(err);
        const mc_status st = light_run_bits(e, col, what, ya, yb, sky_lo, sky_hi, err);
        if (st != MC_ERR_UNSUPPORTED) {
            e->bw.runs_bits += st == MC_OK;
            return st;
        }
    }
    e->bw.runs_queue++;
    if (!fill_grid(e, ya, yb))
        return nomem(err);
    if ((what & MC_LIGHT_SKY) && sky_lo >= ya && sky_hi <= yb) {
        clear_queues(e);
        sky_fall(e, 1, 49, 1, 49, sky_lo - 1, sky_hi + 1); /* the flood stays in the band */
        if (!sky_seeds(e, 1, 49, 1, 49, sky_lo, sky_hi) || !flood(e, e->sky, true))
            return nomem(err);
        mc_status st = write_rows(e, col, MC_LIGHT_SKY, sky_lo, sky_hi, 0, 15, 0, 15, err);
        if (st != MC_OK)
            return st;
    }
    int32_t lo, hi;
    if ((what & MC_LIGHT_BLOCK) && block_rows(e, ya, yb, &lo, &hi)) { /* else dark: the constants hold */
        clear_queues(e);
        memset(e->blk + (size_t)(lo - ya) * PLANE, 0, (size_t)(hi - lo + 3) * PLANE); /* and a row either side */
        if (!block_seeds(e) || !flood(e, e->blk, false))
            return nomem(err);
        return write_rows(e, col, MC_LIGHT_BLOCK, lo, hi, 0, 15, 0, 15, err);
    }
    return MC_OK;
}

/* Sets the call up: the registry's table and the nine columns (with what
 * an open batch knows of them when use_batch). */
static mc_status begin(mc_light_engine *e, mc_column *col, const mc_column *const nb[8], bool use_batch,
                       mc_error *err)
{
    e->edge_valid[0] = e->edge_valid[1] = false;
    e->nomem = false;
    if (!(e->tab = table_for(e, mc_column_registry(col))))
        return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the state table");
    if (!mc__light_slices_begin(e, col, nb, use_batch))
        return nomem(err);
    return MC_OK;
}

mc_status mc_light_column(mc_light_engine *e, mc_column *col, const mc_column *const neighbours[8], unsigned what,
                          mc_error *err)
{
    if (!e || !col || !(what & MC_LIGHT_BOTH))
        return mc_error_set(err, MC_ERR_INVALID_ARG, 0, "light: engine, column and what are required");
    what &= MC_LIGHT_BOTH;
    mc_status st = begin(e, col, neighbours, true, err);
    if (st != MC_OK)
        return st;
    int32_t sky_lo = INT32_MAX, sky_hi = INT32_MIN;
    if (!rows_begin(e))
        return nomem(err);
    if (what & MC_LIGHT_SKY) {
        if (!mc__light_tops(e))
            return nomem(err);
        sky_band(e, &sky_lo, &sky_hi);
        need_rows(e, sky_lo, sky_hi);
        const int32_t lo = e->min_y - 16, hi = e->min_y + (int32_t)e->height + 15;
        sky_lo = sky_lo < lo ? lo : sky_lo; /* as the run will hold it */
        sky_hi = sky_hi > hi ? hi : sky_hi;
    }
    if (what & MC_LIGHT_BLOCK) {
        if (!mc__light_emitters(e, -16, 32, -16, 32) || !mc__light_bits_sort_emitters(e))
            return nomem(err);
        const int32_t base = e->min_y - 16;
        int32_t ylo = INT32_MAX, yhi = INT32_MIN;
        for (size_t k = 0; k < e->nemit; k++) { /* per row, the farthest any of its emitters reaches */
            const mc__emitter *m = &e->emit[k];
            const int32_t nearest = m->lx + (m->lx < 0 ? mc__highest_bit(m->lanes) : mc__lowest_bit(m->lanes));
            const int32_t reach = (int32_t)m->level - (int32_t)mc__light_dist_at(e, nearest, m->lz) - 1;
            int32_t *r = &e->reach[m->y - base];
            *r = reach > *r ? reach : *r;
            ylo = m->y < ylo ? m->y : ylo;
            yhi = m->y > yhi ? m->y : yhi;
        }
        for (int32_t y = ylo; y <= yhi; y++)
            if (e->reach[y - base] >= 0)
                need_rows(e, y - e->reach[y - base], y + e->reach[y - base]);
    } else {
        e->nemit = 0;
    }
    st = put_constants(e, col, what, sky_hi, err);
    /* the runs: maximal stretches of needed rows */
    const int32_t lo = e->min_y - 16, n = (int32_t)e->height + 32;
    int32_t depth = 0, start = 0;
    for (int32_t r = 0; r < n && st == MC_OK; r++) {
        const int32_t before = depth;
        depth += e->rows[r];
        if (!before && depth)
            start = r;
        if (depth && (r + 1 == n || !(depth + e->rows[r + 1])))
            st = light_run(e, col, what, lo + start, lo + r, sky_lo, sky_hi, err);
    }
    if (st == MC_OK && e->nomem)
        st = nomem(err);
    if (st == MC_OK) {
        e->edge_valid[0] = (what & MC_LIGHT_SKY) != 0;
        e->edge_valid[1] = (what & MC_LIGHT_BLOCK) != 0;
    }
    return st;
}

/* ----------------------------------------------------- incremental update */

/* Copies the stored light of the nine columns into the grid (an absent
 * array reads as 0; sky above the column is 15, below it 0), within the
 * local window x0..x1-1, z0..z1-1. */
static void load_light(mc_light_engine *e, uint8_t *L, bool sky, int32_t x0, int32_t x1, int32_t z0, int32_t z1)
{
    memset(L, 0, (size_t)e->gh * PLANE);
    for (int c = 0; c < 9; c++) {
        const mc_column *cc = e->cols[c];
        const int32_t ox = (c % 3 - 1) * 16, oz = (c / 3 - 1) * 16;
        const int32_t cx0 = x0 > ox ? x0 : ox, cx1 = x1 < ox + 16 ? x1 : ox + 16;
        const int32_t cz0 = z0 > oz ? z0 : oz, cz1 = z1 < oz + 16 ? z1 : oz + 16;
        if (!cc || cx0 >= cx1 || cz0 >= cz1)
            continue;
        for (int32_t gy = 1; gy < e->gh - 1; gy++) {
            const int32_t y = e->ylo + gy - 1, k = floor16(y) - e->min_sy;
            const bool above = k >= (int32_t)e->nsec;
            const uint8_t *src = NULL;
            if (k >= 0 && !above) {
                const mc_section *s = mc_column_section_const(cc, e->min_sy + k);
                src = sky ? s->sky_light : s->block_light;
            }
            for (int32_t z = cz0; z < cz1; z++) {
                uint8_t *dst = L + cell(GX(cx0), GX(z), gy);
                for (int32_t x = cx0; x < cx1; x++, dst++)
                    *dst = src ? (uint8_t)mc_light_get(src, mc_block_index((unsigned)(x - ox), (unsigned)(y & 15),
                                                                           (unsigned)(z - oz)))
                               : (above && sky) ? 15 : 0;
            }
        }
    }
}

/* The top of the highest section of the nine columns that is not all air,
 * plus a section (light from below reaches 14 blocks into it). */
static int32_t filled_top(mc_light_engine *e)
{
    int32_t top = e->min_y;
    for (int c = 0; c < 9; c++) {
        if (!e->cols[c])
            continue;
        for (int32_t k = (int32_t)e->nsec - 1; k >= 0; k--) {
            const int32_t end = (e->min_sy + k + 2) * 16;
            if (end <= top)
                break;
            const mc__slice *sl = mc__light_slice(e, c, (uint32_t)k, false);
            if (sl->uniform == 0)
                continue;
            top = end;
            break;
        }
    }
    return top;
}

mc_status mc_light_update(mc_light_engine *e, mc_column *col, const mc_column *const neighbours[8], int32_t x0,
                          int32_t y0, int32_t z0, int32_t x1, int32_t y1, int32_t z1, unsigned what, mc_error *err)
{
    if (!e || !col || !(what & MC_LIGHT_BOTH))
        return mc_error_set(err, MC_ERR_INVALID_ARG, 0, "light: engine, column and what are required");
    what &= MC_LIGHT_BOTH;
    const int32_t ymin = mc_column_min_y(col), ymax = ymin + (int32_t)mc_column_height(col) - 1;
    if (x0 < -16 || z0 < -16 || x1 > 31 || z1 > 31 || x0 > x1 || z0 > z1 || y0 > y1 || y0 < ymin || y1 > ymax)
        return mc_error_set(err, MC_ERR_RANGE, 0, "light: box %d..%d %d..%d %d..%d is outside the column",
                            (int)x0, (int)x1, (int)y0, (int)y1, (int)z0, (int)z1);
    for (uint32_t k = 0; k < mc_column_section_count(col); k++) {
        const mc_section *s = mc_column_section_at(col, k);
        if (((what & MC_LIGHT_SKY) && !s->sky_light) || ((what & MC_LIGHT_BLOCK) && !s->block_light))
            return mc_light_column(e, col, neighbours, what, err);
    }
    mc_status st = begin(e, col, neighbours, false, err); /* blocks changed: nothing a batch kept */
    if (st != MC_OK)
        return st;
    if (x0 > 15 + 15 || x1 < -15 || z0 > 15 + 15 || z1 < -15)
        return MC_OK; /* too far away to change anything here */
    /* the window: what the change can reach (inner) and the ring round it
     * that keeps its stored light and shines in */
    const int32_t wx0 = x0 - 15 > -16 ? x0 - 15 : -16, wx1 = x1 + 16 < 32 ? x1 + 16 : 32;
    const int32_t wz0 = z0 - 15 > -16 ? z0 - 15 : -16, wz1 = z1 + 16 < 32 ? z1 + 16 : 32;
    const int32_t ix0 = x0 - 14 > wx0 ? x0 - 14 : wx0, ix1 = x1 + 15 < wx1 ? x1 + 15 : wx1;
    const int32_t iz0 = z0 - 14 > wz0 ? z0 - 14 : wz0, iz1 = z1 + 15 < wz1 ? z1 + 15 : wz1;
    int32_t ytop = filled_top(e);
    if (ytop < y1 + 16)
        ytop = y1 + 16;
    if (ytop > ymax + 17)
        ytop = ymax + 17;
    if (!fill_grid(e, ymin - 16, ytop - 1) || (what & MC_LIGHT_SKY && !mc__light_tops(e)))
        return nomem(err);
    const int32_t gx0 = GX(ix0), gx1 = GX(ix1), gz0 = GX(iz0), gz1 = GX(iz1);
    for (unsigned w = MC_LIGHT_SKY; w <= MC_LIGHT_BLOCK; w <<= 1) {
        if (!(what & w))
            continue;
        const bool sky = w == MC_LIGHT_SKY;
        uint8_t *L = sky ? e->sky : e->blk;
        clear_queues(e);
        load_light(e, L, sky, wx0, wx1, wz0, wz1);
        bool ok = true;
        for (int32_t gy = 1; gy < e->gh - 1 && ok; gy++)
            for (int32_t gz = GX(wz0); gz < GX(wz1) && ok; gz++)
                for (int32_t gx = GX(wx0); gx < GX(wx1) && ok; gx++) {
                    const size_t i = cell(gx, gz, gy);
                    if (gz >= gz0 && gz < gz1 && gx >= gx0 && gx < gx1)
                        L[i] = 0; /* computed again */
                    else if (L[i] >= 2 && L[i] > e->dist[gz * ROW + gx])
                        ok = qpush(e, &e->q[L[i]], (uint32_t)i);
                }
        if (sky) {
            sky_fall(e, gx0, gx1, gz0, gz1, ymin - 16, ytop);
            ok = ok && sky_seeds(e, gx0, gx1, gz0, gz1, ymin - 16, ytop);
        } else {
            ok = ok && mc__light_emitters(e, ix0, ix1, iz0, iz1) && block_seeds(e);
        }
        if (!ok || !flood(e, L, sky))
            return nomem(err);
        const int32_t cx0 = ix0 > 0 ? ix0 : 0, cx1 = ix1 - 1 < 15 ? ix1 - 1 : 15;
        const int32_t cz0 = iz0 > 0 ? iz0 : 0, cz1 = iz1 - 1 < 15 ? iz1 - 1 : 15;
        if (cx0 > cx1 || cz0 > cz1)
            continue;
        st = write_rows(e, col, w, ymin, ymax, cx0, cx1, cz0, cz1, err);
        if (st != MC_OK)
            return st;
    }
    if (e->nomem)
        return nomem(err);
    e->edge_valid[0] = e->edge_valid[1] = false;
    return MC_OK;
}
