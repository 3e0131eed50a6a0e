/*
 * packets.c: the Bedrock chunk packets -- LevelChunk, SubChunkRequest,
 * SubChunk, ClientCacheBlobStatus and ClientCacheMissResponse -- for every
 * protocol whose layout differs.
 *
 * Packets are plain structs whose byte ranges (payloads, heightmaps, blob id
 * arrays) point into the input, so decoding allocates nothing except the
 * entry array of a SubChunk packet. Each layout change is keyed on the
 * protocol number where it happened (the MC_BEDROCK_PROTO_* constants), and
 * release names map to protocols through the registry module's version
 * table (the releases minecraft-data knows).
 */
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"

/* ------------------------------------------------------------ versions */

/* Names and protocols come from the registry module's version table (one
 * table, generated from minecraft-data with the registries), oldest first. */
int mc_bedrock_protocol(const char *version)
{
    if (!version || !*version)
        return 0;
    mc_version_info v;
    for (size_t i = 0; mc_bedrock_version_at(i, &v); i++)
        if (!strcmp(v.name, version))
            return v.protocol;
    char *end;
    long n = strtol(version, &end, 10);
    if (*end == 0 && n > 0 && n < 100000)
        return (int)n;
    return 0;
}

const char *mc_bedrock_version_name(int protocol)
{
    const char *best = NULL;
    mc_version_info v;
    for (size_t i = 0; mc_bedrock_version_at(i, &v); i++)
        if (v.protocol == protocol)
            best = v.name;
    return best;
}

const char *mc_bedrock_result_name(unsigned result)
{
    static const char *const n[] = {"undefined", "success", "chunk_not_found", "invalid_dimension",
                                    "player_not_found", "y_index_out_of_bounds", "success_all_air"};
    return result < 7 ? n[result] : "?";
}

const char *mc_bedrock_heightmap_type_name(unsigned type)
{
    static const char *const n[] = {"no_data", "has_data", "too_high", "too_low", "all_copied"};
    return type < 5 ? n[type] : "?";
}

mc_status mc_bedrock_packet_id(const uint8_t *data, size_t len, uint32_t *id, size_t *header_len,
                               mc_error *err)
{
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock packet", err);
    uint32_t v = mc_read_uvarint32(&r);
    if (!mc_reader_ok(&r))
        return r.status;
    /* The header varint holds the id in its low 10 bits (sub-client ids above). */
    *id = v & 0x3FF;
    *header_len = r.pos;
    return MC_OK;
}

static mc_status finish(mc_reader *r)
{
    if (mc_reader_ok(r) && mc_reader_remaining(r))
        mc_reader_fail(r, MC_ERR_MALFORMED, "bedrock: %zu bytes after the packet", mc_reader_remaining(r));
    return r->status;
}

static const uint8_t *read_u64_array(mc_reader *r, uint32_t n, const char *what)
{
    if ((uint64_t)n * 8 > mc_reader_remaining(r)) {
        mc_reader_fail(r, MC_ERR_TRUNCATED, "bedrock: %s of %u ids exceeds remaining %zu bytes", what, n,
                       mc_reader_remaining(r));
        return NULL;
    }
    return mc_read_bytes(r, (size_t)n * 8, what);
}

/* ByteArray: uvarint length + bytes. */
static const uint8_t *read_byte_array(mc_reader *r, size_t *len)
{
    uint32_t n = mc_read_uvarint32(r);
    *len = n;
    if (!mc_reader_ok(r))
        return NULL;
    const uint8_t *p = mc_read_bytes(r, n, "byte array");
    if (!p && mc_reader_ok(r))
        return r->data + r->pos;
    return p;
}

/* ---------------------------------------------------------- LevelChunk */

mc_status mc_bedrock_level_chunk_decode(mc_bedrock_level_chunk *p, int protocol, const uint8_t *data,
                                        size_t len, mc_error *err)
{
    memset(p, 0, sizeof *p);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock level_chunk", err);
    p->x = mc_read_zigzag32(&r);
    p->z = mc_read_zigzag32(&r);
    if (protocol >= MC_BEDROCK_PROTO_1_20_60) /* 1.20.60+: dimension */
        p->dimension = mc_read_zigzag32(&r);
    p->sub_chunk_count = mc_read_uvarint32(&r);
    if (protocol >= MC_BEDROCK_PROTO_1_26_40) { /* 1.26.40+: option<zigzag32> */
        p->has_highest = mc_read_u8(&r) != 0;
        if (p->has_highest)
            p->highest_subchunk = mc_read_zigzag32(&r);
    } else if (protocol >= MC_BEDROCK_PROTO_1_18_10 && p->sub_chunk_count == MC_BEDROCK_REQUEST_LIMITED) {
        p->has_highest = true;
        p->highest_subchunk = mc_read_u16le(&r);
    }
    p->cache_enabled = mc_read_u8(&r) != 0;
    if (protocol >= MC_BEDROCK_PROTO_1_26_40 || p->cache_enabled) {
        p->blob_count = mc_read_uvarint32(&r);
        if (mc_reader_ok(&r))
            p->blob_ids = read_u64_array(&r, p->blob_count, "blob ids");
    }
    if (mc_reader_ok(&r))
        p->payload = read_byte_array(&r, &p->payload_len);
    return finish(&r);
}

mc_status mc_bedrock_level_chunk_encode(const mc_bedrock_level_chunk *p, int protocol, mc_buf *out,
                                        mc_error *err)
{
    mc_buf_put_zigzag32(out, p->x);
    mc_buf_put_zigzag32(out, p->z);
    if (protocol >= MC_BEDROCK_PROTO_1_20_60)
        mc_buf_put_zigzag32(out, p->dimension);
    mc_buf_put_uvarint32(out, p->sub_chunk_count);
    if (protocol >= MC_BEDROCK_PROTO_1_26_40) {
        mc_buf_put_u8(out, p->has_highest);
        if (p->has_highest)
            mc_buf_put_zigzag32(out, p->highest_subchunk);
    } else if (protocol >= MC_BEDROCK_PROTO_1_18_10 && p->sub_chunk_count == MC_BEDROCK_REQUEST_LIMITED) {
        mc_buf_put_u16le(out, (uint16_t)p->highest_subchunk);
    }
    mc_buf_put_u8(out, p->cache_enabled);
    if (protocol >= MC_BEDROCK_PROTO_1_26_40 || p->cache_enabled) {
        mc_buf_put_uvarint32(out, p->blob_count);
        mc_buf_put(out, p->blob_ids, (size_t)p->blob_count * 8);
    }
    mc_buf_put_uvarint32(out, (uint32_t)p->payload_len);
    mc_buf_put(out, p->payload, p->payload_len);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

/* ----------------------------------------------------- SubChunkRequest */

mc_status mc_bedrock_subchunk_request_decode(mc_bedrock_subchunk_request *p, int protocol,
                                             const uint8_t *data, size_t len, mc_error *err)
{
    memset(p, 0, sizeof *p);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock subchunk_request", err);
    p->dimension = mc_read_zigzag32(&r);
    if (protocol < MC_BEDROCK_PROTO_1_18_10) { /* 471-475: one subchunk */
        p->x = mc_read_zigzag32(&r);
        p->y = mc_read_zigzag32(&r);
        p->z = mc_read_zigzag32(&r);
        p->count = 1;
    } else if (protocol < MC_BEDROCK_PROTO_1_26_30) { /* 486-975 */
        p->x = mc_read_zigzag32(&r);
        p->y = mc_read_zigzag32(&r);
        p->z = mc_read_zigzag32(&r);
        p->count = mc_read_u32le(&r);
        if (mc_reader_ok(&r)) {
            if ((uint64_t)p->count * 3 > mc_reader_remaining(&r))
                mc_reader_fail(&r, MC_ERR_TRUNCATED, "bedrock: %u offsets exceed remaining %zu bytes", p->count,
                               mc_reader_remaining(&r));
            else
                p->offsets = mc_read_bytes(&r, (size_t)p->count * 3, "offsets");
        }
    } else { /* 1001+: offsets (varint count, at most 8192), then center as i32le */
        p->count = mc_read_uvarint32(&r);
        if (mc_reader_ok(&r)) {
            if (p->count > 8192)
                mc_reader_fail(&r, MC_ERR_LIMIT, "bedrock: %u offsets (at most 8192)", p->count);
            else if ((uint64_t)p->count * 3 > mc_reader_remaining(&r))
                mc_reader_fail(&r, MC_ERR_TRUNCATED, "bedrock: %u offsets exceed remaining %zu bytes", p->count,
                               mc_reader_remaining(&r));
            else
                p->offsets = mc_read_bytes(&r, (size_t)p->count * 3, "offsets");
        }
        p->x = mc_read_i32le(&r);
        p->y = mc_read_i32le(&r);
        p->z = mc_read_i32le(&r);
    }
    return finish(&r);
}

mc_status mc_bedrock_subchunk_request_encode(const mc_bedrock_subchunk_request *p, int protocol,
                                             mc_buf *out, mc_error *err)
{
    mc_buf_put_zigzag32(out, p->dimension);
    if (protocol < MC_BEDROCK_PROTO_1_18_10) {
        int8_t dx = 0, dy = 0, dz = 0;
        if (p->count && p->offsets)
            mc_bedrock_request_offset(p, 0, &dx, &dy, &dz);
        mc_buf_put_zigzag32(out, p->x + dx);
        mc_buf_put_zigzag32(out, p->y + dy);
        mc_buf_put_zigzag32(out, p->z + dz);
    } else if (protocol < MC_BEDROCK_PROTO_1_26_30) {
        mc_buf_put_zigzag32(out, p->x);
        mc_buf_put_zigzag32(out, p->y);
        mc_buf_put_zigzag32(out, p->z);
        mc_buf_put_u32le(out, p->count);
        mc_buf_put(out, p->offsets, (size_t)p->count * 3);
    } else {
        if (p->count > 8192)
            return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "bedrock: %u offsets (at most 8192)", p->count);
        mc_buf_put_uvarint32(out, p->count);
        mc_buf_put(out, p->offsets, (size_t)p->count * 3);
        mc_buf_put_u32le(out, (uint32_t)p->x);
        mc_buf_put_u32le(out, (uint32_t)p->y);
        mc_buf_put_u32le(out, (uint32_t)p->z);
    }
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

void mc_bedrock_request_offset(const mc_bedrock_subchunk_request *p, uint32_t i, int8_t *dx,
                               int8_t *dy, int8_t *dz)
{
    if (!p->offsets || i >= p->count) {
        *dx = *dy = *dz = 0;
        return;
    }
    *dx = (int8_t)p->offsets[3 * i];
    *dy = (int8_t)p->offsets[3 * i + 1];
    *dz = (int8_t)p->offsets[3 * i + 2];
}

/* ------------------------------------------------------------ SubChunk */

static const int8_t *read_heightmap(mc_reader *r)
{
    return (const int8_t *)mc_read_bytes(r, 256, "heightmap");
}

static bool grow_entries(mc_bedrock_subchunk_packet *p, uint32_t need)
{
    if (need <= p->entries_cap)
        return true;
    uint32_t ncap = p->entries_cap ? p->entries_cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    const mc_allocator *a = mc_alloc_or_default(p->alloc);
    void *e = a->realloc(a->user, p->entries, p->entries_cap * sizeof *p->entries, ncap * sizeof *p->entries);
    if (!e)
        return false;
    p->entries = e;
    p->entries_cap = ncap;
    return true;
}

void mc_bedrock_subchunk_packet_free(mc_bedrock_subchunk_packet *p)
{
    if (p->entries) {
        const mc_allocator *a = mc_alloc_or_default(p->alloc);
        a->free(a->user, p->entries, p->entries_cap * sizeof *p->entries);
    }
    p->entries = NULL;
    p->entries_cap = 0;
    p->count = 0;
}

/* 2193+ (1.26.51): a heightmap is 16 rows, each a varint count (16) and
 * that many int8. The rows are copied together into `rows` (256 bytes). */
static const int8_t *read_heightmap_rows(mc_reader *r, int8_t *rows)
{
    for (int z = 0; z < 16; z++) {
        uint32_t n = mc_read_uvarint32(r);
        if (mc_reader_ok(r) && n != 16) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "bedrock: heightmap row of %u values (16 expected)", n);
            return NULL;
        }
        const uint8_t *p = mc_read_bytes(r, 16, "heightmap row");
        if (!p)
            return NULL;
        memcpy(rows + 16 * z, p, 16);
    }
    return rows;
}

mc_status mc_bedrock_subchunk_packet_decode(mc_bedrock_subchunk_packet *p, int protocol,
                                            const uint8_t *data, size_t len, const mc_allocator *alloc,
                                            mc_error *err)
{
    memset(p, 0, sizeof *p);
    p->alloc = mc_alloc_or_default(alloc);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock subchunk", err);
    if (protocol < MC_BEDROCK_PROTO_1_18_10) { /* 471/475: one subchunk */
        if (!grow_entries(p, 1))
            return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
        mc_bedrock_subchunk_entry *e = &p->entries[0];
        memset(e, 0, sizeof *e);
        p->dimension = mc_read_zigzag32(&r);
        p->x = mc_read_zigzag32(&r);
        p->y = mc_read_zigzag32(&r);
        p->z = mc_read_zigzag32(&r);
        e->payload = read_byte_array(&r, &e->payload_len);
        e->has_payload = true;
        e->result = (uint8_t)mc_read_zigzag32(&r);
        e->heightmap_type = mc_read_u8(&r);
        if (e->heightmap_type == MC_BEDROCK_HM_HAS_DATA)
            e->heightmap = read_heightmap(&r);
        if (protocol >= MC_BEDROCK_PROTO_1_18_0) { /* 475 */
            p->cache_enabled = mc_read_u8(&r) != 0;
            if (p->cache_enabled) {
                e->has_blob = true;
                e->blob_id = mc_read_u64le(&r);
            }
        }
        p->count = 1;
        mc_status st = finish(&r);
        if (st != MC_OK)
            mc_bedrock_subchunk_packet_free(p);
        return st;
    }
    bool v2168 = protocol >= MC_BEDROCK_PROTO_1_26_40;
    bool rows = protocol >= MC_BEDROCK_PROTO_1_26_51;
    p->cache_enabled = mc_read_u8(&r) != 0;
    p->dimension = mc_read_zigzag32(&r);
    if (v2168) {
        p->x = mc_read_i32le(&r);
        p->y = mc_read_i32le(&r);
        p->z = mc_read_i32le(&r);
    } else {
        p->x = mc_read_zigzag32(&r);
        p->y = mc_read_zigzag32(&r);
        p->z = mc_read_zigzag32(&r);
    }
    uint32_t n = v2168 ? mc_read_uvarint32(&r) : mc_read_u32le(&r);
    /* An entry takes at least 5 bytes. */
    if (mc_reader_ok(&r) && (uint64_t)n * 5 > mc_reader_remaining(&r))
        mc_reader_fail(&r, MC_ERR_TRUNCATED, "bedrock: %u entries exceed remaining %zu bytes", n,
                       mc_reader_remaining(&r));
    if (mc_reader_ok(&r) && !grow_entries(p, n))
        mc_reader_fail(&r, MC_ERR_NOMEM, "bedrock: out of memory");
    for (uint32_t i = 0; i < n && mc_reader_ok(&r); i++) {
        mc_bedrock_subchunk_entry *e = &p->entries[i];
        memset(e, 0, sizeof *e);
        e->dx = mc_read_i8(&r);
        e->dy = mc_read_i8(&r);
        e->dz = mc_read_i8(&r);
        e->result = mc_read_u8(&r);
        if (v2168) {
            e->has_payload = mc_read_u8(&r) != 0;
            if (e->has_payload)
                e->payload = read_byte_array(&r, &e->payload_len);
            e->heightmap_type = mc_read_u8(&r);
            if (mc_read_u8(&r))
                e->heightmap = rows ? read_heightmap_rows(&r, e->hm_rows) : read_heightmap(&r);
            e->render_type = mc_read_u8(&r);
            if (mc_read_u8(&r))
                e->render_heightmap = rows ? read_heightmap_rows(&r, e->hm_rows + 256) : read_heightmap(&r);
            e->has_blob = mc_read_u8(&r) != 0;
            if (e->has_blob)
                e->blob_id = mc_read_u64le(&r);
        } else {
            /* 486+: no payload iff cached and all air */
            e->has_payload = !(p->cache_enabled && e->result == MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
            if (e->has_payload)
                e->payload = read_byte_array(&r, &e->payload_len);
            e->heightmap_type = mc_read_u8(&r);
            if (e->heightmap_type == MC_BEDROCK_HM_HAS_DATA)
                e->heightmap = read_heightmap(&r);
            if (protocol >= MC_BEDROCK_PROTO_1_21_90) { /* 818+: render heightmap */
                e->render_type = mc_read_u8(&r);
                if (e->render_type == MC_BEDROCK_HM_HAS_DATA)
                    e->render_heightmap = read_heightmap(&r);
            }
            if (p->cache_enabled) {
                e->has_blob = true;
                e->blob_id = mc_read_u64le(&r);
            }
        }
        p->count = i + 1;
    }
    mc_status st = finish(&r);
    if (st != MC_OK)
        mc_bedrock_subchunk_packet_free(p);
    return st;
}

static void put_heightmap_rows(mc_buf *out, const int8_t *hm)
{
    for (int z = 0; z < 16; z++) {
        mc_buf_put_u8(out, 16);
        mc_buf_put(out, hm + 16 * z, 16);
    }
}

static void put_heightmap(mc_buf *out, const int8_t *hm)
{
    if (hm)
        mc_buf_put(out, hm, 256);
    else {
        uint8_t *d = mc_buf_extend(out, 256);
        if (d)
            memset(d, 0, 256);
    }
}

void mc__bedrock_put_subchunk_header(mc_buf *out, int protocol, bool cache, int32_t dimension, int32_t x,
                                     int32_t y, int32_t z, uint32_t count)
{
    mc_buf_put_u8(out, cache);
    mc_buf_put_zigzag32(out, dimension);
    if (protocol >= MC_BEDROCK_PROTO_1_26_40) { /* 2168+: fixed-width center, varint count */
        mc_buf_put_u32le(out, (uint32_t)x);
        mc_buf_put_u32le(out, (uint32_t)y);
        mc_buf_put_u32le(out, (uint32_t)z);
        mc_buf_put_uvarint32(out, count);
    } else {
        mc_buf_put_zigzag32(out, x);
        mc_buf_put_zigzag32(out, y);
        mc_buf_put_zigzag32(out, z);
        mc_buf_put_u32le(out, count);
    }
}

mc_status mc__bedrock_put_entry(mc_buf *out, int protocol, bool cache, const mc_bedrock_subchunk_entry *e,
                                size_t payload_len, mc__bedrock_payload_fn fn, void *ctx)
{
    bool v2168 = protocol >= MC_BEDROCK_PROTO_1_26_40;
    bool rows = protocol >= MC_BEDROCK_PROTO_1_26_51;
    mc_status st = MC_OK;
    if (!fn)
        payload_len = e->payload_len;
    mc_buf_put_u8(out, (uint8_t)e->dx);
    mc_buf_put_u8(out, (uint8_t)e->dy);
    mc_buf_put_u8(out, (uint8_t)e->dz);
    mc_buf_put_u8(out, e->result);
    bool with_payload = v2168 ? e->has_payload : !(cache && e->result == MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
    if (v2168)
        mc_buf_put_u8(out, e->has_payload);
    if (with_payload) {
        mc_buf_put_uvarint32(out, (uint32_t)payload_len);
        if (fn)
            st = fn(ctx, out);
        else
            mc_buf_put(out, e->payload, payload_len);
    }
    mc_buf_put_u8(out, e->heightmap_type);
    if (v2168) {
        mc_buf_put_u8(out, e->heightmap != NULL);
        if (e->heightmap)
            (rows ? put_heightmap_rows : put_heightmap)(out, e->heightmap);
        mc_buf_put_u8(out, e->render_type);
        mc_buf_put_u8(out, e->render_heightmap != NULL);
        if (e->render_heightmap)
            (rows ? put_heightmap_rows : put_heightmap)(out, e->render_heightmap);
        mc_buf_put_u8(out, e->has_blob);
        if (e->has_blob)
            mc_buf_put_u64le(out, e->blob_id);
        return st;
    }
    if (e->heightmap_type == MC_BEDROCK_HM_HAS_DATA)
        put_heightmap(out, e->heightmap);
    if (protocol >= MC_BEDROCK_PROTO_1_21_90) { /* 818+ */
        mc_buf_put_u8(out, e->render_type);
        if (e->render_type == MC_BEDROCK_HM_HAS_DATA)
            put_heightmap(out, e->render_heightmap);
    }
    if (cache)
        mc_buf_put_u64le(out, e->blob_id);
    return st;
}

mc_status mc_bedrock_subchunk_packet_encode(const mc_bedrock_subchunk_packet *p, int protocol,
                                            mc_buf *out, mc_error *err)
{
    if (protocol < MC_BEDROCK_PROTO_1_18_10) {
        if (p->count != 1)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "bedrock: protocol %d carries exactly one subchunk", protocol);
        const mc_bedrock_subchunk_entry *e = &p->entries[0];
        mc_buf_put_zigzag32(out, p->dimension);
        mc_buf_put_zigzag32(out, p->x + e->dx);
        mc_buf_put_zigzag32(out, p->y + e->dy);
        mc_buf_put_zigzag32(out, p->z + e->dz);
        mc_buf_put_uvarint32(out, (uint32_t)e->payload_len);
        mc_buf_put(out, e->payload, e->payload_len);
        mc_buf_put_zigzag32(out, e->result);
        mc_buf_put_u8(out, e->heightmap_type);
        if (e->heightmap_type == MC_BEDROCK_HM_HAS_DATA)
            put_heightmap(out, e->heightmap);
        if (protocol >= MC_BEDROCK_PROTO_1_18_0) {
            mc_buf_put_u8(out, p->cache_enabled);
            if (p->cache_enabled)
                mc_buf_put_u64le(out, e->blob_id);
        }
        return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    }
    mc__bedrock_put_subchunk_header(out, protocol, p->cache_enabled, p->dimension, p->x, p->y, p->z, p->count);
    for (uint32_t i = 0; i < p->count; i++)
        mc__bedrock_put_entry(out, protocol, p->cache_enabled, &p->entries[i], 0, NULL, NULL);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

/* ----------------------------------------------------- blob cache packets */

mc_status mc_bedrock_blob_status_decode(mc_bedrock_blob_status *p, int protocol, const uint8_t *data,
                                        size_t len, mc_error *err)
{
    memset(p, 0, sizeof *p);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock client_cache_blob_status", err);
    if (protocol >= MC_BEDROCK_PROTO_1_26_30) { /* 1001+: two prefixed arrays */
        p->missing_count = mc_read_uvarint32(&r);
        if (mc_reader_ok(&r))
            p->missing = read_u64_array(&r, p->missing_count, "missing");
        p->have_count = mc_read_uvarint32(&r);
        if (mc_reader_ok(&r))
            p->have = read_u64_array(&r, p->have_count, "have");
    } else { /* two counts, then both arrays */
        p->missing_count = mc_read_uvarint32(&r);
        p->have_count = mc_read_uvarint32(&r);
        if (mc_reader_ok(&r))
            p->missing = read_u64_array(&r, p->missing_count, "missing");
        if (mc_reader_ok(&r))
            p->have = read_u64_array(&r, p->have_count, "have");
    }
    return finish(&r);
}

mc_status mc_bedrock_blob_status_encode(const mc_bedrock_blob_status *p, int protocol, mc_buf *out,
                                        mc_error *err)
{
    if (protocol >= MC_BEDROCK_PROTO_1_26_30) {
        mc_buf_put_uvarint32(out, p->missing_count);
        mc_buf_put(out, p->missing, (size_t)p->missing_count * 8);
        mc_buf_put_uvarint32(out, p->have_count);
        mc_buf_put(out, p->have, (size_t)p->have_count * 8);
    } else {
        mc_buf_put_uvarint32(out, p->missing_count);
        mc_buf_put_uvarint32(out, p->have_count);
        mc_buf_put(out, p->missing, (size_t)p->missing_count * 8);
        mc_buf_put(out, p->have, (size_t)p->have_count * 8);
    }
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

mc_status mc_bedrock_miss_response_decode(const uint8_t *data, size_t len, mc_bedrock_blob *blobs,
                                          uint32_t cap, uint32_t *count, mc_error *err)
{
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock client_cache_miss_response", err);
    uint32_t n = mc_read_uvarint32(&r);
    *count = n;
    if (!mc_reader_ok(&r))
        return r.status;
    if ((uint64_t)n * 9 > mc_reader_remaining(&r))
        return mc_reader_fail(&r, MC_ERR_TRUNCATED, "bedrock: %u blobs exceed remaining %zu bytes", n,
                              mc_reader_remaining(&r));
    if (n > cap)
        return mc_reader_fail(&r, MC_ERR_RANGE, "bedrock: %u blobs, room for %u", n, cap);
    for (uint32_t i = 0; i < n && mc_reader_ok(&r); i++) {
        blobs[i].hash = mc_read_u64le(&r);
        blobs[i].data = read_byte_array(&r, &blobs[i].len);
    }
    return finish(&r);
}

mc_status mc_bedrock_miss_response_encode(const mc_bedrock_blob *blobs, uint32_t count, mc_buf *out)
{
    mc_buf_put_uvarint32(out, count);
    for (uint32_t i = 0; i < count; i++) {
        mc_buf_put_u64le(out, blobs[i].hash);
        mc_buf_put_uvarint32(out, (uint32_t)blobs[i].len);
        mc_buf_put(out, blobs[i].data, blobs[i].len);
    }
    return mc_buf_ok(out) ? MC_OK : MC_ERR_NOMEM;
}
