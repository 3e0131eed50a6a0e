/*
 * test_chunknbt.c: chunk NBT <-> mc_column over the whole corpus.
 *
 * Every chunk of every region file in corpus/anvil (1.8.9 to 1.21.11,
 * proto-chunks, custom heights, entities/poi files) and every single chunk
 * in corpus/anvil/chunk-nbt must read into the model, and writing the
 * column back for its own DataVersion must give a tree equal to the
 * original (mc_nbt_equal). A small differ names the first differing path
 * when it does not. Further cases: the DataVersion picks the reader, newer
 * DataVersions read with a warning, conversion 1.21 -> 1.12.2 -> model, the
 * disk width rules of the writer, strictness, and malformed input.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

/* ------------------------------------------------------------ differ */

static bool diff(const mc_nbt_tag *a, const mc_nbt_tag *b, char *path, size_t plen, size_t cap)
{
    if (mc_nbt_equal(a, b))
        return false;
    if (mc_nbt_tag_type(a) != mc_nbt_tag_type(b)) {
        snprintf(path + plen, cap - plen, " (type %s vs %s)", mc_nbt_type_name(mc_nbt_tag_type(a)),
                 mc_nbt_type_name(mc_nbt_tag_type(b)));
        return true;
    }
    if (mc_nbt_tag_type(a) == MC_NBT_COMPOUND) {
        for (mc_nbt_tag *t = mc_nbt_first(a); t; t = mc_nbt_next(t)) {
            size_t kl;
            const char *k = mc_nbt_tag_key(t, &kl);
            mc_nbt_tag *u = mc_nbt_get_n(b, k, kl);
            int n = snprintf(path + plen, cap - plen, ".%.*s", (int)kl, k);
            if (!u) {
                snprintf(path + plen + n, cap - plen - n, " (missing in written)");
                return true;
            }
            if (diff(t, u, path, plen + (size_t)n, cap))
                return true;
        }
        for (mc_nbt_tag *t = mc_nbt_first(b); t; t = mc_nbt_next(t)) {
            size_t kl;
            const char *k = mc_nbt_tag_key(t, &kl);
            if (!mc_nbt_get_n(a, k, kl)) {
                snprintf(path + plen, cap - plen, ".%.*s (extra in written)", (int)kl, k);
                return true;
            }
        }
    } else if (mc_nbt_tag_type(a) == MC_NBT_LIST) {
        if (mc_nbt_count(a) != mc_nbt_count(b) || mc_nbt_list_type(a) != mc_nbt_list_type(b)) {
            snprintf(path + plen, cap - plen, " (list %zu %s vs %zu %s)", mc_nbt_count(a),
                     mc_nbt_type_name(mc_nbt_list_type(a)), mc_nbt_count(b),
                     mc_nbt_type_name(mc_nbt_list_type(b)));
            return true;
        }
        for (size_t i = 0; i < mc_nbt_count(a); i++) {
            int n = snprintf(path + plen, cap - plen, "[%zu]", i);
            if (diff(mc_nbt_list_at(a, i), mc_nbt_list_at(b, i), path, plen + (size_t)n, cap))
                return true;
        }
    } else {
        snprintf(path + plen, cap - plen, " (values differ)");
    }
    return true;
}

/* -------------------------------------------------------- round trip */

typedef struct stats {
    size_t chunks, read, equal;
    char first_diff[512];
} stats;

static void roundtrip_one(const uint8_t *data, size_t len, mc_chunknbt_cache *cache, stats *s)
{
    s->chunks++;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, &err), MC_OK);
    mc_chunknbt_options opt = {0};
    opt.cache = cache;
    mc_column *col = NULL;
    mc_status st = mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err);
    if (st != MC_OK) {
        if (!s->first_diff[0])
            snprintf(s->first_diff, sizeof s->first_diff, "read: %s", err.message);
    } else {
        s->read++;
        /* the counts on demand (the reader leaves them unknown) equal the
         * stored recount */
        for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
            mc_section *sec = mc_column_section_at(col, i);
            unsigned bc, fc;
            mc_section_counts(sec, mc_column_registry(col), &bc, &fc);
            mc_section_recount(sec, mc_column_registry(col));
            assert_int_equal(bc, sec->block_count);
            assert_int_equal(fc, sec->fluid_count);
        }
        st = mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err);
        if (st != MC_OK) {
            if (!s->first_diff[0])
                snprintf(s->first_diff, sizeof s->first_diff, "write: %s", err.message);
        } else if (mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(out))) {
            s->equal++;
        } else if (!s->first_diff[0]) {
            char path[400] = "root";
            diff(mc_nbt_doc_root(doc), mc_nbt_doc_root(out), path, 4, sizeof path);
            snprintf(s->first_diff, sizeof s->first_diff, "chunk %d %d: %s", mc_column_x(col),
                     mc_column_z(col), path);
        }
        mc_column_free(col);
    }
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(out);
}

static void test_corpus_regions(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    size_t total = 0, total_eq = 0, nfiles = 0;
    bool bad = false;
    for (char **f = files; *f; f++) {
        mc_region *r = NULL;
        mc_error err;
        assert_int_equal(mc_region_open(*f, NULL, &r, &err), MC_OK);
        stats s;
        memset(&s, 0, sizeof s);
        mc_buf buf;
        mc_buf_init(&buf, NULL);
        for (int lz = 0; lz < 32; lz++)
            for (int lx = 0; lx < 32; lx++) {
                if (!mc_region_has_chunk(r, lx, lz))
                    continue;
                buf.len = 0;
                if (mc_region_read_chunk(r, lx, lz, &buf, NULL, &err) != MC_OK)
                    continue;
                roundtrip_one(buf.data, buf.len, cache, &s);
            }
        mc_buf_free(&buf);
        mc_region_close(r);
        const char *name = strstr(*f, "anvil/");
        print_message("%-58s chunks %4zu read %4zu round-trip %4zu%s%s\n", name ? name : *f, s.chunks,
                      s.read, s.equal, s.first_diff[0] ? "  first: " : "", s.first_diff);
        total += s.chunks;
        total_eq += s.equal;
        nfiles++;
        if (s.read != s.chunks || s.equal != s.chunks)
            bad = true;
    }
    print_message("%zu files, %zu chunks, %zu round-trip equal\n", nfiles, total, total_eq);
    mc_chunknbt_cache_free(cache);
    mc_test_free_list(files);
    assert_true(nfiles > 0);
    assert_false(bad);
}

static void test_corpus_single_chunks(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    const char *suffixes[] = {".chunk", ".nbt"};
    bool bad = false;
    for (int k = 0; k < 2; k++) {
        char **files = mc_test_list_corpus("anvil/chunk-nbt", suffixes[k]);
        for (char **f = files; *f; f++) {
            size_t len;
            uint8_t *data = mc_test_read_file(*f, &len);
            stats s;
            memset(&s, 0, sizeof s);
            roundtrip_one(data, len, NULL, &s);
            const char *name = strrchr(*f, '/');
            print_message("%-48s read %zu round-trip %zu %s\n", name ? name + 1 : *f, s.read, s.equal,
                          s.first_diff);
            if (s.read != 1 || s.equal != 1)
                bad = true;
            free(data);
        }
        mc_test_free_list(files);
    }
    assert_false(bad);
}


/* ----------------------------------------------------- writer rules */

static mc_nbt_tag *section_at_y(mc_nbt_tag *root, int y)
{
    mc_nbt_tag *l = mc_nbt_get(root, "Level");
    mc_nbt_tag *secs = mc_nbt_get(l ? l : root, l ? "Sections" : "sections");
    for (mc_nbt_tag *s = mc_nbt_first(secs); s; s = mc_nbt_next(s)) {
        int64_t v;
        if (mc_nbt_get_integer(mc_nbt_get(s, "Y"), &v) == MC_OK && v == y)
            return s;
    }
    return NULL;
}

static size_t longs_of(mc_nbt_tag *t)
{
    mc_nbt_array a;
    return mc_nbt_get_array(t, MC_NBT_LONG_ARRAY, &a) == MC_OK ? a.count : (size_t)-1;
}

/* A column whose section 0 holds `distinct` different states and whose
 * section 1 has 5 biomes; written for several DataVersions, the long counts
 * must follow the disk rules, and reading back must give the same blocks. */
static void test_disk_widths(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    mc_column *col = mc_column_new(reg, 3, -7, -4, 24, NULL);
    assert_non_null(col);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(mc_column_set_block(col, (int)(i & 15), (int)(i >> 8), (int)((i >> 4) & 15),
                                             1 + (i % 300)), MC_OK);
    for (int cx = 0; cx < 4; cx++)
        assert_int_equal(mc_column_set_biome(col, cx, 4 + 1, 0, (uint32_t)(cx + 1)), MC_OK);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    /* 1.21.1 (DV 3955): 300 entries -> 9 bits padded (7 per long) = 586 longs */
    assert_int_equal(mc_chunknbt_write(col, 3955, doc, NULL, &err), MC_OK);
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    mc_nbt_tag *s0 = section_at_y(root, 0);
    assert_non_null(s0);
    assert_int_equal(mc_nbt_count(mc_nbt_path(s0, "block_states.palette")), 300);
    assert_int_equal(longs_of(mc_nbt_path(s0, "block_states.data")), 586);
    /* biomes: 5 entries -> 3 bits, 21 per long -> 4 longs; air sections: no data */
    mc_nbt_tag *s1 = section_at_y(root, 1);
    assert_int_equal(mc_nbt_count(mc_nbt_path(s1, "biomes.palette")), 5);
    assert_int_equal(longs_of(mc_nbt_path(s1, "biomes.data")), 4);
    mc_nbt_tag *s5 = section_at_y(root, 5);
    assert_int_equal(mc_nbt_count(mc_nbt_path(s5, "block_states.palette")), 1);
    assert_null(mc_nbt_path(s5, "block_states.data"));
    assert_null(mc_nbt_path(s5, "biomes.data"));
    assert_int_equal(mc_nbt_count(mc_nbt_get(root, "sections")), 24);
    /* read back: same blocks and biomes */
    mc_column *back = NULL;
    assert_int_equal(mc_chunknbt_read(root, NULL, &back, &err), MC_OK);
    assert_int_equal(mc_column_min_section(back), -4);
    assert_int_equal(mc_column_section_count(back), 24);
    for (unsigned i = 0; i < 4096; i += 7)
        assert_int_equal(mc_column_get_block(back, (int)(i & 15), (int)(i >> 8), (int)((i >> 4) & 15)),
                         1 + (i % 300));
    assert_int_equal(mc_column_get_biome(back, 3, 5, 0), 4);
    mc_column_free(back);

    /* 1.16.5 (DV 2586): max(4, ceil(log2 n)) bits padded; 1.15.2 (DV 2230):
     * spanning (n: the states left distinct after translation) */
    assert_int_equal(mc_chunknbt_write(col, 2586, doc, NULL, &err), MC_OK);
    s0 = section_at_y(mc_nbt_doc_root(doc), 0);
    size_t n = mc_nbt_count(mc_nbt_get(s0, "Palette"));
    assert_true(n > 16);
    assert_int_equal(longs_of(mc_nbt_get(s0, "BlockStates")), mc_bits_longs(4096, mc_bits_ceil_log2(n), MC_BITS_PADDED));
    assert_int_equal(mc_chunknbt_write(col, 2230, doc, NULL, &err), MC_OK);
    root = mc_nbt_doc_root(doc);
    s0 = section_at_y(root, 0);
    n = mc_nbt_count(mc_nbt_get(s0, "Palette"));
    assert_int_equal(longs_of(mc_nbt_get(s0, "BlockStates")), mc_bits_longs(4096, mc_bits_ceil_log2(n), MC_BITS_SPANNING));
    /* a section of one state: 1.13-1.17 still store 4-bit data (256 longs) */
    mc_nbt_tag *s9 = section_at_y(root, 9);
    assert_null(s9); /* all air: not stored before 1.18 */
    /* 1.15: 3D biomes int[1024] for the 256-block column */
    mc_nbt_array a;
    assert_int_equal(mc_nbt_get_array(mc_nbt_path(root, "Level.Biomes"), MC_NBT_INT_ARRAY, &a), MC_OK);
    assert_int_equal(a.count, 1024);
    assert_int_equal(mc_chunknbt_read(root, NULL, &back, &err), MC_OK);
    assert_int_equal(mc_column_section_count(back), 16);
    for (unsigned i = 0; i < 4096; i += 5) {
        uint32_t want = mc_registry_map(reg, mc_column_registry(back))[1 + (i % 300)];
        assert_int_equal(mc_column_get_block(back, (int)(i & 15), (int)(i >> 8), (int)((i >> 4) & 15)), want);
    }
    mc_column_free(back);
    mc_column_free(col);

    /* 1.16.5's own registry: 300 states -> 9 bits, 586 padded longs; no
     * global palette on disk before 1.18 */
    reg = mc_registry_find("1.16.5");
    col = mc_column_new(reg, 0, 0, 0, 16, NULL);
    for (unsigned i = 0; i < 4096; i++)
        assert_int_equal(mc_column_set_block(col, (int)(i & 15), (int)(i >> 8), (int)((i >> 4) & 15),
                                             1 + (i % 300)), MC_OK);
    assert_int_equal(mc_chunknbt_write(col, 2586, doc, NULL, &err), MC_OK);
    s0 = section_at_y(mc_nbt_doc_root(doc), 0);
    assert_int_equal(mc_nbt_count(mc_nbt_get(s0, "Palette")), 300);
    assert_int_equal(longs_of(mc_nbt_get(s0, "BlockStates")), 586);
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &back, &err), MC_OK);
    for (unsigned i = 0; i < 4096; i += 3)
        assert_int_equal(mc_column_get_block(back, (int)(i & 15), (int)(i >> 8), (int)((i >> 4) & 15)),
                         1 + (i % 300));
    mc_column_free(back);
    mc_nbt_doc_free(doc);
    mc_column_free(col);
}

/* The DataVersion picks the reader; a newer one reads with a warning. */
static void warn_count(void *user, const char *msg)
{
    (void)msg;
    (*(int *)user)++;
}

static void test_newer_data_version(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    assert_int_equal(mc_column_set_block(col, 1, 2, 3, mc_registry_default_state(reg, "stone")), MC_OK);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write(col, 3955, doc, NULL, &err), MC_OK);
    assert_int_equal(mc_nbt_put_int(doc, mc_nbt_doc_root(doc), "DataVersion", 999999), MC_OK);
    int warnings = 0;
    mc_chunknbt_options opt = {0};
    opt.warn = warn_count;
    opt.warn_user = &warnings;
    mc_chunknbt_info info;
    mc_column *back = NULL;
    assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(doc), &opt, &back, &info, &err), MC_OK);
    assert_true(info.newer_than_known);
    assert_true(warnings >= 1);
    const mc_registry *newest = mc_column_registry(back);
    char buf[128];
    mc_registry_format_state(newest, mc_column_get_block(back, 1, 2, 3), buf, sizeof buf, 0);
    assert_string_equal(buf, "minecraft:stone");
    mc_column_free(back);
    mc_nbt_doc_free(doc);
    mc_column_free(col);
}

/* Unknown states: lenient -> air + warning, kept for the writer; strict -> error. */
static void test_unknown_states(void **state)
{
    (void)state;
    const char *snbt =
        "{DataVersion:3955,xPos:1,zPos:2,yPos:0,Status:\"minecraft:full\",sections:["
        "{Y:0b,block_states:{palette:[{Name:\"minecraft:stone\"},{Name:\"mod:thing\"}],"
        "data:[L;0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,"
        "0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,0L,1L]},"
        "biomes:{palette:[\"minecraft:plains\"]}}],Heightmaps:{},block_entities:[]}";
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *out = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_snbt_parse(doc, snbt, strlen(snbt), NULL, &err), MC_OK);
    mc_chunknbt_info info;
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(doc), NULL, &col, &info, &err), MC_OK);
    assert_int_equal(info.unknown_states, 1);
    assert_int_equal(mc_column_get_block(col, 0, 15, 15), mc_registry_air(mc_column_registry(col)));
    assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err), MC_OK);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(out)));
    /* an edit to that section: the model is written, the unknown state reported */
    assert_int_equal(mc_column_set_block(col, 0, 0, 0, 0), MC_OK);
    mc_chunknbt_report rep;
    assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, &rep, &err), MC_OK);
    assert_non_null(strstr(rep.text, "unknown"));
    mc_column_free(col);
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_STRICT;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err), MC_ERR_NOT_FOUND);
    assert_null(col);
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(out);
}

/* Lean reads: NO_EXTRA drops block entities with the rest; with
 * BLOCK_ENTITIES they are read (a server needs them) and nothing else is. */
static void test_lean_block_entities(void **state)
{
    (void)state;
    const char *snbt =
        "{DataVersion:3955,xPos:1,zPos:2,yPos:0,Status:\"minecraft:full\",sections:["
        "{Y:0b,block_states:{palette:[{Name:\"minecraft:stone\"}]},biomes:{palette:[\"minecraft:plains\"]}}],"
        "Heightmaps:{},block_ticks:[{i:\"minecraft:oak_leaves\",p:0,t:0,x:16,y:3,z:33}],"
        "structures:{References:{},starts:{}},"
        "block_entities:[{id:\"minecraft:sign\",x:17,y:4,z:35,keepPacked:0b,"
        "front_text:{messages:['\"hi\"','\"\"','\"\"','\"\"']}},"
        "{id:\"minecraft:chest\",x:20,y:1,z:40,Items:[]}]}";
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_snbt_parse(doc, snbt, strlen(snbt), NULL, &err), MC_OK);
    mc_chunknbt_options opt = {0};
    mc_column *col = NULL;
    /* full read: both block entities and the extras */
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err), MC_OK);
    assert_int_equal(mc_column_block_entity_count(col), 2);
    assert_non_null(mc_nbt_get(mc_column_extra(col), "block_ticks"));
    mc_column_free(col);
    /* NO_EXTRA: neither */
    opt.flags = MC_CHUNKNBT_NO_EXTRA;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err), MC_OK);
    assert_int_equal(mc_column_block_entity_count(col), 0);
    assert_null(mc_nbt_get(mc_column_extra(col), "block_ticks"));
    mc_column_free(col);
    /* NO_EXTRA | BLOCK_ENTITIES: the block entities only */
    opt.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err), MC_OK);
    assert_int_equal(mc_column_block_entity_count(col), 2);
    int32_t x, y, z;
    mc_nbt_tag *be = mc_column_block_entity_at(col, 0, &x, &y, &z);
    assert_int_equal(x, 17);
    assert_int_equal(y, 4);
    assert_int_equal(z, 35);
    assert_non_null(mc_nbt_get(be, "front_text"));
    assert_null(mc_nbt_get(mc_column_extra(col), "block_ticks"));
    assert_null(mc_nbt_get(mc_column_extra(col), "structures"));
    mc_column_free(col);

    /* from bytes, a full read defers what the model does not read: the
     * extra NBT gets it, in the chunk's order, only when asked */
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &b, NULL), MC_OK);
    opt.flags = 0;
    mc_chunknbt_info info;
    assert_int_equal(mc_chunknbt_read_bytes_ex(b.data, b.len, &opt, &col, &info, &err), MC_OK);
    assert_true(info.sections_from_bytes);
    assert_int_equal(info.data_version, 3955);
    assert_int_equal(info.status_len, 14);
    assert_memory_equal(info.status, "minecraft:full", 14);
    assert_int_equal(mc_column_block_entity_count(col), 2);
    assert_true(mc_column_extra_deferred(col));
    assert_null(mc_nbt_get(mc_column_extra_peek(col), "block_ticks"));
    mc_nbt_tag *ex = mc_column_extra(col);
    assert_false(mc_column_extra_deferred(col));
    assert_true(mc_nbt_equal(mc_nbt_get(ex, "block_ticks"), mc_nbt_get(mc_nbt_doc_root(doc), "block_ticks")));
    assert_true(mc_nbt_equal(mc_nbt_get(ex, "structures"), mc_nbt_get(mc_nbt_doc_root(doc), "structures")));
    /* written back: the chunk, whole */
    mc_nbt_doc *w = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, w, NULL, &err), MC_OK);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(w), mc_nbt_doc_root(doc)));
    mc_nbt_doc_free(w);
    mc_column_free(col);
    /* bytes a full parse refuses (not modified UTF-8 in a tick's block
     * name) are refused, though the model does not read them */
    uint8_t *bad = malloc(b.len);
    memcpy(bad, b.data, b.len);
    uint8_t *leaves = NULL;
    for (size_t i = 0; i + 10 <= b.len && !leaves; i++)
        if (!memcmp(bad + i, "oak_leaves", 10))
            leaves = bad + i;
    assert_non_null(leaves);
    leaves[3] = 0xff;
    mc_error_clear(&err);
    assert_int_equal(mc_chunknbt_read_bytes(bad, b.len, &opt, &col, &err), MC_ERR_MALFORMED);
    assert_null(col);
    assert_non_null(strstr(err.message, "UTF-8"));
    /* a lean read drops them unread */
    opt.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    assert_int_equal(mc_chunknbt_read_bytes(bad, b.len, &opt, &col, &err), MC_OK);
    mc_column_free(col);
    free(bad);
    mc_buf_free(&b);
    mc_nbt_doc_free(doc);
}

/* Malformed input is refused with a message, never read out of bounds. */
static void test_malformed(void **state)
{
    (void)state;
    const char *cases[] = {
        /* palette index 3 of a 2-entry palette */
        ("{DataVersion:3955,xPos:0,zPos:0,yPos:0,sections:[{Y:0b,block_states:{palette:[{Name:\"minecraft:stone\"},"
         "{Name:\"minecraft:dirt\"}],data:[L;3L]},biomes:{palette:[\"minecraft:plains\"]}}]}"),
        /* 1.13: BlockStates of the wrong length */
        "{DataVersion:1631,Level:{xPos:0,zPos:0,Sections:[{Y:0b,Palette:[{Name:\"minecraft:stone\"}],BlockStates:[L;1L,2L]}]}}",
        /* 1.12: Blocks too short */
        "{DataVersion:1343,Level:{xPos:0,zPos:0,Sections:[{Y:0b,Blocks:[B;1b],Data:[B;0b]}]}}",
        /* palette of strings for blocks */
        "{DataVersion:3955,xPos:0,zPos:0,sections:[{Y:0b,block_states:{palette:[\"minecraft:stone\"]}}]}",
        /* root is not a compound */
        "[1,2,3]",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_error err;
        assert_int_equal(mc_snbt_parse(doc, cases[i], strlen(cases[i]), NULL, &err), MC_OK);
        mc_column *col = (mc_column *)1;
        mc_status st = mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &col, &err);
        assert_int_not_equal(st, MC_OK);
        assert_null(col);
        assert_true(strlen(err.message) > 0);
        mc_nbt_doc_free(doc);
    }
}

/* Reading region chunks of one version and writing them for another: the
 * blocks come back through the registries' translation maps, and the
 * report names what the older format cannot hold. */
static void convert_region(const char *rel, int32_t to_dv, const char *to_version, bool expect_drops)
{
    const char *path = mc_test_corpus_path(rel);
    mc_region *r = NULL;
    mc_error err;
    assert_int_equal(mc_region_open(path, NULL, &r, &err), MC_OK);
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    size_t done = 0;
    const mc_registry *treg = mc_registry_find(to_version);
    assert_non_null(treg);
    for (int i = 0; i < 1024 && done < 12; i++) {
        int lx = i & 31, lz = i >> 5;
        if (!mc_region_has_chunk(r, lx, lz))
            continue;
        buf.len = 0;
        assert_int_equal(mc_region_read_chunk(r, lx, lz, &buf, NULL, &err), MC_OK);
        mc_column *col = NULL, *back = NULL;
        assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, NULL, &col, &err), MC_OK);
        mc_nbt_doc *out = mc_nbt_doc_new(NULL);
        mc_chunknbt_report rep;
        assert_int_equal(mc_chunknbt_write(col, to_dv, out, &rep, &err), MC_OK);
        if (expect_drops)
            assert_true(rep.dropped != 0 && rep.text_len > 0);
        assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(out), NULL, &back, &err), MC_OK);
        assert_ptr_equal(mc_column_registry(back), treg);
        const mc_registry *sreg = mc_column_registry(col);
        const uint32_t *map = sreg == treg ? NULL : mc_registry_map(sreg, treg);
        int32_t lo = mc_column_min_y(back), hi = lo + (int32_t)mc_column_height(back);
        if (lo < mc_column_min_y(col))
            lo = mc_column_min_y(col);
        if (hi > mc_column_min_y(col) + (int32_t)mc_column_height(col))
            hi = mc_column_min_y(col) + (int32_t)mc_column_height(col);
        for (int32_t y = lo; y < hi; y += 3)
            for (int z = 0; z < 16; z += 5)
                for (int x = 0; x < 16; x++) {
                    uint32_t s = mc_column_get_block(col, x, y, z);
                    uint32_t want = map ? mc_registry_map_apply(map, mc_registry_state_count(sreg), s,
                                                                mc_registry_air(treg)) : s;
                    assert_int_equal(mc_column_get_block(back, x, y, z), want);
                }
        mc_column_free(back);
        mc_column_free(col);
        mc_nbt_doc_free(out);
        done++;
    }
    assert_true(done > 0);
    mc_buf_free(&buf);
    mc_region_close(r);
}

static void test_cross_version(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    convert_region("anvil/1.21.1/ppa-r.0.0.mca", 1343, "1.12.2", true);   /* 1.21 -> 1.12.2 */
    convert_region("anvil/1.21.11/minestom-r.-1.-1.mca", 2586, "1.16.5", true);
    convert_region("anvil/1.8.9/ppa-r.-1.0.mca", 3955, "1.21.1", true);   /* 1.8.9 -> 1.21.1 */
    convert_region("anvil/1.13.2/mcaselector-r.0.0.mca", 2975, "1.18.2", true);
    convert_region("anvil/1.16/ppa-r.0.-1.mca", 2230, "1.15.2", false);   /* same era: extras carried */
    convert_region("anvil/1.20.6/ppa-r.0.0.mca", 3955, "1.21.1", false);
    convert_region("anvil/1.12.2/ppa-r.0.-1.mca", 0, "1.8.9", false);     /* 1.12.2 -> 1.8 (no DataVersion) */
}

/* 26.x: a 1.21.11 chunk stored under 26.1's DataVersion reads with the 26.1
 * registry and round-trips; options override the height of old chunks. */
static void test_26x_and_heights(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    mc_region *r = NULL;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path("anvil/1.21.11/minestom-r.-1.-1.mca"), NULL, &r, &err), MC_OK);
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    int found = 0;
    for (int i = 0; i < 1024 && !found; i++)
        if (mc_region_has_chunk(r, i & 31, i >> 5) &&
            mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err) == MC_OK)
            found = 1;
    assert_true(found);
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, NULL, &col, &err), MC_OK);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *again = mc_nbt_doc_new(NULL);
    mc_chunknbt_report rep;
    assert_int_equal(mc_chunknbt_write(col, 4790, doc, &rep, &err), MC_OK);
    mc_column *c26 = NULL;
    mc_chunknbt_info info;
    assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(doc), NULL, &c26, &info, &err), MC_OK);
    assert_false(info.newer_than_known);
    assert_string_equal(mc_registry_name(mc_column_registry(c26)), "26.1.2");
    assert_int_equal(mc_chunknbt_write(c26, MC_CHUNKNBT_OWN_VERSION, again, NULL, &err), MC_OK);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(again)));
    mc_column_free(c26);
    /* without extras: blocks only, still the same blocks */
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT;
    mc_column *lean = NULL;
    assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &lean, &err), MC_OK);
    for (int y = -64; y < 320; y += 7)
        assert_int_equal(mc_column_get_block(lean, 3, y, 9), mc_column_get_block(col, 3, y, 9));
    assert_int_equal(mc_column_get_sky_light(lean, 3, 100, 9), -1);
    mc_column_free(lean);
    mc_column_free(col);
    mc_nbt_doc_free(doc);
    mc_nbt_doc_free(again);
    mc_buf_free(&buf);
    mc_region_close(r);

    /* a 1.16 chunk read at the 1.18 overworld height by option */
    assert_int_equal(mc_region_open(mc_test_corpus_path("anvil/1.16/ppa-r.0.-1.mca"), NULL, &r, &err), MC_OK);
    mc_buf_init(&buf, NULL);
    found = 0;
    for (int i = 0; i < 1024 && !found; i++)
        if (mc_region_has_chunk(r, i & 31, i >> 5) &&
            mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err) == MC_OK)
            found = 1;
    opt.flags = 0;
    opt.min_section = -4;
    opt.section_count = 24;
    mc_column *tall = NULL, *plain = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, &opt, &tall, &err), MC_OK);
    assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, NULL, &plain, &err), MC_OK);
    assert_int_equal(mc_column_min_section(tall), -4);
    assert_int_equal(mc_column_section_count(tall), 24);
    for (int y = 0; y < 256; y += 5)
        assert_int_equal(mc_column_get_block(tall, 7, y, 1), mc_column_get_block(plain, 7, y, 1));
    assert_int_equal(mc_column_get_block(tall, 7, -30, 1), 0);
    mc_column_free(tall);
    mc_column_free(plain);
    mc_buf_free(&buf);
    mc_region_close(r);
}

/* The codec fast path: a 1.18+ block_states/biomes compound straight into a
 * container equals what the column reader made of it. */
static void test_read_container(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    mc_region *r = NULL;
    mc_error err;
    assert_int_equal(mc_region_open(mc_test_corpus_path("anvil/1.19.4/ppa-r.0.0.mca"), NULL, &r, &err), MC_OK);
    mc_buf buf;
    mc_buf_init(&buf, NULL);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    size_t checked = 0;
    for (int i = 0; i < 1024 && checked < 400; i++) {
        if (!mc_region_has_chunk(r, i & 31, i >> 5))
            continue;
        buf.len = 0;
        assert_int_equal(mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err), MC_OK);
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse(doc, buf.data, buf.len, MC_NBT_JAVA, NULL, &err), MC_OK);
        mc_column *col = NULL;
        assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &col, &err), MC_OK);
        for (mc_nbt_tag *s = mc_nbt_first(mc_nbt_get(mc_nbt_doc_root(doc), "sections")); s; s = mc_nbt_next(s)) {
            int8_t y;
            mc_nbt_tag *bs = mc_nbt_get(s, "block_states");
            if (!bs || mc_nbt_get_byte(mc_nbt_get(s, "Y"), &y) != MC_OK)
                continue;
            mc_container c, b;
            assert_int_equal(mc_chunknbt_read_container(bs, false, mc_column_registry(col), cache, false, NULL, &c,
                                                        NULL, &err), MC_OK);
            assert_int_equal(mc_chunknbt_read_container(mc_nbt_get(s, "biomes"), true, mc_column_registry(col),
                                                        cache, false, NULL, &b, NULL, &err), MC_OK);
            const mc_section *sec = mc_column_section_const(col, y);
            assert_true(mc_container_equal(&c, &sec->blocks));
            assert_true(mc_container_equal(&b, &sec->biomes));
            /* palette widths 1-256 keep the disk width: no repacking */
            size_t n = mc_nbt_count(mc_nbt_get(bs, "palette"));
            if (n > 1 && n <= 256)
                assert_int_equal(mc_container_bits(&c), mc_bits_ceil_log2(n) < 4 ? 4 : mc_bits_ceil_log2(n));
            mc_container_free(&c);
            mc_container_free(&b);
            checked++;
        }
        mc_column_free(col);
        mc_nbt_doc_free(doc);
    }
    assert_true(checked > 100);
    mc_chunknbt_cache_free(cache);
    mc_buf_free(&buf);
    mc_region_close(r);
}

/* Chunks that leave sections out (written by other tools, e.g.
 * prismarine's writer) round-trip too: the writer adds no section the
 * original did not have, while it stays air. */
static void test_partial_sections(void **state)
{
    (void)state;
    const char *cases[] = {
        ("{DataVersion:3955,xPos:0,zPos:0,yPos:-4,Status:\"minecraft:full\",sections:["
         "{Y:0b,block_states:{palette:[{Name:\"minecraft:stone\"}]},biomes:{palette:[\"minecraft:plains\"]}},"
         "{Y:3b,block_states:{palette:[{Name:\"minecraft:dirt\"}]},biomes:{palette:[\"minecraft:plains\"]}}]}"),
        "{DataVersion:3955,xPos:2,zPos:3,yPos:-4,Status:\"minecraft:empty\",sections:[]}",
        /* 256 zero longs follow */
        ("{DataVersion:2586,Level:{xPos:0,zPos:0,Status:\"full\",Sections:[{Y:2b,Palette:[{Name:\"minecraft:air\"}],"
         "BlockStates:[L;"),
    };
    for (size_t i = 0; i < 3; i++) {
        char text[8192];
        snprintf(text, sizeof text, "%s", cases[i]);
        if (i == 2) {
            for (int k = 0; k < 256; k++)
                strcat(text, k ? ",0L" : "0L");
            strcat(text, "]}]}}");
        }
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL), *out = mc_nbt_doc_new(NULL);
        mc_error err;
        assert_int_equal(mc_snbt_parse(doc, text, strlen(text), NULL, &err), MC_OK);
        mc_column *col = NULL;
        assert_int_equal(mc_chunknbt_read(mc_nbt_doc_root(doc), NULL, &col, &err), MC_OK);
        assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err), MC_OK);
        if (!mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(out))) {
            char path[400] = "root";
            diff(mc_nbt_doc_root(doc), mc_nbt_doc_root(out), path, 4, sizeof path);
            fail_msg("case %zu: %s", i, path);
        }
        /* an edit in a left-out section makes the writer store it */
        if (i == 0) {
            assert_int_equal(mc_column_set_block(col, 0, -60, 0, mc_registry_default_state(mc_column_registry(col), "stone")), MC_OK);
            assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err), MC_OK);
            assert_int_equal(mc_nbt_count(mc_nbt_get(mc_nbt_doc_root(out), "sections")), 3);
        }
        mc_column_free(col);
        mc_nbt_doc_free(doc);
        mc_nbt_doc_free(out);
    }
}

/* ------------------------------------------------ pre-1.13 block arrays */

/* The container a 1.8-1.12 section should read into, made the slow way:
 * the values (Add << 8 | Blocks) << 4 | Data computed here, those beyond
 * the registry as air, through mc_container_set_all. */
static void expect_legacy(const mc_registry *reg, const uint8_t *blocks, const uint8_t *data, const uint8_t *add,
                          mc_container *out, uint32_t *beyond)
{
    static uint32_t vals[4096];
    const uint32_t limit = mc_registry_state_count(reg);
    for (unsigned i = 0; i < 4096; i++) {
        const unsigned shift = (i & 1) ? 4 : 0;
        uint32_t v = (uint32_t)blocks[i] << 4 | ((data[i / 2] >> shift) & 15u);
        if (add)
            v |= (uint32_t)((add[i / 2] >> shift) & 15u) << 12;
        if (v >= limit) {
            v = mc_registry_air(reg);
            (*beyond)++;
        }
        vals[i] = v;
    }
    mc_container_rules rules = mc_container_rules_blocks(mc_registry_direct_bits(reg));
    mc_container_init(out, &rules, 0, NULL);
    assert_int_equal(mc_container_set_all(out, vals), MC_OK);
}

/* Same kind, width, palette in the same order, same entries. */
static void assert_same_container(const mc_container *got, const mc_container *want, const char *where)
{
    size_t gl, wl;
    const uint32_t *gp = mc_container_palette(got, &gl), *wp = mc_container_palette(want, &wl);
    if (got->kind != want->kind || got->bits != want->bits || gl != wl ||
        (gl && memcmp(gp, wp, gl * sizeof *gp) != 0) || !mc_container_equal(got, want))
        fail_msg("%s: read as kind %d, %u bits, %zu palette entries; set_all gives kind %d, %u bits, %zu", where,
                 got->kind, got->bits, gl, want->kind, want->bits, wl);
}

/* Reads chunk bytes of DataVersion < 1451 (registry: the chunk's, or
 * `reg`) both ways (bytes, tree) and checks each section against
 * expect_legacy of its own arrays; returns the sections checked. */
static size_t check_legacy_chunk(const uint8_t *nbt, size_t len, const mc_registry *reg, unsigned flags,
                                 mc_chunknbt_cache *cache, const char *where)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(doc, nbt, len, MC_NBT_JAVA, NULL, NULL), MC_OK);
    const mc_nbt_tag *secs = mc_nbt_path(mc_nbt_doc_root(doc), "Level.Sections");
    size_t checked = 0;
    for (int way = 0; way < 2; way++) {
        mc_chunknbt_options opt = {0};
        opt.flags = flags;
        opt.cache = cache;
        opt.registry = reg;
        mc_column *col = NULL;
        mc_chunknbt_info info;
        mc_error err;
        if (way == 0) {
            assert_int_equal(mc_chunknbt_read_bytes_ex(nbt, len, &opt, &col, &info, &err), MC_OK);
        } else {
            mc_nbt_doc *tree = mc_nbt_doc_new(NULL);
            assert_int_equal(mc_chunknbt_parse(tree, nbt, len, flags, &err), MC_OK);
            assert_int_equal(mc_chunknbt_read_ex(mc_nbt_doc_root(tree), &opt, &col, &info, &err), MC_OK);
            mc_nbt_doc_free(tree);
        }
        const mc_registry *used = mc_column_registry(col);
        uint32_t beyond = 0;
        for (mc_nbt_tag *sec = mc_nbt_first(secs); sec; sec = mc_nbt_next(sec)) {
            mc_nbt_array b, d, a = {0};
            int64_t y;
            if (mc_nbt_get_array(mc_nbt_get(sec, "Blocks"), MC_NBT_BYTE_ARRAY, &b) != MC_OK ||
                mc_nbt_get_array(mc_nbt_get(sec, "Data"), MC_NBT_BYTE_ARRAY, &d) != MC_OK ||
                mc_nbt_get_integer(mc_nbt_get(sec, "Y"), &y) != MC_OK)
                continue;
            mc_nbt_get_array(mc_nbt_get(sec, "Add"), MC_NBT_BYTE_ARRAY, &a);
            mc_container want;
            expect_legacy(used, b.data, d.data, a.data, &want, &beyond);
            char msg[256];
            snprintf(msg, sizeof msg, "%s section Y=%d (%s)", where, (int)y, way ? "tree" : "bytes");
            assert_same_container(&mc_column_section(col, (int32_t)y)->blocks, &want, msg);
            mc_container_free(&want);
            checked++;
        }
        assert_int_equal(info.unknown_states, beyond);
        mc_column_free(col);
    }
    mc_nbt_doc_free(doc);
    return checked;
}

/* A 1.12 chunk of generated sections: Y k holds runs and noise over a
 * palette of sizes[k] values below `top` (Add nibbles when top > 4096). */
static void make_legacy_chunk(mc_buf *out, uint32_t top, uint64_t seed)
{
    static const unsigned sizes[] = {1, 2, 9, 16, 17, 40, 255, 256, 257, 700, 4096};
    mc_test_rng rng = {seed};
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    mc_nbt_put_int(doc, root, "DataVersion", 1343);
    mc_nbt_tag *level = mc_nbt_put_compound(doc, root, "Level");
    mc_nbt_put_int(doc, level, "xPos", 2);
    mc_nbt_put_int(doc, level, "zPos", -1);
    mc_nbt_tag *secs = mc_nbt_put_list(doc, level, "Sections", MC_NBT_COMPOUND);
    static int8_t blocks[4096], data[2048], add[2048], light[2048];
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t pal[4096];
        for (unsigned i = 0; i < sizes[k]; i++)
            pal[i] = sizes[k] == 4096 ? (i * 2654435761u) % top : (uint32_t)(mc_test_rand(&rng) % top);
        memset(data, 0, sizeof data);
        memset(add, 0, sizeof add);
        for (unsigned i = 0; i < 4096; i++) {
            /* rows of one value, then rows of noise */
            const unsigned pick = (i >> 4) % 3 == 0 ? (i >> 4) % sizes[k] : (unsigned)(mc_test_rand(&rng) % sizes[k]);
            const uint32_t v = sizes[k] == 4096 ? pal[i] : pal[pick];
            blocks[i] = (int8_t)(uint8_t)(v >> 4);
            data[i / 2] |= (int8_t)((v & 15u) << ((i & 1) * 4));
            add[i / 2] |= (int8_t)(((v >> 12) & 15u) << ((i & 1) * 4));
        }
        mc_nbt_tag *sec = mc_nbt_list_append(doc, secs, MC_NBT_COMPOUND);
        mc_nbt_put_byte(doc, sec, "Y", (int8_t)k);
        mc_nbt_put_byte_array(doc, sec, "Blocks", blocks, 4096);
        if (top > 4096)
            mc_nbt_put_byte_array(doc, sec, "Add", add, 2048);
        mc_nbt_put_byte_array(doc, sec, "Data", data, 2048);
        mc_nbt_put_byte_array(doc, sec, "BlockLight", light, 2048);
        mc_nbt_put_byte_array(doc, sec, "SkyLight", light, 2048);
    }
    mc_buf_init(out, NULL);
    mc_error err;
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, out, &err), MC_OK);
    mc_nbt_doc_free(doc);
}

/* Pre-1.13 sections build their palette through a table, not a hash: the
 * container must be the one mc_container_set_all makes (kind, width,
 * palette order, entries), for generated palettes of 1 to 4096 values, ids
 * past 255 (Add) read by the 1.12 registry (air, counted) and by a larger
 * one (kept), and every legacy chunk of the corpus. */
static void test_legacy_sections(void **state)
{
    (void)state;
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    const mc_registry *big = mc_registry_find("1.20.1");
    assert_non_null(big);
    const struct { uint32_t top; const mc_registry *reg; } cases[] = {
        {4096, NULL}, {65536, NULL}, {65536, big}, {mc_registry_state_count(big), big}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mc_buf buf;
        make_legacy_chunk(&buf, cases[c].top, 7 + c);
        char where[64];
        snprintf(where, sizeof where, "generated case %zu", c);
        assert_int_equal(check_legacy_chunk(buf.data, buf.len, cases[c].reg, MC_CHUNKNBT_NO_EXTRA, cache, where), 22);
        assert_int_equal(check_legacy_chunk(buf.data, buf.len, cases[c].reg, 0, cache, where), 22);
        mc_buf_free(&buf);
    }
    mc_chunknbt_options strict = {0};
    strict.flags = MC_CHUNKNBT_STRICT;
    mc_buf buf;
    make_legacy_chunk(&buf, 65536, 3);
    mc_column *col = NULL;
    mc_error err;
    assert_int_equal(mc_chunknbt_read_bytes(buf.data, buf.len, &strict, &col, &err), MC_ERR_MALFORMED);
    assert_non_null(strstr(err.message, "beyond 255"));
    mc_buf_free(&buf);
    if (mc_test_corpus_dir()) {
        const char *files[] = {"anvil/1.8.9/ppa-r.-1.0.mca", "anvil/1.12.2/mcaselector-r.0.0.mca"};
        size_t sections = 0;
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
            mc_region *r = NULL;
            assert_int_equal(mc_region_open(mc_test_corpus_path(files[f]), NULL, &r, &err), MC_OK);
            mc_buf_init(&buf, NULL);
            for (int i = 0; i < 1024; i += 3) { /* a third of each file: < 1 s */
                buf.len = 0;
                if (mc_region_has_chunk(r, i & 31, i >> 5) &&
                    mc_region_read_chunk(r, i & 31, i >> 5, &buf, NULL, &err) == MC_OK)
                    sections += check_legacy_chunk(buf.data, buf.len, NULL, MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_NO_LIGHT,
                                                   cache, files[f]);
            }
            mc_buf_free(&buf);
            mc_region_close(r);
        }
        assert_true(sections > 500);
    }
    mc_chunknbt_cache_free(cache);
}

/* mc_chunknbt_cache_block_bytes: a palette entry by its payload bytes
 * gives the registry's state whichever way it is read (the game's shape
 * straight from the bytes, anything else through a parse), unknown states
 * air with MC_ERR_NOT_FOUND, bytes that are no entry MC_ERR_MALFORMED. */
static size_t put_text(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    p[0] = (uint8_t)(n >> 8);
    p[1] = (uint8_t)n;
    memcpy(p + 2, s, n);
    return n + 2;
}

static size_t put_string_tag(uint8_t *p, const char *key, const char *value)
{
    p[0] = 8;
    size_t n = 1 + put_text(p + 1, key);
    return n + put_text(p + n, value);
}

static void test_cache_block_bytes(void **state)
{
    (void)state;
    const mc_registry *reg = mc_chunknbt_registry_for(2586);
    assert_non_null(reg);
    mc_state_prop prop = {"axis", 4, "x", 1};
    uint32_t want = 0;
    assert_int_equal(mc_registry_lookup(reg, "minecraft:oak_log", 17, &prop, 1, &want, NULL), MC_OK);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    uint8_t e[256];
    /* {Properties: {axis: "x"}, Name: "minecraft:oak_log"}: the game's shape */
    size_t n = 0;
    e[n++] = 10;
    n += put_text(e + n, "Properties");
    n += put_string_tag(e + n, "axis", "x");
    e[n++] = 0;
    n += put_string_tag(e + n, "Name", "minecraft:oak_log");
    e[n++] = 0;
    uint32_t got = 12345;
    for (int again = 0; again < 2; again++) { /* a miss, then the cache */
        assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, e, n, &got), MC_OK);
        assert_int_equal(got, want);
    }
    /* the same with a tag the game does not write: through the parse */
    uint8_t f[256];
    memcpy(f, e, n - 1);
    size_t m = n - 1;
    f[m++] = 1; /* TAG_Byte "extra": 1 */
    m += put_text(f + m, "extra");
    f[m++] = 1;
    f[m++] = 0;
    got = 12345;
    assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_OK);
    assert_int_equal(got, want);
    /* an unknown state: air */
    m = put_string_tag(f, "Name", "minecraft:no_such_block");
    f[m++] = 0;
    assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_ERR_NOT_FOUND);
    assert_int_equal(got, mc_registry_air(reg));
    /* no entry: truncated, a Name that is not a string, no Name */
    assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, e, n - 3, &got), MC_ERR_MALFORMED);
    m = 0;
    f[m++] = 3;
    m += put_text(f + m, "Name");
    memset(f + m, 0, 4);
    m += 4;
    f[m++] = 0;
    assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_ERR_MALFORMED);
    f[0] = 0;
    assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, 1, &got), MC_ERR_MALFORMED);
    /* bytes that are not modified UTF-8 (0xFF; a raw 0) in a string's
     * last bytes, the entry going on after it: the parse refuses them,
     * whether the string is shorter than 8 bytes or not */
    static const char *const bad[] = {"x\xff", "\xff", "x\x01\x02\x03\x04\x05\x06\x07\xff", "minecraft:oak_lo\xff"};
    for (size_t b = 0; b < 5; b++) {
        m = 0;
        f[m++] = 10;
        m += put_text(f + m, "Properties");
        m += put_string_tag(f + m, "axis", b < 4 ? bad[b] : "x");
        if (b == 4)
            f[m - 1] = 0; /* "x" made a raw 0 */
        f[m++] = 0;
        m += put_string_tag(f + m, "Name", b == 3 ? bad[3] : "minecraft:oak_log");
        f[m++] = 0;
        assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_ERR_MALFORMED);
    }
    /* {Name: "minecraft:" + 1..40 x's, Properties: {axis: "x"}}, 45..84
     * bytes (every length of a last, partial 16- or 8-byte step): as it is
     * an unknown block; any byte of its name made 0xFF or a raw 0, no entry
     * (a byte the zero / high-bit count skipped or counted twice would
     * pass such an entry as the game's shape) */
    char name[64] = "minecraft:";
    for (size_t xs = 1; xs <= 40; xs++) {
        name[9 + xs] = 'x';
        name[10 + xs] = '\0';
        size_t at = 0;
        m = put_string_tag(f, "Name", name);
        at = m - strlen(name);
        f[m++] = 10;
        m += put_text(f + m, "Properties");
        m += put_string_tag(f + m, "axis", "x");
        f[m++] = 0;
        f[m++] = 0;
        assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_ERR_NOT_FOUND);
        for (size_t i = at; i < at + strlen(name); i++) {
            const uint8_t keep = f[i];
            for (int bad_byte = 0; bad_byte < 2; bad_byte++) {
                f[i] = bad_byte ? 0xFF : 0;
                assert_int_equal(mc_chunknbt_cache_block_bytes(cache, reg, f, m, &got), MC_ERR_MALFORMED);
            }
            f[i] = keep;
        }
    }
    mc_chunknbt_cache_free(cache);
}

/* The cache over 2048 distinct entries a cache, a third of them through
 * the parse (which caches the entry under a second key first), in eight
 * caches: each table grows from nothing to 4096 slots while keys go in,
 * the place a miss found reused by the insert when nothing moved since,
 * yet a second pass finds every entry where the first put it -- same
 * states, and not one allocation. Each table ends exactly half full, so a
 * key filed at a stale place (one found before a grow: the key that makes
 * a table grow lands off its chain one time in two) would miss, go in
 * again and make the table grow. */
typedef struct counted {
    size_t calls;
} counted;

static void *counted_alloc(void *user, size_t size)
{
    ((counted *)user)->calls++;
    return malloc(size);
}

static void *counted_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    ((counted *)user)->calls++;
    return realloc(ptr, new_size);
}

static void counted_free(void *user, void *ptr, size_t size)
{
    (void)user;
    (void)size;
    free(ptr);
}

/* {Name, Properties: {axis, n: "<cache>.<i>"}} (+ a TAG_Byte for every third: the parse) */
static size_t numbered_entry(uint8_t *e, int cache, int i)
{
    static const char *const axes[3] = {"x", "y", "z"};
    char num[32];
    snprintf(num, sizeof num, "%d.%d", cache, i);
    size_t n = put_string_tag(e, "Name", i % 2 ? "minecraft:oak_log" : "minecraft:birch_log");
    e[n++] = 10;
    n += put_text(e + n, "Properties");
    n += put_string_tag(e + n, "axis", axes[i % 3]);
    n += put_string_tag(e + n, "n", num);
    e[n++] = 0;
    if (i % 3 == 0) {
        e[n++] = 1;
        n += put_text(e + n, "extra");
        e[n++] = 1;
    }
    e[n++] = 0;
    return n;
}

static void test_cache_many_entries(void **state)
{
    (void)state;
    const mc_registry *reg = mc_chunknbt_registry_for(2586);
    assert_non_null(reg);
    enum { ENTRIES = 1536 }; /* + 512 second keys: 2048 */
    static uint32_t first[ENTRIES];
    for (int k = 0; k < 8; k++) {
        counted n_calls = {0};
        const mc_allocator a = {counted_alloc, counted_realloc, counted_free, &n_calls};
        mc_chunknbt_cache *cache = mc_chunknbt_cache_new(&a);
        assert_non_null(cache);
        size_t before = 0;
        for (int pass = 0; pass < 2; pass++) {
            if (pass)
                before = n_calls.calls;
            for (int i = 0; i < ENTRIES; i++) {
                uint8_t e[128];
                const size_t n = numbered_entry(e, k, i);
                uint32_t got = 0;
                const mc_status st = mc_chunknbt_cache_block_bytes(cache, reg, e, n, &got);
                assert_true(st == MC_OK || st == MC_ERR_NOT_FOUND);
                if (pass)
                    assert_int_equal(got, first[i]);
                else
                    first[i] = got;
            }
        }
        assert_int_equal(n_calls.calls, before);
        assert_true(before > 8); /* (the table and its keys did grow) */
        mc_chunknbt_cache_free(cache);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_regions),
        cmocka_unit_test(test_corpus_single_chunks),
        cmocka_unit_test(test_disk_widths),
        cmocka_unit_test(test_newer_data_version),
        cmocka_unit_test(test_unknown_states),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_lean_block_entities),
        cmocka_unit_test(test_cross_version),
        cmocka_unit_test(test_26x_and_heights),
        cmocka_unit_test(test_read_container),
        cmocka_unit_test(test_partial_sections),
        cmocka_unit_test(test_legacy_sections),
        cmocka_unit_test(test_cache_block_bytes),
        cmocka_unit_test(test_cache_many_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
