/*
 * fallback.h: finding the block a target version has for a block it lacks
 * (fallback.c), shared by the translation (translate.c). Not installed.
 *
 * A "view" is what a translation may pick from: the blocks of a flattened
 * Java registry, with a mask of the ones the real target can hold. For a
 * flattened Java target the view is the target itself; for Java 1.8-1.12
 * it is the 1.13 registry (the pivot) restricted to the blocks whose states
 * survive the trip to that legacy version; for Bedrock it is the Java
 * registry of blocksJ2B restricted to the blocks Bedrock has. Resolving a
 * source block against a view walks the rules of include/mcchunk/registry.h
 * (same name, older name, same shape family, nearest colour) and says
 * which one it used in MC_TRANSLATE_* bits.
 */
#ifndef MC_REGISTRY_FALLBACK_H
#define MC_REGISTRY_FALLBACK_H

#include "registry/registry_internal.h"

typedef struct mc__view mc__view;

/* A property value a resolution imposes on the target state (Bedrock's
 * X_double_slab is X_slab with type=double); key NULL: none. */
typedef struct mc__forced {
    const char *key, *value;
} mc__forced;

/* A view over the blocks of flat Java registry `reg`; `avail` (malloc'd, one
 * byte per block, taken over; NULL: every block) says which ones the target
 * holds. NULL when memory runs out (avail is freed). */
mc__view *mc__view_new(const mc_registry *reg, uint8_t *avail);
void mc__view_free(mc__view *v);
const mc_registry *mc__view_registry(const mc__view *v);
/* The view's last step, precomputed by its owner (translate.c): per state
 * of the view's registry, the target state and the MC_TRANSLATE_* bits of
 * getting there (legacy: the 1.12 id:meta, Bedrock: blocksJ2B). Both
 * arrays are taken over; NULL: the view's states are the target's. */
void mc__view_set_finish(mc__view *v, uint32_t *target, uint16_t *how);
/* View state q as a target state (adds the bits of that step to *how). */
uint32_t mc__view_finish(const mc__view *v, uint32_t q, unsigned *how);
bool mc__view_has(const mc__view *v, uint32_t block);

/* The block of the view standing in for block `fb` of flat registry `from`
 * (any edition): the same name, an older or newer name of it, a variant
 * or member of its shape family, a plant for a plant, water for a water
 * plant, else the ordinary full block of the nearest colour; the target's
 * air for an air-like block (MC_TRANSLATE_AIR_LIKE). Adds to *how the
 * MC_TRANSLATE_* bits of the rule used, and sets *forced (key NULL when
 * the rule imposes no value). MC__NONE only when the view has no block at
 * all. */
uint32_t mc__view_resolve(const mc__view *v, const mc_registry *from, uint32_t fb, unsigned *how,
                          mc__forced *forced);

/* Air-like block names: air, cave_air, void_air, light, structure_void
 * (and Bedrock's light_block_N). Barrier is not: it is invisible but
 * solid, and mapping it to air would let players walk where they could
 * not. */
bool mc__air_like_name(const char *bare);

/* The rough colour of a block by its bare name (material.c); false when
 * its name says nothing about colour. */
bool mc__block_color(const char *bare, uint8_t rgb[3]);

#endif
