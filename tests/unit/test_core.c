/* test_core.c: byte cursors, varints, strings, buffer, allocator, errors. */
#include "support.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_fixed_width(void **state)
{
    (void)state;
    const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x3f, 0x80, 0x00, 0x00};
    mc_reader r;
    mc_reader_init(&r, b, sizeof b, "t", NULL);
    assert_int_equal(mc_read_u16be(&r), 0x0102);
    assert_int_equal(mc_read_u16le(&r), 0x0403);
    assert_int_equal(mc_read_u32be(&r), 0x05060708u);
    assert_true(mc_read_f32be(&r) == 1.0f);
    assert_int_equal(mc_reader_remaining(&r), 0);
    mc_reader_init(&r, b, sizeof b, "t", NULL);
    assert_true(mc_read_u64le(&r) == 0x0807060504030201ull);
    mc_reader_init(&r, b, sizeof b, "t", NULL);
    assert_true(mc_read_i64be(&r) == 0x0102030405060708ll);
    assert_int_equal(mc_read_i8(&r), 0x3f);
    assert_int_equal(mc_read_i8(&r), -128);
}

static void test_sticky_truncation(void **state)
{
    (void)state;
    const uint8_t b[] = {1, 2, 3};
    mc_error err;
    mc_error_clear(&err);
    mc_reader r;
    mc_reader_init(&r, b, sizeof b, "nbt", &err);
    r.base = 100;
    assert_int_equal(mc_read_u16be(&r), 0x0102);
    assert_int_equal(mc_read_u32be(&r), 0); /* fails: 1 byte left */
    assert_int_equal(r.status, MC_ERR_TRUNCATED);
    assert_int_equal(err.status, MC_ERR_TRUNCATED);
    assert_int_equal(err.offset, 102);
    assert_non_null(strstr(err.message, "nbt:"));
    assert_non_null(strstr(err.message, "at offset 102"));
    /* Sticky: the byte still there is not read, position unchanged. */
    assert_int_equal(mc_read_u8(&r), 0);
    assert_int_equal(r.pos, 2);
}

static int32_t varint_of(const uint8_t *b, size_t n, mc_status *st)
{
    mc_reader r;
    mc_reader_init(&r, b, n, "t", NULL);
    int32_t v = mc_read_varint(&r);
    *st = r.status;
    return v;
}

static void test_varint(void **state)
{
    (void)state;
    mc_status st;
    /* Known vectors from the protocol documentation. */
    struct { int32_t v; uint8_t b[5]; size_t n; } vec[] = {
        {0, {0x00}, 1}, {1, {0x01}, 1}, {127, {0x7f}, 1}, {128, {0x80, 0x01}, 2},
        {255, {0xff, 0x01}, 2}, {25565, {0xdd, 0xc7, 0x01}, 3},
        {2097151, {0xff, 0xff, 0x7f}, 3}, {INT32_MAX, {0xff, 0xff, 0xff, 0xff, 0x07}, 5},
        {-1, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5}, {INT32_MIN, {0x80, 0x80, 0x80, 0x80, 0x08}, 5},
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        assert_int_equal(varint_of(vec[i].b, vec[i].n, &st), vec[i].v);
        assert_int_equal(st, MC_OK);
        mc_buf b;
        mc_buf_init(&b, NULL);
        mc_buf_put_varint(&b, vec[i].v);
        assert_int_equal(b.len, vec[i].n);
        assert_memory_equal(b.data, vec[i].b, vec[i].n);
        /* written in place (room for five bytes) and by the slow way (less
         * room left), after 0-7 bytes of slack */
        for (size_t slack = 0; slack < 8; slack++) {
            b.len = 0;
            assert_true(mc_buf_reserve(&b, 1));
            const size_t at = b.cap - slack;
            assert_non_null(mc_buf_extend(&b, at));
            mc_buf_put_varint(&b, vec[i].v);
            assert_false(b.failed);
            assert_int_equal(b.len, at + vec[i].n);
            assert_memory_equal(b.data + at, vec[i].b, vec[i].n);
        }
        mc_buf_free(&b);
    }
    const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    varint_of(six, sizeof six, &st);
    assert_int_equal(st, MC_ERR_MALFORMED);
    const uint8_t wide[] = {0xff, 0xff, 0xff, 0xff, 0x1f}; /* bit 32 set */
    varint_of(wide, sizeof wide, &st);
    assert_int_equal(st, MC_ERR_MALFORMED);
    const uint8_t cut[] = {0x80, 0x80};
    varint_of(cut, sizeof cut, &st);
    assert_int_equal(st, MC_ERR_TRUNCATED);

    /* VarLong: 10 bytes max. */
    const uint8_t minlong[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    mc_reader r;
    mc_reader_init(&r, minlong, sizeof minlong, "t", NULL);
    assert_true(mc_read_varlong(&r) == INT64_MIN);
    assert_int_equal(r.status, MC_OK);
    const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    mc_reader_init(&r, eleven, sizeof eleven, "t", NULL);
    mc_read_varlong(&r);
    assert_int_equal(r.status, MC_ERR_MALFORMED);
    const uint8_t toobig[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    mc_reader_init(&r, toobig, sizeof toobig, "t", NULL);
    mc_read_varlong(&r);
    assert_int_equal(r.status, MC_ERR_MALFORMED);
}

static void test_zigzag_roundtrip(void **state)
{
    (void)state;
    mc_test_rng rng = {0x9e3779b97f4a7c15ull};
    mc_buf b;
    mc_buf_init(&b, NULL);
    int64_t v64[2000];
    int32_t v32[2000];
    for (int i = 0; i < 2000; i++) {
        uint64_t x = mc_test_rand(&rng);
        v64[i] = (int64_t)(x >> (x & 63));
        v32[i] = (int32_t)(x >> 32) >> (x & 31);
        if (i < 4) { v64[i] = i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : -1; v32[i] = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : -1; }
        mc_buf_put_zigzag64(&b, v64[i]);
        mc_buf_put_zigzag32(&b, v32[i]);
        mc_buf_put_uvarint64(&b, (uint64_t)v64[i]);
        mc_buf_put_varlong(&b, v64[i]);
    }
    mc_reader r;
    mc_reader_init(&r, b.data, b.len, "t", NULL);
    for (int i = 0; i < 2000; i++) {
        assert_true(mc_read_zigzag64(&r) == v64[i]);
        assert_int_equal(mc_read_zigzag32(&r), v32[i]);
        assert_true(mc_read_uvarint64(&r) == (uint64_t)v64[i]);
        assert_true(mc_read_varlong(&r) == v64[i]);
    }
    assert_int_equal(r.status, MC_OK);
    assert_int_equal(mc_reader_remaining(&r), 0);
    /* zigzag vectors: 0->0, -1->1, 1->2, -2->3 */
    const uint8_t z[] = {0, 1, 2, 3};
    mc_reader_init(&r, z, 4, "t", NULL);
    assert_int_equal(mc_read_zigzag32(&r), 0);
    assert_int_equal(mc_read_zigzag32(&r), -1);
    assert_int_equal(mc_read_zigzag32(&r), 1);
    assert_int_equal(mc_read_zigzag32(&r), -2);
    mc_buf_free(&b);
}

static void test_strings(void **state)
{
    (void)state;
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_true(mc_buf_put_str_u16be(&b, "hello", 5));
    assert_true(mc_buf_put_str_u16le(&b, "le", 2));
    mc_buf_put_str_varint(&b, "abc", 3);
    mc_buf_put_str_uvarint(&b, "", 0);
    mc_reader r;
    mc_reader_init(&r, b.data, b.len, "t", NULL);
    size_t n;
    const uint8_t *s = mc_read_str_u16be(&r, &n);
    assert_int_equal(n, 5);
    assert_memory_equal(s, "hello", 5);
    s = mc_read_str_u16le(&r, &n);
    assert_memory_equal(s, "le", 2);
    s = mc_read_str_varint(&r, 100, &n);
    assert_memory_equal(s, "abc", 3);
    s = mc_read_str_uvarint(&r, &n);
    assert_non_null(s);
    assert_int_equal(n, 0);
    assert_int_equal(r.status, MC_OK);

    /* A length past the end names the length and remaining bytes. */
    const uint8_t bad[] = {0x01, 0x2c, 'x'};
    mc_error err;
    mc_error_clear(&err);
    mc_reader_init(&r, bad, sizeof bad, "nbt", &err);
    assert_null(mc_read_str_u16be(&r, &n));
    assert_int_equal(err.status, MC_ERR_TRUNCATED);
    assert_string_equal(err.message, "nbt: string length 300 exceeds remaining 1 bytes at offset 0");
    /* Negative / oversized varint lengths. */
    const uint8_t neg[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    mc_reader_init(&r, neg, sizeof neg, "t", NULL);
    assert_null(mc_read_str_varint(&r, 32767, &n));
    assert_int_equal(r.status, MC_ERR_MALFORMED);
    assert_false(mc_buf_put_str_u16be(&b, "x", 70000));
    mc_buf_free(&b);
}

typedef struct { size_t live; size_t calls; size_t fail_after; } counting;
static void *c_alloc(void *u, size_t n)
{
    counting *c = u;
    if (++c->calls > c->fail_after) return NULL;
    c->live += n;
    return malloc(n);
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
    counting *c = u;
    if (++c->calls > c->fail_after) return NULL;
    c->live += n - o;
    return realloc(p, n);
}
static void c_free(void *u, void *p, size_t n)
{
    counting *c = u;
    if (p) c->live -= n;
    free(p);
}

static void test_buffer_allocator(void **state)
{
    (void)state;
    counting c = {0, 0, SIZE_MAX};
    mc_allocator a = {c_alloc, c_realloc, c_free, &c};
    mc_buf b;
    mc_buf_init(&b, &a);
    for (int i = 0; i < 100000; i++)
        mc_buf_put_u32be(&b, (uint32_t)i);
    assert_true(mc_buf_ok(&b));
    assert_int_equal(b.len, 400000);
    assert_int_equal(mc_load_u32be(b.data + 4 * 99999), 99999);
    assert_int_equal(c.live, b.cap);
    mc_buf_free(&b);
    assert_int_equal(c.live, 0);

    /* Allocation failure is sticky and reported. */
    counting f = {0, 0, 2};
    mc_allocator fa = {c_alloc, c_realloc, c_free, &f};
    mc_buf_init(&b, &fa);
    for (int i = 0; i < 10000; i++)
        mc_buf_put_u64le(&b, (uint64_t)i);
    assert_false(mc_buf_ok(&b));
    size_t len = b.len;
    mc_buf_put_u8(&b, 1);
    assert_int_equal(b.len, len);
    mc_buf_free(&b);
    assert_int_equal(f.live, 0);
}

static void test_empty_operations(void **state)
{
    (void)state;
    /* Zero-length writes to a buffer without memory: no UB (NULL + 0), no
     * failure, nothing written. */
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_buf_put(&b, NULL, 0);
    mc_buf_put(&b, "x", 0);
    assert_null(mc_buf_extend(&b, 0));
    assert_true(mc_buf_ok(&b));
    assert_int_equal(b.len, 0);
    mc_buf_put_str_varint(&b, "", 0);
    assert_int_equal(b.len, 1);
    mc_buf_free(&b);
}

static void test_error_format(void **state)
{
    (void)state;
    mc_error e;
    mc_error_clear(&e);
    assert_int_equal(mc_error_set(&e, MC_ERR_MALFORMED, 381,
                                  "nbt: list length %u exceeds remaining %d bytes", 4294967295u, 12),
                     MC_ERR_MALFORMED);
    assert_string_equal(e.message, "nbt: list length 4294967295 exceeds remaining 12 bytes at offset 381");
    mc_error_set(&e, MC_ERR_IO, SIZE_MAX, "no offset");
    assert_string_equal(e.message, "no offset");
    assert_string_equal(mc_status_name(MC_ERR_TRUNCATED), "truncated");
    assert_int_equal(mc_error_set(NULL, MC_ERR_RANGE, 0, "x"), MC_ERR_RANGE);
}

static void test_read_file(void **state)
{
    (void)state;
    char path[] = "/tmp/mc_core_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    for (int i = 0; i < 200000; i++)
        fputc(i & 0xff, f);
    fclose(f);
    uint8_t *d;
    size_t n;
    mc_error e;
    assert_int_equal(mc_read_file(path, NULL, &d, &n, &e), MC_OK);
    assert_int_equal(n, 200000);
    assert_int_equal(d[199999], 199999 & 0xff);
    free(d);
    remove(path);
    assert_int_equal(mc_read_file("/nonexistent/x", NULL, &d, &n, &e), MC_ERR_NOT_FOUND);
    assert_non_null(strstr(e.message, "/nonexistent/x"));
}

/* The default allocator's per-thread cache of 1-17 KiB blocks: every block
 * it hands out holds the size asked for, whatever the sizes blocks were
 * freed with (it goes by their usable size, not the stated one), through
 * realloc across the cached range and on other threads, whose caches are
 * released at their exit. Each block is written over its whole size, so
 * under AddressSanitizer a block too small is an overflow and a cache not
 * released at a thread's exit a leak. */
static void alloc_cycle(unsigned seed)
{
    const mc_allocator *a = mc_default_allocator();
    static const size_t sizes[] = {1, 100, 1024, 1025, 1500, 2048, 2049, 2736, 4096, 8192,
                                   8193, 16408, 17408, 17409, 40000};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    enum { N = 96 };
    void *p[N];
    size_t sz[N];
    mc_test_rng rng = {seed};
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < N; i++) {
            sz[i] = sizes[(size_t)(mc_test_rand(&rng) % ns)];
            p[i] = a->alloc(a->user, sz[i]);
            assert_non_null(p[i]);
            memset(p[i], (int)(i & 0xFF), sz[i]);
        }
        for (int i = 0; i < N; i++) {
            const uint8_t *b = p[i];
            assert_int_equal(b[0], i & 0xFF);
            assert_int_equal(b[sz[i] - 1], i & 0xFF);
            /* odd rounds state a smaller size than the block's */
            a->free(a->user, p[i], (round & 1) ? sz[i] / 2 : sz[i]);
        }
    }
    /* realloc through the cached range and out of it, contents kept */
    static const size_t steps[] = {900, 1100, 3000, 9000, 17000, 20000, 2500, 1030, 60};
    uint8_t *q = a->alloc(a->user, 10);
    memset(q, 0x5A, 10);
    size_t have = 10;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        q = a->realloc(a->user, q, have, steps[k]);
        assert_non_null(q);
        const size_t keep = have < steps[k] ? have : steps[k];
        for (size_t i = 0; i < keep; i++)
            assert_int_equal(q[i], 0x5A);
        memset(q, 0x5A, steps[k]);
        have = steps[k];
        void *x = a->alloc(a->user, steps[k]); /* a cached block of that size, if any */
        memset(x, 1, steps[k]);
        a->free(a->user, x, steps[k]);
    }
    a->free(a->user, q, have);
}

static void *alloc_thread(void *arg)
{
    alloc_cycle((unsigned)(uintptr_t)arg);
    return NULL;
}

static void test_default_allocator_cache(void **state)
{
    (void)state;
    alloc_cycle(1);
    pthread_t t[3];
    for (uintptr_t i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, alloc_thread, (void *)(i + 2)), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    alloc_cycle(9); /* blocks freed on other threads' caches are theirs; this one still works */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_width),  cmocka_unit_test(test_sticky_truncation),
        cmocka_unit_test(test_varint),       cmocka_unit_test(test_zigzag_roundtrip),
        cmocka_unit_test(test_strings),      cmocka_unit_test(test_buffer_allocator),
        cmocka_unit_test(test_error_format), cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_empty_operations), cmocka_unit_test(test_default_allocator_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
