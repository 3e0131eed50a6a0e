/*
 * fuzz_nbt_java.c: the NBT parser on the Java (big-endian, named root: files and region chunks)
 * encoding. Accepted input must round-trip byte for byte (fuzz_nbt_common.h).
 */
#include "fuzz_nbt_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_nbt_one(data, size, MC_NBT_JAVA);
    return 0;
}
