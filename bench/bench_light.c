/*
 * bench_light.c: full relight of real 24-section columns with their eight
 * neighbours (mc_light_column), next to the straight-down sky fill the
 * server used before the engine existed (heightmap, then 15 above it and 0
 * below: the same algorithm as mc_simple_sky_light, copied here because
 * benches link only the library), measured in the same run.
 *
 * Columns: every full chunk of a 1.18+ corpus region (default
 * anvil/1.19.4/ppa-r.0.0.mca, or the file given) whose eight neighbours are
 * full too. Each figure is the median over passes of the mean time per
 * column (thread CPU time; the measures take turns in each pass).
 * `bench_light [region.mca] [passes] [measure]`: a measure (0 both, 1 sky,
 * 2 block, 3 the fill, 4 both in a batch) runs only that one, for callgrind:
 * `valgrind --tool=callgrind --toggle-collect='one_pass*' bench_light R 1 0`
 * counts the instructions of one pass (after a warm-up call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcchunk/mcchunk.h"

/* The thread's CPU time: on a shared machine, the time other processes
 * hold the core is not ours (the figures are single-threaded). */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void straight_down(mc_column *col)
{
    uint32_t n = mc_column_section_count(col);
    int32_t min_y = mc_column_min_y(col);
    uint16_t top[256];
    mc_column_compute_heightmaps(col, 1u << MC_HEIGHTMAP_WORLD_SURFACE);
    mc_column_heightmap_get_all(col, MC_HEIGHTMAP_WORLD_SURFACE, top);
    uint8_t light[MC_LIGHT_BYTES];
    for (uint32_t i = 0; i < n; i++) {
        int32_t base = min_y + (int32_t)i * 16;
        memset(light, 0, sizeof light);
        for (unsigned y = 0; y < 16; y++)
            for (unsigned zx = 0; zx < 256; zx++)
                if (base + (int32_t)y >= min_y + (int32_t)top[zx])
                    mc_light_set(light, (y << 8) | zx, 15);
        mc_section_set_sky_light(mc_column_section_at(col, i), light);
    }
}

static bool full(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col), *st = x ? mc_nbt_get(x, "Status") : NULL;
    const char *s;
    size_t n;
    return st && mc_nbt_get_string(st, &s, &n) == MC_OK && n >= 4 && memcmp(s + n - 4, "full", 4) == 0;
}

#define NMEASURES 5

typedef struct bench_columns {
    mc_light_engine *e;
    mc_column *(*cols)[32];
    int (*centres)[2];
    int nc;
} bench_columns;

/* One pass of measure m over every centre column (0 both, 1 sky, 2 block,
 * 3 the straight-down fill, 4 both in one batch: mc_light_batch_begin
 * before the first column, _end after the last, both timed). Out of line, so that
 * `valgrind --tool=callgrind --toggle-collect=one_pass` counts only it. */
__attribute__((noinline)) static bool one_pass(const bench_columns *bc, int m)
{
    mc_error err;
    if (m == 4 && mc_light_batch_begin(bc->e, 0) != MC_OK)
        return false;
    for (int i = 0; i < bc->nc; i++) {
        int x = bc->centres[i][0], z = bc->centres[i][1];
        mc_column *(*cols)[32] = bc->cols;
        const mc_column *nb[8] = {cols[z - 1][x - 1], cols[z - 1][x], cols[z - 1][x + 1], cols[z][x - 1],
                                  cols[z][x + 1],     cols[z + 1][x - 1], cols[z + 1][x], cols[z + 1][x + 1]};
        if (m == 3)
            straight_down(cols[z][x]);
        else if (mc_light_column(bc->e, cols[z][x], nb, m == 1 ? MC_LIGHT_SKY : m == 2 ? MC_LIGHT_BLOCK : MC_LIGHT_BOTH,
                                 &err) != MC_OK) {
            fprintf(stderr, "bench_light: %s\n", err.message);
            return false;
        }
    }
    mc_light_batch_end(bc->e);
    return true;
}

int main(int argc, char **argv)
{
    const char *corpus = getenv("MCCHUNK_CORPUS") ? getenv("MCCHUNK_CORPUS") : MC_CORPUS_DIR;
    char path[1024];
    if (argc > 1)
        snprintf(path, sizeof path, "%s", argv[1]);
    else
        snprintf(path, sizeof path, "%s/anvil/1.19.4/ppa-r.0.0.mca", corpus);
    int passes = argc > 2 ? atoi(argv[2]) : 15;
    int only = -1; /* a third argument: only that measure (0..4), for callgrind */
    if (argc > 3)
        only = atoi(argv[3]);
    if (passes < 1 || passes > 1000 || only < -1 || only > 4) {
        fprintf(stderr, "usage: bench_light [region.mca] [passes 1..1000] [measure 0..4]\n");
        return 2;
    }
    mc_region *region;
    mc_error err;
    if (mc_region_open(path, NULL, &region, &err) != MC_OK) {
        fprintf(stderr, "bench_light: %s: %s\n", path, err.message);
        return 1;
    }
    static mc_column *cols[32][32];
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++) {
            nbt.len = 0;
            mc_column *c;
            if (!mc_region_has_chunk(region, x, z) || mc_region_read_chunk(region, x, z, &nbt, NULL, &err) != MC_OK ||
                mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &c, &err) != MC_OK)
                continue;
            if (full(c) && mc_column_section_count(c) == 24)
                cols[z][x] = c;
            else
                mc_column_free(c);
        }
    mc_buf_free(&nbt);
    mc_region_close(region);
    int centres[1024][2], nc = 0;
    for (int z = 1; z < 31; z++)
        for (int x = 1; x < 31; x++) {
            bool all = cols[z][x] != NULL;
            for (int dz = -1; dz <= 1 && all; dz++)
                for (int dx = -1; dx <= 1 && all; dx++)
                    all = cols[z + dz][x + dx] != NULL;
            if (all)
                centres[nc][0] = x, centres[nc][1] = z, nc++;
        }
    if (!nc) {
        fprintf(stderr, "bench_light: no full 24-section chunk with full neighbours in %s\n", path);
        return 1;
    }
    mc_light_engine *e = mc_light_engine_new(NULL);
    const char *names[NMEASURES] = {"mc_light_column both", "mc_light_column sky", "mc_light_column block",
                                    "straight-down sky fill", "both, in a batch"};
    uint64_t med[NMEASURES];
    uint64_t *t[NMEASURES];
    for (int m = 0; m < NMEASURES; m++)
        t[m] = calloc((size_t)passes, sizeof *t[m]);
    bench_columns bc = {e, cols, centres, nc};
    if (!one_pass(&bc, 0)) /* warm-up: the engine's state table and work area */
        return 1;
    /* the measures take turns within each pass, so that a change in the
     * machine's load weighs on all of them alike */
    for (int p = 0; p < passes; p++)
        for (int m = 0; m < NMEASURES; m++) {
            if (only >= 0 && m != only)
                continue;
            uint64_t t0 = now_ns();
            if (!one_pass(&bc, m))
                return 1;
            t[m][p] = (now_ns() - t0) / (uint64_t)nc;
        }
    for (int m = 0; m < NMEASURES; m++) {
        qsort(t[m], (size_t)passes, sizeof *t[m], cmp_u64);
        med[m] = t[m][passes / 2];
        free(t[m]);
    }
    printf("bench_light: %d columns of 24 sections with 8 neighbours (%s), median of %d passes\n", nc, path, passes);
    for (int m = 0; m < NMEASURES; m++)
        if (only < 0)
            printf("  %-24s %8.1f us/column   x%.2f of the straight-down fill\n", names[m], (double)med[m] / 1000.0,
                   (double)med[m] / (double)med[3]);
        else if (m == only)
            printf("  %-24s %8.1f us/column\n", names[m], (double)med[m] / 1000.0);
    mc_light_engine_free(e);
    for (int z = 0; z < 32; z++)
        for (int x = 0; x < 32; x++)
            mc_column_free(cols[z][x]);
    return 0;
}
