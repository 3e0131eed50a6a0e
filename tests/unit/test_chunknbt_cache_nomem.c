/*
 * test_chunknbt_cache_nomem.c: the palette-entry cache (src/chunknbt/
 * cache.c) when its allocator fails, from each of its allocations on.
 *
 * A cache that cannot take an entry (its list of registries, its table or
 * its key bytes cannot grow) just stops caching: every answer must still
 * be the registry's own, with its status, and never MC_ERR_NOMEM where the
 * answer needs no memory (palette entries of the common shape, read from
 * their bytes). Where it does need some (a key built in the scratch: tree
 * entries and biome names; the parse of an entry of another shape) a
 * failure is MC_ERR_NOMEM, else the registry's answer. Once the allocator
 * works again, the same cache answers every entry right and caches again;
 * the entries it took before the failure still answer from their slots.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "chunknbt/chunknbt_private.h"
#include "mcchunk/registry.h"

/* malloc's, failing every call from the fail_from'th on (counted from 0;
 * fail_from < 0: never). */
typedef struct faulty {
    long calls, fail_from, failed;
} faulty;

static bool refuse(faulty *f)
{
    const bool no = f->fail_from >= 0 && f->calls >= f->fail_from;
    f->calls++;
    f->failed += no;
    return no;
}

static void *f_alloc(void *user, size_t size)
{
    return refuse(user) ? NULL : malloc(size ? size : 1);
}

static void *f_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    return refuse(user) ? NULL : realloc(ptr, new_size ? new_size : 1);
}

static void f_free(void *user, void *ptr, size_t size)
{
    (void)user;
    (void)size;
    free(ptr);
}

/* A palette entry's payload bytes and the registry's answer for it. */
typedef struct entry {
    uint8_t bytes[1024];
    size_t len;
    mc_status want_st;
    uint32_t want;
} entry;

static size_t put_str(uint8_t *p, const char *s, size_t n)
{
    p[0] = (uint8_t)(n >> 8);
    p[1] = (uint8_t)n;
    memcpy(p + 2, s, n);
    return n + 2;
}

/* {Name, Properties} of `state` (`name` instead of its name when given),
 * with an Int "mod:x" in front when `odd` (a shape the cache reads by
 * parsing), and the registry's answer. */
static void make_entry(const mc_registry *reg, uint32_t state, const char *name, bool odd, entry *e)
{
    if (!name)
        name = mc_registry_state_name(reg, state);
    size_t n = 0;
    if (odd) {
        e->bytes[n++] = MC_NBT_INT;
        n += put_str(e->bytes + n, "mod:x", 5);
        memset(e->bytes + n, 0, 4);
        n += 4;
    }
    e->bytes[n++] = MC_NBT_STRING;
    n += put_str(e->bytes + n, "Name", 4);
    n += put_str(e->bytes + n, name, strlen(name));
    mc_state_prop props[64];
    const unsigned np = mc_registry_state_prop_count(reg, state);
    assert_true(np <= 64);
    if (np) {
        e->bytes[n++] = MC_NBT_COMPOUND;
        n += put_str(e->bytes + n, "Properties", 10);
        for (unsigned i = 0; i < np; i++) {
            const char *k, *v;
            assert_true(mc_registry_state_prop(reg, state, i, &k, &v));
            props[i] = (mc_state_prop){k, strlen(k), v, strlen(v)};
            e->bytes[n++] = MC_NBT_STRING;
            n += put_str(e->bytes + n, k, strlen(k));
            n += put_str(e->bytes + n, v, strlen(v));
        }
        e->bytes[n++] = MC_NBT_END;
    }
    e->bytes[n++] = MC_NBT_END;
    assert_true(n <= sizeof e->bytes);
    e->len = n;
    e->want = 0;
    e->want_st = mc_registry_lookup(reg, name, strlen(name), props, np, &e->want, NULL);
}

/* Every state of 1.21.1 and an unknown name, in the common shape or (odd)
 * the other, and with `accent` an unknown name with "é" (which the cache
 * parses, as it does every entry not plain ASCII); *count set. */
static entry *all_entries(const mc_registry *reg, bool odd, bool accent, size_t *count)
{
    const size_t cap = mc_registry_state_count(reg) + 8;
    entry *es = malloc(cap * sizeof *es);
    assert_non_null(es);
    size_t n = 0;
    for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
         s = mc_registry_next_state(reg, s))
        make_entry(reg, s, NULL, odd, &es[n++]);
    const uint32_t stone = mc_registry_default_state(reg, "minecraft:stone");
    make_entry(reg, stone, "mod:unknown_block", odd, &es[n++]);
    assert_int_equal(es[n - 1].want_st, MC_ERR_NOT_FOUND);
    if (accent) {
        make_entry(reg, stone, "minecraft:n\xc3\xa9" "ant", odd, &es[n++]);
        assert_int_equal(es[n - 1].want_st, MC_ERR_NOT_FOUND);
    }
    *count = n;
    return es;
}

/* One pass of raw look-ups, each answer the registry's; with `nomem`, an
 * answer may be NOMEM instead (counted there). */
static void raw_pass(mc_chunknbt_cache *c, const mc_registry *reg, const entry *es, size_t n, size_t *nomem)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t got = MC_STATE_NONE;
        const mc_status st = mc__cache_block_raw(c, reg, es[i].bytes, es[i].len, &got);
        if (st == MC_ERR_NOMEM && nomem) {
            (*nomem)++;
            continue;
        }
        if (st != es[i].want_st || (st == MC_OK && got != es[i].want))
            fail_msg("entry %zu: status %d state %u, the registry %d %u", i, (int)st, got, (int)es[i].want_st,
                     es[i].want);
    }
}

/* Entries of the common shape: a cache failing from each of its
 * allocations on answers all of them (twice: a miss, then a hit or
 * another miss) as the registry does, without NOMEM; healed, it answers
 * them all again and holds every one. */
static void test_plain_entries_cannot_cache(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    size_t n;
    entry *es = all_entries(reg, false, false, &n);
    bool none_cached = false, some_cached = false;
    for (long from = 0;; from++) {
        faulty f = {0, from, 0};
        const mc_allocator a = {f_alloc, f_realloc, f_free, &f};
        mc_chunknbt_cache *c = mc_chunknbt_cache_new(&a);
        if (!c) { /* the cache's own struct */
            assert_int_equal(from, 0);
            continue;
        }
        raw_pass(c, reg, es, n, NULL);
        raw_pass(c, reg, es, n, NULL);
        const size_t held = mc__cache_entries(c);
        const bool failed = f.failed > 0;
        none_cached |= failed && held == 0;
        some_cached |= failed && held > 0 && held < n;
        assert_true(failed || held == n);
        f.fail_from = -1;
        raw_pass(c, reg, es, n, NULL);
        assert_int_equal(mc__cache_entries(c), n);
        raw_pass(c, reg, es, n, NULL); /* all hits */
        assert_int_equal(mc__cache_entries(c), n);
        mc_chunknbt_cache_free(c);
        if (!failed)
            break;
    }
    /* the sweep met a cache that could take nothing (its registries or
     * its first table) and one whose table or keys stopped growing */
    assert_true(none_cached);
    assert_true(some_cached);
    free(es);
}

/* The look-ups that need memory of their own: tree entries, biome names,
 * raw entries of another shape, through a cache failing from each of its
 * allocations on: the registry's answer or NOMEM; healed, the registry's
 * answer for all. */
static void test_lookups_needing_memory(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    size_t n;
    entry *odd = all_entries(reg, true, true, &n);
    /* every 16th state and the unknown names (the last two) as trees,
     * parsed once */
    mc_nbt_doc *docs[4096];
    size_t tree_of[4096], nt = 0;
    for (size_t i = 0; i < n - 2 && nt < 4094; i += 16)
        tree_of[nt++] = i;
    tree_of[nt++] = n - 2;
    tree_of[nt++] = n - 1;
    for (size_t t = 0; t < nt; t++) {
        const size_t i = tree_of[t];
        uint8_t buf[1100] = {MC_NBT_COMPOUND, 0, 0};
        memcpy(buf + 3, odd[i].bytes, odd[i].len);
        docs[t] = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_nbt_parse_ex(docs[t], buf, odd[i].len + 3, MC_NBT_JAVA, MC_NBT_PARSE_COPY, NULL, NULL, NULL),
                         MC_OK);
    }
    const char *biomes[128];
    uint32_t biome_ids[128];
    size_t nb = 0;
    for (uint32_t id = 0; id < 4096 && nb < 127; id++)
        if (mc_registry_biome_name(reg, id)) {
            biome_ids[nb] = id;
            biomes[nb++] = mc_registry_biome_name(reg, id);
        }
    assert_true(nb >= 60);
    biomes[nb++] = "minecraft:n\xc3\xa9" "ant"; /* not a biome */
    size_t nomem_seen = 0;
    for (long from = 1;; from++) {
        faulty f = {0, from, 0};
        const mc_allocator a = {f_alloc, f_realloc, f_free, &f};
        mc_chunknbt_cache *c = mc_chunknbt_cache_new(&a);
        assert_non_null(c);
        for (int healed = 0; healed < 2; healed++) {
            size_t nomem = 0;
            size_t *count = healed ? NULL : &nomem;
            raw_pass(c, reg, odd, n, count);
            for (size_t t = 0; t < nt; t++) {
                const entry *e = &odd[tree_of[t]];
                uint32_t got = MC_STATE_NONE;
                const mc_status st = mc__cache_block(c, reg, mc_nbt_doc_root(docs[t]), &got, NULL);
                if (st == MC_ERR_NOMEM && !healed) {
                    nomem++;
                    continue;
                }
                if (st != e->want_st || (st == MC_OK && got != e->want))
                    fail_msg("tree %zu: status %d state %u, the registry %d %u", t, (int)st, got, (int)e->want_st,
                             e->want);
            }
            for (size_t b = 0; b < nb; b++) {
                uint32_t got = UINT32_MAX;
                const mc_status st = mc__cache_biome(c, reg, biomes[b], strlen(biomes[b]), &got);
                if (st == MC_ERR_NOMEM && !healed) {
                    nomem++;
                    continue;
                }
                if (b + 1 < nb) {
                    assert_int_equal(st, MC_OK);
                    assert_int_equal(got, biome_ids[b]);
                } else {
                    assert_int_equal(st, MC_ERR_NOT_FOUND);
                }
            }
            assert_true(nomem == 0 || f.failed > 0);
            nomem_seen += nomem;
            f.fail_from = -1;
        }
        const bool failed = f.failed > 0;
        mc_chunknbt_cache_free(c);
        if (!failed)
            break;
    }
    assert_true(nomem_seen > 0);
    for (size_t t = 0; t < nt; t++)
        mc_nbt_doc_free(docs[t]);
    free(odd);
}

/* Through the public call: an entry of no bytes is refused (MALFORMED),
 * and a cache that cannot cache answers an unknown entry with air, a
 * known one with its state, as a cache that can. */
static void test_public_call_cannot_cache(void **state)
{
    (void)state;
    const mc_registry *reg = mc_registry_find("1.21.1");
    assert_non_null(reg);
    faulty f = {0, 1, 0}; /* the cache's struct, then nothing */
    const mc_allocator a = {f_alloc, f_realloc, f_free, &f};
    mc_chunknbt_cache *c = mc_chunknbt_cache_new(&a), *ok = mc_chunknbt_cache_new(NULL);
    assert_non_null(c);
    entry e[2];
    make_entry(reg, mc_registry_default_state(reg, "minecraft:oak_stairs"), NULL, false, &e[0]);
    make_entry(reg, 0, "mod:unknown_block", false, &e[1]);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 2; i++) {
            uint32_t got = MC_STATE_NONE, want = MC_STATE_NONE;
            const mc_status st = mc_chunknbt_cache_block_bytes(c, reg, e[i].bytes, e[i].len, &got);
            assert_int_equal(st, mc_chunknbt_cache_block_bytes(ok, reg, e[i].bytes, e[i].len, &want));
            assert_int_equal(st, i ? MC_ERR_NOT_FOUND : MC_OK);
            assert_int_equal(got, want);
            assert_int_equal(got, i ? mc_registry_air(reg) : e[0].want);
        }
    assert_int_equal(mc__cache_entries(c), 0);
    assert_int_equal(mc__cache_entries(ok), 2);
    uint32_t got = 7;
    assert_int_equal(mc_chunknbt_cache_block_bytes(c, reg, e[0].bytes, 0, &got), MC_ERR_MALFORMED);
    assert_true(f.failed > 0);
    mc_chunknbt_cache_free(c);
    mc_chunknbt_cache_free(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_entries_cannot_cache),
        cmocka_unit_test(test_lookups_needing_memory),
        cmocka_unit_test(test_public_call_cannot_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
