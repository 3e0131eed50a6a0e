/*
 * chunk_gen.h (src/java, header-only, public API only): random columns for
 * the chunk codec tests, the fuzz seeds, the benchmark and the CLI's
 * `packet encode --generated SEED`.
 *
 * A generated column has every kind of section the codecs must handle:
 * empty (all air), single-valued, small palettes (1-4 bits), larger ones
 * (5-8 bits), global-palette sections with hundreds of states, terrain-like
 * stone with a little cave_air, water; biomes single, paletted and (where
 * the registry has more than 8) direct; block and sky light on some
 * sections; and a few block entities. Everything follows from the seed.
 */
#ifndef MC_JAVA_CHUNK_GEN_H
#define MC_JAVA_CHUNK_GEN_H

#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunk.h"

typedef struct mc__gen_rng {
    uint64_t s;
} mc__gen_rng;

static inline uint64_t mc__gen_next(mc__gen_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

static inline uint32_t mc__gen_below(mc__gen_rng *r, uint32_t n)
{
    return n ? (uint32_t)(mc__gen_next(r) % n) : 0;
}

static inline uint32_t mc__gen_state(const mc_registry *reg, mc__gen_rng *r)
{
    const uint32_t n = mc_registry_state_count(reg);
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t s = mc__gen_below(r, n);
        /* keep away from the air-like states so counts stay unambiguous */
        if (mc_registry_state_valid(reg, s) && !(mc_registry_state_flags(reg, s) & MC_STATE_AIR))
            return s;
    }
    return mc_registry_default_state(reg, "stone");
}

/* Fills a whole section: kind 0 air, 1 single, 2 small palette, 3 medium,
 * 4 direct, 5 stone with cave air and water. */
static inline void mc__gen_section(const mc_registry *reg, mc_section *s, mc__gen_rng *r, int kind)
{
    uint32_t vals[MC_SECTION_BLOCKS];
    uint32_t pal[600];
    uint32_t npal = 1;
    pal[0] = pal[1] = pal[2] = pal[3] = 0;
    const uint32_t air = mc_registry_air(reg);
    switch (kind) {
    case 0:
        npal = 1;
        pal[0] = air;
        break;
    case 1:
        npal = 1;
        pal[0] = mc__gen_state(reg, r);
        break;
    case 2:
        npal = 2 + mc__gen_below(r, 14);
        break;
    case 3:
        npal = 17 + mc__gen_below(r, 200);
        break;
    case 4:
        npal = 300 + mc__gen_below(r, 280);
        break;
    default: {
        uint32_t stone = mc_registry_default_state(reg, "stone");
        uint32_t cave = mc_registry_default_state(reg, "cave_air");
        uint32_t water = mc_registry_default_state(reg, "water");
        if (cave == MC_STATE_NONE)
            cave = air;
        if (water == MC_STATE_NONE)
            water = stone;
        pal[0] = stone;
        pal[1] = cave;
        pal[2] = water;
        pal[3] = air;
        npal = 4;
        break;
    }
    }
    if (kind >= 2 && kind <= 4) {
        pal[0] = air;
        for (uint32_t i = 1; i < npal; i++)
            pal[i] = mc__gen_state(reg, r);
    }
    for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
        if (kind == 5) {
            uint32_t v = mc__gen_below(r, 100);
            vals[i] = v < 90 ? pal[0] : v < 95 ? pal[1] : v < 98 ? pal[2] : pal[3];
        } else {
            vals[i] = pal[npal == 1 ? 0 : mc__gen_below(r, npal)];
        }
    }
    mc_container_set_all(&s->blocks, vals);
    mc_section_recount(s, reg);
}

/* The column: `count` sections from `min_sy`, blocks from the seed. */
static inline mc_column *mc__gen_column(const mc_registry *reg, uint64_t seed, int32_t x, int32_t z,
                                        int32_t min_sy, uint32_t count)
{
    mc__gen_rng r = {seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL};
    mc_column *col = mc_column_new(reg, x, z, min_sy, count, NULL);
    if (!col)
        return NULL;
    const uint32_t nb = mc_registry_biome_count(reg);
    uint32_t biomes[64];
    uint8_t light[MC_LIGHT_BYTES];
    for (uint32_t i = 0; i < count; i++) {
        mc_section *s = mc_column_section_at(col, i);
        int kind = (int)mc__gen_below(&r, 6);
        if (i == count - 1 || i == count - 2)
            kind = 0; /* air on top, as in real worlds */
        mc__gen_section(reg, s, &r, kind);
        /* biomes: one, a few, or (rarely) many */
        uint32_t nbio = mc__gen_below(&r, 4) == 0 ? 1 : 1 + mc__gen_below(&r, 6);
        if (mc__gen_below(&r, 8) == 0 && nb > 16)
            nbio = 12 + mc__gen_below(&r, 8);
        uint32_t bp[32];
        for (uint32_t k = 0; k < nbio; k++) {
            uint32_t b;
            do
                b = mc__gen_below(&r, nb);
            while (!mc_registry_biome_name(reg, b));
            bp[k] = b;
        }
        for (int k = 0; k < 64; k++)
            biomes[k] = bp[mc__gen_below(&r, nbio)];
        mc_container_set_all(&s->biomes, biomes);
        if (mc__gen_below(&r, 3) != 0) {
            for (int k = 0; k < MC_LIGHT_BYTES; k++)
                light[k] = (uint8_t)mc__gen_next(&r);
            mc_section_set_sky_light(s, light);
            for (int k = 0; k < MC_LIGHT_BYTES; k++)
                light[k] = (uint8_t)(mc__gen_below(&r, 4) ? 0 : mc__gen_next(&r));
            mc_section_set_block_light(s, light);
        }
    }
    /* a few block entities (chests with a name) */
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (doc) {
        unsigned nbe = mc__gen_below(&r, 4);
        for (unsigned k = 0; k < nbe; k++) {
            int32_t bx = x * 16 + (int32_t)mc__gen_below(&r, 16);
            int32_t bz = z * 16 + (int32_t)mc__gen_below(&r, 16);
            int32_t by = min_sy * 16 + (int32_t)mc__gen_below(&r, count * 16);
            mc_nbt_tag *t = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
            mc_nbt_put_string(doc, t, "id", "minecraft:chest", 15);
            mc_nbt_put_int(doc, t, "x", bx);
            mc_nbt_put_int(doc, t, "y", by);
            mc_nbt_put_int(doc, t, "z", bz);
            if (k & 1)
                mc_nbt_put_string(doc, t, "CustomName", "\"gen\"", 5);
            mc_column_put_block_entity(col, bx, by, bz, t);
        }
        mc_nbt_doc_free(doc);
    }
    return col;
}

#endif
