/*
 * stats.c: see stats.h. Both tables are open-addressing hash tables with
 * linear probing and power-of-two sizes, grown at 70% load: the counter's
 * keys are four numbers; the result's names and groups are interned
 * strings, its totals (group 0) found in an array by name id and kind,
 * the other groups' entries through an index of packed (group, kind,
 * name) ids. Output sorts the result's entries: groups by their order (y
 * numerically) then name, kinds in a fixed order, names by strcmp -- so
 * the same counts always print the same bytes, whichever threads, shards
 * or merges made them.
 */
#include "world/stats.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "world/json.h"

static const char *const kind_keys[STAT_KINDS] = {"blocks", "biomes", "block_entities", "entities"};
static const char *const kind_csv[STAT_KINDS] = {"block", "biome", "block_entity", "entity"};

const char *world_stat_by_name(world_stat_by by)
{
    switch (by) {
    case STAT_BY_Y: return "y";
    case STAT_BY_BIOME: return "biome";
    case STAT_BY_DIMENSION: return "dimension";
    case STAT_BY_CHUNK: return "chunk";
    default: return NULL;
    }
}

bool world_stat_by_parse(const char *s, world_stat_by *out)
{
    for (int b = STAT_BY_Y; b <= STAT_BY_CHUNK; b++)
        if (!strcmp(s, world_stat_by_name((world_stat_by)b))) {
            *out = (world_stat_by)b;
            return true;
        }
    return false;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* (XXH3: names are tens of bytes; a byte-at-a-time hash cost as much as
 * the rest of a look-up) */
static uint64_t hash_bytes(const char *s, size_t n)
{
    return XXH3_64bits(s, n);
}

/* ------------------------------------------------------ string index */

/* Strings and their ids (the order they were added); slots hold id + 1.
 * Each string's hash is kept (growing rehashes none, a probe compares
 * hashes before bytes) and the strings are copied into blocks that never
 * move (one malloc per block, not per string: str[] stays valid). */
typedef struct string_index {
    char **str;
    size_t *len;
    uint64_t *hash;
    size_t count, cap;
    uint32_t *slots;
    size_t nslots;
    char **blocks;        /* the string blocks, the last being filled */
    size_t nblocks, block_used, block_size;
} string_index;

#define INDEX_BLOCK 65536u

static bool index_grow(string_index *x)
{
    size_t n = x->nslots ? x->nslots * 2 : 64;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < x->count; i++) {
        size_t k = x->hash[i] & (n - 1);
        while (s[k])
            k = (k + 1) & (n - 1);
        s[k] = (uint32_t)i + 1;
    }
    free(x->slots);
    x->slots = s;
    x->nslots = n;
    return true;
}

/* Room for n bytes in the last block (a new block when full: one of its
 * own for a string longer than a block). */
static char *index_copy(string_index *x, const char *s, size_t n)
{
    if (!x->nblocks || x->block_used + n + 1 > x->block_size) {
        const size_t size = n + 1 > INDEX_BLOCK ? n + 1 : INDEX_BLOCK;
        char **b = realloc(x->blocks, (x->nblocks + 1) * sizeof *b);
        if (!b)
            return NULL;
        x->blocks = b;
        if (!(b[x->nblocks] = malloc(size)))
            return NULL;
        x->nblocks++;
        x->block_used = 0;
        x->block_size = size;
    }
    char *d = x->blocks[x->nblocks - 1] + x->block_used;
    memcpy(d, s, n);
    d[n] = 0;
    x->block_used += n + 1;
    return d;
}

/* The id of s (added when new); UINT32_MAX when out of memory. */
static uint32_t index_get(string_index *x, const char *s, size_t n, bool *added)
{
    if (added)
        *added = false;
    if ((x->count + 1) * 10 > x->nslots * 7 && !index_grow(x))
        return UINT32_MAX;
    const uint64_t h = hash_bytes(s, n);
    size_t k = h & (x->nslots - 1);
    for (; x->slots[k]; k = (k + 1) & (x->nslots - 1)) {
        uint32_t id = x->slots[k] - 1;
        if (x->hash[id] == h && x->len[id] == n && !memcmp(x->str[id], s, n))
            return id;
    }
    if (x->count == x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        char **str = realloc(x->str, cap * sizeof *str);
        if (str)
            x->str = str;
        size_t *len = str ? realloc(x->len, cap * sizeof *len) : NULL;
        if (len)
            x->len = len;
        uint64_t *hash = len ? realloc(x->hash, cap * sizeof *hash) : NULL;
        if (!hash)
            return UINT32_MAX;
        x->hash = hash;
        x->cap = cap;
    }
    char *d = index_copy(x, s, n);
    if (!d)
        return UINT32_MAX;
    x->str[x->count] = d;
    x->len[x->count] = n;
    x->hash[x->count] = h;
    x->slots[k] = (uint32_t)++x->count;
    if (added)
        *added = true;
    return (uint32_t)x->count - 1;
}

static void index_free(string_index *x)
{
    for (size_t i = 0; i < x->nblocks; i++)
        free(x->blocks[i]);
    free(x->blocks);
    free(x->str);
    free(x->len);
    free(x->hash);
    free(x->slots);
    memset(x, 0, sizeof *x);
}

/* ------------------------------------------------------------ counter */

typedef struct counter_entry {
    const mc_registry *reg;   /* NULL: free slot */
    uint64_t group;
    uint32_t value;
    uint32_t kind;
    uint64_t n;
} counter_entry;

struct world_stat_counter {
    counter_entry *slots;
    size_t nslots, used;
    string_index names;
};

/* The registry of string kinds (any non-NULL marker). */
static const char string_kind_marker;
#define STRING_REG ((const mc_registry *)&string_kind_marker)

world_stat_counter *world_stat_counter_new(void)
{
    return calloc(1, sizeof(world_stat_counter));
}

void world_stat_counter_free(world_stat_counter *c)
{
    if (!c)
        return;
    free(c->slots);
    index_free(&c->names);
    free(c);
}

static uint64_t counter_hash(const mc_registry *reg, uint64_t group, uint32_t kind, uint32_t value)
{
    return mix64((uint64_t)(uintptr_t)reg * 31 ^ mix64(group + 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)kind << 32 | value));
}

static bool counter_grow(world_stat_counter *c)
{
    size_t n = c->nslots ? c->nslots * 2 : 1024;
    counter_entry *s = calloc(n, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < c->nslots; i++) {
        const counter_entry *e = &c->slots[i];
        if (!e->reg)
            continue;
        size_t k = counter_hash(e->reg, e->group, e->kind, e->value) & (n - 1);
        while (s[k].reg)
            k = (k + 1) & (n - 1);
        s[k] = *e;
    }
    free(c->slots);
    c->slots = s;
    c->nslots = n;
    return true;
}

bool world_stat_count(world_stat_counter *c, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                      uint64_t n)
{
    if (kind >= STAT_BLOCK_ENTITY)
        reg = STRING_REG;
    if ((c->used + 1) * 10 > c->nslots * 7 && !counter_grow(c))
        return false;
    size_t k = counter_hash(reg, group, (uint32_t)kind, value) & (c->nslots - 1);
    for (;; k = (k + 1) & (c->nslots - 1)) {
        counter_entry *e = &c->slots[k];
        if (!e->reg) {
            *e = (counter_entry){reg, group, value, (uint32_t)kind, n};
            c->used++;
            return true;
        }
        if (e->reg == reg && e->group == group && e->value == value && e->kind == (uint32_t)kind) {
            e->n += n;
            return true;
        }
    }
}

uint32_t world_stat_intern(world_stat_counter *c, const char *s, size_t len)
{
    return index_get(&c->names, s, len, NULL);
}

const char *world_stat_string(const world_stat_counter *c, uint32_t id)
{
    return id < c->names.count ? c->names.str[id] : NULL;
}

void world_stat_each(const world_stat_counter *c,
                     void (*fn)(void *user, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                                const char *name, uint64_t n),
                     void *user)
{
    for (size_t i = 0; i < c->nslots; i++) {
        const counter_entry *e = &c->slots[i];
        if (!e->reg)
            continue;
        bool str = e->kind >= STAT_BLOCK_ENTITY;
        fn(user, str ? NULL : e->reg, e->group, (int)e->kind, e->value,
           str && e->value < c->names.count ? c->names.str[e->value] : NULL, e->n);
    }
}

/* ------------------------------------------------------------- result */

typedef struct result_entry {
    uint32_t group;          /* index into groups; 0 = the totals */
    uint32_t kind;
    uint32_t name;           /* index into names */
    uint64_t n;
} result_entry;

struct world_stat_result {
    world_stat_by by;
    uint64_t chunks, regions, volume;
    string_index groups;     /* [0] = "" (the totals) */
    int64_t *group_order;
    string_index names;
    string_index keys;       /* (group, kind, name) packed as ids, of groups past 0 */
    uint32_t *key_entry;     /* [key id]: its entry */
    size_t key_entry_cap;
    uint32_t *totals;        /* [name * STAT_KINDS + kind]: entry + 1 of group 0 (0: none yet) */
    size_t totals_cap;       /* in names */
    result_entry *entries;
    size_t count, cap;
    bool broken;             /* an add ran out of memory: a key may lack its entry */
};

world_stat_result *world_stat_result_new(world_stat_by by)
{
    world_stat_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->by = by;
    bool added;
    if (index_get(&r->groups, "", 0, &added) != 0) {
        world_stat_result_free(r);
        return NULL;
    }
    r->group_order = calloc(1, sizeof *r->group_order);
    if (!r->group_order) {
        world_stat_result_free(r);
        return NULL;
    }
    return r;
}

void world_stat_result_free(world_stat_result *r)
{
    if (!r)
        return;
    index_free(&r->groups);
    index_free(&r->names);
    index_free(&r->keys);
    free(r->totals);
    free(r->key_entry);
    free(r->group_order);
    free(r->entries);
    free(r);
}

world_stat_by world_stat_result_by(const world_stat_result *r)
{
    return r->by;
}

void world_stat_add_meta(world_stat_result *r, uint64_t chunks, uint64_t regions, uint64_t volume)
{
    r->chunks += chunks;
    r->regions += regions;
    r->volume += volume;
}

uint64_t world_stat_chunks(const world_stat_result *r) { return r->chunks; }
uint64_t world_stat_regions(const world_stat_result *r) { return r->regions; }
uint64_t world_stat_volume(const world_stat_result *r) { return r->volume; }
size_t world_stat_size(const world_stat_result *r) { return r->count; }

/* The entry of (group 0, kind, name id nm) through r->totals (an array
 * by name id: the totals take half of all adds, or all of them without
 * --by, and the index of packed ids cost a hash of them each); when there
 * is none yet *added and r->count (the caller appends it and records it).
 * UINT32_MAX when out of memory. */
static uint32_t total_entry(world_stat_result *r, uint32_t kind, uint32_t nm, bool *added)
{
    if (nm >= r->totals_cap) {
        size_t cap = r->totals_cap ? r->totals_cap * 2 : 1024;
        while (cap <= nm)
            cap *= 2;
        uint32_t *t = realloc(r->totals, cap * STAT_KINDS * sizeof *t);
        if (!t)
            return UINT32_MAX;
        memset(t + r->totals_cap * STAT_KINDS, 0, (cap - r->totals_cap) * STAT_KINDS * sizeof *t);
        r->totals = t;
        r->totals_cap = cap;
    }
    const uint32_t at = r->totals[(size_t)nm * STAT_KINDS + kind];
    *added = at == 0;
    return at ? at - 1 : (uint32_t)r->count;
}

/* The same for a group past 0, through r->keys and r->key_entry. */
static uint32_t group_entry(world_stat_result *r, uint32_t g, uint32_t kind, uint32_t nm, bool *added)
{
    const uint32_t key[3] = {g, kind, nm};
    const uint32_t k = index_get(&r->keys, (const char *)key, sizeof key, added);
    if (k == UINT32_MAX)
        return UINT32_MAX;
    if (!*added)
        return r->key_entry[k];
    if (k >= r->key_entry_cap) {
        const size_t cap = r->key_entry_cap ? r->key_entry_cap * 2 : 1024;
        uint32_t *t = realloc(r->key_entry, cap * sizeof *t);
        if (!t)
            return UINT32_MAX; /* (the key stays without its entry: r->broken) */
        r->key_entry = t;
        r->key_entry_cap = cap;
    }
    r->key_entry[k] = (uint32_t)r->count;
    return (uint32_t)r->count;
}

/* The id of group text `group` (NULL: the totals, 0), made when new with
 * its order; UINT32_MAX when out of memory. */
static uint32_t group_id(world_stat_result *r, const char *group, int64_t order)
{
    bool added;
    uint32_t g = group ? index_get(&r->groups, group, strlen(group), &added) : 0;
    if (g == UINT32_MAX)
        return UINT32_MAX;
    if (group && added) {
        int64_t *o = realloc(r->group_order, r->groups.count * sizeof *o);
        if (!o)
            return UINT32_MAX;
        r->group_order = o;
        o[g] = order;
    }
    return g;
}

/* Adds n to the entry of (group g, kind, name id nm), made when new. After
 * one add ran out of memory every later one fails (a key recorded then may
 * have no entry to add into). */
static bool add_entry(world_stat_result *r, uint32_t g, int kind, uint32_t nm, uint64_t n)
{
    if (r->broken)
        return false;
    bool added;
    const bool total = g == 0 && kind >= 0 && kind < STAT_KINDS;
    const uint32_t e = total ? total_entry(r, (uint32_t)kind, nm, &added) : group_entry(r, g, (uint32_t)kind, nm, &added);
    if (e == UINT32_MAX)
        return !(r->broken = true);
    if (added) {
        if (r->count == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 256;
            result_entry *en = realloc(r->entries, cap * sizeof *en);
            if (!en)
                return !(r->broken = true);
            r->entries = en;
            r->cap = cap;
        }
        r->entries[r->count++] = (result_entry){g, (uint32_t)kind, nm, 0};
        if (total)
            r->totals[(size_t)nm * STAT_KINDS + (uint32_t)kind] = (uint32_t)r->count;
    }
    r->entries[e].n += n;
    return true;
}

bool world_stat_add(world_stat_result *r, const char *group, int64_t order, int kind, const char *name, uint64_t n)
{
    const uint32_t g = group_id(r, group, order);
    if (g == UINT32_MAX)
        return false;
    uint32_t nm = index_get(&r->names, name, strlen(name), NULL);
    return nm != UINT32_MAX && add_entry(r, g, kind, nm, n);
}

uint32_t world_stat_name_id(world_stat_result *r, const char *name, size_t len)
{
    return index_get(&r->names, name, len, NULL);
}

bool world_stat_add_id(world_stat_result *r, const char *group, int64_t order, int kind, uint32_t name, uint64_t n)
{
    const uint32_t g = group_id(r, group, order);
    return g != UINT32_MAX && name < r->names.count && add_entry(r, g, kind, name, n);
}

/* -------------------------------------------------------------- output */

/* One entry with what sorting looks at, so that the comparators need no
 * context (qsort has none). */
typedef struct print_row {
    int64_t order;
    const char *group, *name;
    uint32_t g, kind;
    uint64_t n;
    size_t name_len;
} print_row;

static int compare_rows(const print_row *p, const print_row *q, bool by_count)
{
    if (p->g != q->g) {
        if (p->order != q->order)
            return p->order < q->order ? -1 : 1;
        return strcmp(p->group, q->group);
    }
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    if (by_count && p->n != q->n)
        return p->n > q->n ? -1 : 1;
    return strcmp(p->name, q->name);
}

/* (the rows are sorted as pointers: qsort moves 8 bytes per step rather
 * than a whole row, which cost more than the comparisons) */
static int compare_by_name(const void *a, const void *b)
{
    return compare_rows(*(const print_row *const *)a, *(const print_row *const *)b, false);
}

static int compare_by_count(const void *a, const void *b)
{
    return compare_rows(*(const print_row *const *)a, *(const print_row *const *)b, true);
}

/* The entries in print order (free()); NULL when out of memory. The
 * totals (group 0, order INT64_MIN) come first. */
static print_row *sorted(const world_stat_result *r, bool by_count)
{
    const size_t n = r->count ? r->count : 1;
    print_row *rows = malloc(n * sizeof *rows), *out = malloc(n * sizeof *out);
    const print_row **order = malloc(n * sizeof *order);
    if (!rows || !out || !order) {
        free(rows);
        free(out);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        const result_entry *e = &r->entries[i];
        rows[i] = (print_row){e->group ? r->group_order[e->group] : INT64_MIN, r->groups.str[e->group],
                              r->names.str[e->name], e->group, e->kind, e->n, r->names.len[e->name]};
        order[i] = &rows[i];
    }
    qsort(order, r->count, sizeof *order, by_count ? compare_by_count : compare_by_name);
    for (size_t i = 0; i < r->count; i++)
        out[i] = *order[i];
    free(rows);
    free(order);
    return out;
}

/* Whether a byte of w is below 0x20, '"' or '\\': (x - 1s) & ~x has a
 * byte's top bit set for the lowest zero byte of x (wrong ones only above
 * a true one), so each test is exact as a yes or no; x < 0x20 likewise. */
static inline bool json_word_special(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b)) & high;
}

/* Whether s[0..n) prints as is in a JSON string: eight bytes a step, the
 * last few one at a time (nothing past the string is read). */
static bool json_plain(const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (json_word_special(w))
            return false;
    }
    for (; i < n; i++)
        if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
            return false;
    return true;
}

/* rows[from, to) as "name": count members of the open object: the bytes
 * world_json_uint prints (pretty), made in a buffer and written a few KB
 * at a time -- five stdio calls a row cost more than the rest of the
 * output; a name that needs escaping goes through world_json_uint. */
static void json_counts(world_json *j, const print_row *rows, size_t from, size_t to)
{
    char buf[8192];
    size_t n = 0;
    const size_t spaces = 2 * (size_t)j->depth;
    for (size_t i = from; i < to; i++) {
        const size_t len = rows[i].name_len;
        if (!j->pretty || len > 4096 || !json_plain(rows[i].name, len)) {
            fwrite(buf, 1, n, j->out);
            n = 0;
            world_json_uint(j, rows[i].name, rows[i].n);
            continue;
        }
        if (n + len + spaces + 32 > sizeof buf) {
            fwrite(buf, 1, n, j->out);
            n = 0;
        }
        if (j->need_comma[j->depth])
            buf[n++] = ',';
        j->need_comma[j->depth] = true;
        buf[n++] = '\n';
        memset(buf + n, ' ', spaces);
        n += spaces;
        buf[n++] = '"';
        memcpy(buf + n, rows[i].name, len);
        n += len;
        memcpy(buf + n, "\": ", 3);
        n += 3;
        char digits[24];
        size_t d = 0;
        uint64_t v = rows[i].n;
        do
            digits[d++] = (char)('0' + v % 10);
        while ((v /= 10) != 0);
        while (d)
            buf[n++] = digits[--d];
    }
    fwrite(buf, 1, n, j->out);
}

/* Prints the kinds of one group: entries idx[*i..] while their group is g. */
static void json_group(world_json *j, const world_stat_result *r, const print_row *rows, size_t *i, uint32_t g)
{
    size_t k = *i;
    for (int kind = 0; kind < STAT_KINDS; kind++) {
        world_json_begin_object(j, kind_keys[kind]);
        size_t end = k;
        while (end < r->count && rows[end].g == g && rows[end].kind == (uint32_t)kind)
            end++;
        json_counts(j, rows, k, end);
        k = end;
        world_json_end_object(j);
    }
    *i = k;
}

void world_stat_print_json(const world_stat_result *r, FILE *out)
{
    print_row *rows = sorted(r, false);
    if (!rows)
        return;
    world_json j;
    world_json_init(&j, out, true);
    world_json_begin_object(&j, NULL);
    world_json_uint(&j, "chunks", r->chunks);
    world_json_uint(&j, "regions", r->regions);
    world_json_uint(&j, "volume", r->volume);
    size_t i = 0;
    json_group(&j, r, rows, &i, 0);
    if (r->by != STAT_BY_NONE) {
        world_json_str(&j, "by", world_stat_by_name(r->by));
        world_json_begin_object(&j, "groups");
        while (i < r->count) {
            uint32_t g = rows[i].g;
            world_json_begin_object(&j, rows[i].group);
            json_group(&j, r, rows, &i, g);
            world_json_end_object(&j);
        }
        world_json_end_object(&j);
    }
    world_json_end_object(&j);
    world_json_finish(&j);
    free(rows);
}

static void csv_field(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void world_stat_print_csv(const world_stat_result *r, FILE *out)
{
    print_row *rows = sorted(r, false);
    if (!rows)
        return;
    bool grouped = r->by != STAT_BY_NONE;
    fprintf(out, "%s%s\n", grouped ? world_stat_by_name(r->by) : "", grouped ? ",kind,name,count" : "kind,name,count");
    for (size_t i = 0; i < r->count; i++) {
        const print_row *e = &rows[i];
        if (grouped != (e->g != 0))
            continue; /* with a grouping the rows are the groups' (the totals are their sums) */
        if (grouped) {
            csv_field(out, e->group);
            fputc(',', out);
        }
        fprintf(out, "%s,", kind_csv[e->kind]);
        csv_field(out, e->name);
        fprintf(out, ",%" PRIu64 "\n", e->n);
    }
    free(rows);
}

void world_stat_print_text(const world_stat_result *r, FILE *out, size_t limit)
{
    print_row *rows = sorted(r, true);
    if (!rows)
        return;
    uint32_t group = UINT32_MAX, kind = UINT32_MAX;
    size_t shown = 0;
    for (size_t i = 0; i < r->count; i++) {
        const print_row *e = &rows[i];
        if (e->g != group) {
            if (e->g)
                fprintf(out, "\n== %s %s\n", world_stat_by_name(r->by), e->group);
            group = e->g;
            kind = UINT32_MAX;
        }
        if (e->kind != kind) {
            fprintf(out, "%s:\n", kind_keys[e->kind]);
            kind = e->kind;
            shown = 0;
        }
        if (!limit || shown++ < limit)
            fprintf(out, "%14" PRIu64 "  %s\n", e->n, e->name);
        else if (shown == limit + 1)
            fprintf(out, "%14s  ...\n", "");
    }
    free(rows);
}

/* ---------------------------------------------------------------- merge */

static mc_status merge_kinds(world_stat_result *r, const world_jvalue *obj, const char *group, int64_t order,
                             mc_error *err)
{
    for (int kind = 0; kind < STAT_KINDS; kind++) {
        const world_jvalue *m = world_json_get(obj, kind_keys[kind]);
        if (!m)
            continue;
        if (m->type != WJ_OBJECT)
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "\"%s\" is not an object", kind_keys[kind]);
        for (size_t i = 0; i < m->count; i++) {
            if (m->items[i].type != WJ_INT || m->items[i].num < 0)
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "\"%s\".\"%s\" is not a count", kind_keys[kind],
                                    m->keys[i]);
            if (strlen(m->keys[i]) != m->key_lens[i])
                return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "a name with a NUL character");
            if (!world_stat_add(r, group, order, kind, m->keys[i], (uint64_t)m->items[i].num))
                return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
        }
    }
    return MC_OK;
}

static bool count_of(const world_jvalue *doc, const char *key, uint64_t *out)
{
    const world_jvalue *v = world_json_get(doc, key);
    if (!v)
        return true;
    if (v->type != WJ_INT || v->num < 0)
        return false;
    *out = (uint64_t)v->num;
    return true;
}

/* The order of a group name: y numerically, others 0 (by name). */
static int64_t group_order(world_stat_by by, const char *name)
{
    return by == STAT_BY_Y ? strtoll(name, NULL, 10) : 0;
}

mc_status world_stat_merge_json(world_stat_result *r, const uint8_t *json, size_t len, mc_error *err)
{
    world_jvalue doc;
    mc_status st = world_json_parse(json, len, &doc, err);
    if (st)
        return st;
    uint64_t chunks = 0, regions = 0, volume = 0;
    const world_jvalue *by = world_json_get(&doc, "by"), *groups = world_json_get(&doc, "groups");
    const char *want = world_stat_by_name(r->by);
    if (doc.type != WJ_OBJECT || !world_json_get(&doc, "blocks"))
        st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "not the output of `world stats --json` (no \"blocks\")");
    else if (!count_of(&doc, "chunks", &chunks) || !count_of(&doc, "regions", &regions) ||
             !count_of(&doc, "volume", &volume))
        st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "\"chunks\", \"regions\" or \"volume\" is not a count");
    else if ((by && by->type != WJ_STRING) || (!by) != (!want) || (by && strcmp(by->str, want)))
        st = mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "grouped by %s, not by %s",
                          by && by->type == WJ_STRING ? by->str : "nothing", want ? want : "nothing");
    else if (by && (!groups || groups->type != WJ_OBJECT))
        st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "\"groups\" missing or not an object");
    if (!st)
        st = merge_kinds(r, &doc, NULL, 0, err);
    for (size_t i = 0; !st && by && i < groups->count; i++) {
        if (groups->items[i].type != WJ_OBJECT || strlen(groups->keys[i]) != groups->key_lens[i])
            st = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "group \"%s\" is not an object", groups->keys[i]);
        else
            st = merge_kinds(r, &groups->items[i], groups->keys[i], group_order(r->by, groups->keys[i]), err);
    }
    if (!st)
        world_stat_add_meta(r, chunks, regions, volume);
    world_json_free(&doc);
    return st;
}
