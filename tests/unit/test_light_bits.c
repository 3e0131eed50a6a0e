/*
 * test_light_bits.c: the full relight's bit floods (src/light/bitflood.c)
 * against the queue floods they replace (the engine with exact_only set),
 * both lights, every position of every section and of the sections below
 * and above the world:
 *  - real terrain: columns with their eight neighbours from every corpus
 *    region (4 spread over each; MCCHUNK_LONG=1: all of them), in a batch
 *    (the rows of a section as bits are kept with it) and in single calls;
 *  - random columns: 3x3 columns of random blocks (air, stone, glass,
 *    water, leaves, slabs both ways, stairs, snow layers, torches,
 *    glowstone, lava, lit and unlit lamps, sea pickles, ice, campfires,
 *    light blocks, dirt paths), up to the
 *    top of the world, with neighbours missing at times, single calls and
 *    batches;
 *  - cases made for the edges: sky light and a lamp from exactly 14 away,
 *    a batch of columns where nothing shines, and blocks of opacity 7
 *    (none exists today: the tables are altered) that must send their
 *    runs to the queue floods;
 * and counts how many runs the bit floods took (they must take most).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "light/light_private.h"
#include "mcchunk/mcchunk.h"

static bool long_run(void)
{
    const char *v = getenv("MCCHUNK_LONG");
    return v && *v && strcmp(v, "0") != 0;
}

/* All the light of col (every section's two arrays, then the edges)
 * into out; absent arrays read as 0xEE bytes. */
static size_t save_light(const mc_light_engine *e, const mc_column *col, uint8_t *out)
{
    size_t n = 0;
    for (uint32_t k = 0; k < mc_column_section_count(col); k++) {
        const mc_section *s = mc_column_section_at((mc_column *)col, k);
        const uint8_t *arr[2] = {s->sky_light, s->block_light};
        for (int i = 0; i < 2; i++, n += MC_LIGHT_BYTES) {
            if (arr[i])
                memcpy(out + n, arr[i], MC_LIGHT_BYTES);
            else
                memset(out + n, 0xEE, MC_LIGHT_BYTES);
        }
    }
    assert_true(mc_light_edges(e, out + n, out + n + MC_LIGHT_BYTES, out + n + 2 * MC_LIGHT_BYTES,
                               out + n + 3 * MC_LIGHT_BYTES));
    return n + 4 * MC_LIGHT_BYTES;
}

/* Lights col with both engines and fails at the first position where
 * they differ (its absolute coordinates in the message). */
static void compare(mc_light_engine *bits, mc_light_engine *exact, mc_column *col, const mc_column *nb[8],
                    const char *what, uint8_t *a, uint8_t *b)
{
    mc_error err;
    assert_int_equal(mc_light_column(exact, col, nb, MC_LIGHT_BOTH, &err), MC_OK);
    const size_t n = save_light(exact, col, a);
    assert_int_equal(mc_light_column(bits, col, nb, MC_LIGHT_BOTH, &err), MC_OK);
    save_light(bits, col, b);
    if (memcmp(a, b, n) == 0)
        return;
    const uint32_t nsec = mc_column_section_count(col);
    for (size_t i = 0; i < n * 2; i++) {
        const unsigned va = a[i / 2] >> (4 * (i & 1)) & 15u, vb = b[i / 2] >> (4 * (i & 1)) & 15u;
        if (va == vb)
            continue;
        const size_t arr = i / (2 * MC_LIGHT_BYTES), idx = i % (2 * MC_LIGHT_BYTES);
        const bool edge = arr >= 2 * nsec;
        const int32_t sy = edge ? (arr - 2 * nsec) % 2 ? mc_column_min_section(col) + (int32_t)nsec
                                                       : mc_column_min_section(col) - 1
                                : mc_column_min_section(col) + (int32_t)(arr / 2);
        const bool sky = edge ? arr - 2 * nsec < 2 : arr % 2 == 0;
        fail_msg("%s: %s light at %d %d %d: queue floods %u, bit floods %u", what, sky ? "sky" : "block",
                 (int)(mc_column_x(col) * 16 + (int32_t)(idx & 15)), (int)(sy * 16 + (int32_t)(idx >> 8)),
                 (int)(mc_column_z(col) * 16 + (int32_t)(idx >> 4 & 15)), va, vb);
    }
}

static mc_light_engine *engine(bool exact)
{
    mc_light_engine *e = mc_light_engine_new(NULL);
    assert_non_null(e);
    e->exact_only = exact;
    return e;
}

/* ------------------------------------------------------------ the corpus */

/* Column x, z of the region (read on first use), or NULL. */
static mc_column *region_col(mc_region *region, mc_column *cols[32][32], bool tried[32][32], mc_buf *nbt, int x,
                             int z)
{
    mc_error err;
    if (!tried[z][x]) {
        tried[z][x] = true;
        nbt->len = 0;
        if (mc_region_has_chunk(region, x, z) && mc_region_read_chunk(region, x, z, nbt, NULL, &err) == MC_OK &&
            mc_chunknbt_read_bytes(nbt->data, nbt->len, NULL, &cols[z][x], &err) != MC_OK)
            cols[z][x] = NULL;
    }
    return cols[z][x];
}

/* Up to cap columns of the region with their neighbours (MCCHUNK_LONG:
 * every column; else the first of every third in rows 2, 9, 16, 23, 30):
 * in a batch and in single calls, each against the queue floods. */
static unsigned check_region(const char *path, mc_light_engine *bits, mc_light_engine *single, mc_light_engine *exact,
                             unsigned cap)
{
    mc_region *region;
    mc_error err;
    if (mc_region_open(path, NULL, &region, &err) != MC_OK)
        return 0;
    static mc_column *cols[32][32];
    static bool tried[32][32];
    memset(cols, 0, sizeof cols);
    memset(tried, 0, sizeof tried);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    unsigned done = 0;
    uint8_t *a = NULL, *b = NULL;
    assert_int_equal(mc_light_batch_begin(bits, 0), MC_OK); /* the rows a batch keeps as bits */
    for (int z = 1; z < 31 && done < cap; z++)
        for (int x = 1; x < 31 && done < cap; x++) {
            if (!long_run() && (z % 7 != 2 || x % 3))
                continue;
            mc_column *col = region_col(region, cols, tried, &nbt, x, z);
            if (!col)
                continue;
            const mc_column *nb[8];
            int k = 0;
            for (int dz = -1; dz <= 1; dz++)
                for (int dx = -1; dx <= 1; dx++)
                    if (dx || dz)
                        nb[k++] = region_col(region, cols, tried, &nbt, x + dx, z + dz);
            if (!a) {
                const size_t n = ((size_t)mc_column_section_count(col) * 2 + 4) * MC_LIGHT_BYTES;
                a = malloc(n);
                b = malloc(n);
            }
            compare(bits, exact, col, nb, path, a, b);
            compare(single, exact, col, nb, path, a, b); /* the rows classified afresh each call */
            done++;
            if (!long_run())
                break; /* one a row: spread over the region */
        }
    mc_light_batch_end(bits);
    mc_buf_free(&nbt);
    mc_region_close(region);
    free(a);
    free(b);
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++)
            mc_column_free(cols[z][x]);
    return done;
}

static void test_corpus(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    mc_light_engine *bits = engine(false), *single = engine(false), *exact = engine(true);
    const unsigned cap = long_run() ? 1024 : 4;
    unsigned regions = 0, columns = 0;
    for (char **f = files; *f; f++) {
        if (strstr(*f, "poi") || strstr(*f, "entities"))
            continue;
        const unsigned n = check_region(*f, bits, single, exact, cap);
        regions += n > 0;
        columns += n;
    }
    mc_test_free_list(files);
    print_message("%u columns of %u regions: bit floods == queue floods at every position; %llu of %llu runs "
                  "took the bit floods\n",
                  columns, regions, (unsigned long long)bits->bw.runs_bits,
                  (unsigned long long)(bits->bw.runs_bits + bits->bw.runs_queue));
    assert_true(regions >= 10);
    assert_true(bits->bw.runs_bits * 10 >= (bits->bw.runs_bits + bits->bw.runs_queue) * 9);
    mc_light_engine_free(bits);
    mc_light_engine_free(single);
    mc_light_engine_free(exact);
}

/* ------------------------------------------------------- random columns */

static uint32_t state(const mc_registry *reg, const char *text)
{
    uint32_t s;
    mc_error err;
    assert_int_equal(mc_registry_parse_state(reg, text, strlen(text), &s, &err), MC_OK);
    return s;
}

static void test_random(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    /* the blocks without shapes first: rounds 1, 5, 9, ... take only these
     * (sections whose rows a batch keeps as bits) */
    static const char *const names[] = {
        "stone", "glass", "water", "oak_leaves", "torch", "glowstone", "lava", "redstone_lamp[lit=true]",
        "redstone_lamp[lit=false]", "sea_pickle[pickles=3,waterlogged=true]", "ice", "soul_campfire[lit=true]",
        "light[level=5]", "oak_slab[type=top]", "oak_slab[type=bottom]", "oak_stairs[facing=east,half=bottom]",
        "oak_stairs[facing=north,half=top]", "snow[layers=1]", "snow[layers=8]",
        "oak_slab[type=bottom,waterlogged=true]", "dirt_path"};
    const size_t nall = sizeof names / sizeof names[0], nplain = 13;
    uint32_t pick[32];
    for (size_t i = 0; i < nall; i++)
        pick[i] = state(reg, names[i]);
    const uint32_t air = mc_registry_air(reg), stone = pick[0];
    mc_test_rng rng = {0x5eed1234u};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    const int rounds = long_run() ? 200 : 8;
    for (int round = 0; round < rounds; round++) {
        mc_column *cols[9];
        /* terrain: stone to a random height per column, caves of air,
         * random blocks above (denser in some rounds), some up to the top */
        const unsigned density = 2 + (unsigned)(mc_test_rand(&rng) % 30);
        const size_t nn = round % 4 == 1 ? nplain : nall;
        for (int c = 0; c < 9; c++) {
            cols[c] = mc_column_new(reg, c % 3, c / 3, 0, 4, NULL);
            const int ground = 10 + (int)(mc_test_rand(&rng) % 40);
            for (int y = 0; y < 64; y++)
                for (int z = 0; z < 16; z++)
                    for (int x = 0; x < 16; x++) {
                        const uint64_t r = mc_test_rand(&rng) % 100;
                        uint32_t s = air;
                        if (y < ground)
                            s = r < 70 ? stone : r < 96 ? air : pick[(size_t)(r % nn)];
                        else if (r < density)
                            s = pick[(size_t)(mc_test_rand(&rng) % nn)];
                        if (s != air)
                            mc_column_set_block(cols[c], x, y, z, s);
                    }
        }
        const bool gaps = round % 3 == 2; /* some neighbours not loaded */
        const mc_column *nb[8];
        int k = 0;
        for (int c = 0; c < 9; c++)
            if (c != 4)
                nb[k++] = gaps && (mc_test_rand(&rng) & 1) ? NULL : cols[c];
        char what[64];
        snprintf(what, sizeof what, "random round %d", round);
        if (round % 2) /* every other round in a batch: the sections' rows as bits kept with them */
            assert_int_equal(mc_light_batch_begin(bits, 0), MC_OK);
        compare(bits, exact, cols[4], nb, what, a, b);
        mc_light_batch_end(bits);
        for (int c = 0; c < 9; c++)
            mc_column_free(cols[c]);
    }
    print_message("%d random rounds: bit floods == queue floods; %llu of %llu runs took the bit floods\n", rounds,
                  (unsigned long long)bits->bw.runs_bits,
                  (unsigned long long)(bits->bw.runs_bits + bits->bw.runs_queue));
    assert_true(bits->bw.runs_bits > 0);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
}

/* ---------------------------------------------------- uniform sections */

/* The section kinds test_uniform_sections puts together. */
enum { SEC_AIR, SEC_STONE, SEC_WATER, SEC_GLOWSTONE, SEC_LAVA, SEC_LIGHT1, SEC_TORCH, SEC_SLAB, SEC_STONES,
       SEC_WET, SEC_CAVES, SEC_STALE, SEC_PLAIN4, SEC_LAMPS1, SEC_COUNT };

/* Section k of col as recipe `what` (all its blocks set at once):
 * single-valued sections of plain, shining and shaped states; palettes of
 * several states of one kind (stone and deepslate; water and leaves);
 * mixed ones (caves in stone, a 4-bit palette of unshaped states, a few
 * luminance-1 blocks); and one whose palette keeps a lava entry none of
 * its blocks has any more. */
static void make_section(mc_column *col, uint32_t k, int what, const uint32_t *st, mc_test_rng *rng)
{
    mc_container *c = &mc_column_section_at(col, k)->blocks;
    static uint32_t v[MC_SECTION_BLOCKS];
    const int single[] = {[SEC_AIR] = 0, [SEC_STONE] = 1, [SEC_WATER] = 2, [SEC_GLOWSTONE] = 3, [SEC_LAVA] = 4,
                          [SEC_LIGHT1] = 5, [SEC_TORCH] = 6, [SEC_SLAB] = 7};
    if (what <= SEC_SLAB) {
        mc_container_fill(c, st[single[what]]);
        return;
    }
    for (size_t i = 0; i < MC_SECTION_BLOCKS; i++) {
        const uint64_t r = mc_test_rand(rng) % 100;
        switch (what) {
        case SEC_STONES: v[i] = r < 50 ? st[1] : st[8]; break; /* stone, deepslate */
        case SEC_WET: v[i] = r < 50 ? st[2] : st[9]; break;    /* water, leaves */
        case SEC_CAVES: case SEC_STALE: v[i] = r < 75 ? st[1] : st[0]; break;
        case SEC_PLAIN4: v[i] = st[r < 40 ? 1 : r < 70 ? 0 : r < 85 ? 2 : 10]; break; /* + glass */
        default: v[i] = r < 2 ? st[5] : r < 4 ? st[11] : r < 60 ? st[1] : st[0]; break; /* luminance 1 */
        }
    }
    assert_int_equal(mc_container_set_all(c, v), MC_OK);
    if (what == SEC_STALE) { /* a lava entry in the palette, in no block */
        const size_t i = (size_t)(mc_test_rand(rng) % MC_SECTION_BLOCKS);
        uint32_t old;
        assert_int_equal(mc_container_set(c, i, st[4], &old), MC_OK);
        assert_int_equal(mc_container_set(c, i, old, NULL), MC_OK);
        assert_true(c->palette_len >= 3);
    }
}

/* Columns of four sections each picked from the recipes above (air
 * likelier higher up), in and out of a batch, some neighbours absent:
 * bit floods == queue floods at every position. */
static void test_uniform_sections(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    static const char *const names[] = {"air", "stone", "water", "glowstone", "lava", "light[level=1]", "torch",
                                        "oak_slab[type=bottom]", "deepslate", "oak_leaves[persistent=true]",
                                        "glass", "brown_mushroom"};
    static const int luminance[12] = {0, 0, 0, 15, 15, 1, 14, 0, 0, 0, 0, 1};
    uint32_t s[12];
    for (size_t i = 0; i < 12; i++)
        s[i] = state(reg, names[i]);
    mc_test_rng rng = {0x0a11c0deu};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    const int rounds = long_run() ? 300 : 24;
    for (int round = 0; round < rounds; round++) {
        mc_column *cols[9];
        for (int c = 0; c < 9; c++) {
            cols[c] = mc_column_new(reg, c % 3, c / 3, 0, 4, NULL);
            for (uint32_t k = 0; k < 4; k++) {
                const int what = mc_test_rand(&rng) % 4 < k ? SEC_AIR : (int)(mc_test_rand(&rng) % SEC_COUNT);
                make_section(cols[c], k, what, s, &rng);
            }
        }
        const mc_column *nb[8];
        int k = 0;
        for (int c = 0; c < 9; c++)
            if (c != 4)
                nb[k++] = round % 3 == 2 && (mc_test_rand(&rng) & 1) ? NULL : cols[c];
        char what[64];
        snprintf(what, sizeof what, "uniform sections round %d", round);
        if (round % 2)
            assert_int_equal(mc_light_batch_begin(bits, 0), MC_OK);
        compare(bits, exact, cols[4], nb, what, a, b);
        mc_light_batch_end(bits);
        for (int y = 0; y < 64; y++) /* a shining block is lit at its luminance at least (both engines share the */
            for (int z = 0; z < 16; z++) /* emitter scan: this checks it) */
                for (int x = 0; x < 16; x++) {
                    const uint32_t b0 = mc_column_get_block(cols[4], x, y, z);
                    int lum = 0;
                    for (size_t i = 0; i < 12; i++)
                        lum = b0 == s[i] ? luminance[i] : lum;
                    if (mc_column_get_block_light(cols[4], x, y, z) < lum)
                        fail_msg("%s: block light at %d %d %d below the luminance %d of its block", what, 16 + x, y,
                                 16 + z, lum);
                }
        for (int c = 0; c < 9; c++)
            mc_column_free(cols[c]);
    }
    print_message("%d rounds of uniform and mixed sections: bit floods == queue floods; %llu of %llu runs took "
                  "the bit floods\n",
                  rounds, (unsigned long long)bits->bw.runs_bits,
                  (unsigned long long)(bits->bw.runs_bits + bits->bw.runs_queue));
    assert_true(bits->bw.runs_bits * 2 > bits->bw.runs_bits + bits->bw.runs_queue);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
}

/* A fresh engine in a batch, columns with nothing that shines (its
 * emitter list never allocated): lit as without a batch. */
static void test_batch_without_emitters(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    mc_column *cols[9];
    for (int c = 0; c < 9; c++) {
        cols[c] = mc_column_new(reg, c % 3, c / 3, 0, 4, NULL);
        for (int y = 0; y < 20 + c; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++)
                    mc_column_set_block(cols[c], x, y, z, state(reg, (x + z) % 5 ? "stone" : "water"));
    }
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    assert_int_equal(mc_light_batch_begin(bits, 0), MC_OK);
    compare(bits, exact, cols[4], nb, "batch without emitters", a, b);
    mc_light_batch_end(bits);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

/* Nine columns of 4 sections (the centre is cols[4]), stone up to
 * `height`, air above. */
static void stone_grid(const mc_registry *reg, uint32_t stone, int height, mc_column *cols[9])
{
    for (int c = 0; c < 9; c++) {
        cols[c] = mc_column_new(reg, c % 3, c / 3, 0, 4, NULL);
        for (int y = 0; y < height; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++)
                    mc_column_set_block(cols[c], x, y, z, stone);
    }
}

/* Sky light that reaches the centre column from the farthest block it can
 * come from: a shaft at distance 14 in the corner neighbour (local x -1,
 * z -13) and a tunnel of 14 steps to the centre column's (0, 10, 0),
 * which gets 1; the same from the opposite corner (local x 16, z 28) to
 * (15, 8, 15) (lower: the band must reach down to it); and a lamp at
 * distance 14 likewise. */
static void test_at_the_reach(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    const uint32_t stone = state(reg, "stone"), air = mc_registry_air(reg);
    mc_column *cols[9];
    stone_grid(reg, stone, 40, cols);
    for (int y = 10; y < 40; y++) /* the shaft: corner column (0), local x -1, z -13 */
        mc_column_set_block(cols[0], 15, y, 3, air);
    mc_column_set_block(cols[1], 0, 10, 3, air); /* the tunnel: local x 0, z -13 .. -1 */
    for (int z = 3; z < 16; z++)
        mc_column_set_block(cols[1], 0, 10, z, air);
    mc_column_set_block(cols[4], 0, 10, 0, air);
    for (int y = 8; y < 40; y++) /* the same the other way: corner column (8), local x 16, z 28 */
        mc_column_set_block(cols[8], 0, y, 12, air);
    for (int z = 0; z <= 12; z++) /* its tunnel: local x 15, z 28 .. 16 */
        mc_column_set_block(cols[7], 15, 8, z, air);
    mc_column_set_block(cols[4], 15, 8, 15, air);
    /* a lamp 14 away on the other side: local x 16 + 13, z 0 (no: 13 + 1 = 14) */
    mc_column_set_block(cols[5], 13, 20, 0, state(reg, "redstone_lamp[lit=true]"));
    for (int x = 0; x < 13; x++)
        mc_column_set_block(cols[5], x, 20, 0, air);
    mc_column_set_block(cols[4], 15, 20, 0, air);
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    compare(bits, exact, cols[4], nb, "at the reach", a, b);
    assert_int_equal(mc_column_get_sky_light(cols[4], 0, 10, 0), 1);
    assert_int_equal(mc_column_get_sky_light(cols[4], 15, 8, 15), 1);
    assert_int_equal(mc_column_get_block_light(cols[4], 15, 20, 0), 1);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

/* A layer's rows are made a column row (dz) at a time, when a flood
 * comes to them: an enchanting table (luminance 7; its shape covers its
 * down face) in a pocket of the north neighbour, far below the sky band,
 * with a tunnel from the block under it into the centre column. Its light
 * must not go down through that face (the tunnel stays dark, not 4),
 * which the step of the layer below sees only if the table's row of its
 * layer was made when it was put in. */
static void test_shaped_emitter_rows(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    const uint32_t stone = state(reg, "stone"), air = mc_registry_air(reg);
    mc_column *cols[9];
    stone_grid(reg, stone, 40, cols);
    mc_column_set_block(cols[1], 7, 20, 14, state(reg, "enchanting_table")); /* local x 7, z -2 */
    for (int z = 14; z < 16; z++) /* the tunnel under it: local z -2 .. 3 */
        mc_column_set_block(cols[1], 7, 19, z, air);
    for (int z = 0; z < 4; z++)
        mc_column_set_block(cols[4], 7, 19, z, air);
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    compare(bits, exact, cols[4], nb, "shaped emitter", a, b);
    assert_int_equal(mc_column_get_block_light(cols[4], 7, 19, 0), 0);
    assert_true(bits->bw.runs_bits > 0 && bits->bw.runs_queue == 0);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

/* No state of any registry has opacity 2..14 today; a run holding one
 * must go to the queue floods. Glass is made opacity 7 in both engines'
 * tables (kind 7, a plain kind): a glass box round a torch and a glass
 * roof over a pit, lit alike by both, and the bit engine fell back. */
static void force_kind(mc_light_engine *e, const mc_registry *reg, uint32_t s, uint8_t kind)
{
    for (unsigned i = 0; i < e->ntabs; i++)
        if (e->tabs[i].reg == reg)
            e->tabs[i].kind[s] = kind;
}

static void test_opacity_2_to_14(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    const uint32_t stone = state(reg, "stone"), glass = state(reg, "glass"), air = mc_registry_air(reg);
    mc_column *cols[9];
    stone_grid(reg, stone, 30, cols);
    for (int y = 5; y < 30; y++) /* a pit under a glass roof, a torch in a glass box beside it */
        for (int z = 2; z < 14; z++)
            for (int x = 2; x < 14; x++)
                mc_column_set_block(cols[4], x, y, z, y == 29 ? glass : air);
    for (int y = 8; y < 13; y++)
        for (int z = 4; z < 9; z++)
            for (int x = 4; x < 9; x++)
                mc_column_set_block(cols[4], x, y, z, glass);
    mc_column_set_block(cols[4], 6, 10, 6, state(reg, "torch"));
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    compare(bits, exact, cols[4], nb, "glass as it is", a, b); /* builds the tables */
    force_kind(bits, reg, glass, 7);
    force_kind(exact, reg, glass, 7);
    const uint64_t queue_runs = bits->bw.runs_queue;
    compare(bits, exact, cols[4], nb, "glass of opacity 7", a, b);
    assert_true(bits->bw.runs_queue > queue_runs);
    assert_int_equal(mc_column_get_block_light(cols[4], 6, 10, 7), 14 - 7); /* the glass next to the torch */
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

/* Layers are made only when a flood comes near them: an opacity-7 block
 * (glass altered as above) sealed in stone where no light comes leaves
 * the run to the bit floods; one that only block light reaches, after the
 * run's sky flood is done, sends the run to the queue floods half way;
 * both lit as the queue floods light them. */
static void test_opacity_unreached(void **st)
{
    (void)st;
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg)
        skip();
    const uint32_t stone = state(reg, "stone"), glass = state(reg, "glass"), air = mc_registry_air(reg);
    mc_column *cols[9];
    stone_grid(reg, stone, 30, cols);
    mc_column_set_block(cols[4], 7, 22, 7, glass); /* sealed: in the sky band's rows, reached by nothing */
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *bits = engine(false), *exact = engine(true);
    uint8_t *a = malloc((4 * 2 + 4) * MC_LIGHT_BYTES), *b = malloc((4 * 2 + 4) * MC_LIGHT_BYTES);
    compare(bits, exact, cols[4], nb, "sealed glass as it is", a, b); /* builds the tables */
    force_kind(bits, reg, glass, 7);
    force_kind(exact, reg, glass, 7);
    uint64_t queue_runs = bits->bw.runs_queue;
    compare(bits, exact, cols[4], nb, "sealed glass of opacity 7", a, b);
    assert_true(bits->bw.runs_queue == queue_runs);
    for (int y = 16; y < 22; y++) /* a pocket under the glass with a torch at its bottom */
        mc_column_set_block(cols[4], 7, y, 7, air);
    mc_column_set_block(cols[4], 7, 16, 7, state(reg, "torch"));
    queue_runs = bits->bw.runs_queue;
    compare(bits, exact, cols[4], nb, "glass of opacity 7 over a torch", a, b);
    assert_true(bits->bw.runs_queue > queue_runs);
    assert_int_equal(mc_column_get_block_light(cols[4], 7, 22, 7), 14 - 5 - 7);
    free(a);
    free(b);
    mc_light_engine_free(bits);
    mc_light_engine_free(exact);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_without_emitters),
        cmocka_unit_test(test_at_the_reach),
        cmocka_unit_test(test_shaped_emitter_rows),
        cmocka_unit_test(test_opacity_2_to_14),
        cmocka_unit_test(test_opacity_unreached),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_uniform_sections),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
