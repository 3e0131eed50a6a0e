/*
 * test_world_histogram.c: world stats' count of a block container's
 * palette entries read straight from its longs (programs/mcchunk/world/
 * histogram.c) gives what mc_container_histogram gives, for every width
 * it takes (4-8 bits; the corpus worlds hold only 4 and 5):
 *  - sections of long runs (equal longs, counted once with their length)
 *    mixed with pseudo-random indices, one palette entry used only by the
 *    last index (the last long's few indices at 5-7 bits);
 *  - padding bits set in every long (ignored, as the unpacker ignores
 *    them);
 *  - an index at or past the palette's end, first or last, is refused
 *    (false) rather than counted, so the caller falls back;
 *  - single, biome-sized containers are left to the caller (false).
 */
#include "support.h"

#include <string.h>

#include "world/histogram.h"

#define N 4096u

static uint32_t rng = 12345;
static uint32_t next_rand(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

/* A container of `bits` whose palette has 2^(bits-1)+1 entries (the
 * smallest that needs the width), entry n-1 only at the last index. */
static void make(mc_container *c, unsigned bits, bool runs)
{
    const uint32_t n = bits == 4 ? 9 : (1u << (bits - 1)) + 1;
    static uint32_t vals[N];
    for (uint32_t i = 0; i < N - 1; i++) {
        if (runs && (i / 256) % 2 == 0)
            vals[i] = 1000 + (i / 512) % 3; /* whole layers of one value */
        else
            vals[i] = 1000 + (i < n - 1 ? i : next_rand() % (n - 1));
    }
    vals[N - 1] = 1000 + n - 1;
    mc_container_rules rules = mc_container_rules_blocks(15);
    mc_container_init(c, &rules, 0, NULL);
    assert_int_equal(mc_container_set_all(c, vals), MC_OK);
    assert_int_equal(c->kind, MC_CONTAINER_INDIRECT);
    assert_int_equal(c->bits, bits);
    assert_int_equal(c->palette_len, n);
}

static void expect_same(const mc_container *c)
{
    uint32_t want[256], got[256];
    memset(want, 0, sizeof want);
    memset(got, 0xAB, sizeof got);
    assert_true(mc_container_histogram(c, want));
    assert_true(world_histogram_blocks(c, got));
    uint32_t sum = 0;
    for (uint32_t k = 0; k < c->palette_len; k++) {
        assert_int_equal(got[k], want[k]);
        sum += got[k];
    }
    assert_int_equal(sum, N);
    assert_int_equal(got[c->palette_len - 1], 1); /* the last index's entry */
}

/* Sets index i of c's padded longs to v. */
static void poke(mc_container *c, size_t i, uint32_t v)
{
    const unsigned per = 64 / c->bits;
    const uint64_t mask = (1ull << c->bits) - 1;
    const unsigned shift = (unsigned)(i % per) * c->bits;
    uint64_t *l = &c->longs[i / per];
    *l = (*l & ~(mask << shift)) | ((uint64_t)v << shift);
}

static void test_widths_match_the_library(void **state)
{
    (void)state;
    for (unsigned bits = 4; bits <= 8; bits++) {
        for (int runs = 0; runs < 2; runs++) {
            mc_container c;
            make(&c, bits, runs);
            expect_same(&c);
            /* padding bits set: still the same counts */
            const unsigned per = 64 / bits;
            if (per * bits < 64) {
                const size_t nl = (N + per - 1) / per;
                for (size_t k = 0; k < nl; k++)
                    c.longs[k] |= ~0ull << (per * bits);
                /* the last long's unused indices too */
                for (size_t i = N; i < nl * per; i++)
                    poke(&c, i, (1u << bits) - 1);
                expect_same(&c);
            }
            mc_container_free(&c);
        }
    }
}

static void test_index_past_palette_refused(void **state)
{
    (void)state;
    for (unsigned bits = 4; bits <= 8; bits++) {
        const size_t at[] = {0, 1, N / 2 + 3, N - 1};
        for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
            mc_container c;
            make(&c, bits, true);
            poke(&c, at[a], c.palette_len); /* just past the end */
            uint32_t got[256];
            memset(got, 0xAB, sizeof got);
            assert_false(world_histogram_blocks(&c, got));
            assert_int_equal(got[0], 0xABABABABu); /* untouched */
            poke(&c, at[a], (1u << bits) - 1); /* the widest index */
            assert_false(world_histogram_blocks(&c, got));
            mc_container_free(&c);
        }
    }
}

static void test_other_containers_left_to_caller(void **state)
{
    (void)state;
    uint32_t got[64];
    mc_container_rules rules = mc_container_rules_blocks(15);
    mc_container c;
    mc_container_init(&c, &rules, 7, NULL);
    assert_false(world_histogram_blocks(&c, got)); /* single */
    mc_container_free(&c);
    rules = mc_container_rules_biomes(6);
    uint32_t vals[64];
    for (uint32_t i = 0; i < 64; i++)
        vals[i] = i % 5;
    mc_container_init(&c, &rules, 0, NULL);
    assert_int_equal(mc_container_set_all(&c, vals), MC_OK);
    assert_false(world_histogram_blocks(&c, got)); /* 64 entries */
    mc_container_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths_match_the_library),
        cmocka_unit_test(test_index_past_palette_refused),
        cmocka_unit_test(test_other_containers_left_to_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
