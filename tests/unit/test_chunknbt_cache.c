/*
 * test_chunknbt_cache.c: the palette-entry cache of the chunk NBT reader
 * (src/chunknbt/cache.c), through the calls the fast section reader
 * makes: entries as their payload bytes, biomes by name.
 *
 * The cache hashes and compares keys of 16 to 64 bytes with words at
 * offsets clamped into the key, without a branch on the length; a slip in
 * those offsets would skip bytes, and an entry differing from a cached one
 * only there would get the cached state. So: entries of every length the
 * registry gives (Name alone, and with Properties up to the longest state),
 * each resolved twice (miss, then hit) to the registry's own answer, and
 * each with every one of its bytes changed in turn, which the cache holding
 * the original must answer as a cache that never met it does.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "chunknbt/chunknbt_private.h"
#include "mcchunk/registry.h"

static size_t put_str(uint8_t *p, const char *s, size_t n)
{
    p[0] = (uint8_t)(n >> 8);
    p[1] = (uint8_t)n;
    memcpy(p + 2, s, n);
    return n + 2;
}

/* The payload of the palette entry of `state` as the game writes it:
 * {Properties: {...}, Name} (Properties left out when none or !with_props). */
static size_t entry_bytes(const mc_registry *reg, uint32_t state, bool with_props, uint8_t *out)
{
    size_t n = 0;
    const unsigned np = with_props ? mc_registry_state_prop_count(reg, state) : 0;
    if (np) {
        out[n++] = MC_NBT_COMPOUND;
        n += put_str(out + n, "Properties", 10);
        for (unsigned i = 0; i < np; i++) {
            const char *k, *v;
            assert_true(mc_registry_state_prop(reg, state, i, &k, &v));
            out[n++] = MC_NBT_STRING;
            n += put_str(out + n, k, strlen(k));
            n += put_str(out + n, v, strlen(v));
        }
        out[n++] = MC_NBT_END;
    }
    const char *name = mc_registry_state_name(reg, state);
    out[n++] = MC_NBT_STRING;
    n += put_str(out + n, "Name", 4);
    n += put_str(out + n, name, strlen(name));
    out[n++] = MC_NBT_END;
    return n;
}

/* Every byte of entry[0..len) changed in turn: the cache that holds the
 * original answers what a cache that never met it answers. (Not simply
 * "another state": a changed byte can leave an entry of the same state, as
 * "Qroperties" is a key the game ignores.) */
static void mutate_every_byte(mc_chunknbt_cache *c, const mc_registry *reg, const uint8_t *entry, size_t len)
{
    uint8_t *m = malloc(len);
    assert_non_null(m);
    for (size_t i = 0; i < len; i++) {
        for (unsigned flip = 1; flip <= 0x40; flip <<= 6) { /* 0x01 and 0x40 */
            memcpy(m, entry, len);
            m[i] ^= (uint8_t)flip;
            mc_chunknbt_cache *fresh = mc_chunknbt_cache_new(NULL);
            assert_non_null(fresh);
            uint32_t got = MC_STATE_NONE, want = MC_STATE_NONE;
            const mc_status st = mc__cache_block_raw(c, reg, m, len, &got);
            const mc_status want_st = mc__cache_block_raw(fresh, reg, m, len, &want);
            mc_chunknbt_cache_free(fresh);
            if (st != want_st || (st == MC_OK && got != want))
                fail_msg("entry of %zu bytes with byte %zu ^ 0x%02x: status %d state %u, a fresh cache %d %u", len,
                         i, flip, (int)st, got, (int)want_st, want);
        }
    }
    free(m);
}

static void test_entries_of_every_length(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    mc_chunknbt_cache *c = mc_chunknbt_cache_new(NULL);
    assert_non_null(c);
    /* the first state met of each entry length, with and without properties */
    bool seen[512] = {false};
    size_t lengths = 0, in_window = 0;
    uint8_t buf[1024];
    for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
         s = mc_registry_next_state(reg, s)) {
        for (int with_props = 0; with_props < 2; with_props++) {
            const size_t len = entry_bytes(reg, s, with_props, buf);
            assert_true(len < sizeof seen);
            if (seen[len])
                continue;
            seen[len] = true;
            lengths++;
            in_window += len >= 16 && len <= 64;
            /* what the registry says (Name alone: the block's default state) */
            uint32_t want = s;
            if (!with_props || !mc_registry_state_prop_count(reg, s))
                want = mc_registry_default_state(reg, mc_registry_state_name(reg, s));
            for (int pass = 0; pass < 2; pass++) { /* a miss, then a hit */
                uint32_t got = MC_STATE_NONE;
                assert_int_equal(mc__cache_block_raw(c, reg, buf, len, &got), MC_OK);
                assert_int_equal(got, want);
            }
            mutate_every_byte(c, reg, buf, len);
        }
    }
    /* the registry must have given lengths on both sides of the window */
    assert_true(in_window >= 30);
    assert_true(lengths >= in_window + 30);
    mc_chunknbt_cache_free(c);
}

/* Entries of one length that differ only in a few bytes of their middle
 * (values of equal length): each resolves to its own state, on its miss
 * and on its hit, never from a neighbour's slot. */
static void test_neighbours_in_cache(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    mc_chunknbt_cache *c = mc_chunknbt_cache_new(NULL);
    /* east/west, inner_left/outer_left, delay 1/2/3: same lengths */
    const char *texts[] = {
        "minecraft:oak_stairs[facing=east,half=top,shape=straight,waterlogged=false]",
        "minecraft:oak_stairs[facing=west,half=top,shape=straight,waterlogged=false]",
        "minecraft:oak_stairs[facing=east,half=top,shape=straight,waterlogged=true]",
        "minecraft:oak_stairs[facing=east,half=top,shape=inner_left,waterlogged=false]",
        "minecraft:oak_stairs[facing=east,half=top,shape=outer_left,waterlogged=false]",
        "minecraft:repeater[delay=1,facing=north,locked=false,powered=false]",
        "minecraft:repeater[delay=2,facing=north,locked=false,powered=false]",
        "minecraft:repeater[delay=3,facing=north,locked=false,powered=false]",
        "minecraft:stone",
        "minecraft:dirt",
    };
    const size_t n = sizeof texts / sizeof texts[0];
    uint32_t want[sizeof texts / sizeof texts[0]];
    uint8_t buf[sizeof texts / sizeof texts[0]][512];
    size_t len[sizeof texts / sizeof texts[0]];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(mc_registry_parse_state(reg, texts[i], strlen(texts[i]), &want[i], NULL), MC_OK);
        len[i] = entry_bytes(reg, want[i], true, buf[i]);
    }
    for (size_t round = 0; round < 2; round++)
        for (size_t i = 0; i < n; i++) {
            uint32_t got;
            assert_int_equal(mc__cache_block_raw(c, reg, buf[i], len[i], &got), MC_OK);
            assert_int_equal(got, want[i]);
        }
    mc_chunknbt_cache_free(c);
}

/* Biome names: each resolves to its id, and every byte changed does not. */
static void test_biomes(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    mc_chunknbt_cache *c = mc_chunknbt_cache_new(NULL);
    size_t count = 0;
    for (uint32_t id = 0; id < 4096; id++) {
        const char *name = mc_registry_biome_name(reg, id);
        if (!name)
            continue;
        count++;
        const size_t n = strlen(name);
        for (int pass = 0; pass < 2; pass++) {
            uint32_t got = UINT32_MAX;
            assert_int_equal(mc__cache_biome(c, reg, name, n, &got), MC_OK);
            assert_int_equal(got, id);
        }
        char m[256];
        assert_true(n < sizeof m);
        for (size_t i = 0; i < n; i++) {
            memcpy(m, name, n);
            m[i] ^= 0x01;
            uint32_t got = UINT32_MAX;
            if (mc__cache_biome(c, reg, m, n, &got) == MC_OK && got == id)
                fail_msg("biome %s with byte %zu changed resolved to its id", name, i);
        }
    }
    assert_true(count >= 60);
    mc_chunknbt_cache_free(c);
}

/* One cache shared by two registries (a world saved by several game
 * versions): every state of 1.16.5 as its palette entry, looked up in
 * 1.16.5 and in 1.21.1 in turn, twice over (misses, then hits after the
 * table grew many times), gets from each registry what a cache used with
 * that registry alone gets: a slot names its registry, and the table
 * re-places its slots from their stored hash bits when it grows (the
 * second pass finds every key: the cache holds each once). */
static void test_registries_share_cache(void **state)
{
    (void)state;
    const mc_registry *regs[2] = {mc_registry_find("1.16.5"), mc_registry_find("1.21.1")};
    assert_non_null(regs[0]);
    assert_non_null(regs[1]);
    mc_chunknbt_cache *shared = mc_chunknbt_cache_new(NULL);
    mc_chunknbt_cache *alone[2] = {mc_chunknbt_cache_new(NULL), mc_chunknbt_cache_new(NULL)};
    assert_non_null(shared);
    uint8_t buf[1024];
    size_t differing = 0, states = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t s = mc_registry_next_state(regs[0], MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(regs[0], s)) {
            const size_t len = entry_bytes(regs[0], s, true, buf);
            uint32_t got[2], want[2];
            for (int r = 0; r < 2; r++) {
                const mc_status st = mc__cache_block_raw(shared, regs[r], buf, len, &got[r]);
                const mc_status want_st = mc__cache_block_raw(alone[r], regs[r], buf, len, &want[r]);
                assert_int_equal(st, want_st);
                if (st == MC_OK && got[r] != want[r])
                    fail_msg("state %u of 1.16.5 in registry %d: %u, alone %u", s, r, got[r], want[r]);
            }
            differing += want[0] != want[1];
            states += pass == 0;
        }
    assert_int_equal(mc__cache_entries(shared), mc__cache_entries(alone[0]) + mc__cache_entries(alone[1]));
    assert_int_equal(mc__cache_entries(alone[0]), states);
    /* the two registries must disagree on more than half the ids (differing
     * counts both passes) for this to mean anything */
    assert_true(states > 10000);
    assert_true(differing > states);
    mc_chunknbt_cache_free(shared);
    mc_chunknbt_cache_free(alone[0]);
    mc_chunknbt_cache_free(alone[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_of_every_length),
        cmocka_unit_test(test_neighbours_in_cache),
        cmocka_unit_test(test_biomes),
        cmocka_unit_test(test_registries_share_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
