/*
 * core.c: the out-of-line parts of mcchunk/core.h — status names, error
 * formatting, the default allocator, varint decoding, strings, the growable
 * buffer and whole-file reading.
 *
 * Varints are decoded with an explicit byte limit (5 for 32-bit, 10 for
 * 64-bit values) so that hostile input cannot make a reader loop or shift
 * past the width of the result.
 */
#include "mcchunk/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *mc_version(void)
{
    return "0.1.0";
}

const char *mc_status_name(mc_status status)
{
    switch (status) {
    case MC_OK: return "ok";
    case MC_ERR_TRUNCATED: return "truncated";
    case MC_ERR_MALFORMED: return "malformed";
    case MC_ERR_LIMIT: return "limit exceeded";
    case MC_ERR_NOMEM: return "out of memory";
    case MC_ERR_UNSUPPORTED: return "unsupported";
    case MC_ERR_NOT_FOUND: return "not found";
    case MC_ERR_TYPE: return "wrong type";
    case MC_ERR_RANGE: return "out of range";
    case MC_ERR_IO: return "i/o error";
    case MC_ERR_COMPRESSION: return "bad compressed data";
    case MC_ERR_INVALID_ARG: return "invalid argument";
    }
    return "unknown status";
}

void mc_error_clear(mc_error *err)
{
    if (!err)
        return;
    err->status = MC_OK;
    err->offset = SIZE_MAX;
    err->message[0] = '\0';
}

mc_status mc_error_setv(mc_error *err, mc_status status, size_t offset,
                        const char *fmt, va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    err->offset = offset;
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (n < 0)
        n = 0;
    size_t used = (size_t)n < sizeof err->message ? (size_t)n : sizeof err->message - 1;
    if (offset != SIZE_MAX && used < sizeof err->message - 1)
        snprintf(err->message + used, sizeof err->message - used, " at offset %zu", offset);
    return status;
}

mc_status mc_error_set(mc_error *err, mc_status status, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_error_setv(err, status, offset, fmt, ap);
    va_end(ap);
    return status;
}

/* ------------------------------------------------------------ allocator */

/* The default allocator is malloc/realloc/free with a small per-thread
 * cache of freed blocks of 1-17 KiB: the block containers (2-8 KiB), the
 * 2 KiB light arrays of every section a codec builds and frees and the
 * 16 KiB first block of an NBT document, sizes that
 * glibc serves from its bins (its per-thread cache stops at 1 KiB), which
 * cost a column decode ~100 malloc/free pairs through _int_malloc. Blocks
 * are kept by their true usable size (malloc_usable_size, never the size a
 * caller states), in classes of 256 bytes: class c holds blocks of at least
 * c * 256 bytes, and a request of s bytes pops class ceil(s / 256). At most
 * CACHE_DEPTH blocks per class and CACHE_BYTES in all are kept per thread;
 * a thread's cache is released when it exits. Under AddressSanitizer cached
 * blocks are poisoned, so a use after free is still reported. Elsewhere than
 * glibc (no malloc_usable_size) the cache is off. */
#if defined(__GLIBC__) && !defined(MCCHUNK_NO_ALLOC_CACHE)
#include <malloc.h>
#include <pthread.h>
#define CACHE_ON 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CACHE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CACHE_ASAN 1
#endif
#endif
#ifdef CACHE_ASAN
/* over the block's own bytes (its usable size is exact under ASan), never
 * past them: a block smaller than its class stays an overflow */
#include <sanitizer/asan_interface.h>
#define CACHE_POISON(p, n) ((void)(n), ASAN_POISON_MEMORY_REGION(p, malloc_usable_size(p)))
#define CACHE_UNPOISON(p, n) ((void)(n), ASAN_UNPOISON_MEMORY_REGION(p, malloc_usable_size(p)))
#else
#define CACHE_POISON(p, n) ((void)(p), (void)(n))
#define CACHE_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#ifdef CACHE_ON
#define CACHE_MIN 1025u           /* below: glibc's own tcache is as fast */
#define CACHE_MAX (17u * 1024u)   /* up to the 16 KiB first block of an NBT document */
#define CACHE_CLASSES (CACHE_MAX / 256 + 1)
#define CACHE_DEPTH 64
#define CACHE_BYTES (1024u * 1024u)

typedef struct alloc_cache {
    void *blocks[CACHE_CLASSES][CACHE_DEPTH];
    uint8_t n[CACHE_CLASSES];
    size_t bytes;
} alloc_cache;

/* The thread's cache, made on its first cached free; (void *)1 once the
 * thread has given up on it (no memory, or its exit released it). */
static _Thread_local alloc_cache *tcache;
static pthread_key_t tcache_key;
static pthread_once_t tcache_once = PTHREAD_ONCE_INIT;
static bool tcache_key_ok;

static void tcache_release(void *arg)
{
    alloc_cache *c = arg;
    for (size_t k = 0; k < CACHE_CLASSES; k++)
        while (c->n[k]) {
            void *p = c->blocks[k][--c->n[k]];
            CACHE_UNPOISON(p, k * 256);
            free(p);
        }
    free(c);
    tcache = (alloc_cache *)1; /* frees in later destructors go to free() */
}
static void tcache_key_init(void)
{
    tcache_key_ok = pthread_key_create(&tcache_key, tcache_release) == 0;
}
static alloc_cache *tcache_get(void)
{
    if (tcache)
        return tcache == (alloc_cache *)1 ? NULL : tcache;
    pthread_once(&tcache_once, tcache_key_init);
    alloc_cache *c = tcache_key_ok ? calloc(1, sizeof *c) : NULL;
    if (c && pthread_setspecific(tcache_key, c) != 0) {
        free(c);
        c = NULL;
    }
    tcache = c ? c : (alloc_cache *)1;
    return c;
}
#endif

static void *default_alloc(void *user, size_t size)
{
    (void)user;
#ifdef CACHE_ON
    if (size >= CACHE_MIN && size <= CACHE_MAX) {
        const size_t k = (size + 255) / 256;
        alloc_cache *c = tcache;
        if (c && c != (alloc_cache *)1 && c->n[k]) {
            void *p = c->blocks[k][--c->n[k]];
            c->bytes -= k * 256;
            CACHE_UNPOISON(p, k * 256);
            return p;
        }
        return malloc(k * 256);
    }
#endif
    return malloc(size ? size : 1);
}
static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    (void)old_size;
#ifdef CACHE_ON
    if (new_size >= CACHE_MIN && new_size <= CACHE_MAX)
        new_size = (new_size + 255) & ~(size_t)255;
#endif
    return realloc(ptr, new_size ? new_size : 1);
}
static void default_free(void *user, void *ptr, size_t size)
{
    (void)user;
    (void)size;
#ifdef CACHE_ON
    /* every block is malloc's, so free() is always right and the cache is
     * only a choice: a block its owner says is small (default_alloc gives
     * those sizes to malloc as they are) goes straight back, and only larger
     * ones pay for malloc_usable_size (which decides, since a size could
     * understate the block) */
    if (!ptr || size < CACHE_MIN) {
        free(ptr);
        return;
    }
    const size_t usable = malloc_usable_size(ptr);
    if (usable >= CACHE_MIN && usable < CACHE_MAX + 256) {
        size_t k = usable / 256;
        k = k < CACHE_CLASSES ? k : CACHE_CLASSES - 1;
        alloc_cache *c = tcache_get();
        if (c && k * 256 >= CACHE_MIN && c->n[k] < CACHE_DEPTH && c->bytes + k * 256 <= CACHE_BYTES) {
            CACHE_POISON(ptr, k * 256);
            c->blocks[k][c->n[k]++] = ptr;
            c->bytes += k * 256;
            return;
        }
    }
#endif
    free(ptr);
}

static const mc_allocator default_allocator = {default_alloc, default_realloc, default_free, NULL};

const mc_allocator *mc_default_allocator(void)
{
    return &default_allocator;
}

/* --------------------------------------------------------------- reader */

void mc_reader_init(mc_reader *r, const void *data, size_t len, const char *what, mc_error *err)
{
    r->data = (const uint8_t *)data;
    r->len = data ? len : 0;
    r->pos = 0;
    r->base = 0;
    r->what = what ? what : "input";
    r->err = err;
    r->status = MC_OK;
}

static mc_status reader_failv(mc_reader *r, size_t offset, mc_status status, const char *fmt, va_list ap)
{
    if (r->status != MC_OK)
        return r->status;
    r->status = status;
    if (r->err) {
        char detail[MC_ERROR_MESSAGE_MAX];
        vsnprintf(detail, sizeof detail, fmt, ap);
        mc_error_set(r->err, status, r->base + offset, "%s: %s", r->what, detail);
    }
    return status;
}

mc_status mc_reader_fail(mc_reader *r, mc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_status s = reader_failv(r, r->pos, status, fmt, ap);
    va_end(ap);
    return s;
}

mc_status mc_reader_fail_at(mc_reader *r, size_t offset, mc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_status s = reader_failv(r, offset, status, fmt, ap);
    va_end(ap);
    return s;
}

/* Reads an LEB128 value of at most max_bytes bytes whose value must fit in
 * `bits` bits. */
static uint64_t read_leb(mc_reader *r, unsigned max_bytes, unsigned bits, const char *name)
{
    if (r->status != MC_OK)
        return 0;
    size_t start = r->pos;
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (r->pos >= r->len) {
            mc_reader_fail_at(r, start, MC_ERR_TRUNCATED, "%s ends after %u bytes", name, i);
            return 0;
        }
        uint8_t byte = r->data[r->pos++];
        v |= (uint64_t)(byte & 0x7F) << (7 * i);
        if (!(byte & 0x80)) {
            /* The last byte may only carry bits that fit the width. */
            if (i == max_bytes - 1 && bits < 7 * max_bytes) {
                unsigned used = bits - 7 * i;
                if (used < 7 && (byte >> used) != 0) {
                    mc_reader_fail_at(r, start, MC_ERR_MALFORMED, "%s exceeds %u bits", name, bits);
                    return 0;
                }
            }
            return v;
        }
    }
    mc_reader_fail_at(r, start, MC_ERR_MALFORMED, "%s longer than %u bytes", name, max_bytes);
    return 0;
}

int32_t mc_read_varint(mc_reader *r)
{
    /* Fast path for values of 1-4 bytes (palette ids, lengths) with 5 bytes
     * in bounds; the 5-byte form and every error go the checked way. */
    if (r->status == MC_OK && r->pos <= r->len && r->len - r->pos >= 5) {
        const uint8_t *p = r->data + r->pos;
        uint32_t v = p[0] & 0x7Fu;
        if (!(p[0] & 0x80)) {
            r->pos += 1;
            return (int32_t)v;
        }
        v |= (uint32_t)(p[1] & 0x7F) << 7;
        if (!(p[1] & 0x80)) {
            r->pos += 2;
            return (int32_t)v;
        }
        v |= (uint32_t)(p[2] & 0x7F) << 14;
        if (!(p[2] & 0x80)) {
            r->pos += 3;
            return (int32_t)v;
        }
        v |= (uint32_t)(p[3] & 0x7F) << 21;
        if (!(p[3] & 0x80)) {
            r->pos += 4;
            return (int32_t)v;
        }
    }
    return (int32_t)(uint32_t)read_leb(r, 5, 32, "varint");
}
int64_t mc_read_varlong(mc_reader *r) { return (int64_t)read_leb(r, 10, 64, "varlong"); }
uint32_t mc_read_uvarint32(mc_reader *r) { return (uint32_t)read_leb(r, 5, 32, "varint"); }
uint64_t mc_read_uvarint64(mc_reader *r) { return read_leb(r, 10, 64, "varint64"); }
int32_t mc_read_zigzag32(mc_reader *r)
{
    uint32_t n = (uint32_t)read_leb(r, 5, 32, "zigzag varint");
    return (int32_t)((n >> 1) ^ (0u - (n & 1)));
}
int64_t mc_read_zigzag64(mc_reader *r)
{
    uint64_t n = read_leb(r, 10, 64, "zigzag varint64");
    return (int64_t)((n >> 1) ^ (0ull - (n & 1)));
}

static const uint8_t *read_str_body(mc_reader *r, size_t start, uint64_t n, size_t *len)
{
    if (r->status != MC_OK)
        return NULL;
    if (n > mc_reader_remaining(r)) {
        mc_reader_fail_at(r, start, MC_ERR_TRUNCATED, "string length %llu exceeds remaining %zu bytes",
                          (unsigned long long)n, mc_reader_remaining(r));
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += (size_t)n;
    if (len)
        *len = (size_t)n;
    return p;
}

const uint8_t *mc_read_str_u16be(mc_reader *r, size_t *len)
{
    size_t start = r->pos;
    uint16_t n = mc_read_u16be(r);
    return read_str_body(r, start, n, len);
}
const uint8_t *mc_read_str_u16le(mc_reader *r, size_t *len)
{
    size_t start = r->pos;
    uint16_t n = mc_read_u16le(r);
    return read_str_body(r, start, n, len);
}
const uint8_t *mc_read_str_varint(mc_reader *r, size_t max_bytes, size_t *len)
{
    size_t start = r->pos;
    int32_t n = mc_read_varint(r);
    if (r->status != MC_OK)
        return NULL;
    if (n < 0 || (size_t)n > max_bytes) {
        mc_reader_fail_at(r, start, MC_ERR_MALFORMED, "string length %d outside 0..%zu", n, max_bytes);
        return NULL;
    }
    return read_str_body(r, start, (uint64_t)n, len);
}
const uint8_t *mc_read_str_uvarint(mc_reader *r, size_t *len)
{
    size_t start = r->pos;
    uint32_t n = mc_read_uvarint32(r);
    return read_str_body(r, start, n, len);
}

/* --------------------------------------------------------------- buffer */

void mc_buf_init(mc_buf *b, const mc_allocator *alloc)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->alloc = mc_alloc_or_default(alloc);
    b->failed = false;
}

void mc_buf_free(mc_buf *b)
{
    const mc_allocator *a = mc_alloc_or_default(b->alloc);
    if (b->data)
        a->free(a->user, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
    b->alloc = a;
}

bool mc_buf_reserve_slow(mc_buf *b, size_t extra)
{
    if (b->failed)
        return false;
    const mc_allocator *a = mc_alloc_or_default(b->alloc);
    b->alloc = a;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *p = b->data ? a->realloc(a->user, b->data, b->cap, cap) : a->alloc(a->user, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

uint8_t *mc_buf_detach(mc_buf *b, size_t *len, size_t *cap)
{
    uint8_t *p = b->data;
    if (len)
        *len = b->len;
    if (cap)
        *cap = b->cap;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

void mc_buf_put_uvarint64(mc_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    const size_t n = mc__uvarint_encode(tmp, v);
    uint8_t *p = mc_buf_extend(b, n);
    if (p)
        for (size_t i = 0; i < n; i++) /* (a memcpy of a variable 1-10 bytes is a library call) */
            p[i] = tmp[i];
}

bool mc_buf_put_str_u16be(mc_buf *b, const void *s, size_t len)
{
    if (len > 0xFFFF) {
        b->failed = true;
        return false;
    }
    mc_buf_put_u16be(b, (uint16_t)len);
    mc_buf_put(b, s, len);
    return !b->failed;
}
bool mc_buf_put_str_u16le(mc_buf *b, const void *s, size_t len)
{
    if (len > 0xFFFF) {
        b->failed = true;
        return false;
    }
    mc_buf_put_u16le(b, (uint16_t)len);
    mc_buf_put(b, s, len);
    return !b->failed;
}
void mc_buf_put_str_varint(mc_buf *b, const void *s, size_t len)
{
    mc_buf_put_varint(b, (int32_t)len);
    mc_buf_put(b, s, len);
}
void mc_buf_put_str_uvarint(mc_buf *b, const void *s, size_t len)
{
    mc_buf_put_uvarint32(b, (uint32_t)len);
    mc_buf_put(b, s, len);
}

/* ----------------------------------------------------------------- files */

mc_status mc_read_file(const char *path, const mc_allocator *alloc, uint8_t **data, size_t *len, mc_error *err)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    /* Regular files only: a FIFO (say a level.dat in a world from elsewhere)
     * would block a plain open, and reads, for ever. O_NONBLOCK makes the
     * open return at once; the type is checked before a byte is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return mc_error_set(err, errno == ENOENT ? MC_ERR_NOT_FOUND : MC_ERR_IO, SIZE_MAX,
                            "%s: %s", path, strerror(errno));
    struct stat st;
    int fl;
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular || (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "%s: %s", path,
                            regular ? strerror(e) : "not a regular file");
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", path);
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = a->alloc(a->user, cap);
    if (!buf) {
        fclose(f);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            uint8_t *nb = a->realloc(a->user, buf, cap, cap * 2);
            if (!nb) {
                a->free(a->user, buf, cap);
                fclose(f);
                return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                a->free(a->user, buf, cap);
                fclose(f);
                return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "%s: read error", path);
            }
            break;
        }
    }
    fclose(f);
    /* Shrink so that the caller frees with the length it was given. */
    uint8_t *fit = a->realloc(a->user, buf, cap, n ? n : 1);
    if (fit)
        buf = fit;
    else if (cap != n) {
        /* Could not shrink: copy into an exact allocation. */
        uint8_t *exact = a->alloc(a->user, n ? n : 1);
        if (!exact) {
            a->free(a->user, buf, cap);
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "%s: out of memory", path);
        }
        memcpy(exact, buf, n);
        a->free(a->user, buf, cap);
        buf = exact;
    }
    *data = buf;
    *len = n;
    return MC_OK;
}
