/*
 * column.c: a chunk column in Bedrock network form, and what the SubChunk
 * request system needs from it -- the highest non-air subchunk, per-subchunk
 * heightmaps, and subchunk payloads.
 *
 * Heights follow the game's heightmap: for each (x, z) one above the highest
 * non-air block. A subchunk's share of it (1.18.10+) is 256 int8 in [z][x]
 * order, height minus the subchunk's base y, clamped to -1 (below) and 16
 * (above); when every value is 16 the subchunk says "all too high" and when
 * every value is -1 "all too low" instead of sending the bytes (vanilla BDS
 * captures show exactly this: lower subchunks answer too_high).
 */
#include <stdint.h>
#include <string.h>

#include "bedrock_private.h"

mc_status mc_bedrock_dimension_range(int32_t dimension, int32_t *min_y, uint32_t *count)
{
    switch (dimension) {
    case MC_BEDROCK_OVERWORLD: *min_y = -4; *count = 24; return MC_OK; /* 1.18+: y -64..319 */
    case MC_BEDROCK_NETHER: *min_y = 0; *count = 8; return MC_OK;      /* y 0..127 */
    case MC_BEDROCK_END: *min_y = 0; *count = 16; return MC_OK;        /* y 0..255 */
    default: return MC_ERR_RANGE;
    }
}

mc_status mc_bedrock_column_init(mc_bedrock_column *c, int32_t x, int32_t z, int32_t dimension,
                                 uint32_t air, const mc_allocator *alloc)
{
    int32_t min_y;
    uint32_t count;
    memset(c, 0, sizeof *c);
    if (mc_bedrock_dimension_range(dimension, &min_y, &count) != MC_OK)
        return MC_ERR_RANGE;
    return mc_bedrock_column_init_range(c, x, z, dimension, min_y, count, air, alloc);
}

mc_status mc_bedrock_column_init_range(mc_bedrock_column *c, int32_t x, int32_t z, int32_t dimension,
                                       int32_t min_y, uint32_t count, uint32_t air, const mc_allocator *alloc)
{
    memset(c, 0, sizeof *c);
    if (count == 0 || count > 64 || min_y < -64 || min_y > 64)
        return MC_ERR_RANGE;
    const mc_allocator *a = mc_alloc_or_default(alloc);
    c->alloc = a;
    c->x = x;
    c->z = z;
    c->dimension = dimension;
    c->air = air;
    c->min_y = min_y;
    c->count = count;
    c->subchunks = a->alloc(a->user, c->count * sizeof *c->subchunks);
    c->block_entities = a->alloc(a->user, c->count * sizeof *c->block_entities);
    if (!c->subchunks || !c->block_entities) {
        mc_bedrock_column_free(c);
        return MC_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < c->count; i++) {
        mc_bedrock_subchunk_init(&c->subchunks[i], a);
        c->subchunks[i].y_index = (int8_t)(c->min_y + (int32_t)i);
        mc_buf_init(&c->block_entities[i], a);
    }
    for (int i = 0; i < 256; i++)
        c->heights[i] = (int16_t)(c->min_y * 16);
    return MC_OK;
}

void mc_bedrock_column_free(mc_bedrock_column *c)
{
    const mc_allocator *a = mc_alloc_or_default(c->alloc);
    if (c->subchunks) {
        for (uint32_t i = 0; i < c->count; i++)
            mc_bedrock_subchunk_free(&c->subchunks[i]);
        a->free(a->user, c->subchunks, c->count * sizeof *c->subchunks);
    }
    if (c->block_entities) {
        for (uint32_t i = 0; i < c->count; i++)
            mc_buf_free(&c->block_entities[i]);
        a->free(a->user, c->block_entities, c->count * sizeof *c->block_entities);
    }
    mc_bedrock_biomes_free(&c->biomes, a);
    memset(c, 0, sizeof *c);
}

bool mc__bedrock_subchunk_all_air(const mc_bedrock_subchunk *sc, uint32_t air)
{
    /* every storage: water alone in the water layer is not air */
    for (unsigned k = 0; k < sc->storage_count; k++)
        if (!mc_bedrock_storage_is_uniform(&sc->storages[k], air))
            return false;
    return true;
}


void mc_bedrock_column_update_heights(mc_bedrock_column *c)
{
    int16_t base = (int16_t)(c->min_y * 16);
    for (int i = 0; i < 256; i++)
        c->heights[i] = base;
    int remaining = 256;
    bool done[256] = {false};
    for (int s = (int)c->count - 1; s >= 0 && remaining; s--) {
        const mc_bedrock_subchunk *sc = &c->subchunks[s];
        if (mc__bedrock_subchunk_all_air(sc, c->air))
            continue;
        const mc_bedrock_storage *st = &sc->storages[0];
        int16_t sbase = (int16_t)((c->min_y + s) * 16);
        uint16_t idx[MC_BEDROCK_SUBCHUNK_VOLUME];
        mc__bedrock_unpack_indices(st, idx);
        for (unsigned xz = 0; xz < 256; xz++) {
            if (done[xz])
                continue;
            unsigned x = xz & 15, z = xz >> 4;
            const uint16_t *col = idx + ((x << 8) | (z << 4)); /* XZY: a column's 16 y are adjacent */
            for (int y = 15; y >= 0; y--) {
                uint32_t v = col[y] < st->palette_len ? st->palette[col[y]] : c->air;
                if (v != c->air) {
                    c->heights[xz] = (int16_t)(sbase + y + 1);
                    done[xz] = true;
                    remaining--;
                    break;
                }
            }
        }
    }
}

int mc_bedrock_column_highest(const mc_bedrock_column *c)
{
    for (int s = (int)c->count - 1; s >= 0; s--)
        if (!mc__bedrock_subchunk_all_air(&c->subchunks[s], c->air))
            return s;
    return -1;
}

void mc__bedrock_height_range(const mc_bedrock_column *c, int32_t *lo, int32_t *hi)
{
    int32_t l = INT32_MAX, h = INT32_MIN;
    for (unsigned xz = 0; xz < 256; xz++) {
        int32_t v = c->heights[xz];
        l = v < l ? v : l;
        h = v > h ? v : h;
    }
    *lo = l;
    *hi = h;
}

mc_bedrock_heightmap_type mc__bedrock_subchunk_heightmap_in(const mc_bedrock_column *c, uint32_t i, int32_t lo,
                                                            int32_t hi, int8_t out[256])
{
    int32_t base = (c->min_y + (int32_t)i) * 16;
    if (lo - base >= 16)
        return MC_BEDROCK_HM_ALL_TOO_HIGH; /* every value would be 16 */
    if (hi - base < 0)
        return MC_BEDROCK_HM_ALL_TOO_LOW; /* every value would be -1 */
    for (unsigned xz = 0; xz < 256; xz++) {
        int32_t v = c->heights[xz] - base;
        v = v < -1 ? -1 : v;
        v = v > 16 ? 16 : v;
        out[xz] = (int8_t)v; /* heights is indexed z*16+x: the wire's [z][x] */
    }
    return MC_BEDROCK_HM_HAS_DATA;
}

mc_bedrock_heightmap_type mc_bedrock_column_subchunk_heightmap(const mc_bedrock_column *c, uint32_t i,
                                                               int8_t out[256])
{
    int32_t lo, hi;
    mc__bedrock_height_range(c, &lo, &hi);
    return mc__bedrock_subchunk_heightmap_in(c, i, lo, hi, out);
}

mc_status mc_bedrock_column_subchunk_payload(const mc_bedrock_column *c, uint32_t i, mc_buf *out,
                                             mc_error *err)
{
    if (i >= c->count)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "bedrock: subchunk index %u of %u", i, c->count);
    const mc_bedrock_subchunk *sc = &c->subchunks[i];
    size_t start = out->len;
    if (sc->storage_count == 0) {
        /* v9, one storage of air */
        mc_buf_put_u8(out, 9);
        mc_buf_put_u8(out, 1);
        mc_buf_put_u8(out, (uint8_t)(c->min_y + (int32_t)i));
        mc_buf_put_u8(out, 1);
        mc_buf_put_zigzag32(out, (int32_t)c->air);
    } else {
        mc_status st = mc_bedrock_subchunk_encode(sc, 9, MC_BEDROCK_FORM_NETWORK, out, err);
        if (st != MC_OK)
            return st;
        out->data[start + 2] = (uint8_t)(c->min_y + (int32_t)i);
    }
    const mc_buf *be = &c->block_entities[i];
    mc_buf_put(out, be->data, be->len);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

mc_status mc_bedrock_column_full_payload(const mc_bedrock_column *c, int protocol, mc_buf *out,
                                         uint32_t *sub_chunk_count, mc_error *err)
{
    size_t start = out->len;
    int highest = mc_bedrock_column_highest(c);
    bool v9 = protocol >= MC_BEDROCK_PROTO_1_18_0;
    for (int i = 0; i <= highest; i++) {
        const mc_bedrock_subchunk *sc = &c->subchunks[i];
        mc_status st;
        if (sc->storage_count == 0) {
            /* air: one 0-bit storage */
            mc_buf_put_u8(out, v9 ? 9 : 8);
            mc_buf_put_u8(out, 1);
            if (v9)
                mc_buf_put_u8(out, (uint8_t)(c->min_y + i));
            if (v9) {
                mc_buf_put_u8(out, 1);
            } else { /* no 0-bit storages before 1.17.30 */
                mc_buf_put_u8(out, 3);
                uint8_t *w = mc_buf_extend(out, 512);
                if (w)
                    memset(w, 0, 512);
                mc_buf_put_zigzag32(out, 1);
            }
            mc_buf_put_zigzag32(out, (int32_t)c->air);
            continue;
        }
        size_t at = out->len;
        st = mc_bedrock_subchunk_encode(sc, v9 ? 9 : 8, MC_BEDROCK_FORM_NETWORK, out, err);
        if (st != MC_OK) {
            out->len = start;
            return st;
        }
        if (v9)
            out->data[at + 2] = (uint8_t)(c->min_y + i);
    }
    if (v9) {
        mc_status st = mc_bedrock_biomes_net_encode(&c->biomes, out, err);
        if (st != MC_OK) {
            out->len = start;
            return st;
        }
    } else {
        /* 2D biomes ([z][x]... stored x + z*16): the biome at the bottom of each column */
        uint8_t *b = mc_buf_extend(out, 256);
        if (b)
            for (unsigned xz = 0; xz < 256; xz++)
                b[xz] = c->biomes.count ? (uint8_t)mc_bedrock_storage_get(&c->biomes.storages[0],
                                                                          mc_bedrock_index(xz & 15, 0, xz >> 4))
                                        : 0;
    }
    mc_buf_put_u8(out, 0); /* border blocks */
    for (uint32_t i = 0; i < c->count; i++)
        mc_buf_put(out, c->block_entities[i].data, c->block_entities[i].len);
    *sub_chunk_count = (uint32_t)(highest + 1);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}
