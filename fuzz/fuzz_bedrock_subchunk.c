/* fuzz_bedrock_subchunk.c: Bedrock subchunk decoding on hostile bytes. The
 * first byte picks the form (auto, network, disk, persistent); a subchunk
 * that decodes is written back in its own version and form, and that must
 * decode to the same bytes again. Also exercises the conversion to a section
 * (1.21.60 registry) when the ids allow it, to a Java 1.21.4 section (the
 * water layer folded into waterlogged states), and through the chunk model
 * and back (storages past 0 kept in the column's extra NBT).
 * Seeds: `mcchunk bedrock generate --version 1.21.60 --tiny --out D`, the
 * sub_{net,disk,persist}_*.bin files with the form byte (1, 2, 3) in front. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    mc_bedrock_form form = (mc_bedrock_form)(data[0] & 3);
    data++;
    size--;
    mc_bedrock_subchunk sc, again;
    mc_bedrock_subchunk_init(&sc, NULL);
    mc_bedrock_subchunk_init(&again, NULL);
    size_t used;
    mc_error err;
    if (mc_bedrock_subchunk_decode(&sc, data, size, form, &used, &err) == MC_OK) {
        if (used > size)
            abort();
        if (sc.kind != MC_BEDROCK_PALETTE_LEGACY) {
            mc_bedrock_form f = sc.kind == MC_BEDROCK_PALETTE_RUNTIME ? MC_BEDROCK_FORM_NETWORK
                              : sc.kind == MC_BEDROCK_PALETTE_DISK    ? MC_BEDROCK_FORM_DISK
                                                                      : MC_BEDROCK_FORM_PERSISTENT;
            unsigned v = sc.version == 1 || sc.version == 8 ? sc.version : 9;
            mc_buf b1, b2;
            mc_buf_init(&b1, NULL);
            mc_buf_init(&b2, NULL);
            if (mc_bedrock_subchunk_encode(&sc, v, f, &b1, &err) == MC_OK) {
                if (mc_bedrock_subchunk_decode(&again, b1.data, b1.len, f, &used, &err) != MC_OK || used != b1.len)
                    abort();
                if (mc_bedrock_subchunk_encode(&again, v, f, &b2, &err) != MC_OK || b1.len != b2.len ||
                    (b1.len && memcmp(b1.data, b2.data, b1.len)))
                    abort();
            }
            mc_buf_free(&b1);
            mc_buf_free(&b2);
            const mc_registry *reg = mc_registry_find_bedrock("1.21.60");
            const mc_registry *java = mc_registry_find("1.21.4");
            bool hashed = size && (data[0] & 4) != 0;
            if (reg) {
                mc_section s;
                mc_status st = mc_bedrock_subchunk_to_section(&sc, &s, reg, hashed, NULL, &err);
                mc_section_free(&s);
                if (java) {
                    mc_bedrock_subchunk_to_section_in(&sc, &s, reg, hashed, java, NULL, &err);
                    mc_section_free(&s);
                }
                if (st == MC_OK) {
                    /* one-subchunk column -> model -> column */
                    mc_bedrock_column c, c2;
                    if (mc_bedrock_column_init_range(&c, 0, 0, 0, 0, 1, mc_registry_air(reg), NULL) == MC_OK) {
                        mc_bedrock_subchunk_free(&c.subchunks[0]);
                        c.subchunks[0] = sc;
                        mc_bedrock_subchunk_init(&sc, NULL);
                        mc_column *col = mc_bedrock_column_to_mc_column(&c, reg, hashed, NULL, &err);
                        mc_bedrock_ids ids;
                        if (col && mc_bedrock_ids_init(&ids, reg, reg, hashed) == MC_OK &&
                            mc_bedrock_column_from_mc_column(&c2, col, 0, &ids, NULL, &err) == MC_OK) {
                            /* every storage past the blocks comes back */
                            if (c.subchunks[0].storage_count >= 2 &&
                                c2.subchunks[0].storage_count != c.subchunks[0].storage_count)
                                abort();
                            mc_bedrock_column_free(&c2);
                        }
                        mc_column_free(col);
                        mc_bedrock_column_free(&c);
                    }
                }
            }
        }
        for (unsigned i = 0; i < sc.storage_count; i++) {
            uint32_t vals[4096];
            mc_bedrock_storage_values(&sc.storages[i], vals);
        }
    }
    mc_bedrock_subchunk_free(&sc);
    mc_bedrock_subchunk_free(&again);
    return 0;
}
