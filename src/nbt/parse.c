/*
 * parse.c: reading binary NBT in every encoding (the parser body is in
 * parse_tmpl.h, instantiated here per byte order), format detection.
 *
 * The parser walks the input with a plain (pointer, end) pair rather than an
 * mc_reader: it is the hottest loop of the library and every field is
 * already bounds-checked against `end` before it is read. Failures go through
 * fail(), which records the first error with its byte offset in the input,
 * like an mc_reader would.
 */
#include <stdio.h>

#include "nbt/nbt_internal.h"

typedef struct parser {
    mc_nbt_doc *doc;
    const uint8_t *start; /* offsets in messages are relative to this... */
    size_t base;          /* ...plus this (the level.dat header) */
    const uint8_t *p, *end;
    unsigned max_depth;
    mc_error *err;
    mc_status status;
} parser;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5), cold, noinline))
#endif
static bool fail(parser *ps, const uint8_t *at, mc_status status, const char *fmt, ...)
{
    if (ps->status != MC_OK)
        return false;
    ps->status = status;
    if (ps->err) {
        char msg[MC_ERROR_MESSAGE_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        mc_error_set(ps->err, status, ps->base + (size_t)(at - ps->start), "nbt: %s", msg);
    }
    return false;
}

/* Arena memory for the parse (copying `src` when given); records the budget
 * or out-of-memory failure. */
static inline void *arena(parser *ps, size_t n, const void *src)
{
    void *p = mc__arena_alloc(ps->doc, n ? n : 1);
    if (!p) {
        if (ps->doc->budget_hit)
            fail(ps, ps->p, MC_ERR_LIMIT, "byte budget exceeded (%zu more bytes wanted)", n);
        else
            fail(ps, ps->p, MC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (src && n)
        memcpy(p, src, n);
    return p;
}

/* LEB128 of at most max_bytes bytes holding at most `bits` bits. Only the
 * canonical (shortest) form is accepted, so that writing gives the same bytes. */
static bool read_leb(parser *ps, unsigned max_bytes, unsigned bits, uint64_t *out, const char *what)
{
    const uint8_t *at = ps->p;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (ps->p >= ps->end)
            return fail(ps, at, MC_ERR_TRUNCATED, "%s varint cut short", what);
        uint8_t b = *ps->p++;
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            if (i > 0 && b == 0)
                return fail(ps, at, MC_ERR_MALFORMED, "%s varint not in shortest form", what);
            /* bits beyond the value's width (in the 10th byte of a 64-bit
             * varint they would be shifted out unseen) */
            if ((bits < 64 && (v >> bits)) || (i == 9 && b > 1))
                return fail(ps, at, MC_ERR_MALFORMED, "%s varint exceeds %u bits", what, bits);
            *out = v;
            return true;
        }
    }
    return fail(ps, at, MC_ERR_MALFORMED, "%s varint longer than %u bytes", what, max_bytes);
}

#if defined(__GNUC__)
#define MC__HOT __attribute__((always_inline))
#else
#define MC__HOT
#endif

#define P_MODE_BE 1
#define P_MODE_LE 2
#define P_MODE_VARINT 3

#define P_MODE P_MODE_BE
#define P_SUFFIX be
#include "nbt/parse_tmpl.h"
#undef P_MODE
#undef P_SUFFIX

#define P_MODE P_MODE_LE
#define P_SUFFIX le
#include "nbt/parse_tmpl.h"
#undef P_MODE
#undef P_SUFFIX

#define P_MODE P_MODE_VARINT
#define P_SUFFIX vi
#include "nbt/parse_tmpl.h"
#undef P_MODE
#undef P_SUFFIX

static mc_status parse_known(mc_nbt_doc *doc, const uint8_t *data, size_t len, mc_nbt_format format,
                             unsigned flags, const mc_nbt_limits *limits, size_t *consumed,
                             mc_error *err)
{
    parser ps;
    ps.doc = doc;
    ps.start = data;
    ps.base = 0;
    ps.p = data;
    ps.end = data + len;
    ps.max_depth = limits && limits->max_depth && limits->max_depth < MC_NBT_MAX_DEPTH
                       ? limits->max_depth : MC_NBT_MAX_DEPTH;
    ps.err = err;
    ps.status = MC_OK;
    size_t budget = limits && limits->max_bytes ? limits->max_bytes : MC_NBT_DEFAULT_MAX_BYTES;

    mc_nbt_doc_reset(doc);
    mc__arena_budget(doc, budget);

    if (flags & MC_NBT_PARSE_COPY) {
        uint8_t *copy = arena(&ps, len, data);
        if (!copy)
            goto done;
        ps.start = ps.p = copy;
        ps.end = copy + len;
    }

    if (format == MC_NBT_BEDROCK_LEVEL_DAT) {
        if (len < 8) {
            fail(&ps, ps.p, MC_ERR_TRUNCATED, "level.dat header needs 8 bytes, %zu present", len);
            goto done;
        }
        uint32_t version = mc_load_u32le(ps.p);
        uint32_t plen = mc_load_u32le(ps.p + 4);
        if (plen > len - 8) {
            fail(&ps, ps.p + 4, MC_ERR_TRUNCATED, "level.dat length %u exceeds remaining %zu bytes",
                 (unsigned)plen, len - 8);
            goto done;
        }
        if (!(flags & MC_NBT_PARSE_PREFIX) && plen != len - 8) {
            fail(&ps, ps.p + 4, MC_ERR_MALFORMED, "level.dat length %u but %zu bytes follow",
                 (unsigned)plen, len - 8);
            goto done;
        }
        doc->header_version = version;
        ps.p += 8;
        ps.end = ps.p + plen;
    }

    switch (format) {
    case MC_NBT_JAVA: parse_root_be(&ps, true); break;
    case MC_NBT_JAVA_NETWORK: parse_root_be(&ps, false); break;
    case MC_NBT_BEDROCK: case MC_NBT_BEDROCK_LEVEL_DAT: parse_root_le(&ps, true); break;
    case MC_NBT_BEDROCK_NETWORK: parse_root_vi(&ps, true); break;
    default:
        mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: unknown format %d", (int)format);
        ps.status = MC_ERR_INVALID_ARG;
        break;
    }
    if (ps.status == MC_OK && !(flags & MC_NBT_PARSE_PREFIX) && ps.p != ps.end)
        fail(&ps, ps.p, MC_ERR_MALFORMED, "%zu bytes after the root tag", (size_t)(ps.end - ps.p));

done:
    mc__arena_budget(doc, SIZE_MAX);
    if (ps.status != MC_OK) {
        doc->root = NULL;
        mc_nbt_doc_reset(doc);
        return ps.status;
    }
    if (consumed)
        *consumed = (size_t)(ps.p - ps.start);
    return MC_OK;
}

static bool level_dat_framing(const uint8_t *d, size_t len)
{
    return len >= 9 && mc_load_u32le(d + 4) == len - 8 && d[8] <= MC_NBT_LONG_ARRAY;
}

mc_status mc_nbt_detect(const void *data, size_t len, mc_nbt_format *format)
{
    static const mc_nbt_format order[] = {MC_NBT_JAVA, MC_NBT_BEDROCK, MC_NBT_JAVA_NETWORK,
                                          MC_NBT_BEDROCK_NETWORK};
    const uint8_t *d = data;
    if (!d && len)
        return MC_ERR_INVALID_ARG;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc)
        return MC_ERR_NOMEM;
    mc_status result = MC_ERR_MALFORMED;
    if (level_dat_framing(d, len) &&
        parse_known(doc, d, len, MC_NBT_BEDROCK_LEVEL_DAT, 0, NULL, NULL, NULL) == MC_OK) {
        *format = MC_NBT_BEDROCK_LEVEL_DAT;
        result = MC_OK;
    }
    for (size_t i = 0; result != MC_OK && i < sizeof order / sizeof order[0]; i++) {
        if (parse_known(doc, d, len, order[i], 0, NULL, NULL, NULL) == MC_OK &&
            mc_nbt_doc_root(doc)->type != MC_NBT_END) {
            *format = order[i];
            result = MC_OK;
        }
    }
    mc_nbt_doc_free(doc);
    return result;
}

mc_status mc_nbt_parse_ex(mc_nbt_doc *doc, const void *data, size_t len, mc_nbt_format format,
                          unsigned flags, const mc_nbt_limits *limits, size_t *consumed, mc_error *err)
{
    if (!doc || (!data && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: no document or no data");
    if (format == MC_NBT_AUTO) {
        mc_status s = mc_nbt_detect(data, len, &format);
        if (s != MC_OK) {
            mc_nbt_doc_reset(doc);
            return mc_error_set(err, s, SIZE_MAX, "nbt: input is not NBT in any known encoding");
        }
    }
    static const uint8_t nothing[1];
    return parse_known(doc, data ? data : nothing, len, format, flags, limits, consumed, err);
}

mc_status mc_nbt_parse(mc_nbt_doc *doc, const void *data, size_t len, mc_nbt_format format,
                       const mc_nbt_limits *limits, mc_error *err)
{
    return mc_nbt_parse_ex(doc, data, len, format, 0, limits, NULL, err);
}
