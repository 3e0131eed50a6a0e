/*
 * mcchunk/chunknbt.h: the chunk NBT of Anvil region files (every Java
 * DataVersion, 1.8 to 26.x) to and from the chunk model (mc_column).
 *
 * READING
 * mc_chunknbt_read() turns a chunk's NBT root into a column. The chunk's own
 * DataVersion picks the reader (no setting does):
 *   - absent .. 1343 (1.8-1.12.2): Level{Sections[{Y, Blocks, Add?, Data}],
 *     Biomes byte[256], HeightMap int[256]}; states are id<<4|meta of the
 *     release's legacy registry;
 *   - 1451 .. 2526 (1.13-1.15): Level{Sections[{Palette, BlockStates}]} with
 *     spanning longs, Biomes int[256] (before 2203) or int[1024];
 *   - 2527 .. 2831 (1.16-1.17): the same with padded longs; 2709+ may have
 *     negative sections (custom heights);
 *   - 2832 .. 2843 (1.18 snapshots 21w37a-21w42a): still under Level, but
 *     sections hold block_states{palette, data} and biomes{palette, data}
 *     (no Biomes array); 2841+: tick lists of {i, x, y, z, t, p} and
 *     LiquidTicks renamed fluid_ticks; 2842+: no Level wrapper and the
 *     snake_case keys (sections, block_entities, block_ticks, structures);
 *   - 2844+ (1.18+): as 2842, plus yPos; light-only sections;
 *   - a DataVersion newer than every known one is read by its structure with
 *     the newest registry and a warning, never refused.
 * Proto-chunks of every Status read like full chunks (their extra keys go to
 * the extra NBT).
 *
 * The column's registry is the release of that DataVersion
 * (mc_registry_find_data_version) unless the options name one. Biome ids are
 * that registry's: numeric legacy ids before 1.18 (as stored), registry
 * order from 1.18. Keys the model does not interpret are kept in the
 * column's extra NBT (mc_column_extra) in their original place: root keys at
 * its top, pre-1.18 Level keys under extra "Level", per-section keys and
 * sections outside the column's range (light-only sections) as entries of
 * extra "sections" (each with its "Y"), and anything the model could only
 * hold lossily (2D biomes of 1.8-1.14, the legacy HeightMap, heightmaps the
 * model cannot take) as the original tag. Keys named "mcchunk:..." in the
 * extra NBT are the writer's bookkeeping (e.g. which pre-1.18 sections were
 * stored with block data); the writer never emits them.
 *
 * WRITING
 * mc_chunknbt_write() builds the chunk NBT of a target DataVersion exactly as
 * the game writes it: 1.18+ block palettes in first-occurrence order at 4
 * bits for 2-16 entries, exact widths 5-8 and ceil(log2 n) above 256 (never
 * the global width), biome palettes at ceil(log2 n), "data" omitted for one
 * entry; 1.13-1.17 palettes at max(4, ceil(log2 n)) bits (no global palette
 * on disk), spanning before DataVersion 2527 and padded from it; 1.8-1.12
 * Blocks/Add/Data nibbles. Writing a column read from a chunk for that same
 * DataVersion gives a tree equal (mc_nbt_equal) to the original: palettes
 * keep the order they were read in where the game keeps it.
 *
 * Writing for another DataVersion converts through the registries
 * (mc_registry_map), drops what the target cannot hold (sections outside its
 * height, states and biomes it lacks, extra keys of another format era) and
 * says what it dropped in an mc_chunknbt_report.
 *
 * Sections follow the rules of the target's DataVersion, whatever era the
 * column came from: 1.8-1.12 store Y 0..15 sections with blocks, each with
 * BlockLight and SkyLight; 1.13 stores Y 0..15, each section with Palette,
 * BlockStates, BlockLight and SkyLight (never a light-only section, never Y
 * -1 or 16); 1.14-1.17 may store sections with light (or only their Y) and
 * no blocks, also at Y -1 and 16; 1.18+ stores every section of the
 * column's range (yPos up) with block_states and biomes, and light-only
 * sections just outside it. Where the target needs light the column lacks,
 * it is filled and counted (mc_chunknbt_report.light_filled). A column
 * without any light is written with isLightOn 0 (1.14+) or LightPopulated
 * 0 (1.8-1.12), so that the game lights it (the light engine, mc_light_*,
 * can do that first); a column with light says 1.
 *
 * FAST PATH
 * mc_chunknbt_read_container() reads one 1.18+ block_states or biomes
 * compound into a container; when the disk width is the width the container
 * keeps (every block palette of 1-256 entries, biomes of 1-8), the longs are
 * byte-swapped straight into it with no repacking. The Java network codecs
 * and the server use it together with an mc_chunknbt_cache.
 *
 * THREADS
 * Functions are reentrant; a cache belongs to one thread at a time.
 */
#ifndef MCCHUNK_CHUNKNBT_H
#define MCCHUNK_CHUNKNBT_H

#include "mcchunk/chunk.h"
#include "mcchunk/nbt.h"
#include "mcchunk/registry.h"
#include "mcchunk/translate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DataVersion boundaries of the chunk formats (DataFixer schema numbers). */
#define MC_CHUNKNBT_DV_FLATTENING 1451  /* 17w47a: Palette + BlockStates */
#define MC_CHUNKNBT_DV_BIOMES_3D 2203   /* 19w36a: Biomes int[1024] */
#define MC_CHUNKNBT_DV_PADDED 2527      /* 20w17a: padded long arrays */
#define MC_CHUNKNBT_DV_HEIGHT 2709      /* 21w15a: variable world height */
#define MC_CHUNKNBT_DV_NO_LEVEL 2844    /* 21w43a: yPos (Level went at 2842, block_states
                                           came at 2832: see above) */

/* Passed as data_version to the writer: the column's own DataVersion (the
 * one it was read from; for a column built in memory, that of its registry). */
#define MC_CHUNKNBT_OWN_VERSION (-1)

/* A cache of palette entries -> state ids and biome names -> ids, per
 * registry. Reuse one per thread across chunks: reading then resolves each
 * distinct palette entry through the registry once. */
typedef struct mc_chunknbt_cache mc_chunknbt_cache;
MC_API mc_chunknbt_cache *mc_chunknbt_cache_new(const mc_allocator *alloc);
MC_API void mc_chunknbt_cache_free(mc_chunknbt_cache *cache);
/* The state of one 1.13+ block palette entry {Name, Properties?} given as
 * the Java NBT payload of its compound, entry[0..len) (its tags up to and
 * including the TAG_End), for a reader that walks chunk bytes itself:
 * keyed by those bytes, so registry `reg` resolves each distinct entry once
 * per cache; a miss parses the bytes (checking them). MC_OK, MC_ERR_NOT_FOUND
 * for a state `reg` lacks (*state is then its air, as the chunk reader reads
 * it), MC_ERR_MALFORMED for bytes that are not such an entry, MC_ERR_NOMEM. */
MC_API mc_status mc_chunknbt_cache_block_bytes(mc_chunknbt_cache *cache, const mc_registry *reg,
                                               const uint8_t *entry, size_t len, uint32_t *state);

/* Reader flags. */
enum {
    /* Fail (MC_ERR_MALFORMED) on what is otherwise repaired with a warning:
     * unknown block states or biomes (else air / biome 0, the original kept
     * in the extra NBT where possible), malformed heightmaps or light. */
    MC_CHUNKNBT_STRICT = 1u << 0,
    /* Keep no extra NBT and no block entities (for viewers that need only
     * blocks, biomes, light and heightmaps). Such a column does not round
     * trip. */
    MC_CHUNKNBT_NO_EXTRA = 1u << 1,
    /* Do not read light arrays. */
    MC_CHUNKNBT_NO_LIGHT = 1u << 2,
    /* With MC_CHUNKNBT_NO_EXTRA: still read the block entities (what a
     * server sends in chunk packets: sign text, banners, skulls...), and
     * keep nothing else. */
    MC_CHUNKNBT_BLOCK_ENTITIES = 1u << 3,
    /* mc_chunknbt_read_bytes_ex with MC_CHUNKNBT_NO_EXTRA and an info: the
     * 1.8-1.12 sections it reads from their bytes keep their block arrays
     * as they are stored instead of converting them (the column's section
     * stays air; info->legacy_blocks says where the bytes are), for a
     * reader that looks at a few blocks of each section only (a map's top
     * blocks). A section with Add (ids past 255) is converted as usual. */
    MC_CHUNKNBT_LEGACY_RAW = 1u << 4
};

typedef struct mc_chunknbt_options {
    unsigned flags;              /* MC_CHUNKNBT_* */
    /* The dimension's height in sections: used when section_count != 0
     * (worlds with custom heights, or a pre-1.18 dimension read at 1.18
     * height). 0: derived from the chunk (pre-1.17: 0..15; 1.17: from the
     * biome array and the lowest block section; 1.18+: yPos to the highest
     * section with block_states). */
    int32_t min_section;
    uint32_t section_count;
    const mc_registry *registry; /* NULL: the chunk's DataVersion's */
    mc_chunknbt_cache *cache;    /* NULL: a temporary one per call (slower) */
    const mc_allocator *alloc;   /* for the column; NULL: default */
    /* Called for every warning (may be NULL). */
    void (*warn)(void *user, const char *message);
    void *warn_user;
    /* A document mc_chunknbt_read_bytes may use for its parse and reset
     * afterwards (reuse one per thread across chunks; NULL: a temporary
     * one per call). */
    mc_nbt_doc *doc;
} mc_chunknbt_options;

/* What a read found (optional output of mc_chunknbt_read_ex). */
typedef struct mc_chunknbt_info {
    int32_t data_version;        /* 0 when the chunk has none (1.8) */
    const char *status;          /* "minecraft:full", "full", ... or NULL;
                                    points into the NBT tree */
    size_t status_len;
    uint32_t sections_read;      /* sections with block data */
    uint32_t unknown_states;     /* palette entries not in the registry */
    uint32_t unknown_biomes;
    uint32_t warnings;
    bool newer_than_known;       /* read with the newest reader */
    bool sections_from_bytes;    /* mc_chunknbt_read_bytes read the sections
                                    from their bytes (not from a tree) */
    /* With MC_CHUNKNBT_LEGACY_RAW: section y's (0..15) Blocks (4096 bytes:
     * the id of block x, y&15, z at (y&15) << 8 | z << 4 | x) and Data
     * (2048: its metadata in the low nibble of byte index/2 for an even
     * index, the high one for odd), pointers into the input `nbt`; the
     * state is id << 4 | metadata (below the registry's state count).
     * NULL where the column holds the section's blocks. */
    const uint8_t *legacy_blocks[16][2];
} mc_chunknbt_info;

/* Reads a chunk NBT root (a compound as stored in a region file) into a new
 * column (free with mc_column_free). The column copies what it keeps: the
 * tree (and its input bytes) may go away afterwards. opt may be NULL.
 * Errors: MC_ERR_MALFORMED (with the path of the bad tag in the message) for
 * structure the format does not allow (wrong tag types, long arrays of the
 * wrong length, palette indices out of range), MC_ERR_NOMEM. */
MC_API mc_status mc_chunknbt_read(const mc_nbt_tag *root, const mc_chunknbt_options *opt,
                                  mc_column **out, mc_error *err);
MC_API mc_status mc_chunknbt_read_ex(const mc_nbt_tag *root, const mc_chunknbt_options *opt,
                                     mc_column **out, mc_chunknbt_info *info, mc_error *err);
/* Parses uncompressed Java NBT bytes and reads them: the fastest way to
 * read a chunk. The sections of a 1.18+ chunk are read straight from their
 * bytes (no tree is built for them: palette entries are looked up in the
 * cache by their stored bytes, long arrays and light go to the column as
 * they are), and so are the Level.Sections of older chunks (Palette +
 * BlockStates, or Blocks, Data and Add); a chunk with anything that reader
 * does not take (an unknown state, a warning, a key of its own in a
 * section) is parsed whole and read by mc_chunknbt_read. The
 * root keys the model does not read (ticks, structures, post-processing,
 * ...) are checked as a full parse checks them but not built: the column
 * keeps their bytes and parses them into its extra NBT, in the chunk's
 * order, when mc_column_extra or mc_column_nbt is first called
 * (mc_column_defer_extra), so a reader that never asks does not pay for
 * them. The column, the info, the warnings and the errors are those
 * mc_chunknbt_read gives for the parsed tree (info->status points into
 * `nbt`). */
MC_API mc_status mc_chunknbt_read_bytes(const uint8_t *nbt, size_t len,
                                        const mc_chunknbt_options *opt, mc_column **out,
                                        mc_error *err);
MC_API mc_status mc_chunknbt_read_bytes_ex(const uint8_t *nbt, size_t len,
                                           const mc_chunknbt_options *opt, mc_column **out,
                                           mc_chunknbt_info *info, mc_error *err);

/* Parses uncompressed Java chunk NBT for a read with reader flags `flags`
 * (MC_CHUNKNBT_*). With MC_CHUNKNBT_NO_EXTRA the chunk keys such a read does
 * not use (ticks, structures, post-processing, entities, ...; the block
 * entities too unless MC_CHUNKNBT_BLOCK_ENTITIES) are stepped over and
 * checked for structure but not built (mc_nbt_parse_filtered); otherwise it
 * is mc_nbt_parse. */
MC_API mc_status mc_chunknbt_parse(mc_nbt_doc *doc, const void *nbt, size_t len, unsigned flags,
                                   mc_error *err);

/* The DataVersion of a chunk root (0 when absent). */
MC_API int32_t mc_chunknbt_data_version(const mc_nbt_tag *root);
/* The DataVersion a column was read from (from its extra NBT), else the
 * DataVersion of its registry's release. */
MC_API int32_t mc_chunknbt_column_data_version(mc_column *col);
/* The registry that reads or writes a DataVersion: the release with it, or
 * the newest one for later DataVersions (0: 1.8). */
MC_API const mc_registry *mc_chunknbt_registry_for(int32_t data_version);

/* ------------------------------------------------------------- writing */

/* What a conversion dropped or changed. Zero-initialise. */
enum {
    MC_CHUNKNBT_DROP_STATES = 1u << 0,   /* states the target lacks became others/air */
    MC_CHUNKNBT_DROP_BIOMES = 1u << 1,   /* biomes the target lacks became its first */
    MC_CHUNKNBT_DROP_SECTIONS = 1u << 2, /* sections outside the target's height */
    MC_CHUNKNBT_DROP_EXTRA = 1u << 3,    /* extra keys of another format era */
    MC_CHUNKNBT_DROP_BIOME_RES = 1u << 4,/* 3D biomes flattened to 2D */
    MC_CHUNKNBT_DROP_BLOCK_ENTITIES = 1u << 5, /* block entities outside the height */
    MC_CHUNKNBT_DROP_BLOCK_ENTITY_DATA = 1u << 6 /* block entity data the target cannot hold
                                                    (block_entity_report.lost) */
};

#define MC_CHUNKNBT_REPORT_TEXT 2048
typedef struct mc_chunknbt_report {
    unsigned dropped;            /* MC_CHUNKNBT_DROP_* */
    uint32_t states_inexact;     /* distinct source states not translated exactly */
    uint32_t states_to_air;      /* of which became air */
    uint32_t biomes_inexact;     /* distinct biomes the target lacks */
    uint32_t sections_dropped;
    uint32_t extra_dropped;      /* extra keys not written */
    uint32_t block_entities_dropped;
    /* Sections given light the column lacked, because the target stores
     * BlockLight and SkyLight in every section (1.8-1.13): block light 0,
     * sky light filled straight down each x,z column (15 from the top, or
     * the bottom layer of the nearest stored sky light above, down to the
     * first non-air block; 0 from there). Not a light engine: the game
     * relights what it changes. Also one line in `text`. */
    uint32_t light_filled;
    /* Block entities translated to the target's DataVersion (signs, banners,
     * beds, skulls, pots, containers, spawners...: see translate.h), with
     * what could not be carried counted by kind; also lines in `text`
     * ("block entities: 2 sign text not carried"). Only a write for another
     * DataVersion translates. */
    mc_be_report block_entity_report;
    /* One line per item, e.g. "state minecraft:cherry_log[axis=y] -> minecraft:oak_log[axis=y]
     * (ancestor)", "extra key Level.Structures (format era differs)";
     * NUL-terminated, truncated with "..." when long. */
    char text[MC_CHUNKNBT_REPORT_TEXT];
    size_t text_len;
} mc_chunknbt_report;

/* Writes the column as the chunk NBT of `data_version` into `out` (reset
 * first; the root is a compound named ""). data_version: a DataVersion, 0
 * for 1.8 (no DataVersion key), or MC_CHUNKNBT_OWN_VERSION. `dropped` may be
 * NULL. The column is not changed. Errors: MC_ERR_RANGE for a DataVersion
 * without a registry older than 1.8, MC_ERR_NOMEM. */
MC_API mc_status mc_chunknbt_write(const mc_column *col, int32_t data_version, mc_nbt_doc *out,
                                   mc_chunknbt_report *dropped, mc_error *err);
/* The same, appended as uncompressed Java NBT bytes to `out`. */
MC_API mc_status mc_chunknbt_write_bytes(const mc_column *col, int32_t data_version, mc_buf *out,
                                         mc_chunknbt_report *dropped, mc_error *err);

/* A reusable chunk writer for one thread: the bytes path. It writes the
 * same bytes as mc_chunknbt_write + mc_nbt_write (MC_NBT_JAVA), but the
 * sections list -- most of a chunk -- goes straight from the model into
 * bytes, its palette entries made once per state and kept, instead of
 * through a tree. Not for two threads at once. */
typedef struct mc_chunknbt_writer mc_chunknbt_writer;

/* A new writer, NULL without memory. Free with mc_chunknbt_writer_free. */
MC_API mc_chunknbt_writer *mc_chunknbt_writer_new(void);
MC_API void mc_chunknbt_writer_free(mc_chunknbt_writer *wr);
/* mc_chunknbt_write_bytes through `wr` (faster when it writes many chunks). */
MC_API mc_status mc_chunknbt_writer_write_bytes(mc_chunknbt_writer *wr, const mc_column *col, int32_t data_version,
                                                mc_buf *out, mc_chunknbt_report *dropped, mc_error *err);
/* For a caller that changes the chunk before writing it: mc_chunknbt_write
 * into `out`, except that the sections list is left empty in the tree and
 * held by `wr` as bytes until mc_chunknbt_writer_serialise. Any other key
 * may be added, changed or removed in between; the sections list itself
 * must stay in the tree untouched (and `out` must not be reset). */
MC_API mc_status mc_chunknbt_writer_build(mc_chunknbt_writer *wr, const mc_column *col, int32_t data_version,
                                          mc_nbt_doc *out, mc_chunknbt_report *dropped, mc_error *err);
/* Appends `doc`, the tree of the writer's last mc_chunknbt_writer_build, to
 * `out` as Java NBT (what mc_nbt_write writes), the held sections list in
 * its place. MC_ERR_INVALID_ARG when the list is no longer in the tree;
 * a tree without a sections list is written as it is. */
MC_API mc_status mc_chunknbt_writer_serialise(const mc_chunknbt_writer *wr, const mc_nbt_doc *doc, mc_buf *out,
                                              mc_error *err);

/* ----------------------------------------------------------- fast path */

/* Reads a 1.18+ paletted container compound ({palette, data?}) of a section:
 * block states (biomes false; palette of {Name, Properties}) or biomes
 * (palette of strings) of registry `reg`, into `out` (initialised here,
 * free with mc_container_free). Disk widths: blocks max(4, ceil(log2 n)),
 * biomes ceil(log2 n); the longs go straight into the container when its
 * width agrees. `cache` may be NULL. Unknown entries fail with
 * MC_ERR_NOT_FOUND unless `lenient` (then air / biome 0, counted in
 * *unknown when not NULL). */
MC_API mc_status mc_chunknbt_read_container(const mc_nbt_tag *container, bool biomes,
                                            const mc_registry *reg, mc_chunknbt_cache *cache,
                                            bool lenient, uint32_t *unknown, mc_container *out,
                                            const mc_allocator *alloc, mc_error *err);

/* ---------------------------------------------------- recode (1.18+ only) */

/* Chunk NBT of a 1.18+ DataVersion (21w43a, 2844, or later) written again
 * for another such DataVersion straight from its bytes, without a tree or
 * a column: palettes remapped entry by entry (block states through
 * mc_registry_map, biomes through mc_biome_map), packed indices copied when
 * the palette keeps its entries, every other key copied as its bytes,
 * DataVersion set. Its output equals, as NBT content (key order aside),
 * what mc_chunknbt_read_bytes + mc_column_translate + mc_chunknbt_write
 * give for the chunk, with an absent block_entities written as an empty
 * list and, when decide() asks, the light dropped and isLightOn 0. A chunk
 * it does not handle the same way (block entities, unknown palette
 * entries, heightmaps the translation would recompute, sections of another
 * shape, non-ASCII strings, snapshot layouts, ...) is declined:
 * MC_ERR_UNSUPPORTED, nothing written, no callback run; the caller then
 * takes the model path. One recoder per thread (it keeps scratch space
 * and caches); free with mc_chunknbt_recoder_free. */
typedef struct mc_chunknbt_recoder mc_chunknbt_recoder;

/* What the recoder found, for the caller's decide(). */
typedef struct mc_chunknbt_recode_facts {
    int32_t data_version;         /* the chunk's */
    const mc_registry *registry;  /* the chunk's (mc_chunknbt_registry_for) */
    const char *status;           /* Status (into the input), NULL when absent */
    size_t status_len;
    int32_t min_section;          /* yPos */
    uint32_t section_count;       /* yPos up to the highest section with data */
    bool translated;              /* the target's registry is another */
} mc_chunknbt_recode_facts;

enum {
    MC_RECODE_DECLINE = 1u << 0,   /* decide(): take the model path */
    MC_RECODE_DROP_LIGHT = 1u << 1 /* decide(): no light in the sections, isLightOn 0 */
};

typedef struct mc_chunknbt_recode_options {
    int32_t data_version;          /* the target's (2844 or later) */
    /* After every check, before anything is written: MC_RECODE_* bits. */
    unsigned (*decide)(void *user, const mc_chunknbt_recode_facts *f);
    /* Each section's blocks (biomes false) and biomes as read, in the
     * chunk's registry: palette[0..n) and the indices still packed, as the
     * chunk has them: `longs` big-endian, MC_BITS_PADDED, `bits` each (NULL
     * when n is 1). The recoder has checked them (every index below n);
     * the callback unpacks them (mc_bits_unpack_be_u16, 4096 or 64) only
     * if it needs them -- the recoder does not unpack them for it. Called
     * after decide(), for the sections of the column. */
    void (*container)(void *user, const mc_registry *from, bool biomes, const uint32_t *palette, size_t n,
                      const uint8_t *longs, unsigned bits);
    void *user;
} mc_chunknbt_recode_options;

MC_API mc_chunknbt_recoder *mc_chunknbt_recoder_new(void);
MC_API void mc_chunknbt_recoder_free(mc_chunknbt_recoder *rc);
/* Appends the chunk nbt[0..len) recoded for opt->data_version to `out`.
 * MC_OK, MC_ERR_UNSUPPORTED (declined: out unchanged), MC_ERR_NOMEM,
 * MC_ERR_INVALID_ARG. */
MC_API mc_status mc_chunknbt_recode(mc_chunknbt_recoder *rc, const uint8_t *nbt, size_t len,
                                    const mc_chunknbt_recode_options *opt, mc_buf *out, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
