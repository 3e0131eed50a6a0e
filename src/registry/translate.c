/*
 * translate.c: state translation between any two registries, and the cached
 * translation maps (one uint32 per source state, with the MC_TRANSLATE_*
 * bits of each) the chunk module applies to palettes.
 *
 * Every translation has the same three steps:
 *   1. the source state as a state of a flattened registry F: itself
 *      (flattened Java, or a Bedrock state no table maps), the 1.13 state
 *      legacy.json gives a 1.8-1.12 id:meta (F = the pivot, 1.13), or the
 *      Java state blocksB2J gives a Bedrock state (F = that Java version);
 *   2. F's block resolved against the target's view (fallback.c: the same
 *      name, a renamed one, the same shape family, the nearest colour),
 *      and the state's properties carried over by name (the target's
 *      defaults for the rest);
 *   3. the view's state as a state of the target: itself for flattened
 *      Java, its closest 1.12 id:meta for 1.8-1.12 (the pivot's map),
 *      blocksJ2B for Bedrock.
 * Because every string is interned once in the generated pool, "same name"
 * and "same value" are comparisons of pool offsets, so a map is built block
 * by block: resolve the target block once, then remap each state's
 * property digits. Views are built once per target registry and maps once
 * per (from, to) pair; both are published with an atomic compare-and-swap
 * and live for the process.
 */
#include "registry/fallback.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static const mc_registry *pivot(void) { return &mc__java_registries[mc__java_pivot]; }
static const mc_registry *java_of(const mc_registry *bedrock) { return &mc__java_registries[bedrock->java_index]; }

/* ------------------------------------------------------ property values */

/* Values that mean the same thing in another version: 1.16 gave wall sides
 * none/low/tall instead of false/true. Tried only when the target lacks the
 * value itself. */
static const char *const value_aliases[][2] = {
    {"true", "low"}, {"false", "none"}, {"low", "true"}, {"tall", "true"}, {"none", "false"},
};

static uint32_t find_value(const mc__propdef *td, uint32_t value)
{
    uint32_t v = 0;
    while (v < td->count && mc__reg_value_refs[td->values + v] != value)
        v++;
    if (v < td->count)
        return v;
    const char *text = mc__str(value);
    for (size_t a = 0; a < sizeof value_aliases / sizeof value_aliases[0]; a++) {
        if (strcmp(text, value_aliases[a][0]))
            continue;
        for (v = 0; v < td->count; v++)
            if (!strcmp(mc__str(mc__reg_value_refs[td->values + v]), value_aliases[a][1]))
                return v;
    }
    return MC__NONE;
}

/* Sets the digit of property `key` of kind tk to `value` (when it has both). */
static void force_value(const mc__kind *tk, uint8_t *digits, const mc__forced *forced)
{
    for (unsigned j = 0; forced && forced->key && j < tk->nprops; j++) {
        const mc__propdef *td = mc__propdef_of(tk, j);
        if (strcmp(mc__str(td->name), forced->key))
            continue;
        for (uint32_t v = 0; v < td->count; v++)
            if (!strcmp(mc__str(mc__reg_value_refs[td->values + v]), forced->value))
                digits[j] = (uint8_t)v;
    }
}

/* The state of target block tb (tables tt) matching source kind fk at
 * offset off, with the value a rule imposes (forced, may be NULL). */
static uint32_t map_props(const mc__kind *fk, uint32_t off, const mc__tables *tt, uint32_t tb,
                          unsigned *how, const mc__forced *forced)
{
    const mc__kind *tk = mc__kind_of(tt, tb);
    if (tk == fk && !(forced && forced->key)) /* the same kind: the same offset */
        return tt->block_min[tb] + off;
    uint8_t digits[MC__MAX_PROPS];
    memcpy(digits, mc__reg_default_digits + tk->default_digits, tk->nprops);
    for (unsigned i = 0; i < fk->nprops; i++) {
        const mc__propdef *fd = mc__propdef_of(fk, i);
        uint32_t value = mc__reg_value_refs[fd->values + mc__prop_digit(fk, off, i)];
        unsigned j = 0;
        const mc__propdef *td = NULL;
        for (; j < tk->nprops; j++) {
            td = mc__propdef_of(tk, j);
            if (td->name == fd->name)
                break;
        }
        if (j == tk->nprops) {
            *how |= MC_TRANSLATE_PROP_DROPPED;
            continue;
        }
        uint32_t v = find_value(td, value);
        if (v == MC__NONE) {
            *how |= MC_TRANSLATE_VALUE_DEFAULTED;
            continue;
        }
        digits[j] = (uint8_t)v;
    }
    force_value(tk, digits, forced);
    uint32_t toff = mc__kind_offset(tk, digits);
    if (toff == MC__NONE) { /* a combination this (Bedrock) block lacks */
        *how |= MC_TRANSLATE_VALUE_DEFAULTED;
        toff = tk->default_off;
    }
    return tt->block_min[tb] + toff;
}

/* ------------------------------------------------ 1.12 <-> 1.13 (pivot) */

/* The maps between 1.12 and the pivot, which the pivot's tables t hold
 * (NULL: memory ran out): 1.12 id<<4|meta -> 1.13 state (0xFFFF: none)
 * and back (0: air). */
static uint32_t legacy_to_pivot(const mc__tables *t, uint32_t s)
{
    uint32_t p = t && s < t->l2p_count ? t->legacy_to_pivot[s] : 0xFFFF;
    return p == 0xFFFF ? MC__NONE : p;
}

static uint32_t pivot_to_legacy(const mc__tables *t, uint32_t p)
{
    return t && p < t->p2l_count ? t->pivot_to_legacy[p] : 0;
}

/* Does pivot state p reach legacy registry l as a state that comes back
 * as a state of the same pivot block? */
static bool legacy_keeps(const mc__tables *tp, const mc_registry *l, uint32_t p)
{
    uint32_t s = pivot_to_legacy(tp, p);
    if (!mc_registry_state_valid(l, s) || (s == 0 && p != 0))
        return false;
    uint32_t back = legacy_to_pivot(tp, s);
    return back != MC__NONE && mc__block_of_state(pivot(), tp, back) == mc__block_of_state(pivot(), tp, p);
}

/* The pivot blocks legacy registry l can hold. */
static uint8_t *legacy_avail(const mc_registry *l)
{
    const mc_registry *pv = pivot();
    const mc__tables *tp = mc__tables_of(pv);
    uint8_t *avail = tp ? calloc(pv->block_count, 1) : NULL;
    if (!avail)
        return NULL;
    for (uint32_t b = 0; b < pv->block_count; b++)
        for (uint32_t s = tp->block_min[b]; s < tp->block_min[b + 1] && !avail[b]; s++)
            avail[b] = legacy_keeps(tp, l, s);
    return avail;
}

/* Does legacy state s (of l) have a property named `name` (its F3 name)? */
static bool legacy_has_prop(const mc_registry *l, uint32_t s, const char *name)
{
    const mc__legacy_block *b = &l->legacy[s >> 4];
    if (b->schema == MC__NONE)
        return false;
    const mc__legacy_schema *sc = &mc__reg_legacy_schemas[b->schema];
    for (unsigned i = 0; i < sc->nprops; i++)
        if (!strcmp(mc__str(mc__reg_propdefs[mc__reg_prop_lists[sc->props + i]].name), name))
            return true;
    return false;
}

/* Does legacy state s lose a property of pivot state q? Not the ones 1.12
 * has and computes from the neighbours (a fence's connections, a stairs'
 * shape: its F3 state has them), nor the ones it keeps in a block entity
 * (a note block's note and instrument, a bed's colour: the block entity's
 * business), nor leaves' decay distance (never shown). What 1.12 cannot
 * hold at all is a waterlogged block's water. */
static bool legacy_loses(const mc__tables *tp, const mc_registry *l, uint32_t q, uint32_t s)
{
    uint32_t back = legacy_to_pivot(tp, s);
    if (back == q || back == MC__NONE)
        return false;
    const mc_registry *pv = pivot();
    uint32_t b = mc__block_of_state(pv, tp, q);
    if (mc__block_of_state(pv, tp, back) != b)
        return true;
    const mc__kind *k = mc__kind_of(tp, b);
    for (unsigned i = 0; i < k->nprops; i++) {
        if (mc__prop_digit(k, q - tp->block_min[b], i) == mc__prop_digit(k, back - tp->block_min[b], i))
            continue;
        const char *name = mc__str(mc__propdef_of(k, i)->name);
        if (!legacy_has_prop(l, s, name) && !strcmp(name, "waterlogged"))
            return true;
    }
    return false;
}

/* Pivot state q (of an available block) as a state of legacy registry l. */
static uint32_t legacy_finish(const mc_registry *l, uint32_t q, unsigned *how)
{
    const mc__tables *tp = mc__tables_of(pivot());
    if (legacy_keeps(tp, l, q)) {
        uint32_t s = pivot_to_legacy(tp, q);
        if (legacy_loses(tp, l, q, s))
            *how |= MC_TRANSLATE_PROP_DROPPED;
        return s;
    }
    uint32_t b = mc__block_of_state(pivot(), tp, q);
    for (uint32_t p = tp->block_min[b]; p < tp->block_min[b + 1]; p++)
        if (legacy_keeps(tp, l, p)) {
            *how |= MC_TRANSLATE_VALUE_DEFAULTED;
            return pivot_to_legacy(tp, p);
        }
    *how |= MC_TRANSLATE_AIR;
    return 0;
}

/* ---------------------------------------------------- Java -> Bedrock */

/* Bedrock states no translation of a real block may end at. */
static bool bedrock_unusable(const mc_registry *b, uint32_t t, bool air_ok)
{
    if (!mc_registry_state_valid(b, t))
        return true;
    const char *name = mc_registry_state_name(b, t) + 10;
    if (!strcmp(name, "unknown") || !strcmp(name, "info_update") || !strcmp(name, "info_update2") ||
        !strcmp(name, "reserved6") || !strcmp(name, "update_block"))
        return true;
    return !air_ok && (mc_registry_state_flags(b, t) & MC_STATE_AIR);
}

/* Java state js (of java_of(b)) as a state of Bedrock registry b: through
 * blocksJ2B, else by name; MC__NONE when neither gives a usable state. */
static uint32_t bedrock_of_java(const mc_registry *b, uint32_t js, unsigned *how)
{
    const mc_registry *j = java_of(b);
    const mc__tables *tj = mc__tables_of(j), *tb = mc__tables_of(b);
    if (!tj || !tb || js >= j->state_count)
        return MC__NONE;
    uint32_t jb = mc__block_of_state(j, tj, js);
    const mc__kind *jk = mc__kind_of(tj, jb);
    bool air_ok = mc__air_like_name(mc__str(jk->name) + 10);
    uint32_t t = tb->j2b[js];
    if (t != 0xFFFF && !bedrock_unusable(b, t, air_ok)) {
        *how |= MC_TRANSLATE_MAPPED;
        return t;
    }
    uint32_t bb = mc__find_block(b, mc__str(jk->name), strlen(mc__str(jk->name)));
    if (bb != MC__NONE) {
        unsigned h = 0;
        t = map_props(jk, js - tj->block_min[jb], tb, bb, &h, NULL);
        if (!bedrock_unusable(b, t, air_ok)) {
            *how |= h;
            return t;
        }
    }
    return MC__NONE;
}

/* The Java blocks (of java_of(b)) Bedrock registry b can hold. */
static uint8_t *bedrock_avail(const mc_registry *b)
{
    const mc_registry *j = java_of(b);
    const mc__tables *tj = mc__tables_of(j);
    uint8_t *avail = tj ? calloc(j->block_count, 1) : NULL;
    if (!avail)
        return NULL;
    for (uint32_t jb = 0; jb < j->block_count; jb++) {
        unsigned how = 0;
        avail[jb] = bedrock_of_java(b, tj->block_min[jb] + mc__kind_of(tj, jb)->default_off, &how) != MC__NONE;
    }
    return avail;
}

static uint32_t bedrock_finish(const mc_registry *b, uint32_t q, unsigned *how)
{
    uint32_t t = bedrock_of_java(b, q, how);
    if (t != MC__NONE)
        return t;
    const mc_registry *j = java_of(b);
    const mc__tables *tj = mc__tables_of(j);
    uint32_t jb = mc__block_of_state(j, tj, q);
    t = bedrock_of_java(b, tj->block_min[jb] + mc__kind_of(tj, jb)->default_off, how);
    if (t != MC__NONE) {
        *how |= MC_TRANSLATE_VALUE_DEFAULTED;
        return t;
    }
    *how |= MC_TRANSLATE_AIR;
    return mc_registry_air(b);
}

/* ------------------------------------------------------------- views */

/* A view state as a state of the target (step 3), the slow way. */
static uint32_t finish_slow(const mc_registry *to, uint32_t q, unsigned *how)
{
    if (to->kind == MC__KIND_LEGACY) {
        *how |= MC_TRANSLATE_MAPPED;
        return legacy_finish(to, q, how);
    }
    return bedrock_finish(to, q, how);
}

static mc__view *view_build(const mc_registry *to)
{
    mc__view *v;
    if (to->kind == MC__KIND_LEGACY) {
        uint8_t *avail = legacy_avail(to);
        v = avail ? mc__view_new(pivot(), avail) : NULL;
    } else if (to->edition == MC_EDITION_BEDROCK && to->mapped) {
        uint8_t *avail = bedrock_avail(to);
        v = avail ? mc__view_new(java_of(to), avail) : NULL;
    } else {
        return mc__view_new(to, NULL);
    }
    if (!v)
        return NULL;
    /* step 3 for every state of the view, once */
    uint32_t n = mc__view_registry(v)->state_count;
    uint32_t *target = malloc((size_t)(n ? n : 1) * sizeof *target);
    uint16_t *hows = malloc((size_t)(n ? n : 1) * sizeof *hows);
    if (!target || !hows) {
        free(target);
        free(hows);
        mc__view_free(v);
        return NULL;
    }
    for (uint32_t q = 0; q < n; q++) {
        unsigned how = 0;
        target[q] = finish_slow(to, q, &how);
        hows[q] = (uint16_t)how;
    }
    mc__view_set_finish(v, target, hows);
    return v;
}

static _Atomic(mc__view *) views[MC__MAX_REGISTRIES];

/* The view of target `to`, built on first use; NULL when memory ran out. */
static const mc__view *view_of(const mc_registry *to)
{
    if (to->index >= MC__MAX_REGISTRIES)
        return NULL;
    mc__view *v = atomic_load_explicit(&views[to->index], memory_order_acquire);
    if (v)
        return v;
    mc__view *fresh = view_build(to);
    if (!fresh)
        return NULL;
    mc__view *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&views[to->index], &expected, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    mc__view_free(fresh); /* another thread won */
    return expected;
}


/* --------------------------------------------------------- one state */

/* A source state as state *fs of flat registry *f (step 1); false when
 * nothing maps it (an id:meta legacy.json lacks). */
static bool flat_source(const mc_registry *from, uint32_t s, const mc_registry **f, uint32_t *fs, unsigned *how)
{
    *f = from;
    *fs = s;
    if (from->kind == MC__KIND_LEGACY) {
        const mc__tables *tp = mc__tables_of(pivot());
        uint32_t p = legacy_to_pivot(tp, s);
        for (uint32_t m = 0; p == MC__NONE && m < 16; m++) /* a meta legacy.json lacks: the block's first */
            if ((p = legacy_to_pivot(tp, (s & ~15u) | m)) != MC__NONE)
                *how |= MC_TRANSLATE_VALUE_DEFAULTED;
        if (p == MC__NONE)
            return false;
        *f = pivot();
        *fs = p;
        *how |= MC_TRANSLATE_MAPPED;
    } else if (from->edition == MC_EDITION_BEDROCK && from->mapped) {
        const mc__tables *t = mc__tables_of(from);
        if (t && t->b2j[s] != 0xFFFF) {
            *f = java_of(from);
            *fs = t->b2j[s];
            *how |= MC_TRANSLATE_MAPPED;
        }
    }
    return true;
}

/* Bedrock -> Bedrock keeps a block both have by name, as it is. */
static uint32_t same_name_bedrock(const mc_registry *from, const mc_registry *to, uint32_t s, unsigned *how)
{
    if (from->edition != MC_EDITION_BEDROCK || to->edition != MC_EDITION_BEDROCK)
        return MC__NONE;
    const mc__tables *tf = mc__tables_of(from), *tt = mc__tables_of(to);
    uint32_t fb = tf ? mc__block_of_state(from, tf, s) : MC__NONE;
    if (fb == MC__NONE || !tt)
        return MC__NONE;
    const mc__kind *fk = mc__kind_of(tf, fb);
    uint32_t tb = mc__find_block(to, mc__str(fk->name), strlen(mc__str(fk->name)));
    return tb == MC__NONE ? MC__NONE : map_props(fk, s - tf->block_min[fb], tt, tb, how, NULL);
}

static uint32_t translate(const mc_registry *from, const mc_registry *to, uint32_t s, unsigned *how)
{
    if (!mc_registry_state_valid(from, s)) {
        *how |= MC_TRANSLATE_AIR;
        return mc_registry_air(to);
    }
    if (from == to)
        return s;
    if (from->kind == MC__KIND_LEGACY && to->kind == MC__KIND_LEGACY && mc_registry_state_valid(to, s))
        return s; /* the ids never changed from 1.8 to 1.12 */
    uint32_t t = same_name_bedrock(from, to, s, how);
    if (t != MC__NONE)
        return t;
    const mc__view *v = view_of(to);
    const mc_registry *f;
    uint32_t fs;
    if (!v || !flat_source(from, s, &f, &fs, how)) {
        *how |= MC_TRANSLATE_AIR;
        return mc_registry_air(to);
    }
    const mc__tables *tf = mc__tables_of(f);
    uint32_t fb = mc__block_of_state(f, tf, fs);
    mc__forced forced;
    uint32_t vb = mc__view_resolve(v, f, fb, how, &forced);
    if (vb == MC__NONE) {
        *how |= MC_TRANSLATE_AIR;
        return mc_registry_air(to);
    }
    const mc_registry *vr = mc__view_registry(v);
    uint32_t q = map_props(mc__kind_of(tf, fb), fs - tf->block_min[fb], mc__tables_of(vr), vb, how, &forced);
    return mc__view_finish(v, q, how);
}

uint32_t mc_registry_translate_state(const mc_registry *from, const mc_registry *to, uint32_t state,
                                     unsigned *how)
{
    unsigned h = 0;
    uint32_t r = (from && to) ? translate(from, to, state, &h) : MC_STATE_NONE;
    if (how)
        *how = h;
    return r;
}

/* ------------------------------------------------------------ maps */

/* Per source block (of one flat registry), its resolved view block and
 * rule bits, computed on first need during one map build. */
typedef struct block_cache {
    const mc_registry *f;
    uint32_t *block; /* MC__NONE - 1: not yet resolved */
    uint16_t *how;
    mc__forced *forced;
} block_cache;

#define UNRESOLVED (MC__NONE - 1)

static bool cache_init(block_cache *c, const mc_registry *f)
{
    c->f = f;
    c->block = malloc((size_t)(f->block_count ? f->block_count : 1) * sizeof *c->block);
    c->how = malloc((size_t)(f->block_count ? f->block_count : 1) * sizeof *c->how);
    c->forced = malloc((size_t)(f->block_count ? f->block_count : 1) * sizeof *c->forced);
    if (!c->block || !c->how || !c->forced)
        return false;
    for (uint32_t b = 0; b < f->block_count; b++)
        c->block[b] = UNRESOLVED;
    return true;
}

static void cache_free(block_cache *c)
{
    free(c->block);
    free(c->how);
    free(c->forced);
}

static uint32_t cached_resolve(block_cache *c, const mc__view *v, uint32_t fb, unsigned *how,
                               const mc__forced **forced)
{
    if (c->block[fb] == UNRESOLVED) {
        unsigned h = 0;
        c->block[fb] = mc__view_resolve(v, c->f, fb, &h, &c->forced[fb]);
        c->how[fb] = (uint16_t)h;
    }
    *how |= c->how[fb];
    *forced = &c->forced[fb];
    return c->block[fb];
}

/* Fills map/how for every state of `from` through view v (the general
 * path: steps 1-3 of the top of this file, resolution cached per block). */
static bool fill_through_view(const mc_registry *from, const mc_registry *to, const mc__view *v, uint32_t *map,
                              uint16_t *hows)
{
    block_cache own = {0}, other = {0};
    const mc_registry *second = from->kind == MC__KIND_LEGACY ? pivot()
                                : from->edition == MC_EDITION_BEDROCK && from->mapped ? java_of(from)
                                                                                     : NULL;
    bool ok = (from->kind == MC__KIND_LEGACY || cache_init(&own, from)) && (!second || cache_init(&other, second));
    const mc__tables *tv = mc__tables_of(mc__view_registry(v));
    uint32_t air = mc_registry_air(to);
    for (uint32_t s = 0; ok && s < from->state_count; s++) {
        unsigned how = 0;
        uint32_t t;
        const mc_registry *f;
        uint32_t fs;
        if (from->kind == MC__KIND_LEGACY && to->kind == MC__KIND_LEGACY && mc_registry_state_valid(from, s) &&
            mc_registry_state_valid(to, s)) {
            t = s;
        } else if (!mc_registry_state_valid(from, s) || !flat_source(from, s, &f, &fs, &how)) {
            how |= MC_TRANSLATE_AIR;
            t = air;
        } else if ((t = same_name_bedrock(from, to, s, &how)) == MC__NONE) {
            const mc__tables *tf = mc__tables_of(f);
            uint32_t fb = mc__block_of_state(f, tf, fs);
            const mc__forced *forced;
            uint32_t vb = cached_resolve(f == from ? &own : &other, v, fb, &how, &forced);
            if (vb == MC__NONE) {
                how |= MC_TRANSLATE_AIR;
                t = air;
            } else {
                t = mc__view_finish(v, map_props(mc__kind_of(tf, fb), fs - tf->block_min[fb], tv, vb, &how, forced),
                                    &how);
            }
        }
        map[s] = t;
        hows[s] = (uint16_t)how;
    }
    cache_free(&own);
    cache_free(&other);
    return ok;
}

/* The same for a flattened Java source, block by block: no search for
 * each state's block, one resolution per block. */
static bool fill_flat_java(const mc_registry *from, const mc_registry *to, const mc__view *v, uint32_t *map,
                           uint16_t *hows)
{
    const mc__tables *tf = mc__tables_of(from), *tv = mc__tables_of(mc__view_registry(v));
    uint32_t air = mc_registry_air(to);
    if (!tf || !tv)
        return false;
    for (uint32_t fb = 0; fb < from->block_count; fb++) {
        const mc__kind *fk = mc__kind_of(tf, fb);
        unsigned block_how = 0;
        mc__forced forced;
        uint32_t vb = mc__view_resolve(v, from, fb, &block_how, &forced);
        if (vb != MC__NONE && mc__kind_of(tv, vb) == fk && !forced.key) {
            /* the same kind, nothing imposed: each state at its own offset
             * (map_props' first case, without a call per state) */
            for (uint32_t off = 0, s = tf->block_min[fb], q = tv->block_min[vb]; off < fk->count; off++, s++) {
                unsigned how = block_how;
                map[s] = mc__view_finish(v, q + off, &how);
                hows[s] = (uint16_t)how;
            }
            continue;
        }
        for (uint32_t off = 0, s = tf->block_min[fb]; off < fk->count; off++, s++) {
            unsigned how = block_how;
            if (vb == MC__NONE) {
                map[s] = air;
                hows[s] = MC_TRANSLATE_AIR;
                continue;
            }
            map[s] = mc__view_finish(v, map_props(fk, off, tv, vb, &how, &forced), &how);
            hows[s] = (uint16_t)how;
        }
    }
    return true;
}

/* Builds map (n uint32s) followed by its how bits (n uint16s) in one block. */
static uint32_t *map_build(const mc_registry *from, const mc_registry *to)
{
    uint32_t n = from->state_count;
    uint32_t *map = malloc((size_t)(n ? n : 1) * (sizeof *map + sizeof(uint16_t)));
    if (!map)
        return NULL;
    uint16_t *hows = (uint16_t *)(void *)(map + n);
    if (from == to) {
        uint32_t air = mc_registry_air(to);
        for (uint32_t s = 0; s < n; s++) {
            bool valid = mc_registry_state_valid(from, s);
            map[s] = valid ? s : air;
            hows[s] = valid ? 0 : MC_TRANSLATE_AIR;
        }
        return map;
    }
    const mc__view *v = view_of(to);
    bool flat_java = from->edition == MC_EDITION_JAVA && from->kind == MC__KIND_FLAT;
    if (!v || !mc__tables_of(pivot()) ||
        !(flat_java ? fill_flat_java(from, to, v, map, hows) : fill_through_view(from, to, v, map, hows))) {
        free(map);
        return NULL;
    }
    return map;
}

uint32_t *mc__map_build(const mc_registry *from, const mc_registry *to, bool fresh)
{
    (void)fresh; /* maps no longer compose other maps: every build is from nothing */
    return map_build(from, to);
}

typedef _Atomic(uint32_t *) map_slot;
static _Atomic(map_slot *) map_slots;

/* The cached map block of (from, to): map then how bits. */
static uint32_t *cached_map(const mc_registry *from, const mc_registry *to)
{
    if (!from || !to)
        return NULL;
    size_t count = mc_registry_count();
    map_slot *slots = atomic_load_explicit(&map_slots, memory_order_acquire);
    if (!slots) {
        map_slot *fresh = calloc(count * count, sizeof *fresh);
        if (!fresh)
            return NULL;
        for (size_t i = 0; i < count * count; i++)
            atomic_init(&fresh[i], NULL);
        map_slot *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&map_slots, &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            slots = fresh;
        else {
            free(fresh);
            slots = expected;
        }
    }
    map_slot *slot = &slots[(size_t)from->index * count + to->index];
    uint32_t *map = atomic_load_explicit(slot, memory_order_acquire);
    if (map)
        return map;
    uint32_t *built = map_build(from, to);
    if (!built)
        return NULL;
    uint32_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(slot, &expected, built, memory_order_acq_rel,
                                                memory_order_acquire))
        return built;
    free(built);
    return expected;
}

const uint32_t *mc_registry_map(const mc_registry *from, const mc_registry *to)
{
    return cached_map(from, to);
}

const uint16_t *mc_registry_map_how(const mc_registry *from, const mc_registry *to)
{
    uint32_t *map = cached_map(from, to);
    return map ? (const uint16_t *)(const void *)(map + from->state_count) : NULL;
}

/* ------------------------------------------------------------- kinds */

mc_translate_kind mc_translate_kind_of(unsigned how)
{
    if (how & MC_TRANSLATE_AIR)
        return MC_TRANSLATE_KIND_LOST;
    if (how & MC_TRANSLATE_AIR_LIKE)
        return MC_TRANSLATE_KIND_AIR_LIKE;
    if (how & MC_TRANSLATE_NEAREST_COLOR)
        return MC_TRANSLATE_KIND_NEAREST_COLOR;
    if (how & MC_TRANSLATE_SAME_FAMILY)
        return MC_TRANSLATE_KIND_SAME_SHAPE;
    if (how & MC_TRANSLATE_RENAMED)
        return MC_TRANSLATE_KIND_RENAMED;
    return MC_TRANSLATE_KIND_EXACT;
}

const char *mc_translate_kind_name(mc_translate_kind kind)
{
    static const char *const names[MC_TRANSLATE_KIND_COUNT] = {"exact", "renamed", "same-shape",
                                                               "nearest-colour", "air-like", "lost"};
    return (unsigned)kind < MC_TRANSLATE_KIND_COUNT ? names[kind] : "?";
}
