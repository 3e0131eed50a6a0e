/*
 * parse_tmpl.h: the binary NBT parser, written once and included by parse.c
 * for each family of encodings, so that each gets its own specialised code
 * with no per-field branch on the encoding:
 *
 *   P_SUFFIX be       Java (big-endian, modified UTF-8 strings)
 *   P_SUFFIX le       Bedrock disk (little-endian, byte strings)
 *   P_SUFFIX vi       Bedrock network (zigzag varint ints/longs/lengths,
 *                     uvarint string lengths, little-endian short/float/double)
 *
 * The parser is one loop over the input with an explicit stack of open
 * lists and compounds (at most the depth limit deep, so no recursion at
 * all). Why a loop and not recursive descent: a chunk payload is mostly
 * small compounds and short lists, and a call per container costs about as
 * much as the tags inside it. The loop keeps everything it touches per tag
 * -- the input cursor, the arena's free window, the open compound's link
 * and count -- in local variables, so that they stay in registers: stores
 * into tags (which have byte-sized fields, and bytes may alias anything)
 * would otherwise force them to be reloaded from memory after every tag.
 *
 * Each tag is written once, as a whole, after its value is known. Lists of
 * fixed-size numbers (the shorts of PostProcessing, the doubles of Pos) are
 * turned into their element tags in one tight pass.
 *
 * Every length is checked against the bytes that remain before anything is
 * allocated, and every allocation comes out of the document's arena
 * (budgeted; the refill is the only call on the common path's slow side).
 */
#define P_CAT2(a, b) a##_##b
#define P_CAT(a, b) P_CAT2(a, b)
#define P_FN(name) P_CAT(name, P_SUFFIX)

#if P_MODE == P_MODE_BE
/* A short, sign-extended, from two byte loads: cheaper in a loop than a
 * 16-bit load and byte swap (a partial-register operation). */
#define P_SHORT(p) ((int64_t)(int8_t)(p)[0] * 256 + (p)[1])
#define P_LD16(p) mc_load_u16be(p)
/* the same where the two bytes before p are input too: one 32-bit load and
 * bswap (shortest latency in a chain of length loads) */
#define P_LD16_PRE(p) (mc_load_u32be((p) - 2) & 0xFFFFu)
#define P_LD32(p) mc_load_u32be(p)
#define P_LD64(p) mc_load_u64be(p)
#define P_ORDER MC_NBT_ORDER_BE
#else
#define P_SHORT(p) ((int64_t)(int8_t)(p)[1] * 256 + (p)[0])
#define P_LD16(p) mc_load_u16le(p)
#define P_LD16_PRE(p) (mc_load_u32le((p) - 2) >> 16)
#define P_LD32(p) mc_load_u32le(p)
#define P_LD64(p) mc_load_u64le(p)
#define P_ORDER MC_NBT_ORDER_LE
#endif

/* Smallest encoded size of a payload of each type: the bound that makes a
 * list count checkable against the remaining bytes. */
static const uint8_t P_FN(min_size)[13] = {
#if P_MODE == P_MODE_VARINT
    0, 1, 2, 1, 1, 4, 8, 1, 1, 2, 1, 1, 1
#else
    0, 1, 2, 4, 8, 4, 8, 4, 2, 5, 1, 4, 4
#endif
};

#if P_MODE == P_MODE_BE
/* True when Java string s[0..n) is ASCII without NUL, so that its modified
 * UTF-8 is its UTF-8 and it can be used in place (almost every string).
 * A false "no" only costs the exact check in str_convert. */
static inline MC__HOT bool P_FN(plain)(const uint8_t *s, size_t n, const uint8_t *end)
{
#if P_SSE2
    /* Keys and most values are at most 32 bytes: two 16-byte loads when the
     * input has 32 bytes from the start of the string (bytes past it are
     * masked off). A byte is bad when its top bit is set or it is zero. */
    if (MC__LIKELY(n <= 32 && (size_t)(end - s) >= 32)) {
        const __m128i zero = _mm_setzero_si128();
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        uint32_t bad = (uint32_t)_mm_movemask_epi8(_mm_or_si128(a, _mm_cmpeq_epi8(a, zero))) |
                       (uint32_t)_mm_movemask_epi8(_mm_or_si128(b, _mm_cmpeq_epi8(b, zero))) << 16;
        return !(bad & (uint32_t)(((uint64_t)1 << n) - 1));
    }
#else
    /* Eight bytes at a time: a byte >= 0x80 sets its top bit in x, a zero
     * byte sets it in x - 0x01..01 (a borrow only moves upwards, so bytes
     * past the string cannot disturb it). A short string is one 8-byte load
     * when the input has 8 bytes from its start, the excess masked off. */
    static const uint64_t tops_upto[9] = {
        0, 0x80ull, 0x8080ull, 0x808080ull, 0x80808080ull, 0x8080808080ull, 0x808080808080ull,
        0x80808080808080ull, 0x8080808080808080ull};
    if (MC__LIKELY(n <= 8 && (size_t)(end - s) >= 8)) {
        uint64_t x = mc_load_u64le(s);
        return !(((x - 0x0101010101010101ull) | x) & tops_upto[n]);
    }
#endif
    if (n >= 8) {
        const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
        uint64_t acc = 0;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            uint64_t x = mc_load_u64le(s + i);
            acc |= (x - ones) | x;
        }
        uint64_t x = mc_load_u64le(s + n - 8); /* the tail, overlapping */
        acc |= (x - ones) | x;
        return !(acc & tops);
    }
    bool plain = true; /* a short string at the very end of the input */
    for (size_t i = 0; i < n; i++)
        plain &= (uint8_t)(s[i] - 1) < 0x7F;
    return plain;
}
#endif

#if P_MODE == P_MODE_BE
/* Java strings: modified UTF-8 that is not plain UTF-8 (a NUL as C0 80, a
 * surrogate pair) is converted into the arena; invalid bytes are an error.
 * The slow side of read_str, out of line. Takes the caller's arena cursor;
 * the caller reloads its window from the document afterwards. */
typedef struct P_FN(converted) {
    const uint8_t *s; /* NULL on failure */
    uint32_t n;
} P_FN(converted);

static MC__COLD P_FN(converted) P_FN(str_convert)(parser *ps, const uint8_t *str, uint32_t n,
                                                   const char *what, uint8_t *acur)
{
    P_FN(converted) r = {NULL, n};
    ps->doc->cur = acur;
    size_t bad = 0;
    int check = mc__mutf8_check(str, n, &bad);
    if (check < 0) {
        fail(ps, str + bad, MC_ERR_MALFORMED, "%s is not valid modified UTF-8 (byte 0x%02x)", what,
             str[bad]);
        return r;
    }
    if (check == 0) {
        r.s = str;
        return r;
    }
    uint8_t *out = arena_refill(ps, acur, n, str);
    if (!out)
        return r;
    r.n = (uint32_t)mc__mutf8_to_utf8(str, n, out);
    r.s = out;
    return r;
}
#endif

/* Keys and strings inside a value the filter stepped over, when the filter
 * asks for them to be checked (check_text): valid modified UTF-8, as the
 * full parse requires. Plain ASCII is the fast yes. Bedrock strings are
 * bytes: nothing to check. */
#if P_MODE == P_MODE_BE
#define P_PLAIN(s, n, end) P_FN(plain)((s), (n), (end))
static MC__COLD bool P_FN(text_slow)(parser *ps, const uint8_t *s, size_t n, const char *what)
{
    size_t bad = 0;
    if (mc__mutf8_check(s, n, &bad) >= 0)
        return true;
    return fail(ps, s + bad, MC_ERR_MALFORMED, "%s is not valid modified UTF-8 (byte 0x%02x)", what, s[bad]);
}
#define P_TEXT_OK(ps, s, n, end, what) (P_PLAIN((s), (n), (end)) || P_FN(text_slow)((ps), (s), (n), (what)))
#else
#define P_PLAIN(s, n, end) ((void)(s), (void)(n), (void)(end), true)
#define P_TEXT_OK(ps, s, n, end, what) ((void)(ps), (void)(what), P_PLAIN((s), (n), (end)))
#endif

/* Reads a length-prefixed string (a value or a key) at p. Returns the
 * position after it (NULL on failure) and sets *s, *n. */
static inline MC__HOT const uint8_t *P_FN(read_str)(parser *ps, const uint8_t *p, const uint8_t *end,
                                                    const uint8_t **s, uint32_t *n, const char *what,
                                                    uint8_t **acur, uint8_t **aend)
{
    const uint8_t *at = p;
    uint64_t len;
#if P_MODE == P_MODE_VARINT
    (void)acur;
    (void)aend;
    p = read_leb(ps, p, end, 5, 32, &len, what);
    if (!p)
        return NULL;
    if (len > (uint64_t)(end - p)) {
        fail(ps, at, MC_ERR_TRUNCATED, "%s length %llu exceeds remaining %zu bytes", what,
             (unsigned long long)len, (size_t)(end - p));
        return NULL;
    }
    *s = p;
    *n = (uint32_t)len;
    return p + len;
#else
    size_t left = (size_t)(end - at);
    if (MC__UNLIKELY(left < 2)) {
        fail(ps, at, MC_ERR_TRUNCATED, "%s length needs 2 bytes, %zu remain", what, left);
        return NULL;
    }
    len = P_LD16(at);
    if (MC__UNLIKELY(len > left - 2)) {
        fail(ps, at, MC_ERR_TRUNCATED, "%s length %llu exceeds remaining %zu bytes", what,
             (unsigned long long)len, left - 2);
        return NULL;
    }
    const uint8_t *str = at + 2;
#if P_MODE == P_MODE_BE
    bool plain = P_FN(plain)(str, (size_t)len, end);
    *n = (uint32_t)len;
    if (MC__UNLIKELY(!plain)) {
        P_FN(converted) c = P_FN(str_convert)(ps, str, (uint32_t)len, what, *acur);
        *acur = ps->doc->cur;
        *aend = ps->doc->end;
        *s = c.s;
        *n = c.n;
        return c.s ? str + len : NULL;
    }
#else
    (void)acur;
    (void)aend;
    *n = (uint32_t)len;
#endif
    *s = str;
    return str + len;
#endif
}

/* Reads a list or array length at p: a signed count that must not be
 * negative. Returns the position after it, NULL on failure. */
static inline MC__HOT const uint8_t *P_FN(read_count)(parser *ps, const uint8_t *p, const uint8_t *end,
                                                      uint32_t *count, const char *what)
{
    const uint8_t *at = p;
#if P_MODE == P_MODE_VARINT
    uint64_t z = 0;
    p = read_leb(ps, p, end, 5, 32, &z, what);
    if (!p)
        return NULL;
    int32_t v = (int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
#else
    if (MC__UNLIKELY(end - p < 4)) {
        fail(ps, at, MC_ERR_TRUNCATED, "%s length needs 4 bytes, %zu remain", what, (size_t)(end - p));
        return NULL;
    }
    int32_t v = (int32_t)P_LD32(p);
    p += 4;
#endif
    if (MC__UNLIKELY(v < 0)) {
        fail(ps, at, MC_ERR_MALFORMED, "negative %s length %d", what, (int)v);
        return NULL;
    }
    *count = (uint32_t)v;
    return p;
}

/* Scalars, strings and arrays: everything but lists and compounds. Writes
 * the whole tag *t (type, key name[0..nlen), value; no next sibling) from
 * the payload at p and returns the position after it, NULL on failure. */
static inline MC__HOT const uint8_t *P_FN(leaf_in)(parser *ps, const uint8_t *p, const uint8_t *end,
                                                unsigned type, mc_nbt_tag *t, const uint8_t *name,
                                                uint32_t nlen, uint8_t **acur, uint8_t **aend)
{
    const uint8_t *at = p;
    size_t left = (size_t)(end - p);
    uint64_t bits;
    switch (type) {
    case MC_NBT_BYTE:
        if (MC__UNLIKELY(left < 1))
            goto short_input;
        bits = (uint64_t)(int64_t)(int8_t)p[0];
        p += 1;
        break;
    case MC_NBT_SHORT:
        if (MC__UNLIKELY(left < 2))
            goto short_input;
        bits = (uint64_t)(int64_t)(int16_t)P_LD16(p);
        p += 2;
        break;
    case MC_NBT_INT:
#if P_MODE == P_MODE_VARINT
    {
        uint64_t z = 0;
        p = read_leb(ps, p, end, 5, 32, &z, "int");
        if (!p)
            return NULL;
        bits = (uint64_t)(int64_t)(int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
        break;
    }
#else
        if (MC__UNLIKELY(left < 4))
            goto short_input;
        bits = (uint64_t)(int64_t)(int32_t)P_LD32(p);
        p += 4;
        break;
#endif
    case MC_NBT_LONG:
#if P_MODE == P_MODE_VARINT
    {
        uint64_t z = 0;
        p = read_leb(ps, p, end, 10, 64, &z, "long");
        if (!p)
            return NULL;
        bits = (z >> 1) ^ (0ull - (z & 1));
        break;
    }
#else
        if (MC__UNLIKELY(left < 8))
            goto short_input;
        bits = P_LD64(p);
        p += 8;
        break;
#endif
    case MC_NBT_FLOAT:
        if (MC__UNLIKELY(left < 4))
            goto short_input;
        bits = P_LD32(p);
        p += 4;
        break;
    case MC_NBT_DOUBLE:
        if (MC__UNLIKELY(left < 8))
            goto short_input;
        bits = P_LD64(p);
        p += 8;
        break;
    case MC_NBT_STRING: {
        const uint8_t *s = NULL;
        uint32_t n = 0;
        p = P_FN(read_str)(ps, p, end, &s, &n, "string", acur, aend);
        if (!p)
            return NULL;
        SET_TAG(t, tag_head(MC_NBT_STRING, AUX_ATTACHED, nlen, n), name, ptr, s, NULL);
        return p;
    }
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY: {
        uint32_t count = 0;
        const char *tname = mc_nbt_type_name((mc_nbt_type)type);
        p = P_FN(read_count)(ps, p, end, &count, tname);
        if (!p)
            return NULL;
        size_t esize = type == MC_NBT_BYTE_ARRAY ? 1 : type == MC_NBT_INT_ARRAY ? 4 : 8;
        left = (size_t)(end - p);
#if P_MODE == P_MODE_VARINT
        if (esize > 1) {
            /* Network arrays hold varints: decode into host order. */
            if (count > left) {
                fail(ps, at, MC_ERR_TRUNCATED, "%s length %lld exceeds remaining %zu bytes", tname,
                     (long long)count, left);
                return NULL;
            }
            uint8_t *out = NULL;
            if (count) {
                out = arena_refill(ps, *acur, (size_t)count * esize, p);
                *acur = ps->doc->cur;
                *aend = ps->doc->end;
                if (!out)
                    return NULL;
            }
            for (uint32_t i = 0; i < count; i++) {
                uint64_t z = 0;
                p = read_leb(ps, p, end, esize == 4 ? 5 : 10, (unsigned)esize * 8, &z, "array element");
                if (!p)
                    return NULL;
                if (esize == 4) {
                    int32_t v = (int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
                    memcpy(out + (size_t)i * 4, &v, 4);
                } else {
                    uint64_t v = (z >> 1) ^ (0ull - (z & 1));
                    memcpy(out + (size_t)i * 8, &v, 8);
                }
            }
            SET_TAG(t, tag_head(type, AUX_ATTACHED | MC_NBT_ORDER_NATIVE, nlen, count), name, ptr, out,
                    NULL);
            return p;
        }
#endif
        if (MC__UNLIKELY((uint64_t)count * esize > left)) {
            fail(ps, at, MC_ERR_TRUNCATED, "%s length %lld exceeds remaining %zu bytes", tname,
                 (long long)count, left);
            return NULL;
        }
        /* Zero-copy: the array stays in the input, in its byte order. */
        SET_TAG(t, tag_head(type, AUX_ATTACHED | P_ORDER, nlen, count), name, ptr, p, NULL);
        return p + (size_t)count * esize;
    }
    default:
        fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", type);
        return NULL;
    }
    SET_TAG(t, tag_head(type, AUX_ATTACHED, nlen, 0), name, bits, bits, NULL);
    return p;
short_input:
    fail(ps, at, MC_ERR_TRUNCATED, "%s needs more bytes than the %zu that remain",
         mc_nbt_type_name((mc_nbt_type)type), left);
    return NULL;
}

/* leaf_in out of line, for the parser loop: arrays and lists of strings
 * are rare enough that a call is cheaper than the registers an inlined copy
 * would take from the loop. The arena cursor goes through the document (the
 * caller stores it before and reloads it after). */
static MC__NOINLINE const uint8_t *P_FN(leaf)(parser *ps, const uint8_t *p, const uint8_t *end,
                                               unsigned type, mc_nbt_tag *t, const uint8_t *name,
                                               uint32_t nlen)
{
    uint8_t *acur = ps->doc->cur, *aend = ps->doc->end;
    p = P_FN(leaf_in)(ps, p, end, type, t, name, nlen, &acur, &aend);
    ps->doc->cur = acur;
    return p;
}

/* Writes the front half of a tag: its head word and its key. */
#define SET_FRONT(t, head, nm)                 \
    do {                                       \
        uint64_t h_ = (head);                  \
        memcpy((t), &h_, sizeof h_);           \
        (t)->name = (nm);                      \
    } while (0)

/* Element tags of a list of fixed-size numbers, from n >= 1 encoded values
 * at q (the caller has checked that they are there). Each tag is written
 * field by field in address order: stores to consecutive addresses are the
 * cheapest kind (unrolled or 16-byte-store variants measured slower). */
static void P_FN(fill_numbers)(mc_nbt_tag *kids, size_t n, unsigned elem, const uint8_t *q)
{
    const uint64_t head = tag_head(elem, AUX_ATTACHED, 0, 0);
    mc_nbt_tag *k = kids;
    mc_nbt_tag *const last = kids + n - 1;
#define P_FILL(size, expr)                      \
    while (k != last) {                         \
        SET_FRONT(k, head, NULL);               \
        k->v.bits = (expr);                     \
        k->next = k + 1;                        \
        k++;                                    \
        q += (size);                            \
    }                                           \
    SET_FRONT(k, head, NULL);                   \
    k->v.bits = (expr);                         \
    k->next = NULL;
    switch (elem) {
    case MC_NBT_BYTE: P_FILL(1, (uint64_t)(int64_t)(int8_t)q[0]) break;
    case MC_NBT_SHORT: P_FILL(2, (uint64_t)P_SHORT(q)) break;
    case MC_NBT_INT: P_FILL(4, (uint64_t)(int64_t)(int32_t)P_LD32(q)) break;
    case MC_NBT_FLOAT: P_FILL(4, (uint64_t)P_LD32(q)) break;
    default: /* LONG, DOUBLE */ P_FILL(8, P_LD64(q)) break;
    }
#undef P_FILL
}

/* Takes n bytes (a multiple of 8) from the parser's arena window, or from a
 * refill; on failure goes to `failed`. */
#define P_TAKE(dst, n, at)                                           \
    do {                                                             \
        size_t n_ = (n);                                             \
        if (MC__LIKELY((size_t)(aend - acur) >= n_)) {               \
            (dst) = (void *)acur;                                    \
            acur += n_;                                              \
        } else {                                                     \
            (dst) = arena_refill(ps, acur, n_, (at));                \
            acur = ps->doc->cur;                                     \
            aend = ps->doc->end;                                     \
            if (!(dst))                                              \
                goto failed;                                         \
        }                                                            \
    } while (0)

/* A list's head at p: element type and count, checked (a known type, a
 * non-negative count, no end tags in a non-empty list, at least the bytes
 * n elements need). Returns the position of the first element, NULL on
 * failure. Shared by the tree builder and the skipper. */
static inline MC__HOT const uint8_t *P_FN(list_head)(parser *ps, const uint8_t *p, const uint8_t *end,
                                                      unsigned *elem_out, uint32_t *n_out)
{
    const uint8_t *at = p;
    if (MC__UNLIKELY(p >= end)) {
        fail(ps, at, MC_ERR_TRUNCATED, "list element type missing");
        return NULL;
    }
    unsigned elem = *p++;
    if (MC__UNLIKELY(elem > MC_NBT_LONG_ARRAY)) {
        fail(ps, at, MC_ERR_MALFORMED, "bad list element type %u", elem);
        return NULL;
    }
    uint32_t n = 0;
    p = P_FN(read_count)(ps, p, end, &n, "list");
    if (!p)
        return NULL;
    if (n && MC__UNLIKELY(elem == MC_NBT_END)) {
        fail(ps, at, MC_ERR_MALFORMED, "list of %lld end tags", (long long)n);
        return NULL;
    }
    size_t left = (size_t)(end - p);
    if (MC__UNLIKELY((uint64_t)n * P_FN(min_size)[elem] > left)) {
        fail(ps, at, MC_ERR_TRUNCATED, "list of %lld %s exceeds remaining %zu bytes", (long long)n,
             mc_nbt_type_name((mc_nbt_type)elem), left);
        return NULL;
    }
    *elem_out = elem;
    *n_out = n;
    return p;
}

#if P_MODE != P_MODE_VARINT
#include "parse_shaped.h" /* skip_shaped: the skip walker's fast path */


/* Steps over the payload of a tag of `type` at p without building anything
 * (a value the filter left out) and returns the position after it, NULL on
 * failure. The structure is checked as the full parse checks it (tag types,
 * lengths against the bytes left, negative counts, nesting below
 * max_depth; `depth` is the nesting of the compound holding the value);
 * keys and strings are checked as modified UTF-8 only with `text` (never
 * converted). */
static const uint8_t *P_FN(skip)(parser *ps, const uint8_t *p, const uint8_t *end, unsigned type,
                                 size_t depth, bool text)
{
    /* one frame per open container: remaining list elements and their
     * type, or UINT32_MAX / END for a compound */
    struct { uint32_t left; uint8_t elem; } st[MC_NBT_MAX_DEPTH];
    size_t sp = 0;
    const size_t room = depth < ps->max_depth ? ps->max_depth - depth : 0;
    for (;;) {
        const uint8_t *at = p;
        size_t left = (size_t)(end - p);
        switch (type) {
        case MC_NBT_BYTE: case MC_NBT_SHORT: case MC_NBT_INT: case MC_NBT_LONG: case MC_NBT_FLOAT:
        case MC_NBT_DOUBLE:
            if (MC__UNLIKELY(left < P_FN(min_size)[type])) {
                fail(ps, at, MC_ERR_TRUNCATED, "%s needs more bytes than the %zu that remain",
                     mc_nbt_type_name((mc_nbt_type)type), left);
                return NULL;
            }
            p += P_FN(min_size)[type];
            break;
        case MC_NBT_STRING: {
            if (MC__UNLIKELY(left < 2)) {
                fail(ps, at, MC_ERR_TRUNCATED, "string length needs 2 bytes, %zu remain", left);
                return NULL;
            }
            size_t n = P_LD16(p);
            if (MC__UNLIKELY(n > left - 2)) {
                fail(ps, at, MC_ERR_TRUNCATED, "string length %zu exceeds remaining %zu bytes", n, left - 2);
                return NULL;
            }
            if (text && !P_TEXT_OK(ps, p + 2, n, end, "string"))
                return NULL;
            p += 2 + n;
            break;
        }
        case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY: {
            uint32_t n = 0;
            const char *tname = mc_nbt_type_name((mc_nbt_type)type);
            p = P_FN(read_count)(ps, p, end, &n, tname);
            if (!p)
                return NULL;
            uint64_t bytes = (uint64_t)n * (type == MC_NBT_BYTE_ARRAY ? 1 : type == MC_NBT_INT_ARRAY ? 4 : 8);
            if (MC__UNLIKELY(bytes > (uint64_t)(end - p))) {
                fail(ps, at, MC_ERR_TRUNCATED, "%s length %lld exceeds remaining %zu bytes", tname,
                     (long long)n, (size_t)(end - p));
                return NULL;
            }
            p += bytes;
            break;
        }
        case MC_NBT_LIST: {
            if (MC__UNLIKELY(sp >= room)) {
                fail(ps, at, MC_ERR_LIMIT, "nesting deeper than %u", ps->max_depth);
                return NULL;
            }
            unsigned elem = 0;
            uint32_t n = 0;
            p = P_FN(list_head)(ps, p, end, &elem, &n);
            if (!p)
                return NULL;
            if (elem != MC_NBT_STRING && elem < MC_NBT_BYTE_ARRAY) {
                p += (size_t)n * P_FN(min_size)[elem]; /* fixed-size elements */
                break;
            }
            if (elem == MC_NBT_COMPOUND && n >= 4) {
                n -= (uint32_t)P_FN(skip_shaped)(&p, end, n, text);
                if (n == 0)
                    break;
            }
            st[sp].left = n;
            st[sp].elem = (uint8_t)elem;
            sp++;
            break;
        }
        case MC_NBT_COMPOUND:
            if (MC__UNLIKELY(sp >= room)) {
                fail(ps, at, MC_ERR_LIMIT, "nesting deeper than %u", ps->max_depth);
                return NULL;
            }
            st[sp].left = UINT32_MAX;
            st[sp].elem = MC_NBT_END;
            sp++;
            break;
        default:
            fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", type);
            return NULL;
        }
        /* the next value: an element of the innermost open list, a child of
         * the innermost open compound, or done */
        for (;;) {
            if (sp == 0)
                return p;
            if (st[sp - 1].elem != MC_NBT_END) {
                if (st[sp - 1].left == 0) {
                    sp--;
                    continue;
                }
                st[sp - 1].left--;
                type = st[sp - 1].elem;
                break;
            }
            const uint8_t *at2 = p;
            size_t l2 = (size_t)(end - p);
            if (MC__UNLIKELY(l2 < 1)) {
                fail(ps, at2, MC_ERR_TRUNCATED, "compound not closed (end tag missing)");
                return NULL;
            }
            type = *p;
            if (type == MC_NBT_END) {
                p++;
                sp--;
                continue;
            }
            if (MC__UNLIKELY(type > MC_NBT_LONG_ARRAY)) {
                fail(ps, at2, MC_ERR_MALFORMED, "bad tag type %u", type);
                return NULL;
            }
            if (MC__UNLIKELY(l2 < 3)) {
                fail(ps, at2, MC_ERR_TRUNCATED, "key length needs 2 bytes, %zu remain", l2 - 1);
                return NULL;
            }
            size_t nlen = P_LD16(p + 1);
            if (MC__UNLIKELY(nlen > l2 - 3)) {
                fail(ps, p + 1, MC_ERR_TRUNCATED, "key length %zu exceeds remaining %zu bytes", nlen, l2 - 3);
                return NULL;
            }
            if (text && !P_TEXT_OK(ps, p + 3, nlen, end, "key"))
                return NULL;
            p += 3 + nlen;
            break;
        }
    }
}
#endif

/* Parses the payload of `root` (type, key and flags set; a list or a
 * compound) at ps->p, and everything inside it.
 *
 * Who writes which field of a container's children: a compound child gets
 * head, key and value when it is read, its `next` when the following
 * sibling is linked or the compound ends (and a container child gets its
 * v.first when it is opened or, for a compound, closed). */
static bool P_FN(parse_tree)(parser *ps, mc_nbt_tag *root)
{
    const uint8_t *p = ps->p;
    const uint8_t *const end = ps->end;
    uint8_t *acur = ps->doc->cur, *aend = ps->doc->end;
    /* The states of the open containers around the current one: the frame
     * below sp belongs to cur's parent (the root's "parent" is cur = NULL).
     * One frame per nesting level, so the depth check is a pointer compare. */
    pframe stack[MC_NBT_MAX_DEPTH];
    pframe *sp = stack;
    pframe *const sp_limit = stack + ps->max_depth;
    /* The open container: a compound gets its next child linked at *link and
     * has `count` children so far; a list of lists or compounds has its
     * elements v.first[0..count) started. */
    mc_nbt_tag *cur = NULL, **link = NULL;
    size_t count = 0;
    mc_nbt_tag *t = root;

    if (root->type == MC_NBT_LIST)
        goto open_list;

open_compound: /* t: a compound whose payload starts at p, inside cur */
    if (MC__UNLIKELY(sp >= sp_limit))
        goto too_deep;
    *sp++ = (pframe){cur, link, count};
    cur = t;
    link = &t->v.first;
    count = 0;

compound: /* children of cur, a compound, until its end tag */
    for (;;) {
        const uint8_t *at = p;
        unsigned type;
        const uint8_t *name;
        uint32_t nlen;
#if P_MODE != P_MODE_VARINT
        /* The usual case in one check: a type id and a key length. */
        size_t left = (size_t)(end - p);
        if (MC__LIKELY(left >= 3)) {
            type = p[0];
            if (MC__UNLIKELY(type - 1u >= MC_NBT_LONG_ARRAY)) {
                if (type == MC_NBT_END) {
                    p++;
                    break;
                }
                fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", type);
                goto failed;
            }
            nlen = P_LD16(p + 1);
            name = p + 3;
            if (MC__UNLIKELY(nlen > left - 3)) {
                fail(ps, p + 1, MC_ERR_TRUNCATED, "key length %u exceeds remaining %zu bytes",
                     (unsigned)nlen, left - 3);
                goto failed;
            }
            p = name + nlen;
#if P_MODE == P_MODE_BE
            if (MC__UNLIKELY(!P_FN(plain)(name, nlen, end))) {
                P_FN(converted) c = P_FN(str_convert)(ps, name, nlen, "key", acur);
                acur = ps->doc->cur;
                aend = ps->doc->end;
                if (!c.s)
                    goto failed;
                name = c.s;
                nlen = c.n;
            }
#endif
        } else
#endif
        {
            if (MC__UNLIKELY(p >= end)) {
                fail(ps, p, MC_ERR_TRUNCATED, "compound not closed (end tag missing)");
                goto failed;
            }
            type = *p++;
            if (type == MC_NBT_END)
                break;
            if (MC__UNLIKELY(type > MC_NBT_LONG_ARRAY)) {
                fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", type);
                goto failed;
            }
            p = P_FN(read_str)(ps, p, end, &name, &nlen, "key", &acur, &aend);
            if (!p)
                goto failed;
#if P_MODE == P_MODE_VARINT
            if (nlen > 65535) {
                fail(ps, at, MC_ERR_LIMIT, "key of %u bytes (limit 65535)", (unsigned)nlen);
                goto failed;
            }
#endif
        }
#if P_MODE != P_MODE_VARINT
        if (MC__UNLIKELY(ps->filter != NULL) && (size_t)(sp - stack) <= ps->filter->max_depth) {
            const char *pname = cur->name ? (const char *)cur->name : "";
            if (!ps->filter->keep(ps->filter->user, (unsigned)(sp - stack), pname, cur->name ? cur->name_len : 0,
                                  (const char *)name, nlen)) {
                const uint8_t *after =
                    ps->filter->take ? ps->filter->take(ps->filter->user, (unsigned)(sp - stack),
                                                        (const char *)name, nlen, type, p, end)
                                     : NULL;
                if (after && after >= p && after <= end) {
                    p = after;
                    continue;
                }
                p = P_FN(skip)(ps, p, end, type, (size_t)(sp - stack), ps->filter->check_text);
                if (!p)
                    goto failed;
                continue;
            }
        }
#endif
        mc_nbt_tag *k;
        P_TAKE(k, sizeof *k, p);
        count++;
        *link = k;
        link = &k->next;
        const uint64_t head = tag_head(type, AUX_ATTACHED, nlen, 0);
        const size_t vleft = (size_t)(end - p);
        /* Scalars and strings here (most tags), arrays through leaf(). */
        switch (type) {
#define P_SCALAR(size, value)             \
    if (MC__UNLIKELY(vleft < (size)))     \
        goto value_short;                 \
    SET_FRONT(k, head, name);             \
    k->v.bits = (value);                  \
    p += (size);                          \
    continue;
        case MC_NBT_BYTE: P_SCALAR(1, (uint64_t)(int64_t)(int8_t)p[0])
        case MC_NBT_SHORT: P_SCALAR(2, (uint64_t)(int64_t)(int16_t)P_LD16(p))
        case MC_NBT_FLOAT: P_SCALAR(4, (uint64_t)P_LD32(p))
        case MC_NBT_DOUBLE: P_SCALAR(8, P_LD64(p))
#if P_MODE != P_MODE_VARINT
        case MC_NBT_INT: P_SCALAR(4, (uint64_t)(int64_t)(int32_t)P_LD32(p))
        case MC_NBT_LONG: P_SCALAR(8, P_LD64(p))
#else
        case MC_NBT_INT: case MC_NBT_LONG:
#endif
#undef P_SCALAR
        case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
            ps->doc->cur = acur;
            p = P_FN(leaf)(ps, p, end, type, k, name, nlen);
            acur = ps->doc->cur;
            aend = ps->doc->end;
            if (!p)
                goto failed;
            continue;
        case MC_NBT_STRING: {
            const uint8_t *str = NULL;
            uint32_t n = 0;
            p = P_FN(read_str)(ps, p, end, &str, &n, "string", &acur, &aend);
            if (!p)
                goto failed;
            SET_FRONT(k, head | (uint64_t)n << 32, name);
            k->v.ptr = str;
            continue;
        }
        case MC_NBT_LIST:
            SET_FRONT(k, head, name);
            t = k;
            goto open_list;
        default: /* MC_NBT_COMPOUND (the type is 1..12 here) */
            SET_FRONT(k, head, name);
            t = k;
            goto open_compound;
        }
    value_short:
        fail(ps, p, MC_ERR_TRUNCATED, "%s needs more bytes than the %zu that remain",
             mc_nbt_type_name((mc_nbt_type)type), vleft);
        goto failed;
    }
    /* the end tag of cur */
    *link = NULL;
    if (MC__UNLIKELY(count > UINT32_MAX)) {
        fail(ps, p - 1, MC_ERR_LIMIT, "compound with too many keys");
        goto failed;
    }
    cur->count = (uint32_t)count;
    {
        /* The next compound of a list of compounds (a palette, the block
         * entities) at the same depth, without closing and reopening. */
        pframe *f = sp - 1;
        mc_nbt_tag *parent = f->cur;
        if (parent && parent->type == MC_NBT_LIST && f->count < parent->count) {
            cur = &parent->v.first[f->count++];
            link = &cur->v.first;
            count = 0;
            goto compound;
        }
    }
    goto close;

open_list: /* t: a list whose payload starts at p, inside cur */
    if (MC__UNLIKELY(sp >= sp_limit))
        goto too_deep;
    {
        unsigned elem = 0;
        uint32_t n = 0;
        p = P_FN(list_head)(ps, p, end, &elem, &n);
        if (!p)
            goto failed;
        t->aux = (uint8_t)(AUX_ATTACHED | AUX_CONTIG | elem);
        t->count = n;
        t->v.first = NULL;
        if (n == 0)
            goto resume;
#if SIZE_MAX <= UINT32_MAX
        if (n > SIZE_MAX / sizeof(mc_nbt_tag)) { /* 32-bit hosts */
            fail(ps, p, MC_ERR_LIMIT, "byte budget exceeded (list of %u tags)", (unsigned)n);
            goto failed;
        }
#endif
        mc_nbt_tag *kids;
        P_TAKE(kids, (size_t)n * sizeof(mc_nbt_tag), p);
        t->v.first = kids;
        switch (elem) {
        case MC_NBT_BYTE: case MC_NBT_SHORT: case MC_NBT_FLOAT: case MC_NBT_DOUBLE:
#if P_MODE != P_MODE_VARINT
        case MC_NBT_INT: case MC_NBT_LONG:
#endif
            /* Fixed-size elements: the count check above covered them all. */
            P_FN(fill_numbers)(kids, n, elem, p);
            p += (size_t)n * P_FN(min_size)[elem];
            goto resume;
        case MC_NBT_LIST: case MC_NBT_COMPOUND: {
            /* Fronts and links now, payloads as the loop reaches them. */
            const uint64_t head = tag_head(elem, AUX_ATTACHED, 0, 0);
            for (size_t i = 0; i < n; i++) {
                SET_FRONT(&kids[i], head, NULL);
                kids[i].next = &kids[i + 1];
            }
            kids[n - 1].next = NULL;
            *sp++ = (pframe){cur, link, count};
            cur = t;
            count = 0;
            goto list_elements;
        }
        default: /* strings, arrays, varint numbers: each element on its own */
            for (size_t i = 0; i < n; i++) {
                ps->doc->cur = acur;
                p = P_FN(leaf)(ps, p, end, elem, &kids[i], NULL, 0);
                acur = ps->doc->cur;
                aend = ps->doc->end;
                if (!p)
                    goto failed;
                kids[i].next = &kids[i + 1];
            }
            kids[n - 1].next = NULL;
            goto resume;
        }
    }

list_elements: /* the elements of cur, a list of lists or compounds */
    if (count < cur->count) {
        t = &cur->v.first[count++];
        if (t->type == MC_NBT_COMPOUND)
            goto open_compound;
        goto open_list;
    }
    /* fall through: cur is complete */
close: /* cur is complete: back to its parent */
    --sp;
    cur = sp->cur;
    link = sp->link;
    count = sp->count;
resume: /* continue with cur, whatever it is */
    if (!cur)
        goto done;
    if (cur->type == MC_NBT_COMPOUND)
        goto compound;
    goto list_elements;

too_deep:
    fail(ps, p, MC_ERR_LIMIT, "nesting deeper than %u", ps->max_depth);
    goto failed;
done:
    ps->p = p;
    ps->doc->cur = acur;
    return true;
failed:
    ps->doc->cur = acur;
    return false;
}

#undef P_TAKE
#undef SET_FRONT

/* The root: type id, name (unless nameless), payload. */
static bool P_FN(parse_root)(parser *ps, bool named)
{
    const uint8_t *at = ps->p;
    if (ps->p >= ps->end)
        return fail(ps, at, MC_ERR_TRUNCATED, "empty input");
    unsigned type = *ps->p++;
    if (type > MC_NBT_LONG_ARRAY)
        return fail(ps, at, MC_ERR_MALFORMED, "bad root tag type %u", type);
    mc_nbt_tag *root = arena_refill(ps, ps->doc->cur, sizeof(mc_nbt_tag), ps->p);
    if (!root)
        return false;
    uint8_t *acur = ps->doc->cur, *aend = ps->doc->end;
    const uint8_t *name = NULL;
    uint32_t nlen = 0;
    if (named && type != MC_NBT_END) {
        ps->p = P_FN(read_str)(ps, ps->p, ps->end, &name, &nlen, "root name", &acur, &aend);
        if (!ps->p)
            return false;
        if (nlen > 65535)
            return fail(ps, at, MC_ERR_LIMIT, "root name of %u bytes (limit 65535)", (unsigned)nlen);
    }
    SET_TAG(root, tag_head(type, AUX_ATTACHED, nlen, 0), name, first, NULL, NULL);
    ps->doc->root = root;
    if (type == MC_NBT_END)
        return true; /* "no tag" (network), or an empty file */
    ps->doc->cur = acur;
    if (type == MC_NBT_LIST || type == MC_NBT_COMPOUND)
        return P_FN(parse_tree)(ps, root);
    ps->p = P_FN(leaf)(ps, ps->p, ps->end, type, root, name, nlen);
    return ps->p != NULL;
}

#undef P_PLAIN
#undef P_TEXT_OK
#undef P_SHORT
#undef P_LD16
#undef P_LD16_PRE
#undef P_LD32
#undef P_LD64
#undef P_ORDER
#undef P_FN
#undef P_CAT
#undef P_CAT2
