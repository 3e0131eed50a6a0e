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
 * The parser is one recursive-descent pass. Recursion follows nesting and is
 * cut off at the depth limit. Every length is checked against the bytes
 * that remain before anything is allocated, and every allocation comes out of
 * the document's arena (budgeted).
 */
#define P_CAT2(a, b) a##_##b
#define P_CAT(a, b) P_CAT2(a, b)
#define P_FN(name) P_CAT(name, P_SUFFIX)

#if P_MODE == P_MODE_BE
#define P_LD16(p) mc_load_u16be(p)
#define P_LD32(p) mc_load_u32be(p)
#define P_LD64(p) mc_load_u64be(p)
#define P_ORDER MC_NBT_ORDER_BE
#else
#define P_LD16(p) mc_load_u16le(p)
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

/* Reads a length-prefixed string (a value or a key); sets *s, *n. */
static inline MC__HOT bool P_FN(read_str)(parser *ps, const uint8_t **s, uint32_t *n, const char *what)
{
    const uint8_t *at = ps->p;
    uint64_t len;
#if P_MODE == P_MODE_VARINT
    if (!read_leb(ps, 5, 32, &len, what))
        return false;
    if (len > (uint64_t)(ps->end - ps->p))
        return fail(ps, at, MC_ERR_TRUNCATED, "%s length %llu exceeds remaining %zu bytes", what,
                    (unsigned long long)len, (size_t)(ps->end - ps->p));
    const uint8_t *str = ps->p;
    ps->p += len;
#else
    size_t left = (size_t)(ps->end - at);
    if (left < 2)
        return fail(ps, at, MC_ERR_TRUNCATED, "%s length needs 2 bytes, %zu remain", what, left);
    len = P_LD16(at);
    if (len > left - 2)
        return fail(ps, at, MC_ERR_TRUNCATED, "%s length %llu exceeds remaining %zu bytes", what,
                    (unsigned long long)len, left - 2);
    const uint8_t *str = at + 2;
    ps->p = str + len;
#endif
#if P_MODE == P_MODE_BE
    /* Java: modified UTF-8. ASCII (the common case) is used in place. */
    /* Eight bytes at a time: a byte >= 0x80 sets its top bit in w, a zero
     * byte sets it in w - 0x01..01 (a borrow only moves upwards, so bytes
     * past the string cannot disturb it; false alarms only send us to the
     * exact check below). A short string is one 8-byte load when the input
     * has 8 bytes from its start, the excess masked off. */
    static const uint64_t tops_below[8] = {
        0, 0x80ull, 0x8080ull, 0x808080ull, 0x80808080ull, 0x8080808080ull, 0x808080808080ull,
        0x80808080808080ull};
    const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
    bool plain;
    if (len < 8 && (size_t)(ps->end - str) >= 8) {
        uint64_t w = mc_load_u64le(str);
        plain = !(((w - ones) | w) & tops_below[len]);
    } else if (len >= 8) {
        uint64_t acc = 0;
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            uint64_t w = mc_load_u64le(str + i);
            acc |= (w - ones) | w;
        }
        uint64_t w = mc_load_u64le(str + len - 8); /* the tail, overlapping */
        acc |= (w - ones) | w;
        plain = !(acc & tops);
    } else {
        plain = true; /* a short string at the very end of the input */
        for (size_t i = 0; i < len; i++)
            plain &= (uint8_t)(str[i] - 1) < 0x7F;
    }
    if (!plain) {
        size_t bad = 0;
        int r = mc__mutf8_check(str, (size_t)len, &bad);
        if (r < 0)
            return fail(ps, str + bad, MC_ERR_MALFORMED, "%s is not valid modified UTF-8 (byte 0x%02x)",
                        what, str[bad]);
        if (r > 0) {
            uint8_t *out = arena(ps, (size_t)len, str);
            if (!out)
                return false;
            len = mc__mutf8_to_utf8(str, (size_t)len, out);
            str = out;
        }
    }
#endif
    *s = str;
    *n = (uint32_t)len;
    return true;
}

/* Reads a list or array length: a signed count that must not be negative. */
static inline bool P_FN(read_count)(parser *ps, int64_t *count, const char *what)
{
    const uint8_t *at = ps->p;
#if P_MODE == P_MODE_VARINT
    uint64_t z = 0;
    if (!read_leb(ps, 5, 32, &z, what))
        return false;
    int32_t v = (int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
#else
    if (ps->end - ps->p < 4)
        return fail(ps, at, MC_ERR_TRUNCATED, "%s length needs 4 bytes, %zu remain", what,
                    (size_t)(ps->end - ps->p));
    int32_t v = (int32_t)P_LD32(ps->p);
    ps->p += 4;
#endif
    if (v < 0)
        return fail(ps, at, MC_ERR_MALFORMED, "negative %s length %d", what, (int)v);
    *count = v;
    return true;
}

static bool P_FN(parse_payload)(parser *ps, mc_nbt_tag *t, unsigned depth);

/* Scalars, strings and arrays: everything but lists and compounds. */
static inline MC__HOT bool P_FN(parse_leaf)(parser *ps, mc_nbt_tag *t, unsigned type)
{
    const uint8_t *at = ps->p;
    size_t left = (size_t)(ps->end - ps->p);
    switch (type) {
    case MC_NBT_BYTE:
        if (left < 1)
            goto short_input;
        t->v.bits = (uint64_t)(int64_t)(int8_t)ps->p[0];
        ps->p += 1;
        return true;
    case MC_NBT_SHORT:
        if (left < 2)
            goto short_input;
        t->v.bits = (uint64_t)(int64_t)(int16_t)P_LD16(ps->p);
        ps->p += 2;
        return true;
    case MC_NBT_INT:
#if P_MODE == P_MODE_VARINT
    {
        uint64_t z = 0;
        if (!read_leb(ps, 5, 32, &z, "int"))
            return false;
        t->v.bits = (uint64_t)(int64_t)(int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
        return true;
    }
#else
        if (left < 4)
            goto short_input;
        t->v.bits = (uint64_t)(int64_t)(int32_t)P_LD32(ps->p);
        ps->p += 4;
        return true;
#endif
    case MC_NBT_LONG:
#if P_MODE == P_MODE_VARINT
    {
        uint64_t z = 0;
        if (!read_leb(ps, 10, 64, &z, "long"))
            return false;
        t->v.bits = (z >> 1) ^ (0ull - (z & 1));
        return true;
    }
#else
        if (left < 8)
            goto short_input;
        t->v.bits = P_LD64(ps->p);
        ps->p += 8;
        return true;
#endif
    case MC_NBT_FLOAT:
        if (left < 4)
            goto short_input;
        t->v.bits = P_LD32(ps->p);
        ps->p += 4;
        return true;
    case MC_NBT_DOUBLE:
        if (left < 8)
            goto short_input;
        t->v.bits = P_LD64(ps->p);
        ps->p += 8;
        return true;
    case MC_NBT_STRING: {
        const uint8_t *s = NULL;
        uint32_t n = 0;
        if (!P_FN(read_str)(ps, &s, &n, "string"))
            return false;
        t->v.ptr = s;
        t->count = n;
        return true;
    }
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY: {
        int64_t count = 0;
        if (!P_FN(read_count)(ps, &count, mc_nbt_type_name((mc_nbt_type)t->type)))
            return false;
        size_t esize = t->type == MC_NBT_BYTE_ARRAY ? 1 : t->type == MC_NBT_INT_ARRAY ? 4 : 8;
        left = (size_t)(ps->end - ps->p);
#if P_MODE == P_MODE_VARINT
        if (esize > 1) {
            /* Network arrays hold varints: decode into host order. */
            if ((uint64_t)count > left)
                return fail(ps, at, MC_ERR_TRUNCATED, "%s length %lld exceeds remaining %zu bytes",
                            mc_nbt_type_name((mc_nbt_type)t->type), (long long)count, left);
            uint8_t *out = arena(ps, (size_t)count * esize, NULL);
            if (!out && count)
                return false;
            for (int64_t i = 0; i < count; i++) {
                uint64_t z = 0;
                if (!read_leb(ps, esize == 4 ? 5 : 10, esize * 8, &z, "array element"))
                    return false;
                if (esize == 4) {
                    int32_t v = (int32_t)((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
                    memcpy(out + i * 4, &v, 4);
                } else {
                    uint64_t v = (z >> 1) ^ (0ull - (z & 1));
                    memcpy(out + i * 8, &v, 8);
                }
            }
            t->v.ptr = out;
            t->count = (uint32_t)count;
            t->aux = (uint8_t)((t->aux & AUX_ATTACHED) | MC_NBT_ORDER_NATIVE);
            return true;
        }
#endif
        if ((uint64_t)count * esize > left)
            return fail(ps, at, MC_ERR_TRUNCATED, "%s length %lld exceeds remaining %zu bytes",
                        mc_nbt_type_name((mc_nbt_type)t->type), (long long)count, left);
        /* Zero-copy: the array stays in the input, in its byte order. */
        t->v.ptr = ps->p;
        t->count = (uint32_t)count;
        t->aux = (uint8_t)((t->aux & AUX_ATTACHED) | P_ORDER);
        ps->p += (size_t)count * esize;
        return true;
    }
    default:
        return fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", t->type);
    }
short_input:
    return fail(ps, at, MC_ERR_TRUNCATED, "%s needs more bytes than the %zu that remain",
                mc_nbt_type_name((mc_nbt_type)t->type), left);
}

static bool P_FN(parse_list)(parser *ps, mc_nbt_tag *t, unsigned depth)
{
    const uint8_t *at = ps->p;
    if (ps->p >= ps->end)
        return fail(ps, at, MC_ERR_TRUNCATED, "list element type missing");
    unsigned elem = *ps->p++;
    if (elem > MC_NBT_LONG_ARRAY)
        return fail(ps, at, MC_ERR_MALFORMED, "bad list element type %u", elem);
    int64_t count = 0;
    if (!P_FN(read_count)(ps, &count, "list"))
        return false;
    t->aux = (uint8_t)((t->aux & AUX_ATTACHED) | elem | AUX_CONTIG);
    t->count = 0;
    t->v.first = NULL;
    if (count == 0)
        return true;
    if (elem == MC_NBT_END)
        return fail(ps, at, MC_ERR_MALFORMED, "list of %lld end tags", (long long)count);
    size_t left = (size_t)(ps->end - ps->p);
    if ((uint64_t)count * P_FN(min_size)[elem] > left)
        return fail(ps, at, MC_ERR_TRUNCATED, "list of %lld %s exceeds remaining %zu bytes",
                    (long long)count, mc_nbt_type_name((mc_nbt_type)elem), left);
    mc_nbt_tag *kids = arena(ps, (size_t)count * sizeof(mc_nbt_tag), NULL);
    if (!kids)
        return false;
    size_t n = (size_t)count;
    /* Elements are one array, linked as well so that iteration is uniform. */
    for (size_t i = 0; i < n; i++) {
        kids[i] = (mc_nbt_tag){.type = (uint8_t)elem, .aux = AUX_ATTACHED, .next = &kids[i + 1]};
    }
    kids[n - 1].next = NULL;
    t->v.first = kids;
    t->count = (uint32_t)n;
    if (elem == MC_NBT_LIST || elem == MC_NBT_COMPOUND) {
        for (size_t i = 0; i < n; i++)
            if (!P_FN(parse_payload)(ps, &kids[i], depth))
                return false;
    } else if (elem == MC_NBT_BYTE || elem == MC_NBT_SHORT || elem == MC_NBT_FLOAT ||
               elem == MC_NBT_DOUBLE
#if P_MODE != P_MODE_VARINT
               || elem == MC_NBT_INT || elem == MC_NBT_LONG
#endif
    ) {
        /* Fixed-size elements: the count check above covered them all. */
        const uint8_t *q = ps->p;
        switch (elem) {
        case MC_NBT_BYTE:
            for (size_t i = 0; i < n; i++)
                kids[i].v.bits = (uint64_t)(int64_t)(int8_t)q[i];
            break;
        case MC_NBT_SHORT:
            for (size_t i = 0; i < n; i++)
                kids[i].v.bits = (uint64_t)(int64_t)(int16_t)P_LD16(q + 2 * i);
            break;
        case MC_NBT_INT:
            for (size_t i = 0; i < n; i++)
                kids[i].v.bits = (uint64_t)(int64_t)(int32_t)P_LD32(q + 4 * i);
            break;
        case MC_NBT_FLOAT:
            for (size_t i = 0; i < n; i++)
                kids[i].v.bits = P_LD32(q + 4 * i);
            break;
        default: /* LONG, DOUBLE */
            for (size_t i = 0; i < n; i++)
                kids[i].v.bits = P_LD64(q + 8 * i);
            break;
        }
        ps->p += n * P_FN(min_size)[elem];
    } else {
        for (size_t i = 0; i < n; i++)
            if (!P_FN(parse_leaf)(ps, &kids[i], elem))
                return false;
    }
    return true;
}

static bool P_FN(parse_compound)(parser *ps, mc_nbt_tag *t, unsigned depth)
{
    mc_nbt_tag **link = &t->v.first;
    uint32_t count = 0;
    t->v.first = NULL;
    t->aux &= AUX_ATTACHED;
    for (;;) {
        const uint8_t *at = ps->p;
        if (ps->p >= ps->end)
            return fail(ps, at, MC_ERR_TRUNCATED, "compound not closed (end tag missing)");
        unsigned type = *ps->p++;
        if (type == MC_NBT_END)
            break;
        if (type > MC_NBT_LONG_ARRAY)
            return fail(ps, at, MC_ERR_MALFORMED, "bad tag type %u", type);
        mc_nbt_tag *k = arena(ps, sizeof *k, NULL);
        if (!k)
            return false;
        const uint8_t *name = NULL;
        uint32_t nlen = 0;
        if (!P_FN(read_str)(ps, &name, &nlen, "key"))
            return false;
        if (nlen > 65535)
            return fail(ps, at, MC_ERR_LIMIT, "key of %u bytes (limit 65535)", (unsigned)nlen);
        *k = (mc_nbt_tag){.type = (uint8_t)type, .aux = AUX_ATTACHED, .name_len = (uint16_t)nlen, .name = name};
        *link = k;
        link = &k->next;
        if (count == UINT32_MAX)
            return fail(ps, at, MC_ERR_LIMIT, "compound with too many keys");
        count++;
        if (type == MC_NBT_LIST || type == MC_NBT_COMPOUND) {
            if (!P_FN(parse_payload)(ps, k, depth))
                return false;
        } else if (!P_FN(parse_leaf)(ps, k, type)) {
            return false;
        }
    }
    t->count = count;
    return true;
}

/* Parses the payload of t (whose type is set) at nesting `depth` (the number
 * of lists/compounds around it). */
static bool P_FN(parse_payload)(parser *ps, mc_nbt_tag *t, unsigned depth)
{
    if (t->type == MC_NBT_LIST || t->type == MC_NBT_COMPOUND) {
        if (depth + 1 > ps->max_depth)
            return fail(ps, ps->p, MC_ERR_LIMIT, "nesting deeper than %u", ps->max_depth);
        return t->type == MC_NBT_LIST ? P_FN(parse_list)(ps, t, depth + 1)
                                      : P_FN(parse_compound)(ps, t, depth + 1);
    }
    return P_FN(parse_leaf)(ps, t, t->type);
}

/* The root: type id, name (unless nameless), payload. */
static bool P_FN(parse_root)(parser *ps, bool named)
{
    const uint8_t *at = ps->p;
    if (ps->p >= ps->end)
        return fail(ps, at, MC_ERR_TRUNCATED, "empty input");
    unsigned type = *ps->p++;
    if (type > MC_NBT_LONG_ARRAY)
        return fail(ps, at, MC_ERR_MALFORMED, "bad root tag type %u", type);
    mc_nbt_tag *root = arena(ps, sizeof *root, NULL);
    if (!root)
        return false;
    memset(root, 0, sizeof *root);
    root->type = (uint8_t)type;
    root->aux = AUX_ATTACHED;
    ps->doc->root = root;
    if (type == MC_NBT_END)
        return true; /* "no tag" (network), or an empty file */
    if (named) {
        const uint8_t *name = NULL;
        uint32_t nlen = 0;
        if (!P_FN(read_str)(ps, &name, &nlen, "root name"))
            return false;
        if (nlen > 65535)
            return fail(ps, at, MC_ERR_LIMIT, "root name of %u bytes (limit 65535)", (unsigned)nlen);
        root->name = name;
        root->name_len = (uint16_t)nlen;
    }
    return P_FN(parse_payload)(ps, root, 0);
}

#undef P_LD16
#undef P_LD32
#undef P_LD64
#undef P_ORDER
#undef P_FN
#undef P_CAT
#undef P_CAT2
