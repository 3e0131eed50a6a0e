/*
 * region.c: reading and crash-safe writing of Anvil region files.
 *
 * A region file is an 8 KiB header followed by 4 KiB sectors. Header entry i
 * (chunk (i & 31, i >> 5)) is a big-endian u32 `sector_offset << 8 |
 * sector_count` at byte 4*i, and the chunk's timestamp sits at 4096 + 4*i.
 * A record is `length u32 BE | compression u8 | payload`, padded with zeros to
 * whole sectors. Records of 256 sectors or more live in c.<X>.<Z>.mcc beside
 * the region, with a one-sector stub (length 1, compression | 0x80) in it.
 *
 * Reading: open() reads the header; a chunk read is one pread of the
 * record's sectors into a scratch buffer, checks of every length against the
 * sectors and the file, then decompression (region_compress.c). Nothing from
 * the file is trusted.
 *
 * Writing, and why it cannot lose data. The header entry is the only thing
 * that makes a record live, and it is changed by one aligned 4-byte pwrite
 * (which cannot be torn: it lies inside one 512-byte disk sector and one
 * page). Every write of a chunk follows this order:
 *
 *   1. (records > 255 sectors only) write the payload to c.X.Z.mcc.tmp,
 *      fsync it, rename it to c.X.Z.mcc, fsync the folder;
 *   2. allocate the record's sectors first-fit among sectors no live entry
 *      uses -- the chunk's own old sectors are live too, so the old record
 *      is never touched -- and write the record with its zero padding in
 *      one pwrite (growing the file when the run is at its end);
 *   3. fsync the region file: the new record is durable but unreferenced;
 *   4. COMMIT: pwrite the 4-byte location entry; pwrite the 4-byte timestamp;
 *      fsync;
 *   5. only now mark the old sectors free in memory (so the next write may
 *      reuse them) and remove an old .mcc that is no longer referenced.
 *
 * A crash before 4 leaves the old entry pointing at the untouched old
 * record (the new bytes are garbage in free sectors, or beyond the old end
 * of the file, which readers ignore); a crash after the location write
 * leaves the new record, complete and durable since 3. A crash between the
 * location and the timestamp write leaves the new chunk with its old
 * timestamp, which the game does not use. A full disk or any I/O error in
 * 1-3 leaves the file as it was (the region grows back to its size); an
 * error in 4 marks the handle broken (the on-disk entry is old or new, but
 * this process no longer knows which: reopen). Deleting a chunk is step 4
 * with a zero entry, then step 5.
 *
 * The one case the order above cannot make atomic is replacing an external
 * record with an external record in another compression: the stub names the
 * compression and the .mcc is replaced by the rename, so for a moment the
 * old stub would describe the new data. mc_region_write_chunk therefore keeps
 * the old compression in that case (same payload, just encoded the old way).
 *
 * Compaction (region_check.c) never writes in place: it copies the live
 * records into a new file, fsyncs it and renames it over the old one, then
 * fsyncs the folder.
 *
 * Temporaries: a process killed in 1 leaves c.X.Z.mcc.tmp, one killed in a
 * compaction <file>.compact.tmp. With one writer per region, any of them
 * found when a handle first writes is stale, so the first write or delete
 * of a handle (and every compaction) removes them: exactly the names
 * c.<X>.<Z>.mcc.tmp of the region's 1024 chunks and <file>.compact.tmp.
 * With the POSIX mc_io one listing of the folder finds which of them exist
 * (1025 removes of absent names cost 2-7 ms on a busy ext4); another mc_io,
 * which has no listing, gets one remove per name. verify reports them. A
 * temporary is created afresh (removed, then O_CREAT|O_EXCL|O_NOFOLLOW): a
 * stale one could be a link, or a hard link, to a file elsewhere, which
 * O_TRUNC would have emptied.
 *
 * Reading trusts no file of the folder either: every open is of a regular
 * file (region_io.c), and c.X.Z.mcc, found by name, is not followed if it
 * is a symbolic link (a link to /etc/passwd stored "uncompressed" would
 * otherwise be returned as the chunk's bytes).
 *
 * tests/unit/test_region_crash.c proves all this through a fault-injecting
 * mc_io: it cuts each operation at every call and at every byte of the
 * header creation and of whole record writes (sampled for the 1 MB .mcc
 * writes), also lets the disk keep any subset of the writes since the last
 * fsync, or fails a call with ENOSPC, and checks every resulting image,
 * the order of the calls (no entry written before its record is fsynced,
 * each rename followed by a folder fsync), and that verify reports and the
 * next write removes the temporaries each crash leaves.
 * The assumption it does not test is the one stated above: an aligned
 * 4-byte write is never torn. There is no locking between processes: one
 * writer per region file at a time (as with the game itself).
 *
 * A handle is for one thread at a time (it owns a scratch buffer and a
 * libdeflate decompressor); use one handle per thread.
 */
#include <errno.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anvil/anvil_private.h"
#include "anvil/region_private.h"

#define SECTOR 4096u
#define HEADER_BYTES 8192u

static void *mem_alloc(const mc_allocator *a, size_t n) { return a->alloc(a->user, n); }
static void mem_free(const mc_allocator *a, void *p, size_t n)
{
    if (p)
        a->free(a->user, p, n);
}

/* ------------------------------------------------------------- memory io */

/* The read-only mc_io behind mc_region_open_memory: the region's "file" is
 * the caller's buffer; every other path is absent. */

static int memio_open(void *user, const char *path, int flags, void **file)
{
    (void)user; (void)path; (void)flags; (void)file;
    return ENOENT;
}
static int memio_close(void *user, void *file) { (void)user; (void)file; return 0; }
static int memio_pread(void *user, void *file, void *buf, size_t n, uint64_t off, size_t *got)
{
    (void)user;
    const mc_region_mem *m = file;
    size_t k = 0;
    if (off < m->len)
        k = m->len - (size_t)off < n ? m->len - (size_t)off : n;
    if (k)
        memcpy(buf, m->data + off, k);
    *got = k;
    return 0;
}
static int memio_readonly(void) { return EROFS; }
static int memio_pwrite(void *u, void *f, const void *b, size_t n, uint64_t o)
{ (void)u; (void)f; (void)b; (void)n; (void)o; return memio_readonly(); }
static int memio_fsync(void *u, void *f) { (void)u; (void)f; return 0; }
static int memio_truncate(void *u, void *f, uint64_t s) { (void)u; (void)f; (void)s; return memio_readonly(); }
static int memio_size(void *user, void *file, uint64_t *size)
{
    (void)user;
    *size = ((const mc_region_mem *)file)->len;
    return 0;
}
static int memio_rename(void *u, const char *a, const char *b) { (void)u; (void)a; (void)b; return memio_readonly(); }
static int memio_remove(void *u, const char *a) { (void)u; (void)a; return memio_readonly(); }

static const mc_io memory_io = {NULL, memio_open, memio_close, memio_pread, memio_pwrite,
                                memio_fsync, memio_truncate, memio_size, memio_rename,
                                memio_remove, NULL};

/* ------------------------------------------------------------- helpers */

const char *mc__io_strerror(int code)
{
    if (code == MC_IO_ENOTREG)
        return "not a regular file (a FIFO, device, folder or socket is never read)";
    if (code == MC_IO_ESYMLINK)
        return "a symbolic link, which is not followed inside a region folder";
    return strerror(code);
}

static mc_status io_error(mc_error *err, int code, const char *what, const char *path)
{
    return mc_error_set(err, code == ENOENT ? MC_ERR_NOT_FOUND : MC_ERR_IO, SIZE_MAX,
                        "region: %s %s: %s", what, path ? path : "", mc__io_strerror(code));
}

static char *dup_string(const mc_allocator *a, const char *s, size_t *cap)
{
    size_t n = strlen(s) + 1;
    char *d = mem_alloc(a, n);
    if (d)
        memcpy(d, s, n);
    *cap = n;
    return d;
}

/* Region coordinates from a name ending in "r.<x>.<z>.mca" (or .mcr), the
 * "r." at the start or after a non-alphanumeric character (so copies named
 * "backup-r.0.0.mca" work too). */
static bool parse_origin(const char *path, int32_t *rx, int32_t *rz)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (const char *p = base; (p = strstr(p, "r.")) != NULL; p++) {
        if (p > base && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') ||
                         (p[-1] >= '0' && p[-1] <= '9')))
            continue;
        int x, z, used = 0;
        char a;
        if (sscanf(p, "r.%d.%d.mc%c%n", &x, &z, &a, &used) == 3 && (a == 'a' || a == 'r') &&
            p[used] == 0) {
            *rx = x;
            *rz = z;
            return true;
        }
    }
    return false;
}

/* The .mcc path for local chunk (lx, lz): folder of the region + name. */
static bool mcc_path(const mc_region *r, int lx, int lz, const char *suffix, char *out, size_t n)
{
    const char *slash = strrchr(r->path, '/');
    int dir_len = slash ? (int)(slash - r->path) + 1 : 0;
    long cx = (long)r->rx * 32 + lx, cz = (long)r->rz * 32 + lz;
    int k = snprintf(out, n, "%.*sc.%ld.%ld.mcc%s", dir_len, r->path, cx, cz, suffix);
    return k > 0 && (size_t)k < n;
}

/* Marks in `seen` (index lx + 32 lz, 1024 = the compaction's) a folder
 * entry that is one of the region's temporaries, by exact name. */
typedef struct temp_match {
    const mc_region *r;
    const char *base; /* the region's file name */
    bool seen[1025];
} temp_match;

static void match_temp(void *ctx, const char *name)
{
    temp_match *m = ctx;
    size_t bl = strlen(m->base);
    if (!strncmp(name, m->base, bl) && !strcmp(name + bl, ".compact.tmp")) {
        m->seen[1024] = true;
        return;
    }
    long cx, cz;
    int used = 0;
    if (!m->r->origin_known || strncmp(name, "c.", 2) ||
        sscanf(name, "c.%ld.%ld.mcc.tmp%n", &cx, &cz, &used) != 2 || !used || name[used])
        return;
    long lx = cx - (long)m->r->rx * 32, lz = cz - (long)m->r->rz * 32;
    char canonical[64];
    snprintf(canonical, sizeof canonical, "c.%ld.%ld.mcc.tmp", cx, cz);
    if (lx >= 0 && lx < 32 && lz >= 0 && lz < 32 && !strcmp(canonical, name))
        m->seen[lx + 32 * lz] = true;
}

void mc__region_each_temp(mc_region *r,
                          void (*fn)(mc_region *r, const char *path, int lx, int lz, void *user),
                          void *user)
{
    char path[4200];
    if (r->io == &memory_io)
        return;
    /* With the POSIX mc_io, one listing of the folder (a few getdents) says
     * which names exist; any other mc_io (it has no listing) is asked about
     * each name. Without region coordinates (a file not named r.X.Z.mca, no
     * mc_region_set_origin) the .mcc names are not this region's own. */
    temp_match m;
    memset(&m, 0, sizeof m);
    m.r = r;
    const char *slash = strrchr(r->path, '/');
    m.base = slash ? slash + 1 : r->path;
    bool listed = r->io == mc_io_posix() && mc__list_folder(r->path, match_temp, &m) == 0;
    for (int i = 0; i < 1024 && r->origin_known; i++)
        if ((!listed || m.seen[i]) && mcc_path(r, i & 31, i >> 5, ".tmp", path, sizeof path))
            fn(r, path, i & 31, i >> 5, user);
    int k = snprintf(path, sizeof path, "%s.compact.tmp", r->path);
    if ((!listed || m.seen[1024]) && k > 0 && (size_t)k < sizeof path)
        fn(r, path, -1, -1, user);
}

static void remove_temp(mc_region *r, const char *path, int lx, int lz, void *user)
{
    (void)lx; (void)lz; (void)user;
    r->io->remove(r->io->user, path); /* ENOENT for nearly every name */
}

void mc__region_remove_temps(mc_region *r)
{
    mc__region_each_temp(r, remove_temp, NULL);
}

static uint64_t file_sectors(const mc_region *r)
{
    return (r->file_size + SECTOR - 1) / SECTOR;
}

static bool refs_reserve(mc_region *r, uint64_t sectors)
{
    if (sectors <= r->refs_len)
        return true;
    size_t n = r->refs_len ? r->refs_len : 64;
    while (n < sectors)
        n *= 2;
    uint8_t *p = r->alloc->realloc(r->alloc->user, r->refs, r->refs_len, n);
    if (!p)
        return false;
    memset(p + r->refs_len, 0, n - r->refs_len);
    r->refs = p;
    r->refs_len = n;
    return true;
}

static void refs_add(mc_region *r, uint32_t off, uint32_t cnt, int delta)
{
    for (uint64_t s = off; s < (uint64_t)off + cnt && s < r->refs_len; s++) {
        if (delta > 0 && r->refs[s] < 255)
            r->refs[s]++;
        else if (delta < 0 && r->refs[s] > 0 && r->refs[s] < 255)
            r->refs[s]--; /* 255 = saturated: stays used for ever */
    }
}

static bool entry_valid(uint32_t loc)
{
    return (loc >> 8) >= 2 && (loc & 0xFF) > 0;
}

/* ------------------------------------------------------------- open/close */

static mc_status region_alloc(const mc_region_options *opt, mc_region **out, mc_error *err)
{
    const mc_allocator *a = mc_alloc_or_default(opt ? opt->alloc : NULL);
    mc_region *r = mem_alloc(a, sizeof *r);
    if (!r)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->io = (opt && opt->io) ? opt->io : mc_io_posix();
    r->level = opt ? opt->level : 0;
    r->max_chunk = (opt && opt->max_chunk_bytes) ? opt->max_chunk_bytes : MC__DEFAULT_MAX_CHUNK;
    mc_buf_init(&r->scratch, a);
    *out = r;
    return MC_OK;
}

static mc_status load_header(mc_region *r, mc_error *err)
{
    uint8_t header[HEADER_BYTES];
    size_t got = 0;
    int rc = r->io->size(r->io->user, r->file, &r->file_size);
    if (rc)
        return io_error(err, rc, "cannot stat", r->path);
    rc = r->io->pread(r->io->user, r->file, header, sizeof header, 0, &got);
    if (rc)
        return io_error(err, rc, "cannot read header of", r->path);
    /* A file shorter than the header (creation cut short) reads as zeros. */
    memset(header + got, 0, sizeof header - got);
    for (int i = 0; i < 1024; i++) {
        r->loc[i] = mc_load_u32be(header + 4 * i);
        r->ts[i] = mc_load_u32be(header + SECTOR + 4 * i);
    }
    return MC_OK;
}

static mc_status prepare_for_writing(mc_region *r, bool created, mc_error *err)
{
    if (r->file_size < HEADER_BYTES) {
        /* New (or cut-short new) file: complete the header with zeros. The
         * bytes already there are kept as they are. */
        static const uint8_t zeros[HEADER_BYTES];
        size_t have = (size_t)r->file_size;
        int rc = r->io->pwrite(r->io->user, r->file, zeros + have, HEADER_BYTES - have, have);
        if (!rc)
            rc = r->io->fsync(r->io->user, r->file);
        if (!rc && created && r->io->fsync_dir)
            rc = r->io->fsync_dir(r->io->user, r->path);
        if (rc)
            return io_error(err, rc, "cannot write header of", r->path);
        r->file_size = HEADER_BYTES;
    }
    if (r->file_size % SECTOR) {
        /* A write that extended the file was cut short (or another tool did
         * not pad): nothing live lies past the last whole sector's end that
         * the file does not hold, so zero padding to the boundary is safe. */
        static const uint8_t zeros[SECTOR];
        size_t pad = SECTOR - (size_t)(r->file_size % SECTOR);
        int rc = r->io->pwrite(r->io->user, r->file, zeros, pad, r->file_size);
        if (!rc)
            rc = r->io->fsync(r->io->user, r->file);
        if (rc)
            return io_error(err, rc, "cannot pad", r->path);
        r->file_size += pad;
    }
    if (!refs_reserve(r, file_sectors(r) > 2 ? file_sectors(r) : 2))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    r->refs[0] = r->refs[1] = 255;
    for (int i = 0; i < 1024; i++) {
        uint32_t loc = r->loc[i];
        if (!entry_valid(loc))
            continue;
        if (!refs_reserve(r, (uint64_t)(loc >> 8) + (loc & 0xFF)))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
        refs_add(r, loc >> 8, loc & 0xFF, +1);
    }
    return MC_OK;
}

mc_status mc_region_open(const char *path, const mc_region_options *opt, mc_region **out,
                         mc_error *err)
{
    *out = NULL;
    if (!path)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "region: no path");
    mc_region *r = NULL; /* set by region_alloc on success (gcc -O2 cannot see it) */
    mc_status st = region_alloc(opt, &r, err);
    if (st)
        return st;
    r->path = dup_string(r->alloc, path, &r->path_cap);
    if (!r->path) {
        mc_region_close(r);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    }
    r->origin_known = parse_origin(path, &r->rx, &r->rz);
    r->writable = opt && opt->writable;
    bool created = false;
    int rc;
    if (r->writable && opt->create) {
        rc = r->io->open(r->io->user, path, MC_IO_WRITE, &r->file);
        if (rc == ENOENT) {
            rc = r->io->open(r->io->user, path, MC_IO_WRITE | MC_IO_CREATE, &r->file);
            created = true;
        }
    } else {
        rc = r->io->open(r->io->user, path, r->writable ? MC_IO_WRITE : MC_IO_READ, &r->file);
    }
    if (rc) {
        r->file = NULL;
        mc_region_close(r);
        return io_error(err, rc, "cannot open", path);
    }
    st = load_header(r, err);
    if (!st && r->writable)
        st = prepare_for_writing(r, created, err);
    if (st) {
        mc_region_close(r);
        return st;
    }
    *out = r;
    return MC_OK;
}

mc_status mc_region_open_memory(const void *data, size_t len, const mc_region_options *opt,
                                mc_region **out, mc_error *err)
{
    *out = NULL;
    mc_region_options o = opt ? *opt : (mc_region_options){0};
    o.io = &memory_io;
    mc_region *r = NULL; /* set by region_alloc on success (gcc -O2 cannot see it) */
    mc_status st = region_alloc(&o, &r, err);
    if (st)
        return st;
    r->memory = (mc_region_mem){data, len};
    r->file = &r->memory;
    r->path = dup_string(r->alloc, "(memory)", &r->path_cap);
    if (!r->path) {
        mc_region_close(r);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    }
    st = load_header(r, err);
    if (st) {
        mc_region_close(r);
        return st;
    }
    *out = r;
    return MC_OK;
}

void mc_region_close(mc_region *r)
{
    if (!r)
        return;
    if (r->file && r->io != &memory_io) {
        if (r->bulk && r->writable && !r->broken)
            r->io->fsync(r->io->user, r->file);
        r->io->close(r->io->user, r->file);
    }
    if (r->dec)
        libdeflate_free_decompressor(r->dec);
    mc_buf_free(&r->scratch);
    mem_free(r->alloc, r->refs, r->refs_len);
    mem_free(r->alloc, r->path, r->path_cap);
    mem_free(r->alloc, r, sizeof *r);
}

bool mc_region_origin(const mc_region *r, int32_t *rx, int32_t *rz)
{
    if (rx) *rx = r->rx;
    if (rz) *rz = r->rz;
    return r->origin_known;
}

void mc_region_set_origin(mc_region *r, int32_t rx, int32_t rz)
{
    r->rx = rx;
    r->rz = rz;
    r->origin_known = true;
}

static bool local_ok(int lx, int lz)
{
    return lx >= 0 && lx < 32 && lz >= 0 && lz < 32;
}

mc_region_entry mc_region_get_entry(const mc_region *r, int lx, int lz)
{
    mc_region_entry e = {0, 0, 0};
    if (!local_ok(lx, lz))
        return e;
    uint32_t loc = r->loc[lx + lz * 32];
    e.sector_offset = loc >> 8;
    e.sector_count = loc & 0xFF;
    e.timestamp = r->ts[lx + lz * 32];
    return e;
}

bool mc_region_has_chunk(const mc_region *r, int lx, int lz)
{
    return local_ok(lx, lz) && r->loc[lx + lz * 32] != 0;
}

uint64_t mc_region_file_size(const mc_region *r)
{
    return r->file_size;
}

/* ------------------------------------------------------------- reading */

static mc_status read_external(mc_region *r, int lx, int lz, mc_region_problem_kind *kind,
                               mc_error *err)
{
    char path[4200];
    *kind = MC_REGION_PROBLEM_EXTERNAL;
    if (r->io == &memory_io || !mcc_path(r, lx, lz, "", path, sizeof path))
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX,
                            "region: chunk %d %d is external but its .mcc is not available", lx,
                            lz);
    void *f = NULL;
    int rc = r->io->open(r->io->user, path, MC_IO_READ | MC_IO_NOFOLLOW, &f);
    if (rc == ENOENT)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX,
                            "region: chunk %d %d allocated but stream missing (%s)", lx, lz, path);
    if (rc)
        return io_error(err, rc, "cannot open", path);
    uint64_t size = 0;
    rc = r->io->size(r->io->user, f, &size);
    if (!rc && size > r->max_chunk)
        rc = EFBIG;
    size_t got = 0;
    r->scratch.len = 0;
    if (!rc && !mc_buf_reserve(&r->scratch, (size_t)size + 1))
        rc = ENOMEM;
    if (!rc)
        rc = r->io->pread(r->io->user, f, r->scratch.data, (size_t)size, 0, &got);
    r->io->close(r->io->user, f);
    if (rc)
        return io_error(err, rc, "cannot read", path);
    r->scratch.len = got;
    return MC_OK;
}

mc_status mc__region_read_record(mc_region *r, int lx, int lz, const uint8_t **payload,
                                 size_t *payload_len, mc_region_record *rec,
                                 mc_region_problem_kind *kind, mc_error *err)
{
    mc_region_problem_kind dummy;
    if (!kind)
        kind = &dummy;
    *kind = MC_REGION_PROBLEM_BAD_LENGTH;
    if (rec)
        memset(rec, 0, sizeof *rec);
    if (!local_ok(lx, lz))
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX,
                            "region: local chunk %d %d outside 0..31", lx, lz);
    uint32_t loc = r->loc[lx + lz * 32];
    uint32_t off = loc >> 8, cnt = loc & 0xFF;
    if (loc == 0)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "region: chunk %d %d is absent",
                            lx, lz);
    if (off < 2 || cnt == 0) {
        *kind = MC_REGION_PROBLEM_IN_HEADER;
        return mc_error_set(err, MC_ERR_MALFORMED, (size_t)(4 * (lx + lz * 32)),
                            "region: chunk %d %d has invalid location %u+%u", lx, lz, off, cnt);
    }
    uint64_t start = (uint64_t)off * SECTOR;
    if (start + 5 > r->file_size) {
        *kind = MC_REGION_PROBLEM_OUT_OF_FILE;
        return mc_error_set(err, MC_ERR_TRUNCATED, (size_t)start,
                            "region: chunk %d %d starts beyond the end of the file (%llu bytes)",
                            lx, lz, (unsigned long long)r->file_size);
    }
    uint64_t want = (uint64_t)cnt * SECTOR;
    if (want > r->file_size - start)
        want = r->file_size - start;
    r->scratch.len = 0;
    if (!mc_buf_reserve(&r->scratch, (size_t)want))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    size_t got = 0;
    int rc = r->io->pread(r->io->user, r->file, r->scratch.data, (size_t)want, start, &got);
    if (rc)
        return io_error(err, rc, "cannot read", r->path);
    if (got < 5) {
        *kind = MC_REGION_PROBLEM_OUT_OF_FILE;
        return mc_error_set(err, MC_ERR_TRUNCATED, (size_t)start,
                            "region: chunk %d %d record cut off", lx, lz);
    }
    uint32_t length = mc_load_u32be(r->scratch.data);
    uint8_t comp = r->scratch.data[4];
    if (rec) {
        rec->length = length;
        rec->compression = comp & 0x7F;
        rec->external = (comp & MC_REGION_EXTERNAL_FLAG) != 0;
    }
    if (length == 0)
        return mc_error_set(err, MC_ERR_MALFORMED, (size_t)start,
                            "region: chunk %d %d has record length 0", lx, lz);
    uint64_t need = 4 + (uint64_t)length;
    if (need > (uint64_t)cnt * SECTOR) {
        /* Paper writes oversized records with count 255 and trusts the
         * length; accept that when the file really holds the bytes. */
        if (cnt != 255 || need > r->file_size - start)
            return mc_error_set(err, MC_ERR_MALFORMED, (size_t)start,
                                "region: chunk %d %d length %u exceeds its %u sectors", lx, lz,
                                length, cnt);
        if (need > r->max_chunk)
            return mc_error_set(err, MC_ERR_LIMIT, (size_t)start,
                                "region: chunk %d %d length %u over the limit", lx, lz, length);
        if (!mc_buf_reserve(&r->scratch, (size_t)need))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
        rc = r->io->pread(r->io->user, r->file, r->scratch.data, (size_t)need, start, &got);
        if (rc)
            return io_error(err, rc, "cannot read", r->path);
    }
    if (need > got) {
        *kind = MC_REGION_PROBLEM_OUT_OF_FILE;
        return mc_error_set(err, MC_ERR_TRUNCATED, (size_t)start,
                            "region: chunk %d %d record of %u bytes cut off by the end of file",
                            lx, lz, length);
    }
    const uint8_t *data = r->scratch.data + 5;
    size_t data_len = length - 1;
    if (comp & MC_REGION_EXTERNAL_FLAG) {
        /* The game warns about a stub with data ("both internal and external
         * streams") and uses the external one; so do we (verify reports it). */
        mc_status st = read_external(r, lx, lz, kind, err);
        if (st)
            return st;
        data = r->scratch.data;
        data_len = r->scratch.len;
    }
    if (rec) {
        rec->compressed_size = data_len;
        if ((comp & 0x7F) == MC_COMPRESSION_CUSTOM && data_len >= 2) {
            size_t n = mc_load_u16be(data);
            if (n > data_len - 2)
                n = data_len - 2;
            if (n > sizeof rec->custom_name - 1)
                n = sizeof rec->custom_name - 1;
            memcpy(rec->custom_name, data + 2, n);
            rec->custom_name[n] = 0;
        }
    }
    *payload = data;
    *payload_len = data_len;
    return MC_OK;
}

mc_status mc_region_read_raw(mc_region *r, int lx, int lz, mc_buf *out, mc_region_record *rec,
                             mc_error *err)
{
    const uint8_t *p;
    size_t n;
    mc_status st = mc__region_read_record(r, lx, lz, &p, &n, rec, NULL, err);
    if (st)
        return st;
    if (n) /* mc_buf_put of 0 bytes into an empty buffer would do NULL + 0 */
        mc_buf_put(out, p, n);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
}

mc_status mc__region_inflate(mc_region *r, int comp, const uint8_t *p, size_t n, mc_buf *out,
                             mc_error *err)
{
    if (!r->dec && (comp == MC_COMPRESSION_ZLIB || comp == MC_COMPRESSION_GZIP)) {
        r->dec = libdeflate_alloc_decompressor();
        if (!r->dec)
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    }
    return mc__decompress(r->dec, comp, p, n, out, r->max_chunk, err);
}

mc_status mc_region_read_chunk(mc_region *r, int lx, int lz, mc_buf *out, mc_region_record *rec,
                               mc_error *err)
{
    const uint8_t *p;
    size_t n;
    mc_region_record local;
    if (!rec)
        rec = &local;
    mc_status st = mc__region_read_record(r, lx, lz, &p, &n, rec, NULL, err);
    if (st)
        return st;
    return mc__region_inflate(r, rec->compression, p, n, out, err);
}

/* ------------------------------------------------------------- writing */

static mc_status check_writable(mc_region *r, int lx, int lz, mc_error *err)
{
    if (!r->writable)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "region: %s is open read only", r->path);
    if (r->broken)
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX,
                            "region: an earlier header write failed; reopen %s", r->path);
    if (!local_ok(lx, lz))
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX,
                            "region: local chunk %d %d outside 0..31", lx, lz);
    if (!r->temps_removed) {
        /* The first write of this handle: no other writer may be at work on
         * this region, so any temporary of ours is left from a crash. */
        mc__region_remove_temps(r);
        r->temps_removed = true;
    }
    return MC_OK;
}

/* The compression byte of the live record of entry `idx`, or -1. */
static int live_compression_byte(mc_region *r, int idx)
{
    uint32_t loc = r->loc[idx];
    if (!entry_valid(loc))
        return -1;
    uint8_t h[5];
    size_t got = 0;
    if (r->io->pread(r->io->user, r->file, h, 5, (uint64_t)(loc >> 8) * SECTOR, &got) || got < 5)
        return -1;
    return h[4];
}

static uint32_t first_fit(mc_region *r, uint32_t count)
{
    uint64_t run = 0;
    for (uint64_t s = 2;; s++) {
        bool used = s < r->refs_len && r->refs[s] != 0;
        run = used ? 0 : run + 1;
        if (run == count)
            return (uint32_t)(s + 1 - count);
    }
}

/* Makes the header entry of `idx` say `loc` with timestamp `ts`: the
 * commit point (two aligned 4-byte writes and an fsync). */
static mc_status commit_entry(mc_region *r, int idx, uint32_t loc, uint32_t ts, mc_error *err)
{
    uint8_t b[4];
    mc_store_u32be(b, loc);
    int rc = r->io->pwrite(r->io->user, r->file, b, 4, (uint64_t)idx * 4);
    if (!rc) {
        mc_store_u32be(b, ts);
        rc = r->io->pwrite(r->io->user, r->file, b, 4, SECTOR + (uint64_t)idx * 4);
    }
    if (!rc && !r->bulk)
        rc = r->io->fsync(r->io->user, r->file);
    if (rc) {
        r->broken = true;
        return io_error(err, rc, "header write failed on", r->path);
    }
    uint32_t old = r->loc[idx];
    r->loc[idx] = loc;
    r->ts[idx] = ts;
    if (entry_valid(old))
        refs_add(r, old >> 8, old & 0xFF, -1);
    return MC_OK;
}

mc_status mc__write_external(const mc_io *io, const char *final, const void *payload, size_t len,
                             bool sync_dir, mc_error *err)
{
    char tmp[4200];
    int k = snprintf(tmp, sizeof tmp, "%s.tmp", final);
    if (k < 0 || (size_t)k >= sizeof tmp)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "region: path too long");
    void *f = NULL;
    /* Made afresh: an old one (from a crash) could be a link to a file of
     * someone else's, which O_TRUNC would empty. */
    io->remove(io->user, tmp);
    int rc = io->open(io->user, tmp,
                      MC_IO_WRITE | MC_IO_CREATE | MC_IO_TRUNCATE | MC_IO_EXCLUSIVE | MC_IO_NOFOLLOW, &f);
    if (rc)
        return io_error(err, rc, "cannot create", tmp);
    rc = io->pwrite(io->user, f, payload, len, 0);
    if (!rc)
        rc = io->fsync(io->user, f);
    int rc2 = io->close(io->user, f);
    if (!rc)
        rc = rc2;
    if (!rc)
        rc = io->rename(io->user, tmp, final);
    if (rc) {
        io->remove(io->user, tmp);
        return io_error(err, rc, "cannot write", final);
    }
    if (io->fsync_dir && sync_dir)
        rc = io->fsync_dir(io->user, final);
    return rc ? io_error(err, rc, "cannot sync folder of", final) : MC_OK;
}

static mc_status write_external_file(mc_region *r, int lx, int lz, const void *payload,
                                     size_t len, mc_error *err)
{
    char final[4200];
    if (!mcc_path(r, lx, lz, "", final, sizeof final))
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "region: path too long");
    return mc__write_external(r->io, final, payload, len, !r->bulk, err);
}

mc_status mc_region_write_raw(mc_region *r, int lx, int lz, const void *payload, size_t len,
                              int compression_id, uint32_t timestamp, mc_error *err)
{
    mc_status st = check_writable(r, lx, lz, err);
    if (st)
        return st;
    if (compression_id < 1 || compression_id > 127)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "region: compression id %d", compression_id);
    if (len > UINT32_MAX - 8)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "region: record too large");
    int idx = lx + lz * 32;
    if (timestamp == 0)
        timestamp = (uint32_t)time(NULL);
    int old_comp = live_compression_byte(r, idx);
    bool old_external = old_comp >= 0 && (old_comp & MC_REGION_EXTERNAL_FLAG);
    uint64_t sectors = ((uint64_t)len + 5 + SECTOR - 1) / SECTOR;
    bool external = sectors > 255;

    if (external) {
        if (old_external && (old_comp & 0x7F) != compression_id)
            return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                                "region: chunk %d %d is external in %s; replacing it atomically "
                                "needs the same compression", lx, lz,
                                mc_compression_name(old_comp));
        st = write_external_file(r, lx, lz, payload, len, err);
        if (st)
            return st;
        sectors = 1;
    }

    /* The record with its padding, in one buffer, written with one pwrite. */
    size_t bytes = (size_t)sectors * SECTOR;
    uint8_t *rec = mem_alloc(r->alloc, bytes);
    if (!rec)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    memset(rec, 0, bytes);
    mc_store_u32be(rec, external ? 1u : (uint32_t)len + 1);
    rec[4] = (uint8_t)(compression_id | (external ? MC_REGION_EXTERNAL_FLAG : 0));
    if (!external && len)
        memcpy(rec + 5, payload, len);

    uint32_t off = first_fit(r, (uint32_t)sectors);
    if ((uint64_t)off + sectors > 0xFFFFFF) { /* the entry has 24 bits of offset */
        mem_free(r->alloc, rec, bytes);
        return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "region: %s is full (64 GiB)", r->path);
    }
    if (!refs_reserve(r, (uint64_t)off + sectors)) {
        mem_free(r->alloc, rec, bytes);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "region: out of memory");
    }
    uint64_t old_size = r->file_size;
    int rc = r->io->pwrite(r->io->user, r->file, rec, bytes, (uint64_t)off * SECTOR);
    mem_free(r->alloc, rec, bytes);
    if (!rc && !r->bulk)
        rc = r->io->fsync(r->io->user, r->file);
    if (rc) {
        /* Nothing refers to the new bytes; give back any growth. */
        if ((uint64_t)off * SECTOR + bytes > old_size)
            r->io->truncate(r->io->user, r->file, old_size);
        return io_error(err, rc, "cannot write record to", r->path);
    }
    if ((uint64_t)off * SECTOR + bytes > r->file_size)
        r->file_size = (uint64_t)off * SECTOR + bytes;

    uint32_t loc = off << 8 | (uint32_t)sectors;
    refs_add(r, off, (uint32_t)sectors, +1);
    st = commit_entry(r, idx, loc, timestamp, err);
    if (st)
        return st; /* unknown state: old and new sectors both stay in use */
    if (old_external && !external) {
        char path[4200];
        if (mcc_path(r, lx, lz, "", path, sizeof path))
            r->io->remove(r->io->user, path);
    }
    return MC_OK;
}

mc_status mc_region_write_chunk(mc_region *r, int lx, int lz, const void *data, size_t len,
                                mc_compression compression, uint32_t timestamp, mc_error *err)
{
    mc_status st = check_writable(r, lx, lz, err);
    if (st)
        return st;
    mc_buf packed;
    mc_buf_init(&packed, r->alloc);
    st = mc_region_compress(compression, r->level, data, len, &packed, err);
    if (!st && packed.len + 5 > 255 * SECTOR) {
        int old = live_compression_byte(r, lx + lz * 32);
        if (old >= 0 && (old & MC_REGION_EXTERNAL_FLAG) && (old & 0x7F) != (int)compression) {
            /* See the file comment: keep the live external compression. */
            packed.len = 0;
            st = mc_region_compress((mc_compression)(old & 0x7F), r->level, data, len, &packed,
                                    err);
            compression = (mc_compression)(old & 0x7F);
        }
    }
    if (!st)
        st = mc_region_write_raw(r, lx, lz, packed.data, packed.len, (int)compression, timestamp,
                                 err);
    mc_buf_free(&packed);
    return st;
}

mc_status mc_region_delete_chunk(mc_region *r, int lx, int lz, mc_error *err)
{
    mc_status st = check_writable(r, lx, lz, err);
    if (st)
        return st;
    int idx = lx + lz * 32;
    if (r->loc[idx] == 0 && r->ts[idx] == 0)
        return MC_OK;
    int old_comp = live_compression_byte(r, idx);
    st = commit_entry(r, idx, 0, 0, err);
    if (st)
        return st;
    if (old_comp >= 0 && (old_comp & MC_REGION_EXTERNAL_FLAG)) {
        char path[4200];
        if (mcc_path(r, lx, lz, "", path, sizeof path))
            r->io->remove(r->io->user, path);
    }
    return MC_OK;
}
