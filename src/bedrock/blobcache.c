/*
 * blobcache.c: blob ids and the server-side blob cache.
 *
 * With the client blob cache on, a server sends ids instead of subchunk and
 * biome bytes; the id is xxHash64 (seed 0) of the blob (all versions with
 * the cache, 1.12+). The client answers which ids it misses and the server
 * sends those blobs, so the server must keep what it announced for a while.
 * This cache is an open-addressed table of ids over a FIFO of stored blobs;
 * when the byte budget is exceeded the oldest blobs go first.
 */
#include <string.h>
#include <xxhash.h>

#include "bedrock_private.h"

uint64_t mc_bedrock_blob_hash(const void *data, size_t len)
{
    return (uint64_t)XXH64(data, len, 0);
}

typedef struct blob_entry {
    uint64_t id;
    uint8_t *data;
    size_t len;
    bool used;
} blob_entry;

struct mc_bedrock_blob_cache {
    const mc_allocator *alloc;
    size_t max_bytes, bytes;
    blob_entry *table;     /* open addressing, power of two */
    size_t table_cap, count;
    uint64_t *fifo;        /* ids in insertion order (ring) */
    size_t fifo_head, fifo_len, fifo_cap;
};

mc_bedrock_blob_cache *mc_bedrock_blob_cache_new(size_t max_bytes, const mc_allocator *alloc)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    mc_bedrock_blob_cache *c = a->alloc(a->user, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->alloc = a;
    c->max_bytes = max_bytes ? max_bytes : ((size_t)64 << 20);
    c->table_cap = 1024;
    c->table = a->alloc(a->user, c->table_cap * sizeof *c->table);
    c->fifo_cap = 1024;
    c->fifo = a->alloc(a->user, c->fifo_cap * sizeof *c->fifo);
    if (!c->table || !c->fifo) {
        mc_bedrock_blob_cache_free(c);
        return NULL;
    }
    memset(c->table, 0, c->table_cap * sizeof *c->table);
    return c;
}

void mc_bedrock_blob_cache_free(mc_bedrock_blob_cache *c)
{
    if (!c)
        return;
    const mc_allocator *a = c->alloc;
    if (c->table) {
        for (size_t i = 0; i < c->table_cap; i++)
            if (c->table[i].used && c->table[i].data)
                a->free(a->user, c->table[i].data, c->table[i].len);
        a->free(a->user, c->table, c->table_cap * sizeof *c->table);
    }
    if (c->fifo)
        a->free(a->user, c->fifo, c->fifo_cap * sizeof *c->fifo);
    a->free(a->user, c, sizeof *c);
}

static size_t find_slot(const mc_bedrock_blob_cache *c, uint64_t id)
{
    size_t mask = c->table_cap - 1, i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 20) & mask;
    while (c->table[i].used && c->table[i].id != id)
        i = (i + 1) & mask;
    return i;
}

/* Removes the entry at slot i, re-inserting its cluster (linear probing). */
static void remove_slot(mc_bedrock_blob_cache *c, size_t i)
{
    const mc_allocator *a = c->alloc;
    if (c->table[i].data)
        a->free(a->user, c->table[i].data, c->table[i].len);
    c->bytes -= c->table[i].len;
    c->table[i].used = false;
    c->count--;
    size_t mask = c->table_cap - 1;
    for (size_t j = (i + 1) & mask; c->table[j].used; j = (j + 1) & mask) {
        blob_entry e = c->table[j];
        c->table[j].used = false;
        c->table[find_slot(c, e.id)] = e;
    }
}

static bool grow(mc_bedrock_blob_cache *c)
{
    const mc_allocator *a = c->alloc;
    size_t ncap = c->table_cap * 2;
    blob_entry *n = a->alloc(a->user, ncap * sizeof *n);
    if (!n)
        return false;
    memset(n, 0, ncap * sizeof *n);
    blob_entry *old = c->table;
    size_t ocap = c->table_cap;
    c->table = n;
    c->table_cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].used)
            c->table[find_slot(c, old[i].id)] = old[i];
    a->free(a->user, old, ocap * sizeof *old);
    return true;
}

static bool fifo_push(mc_bedrock_blob_cache *c, uint64_t id)
{
    if (c->fifo_len == c->fifo_cap) {
        const mc_allocator *a = c->alloc;
        size_t ncap = c->fifo_cap * 2;
        uint64_t *n = a->alloc(a->user, ncap * sizeof *n);
        if (!n)
            return false;
        for (size_t i = 0; i < c->fifo_len; i++)
            n[i] = c->fifo[(c->fifo_head + i) % c->fifo_cap];
        a->free(a->user, c->fifo, c->fifo_cap * sizeof *c->fifo);
        c->fifo = n;
        c->fifo_cap = ncap;
        c->fifo_head = 0;
    }
    c->fifo[(c->fifo_head + c->fifo_len++) % c->fifo_cap] = id;
    return true;
}

mc_status mc_bedrock_blob_cache_put(mc_bedrock_blob_cache *c, const void *data, size_t len, uint64_t *id)
{
    uint64_t h = mc_bedrock_blob_hash(data, len);
    if (id)
        *id = h;
    size_t i = find_slot(c, h);
    if (c->table[i].used)
        return MC_OK;
    /* Evict the oldest blobs while over budget (keep at least this one). */
    while (c->fifo_len && c->bytes + len > c->max_bytes) {
        uint64_t old = c->fifo[c->fifo_head];
        c->fifo_head = (c->fifo_head + 1) % c->fifo_cap;
        c->fifo_len--;
        size_t j = find_slot(c, old);
        if (c->table[j].used)
            remove_slot(c, j);
    }
    if ((c->count + 1) * 2 > c->table_cap && !grow(c))
        return MC_ERR_NOMEM;
    const mc_allocator *a = c->alloc;
    uint8_t *copy = len ? a->alloc(a->user, len) : NULL;
    if (len && !copy)
        return MC_ERR_NOMEM;
    if (!fifo_push(c, h)) {
        if (copy)
            a->free(a->user, copy, len);
        return MC_ERR_NOMEM;
    }
    if (len)
        memcpy(copy, data, len);
    i = find_slot(c, h);
    c->table[i] = (blob_entry){h, copy, len, true};
    c->count++;
    c->bytes += len;
    return MC_OK;
}

const uint8_t *mc_bedrock_blob_cache_get(const mc_bedrock_blob_cache *c, uint64_t id, size_t *len)
{
    size_t i = find_slot(c, id);
    if (!c->table[i].used)
        return NULL;
    if (len)
        *len = c->table[i].len;
    static const uint8_t empty[1] = {0};
    return c->table[i].data ? c->table[i].data : empty;
}

size_t mc_bedrock_blob_cache_count(const mc_bedrock_blob_cache *c)
{
    return c->count;
}
