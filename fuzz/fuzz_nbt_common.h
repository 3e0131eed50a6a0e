/*
 * fuzz_nbt_common.h: the checks shared by the NBT fuzz targets. For one
 * encoding: parse the input under a small budget; when it is accepted, it
 * must write back to the very same bytes, the written bytes must parse to an
 * equal tree, and the SNBT and JSON printers and a deep copy must cope with
 * whatever tree came out. Any violation aborts, which libFuzzer reports.
 */
#ifndef FUZZ_NBT_COMMON_H
#define FUZZ_NBT_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/nbt.h"

#define FUZZ_CHECK(cond)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                            \
        }                                                                       \
    } while (0)

static inline void fuzz_nbt_one(const uint8_t *data, size_t size, mc_nbt_format format)
{
    mc_nbt_limits limits = {0, (size_t)16 << 20};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_status s = mc_nbt_parse(doc, data, size, format, &limits, &err);
    if (s != MC_OK) {
        FUZZ_CHECK(err.status == s);
        FUZZ_CHECK(err.offset <= size);
        FUZZ_CHECK(mc_nbt_doc_root(doc) == NULL);
        mc_nbt_doc_free(doc);
        return;
    }
    mc_buf out;
    mc_buf_init(&out, NULL);
    FUZZ_CHECK(mc_nbt_write(doc, format, &out, &err) == MC_OK);
    FUZZ_CHECK(out.len == size && memcmp(out.data, data, size) == 0);

    mc_nbt_doc *again = mc_nbt_doc_new(NULL);
    FUZZ_CHECK(mc_nbt_parse(again, out.data, out.len, format, &limits, &err) == MC_OK);
    FUZZ_CHECK(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(again)));

    mc_nbt_doc *copy = mc_nbt_doc_clone(doc, NULL);
    FUZZ_CHECK(copy && mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(copy)));

    mc_buf text;
    mc_buf_init(&text, NULL);
    FUZZ_CHECK(mc_nbt_to_snbt(mc_nbt_doc_root(doc), MC_NBT_PRINT_PRETTY, &text) == MC_OK);
    text.len = 0;
    FUZZ_CHECK(mc_nbt_to_json(mc_nbt_doc_root(doc), 0, &text) == MC_OK);

    mc_buf_free(&text);
    mc_nbt_doc_free(copy);
    mc_nbt_doc_free(again);
    mc_buf_free(&out);
    mc_nbt_doc_free(doc);
}

#endif
