/* fuzz_bedrock_blockentity.c: Java block entities (hostile NBT, their text
 * components hostile JSON) translated to Bedrock ones. The first two bytes
 * pick the Java block at the position (an index into a short list of
 * blocks that have block entities, or, past it, any state id of 1.21.4);
 * the rest is a big-endian Java NBT compound. Whatever comes out must be
 * one network-NBT compound that parses again.
 * Seeds: small compounds written for this target (chest, signs of both
 * eras with JSON and plain text, banners of both eras, skull, spawner). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const blocks[] = {
        "minecraft:chest[facing=west,type=left,waterlogged=false]",
        "minecraft:oak_sign[rotation=3,waterlogged=false]",
        "minecraft:red_bed[facing=north,occupied=false,part=foot]",
        "minecraft:light_gray_wall_banner[facing=east]",
        "minecraft:piglin_head[powered=false,rotation=15]",
        "minecraft:spawner",
    };
    if (size < 2)
        return 0;
    const mc_registry *java = mc_registry_find("1.21.4");
    if (!java)
        return 0;
    unsigned pick = (unsigned)data[0] << 8 | data[1];
    uint32_t state = pick;
    if (pick < sizeof blocks / sizeof *blocks)
        mc_registry_parse_state(java, blocks[pick], strlen(blocks[pick]), &state, NULL);
    data += 2;
    size -= 2;
    mc_nbt_limits limits = {0, (size_t)4 << 20};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (doc && mc_nbt_parse(doc, data, size, MC_NBT_JAVA, &limits, NULL) == MC_OK) {
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_error err;
        mc_status st = mc_bedrock_block_entity_from_java(mc_nbt_doc_root(doc), 17, -3, -40, java, state, &out, &err);
        if (st == MC_OK) {
            mc_nbt_doc *back = mc_nbt_doc_new(NULL);
            size_t used = 0;
            if (!back || mc_nbt_parse_ex(back, out.data, out.len, MC_NBT_BEDROCK_NETWORK, MC_NBT_PARSE_PREFIX, NULL,
                                         &used, NULL) != MC_OK ||
                used != out.len)
                abort();
            mc_nbt_doc_free(back);
        } else if (out.len) {
            abort(); /* nothing written on failure */
        }
        mc_buf_free(&out);
    }
    mc_nbt_doc_free(doc);
    return 0;
}
