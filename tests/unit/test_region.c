/*
 * test_region.c: region files -- every record of every corpus region file
 * (terrain, entities/, poi/; 1.8.9 to 1.21.11) reads, inflates, parses as
 * NBT and names its own position (verify); files our
 * writer makes in a temporary folder (gzip, zlib, none, LZ4, custom, .mcc)
 * read back; first-fit allocation reuses freed sectors; verify finds each
 * kind of damage; salvage and compact keep every intact chunk.
 */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcchunk/anvil.h"
#include "mcchunk/nbt.h"

/* ------------------------------------------------------------- helpers */

/* A chunk-like NBT payload: {xPos:int, zPos:int, Data:byte[n]} with data
 * that compresses somewhat (or not at all when `noise`). */
static uint8_t *make_chunk_nbt(int32_t cx, int32_t cz, size_t n, uint64_t seed, bool noise,
                               size_t *len)
{
    size_t total = 3 + (3 + 4 + 4) * 2 + (3 + 4 + 4 + n) + 1;
    uint8_t *p = malloc(total), *q = p;
    *q++ = 10; *q++ = 0; *q++ = 0;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "xPos", 4); q += 4; mc_store_u32be(q, (uint32_t)cx); q += 4;
    *q++ = 3; *q++ = 0; *q++ = 4; memcpy(q, "zPos", 4); q += 4; mc_store_u32be(q, (uint32_t)cz); q += 4;
    *q++ = 7; *q++ = 0; *q++ = 4; memcpy(q, "Data", 4); q += 4; mc_store_u32be(q, (uint32_t)n); q += 4;
    mc_test_rng rng = {seed * 2654435761u + 1};
    for (size_t i = 0; i < n; i++)
        q[i] = noise ? (uint8_t)(mc_test_rand(&rng) >> 56) : (uint8_t)((i / 7) % 13 + (seed & 3));
    q += n;
    *q++ = 0;
    *len = (size_t)(q - p);
    return p;
}

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcchunk-region-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
}

static void rm_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(tmpdir);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static uint64_t fsize(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static mc_region *open_rw(const char *path)
{
    mc_region_options o = {0};
    o.writable = true;
    o.create = true;
    mc_region *r = NULL;
    mc_error err;
    mc_status st = mc_region_open(path, &o, &r, &err);
    if (st)
        print_message("open %s: %s\n", path, err.message);
    assert_int_equal(st, MC_OK);
    return r;
}

static void expect_chunk(mc_region *r, int lx, int lz, const uint8_t *want, size_t want_len)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    mc_status st = mc_region_read_chunk(r, lx, lz, &b, NULL, &err);
    if (st)
        print_message("read %d %d: %s\n", lx, lz, err.message);
    assert_int_equal(st, MC_OK);
    assert_int_equal(b.len, want_len);
    assert_memory_equal(b.data, want, want_len);
    mc_buf_free(&b);
}

/* ------------------------------------------------------------- corpus */

static void count_problem(void *user, const mc_region_problem *p)
{
    print_message("  problem: %s\n", p->message);
    (*(size_t *)user)++;
}

static void test_corpus_every_record(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    size_t nfiles = 0, nchunks = 0;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_non_null(doc);
    mc_buf b;
    mc_buf_init(&b, NULL);
    for (char **f = files; *f; f++, nfiles++) {
        mc_region *r = NULL;
        mc_error err;
        assert_int_equal(mc_region_open(*f, NULL, &r, &err), MC_OK);
        size_t here = 0;
        for (int lz = 0; lz < 32; lz++)
            for (int lx = 0; lx < 32; lx++) {
                if (!mc_region_has_chunk(r, lx, lz))
                    continue;
                b.len = 0;
                mc_region_record rec;
                mc_status st = mc_region_read_chunk(r, lx, lz, &b, &rec, &err);
                if (st)
                    print_message("%s chunk %d %d: %s\n", *f, lx, lz, err.message);
                assert_int_equal(st, MC_OK);
                assert_true(b.len > 3);
                assert_int_equal(b.data[0], 10); /* a compound root */
                st = mc_nbt_parse(doc, b.data, b.len, MC_NBT_JAVA, NULL, &err);
                if (st)
                    print_message("%s chunk %d %d: NBT: %s\n", *f, lx, lz, err.message);
                assert_int_equal(st, MC_OK);
                here++;
            }
        if (here == 0) /* 1.16/r.0.-1.mca: an empty region, header only */
            print_message("%s: empty region\n", *f);
        nchunks += here;
        size_t problems = 0, ok = 0;
        size_t n = mc_region_verify(r, count_problem, &problems, &ok);
        if (n)
            print_message("%s: %zu problems\n", *f, n);
        assert_int_equal(n, 0);
        assert_int_equal(ok, here);
        mc_region_close(r);

        /* The same through the in-memory reader. */
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        assert_int_equal(mc_region_open_memory(data, len, NULL, &r, &err), MC_OK);
        size_t again = 0;
        for (int i = 0; i < 1024; i++)
            if (mc_region_has_chunk(r, i & 31, i >> 5)) {
                b.len = 0;
                assert_int_equal(mc_region_read_chunk(r, i & 31, i >> 5, &b, NULL, &err), MC_OK);
                again++;
            }
        assert_int_equal(again, here);
        mc_region_close(r);
        free(data);
    }
    mc_buf_free(&b);
    mc_nbt_doc_free(doc);
    print_message("corpus: %zu region files, %zu chunks read, inflated, parsed as NBT and "
                  "position-checked\n", nfiles, nchunks);
    assert_true(nfiles >= 25);
    assert_int_equal(nchunks, 4717); /* the sum of the MANIFEST.md counts */
    mc_test_free_list(files);
}

/* ------------------------------------------------------------- writing */

static void test_every_compression_round_trip(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.-1.2.mca", tmpdir);
    mc_region *r = open_rw(path);
    const mc_compression comps[] = {MC_COMPRESSION_GZIP, MC_COMPRESSION_ZLIB, MC_COMPRESSION_NONE,
                                    MC_COMPRESSION_LZ4};
    uint8_t *payload[4];
    size_t len[4];
    mc_error err;
    for (int i = 0; i < 4; i++) {
        payload[i] = make_chunk_nbt(-32 + i, 64, 20000 + 70000 * (size_t)i, (uint64_t)i, false, &len[i]);
        assert_int_equal(mc_region_write_chunk(r, i, 0, payload[i], len[i], comps[i], 1000 + (uint32_t)i, &err), MC_OK);
    }
    for (int i = 0; i < 4; i++) {
        mc_region_record rec;
        mc_buf b;
        mc_buf_init(&b, NULL);
        assert_int_equal(mc_region_read_chunk(r, i, 0, &b, &rec, &err), MC_OK);
        assert_int_equal(rec.compression, comps[i]);
        assert_false(rec.external);
        assert_int_equal(b.len, len[i]);
        assert_memory_equal(b.data, payload[i], len[i]);
        assert_int_equal(mc_region_get_entry(r, i, 0).timestamp, 1000 + i);
        mc_buf_free(&b);
    }
    mc_region_close(r);
    assert_int_equal(fsize(path) % 4096, 0);

    /* Reopen read only: the same bytes. */
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    for (int i = 0; i < 4; i++)
        expect_chunk(r, i, 0, payload[i], len[i]);
    size_t ok = 0;
    assert_int_equal(mc_region_verify(r, NULL, NULL, &ok), 0);
    assert_int_equal(ok, 4);
    mc_region_close(r);
    for (int i = 0; i < 4; i++)
        free(payload[i]);
    rm_tmpdir();
}

static void test_external_mcc(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512], mcc[512];
    snprintf(path, sizeof path, "%s/r.-1.2.mca", tmpdir);
    snprintf(mcc, sizeof mcc, "%s/c.-29.70.mcc", tmpdir); /* local 3, 6 */
    mc_region *r = open_rw(path);
    mc_error err;
    size_t big_len, small_len;
    uint8_t *big = make_chunk_nbt(-29, 70, 1200000, 5, true, &big_len);
    uint8_t *small = make_chunk_nbt(-29, 70, 3000, 6, false, &small_len);

    assert_int_equal(mc_region_write_chunk(r, 3, 6, big, big_len, MC_COMPRESSION_LZ4, 0, &err), MC_OK);
    assert_true(exists(mcc));
    mc_region_entry e = mc_region_get_entry(r, 3, 6);
    assert_int_equal(e.sector_count, 1);
    mc_region_record rec;
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 3, 6, &b, &rec, &err), MC_OK);
    assert_true(rec.external);
    assert_int_equal(rec.compression, MC_COMPRESSION_LZ4);
    assert_int_equal(rec.length, 1);
    assert_int_equal(b.len, big_len);
    assert_memory_equal(b.data, big, big_len);
    mc_buf_free(&b);
    mc_region_close(r);
    assert_true(fsize(path) <= 3 * 4096);

    /* Read by a fresh handle; external -> external in another compression
     * keeps the live one (documented); then external -> internal removes
     * the .mcc. */
    r = open_rw(path);
    expect_chunk(r, 3, 6, big, big_len);
    big[big_len - 2] ^= 0x55;
    assert_int_equal(mc_region_write_chunk(r, 3, 6, big, big_len, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 3, 6, &b, &rec, &err), MC_OK);
    assert_int_equal(rec.compression, MC_COMPRESSION_LZ4);
    assert_memory_equal(b.data, big, big_len);
    mc_buf_free(&b);
    assert_int_equal(mc_region_write_chunk(r, 3, 6, small, small_len, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    assert_false(exists(mcc));
    expect_chunk(r, 3, 6, small, small_len);

    /* Missing stream is reported as the game words it. */
    assert_int_equal(mc_region_write_chunk(r, 3, 6, big, big_len, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_true(exists(mcc));
    unlink(mcc);
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 3, 6, &b, NULL, &err), MC_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "allocated but stream missing"));
    size_t problems = 0;
    assert_int_equal(mc_region_verify(r, count_problem, &problems, NULL), 1);
    mc_buf_free(&b);
    assert_int_equal(mc_region_delete_chunk(r, 3, 6, &err), MC_OK);
    assert_false(mc_region_has_chunk(r, 3, 6));
    mc_region_close(r);
    free(big);
    free(small);
    rm_tmpdir();
}

static void test_first_fit_reuses_freed_sectors(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.0.0.mca", tmpdir);
    mc_region *r = open_rw(path);
    mc_error err;
    size_t la, lb, lc, ld;
    uint8_t *a = make_chunk_nbt(0, 0, 12000, 1, true, &la);  /* 3 sectors, uncompressed */
    uint8_t *bb = make_chunk_nbt(1, 0, 5000, 2, true, &lb);  /* 2 sectors */
    uint8_t *c = make_chunk_nbt(2, 0, 7000, 3, true, &lc);   /* 2 sectors */
    uint8_t *d = make_chunk_nbt(0, 0, 30000, 4, true, &ld);  /* 8 sectors */
    assert_int_equal(mc_region_write_chunk(r, 0, 0, a, la, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_write_chunk(r, 1, 0, bb, lb, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_get_entry(r, 0, 0).sector_offset, 2);
    assert_int_equal(mc_region_get_entry(r, 0, 0).sector_count, 3);
    assert_int_equal(mc_region_get_entry(r, 1, 0).sector_offset, 5);
    /* Growing chunk 0 moves it to the end: its old sectors 2..4 stay live
     * until the new record is committed, then they are free. */
    assert_int_equal(mc_region_write_chunk(r, 0, 0, d, ld, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_get_entry(r, 0, 0).sector_offset, 7);
    /* The next 2-sector record fits in the hole at 2. */
    assert_int_equal(mc_region_write_chunk(r, 2, 0, c, lc, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_get_entry(r, 2, 0).sector_offset, 2);
    /* Deleting frees too. */
    assert_int_equal(mc_region_delete_chunk(r, 1, 0, &err), MC_OK);
    free(bb);
    bb = make_chunk_nbt(3, 0, 5000, 2, true, &lb);
    assert_int_equal(mc_region_write_chunk(r, 3, 0, bb, lb, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_get_entry(r, 3, 0).sector_offset, 4);
    expect_chunk(r, 0, 0, d, ld);
    expect_chunk(r, 2, 0, c, lc);
    expect_chunk(r, 3, 0, bb, lb);
    assert_false(mc_region_has_chunk(r, 1, 0));
    mc_region_close(r);

    /* Reopened, the allocator sees the same picture (hole at 4..6 minus 3). */
    r = open_rw(path);
    free(a);
    a = make_chunk_nbt(4, 0, 100, 7, true, &la);
    assert_int_equal(mc_region_write_chunk(r, 4, 0, a, la, MC_COMPRESSION_NONE, 0, &err), MC_OK);
    assert_int_equal(mc_region_get_entry(r, 4, 0).sector_offset, 6);

    /* Compact removes the holes and keeps every chunk. */
    assert_int_equal(mc_region_delete_chunk(r, 2, 0, &err), MC_OK);
    mc_region_close(r);
    uint64_t before, after;
    assert_int_equal(mc_region_compact(path, NULL, &before, &after, &err), MC_OK);
    assert_true(after < before);
    assert_int_equal(fsize(path), after);
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    expect_chunk(r, 0, 0, d, ld);
    assert_false(mc_region_has_chunk(r, 2, 0));
    expect_chunk(r, 3, 0, bb, lb);
    expect_chunk(r, 4, 0, a, la);
    assert_int_equal(mc_region_get_entry(r, 0, 0).sector_offset, 2);
    assert_int_equal(mc_region_verify(r, NULL, NULL, NULL), 0);
    mc_region_close(r);
    free(a); free(bb); free(c); free(d);
    rm_tmpdir();
}

static void test_custom_compression_is_named(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.0.0.mca", tmpdir);
    mc_region *r = open_rw(path);
    mc_error err;
    const uint8_t payload[] = {0, 12, 'e', 'x', 'a', 'm', 'p', 'l', 'e', ':', 'z', 's', 't', 'd', 1, 2, 3};
    assert_int_equal(mc_region_write_raw(r, 5, 5, payload, sizeof payload, MC_COMPRESSION_CUSTOM, 7, &err), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_region_record rec;
    assert_int_equal(mc_region_read_chunk(r, 5, 5, &b, &rec, &err), MC_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "example:zstd"));
    assert_string_equal(rec.custom_name, "example:zstd");
    assert_int_equal(mc_region_read_raw(r, 5, 5, &b, &rec, &err), MC_OK);
    assert_int_equal(b.len, sizeof payload);
    mc_buf_free(&b);
    mc_region_close(r);
    rm_tmpdir();
}

/* ------------------------------------------------------------- damage */

typedef struct {
    int kinds[16];
    size_t n;
} kind_log;

static void log_kind(void *user, const mc_region_problem *p)
{
    kind_log *k = user;
    print_message("  %s\n", p->message);
    if (k->n < 16)
        k->kinds[k->n++] = (int)p->kind;
}

static bool has_kind(const kind_log *k, mc_region_problem_kind kind)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->kinds[i] == (int)kind)
            return true;
    return false;
}

static void patch(const char *path, long off, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, off, SEEK_SET);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static void test_verify_salvage_damage(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/r.0.0.mca", tmpdir);
    snprintf(out, sizeof out, "%s/r.0.0.salvaged", tmpdir);
    mc_region *r = open_rw(path);
    mc_error err;
    uint8_t *p[8];
    size_t len[8];
    for (int i = 0; i < 8; i++) {
        p[i] = make_chunk_nbt(i, 0, 3000, (uint64_t)i, false, &len[i]);
        assert_int_equal(mc_region_write_chunk(r, i, 0, p[i], len[i], MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    }
    uint32_t off[8];
    for (int i = 0; i < 8; i++)
        off[i] = mc_region_get_entry(r, i, 0).sector_offset;
    mc_region_close(r);

    uint8_t b4[4];
    /* 1: points into the header. */
    mc_store_u32be(b4, 1u << 8 | 1);
    patch(path, 4 * 1, b4, 4);
    /* 2: beyond the end of the file. */
    mc_store_u32be(b4, 900u << 8 | 1);
    patch(path, 4 * 2, b4, 4);
    /* 3: overlaps chunk 4. */
    mc_store_u32be(b4, off[4] << 8 | 1);
    patch(path, 4 * 3, b4, 4);
    /* 5: length beyond its sectors. */
    mc_store_u32be(b4, 3 * 4096);
    patch(path, (long)off[5] * 4096, b4, 4);
    /* 6: unknown compression id. */
    patch(path, (long)off[6] * 4096 + 4, "\x09", 1);
    /* 7: deflate data damaged. */
    patch(path, (long)off[7] * 4096 + 5 + 2, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);

    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    kind_log k = {{0}, 0};
    size_t ok = 0;
    size_t n = mc_region_verify(r, log_kind, &k, &ok);
    assert_true(n >= 6);
    assert_true(has_kind(&k, MC_REGION_PROBLEM_IN_HEADER));
    assert_true(has_kind(&k, MC_REGION_PROBLEM_OUT_OF_FILE));
    assert_true(has_kind(&k, MC_REGION_PROBLEM_OVERLAP));
    assert_true(has_kind(&k, MC_REGION_PROBLEM_BAD_LENGTH));
    assert_true(has_kind(&k, MC_REGION_PROBLEM_BAD_COMPRESSION));
    assert_int_equal(ok, 1); /* chunk 0; 3 and 4 overlap; 4 still inflates but is flagged */

    size_t saved = 0, lost = 0;
    kind_log k2 = {{0}, 0};
    assert_int_equal(mc_region_salvage(r, out, NULL, log_kind, &k2, &saved, &lost, &err), MC_OK);
    /* 0 and 4 are intact; 3 (overlapping 4) reads 4's record and inflates,
     * which the NBT position check catches. */
    assert_int_equal(saved, 2);
    assert_int_equal(lost, 6);
    assert_true(has_kind(&k2, MC_REGION_PROBLEM_POSITION));
    assert_int_equal(mc_region_salvage(r, out, NULL, NULL, NULL, NULL, NULL, &err), MC_ERR_INVALID_ARG);
    mc_region_close(r);
    assert_int_equal(mc_region_open(out, NULL, &r, &err), MC_OK);
    expect_chunk(r, 0, 0, p[0], len[0]);
    expect_chunk(r, 4, 0, p[4], len[4]);
    assert_int_equal(mc_region_verify(r, NULL, NULL, NULL), 0);
    mc_region_close(r);

    /* Compaction refuses a damaged file and leaves it as it was. */
    uint64_t before = fsize(path);
    assert_int_equal(mc_region_compact(path, NULL, NULL, NULL, &err), MC_ERR_MALFORMED);
    assert_int_equal(fsize(path), before);
    for (int i = 0; i < 8; i++)
        free(p[i]);
    rm_tmpdir();
}

static void test_nbt_checks(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.1.-1.mca", tmpdir);
    mc_region *r = open_rw(path);
    mc_error err;
    size_t n;
    uint8_t *good = make_chunk_nbt(33, -31, 100, 1, false, &n);     /* local 1, 1 */
    assert_int_equal(mc_region_write_chunk(r, 1, 1, good, n, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    assert_int_equal(mc_region_write_chunk(r, 2, 1, good, n, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    assert_int_equal(mc_region_write_chunk(r, 3, 1, good, n - 1, MC_COMPRESSION_ZLIB, 0, &err), MC_OK);
    assert_int_equal(mc_region_write_chunk(r, 4, 1, "hello", 5, MC_COMPRESSION_LZ4, 0, &err), MC_OK);
    kind_log k = {{0}, 0};
    size_t ok = 0;
    assert_int_equal(mc_region_verify(r, log_kind, &k, &ok), 3);
    assert_int_equal(ok, 1);
    assert_int_equal(k.kinds[0], MC_REGION_PROBLEM_POSITION);
    assert_int_equal(k.kinds[1], MC_REGION_PROBLEM_BAD_NBT);
    assert_int_equal(k.kinds[2], MC_REGION_PROBLEM_BAD_NBT);
    mc_region_close(r);
    free(good);
    rm_tmpdir();
}

/* Paper writes records over 255 sectors in place with count 255 and trusts
 * the length; McRegion files (.mcr) are the same container. */
static void test_paper_oversized_and_mcr(void **state)
{
    (void)state;
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.0.0.mcr", tmpdir);
    size_t n;
    uint8_t *big = make_chunk_nbt(0, 0, 1100000, 3, true, &n);
    size_t sectors = (n + 5 + 4095) / 4096;
    assert_true(sectors > 255);
    size_t len = (2 + sectors) * 4096;
    uint8_t *img = calloc(1, len);
    mc_store_u32be(img, 2u << 8 | 255);
    mc_store_u32be(img + 8192, (uint32_t)n + 1);
    img[8196] = MC_COMPRESSION_NONE;
    memcpy(img + 8197, big, n);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, len, f), len);
    fclose(f);
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    int32_t rx = 9, rz = 9;
    assert_true(mc_region_origin(r, &rx, &rz));
    assert_int_equal(rx, 0);
    expect_chunk(r, 0, 0, big, n);
    assert_int_equal(mc_region_verify(r, NULL, NULL, NULL), 0);
    mc_region_close(r);
    /* Compaction keeps it readable (count stays 255). */
    assert_int_equal(mc_region_compact(path, NULL, NULL, NULL, &err), MC_OK);
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    expect_chunk(r, 0, 0, big, n);
    mc_region_close(r);
    /* Count 200 with the same length is "length exceeds its sectors". */
    mc_store_u32be(img, 2u << 8 | 200);
    assert_int_equal(mc_region_open_memory(img, len, NULL, &r, &err), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 0, 0, &b, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "exceeds"));
    mc_buf_free(&b);
    mc_region_close(r);
    free(img);
    free(big);
    rm_tmpdir();
}

/* Salvage keeps external chunks (rewriting the .mcc beside the output). */
static void test_salvage_external(void **state)
{
    (void)state;
    make_tmpdir();
    char src[512], sub[512], out[512];
    snprintf(src, sizeof src, "%s/r.0.0.mca", tmpdir);
    snprintf(sub, sizeof sub, "%s/out", tmpdir);
    mkdir(sub, 0755);
    snprintf(out, sizeof out, "%s/out/r.0.0.mca", tmpdir);
    mc_region *r = open_rw(src);
    mc_error err;
    size_t n, m;
    uint8_t *big = make_chunk_nbt(7, 8, 1100000, 4, true, &n);
    uint8_t *small = make_chunk_nbt(1, 1, 100, 4, false, &m);
    assert_int_equal(mc_region_write_chunk(r, 7, 8, big, n, MC_COMPRESSION_LZ4, 0, &err), MC_OK);
    assert_int_equal(mc_region_write_chunk(r, 1, 1, small, m, MC_COMPRESSION_GZIP, 0, &err), MC_OK);
    /* External -> external in another compression through write_raw is
     * refused (write_chunk re-encodes instead, see test_external_mcc). */
    mc_buf raw;
    mc_buf_init(&raw, NULL);
    assert_int_equal(mc_region_compress(MC_COMPRESSION_NONE, 0, big, n, &raw, &err), MC_OK);
    assert_int_equal(mc_region_write_raw(r, 7, 8, raw.data, raw.len, MC_COMPRESSION_NONE, 0, &err),
                     MC_ERR_UNSUPPORTED);
    mc_buf_free(&raw);
    size_t saved = 0, lost = 0;
    assert_int_equal(mc_region_salvage(r, out, NULL, NULL, NULL, &saved, &lost, &err), MC_OK);
    assert_int_equal(saved, 2);
    assert_int_equal(lost, 0);
    mc_region_close(r);
    char mcc[512];
    snprintf(mcc, sizeof mcc, "%s/out/c.7.8.mcc", tmpdir);
    assert_true(exists(mcc));
    assert_int_equal(mc_region_open(out, NULL, &r, &err), MC_OK);
    expect_chunk(r, 7, 8, big, n);
    expect_chunk(r, 1, 1, small, m);
    mc_region_close(r);
    unlink(mcc);
    unlink(out);
    rmdir(sub);
    free(big);
    free(small);
    rm_tmpdir();
}

/* mc_region_writer gathers records in batches: records of every size
 * around a batch (64 sectors: exactly one batch, one sector more, ~200
 * sectors written on their own, an external one) between runs of small
 * ones land each at its place, one after the other from sector 2, and read
 * back as put; the file is exactly the sectors the header names. */
static void writer_batches_at(int level)
{
    make_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.1.-1.mca", tmpdir);
    mc_region_writer *w = NULL;
    mc_error err;
    mc_region_options opt = {0};
    opt.level = level;
    assert_int_equal(mc_region_writer_new(path, &opt, &w, &err), MC_OK);
    /* payload sizes (stored uncompressed: the record is the NBT + 5) */
    const size_t overhead = 37; /* make_chunk_nbt's bytes around Data */
    const size_t big[] = {64 * 4096 - 5 - overhead, 65 * 4096 - 5 - overhead, 64 * 4096 - overhead,
                          200 * 4096 + 17, 1200000};
    uint8_t *payload[1024] = {0};
    size_t len[1024] = {0};
    mc_compression comp[1024] = {0};
    uint64_t sectors = 2;
    for (int i = 0; i < 1024; i += 3) { /* one in three: small ones, the big ones among them */
        int b = i / 150;
        bool is_big = i % 150 == 0 && b < 5;
        payload[i] = make_chunk_nbt(32 + (i & 31), -32 + (i >> 5), is_big ? big[b] : 100 + (size_t)i * 7,
                                    (uint64_t)i, is_big, &len[i]);
        /* the small ones in turn zlib, lz4 and gzip: compressed straight
         * into the batch (region_writer.c's put_compressed_in_batch) */
        const mc_compression small[3] = {MC_COMPRESSION_ZLIB, MC_COMPRESSION_LZ4, MC_COMPRESSION_GZIP};
        mc_compression c = comp[i] = is_big ? MC_COMPRESSION_NONE : small[(i / 3) % 3];
        assert_int_equal(mc_region_writer_put_chunk(w, i & 31, i >> 5, payload[i], len[i], c, 7, &err), MC_OK);
        if (is_big)
            sectors += b == 4 ? 1 : (len[i] + 5 + 4095) / 4096;
        else
            sectors += 1;
    }
    assert_int_equal(mc_region_writer_count(w), 342);
    uint64_t size = 0;
    assert_int_equal(mc_region_writer_commit(w, &size, &err), MC_OK);
    assert_int_equal(size, sectors * 4096);
    assert_int_equal(fsize(path), sectors * 4096);
    mc_region *r = NULL;
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    uint32_t next = 2;
    for (int i = 0; i < 1024; i++) {
        if (!payload[i]) {
            assert_false(mc_region_has_chunk(r, i & 31, i >> 5));
            continue;
        }
        mc_region_entry e = mc_region_get_entry(r, i & 31, i >> 5);
        assert_int_equal(e.sector_offset, next);
        next += e.sector_count;
        expect_chunk(r, i & 31, i >> 5, payload[i], len[i]);
        if (comp[i] != MC_COMPRESSION_NONE) {
            /* the record is what mc_region_compress makes of it, its
             * length field exact, the rest of its sectors zeros */
            mc_buf raw, want;
            mc_buf_init(&raw, NULL);
            mc_buf_init(&want, NULL);
            mc_region_record rec;
            assert_int_equal(mc_region_read_raw(r, i & 31, i >> 5, &raw, &rec, &err), MC_OK);
            assert_int_equal(mc_region_compress(comp[i], level, payload[i], len[i], &want, &err), MC_OK);
            assert_int_equal(rec.length, want.len + 1);
            assert_int_equal(raw.len, want.len);
            assert_memory_equal(raw.data, want.data, want.len);
            uint8_t tail[4096];
            size_t pad = (size_t)e.sector_count * 4096 - 5 - want.len;
            FILE *f = fopen(path, "rb");
            assert_non_null(f);
            assert_int_equal(fseek(f, (long)e.sector_offset * 4096 + 5 + (long)want.len, SEEK_SET), 0);
            assert_int_equal(fread(tail, 1, pad, f), pad);
            fclose(f);
            for (size_t k = 0; k < pad; k++)
                assert_int_equal(tail[k], 0);
            mc_buf_free(&raw);
            mc_buf_free(&want);
        }
        free(payload[i]);
    }
    size_t ok = 0;
    size_t problems = 0;
    assert_int_equal(mc_region_verify(r, count_problem, &problems, &ok), 0);
    assert_int_equal(ok, 342);
    mc_region_close(r);
    char mcc[512];
    snprintf(mcc, sizeof mcc, "%s/c.%d.%d.mcc", tmpdir, 32 + (600 & 31), -32 + (600 >> 5));
    assert_true(exists(mcc));
    rm_tmpdir();
}

/* ... at deflate level 1 (ISA-L's igzip, what the world commands write)
 * and the default (libdeflate's 6) */
static void test_writer_batches(void **state)
{
    (void)state;
    writer_batches_at(1);
    writer_batches_at(0);
}

/* Deflate at every level the writers use, zlib and gzip: level 1 is
 * ISA-L's igzip, the others libdeflate's. Chunk NBT, incompressible bytes
 * (stored blocks: the output bound), a megabyte of one byte and nothing at
 * all each come back exactly through mc_region_decompress (libdeflate);
 * level 1 of chunk NBT is smaller than the input and, being another
 * encoder, not byte-identical to libdeflate's level 1 of the same data. */
static void test_compress_levels(void **st)
{
    (void)st;
    size_t n;
    uint8_t *nbt = make_chunk_nbt(3, 4, 200000, 4, false, &n);
    size_t rn = 300000;
    uint8_t *noise = malloc(rn), *flat = calloc(1, 1 << 20);
    mc_test_rng rng = {42};
    for (size_t i = 0; i < rn; i++)
        noise[i] = (uint8_t)(mc_test_rand(&rng) >> 56);
    const struct { const uint8_t *p; size_t n; } in[] = {{nbt, n}, {noise, rn}, {flat, 1 << 20}, {flat, 0}};
    const int levels[] = {1, 2, 6, 12};
    const mc_compression kinds[] = {MC_COMPRESSION_ZLIB, MC_COMPRESSION_GZIP};
    mc_buf z, back, ld1;
    mc_buf_init(&z, NULL);
    mc_buf_init(&back, NULL);
    mc_buf_init(&ld1, NULL);
    mc_error err;
    for (size_t k = 0; k < 2; k++)
        for (size_t l = 0; l < 4; l++)
            for (size_t i = 0; i < 4; i++) {
                z.len = back.len = 0;
                assert_int_equal(mc_region_compress(kinds[k], levels[l], in[i].p, in[i].n, &z, &err), MC_OK);
                assert_int_equal(mc_region_decompress(kinds[k], z.data, z.len, &back, 0, &err), MC_OK);
                assert_int_equal(back.len, in[i].n);
                if (in[i].n)
                    assert_memory_equal(back.data, in[i].p, in[i].n);
                if (i == 0)
                    assert_true(z.len < n / 2);
            }
    z.len = 0;
    assert_int_equal(mc_region_compress(MC_COMPRESSION_ZLIB, 1, nbt, n, &z, &err), MC_OK);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
    assert_true(mc_buf_reserve(&ld1, libdeflate_zlib_compress_bound(c, n)));
    ld1.len = libdeflate_zlib_compress(c, nbt, n, ld1.data, libdeflate_zlib_compress_bound(c, n));
    libdeflate_free_compressor(c);
    assert_true(ld1.len > 0);
    assert_true(z.len != ld1.len || memcmp(z.data, ld1.data, z.len) != 0);
    mc_buf_free(&z);
    mc_buf_free(&back);
    mc_buf_free(&ld1);
    free(nbt);
    free(noise);
    free(flat);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open("/nonexistent/r.0.0.mca", NULL, &r, &err), MC_ERR_NOT_FOUND);
    uint8_t header[8192] = {0};
    assert_int_equal(mc_region_open_memory(header, sizeof header, NULL, &r, &err), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_region_read_chunk(r, 0, 0, &b, NULL, &err), MC_ERR_NOT_FOUND);
    assert_int_equal(mc_region_read_chunk(r, 32, 0, &b, NULL, &err), MC_ERR_RANGE);
    assert_int_equal(mc_region_write_chunk(r, 0, 0, "x", 1, MC_COMPRESSION_ZLIB, 0, &err), MC_ERR_INVALID_ARG);
    mc_region_close(r);
    mc_compression c;
    assert_true(mc_compression_parse("lz4", &c));
    assert_int_equal(c, MC_COMPRESSION_LZ4);
    assert_false(mc_compression_parse("zstd", &c));
    assert_string_equal(mc_compression_name(0x82), "zlib");
    mc_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_every_record),
        cmocka_unit_test(test_every_compression_round_trip),
        cmocka_unit_test(test_external_mcc),
        cmocka_unit_test(test_first_fit_reuses_freed_sectors),
        cmocka_unit_test(test_custom_compression_is_named),
        cmocka_unit_test(test_verify_salvage_damage),
        cmocka_unit_test(test_nbt_checks),
        cmocka_unit_test(test_paper_oversized_and_mcr),
        cmocka_unit_test(test_salvage_external),
        cmocka_unit_test(test_writer_batches),
        cmocka_unit_test(test_compress_levels),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
