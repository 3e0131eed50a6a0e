/*
 * fuzz_blockentity.c: a block entity of chunk NBT translated between two
 * versions (mc_block_entity_translate), and back.
 *
 * Input: byte 0 picks the source version, byte 1 the target (of the twelve
 * below), bytes 2-3 the block state (modulo the source registry's size);
 * the rest is a Java NBT compound (a block entity as chunk NBT holds it).
 * Whatever the compound holds (text that is no JSON, deep JSON, items of
 * any shape, owners without ids...), the translation must succeed or fail
 * with a status, never crash, read out of bounds or leak; a result must
 * translate back. The same state is also tried without a block entity
 * (the block entities the target makes from block states).
 *
 * Seeds in fuzz/corpus/fuzz_blockentity/ are small block entities made by
 * this file compiled with MC_FUZZ_BLOCKENTITY_GEN:
 *   cc -DMC_FUZZ_BLOCKENTITY_GEN -Iinclude fuzz/fuzz_blockentity.c \
 *      build/libmcchunk.a -ldeflate -llz4 -lxxhash -lm -o /tmp/gen && \
 *      /tmp/gen fuzz/corpus/fuzz_blockentity
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1.8, 1.11.2, 1.12.2, 1.13.2, 1.16.5, 1.19.4, 1.20.1, 1.20.4, 1.20.6,
 * 1.21.4, 1.21.5, 1.21.11 */
static const int32_t versions[] = {0, 922, 1343, 1631, 2586, 3337, 3465, 3700, 3839, 4189, 4325, 4671};
#define NVERSIONS (sizeof versions / sizeof versions[0])

static void trip(int32_t from_dv, int32_t to_dv, const mc_nbt_tag *be, uint32_t state)
{
    const mc_registry *from = mc_chunknbt_registry_for(from_dv), *to = mc_chunknbt_registry_for(to_dv);
    if (!from || !to)
        return;
    state %= mc_registry_state_count(from);
    mc_be_report rep;
    memset(&rep, 0, sizeof rep);
    mc_be_translation t = {from, to, from_dv, to_dv, &rep};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc || !mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND)) {
        mc_nbt_doc_free(doc);
        return;
    }
    const uint32_t *map = mc_registry_map(from, to);
    uint32_t ts = map ? map[state] : 0;
    mc_nbt_tag *out = NULL;
    if (mc_block_entity_translate(&t, be, 16, 64, -32, state, &ts, doc, &out) == MC_OK) {
        /* and back */
        mc_be_translation back = {to, from, to_dv, from_dv, &rep};
        const uint32_t *bmap = mc_registry_map(to, from);
        uint32_t bs = bmap && ts < mc_registry_state_count(to) ? bmap[ts] : 0;
        mc_nbt_tag *again = NULL;
        (void)mc_block_entity_translate(&back, out, 16, 64, -32, ts, &bs, doc, &again);
    }
    if (mc_block_entity_needed(&t, state)) {
        ts = map ? map[state] : 0;
        (void)mc_block_entity_translate(&t, NULL, 16, 64, -32, state, &ts, doc, &out);
    }
    mc_nbt_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc)
        return 0;
    mc_nbt_limits lim = {0};
    lim.max_bytes = (size_t)1 << 20;
    mc_error err;
    if (mc_nbt_parse(doc, data + 4, size - 4, MC_NBT_JAVA, &lim, &err) == MC_OK &&
        mc_nbt_tag_type(mc_nbt_doc_root(doc)) == MC_NBT_COMPOUND)
        trip(versions[data[0] % NVERSIONS], versions[data[1] % NVERSIONS], mc_nbt_doc_root(doc),
             (uint32_t)data[2] << 8 | data[3]);
    mc_nbt_doc_free(doc);
    return 0;
}

#ifdef MC_FUZZ_BLOCKENTITY_GEN
/* Seeds: (source, target, state text of the source's registry, SNBT). */
static const struct seed {
    unsigned from, to;
    const char *state, *snbt;
} seeds[] = {
    {2, 6, "minecraft:standing_sign[meta=0]",
     "{id:\"minecraft:sign\",Text1:'{\"text\":\"Hi\",\"extra\":[\"a\",{\"text\":\"b\",\"bold\":true}]}',"
     "Text2:'not json',Text3:'\"q\"',Text4:'[1,2.5,true,null]'}"},
    {10, 2, "minecraft:oak_sign[rotation=0,waterlogged=false]",
     "{id:\"minecraft:sign\",front_text:{messages:[\"a\",\"b\",\"c\",\"d\"],color:\"red\",has_glowing_text:1b},"
     "back_text:{messages:[{text:\"x\",italic:1b},\"\",\"\",\"\"]},is_waxed:1b}"},
    {2, 8, "minecraft:standing_banner[meta=3]",
     "{id:\"minecraft:banner\",Base:2,Patterns:[{Pattern:\"glb\",Color:3},{Pattern:\"zz\",Color:99}]}"},
    {2, 9, "minecraft:skull[meta=3]",
     "{id:\"minecraft:skull\",SkullType:3b,Owner:{Id:\"00000000-0000-0001-0000-000000000002\",Name:\"A\","
     "Properties:{textures:[{Value:\"v\"}]}}}"},
    {0, 9, "minecraft:chest[meta=2]",
     "{id:\"Chest\",Items:[{Slot:0b,id:\"minecraft:dye\",Count:2b,Damage:4s,tag:{display:{Name:\"N\"},x:1}},"
     "{Slot:1b,id:\"minecraft:diamond_sword\",Count:1b,Damage:9s}],CustomName:\"C\",Lock:\"k\"}"},
    {9, 0, "minecraft:chest[facing=north,type=single,waterlogged=false]",
     "{id:\"minecraft:chest\",Items:[{Slot:0b,id:\"minecraft:red_dye\",count:200,components:"
     "{\"minecraft:damage\":3,\"minecraft:custom_data\":{a:1},\"minecraft:enchantments\":{}}}]}"},
    {0, 6, "minecraft:mob_spawner[meta=0]",
     "{id:\"MobSpawner\",EntityId:\"PigZombie\",SpawnPotentials:[{Type:\"Skeleton\",Weight:2,Properties:{}}]}"},
    {2, 4, "minecraft:flower_pot[meta=0]", "{id:\"minecraft:flower_pot\",Item:\"minecraft:sapling\",Data:3}"},
    {2, 4, "minecraft:noteblock[meta=0]", "{id:\"minecraft:noteblock\",note:30b,powered:1b}"},
    {2, 3, "minecraft:jukebox[meta=1]", "{id:\"minecraft:jukebox\",Record:2260}"},
    {2, 1, "minecraft:bed[meta=9]", "{id:\"minecraft:bed\",color:5}"},
};

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        const mc_registry *from = mc_chunknbt_registry_for(versions[seeds[i].from]);
        uint32_t s;
        mc_error err;
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        if (!from || mc_registry_parse_state(from, seeds[i].state, strlen(seeds[i].state), &s, &err) != MC_OK ||
            mc_snbt_parse(doc, seeds[i].snbt, strlen(seeds[i].snbt), NULL, &err) != MC_OK) {
            fprintf(stderr, "seed %zu: %s\n", i, err.message);
            return 1;
        }
        mc_buf out;
        mc_buf_init(&out, NULL);
        const uint8_t head[4] = {(uint8_t)seeds[i].from, (uint8_t)seeds[i].to, (uint8_t)(s >> 8), (uint8_t)s};
        mc_buf_put(&out, head, 4);
        if (mc_nbt_write(doc, MC_NBT_JAVA, &out, &err) != MC_OK)
            return 1;
        char path[1024];
        snprintf(path, sizeof path, "%s/seed_%02zu", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out.data, 1, out.len, f) != out.len)
            return 1;
        fclose(f);
        mc_buf_free(&out);
        mc_nbt_doc_free(doc);
    }
    return 0;
}
#endif
