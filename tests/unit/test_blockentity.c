/*
 * test_blockentity.c: block entities translated between versions
 * (mc_block_entity_translate) and through chunk conversion
 * (mc_chunknbt_write for another DataVersion).
 *
 * Per kind: a block entity of one version becomes the target's shape (the
 * expected compound written out by hand from the game's DataFixer facts),
 * the block state it decides is the expected one, and the trip back gives
 * the original where both versions can express it; what cannot be carried
 * is counted by kind. Against vanilla: the corpus's debug worlds (every
 * block state, written by 1.13.2 and 1.16.2) go down to 1.12.2 and up
 * again, and every bed, banner, skull, potted plant and note block must
 * come back as the game wrote it; the 1.8.9 region's chest and spawner go
 * to 1.21.4 and back; a converted 1.16 spawner has the shape of the
 * spawners vanilla 1.19.4 wrote.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

/* DataVersions of the releases used below */
#define DV_1_8 0
#define DV_1_11_2 922
#define DV_1_12_2 1343
#define DV_1_13_2 1631
#define DV_1_16_2 2578
#define DV_1_16_5 2586
#define DV_1_19_4 3337
#define DV_1_20_1 3465
#define DV_1_20_4 3700
#define DV_1_20_6 3839
#define DV_1_21_4 4189
#define DV_1_21_5 4325

static const mc_registry *reg_of(int32_t dv)
{
    return mc_chunknbt_registry_for(dv);
}

static uint32_t state(const mc_registry *r, const char *text)
{
    uint32_t s;
    mc_error err;
    if (mc_registry_parse_state(r, text, strlen(text), &s, &err) != MC_OK) {
        print_message("state %s: %s\n", text, err.message);
        fail();
    }
    return s;
}

static mc_nbt_tag *snbt(mc_nbt_doc *doc, const char *text)
{
    mc_error err;
    if (mc_snbt_parse(doc, text, strlen(text), NULL, &err) != MC_OK) {
        print_message("snbt %s: %s\n", text, err.message);
        fail();
    }
    return mc_nbt_doc_root(doc);
}

static void nbt_is(const mc_nbt_tag *got, const char *want)
{
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    const mc_nbt_tag *w = snbt(d, want);
    if (!mc_nbt_equal(got, w)) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        if (got)
            mc_nbt_to_snbt(got, 0, &b);
        print_message("got  %.*s\nwant %s\n", (int)b.len, b.data ? (const char *)b.data : "(none)", want);
        mc_buf_free(&b);
        fail();
    }
    mc_nbt_doc_free(d);
}

/* One trip: the block entity `src` (SNBT, or NULL) at 1 2 3 on the block
 * `from_state` of DataVersion from_dv, to to_dv. Returns the result (SNBT
 * in out, "" for none) and the target block (formatted) in block. */
typedef struct trip {
    char out[4096];
    char block[256];
    uint32_t to_state;
    mc_be_report rep;
} trip;

static void go(trip *t, int32_t from_dv, const char *from_state, const char *src, int32_t to_dv)
{
    const mc_registry *from = reg_of(from_dv), *to = reg_of(to_dv);
    memset(t, 0, sizeof *t);
    mc_be_translation tr = {from, to, from_dv, to_dv, &t->rep};
    const uint32_t s = state(from, from_state);
    uint32_t ts = mc_registry_map(from, to)[s];
    mc_nbt_doc *in = mc_nbt_doc_new(NULL), *outd = mc_nbt_doc_new(NULL);
    mc_nbt_doc_new_root(outd, MC_NBT_COMPOUND);
    const mc_nbt_tag *tag = src ? snbt(in, src) : NULL;
    mc_nbt_tag *out = NULL;
    assert_int_equal(mc_block_entity_translate(&tr, tag, 1, 2, 3, s, &ts, outd, &out), MC_OK);
    mc_buf b;
    mc_buf_init(&b, NULL);
    if (out)
        mc_nbt_to_snbt(out, 0, &b);
    snprintf(t->out, sizeof t->out, "%.*s", (int)b.len, b.len ? (const char *)b.data : "");
    mc_buf_free(&b);
    t->to_state = ts;
    mc_registry_format_state(to, ts, t->block, sizeof t->block, MC_FORMAT_SORTED);
    mc_nbt_doc_free(in);
    mc_nbt_doc_free(outd);
}

static void expect(const trip *t, const char *block, const char *be)
{
    if (block && strcmp(t->block, block)) {
        print_message("block %s, want %s\n", t->block, block);
        fail();
    }
    if (!be) {
        if (t->out[0]) {
            print_message("got %s, want no block entity\n", t->out);
            fail();
        }
        return;
    }
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    nbt_is(t->out[0] ? snbt(d, t->out) : NULL, be);
    mc_nbt_doc_free(d);
}

/* from -> to -> from gives the original (block and compound). */
static void round_trip(int32_t from_dv, const char *from_state, const char *src, int32_t to_dv)
{
    trip a, b;
    go(&a, from_dv, from_state, src, to_dv);
    go(&b, to_dv, a.block, a.out[0] ? a.out : NULL, from_dv);
    char want_block[256];
    mc_registry_format_state(reg_of(from_dv), state(reg_of(from_dv), from_state), want_block, sizeof want_block,
                             MC_FORMAT_SORTED);
    expect(&b, want_block, src);
    for (int k = 0; k < MC_BE_LOSS_COUNT; k++)
        assert_int_equal(a.rep.lost[k] + b.rep.lost[k], 0);
}

/* ---------------------------------------------------------------- signs */

#define SIGN_1_12 "{id:\"minecraft:sign\",x:1,y:2,z:3,Text1:'{\"text\":\"Hello\"}'," \
                  "Text2:'{\"text\":\"world\",\"color\":\"red\"}',Text3:'{\"text\":\"\"}',Text4:'{\"text\":\"\"}'}"

static void test_sign(void **state_)
{
    (void)state_;
    trip t;
    go(&t, DV_1_12_2, "minecraft:standing_sign[meta=0]", SIGN_1_12, DV_1_20_1);
    expect(&t, "minecraft:oak_sign[rotation=0,waterlogged=false]",
           "{id:\"minecraft:sign\",x:1,y:2,z:3,keepPacked:0b,is_waxed:0b,"
           "front_text:{messages:['{\"text\":\"Hello\"}','{\"text\":\"world\",\"color\":\"red\"}',"
           "'{\"text\":\"\"}','{\"text\":\"\"}'],color:\"black\",has_glowing_text:0b},"
           "back_text:{messages:['{\"text\":\"\"}','{\"text\":\"\"}','{\"text\":\"\"}','{\"text\":\"\"}'],"
           "color:\"black\",has_glowing_text:0b}}");
    /* 1.21.5: NBT text, compounds for every line since one is styled */
    go(&t, DV_1_12_2, "minecraft:standing_sign[meta=0]", SIGN_1_12, DV_1_21_5);
    expect(&t, NULL,
           "{id:\"minecraft:sign\",x:1,y:2,z:3,keepPacked:0b,is_waxed:0b,"
           "front_text:{messages:[{text:\"Hello\"},{text:\"world\",color:\"red\"},{text:\"\"},{text:\"\"}],"
           "color:\"black\",has_glowing_text:0b},"
           "back_text:{messages:[\"\",\"\",\"\",\"\"],color:\"black\",has_glowing_text:0b}}");
    round_trip(DV_1_12_2, "minecraft:standing_sign[meta=0]", SIGN_1_12, DV_1_20_1);
    round_trip(DV_1_12_2, "minecraft:standing_sign[meta=0]", SIGN_1_12, DV_1_21_5);
    /* plain lines in 1.21.5 are strings, and come back as 1.20.4 writes them */
    go(&t, DV_1_21_5, "minecraft:oak_sign[rotation=0,waterlogged=false]",
       "{id:\"minecraft:sign\",front_text:{messages:[\"Hi\",\"\",\"\",\"\"],color:\"blue\",has_glowing_text:1b},"
       "back_text:{messages:[\"\",\"\",\"\",\"\"],color:\"black\",has_glowing_text:0b},is_waxed:0b}",
       DV_1_20_4);
    expect(&t, NULL,
           "{id:\"minecraft:sign\",front_text:{messages:['\"Hi\"','\"\"','\"\"','\"\"'],color:\"blue\","
           "has_glowing_text:1b},back_text:{messages:['\"\"','\"\"','\"\"','\"\"'],color:\"black\","
           "has_glowing_text:0b},is_waxed:0b}");
    /* a back side and waxing 1.19.4 cannot show are counted; the front stays */
    go(&t, DV_1_20_1, "minecraft:oak_sign[rotation=0,waterlogged=false]",
       "{id:\"minecraft:sign\",front_text:{messages:['\"Front\"','\"\"','\"\"','\"\"'],color:\"black\","
       "has_glowing_text:0b},back_text:{messages:['\"Back\"','\"\"','\"\"','\"\"'],color:\"black\","
       "has_glowing_text:0b},is_waxed:1b}",
       DV_1_19_4);
    expect(&t, NULL,
           "{id:\"minecraft:sign\",Text1:'\"Front\"',Text2:'\"\"',Text3:'\"\"',Text4:'\"\"',"
           "Color:\"black\",GlowingText:0b}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_TEXT], 1);
    /* 1.12 has no sign colours: a blue 1.16 sign loses its colour, not its text */
    go(&t, DV_1_16_5, "minecraft:oak_sign[rotation=0,waterlogged=false]",
       "{id:\"minecraft:sign\",keepPacked:0b,Text1:'{\"text\":\"Blue\"}',Text2:'{\"text\":\"\"}',"
       "Text3:'{\"text\":\"\"}',Text4:'{\"text\":\"\"}',Color:\"blue\"}",
       DV_1_12_2);
    expect(&t, NULL,
           "{id:\"minecraft:sign\",Text1:'{\"text\":\"Blue\"}',Text2:'{\"text\":\"\"}',Text3:'{\"text\":\"\"}',"
           "Text4:'{\"text\":\"\"}'}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_TEXT], 1);
    /* 1.8-1.10 ids */
    go(&t, DV_1_12_2, "minecraft:standing_sign[meta=0]", SIGN_1_12, DV_1_8);
    assert_non_null(strstr(t.out, "id:\"Sign\""));
    assert_non_null(strstr(t.out, "Hello"));
}

/* -------------------------------------------------------------- banners */

static void test_banner(void **state_)
{
    (void)state_;
    /* 1.12: Base 4 (15 - 4 = dye 11, blue); layer colours flip likewise */
    const char *b12 = "{id:\"minecraft:banner\",Base:4,Patterns:[{Pattern:\"bs\",Color:1},{Pattern:\"cre\",Color:15}]}";
    trip t;
    go(&t, DV_1_12_2, "minecraft:standing_banner[meta=4]", b12, DV_1_13_2);
    expect(&t, "minecraft:blue_banner[rotation=4]",
           "{id:\"minecraft:banner\",keepPacked:0b,Patterns:[{Pattern:\"bs\",Color:14},{Pattern:\"cre\",Color:0}]}");
    go(&t, DV_1_12_2, "minecraft:wall_banner[meta=3]", b12, DV_1_20_6);
    expect(&t, "minecraft:blue_wall_banner[facing=south]",
           "{id:\"minecraft:banner\",keepPacked:0b,patterns:[{pattern:\"minecraft:stripe_bottom\",color:\"red\"},"
           "{pattern:\"minecraft:creeper\",color:\"white\"}]}");
    round_trip(DV_1_12_2, "minecraft:standing_banner[meta=4]", b12, DV_1_13_2);
    round_trip(DV_1_12_2, "minecraft:wall_banner[meta=3]", b12, DV_1_21_4);
    /* 1.21's flow pattern has no code: 1.20.4 loses that layer only */
    go(&t, DV_1_21_4, "minecraft:red_banner[rotation=0]",
       "{id:\"minecraft:banner\",patterns:[{pattern:\"minecraft:flow\",color:\"blue\"},"
       "{pattern:\"minecraft:stripe_top\",color:\"white\"}]}",
       DV_1_20_4);
    expect(&t, "minecraft:red_banner[rotation=0]",
           "{id:\"minecraft:banner\",Patterns:[{Pattern:\"ts\",Color:0}]}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_PATTERN], 1);
}

/* ----------------------------------------------------------------- beds */

static void test_bed(void **state_)
{
    (void)state_;
    trip t;
    /* meta 9: head part (8), facing west (1) in 1.12 */
    go(&t, DV_1_12_2, "minecraft:bed[meta=9]", "{id:\"minecraft:bed\",color:11}", DV_1_13_2);
    expect(&t, "minecraft:blue_bed[facing=west,occupied=false,part=head]", "{id:\"minecraft:bed\",keepPacked:0b}");
    round_trip(DV_1_12_2, "minecraft:bed[meta=9]", "{id:\"minecraft:bed\",color:11}", DV_1_21_4);
    /* 1.11 beds are red and have no block entity: a blue bed loses its colour */
    go(&t, DV_1_13_2, "minecraft:blue_bed[facing=east,occupied=false,part=head]", "{id:\"minecraft:bed\"}", DV_1_11_2);
    expect(&t, NULL, NULL);
    assert_int_equal(t.rep.lost[MC_BE_LOSS_VARIANT], 1);
    /* and a 1.8 bed gets the red one 1.12 gives it */
    mc_be_translation tr = {reg_of(DV_1_8), reg_of(DV_1_12_2), DV_1_8, DV_1_12_2, NULL};
    assert_true(mc_block_entity_needed(&tr, state(reg_of(DV_1_8), "minecraft:bed[meta=9]")));
    assert_false(mc_block_entity_needed(&tr, state(reg_of(DV_1_8), "minecraft:stone[meta=0]")));
    go(&t, DV_1_8, "minecraft:bed[meta=9]", NULL, DV_1_12_2);
    expect(&t, NULL, "{id:\"minecraft:bed\",color:14,x:1,y:2,z:3}");
}

/* --------------------------------------------------------------- skulls */

#define OWNER_UUID "069a79f4-44e9-4726-a5be-fca90e38aaf5"
#define OWNER_INTS "[I;110787060,1156138790,-1514210135,238594805]"

static void test_skull(void **state_)
{
    (void)state_;
    trip t;
    /* floor skull (meta 1): kind and rotation from the block entity */
    go(&t, DV_1_12_2, "minecraft:skull[meta=1]", "{id:\"minecraft:skull\",SkullType:4b,Rot:5b}", DV_1_13_2);
    expect(&t, "minecraft:creeper_head[rotation=5]", "{id:\"minecraft:skull\",keepPacked:0b}");
    round_trip(DV_1_12_2, "minecraft:skull[meta=1]", "{id:\"minecraft:skull\",SkullType:4b,Rot:5b}", DV_1_21_4);
    /* a player's wall head with its owner: 1.16 int-array UUID, 1.20.5 profile */
    const char *p12 = "{id:\"minecraft:skull\",SkullType:3b,Rot:0b,Owner:{Id:\"" OWNER_UUID "\",Name:\"Notch\","
                      "Properties:{textures:[{Value:\"abc\",Signature:\"sig\"}]}}}";
    go(&t, DV_1_12_2, "minecraft:skull[meta=2]", p12, DV_1_16_5);
    expect(&t, "minecraft:player_wall_head[facing=north]",
           "{id:\"minecraft:skull\",keepPacked:0b,SkullOwner:{Id:" OWNER_INTS ",Name:\"Notch\","
           "Properties:{textures:[{Value:\"abc\",Signature:\"sig\"}]}}}");
    go(&t, DV_1_12_2, "minecraft:skull[meta=2]", p12, DV_1_20_6);
    expect(&t, "minecraft:player_wall_head[facing=north,powered=false]",
           "{id:\"minecraft:skull\",keepPacked:0b,profile:{name:\"Notch\",id:" OWNER_INTS ","
           "properties:[{name:\"textures\",value:\"abc\",signature:\"sig\"}]}}");
    round_trip(DV_1_12_2, "minecraft:skull[meta=2]", p12, DV_1_20_6);
    /* a piglin head has no 1.12 kind */
    go(&t, DV_1_20_1, "minecraft:piglin_head[rotation=0]", "{id:\"minecraft:skull\"}", DV_1_12_2);
    assert_int_equal(t.rep.lost[MC_BE_LOSS_VARIANT], 1);
}

/* ------------------------------------------------ pots and note blocks */

static void test_pot_and_note(void **state_)
{
    (void)state_;
    trip t;
    go(&t, DV_1_12_2, "minecraft:flower_pot[meta=0]", "{id:\"minecraft:flower_pot\",Item:\"minecraft:red_flower\",Data:2}",
       DV_1_13_2);
    expect(&t, "minecraft:potted_allium", NULL);
    assert_int_equal(t.rep.folded, 1);
    /* and back: the block entity is made from the block */
    mc_be_translation tr = {reg_of(DV_1_13_2), reg_of(DV_1_12_2), DV_1_13_2, DV_1_12_2, NULL};
    assert_true(mc_block_entity_needed(&tr, state(reg_of(DV_1_13_2), "minecraft:potted_allium")));
    go(&t, DV_1_13_2, "minecraft:potted_allium", NULL, DV_1_12_2);
    expect(&t, "minecraft:flower_pot[contents=empty,legacy_data=0]",
           "{id:\"minecraft:flower_pot\",Item:\"minecraft:red_flower\",Data:2,x:1,y:2,z:3}");
    assert_int_equal(t.rep.created, 1);
    /* a cornflower (1.14) cannot be potted in 1.12: an empty pot, counted */
    go(&t, DV_1_16_5, "minecraft:potted_cornflower", NULL, DV_1_12_2);
    expect(&t, "minecraft:flower_pot[contents=empty,legacy_data=0]", "{id:\"minecraft:flower_pot\",Item:\"\",Data:0,x:1,y:2,z:3}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_VARIANT], 1);
    /* note blocks */
    go(&t, DV_1_12_2, "minecraft:noteblock[meta=0]", "{id:\"minecraft:noteblock\",note:7b,powered:1b}", DV_1_16_5);
    expect(&t, "minecraft:note_block[instrument=harp,note=7,powered=true]", NULL);
    go(&t, DV_1_16_5, "minecraft:note_block[instrument=harp,note=7,powered=true]", NULL, DV_1_12_2);
    expect(&t, "minecraft:noteblock", "{id:\"minecraft:noteblock\",note:7b,powered:1b,x:1,y:2,z:3}");
}

/* ----------------------------------------------------------- containers */

#define CHEST_1_8 "{id:\"Chest\",x:1,y:2,z:3,Items:[{Slot:0b,id:\"minecraft:dye\",Count:3b,Damage:1s}," \
                  "{Slot:1b,id:\"minecraft:iron_shovel\",Count:1b,Damage:5s}," \
                  "{Slot:2b,id:\"minecraft:record_13\",Count:1b,Damage:0s}]}"

static void test_chest(void **state_)
{
    (void)state_;
    trip t;
    /* flattened ids, renamed dyes (1.14), tool wear as damage, 1.20.5 stacks */
    go(&t, DV_1_8, "minecraft:chest[meta=2]", CHEST_1_8, DV_1_21_4);
    expect(&t, NULL,
           "{id:\"minecraft:chest\",x:1,y:2,z:3,keepPacked:0b,Items:[{Slot:0b,id:\"minecraft:red_dye\",count:3},"
           "{Slot:1b,id:\"minecraft:iron_shovel\",count:1,components:{\"minecraft:damage\":5}},"
           "{Slot:2b,id:\"minecraft:music_disc_13\",count:1}]}");
    go(&t, DV_1_8, "minecraft:chest[meta=2]", CHEST_1_8, DV_1_13_2);
    expect(&t, NULL,
           "{id:\"minecraft:chest\",x:1,y:2,z:3,keepPacked:0b,Items:[{Slot:0b,id:\"minecraft:rose_red\",Count:3b},"
           "{Slot:1b,id:\"minecraft:iron_shovel\",Count:1b,tag:{Damage:5}},"
           "{Slot:2b,id:\"minecraft:music_disc_13\",Count:1b}]}");
    round_trip(DV_1_8, "minecraft:chest[meta=2]", CHEST_1_8, DV_1_21_4);
    round_trip(DV_1_8, "minecraft:chest[meta=2]", CHEST_1_8, DV_1_21_5);
    /* a trapped chest's own id from 1.13 */
    go(&t, DV_1_12_2, "minecraft:trapped_chest[meta=2]", "{id:\"minecraft:chest\",Items:[]}", DV_1_13_2);
    expect(&t, NULL, "{id:\"minecraft:trapped_chest\",keepPacked:0b,Items:[]}");
    round_trip(DV_1_12_2, "minecraft:trapped_chest[meta=2]", "{id:\"minecraft:chest\",Items:[]}", DV_1_20_6);
    /* an item 1.20.4 does not have is dropped and counted */
    go(&t, DV_1_21_4, "minecraft:chest[facing=north,type=single,waterlogged=false]",
       "{id:\"minecraft:chest\",Items:[{Slot:0b,id:\"minecraft:mace\",count:1},{Slot:1b,id:\"minecraft:stone\",count:2}]}",
       DV_1_20_4);
    expect(&t, NULL, "{id:\"minecraft:chest\",Items:[{Slot:1b,id:\"minecraft:stone\",Count:2b}]}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_ITEM], 1);
    /* custom names: plain (1.12), JSON (1.13), NBT (1.21.5) */
    go(&t, DV_1_12_2, "minecraft:chest[meta=2]", "{id:\"minecraft:chest\",CustomName:\"Loot\"}", DV_1_13_2);
    expect(&t, NULL, "{id:\"minecraft:chest\",keepPacked:0b,CustomName:'{\"text\":\"Loot\"}'}");
    go(&t, DV_1_12_2, "minecraft:chest[meta=2]", "{id:\"minecraft:chest\",CustomName:\"Loot\"}", DV_1_21_5);
    expect(&t, NULL, "{id:\"minecraft:chest\",keepPacked:0b,CustomName:\"Loot\"}");
    round_trip(DV_1_12_2, "minecraft:chest[meta=2]", "{id:\"minecraft:chest\",CustomName:\"Loot\"}", DV_1_21_5);
    round_trip(DV_1_21_4, "minecraft:chest[facing=north,type=single,waterlogged=false]",
               "{id:\"minecraft:chest\",CustomName:'{\"text\":\"A\",\"bold\":true}'}", DV_1_21_5);
    /* 1.8's empty Lock is no lock: gone from 1.21.2 without a loss */
    go(&t, DV_1_8, "minecraft:chest[meta=2]", "{id:\"Chest\",Lock:\"\"}", DV_1_21_4);
    expect(&t, NULL, "{id:\"minecraft:chest\",keepPacked:0b}");
    assert_int_equal(t.rep.lost[MC_BE_LOSS_FIELD], 0);
}

/* ------------------------------------------------------------- spawners */

static void test_spawner(void **state_)
{
    (void)state_;
    const char *s18 = "{id:\"MobSpawner\",EntityId:\"PigZombie\",Delay:20s,"
                      "SpawnPotentials:[{Type:\"Skeleton\",Weight:3,Properties:{}}]}";
    trip t;
    go(&t, DV_1_8, "minecraft:mob_spawner[meta=0]", s18, DV_1_16_5);
    expect(&t, NULL,
           "{id:\"minecraft:mob_spawner\",keepPacked:0b,Delay:20s,SpawnData:{id:\"minecraft:zombified_piglin\"},"
           "SpawnPotentials:[{Weight:3,Entity:{id:\"minecraft:skeleton\"}}]}");
    go(&t, DV_1_8, "minecraft:mob_spawner[meta=0]", s18, DV_1_19_4);
    expect(&t, NULL,
           "{id:\"minecraft:mob_spawner\",keepPacked:0b,Delay:20s,SpawnData:{entity:{id:\"minecraft:zombified_piglin\"}},"
           "SpawnPotentials:[{weight:3,data:{entity:{id:\"minecraft:skeleton\"}}}]}");
    round_trip(DV_1_8, "minecraft:mob_spawner[meta=0]", s18, DV_1_19_4);
}

/* ---------------------------------------------------------------- kinds */

static void test_kinds(void **state_)
{
    (void)state_;
    trip t;
    go(&t, DV_1_12_2, "minecraft:dispenser[meta=0]", "{id:\"minecraft:dispenser\",Items:[]}", DV_1_8);
    expect(&t, NULL, "{id:\"Trap\",Items:[]}");
    /* a hanging sign (1.19.3) has nowhere to go in 1.12 */
    go(&t, DV_1_20_1, "minecraft:oak_hanging_sign[attached=false,rotation=0,waterlogged=false]",
       "{id:\"minecraft:hanging_sign\"}", DV_1_12_2);
    expect(&t, NULL, NULL);
    assert_int_equal(t.rep.lost[MC_BE_LOSS_BLOCK_ENTITY], 1);
    assert_string_equal(mc_be_loss_name(MC_BE_LOSS_BLOCK_ENTITY), "block entity");
    /* bad arguments */
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    uint32_t s = 0;
    mc_nbt_tag *out;
    assert_int_equal(mc_block_entity_translate(NULL, NULL, 0, 0, 0, 0, &s, d, &out), MC_ERR_INVALID_ARG);
    mc_be_translation tr = {reg_of(DV_1_12_2), reg_of(DV_1_13_2), DV_1_12_2, DV_1_13_2, NULL};
    mc_nbt_tag *notc = snbt(d, "5");
    assert_int_equal(mc_block_entity_translate(&tr, notc, 0, 0, 0, 0, &s, d, &out), MC_ERR_INVALID_ARG);
    mc_nbt_doc_free(d);
}

/* ----------------------------------------------------- chunk conversion */

static mc_column *read_chunk(const char *rel, int32_t cx, int32_t cz)
{
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path(rel), NULL, &r, &err), MC_OK);
    int32_t rx, rz;
    mc_region_origin(r, &rx, &rz);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    assert_int_equal(mc_region_read_chunk(r, cx - rx * 32, cz - rz * 32, &nbt, NULL, &err), MC_OK);
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err), MC_OK);
    mc_buf_free(&nbt);
    mc_region_close(r);
    return col;
}

/* The column written for `dv` and read back. */
static mc_column *convert(mc_column *col, int32_t dv, mc_chunknbt_report *rep)
{
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write_bytes(col, dv, &out, rep, &err), MC_OK);
    mc_column *back = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(out.data, out.len, NULL, &back, &err), MC_OK);
    mc_buf_free(&out);
    return back;
}

static bool block_entity_state(const mc_registry *r, uint32_t s)
{
    char n[128];
    mc_registry_format_state(r, s, n, sizeof n, 0);
    return strstr(n, "_bed") || strstr(n, "banner") || strstr(n, "_skull") ||
           (strstr(n, "_head") && !strstr(n, "piston_head")) ||
           strstr(n, "potted_") || strstr(n, "flower_pot") || strstr(n, "note_block");
}

/* Whether a section palette of the column holds such a block. */
static bool has_block_entity_states(const mc_column *col)
{
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        size_t n = 0;
        const uint32_t *pal =
            mc_container_palette(&mc_column_section_const(col, mc_column_min_section(col) + (int32_t)i)->blocks, &n);
        for (size_t k = 0; pal && k < n; k++)
            if (block_entity_state(mc_column_registry(col), pal[k]))
                return true;
    }
    return false;
}

/* Whether the block existed in 1.13 (1.12 has its variants; potted
 * cornflowers and other later blocks it cannot hold, which is counted). */
static bool in_1_12(const mc_registry *reg, uint32_t s)
{
    return mc_registry_default_state(reg_of(DV_1_13_2), mc_registry_state_name(reg, s)) != MC_STATE_NONE;
}

/* A note block state with another instrument. */
static uint32_t note_with(const mc_registry *reg, uint32_t s, const char *instrument)
{
    char text[160];
    snprintf(text, sizeof text, "minecraft:note_block[instrument=%s,note=%s,powered=%s]", instrument,
             mc_registry_state_prop_value(reg, s, "note"), mc_registry_state_prop_value(reg, s, "powered"));
    return state(reg, text);
}

/* Vanilla debug-world chunks (every state) down to 1.12.2 and up again:
 * every block a block entity decides, and every such block entity, as the
 * game wrote it. */
static void debug_world(const char *rel, int32_t dv, unsigned *checked)
{
    mc_region *r;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path(rel), NULL, &r, &err), MC_OK);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    for (int k = 0; k < 1024; k++) {
        nbt.len = 0;
        if (mc_region_read_chunk(r, k & 31, k >> 5, &nbt, NULL, &err) != MC_OK)
            continue;
        mc_column *col = NULL;
        assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err), MC_OK);
        if (!has_block_entity_states(col)) {
            mc_column_free(col);
            continue;
        }
        mc_chunknbt_report rep;
        mc_column *old = convert(col, DV_1_12_2, &rep);
        mc_column *back = convert(old, dv, &rep);
        const mc_registry *reg = mc_column_registry(col);
        for (int32_t y = 0; y < 256; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++) {
                    const uint32_t s = mc_column_get_block(col, x, y, z);
                    if (!block_entity_state(reg, s) || !in_1_12(reg, s))
                        continue;
                    uint32_t got = mc_column_get_block(back, x, y, z);
                    char name[128];
                    mc_registry_format_state(reg, s, name, sizeof name, 0);
                    /* 1.12 note blocks have no instrument (the block below
                     * decides it): it comes back as the game's upgrade gives
                     * it, harp */
                    if (strstr(name, "note_block") && mc_registry_state_prop_value(reg, got, "instrument"))
                        got = note_with(reg, got, mc_registry_state_prop_value(reg, s, "instrument"));
                    if (got != s) {
                        char a[128], b[128];
                        mc_registry_format_state(reg, s, a, sizeof a, 0);
                        mc_registry_format_state(reg, got, b, sizeof b, 0);
                        print_message("%s chunk %d %d at %d %d %d: %s came back as %s\n", rel,
                                      (int)mc_column_x(col), (int)mc_column_z(col), x, (int)y, z, a, b);
                        fail();
                    }
                    const int32_t ax = mc_column_x(col) * 16 + x, az = mc_column_z(col) * 16 + z;
                    const mc_nbt_tag *was = mc_column_block_entity(col, ax, y, az);
                    const mc_nbt_tag *now = mc_column_block_entity(back, ax, y, az);
                    if (!(was ? now && mc_nbt_equal(was, now) : !now)) {
                        mc_buf a, b;
                        mc_buf_init(&a, NULL);
                        mc_buf_init(&b, NULL);
                        if (was)
                            mc_nbt_to_snbt(was, 0, &a);
                        if (now)
                            mc_nbt_to_snbt(now, 0, &b);
                        print_message("%s at %d %d %d: %.*s came back as %.*s\n", rel, (int)ax, (int)y, (int)az,
                                      (int)a.len, a.data ? (char *)a.data : "-", (int)b.len,
                                      b.data ? (char *)b.data : "-");
                        fail();
                    }
                    (*checked)++;
                }
        mc_column_free(back);
        mc_column_free(old);
        mc_column_free(col);
    }
    mc_buf_free(&nbt);
    mc_region_close(r);
}

static void test_debug_worlds(void **state_)
{
    (void)state_;
    MC_SKIP_WITHOUT_CORPUS();
    unsigned n13 = 0, n16 = 0;
    debug_world("anvil/1.13.2/mcaselector-r.0.0.mca", DV_1_13_2, &n13);
    debug_world("anvil/1.16.2/mcaselector-r.0.0.mca", DV_1_16_2, &n16);
    print_message("debug worlds: %u (1.13.2) and %u (1.16.2) beds, banners, skulls, pots and note blocks "
                  "back as vanilla wrote them\n", n13, n16);
    assert_true(n13 > 500 && n16 > 500);
}

/* The 1.8.9 region's chest (real loot) and spawner to 1.21.4 and back. */
static void test_corpus_chest(void **state_)
{
    (void)state_;
    MC_SKIP_WITHOUT_CORPUS();
    mc_column *col = read_chunk("anvil/1.8.9/ppa-r.-1.0.mca", -3, 13);
    mc_chunknbt_report rep;
    mc_column *now = convert(col, DV_1_21_4, &rep);
    assert_int_equal(rep.block_entity_report.translated, 2);
    const mc_nbt_tag *chest = mc_column_block_entity(now, -36, 19, 221);
    assert_non_null(chest);
    nbt_is(mc_nbt_get(chest, "Items"),
           "[{Slot:0b,id:\"minecraft:bucket\",count:1},{Slot:6b,id:\"minecraft:gunpowder\",count:3},"
           "{Slot:9b,id:\"minecraft:iron_horse_armor\",count:1},{Slot:17b,id:\"minecraft:wheat\",count:3},"
           "{Slot:18b,id:\"minecraft:bread\",count:1},{Slot:21b,id:\"minecraft:saddle\",count:1},"
           "{Slot:23b,id:\"minecraft:iron_horse_armor\",count:1},{Slot:26b,id:\"minecraft:music_disc_13\",count:1}]");
    mc_column *back = convert(now, DV_1_8, &rep);
    for (size_t i = 0; i < mc_column_block_entity_count(col); i++) {
        int32_t x, y, z;
        mc_nbt_tag *was = mc_column_block_entity_at(col, i, &x, &y, &z);
        mc_nbt_remove(was, "Lock", 4); /* the empty lock 1.21.2 dropped */
        const mc_nbt_tag *got = mc_column_block_entity(back, x, y, z);
        assert_non_null(got);
        assert_true(mc_nbt_equal(was, got));
    }
    mc_column_free(back);
    mc_column_free(now);
    mc_column_free(col);
}

/* Keys of a compound, sorted, as one string ("a,b{c},..." recursively). */
static void shape(const mc_nbt_tag *t, mc_buf *out)
{
    char keys[32][64];
    size_t n = 0;
    for (mc_nbt_tag *c = mc_nbt_first(t); c && n < 32; c = mc_nbt_next(c)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(c, &kl);
        snprintf(keys[n++], 64, "%.*s", (int)kl, k ? k : "");
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            char tmp[64];
            memcpy(tmp, keys[j], 64);
            memcpy(keys[j], keys[j - 1], 64);
            memcpy(keys[j - 1], tmp, 64);
        }
    for (size_t i = 0; i < n; i++) {
        mc_buf_put(out, keys[i], strlen(keys[i]));
        mc_nbt_tag *c = mc_nbt_get(t, keys[i]);
        if (mc_nbt_tag_type(c) == MC_NBT_COMPOUND) {
            mc_buf_put_u8(out, '{');
            shape(c, out);
            mc_buf_put_u8(out, '}');
        }
        mc_buf_put_u8(out, ',');
    }
}

/* A 1.16 spawner (vanilla) converted to 1.19.4 has the keys vanilla 1.19.4
 * spawners of full chunks have (theirs hold no potentials: those of the
 * converted one have the 1.18 shape, checked by hand). */
static void test_corpus_spawner(void **state_)
{
    (void)state_;
    MC_SKIP_WITHOUT_CORPUS();
    mc_column *col = read_chunk("anvil/1.16/ppa-r.0.-1.mca", 24, -6);
    mc_chunknbt_report rep;
    mc_column *now = convert(col, DV_1_19_4, &rep);
    mc_column *vanilla = read_chunk("anvil/1.19.4/ppa-r.0.0.mca", 3, 6);
    const mc_nbt_tag *a = NULL, *b = NULL;
    for (size_t i = 0; i < mc_column_block_entity_count(now); i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(now, i, &x, &y, &z);
        if (mc_nbt_get(t, "SpawnData"))
            a = t;
    }
    for (size_t i = 0; i < mc_column_block_entity_count(vanilla); i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(vanilla, i, &x, &y, &z);
        if (mc_nbt_get(t, "SpawnData"))
            b = t;
    }
    assert_non_null(a);
    assert_non_null(b);
    mc_buf sa, sb;
    mc_buf_init(&sa, NULL);
    mc_buf_init(&sb, NULL);
    shape(a, &sa);
    shape(b, &sb);
    if (sa.len != sb.len || memcmp(sa.data, sb.data, sa.len)) {
        print_message("converted %.*s\nvanilla   %.*s\n", (int)sa.len, sa.data, (int)sb.len, sb.data);
        fail();
    }
    nbt_is(mc_nbt_get(a, "SpawnPotentials"), "[{weight:1,data:{entity:{id:\"minecraft:zombie\"}}}]");
    mc_buf_free(&sa);
    mc_buf_free(&sb);
    mc_column_free(vanilla);
    mc_column_free(now);
    mc_column_free(col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sign),         cmocka_unit_test(test_banner),
        cmocka_unit_test(test_bed),          cmocka_unit_test(test_skull),
        cmocka_unit_test(test_pot_and_note), cmocka_unit_test(test_chest),
        cmocka_unit_test(test_spawner),      cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_corpus_chest), cmocka_unit_test(test_corpus_spawner),
        cmocka_unit_test(test_debug_worlds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
