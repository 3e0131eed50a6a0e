/* fuzz_java_chunk_1_18.c: the Chunk Data decoder of the 1.18 era (protocols
 * 757, 758, 759, 760, 761, 762, 763, 764, 765, 766, 767, 768, 769) on hostile bytes; what decodes must re-encode to a fixed point
 * (fuzz_java_chunk_common.h). */
#include "fuzz_java_chunk_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t protocols[] = {757, 758, 759, 760, 761, 762, 763, 764, 765, 766, 767, 768, 769};
    mc_fuzz_java_chunk(protocols, sizeof protocols / sizeof protocols[0], data, size);
    return 0;
}
