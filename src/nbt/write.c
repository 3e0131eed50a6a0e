/*
 * write.c: writing a tree as binary NBT in every encoding.
 *
 * The writer is the parser's mirror, so that parse -> write gives back the
 * input byte for byte: arrays still in the input's byte order are copied in
 * one memcpy, strings that need no modified-UTF-8 conversion are copied as
 * they are, and varints are written in their shortest form (the only form
 * the parser accepts). Recursion follows the tree and stops at
 * MC_NBT_MAX_DEPTH, which only a tree built through the API can exceed.
 */
#include "nbt/nbt_internal.h"

enum { W_BE, W_LE, W_VARINT };

typedef struct writer {
    mc_buf *out;
    int mode;
    bool mutf8; /* Java: strings in modified UTF-8 */
    mc_status status;
    mc_error *err;
} writer;

static bool wfail(writer *w, mc_status s, const char *msg)
{
    if (w->status == MC_OK) {
        w->status = s;
        mc_error_set(w->err, s, SIZE_MAX, "nbt: %s", msg);
    }
    return false;
}

static inline void put16(writer *w, uint16_t v)
{
    if (w->mode == W_BE)
        mc_buf_put_u16be(w->out, v);
    else
        mc_buf_put_u16le(w->out, v);
}

static inline void put32(writer *w, uint32_t v)
{
    if (w->mode == W_BE)
        mc_buf_put_u32be(w->out, v);
    else
        mc_buf_put_u32le(w->out, v);
}

static inline void put64(writer *w, uint64_t v)
{
    if (w->mode == W_BE)
        mc_buf_put_u64be(w->out, v);
    else
        mc_buf_put_u64le(w->out, v);
}

/* List and array lengths: int32, zigzag varint on the Bedrock network. */
static inline bool put_count(writer *w, size_t n)
{
    if (n > INT32_MAX)
        return wfail(w, MC_ERR_RANGE, "list or array longer than 2^31-1");
    if (w->mode == W_VARINT)
        mc_buf_put_zigzag32(w->out, (int32_t)n);
    else
        put32(w, (uint32_t)n);
    return true;
}

static bool put_str(writer *w, const uint8_t *s, size_t n)
{
    if (w->mutf8 && !mc__utf8_is_mutf8(s, n)) {
        /* Bytes that are not UTF-8 (possible in trees read from Bedrock or
         * built by hand) have no modified UTF-8 form. */
        if (mc__utf8_check_wtf8(s, n) != 0)
            return wfail(w, MC_ERR_MALFORMED, "string is not valid UTF-8; Java NBT cannot hold it");
        size_t m = mc__utf8_to_mutf8_len(s, n);
        if (m > 65535)
            return wfail(w, MC_ERR_RANGE, "string longer than 65535 bytes (modified UTF-8)");
        put16(w, (uint16_t)m);
        uint8_t *p = mc_buf_extend(w->out, m);
        if (p)
            mc__utf8_to_mutf8(s, n, p);
        return true;
    }
    if (w->mode == W_VARINT) {
        if (n > UINT32_MAX)
            return wfail(w, MC_ERR_RANGE, "string too long");
        mc_buf_put_uvarint32(w->out, (uint32_t)n);
    } else {
        if (n > 65535)
            return wfail(w, MC_ERR_RANGE, "string longer than 65535 bytes");
        put16(w, (uint16_t)n);
    }
    mc_buf_put(w->out, s, n);
    return true;
}

static void put_array(writer *w, const mc_nbt_tag *t)
{
    size_t es = t->type == MC_NBT_BYTE_ARRAY ? 1 : t->type == MC_NBT_INT_ARRAY ? 4 : 8;
    mc_nbt_array a = {0};
    mc_nbt_get_array(t, (mc_nbt_type)t->type, &a);
    if (!put_count(w, a.count))
        return;
    if (es == 1) {
        mc_buf_put(w->out, a.data, a.count);
        return;
    }
    if (w->mode == W_VARINT) {
        for (size_t i = 0; i < a.count; i++) {
            if (es == 4)
                mc_buf_put_zigzag32(w->out, mc_nbt_array_i32(&a, i));
            else
                mc_buf_put_zigzag64(w->out, mc_nbt_array_i64(&a, i));
        }
        return;
    }
    mc_nbt_order want = w->mode == W_BE ? MC_NBT_ORDER_BE : MC_NBT_ORDER_LE;
    mc_nbt_order native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? MC_NBT_ORDER_LE : MC_NBT_ORDER_BE;
    mc_nbt_order have = a.order == MC_NBT_ORDER_NATIVE ? native : a.order;
    uint8_t *p = mc_buf_extend(w->out, a.count * es);
    if (!p)
        return;
    if (have == want) {
        memcpy(p, a.data, a.count * es);
    } else if (es == 4) {
        for (size_t i = 0; i < a.count; i++) {
            uint32_t v;
            memcpy(&v, a.data + i * 4, 4);
            v = __builtin_bswap32(v);
            memcpy(p + i * 4, &v, 4);
        }
    } else {
        for (size_t i = 0; i < a.count; i++) {
            uint64_t v;
            memcpy(&v, a.data + i * 8, 8);
            v = __builtin_bswap64(v);
            memcpy(p + i * 8, &v, 8);
        }
    }
}

static bool put_payload(writer *w, const mc_nbt_tag *t, unsigned depth)
{
    switch (t->type) {
    case MC_NBT_END:
        return true;
    case MC_NBT_BYTE:
        mc_buf_put_u8(w->out, (uint8_t)t->v.bits);
        return true;
    case MC_NBT_SHORT:
        put16(w, (uint16_t)t->v.bits);
        return true;
    case MC_NBT_INT:
        if (w->mode == W_VARINT)
            mc_buf_put_zigzag32(w->out, (int32_t)t->v.bits);
        else
            put32(w, (uint32_t)t->v.bits);
        return true;
    case MC_NBT_LONG:
        if (w->mode == W_VARINT)
            mc_buf_put_zigzag64(w->out, (int64_t)t->v.bits);
        else
            put64(w, t->v.bits);
        return true;
    case MC_NBT_FLOAT:
        put32(w, (uint32_t)t->v.bits);
        return true;
    case MC_NBT_DOUBLE:
        put64(w, t->v.bits);
        return true;
    case MC_NBT_STRING:
        return put_str(w, t->v.ptr, t->count);
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
        put_array(w, t);
        return w->status == MC_OK;
    case MC_NBT_LIST: {
        if (depth + 1 > MC__WRITE_MAX_DEPTH)
            return wfail(w, MC_ERR_LIMIT, "tree nested deeper than 512");
        mc_buf_put_u8(w->out, t->count ? mc__list_elem(t) : (uint8_t)mc__list_elem(t));
        if (!put_count(w, t->count))
            return false;
        for (const mc_nbt_tag *c = t->count ? t->v.first : NULL; c; c = c->next)
            if (!put_payload(w, c, depth + 1))
                return false;
        return true;
    }
    case MC_NBT_COMPOUND: {
        if (depth + 1 > MC__WRITE_MAX_DEPTH)
            return wfail(w, MC_ERR_LIMIT, "tree nested deeper than 512");
        for (const mc_nbt_tag *c = t->count ? t->v.first : NULL; c; c = c->next) {
            mc_buf_put_u8(w->out, c->type);
            if (!put_str(w, c->name ? c->name : (const uint8_t *)"", c->name_len) ||
                !put_payload(w, c, depth + 1))
                return false;
        }
        mc_buf_put_u8(w->out, 0);
        return true;
    }
    default:
        return wfail(w, MC_ERR_INVALID_ARG, "bad tag type in tree");
    }
}

static mc_status write_root(const mc_nbt_tag *tag, const char *name, size_t name_len,
                            mc_nbt_format format, uint32_t header_version, mc_buf *out, mc_error *err)
{
    if (!out || !tag)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: nothing to write");
    if (!mc_buf_ok(out))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "nbt: output buffer failed earlier");
    writer w = {out, W_BE, false, MC_OK, err};
    bool named = true;
    switch (format) {
    case MC_NBT_JAVA: w.mutf8 = true; break;
    case MC_NBT_JAVA_NETWORK: w.mutf8 = true; named = false; break;
    case MC_NBT_BEDROCK: case MC_NBT_BEDROCK_LEVEL_DAT: w.mode = W_LE; break;
    case MC_NBT_BEDROCK_NETWORK: w.mode = W_VARINT; break;
    default:
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: cannot write format %d", (int)format);
    }
    size_t start = out->len;
    if (format == MC_NBT_BEDROCK_LEVEL_DAT) {
        mc_buf_put_u32le(out, header_version);
        mc_buf_put_u32le(out, 0); /* patched below */
    }
    mc_buf_put_u8(out, tag->type);
    if (tag->type != MC_NBT_END) {
        if (named)
            put_str(&w, name ? (const uint8_t *)name : (const uint8_t *)"", name ? name_len : 0);
        if (w.status == MC_OK)
            put_payload(&w, tag, 0);
    }
    if (w.status == MC_OK && !mc_buf_ok(out))
        wfail(&w, MC_ERR_NOMEM, "out of memory");
    if (w.status == MC_OK && format == MC_NBT_BEDROCK_LEVEL_DAT) {
        size_t plen = out->len - start - 8;
        if (plen > UINT32_MAX)
            wfail(&w, MC_ERR_RANGE, "level.dat payload over 4 GiB");
        else
            mc_store_u32le(out->data + start + 4, (uint32_t)plen);
    }
    if (w.status != MC_OK) {
        if (mc_buf_ok(out))
            out->len = start;
        return w.status;
    }
    return MC_OK;
}

mc_status mc_nbt_write_tag(const mc_nbt_tag *tag, const char *name, size_t name_len,
                           mc_nbt_format format, mc_buf *out, mc_error *err)
{
    return write_root(tag, name, name_len, format, 10, out, err);
}

mc_status mc_nbt_write(const mc_nbt_doc *doc, mc_nbt_format format, mc_buf *out, mc_error *err)
{
    if (!doc || !doc->root)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: empty document");
    size_t nlen;
    const char *name = mc_nbt_doc_root_name(doc, &nlen);
    return write_root(doc->root, name, nlen, format, doc->header_version, out, err);
}
