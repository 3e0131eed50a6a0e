/*
 * bedrock_private.h: what the files of src/bedrock share. A block storage's
 * serialized form is the same in subchunks and in biome records except for
 * how its palette is written, so one reader and one writer take the palette
 * flavour as a parameter.
 */
#ifndef MC_BEDROCK_PRIVATE_H
#define MC_BEDROCK_PRIVATE_H

#include "mcchunk/bedrock.h"

/* How a storage's palette is serialized. */
typedef enum mc__bedrock_pal {
    MC__PAL_RUNTIME,     /* network blocks: zigzag count (omitted for 0 bits) + zigzag ids */
    MC__PAL_DISK_NBT,    /* disk blocks: i32le count (omitted for 0 bits) + LE NBT compounds */
    MC__PAL_NET_NBT,     /* network-persistent blocks: zigzag count + network NBT compounds */
    MC__PAL_DISK_I32     /* Data3D biomes: i32le count (omitted for 0 bits) + i32le ids */
} mc__bedrock_pal;

/* Allocates zeroed words for `bits` and a palette of `cap` entries. */
mc_status mc__bedrock_storage_alloc(mc_bedrock_storage *s, unsigned bits, uint32_t cap,
                                    const mc_allocator *alloc);
/* Reads the words of a storage whose header is already consumed, then checks
 * nothing else; palette reading is the caller's. */
bool mc__bedrock_read_words(mc_reader *r, mc_bedrock_storage *s);
/* Appends the words as u32 LE. */
void mc__bedrock_put_words(mc_buf *out, const mc_bedrock_storage *s);
/* Checks that every index is below palette_len; records an error otherwise. */
bool mc__bedrock_check_indices(mc_reader *r, const mc_bedrock_storage *s, size_t at);
/* Palette growth. */
bool mc__bedrock_palette_reserve(mc_bedrock_storage *s, uint32_t cap, const mc_allocator *alloc);

static inline uint32_t mc__zz_to_u32(int32_t v) { return (uint32_t)v; }

#endif
