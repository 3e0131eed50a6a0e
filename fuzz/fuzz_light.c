/*
 * fuzz_light.c: the light engine on columns the input describes, and its
 * promise that an incremental update equals a full relight.
 *
 * Input: [registry u8][sections u8][neighbours u8][box: x y z w u8 x4]
 *        [state u8 ...]. Nine columns of 1..8 sections (min section -1) of
 * the registry picked (26.1, 1.12.2, a Bedrock one: translated facts), the
 * neighbours present where their bit is set; each section takes bytes from
 * the input: one byte 0..7 fills it with one state, more say the state of
 * each block (cycled), from a list of states that matter to light (air,
 * stone, glass, water, leaves, torch, glowstone, lava, slabs, stairs, snow,
 * a sea pickle, a candle, an id past the registry). The centre is lit, a
 * box of its blocks changes, every column within reach is updated, and the
 * result must equal a full relight (abort otherwise). Never crashes, never
 * reads out of bounds (ASan), whatever the blocks and heights.
 *
 * Seeds in fuzz/corpus/fuzz_light/ are made by this file compiled with
 * MC_FUZZ_LIGHT_GEN:
 *   cc -DMC_FUZZ_LIGHT_GEN -Iinclude fuzz/fuzz_light.c build/libmcchunk.a \
 *      -ldeflate -llz4 -lxxhash -lm -o /tmp/gen && /tmp/gen fuzz/corpus/fuzz_light
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/light.h"
#include "mcchunk/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "air", "stone", "glass", "water", "oak_leaves", "torch", "glowstone", "lava", "oak_slab[type=bottom]",
    "oak_slab[type=top]", "oak_stairs[facing=east,half=bottom]", "snow[layers=3]",
    "sea_pickle[pickles=4,waterlogged=true]", "candle[candles=2,lit=true]", "oak_slab[type=bottom,waterlogged=true]",
};
#define NSTATES (sizeof names / sizeof names[0] + 1) /* the last: an id past the registry */

static void states_of(const mc_registry *reg, uint32_t *out)
{
    for (size_t i = 0; i + 1 < NSTATES; i++)
        if (mc_registry_parse_state(reg, names[i], strlen(names[i]), &out[i], NULL) != MC_OK)
            out[i] = mc_registry_air(reg);
    out[NSTATES - 1] = mc_registry_state_count(reg) + 5;
}

/* Both lights of every section, or NULL arrays as zero. */
static bool same_light(const mc_column *a, const mc_column *b)
{
    static const uint8_t zero[MC_LIGHT_BYTES];
    for (uint32_t i = 0; i < mc_column_section_count(a); i++) {
        const mc_section *x = mc_column_section_const(a, mc_column_min_section(a) + (int32_t)i);
        const mc_section *y = mc_column_section_const(b, mc_column_min_section(b) + (int32_t)i);
        if (memcmp(x->sky_light ? x->sky_light : zero, y->sky_light ? y->sky_light : zero, MC_LIGHT_BYTES) ||
            memcmp(x->block_light ? x->block_light : zero, y->block_light ? y->block_light : zero, MC_LIGHT_BYTES))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    const mc_registry *reg = data[0] % 3 == 0 ? mc_registry_find("26.1")
                             : data[0] % 3 == 1 ? mc_registry_find("1.12.2") : mc_registry_find_bedrock("1.21.60");
    if (!reg)
        return 0;
    const uint32_t nsec = 1 + data[1] % 8;
    const unsigned present = data[2];
    const int32_t bx = data[3] % 16, by = data[4] % (nsec * 16), bz = data[5] % 16, bw = data[6] % 4;
    const uint8_t *p = data + 7;
    size_t left = size - 7, at = 0;
    uint32_t st[NSTATES];
    states_of(reg, st);
    mc_column *cols[9] = {NULL};
    for (int c = 0; c < 9; c++) {
        if (c != 4 && !(present & (1u << (c > 4 ? c - 1 : c))))
            continue;
        cols[c] = mc_column_new(reg, c % 3 - 1, c / 3 - 1, -1, nsec, NULL);
        if (!cols[c])
            goto done;
        for (uint32_t k = 0; k < nsec && left; k++) {
            const uint8_t first = p[at++ % left];
            if (first < 8) { /* one state */
                mc_container_fill(&mc_column_section_at(cols[c], k)->blocks, st[first % NSTATES]);
                continue;
            }
            const size_t run = (size_t)(first & 63) + 1; /* bytes for this section, cycled */
            const size_t from = at;
            for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++)
                mc_container_set(&mc_column_section_at(cols[c], k)->blocks, i,
                                 st[p[(from + i % run) % left] % NSTATES], NULL);
            at += run;
        }
    }
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    if (!e)
        goto done;
    /* every column lit, then a box of the centre changes */
    const mc_column *nb[9][8];
    for (int c = 0; c < 9; c++) {
        for (int k = 0, n = 0; k < 9; k++) {
            if (k == 4)
                continue;
            const int x = c % 3 + k % 3 - 1, z = c / 3 + k / 3 - 1;
            nb[c][n++] = x >= 0 && x < 3 && z >= 0 && z < 3 ? cols[z * 3 + x] : NULL;
        }
        if (cols[c] && mc_light_column(e, cols[c], nb[c], MC_LIGHT_BOTH, &err) != MC_OK)
            goto out;
    }
    const int32_t miny = mc_column_min_y(cols[4]);
    const int32_t x1 = bx + bw > 15 ? 15 : bx + bw, z1 = bz + bw > 15 ? 15 : bz + bw;
    const int32_t y1 = by + bw >= (int32_t)nsec * 16 ? (int32_t)nsec * 16 - 1 : by + bw;
    for (int32_t y = by; y <= y1; y++)
        for (int32_t z = bz; z <= z1; z++)
            for (int32_t x = bx; x <= x1; x++)
                mc_column_set_block(cols[4], x, miny + y, z, st[(size_t)(x + y + z + data[6]) % NSTATES]);
    for (int c = 0; c < 9; c++) {
        const int32_t ox = (1 - c % 3) * 16, oz = (1 - c / 3) * 16; /* the box relative to column c */
        if (cols[c] && mc_light_update(e, cols[c], nb[c], bx + ox, miny + by, bz + oz, x1 + ox, miny + y1, z1 + oz,
                                       MC_LIGHT_BOTH, &err) != MC_OK)
            goto out;
    }
    for (int c = 0; c < 9; c++) {
        if (!cols[c])
            continue;
        mc_column *full = mc_column_new(reg, c % 3 - 1, c / 3 - 1, -1, nsec, NULL);
        if (!full)
            goto out;
        for (uint32_t k = 0; k < nsec; k++) {
            mc_section *s = mc_column_section_at(full, k);
            mc_section_free(s);
            if (mc_section_copy(s, mc_column_section_at(cols[c], k)) != MC_OK)
                break;
        }
        if (mc_light_column(e, full, nb[c], MC_LIGHT_BOTH, &err) == MC_OK && !same_light(full, cols[c])) {
            fprintf(stderr, "fuzz_light: column %d: the update differs from a full relight\n", c);
            abort();
        }
        mc_column_free(full);
    }
out:
    mc_light_engine_free(e);
done:
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
    return 0;
}

#ifdef MC_FUZZ_LIGHT_GEN
/* The seeds: a few registries, heights and neighbour sets, with blocks
 * of each kind. */
int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    static const uint8_t seeds[][40] = {
        {0, 3, 0xFF, 7, 20, 7, 2, 1, 8 + 20, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 3},
        {0, 0, 0x00, 0, 0, 0, 0, 5},
        {1, 2, 0x5A, 15, 5, 0, 3, 1, 9, 2, 2, 7, 0, 0, 3, 3, 4, 1},
        {2, 4, 0xA5, 3, 40, 12, 1, 8 + 12, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2},
        {0, 7, 0x0F, 8, 100, 8, 3, 8 + 40, 1, 1, 1, 0, 0, 0, 0, 5, 6, 7, 4, 4, 3, 3, 2},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/seed_%zu", argv[1], i);
        FILE *f = fopen(path, "wb");
        if (!f)
            return 1;
        size_t n = sizeof seeds[i];
        while (n > 8 && !seeds[i][n - 1])
            n--;
        fwrite(seeds[i], 1, n, f);
        fclose(f);
        LLVMFuzzerTestOneInput(seeds[i], n);
    }
    return 0;
}
#endif
