/*
 * region_writer.c: a region file written whole, then put in place at once.
 *
 * Whole-world tools (convert, prune, relight) rewrite a region file in one
 * go. Writing it chunk by chunk through mc_region_write_chunk would cost an
 * fsync per chunk (a thousand per region) and would leave a half-converted
 * file behind an interruption. Instead the records go, one after the other,
 * into "<path>.compact.tmp" -- the name a compaction uses, so everything
 * the module already does about a killed compaction (verify reports the
 * file as a stale temporary, the next write or compaction of the region
 * removes it) holds for a killed writer too -- and commit makes that file
 * durable (fsync) and renames it over <path>, then fsyncs the folder. A
 * crash at any moment leaves <path> as it was or complete, never a mix.
 *
 * The temporary is laid out as a compaction lays out its file: records one
 * after the other from sector 2, each padded to whole sectors, the header
 * (locations and timestamps, kept in memory) written last, then one fsync.
 * Records are gathered in a batch of at most BATCH_BYTES and written with
 * one pwrite when the next one would not fit (most chunks take one sector,
 * and a write call each cost a converter ~3% of its time); a record larger
 * than the batch is written on its own. put_chunk compresses a record
 * straight into the batch when the compressor's bound for it fits there
 * (all but records of tens of sectors), else into a buffer of its own
 * that put_raw copies. Memory does not grow with the region: one batch
 * and one compressed record.
 *
 * External chunks (c.X.Z.mcc) live beside the region under their own name,
 * which the new file and the old one share. A record put here that needs
 * one writes it at once (temporary + rename, as mc_region_write_raw does).
 * Until the commit, the old region's stub for that chunk then names the new
 * .mcc: fine when it is the same chunk rewritten in the same compression
 * (what relight and prune do), so put_raw refuses another compression for a
 * chunk the old file holds externally and put_chunk keeps the old one. After
 * the commit, the .mcc files of chunks the old file held externally and the
 * new one does not are removed (a crash before that leaves an orphan .mcc,
 * which nothing refers to, as mc_region_delete_chunk may).
 *
 * A writer that received no chunk commits by removing <path> (an empty
 * region is no region), so pruning the last chunk of a file deletes it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anvil/anvil_private.h"
#include "anvil/region_private.h"

#define SECTOR 4096u
#define HEADER_BYTES 8192u
#define BATCH_BYTES (256u * 1024u)

struct mc_region_writer {
    const mc_io *io;
    const mc_allocator *alloc;
    void *file;              /* <path>.compact.tmp */
    char *path, *tmp_path;
    size_t path_cap, tmp_cap;
    int level;               /* deflate level of put_chunk */
    int32_t rx, rz;          /* from the final name r.X.Z.mca */
    bool origin_known;
    bool failed;             /* a write to the temporary failed: commit refuses */
    size_t count;            /* chunks put */
    uint64_t next;           /* the next free sector */
    uint8_t *batch;          /* padded records from sector batch_first on, not yet written */
    size_t batch_len;        /* bytes in it (whole sectors) */
    uint64_t batch_first;
    mc__compressors comp;                   /* put_chunk's, kept between records */
    mc_buf packed;                          /* put_chunk's output, reused */
    uint32_t loc[1024], ts[1024];
    uint8_t old_external[1024];  /* compression byte of the old file's external chunks, else 0 */
    uint8_t new_external[1024];
};

static void *mem_alloc(const mc_allocator *a, size_t n) { return a->alloc(a->user, n); }
static void mem_free(const mc_allocator *a, void *p, size_t n)
{
    if (p)
        a->free(a->user, p, n);
}

static char *dup_with_suffix(const mc_allocator *a, const char *s, const char *suffix, size_t *cap)
{
    size_t n = strlen(s), m = strlen(suffix);
    char *d = mem_alloc(a, n + m + 1);
    if (d) {
        memcpy(d, s, n);
        memcpy(d + n, suffix, m + 1);
    }
    *cap = n + m + 1;
    return d;
}

static void writer_free(mc_region_writer *w)
{
    if (!w)
        return;
    if (w->file)
        w->io->close(w->io->user, w->file);
    mc__compressors_free(&w->comp);
    mc_buf_free(&w->packed);
    mem_free(w->alloc, w->batch, BATCH_BYTES);
    mem_free(w->alloc, w->path, w->path_cap);
    mem_free(w->alloc, w->tmp_path, w->tmp_cap);
    mem_free(w->alloc, w, sizeof *w);
}

/* Notes which chunks of the file now at w->path are external (a missing or
 * unreadable file has none; its records are not our business here). */
static void note_old_externals(mc_region_writer *w, const mc_region_options *opt)
{
    mc_region_options ro = *opt;
    ro.writable = false;
    ro.create = false;
    mc_region *old = NULL;
    mc_error e;
    if (mc_region_open(w->path, &ro, &old, &e) != MC_OK)
        return;
    for (int i = 0; i < 1024; i++) {
        uint32_t loc = old->loc[i];
        if ((loc >> 8) < 2 || (loc & 0xFF) == 0)
            continue;
        uint8_t head[5];
        size_t got = 0;
        if (old->io->pread(old->io->user, old->file, head, 5, (uint64_t)(loc >> 8) * SECTOR, &got) == 0 &&
            got == 5 && (head[4] & MC_REGION_EXTERNAL_FLAG))
            w->old_external[i] = head[4];
    }
    mc_region_close(old);
}

mc_status mc_region_writer_new(const char *path, const mc_region_options *opt, mc_region_writer **out,
                               mc_error *err)
{
    *out = NULL;
    if (!path)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: no path");
    mc_region_options o = opt ? *opt : (mc_region_options){0};
    const mc_allocator *a = mc_alloc_or_default(o.alloc);
    mc_region_writer *w = mem_alloc(a, sizeof *w);
    if (!w)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region writer: out of memory");
    memset(w, 0, sizeof *w);
    w->alloc = a;
    w->io = o.io ? o.io : mc_io_posix();
    w->level = o.level;
    w->next = 2;
    mc_buf_init(&w->packed, a);
    w->path = dup_with_suffix(a, path, "", &w->path_cap);
    w->tmp_path = dup_with_suffix(a, path, ".compact.tmp", &w->tmp_cap);
    if (!w->path || !w->tmp_path) {
        writer_free(w);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region writer: out of memory");
    }
    o.io = w->io;
    note_old_externals(w, &o);
    /* .mcc names come from the final name's region coordinates */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int rx, rz, used = 0;
    if (sscanf(base, "r.%d.%d.mca%n", &rx, &rz, &used) == 2 && used && !base[used]) {
        w->rx = rx;
        w->rz = rz;
        w->origin_known = true;
    }
    /* A temporary left by a killed writer or compaction is ours to replace;
     * it is made afresh (never opened through a link). */
    w->io->remove(w->io->user, w->tmp_path);
    int rc = w->io->open(w->io->user, w->tmp_path,
                         MC_IO_WRITE | MC_IO_CREATE | MC_IO_TRUNCATE | MC_IO_EXCLUSIVE | MC_IO_NOFOLLOW,
                         &w->file);
    if (rc) {
        w->file = NULL;
        writer_free(w);
        return mc_error_set(err, rc == ENOENT ? MC_ERR_NOT_FOUND : MC_ERR_IO, SIZE_MAX,
                            "region writer: cannot create %s.compact.tmp: %s", path, mc__io_strerror(rc));
    }
    *out = w;
    return MC_OK;
}

/* The .mcc path of local chunk i beside the final file. */
static bool mcc_name(const mc_region_writer *w, int i, char *out, size_t n)
{
    const char *slash = strrchr(w->path, '/');
    int dir_len = slash ? (int)(slash - w->path) + 1 : 0;
    long cx = (long)w->rx * 32 + (i & 31), cz = (long)w->rz * 32 + (i >> 5);
    int k = snprintf(out, n, "%.*sc.%ld.%ld.mcc", dir_len, w->path, cx, cz);
    return k > 0 && (size_t)k < n;
}

/* Writes the batch to the temporary (nothing when it is empty). */
static int flush_batch(mc_region_writer *w)
{
    if (!w->batch_len)
        return 0;
    int rc = w->io->pwrite(w->io->user, w->file, w->batch, w->batch_len, w->batch_first * SECTOR);
    w->batch_len = 0;
    if (rc)
        w->failed = true;
    return rc;
}

/* Ends the record whose `len` payload bytes are at the batch's end + 5:
 * its 5-byte head before them, zeros after them up to `bytes`. */
static void seal_in_batch(mc_region_writer *w, const uint8_t head[5], size_t len, size_t bytes)
{
    if (!w->batch_len)
        w->batch_first = w->next;
    uint8_t *at = w->batch + w->batch_len;
    memcpy(at, head, 5);
    memset(at + 5 + len, 0, bytes - 5 - len);
    w->batch_len += bytes;
}

/* Lays one record (length field, compression byte, `len` payload bytes,
 * zeros up to `bytes`) at sector w->next: into the batch, or straight to
 * the file when it is larger than a batch. */
static mc_status put_record(mc_region_writer *w, const void *payload, size_t len, size_t bytes, uint32_t length,
                            uint8_t compression, mc_error *err)
{
    uint8_t head[5];
    mc_store_u32be(head, length);
    head[4] = compression;
    int rc = 0;
    if (w->batch_len + bytes > BATCH_BYTES)
        rc = flush_batch(w);
    if (!rc && !w->batch) {
        w->batch = mem_alloc(w->alloc, BATCH_BYTES);
        if (!w->batch)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region writer: out of memory");
    }
    if (!rc && bytes > BATCH_BYTES) {
        /* a record of more than 64 sectors: its own writes */
        uint8_t *tail = w->batch;
        size_t head_part = len < SECTOR - 5 ? len : SECTOR - 5, rest = len - head_part;
        size_t body = rest / SECTOR * SECTOR;
        memset(tail, 0, SECTOR);
        memcpy(tail, head, 5);
        memcpy(tail + 5, payload, head_part);
        rc = w->io->pwrite(w->io->user, w->file, tail, SECTOR, w->next * SECTOR);
        if (!rc && body)
            rc = w->io->pwrite(w->io->user, w->file, (const uint8_t *)payload + head_part, body,
                               (w->next + 1) * SECTOR);
        if (!rc && rest > body) {
            memset(tail, 0, SECTOR);
            memcpy(tail, (const uint8_t *)payload + head_part + body, rest - body);
            rc = w->io->pwrite(w->io->user, w->file, tail, SECTOR, (w->next + 1) * SECTOR + body);
        }
        if (rc)
            w->failed = true;
    } else if (!rc) {
        if (len)
            memcpy(w->batch + w->batch_len + 5, payload, len);
        seal_in_batch(w, head, len, bytes);
    }
    if (rc)
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "region writer: cannot write %s: %s", w->tmp_path,
                            mc__io_strerror(rc));
    return MC_OK;
}

/* Notes the record just laid at w->next, `sectors` long, as chunk i's. */
static void note_record(mc_region_writer *w, int i, uint64_t sectors, uint32_t timestamp)
{
    w->loc[i] = (uint32_t)(w->next << 8 | sectors);
    w->ts[i] = timestamp ? timestamp : 1;
    w->next += sectors;
    w->count++;
}

mc_status mc_region_writer_put_raw(mc_region_writer *w, int lx, int lz, const void *payload, size_t len,
                                   int compression_id, uint32_t timestamp, mc_error *err)
{
    if (!w || lx < 0 || lx > 31 || lz < 0 || lz > 31)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: bad chunk %d %d", lx, lz);
    if (compression_id < 1 || compression_id > 127)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: compression id %d",
                            compression_id);
    if (w->failed)
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "region writer: an earlier write to %s failed",
                            w->tmp_path);
    int i = lx + 32 * lz;
    if (w->loc[i])
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: chunk %d %d put twice", lx,
                            lz);
    if (len > UINT32_MAX - 8)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "region writer: record too large");
    uint64_t sectors = ((uint64_t)len + 5 + SECTOR - 1) / SECTOR;
    bool external = sectors > 255;
    if (external) {
        if (w->old_external[i] && (w->old_external[i] & 0x7F) != compression_id)
            return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                                "region writer: chunk %d %d is external in %s in the file it replaces; "
                                "rewriting it before the commit needs the same compression",
                                lx, lz, mc_compression_name(w->old_external[i] & 0x7F));
        char mcc[4200];
        if (!mcc_name(w, i, mcc, sizeof mcc))
            return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "region writer: path too long");
        mc_status st = mc__write_external(w->io, mcc, payload, len, true, err);
        if (st)
            return st;
        sectors = 1;
    }
    if (w->next + sectors > 0xFFFFFF)
        return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "region writer: %s is full (64 GiB)", w->path);
    mc_status st = put_record(w, payload, external ? 0 : len, (size_t)sectors * SECTOR,
                              external ? 1u : (uint32_t)len + 1,
                              (uint8_t)(compression_id | (external ? MC_REGION_EXTERNAL_FLAG : 0)), err);
    if (st)
        return st;
    note_record(w, i, sectors, timestamp);
    if (external)
        w->new_external[i] = (uint8_t)(compression_id | MC_REGION_EXTERNAL_FLAG);
    return MC_OK;
}

/* Space a compressor writes into that cannot grow (mc__compress_bound
 * says how much it needs at most; a compressor that asked for more would
 * fail, never write past it). */
static void *fixed_no_alloc(void *user, size_t n)
{
    (void)user, (void)n;
    return NULL;
}
static void *fixed_no_realloc(void *user, void *p, size_t old_n, size_t new_n)
{
    (void)user, (void)p, (void)old_n, (void)new_n;
    return NULL;
}
static void fixed_no_free(void *user, void *p, size_t n) { (void)user, (void)p, (void)n; }
static const mc_allocator fixed_space = {fixed_no_alloc, fixed_no_realloc, fixed_no_free, NULL};

/* put_chunk's usual case: the record compressed straight into the batch,
 * after its 5-byte head, when the compressor's bound fits there (a fresh
 * batch if need be), instead of into `packed` and then copied. *done is
 * false when it did not apply (the bound is over a batch, the chunk is put
 * twice, an earlier write failed, the file is nearly full): put_raw then
 * takes the record and says what is wrong. */
static mc_status put_compressed_in_batch(mc_region_writer *w, int i, const void *nbt, size_t len,
                                         mc_compression compression, uint32_t timestamp, bool *done, mc_error *err)
{
    *done = false;
    size_t bound = mc__compress_bound(&w->comp, compression, w->level, len);
    if (!bound || bound > BATCH_BYTES - 5 || w->failed || w->loc[i] || w->next + BATCH_BYTES / SECTOR > 0xFFFFFF)
        return MC_OK;
    if (w->batch_len + 5 + bound > BATCH_BYTES && flush_batch(w))
        return MC_OK;
    if (!w->batch && !(w->batch = mem_alloc(w->alloc, BATCH_BYTES)))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region writer: out of memory");
    mc_buf space = {w->batch + w->batch_len + 5, 0, BATCH_BYTES - w->batch_len - 5, &fixed_space, false};
    mc_status st = mc__compress(&w->comp, compression, w->level, nbt, len, &space, err);
    if (st)
        return st;
    uint8_t head[5];
    mc_store_u32be(head, (uint32_t)space.len + 1);
    head[4] = (uint8_t)compression;
    size_t sectors = (space.len + 5 + SECTOR - 1) / SECTOR;
    seal_in_batch(w, head, space.len, sectors * SECTOR);
    note_record(w, i, sectors, timestamp);
    *done = true;
    return MC_OK;
}

mc_status mc_region_writer_put_chunk(mc_region_writer *w, int lx, int lz, const void *nbt, size_t len,
                                     mc_compression compression, uint32_t timestamp, mc_error *err)
{
    if (!w || lx < 0 || lx > 31 || lz < 0 || lz > 31)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: bad chunk %d %d", lx, lz);
    int old = w->old_external[lx + 32 * lz];
    if (compression == MC_COMPRESSION_NONE && !(len + 5 > 255 * SECTOR && old && (old & 0x7F) != (int)compression))
        /* the record is the bytes themselves: straight into the batch,
         * not first copied whole into `packed` */
        return mc_region_writer_put_raw(w, lx, lz, nbt, len, (int)compression, timestamp, err);
    bool done = false;
    mc_status st = put_compressed_in_batch(w, lx + 32 * lz, nbt, len, compression, timestamp, &done, err);
    if (st || done)
        return st;
    mc_buf *packed = &w->packed;
    packed->len = 0;
    st = mc__compress(&w->comp, compression, w->level, nbt, len, packed, err);
    if (!st && packed->len + 5 > 255 * SECTOR && old && (old & 0x7F) != (int)compression) {
        /* the old file's stub names its compression (see the top) */
        compression = (mc_compression)(old & 0x7F);
        packed->len = 0;
        st = mc__compress(&w->comp, compression, w->level, nbt, len, packed, err);
    }
    if (!st)
        st = mc_region_writer_put_raw(w, lx, lz, packed->data, packed->len, (int)compression, timestamp, err);
    return st;
}

size_t mc_region_writer_count(const mc_region_writer *w)
{
    return w ? w->count : 0;
}

/* Removes the .mcc of every chunk the old file held externally and the
 * committed one does not. */
static void remove_dropped_externals(mc_region_writer *w)
{
    char mcc[4200];
    for (int i = 0; w->origin_known && i < 1024; i++)
        if (w->old_external[i] && !w->new_external[i] && mcc_name(w, i, mcc, sizeof mcc))
            w->io->remove(w->io->user, mcc);
}

/* Writes the header and makes the temporary durable. */
static int finish_temporary(mc_region_writer *w)
{
    int rc = flush_batch(w);
    if (rc)
        return rc;
    uint8_t *header = mem_alloc(w->alloc, HEADER_BYTES);
    if (!header)
        return ENOMEM;
    for (int i = 0; i < 1024; i++) {
        mc_store_u32be(header + 4 * i, w->loc[i]);
        mc_store_u32be(header + SECTOR + 4 * i, w->ts[i]);
    }
    rc = w->io->pwrite(w->io->user, w->file, header, HEADER_BYTES, 0);
    mem_free(w->alloc, header, HEADER_BYTES);
    if (!rc)
        rc = w->io->fsync(w->io->user, w->file);
    int rc2 = w->io->close(w->io->user, w->file);
    w->file = NULL;
    return rc ? rc : rc2;
}

mc_status mc_region_writer_commit(mc_region_writer *w, uint64_t *size, mc_error *err)
{
    if (!w)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region writer: no writer");
    const mc_io *io = w->io;
    int rc = 0;
    uint64_t bytes = 0;
    if (w->failed) {
        rc = EIO;
    } else if (w->count == 0) {
        /* nothing to keep: no file (an absent one stays absent) */
        io->close(io->user, w->file);
        w->file = NULL;
        io->remove(io->user, w->tmp_path);
        rc = io->remove(io->user, w->path);
        if (rc == ENOENT)
            rc = 0;
        else if (!rc && io->fsync_dir)
            rc = io->fsync_dir(io->user, w->path);
    } else {
        bytes = w->next * SECTOR;
        rc = finish_temporary(w);
        if (!rc)
            rc = io->rename(io->user, w->tmp_path, w->path);
        if (!rc && io->fsync_dir)
            rc = io->fsync_dir(io->user, w->path);
    }
    if (rc) {
        if (w->file) {
            io->close(io->user, w->file);
            w->file = NULL;
        }
        io->remove(io->user, w->tmp_path);
        mc_status st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "region writer: cannot put %s in place: %s",
                                    w->path, mc__io_strerror(rc));
        writer_free(w);
        return st;
    }
    remove_dropped_externals(w);
    if (size)
        *size = bytes;
    writer_free(w);
    return MC_OK;
}

void mc_region_writer_abandon(mc_region_writer *w)
{
    if (!w)
        return;
    if (w->file)
        w->io->close(w->io->user, w->file);
    w->file = NULL;
    w->io->remove(w->io->user, w->tmp_path);
    writer_free(w);
}
