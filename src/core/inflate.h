/*
 * inflate.h (private to the library): inflating a zlib or gzip stream whose
 * inflated size is not known up front, with libdeflate's whole-buffer API.
 * libdeflate inflates only into a buffer that is big enough, so the caller
 * guesses a size and this doubles it while libdeflate says the space was
 * short, up to a limit. The one place where this is done: NBT files
 * (src/nbt/compress.c) and region chunks (src/anvil/region_compress.c) both
 * call it.
 */
#ifndef MC_CORE_INFLATE_H
#define MC_CORE_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "mcchunk/core.h"

struct libdeflate_decompressor;

typedef enum mc__inflate_kind { MC__INFLATE_ZLIB = 0, MC__INFLATE_GZIP = 1 } mc__inflate_kind;

/* Appends the inflated stream to `out`. `dec` is a libdeflate decompressor the
 * caller keeps (may be NULL: one is made for the call). The first try gets
 * `guess` bytes (at least 4 KiB, at most `max_out`); each short try doubles it.
 * `what` names the data in messages ("nbt: gzip", "zlib"). Returns MC_OK,
 * MC_ERR_COMPRESSION (corrupt stream), MC_ERR_LIMIT (inflates past `max_out`)
 * or MC_ERR_NOMEM; on failure `out` keeps its previous length. */
mc_status mc__inflate_growing(struct libdeflate_decompressor *dec, mc__inflate_kind kind,
                              const uint8_t *in, size_t in_len, size_t guess, size_t max_out,
                              const char *what, mc_buf *out, mc_error *err);

#endif
