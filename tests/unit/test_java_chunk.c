/*
 * test_java_chunk.c: the Java chunk codecs in every protocol era.
 *
 *  - round trips: random columns (every palette kind, empty sections, light,
 *    biomes, block entities; custom heights from 1.18) of every release's
 *    registry are encoded, decoded strictly, compared position by position,
 *    and re-encoded to the same bytes;
 *  - the small packets (unload, batch, Chunk Biomes, Map Chunk Bulk);
 *  - strict and lenient decoding of packets vanilla would not send.
 * Corpus captures are in test_java_chunk_corpus.c.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_gen.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

static bool era_modern(uint32_t p) { return p >= 757; }
/* 1.17 sends the column's own height too (with a mask) */
static bool era_own_height(uint32_t p) { return p >= 755; }

/* Sections y the era sends: 0..15 before 1.18, all from 1.18. */
static void compare_columns(const mc_column *a, const mc_column *b, uint32_t protocol)
{
    const int32_t lo = era_own_height(protocol) ? mc_column_min_section(a) : 0;
    const int32_t hi = era_own_height(protocol) ? lo + (int32_t)mc_column_section_count(a) : 16;
    for (int32_t sy = lo; sy < hi; sy++) {
        const mc_section *sa = mc_column_section_const(a, sy);
        const mc_section *sb = mc_column_section_const(b, sy);
        assert_non_null(sb);
        const mc_registry *ra = mc_column_registry(a), *rb = mc_column_registry(b);
        bool a_air = !sa || mc_section_block_count(sa, ra) == 0;
        if (a_air) {
            /* empty sections may be left out: all air on the other side */
            assert_int_equal(mc_section_block_count(sb, rb), 0);
        } else {
            if (!mc_container_equal(&sa->blocks, &sb->blocks)) {
                print_message("protocol %u section %d blocks differ\n", protocol, sy);
                fail();
            }
            unsigned ba, fa, bb, fb;
            mc_section_counts(sa, ra, &ba, &fa);
            mc_section_counts(sb, rb, &bb, &fb);
            assert_int_equal(ba, bb);
            assert_int_equal(fa, fb);
        }
        if (protocol >= 573 && (protocol >= 757 || sy >= 0)) {
            if (!mc_container_equal(&sa->biomes, &sb->biomes)) {
                print_message("protocol %u section %d biomes differ\n", protocol, sy);
                fail();
            }
        }
        if (!a_air && protocol < 477) {
            /* light inside the sections before 1.14 */
            if (sa->block_light)
                assert_memory_equal(sa->block_light, sb->block_light, MC_LIGHT_BYTES);
        }
    }
}

static void roundtrip(uint32_t protocol, const mc_registry *reg, uint64_t seed, int32_t min_sy,
                      uint32_t count)
{
    mc_column *col = mc__gen_column(reg, seed, (int32_t)seed - 3, 5 - (int32_t)seed, min_sy, count);
    assert_non_null(col);
    mc_buf out, light, again, light2;
    mc_buf_init(&out, NULL);
    mc_buf_init(&light, NULL);
    mc_buf_init(&again, NULL);
    mc_buf_init(&light2, NULL);
    mc_error err;
    mc_error_clear(&err);
    if (mc_java_encode_chunk(col, protocol, &out, &light, &err) != MC_OK) {
        print_message("encode %u: %s\n", protocol, err.message);
        fail();
    }
    mc_java_decode_opts o;
    memset(&o, 0, sizeof o);
    o.has_height = true;
    o.min_y = era_own_height(protocol) ? min_sy * 16 : 0;
    o.height = era_own_height(protocol) ? count * 16 : 256;
    mc_column *back = NULL;
    mc_java_chunk_info info;
    if (mc_java_decode_chunk(out.data, out.len, protocol, &o, &back, &info, &err) != MC_OK) {
        print_message("decode %u (seed %llu): %s\n", protocol, (unsigned long long)seed, err.message);
        fail();
    }
    if (light.len) {
        int32_t lx, lz;
        if (mc_java_decode_update_light(light.data, light.len, protocol, &o, back, &lx, &lz, &err) !=
            MC_OK) {
            print_message("decode light %u: %s\n", protocol, err.message);
            fail();
        }
        assert_int_equal(lx, mc_column_x(col));
        assert_int_equal(lz, mc_column_z(col));
    }
    assert_int_equal(mc_column_x(back), mc_column_x(col));
    assert_int_equal(mc_column_z(back), mc_column_z(col));
    compare_columns(col, back, protocol);
    if (protocol >= 110) {
        /* block entities inside the sent height come back */
        size_t n = 0;
        for (size_t i = 0; i < mc_column_block_entity_count(col); i++) {
            int32_t x, y, z;
            mc_column_block_entity_at(col, i, &x, &y, &z);
            if (era_own_height(protocol) || (y >= 0 && y < 256)) {
                n++;
                assert_non_null(mc_column_block_entity(back, x, y, z));
            }
        }
        assert_int_equal(mc_column_block_entity_count(back), n);
    }
    /* decoded -> encoded again: the same bytes */
    assert_int_equal(mc_java_encode_chunk(back, protocol, &again, &light2, &err), MC_OK);
    if (again.len != out.len || memcmp(again.data, out.data, out.len) != 0) {
        size_t k = 0;
        while (k < out.len && k < again.len && out.data[k] == again.data[k])
            k++;
        print_message("protocol %u seed %llu: re-encode differs at byte %zu (%zu vs %zu)\n", protocol,
                      (unsigned long long)seed, k, again.len, out.len);
        fail();
    }
    assert_int_equal(light2.len, light.len);
    if (light.len)
        assert_memory_equal(light2.data, light.data, light.len);
    mc_buf_free(&out);
    mc_buf_free(&light);
    mc_buf_free(&again);
    mc_buf_free(&light2);
    mc_column_free(col);
    mc_column_free(back);
}

static void test_roundtrip_every_release(void **state)
{
    (void)state;
    size_t n = mc_java_version_count();
    uint32_t last = 0;
    unsigned done = 0;
    for (size_t i = 0; i < n; i++) {
        mc_version_info v;
        assert_true(mc_java_version_at(i, &v));
        if (!v.registry || v.protocol < 47 || (uint32_t)v.protocol == last)
            continue;
        if (!mc_java_protocol_known((uint32_t)v.protocol, NULL))
            continue;
        last = (uint32_t)v.protocol;
        const mc_registry *reg = mc_registry_find_protocol(v.protocol);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            if (era_modern(last)) {
                roundtrip(last, reg, seed, -4, 24);
                if (seed == 1) {
                    roundtrip(last, reg, seed + 10, 0, 16);  /* the nether / end */
                    roundtrip(last, reg, seed + 20, -8, 40); /* a datapack height */
                }
            } else {
                roundtrip(last, reg, seed, 0, 16);
                if (last >= 755 && seed == 1)
                    roundtrip(last, reg, seed + 30, -4, 24); /* 1.17: a datapack height */
            }
        }
        done++;
    }
    print_message("round trips in %u protocols\n", done);
    assert_true(done >= 40);
}

/* A 1.21 column encoded for an old protocol: translated on the way. */
static void test_translated_encode(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.4");
    assert_non_null(reg);
    mc_column *col = mc__gen_column(reg, 77, 1, 2, -4, 24);
    static const uint32_t protos[] = {47, 340, 404, 498, 578, 754, 756, 765, 769, 775};
    for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++) {
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_error err;
        assert_int_equal(mc_java_encode_chunk(col, protos[i], &out, NULL, &err), MC_OK);
        mc_column *back = NULL;
        mc_java_decode_opts o = {0};
        if (protos[i] >= 755) { /* 1.17+: the column's own height */
            o.has_height = true;
            o.min_y = -64;
            o.height = 384;
        }
        if (mc_java_decode_chunk(out.data, out.len, protos[i], &o, &back, NULL, &err) != MC_OK) {
            print_message("protocol %u: %s\n", protos[i], err.message);
            fail();
        }
        const mc_registry *to = mc_column_registry(back);
        const uint32_t *map = mc_registry_map(reg, to);
        for (int y = 0; y < 256; y += 7)
            for (int z = 0; z < 16; z += 3)
                for (int x = 0; x < 16; x += 5) {
                    uint32_t want = map[mc_column_get_block(col, x, y, z)];
                    assert_int_equal(mc_column_get_block(back, x, y, z), want);
                }
        mc_column_free(back);
        mc_buf_free(&out);
    }
    mc_column_free(col);
}

static void test_small_packets(void **state)
{
    (void)state;
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    int32_t x, z;
    static const uint32_t protos[] = {47, 107, 340, 498, 754, 763, 764, 770, 775};
    for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++) {
        b.len = 0;
        assert_int_equal(mc_java_encode_unload(-5, 9, protos[i], &b, &err), MC_OK);
        assert_int_equal(mc_java_decode_unload(b.data, b.len, protos[i], &x, &z, &err), MC_OK);
        assert_int_equal(x, -5);
        assert_int_equal(z, 9);
        if (protos[i] == 47)
            assert_int_equal(b.len, 270); /* as the 1.8.8 captures */
        else if (protos[i] >= 107)
            assert_int_equal(b.len, 9);
    }
    /* 1.20.2+: Chunk Batch Start/Finished */
    b.len = 0;
    assert_int_equal(mc_java_encode_batch_start(764, &b, &err), MC_OK);
    assert_int_equal(b.len, 1);
    assert_int_equal(b.data[0], mc_java_packet_id(764, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "chunk_batch_start"));
    b.len = 0;
    assert_int_equal(mc_java_encode_batch_finished(770, 25, &b, &err), MC_OK);
    assert_int_equal(b.len, 2);
    assert_int_equal(b.data[1], 25);
    assert_int_equal(mc_java_encode_batch_start(763, &b, &err), MC_ERR_UNSUPPORTED);
    mc_buf_free(&b);
}

static void test_bulk_and_biomes(void **state)
{
    (void)state;
    const mc_registry *r8 = mc_registry_find_protocol(47);
    mc_column *cols[3];
    for (int i = 0; i < 3; i++)
        cols[i] = mc__gen_column(r8, 100 + (uint64_t)i, i, -i, 0, 16);
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    assert_int_equal(mc_java_encode_chunk_bulk((const mc_column *const *)cols, 3, 47, true, &b, &err), MC_OK);
    mc_column **got = NULL;
    size_t n = 0;
    if (mc_java_decode_chunk_bulk(b.data, b.len, 47, NULL, &got, &n, &err) != MC_OK) {
        print_message("bulk: %s\n", err.message);
        fail();
    }
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mc_column_x(got[i]), i);
        compare_columns(cols[i], got[i], 47);
    }
    mc_java_free_columns(got, n, NULL);
    for (int i = 0; i < 3; i++)
        mc_column_free(cols[i]);

    /* Chunk Biomes (1.19.4+, and 1.21.5 without data lengths) */
    static const uint32_t protos[] = {762, 769, 770, 775};
    for (size_t k = 0; k < 4; k++) {
        const mc_registry *reg = mc_registry_find_protocol((int32_t)protos[k]);
        mc_column *src = mc__gen_column(reg, 5, 3, 4, -4, 24);
        mc_column *dst = mc_column_new(reg, 3, 4, -4, 24, NULL);
        b.len = 0;
        const mc_column *list[1] = {src};
        assert_int_equal(mc_java_encode_chunk_biomes(list, 1, protos[k], &b, &err), MC_OK);
        if (mc_java_decode_chunk_biomes(b.data, b.len, protos[k], NULL, &dst, 1, &err) != MC_OK) {
            print_message("chunk biomes %u: %s\n", protos[k], err.message);
            fail();
        }
        for (int s = 0; s < 24; s++)
            assert_true(mc_container_equal(&mc_column_section_at(src, (uint32_t)s)->biomes,
                                           &mc_column_section_at(dst, (uint32_t)s)->biomes));
        mc_column_free(src);
        mc_column_free(dst);
    }
    mc_buf_free(&b);
}

/* Patches the first section's block container of a 1.18-1.21.4 packet. */
static void test_strict_and_lenient(void **state)
{
    (void)state;
    const uint32_t p = 769;
    const mc_registry *reg = mc_registry_find_protocol((int32_t)p);
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    uint32_t stone = mc_registry_default_state(reg, "stone");
    uint32_t dirt = mc_registry_default_state(reg, "dirt");
    for (int x = 0; x < 16; x++)
        mc_column_set_block(col, x, -64, 0, (x & 1) ? stone : dirt);
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_error err;
    assert_int_equal(mc_java_encode_chunk(col, p, &b, NULL, &err), MC_OK);
    mc_column *back = NULL;
    assert_int_equal(mc_java_decode_chunk(b.data, b.len, p, NULL, &back, NULL, &err), MC_OK);
    mc_column_free(back);
    /* Find the first section: after x, z, heightmaps NBT, size varint. Search
     * for the block count 16 followed by bits 4. */
    size_t at = 0;
    for (size_t i = 9; i + 3 < b.len; i++)
        if (b.data[i] == 0 && b.data[i + 1] == 16 && b.data[i + 2] == 4) {
            at = i;
            break;
        }
    assert_true(at > 0);
    /* trailing byte: strict rejects, lenient accepts */
    mc_buf t;
    mc_buf_init(&t, NULL);
    mc_buf_put(&t, b.data, b.len);
    mc_buf_put_u8(&t, 0);
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, NULL, &back, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "after the packet"));
    mc_java_decode_opts lenient = {0};
    lenient.lenient = true;
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, &lenient, &back, NULL, &err), MC_OK);
    mc_column_free(back);
    /* a block count that disagrees with the blocks: accepted (vanilla's
     * counts drift), the column holds the true count */
    t.len = 0;
    mc_buf_put(&t, b.data, b.len);
    t.data[at + 1] = 17;
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, NULL, &back, NULL, &err), MC_OK);
    assert_int_equal(mc_column_section_at(back, 0)->block_count, MC_SECTION_COUNT_UNKNOWN);
    assert_int_equal(mc_section_block_count(mc_column_section_at(back, 0), mc_column_registry(back)), 16);
    mc_column_free(back);
    /* a negative one is refused, naming the field and the offset */
    t.data[at] = 0x80;
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, NULL, &back, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "block count"));
    assert_non_null(strstr(err.message, "offset"));
    /* blocks at 2 bits: strict rejects; lenient reads the client's way */
    t.len = 0;
    mc_buf_put(&t, b.data, b.len);
    t.data[at + 2] = 2;
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, NULL, &back, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "2 bits"));
    /* data array length disagreeing with the width: lenient -> palette[0] everywhere */
    t.len = 0;
    mc_buf_put(&t, b.data, b.len);
    {
        /* bits 4, palette len 3 (air, dirt, stone), entries, then length 256 = 0x80 0x02 */
        size_t k = at + 3;
        uint32_t plen = t.data[k++];
        for (uint32_t i = 0; i < plen; i++)
            while (t.data[k++] & 0x80) {
            }
        assert_int_equal(t.data[k], 0x80);
        assert_int_equal(t.data[k + 1], 0x02);
        t.data[k] = 0xFF; /* 255 longs, one left over as the next field */
        t.data[k + 1] = 0x01;
    }
    assert_int_equal(mc_java_decode_chunk(t.data, t.len, p, NULL, &back, NULL, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "data array length"));
    mc_buf_free(&t);
    mc_buf_free(&b);
    mc_column_free(col);
}

/* The default overworld range per protocol: the 1.18 height change sits
 * between 756 (1.17.1) and 757 (1.18). */
static void test_default_height(void **state)
{
    (void)state;
    static const struct { uint32_t protocol; int32_t min_y; uint32_t height; } v[] = {
        {47, 0, 256}, {340, 0, 256}, {404, 0, 256}, {756, 0, 256}, {757, -64, 384}, {775, -64, 384},
    };
    mc_error err;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        int32_t min_y = 1;
        uint32_t height = 1;
        assert_int_equal(mc_java_default_height(v[i].protocol, &min_y, &height, &err), MC_OK);
        assert_int_equal(min_y, v[i].min_y);
        assert_int_equal(height, v[i].height);
    }
    int32_t min_y;
    uint32_t height;
    assert_int_equal(mc_java_default_height(5, &min_y, &height, &err), MC_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_height),
        cmocka_unit_test(test_roundtrip_every_release),
        cmocka_unit_test(test_translated_encode),
        cmocka_unit_test(test_small_packets),
        cmocka_unit_test(test_bulk_and_biomes),
        cmocka_unit_test(test_strict_and_lenient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
