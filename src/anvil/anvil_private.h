/*
 * anvil_private.h: functions shared between the files of the anvil module
 * (not part of the public API).
 *
 * lz4block.c implements the LZ4 framing the game uses for compression id 4:
 * lz4-java's LZ4BlockOutputStream, a sequence of self-describing blocks
 * ("LZ4Block" magic, token, two little-endian lengths, a masked XXH32 of the
 * decompressed bytes) closed by an empty block. region_compress.c wraps it
 * and libdeflate behind mc_region_compress / mc_region_decompress.
 */
#ifndef MC_ANVIL_PRIVATE_H
#define MC_ANVIL_PRIVATE_H

#include "mcchunk/anvil.h"

struct libdeflate_decompressor;

/* Seed lz4-java uses for its block checksums, and the mask applied. */
#define MC__LZ4BLOCK_SEED 0x9747B28Cu
#define MC__LZ4BLOCK_MASK 0x0FFFFFFFu
#define MC__LZ4BLOCK_HEADER 21
#define MC__LZ4BLOCK_DEFAULT_LEVEL 6 /* 64 KiB blocks */

/* Appends the block stream of `in` to `out` (blocks of 1 << (10 + level)
 * bytes, level 6 as the game writes; RAW blocks where LZ4 does not shrink;
 * the empty terminator block). */
mc_status mc__lz4block_encode(void **stream, const void *in, size_t in_len, mc_buf *out, mc_error *err);
/* Decodes a block stream, appending to `out`. Stops after the empty
 * terminator block (bytes after it are ignored, as the game's sector padding
 * follows); the end of the input at a block boundary also ends the stream.
 * Every checksum is checked. Output beyond `max_out` is MC_ERR_LIMIT. */
mc_status mc__lz4block_decode(const void *in, size_t in_len, mc_buf *out, size_t max_out,
                              mc_error *err);
/* The most room mc__lz4block_encode of in_len bytes takes in its output
 * buffer at any moment (more than the block stream it leaves). */
size_t mc__lz4block_bound(size_t in_len);

/* mc_region_decompress with a reusable libdeflate decompressor (may be NULL:
 * one is made for the call). */
mc_status mc__decompress(struct libdeflate_decompressor *dec, int compression, const void *in,
                         size_t in_len, mc_buf *out, size_t max_out, mc_error *err);

/* The compressors a caller that compresses many records keeps between
 * them (zero at first; each made on first use; mc__compressors_free):
 * deflate at level 1 is ISA-L's igzip, levels 2-12 libdeflate's
 * (region_compress.c). */
typedef struct mc__deflater mc__deflater;
typedef struct mc__compressors {
    mc__deflater *deflater; /* for the level of the first use */
    void *lz4;              /* an LZ4_stream_t, reset per block */
} mc__compressors;
void mc__compressors_free(mc__compressors *c);

/* mc_region_compress with the compressors kept in *reuse. */
mc_status mc__compress(mc__compressors *reuse, mc_compression compression, int level, const void *in,
                       size_t in_len, mc_buf *out, mc_error *err);

/* The most room mc__compress of in_len bytes takes in `out` beyond its
 * length at any moment (0: not known, for an unknown compression or when a
 * compressor cannot be made): output given that much fixed space, never
 * grown, is never short of it. */
size_t mc__compress_bound(mc__compressors *reuse, mc_compression compression, int level, size_t in_len);

#define MC__DEFAULT_MAX_CHUNK ((size_t)256 << 20)

#endif
