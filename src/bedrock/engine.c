/*
 * engine.c: the server side of the SubChunk request system (1.18+).
 *
 * A server sends each column as a "skeleton" LevelChunk (request mode, with
 * the highest non-air subchunk so the client skips known air above it, plus
 * the biomes); the client then asks for the subchunks it can see in batches
 * of offsets around a center, and the server answers each with a result, the
 * subchunk payload (blocks + that subchunk's block entities), and the
 * subchunk's slice of the column heightmap. With the client blob cache the
 * payload travels as a blob id and the bytes wait in the engine's blob cache
 * for ClientCacheBlobStatus.
 *
 * Columns come from an mc_bedrock_world_source; within one batch each column
 * is fetched once (a small table of the columns touched) and released at the
 * end.
 */
#include <string.h>

#include "bedrock_private.h"

struct mc_bedrock_engine {
    mc_bedrock_world_source src;
    mc_bedrock_engine_options opt;
    const mc_allocator *alloc;
    mc_bedrock_blob_cache *cache;
    mc_buf payloads;      /* payload bytes of the current answer */
    mc_bedrock_subchunk_entry *entries;
    uint32_t entries_cap;
    int8_t *heightmaps;   /* 256 per entry */
    size_t *payload_off;  /* per entry */
};

mc_bedrock_engine *mc_bedrock_engine_new(const mc_bedrock_world_source *src,
                                         const mc_bedrock_engine_options *opt, const mc_allocator *alloc)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    mc_bedrock_engine *e = a->alloc(a->user, sizeof *e);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->alloc = a;
    e->src = *src;
    if (opt)
        e->opt = *opt;
    if (!e->opt.protocol)
        e->opt.protocol = 776; /* 1.21.60 */
    e->cache = mc_bedrock_blob_cache_new(e->opt.cache_max_bytes, a);
    mc_buf_init(&e->payloads, a);
    if (!e->cache) {
        mc_bedrock_engine_free(e);
        return NULL;
    }
    return e;
}

static void free_arrays(mc_bedrock_engine *e)
{
    const mc_allocator *a = e->alloc;
    if (e->entries)
        a->free(a->user, e->entries, e->entries_cap * sizeof *e->entries);
    if (e->heightmaps)
        a->free(a->user, e->heightmaps, (size_t)e->entries_cap * 512);
    if (e->payload_off)
        a->free(a->user, e->payload_off, e->entries_cap * sizeof *e->payload_off);
    e->entries = NULL;
    e->heightmaps = NULL;
    e->payload_off = NULL;
    e->entries_cap = 0;
}

void mc_bedrock_engine_free(mc_bedrock_engine *e)
{
    if (!e)
        return;
    free_arrays(e);
    mc_bedrock_blob_cache_free(e->cache);
    mc_buf_free(&e->payloads);
    e->alloc->free(e->alloc->user, e, sizeof *e);
}

mc_bedrock_blob_cache *mc_bedrock_engine_cache(mc_bedrock_engine *e)
{
    return e->cache;
}

static bool reserve(mc_bedrock_engine *e, uint32_t n)
{
    if (n <= e->entries_cap)
        return true;
    free_arrays(e);
    const mc_allocator *a = e->alloc;
    uint32_t cap = 64;
    while (cap < n)
        cap *= 2;
    e->entries = a->alloc(a->user, cap * sizeof *e->entries);
    e->heightmaps = a->alloc(a->user, (size_t)cap * 512); /* heightmap + render heightmap */
    e->payload_off = a->alloc(a->user, cap * sizeof *e->payload_off);
    e->entries_cap = cap;
    if (!e->entries || !e->heightmaps || !e->payload_off) {
        free_arrays(e);
        return false;
    }
    return true;
}

mc_status mc_bedrock_engine_level_chunk(mc_bedrock_engine *e, const mc_bedrock_column *col, mc_buf *out,
                                        mc_error *err)
{
    int proto = e->opt.protocol;
    mc_buf payload;
    mc_buf_init(&payload, e->alloc);
    mc_status st = MC_OK;
    if (col->biomes.count)
        st = mc_bedrock_biomes_net_encode(&col->biomes, &payload, err);
    if (st != MC_OK) {
        mc_buf_free(&payload);
        return st;
    }
    mc_bedrock_level_chunk lc;
    memset(&lc, 0, sizeof lc);
    lc.x = col->x;
    lc.z = col->z;
    lc.dimension = col->dimension;
    int highest = mc_bedrock_column_highest(col);
    if (proto < MC_BEDROCK_PROTO_1_18_10) {
        lc.sub_chunk_count = MC_BEDROCK_REQUEST_LIMITLESS; /* 1.18.0 */
    } else {
        lc.sub_chunk_count = MC_BEDROCK_REQUEST_LIMITED;
        lc.has_highest = true;
        /* Mojang's doc: the index of the highest subchunk to request. With
         * nothing at all, 0 keeps the client from asking above the bottom. */
        lc.highest_subchunk = highest < 0 ? 0 : highest;
    }
    uint8_t blob_id[8];
    uint8_t border = 0;
    if (e->opt.cache_enabled && payload.len) {
        uint64_t id;
        st = mc_bedrock_blob_cache_put(e->cache, payload.data, payload.len, &id);
        if (st != MC_OK) {
            mc_buf_free(&payload);
            return mc_error_set(err, st, SIZE_MAX, "bedrock: blob cache: out of memory");
        }
        mc_store_u64le(blob_id, id);
        lc.cache_enabled = true;
        lc.blob_count = 1;
        lc.blob_ids = blob_id;
        lc.payload = &border;
        lc.payload_len = 1;
        st = mc_bedrock_level_chunk_encode(&lc, proto, out, err);
    } else {
        mc_buf_put_u8(&payload, 0); /* border blocks */
        lc.payload = payload.data;
        lc.payload_len = payload.len;
        st = mc_bedrock_level_chunk_encode(&lc, proto, out, err);
    }
    mc_buf_free(&payload);
    return st;
}

typedef struct fetched {
    int32_t cx, cz;
    mc_status status;
    const mc_bedrock_column *col;
} fetched;

#define MC_ENGINE_FETCH_MAX 64

static const mc_bedrock_column *fetch(mc_bedrock_engine *e, fetched *tab, unsigned *n, int32_t dim,
                                      int32_t cx, int32_t cz)
{
    for (unsigned i = *n; i-- > 0;)
        if (tab[i].cx == cx && tab[i].cz == cz)
            return tab[i].col;
    if (*n == MC_ENGINE_FETCH_MAX) {
        /* Table full: release the oldest (batches rarely touch this many). */
        if (tab[0].col && e->src.release)
            e->src.release(e->src.user, tab[0].col);
        memmove(tab, tab + 1, (MC_ENGINE_FETCH_MAX - 1) * sizeof *tab);
        (*n)--;
    }
    fetched f = {cx, cz, MC_ERR_NOT_FOUND, NULL};
    f.status = e->src.get(e->src.user, dim, cx, cz, &f.col);
    if (f.status != MC_OK)
        f.col = NULL;
    tab[(*n)++] = f;
    return f.col;
}

mc_status mc_bedrock_engine_answer_request(mc_bedrock_engine *e, const mc_bedrock_subchunk_request *req,
                                           mc_buf *out, mc_error *err)
{
    int proto = e->opt.protocol;
    if (!reserve(e, req->count ? req->count : 1))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    e->payloads.len = 0;
    fetched tab[MC_ENGINE_FETCH_MAX];
    unsigned ntab = 0;
    bool cache = e->opt.cache_enabled && proto >= MC_BEDROCK_PROTO_1_18_0;
    bool wrong_dim = req->dimension != e->opt.player_dimension;
    int32_t dmin = 0;
    uint32_t dcount = 0;
    bool dim_ok = mc_bedrock_dimension_range(req->dimension, &dmin, &dcount) == MC_OK;
    mc_status st = MC_OK;
    for (uint32_t i = 0; i < req->count && st == MC_OK; i++) {
        int8_t dx, dy, dz;
        mc_bedrock_request_offset(req, i, &dx, &dy, &dz);
        mc_bedrock_subchunk_entry *en = &e->entries[i];
        memset(en, 0, sizeof *en);
        en->dx = dx;
        en->dy = dy;
        en->dz = dz;
        en->has_payload = true;
        en->heightmap_type = MC_BEDROCK_HM_NO_DATA;
        en->render_type = MC_BEDROCK_HM_NO_DATA;
        e->payload_off[i] = e->payloads.len;
        if (wrong_dim || !dim_ok) {
            en->result = MC_BEDROCK_RESULT_INVALID_DIMENSION;
            continue;
        }
        int32_t cx = req->x + dx, sy = req->y + dy, cz = req->z + dz;
        const mc_bedrock_column *col = fetch(e, tab, &ntab, req->dimension, cx, cz);
        if (!col) {
            en->result = MC_BEDROCK_RESULT_CHUNK_NOT_FOUND;
            continue;
        }
        int32_t idx = sy - col->min_y;
        if (idx < 0 || (uint32_t)idx >= col->count) {
            en->result = MC_BEDROCK_RESULT_Y_OUT_OF_BOUNDS;
            continue;
        }
        int8_t *hm = e->heightmaps + (size_t)i * 512;
        en->heightmap_type = (uint8_t)mc_bedrock_column_subchunk_heightmap(col, (uint32_t)idx, hm);
        if (en->heightmap_type == MC_BEDROCK_HM_HAS_DATA) {
            en->heightmap = hm;
            /* 1.21.90+: the render heightmap; without separate render data
             * it is the same as the heightmap. */
            en->render_type = en->heightmap_type;
            en->render_heightmap = hm;
        } else {
            en->render_type = en->heightmap_type;
        }
        const mc_bedrock_subchunk *sc = &col->subchunks[idx];
        bool air = (sc->storage_count == 0 || mc_bedrock_storage_is_uniform(&sc->storages[0], col->air)) &&
                   col->block_entities[idx].len == 0;
        if (air) {
            en->result = MC_BEDROCK_RESULT_SUCCESS_ALL_AIR;
            en->has_payload = !cache;
            continue;
        }
        en->result = MC_BEDROCK_RESULT_SUCCESS;
        size_t start = e->payloads.len;
        st = mc_bedrock_column_subchunk_payload(col, (uint32_t)idx, &e->payloads, err);
        if (st != MC_OK)
            break;
        if (cache) {
            uint64_t id;
            st = mc_bedrock_blob_cache_put(e->cache, e->payloads.data + start, e->payloads.len - start, &id);
            if (st != MC_OK) {
                mc_error_set(err, st, SIZE_MAX, "bedrock: blob cache: out of memory");
                break;
            }
            en->has_blob = true;
            en->blob_id = id;
            e->payloads.len = start; /* the bytes travel as a blob */
        }
    }
    for (unsigned k = 0; k < ntab; k++)
        if (tab[k].col && e->src.release)
            e->src.release(e->src.user, tab[k].col);
    if (st != MC_OK)
        return st;
    if (!mc_buf_ok(&e->payloads))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    /* Payload pointers are fixed up only now: the buffer may have moved. */
    for (uint32_t i = 0; i < req->count; i++) {
        size_t end = i + 1 < req->count ? e->payload_off[i + 1] : e->payloads.len;
        e->entries[i].payload = e->payloads.data ? e->payloads.data + e->payload_off[i] : NULL;
        e->entries[i].payload_len = end - e->payload_off[i];
        if (cache && e->entries[i].result != MC_BEDROCK_RESULT_SUCCESS_ALL_AIR) {
            e->entries[i].has_blob = true;
        }
    }
    mc_bedrock_subchunk_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.cache_enabled = cache;
    pk.dimension = req->dimension;
    pk.x = req->x;
    pk.y = req->y;
    pk.z = req->z;
    pk.count = req->count;
    pk.entries = e->entries;
    if (proto < MC_BEDROCK_PROTO_1_18_10 && req->count != 1)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: 1.18.0 answers one subchunk");
    return mc_bedrock_subchunk_packet_encode(&pk, proto, out, err);
}

mc_status mc_bedrock_engine_answer(mc_bedrock_engine *e, const uint8_t *request, size_t request_len,
                                   mc_buf *out, mc_error *err)
{
    mc_bedrock_subchunk_request req;
    mc_status st = mc_bedrock_subchunk_request_decode(&req, e->opt.protocol, request, request_len, err);
    if (st != MC_OK)
        return st;
    return mc_bedrock_engine_answer_request(e, &req, out, err);
}
