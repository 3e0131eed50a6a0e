/*
 * test_bedrock_be_java.c: block entities between the editions, both ways.
 *   - round trips Java(V) -> Bedrock -> Java(V) for V = 1.12.2, 1.16.5,
 *     1.20.1, 1.21.5 and 26.1: every sign, bed, banner, skull, potted
 *     plant, chest half and spawner comes back with the same block state
 *     and the same block entity (the source column is written in 1.21.5's
 *     shape and taken to V by mc_column_translate, so each V holds its own
 *     shape: 1.12 colours and kinds in the block entity, Text1..4 JSON,
 *     front_text, NBT text);
 *   - Bedrock -> Java from Bedrock compounds as the game writes them (the
 *     pre-1.19.80 top-level sign Text, an old "skull" block, PlantBlock,
 *     Items whose names Java has or lacks): the Java fields and states,
 *     and the report's counts of what was dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/translate.h"
#include "support.h"

static uint32_t state(const mc_registry *reg, const char *text)
{
    uint32_t s;
    mc_error err;
    if (mc_registry_parse_state(reg, text, strlen(text), &s, &err) != MC_OK)
        fail_msg("%s: %s", text, err.message);
    return s;
}

static void put_be(mc_column *col, int32_t x, int32_t y, int32_t z, const char *snbt)
{
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_error err;
    if (mc_snbt_parse(d, snbt, strlen(snbt), NULL, &err) != MC_OK)
        fail_msg("%s: %s", snbt, err.message);
    assert_int_equal(mc_column_put_block_entity(col, x, y, z, mc_nbt_doc_root(d)), MC_OK);
    mc_nbt_doc_free(d);
}

#define BX 32
#define BZ -16

/* A 1.21.5 column (chunk 2, -1) with one block of each kind. */
static const struct {
    const char *block;
    int x, y, z;
    const char *be; /* SNBT, or NULL */
} blocks[] = {
    {"minecraft:oak_sign[rotation=4,waterlogged=false]", 1, 70, 1,
     "{id:\"minecraft:sign\",front_text:{messages:[\"Hello\",\"w\\u00f6rld\",\"\",\"4th\"],color:\"red\","
     "has_glowing_text:1b},back_text:{messages:[\"\",\"\",\"\",\"\"],color:\"black\",has_glowing_text:0b},"
     "is_waxed:0b}"},
    {"minecraft:spruce_wall_sign[facing=south,waterlogged=false]", 2, 70, 1,
     "{id:\"minecraft:sign\",front_text:{messages:[\"a\",\"b\",\"c\",\"d\"],color:\"black\","
     "has_glowing_text:0b},back_text:{messages:[\"\",\"\",\"\",\"\"],color:\"black\",has_glowing_text:0b},"
     "is_waxed:0b}"},
    {"minecraft:blue_bed[facing=east,occupied=false,part=head]", 3, 70, 3, "{id:\"minecraft:bed\"}"},
    {"minecraft:lime_bed[facing=east,occupied=false,part=foot]", 4, 70, 4, "{id:\"minecraft:bed\"}"},
    {"minecraft:light_blue_banner[rotation=5]", 5, 70, 5,
     "{id:\"minecraft:banner\",patterns:[{pattern:\"minecraft:stripe_top\",color:\"red\"},"
     "{pattern:\"minecraft:creeper\",color:\"white\"}]}"},
    {"minecraft:red_wall_banner[facing=east]", 6, 70, 6, "{id:\"minecraft:banner\"}"},
    {"minecraft:creeper_head[powered=false,rotation=8]", 7, 70, 7, "{id:\"minecraft:skull\"}"},
    {"minecraft:wither_skeleton_wall_skull[facing=west,powered=false]", 8, 70, 8, "{id:\"minecraft:skull\"}"},
    {"minecraft:dragon_head[powered=false,rotation=3]", 9, 70, 9, "{id:\"minecraft:skull\"}"},
    {"minecraft:potted_poppy", 10, 70, 10, NULL},
    {"minecraft:potted_fern", 11, 70, 10, NULL},
    {"minecraft:chest[facing=north,type=left,waterlogged=false]", 1, 80, 12, "{id:\"minecraft:chest\"}"},
    {"minecraft:chest[facing=north,type=right,waterlogged=false]", 2, 80, 12, "{id:\"minecraft:chest\"}"},
    {"minecraft:trapped_chest[facing=east,type=left,waterlogged=false]", 5, 80, 12,
     "{id:\"minecraft:trapped_chest\"}"},
    {"minecraft:trapped_chest[facing=east,type=right,waterlogged=false]", 5, 80, 11,
     "{id:\"minecraft:trapped_chest\"}"},
    {"minecraft:spawner", 12, 10, 12, "{id:\"minecraft:mob_spawner\",SpawnData:{entity:{id:\"minecraft:zombie\"}}}"},
};
#define NBLOCKS (sizeof blocks / sizeof blocks[0])

static mc_column *source_column(const mc_registry *java)
{
    mc_column *col = mc_column_new(java, 2, -1, 0, 16, NULL);
    assert_non_null(col);
    for (size_t i = 0; i < NBLOCKS; i++) {
        int32_t x = BX + blocks[i].x, y = blocks[i].y, z = BZ + blocks[i].z;
        assert_int_equal(mc_column_set_block(col, x, y, z, state(java, blocks[i].block)), MC_OK);
        if (blocks[i].be)
            put_be(col, x, y, z, blocks[i].be);
    }
    return col;
}

static void snbt(const mc_nbt_tag *t, char *buf, size_t cap)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    buf[0] = 0;
    if (t && mc_nbt_to_snbt(t, 0, &b) == MC_OK)
        snprintf(buf, cap, "%.*s", (int)b.len, (const char *)b.data);
    else
        snprintf(buf, cap, "(none)");
    mc_buf_free(&b);
}

static void test_round_trips(void **st)
{
    (void)st;
    const mc_registry *src_reg = mc_registry_find("1.21.5");
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!src_reg || !bed)
        skip();
    static const char *const versions[] = {"1.12.2", "1.16.5", "1.20.1", "1.21.5", "26.1"};
    mc_column *src = source_column(src_reg);
    int bad = 0;
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++) {
        const mc_registry *java = mc_registry_find(versions[v]);
        assert_non_null(java);
        mc_error err;
        mc_column *col = mc_column_translate(src, java, NULL, &err);
        assert_non_null(col);
        mc_bedrock_ids ids;
        assert_int_equal(mc_bedrock_ids_init(&ids, java, bed, false), MC_OK);
        mc_bedrock_column bc;
        assert_int_equal(mc_bedrock_column_from_mc_column(&bc, col, 0, &ids, NULL, &err), MC_OK);
        mc_be_report rep;
        memset(&rep, 0, sizeof rep);
        mc_column *back = mc_bedrock_column_to_mc_column_report(&bc, bed, false, java, NULL, &rep, &err);
        assert_non_null(back);
        for (size_t i = 0; i < NBLOCKS; i++) {
            int32_t x = BX + blocks[i].x, y = blocks[i].y, z = BZ + blocks[i].z;
            char a[512], b[512];
            mc_registry_format_state(java, mc_column_get_block(col, x, y, z), a, sizeof a, MC_FORMAT_SORTED);
            mc_registry_format_state(java, mc_column_get_block(back, x, y, z), b, sizeof b, MC_FORMAT_SORTED);
            if (strcmp(a, b)) {
                print_message("%s: %s: block %s came back as %s\n", versions[v], blocks[i].block, a, b);
                bad++;
            }
            const mc_nbt_tag *ta = mc_column_block_entity(col, x, y, z), *tb = mc_column_block_entity(back, x, y, z);
            if ((ta || tb) && !(ta && tb && mc_nbt_equal(ta, tb))) {
                char sa[1024], sb[1024];
                snbt(ta, sa, sizeof sa);
                snbt(tb, sb, sizeof sb);
                print_message("%s: %s: block entity %s came back as %s\n", versions[v], blocks[i].block, sa, sb);
                bad++;
            }
        }
        for (int k = 0; k < MC_BE_LOSS_COUNT; k++)
            if (rep.lost[k]) {
                print_message("%s: %u lost (%s)\n", versions[v], rep.lost[k], mc_be_loss_name((mc_be_loss)k));
                bad++;
            }
        mc_column_free(back);
        mc_bedrock_column_free(&bc);
        mc_column_free(col);
    }
    mc_column_free(src);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
