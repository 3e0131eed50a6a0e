/*
 * inflate.c: zlib/gzip inflation into a growing buffer (see inflate.h for why
 * it grows by retrying).
 */
#include "core/inflate.h"

#include <libdeflate.h>

mc_status mc__inflate_growing(struct libdeflate_decompressor *dec, mc__inflate_kind kind,
                              const uint8_t *in, size_t in_len, size_t guess, size_t max_out,
                              const char *what, mc_buf *out, mc_error *err)
{
    struct libdeflate_decompressor *own = NULL;
    if (!dec) {
        dec = own = libdeflate_alloc_decompressor();
        if (!dec)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", what);
    }
    if (guess < 4096)
        guess = 4096;
    if (guess > max_out)
        guess = max_out;
    mc_status st;
    for (;;) {
        if (!mc_buf_reserve(out, guess)) {
            st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", what);
            break;
        }
        size_t used_in = 0, produced = 0;
        enum libdeflate_result res =
            kind == MC__INFLATE_GZIP
                ? libdeflate_gzip_decompress_ex(dec, in, in_len, out->data + out->len, guess, &used_in,
                                                &produced)
                : libdeflate_zlib_decompress_ex(dec, in, in_len, out->data + out->len, guess, &used_in,
                                                &produced);
        if (res == LIBDEFLATE_SUCCESS) {
            out->len += produced;
            st = MC_OK;
            break;
        }
        if (res != LIBDEFLATE_INSUFFICIENT_SPACE) {
            st = mc_error_set(err, MC_ERR_COMPRESSION, SIZE_MAX, "%s: corrupt compressed data (%zu bytes)",
                              what, in_len);
            break;
        }
        if (guess >= max_out) {
            st = mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "%s: inflated data larger than %zu bytes", what,
                              max_out);
            break;
        }
        guess = guess > max_out / 2 ? max_out : guess * 2;
    }
    if (own)
        libdeflate_free_decompressor(own);
    return st;
}
