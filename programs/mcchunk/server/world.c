/*
 * world.c: the world the server serves, and each player's view of it.
 *
 * Columns come from the built-in generator (terrain.c) or from a Java world
 * folder, and are cached in the world's own registry. What a client receives
 * is the column encoded for its protocol (translated to its registry on the
 * way) and framed; since the compression threshold is the server's, the
 * framed, compressed bytes are the same for every client of a protocol, so
 * they are cached too, and serving a chunk a second time costs a memcpy into
 * the socket's queue. That is what makes the cost of serving the kernel's,
 * not the encoder's. Both kinds of entry share one byte budget (--cache-mb)
 * with the folder reader's buffers, least recently used out first, so a
 * player who keeps walking into new land costs the budget and no more.
 *
 * A player's view is the square of columns within the view distance of the
 * chunk it stands in. On join and whenever it crosses a chunk border, columns
 * that left the view are unloaded and new ones are queued nearest first (a
 * spiral); 1.20.2+ clients get them in Chunk Batches paced by the rate they
 * report, every client no faster than its socket takes them: chunks are
 * queued only while the send queue is short, and the rest follow as it
 * drains, so a client that reads slowly (or not at all) holds a bounded
 * queue and the columns it lacks cost nothing until it asks for them. The
 * work of making columns is shared out fairly between the clients that want
 * them, a bounded slice per turn of the loop ("fair shares" below).
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunk.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/nbt.h"
#include "mcchunk/registry.h"
#include "server/encode.h"
#include "server/terrain.h"
#include "server/view.h"
#include "server/world.h"
#include "server/unlit.h"

/* One cache holds both kinds of entry, under one byte budget (--cache-mb):
 * decoded columns (protocol 0) and the framed packets of a column for one
 * protocol. An entry's cost is the heap it holds plus its bookkeeping; the
 * least recently used entries go first, whichever kind they are, so a walk
 * that brings in new columns all the time costs the budget and no more. */
typedef struct cache_entry {
    struct cache_entry *hnext;         /* hash chain */
    struct cache_entry *older, *newer; /* recency list */
    uint32_t protocol;                 /* 0: the decoded column; SRV_WORLD_KIND_OTHER+: another layer's */
    int32_t x, z;
    mc_column *col;  /* protocol 0 */
    uint8_t *bytes;  /* a Java protocol: framed packets, ready to send */
    size_t len;
    void *obj;       /* another layer's object, freed with free_obj */
    void (*free_obj)(void *obj);
    size_t cost;     /* bytes charged to the budget */
} cache_entry;

/* What malloc adds to each block it hands out (glibc: a size word, 16-byte
 * rounding), charged per allocation so that the budget is close to what the
 * process really holds. */
#define MALLOC_OVERHEAD 16u

/* An allocator that counts the bytes live through it: the reader's
 * palette cache and the columns read from a world folder (whose block
 * entities' NBT mc_column_memory does not count) are measured with it. */
typedef struct counting_alloc {
    mc_allocator a;
    size_t live;
} counting_alloc;

static void *count_alloc(void *user, size_t n)
{
    counting_alloc *ca = user;
    const mc_allocator *d = mc_default_allocator();
    void *p = d->alloc(d->user, n);
    if (p)
        ca->live += n + MALLOC_OVERHEAD;
    return p;
}

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting_alloc *ca = user;
    const mc_allocator *d = mc_default_allocator();
    void *p = d->realloc(d->user, ptr, old_size, new_size);
    if (p || new_size == 0) {
        ca->live -= ptr ? old_size + MALLOC_OVERHEAD : 0;
        ca->live += p ? new_size + MALLOC_OVERHEAD : 0;
    }
    return p;
}

static void count_free(void *user, void *ptr, size_t size)
{
    counting_alloc *ca = user;
    const mc_allocator *d = mc_default_allocator();
    if (ptr)
        ca->live -= size + MALLOC_OVERHEAD;
    d->free(d->user, ptr, size);
}

static void counting_init(counting_alloc *ca)
{
    ca->a.alloc = count_alloc;
    ca->a.realloc = count_realloc;
    ca->a.free = count_free;
    ca->a.user = ca;
    ca->live = 0;
}

#define REGION_CACHE 32

typedef struct region_slot {
    int32_t rx, rz;
    mc_region *region; /* NULL: empty, or the file does not exist (missing) */
    bool missing;
    bool used;
    uint64_t last_use;
} region_slot;

struct srv_world {
    srv_terrain *terrain;        /* built-in world */
    const char *dir;            /* world folder, or NULL */
    mc_world_layout layout;
    region_slot regions[REGION_CACHE];
    mc_chunknbt_cache *nbt_cache;
    mc_nbt_doc *nbt_doc; /* the parse of each chunk read (reused) */
    mc_buf chunk_bytes;
    srv_server *srv;
    const mc_registry *reg;     /* registry of the world's columns */
    int32_t spawn_x, spawn_y, spawn_z;
    uint64_t clock;             /* recency of the region slots */
    cache_entry **buckets;      /* hash table of the cache, power-of-two size */
    size_t nbuckets, nentries, ncols;
    cache_entry *oldest, *newest;
    size_t cache_bytes;         /* sum of the entries' costs */
    size_t budget;              /* --cache-mb: entries and reader scratch together */
    size_t scratch_bytes;       /* what the folder reader keeps between reads */
    counting_alloc col_alloc;   /* columns read from a world folder */
    counting_alloc nbt_alloc;   /* the reader's palette cache */
    uint32_t *scratch_blocks, *scratch_biomes;
    /* The shared work budget (see "Fair shares" below). */
    uint64_t work_turn;         /* uv_now() of the loop turn being charged */
    uint64_t work_ns;           /* time spent making columns in that turn */
    uint64_t work_total_ns, columns_served; /* since the start (srv_world_work) */
    srv_work_client *deferred_head, *deferred_tail; /* clients whose work waits for a turn */
    uv_idle_t idle;             /* turns the loop while clients wait */
    bool idle_ready;
    const mc_registry *told[64][2]; /* (world's, client's) registry pairs whose translation was logged */
    unsigned ntold;
};

/* ------------------------------------------------------------ columns */

static size_t col_hash(int32_t x, int32_t z)
{
    uint64_t h = (uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uint32_t)z * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(h ^ (h >> 29));
}

static size_t entry_hash(uint32_t protocol, int32_t x, int32_t z)
{
    return col_hash(x, z) ^ protocol * 0x2545F491u;
}

static void lru_unlink(srv_world *w, cache_entry *e)
{
    if (e->older)
        e->older->newer = e->newer;
    else
        w->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        w->newest = e->older;
    e->older = e->newer = NULL;
}

static void lru_push_newest(srv_world *w, cache_entry *e)
{
    e->older = w->newest;
    e->newer = NULL;
    if (w->newest)
        w->newest->newer = e;
    else
        w->oldest = e;
    w->newest = e;
}

static cache_entry *cache_find(srv_world *w, uint32_t protocol, int32_t x, int32_t z)
{
    for (cache_entry *e = w->buckets[entry_hash(protocol, x, z) & (w->nbuckets - 1)]; e; e = e->hnext)
        if (e->protocol == protocol && e->x == x && e->z == z) {
            lru_unlink(w, e);
            lru_push_newest(w, e);
            return e;
        }
    return NULL;
}

static void entry_free(cache_entry *e)
{
    mc_column_free(e->col);
    free(e->bytes);
    if (e->obj)
        e->free_obj(e->obj);
    free(e);
}

static void cache_remove(srv_world *w, cache_entry *e)
{
    cache_entry **pe = &w->buckets[entry_hash(e->protocol, e->x, e->z) & (w->nbuckets - 1)];
    while (*pe != e)
        pe = &(*pe)->hnext;
    *pe = e->hnext;
    lru_unlink(w, e);
    w->cache_bytes -= e->cost;
    w->nentries--;
    if (e->protocol == 0)
        w->ncols--;
    entry_free(e);
}

/* Evicts the least recently used entries (never `keep`) until the entries
 * and the reader's scratch fit the budget. */
static void cache_trim(srv_world *w, const cache_entry *keep)
{
    while (w->cache_bytes + w->scratch_bytes > w->budget && w->oldest) {
        cache_entry *victim = w->oldest;
        if (victim == keep) {
            victim = victim->newer;
            if (!victim)
                return;
        }
        cache_remove(w, victim);
    }
}

/* Doubles the hash table when it holds more entries than buckets (the
 * budget, not a count, bounds the entries). A table that cannot grow stays
 * as it is: chains get longer, nothing is lost. */
static void cache_grow(srv_world *w)
{
    size_t n = w->nbuckets * 2;
    cache_entry **nb = calloc(n, sizeof *nb);
    if (!nb)
        return;
    for (size_t b = 0; b < w->nbuckets; b++)
        for (cache_entry *e = w->buckets[b], *next; e; e = next) {
            next = e->hnext;
            size_t i = entry_hash(e->protocol, e->x, e->z) & (n - 1);
            e->hnext = nb[i];
            nb[i] = e;
        }
    free(w->buckets);
    w->buckets = nb;
    w->nbuckets = n;
}

/* Takes ownership of e (key, payload and cost set) as the newest entry,
 * then evicts what no longer fits. The new entry itself always stays: an
 * entry larger than the whole budget lives until the next insertion. */
static void cache_insert(srv_world *w, cache_entry *e)
{
    if (w->nentries >= w->nbuckets)
        cache_grow(w);
    size_t i = entry_hash(e->protocol, e->x, e->z) & (w->nbuckets - 1);
    e->hnext = w->buckets[i];
    w->buckets[i] = e;
    lru_push_newest(w, e);
    w->cache_bytes += e->cost;
    w->nentries++;
    if (e->protocol == 0)
        w->ncols++;
    cache_trim(w, e);
}

/* ------------------------------------------------------ world folders */

static mc_region *region_for(srv_world *w, int32_t rx, int32_t rz)
{
    region_slot *free_slot = NULL, *oldest = NULL;
    for (int i = 0; i < REGION_CACHE; i++) {
        region_slot *r = &w->regions[i];
        if (r->used && r->rx == rx && r->rz == rz) {
            r->last_use = ++w->clock;
            return r->region;
        }
        if (!r->used && !free_slot)
            free_slot = r;
        if (r->used && (!oldest || r->last_use < oldest->last_use))
            oldest = r;
    }
    region_slot *slot = free_slot ? free_slot : oldest;
    mc_region_close(slot->region);
    memset(slot, 0, sizeof *slot);
    char path[4096];
    mc_error err;
    int lx, lz;
    mc_status st = mc_world_region_path(w->dir, w->layout, "minecraft:overworld", MC_REGION_KIND_REGION, rx * 32,
                                        rz * 32, path, sizeof path, &lx, &lz, &err);
    slot->used = true;
    slot->rx = rx;
    slot->rz = rz;
    slot->last_use = ++w->clock;
    if (st != MC_OK && st != MC_ERR_NOT_FOUND) /* refused: a link, a FIFO, outside the world */
        srv_log(w->srv, MC_LOG_WARN, "%s", err.message);
    if (st == MC_OK && mc_region_open(path, NULL, &slot->region, &err) != MC_OK) {
        srv_log(w->srv, MC_LOG_WARN, "region %s: %s", path, err.message);
        slot->region = NULL;
    }
    return slot->region;
}

static bool status_is_full(const mc_chunknbt_info *info)
{
    if (!info->status)
        return true; /* before 1.13 there is no status */
    static const char *const full[] = {"full", "minecraft:full", "postprocessed", "fullchunk"};
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++)
        if (info->status_len == strlen(full[i]) && !memcmp(info->status, full[i], info->status_len))
            return true;
    return false;
}

static void warn_chunk(void *user, const char *message)
{
    srv_world *w = user;
    srv_log(w->srv, MC_LOG_WARN, "chunk: %s", message);
}

/* The folder reader keeps a parse arena, the chunk's bytes and a palette
 * cache from one chunk to the next (that is what makes reading fast). They
 * count against the cache budget; a hostile or huge chunk can blow them up
 * for one read, after which whatever is over a quarter of the budget is let
 * go (the cache of palette entries over an eighth), to be grown again. */
static void reader_scratch_trim(srv_world *w)
{
    size_t quarter = w->budget / 4;
    if (w->nbt_alloc.live > w->budget / 8) {
        mc_chunknbt_cache *fresh = mc_chunknbt_cache_new(&w->nbt_alloc.a);
        if (fresh) {
            mc_chunknbt_cache_free(w->nbt_cache);
            w->nbt_cache = fresh;
        }
    }
    if (mc_nbt_doc_memory(w->nbt_doc) + w->chunk_bytes.cap + w->nbt_alloc.live > quarter) {
        mc_buf_free(&w->chunk_bytes);
        mc_nbt_doc *fresh = mc_nbt_doc_new(NULL);
        if (fresh) {
            mc_nbt_doc_free(w->nbt_doc);
            w->nbt_doc = fresh;
        }
    }
    w->scratch_bytes = mc_nbt_doc_memory(w->nbt_doc) + w->chunk_bytes.cap + w->nbt_alloc.live;
}

/* Reads a column of the world folder: only fully generated chunks (vanilla
 * never sends proto-chunks), at overworld height (-64..319) whatever the
 * chunk's era, so that one column serves every client. */
static mc_column *read_column(srv_world *w, int32_t cx, int32_t cz)
{
    mc_region *region = region_for(w, cx >> 5, cz >> 5);
    if (!region || !mc_region_has_chunk(region, cx & 31, cz & 31))
        return NULL;
    mc_error err;
    mc_error_clear(&err);
    w->chunk_bytes.len = 0;
    if (mc_region_read_chunk(region, cx & 31, cz & 31, &w->chunk_bytes, NULL, &err) != MC_OK) {
        srv_log(w->srv, MC_LOG_WARN, "chunk %d %d: %s", cx, cz, err.message);
        return NULL;
    }
    mc_column *col = NULL;
    mc_chunknbt_info info;
    memset(&info, 0, sizeof info);
    mc_chunknbt_options opt;
    memset(&opt, 0, sizeof opt);
    opt.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    opt.min_section = -4;
    opt.section_count = 24;
    opt.cache = w->nbt_cache;
    opt.warn = warn_chunk;
    opt.warn_user = w;
    opt.doc = w->nbt_doc;
    opt.alloc = &w->col_alloc.a;
    mc_status st = mc_chunknbt_read_bytes_ex(w->chunk_bytes.data, w->chunk_bytes.len, &opt, &col, &info, &err);
    reader_scratch_trim(w);
    if (st != MC_OK) {
        srv_log(w->srv, MC_LOG_WARN, "chunk %d %d: %s", cx, cz, err.message);
        return NULL;
    }
    if (!status_is_full(&info)) {
        mc_column_free(col);
        return NULL;
    }
    bool has_light = false;
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        mc_section *s = mc_column_section_at(col, i);
        has_light = has_light || s->sky_light != NULL;
        /* the reader leaves the counts to be made when asked; the column is
         * held and encoded for every protocol: count once, here */
        mc_section_recount(s, mc_column_registry(col));
    }
    if (!has_light)
        srv_light_unlit(w, col, read_column);
    return col;
}

/* level.dat is a few KiB (a world with many data packs: some hundred);
 * anything past these limits is not one, and must not cost memory. */
#define LEVEL_DAT_MAX_FILE ((size_t)16 << 20)
#define LEVEL_DAT_MAX_NBT ((size_t)32 << 20)

/* Reads the spawn point of level.dat: SpawnX/Y/Z (Data.spawn.pos in newer
 * versions). False with the reason in `why` when there is none to be had. */
static bool level_dat_spawn(srv_world *w, const char *path, char *why, size_t why_size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "missing");
        return false;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > LEVEL_DAT_MAX_FILE) {
        snprintf(why, why_size, "%s", S_ISREG(st.st_mode) ? "too large to be a level.dat" : "not a regular file");
        return false;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    mc_error err;
    mc_error_clear(&err);
    if (mc_read_file(path, NULL, &data, &len, &err) != MC_OK) {
        snprintf(why, why_size, "cannot be read: %s", err.message);
        return false;
    }
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_limits limits = {0, LEVEL_DAT_MAX_NBT}; /* an inflate bomb stops here */
    bool found = false;
    if (!doc) {
        snprintf(why, why_size, "out of memory");
    } else if (mc_nbt_load(doc, data, len, MC_NBT_JAVA, &limits, NULL, NULL, &err) != MC_OK) {
        snprintf(why, why_size, "not readable NBT: %s", err.message);
    } else {
        mc_nbt_tag *root = mc_nbt_doc_root(doc);
        int32_t x, y, z;
        if (mc_nbt_get_int(mc_nbt_path(root, "Data.SpawnX"), &x) == MC_OK &&
            mc_nbt_get_int(mc_nbt_path(root, "Data.SpawnY"), &y) == MC_OK &&
            mc_nbt_get_int(mc_nbt_path(root, "Data.SpawnZ"), &z) == MC_OK) {
            w->spawn_x = x, w->spawn_y = y, w->spawn_z = z;
            found = true;
        } else {
            mc_nbt_tag *pos = mc_nbt_path(root, "Data.spawn.pos");
            mc_nbt_array a;
            if (pos && mc_nbt_get_array(pos, MC_NBT_INT_ARRAY, &a) == MC_OK && a.count == 3) {
                int32_t v[3];
                size_t n;
                mc_nbt_array_copy_i32(pos, v, 3, &n);
                w->spawn_x = v[0], w->spawn_y = v[1], w->spawn_z = v[2];
                found = true;
            }
        }
        if (!found)
            snprintf(why, why_size, "no spawn in it (Data.SpawnX/Y/Z or Data.spawn.pos)");
    }
    mc_nbt_doc_free(doc);
    free(data);
    return found;
}

/* Spawn of a world folder: level.dat's, else above the first chunk of the
 * first region file found. A level.dat that is there but unusable (corrupt,
 * an inflate bomb, no spawn) is a warning: the world is served anyway. */
static bool find_folder_spawn(srv_world *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/level.dat", w->dir);
    char why[512];
    if (level_dat_spawn(w, path, why, sizeof why))
        return true;
    srv_log(w->srv, strcmp(why, "missing") ? MC_LOG_WARN : MC_LOG_INFO,
               "%s: %s; spawn falls back to the first chunk of the first region file", path, why);
    mc_error err;
    char dir[4096];
    if (mc_world_region_dir(w->dir, w->layout, "minecraft:overworld", MC_REGION_KIND_REGION, dir, sizeof dir,
                            &err) != MC_OK)
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        int rx, rz;
        char tail[8];
        if (sscanf(e->d_name, "r.%d.%d.%7s", &rx, &rz, tail) != 3 || strcmp(tail, "mca"))
            continue;
        for (int i = 0; i < 1024 && !found; i++) {
            int32_t cx = (int32_t)((uint32_t)rx * 32u + (uint32_t)(i & 31)), cz = (int32_t)((uint32_t)rz * 32u + (uint32_t)(i >> 5));
            mc_column *col = read_column(w, cx, cz);
            if (!col)
                continue;
            mc_column_compute_heightmaps(col, 1u << MC_HEIGHTMAP_WORLD_SURFACE);
            w->spawn_x = (int32_t)((uint32_t)cx * 16u + 8u);
            w->spawn_z = (int32_t)((uint32_t)cz * 16u + 8u);
            w->spawn_y = mc_column_min_y(col) + (int32_t)mc_column_heightmap_get(col, MC_HEIGHTMAP_WORLD_SURFACE, 8, 8) + 1;
            mc_column_free(col);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* The column at (cx, cz), from the cache or made now; NULL when the world
 * has none there (or memory ran out). The pointer is the cache's: good
 * until the next call that adds to the cache. */
static mc_column *world_column(srv_world *w, int32_t cx, int32_t cz)
{
    cache_entry *e = cache_find(w, 0, cx, cz);
    if (e)
        return e->col;
    size_t before = w->col_alloc.live;
    mc_column *col = w->terrain ? srv_terrain_column(w->terrain, cx, cz, w->scratch_blocks, w->scratch_biomes)
                                : read_column(w, cx, cz);
    if (!col)
        return NULL;
    e = calloc(1, sizeof *e);
    if (!e) {
        mc_column_free(col);
        return NULL; /* out of memory: as if the world had no column there */
    }
    /* Folder columns come from the counting allocator (block entities
     * included); generated ones hold sections only. Each section is a few
     * blocks (containers, palettes, light). */
    size_t counted = w->col_alloc.live - before;
    size_t measured = mc_column_memory(col) + (size_t)mc_column_section_count(col) * 6 * MALLOC_OVERHEAD;
    e->x = cx;
    e->z = cz;
    e->col = col;
    e->cost = sizeof *e + MALLOC_OVERHEAD + (counted > measured ? counted : measured);
    cache_insert(w, e);
    return col;
}

/* ------------------------------------------------------------ lifecycle */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int srv_world_open(srv_server *srv)
{
    srv_world *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    srv->world = w;
    w->srv = srv;
    mc_buf_init(&w->chunk_bytes, NULL);
    w->nbuckets = 1024;
    w->buckets = calloc(w->nbuckets, sizeof *w->buckets);
    w->budget = srv->cfg->cache_bytes;
    counting_init(&w->col_alloc);
    counting_init(&w->nbt_alloc);
    if (!w->buckets)
        return -1;
    const char *dir = srv->cfg->world;
    if (!dir) {
        w->reg = mc_registry_find("26.1");
        w->terrain = w->reg ? srv_terrain_new(w->reg, srv->cfg->seed) : NULL;
        w->scratch_blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
        w->scratch_biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
        if (!w->terrain || !w->scratch_blocks || !w->scratch_biomes) {
            srv_log(srv, MC_LOG_ERROR, "cannot set up the built-in world");
            return -1;
        }
        srv_terrain_find_spawn(w->terrain, &w->spawn_x, &w->spawn_y, &w->spawn_z);
        /* Generate the spawn area now, so that the first player does not wait for it. */
        uint64_t t0 = uv_hrtime();
        int vd = srv->cfg->view_distance, n = 0;
        for (int dz = -vd; dz <= vd; dz++)
            for (int dx = -vd; dx <= vd; dx++)
                n += world_column(w, (w->spawn_x >> 4) + dx, (w->spawn_z >> 4) + dz) != NULL;
        srv_log(srv, MC_LOG_INFO, "world: built-in (seed %llu), spawn %d %d %d; %d columns generated in %.0f ms",
                   (unsigned long long)srv->cfg->seed, w->spawn_x, w->spawn_y, w->spawn_z, n,
                   (double)(uv_hrtime() - t0) / 1e6);
        return 0;
    }
    if (!is_dir(dir)) {
        srv_log(srv, MC_LOG_ERROR, "world folder '%s' does not exist", dir);
        return -1;
    }
    w->dir = dir;
    w->layout = mc_world_detect_layout(dir);
    w->nbt_cache = mc_chunknbt_cache_new(&w->nbt_alloc.a);
    w->nbt_doc = mc_nbt_doc_new(NULL);
    char rdir[4096];
    mc_error err;
    if (!w->nbt_cache || !w->nbt_doc ||
        mc_world_region_dir(dir, w->layout, "minecraft:overworld", MC_REGION_KIND_REGION, rdir, sizeof rdir, &err) != MC_OK ||
        !is_dir(rdir)) {
        srv_log(srv, MC_LOG_ERROR, "'%s' is not a Java world: no overworld region folder", dir);
        return -1;
    }
    if (!find_folder_spawn(w)) {
        srv_log(srv, MC_LOG_ERROR, "'%s' has no readable chunk to spawn on", dir);
        return -1;
    }
    srv_log(srv, MC_LOG_INFO, "world: %s (%s layout), spawn %d %d %d", dir,
               w->layout == MC_WORLD_LAYOUT_26_1 ? "26.1" : "classic", w->spawn_x, w->spawn_y, w->spawn_z);
    return 0;
}

void srv_world_close(srv_server *srv)
{
    srv_world *w = srv->world;
    if (!w)
        return;
    if (w->idle_ready) {
        uv_close((uv_handle_t *)&w->idle, NULL);
        uv_run(srv->loop, UV_RUN_NOWAIT); /* completes the close before w goes */
    }
    while (w->oldest)
        cache_remove(w, w->oldest);
    free(w->buckets);
    srv_terrain_free(w->terrain);
    for (int i = 0; i < REGION_CACHE; i++)
        mc_region_close(w->regions[i].region);
    mc_chunknbt_cache_free(w->nbt_cache);
    mc_nbt_doc_free(w->nbt_doc);
    mc_buf_free(&w->chunk_bytes);
    free(w->scratch_blocks);
    free(w->scratch_biomes);
    free(w);
    srv->world = NULL;
}

const srv_terrain *srv_world_terrain(const srv_server *srv)
{
    return srv->world ? srv->world->terrain : NULL;
}

void srv_world_spawn(srv_server *srv, int32_t *x, int32_t *y, int32_t *z)
{
    srv_world *w = srv->world;
    *x = w->spawn_x;
    *y = w->spawn_y;
    *z = w->spawn_z;
}

void srv_world_work(const srv_server *srv, uint64_t *columns, uint64_t *ns)
{
    *columns = srv->world ? srv->world->columns_served : 0;
    *ns = srv->world ? srv->world->work_total_ns : 0;
}

size_t srv_world_cached_columns(const srv_server *srv)
{
    return srv->world ? srv->world->ncols : 0;
}

size_t srv_world_cache_bytes(const srv_server *srv)
{
    return srv->world ? srv->world->cache_bytes + srv->world->scratch_bytes : 0;
}

mc_column *srv_world_column(srv_server *srv, int32_t cx, int32_t cz)
{
    return world_column(srv->world, cx, cz);
}

void *srv_world_cache_get(srv_server *srv, uint32_t kind, int32_t x, int32_t z)
{
    cache_entry *e = cache_find(srv->world, kind, x, z);
    return e ? e->obj : NULL;
}

bool srv_world_cache_put(srv_server *srv, uint32_t kind, int32_t x, int32_t z, void *obj, size_t cost,
                         void (*free_obj)(void *obj))
{
    cache_entry *e = calloc(1, sizeof *e);
    if (!e) {
        free_obj(obj);
        return false;
    }
    e->protocol = kind;
    e->x = x;
    e->z = z;
    e->obj = obj;
    e->free_obj = free_obj;
    e->cost = sizeof *e + MALLOC_OVERHEAD + cost;
    cache_insert(srv->world, e);
    return true;
}

/* ------------------------------------------------------- encoded cache */

/* The framed packets that carry column (cx, cz) to clients of c's protocol
 * (Chunk Data, plus Update Light for 1.14-1.17), from the cache or encoded
 * now. *len 0 when the world has no column there. */
static bool encoded_column(srv_conn *c, int32_t cx, int32_t cz, const uint8_t **bytes, size_t *len)
{
    srv_server *srv = c->srv;
    srv_world *w = srv->world;
    cache_entry *e = cache_find(w, c->protocol, cx, cz);
    if (e) {
        *bytes = e->bytes;
        *len = e->len;
        return true;
    }
    mc_column *col = world_column(w, cx, cz);
    *bytes = NULL;
    *len = 0;
    if (!col)
        return true;
    if (w->dir) { /* a folder's columns are in their DataVersion's registry */
        const mc_registry *to = mc_registry_find_protocol((int32_t)c->protocol);
        srv_world_log_translation(srv, mc_column_registry(col), to, to ? mc_registry_name(to) : "?");
    }
    mc_buf framed;
    mc_buf_init(&framed, NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status st = srv_server_encode_column(col, c->protocol, c->threshold, c->z, &framed, &err);
    if (st != MC_OK || !mc_buf_ok(&framed)) {
        srv_log(srv, MC_LOG_ERROR, "cannot encode column %d %d for protocol %u: %s", cx, cz, c->protocol,
                   err.message[0] ? err.message : "out of memory");
        mc_buf_free(&framed);
        return false;
    }
    size_t n;
    uint8_t *data = mc_buf_detach(&framed, &n, NULL);
    uint8_t *fit = realloc(data, n); /* the buffer's spare room would be held for as long as the entry */
    if (fit)
        data = fit;
    /* Compression is the same for every client only if the threshold is. */
    if (c->threshold != srv->cfg->compression_threshold || w->budget < n) {
        srv_conn_send_framed(c, data, n);
        free(data);
        *bytes = NULL;
        *len = SIZE_MAX; /* sent already */
        return true;
    }
    e = calloc(1, sizeof *e);
    if (!e) {
        free(data);
        return false;
    }
    e->protocol = c->protocol;
    e->x = cx;
    e->z = cz;
    e->bytes = data;
    e->len = n;
    e->cost = sizeof *e + n + 2 * MALLOC_OVERHEAD;
    cache_insert(w, e); /* may evict the column just encoded: it is not used again here */
    *bytes = data;
    *len = n;
    return true;
}

/* ------------------------------------------------------ fair shares
 *
 * Making a column (generating it, reading it from a region file, encoding
 * it for a protocol, converting it for Bedrock) takes about a millisecond;
 * forty players flying into new land want hundreds a second. That work is
 * shared out so that it never holds the loop, and with it every other
 * player's keep-alives, movement and reads: one turn of the loop spends at
 * most WORK_BUDGET_NS on it, all clients of both editions together, and one
 * client at most COLUMNS_PER_TURN columns (a Bedrock client: its share of
 * subchunk answers) before the next one waiting has its go. A client that
 * had to stop joins the back of a round-robin queue; while the queue is not
 * empty an idle handle keeps the loop turning (polling for I/O without
 * blocking), and each turn serves the queue from the front until the budget
 * is spent. */
#define WORK_BUDGET_NS (8u * 1000000u)
#define COLUMNS_PER_TURN 8u

bool srv_world_work_spent(srv_world *w)
{
    uint64_t turn = uv_now(w->srv->loop);
    if (turn != w->work_turn) {
        w->work_turn = turn;
        w->work_ns = 0;
    }
    return w->work_ns >= WORK_BUDGET_NS;
}

void srv_world_work_charge(srv_world *w, uint64_t ns, uint64_t columns)
{
    w->work_ns += ns;
    w->work_total_ns += ns;
    w->columns_served += columns;
}

void srv_world_work_cancel(srv_world *w, srv_work_client *wc)
{
    if (!wc->queued)
        return;
    if (wc->prev)
        wc->prev->next = wc->next;
    else
        w->deferred_head = wc->next;
    if (wc->next)
        wc->next->prev = wc->prev;
    else
        w->deferred_tail = wc->prev;
    wc->queued = false;
    wc->prev = wc->next = NULL;
}

static void on_idle(uv_idle_t *idle)
{
    srv_world *w = idle->data;
    while (w->deferred_head && !srv_world_work_spent(w)) {
        srv_work_client *wc = w->deferred_head;
        srv_world_work_cancel(w, wc);
        wc->turn(wc);
    }
    if (!w->deferred_head)
        uv_idle_stop(idle);
}

void srv_world_work_wait(srv_world *w, srv_work_client *wc)
{
    if (wc->queued)
        return;
    wc->queued = true;
    wc->prev = w->deferred_tail;
    wc->next = NULL;
    if (w->deferred_tail)
        w->deferred_tail->next = wc;
    else
        w->deferred_head = wc;
    w->deferred_tail = wc;
    if (!w->idle_ready) {
        uv_idle_init(w->srv->loop, &w->idle);
        w->idle.data = w;
        w->idle_ready = true;
    }
    if (!uv_is_active((uv_handle_t *)&w->idle))
        uv_idle_start(&w->idle, on_idle);
}

/* ------------------------------------------------------------- views */

/* A Java player's view: the columns it has (srv_view), its Chunk Batches
 * (1.20.2+), its place in the round-robin of column work. */
typedef struct view {
    srv_view cols;
    srv_conn *conn;
    int batches_in_flight;
    float chunks_per_tick; /* as the client reports (1.20.2+) */
    srv_work_client work;
} view;

static void send_unload(void *user, int32_t x, int32_t z)
{
    srv_conn *c = user;
    c->pkt.len = 0;
    mc_error err;
    if (mc_java_encode_unload(x, z, c->protocol, &c->pkt, &err) == MC_OK)
        srv_conn_send(c, &c->pkt);
}

/* Recomputes the wanted set around (cx, cz): unloads what left, queues what
 * is new, nearest first. */
static void view_recenter(srv_conn *c, view *v, int32_t cx, int32_t cz)
{
    if (!srv_view_recenter(&v->cols, cx, cz, v->cols.vd, send_unload, c)) {
        srv_conn_close(c, "out of memory");
        return;
    }
    if (c->era.view_position && srv_conn_begin(c, MC_JAVA_PLAY, "update_view_position")) {
        mc_buf_put_varint(&c->pkt, cx);
        mc_buf_put_varint(&c->pkt, cz);
        srv_conn_send(c, &c->pkt);
    }
}

static void pump(srv_conn *c, view *v);

static void view_turn(srv_work_client *wc)
{
    view *v = (view *)((char *)wc - offsetof(view, work));
    srv_conn *c = v->conn;
    if (!c->closing && c->state == MC_JAVA_PLAY)
        pump(c, v);
}

/* Sends up to `max` queued columns; returns how many went out. */
static size_t send_some(srv_conn *c, view *v, size_t max)
{
    srv_world *w = c->srv->world;
    size_t sent = 0, tried = 0;
    while (srv_view_waiting(&v->cols) && sent < max && !c->closing && !srv_conn_chunks_must_wait(c)) {
        if (tried++ == COLUMNS_PER_TURN || srv_world_work_spent(w)) {
            srv_world_work_wait(w, &v->work);
            break;
        }
        int32_t x, z;
        srv_view_next(&v->cols, &x, &z);
        const uint8_t *bytes;
        size_t len;
        uint64_t t0 = uv_hrtime();
        bool ok = encoded_column(c, x, z, &bytes, &len);
        srv_world_work_charge(w, uv_hrtime() - t0, 1);
        if (!ok) {
            srv_conn_disconnect(c, "Internal error encoding a chunk");
            return sent;
        }
        if (len == 0)
            continue; /* nothing there */
        if (len != SIZE_MAX)
            srv_conn_send_framed(c, bytes, len);
        srv_view_add(&v->cols, x, z);
        sent++;
    }
    v->cols.sent_total += sent;
    return sent;
}

/* 1.20.2+: one Chunk Batch, sized from the client's reported rate. */
static void send_batch(srv_conn *c, view *v)
{
    if (!srv_view_waiting(&v->cols) || v->batches_in_flight >= 2)
        return;
    if (srv_world_work_spent(c->srv->world)) {
        srv_world_work_wait(c->srv->world, &v->work); /* no empty batch: this one waits for a turn with room */
        return;
    }
    float rate = v->chunks_per_tick > 0 ? v->chunks_per_tick : 32.0f;
    size_t n = (size_t)(rate * 2.0f);
    if (n < 8)
        n = 8;
    if (n > 128)
        n = 128;
    if (!srv_conn_begin(c, MC_JAVA_PLAY, "chunk_batch_start"))
        return;
    srv_conn_send(c, &c->pkt);
    size_t sent = send_some(c, v, n);
    if (!srv_conn_begin(c, MC_JAVA_PLAY, "chunk_batch_finished"))
        return;
    mc_buf_put_varint(&c->pkt, (int32_t)sent);
    srv_conn_send(c, &c->pkt);
    v->batches_in_flight++;
}

/* Sends what the view lacks, as far as the client's pace allows: 1.20.2+
 * in batches it acknowledges, every version no further than its send queue
 * has room (srv_conn_chunks_must_wait: the rest goes when it drains). */
static void pump(srv_conn *c, view *v)
{
    if (v->work.queued)
        return; /* its turn comes in the queue (on_idle) */
    if (c->era.chunk_batches) {
        while (v->batches_in_flight < 2 && srv_view_waiting(&v->cols) && !c->closing && !v->work.queued &&
               !srv_conn_chunks_must_wait(c))
            send_batch(c, v);
    } else {
        send_some(c, v, SIZE_MAX);
    }
}

void srv_world_resume(srv_conn *c)
{
    if (c->view && c->state == MC_JAVA_PLAY)
        pump(c, c->view);
}

void srv_world_send_initial_chunks(srv_conn *c)
{
    view *v = calloc(1, sizeof *v);
    if (!v) {
        srv_conn_close(c, "out of memory");
        return;
    }
    c->view = v;
    v->conn = c;
    v->work.turn = view_turn;
    v->cols.vd = c->srv->cfg->view_distance;
    int32_t x, y, z;
    srv_world_spawn(c->srv, &x, &y, &z);
    view_recenter(c, v, x >> 4, z >> 4);
    pump(c, v);
}

void srv_world_view_free(srv_conn *c)
{
    view *v = c->view;
    if (!v)
        return;
    srv_world_work_cancel(c->srv->world, &v->work);
    srv_view_free(&v->cols);
    free(v);
    c->view = NULL;
}

uint64_t srv_world_view_sent(const srv_conn *c)
{
    const view *v = c->view;
    return v ? v->cols.sent_total : 0;
}

void srv_world_player_packet(srv_conn *c, const char *name, mc_reader *r)
{
    view *v = c->view;
    if (!v)
        return;
    if (!strcmp(name, "chunk_batch_received")) {
        float rate = mc_read_f32be(r);
        if (mc_reader_ok(r) && rate == rate && rate > 0 && rate < 1e6f) /* not NaN */
            v->chunks_per_tick = rate;
        if (v->batches_in_flight > 0)
            v->batches_in_flight--;
        pump(c, v);
    } else if (!strcmp(name, "position") || !strcmp(name, "position_look")) {
        double x = mc_read_f64be(r); /* every era starts with x, (feet) y, z */
        double y = mc_read_f64be(r);
        double z = mc_read_f64be(r);
        if (!mc_reader_ok(r) || !(fabs(x) < 3.0e7) || !(fabs(z) < 3.0e7) || !(fabs(y) < 1.0e5))
            return; /* vanilla kicks for this; ignoring is kinder and safe */
        srv_player_moved(c->srv, &c->player, x, y, z);
        srv_world_player_moved(c, x, z);
    }
}

void srv_world_player_moved(srv_conn *c, double x, double z)
{
    view *v = c->view;
    if (!v)
        return;
    int32_t cx = (int32_t)floor(x) >> 4, cz = (int32_t)floor(z) >> 4;
    if (cx != v->cols.cx || cz != v->cols.cz) {
        view_recenter(c, v, cx, cz);
        pump(c, v);
    }
}

void srv_world_log_translation(srv_server *srv, const mc_registry *world, const mc_registry *client,
                               const char *label)
{
    srv_world *w = srv->world;
    if (!w)
        return;
    if (!world)
        world = w->reg; /* the built-in world's (a folder's columns say theirs when sent) */
    if (!world || !client || client == world)
        return;
    for (unsigned i = 0; i < w->ntold; i++)
        if (w->told[i][0] == world && w->told[i][1] == client)
            return;
    if (w->ntold < sizeof w->told / sizeof w->told[0]) {
        w->told[w->ntold][0] = world;
        w->told[w->ntold++][1] = client;
    }
    const uint16_t *hows = mc_registry_map_how(world, client);
    if (!hows)
        return;
    uint64_t counts[MC_TRANSLATE_KIND_COUNT] = {0};
    uint32_t n = mc_registry_state_count(world);
    for (uint32_t s = 0; s < n; s++)
        if (mc_registry_state_valid(world, s))
            counts[mc_translate_kind_of(hows[s])]++;
    char line[400];
    size_t len = 0;
    for (int k = 0; k < MC_TRANSLATE_KIND_COUNT && len < sizeof line; k++)
        len += (size_t)snprintf(line + len, sizeof line - len, "%s%" PRIu64 " %s", k ? ", " : "", counts[k],
                                mc_translate_kind_name((mc_translate_kind)k));
    srv_log(srv, MC_LOG_INFO, "translation for %s clients: the world's states are %s (from %s; `mcchunk registry "
            "--report` lists them)", label, line, mc_registry_name(world));
}

void srv_world_players_json(void *user, mc_buf *out)
{
    srv_server *srv = user;
    mc_buf_put_u8(out, '[');
    for (const srv_player *p = srv->players; p; p = p->next) {
        const char *open = p == srv->players ? "{\"name\": " : ", {\"name\": ";
        mc_buf_put(out, open, strlen(open));
        srv_json_string(out, p->name);
        char rest[200];
        int n = snprintf(rest, sizeof rest, ", \"edition\": \"%s\", \"dimension\": \"overworld\", \"x\": %.2f, "
                         "\"y\": %.2f, \"z\": %.2f}", p->edition, p->x, p->y, p->z);
        mc_buf_put(out, rest, (size_t)n);
    }
    mc_buf_put_u8(out, ']');
}
