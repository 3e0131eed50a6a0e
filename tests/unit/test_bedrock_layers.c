/*
 * test_bedrock_layers.c: what the chunk model conversions do with the
 * Bedrock water layer (storage 1) and with Java block entities:
 *   - Java waterlogged=true states -> block in storage 0 + water in storage
 *     1, for single-value, paletted and direct sections;
 *   - subchunks with water in storage 1 -> Java waterlogged=true states
 *     (vanilla 1.17.20 LevelDB records with big dripleaves in water);
 *   - Bedrock -> model -> Bedrock keeps storages past 0 exactly (generated
 *     runtime subchunks byte for byte; the corpus' two-storage records
 *     state for state);
 *   - Java block entities -> Bedrock ones (ids, positions, chest pairs,
 *     sign text, bed and banner colours, skulls, spawners) and inside the
 *     request engine's Success payloads of the right subchunk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/translate.h"
#include "support.h"

static bool waterlogged(const mc_registry *reg, uint32_t s)
{
    const char *v = mc_registry_state_prop_value(reg, s, "waterlogged");
    return v && !strcmp(v, "true");
}

static void format(const mc_registry *reg, uint32_t s, char *buf, size_t cap)
{
    mc_registry_format_state(reg, s, buf, cap, MC_FORMAT_SORTED);
}

/* ------------------------------------------- Java waterlogged -> layers */

static void test_java_waterlogged_to_bedrock(void **st)
{
    (void)st;
    const mc_registry *java = mc_registry_find("1.21.4");
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!java || !bed)
        skip();
    mc_column *col = mc_column_new(java, 0, 0, -4, 24, NULL);
    assert_non_null(col);
    uint32_t stairs_wl = mc_test_state(java, "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=true]");
    uint32_t stairs = mc_test_state(java, "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=false]");
    uint32_t chest_wl = mc_test_state(java, "minecraft:chest[facing=east,type=single,waterlogged=true]");
    uint32_t water = mc_test_state(java, "minecraft:water[level=0]");
    uint32_t slab_wl = mc_test_state(java, "minecraft:stone_slab[type=bottom,waterlogged=true]");
    uint32_t stone = mc_registry_default_state(java, "stone");
    /* section 0 (y 0..15): paletted, a mix */
    for (int x = 0; x < 16; x++)
        for (int z = 0; z < 16; z++) {
            uint32_t v = (x + z) % 4 == 0 ? stairs_wl : (x + z) % 4 == 1 ? stairs : (x + z) % 4 == 2 ? water : stone;
            assert_int_equal(mc_column_set_block(col, x, 3, z, v), MC_OK);
        }
    assert_int_equal(mc_column_set_block(col, 5, 7, 9, chest_wl), MC_OK);
    /* section 1 (y 16..31): every block a waterlogged slab (single value) */
    for (int x = 0; x < 16; x++)
        for (int z = 0; z < 16; z++)
            for (int y = 16; y < 32; y++)
                assert_int_equal(mc_column_set_block(col, x, y, z, slab_wl), MC_OK);
    /* section 2 (y 32..47): > 256 distinct states (direct), some waterlogged */
    uint32_t s = mc_registry_next_state(java, MC_STATE_NONE);
    for (int i = 0; i < 4096; i++) {
        if (i % 8 == 0)
            s = mc_registry_next_state(java, s);
        if (s == MC_STATE_NONE)
            s = mc_registry_next_state(java, MC_STATE_NONE);
        assert_int_equal(mc_column_set_block(col, i & 15, 32 + (i >> 8), (i >> 4) & 15, s), MC_OK);
    }
    mc_column_compact(col);
    assert_int_equal(mc_container_get_kind(&mc_column_section(col, 1)->blocks), MC_CONTAINER_SINGLE);
    assert_int_equal(mc_container_get_kind(&mc_column_section(col, 2)->blocks), MC_CONTAINER_DIRECT);

    for (int hashed = 0; hashed < 2; hashed++) {
        mc_bedrock_ids ids;
        assert_int_equal(mc_bedrock_ids_init(&ids, java, bed, hashed), MC_OK);
        assert_true(ids.from_java);
        uint32_t bwater = mc_test_state(bed, "minecraft:water[liquid_depth=0]");
        assert_int_equal(ids.water, hashed ? mc_registry_state_hash(bed, bwater) : bwater);
        mc_bedrock_column bc;
        mc_error err;
        assert_int_equal(mc_bedrock_column_from_mc_column(&bc, col, 0, &ids, NULL, &err), MC_OK);
        /* section 0: storage 1 of 1 bit, palette {air, water}, water exactly
         * at the waterlogged blocks; storage 0 has the blocks without water */
        const mc_bedrock_subchunk *sc = &bc.subchunks[4];
        assert_int_equal(sc->storage_count, 2);
        assert_int_equal(sc->storages[1].bits, 1);
        assert_int_equal(sc->storages[1].palette_len, 2);
        assert_int_equal(sc->storages[1].palette[0], ids.air);
        assert_int_equal(sc->storages[1].palette[1], ids.water);
        for (int x = 0; x < 16; x++)
            for (int z = 0; z < 16; z++)
                for (int y = 0; y < 16; y++) {
                    uint32_t j = mc_column_get_block(col, x, y, z);
                    unsigned bi = mc_bedrock_index((unsigned)x, (unsigned)y, (unsigned)z);
                    assert_int_equal(mc_bedrock_storage_get(&sc->storages[1], bi),
                                     waterlogged(java, j) ? ids.water : ids.air);
                    assert_int_equal(mc_bedrock_storage_get(&sc->storages[0], bi), mc_bedrock_ids_map(&ids, j));
                }
        assert_int_equal(mc_bedrock_storage_get(&sc->storages[0], mc_bedrock_index(0, 3, 0)),
                         mc_bedrock_ids_map(&ids, stairs));
        /* section 1: all water, one value */
        sc = &bc.subchunks[5];
        assert_int_equal(sc->storage_count, 2);
        assert_true(mc_bedrock_storage_is_uniform(&sc->storages[1], ids.water));
        /* section 2 (direct) */
        sc = &bc.subchunks[6];
        unsigned nwl = 0;
        for (int i = 0; i < 4096; i++) {
            uint32_t j = mc_column_get_block(col, i & 15, 32 + (i >> 8), (i >> 4) & 15);
            uint32_t w = sc->storage_count > 1 ? mc_bedrock_storage_get(&sc->storages[1],
                                                                         mc_bedrock_index(i & 15, i >> 8, (i >> 4) & 15))
                                               : ids.air;
            assert_int_equal(w, waterlogged(java, j) ? ids.water : ids.air);
            nwl += waterlogged(java, j);
        }
        assert_true(nwl > 0);
        assert_int_equal(sc->storage_count, 2);
        /* sections without waterlogged blocks stay at one storage */
        assert_int_equal(bc.subchunks[0].storage_count, 0);
        /* the network payload carries both storages and decodes again */
        mc_buf b;
        mc_buf_init(&b, NULL);
        assert_int_equal(mc_bedrock_column_subchunk_payload(&bc, 4, &b, &err), MC_OK);
        mc_bedrock_subchunk d;
        mc_bedrock_subchunk_init(&d, NULL);
        assert_int_equal(mc_bedrock_subchunk_decode(&d, b.data, b.len, MC_BEDROCK_FORM_NETWORK, NULL, &err), MC_OK);
        assert_int_equal(d.storage_count, 2);
        mc_bedrock_subchunk_free(&d);
        mc_buf_free(&b);

        /* and back to Java: the water layer makes waterlogged=true again */
        mc_column *back = mc_bedrock_column_to_mc_column_in(&bc, bed, hashed, java, NULL, &err);
        if (!back)
            fail_msg("%s", err.message);
        assert_ptr_equal(mc_column_registry(back), java);
        char n1[256], n2[256];
        for (int y = 0; y < 48; y++)
            for (int x = 0; x < 16; x++)
                for (int z = 0; z < 16; z++) {
                    uint32_t a = mc_column_get_block(col, x, y, z), b2 = mc_column_get_block(back, x, y, z);
                    if (mc_registry_state_prop_value(java, b2, "waterlogged") && waterlogged(java, a) != waterlogged(java, b2)) {
                        format(java, a, n1, sizeof n1);
                        format(java, b2, n2, sizeof n2);
                        fail_msg("(%d,%d,%d): %s came back as %s", x, y, z, n1, n2);
                    }
                }
        assert_int_equal(mc_column_get_block(back, 0, 3, 0), stairs_wl);
        assert_int_equal(mc_column_get_block(back, 1, 3, 0), stairs);
        assert_int_equal(mc_column_get_block(back, 2, 3, 0), water);
        assert_int_equal(mc_column_get_block(back, 7, 20, 7), slab_wl);
        assert_true(waterlogged(java, mc_column_get_block(back, 5, 7, 9)));
        /* no Bedrock bookkeeping in a Java column */
        mc_nbt_tag *extra = mc_column_extra(back);
        assert_null(mc_nbt_get(extra, "mcchunk:bedrock_layers"));
        mc_column_free(back);
        mc_bedrock_column_free(&bc);
    }
    mc_column_free(col);
}

/* ------------------------------------- Bedrock -> model -> Bedrock */

static void test_layers_roundtrip_generated(void **st)
{
    (void)st;
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!bed)
        skip();
    uint32_t air = mc_registry_air(bed);
    uint32_t water = mc_test_state(bed, "minecraft:water[liquid_depth=0]");
    uint32_t stone = mc_registry_default_state(bed, "stone");
    uint32_t kelp = mc_registry_default_state(bed, "kelp");
    uint32_t fence = mc_registry_default_state(bed, "oak_fence");
    for (int hashed = 0; hashed < 2; hashed++) {
        uint32_t (*h)(const mc_registry *, uint32_t) = mc_registry_state_hash;
#define ID(s) (hashed ? h(bed, (s)) : (s))
        mc_bedrock_column bc;
        assert_int_equal(mc_bedrock_column_init(&bc, 2, -3, 0, ID(air), NULL), MC_OK);
        uint32_t *v0 = malloc(4096 * sizeof *v0), *v1 = malloc(4096 * sizeof *v1);
        for (int i = 0; i < 4096; i++) {
            v0[i] = ID(i % 5 == 0 ? fence : i % 3 ? stone : kelp);
            v1[i] = ID(i % 5 == 0 ? water : air);
        }
        /* subchunk 1: storage 0 + a 1-bit water layer in vanilla's order;
         * subchunk 2: a layer whose palette starts with water (kept as is);
         * subchunk 3: three storages, the last one of stone (an odd one) */
        for (int k = 1; k <= 3; k++) {
            mc_bedrock_subchunk *sc = &bc.subchunks[k];
            assert_int_equal(mc_bedrock_storage_from_values(&sc->storages[0], v0, NULL), MC_OK);
            if (k == 2)
                v1[0] = ID(water);
            assert_int_equal(mc_bedrock_storage_from_values(&sc->storages[1], v1, NULL), MC_OK);
            sc->storage_count = 2;
            if (k == 3) {
                assert_int_equal(mc_bedrock_storage_init_single(&sc->storages[2], ID(stone), NULL), MC_OK);
                sc->storage_count = 3;
            }
        }
        assert_int_equal(bc.subchunks[2].storages[1].palette[0], ID(water));
        free(v0);
        free(v1);
        mc_bedrock_column_update_heights(&bc);
        mc_error err;
        mc_column *col = mc_bedrock_column_to_mc_column(&bc, bed, hashed, NULL, &err);
        if (!col)
            fail_msg("%s", err.message);
        mc_nbt_tag *layers = mc_nbt_get(mc_column_extra(col), "mcchunk:bedrock_layers");
        assert_non_null(layers);
        assert_int_equal(mc_nbt_count(layers), 4);
        mc_bedrock_ids ids;
        assert_int_equal(mc_bedrock_ids_init(&ids, bed, bed, hashed), MC_OK);
        assert_false(ids.from_java);
        mc_bedrock_column again;
        assert_int_equal(mc_bedrock_column_from_mc_column(&again, col, 0, &ids, NULL, &err), MC_OK);
        mc_buf a, b;
        mc_buf_init(&a, NULL);
        mc_buf_init(&b, NULL);
        for (uint32_t i = 0; i < bc.count; i++) {
            a.len = b.len = 0;
            assert_int_equal(mc_bedrock_column_subchunk_payload(&bc, i, &a, &err), MC_OK);
            assert_int_equal(mc_bedrock_column_subchunk_payload(&again, i, &b, &err), MC_OK);
            if (a.len != b.len || memcmp(a.data, b.data, a.len))
                fail_msg("subchunk %u differs after the model (%zu vs %zu bytes, hashed %d)", i, a.len, b.len, hashed);
        }
        assert_int_equal(again.subchunks[3].storage_count, 3);
        mc_buf_free(&a);
        mc_buf_free(&b);
        mc_bedrock_column_free(&again);
        /* another Bedrock version takes the layers by name */
        const mc_registry *old = mc_registry_find_bedrock("1.20.80");
        if (old && !hashed) {
            mc_column *t = mc_column_translate(col, old, NULL, &err);
            assert_non_null(t);
            assert_int_equal(mc_bedrock_ids_init(&ids, old, old, false), MC_OK);
            assert_int_equal(mc_bedrock_column_from_mc_column(&again, t, 0, &ids, NULL, &err), MC_OK);
            assert_int_equal(again.subchunks[1].storage_count, 2);
            assert_int_equal(mc_bedrock_storage_get(&again.subchunks[1].storages[1], 0),
                             mc_test_state(old, "minecraft:water[liquid_depth=0]"));
            mc_bedrock_column_free(&again);
            mc_column_free(t);
        }
        mc_column_free(col);
        mc_bedrock_column_free(&bc);
#undef ID
    }
}

/* Water alone in the water layer (air in storage 0) is not an all-air
 * subchunk: it counts for the highest subchunk and the engine sends it. */
static mc_status col_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_bedrock_column **out)
{
    const mc_bedrock_column *c = user;
    if (dim != c->dimension || cx != c->x || cz != c->z)
        return MC_ERR_NOT_FOUND;
    *out = c;
    return MC_OK;
}

static void test_water_only_subchunk(void **st)
{
    (void)st;
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!bed)
        skip();
    mc_bedrock_column bc;
    uint32_t air = mc_registry_air(bed);
    assert_int_equal(mc_bedrock_column_init(&bc, 0, 0, 0, air, NULL), MC_OK);
    mc_bedrock_subchunk *sc = &bc.subchunks[6];
    assert_int_equal(mc_bedrock_storage_init_single(&sc->storages[0], air, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_init_single(&sc->storages[1], air, NULL), MC_OK);
    assert_int_equal(mc_bedrock_storage_set(&sc->storages[1], 5, mc_test_state(bed, "minecraft:water[liquid_depth=0]"), NULL),
                     MC_OK);
    sc->storage_count = 2;
    mc_bedrock_column_update_heights(&bc);
    assert_int_equal(mc_bedrock_column_highest(&bc), 6);
    mc_bedrock_world_source src = {&bc, col_get, NULL};
    mc_bedrock_engine_options eo = {776, false, 0, 0};
    mc_bedrock_engine *e = mc_bedrock_engine_new(&src, &eo, NULL);
    uint8_t offs[] = {0, 2, 0, 0, 3, 0};
    mc_bedrock_subchunk_request rq = {0, 0, 0, 0, 2, offs};
    mc_buf out;
    mc_buf_init(&out, NULL);
    assert_int_equal(mc_bedrock_engine_answer_request(e, &rq, &out, NULL), MC_OK);
    mc_bedrock_subchunk_packet sp;
    assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp, 776, out.data, out.len, NULL, NULL), MC_OK);
    assert_int_equal(sp.entries[0].result, MC_BEDROCK_RESULT_SUCCESS);
    assert_int_equal(sp.entries[1].result, MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
    mc_bedrock_subchunk d;
    mc_bedrock_subchunk_init(&d, NULL);
    assert_int_equal(mc_bedrock_subchunk_decode(&d, sp.entries[0].payload, sp.entries[0].payload_len,
                                                MC_BEDROCK_FORM_NETWORK, NULL, NULL),
                     MC_OK);
    assert_int_equal(d.storage_count, 2);
    mc_bedrock_subchunk_free(&d);
    mc_bedrock_subchunk_packet_free(&sp);
    mc_buf_free(&out);
    mc_bedrock_engine_free(e);
    mc_bedrock_column_free(&bc);
}

/* A column of the disk-form subchunks of one corpus chunk. */
static bool corpus_column(mc_bedrock_column *bc, const char *dir, int32_t min_y, uint32_t count, uint32_t air)
{
    assert_int_equal(mc_bedrock_column_init_range(bc, 0, 0, 0, min_y, count, air, NULL), MC_OK);
    char rel[256];
    bool any2 = false;
    for (uint32_t i = 0; i < count; i++) {
        snprintf(rel, sizeof rel, "%s/SubChunkPrefix_y%d.bin", dir, min_y + (int)i);
        const char *p = mc_test_corpus_path(rel);
        FILE *f = p ? fopen(p, "rb") : NULL;
        if (!f)
            continue;
        fclose(f);
        size_t len;
        uint8_t *data = mc_test_read_file(p, &len);
        mc_error err;
        if (mc_bedrock_subchunk_decode(&bc->subchunks[i], data, len, MC_BEDROCK_FORM_AUTO, NULL, &err) != MC_OK)
            fail_msg("%s: %s", rel, err.message);
        any2 |= bc->subchunks[i].storage_count >= 2;
        free(data);
    }
    return any2;
}

static void test_corpus_water_layers(void **st)
{
    (void)st;
    MC_SKIP_WITHOUT_CORPUS();
    const mc_registry *bed = mc_registry_find_bedrock("1.17.30");
    const mc_registry *java = mc_registry_find("1.21.4");
    if (!bed || !java)
        skip();
    static const char *const chunks[] = {"bedrock/leveldb-extracted/1_17_20_caves_and_cliffs/x27_z7_dim0",
                                         "bedrock/leveldb-extracted/1_17_20_caves_and_cliffs/x0_z-3_dim0"};
    unsigned folded = 0, layered = 0;
    for (size_t c = 0; c < 2; c++) {
        mc_bedrock_column bc;
        assert_true(corpus_column(&bc, chunks[c], 0, 16, mc_registry_air(bed)));
        mc_error err;
        /* Bedrock -> model (Bedrock registry) -> Bedrock: every storage's
         * states at every index, and the layers' palette order and width */
        mc_column *col = mc_bedrock_column_to_mc_column(&bc, bed, false, NULL, &err);
        if (!col)
            fail_msg("%s: %s", chunks[c], err.message);
        mc_bedrock_ids ids;
        assert_int_equal(mc_bedrock_ids_init(&ids, bed, bed, false), MC_OK);
        mc_bedrock_column again;
        assert_int_equal(mc_bedrock_column_from_mc_column(&again, col, 0, &ids, NULL, &err), MC_OK);
        for (uint32_t i = 0; i < bc.count; i++) {
            const mc_bedrock_subchunk *a = &bc.subchunks[i], *b = &again.subchunks[i];
            if (a->storage_count < 2)
                continue;
            assert_int_equal(b->storage_count, a->storage_count);
            for (unsigned k = 1; k < a->storage_count; k++) {
                const mc_bedrock_storage *sa = &a->storages[k], *sb = &b->storages[k];
                assert_int_equal(sb->bits, sa->bits);
                assert_int_equal(sb->palette_len, sa->palette_len);
                for (uint32_t p = 0; p < sa->palette_len; p++) {
                    size_t tl;
                    const uint8_t *tag = mc_bedrock_subchunk_tag(a, sa->palette[p], &tl);
                    uint32_t s;
                    assert_int_equal(mc_bedrock_state_from_nbt(bed, tag, tl, false, &s, &err), MC_OK);
                    assert_int_equal(sb->palette[p], s);
                }
                assert_memory_equal(sb->words, sa->words, 4 * mc_bedrock_word_count(sa->bits));
                layered++;
            }
        }
        mc_bedrock_column_free(&again);
        mc_column_free(col);

        /* Bedrock -> Java: blocks with water in storage 1 come out
         * waterlogged where the Java block can be */
        mc_column *jc = mc_bedrock_column_to_mc_column_in(&bc, bed, false, java, NULL, &err);
        if (!jc)
            fail_msg("%s: %s", chunks[c], err.message);
        mc_column *plain = mc_bedrock_column_to_mc_column(&bc, bed, false, NULL, &err);
        assert_non_null(plain);
        mc_column *tr = mc_column_translate(plain, java, NULL, &err); /* the same without the water layer */
        assert_non_null(tr);
        for (uint32_t i = 0; i < bc.count; i++) {
            const mc_bedrock_subchunk *sc = &bc.subchunks[i];
            for (unsigned bi = 0; bi < 4096; bi++) {
                int x = (int)(bi >> 8), z = (int)((bi >> 4) & 15), y = (int)(i * 16 + (bi & 15));
                uint32_t j = mc_column_get_block(jc, x, y, z), t = mc_column_get_block(tr, x, y, z);
                bool water = false;
                if (sc->storage_count >= 2) {
                    size_t tl;
                    uint32_t pv = mc_bedrock_storage_get(&sc->storages[1], bi);
                    const uint8_t *tag = mc_bedrock_subchunk_tag(sc, pv, &tl);
                    uint32_t s;
                    assert_int_equal(mc_bedrock_state_from_nbt(bed, tag, tl, false, &s, &err), MC_OK);
                    water = !strcmp(mc_registry_state_name(bed, s), "minecraft:water");
                }
                bool can = mc_registry_state_prop_value(java, t, "waterlogged") != NULL;
                if (water && can) {
                    assert_true(waterlogged(java, j));
                    folded++;
                } else if (!(water && (mc_registry_state_flags(java, t) & MC_STATE_AIR))) {
                    assert_int_equal(j, t);
                }
            }
        }
        mc_column_free(tr);
        mc_column_free(plain);
        mc_column_free(jc);
        mc_bedrock_column_free(&bc);
    }
    /* x27_z7 y1: big dripleaves standing in water */
    print_message("corpus: %u extra storages kept exactly, %u waterlogged Java blocks from water layers\n", layered,
                  folded);
    assert_true(layered >= 3);
    assert_true(folded >= 7);
}

/* --------------------------------------------------- block entities */

static mc_nbt_doc *be_doc(mc_nbt_tag **root, const char *id)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    if (id)
        mc_nbt_put_string(doc, *root, "id", id, strlen(id));
    return doc;
}

/* The block entities of one subchunk's list, parsed: returns the one at
 * (x, y, z) in a doc (freed by the caller), or NULL. */
static mc_nbt_doc *find_be(const mc_buf *list, int32_t x, int32_t y, int32_t z, mc_nbt_tag **out)
{
    size_t off = 0;
    while (off < list->len) {
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        size_t used = 0;
        assert_int_equal(mc_nbt_parse_ex(doc, list->data + off, list->len - off, MC_NBT_BEDROCK_NETWORK,
                                         MC_NBT_PARSE_PREFIX, NULL, &used, NULL),
                         MC_OK);
        mc_nbt_tag *r = mc_nbt_doc_root(doc);
        int32_t bx, by, bz;
        assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "x"), &bx), MC_OK);
        assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "y"), &by), MC_OK);
        assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "z"), &bz), MC_OK);
        if (bx == x && by == y && bz == z) {
            *out = r;
            return doc;
        }
        mc_nbt_doc_free(doc);
        off += used;
    }
    return NULL;
}

static void assert_str(const mc_nbt_tag *t, const char *want)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(t, &s, &n) != MC_OK)
        fail_msg("no string (want \"%s\")", want);
    if (n != strlen(want) || memcmp(s, want, n))
        fail_msg("\"%.*s\" != \"%s\"", (int)n, s, want);
}

static int32_t get_int(const mc_nbt_tag *t)
{
    int64_t v = -12345;
    assert_int_equal(mc_nbt_get_integer(t, &v), MC_OK);
    return (int32_t)v;
}

/* A Java 1.21.4 column (chunk 2, -1) with one block entity of each kind. */
static mc_column *be_column(const mc_registry *java)
{
    mc_column *col = mc_column_new(java, 2, -1, -4, 24, NULL);
    assert_non_null(col);
    int32_t bx = 32, bz = -16;
    struct {
        const char *block;
        int x, y, z;
    } blocks[] = {
        {"minecraft:chest[facing=north,type=left,waterlogged=false]", 1, 70, 1},
        {"minecraft:chest[facing=north,type=right,waterlogged=false]", 2, 70, 1},
        {"minecraft:oak_sign[rotation=4,waterlogged=false]", 3, 70, 3},
        {"minecraft:oak_wall_sign[facing=south,waterlogged=false]", 4, 70, 3},
        {"minecraft:blue_bed[facing=east,occupied=false,part=head]", 5, 70, 5},
        {"minecraft:light_blue_banner[rotation=0]", 6, 70, 6},
        {"minecraft:creeper_head[powered=false,rotation=8]", 7, 70, 7},
        {"minecraft:spawner", 8, -60, 8},
        {"minecraft:moving_piston[facing=north,type=normal]", 9, 70, 9},
        {"minecraft:furnace[facing=north,lit=false]", 10, 5, 10},
    };
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        assert_int_equal(mc_column_set_block(col, bx + blocks[i].x, blocks[i].y, bz + blocks[i].z,
                                             mc_test_state(java, blocks[i].block)),
                         MC_OK);
    mc_nbt_tag *r;
    mc_nbt_doc *d;
    /* chests (1.18+ model form: id, no x/y/z) */
    for (int i = 1; i <= 2; i++) {
        d = be_doc(&r, "minecraft:chest");
        static const char name[] = "{\"text\":\"Lo\\u00f6t\",\"extra\":[\"!\",{\"text\":\"?\"}]}";
        mc_nbt_put_string(d, r, "CustomName", name, sizeof name - 1);
        mc_nbt_put_list(d, r, "Items", MC_NBT_COMPOUND);
        assert_int_equal(mc_column_put_block_entity(col, bx + i, 70, bz + 1, r), MC_OK);
        mc_nbt_doc_free(d);
    }
    /* a 1.20+ sign with two sides */
    d = be_doc(&r, "minecraft:sign");
    mc_nbt_tag *ft = mc_nbt_put_compound(d, r, "front_text");
    mc_nbt_tag *m = mc_nbt_put_list(d, ft, "messages", MC_NBT_STRING);
    const char *lines[4] = {"\"Hello\"", "{\"text\":\"wor\",\"extra\":[{\"text\":\"ld\"}]}", "\"\"", "plain {text"};
    for (int i = 0; i < 4; i++)
        mc_nbt_set_string(d, mc_nbt_list_append(d, m, MC_NBT_STRING), lines[i], strlen(lines[i]));
    mc_nbt_put_string(d, ft, "color", "red", 3);
    mc_nbt_put_byte(d, ft, "has_glowing_text", 1);
    mc_nbt_tag *bt = mc_nbt_put_compound(d, r, "back_text");
    m = mc_nbt_put_list(d, bt, "messages", MC_NBT_STRING);
    for (int i = 0; i < 4; i++)
        mc_nbt_set_string(d, mc_nbt_list_append(d, m, MC_NBT_STRING), "\"b\"", 3);
    mc_nbt_put_byte(d, r, "is_waxed", 1);
    assert_int_equal(mc_column_put_block_entity(col, bx + 3, 70, bz + 3, r), MC_OK);
    mc_nbt_doc_free(d);
    /* a 1.8-1.19 sign (no id: the block decides) */
    d = be_doc(&r, NULL);
    mc_nbt_put_string(d, r, "Text1", "{\"text\":\"old\"}", 14);
    mc_nbt_put_string(d, r, "Text2", "\"two\"", 5);
    assert_int_equal(mc_column_put_block_entity(col, bx + 4, 70, bz + 3, r), MC_OK);
    mc_nbt_doc_free(d);
    /* bed, banner (1.20.5+ patterns), skull, spawner, moving piston, furnace */
    d = be_doc(&r, "minecraft:bed");
    assert_int_equal(mc_column_put_block_entity(col, bx + 5, 70, bz + 5, r), MC_OK);
    mc_nbt_doc_free(d);
    d = be_doc(&r, "minecraft:banner");
    mc_nbt_tag *pl = mc_nbt_put_list(d, r, "patterns", MC_NBT_COMPOUND);
    mc_nbt_tag *p = mc_nbt_list_append(d, pl, MC_NBT_COMPOUND);
    mc_nbt_put_string(d, p, "pattern", "minecraft:stripe_top", 20);
    mc_nbt_put_string(d, p, "color", "red", 3);
    p = mc_nbt_list_append(d, pl, MC_NBT_COMPOUND);
    mc_nbt_put_string(d, p, "pattern", "minecraft:creeper", 17);
    mc_nbt_put_string(d, p, "color", "white", 5);
    assert_int_equal(mc_column_put_block_entity(col, bx + 6, 70, bz + 6, r), MC_OK);
    mc_nbt_doc_free(d);
    d = be_doc(&r, "minecraft:skull");
    assert_int_equal(mc_column_put_block_entity(col, bx + 7, 70, bz + 7, r), MC_OK);
    mc_nbt_doc_free(d);
    d = be_doc(&r, "minecraft:mob_spawner");
    mc_nbt_tag *sd = mc_nbt_put_compound(d, r, "SpawnData");
    mc_nbt_tag *en = mc_nbt_put_compound(d, sd, "entity");
    mc_nbt_put_string(d, en, "id", "minecraft:zombie", 16);
    assert_int_equal(mc_column_put_block_entity(col, bx + 8, -60, bz + 8, r), MC_OK);
    mc_nbt_doc_free(d);
    d = be_doc(&r, "minecraft:piston");
    assert_int_equal(mc_column_put_block_entity(col, bx + 9, 70, bz + 9, r), MC_OK);
    mc_nbt_doc_free(d);
    d = be_doc(&r, "minecraft:furnace");
    mc_nbt_put_short(d, r, "BurnTime", 5);
    assert_int_equal(mc_column_put_block_entity(col, bx + 10, 5, bz + 10, r), MC_OK);
    mc_nbt_doc_free(d);
    return col;
}

static void test_java_block_entities(void **st)
{
    (void)st;
    const mc_registry *java = mc_registry_find("1.21.4");
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!java || !bed)
        skip();
    assert_string_equal(mc_bedrock_block_entity_id("minecraft:trapped_chest", 23), "Chest");
    assert_string_equal(mc_bedrock_block_entity_id("Trap", 4), "Dispenser");
    assert_string_equal(mc_bedrock_block_entity_id("minecraft:enchanting_table", 26), "EnchantTable");
    assert_null(mc_bedrock_block_entity_id("minecraft:piston", 16));
    assert_string_equal(mc_bedrock_block_entity_java_id("Chest", 5), "minecraft:chest");

    mc_column *col = be_column(java);
    mc_bedrock_ids ids;
    assert_int_equal(mc_bedrock_ids_init(&ids, java, bed, false), MC_OK);
    mc_bedrock_column bc;
    mc_error err;
    assert_int_equal(mc_bedrock_column_from_mc_column(&bc, col, 0, &ids, NULL, &err), MC_OK);
    int32_t bx = 32, bz = -16;
    const mc_buf *s8 = &bc.block_entities[(70 >> 4) + 4];
    mc_nbt_tag *r;
    mc_nbt_doc *d;
    /* chests: the pair, the name's text */
    d = find_be(s8, bx + 1, 70, bz + 1, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Chest");
    assert_int_equal(get_int(mc_nbt_get(r, "isMovable")), 1);
    assert_int_equal(get_int(mc_nbt_get(r, "pairx")), bx + 2); /* facing north, left: east */
    assert_int_equal(get_int(mc_nbt_get(r, "pairz")), bz + 1);
    assert_null(mc_nbt_get(r, "pairlead"));
    assert_str(mc_nbt_get(r, "CustomName"), "Lo\xc3\xb6t!?");
    assert_null(mc_nbt_get(r, "Items"));
    mc_nbt_doc_free(d);
    d = find_be(s8, bx + 2, 70, bz + 1, &r);
    assert_non_null(d);
    assert_int_equal(get_int(mc_nbt_get(r, "pairx")), bx + 1);
    assert_int_equal(get_int(mc_nbt_get(r, "pairlead")), 1);
    mc_nbt_doc_free(d);
    /* 1.20 sign */
    d = find_be(s8, bx + 3, 70, bz + 3, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Sign");
    assert_str(mc_nbt_get(mc_nbt_get(r, "FrontText"), "Text"), "Hello\nworld\n\nplain {text");
    assert_int_equal((uint32_t)get_int(mc_nbt_get(mc_nbt_get(r, "FrontText"), "SignTextColor")), 0xFFFF0000u);
    assert_int_equal(get_int(mc_nbt_get(mc_nbt_get(r, "FrontText"), "IgnoreLighting")), 1);
    assert_str(mc_nbt_get(mc_nbt_get(r, "BackText"), "Text"), "b\nb\nb\nb");
    assert_int_equal((uint32_t)get_int(mc_nbt_get(mc_nbt_get(r, "BackText"), "SignTextColor")), 0xFF000000u);
    assert_str(mc_nbt_get(r, "Text"), "Hello\nworld\n\nplain {text");
    assert_int_equal(get_int(mc_nbt_get(r, "IsWaxed")), 1);
    mc_nbt_doc_free(d);
    /* old sign without id */
    d = find_be(s8, bx + 4, 70, bz + 3, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Sign");
    assert_str(mc_nbt_get(r, "Text"), "old\ntwo\n\n");
    mc_nbt_doc_free(d);
    /* bed: blue = 11 */
    d = find_be(s8, bx + 5, 70, bz + 5, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Bed");
    assert_int_equal(get_int(mc_nbt_get(r, "color")), 11);
    mc_nbt_doc_free(d);
    /* banner: light blue (3) -> Base 12; red stripe_top -> ts/1, white creeper -> cre/15 */
    d = find_be(s8, bx + 6, 70, bz + 6, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Banner");
    assert_int_equal(get_int(mc_nbt_get(r, "Base")), 12);
    mc_nbt_tag *pl = mc_nbt_get(r, "Patterns");
    assert_int_equal(mc_nbt_count(pl), 2);
    assert_str(mc_nbt_get(mc_nbt_list_at(pl, 0), "Pattern"), "ts");
    assert_int_equal(get_int(mc_nbt_get(mc_nbt_list_at(pl, 0), "Color")), 1);
    assert_str(mc_nbt_get(mc_nbt_list_at(pl, 1), "Pattern"), "cre");
    assert_int_equal(get_int(mc_nbt_get(mc_nbt_list_at(pl, 1), "Color")), 15);
    mc_nbt_doc_free(d);
    /* creeper head, rotation 8 -> 180 degrees */
    d = find_be(s8, bx + 7, 70, bz + 7, &r);
    assert_non_null(d);
    assert_int_equal(get_int(mc_nbt_get(r, "SkullType")), 4);
    float rot = 0;
    assert_int_equal(mc_nbt_get_float(mc_nbt_get(r, "Rotation"), &rot), MC_OK);
    assert_true(rot == 180.0f);
    mc_nbt_doc_free(d);
    /* the moving piston has no Bedrock block entity */
    assert_null(find_be(s8, bx + 9, 70, bz + 9, &r));
    /* spawner in subchunk y -4, furnace in y 0 */
    d = find_be(&bc.block_entities[0], bx + 8, -60, bz + 8, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "MobSpawner");
    assert_str(mc_nbt_get(r, "EntityIdentifier"), "minecraft:zombie");
    mc_nbt_doc_free(d);
    d = find_be(&bc.block_entities[4], bx + 10, 5, bz + 10, &r);
    assert_non_null(d);
    assert_str(mc_nbt_get(r, "id"), "Furnace");
    assert_null(mc_nbt_get(r, "BurnTime"));
    mc_nbt_doc_free(d);

    /* back to Java: the ids are Java's again */
    mc_column *back = mc_bedrock_column_to_mc_column_in(&bc, bed, false, java, NULL, &err);
    assert_non_null(back);
    const char *s;
    size_t n;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_column_block_entity(back, bx + 1, 70, bz + 1), "id"), &s, &n),
                     MC_OK);
    assert_int_equal(n, 15);
    assert_memory_equal(s, "minecraft:chest", 15);
    mc_column_free(back);
    mc_bedrock_column_free(&bc);
    mc_column_free(col);
}

/* The engine over a Java world: Success payloads carry the translated
 * block entities of their subchunk and only those. */
typedef struct one_world {
    mc_column *col;
} one_world;

static mc_status one_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_column **out)
{
    one_world *w = user;
    if (dim != 0 || cx != mc_column_x(w->col) || cz != mc_column_z(w->col))
        return MC_ERR_NOT_FOUND;
    *out = w->col;
    return MC_OK;
}

static void test_engine_block_entities(void **st)
{
    (void)st;
    const mc_registry *java = mc_registry_find("1.21.4");
    const mc_registry *bed = mc_registry_find_bedrock("1.21.60");
    if (!java || !bed)
        skip();
    one_world w = {be_column(java)};
    mc_bedrock_column_provider prov = {&w, one_get, NULL};
    mc_bedrock_mc_source *src = mc_bedrock_mc_source_new(&prov, bed, false, 4, NULL);
    mc_bedrock_world_source ws = mc_bedrock_mc_source_world(src);
    for (int cache = 0; cache < 2; cache++) {
        mc_bedrock_engine_options eo = {776, cache != 0, 0, 0};
        mc_bedrock_engine *e = mc_bedrock_engine_new(&ws, &eo, NULL);
        uint8_t offs[] = {0, (uint8_t)-4, 0, 0, 0, 0, 0, 4, 0, 0, 5, 0};
        mc_bedrock_subchunk_request rq = {0, 2, 0, -1, 4, offs};
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_error err;
        assert_int_equal(mc_bedrock_engine_answer_request(e, &rq, &out, &err), MC_OK);
        mc_bedrock_subchunk_packet sp;
        assert_int_equal(mc_bedrock_subchunk_packet_decode(&sp, 776, out.data, out.len, NULL, &err), MC_OK);
        static const int want[4] = {1, 1, 7, 0}; /* block entities per entry: spawner, furnace, 7 at y 64..79, none */
        for (int i = 0; i < 4; i++) {
            const uint8_t *pl = sp.entries[i].payload;
            size_t len = sp.entries[i].payload_len;
            assert_int_equal(sp.entries[i].result, want[i] ? MC_BEDROCK_RESULT_SUCCESS : MC_BEDROCK_RESULT_SUCCESS_ALL_AIR);
            if (!want[i])
                continue; /* all air: no subchunk, no block entities */
            if (cache) {
                pl = mc_bedrock_blob_cache_get(mc_bedrock_engine_cache(e), sp.entries[i].blob_id, &len);
                assert_non_null(pl);
            }
            mc_bedrock_subchunk sc;
            mc_bedrock_subchunk_init(&sc, NULL);
            size_t used;
            if (mc_bedrock_subchunk_decode(&sc, pl, len, MC_BEDROCK_FORM_NETWORK, &used, &err) != MC_OK)
                fail_msg("entry %d (cache %d): %s", i, cache, err.message);
            mc_bedrock_subchunk_free(&sc);
            int count = 0;
            while (used < len) {
                mc_nbt_doc *d = mc_nbt_doc_new(NULL);
                size_t u = 0;
                assert_int_equal(mc_nbt_parse_ex(d, pl + used, len - used, MC_NBT_BEDROCK_NETWORK, MC_NBT_PARSE_PREFIX,
                                                 NULL, &u, &err),
                                 MC_OK);
                mc_nbt_tag *r = mc_nbt_doc_root(d);
                int32_t y;
                assert_int_equal(mc_nbt_get_int(mc_nbt_get(r, "y"), &y), MC_OK);
                assert_int_equal(y >> 4, (int8_t)offs[3 * i + 1]); /* in its own subchunk */
                const char *s;
                size_t n;
                assert_int_equal(mc_nbt_get_string(mc_nbt_get(r, "id"), &s, &n), MC_OK);
                assert_true(n > 0 && s[0] >= 'A' && s[0] <= 'Z'); /* Bedrock names */
                mc_nbt_doc_free(d);
                used += u;
                count++;
            }
            if (count != want[i])
                fail_msg("entry %d: %d block entities, want %d (cache %d)", i, count, want[i], cache);
        }
        mc_bedrock_subchunk_packet_free(&sp);
        mc_buf_free(&out);
        mc_bedrock_engine_free(e);
    }
    mc_bedrock_mc_source_free(src);
    mc_column_free(w.col);
}

/* Text components that are not quite JSON stay plain text; deep or broken
 * JSON does not crash. */
static void test_sign_text_edge_cases(void **st)
{
    (void)st;
    const char *cases[][2] = {
        {"\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"", "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80"},
        {"{\"extra\":[\"x\"],\"text\":\"t\"}", "tx"},
        {"{\"translate\":\"block.minecraft.stone\"}", ""},
        {"[\"a\",{\"text\":\"b\"},1]", "ab"},
        {"\"unterminated", "\"unterminated"},
        {"{\"text\":\"x\"} trailing", "{\"text\":\"x\"} trailing"},
        {"[[[[[[[[[[[[[[[[[[[[[[[[\"deep\"]]]]]]]]]]]]]]]]]]]]]]]]", "[[[[[[[[[[[[[[[[[[[[[[[[\"deep\"]]]]]]]]]]]]]]]]]]]]]]]]"},
        {"\"\\ud800\"", "\xef\xbf\xbd"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mc_nbt_tag *r;
        mc_nbt_doc *d = be_doc(&r, "minecraft:sign");
        mc_nbt_put_string(d, r, "Text1", cases[i][0], strlen(cases[i][0]));
        mc_buf out;
        mc_buf_init(&out, NULL);
        assert_int_equal(mc_bedrock_block_entity_from_java(r, 1, 2, 3, NULL, 0, &out, NULL), MC_OK);
        mc_nbt_doc_free(d);
        d = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(d, out.data, out.len, MC_NBT_BEDROCK_NETWORK, NULL, NULL), MC_OK);
        char want[256];
        snprintf(want, sizeof want, "%s\n\n\n", cases[i][1]);
        assert_str(mc_nbt_get(mc_nbt_doc_root(d), "Text"), want);
        mc_nbt_doc_free(d);
        mc_buf_free(&out);
    }
}

/* mc_bedrock_state_to_nbt's tag of `state` in `b` (emptied first), parsed
 * back as a document (which points into `b`). */
static mc_nbt_doc *state_tag(mc_buf *b, const mc_registry *bed, uint32_t state, bool network)
{
    b->len = 0;
    assert_int_equal(mc_bedrock_state_to_nbt(bed, state, network, b, NULL), MC_OK);
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(d, b->data, b->len, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, NULL, NULL),
                     MC_OK);
    return d;
}

/* mc_bedrock_state_to_nbt: every state of two Bedrock registries as a
 * palette tag in both NBT forms reads back (mc_bedrock_state_from_nbt) as
 * the same state; one tag checked field by field (name, "true"/"false" as
 * a byte, numbers as ints, other values as strings, the version int). */
static void test_state_tags_round_trip(void **st)
{
    (void)st;
    const char *versions[] = {"1.21.60", "1.20.80"};
    for (size_t v = 0; v < 2; v++) {
        const mc_registry *bed = mc_test_registry(versions[v]);
        size_t n = 0;
        for (uint32_t s = mc_registry_next_state(bed, MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(bed, s), n++)
            for (int network = 0; network < 2; network++) {
                mc_buf b;
                mc_buf_init(&b, NULL);
                assert_int_equal(mc_bedrock_state_to_nbt(bed, s, network, &b, NULL), MC_OK);
                uint32_t back = MC_STATE_NONE;
                mc_error err;
                if (mc_bedrock_state_from_nbt(bed, b.data, b.len, network, &back, &err) != MC_OK || back != s)
                    fail_msg("%s state %u (%s) came back as %u", versions[v], s, mc_registry_state_name(bed, s),
                             back);
                mc_buf_free(&b);
            }
        assert_true(n > 10000);
    }
    const mc_registry *bed = mc_test_registry("1.21.60");
    uint32_t door = mc_test_state(bed, "minecraft:warped_door[door_hinge_bit=true,"
                                       "minecraft:cardinal_direction=west,open_bit=false,upper_block_bit=true]");
    uint32_t wall = mc_test_state(bed, "minecraft:mossy_cobblestone_wall["
                                       "wall_connection_type_east=tall,wall_connection_type_north=none,"
                                       "wall_connection_type_south=short,wall_connection_type_west=none,"
                                       "wall_post_bit=false]");
    uint32_t kelp = mc_test_state(bed, "minecraft:kelp[kelp_age=7]");
    const char *str;
    size_t len;
    int64_t iv;
    mc_buf b;
    mc_buf_init(&b, NULL);
    mc_nbt_doc *d = state_tag(&b, bed, door, false);
    mc_nbt_tag *root = mc_nbt_doc_root(d), *states = mc_nbt_get(root, "states");
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(root, "name"), &str, &len), MC_OK);
    assert_true(len == 21 && !memcmp(str, "minecraft:warped_door", 21));
    assert_int_equal(mc_nbt_tag_type(mc_nbt_get(root, "version")), MC_NBT_INT);
    assert_int_equal(mc_nbt_tag_type(mc_nbt_get(states, "door_hinge_bit")), MC_NBT_BYTE);
    assert_int_equal(mc_nbt_get_integer(mc_nbt_get(states, "door_hinge_bit"), &iv), MC_OK);
    assert_int_equal(iv, 1);
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(states, "minecraft:cardinal_direction"), &str, &len), MC_OK);
    assert_true(len == 4 && !memcmp(str, "west", 4));
    mc_nbt_doc_free(d);
    d = state_tag(&b, bed, kelp, true);
    states = mc_nbt_get(mc_nbt_doc_root(d), "states");
    assert_int_equal(mc_nbt_tag_type(mc_nbt_get(states, "kelp_age")), MC_NBT_INT);
    assert_int_equal(mc_nbt_get_integer(mc_nbt_get(states, "kelp_age"), &iv), MC_OK);
    assert_int_equal(iv, 7);
    mc_nbt_doc_free(d);
    d = state_tag(&b, bed, wall, true);
    states = mc_nbt_get(mc_nbt_doc_root(d), "states");
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(states, "wall_connection_type_south"), &str, &len), MC_OK);
    assert_true(len == 5 && !memcmp(str, "short", 5));
    assert_int_equal(mc_nbt_tag_type(mc_nbt_get(states, "wall_post_bit")), MC_NBT_BYTE);
    mc_nbt_doc_free(d);
    assert_int_equal(mc_bedrock_state_to_nbt(bed, 0xFFFFFFF0u, false, &b, NULL), MC_ERR_NOT_FOUND);
    mc_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_waterlogged_to_bedrock),
        cmocka_unit_test(test_layers_roundtrip_generated),
        cmocka_unit_test(test_water_only_subchunk),
        cmocka_unit_test(test_corpus_water_layers),
        cmocka_unit_test(test_java_block_entities),
        cmocka_unit_test(test_engine_block_entities),
        cmocka_unit_test(test_sign_text_edge_cases),
        cmocka_unit_test(test_state_tags_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
