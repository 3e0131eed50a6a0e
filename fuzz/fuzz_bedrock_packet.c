/* fuzz_bedrock_packet.c: the Bedrock chunk packets on hostile bytes. Byte 0
 * picks the protocol era, byte 1 the packet (LevelChunk, SubChunk,
 * SubChunkRequest, ClientCacheBlobStatus, ClientCacheMissResponse, or a full
 * LevelChunk payload); what decodes is encoded, decoded and encoded again,
 * and the two encodings must be the same (the first may differ from the
 * input: booleans other than 1, non-minimal varints). A payload only has to
 * decode again.
 * Seeds: the .bin packets of `mcchunk bedrock generate --tiny` (with and
 * without --cache) for several versions, the id varint replaced by the two
 * selector bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int protos[] = {431, 471, 475, 486, 582, 649, 776, 818, 975, 1001, 2168, 2193};

static void same(const mc_buf *a, const mc_buf *b)
{
    if (a->len != b->len || (a->len && memcmp(a->data, b->data, a->len)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int proto = protos[data[0] % (sizeof protos / sizeof protos[0])];
    unsigned which = data[1] % 6;
    data += 2;
    size -= 2;
    mc_buf b, b2;
    mc_buf_init(&b, NULL);
    mc_buf_init(&b2, NULL);
    switch (which) {
    case 0: {
        mc_bedrock_level_chunk p;
        if (mc_bedrock_level_chunk_decode(&p, proto, data, size, NULL) == MC_OK) {
            if (mc_bedrock_level_chunk_encode(&p, proto, &b, NULL) != MC_OK)
                abort();
            mc_bedrock_level_chunk q;
            if (mc_bedrock_level_chunk_decode(&q, proto, b.data, b.len, NULL) != MC_OK ||
                mc_bedrock_level_chunk_encode(&q, proto, &b2, NULL) != MC_OK)
                abort();
            same(&b, &b2);
            mc_bedrock_chunk_payload pl;
            if (mc_bedrock_chunk_payload_decode(&pl, proto, p.sub_chunk_count, p.cache_enabled, p.payload,
                                                p.payload_len, NULL, NULL) == MC_OK)
                mc_bedrock_chunk_payload_free(&pl);
        }
        break;
    }
    case 1: {
        mc_bedrock_subchunk_packet p;
        if (mc_bedrock_subchunk_packet_decode(&p, proto, data, size, NULL, NULL) == MC_OK) {
            if (mc_bedrock_subchunk_packet_encode(&p, proto, &b, NULL) != MC_OK)
                abort();
            mc_bedrock_subchunk_packet q;
            if (mc_bedrock_subchunk_packet_decode(&q, proto, b.data, b.len, NULL, NULL) != MC_OK ||
                mc_bedrock_subchunk_packet_encode(&q, proto, &b2, NULL) != MC_OK)
                abort();
            mc_bedrock_subchunk_packet_free(&q);
            same(&b, &b2);
            for (uint32_t i = 0; i < p.count; i++) {
                mc_bedrock_subchunk sc;
                mc_bedrock_subchunk_init(&sc, NULL);
                if (p.entries[i].has_payload)
                    mc_bedrock_subchunk_decode(&sc, p.entries[i].payload, p.entries[i].payload_len,
                                               MC_BEDROCK_FORM_NETWORK, NULL, NULL);
                mc_bedrock_subchunk_free(&sc);
            }
            mc_bedrock_subchunk_packet_free(&p);
        }
        break;
    }
    case 2: {
        mc_bedrock_subchunk_request p;
        if (mc_bedrock_subchunk_request_decode(&p, proto, data, size, NULL) == MC_OK) {
            if (mc_bedrock_subchunk_request_encode(&p, proto, &b, NULL) != MC_OK)
                abort();
            mc_bedrock_subchunk_request q;
            if (mc_bedrock_subchunk_request_decode(&q, proto, b.data, b.len, NULL) != MC_OK ||
                mc_bedrock_subchunk_request_encode(&q, proto, &b2, NULL) != MC_OK)
                abort();
            same(&b, &b2);
        }
        break;
    }
    case 3: {
        mc_bedrock_blob_status p;
        if (mc_bedrock_blob_status_decode(&p, proto, data, size, NULL) == MC_OK) {
            if (mc_bedrock_blob_status_encode(&p, proto, &b, NULL) != MC_OK)
                abort();
            mc_bedrock_blob_status q;
            if (mc_bedrock_blob_status_decode(&q, proto, b.data, b.len, NULL) != MC_OK ||
                mc_bedrock_blob_status_encode(&q, proto, &b2, NULL) != MC_OK)
                abort();
            same(&b, &b2);
        }
        break;
    }
    case 4: {
        mc_bedrock_blob blobs[16];
        uint32_t n;
        if (mc_bedrock_miss_response_decode(data, size, blobs, 16, &n, NULL) == MC_OK) {
            mc_bedrock_miss_response_encode(blobs, n, &b);
            mc_bedrock_blob q[16];
            uint32_t m;
            if (mc_bedrock_miss_response_decode(b.data, b.len, q, 16, &m, NULL) != MC_OK || m != n)
                abort();
            mc_bedrock_miss_response_encode(q, m, &b2);
            same(&b, &b2);
        }
        break;
    }
    default: {
        mc_bedrock_chunk_payload pl;
        uint32_t count = size ? data[0] % 32 : 0;
        if (size && mc_bedrock_chunk_payload_decode(&pl, proto, count, false, data + 1, size - 1, NULL, NULL) == MC_OK) {
            if (mc_bedrock_chunk_payload_encode(&pl, proto, &b, NULL) == MC_OK) {
                mc_bedrock_chunk_payload again;
                if (mc_bedrock_chunk_payload_decode(&again, proto, count, false, b.data, b.len, NULL, NULL) != MC_OK)
                    abort();
                mc_bedrock_chunk_payload_free(&again);
            }
            mc_bedrock_chunk_payload_free(&pl);
        }
        break;
    }
    }
    mc_buf_free(&b);
    mc_buf_free(&b2);
    return 0;
}
