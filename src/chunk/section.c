/*
 * section.c: a 16x16x16 section (include/mcchunk/chunk.h): two containers,
 * two counters and two optional light arrays.
 *
 * The counters follow vanilla's LevelChunkSection: nonEmptyBlockCount counts
 * every state that is not air (air, cave_air and void_air carry
 * MC_STATE_AIR), and the fluid count every state with a fluid. set updates
 * them from the old and new state's registry flags, so they never need a
 * scan; recount() is for codecs that replace a whole container. A codec may
 * instead leave them MC_SECTION_COUNT_UNKNOWN (the Java packet decoder does:
 * the count is most of a decode's time after the copies, and most readers
 * of a decoded column never ask): mc_section_block_count / _fluid_count /
 * _counts then count when asked, and set_block leaves an unknown count so.
 */
#include "mcchunk/chunk.h"

#include <string.h>

static uint32_t flags_of(const mc_registry *reg, uint32_t state)
{
    if (reg)
        return mc_registry_state_flags(reg, state);
    return state == 0 ? MC_STATE_AIR : 0;
}

void mc_section_init_rules(mc_section *s, const mc_container_rules *blocks,
                           const mc_container_rules *biomes, uint32_t air, uint32_t biome,
                           const mc_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    mc_container_init(&s->blocks, blocks, air, alloc);
    mc_container_init(&s->biomes, biomes, biome, alloc);
}

void mc_section_init(mc_section *s, const mc_registry *reg, const mc_allocator *alloc)
{
    mc_container_rules b = mc_container_rules_blocks(reg ? mc_registry_direct_bits(reg) : 15);
    mc_container_rules m = mc_container_rules_biomes(reg ? mc_registry_biome_direct_bits(reg) : 7);
    mc_section_init_rules(s, &b, &m, reg ? mc_registry_air(reg) : 0, 0, alloc);
}

static void free_light(mc_section *s, uint8_t **arr)
{
    if (*arr) {
        const mc_allocator *a = mc_alloc_or_default(s->blocks.alloc);
        a->free(a->user, *arr, MC_LIGHT_BYTES);
        *arr = NULL;
    }
}

void mc_section_free(mc_section *s)
{
    free_light(s, &s->block_light);
    free_light(s, &s->sky_light);
    mc_container_free(&s->blocks);
    mc_container_free(&s->biomes);
    s->block_count = s->fluid_count = 0;
}

static mc_status set_light(mc_section *s, uint8_t **arr, const uint8_t *light)
{
    if (!light) {
        free_light(s, arr);
        return MC_OK;
    }
    if (!*arr) {
        const mc_allocator *a = mc_alloc_or_default(s->blocks.alloc);
        *arr = a->alloc(a->user, MC_LIGHT_BYTES);
        if (!*arr)
            return MC_ERR_NOMEM;
    }
    if (*arr != light)
        memcpy(*arr, light, MC_LIGHT_BYTES);
    return MC_OK;
}

mc_status mc_section_set_block_light(mc_section *s, const uint8_t *light)
{
    return set_light(s, &s->block_light, light);
}

mc_status mc_section_set_sky_light(mc_section *s, const uint8_t *light)
{
    return set_light(s, &s->sky_light, light);
}

mc_status mc_section_copy(mc_section *dst, const mc_section *src)
{
    mc_section t;
    memset(&t, 0, sizeof t);
    t.block_count = src->block_count;
    t.fluid_count = src->fluid_count;
    mc_status st = mc_container_copy(&t.blocks, &src->blocks);
    if (st != MC_OK)
        return st;
    st = mc_container_copy(&t.biomes, &src->biomes);
    if (st == MC_OK && src->block_light)
        st = mc_section_set_block_light(&t, src->block_light);
    if (st == MC_OK && src->sky_light)
        st = mc_section_set_sky_light(&t, src->sky_light);
    if (st != MC_OK) {
        mc_section_free(&t);
        return st;
    }
    *dst = t;
    return MC_OK;
}

mc_status mc_section_set_block(mc_section *s, const mc_registry *reg, unsigned x, unsigned y,
                               unsigned z, uint32_t state)
{
    uint32_t old;
    mc_status st = mc_container_set(&s->blocks, mc_block_index(x, y, z), state, &old);
    if (st != MC_OK || old == state)
        return st;
    uint32_t fo = flags_of(reg, old), fn = flags_of(reg, state);
    /* a count left unknown stays unknown: it is counted when asked */
    if (s->block_count != MC_SECTION_COUNT_UNKNOWN)
        s->block_count = (uint16_t)(s->block_count - !(fo & MC_STATE_AIR) + !(fn & MC_STATE_AIR));
    if (s->fluid_count != MC_SECTION_COUNT_UNKNOWN)
        s->fluid_count = (uint16_t)(s->fluid_count - !!(fo & MC_STATE_FLUID) + !!(fn & MC_STATE_FLUID));
    return MC_OK;
}

mc_status mc_section_set_biome(mc_section *s, unsigned x, unsigned y, unsigned z, uint32_t biome)
{
    return mc_container_set(&s->biomes, mc_biome_index(x, y, z), biome, NULL);
}

typedef struct count_ctx {
    const mc_registry *reg;
    uint32_t mask;
} count_ctx;

static bool has_flag(uint32_t state, void *user)
{
    const count_ctx *c = user;
    return (flags_of(c->reg, state) & c->mask) != 0;
}

/* The flags are asked once per palette entry; the 4096 indices are looked
 * at only when some palette entry is air or a fluid (deep stone needs no
 * pass), with one popcount pass per such entry when there are up to 24 (air,
 * cave_air, water, lava, waterlogged states: nearly always), else one
 * histogram. `want`: 1 the non-air count, 2 the fluid count, 3 both. */
static bool count_indirect(const mc_section *s, const mc_registry *reg, unsigned want, unsigned *blocks,
                           unsigned *fluids)
{
    const mc_container *c = &s->blocks;
    size_t plen = 0, nl = 0;
    const uint32_t *pal = mc_container_palette(c, &plen);
    const uint64_t *longs = mc_container_longs(c, &nl);
    if (c->kind != MC_CONTAINER_INDIRECT || !pal || !longs || plen == 0 || plen > 256)
        return false;
    uint8_t fl[256];
    unsigned flagged = 0;
    size_t nt = 0;
    const uint8_t *table = mc_registry_state_flag_table(reg, &nt);
    for (size_t i = 0; i < plen; i++) {
        uint32_t f = table ? (pal[i] < nt ? table[pal[i]] : 0) : flags_of(reg, pal[i]);
        fl[i] = (uint8_t)((((f & MC_STATE_AIR) ? 1 : 0) | ((f & MC_STATE_FLUID) ? 2 : 0)) & want);
        flagged += fl[i] != 0;
    }
    const size_t n = c->rules.size;
    size_t air = 0, fluid = 0;
    /* one pass costs ~50-85 ns per value (4-8 bits), the histogram ~2 us */
    if (flagged <= 24) {
        for (size_t i = 0; i < plen; i++) {
            if (!fl[i])
                continue;
            size_t k = mc_bits_count_equal(longs, n, c->bits, (uint32_t)i);
            air += (fl[i] & 1) ? k : 0;
            fluid += (fl[i] & 2) ? k : 0;
        }
    } else {
        uint32_t counts[256];
        if (!mc_container_histogram(c, counts))
            return false;
        for (size_t i = 0; i < plen; i++) {
            air += (fl[i] & 1) ? counts[i] : 0;
            fluid += (fl[i] & 2) ? counts[i] : 0;
        }
    }
    *blocks = (unsigned)(n - air);
    *fluids = (unsigned)fluid;
    return true;
}

/* Counts from the blocks (what is not in `want` comes back 0). */
static void count_blocks(const mc_section *s, const mc_registry *reg, unsigned want, unsigned *blocks,
                         unsigned *fluids)
{
    const size_t n = s->blocks.rules.size;
    if (s->blocks.kind == MC_CONTAINER_SINGLE) {
        uint32_t f = flags_of(reg, s->blocks.value);
        *blocks = (f & MC_STATE_AIR) ? 0 : (unsigned)n;
        *fluids = (f & MC_STATE_FLUID) ? (unsigned)n : 0;
        return;
    }
    if (count_indirect(s, reg, want, blocks, fluids))
        return;
    count_ctx air = {reg, MC_STATE_AIR}, fluid = {reg, MC_STATE_FLUID};
    *blocks = (want & 1) ? (unsigned)(n - mc_container_count_if(&s->blocks, has_flag, &air)) : 0;
    *fluids = (want & 2) ? (unsigned)mc_container_count_if(&s->blocks, has_flag, &fluid) : 0;
}

void mc_section_recount(mc_section *s, const mc_registry *reg)
{
    unsigned b, f;
    count_blocks(s, reg, 3, &b, &f);
    s->block_count = (uint16_t)b;
    s->fluid_count = (uint16_t)f;
}

void mc_section_counts(const mc_section *s, const mc_registry *reg, unsigned *blocks, unsigned *fluids)
{
    /* only what is asked for and not known (a packet before 26.1 has no
     * fluid count: counting fluids for it was a pass per fluid entry) */
    unsigned want = (blocks && s->block_count == MC_SECTION_COUNT_UNKNOWN ? 1u : 0u) |
                    (fluids && s->fluid_count == MC_SECTION_COUNT_UNKNOWN ? 2u : 0u);
    unsigned b = s->block_count, f = s->fluid_count;
    if (want) {
        unsigned cb, cf;
        count_blocks(s, reg, want, &cb, &cf);
        b = (want & 1) ? cb : b;
        f = (want & 2) ? cf : f;
    }
    if (blocks)
        *blocks = b;
    if (fluids)
        *fluids = f;
}

/* One count (want 1: non-air, 2: fluid) counted from the blocks. */
static unsigned count_one(const mc_section *s, const mc_registry *reg, unsigned want)
{
    unsigned b, f;
    count_blocks(s, reg, want, &b, &f);
    return want == 1 ? b : f;
}

unsigned mc_section_block_count(const mc_section *s, const mc_registry *reg)
{
    return s->block_count != MC_SECTION_COUNT_UNKNOWN ? s->block_count : count_one(s, reg, 1);
}

unsigned mc_section_fluid_count(const mc_section *s, const mc_registry *reg)
{
    return s->fluid_count != MC_SECTION_COUNT_UNKNOWN ? s->fluid_count : count_one(s, reg, 2);
}

size_t mc_section_memory(const mc_section *s)
{
    return mc_container_memory(&s->blocks) + mc_container_memory(&s->biomes) +
           (s->block_light ? MC_LIGHT_BYTES : 0) + (s->sky_light ? MC_LIGHT_BYTES : 0);
}
