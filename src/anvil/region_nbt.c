/*
 * region_nbt.c: the NBT-level checks of verify and salvage (see
 * region_check_nbt.h). Until the NBT module's parser is linked in, every
 * payload passes.
 */
#include "anvil/region_check_nbt.h"

int mc__region_check_nbt(const uint8_t *data, size_t len, bool origin_known, int32_t cx,
                         int32_t cz, mc_region_problem_kind *kind, char *msg, size_t msg_size)
{
    (void)data; (void)len; (void)origin_known; (void)cx; (void)cz; (void)kind; (void)msg;
    (void)msg_size;
    return 0;
}
