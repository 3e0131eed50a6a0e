/*
 * blocks.c: the blocks of a column and its eight neighbours as the light
 * engine sees them: one light kind (light_private.h) per block, looked at
 * a section ("slice") at a time and only where the engine asks.
 *
 * Most sections never need a per-block array: a palette whose states all
 * have one kind (air; stone, deepslate and ores; deep water) makes the
 * slice uniform, and asking for it costs a look at the palette. The others
 * are unpacked once per call into a 4096-byte array of kinds, from a pool
 * the engine keeps between calls, when something needs them: a 4-bit
 * section of unshaped blocks of opacity 0, 1 or 15 ("direct4") is read
 * from its packed array by the emitter scan here and the bit floods'
 * rows (bitflood.c), so that only the tops unpack it.
 *
 * On top of the slices: where sky light stops falling straight down in
 * each block column of the nine (mc__light_tops), and the blocks that shine
 * far enough to reach the centre column (mc__light_emitters), a row of 16
 * of one luminance as one entry of lanes (a uniform section's row at once;
 * a mixed one's shining lanes from one compare of its kinds).
 */
#include "light/blocks.h"

#include "bits/bits_private.h"

#include <string.h>
#ifdef MC_HAVE_AVX512_KERNELS
#include <immintrin.h>
#endif

/* The engine's growable arrays (here and in engine.c, which stands above
 * this file): arr grown to hold `need` elements, doubling from `least`. */
void *mc__light_grow(mc_light_engine *e, void *arr, size_t *cap, size_t need, size_t size, size_t least)
{
    if (need <= *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : least;
    ncap = ncap < need ? need : ncap;
    void *n = e->alloc.realloc(e->alloc.user, arr, *cap * size, ncap * size);
    if (n)
        *cap = ncap;
    return n;
}

/* --------------------------------------------------------------- slices */

static bool pool_take(mc_light_engine *e, uint8_t **out)
{
    if (e->pool_used == e->pool_len) {
        uint8_t **pool = mc__light_grow(e, e->pool, &e->pool_cap, e->pool_len + 1, sizeof *e->pool, 32);
        if (!pool)
            return false;
        e->pool = pool;
        uint8_t *block = e->alloc.alloc(e->alloc.user, MC__SLICE_BYTES);
        if (!block)
            return false;
        e->pool[e->pool_len++] = block;
    }
    *out = e->pool[e->pool_used++];
    return true;
}

/* The kind of a state of the call's registry (an unknown id: opaque). */
static inline uint8_t kind_of(const mc__light_table *t, uint32_t state)
{
    return t->kind[state < t->count ? state : t->count];
}

/* Classifies a section from its palette: uniform or not, shines or not. */
static void classify(const mc_light_engine *e, const mc_section *s, mc__slice *sl)
{
    const mc__light_table *t = e->tab;
    const mc_container *c = &s->blocks;
    sl->kinds = NULL;
    sl->emit_max = 0;
    sl->plain = false;
    sl->direct4 = false;
    const mc_container_kind kind = mc_container_get_kind(c);
    if (kind == MC_CONTAINER_SINGLE) {
        sl->uniform = kind_of(t, c->value);
        sl->emit_max = t->kinds.emission[sl->uniform];
        return;
    }
    if (kind == MC_CONTAINER_INDIRECT && c->palette_len >= 1 && c->bits <= 8) {
        uint8_t cls4[16], emit4[16]; /* a 4-bit palette's: the first 16 entries' classes, luminances */
        const uint32_t n = c->palette_len < 256 ? c->palette_len : 256;
        const uint8_t k0 = kind_of(t, c->palette[0]);
        unsigned differ = 0, all = 0xFF, emit_max = 0; /* all: the cls bits every state has */
        for (uint32_t p = 0; p < n; p++) {
            const uint8_t k = kind_of(t, c->palette[p]), cl = t->kinds.cls[k];
            differ |= k ^ k0;
            all &= cl;
            emit_max = t->kinds.emission[k] > emit_max ? t->kinds.emission[k] : emit_max;
            if (p < 16) {
                cls4[p] = (uint8_t)(cl & (MC__CLS_PASS | MC__CLS_CLEAR));
                emit4[p] = t->kinds.emission[k];
            }
        }
        sl->emit_max = (uint8_t)emit_max;
        sl->plain = (all & MC__CLS_PLAIN) != 0;
        sl->uniform = differ ? -1 : k0;
        if (c->bits == 4 && differ) { /* (n <= 16) */
            for (uint32_t p = n; p < 16; p++) { /* an index past the palette reads as its first entry */
                cls4[p] = cls4[0];
                emit4[p] = emit4[0];
            }
            memcpy(sl->cls4, cls4, sizeof cls4);
            memcpy(sl->emit4, emit4, sizeof emit4);
            sl->direct4 = (all & MC__CLS_DIRECT) != 0; /* every state of the palette (those past it are the first) */
            sl->longs4 = c->longs;
        }
        return;
    }
    sl->uniform = -1;
    sl->emit_max = 15; /* a direct section: found out when unpacked */
}

/* Unpacks a mixed section's kinds into out[4096]. */
static void unpack_kinds(mc_light_engine *e, const mc_section *s, uint8_t *out)
{
    const mc__light_table *t = e->tab;
    const mc_container *c = &s->blocks;
    if (mc_container_get_kind(c) == MC_CONTAINER_INDIRECT && c->palette_len >= 1 && c->bits <= 8) {
        uint8_t pk[256];
        const unsigned n = 1u << c->bits;
        for (unsigned p = 0; p < n; p++) /* an index past the palette reads as its first entry */
            pk[p] = kind_of(t, c->palette[p < c->palette_len ? p : 0]);
        mc_bits_unpack_map_u8(c->longs, MC_SECTION_BLOCKS, c->bits, MC_BITS_PADDED, pk, out);
        return;
    }
    mc_container_get_all(c, e->states);
    for (size_t i = 0; i < MC_SECTION_BLOCKS; i++)
        out[i] = kind_of(t, e->states[i]);
}

/* A kind array for a batch entry: one an entry gave back, else a new one
 * (NULL when no memory). */
static uint8_t *spare_take(mc_light_engine *e)
{
    return e->spare_len ? e->spare[--e->spare_len] : e->alloc.alloc(e->alloc.user, MC__SLICE_BYTES);
}

/* Keeps a batch entry's kind array for spare_take (freed when there is
 * no memory to keep it). */
static void spare_give(mc_light_engine *e, uint8_t *arr)
{
    uint8_t **sp = mc__light_grow(e, e->spare, &e->spare_cap, e->spare_len + 1, sizeof *sp, 256);
    if (!sp) {
        e->alloc.free(e->alloc.user, arr, MC__SLICE_BYTES);
        return;
    }
    e->spare = sp;
    sp[e->spare_len++] = arr;
}

/* The batch entry of cc: the one it has, or a free one, or the least
 * recently used one emptied. NULL when no memory. */
static mc__col_entry *batch_entry(mc_light_engine *e, const mc_column *cc)
{
    mc__col_entry *lru = NULL, *hit = NULL;
    for (size_t i = 0; i < e->batch_cap && !hit; i++) {
        mc__col_entry *ce = &e->batch[i];
        if (ce->col == cc && ce->reg == mc_column_registry(cc) && ce->nsec == e->nsec)
            hit = ce;
        else if (!lru || ce->used < lru->used)
            lru = ce;
    }
    if (!hit) {
        hit = lru;
        if (hit->col)
            mc__light_entry_clear(e, hit);
        size_t cap = 0;
        if (!(hit->slices = mc__light_grow(e, NULL, &cap, e->nsec, sizeof *hit->slices, e->nsec)))
            return NULL;
        for (uint32_t k = 0; k < e->nsec; k++)
            hit->slices[k].ready = false;
        hit->col = cc;
        hit->reg = mc_column_registry(cc);
        hit->nsec = e->nsec;
        hit->tops_ok = hit->emit_ok = hit->emit_many = false;
    }
    hit->used = e->calls;
    return hit;
}

void mc__light_entry_clear(mc_light_engine *e, mc__col_entry *ce)
{
    if (ce->slices) {
        for (uint32_t k = 0; k < ce->nsec; k++)
            if (ce->slices[k].ready && ce->slices[k].kinds)
                spare_give(e, ce->slices[k].kinds);
        e->alloc.free(e->alloc.user, ce->slices, ce->nsec * sizeof *ce->slices);
    }
    if (ce->emit)
        e->alloc.free(e->alloc.user, ce->emit, ce->emit_cap * sizeof *ce->emit);
    memset(ce, 0, sizeof *ce);
}

bool mc__light_slices_begin(mc_light_engine *e, const mc_column *col, const mc_column *const nb[8], bool use_batch)
{
    e->min_sy = mc_column_min_section(col);
    e->nsec = mc_column_section_count(col);
    e->min_y = mc_column_min_y(col);
    e->height = mc_column_height(col);
    e->pool_used = 0;
    e->calls++;
    mc__slice *slices = mc__light_grow(e, e->slices, &e->slices_cap, 9 * (size_t)e->nsec, sizeof *e->slices, 9 * 24);
    if (!slices)
        return false;
    e->slices = slices;
    for (int c = 0; c < 9; c++) {
        const mc_column *cc = c == 4 ? col : nb ? nb[c > 4 ? c - 1 : c] : NULL;
        if (cc && cc != col &&
            (mc_column_registry(cc) != mc_column_registry(col) || mc_column_min_section(cc) != e->min_sy ||
             mc_column_section_count(cc) != e->nsec))
            cc = NULL; /* another shape: as if not loaded */
        e->cols[c] = cc;
        e->ce[c] = NULL;
        e->cs[c] = e->slices + (size_t)c * e->nsec;
        if (cc && use_batch && e->batch) {
            if (!(e->ce[c] = batch_entry(e, cc)))
                return false;
            e->cs[c] = e->ce[c]->slices;
            continue;
        }
        for (uint32_t k = 0; k < e->nsec; k++)
            e->cs[c][k].ready = false;
    }
    return true;
}

const mc__slice *mc__light_slice_slow(mc_light_engine *e, int c, uint32_t k, bool want_kinds)
{
    mc__slice *sl = &e->cs[c][k];
    const mc_section *s = mc_column_section_const(e->cols[c], e->min_sy + (int32_t)k);
    if (!sl->ready) {
        classify(e, s, sl);
        sl->ready = true;
    }
    if (want_kinds && sl->uniform < 0 && !sl->kinds) {
        uint8_t *arr = NULL;
        if (e->ce[c] ? !(arr = spare_take(e)) : !pool_take(e, &arr)) {
            e->nomem = true;
            return NULL;
        }
        unpack_kinds(e, s, arr);
        sl->bits_state = 0; /* the bit floods' rows: made when first asked for */
        sl->kinds = arr; /* a batch entry's own, or the pool's for this call */
    }
    return sl;
}

/* ----------------------------------------------------------------- tops */

/* Whether a block of the row below the section above holds sky light
 * (then the first layer of the next section stops it). */
static bool any_held_above(const mc__row16 held[16])
{
    mc__row16 any = mc__row_splat(0);
    for (int z = 0; z < 16; z++)
        any = mc__row_or(any, held[z]);
    return mc__row_any(any);
}

/* Writes the tops a row of one section found: top[x] = base + h[x] in
 * the lanes where h (a section-local height + 1) is not 0; the others
 * kept. All 16 lanes in one pass (vectorised), not a store per lane. */
static void put_tops(int32_t *top, mc__row16 h_row, int32_t base)
{
    uint8_t h[16];
    memcpy(h, &h_row, 16);
    for (int x = 0; x < 16; x++)
        top[x] = h[x] ? base + h[x] : top[x];
}

/* column_tops for a mixed section of plain kinds (0, 1, 15), below no
 * block that holds sky light: it falls into kind 0 only, and no block of
 * the section holds it. */
static void plain_tops(const uint8_t *kinds, int32_t base, mc__row16 alive[16], mc__row16 held[16], int32_t *top)
{
    const mc__row16 zero = mc__row_splat(0);
    for (int z = 0; z < 16; z++) {
        held[z] = zero;
        mc__row16 a = alive[z], h = zero; /* h: where it stopped (y + 1), 0 where not */
        for (int32_t y = 15; y >= 0 && mc__row_any(a); y--) {
            const mc__row16 stop = mc__row_andnot(a, mc__row_eq(mc__row_load(kinds + (y << 8 | z << 4)), zero));
            h = mc__row_or(h, mc__row_and(stop, mc__row_splat((unsigned)y + 1)));
            a = mc__row_andnot(a, stop);
        }
        if (mc__row_any(h))
            put_tops(top + z * 16, h, base);
        alive[z] = a;
    }
}

#ifdef MC_HAVE_AVX512_KERNELS
/* put_tops for two rows (32 lanes, top[0..31]) with AVX2: eight lanes a
 * step widened to 32 bits and blended, not a select per lane. */
__attribute__((target("avx2"))) static void put_tops2_avx2(int32_t *top, __m256i h2, int32_t base)
{
    uint8_t h[32];
    _mm256_storeu_si256((__m256i *)(void *)h, h2);
    const __m256i b = _mm256_set1_epi32(base), zero = _mm256_setzero_si256();
    for (int i = 0; i < 32; i += 8) {
        const __m256i hv = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(h + i)));
        const __m256i old = _mm256_loadu_si256((const __m256i *)(const void *)(top + i));
        const __m256i put = _mm256_add_epi32(hv, b), keep = _mm256_cmpeq_epi32(hv, zero);
        _mm256_storeu_si256((__m256i *)(void *)(top + i), _mm256_blendv_epi8(put, old, keep));
    }
}

/* plain_tops with AVX2: two rows (z, z + 1: 32 bytes in kinds, alive and
 * held alike) a step, the height y + 1 counted down in a register rather
 * than splatted each layer. */
__attribute__((target("avx2"))) static void plain_tops_avx2(const uint8_t *kinds, int32_t base, mc__row16 alive[16],
                                                            mc__row16 held[16], int32_t *top)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi8(1);
    for (int z = 0; z < 16; z += 2) {
        _mm256_storeu_si256((__m256i *)(void *)&held[z], zero);
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)&alive[z]);
        __m256i h = zero, y1 = _mm256_set1_epi8(16); /* y1: y + 1 */
        for (int32_t y = 15; y >= 0 && !_mm256_testz_si256(a, a); y--) {
            const __m256i k = _mm256_loadu_si256((const __m256i *)(const void *)(kinds + (y << 8 | z << 4)));
            const __m256i open = _mm256_cmpeq_epi8(k, zero); /* kind 0: sky light goes on down */
            h = _mm256_or_si256(h, _mm256_and_si256(_mm256_andnot_si256(open, a), y1));
            a = _mm256_and_si256(a, open);
            y1 = _mm256_sub_epi8(y1, one);
        }
        if (!_mm256_testz_si256(h, h))
            put_tops2_avx2(top + z * 16, h, base);
        _mm256_storeu_si256((__m256i *)(void *)&alive[z], a);
    }
}
#endif

/* The tops of one present column: top[z * 16 + x] (absolute y). A row of
 * 16 blocks (x) at a time, downwards from the highest section, until sky
 * light has stopped in every block column. */
static bool column_tops(mc_light_engine *e, int c, int32_t *top)
{
    const mc__light_kinds *K = &e->tab->kinds;
    mc__row16 alive[16], held[16];
    for (int z = 0; z < 16; z++) {
        alive[z] = mc__row_splat(0xFF);
        held[z] = mc__row_splat(0); /* above the highest section: air */
    }
    bool any = true, any_held = false;
    for (int32_t k = (int32_t)e->nsec - 1; k >= 0 && any; k--) {
        const mc__slice *sl = mc__light_slice(e, c, (uint32_t)k, true);
        if (!sl)
            return false;
        if (!sl->kinds && !any_held && mc__kind_sky_enters(K, (unsigned)sl->uniform) &&
            !mc__kind_sky_held(K, (unsigned)sl->uniform))
            continue; /* air all through (most sections above the ground) */
        const int32_t base = (e->min_sy + k) * 16;
        /* a uniform section is steady after two rows */
        const int32_t ylow = sl->kinds ? 0 : 14;
        const mc__row16 same = mc__row_splat(sl->kinds ? 0 : (unsigned)sl->uniform);
        any = any_held = false;
        if (sl->kinds && sl->plain && !any_held_above(held)) { /* kinds 0, 1, 15 only: sky light enters kind 0 */
#ifdef MC_HAVE_AVX512_KERNELS
            if (mc__bits_have_avx2())
                plain_tops_avx2(sl->kinds, base, alive, held, top);
            else
#endif
                plain_tops(sl->kinds, base, alive, held, top);
            for (int z = 0; z < 16; z++)
                any = any || mc__row_any(alive[z]);
            continue;
        }
        for (int z = 0; z < 16; z++) {
            mc__row16 h = mc__row_splat(0); /* where it stopped (y + 1), 0 where not */
            for (int32_t y = 15; y >= ylow && mc__row_any(alive[z]); y--) {
                const mc__row16 kd = sl->kinds ? mc__row_load(sl->kinds + (y << 8 | z << 4)) : same;
                const mc__row16 stop = mc__row_or(mc__row_and(alive[z], held[z]),
                                                  mc__row_andnot(alive[z], mc__row_sky_enters(K, kd)));
                h = mc__row_or(h, mc__row_and(stop, mc__row_splat((unsigned)y + 1)));
                alive[z] = mc__row_andnot(alive[z], stop);
                held[z] = mc__row_sky_held(K, kd);
            }
            if (mc__row_any(h))
                put_tops(top + z * 16, h, base);
            any = any || mc__row_any(alive[z]);
            any_held = any_held || mc__row_any(held[z]);
        }
    }
    for (int z = 0; z < 16 && any; z++) { /* through the world: down the air below it */
        if (!mc__row_any(alive[z]))
            continue;
        uint8_t a[16], h[16];
        memcpy(a, &alive[z], 16);
        memcpy(h, &held[z], 16);
        for (int x = 0; x < 16; x++)
            if (a[x])
                top[z * 16 + x] = h[x] ? e->min_y : e->min_y - 16;
    }
    return true;
}

bool mc__light_tops(mc_light_engine *e)
{
    int32_t t[256];
    for (int c = 0; c < 9; c++) {
        const int dx = c % 3, dz = c / 3;
        mc__col_entry *ce = e->ce[c];
        if (ce && ce->tops_ok) {
            memcpy(t, ce->top, sizeof t);
        } else if (e->cols[c]) {
            if (!column_tops(e, c, t))
                return false;
            if (ce) {
                memcpy(ce->top, t, sizeof t);
                ce->tops_ok = true;
            }
        }
        for (int z = 0; z < 16; z++) {
            int32_t *dst = &e->top[(dz * 16 + z) * 48 + dx * 16];
            if (e->cols[c])
                memcpy(dst, &t[z * 16], 16 * sizeof *dst);
            else
                for (int x = 0; x < 16; x++)
                    dst[x] = MC__TOP_NONE;
        }
    }
    return true;
}

/* ------------------------------------------------------------- emitters */

#ifdef MC_HAVE_AVX512_KERNELS /* x86-64, GNU C, not MC_PORTABLE */
/* A direct4 section's shining blocks straight from its packed array (a
 * long a row of 16, a nibble a block): each index's luminance (emit4)
 * through a byte shuffle, as rows_direct4 in bitflood.c does its classes,
 * so that a section looked at only for what shines is never unpacked. */

/* The rows (bit z) of layer `longs` (16 longs) holding a block whose
 * luminance in emit4 is not 0. */
__attribute__((target("avx2"))) static inline unsigned direct4_shining_rows(const uint64_t *longs,
                                                                           const uint8_t emit4[16])
{
    const __m256i tab = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)emit4));
    const __m256i nibble = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
    unsigned rows = 0;
    for (int i = 0; i < 16; i += 4) { /* four rows (8 bytes each) a step */
        const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(longs + i));
        const __m256i lo = _mm256_and_si256(w, nibble), hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), nibble);
        const __m256i lum = _mm256_or_si256(_mm256_shuffle_epi8(tab, lo), _mm256_shuffle_epi8(tab, hi));
        const __m256i dark = _mm256_cmpeq_epi64(lum, zero); /* a row a 64-bit lane */
        rows |= (~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(dark)) & 15u) << i;
    }
    return rows;
}

/* The luminance of each block of a row of 16 (one long) in x order. */
__attribute__((target("avx2"))) static inline mc__row16 direct4_row_levels(uint64_t row, const uint8_t emit4[16])
{
    const __m128i tab = _mm_loadu_si128((const __m128i *)(const void *)emit4), nibble = _mm_set1_epi8(15);
    const __m128i w = _mm_cvtsi64_si128((long long)row);
    const __m128i lo = _mm_and_si128(w, nibble), hi = _mm_and_si128(_mm_srli_epi16(w, 4), nibble);
    const __m128i lum = _mm_shuffle_epi8(tab, _mm_unpacklo_epi8(lo, hi)); /* block 2i low nibble, 2i + 1 high */
    mc__row16 v;
    memcpy(&v, &lum, 16);
    return v;
}
#endif

/* An emitter list: *arr (capacity *cap), *n of them. */
typedef struct emit_list {
    mc__emitter **arr;
    size_t *n, *cap;
} emit_list;

static bool add_emitters(mc_light_engine *e, emit_list out, int32_t ox, int32_t y, int32_t lz, unsigned level,
                         unsigned lanes)
{
    mc__emitter *emit = mc__light_grow(e, *out.arr, out.cap, *out.n + 1, sizeof **out.arr, 256);
    if (!emit)
        return false;
    *out.arr = emit;
    emit[(*out.n)++] = (mc__emitter){(int16_t)ox, (int16_t)lz, y, (uint8_t)level, (uint16_t)lanes};
    return true;
}

/* The lanes (bits x = 0..15) of a row of 16 blocks of the column at x
 * offset ox (-16, 0, 16 from the centre column), at column-local z lz,
 * whose distance to the centre column is below `level`. */
static unsigned near_lanes(int32_t ox, int32_t lz, unsigned level)
{
    const int32_t dz = lz < 0 ? -lz : lz > 15 ? lz - 15 : 0, rem = (int32_t)level - dz; /* x distance below rem */
    if (rem <= 0)
        return 0;
    if (ox == 0)
        return 0xFFFFu;
    if (ox < 0) /* x - 16 .. : distance 16 - x, below rem from x = 17 - rem */
        return rem >= 17 ? 0xFFFFu : (0xFFFFu << (17 - rem)) & 0xFFFFu;
    return rem - 1 >= 16 ? 0xFFFFu : (1u << (rem - 1)) - 1u; /* 16 + x: distance x + 1 */
}

void mc__light_near_init(mc_light_engine *e)
{
    for (int32_t c = 0; c < 3; c++)
        for (int32_t lz = -16; lz < 32; lz++)
            for (unsigned level = 0; level < 16; level++)
                e->near[c][lz + 16][level] = (uint16_t)near_lanes(c * 16 - 16, lz, level);
}

/* near_lanes from the engine's table (a load). */
static inline unsigned near_of(const mc_light_engine *e, int32_t ox, int32_t lz, unsigned level)
{
    return e->near[(ox + 16) / 16][lz + 16][level];
}

/* Appends to `out` the blocks `lanes` of a row (luminance level; none
 * when lanes is 0), with `near_only` only those whose luminance exceeds
 * their distance to the centre column. */
static bool put_row(mc_light_engine *e, emit_list out, int32_t ox, int32_t y, int32_t lz, unsigned level,
                    unsigned lanes, bool near_only)
{
    if (!level)
        return true;
    if (near_only)
        lanes &= near_of(e, ox, lz, level);
    return !lanes || add_emitters(e, out, ox, y, lz, level, lanes);
}

#ifdef MC_HAVE_AVX512_KERNELS
/* scan_emitters for a direct4 section (base: its lowest y) from its
 * packed array: per row z in za..zb-1 the lanes zlanes[z], a luminance at
 * a time (compiled for AVX2 as a whole: the kernels above inlined, not
 * called per layer and row). */
__attribute__((target("avx2"))) static bool scan_direct4(mc_light_engine *e, const mc__slice *sl, int32_t base,
                                                         const unsigned zlanes[16], int32_t za, int32_t zb, int32_t ox,
                                                         int32_t oz, bool near_only, emit_list out)
{
    const unsigned zrows = (0xFFFFu << za) & (0xFFFFu >> (16 - zb));
    for (int32_t y = 0; y < 16; y++) {
        const uint64_t *layer = sl->longs4 + (y << 4);
        for (unsigned rows = direct4_shining_rows(layer, sl->emit4) & zrows; rows; rows &= rows - 1) {
            const int32_t z = mc__lowest_bit(rows);
            const mc__row16 lum = direct4_row_levels(layer[z], sl->emit4);
            unsigned lanes = mc__row_bits(mc__row_gt(lum, mc__row_splat(0))) & zlanes[z];
            uint8_t levels[16];
            memcpy(levels, &lum, 16);
            while (lanes) {
                const unsigned level = levels[mc__lowest_bit(lanes)];
                const unsigned same = mc__row_bits(mc__row_eq(lum, mc__row_splat(level))) & lanes;
                lanes &= ~same;
                if (!put_row(e, out, ox, base + y, oz + z, level, same, near_only))
                    return false;
            }
        }
    }
    return true;
}
#endif

/* Appends to `out` the shining blocks of column c with column-local x in
 * x0..x1-1, z in z0..z1-1, their x and z moved by ox, oz; with
 * `near_only`, only those whose luminance exceeds their distance (after
 * the move) to the centre column, and a section's rows (or the whole
 * section) too far for its brightest state to reach the centre are not
 * looked at. */
static bool scan_emitters(mc_light_engine *e, int c, int32_t x0, int32_t x1, int32_t z0, int32_t z1, int32_t ox,
                          int32_t oz, bool near_only, emit_list out)
{
    const mc__light_kinds *K = &e->tab->kinds;
    const unsigned window = (0xFFFFu << x0) & (0xFFFFu >> (16 - x1));
    for (uint32_t k = 0; k < e->nsec; k++) {
        const mc__slice *sl = mc__light_slice(e, c, k, false);
        if (!sl->emit_max)
            continue;
        unsigned zlanes[16], any = 0; /* per z: the lanes worth looking at */
        int32_t za = z1, zb = z0;      /* the z that have some: za..zb-1 */
        for (int32_t z = z0; z < z1; z++) {
            any |= zlanes[z] = window & (near_only ? near_of(e, ox, oz + z, sl->emit_max) : 0xFFFFu);
            za = zlanes[z] && z < za ? z : za;
            zb = zlanes[z] ? z + 1 : zb;
        }
        if (!any)
            continue; /* nothing in it shines far enough */
#ifdef MC_HAVE_AVX512_KERNELS
        if (sl->direct4 && !sl->kinds && mc__bits_have_avx2()) { /* from the packed array: not unpacked */
            if (!scan_direct4(e, sl, (e->min_sy + (int32_t)k) * 16, zlanes, za, zb, ox, oz, near_only, out))
                return false;
            continue;
        }
#endif
        if (!(sl = mc__light_slice(e, c, k, true)))
            return false;
        const int32_t base = (e->min_sy + (int32_t)k) * 16;
        for (int32_t y = 0; y < 16; y++) {
            if (sl->kinds) { /* a layer without shaped or shining blocks (kinds 128..) is passed over whole */
                const uint8_t *layer = sl->kinds + (y << 8);
                mc__row16 any_special = mc__row_splat(0);
                for (int32_t z = 0; z < 16; z++) /* (all its rows: a fixed count, unrolled) */
                    any_special = mc__row_or(any_special, mc__row_load(layer + (z << 4)));
                if (!(mc__row_bits(any_special) & any))
                    continue;
            }
            for (int32_t z = za; z < zb; z++) {
                if (!zlanes[z])
                    continue;
                if (!sl->kinds) { /* all one kind: the lanes near enough for its luminance */
                    if (!put_row(e, out, ox, base + y, oz + z, K->emission[sl->uniform], zlanes[z], near_only))
                        return false;
                    continue;
                }
                const uint8_t *row = sl->kinds + (y << 8 | z << 4);
                /* the lanes of shaped or shining blocks, near enough, a kind at a
                 * time (a row's are mostly of one: lava, a line of lanterns) */
                const mc__row16 kinds = mc__row_load(row);
                unsigned lanes = mc__row_bits(mc__row_special(kinds)) & zlanes[z];
                while (lanes) {
                    const unsigned kd = row[mc__lowest_bit(lanes)];
                    const unsigned same = mc__row_bits(mc__row_eq(kinds, mc__row_splat(kd))) & lanes;
                    lanes &= ~same;
                    if (!put_row(e, out, ox, base + y, oz + z, K->emission[kd], same, near_only))
                        return false;
                }
            }
        }
    }
    return true;
}

bool mc__light_emitters(mc_light_engine *e, int32_t lx0, int32_t lx1, int32_t lz0, int32_t lz1)
{
    const emit_list all = {&e->emit, &e->nemit, &e->emit_cap};
    e->nemit = 0;
    for (int c = 0; c < 9; c++) {
        if (!e->cols[c])
            continue;
        const int32_t ox = (c % 3 - 1) * 16, oz = (c / 3 - 1) * 16;
        const int32_t x0 = lx0 > ox ? lx0 - ox : 0, x1 = lx1 < ox + 16 ? lx1 - ox : 16;
        const int32_t z0 = lz0 > oz ? lz0 - oz : 0, z1 = lz1 < oz + 16 ? lz1 - oz : 16;
        if (x0 >= x1 || z0 >= z1)
            continue;
        mc__col_entry *ce = e->ce[c];
        if (ce && !ce->emit_ok && !ce->emit_many) { /* a batch: the column's own list, made once */
            ce->nemit = 0;
            if (!scan_emitters(e, c, 0, 16, 0, 16, 0, 0, false, (emit_list){&ce->emit, &ce->nemit, &ce->emit_cap}))
                return false;
            ce->emit_ok = ce->nemit <= MC__BATCH_MAX_EMIT;
            ce->emit_many = !ce->emit_ok;
            if (ce->emit_many) { /* not kept: the entry's memory stays bounded */
                e->alloc.free(e->alloc.user, ce->emit, ce->emit_cap * sizeof *ce->emit);
                ce->emit = NULL;
                ce->nemit = ce->emit_cap = 0;
            }
        }
        if (!ce || !ce->emit_ok) {
            if (!scan_emitters(e, c, x0, x1, z0, z1, ox, oz, true, all))
                return false;
            continue;
        }
        if (!ce->nemit)
            continue; /* (and e->emit may still be NULL) */
        mc__emitter *out = mc__light_grow(e, e->emit, &e->emit_cap, e->nemit + ce->nemit, sizeof *e->emit, 256);
        if (!out)
            return false;
        e->emit = out; /* room for all of them: appended without a check each */
        size_t n = e->nemit;
        const unsigned window = (0xFFFFu << x0) & (0xFFFFu >> (16 - x1));
        for (size_t i = 0; i < ce->nemit; i++) {
            const mc__emitter *m = &ce->emit[i];
            const unsigned lanes =
                m->lz < z0 || m->lz >= z1 ? 0 : m->lanes & window & near_of(e, ox, oz + m->lz, m->level);
            if (lanes)
                out[n++] = (mc__emitter){(int16_t)ox, (int16_t)(oz + m->lz), m->y, m->level, (uint16_t)lanes};
        }
        e->nemit = n;
    }
    return true;
}
