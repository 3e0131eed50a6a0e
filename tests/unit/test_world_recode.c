/*
 * test_world_recode.c: `world convert`'s byte path (mc_chunknbt_recode, for
 * 1.18+ chunks going to a 1.18+ release) against its model path (read into
 * a column, translate, write), on every 1.18+ chunk of the corpus.
 *
 * The corpus's 1.18+ region files go into a world of their own (one
 * datapack dimension each, so that no height is fitted), which is
 * converted twice per target -- as it is, and with MCCHUNK_CONVERT_MODEL=1
 * (the model path only) -- and every chunk record of the two results is
 * parsed and compared as NBT content (mc_nbt_equal: compounds as key sets,
 * lists in order). A key lost, added or changed by the byte path fails the
 * test, naming the chunk and the first key path that differs; so does a
 * different report (--json, but for the byte path's own count), and a byte
 * path that took no chunk. Targets: 1.21.4 (what bench_world measures;
 * every file, four in a sanitizer build) and 1.20.1 (down from the newer
 * files, up from the older: four files); MCCHUNK_LONG=1 takes every file
 * for both.
 */
#include "support.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/nbt.h"

static char tmp[256];

static bool is_modern_region(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return (strstr(path, "/1.18") || strstr(path, "/1.19") || strstr(path, "/1.2")) && !strstr(base, "poi") &&
           !strstr(base, "entities");
}

/* The world of the corpus's 1.18+ region files (only those whose path
 * holds one of `only`, when given); returns how many. */
static int make_world(const char *const *only)
{
    char **files = mc_test_list_corpus("anvil", ".mca");
    int n = 0;
    for (char **f = files; *f; f++) {
        bool wanted = !only;
        for (const char *const *o = only; o && *o && !wanted; o++)
            wanted = strstr(*f, *o) != NULL;
        if (!is_modern_region(*f) || !wanted)
            continue;
        const char *base = strrchr(*f, '/') + 1;
        const char *r = strstr(base, "r.");
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/w/dimensions/test/d%d/region' && cp '%s' '%s/w/dimensions/test/d%d/region/%s'",
                 tmp, n, *f, tmp, n, r);
        assert_int_equal(system(cmd), 0);
        n++;
    }
    mc_test_free_list(files);
    return n;
}

static char *convert(const char *to, const char *name, bool model)
{
    static char json[2][200000];
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s'%s' world convert '%s/w' '%s/%s' --to %s --compression none --threads 1 --json --quiet > '%s/%s.json'",
             model ? "MCCHUNK_CONVERT_MODEL=1 " : "", mc_test_tool(), tmp, tmp, name, to, tmp, name);
    assert_int_equal(system(cmd), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", tmp, name);
    size_t len;
    uint8_t *data = mc_test_read_file(path, &len);
    char *out = json[model];
    snprintf(out, sizeof json[0], "%.*s", (int)len, (char *)data);
    free(data);
    return out;
}

/* The first key path where a and b differ, into path. */
static void first_difference(const mc_nbt_tag *a, const mc_nbt_tag *b, char *path, size_t cap)
{
    if (mc_nbt_tag_type(a) != mc_nbt_tag_type(b) ||
        (mc_nbt_tag_type(a) != MC_NBT_COMPOUND && mc_nbt_tag_type(a) != MC_NBT_LIST) ||
        (mc_nbt_tag_type(a) == MC_NBT_LIST && mc_nbt_count(a) != mc_nbt_count(b)))
        return;
    if (mc_nbt_tag_type(a) == MC_NBT_LIST) {
        size_t i = 0;
        for (mc_nbt_tag *x = mc_nbt_first(a), *y = mc_nbt_first(b); x && y; x = mc_nbt_next(x), y = mc_nbt_next(y), i++)
            if (!mc_nbt_equal(x, y)) {
                size_t l = strlen(path);
                snprintf(path + l, cap - l, "[%zu]", i);
                first_difference(x, y, path, cap);
                return;
            }
        return;
    }
    for (mc_nbt_tag *x = mc_nbt_first(a); x; x = mc_nbt_next(x)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(x, &kl);
        const mc_nbt_tag *y = mc_nbt_get_n(b, k, kl);
        if (!y || !mc_nbt_equal(x, y)) {
            size_t l = strlen(path);
            snprintf(path + l, cap - l, ".%.*s%s", (int)kl, k, y ? "" : " (absent in the model's)");
            if (y)
                first_difference(x, y, path, cap);
            return;
        }
    }
    for (mc_nbt_tag *y = mc_nbt_first(b); y; y = mc_nbt_next(y)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(y, &kl);
        if (!mc_nbt_get_n(a, k, kl)) {
            size_t l = strlen(path);
            snprintf(path + l, cap - l, ".%.*s (absent in the byte path's)", (int)kl, k);
            return;
        }
    }
}

/* Compares every chunk of every region file under dirs a and b; returns
 * the chunks compared. */
static long compare_worlds(const char *a, const char *b, int dims)
{
    long compared = 0;
    mc_nbt_doc *da = mc_nbt_doc_new(NULL), *db = mc_nbt_doc_new(NULL);
    mc_buf ba, bb;
    mc_buf_init(&ba, NULL);
    mc_buf_init(&bb, NULL);
    for (int d = 0; d < dims; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/dimensions/test/d%d/region", a, d);
        DIR *dh = opendir(dir);
        if (!dh)
            continue; /* (a file of nothing but declined proto-chunks: none written either way) */
        struct dirent *e;
        while ((e = readdir(dh))) {
            if (!strstr(e->d_name, ".mca"))
                continue;
            char pa[2048], pb[2048];
            snprintf(pa, sizeof pa, "%s/%s", dir, e->d_name);
            snprintf(pb, sizeof pb, "%s/dimensions/test/d%d/region/%s", b, d, e->d_name);
            mc_region *ra = NULL, *rb = NULL;
            mc_error err;
            assert_int_equal(mc_region_open(pa, NULL, &ra, &err), MC_OK);
            assert_int_equal(mc_region_open(pb, NULL, &rb, &err), MC_OK);
            for (int i = 0; i < 1024; i++) {
                const int lx = i & 31, lz = i >> 5;
                assert_int_equal(mc_region_has_chunk(ra, lx, lz), mc_region_has_chunk(rb, lx, lz));
                if (!mc_region_has_chunk(ra, lx, lz))
                    continue;
                ba.len = bb.len = 0;
                assert_int_equal(mc_region_read_chunk(ra, lx, lz, &ba, NULL, &err), MC_OK);
                assert_int_equal(mc_region_read_chunk(rb, lx, lz, &bb, NULL, &err), MC_OK);
                assert_int_equal(mc_nbt_parse(da, ba.data, ba.len, MC_NBT_JAVA, NULL, &err), MC_OK);
                assert_int_equal(mc_nbt_parse(db, bb.data, bb.len, MC_NBT_JAVA, NULL, &err), MC_OK);
                if (!mc_nbt_equal(mc_nbt_doc_root(da), mc_nbt_doc_root(db))) {
                    char path[1024] = "";
                    first_difference(mc_nbt_doc_root(da), mc_nbt_doc_root(db), path, sizeof path);
                    fail_msg("%s chunk %d %d: the byte path's differs from the model path's at %s", pa, lx, lz,
                             path[0] ? path : "(root)");
                }
                compared++;
            }
            mc_region_close(ra);
            mc_region_close(rb);
        }
        closedir(dh);
    }
    mc_buf_free(&ba);
    mc_buf_free(&bb);
    mc_nbt_doc_free(da);
    mc_nbt_doc_free(db);
    return compared;
}

/* The --json report less the destination and the byte path's count. */
static void strip_report(char *json)
{
    static const char *const keys[] = {"\"destination\"", "\"chunks_recoded\""};
    for (int k = 0; k < 2; k++) {
        char *p = strstr(json, keys[k]);
        assert_non_null(p);
        char *end = strpbrk(p, ",}\n");
        memmove(p, end, strlen(end) + 1);
    }
}

static long json_count(const char *json, const char *key)
{
    const char *p = strstr(json, key);
    assert_non_null(p);
    return strtol(strchr(p, ':') + 1, NULL, 10);
}

static void byte_path_equals_model_path(const char *to, const char *const *only)
{
    snprintf(tmp, sizeof tmp, "/tmp/mcchunk-test-recode-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    const int dims = make_world(only);
    assert_true(dims >= (only ? 3 : 5));
    char fast_name[64], model_name[64], fast_dir[512], model_dir[512];
    snprintf(fast_name, sizeof fast_name, "fast-%s", to);
    snprintf(model_name, sizeof model_name, "model-%s", to);
    char *fast = convert(to, fast_name, false);
    char *model = convert(to, model_name, true);
    const long recoded = json_count(fast, "\"chunks_recoded\""), written = json_count(fast, "\"chunks_written\"");
    assert_int_equal(json_count(model, "\"chunks_recoded\""), 0);
    print_message("-> %s: %ld of %ld chunks written by the byte path\n", to, recoded, written);
    assert_true(recoded > written / 2);
    snprintf(fast_dir, sizeof fast_dir, "%s/%s", tmp, fast_name);
    snprintf(model_dir, sizeof model_dir, "%s/%s", tmp, model_name);
    assert_int_equal(compare_worlds(fast_dir, model_dir, dims), written);
    /* the same counts (and bytes written: the same keys, in another order) */
    strip_report(fast);
    strip_report(model);
    assert_string_equal(fast, model);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RECODE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(RECODE_SANITIZED)
#define RECODE_SANITIZED 1
#endif

/* Files older and newer than 1.20.1 (up and down), for the runs that take a
 * few rather than every file (MCCHUNK_LONG=1: every file always). */
static const char *const *some_files(bool few)
{
    static const char *const some[] = {"/1.18/", "/1.19.4/", "/1.20.6/", "/1.21.11/", NULL};
    const char *slow = getenv("MCCHUNK_LONG");
    return few && !(slow && *slow && strcmp(slow, "0")) ? some : NULL;
}

static void test_to_1_21_4(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    mc_test_tool();
#ifdef RECODE_SANITIZED
    byte_path_equals_model_path("1.21.4", some_files(true)); /* (a sanitizer build is 20x slower) */
#else
    byte_path_equals_model_path("1.21.4", some_files(false));
#endif
}

static void test_to_1_20_1(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    mc_test_tool();
    byte_path_equals_model_path("1.20.1", some_files(true));
}

/* printf onto the end of a buffer (a test's short pieces of SNBT) */
static void buf_printf(mc_buf *b, const char *fmt, ...)
{
    char piece[256];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof piece);
    mc_buf_put(b, piece, (size_t)n);
}

/* A 1.20.1 chunk whose section 0 has 4-bit indices (5-bit past 16
 * entries), palette `names` (n entries) and index i at(i) (after it in the list: a section 1 of stone),
 * and biomes all `biome`, recoded for to_dv; the output's first section
 * must be Y 0 (sorted), its palette names are written to got[] and their
 * count returned (0 when the recoder declined), its biome to got_biome. */
static size_t recode_one_section(const char *const *names, size_t n, unsigned (*at)(size_t), char got[][32],
                                 const char *biome, int32_t to_dv, char got_biome[32])
{
    mc_buf text = {0};
    buf_printf(&text, "{DataVersion:3465,xPos:0,zPos:0,yPos:0,Status:\"minecraft:full\",sections:["
                         "{Y:1b,biomes:{palette:[\"minecraft:plains\"]},block_states:{palette:[{Name:\"minecraft:stone\"}]}},"
                         "{Y:0b,biomes:{palette:[\"minecraft:%s\"]},block_states:{palette:[",
               biome);
    for (size_t i = 0; i < n; i++)
        buf_printf(&text, "%s{Name:\"minecraft:%s\"}", i ? "," : "", names[i]);
    buf_printf(&text, "],data:[L;");
    const unsigned bits = n <= 16 ? 4 : 5, per = 64 / bits;
    for (size_t l = 0; l < (4096 + per - 1) / per; l++) {
        uint64_t v = 0;
        for (size_t k = 0; k < per && l * per + k < 4096; k++)
            v |= (uint64_t)at(l * per + k) << (bits * k);
        buf_printf(&text, "%s%lldL", l ? "," : "", (long long)v);
    }
    buf_printf(&text, "]}}]}");
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_snbt_parse(doc, (const char *)text.data, text.len, NULL, NULL), MC_OK);
    mc_buf in = {0}, out = {0};
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &in, NULL), MC_OK);
    mc_chunknbt_recoder *rc = mc_chunknbt_recoder_new();
    const mc_chunknbt_recode_options opt = {.data_version = to_dv};
    const mc_status st = mc_chunknbt_recode(rc, in.data, in.len, &opt, &out, NULL);
    size_t count = 0;
    if (st == MC_OK) {
        assert_int_equal(mc_nbt_parse(doc, out.data, out.len, MC_NBT_JAVA, NULL, NULL), MC_OK);
        const mc_nbt_tag *sec0 = mc_nbt_list_at(mc_nbt_get(mc_nbt_doc_root(doc), "sections"), 0);
        int8_t y = -1;
        assert_int_equal(mc_nbt_get_byte(mc_nbt_get(sec0, "Y"), &y), MC_OK);
        assert_int_equal(y, 0); /* the sections sorted by Y */
        const mc_nbt_tag *pal = mc_nbt_get(mc_nbt_get(sec0, "block_states"), "palette");
        const char *bn;
        size_t bl;
        assert_int_equal(
            mc_nbt_get_string(mc_nbt_list_at(mc_nbt_get(mc_nbt_get(sec0, "biomes"), "palette"), 0), &bn, &bl), MC_OK);
        snprintf(got_biome, 32, "%.*s", (int)bl, bn);
        count = mc_nbt_count(pal);
        for (size_t i = 0; i < count && i < 8; i++) {
            const char *nm;
            size_t len;
            assert_int_equal(mc_nbt_get_string(mc_nbt_get(mc_nbt_list_at(pal, i), "Name"), &nm, &len), MC_OK);
            snprintf(got[i], 32, "%.*s", (int)len, nm);
        }
    } else {
        assert_int_equal(st, MC_ERR_UNSUPPORTED);
    }
    mc_chunknbt_recoder_free(rc);
    mc_nbt_doc_free(doc);
    mc_buf_free(&text);
    mc_buf_free(&in);
    mc_buf_free(&out);
    return count;
}

/* air first, stone everywhere else, dirt once at index 4000 or 4095 (a
 * low and a high nibble, past the first 512 indices) */
static unsigned dirt_at_4000(size_t i)
{
    return i == 0 ? 1 : i == 4000 ? 2 : 0;
}
static unsigned dirt_at_4095(size_t i)
{
    return i == 0 ? 1 : i == 4095 ? 2 : 0;
}

/* A palette whose entries are all used, one only past the first 512
 * indices, is kept in its order with the source's longs (a rebuilt one
 * would be in first-occurrence order: air, stone, dirt); a palette with an
 * entry never used loses it. */
/* air first, stone everywhere else, palette entries 2..16 once each from
 * index 4000 on (5-bit indices: all_used goes past the first 512) */
static unsigned seventeen_late(size_t i)
{
    return i == 0 ? 1 : i >= 4000 && i < 4015 ? (unsigned)(i - 3998) : 0;
}

static void test_palette_kept_when_all_used(void **state)
{
    (void)state;
    mc_test_tool();
    char got[8][32], gb[32];
    const char *const three[] = {"stone", "air", "dirt"};
    const char *const four[] = {"stone", "air", "dirt", "gold_block"};
    unsigned (*const ats[2])(size_t) = {dirt_at_4000, dirt_at_4095};
    for (int a = 0; a < 2; a++) {
        assert_int_equal(recode_one_section(three, 3, ats[a], got, "plains", 3465, gb), 3);
        assert_string_equal(got[0], "minecraft:stone");
        assert_string_equal(got[1], "minecraft:air");
        assert_string_equal(got[2], "minecraft:dirt");
        assert_int_equal(recode_one_section(four, 4, ats[a], got, "plains", 3465, gb), 3);
        assert_string_equal(got[0], "minecraft:air");
        assert_string_equal(got[1], "minecraft:stone");
        assert_string_equal(got[2], "minecraft:dirt");
    }
    /* 5-bit: kept in its order when all 17 are used, one unused dropped */
    const char *const many[] = {"stone", "air", "dirt", "gold_block", "iron_block", "diamond_block",
                                "emerald_block", "coal_block", "oak_planks", "spruce_planks", "birch_planks",
                                "glass", "sand", "gravel", "cobblestone", "bricks", "bookshelf", "obsidian"};
    assert_int_equal(recode_one_section(many, 17, seventeen_late, got, "plains", 3465, gb), 17);
    for (int i = 0; i < 8; i++)
        assert_string_equal(got[i] + 10, many[i]);
    assert_int_equal(recode_one_section(many, 18, seventeen_late, got, "plains", 3465, gb), 17);
    assert_string_equal(got[0], "minecraft:air");
    assert_string_equal(got[1], "minecraft:stone");
    assert_string_equal(got[2], "minecraft:dirt");
}

/* A chunk whose sections repeat the one below but for Y (air above, then
 * two of the same palette and longs, then that palette with other longs,
 * then a biome of its own): each is recoded as itself -- its Y, and its own
 * longs where only the palette repeats. Recoded for its own version, every
 * section comes out as it went in (all palette entries used: kept). */
static void test_repeated_sections(void **state)
{
    (void)state;
    mc_buf text = {0};
    buf_printf(&text, "{DataVersion:3465,xPos:0,zPos:0,yPos:-1,Status:\"minecraft:full\",sections:[");
    for (int y = -1; y <= 5; y++) {
        const char *biome = y == 5 ? "desert" : "plains";
        buf_printf(&text, "%s{Y:%db,biomes:{palette:[\"minecraft:%s\"]},block_states:{palette:[", y > -1 ? "," : "",
                   y, biome);
        if (y >= 3)
            buf_printf(&text, "{Name:\"minecraft:air\"}]}}");
        else {
            /* air and stone, in runs that differ from Y 2 on */
            buf_printf(&text, "{Name:\"minecraft:air\"},{Name:\"minecraft:stone\"}],data:[L;");
            for (int l = 0; l < 256; l++)
                buf_printf(&text, "%s%lldL", l ? "," : "", (long long)(l == (y == 2 ? 7 : 3) ? 0x10 : 0x1));
            buf_printf(&text, "]}}");
        }
    }
    buf_printf(&text, "]}");
    mc_nbt_doc *in_doc = mc_nbt_doc_new(NULL), *out_doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_snbt_parse(in_doc, (const char *)text.data, text.len, NULL, NULL), MC_OK);
    mc_buf in = {0}, out = {0};
    assert_int_equal(mc_nbt_write(in_doc, MC_NBT_JAVA, &in, NULL), MC_OK);
    mc_chunknbt_recoder *rc = mc_chunknbt_recoder_new();
    const mc_chunknbt_recode_options opt = {.data_version = 3465};
    assert_int_equal(mc_chunknbt_recode(rc, in.data, in.len, &opt, &out, NULL), MC_OK);
    assert_int_equal(mc_nbt_parse(out_doc, out.data, out.len, MC_NBT_JAVA, NULL, NULL), MC_OK);
    const mc_nbt_tag *si = mc_nbt_get(mc_nbt_doc_root(in_doc), "sections");
    const mc_nbt_tag *so = mc_nbt_get(mc_nbt_doc_root(out_doc), "sections");
    assert_int_equal(mc_nbt_count(so), 7);
    for (size_t i = 0; i < 7; i++)
        assert_true(mc_nbt_equal(mc_nbt_list_at(si, i), mc_nbt_list_at(so, i)));
    mc_chunknbt_recoder_free(rc);
    mc_nbt_doc_free(in_doc);
    mc_nbt_doc_free(out_doc);
    mc_buf_free(&text);
    mc_buf_free(&in);
    mc_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_1_21_4),
        cmocka_unit_test(test_to_1_20_1),
        cmocka_unit_test(test_palette_kept_when_all_used),
        cmocka_unit_test(test_repeated_sections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
