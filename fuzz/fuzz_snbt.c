/*
 * fuzz_snbt.c: the SNBT parser. Whatever it accepts must print, and the
 * printed text (compact and pretty) must parse back and print the same way:
 * printing is a fixpoint after one round. The tree must also survive a
 * binary round trip through the Java encoding when it fits that encoding.
 */
#include "fuzz_nbt_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mc_nbt_limits limits = {0, (size_t)16 << 20};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *back = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_status s = mc_snbt_parse(doc, (const char *)data, size, &limits, &err);
    if (s == MC_OK) {
        for (unsigned flags = 0; flags <= MC_NBT_PRINT_PRETTY; flags++) {
            mc_buf t1, t2;
            mc_buf_init(&t1, NULL);
            mc_buf_init(&t2, NULL);
            FUZZ_CHECK(mc_nbt_to_snbt(mc_nbt_doc_root(doc), flags, &t1) == MC_OK);
            FUZZ_CHECK(mc_snbt_parse(back, (const char *)t1.data, t1.len, NULL, &err) == MC_OK);
            FUZZ_CHECK(mc_nbt_to_snbt(mc_nbt_doc_root(back), flags, &t2) == MC_OK);
            FUZZ_CHECK(t1.len == t2.len && memcmp(t1.data, t2.data, t1.len) == 0);
            mc_buf_free(&t1);
            mc_buf_free(&t2);
        }
        mc_buf bin;
        mc_buf_init(&bin, NULL);
        if (mc_nbt_write(doc, MC_NBT_JAVA, &bin, &err) == MC_OK) {
            FUZZ_CHECK(mc_nbt_parse(back, bin.data, bin.len, MC_NBT_JAVA, NULL, &err) == MC_OK);
            FUZZ_CHECK(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(back)));
        } else {
            /* only over-long or non-UTF-8 strings may refuse */
            FUZZ_CHECK(err.status == MC_ERR_RANGE || err.status == MC_ERR_MALFORMED);
        }
        mc_buf_free(&bin);
    } else {
        FUZZ_CHECK(err.status == s && mc_nbt_doc_root(doc) == NULL);
    }
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(back);
    return 0;
}
