/*
 * test_column.c: columns of any height (the 1.18 overworld -64..319, the
 * pre-1.17 0..255, a custom datapack range starting below zero), block and
 * biome access by absolute coordinates, light access, block entities keyed
 * by position and the extra NBT kept for round trips.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunk.h"

static const mc_registry *reg_or_skip(void)
{
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg) {
        print_message("registry 1.21.4 not available: skipping\n");
        skip();
    }
    return reg;
}

static void check_range(const mc_registry *reg, int32_t min_sy, uint32_t count)
{
    mc_column *col = mc_column_new(reg, -3, 7, min_sy, count, NULL);
    assert_non_null(col);
    assert_int_equal(mc_column_min_y(col), min_sy * 16);
    assert_int_equal(mc_column_height(col), count * 16);
    assert_int_equal(mc_column_x(col), -3);
    assert_int_equal(mc_column_z(col), 7);
    assert_ptr_equal(mc_column_registry(col), reg);
    int32_t lo = min_sy * 16, hi = lo + (int32_t)count * 16 - 1;
    uint32_t stone = mc_registry_default_state(reg, "stone");
    uint32_t air = mc_registry_air(reg);
    /* world coordinates: x = -3*16 + 5 -> local 5 */
    assert_int_equal(mc_column_set_block(col, -48 + 5, lo, 7 * 16 + 9, stone), MC_OK);
    assert_int_equal(mc_column_set_block(col, 5, hi, 9, stone + 1), MC_OK);
    assert_int_equal(mc_column_get_block(col, 5, lo, 9), stone);
    assert_int_equal(mc_column_get_block(col, 5, hi, 9), stone + 1);
    assert_int_equal(mc_column_get_block(col, 5, lo + 1, 9), air);
    assert_int_equal(mc_column_set_block(col, 0, lo - 1, 0, stone), MC_ERR_RANGE);
    assert_int_equal(mc_column_set_block(col, 0, hi + 1, 0, stone), MC_ERR_RANGE);
    assert_int_equal(mc_column_get_block(col, 0, hi + 1, 0), air);
    mc_section *bottom = mc_column_section(col, min_sy);
    assert_ptr_equal(bottom, mc_column_section_at(col, 0));
    assert_int_equal(bottom->block_count, count == 1 ? 2 : 1);
    assert_int_equal(mc_section_get_block(bottom, 5, 0, 9), stone);
    assert_null(mc_column_section(col, min_sy - 1));
    assert_null(mc_column_section(col, min_sy + (int32_t)count));
    /* a block at y = -1 lives in section -1, local y 15 */
    if (lo <= -1 && hi >= -1) {
        assert_int_equal(mc_column_set_block(col, 2, -1, 3, stone), MC_OK);
        assert_int_equal(mc_section_get_block(mc_column_section(col, -1), 2, 15, 3), stone);
    }
    /* biomes by 4x4x4 cell, absolute cell y */
    int32_t cy = lo >> 2;
    assert_int_equal(mc_column_set_biome(col, 1, cy, 2, 9), MC_OK);
    assert_int_equal(mc_column_get_biome(col, 1, cy, 2), 9);
    assert_int_equal(mc_section_get_biome(bottom, 1, 0, 2), 9);
    assert_int_equal(mc_column_set_biome(col, 1, (hi >> 2) + 1, 2, 9), MC_ERR_RANGE);
    /* light: absent until set */
    assert_int_equal(mc_column_get_block_light(col, 1, lo, 1), -1);
    assert_int_equal(mc_column_set_block_light(col, 1, lo, 1, 14), MC_OK);
    assert_int_equal(mc_column_get_block_light(col, 1, lo, 1), 14);
    assert_int_equal(mc_column_get_block_light(col, 0, lo, 1), 0);
    assert_int_equal(mc_column_get_sky_light(col, 1, lo, 1), -1);
    assert_int_equal(mc_column_set_sky_light(col, 15, hi, 15, 15), MC_OK);
    const mc_section *top = mc_column_section_const(col, min_sy + (int32_t)count - 1);
    assert_int_equal(top->sky_light[2047] >> 4, 15);
    assert_int_equal(mc_column_set_sky_light(col, 1, lo, 1, 16), MC_ERR_RANGE);
    /* heightmap width: ceil(log2(height + 1)) */
    assert_int_equal(mc_column_heightmap_bits(col), mc_bits_ceil_log2(count * 16 + 1));
    assert_true(mc_column_memory(col) > 0);
    mc_column_free(col);
}

static void test_heights(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    check_range(reg, -4, 24); /* 1.18+ overworld */
    check_range(reg, 0, 16);  /* before 1.17 */
    check_range(reg, -8, 3);  /* a datapack dimension entirely below zero */
    check_range(reg, -1, 1);
    check_range(reg, 3, 125); /* 2000 blocks, 11-bit heightmaps */
    assert_null(mc_column_new(reg, 0, 0, 0, 0, NULL));
}

static void test_block_entities_and_extra(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    mc_nbt_doc *src = mc_nbt_doc_new(NULL);
    mc_nbt_tag *chest = mc_nbt_doc_new_root(src, MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_string(src, chest, "id", "minecraft:chest", 15), MC_OK);
    assert_int_equal(mc_nbt_put_int(src, chest, "x", 3), MC_OK);
    assert_int_equal(mc_column_put_block_entity(col, 3, -60, 4, chest), MC_OK);
    assert_int_equal(mc_nbt_put_int(src, chest, "x", 5), MC_OK);
    assert_int_equal(mc_column_put_block_entity(col, 5, 100, 4, chest), MC_OK);
    mc_nbt_doc_free(src); /* the column holds copies */
    assert_int_equal(mc_column_block_entity_count(col), 2);
    mc_nbt_tag *t = mc_column_block_entity(col, 3, -60, 4);
    assert_non_null(t);
    int32_t v = 0;
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "x"), &v), MC_OK);
    assert_int_equal(v, 3);
    assert_null(mc_column_block_entity(col, 3, -61, 4));
    int32_t x, y, z;
    assert_non_null(mc_column_block_entity_at(col, 1, &x, &y, &z));
    assert_int_equal(x, 5);
    assert_int_equal(y, 100);
    assert_true(mc_column_remove_block_entity(col, 3, -60, 4));
    assert_false(mc_column_remove_block_entity(col, 3, -60, 4));
    assert_int_equal(mc_column_block_entity_count(col), 1);
    /* extra root data */
    mc_nbt_tag *extra = mc_column_extra(col);
    assert_non_null(extra);
    assert_int_equal(mc_nbt_tag_type(extra), MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_long(mc_column_nbt(col), extra, "InhabitedTime", 1234), MC_OK);
    assert_ptr_equal(mc_column_extra(col), extra);
    int64_t l = 0;
    assert_int_equal(mc_nbt_get_long(mc_nbt_get(mc_column_extra(col), "InhabitedTime"), &l), MC_OK);
    assert_true(l == 1234);
    mc_column_free(col);
}

/* Deferred extra data: kept as bytes until the extra compound or the
 * document is asked for, then parsed in, in order, after what is there. */
static void test_deferred_extra(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    /* the tags: a compound's payload without its end tag */
    mc_nbt_doc *src = mc_nbt_doc_new(NULL);
    mc_nbt_tag *sr = mc_nbt_doc_new_root(src, MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_long(src, sr, "InhabitedTime", 77), MC_OK);
    mc_nbt_tag *ticks = mc_nbt_put_list(src, sr, "block_ticks", MC_NBT_COMPOUND);
    assert_int_equal(mc_nbt_put_string(src, mc_nbt_list_append(src, ticks, MC_NBT_COMPOUND), "i", "minecraft:water", 15),
                     MC_OK);
    assert_int_equal(mc_nbt_put_string(src, sr, "Status", "minecraft:full", 14), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(src, MC_NBT_JAVA, &b, NULL), MC_OK);
    uint8_t *tags = malloc(b.len);
    const size_t tlen = b.len - 4; /* after type and empty name, before the end tag */
    memcpy(tags, b.data + 3, tlen);
    const size_t cut = 3 + 13 + 8; /* the first tag (InhabitedTime) alone */

    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    mc_nbt_tag *x = mc_column_extra(col);
    assert_int_equal(mc_nbt_put_int(mc_column_nbt(col), x, "DataVersion", 3955), MC_OK);
    assert_int_equal(mc_nbt_put_string(mc_column_nbt(col), x, "Status", "old", 3), MC_OK);
    /* in two calls, the second of two parts: joined in order */
    const void *p1[] = {tags};
    const size_t l1[] = {cut};
    assert_int_equal(mc_column_defer_extra(col, 1, p1, l1), MC_OK);
    const void *p2[] = {tags + cut, tags + cut + 10};
    const size_t l2[] = {10, tlen - cut - 10};
    assert_int_equal(mc_column_defer_extra(col, 2, p2, l2), MC_OK);
    memset(tags, 0xee, tlen); /* copied */
    assert_true(mc_column_extra_deferred(col));
    /* peek: what is there, nothing parsed */
    assert_ptr_equal(mc_column_extra_peek(col), x);
    assert_null(mc_nbt_get(mc_column_extra_peek(col), "block_ticks"));
    assert_int_equal(mc_nbt_count(mc_column_extra_peek(col)), 2);
    /* block entities do not parse them */
    mc_nbt_tag *be = mc_nbt_doc_new_root(src, MC_NBT_COMPOUND);
    assert_int_equal(mc_column_put_block_entity(col, 1, 2, 3, be), MC_OK);
    assert_true(mc_column_extra_deferred(col));
    /* the accessor parses them: DataVersion, then the deferred tags in
     * order, Status replaced by the deferred one */
    mc_nbt_tag *ex = mc_column_extra(col);
    assert_ptr_equal(ex, x);
    assert_false(mc_column_extra_deferred(col));
    const char *want[] = {"DataVersion", "InhabitedTime", "block_ticks", "Status"};
    size_t i = 0;
    for (mc_nbt_tag *t = mc_nbt_first(ex); t; t = mc_nbt_next(t), i++) {
        assert_true(i < 4);
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        assert_int_equal(kl, strlen(want[i]));
        assert_memory_equal(k, want[i], kl);
    }
    assert_int_equal(i, 4);
    const char *st;
    size_t stl;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(ex, "Status"), &st, &stl), MC_OK);
    assert_int_equal(stl, 14);
    assert_true(mc_nbt_equal(mc_nbt_get(ex, "block_ticks"), ticks));
    assert_non_null(mc_column_block_entity(col, 1, 2, 3));
    mc_column_free(col);

    /* mc_column_nbt parses them too; a column freed with them deferred
     * releases them (checked under ASan) */
    memcpy(tags, b.data + 3, tlen);
    const void *pa[] = {tags};
    const size_t la[] = {tlen};
    col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    assert_int_equal(mc_column_defer_extra(col, 1, pa, la), MC_OK);
    assert_null(mc_column_extra_peek(col));
    assert_non_null(mc_column_nbt(col));
    assert_false(mc_column_extra_deferred(col));
    assert_non_null(mc_nbt_get(mc_column_extra(col), "block_ticks"));
    mc_column_free(col);
    col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    assert_int_equal(mc_column_defer_extra(col, 1, pa, la), MC_OK);
    mc_column_free(col);

    /* bytes that do not parse: the accessors say so and keep them */
    col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    const size_t lbad[] = {tlen - 1};
    assert_int_equal(mc_column_defer_extra(col, 1, pa, lbad), MC_OK);
    assert_null(mc_column_extra(col));
    assert_null(mc_column_nbt(col));
    assert_true(mc_column_extra_deferred(col));
    mc_column_free(col);

    free(tags);
    mc_buf_free(&b);
    mc_nbt_doc_free(src);
}

static void test_compact_and_recount(void **state)
{
    (void)state;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    uint32_t stone = mc_registry_default_state(reg, "stone");
    for (int i = 0; i < 300; i++)
        assert_int_equal(mc_column_set_block(col, i & 15, 5, (i >> 4) & 15, stone + (uint32_t)i), MC_OK);
    mc_section *s = mc_column_section(col, 0);
    assert_int_equal(s->blocks.kind, MC_CONTAINER_DIRECT);
    for (int i = 0; i < 300; i++)
        assert_int_equal(mc_column_set_block(col, i & 15, 5, (i >> 4) & 15, stone), MC_OK);
    assert_int_equal(mc_column_compact(col), MC_OK);
    assert_int_equal(s->blocks.kind, MC_CONTAINER_INDIRECT);
    assert_int_equal(s->blocks.bits, 4);
    uint16_t bc = s->block_count;
    s->block_count = 0;
    mc_column_recount(col);
    assert_int_equal(s->block_count, bc);
    mc_column_free(col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heights),
        cmocka_unit_test(test_block_entities_and_extra),
        cmocka_unit_test(test_deferred_extra),
        cmocka_unit_test(test_compact_and_recount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
