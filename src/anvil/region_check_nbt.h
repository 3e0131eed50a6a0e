/*
 * region_check_nbt.h: the NBT-level check verify and salvage apply to a
 * decompressed chunk payload (region_nbt.c): it must parse as Java NBT, and
 * when it names a chunk position (xPos/zPos, Level.xPos/zPos, or Position
 * [x, z] in entities files) that must be the chunk's own.
 */
#ifndef MC_REGION_CHECK_NBT_H
#define MC_REGION_CHECK_NBT_H

#include "mcchunk/anvil.h"

/* Returns 0 when the payload is fine; otherwise 1 with *kind and `msg`
 * (MC_REGION_PROBLEM_BAD_NBT or MC_REGION_PROBLEM_POSITION). The position is
 * only compared when `origin_known`. */
int mc__region_check_nbt(const uint8_t *data, size_t len, bool origin_known, int32_t cx,
                         int32_t cz, mc_region_problem_kind *kind, char *msg, size_t msg_size);

#endif
