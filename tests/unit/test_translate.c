/*
 * test_translate.c: mc_column_translate and mc_biome_translate.
 *
 * Columns from the codec generator (every palette kind, light, block
 * entities) are translated between registries and compared position by
 * position with mc_registry_translate_state (except where a block entity
 * of the result decides its block: test_java_chunk_be checks those against
 * the chunk NBT writer); palettes that merge are rebuilt without
 * duplicates (as mc_container_set_all builds them); biomes go by name with the 1.18 renames and the plains
 * fallback; light and heightmaps survive; block entities are the column's
 * within one registry, and those of the translated view otherwise.
 */
#include "support.h"

#include <string.h>

#include "chunk_gen.h"
#include "mcchunk/anvil.h"
#include "mcchunk/bits.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

static void check_translation(const char *from_name, const char *to_name, uint64_t seed)
{
    const mc_registry *from = mc_registry_find(from_name), *to = mc_registry_find(to_name);
    assert_non_null(from);
    assert_non_null(to);
    mc_column *col = mc__gen_column(from, seed, 4, -2, -4, 24);
    assert_non_null(col);
    assert_int_equal(mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL), MC_OK);
    mc_error err;
    mc_column *t = mc_column_translate(col, to, NULL, &err);
    assert_non_null(t);
    assert_ptr_equal(mc_column_registry(t), to);
    assert_int_equal(mc_column_min_section(t), -4);
    for (uint32_t i = 0; i < 24; i++) {
        const mc_section *a = mc_column_section_at(col, i), *b = mc_column_section_at(t, i);
        uint32_t va[4096], vb[4096];
        mc_container_get_all(&a->blocks, va);
        mc_container_get_all(&b->blocks, vb);
        unsigned count = 0;
        const int32_t sy = -4 + (int32_t)i;
        uint8_t has_be[4096 / 8]; /* the blocks with a block entity in t */
        memset(has_be, 0, sizeof has_be);
        for (size_t e = 0; e < mc_column_block_entity_count(t); e++) {
            int32_t x, y, z;
            mc_column_block_entity_at(t, e, &x, &y, &z);
            if (y >> 4 == sy) {
                const unsigned k = mc_block_index((unsigned)x, (unsigned)y, (unsigned)z);
                has_be[k >> 3] |= (uint8_t)(1u << (k & 7));
            }
        }
        for (int k = 0; k < 4096; k++) {
            uint32_t want = mc_registry_translate_state(from, to, va[k], NULL);
            if ((has_be[k >> 3] >> (k & 7)) & 1)
                want = vb[k]; /* decided by its block entity */
            assert_int_equal(vb[k], want);
            count += !(mc_registry_state_flags(to, want) & MC_STATE_AIR);
        }
        assert_int_equal(mc_section_block_count(b, to), count); /* counted when asked */
        /* no duplicate palette entries */
        size_t plen;
        const uint32_t *pal = mc_container_palette(&b->blocks, &plen);
        for (size_t x = 0; pal && x < plen; x++)
            for (size_t y = x + 1; y < plen; y++)
                assert_int_not_equal(pal[x], pal[y]);
        /* biomes by name */
        for (int k = 0; k < 64; k++) {
            uint32_t ba = mc_container_get(&a->biomes, (size_t)k), bb = mc_container_get(&b->biomes, (size_t)k);
            assert_int_equal(bb, mc_biome_translate(from, to, ba, NULL));
        }
        if (a->sky_light)
            assert_memory_equal(a->sky_light, b->sky_light, MC_LIGHT_BYTES);
        else
            assert_null(b->sky_light);
    }
    /* the block entities: the column's own within a registry, else the
     * view's (translated), each on a block that is there */
    mc_column_view *v = mc_column_view_new(col, to, NULL, &err);
    assert_non_null(v);
    assert_int_equal(mc_column_block_entity_count(t), mc_column_view_block_entity_count(v));
    for (size_t i = 0; i < mc_column_block_entity_count(t); i++) {
        int32_t x, y, z, vx, vy, vz;
        const mc_nbt_tag *be = mc_column_block_entity_at(t, i, &x, &y, &z);
        assert_true(mc_nbt_equal(be, mc_column_view_block_entity_at(v, i, &vx, &vy, &vz)));
        assert_true(x == vx && y == vy && z == vz);
        assert_false(mc_registry_state_flags(to, mc_column_get_block(t, x, y, z)) & MC_STATE_AIR);
        if (from == to)
            assert_true(mc_nbt_equal(be, mc_column_block_entity(col, x, y, z)));
    }
    mc_column_view_free(v);
    for (int h = 0; h < MC_HEIGHTMAP_COUNT; h++)
        assert_true(mc_column_has_heightmap(t, (mc_heightmap_type)h));
    mc_column_free(t);
    mc_column_free(col);
}

static void test_translate_pairs(void **state)
{
    (void)state;
    check_translation("1.21.4", "1.21.4", 1);
    check_translation("1.21.4", "1.20.4", 2);
    check_translation("1.21.4", "1.16.5", 3);
    check_translation("1.21.4", "1.12.2", 4);
    check_translation("1.21.4", "1.8.9", 5);
    check_translation("1.12.2", "1.21.4", 6);
    check_translation("1.16.5", "26.1", 7);
}

static void test_biomes(void **state)
{
    (void)state;
    const mc_registry *r21 = mc_registry_find("1.21.4"), *r16 = mc_registry_find("1.16.5"),
                      *r12 = mc_registry_find("1.12.2");
    bool fb;
    uint32_t wh = mc_registry_biome_id(r21, "windswept_hills");
    uint32_t mo = mc_registry_biome_id(r16, "mountains");
    assert_int_not_equal(wh, MC_STATE_NONE);
    assert_int_equal(mc_biome_translate(r21, r16, wh, &fb), mo);
    assert_false(fb);
    assert_int_equal(mc_biome_translate(r16, r21, mo, &fb), wh);
    /* cherry_grove does not exist in 1.12: the table's neighbour (plains) */
    uint32_t cg = mc_registry_biome_id(r21, "cherry_grove");
    assert_int_equal(mc_biome_translate(r21, r12, cg, &fb), mc_registry_biome_id(r12, "plains"));
    /* an id nothing has: the fallback */
    assert_int_equal(mc_biome_translate(r21, r12, 9999, &fb), mc_registry_biome_id(r12, "plains"));
    assert_true(fb);
    /* the map, then the target's fallback id (the byte path's, for ids past the map) */
    const uint32_t *map = mc_biome_map(r21, r12);
    assert_non_null(map);
    assert_int_equal(map[cg], mc_registry_biome_id(r12, "plains"));
    assert_int_equal(map[mc_registry_biome_count(r21)], mc_registry_biome_id(r12, MC_BIOME_FALLBACK));
    assert_int_equal(mc_biome_map(r16, r21)[mc_registry_biome_count(r16)], mc_registry_biome_id(r21, MC_BIOME_FALLBACK));
}

/* Two source states that become one target state: the palette is rebuilt. */
static void test_merge(void **state)
{
    (void)state;
    const mc_registry *r21 = mc_registry_find("1.21.4"), *r8 = mc_registry_find("1.8.9");
    mc_column *col = mc_column_new(r21, 0, 0, 0, 16, NULL);
    uint32_t deep = mc_registry_default_state(r21, "seagrass");
    uint32_t stone = mc_registry_default_state(r21, "water");
    for (int x = 0; x < 16; x++)
        mc_column_set_block(col, x, 3, 0, (x & 1) ? deep : stone);
    mc_error err;
    mc_column *t = mc_column_translate(col, r8, NULL, &err);
    assert_non_null(t);
    size_t plen;
    const mc_section *s = mc_column_section_at(t, 0);
    const uint32_t *pal = mc_container_palette(&s->blocks, &plen);
    assert_int_equal(plen, 2); /* air and water (seagrass -> water) */
    assert_int_equal(mc_column_get_block(t, 1, 3, 0), mc_column_get_block(t, 0, 3, 0));
    (void)pal;
    mc_column_free(t);
    mc_column_free(col);
}

/* mc_container_translate of indirect containers whose entries merge (a
 * map sending values to value % k): the same container, palette order and
 * bits as mc_container_set_all of the mapped values (what it rebuilt
 * before it remapped indices instead), for palettes of 3 to 256 entries in
 * another order than the values first occur in, one of them unused. */
static void test_merge_reindex(void **state)
{
    (void)state;
    const mc_container_rules rules = mc_container_rules_blocks(15);
    static uint32_t map[5000];
    static uint32_t vals[4096], mapped[4096];
    mc_test_rng rng = {77};
    unsigned merges = 0;
    for (int round = 0; round < 60; round++) {
        const uint32_t k = 1 + (uint32_t)(mc_test_rand(&rng) % 40);
        for (uint32_t v = 0; v < 5000; v++)
            map[v] = 7000 + v % k;
        const uint32_t pal_n = 2 + (uint32_t)(mc_test_rand(&rng) % 254);
        for (int i = 0; i < 4096; i++)
            vals[i] = i < (int)pal_n ? (uint32_t)i * 13 % 5000 + 1 : vals[mc_test_rand(&rng) % pal_n];
        if (round & 1)
            vals[pal_n] = 4999; /* the first entry used too, early: every index met long before the end */
        /* the palette reversed, and an entry first that is unused in even
         * rounds: its order is not the order the values first occur in */
        uint32_t pal[256];
        uint16_t idx[4096];
        pal[0] = 4999;
        for (uint32_t i = 0; i < pal_n; i++)
            pal[1 + i] = (pal_n - 1 - i) * 13 % 5000 + 1;
        for (int i = 0; i < 4096; i++) {
            idx[i] = 0; /* (4999) */
            for (uint16_t j = 1; j <= pal_n; j++)
                if (pal[j] == vals[i])
                    idx[i] = j;
        }
        const unsigned bits = mc_container_rules_bits(&rules, pal_n + 1);
        uint64_t longs[4096];
        mc_bits_pack_u16(idx, 4096, bits, MC_BITS_PADDED, longs);
        mc_container c, want;
        mc_error err;
        assert_int_equal(mc_container_from_longs(&c, &rules, bits, MC_BITS_PADDED, pal, pal_n + 1, longs,
                                                 mc_bits_longs(4096, bits, MC_BITS_PADDED), NULL, &err),
                         MC_OK);
        assert_int_equal(mc_container_get_kind(&c), MC_CONTAINER_INDIRECT);
        for (int i = 0; i < 4096; i++)
            mapped[i] = map[vals[i]];
        mc_container_init(&want, &rules, 0, NULL);
        assert_int_equal(mc_container_set_all(&want, mapped), MC_OK);
        /* entries merge when two palette entries (the unused one too) map
         * alike: k values at most, so whenever k <= pal_n */
        const bool merge = k <= pal_n;
        merges += merge;
        assert_int_equal(mc_container_translate(&c, map, 5000, 0, &rules), MC_OK);
        assert_true(mc_container_equal(&c, &want));
        if (!merge) { /* the palette remapped in place, an unused entry kept */
            mc_container_free(&c);
            mc_container_free(&want);
            continue;
        }
        assert_int_equal(mc_container_get_kind(&c), mc_container_get_kind(&want));
        assert_int_equal(mc_container_bits(&c), mc_container_bits(&want));
        size_t na = 0, nb = 0;
        const uint32_t *pa = mc_container_palette(&c, &na), *pb = mc_container_palette(&want, &nb);
        assert_int_equal(na, nb);
        if (na)
            assert_memory_equal(pa, pb, na * sizeof *pa);
        mc_container_free(&c);
        mc_container_free(&want);
    }
    assert_true(merges > 30);
}

/* mc_column_translate_take (the source's extra NBT and heightmaps moved,
 * not copied) against mc_column_translate on real older chunks (1.12.2,
 * 1.15.2) read as world convert
 * reads them (extra NBT kept, partly deferred; block entities): the two
 * results have the same heightmaps (moved by take where they are kept)
 * and write the same chunk NBT for 1.21.4 and for the source's own era's
 * last release. */
static void test_translate_take(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    static const char *const files[] = {"anvil/1.12.2", "anvil/1.15.2"};
    const mc_registry *to = mc_registry_find("1.21.4");
    size_t compared = 0, heightmaps = 0;
    for (size_t f = 0; f < 2; f++) {
        char **list = mc_test_list_corpus(files[f], ".mca");
        char **terrain = list;
        while (*terrain && (strstr(*terrain, "poi") || strstr(*terrain, "entities")))
            terrain++;
        mc_region *r = NULL;
        mc_error err;
        assert_non_null(*terrain);
        assert_int_equal(mc_region_open(*terrain, NULL, &r, &err), MC_OK);
        mc_buf nbt, a, b;
        mc_buf_init(&nbt, NULL);
        mc_buf_init(&a, NULL);
        mc_buf_init(&b, NULL);
        for (int i = 0, n = 0; i < 1024 && n < 40; i++) {
            nbt.len = 0;
            if (!mc_region_has_chunk(r, i & 31, i >> 5) ||
                mc_region_read_chunk(r, i & 31, i >> 5, &nbt, NULL, &err) != MC_OK)
                continue;
            mc_column *c1 = NULL, *c2 = NULL;
            assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &c1, &err), MC_OK);
            assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &c2, &err), MC_OK);
            mc_column *t1 = mc_column_translate(c1, to, NULL, &err);
            mc_column *t2 = mc_column_translate_take(c2, to, NULL, &err);
            assert_non_null(t1);
            assert_non_null(t2);
            mc_column_free(c1);
            for (int h = 0; h < MC_HEIGHTMAP_COUNT; h++) {
                assert_int_equal(mc_column_has_heightmap(t1, (mc_heightmap_type)h),
                                 mc_column_has_heightmap(t2, (mc_heightmap_type)h));
                uint16_t v1[256], v2[256];
                if (!mc_column_has_heightmap(t1, (mc_heightmap_type)h))
                    continue;
                mc_column_heightmap_get_all(t1, (mc_heightmap_type)h, v1);
                mc_column_heightmap_get_all(t2, (mc_heightmap_type)h, v2);
                assert_memory_equal(v1, v2, sizeof v1);
                heightmaps++;
            }
            const int32_t dvs[2] = {4189, f ? 2730 : 1343};
            for (int k = 0; k < 2; k++) {
                a.len = b.len = 0;
                assert_int_equal(mc_chunknbt_write_bytes(t1, dvs[k], &a, NULL, &err), MC_OK);
                assert_int_equal(mc_chunknbt_write_bytes(t2, dvs[k], &b, NULL, &err), MC_OK);
                assert_int_equal(a.len, b.len);
                assert_memory_equal(a.data, b.data, a.len);
            }
            mc_column_free(t1);
            mc_column_free(t2);
            n++;
            compared++;
        }
        mc_buf_free(&nbt);
        mc_buf_free(&a);
        mc_buf_free(&b);
        mc_region_close(r);
        mc_test_free_list(list);
    }
    assert_int_equal(compared, 80);
    assert_true(heightmaps >= 80); /* (the 1.15.2 chunks' are kept: moved by take, not copied) */
}

/* A 0..255 column reshaped to -64..319 and back. */
static void test_reshape(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.4");
    mc_column *col = mc__gen_column(reg, 42, 1, 1, 0, 16);
    mc_error err;
    mc_column *tall = mc_column_reshape(col, -4, 24, NULL, &err);
    assert_non_null(tall);
    assert_int_equal(mc_column_min_y(tall), -64);
    assert_int_equal(mc_column_section_at(tall, 0)->block_count, 0);
    for (int32_t sy = 0; sy < 16; sy++)
        assert_true(mc_container_equal(&mc_column_section_const(col, sy)->blocks,
                                       &mc_column_section_const(tall, sy)->blocks));
    mc_column *back = mc_column_reshape(tall, 0, 16, NULL, &err);
    assert_non_null(back);
    for (int32_t sy = 0; sy < 16; sy++)
        assert_true(mc_container_equal(&mc_column_section_const(col, sy)->blocks,
                                       &mc_column_section_const(back, sy)->blocks));
    assert_int_equal(mc_column_block_entity_count(back), mc_column_block_entity_count(col));
    mc_column_free(back);
    mc_column_free(tall);
    mc_column_free(col);
}

/* A 1.13+ potted plant without a block entity gets one made for 1.12 (its
 * plant is in the block entity there): the pair map's "makes a block
 * entity" bit, set for the valid states that need one. */
static void test_block_entity_made(void **state)
{
    (void)state;
    const mc_registry *from = mc_registry_find("1.21.4"), *to = mc_registry_find("1.12.2");
    mc_column *col = mc_column_new(from, 0, 0, 0, 1, NULL);
    assert_non_null(col);
    assert_int_equal(mc_column_set_block(col, 3, 5, 7, mc_test_state(from, "potted_dandelion")), MC_OK);
    assert_int_equal(mc_column_set_block(col, 4, 5, 7, mc_test_state(from, "stone")), MC_OK);
    mc_error err;
    mc_column *t = mc_column_translate(col, to, NULL, &err);
    assert_non_null(t);
    assert_non_null(mc_column_block_entity(t, 3, 5, 7));
    assert_null(mc_column_block_entity(t, 4, 5, 7));
    assert_int_equal(mc_column_block_entity_count(t), 1);
    mc_column_free(t);
    mc_column_free(col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translate_pairs),
        cmocka_unit_test(test_biomes),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_merge_reindex),
        cmocka_unit_test(test_translate_take),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_block_entity_made),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
