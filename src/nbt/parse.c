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
#include <stddef.h>
#include <stdio.h>

#include "nbt/doc.h"

/* SSE2 is part of every x86-64 CPU: no run-time dispatch needed. */
#if defined(__SSE2__) && !defined(MC_PORTABLE)
#include <emmintrin.h>
#define P_SSE2 1
#else
#define P_SSE2 0
#endif

typedef struct parser {
    mc_nbt_doc *doc;
    const uint8_t *start; /* offsets in messages are relative to this... */
    size_t base;          /* ...plus this (the level.dat header) */
    const uint8_t *p, *end;
    unsigned max_depth;
    const mc_nbt_filter *filter; /* NULL: keep everything */
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

#if defined(__GNUC__)
#define MC__HOT __attribute__((always_inline))
#define MC__COLD __attribute__((cold, noinline))
#define MC__NOINLINE __attribute__((noinline))
#define MC__LIKELY(x) __builtin_expect(!!(x), 1)
#define MC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define MC__HOT
#define MC__COLD
#define MC__NOINLINE
#define MC__LIKELY(x) (x)
#define MC__UNLIKELY(x) (x)
#endif

/* Arena memory when the parser's copy of the free window [cur, end) is too
 * small (or for rare allocations): hands `cur` back to the document, takes
 * n bytes (a new block, or the budget, or out of memory: recorded as an
 * error at `at`, NULL returned). The caller then reloads its window from
 * doc->cur and doc->end. The parser keeps the window in local variables,
 * never in memory it passes around, so that it stays in registers. */
static MC__COLD void *arena_refill(parser *ps, uint8_t *cur, size_t n, const uint8_t *at)
{
    mc_nbt_doc *doc = ps->doc;
    doc->cur = cur;
    void *mem = mc__arena_alloc(doc, n ? n : 1);
    if (!mem) {
        if (doc->budget_hit)
            fail(ps, at, MC_ERR_LIMIT, "byte budget exceeded (%zu more bytes wanted)", n);
        else
            fail(ps, at, MC_ERR_NOMEM, "out of memory");
    }
    return mem;
}

/* The first 8 bytes of a tag (type, aux, name_len, count) as one word, so
 * that they are written with one store. Built with shifts where the byte
 * order is known: building it in a stack copy of a tag and loading that
 * would stall on store forwarding. */
_Static_assert(offsetof(mc_nbt_tag, type) == 0 && offsetof(mc_nbt_tag, aux) == 1 &&
                   offsetof(mc_nbt_tag, name_len) == 2 && offsetof(mc_nbt_tag, count) == 4,
               "tag_head() knows the first 8 bytes of a tag");
static inline uint64_t tag_head(unsigned type, unsigned aux, uint32_t name_len, uint32_t count)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (uint64_t)(uint8_t)type | (uint64_t)(uint8_t)aux << 8 | (uint64_t)(uint16_t)name_len << 16 |
           (uint64_t)count << 32;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint64_t)(uint8_t)type << 56 | (uint64_t)(uint8_t)aux << 48 |
           (uint64_t)(uint16_t)name_len << 32 | count;
#else
    mc_nbt_tag h;
    h.type = (uint8_t)type;
    h.aux = (uint8_t)aux;
    h.name_len = (uint16_t)name_len;
    h.count = count;
    uint64_t w;
    memcpy(&w, &h, sizeof w);
    return w;
#endif
}

/* Writes every field of a tag: the head word, key, value (`member` names
 * the union member), next sibling. (Assigning a compound literal instead
 * makes some compilers clear the tag with a string instruction first.) */
#define SET_TAG(t, head, nm, member, val, nx) \
    do {                                      \
        mc_nbt_tag *t_ = (t);                 \
        uint64_t h_ = (head);                 \
        memcpy(t_, &h_, sizeof h_);           \
        t_->name = (nm);                      \
        t_->v.member = (val);                 \
        t_->next = (nx);                      \
    } while (0)

/* The state of an open list or compound while a child of it is parsed. */
typedef struct pframe {
    mc_nbt_tag *cur;
    mc_nbt_tag **link;
    size_t count;
} pframe;

/* LEB128 at p of at most max_bytes bytes holding at most `bits` bits. Only
 * the canonical (shortest) form is accepted, so that writing gives the same
 * bytes. Returns the position after it, NULL on failure. */
static const uint8_t *read_leb(parser *ps, const uint8_t *p, const uint8_t *end, unsigned max_bytes,
                               unsigned bits, uint64_t *out, const char *what)
{
    const uint8_t *at = p;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (p >= end) {
            fail(ps, at, MC_ERR_TRUNCATED, "%s varint cut short", what);
            return NULL;
        }
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            if (i > 0 && b == 0) {
                fail(ps, at, MC_ERR_MALFORMED, "%s varint not in shortest form", what);
                return NULL;
            }
            /* bits beyond the value's width (in the 10th byte of a 64-bit
             * varint they would be shifted out unseen) */
            if ((bits < 64 && (v >> bits)) || (i == 9 && b > 1)) {
                fail(ps, at, MC_ERR_MALFORMED, "%s varint exceeds %u bits", what, bits);
                return NULL;
            }
            *out = v;
            return p;
        }
    }
    fail(ps, at, MC_ERR_MALFORMED, "%s varint longer than %u bytes", what, max_bytes);
    return NULL;
}

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

/* Sets up a parse of data[0..len) into doc's arena (budgeted: the caller
 * ends the stretch with mc__arena_budget(doc, SIZE_MAX)), on a copy in the
 * arena with MC_NBT_PARSE_COPY. False when that copy failed (recorded). */
static bool parser_start(parser *ps, mc_nbt_doc *doc, const uint8_t *data, size_t len, unsigned flags,
                         const mc_nbt_filter *filter, const mc_nbt_limits *limits, mc_error *err)
{
    ps->filter = filter && filter->keep && filter->max_depth ? filter : NULL;
    ps->doc = doc;
    ps->start = ps->p = data;
    ps->base = 0;
    ps->end = data + len;
    ps->max_depth = limits && limits->max_depth && limits->max_depth < MC_NBT_MAX_DEPTH
                        ? limits->max_depth : MC_NBT_MAX_DEPTH;
    ps->err = err;
    ps->status = MC_OK;
    mc__arena_budget(doc, limits && limits->max_bytes ? limits->max_bytes : MC_NBT_DEFAULT_MAX_BYTES);
    if (flags & MC_NBT_PARSE_COPY) {
        uint8_t *copy = arena_refill(ps, doc->cur, len, data);
        if (!copy)
            return false;
        memcpy(copy, data, len);
        ps->start = ps->p = copy;
        ps->end = copy + len;
    }
    return true;
}

static mc_status parse_known(mc_nbt_doc *doc, const uint8_t *data, size_t len, mc_nbt_format format,
                             unsigned flags, const mc_nbt_filter *filter, const mc_nbt_limits *limits,
                             size_t *consumed, mc_error *err)
{
    parser ps;
    mc_nbt_doc_reset(doc);
    if (!parser_start(&ps, doc, data, len, flags, filter, limits, err))
        goto done;

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
        parse_known(doc, d, len, MC_NBT_BEDROCK_LEVEL_DAT, 0, NULL, NULL, NULL, NULL) == MC_OK) {
        *format = MC_NBT_BEDROCK_LEVEL_DAT;
        result = MC_OK;
    }
    for (size_t i = 0; result != MC_OK && i < sizeof order / sizeof order[0]; i++) {
        if (parse_known(doc, d, len, order[i], 0, NULL, NULL, NULL, NULL) == MC_OK &&
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
    return parse_known(doc, data ? data : nothing, len, format, flags, NULL, limits, consumed, err);
}

mc_status mc_nbt_parse_filtered(mc_nbt_doc *doc, const void *data, size_t len, mc_nbt_format format,
                                unsigned flags, const mc_nbt_filter *filter, const mc_nbt_limits *limits,
                                size_t *consumed, mc_error *err)
{
    if (!doc || (!data && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: no document or no data");
    if (format == MC_NBT_BEDROCK_NETWORK || format == MC_NBT_AUTO) {
        mc_nbt_doc_reset(doc);
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "nbt: a key filter needs a fixed-size encoding (not varint, not auto)");
    }
    static const uint8_t nothing[1];
    return parse_known(doc, data ? data : nothing, len, format, flags, filter, limits, consumed, err);
}

mc_status mc_nbt_parse_into(mc_nbt_doc *doc, mc_nbt_tag *compound, const void *data, size_t len,
                            mc_nbt_format format, unsigned flags, mc_error *err)
{
    if (!doc || !compound || (!data && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: no document, compound or data");
    if (compound->type != MC_NBT_COMPOUND)
        return mc_error_set(err, MC_ERR_TYPE, SIZE_MAX, "nbt: parse_into needs a compound");
    if (format != MC_NBT_JAVA && format != MC_NBT_JAVA_NETWORK && format != MC_NBT_BEDROCK &&
        format != MC_NBT_BEDROCK_LEVEL_DAT)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "nbt: parse_into needs a fixed-size encoding");
    static const uint8_t nothing[1];
    parser ps;
    mc_nbt_tag *tmp = NULL;
    if (!parser_start(&ps, doc, data ? data : nothing, len, flags, NULL, NULL, err))
        goto done;
    if (!(tmp = arena_refill(&ps, doc->cur, sizeof *tmp, ps.p)))
        goto done;
    SET_TAG(tmp, tag_head(MC_NBT_COMPOUND, AUX_ATTACHED, 0, 0), NULL, first, NULL, NULL);
    if (format == MC_NBT_JAVA || format == MC_NBT_JAVA_NETWORK)
        parse_tree_be(&ps, tmp);
    else
        parse_tree_le(&ps, tmp);
    if (ps.status == MC_OK && ps.p != ps.end)
        fail(&ps, ps.p, MC_ERR_MALFORMED, "%zu bytes after the end tag", (size_t)(ps.end - ps.p));
done:
    mc__arena_budget(doc, SIZE_MAX);
    if (ps.status != MC_OK)
        return ps.status; /* the arena keeps the bytes; the compound is as it was */
    /* a new key replaces an old one; then the new tags go after the old */
    for (mc_nbt_tag *t = tmp->count ? tmp->v.first : NULL; t; t = t->next)
        mc_nbt_remove(compound, (const char *)t->name, t->name_len);
    if (tmp->count) {
        mc_nbt_tag **link = &compound->v.first;
        for (mc_nbt_tag *t = compound->count ? compound->v.first : NULL; t; t = t->next)
            link = &t->next;
        *link = tmp->v.first;
        compound->count += tmp->count;
    }
    return MC_OK;
}

mc_status mc_nbt_parse(mc_nbt_doc *doc, const void *data, size_t len, mc_nbt_format format,
                       const mc_nbt_limits *limits, mc_error *err)
{
    return mc_nbt_parse_ex(doc, data, len, format, 0, limits, NULL, err);
}
