/*
 * light_private.h: what the light module's files share: the generated rows
 * of src/light/data/light_data.c, the per-registry state table built from
 * them (table.c), the engine's state, the view of the nine columns' blocks
 * (blocks.c) and the work grid the light floods through (engine.c).
 */
#ifndef MCCHUNK_LIGHT_PRIVATE_H
#define MCCHUNK_LIGHT_PRIVATE_H

#include "mcchunk/light.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One block's light facts from one data version on (generated). */
typedef struct mc__light_row {
    uint16_t name;       /* offset into mc__light_names */
    uint16_t dv;         /* first data version these facts hold for */
    uint8_t emit;        /* emitLight of the default state */
    uint8_t filter;      /* filterLight of the default state */
    uint16_t faces;      /* offset into mc__light_faces (shape-occluding blocks) */
    uint16_t face_count; /* states with a face mask; 0: the block never occludes by shape */
} mc__light_row;

extern const char mc__light_names[];
extern const uint8_t mc__light_faces[];
extern const mc__light_row mc__light_rows[];
extern const size_t mc__light_row_count;

/* Face bits of mc__light_faces and of the table. */
enum { MC__FACE_DOWN = 1, MC__FACE_UP = 2, MC__FACE_NORTH = 4, MC__FACE_SOUTH = 8,
       MC__FACE_WEST = 16, MC__FACE_EAST = 32 };

/* Light kinds: the distinct (opacity, shape faces, luminance) triples of a
 * registry, numbered so that what the engine asks most often needs no
 * table, or is a range test (and so a vector compare over a row):
 *   0..15      plain blocks: no shape faces, no luminance; the kind is the
 *              opacity (air 0, water and leaves 1, stone 15)
 *   128..hp-1  shaped or shining blocks that sky light falls straight
 *              through (opacity 0, no UP or DOWN face: a torch)
 *   hp..st-1   ... that it falls into but not out of (opacity 0, a DOWN
 *              face: a bottom slab)
 *   st..254    ... that stop it from above (opacity > 0 or an UP face:
 *              glowstone, lava, a top slab)
 *   255        MC__KIND_WALL: outside the work area (opacity 15)
 * A section whose states all have one kind (stone with ores, deep water)
 * needs no per-block array at all. */
#define MC__KIND_PLAIN 16u  /* kinds below are plain */
#define MC__KIND_SPECIAL 128u
#define MC__KIND_WALL 255u

typedef struct mc__light_kinds {
    uint8_t hp, st; /* the bounds above */
    uint8_t opacity[256];
    uint8_t faces[256];
    uint8_t emission[256];
    uint8_t cls[256]; /* MC__CLS_* of each kind: what a palette's classifying asks, one load */
} mc__light_kinds;

/* Bits of mc__light_kinds.cls: opacity <= 1; opacity 0 (these two as a
 * direct4 slice's cls4); no shape faces and opacity 0, 1 or 15 (a direct4
 * palette's states); kind 0, 1 or 15 (a plain slice's states). */
enum { MC__CLS_PASS = 1, MC__CLS_CLEAR = 2, MC__CLS_DIRECT = 4, MC__CLS_PLAIN = 8 };

/* Sky light falls into a block of kind k from the one above (at 15). */
static inline bool mc__kind_sky_enters(const mc__light_kinds *k, unsigned kind)
{
    return kind == 0 || (kind >= MC__KIND_SPECIAL && kind < k->st);
}
/* A block of kind k lets sky light that entered it fall no further. */
static inline bool mc__kind_sky_held(const mc__light_kinds *k, unsigned kind)
{
    return kind >= k->hp && kind < k->st;
}
static inline bool mc__kind_emits(const mc__light_kinds *k, unsigned kind)
{
    return k->emission[kind] != 0;
}

/* For the step functions of the floods, which must be inlined with their
 * direction a constant (GCC at -O2 does not, by itself, for six calls). */
#if defined(__GNUC__)
#define MC__LIGHT_INLINE inline __attribute__((always_inline))
#else
#define MC__LIGHT_INLINE inline
#endif

/* Rows of 16 kinds, tested 16 at a time (GNU C vectors: SSE2, NEON; a
 * loop elsewhere). A mask has 0xFF in the lanes where a test holds. */
#if defined(__GNUC__)
typedef uint8_t mc__row16 __attribute__((vector_size(16)));
static inline mc__row16 mc__row_load(const uint8_t *p)
{
    mc__row16 v;
    memcpy(&v, p, 16);
    return v;
}
static inline mc__row16 mc__row_splat(unsigned b)
{
    return (mc__row16){0} + (uint8_t)b;
}
/* lo <= v < hi, lane by lane */
static inline mc__row16 mc__row_in(mc__row16 v, unsigned lo, unsigned hi)
{
    return (mc__row16)((v >= mc__row_splat(lo)) & (v < mc__row_splat(hi)));
}
/* a >= b, a > b, a + b, lane by lane */
static inline mc__row16 mc__row_ge(mc__row16 a, mc__row16 b)
{
    return (mc__row16)(a >= b);
}
static inline mc__row16 mc__row_gt(mc__row16 a, mc__row16 b)
{
    return (mc__row16)(a > b);
}
static inline mc__row16 mc__row_eq(mc__row16 a, mc__row16 b)
{
    return (mc__row16)(a == b);
}
static inline mc__row16 mc__row_add(mc__row16 a, mc__row16 b)
{
    return a + b;
}
#else
typedef struct {
    uint8_t b[16];
} mc__row16;
static inline mc__row16 mc__row_ge(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] = a.b[i] >= b.b[i] ? 0xFF : 0;
    return a;
}
static inline mc__row16 mc__row_gt(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] = a.b[i] > b.b[i] ? 0xFF : 0;
    return a;
}
static inline mc__row16 mc__row_eq(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] = a.b[i] == b.b[i] ? 0xFF : 0;
    return a;
}
static inline mc__row16 mc__row_add(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] = (uint8_t)(a.b[i] + b.b[i]);
    return a;
}
static inline mc__row16 mc__row_load(const uint8_t *p)
{
    mc__row16 v;
    memcpy(&v, p, 16);
    return v;
}
static inline mc__row16 mc__row_splat(unsigned b)
{
    mc__row16 v;
    memset(v.b, (int)b, 16);
    return v;
}
static inline mc__row16 mc__row_in(mc__row16 v, unsigned lo, unsigned hi)
{
    for (int i = 0; i < 16; i++)
        v.b[i] = v.b[i] >= lo && v.b[i] < hi ? 0xFF : 0;
    return v;
}
#endif
#if defined(__GNUC__)
static inline mc__row16 mc__row_or(mc__row16 a, mc__row16 b)
{
    return a | b;
}
static inline mc__row16 mc__row_and(mc__row16 a, mc__row16 b)
{
    return a & b;
}
/* a & ~b */
static inline mc__row16 mc__row_andnot(mc__row16 a, mc__row16 b)
{
    return a & ~b;
}
static inline bool mc__row_any(mc__row16 v)
{
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    const v2u64 x = (v2u64)v;
    return (x[0] | x[1]) != 0;
}
#else
static inline mc__row16 mc__row_or(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] |= b.b[i];
    return a;
}
static inline mc__row16 mc__row_and(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] &= b.b[i];
    return a;
}
static inline mc__row16 mc__row_andnot(mc__row16 a, mc__row16 b)
{
    for (int i = 0; i < 16; i++)
        a.b[i] &= (uint8_t)~b.b[i];
    return a;
}
static inline bool mc__row_any(mc__row16 v)
{
    uint64_t x[2];
    memcpy(x, &v, 16);
    return (x[0] | x[1]) != 0;
}
#endif
/* Bit i set where lane i of a mask is set. */
static inline unsigned mc__row_bits(mc__row16 v)
{
#if defined(__GNUC__) && defined(__SSE2__)
    __m128i x;
    memcpy(&x, &v, 16);
    return (unsigned)_mm_movemask_epi8(x);
#else
    uint8_t m[16];
    unsigned bits = 0;
    memcpy(m, &v, 16);
    for (int i = 0; i < 16; i++)
        bits |= (m[i] >> 7) << i;
    return bits;
#endif
}

/* The highest set bit of x (not 0). */
static inline int mc__highest_bit(unsigned x)
{
#if defined(__GNUC__)
    return 31 - __builtin_clz(x);
#else
    int i = 0;
    while (x >>= 1)
        i++;
    return i;
#endif
}

/* The lowest set bit of x (not 0). */
static inline int mc__lowest_bit(unsigned x)
{
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int i = 0;
    while (!(x & 1u))
        x >>= 1, i++;
    return i;
#endif
}

/* The lanes of a row of kinds where sky light at 15 enters from above,
 * and where the block holds it (mc__kind_sky_enters, _held). */
static inline mc__row16 mc__row_sky_enters(const mc__light_kinds *k, mc__row16 v)
{
    return mc__row_or(mc__row_in(v, 0, 1), mc__row_in(v, MC__KIND_SPECIAL, k->st));
}
static inline mc__row16 mc__row_sky_held(const mc__light_kinds *k, mc__row16 v)
{
    return mc__row_in(v, k->hp, k->st);
}
/* The lanes of special kinds (only these may shine). */
static inline mc__row16 mc__row_special(mc__row16 v)
{
    return mc__row_in(v, MC__KIND_SPECIAL, MC__KIND_WALL);
}

/* Per state of a registry: info = opacity | emission << 4; faces = the
 * MC__FACE_* bits the state's shape covers completely (0 for blocks that
 * never occlude by shape); kind = its light kind (above). */
typedef struct mc__light_table {
    const mc_registry *reg;
    uint32_t count;
    uint8_t *info;
    uint8_t *faces;
    uint8_t *kind;
    mc__light_kinds kinds;
} mc__light_table;

/* Builds the table of reg (memory from alloc). MC_ERR_NOMEM or MC_OK. */
mc_status mc__light_table_build(mc__light_table *t, const mc_registry *reg, const mc_allocator *alloc);
void mc__light_table_free(mc__light_table *t, const mc_allocator *alloc);

/* ------------------------------------------------------------- the engine */

#define MC__LIGHT_MAX_TABLES 8
#define MC__TOP_NONE INT32_MAX /* a block column outside the loaded columns */

/* One section of one of the nine columns, as light kinds. */
typedef struct mc__slice {
    int16_t uniform; /* the kind of all its blocks, or -1: see kinds */
    bool ready;       /* classified (uniform, emit_max) */
    uint8_t emit_max; /* the highest luminance of its palette's states (0: none shines) */
    uint8_t bits_state; /* its rows as bits (bitflood.c): 0 not made, 1 made, 2 blocks they do not hold */
    bool plain;         /* every state of its palette has opacity 0, 1 or 15, no shape, no light */
    /* a palette of 4 bits an entry whose states all have opacity 0, 1 or
     * 15 and no shape: cls4[index] is bit 0 "opacity <= 1", bit 1
     * "opacity 0", and the bit floods' rows come from the packed array */
    bool direct4;
    uint8_t cls4[16];
    uint8_t emit4[16]; /* direct4: the luminance of each index (what blocks.c's emitter scan reads) */
    const uint64_t *longs4; /* direct4: the section's packed array */
    uint8_t *kinds;  /* mixed sections, once asked for: 4096 kinds, (y, z, x), then the rows as bits */
} mc__slice;

/* A mixed slice's array: 4096 kinds, then for the bit floods per row
 * (y * 16 + z) 16 bits "opacity <= 1" and (256 rows on) "opacity 0". */
#define MC__SLICE_BYTES (MC_SECTION_BLOCKS + 2 * 256 * sizeof(uint16_t))

/* Blocks of one luminance in a row of 16 of one column that shine into
 * the centre column: the blocks at column-local x lx + i (lx the column's
 * x offset: -16, 0 or 16) for each bit i of lanes, z lz (-16..31),
 * absolute y. A row's blocks go in together (the bit floods OR the lanes
 * in as one word). */
typedef struct mc__emitter {
    int16_t lx, lz;
    int32_t y;
    uint8_t level;
    uint16_t lanes; /* not 0 */
} mc__emitter;

/* What a batch (mc_light_batch_begin) keeps of one column between calls:
 * its slices (their kinds arrays its own), its tops and the blocks of it
 * that shine, none of which depends on the column it is lit with. */
#define MC__BATCH_MAX_EMIT 4096

typedef struct mc__col_entry {
    const mc_column *col; /* NULL: a free entry */
    const mc_registry *reg;
    uint64_t used; /* the call that last used it (the least recent goes first) */
    uint32_t nsec;
    mc__slice *slices; /* nsec of them */
    bool tops_ok, emit_ok;
    bool emit_many; /* more than MC__BATCH_MAX_EMIT rows of emitters: not kept */
    int32_t top[256]; /* z * 16 + x */
    mc__emitter *emit; /* column-local: lx 0, lz 0..15 */
    size_t nemit, emit_cap;
} mc__col_entry;

typedef struct mc__qvec {
    uint32_t *v;
    size_t len, cap;
} mc__qvec;

/* The work grid covers the nine columns whole (48 x 48 blocks) with a wall
 * of one block all round, over rows ylo..: cell (gx, gz, gy) is at
 * gy * 3200 + gz * 64 + gx, gx = local x + 17 (0 and 49 are walls); an
 * index's plane position is its remainder by 3200. Rows of 64 bytes are
 * cache lines; planes of 3200 (not 4096) keep the blocks of a vertical
 * line out of one cache set. */
#define MC__GRID_ROW 64
#define MC__GRID_PLANE 3200

/* The bit floods of the full relight (bitflood.c): per grid row ("layer")
 * of a run, sets of 50 words, one a row z = -1..48 of the nine columns
 * (word r = z + 1; rows -1 and 48 stay empty), bit x = local x + 16
 * (0..47). */
#define MC__BROWS 50

typedef struct mc__bitwork {
    uint64_t *p;     /* light passes, losing 1: opacity 0 or 1 */
    uint64_t *z;     /* opacity 0: sky light at 15 falls through */
    uint64_t *v;     /* lit at the level being flooded or brighter */
    uint64_t *f, *n; /* lit at exactly the last level, at this one */
    int8_t *fr, *nr; /* per layer: the rows (lo, hi) where f, n have bits */
    int8_t *vr;      /* per layer: the rows (lo, hi) where v may have bits (what clear_sets clears) */
    int32_t fy0, fy1, ny0, ny1; /* the layers where f, n have bits */
    int32_t dirty0, dirty1;     /* the layers where v and the planes may have bits (empty elsewhere) */
    int32_t *slot;   /* per layer: its face masks in `faces`, or -1 */
    uint8_t *built;  /* per layer: bit i set when its rows of columns dz = i (rows 1 + 16 i ..) are made */
    uint64_t *faces; /* per shaped layer: 6 exit masks, 6 entry masks */
    uint16_t *planes; /* per layer: 16 rows of the centre column, 4 bit planes of the level */
    size_t layers_cap, faces_cap;
    int32_t nfaces;
    uint32_t *ebucket; /* emitters (indexes into e->emit) by level: those of level L from ecount[L] */
    size_t ecount[17];
    size_t ebucket_cap;
    uint64_t runs_bits, runs_queue; /* runs lit by each kind of flood (for the tests) */
    uint64_t xm[16][MC__BROWS]; /* per level L: the cells less than L from the centre column */
} mc__bitwork;

struct mc_light_engine {
    mc_allocator alloc;
    bool exact_only; /* tests: the queue floods only (no bit floods) */
    bool bits_out;   /* write_rows takes the bit floods' planes */
    mc__bitwork bw;
    mc__light_table tabs[MC__LIGHT_MAX_TABLES];
    unsigned ntabs, next_tab;
    const mc__light_table *tab; /* the call's registry */
    /* the nine columns: index (dz + 1) * 3 + (dx + 1); NULL when absent */
    const mc_column *cols[9];
    int32_t min_sy, min_y;
    uint32_t nsec, height;
    mc__slice *slices; /* 9 * nsec, column-major: the call's own (outside a batch) */
    size_t slices_cap;
    mc__slice *cs[9];      /* the slices of each column this call: in `slices` or a batch entry */
    mc__col_entry *ce[9];  /* the batch entry of each column, or NULL */
    mc__col_entry *batch;  /* the batch's entries (batch_cap of them); NULL: no batch */
    size_t batch_cap;
    uint64_t calls;
    uint8_t **pool; /* 4096-byte kind arrays; pool_used of them in use */
    size_t pool_len, pool_cap, pool_used;
    /* kind arrays (MC__SLICE_BYTES) batch entries gave back, for the next
     * entries and batches: not freed and allocated again (freed at the end
     * of a batch, hundreds went back to the system, and the next batch
     * wrote them as new pages); freed by mc_light_engine_free */
    uint8_t **spare;
    size_t spare_len, spare_cap;
    bool nomem;
    uint32_t states[MC_SECTION_BLOCKS];
    /* the lowest y that sky light reaches falling straight down, per block
     * column of the nine (index (local z + 16) * 48 + local x + 16) */
    int32_t top[48 * 48];
    mc__emitter *emit;
    size_t nemit, emit_cap;
    /* blocks.c's near lanes of a row of 16 (x offset ox = -16, 0, 16; z
     * lz = -16..31; luminance): [(ox + 16) / 16][lz + 16][level] */
    uint16_t near[3][48][16];
    /* rows the full relight needs: +1 where an interval starts, -1 past
     * its end (index y - min_y + 16) */
    int32_t *rows;
    size_t rows_cap;
    /* per row (same index): how far the light of its brightest emitter
     * reaches up and down into the centre column; -1: none (in rows) */
    int32_t *reach;
    /* the grid */
    uint8_t *kind, *sky, *blk;
    size_t grid_rows; /* allocated planes */
    int32_t ylo;      /* absolute y of grid row 1 */
    int32_t gh;       /* rows with the walls */
    int32_t below_top, above_bottom; /* grid rows where the world meets the sections below and above it */
    uint8_t dist[MC__GRID_PLANE]; /* distance to the centre column of each plane position; 255: wall */
    mc__qvec q[16];
    uint8_t edge[4][MC_LIGHT_BYTES]; /* sky below, sky above, block below, block above */
    bool edge_valid[2];
};

/* bitflood.c: sets the run's layers up for rows ya..yb (e->ylo, e->gh as
 * fill_grid does); each layer's sets are made from the slices when a flood
 * first comes near it. 1 done, -1 no memory. */
int mc__light_bits_prepare(mc_light_engine *e, int32_t ya, int32_t yb);
/* Floods sky light (sky band sky_lo..sky_hi inside the run; the tops
 * known) or block light (e->emit) through the prepared layers; the
 * centre column's levels end up in bw.planes. 1 done; 0 the flood came to
 * a block the bit floods do not model (opacity 2..14: the run goes to the
 * queue floods); -1 no memory. */
int mc__light_bits_sky(mc_light_engine *e, int32_t sky_lo, int32_t sky_hi);
int mc__light_bits_block(mc_light_engine *e);
/* Sorts e->emit by level into bw.ebucket (once a call, before the runs'
 * block floods). False: no memory. */
bool mc__light_bits_sort_emitters(mc_light_engine *e);
/* Packs grid row gy of the centre column's planes into a light array's
 * layer (128 bytes). */
void mc__light_bits_put_layer(const mc_light_engine *e, int32_t gy, uint8_t *out);
void mc__light_bits_init(mc_light_engine *e);
void mc__light_bits_free(mc_light_engine *e);

/* Distance (x plus z) of column-local x, z from the centre column. */
static inline unsigned mc__light_dist(int32_t lx, int32_t lz)
{
    const int32_t dx = lx < 0 ? -lx : lx > 15 ? lx - 15 : 0, dz = lz < 0 ? -lz : lz > 15 ? lz - 15 : 0;
    return (unsigned)(dx + dz);
}

/* The same from the engine's table (lx, lz in -16..31). */
static inline unsigned mc__light_dist_at(const mc_light_engine *e, int32_t lx, int32_t lz)
{
    return e->dist[(lz + 17) * MC__GRID_ROW + lx + 17];
}

#endif
