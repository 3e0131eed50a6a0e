/*
 * fuzz_palette.c: the container constructors that take outside bytes
 * (palette + longs from big-endian bytes or native longs, padded and
 * spanning, any width) and what a codec does next with an accepted
 * container: read every entry, write it back in both layouts at its own and
 * other widths, compact, compare.
 *
 * Input: [flags u8][bits u8][direct u8][palette_len u16be][palette u32be ...]
 *        [long bytes ...]. flags bit 0: biomes, bit 1: spanning, bit 2:
 *        native longs, bit 3: take the long count from the input instead of
 *        the size the width needs (exercises the length checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/palette.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    unsigned flags = data[0], bits = data[1] % 40, direct = 1 + data[2] % 31;
    size_t plen = ((size_t)data[3] << 8 | data[4]) % 5000;
    data += 5;
    size -= 5;
    if (plen * 4 > size)
        plen = size / 4;
    uint32_t *pal = malloc(plen * 4 + 4);
    for (size_t i = 0; i < plen; i++)
        pal[i] = mc_load_u32be(data + 4 * i);
    data += plen * 4;
    size -= plen * 4;

    mc_container_rules rules = (flags & 1) ? mc_container_rules_biomes(direct) : mc_container_rules_blocks(direct);
    mc_bits_layout layout = (flags & 2) ? MC_BITS_SPANNING : MC_BITS_PADDED;
    size_t nlongs = size / 8;
    if (!(flags & 8)) {
        size_t want = mc_bits_longs(rules.size, bits, layout);
        if (want != SIZE_MAX && want <= nlongs)
            nlongs = want;
    }
    mc_container c;
    mc_error err;
    mc_status st;
    if (flags & 4) {
        uint64_t *longs = malloc(nlongs * 8 + 8);
        memcpy(longs, data, nlongs * 8);
        st = mc_container_from_longs(&c, &rules, bits, layout, plen ? pal : NULL, plen, longs, nlongs, NULL, &err);
        free(longs);
    } else {
        st = mc_container_from_be(&c, &rules, bits, layout, plen ? pal : NULL, plen, data, nlongs, NULL, &err);
    }
    free(pal);
    if (st != MC_OK)
        return 0;

    uint32_t *vals = malloc(rules.size * 4);
    mc_container_get_all(&c, vals);
    for (size_t i = 0; i < rules.size; i++)
        if (mc_container_get(&c, i) != vals[i])
            abort();
    /* write back: ids at the direct width, indices at the container's width,
     * both layouts; read again and compare */
    for (int lay = 0; lay < 2; lay++) {
        /* palette entries are any uint32 (only direct data must fit the
         * direct width), so a palette container is written as indices */
        unsigned wb = c.kind == MC_CONTAINER_DIRECT ? rules.direct_bits : c.bits;
        mc_container_values what = c.kind == MC_CONTAINER_DIRECT ? MC_WRITE_IDS : MC_WRITE_INDICES;
        size_t nl = mc_bits_longs(rules.size, wb, (mc_bits_layout)lay);
        uint8_t *out = malloc(nl * 8 + 1);
        if (mc_container_write_be(&c, wb, (mc_bits_layout)lay, what, out) != MC_OK)
            abort();
        size_t pl;
        const uint32_t *p = mc_container_palette(&c, &pl);
        mc_container d;
        if (mc_container_from_be(&d, &rules, wb, (mc_bits_layout)lay, what == MC_WRITE_INDICES ? p : NULL,
                                 what == MC_WRITE_INDICES ? pl : 0, out, nl, NULL, &err) != MC_OK)
            abort();
        if (!mc_container_equal(&c, &d))
            abort();
        mc_container_free(&d);
        free(out);
    }
    mc_container e;
    if (mc_container_copy(&e, &c) != MC_OK)
        abort();
    if (mc_container_compact(&e) != MC_OK || !mc_container_equal(&c, &e))
        abort();
    mc_container_free(&e);
    free(vals);
    mc_container_free(&c);
    return 0;
}
