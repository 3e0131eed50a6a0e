/*
 * bedrock_hash.c: Bedrock's hashed block network ids.
 *
 * When StartGame's block_network_ids_are_hashes is set (1.19.80+), a block
 * state travels as the FNV-1a 32-bit hash of its little-endian NBT form
 * instead of its index in the sorted state list: a nameless root compound
 * holding the string "name" ("minecraft:stone") and the compound "states"
 * with the state's properties sorted by key, each with its own NBT type
 * (byte, int or string), then the two end tags. The hash is computed here
 * from the registry tables, byte by byte, without building the NBT.
 */
#include "registry/reg_private.h"

#include <stdlib.h>

typedef struct {
    uint32_t h;
} fnv;

static void feed(fnv *f, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        f->h = (f->h ^ p[i]) * 16777619u;
}

static void feed_u8(fnv *f, uint8_t v) { feed(f, &v, 1); }

static void feed_str(fnv *f, const char *s)
{
    size_t n = strlen(s);
    uint8_t len[2] = {(uint8_t)n, (uint8_t)(n >> 8)};
    feed(f, len, 2);
    feed(f, s, n);
}

uint32_t mc__bedrock_hash(const mc_registry *reg, uint32_t state)
{
    const mc__tables *t = mc__tables_of(reg);
    uint32_t b = t ? mc__block_of_state(reg, t, state) : MC__NONE;
    if (b == MC__NONE)
        return MC__NONE;
    const mc__kind *k = mc__kind_of(t, b);
    uint32_t off = state - t->block_min[b];
    unsigned order[MC__MAX_PROPS];
    unsigned n = k->nprops < MC__MAX_PROPS ? k->nprops : MC__MAX_PROPS;
    for (unsigned i = 0; i < n; i++) { /* insertion sort of the keys */
        unsigned j = i;
        const char *key = mc__str(mc__propdef_of(k, i)->name);
        for (; j > 0 && strcmp(mc__str(mc__propdef_of(k, order[j - 1])->name), key) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    fnv f = {2166136261u};
    feed_u8(&f, 10); /* compound, empty name */
    feed_str(&f, "");
    feed_u8(&f, 8);
    feed_str(&f, "name");
    feed_str(&f, mc__str(k->name));
    feed_u8(&f, 10);
    feed_str(&f, "states");
    for (unsigned i = 0; i < n; i++) {
        const mc__propdef *d = mc__propdef_of(k, order[i]);
        const char *value = mc__str(mc__reg_value_refs[d->values + mc__prop_digit(k, off, order[i])]);
        if (d->type == MC__PT_BYTE) {
            feed_u8(&f, 1);
            feed_str(&f, mc__str(d->name));
            feed_u8(&f, strcmp(value, "true") ? 0 : 1);
        } else if (d->type == MC__PT_INT) {
            int32_t v = (int32_t)strtol(value, NULL, 10);
            uint32_t u = (uint32_t)v;
            uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
            feed_u8(&f, 3);
            feed_str(&f, mc__str(d->name));
            feed(&f, le, 4);
        } else {
            feed_u8(&f, 8);
            feed_str(&f, mc__str(d->name));
            feed_str(&f, value);
        }
    }
    feed_u8(&f, 0); /* end of states */
    feed_u8(&f, 0); /* end of root */
    return f.h;
}
