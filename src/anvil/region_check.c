/*
 * region_check.c: whole-file operations on region files -- verify, salvage,
 * compact.
 *
 * verify walks the header and every record and reports each problem once:
 * entries pointing into the header or past the end of the file, sectors
 * claimed by two chunks (found with a per-sector owner table), lengths that
 * do not fit their sectors, compressions that are unknown or do not inflate,
 * broken external (.mcc) chunks, and -- through the NBT check hook -- payloads
 * that are not NBT or name another chunk position.
 *
 * salvage copies every chunk that reads and inflates into a new file (the
 * compressed bytes as they are, with their timestamps) and names the others.
 *
 * compact never writes in place: the live records go, in index order and
 * without holes, into "<path>.compact.tmp", which is fsynced and renamed over
 * the original, then the folder is fsynced. A crash leaves either the old
 * file (plus a stray temporary file) or the new one.
 *
 * Stray temporaries (c.X.Z.mcc.tmp of a killed chunk write, the
 * .compact.tmp of a killed compaction) hold no live data. verify reports
 * each one found under the exact names this region's writes use; compact,
 * like the first write of a handle (region.c), removes them first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anvil/anvil_private.h"
#include "anvil/region_check_nbt.h"
#include "anvil/region_private.h"

#define SECTOR 4096u

static void report_problem(void (*report)(void *, const mc_region_problem *), void *user,
                           mc_region_problem_kind kind, int lx, int lz, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static void report_problem(void (*report)(void *, const mc_region_problem *), void *user,
                           mc_region_problem_kind kind, int lx, int lz, const char *fmt, ...)
{
    if (!report)
        return;
    mc_region_problem p;
    p.kind = kind;
    p.lx = lx;
    p.lz = lz;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p.message, sizeof p.message, fmt, ap);
    va_end(ap);
    report(user, &p);
}

typedef struct stale_ctx {
    void (*report)(void *, const mc_region_problem *);
    void *user;
    size_t found;
} stale_ctx;

/* Reports the temporary at `path` if there is anything by that name. */
static void report_stale(mc_region *r, const char *path, int lx, int lz, void *user)
{
    stale_ctx *c = user;
    void *f = NULL;
    int rc = r->io->open(r->io->user, path, MC_IO_READ | MC_IO_NOFOLLOW, &f);
    char what[96];
    if (rc == 0) {
        uint64_t size = 0;
        r->io->size(r->io->user, f, &size);
        r->io->close(r->io->user, f);
        snprintf(what, sizeof what, "%llu bytes", (unsigned long long)size);
    } else if (rc == MC_IO_ENOTREG || rc == MC_IO_ESYMLINK || rc == EACCES) {
        snprintf(what, sizeof what, "%s", mc__io_strerror(rc));
    } else {
        return; /* ENOENT: nothing there */
    }
    c->found++;
    report_problem(c->report, c->user, MC_REGION_PROBLEM_STALE_TEMP, lx, lz,
                   "stale temporary %s (%s) left by an interrupted %s; no live data is in it, "
                   "the next write or compact of this region removes it",
                   path, what, lx < 0 ? "compaction" : "chunk write");
}

size_t mc_region_verify(mc_region *r, void (*report)(void *user, const mc_region_problem *p),
                        void *user, size_t *chunks_ok)
{
    size_t problems = 0, ok = 0;
    uint64_t sectors = (r->file_size + SECTOR - 1) / SECTOR;

    if (r->file_size < 2 * SECTOR) {
        report_problem(report, user, MC_REGION_PROBLEM_HEADER, -1, -1,
                       "file is %llu bytes, shorter than the 8192-byte header",
                       (unsigned long long)r->file_size);
        problems++;
    } else if (r->file_size % SECTOR) {
        report_problem(report, user, MC_REGION_PROBLEM_HEADER, -1, -1,
                       "file size %llu is not a multiple of 4096",
                       (unsigned long long)r->file_size);
        problems++;
    }

    /* Owner of each sector inside the file: entry index + 1, 0 = free. */
    uint16_t *owner = calloc(sectors ? (size_t)sectors : 1, sizeof *owner);
    bool skip[1024] = {false};     /* location unusable: not read */
    bool bad_entry[1024] = {false}; /* reported already (overlap): no NBT check */
    for (int i = 0; i < 1024; i++) {
        uint32_t loc = r->loc[i], off = loc >> 8, cnt = loc & 0xFF;
        int lx = i & 31, lz = i >> 5;
        if (loc == 0)
            continue;
        if (off < 2 || cnt == 0) {
            report_problem(report, user, MC_REGION_PROBLEM_IN_HEADER, lx, lz,
                           "chunk %d %d: invalid location sector %u count %u", lx, lz, off, cnt);
            skip[i] = true;
            problems++;
            continue;
        }
        if ((uint64_t)off + cnt > sectors) {
            report_problem(report, user, MC_REGION_PROBLEM_OUT_OF_FILE, lx, lz,
                           "chunk %d %d: sectors %u..%u beyond the file's %llu sectors", lx, lz,
                           off, off + cnt - 1, (unsigned long long)sectors);
            skip[i] = true;
            problems++;
            continue;
        }
        int clash = -1;
        for (uint32_t s = off; s < off + cnt && owner; s++) {
            if (owner[s] && clash < 0)
                clash = owner[s] - 1;
            else if (!owner[s])
                owner[s] = (uint16_t)(i + 1);
        }
        if (clash >= 0) {
            report_problem(report, user, MC_REGION_PROBLEM_OVERLAP, lx, lz,
                           "chunk %d %d: sectors %u..%u overlap chunk %d %d", lx, lz, off,
                           off + cnt - 1, clash & 31, clash >> 5);
            bad_entry[clash] = true;
            bad_entry[i] = true;
            problems++;
        }
    }
    free(owner);

    mc_buf out;
    mc_buf_init(&out, r->alloc);
    for (int i = 0; i < 1024; i++) {
        int lx = i & 31, lz = i >> 5;
        if (r->loc[i] == 0 || skip[i])
            continue;
        mc_error err;
        mc_error_clear(&err);
        const uint8_t *p;
        size_t n;
        mc_region_record rec;
        mc_region_problem_kind kind;
        if (mc__region_read_record(r, lx, lz, &p, &n, &rec, &kind, &err)) {
            report_problem(report, user, kind, lx, lz, "%s", err.message);
            problems++;
            continue;
        }
        if (rec.external && rec.length > 1) {
            report_problem(report, user, MC_REGION_PROBLEM_EXTERNAL, lx, lz,
                           "chunk %d %d: both internal and external streams (length %u)", lx,
                           lz, rec.length);
            problems++;
        }
        out.len = 0;
        if (mc__region_inflate(r, rec.compression, p, n, &out, &err)) {
            report_problem(report, user, MC_REGION_PROBLEM_BAD_COMPRESSION, lx, lz,
                           "chunk %d %d (%s): %s", lx, lz, mc_compression_name(rec.compression),
                           err.message);
            problems++;
            continue;
        }
        if (bad_entry[i])
            continue;
        int32_t rx, rz;
        bool origin = mc_region_origin(r, &rx, &rz);
        mc_region_problem_kind nbt_kind;
        char msg[MC_ERROR_MESSAGE_MAX];
        if (mc__region_check_nbt(out.data, out.len, origin, rx * 32 + lx, rz * 32 + lz,
                                 &nbt_kind, msg, sizeof msg)) {
            report_problem(report, user, nbt_kind, lx, lz, "chunk %d %d: %s", lx, lz, msg);
            problems++;
            continue;
        }
        ok++;
    }
    mc_buf_free(&out);

    stale_ctx sc = {report, user, 0};
    mc__region_each_temp(r, report_stale, &sc);
    problems += sc.found;
    if (chunks_ok)
        *chunks_ok = ok;
    return problems;
}

mc_status mc_region_salvage(mc_region *r, const char *out_path, const mc_region_options *opt,
                            void (*report)(void *user, const mc_region_problem *p), void *user,
                            size_t *saved, size_t *lost, mc_error *err)
{
    size_t n_saved = 0, n_lost = 0;
    mc_region_options o = opt ? *opt : (mc_region_options){0};
    if (!o.io)
        o.io = r->io;
    o.writable = true;
    o.create = true;
    void *probe = NULL;
    if (o.io->open(o.io->user, out_path, MC_IO_READ, &probe) == 0) {
        o.io->close(o.io->user, probe);
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "salvage: %s already exists", out_path);
    }
    mc_region *dst;
    mc_status st = mc_region_open(out_path, &o, &dst, err);
    if (st)
        return st;
    dst->bulk = true;
    int32_t rx, rz;
    if (mc_region_origin(r, &rx, &rz))
        mc_region_set_origin(dst, rx, rz);

    mc_buf out, raw;
    mc_buf_init(&out, r->alloc);
    mc_buf_init(&raw, r->alloc);
    for (int i = 0; i < 1024 && !st; i++) {
        int lx = i & 31, lz = i >> 5;
        if (r->loc[i] == 0)
            continue;
        mc_error e;
        mc_error_clear(&e);
        const uint8_t *p;
        size_t n;
        mc_region_record rec;
        mc_region_problem_kind kind;
        if (mc__region_read_record(r, lx, lz, &p, &n, &rec, &kind, &e)) {
            report_problem(report, user, kind, lx, lz, "lost: %s", e.message);
            n_lost++;
            continue;
        }
        raw.len = 0;
        if (n) /* (the scratch buffer is reused by the inflate below) */
            mc_buf_put(&raw, p, n);
        if (rec.compression != MC_COMPRESSION_CUSTOM) {
            out.len = 0;
            if (mc__region_inflate(r, rec.compression, raw.data, raw.len, &out, &e)) {
                report_problem(report, user, MC_REGION_PROBLEM_BAD_COMPRESSION, lx, lz,
                               "lost: chunk %d %d: %s", lx, lz, e.message);
                n_lost++;
                continue;
            }
            mc_region_problem_kind nk;
            char msg[MC_ERROR_MESSAGE_MAX];
            if (mc__region_check_nbt(out.data, out.len, mc_region_origin(r, &rx, &rz),
                                     rx * 32 + lx, rz * 32 + lz, &nk, msg, sizeof msg)) {
                report_problem(report, user, nk, lx, lz, "lost: chunk %d %d: %s", lx, lz, msg);
                n_lost++;
                continue;
            }
        }
        /* Custom-compressed chunks cannot be checked; they are kept as they
         * are (the modded server that wrote them may read them). */
        if (!mc_buf_ok(&raw)) {
            st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "salvage: out of memory");
            break;
        }
        st = mc_region_write_raw(dst, lx, lz, raw.data, raw.len, rec.compression,
                                 r->ts[i] ? r->ts[i] : 1, err);
        if (!st)
            n_saved++;
    }
    mc_buf_free(&out);
    mc_buf_free(&raw);
    if (!st && dst->io->fsync(dst->io->user, dst->file))
        st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "salvage: cannot sync %s", out_path);
    dst->bulk = false;
    mc_region_close(dst);
    if (!st && o.io->fsync_dir)
        o.io->fsync_dir(o.io->user, out_path);
    if (saved)
        *saved = n_saved;
    if (lost)
        *lost = n_lost;
    return st;
}

mc_status mc_region_compact(const char *path, const mc_region_options *opt, uint64_t *before,
                            uint64_t *after, mc_error *err)
{
    mc_region_options o = opt ? *opt : (mc_region_options){0};
    o.writable = false;
    mc_region *src;
    mc_status st = mc_region_open(path, &o, &src, err);
    if (st)
        return st;
    const mc_io *io = src->io;
    mc__region_remove_temps(src); /* this compaction's own name among them */
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.compact.tmp", path) >= (int)sizeof tmp) {
        mc_region_close(src);
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "compact: path too long");
    }
    if (before)
        *before = src->file_size;

    uint8_t header[2 * SECTOR];
    memset(header, 0, sizeof header);
    void *f = NULL;
    int rc = io->open(io->user, tmp,
                      MC_IO_WRITE | MC_IO_CREATE | MC_IO_TRUNCATE | MC_IO_EXCLUSIVE |
                          MC_IO_NOFOLLOW, &f);
    if (rc) {
        mc_region_close(src);
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "compact: cannot create %s: %s", tmp,
                            mc__io_strerror(rc));
    }
    uint8_t *buf = NULL;
    size_t buf_cap = 0;
    uint64_t next = 2;
    for (int i = 0; i < 1024 && !st && !rc; i++) {
        int lx = i & 31, lz = i >> 5;
        mc_store_u32be(header + SECTOR + 4 * i, src->ts[i]);
        if (src->loc[i] == 0)
            continue;
        const uint8_t *p;
        size_t n;
        mc_region_record rec;
        st = mc__region_read_record(src, lx, lz, &p, &n, &rec, NULL, err);
        if (st) {
            char why[MC_ERROR_MESSAGE_MAX];
            snprintf(why, sizeof why, "%s", err ? err->message : "");
            st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                              "compact: chunk %d %d unreadable (%s); salvage the file instead",
                              lx, lz, why);
            break;
        }
        /* The stored record: its 5-byte head (taken from the scratch copy of
         * the sectors, which still starts with it for internal records) and
         * payload, or the 1-sector stub of an external record. */
        size_t rec_bytes = rec.external ? 5 : 4 + (size_t)rec.length;
        uint64_t cnt = (rec_bytes + SECTOR - 1) / SECTOR;
        size_t bytes = (size_t)cnt * SECTOR;
        if (bytes > buf_cap) {
            free(buf);
            buf = malloc(bytes);
            buf_cap = buf ? bytes : 0;
            if (!buf) {
                st = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "compact: out of memory");
                break;
            }
        }
        memset(buf, 0, bytes);
        mc_store_u32be(buf, rec.external ? 1 : rec.length);
        buf[4] = (uint8_t)(rec.compression | (rec.external ? MC_REGION_EXTERNAL_FLAG : 0));
        if (!rec.external)
            memcpy(buf + 5, p, n);
        if (cnt > 255) { /* a Paper-style oversized record: keep the count saturated */
            mc_store_u32be(header + 4 * i, (uint32_t)(next << 8 | 255));
        } else {
            mc_store_u32be(header + 4 * i, (uint32_t)(next << 8 | cnt));
        }
        rc = io->pwrite(io->user, f, buf, bytes, next * SECTOR);
        next += cnt;
    }
    free(buf);
    if (!st && !rc)
        rc = io->pwrite(io->user, f, header, sizeof header, 0);
    if (!st && !rc)
        rc = io->fsync(io->user, f);
    int rc2 = io->close(io->user, f);
    if (!rc)
        rc = rc2;
    mc_region_close(src);
    if (!st && !rc)
        rc = io->rename(io->user, tmp, path);
    if (!st && !rc && io->fsync_dir)
        rc = io->fsync_dir(io->user, path);
    if (st || rc) {
        io->remove(io->user, tmp);
        if (!st)
            st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "compact: %s: %s", path,
                              mc__io_strerror(rc));
        return st;
    }
    if (after)
        *after = next * SECTOR;
    return MC_OK;
}
