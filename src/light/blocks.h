/*
 * blocks.h: what blocks.c gives the engine (engine.c): the engine's
 * growable arrays, the slices of the nine columns (one light kind per
 * block, a section at a time, with the inline fast path that finds a slice
 * already classified), the tops where sky light stops falling, and the
 * blocks that shine into the centre column. Private to src/light.
 */
#ifndef MCCHUNK_LIGHT_BLOCKS_H
#define MCCHUNK_LIGHT_BLOCKS_H

#include "light/light_private.h"

/* The array `arr` (capacity *cap elements of `size` bytes) with
 * room for `need`: itself, or grown to at least twice its size (`least` at
 * first), *cap updated. NULL when memory runs out (arr is as it was). */
void *mc__light_grow(mc_light_engine *e, void *arr, size_t *cap, size_t need, size_t size, size_t least);

/* Starts a call: the nine columns (a neighbour of another
 * registry or height is left out), no slice classified yet unless a batch
 * is open and `use_batch`: then each column's entry brings what earlier
 * calls learned of it. False: no memory. */
bool mc__light_slices_begin(mc_light_engine *e, const mc_column *col, const mc_column *const nb[8], bool use_batch);
/* Frees an entry's arrays and marks it free. */
void mc__light_entry_clear(mc_light_engine *e, mc__col_entry *ce);
/* Slice k of column c (present), with its kinds array when want_kinds and
 * the slice is mixed. NULL (and e->nomem) when that array cannot be had.
 * (The slow part, classifying and unpacking, is out of line.) */
const mc__slice *mc__light_slice_slow(mc_light_engine *e, int c, uint32_t k, bool want_kinds);
static inline const mc__slice *mc__light_slice(mc_light_engine *e, int c, uint32_t k, bool want_kinds)
{
    const mc__slice *sl = &e->cs[c][k];
    if (sl->ready && (!want_kinds || sl->uniform >= 0 || sl->kinds))
        return sl;
    return mc__light_slice_slow(e, c, k, want_kinds);
}
/* Fills e->near (once, when the engine is made). */
void mc__light_near_init(mc_light_engine *e);
/* Fills e->top. False: no memory. */
bool mc__light_tops(mc_light_engine *e);
/* Collects into e->emit the blocks with local x in lx0..lx1-1 and z in
 * lz0..lz1-1 whose luminance exceeds their distance to the centre column,
 * as rows of lanes (mc__emitter). False: no memory. */
bool mc__light_emitters(mc_light_engine *e, int32_t lx0, int32_t lx1, int32_t lz0, int32_t lz1);

#endif
