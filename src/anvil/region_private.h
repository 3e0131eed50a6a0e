/*
 * region_private.h: the region handle's layout, shared by region.c (open,
 * read, write) and region_check.c (verify, salvage, compact).
 */
#ifndef MC_REGION_PRIVATE_H
#define MC_REGION_PRIVATE_H

#include "mcchunk/anvil.h"

struct libdeflate_decompressor;

typedef struct mc_region_mem {
    const uint8_t *data;
    size_t len;
} mc_region_mem;

struct mc_region {
    const mc_io *io;
    const mc_allocator *alloc;
    void *file;
    char *path;
    size_t path_cap;
    int32_t rx, rz;          /* region coordinates, for .mcc names */
    bool origin_known;
    bool writable;
    bool broken;             /* a header write failed: no more writes */
    bool bulk;               /* salvage/compact output: one fsync at close */
    bool temps_removed;      /* stale temporaries removed (at the first write) */
    int level;
    size_t max_chunk;
    uint32_t loc[1024];      /* header entries as on disk (committed) */
    uint32_t ts[1024];
    uint64_t file_size;
    uint8_t *refs;           /* per sector: live entries using it (writable) */
    size_t refs_len;
    struct libdeflate_decompressor *dec;
    mc_buf scratch;          /* the last record read */
    mc_region_mem memory;    /* mc_region_open_memory's image */
};

/* Reads the record of (lx, lz) into the handle's scratch buffer and points
 * *payload at its compressed bytes (valid until the next read). On failure
 * *kind (may be NULL) says which verify problem it is. */
mc_status mc__region_read_record(mc_region *r, int lx, int lz, const uint8_t **payload,
                                 size_t *payload_len, mc_region_record *rec,
                                 mc_region_problem_kind *kind, mc_error *err);
/* Calls fn with the path of every temporary file a write or compaction of
 * this region may leave behind if killed: c.X.Z.mcc.tmp of each of its 1024
 * chunks (lx, lz) and "<path>.compact.tmp" (-1, -1). Only these exact names:
 * nothing else in the folder is ever touched. None for a memory region; no
 * .mcc.tmp names when the region coordinates are not known. */
void mc__region_each_temp(mc_region *r,
                          void (*fn)(mc_region *r, const char *path, int lx, int lz, void *user),
                          void *user);
/* Removes every one of them that exists (errors ignored). */
void mc__region_remove_temps(mc_region *r);
/* Calls fn with the name of every entry of the folder holding the file
 * `path` (region_io.c, POSIX); 0 or an errno value. */
int mc__list_folder(const char *path, void (*fn)(void *ctx, const char *name), void *ctx);
/* strerror, plus the texts of MC_IO_ENOTREG and MC_IO_ESYMLINK. */
const char *mc__io_strerror(int code);
/* Writes `payload` as the external chunk file `final` (c.X.Z.mcc): into
 * final.tmp (made afresh, never through a link), fsynced, renamed; then
 * the folder is fsynced when sync_dir. */
mc_status mc__write_external(const mc_io *io, const char *final, const void *payload, size_t len,
                             bool sync_dir, mc_error *err);
/* Decompresses with the handle's decompressor and size limit. */
mc_status mc__region_inflate(mc_region *r, int comp, const uint8_t *p, size_t n, mc_buf *out,
                             mc_error *err);

#endif
