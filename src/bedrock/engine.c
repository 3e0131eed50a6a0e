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
    mc_buf payloads;      /* scratch: a payload on its way into the blob cache */
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

void mc_bedrock_engine_free(mc_bedrock_engine *e)
{
    if (!e)
        return;
    mc_bedrock_blob_cache_free(e->cache);
    mc_buf_free(&e->payloads);
    e->alloc->free(e->alloc->user, e, sizeof *e);
}

mc_bedrock_blob_cache *mc_bedrock_engine_cache(mc_bedrock_engine *e)
{
    return e->cache;
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
    int32_t lo, hi; /* range of the column's heights */
} fetched;

#define MC_ENGINE_FETCH_MAX 64

static const fetched *fetch(mc_bedrock_engine *e, fetched *tab, unsigned *n, int32_t dim, int32_t cx,
                            int32_t cz)
{
    for (unsigned i = *n; i-- > 0;)
        if (tab[i].cx == cx && tab[i].cz == cz)
            return &tab[i];
    if (*n == MC_ENGINE_FETCH_MAX) {
        /* Table full: release the oldest (batches rarely touch this many). */
        if (tab[0].col && e->src.release)
            e->src.release(e->src.user, tab[0].col);
        memmove(tab, tab + 1, (MC_ENGINE_FETCH_MAX - 1) * sizeof *tab);
        (*n)--;
    }
    fetched f = {cx, cz, MC_ERR_NOT_FOUND, NULL, 0, 0};
    f.status = e->src.get(e->src.user, dim, cx, cz, &f.col);
    if (f.status != MC_OK)
        f.col = NULL;
    else
        mc__bedrock_height_range(f.col, &f.lo, &f.hi);
    tab[*n] = f;
    return &tab[(*n)++];
}

/* Writes the payload of one subchunk in place (the length is known). */
typedef struct payload_ctx {
    const mc_bedrock_column *col;
    uint32_t index;
} payload_ctx;

static mc_status write_payload(void *ctx, mc_buf *out)
{
    payload_ctx *p = ctx;
    return mc_bedrock_column_subchunk_payload(p->col, p->index, out, NULL);
}

static size_t payload_size(const mc_bedrock_column *col, uint32_t i)
{
    const mc_bedrock_subchunk *sc = &col->subchunks[i];
    size_t n = sc->storage_count ? mc__bedrock_subchunk_net_size(sc)
                                 : 4 + mc_uvarint_size(((uint32_t)col->air << 1) ^ (uint32_t)((int32_t)col->air >> 31));
    return n + col->block_entities[i].len;
}

/* Resolves one offset of a request into an entry; payload_ctx is set when
 * the entry carries this subchunk's payload. */
static void resolve(mc_bedrock_engine *e, const mc_bedrock_subchunk_request *req, uint32_t i, fetched *tab,
                    unsigned *ntab, bool dim_ok, mc_bedrock_subchunk_entry *en, int8_t *hm, payload_ctx *pc,
                    bool cache)
{
    int8_t dx, dy, dz;
    mc_bedrock_request_offset(req, i, &dx, &dy, &dz);
    en->dx = dx;
    en->dy = dy;
    en->dz = dz;
    en->has_payload = true;
    en->payload = NULL;
    en->payload_len = 0;
    en->heightmap_type = MC_BEDROCK_HM_NO_DATA;
    en->render_type = MC_BEDROCK_HM_NO_DATA;
    en->heightmap = en->render_heightmap = NULL;
    en->has_blob = false;
    en->blob_id = 0;
    pc->col = NULL;
    if (!dim_ok) {
        en->result = MC_BEDROCK_RESULT_INVALID_DIMENSION;
        return;
    }
    const fetched *f = fetch(e, tab, ntab, req->dimension, req->x + dx, req->z + dz);
    const mc_bedrock_column *col = f->col;
    if (!col) {
        en->result = MC_BEDROCK_RESULT_CHUNK_NOT_FOUND;
        return;
    }
    int32_t idx = req->y + dy - col->min_y;
    if (idx < 0 || (uint32_t)idx >= col->count) {
        en->result = MC_BEDROCK_RESULT_Y_OUT_OF_BOUNDS;
        return;
    }
    en->heightmap_type = (uint8_t)mc__bedrock_subchunk_heightmap_in(col, (uint32_t)idx, f->lo, f->hi, hm);
    if (en->heightmap_type == MC_BEDROCK_HM_HAS_DATA)
        en->heightmap = hm;
    /* 1.21.90+: the render heightmap; without separate render data it is
     * the heightmap itself. */
    en->render_type = en->heightmap_type;
    en->render_heightmap = en->heightmap;
    const mc_bedrock_subchunk *sc = &col->subchunks[idx];
    if (mc__bedrock_subchunk_all_air(sc, col->air) && col->block_entities[idx].len == 0) {
        en->result = MC_BEDROCK_RESULT_SUCCESS_ALL_AIR;
        en->has_payload = !cache;
        return;
    }
    en->result = MC_BEDROCK_RESULT_SUCCESS;
    pc->col = col;
    pc->index = (uint32_t)idx;
}

mc_status mc_bedrock_engine_answer_request(mc_bedrock_engine *e, const mc_bedrock_subchunk_request *req,
                                           mc_buf *out, mc_error *err)
{
    int proto = e->opt.protocol;
    bool cache = e->opt.cache_enabled && proto >= MC_BEDROCK_PROTO_1_18_0;
    int32_t dmin;
    uint32_t dcount;
    bool dim_ok = req->dimension == e->opt.player_dimension &&
                  mc_bedrock_dimension_range(req->dimension, &dmin, &dcount) == MC_OK;
    fetched tab[MC_ENGINE_FETCH_MAX];
    unsigned ntab = 0;
    mc_status st = MC_OK;
    size_t start = out->len;
    int8_t hm[256];
    mc_bedrock_subchunk_entry en;
    memset(&en, 0, sizeof en);
    payload_ctx pc;
    if (proto < MC_BEDROCK_PROTO_1_18_10) {
        /* 471/475: one subchunk per packet, through the struct encoder */
        if (req->count != 1)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: 1.18.0 answers one subchunk");
        resolve(e, req, 0, tab, &ntab, dim_ok, &en, hm, &pc, false);
        if (en.result == MC_BEDROCK_RESULT_SUCCESS_ALL_AIR) {
            /* no such result before 486: a success carrying the air subchunk */
            const fetched *f = fetch(e, tab, &ntab, req->dimension, req->x, req->z);
            pc.col = f->col;
            pc.index = (uint32_t)(req->y - f->col->min_y);
            en.result = MC_BEDROCK_RESULT_SUCCESS;
        }
        e->payloads.len = 0;
        if (pc.col)
            st = mc_bedrock_column_subchunk_payload(pc.col, pc.index, &e->payloads, err);
        if (st == MC_OK && pc.col && cache) {
            uint64_t id;
            st = mc_bedrock_blob_cache_put(e->cache, e->payloads.data, e->payloads.len, &id);
            en.has_blob = true;
            en.blob_id = id;
            e->payloads.len = 0; /* the bytes travel as a blob */
        }
        en.payload = e->payloads.data;
        en.payload_len = e->payloads.len;
        en.has_payload = true;
        mc_bedrock_subchunk_packet pk = {cache, req->dimension, req->x, req->y, req->z, 1, &en, 1, NULL};
        if (st == MC_OK)
            st = mc_bedrock_subchunk_packet_encode(&pk, proto, out, err);
        goto done;
    }
    mc__bedrock_put_subchunk_header(out, proto, cache, req->dimension, req->x, req->y, req->z, req->count);
    for (uint32_t i = 0; i < req->count && st == MC_OK; i++) {
        resolve(e, req, i, tab, &ntab, dim_ok, &en, hm, &pc, cache);
        if (!pc.col) {
            st = mc__bedrock_put_entry(out, proto, cache, &en, 0, NULL, NULL);
        } else if (cache) {
            e->payloads.len = 0;
            st = mc_bedrock_column_subchunk_payload(pc.col, pc.index, &e->payloads, err);
            uint64_t id = 0;
            if (st == MC_OK)
                st = mc_bedrock_blob_cache_put(e->cache, e->payloads.data, e->payloads.len, &id);
            en.has_blob = true;
            en.blob_id = id;
            /* the bytes travel as a blob: an empty payload (vanilla does the same) */
            if (st == MC_OK)
                st = mc__bedrock_put_entry(out, proto, cache, &en, 0, NULL, NULL);
        } else {
            st = mc__bedrock_put_entry(out, proto, cache, &en, payload_size(pc.col, pc.index), write_payload, &pc);
        }
    }
done:
    for (unsigned k = 0; k < ntab; k++)
        if (tab[k].col && e->src.release)
            e->src.release(e->src.user, tab[k].col);
    if (st == MC_OK && !mc_buf_ok(out))
        st = MC_ERR_NOMEM;
    if (st != MC_OK) {
        out->len = start;
        if (err && err->status == MC_OK)
            mc_error_set(err, st, SIZE_MAX, "bedrock: cannot answer the request");
    }
    return st;
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
