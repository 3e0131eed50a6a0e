/*
 * compress.c: gzip/zlib detection, inflation and deflation for NBT files
 * (level.dat is gzip, region chunks are zlib, structure files gzip), and
 * mc_nbt_load, which puts inflation and format detection together.
 *
 * libdeflate works on whole buffers. The inflated size is not known up
 * front (gzip's trailer has it modulo 2^32, zlib has nothing), so we start
 * from a guess and double on LIBDEFLATE_INSUFFICIENT_SPACE, up to max_out.
 */
#include <stdio.h>

#include <libdeflate.h>

#include "core/inflate.h"
#include "nbt/nbt_internal.h"

const char *mc_nbt_compression_name(mc_nbt_compression c)
{
    switch (c) {
    case MC_NBT_UNCOMPRESSED: return "none";
    case MC_NBT_GZIP: return "gzip";
    case MC_NBT_ZLIB: return "zlib";
    }
    return "?";
}

mc_nbt_compression mc_nbt_detect_compression(const void *data, size_t len)
{
    const uint8_t *d = data;
    if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b)
        return MC_NBT_GZIP;
    /* zlib: CM 8, and the header checksum. An uncompressed Java NBT file
     * starts with a tag id (0..12), never 0x78. */
    if (len >= 2 && (d[0] & 0x0f) == 8 && (d[0] >> 4) <= 7 && ((d[0] << 8) | d[1]) % 31 == 0)
        return MC_NBT_ZLIB;
    return MC_NBT_UNCOMPRESSED;
}

mc_status mc_nbt_decompress(const void *data, size_t len, const mc_allocator *alloc, size_t max_out,
                            uint8_t **out, size_t *out_len, size_t *out_cap,
                            mc_nbt_compression *kind, mc_error *err)
{
    alloc = mc_alloc_or_default(alloc);
    if (!max_out)
        max_out = (size_t)1 << 30;
    mc_nbt_compression k = mc_nbt_detect_compression(data, len);
    if (kind)
        *kind = k;
    if (k == MC_NBT_UNCOMPRESSED) {
        if (len > max_out)
            return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "nbt: input larger than %zu bytes", max_out);
        uint8_t *p = alloc->alloc(alloc->user, len ? len : 1);
        if (!p)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "nbt: out of memory");
        if (len)
            memcpy(p, data, len);
        *out = p;
        *out_len = len;
        if (out_cap)
            *out_cap = len ? len : 1;
        return MC_OK;
    }
    size_t guess = len < ((size_t)1 << 20) ? len * 4 + 1024 : len * 2;
    if (k == MC_NBT_GZIP && len >= 18) {
        /* ISIZE: the size modulo 2^32, right for every sane file. */
        size_t isize = mc_load_u32le((const uint8_t *)data + len - 4);
        if (isize >= guess / 4 && isize <= max_out)
            guess = isize ? isize : 1;
    }
    mc_buf buf;
    mc_buf_init(&buf, alloc);
    char what[32];
    snprintf(what, sizeof what, "nbt: %s", mc_nbt_compression_name(k));
    mc_status st = mc__inflate_growing(NULL, k == MC_NBT_GZIP ? MC__INFLATE_GZIP : MC__INFLATE_ZLIB, data, len,
                                       guess, max_out, what, &buf, err);
    if (st != MC_OK) {
        mc_buf_free(&buf);
        return st;
    }
    *out = mc_buf_detach(&buf, out_len, out_cap);
    return MC_OK;
}

mc_status mc_nbt_compress(const void *data, size_t len, mc_nbt_compression kind, int level,
                          mc_buf *out, mc_error *err)
{
    if (kind == MC_NBT_UNCOMPRESSED) {
        mc_buf_put(out, data, len);
        return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "nbt: out of memory");
    }
    if (kind != MC_NBT_GZIP && kind != MC_NBT_ZLIB)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: unknown compression %d", (int)kind);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level > 0 && level <= 12 ? level : 6);
    if (!c)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "nbt: out of memory");
    size_t bound = kind == MC_NBT_GZIP ? libdeflate_gzip_compress_bound(c, len)
                                       : libdeflate_zlib_compress_bound(c, len);
    mc_status st = MC_OK;
    uint8_t *p = mc_buf_extend(out, bound);
    if (!p) {
        st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "nbt: out of memory");
    } else {
        size_t n = kind == MC_NBT_GZIP ? libdeflate_gzip_compress(c, data, len, p, bound)
                                       : libdeflate_zlib_compress(c, data, len, p, bound);
        out->len -= bound - n;
        if (!n)
            st = mc_error_set(err, MC_ERR_COMPRESSION, SIZE_MAX, "nbt: compression failed");
    }
    libdeflate_free_compressor(c);
    return st;
}

mc_status mc_nbt_load(mc_nbt_doc *doc, const void *data, size_t len, mc_nbt_format format,
                      const mc_nbt_limits *limits, mc_nbt_compression *compression,
                      mc_nbt_format *detected, mc_error *err)
{
    if (!doc || (!data && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "nbt: no document or no data");
    size_t max_out = limits && limits->max_bytes ? limits->max_bytes : MC_NBT_DEFAULT_MAX_BYTES;
    uint8_t *raw = NULL;
    size_t raw_len = 0, raw_cap = 0;
    mc_nbt_compression kind;
    const mc_allocator *a = &doc->alloc;
    mc_status st = mc_nbt_decompress(data, len, a, max_out, &raw, &raw_len, &raw_cap, &kind, err);
    if (st != MC_OK)
        return st;
    if (compression)
        *compression = kind;
    if (format == MC_NBT_AUTO) {
        st = mc_nbt_detect(raw, raw_len, &format);
        if (st != MC_OK) {
            /* No encoding reads it all: report why the Java reading fails
             * (with its offset), the most likely intent. */
            format = MC_NBT_JAVA;
        }
    }
    if (detected)
        *detected = format;
    st = mc_nbt_parse_ex(doc, raw, raw_len, format, MC_NBT_PARSE_COPY, limits, NULL, err);
    a->free(a->user, raw, raw_cap);
    return st;
}
