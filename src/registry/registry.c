/*
 * registry.c: block-state and biome registries over the generated tables of
 * src/registry/data/ (layout in regdata.h).
 *
 * The tables are compact: a flattened registry knows, per block, only its
 * kind and first state id (decoded on first use by tables.c), so a state is
 * found by binary search on the first ids and its properties are the
 * mixed-radix digits of its offset inside the block. Looking a state up by
 * name needs a hash table; that is built once per registry on first use
 * and published with an atomic compare-and-swap (a thread that loses the
 * race frees its copy), so the module has no unsynchronised mutable state
 * and needs no locks. The same
 * runtime index holds the fast name + properties lookup of lookup_index.c;
 * mc__lookup_generic below is its fallback and reference.
 */
#include "registry/reg_private.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const meta_strings[16] = {"0", "1", "2",  "3",  "4",  "5",  "6",  "7",
                                             "8", "9", "10", "11", "12", "13", "14", "15"};
static const char ns[] = "minecraft:";
#define NS_LEN (sizeof ns - 1)

/* ------------------------------------------------------------ registries */

size_t mc_registry_count(void)
{
    return (size_t)mc__java_registry_count + mc__bedrock_registry_count;
}

const mc_registry *mc_registry_at(size_t index)
{
    if (index < mc__java_registry_count)
        return &mc__java_registries[index];
    index -= mc__java_registry_count;
    if (index < mc__bedrock_registry_count)
        return &mc__bedrock_registries[index];
    return NULL;
}

uint32_t mc_registry_state_count(const mc_registry *reg) { return reg ? reg->state_count : 0; }
uint32_t mc_registry_biome_count(const mc_registry *reg) { return reg ? reg->biome_count : 0; }
mc_edition mc_registry_edition(const mc_registry *reg) { return reg ? (mc_edition)reg->edition : MC_EDITION_JAVA; }
const char *mc_registry_name(const mc_registry *reg) { return reg ? mc__str(reg->name) : NULL; }

static unsigned bits_for(uint32_t count)
{
    unsigned bits = 0;
    while (bits < 32 && (1ull << bits) < count)
        bits++;
    return bits;
}

unsigned mc_registry_direct_bits(const mc_registry *reg) { return bits_for(mc_registry_state_count(reg)); }
unsigned mc_registry_biome_direct_bits(const mc_registry *reg) { return bits_for(mc_registry_biome_count(reg)); }

/* ------------------------------------------------------------- versions */

static void version_info(const mc__version *v, const struct mc_registry *regs, mc_version_info *out)
{
    out->name = mc__str(v->name);
    out->protocol = v->protocol;
    out->data_version = v->data_version;
    out->registry = v->registry >= 0 ? &regs[v->registry] : NULL;
}

size_t mc_java_version_count(void) { return mc__java_version_count; }

bool mc_java_version_at(size_t index, mc_version_info *out)
{
    if (index >= mc__java_version_count || !out)
        return false;
    version_info(&mc__java_versions[index], mc__java_registries, out);
    return true;
}

bool mc_java_version_find(const char *name, mc_version_info *out)
{
    if (!name)
        return false;
    for (uint32_t i = 0; i < mc__java_version_count; i++)
        if (!strcmp(mc__str(mc__java_versions[i].name), name))
            return mc_java_version_at(i, out);
    return false;
}

size_t mc_bedrock_version_count(void) { return mc__bedrock_version_count; }

bool mc_bedrock_version_at(size_t index, mc_version_info *out)
{
    if (index >= mc__bedrock_version_count || !out)
        return false;
    version_info(&mc__bedrock_versions[index], mc__bedrock_registries, out);
    return true;
}

const mc_registry *mc_registry_find(const char *version)
{
    mc_version_info info;
    if (mc_java_version_find(version, &info))
        return info.registry;
    return NULL;
}

const mc_registry *mc_registry_find_protocol(int32_t protocol)
{
    const mc_registry *found = NULL;
    for (uint32_t i = 0; i < mc__java_version_count; i++) {
        const mc__version *v = &mc__java_versions[i];
        if (v->protocol == protocol && v->registry >= 0)
            found = &mc__java_registries[v->registry]; /* keep the newest */
    }
    return found;
}

const mc_registry *mc_registry_find_data_version(int32_t data_version)
{
    /* the table is oldest first, and DataVersions grow with releases */
    for (uint32_t i = 0; i < mc__java_version_count; i++) {
        const mc__version *v = &mc__java_versions[i];
        if (v->data_version >= data_version)
            return v->registry >= 0 ? &mc__java_registries[v->registry] : NULL;
    }
    return NULL;
}

const mc_registry *mc_registry_find_bedrock(const char *version)
{
    if (!version)
        return NULL;
    for (uint32_t i = 0; i < mc__bedrock_version_count; i++)
        if (!strcmp(mc__str(mc__bedrock_versions[i].name), version))
            return mc__bedrock_versions[i].registry >= 0 ? &mc__bedrock_registries[mc__bedrock_versions[i].registry]
                                                         : NULL;
    return NULL;
}

const mc_registry *mc_registry_find_edition(mc_edition edition, const char *version)
{
    return edition == MC_EDITION_BEDROCK ? mc_registry_find_bedrock(version) : mc_registry_find(version);
}

/* --------------------------------------------------------- state access */

bool mc_registry_state_valid(const mc_registry *reg, uint32_t state)
{
    return (mc_registry_state_flags(reg, state) & MC_STATE_VALID) != 0;
}

static uint32_t state_flags_slow(const mc_registry *reg, uint32_t state);

/* One byte of flags per state, built on first use per registry and
 * published like the runtime tables: the codecs ask for the flags of every
 * palette entry they read, and the block search costs a dozen unpredictable
 * branches (a 1.21 registry: 27k states, 27 KiB). */
static _Atomic(uint8_t *) flag_tables[MC__MAX_REGISTRIES];

static uint32_t flat_class(const mc__tables *t, uint32_t b, uint32_t state);

/* The public flags of every state of a flattened registry, block by block
 * (each state's block is the last whose first state is at or below it, as
 * mc__block_of_state finds it: no search per state). */
static void flat_flags_fill(const mc_registry *reg, uint8_t *flags)
{
    const mc__tables *t = mc__tables_of(reg);
    if (!reg->block_count)
        memset(flags, 0, reg->state_count);
    for (uint32_t b = 0; b < reg->block_count; b++) {
        const uint32_t first = b ? t->block_min[b] : 0;
        const uint32_t end = b + 1 < reg->block_count ? t->block_min[b + 1] : reg->state_count;
        for (uint32_t s = first; s < end && s < reg->state_count; s++)
            flags[s] = (uint8_t)(flat_class(t, b, s) & MC__PUBLIC_FLAGS);
    }
}

static const uint8_t *flag_table(const mc_registry *reg)
{
    if (reg->index >= MC__MAX_REGISTRIES)
        return NULL;
    uint8_t *t = atomic_load_explicit(&flag_tables[reg->index], memory_order_acquire);
    if (t)
        return t;
    if (reg->kind == MC__KIND_FLAT && !mc__tables_of(reg))
        return NULL; /* the flags would all read 0 */
    uint8_t *fresh = malloc(reg->state_count ? reg->state_count : 1);
    if (!fresh)
        return NULL;
    if (reg->kind == MC__KIND_FLAT)
        flat_flags_fill(reg, fresh);
    else
        for (uint32_t s = 0; s < reg->state_count; s++)
            fresh[s] = (uint8_t)state_flags_slow(reg, s);
    uint8_t *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&flag_tables[reg->index], &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return fresh;
    free(fresh); /* another thread won */
    return expected;
}

const uint8_t *mc_registry_state_flag_table(const mc_registry *reg, size_t *count)
{
    const uint8_t *t = reg ? flag_table(reg) : NULL;
    if (count)
        *count = t ? reg->state_count : 0;
    return t;
}

uint32_t mc_registry_state_flags(const mc_registry *reg, uint32_t state)
{
    if (!reg || state >= reg->state_count)
        return 0;
    const uint8_t *t = flag_table(reg);
    if (t)
        return t[state];
    return state_flags_slow(reg, state);
}

static uint32_t state_flags_slow(const mc_registry *reg, uint32_t state)
{
    return mc__state_class(reg, state) & MC__PUBLIC_FLAGS;
}

/* The class of a flattened registry's state of block b (b found by
 * mc__block_of_state). */
static uint32_t flat_class(const mc__tables *t, uint32_t b, uint32_t state)
{
    const mc__kind *k = mc__kind_of(t, b);
    if (k->flag_seq == MC__NONE)
        return k->base_flags;
    return mc__reg_flag_bytes[k->flag_seq + (state - t->block_min[b])];
}

uint32_t mc__state_class(const mc_registry *reg, uint32_t state)
{
    if (state >= reg->state_count)
        return 0;
    if (reg->kind == MC__KIND_LEGACY) {
        uint32_t id = state >> 4, meta = state & 15;
        if (id >= reg->block_count)
            return 0;
        const mc__legacy_block *b = &reg->legacy[id];
        if (b->name == MC__NONE || !(b->valid & (1u << meta)))
            return 0;
        return mc__reg_flag_bytes[b->flag_seq + meta];
    }
    const mc__tables *t = mc__tables_of(reg);
    if (!t)
        return 0;
    return flat_class(t, mc__block_of_state(reg, t, state), state);
}

uint32_t mc_registry_next_state(const mc_registry *reg, uint32_t state)
{
    if (!reg)
        return MC_STATE_NONE;
    uint32_t s = state == MC_STATE_NONE ? 0 : state + 1;
    if (reg->kind == MC__KIND_FLAT)
        return s < reg->state_count ? s : MC_STATE_NONE;
    for (; s < reg->state_count; s++)
        if (mc_registry_state_valid(reg, s))
            return s;
    return MC_STATE_NONE;
}

const char *mc_registry_state_name(const mc_registry *reg, uint32_t state)
{
    if (!mc_registry_state_valid(reg, state))
        return NULL;
    if (reg->kind == MC__KIND_LEGACY)
        return mc__str(reg->legacy[state >> 4].name);
    const mc__tables *t = mc__tables_of(reg); /* there: the state is valid */
    return mc__str(mc__kind_of(t, mc__block_of_state(reg, t, state))->name);
}

/* The property schema of a legacy block (NULL: it has no properties). */
static const mc__legacy_schema *schema_of(const mc__legacy_block *b)
{
    return b->schema == MC__NONE ? NULL : &mc__reg_legacy_schemas[b->schema];
}

/* Value index of property i of legacy state (id<<4|meta) in schema s. */
static uint32_t legacy_digit(const mc__legacy_schema *s, uint32_t meta, unsigned i)
{
    return mc__reg_default_digits[s->digits + meta * s->nprops + i];
}

unsigned mc_registry_state_prop_count(const mc_registry *reg, uint32_t state)
{
    if (!mc_registry_state_valid(reg, state))
        return 0;
    if (reg->kind == MC__KIND_LEGACY) {
        const mc__legacy_schema *s = schema_of(&reg->legacy[state >> 4]);
        return s ? s->nprops : 0;
    }
    const mc__tables *t = mc__tables_of(reg); /* there: the state is valid */
    return mc__kind_of(t, mc__block_of_state(reg, t, state))->nprops;
}

bool mc_registry_state_prop(const mc_registry *reg, uint32_t state, unsigned index,
                            const char **key, const char **value)
{
    if (!mc_registry_state_valid(reg, state))
        return false;
    if (reg->kind == MC__KIND_LEGACY) {
        const mc__legacy_schema *s = schema_of(&reg->legacy[state >> 4]);
        if (!s || index >= s->nprops)
            return false;
        const mc__propdef *p = &mc__reg_propdefs[mc__reg_prop_lists[s->props + index]];
        if (key) *key = mc__str(p->name);
        if (value) *value = mc__str(mc__reg_value_refs[p->values + legacy_digit(s, state & 15, index)]);
        return true;
    }
    const mc__tables *t = mc__tables_of(reg); /* there: the state is valid */
    uint32_t b = mc__block_of_state(reg, t, state);
    const mc__kind *k = mc__kind_of(t, b);
    if (index >= k->nprops)
        return false;
    const mc__propdef *p = mc__propdef_of(k, index);
    if (key) *key = mc__str(p->name);
    if (value) *value = mc__str(mc__reg_value_refs[p->values + mc__prop_digit(k, state - t->block_min[b], index)]);
    return true;
}

unsigned mc_registry_state_props(const mc_registry *reg, uint32_t state, const char **keys,
                                 const char **values, unsigned max)
{
    if (!mc_registry_state_valid(reg, state))
        return 0;
    if (reg->kind == MC__KIND_LEGACY) {
        const mc__legacy_schema *s = schema_of(&reg->legacy[state >> 4]);
        const unsigned np = s ? s->nprops : 0;
        for (unsigned i = 0; i < np && i < max; i++) {
            const mc__propdef *p = &mc__reg_propdefs[mc__reg_prop_lists[s->props + i]];
            if (keys) keys[i] = mc__str(p->name);
            if (values) values[i] = mc__str(mc__reg_value_refs[p->values + legacy_digit(s, state & 15, i)]);
        }
        return np;
    }
    const mc__tables *t = mc__tables_of(reg); /* there: the state is valid */
    const uint32_t b = mc__block_of_state(reg, t, state);
    const mc__kind *k = mc__kind_of(t, b);
    /* the digits from the last property (fastest) back, as mc__prop_digit
     * gives each; an explicit digit list is read as it stands */
    uint32_t offset = state - t->block_min[b];
    for (unsigned i = k->nprops; i-- > 0;) {
        const mc__propdef *p = mc__propdef_of(k, i);
        uint32_t digit;
        if (k->explicit_digits != MC__NONE) {
            digit = mc__reg_default_digits[k->explicit_digits + offset * k->nprops + i];
        } else {
            digit = offset % p->count;
            offset /= p->count;
        }
        if (i >= max)
            continue;
        if (keys) keys[i] = mc__str(p->name);
        if (values) values[i] = mc__str(mc__reg_value_refs[p->values + digit]);
    }
    return k->nprops;
}

const char *mc_registry_state_prop_value(const mc_registry *reg, uint32_t state, const char *key)
{
    const char *k, *v;
    for (unsigned i = 0; mc_registry_state_prop(reg, state, i, &k, &v); i++)
        if (!strcmp(k, key))
            return v;
    return NULL;
}

/* --------------------------------------------------- lazy name index */

static inline uint32_t bare_hash(const char *name, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, name, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
        name += 8;
        len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, name, len);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t name_hash(const char *name, size_t len)
{
    mc__strip_namespace(&name, &len);
    return bare_hash(name, len);
}

/* pooled: a namespaced pool name; (name, len): already stripped */
static inline bool bare_equals(const char *pooled, const char *name, size_t len)
{
    pooled += NS_LEN;
    for (size_t i = 0; i < len; i++)
        if (pooled[i] == '\0' || pooled[i] != name[i]) /* input may hold NULs */
            return false;
    return pooled[len] == '\0';
}

static bool name_equals(const char *pooled, const char *name, size_t len)
{
    mc__strip_namespace(&name, &len);
    return !strncmp(pooled, ns, NS_LEN) && bare_equals(pooled, name, len);
}

static uint32_t block_name_offset(const mc_registry *reg, const mc__tables *t, uint32_t block)
{
    if (reg->kind == MC__KIND_LEGACY)
        return reg->legacy[block].name;
    return mc__kind_of(t, block)->name;
}

static void table_insert(uint32_t *slots, uint32_t mask, uint32_t hash, uint32_t value)
{
    uint32_t i = hash & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = value + 1;
}

static void runtime_free(mc__runtime *rt);

static inline bool bytes_equal(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

static mc__runtime *runtime_build(const mc_registry *reg)
{
    const mc__tables *t = mc__tables_of(reg);
    mc__runtime *rt = t ? calloc(1, sizeof *rt) : NULL;
    if (!rt)
        return NULL;
    rt->tables = t;
    uint32_t size = 16;
    while (size < reg->block_count * 2u)
        size <<= 1;
    rt->name_mask = size - 1;
    rt->name_slots = calloc(size, sizeof *rt->name_slots);
    bool hashed = reg->edition == MC_EDITION_BEDROCK;
    if (hashed) {
        rt->hashes = malloc((size_t)reg->state_count * sizeof *rt->hashes);
        uint32_t hsize = 16;
        while (hsize < reg->state_count * 2u)
            hsize <<= 1;
        rt->hash_mask = hsize - 1;
        rt->hash_slots = calloc(hsize, sizeof *rt->hash_slots);
    }
    if (!rt->name_slots || (hashed && (!rt->hash_slots || !rt->hashes)) ||
        (reg->kind == MC__KIND_FLAT && !mc__lk_build(reg, rt))) {
        runtime_free(rt);
        return NULL;
    }
    for (uint32_t b = 0; b < reg->block_count; b++) {
        uint32_t off = block_name_offset(reg, t, b);
        if (off == MC__NONE)
            continue;
        const char *name = mc__str(off);
        table_insert(rt->name_slots, rt->name_mask, name_hash(name, strlen(name)), b);
    }
    if (hashed)
        for (uint32_t s = 0; s < reg->state_count; s++) {
            rt->hashes[s] = mc__bedrock_hash(reg, s);
            table_insert(rt->hash_slots, rt->hash_mask, rt->hashes[s] * 2654435761u, s);
        }
    rt->air = 0;
    if (reg->edition == MC_EDITION_BEDROCK) {
        rt->air = MC__NONE;
        uint32_t i = name_hash("minecraft:air", 13) & rt->name_mask;
        for (; rt->name_slots[i]; i = (i + 1) & rt->name_mask) {
            uint32_t b = rt->name_slots[i] - 1;
            if (!strcmp(mc__str(block_name_offset(reg, t, b)), "minecraft:air")) {
                rt->air = t->block_min[b] + mc__kind_of(t, b)->default_off;
                break;
            }
        }
    }
    return rt;
}

static void runtime_free(mc__runtime *rt)
{
    mc__lk_free(rt);
    free(rt->hashes);
    free(rt->name_slots);
    free(rt->hash_slots);
    free(rt);
}

static _Atomic(mc__runtime *) runtimes[MC__MAX_REGISTRIES];

const mc__runtime *mc__runtime_of(const mc_registry *reg)
{
    if (reg->index >= MC__MAX_REGISTRIES)
        return NULL;
    mc__runtime *rt = atomic_load_explicit(&runtimes[reg->index], memory_order_acquire);
    if (rt)
        return rt;
    mc__runtime *fresh = runtime_build(reg);
    if (!fresh)
        return NULL;
    mc__runtime *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&runtimes[reg->index], &expected, fresh,
                                                memory_order_acq_rel, memory_order_acquire))
        return fresh;
    runtime_free(fresh); /* another thread won; use its table */
    return expected;
}

uint32_t mc__find_block(const mc_registry *reg, const char *name, size_t len)
{
    const mc__runtime *rt = mc__runtime_of(reg);
    if (!rt)
        return MC__NONE;
    mc__strip_namespace(&name, &len);
    uint32_t i = bare_hash(name, len) & rt->name_mask;
    for (; rt->name_slots[i]; i = (i + 1) & rt->name_mask) {
        uint32_t b = rt->name_slots[i] - 1;
        if (bare_equals(mc__str(block_name_offset(reg, rt->tables, b)), name, len))
            return b;
    }
    return MC__NONE;
}

uint32_t mc_registry_air(const mc_registry *reg)
{
    if (!reg)
        return 0;
    if (reg->edition == MC_EDITION_JAVA)
        return 0;
    const mc__runtime *rt = mc__runtime_of(reg);
    return rt ? rt->air : 0;
}

/* --------------------------------------------------------------- lookup */

/* Pool string == (s, len)? The first byte rejects almost every mismatch
 * without a call. */
static inline bool str_equals(const char *pooled, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (pooled[i] == '\0' || pooled[i] != s[i]) /* input may hold NULs */
            return false;
    return pooled[len] == '\0';
}

static uint32_t legacy_default(const mc__legacy_block *b)
{
    for (uint32_t m = 0; m < 16; m++)
        if (b->valid & (1u << m))
            return m;
    return 0;
}

/* The value index of (value, value_len) in propdef p, or p->count. */
static uint32_t value_index(const mc__propdef *p, const char *value, size_t value_len)
{
    uint32_t v = 0;
    while (v < p->count && !(mc__reg_value_lens[p->values + v] == value_len &&
                             bytes_equal(mc__str(mc__reg_value_refs[p->values + v]), value, value_len)))
        v++;
    return v;
}

/* A legacy (1.8-1.12) lookup: the properties as the game names them
 * (stone[variant=granite]) or the metadata itself (stone[meta=1]). The
 * state is the valid metadata that stores every given value; properties
 * the metadata does not store (a fence's connections) only need a valid
 * value. Among several, a metadata the game writes (one legacy.json maps)
 * before one it only reads (torch meta 0 reads as meta 5, facing=up), then
 * the one agreeing most with the block's default state (its lowest valid
 * metadata). */
static mc_status legacy_lookup(const mc_registry *reg, uint32_t b, const mc_state_prop *props, size_t prop_count,
                               uint32_t *state, mc_error *err)
{
    const mc__legacy_block *lb = &reg->legacy[b];
    const mc__legacy_schema *s = schema_of(lb);
    uint32_t dflt = legacy_default(lb), candidates = lb->valid;
    if (prop_count > MC__MAX_PARSE_PROPS)
        return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "registry: more than %d properties", MC__MAX_PARSE_PROPS);
    uint8_t want[MC__MAX_PARSE_PROPS];
    int index[MC__MAX_PARSE_PROPS];
    for (size_t i = 0; i < prop_count; i++) {
        const mc_state_prop *p = &props[i];
        index[i] = -1;
        if (p->key_len == 4 && !memcmp(p->key, "meta", 4)) {
            uint32_t m = 16;
            for (uint32_t v = 0; v < 16; v++)
                if (str_equals(meta_strings[v], p->value, p->value_len))
                    m = v;
            if (m == 16 || !(lb->valid & (1u << m)))
                return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no meta '%.*s'",
                                    mc_registry_name(reg), mc__str(lb->name), (int)(p->value_len > 100 ? 100 : p->value_len), p->value);
            candidates &= 1u << m;
            continue;
        }
        for (unsigned k = 0; s && k < s->nprops && index[i] < 0; k++) {
            const mc__propdef *d = &mc__reg_propdefs[mc__reg_prop_lists[s->props + k]];
            if (d->name_len == p->key_len && bytes_equal(mc__str(d->name), p->key, p->key_len))
                index[i] = (int)k;
        }
        if (index[i] < 0)
            return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no property '%.*s'",
                                mc_registry_name(reg), mc__str(lb->name), (int)(p->key_len > 100 ? 100 : p->key_len), p->key);
        const mc__propdef *d = &mc__reg_propdefs[mc__reg_prop_lists[s->props + (unsigned)index[i]]];
        uint32_t v = value_index(d, p->value, p->value_len);
        if (v == d->count)
            return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no value '%.*s' for '%s'",
                                mc_registry_name(reg), mc__str(lb->name), (int)(p->value_len > 100 ? 100 : p->value_len),
                                p->value, mc__str(d->name));
        want[i] = (uint8_t)v;
        for (uint32_t m = 0; m < 16; m++) /* metadata storing another value */
            if ((candidates & (1u << m)) && (mc__reg_legacy_stored[s->stored + m] >> index[i] & 1) &&
                legacy_digit(s, m, (unsigned)index[i]) != v)
                candidates &= ~(1u << m);
    }
    /* the metadata the game writes (legacy.json's) over the ones it only reads */
    const mc__tables *tp = mc__tables_of(&mc__java_registries[mc__java_pivot]);
    int best = -1, best_score = -1;
    for (uint32_t m = 0; m < 16; m++) {
        if (!(candidates & (1u << m)))
            continue;
        uint32_t id = (b << 4) | m;
        int score = tp && id < tp->l2p_count && tp->legacy_to_pivot[id] != 0xFFFF ? 64 : 0;
        for (unsigned k = 0; s && k < s->nprops; k++) {
            bool given = false;
            for (size_t i = 0; i < prop_count; i++)
                given |= index[i] == (int)k;
            if (!given)
                score += legacy_digit(s, m, k) == legacy_digit(s, dflt, k);
            else /* a given value this metadata shows although it does not store it */
                for (size_t i = 0; i < prop_count; i++)
                    score += index[i] == (int)k && legacy_digit(s, m, k) == want[i];
        }
        if (score > best_score) {
            best = (int)m;
            best_score = score;
        }
    }
    if (best < 0)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no state with these values",
                            mc_registry_name(reg), mc__str(lb->name));
    *state = (b << 4) | (uint32_t)best;
    return MC_OK;
}

/* "ID:META" or "NAME:META" (1.8-1.12 only): the state, or false. */
static bool legacy_id_meta(const mc_registry *reg, const char *text, size_t len, uint32_t *state)
{
    if (reg->kind != MC__KIND_LEGACY)
        return false;
    size_t colon = len;
    while (colon > 0 && text[colon - 1] != ':')
        colon--;
    if (colon < 2 || colon == len || len - colon > 2)
        return false;
    uint32_t meta = 0, id = 0;
    for (size_t i = colon; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        meta = meta * 10 + (uint32_t)(text[i] - '0');
    }
    size_t name_len = colon - 1, digits = 0;
    while (digits < name_len && text[digits] >= '0' && text[digits] <= '9')
        id = id * 10 + (uint32_t)(text[digits++] - '0');
    if (digits != name_len || digits > 3) { /* a name */
        id = mc__find_block(reg, text, name_len);
        if (id == MC__NONE)
            return false;
    }
    if (meta > 15 || id > 0xFFF || !mc_registry_state_valid(reg, (id << 4) | meta))
        return false;
    *state = (id << 4) | meta;
    return true;
}

mc_status mc_registry_lookup(const mc_registry *reg, const char *name, size_t name_len,
                             const mc_state_prop *props, size_t prop_count, uint32_t *state,
                             mc_error *err)
{
    if (!reg || !name || !state || (prop_count && !props))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "registry: lookup needs a registry, a name and a result");
    if (reg->kind == MC__KIND_FLAT) {
        const mc__runtime *rt = mc__runtime_of(reg);
        if (rt && mc__lk_lookup(reg, rt, name, name_len, props, prop_count, state))
            return MC_OK;
    }
    return mc__lookup_generic(reg, name, name_len, props, prop_count, state, err);
}

/* The lookup without the index of lookup_index.c: legacy registries, what
 * the index does not cover, and every error with its message. */
mc_status mc__lookup_generic(const mc_registry *reg, const char *name, size_t name_len,
                             const mc_state_prop *props, size_t prop_count, uint32_t *state,
                             mc_error *err)
{
    uint32_t b = mc__find_block(reg, name, name_len);
    if (b == MC__NONE) {
        if (!mc__runtime_of(reg))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "registry: out of memory");
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: unknown block '%.*s'",
                            mc_registry_name(reg), (int)(name_len > 200 ? 200 : name_len), name);
    }
    if (reg->kind == MC__KIND_LEGACY)
        return legacy_lookup(reg, b, props, prop_count, state, err);
    const mc__tables *t = mc__runtime_of(reg)->tables; /* there: b was found through it */
    const mc__kind *k = mc__kind_of(t, b);
    /* start from the default state's value indices; no divisions */
    uint8_t digits[MC__MAX_PROPS];
    memcpy(digits, mc__reg_default_digits + k->default_digits, k->nprops);
    for (size_t i = 0; i < prop_count; i++) {
        const mc_state_prop *p = &props[i];
        /* callers usually give properties in the game's order: start there */
        unsigned pi = k->nprops, start = (unsigned)(i % (k->nprops ? k->nprops : 1));
        const mc__propdef *def = NULL;
        for (unsigned n = 0; n < k->nprops; n++) {
            unsigned cand = start + n < k->nprops ? start + n : start + n - k->nprops;
            def = mc__propdef_of(k, cand);
            if (def->name_len == p->key_len && bytes_equal(mc__str(def->name), p->key, p->key_len)) {
                pi = cand;
                break;
            }
        }
        if (pi == k->nprops)
            return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no property '%.*s'",
                                mc_registry_name(reg), mc__str(k->name), (int)(p->key_len > 100 ? 100 : p->key_len), p->key);
        uint32_t vi = 0;
        if (def->int_first >= 0 && p->value_len >= 1 && p->value_len <= 3) {
            /* integer ranges (power, age, level...): read the number */
            uint32_t v = 0;
            for (size_t c = 0; c < p->value_len; c++)
                v = (unsigned char)(p->value[c] - '0') < 10 ? v * 10 + (uint32_t)(p->value[c] - '0') : 100000;
            bool canonical = p->value_len == 1 || p->value[0] != '0';
            vi = (canonical && v >= (uint32_t)def->int_first) ? v - (uint32_t)def->int_first : def->count;
            if (vi > def->count)
                vi = def->count;
        } else
        for (; vi < def->count; vi++)
            if (mc__reg_value_lens[def->values + vi] == p->value_len &&
                bytes_equal(mc__str(mc__reg_value_refs[def->values + vi]), p->value, p->value_len))
                break;
        if (vi == def->count)
            return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no value '%.*s' for '%s'",
                                mc_registry_name(reg), mc__str(k->name), (int)(p->value_len > 100 ? 100 : p->value_len),
                                p->value, mc__str(def->name));
        digits[pi] = (uint8_t)vi;
    }
    uint32_t off = mc__kind_offset(k, digits);
    if (off == MC__NONE)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "registry %s: %s has no state with these values",
                            mc_registry_name(reg), mc__str(k->name));
    *state = t->block_min[b] + off;
    return MC_OK;
}

uint32_t mc_registry_default_state(const mc_registry *reg, const char *name)
{
    uint32_t s;
    if (!name || mc_registry_lookup(reg, name, strlen(name), NULL, 0, &s, NULL) != MC_OK)
        return MC_STATE_NONE;
    return s;
}

/* The characters that end a name, key or value in the state text (besides
 * the end of the text; control characters and spaces are also bad in a
 * name). A table, so the scans test one byte per character. */
static const uint8_t token_end[256] = {['['] = 1, [']'] = 1, [','] = 1, ['='] = 1};

static size_t scan_token(const char *text, size_t pos, size_t end)
{
    while (pos < end && !token_end[(unsigned char)text[pos]])
        pos++;
    return pos;
}

mc_status mc_registry_parse_state(const mc_registry *reg, const char *text, size_t len,
                                  uint32_t *state, mc_error *err)
{
    if (!reg || (!text && len) || !state)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "registry: parse needs a registry, text and a result");
    if (legacy_id_meta(reg, text, len, state))
        return MC_OK;
    size_t name_len = 0;
    while (name_len < len && (unsigned char)text[name_len] > ' ' && !token_end[(unsigned char)text[name_len]])
        name_len++;
    if (name_len < len && text[name_len] != '[')
        return mc_error_set(err, MC_ERR_MALFORMED, name_len, "registry: bad character in block name");
    if (name_len == 0)
        return mc_error_set(err, MC_ERR_MALFORMED, 0, "registry: empty block name");
    mc_state_prop props[MC__MAX_PARSE_PROPS];
    size_t count = 0;
    if (name_len < len) {
        if (text[len - 1] != ']')
            return mc_error_set(err, MC_ERR_MALFORMED, len - 1, "registry: properties must end with ']'");
        size_t pos = name_len + 1, end = len - 1;
        while (pos < end) {
            if (count == MC__MAX_PARSE_PROPS)
                return mc_error_set(err, MC_ERR_LIMIT, pos, "registry: more than %d properties", MC__MAX_PARSE_PROPS);
            size_t k0 = pos;
            pos = scan_token(text, pos, end);
            if (pos == end || text[pos] != '=' || pos == k0)
                return mc_error_set(err, MC_ERR_MALFORMED, pos, "registry: expected key=value");
            size_t v0 = ++pos;
            pos = scan_token(text, pos, end);
            if (pos == v0 || (pos < end && text[pos] != ','))
                return mc_error_set(err, MC_ERR_MALFORMED, pos, "registry: expected a value");
            props[count].key = text + k0;
            props[count].key_len = v0 - 1 - k0;
            props[count].value = text + v0;
            props[count].value_len = pos - v0;
            count++;
            if (pos < end) {
                pos++; /* the comma */
                if (pos == end)
                    return mc_error_set(err, MC_ERR_MALFORMED, pos, "registry: trailing ','");
            }
        }
    }
    return mc_registry_lookup(reg, text, name_len, props, count, state, err);
}

/* --------------------------------------------------------------- format */

/* The state's text as it is being written: what fits in buf (cap - 1
 * characters, then a NUL), len counting every character. */
typedef struct {
    char *buf;
    size_t cap, len;
} text_out;

static inline void out_bytes(text_out *o, const char *s, size_t n)
{
    if (o->len + n < o->cap) {
        memcpy(o->buf + o->len, s, n); /* (the common case: it all fits) */
    } else if (o->len + 1 < o->cap) {
        memcpy(o->buf + o->len, s, o->cap - 1 - o->len);
    }
    o->len += n;
}

/* One character (no memcpy call for the brackets, commas and '='). */
static inline void out_char(text_out *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

/* A piece of a state's text: pooled bytes and their length (the pool's
 * length tables: no strlen). */
typedef struct {
    const char *s;
    size_t n;
} text_part;

static text_part value_part(const mc__propdef *p, uint32_t digit)
{
    return (text_part){mc__str(mc__reg_value_refs[p->values + digit]), mc__reg_value_lens[p->values + digit]};
}

/* The name and properties (key, value, in the registry's order) of a
 * state, the block found once (one search for both its validity and its
 * parts); -1 for an invalid state. */
static int state_parts(const mc_registry *reg, uint32_t state, text_part *name, text_part *keys, text_part *values)
{
    unsigned n;
    if (reg->kind == MC__KIND_LEGACY) {
        if (!(mc__state_class(reg, state) & MC_STATE_VALID))
            return -1;
        const mc__legacy_block *lb = &reg->legacy[state >> 4];
        const mc__legacy_schema *s = schema_of(lb);
        name->s = mc__str(lb->name);
        name->n = strlen(name->s);
        n = s ? s->nprops : 0;
        for (unsigned i = 0; i < n && i < MC__MAX_PROPS; i++) {
            const mc__propdef *p = &mc__reg_propdefs[mc__reg_prop_lists[s->props + i]];
            keys[i] = (text_part){mc__str(p->name), p->name_len};
            values[i] = value_part(p, legacy_digit(s, state & 15, i));
        }
        return n < MC__MAX_PROPS ? (int)n : MC__MAX_PROPS;
    }
    const mc__tables *t = state < reg->state_count ? mc__tables_of(reg) : NULL;
    if (!t)
        return -1;
    const uint32_t b = mc__block_of_state(reg, t, state);
    if (b == MC__NONE || !(flat_class(t, b, state) & MC_STATE_VALID))
        return -1;
    const mc__kind *k = mc__kind_of(t, b);
    name->s = mc__str(k->name);
    name->n = strlen(name->s);
    n = k->nprops < MC__MAX_PROPS ? k->nprops : MC__MAX_PROPS;
    uint32_t offset = state - t->block_min[b];
    if (k->explicit_digits != MC__NONE) {
        for (unsigned i = 0; i < n; i++) {
            const mc__propdef *p = mc__propdef_of(k, i);
            keys[i] = (text_part){mc__str(p->name), p->name_len};
            values[i] = value_part(p, mc__prop_digit(k, offset, i));
        }
        return (int)n;
    }
    /* mixed radix, the last property least significant (mc__prop_digit) */
    for (unsigned i = k->nprops; i-- > 0;) {
        const mc__propdef *p = mc__propdef_of(k, i);
        const uint32_t digit = offset % p->count;
        offset /= p->count;
        if (i < n) {
            keys[i] = (text_part){mc__str(p->name), p->name_len};
            values[i] = value_part(p, digit);
        }
    }
    return (int)n;
}

/* strcmp's order of two keys (no NUL inside), the first bytes compared
 * inline: keys mostly differ there. */
static int key_order(const text_part *a, const text_part *b)
{
    if (a->n && b->n && a->s[0] != b->s[0])
        return (unsigned char)a->s[0] - (unsigned char)b->s[0];
    const int c = memcmp(a->s, b->s, a->n < b->n ? a->n : b->n);
    return c ? c : (a->n > b->n) - (a->n < b->n);
}

size_t mc_registry_format_state(const mc_registry *reg, uint32_t state, char *buf, size_t cap,
                                unsigned options)
{
    if (cap && buf)
        buf[0] = '\0';
    /* (the state's class, not the flag table: naming a few states of a
     * registry need not build its table of every state) */
    text_part name, keys[MC__MAX_PROPS], values[MC__MAX_PROPS];
    const int n = reg ? state_parts(reg, state, &name, keys, values) : -1;
    if (n < 0)
        return 0;
    text_out o = {buf, buf ? cap : 0, 0};
    if ((options & MC_FORMAT_NO_NAMESPACE) && name.n >= NS_LEN && !memcmp(name.s, ns, NS_LEN)) {
        name.s += NS_LEN;
        name.n -= NS_LEN;
    }
    out_bytes(&o, name.s, name.n);
    if (options & MC_FORMAT_SORTED) {
        for (int i = 1; i < n; i++) { /* insertion sort: a handful of keys */
            const text_part k = keys[i], v = values[i];
            int j = i;
            for (; j > 0 && key_order(&keys[j - 1], &k) > 0; j--) {
                keys[j] = keys[j - 1];
                values[j] = values[j - 1];
            }
            keys[j] = k;
            values[j] = v;
        }
    }
    for (int i = 0; i < n; i++) {
        out_char(&o, i ? ',' : '[');
        out_bytes(&o, keys[i].s, keys[i].n);
        out_char(&o, '=');
        out_bytes(&o, values[i].s, values[i].n);
    }
    if (n)
        out_char(&o, ']');
    if (o.cap)
        o.buf[o.len < o.cap ? o.len : o.cap - 1] = '\0';
    return o.len;
}

/* (flattened registries share their block kinds: a kind and the state's
 * offset in its block are all state_parts reads, so they name the text) */
uint64_t mc_registry_state_text_id(const mc_registry *reg, uint32_t state)
{
    const mc__tables *t = reg && reg->kind == MC__KIND_FLAT && state < reg->state_count ? mc__tables_of(reg) : NULL;
    if (!t)
        return 0;
    const uint32_t b = mc__block_of_state(reg, t, state);
    if (b == MC__NONE || !(flat_class(t, b, state) & MC_STATE_VALID))
        return 0;
    return ((uint64_t)t->block_kinds[b] + 1) << 32 | (state - t->block_min[b]);
}

/* --------------------------------------------------------------- biomes */

const char *mc_registry_biome_name(const mc_registry *reg, uint32_t id)
{
    const mc__tables *t = reg && id < reg->biome_count ? mc__tables_of(reg) : NULL;
    if (!t || t->biomes[id] == MC__NONE)
        return NULL;
    return mc__str(t->biomes[id]);
}

uint32_t mc_registry_biome_id(const mc_registry *reg, const char *name)
{
    const mc__tables *t = reg && name ? mc__tables_of(reg) : NULL;
    if (!t)
        return MC_STATE_NONE;
    size_t len = strlen(name);
    for (uint32_t i = 0; i < reg->biome_count; i++)
        if (t->biomes[i] != MC__NONE && name_equals(mc__str(t->biomes[i]), name, len))
            return i;
    return MC_STATE_NONE;
}

/* ------------------------------------------------------- Bedrock hashes */

uint32_t mc_registry_state_hash(const mc_registry *reg, uint32_t state)
{
    if (!reg || reg->edition != MC_EDITION_BEDROCK || state >= reg->state_count)
        return MC_STATE_NONE;
    const mc__runtime *rt = mc__runtime_of(reg);
    return rt ? rt->hashes[state] : mc__bedrock_hash(reg, state);
}

uint32_t mc_registry_state_from_hash(const mc_registry *reg, uint32_t hash)
{
    if (!reg || reg->edition != MC_EDITION_BEDROCK)
        return MC_STATE_NONE;
    const mc__runtime *rt = mc__runtime_of(reg);
    if (!rt)
        return MC_STATE_NONE;
    for (uint32_t i = (hash * 2654435761u) & rt->hash_mask; rt->hash_slots[i]; i = (i + 1) & rt->hash_mask)
        if (rt->hashes[rt->hash_slots[i] - 1] == hash)
            return rt->hash_slots[i] - 1;
    return MC_STATE_NONE;
}
