/*
 * test_map_render.c: the map renderer (programs/mcchunk/map) against the
 * blocks of real region files, column by column.
 *
 * For random columns (400 per region; 5,000 with MCCHUNK_LONG=1) of corpus
 * regions of several versions, the expected
 * pixel is worked out here from the chunk alone, by a different path than
 * the renderer's: the chunk read whole (mc_chunknbt_read_bytes, default
 * options), the top visible block found with mc_column_get_block walking
 * down, its colour from mc_registry_state_color, tinted by the biome of
 * that block (mc_column_get_biome, mc_registry_biome_colors), and shaded by
 * the height step to the columns north and west (map.h's formula). Where
 * that block is opaque the pixel must equal it exactly; where it is
 * translucent the pixel must be visible and not opaque-free (alpha > 0).
 * Columns without visible blocks and absent chunks must be transparent.
 * Wrong coordinates, a wrong top block, a missing tint or shade each change
 * the exact pixels.
 *
 * Columns made by a function (map_reader_new_columns, the server's
 * built-in world) are drawn as those read from a file: the same chunks
 * handed over one by one give the same region, byte for byte (normal and
 * light modes); a chunk the function does not give is transparent.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "mcchunk/mcchunk.h"

typedef struct world_case {
    const char *file;
    unsigned min_exact; /* opaque columns that must be checked exactly */
} world_case;

/* What the test reads: columns of the one region file, by local chunk. */
typedef struct chunk_cache {
    mc_region *region;
    int32_t rx, rz;
    mc_column *cols[1024];
    bool tried[1024];
} chunk_cache;

static const mc_column *chunk_at(chunk_cache *c, int32_t cx, int32_t cz)
{
    if ((cx >> 5) != c->rx || (cz >> 5) != c->rz)
        return NULL; /* the neighbouring region has no file here */
    int i = (cz & 31) * 32 + (cx & 31);
    if (!c->tried[i]) {
        c->tried[i] = true;
        if (mc_region_has_chunk(c->region, cx & 31, cz & 31)) {
            mc_buf nbt;
            mc_buf_init(&nbt, NULL);
            mc_error err;
            assert_int_equal(mc_region_read_chunk(c->region, cx & 31, cz & 31, &nbt, NULL, &err), MC_OK);
            if (mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &c->cols[i], &err) != MC_OK)
                fail_msg("chunk %d %d: %s", cx, cz, err.message);
            mc_buf_free(&nbt);
        }
    }
    return c->cols[i];
}

/* The top visible block of world column (x, z): its y, or INT32_MIN. */
static int32_t top_visible(const mc_column *col, int32_t x, int32_t z)
{
    const mc_registry *reg = mc_column_registry(col);
    int32_t bottom = mc_column_min_y(col);
    for (int32_t y = bottom + (int32_t)mc_column_height(col) - 1; y >= bottom; y--)
        if (mc_registry_state_color(reg, mc_column_get_block(col, x, y, z)).a > 0)
            return y;
    return INT32_MIN;
}

/* map.h's height: the highest block that blocks motion or holds a fluid,
 * else the top visible block; MAP_NO_HEIGHT when none or no chunk. */
static int height_at(chunk_cache *c, int32_t x, int32_t z)
{
    const mc_column *col = chunk_at(c, x >> 4, z >> 4);
    if (!col)
        return MAP_NO_HEIGHT;
    const mc_registry *reg = mc_column_registry(col);
    int32_t bottom = mc_column_min_y(col);
    for (int32_t y = bottom + (int32_t)mc_column_height(col) - 1; y >= bottom; y--) {
        uint32_t s = mc_column_get_block(col, x, y, z);
        if (mc_registry_state_color(reg, s).a > 0 &&
            (mc_registry_state_flags(reg, s) & (MC_STATE_BLOCKS_MOTION | MC_STATE_FLUID)))
            return y;
    }
    int32_t top = top_visible(col, x, z);
    return top == INT32_MIN ? MAP_NO_HEIGHT : top;
}

static uint8_t shade_channel(uint8_t c, int step)
{
    unsigned v = (c * (unsigned)(220 + 9 * step) + 110) / 220;
    return (uint8_t)(v > 255 ? 255 : v);
}

static void check_region(const world_case *wc)
{
    const char *path = mc_test_corpus_path(wc->file);
    char err[256];
    char *paths[1] = {(char *)path};
    map_world *w = map_world_open_files(paths, 1, err, sizeof err);
    if (!w)
        fail_msg("%s: %s", wc->file, err);
    const map_region_file *f = map_world_region_at(w, 0);
    map_reader *reader = map_reader_new(w, MAP_MODE_NORMAL);
    uint8_t *rgba = malloc(MAP_REGION_BYTES);
    assert_non_null(reader);
    assert_non_null(rgba);
    map_stats st = {0};
    assert_true(map_render_region(reader, f->rx, f->rz, rgba, &st));
    assert_int_equal(st.bad_chunks, 0);
    assert_true(st.chunks > 0);

    chunk_cache *cache = calloc(1, sizeof *cache);
    assert_non_null(cache);
    mc_error e;
    assert_int_equal(mc_region_open(path, NULL, &cache->region, &e), MC_OK);
    cache->rx = f->rx;
    cache->rz = f->rz;
    mc_test_rng rng = {0x9E3779B97F4A7C15ull ^ (uint64_t)strlen(wc->file)};
    unsigned exact = 0, translucent = 0, empty = 0, absent = 0;
    int present[1024], npresent = 0;
    for (int k = 0; k < 1024; k++) {
        if (mc_region_has_chunk(cache->region, k % 32, k / 32)) {
            present[npresent++] = k;
            continue;
        }
        for (int p = 0; p < 256; p++) /* an absent chunk is transparent */
            assert_int_equal(rgba[((size_t)((k / 32) * 16 + p / 16) * 512 + (size_t)((k % 32) * 16 + p % 16)) * 4 + 3], 0);
        absent++;
    }
    assert_true(npresent > 0);
    int samples = getenv("MCCHUNK_LONG") ? 5000 : 400; /* MCCHUNK_LONG=1: a deeper run by hand */
    for (int n = 0; n < samples; n++) {
        int k = present[mc_test_rand(&rng) % (uint64_t)npresent], p = (int)(mc_test_rand(&rng) % 256);
        int i = (k % 32) * 16 + p % 16, j = (k / 32) * 16 + p / 16;
        int32_t x = f->rx * 512 + i, z = f->rz * 512 + j;
        const uint8_t *px = rgba + ((size_t)j * 512 + (size_t)i) * 4;
        const mc_column *col = chunk_at(cache, x >> 4, z >> 4);
        int32_t y = col ? top_visible(col, x, z) : INT32_MIN;
        if (y == INT32_MIN) {
            if (px[3] != 0)
                fail_msg("%s: block %d %d: %s, but the pixel is %u,%u,%u,%u", wc->file, x, z,
                         col ? "no visible block" : "no chunk", px[0], px[1], px[2], px[3]);
            empty++;
            continue;
        }
        const mc_registry *reg = mc_column_registry(col);
        uint32_t state = mc_column_get_block(col, x, y, z);
        mc_block_color c = mc_registry_state_color(reg, state);
        if (c.a != 255) {
            assert_true(px[3] > 0);
            translucent++;
            continue;
        }
        mc_biome_colors biome;
        mc_registry_biome_colors(reg, mc_column_get_biome(col, x >> 2, y >> 2, z >> 2), &biome);
        c = mc_block_color_tinted(c, &biome);
        int h = height_at(cache, x, z), hn = height_at(cache, x, z - 1), hw = height_at(cache, x - 1, z);
        int step = (hn != MAP_NO_HEIGHT ? h - hn : 0) + (hw != MAP_NO_HEIGHT ? h - hw : 0);
        step = step < -4 ? -4 : step > 4 ? 4 : step;
        uint8_t want[4] = {shade_channel(c.r, step), shade_channel(c.g, step), shade_channel(c.b, step), 255};
        if (memcmp(px, want, 4)) {
            char name[256];
            mc_registry_format_state(reg, state, name, sizeof name, MC_FORMAT_SORTED);
            fail_msg("%s: block %d %d: top %s at y %d (step %d): pixel %u,%u,%u,%u, expected %u,%u,%u,255", wc->file,
                     x, z, name, y, step, px[0], px[1], px[2], px[3], want[0], want[1], want[2]);
        }
        exact++;
    }
    print_message("%s: %u opaque columns exact, %u translucent, %u empty; %u absent chunks transparent\n", wc->file, exact, translucent,
                  empty, absent);
    assert_true(exact * 2000 >= wc->min_exact * (unsigned)samples);
    for (int i = 0; i < 1024; i++)
        mc_column_free(cache->cols[i]);
    mc_region_close(cache->region);
    free(cache);
    free(rgba);
    map_reader_free(reader);
    map_world_free(w);
}

static void test_pixels_match_blocks(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    static const world_case cases[] = {
        {"anvil/1.8.9/ppa-r.-1.0.mca", 500},        /* 1.8: id:meta, 2D biomes */
        {"anvil/1.12.2/mcaselector-r.0.0.mca", 100}, /* a grid of every block */
        {"anvil/1.13.2/ppa-r.-1.-1.mca", 100},
        {"anvil/1.16/ppa-r.0.-1.mca", 500},
        {"anvil/1.19.4/ppa-r.0.0.mca", 150},         /* 3D biomes, -64..319 */
        {"anvil/1.21.11/minestom-r.-1.-1.mca", 50},  /* mostly proto-chunks */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_region(&cases[i]);
}

/* Height and biome modes colour every column that has a height; missing
 * chunks stay transparent; the light mode is never brighter than normal. */
static void test_modes(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    const char *path = mc_test_corpus_path("anvil/1.16/ppa-r.0.-1.mca");
    char err[256];
    char *paths[1] = {(char *)path};
    map_world *w = map_world_open_files(paths, 1, err, sizeof err);
    assert_non_null(w);
    uint8_t *img[4];
    for (int m = 0; m < 4; m++) {
        img[m] = malloc(MAP_REGION_BYTES);
        map_reader *r = map_reader_new(w, (map_mode)m);
        assert_true(map_render_region(r, 0, -1, img[m], NULL));
        map_reader_free(r);
    }
    size_t visible = 0;
    for (size_t p = 0; p < MAP_REGION_BYTES; p += 4) {
        bool shown = img[MAP_MODE_NORMAL][p + 3] > 0;
        visible += shown;
        assert_int_equal(img[MAP_MODE_HEIGHT][p + 3] > 0, img[MAP_MODE_BIOME][p + 3] > 0);
        if (!shown)
            assert_int_equal(img[MAP_MODE_HEIGHT][p + 3], 0);
        for (int c = 0; c < 3; c++)
            assert_true(img[MAP_MODE_LIGHT][p + c] <= img[MAP_MODE_NORMAL][p + c]);
    }
    assert_true(visible > 200 * 256);
    for (int m = 0; m < 4; m++)
        free(img[m]);
    map_world_free(w);
}

/* map_make_column over a region file: every chunk read whole, or only
 * those of even cx + cz when `half`. */
typedef struct made_source {
    mc_region *region;
    bool half;
    unsigned calls;
} made_source;

static mc_column *make_from_file(void *user, int32_t cx, int32_t cz)
{
    made_source *m = user;
    m->calls++;
    if ((cx >> 5) != 0 || (cz >> 5) != 0 || (m->half && (cx + cz) % 2) || !mc_region_has_chunk(m->region, cx, cz))
        return NULL;
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_column *col = NULL;
    mc_error err;
    assert_int_equal(mc_region_read_chunk(m->region, cx, cz, &nbt, NULL, &err), MC_OK);
    assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err), MC_OK);
    mc_buf_free(&nbt);
    return col;
}

static void test_made_columns(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    const char *path = mc_test_corpus_path("anvil/1.19.4/ppa-r.0.0.mca");
    char err[256];
    char *paths[1] = {(char *)path};
    map_world *w = map_world_open_files(paths, 1, err, sizeof err);
    assert_non_null(w);
    made_source src = {0};
    mc_error e;
    assert_int_equal(mc_region_open(path, NULL, &src.region, &e), MC_OK);
    uint8_t *file = malloc(MAP_REGION_BYTES), *made = malloc(MAP_REGION_BYTES);
    static const map_mode modes[2] = {MAP_MODE_NORMAL, MAP_MODE_LIGHT}; /* light: the columns' light too */
    for (int k = 0; k < 2; k++) {
        map_mode m = modes[k];
        map_reader *rf = map_reader_new(w, m), *rm = map_reader_new_columns(make_from_file, &src, m);
        assert_true(map_render_region(rf, 0, 0, file, NULL));
        src.half = false;
        assert_true(map_render_region(rm, 0, 0, made, NULL));
        assert_memory_equal(file, made, MAP_REGION_BYTES);
        if (m == MAP_MODE_NORMAL) { /* without half the chunks: those are transparent, the rest drawn */
            src.half = true;
            assert_true(map_render_region(rm, 0, 0, made, NULL));
            size_t drawn = 0;
            for (size_t p = 0; p < MAP_REGION_BYTES / 4; p++) {
                size_t cx = p % 512 / 16, cz = p / 512 / 16;
                if ((cx + cz) % 2) {
                    assert_int_equal(made[p * 4 + 3], 0);
                } else { /* the same alpha (the hillshade changes only colours) */
                    assert_int_equal(made[p * 4 + 3], file[p * 4 + 3]);
                    drawn += made[p * 4 + 3] > 0;
                }
            }
            assert_true(drawn > 10 * 256);
        }
        map_reader_free(rf);
        map_reader_free(rm);
    }
    assert_true(src.calls >= 2 * 1024);
    free(file);
    free(made);
    mc_region_close(src.region);
    map_world_free(w);
}

/* MC_CHUNKNBT_LEGACY_RAW on chunk (lx, lz) of a region: every block of
 * every section left as stored reads, from its bytes, as the state the
 * whole read gives at that place; returns how many such sections. */
static unsigned check_stored_sections(mc_region *region, int lx, int lz)
{
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_error err;
    mc_column *whole = NULL, *lean = NULL;
    mc_chunknbt_info info;
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_LEGACY_RAW;
    assert_int_equal(mc_region_read_chunk(region, lx, lz, &nbt, NULL, &err), MC_OK);
    assert_int_equal(mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &whole, &err), MC_OK);
    assert_int_equal(mc_chunknbt_read_bytes_ex(nbt.data, nbt.len, &opt, &lean, &info, &err), MC_OK);
    int32_t x0 = mc_column_x(whole) * 16, z0 = mc_column_z(whole) * 16;
    unsigned stored = 0;
    for (int sy = 0; sy < 16; sy++) {
        const uint8_t *blocks = info.legacy_blocks[sy][0], *data = info.legacy_blocks[sy][1];
        if (!blocks)
            continue;
        stored++;
        for (unsigned at = 0; at < 4096; at++) {
            uint32_t state = (uint32_t)blocks[at] << 4 | (data[at >> 1] >> ((at & 1) * 4) & 15u);
            int32_t x = x0 + (int32_t)(at & 15), y = sy * 16 + (int32_t)(at >> 8), z = z0 + (int32_t)(at >> 4 & 15);
            if (state != mc_column_get_block(whole, x, y, z))
                fail_msg("chunk %d %d: block %d %d %d: stored %u, whole read %u", mc_column_x(whole),
                         mc_column_z(whole), x, y, z, state, mc_column_get_block(whole, x, y, z));
        }
    }
    mc_column_free(whole);
    mc_column_free(lean);
    mc_buf_free(&nbt);
    return stored;
}

/* The map's default way (1.8-1.12 sections looked at where they are
 * stored, MC_CHUNKNBT_LEGACY_RAW; runs of water added in a row) draws
 * every corpus region (every era) as the reference way
 * (map_reader_full_model: whole chunks into the model, every block through
 * add_block) does, byte for byte, in normal
 * mode (colours, translucency, water, the hillshade of the heights) and
 * height mode (the heights themselves); and the stored bytes it reads are
 * the blocks of the whole read. */
static void test_stored_sections_equal_full_model(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    uint8_t *lean = malloc(MAP_REGION_BYTES), *whole = malloc(MAP_REGION_BYTES);
    unsigned regions = 0, stored_sections = 0;
    /* the sanitizer pass of .ci/run (MCCHUNK_SAMPLE=1): normal mode and
     * the three smaller 1.11-1.12 regions (the stored sections' path; all
     * the regions are compared in the normal build) */
    const bool sample = getenv("MCCHUNK_SAMPLE") != NULL;
    for (char **p = files; *p; p++) {
        if (sample && !(strstr(*p, "/anvil/1.11") || strstr(*p, "/anvil/1.12")))
            continue;
        char err[256];
        map_world *w = map_world_open_files(p, 1, err, sizeof err);
        if (!w)
            continue; /* no chunk to place it by (entities, poi files) */
        const map_region_file *f = map_world_region_at(w, 0);
        for (int m = 0; m < (sample ? 1 : 2); m++) {
            map_mode mode = m ? MAP_MODE_HEIGHT : MAP_MODE_NORMAL;
            map_reader *rl = map_reader_new(w, mode), *rw = map_reader_new(w, mode);
            map_reader_full_model(rw, true);
            map_stats sl = {0}, sw = {0};
            assert_true(map_render_region(rl, f->rx, f->rz, lean, &sl));
            assert_true(map_render_region(rw, f->rx, f->rz, whole, &sw));
            assert_int_equal(sl.chunks, sw.chunks);
            assert_int_equal(sl.bad_chunks, sw.bad_chunks);
            if (memcmp(lean, whole, MAP_REGION_BYTES)) {
                size_t at = 0;
                while (!memcmp(lean + at, whole + at, 4))
                    at += 4;
                fail_msg("%s (%s mode): pixel %zu %zu differs", *p, map_mode_name(mode), at / 4 % 512, at / 4 / 512);
            }
            map_reader_free(rl);
            map_reader_free(rw);
        }
        mc_region *region;
        mc_error e;
        assert_int_equal(mc_region_open(*p, NULL, &region, &e), MC_OK);
        for (int k = 0; k < 1024; k += 37) /* a few chunks of each file, block by block */
            if (mc_region_has_chunk(region, k % 32, k / 32))
                stored_sections += check_stored_sections(region, k % 32, k / 32);
        mc_region_close(region);
        map_world_free(w);
        regions++;
    }
    print_message("%u regions drawn alike; %u stored sections checked block by block\n", regions, stored_sections);
    assert_true(regions >= (sample ? 3u : 20u));
    /* the 1.8-1.12 regions' sections were read from their bytes */
    assert_true(stored_sections >= (sample ? 20u : 100u));
    free(lean);
    free(whole);
    mc_test_free_list(files);
}

/* Columns of deep water over sand whose biome changes from one 4-block
 * cell to the next down the water (swamp, warm ocean, river: three water
 * tints), across section borders: the runs of water the renderer adds in
 * a row must stop where the tint changes, as the reference reader's block
 * by block compositing does. Generated, so it runs without the corpus. */
typedef struct tint_source {
    const mc_registry *reg;
    uint32_t water, sand, biomes[3];
} tint_source;

static mc_column *make_tinted_water(void *user, int32_t cx, int32_t cz)
{
    const tint_source *t = user;
    if (cx < 0 || cz < 0 || cx > 3 || cz > 3)
        return NULL;
    mc_column *col = mc_column_new(t->reg, cx, cz, -4, 24, NULL);
    assert_non_null(col);
    for (int32_t z = 0; z < 16; z++)
        for (int32_t x = 0; x < 16; x++) {
            int32_t bottom = 20 + (x + z + cx * 3) % 30; /* 13..43 blocks of water */
            for (int32_t y = bottom - 3; y < bottom; y++)
                assert_int_equal(mc_column_set_block(col, x, y, z, t->sand), MC_OK);
            for (int32_t y = bottom; y <= 62; y++)
                assert_int_equal(mc_column_set_block(col, x, y, z, t->water), MC_OK);
        }
    for (int32_t cy = -16; cy < 80; cy++)
        for (int32_t bz = 0; bz < 4; bz++)
            for (int32_t bx = 0; bx < 4; bx++) { /* some cells alike, to make runs */
                unsigned k = (unsigned)((cy / ((bx + cz) % 3 + 1)) + bz + cx) % 3;
                assert_int_equal(mc_column_set_biome(col, bx, cy, bz, t->biomes[k]), MC_OK);
            }
    return col;
}

static void test_water_runs_follow_the_tint(void **state)
{
    (void)state;
    tint_source t = {.reg = mc_registry_find("1.19.4")};
    assert_non_null(t.reg);
    static const char water[] = "minecraft:water[level=0]", sand[] = "minecraft:sand";
    assert_int_equal(mc_registry_parse_state(t.reg, water, sizeof water - 1, &t.water, NULL), MC_OK);
    assert_int_equal(mc_registry_parse_state(t.reg, sand, sizeof sand - 1, &t.sand, NULL), MC_OK);
    static const char *const names[3] = {"minecraft:swamp", "minecraft:warm_ocean", "minecraft:river"};
    for (int k = 0; k < 3; k++) {
        t.biomes[k] = mc_registry_biome_id(t.reg, names[k]);
        assert_int_not_equal(t.biomes[k], MC_STATE_NONE);
    }
    uint8_t *lean = malloc(MAP_REGION_BYTES), *whole = malloc(MAP_REGION_BYTES);
    map_reader *rl = map_reader_new_columns(make_tinted_water, &t, MAP_MODE_NORMAL);
    map_reader *rw = map_reader_new_columns(make_tinted_water, &t, MAP_MODE_NORMAL);
    map_reader_full_model(rw, true);
    assert_true(map_render_region(rl, 0, 0, lean, NULL));
    assert_true(map_render_region(rw, 0, 0, whole, NULL));
    size_t distinct = 0;
    for (size_t p = 1; p < 64 * 512; p++) /* the drawn rows: many colours, not one */
        distinct += p % 512 < 64 && memcmp(whole + p * 4, whole + (p - 1) * 4, 3) != 0;
    assert_true(distinct > 500);
    for (size_t at = 0; at < MAP_REGION_BYTES; at += 4)
        if (memcmp(lean + at, whole + at, 4))
            fail_msg("pixel %zu %zu: %02x%02x%02x%02x, the reference reader %02x%02x%02x%02x", at / 4 % 512,
                     at / 4 / 512, lean[at], lean[at + 1], lean[at + 2], lean[at + 3], whole[at], whole[at + 1],
                     whole[at + 2], whole[at + 3]);
    map_reader_free(rl);
    map_reader_free(rw);
    free(lean);
    free(whole);
}

/* Downsampling: alpha-weighted average of each 2x2, transparent quarters. */
static void test_downsample(void **state)
{
    (void)state;
    uint8_t *a = calloc(1, MAP_REGION_BYTES), *out = malloc(MAP_REGION_BYTES);
    a[0] = 200, a[3] = 255;                     /* (0,0) opaque red-ish */
    a[4 * 1 + 0] = 100, a[4 * 1 + 3] = 85;      /* (1,0) faint */
    const uint8_t *quads[4] = {a, NULL, NULL, a};
    map_downsample(quads, out);
    assert_int_equal(out[0], (200 * 255 + 100 * 85 + 170) / 340);
    assert_int_equal(out[3], (255 + 85 + 2) / 4);
    assert_int_equal(out[4 * 256 + 3], 0);                         /* top right: absent */
    assert_int_equal(out[(256 * 512 + 256) * 4], out[0]);           /* bottom right: a again */
    free(a);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pixels_match_blocks),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_made_columns),
        cmocka_unit_test(test_water_runs_follow_the_tint),
        cmocka_unit_test(test_stored_sections_equal_full_model),
        cmocka_unit_test(test_downsample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
