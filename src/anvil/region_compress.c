/*
 * region_compress.c: the compressions a chunk record can use, behind two
 * calls. Deflate-based ones (gzip, zlib) go through libdeflate, which works
 * on whole buffers: the output size is not stored (zlib) or only modulo 4 GiB
 * (gzip), so inflating guesses a size, and doubles it while libdeflate says
 * the space was too small, up to the caller's limit. Trailing bytes after a
 * complete deflate stream are accepted (the game's stream readers stop at the
 * end of the stream as well). LZ4 is the lz4-java block stream of
 * lz4block.c; "none" is a copy; "custom" (127) is named, never guessed.
 *
 * Writing deflate at level 1 (what the world commands ask for: many
 * records, speed first) goes through ISA-L's igzip level 1 instead, 3.4x
 * libdeflate level 1's speed on the corpus' chunks for 1.06x its bytes
 * (bench_world's deflate lines); levels 2-12 stay libdeflate's.
 */
#include <isa-l/igzip_lib.h>
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

/* What a writer keeps between records: the compressor of one level. */
struct mc__deflater {
    int level;
    struct libdeflate_compressor *ld; /* levels 2-12 */
    uint8_t *isal_buf;                /* level 1: igzip's hash tables */
};

static void deflater_free(mc__deflater *d)
{
    if (!d)
        return;
    if (d->ld)
        libdeflate_free_compressor(d->ld);
    free(d->isal_buf);
    free(d);
}

static mc__deflater *deflater_for(mc__deflater **reuse, int level)
{
    if (*reuse && (*reuse)->level == level)
        return *reuse;
    deflater_free(*reuse);
    *reuse = NULL;
    mc__deflater *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->level = level;
    if (level == 1)
        d->isal_buf = malloc(ISAL_DEF_LVL1_DEFAULT);
    else
        d->ld = libdeflate_alloc_compressor(level);
    if (!d->isal_buf && !d->ld) {
        deflater_free(d);
        return NULL;
    }
    return *reuse = d;
}

/* igzip level 1, one call over the whole record (its "stateless" form),
 * in the zlib or gzip wrapper. Output that would not fit the reserved
 * bound (incompressible input: stored blocks cost 5 bytes a 64 KiB) is an
 * error, never a truncated record. */
static size_t isal_bound(size_t in_len) { return in_len + in_len / 64 + 1024; }

static mc_status isal_compress(uint8_t *level_buf, bool gz, const void *in, size_t in_len, mc_buf *out,
                               mc_error *err)
{
    if (in_len > UINT32_MAX / 2)
        return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "deflate: %zu bytes in one record", in_len);
    size_t bound = isal_bound(in_len);
    if (!mc_buf_reserve(out, bound))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    struct isal_zstream z;
    isal_deflate_stateless_init(&z);
    z.level = 1;
    z.level_buf = level_buf;
    z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    z.gzip_flag = gz ? IGZIP_GZIP : IGZIP_ZLIB;
    z.next_in = (uint8_t *)(uintptr_t)in;
    z.avail_in = (uint32_t)in_len;
    z.next_out = out->data + out->len;
    z.avail_out = (uint32_t)(bound < UINT32_MAX ? bound : UINT32_MAX);
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    int rc = isal_deflate_stateless(&z);
    if (rc != COMP_OK || z.avail_in)
        return mc_error_set(err, MC_ERR_COMPRESSION, SIZE_MAX, "deflate (igzip) failed: %d", rc);
    out->len += z.total_out;
    return MC_OK;
}

void mc__compressors_free(mc__compressors *c)
{
    deflater_free(c->deflater);
    free(c->lz4);
    c->deflater = NULL;
    c->lz4 = NULL;
}

static int clamp_level(int level) { return level <= 0 ? 6 : level > 12 ? 12 : level; }

size_t mc__compress_bound(mc__compressors *reuse, mc_compression compression, int level, size_t in_len)
{
    switch (compression) {
    case MC_COMPRESSION_NONE: return in_len;
    case MC_COMPRESSION_LZ4: return mc__lz4block_bound(in_len);
    case MC_COMPRESSION_GZIP:
    case MC_COMPRESSION_ZLIB: {
        mc__deflater *d = deflater_for(&reuse->deflater, clamp_level(level));
        if (!d)
            return 0;
        if (d->isal_buf)
            return isal_bound(in_len);
        return compression == MC_COMPRESSION_GZIP ? libdeflate_gzip_compress_bound(d->ld, in_len)
                                                  : libdeflate_zlib_compress_bound(d->ld, in_len);
    }
    default: return 0;
    }
}

mc_status mc__compress(mc__compressors *reuse, mc_compression compression, int level, const void *in,
                       size_t in_len, mc_buf *out, mc_error *err)
{
    level = clamp_level(level);
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
        mc__deflater *d = deflater_for(&reuse->deflater, level);
        if (!d)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        bool gz = compression == MC_COMPRESSION_GZIP;
        if (d->isal_buf)
            return isal_compress(d->isal_buf, gz, in, in_len, out, err);
        size_t bound = gz ? libdeflate_gzip_compress_bound(d->ld, in_len)
                          : libdeflate_zlib_compress_bound(d->ld, in_len);
        if (!mc_buf_reserve(out, bound))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        size_t n = gz ? libdeflate_gzip_compress(d->ld, in, in_len, out->data + out->len, bound)
                      : libdeflate_zlib_compress(d->ld, in, in_len, out->data + out->len, bound);
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
