/*
 * fuzz_nbt_bedrock_network.c: the NBT parser on the Bedrock network (varints)
 * encoding. Accepted input must round-trip byte for byte (fuzz_nbt_common.h).
 */
#include "fuzz_nbt_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_nbt_one(data, size, MC_NBT_BEDROCK_NETWORK);
    return 0;
}
