/*
 * test_world.c: finding a chunk's region file in both world layouts
 * (<=1.21.11: region, DIM-1/region, DIM1/region, dimensions/ns/path/region;
 * 26.1: dimensions/minecraft/<overworld|the_nether|the_end>/...), for
 * region, entities and poi folders, with negative coordinates; and only
 * inside the world: a region folder leading out of it, a region file that is
 * a link or a FIFO are refused with the reason (links that stay inside are
 * fine).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcchunk/anvil.h"

static void touch(const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
}

static void test_legacy_layout(void **state)
{
    (void)state;
    char w[] = "/tmp/mcchunk-world-XXXXXX";
    assert_non_null(mkdtemp(w));
    char p[1024], q[1024];
    mc_error err;
    int lx, lz;
    assert_int_equal(mc_world_detect_layout(w), MC_WORLD_LAYOUT_LEGACY);
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "minecraft:overworld",
                                          MC_REGION_KIND_REGION, -1, 33, p, sizeof p, &lx, &lz, &err),
                     MC_ERR_NOT_FOUND);
    snprintf(q, sizeof q, "%s/region/r.-1.1.mca", w);
    assert_string_equal(p, q);
    assert_int_equal(lx, 31);
    assert_int_equal(lz, 1);
    snprintf(q, sizeof q, "%s/region", w);
    mkdir(q, 0755);
    snprintf(q, sizeof q, "%s/region/r.-1.1.mca", w);
    touch(q);
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "overworld", MC_REGION_KIND_REGION,
                                          -32, 63, p, sizeof p, &lx, &lz, &err), MC_OK);
    assert_string_equal(p, q);
    assert_int_equal(lx, 0);
    assert_int_equal(lz, 31);

    struct { const char *dim; mc_region_kind kind; int32_t x, z; const char *rel; } cases[] = {
        {"minecraft:the_nether", MC_REGION_KIND_REGION, 0, 0, "DIM-1/region/r.0.0.mca"},
        {"nether", MC_REGION_KIND_ENTITIES, -33, -64, "DIM-1/entities/r.-2.-2.mca"},
        {"minecraft:the_end", MC_REGION_KIND_POI, 31, 32, "DIM1/poi/r.0.1.mca"},
        {"minecraft:overworld", MC_REGION_KIND_POI, -1000000, 0, "poi/r.-31250.0.mca"},
        {"mymod:deep/caves", MC_REGION_KIND_REGION, 5, 5, "dimensions/mymod/deep/caves/region/r.0.0.mca"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mc_status st = mc_world_region_path(w, MC_WORLD_LAYOUT_LEGACY, cases[i].dim, cases[i].kind,
                                            cases[i].x, cases[i].z, p, sizeof p, NULL, NULL, &err);
        assert_int_equal(st, MC_ERR_NOT_FOUND);
        snprintf(q, sizeof q, "%s/%s", w, cases[i].rel);
        assert_string_equal(p, q);
    }
    assert_int_equal(mc_world_region_dir(w, MC_WORLD_LAYOUT_LEGACY, "bad dim", MC_REGION_KIND_REGION,
                                         p, sizeof p, &err), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_world_region_dir(w, MC_WORLD_LAYOUT_LEGACY, "x:../../etc", MC_REGION_KIND_REGION,
                                         p, sizeof p, &err), MC_ERR_INVALID_ARG);
    assert_int_equal(mc_world_region_dir(w, MC_WORLD_LAYOUT_LEGACY, "overworld", MC_REGION_KIND_REGION,
                                         p, 8, &err), MC_ERR_RANGE);
    snprintf(q, sizeof q, "rm -rf '%s'", w);
    assert_int_equal(system(q), 0);
}

static void test_26_1_layout(void **state)
{
    (void)state;
    char w[] = "/tmp/mcchunk-world-XXXXXX";
    assert_non_null(mkdtemp(w));
    char p[1024], q[1024];
    mc_error err;
    snprintf(q, sizeof q, "mkdir -p '%s/dimensions/minecraft/overworld/region'", w);
    assert_int_equal(system(q), 0);
    assert_int_equal(mc_world_detect_layout(w), MC_WORLD_LAYOUT_26_1);
    struct { const char *dim; mc_region_kind kind; const char *rel; } cases[] = {
        {"minecraft:overworld", MC_REGION_KIND_REGION, "dimensions/minecraft/overworld/region/r.0.-1.mca"},
        {"the_nether", MC_REGION_KIND_ENTITIES, "dimensions/minecraft/the_nether/entities/r.0.-1.mca"},
        {"end", MC_REGION_KIND_POI, "dimensions/minecraft/the_end/poi/r.0.-1.mca"},
    };
    for (size_t i = 0; i < 3; i++) {
        mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, cases[i].dim, cases[i].kind, 3, -3, p, sizeof p,
                             NULL, NULL, &err);
        snprintf(q, sizeof q, "%s/%s", w, cases[i].rel);
        assert_string_equal(p, q);
    }
    snprintf(q, sizeof q, "rm -rf '%s'", w);
    assert_int_equal(system(q), 0);
}

static void test_only_inside_the_world(void **state)
{
    (void)state;
    char base[] = "/tmp/mcchunk-world-XXXXXX";
    assert_non_null(mkdtemp(base));
    char w[600], p[1024], q[1200];
    mc_error err;
    snprintf(q, sizeof q, "mkdir -p '%s/w/DIM-1' '%s/w/store/region' '%s/elsewhere/region' && "
             "touch '%s/elsewhere/region/r.0.0.mca' '%s/elsewhere/region/r.1.0.mca' "
             "'%s/w/store/region/r.0.0.mca'", base, base, base, base, base, base);
    assert_int_equal(system(q), 0);
    snprintf(w, sizeof w, "%s/w", base);

    /* region -> ../elsewhere/region: out of the world, whether the file
     * exists there or not (a put would create it there). */
    snprintf(q, sizeof q, "%s/elsewhere/region", base);
    snprintf(p, sizeof p, "%s/region", w);
    assert_int_equal(symlink(q, p), 0);
    for (int32_t cx = 0; cx <= 64; cx += 64) {
        assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "overworld", MC_REGION_KIND_REGION,
                                              cx, 0, p, sizeof p, NULL, NULL, &err), MC_ERR_IO);
        assert_non_null(strstr(err.message, "outside the world folder"));
    }
    /* DIM-1/region -> ../store/region: a link that stays inside. */
    snprintf(p, sizeof p, "%s/DIM-1/region", w);
    assert_int_equal(symlink("../store/region", p), 0);
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "nether", MC_REGION_KIND_REGION, 5, 5,
                                          p, sizeof p, NULL, NULL, &err), MC_OK);
    /* The world folder given through a link of its own is fine too. */
    snprintf(q, sizeof q, "%s/wl", base);
    assert_int_equal(symlink(w, q), 0);
    assert_int_equal(mc_world_region_path(q, MC_WORLD_LAYOUT_AUTO, "nether", MC_REGION_KIND_REGION, 5, 5,
                                          p, sizeof p, NULL, NULL, &err), MC_OK);

    /* The region file as a link (even to a file inside), or a FIFO. */
    snprintf(p, sizeof p, "%s/store/region/r.1.0.mca", w);
    assert_int_equal(symlink("r.0.0.mca", p), 0);
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "nether", MC_REGION_KIND_REGION, 40, 5,
                                          p, sizeof p, NULL, NULL, &err), MC_ERR_IO);
    assert_non_null(strstr(err.message, "r.1.0.mca is a symbolic link"));
    snprintf(p, sizeof p, "%s/store/region/r.2.0.mca", w);
    assert_int_equal(mkfifo(p, 0644), 0);
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "nether", MC_REGION_KIND_REGION, 64, 5,
                                          p, sizeof p, NULL, NULL, &err), MC_ERR_IO);
    assert_non_null(strstr(err.message, "r.2.0.mca is not a regular file"));
    /* Absent stays absent. */
    assert_int_equal(mc_world_region_path(w, MC_WORLD_LAYOUT_AUTO, "nether", MC_REGION_KIND_REGION, 99, 5,
                                          p, sizeof p, NULL, NULL, &err), MC_ERR_NOT_FOUND);
    snprintf(q, sizeof q, "rm -rf '%s'", base);
    assert_int_equal(system(q), 0);
}

/* Dimensions and region files a world folder has, both layouts: vanilla
 * ones first, datapack ones (nested paths too) sorted; only exact
 * r.X.Z.mca regular files, sorted by coordinates. */
static void test_listing(void **state)
{
    (void)state;
    char w[] = "/tmp/mcchunk-world-XXXXXX";
    assert_non_null(mkdtemp(w));
    char q[2048];
    snprintf(q, sizeof q,
             "cd '%s' && mkdir -p region DIM1/entities dimensions/zz/b/poi dimensions/aa/x/y/region "
             "dimensions/aa/empty dimensions/BAD/region && touch region/r.0.0.mca region/r.-1.5.mca "
             "region/r.-1.-7.mca region/r.01.0.mca region/r.2.2.mcr region/x.mca region/r.3.3.mca.compact.tmp "
             "&& mkdir region/r.9.9.mca && ln -s r.0.0.mca region/r.4.4.mca", w);
    assert_int_equal(system(q), 0);
    char **dims = NULL;
    size_t n = 0;
    mc_error err;
    assert_int_equal(mc_world_list_dimensions(w, MC_WORLD_LAYOUT_AUTO, &dims, &n, &err), MC_OK);
    assert_int_equal(n, 4);
    assert_string_equal(dims[0], "minecraft:overworld");
    assert_string_equal(dims[1], "minecraft:the_end");
    assert_string_equal(dims[2], "aa:x/y");
    assert_string_equal(dims[3], "zz:b");
    mc_world_free_list(dims, n);
    int32_t *c = NULL;
    assert_int_equal(mc_world_list_regions(w, MC_WORLD_LAYOUT_AUTO, "overworld", MC_REGION_KIND_REGION, &c, &n,
                                           &err), MC_OK);
    assert_int_equal(n, 3);
    const int32_t want[] = {-1, -7, -1, 5, 0, 0};
    assert_memory_equal(c, want, sizeof want);
    free(c);
    assert_int_equal(mc_world_list_regions(w, MC_WORLD_LAYOUT_AUTO, "aa:x/y", MC_REGION_KIND_POI, &c, &n, &err),
                     MC_OK);
    assert_int_equal(n, 0);
    free(c);
    assert_int_equal(mc_world_list_dimensions("/nonexistent/world", MC_WORLD_LAYOUT_AUTO, &dims, &n, &err),
                     MC_ERR_NOT_FOUND);

    /* 26.1: everything under dimensions/, the vanilla three still first */
    snprintf(q, sizeof q, "cd '%s' && rm -rf region DIM1 && mkdir -p dimensions/minecraft/overworld/region "
             "dimensions/minecraft/the_nether/poi dimensions/minecraft/zeta/region", w);
    assert_int_equal(system(q), 0);
    assert_int_equal(mc_world_list_dimensions(w, MC_WORLD_LAYOUT_AUTO, &dims, &n, &err), MC_OK);
    assert_int_equal(n, 5);
    assert_string_equal(dims[0], "minecraft:overworld");
    assert_string_equal(dims[1], "minecraft:the_nether");
    assert_string_equal(dims[2], "aa:x/y");
    assert_string_equal(dims[3], "minecraft:zeta");
    assert_string_equal(dims[4], "zz:b");
    mc_world_free_list(dims, n);
    snprintf(q, sizeof q, "rm -rf '%s'", w);
    assert_int_equal(system(q), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_layout),
        cmocka_unit_test(test_26_1_layout),
        cmocka_unit_test(test_only_inside_the_world),
        cmocka_unit_test(test_listing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
