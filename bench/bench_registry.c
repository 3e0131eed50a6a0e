/*
 * bench_registry.c: the two registry figures the issue sets limits for,
 * next to a peer timed in the same run.
 *
 *  1. name + properties -> state (mc_registry_lookup, target <= 100 ns) and
 *     the same from text (mc_registry_parse_state), over every state of
 *     1.21.4 in a shuffled order, every property given. Peer: prismarine-
 *     block's Block.fromProperties on the same queries (node, when the
 *     interop packages are installed), and a naive C lookup that finds the
 *     block by a linear scan of names (what the code would do without the
 *     hash table).
 *     The same lookup on Bedrock 1.21.50, where most blocks list their
 *     states in an order of their own (no peer; the limit is the issue's).
 *  2. translation map 1.21.4 -> 1.12.2 built from nothing (target <= 50 ms):
 *     the first call of the process (includes building both registries' name
 *     indexes), then rebuilds with fresh intermediate maps (median). Peer:
 *     translating every state one by one through mc_registry_translate_state
 *     (the slow path, one hash lookup per state).
 *
 * Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID), medians of 15 rounds:
 * the build machine is shared, and wall time there measures the neighbours.
 * BENCH_SEQUENTIAL=1 queries the states in id order instead of shuffled
 * (the locality of a real palette); the shuffled order is the worst case.
 *
 * usage: bench_registry [--no-peer]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/registry.h"
#include "registry/reg_private.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Queries are packed (text and property strings copied into one arena,
 * property arrays contiguous), as a caller's freshly parsed input would be:
 * the benchmark must not measure cache misses on its own query records. */
typedef struct {
    const char *text;
    size_t len;
    const char *name;
    size_t name_len;
    mc_state_prop *props;
    size_t nprops;
    uint32_t state;
} query;

static char *arena;
static size_t arena_len, arena_cap;

static const char *copy_str(const char *s, size_t n)
{
    if (arena_len + n + 1 > arena_cap)
        return NULL;
    char *p = arena + arena_len;
    memcpy(p, s, n);
    p[n] = '\0';
    arena_len += n + 1;
    return p;
}

/* The naive peer: linear scan of block names, then the library's lookup for
 * the properties (so only the block search differs). */
static uint32_t naive_lookup(const mc_registry *reg, const query *q)
{
    for (uint32_t s = 0; s < mc_registry_state_count(reg);) {
        const char *name = mc_registry_state_name(reg, s);
        const mc__tables *t = mc__tables_of(reg);
        uint32_t b = mc__block_of_state(reg, t, s);
        if (!strncmp(name, q->name, q->name_len) && name[q->name_len] == '\0') {
            uint32_t st;
            mc_registry_lookup(reg, q->name, q->name_len, q->props, q->nprops, &st, NULL);
            return st;
        }
        s = t->block_min[b + 1]; /* the last block's entry is the state count */
    }
    return MC_STATE_NONE;
}

/* Median ns per mc_registry_lookup over every state of reg, shuffled, all
 * properties given, queries packed in query order like main's; -1 when a
 * lookup is wrong or memory runs out. */
static double lookup_every_state(const mc_registry *reg, int rounds)
{
    uint32_t n = mc_registry_state_count(reg), valid = 0;
    uint32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    query *qs = calloc(n ? n : 1, sizeof *qs);
    mc_state_prop *props = calloc((size_t)(n ? n : 1) * 8, sizeof *props);
    char *text = malloc((size_t)(n ? n : 1) * 256);
    uint64_t *times = calloc((size_t)rounds, sizeof *times);
    double result = -1;
    size_t prop_used = 0, text_used = 0;
    if (!order || !qs || !props || !text || !times)
        goto done;
    for (uint32_t s = 0; s < n; s++)
        if (mc_registry_state_valid(reg, s))
            order[valid++] = s;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = valid; i > 1; i--) {
        seed ^= seed >> 12; seed ^= seed << 25; seed ^= seed >> 27;
        uint32_t j = (uint32_t)((seed * 0x2545F4914F6CDD1Dull) % i);
        uint32_t t = order[i - 1]; order[i - 1] = order[j]; order[j] = t;
    }
    for (uint32_t i = 0; i < valid; i++) {
        query *q = &qs[i];
        const char *k, *v, *name = mc_registry_state_name(reg, order[i]);
        q->state = order[i];
        q->name_len = strlen(name);
        q->props = props + prop_used;
        if (text_used + q->name_len + 1 > (size_t)n * 256)
            goto done;
        q->name = memcpy(text + text_used, name, q->name_len + 1);
        text_used += q->name_len + 1;
        for (unsigned p = 0; mc_registry_state_prop(reg, q->state, p, &k, &v); p++) {
            size_t kl = strlen(k), vl = strlen(v);
            if (prop_used + q->nprops >= (size_t)n * 8 || text_used + kl + vl + 2 > (size_t)n * 256)
                goto done;
            char *kc = memcpy(text + text_used, k, kl + 1), *vc = memcpy(text + text_used + kl + 1, v, vl + 1);
            text_used += kl + vl + 2;
            q->props[q->nprops++] = (mc_state_prop){kc, kl, vc, vl};
        }
        prop_used += q->nprops;
    }
    for (int r = 0; r < rounds; r++) {
        uint64_t a = now_ns();
        for (uint32_t i = 0; i < valid; i++) {
            uint32_t st;
            if (mc_registry_lookup(reg, qs[i].name, qs[i].name_len, qs[i].props, qs[i].nprops, &st, NULL) != MC_OK ||
                st != qs[i].state)
                goto done;
        }
        times[r] = now_ns() - a;
    }
    qsort(times, (size_t)rounds, sizeof times[0], cmp_u64);
    result = valid ? (double)times[rounds / 2] / valid : 0;
done:
    free(order);
    free(qs);
    free(props);
    free(text);
    free(times);
    return result;
}

int main(int argc, char **argv)
{
    bool peer = !(argc > 1 && !strcmp(argv[1], "--no-peer"));
    const mc_registry *reg = mc_registry_find("1.21.4");
    const mc_registry *old = mc_registry_find("1.12.2");
    if (!reg || !old)
        return 1;

    /* ---- first-call (cold) map build, before anything warmed the indexes */
    uint64_t t0 = now_ns();
    const uint32_t *map = mc_registry_map(reg, old);
    uint64_t cold = now_ns() - t0;
    if (!map)
        return 1;

    /* ---- queries: every state, shuffled */
    uint32_t n = mc_registry_state_count(reg);
    query *qs = calloc(n, sizeof *qs);
    if (!qs)
        return 1;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    uint32_t *order = malloc(n * sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = getenv("BENCH_SEQUENTIAL") ? 0 : n - 1; i > 0; i--) { /* env: no shuffle */
        seed ^= seed >> 12; seed ^= seed << 25; seed ^= seed >> 27;
        uint32_t j = (uint32_t)((seed * 0x2545F4914F6CDD1Dull) % (i + 1));
        uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }
    arena_cap = (size_t)n * 256;
    arena = malloc(arena_cap);
    mc_state_prop *prop_arena = malloc((size_t)n * 8 * sizeof *prop_arena);
    size_t prop_used = 0;
    if (!arena || !prop_arena)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        query *q = &qs[i];
        char text[512];
        q->state = order[i];
        q->len = mc_registry_format_state(reg, q->state, text, sizeof text, 0);
        q->text = copy_str(text, q->len);
        const char *name = mc_registry_state_name(reg, q->state);
        q->name_len = strlen(name);
        q->name = copy_str(name, q->name_len);
        q->props = prop_arena + prop_used;
        const char *k, *v;
        for (unsigned p = 0; mc_registry_state_prop(reg, q->state, p, &k, &v); p++) {
            const char *kc = copy_str(k, strlen(k)), *vc = copy_str(v, strlen(v));
            q->props[p] = (mc_state_prop){kc, strlen(k), vc, strlen(v)};
            q->nprops++;
        }
        prop_used += q->nprops;
        if (!q->text || !q->name || prop_used > (size_t)n * 8 - MC__MAX_PROPS)
            return 1;
    }

    enum { ROUNDS = 15 };
    uint64_t lk[ROUNDS], ps[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t a = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s;
            if (mc_registry_lookup(reg, qs[i].name, qs[i].name_len, qs[i].props, qs[i].nprops, &s, NULL) != MC_OK ||
                s != qs[i].state)
                return fprintf(stderr, "lookup mismatch at %u\n", qs[i].state), 1;
        }
        uint64_t b = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s;
            if (mc_registry_parse_state(reg, qs[i].text, qs[i].len, &s, NULL) != MC_OK || s != qs[i].state)
                return fprintf(stderr, "parse mismatch at %u\n", qs[i].state), 1;
        }
        uint64_t c = now_ns();
        lk[r] = b - a;
        ps[r] = c - b;
    }
    qsort(lk, ROUNDS, sizeof lk[0], cmp_u64);
    qsort(ps, ROUNDS, sizeof ps[0], cmp_u64);
    double lookup_ns = (double)lk[ROUNDS / 2] / n, parse_ns = (double)ps[ROUNDS / 2] / n;

    uint32_t naive_n = n < 4000 ? n : 4000;
    uint64_t a = now_ns();
    for (uint32_t i = 0; i < naive_n; i++)
        if (naive_lookup(reg, &qs[i]) != qs[i].state)
            return fprintf(stderr, "naive mismatch\n"), 1;
    double naive_ns = (double)(now_ns() - a) / naive_n;

    /* ---- map rebuilds with fresh intermediates */
    uint64_t mb[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t x = now_ns();
        uint32_t *m = mc__map_build(reg, old, true);
        mb[r] = now_ns() - x;
        if (!m || memcmp(m, map, n * sizeof *m))
            return fprintf(stderr, "rebuilt map differs\n"), 1;
        free(m);
    }
    qsort(mb, ROUNDS, sizeof mb[0], cmp_u64);
    a = now_ns();
    for (uint32_t s = 0; s < n; s++)
        if (mc_registry_translate_state(reg, old, s, NULL) != map[s])
            return fprintf(stderr, "slow path differs at %u\n", s), 1;
    uint64_t slow = now_ns() - a;

    printf("registry 1.21.4: %u states\n", n);
    printf("  lookup name+props -> state   %7.1f ns   (limit 100)\n", lookup_ns);
    printf("  parse text -> state          %7.1f ns\n", parse_ns);
    printf("  naive (linear name scan)     %7.1f ns   ratio %.1fx\n", naive_ns, naive_ns / lookup_ns);
    const mc_registry *bedrock = mc_registry_find_bedrock("1.21.50");
    double bedrock_ns = bedrock ? lookup_every_state(bedrock, ROUNDS) : -1;
    if (bedrock_ns < 0)
        return fprintf(stderr, "bedrock lookup failed\n"), 1;
    printf("  Bedrock 1.21.50 lookup       %7.1f ns   (limit 100; %u states)\n", bedrock_ns,
           mc_registry_state_count(bedrock));

    if (peer) {
        /* prismarine-block on the same queries (text form, split in JS) */
        char path[] = "/tmp/mcchunk-bench-registry-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (f) {
            for (uint32_t i = 0; i < n; i++)
                fprintf(f, "%u %s\n", qs[i].state, qs[i].text);
            fclose(f);
            char cmd[2048];
            snprintf(cmd, sizeof cmd,
                     "cd '%s/tests/interop' 2>/dev/null && node -e \""
                     "const fs=require('fs');const reg=require('prismarine-registry')('1.21.4');"
                     "const B=require('prismarine-block')(reg);"
                     "const qs=fs.readFileSync('%s','utf8').trim().split('\\n').map(l=>{"
                     "const m=/^(\\\\d+) minecraft:([^\\\\[]+)(?:\\\\[(.*)\\\\])?$/.exec(l);const p={};"
                     "if(m[3])for(const kv of m[3].split(',')){const [k,v]=kv.split('=');p[k]=v;}"
                     "return [+m[1],m[2],p];});"
                     "let best=1e18;for(let r=0;r<5;r++){const t=process.hrtime.bigint();"
                     "for(const [id,name,p] of qs){const b=B.fromProperties(name,p,0);if(b.stateId!==id)throw new Error('mismatch '+id+' '+b.stateId);}"
                     "best=Math.min(best,Number(process.hrtime.bigint()-t));}"
                     "console.log((best/qs.length).toFixed(1));\" 2>/dev/null",
                     MC_SOURCE_DIR, path);
            FILE *p = popen(cmd, "r");
            double peer_ns = 0;
            if (p && fscanf(p, "%lf", &peer_ns) == 1 && peer_ns > 0)
                printf("  prismarine-block fromProperties %5.1f ns  ratio %.1fx\n", peer_ns, peer_ns / lookup_ns);
            else
                printf("  prismarine-block peer: not available\n");
            if (p)
                pclose(p);
            unlink(path);
        }
    }

    printf("map 1.21.4 -> 1.12.2 (%u entries)\n", n);
    printf("  first call in the process    %7.2f ms   (limit 50; includes name indexes)\n", cold / 1e6);
    printf("  rebuild, fresh intermediates %7.2f ms   (median of %d)\n", mb[ROUNDS / 2] / 1e6, ROUNDS);
    printf("  state-by-state slow path     %7.2f ms   ratio %.1fx\n", slow / 1e6, (double)slow / (double)mb[ROUNDS / 2]);
    free(qs);
    free(order);
    free(arena);
    free(prop_arena);
    return 0;
}
