/*
 * mcchunk/bedrock.h: Bedrock Edition chunk data -- subchunks, 3D biomes, the
 * chunk packets and the SubChunk request system.
 *
 * THE MODEL
 * A Bedrock subchunk is 16x16x16 blocks held in one or more *block storages*
 * (storage 0 = the blocks, storage 1 = the water layer of waterlogged blocks).
 * A storage is a palette plus 4096 indices packed into 32-bit words, with
 * floor(32/bits) indices per word and none spanning two words, in XZY order
 * (index = x<<8 | z<<4 | y). mc_bedrock_storage keeps exactly that: the
 * words in host order, so that writing a storage is a copy on little-endian
 * machines, and the palette as uint32 values.
 *
 * What a palette value means depends on the subchunk's palette kind:
 *   MC_BEDROCK_PALETTE_RUNTIME  network form: runtime ids (the index into the
 *                               client's sorted state list, or FNV-1a hashes
 *                               when the server announced hashed ids);
 *   MC_BEDROCK_PALETTE_DISK     LevelDB form: each value indexes the
 *                               subchunk's table of state tags, little-endian
 *                               NBT compounds {name, states, version};
 *   MC_BEDROCK_PALETTE_PERSISTENT network-persistent form: the same with
 *                               network NBT compounds;
 *   MC_BEDROCK_PALETTE_LEGACY   subchunk versions 0 and 2-7 (read only):
 *                               id<<4 | meta of the pre-1.2.13 numeric ids.
 * State tags are kept as the exact bytes read (or given), so a subchunk read
 * and written in the same form comes back byte for byte.
 *
 * THE WATER LAYER AND THE CHUNK MODEL
 * Bedrock has no waterlogged property: a waterlogged block is the block in
 * storage 0 and water (minecraft:water, liquid_depth 0; vanilla writes the
 * storage as 1 bit, palette {air, water}) in storage 1 at the same index.
 * An mc_section holds one state per block, so the conversions do this:
 *   Java column -> subchunk   a waterlogged=true state becomes its Bedrock
 *                             block (the state map drops the property) in
 *                             storage 0 plus water in storage 1 (a second
 *                             storage only where the section has one);
 *   subchunk -> Java section  (the _in functions with a Java target) a block
 *                             with water (or flowing water) in storage 1
 *                             becomes the Java waterlogged=true variant when
 *                             its Java block has the property; air with
 *                             water becomes Java water; other blocks drop the
 *                             water (Java's kelp, seagrass... are water by
 *                             themselves);
 *   Bedrock column <-> mc_column in a Bedrock registry: storage 0 is the
 *                             section's blocks and storages 1..7 are kept in
 *                             the column's extra NBT under
 *                             "mcchunk:bedrock_layers" (a list of {y: int
 *                             section y, layer: byte storage index, bits:
 *                             byte, palette: list of state texts such as
 *                             "minecraft:water[liquid_depth=0]", words: int
 *                             array of the packed words}), and come back
 *                             from there, so Bedrock -> model -> Bedrock
 *                             keeps every storage exactly (palette order,
 *                             width and words). The texts are looked up in
 *                             the output registry, so the layers survive a
 *                             change of Bedrock version. Like the other
 *                             "mcchunk:" keys this is bookkeeping that the
 *                             Java chunk writers never emit. The model was
 *                             left unchanged: a second block layer in
 *                             mc_section would cost every Java path for a
 *                             Bedrock-only feature that, in vanilla worlds,
 *                             holds water and nothing else.
 *
 * Decoders read through mc_reader, never trust a count or width from the
 * input, and return an mc_status with a message naming the byte offset.
 * Encoders append to an mc_buf. Nothing here has global mutable state.
 */
#ifndef MCCHUNK_BEDROCK_H
#define MCCHUNK_BEDROCK_H

#include "mcchunk/chunk.h"
#include "mcchunk/core.h"
#include "mcchunk/registry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MC_BEDROCK_SUBCHUNK_VOLUME 4096
/* Storages one subchunk may hold (the count is a byte; vanilla writes 1-2). */
#define MC_BEDROCK_MAX_STORAGES 8

/* ------------------------------------------------------------- versions */

/* Protocol numbers where a chunk-related layout changed. */
enum {
    MC_BEDROCK_PROTO_1_17_40 = 471,  /* SubChunk/SubChunkRequest appear (one subchunk) */
    MC_BEDROCK_PROTO_1_18_0 = 475,   /* SubChunk gains cache flag + blob id */
    MC_BEDROCK_PROTO_1_18_10 = 486,  /* batched requests; LevelChunk "known air" u16 */
    MC_BEDROCK_PROTO_1_19_80 = 582,  /* StartGame can announce hashed runtime ids */
    MC_BEDROCK_PROTO_1_20_60 = 649,  /* LevelChunk carries the dimension */
    MC_BEDROCK_PROTO_1_21_90 = 818,  /* SubChunk entries carry a render heightmap */
    MC_BEDROCK_PROTO_1_26_30 = 1001, /* SubChunkRequest reordered, fixed-width center;
                                        ClientCacheBlobStatus with prefixed arrays */
    MC_BEDROCK_PROTO_1_26_40 = 2168, /* LevelChunk optional highest + blob list always;
                                        SubChunk fixed-width center, optional fields */
    MC_BEDROCK_PROTO_1_26_51 = 2193  /* SubChunk heightmaps as 16 varint-counted rows */
};

/* The protocol number of a Bedrock release name ("1.21.60" -> 776), from the
 * releases minecraft-data lists (1.16.201 ... 1.26.51). Unknown names return
 * 0. A bare number ("776") is accepted as a protocol number. */
MC_API int mc_bedrock_protocol(const char *version);
/* The newest release name of a protocol number, or NULL. */
MC_API const char *mc_bedrock_version_name(int protocol);

/* ------------------------------------------------------- block storages */

typedef enum mc_bedrock_palette_kind {
    MC_BEDROCK_PALETTE_RUNTIME = 0,
    MC_BEDROCK_PALETTE_DISK = 1,
    MC_BEDROCK_PALETTE_PERSISTENT = 2,
    MC_BEDROCK_PALETTE_LEGACY = 3
} mc_bedrock_palette_kind;

/* A palette + packed indices. Zero-initialised = empty (bits 0, no palette:
 * every index reads as 0 and the storage cannot be written until it has a
 * palette). `words` has mc_bedrock_word_count(bits) entries. */
typedef struct mc_bedrock_storage {
    uint8_t bits;          /* 0, 1, 2, 3, 4, 5, 6, 8 or 16 */
    uint32_t palette_len;
    uint32_t palette_cap;
    uint32_t *palette;
    uint32_t *words;       /* host order; NULL for bits 0 */
} mc_bedrock_storage;

/* true for the widths Bedrock has: 0, 1, 2, 3, 4, 5, 6, 8, 16. */
MC_API bool mc_bedrock_bits_valid(unsigned bits);
/* Words of a 4096-entry storage: ceil(4096 / floor(32/bits)); 0 for bits 0. */
MC_API size_t mc_bedrock_word_count(unsigned bits);
/* The smallest valid width for `palette_len` entries (1 entry: 0). */
MC_API unsigned mc_bedrock_bits_for(uint32_t palette_len);

/* Index of block (x, y, z) in 0..15 each: XZY order. */
static inline unsigned mc_bedrock_index(unsigned x, unsigned y, unsigned z)
{
    return (x << 8) | (z << 4) | y;
}

/* Makes `s` a storage holding `value` everywhere (bits 0, palette {value}). */
MC_API mc_status mc_bedrock_storage_init_single(mc_bedrock_storage *s, uint32_t value,
                                                const mc_allocator *alloc);
/* Frees a storage's arrays (with the allocator that made them) and zeroes it. */
MC_API void mc_bedrock_storage_free(mc_bedrock_storage *s, const mc_allocator *alloc);
/* Deep copy. */
MC_API mc_status mc_bedrock_storage_copy(mc_bedrock_storage *dst, const mc_bedrock_storage *src,
                                         const mc_allocator *alloc);
/* Palette index at `index` (0..4095). */
MC_API uint32_t mc_bedrock_storage_get_index(const mc_bedrock_storage *s, unsigned index);
/* Palette value at `index` (0 for an empty storage). */
MC_API uint32_t mc_bedrock_storage_get(const mc_bedrock_storage *s, unsigned index);
/* Sets the value at `index`, adding it to the palette and widening the
 * storage to the next valid width when needed. */
MC_API mc_status mc_bedrock_storage_set(mc_bedrock_storage *s, unsigned index, uint32_t value,
                                        const mc_allocator *alloc);
/* Builds a storage from 4096 values (e.g. runtime ids in XZY order): the
 * palette in order of first appearance, the smallest valid width. */
MC_API mc_status mc_bedrock_storage_from_values(mc_bedrock_storage *s, const uint32_t *values,
                                                const mc_allocator *alloc);
/* Unpacks all 4096 values (palette applied) into out[4096]. */
MC_API void mc_bedrock_storage_values(const mc_bedrock_storage *s, uint32_t *out);
/* Drops palette entries no index uses and narrows to the smallest valid
 * width (what vanilla-like writers do before saving). */
MC_API mc_status mc_bedrock_storage_compact(mc_bedrock_storage *s, const mc_allocator *alloc);
/* true when every index reads `value`. */
MC_API bool mc_bedrock_storage_is_uniform(const mc_bedrock_storage *s, uint32_t value);

/* ------------------------------------------------------------ subchunks */

/* The exact bytes of one state tag (an NBT compound, little-endian for DISK,
 * network NBT for PERSISTENT). */
typedef struct mc_bedrock_state_tag {
    size_t offset; /* into mc_bedrock_subchunk.tag_bytes */
    size_t len;
} mc_bedrock_state_tag;

typedef struct mc_bedrock_subchunk {
    uint8_t version;       /* as read (0..9); written forms: 1, 8, 9 */
    int8_t y_index;        /* v9: absolute subchunk y (-4 for y -64..-49) */
    mc_bedrock_palette_kind kind;
    uint8_t storage_count; /* 0 = all air */
    mc_bedrock_storage storages[MC_BEDROCK_MAX_STORAGES];
    /* DISK / PERSISTENT: palette values index `tags` */
    mc_bedrock_state_tag *tags;
    size_t tag_count, tag_cap;
    uint8_t *tag_bytes;
    size_t tag_bytes_len, tag_bytes_cap;
    const mc_allocator *alloc;
} mc_bedrock_subchunk;

/* Starts an empty subchunk (version 9, kind RUNTIME, no storages). `alloc`
 * may be NULL (default allocator). */
MC_API void mc_bedrock_subchunk_init(mc_bedrock_subchunk *sc, const mc_allocator *alloc);
/* Frees everything it holds and leaves it empty (reusable). */
MC_API void mc_bedrock_subchunk_free(mc_bedrock_subchunk *sc);
/* Adds a state tag (bytes copied) and returns its index in *index. */
MC_API mc_status mc_bedrock_subchunk_add_tag(mc_bedrock_subchunk *sc, const void *nbt, size_t len,
                                             uint32_t *index);
/* The bytes of state tag `index` (NULL when out of range). */
MC_API const uint8_t *mc_bedrock_subchunk_tag(const mc_bedrock_subchunk *sc, uint32_t index,
                                              size_t *len);

/* Which serialized form to read or write. */
typedef enum mc_bedrock_form {
    MC_BEDROCK_FORM_AUTO = 0,       /* decode: from each storage's runtime flag */
    MC_BEDROCK_FORM_NETWORK = 1,    /* runtime flag 1, zigzag-varint runtime ids */
    MC_BEDROCK_FORM_DISK = 2,       /* runtime flag 0, i32le count + LE NBT */
    MC_BEDROCK_FORM_PERSISTENT = 3  /* runtime flag 0, zigzag count + network NBT */
} mc_bedrock_form;

/* Decodes one serialized subchunk from the start of data[0..len) into `sc`
 * (initialised with mc_bedrock_subchunk_init; whatever it held is freed
 * first, and on failure it is left empty). *consumed (may be NULL) receives the bytes used:
 * network payloads continue with block entities. Versions 0 and 2-7 give a
 * LEGACY storage (ids + meta; light nibbles, if present, are skipped). With
 * FORM_AUTO a storage with runtime flag 0 is read as DISK when its palette
 * starts like little-endian NBT, else as PERSISTENT. */
MC_API mc_status mc_bedrock_subchunk_decode(mc_bedrock_subchunk *sc, const uint8_t *data,
                                            size_t len, mc_bedrock_form form, size_t *consumed,
                                            mc_error *err);

/* Appends `sc` serialized as `version` (1, 8 or 9; v1 writes storage 0 only)
 * in `form` (NETWORK needs a RUNTIME subchunk, DISK a DISK one, PERSISTENT a
 * PERSISTENT one). A storage keeps its width, except that versions 1 and 8
 * write a 0-bit storage as a 1-bit one (0-bit storages came with 1.17.30). */
MC_API mc_status mc_bedrock_subchunk_encode(const mc_bedrock_subchunk *sc, unsigned version,
                                            mc_bedrock_form form, mc_buf *out, mc_error *err);

/* ---------------------------------------------------------------- biomes */

/* Biomes of a column: one storage per subchunk (palette = biome ids),
 * 4096 entries each in XZY order. copy_previous[i] says that storage i was
 * (or is to be) written as "same as the previous" (a header of 127 bits:
 * read as 0xFE or 0xFF, written as 0xFF like vanilla); its storage is then a
 * copy of the previous one. Writers set the runtime bit of every header, as
 * vanilla's Data3D records do (1.17.20-1.18 corpus). */
#define MC_BEDROCK_MAX_BIOME_STORAGES 64
typedef struct mc_bedrock_biomes {
    uint32_t count;
    mc_bedrock_storage storages[MC_BEDROCK_MAX_BIOME_STORAGES];
    bool copy_previous[MC_BEDROCK_MAX_BIOME_STORAGES];
    int16_t heightmap[256];   /* Data3D / Data2D only: the 256 i16 as stored */
    bool has_2d;              /* Data2D: biomes2d valid, storages unused */
    uint8_t biomes2d[256];
} mc_bedrock_biomes;

MC_API void mc_bedrock_biomes_free(mc_bedrock_biomes *b, const mc_allocator *alloc);

/* Disk Data3D (LevelDB tag 0x2B, 1.18+; 1.17.x with Caves & Cliffs): 512-byte
 * heightmap, then storages until the input ends (at most
 * MC_BEDROCK_MAX_BIOME_STORAGES; vanilla 1.17 wrote 32, 1.18 writes 25). */
MC_API mc_status mc_bedrock_data3d_decode(mc_bedrock_biomes *b, const uint8_t *data, size_t len,
                                          const mc_allocator *alloc, mc_error *err);
MC_API mc_status mc_bedrock_data3d_encode(const mc_bedrock_biomes *b, mc_buf *out, mc_error *err);
/* Disk Data2D (tag 0x2D, before 1.18; read only): heightmap + 256 biome ids. */
MC_API mc_status mc_bedrock_data2d_decode(mc_bedrock_biomes *b, const uint8_t *data, size_t len,
                                          mc_error *err);

/* Network biomes of a LevelChunk payload (1.18+): exactly `count` storages
 * (24 overworld, 8 nether, 16 end), runtime-flag headers, 0xFF = copy. */
MC_API mc_status mc_bedrock_biomes_net_decode(mc_bedrock_biomes *b, mc_reader *r, uint32_t count,
                                              const mc_allocator *alloc);
MC_API mc_status mc_bedrock_biomes_net_encode(const mc_bedrock_biomes *b, mc_buf *out,
                                              mc_error *err);

/* Length of one NBT compound (with its root name) at the start of data in
 * little-endian (network=false) or network (network=true) form, without
 * building a tree. MC_ERR_TRUNCATED / MC_ERR_MALFORMED / MC_ERR_LIMIT. */
MC_API mc_status mc_bedrock_nbt_span(const uint8_t *data, size_t len, bool network,
                                     size_t *span, mc_error *err);

/* --------------------------------------------------------------- packets */

enum {
    MC_BEDROCK_PACKET_LEVEL_CHUNK = 58,
    MC_BEDROCK_PACKET_CLIENT_CACHE_STATUS = 129,
    MC_BEDROCK_PACKET_CLIENT_CACHE_BLOB_STATUS = 135,
    MC_BEDROCK_PACKET_CLIENT_CACHE_MISS_RESPONSE = 136,
    MC_BEDROCK_PACKET_UPDATE_SUBCHUNK_BLOCKS = 172,
    MC_BEDROCK_PACKET_SUBCHUNK = 174,
    MC_BEDROCK_PACKET_SUBCHUNK_REQUEST = 175
};

/* LevelChunk sub_chunk_count values that switch on the request system. */
#define MC_BEDROCK_REQUEST_LIMITLESS 0xFFFFFFFFu /* 1.18.0 */
#define MC_BEDROCK_REQUEST_LIMITED 0xFFFFFFFEu   /* 1.18.10+: with highest index */

/* Arrays of u64 blob ids are kept as their little-endian bytes (8 each). */
static inline uint64_t mc_bedrock_u64_at(const uint8_t *le, size_t i)
{
    return mc_load_u64le(le + 8 * i);
}

typedef struct mc_bedrock_level_chunk {
    int32_t x, z;
    int32_t dimension;          /* 649+ */
    uint32_t sub_chunk_count;   /* or MC_BEDROCK_REQUEST_* */
    bool has_highest;           /* count == LIMITED before 2168; option from 2168 */
    int32_t highest_subchunk;
    bool cache_enabled;
    uint32_t blob_count;
    const uint8_t *blob_ids;    /* blob_count * 8 LE bytes */
    const uint8_t *payload;
    size_t payload_len;
} mc_bedrock_level_chunk;

/* Body = the packet after its id varint. Pointers point into `data`. */
MC_API mc_status mc_bedrock_level_chunk_decode(mc_bedrock_level_chunk *p, int protocol,
                                               const uint8_t *data, size_t len, mc_error *err);
MC_API mc_status mc_bedrock_level_chunk_encode(const mc_bedrock_level_chunk *p, int protocol,
                                               mc_buf *out, mc_error *err);

/* SubChunk request results and heightmap types. */
typedef enum mc_bedrock_result {
    MC_BEDROCK_RESULT_UNDEFINED = 0,
    MC_BEDROCK_RESULT_SUCCESS = 1,
    MC_BEDROCK_RESULT_CHUNK_NOT_FOUND = 2,
    MC_BEDROCK_RESULT_INVALID_DIMENSION = 3,
    MC_BEDROCK_RESULT_PLAYER_NOT_FOUND = 4,
    MC_BEDROCK_RESULT_Y_OUT_OF_BOUNDS = 5,
    MC_BEDROCK_RESULT_SUCCESS_ALL_AIR = 6
} mc_bedrock_result;
MC_API const char *mc_bedrock_result_name(unsigned result);

typedef enum mc_bedrock_heightmap_type {
    MC_BEDROCK_HM_NO_DATA = 0,
    MC_BEDROCK_HM_HAS_DATA = 1,
    MC_BEDROCK_HM_ALL_TOO_HIGH = 2,
    MC_BEDROCK_HM_ALL_TOO_LOW = 3,
    MC_BEDROCK_HM_ALL_COPIED = 4 /* 818+ */
} mc_bedrock_heightmap_type;
MC_API const char *mc_bedrock_heightmap_type_name(unsigned type);

typedef struct mc_bedrock_subchunk_entry {
    int8_t dx, dy, dz;
    uint8_t result;
    bool has_payload;
    const uint8_t *payload;    /* subchunk + its block entities */
    size_t payload_len;
    uint8_t heightmap_type;
    const int8_t *heightmap;   /* 256 values, [z][x], when HAS_DATA (or option set) */
    uint8_t render_type;       /* 818+ */
    const int8_t *render_heightmap;
    bool has_blob;
    uint64_t blob_id;
    int8_t hm_rows[512];       /* 2193+: the row-framed heightmaps, gathered here
                                  (then heightmap/render_heightmap point in here) */
} mc_bedrock_subchunk_entry;

typedef struct mc_bedrock_subchunk_packet {
    bool cache_enabled;
    int32_t dimension;
    int32_t x, y, z;           /* center (batched) or the subchunk (471/475) */
    uint32_t count;
    mc_bedrock_subchunk_entry *entries; /* decode: allocated; free below */
    uint32_t entries_cap;
    const mc_allocator *alloc;
} mc_bedrock_subchunk_packet;

MC_API mc_status mc_bedrock_subchunk_packet_decode(mc_bedrock_subchunk_packet *p, int protocol,
                                                   const uint8_t *data, size_t len,
                                                   const mc_allocator *alloc, mc_error *err);
MC_API void mc_bedrock_subchunk_packet_free(mc_bedrock_subchunk_packet *p);
MC_API mc_status mc_bedrock_subchunk_packet_encode(const mc_bedrock_subchunk_packet *p,
                                                   int protocol, mc_buf *out, mc_error *err);

typedef struct mc_bedrock_subchunk_request {
    int32_t dimension;
    int32_t x, y, z;           /* center (or the one subchunk, 471/475) */
    uint32_t count;
    const uint8_t *offsets;    /* count * 3 int8 (dx, dy, dz); NULL for 471/475 */
} mc_bedrock_subchunk_request;

MC_API mc_status mc_bedrock_subchunk_request_decode(mc_bedrock_subchunk_request *p, int protocol,
                                                    const uint8_t *data, size_t len,
                                                    mc_error *err);
MC_API mc_status mc_bedrock_subchunk_request_encode(const mc_bedrock_subchunk_request *p,
                                                    int protocol, mc_buf *out, mc_error *err);
/* Offset i of a request ({0,0,0} for the single form). */
MC_API void mc_bedrock_request_offset(const mc_bedrock_subchunk_request *p, uint32_t i,
                                      int8_t *dx, int8_t *dy, int8_t *dz);

typedef struct mc_bedrock_blob_status {
    uint32_t missing_count, have_count;
    const uint8_t *missing, *have; /* LE u64 arrays */
} mc_bedrock_blob_status;
MC_API mc_status mc_bedrock_blob_status_decode(mc_bedrock_blob_status *p, int protocol,
                                               const uint8_t *data, size_t len, mc_error *err);
MC_API mc_status mc_bedrock_blob_status_encode(const mc_bedrock_blob_status *p, int protocol,
                                               mc_buf *out, mc_error *err);

typedef struct mc_bedrock_blob {
    uint64_t hash;
    const uint8_t *data;
    size_t len;
} mc_bedrock_blob;
/* ClientCacheMissResponse: decoding fills up to `cap` blobs into `blobs`
 * and sets *count to the number in the packet (MC_ERR_RANGE if > cap). */
MC_API mc_status mc_bedrock_miss_response_decode(const uint8_t *data, size_t len,
                                                 mc_bedrock_blob *blobs, uint32_t cap,
                                                 uint32_t *count, mc_error *err);
MC_API mc_status mc_bedrock_miss_response_encode(const mc_bedrock_blob *blobs, uint32_t count,
                                                 mc_buf *out);

/* Reads the packet id varint at the start of a packet. */
MC_API mc_status mc_bedrock_packet_id(const uint8_t *data, size_t len, uint32_t *id,
                                      size_t *header_len, mc_error *err);

/* A full (non-request) LevelChunk payload: sub_chunk_count subchunks in
 * network form, then the biomes (1.18+: storages until the border byte;
 * before: 256 bytes of 2D biomes), the border-block list (u8 count + bytes)
 * and the block entities (concatenated network NBT). In request mode (and
 * with the cache) pass sub_chunk_count 0: only biomes, border and block
 * entities remain. Subchunks keep their version, so encoding a decoded
 * payload gives the same bytes. */
typedef struct mc_bedrock_chunk_payload {
    uint32_t subchunk_count;
    mc_bedrock_subchunk *subchunks;
    mc_bedrock_biomes biomes;
    bool has_biomes;
    bool cached;                    /* no subchunks or biomes in the payload */
    uint8_t border_count;
    const uint8_t *border;          /* into the input */
    const uint8_t *block_entities;  /* into the input */
    size_t block_entities_len;
    const mc_allocator *alloc;
} mc_bedrock_chunk_payload;

MC_API mc_status mc_bedrock_chunk_payload_decode(mc_bedrock_chunk_payload *p, int protocol,
                                                 uint32_t sub_chunk_count, bool cached,
                                                 const uint8_t *data,
                                                 size_t len, const mc_allocator *alloc,
                                                 mc_error *err);
MC_API mc_status mc_bedrock_chunk_payload_encode(const mc_bedrock_chunk_payload *p, int protocol,
                                                 mc_buf *out, mc_error *err);
MC_API void mc_bedrock_chunk_payload_free(mc_bedrock_chunk_payload *p);

/* ------------------------------------------------------------ blob cache */

/* Blob id of a payload: xxHash64 with seed 0. */
MC_API uint64_t mc_bedrock_blob_hash(const void *data, size_t len);

/* A bounded cache of blobs by id (what a server keeps to answer
 * ClientCacheMissResponse). Least recently stored blobs are evicted first
 * once `max_bytes` is exceeded. Not thread-safe. */
typedef struct mc_bedrock_blob_cache mc_bedrock_blob_cache;
MC_API mc_bedrock_blob_cache *mc_bedrock_blob_cache_new(size_t max_bytes, const mc_allocator *alloc);
MC_API void mc_bedrock_blob_cache_free(mc_bedrock_blob_cache *c);
/* Stores a copy of data (hashing it) and returns its id in *id. */
MC_API mc_status mc_bedrock_blob_cache_put(mc_bedrock_blob_cache *c, const void *data, size_t len,
                                           uint64_t *id);
/* Finds a blob: returns its bytes (valid until the next put) or NULL. */
MC_API const uint8_t *mc_bedrock_blob_cache_get(const mc_bedrock_blob_cache *c, uint64_t id,
                                                size_t *len);
MC_API size_t mc_bedrock_blob_cache_count(const mc_bedrock_blob_cache *c);

/* ------------------------------------------------------ columns, engine */

/* Dimension ids and their subchunk ranges (OW -4..19, Nether 0..7, End 0..15). */
enum { MC_BEDROCK_OVERWORLD = 0, MC_BEDROCK_NETHER = 1, MC_BEDROCK_END = 2 };
/* Sets the lowest subchunk y and the count for a dimension; MC_ERR_RANGE for
 * an unknown dimension. */
MC_API mc_status mc_bedrock_dimension_range(int32_t dimension, int32_t *min_y, uint32_t *count);

/* A column in Bedrock network form: what the request engine serves. The
 * subchunks use RUNTIME palettes; `air` is the runtime id of minecraft:air;
 * block_entities[i] are that subchunk's block entities as concatenated
 * network NBT (may be empty). heights[z*16+x] = 1 + y of the highest non-air
 * block, absolute (min_y*16 when the column is empty), computed by
 * mc_bedrock_column_update_heights. */
typedef struct mc_bedrock_column {
    int32_t x, z, dimension;
    int32_t min_y;              /* lowest subchunk y (-4 overworld) */
    uint32_t count;             /* subchunks (24 overworld) */
    mc_bedrock_subchunk *subchunks;
    mc_buf *block_entities;
    mc_bedrock_biomes biomes;   /* count storages (may be 0: then none sent) */
    uint32_t air;
    int16_t heights[256];
    const mc_allocator *alloc;
} mc_bedrock_column;

MC_API mc_status mc_bedrock_column_init(mc_bedrock_column *c, int32_t x, int32_t z,
                                        int32_t dimension, uint32_t air,
                                        const mc_allocator *alloc);
/* The same with an explicit range (e.g. min_y 0, count 16 for a pre-1.18
 * overworld). */
MC_API mc_status mc_bedrock_column_init_range(mc_bedrock_column *c, int32_t x, int32_t z,
                                              int32_t dimension, int32_t min_y, uint32_t count,
                                              uint32_t air, const mc_allocator *alloc);
MC_API void mc_bedrock_column_free(mc_bedrock_column *c);
MC_API void mc_bedrock_column_update_heights(mc_bedrock_column *c);
/* Index of the highest subchunk holding a non-air block, or -1. */
MC_API int mc_bedrock_column_highest(const mc_bedrock_column *c);
/* The per-subchunk heightmap of subchunk index i (0 = lowest): returns the
 * type and, for HAS_DATA, fills out[256] ([z][x]; -1 below, 16 above). */
MC_API mc_bedrock_heightmap_type mc_bedrock_column_subchunk_heightmap(const mc_bedrock_column *c,
                                                                      uint32_t i, int8_t out[256]);

/* Appends a network payload for subchunk index i: v9 subchunk + its block
 * entities (the SubChunk-packet payload and blob). */
MC_API mc_status mc_bedrock_column_subchunk_payload(const mc_bedrock_column *c, uint32_t i,
                                                    mc_buf *out, mc_error *err);

/* Appends the payload of a full (non-request, non-cached) LevelChunk for
 * `protocol`: subchunks 0..highest non-air (v9 from 1.18, else v8), the
 * biomes (network storages from 1.18; before, 256 bytes of 2D biomes: the
 * biome at y 0 of storage 0, or zeros without biomes), the border byte and all block entities. *sub_chunk_count receives the
 * count to put in the packet. */
MC_API mc_status mc_bedrock_column_full_payload(const mc_bedrock_column *c, int protocol,
                                                mc_buf *out, uint32_t *sub_chunk_count,
                                                mc_error *err);

/* Where the engine gets columns from. get() returns MC_OK with *col set (the
 * source keeps ownership until release()), MC_ERR_NOT_FOUND when the chunk
 * does not exist. release may be NULL. */
typedef struct mc_bedrock_world_source {
    void *user;
    mc_status (*get)(void *user, int32_t dimension, int32_t cx, int32_t cz,
                     const mc_bedrock_column **col);
    void (*release)(void *user, const mc_bedrock_column *col);
} mc_bedrock_world_source;

typedef struct mc_bedrock_engine mc_bedrock_engine;

typedef struct mc_bedrock_engine_options {
    int protocol;            /* client protocol (layouts); 0: 1.21.60 */
    bool cache_enabled;      /* the client sent ClientCacheStatus{true} */
    int32_t player_dimension;/* requests for another dimension: InvalidDimension */
    size_t cache_max_bytes;  /* blob cache budget; 0: 64 MiB */
} mc_bedrock_engine_options;

MC_API mc_bedrock_engine *mc_bedrock_engine_new(const mc_bedrock_world_source *src,
                                                const mc_bedrock_engine_options *opt,
                                                const mc_allocator *alloc);
MC_API void mc_bedrock_engine_free(mc_bedrock_engine *e);
/* The engine's blob cache (to answer ClientCacheBlobStatus misses). */
MC_API mc_bedrock_blob_cache *mc_bedrock_engine_cache(mc_bedrock_engine *e);

/* Appends the skeleton LevelChunk body (without packet id) that starts the
 * request system for a column: count = LIMITED with the highest non-air
 * subchunk (LIMITLESS for 1.18.0), payload = biomes + border byte; with the
 * cache, the biomes go into a blob (stored in the engine cache). */
MC_API mc_status mc_bedrock_engine_level_chunk(mc_bedrock_engine *e, const mc_bedrock_column *col,
                                               mc_buf *out, mc_error *err);
/* Answers a SubChunkRequest body (without id): appends the SubChunk packet
 * body (without id). */
MC_API mc_status mc_bedrock_engine_answer(mc_bedrock_engine *e, const uint8_t *request,
                                          size_t request_len, mc_buf *out, mc_error *err);
/* Answers a decoded request. */
MC_API mc_status mc_bedrock_engine_answer_request(mc_bedrock_engine *e,
                                                  const mc_bedrock_subchunk_request *req,
                                                  mc_buf *out, mc_error *err);

/* ------------------------------------------ the chunk model (mc_column) */

/* How registry states of a column become Bedrock runtime ids: through the
 * registry module's state map when the column is in another registry (a
 * Java world served to Bedrock clients), then, for clients that announced
 * hashed ids, through the state's FNV-1a hash. */
typedef struct mc_bedrock_ids {
    const mc_registry *from;  /* the column's registry */
    const mc_registry *to;    /* a Bedrock registry */
    const uint32_t *map;      /* from -> to, NULL when from == to */
    uint32_t from_count;
    bool hashed;
    uint32_t air;             /* the output id of minecraft:air */
    uint32_t water;           /* the output id of minecraft:water[liquid_depth=0]
                                 (storage 1 of waterlogged blocks); MC_STATE_NONE
                                 when `to` has none */
    bool from_java;           /* `from` is a Java registry: waterlogged states
                                 get a water layer, block entities are translated */
} mc_bedrock_ids;

/* Prepares the mapping. MC_ERR_INVALID_ARG when `to` is not a Bedrock
 * registry, MC_ERR_NOMEM when the state map cannot be built. */
MC_API mc_status mc_bedrock_ids_init(mc_bedrock_ids *ids, const mc_registry *from,
                                     const mc_registry *to, bool hashed);
/* The output id of a state of `from`. */
MC_API uint32_t mc_bedrock_ids_map(const mc_bedrock_ids *ids, uint32_t state);

/* The Bedrock registry state of a palette NBT compound {name, states}
 * (little-endian, or network NBT when `network`): MC_ERR_NOT_FOUND when the
 * registry has no such state, MC_ERR_MALFORMED for a bad tag. Byte states
 * are matched as false/true (what the registries print) or as numbers. */
MC_API mc_status mc_bedrock_state_from_nbt(const mc_registry *reg, const uint8_t *nbt, size_t len,
                                           bool network, uint32_t *state, mc_error *err);
/* The other way: state `state` of Bedrock registry `reg` as a palette NBT
 * compound {name, states, version} appended to `out` (little-endian, or
 * network NBT when `network`), as the game writes it: "true"/"false"
 * values as bytes, numbers as ints, the rest as strings; version is the
 * block-state version of 1.21.60. MC_ERR_NOT_FOUND for a state `reg` lacks. */
MC_API mc_status mc_bedrock_state_to_nbt(const mc_registry *reg, uint32_t state, bool network, mc_buf *out,
                                         mc_error *err);

/* A section's blocks as a network subchunk (storage 0, RUNTIME palette, the
 * smallest valid width; an all-air section gives storage_count 0), and for
 * a Java section with waterlogged=true states storage 1 of water and air
 * (1 bit; 0 bits when every block is waterlogged). O(4096) for the XZY
 * transposition, O(palette) for the ids. */
MC_API mc_status mc_bedrock_subchunk_from_section(mc_bedrock_subchunk *sc, const mc_section *s,
                                                  const mc_bedrock_ids *ids, int8_t y_index);
/* Storage 0 of a subchunk into a section of Bedrock registry `reg` (the
 * section is initialised here). RUNTIME palettes are runtime ids (hashes
 * when `hashed`), DISK/PERSISTENT palettes are looked up by name and
 * states. Unknown ids or states are MC_ERR_NOT_FOUND; LEGACY subchunks
 * MC_ERR_UNSUPPORTED. Storages past 0 are not read here (a section has one
 * state per block; the column functions keep them, see the top). */
MC_API mc_status mc_bedrock_subchunk_to_section(const mc_bedrock_subchunk *sc, mc_section *s,
                                                const mc_registry *reg, bool hashed,
                                                const mc_allocator *alloc, mc_error *err);
/* The same into a section of registry `target` (NULL: `reg`): the states of
 * `reg` go through mc_registry_map(reg, target); for a Java target the
 * water layer (storage 1) is folded into waterlogged=true states as the
 * top of this file says. */
MC_API mc_status mc_bedrock_subchunk_to_section_in(const mc_bedrock_subchunk *sc, mc_section *s,
                                                   const mc_registry *reg, bool hashed,
                                                   const mc_registry *target,
                                                   const mc_allocator *alloc, mc_error *err);

/* A whole column: every section (at the column's own range; Java
 * waterlogged states with a water layer), the storages past 0 a Bedrock
 * column kept in its extra NBT, the biomes (cells spread to 4x4x4 blocks,
 * ids translated by name when the registries differ), block entities
 * (network NBT in the subchunk holding them: a Java column's translated by
 * mc_bedrock_block_entity_from_java and left out when they have no Bedrock
 * counterpart, a Bedrock column's as they are) and the heights. Reads the
 * column's NBT document, which the column creates on first use (see
 * java.h on sharing columns between threads). */
MC_API mc_status mc_bedrock_column_from_mc_column(mc_bedrock_column *out, const mc_column *col,
                                                  int32_t dimension, const mc_bedrock_ids *ids,
                                                  const mc_allocator *alloc, mc_error *err);
/* And back: a new mc_column in Bedrock registry `reg` (blocks of storage 0,
 * biomes sampled at each cell's low corner, block entities parsed from the
 * network NBT and keyed by their x, y, z). NULL on failure (err says). */
MC_API mc_column *mc_bedrock_column_to_mc_column(const mc_bedrock_column *c, const mc_registry *reg,
                                                 bool hashed, const mc_allocator *alloc,
                                                 mc_error *err);
/* The same into any registry `target` (NULL: `reg`): blocks and biomes
 * translated from `reg`. For a Bedrock target the storages past 0 go into
 * the extra NBT ("mcchunk:bedrock_layers"); for a Java target the water
 * layer becomes waterlogged states and the block entities take the Java
 * shape of the target's version together with the blocks they decide (a
 * Bedrock bed of color 14 becomes red_bed, a Banner's Base the banner's
 * colour, a Skull's SkullType the skull or head block, a FlowerPot's
 * PlantBlock the potted_* block, a Chest's pairx/pairz type=left/right;
 * sign text, banner patterns, spawner entity, names and the items Java
 * has: src/bedrock/blockentity_java.c lists the rules); a block entity
 * Java has no kind for is left out. */
MC_API mc_column *mc_bedrock_column_to_mc_column_in(const mc_bedrock_column *c,
                                                    const mc_registry *reg, bool hashed,
                                                    const mc_registry *target,
                                                    const mc_allocator *alloc, mc_error *err);
/* The same, adding to *report (translate.h's mc_be_report; may be NULL)
 * what the block entities' translation to Java dropped, per kind. */
struct mc_be_report;
MC_API mc_column *mc_bedrock_column_to_mc_column_report(const mc_bedrock_column *c,
                                                        const mc_registry *reg, bool hashed,
                                                        const mc_registry *target,
                                                        const mc_allocator *alloc,
                                                        struct mc_be_report *report, mc_error *err);

/* Block entities between the editions (src/bedrock/blockentity.c lists
 * the rules: which fields are translated for chests, signs, beds, banners,
 * skulls and spawners, and what is dropped).
 * The Bedrock id of a Java block-entity id ("minecraft:chest" -> "Chest",
 * also the pre-1.11 names such as "Chest", "Trap"), or NULL. */
MC_API const char *mc_bedrock_block_entity_id(const char *java_id, size_t len);
/* The Java id of a Bedrock one ("Chest" -> "minecraft:chest"), or NULL. */
MC_API const char *mc_bedrock_block_entity_java_id(const char *bedrock_id, size_t len);
/* Appends the Bedrock network-NBT form of a Java block entity at absolute
 * (x, y, z); `java_state` is the Java block there (state of `java_reg`,
 * which may be NULL: then nothing comes from the block). The id comes from
 * the tag's "id", else from the block's name. MC_ERR_NOT_FOUND (nothing
 * written) when it has no Bedrock counterpart. */
MC_API mc_status mc_bedrock_block_entity_from_java(const mc_nbt_tag *java, int32_t x, int32_t y,
                                                   int32_t z, const mc_registry *java_reg,
                                                   uint32_t java_state, mc_buf *out, mc_error *err);

/* A world source over mc_column providers, for the engine: columns are
 * converted on first request and kept (up to `max_columns`, least recently
 * used evicted) until invalidated. Not thread-safe. */
typedef struct mc_bedrock_mc_source mc_bedrock_mc_source;
typedef struct mc_bedrock_column_provider {
    void *user;
    /* MC_OK with *col, or MC_ERR_NOT_FOUND. The provider keeps ownership. */
    mc_status (*get)(void *user, int32_t dimension, int32_t cx, int32_t cz, const mc_column **col);
    void (*release)(void *user, const mc_column *col); /* may be NULL */
} mc_bedrock_column_provider;

MC_API mc_bedrock_mc_source *mc_bedrock_mc_source_new(const mc_bedrock_column_provider *provider,
                                                      const mc_registry *bedrock, bool hashed,
                                                      size_t max_columns,
                                                      const mc_allocator *alloc);
MC_API void mc_bedrock_mc_source_free(mc_bedrock_mc_source *s);
/* Forget the converted copy of a column (after its blocks changed). */
MC_API void mc_bedrock_mc_source_invalidate(mc_bedrock_mc_source *s, int32_t dimension,
                                            int32_t cx, int32_t cz);
/* The source as an mc_bedrock_world_source for mc_bedrock_engine_new. */
MC_API mc_bedrock_world_source mc_bedrock_mc_source_world(mc_bedrock_mc_source *s);

#ifdef __cplusplus
}
#endif
#endif
