/*
 * state_nbt.c: a Bedrock block state tag ({name, states, version}, as the
 * game writes it in palettes on disk and in the network form) looked up in
 * a Bedrock registry (mc_bedrock_state_from_nbt, bedrock.h). Byte-valued
 * states the registry spells as numbers are retried that way. Used by the
 * subchunk readers (convert.c) and by the block entity translation
 * (blockentity_java.c: a pot's PlantBlock), so it stands apart from both.
 */
#include <stdio.h>
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
