/*
 * world/histogram.h: `world stats`' count of a block container's palette
 * entries read straight from its padded longs (histogram.c), in place of
 * mc_container_histogram's unpacking of 4096 indices first.
 */
#ifndef MC_TOOLS_WORLD_HISTOGRAM_H
#define MC_TOOLS_WORLD_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "mcchunk/palette.h"

/* counts[k] for k < the palette's length: how many of c's entries are
 * palette entry k, as mc_container_histogram gives them, for an indirect
 * container of 4096 entries 4-8 bits wide (the block sections of 1.18+).
 * False, counts untouched, for any other container and for one holding an
 * index at or past its palette's end: the caller then does what it did
 * before (mc_container_histogram). */
bool world_histogram_blocks(const mc_container *c, uint32_t *counts);

#endif
