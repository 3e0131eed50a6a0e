/*
 * mcchunk/anvil.h: Anvil region files (.mca, old McRegion .mcr), their
 * external chunk files (c.X.Z.mcc) and the folders a world keeps them in.
 *
 * A region file holds up to 32x32 chunk records behind an 8 KiB header (a
 * table of sector locations and a table of timestamps). Each record is a
 * length, a compression id and the compressed chunk NBT. This header gives:
 *
 *   - mc_region: an open region file. Read every record in any compression
 *     the game has used (gzip, zlib, none, LZ4 block stream, "custom"
 *     reported by name, external .mcc), write and delete records with
 *     first-fit sector allocation, crash-safely (see src/anvil/region.c for
 *     the commit protocol: a crash, kill -9 or full disk at any point leaves
 *     every committed chunk readable and the chunk being written either
 *     fully old or fully new).
 *   - mc_io: the small file-system vtable all region I/O goes through. The
 *     default is POSIX; tests substitute a fault-injecting one. It opens
 *     regular files only (a FIFO is refused at once instead of blocking),
 *     and the files found by name beside a region (c.X.Z.mcc, temporaries)
 *     are opened without following links.
 *   - verify, salvage and compact over whole files.
 *   - mc_region_writer: a whole region file written into a temporary and
 *     renamed into place at once (the whole-world tools' way of rewriting
 *     a region: one fsync per file, the old file or the new one after a
 *     crash).
 *   - the world layout: which region file holds absolute chunk (X, Z) of a
 *     dimension, for the <=1.21.11 layout and for 26.1's, and which
 *     dimensions and region files a world folder has; only files inside
 *     the world folder are handed out.
 *
 * What a crash (kill -9, power loss, kernel panic) can and cannot lose,
 * with the POSIX mc_io on storage that honours fsync:
 *   - never lost: a chunk whose write or delete returned MC_OK (its record,
 *     or its .mcc, was fsynced before the header entry naming it was
 *     written, the entry was fsynced before the call returned, and every
 *     rename is followed by an fsync of its folder); every other chunk of
 *     the file (records are never rewritten in place); a compaction is
 *     either complete (renamed and its folder fsynced) or did not happen.
 *   - may be lost: the one write or delete in progress (the chunk reads as
 *     before it), or only its new timestamp (a crash between the location
 *     and the timestamp write); sectors written but not yet committed
 *     (free space again: reused by later writes, dropped by compact).
 *   - may be left behind: c.X.Z.mcc.tmp of a chunk write, <file>.compact.tmp
 *     of a compaction (no live data in either: mc_region_verify reports
 *     them as MC_REGION_PROBLEM_STALE_TEMP, and the next write or delete
 *     through a handle, or the next compaction, of that region removes
 *     them -- those exact names only); an old .mcc whose removal had not
 *     reached the disk (no stub refers to it; the chunk's next external
 *     write replaces it).
 *   - not covered: storage or file systems that acknowledge fsync without
 *     making the data durable (volatile write caches with flushes disabled,
 *     nobarrier mounts, some network file systems); a torn aligned 4-byte
 *     write (assumed impossible: one disk sector); two writers of one region
 *     at a time (there is no locking, as with the game); salvage output,
 *     which is fsynced once at the end (a crash leaves a partial new file;
 *     the source is only read). Another mc_io must implement fsync and
 *     fsync_dir for these promises to hold.
 *
 * Coordinates: functions named *_local take region-local chunk coordinates
 * 0..31; the world API takes absolute chunk coordinates. Decompressed
 * payloads are raw (uncompressed) NBT bytes; decoding them is the NBT and
 * chunk modules' job.
 */
#ifndef MCCHUNK_ANVIL_H
#define MCCHUNK_ANVIL_H

#include "mcchunk/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ compression */

/* Compression ids of a chunk record (the byte after the length). */
typedef enum mc_compression {
    MC_COMPRESSION_GZIP = 1,    /* RFC 1952; McRegion era, still readable */
    MC_COMPRESSION_ZLIB = 2,    /* RFC 1950; the default of every version */
    MC_COMPRESSION_NONE = 3,    /* 19w36a+ */
    MC_COMPRESSION_LZ4 = 4,     /* 24w04a / 1.20.5+: lz4-java block stream */
    MC_COMPRESSION_CUSTOM = 127 /* writeUTF(name) + data; never decoded */
} mc_compression;

/* Set in the compression byte when the data lives in c.X.Z.mcc (19w36a+). */
#define MC_REGION_EXTERNAL_FLAG 0x80

/* "gzip", "zlib", "none", "lz4", "custom", or "unknown". */
MC_API const char *mc_compression_name(int compression_id);
/* Parses "gzip", "zlib", "none" (or "uncompressed"), "lz4". Returns false for
 * anything else. */
MC_API bool mc_compression_parse(const char *name, mc_compression *out);

/* Inflates `in` (compressed with `compression`, without the record header)
 * and appends the result to `out`. Output larger than `max_out` bytes (0 =
 * the default, 256 MiB) is MC_ERR_LIMIT. MC_COMPRESSION_CUSTOM and unknown
 * ids are MC_ERR_UNSUPPORTED (for custom, the message names the algorithm).
 * Errors: MC_ERR_COMPRESSION for bad data, MC_ERR_NOMEM. */
MC_API mc_status mc_region_decompress(int compression, const void *in, size_t in_len,
                                      mc_buf *out, size_t max_out, mc_error *err);
/* Compresses `in` with gzip, zlib, none or LZ4 (block stream with XXH32
 * checksums and terminator) and appends it to `out`. `level` is the deflate
 * level 1..12 (0 = default 6): 1 is ISA-L igzip's fastest level (several
 * times libdeflate's speed, a few % more bytes), 2..12 libdeflate's; LZ4
 * ignores it. */
MC_API mc_status mc_region_compress(mc_compression compression, int level, const void *in,
                                    size_t in_len, mc_buf *out, mc_error *err);

/* ------------------------------------------------------------------ I/O */

/* Open flags for mc_io.open. */
enum {
    MC_IO_READ = 0,      /* read only */
    MC_IO_WRITE = 1,     /* read and write */
    MC_IO_CREATE = 2,    /* create when absent (with MC_IO_WRITE) */
    MC_IO_TRUNCATE = 4,  /* empty it (with MC_IO_WRITE) */
    MC_IO_NOFOLLOW = 8,  /* refuse a symbolic link as the last component
                          * (MC_IO_ESYMLINK): files the library finds by name
                          * inside a region folder (c.X.Z.mcc and the
                          * temporaries) are opened with it */
    MC_IO_EXCLUSIVE = 16 /* with MC_IO_CREATE: fail (EEXIST) when it exists */
};

/* Besides errno values, mc_io.open returns these two (no errno has them):
 * the path names something other than a regular file (a FIFO, a device, a
 * folder, a socket: reading one could block for ever or never end), or,
 * with MC_IO_NOFOLLOW, a symbolic link. The POSIX open checks the type
 * without blocking (O_NONBLOCK, then fstat) before it reads a byte. */
#define MC_IO_ENOTREG 0x10001
#define MC_IO_ESYMLINK 0x10002

/* The file-system operations region code uses, so that tests can cut a write
 * sequence at any point or fail it with ENOSPC. Every function returns 0 or
 * a positive errno value (ENOENT, ENOSPC, EIO, ...). `file` is whatever
 * `open` produced. pread stores the number of bytes read in *got (short at
 * end of file). pwrite writes all `n` bytes or fails. fsync_dir makes a
 * rename or create in the folder of `path` durable; it may be NULL. */
typedef struct mc_io {
    void *user;
    int (*open)(void *user, const char *path, int flags, void **file);
    int (*close)(void *user, void *file);
    int (*pread)(void *user, void *file, void *buf, size_t n, uint64_t off, size_t *got);
    int (*pwrite)(void *user, void *file, const void *buf, size_t n, uint64_t off);
    int (*fsync)(void *user, void *file);
    int (*truncate)(void *user, void *file, uint64_t size);
    int (*size)(void *user, void *file, uint64_t *size);
    int (*rename)(void *user, const char *from, const char *to);
    int (*remove)(void *user, const char *path);
    int (*fsync_dir)(void *user, const char *path);
} mc_io;

/* The POSIX implementation (open/pread/pwrite/fsync/ftruncate/fstat/rename/
 * unlink, fsync of the folder). Stateless and shared. */
MC_API const mc_io *mc_io_posix(void);

/* --------------------------------------------------------------- region */

typedef struct mc_region mc_region;

typedef struct mc_region_options {
    const mc_io *io;             /* NULL: mc_io_posix() */
    const mc_allocator *alloc;   /* NULL: malloc */
    bool writable;               /* open for writing (else read only) */
    bool create;                 /* with writable: create an empty region when absent */
    int level;                   /* deflate level for writes, 0 = default */
    size_t max_chunk_bytes;      /* decompressed size limit, 0 = 256 MiB */
} mc_region_options;

/* Opens the region file at `path`. Its name need not be "r.X.Z.mca", but
 * external .mcc files are found beside it by absolute chunk coordinates, and
 * verify compares chunk positions, for which the region coordinates are
 * taken from a name ending in r.<X>.<Z>.mca / .mcr ("backup-r.0.0.mca"
 * works; otherwise 0 0, see mc_region_set_origin). The header is read and
 * checked; a file shorter than 8 KiB reads as if padded with zeros (a
 * region whose creation was cut short). `opt` may be NULL (read only).
 * Something other than a regular file (a FIFO, a folder) is MC_ERR_IO "not
 * a regular file", at once. The path given is followed if it is a link (the
 * caller chose it; mc_world_region_path refuses links inside a world). */
MC_API mc_status mc_region_open(const char *path, const mc_region_options *opt,
                                mc_region **out, mc_error *err);
/* Opens a region image held in memory, read only (external chunks are not
 * available). `data` must outlive the region. */
MC_API mc_status mc_region_open_memory(const void *data, size_t len, const mc_region_options *opt,
                                       mc_region **out, mc_error *err);
/* Closes and frees (NULL is fine). Every write was already made durable. */
MC_API void mc_region_close(mc_region *region);

/* Region coordinates parsed from the file name (r.<rx>.<rz>.mc[ar]); false
 * when the name has another form (then 0, 0 are used). */
MC_API bool mc_region_origin(const mc_region *region, int32_t *rx, int32_t *rz);
MC_API void mc_region_set_origin(mc_region *region, int32_t rx, int32_t rz);

/* One header entry. */
typedef struct mc_region_entry {
    uint32_t sector_offset;   /* in 4 KiB sectors from the file start; 0 = absent */
    uint32_t sector_count;    /* 0..255 */
    uint32_t timestamp;       /* epoch seconds */
} mc_region_entry;

/* The header entry of local chunk (lx, lz), 0..31 each. */
MC_API mc_region_entry mc_region_get_entry(const mc_region *region, int lx, int lz);
/* True when the header has a location for (lx, lz). */
MC_API bool mc_region_has_chunk(const mc_region *region, int lx, int lz);
/* File size in bytes as found at open (or after the last write). */
MC_API uint64_t mc_region_file_size(const mc_region *region);

/* What a record looks like, filled by the read functions. */
typedef struct mc_region_record {
    uint32_t length;          /* the record's length field (compression byte + payload) */
    uint8_t compression;      /* id without the external flag */
    bool external;            /* data came from c.X.Z.mcc */
    size_t compressed_size;   /* bytes of compressed payload */
    char custom_name[64];     /* for MC_COMPRESSION_CUSTOM: the algorithm's name */
} mc_region_record;

/* Reads the compressed payload of local chunk (lx, lz) (from the region or
 * its .mcc) and appends it to `out`; fills `rec` (may be NULL). The payload
 * is the stored bytes after the compression byte (for custom compression it
 * starts with the writeUTF name, which rec->custom_name also holds), so
 * mc_region_write_raw with rec->compression writes the same record back.
 * The handle is for one thread at a time. MC_ERR_NOT_FOUND when
 * the chunk is absent; MC_ERR_MALFORMED / MC_ERR_TRUNCATED for a broken
 * record, MC_ERR_NOT_FOUND with "allocated but stream missing" for a
 * missing .mcc, MC_ERR_IO on read errors. */
MC_API mc_status mc_region_read_raw(mc_region *region, int lx, int lz, mc_buf *out,
                                    mc_region_record *rec, mc_error *err);
/* Reads and decompresses local chunk (lx, lz): appends the NBT bytes to
 * `out`. Custom compression is MC_ERR_UNSUPPORTED naming the algorithm. */
MC_API mc_status mc_region_read_chunk(mc_region *region, int lx, int lz, mc_buf *out,
                                      mc_region_record *rec, mc_error *err);

/* Writes local chunk (lx, lz) = the uncompressed NBT `data`, compressed with
 * `compression`, stamped with `timestamp` (0 = now). Records that need more
 * than 255 sectors go to c.X.Z.mcc with a one-sector stub. Crash-safe: when
 * this returns MC_OK the new chunk is durable; when it fails or the process
 * dies, the file holds either the old or the new chunk and every other
 * chunk unchanged. A failure after the header write began leaves the handle
 * unusable for further writes (MC_ERR_IO; reopen). One exception to the
 * caller's choice: replacing an external chunk with another external chunk
 * keeps the old compression id, because the stub and the .mcc cannot be
 * switched in one atomic step. The first write or delete through a handle
 * removes the temporaries a killed writer of this region left (see the top
 * of this header). */
MC_API mc_status mc_region_write_chunk(mc_region *region, int lx, int lz, const void *data,
                                       size_t len, mc_compression compression,
                                       uint32_t timestamp, mc_error *err);
/* Writes an already compressed record payload as is (used by salvage). */
MC_API mc_status mc_region_write_raw(mc_region *region, int lx, int lz, const void *payload,
                                     size_t len, int compression_id, uint32_t timestamp,
                                     mc_error *err);
/* Removes local chunk (lx, lz) (and its .mcc); absent chunks are fine. */
MC_API mc_status mc_region_delete_chunk(mc_region *region, int lx, int lz, mc_error *err);

/* ------------------------------------------------- verify/salvage/compact */

typedef enum mc_region_problem_kind {
    MC_REGION_PROBLEM_HEADER,         /* file-level: short header, odd size */
    MC_REGION_PROBLEM_IN_HEADER,      /* sector offset 0/1 with a count, or count 0 with an offset */
    MC_REGION_PROBLEM_OUT_OF_FILE,    /* sectors beyond the end of the file */
    MC_REGION_PROBLEM_OVERLAP,        /* sectors shared with another chunk */
    MC_REGION_PROBLEM_BAD_LENGTH,     /* length 0 or beyond its sectors */
    MC_REGION_PROBLEM_BAD_COMPRESSION,/* unknown id, custom, or data that does not inflate */
    MC_REGION_PROBLEM_EXTERNAL,       /* .mcc missing/unreadable, or stub with data */
    MC_REGION_PROBLEM_BAD_NBT,        /* payload is not NBT (needs the NBT module) */
    MC_REGION_PROBLEM_POSITION,       /* chunk NBT names another position */
    MC_REGION_PROBLEM_STALE_TEMP      /* a temporary of a killed write or compaction
                                       * (c.X.Z.mcc.tmp: lx, lz of its chunk;
                                       * <file>.compact.tmp: -1, -1) */
} mc_region_problem_kind;

typedef struct mc_region_problem {
    mc_region_problem_kind kind;
    int lx, lz;                       /* -1, -1 for file-level problems */
    char message[MC_ERROR_MESSAGE_MAX];
} mc_region_problem;

/* Checks every header entry and record. Calls `report` once per problem
 * (it may be NULL) and returns the number of problems. `chunks_ok` (may be
 * NULL) receives the number of chunks that read, inflate and check fine.
 * Stale temporaries beside the file (c.X.Z.mcc.tmp of its chunks,
 * <file>.compact.tmp) are problems too, MC_REGION_PROBLEM_STALE_TEMP: no
 * chunk is damaged, and the next write or compaction removes them. */
MC_API size_t mc_region_verify(mc_region *region,
                               void (*report)(void *user, const mc_region_problem *p),
                               void *user, size_t *chunks_ok);

/* Creates `out_path` (which must not exist) holding every chunk of `region`
 * that reads and inflates, copied byte for byte with its compression and
 * timestamp. `report` hears about every chunk left behind. Counts go to
 * *saved and *lost (may be NULL). */
MC_API mc_status mc_region_salvage(mc_region *region, const char *out_path,
                                   const mc_region_options *opt,
                                   void (*report)(void *user, const mc_region_problem *p),
                                   void *user, size_t *saved, size_t *lost, mc_error *err);

/* Rewrites the region file at `path` without holes: records are copied
 * byte for byte (not inflated: a damaged payload stays as it was) in index
 * order into "<path>.compact.tmp", which is made durable and renamed over
 * the original. A record that cannot be located or whose length does not
 * fit (or an external chunk whose .mcc is missing) aborts the compaction
 * with MC_ERR_MALFORMED and leaves the file alone (salvage first). *before
 * and *after receive the file sizes (may be NULL). Stale temporaries of the
 * region (its own .compact.tmp among them) are removed first. */
MC_API mc_status mc_region_compact(const char *path, const mc_region_options *opt,
                                   uint64_t *before, uint64_t *after, mc_error *err);

/* ------------------------------------------------------- whole-file writer */

/* A region file written whole and put in place at once: the records go
 * one after the other into "<path>.compact.tmp" (the name a compaction
 * uses: verify reports a stale one, the next write or compaction of the
 * region removes it), and commit fsyncs it, renames it over `path` and
 * fsyncs the folder. Until the commit `path` is untouched; a crash at any
 * moment leaves it as it was or complete. For tools that rewrite whole
 * regions (convert, prune, relight): one fsync per file instead of one per
 * chunk, and only one record held in memory at a time.
 *
 * External chunks: a record over 255 sectors is written at once to
 * c.X.Z.mcc beside `path` (the name the old and the new file share); when
 * the file being replaced holds that chunk externally too, its stub names
 * the new .mcc until the commit, so the compression must be the same one
 * (put_raw refuses another with MC_ERR_UNSUPPORTED; put_chunk keeps the old
 * one). After the commit, the .mcc files of chunks the old file held
 * externally and the new one does not are removed. Region coordinates for
 * .mcc names come from `path`'s name (r.X.Z.mca). A writer is for one
 * thread at a time. */
typedef struct mc_region_writer mc_region_writer;

/* Starts writing a new region file for `path` (whose folder must exist;
 * `path` itself may exist or not). opt: io, alloc, level (deflate level of
 * put_chunk); may be NULL. Errors: MC_ERR_IO / MC_ERR_NOT_FOUND when the
 * temporary cannot be created, MC_ERR_NOMEM. */
MC_API mc_status mc_region_writer_new(const char *path, const mc_region_options *opt,
                                      mc_region_writer **out, mc_error *err);
/* Adds local chunk (lx, lz) as an already compressed payload (as
 * mc_region_read_raw returns it) with `compression_id` and `timestamp` (0:
 * 1). Each chunk at most once (MC_ERR_INVALID_ARG). */
MC_API mc_status mc_region_writer_put_raw(mc_region_writer *w, int lx, int lz, const void *payload,
                                          size_t len, int compression_id, uint32_t timestamp,
                                          mc_error *err);
/* Adds local chunk (lx, lz) = the uncompressed NBT `nbt`, compressed with
 * `compression` (see above for external chunks). */
MC_API mc_status mc_region_writer_put_chunk(mc_region_writer *w, int lx, int lz, const void *nbt,
                                            size_t len, mc_compression compression,
                                            uint32_t timestamp, mc_error *err);
/* Chunks put so far. */
MC_API size_t mc_region_writer_count(const mc_region_writer *w);
/* Makes the new file durable and puts it in place of `path` (see above);
 * with no chunk put, removes `path` instead (an absent one stays absent).
 * *size (may be NULL) receives the new file's size (0 when removed). Frees
 * the writer, whatever the outcome; on failure `path` is as it was (or, for
 * an error after the rename, complete: MC_ERR_IO either way). */
MC_API mc_status mc_region_writer_commit(mc_region_writer *w, uint64_t *size, mc_error *err);
/* Drops the new file (removes the temporary) and frees the writer; `path`
 * is untouched (NULL is fine). */
MC_API void mc_region_writer_abandon(mc_region_writer *w);

/* ---------------------------------------------------------------- world */

typedef enum mc_region_kind {
    MC_REGION_KIND_REGION = 0,  /* region/: terrain */
    MC_REGION_KIND_ENTITIES,    /* entities/ (1.17+) */
    MC_REGION_KIND_POI          /* poi/ (1.14+) */
} mc_region_kind;

typedef enum mc_world_layout {
    MC_WORLD_LAYOUT_AUTO = 0,   /* 26.1 when dimensions/minecraft/overworld exists */
    MC_WORLD_LAYOUT_LEGACY,     /* <=1.21.11: region, DIM-1/region, DIM1/region, dimensions/ns/path/region */
    MC_WORLD_LAYOUT_26_1        /* dimensions/<ns>/<path>/<kind> for every dimension */
} mc_world_layout;

/* The layout of the world folder at `world` (never AUTO). */
MC_API mc_world_layout mc_world_detect_layout(const char *world);

/* Writes into `out` the folder that holds `kind` region files of
 * `dimension` ("minecraft:overworld", "minecraft:the_nether",
 * "minecraft:the_end", short "overworld"/"nether"/"end", or any "ns:path").
 * MC_ERR_RANGE when `out` is too small, MC_ERR_INVALID_ARG for a bad id. */
MC_API mc_status mc_world_region_dir(const char *world, mc_world_layout layout,
                                     const char *dimension, mc_region_kind kind, char *out,
                                     size_t out_size, mc_error *err);
/* Writes into `out` the path of the region file holding absolute chunk
 * (cx, cz), and into *lx, *lz (may be NULL) its local coordinates. Returns
 * MC_ERR_NOT_FOUND (with `out` filled) when that file does not exist.
 * Files are read only from inside the world: MC_ERR_IO, with a message that
 * says why, when the region folder resolves (through links) to a place
 * outside the folder `world` resolves to, or when the region file is a
 * symbolic link or not a regular file (a FIFO would block its reader). */
MC_API mc_status mc_world_region_path(const char *world, mc_world_layout layout,
                                      const char *dimension, mc_region_kind kind, int32_t cx,
                                      int32_t cz, char *out, size_t out_size, int *lx, int *lz,
                                      mc_error *err);

/* The dimensions of the world folder at `world` that have a region,
 * entities or poi folder: "minecraft:overworld", "minecraft:the_nether",
 * "minecraft:the_end" first (those present, in this order), then every
 * "ns:path" found under dimensions/<ns>/ (paths may have '/': folders are
 * walked to a depth of 8, not through links; names of [a-z0-9_.-] only),
 * sorted. *out is an array of *count strings (free with
 * mc_world_free_list). MC_ERR_NOT_FOUND when `world` is not a folder. */
MC_API mc_status mc_world_list_dimensions(const char *world, mc_world_layout layout, char ***out,
                                          size_t *count, mc_error *err);
MC_API void mc_world_free_list(char **list, size_t count);
/* The region files of one kind of one dimension: *coords receives *count
 * pairs (rx, rz), sorted by rx then rz, of the regular files (not links)
 * named exactly r.<rx>.<rz>.mca in that folder (free(*coords)). A missing
 * folder has none (MC_OK); a folder that leads out of the world is MC_ERR_IO
 * (as mc_world_region_path). */
MC_API mc_status mc_world_list_regions(const char *world, mc_world_layout layout,
                                       const char *dimension, mc_region_kind kind, int32_t **coords,
                                       size_t *count, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
