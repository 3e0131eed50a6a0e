/* snbt.c: placeholder until the SNBT/JSON printer and parser land. */
#include "nbt/nbt_internal.h"

mc_status mc_nbt_to_snbt(const mc_nbt_tag *tag, unsigned flags, mc_buf *out) { return MC_ERR_UNSUPPORTED; }
mc_status mc_nbt_to_json(const mc_nbt_tag *tag, unsigned flags, mc_buf *out) { return MC_ERR_UNSUPPORTED; }
mc_status mc_snbt_parse(mc_nbt_doc *doc, const char *text, size_t len, const mc_nbt_limits *limits,
                        mc_error *err)
{
    return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "snbt: not implemented yet");
}
