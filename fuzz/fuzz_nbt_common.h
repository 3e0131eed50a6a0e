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

/* The filter of the filtered-parse check: declines keys whose first byte
 * is odd at depth 1 and keys starting with 'x' at depth 2. */
static inline bool fuzz_nbt_keep(void *user, unsigned depth, const char *parent, size_t plen,
                                 const char *key, size_t klen)
{
    (void)user;
    (void)parent;
    (void)plen;
    if (depth == 1)
        return !(klen && ((unsigned char)key[0] & 1));
    return !(klen && key[0] == 'x');
}

/* mc_nbt_parse_filtered on the same input: it accepts whatever the full
 * parse accepted and refuses what the full parse refused for structure (it
 * may accept more: declined strings are not decoded, declined values take
 * no arena memory),
 * and the root's kept keys are the full tree's kept keys, in order, with
 * equal values where no filtering happened below them. */
static inline void fuzz_nbt_filtered(const uint8_t *data, size_t size, mc_nbt_format format,
                                     const mc_nbt_limits *limits, const mc_nbt_doc *full,
                                     const mc_error *full_err)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    /* every other input also checks text in declined values (check_text):
     * then a modified UTF-8 error of the full parse is one here too */
    const bool text = size & 1;
    mc_nbt_filter f = {2, fuzz_nbt_keep, NULL, NULL, text};
    mc_error err;
    mc_status s = mc_nbt_parse_filtered(doc, data, size, format, 0, &f, limits, NULL, &err);
    if (format == MC_NBT_BEDROCK_NETWORK) {
        FUZZ_CHECK(s == MC_ERR_UNSUPPORTED);
    } else if (!full && full_err->status != MC_ERR_LIMIT &&
               (text || !strstr(full_err->message, "UTF-8"))) {
        /* a structure error: declined values are checked for structure too */
        FUZZ_CHECK(s != MC_OK);
    }
    if (format == MC_NBT_BEDROCK_NETWORK) {
    } else if (s != MC_OK) {
        FUZZ_CHECK(!full);
        FUZZ_CHECK(err.status == s && err.offset <= size);
        FUZZ_CHECK(mc_nbt_doc_root(doc) == NULL);
    } else if (full) {
        const mc_nbt_tag *a = mc_nbt_doc_root(full), *b = mc_nbt_doc_root(doc);
        FUZZ_CHECK(mc_nbt_tag_type(a) == mc_nbt_tag_type(b));
        if (mc_nbt_tag_type(a) == MC_NBT_LIST) {
            /* compounds in a root list are filtered at depth 2 */
            FUZZ_CHECK(mc_nbt_count(a) == mc_nbt_count(b));
        } else if (mc_nbt_tag_type(a) != MC_NBT_COMPOUND) {
            FUZZ_CHECK(mc_nbt_equal(a, b));
        } else {
            const mc_nbt_tag *y = mc_nbt_first(b);
            for (const mc_nbt_tag *x = mc_nbt_first(a); x; x = mc_nbt_next(x)) {
                size_t kl, yl;
                const char *k = mc_nbt_tag_key(x, &kl);
                if (!fuzz_nbt_keep(NULL, 1, "", 0, k, kl))
                    continue;
                FUZZ_CHECK(y != NULL);
                const char *yk = mc_nbt_tag_key(y, &yl);
                FUZZ_CHECK(kl == yl && memcmp(k, yk, kl) == 0);
                if (mc_nbt_tag_type(x) != MC_NBT_COMPOUND)
                    FUZZ_CHECK(mc_nbt_equal(x, y));
                else
                    FUZZ_CHECK(mc_nbt_count(y) <= mc_nbt_count(x));
                y = mc_nbt_next(y);
            }
            FUZZ_CHECK(y == NULL);
        }
    }
    mc_nbt_doc_free(doc);
}

static inline void fuzz_nbt_one(const uint8_t *data, size_t size, mc_nbt_format format)
{
    mc_nbt_limits limits = {0, (size_t)16 << 20};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_status s = mc_nbt_parse(doc, data, size, format, &limits, &err);
    fuzz_nbt_filtered(data, size, format, &limits, s == MC_OK ? doc : NULL, &err);
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
