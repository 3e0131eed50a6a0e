/*
 * mcchunk/core.h: status codes, error details, allocators, bounded byte
 * cursors and a growable output buffer.
 *
 * Every decoder in mcchunk reads outside bytes through an mc_reader. A reader
 * is a (pointer, length, position) triple with a *sticky* error: the first
 * failed read records what went wrong and where (an mc_error with a status,
 * the byte offset and a message such as "nbt: list length 4294967295 exceeds
 * remaining 12 bytes at offset 381"); every later read returns zero and
 * changes nothing. A decoder can therefore read a whole structure and check
 * the reader once, without a branch after every field, and can never read
 * past the end of its input.
 *
 * Every encoder writes into an mc_buf, a growable byte buffer whose memory
 * comes from an mc_allocator the caller may replace. Its failure to grow is
 * sticky too: check mc_buf_ok() once at the end.
 *
 * The inline functions here are the hot paths of every codec; keep them small.
 */
#ifndef MCCHUNK_CORE_H
#define MCCHUNK_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(MCCHUNK_SHARED_BUILD)
#define MC_API __declspec(dllexport)
#elif defined(__GNUC__)
#define MC_API __attribute__((visibility("default")))
#else
#define MC_API
#endif

#define MCCHUNK_VERSION_MAJOR 0
#define MCCHUNK_VERSION_MINOR 1
#define MCCHUNK_VERSION_PATCH 0

/* The library's version string, e.g. "0.1.0". */
MC_API const char *mc_version(void);

/* ---------------------------------------------------------------- status */

typedef enum mc_status {
    MC_OK = 0,
    MC_ERR_TRUNCATED,     /* the input ended before the structure did */
    MC_ERR_MALFORMED,     /* bytes that the format does not allow */
    MC_ERR_LIMIT,         /* a safety limit (depth, byte budget, size) was exceeded */
    MC_ERR_NOMEM,         /* an allocation failed */
    MC_ERR_UNSUPPORTED,   /* valid, but a variant this build does not handle */
    MC_ERR_NOT_FOUND,     /* a looked-up key, file, chunk or version is absent */
    MC_ERR_TYPE,          /* a value has another type than the one asked for */
    MC_ERR_RANGE,         /* an argument or value out of its range */
    MC_ERR_IO,            /* the operating system reported an I/O error */
    MC_ERR_COMPRESSION,   /* compressed data could not be inflated */
    MC_ERR_INVALID_ARG    /* the caller passed something the API forbids */
} mc_status;

/* A stable lower-case name for a status, e.g. "truncated". Never NULL. */
MC_API const char *mc_status_name(mc_status status);

/* Details of a failure. `offset` is the byte offset in the input where the
 * problem was found (SIZE_MAX when no offset applies). `message` is a complete
 * sentence fragment for people, e.g. "nbt: bad tag id 13 at offset 57". */
#define MC_ERROR_MESSAGE_MAX 256
typedef struct mc_error {
    mc_status status;
    size_t offset;
    char message[MC_ERROR_MESSAGE_MAX];
} mc_error;

/* Clears an error to MC_OK. */
MC_API void mc_error_clear(mc_error *err);

/* Records a failure: status, offset, and a printf-style message. `err` may be
 * NULL (then only the status is returned). Returns `status`, so a caller can
 * write `return mc_error_set(err, MC_ERR_MALFORMED, off, "...");`. When
 * `offset` is not SIZE_MAX, " at offset N" is appended to the message. */
MC_API mc_status mc_error_set(mc_error *err, mc_status status, size_t offset,
                              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
MC_API mc_status mc_error_setv(mc_error *err, mc_status status, size_t offset,
                               const char *fmt, va_list ap);

/* ------------------------------------------------------------- allocator */

/* A replaceable allocator. `realloc` and `free` receive the old size, which
 * lets arena and pool allocators work without headers. Any function may be
 * called with size 0 semantics as in C (free(NULL) is allowed). */
typedef struct mc_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} mc_allocator;

/* The allocator used when a caller passes NULL: malloc/realloc/free, with a
 * small per-thread cache of freed 1-17 KiB blocks (section containers and
 * light: at most 64 blocks a size and 1 MiB a thread, released when the
 * thread exits; glibc only, off when built with MCCHUNK_NO_ALLOC_CACHE).
 * Its blocks are malloc's: free() may release one. */
MC_API const mc_allocator *mc_default_allocator(void);

static inline const mc_allocator *mc_alloc_or_default(const mc_allocator *a)
{
    return a ? a : mc_default_allocator();
}

/* ---------------------------------------------------------------- reader */

/* A bounded reader over (data, len). `base` is added to every offset it
 * reports, so that a reader over a slice reports offsets in the whole input.
 * `what` prefixes its messages ("nbt", "region", ...). */
typedef struct mc_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    size_t base;
    const char *what;
    mc_error *err; /* where failures are recorded; may be NULL */
    mc_status status; /* sticky: MC_OK until the first failure */
} mc_reader;

/* Starts a reader. `err` may be NULL; `what` may be NULL (then "input"). */
MC_API void mc_reader_init(mc_reader *r, const void *data, size_t len,
                           const char *what, mc_error *err);

/* Records a failure at the reader's current position (or `offset` for the
 * _at form; offsets are relative to the reader's data) unless one is already
 * recorded. Returns the reader's (sticky) status. */
MC_API mc_status mc_reader_fail(mc_reader *r, mc_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
MC_API mc_status mc_reader_fail_at(mc_reader *r, size_t offset, mc_status status,
                                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static inline bool mc_reader_ok(const mc_reader *r) { return r->status == MC_OK; }
static inline size_t mc_reader_remaining(const mc_reader *r) { return r->len - r->pos; }
static inline size_t mc_reader_offset(const mc_reader *r) { return r->base + r->pos; }

/* Makes sure `n` more bytes exist; otherwise records MC_ERR_TRUNCATED naming
 * `field` ("nbt: string length 300 exceeds remaining 12 bytes at offset 9"). */
static inline bool mc_reader_need(mc_reader *r, size_t n, const char *field)
{
    if (r->status != MC_OK)
        return false;
    if (n <= r->len - r->pos)
        return true;
    mc_reader_fail(r, MC_ERR_TRUNCATED, "%s needs %zu bytes, %zu remain",
                   field ? field : "read", n, r->len - r->pos);
    return false;
}

/* Returns a pointer to the next `n` bytes and advances, or NULL on failure. */
static inline const uint8_t *mc_read_bytes(mc_reader *r, size_t n, const char *field)
{
    if (!mc_reader_need(r, n, field))
        return NULL;
    const uint8_t *p = r->data + r->pos;
    r->pos += n;
    return p;
}

static inline bool mc_read_skip(mc_reader *r, size_t n, const char *field)
{
    return mc_read_bytes(r, n, field) != NULL;
}

static inline uint8_t mc_read_u8(mc_reader *r)
{
    const uint8_t *p = mc_read_bytes(r, 1, "u8");
    return p ? p[0] : 0;
}
static inline int8_t mc_read_i8(mc_reader *r) { return (int8_t)mc_read_u8(r); }

/* Unaligned fixed-width loads (used by decoders on already-checked memory). */
/* (a 16-bit load into a zeroed register: GCC made the shift-and-or form a
 * load into the low half of a live register, which waits for that
 * register's last writer; in a loop that chains each element's length load
 * to the work on the one before) */
static inline uint16_t mc_load_u16be(const uint8_t *p)
{
    uint16_t v; memcpy(&v, p, 2);
    return __builtin_bswap16(v);
}
static inline uint16_t mc_load_u16le(const uint8_t *p)
{
    uint16_t v; memcpy(&v, p, 2); /* (as mc_load_u16be; the library assumes a little-endian host) */
    return v;
}
static inline uint32_t mc_load_u32be(const uint8_t *p)
{
    uint32_t v; memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}
static inline uint32_t mc_load_u32le(const uint8_t *p)
{
    uint32_t v; memcpy(&v, p, 4);
    return v;
}
static inline uint64_t mc_load_u64be(const uint8_t *p)
{
    uint64_t v; memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline uint64_t mc_load_u64le(const uint8_t *p)
{
    uint64_t v; memcpy(&v, p, 8);
    return v;
}
static inline void mc_store_u16be(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void mc_store_u16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void mc_store_u32be(uint8_t *p, uint32_t v) { v = __builtin_bswap32(v); memcpy(p, &v, 4); }
static inline void mc_store_u32le(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void mc_store_u64be(uint8_t *p, uint64_t v) { v = __builtin_bswap64(v); memcpy(p, &v, 8); }
static inline void mc_store_u64le(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

#define MC__READ_FIXED(name, type, n, load)                                   \
    static inline type mc_read_##name(mc_reader *r)                           \
    {                                                                         \
        const uint8_t *p = mc_read_bytes(r, n, #name);                        \
        return p ? (type)load(p) : (type)0;                                   \
    }
MC__READ_FIXED(u16be, uint16_t, 2, mc_load_u16be)
MC__READ_FIXED(u16le, uint16_t, 2, mc_load_u16le)
MC__READ_FIXED(i16be, int16_t, 2, mc_load_u16be)
MC__READ_FIXED(i16le, int16_t, 2, mc_load_u16le)
MC__READ_FIXED(u32be, uint32_t, 4, mc_load_u32be)
MC__READ_FIXED(u32le, uint32_t, 4, mc_load_u32le)
MC__READ_FIXED(i32be, int32_t, 4, mc_load_u32be)
MC__READ_FIXED(i32le, int32_t, 4, mc_load_u32le)
MC__READ_FIXED(u64be, uint64_t, 8, mc_load_u64be)
MC__READ_FIXED(u64le, uint64_t, 8, mc_load_u64le)
MC__READ_FIXED(i64be, int64_t, 8, mc_load_u64be)
MC__READ_FIXED(i64le, int64_t, 8, mc_load_u64le)
#undef MC__READ_FIXED

static inline float mc_bits_to_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double mc_bits_to_f64(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline uint32_t mc_f32_to_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t mc_f64_to_bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

static inline float mc_read_f32be(mc_reader *r) { return mc_bits_to_f32(mc_read_u32be(r)); }
static inline float mc_read_f32le(mc_reader *r) { return mc_bits_to_f32(mc_read_u32le(r)); }
static inline double mc_read_f64be(mc_reader *r) { return mc_bits_to_f64(mc_read_u64be(r)); }
static inline double mc_read_f64le(mc_reader *r) { return mc_bits_to_f64(mc_read_u64le(r)); }

/* Java VarInt: LEB128 of a 32-bit two's-complement value, at most 5 bytes.
 * A sixth byte, or bits beyond 32 in the fifth, is MC_ERR_MALFORMED. */
MC_API int32_t mc_read_varint(mc_reader *r);
/* Java VarLong: at most 10 bytes. */
MC_API int64_t mc_read_varlong(mc_reader *r);
/* Bedrock unsigned varints (same LEB128, at most 5 / 10 bytes). */
MC_API uint32_t mc_read_uvarint32(mc_reader *r);
MC_API uint64_t mc_read_uvarint64(mc_reader *r);
/* Bedrock zigzag varints: (n >> 1) ^ -(n & 1). */
MC_API int32_t mc_read_zigzag32(mc_reader *r);
MC_API int64_t mc_read_zigzag64(mc_reader *r);

/* Length-prefixed strings. The returned pointer points into the input (not
 * NUL-terminated); *len receives the byte count. Returns NULL on failure.
 *   _u16be: Java NBT/writeUTF (unsigned 16-bit big-endian length)
 *   _u16le: Bedrock disk NBT
 *   _varint: Java protocol strings (VarInt length, checked against max_bytes)
 *   _uvarint: Bedrock network strings (unsigned varint length) */
MC_API const uint8_t *mc_read_str_u16be(mc_reader *r, size_t *len);
MC_API const uint8_t *mc_read_str_u16le(mc_reader *r, size_t *len);
MC_API const uint8_t *mc_read_str_varint(mc_reader *r, size_t max_bytes, size_t *len);
MC_API const uint8_t *mc_read_str_uvarint(mc_reader *r, size_t *len);

/* ---------------------------------------------------------------- buffer */

/* A growable output buffer. Zero-initialise it or use mc_buf_init. A failed
 * growth sets `failed`; further writes do nothing. */
typedef struct mc_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    const mc_allocator *alloc;
    bool failed;
} mc_buf;

/* Starts an empty buffer using `alloc` (NULL: the default allocator). */
MC_API void mc_buf_init(mc_buf *b, const mc_allocator *alloc);
/* Frees the buffer's memory and leaves it empty (and reusable). */
MC_API void mc_buf_free(mc_buf *b);
/* Makes room for `extra` more bytes; returns false (and sets failed) when
 * memory cannot be had. */
MC_API bool mc_buf_reserve_slow(mc_buf *b, size_t extra);
static inline bool mc_buf_reserve(mc_buf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (extra <= b->cap - b->len)
        return true;
    return mc_buf_reserve_slow(b, extra);
}
static inline bool mc_buf_ok(const mc_buf *b) { return !b->failed; }
/* Hands the bytes to the caller (who frees them with the buffer's allocator,
 * size *len... or *cap when given) and leaves the buffer empty. */
MC_API uint8_t *mc_buf_detach(mc_buf *b, size_t *len, size_t *cap);
/* Returns a pointer to `n` new bytes at the end (uninitialised), or NULL
 * when memory cannot be had (or n is 0 and the buffer has no memory yet). */
static inline uint8_t *mc_buf_extend(mc_buf *b, size_t n)
{
    if (!mc_buf_reserve(b, n) || !b->data) /* no NULL + 0 arithmetic */
        return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}
static inline void mc_buf_put(mc_buf *b, const void *src, size_t n)
{
    if (!n)
        return;
    uint8_t *p = mc_buf_extend(b, n);
    if (p)
        memcpy(p, src, n);
}
static inline void mc_buf_put_u8(mc_buf *b, uint8_t v)
{
    if (b->len < b->cap && !b->failed) { b->data[b->len++] = v; return; }
    uint8_t *p = mc_buf_extend(b, 1);
    if (p) *p = v;
}
#define MC__PUT_FIXED(name, type, n, store)                                   \
    static inline void mc_buf_put_##name(mc_buf *b, type v)                   \
    {                                                                         \
        uint8_t *p = mc_buf_extend(b, n);                                     \
        if (p) store(p, v);                                                   \
    }
MC__PUT_FIXED(u16be, uint16_t, 2, mc_store_u16be)
MC__PUT_FIXED(u16le, uint16_t, 2, mc_store_u16le)
MC__PUT_FIXED(u32be, uint32_t, 4, mc_store_u32be)
MC__PUT_FIXED(u32le, uint32_t, 4, mc_store_u32le)
MC__PUT_FIXED(u64be, uint64_t, 8, mc_store_u64be)
MC__PUT_FIXED(u64le, uint64_t, 8, mc_store_u64le)
#undef MC__PUT_FIXED
static inline void mc_buf_put_f32be(mc_buf *b, float v) { mc_buf_put_u32be(b, mc_f32_to_bits(v)); }
static inline void mc_buf_put_f32le(mc_buf *b, float v) { mc_buf_put_u32le(b, mc_f32_to_bits(v)); }
static inline void mc_buf_put_f64be(mc_buf *b, double v) { mc_buf_put_u64be(b, mc_f64_to_bits(v)); }
static inline void mc_buf_put_f64le(mc_buf *b, double v) { mc_buf_put_u64le(b, mc_f64_to_bits(v)); }

/* Varints (see the readers above for the encodings). */
/* Writes v's 1-10 bytes at p; returns how many. */
static inline size_t mc__uvarint_encode(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    p[n++] = (uint8_t)v;
    return n;
}
MC_API void mc_buf_put_uvarint64(mc_buf *b, uint64_t v);
static inline void mc_buf_put_uvarint32(mc_buf *b, uint32_t v)
{
    if (v < 0x80) { mc_buf_put_u8(b, (uint8_t)v); return; }
    if (b->cap - b->len >= 5 && !b->failed) {
        /* in place: palette ids are mostly 2-3 bytes, one per entry */
        b->len += mc__uvarint_encode(b->data + b->len, v);
        return;
    }
    mc_buf_put_uvarint64(b, v);
}
static inline void mc_buf_put_varint(mc_buf *b, int32_t v) { mc_buf_put_uvarint32(b, (uint32_t)v); }
static inline void mc_buf_put_varlong(mc_buf *b, int64_t v) { mc_buf_put_uvarint64(b, (uint64_t)v); }
static inline void mc_buf_put_zigzag32(mc_buf *b, int32_t v)
{
    mc_buf_put_uvarint32(b, ((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}
static inline void mc_buf_put_zigzag64(mc_buf *b, int64_t v)
{
    mc_buf_put_uvarint64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
/* Number of bytes mc_buf_put_uvarint64(v) writes (1..10). */
static inline size_t mc_uvarint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) { v >>= 7; n++; }
    return n;
}

/* Length-prefixed strings (the counterparts of mc_read_str_*). The _u16
 * forms fail (set `failed`, return false) when len > 65535. */
MC_API bool mc_buf_put_str_u16be(mc_buf *b, const void *s, size_t len);
MC_API bool mc_buf_put_str_u16le(mc_buf *b, const void *s, size_t len);
MC_API void mc_buf_put_str_varint(mc_buf *b, const void *s, size_t len);
MC_API void mc_buf_put_str_uvarint(mc_buf *b, const void *s, size_t len);

/* -------------------------------------------------------------- utilities */

/* Reads a whole file into memory allocated with `alloc` (NULL: default).
 * On success, data and len receive it (free with alloc->free(user, data, len)).
 * Regular files only (checked without blocking before anything is read): a
 * FIFO, device or folder is MC_ERR_IO "not a regular file". */
MC_API mc_status mc_read_file(const char *path, const mc_allocator *alloc,
                              uint8_t **data, size_t *len, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
