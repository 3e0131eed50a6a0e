/* fuzz_bedrock_be_java.c: Bedrock block entities (hostile network NBT, as
 * a subchunk's trailing block-entity bytes) into a Java column of another
 * version, with the blocks they decide. The first byte picks the Bedrock
 * block filling the subchunk (an index into a short list of blocks that
 * have block entities), the second the Java target (1.12.2, 1.16.5,
 * 1.20.1, 1.21.5, 26.1); the rest is the subchunk's block-entity bytes.
 * Whatever comes out must be a Java column whose block entities write as
 * Java NBT. Seeds: scripts/gen-fuzz-bedrock-be-java-seeds.sh (sign, bed,
 * banner, skull, pot, chest with items, spawner). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const blocks[] = {
        "minecraft:standing_sign[ground_sign_direction=3]",
        "minecraft:bed[direction=1,head_piece_bit=true,occupied_bit=false]",
        "minecraft:wall_banner[facing_direction=4]",
        "minecraft:skeleton_skull[facing_direction=1]",
        "minecraft:flower_pot[update_bit=false]",
        "minecraft:chest[minecraft:cardinal_direction=north]",
        "minecraft:mob_spawner",
        "minecraft:standing_banner[ground_sign_direction=7]",
    };
    static const char *const targets[] = {"1.12.2", "1.16.5", "1.20.1", "1.21.5", "26.1"};
    if (size < 2)
        return 0;
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    const mc_registry *java = mc_registry_find(targets[data[1] % 5]);
    const char *b = blocks[data[0] % (sizeof blocks / sizeof *blocks)];
    uint32_t state;
    if (!bed || !java || mc_registry_parse_state(bed, b, strlen(b), &state, NULL) != MC_OK)
        return 0;
    data += 2;
    size -= 2;
    mc_bedrock_column c;
    if (mc_bedrock_column_init_range(&c, 0, 0, 0, 0, 1, mc_registry_air(bed), NULL) != MC_OK)
        return 0;
    c.subchunks[0].storage_count = 1;
    c.subchunks[0].version = 9;
    c.subchunks[0].kind = MC_BEDROCK_PALETTE_RUNTIME;
    mc_buf_put(&c.block_entities[0], data, size);
    if (mc_bedrock_storage_init_single(&c.subchunks[0].storages[0], state, NULL) == MC_OK &&
        mc_buf_ok(&c.block_entities[0])) {
        mc_be_report rep;
        memset(&rep, 0, sizeof rep);
        mc_column *col = mc_bedrock_column_to_mc_column_report(&c, bed, false, java, NULL, &rep, NULL);
        for (size_t i = 0; col && i < mc_column_block_entity_count(col); i++) {
            int32_t x, y, z;
            const mc_nbt_tag *t = mc_column_block_entity_at(col, i, &x, &y, &z);
            mc_buf out;
            mc_buf_init(&out, NULL);
            if (!t || mc_nbt_write_tag(t, "", 0, MC_NBT_JAVA, &out, NULL) != MC_OK)
                abort();
            mc_buf_free(&out);
        }
        mc_column_free(col);
    }
    mc_bedrock_column_free(&c);
    return 0;
}
