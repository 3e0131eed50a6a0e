/*
 * reg_private.h: helpers shared by the files of the registry module
 * (lookups over the registry tables in data/ and the per-registry indexes
 * built on first use). Not installed.
 */
#ifndef MC_REG_PRIVATE_H
#define MC_REG_PRIVATE_H

#include <stdbool.h>
#include <string.h>

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
    /* flattened: the lookup index of lookup_index.c */
    uint8_t *lk_blob;     /* per block, everything a lookup reads */
    uint64_t *lk_names;   /* by bare name: fingerprint << 32 | blob offset / 8 + 1 */
    struct mc__lk_key *lk_keys;     /* the property keys the registry uses */
    struct mc__lk_value *lk_values; /* its value lists, a perfect hash table each */
    uint64_t *lk_value_mid;         /* per value slot, words 1 and 2 of long values */
    uint16_t *lk_perm;    /* Bedrock listed kinds: mixed-radix index -> state offset */
    uint32_t lk_name_mask;
    uint32_t air;         /* the air state */
    const mc__tables *tables; /* the registry's decoded tables (tables.c) */
} mc__runtime;

/* Names are hashed and compared without the "minecraft:" namespace (a name
 * may be given with or without it; every pooled name has it). A name in
 * another namespace keeps its colon and so can never equal a pooled name. */
static inline void mc__strip_namespace(const char **name, size_t *len)
{
    if (*len >= 10 && (*name)[0] == 'm' && (*name)[9] == ':' && !memcmp(*name, "minecraft:", 10)) {
        *name += 10;
        *len -= 10;
    }
}

/* The registry's per-block tables (tables.c), decoded on first use; NULL
 * when memory ran out. Every function that reads them starts here. */
const mc__tables *mc__tables_of(const mc_registry *reg);

static inline const mc__kind *mc__kind_of(const mc__tables *t, uint32_t block)
{
    return &mc__reg_kinds[t->block_kinds[block]];
}

static inline const mc__propdef *mc__propdef_of(const mc__kind *k, unsigned index)
{
    return &mc__reg_propdefs[mc__reg_prop_lists[k->props + index]];
}

/* Every flag bit of a state, the MC__CLASS_* ones too (0: no state). */
uint32_t mc__state_class(const mc_registry *reg, uint32_t state);

/* Bedrock: the hashed network id of a state (bedrock_hash.c). */
uint32_t mc__bedrock_hash(const mc_registry *reg, uint32_t state);
/* The state offset inside kind k for one value index per property, or
 * MC__NONE when the block has no such state (explicit kinds). */
uint32_t mc__kind_offset(const mc__kind *k, const uint8_t *digits);

/* The block (FLAT registries, tables t) holding `state`, or MC__NONE. */
uint32_t mc__block_of_state(const mc_registry *reg, const mc__tables *t, uint32_t state);
/* Digit `index` of a state offset inside its block (value index of that property). */
uint32_t mc__prop_digit(const mc__kind *k, uint32_t offset, unsigned index);
/* The registry's lazily built index, NULL when memory ran out. */
const mc__runtime *mc__runtime_of(const mc_registry *reg);
/* Block index (FLAT) or block id (LEGACY) by name, or MC__NONE. */
uint32_t mc__find_block(const mc_registry *reg, const char *name, size_t len);

/* The lookup index of a flattened registry (lookup_index.c): build it into
 * rt (false when memory ran out; mc__lk_free releases what was built), and
 * look a state up through it. mc__lk_lookup returns false for anything it
 * does not cover (unknown names, bad values, keys given twice, long
 * strings); mc_registry_lookup's generic path then answers. */
bool mc__lk_build(const mc_registry *reg, mc__runtime *rt);
void mc__lk_free(mc__runtime *rt);
bool mc__lk_lookup(const mc_registry *reg, const mc__runtime *rt, const char *name, size_t len,
                   const mc_state_prop *props, size_t count, uint32_t *state);
/* For tests: the property index the key's bucket in the block's record names
 * (what mc__lk_lookup tries before walking the block's keys; 15 for an
 * empty bucket), or -1 when the index has no record for the name. */
int mc__lk_key_guess(const mc_registry *reg, const mc__runtime *rt, const char *name, size_t len, const char *key,
                     size_t key_len);
/* mc_registry_lookup without the index (registry.c): the reference the
 * index is tested against, and its fallback. Arguments already checked. */
mc_status mc__lookup_generic(const mc_registry *reg, const char *name, size_t name_len,
                             const mc_state_prop *props, size_t prop_count, uint32_t *state,
                             mc_error *err);

/* Builds the translation map from -> to (malloc'd, caller frees). With
 * `fresh`, intermediate maps are built too instead of taken from the cache
 * (benchmarks measure cold builds that way). NULL when memory runs out. */
uint32_t *mc__map_build(const mc_registry *from, const mc_registry *to, bool fresh);

#endif
