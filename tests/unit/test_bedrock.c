/*
 * test_bedrock.c: the Bedrock module -- block storages, subchunk codecs in
 * every form and width, biomes, packets of every layout era, the blob cache,
 * conversion to and from the chunk model, and the request engine -- plus the
 * LevelDB records of the corpus (vanilla worlds 1.16-1.18: subchunk v8/v9
 * with negative y, Data3D, Data2D), which must decode and re-encode byte for
 * byte. (The network captures are checked by tests/interop/test_bedrock.js,
 * which needs bedrock-protocol to turn their JSON back into bytes.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/translate.h"
#include "support.h"

static const unsigned widths[] = {0, 1, 2, 3, 4, 5, 6, 8, 16};

/* 4096 values with exactly `distinct` different ones (base + k). */
static void fill_values(uint32_t *v, unsigned distinct, uint32_t base, mc_test_rng *rng)
{
    for (unsigned i = 0; i < 4096; i++)
        v[i] = base + (distinct ? (uint32_t)(i < distinct ? i : mc_test_rand(rng) % distinct) : 0);
}

static void test_word_counts(void **state)
{
    (void)state;
    /* Bedrock: floor(32/bits) per word, no spanning */
    static const size_t words[] = {0, 128, 256, 410, 512, 683, 820, 1024, 2048};
    for (size_t i = 0; i < 9; i++) {
        assert_true(mc_bedrock_bits_valid(widths[i]));
        assert_int_equal(mc_bedrock_word_count(widths[i]), words[i]);
    }
    assert_false(mc_bedrock_bits_valid(7));
    assert_false(mc_bedrock_bits_valid(9));
    assert_int_equal(mc_bedrock_bits_for(1), 0);
    assert_int_equal(mc_bedrock_bits_for(2), 1);
    assert_int_equal(mc_bedrock_bits_for(5), 3);
    assert_int_equal(mc_bedrock_bits_for(65), 8);
    assert_int_equal(mc_bedrock_bits_for(129), 8);
    assert_int_equal(mc_bedrock_bits_for(257), 16);
    assert_int_equal(mc_bedrock_index(1, 2, 3), (1 << 8) | (3 << 4) | 2);
}

static void test_storage_set_get(void **state)
{
    (void)state;
    mc_bedrock_storage s;
    assert_int_equal(mc_bedrock_storage_init_single(&s, 77, NULL), MC_OK);
    assert_int_equal(s.bits, 0);
    assert_int_equal(mc_bedrock_storage_get(&s, 1234), 77);
    assert_true(mc_bedrock_storage_is_uniform(&s, 77));
    /* growth through every width */
    for (uint32_t i = 0; i < 300; i++)
        assert_int_equal(mc_bedrock_storage_set(&s, i * 13 % 4096, 1000 + i, NULL), MC_OK);
    assert_int_equal(s.bits, 16);
    for (uint32_t i = 0; i < 300; i++)
        assert_int_equal(mc_bedrock_storage_get(&s, i * 13 % 4096), 1000 + i);
    assert_int_equal(mc_bedrock_storage_get(&s, 1), 77);
    assert_false(mc_bedrock_storage_is_uniform(&s, 77));
    /* compaction drops unused entries and narrows */
    for (uint32_t i = 0; i < 300; i++)
        assert_int_equal(mc_bedrock_storage_set(&s, i * 13 % 4096, i % 2 ? 5 : 6, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_compact(&s, NULL), MC_OK);
    assert_int_equal(s.palette_len, 3);
    assert_int_equal(s.bits, 2);
    assert_int_equal(mc_bedrock_storage_get(&s, 13), 5);
    assert_int_equal(mc_bedrock_storage_get(&s, 0), 6);
    assert_int_equal(mc_bedrock_storage_set(&s, 4096, 1, NULL), MC_ERR_RANGE);
    mc_bedrock_storage_free(&s, NULL);
}

/* Round trip of one subchunk in `form` at every width. */
static void roundtrip_form(mc_bedrock_form form, unsigned version)
{
    mc_test_rng rng = {0x1234567 + version};
    uint32_t vals[4096], back[4096];
    static const unsigned distinct[] = {1, 2, 3, 5, 12, 20, 40, 100, 300};
    for (size_t w = 0; w < 9; w++) {
        mc_bedrock_subchunk sc;
        mc_bedrock_subchunk_init(&sc, NULL);
        sc.y_index = -3;
        if (form == MC_BEDROCK_FORM_NETWORK) {
            fill_values(vals, distinct[w], 1000, &rng);
            sc.kind = MC_BEDROCK_PALETTE_RUNTIME;
        } else {
            /* NBT palettes: values index state tags we add */
            sc.kind = form == MC_BEDROCK_FORM_DISK ? MC_BEDROCK_PALETTE_DISK : MC_BEDROCK_PALETTE_PERSISTENT;
            fill_values(vals, distinct[w], 0, &rng);
            for (unsigned k = 0; k < distinct[w]; k++) {
                mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
                mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
                char name[32];
                snprintf(name, sizeof name, "minecraft:test_%u", k);
                mc_nbt_put_string(doc, root, "name", name, strlen(name));
                mc_nbt_put_compound(doc, root, "states");
                mc_nbt_put_int(doc, root, "version", 18100737);
                mc_buf b;
                mc_buf_init(&b, NULL);
                assert_int_equal(mc_nbt_write(doc, form == MC_BEDROCK_FORM_DISK ? MC_NBT_BEDROCK : MC_NBT_BEDROCK_NETWORK,
                                              &b, NULL), MC_OK);
                assert_int_equal(mc_bedrock_subchunk_add_tag(&sc, b.data, b.len, NULL), MC_OK);
                mc_buf_free(&b);
                mc_nbt_doc_free(doc);
            }
        }
        assert_int_equal(mc_bedrock_storage_from_values(&sc.storages[0], vals, NULL), MC_OK);
        assert_int_equal(sc.storages[0].bits, widths[w]);
        sc.storage_count = 1;
        if (w == 3) { /* a water layer too */
            assert_int_equal(mc_bedrock_storage_init_single(&sc.storages[1], 0, NULL), MC_OK);
            assert_int_equal(mc_bedrock_storage_set(&sc.storages[1], 5, 1, NULL), MC_OK);
            sc.storage_count = 2;
        }
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_error err;
        assert_int_equal(mc_bedrock_subchunk_encode(&sc, version, form, &out, &err), MC_OK);
        mc_bedrock_subchunk dec;
        mc_bedrock_subchunk_init(&dec, NULL);
        size_t used;
        assert_int_equal(mc_bedrock_subchunk_decode(&dec, out.data, out.len, MC_BEDROCK_FORM_AUTO, &used, &err), MC_OK);
        assert_int_equal(used, out.len);
        assert_int_equal(dec.version, version);
        assert_int_equal(dec.kind, sc.kind);
        if (version == 9)
            assert_int_equal(dec.y_index, -3);
        assert_int_equal(dec.storage_count, version == 1 ? 1 : sc.storage_count);
        mc_bedrock_storage_values(&dec.storages[0], back);
        if (form == MC_BEDROCK_FORM_NETWORK) {
            assert_memory_equal(vals, back, sizeof vals);
        } else {
            for (unsigned i = 0; i < 4096; i++) { /* compare the tags' bytes */
                size_t l1, l2;
                const uint8_t *t1 = mc_bedrock_subchunk_tag(&sc, vals[i], &l1);
                const uint8_t *t2 = mc_bedrock_subchunk_tag(&dec, back[i], &l2);
                assert_non_null(t2);
                assert_int_equal(l1, l2);
                assert_memory_equal(t1, t2, l1);
            }
        }
        /* and again: byte-exact (0-bit storages are widened for v1/v8) */
        mc_buf again;
        mc_buf_init(&again, NULL);
        assert_int_equal(mc_bedrock_subchunk_encode(&dec, version, form, &again, &err), MC_OK);
        assert_int_equal(again.len, out.len);
        assert_memory_equal(again.data, out.data, out.len);
        mc_buf_free(&again);
        mc_buf_free(&out);
        mc_bedrock_subchunk_free(&dec);
        mc_bedrock_subchunk_free(&sc);
    }
}

static void test_subchunk_roundtrip(void **state)
{
    (void)state;
    for (unsigned v = 0; v < 3; v++) {
        unsigned version = v == 0 ? 1 : v == 1 ? 8 : 9;
        roundtrip_form(MC_BEDROCK_FORM_NETWORK, version);
        roundtrip_form(MC_BEDROCK_FORM_DISK, version);
        roundtrip_form(MC_BEDROCK_FORM_PERSISTENT, version);
    }
}

static void test_subchunk_known_bytes(void **state)
{
    (void)state;
    /* v9, 1 storage, y -4, 0 bits + runtime flag, id 5 (zigzag 10) */
    static const uint8_t net0[] = {9, 1, 0xFC, 0x01, 0x0A};
    mc_bedrock_subchunk sc;
    mc_bedrock_subchunk_init(&sc, NULL);
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, net0, sizeof net0, MC_BEDROCK_FORM_AUTO, NULL, NULL), MC_OK);
    assert_int_equal(sc.y_index, -4);
    assert_int_equal(sc.storages[0].bits, 0);
    assert_int_equal(mc_bedrock_storage_get(&sc.storages[0], 4095), 5);
    /* 1 bit: 128 words; index 1 (x0 z0 y1) set */
    uint8_t one[3 + 1 + 512 + 3];
    memset(one, 0, sizeof one);
    one[0] = 8;
    one[1] = 1;
    one[2] = 3; /* bits 1, runtime */
    one[3] = 2; /* word 0: entry 1 = 1 */
    one[3 + 512] = 4; /* palette 2 entries */
    one[3 + 513] = 2; /* id 1 */
    one[3 + 514] = 6; /* id 3 */
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, one, sizeof one - 1, MC_BEDROCK_FORM_AUTO, NULL, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_get(&sc.storages[0], mc_bedrock_index(0, 1, 0)), 3);
    assert_int_equal(mc_bedrock_storage_get(&sc.storages[0], mc_bedrock_index(0, 0, 0)), 1);
    mc_bedrock_subchunk_free(&sc);
}

static void test_subchunk_malformed(void **state)
{
    (void)state;
    mc_bedrock_subchunk sc;
    mc_bedrock_subchunk_init(&sc, NULL);
    mc_error err;
    static const uint8_t bad_bits[] = {9, 1, 0, 7 << 1 | 1};
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, bad_bits, sizeof bad_bits, 0, NULL, &err), MC_ERR_MALFORMED);
    assert_int_equal(err.offset, 3);
    static const uint8_t bad_version[] = {10, 1};
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, bad_version, 2, 0, NULL, &err), MC_ERR_UNSUPPORTED);
    static const uint8_t truncated[] = {9, 1, 0, 3, 0, 0};
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, truncated, sizeof truncated, 0, NULL, &err), MC_ERR_TRUNCATED);
    /* 2 bits, palette of 3, but an index 3 */
    uint8_t idx[4 + 1024 + 4];
    memset(idx, 0, sizeof idx);
    idx[0] = 9; idx[1] = 1; idx[2] = 0; idx[3] = 2 << 1 | 1;
    idx[4] = 3;
    idx[4 + 1024] = 6; idx[4 + 1025] = 0; idx[4 + 1026] = 2; idx[4 + 1027] = 4;
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, idx, sizeof idx, 0, NULL, &err), MC_ERR_MALFORMED);
    /* huge palette count */
    idx[4 + 1024] = 0xFE; idx[4 + 1025] = 0xFF;
    assert_int_not_equal(mc_bedrock_subchunk_decode(&sc, idx, sizeof idx, 0, NULL, &err), MC_OK);
    /* every prefix of a good subchunk fails cleanly */
    mc_bedrock_subchunk good;
    mc_bedrock_subchunk_init(&good, NULL);
    uint32_t vals[4096];
    mc_test_rng rng = {99};
    fill_values(vals, 20, 7, &rng);
    assert_int_equal(mc_bedrock_storage_from_values(&good.storages[0], vals, NULL), MC_OK);
    good.storage_count = 1;
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_bedrock_subchunk_encode(&good, 9, MC_BEDROCK_FORM_NETWORK, &b, NULL), MC_OK);
    for (size_t n = 0; n < b.len; n += 7)
        assert_int_not_equal(mc_bedrock_subchunk_decode(&sc, b.data, n, 0, NULL, &err), MC_OK);
    mc_buf_free(&b);
    mc_bedrock_subchunk_free(&good);
    mc_bedrock_subchunk_free(&sc);
}

static void test_legacy(void **state)
{
    (void)state;
    uint8_t data[1 + 4096 + 2048];
    memset(data, 0, sizeof data);
    data[0] = 0;
    data[1 + mc_bedrock_index(1, 2, 3)] = 7;                  /* block id 7 */
    data[1 + 4096 + (mc_bedrock_index(1, 2, 3) >> 1)] = 0x05; /* meta 5 (even index: low nibble) */
    mc_bedrock_subchunk sc;
    mc_bedrock_subchunk_init(&sc, NULL);
    assert_int_equal(mc_bedrock_subchunk_decode(&sc, data, sizeof data, 0, NULL, NULL), MC_OK);
    assert_int_equal(sc.kind, MC_BEDROCK_PALETTE_LEGACY);
    assert_int_equal(mc_bedrock_storage_get(&sc.storages[0], mc_bedrock_index(1, 2, 3)), 7 << 4 | 5);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_not_equal(mc_bedrock_subchunk_encode(&sc, 8, MC_BEDROCK_FORM_DISK, &b, NULL), MC_OK);
    mc_buf_free(&b);
    mc_bedrock_subchunk_free(&sc);
}

static void test_nbt_span(void **state)
{
    (void)state;
    /* network NBT: compound "" { int "a" = 300 } */
    static const uint8_t net[] = {10, 0, 3, 1, 'a', 0xD8, 0x04, 0};
    size_t span;
    assert_int_equal(mc_bedrock_nbt_span(net, sizeof net, true, &span, NULL), MC_OK);
    assert_int_equal(span, sizeof net);
    assert_int_not_equal(mc_bedrock_nbt_span(net, sizeof net - 1, true, &span, NULL), MC_OK);
    static const uint8_t le[] = {10, 0, 0, 3, 1, 0, 'a', 1, 2, 3, 4, 0};
    assert_int_equal(mc_bedrock_nbt_span(le, sizeof le, false, &span, NULL), MC_OK);
    assert_int_equal(span, sizeof le);
    /* deep nesting stops */
    uint8_t deep[3 + 3 * 600];
    deep[0] = 10; deep[1] = 0; deep[2] = 0;
    for (int i = 0; i < 600; i++) {
        deep[3 + 3 * i] = 10;
        deep[4 + 3 * i] = 0;
        deep[5 + 3 * i] = 0;
    }
    assert_int_equal(mc_bedrock_nbt_span(deep, sizeof deep, false, &span, NULL), MC_ERR_LIMIT);
}

static void test_biomes(void **state)
{
    (void)state;
    mc_bedrock_biomes b;
    memset(&b, 0, sizeof b);
    b.count = 4;
    uint32_t vals[4096];
    mc_test_rng rng = {5};
    fill_values(vals, 3, 10, &rng);
    assert_int_equal(mc_bedrock_storage_from_values(&b.storages[0], vals, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_copy(&b.storages[1], &b.storages[0], NULL), MC_OK);
    b.copy_previous[1] = true;
    assert_int_equal(mc_bedrock_storage_init_single(&b.storages[2], 44, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_init_single(&b.storages[3], 45, NULL), MC_OK);
    for (int i = 0; i < 256; i++)
        b.heightmap[i] = (int16_t)(i - 64);
    /* disk */
    mc_buf d;
    mc_buf_init(&d, NULL);
    assert_int_equal(mc_bedrock_data3d_encode(&b, &d, NULL), MC_OK);
    mc_bedrock_biomes r;
    assert_int_equal(mc_bedrock_data3d_decode(&r, d.data, d.len, NULL, NULL), MC_OK);
    assert_int_equal(r.count, 4);
    assert_true(r.copy_previous[1]);
    assert_int_equal(r.heightmap[0], -64);
    assert_int_equal(mc_bedrock_storage_get(&r.storages[1], 77), vals[77]);
    assert_int_equal(mc_bedrock_storage_get(&r.storages[3], 0), 45);
    mc_bedrock_biomes_free(&r, NULL);
    /* network: then a border byte ends the list */
    mc_buf n;
    mc_buf_init(&n, NULL);
    assert_int_equal(mc_bedrock_biomes_net_encode(&b, &n, NULL), MC_OK);
    mc_buf_put_u8(&n, 0);
    mc_reader rd;
    mc_reader_init(&rd, n.data, n.len, "t", NULL);
    assert_int_equal(mc_bedrock_biomes_net_decode(&r, &rd, 0, NULL), MC_OK);
    assert_int_equal(r.count, 4);
    assert_int_equal(mc_reader_remaining(&rd), 1);
    mc_bedrock_biomes_free(&r, NULL);
    /* copy-previous first is malformed */
    static const uint8_t first_copy[] = {0xFF};
    mc_reader_init(&rd, first_copy, 1, "t", NULL);
    assert_int_equal(mc_bedrock_biomes_net_decode(&r, &rd, 0, NULL), MC_ERR_MALFORMED);
    mc_buf_free(&n);
    mc_buf_free(&d);
    mc_bedrock_biomes_free(&b, NULL);
}

/* --------------------------------------------------------------- packets */

static const int protos[] = {431, 471, 475, 486, 582, 649, 818, 975, 1001, 2168, 2193};

static void test_packets_roundtrip(void **state)
{
    (void)state;
    for (size_t pi = 0; pi < sizeof protos / sizeof protos[0]; pi++) {
        int proto = protos[pi];
        mc_buf b;
        mc_buf_init(&b, NULL);
        /* LevelChunk */
        uint8_t ids[16], payload[5] = {1, 2, 3, 4, 5};
        mc_store_u64le(ids, 0x1122334455667788ull);
        mc_store_u64le(ids + 8, 42);
        mc_bedrock_level_chunk lc = {-5, 7, 1, MC_BEDROCK_REQUEST_LIMITED, proto >= 486, 9, true, 2, ids, payload, 5};
        assert_int_equal(mc_bedrock_level_chunk_encode(&lc, proto, &b, NULL), MC_OK);
        mc_bedrock_level_chunk lc2;
        assert_int_equal(mc_bedrock_level_chunk_decode(&lc2, proto, b.data, b.len, NULL), MC_OK);
        assert_int_equal(lc2.x, -5);
        assert_int_equal(lc2.z, 7);
        assert_int_equal(lc2.dimension, proto >= 649 ? 1 : 0);
        assert_int_equal(lc2.highest_subchunk, proto >= 486 ? 9 : 0);
        assert_int_equal(lc2.blob_count, 2);
        assert_int_equal(mc_bedrock_u64_at(lc2.blob_ids, 0), 0x1122334455667788ull);
        assert_int_equal(lc2.payload_len, 5);
        /* SubChunkRequest */
        if (proto >= 471) {
            b.len = 0;
            uint8_t offs[6] = {0, (uint8_t)-4, 0, 1, 2, (uint8_t)-1};
            mc_bedrock_subchunk_request rq = {0, 10, 2, -20, proto >= 486 ? 2u : 1u, proto >= 486 ? offs : NULL};
            assert_int_equal(mc_bedrock_subchunk_request_encode(&rq, proto, &b, NULL), MC_OK);
            mc_bedrock_subchunk_request rq2;
            assert_int_equal(mc_bedrock_subchunk_request_decode(&rq2, proto, b.data, b.len, NULL), MC_OK);
            assert_int_equal(rq2.x, 10);
            assert_int_equal(rq2.y, 2);
            assert_int_equal(rq2.z, -20);
            assert_int_equal(rq2.count, rq.count);
            int8_t dx, dy, dz;
            mc_bedrock_request_offset(&rq2, rq.count - 1, &dx, &dy, &dz);
            if (proto >= 486) {
                assert_int_equal(dx, 1);
                assert_int_equal(dz, -1);
            }
            /* SubChunk */
            for (int cache = 0; cache < 2; cache++) {
                if (proto < 475 && cache)
                    continue;
                b.len = 0;
                int8_t hm[256];
                for (int i = 0; i < 256; i++)
                    hm[i] = (int8_t)(i % 18 - 1);
                mc_bedrock_subchunk_entry en[2];
                memset(en, 0, sizeof en);
                en[0].dy = -4;
                en[0].result = MC_BEDROCK_RESULT_SUCCESS;
                en[0].has_payload = true;
                en[0].payload = payload;
                en[0].payload_len = cache ? 0 : 5;
                en[0].heightmap_type = MC_BEDROCK_HM_HAS_DATA;
                en[0].heightmap = hm;
                en[0].render_type = proto >= 818 ? MC_BEDROCK_HM_HAS_DATA : 0;
                en[0].render_heightmap = proto >= 818 ? hm : NULL;
                en[0].has_blob = cache;
                en[0].blob_id = 0xABCDEF;
                en[1].dx = 1;
                en[1].result = MC_BEDROCK_RESULT_SUCCESS_ALL_AIR;
                en[1].has_payload = !cache;
                en[1].heightmap_type = MC_BEDROCK_HM_ALL_TOO_LOW;
                en[1].has_blob = cache && proto < 2168;
                mc_bedrock_subchunk_packet sp = {cache != 0, 0, 10, 2, -20, proto >= 486 ? 2u : 1u, en, 2, NULL};
                assert_int_equal(mc_bedrock_subchunk_packet_encode(&sp, proto, &b, NULL), MC_OK);
                mc_bedrock_subchunk_packet sp2;
                mc_error err;
                assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp2, proto, b.data, b.len, NULL, &err), MC_OK);
                assert_int_equal(sp2.count, sp.count);
                assert_int_equal(sp2.entries[0].result, MC_BEDROCK_RESULT_SUCCESS);
                assert_int_equal(sp2.entries[0].heightmap_type, MC_BEDROCK_HM_HAS_DATA);
                assert_memory_equal(sp2.entries[0].heightmap, hm, 256);
                if (proto >= 818)
                    assert_memory_equal(sp2.entries[0].render_heightmap, hm, 256);
                if (cache)
                    assert_int_equal(sp2.entries[0].blob_id, 0xABCDEF);
                if (proto >= 486) {
                    assert_int_equal(sp2.entries[1].dx, 1);
                    assert_int_equal(sp2.entries[1].result, MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
                    assert_int_equal(sp2.entries[1].heightmap_type, MC_BEDROCK_HM_ALL_TOO_LOW);
                }
                mc_buf again;
                mc_buf_init(&again, NULL);
                assert_int_equal(mc_bedrock_subchunk_packet_encode(&sp2, proto, &again, NULL), MC_OK);
                assert_int_equal(again.len, b.len);
                assert_memory_equal(again.data, b.data, b.len);
                mc_buf_free(&again);
                mc_bedrock_subchunk_packet_free(&sp2);
            }
        }
        /* blob status and miss response */
        b.len = 0;
        mc_bedrock_blob_status bs = {2, 1, ids, ids + 8};
        assert_int_equal(mc_bedrock_blob_status_encode(&bs, proto, &b, NULL), MC_OK);
        mc_bedrock_blob_status bs2;
        assert_int_equal(mc_bedrock_blob_status_decode(&bs2, proto, b.data, b.len, NULL), MC_OK);
        assert_int_equal(bs2.missing_count, 2);
        assert_int_equal(mc_bedrock_u64_at(bs2.have, 0), 42);
        b.len = 0;
        mc_bedrock_blob blobs[2] = {{mc_bedrock_blob_hash(payload, 5), payload, 5}, {7, payload, 0}};
        assert_int_equal(mc_bedrock_miss_response_encode(blobs, 2, &b), MC_OK);
        mc_bedrock_blob got[2];
        uint32_t n;
        assert_int_equal(mc_bedrock_miss_response_decode(b.data, b.len, got, 2, &n, NULL), MC_OK);
        assert_int_equal(n, 2);
        assert_int_equal(got[0].hash, blobs[0].hash);
        assert_int_equal(got[0].len, 5);
        assert_int_equal(mc_bedrock_miss_response_decode(b.data, b.len, got, 1, &n, NULL), MC_ERR_RANGE);
        mc_buf_free(&b);
    }
    assert_int_equal(mc_bedrock_protocol("1.21.60"), 776);
    assert_int_equal(mc_bedrock_protocol("1.26.40"), 2168);
    assert_int_equal(mc_bedrock_protocol("486"), 486);
    assert_int_equal(mc_bedrock_protocol("9.9.9"), 0);
}

static void test_packets_malformed(void **state)
{
    (void)state;
    /* A SubChunk packet claiming 2^32-1 entries must fail without allocating them. */
    static const uint8_t many[] = {0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0};
    mc_bedrock_subchunk_packet p;
    mc_error err;
    assert_int_equal(mc_bedrock_subchunk_packet_decode(&p, 776, many, sizeof many, NULL, &err), MC_ERR_TRUNCATED);
    static const uint8_t req[] = {0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2, 3};
    mc_bedrock_subchunk_request r;
    assert_int_equal(mc_bedrock_subchunk_request_decode(&r, 776, req, sizeof req, &err), MC_ERR_TRUNCATED);
    static const uint8_t req_new[] = {0, 0xFF, 0xFF, 0x03};
    assert_int_equal(mc_bedrock_subchunk_request_decode(&r, 1001, req_new, sizeof req_new, &err), MC_ERR_LIMIT);
    static const uint8_t lc[] = {0, 0, 0, 1, 1, 0xFF, 0xFF, 0x0F};
    mc_bedrock_level_chunk l;
    assert_int_equal(mc_bedrock_level_chunk_decode(&l, 431, lc, sizeof lc, &err), MC_ERR_TRUNCATED);
}

static void test_blob_cache(void **state)
{
    (void)state;
    /* xxHash64 seed 0 of the empty input (the algorithm's known value) */
    assert_int_equal(mc_bedrock_blob_hash("", 0), 0xEF46DB3751D8E999ull);
    mc_bedrock_blob_cache *c = mc_bedrock_blob_cache_new(10000, NULL);
    assert_non_null(c);
    uint8_t data[1000];
    uint64_t ids[40];
    for (int i = 0; i < 40; i++) {
        memset(data, i, sizeof data);
        assert_int_equal(mc_bedrock_blob_cache_put(c, data, sizeof data, &ids[i]), MC_OK);
        assert_int_equal(ids[i], mc_bedrock_blob_hash(data, sizeof data));
    }
    /* budget 10000: the oldest went */
    assert_true(mc_bedrock_blob_cache_count(c) <= 10);
    size_t len;
    assert_null(mc_bedrock_blob_cache_get(c, ids[0], &len));
    const uint8_t *p = mc_bedrock_blob_cache_get(c, ids[39], &len);
    assert_non_null(p);
    assert_int_equal(len, 1000);
    assert_int_equal(p[999], 39);
    /* storing the same blob again is a no-op */
    assert_int_equal(mc_bedrock_blob_cache_put(c, p, len, NULL), MC_OK);
    mc_bedrock_blob_cache_free(c);
}

/* ------------------------------------------------------------ corpus */

static void test_corpus_leveldb(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("bedrock/leveldb-extracted", ".bin");
    size_t sub = 0, d3 = 0, d2 = 0, named = 0;
    for (char **f = files; *f; f++) {
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        mc_error err;
        if (strstr(*f, "SubChunkPrefix")) {
            mc_bedrock_subchunk sc;
            mc_bedrock_subchunk_init(&sc, NULL);
            size_t used;
            if (mc_bedrock_subchunk_decode(&sc, data, len, MC_BEDROCK_FORM_AUTO, &used, &err) != MC_OK)
                fail_msg("%s: %s", *f, err.message);
            assert_int_equal(used, len);
            assert_int_equal(sc.kind, MC_BEDROCK_PALETTE_DISK);
            /* the key's y and the v9 index agree */
            const char *y = strstr(*f, "_y");
            if (sc.version == 9)
                assert_int_equal(sc.y_index, atoi(y + 2));
            mc_buf b;
            mc_buf_init(&b, NULL);
            assert_int_equal(mc_bedrock_subchunk_encode(&sc, sc.version, MC_BEDROCK_FORM_DISK, &b, &err), MC_OK);
            assert_int_equal(b.len, len);
            assert_memory_equal(b.data, data, len);
            mc_buf_free(&b);
            /* the states exist in the registry of that world's version */
            const char *ver = strstr(*f, "1_16") ? "1.16.220" : strstr(*f, "1_17_20") ? "1.17.30"
                            : strstr(*f, "1_17_40") ? "1.17.40" : "1.18.0";
            const mc_registry *reg = mc_registry_find_bedrock(ver);
            if (reg) {
                mc_section s;
                if (mc_bedrock_subchunk_to_section(&sc, &s, reg, false, NULL, &err) != MC_OK)
                    fail_msg("%s: %s", *f, err.message);
                mc_section_free(&s);
                named++;
            }
            mc_bedrock_subchunk_free(&sc);
            sub++;
        } else if (strstr(*f, "Data3D")) {
            mc_bedrock_biomes b;
            if (mc_bedrock_data3d_decode(&b, data, len, NULL, &err) != MC_OK)
                fail_msg("%s: %s", *f, err.message);
            assert_true(b.count >= 24);
            mc_buf o;
            mc_buf_init(&o, NULL);
            assert_int_equal(mc_bedrock_data3d_encode(&b, &o, &err), MC_OK);
            assert_int_equal(o.len, len);
            assert_memory_equal(o.data, data, len);
            mc_buf_free(&o);
            mc_bedrock_biomes_free(&b, NULL);
            d3++;
        } else if (strstr(*f, "Data2D")) {
            mc_bedrock_biomes b;
            if (mc_bedrock_data2d_decode(&b, data, len, &err) != MC_OK)
                fail_msg("%s: %s", *f, err.message);
            assert_true(b.has_2d);
            d2++;
        }
        free(data);
    }
    mc_test_free_list(files);
    print_message("leveldb records: %zu subchunks (%zu checked against the registry), %zu Data3D, %zu Data2D\n",
                  sub, named, d3, d2);
    assert_int_equal(sub, 91);
    assert_int_equal(d3, 9);
    assert_int_equal(d2, 9);
}

/* ------------------------------------------------- model and engine */

typedef struct world {
    mc_column *cols[4];
    int n;
} world;

static mc_status world_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_column **out)
{
    world *w = user;
    for (int i = 0; i < w->n; i++)
        if (dim == 0 && mc_column_x(w->cols[i]) == cx && mc_column_z(w->cols[i]) == cz) {
            *out = w->cols[i];
            return MC_OK;
        }
    return MC_ERR_NOT_FOUND;
}

/* A Java 1.21.4 column with stone below y 5, some ores, a chest. */
static mc_column *java_column(const mc_registry *java, int32_t x, int32_t z)
{
    mc_column *col = mc_column_new(java, x, z, -4, 24, NULL);
    assert_non_null(col);
    uint32_t stone = mc_registry_default_state(java, "stone");
    uint32_t ore = mc_registry_default_state(java, "iron_ore");
    uint32_t chest = mc_registry_default_state(java, "chest");
    for (int bx = 0; bx < 16; bx++)
        for (int bz = 0; bz < 16; bz++)
            for (int y = -64; y < 5 + (bx + bz) % 7; y++)
                assert_int_equal(mc_column_set_block(col, bx, y, bz, (bx * bz + y) % 17 == 0 ? ore : stone), MC_OK);
    assert_int_equal(mc_column_set_block(col, 3, 40, 4, chest), MC_OK);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *t = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    mc_nbt_put_string(doc, t, "id", "Chest", 5);
    mc_nbt_put_int(doc, t, "x", x * 16 + 3);
    mc_nbt_put_int(doc, t, "y", 40);
    mc_nbt_put_int(doc, t, "z", z * 16 + 4);
    assert_int_equal(mc_column_put_block_entity(col, x * 16 + 3, 40, z * 16 + 4, t), MC_OK);
    mc_nbt_doc_free(doc);
    return col;
}

static void test_model_and_engine(void **state)
{
    (void)state;
    const mc_registry *java = mc_registry_find("1.21.4");
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!java || !bed)
        skip();
    world w = {{java_column(java, 0, 0), java_column(java, 1, 0)}, 2};
    /* Java -> Bedrock column */
    mc_bedrock_ids ids;
    assert_int_equal(mc_bedrock_ids_init(&ids, java, bed, false), MC_OK);
    mc_bedrock_column bc;
    mc_error err;
    assert_int_equal(mc_bedrock_column_from_mc_column(&bc, w.cols[0], 0, &ids, NULL, &err), MC_OK);
    char name[256];
    uint32_t s = mc_bedrock_storage_get(&bc.subchunks[0].storages[0], mc_bedrock_index(0, 0, 0));
    mc_registry_format_state(bed, s, name, sizeof name, MC_FORMAT_SORTED);
    assert_true(!strcmp(name, "minecraft:stone") || !strcmp(name, "minecraft:iron_ore"));
    assert_int_equal(mc_bedrock_column_highest(&bc), 6); /* the chest at y 40 */
    assert_int_equal(bc.heights[0], 5);                  /* x0 z0: stone up to y 4 */
    assert_true(bc.block_entities[6].len > 0);
    /* Bedrock column -> Bedrock mc_column and back gives the same ids */
    mc_column *back = mc_bedrock_column_to_mc_column(&bc, bed, false, NULL, &err);
    assert_non_null(back);
    for (int y = -64; y < 50; y += 3) {
        const mc_bedrock_subchunk *sc = &bc.subchunks[(y >> 4) + 4];
        uint32_t want = sc->storage_count ? mc_bedrock_storage_get(&sc->storages[0], mc_bedrock_index(1, y & 15, 2)) : bc.air;
        assert_int_equal(mc_column_get_block(back, 1, y, 2), want);
    }
    assert_int_equal(mc_column_block_entity_count(back), 1);
    /* hashed ids */
    mc_bedrock_ids hids;
    assert_int_equal(mc_bedrock_ids_init(&hids, bed, bed, true), MC_OK);
    mc_bedrock_subchunk hs;
    mc_bedrock_subchunk_init(&hs, NULL);
    assert_int_equal(mc_bedrock_subchunk_from_section(&hs, mc_column_section(back, -4), &hids, -4), MC_OK);
    uint32_t h = mc_bedrock_storage_get(&hs.storages[0], 0);
    assert_int_equal(mc_registry_state_from_hash(bed, h), mc_column_get_block(back, 0, -64, 0));
    mc_section sec;
    assert_int_equal(mc_bedrock_subchunk_to_section(&hs, &sec, bed, true, NULL, &err), MC_OK);
    assert_true(mc_container_equal(&sec.blocks, &mc_column_section(back, -4)->blocks));
    mc_section_free(&sec);
    mc_bedrock_subchunk_free(&hs);
    mc_column_free(back);

    /* the engine over the mc_column provider */
    mc_bedrock_column_provider prov = {&w, world_get, NULL};
    mc_bedrock_mc_source *src = mc_bedrock_mc_source_new(&prov, bed, false, 8, NULL);
    assert_non_null(src);
    mc_bedrock_world_source ws = mc_bedrock_mc_source_world(src);
    for (int cache = 0; cache < 2; cache++) {
        mc_bedrock_engine_options eo = {776, cache != 0, 0, 0};
        mc_bedrock_engine *e = mc_bedrock_engine_new(&ws, &eo, NULL);
        assert_non_null(e);
        mc_buf out;
        mc_buf_init(&out, NULL);
        assert_int_equal(mc_bedrock_engine_level_chunk(e, &bc, &out, &err), MC_OK);
        mc_bedrock_level_chunk lc;
        assert_int_equal(mc_bedrock_level_chunk_decode(&lc, 776, out.data, out.len, &err), MC_OK);
        assert_int_equal(lc.sub_chunk_count, MC_BEDROCK_REQUEST_LIMITED);
        assert_int_equal(lc.highest_subchunk, 6);
        assert_int_equal(lc.cache_enabled, cache != 0);
        /* request: (0,-4..20,0), (1,0,0), (5,0,0) missing */
        uint8_t offs[3 * 27];
        uint32_t n = 0;
        for (int y = -4; y <= 20; y++) {
            offs[3 * n] = 0;
            offs[3 * n + 1] = (uint8_t)(int8_t)y;
            offs[3 * n + 2] = 0;
            n++;
        }
        uint8_t more[6] = {1, 0, 0, 5, 0, 0};
        memcpy(offs + 3 * n, more, 6);
        n += 2;
        mc_bedrock_subchunk_request rq = {0, 0, 0, 0, n, offs};
        out.len = 0;
        assert_int_equal(mc_bedrock_engine_answer_request(e, &rq, &out, &err), MC_OK);
        mc_bedrock_subchunk_packet sp;
        assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp, 776, out.data, out.len, NULL, &err), MC_OK);
        assert_int_equal(sp.count, n);
        assert_int_equal(sp.entries[0].result, MC_BEDROCK_RESULT_SUCCESS);
        assert_int_equal(sp.entries[0].heightmap_type, MC_BEDROCK_HM_ALL_TOO_HIGH);
        assert_int_equal(sp.entries[4].heightmap_type, MC_BEDROCK_HM_HAS_DATA); /* y 0..15 holds the tops */
        assert_int_equal(sp.entries[4].heightmap[0], 5);
        assert_int_equal(sp.entries[6].result, MC_BEDROCK_RESULT_SUCCESS);     /* the chest */
        assert_int_equal(sp.entries[7].result, MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
        assert_int_equal(sp.entries[6].heightmap_type, MC_BEDROCK_HM_HAS_DATA); /* the chest column reaches y 41 */
        assert_int_equal(sp.entries[6].heightmap[4 * 16 + 3], 41 - 32);
        assert_int_equal(sp.entries[6].heightmap[0], -1);
        assert_int_equal(sp.entries[7].heightmap_type, MC_BEDROCK_HM_ALL_TOO_LOW);
        assert_int_equal(sp.entries[10].heightmap_type, MC_BEDROCK_HM_ALL_TOO_LOW);
        assert_int_equal(sp.entries[24].result, MC_BEDROCK_RESULT_Y_OUT_OF_BOUNDS);
        assert_int_equal(sp.entries[25].result, MC_BEDROCK_RESULT_SUCCESS);
        assert_int_equal(sp.entries[26].result, MC_BEDROCK_RESULT_CHUNK_NOT_FOUND);
        if (cache) {
            assert_true(sp.entries[0].has_blob);
            size_t bl;
            const uint8_t *blob = mc_bedrock_blob_cache_get(mc_bedrock_engine_cache(e), sp.entries[6].blob_id, &bl);
            assert_non_null(blob);
            assert_int_equal(mc_bedrock_blob_hash(blob, bl), sp.entries[6].blob_id);
            assert_false(sp.entries[7].has_payload);
        } else {
            /* the payload of the chest subchunk: subchunk + the chest */
            mc_bedrock_subchunk sc;
            mc_bedrock_subchunk_init(&sc, NULL);
            size_t used;
            assert_int_equal(mc_bedrock_subchunk_decode(&sc, sp.entries[6].payload, sp.entries[6].payload_len,
                                                        MC_BEDROCK_FORM_NETWORK, &used, &err), MC_OK);
            assert_int_equal(sc.y_index, 2);
            assert_true(used < sp.entries[6].payload_len);
            mc_bedrock_subchunk_free(&sc);
        }
        /* another dimension */
        rq.dimension = 1;
        out.len = 0;
        assert_int_equal(mc_bedrock_engine_answer_request(e, &rq, &out, &err), MC_OK);
        mc_bedrock_subchunk_packet_free(&sp);
        assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp, 776, out.data, out.len, NULL, &err), MC_OK);
        assert_int_equal(sp.entries[0].result, MC_BEDROCK_RESULT_INVALID_DIMENSION);
        mc_bedrock_subchunk_packet_free(&sp);
        mc_buf_free(&out);
        mc_bedrock_engine_free(e);
    }
    /* 1.18.0 (475) answers one subchunk a packet and has no SuccessAllAir:
     * an air subchunk is a success that carries the air subchunk */
    {
        mc_bedrock_engine_options eo = {475, false, 0, 0};
        mc_bedrock_engine *e = mc_bedrock_engine_new(&ws, &eo, NULL);
        assert_non_null(e);
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_bedrock_subchunk_request rq = {0, 0, 10, 0, 1, NULL}; /* above every block */
        assert_int_equal(mc_bedrock_engine_answer_request(e, &rq, &out, &err), MC_OK);
        mc_bedrock_subchunk_packet sp;
        assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp, 475, out.data, out.len, NULL, &err), MC_OK);
        assert_int_equal(sp.entries[0].result, MC_BEDROCK_RESULT_SUCCESS);
        mc_bedrock_subchunk sc;
        mc_bedrock_subchunk_init(&sc, NULL);
        assert_int_equal(mc_bedrock_subchunk_decode(&sc, sp.entries[0].payload, sp.entries[0].payload_len,
                                                    MC_BEDROCK_FORM_NETWORK, NULL, &err), MC_OK);
        assert_int_equal(sc.y_index, 10);
        assert_true(mc_bedrock_storage_is_uniform(&sc.storages[0], bc.air));
        mc_bedrock_subchunk_free(&sc);
        mc_bedrock_subchunk_packet_free(&sp);
        mc_buf_free(&out);
        mc_bedrock_engine_free(e);
    }
    mc_bedrock_mc_source_invalidate(src, 0, 0, 0);
    mc_bedrock_mc_source_free(src);
    mc_bedrock_column_free(&bc);
    mc_column_free(w.cols[0]);
    mc_column_free(w.cols[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_word_counts),
        cmocka_unit_test(test_storage_set_get),
        cmocka_unit_test(test_subchunk_roundtrip),
        cmocka_unit_test(test_subchunk_known_bytes),
        cmocka_unit_test(test_subchunk_malformed),
        cmocka_unit_test(test_legacy),
        cmocka_unit_test(test_nbt_span),
        cmocka_unit_test(test_biomes),
        cmocka_unit_test(test_packets_roundtrip),
        cmocka_unit_test(test_packets_malformed),
        cmocka_unit_test(test_blob_cache),
        cmocka_unit_test(test_corpus_leveldb),
        cmocka_unit_test(test_model_and_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
