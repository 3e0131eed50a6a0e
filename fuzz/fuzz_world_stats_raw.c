/*
 * fuzz_world_stats_raw.c: `world stats`' own reader of 1.8-1.17 chunk
 * bytes (programs/mcchunk/world/stats_raw.c) on any bytes, against the
 * model reader. Whatever it takes as a chunk (stats_raw_scan and every
 * section's stats_raw_blocks say RAW_OK) the model reader
 * (mc_chunknbt_read_bytes, as `world stats` calls it) must read too, into
 * a column of sections 0..15 with the same block counts per section and
 * per layer, the same biome cells and the same block entities in order.
 * What it declines is the model reader's business (it may fail there).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_nbt_common.h" /* FUZZ_CHECK */
#include "world/stats_raw.c"

static mc_chunknbt_cache *cache;
static stats_raw *raw;
static uint32_t states[SECTION], counts[SECTION], ends[16];
static int64_t *tally; /* per state: raw counts minus the model's */
static size_t tally_len;

/* The block entities stats_raw reports, checked against the column's. */
typedef struct be_check {
    mc_column *col;
    size_t i;
} be_check;

static bool check_block_entity(void *user, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z)
{
    be_check *b = user;
    int32_t cx, cy, cz;
    FUZZ_CHECK(b->i < mc_column_block_entity_count(b->col));
    mc_nbt_tag *m = mc_column_block_entity_at(b->col, b->i++, &cx, &cy, &cz);
    FUZZ_CHECK(cx == x && cy == y && cz == z && m != NULL);
    const char *s1 = NULL, *s2 = NULL;
    size_t n1 = 0, n2 = 0;
    mc_nbt_get_string(mc_nbt_get(t, "id"), &s1, &n1);
    mc_nbt_get_string(mc_nbt_get(m, "id"), &s2, &n2);
    FUZZ_CHECK(n1 == n2 && (!n1 || !memcmp(s1, s2, n1)));
    return true;
}

/* Section y's (or one layer's) blocks: raw pairs [from, to) against the
 * model's blocks [first, first + n). */
static void compare_blocks(const mc_section *s, uint32_t from, uint32_t to, size_t first, size_t n)
{
    for (uint32_t i = from; i < to; i++) {
        FUZZ_CHECK(states[i] < tally_len);
        tally[states[i]] += counts[i];
    }
    for (size_t i = first; i < first + n; i++) {
        uint32_t v = mc_container_get(&s->blocks, i);
        FUZZ_CHECK(v < tally_len);
        tally[v]--;
    }
    /* only the states met changed: all back at 0 */
    for (uint32_t i = from; i < to; i++)
        FUZZ_CHECK(tally[states[i]] == 0);
    for (size_t i = first; i < first + n; i++)
        FUZZ_CHECK(tally[mc_container_get(&s->blocks, i)] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!raw) {
        cache = mc_chunknbt_cache_new(NULL);
        raw = stats_raw_new(cache);
        FUZZ_CHECK(cache && raw);
    }
    raw_chunk c;
    if (stats_raw_scan(raw, data, size, &c) != RAW_OK)
        return 0;
    for (int y = 0; y < 16; y++)
        if (c.have >> y & 1 && stats_raw_blocks(raw, &c, y, false, states, counts, ends) != RAW_OK)
            return 0; /* declined: the model reader's */
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_NO_LIGHT | MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    opt.cache = cache;
    mc_column *col = NULL;
    FUZZ_CHECK(mc_chunknbt_read_bytes(data, size, &opt, &col, NULL) == MC_OK);
    FUZZ_CHECK(mc_column_registry(col) == c.reg && mc_column_min_section(col) == 0 &&
               mc_column_section_count(col) == 16);
    size_t need = mc_registry_state_count(c.reg) > 65536 ? mc_registry_state_count(c.reg) : 65536;
    if (tally_len < need) {
        free(tally);
        tally = calloc(need, sizeof *tally);
        FUZZ_CHECK(tally != NULL);
        tally_len = need;
    }
    const uint32_t air = mc_registry_air(c.reg);
    for (int y = 0; y < 16; y++) {
        const mc_section *s = mc_column_section_at(col, (uint32_t)y);
        if (c.have >> y & 1) {
            FUZZ_CHECK(stats_raw_blocks(raw, &c, y, false, states, counts, ends) == RAW_OK);
            compare_blocks(s, 0, ends[0], 0, SECTION);
            FUZZ_CHECK(stats_raw_blocks(raw, &c, y, true, states, counts, ends) == RAW_OK);
            for (unsigned l = 0; l < 16; l++)
                compare_blocks(s, l ? ends[l - 1] : 0, ends[l], (size_t)l * 256, 256);
        } else {
            for (size_t i = 0; i < SECTION; i++)
                FUZZ_CHECK(mc_container_get(&s->blocks, i) == air);
        }
        for (size_t cell = 0; cell < 64; cell++)
            FUZZ_CHECK(mc_container_get(&s->biomes, cell) == c.biomes[c.biomes_same ? 0 : y][cell]);
    }
    be_check b = {col, 0};
    FUZZ_CHECK(stats_raw_block_entities(&c, check_block_entity, &b));
    FUZZ_CHECK(b.i == mc_column_block_entity_count(col));
    mc_column_free(col);
    return 0;
}
