/*
 * fuzz_nbt_roundtrip.c: parse -> write -> parse across encodings. The first
 * byte picks the encoding the rest is parsed in, the second the encoding it
 * is rewritten in; the rewritten bytes must parse to an equal tree (and, in
 * the same encoding, be identical to the input).
 */
#include "fuzz_nbt_common.h"

static const mc_nbt_format formats[5] = {MC_NBT_JAVA, MC_NBT_JAVA_NETWORK, MC_NBT_BEDROCK,
                                         MC_NBT_BEDROCK_LEVEL_DAT, MC_NBT_BEDROCK_NETWORK};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    mc_nbt_format in = formats[data[0] % 5], out = formats[data[1] % 5];
    data += 2;
    size -= 2;
    mc_nbt_limits limits = {0, (size_t)16 << 20};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *back = mc_nbt_doc_new(NULL);
    mc_error err;
    if (mc_nbt_parse(doc, data, size, in, &limits, &err) == MC_OK) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        mc_status s = mc_nbt_write(doc, out, &b, &err);
        if (s == MC_OK) {
            FUZZ_CHECK(mc_nbt_parse(back, b.data, b.len, out, NULL, &err) == MC_OK);
            FUZZ_CHECK(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(back)));
            if (in == out)
                FUZZ_CHECK(b.len == size && memcmp(b.data, data, size) == 0);
        } else {
            /* Java strings grow in modified UTF-8 and may pass 65535
             * bytes; Bedrock strings need not be UTF-8 at all */
            FUZZ_CHECK(s == MC_ERR_RANGE || s == MC_ERR_MALFORMED);
        }
        mc_buf_free(&b);
    }
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(back);
    return 0;
}
