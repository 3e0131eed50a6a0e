/*
 * nbt_internal.h: the representation behind mcchunk/nbt.h, shared by the
 * files of the NBT module (doc.c, parse.c, write.c, mutf8.c, snbt.c).
 *
 * A tag is a fixed 32-byte record carved from the document's arena:
 *
 *     type | aux | name_len | count      8 bytes
 *     name                               8 bytes  (key in the parent compound)
 *     v: bits | ptr | first              8 bytes  (value, string/array bytes, children)
 *     next                               8 bytes  (next sibling)
 *
 * Children of a list or compound form a singly linked list through `next`.
 * The parser knows a list's length before reading it, so it allocates the
 * elements as one array: such a list carries AUX_CONTIG and indexes in O(1).
 * Any change to the list clears the flag (the links stay valid either way).
 *
 * Numbers keep their bit pattern in v.bits (integers sign-extended, floats as
 * their IEEE bits) so that NaN payloads survive a round trip.
 */
#ifndef MC_NBT_INTERNAL_H
#define MC_NBT_INTERNAL_H

#include "mcchunk/nbt.h"

struct mc_nbt_tag {
    uint8_t type;
    uint8_t aux;       /* low nibble: list element type / array byte order; AUX_* flags */
    uint16_t name_len;
    uint32_t count;    /* string bytes, array elements, children */
    const uint8_t *name;
    union {
        uint64_t bits;
        const uint8_t *ptr;
        mc_nbt_tag *first;
    } v;
    mc_nbt_tag *next;
};

#define AUX_VALUE 0x0f     /* list element type or mc_nbt_order */
#define AUX_CONTIG 0x10    /* list: children are first[0..count) in memory */
#define AUX_ATTACHED 0x20  /* the tag is a child of a container or the root */

typedef struct mc__arena_block {
    struct mc__arena_block *prev;
    size_t size; /* usable bytes after the header */
    size_t used;
} mc__arena_block;

struct mc_nbt_doc {
    mc_allocator alloc;
    mc__arena_block *block;  /* current block (newest) */
    uint8_t *cur, *end;      /* free space of the current block: [cur, end) is
                                what may be handed out without a check; during
                                a parse `end` is also capped by the budget */
    size_t total;            /* bytes of all blocks */
    size_t budget_left;      /* budget not yet reserved into [cur, end) */
    bool budget_hit;         /* the last failed allocation was the budget */
    mc_nbt_tag *root;
    uint32_t header_version;
};

static inline mc_nbt_type mc__list_elem(const mc_nbt_tag *t) { return (mc_nbt_type)(t->aux & AUX_VALUE); }

/* ---- modified UTF-8 (mutf8.c) */

/* Checks Java modified UTF-8 s[0..n). Returns 0 when it is valid and equal to
 * its UTF-8 form (no conversion needed), 1 when valid but needing conversion
 * (C0 80 or surrogate pairs), -1 when invalid (then *bad is the offset of the
 * first bad byte). */
int mc__mutf8_check(const uint8_t *s, size_t n, size_t *bad);
/* Converts valid modified UTF-8 to UTF-8 into out (capacity n suffices);
 * returns the output length. */
size_t mc__mutf8_to_utf8(const uint8_t *s, size_t n, uint8_t *out);
/* Byte length of the modified UTF-8 form of UTF-8 (or WTF-8) s[0..n). */
size_t mc__utf8_to_mutf8_len(const uint8_t *s, size_t n);
/* True when s[0..n) is already its own modified UTF-8 form (no NUL and no
 * 4-byte sequences). */
bool mc__utf8_is_mutf8(const uint8_t *s, size_t n);
/* 0 when s[0..n) is UTF-8 in which surrogates may appear alone as 3-byte
 * sequences (what our trees hold), -1 otherwise. */
int mc__utf8_check_wtf8(const uint8_t *s, size_t n);
/* Writes the modified UTF-8 form; returns bytes written. */
size_t mc__utf8_to_mutf8(const uint8_t *s, size_t n, uint8_t *out);
/* Decodes one UTF-8 (or WTF-8) code point at s[0..n); returns its length
 * (1 with *cp = 0xFFFD for an invalid byte). */
size_t mc__utf8_next(const uint8_t *s, size_t n, uint32_t *cp);
/* Appends code point cp as UTF-8 (surrogates as 3 bytes); returns length. */
size_t mc__utf8_put(uint8_t *out, uint32_t cp);

/* ---- writers/printers depth guard */
#define MC__WRITE_MAX_DEPTH MC_NBT_MAX_DEPTH

#endif
