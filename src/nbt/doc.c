/*
 * doc.c: the NBT document -- its arena, and the tree API (look-ups, typed
 * getters, changes, deep copy, equality, paths).
 *
 * Memory: a document owns a chain of arena blocks. Everything in the tree
 * (tags, copied keys, decoded strings, created arrays) is bump-allocated
 * there and released all at once. mc_nbt_doc_reset keeps one block big
 * enough for everything the document held, so a document reused for a
 * stream of payloads (a region file, a benchmark) stops allocating after the
 * first few.
 */
#include <stdlib.h>

#include "nbt/doc.h"

#define ARENA_MIN_BLOCK ((size_t)16 << 10)

/* ------------------------------------------------------------------ arena */

static uint8_t *block_end(mc__arena_block *b) { return (uint8_t *)(b + 1) + b->size; }

/* Hands [cur, cur + min(free, budget)) to the fast path. */
static void reserve(mc_nbt_doc *doc)
{
    if (!doc->block) {
        doc->cur = doc->end = NULL;
        return;
    }
    size_t room = (size_t)(block_end(doc->block) - doc->cur);
    size_t take = room < doc->budget_left ? room : doc->budget_left;
    doc->end = doc->cur + take;
    if (doc->budget_left != SIZE_MAX)
        doc->budget_left -= take;
}

void mc__arena_budget(mc_nbt_doc *doc, size_t budget)
{
    /* What was reserved but not used is simply reserved anew. */
    doc->budget_left = budget;
    doc->budget_hit = false;
    reserve(doc);
}

void *mc__arena_alloc_slow(mc_nbt_doc *doc, size_t size)
{
    if (doc->block && doc->end < block_end(doc->block)) {
        /* The current block has room, but the budget does not. */
        doc->budget_hit = true;
        return NULL;
    }
    if (size > doc->budget_left) {
        doc->budget_hit = true;
        return NULL;
    }
    doc->budget_hit = false;
    /* Grow geometrically so a big tree needs few blocks. */
    size_t want = doc->total < ARENA_MIN_BLOCK ? ARENA_MIN_BLOCK : doc->total;
    if (want < size)
        want = size;
    if (want > SIZE_MAX / 2)
        return NULL;
    mc__arena_block *nb = doc->alloc.alloc(doc->alloc.user, sizeof(mc__arena_block) + want);
    if (!nb)
        return NULL;
    nb->prev = doc->block;
    nb->size = want;
    nb->used = 0;
    doc->block = nb;
    doc->total += want;
    doc->cur = (uint8_t *)(nb + 1);
    reserve(doc);
    void *p = doc->cur;
    doc->cur += size;
    return p;
}

void *mc__arena_dup(mc_nbt_doc *doc, const void *src, size_t n)
{
    void *p = mc__arena_alloc(doc, n ? n : 1);
    if (p && n)
        memcpy(p, src, n);
    return p;
}

static void arena_free_all(mc_nbt_doc *doc)
{
    mc__arena_block *b = doc->block;
    while (b) {
        mc__arena_block *prev = b->prev;
        doc->alloc.free(doc->alloc.user, b, sizeof(mc__arena_block) + b->size);
        b = prev;
    }
    doc->block = NULL;
    doc->cur = doc->end = NULL;
    doc->total = 0;
}

mc_nbt_doc *mc_nbt_doc_new(const mc_allocator *alloc)
{
    alloc = mc_alloc_or_default(alloc);
    mc_nbt_doc *doc = alloc->alloc(alloc->user, sizeof *doc);
    if (!doc)
        return NULL;
    memset(doc, 0, sizeof *doc);
    doc->alloc = *alloc;
    doc->budget_left = SIZE_MAX;
    doc->header_version = 10;
    return doc;
}

void mc_nbt_doc_free(mc_nbt_doc *doc)
{
    if (!doc)
        return;
    arena_free_all(doc);
    mc_allocator a = doc->alloc;
    a.free(a.user, doc, sizeof *doc);
}

void mc_nbt_doc_reset(mc_nbt_doc *doc)
{
    if (!doc)
        return;
    doc->root = NULL;
    doc->budget_left = SIZE_MAX;
    doc->budget_hit = false;
    if (doc->block && doc->block->prev) {
        /* Several blocks: replace them by one that holds them all. */
        size_t total = doc->total;
        arena_free_all(doc);
        mc__arena_block *nb = doc->alloc.alloc(doc->alloc.user, sizeof(mc__arena_block) + total);
        if (nb) {
            nb->prev = NULL;
            nb->size = total;
            nb->used = 0;
            doc->block = nb;
            doc->total = total;
        }
    }
    doc->cur = doc->block ? (uint8_t *)(doc->block + 1) : NULL;
    reserve(doc);
}

size_t mc_nbt_doc_memory(const mc_nbt_doc *doc) { return doc ? doc->total : 0; }

mc_nbt_tag *mc_nbt_doc_root(const mc_nbt_doc *doc) { return doc ? doc->root : NULL; }

const char *mc_nbt_doc_root_name(const mc_nbt_doc *doc, size_t *len)
{
    const mc_nbt_tag *r = doc ? doc->root : NULL;
    if (len)
        *len = r ? r->name_len : 0;
    return r && r->name ? (const char *)r->name : "";
}

mc_status mc_nbt_doc_set_root_name(mc_nbt_doc *doc, const char *name, size_t len)
{
    if (!doc || !doc->root)
        return MC_ERR_INVALID_ARG;
    if (len > 65535)
        return MC_ERR_RANGE;
    const uint8_t *copy = mc__arena_dup(doc, name, len);
    if (!copy)
        return MC_ERR_NOMEM;
    doc->root->name = copy;
    doc->root->name_len = (uint16_t)len;
    return MC_OK;
}

mc_nbt_tag *mc__tag_new(mc_nbt_doc *doc, mc_nbt_type type)
{
    if ((unsigned)type > MC_NBT_LONG_ARRAY)
        return NULL;
    mc_nbt_tag *t = mc__arena_alloc(doc, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->type = (uint8_t)type;
    if (type == MC_NBT_BYTE_ARRAY || type == MC_NBT_INT_ARRAY || type == MC_NBT_LONG_ARRAY)
        t->aux = MC_NBT_ORDER_NATIVE;
    return t;
}

mc_nbt_tag *mc_nbt_doc_new_root(mc_nbt_doc *doc, mc_nbt_type type)
{
    if (!doc)
        return NULL;
    mc_nbt_tag *t = mc__tag_new(doc, type);
    if (!t)
        return NULL;
    t->aux |= AUX_ATTACHED;
    if (doc->root)
        doc->root->aux &= (uint8_t)~AUX_ATTACHED;
    doc->root = t;
    return t;
}

mc_status mc_nbt_doc_set_root(mc_nbt_doc *doc, mc_nbt_tag *tag)
{
    if (!doc || !tag || (tag->aux & AUX_ATTACHED))
        return MC_ERR_INVALID_ARG;
    if (doc->root)
        doc->root->aux &= (uint8_t)~AUX_ATTACHED;
    tag->aux |= AUX_ATTACHED;
    tag->name = NULL;
    tag->name_len = 0;
    doc->root = tag;
    return MC_OK;
}

uint32_t mc_nbt_doc_header_version(const mc_nbt_doc *doc) { return doc ? doc->header_version : 0; }
void mc_nbt_doc_set_header_version(mc_nbt_doc *doc, uint32_t version)
{
    if (doc)
        doc->header_version = version;
}

/* ------------------------------------------------------------------ names */

const char *mc_nbt_type_name(mc_nbt_type type)
{
    static const char *const names[] = {"end", "byte", "short", "int", "long", "float", "double",
                                        "byte_array", "string", "list", "compound", "int_array",
                                        "long_array"};
    return (unsigned)type <= MC_NBT_LONG_ARRAY ? names[type] : "?";
}

static const struct {
    const char *name;
    mc_nbt_format format;
} format_names[] = {
    {"auto", MC_NBT_AUTO},
    {"java", MC_NBT_JAVA},
    {"java-network", MC_NBT_JAVA_NETWORK},
    {"bedrock", MC_NBT_BEDROCK},
    {"bedrock-level-dat", MC_NBT_BEDROCK_LEVEL_DAT},
    {"bedrock-network", MC_NBT_BEDROCK_NETWORK},
    {"bedrock-level", MC_NBT_BEDROCK_LEVEL_DAT},
};

const char *mc_nbt_format_name(mc_nbt_format format)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (format_names[i].format == format)
            return format_names[i].name;
    return "?";
}

mc_status mc_nbt_format_from_name(const char *name, mc_nbt_format *out)
{
    for (size_t i = 0; name && i < sizeof format_names / sizeof format_names[0]; i++)
        if (!strcmp(format_names[i].name, name)) {
            *out = format_names[i].format;
            return MC_OK;
        }
    return MC_ERR_INVALID_ARG;
}

/* --------------------------------------------------------------- reading */

mc_nbt_type mc_nbt_tag_type(const mc_nbt_tag *tag) { return tag ? (mc_nbt_type)tag->type : MC_NBT_END; }

const char *mc_nbt_tag_key(const mc_nbt_tag *tag, size_t *len)
{
    if (len)
        *len = tag && tag->name ? tag->name_len : 0;
    return tag && tag->name ? (const char *)tag->name : NULL;
}

size_t mc_nbt_count(const mc_nbt_tag *tag)
{
    if (!tag)
        return 0;
    switch (tag->type) {
    case MC_NBT_STRING: case MC_NBT_LIST: case MC_NBT_COMPOUND:
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
        return tag->count;
    default:
        return 0;
    }
}

mc_nbt_type mc_nbt_list_type(const mc_nbt_tag *list)
{
    return list && list->type == MC_NBT_LIST ? mc__list_elem(list) : MC_NBT_END;
}

mc_nbt_tag *mc_nbt_first(const mc_nbt_tag *c)
{
    if (!c || (c->type != MC_NBT_LIST && c->type != MC_NBT_COMPOUND) || !c->count)
        return NULL;
    return c->v.first;
}

mc_nbt_tag *mc_nbt_next(const mc_nbt_tag *child) { return child ? child->next : NULL; }

mc_nbt_tag *mc_nbt_list_at(const mc_nbt_tag *list, size_t index)
{
    if (!list || list->type != MC_NBT_LIST || index >= list->count)
        return NULL;
    if (list->aux & AUX_CONTIG)
        return list->v.first + index;
    mc_nbt_tag *c = list->v.first;
    while (index-- && c)
        c = c->next;
    return c;
}

mc_nbt_tag *mc_nbt_get_n(const mc_nbt_tag *compound, const char *key, size_t len)
{
    if (!compound || compound->type != MC_NBT_COMPOUND || !key)
        return NULL;
    mc_nbt_tag *found = NULL;
    /* Scan to the end: a duplicated key resolves to the last, as in the game. */
    for (mc_nbt_tag *c = compound->v.first; c; c = c->next)
        if (c->name_len == len && (len == 0 || !memcmp(c->name, key, len)))
            found = c;
    return found;
}

mc_nbt_tag *mc_nbt_get(const mc_nbt_tag *compound, const char *key)
{
    return key ? mc_nbt_get_n(compound, key, strlen(key)) : NULL;
}

mc_nbt_tag *mc_nbt_path(const mc_nbt_tag *tag, const char *path)
{
    const mc_nbt_tag *cur = tag;
    const char *p = path;
    if (!p)
        return NULL;
    while (cur && *p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            char *end;
            unsigned long long idx = strtoull(p + 1, &end, 10);
            if (end == p + 1 || *end != ']')
                return NULL;
            cur = mc_nbt_list_at(cur, (size_t)idx);
            p = end + 1;
            continue;
        }
        const char *k = p;
        size_t klen;
        if (*p == '"') {
            k = ++p;
            while (*p && *p != '"')
                p++;
            if (!*p)
                return NULL;
            klen = (size_t)(p - k);
            p++;
        } else {
            while (*p && *p != '.' && *p != '[')
                p++;
            klen = (size_t)(p - k);
        }
        cur = mc_nbt_get_n(cur, k, klen);
    }
    return (mc_nbt_tag *)cur;
}

static mc_status check_type(const mc_nbt_tag *tag, mc_nbt_type type)
{
    if (!tag)
        return MC_ERR_NOT_FOUND;
    return tag->type == type ? MC_OK : MC_ERR_TYPE;
}

#define GETTER(name, ctype, TYPE, expr)                                       \
    mc_status mc_nbt_get_##name(const mc_nbt_tag *tag, ctype *out)            \
    {                                                                         \
        mc_status s = check_type(tag, TYPE);                                  \
        if (s == MC_OK)                                                       \
            *out = (expr);                                                    \
        return s;                                                             \
    }
GETTER(byte, int8_t, MC_NBT_BYTE, (int8_t)tag->v.bits)
GETTER(short, int16_t, MC_NBT_SHORT, (int16_t)tag->v.bits)
GETTER(int, int32_t, MC_NBT_INT, (int32_t)tag->v.bits)
GETTER(long, int64_t, MC_NBT_LONG, (int64_t)tag->v.bits)
GETTER(float, float, MC_NBT_FLOAT, mc_bits_to_f32((uint32_t)tag->v.bits))
GETTER(double, double, MC_NBT_DOUBLE, mc_bits_to_f64(tag->v.bits))
#undef GETTER

mc_status mc_nbt_get_integer(const mc_nbt_tag *tag, int64_t *out)
{
    if (!tag)
        return MC_ERR_NOT_FOUND;
    if (tag->type < MC_NBT_BYTE || tag->type > MC_NBT_LONG)
        return MC_ERR_TYPE;
    *out = (int64_t)tag->v.bits;
    return MC_OK;
}

mc_status mc_nbt_get_number(const mc_nbt_tag *tag, double *out)
{
    if (!tag)
        return MC_ERR_NOT_FOUND;
    switch (tag->type) {
    case MC_NBT_BYTE: case MC_NBT_SHORT: case MC_NBT_INT: case MC_NBT_LONG:
        *out = (double)(int64_t)tag->v.bits;
        return MC_OK;
    case MC_NBT_FLOAT:
        *out = mc_bits_to_f32((uint32_t)tag->v.bits);
        return MC_OK;
    case MC_NBT_DOUBLE:
        *out = mc_bits_to_f64(tag->v.bits);
        return MC_OK;
    default:
        return MC_ERR_TYPE;
    }
}

mc_status mc_nbt_get_string(const mc_nbt_tag *tag, const char **s, size_t *len)
{
    mc_status st = check_type(tag, MC_NBT_STRING);
    if (st == MC_OK) {
        *s = tag->count ? (const char *)tag->v.ptr : "";
        if (len)
            *len = tag->count;
    }
    return st;
}

static size_t array_elem_size(mc_nbt_type t)
{
    return t == MC_NBT_BYTE_ARRAY ? 1 : t == MC_NBT_INT_ARRAY ? 4 : t == MC_NBT_LONG_ARRAY ? 8 : 0;
}

mc_status mc_nbt_get_array(const mc_nbt_tag *tag, mc_nbt_type type, mc_nbt_array *out)
{
    if (!array_elem_size(type))
        return MC_ERR_INVALID_ARG;
    mc_status s = check_type(tag, type);
    if (s != MC_OK)
        return s;
    static const uint8_t empty[8];
    out->data = tag->count ? tag->v.ptr : empty;
    out->count = tag->count;
    out->elem_size = array_elem_size(type);
    out->order = (mc_nbt_order)(tag->aux & AUX_VALUE);
    return MC_OK;
}

static mc_status array_copy(const mc_nbt_tag *tag, size_t esize, void *out, size_t cap, size_t *count)
{
    if (!tag)
        return MC_ERR_NOT_FOUND;
    if (array_elem_size((mc_nbt_type)tag->type) != esize)
        return MC_ERR_TYPE;
    if (count)
        *count = tag->count;
    if (tag->count > cap)
        return MC_ERR_RANGE;
    size_t n = tag->count;
    if (!n)
        return MC_OK;
    mc_nbt_order order = (mc_nbt_order)(tag->aux & AUX_VALUE);
    const uint8_t *src = tag->v.ptr;
    bool swap = esize > 1 && order != MC_NBT_ORDER_NATIVE &&
                (order == MC_NBT_ORDER_BE) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
    if (!swap) {
        memcpy(out, src, n * esize);
    } else if (esize == 4) {
        uint32_t *o = out;
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, src + i * 4, 4);
            o[i] = __builtin_bswap32(v);
        }
    } else {
        uint64_t *o = out;
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, src + i * 8, 8);
            o[i] = __builtin_bswap64(v);
        }
    }
    return MC_OK;
}

mc_status mc_nbt_array_copy_i8(const mc_nbt_tag *tag, int8_t *out, size_t cap, size_t *count)
{
    return array_copy(tag, 1, out, cap, count);
}
mc_status mc_nbt_array_copy_i32(const mc_nbt_tag *tag, int32_t *out, size_t cap, size_t *count)
{
    return array_copy(tag, 4, out, cap, count);
}
mc_status mc_nbt_array_copy_i64(const mc_nbt_tag *tag, int64_t *out, size_t cap, size_t *count)
{
    return array_copy(tag, 8, out, cap, count);
}

/* -------------------------------------------------------------- changing */

static mc_nbt_tag *last_child(const mc_nbt_tag *c)
{
    if (!c->count)
        return NULL;
    if (c->aux & AUX_CONTIG)
        return c->v.first + (c->count - 1);
    mc_nbt_tag *t = c->v.first;
    while (t->next)
        t = t->next;
    return t;
}

/* Links a detached `child` into compound `c` under key (already in the
 * arena), replacing the first entry with that key in its place and dropping
 * any later duplicates. */
static void compound_link(mc_nbt_tag *c, const uint8_t *key, uint16_t klen, mc_nbt_tag *child)
{
    child->name = key;
    child->name_len = klen;
    child->aux |= AUX_ATTACHED;
    child->next = NULL;
    mc_nbt_tag **link = &c->v.first;
    if (!c->count)
        link = &c->v.first;
    bool placed = false;
    mc_nbt_tag *t = c->count ? c->v.first : NULL;
    while (t) {
        if (t->name_len == klen && (klen == 0 || !memcmp(t->name, key, klen))) {
            t->aux &= (uint8_t)~AUX_ATTACHED;
            if (!placed) {
                child->next = t->next;
                *link = child;
                placed = true;
                link = &child->next;
            } else {
                *link = t->next;
                c->count--;
            }
            t = *link;
            continue;
        }
        link = &t->next;
        t = t->next;
    }
    if (!placed) {
        *link = child;
        c->count++;
    }
}

static bool key_ok(const char *key, size_t len) { return (key || !len) && len <= 65535; }

mc_nbt_tag *mc_nbt_put(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, size_t key_len,
                       mc_nbt_type type)
{
    if (!doc || !compound || compound->type != MC_NBT_COMPOUND || !key_ok(key, key_len) ||
        type == MC_NBT_END)
        return NULL;
    mc_nbt_tag *t = mc__tag_new(doc, type);
    const uint8_t *k = t ? mc__arena_dup(doc, key, key_len) : NULL;
    if (!k)
        return NULL;
    compound_link(compound, k, (uint16_t)key_len, t);
    return t;
}

mc_nbt_tag *mc_nbt_list_append(mc_nbt_doc *doc, mc_nbt_tag *list, mc_nbt_type type)
{
    if (!doc || !list || list->type != MC_NBT_LIST || type == MC_NBT_END || list->count >= INT32_MAX)
        return NULL;
    if (mc__list_elem(list) != type && !(list->count == 0))
        return NULL;
    mc_nbt_tag *t = mc__tag_new(doc, type);
    if (!t)
        return NULL;
    mc_nbt_list_attach(doc, list, t);
    return t;
}

mc_status mc_nbt_list_attach(mc_nbt_doc *doc, mc_nbt_tag *list, mc_nbt_tag *child)
{
    if (!doc || !list || !child || (child->aux & AUX_ATTACHED) || child->type == MC_NBT_END)
        return MC_ERR_INVALID_ARG;
    if (list->type != MC_NBT_LIST)
        return MC_ERR_TYPE;
    if (list->count && mc__list_elem(list) != child->type)
        return MC_ERR_TYPE;
    if (list->count >= INT32_MAX)
        return MC_ERR_RANGE;
    mc_nbt_tag *last = last_child(list);
    child->name = NULL;
    child->name_len = 0;
    child->next = NULL;
    child->aux |= AUX_ATTACHED;
    if (last)
        last->next = child;
    else
        list->v.first = child;
    list->aux = (uint8_t)((list->aux & AUX_ATTACHED) | child->type);
    list->count++;
    return MC_OK;
}

mc_status mc_nbt_attach(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, size_t key_len,
                        mc_nbt_tag *child)
{
    if (!doc || !compound || !child || (child->aux & AUX_ATTACHED) || child->type == MC_NBT_END ||
        !key_ok(key, key_len))
        return MC_ERR_INVALID_ARG;
    if (compound->type != MC_NBT_COMPOUND)
        return MC_ERR_TYPE;
    const uint8_t *k = mc__arena_dup(doc, key, key_len);
    if (!k)
        return MC_ERR_NOMEM;
    compound_link(compound, k, (uint16_t)key_len, child);
    return MC_OK;
}

#define PUTTER(name, ctype, TYPE, bitsexpr)                                                \
    mc_status mc_nbt_put_##name(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,    \
                                ctype v)                                                   \
    {                                                                                      \
        if (!compound || compound->type != MC_NBT_COMPOUND)                                \
            return MC_ERR_TYPE;                                                            \
        mc_nbt_tag *t = mc_nbt_put(doc, compound, key, key ? strlen(key) : 0, TYPE);       \
        if (!t)                                                                            \
            return MC_ERR_NOMEM;                                                           \
        t->v.bits = (bitsexpr);                                                            \
        return MC_OK;                                                                      \
    }                                                                                      \
    mc_status mc_nbt_set_##name(mc_nbt_tag *tag, ctype v)                                  \
    {                                                                                      \
        mc_status s = check_type(tag, TYPE);                                               \
        if (s == MC_OK)                                                                    \
            tag->v.bits = (bitsexpr);                                                      \
        return s;                                                                          \
    }
PUTTER(byte, int8_t, MC_NBT_BYTE, (uint64_t)(int64_t)v)
PUTTER(short, int16_t, MC_NBT_SHORT, (uint64_t)(int64_t)v)
PUTTER(int, int32_t, MC_NBT_INT, (uint64_t)(int64_t)v)
PUTTER(long, int64_t, MC_NBT_LONG, (uint64_t)v)
PUTTER(float, float, MC_NBT_FLOAT, mc_f32_to_bits(v))
PUTTER(double, double, MC_NBT_DOUBLE, mc_f64_to_bits(v))
#undef PUTTER

mc_status mc_nbt_set_string(mc_nbt_doc *doc, mc_nbt_tag *tag, const char *s, size_t len)
{
    mc_status st = check_type(tag, MC_NBT_STRING);
    if (st != MC_OK)
        return st;
    if ((!s && len) || len > UINT32_MAX)
        return MC_ERR_INVALID_ARG;
    const uint8_t *p = mc__arena_dup(doc, s, len);
    if (!p)
        return MC_ERR_NOMEM;
    tag->v.ptr = p;
    tag->count = (uint32_t)len;
    return MC_OK;
}

static mc_status set_array(mc_nbt_doc *doc, mc_nbt_tag *tag, mc_nbt_type type, const void *v,
                           size_t count, mc_nbt_order order)
{
    mc_status st = check_type(tag, type);
    if (st != MC_OK)
        return st;
    if ((!v && count) || count > INT32_MAX)
        return MC_ERR_INVALID_ARG;
    const uint8_t *p = mc__arena_dup(doc, v, count * array_elem_size(type));
    if (!p)
        return MC_ERR_NOMEM;
    tag->v.ptr = p;
    tag->count = (uint32_t)count;
    tag->aux = (uint8_t)((tag->aux & ~AUX_VALUE) | order);
    return MC_OK;
}

mc_status mc_nbt_set_byte_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int8_t *v, size_t count)
{
    return set_array(doc, tag, MC_NBT_BYTE_ARRAY, v, count, MC_NBT_ORDER_NATIVE);
}
mc_status mc_nbt_set_int_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int32_t *v, size_t count)
{
    return set_array(doc, tag, MC_NBT_INT_ARRAY, v, count, MC_NBT_ORDER_NATIVE);
}
mc_status mc_nbt_set_long_array(mc_nbt_doc *doc, mc_nbt_tag *tag, const int64_t *v, size_t count)
{
    return set_array(doc, tag, MC_NBT_LONG_ARRAY, v, count, MC_NBT_ORDER_NATIVE);
}
mc_status mc_nbt_set_long_array_be(mc_nbt_doc *doc, mc_nbt_tag *tag, const void *be, size_t count)
{
    return set_array(doc, tag, MC_NBT_LONG_ARRAY, be, count, MC_NBT_ORDER_BE);
}

mc_status mc_nbt_put_string(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, const char *s,
                            size_t len)
{
    if (!compound || compound->type != MC_NBT_COMPOUND)
        return MC_ERR_TYPE;
    mc_nbt_tag *t = mc_nbt_put(doc, compound, key, key ? strlen(key) : 0, MC_NBT_STRING);
    return t ? mc_nbt_set_string(doc, t, s, len) : MC_ERR_NOMEM;
}

#define PUT_ARRAY(name, ctype, TYPE)                                                        \
    mc_status mc_nbt_put_##name(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key,     \
                                const ctype *v, size_t count)                               \
    {                                                                                       \
        if (!compound || compound->type != MC_NBT_COMPOUND)                                 \
            return MC_ERR_TYPE;                                                             \
        mc_nbt_tag *t = mc_nbt_put(doc, compound, key, key ? strlen(key) : 0, TYPE);        \
        return t ? set_array(doc, t, TYPE, v, count, MC_NBT_ORDER_NATIVE) : MC_ERR_NOMEM;   \
    }
PUT_ARRAY(byte_array, int8_t, MC_NBT_BYTE_ARRAY)
PUT_ARRAY(int_array, int32_t, MC_NBT_INT_ARRAY)
PUT_ARRAY(long_array, int64_t, MC_NBT_LONG_ARRAY)
#undef PUT_ARRAY

mc_nbt_tag *mc_nbt_put_compound(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key)
{
    return mc_nbt_put(doc, compound, key, key ? strlen(key) : 0, MC_NBT_COMPOUND);
}

mc_nbt_tag *mc_nbt_put_list(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *key, mc_nbt_type elem)
{
    if ((unsigned)elem > MC_NBT_LONG_ARRAY)
        return NULL;
    mc_nbt_tag *t = mc_nbt_put(doc, compound, key, key ? strlen(key) : 0, MC_NBT_LIST);
    if (t)
        t->aux = (uint8_t)((t->aux & ~AUX_VALUE) | elem);
    return t;
}

mc_status mc_nbt_remove(mc_nbt_tag *compound, const char *key, size_t key_len)
{
    if (!compound)
        return MC_ERR_NOT_FOUND;
    if (compound->type != MC_NBT_COMPOUND)
        return MC_ERR_TYPE;
    bool found = false;
    mc_nbt_tag **link = &compound->v.first;
    mc_nbt_tag *t = compound->count ? compound->v.first : NULL;
    while (t) {
        if (t->name_len == key_len && (key_len == 0 || !memcmp(t->name, key, key_len))) {
            *link = t->next;
            t->aux &= (uint8_t)~AUX_ATTACHED;
            t->next = NULL;
            t->name = NULL; /* detached tags have no key */
            t->name_len = 0;
            compound->count--;
            found = true;
            t = *link;
            continue;
        }
        link = &t->next;
        t = t->next;
    }
    return found ? MC_OK : MC_ERR_NOT_FOUND;
}

mc_status mc_nbt_list_remove(mc_nbt_tag *list, size_t index)
{
    if (!list)
        return MC_ERR_NOT_FOUND;
    if (list->type != MC_NBT_LIST)
        return MC_ERR_TYPE;
    if (index >= list->count)
        return MC_ERR_RANGE;
    mc_nbt_tag **link = &list->v.first;
    for (size_t i = 0; i < index; i++)
        link = &(*link)->next;
    mc_nbt_tag *t = *link;
    *link = t->next;
    t->next = NULL;
    t->aux &= (uint8_t)~AUX_ATTACHED;
    list->count--;
    list->aux &= (uint8_t)~AUX_CONTIG;
    return MC_OK;
}

/* ------------------------------------------------------------- deep copy */

/* Fills t with a copy of a value that has no children (a number, string or
 * array); every field of t is written. Kept inline: most tags a chunk's extra
 * NBT copies are such leaves of small compounds (entities, ticks), so the
 * copy of a compound's children takes no call for them. */
static inline bool copy_leaf(mc_nbt_doc *dst, mc_nbt_tag *t, const mc_nbt_tag *src)
{
    t->type = src->type;
    t->aux = (uint8_t)(src->aux & AUX_VALUE);
    t->name_len = 0;
    t->name = NULL;
    t->next = NULL;
    t->count = 0;
    if (src->type <= MC_NBT_DOUBLE) {
        t->v.bits = src->v.bits;
        return true;
    }
    size_t n = (size_t)src->count * (src->type == MC_NBT_STRING ? 1 : array_elem_size((mc_nbt_type)src->type));
    t->v.ptr = mc__arena_dup(dst, src->count ? src->v.ptr : NULL, n);
    if (!t->v.ptr)
        return false;
    t->count = src->count;
    return true;
}

static bool is_container(const mc_nbt_tag *t)
{
    return t->type == MC_NBT_LIST || t->type == MC_NBT_COMPOUND;
}

/* Fills t (zeroed) with a copy of src's value. The children of a list or
 * compound are carved as one array (the chunk reader copies thousands of
 * small tags per chunk), in one pass over the source; only containers
 * recurse. */
static bool copy_value(mc_nbt_doc *dst, mc_nbt_tag *t, const mc_nbt_tag *src, int depth)
{
    if (depth > MC_NBT_MAX_DEPTH)
        return false;
    if (!is_container(src))
        return copy_leaf(dst, t, src);
    t->type = src->type;
    t->aux = (uint8_t)(src->aux & AUX_VALUE);
    const size_t n = src->count;
    t->count = 0;
    if (!n || !src->v.first)
        return true;
    if (depth + 1 > MC_NBT_MAX_DEPTH)
        return false; /* the children, leaves too, would be past the limit */
    mc_nbt_tag *kids = mc__arena_alloc(dst, n * sizeof *kids);
    if (!kids)
        return false;
    size_t i = 0;
    for (const mc_nbt_tag *c = src->v.first; c && i < n; c = c->next, i++) {
        mc_nbt_tag *k = &kids[i];
        if (is_container(c)) {
            memset(k, 0, sizeof *k);
            if (!copy_value(dst, k, c, depth + 1))
                return false;
        } else if (!copy_leaf(dst, k, c)) {
            return false;
        }
        k->aux |= AUX_ATTACHED;
        if (c->name) {
            uint8_t *nb = mc__arena_alloc(dst, c->name_len ? c->name_len : 1);
            if (!nb)
                return false;
            memcpy(nb, c->name, c->name_len);
            k->name = nb;
            k->name_len = c->name_len;
        }
        if (i)
            kids[i - 1].next = k;
    }
    t->count = (uint32_t)i;
    t->v.first = kids;
    if (src->type == MC_NBT_LIST)
        t->aux |= AUX_CONTIG;
    return true;
}

static mc_nbt_tag *copy_rec(mc_nbt_doc *dst, const mc_nbt_tag *src, int depth)
{
    mc_nbt_tag *t = mc__tag_new(dst, (mc_nbt_type)src->type);
    return t && copy_value(dst, t, src, depth) ? t : NULL;
}

mc_nbt_tag *mc_nbt_copy(mc_nbt_doc *dst, const mc_nbt_tag *src)
{
    if (!dst || !src)
        return NULL;
    return copy_rec(dst, src, 0);
}

mc_nbt_doc *mc_nbt_doc_clone(const mc_nbt_doc *src, const mc_allocator *alloc)
{
    if (!src)
        return NULL;
    mc_nbt_doc *d = mc_nbt_doc_new(alloc);
    if (!d)
        return NULL;
    d->header_version = src->header_version;
    if (src->root) {
        mc_nbt_tag *r = mc_nbt_copy(d, src->root);
        size_t nlen;
        const char *name = mc_nbt_doc_root_name(src, &nlen);
        if (!r || mc_nbt_doc_set_root(d, r) != MC_OK || mc_nbt_doc_set_root_name(d, name, nlen) != MC_OK) {
            mc_nbt_doc_free(d);
            return NULL;
        }
    }
    return d;
}

/* -------------------------------------------------------------- equality */

static bool equal_rec(const mc_nbt_tag *a, const mc_nbt_tag *b, int depth);

static bool array_equal(const mc_nbt_tag *a, const mc_nbt_tag *b)
{
    size_t es = array_elem_size((mc_nbt_type)a->type);
    if ((a->aux & AUX_VALUE) == (b->aux & AUX_VALUE) || es == 1)
        return !a->count || !memcmp(a->v.ptr, b->v.ptr, a->count * es);
    mc_nbt_array va = {0}, vb = {0};
    mc_nbt_get_array(a, (mc_nbt_type)a->type, &va);
    mc_nbt_get_array(b, (mc_nbt_type)b->type, &vb);
    for (size_t i = 0; i < va.count; i++)
        if (es == 4 ? mc_nbt_array_i32(&va, i) != mc_nbt_array_i32(&vb, i)
                    : mc_nbt_array_i64(&va, i) != mc_nbt_array_i64(&vb, i))
            return false;
    return true;
}

static bool compound_equal(const mc_nbt_tag *a, const mc_nbt_tag *b, int depth)
{
    /* Fast path: same keys in the same order (what a round trip gives). */
    const mc_nbt_tag *x = a->v.first, *y = b->v.first;
    while (x && y && x->name_len == y->name_len && !memcmp(x->name, y->name, x->name_len)) {
        if (!equal_rec(x, y, depth + 1))
            return false;
        x = x->next;
        y = y->next;
    }
    if (!x && !y)
        return true;
    /* Slow path for the rest: every key of a (as seen by look-up) in b,
     * and the same number of distinct keys. */
    size_t na = 0, nb = 0;
    for (const mc_nbt_tag *c = x; c; c = c->next) {
        const mc_nbt_tag *ca = mc_nbt_get_n(a, (const char *)c->name, c->name_len);
        if (ca != c)
            continue; /* a shadowed duplicate */
        na++;
        const mc_nbt_tag *cb = mc_nbt_get_n(b, (const char *)c->name, c->name_len);
        if (!cb || !equal_rec(c, cb, depth + 1))
            return false;
    }
    for (const mc_nbt_tag *c = y; c; c = c->next)
        if (mc_nbt_get_n(b, (const char *)c->name, c->name_len) == c)
            nb++;
    return na == nb;
}

static bool equal_rec(const mc_nbt_tag *a, const mc_nbt_tag *b, int depth)
{
    if (depth > MC_NBT_MAX_DEPTH || a->type != b->type)
        return false;
    switch (a->type) {
    case MC_NBT_STRING:
        return a->count == b->count && (!a->count || !memcmp(a->v.ptr, b->v.ptr, a->count));
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
        return a->count == b->count && array_equal(a, b);
    case MC_NBT_LIST: {
        if (a->count != b->count)
            return false;
        if (a->count && mc__list_elem(a) != mc__list_elem(b))
            return false;
        const mc_nbt_tag *x = a->count ? a->v.first : NULL, *y = b->count ? b->v.first : NULL;
        for (; x && y; x = x->next, y = y->next)
            if (!equal_rec(x, y, depth + 1))
                return false;
        return !x && !y;
    }
    case MC_NBT_COMPOUND:
        if (!a->count || !b->count)
            return !a->count && !b->count;
        return compound_equal(a, b, depth);
    case MC_NBT_END:
        return true;
    default:
        return a->v.bits == b->v.bits;
    }
}

bool mc_nbt_equal(const mc_nbt_tag *a, const mc_nbt_tag *b)
{
    if (!a || !b)
        return a == b;
    return equal_rec(a, b, 0);
}
