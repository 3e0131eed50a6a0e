/*
 * payload.c: the payload of a full LevelChunk packet -- subchunks, biomes,
 * border blocks and block entities, one after the other with no lengths.
 *
 * Nothing in the payload says where a part ends, so each is walked: the
 * subchunks by the count in the packet, the 3D biomes (1.18+) until a byte
 * without the runtime flag (the border-block count, always 0 from vanilla),
 * 2D biomes (before 1.18) as 256 bytes, and whatever remains is block
 * entities in network NBT.
 */
#include <string.h>

#include "bedrock_private.h"

void mc_bedrock_chunk_payload_free(mc_bedrock_chunk_payload *p)
{
    const mc_allocator *a = mc_alloc_or_default(p->alloc);
    if (p->subchunks) {
        for (uint32_t i = 0; i < p->subchunk_count; i++)
            mc_bedrock_subchunk_free(&p->subchunks[i]);
        a->free(a->user, p->subchunks, p->subchunk_count * sizeof *p->subchunks);
    }
    mc_bedrock_biomes_free(&p->biomes, a);
    memset(p, 0, sizeof *p);
    p->alloc = a;
}

mc_status mc_bedrock_chunk_payload_decode(mc_bedrock_chunk_payload *p, int protocol,
                                          uint32_t sub_chunk_count, bool cached, const uint8_t *data, size_t len,
                                          const mc_allocator *alloc, mc_error *err)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    memset(p, 0, sizeof *p);
    p->alloc = a;
    p->cached = cached;
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock chunk payload", err);
    /* Request mode exists only with 3D biomes (1.17.40 experiments, 1.18+). */
    bool biomes3d = protocol >= MC_BEDROCK_PROTO_1_18_0 || sub_chunk_count >= MC_BEDROCK_REQUEST_LIMITED;
    if (sub_chunk_count >= MC_BEDROCK_REQUEST_LIMITED || cached)
        sub_chunk_count = 0;
    /* Every subchunk takes at least 2 bytes. */
    if ((uint64_t)sub_chunk_count * 2 > len || sub_chunk_count > 256)
        return mc_reader_fail(&r, MC_ERR_MALFORMED, "bedrock: %u subchunks cannot fit %zu bytes", sub_chunk_count,
                              len);
    if (sub_chunk_count) {
        p->subchunks = a->alloc(a->user, sub_chunk_count * sizeof *p->subchunks);
        if (!p->subchunks)
            return mc_reader_fail(&r, MC_ERR_NOMEM, "bedrock: out of memory");
        p->subchunk_count = sub_chunk_count;
        for (uint32_t i = 0; i < sub_chunk_count; i++)
            mc_bedrock_subchunk_init(&p->subchunks[i], a);
    }
    for (uint32_t i = 0; i < sub_chunk_count && mc_reader_ok(&r); i++) {
        size_t used;
        mc_error e;
        mc_status st = mc_bedrock_subchunk_decode(&p->subchunks[i], r.data + r.pos, r.len - r.pos,
                                                  MC_BEDROCK_FORM_AUTO, &used, &e);
        if (st != MC_OK) {
            mc_reader_fail_at(&r, r.pos + (e.offset == SIZE_MAX ? 0 : e.offset), st, "subchunk %u: %s", i,
                              e.message);
            break;
        }
        r.pos += used;
    }
    if (mc_reader_ok(&r) && !cached) {
        if (biomes3d) {
            if (mc_bedrock_biomes_net_decode(&p->biomes, &r, 0, a) == MC_OK)
                p->has_biomes = p->biomes.count > 0;
        } else {
            const uint8_t *b = mc_read_bytes(&r, 256, "2d biomes");
            if (b) {
                memcpy(p->biomes.biomes2d, b, 256);
                p->biomes.has_2d = true;
                p->has_biomes = true;
            }
        }
    }
    if (mc_reader_ok(&r) && mc_reader_remaining(&r)) {
        p->border_count = mc_read_u8(&r);
        p->border = mc_read_bytes(&r, p->border_count, "border blocks");
    }
    if (mc_reader_ok(&r)) {
        p->block_entities = r.data + r.pos;
        p->block_entities_len = mc_reader_remaining(&r);
        /* Check that they are whole network NBT compounds. */
        size_t off = 0;
        while (off < p->block_entities_len && mc_reader_ok(&r)) {
            size_t span;
            mc_error e;
            mc_status st = mc_bedrock_nbt_span(p->block_entities + off, p->block_entities_len - off, true,
                                               &span, &e);
            if (st != MC_OK) {
                mc_reader_fail_at(&r, r.pos + off + (e.offset == SIZE_MAX ? 0 : e.offset), st,
                                  "block entity: %s", e.message);
                break;
            }
            off += span;
        }
    }
    if (!mc_reader_ok(&r)) {
        mc_status st = r.status;
        mc_bedrock_chunk_payload_free(p);
        return st;
    }
    return MC_OK;
}

mc_status mc_bedrock_chunk_payload_encode(const mc_bedrock_chunk_payload *p, int protocol, mc_buf *out,
                                          mc_error *err)
{
    size_t start = out->len;
    for (uint32_t i = 0; i < p->subchunk_count; i++) {
        const mc_bedrock_subchunk *sc = &p->subchunks[i];
        mc_bedrock_form form = sc->kind == MC_BEDROCK_PALETTE_RUNTIME ? MC_BEDROCK_FORM_NETWORK
                             : sc->kind == MC_BEDROCK_PALETTE_DISK    ? MC_BEDROCK_FORM_DISK
                                                                      : MC_BEDROCK_FORM_PERSISTENT;
        unsigned version = sc->version == 1 || sc->version == 8 ? sc->version : 9;
        mc_status st = mc_bedrock_subchunk_encode(sc, version, form, out, err);
        if (st != MC_OK) {
            out->len = start;
            return st;
        }
    }
    if (p->has_biomes) {
        if (p->biomes.has_2d) {
            mc_buf_put(out, p->biomes.biomes2d, 256);
        } else {
            mc_status st = mc_bedrock_biomes_net_encode(&p->biomes, out, err);
            if (st != MC_OK) {
                out->len = start;
                return st;
            }
        }
    }
    mc_buf_put_u8(out, p->border_count);
    mc_buf_put(out, p->border, p->border_count);
    mc_buf_put(out, p->block_entities, p->block_entities_len);
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}
