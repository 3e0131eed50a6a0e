/* fuzz_java_chunk_1_14.c: the Chunk Data decoder of the 1.14 era (protocols
 * 477, 480, 485, 490, 498) on hostile bytes; what decodes must re-encode to a fixed point
 * (fuzz_java_chunk_common.h). */
#include "fuzz_java_chunk_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t protocols[] = {477, 480, 485, 490, 498};
    mc_fuzz_java_chunk(protocols, sizeof protocols / sizeof protocols[0], data, size);
    return 0;
}
