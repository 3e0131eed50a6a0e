/* fuzz_java_chunk_1_8.c: the Chunk Data decoder of the 1.8 era (protocols
 * 47) on hostile bytes; what decodes must re-encode to a fixed point
 * (fuzz_java_chunk_common.h). */
#include "fuzz_java_chunk_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t protocols[] = {47};
    mc_fuzz_java_chunk(protocols, sizeof protocols / sizeof protocols[0], data, size);
    return 0;
}
