/*
 * fuzz_world_stats.c: `mcchunk world stats --merge`'s reader (the tool's
 * JSON reader, programs/mcchunk/world/json.c, and the merge of
 * world/stats.c), fed any bytes. The first byte picks the grouping the
 * merge expects (none, y, biome, dimension, chunk); the rest is the file.
 * Whatever merges must print as JSON that merges again to the same text
 * (printing is a fixpoint after one round), and a failed merge must say so
 * with an error status.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_nbt_common.h" /* FUZZ_CHECK */
#include "world/json.c"
#include "world/stats.c"

/* r printed as JSON into a new buffer (free()); CSV and text printed too
 * (they must not crash; not compared). */
static char *printed(const world_stat_result *r, size_t *len)
{
    char *text = NULL, *other = NULL;
    size_t other_len;
    FILE *f = open_memstream(&text, len), *g = open_memstream(&other, &other_len);
    FUZZ_CHECK(f != NULL && g != NULL);
    world_stat_print_json(r, f);
    world_stat_print_csv(r, g);
    world_stat_print_text(r, g, 3);
    fclose(f);
    fclose(g);
    free(other);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    world_stat_by by = (world_stat_by)(data[0] % 5);
    world_stat_result *r = world_stat_result_new(by);
    FUZZ_CHECK(r != NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status st = world_stat_merge_json(r, data + 1, size - 1, &err);
    if (st == MC_OK) {
        size_t n1, n2;
        char *a = printed(r, &n1);
        world_stat_result *back = world_stat_result_new(by);
        FUZZ_CHECK(back != NULL);
        FUZZ_CHECK(world_stat_merge_json(back, (const uint8_t *)a, n1, &err) == MC_OK);
        char *b = printed(back, &n2);
        FUZZ_CHECK(n1 == n2 && memcmp(a, b, n1) == 0);
        free(a);
        free(b);
        world_stat_result_free(back);
    } else {
        FUZZ_CHECK(err.status == st);
    }
    world_stat_result_free(r);
    return 0;
}
