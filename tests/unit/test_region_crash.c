/*
 * test_region_crash.c: crash and full-disk injection for region writes, in
 * the spirit of SQLite's crash tests.
 *
 * The region code does all its I/O through mc_io. Here mc_io is an in-memory
 * file system that counts every mutating call (create, pwrite, fsync,
 * truncate, rename, remove, fsync of a folder) and can, at call k,
 *   - crash: let only the first b bytes of that call land, then fail every
 *     later call (the process is dead), or
 *   - run out of space: write b bytes, return ENOSPC, and carry on.
 * Each file keeps two images: what was written, and what the last fsync made
 * durable. After a crash the test looks at both worlds -- "every write
 * reached the disk, the last one torn at byte b" and "the OS lost everything
 * not fsynced" -- reopens the region from those bytes and checks that
 *   - it opens, and every chunk committed before the operation reads back
 *     byte for byte;
 *   - each chunk the operation changes is fully old or fully new (never
 *     absent unless it was, never garbage), and is new if the write call had
 *     already returned MC_OK (acknowledged writes are durable);
 *   - (call boundaries) a writer reopened on those bytes can write again and
 *     everything still reads; before it does, verify reports exactly the
 *     temporaries (c.X.Z.mcc.tmp, .compact.tmp) the crash left, and after
 *     its first write none is left (a compaction run again also leaves
 *     none, and the same chunks).
 * Durability beyond what the images show: the order of the calls is checked
 * too -- no header entry is written while record bytes written before it
 * are not yet fsynced, and every rename is followed at once by an fsync of
 * its folder (the model keeps names durable at once, so only the order can
 * show a missing folder fsync).
 * Scenarios: creating a file, rewriting a chunk, filling a freed hole,
 * deleting, internal -> external (.mcc) -> external -> internal, a new chunk,
 * and compaction. Cuts: every call boundary; every byte boundary of writes
 * up to 16 KiB (the 8 KiB header creation and whole multi-sector records);
 * edges and a stride for the 1.2 MB .mcc writes. Aligned 4-byte header
 * entry writes are atomic by the design's assumption (one disk sector), so
 * they are cut only at their boundaries.
 */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"

/* ------------------------------------------------------------- the file system */

/* A write not yet made durable by fsync (data NULL: a truncation to off). */
typedef struct pending {
    uint64_t off;
    uint8_t *data;
    size_t n;
} pending;

#define MAX_PENDING 8

typedef struct vnode {
    uint8_t *cur, *dur;
    size_t cur_len, dur_len;
    pending log[MAX_PENDING]; /* unsynced writes, in order */
    int nlog;
    bool log_overflow;
} vnode;

#define MAX_ENTRIES 16
#define MAX_OPS 512

typedef struct vfs {
    char names[MAX_ENTRIES][128];
    vnode *nodes[MAX_ENTRIES];
    int n;
    long ops;           /* mutating calls so far */
    long cut_op;        /* 1-based; 0 = never */
    size_t cut_byte;
    bool enospc;        /* fail with ENOSPC at cut_op instead of dying */
    bool dead;
    /* trace of the mutating calls: kind and size (for pwrite) */
    char kind[MAX_OPS];
    size_t size[MAX_OPS];
    bool atomic[MAX_OPS];
} vfs;

typedef struct vhandle {
    vfs *fs;
    vnode *node;
} vhandle;

static vnode *node_new(void)
{
    vnode *v = calloc(1, sizeof *v);
    return v;
}

static void log_clear(vnode *v)
{
    for (int i = 0; i < v->nlog; i++)
        free(v->log[i].data);
    v->nlog = 0;
    v->log_overflow = false;
}

static void log_add(vnode *v, uint64_t off, const void *data, size_t n)
{
    if (v->nlog == MAX_PENDING) {
        v->log_overflow = true;
        return;
    }
    pending *p = &v->log[v->nlog++];
    p->off = off;
    p->n = n;
    p->data = NULL;
    if (data) {
        p->data = malloc(n ? n : 1);
        memcpy(p->data, data, n);
    }
}

static void node_free(vnode *v)
{
    if (!v)
        return;
    log_clear(v);
    free(v->cur);
    free(v->dur);
    free(v);
}

static vnode *node_clone(const vnode *v, bool durable_only)
{
    vnode *c = node_new();
    const uint8_t *src = durable_only ? v->dur : v->cur;
    size_t len = durable_only ? v->dur_len : v->cur_len;
    c->cur = malloc(len ? len : 1);
    if (len)
        memcpy(c->cur, src, len);
    c->cur_len = len;
    c->dur = malloc(len ? len : 1);
    if (len)
        memcpy(c->dur, src, len);
    c->dur_len = len;
    if (!durable_only)
        for (int i = 0; i < v->nlog; i++)
            log_add(c, v->log[i].off, v->log[i].data, v->log[i].n);
    c->log_overflow = v->log_overflow;
    return c;
}

static void vfs_free(vfs *fs)
{
    for (int i = 0; i < fs->n; i++)
        node_free(fs->nodes[i]);
    free(fs);
}

/* A copy of the file system with no faults planned; `durable_only` keeps
 * only what fsync made durable. */
static vfs *vfs_clone(const vfs *fs, bool durable_only)
{
    vfs *c = calloc(1, sizeof *c);
    c->n = fs->n;
    for (int i = 0; i < fs->n; i++) {
        memcpy(c->names[i], fs->names[i], sizeof c->names[i]);
        c->nodes[i] = node_clone(fs->nodes[i], durable_only);
    }
    return c;
}

static int find(const vfs *fs, const char *path)
{
    for (int i = 0; i < fs->n; i++)
        if (!strcmp(fs->names[i], path))
            return i;
    return -1;
}

/* Counts a mutating call; returns 0 to go on, or an errno with *partial set
 * to the bytes that may land. */
static int fault(vfs *fs, char kind, size_t size, bool atomic, size_t *partial)
{
    *partial = 0;
    if (fs->dead)
        return EIO;
    long k = ++fs->ops;
    if (k <= MAX_OPS) {
        fs->kind[k - 1] = kind;
        fs->size[k - 1] = size;
        fs->atomic[k - 1] = atomic;
    }
    if (k != fs->cut_op)
        return 0;
    *partial = fs->cut_byte < size ? fs->cut_byte : size;
    if (fs->enospc)
        return ENOSPC;
    fs->dead = true;
    return EIO;
}

static void node_write(vnode *v, const void *buf, size_t n, uint64_t off)
{
    if (!n)
        return;
    if (off + n > v->cur_len) {
        v->cur = realloc(v->cur, (size_t)(off + n));
        if (off > v->cur_len)
            memset(v->cur + v->cur_len, 0, (size_t)(off - v->cur_len));
        v->cur_len = (size_t)(off + n);
    }
    memcpy(v->cur + off, buf, n);
}

static int v_open(void *user, const char *path, int flags, void **file)
{
    vfs *fs = user;
    if (fs->dead)
        return EIO;
    int i = find(fs, path);
    bool mutating = (flags & MC_IO_WRITE) && (((flags & MC_IO_CREATE) && i < 0) || (flags & MC_IO_TRUNCATE));
    if (i < 0 && !((flags & MC_IO_WRITE) && (flags & MC_IO_CREATE)))
        return ENOENT;
    if (mutating) {
        size_t partial;
        int rc = fault(fs, 'o', 0, true, &partial);
        if (rc)
            return rc;
    }
    if (i < 0) {
        assert_true(fs->n < MAX_ENTRIES);
        i = fs->n++;
        snprintf(fs->names[i], sizeof fs->names[i], "%s", path);
        fs->nodes[i] = node_new();
    }
    if ((flags & MC_IO_WRITE) && (flags & MC_IO_TRUNCATE))
        fs->nodes[i]->cur_len = 0;
    vhandle *h = malloc(sizeof *h);
    h->fs = fs;
    h->node = fs->nodes[i];
    *file = h;
    return 0;
}

static int v_close(void *user, void *file)
{
    (void)user;
    free(file);
    return 0;
}

static int v_pread(void *user, void *file, void *buf, size_t n, uint64_t off, size_t *got)
{
    vfs *fs = user;
    vhandle *h = file;
    *got = 0;
    if (fs->dead)
        return EIO;
    if (off < h->node->cur_len) {
        size_t k = h->node->cur_len - (size_t)off;
        if (k > n)
            k = n;
        memcpy(buf, h->node->cur + off, k);
        *got = k;
    }
    return 0;
}

static int v_pwrite(void *user, void *file, const void *buf, size_t n, uint64_t off)
{
    vfs *fs = user;
    vhandle *h = file;
    size_t partial;
    int rc = fault(fs, 'w', n, n <= 4 && off % 4 == 0, &partial);
    if (rc) {
        node_write(h->node, buf, partial, off);
        log_add(h->node, off, buf, partial);
        return rc;
    }
    node_write(h->node, buf, n, off);
    log_add(h->node, off, buf, n);
    return 0;
}

static int v_fsync(void *user, void *file)
{
    vfs *fs = user;
    vhandle *h = file;
    size_t partial;
    int rc = fault(fs, 's', 0, true, &partial);
    if (rc)
        return rc;
    vnode *v = h->node;
    v->dur = realloc(v->dur, v->cur_len ? v->cur_len : 1);
    if (v->cur_len)
        memcpy(v->dur, v->cur, v->cur_len);
    v->dur_len = v->cur_len;
    log_clear(v);
    return 0;
}

static int v_truncate(void *user, void *file, uint64_t size)
{
    vfs *fs = user;
    vhandle *h = file;
    size_t partial;
    int rc = fault(fs, 't', 0, true, &partial);
    if (rc)
        return rc;
    if (size < h->node->cur_len)
        h->node->cur_len = (size_t)size;
    else
        node_write(h->node, "", 0, size);
    log_add(h->node, size, NULL, 0);
    return 0;
}

static int v_size(void *user, void *file, uint64_t *size)
{
    vfs *fs = user;
    if (fs->dead)
        return EIO;
    *size = ((vhandle *)file)->node->cur_len;
    return 0;
}

static int v_rename(void *user, const char *from, const char *to)
{
    vfs *fs = user;
    size_t partial;
    int i = find(fs, from);
    if (fs->dead)
        return EIO;
    if (i < 0)
        return ENOENT;
    int rc = fault(fs, 'r', 0, true, &partial);
    if (rc)
        return rc;
    int j = find(fs, to);
    if (j >= 0) {
        /* Open handles keep the replaced node alive in a real file system;
         * here nothing holds it across a rename, so free it. */
        node_free(fs->nodes[j]);
        fs->nodes[j] = fs->nodes[i];
        fs->n--;
        if (i != fs->n) {
            memcpy(fs->names[i], fs->names[fs->n], sizeof fs->names[i]);
            fs->nodes[i] = fs->nodes[fs->n];
        }
    } else {
        snprintf(fs->names[i], sizeof fs->names[i], "%s", to);
    }
    return 0;
}

static int v_remove(void *user, const char *path)
{
    vfs *fs = user;
    size_t partial;
    if (fs->dead)
        return EIO;
    int i = find(fs, path);
    if (i < 0)
        return ENOENT;
    int rc = fault(fs, 'u', 0, true, &partial);
    if (rc)
        return rc;
    node_free(fs->nodes[i]);
    fs->n--;
    if (i != fs->n) {
        memcpy(fs->names[i], fs->names[fs->n], sizeof fs->names[i]);
        fs->nodes[i] = fs->nodes[fs->n];
    }
    return 0;
}

static int v_fsync_dir(void *user, const char *path)
{
    (void)path;
    size_t partial;
    return fault(user, 'd', 0, true, &partial);
}

static mc_io io_of(vfs *fs)
{
    mc_io io = {fs, v_open, v_close, v_pread, v_pwrite, v_fsync, v_truncate, v_size, v_rename,
                v_remove, v_fsync_dir};
    return io;
}

/* ------------------------------------------------------------- the model */

#define REGION "w/r.0.0.mca"

typedef struct payload {
    uint8_t *data; /* NULL = absent */
    size_t len;
} payload;

typedef struct change {
    int idx;
    payload now;       /* what the operation writes (data NULL: delete) */
    mc_compression comp;
    bool acked;        /* the call returned MC_OK */
} change;

typedef struct scenario {
    const char *name;
    payload before[1024];
    change changes[2];
    int nchanges;
    bool compact;      /* the operation is mc_region_compact */
    bool whole;        /* the operation rewrites the file with an mc_region_writer */
    bool create;       /* the operation creates the file */
    bool every_byte;   /* cut writes <= 16 KiB at every byte (else sampled) */
    bool calls_only;   /* cut at call boundaries only (the writes themselves
                        * are cut in the scenarios that own them) */
} scenario;

static uint8_t *make_payload(int idx, size_t n, uint64_t seed, bool noise, size_t *len)
{
    /* {xPos, zPos, Data: byte[n]} like a tiny chunk. */
    size_t total = 3 + 11 * 2 + 11 + n + 1;
    uint8_t *p = malloc(total), *q = p;
    *q++ = 10; *q++ = 0; *q++ = 0;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "xPos", 4); q += 4; mc_store_u32be(q, (uint32_t)(idx & 31)); q += 4;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "zPos", 4); q += 4; mc_store_u32be(q, (uint32_t)(idx >> 5)); q += 4;
    *q++ = 7; *q++ = 0; *q++ = 4; memcpy(q, "Data", 4); q += 4; mc_store_u32be(q, (uint32_t)n); q += 4;
    mc_test_rng rng = {seed * 0x9E3779B97F4A7C15ull + 1};
    for (size_t i = 0; i < n; i++)
        q[i] = noise ? (uint8_t)(mc_test_rand(&rng) >> 56) : (uint8_t)(i * seed / 3 + i / 11);
    q += n;
    *q++ = 0;
    *len = (size_t)(q - p);
    return p;
}

static bool same(const mc_buf *b, const payload *p)
{
    return p->data && b->len == p->len && !memcmp(b->data, p->data, p->len);
}

/* The whole-file rewrite: every chunk of the old file carried byte for
 * byte (mc_region_read_raw -> put_raw), the changes applied (a delete is a
 * chunk left out), one commit. The changes are acknowledged together. */
static void rewrite_whole(const mc_io *io, scenario *sc)
{
    mc_region_options o = {0};
    o.io = io;
    mc_region *old = NULL;
    mc_region_writer *w = NULL;
    mc_error err;
    if (mc_region_open(REGION, &o, &old, &err) || mc_region_writer_new(REGION, &o, &w, &err)) {
        mc_region_close(old);
        return;
    }
    mc_buf raw;
    mc_buf_init(&raw, NULL);
    bool ok = true;
    for (int i = 0; i < 1024 && ok; i++) {
        const change *ch = NULL;
        for (int c = 0; c < sc->nchanges; c++)
            if (sc->changes[c].idx == i)
                ch = &sc->changes[c];
        if (ch) {
            if (ch->now.data)
                ok = mc_region_writer_put_chunk(w, i & 31, i >> 5, ch->now.data, ch->now.len, ch->comp, 1234,
                                                &err) == MC_OK;
            continue;
        }
        if (!mc_region_has_chunk(old, i & 31, i >> 5))
            continue;
        mc_region_record rec;
        raw.len = 0;
        ok = mc_region_read_raw(old, i & 31, i >> 5, &raw, &rec, &err) == MC_OK &&
             mc_region_writer_put_raw(w, i & 31, i >> 5, raw.data, raw.len, rec.compression,
                                      mc_region_get_entry(old, i & 31, i >> 5).timestamp, &err) == MC_OK;
    }
    mc_buf_free(&raw);
    mc_region_close(old);
    if (!ok) {
        mc_region_writer_abandon(w);
        return;
    }
    bool committed = mc_region_writer_commit(w, NULL, &err) == MC_OK;
    for (int c = 0; c < sc->nchanges; c++)
        sc->changes[c].acked = committed;
}

/* Runs the scenario's operation on `fs` (faults as planned). */
static void run_operation(vfs *fs, scenario *sc, bool extra_write)
{
    mc_io io = io_of(fs);
    mc_error err;
    for (int c = 0; c < sc->nchanges; c++)
        sc->changes[c].acked = false;
    if (sc->whole) {
        rewrite_whole(&io, sc);
        return;
    }
    if (sc->compact) {
        mc_region_options o = {0};
        o.io = &io;
        mc_region_compact(REGION, &o, NULL, NULL, &err);
        return;
    }
    mc_region_options o = {0};
    o.io = &io;
    o.writable = true;
    o.create = true;
    mc_region *r = NULL;
    if (mc_region_open(REGION, &o, &r, &err))
        return;
    for (int c = 0; c < sc->nchanges; c++) {
        change *ch = &sc->changes[c];
        mc_status st = ch->now.data
            ? mc_region_write_chunk(r, ch->idx & 31, ch->idx >> 5, ch->now.data, ch->now.len,
                                    ch->comp, 1234, &err)
            : mc_region_delete_chunk(r, ch->idx & 31, ch->idx >> 5, &err);
        ch->acked = st == MC_OK;
    }
    if (extra_write) {
        /* After an ENOSPC the handle must still work (unless the header
         * write itself failed, which it reports). */
        size_t n;
        uint8_t *p = make_payload(1023, 500, 99, false, &n);
        mc_status st = mc_region_write_chunk(r, 31, 31, p, n, MC_COMPRESSION_ZLIB, 1, &err);
        if (st == MC_OK) {
            mc_buf b;
            mc_buf_init(&b, NULL);
            assert_int_equal(mc_region_read_chunk(r, 31, 31, &b, NULL, &err), MC_OK);
            assert_int_equal(b.len, n);
            mc_buf_free(&b);
        } else {
            assert_int_equal(st, MC_ERR_IO);
        }
        free(p);
    }
    mc_region_close(r);
}

static long checks_done;

/* Opens the region in `fs` and checks the model; returns false (after
 * printing why) when it does not hold. */
static bool check_image(vfs *fs, const scenario *sc, const char *what, bool extra_allowed)
{
    mc_io io = io_of(fs);
    mc_region_options o = {0};
    o.io = &io;
    mc_region *r = NULL;
    mc_error err;
    checks_done++;
    mc_status st = mc_region_open(REGION, &o, &r, &err);
    if (st == MC_ERR_NOT_FOUND && sc->whole) {
        /* a rewrite that kept no chunk removes the file: all absent */
        static const uint8_t empty[8192];
        st = mc_region_open_memory(empty, sizeof empty, NULL, &r, &err);
        assert_int_equal(st, MC_OK);
    } else if (st == MC_ERR_NOT_FOUND && sc->create) {
        for (int c = 0; c < sc->nchanges; c++)
            if (sc->changes[c].acked) {
                print_message("%s %s: file missing after an acknowledged write\n", sc->name, what);
                return false;
            }
        return true;
    }
    if (st) {
        print_message("%s %s: open failed: %s\n", sc->name, what, err.message);
        return false;
    }
    bool ok = true;
    mc_buf b;
    mc_buf_init(&b, NULL);
    for (int i = 0; i < 1024 && ok; i++) {
        const payload *old = &sc->before[i];
        const change *ch = NULL;
        for (int c = 0; c < sc->nchanges; c++)
            if (sc->changes[c].idx == i)
                ch = &sc->changes[c];
        b.len = 0;
        st = mc_region_read_chunk(r, i & 31, i >> 5, &b, NULL, &err);
        bool absent = st == MC_ERR_NOT_FOUND && !mc_region_has_chunk(r, i & 31, i >> 5);
        if (st && !absent) {
            print_message("%s %s: chunk %d unreadable: %s\n", sc->name, what, i, err.message);
            ok = false;
            break;
        }
        bool is_old = absent ? old->data == NULL : same(&b, old);
        bool is_new = false;
        if (ch)
            is_new = absent ? ch->now.data == NULL : same(&b, &ch->now);
        if (i == 1023 && extra_allowed && !absent)
            is_old = true; /* the extra write's chunk */
        if (ch && ch->acked && !is_new) {
            print_message("%s %s: acknowledged change of chunk %d lost\n", sc->name, what, i);
            ok = false;
        } else if (!is_old && !is_new) {
            print_message("%s %s: chunk %d is neither old nor new (%s, %zu bytes)\n", sc->name,
                          what, i, absent ? "absent" : "present", b.len);
            ok = false;
        }
    }
    mc_buf_free(&b);
    mc_region_close(r);
    return ok;
}

/* The disk may have kept any subset of the writes issued since each file's
 * last fsync, in any order of arrival: builds the image where exactly the
 * writes in `mask` (numbered across all files) landed, over the durable
 * images. Returns NULL when mask names more writes than exist. */
static vfs *vfs_subset(const vfs *fs, unsigned mask, int *total)
{
    int n = 0;
    for (int i = 0; i < fs->n; i++)
        n += fs->nodes[i]->nlog;
    *total = n;
    if (mask >> n)
        return NULL;
    vfs *c = vfs_clone(fs, true);
    int k = 0;
    for (int i = 0; i < fs->n; i++) {
        const vnode *v = fs->nodes[i];
        for (int j = 0; j < v->nlog; j++, k++) {
            if (!(mask >> k & 1))
                continue;
            const pending *p = &v->log[j];
            if (p->data) {
                node_write(c->nodes[i], p->data, p->n, p->off);
            } else if (p->off < c->nodes[i]->cur_len) {
                c->nodes[i]->cur_len = (size_t)p->off;
            }
        }
        c->nodes[i]->dur_len = 0;
    }
    return c;
}

static long temps_seen; /* crash images with temporaries in them */

static int temporaries(const vfs *fs)
{
    int n = 0;
    for (int i = 0; i < fs->n; i++) {
        size_t len = strlen(fs->names[i]);
        n += len > 4 && !strcmp(fs->names[i] + len - 4, ".tmp");
    }
    return n;
}

static void count_stale(void *user, const mc_region_problem *p)
{
    if (p->kind == MC_REGION_PROBLEM_STALE_TEMP)
        (*(int *)user)++;
}

/* After a crash at a call boundary: verify names the temporaries left; a
 * compaction run again works and leaves none. */
static bool check_temporaries(vfs *fs, const scenario *sc, const char *what)
{
    vfs *c = vfs_clone(fs, false);
    mc_io io = io_of(c);
    mc_region_options o = {0};
    o.io = &io;
    mc_region *r = NULL;
    mc_error err;
    bool ok = true;
    if (mc_region_open(REGION, &o, &r, &err) == MC_OK) {
        int stale = 0;
        mc_region_verify(r, count_stale, &stale, NULL);
        temps_seen += temporaries(c) > 0;
        mc_region_close(r);
        if (stale != temporaries(c)) {
            print_message("%s %s: verify reported %d temporaries, %d are there\n", sc->name, what,
                          stale, temporaries(c));
            ok = false;
        }
        if (ok && sc->whole) {
            /* the rewrite run again (a resumed tool) completes it */
            scenario *again = (scenario *)sc;
            bool acked[2] = {again->changes[0].acked, again->changes[1].acked};
            rewrite_whole(&io, again);
            ok = sc->nchanges == 0 || sc->changes[0].acked;
            if (!ok)
                print_message("%s %s: the rewrite run again failed\n", sc->name, what);
            if (ok && temporaries(c)) {
                print_message("%s %s: %d temporaries left after rewriting again\n", sc->name, what,
                              temporaries(c));
                ok = false;
            }
            ok = ok && check_image(c, sc, what, false);
            again->changes[0].acked = acked[0];
            again->changes[1].acked = acked[1];
        }
        if (ok && sc->compact) {
            ok = mc_region_compact(REGION, &o, NULL, NULL, &err) == MC_OK;
            if (!ok)
                print_message("%s %s: compact again: %s\n", sc->name, what, err.message);
            if (ok && temporaries(c)) {
                print_message("%s %s: %d temporaries left after compacting again\n", sc->name,
                              what, temporaries(c));
                ok = false;
            }
            ok = ok && check_image(c, sc, what, false);
        }
    }
    vfs_free(c);
    return ok;
}

/* After a crash at a call boundary: a new writer on the same bytes works,
 * and its first write removes the temporaries the crash left. */
static bool check_writable_again(vfs *fs, const scenario *sc, const char *what)
{
    if (!check_temporaries(fs, sc, what))
        return false;
    vfs *c = vfs_clone(fs, false);
    mc_io io = io_of(c);
    mc_region_options o = {0};
    o.io = &io;
    o.writable = true;
    o.create = true;
    mc_region *r = NULL;
    mc_error err;
    bool ok = mc_region_open(REGION, &o, &r, &err) == MC_OK;
    if (ok) {
        size_t n;
        uint8_t *p = make_payload(1023, 9000, 7, true, &n);
        ok = mc_region_write_chunk(r, 31, 31, p, n, MC_COMPRESSION_LZ4, 5, &err) == MC_OK;
        mc_region_close(r);
        free(p);
    }
    if (!ok)
        print_message("%s %s: cannot write again: %s\n", sc->name, what, err.message);
    if (ok && temporaries(c)) {
        print_message("%s %s: %d temporaries left after a write\n", sc->name, what,
                      temporaries(c));
        ok = false;
    }
    ok = ok && check_image(c, sc, what, true);
    vfs_free(c);
    return ok;
}

/* The byte cuts tried inside a write of `size` bytes. */
static size_t byte_cuts(size_t size, bool atomic, bool every, size_t *cuts, size_t max)
{
    size_t n = 0;
    if (atomic)
        return 0;
    if (size <= 16384 && every) {
        for (size_t b = 1; b < size && n < max; b++)
            cuts[n++] = b;
        return n;
    }
    for (size_t b = 1; b < size && n < max; b++)
        if (b < 32 || b > size - 32 || b % 4096 <= 1 || b % 16381 == 0)
            cuts[n++] = b;
    return n;
}

/* The durability order of a completed operation's calls (see the top). */
static void check_order(const scenario *s, const char *kinds, const bool *atomic, long total)
{
    bool unsynced = false;
    for (long k = 0; k < total; k++) {
        if (kinds[k] == 'w' && !atomic[k])
            unsynced = true;
        else if (kinds[k] == 's')
            unsynced = false;
        else if (kinds[k] == 'w' && unsynced)
            fail_msg("%s: call %ld writes a header entry before the record is fsynced", s->name,
                     k + 1);
        if (kinds[k] == 'r' && (k + 1 >= total || kinds[k + 1] != 'd'))
            fail_msg("%s: the rename at call %ld is not followed by an fsync of the folder",
                     s->name, k + 1);
    }
}

static void run_scenario(vfs *base, scenario *sc)
{
    /* Dry run: learn the calls. */
    vfs *dry = vfs_clone(base, false);
    run_operation(dry, sc, false);
    long total = dry->ops;
    assert_true(total > 0 && total <= MAX_OPS);
    for (int c = 0; c < sc->nchanges; c++)
        assert_true(sc->changes[c].acked || sc->compact);
    assert_true(check_image(dry, sc, "completed", false));
    char kinds[MAX_OPS];
    size_t sizes[MAX_OPS];
    bool atomic[MAX_OPS];
    memcpy(kinds, dry->kind, sizeof kinds);
    memcpy(sizes, dry->size, sizeof sizes);
    memcpy(atomic, dry->atomic, sizeof atomic);
    vfs_free(dry);
    check_order(sc, kinds, atomic, total);

    size_t *cuts = malloc(sizeof *cuts * 20000);
    long images = 0, subsets = 0;
    char what[160];
    for (long k = 1; k <= total; k++) {
        size_t ncuts = kinds[k - 1] == 'w' && !sc->calls_only
            ? byte_cuts(sizes[k - 1], atomic[k - 1], sc->every_byte, cuts, 20000) : 0;
        for (size_t j = 0; j <= ncuts; j++) {
            size_t b = j == 0 ? 0 : cuts[j - 1];
            /* Crash. */
            vfs *fs = vfs_clone(base, false);
            fs->cut_op = k;
            fs->cut_byte = b;
            run_operation(fs, sc, false);
            fs->dead = false;
            snprintf(what, sizeof what, "crash at call %ld (%c, %zu bytes) byte %zu", k,
                     kinds[k - 1], sizes[k - 1], b);
            assert_true(check_image(fs, sc, what, false));
            if (j == 0) {
                /* Every subset of the unsynced writes (what fsync made
                 * durable does not depend on the byte cut). */
                int nw = 0;
                for (unsigned mask = 0;; mask++) {
                    vfs *sub = vfs_subset(fs, mask, &nw);
                    if (!sub)
                        break;
                    snprintf(what, sizeof what,
                             "crash at call %ld, of %d unsynced writes only mask 0x%x landed", k,
                             nw, mask);
                    assert_true(check_image(sub, sc, what, false));
                    vfs_free(sub);
                    subsets++;
                }
                snprintf(what, sizeof what, "crash at call %ld, then written again", k);
                assert_true(check_writable_again(fs, sc, what));
            }
            vfs_free(fs);
            images++;
            /* Full disk at the same point (fewer byte positions). */
            if (j == 0 || j == ncuts / 2) {
                fs = vfs_clone(base, false);
                fs->cut_op = k;
                fs->cut_byte = b;
                fs->enospc = true;
                run_operation(fs, sc, !sc->compact);
                snprintf(what, sizeof what, "ENOSPC at call %ld (%c) byte %zu", k, kinds[k - 1], b);
                assert_true(check_image(fs, sc, what, true));
                vfs_free(fs);
            }
        }
    }
    print_message("%-28s %3ld calls, %6ld torn-write images, %4ld reordered-write images\n",
                  sc->name, total, images, subsets);
    free(cuts);
}

/* ------------------------------------------------------------- scenarios */

static vfs *base_fs;
static scenario *sc;

static void set_before(scenario *s, int idx, size_t n, uint64_t seed, bool noise)
{
    free(s->before[idx].data);
    s->before[idx].data = make_payload(idx, n, seed, noise, &s->before[idx].len);
}

static void write_base(vfs *fs, const scenario *s, const mc_compression *comps)
{
    mc_io io = io_of(fs);
    mc_region_options o = {0};
    o.io = &io;
    o.writable = true;
    o.create = true;
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(REGION, &o, &r, &err), MC_OK);
    for (int i = 0; i < 1024; i++)
        if (s->before[i].data)
            assert_int_equal(mc_region_write_chunk(r, i & 31, i >> 5, s->before[i].data,
                                                   s->before[i].len, comps[i % 4], 100, &err),
                             MC_OK);
    mc_region_close(r);
}

static int setup(void **state)
{
    (void)state;
    base_fs = calloc(1, sizeof *base_fs);
    sc = calloc(1, sizeof *sc);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    vfs_free(base_fs);
    for (int i = 0; i < 1024; i++)
        free(sc->before[i].data);
    for (int c = 0; c < 2; c++)
        free(sc->changes[c].now.data);
    free(sc);
    return 0;
}

static const mc_compression mixed[4] = {MC_COMPRESSION_ZLIB, MC_COMPRESSION_LZ4,
                                        MC_COMPRESSION_NONE, MC_COMPRESSION_GZIP};

static void reset(const char *name)
{
    teardown(NULL);
    setup(NULL);
    sc->name = name;
}

static void set_change(int c, int idx, size_t n, uint64_t seed, bool noise, mc_compression comp)
{
    free(sc->changes[c].now.data);
    sc->changes[c].idx = idx;
    sc->changes[c].now.data = n ? make_payload(idx, n, seed, noise, &sc->changes[c].now.len) : NULL;
    if (!n)
        sc->changes[c].now.len = 0;
    sc->changes[c].comp = comp;
    if (c + 1 > sc->nchanges)
        sc->nchanges = c + 1;
}

/* A region with six chunks, one of them deleted again to leave a hole. */
static void six_chunk_base(void)
{
    for (int i = 0; i < 6; i++)
        set_before(sc, i * 33, 2000 + 3000 * (size_t)i, (uint64_t)i + 1, i % 2 == 0);
    write_base(base_fs, sc, mixed);
}

static void test_create_file(void **state)
{
    (void)state;
    reset("create file + first chunk");
    sc->create = true;
    sc->every_byte = true; /* the 8 KiB header and the 2-sector record */
    set_change(0, 40, 3000, 3, true, MC_COMPRESSION_NONE); /* 1 sector */
    run_scenario(base_fs, sc);
}

static void test_rewrite_chunk(void **state)
{
    (void)state;
    reset("rewrite a chunk (new sectors)");
    six_chunk_base();
    set_change(0, 66, 7000, 9, true, MC_COMPRESSION_LZ4); /* 2 sectors, every byte */
    sc->every_byte = true;
    run_scenario(base_fs, sc);
}

static void test_fill_hole(void **state)
{
    (void)state;
    reset("shrink into freed sectors");
    six_chunk_base();
    /* Free chunk 99's sectors, then rewrite chunk 165 small: first fit puts
     * it into the hole, which held a live record until the delete. */
    mc_io io = io_of(base_fs);
    mc_region_options o = {0};
    o.io = &io;
    o.writable = true;
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(REGION, &o, &r, &err), MC_OK);
    assert_int_equal(mc_region_delete_chunk(r, 99 & 31, 99 >> 5, &err), MC_OK);
    mc_region_close(r);
    free(sc->before[99].data);
    sc->before[99].data = NULL;
    set_change(0, 165, 3000, 4, true, MC_COMPRESSION_ZLIB);
    set_change(1, 0, 0, 0, false, MC_COMPRESSION_ZLIB); /* and delete chunk 0 */
    run_scenario(base_fs, sc);
}

static void test_new_chunk(void **state)
{
    (void)state;
    reset("new chunk in an empty slot");
    six_chunk_base();
    set_change(0, 500, 7000, 12, false, MC_COMPRESSION_GZIP);
    run_scenario(base_fs, sc);
}

static void test_external_round(void **state)
{
    (void)state;
    reset("internal -> external (.mcc)");
    six_chunk_base();
    set_change(0, 132, 1100000, 21, true, MC_COMPRESSION_NONE);
    run_scenario(base_fs, sc);

    /* Make it external in the base, then external -> external, and
     * external -> internal. */
    scenario *keep = sc;
    vfs *next = vfs_clone(base_fs, false);
    run_operation(next, keep, false);
    free(keep->before[132].data);
    keep->before[132] = keep->changes[0].now;
    keep->changes[0].now.data = NULL;
    vfs_free(base_fs);
    base_fs = next;
    sc->name = "external -> external";
    set_change(0, 132, 1100000, 22, true, MC_COMPRESSION_NONE);
    run_scenario(base_fs, sc);

    sc->name = "external -> internal";
    set_change(0, 132, 5000, 23, false, MC_COMPRESSION_ZLIB);
    run_scenario(base_fs, sc);
}

static void test_compaction(void **state)
{
    (void)state;
    reset("compaction");
    six_chunk_base();
    mc_io io = io_of(base_fs);
    mc_region_options o = {0};
    o.io = &io;
    o.writable = true;
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(REGION, &o, &r, &err), MC_OK);
    assert_int_equal(mc_region_delete_chunk(r, 33 & 31, 33 >> 5, &err), MC_OK);
    mc_region_close(r);
    free(sc->before[33].data);
    sc->before[33].data = NULL;
    sc->compact = true;
    sc->nchanges = 0;
    run_scenario(base_fs, sc);
}

/* mc_region_writer: the whole file rewritten into a temporary and renamed
 * over it. Each change below is acknowledged only by the commit, so after
 * any cut every chunk is old or new -- and all changes land together. */
static void test_whole_rewrite(void **state)
{
    (void)state;
    reset("whole-file rewrite");
    six_chunk_base();
    sc->whole = true;
    set_change(0, 66, 7000, 31, true, MC_COMPRESSION_LZ4);
    set_change(1, 0, 0, 0, false, MC_COMPRESSION_ZLIB); /* chunk 0 left out */
    run_scenario(base_fs, sc);
}

static void test_whole_external(void **state)
{
    (void)state;
    reset("whole rewrite, external kept");
    six_chunk_base();
    /* chunk 132 external in the base */
    scenario *keep = sc;
    set_change(0, 132, 1100000, 41, true, MC_COMPRESSION_NONE);
    vfs *next = vfs_clone(base_fs, false);
    run_operation(next, keep, false);
    assert_true(keep->changes[0].acked);
    free(keep->before[132].data);
    keep->before[132] = keep->changes[0].now;
    keep->changes[0].now.data = NULL;
    vfs_free(base_fs);
    base_fs = next;
    sc->whole = true;
    sc->calls_only = true; /* (the .mcc write is cut byte by byte in test_external_round) */
    /* the external chunk is carried (its .mcc rewritten with the same
     * bytes), another one changes */
    set_change(0, 99, 5000, 42, false, MC_COMPRESSION_ZLIB);
    run_scenario(base_fs, sc);

    sc->name = "whole rewrite, external out";
    set_change(0, 132, 0, 0, false, MC_COMPRESSION_NONE);
    run_scenario(base_fs, sc);
    /* after the commit the dropped chunk's .mcc is gone */
    vfs *done = vfs_clone(base_fs, false);
    run_operation(done, sc, false);
    assert_true(sc->changes[0].acked);
    assert_true(find(done, "w/c.4.4.mcc") < 0);
    vfs_free(done);
}

static void test_whole_to_nothing(void **state)
{
    (void)state;
    reset("whole rewrite to no chunk");
    set_before(sc, 7, 3000, 5, true);
    set_before(sc, 900, 9000, 6, false);
    write_base(base_fs, sc, mixed);
    sc->whole = true;
    set_change(0, 7, 0, 0, false, MC_COMPRESSION_ZLIB);
    set_change(1, 900, 0, 0, false, MC_COMPRESSION_ZLIB);
    run_scenario(base_fs, sc);
    vfs *done = vfs_clone(base_fs, false);
    run_operation(done, sc, false);
    assert_true(sc->changes[0].acked && find(done, REGION) < 0); /* the file is removed */
    vfs_free(done);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rewrite_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fill_hole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_chunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_external_round, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_rewrite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_external, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_to_nothing, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    print_message("%ld region images reopened and checked; %ld crashes left temporaries\n",
                  checks_done, temps_seen);
    return rc;
}
