/*
 * region_compress.c: the compressions a chunk record can use, behind two
 * calls. Deflate-based ones (gzip, zlib) go through libdeflate, which works
 * on whole buffers: the output size is not stored (zlib) or only modulo 4 GiB
 * (gzip), so inflating guesses a size, and doubles it while libdeflate says
 * the space was too small, up to the caller's limit. Trailing bytes after a
 * complete deflate stream are accepted (the game's stream readers stop at the
 * end of the stream as well). LZ4 is the lz4-java block stream of
 * lz4block.c; "none" is a copy; "custom" (127) is named, never guessed.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>

#include "anvil/anvil_private.h"
#include "core/inflate.h"

const char *mc_compression_name(int compression_id)
{
    switch (compression_id & 0x7F) {
    case MC_COMPRESSION_GZIP: return "gzip";
    case MC_COMPRESSION_ZLIB: return "zlib";
    case MC_COMPRESSION_NONE: return "none";
    case MC_COMPRESSION_LZ4: return "lz4";
    case MC_COMPRESSION_CUSTOM: return "custom";
    default: return "unknown";
    }
}

bool mc_compression_parse(const char *name, mc_compression *out)
{
    static const struct { const char *name; mc_compression c; } names[] = {
        {"gzip", MC_COMPRESSION_GZIP}, {"zlib", MC_COMPRESSION_ZLIB},
        {"deflate", MC_COMPRESSION_ZLIB}, {"none", MC_COMPRESSION_NONE},
        {"uncompressed", MC_COMPRESSION_NONE}, {"lz4", MC_COMPRESSION_LZ4},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name && !strcmp(name, names[i].name)) {
            *out = names[i].c;
            return true;
        }
    return false;
}

mc_status mc__decompress(struct libdeflate_decompressor *dec, int compression, const void *in,
                         size_t in_len, mc_buf *out, size_t max_out, mc_error *err)
{
    const uint8_t *src = in;
    if (max_out == 0)
        max_out = MC__DEFAULT_MAX_CHUNK;
    switch (compression) {
    case MC_COMPRESSION_NONE:
        if (in_len > max_out)
            return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX,
                                "none: %zu bytes exceed limit %zu", in_len, max_out);
        if (in_len) /* 0 bytes into an empty buffer: NULL + 0 in mc_buf_extend */
            mc_buf_put(out, in, in_len);
        return mc_buf_ok(out) ? MC_OK
                              : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    case MC_COMPRESSION_LZ4:
        return mc__lz4block_decode(in, in_len, out, max_out, err);
    case MC_COMPRESSION_GZIP:
    case MC_COMPRESSION_ZLIB: {
        /* Chunk NBT inflates 5-40x; a failed try costs a whole inflate, so
         * start big (the caller's buffer is normally reused, making the
         * reservation free) and double from there. */
        size_t guess = in_len * 8 > ((size_t)256 << 10) ? in_len * 8 : ((size_t)256 << 10);
        if (compression == MC_COMPRESSION_GZIP && in_len >= 18)
            guess = mc_load_u32le(src + in_len - 4); /* ISIZE: a hint, not trusted */
        mc_status st = compression == MC_COMPRESSION_GZIP
            ? mc__inflate_growing(dec, MC__INFLATE_GZIP, src, in_len, guess, max_out, "gzip", out, err)
            : mc__inflate_growing(dec, MC__INFLATE_ZLIB, src, in_len, guess, max_out, "zlib", out, err);
        return st;
    }
    case MC_COMPRESSION_CUSTOM: {
        mc_reader r;
        mc_reader_init(&r, in, in_len, "region", err);
        size_t name_len = 0;
        const uint8_t *name = mc_read_str_u16be(&r, &name_len);
        if (!name)
            return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                                "custom compression with an unreadable name");
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "custom compression \"%.*s\" is not supported",
                            (int)(name_len > 64 ? 64 : name_len), (const char *)name);
    }
    default:
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "unknown compression id %d",
                            compression);
    }
}

mc_status mc_region_decompress(int compression, const void *in, size_t in_len, mc_buf *out,
                               size_t max_out, mc_error *err)
{
    return mc__decompress(NULL, compression, in, in_len, out, max_out, err);
}

void mc__compressors_free(mc__compressors *c)
{
    if (c->deflater)
        libdeflate_free_compressor(c->deflater);
    free(c->lz4);
    c->deflater = NULL;
    c->lz4 = NULL;
}

mc_status mc__compress(mc__compressors *reuse, mc_compression compression, int level, const void *in,
                       size_t in_len, mc_buf *out, mc_error *err)
{
    if (level <= 0)
        level = 6;
    if (level > 12)
        level = 12;
    switch (compression) {
    case MC_COMPRESSION_NONE:
        if (in_len) /* 0 bytes into an empty buffer: NULL + 0 in mc_buf_extend */
            mc_buf_put(out, in, in_len);
        return mc_buf_ok(out) ? MC_OK
                              : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    case MC_COMPRESSION_LZ4:
        return mc__lz4block_encode(&reuse->lz4, in, in_len, out, err);
    case MC_COMPRESSION_GZIP:
    case MC_COMPRESSION_ZLIB: {
        /* a compressor costs its tables (hundreds of KB) to set up: kept
         * by callers that compress many records (*reuse) */
        struct libdeflate_compressor *c = reuse->deflater ? reuse->deflater : libdeflate_alloc_compressor(level);
        if (!c)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        reuse->deflater = c;
        bool gz = compression == MC_COMPRESSION_GZIP;
        size_t bound = gz ? libdeflate_gzip_compress_bound(c, in_len)
                          : libdeflate_zlib_compress_bound(c, in_len);
        if (!mc_buf_reserve(out, bound))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        size_t n = gz ? libdeflate_gzip_compress(c, in, in_len, out->data + out->len, bound)
                      : libdeflate_zlib_compress(c, in, in_len, out->data + out->len, bound);
        if (n == 0)
            return mc_error_set(err, MC_ERR_COMPRESSION, SIZE_MAX, "deflate failed");
        out->len += n;
        return MC_OK;
    }
    default:
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "cannot write compression id %d", (int)compression);
    }
}

mc_status mc_region_compress(mc_compression compression, int level, const void *in,
                             size_t in_len, mc_buf *out, mc_error *err)
{
    mc__compressors c = {NULL, NULL};
    mc_status st = mc__compress(&c, compression, level, in, in_len, out, err);
    mc__compressors_free(&c);
    return st;
}
