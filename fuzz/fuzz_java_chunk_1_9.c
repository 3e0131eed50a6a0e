/* fuzz_java_chunk_1_9.c: the Chunk Data decoder of the 1.9 era (protocols
 * 107, 108, 109, 110, 210, 315, 316, 335, 338, 340) on hostile bytes; what decodes must re-encode to a fixed point
 * (fuzz_java_chunk_common.h). */
#include "fuzz_java_chunk_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t protocols[] = {107, 108, 109, 110, 210, 315, 316, 335, 338, 340};
    mc_fuzz_java_chunk(protocols, sizeof protocols / sizeof protocols[0], data, size);
    return 0;
}
