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
/* Fills compound `c` of `doc` with state `state` of Bedrock registry `reg`
 * as {name, states, version} (state_nbt.c; mc_bedrock_state_to_nbt's
 * tag). MC_ERR_NOT_FOUND for a state `reg` lacks, MC_ERR_NOMEM. */
mc_status mc__bedrock_state_fill(mc_nbt_doc *doc, mc_nbt_tag *c, const mc_registry *reg, uint32_t state);
/* Checks that every index is below palette_len; records an error otherwise. */
bool mc__bedrock_check_indices(mc_reader *r, const mc_bedrock_storage *s, size_t at);
/* All 4096 palette indices (XZY order). */
void mc__bedrock_unpack_indices(const mc_bedrock_storage *s, uint16_t *out);
/* Palette growth. */
bool mc__bedrock_palette_reserve(mc_bedrock_storage *s, uint32_t cap, const mc_allocator *alloc);

/* SubChunk packet pieces (486+), shared by the packet encoder and the
 * engine, which writes its answer straight into the output. `fn`, when
 * given, writes the payload (exactly payload_len bytes) in place. */
typedef mc_status (*mc__bedrock_payload_fn)(void *ctx, mc_buf *out);
void mc__bedrock_put_subchunk_header(mc_buf *out, int protocol, bool cache, int32_t dimension, int32_t x,
                                     int32_t y, int32_t z, uint32_t count);
mc_status mc__bedrock_put_entry(mc_buf *out, int protocol, bool cache, const mc_bedrock_subchunk_entry *e,
                                size_t payload_len, mc__bedrock_payload_fn fn, void *ctx);
/* The lowest and highest of a column's heights, and a subchunk's heightmap
 * given them (what mc_bedrock_column_subchunk_heightmap does in one go). */
void mc__bedrock_height_range(const mc_bedrock_column *c, int32_t *lo, int32_t *hi);
mc_bedrock_heightmap_type mc__bedrock_subchunk_heightmap_in(const mc_bedrock_column *c, uint32_t i, int32_t lo,
                                                            int32_t hi, int8_t out[256]);
/* Bytes mc_bedrock_subchunk_encode(sc, 9, NETWORK) would write. */
size_t mc__bedrock_subchunk_net_size(const mc_bedrock_subchunk *sc);

/* Every storage of the subchunk is `air` everywhere (or it has none). */
bool mc__bedrock_subchunk_all_air(const mc_bedrock_subchunk *sc, uint32_t air);
/* A Java state with waterlogged=true. */
bool mc__bedrock_java_waterlogged(const mc_registry *java, uint32_t state);
/* Appends the Bedrock form of the Java block entity `t` of `col` at
 * (x, y, z) (nothing for ids without a Bedrock counterpart). */
mc_status mc__bedrock_be_from_java(const mc_column *col, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z,
                                   mc_buf *out, mc_error *err);
/* Renames a Bedrock block entity's id to the Java one, where known. */
mc_status mc__bedrock_be_rename_to_java(mc_nbt_doc *doc, mc_nbt_tag *root);

/* blockentity.c's tables for blockentity_java.c: dye names (Java 1.13+
 * numbering), the dye of the sign text colour nearest `argb`, the pattern
 * name ("stripe_top") of a short code ("ts"), NULL when unknown. */
const char *mc__bedrock_dye_name(int dye);
int mc__bedrock_dye_of_text_color(uint32_t argb);
const char *mc__bedrock_pattern_name(const char *code, size_t n);

/* Flower pots (blockentity.c): whether a Java state is a potted_* block;
 * appends the Bedrock FlowerPot block entity of the Java pot at (x, y, z)
 * (`java_be`: its 1.8-1.12 block entity, else NULL); nothing for an empty
 * pot or a plant Bedrock lacks. */
bool mc__bedrock_is_pot(const mc_registry *java, uint32_t state);
mc_status mc__bedrock_pot_from_java(const mc_registry *java, uint32_t java_state, const mc_nbt_tag *java_be,
                                    int32_t x, int32_t y, int32_t z, const mc_registry *bedrock, mc_buf *out,
                                    mc_error *err);

/* The Bedrock block a Java 1.8-1.12 block entity decides (a skull's kind:
 * Bedrock 1.20.50+ has a block per kind), through the newest Java
 * registry; MC_STATE_NONE for 1.13+ Java (the block already says). */
uint32_t mc__bedrock_state_from_java_be(const mc_registry *java, uint32_t java_state, const mc_nbt_tag *java_be,
                                        int32_t x, int32_t y, int32_t z, const mc_registry *bedrock);

/* Bedrock block entities for a Java column (blockentity_java.c). */
typedef struct mc__bedrock_to_java {
    const mc_registry *bedrock;          /* the column's registry */
    const mc_registry *pivot, *target;   /* the newest Java registry; the target */
    const uint32_t *to_pivot, *pivot_to_target; /* registry maps (NULL: same registry) */
    int32_t pivot_dv, target_dv;
    struct mc_be_report *report;         /* may be NULL */
} mc__bedrock_to_java;

/* false when `target` is not a Java registry or a map cannot be made. */
bool mc__bedrock_to_java_init(mc__bedrock_to_java *t, const mc_registry *bedrock, const mc_registry *target,
                              struct mc_be_report *report);
/* The Java block entity of Bedrock block entity `be` at (x, y, z), whose
 * block is `bedrock_state`: *out a detached compound of `doc` (NULL when
 * the target has none there); *target_state in: the block as the section
 * translation gave it, out: the block the block entity decides. */
mc_status mc__bedrock_be_to_java(const mc__bedrock_to_java *t, const mc_nbt_tag *be, int32_t x, int32_t y,
                                 int32_t z, uint32_t bedrock_state, uint32_t *target_state, mc_nbt_doc *doc,
                                 mc_nbt_tag **out);

static inline uint32_t mc__zz_to_u32(int32_t v) { return (uint32_t)v; }

#endif
