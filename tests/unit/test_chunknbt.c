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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_regions),
        cmocka_unit_test(test_corpus_single_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
