/*
 * registry_internal.h: helpers shared by the files of the registry module
 * (lookups over the generated tables and the lazily built per-registry
 * indexes). Not installed.
 */
#ifndef MC_REGISTRY_INTERNAL_H
#define MC_REGISTRY_INTERNAL_H

#include <stdbool.h>

#include "registry/regdata.h"

#define MC__MAX_PROPS 32       /* the generator checks that no block has more */
#define MC__MAX_PARSE_PROPS 64
#define MC__MAX_REGISTRIES 256 /* size of the per-registry index slots */

/* Built once per registry on first use (see registry.c). */
typedef struct mc__runtime {
    uint32_t name_mask;   /* open-addressing table of block index + 1, by name */
    uint32_t *name_slots;
    uint32_t hash_mask;   /* Bedrock: state + 1, by hashed runtime id */
    uint32_t *hash_slots;
    uint32_t *hashes;     /* Bedrock: hashed runtime id of every state */
    uint8_t *blob;        /* flattened: per block, everything a lookup reads (registry.c) */
    uint32_t *blob_slots; /* open addressing by bare name: blob offset + 1 (mask: name_mask) */
    uint32_t air;         /* the air state */
} mc__runtime;

static inline const mc__kind *mc__kind_of(const mc_registry *reg, uint32_t block)
{
    return &mc__reg_kinds[reg->block_kinds[block]];
}

static inline const mc__propdef *mc__propdef_of(const mc__kind *k, unsigned index)
{
    return &mc__reg_propdefs[mc__reg_prop_lists[k->props + index]];
}

/* Bedrock: the hashed network id of a state (bedrock_hash.c). */
uint32_t mc__bedrock_hash(const mc_registry *reg, uint32_t state);
/* The state offset inside kind k for one value index per property, or
 * MC__NONE when the block has no such state (explicit kinds). */
uint32_t mc__kind_offset(const mc__kind *k, const uint8_t *digits);

/* The block (FLAT registries) holding `state`, or MC__NONE. */
uint32_t mc__block_of_state(const mc_registry *reg, uint32_t state);
/* Digit `index` of a state offset inside its block (value index of that property). */
uint32_t mc__prop_digit(const mc__kind *k, uint32_t offset, unsigned index);
/* The registry's lazily built index, NULL when memory ran out. */
const mc__runtime *mc__runtime_of(const mc_registry *reg);
/* Block index (FLAT) or block id (LEGACY) by name, or MC__NONE. */
uint32_t mc__find_block(const mc_registry *reg, const char *name, size_t len);

/* Builds the translation map from -> to (malloc'd, caller frees). With
 * `fresh`, intermediate maps are built too instead of taken from the cache
 * (benchmarks measure cold builds that way). NULL when memory runs out. */
uint32_t *mc__map_build(const mc_registry *from, const mc_registry *to, bool fresh);

#endif
