/*
 * test_chunknbt_snapshots.c: the chunk NBT writer for the 1.18 snapshot
 * DataVersions 2832..2843 and their neighbours.
 *
 * The game changed the chunk in steps there (DataFixers of 1.18):
 *   2832 ChunkHeightAndBiomeFix  Level.Sections[] get block_states/biomes
 *   2841 ChunkProtoTickListFix   LiquidTicks -> fluid_ticks, proto-chunk
 *                                ToBeTicked lists -> {i, x, y, z, t, p}
 *   2842 ChunkRenamesFix         no Level; sections, block_entities,
 *                                block_ticks, structures{starts}
 *   2844 (21w43a)                yPos
 * For each target DataVersion the tests assert the key layout and nesting,
 * and that reading the written chunk back gives the same blocks, biomes,
 * light and block entities (generated columns; real 1.18 chunks from the
 * corpus where it is present).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

static const int32_t roundtrip_dvs[] = {2831, 2832, 2840, 2841, 2842, 2843, 2844, 2860};

/* ----------------------------------------------------------- helpers */

/* The compound holding the chunk keys: Level before 2842, else the root. */
static mc_nbt_tag *chunk_of(mc_nbt_tag *root)
{
    mc_nbt_tag *l = mc_nbt_get(root, "Level");
    return l ? l : root;
}

static bool has(const mc_nbt_tag *c, const char *key)
{
    return mc_nbt_get(c, key) != NULL;
}

/* A 1.18 column at (3, -7), sections -4..19: a mix of states over several
 * sections (palettes of 1, 2..16 and 17+ entries), biomes varying per cell,
 * light in two sections, a chest with its block entity, heightmaps. */
static mc_column *make_column(int32_t min_section, uint32_t count)
{
    const mc_registry *reg = mc_registry_find("1.18");
    assert_non_null(reg);
    mc_column *col = mc_column_new(reg, 3, -7, min_section, count, NULL);
    assert_non_null(col);
    const char *names[] = {"stone", "dirt", "grass_block", "water", "oak_log", "glass", "sand", "gravel",
                           "kelp", "oak_stairs", "granite", "diorite", "andesite", "deepslate",
                           "tuff", "calcite", "coal_ore", "iron_ore", "gold_ore", "copper_ore"};
    uint32_t states[20];
    for (int i = 0; i < 20; i++) {
        states[i] = mc_registry_default_state(reg, names[i]);
        assert_int_not_equal(states[i], MC_STATE_NONE);
    }
    int32_t miny = min_section * 16;
    mc_test_rng rng = {0x5eed1234u};
    /* bottom section: all deepslate (single-entry palette) */
    for (int i = 0; i < 4096; i++)
        assert_int_equal(mc_column_set_block(col, i & 15, miny + (i >> 8), (i >> 4) & 15, states[13]), MC_OK);
    /* next: 4 states; next: all 20 states; the one at y 0..15 a ground layer */
    for (int i = 0; i < 4096; i++) {
        assert_int_equal(mc_column_set_block(col, i & 15, miny + 16 + (i >> 8), (i >> 4) & 15,
                                             states[mc_test_rand(&rng) % 4]), MC_OK);
        assert_int_equal(mc_column_set_block(col, i & 15, miny + 32 + (i >> 8), (i >> 4) & 15,
                                             states[mc_test_rand(&rng) % 20]), MC_OK);
    }
    for (int x = 0; x < 16; x++)
        for (int z = 0; z < 16; z++) {
            assert_int_equal(mc_column_set_block(col, x, 60, z, states[2]), MC_OK);
            assert_int_equal(mc_column_set_block(col, x, 59, z, states[1]), MC_OK);
        }
    /* a chest with its block entity at (5, 61, 9) */
    uint32_t chest = mc_registry_default_state(reg, "chest");
    assert_int_equal(mc_column_set_block(col, 5, 61, 9, chest), MC_OK);
    mc_nbt_doc *be = mc_nbt_doc_new(NULL);
    const char *snbt = "{id:\"minecraft:chest\",x:53,y:61,z:-103,keepPacked:0b,Items:[{Slot:0b,"
                       "id:\"minecraft:diamond\",Count:3b}]}";
    mc_error err;
    assert_int_equal(mc_snbt_parse(be, snbt, strlen(snbt), NULL, &err), MC_OK);
    assert_int_equal(mc_column_put_block_entity(col, 3 * 16 + 5, 61, -7 * 16 + 9, mc_nbt_doc_root(be)), MC_OK);
    mc_nbt_doc_free(be);
    /* biomes: every cell of every section, from a few of the registry */
    const char *biomes[] = {"plains", "forest", "desert", "river", "windswept_hills", "lush_caves"};
    uint32_t bids[6];
    for (int i = 0; i < 6; i++) {
        bids[i] = mc_registry_biome_id(reg, biomes[i]);
        assert_int_not_equal(bids[i], MC_STATE_NONE);
    }
    for (int32_t cy = min_section * 4; cy < (min_section + (int32_t)count) * 4; cy++)
        for (int cz = 0; cz < 4; cz++)
            for (int cx = 0; cx < 4; cx++)
                assert_int_equal(mc_column_set_biome(col, cx, cy, cz,
                                                     bids[(cx + cz + (cy > 2 ? 3 : 0)) % 6]), MC_OK);
    /* light in the ground sections */
    uint8_t light[2048 + 7];
    for (int i = 0; i < (int)sizeof light; i++)
        light[i] = (uint8_t)(mc_test_rand(&rng) & 0xFF);
    assert_int_equal(mc_section_set_block_light(mc_column_section(col, 3), light), MC_OK);
    assert_int_equal(mc_section_set_sky_light(mc_column_section(col, 3), light), MC_OK);
    assert_int_equal(mc_section_set_sky_light(mc_column_section(col, 4), light + 7), MC_OK);
    assert_int_equal(mc_column_compute_heightmaps(col, ~0u), MC_OK);
    return col;
}

/* Blocks, biomes, light and block entities of `b` equal those of `a` over
 * the sections both have. Returns the number of sections compared. */
static uint32_t assert_same_content(const mc_column *a, const mc_column *b)
{
    int32_t lo = mc_column_min_section(a), hi = lo + (int32_t)mc_column_section_count(a) - 1;
    int32_t blo = mc_column_min_section(b), bhi = blo + (int32_t)mc_column_section_count(b) - 1;
    if (blo > lo) lo = blo;
    if (bhi < hi) hi = bhi;
    uint32_t n = 0;
    for (int32_t sy = lo; sy <= hi; sy++, n++) {
        for (int i = 0; i < 4096; i++) {
            int32_t x = i & 15, y = sy * 16 + (i >> 8), z = (i >> 4) & 15;
            if (mc_column_get_block(a, x, y, z) != mc_column_get_block(b, x, y, z))
                fail_msg("block %d %d %d: %u vs %u", x, y, z, mc_column_get_block(a, x, y, z),
                         mc_column_get_block(b, x, y, z));
        }
        for (int i = 0; i < 64; i++) {
            int32_t cx = i & 3, cy = sy * 4 + (i >> 4), cz = (i >> 2) & 3;
            assert_int_equal(mc_column_get_biome(a, cx, cy, cz), mc_column_get_biome(b, cx, cy, cz));
        }
        const mc_section *sa = mc_column_section_const(a, sy), *sb = mc_column_section_const(b, sy);
        assert_int_equal(sa->block_light != NULL, sb->block_light != NULL);
        assert_int_equal(sa->sky_light != NULL, sb->sky_light != NULL);
        if (sa->block_light)
            assert_memory_equal(sa->block_light, sb->block_light, 2048);
        if (sa->sky_light)
            assert_memory_equal(sa->sky_light, sb->sky_light, 2048);
    }
    size_t nbe = 0;
    for (size_t i = 0; i < mc_column_block_entity_count(a); i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(a, i, &x, &y, &z);
        if (y < lo * 16 || y >= (hi + 1) * 16)
            continue;
        mc_nbt_tag *u = mc_column_block_entity(b, x, y, z);
        assert_non_null(u);
        assert_true(mc_nbt_equal(t, u));
        nbe++;
    }
    assert_int_equal(nbe, mc_column_block_entity_count(b));
    return n;
}

/* Writes `col` for `dv`, reads it back from the NBT bytes, checks the
 * content, then writes the read column for its own DataVersion and checks
 * that the tree is the one first written (the reader and writer agree on
 * that DataVersion's shape). Returns the read column. */
static mc_column *roundtrip(const mc_column *col, int32_t dv, uint32_t expect_sections)
{
    mc_error err;
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    if (mc_chunknbt_write_bytes(col, dv, &buf, NULL, &err) != MC_OK)
        fail_msg("write %d: %s", (int)dv, err.message);
    mc_nbt_doc *first = mc_nbt_doc_new(NULL), *again = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(first, buf.data, buf.len, MC_NBT_JAVA, NULL, &err), MC_OK);
    mc_chunknbt_info info;
    mc_column *back = NULL;
    /* strict: an unknown state or biome name (e.g. a biome the registry
     * knows under its renamed name only) fails the read */
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_STRICT;
    if (mc_chunknbt_read_ex(mc_nbt_doc_root(first), &opt, &back, &info, &err) != MC_OK)
        fail_msg("read %d: %s", (int)dv, err.message);
    assert_int_equal(info.data_version, dv);
    assert_int_equal(info.warnings, 0);
    assert_int_equal(info.unknown_states, 0);
    assert_int_equal(info.unknown_biomes, 0);
    assert_int_equal(mc_column_x(back), mc_column_x(col));
    assert_int_equal(mc_column_z(back), mc_column_z(col));
    uint32_t n = assert_same_content(col, back);
    if (expect_sections)
        assert_int_equal(n, expect_sections);
    assert_int_equal(mc_chunknbt_write(back, MC_CHUNKNBT_OWN_VERSION, again, NULL, &err), MC_OK);
    if (!mc_nbt_equal(mc_nbt_doc_root(first), mc_nbt_doc_root(again)))
        fail_msg("DataVersion %d: writing the read chunk back changes it", (int)dv);
    mc_nbt_doc_free(first);
    mc_nbt_doc_free(again);
    mc_buf_free(&buf);
    return back;
}

/* ------------------------------------------------------------ layout */

/* The key layout each DataVersion has, asserted on a written tree. */
static void assert_layout(mc_nbt_tag *root, int32_t dv, int32_t min_section, uint32_t count)
{
    int32_t v;
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(root, "DataVersion"), &v), MC_OK);
    assert_int_equal(v, dv);
    mc_nbt_tag *level = mc_nbt_get(root, "Level");
    bool wrapped = dv < 2842;
    assert_int_equal(level != NULL, wrapped);
    mc_nbt_tag *c = chunk_of(root);
    if (wrapped) {
        /* nothing but DataVersion and Level at the root */
        assert_int_equal(mc_nbt_count(root), 2);
        assert_int_equal(mc_nbt_tag_type(level), MC_NBT_COMPOUND);
    }
    assert_true(has(c, "xPos") && has(c, "zPos"));
    /* yPos from 21w43a (2844) only: no fixer adds it before */
    if (dv >= 2844) {
        assert_int_equal(mc_nbt_get_int(mc_nbt_get(c, "yPos"), &v), MC_OK);
        assert_int_equal(v, min_section);
    } else {
        assert_false(has(c, "yPos"));
    }
    const char *s;
    size_t sl;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(c, "Status"), &s, &sl), MC_OK);
    assert_int_equal(sl, 4);
    assert_memory_equal(s, "full", 4);
    /* renamed keys: before / after 2842 (fluid ticks already at 2841) */
    assert_int_equal(has(c, "Sections"), dv < 2842);
    assert_int_equal(has(c, "sections"), dv >= 2842);
    assert_int_equal(has(c, "TileEntities"), dv < 2842);
    assert_int_equal(has(c, "block_entities"), dv >= 2842);
    assert_int_equal(has(c, "TileTicks"), dv < 2842);
    assert_int_equal(has(c, "block_ticks"), dv >= 2842);
    assert_int_equal(has(c, "LiquidTicks"), dv < 2841);
    assert_int_equal(has(c, "fluid_ticks"), dv >= 2841);
    assert_int_equal(has(c, "Structures"), dv < 2842);
    assert_int_equal(has(c, "structures"), dv >= 2842);
    mc_nbt_tag *st = mc_nbt_get(c, dv < 2842 ? "Structures" : "structures");
    assert_true(has(st, "References"));
    assert_int_equal(has(st, "Starts"), dv < 2842);
    assert_int_equal(has(st, "starts"), dv >= 2842);
    assert_true(has(c, "PostProcessing"));
    assert_int_equal(mc_nbt_count(mc_nbt_get(c, "PostProcessing")), dv >= 2832 ? count : 16);
    assert_false(has(c, "Entities") || has(c, "entities")); /* entities/ files since 2681 */
    /* 2832: the biomes are in the sections */
    assert_int_equal(has(c, "Biomes"), dv < 2832);
    /* heightmaps: 9 bits padded for 24 sections = 37 longs (for 0..15 of
     * a taller column the writer leaves them to the game) */
    mc_nbt_array a;
    mc_nbt_tag *hm = mc_nbt_path(c, "Heightmaps.MOTION_BLOCKING");
    if (dv >= 2832 || count == 16) {
        assert_int_equal(mc_nbt_get_array(hm, MC_NBT_LONG_ARRAY, &a), MC_OK);
        assert_int_equal(a.count, 37);
    }
    /* sections */
    mc_nbt_tag *secs = mc_nbt_get(c, dv < 2842 ? "Sections" : "sections");
    assert_int_equal(mc_nbt_tag_type(secs), MC_NBT_LIST);
    uint32_t with_blocks = 0, old_names = 0, new_names = 0;
    int32_t lo = INT32_MAX;
    for (mc_nbt_tag *sec = mc_nbt_first(secs); sec; sec = mc_nbt_next(sec)) {
        int64_t y;
        assert_int_equal(mc_nbt_get_integer(mc_nbt_get(sec, "Y"), &y), MC_OK);
        assert_int_equal(mc_nbt_tag_type(mc_nbt_get(sec, "Y")), MC_NBT_BYTE);
        if (dv >= 2832) {
            assert_false(has(sec, "Palette") || has(sec, "BlockStates"));
            mc_nbt_tag *bs = mc_nbt_get(sec, "block_states"), *bi = mc_nbt_get(sec, "biomes");
            assert_int_equal(bs != NULL, bi != NULL);
            if (!bs)
                continue;
            with_blocks++;
            if (y < lo)
                lo = (int32_t)y;
            /* containers: palette always, data only for 2+ entries */
            assert_int_equal(mc_nbt_list_type(mc_nbt_get(bs, "palette")), MC_NBT_COMPOUND);
            assert_int_equal(has(bs, "data"), mc_nbt_count(mc_nbt_get(bs, "palette")) > 1);
            assert_int_equal(mc_nbt_list_type(mc_nbt_get(bi, "palette")), MC_NBT_STRING);
            assert_int_equal(has(bi, "data"), mc_nbt_count(mc_nbt_get(bi, "palette")) > 1);
            size_t keys = mc_nbt_count(bs);
            assert_int_equal(keys, has(bs, "data") ? 2 : 1);
            /* biome names: before schema 2838 the pre-rename ones */
            for (mc_nbt_tag *e = mc_nbt_first(mc_nbt_get(bi, "palette")); e; e = mc_nbt_next(e)) {
                const char *bn;
                size_t bl;
                assert_int_equal(mc_nbt_get_string(e, &bn, &bl), MC_OK);
                if (bl == strlen("minecraft:mountains") && !memcmp(bn, "minecraft:mountains", bl))
                    old_names++;
                if (bl == strlen("minecraft:windswept_hills") && !memcmp(bn, "minecraft:windswept_hills", bl))
                    new_names++;
            }
        } else {
            assert_false(has(sec, "block_states") || has(sec, "biomes"));
            if (has(sec, "Palette")) {
                assert_true(has(sec, "BlockStates"));
                with_blocks++;
            }
        }
    }
    if (dv >= 2832) {
        assert_true(old_names + new_names > 0);
        assert_int_equal(old_names, dv < 2838 ? old_names + new_names : 0);
        /* every section of the range, as the game writes them */
        assert_int_equal(with_blocks, count);
        assert_int_equal(lo, min_section);
    }
}

static void test_layout_per_data_version(void **state)
{
    (void)state;
    mc_column *col = make_column(-4, 24);
    const int32_t dvs[] = {2831, 2832, 2834, 2838, 2840, 2841, 2842, 2843, 2844, 2860};
    for (size_t i = 0; i < sizeof dvs / sizeof dvs[0]; i++) {
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_error err;
        mc_chunknbt_report rep;
        assert_int_equal(mc_chunknbt_write(col, dvs[i], doc, &rep, &err), MC_OK);
        print_message("DataVersion %d: %s\n", (int)dvs[i], mc_nbt_get(mc_nbt_doc_root(doc), "Level") ? "Level" : "root");
        assert_layout(mc_nbt_doc_root(doc), dvs[i], -4, 24);
        /* 1.13-1.17 keep 0..15 only: the sections above and below go */
        assert_int_equal((rep.dropped & MC_CHUNKNBT_DROP_SECTIONS) != 0, dvs[i] < 2832);
        mc_nbt_doc_free(doc);
    }
    mc_column_free(col);
}

/* --------------------------------------------------------- round trip */

static void test_roundtrip_generated(void **state)
{
    (void)state;
    mc_column *tall = make_column(-4, 24), *low = make_column(0, 16);
    for (size_t i = 0; i < sizeof roundtrip_dvs / sizeof roundtrip_dvs[0]; i++) {
        int32_t dv = roundtrip_dvs[i];
        /* 2831 (1.13-1.17 layout) holds 0..15 of the tall column */
        mc_column *back = roundtrip(tall, dv, dv < 2832 ? 16 : 24);
        assert_int_equal(mc_column_min_section(back), dv < 2832 ? 0 : -4);
        assert_int_equal(mc_column_section_count(back), dv < 2832 ? 16 : 24);
        mc_column_free(back);
        back = roundtrip(low, dv, 16);
        assert_int_equal(mc_column_min_section(back), 0);
        assert_int_equal(mc_column_section_count(back), 16);
        mc_column_free(back);
    }
    mc_column_free(tall);
    mc_column_free(low);
}

/* ------------------------------------------------------ tick lists */

static mc_nbt_tag *tick_at(mc_nbt_tag *list, size_t i)
{
    mc_nbt_tag *t = mc_nbt_list_at(list, i);
    assert_non_null(t);
    assert_int_equal(mc_nbt_tag_type(t), MC_NBT_COMPOUND);
    /* exactly {i, x, y, z, t, p} */
    assert_int_equal(mc_nbt_count(t), 6);
    return t;
}

static void assert_tick(mc_nbt_tag *t, const char *name, int32_t x, int32_t y, int32_t z)
{
    const char *s;
    size_t l;
    int32_t v;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(t, "i"), &s, &l), MC_OK);
    if (l != strlen(name) || memcmp(s, name, l))
        fail_msg("tick %.*s, expected %s", (int)l, s, name);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "x"), &v), MC_OK);
    assert_int_equal(v, x);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "y"), &v), MC_OK);
    assert_int_equal(v, y);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "z"), &v), MC_OK);
    assert_int_equal(v, z);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "t"), &v), MC_OK);
    assert_int_equal(v, 0);
    assert_int_equal(mc_nbt_get_int(mc_nbt_get(t, "p"), &v), MC_OK);
    assert_int_equal(v, 0);
}

static void put_shorts(mc_nbt_doc *doc, mc_nbt_tag *outer, const int16_t *v, size_t n)
{
    mc_nbt_tag *l = mc_nbt_list_append(doc, outer, MC_NBT_LIST);
    assert_non_null(l);
    for (size_t i = 0; i < n; i++) {
        mc_nbt_tag *e = mc_nbt_list_append(doc, l, MC_NBT_SHORT);
        assert_non_null(e);
        assert_int_equal(mc_nbt_set_short(e, v[i]), MC_OK);
    }
}

/* A 2840 proto-chunk (ToBeTicked / LiquidsToBeTicked, no TileTicks /
 * LiquidTicks) written for 2841+: the lists become tick compounds named
 * after the blocks there (ChunkProtoTickListFix), under TileTicks and
 * fluid_ticks at 2841 and block_ticks / fluid_ticks from 2842. */
static void test_proto_tick_lists(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.18");
    mc_column *col = mc_column_new(reg, 2, -1, -4, 2, NULL);
    assert_non_null(col);
    uint32_t stone = mc_registry_default_state(reg, "stone");
    uint32_t kelp = mc_registry_default_state(reg, "kelp");
    uint32_t water1 = MC_STATE_NONE, stairs_wet = MC_STATE_NONE;
    mc_error err;
    const char *w1 = "minecraft:water[level=1]", *sw = "minecraft:oak_stairs[waterlogged=true]";
    assert_int_equal(mc_registry_parse_state(reg, w1, strlen(w1), &water1, &err), MC_OK);
    assert_int_equal(mc_registry_parse_state(reg, sw, strlen(sw), &stairs_wet, &err), MC_OK);
    assert_int_equal(mc_column_set_block(col, 1, -62, 3, stone), MC_OK);       /* packed 0x321 */
    assert_int_equal(mc_column_set_block(col, 4, -59, 6, water1), MC_OK);      /* 0x654 */
    assert_int_equal(mc_column_set_block(col, 7, -64, 0, stairs_wet), MC_OK);  /* 0x007 */
    assert_int_equal(mc_column_set_block(col, 0, -47, 0, kelp), MC_OK);        /* section -3, 0x010 */
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_chunknbt_write(col, 2840, doc, NULL, &err), MC_OK);
    mc_column_free(col);
    /* make it a proto-chunk of 2840 */
    mc_nbt_tag *level = mc_nbt_get(mc_nbt_doc_root(doc), "Level");
    assert_non_null(level);
    assert_int_equal(mc_nbt_remove(level, "TileTicks", 9), MC_OK);
    assert_int_equal(mc_nbt_remove(level, "LiquidTicks", 11), MC_OK);
    assert_int_equal(mc_nbt_put_string(doc, level, "Status", "features", 8), MC_OK);
    mc_nbt_tag *tbt = mc_nbt_put_list(doc, level, "ToBeTicked", MC_NBT_LIST);
    mc_nbt_tag *ltbt = mc_nbt_put_list(doc, level, "LiquidsToBeTicked", MC_NBT_LIST);
    const int16_t b0[] = {0x321, 0, 0x022}, l0[] = {0x654, 0x007}, l1[] = {0x010};
    put_shorts(doc, tbt, b0, 3);
    put_shorts(doc, tbt, NULL, 0);
    put_shorts(doc, ltbt, l0, 2);
    put_shorts(doc, ltbt, l1, 1);
    mc_column *proto = NULL;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &proto, &err), MC_OK);
    assert_int_equal(mc_column_min_section(proto), -4);
    /* its own DataVersion: unchanged */
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_chunknbt_write(proto, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err), MC_OK);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(out)));
    const int32_t dvs[] = {2841, 2842, 2843, 2844};
    for (size_t k = 0; k < 4; k++) {
        int32_t dv = dvs[k];
        assert_int_equal(mc_chunknbt_write(proto, dv, out, NULL, &err), MC_OK);
        mc_nbt_tag *c = chunk_of(mc_nbt_doc_root(out));
        assert_int_equal(c != mc_nbt_doc_root(out), dv < 2842);
        assert_false(has(c, "ToBeTicked") || has(c, "LiquidsToBeTicked") || has(c, "LiquidTicks"));
        mc_nbt_tag *bt = mc_nbt_get(c, dv < 2842 ? "TileTicks" : "block_ticks");
        mc_nbt_tag *ft = mc_nbt_get(c, "fluid_ticks");
        assert_int_equal(mc_nbt_count(bt), 2); /* the packed 0 is skipped */
        assert_tick(tick_at(bt, 0), "minecraft:stone", 33, -62, -13);
        assert_tick(tick_at(bt, 1), "minecraft:air", 34, -62, -16);
        assert_int_equal(mc_nbt_count(ft), 3);
        /* string properties read as numbers fail in the fix: level 0, never waterlogged */
        assert_tick(tick_at(ft, 0), "minecraft:water", 36, -59, -10);
        assert_tick(tick_at(ft, 1), "minecraft:empty", 39, -64, -16);
        assert_tick(tick_at(ft, 2), "minecraft:water", 32, -47, -16);
        const char *s;
        size_t sl;
        assert_int_equal(mc_nbt_get_string(mc_nbt_get(c, "Status"), &s, &sl), MC_OK);
        assert_int_equal(sl, 8);
        assert_int_equal(has(c, "yPos"), dv >= 2844);
        assert_true(has(c, dv < 2842 ? "Structures" : "structures"));
        /* and the converted chunk reads back to the same blocks */
        mc_column *back = NULL;
        assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(out), NULL, &back, &err), MC_OK);
        assert_int_equal(assert_same_content(proto, back), 2);
        mc_column_free(back);
    }
    mc_column_free(proto);
    mc_nbt_doc_free(out);
    mc_nbt_doc_free(doc);
}

/* A full 2840 chunk's tick lists keep their entries; only the names move:
 * LiquidTicks -> fluid_ticks at 2841, TileTicks -> block_ticks at 2842;
 * and back down the same way. */
static void test_full_chunk_tick_renames(void **state)
{
    (void)state;
    mc_column *col = make_column(-4, 24);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *out = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write(col, 2840, doc, NULL, &err), MC_OK);
    mc_column_free(col);
    mc_nbt_tag *level = mc_nbt_get(mc_nbt_doc_root(doc), "Level");
    const char *bt = "[{i:\"minecraft:stone\",p:0,t:5,x:50,y:3,z:-100}]";
    const char *lt = "[{i:\"minecraft:water\",p:0,t:2,x:51,y:4,z:-101},{i:\"minecraft:lava\",p:0,t:9,x:52,y:5,z:-102}]";
    mc_nbt_doc *tmp = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_snbt_parse(tmp, bt, strlen(bt), NULL, &err), MC_OK);
    assert_int_equal(mc_nbt_attach(doc, level, "TileTicks", 9, mc_nbt_copy(doc, mc_nbt_doc_root(tmp))), MC_OK);
    assert_int_equal(mc_snbt_parse(tmp, lt, strlen(lt), NULL, &err), MC_OK);
    assert_int_equal(mc_nbt_attach(doc, level, "LiquidTicks", 11, mc_nbt_copy(doc, mc_nbt_doc_root(tmp))), MC_OK);
    mc_column *c2840 = NULL;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &c2840, &err), MC_OK);
    const mc_nbt_tag *tile = mc_nbt_get(level, "TileTicks"), *liquid = mc_nbt_get(level, "LiquidTicks");
    /* up: 2841, 2842, 2860 */
    const int32_t up[] = {2841, 2842, 2860};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(mc_chunknbt_write(c2840, up[k], out, NULL, &err), MC_OK);
        mc_nbt_tag *c = chunk_of(mc_nbt_doc_root(out));
        assert_true(mc_nbt_equal(mc_nbt_get(c, up[k] < 2842 ? "TileTicks" : "block_ticks"), tile));
        assert_true(mc_nbt_equal(mc_nbt_get(c, "fluid_ticks"), liquid));
        assert_false(has(c, "LiquidTicks"));
        assert_layout(mc_nbt_doc_root(out), up[k], -4, 24);
        /* and down again to 2840: the original tree */
        mc_column *mid = NULL;
        mc_nbt_doc *down = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(out), NULL, &mid, &err), MC_OK);
        assert_int_equal(mc_chunknbt_write(mid, 2840, down, NULL, &err), MC_OK);
        assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(down)));
        mc_nbt_doc_free(down);
        mc_column_free(mid);
    }
    mc_column_free(c2840);
    mc_nbt_doc_free(tmp);
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(out);
}

/* A 2836 chunk names biomes as before schema 2838 (and may hold
 * deep_warm_ocean until 2843): read with the 1.18 registry under their
 * new names, without warnings; a 2838+ chunk gets no such renaming. */
static void test_pre_rename_biomes(void **state)
{
    (void)state;
    const char *fmt =
        "{DataVersion:%d,Level:{xPos:0,zPos:0,Status:\"full\",Sections:["
        "{Y:0b,block_states:{palette:[{Name:\"minecraft:stone\"}]},"
        "biomes:{palette:[\"minecraft:mountains\",\"minecraft:lofty_peaks\",\"minecraft:deep_warm_ocean\"],"
        "data:[L;%s]}}]}}";
    /* 2 bits, 32 per long: cells 0..31 index 0, 32..47 index 1, 48..63 index 2 */
    const char *data = "0L,-6148914692668172971L";
    char snbt[1024];
    const mc_registry *reg = mc_registry_find("1.18");
    const int32_t dvs[] = {2832, 2836, 2838, 2842, 2844};
    for (int k = 0; k < 5; k++) {
        snprintf(snbt, sizeof snbt, fmt, (int)dvs[k], data);
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_error err;
        assert_int_equal(mc_snbt_parse(doc, snbt, strlen(snbt), NULL, &err), MC_OK);
        mc_chunknbt_info info;
        mc_column *col = NULL;
        assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(doc), NULL, &col, &info, &err), MC_OK);
        if (dvs[k] < 2843) {
            assert_int_equal(info.unknown_biomes, 0);
            assert_int_equal(mc_column_get_biome(col, 0, 0, 0), mc_registry_biome_id(reg, "windswept_hills"));
            assert_int_equal(mc_column_get_biome(col, 0, 2, 0), mc_registry_biome_id(reg, "jagged_peaks"));
            assert_int_equal(mc_column_get_biome(col, 0, 3, 0), mc_registry_biome_id(reg, "warm_ocean"));
        } else {
            assert_true(info.unknown_biomes > 0);
        }
        /* written back for 2836: the pre-2838 names of those biomes */
        if (dvs[k] == 2836) {
            mc_nbt_doc *out = mc_nbt_doc_new(NULL);
            assert_int_equal(mc_chunknbt_write(col, 2836, out, NULL, &err), MC_OK);
            mc_nbt_tag *pal = mc_nbt_path(mc_nbt_doc_root(out), "Level.Sections");
            pal = mc_nbt_path(mc_nbt_list_at(pal, 0), "biomes.palette");
            assert_int_equal(mc_nbt_count(pal), 3);
            const char *want[] = {"minecraft:mountains", "minecraft:lofty_peaks", "minecraft:warm_ocean"};
            for (int i = 0; i < 3; i++) {
                const char *s;
                size_t l;
                assert_int_equal(mc_nbt_get_string(mc_nbt_list_at(pal, (size_t)i), &s, &l), MC_OK);
                assert_int_equal(l, strlen(want[i]));
                assert_memory_equal(s, want[i], l);
            }
            mc_nbt_doc_free(out);
        }
        mc_column_free(col);
        mc_nbt_doc_free(doc);
    }
}

/* ------------------------------------------------------------- corpus */

/* Real 1.18 chunks (21w44a, 1.18 superflat): written for every target and
 * read back, with the layout of the target. */
static void corpus_chunk(const uint8_t *data, size_t len, size_t *done)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, &err), MC_OK);
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &col, &err), MC_OK);
    int32_t min = mc_column_min_section(col);
    uint32_t count = mc_column_section_count(col);
    for (size_t i = 0; i < sizeof roundtrip_dvs / sizeof roundtrip_dvs[0]; i++) {
        int32_t dv = roundtrip_dvs[i];
        mc_nbt_doc *out = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_chunknbt_write(col, dv, out, NULL, &err), MC_OK);
        mc_nbt_tag *c = chunk_of(mc_nbt_doc_root(out));
        assert_int_equal(c != mc_nbt_doc_root(out), dv < 2842);
        assert_int_equal(has(c, "yPos"), dv >= 2844);
        assert_int_equal(has(c, "sections"), dv >= 2842);
        assert_int_equal(has(c, "fluid_ticks"), dv >= 2841);
        assert_int_equal(has(c, "block_entities"), dv >= 2842);
        mc_nbt_doc_free(out);
        mc_column *back = roundtrip(col, dv, dv < 2832 ? 16 : count);
        if (dv >= 2832) {
            assert_int_equal(mc_column_min_section(back), min);
            assert_int_equal(mc_column_section_count(back), count);
        }
        mc_column_free(back);
    }
    mc_column_free(col);
    mc_nbt_doc_free(doc);
    (*done)++;
}

static void test_corpus_1_18_chunks(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    size_t done = 0;
    size_t len;
    uint8_t *data = mc_test_read_file(mc_test_corpus_path("anvil/chunk-nbt/fastnbt-21w44a-test1.nbt"), &len);
    corpus_chunk(data, len, &done);
    free(data);
    const char *regions[] = {"anvil/1.18/amulet-superflat-r.-1.-1.mca",
                             "anvil/1.18-snapshot-21w44a/querz-r.15.-9.mca"};
    for (int k = 0; k < 2; k++) {
        mc_region *r = NULL;
        mc_error err;
        assert_int_equal(mc_region_open(mc_test_corpus_path(regions[k]), NULL, &r, &err), MC_OK);
        mc_buf buf;
        mc_buf_init(&buf, NULL);
        int taken = 0;
        for (int lz = 0; lz < 32 && taken < 4; lz++)
            for (int lx = 0; lx < 32 && taken < 4; lx++) {
                if (!mc_region_has_chunk(r, lx, lz))
                    continue;
                buf.len = 0;
                assert_int_equal(mc_region_read_chunk(r, lx, lz, &buf, NULL, &err), MC_OK);
                corpus_chunk(buf.data, buf.len, &done);
                taken++;
            }
        mc_buf_free(&buf);
        mc_region_close(r);
    }
    print_message("%zu corpus chunks written for %zu DataVersions and read back\n", done,
                  sizeof roundtrip_dvs / sizeof roundtrip_dvs[0]);
    assert_true(done >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_per_data_version),
        cmocka_unit_test(test_roundtrip_generated),
        cmocka_unit_test(test_proto_tick_lists),
        cmocka_unit_test(test_full_chunk_tick_renames),
        cmocka_unit_test(test_pre_rename_biomes),
        cmocka_unit_test(test_corpus_1_18_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
