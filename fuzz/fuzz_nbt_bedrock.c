/*
 * fuzz_nbt_bedrock.c: the NBT parser on the Bedrock disk (little-endian) and Bedrock level.dat (8-byte header)
 * encoding. Accepted input must round-trip byte for byte (fuzz_nbt_common.h).
 */
#include "fuzz_nbt_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_nbt_one(data, size, MC_NBT_BEDROCK);
    fuzz_nbt_one(data, size, MC_NBT_BEDROCK_LEVEL_DAT);
    return 0;
}
