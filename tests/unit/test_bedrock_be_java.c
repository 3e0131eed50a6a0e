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
        assert_int_equal(mc_column_set_block(col, x, y, z, mc_test_state(java, blocks[i].block)), MC_OK);
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
        if (!strcmp(versions[v], "1.12.2")) {
            /* 1.12's skull kinds are in the block entity; Bedrock 1.21.60 has a block per kind */
            const mc_bedrock_subchunk *sc = &bc.subchunks[70 >> 4];
            unsigned at = mc_bedrock_index((BX + 7) & 15, 70 & 15, (BZ + 7) & 15);
            uint32_t b = mc_bedrock_storage_get(&sc->storages[0], at);
            assert_string_equal(mc_registry_state_name(bed, b), "minecraft:creeper_head");
        }
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


/* ------------------------------------------- Bedrock compounds -> Java */

/* The Bedrock compounds as the game writes them, over the blocks a Java
 * column gave the Bedrock column (white bed, white banner, skull, empty
 * pot, single chests): they decide the Java blocks. */
static const struct {
    const char *java_block; /* the block before the Bedrock block entity decides */
    int x, y, z;
    const char *bedrock; /* SNBT of the Bedrock compound (x, y, z added) */
} natives[] = {
    {"minecraft:oak_sign[rotation=0,waterlogged=false]", 1, 70, 1,
     "{id:\"Sign\",Text:\"L1\\nL2\\nL3\\nL4\\nL5\",SignTextColor:-16776961,IgnoreLighting:1b}"},
    {"minecraft:white_bed[facing=north,occupied=false,part=foot]", 2, 70, 1, "{id:\"Bed\",color:14b}"},
    {"minecraft:white_banner[rotation=0]", 3, 70, 1,
     "{id:\"Banner\",Base:0,Type:0,Patterns:[{Pattern:\"bo\",Color:1},{Pattern:\"zz\",Color:2}]}"},
    {"minecraft:dragon_head[powered=false,rotation=0]", 4, 70, 1, "{id:\"Skull\",SkullType:5b,Rotation:90.0f}"},
    {"minecraft:flower_pot", 5, 70, 1,
     "{id:\"FlowerPot\",PlantBlock:{name:\"minecraft:poppy\",states:{},version:18168865}}"},
    {"minecraft:chest[facing=south,type=single,waterlogged=false]", 6, 70, 1,
     "{id:\"Chest\",CustomName:\"Box\",Items:[{Name:\"minecraft:diamond\",Count:3b,Slot:0b,Damage:0s},"
     "{Name:\"minecraft:not_an_item\",Count:1b,Slot:1b,Damage:0s}]}"},
    {"minecraft:spawner", 7, 70, 1, "{id:\"MobSpawner\",EntityIdentifier:\"minecraft:skeleton\"}"},
    {"minecraft:stone", 8, 70, 1, "{id:\"NetherReactor\"}"},
};
#define NNATIVES (sizeof natives / sizeof natives[0])

static mc_column *from_natives(const mc_registry *java, const char *bedrock, mc_be_report *rep)
{
    const mc_registry *src = mc_registry_find("1.21.5");
    const mc_registry *bed = mc_registry_find_bedrock(bedrock);
    assert_non_null(bed);
    mc_column *col = mc_column_new(src, 2, -1, 0, 16, NULL);
    for (size_t i = 0; i < NNATIVES; i++)
        assert_int_equal(mc_column_set_block(col, BX + natives[i].x, natives[i].y, BZ + natives[i].z,
                                             mc_test_state(src, natives[i].java_block)),
                         MC_OK);
    mc_bedrock_ids ids;
    assert_int_equal(mc_bedrock_ids_init(&ids, src, bed, false), MC_OK);
    mc_bedrock_column bc;
    mc_error err;
    assert_int_equal(mc_bedrock_column_from_mc_column(&bc, col, 0, &ids, NULL, &err), MC_OK);
    for (uint32_t i = 0; i < bc.count; i++)
        bc.block_entities[i].len = 0;
    for (size_t i = 0; i < NNATIVES; i++) {
        mc_nbt_doc *d = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_snbt_parse(d, natives[i].bedrock, strlen(natives[i].bedrock), NULL, &err), MC_OK);
        mc_nbt_tag *r = mc_nbt_doc_root(d);
        mc_nbt_put_int(d, r, "x", BX + natives[i].x);
        mc_nbt_put_int(d, r, "y", natives[i].y);
        mc_nbt_put_int(d, r, "z", BZ + natives[i].z);
        assert_int_equal(mc_nbt_write(d, MC_NBT_BEDROCK_NETWORK, &bc.block_entities[natives[i].y >> 4], NULL), MC_OK);
        mc_nbt_doc_free(d);
    }
    mc_column *back = mc_bedrock_column_to_mc_column_report(&bc, bed, false, java, NULL, rep, &err);
    assert_non_null(back);
    mc_bedrock_column_free(&bc);
    mc_column_free(col);
    return back;
}

static void expect(const mc_column *col, int i, const char *block, const char *be)
{
    const mc_registry *reg = mc_column_registry(col);
    int32_t x = BX + natives[i].x, y = natives[i].y, z = BZ + natives[i].z;
    char a[512], b[2048];
    mc_registry_format_state(reg, mc_column_get_block(col, x, y, z), a, sizeof a, MC_FORMAT_SORTED);
    const mc_nbt_tag *got = mc_column_block_entity(col, x, y, z);
    snbt(got, b, sizeof b);
    mc_nbt_doc *d = NULL;
    if (be) {
        d = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_snbt_parse(d, be, strlen(be), NULL, NULL), MC_OK);
    }
    bool same = be ? got && mc_nbt_equal(got, mc_nbt_doc_root(d)) : !got;
    mc_nbt_doc_free(d);
    if (strcmp(a, block) || !same)
        fail_msg("%s: got %s %s, want %s %s", natives[i].bedrock, a, b, block, be ? be : "(none)");
}

static void test_bedrock_to_java(void **st)
{
    (void)st;
    if (!mc_registry_find("1.21.5") || !mc_registry_find_bedrock("1.21.60"))
        skip();
    mc_be_report rep;
    memset(&rep, 0, sizeof rep);
    mc_column *c = from_natives(mc_registry_find("1.20.1"), "1.21.60", &rep);
    expect(c, 0, "minecraft:oak_sign[rotation=0,waterlogged=false]",
           "{id:\"minecraft:sign\",front_text:{messages:['{\"text\":\"L1\"}','{\"text\":\"L2\"}',"
           "'{\"text\":\"L3\"}','{\"text\":\"L4\"}'],color:\"blue\",has_glowing_text:1b},"
           "back_text:{messages:['{\"text\":\"\"}','{\"text\":\"\"}','{\"text\":\"\"}','{\"text\":\"\"}'],"
           "color:\"black\",has_glowing_text:0b},is_waxed:0b}");
    expect(c, 1, "minecraft:red_bed[facing=north,occupied=false,part=foot]", "{id:\"minecraft:bed\"}");
    expect(c, 2, "minecraft:black_banner[rotation=0]",
           "{id:\"minecraft:banner\",Patterns:[{Pattern:\"bo\",Color:14}]}");
    expect(c, 3, "minecraft:dragon_head[rotation=4]", "{id:\"minecraft:skull\"}");
    expect(c, 4, "minecraft:potted_poppy", NULL);
    expect(c, 5, "minecraft:chest[facing=south,type=single,waterlogged=false]",
           "{id:\"minecraft:chest\",CustomName:'{\"text\":\"Box\"}',"
           "Items:[{Slot:0b,id:\"minecraft:diamond\",Count:3b}]}");
    expect(c, 6, "minecraft:spawner", "{id:\"minecraft:mob_spawner\",SpawnData:{entity:{id:\"minecraft:skeleton\"}}}");
    expect(c, 7, "minecraft:stone", NULL);
    assert_int_equal(rep.lost[MC_BE_LOSS_TEXT], 1);    /* the fifth line */
    assert_int_equal(rep.lost[MC_BE_LOSS_PATTERN], 1); /* "zz" */
    assert_int_equal(rep.lost[MC_BE_LOSS_ITEM], 1);    /* not_an_item */
    assert_int_equal(rep.lost[MC_BE_LOSS_BLOCK_ENTITY], 1); /* NetherReactor */
    mc_column_free(c);

    /* 1.12: colours and kinds in the block entities, the pot's too */
    c = from_natives(mc_registry_find("1.12.2"), "1.21.60", NULL);
    const mc_nbt_tag *t = mc_column_block_entity(c, BX + 2, 70, BZ + 1);
    int64_t v = -1;
    mc_nbt_get_integer(mc_nbt_get(t, "color"), &v);
    assert_int_equal(v, 14);
    t = mc_column_block_entity(c, BX + 3, 70, BZ + 1);
    mc_nbt_get_integer(mc_nbt_get(t, "Base"), &v);
    assert_int_equal(v, 0); /* black in 1.8-1.12's numbering */
    t = mc_column_block_entity(c, BX + 4, 70, BZ + 1);
    mc_nbt_get_integer(mc_nbt_get(t, "SkullType"), &v);
    assert_int_equal(v, 5);
    mc_nbt_get_integer(mc_nbt_get(t, "Rot"), &v);
    assert_int_equal(v, 4);
    char b[512];
    snbt(mc_column_block_entity(c, BX + 5, 70, BZ + 1), b, sizeof b);
    assert_non_null(strstr(b, "Item:\"minecraft:red_flower\""));
    const char *text;
    size_t n;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_column_block_entity(c, BX + 1, 70, BZ + 1), "Text4"), &text, &n),
                     MC_OK);
    assert_int_equal(n, 13);
    assert_memory_equal(text, "{\"text\":\"L4\"}", 13);
    mc_column_free(c);

    /* Bedrock 1.19.80: one "skull" block for every kind (SkullType decides) */
    c = from_natives(mc_registry_find("1.20.1"), "1.19.80", NULL);
    expect(c, 3, "minecraft:dragon_head[rotation=4]", "{id:\"minecraft:skull\"}");
    expect(c, 1, "minecraft:red_bed[facing=north,occupied=false,part=foot]", "{id:\"minecraft:bed\"}");
    mc_column_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_bedrock_to_java),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
