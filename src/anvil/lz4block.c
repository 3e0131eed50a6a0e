/*
 * lz4block.c: the LZ4 framing of region compression id 4 (24w04a / 1.20.5+).
 *
 * The game does not use the standard LZ4 frame format. It wraps the chunk in
 * lz4-java's LZ4BlockOutputStream: the input is cut into blocks of at most
 * 1 << (10 + level) bytes (64 KiB, level 6), and each block is stored as
 *
 *     "LZ4Block"  token  compressedLen(i32 LE)  decompressedLen(i32 LE)
 *     checksum(i32 LE)  payload
 *
 * where token = method | level (method 0x10 stored, 0x20 LZ4) and checksum
 * is XXH32(decompressed bytes, seed 0x9747B28C) & 0x0FFFFFFF. An empty stored
 * block (both lengths and checksum zero) ends the stream; what follows it in
 * the region is sector padding.
 *
 * The decoder trusts nothing: each length is checked against the level's
 * block size, the bytes left and the caller's output limit before anything
 * is allocated, and every block's checksum is verified.
 */
#include <lz4.h>
#include <stdlib.h>
#include <xxhash.h>

#include "anvil/anvil_private.h"

static const uint8_t lz4block_magic[8] = {'L', 'Z', '4', 'B', 'l', 'o', 'c', 'k'};

enum { METHOD_RAW = 0x10, METHOD_LZ4 = 0x20 };

static uint32_t block_checksum(const void *data, size_t len)
{
    return (uint32_t)XXH32(data, len, MC__LZ4BLOCK_SEED) & MC__LZ4BLOCK_MASK;
}

static void put_block_header(uint8_t *h, int method, uint32_t clen, uint32_t dlen, uint32_t check)
{
    memcpy(h, lz4block_magic, 8);
    h[8] = (uint8_t)(method | MC__LZ4BLOCK_DEFAULT_LEVEL);
    mc_store_u32le(h + 9, clen);
    mc_store_u32le(h + 13, dlen);
    mc_store_u32le(h + 17, check);
}

/* *stream (NULL at first: made here, freed with free()) is an LZ4 stream
 * reset before each block, so that each is compressed on its own as with
 * LZ4_compress_default, without its 16 KB state set up for every block
 * (that was a twentieth of world convert --compression lz4). stream NULL:
 * LZ4_compress_default. */
mc_status mc__lz4block_encode(void **stream, const void *in, size_t in_len, mc_buf *out, mc_error *err)
{
    const size_t block_size = (size_t)1 << (10 + MC__LZ4BLOCK_DEFAULT_LEVEL);
    if (stream && !*stream && (*stream = malloc(sizeof(LZ4_stream_t))) != NULL)
        LZ4_initStream(*stream, sizeof(LZ4_stream_t));
    LZ4_stream_t *ls = stream ? *stream : NULL;
    const uint8_t *src = in;
    size_t pos = 0;

    while (pos < in_len) {
        size_t n = in_len - pos < block_size ? in_len - pos : block_size;
        const int bound = LZ4_compressBound((int)n); /* the room mc__lz4block_bound counts */
        size_t start = out->len;
        uint8_t *h = mc_buf_extend(out, MC__LZ4BLOCK_HEADER + (size_t)bound);
        if (!h)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "lz4block: out of memory");
        int c;
        if (ls) {
            LZ4_resetStream_fast(ls);
            c = LZ4_compress_fast_continue(ls, (const char *)src + pos, (char *)h + MC__LZ4BLOCK_HEADER, (int)n,
                                           bound, 1);
        } else {
            c = LZ4_compress_default((const char *)src + pos, (char *)h + MC__LZ4BLOCK_HEADER, (int)n, bound);
        }
        uint32_t check = block_checksum(src + pos, n);
        if (c > 0 && (size_t)c < n) {
            put_block_header(h, METHOD_LZ4, (uint32_t)c, (uint32_t)n, check);
            out->len = start + MC__LZ4BLOCK_HEADER + (size_t)c;
        } else {
            /* LZ4 did not shrink it: store the block (lz4-java does the same). */
            put_block_header(h, METHOD_RAW, (uint32_t)n, (uint32_t)n, check);
            memcpy(h + MC__LZ4BLOCK_HEADER, src + pos, n);
            out->len = start + MC__LZ4BLOCK_HEADER + n;
        }
        pos += n;
    }
    uint8_t *t = mc_buf_extend(out, MC__LZ4BLOCK_HEADER);
    if (!t)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "lz4block: out of memory");
    put_block_header(t, METHOD_RAW, 0, 0, 0);
    return MC_OK;
}

size_t mc__lz4block_bound(size_t in_len)
{
    const size_t block_size = (size_t)1 << (10 + MC__LZ4BLOCK_DEFAULT_LEVEL);
    size_t whole = in_len / block_size, last = in_len % block_size;
    size_t room = whole * (MC__LZ4BLOCK_HEADER + (size_t)LZ4_compressBound((int)block_size));
    if (last)
        room += MC__LZ4BLOCK_HEADER + (size_t)LZ4_compressBound((int)last);
    return room + MC__LZ4BLOCK_HEADER;
}

mc_status mc__lz4block_decode(const void *in, size_t in_len, mc_buf *out, size_t max_out,
                              mc_error *err)
{
    mc_reader r;
    mc_reader_init(&r, in, in_len, "lz4block", err);
    size_t produced = 0;

    while (mc_reader_remaining(&r) > 0) {
        size_t block_at = r.pos;
        const uint8_t *h = mc_read_bytes(&r, MC__LZ4BLOCK_HEADER, "block header");
        if (!h)
            return r.status;
        if (memcmp(h, lz4block_magic, 8) != 0)
            return mc_reader_fail_at(&r, block_at, MC_ERR_COMPRESSION, "bad block magic");
        int method = h[8] & 0xF0, level = h[8] & 0x0F;
        uint32_t clen = mc_load_u32le(h + 9), dlen = mc_load_u32le(h + 13);
        uint32_t check = mc_load_u32le(h + 17);
        uint64_t max_block = (uint64_t)1 << (10 + level);

        if (method != METHOD_RAW && method != METHOD_LZ4)
            return mc_reader_fail_at(&r, block_at + 8, MC_ERR_COMPRESSION,
                                     "unknown block method 0x%02x", method);
        if (dlen > max_block || clen > max_block + max_block / 255 + 16 ||
            (method == METHOD_RAW && clen != dlen))
            return mc_reader_fail_at(&r, block_at + 9, MC_ERR_COMPRESSION,
                                     "block lengths %u/%u invalid for level %d", clen, dlen, level);
        if (dlen == 0) {
            /* The empty terminator block; lz4-java demands a zero checksum. */
            if (clen != 0 || check != 0)
                return mc_reader_fail_at(&r, block_at, MC_ERR_COMPRESSION,
                                         "malformed terminator block");
            return MC_OK;
        }
        const uint8_t *payload = mc_read_bytes(&r, clen, "block payload");
        if (!payload)
            return r.status;
        if (dlen > max_out - produced || max_out < produced)
            return mc_reader_fail_at(&r, block_at, MC_ERR_LIMIT,
                                     "decompressed size exceeds limit %zu", max_out);
        uint8_t *dst = mc_buf_extend(out, dlen);
        if (!dst)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "lz4block: out of memory");
        if (method == METHOD_RAW) {
            memcpy(dst, payload, dlen);
        } else {
            int got = LZ4_decompress_safe((const char *)payload, (char *)dst, (int)clen, (int)dlen);
            if (got < 0 || (uint32_t)got != dlen) {
                out->len -= dlen;
                return mc_reader_fail_at(&r, block_at, MC_ERR_COMPRESSION,
                                         "corrupt LZ4 block (%d of %u bytes)", got, dlen);
            }
        }
        if (block_checksum(dst, dlen) != check) {
            out->len -= dlen;
            return mc_reader_fail_at(&r, block_at + 17, MC_ERR_COMPRESSION,
                                     "block checksum mismatch");
        }
        produced += dlen;
    }
    /* The input ended at a block boundary without a terminator: lz4-java's
     * reader accepts this as the end of the stream too. */
    return MC_OK;
}
