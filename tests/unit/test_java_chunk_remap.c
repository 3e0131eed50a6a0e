/*
 * test_java_chunk_remap.c: encoding a column for another protocol through a
 * translated view (palettes remapped over the column's own longs) gives the
 * same bytes as the copy-then-encode path it replaced: mc_column_translate
 * to the protocol's registry, then an encode of the copy in its own
 * registry.
 *
 * Columns: the full chunks of Anvil regions written by vanilla (1.8.9,
 * 1.12.2, 1.16, 1.18.2, 1.20.6, 1.21.1, 1.21.11), columns decoded from
 * captured Chunk Data packets (1.8 to 1.21.x: 2D biome arrays and light
 * edges in their extra NBT) and generated columns of several registries
 * (every container kind, direct ones included). Protocols: one of every
 * era and most 1.18+ releases, both Chunk Data (with Update Light), the 1.8
 * Map Chunk Bulk and the 1.19.4+ Chunk Biomes packets. The view itself is
 * checked entry by entry against mc_registry_translate_state (except where
 * a block entity decides the block: test_java_chunk_be).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_gen.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

static const uint32_t protocols[] = {47,  340, 404, 498, 578, 735, 754, 756, 758,
                                     762, 763, 765, 767, 769, 770, 774, 775};
#define NPROTO (sizeof protocols / sizeof protocols[0])

typedef struct tally {
    unsigned columns, encodes, translated, kept_heightmaps;
} tally;

/* The packet (and Update Light) the old path gives: copy, then encode. */
static mc_status encode_copied(const mc_column *col, uint32_t protocol, mc_buf *out, mc_buf *light)
{
    const mc_registry *reg = mc_registry_find_protocol((int32_t)protocol);
    mc_error err;
    mc_column *t = mc_column_translate(col, reg, NULL, &err);
    assert_non_null(t);
    mc_status st = mc_java_encode_chunk(t, protocol, out, light, &err);
    mc_column_free(t);
    return st;
}

static void check_column(const mc_column *col, const char *what, tally *t)
{
    mc_buf a, b, la, lb;
    mc_buf_init(&a, NULL);
    mc_buf_init(&b, NULL);
    mc_buf_init(&la, NULL);
    mc_buf_init(&lb, NULL);
    t->columns++;
    for (size_t p = 0; p < NPROTO; p++) {
        const mc_registry *reg = mc_registry_find_protocol((int32_t)protocols[p]);
        a.len = b.len = la.len = lb.len = 0;
        mc_error err;
        mc_status sa = mc_java_encode_chunk(col, protocols[p], &a, &la, &err);
        mc_status sb = encode_copied(col, protocols[p], &b, &lb);
        assert_int_equal(sa, sb);
        if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len)) || la.len != lb.len ||
            (la.len && memcmp(la.data, lb.data, la.len))) {
            size_t k = 0;
            while (k < a.len && k < b.len && a.data[k] == b.data[k])
                k++;
            print_message("%s -> protocol %u: %zu vs %zu bytes, first difference at byte %zu\n", what,
                          protocols[p], a.len, b.len, k);
            fail();
        }
        t->encodes++;
        if (reg != mc_column_registry(col)) {
            t->translated++;
            mc_column_view *v = mc_column_view_new(col, reg, NULL, &err);
            assert_non_null(v);
            t->kept_heightmaps += mc_column_view_heightmaps_kept(v);
            mc_column_view_free(v);
        }
    }
    /* the 1.8 bulk packet and the 1.19.4+ biomes packet of the column */
    const mc_column *one[1] = {col};
    static const uint32_t biome_protocols[] = {762, 769, 775};
    for (int k = 0; k < 4; k++) {
        const uint32_t proto = k == 0 ? 47 : biome_protocols[k - 1];
        const mc_registry *reg = mc_registry_find_protocol((int32_t)proto);
        mc_error err;
        mc_column *tc = mc_column_translate(col, reg, NULL, &err);
        const mc_column *tone[1] = {tc};
        a.len = b.len = 0;
        if (k == 0) {
            assert_int_equal(mc_java_encode_chunk_bulk(one, 1, proto, true, &a, &err), MC_OK);
            assert_int_equal(mc_java_encode_chunk_bulk(tone, 1, proto, true, &b, &err), MC_OK);
        } else {
            assert_int_equal(mc_java_encode_chunk_biomes(one, 1, proto, &a, &err), MC_OK);
            assert_int_equal(mc_java_encode_chunk_biomes(tone, 1, proto, &b, &err), MC_OK);
        }
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        mc_column_free(tc);
    }
    mc_buf_free(&a);
    mc_buf_free(&b);
    mc_buf_free(&la);
    mc_buf_free(&lb);
}

/* Every chunk the game finished in a corpus region, at most `max`. */
static void check_region(const char *rel, unsigned max, tally *t)
{
    const char *path = mc_test_corpus_path(rel);
    mc_region *r = NULL;
    mc_error err;
    assert_non_null(path);
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    unsigned done = 0;
    for (int k = 0; k < 1024 && done < max; k++) {
        nbt.len = 0;
        if (!mc_region_has_chunk(r, k & 31, k >> 5) ||
            mc_region_read_chunk(r, k & 31, k >> 5, &nbt, NULL, &err) != MC_OK)
            continue;
        mc_column *col = NULL;
        mc_chunknbt_info info;
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(doc, nbt.data, nbt.len, MC_NBT_JAVA, NULL, &err), MC_OK);
        assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(doc), NULL, &col, &info, &err), MC_OK);
        mc_nbt_doc_free(doc);
        const bool full = !info.status || (info.status_len >= 4 && !memcmp(info.status + info.status_len - 4, "full", 4));
        if (full) {
            char what[256];
            snprintf(what, sizeof what, "%s chunk %d %d", rel, (int)mc_column_x(col), (int)mc_column_z(col));
            check_column(col, what, t);
            done++;
        }
        mc_column_free(col);
    }
    assert_true(done > 0);
    mc_buf_free(&nbt);
    mc_region_close(r);
}

static void test_corpus_regions(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    static const char *const regions[] = {
        "anvil/1.8.9/ppa-r.-1.0.mca",  "anvil/1.12.2/ppa-r.0.-1.mca", "anvil/1.16/ppa-r.0.-1.mca",
        "anvil/1.18.2/ppa-r.0.0.mca",  "anvil/1.20.6/ppa-r.0.0.mca",  "anvil/1.21.1/ppa-r.0.0.mca",
        "anvil/1.21.11/minestom-r.-1.-1.mca",
    };
    tally t = {0};
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
        check_region(regions[i], 4, &t);
    print_message("corpus regions: %u columns, %u encodes identical (%u translated; the column's own "
                  "heightmaps kept in %u)\n", t.columns, t.encodes, t.translated, t.kept_heightmaps);
    assert_true(t.kept_heightmaps > 0);
}

static uint32_t protocol_of_dir(const char *path)
{
    const char *p = strstr(path, "java-packets/");
    char ver[32];
    size_t n = 0;
    if (!p)
        return 0;
    p += strlen("java-packets/");
    while (p[n] && p[n] != '/' && n < sizeof ver - 1) {
        ver[n] = p[n];
        n++;
    }
    ver[n] = 0;
    mc_version_info v;
    return mc_java_version_find(ver, &v) ? (uint32_t)v.protocol : 0;
}

static void test_corpus_packets(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("java-packets", ".raw");
    tally t = {0};
    unsigned per_dir = 0;
    char last[512] = "";
    for (char **f = files; *f; f++) {
        const uint32_t protocol = protocol_of_dir(*f);
        if (!protocol || !strstr(*f, "/map_chunk/"))
            continue;
        size_t dl = (size_t)(strrchr(*f, '/') - *f);
        if (dl < sizeof last && (strlen(last) != dl || memcmp(last, *f, dl))) {
            memcpy(last, *f, dl);
            last[dl] = 0;
            per_dir = 0;
        }
        if (per_dir++ >= 2) /* two captures per version */
            continue;
        size_t len;
        uint8_t *data = mc_test_read_file(*f, &len);
        mc_column *col = NULL;
        mc_error err;
        if (mc_java_decode_chunk(data, len, protocol, NULL, &col, NULL, &err) == MC_OK) {
            check_column(col, *f, &t);
            mc_column_free(col);
        }
        free(data);
    }
    mc_test_free_list(files);
    print_message("captured packets: %u columns, %u encodes identical (%u translated)\n", t.columns, t.encodes,
                  t.translated);
    assert_true(t.columns >= 10);
}

static void test_generated(void **state)
{
    (void)state;
    static const char *const versions[] = {"1.8.9", "1.12.2", "1.13.2", "1.16.5", "1.18.2", "1.20.4", "1.21.4", "26.1"};
    tally t = {0};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const mc_registry *reg = mc_registry_find(versions[i]);
        assert_non_null(reg);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            const bool tall = mc_registry_state_count(reg) > 4096 && strcmp(versions[i], "1.16.5") > 0;
            mc_column *col = mc__gen_column(reg, seed * 7 + i, (int32_t)seed, -(int32_t)i, tall ? -4 : 0, tall ? 24 : 16);
            assert_non_null(col);
            if (seed == 2)
                assert_int_equal(mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL), MC_OK);
            char what[64];
            snprintf(what, sizeof what, "generated %s seed %u", versions[i], (unsigned)seed);
            check_column(col, what, &t);
            mc_column_free(col);
        }
    }
    print_message("generated: %u columns, %u encodes identical (%u translated)\n", t.columns, t.encodes,
                  t.translated);
}

/* The blocks of section sy (index bits) where the view has a block entity. */
static void view_block_entities_in(const mc_column_view *v, int32_t sy, uint8_t *bits)
{
    memset(bits, 0, 4096 / 8);
    for (size_t i = 0; i < mc_column_view_block_entity_count(v); i++) {
        int32_t x, y, z;
        mc_column_view_block_entity_at(v, i, &x, &y, &z);
        if (y >> 4 == sy) {
            const unsigned k = mc_block_index((unsigned)x, (unsigned)y, (unsigned)z);
            bits[k >> 3] |= (uint8_t)(1u << (k & 7));
        }
    }
}

/* The view's sections hold exactly the translated states (but where a
 * block entity decides its block), and its counts (when known) are the
 * target's. */
static void test_view_entries(void **state)
{
    (void)state;
    const mc_registry *from = mc_registry_find("1.21.4");
    static const char *const targets[] = {"1.20.1", "1.18.2", "26.1", "1.12.2"};
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
        const mc_registry *to = mc_registry_find(targets[k]);
        mc_column *col = mc__gen_column(from, 11 + k, 0, 0, -4, 24);
        mc_error err;
        mc_column_view *v = mc_column_view_new(col, to, NULL, &err);
        assert_non_null(v);
        assert_ptr_equal(mc_column_view_registry(v), to);
        assert_ptr_equal(mc_column_view_source(v), col);
        assert_null(mc_column_view_section(v, -5));
        assert_null(mc_column_view_section(v, 20));
        for (int32_t sy = -4; sy < 20; sy++) {
            const mc_section *s = mc_column_section_const(col, sy), *vs = mc_column_view_section(v, sy);
            uint32_t va[4096], vb[4096];
            mc_container_get_all(&s->blocks, va);
            mc_container_get_all(&vs->blocks, vb);
            unsigned nonair = 0;
            uint8_t has_be[4096 / 8];
            view_block_entities_in(v, sy, has_be);
            for (int i = 0; i < 4096; i++) {
                uint32_t want = mc_registry_translate_state(from, to, va[i], NULL);
                if ((has_be[i >> 3] >> (i & 7)) & 1)
                    want = vb[i]; /* decided by its block entity: test_java_chunk_be */
                assert_int_equal(vb[i], want);
                nonair += !(mc_registry_state_flags(to, want) & MC_STATE_AIR);
            }
            assert_int_equal(mc_section_block_count(vs, to), nonair);
            for (int i = 0; i < 64; i++)
                assert_int_equal(mc_container_get(&vs->biomes, (size_t)i),
                                 mc_biome_translate(from, to, mc_container_get(&s->biomes, (size_t)i), NULL));
            /* light is the source's own */
            assert_ptr_equal(vs->sky_light, s->sky_light);
        }
        mc_column_view_free(v);
        mc_column_free(col);
    }
    /* the same registry: the source's sections */
    mc_column *col = mc__gen_column(from, 5, 0, 0, -4, 24);
    mc_column_view *v = mc_column_view_new(col, from, NULL, NULL);
    assert_ptr_equal(mc_column_view_section(v, 3), mc_column_section_const(col, 3));
    mc_column_view_free(v);
    mc_column_free(col);
    /* the cached biome map is mc_biome_translate */
    const mc_registry *r12 = mc_registry_find("1.12.2");
    const uint32_t *bm = mc_biome_map(from, r12);
    assert_non_null(bm);
    assert_ptr_equal(bm, mc_biome_map(from, r12));
    for (uint32_t b = 0; b < mc_registry_biome_count(from); b++)
        assert_int_equal(bm[b], mc_biome_translate(from, r12, b, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_entries),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_corpus_regions),
        cmocka_unit_test(test_corpus_packets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
