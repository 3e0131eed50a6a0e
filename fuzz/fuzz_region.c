/*
 * fuzz_region.c: libFuzzer target for the region reader -- header, records,
 * every decompression (gzip, zlib, none, LZ4 block stream, custom), and the
 * NBT/position checks of verify.
 *
 * An input of 8 KiB or more is a whole region image. A shorter input is one
 * record (length, compression byte, payload) that the target places at
 * sector 2 behind a header pointing chunk 0 0 at it, so small inputs reach
 * decompression and NBT directly instead of dying in the header.
 *
 * The seeds in fuzz/corpus/fuzz_region/ were made by our writer from a tiny
 * hand-built NBT payload (no corpus file), with:
 *   for c in zlib gzip lz4 none; do
 *     mcchunk chunk put seed-$c.mca 1 2 tiny.nbt --compression $c   # region images
 *     record at sector 2 of that file -> record-$c.bin                # short form
 *   done
 * where tiny.nbt is {xPos:33, zPos:66, Data:[B;40 bytes (i*7)%13], Status:"full"}:
 *   0a000003000478506f73000000210300047a506f73000000420700044461746100000028
 *   000701080209030a040b050c06000701080209030a040b050c06000701080209030a040b
 *   050c0600080006537461747573000466756c6c00
 * plus record-custom.bin (id 127 naming "example:zstd") and
 * record-external.bin (a .mcc stub: length 1, id 0x82).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(mc_region *r)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    for (int i = 0; i < 1024; i++) {
        if (!mc_region_has_chunk(r, i & 31, i >> 5))
            continue;
        mc_error err;
        mc_region_record rec;
        b.len = 0;
        mc_region_read_chunk(r, i & 31, i >> 5, &b, &rec, &err);
        b.len = 0;
        mc_region_read_raw(r, i & 31, i >> 5, &b, &rec, &err);
    }
    mc_buf_free(&b);
    size_t ok = 0;
    mc_region_verify(r, NULL, NULL, &ok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mc_region_options opt = {0};
    opt.max_chunk_bytes = 8u << 20; /* keep inflate bombs cheap */
    mc_region *r = NULL;
    mc_error err;
    if (size >= 8192) {
        if (mc_region_open_memory(data, size, &opt, &r, &err) == MC_OK) {
            mc_region_set_origin(r, 0, 0);
            exercise(r);
            mc_region_close(r);
        }
        return 0;
    }
    size_t sectors = (size + 4095) / 4096;
    size_t len = (2 + (sectors ? sectors : 1)) * 4096;
    uint8_t *image = calloc(1, len);
    if (!image)
        return 0;
    mc_store_u32be(image, (uint32_t)(2u << 8 | (sectors ? sectors : 1)));
    if (size)
        memcpy(image + 8192, data, size);
    if (mc_region_open_memory(image, len, &opt, &r, &err) == MC_OK) {
        mc_region_set_origin(r, 0, 0);
        exercise(r);
        mc_region_close(r);
    }
    free(image);
    return 0;
}
