/*
 * test_light.c: the light engine on worlds built by hand, where the right
 * answer is known: a torch in a dark box (14 - Manhattan distance), sky
 * light under an overhang and down a shaft, light crossing chunk borders
 * both ways, the state rules (lit furnace, pickles, candles, waterlogged,
 * slabs), mc_light_update after random edits (a torch taken away, a
 * roof opened, stone dropped in a shaft) equal to a full relight, and
 * batches (mc_light_batch_begin) equal to single calls, and light
 * blocks of every luminance in the neighbours at the edge of their reach.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/mcchunk.h"

static const mc_registry *reg_or_skip(void)
{
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg) {
        print_message("registry 1.21.4 not available: skipping\n");
        skip();
    }
    return reg;
}

static uint32_t state(const mc_registry *reg, const char *text)
{
    uint32_t s;
    mc_error err;
    assert_int_equal(mc_registry_parse_state(reg, text, strlen(text), &s, &err), MC_OK);
    return s;
}

static void fill(mc_column *col, int x0, int y0, int z0, int x1, int y1, int z1, uint32_t s)
{
    for (int y = y0; y <= y1; y++)
        for (int z = z0; z <= z1; z++)
            for (int x = x0; x <= x1; x++)
                assert_int_equal(mc_column_set_block(col, x, y, z, s), MC_OK);
}

static int iabs(int v)
{
    return v < 0 ? -v : v;
}

static void test_torch_in_dark_box(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    fill(col, 0, 30, 0, 15, 100, 15, state(reg, "stone"));
    fill(col, 0, 50, 0, 15, 80, 15, mc_registry_air(reg)); /* the box: walls are the absent neighbours */
    assert_int_equal(mc_column_set_block(col, 8, 64, 8, state(reg, "torch")), MC_OK);
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    assert_int_equal(mc_light_column(e, col, NULL, MC_LIGHT_BOTH, &err), MC_OK);
    for (int y = 50; y <= 80; y++)
        for (int z = 0; z < 16; z++)
            for (int x = 0; x < 16; x++) {
                int d = iabs(x - 8) + iabs(y - 64) + iabs(z - 8);
                assert_int_equal(mc_column_get_block_light(col, x, y, z), d >= 14 ? 0 : 14 - d);
                assert_int_equal(mc_column_get_sky_light(col, x, y, z), 0);
            }
    /* stone around the box stays dark; the open sky above is 15 */
    assert_int_equal(mc_column_get_block_light(col, 8, 49, 8), 0);
    assert_int_equal(mc_column_get_sky_light(col, 8, 101, 8), 15);
    assert_int_equal(mc_column_get_sky_light(col, 8, 319, 8), 15);
    assert_int_equal(mc_light_emission(e, reg, state(reg, "torch")), 14);
    mc_light_engine_free(e);
    mc_column_free(col);
}

static void test_sky_overhang_and_shaft(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    uint32_t stone = state(reg, "stone");
    fill(col, 0, -64, 0, 15, 60, 15, stone);           /* the ground */
    fill(col, 0, 100, 0, 7, 100, 15, stone);           /* an overhang over x 0..7 */
    fill(col, 0, 20, 0, 15, 40, 15, mc_registry_air(reg)); /* a cave ... */
    fill(col, 0, 41, 0, 15, 60, 15, stone);
    fill(col, 12, 41, 12, 12, 60, 12, mc_registry_air(reg)); /* ... reached by a 1x1 shaft */
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    assert_int_equal(mc_light_column(e, col, NULL, MC_LIGHT_SKY, &err), MC_OK);
    for (int y = 61; y <= 99; y++)
        for (int x = 0; x < 16; x++)
            assert_int_equal(mc_column_get_sky_light(col, x, y, 3), x >= 8 ? 15 : 15 - (8 - x));
    assert_int_equal(mc_column_get_sky_light(col, 3, 101, 3), 15);
    assert_int_equal(mc_column_get_sky_light(col, 3, 100, 3), 0);
    /* straight down the shaft at 15, then spreading in the cave */
    for (int y = 41; y <= 60; y++)
        assert_int_equal(mc_column_get_sky_light(col, 12, y, 12), 15);
    assert_int_equal(mc_column_get_sky_light(col, 12, 20, 12), 15);
    assert_int_equal(mc_column_get_sky_light(col, 10, 40, 12), 13);
    assert_int_equal(mc_column_get_sky_light(col, 2, 30, 2), 0); /* 20 steps from the lit column under the shaft */
    assert_int_equal(mc_column_get_sky_light(col, 6, 40, 12), 9);
    assert_null(mc_column_section(col, -4)->block_light); /* block light not asked for */
    /* the edge sections: open sky above, darkness below the bedrock-less ground */
    uint8_t above[MC_LIGHT_BYTES], below[MC_LIGHT_BYTES];
    assert_true(mc_light_edges(e, below, above, NULL, NULL));
    assert_int_equal(mc_light_get(above, 0), 15);
    assert_int_equal(mc_light_get(below, 4095), 0);
    assert_false(mc_light_edges(e, NULL, NULL, below, NULL));
    mc_light_engine_free(e);
    mc_column_free(col);
}

/* col at (0,0) and its +x neighbour nb at (1,0). */
static void test_across_chunk_borders(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *a = mc_column_new(reg, 0, 0, -4, 24, NULL), *b = mc_column_new(reg, 1, 0, -4, 24, NULL);
    uint32_t stone = state(reg, "stone");
    fill(a, 0, 100, 0, 15, 100, 15, stone); /* a roof over a only */
    fill(a, 0, 50, 0, 15, 50, 15, stone);
    fill(b, 0, 50, 0, 15, 50, 15, stone);
    assert_int_equal(mc_column_set_block(b, 1, 60, 8, state(reg, "glowstone")), MC_OK);
    const mc_column *nb_a[8] = {NULL, NULL, NULL, NULL, b, NULL, NULL, NULL};
    const mc_column *nb_b[8] = {NULL, NULL, NULL, a, NULL, NULL, NULL, NULL};
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    assert_int_equal(mc_light_column(e, a, nb_a, MC_LIGHT_BOTH, &err), MC_OK);
    assert_int_equal(mc_light_column(e, b, nb_b, MC_LIGHT_BOTH, &err), MC_OK);
    for (int x = 0; x < 16; x++) {
        /* glowstone (15) at b's x 1 = a's x 17 */
        int d = 17 - x;
        assert_int_equal(mc_column_get_block_light(a, x, 60, 8), d >= 15 ? 0 : 15 - d);
        /* sky comes in sideways under a's roof from the open b */
        assert_int_equal(mc_column_get_sky_light(a, x, 70, 3), x == 0 ? 0 : 15 - (16 - x));
        assert_int_equal(mc_column_get_sky_light(b, x, 70, 3), 15);
    }
    assert_int_equal(mc_column_get_block_light(b, 1, 60, 8), 15);
    assert_int_equal(mc_column_get_block_light(b, 1, 61, 8), 14);
    /* without the neighbour, nothing comes in */
    assert_int_equal(mc_light_column(e, a, NULL, MC_LIGHT_BOTH, &err), MC_OK);
    assert_int_equal(mc_column_get_block_light(a, 15, 60, 8), 0);
    assert_int_equal(mc_column_get_sky_light(a, 15, 70, 3), 0);
    mc_light_engine_free(e);
    mc_column_free(a);
    mc_column_free(b);
}

static void test_state_rules(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_light_engine *e = mc_light_engine_new(NULL);
    static const struct { const char *state; unsigned emit, opacity; } cases[] = {
        {"air", 0, 0}, {"glass", 0, 0}, {"stone", 0, 15}, {"water", 0, 1}, {"ice", 0, 1},
        {"oak_leaves", 0, 1}, {"torch", 14, 0}, {"lava", 15, 1}, {"glowstone", 15, 15},
        {"redstone_ore[lit=true]", 9, 15}, {"redstone_ore[lit=false]", 0, 15},
        {"furnace[lit=true]", 13, 15}, {"furnace[lit=false]", 0, 15},
        {"sea_pickle[pickles=4,waterlogged=true]", 15, 1}, {"sea_pickle[pickles=2,waterlogged=false]", 0, 1},
        {"candle[candles=3,lit=true]", 9, 0}, {"candle[candles=3,lit=false]", 0, 0},
        {"light[level=5]", 5, 0}, {"respawn_anchor[charges=2]", 7, 15},
        {"cave_vines[berries=true]", 14, 0}, {"cave_vines[berries=false]", 0, 0},
        {"oak_slab[type=double]", 0, 15}, {"oak_slab[type=bottom,waterlogged=false]", 0, 0},
        {"oak_slab[type=bottom,waterlogged=true]", 0, 1}, {"oak_stairs[waterlogged=true]", 0, 1},
        {"snow[layers=8]", 0, 15}, {"snow[layers=1]", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t s = state(reg, cases[i].state);
        if (mc_light_emission(e, reg, s) != cases[i].emit || mc_light_opacity(e, reg, s) != cases[i].opacity)
            fail_msg("%s: emission %u opacity %u, want %u %u", cases[i].state, mc_light_emission(e, reg, s),
                     mc_light_opacity(e, reg, s), cases[i].emit, cases[i].opacity);
    }
    /* a legacy registry goes through 1.13 */
    const mc_registry *old = mc_registry_find("1.12.2");
    if (old) {
        uint32_t torch = state(old, "torch[meta=5]"); /* standing torch */
        assert_int_equal(mc_light_emission(e, old, torch), 14);
    }
    mc_light_engine_free(e);
}

/* A bottom slab lets light in from above and stops it going down. */
static void test_slab_faces(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    fill(col, 0, 0, 0, 15, 0, 15, state(reg, "oak_slab[type=bottom]"));
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    assert_int_equal(mc_light_column(e, col, NULL, MC_LIGHT_SKY, &err), MC_OK);
    assert_int_equal(mc_column_get_sky_light(col, 5, 0, 5), 15);
    assert_int_equal(mc_column_get_sky_light(col, 5, -1, 5), 0);
    mc_light_engine_free(e);
    mc_column_free(col);
}

static void save(mc_column *c, uint8_t *out)
{
    for (uint32_t k = 0; k < mc_column_section_count(c); k++) {
        const mc_section *s = mc_column_section_at(c, k);
        memcpy(out + 2 * k * MC_LIGHT_BYTES, s->sky_light, MC_LIGHT_BYTES);
        memcpy(out + (2 * k + 1) * MC_LIGHT_BYTES, s->block_light, MC_LIGHT_BYTES);
    }
}

/* The neighbours of column q of a 3x3 set (NULL outside the set). */
static void neighbours_of(mc_column *cols[9], int q, const mc_column *nb[8])
{
    int k = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dx = -1; dx <= 1; dx++) {
            if (!dx && !dz)
                continue;
            int x = q % 3 + dx, z = q / 3 + dz;
            nb[k++] = x >= 0 && x < 3 && z >= 0 && z < 3 ? cols[z * 3 + x] : NULL;
        }
}

static void test_update_equals_full(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    const uint32_t pick[] = {state(reg, "stone"), state(reg, "glass"), state(reg, "water"), state(reg, "torch"),
                             state(reg, "oak_leaves"), state(reg, "glowstone"), mc_registry_air(reg),
                             state(reg, "oak_slab[type=top]")};
    mc_column *cols[9];
    const mc_column *nb[8];
    mc_test_rng rng = {0x5eed};
    for (int i = 0; i < 9; i++) {
        cols[i] = mc_column_new(reg, i % 3 - 1, i / 3 - 1, 0, 8, NULL); /* 128 blocks high */
        for (int y = 0; y < 100; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++) {
                    uint64_t r = mc_test_rand(&rng) % 100;
                    uint32_t s = y < 16 ? (r < 75 ? pick[0] : r < 97 ? pick[6] : pick[3])
                                        : (r < 6 ? pick[r % 8] : pick[6]);
                    mc_column_set_block(cols[i], x, y, z, s);
                }
    }
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    for (int q = 0; q < 9; q++) {
        neighbours_of(cols, q, nb);
        assert_int_equal(mc_light_column(e, cols[q], nb, MC_LIGHT_BOTH, &err), MC_OK);
    }
    const size_t bytes = 2 * 8 * MC_LIGHT_BYTES;
    uint8_t *inc = malloc(bytes), *full = malloc(bytes);
    unsigned changed = 0;
    for (int round = 0; round < 40; round++) {
        int c = round % 2 ? 4 : (int)(mc_test_rand(&rng) % 9); /* the edited column */
        mc_column *col = cols[c];
        int x = (int)(mc_test_rand(&rng) % 16), y = (int)(mc_test_rand(&rng) % 110), z = (int)(mc_test_rand(&rng) % 16);
        int w = round % 3 == 0 ? 3 : 0; /* some boxes of 4x4x4, most single blocks */
        if (x + w > 15)
            x = 15 - w;
        if (z + w > 15)
            z = 15 - w;
        int y1 = y + w;
        if (round == 7 || round == 9) { /* a roof over the centre, then taken away */
            c = 4, col = cols[4], x = 0, y = y1 = 105, z = 0, w = 15;
            fill(col, 0, 105, 0, 15, 105, 15, pick[round == 7 ? 0 : 6]);
        } else {
            for (int dy = 0; dy <= w; dy++)
                for (int dz = 0; dz <= w; dz++)
                    for (int dx = 0; dx <= w; dx++)
                        mc_column_set_block(col, x + dx, y + dy, z + dz, pick[mc_test_rand(&rng) % 8]);
        }
        /* every column near the box, the box given relative to it */
        for (int q = 0; q < 9; q++) {
            int ox = (c % 3 - q % 3) * 16, oz = (c / 3 - q / 3) * 16;
            if (ox < -16 || ox > 16 || oz < -16 || oz > 16)
                continue; /* two columns away: more than 15 blocks */
            neighbours_of(cols, q, nb);
            assert_int_equal(mc_light_update(e, cols[q], nb, x + ox, y, z + oz, x + w + ox, y1, z + w + oz,
                                             MC_LIGHT_BOTH, &err), MC_OK);
        }
        for (int q = 0; q < 9; q++) {
            neighbours_of(cols, q, nb);
            save(cols[q], inc);
            assert_int_equal(mc_light_column(e, cols[q], nb, MC_LIGHT_BOTH, &err), MC_OK);
            save(cols[q], full);
            if (memcmp(inc, full, bytes) == 0)
                continue;
            for (size_t arr = 0; arr < 16; arr++)
                for (unsigned idx = 0; idx < 4096; idx++) {
                    unsigned a = mc_light_get(inc + arr * MC_LIGHT_BYTES, idx);
                    unsigned b = mc_light_get(full + arr * MC_LIGHT_BYTES, idx);
                    if (a != b)
                        fail_msg("round %d (column %d, box %d %d %d +%d), column %d: %s light at section %zu "
                                 "index %u: update %u, full %u",
                                 round, c, x, y, z, w, q, arr % 2 ? "block" : "sky", arr / 2, idx, a, b);
                }
            fail_msg("round %d: the arrays differ", round);
        }
        changed++;
    }
    assert_int_equal(changed, 40);
    /* a torch placed and taken away: the update leaves no trace of it */
    mc_column *col = cols[4];
    fill(col, 0, 0, 0, 15, 127, 15, pick[0]);
    fill(col, 2, 60, 2, 12, 70, 12, pick[6]);
    assert_int_equal(mc_light_column(e, col, NULL, MC_LIGHT_BOTH, &err), MC_OK);
    assert_int_equal(mc_column_set_block(col, 7, 65, 7, pick[3]), MC_OK);
    assert_int_equal(mc_light_update(e, col, NULL, 7, 65, 7, 7, 65, 7, MC_LIGHT_BOTH, &err), MC_OK);
    assert_int_equal(mc_column_get_block_light(col, 7, 65, 10), 11);
    assert_int_equal(mc_column_set_block(col, 7, 65, 7, pick[6]), MC_OK);
    assert_int_equal(mc_light_update(e, col, NULL, 7, 65, 7, 7, 65, 7, MC_LIGHT_BOTH, &err), MC_OK);
    for (int y = 60; y <= 70; y++)
        for (int z = 2; z <= 12; z++)
            for (int x = 2; x <= 12; x++)
                assert_int_equal(mc_column_get_block_light(col, x, y, z), 0);
    assert_int_equal(mc_light_update(e, col, NULL, 7, 500, 7, 7, 500, 7, MC_LIGHT_BOTH, &err), MC_ERR_RANGE);
    assert_int_equal(mc_light_update(e, col, NULL, 40, 65, 7, 40, 65, 7, MC_LIGHT_BOTH, &err), MC_ERR_RANGE);
    free(inc);
    free(full);
    mc_light_engine_free(e);
    for (int i = 0; i < 9; i++)
        mc_column_free(cols[i]);
}

/* Light blocks of every luminance (1..15) at random places in the eight
 * neighbours of an air column, many at the edge of their reach: every
 * block of the centre column has max(0, luminance - Manhattan distance)
 * over them, in single calls and in a batch (whose per-column lists of
 * shining blocks are made without the distance screen of single calls). */
static void test_emitters_at_their_reach(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *cols[9];
    for (int c = 0; c < 9; c++)
        cols[c] = mc_column_new(reg, c % 3, c / 3, 0, 3, NULL);
    struct {
        int x, y, z, level; /* x, z local to the centre column */
    } em[120];
    mc_test_rng rng = {0x11947};
    int n = 0;
    while (n < 120) {
        const int c = (int)(mc_test_rand(&rng) % 9), x = (int)(mc_test_rand(&rng) % 16);
        const int z = (int)(mc_test_rand(&rng) % 16), y = 16 + (int)(mc_test_rand(&rng) % 16);
        const int lx = (c % 3 - 1) * 16 + x, lz = (c / 3 - 1) * 16 + z;
        const int dx = lx < 0 ? -lx : lx > 15 ? lx - 15 : 0, dz = lz < 0 ? -lz : lz > 15 ? lz - 15 : 0;
        if (c == 4 || dx + dz > 14)
            continue; /* the centre's own, or too far for any */
        /* a luminance just above, at or below the distance to the centre */
        int level = dx + dz + (int)(mc_test_rand(&rng) % 3);
        level = level < 1 ? 1 : level > 15 ? 15 : level;
        char text[32];
        snprintf(text, sizeof text, "light[level=%d]", level);
        assert_int_equal(mc_column_set_block(cols[c], x, y, z, state(reg, text)), MC_OK);
        em[n].x = lx, em[n].y = y, em[n].z = lz, em[n].level = level;
        n++;
    }
    const mc_column *nb[8] = {cols[0], cols[1], cols[2], cols[3], cols[5], cols[6], cols[7], cols[8]};
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            assert_int_equal(mc_light_batch_begin(e, 0), MC_OK);
        assert_int_equal(mc_light_column(e, cols[4], nb, MC_LIGHT_BLOCK, &err), MC_OK);
        for (int y = 0; y < 48; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++) {
                    int want = 0;
                    for (int k = 0; k < n; k++) {
                        const int v = em[k].level - iabs(em[k].x - x) - iabs(em[k].y - y) - iabs(em[k].z - z);
                        want = v > want ? v : want;
                    }
                    assert_int_equal(mc_column_get_block_light(cols[4], x, y, z), want);
                }
        mc_light_batch_end(e);
    }
    mc_light_engine_free(e);
    for (int c = 0; c < 9; c++)
        mc_column_free(cols[c]);
}

/* Random terrain in a 5x5 set of 3-section columns: stone below 16 with
 * air pockets and torches, glass, water, leaves, glowstone and top slabs
 * above it, up to 44. */
static void random_columns(const mc_registry *reg, mc_column *cols[25], mc_test_rng *rng)
{
    const uint32_t pick[] = {state(reg, "stone"), state(reg, "glass"), state(reg, "water"), state(reg, "torch"),
                             state(reg, "oak_leaves"), state(reg, "glowstone"), mc_registry_air(reg),
                             state(reg, "oak_slab[type=top]")};
    for (int i = 0; i < 25; i++) {
        cols[i] = mc_column_new(reg, i % 5, i / 5, 0, 3, NULL);
        for (int y = 0; y < 44; y++)
            for (int z = 0; z < 16; z++)
                for (int x = 0; x < 16; x++) {
                    uint64_t r = mc_test_rand(rng) % 100;
                    uint32_t s = y < 16 ? (r < 75 ? pick[0] : r < 97 ? pick[6] : pick[3])
                                        : (r < 6 ? pick[r % 8] : pick[6]);
                    mc_column_set_block(cols[i], x, y, z, s);
                }
    }
}

/* Lights every column of the 5x5 set (outside it: not loaded), row by
 * row, into out (25 columns of 6 arrays). */
static void light_all(mc_light_engine *e, mc_column *cols[25], uint8_t *out)
{
    mc_error err;
    for (int q = 0; q < 25; q++) {
        const mc_column *nb[8];
        int k = 0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = q % 5 + dx, z = q / 5 + dz;
                if (dx || dz)
                    nb[k++] = x >= 0 && x < 5 && z >= 0 && z < 5 ? cols[z * 5 + x] : NULL;
            }
        assert_int_equal(mc_light_column(e, cols[q], nb, MC_LIGHT_BOTH, &err), MC_OK);
        save(cols[q], out + (size_t)q * 6 * MC_LIGHT_BYTES);
    }
}

/* A batch (what the engine kept of each column used again) gives the
 * light of single calls, also when it has to give columns up (16 entries
 * for 25 columns), for a column with too many shining blocks to keep, and
 * after a column is forgotten and changed. */
static void test_batch_equals_single(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *cols[25];
    mc_test_rng rng = {0xba7c4};
    random_columns(reg, cols, &rng);
    fill(cols[6], 0, 20, 0, 15, 39, 15, state(reg, "glowstone")); /* 5120 shine: more than a batch keeps */
    const size_t bytes = 25 * 6 * MC_LIGHT_BYTES;
    uint8_t *single = malloc(bytes), *batch = malloc(bytes);
    mc_light_engine *e = mc_light_engine_new(NULL), *one = mc_light_engine_new(NULL);
    light_all(one, cols, single);
    assert_int_equal(mc_light_batch_begin(e, 16), MC_OK);
    light_all(e, cols, batch);
    assert_memory_equal(batch, single, bytes);
    mc_light_batch_end(e);
    /* inside a batch, the centre column changed: a glowstone in a stone box
     * and a roof. Forgotten first, it is read again. */
    assert_int_equal(mc_light_batch_begin(e, 0), MC_OK);
    light_all(e, cols, batch);
    mc_column *mid = cols[12];
    mc_light_forget(e, mid);
    fill(mid, 0, 46, 0, 15, 46, 15, state(reg, "stone"));
    fill(mid, 4, 28, 4, 10, 34, 10, state(reg, "stone"));
    fill(mid, 5, 29, 5, 9, 33, 9, mc_registry_air(reg));
    assert_int_equal(mc_column_set_block(mid, 7, 31, 7, state(reg, "glowstone")), MC_OK);
    light_all(e, cols, batch);
    light_all(one, cols, single);
    assert_memory_equal(batch, single, bytes);
    assert_int_equal(mc_column_get_block_light(mid, 7, 31, 9), 13);
    /* not forgotten, a change is not seen (the batch did keep the blocks):
     * the box opened again, lit in the batch, still reads as closed */
    fill(mid, 4, 28, 4, 10, 34, 10, mc_registry_air(reg));
    fill(mid, 0, 46, 0, 15, 46, 15, mc_registry_air(reg));
    light_all(e, cols, batch);
    light_all(one, cols, single);
    assert_true(memcmp(batch, single, bytes) != 0);
    mc_light_batch_end(e);
    light_all(e, cols, batch); /* no batch: read afresh */
    assert_memory_equal(batch, single, bytes);
    free(single);
    free(batch);
    mc_light_engine_free(e);
    mc_light_engine_free(one);
    for (int i = 0; i < 25; i++)
        mc_column_free(cols[i]);
}

/* An allocator that counts: blocks out now (and their bytes), and the
 * allocations of kind-array size (5 KB: a section's 4096 kinds and its
 * bit floods' rows, MC__SLICE_BYTES in light_private.h). */
typedef struct counting {
    size_t out, bytes, kind_arrays;
} counting;

static void *count_alloc(void *user, size_t size)
{
    counting *c = user;
    c->out++;
    c->bytes += size;
    c->kind_arrays += size == 4096 + 2 * 256 * sizeof(uint16_t);
    return malloc(size);
}

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counting *c = user;
    c->out += ptr == NULL;
    c->bytes += new_size - old_size;
    return realloc(ptr, new_size);
}

static void count_free(void *user, void *ptr, size_t size)
{
    counting *c = user;
    if (!ptr)
        return;
    c->out--;
    c->bytes -= size;
    free(ptr);
}

/* A batch's kind arrays are kept by the engine for the next batch (not
 * freed at its end and allocated again, which made the next batch write
 * fresh pages): a second batch over the same columns allocates none, gives
 * the light of single calls, and mc_light_engine_free gives every block
 * back. */
static void test_batch_keeps_arrays(void **st)
{
    (void)st;
    const mc_registry *reg = reg_or_skip();
    mc_column *cols[25];
    mc_test_rng rng = {0x5ba4e};
    random_columns(reg, cols, &rng);
    const size_t bytes = 25 * 6 * MC_LIGHT_BYTES;
    uint8_t *single = malloc(bytes), *batch = malloc(bytes);
    mc_light_engine *one = mc_light_engine_new(NULL);
    light_all(one, cols, single);
    counting cnt = {0};
    const mc_allocator a = {count_alloc, count_realloc, count_free, &cnt};
    mc_light_engine *e = mc_light_engine_new(&a);
    for (int pass = 0; pass < 2; pass++) {
        const size_t before = cnt.kind_arrays;
        assert_int_equal(mc_light_batch_begin(e, 16), MC_OK);
        light_all(e, cols, batch);
        mc_light_batch_end(e);
        assert_memory_equal(batch, single, bytes);
        if (pass == 0)
            assert_true(cnt.kind_arrays > before + 25); /* some for each column */
        else
            assert_int_equal(cnt.kind_arrays, before);
    }
    mc_light_engine_free(e);
    assert_int_equal(cnt.out, 0);
    assert_int_equal(cnt.bytes, 0);
    free(single);
    free(batch);
    mc_light_engine_free(one);
    for (int i = 0; i < 25; i++)
        mc_column_free(cols[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torch_in_dark_box),     cmocka_unit_test(test_sky_overhang_and_shaft),
        cmocka_unit_test(test_across_chunk_borders),  cmocka_unit_test(test_state_rules),
        cmocka_unit_test(test_slab_faces),            cmocka_unit_test(test_update_equals_full),
        cmocka_unit_test(test_batch_equals_single),   cmocka_unit_test(test_emitters_at_their_reach),
        cmocka_unit_test(test_batch_keeps_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
