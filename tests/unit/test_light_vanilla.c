/*
 * test_light_vanilla.c: the light engine against the light vanilla stored.
 * Every region of ../shared/corpus/anvil with full chunks that have
 * isLightOn: each full chunk whose eight neighbours are full too is relit
 * (mc_light_column in one batch per region, neighbours' blocks only: as
 * `region relight` does; batch == single calls is test_light's and
 * test_light_relight's) and its sky and block light
 * compared with the stored arrays at every position where the chunk stored
 * an array. Prints the agreement per region and the states where the most
 * positions differ; asserts the agreement the engine reaches (see FLOOR).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/mcchunk.h"

#define FLOOR 0.995

typedef struct chunk {
    mc_column *col;
    uint8_t *saved; /* sections * 2 arrays of 2048 bytes (sky, block) */
    uint8_t *have;  /* per section: bit 0 sky stored, bit 1 block stored */
} chunk;

typedef struct diff {
    uint32_t state;
    unsigned count;
} diff;

static bool is_full_lit(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col);
    if (!x)
        return false;
    mc_nbt_tag *level = mc_nbt_get(x, "Level");
    mc_nbt_tag *root = level ? level : x;
    const char *s;
    size_t n;
    int8_t lit = 0;
    mc_nbt_tag *st = mc_nbt_get(root, "Status");
    if (!st || mc_nbt_get_string(st, &s, &n) != MC_OK)
        return false;
    if (!((n == 4 && memcmp(s, "full", 4) == 0) || (n == 14 && memcmp(s, "minecraft:full", 14) == 0)))
        return false;
    mc_nbt_tag *on = mc_nbt_get(root, "isLightOn");
    return on && mc_nbt_get_byte(on, &lit) == MC_OK && lit;
}

static void add_diff(diff *d, size_t *nd, size_t cap, uint32_t state)
{
    for (size_t i = 0; i < *nd; i++)
        if (d[i].state == state) {
            d[i].count++;
            return;
        }
    if (*nd < cap)
        d[(*nd)++] = (diff){state, 1};
}

static int by_count(const void *a, const void *b)
{
    const diff *x = a, *y = b;
    return (int)y->count - (int)x->count;
}

static void print_diffs(const char *what, const mc_registry *reg, diff *d, size_t nd)
{
    qsort(d, nd, sizeof *d, by_count);
    for (size_t i = 0; i < nd && i < 6; i++) {
        char name[160];
        mc_registry_format_state(reg, d[i].state, name, sizeof name, MC_FORMAT_SORTED);
        print_message("      %s differs at %u positions of %s\n", what, d[i].count, name);
    }
}

/* Relights one region; adds to the totals; returns false without full chunks. */
static bool check_region(const char *path, mc_light_engine *eng, uint64_t tot[2], uint64_t eq[2], double *worst)
{
    mc_region *region;
    mc_error err;
    if (mc_region_open(path, NULL, &region, &err) != MC_OK)
        return false;
    chunk *ch = calloc(32 * 32, sizeof *ch);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    unsigned nfull = 0;
    for (int lz = 0; lz < 32; lz++)
        for (int lx = 0; lx < 32; lx++) {
            if (!mc_region_has_chunk(region, lx, lz))
                continue;
            nbt.len = 0;
            mc_column *col = NULL;
            if (mc_region_read_chunk(region, lx, lz, &nbt, NULL, &err) != MC_OK ||
                mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err) != MC_OK)
                continue;
            if (!is_full_lit(col)) {
                mc_column_free(col);
                continue;
            }
            chunk *c = &ch[lz * 32 + lx];
            c->col = col;
            uint32_t n = mc_column_section_count(col);
            c->saved = calloc(n, 2 * MC_LIGHT_BYTES);
            c->have = calloc(n, 1);
            for (uint32_t k = 0; k < n; k++) {
                const mc_section *s = mc_column_section_at(col, k);
                if (s->sky_light) {
                    memcpy(c->saved + (2 * k) * MC_LIGHT_BYTES, s->sky_light, MC_LIGHT_BYTES);
                    c->have[k] |= 1;
                }
                if (s->block_light) {
                    memcpy(c->saved + (2 * k + 1) * MC_LIGHT_BYTES, s->block_light, MC_LIGHT_BYTES);
                    c->have[k] |= 2;
                }
            }
            nfull++;
        }
    mc_buf_free(&nbt);
    mc_region_close(region);
    uint64_t rt[2] = {0, 0}, re[2] = {0, 0};
    diff d[2][256];
    size_t nd[2] = {0, 0};
    const mc_registry *reg = NULL;
    unsigned checked = 0;
    /* the region lit in one batch, as `region relight` lights it (the
     * columns keep their blocks and are freed after the batch) */
    assert_int_equal(mc_light_batch_begin(eng, 0), MC_OK);
    for (int lz = 1; lz < 31; lz++)
        for (int lx = 1; lx < 31; lx++) {
            chunk *c = &ch[lz * 32 + lx];
            if (!c->col)
                continue;
            const mc_column *nb[8];
            int k = 0;
            bool all = true;
            for (int dz = -1; dz <= 1; dz++)
                for (int dx = -1; dx <= 1; dx++)
                    if (dx || dz) {
                        nb[k] = ch[(lz + dz) * 32 + lx + dx].col;
                        all = all && nb[k];
                        k++;
                    }
            if (!all)
                continue;
            reg = mc_column_registry(c->col);
            assert_int_equal(mc_light_column(eng, c->col, nb, MC_LIGHT_BOTH, &err), MC_OK);
            checked++;
            for (uint32_t s = 0; s < mc_column_section_count(c->col); s++) {
                const mc_section *sec = mc_column_section_at(c->col, s);
                for (int w = 0; w < 2; w++) {
                    if (!(c->have[s] & (1 << w)))
                        continue;
                    const uint8_t *want = c->saved + (2 * s + (uint32_t)w) * MC_LIGHT_BYTES;
                    const uint8_t *got = w ? sec->block_light : sec->sky_light;
                    for (unsigned i = 0; i < 4096; i++) {
                        rt[w]++;
                        if (mc_light_get(want, i) == mc_light_get(got, i))
                            re[w]++;
                        else
                            add_diff(d[w], &nd[w], 256, mc_container_get(&sec->blocks, i));
                    }
                }
            }
        }
    mc_light_batch_end(eng);
    /* the next region's chunks are unrelated: free these */
    for (int i = 0; i < 32 * 32; i++) {
        mc_column_free(ch[i].col);
        free(ch[i].saved);
        free(ch[i].have);
    }
    free(ch);
    if (!checked)
        return false;
    print_message("  %s: %u full chunks, %u with full neighbours: sky %.3f%% of %llu, block %.3f%% of %llu equal\n",
                  path + strlen(mc_test_corpus_dir()) + 1, nfull, checked, 100.0 * (double)re[0] / (double)rt[0],
                  (unsigned long long)rt[0], 100.0 * (double)re[1] / (double)rt[1], (unsigned long long)rt[1]);
    print_diffs("sky  ", reg, d[0], nd[0]);
    print_diffs("block", reg, d[1], nd[1]);
    for (int w = 0; w < 2; w++) {
        tot[w] += rt[w];
        eq[w] += re[w];
        double a = rt[w] ? (double)re[w] / (double)rt[w] : 1.0;
        if (a < *worst)
            *worst = a;
    }
    return true;
}

static void test_vanilla_corpus(void **state)
{
    (void)state;
    MC_SKIP_WITHOUT_CORPUS();
    char **files = mc_test_list_corpus("anvil", ".mca");
    mc_light_engine *eng = mc_light_engine_new(NULL);
    assert_non_null(eng);
    uint64_t tot[2] = {0, 0}, eq[2] = {0, 0};
    double worst = 1.0;
    unsigned regions = 0;
    for (char **f = files; *f; f++) {
        if (strstr(*f, "poi") || strstr(*f, "entities"))
            continue;
        regions += check_region(*f, eng, tot, eq, &worst);
    }
    mc_test_free_list(files);
    mc_light_engine_free(eng);
    print_message("%u regions: sky %.3f%%, block %.3f%% equal; worst region/light %.3f%%\n", regions,
                  100.0 * (double)eq[0] / (double)(tot[0] ? tot[0] : 1),
                  100.0 * (double)eq[1] / (double)(tot[1] ? tot[1] : 1), 100.0 * worst);
    assert_true(regions >= 5);
    /* every region, sky and block light alike, reaches this */
    if (worst < FLOOR)
        fail_msg("a region's agreement %.3f%% is below %.1f%%", 100.0 * worst, 100.0 * FLOOR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vanilla_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
