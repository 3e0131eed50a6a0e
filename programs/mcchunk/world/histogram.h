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

/* Adds `run` to bytes[b] for each of the 8 bytes b of long w (in no
 * particular order: for counts of 4- or 8-bit indices, which never span a
 * byte). Spelled out: one shift, mask and add a byte. */
static inline void world_count_bytes(uint16_t *bytes, uint64_t w, uint16_t run)
{
    bytes[w & 255] = (uint16_t)(bytes[w & 255] + run);
    bytes[w >> 8 & 255] = (uint16_t)(bytes[w >> 8 & 255] + run);
    bytes[w >> 16 & 255] = (uint16_t)(bytes[w >> 16 & 255] + run);
    bytes[w >> 24 & 255] = (uint16_t)(bytes[w >> 24 & 255] + run);
    bytes[w >> 32 & 255] = (uint16_t)(bytes[w >> 32 & 255] + run);
    bytes[w >> 40 & 255] = (uint16_t)(bytes[w >> 40 & 255] + run);
    bytes[w >> 48 & 255] = (uint16_t)(bytes[w >> 48 & 255] + run);
    bytes[w >> 56] = (uint16_t)(bytes[w >> 56] + run);
}

#endif
