/*
 * bench_palette.c: memory and speed of the chunk model on a typical terrain
 * column (1.21.4 registry, y -64..319: bedrock, deepslate and stone with ore
 * veins, granite/diorite/andesite blobs, caves, an aquifer, dirt, grass,
 * a few trees, water in a lake, air above).
 *
 * Memory: mc_column_memory() (struct + sections + container heap; light
 * excluded) against the packed size, which is what the 1.21.4 Chunk Data
 * packet spends on the same sections: per section a 2-byte block count,
 * then per container the bits byte, the palette as varints (or the single
 * value), the data length varint and the longs. Heightmaps are excluded on
 * both sides.
 *
 * Speed (median of 11 runs, compared with a plain uint32_t[4096] array, the
 * "peer" representation, in the same run): get of every block, set of every
 * block, encode to and decode from 1.21.4 packet longs like with like (both
 * sides pack entries, both copy longs they hold packed, both unpack packet
 * longs to entries; plus the decode each representation pays to hold the
 * section: ours keeps the longs packed), heightmap computation.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcchunk/chunk.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
static size_t heap_in_use(void) { return mallinfo2().uordblks; }
#endif

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t rng_state = 0x1234567ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static uint32_t st(const mc_registry *reg, const char *name)
{
    uint32_t s = mc_registry_default_state(reg, name);
    if (!mc_registry_state_valid(reg, s)) {
        fprintf(stderr, "no state %s\n", name);
        exit(1);
    }
    return s;
}

static void build_terrain(mc_column *col, const mc_registry *reg)
{
    uint32_t bedrock = st(reg, "bedrock"), deepslate = st(reg, "deepslate"), stone = st(reg, "stone");
    uint32_t dirt = st(reg, "dirt"), grass = st(reg, "grass_block"), water = st(reg, "water");
    uint32_t cave = st(reg, "cave_air"), lava = st(reg, "lava"), log = st(reg, "oak_log");
    uint32_t leaves = st(reg, "oak_leaves"), tall = st(reg, "short_grass"), gravel = st(reg, "gravel");
    uint32_t ores[] = {st(reg, "coal_ore"), st(reg, "iron_ore"), st(reg, "copper_ore"), st(reg, "gold_ore"),
                       st(reg, "redstone_ore"), st(reg, "lapis_ore"), st(reg, "diamond_ore"),
                       st(reg, "deepslate_iron_ore"), st(reg, "deepslate_diamond_ore"),
                       st(reg, "deepslate_redstone_ore")};
    uint32_t blobs[] = {st(reg, "granite"), st(reg, "diorite"), st(reg, "andesite"), st(reg, "tuff")};
    for (int z = 0; z < 16; z++)
        for (int x = 0; x < 16; x++) {
            int top = 64 + (int)((x * 7 + z * 3) % 5);
            for (int y = -64; y <= top; y++) {
                uint32_t s;
                if (y <= -64 + (int)rnd(3))
                    s = bedrock;
                else if (y < 0)
                    s = deepslate;
                else if (y < top - 3)
                    s = stone;
                else if (y < top)
                    s = dirt;
                else
                    s = grass;
                mc_column_set_block(col, x, y, z, s);
            }
            if (x > 9 && z > 9)
                for (int y = top - 2; y <= top; y++)
                    mc_column_set_block(col, x, y, z, y == top ? water : gravel); /* a pond */
            else if (rnd(6) == 0)
                mc_column_set_block(col, x, top + 1, z, tall);
        }
    /* ore veins and stone blobs */
    for (int i = 0; i < 120; i++) {
        int x = (int)rnd(16), y = -60 + (int)rnd(120), z = (int)rnd(16);
        uint32_t s = i < 90 ? ores[rnd(10)] : blobs[rnd(4)];
        int r = i < 90 ? 1 : 3;
        for (int dy = 0; dy < r; dy++)
            for (int dz = 0; dz < r; dz++)
                for (int dx = 0; dx < r; dx++)
                    if (mc_column_get_block(col, x + dx, y + dy, z + dz) != mc_registry_air(reg))
                        mc_column_set_block(col, (x + dx) & 15, y + dy, (z + dz) & 15, s);
    }
    /* a cave with a lava floor and an aquifer */
    for (int y = -40; y < 10; y++)
        for (int z = 3; z < 12; z++)
            for (int x = 2; x < 14; x++)
                if ((x - 8) * (x - 8) + (z - 7) * (z - 7) + (y + 15) * (y + 15) / 8 < 30)
                    mc_column_set_block(col, x, y, z, y < -36 ? lava : (y > 2 ? water : cave));
    /* a tree */
    for (int y = 69; y < 74; y++)
        mc_column_set_block(col, 4, y, 4, log);
    for (int y = 72; y < 76; y++)
        for (int z = 2; z < 7; z++)
            for (int x = 2; x < 7; x++)
                if (mc_column_get_block(col, x, y, z) == mc_registry_air(reg))
                    mc_column_set_block(col, x, y, z, leaves);
    /* biomes: plains above, a cave biome below, a river cell */
    uint32_t nb = mc_registry_biome_count(reg);
    for (uint32_t s = 0; s < mc_column_section_count(col); s++)
        for (int c = 0; c < 64; c++) {
            int cy = (mc_column_min_section(col) + (int32_t)s) * 4 + (c >> 4);
            mc_column_set_biome(col, c & 3, cy, (c >> 2) & 3, cy < 0 ? 2 % nb : (c % 11 == 0 ? 3 % nb : 1 % nb));
        }
}

static size_t varint_size(uint32_t v)
{
    return mc_uvarint_size(v);
}

/* Bytes of one container in a 1.18-1.21.4 packet. */
static size_t wire_size(const mc_container *c)
{
    size_t plen;
    const uint32_t *pal = mc_container_palette(c, &plen);
    size_t n = 1; /* bits per entry */
    if (c->kind == MC_CONTAINER_SINGLE)
        return n + varint_size(pal[0]) + 1;
    if (c->kind == MC_CONTAINER_INDIRECT) {
        n += varint_size((uint32_t)plen);
        for (size_t i = 0; i < plen; i++)
            n += varint_size(pal[i]);
    }
    size_t nl;
    mc_container_longs(c, &nl);
    return n + varint_size((uint32_t)nl) + nl * 8;
}

#define RUNS 11

int main(void)
{
    const mc_registry *reg = mc_registry_find("1.21.4");
    if (!reg) {
        printf("bench_palette: registry 1.21.4 not available\n");
        return 0;
    }
#ifdef HAVE_MALLINFO2
    /* a first column warms up whatever the registry caches on first use */
    mc_column *warm = mc_column_new(reg, 0, 0, -4, 24, NULL);
    build_terrain(warm, reg);
    mc_column_compact(warm);
    size_t heap0 = heap_in_use();
#endif
    mc_column *col = mc_column_new(reg, 0, 0, -4, 24, NULL);
    build_terrain(col, reg);
    mc_column_compact(col);
#ifdef HAVE_MALLINFO2
    size_t heap1 = heap_in_use();
    mc_column_free(warm);
#endif

    size_t packed = 0, heap = 0;
    unsigned kinds[3] = {0}, bits_hist[16] = {0};
    for (uint32_t i = 0; i < 24; i++) {
        const mc_section *s = mc_column_section_at(col, i);
        packed += 2 + wire_size(&s->blocks) + wire_size(&s->biomes);
        heap += mc_container_memory(&s->blocks) + mc_container_memory(&s->biomes);
        kinds[s->blocks.kind]++;
        bits_hist[s->blocks.bits & 15]++;
    }
    size_t mem = mc_column_memory(col);
    printf("mcchunk bench_palette: typical terrain column, 1.21.4, 24 sections\n");
    printf("block containers: %u single, %u indirect, %u direct; widths:", kinds[0], kinds[1], kinds[2]);
    for (int b = 0; b < 16; b++)
        if (bits_hist[b])
            printf(" %d bits x%u", b, bits_hist[b]);
    printf("\n");
    printf("packed (1.21.4 packet section bytes): %zu B\n", packed);
    printf("in memory: %zu B total (%zu B container heap + %zu B structs) = %.3fx packed\n", mem, heap,
           mem - heap, (double)mem / (double)packed);
#ifdef HAVE_MALLINFO2
    printf("glibc heap growth while building it (allocator overhead included): %zu B = %.3fx packed\n",
           heap1 - heap0, (double)(heap1 - heap0) / (double)packed);
#endif

    /* speed, per section (mean over the 24), against a plain array */
    uint64_t t[RUNS];
    uint32_t *plain = malloc(24 * 4096 * 4);
    for (uint32_t i = 0; i < 24; i++)
        mc_container_get_all(&mc_column_section_at(col, i)->blocks, plain + i * 4096);
    volatile uint32_t sink = 0;
#define TIME(label, peer_expr, ours_expr)                                                \
    do {                                                                                 \
        uint64_t tp[RUNS], to[RUNS];                                                     \
        for (int r = 0; r < RUNS; r++) {                                                 \
            uint64_t t0 = now_ns();                                                      \
            peer_expr;                                                                   \
            uint64_t t1 = now_ns();                                                      \
            ours_expr;                                                                   \
            uint64_t t2 = now_ns();                                                      \
            tp[r] = t1 - t0;                                                             \
            to[r] = t2 - t1;                                                             \
        }                                                                                \
        qsort(tp, RUNS, sizeof tp[0], cmp_u64);                                          \
        qsort(to, RUNS, sizeof to[0], cmp_u64);                                          \
        printf("%-52s ours %7.0f ns/section, plain array %7.0f ns/section\n", label,       \
               to[RUNS / 2] / 24.0, tp[RUNS / 2] / 24.0);                                 \
    } while (0)

    TIME("get every block (x,y,z loop)",
         { uint32_t a = 0; for (int s = 0; s < 24; s++) for (int i = 0; i < 4096; i++) a += plain[s * 4096 + i]; sink += a; },
         { uint32_t a = 0; for (int s = 0; s < 24; s++) { const mc_section *sec = mc_column_section_at(col, (uint32_t)s);
           for (unsigned y = 0; y < 16; y++) for (unsigned z = 0; z < 16; z++) for (unsigned x = 0; x < 16; x++)
               a += mc_section_get_block(sec, x, y, z); } sink += a; });
    uint32_t *all = malloc(4096 * 4);
    TIME("get_all (bulk)",
         { for (int s = 0; s < 24; s++) memcpy(all, plain + s * 4096, 4096 * 4); sink += all[7]; },
         { for (int s = 0; s < 24; s++) mc_container_get_all(&mc_column_section_at(col, (uint32_t)s)->blocks, all); sink += all[7]; });
    TIME("set every block (same values)",
         { for (int s = 0; s < 24; s++) for (int i = 0; i < 4096; i++) plain[s * 4096 + i] = plain[s * 4096 + ((i * 7) & 4095)]; },
         { for (int s = 0; s < 24; s++) { mc_section *sec = mc_column_section_at(col, (uint32_t)s);
           for (unsigned i = 0; i < 4096; i++) mc_section_set_block(sec, reg, i & 15, i >> 8, (i >> 4) & 15, mc_container_get(&sec->blocks, i)); } });
    /* Encode/decode through 1.21.4 packet longs, like with like: "both
     * pack" start from the same entries (u32 per block) and end with the
     * palette and the big-endian packet longs at the section's width;
     * "both copy" start from longs each side already holds packed; "both
     * unpack" start from the packet longs and palette and end with the
     * entries as u32. The plain array's codec is the straightforward one:
     * a state -> index table per section, one shift-or per entry. */
    uint8_t *wire = malloc(24 * 8 * 1024);
    uint8_t *wire2 = malloc(24 * 8 * 1024);
    uint64_t *plain_longs = malloc(24 * 1024 * 8);
    uint32_t *plain_pal = malloc(24 * 4096 * 4);
    unsigned pbits[24];
    size_t wl[24];
    uint32_t nstates = mc_registry_state_count(reg);
    uint16_t *index_of = malloc(nstates * sizeof *index_of);
    memset(index_of, 0xFF, nstates * sizeof *index_of);
    for (uint32_t i = 0; i < 24; i++) {
        const mc_container *c = &mc_column_section_at(col, i)->blocks;
        mc_container_longs(c, &wl[i]);
        pbits[i] = c->bits;
    }
    mc_container tmp;
    mc_container_rules rules = mc_column_section_at(col, 0)->blocks.rules;
    mc_container_init(&tmp, &rules, 0, NULL);
#define PLAIN_PACK                                                                                        \
    for (int s = 0; s < 24; s++) {                                                                        \
        const uint32_t *e = plain + s * 4096;                                                             \
        uint32_t *pal = plain_pal + s * 4096;                                                             \
        size_t n = 0;                                                                                     \
        for (int i = 0; i < 4096; i++) { /* palette in order of first use */                            \
            uint32_t v = e[i];                                                                            \
            if (v >= nstates) continue;                                                                   \
            if (index_of[v] >= n || pal[index_of[v]] != v) { index_of[v] = (uint16_t)n; pal[n++] = v; } \
        }                                                                                                 \
        unsigned b = pbits[s];                                                                            \
        uint64_t *lo = plain_longs + s * 1024;                                                            \
        if (b == 0) { sink += pal[0]; continue; }                                                         \
        unsigned per = 64 / b;                                                                            \
        size_t nl = (4096 + per - 1) / per;                                                               \
        for (size_t l = 0; l < nl; l++) {                                                                 \
            uint64_t acc = 0;                                                                             \
            for (unsigned j = 0; j < per && l * per + j < 4096; j++) {                                    \
                uint32_t v = e[l * per + j];                                                              \
                acc |= (uint64_t)(b >= 15 ? v : index_of[v]) << (j * b);                                  \
            }                                                                                             \
            mc_store_u64be(wire2 + s * 8192 + 8 * l, acc);                                                \
            lo[l] = acc;                                                                                  \
        }                                                                                                 \
    }
    TIME("encode, both pack: entries -> palette + packet longs",
         { PLAIN_PACK },
         { for (uint32_t s = 0; s < 24; s++) { mc_container_set_all(&tmp, plain + s * 4096);
           mc_container_write_be(&tmp, tmp.bits, MC_BITS_PADDED, tmp.kind == MC_CONTAINER_DIRECT ? MC_WRITE_IDS : MC_WRITE_INDICES,
                                 wire + s * 8192); } });
    TIME("encode, both copy: held longs -> packet longs",
         { for (int s = 0; s < 24; s++) mc_bits_store_be(plain_longs + s * 1024, wl[s], wire2 + s * 8192); },
         { for (uint32_t s = 0; s < 24; s++) { const mc_container *c = &mc_column_section_at(col, s)->blocks;
           mc_container_write_be(c, c->bits, MC_BITS_PADDED, c->kind == MC_CONTAINER_DIRECT ? MC_WRITE_IDS : MC_WRITE_INDICES, wire + s * 8192); } });
    for (uint32_t s = 0; s < 24; s++) { /* what the decoders read: the column's own packet longs */
        const mc_container *c = &mc_column_section_at(col, s)->blocks;
        mc_container_write_be(c, c->bits, MC_BITS_PADDED, c->kind == MC_CONTAINER_DIRECT ? MC_WRITE_IDS : MC_WRITE_INDICES, wire + s * 8192);
    }
    TIME("decode, both unpack: packet longs -> entries",
         { for (int s = 0; s < 24; s++) { const mc_container *c = &mc_column_section_at(col, (uint32_t)s)->blocks;
           size_t plen; const uint32_t *pal = mc_container_palette(c, &plen); unsigned b = c->bits;
           uint32_t *e = plain + s * 4096;
           if (b == 0) { for (int i = 0; i < 4096; i++) e[i] = pal[0]; continue; }
           unsigned per = 64 / b; uint64_t m = (1ull << b) - 1;
           for (int i = 0; i < 4096; i++) {
               uint32_t x = (uint32_t)((mc_load_u64be(wire + s * 8192 + 8 * (i / per)) >> ((i % per) * b)) & m);
               e[i] = c->kind == MC_CONTAINER_DIRECT ? x : pal[x]; } } },
         { for (uint32_t s = 0; s < 24; s++) { const mc_container *c = &mc_column_section_at(col, s)->blocks; size_t plen;
           const uint32_t *pal = mc_container_palette(c, &plen); mc_container d; mc_error err;
           if (mc_container_from_be(&d, &c->rules, c->bits, MC_BITS_PADDED, c->kind == MC_CONTAINER_DIRECT ? NULL : pal,
                                    c->kind == MC_CONTAINER_DIRECT ? 0 : plen, wire + s * 8192, wl[s], NULL, &err) == MC_OK) {
               mc_container_get_all(&d, all); mc_container_free(&d); } } sink += all[9]; });
    TIME("decode into the container (ours keeps it packed)",
         { for (int s = 0; s < 24; s++) { const mc_container *c = &mc_column_section_at(col, (uint32_t)s)->blocks;
           size_t plen; const uint32_t *pal = mc_container_palette(c, &plen); unsigned b = c->bits;
           uint32_t *e = plain + s * 4096;
           if (b == 0) { for (int i = 0; i < 4096; i++) e[i] = pal[0]; continue; }
           unsigned per = 64 / b; uint64_t m = (1ull << b) - 1;
           for (int i = 0; i < 4096; i++) {
               uint32_t x = (uint32_t)((mc_load_u64be(wire + s * 8192 + 8 * (i / per)) >> ((i % per) * b)) & m);
               e[i] = c->kind == MC_CONTAINER_DIRECT ? x : pal[x]; } } },
         { for (uint32_t s = 0; s < 24; s++) { const mc_container *c = &mc_column_section_at(col, s)->blocks; size_t plen;
           const uint32_t *pal = mc_container_palette(c, &plen); mc_container d; mc_error err;
           mc_container_from_be(&d, &c->rules, c->bits, MC_BITS_PADDED, c->kind == MC_CONTAINER_DIRECT ? NULL : pal,
                                c->kind == MC_CONTAINER_DIRECT ? 0 : plen, wire + s * 8192, wl[s], NULL, &err);
           mc_container_free(&d); } });
    /* the plain codec must produce the same bytes as ours (packed sections) */
    PLAIN_PACK
    size_t differ = 0;
    for (uint32_t s = 0; s < 24; s++)
        if (pbits[s] && memcmp(wire + s * 8192, wire2 + s * 8192, 8 * wl[s]))
            differ++;
    if (differ)
        printf("WARNING: the plain codec's packet longs differ from ours in %zu sections\n", differ);
    mc_container_free(&tmp);
    free(index_of);
    free(plain_pal);
    free(plain_longs);
    free(wire2);
    for (int r = 0; r < RUNS; r++) {
        uint64_t t0 = now_ns();
        mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL);
        t[r] = now_ns() - t0;
    }
    qsort(t, RUNS, sizeof t[0], cmp_u64);
    printf("%-34s ours %9.0f ns/column\n", "compute all six heightmaps", (double)t[RUNS / 2]);
    (void)sink;
    free(plain);
    free(all);
    free(wire);
    mc_column_free(col);
    return 0;
}
