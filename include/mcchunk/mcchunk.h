/*
 * mcchunk/mcchunk.h: everything mcchunk offers, in one include.
 *
 *   core.h      status codes, errors with byte offsets, allocators, bounded
 *               byte readers, growable buffers, varints
 *   nbt.h       NBT trees: Java (file and 1.20.2+ network forms), Bedrock
 *               (disk, level.dat, network), SNBT and JSON
 *   bits.h      packed long arrays (padded 1.16+ and spanning layouts)
 *   palette.h   paletted containers as the game keeps them
 *   chunk.h     sections and columns: blocks, biomes, light, heightmaps,
 *               block entities
 *   light.h     sky and block light computed from the blocks (light engine)
 *   registry.h  block-state and biome registries of every version, and
 *               translation between them
 *   translate.h columns translated between registries
 *   anvil.h     region files (.mca/.mcr/.mcc) and world folders
 *   chunknbt.h  chunk NBT of every DataVersion <-> columns
 *   java.h      Java protocol: packet ids, framing, chunk packets of every era
 *   bedrock.h   Bedrock subchunks, biomes, chunk packets, SubChunk requests
 */
#ifndef MCCHUNK_MCCHUNK_H
#define MCCHUNK_MCCHUNK_H

#include "mcchunk/core.h"
#include "mcchunk/nbt.h"
#include "mcchunk/bits.h"
#include "mcchunk/palette.h"
#include "mcchunk/chunk.h"
#include "mcchunk/light.h"
#include "mcchunk/registry.h"
#include "mcchunk/translate.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/java.h"
#include "mcchunk/bedrock.h"

#endif
