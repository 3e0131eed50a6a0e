/*
 * engine.c: the light engine: a column and the nearest 14 blocks of its
 * neighbours copied into one flat grid (a byte of opacity, of shape faces,
 * of sky and of block light per block, with a one-block wall all round so
 * that stepping to a neighbour needs no bounds check), then flood fills
 * with a queue per light level, processed from 15 down, so that a block is
 * settled the first time it is taken out and is queued about once.
 *
 * Why a grid of the neighbourhood rather than the column alone: light that
 * reaches the column can come from up to 14 blocks away through the
 * neighbours (a torch behind the border, sky light under an overhang that
 * ends in the next chunk), and walking their containers per step would cost
 * a palette lookup per visit. The grid is filled a section at a time (one
 * bulk unpack, one table read per block; a one-value section is a memset).
 *
 * mc_light_update clears everything within 14 blocks of the box (the whole
 * height: sky light falls down shafts), keeps the stored light of the ring
 * just beyond as sources, re-adds the cleared part's own sources and
 * floods: the ring's light is right whatever order the columns round a
 * change are updated in, which the classic take-away-then-re-add queue
 * (it needs the old light of every column at once) cannot promise.
 */
#include "light/light_private.h"

#include <stdlib.h>
#include <string.h>

#define MARGIN 14     /* how far light that reaches a column can come from */
#define WALL 0x80     /* opa bit: outside (grid border, an absent neighbour) */
#define MAX_TABLES 8

typedef struct qvec {
    uint32_t *v;
    size_t len, cap;
} qvec;

struct mc_light_engine {
    mc_allocator alloc;
    mc__light_table tabs[MAX_TABLES];
    unsigned ntabs, next_tab;
    /* the grid */
    size_t cap;
    uint8_t *opa, *faces, *sky, *blk, *emit;
    int32_t gw, gd, gh;        /* sizes with the walls: x, z, y */
    int32_t lx0, lz0, ylo;     /* column-local x, z and absolute y of grid cell (1, 1, 1) */
    uint32_t height;           /* the column's height in blocks */
    qvec q[16];
    qvec dq;
    qvec emitters; /* grid cells with a luminance, found while filling */
    bool nomem;
    uint32_t states[4096];
    uint8_t edge[4][MC_LIGHT_BYTES]; /* sky below, sky above, block below, block above */
    bool edge_valid[2];
};

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
    return e;
}

static void free_grid(mc_light_engine *e)
{
    uint8_t **arrays[] = {&e->opa, &e->faces, &e->sky, &e->blk, &e->emit};
    for (size_t i = 0; i < 5; i++) {
        xfree(e, *arrays[i], e->cap);
        *arrays[i] = NULL;
    }
    e->cap = 0;
}

void mc_light_engine_free(mc_light_engine *e)
{
    if (!e)
        return;
    for (unsigned i = 0; i < e->ntabs; i++)
        mc__light_table_free(&e->tabs[i], &e->alloc);
    free_grid(e);
    for (int i = 0; i < 16; i++)
        xfree(e, e->q[i].v, e->q[i].cap * sizeof(uint32_t));
    xfree(e, e->dq.v, e->dq.cap * sizeof(uint32_t));
    xfree(e, e->emitters.v, e->emitters.cap * sizeof(uint32_t));
    mc_allocator a = e->alloc;
    a.free(a.user, e, sizeof *e);
}

static bool grow_grid(mc_light_engine *e, size_t n)
{
    if (n <= e->cap)
        return true;
    free_grid(e);
    uint8_t **arrays[] = {&e->opa, &e->faces, &e->sky, &e->blk, &e->emit};
    for (size_t i = 0; i < 5; i++)
        if (!(*arrays[i] = xalloc(e, n))) {
            for (size_t k = 0; k < i; k++) {
                xfree(e, *arrays[k], n);
                *arrays[k] = NULL;
            }
            return false;
        }
    e->cap = n;
    return true;
}

/* Appends v; false when memory runs out (the caller fails the call). */
static bool qpush_slow(mc_light_engine *e, qvec *q, uint32_t v)
{
    size_t ncap = q->cap ? q->cap * 2 : 4096;
    uint32_t *nv = e->alloc.realloc(e->alloc.user, q->v, q->cap * sizeof *nv, ncap * sizeof *nv);
    if (!nv)
        return false;
    q->v = nv;
    q->cap = ncap;
    q->v[q->len++] = v;
    return true;
}

static inline bool qpush(mc_light_engine *e, qvec *q, uint32_t v)
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
    unsigned slot = e->ntabs < MAX_TABLES ? e->ntabs++ : (e->next_tab++ % MAX_TABLES);
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

static inline size_t cell(const mc_light_engine *e, int32_t gx, int32_t gy, int32_t gz)
{
    return ((size_t)gy * (size_t)e->gd + (size_t)gz) * (size_t)e->gw + (size_t)gx;
}

/* Copies the blocks of `c` (chunk offset dx, dz from the centre) that fall
 * in the grid's window into opa/faces/emit. */
static void fill_column(mc_light_engine *e, const mc_column *c, const mc__light_table *t, int32_t dx,
                        int32_t dz)
{
    const int32_t wx0 = e->lx0, wx1 = e->lx0 + e->gw - 2, wz0 = e->lz0, wz1 = e->lz0 + e->gd - 2;
    const int32_t cx0 = dx * 16 > wx0 ? dx * 16 : wx0, cx1 = dx * 16 + 16 < wx1 ? dx * 16 + 16 : wx1;
    const int32_t cz0 = dz * 16 > wz0 ? dz * 16 : wz0, cz1 = dz * 16 + 16 < wz1 ? dz * 16 + 16 : wz1;
    if (cx0 >= cx1 || cz0 >= cz1)
        return;
    const int32_t nx = cx1 - cx0;
    const int32_t gx0 = cx0 - e->lx0 + 1;
    /* every y of the grid inside the walls: air unless a section says otherwise */
    for (int32_t gy = 1; gy < e->gh - 1; gy++)
        for (int32_t z = cz0; z < cz1; z++) {
            size_t i = cell(e, gx0, gy, z - e->lz0 + 1);
            memset(e->opa + i, 0, (size_t)nx);
        }
    if (!c)
        return;
    const int32_t min_sy = mc_column_min_section(c);
    const uint32_t n = mc_column_section_count(c);
    for (uint32_t k = 0; k < n; k++) {
        const mc_section *s = mc_column_section_const(c, min_sy + (int32_t)k);
        const int32_t gy0 = (min_sy + (int32_t)k) * 16 - e->ylo + 1;
        if (gy0 + 16 > e->gh - 1)
            break; /* above the grid: nothing there gives or stops light */
        /* one byte of info and one of faces per palette entry (or the
         * single value); a palette of one kind of block is a memset */
        uint8_t pinfo[256], pfaces[256];
        size_t plen = 0;
        const uint32_t *pal = NULL;
        const mc_container_kind kind = mc_container_get_kind(&s->blocks);
        if (kind == MC_CONTAINER_SINGLE) {
            pal = &s->blocks.value;
            plen = 1;
        } else if (kind == MC_CONTAINER_INDIRECT && s->blocks.palette_len <= 256 && s->blocks.bits <= 16) {
            pal = s->blocks.palette;
            plen = s->blocks.palette_len;
        }
        bool uniform = plen > 0;
        for (size_t p = 0; p < plen; p++) {
            const uint32_t st = pal[p];
            pinfo[p] = st < t->count ? t->info[st] : 15;
            pfaces[p] = st < t->count ? t->faces[st] : 0;
            uniform = uniform && pinfo[p] == pinfo[0] && pfaces[p] == pfaces[0];
        }
        if (uniform) {
            const uint8_t inf = pinfo[0], f = pfaces[0];
            if (inf == 0 && f == 0)
                continue; /* already air */
            for (int32_t y = 0; y < 16; y++)
                for (int32_t z = cz0; z < cz1; z++) {
                    size_t i = cell(e, gx0, gy0 + y, z - e->lz0 + 1);
                    memset(e->opa + i, inf & 15, (size_t)nx);
                    if (f)
                        memset(e->faces + i, f, (size_t)nx);
                    if (inf >> 4) {
                        memset(e->emit + i, inf >> 4, (size_t)nx);
                        for (int32_t x = 0; x < nx; x++)
                            e->nomem |= !qpush(e, &e->emitters, (uint32_t)(i + (size_t)x));
                    }
                }
            continue;
        }
        if (plen) { /* through the palette: indices straight from the longs */
            uint16_t *idx = (uint16_t *)e->states;
            mc_bits_unpack_u16(s->blocks.longs, 4096, s->blocks.bits, MC_BITS_PADDED, idx);
            for (int32_t y = 0; y < 16; y++)
                for (int32_t z = cz0; z < cz1; z++) {
                    const uint16_t *row = idx + (y << 8) + ((z & 15) << 4) + (cx0 & 15);
                    size_t i = cell(e, gx0, gy0 + y, z - e->lz0 + 1);
                    for (int32_t x = 0; x < nx; x++) {
                        const unsigned pk = row[x] < plen ? row[x] : 0;
                        const uint8_t inf = pinfo[pk];
                        e->opa[i + (size_t)x] = inf & 15;
                        if (pfaces[pk])
                            e->faces[i + (size_t)x] = pfaces[pk];
                        if (inf >> 4) {
                            e->emit[i + (size_t)x] = inf >> 4;
                            e->nomem |= !qpush(e, &e->emitters, (uint32_t)(i + (size_t)x));
                        }
                    }
                }
            continue;
        }
        mc_container_get_all(&s->blocks, e->states);
        for (int32_t y = 0; y < 16; y++)
            for (int32_t z = cz0; z < cz1; z++) {
                const uint32_t *row = e->states + (y << 8) + ((z & 15) << 4) + (cx0 & 15);
                size_t i = cell(e, gx0, gy0 + y, z - e->lz0 + 1);
                for (int32_t x = 0; x < nx; x++) {
                    uint32_t st = row[x];
                    uint8_t inf = st < t->count ? t->info[st] : 15;
                    e->opa[i + (size_t)x] = inf & 15;
                    e->faces[i + (size_t)x] = st < t->count ? t->faces[st] : 0;
                    e->emit[i + (size_t)x] = inf >> 4;
                    if (inf >> 4)
                        e->nomem |= !qpush(e, &e->emitters, (uint32_t)(i + (size_t)x));
                }
            }
    }
}

static bool same_shape(const mc_column *a, const mc_column *b)
{
    return mc_column_registry(a) == mc_column_registry(b) &&
           mc_column_min_section(a) == mc_column_min_section(b) &&
           mc_column_section_count(a) == mc_column_section_count(b);
}

/* Sets up the grid for the window lx0..lx1-1, lz0..lz1-1 (column-local) and
 * the column's whole height plus a section below and above. */
/* The neighbour at chunk offset dx, dz (0, 0: col), or NULL. */
static const mc_column *at(const mc_column *col, const mc_column *const nb[8], int32_t dx, int32_t dz)
{
    if (!dx && !dz)
        return col;
    int k = (dz + 1) * 3 + (dx + 1);
    const mc_column *c = nb ? nb[k > 4 ? k - 1 : k] : NULL;
    return c && same_shape(c, col) ? c : NULL;
}

/* One above the highest section of the nine columns that holds anything
 * but states with neither opacity, shape nor luminance (a section of one
 * such state, which is how empty sections are kept, is skipped without a
 * look at its blocks). */
static int32_t top_section(const mc_column *col, const mc_column *const nb[8], const mc__light_table *t)
{
    int32_t top = mc_column_min_section(col);
    for (int32_t dz = -1; dz <= 1; dz++)
        for (int32_t dx = -1; dx <= 1; dx++) {
            const mc_column *c = at(col, nb, dx, dz);
            if (!c)
                continue;
            for (int32_t k = (int32_t)mc_column_section_count(c) - 1; k >= 0; k--) {
                const int32_t sy = mc_column_min_section(c) + k;
                if (sy + 1 <= top)
                    break;
                const mc_section *s = mc_column_section_const(c, sy);
                if (mc_container_get_kind(&s->blocks) == MC_CONTAINER_SINGLE && s->blocks.value < t->count &&
                    t->info[s->blocks.value] == 0 && t->faces[s->blocks.value] == 0)
                    continue;
                top = sy + 1;
                break;
            }
        }
    return top;
}

static mc_status build_grid(mc_light_engine *e, const mc_column *col, const mc_column *const nb[8],
                            int32_t lx0, int32_t lx1, int32_t lz0, int32_t lz1, int32_t ytop, mc_error *err)
{
    const mc__light_table *t = table_for(e, mc_column_registry(col));
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the state table");
    e->lx0 = lx0;
    e->lz0 = lz0;
    e->gw = lx1 - lx0 + 2;
    e->gd = lz1 - lz0 + 2;
    e->ylo = mc_column_min_y(col) - 16;
    e->height = mc_column_height(col);
    /* up to a section above the highest one with anything in it (light
     * from below reaches at most 14 blocks up into it) and at least to
     * ytop; above that, sky light is 15 and block light 0 */
    int32_t yend = (top_section(col, nb, t) + 1) * 16;
    if (ytop != INT32_MIN && yend < ytop + 1) /* rounded up to a section */
        yend = e->ylo + (ytop + 1 - e->ylo + 15) / 16 * 16;
    const int32_t ymax = mc_column_min_y(col) + (int32_t)mc_column_height(col) + 16;
    if (yend > ymax)
        yend = ymax;
    e->gh = yend - e->ylo + 2;
    const size_t n = (size_t)e->gw * (size_t)e->gd * (size_t)e->gh;
    if (!grow_grid(e, n))
        return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the work area (%zu bytes)", 5 * n);
    memset(e->opa, WALL, n);
    memset(e->faces, 0, n);
    memset(e->emit, 0, n);
    e->emitters.len = 0;
    e->nomem = false;
    for (int32_t dz = -1; dz <= 1; dz++)
        for (int32_t dx = -1; dx <= 1; dx++) {
            const mc_column *c = col;
            if (dx || dz) {
                int k = (dz + 1) * 3 + (dx + 1);
                c = nb ? nb[k > 4 ? k - 1 : k] : NULL;
                if (c && !same_shape(c, col))
                    c = NULL;
                if (!c)
                    continue; /* stays wall */
            }
            fill_column(e, c, t, dx, dz);
        }
    if (e->nomem)
        return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the queue");
    return MC_OK;
}

/* -------------------------------------------------------------- flooding */

static const uint8_t face_bit[6] = {MC__FACE_DOWN, MC__FACE_UP, MC__FACE_NORTH, MC__FACE_SOUTH,
                                    MC__FACE_WEST, MC__FACE_EAST};
static const uint8_t face_opp[6] = {MC__FACE_UP, MC__FACE_DOWN, MC__FACE_SOUTH, MC__FACE_NORTH,
                                    MC__FACE_EAST, MC__FACE_WEST};

static void offsets(const mc_light_engine *e, ptrdiff_t off[6])
{
    const ptrdiff_t sy = (ptrdiff_t)e->gw * e->gd, sz = e->gw;
    off[0] = -sy;
    off[1] = sy;
    off[2] = -sz;
    off[3] = sz;
    off[4] = -1;
    off[5] = 1;
}

/* Floods `L` from the queued blocks, brightest first. */
static bool flood(mc_light_engine *e, uint8_t *L, bool sky)
{
    ptrdiff_t off[6];
    offsets(e, off);
    const uint8_t *opa = e->opa, *faces = e->faces;
    /* the rows where the world meets the sections below and above: light
     * goes out into them but never back (see light.h) */
    const size_t sy = (size_t)e->gw * e->gd;
    const size_t below_top = 16 * sy, above_bottom = ((size_t)e->height + 17) * sy;
    for (int lvl = 15; lvl >= 2; lvl--) {
        qvec *q = &e->q[lvl];
        for (size_t k = 0; k < q->len; k++) { /* may grow while we read (sky at 15 going down) */
            const uint32_t i = q->v[k];
            const unsigned l = L[i];
            if (l != (unsigned)lvl)
                continue; /* raised since it was queued: it is in a brighter queue */
            const uint8_t fi = faces[i];
            for (int d = 0; d < 6; d++) {
                const uint32_t j = (uint32_t)((ptrdiff_t)i + off[d]);
                const uint8_t o = opa[j];
                if (o & WALL)
                    continue;
                if ((fi & face_bit[d]) || (faces[j] & face_opp[d]))
                    continue;
                if ((d == 1 && i >= below_top && i < below_top + sy) ||
                    (d == 0 && i >= above_bottom && i < above_bottom + sy))
                    continue;
                const int nl = (sky && d == 0 && l == 15 && o == 0) ? 15 : (int)l - (o > 1 ? (int)o : 1);
                if (nl <= (int)L[j])
                    continue; /* also every nl <= 0 */
                L[j] = (uint8_t)nl;
                if (nl >= 2 && !qpush(e, &e->q[nl], j))
                    return false;
            }
        }
        q->len = 0;
    }
    e->q[1].len = e->q[0].len = 0;
    return true;
}

static void clear_queues(mc_light_engine *e)
{
    for (int i = 0; i < 16; i++)
        e->q[i].len = 0;
    e->dq.len = 0;
}

/* Queues a block at its current level (levels 0 and 1 spread nothing). */
static inline bool seed(mc_light_engine *e, const uint8_t *L, size_t i)
{
    return L[i] < 2 || qpush(e, &e->q[L[i]], (uint32_t)i);
}

/* Straight-down sky of the grid columns gx0..gx1-1, gz0..gz1-1: every block
 * from the top down to the first one that stops it gets 15; returns the
 * grid y of the lowest such block per column in `top` (when non-NULL). */
static void sky_columns(mc_light_engine *e, int32_t gx0, int32_t gx1, int32_t gz0, int32_t gz1, int32_t *top)
{
    const size_t sy = (size_t)e->gw * (size_t)e->gd;
    for (int32_t gz = gz0; gz < gz1; gz++)
        for (int32_t gx = gx0; gx < gx1; gx++) {
            size_t i = cell(e, gx, e->gh - 2, gz);
            int32_t gy = e->gh - 2;
            if (e->opa[i] & WALL) {
                if (top)
                    top[gz * e->gw + gx] = e->gh;
                continue;
            }
            e->sky[i] = 15;
            while (gy > 1) {
                size_t j = i - sy;
                if (e->opa[j] != 0 || (e->faces[i] & MC__FACE_DOWN) || (e->faces[j] & MC__FACE_UP))
                    break;
                e->sky[j] = 15;
                i = j;
                gy--;
            }
            if (top)
                top[gz * e->gw + gx] = gy;
        }
}

/* The sky light of the grid columns gx0..gx1-1, gz0..gz1-1: straight-down
 * columns, then the blocks at their sides and bottoms queued (next to a
 * column outside those bounds, the whole height above the straight-down
 * part: what is there is not known); the caller floods. */
static bool seed_sky(mc_light_engine *e, int32_t gx0, int32_t gx1, int32_t gz0, int32_t gz1)
{
    const size_t n = (size_t)e->gw * e->gd;
    int32_t *top = xalloc(e, n * sizeof *top);
    if (!top)
        return false;
    for (size_t i = 0; i < n; i++)
        top[i] = e->gh;
    sky_columns(e, gx0, gx1, gz0, gz1, top);
    bool ok = true;
    for (int32_t gz = gz0; gz < gz1 && ok; gz++)
        for (int32_t gx = gx0; gx < gx1 && ok; gx++) {
            const int32_t t = top[gz * e->gw + gx];
            if (t >= e->gh)
                continue;
            int32_t hi = t + 1; /* the lowest block always spreads (down and sideways) */
            const int32_t nbr[4] = {top[gz * e->gw + gx - 1], top[gz * e->gw + gx + 1],
                                    top[(gz - 1) * e->gw + gx], top[(gz + 1) * e->gw + gx]};
            for (int k = 0; k < 4; k++)
                if (nbr[k] < e->gh && nbr[k] > hi)
                    hi = nbr[k];
                else if (nbr[k] >= e->gh)
                    hi = e->gh - 1;
            for (int32_t gy = t; gy < hi && gy < e->gh - 1; gy++)
                ok = ok && qpush(e, &e->q[15], (uint32_t)cell(e, gx, gy, gz));
        }
    xfree(e, top, n * sizeof *top);
    return ok;
}

static bool light_sky(mc_light_engine *e)
{
    return seed_sky(e, 1, e->gw - 1, 1, e->gd - 1) && flood(e, e->sky, true);
}

static bool light_block(mc_light_engine *e)
{
    for (size_t k = 0; k < e->emitters.len; k++) {
        const uint32_t i = e->emitters.v[k];
        e->blk[i] = e->emit[i];
        if (!seed(e, e->blk, i))
            return false;
    }
    return flood(e, e->blk, false);
}

/* ----------------------------------------------------------- write back */

static mc_status write_back(mc_light_engine *e, mc_column *col, unsigned what, int32_t x0, int32_t x1,
                            int32_t z0, int32_t z1, int32_t y0, int32_t y1, mc_error *err)
{
    static const uint8_t zero[MC_LIGHT_BYTES];
    const int32_t min_sy = mc_column_min_section(col);
    for (uint32_t k = 0; k < mc_column_section_count(col); k++) {
        const int32_t sy = min_sy + (int32_t)k;
        if (sy * 16 + 15 < y0 || sy * 16 > y1)
            continue;
        mc_section *s = mc_column_section(col, sy);
        for (int w = 0; w < 2; w++) {
            if (!(what & (w ? MC_LIGHT_BLOCK : MC_LIGHT_SKY)))
                continue;
            uint8_t **dst = w ? &s->block_light : &s->sky_light;
            if (!*dst && (w ? mc_section_set_block_light(s, zero) : mc_section_set_sky_light(s, zero)) != MC_OK)
                return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for a light array");
            const uint8_t *L = w ? e->blk : e->sky;
            for (int32_t y = 0; y < 16; y++) {
                const int32_t ay = sy * 16 + y;
                if (ay < y0 || ay > y1)
                    continue;
                const int32_t gy = ay - e->ylo + 1;
                if (gy >= e->gh - 1) { /* above the grid: open sky, no block light */
                    for (int32_t z = z0; z <= z1; z++)
                        for (int32_t x = x0; x <= x1; x++)
                            mc_light_set(*dst, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z), w ? 0 : 15);
                    continue;
                }
                if (x0 == 0 && x1 == 15) { /* whole rows: two blocks a byte */
                    for (int32_t z = z0; z <= z1; z++) {
                        const uint8_t *src = L + cell(e, 1 - e->lx0, gy, z - e->lz0 + 1);
                        uint8_t *out = *dst + ((y << 7) | (z << 3));
                        for (int32_t x = 0; x < 8; x++)
                            out[x] = (uint8_t)(src[2 * x] | src[2 * x + 1] << 4);
                    }
                    continue;
                }
                for (int32_t z = z0; z <= z1; z++) {
                    const uint8_t *src = L + cell(e, x0 - e->lx0 + 1, gy, z - e->lz0 + 1);
                    uint8_t *out = *dst;
                    for (int32_t x = x0; x <= x1; x++)
                        mc_light_set(out, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z), src[x - x0]);
                }
            }
        }
    }
    return MC_OK;
}

static void save_edges(mc_light_engine *e, unsigned what)
{
    for (int w = 0; w < 2; w++) {
        e->edge_valid[w] = (what & (w ? MC_LIGHT_BLOCK : MC_LIGHT_SKY)) != 0;
        if (!e->edge_valid[w])
            continue;
        const uint8_t *L = w ? e->blk : e->sky;
        for (int side = 0; side < 2; side++) {
            uint8_t *out = e->edge[w * 2 + side];
            const int32_t gy0 = side ? (int32_t)(e->height + 16) + 1 : 1;
            for (int32_t y = 0; y < 16; y++)
                for (int32_t z = 0; z < 16; z++)
                    for (int32_t x = 0; x < 16; x++)
                        mc_light_set(out, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z),
                                     gy0 + y >= e->gh - 1 ? (w ? 0u : 15u)
                                                          : L[cell(e, x - e->lx0 + 1, gy0 + y, z - e->lz0 + 1)]);
        }
    }
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

/* ------------------------------------------------------------ the calls */

mc_status mc_light_column(mc_light_engine *e, mc_column *col, const mc_column *const neighbours[8], unsigned what,
                          mc_error *err)
{
    if (!e || !col || !(what & MC_LIGHT_BOTH))
        return mc_error_set(err, MC_ERR_INVALID_ARG, 0, "light: engine, column and what are required");
    e->edge_valid[0] = e->edge_valid[1] = false;
    mc_status st = build_grid(e, col, neighbours, -MARGIN, 16 + MARGIN, -MARGIN, 16 + MARGIN, INT32_MIN, err);
    if (st != MC_OK)
        return st;
    const size_t n = (size_t)e->gw * e->gd * e->gh;
    clear_queues(e);
    if (what & MC_LIGHT_SKY) {
        memset(e->sky, 0, n);
        if (!light_sky(e))
            return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the queue");
    }
    if (what & MC_LIGHT_BLOCK) {
        memset(e->blk, 0, n);
        if (!light_block(e))
            return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the queue");
    }
    st = write_back(e, col, what, 0, 15, 0, 15, INT32_MIN, INT32_MAX, err);
    if (st == MC_OK)
        save_edges(e, what);
    return st;
}

/* Copies the stored light of the columns in the window into the grid
 * (an absent array reads as 0; sky above the column is 15). */
static void load_light(mc_light_engine *e, const mc_column *col, const mc_column *const nb[8], uint8_t *L, bool sky)
{
    const size_t n = (size_t)e->gw * e->gd * e->gh;
    memset(L, 0, n);
    for (int32_t dz = -1; dz <= 1; dz++)
        for (int32_t dx = -1; dx <= 1; dx++) {
            const mc_column *c = col;
            if (dx || dz) {
                int k = (dz + 1) * 3 + (dx + 1);
                c = nb ? nb[k > 4 ? k - 1 : k] : NULL;
                if (!c || !same_shape(c, col))
                    continue;
            }
            const int32_t x0 = dx * 16 > e->lx0 ? dx * 16 : e->lx0;
            const int32_t x1 = dx * 16 + 16 < e->lx0 + e->gw - 2 ? dx * 16 + 16 : e->lx0 + e->gw - 2;
            const int32_t z0 = dz * 16 > e->lz0 ? dz * 16 : e->lz0;
            const int32_t z1 = dz * 16 + 16 < e->lz0 + e->gd - 2 ? dz * 16 + 16 : e->lz0 + e->gd - 2;
            if (x0 >= x1 || z0 >= z1)
                continue;
            for (uint32_t k = 0; k < mc_column_section_count(c); k++) {
                const int32_t sy = mc_column_min_section(c) + (int32_t)k;
                const mc_section *s = mc_column_section_const(c, sy);
                const uint8_t *src = sky ? s->sky_light : s->block_light;
                if (sy * 16 + 16 - e->ylo + 1 > e->gh - 1)
                    break;
                if (!src)
                    continue;
                for (int32_t y = 0; y < 16; y++)
                    for (int32_t z = z0; z < z1; z++) {
                        size_t i = cell(e, x0 - e->lx0 + 1, sy * 16 + y - e->ylo + 1, z - e->lz0 + 1);
                        for (int32_t x = x0; x < x1; x++, i++)
                            L[i] = (uint8_t)mc_light_get(src, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z));
                    }
            }
            if (sky) /* the section above the column: open sky */
                for (int32_t y = (int32_t)e->height + 16 + 1; y < e->gh - 1; y++)
                    for (int32_t z = z0; z < z1; z++)
                        memset(L + cell(e, x0 - e->lx0 + 1, y, z - e->lz0 + 1), 15, (size_t)(x1 - x0));
        }
}

mc_status mc_light_update(mc_light_engine *e, mc_column *col, const mc_column *const neighbours[8], int32_t x0,
                          int32_t y0, int32_t z0, int32_t x1, int32_t y1, int32_t z1, unsigned what, mc_error *err)
{
    if (!e || !col || !(what & MC_LIGHT_BOTH))
        return mc_error_set(err, MC_ERR_INVALID_ARG, 0, "light: engine, column and what are required");
    const int32_t ymin = mc_column_min_y(col), ymax = ymin + (int32_t)mc_column_height(col) - 1;
    if (x0 < -16 || z0 < -16 || x1 > 31 || z1 > 31 || x0 > x1 || z0 > z1 || y0 > y1 || y0 < ymin || y1 > ymax)
        return mc_error_set(err, MC_ERR_RANGE, 0, "light: box %d..%d %d..%d %d..%d is outside the column",
                            (int)x0, (int)x1, (int)y0, (int)y1, (int)z0, (int)z1);
    for (uint32_t k = 0; k < mc_column_section_count(col); k++) {
        const mc_section *s = mc_column_section_at(col, k);
        if (((what & MC_LIGHT_SKY) && !s->sky_light) || ((what & MC_LIGHT_BLOCK) && !s->block_light))
            return mc_light_column(e, col, neighbours, what, err);
    }
    e->edge_valid[0] = e->edge_valid[1] = false;
    if (x0 > 15 + 15 || x1 < -15 || z0 > 15 + 15 || z1 < -15)
        return MC_OK; /* too far away to change anything here */
    const int32_t wx0 = x0 - 15 > -MARGIN ? x0 - 15 : -MARGIN, wx1 = x1 + 16 < 16 + MARGIN ? x1 + 16 : 16 + MARGIN;
    const int32_t wz0 = z0 - 15 > -MARGIN ? z0 - 15 : -MARGIN, wz1 = z1 + 16 < 16 + MARGIN ? z1 + 16 : 16 + MARGIN;
    mc_status st = build_grid(e, col, neighbours, wx0, wx1, wz0, wz1, y1 + 16, err);
    if (st != MC_OK)
        return st;
    /* inner: what the change can reach; the ring round it keeps its light
     * and shines in */
    const int32_t ix0 = x0 - 14 > wx0 ? x0 - 14 : wx0, ix1 = x1 + 15 < wx1 ? x1 + 15 : wx1;
    const int32_t iz0 = z0 - 14 > wz0 ? z0 - 14 : wz0, iz1 = z1 + 15 < wz1 ? z1 + 15 : wz1;
    const int32_t gx0 = ix0 - e->lx0 + 1, gx1 = ix1 - e->lx0 + 1, gz0 = iz0 - e->lz0 + 1, gz1 = iz1 - e->lz0 + 1;
    for (int w = 0; w < 2; w++) {
        const bool sky = w == 0;
        if (!(what & (sky ? MC_LIGHT_SKY : MC_LIGHT_BLOCK)))
            continue;
        uint8_t *L = sky ? e->sky : e->blk;
        clear_queues(e);
        load_light(e, col, neighbours, L, sky);
        bool ok = true;
        for (int32_t gy = 0; gy < e->gh && ok; gy++)
            for (int32_t gz = 1; gz < e->gd - 1 && ok; gz++) {
                const bool zin = gz >= gz0 && gz < gz1;
                for (int32_t gx = 1; gx < e->gw - 1 && ok; gx++) {
                    const size_t i = cell(e, gx, gy, gz);
                    if (zin && gx >= gx0 && gx < gx1)
                        L[i] = 0; /* computed again */
                    else if (!(e->opa[i] & WALL))
                        ok = seed(e, L, i);
                }
            }
        if (sky)
            ok = ok && seed_sky(e, gx0, gx1, gz0, gz1);
        else
            for (size_t k = 0; k < e->emitters.len && ok; k++) {
                const uint32_t i = e->emitters.v[k];
                const int32_t gx = (int32_t)(i % (uint32_t)e->gw), gz = (int32_t)(i / (uint32_t)e->gw % (uint32_t)e->gd);
                if (gx >= gx0 && gx < gx1 && gz >= gz0 && gz < gz1) {
                    L[i] = e->emit[i];
                    ok = seed(e, L, i);
                }
            }
        if (!ok || !flood(e, L, sky))
            return mc_error_set(err, MC_ERR_NOMEM, 0, "light: no memory for the queue");
        const int32_t cx0 = ix0 > 0 ? ix0 : 0, cx1 = ix1 - 1 < 15 ? ix1 - 1 : 15;
        const int32_t cz0 = iz0 > 0 ? iz0 : 0, cz1 = iz1 - 1 < 15 ? iz1 - 1 : 15;
        if (cx0 > cx1 || cz0 > cz1)
            continue;
        st = write_back(e, col, sky ? MC_LIGHT_SKY : MC_LIGHT_BLOCK, cx0, cx1, cz0, cz1, INT32_MIN, INT32_MAX, err);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}
