/*
 * test_region_files.c: the region layer reads only regular files, does not
 * follow links inside a region folder, and cleans up after killed writes.
 *
 * Made in a temporary folder with the POSIX mc_io: a FIFO as the region
 * file, as c.X.Z.mcc and as a file for mc_read_file (each refused at once
 * with "not a regular file"; an alarm turns a blocking open into a failure
 * instead of a hang); c.X.Z.mcc as a link to a file outside (refused, and
 * nothing of the file returned); the temporaries of a killed chunk write or
 * compaction (verify reports exactly those names; the next write, or a
 * compaction, removes exactly those, also when one is a link or a hard link
 * to a file elsewhere, which stays as it was).
 */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcchunk/anvil.h"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/mcchunk-rfiles-XXXXXX");
    assert_non_null(mkdtemp(dir));
    alarm(20); /* a blocking open fails the test instead of hanging it */
}

static void remove_dir(void)
{
    alarm(0);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0)
                rmdir(p);
        }
    closedir(d);
    rmdir(dir);
}

static const char *in_dir(const char *name)
{
    static char p[4][600];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool file_is(const char *path, const char *text)
{
    char buf[256] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    return n == strlen(text) && !memcmp(buf, text, n);
}

/* {xPos, zPos, Data: byte[n]} */
static uint8_t *chunk_nbt(int32_t cx, int32_t cz, size_t n, size_t *len)
{
    uint8_t *p = malloc(3 + 22 + 11 + n + 1), *q = p;
    *q++ = 10; *q++ = 0; *q++ = 0;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "xPos", 4); q += 4; mc_store_u32be(q, (uint32_t)cx); q += 4;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "zPos", 4); q += 4; mc_store_u32be(q, (uint32_t)cz); q += 4;
    *q++ = 7; *q++ = 0; *q++ = 4; memcpy(q, "Data", 4); q += 4; mc_store_u32be(q, (uint32_t)n); q += 4;
    mc_test_rng rng = {(uint64_t)n * 7 + 3};
    for (size_t i = 0; i < n; i++)
        q[i] = (uint8_t)(mc_test_rand(&rng) >> 56);
    q += n;
    *q++ = 0;
    *len = (size_t)(q - p);
    return p;
}

static mc_region *open_region(const char *path, bool writable, mc_status want, mc_error *err)
{
    mc_region_options o = {0};
    o.writable = writable;
    o.create = writable;
    mc_region *r = NULL;
    mc_status st = mc_region_open(path, &o, &r, err);
    if (st != want)
        print_message("open %s: %s\n", path, err->message);
    assert_int_equal(st, want);
    return r;
}

/* r.0.0.mca with chunk 0 0 external (c.0.0.mcc, uncompressed) and 1 0 inside. */
static void make_region(void)
{
    mc_error err;
    mc_region *r = open_region(in_dir("r.0.0.mca"), true, MC_OK, &err);
    size_t n;
    uint8_t *big = chunk_nbt(0, 0, 1100000, &n);
    assert_int_equal(mc_region_write_chunk(r, 0, 0, big, n, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    free(big);
    uint8_t *small = chunk_nbt(1, 0, 300, &n);
    assert_int_equal(mc_region_write_chunk(r, 1, 0, small, n, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    free(small);
    mc_region_close(r);
    assert_true(exists(in_dir("c.0.0.mcc")));
}

typedef struct found {
    int n;
    mc_region_problem_kind kind[16];
    int lx[16], lz[16];
    char text[2048];
} found;

static void collect(void *user, const mc_region_problem *p)
{
    found *f = user;
    if (f->n < 16) {
        f->kind[f->n] = p->kind;
        f->lx[f->n] = p->lx;
        f->lz[f->n] = p->lz;
    }
    f->n++;
    size_t used = strlen(f->text);
    snprintf(f->text + used, sizeof f->text - used, "%s\n", p->message);
}

static void test_fifos_refused(void **state)
{
    (void)state;
    make_dir();
    make_region();
    mc_error err;

    /* c.0.0.mcc as a FIFO: the chunk fails at once, verify names it, the
     * other chunk reads. */
    unlink(in_dir("c.0.0.mcc"));
    assert_int_equal(mkfifo(in_dir("c.0.0.mcc"), 0644), 0);
    mc_region *r = open_region(in_dir("r.0.0.mca"), false, MC_OK, &err);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 0, 0, &b, NULL, &err), MC_ERR_IO);
    assert_non_null(strstr(err.message, "c.0.0.mcc: not a regular file"));
    assert_int_equal(b.len, 0);
    assert_int_equal(mc_region_read_chunk(r, 1, 0, &b, NULL, &err), MC_OK);
    found f = {0};
    size_t ok = 0;
    assert_int_equal(mc_region_verify(r, collect, &f, &ok), 1);
    assert_int_equal(f.kind[0], MC_REGION_PROBLEM_EXTERNAL);
    assert_int_equal(ok, 1);
    mc_region_close(r);
    /* ... and compacting stops rather than block. */
    assert_int_equal(mc_region_compact(in_dir("r.0.0.mca"), NULL, NULL, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "not a regular file"));

    /* The region file itself as a FIFO, read only and for writing; a
     * folder; mc_read_file of a FIFO. */
    assert_int_equal(mkfifo(in_dir("r.1.0.mca"), 0644), 0);
    open_region(in_dir("r.1.0.mca"), false, MC_ERR_IO, &err);
    assert_non_null(strstr(err.message, "r.1.0.mca: not a regular file"));
    open_region(in_dir("r.1.0.mca"), true, MC_ERR_IO, &err);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_int_equal(mc_region_compact(in_dir("r.1.0.mca"), NULL, NULL, NULL, &err), MC_ERR_IO);
    assert_int_equal(mkdir(in_dir("r.2.0.mca"), 0755), 0);
    open_region(in_dir("r.2.0.mca"), false, MC_ERR_IO, &err);
    assert_non_null(strstr(err.message, "not a regular file"));
    uint8_t *data = NULL;
    size_t len = 0;
    assert_int_equal(mc_read_file(in_dir("r.1.0.mca"), NULL, &data, &len, &err), MC_ERR_IO);
    assert_non_null(strstr(err.message, "not a regular file"));
    assert_int_equal(mc_read_file(in_dir("r.2.0.mca"), NULL, &data, &len, &err), MC_ERR_IO);

    /* mc_io_posix itself. */
    const mc_io *io = mc_io_posix();
    void *h = NULL;
    assert_int_equal(io->open(io->user, in_dir("r.1.0.mca"), MC_IO_READ, &h), MC_IO_ENOTREG);
    assert_int_equal(io->open(io->user, in_dir("r.1.0.mca"), MC_IO_WRITE | MC_IO_CREATE | MC_IO_TRUNCATE, &h),
                     MC_IO_ENOTREG);
    assert_int_equal(io->open(io->user, in_dir("r.0.0.mca"), MC_IO_READ, &h), 0);
    uint64_t size = 0;
    assert_int_equal(io->size(io->user, h, &size), 0);
    uint8_t head[4];
    size_t got = 0;
    assert_int_equal(io->pread(io->user, h, head, 4, 0, &got), 0); /* blocking mode again */
    assert_int_equal(got, 4);
    io->close(io->user, h);
    mc_buf_free(&b);
    remove_dir();
}

static void test_links_not_followed(void **state)
{
    (void)state;
    make_dir();
    make_region();
    mc_error err;
    /* The target: uncompressed chunk NBT (what a reader would accept). */
    char secret[600];
    snprintf(secret, sizeof secret, "%s.secret", dir);
    size_t n;
    uint8_t *nbt = chunk_nbt(0, 0, 40, &n);
    FILE *f = fopen(secret, "wb");
    assert_non_null(f);
    fwrite(nbt, 1, n, f);
    fclose(f);
    free(nbt);

    unlink(in_dir("c.0.0.mcc"));
    assert_int_equal(symlink(secret, in_dir("c.0.0.mcc")), 0);
    mc_region *r = open_region(in_dir("r.0.0.mca"), false, MC_OK, &err);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 0, 0, &b, NULL, &err), MC_ERR_IO);
    assert_non_null(strstr(err.message, "c.0.0.mcc: a symbolic link, which is not followed"));
    assert_int_equal(mc_region_read_raw(r, 0, 0, &b, NULL, &err), MC_ERR_IO);
    assert_int_equal(b.len, 0);
    found fd = {0};
    assert_int_equal(mc_region_verify(r, collect, &fd, NULL), 1);
    assert_int_equal(fd.kind[0], MC_REGION_PROBLEM_EXTERNAL);
    mc_region_close(r);

    /* mc_io_posix: followed without the flag, refused with it. */
    const mc_io *io = mc_io_posix();
    void *h = NULL;
    assert_int_equal(io->open(io->user, in_dir("c.0.0.mcc"), MC_IO_READ | MC_IO_NOFOLLOW, &h),
                     MC_IO_ESYMLINK);
    assert_int_equal(io->open(io->user, in_dir("c.0.0.mcc"), MC_IO_READ, &h), 0);
    io->close(io->user, h);

    /* Writing the chunk again replaces the link, not its target. */
    r = open_region(in_dir("r.0.0.mca"), true, MC_OK, &err);
    uint8_t *big = chunk_nbt(0, 0, 1200000, &n);
    assert_int_equal(mc_region_write_chunk(r, 0, 0, big, n, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    struct stat st;
    assert_int_equal(lstat(in_dir("c.0.0.mcc"), &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(stat(secret, &st), 0);
    assert_int_equal(st.st_size, 3 + 22 + 11 + 40 + 1);
    b.len = 0;
    assert_int_equal(mc_region_read_chunk(r, 0, 0, &b, NULL, &err), MC_OK);
    assert_int_equal(b.len, n);
    assert_memory_equal(b.data, big, n);
    free(big);
    mc_region_close(r);
    mc_buf_free(&b);
    unlink(secret);
    remove_dir();
}

static const char *const ours[] = {"c.0.0.mcc.tmp", "c.31.31.mcc.tmp", "c.7.3.mcc.tmp",
                                   "r.0.0.mca.compact.tmp"};
static const char *const not_ours[] = {
    "c.32.0.mcc.tmp",  /* region 1 0's chunk */
    "c.-1.0.mcc.tmp",  /* region -1 0's */
    "c.7.3.mcc.tmp.x", "c.7.3.mcc.tm", "xc.7.3.mcc.tmp", "c.07.3.mcc.tmp",
    "r.0.0.mca.tmp", "r.1.0.mca.compact.tmp", "r.0.0.mca.compact.tmp.old", "c.7.3.mcc",
};

static void plant(void)
{
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        write_file(in_dir(ours[i]), "stale bytes of a killed write");
    for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++)
        if (!exists(in_dir(not_ours[i])))
            write_file(in_dir(not_ours[i]), "keep");
}

static void expect_swept(const char *when)
{
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (exists(in_dir(ours[i])))
            fail_msg("%s: %s is still there", when, ours[i]);
    for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++)
        if (!file_is(in_dir(not_ours[i]), "keep"))
            fail_msg("%s: %s was touched", when, not_ours[i]);
}

static void test_stale_temporaries(void **state)
{
    (void)state;
    make_dir();
    make_region();
    mc_error err;
    plant();

    /* verify: one report per temporary of ours, nothing else. */
    mc_region *r = open_region(in_dir("r.0.0.mca"), false, MC_OK, &err);
    found f = {0};
    size_t ok = 0;
    assert_int_equal(mc_region_verify(r, collect, &f, &ok), 4);
    assert_int_equal(ok, 2);
    print_message("%s", f.text);
    for (int i = 0; i < 4; i++)
        assert_int_equal(f.kind[i], MC_REGION_PROBLEM_STALE_TEMP);
    assert_int_equal(f.lx[0], 0); /* in index order: chunk 0 0, 7 3, 31 31, then the compaction's */
    assert_int_equal(f.lx[1], 7);
    assert_int_equal(f.lz[1], 3);
    assert_int_equal(f.lx[2], 31);
    assert_int_equal(f.lx[3], -1);
    assert_non_null(strstr(f.text, "c.7.3.mcc.tmp (29 bytes) left by an interrupted chunk write"));
    assert_non_null(strstr(f.text, "r.0.0.mca.compact.tmp (29 bytes) left by an interrupted compaction"));
    for (size_t i = 0; i < sizeof not_ours / sizeof not_ours[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "/%s ", not_ours[i]);
        assert_null(strstr(f.text, name));
    }
    mc_region_close(r);

    /* Opening for writing alone removes nothing; the first write does. */
    r = open_region(in_dir("r.0.0.mca"), true, MC_OK, &err);
    assert_true(exists(in_dir("c.7.3.mcc.tmp")));
    size_t n;
    uint8_t *c = chunk_nbt(5, 5, 100, &n);
    assert_int_equal(mc_region_write_chunk(r, 5, 5, c, n, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    free(c);
    expect_swept("after the first write");
    memset(&f, 0, sizeof f);
    assert_int_equal(mc_region_verify(r, collect, &f, &ok), 0);
    mc_region_close(r);

    /* A region file not named r.X.Z.mca has no chunk coordinates, so no
     * .mcc.tmp is its own: only its .compact.tmp goes. */
    plant();
    write_file(in_dir("backup.mca.compact.tmp"), "stale");
    r = open_region(in_dir("backup.mca"), true, MC_OK, &err);
    c = chunk_nbt(5, 5, 100, &n);
    assert_int_equal(mc_region_write_chunk(r, 5, 5, c, n, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    free(c);
    mc_region_close(r);
    assert_false(exists(in_dir("backup.mca.compact.tmp")));
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        assert_true(exists(in_dir(ours[i])));

    /* A deletion is a write too. */
    plant();
    r = open_region(in_dir("r.0.0.mca"), true, MC_OK, &err);
    assert_int_equal(mc_region_delete_chunk(r, 5, 5, &err), MC_OK);
    mc_region_close(r);
    expect_swept("after a delete");

    /* Compaction; a temporary that is a link, or a hard link, to a file
     * elsewhere: the name goes, the file stays as it was. */
    plant();
    char outside[600], outside2[600];
    snprintf(outside, sizeof outside, "%s.outside", dir);
    snprintf(outside2, sizeof outside2, "%s.outside2", dir);
    write_file(outside, "someone else's file");
    write_file(outside2, "someone else's other file");
    unlink(in_dir("c.0.0.mcc.tmp"));
    assert_int_equal(symlink(outside, in_dir("c.0.0.mcc.tmp")), 0);
    unlink(in_dir("r.0.0.mca.compact.tmp"));
    assert_int_equal(link(outside2, in_dir("r.0.0.mca.compact.tmp")), 0);
    uint64_t before = 0, after = 0;
    assert_int_equal(mc_region_compact(in_dir("r.0.0.mca"), NULL, &before, &after, &err), MC_OK);
    expect_swept("after compact");
    assert_true(file_is(outside, "someone else's file"));
    assert_true(file_is(outside2, "someone else's other file"));

    /* The chunk write's own temporary as a hard link to a file elsewhere:
     * a write of that very chunk does not empty the file. */
    assert_int_equal(link(outside2, in_dir("c.0.0.mcc.tmp")), 0);
    r = open_region(in_dir("r.0.0.mca"), true, MC_OK, &err);
    uint8_t *big = chunk_nbt(0, 0, 1100000, &n);
    assert_int_equal(mc_region_write_chunk(r, 0, 0, big, n, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    free(big);
    mc_region_close(r);
    assert_true(file_is(outside2, "someone else's other file"));
    assert_false(exists(in_dir("c.0.0.mcc.tmp")));
    unlink(outside);
    unlink(outside2);
    remove_dir();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifos_refused),
        cmocka_unit_test(test_links_not_followed),
        cmocka_unit_test(test_stale_temporaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
