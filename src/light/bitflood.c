/*
 * bitflood.c: the full relight's floods (engine.c's light_run) as level
 * sets over bitsets instead of a queue of blocks.
 *
 * THE IDEA
 * Light spreads by the rule of light.h: into the next block at the level
 * less max(1, opacity). When every block of a run has opacity 0, 1 or 15
 * (real terrain: air, water and leaves, stone), the set of blocks lit at
 * level L or brighter is
 *     S_L = S_{L+1} | (dilate(S_{L+1}) & passable)        (| emitters >= L)
 * where passable is opacity <= 1 and dilate moves every bit one step in
 * the six directions. Only the blocks new at level L+1 (the frontier)
 * can add anything, so each level dilates just its frontier, and only in
 * the layers and rows where it has bits. Sky light's level 15 is what
 * falls straight down through opacity-0 blocks: a layer is the one above
 * it ANDed with its opacity-0 set.
 *
 * A grid row (layer) of the nine columns is 48 rows z of 48 bits x: a
 * word a row, so x+-1 is a shift, z+-1 the next word and y+-1 the next
 * layer. A block whose shape covers some faces (slabs, stairs, snow
 * layers) stops light through those faces: a layer holding such blocks
 * gets per-direction exit and entry masks and its rows take the slower
 * step that applies them. Blocks of opacity 2..14 are not modelled: a run
 * whose floods come to one goes to the queue floods (engine.c).
 *
 * As the queue floods do, level L keeps only the blocks less than L from
 * the centre column (light no brighter than its distance cannot reach it):
 * the result in the centre column is the same, and the far rows of the
 * neighbours are never looked at. The centre column's levels are summed
 * into four bit planes as the levels come (a block's level is the level
 * at which it joins), and packed into nibbles at the end.
 *
 * The world's edges follow engine.c: light leaves the world into the
 * sections below and above it but does not come back, except the straight
 * fall of sky light.
 *
 * A layer's sets are made a row of three columns (16 rows z, dz) at a
 * time, when a flood first comes to those rows (a step's rows, a shining
 * block's row, all of them for sky light's fall): the rows no light
 * reaches are never made (a quarter of them on real terrain), and a block
 * of opacity 2..14 sends the run to the queue floods only when a flood
 * comes to its rows. A step reads no row of a layer outside its own
 * rows lo..hi, which it makes first; the face masks of the layers above
 * and below it only where their frontier is, whose rows are made. They come
 * from the slices' kinds (blocks.c), 16 blocks a test, or for a 4-bit
 * section of unshaped blocks straight from its packed array (a class byte
 * per palette index, a byte shuffle per two rows). In a batch a mixed
 * section's rows as bits are kept after its kinds, so that the nine calls
 * that see it make them once, and a row of three columns is three words
 * ORed. Blocks that shine are put in at their level from e->emit, a row
 * of a layer as one word (e->emit holds rows of 16 as lanes).
 *
 * Where the CPU has AVX2 the floods and the layer building are compiled
 * for it as a whole (bits_sky_avx2, bits_block_avx2, build_layer_avx2:
 * the *_with functions with avx2 true), so that their four-row kernels
 * are inlined rather than called per layer, row of columns and level; the
 * same functions with avx2 false are the portable path.
 */
#include "light/blocks.h"

#include "bits/bits_private.h"

#include <string.h>
#ifdef MC_HAVE_AVX512_KERNELS /* x86-64, GNU C, not MC_PORTABLE */
#include <immintrin.h>

/* Rows z0..z1-1 of a layer of a 4-bit section (its longs from the layer's
 * first: a long a row of 16) as bits, ORed at x0 into p, z (the layer's
 * rows of the column): each long's nibbles through the class table cls
 * (bit 0 into p, bit 1 into z) with a byte shuffle. */
__attribute__((target("avx2"))) static inline void rows_direct4(const uint64_t *longs, const uint8_t cls[16], int z0,
                                                         int z1, int x0, uint64_t *p, uint64_t *z)
{
    const __m128i tab = _mm_loadu_si128((const __m128i *)(const void *)cls), nibble = _mm_set1_epi8(15);
    const __m256i tab2 = _mm256_broadcastsi128_si256(tab), nibble2 = _mm256_set1_epi8(15);
    int i = z0;
    for (; i + 3 < z1; i += 4) { /* four rows a step: a 128-bit lane holds rows i, i + 1 (and i + 2, i + 3) */
        const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(longs + i));
        const __m256i lo = _mm256_and_si256(w, nibble2), hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), nibble2);
        const __m256i c02 = _mm256_shuffle_epi8(tab2, _mm256_unpacklo_epi8(lo, hi)); /* rows i, i + 2 */
        const __m256i c13 = _mm256_shuffle_epi8(tab2, _mm256_unpackhi_epi8(lo, hi)); /* rows i + 1, i + 3 */
        const uint32_t p02 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(c02, 7));
        const uint32_t z02 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(c02, 6));
        const uint32_t p13 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(c13, 7));
        const uint32_t z13 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(c13, 6));
        p[i] |= (uint64_t)(p02 & 0xFFFFu) << x0;
        z[i] |= (uint64_t)(z02 & 0xFFFFu) << x0;
        p[i + 1] |= (uint64_t)(p13 & 0xFFFFu) << x0;
        z[i + 1] |= (uint64_t)(z13 & 0xFFFFu) << x0;
        p[i + 2] |= (uint64_t)(p02 >> 16) << x0;
        z[i + 2] |= (uint64_t)(z02 >> 16) << x0;
        p[i + 3] |= (uint64_t)(p13 >> 16) << x0;
        z[i + 3] |= (uint64_t)(z13 >> 16) << x0;
    }
    for (; i + 1 < z1; i += 2) { /* two rows a step */
        const __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(longs + i));
        const __m128i lo = _mm_and_si128(w, nibble), hi = _mm_and_si128(_mm_srli_epi16(w, 4), nibble);
        const __m128i c0 = _mm_shuffle_epi8(tab, _mm_unpacklo_epi8(lo, hi)); /* row i's entries in order */
        const __m128i c1 = _mm_shuffle_epi8(tab, _mm_unpackhi_epi8(lo, hi));
        p[i] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c0, 7)) << x0;
        z[i] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c0, 6)) << x0;
        p[i + 1] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c1, 7)) << x0;
        z[i + 1] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c1, 6)) << x0;
    }
    for (; i < z1; i++) {
        const __m128i w = _mm_loadl_epi64((const __m128i *)(const void *)(longs + i));
        const __m128i lo = _mm_and_si128(w, nibble), hi = _mm_and_si128(_mm_srli_epi16(w, 4), nibble);
        const __m128i c = _mm_shuffle_epi8(tab, _mm_unpacklo_epi8(lo, hi)); /* entries 0..15 in order */
        p[i] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c, 7)) << x0;
        z[i] |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_slli_epi16(c, 6)) << x0;
    }
}
#endif

#define ROWS MC__BROWS
#define LAYER(a, gy) ((a) + (size_t)(gy) * ROWS)
#define ALL48 0xFFFFFFFFFFFFull

enum { DOWN, UP, NORTH, SOUTH, WEST, EAST };
static const uint8_t face_bit[6] = {MC__FACE_DOWN, MC__FACE_UP, MC__FACE_NORTH, MC__FACE_SOUTH,
                                    MC__FACE_WEST, MC__FACE_EAST};
static const uint8_t face_opp[6] = {MC__FACE_UP, MC__FACE_DOWN, MC__FACE_SOUTH, MC__FACE_NORTH,
                                    MC__FACE_EAST, MC__FACE_WEST};

void mc__light_bits_init(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    memset(b->xm, 0, sizeof b->xm);
    for (int L = 1; L < 16; L++)
        for (int32_t z = 0; z < 48; z++)
            for (int32_t x = 0; x < 48; x++)
                if (mc__light_dist(x - 16, z - 16) < (unsigned)L)
                    b->xm[L][z + 1] |= 1ull << x;
}

/* Frees the per-layer arrays (layers_cap of each). */
static void free_layers(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    const size_t n = b->layers_cap;
    uint64_t **sets[5] = {&b->p, &b->z, &b->v, &b->f, &b->n};
    for (int i = 0; i < 5; i++) {
        if (*sets[i])
            e->alloc.free(e->alloc.user, *sets[i], n * ROWS * sizeof(uint64_t));
        *sets[i] = NULL;
    }
    int8_t **ranges[3] = {&b->fr, &b->nr, &b->vr};
    for (int i = 0; i < 3; i++) {
        if (*ranges[i])
            e->alloc.free(e->alloc.user, *ranges[i], n * 2);
        *ranges[i] = NULL;
    }
    if (b->slot)
        e->alloc.free(e->alloc.user, b->slot, n * sizeof *b->slot);
    if (b->built)
        e->alloc.free(e->alloc.user, b->built, n);
    b->built = NULL;
    if (b->planes)
        e->alloc.free(e->alloc.user, b->planes, n * 64 * sizeof *b->planes);
    b->slot = NULL;
    b->planes = NULL;
    b->layers_cap = 0;
}

void mc__light_bits_free(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    free_layers(e);
    if (b->faces)
        e->alloc.free(e->alloc.user, b->faces, b->faces_cap * 12 * ROWS * sizeof(uint64_t));
    if (b->ebucket)
        e->alloc.free(e->alloc.user, b->ebucket, b->ebucket_cap * sizeof *b->ebucket);
    b->faces = NULL;
    b->ebucket = NULL;
    b->faces_cap = b->ebucket_cap = 0;
}

/* Room for `layers` layers (the old arrays' contents are not kept). */
static bool grow_layers(mc_light_engine *e, size_t layers)
{
    mc__bitwork *b = &e->bw;
    if (layers <= b->layers_cap)
        return true;
    free_layers(e);
    const size_t n = layers < 64 ? 64 : layers;
    uint64_t **sets[5] = {&b->p, &b->z, &b->v, &b->f, &b->n};
    bool ok = true;
    for (int i = 0; i < 5; i++)
        ok = (*sets[i] = e->alloc.alloc(e->alloc.user, n * ROWS * sizeof(uint64_t))) && ok;
    ok = (b->fr = e->alloc.alloc(e->alloc.user, n * 2)) && ok;
    ok = (b->nr = e->alloc.alloc(e->alloc.user, n * 2)) && ok;
    ok = (b->vr = e->alloc.alloc(e->alloc.user, n * 2)) && ok;
    ok = (b->slot = e->alloc.alloc(e->alloc.user, n * sizeof *b->slot)) && ok;
    ok = (b->built = e->alloc.alloc(e->alloc.user, n)) && ok;
    ok = (b->planes = e->alloc.alloc(e->alloc.user, n * 64 * sizeof *b->planes)) && ok;
    b->layers_cap = n;
    if (!ok) {
        free_layers(e); /* frees what was had (alloc.free takes the sizes asked) */
        return false;
    }
    memset(b->f, 0, n * ROWS * sizeof(uint64_t));
    memset(b->n, 0, n * ROWS * sizeof(uint64_t));
    memset(b->v, 0, n * ROWS * sizeof(uint64_t));
    memset(b->planes, 0, n * 64 * sizeof *b->planes);
    b->dirty0 = INT32_MAX;
    b->dirty1 = -1;
    for (size_t i = 0; i < n; i++) {
        b->fr[2 * i] = b->nr[2 * i] = b->vr[2 * i] = 127;
        b->fr[2 * i + 1] = b->nr[2 * i + 1] = b->vr[2 * i + 1] = -1;
    }
    return true;
}

/* ------------------------------------------------------------- the layers */

/* The face masks of layer gy (made on first use: every block may pass). */
static uint64_t *layer_faces(mc_light_engine *e, int32_t gy)
{
    mc__bitwork *b = &e->bw;
    if (b->slot[gy] < 0) {
        uint64_t *f = mc__light_grow(e, b->faces, &b->faces_cap, (size_t)b->nfaces + 1, 12 * ROWS * sizeof(uint64_t),
                                     8);
        if (!f)
            return NULL;
        b->faces = f;
        b->slot[gy] = b->nfaces++;
        memset(b->faces + (size_t)b->slot[gy] * 12 * ROWS, 0xFF, 12 * ROWS * sizeof(uint64_t));
    }
    return b->faces + (size_t)b->slot[gy] * 12 * ROWS;
}

/* A block of special kind k at bit x of row r of layer gy: its opacity
 * into p, z; its faces into the layer's masks. False: opacity 2..14 (or no
 * memory: e->nomem). */
static bool special_block(mc_light_engine *e, int32_t gy, int32_t r, int x, unsigned k, uint64_t *p, uint64_t *z)
{
    const mc__light_kinds *K = &e->tab->kinds;
    const unsigned o = K->opacity[k], f = K->faces[k];
    const uint64_t bit = 1ull << x;
    if (o > 1 && o < 15)
        return false;
    if (o <= 1)
        *p |= bit;
    if (o == 0)
        *z |= bit;
    if (f) {
        uint64_t *m = layer_faces(e, gy);
        if (!m) {
            e->nomem = true;
            return false;
        }
        for (int d = 0; d < 6; d++) {
            if (f & face_bit[d])
                m[d * ROWS + r] &= ~bit; /* cannot leave that way */
            if (f & face_opp[d])
                m[(6 + d) * ROWS + r] &= ~bit; /* cannot come in moving that way */
        }
    }
    return true;
}

/* Sets the 16 bits at x0 of row r of layer gy from a row of 16 kinds. */
static MC__LIGHT_INLINE bool row_bits(mc_light_engine *e, int32_t gy, int32_t r, int x0, const uint8_t *kinds,
                                      uint64_t *p, uint64_t *z)
{
    const mc__row16 v = mc__row_load(kinds);
    const unsigned special = mc__row_bits(v); /* kinds 128.. */
    const unsigned le1 = mc__row_bits(mc__row_eq(mc__row_and(v, mc__row_splat(0xFE)), mc__row_splat(0)));
    if ((le1 | special | mc__row_bits(mc__row_eq(v, mc__row_splat(15)))) != 0xFFFFu)
        return false; /* opacity 2..14 */
    *p |= (uint64_t)le1 << x0;
    *z |= (uint64_t)mc__row_bits(mc__row_eq(v, mc__row_splat(0))) << x0;
    for (unsigned lanes = special; lanes; lanes &= lanes - 1) {
        const int x = mc__lowest_bit(lanes);
        if (!special_block(e, gy, r, x0 + x, kinds[x], p, z))
            return false;
    }
    return true;
}

/* The 16 rows (z) of one layer of a mixed slice's kinds (`kinds`, 256
 * of them) as bits: "opacity <= 1" into bp[0..15], "opacity 0" into
 * bz[0..15]. False when the layer holds blocks whose faces or opacity
 * (2..14) the rows do not say. plain: the slice's kinds are 0, 1, 15. */
static bool layer_bits(const mc__light_kinds *K, const uint8_t *kinds, bool plain, uint16_t *bp, uint16_t *bz)
{
    for (int i = 0; i < 16; i++) {
        const uint8_t *row = kinds + i * 16;
        const mc__row16 v = mc__row_load(row);
        unsigned p = mc__row_bits(mc__row_eq(mc__row_and(v, mc__row_splat(0xFE)), mc__row_splat(0)));
        unsigned z = mc__row_bits(mc__row_eq(v, mc__row_splat(0)));
        if (!plain) {
            const unsigned special = mc__row_bits(v);
            if ((p | special | mc__row_bits(mc__row_eq(v, mc__row_splat(15)))) != 0xFFFFu)
                return false;
            for (unsigned lanes = special; lanes; lanes &= lanes - 1) {
                const int x = mc__lowest_bit(lanes);
                const unsigned o = K->opacity[row[x]];
                if (K->faces[row[x]] || (o > 1 && o < 15))
                    return false;
                p |= (o <= 1 ? 1u : 0u) << x;
                z |= (o == 0 ? 1u : 0u) << x;
            }
        }
        bp[i] = (uint16_t)p;
        bz[i] = (uint16_t)z;
    }
    return true;
}

/* Makes a mixed slice's rows as bits, once (a batch keeps them for the
 * nine calls that see the slice): bits_state 1, or 2 when it holds blocks
 * whose faces or opacity (2..14) the rows do not say. */
static void slice_bits(const mc__light_kinds *K, mc__slice *sl)
{
    uint16_t *bp = (uint16_t *)(void *)(sl->kinds + MC_SECTION_BLOCKS), *bz = bp + 256;
    sl->bits_state = 2;
    for (int y = 0; y < 16; y++)
        if (!layer_bits(K, sl->kinds + y * 256, sl->plain, bp + y * 16, bz + y * 16))
            return;
    sl->bits_state = 1;
}

static inline int32_t floor16(int32_t y)
{
    return y >= 0 ? y / 16 : -((15 - y) / 16);
}

/* ORs column c = 3 dz + dx's part of layer gy (absolute y, section index
 * k) into its rows p, z: 1 done, 0 a block the bit floods do not model,
 * -1 no memory. */
static MC__LIGHT_INLINE int column_layer(mc_light_engine *e, int dz, int dx, int32_t gy, int32_t y, int32_t k,
                                         uint64_t *p, uint64_t *z, bool avx2)
{
    const int c = dz * 3 + dx, x0 = dx * 16;
    /* the rows z0..z1-1 of the column that come within 14 of the centre
     * column (the others stay empty: nothing there counts) */
    const int near = dx == 1 ? 0 : 1, z0 = dz == 0 ? 2 + near : 0, z1 = dz == 2 ? 14 - near : 16;
    const int32_t r0 = 1 + dz * 16;
    const mc__slice *sl = NULL;
    unsigned fill = 0; /* the air below and above the world */
    if (k >= 0 && (uint32_t)k < e->nsec) {
#ifdef MC_HAVE_AVX512_KERNELS
        sl = mc__light_slice(e, c, (uint32_t)k, false);
        if (sl->direct4 && sl->bits_state != 1 && avx2) { /* from the packed array, no kinds */
            rows_direct4(sl->longs4 + ((y & 15) << 4), sl->cls4, z0, z1, x0, p + r0, z + r0);
            return 1;
        }
#endif
        if (!(sl = mc__light_slice(e, c, (uint32_t)k, true)))
            return -1;
        if (sl->uniform >= 0) {
            fill = (unsigned)sl->uniform;
            sl = NULL;
        }
    }
    if (!sl && fill < MC__KIND_PLAIN) { /* a plain uniform 16 x 16 */
        if (fill > 1 && fill < 15)
            return 0;
        const uint64_t pm = fill <= 1 ? 0xFFFFull << x0 : 0, zm = fill == 0 ? 0xFFFFull << x0 : 0;
        for (int32_t r = r0 + z0; r < r0 + z1; r++)
            p[r] |= pm, z[r] |= zm;
        return 1;
    }
    if (sl && sl->bits_state == 0 && e->ce[c]) /* kept by a batch: made once for the nine calls that see it */
        slice_bits(&e->tab->kinds, (mc__slice *)sl); /* the engine's own slice */
    if (sl && sl->bits_state == 1) {
        const uint16_t *bp = (const uint16_t *)(const void *)(sl->kinds + MC_SECTION_BLOCKS) + ((y & 15) << 4);
        for (int32_t i = z0; i < z1; i++) {
            p[r0 + i] |= (uint64_t)bp[i] << x0;
            z[r0 + i] |= (uint64_t)bp[256 + i] << x0;
        }
        return 1;
    }
    uint8_t uni[16];
    if (!sl)
        memset(uni, (int)fill, sizeof uni);
    const uint8_t *src = sl ? sl->kinds + ((y & 15) << 8) + z0 * 16 : uni;
    if (sl && sl->plain) { /* kinds 0, 1, 15 only: two tests a row */
        for (int32_t r = r0 + z0; r < r0 + z1; r++, src += 16) {
            const mc__row16 v = mc__row_load(src);
            p[r] |= (uint64_t)mc__row_bits(mc__row_eq(mc__row_and(v, mc__row_splat(0xFE)), mc__row_splat(0))) << x0;
            z[r] |= (uint64_t)mc__row_bits(mc__row_eq(v, mc__row_splat(0))) << x0;
        }
        return 1;
    }
    for (int32_t r = r0 + z0; r < r0 + z1; r++, src += sl ? 16 : 0)
        if (!row_bits(e, gy, r, x0, src, &p[r], &z[r]))
            return e->nomem ? -1 : 0;
    return 1;
}

#define ALL_BANDS 7u /* built: the three rows of columns */

int mc__light_bits_prepare(mc_light_engine *e, int32_t ya, int32_t yb)
{
    mc__bitwork *b = &e->bw;
    e->ylo = ya;
    e->gh = yb - ya + 3;
    if (!grow_layers(e, (size_t)e->gh))
        return -1;
    b->nfaces = 0;
    memset(b->p, 0, ROWS * sizeof *b->p); /* the walls: nothing passes */
    memset(b->z, 0, ROWS * sizeof *b->z);
    memset(LAYER(b->p, e->gh - 1), 0, ROWS * sizeof *b->p);
    memset(LAYER(b->z, e->gh - 1), 0, ROWS * sizeof *b->z);
    for (int32_t gy = 0; gy < e->gh; gy++)
        b->slot[gy] = -1;
    memset(b->built, 0, (size_t)e->gh);
    b->built[0] = b->built[e->gh - 1] = ALL_BANDS;
    return 1;
}

/* The 16 rows (z) of column c's part of a layer (section index k; ry:
 * its y in the section times 16) as bits, when they are to be had without
 * looking at blocks: *pp, *zp point at its "opacity <= 1" and "opacity 0"
 * rows (a batch's mixed slice's kept rows, or `own` filled with a uniform
 * section's). 1 done; 0 not so (the call's own mixed slice, or shaped or
 * shining blocks: column_layer does them); -1 no memory; -2 a block the
 * bit floods do not model. */
static MC__LIGHT_INLINE int column_rows(mc_light_engine *e, int c, int32_t k, int32_t ry, uint16_t own[32],
                                        const uint16_t **pp, const uint16_t **zp)
{
    unsigned fill = 0; /* an absent column's wall: nothing passes; the air below and above the world */
    if (!e->cols[c]) {
        fill = 15;
    } else if (k >= 0 && (uint32_t)k < e->nsec) {
        /* kinds only for a batch's rows as bits: the call's own mixed slice
         * goes to column_layer, which unpacks it only if it must (not a
         * direct4 one) */
        mc__slice *sl = (mc__slice *)mc__light_slice(e, c, (uint32_t)k, e->ce[c] != NULL); /* the call's or the batch's own */
        if (!sl)
            return -1;
        if (sl->uniform < 0) {
            if (!e->ce[c])
                return 0;
            if (sl->bits_state == 0)
                slice_bits(&e->tab->kinds, sl); /* a batch's: once for the nine calls that see it */
            if (sl->bits_state == 1) {
                *pp = (const uint16_t *)(const void *)(sl->kinds + MC_SECTION_BLOCKS) + ry;
                *zp = *pp + 256;
                return 1;
            }
            return 0; /* the call's own slice: column_layer makes this layer's rows only */
        }
        fill = (unsigned)sl->uniform;
        if (fill >= MC__KIND_PLAIN)
            return 0;
        if (fill > 1 && fill < 15)
            return -2;
    }
    const uint16_t pm = fill <= 1 ? 0xFFFFu : 0, zm = fill == 0 ? 0xFFFFu : 0;
    for (int i = 0; i < 16; i++)
        own[i] = pm, own[16 + i] = zm;
    *pp = own;
    *zp = own + 16;
    return 1;
}

/* Makes the rows of layer gy's sets of the columns dz = i for each bit i
 * of `bands` from the nine columns, the first time a flood comes near
 * them (rows no light reaches are never made): 1 done, 0 they hold a
 * block the bit floods do not model, -1 no memory. A row of three
 * columns whose rows are to be had as bits (column_rows) is three words
 * ORed a row; the others go block by block (column_layer). */
static MC__LIGHT_INLINE int build_layer_with(mc_light_engine *e, int32_t gy, unsigned bands, bool avx2)
{
    mc__bitwork *b = &e->bw;
    const int32_t y = e->ylo + gy - 1, k = floor16(y) - e->min_sy, ry = (y & 15) << 4;
    uint64_t *p = LAYER(b->p, gy), *z = LAYER(b->z, gy);
    if (!b->built[gy])
        p[0] = z[0] = p[ROWS - 1] = z[ROWS - 1] = 0; /* the walls */
    b->built[gy] |= (uint8_t)bands;
    for (int dz = 0; dz < 3; dz++) {
        if (!(bands >> dz & 1u))
            continue;
        uint16_t own[3][32];
        const uint16_t *pp[3], *zp[3];
        int fast = 1;
        for (int dx = 0; dx < 3 && fast == 1; dx++) {
            fast = column_rows(e, dz * 3 + dx, k, ry, own[dx], &pp[dx], &zp[dx]);
        }
        uint64_t *pr = p + 1 + dz * 16, *zr = z + 1 + dz * 16;
        if (fast < 0)
            return fast == -1 ? -1 : 0;
        if (fast == 1) {
            for (int i = 0; i < 16; i++) {
                pr[i] = pp[0][i] | (uint64_t)pp[1][i] << 16 | (uint64_t)pp[2][i] << 32;
                zr[i] = zp[0][i] | (uint64_t)zp[1][i] << 16 | (uint64_t)zp[2][i] << 32;
            }
            continue;
        }
        memset(pr, 0, 16 * sizeof *pr);
        memset(zr, 0, 16 * sizeof *zr);
        for (int dx = 0; dx < 3; dx++) {
            /* an absent column: a wall */
            const int ready = e->cols[dz * 3 + dx] ? column_layer(e, dz, dx, gy, y, k, p, z, avx2) : 1;
            if (ready <= 0)
                return ready;
        }
    }
    return 1;
}

#ifdef MC_HAVE_AVX512_KERNELS
/* build_layer_with compiled for AVX2 as a whole (rows_direct4 inlined). */
__attribute__((target("avx2"))) static int build_layer_avx2(mc_light_engine *e, int32_t gy, unsigned bands)
{
    return build_layer_with(e, gy, bands, true);
}
#endif

static int build_layer(mc_light_engine *e, int32_t gy, unsigned bands)
{
#ifdef MC_HAVE_AVX512_KERNELS
    if (mc__bits_have_avx2())
        return build_layer_avx2(e, gy, bands);
#endif
    return build_layer_with(e, gy, bands, false);
}

/* Layer gy's rows lo..hi (1..48) made: 1, or what build_layer said. */
static inline int layer_ready(mc_light_engine *e, int32_t gy, int32_t lo, int32_t hi)
{
    const unsigned built = e->bw.built[gy];
    if (built == ALL_BANDS)
        return 1;
    const unsigned need = (ALL_BANDS << ((unsigned)(lo - 1) >> 4)) & (ALL_BANDS >> (2 - ((unsigned)(hi - 1) >> 4)));
    const unsigned missing = need & ~built;
    return missing ? build_layer(e, gy, missing) : 1;
}

/* -------------------------------------------------------------- flooding */

/* The multiplier that puts a row's 16 centre bits into the bit planes of
 * level L at once: a 1 in the 16-bit lane of each plane k whose bit k of L
 * is set (the four planes of a row read as one 64-bit word). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLANE_LANE(L, k) ((uint64_t)((L) >> (k) & 1) << (16 * (3 - (k))))
#else
#define PLANE_LANE(L, k) ((uint64_t)((L) >> (k) & 1) << (16 * (k)))
#endif
#define LEVEL_LANES(L) (PLANE_LANE(L, 0) | PLANE_LANE(L, 1) | PLANE_LANE(L, 2) | PLANE_LANE(L, 3))
static const uint64_t level_lanes_of[16] = {
    LEVEL_LANES(0),  LEVEL_LANES(1),  LEVEL_LANES(2),  LEVEL_LANES(3),  LEVEL_LANES(4),  LEVEL_LANES(5),
    LEVEL_LANES(6),  LEVEL_LANES(7),  LEVEL_LANES(8),  LEVEL_LANES(9),  LEVEL_LANES(10), LEVEL_LANES(11),
    LEVEL_LANES(12), LEVEL_LANES(13), LEVEL_LANES(14), LEVEL_LANES(15)};

static inline uint64_t level_lanes(int L)
{
    return level_lanes_of[L];
}

/* ORs the centre column's bits of row word n (bits 16..31) into a row's
 * four planes pl[0..3] at the level whose level_lanes is lanes. */
static inline void plane_or(uint16_t *pl, uint64_t n, uint64_t lanes)
{
    uint64_t q;
    memcpy(&q, pl, sizeof q);
    q |= (n >> 16 & 0xFFFFu) * lanes; /* (no lane carries into the next) */
    memcpy(pl, &q, sizeof q);
}

/* Notes the bits n (new at level L) of row r of layer gy: the range of
 * rows with bits, and the centre column's planes. */
static inline void joined(mc__bitwork *b, int32_t gy, int32_t r, uint64_t n, int L)
{
    int8_t *nr = b->nr + 2 * gy;
    if (gy < b->ny0)
        b->ny0 = gy;
    if (gy > b->ny1)
        b->ny1 = gy;
    if (r < nr[0])
        nr[0] = (int8_t)r;
    if (r > nr[1])
        nr[1] = (int8_t)r;
    if (r >= 17 && r < 33) /* the centre column: the level's bits into the planes */
        plane_or(b->planes + (size_t)gy * 64 + (size_t)(r - 17) * 4, n, level_lanes(L));
}

/* Notes the rows first..last of layer gy where a step lit blocks at level
 * L (they are in n, and nothing else is there yet): as joined(), for the
 * whole layer at once. */
#ifdef MC_HAVE_AVX512_KERNELS
/* The centre column's rows lo..hi (17..32) of a layer's new bits n into
 * its planes (pl: the layer's) at the level whose level_lanes is lanes,
 * four rows a step: the whole blocks of rows 17-20, .. 29-32 that hold
 * lo..hi (the rows added have no bits new at this level, or ones already
 * ORed in). A row's centre bits (bits 16..31 of its word) go to each of
 * its four planes with a byte shuffle, masked to the level's planes. */
__attribute__((target("avx2"))) static inline void centre_planes_avx2(uint16_t *pl, const uint64_t *n, int32_t lo,
                                                                     int32_t hi, uint64_t lanes)
{
    const __m256i spread = _mm256_setr_epi8(2, 3, 2, 3, 2, 3, 2, 3, 10, 11, 10, 11, 10, 11, 10, 11, 2, 3, 2, 3, 2, 3, 2,
                                            3, 10, 11, 10, 11, 10, 11, 10, 11);
    const __m256i mask = _mm256_set1_epi64x((long long)(lanes * 0xFFFFu)); /* 0xFFFF in the level's planes */
    for (int32_t blk = (lo - 17) >> 2; blk <= (hi - 17) >> 2; blk++) {
        const __m256i rows = _mm256_loadu_si256((const __m256i *)(const void *)(n + 17 + 4 * blk));
        __m256i *dst = (__m256i *)(void *)(pl + 16 * blk);
        const __m256i bits = _mm256_and_si256(_mm256_shuffle_epi8(rows, spread), mask);
        _mm256_storeu_si256(dst, _mm256_or_si256(_mm256_loadu_si256(dst), bits));
    }
}
#endif

static MC__LIGHT_INLINE void layer_joined(mc__bitwork *b, int32_t gy, int32_t first, int32_t last, int L, bool avx2)
{
    int8_t *nr = b->nr + 2 * gy;
    if (gy < b->ny0)
        b->ny0 = gy;
    if (gy > b->ny1)
        b->ny1 = gy;
    if (first < nr[0])
        nr[0] = (int8_t)first;
    if (last > nr[1])
        nr[1] = (int8_t)last;
    const uint64_t *n = LAYER(b->n, gy), lanes = level_lanes(L);
#ifdef MC_HAVE_AVX512_KERNELS
    if (avx2) {
        const int32_t lo = first > 17 ? first : 17, hi = last < 32 ? last : 32;
        if (lo <= hi)
            centre_planes_avx2(b->planes + (size_t)gy * 64, n, lo, hi, lanes);
        return;
    }
#else
    (void)avx2;
#endif
    for (int32_t r = first > 17 ? first : 17; r <= last && r < 33; r++) /* the centre column */
        plane_or(b->planes + (size_t)gy * 64 + (size_t)(r - 17) * 4, n[r], lanes);
}

#ifdef MC_HAVE_AVX512_KERNELS
/* step_plain four rows at a time (AVX2; the same sums as step_plain's, so
 * the same bits): rows lo..hi less the last hi - lo + 1 mod 4, which it
 * returns for step_plain to finish. *first, *last as step_plain's. */
__attribute__((target("avx2"))) static inline int32_t step_plain4(mc__bitwork *b, int32_t gy, int32_t lo, int32_t hi,
                                                                  int L, uint64_t mb, uint64_t ma, int32_t *first,
                                                                  int32_t *last)
{
    typedef uint64_t v4u64 __attribute__((vector_size(32)));
    const uint64_t *f = LAYER(b->f, gy), *fb = LAYER(b->f, gy - 1), *fa = LAYER(b->f, gy + 1);
    const uint64_t *p = LAYER(b->p, gy), *xm = b->xm[L];
    uint64_t *v = LAYER(b->v, gy), *n = LAYER(b->n, gy);
    const v4u64 vmb = {mb, mb, mb, mb}, vma = {ma, ma, ma, ma};
    int32_t r = lo;
    for (; r + 3 <= hi; r += 4) {
        v4u64 fr, fm, fp, fbr, far, pr, xr, vr;
        memcpy(&fr, f + r, 32);
        memcpy(&fm, f + r - 1, 32);
        memcpy(&fp, f + r + 1, 32);
        memcpy(&fbr, fb + r, 32);
        memcpy(&far, fa + r, 32);
        memcpy(&pr, p + r, 32);
        memcpy(&xr, xm + r, 32);
        memcpy(&vr, v + r, 32);
        const v4u64 a = fr << 1 | fr >> 1 | fm | fp | (fbr & vmb) | (far & vma);
        const v4u64 lit = a & pr & xr & ~vr;
        vr |= lit;
        memcpy(n + r, &lit, 32); /* (n is empty here before) */
        memcpy(v + r, &vr, 32);
        const __m256i none = _mm256_cmpeq_epi64((__m256i)lit, _mm256_setzero_si256());
        const unsigned rows = 15u & ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(none)); /* rows with bits */
        if (rows) {
            const int32_t r0 = r + __builtin_ctz(rows), r1 = r + 31 - __builtin_clz(rows);
            *first = *first < r0 ? *first : r0;
            *last = r1;
        }
    }
    return r;
}
#endif

/* One level's step in layer gy, rows lo..hi: the blocks that the frontier
 * (f, level L + 1) lights at L. up_ok: light may come up from layer gy - 1;
 * down_ok: down from gy + 1. */
static MC__LIGHT_INLINE void step_plain(mc__bitwork *b, int32_t gy, int32_t lo, int32_t hi, int L, bool up_ok,
                                        bool down_ok, bool avx2)
{
    const uint64_t *f = LAYER(b->f, gy), *fb = LAYER(b->f, gy - 1), *fa = LAYER(b->f, gy + 1);
    const uint64_t *p = LAYER(b->p, gy), *xm = b->xm[L];
    const uint64_t mb = up_ok ? ~0ull : 0, ma = down_ok ? ~0ull : 0;
    uint64_t *v = LAYER(b->v, gy), *n = LAYER(b->n, gy);
    int32_t first = INT32_MAX, last = -1;
    int32_t r = lo;
#ifdef MC_HAVE_AVX512_KERNELS
    if (avx2 && hi - lo >= 3)
        r = step_plain4(b, gy, lo, hi, L, mb, ma, &first, &last);
#else
    (void)avx2;
#endif
#if defined(__GNUC__)
    typedef uint64_t v2u64 __attribute__((vector_size(16)));
    const v2u64 vmb = {mb, mb}, vma = {ma, ma};
    for (; r + 1 <= hi; r += 2) { /* two rows at a time (SSE2, NEON) */
        v2u64 fr, fm, fp, fbr, far, pr, xr, vr;
        memcpy(&fr, f + r, 16);
        memcpy(&fm, f + r - 1, 16);
        memcpy(&fp, f + r + 1, 16);
        memcpy(&fbr, fb + r, 16);
        memcpy(&far, fa + r, 16);
        memcpy(&pr, p + r, 16);
        memcpy(&xr, xm + r, 16);
        memcpy(&vr, v + r, 16);
        const v2u64 a = fr << 1 | fr >> 1 | fm | fp | (fbr & vmb) | (far & vma);
        const v2u64 lit = a & pr & xr & ~vr;
        vr |= lit;
        memcpy(n + r, &lit, 16); /* (n is empty here before) */
        memcpy(v + r, &vr, 16);
        if (lit[0] | lit[1]) {
            const int32_t r0 = lit[0] ? r : r + 1, r1 = lit[1] ? r + 1 : r;
            first = first < r0 ? first : r0;
            last = r1;
        }
    }
#endif
    for (; r <= hi; r++) {
        const uint64_t a = f[r] << 1 | f[r] >> 1 | f[r - 1] | f[r + 1] | (fb[r] & mb) | (fa[r] & ma);
        const uint64_t lit = a & p[r] & xm[r] & ~v[r];
        n[r] = lit; /* (n is empty here before) */
        v[r] |= lit;
        if (lit) {
            first = first < r ? first : r;
            last = r;
        }
    }
    if (first <= last)
        layer_joined(b, gy, first, last, L, avx2);
}

/* The same where layer gy or one next to it has blocks that cover faces. */
static MC__LIGHT_INLINE void step_faces(mc__bitwork *b, int32_t gy, int32_t lo, int32_t hi, int L, bool up_ok,
                                        bool down_ok, bool avx2)
{
    const uint64_t *f = LAYER(b->f, gy), *fb = LAYER(b->f, gy - 1), *fa = LAYER(b->f, gy + 1);
    const uint64_t *p = LAYER(b->p, gy), *xm = b->xm[L];
    const int32_t sb = b->slot[gy - 1], s = b->slot[gy], sa = b->slot[gy + 1];
    const uint64_t *mb = sb >= 0 ? b->faces + (size_t)sb * 12 * ROWS : NULL;
    const uint64_t *m = s >= 0 ? b->faces + (size_t)s * 12 * ROWS : NULL;
    const uint64_t *ma = sa >= 0 ? b->faces + (size_t)sa * 12 * ROWS : NULL;
#define MASK(mm, i, r) ((mm) ? (mm)[(i) * ROWS + (r)] : ~0ull)
    uint64_t *v = LAYER(b->v, gy), *n = LAYER(b->n, gy);
    int32_t first = INT32_MAX, last = -1;
    for (int32_t r = lo; r <= hi; r++) {
        uint64_t a = ((f[r] & MASK(m, EAST, r)) << 1 & MASK(m, 6 + EAST, r)) |
                     ((f[r] & MASK(m, WEST, r)) >> 1 & MASK(m, 6 + WEST, r)) |
                     (f[r - 1] & MASK(m, SOUTH, r - 1) & MASK(m, 6 + SOUTH, r)) |
                     (f[r + 1] & MASK(m, NORTH, r + 1) & MASK(m, 6 + NORTH, r));
        if (up_ok)
            a |= fb[r] & MASK(mb, UP, r) & MASK(m, 6 + UP, r);
        if (down_ok)
            a |= fa[r] & MASK(ma, DOWN, r) & MASK(m, 6 + DOWN, r);
        const uint64_t lit = a & p[r] & xm[r] & ~v[r];
        n[r] = lit; /* (n is empty here before) */
        v[r] |= lit;
        if (lit) {
            first = first < r ? first : r;
            last = r;
        }
    }
    if (first <= last)
        layer_joined(b, gy, first, last, L, avx2);
#undef MASK
}

static inline int32_t imin(int32_t a, int32_t b)
{
    return a < b ? a : b;
}
static inline int32_t imax(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

/* Level L from the frontier of level L + 1 (b->f, b->fr) into b->n,
 * b->nr; fall: sky light at 15 may still fall from the section above the
 * world into it (the level-14 step of sky light: see engine.c's sky_fall).
 * 1 done, else what layer_ready said of a layer it came to. */
static MC__LIGHT_INLINE int step_with(mc_light_engine *e, int L, bool fall, bool avx2)
{
    mc__bitwork *b = &e->bw;
    const int32_t below_top = e->min_y - 1 - e->ylo + 1, above_bottom = e->min_y + (int32_t)e->height - e->ylo + 1;
    const int32_t rmin = imax(1, 18 - L), rmax = imin(48, 31 + L);
    const int32_t gy0 = imax(1, b->fy0 - 1), gy1 = imin(e->gh - 2, b->fy1 + 1);
    for (int32_t gy = gy0; gy <= gy1; gy++) {
        const int8_t *fb = b->fr + 2 * (gy - 1), *f = b->fr + 2 * gy, *fa = b->fr + 2 * (gy + 1);
        const int32_t lo = imax(rmin, imin(f[0] - 1, imin(fb[0], fa[0])));
        const int32_t hi = imin(rmax, imax(f[1] + 1, imax(fb[1], fa[1])));
        if (lo > hi)
            continue;
        const int ready = layer_ready(e, gy, lo, hi);
        if (ready <= 0)
            return ready;
        const bool up_ok = gy - 1 != below_top, down_ok = gy + 1 != above_bottom || fall;
        if (b->slot[gy - 1] >= 0 || b->slot[gy] >= 0 || b->slot[gy + 1] >= 0)
            step_faces(b, gy, lo, hi, L, up_ok, down_ok, avx2);
        else
            step_plain(b, gy, lo, hi, L, up_ok, down_ok, avx2);
    }
    return 1;
}

/* The frontier moves on: n becomes f (f's rows cleared for the next n,
 * and added to the rows where v has bits: v gains bits only where n does). */
static MC__LIGHT_INLINE void next_level(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    for (int32_t gy = b->fy0; gy <= b->fy1; gy++) {
        int8_t *fr = b->fr + 2 * gy, *vr = b->vr + 2 * gy;
        if (fr[0] <= fr[1]) {
            memset(LAYER(b->f, gy) + fr[0], 0, (size_t)(fr[1] - fr[0] + 1) * sizeof(uint64_t));
            vr[0] = fr[0] < vr[0] ? fr[0] : vr[0];
            vr[1] = fr[1] > vr[1] ? fr[1] : vr[1];
        }
        fr[0] = 127;
        fr[1] = -1;
    }
    b->fy0 = b->ny0;
    b->fy1 = b->ny1;
    b->dirty0 = imin(b->dirty0, b->ny0); /* v and the planes have bits there */
    b->dirty1 = imax(b->dirty1, b->ny1);
    b->ny0 = INT32_MAX;
    b->ny1 = -1;
    uint64_t *t = b->f;
    b->f = b->n;
    b->n = t;
    int8_t *tr = b->fr;
    b->fr = b->nr;
    b->nr = tr;
}

/* Empty sets and planes over the run (f and n are kept empty between
 * floods: next_level clears what it consumed): only the rows of the
 * layers the last flood touched (the others are empty). */
static void clear_sets(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    for (int32_t gy = b->dirty0; gy <= b->dirty1; gy++) {
        int8_t *vr = b->vr + 2 * gy;
        if (vr[0] > vr[1])
            continue;
        memset(LAYER(b->v, gy) + vr[0], 0, (size_t)(vr[1] - vr[0] + 1) * sizeof(uint64_t));
        memset(b->planes + (size_t)gy * 64, 0, 64 * sizeof *b->planes);
        vr[0] = 127;
        vr[1] = -1;
    }
    b->dirty0 = INT32_MAX;
    b->dirty1 = -1;
    b->fy0 = b->ny0 = INT32_MAX;
    b->fy1 = b->ny1 = -1;
}

/* A flood given up half way (a layer it came to holds a block the bit
 * floods do not model, or no memory): f and n emptied, as floods leave
 * them, and v and the planes marked for clearing; returns `ready`. */
static int give_up(mc_light_engine *e, int ready)
{
    mc__bitwork *b = &e->bw;
    memset(b->f, 0, (size_t)e->gh * ROWS * sizeof(uint64_t));
    memset(b->n, 0, (size_t)e->gh * ROWS * sizeof(uint64_t));
    for (int32_t gy = 0; gy < e->gh; gy++) {
        b->fr[2 * gy] = b->nr[2 * gy] = 127;
        b->fr[2 * gy + 1] = b->nr[2 * gy + 1] = -1;
        b->vr[2 * gy] = 0; /* v and the planes: all of the layer */
        b->vr[2 * gy + 1] = ROWS - 1;
    }
    b->dirty0 = 0;
    b->dirty1 = e->gh - 1;
    return ready;
}

#ifdef MC_HAVE_AVX512_KERNELS
/* The lowest and highest set bit of x != 0 (mc__lowest_bit's and
 * mc__highest_bit's 64-bit twins, for the AVX2 paths' row masks). */
static inline int lowest_bit64(uint64_t x)
{
    return __builtin_ctzll(x);
}
static inline int highest_bit64(uint64_t x)
{
    return 63 - __builtin_clzll(x);
}

/* One layer of sky light's straight fall, rows 1..48 four a step: fall
 * ANDed with z (the layer's opacity-0 rows; NULL at the band's top), what
 * of it is near enough (xm15) into n and v; *any: whether anything still
 * falls. Returns the rows lit (bit r - 1 for row r). */
__attribute__((target("avx2"))) static inline uint64_t fall_layer_avx2(uint64_t *fall, const uint64_t *z,
                                                                      const uint64_t *xm15, uint64_t *n, uint64_t *v,
                                                                      uint64_t *any)
{
    __m256i all = _mm256_setzero_si256();
    uint64_t rows = 0;
    for (int32_t r = 1; r < 49; r += 4) {
        __m256i f = _mm256_loadu_si256((const __m256i *)(const void *)(fall + r));
        if (z) {
            f = _mm256_and_si256(f, _mm256_loadu_si256((const __m256i *)(const void *)(z + r)));
            _mm256_storeu_si256((__m256i *)(void *)(fall + r), f);
        }
        const __m256i lit = _mm256_and_si256(f, _mm256_loadu_si256((const __m256i *)(const void *)(xm15 + r)));
        const __m256i vr = _mm256_loadu_si256((const __m256i *)(const void *)(v + r));
        _mm256_storeu_si256((__m256i *)(void *)(n + r), lit);
        _mm256_storeu_si256((__m256i *)(void *)(v + r), _mm256_or_si256(vr, lit));
        all = _mm256_or_si256(all, f);
        const __m256i dark = _mm256_cmpeq_epi64(lit, _mm256_setzero_si256());
        rows |= (uint64_t)(~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(dark)) & 15u) << (r - 1);
    }
    *any = !_mm256_testz_si256(all, all);
    return rows;
}
#endif

static MC__LIGHT_INLINE int bits_sky_with(mc_light_engine *e, int32_t sky_lo, int32_t sky_hi, bool avx2)
{
    mc__bitwork *b = &e->bw;
    (void)sky_lo;
    clear_sets(e);
    const int32_t gtop = sky_hi - e->ylo + 1;
    for (int32_t gy = gtop + 1; gy < e->gh - 1; gy++) { /* all at 15 above the band */
        memset(LAYER(b->v, gy), 0xFF, ROWS * sizeof(uint64_t));
        b->vr[2 * gy] = 0;
        b->vr[2 * gy + 1] = ROWS - 1;
    }
    if (gtop + 1 < e->gh - 1) {
        b->dirty0 = gtop + 1;
        b->dirty1 = e->gh - 2;
    }
    /* level 15: the band's top layer from the tops, then straight down */
    uint64_t fall[ROWS] = {0}; /* at sky_hi, the highest top within 14 of the centre column: all of them */
    for (int c = 0; c < 9; c++)
        if (e->cols[c])
            for (int32_t r = 1 + (c / 3) * 16; r < 17 + (c / 3) * 16; r++)
                fall[r] |= (0xFFFFull << (c % 3) * 16) & b->xm[15][r];
    for (int32_t gy = gtop; gy >= 1; gy--) {
        uint64_t any = 0;
        const int ready = layer_ready(e, gy, 1, 48);
        if (ready <= 0)
            return give_up(e, ready);
        const int32_t sa = gy < gtop ? b->slot[gy + 1] : -1, s = gy < gtop ? b->slot[gy] : -1;
        uint64_t *n = LAYER(b->n, gy), *v = LAYER(b->v, gy);
#ifdef MC_HAVE_AVX512_KERNELS
        if (avx2 && sa < 0 && s < 0) { /* no face masks: the whole layer in one pass */
            const uint64_t rows = fall_layer_avx2(fall, gy < gtop ? LAYER(b->z, gy) : NULL, b->xm[15], n, v, &any);
            if (rows)
                layer_joined(b, gy, 1 + lowest_bit64(rows), 1 + highest_bit64(rows), 15, avx2);
            if (!any)
                break;
            continue;
        }
#endif
        if (gy < gtop) {
            const uint64_t *z = LAYER(b->z, gy);
            for (int32_t r = 1; r < 49; r++)
                fall[r] &= z[r];
            if (sa >= 0) /* blocks above that cover their down faces */
                for (int32_t r = 1; r < 49; r++)
                    fall[r] &= b->faces[(size_t)sa * 12 * ROWS + DOWN * ROWS + r];
            if (s >= 0) /* ... or here that cover their up faces */
                for (int32_t r = 1; r < 49; r++)
                    fall[r] &= b->faces[(size_t)s * 12 * ROWS + (6 + DOWN) * ROWS + r];
        }
        /* the layer's lit rows at once (n and, the band being cleared, v
         * are empty here before) */
        int32_t first = INT32_MAX, last = -1;
        for (int32_t r = 1; r < 49; r++) {
            const uint64_t lit = fall[r] & b->xm[15][r];
            any |= fall[r];
            n[r] = lit;
            v[r] |= lit;
            first = lit && r < first ? r : first;
            last = lit ? r : last;
        }
        if (first <= last)
            layer_joined(b, gy, first, last, 15, avx2);
        if (!any)
            break;
    }
    next_level(e);
    for (int L = 14; L >= 1; L--) {
        const int ready = step_with(e, L, L == 14, avx2);
        if (ready <= 0)
            return give_up(e, ready);
        next_level(e);
    }
    next_level(e); /* f and n empty again */
    return 1;
}

bool mc__light_bits_sort_emitters(mc_light_engine *e)
{
    mc__bitwork *b = &e->bw;
    size_t *count = b->ecount;
    memset(b->ecount, 0, sizeof b->ecount);
    for (size_t k = 0; k < e->nemit; k++)
        count[e->emit[k].level + 1]++;
    for (int L = 1; L < 17; L++)
        count[L] += count[L - 1];
    uint32_t *eb = mc__light_grow(e, b->ebucket, &b->ebucket_cap, e->nemit ? e->nemit : 1, sizeof *eb, 256);
    if (!eb)
        return false;
    b->ebucket = eb;
    size_t at[16];
    memcpy(at, count, sizeof at);
    for (size_t k = 0; k < e->nemit; k++)
        eb[at[e->emit[k].level]++] = (uint32_t)k;
    return true;
}

static MC__LIGHT_INLINE int bits_block_with(mc_light_engine *e, bool avx2)
{
    mc__bitwork *b = &e->bw;
    clear_sets(e);
    const uint32_t *eb = b->ebucket;
    const size_t *count = b->ecount;
    for (int L = 15; L >= 1; L--) {
        const int stepped = L < 15 ? step_with(e, L, false, avx2) : 1;
        if (stepped <= 0)
            return give_up(e, stepped);
        for (size_t i = count[L]; i < count[L + 1];) {
            /* a level's emitters come in scan order: the rows of 16 of one
             * row of a layer follow each other and go in as one word */
            const mc__emitter *m = &e->emit[eb[i++]];
            const int32_t gy = m->y - e->ylo + 1, r = m->lz + 17;
            uint64_t bits = (uint64_t)m->lanes << (m->lx + 16);
            for (; i < count[L + 1]; i++) {
                const mc__emitter *o = &e->emit[eb[i]];
                if (o->y != m->y || o->lz != m->lz)
                    break;
                bits |= (uint64_t)o->lanes << (o->lx + 16);
            }
            if (gy < 1 || gy > e->gh - 2)
                continue;
            const int ready = layer_ready(e, gy, r, r);
            if (ready <= 0)
                return give_up(e, ready);
            uint64_t *v = LAYER(b->v, gy) + r;
            bits &= ~*v; /* not lit brighter already */
            if (!bits)
                continue;
            *v |= bits;
            LAYER(b->n, gy)[r] |= bits;
            joined(b, gy, r, bits, L);
        }
        next_level(e);
    }
    next_level(e); /* f and n empty again */
    return 1;
}

#ifdef MC_HAVE_AVX512_KERNELS
/* The floods compiled for AVX2 as a whole: the steps' four-row kernel
 * (step_plain4) and the layers' bookkeeping inlined, not called per layer
 * and level. */
__attribute__((target("avx2"))) static int bits_sky_avx2(mc_light_engine *e, int32_t sky_lo, int32_t sky_hi)
{
    return bits_sky_with(e, sky_lo, sky_hi, true);
}
__attribute__((target("avx2"))) static int bits_block_avx2(mc_light_engine *e)
{
    return bits_block_with(e, true);
}
#endif

int mc__light_bits_sky(mc_light_engine *e, int32_t sky_lo, int32_t sky_hi)
{
#ifdef MC_HAVE_AVX512_KERNELS
    if (mc__bits_have_avx2())
        return bits_sky_avx2(e, sky_lo, sky_hi);
#endif
    return bits_sky_with(e, sky_lo, sky_hi, false);
}

int mc__light_bits_block(mc_light_engine *e)
{
#ifdef MC_HAVE_AVX512_KERNELS
    if (mc__bits_have_avx2())
        return bits_block_avx2(e);
#endif
    return bits_block_with(e, false);
}

/* Byte i spread to bits 0, 4, ... 28 (the planes to nibbles). */
#define SPREAD(i)                                                                                                      \
    (((i) & 1u) | ((i) >> 1 & 1u) << 4 | ((i) >> 2 & 1u) << 8 | ((i) >> 3 & 1u) << 12 | ((i) >> 4 & 1u) << 16 |     \
     ((i) >> 5 & 1u) << 20 | ((i) >> 6 & 1u) << 24 | ((i) >> 7 & 1u) << 28)
#define SPREAD4(i) SPREAD(i), SPREAD((i) + 1), SPREAD((i) + 2), SPREAD((i) + 3)
#define SPREAD16(i) SPREAD4(i), SPREAD4((i) + 4), SPREAD4((i) + 8), SPREAD4((i) + 12)
#define SPREAD64(i) SPREAD16(i), SPREAD16((i) + 16), SPREAD16((i) + 32), SPREAD16((i) + 48)
static const uint32_t spread8[256] = {SPREAD64(0u), SPREAD64(64u), SPREAD64(128u), SPREAD64(192u)};

static inline uint64_t spread16(unsigned x)
{
    return (uint64_t)spread8[x & 255u] | (uint64_t)spread8[x >> 8] << 32;
}

void mc__light_bits_put_layer(const mc_light_engine *e, int32_t gy, uint8_t *out)
{
    const uint16_t *pl = e->bw.planes + (size_t)gy * 64;
    for (int z = 0; z < 16; z++, pl += 4) {
        uint64_t w, q; /* q: the row's four planes at once (all ones: all 15; zero: all 0) */
        memcpy(&q, pl, sizeof q);
        if (q == ~0ull || !q)
            w = q;
        else
            w = spread16(pl[0]) | spread16(pl[1]) << 1 | spread16(pl[2]) << 2 | spread16(pl[3]) << 3;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out + z * 8, &w, 8); /* the even x in the low nibble */
#else
        for (int i = 0; i < 8; i++)
            out[z * 8 + i] = (uint8_t)(w >> (8 * i));
#endif
    }
}
