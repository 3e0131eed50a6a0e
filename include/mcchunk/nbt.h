/*
 * mcchunk/nbt.h: NBT, the tagged binary tree format of Minecraft, in every
 * encoding the game uses, as a tree you can read, change and write back.
 *
 * THE MODEL
 * A document (mc_nbt_doc) owns a tree of tags (mc_nbt_tag). All tags, keys
 * and decoded strings of a document live in one arena owned by the document:
 * nothing in a tree is freed on its own, everything goes with
 * mc_nbt_doc_reset() or mc_nbt_doc_free(). Tag pointers stay valid until
 * then, even while the tree is changed (a removed tag simply becomes
 * unreachable). A document is not thread-safe; different documents are
 * independent.
 *
 * The 13 tag types are those of the game (mc_nbt_type). A list has one
 * element type; an empty list may have element type MC_NBT_END.
 *
 * PARSING IS ZERO-COPY BY DEFAULT
 * mc_nbt_parse() makes one pass over the input and allocates no memory per
 * tag (tags come from the arena in blocks). Strings that need no decoding and
 * the bytes of byte/int/long arrays are NOT copied: the tree points into the
 * input. The caller must therefore keep the input alive and unchanged until
 * the document is reset or freed -- or pass MC_NBT_PARSE_COPY, which copies
 * the input into the arena first (one memcpy). Arrays keep their encoded byte
 * order (big-endian for Java input, little-endian for Bedrock disk input);
 * mc_nbt_get_array() exposes the raw bytes, mc_nbt_array_copy_*() converts.
 *
 * STRINGS
 * All strings and keys in the API are UTF-8, given as (pointer, byte count);
 * those returned are NOT NUL-terminated. Java encodings store Java's
 * "modified UTF-8" (NUL as C0 80, characters above U+FFFF as a surrogate
 * pair of 3-byte sequences); the parser turns it into real UTF-8 and the
 * writer turns it back, so a file round-trips byte for byte. A lone surrogate
 * (legal in Java) is kept as its 3-byte form. Bedrock strings are plain bytes
 * and are passed through unchanged.
 *
 * SAFETY
 * The parsers never trust a length: every count is checked against the bytes
 * that remain, nesting is limited (default 512, the game's limit), and the
 * memory one parse may take is bounded by a byte budget (mc_nbt_limits).
 * Errors come back as an mc_status plus an mc_error whose message names the
 * problem and its byte offset. Recursion in this module is bounded by the
 * depth limit; trees built through the API deeper than MC_NBT_MAX_DEPTH are
 * refused by the writers and printers (MC_ERR_LIMIT).
 */
#ifndef MCCHUNK_NBT_H
#define MCCHUNK_NBT_H

#include "mcchunk/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ types */

typedef enum mc_nbt_type {
    MC_NBT_END = 0,
    MC_NBT_BYTE = 1,
    MC_NBT_SHORT = 2,
    MC_NBT_INT = 3,
    MC_NBT_LONG = 4,
    MC_NBT_FLOAT = 5,
    MC_NBT_DOUBLE = 6,
    MC_NBT_BYTE_ARRAY = 7,
    MC_NBT_STRING = 8,
    MC_NBT_LIST = 9,
    MC_NBT_COMPOUND = 10,
    MC_NBT_INT_ARRAY = 11,
    MC_NBT_LONG_ARRAY = 12
} mc_nbt_type;

/* A stable name for a type: "byte", "short", ..., "long_array"; "?" for
 * values out of range. */
MC_API const char *mc_nbt_type_name(mc_nbt_type type);

/* The binary encodings. */
typedef enum mc_nbt_format {
    MC_NBT_AUTO = 0,            /* parse only: detect (see mc_nbt_detect) */
    MC_NBT_JAVA = 1,            /* big-endian; root = type id, u16 name, payload.
                                   Files, region chunks, network before 1.20.2 */
    MC_NBT_JAVA_NETWORK = 2,    /* big-endian; root = type id, payload (no name).
                                   Java network 1.20.2+ */
    MC_NBT_BEDROCK = 3,         /* little-endian, named root: LevelDB values,
                                   .mcstructure, subchunk palettes */
    MC_NBT_BEDROCK_LEVEL_DAT = 4, /* Bedrock level.dat: u32le storage version,
                                   u32le payload length, then MC_NBT_BEDROCK */
    MC_NBT_BEDROCK_NETWORK = 5  /* Bedrock network: named root; int/long as
                                   zigzag varints, string lengths uvarint,
                                   list/array lengths zigzag varint */
} mc_nbt_format;

/* A stable name: "auto", "java", "java-network", "bedrock",
 * "bedrock-level-dat", "bedrock-network". */
MC_API const char *mc_nbt_format_name(mc_nbt_format format);
/* The inverse of mc_nbt_format_name (also accepts "bedrock-level"); returns
 * MC_ERR_INVALID_ARG for an unknown name. */
MC_API mc_status mc_nbt_format_from_name(const char *name, mc_nbt_format *out);

/* The game's nesting limit, and the default of mc_nbt_limits.max_depth. */
#define MC_NBT_MAX_DEPTH 512
/* Default byte budget of one parse (memory for tags and decoded data). */
#define MC_NBT_DEFAULT_MAX_BYTES ((size_t)256 << 20)

/* Limits for hostile input. Zero-initialise for the defaults. */
typedef struct mc_nbt_limits {
    uint32_t max_depth; /* nesting of lists/compounds; 0: MC_NBT_MAX_DEPTH.
                           Values above MC_NBT_MAX_DEPTH are clamped to it. */
    size_t max_bytes;   /* memory one parse may allocate from the arena,
                           tags included; 0: MC_NBT_DEFAULT_MAX_BYTES */
} mc_nbt_limits;

typedef struct mc_nbt_doc mc_nbt_doc;
typedef struct mc_nbt_tag mc_nbt_tag;

/* --------------------------------------------------------------- document */

/* Creates an empty document (no root) whose memory comes from `alloc`
 * (NULL: the default allocator). Returns NULL when memory is short. Free it
 * with mc_nbt_doc_free. */
MC_API mc_nbt_doc *mc_nbt_doc_new(const mc_allocator *alloc);

/* Frees the document, its tree and its arena. NULL is allowed. Every tag
 * pointer of the document becomes invalid. */
MC_API void mc_nbt_doc_free(mc_nbt_doc *doc);

/* Empties the document (no root) but keeps its arena memory for the next
 * parse: parsing many payloads with one document allocates almost nothing.
 * Every tag pointer of the document becomes invalid. */
MC_API void mc_nbt_doc_reset(mc_nbt_doc *doc);

/* The root tag, or NULL when the document is empty. */
MC_API mc_nbt_tag *mc_nbt_doc_root(const mc_nbt_doc *doc);

/* The root's name (UTF-8, not NUL-terminated; "" when none). *len gets its
 * byte count (len may be NULL). */
MC_API const char *mc_nbt_doc_root_name(const mc_nbt_doc *doc, size_t *len);

/* Sets the root's name (copied). MC_ERR_INVALID_ARG without a root,
 * MC_ERR_RANGE when longer than 65535 bytes. */
MC_API mc_status mc_nbt_doc_set_root_name(mc_nbt_doc *doc, const char *name, size_t len);

/* Replaces the root with a new empty tag of `type` (zero / empty string /
 * empty container, list element type END) named "", and returns it (NULL
 * when memory is short or type is out of range). */
MC_API mc_nbt_tag *mc_nbt_doc_new_root(mc_nbt_doc *doc, mc_nbt_type type);

/* Makes `tag` (a detached tag of this document, e.g. from mc_nbt_copy) the
 * root. MC_ERR_INVALID_ARG if it is attached somewhere. */
MC_API mc_status mc_nbt_doc_set_root(mc_nbt_doc *doc, mc_nbt_tag *tag);

/* Bedrock level.dat storage version (the first u32 of the file): set by
 * parsing MC_NBT_BEDROCK_LEVEL_DAT, used when writing it (default 10). */
MC_API uint32_t mc_nbt_doc_header_version(const mc_nbt_doc *doc);
MC_API void mc_nbt_doc_set_header_version(mc_nbt_doc *doc, uint32_t version);

/* Bytes of arena memory the document holds (for budgets and statistics). */
MC_API size_t mc_nbt_doc_memory(const mc_nbt_doc *doc);

/* ---------------------------------------------------------------- parsing */

/* Flags for mc_nbt_parse_ex. */
enum {
    MC_NBT_PARSE_COPY = 1u << 0,   /* copy the input into the arena, so the
                                      tree does not reference the caller's bytes */
    MC_NBT_PARSE_PREFIX = 1u << 1  /* the input may continue after the root
                                      tag (several tags in a row, as in Bedrock
                                      palettes); *consumed says where it ended */
};

/* Parses one NBT root from data[0..len) in `format` into `doc`, replacing
 * what the document held (it is reset first). The whole input must be one
 * root tag. Without MC_NBT_PARSE_COPY the tree references `data` (see the
 * top of this file). `limits` may be NULL (defaults). On failure the
 * document is left empty and `err` (may be NULL) says what and where:
 *   MC_ERR_TRUNCATED  the input ended inside a tag
 *   MC_ERR_MALFORMED  a bad tag id, negative length, invalid modified
 *                     UTF-8, or bytes after the root
 *   MC_ERR_LIMIT      nesting deeper than max_depth, or the byte budget
 *   MC_ERR_NOMEM      the allocator failed
 * MC_NBT_AUTO detects the encoding (not compression: see mc_nbt_load). */
MC_API mc_status mc_nbt_parse(mc_nbt_doc *doc, const void *data, size_t len,
                              mc_nbt_format format, const mc_nbt_limits *limits,
                              mc_error *err);

/* mc_nbt_parse with flags (MC_NBT_PARSE_*) and `consumed` (may be NULL),
 * which receives the number of input bytes the root tag took. */
MC_API mc_status mc_nbt_parse_ex(mc_nbt_doc *doc, const void *data, size_t len,
                                 mc_nbt_format format, unsigned flags,
                                 const mc_nbt_limits *limits, size_t *consumed,
                                 mc_error *err);

/* A key filter for mc_nbt_parse_filtered: keep() is asked about every key
 * of the compounds nested at most max_depth deep (1: the root compound's
 * own keys; 2: also the keys of compounds directly inside it, and so on),
 * with `parent` the key of the compound holding it ("" for the root and
 * for compounds that are list elements). A value it declines is stepped
 * over: checked for structure like everything else (tag types, lengths
 * against the bytes left, negative counts, nesting) but left out of the
 * tree, so a reader that needs a few keys of a large document does not pay
 * for the rest. */
typedef struct mc_nbt_filter {
    unsigned max_depth;
    bool (*keep)(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                 size_t key_len);
    void *user;
    /* Optional (may be NULL): offered every value keep() declined, with its
     * tag type and where its payload starts in the input (in the parser's
     * copy with MC_NBT_PARSE_COPY), for a reader that reads those bytes
     * itself: it returns where the payload ends (at most `end`; the parse
     * goes on from there, so it must have checked the structure itself), or
     * NULL to have the value stepped over and checked as usual. */
    const uint8_t *(*take)(void *user, unsigned depth, const char *key, size_t key_len, unsigned type,
                           const uint8_t *value, const uint8_t *end);
    /* When set, keys and strings inside stepped-over values are checked as
     * modified UTF-8 too (Java formats), as a full parse checks them, so
     * that a reader may keep those bytes to parse later (mc_nbt_parse_into:
     * a compound's tags are contiguous, a plain key's tag starts 3 bytes
     * before it); otherwise stepping over checks the structure only. */
    bool check_text;
} mc_nbt_filter;

/* Parses data[0..len), the payload of a compound (named tags one after
 * another, then an end tag, which must be the last byte), in `format` and
 * appends those tags to `compound`, a compound of `doc` (a tag of the
 * document replaces a child of the same key). Unlike mc_nbt_parse the
 * document keeps everything it held. Without MC_NBT_PARSE_COPY the new tags
 * reference `data`. On failure (the errors of mc_nbt_parse) `compound` is
 * unchanged. Formats with fixed-size numbers only (see below). */
MC_API mc_status mc_nbt_parse_into(mc_nbt_doc *doc, mc_nbt_tag *compound, const void *data, size_t len,
                                   mc_nbt_format format, unsigned flags, mc_error *err);

/* mc_nbt_parse_ex with a key filter (NULL: none). Formats with fixed-size
 * numbers only (MC_NBT_JAVA, MC_NBT_JAVA_NETWORK, MC_NBT_BEDROCK,
 * MC_NBT_BEDROCK_LEVEL_DAT); MC_ERR_UNSUPPORTED for the varint ones. */
MC_API mc_status mc_nbt_parse_filtered(mc_nbt_doc *doc, const void *data, size_t len,
                                       mc_nbt_format format, unsigned flags,
                                       const mc_nbt_filter *filter, const mc_nbt_limits *limits,
                                       size_t *consumed, mc_error *err);

/* Works out which encoding uncompressed bytes are in, by checking each
 * encoding's framing and then parsing fully (level.dat header, Java, Bedrock,
 * Java network, Bedrock network, in that order of preference). Sets *format
 * and returns MC_OK, or MC_ERR_MALFORMED when no encoding reads the whole
 * input. */
MC_API mc_status mc_nbt_detect(const void *data, size_t len, mc_nbt_format *format);

/* --------------------------------------------------- compression (files) */

typedef enum mc_nbt_compression {
    MC_NBT_UNCOMPRESSED = 0,
    MC_NBT_GZIP = 1,
    MC_NBT_ZLIB = 2
} mc_nbt_compression;

/* "none", "gzip", "zlib". */
MC_API const char *mc_nbt_compression_name(mc_nbt_compression c);

/* Looks at the first bytes: gzip (1f 8b), zlib (0x78 with a valid header
 * check), else uncompressed. */
MC_API mc_nbt_compression mc_nbt_detect_compression(const void *data, size_t len);

/* Inflates gzip or zlib data (detected as above; uncompressed input is
 * copied) into a new buffer allocated with `alloc` (NULL: default), which
 * the caller frees with alloc->free(user, *out, *out_cap). Output larger
 * than `max_out` (0: 1 GiB) is MC_ERR_LIMIT; bad data MC_ERR_COMPRESSION.
 * Usable by any module (libdeflate underneath). `kind` may be NULL. */
MC_API mc_status mc_nbt_decompress(const void *data, size_t len, const mc_allocator *alloc,
                                   size_t max_out, uint8_t **out, size_t *out_len,
                                   size_t *out_cap, mc_nbt_compression *kind, mc_error *err);

/* Appends `data` compressed as `kind` (level 1..12, 0: 6) to `out`.
 * MC_NBT_UNCOMPRESSED appends it as is. MC_ERR_NOMEM on failure. */
MC_API mc_status mc_nbt_compress(const void *data, size_t len, mc_nbt_compression kind,
                                 int level, mc_buf *out, mc_error *err);

/* Reads an NBT file's bytes whatever the compression and encoding: inflates
 * gzip/zlib, then parses in `format` (MC_NBT_AUTO: detected). The document
 * owns a copy of the (inflated) input, so `data` may be freed afterwards.
 * `compression` and `detected` (may be NULL) receive what was found. */
MC_API mc_status mc_nbt_load(mc_nbt_doc *doc, const void *data, size_t len,
                             mc_nbt_format format, const mc_nbt_limits *limits,
                             mc_nbt_compression *compression, mc_nbt_format *detected,
                             mc_error *err);

/* ---------------------------------------------------------------- writing */

/* Appends the document's root (with its name where the format has one) to
 * `out` in `format` (not MC_NBT_AUTO). A tree parsed from some encoding and
 * written in the same one gives the same bytes. Fails with MC_ERR_INVALID_ARG
 * for an empty document, MC_ERR_RANGE for a string over 65535 bytes (Java,
 * Bedrock disk) or a count over INT32_MAX, MC_ERR_LIMIT for nesting beyond
 * MC_NBT_MAX_DEPTH, MC_ERR_MALFORMED for a string that is not UTF-8 written
 * in a Java encoding (Bedrock strings may be any bytes), MC_ERR_NOMEM when
 * `out` could not grow. On failure `out` is restored to its previous length. */
MC_API mc_status mc_nbt_write(const mc_nbt_doc *doc, mc_nbt_format format, mc_buf *out,
                              mc_error *err);

/* Writes any tag as a root named name[0..name_len) (ignored by
 * MC_NBT_JAVA_NETWORK). For MC_NBT_BEDROCK_LEVEL_DAT the header version is
 * 10. Otherwise as mc_nbt_write. */
MC_API mc_status mc_nbt_write_tag(const mc_nbt_tag *tag, const char *name, size_t name_len,
                                  mc_nbt_format format, mc_buf *out, mc_error *err);

/* -------------------------------------------------------- reading a tree */

/* The tag's type (MC_NBT_END for NULL). */
MC_API mc_nbt_type mc_nbt_tag_type(const mc_nbt_tag *tag);

/* The tag's key in its compound (UTF-8, not NUL-terminated; NULL for list
 * elements and detached tags). *len gets its byte count (len may be NULL). */
MC_API const char *mc_nbt_tag_key(const mc_nbt_tag *tag, size_t *len);

/* Number of children of a list or compound, elements of an array, bytes of
 * a string; 0 for anything else and NULL. */
MC_API size_t mc_nbt_count(const mc_nbt_tag *tag);

/* Element type of a list (MC_NBT_END for an empty untyped list, non-lists
 * and NULL). */
MC_API mc_nbt_type mc_nbt_list_type(const mc_nbt_tag *list);

/* Iteration over a list or compound, in stored order:
 *     for (mc_nbt_tag *c = mc_nbt_first(t); c; c = mc_nbt_next(c)) ...
 * mc_nbt_first returns NULL for an empty container or a non-container. Do
 * not remove the current child while iterating. */
MC_API mc_nbt_tag *mc_nbt_first(const mc_nbt_tag *container);
MC_API mc_nbt_tag *mc_nbt_next(const mc_nbt_tag *child);

/* The i-th element of a list (O(1) for lists as parsed, O(i) after the list
 * was changed), or NULL when out of range or not a list. */
MC_API mc_nbt_tag *mc_nbt_list_at(const mc_nbt_tag *list, size_t index);

/* Looks up `key` (NUL-terminated / key[0..len)) in a compound. Returns the
 * child, or NULL when absent or when `compound` is not a compound (or NULL,
 * so look-ups chain). If a parsed compound holds a key twice, the last one
 * wins, as in the game. */
MC_API mc_nbt_tag *mc_nbt_get(const mc_nbt_tag *compound, const char *key);
MC_API mc_nbt_tag *mc_nbt_get_n(const mc_nbt_tag *compound, const char *key, size_t len);

/* Follows a path such as "Level.Sections[3].Palette" or "a.\"dotted.key\"[0]"
 * from `tag`: dot-separated compound keys (quote a key with "..." when it
 * holds dots or brackets) and [N] list indexes. Array elements are not tags:
 * a path ends at the array (read it with mc_nbt_get_array). Returns the tag,
 * or NULL when any step is missing. */
MC_API mc_nbt_tag *mc_nbt_path(const mc_nbt_tag *tag, const char *path);

/* Typed getters. Each returns MC_OK and stores the value, MC_ERR_TYPE when
 * the tag has another type (nothing stored), MC_ERR_NOT_FOUND for NULL, so
 * mc_nbt_get_int(mc_nbt_get(c, "xPos"), &x) is a complete look-up. */
MC_API mc_status mc_nbt_get_byte(const mc_nbt_tag *tag, int8_t *out);
MC_API mc_status mc_nbt_get_short(const mc_nbt_tag *tag, int16_t *out);
MC_API mc_status mc_nbt_get_int(const mc_nbt_tag *tag, int32_t *out);
MC_API mc_status mc_nbt_get_long(const mc_nbt_tag *tag, int64_t *out);
MC_API mc_status mc_nbt_get_float(const mc_nbt_tag *tag, float *out);
MC_API mc_status mc_nbt_get_double(const mc_nbt_tag *tag, double *out);
/* Any of byte/short/int/long, widened (the game reads numbers leniently). */
MC_API mc_status mc_nbt_get_integer(const mc_nbt_tag *tag, int64_t *out);
/* Any numeric type as a double. */
MC_API mc_status mc_nbt_get_number(const mc_nbt_tag *tag, double *out);
/* A string's UTF-8 bytes (not NUL-terminated) and byte count. */
MC_API mc_status mc_nbt_get_string(const mc_nbt_tag *tag, const char **s, size_t *len);

/* Byte order of array bytes as stored. */
typedef enum mc_nbt_order {
    MC_NBT_ORDER_BE = 0,     /* as in Java input */
    MC_NBT_ORDER_LE = 1,     /* as in Bedrock disk input */
    MC_NBT_ORDER_NATIVE = 2  /* decoded/created arrays: the host's order */
} mc_nbt_order;

/* A read-only view of a byte/int/long array's storage. */
typedef struct mc_nbt_array {
    const uint8_t *data; /* count * elem_size bytes, any alignment */
    size_t count;        /* number of elements */
    size_t elem_size;    /* 1, 4 or 8 */
    mc_nbt_order order;  /* byte order of each element in data */
} mc_nbt_array;

/* Fills `out` with a view of an array tag of type `type` (MC_NBT_BYTE_ARRAY,
 * MC_NBT_INT_ARRAY or MC_NBT_LONG_ARRAY). For a Java-parsed long array
 * (e.g. block_states.data) data points straight at the input's big-endian
 * bytes. The view is valid while the tag is. MC_ERR_TYPE on another type,
 * MC_ERR_NOT_FOUND for NULL. */
MC_API mc_status mc_nbt_get_array(const mc_nbt_tag *tag, mc_nbt_type type, mc_nbt_array *out);

/* Element i of an array view, in host order (no bounds check: i < count). */
static inline int64_t mc_nbt_array_i64(const mc_nbt_array *a, size_t i)
{
    const uint8_t *p = a->data + i * 8;
    if (a->order == MC_NBT_ORDER_BE) return (int64_t)mc_load_u64be(p);
    if (a->order == MC_NBT_ORDER_LE) return (int64_t)mc_load_u64le(p);
    int64_t v; memcpy(&v, p, 8); return v;
}
static inline int32_t mc_nbt_array_i32(const mc_nbt_array *a, size_t i)
{
    const uint8_t *p = a->data + i * 4;
    if (a->order == MC_NBT_ORDER_BE) return (int32_t)mc_load_u32be(p);
    if (a->order == MC_NBT_ORDER_LE) return (int32_t)mc_load_u32le(p);
    int32_t v; memcpy(&v, p, 4); return v;
}

/* Copies an array's elements to `out` in host order. `cap` is the number of
 * elements `out` holds; MC_ERR_RANGE (nothing copied) when the array has
 * more. *count (may be NULL) receives the element count. MC_ERR_TYPE when
 * the tag is not an array of that element width. */
MC_API mc_status mc_nbt_array_copy_i8(const mc_nbt_tag *tag, int8_t *out, size_t cap, size_t *count);
MC_API mc_status mc_nbt_array_copy_i32(const mc_nbt_tag *tag, int32_t *out, size_t cap, size_t *count);
MC_API mc_status mc_nbt_array_copy_i64(const mc_nbt_tag *tag, int64_t *out, size_t cap, size_t *count);

/* -------------------------------------------------------- changing a tree */

/* The functions below take the document that owns the tags (tags of another
 * document are a caller bug). Keys and data are copied into the arena.
 * Where a function returns a tag, NULL means no memory (or a bad argument:
 * not a compound/list, type out of range, list of another element type). */

/* Puts a new tag of `type` (zero / empty) under `key` in a compound,
 * replacing any tag with that key (in its place), and returns it. */
MC_API mc_nbt_tag *mc_nbt_put(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                              size_t key_len, mc_nbt_type type);

/* Convenience forms with NUL-terminated keys: put and set in one step.
 * Return MC_OK, MC_ERR_TYPE when `compound` is not a compound, MC_ERR_NOMEM. */
MC_API mc_status mc_nbt_put_byte(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, int8_t v);
MC_API mc_status mc_nbt_put_short(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, int16_t v);
MC_API mc_status mc_nbt_put_int(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, int32_t v);
MC_API mc_status mc_nbt_put_long(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, int64_t v);
MC_API mc_status mc_nbt_put_float(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, float v);
MC_API mc_status mc_nbt_put_double(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, double v);
MC_API mc_status mc_nbt_put_string(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                                   const char *s, size_t len);
MC_API mc_status mc_nbt_put_byte_array(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                                       const int8_t *v, size_t count);
MC_API mc_status mc_nbt_put_int_array(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                                      const int32_t *v, size_t count);
MC_API mc_status mc_nbt_put_long_array(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                                       const int64_t *v, size_t count);
/* New empty compound / list (of element type `elem`, END = decided by the
 * first append) under key; returns it or NULL. */
MC_API mc_nbt_tag *mc_nbt_put_compound(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key);
MC_API mc_nbt_tag *mc_nbt_put_list(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                                   mc_nbt_type elem);

/* Appends a new tag of `type` to a list and returns it. The list's element
 * type must be `type`, unless the list is empty: then it becomes `type`. */
MC_API mc_nbt_tag *mc_nbt_list_append(mc_nbt_doc *doc, mc_nbt_tag *list, mc_nbt_type type);

/* Value setters for an existing tag of the right type (MC_ERR_TYPE
 * otherwise, nothing changed). */
MC_API mc_status mc_nbt_set_byte(mc_nbt_tag *tag, int8_t v);
MC_API mc_status mc_nbt_set_short(mc_nbt_tag *tag, int16_t v);
MC_API mc_status mc_nbt_set_int(mc_nbt_tag *tag, int32_t v);
MC_API mc_status mc_nbt_set_long(mc_nbt_tag *tag, int64_t v);
MC_API mc_status mc_nbt_set_float(mc_nbt_tag *tag, float v);
MC_API mc_status mc_nbt_set_double(mc_nbt_tag *tag, double v);
MC_API mc_status mc_nbt_set_string(mc_nbt_doc *doc, mc_nbt_tag *tag, const char *s, size_t len);
/* Replace an array's contents (copied, stored in host order). `tag` must be
 * an array of the matching type. */
MC_API mc_status mc_nbt_set_byte_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int8_t *v, size_t count);
MC_API mc_status mc_nbt_set_int_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int32_t *v, size_t count);
MC_API mc_status mc_nbt_set_long_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int64_t *v, size_t count);
/* Replace a long array's contents with `count` big-endian 8-byte elements
 * (copied in bulk; what chunk encoders hand over for packed block data). */
MC_API mc_status mc_nbt_set_long_array_be(mc_nbt_doc *doc, mc_nbt_tag *tag, const void *be_bytes,
                                          size_t count);

/* Removes `key` from a compound (every entry with that key). MC_OK, or
 * MC_ERR_NOT_FOUND when absent, MC_ERR_TYPE when not a compound. */
MC_API mc_status mc_nbt_remove(mc_nbt_tag *compound, const char *key, size_t key_len);
/* Removes the index-th element of a list. MC_ERR_RANGE when out of range. */
MC_API mc_status mc_nbt_list_remove(mc_nbt_tag *list, size_t index);

/* Deep-copies `src` (of any document, the same one included) into `dst` as
 * a detached tag (no key, no parent) and returns it, or NULL when memory is
 * short or the tree is deeper than MC_NBT_MAX_DEPTH. Arrays and strings are
 * copied, so the copy does not reference the source document or its input. */
MC_API mc_nbt_tag *mc_nbt_copy(mc_nbt_doc *dst, const mc_nbt_tag *src);

/* Attach a detached tag of `doc` (from mc_nbt_copy) under a key of a
 * compound (replacing that key) or at the end of a list (the element types
 * must agree as for mc_nbt_list_append). MC_ERR_INVALID_ARG when `child` is
 * attached already, MC_ERR_TYPE on a type mismatch. */
MC_API mc_status mc_nbt_attach(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,
                               size_t key_len, mc_nbt_tag *child);
MC_API mc_status mc_nbt_list_attach(mc_nbt_doc *doc, mc_nbt_tag *list, mc_nbt_tag *child);

/* Deep copy of a whole document (root name and header version included)
 * into a new self-contained document. NULL when memory is short. */
MC_API mc_nbt_doc *mc_nbt_doc_clone(const mc_nbt_doc *src, const mc_allocator *alloc);

/* Deep equality: same types, same values (floats compared bit for bit, so
 * NaN equals the same NaN), lists in order, compounds as key sets (any
 * order). Keys of a and b themselves are not compared. Trees deeper than
 * MC_NBT_MAX_DEPTH compare unequal. */
MC_API bool mc_nbt_equal(const mc_nbt_tag *a, const mc_nbt_tag *b);

/* ------------------------------------------------------------ SNBT / JSON */

/* Flags for the printers. */
enum {
    MC_NBT_PRINT_PRETTY = 1u << 0  /* newlines and 4-space indentation */
};

/* Appends `tag` as SNBT (the game's text form: {a:1b,b:[I;1,2],c:"x"}) to
 * `out`. Compact unless MC_NBT_PRINT_PRETTY. The text parses back with
 * mc_snbt_parse to an equal tree (except NaN/infinite floats, which SNBT
 * cannot express). MC_ERR_LIMIT beyond MC_NBT_MAX_DEPTH, MC_ERR_NOMEM. */
MC_API mc_status mc_nbt_to_snbt(const mc_nbt_tag *tag, unsigned flags, mc_buf *out);

/* Appends `tag` as JSON: compounds as objects, lists and arrays as arrays,
 * numbers as numbers (longs with all digits; NaN/infinity as null), strings
 * as strings (invalid UTF-8 replaced by U+FFFD). Types are not kept. */
MC_API mc_status mc_nbt_to_json(const mc_nbt_tag *tag, unsigned flags, mc_buf *out);

/* Parses SNBT text[0..len) into `doc` (replacing its content) the way the
 * game does since 1.21.5: compounds with quoted or unquoted keys (a trailing
 * comma allowed), lists (a list whose elements differ in type is stored as
 * the game stores it: a list of compounds, each non-compound element
 * wrapped as {"": element}), typed arrays [B;..] [I;..] [L;..] of integers
 * (no suffix: the array's type; narrower suffixes allowed), quoted strings
 * with ' or " and backslash escapes (\\ \' \" \n \t \r \b \f \s \xHH
 * \uHHHH \UHHHHHHHH; not \N{name}), true/false in any case as bytes, the
 * operations bool(x) and uuid("...") (an int array of 4), and other
 * unquoted words as strings -- but a word may not start with 0-9 . + -,
 * which begin numbers:
 *   integers  decimal (no leading zeros), 0x hex, 0b binary, '_' between
 *             digits, suffix b s i l (either case; none: int) optionally
 *             after u (unsigned) or s (signed) -- unsigned only widens the
 *             range (240ub is -16b); without u/s decimal is signed, hex and
 *             binary unsigned (0xFFFFFFFF is -1). Out of range is an error.
 *   floats    1.5 .5 1. 1e3 1.5E-2, '_' between digits, suffix f or d
 *             (none: double); an overflow to infinity is an error, and there
 *             is no NaN or infinity literal.
 * Deliberately more lenient than the game: empty keys ({"":1}) are
 * accepted, since NBT has them and our printer writes them.
 * The root may be any value; only whitespace may follow it. On failure:
 * MC_ERR_MALFORMED with the offset of the bad character, MC_ERR_LIMIT,
 * MC_ERR_NOMEM. The tree does not reference `text`. */
MC_API mc_status mc_snbt_parse(mc_nbt_doc *doc, const char *text, size_t len,
                               const mc_nbt_limits *limits, mc_error *err);

#ifdef __cplusplus
}
#endif
#endif
