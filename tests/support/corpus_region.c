/*
 * corpus_region.c: see corpus_region.h. Inflation uses libdeflate directly.
 */
#include <stdio.h>
#include <stdlib.h>

#include <libdeflate.h>

#include "corpus_region.h"
#include "support.h"

int mc_test_region_chunks(const char *path, mc_test_chunk_fn fn, void *user, int *skipped)
{
    size_t len = 0;
    uint8_t *file = mc_test_read_file(path, &len);
    if (!file || len < 8192) {
        free(file);
        return -1;
    }
    struct libdeflate_decompressor *dec = libdeflate_alloc_decompressor();
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    int delivered = 0, skip = 0;
    for (int i = 0; i < 1024 && delivered >= 0; i++) {
        uint32_t entry = mc_load_u32be(file + 4 * i);
        size_t off = (size_t)(entry >> 8) * 4096;
        if (!entry || off < 8192 || off + 5 > len)
            continue;
        uint32_t clen = mc_load_u32be(file + off);
        uint8_t kind = file[off + 4];
        if (clen < 1 || off + 4 + clen > len) {
            delivered = -1;
            break;
        }
        const uint8_t *payload = file + off + 5;
        size_t plen = clen - 1;
        if (kind == 3) {
            if (fn(user, i, payload, plen))
                break;
            delivered++;
            continue;
        }
        if (kind != 1 && kind != 2) {
            skip++;
            continue;
        }
        for (;;) {
            size_t got = 0;
            enum libdeflate_result r =
                kind == 1 ? libdeflate_gzip_decompress(dec, payload, plen, buf, cap, &got)
                          : libdeflate_zlib_decompress(dec, payload, plen, buf, cap, &got);
            if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
                cap *= 2;
                buf = realloc(buf, cap);
                continue;
            }
            if (r != LIBDEFLATE_SUCCESS) {
                delivered = -1;
                break;
            }
            if (fn(user, i, buf, got))
                i = 1024;
            else
                delivered++;
            break;
        }
    }
    libdeflate_free_decompressor(dec);
    free(buf);
    free(file);
    if (skipped)
        *skipped = skip;
    return delivered;
}
