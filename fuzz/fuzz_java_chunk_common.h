/*
 * fuzz_java_chunk_common.h: the body shared by the per-era Chunk Data
 * decoder fuzz targets (fuzz_java_chunk_<era>.c), and the generator of
 * their seeds.
 *
 * A target gets a protocol list of its era. The first input byte picks the
 * protocol and the options (lenient or strict, 1.18+ dimension height); the
 * rest is a Chunk Data packet. Whatever decodes must re-encode, decode
 * again, and re-encode to the same bytes (the encoder's output is a fixed
 * point), with no sanitizer report on the way.
 *
 * Seeds: small packets our encoder writes (a few sections, small palettes,
 * one global-palette section, no light so they stay small). Regenerate with
 *   cc -O1 -DMC_FUZZ_GEN_SEEDS -x c fuzz/fuzz_java_chunk_common.h -Iinclude \
 *      build/libmcchunk.a -ldeflate -llz4 -lxxhash -lm -o /tmp/gen && /tmp/gen fuzz/corpus
 */
#ifndef MC_FUZZ_JAVA_CHUNK_COMMON_H
#define MC_FUZZ_JAVA_CHUNK_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/java.h"

static void mc_fuzz_java_chunk(const uint32_t *protocols, size_t nproto, const uint8_t *data, size_t size)
{
    if (size < 1)
        return;
    const uint32_t protocol = protocols[(data[0] & 0x0F) % nproto];
    mc_java_decode_opts o;
    memset(&o, 0, sizeof o);
    o.lenient = (data[0] & 0x10) != 0;
    if (data[0] & 0x20) {
        o.has_height = true;
        o.min_y = (data[0] & 0x40) ? 0 : -64;
        o.height = (data[0] & 0x40) ? 256 : 384;
    }
    data++;
    size--;
    mc_column *col = NULL;
    mc_java_chunk_info info;
    mc_error err;
    if (mc_java_decode_chunk(data, size, protocol, &o, &col, &info, &err) != MC_OK)
        return;
    mc_buf a, b;
    mc_buf_init(&a, NULL);
    mc_buf_init(&b, NULL);
    mc_java_decode_opts o2;
    memset(&o2, 0, sizeof o2);
    o2.has_height = true;
    o2.min_y = mc_column_min_y(col);
    o2.height = mc_column_height(col);
    if (protocol < 757) {
        o2.min_y = 0;
        o2.height = 256;
    }
    if (mc_java_encode_chunk(col, protocol, &a, NULL, &err) == MC_OK) {
        mc_column *c2 = NULL;
        o2.lenient = true; /* e.g. block entities without a known type are left out */
        if (mc_java_decode_chunk(a.data, a.len, protocol, &o2, &c2, NULL, &err) != MC_OK)
            abort();
        if (mc_java_encode_chunk(c2, protocol, &b, NULL, &err) != MC_OK)
            abort();
        mc_column *c3 = NULL;
        mc_buf c;
        mc_buf_init(&c, NULL);
        if (mc_java_decode_chunk(b.data, b.len, protocol, &o2, &c3, NULL, &err) != MC_OK ||
            mc_java_encode_chunk(c3, protocol, &c, NULL, &err) != MC_OK || c.len != b.len ||
            memcmp(c.data, b.data, b.len) != 0)
            abort();
        mc_buf_free(&c);
        mc_column_free(c3);
        mc_column_free(c2);
    }
    mc_buf_free(&a);
    mc_buf_free(&b);
    mc_column_free(col);
}

#ifdef MC_FUZZ_GEN_SEEDS
#include <stdio.h>
#include <sys/stat.h>

static void write_seed(const char *dir, const char *era, const char *name, uint8_t lead, const mc_buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fuzz_java_chunk_%s", dir, era);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/fuzz_java_chunk_%s/%s", dir, era, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(&lead, 1, 1, f);
    fwrite(b->data, 1, b->len, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    static const struct { const char *era; uint32_t protocol; uint8_t lead; } eras[] = {
        {"1_8", 47, 0}, {"1_9", 340, 0}, {"1_13", 404, 0}, {"1_14", 498, 0}, {"1_15", 578, 0},
        {"1_16", 754, 0}, {"1_17", 756, 0}, {"1_18", 758, 0x20}, {"1_21_5", 770, 0x20}, {"26_1", 775, 0x20},
    };
    const char *dir = argc > 1 ? argv[1] : "fuzz/corpus";
    for (size_t k = 0; k < sizeof eras / sizeof eras[0]; k++) {
        const mc_registry *reg = mc_registry_find_protocol((int32_t)eras[k].protocol);
        const bool modern = eras[k].protocol >= 757;
        for (int variant = 0; variant < 3; variant++) {
            mc_column *col = mc_column_new(reg, variant, -variant, modern ? -4 : 0, modern ? 24 : 16, NULL);
            uint32_t stone = mc_registry_default_state(reg, "stone");
            uint32_t dirt = mc_registry_default_state(reg, "dirt");
            uint32_t grass = mc_registry_default_state(reg, "grass_block");
            if (grass == MC_STATE_NONE)
                grass = mc_registry_default_state(reg, "grass");
            uint32_t water = mc_registry_default_state(reg, "water");
            int32_t y0 = modern ? -64 : 0;
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++) {
                    mc_column_set_block(col, x, y0, z, stone);
                    mc_column_set_block(col, x, y0 + 1, z, (x + z) & 1 ? dirt : grass);
                    if (variant >= 1 && x < 4)
                        mc_column_set_block(col, x, y0 + 2, z, water);
                }
            if (variant == 2) {
                /* a global-palette section: many distinct states */
                uint32_t s = 1;
                for (int i = 0; i < 300; i++) {
                    while (!mc_registry_state_valid(reg, s) || (mc_registry_state_flags(reg, s) & MC_STATE_AIR))
                        s++;
                    mc_column_set_block(col, i & 15, y0 + 16 + (i >> 8), (i >> 4) & 15, s++);
                }
                mc_column_set_biome(col, 1, (y0 >> 2) + 1, 1, 2);
            }
            mc_buf b;
            mc_buf_init(&b, NULL);
            if (mc_java_encode_chunk(col, eras[k].protocol, &b, NULL, NULL) == MC_OK) {
                char name[64];
                snprintf(name, sizeof name, "gen_%d", variant);
                write_seed(dir, eras[k].era, name, eras[k].lead, &b);
            }
            mc_buf_free(&b);
            mc_column_free(col);
        }
    }
    return 0;
}
#endif
#endif
