/*
 * test_tool_blocks.c: the "x y z state" lines of mc_tool_print_blocks
 * (programs/mcchunk/tool_common.c: `mcchunk chunk blocks`, `generate`, `packet
 * --blocks`) stay byte for byte what one printf per line wrote, now that
 * they are built by the tool's own appender.
 *
 * The reference below is the former printf implementation. Both run on the
 * same columns with stdout sent to a temporary file and the bytes are
 * compared: corpus chunks (1.8.9 ids, 1.21.11 names; --ids, --version
 * translation, --every, --all) and built columns whose coordinates reach
 * the ends of the int range (negative numbers, INT32_MIN after the chunk
 * coordinate wraps) and whose sections take every container kind (single,
 * palette, direct). The tool's source is compiled in: it is not part of
 * the library the tests link.
 */
#include "support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

/* the tool's sources: programs/mcchunk/ in main's layout, tools/ before */
#include "../../programs/mcchunk/tool_common.c"

/* The former output path, one printf per line. */
static void print_blocks_ref(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all)
{
    const mc_registry *reg = mc_column_registry(col);
    if (!out_reg)
        out_reg = reg;
    const uint32_t *map = NULL;
    if (out_reg != reg)
        map = mc_registry_map(reg, out_reg);
    uint32_t count = mc_registry_state_count(reg);
    char **names = calloc(count ? count : 1, sizeof *names);
    int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    static uint32_t vals[MC_SECTION_BLOCKS];
    char buf[512];
    uint64_t phase = every ? ((uint32_t)mc_column_x(col) * 7u + (uint32_t)mc_column_z(col) * 13u) % every : 0;
    for (uint32_t si = 0; si < mc_column_section_count(col); si++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)si);
        if (!every && !all && s->blocks.kind == MC_CONTAINER_SINGLE &&
            (mc_registry_state_flags(reg, s->blocks.value) & MC_STATE_AIR))
            continue;
        mc_container_get_all(&s->blocks, vals);
        int32_t by = (mc_column_min_section(col) + (int32_t)si) * 16;
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            uint32_t v = vals[i];
            if (every) {
                if (((uint64_t)si * MC_SECTION_BLOCKS + i + phase) % every)
                    continue;
            } else if (!all && ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == mc_registry_air(reg))) {
                continue;
            }
            int x = (int)(i & 15), z = (int)((i >> 4) & 15), y = (int)(i >> 8);
            uint32_t o = map ? mc_registry_map_apply(map, count, v, mc_registry_air(out_reg)) : v;
            if (ids) {
                printf("%d %d %d %u\n", bx + x, by + y, bz + z, o);
                continue;
            }
            const char *name = buf;
            if (v < count) {
                if (!names[v]) {
                    if (!mc_registry_format_state(out_reg, o, buf, sizeof buf, MC_FORMAT_SORTED))
                        snprintf(buf, sizeof buf, "#%u", o);
                    names[v] = strdup(buf);
                }
                name = names[v] ? names[v] : "?";
            } else {
                snprintf(buf, sizeof buf, "#%u", v);
            }
            printf("%d %d %d %s\n", bx + x, by + y, bz + z, name);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* Runs ours (which = 0) or the reference (1) with stdout in a temporary
 * file and returns the bytes written. */
static uint8_t *capture(int which, const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every,
                        bool all, size_t *len)
{
    char path[] = "/tmp/test_tool_blocks.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    assert_true(saved >= 0 && dup2(fd, 1) >= 0);
    if (which == 0)
        assert_int_equal(mc_tool_print_blocks(col, out_reg, ids, every, all), MC_EXIT_OK);
    else
        print_blocks_ref(col, out_reg, ids, every, all);
    fflush(stdout);
    assert_true(dup2(saved, 1) >= 0);
    close(saved);
    close(fd);
    uint8_t *data = mc_test_read_file(path, len);
    unlink(path);
    assert_non_null(data);
    return data;
}

static void same_bytes(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all,
                       const char *what)
{
    size_t na, nb;
    uint8_t *a = capture(0, col, out_reg, ids, every, all, &na);
    uint8_t *b = capture(1, col, out_reg, ids, every, all, &nb);
    size_t at = 0;
    while (at < na && at < nb && a[at] == b[at])
        at++;
    if (na != nb || at != na)
        fail_msg("%s (ids %d, every %u, all %d): %zu bytes vs printf's %zu, first difference at byte %zu", what,
                 (int)ids, every, (int)all, na, nb, at);
    free(a);
    free(b);
}

static void every_mode(const mc_column *col, const mc_registry *other, const char *what)
{
    same_bytes(col, NULL, false, 0, false, what);
    same_bytes(col, NULL, true, 0, false, what);
    same_bytes(col, NULL, false, 7, false, what);
    same_bytes(col, NULL, true, 1, false, what);
    same_bytes(col, NULL, false, 0, true, what);
    if (other) {
        same_bytes(col, other, false, 0, false, what);
        same_bytes(col, other, true, 0, false, what);
    }
}

static void test_corpus_chunks(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    static const char *const files[] = {"anvil/1.8.9/ppa-r.-1.0.mca", "anvil/1.13.2/ppa-r.-1.-1.mca",
                                        "anvil/1.21.11/minestom-r.-1.-1.mca"};
    const mc_registry *other = mc_registry_find("1.12.2");
    assert_non_null(other);
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        mc_region *r = NULL;
        mc_error err;
        assert_int_equal(mc_region_open(mc_test_corpus_path(files[f]), NULL, &r, &err), MC_OK);
        int done = 0, present = 0;
        for (int k = 0; k < 32 * 32 && done < 3; k++) {
            if (!mc_region_has_chunk(r, k & 31, k >> 5) || present++ % 37)
                continue; /* every 37th chunk present */
            mc_buf nbt;
            mc_buf_init(&nbt, NULL);
            mc_column *col = NULL;
            if (mc_region_read_chunk(r, k & 31, k >> 5, &nbt, NULL, &err) == MC_OK &&
                mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err) == MC_OK) {
                every_mode(col, other, files[f]);
                mc_column_free(col);
                done++;
            }
            mc_buf_free(&nbt);
        }
        assert_true(done > 0);
        mc_region_close(r);
    }
}

/* A built column: section 0 single stone, 1 a palette of a few states with
 * air, 2 more states than a palette holds (direct), the rest air. */
static mc_column *built(const mc_registry *reg, int32_t x, int32_t z)
{
    mc_column *col = mc_column_new(reg, x, z, -4, 6, NULL);
    assert_non_null(col);
    uint32_t n = mc_registry_state_count(reg);
    mc_test_rng rng = {0x9E3779B97F4A7C15ull};
    for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
        unsigned bx = i & 15, bz = (i >> 4) & 15, by = i >> 8;
        assert_int_equal(mc_section_set_block(mc_column_section_at(col, 0), reg, bx, by, bz, 1), MC_OK);
        if (i % 3)
            assert_int_equal(mc_section_set_block(mc_column_section_at(col, 1), reg, bx, by, bz,
                                                  (uint32_t)(mc_test_rand(&rng) % 9)), MC_OK);
        assert_int_equal(mc_section_set_block(mc_column_section_at(col, 2), reg, bx, by, bz,
                                              (uint32_t)(mc_test_rand(&rng) % n)), MC_OK);
    }
    assert_int_equal(mc_column_section_at(col, 2)->blocks.kind, MC_CONTAINER_DIRECT);
    assert_int_equal(mc_column_section_at(col, 1)->blocks.kind, MC_CONTAINER_INDIRECT);
    return col;
}

static void test_number_ends(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.4");
    assert_non_null(reg);
    /* chunk x/z such that the block coordinates are 0, negative, the int
     * ends (0x08000000 << 4 wraps to INT32_MIN) and large positive */
    static const int32_t coords[][2] = {
        {0, 0}, {-1, -1}, {-134217728, 134217727}, {134217728, -134217729}, {INT32_MAX, INT32_MIN}, {12345, -6789}};
    for (size_t k = 0; k < sizeof coords / sizeof coords[0]; k++) {
        mc_column *col = built(reg, coords[k][0], coords[k][1]);
        every_mode(col, mc_registry_find("1.8"), "built column");
        mc_column_free(col);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_chunks),
        cmocka_unit_test(test_number_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
