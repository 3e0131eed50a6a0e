/* fuzz_bedrock_biomes.c: Bedrock biome records on hostile bytes. The first
 * byte picks Data3D (0), Data2D (1) or network storages (2: until the border
 * byte, 3: exactly data[1] storages). What decodes is written back and must
 * decode again to the same bytes.
 * Seeds: data3d.bin and biomes_net.bin of `mcchunk bedrock generate --tiny`
 * with the selector byte in front. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip(const mc_bedrock_biomes *b, bool disk)
{
    mc_buf o1, o2;
    mc_buf_init(&o1, NULL);
    mc_buf_init(&o2, NULL);
    mc_bedrock_biomes again;
    if ((disk ? mc_bedrock_data3d_encode(b, &o1, NULL) : mc_bedrock_biomes_net_encode(b, &o1, NULL)) == MC_OK) {
        mc_status st;
        if (disk) {
            st = mc_bedrock_data3d_decode(&again, o1.data, o1.len, NULL, NULL);
        } else {
            mc_reader r;
            mc_reader_init(&r, o1.data, o1.len, "again", NULL);
            st = mc_bedrock_biomes_net_decode(&again, &r, b->count, NULL);
        }
        if (st != MC_OK)
            abort();
        if ((disk ? mc_bedrock_data3d_encode(&again, &o2, NULL) : mc_bedrock_biomes_net_encode(&again, &o2, NULL)) != MC_OK ||
            o1.len != o2.len || (o1.len && memcmp(o1.data, o2.data, o1.len)))
            abort();
        mc_bedrock_biomes_free(&again, NULL);
    }
    mc_buf_free(&o1);
    mc_buf_free(&o2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned kind = data[0] & 3;
    uint32_t count = data[1];
    mc_bedrock_biomes b;
    if (kind == 0) {
        if (mc_bedrock_data3d_decode(&b, data + 1, size - 1, NULL, NULL) == MC_OK) {
            roundtrip(&b, true);
            mc_bedrock_biomes_free(&b, NULL);
        }
    } else if (kind == 1) {
        mc_bedrock_data2d_decode(&b, data + 1, size - 1, NULL);
    } else {
        mc_reader r;
        const uint8_t *p = kind == 2 ? data + 1 : data + 2;
        mc_reader_init(&r, p, size - (size_t)(p - data), "fuzz", NULL);
        if (mc_bedrock_biomes_net_decode(&b, &r, kind == 2 ? 0 : count, NULL) == MC_OK) {
            roundtrip(&b, false);
            mc_bedrock_biomes_free(&b, NULL);
        }
    }
    return 0;
}
