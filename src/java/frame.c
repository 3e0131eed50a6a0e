/*
 * frame.c: Java protocol packet framing.
 *
 * Every Java packet travels as a frame: VarInt length, then either the packet
 * (compression off) or, once Set Compression has been sent, a VarInt "data
 * length" (0 = not compressed) followed by the packet, zlib-compressed when
 * the data length is non-zero. Vanilla caps a frame at a 3-byte VarInt
 * (2 MiB) and an inflated packet at 8 MiB, and refuses a compressed packet
 * smaller than the threshold; so do we, so that a hostile peer cannot make a
 * server allocate without bound. Compression uses libdeflate's whole-buffer
 * API: we know the inflated size up front, so one call inflates it exactly.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>

#include "mcchunk/java.h"

struct mc_java_zctx {
    struct libdeflate_compressor *c;
    struct libdeflate_decompressor *d;
    int level;
};

mc_java_zctx *mc_java_zctx_new(int level)
{
    mc_java_zctx *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->level = level > 0 && level <= 12 ? level : 4;
    return z;
}

void mc_java_zctx_free(mc_java_zctx *z)
{
    if (!z)
        return;
    if (z->c)
        libdeflate_free_compressor(z->c);
    if (z->d)
        libdeflate_free_decompressor(z->d);
    free(z);
}

static struct libdeflate_compressor *zctx_compressor(mc_java_zctx *z)
{
    if (!z->c)
        z->c = libdeflate_alloc_compressor(z->level);
    return z->c;
}

static struct libdeflate_decompressor *zctx_decompressor(mc_java_zctx *z)
{
    if (!z->d)
        z->d = libdeflate_alloc_decompressor();
    return z->d;
}

static mc_status frame_write(mc_buf *out, const uint8_t *packet, size_t len, int threshold,
                             mc_java_zctx *z, mc_error *err)
{
    if (len > MC_JAVA_MAX_PACKET)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "frame: packet of %zu bytes exceeds %u", len,
                            MC_JAVA_MAX_PACKET);
    if (threshold < 0 || len < (size_t)threshold) {
        size_t body = len + (threshold < 0 ? 0 : 1);
        if (body > MC_JAVA_MAX_FRAME)
            return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "frame: %zu bytes exceed the 2 MiB frame limit", body);
        mc_buf_put_varint(out, (int32_t)body);
        if (threshold >= 0)
            mc_buf_put_u8(out, 0);
        mc_buf_put(out, packet, len);
        return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    }
    struct libdeflate_compressor *c = zctx_compressor(z);
    if (!c)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    size_t bound = libdeflate_zlib_compress_bound(c, len);
    /* Reserve room for the length varints (3 + 4 bytes at most) and the data. */
    size_t start = out->len;
    uint8_t *room = mc_buf_extend(out, 8 + bound);
    if (!room) {
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    }
    uint8_t *zbuf = room + 8;
    size_t zlen = libdeflate_zlib_compress(c, packet, len, zbuf, bound);
    if (zlen == 0) {
        out->len = start;
        return mc_error_set(err, MC_ERR_COMPRESSION, SIZE_MAX, "frame: compression failed");
    }
    size_t dl_size = mc_uvarint_size(len);
    size_t body = dl_size + zlen;
    if (body > MC_JAVA_MAX_FRAME) {
        out->len = start;
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "frame: compressed packet of %zu bytes exceeds the 2 MiB frame limit", body);
    }
    size_t fl_size = mc_uvarint_size(body);
    /* Move the compressed bytes right behind the two varints. */
    uint8_t *dst = room + fl_size + dl_size;
    memmove(dst, zbuf, zlen);
    out->len = start;
    mc_buf_put_varint(out, (int32_t)body);
    mc_buf_put_varint(out, (int32_t)len);
    out->len = start + fl_size + dl_size + zlen;
    return MC_OK;
}

mc_status mc_java_frame_write(mc_buf *out, const uint8_t *packet, size_t len, int threshold,
                              mc_java_zctx *z, mc_error *err)
{
    if (z || threshold < 0 || len < (size_t)threshold)
        return frame_write(out, packet, len, threshold, z, err);
    mc_java_zctx *tmp = mc_java_zctx_new(0);
    if (!tmp)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    mc_status s = frame_write(out, packet, len, threshold, tmp, err);
    mc_java_zctx_free(tmp);
    return s;
}

static mc_status frame_read(const uint8_t *data, size_t len, int threshold, size_t max_frame,
                             mc_java_zctx *z, mc_buf *scratch, const uint8_t **packet,
                             size_t *packet_len, size_t *consumed, mc_error *err)
{
    *consumed = 0;
    if (max_frame == 0 || max_frame > MC_JAVA_MAX_FRAME)
        max_frame = MC_JAVA_MAX_FRAME;
    /* Frame length: at most 3 bytes. */
    uint32_t flen = 0;
    size_t i = 0;
    for (;; i++) {
        if (i == 3)
            return mc_error_set(err, MC_ERR_MALFORMED, 0, "frame: length varint longer than 3 bytes");
        if (i >= len)
            return MC_ERR_TRUNCATED;
        flen |= (uint32_t)(data[i] & 0x7F) << (7 * i);
        if (!(data[i] & 0x80))
            break;
    }
    size_t head = i + 1;
    if (flen > max_frame)
        return mc_error_set(err, MC_ERR_LIMIT, 0, "frame: length %u exceeds the limit of %zu bytes", flen, max_frame);
    if (flen == 0)
        return mc_error_set(err, MC_ERR_MALFORMED, 0, "frame: empty frame");
    if (len - head < flen)
        return MC_ERR_TRUNCATED;
    const uint8_t *body = data + head;
    if (threshold < 0) {
        *packet = body;
        *packet_len = flen;
        *consumed = head + flen;
        return MC_OK;
    }
    mc_reader r;
    mc_reader_init(&r, body, flen, "frame", err);
    r.base = head;
    int32_t dlen = mc_read_varint(&r);
    if (!mc_reader_ok(&r))
        return r.status;
    if (dlen == 0) {
        *packet = body + r.pos;
        *packet_len = flen - r.pos;
        if (*packet_len == 0)
            return mc_error_set(err, MC_ERR_MALFORMED, head, "frame: packet without an id");
        *consumed = head + flen;
        return MC_OK;
    }
    if (dlen < 0 || (uint32_t)dlen > MC_JAVA_MAX_PACKET)
        return mc_error_set(err, MC_ERR_LIMIT, head, "frame: data length %d outside 1..%u", dlen, MC_JAVA_MAX_PACKET);
    if (dlen < threshold)
        return mc_error_set(err, MC_ERR_MALFORMED, head,
                            "frame: compressed packet of %d bytes is below the threshold %d", dlen, threshold);
    scratch->len = 0;
    uint8_t *dst = mc_buf_extend(scratch, (size_t)dlen);
    if (!dst)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    struct libdeflate_decompressor *d = zctx_decompressor(z);
    if (!d)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "frame: out of memory");
    size_t got = 0;
    enum libdeflate_result res =
        libdeflate_zlib_decompress(d, body + r.pos, flen - r.pos, dst, (size_t)dlen, &got);
    if (res != LIBDEFLATE_SUCCESS || got != (size_t)dlen) {
        scratch->len = 0;
        return mc_error_set(err, MC_ERR_COMPRESSION, head + r.pos,
                            "frame: zlib data does not inflate to the stated %d bytes", dlen);
    }
    *packet = dst;
    *packet_len = (size_t)dlen;
    *consumed = head + flen;
    return MC_OK;
}

mc_status mc_java_frame_read(const uint8_t *data, size_t len, int threshold, size_t max_frame,
                             mc_java_zctx *z, mc_buf *scratch, const uint8_t **packet,
                             size_t *packet_len, size_t *consumed, mc_error *err)
{
    if (z)
        return frame_read(data, len, threshold, max_frame, z, scratch, packet, packet_len, consumed, err);
    mc_java_zctx tmp = {NULL, NULL, 4};
    mc_status s = frame_read(data, len, threshold, max_frame, &tmp, scratch, packet, packet_len, consumed, err);
    if (tmp.d)
        libdeflate_free_decompressor(tmp.d);
    return s;
}
