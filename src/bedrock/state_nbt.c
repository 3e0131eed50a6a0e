/*
 * state_nbt.c: a Bedrock block state tag ({name, states, version}, as the
 * game writes it in palettes on disk and in the network form) looked up in
 * a Bedrock registry (mc_bedrock_state_from_nbt, bedrock.h). Byte-valued
 * states the registry spells as numbers are retried that way. Used by the
 * subchunk readers (convert.c) and by the block entity translation
 * (blockentity_java.c: a pot's PlantBlock), so it stands apart from both.
 * And the other way: a registry state as such a tag (mc__bedrock_state_fill
 * into a compound of a document being built, as a pot's PlantBlock;
 * mc_bedrock_state_to_nbt as bytes, as a palette entry).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"

mc_status mc_bedrock_state_from_nbt(const mc_registry *reg, const uint8_t *nbt, size_t len, bool network,
                                    uint32_t *state, mc_error *err)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    mc_status st = mc_nbt_parse(doc, nbt, len, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, NULL, err);
    if (st != MC_OK) {
        mc_nbt_doc_free(doc);
        return st;
    }
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    const char *name;
    size_t nl;
    if (mc_nbt_get_string(mc_nbt_get(root, "name"), &name, &nl) != MC_OK) {
        mc_nbt_doc_free(doc);
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: state tag without a name");
    }
    mc_state_prop props[64];
    char values[64][24];
    size_t n = 0;
    mc_nbt_tag *bytes[64];
    for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(root, "states")); t && n < 64; t = mc_nbt_next(t)) {
        props[n].key = mc_nbt_tag_key(t, &props[n].key_len);
        bytes[n] = NULL;
        int64_t iv;
        if (mc_nbt_get_string(t, &props[n].value, &props[n].value_len) == MC_OK) {
            n++;
            continue;
        }
        if (mc_nbt_get_integer(t, &iv) != MC_OK) {
            const char *type = mc_nbt_type_name(mc_nbt_tag_type(t)); /* a static string */
            mc_nbt_doc_free(doc);
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "bedrock: state value of type %s", type);
        }
        if (mc_nbt_tag_type(t) == MC_NBT_BYTE && (iv == 0 || iv == 1)) {
            bytes[n] = t;
            snprintf(values[n], sizeof values[n], "%s", iv ? "true" : "false");
        } else {
            snprintf(values[n], sizeof values[n], "%lld", (long long)iv);
        }
        props[n].value = values[n];
        props[n].value_len = strlen(values[n]);
        n++;
    }
    st = mc_registry_lookup(reg, name, nl, props, n, state, NULL);
    if (st == MC_ERR_NOT_FOUND) {
        /* byte states the registry spells as numbers */
        bool any = false;
        for (size_t i = 0; i < n; i++)
            if (bytes[i]) {
                snprintf(values[i], sizeof values[i], "%c", values[i][0] == 't' ? '1' : '0');
                props[i].value_len = 1;
                any = true;
            }
        if (any)
            st = mc_registry_lookup(reg, name, nl, props, n, state, NULL);
    }
    if (st != MC_OK)
        mc_error_set(err, st, SIZE_MAX, "bedrock: the registry has no state %.*s", (int)nl, name);
    mc_nbt_doc_free(doc);
    return st;
}

/* The block-state version Bedrock 1.21 writes (1.21.60: 18168865). */
#define BEDROCK_STATE_VERSION 18168865

mc_status mc__bedrock_state_fill(mc_nbt_doc *doc, mc_nbt_tag *c, const mc_registry *reg, uint32_t state)
{
    const char *name = mc_registry_state_name(reg, state);
    if (!name)
        return MC_ERR_NOT_FOUND;
    mc_nbt_tag *states = mc_nbt_put_compound(doc, c, "states");
    if (!states || mc_nbt_put_string(doc, c, "name", name, strlen(name)) != MC_OK)
        return MC_ERR_NOMEM;
    unsigned n = mc_registry_state_prop_count(reg, state);
    mc_status st = MC_OK;
    for (unsigned i = 0; i < n && st == MC_OK; i++) {
        const char *k, *v;
        if (!mc_registry_state_prop(reg, state, i, &k, &v))
            continue;
        char *end;
        long iv = strtol(v, &end, 10);
        if (!strcmp(v, "true") || !strcmp(v, "false"))
            st = mc_nbt_put_byte(doc, states, k, v[0] == 't');
        else if (*v && !*end)
            st = mc_nbt_put_int(doc, states, k, (int32_t)iv);
        else
            st = mc_nbt_put_string(doc, states, k, v, strlen(v));
    }
    return st == MC_OK ? mc_nbt_put_int(doc, c, "version", BEDROCK_STATE_VERSION) : st;
}

mc_status mc_bedrock_state_to_nbt(const mc_registry *reg, uint32_t state, bool network, mc_buf *out,
                                  mc_error *err)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = doc ? mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND) : NULL;
    mc_status st = root ? mc__bedrock_state_fill(doc, root, reg, state) : MC_ERR_NOMEM;
    if (st == MC_OK)
        st = mc_nbt_write(doc, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, out, err);
    else if (st == MC_ERR_NOT_FOUND)
        mc_error_set(err, st, SIZE_MAX, "bedrock: the registry has no state %u", state);
    else
        mc_error_set(err, st, SIZE_MAX, "bedrock: out of memory");
    mc_nbt_doc_free(doc);
    return st;
}
