/*
 * terrain.c: the built-in world of `mcchunk serve`, generated on the fly.
 *
 * Deterministic for a seed, and independent of the order in which columns
 * are asked for: every decision is a function of world coordinates only
 * (hashes and gradient noise), and features that cross column borders
 * (trees) are placed by scanning the neighbouring cells, so two servers (or
 * one server twice) produce the same bytes for the same column.
 *
 * The terrain is meant to exercise the chunk formats, not to look like the
 * vanilla generator: hills and mountains from layered 2D noise, oceans with
 * sand and gravel floors, beaches, rivers, snow, desert with cacti, caves
 * from 3D noise (interpolated from a coarse lattice), ores in stone and
 * deepslate, oak/birch/spruce trees and flowers, lava in the deepest caves,
 * torches on the ground and glowstone in cave roofs (so that block light
 * has sources at every depth), bedrock at the bottom. So
 * sections use many palette sizes: single-valued air and stone sections,
 * small 4-bit palettes, and larger ones. Near the spawn a "showcase" block of
 * hundreds of distinct states (every colour of several blocks, stairs in
 * every orientation) makes some sections need the direct (global) palette.
 *
 * States are looked up by name in the registry the world is built in (the
 * newest); serving an older client translates them.
 *
 * A served column is lit by the light engine (src/light) from its own
 * blocks and its eight neighbours', so light crosses column borders as in
 * the game; the neighbours are generated too, and a small cache of the
 * columns generated last keeps that to about one generation per column
 * when a player's view fills in rings.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunk.h"
#include "mcchunk/light.h"
#include "server/terrain.h"

enum {
    B_AIR, B_BEDROCK, B_STONE, B_DEEPSLATE, B_DIRT, B_GRASS, B_GRASS_SNOWY, B_SAND, B_SANDSTONE,
    B_GRAVEL, B_WATER, B_LAVA, B_CLAY, B_SNOW, B_ICE, B_GRANITE, B_DIORITE, B_ANDESITE, B_TUFF,
    B_OAK_LOG, B_OAK_LEAVES, B_BIRCH_LOG, B_BIRCH_LEAVES, B_SPRUCE_LOG, B_SPRUCE_LEAVES, B_CACTUS,
    B_SHORT_GRASS, B_DANDELION, B_POPPY, B_DEAD_BUSH, B_FERN, B_BLUE_ORCHID, B_ALLIUM, B_AZURE_BLUET,
    B_RED_TULIP, B_ORANGE_TULIP, B_WHITE_TULIP, B_PINK_TULIP, B_OXEYE_DAISY, B_CORNFLOWER,
    B_LILY_OF_THE_VALLEY, B_PUMPKIN, B_SUGAR_CANE, B_MOSSY_COBBLESTONE, B_COBBLESTONE, B_COARSE_DIRT,
    B_PODZOL, B_BROWN_MUSHROOM, B_RED_MUSHROOM,
    B_COAL, B_IRON, B_COPPER, B_GOLD, B_REDSTONE, B_LAPIS, B_DIAMOND,
    B_DS_COAL, B_DS_IRON, B_DS_COPPER, B_DS_GOLD, B_DS_REDSTONE, B_DS_LAPIS, B_DS_DIAMOND,
    B_TORCH, B_GLOWSTONE,
    B_COUNT
};

static const char *const block_names[B_COUNT] = {
    "air", "bedrock", "stone", "deepslate[axis=y]", "dirt", "grass_block[snowy=false]",
    "grass_block[snowy=true]", "sand", "sandstone", "gravel", "water[level=0]", "lava[level=0]", "clay",
    "snow[layers=1]", "ice", "granite", "diorite", "andesite", "tuff",
    "oak_log[axis=y]", "oak_leaves[distance=1,persistent=true]", "birch_log[axis=y]",
    "birch_leaves[distance=1,persistent=true]", "spruce_log[axis=y]",
    "spruce_leaves[distance=1,persistent=true]", "cactus[age=0]",
    "short_grass", "dandelion", "poppy", "dead_bush", "fern", "blue_orchid", "allium", "azure_bluet",
    "red_tulip", "orange_tulip", "white_tulip", "pink_tulip", "oxeye_daisy", "cornflower",
    "lily_of_the_valley", "pumpkin", "sugar_cane[age=0]", "mossy_cobblestone", "cobblestone", "coarse_dirt",
    "podzol[snowy=false]", "brown_mushroom", "red_mushroom",
    "coal_ore", "iron_ore", "copper_ore", "gold_ore", "redstone_ore[lit=false]", "lapis_ore",
    "diamond_ore", "deepslate_coal_ore", "deepslate_iron_ore", "deepslate_copper_ore",
    "deepslate_gold_ore", "deepslate_redstone_ore[lit=false]", "deepslate_lapis_ore",
    "deepslate_diamond_ore", "torch", "glowstone",
};

enum { BIO_PLAINS, BIO_FOREST, BIO_BIRCH, BIO_TAIGA, BIO_SNOWY, BIO_DESERT, BIO_OCEAN, BIO_BEACH,
       BIO_RIVER, BIO_HILLS, BIO_COUNT };
static const char *const biome_names[BIO_COUNT] = {
    "plains", "forest", "birch_forest", "taiga", "snowy_plains", "desert", "ocean", "beach", "river",
    "windswept_hills",
};

#define SEA_LEVEL 62
#define MIN_Y (-64)
#define HEIGHT 384
#define SHOWCASE_CX 1
#define SHOWCASE_CZ 1

/* Columns generated last (blocks and biomes, no light), for lighting their
 * neighbours. */
#define GEN_CACHE 160
typedef struct gen_entry {
    int32_t cx, cz;
    uint64_t used; /* the call that used it last; 0: empty */
    mc_column *col;
} gen_entry;

struct srv_terrain {
    const mc_registry *reg;
    uint64_t seed;
    mc_light_engine *light;
    gen_entry cache[GEN_CACHE];
    uint64_t calls;
    uint32_t block[B_COUNT];
    uint32_t leaves[3][7]; /* oak, birch, spruce leaves at distance 1..7 (as vanilla's trees have) */
    uint32_t biome[BIO_COUNT];
    uint32_t *showcase; /* distinct states for the showcase block */
    size_t showcase_len;
};

/* ------------------------------------------------------------- noise */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t hash3(uint64_t seed, int64_t x, int64_t y, int64_t z)
{
    return mix64(seed ^ mix64((uint64_t)x * 0x9E3779B97F4A7C15ULL ^ mix64((uint64_t)y * 0xC2B2AE3D27D4EB4FULL ^
                                                                         (uint64_t)z * 0x165667B19E3779F9ULL)));
}

/* Uniform in [0, 1). */
static double unit(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

static double fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }
static double lerp(double a, double b, double t) { return a + (b - a) * t; }

/* 2D gradient noise in about [-1, 1]; gradients are 16 unit vectors. */
static const double grad_dir[16][2] = {
    {1, 0}, {0.9239, 0.3827}, {0.7071, 0.7071}, {0.3827, 0.9239}, {0, 1}, {-0.3827, 0.9239},
    {-0.7071, 0.7071}, {-0.9239, 0.3827}, {-1, 0}, {-0.9239, -0.3827}, {-0.7071, -0.7071},
    {-0.3827, -0.9239}, {0, -1}, {0.3827, -0.9239}, {0.7071, -0.7071}, {0.9239, -0.3827}};
static double grad2(uint64_t seed, int64_t ix, int64_t iz, double dx, double dz)
{
    const double *g = grad_dir[hash3(seed, ix, 0, iz) >> 60];
    return g[0] * dx + g[1] * dz;
}

static double noise2(uint64_t seed, double x, double z)
{
    double fx = floor(x), fz = floor(z);
    int64_t ix = (int64_t)fx, iz = (int64_t)fz;
    double dx = x - fx, dz = z - fz;
    double u = fade(dx), v = fade(dz);
    double n00 = grad2(seed, ix, iz, dx, dz), n10 = grad2(seed, ix + 1, iz, dx - 1, dz);
    double n01 = grad2(seed, ix, iz + 1, dx, dz - 1), n11 = grad2(seed, ix + 1, iz + 1, dx - 1, dz - 1);
    return 1.41 * lerp(lerp(n00, n10, u), lerp(n01, n11, u), v);
}

static double fbm2(uint64_t seed, double x, double z, int octaves)
{
    double sum = 0, amp = 1, norm = 0;
    for (int o = 0; o < octaves; o++) {
        sum += amp * noise2(seed + (uint64_t)o * 1013, x, z);
        norm += amp;
        amp *= 0.5;
        x *= 2;
        z *= 2;
    }
    return sum / norm;
}

/* 3D value noise on a lattice, in [0, 1). */
static double value3(uint64_t seed, int64_t x, int64_t y, int64_t z) { return unit(hash3(seed, x, y, z)); }

/* --------------------------------------------------------- columns */

typedef struct {
    int height; /* y of the top solid block */
    int biome;
} column_info;

static column_info column_at(const srv_terrain *t, int64_t x, int64_t z)
{
    double cont = fbm2(t->seed ^ 0x1111, x / 512.0, z / 512.0, 3);  /* land vs ocean */
    double hills = fbm2(t->seed ^ 0x2222, x / 128.0, z / 128.0, 4); /* local relief */
    double mount = fbm2(t->seed ^ 0x3333, x / 256.0, z / 256.0, 3);
    double river = fabs(fbm2(t->seed ^ 0x4444, x / 300.0, z / 300.0, 3));
    double temp = fbm2(t->seed ^ 0x5555, x / 700.0, z / 700.0, 2);
    double wet = fbm2(t->seed ^ 0x6666, x / 600.0, z / 600.0, 2);

    double h = SEA_LEVEL + 2 + cont * 40 + hills * 10;
    if (mount > 0.25)
        h += (mount - 0.25) * 140;
    bool is_river = river < 0.035 && h > SEA_LEVEL - 4 && h < SEA_LEVEL + 30;
    if (is_river)
        h = SEA_LEVEL - 3 - (0.035 - river) * 60;
    column_info ci;
    ci.height = (int)h;
    if (ci.height < MIN_Y + 10)
        ci.height = MIN_Y + 10;
    if (ci.height > MIN_Y + HEIGHT - 40)
        ci.height = MIN_Y + HEIGHT - 40;
    if (is_river)
        ci.biome = BIO_RIVER;
    else if (ci.height < SEA_LEVEL - 1)
        ci.biome = BIO_OCEAN;
    else if (ci.height <= SEA_LEVEL + 1)
        ci.biome = temp > 0.3 ? BIO_DESERT : BIO_BEACH;
    else if (mount > 0.35)
        ci.biome = BIO_HILLS;
    else if (temp < -0.3)
        ci.biome = wet > 0 ? BIO_TAIGA : BIO_SNOWY;
    else if (temp > 0.3)
        ci.biome = BIO_DESERT;
    else if (wet > 0.2)
        ci.biome = BIO_FOREST;
    else if (wet > 0.05)
        ci.biome = BIO_BIRCH;
    else
        ci.biome = BIO_PLAINS;
    return ci;
}

/* Caves: 3D value noise on a lattice of 4 (x, z) by 8 (y) blocks, computed
 * once per column (5 x 49 x 5 points) and trilinearly interpolated. */
#define CAVE_NY (HEIGHT / 8 + 1)
typedef struct {
    float v[5][CAVE_NY][5];
} cave_lattice;

static void cave_lattice_fill(const srv_terrain *t, int64_t ox, int64_t oz, cave_lattice *L)
{
    uint64_t s = t->seed ^ 0x7777;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < CAVE_NY; j++)
            for (int k = 0; k < 5; k++)
                L->v[i][j][k] = (float)value3(s, ox / 4 + i, MIN_Y / 8 + j, oz / 4 + k);
}

/* The lattice interpolated in x and z for one block column: one value per
 * lattice level; along y the noise is then a single lerp per block. */
static void cave_plane(const cave_lattice *L, int lx, int lz, float *plane)
{
    int ix = lx >> 2, iz = lz >> 2;
    float dx = (float)(lx & 3) / 4.0f, dz = (float)(lz & 3) / 4.0f;
    for (int j = 0; j < CAVE_NY; j++) {
        float a = L->v[ix][j][iz] + (L->v[ix + 1][j][iz] - L->v[ix][j][iz]) * dx;
        float b = L->v[ix][j][iz + 1] + (L->v[ix + 1][j][iz + 1] - L->v[ix][j][iz + 1]) * dx;
        plane[j] = a + (b - a) * dz;
    }
}

static bool cave_at(const float *plane, int y, int surface)
{
    if (y <= MIN_Y + 4 || y > surface - 4)
        return false;
    int iy = (y - MIN_Y) >> 3;
    float dy = (float)((y - MIN_Y) & 7) / 8.0f;
    return plane[iy] + (plane[iy + 1] - plane[iy]) * dy > 0.78f;
}

/* Ores come in 2x2x2 cells; h is the cell's hash. */
static int ore_at(const srv_terrain *t, uint64_t h, int y)
{
    (void)t;
    double r = unit(h);
    bool deep = y < 0;
    int ore = -1;
    if (r < 0.012 && y < 128)
        ore = B_COAL;
    else if (r < 0.020 && y < 64)
        ore = B_IRON;
    else if (r < 0.026 && y < 96 && y > -16)
        ore = B_COPPER;
    else if (r < 0.029 && y < 32)
        ore = B_GOLD;
    else if (r < 0.033 && y < 16)
        ore = B_REDSTONE;
    else if (r < 0.035 && y < 32)
        ore = B_LAPIS;
    else if (r < 0.0365 && y < 16)
        ore = B_DIAMOND;
    if (ore < 0)
        return -1;
    return deep ? ore - B_COAL + B_DS_COAL : ore;
}

/* --------------------------------------------------------------- trees */

typedef struct {
    int64_t x, z; /* trunk */
    int base, height, kind;
} tree;

/* A tree may stand in each 5x5 cell, at a hashed spot, by biome. */
static bool tree_in_cell(const srv_terrain *t, int64_t cx, int64_t cz, tree *out)
{
    uint64_t h = hash3(t->seed ^ 0x9999, cx, 0, cz);
    int64_t x = cx * 5 + (int64_t)(h % 5), z = cz * 5 + (int64_t)((h >> 8) % 5);
    column_info ci = column_at(t, x, z);
    double chance;
    int kind;
    switch (ci.biome) {
    case BIO_FOREST: chance = 0.8; kind = B_OAK_LOG; break;
    case BIO_BIRCH: chance = 0.7; kind = B_BIRCH_LOG; break;
    case BIO_TAIGA: chance = 0.6; kind = B_SPRUCE_LOG; break;
    case BIO_SNOWY: chance = 0.08; kind = B_SPRUCE_LOG; break;
    case BIO_PLAINS: chance = 0.06; kind = B_OAK_LOG; break;
    case BIO_HILLS: chance = 0.15; kind = B_SPRUCE_LOG; break;
    case BIO_DESERT: chance = 0.12; kind = B_CACTUS; break;
    default: return false;
    }
    if (unit(h >> 16 | h << 48) >= chance || ci.height <= SEA_LEVEL)
        return false;
    out->x = x;
    out->z = z;
    out->base = ci.height + 1;
    out->kind = kind;
    out->height = kind == B_CACTUS ? 1 + (int)(h >> 40) % 3 : 4 + (int)((h >> 40) % 3) + (kind == B_SPRUCE_LOG) * 2;
    return true;
}

/* ----------------------------------------------------------- interface */

static uint32_t lookup(const mc_registry *reg, const char *text)
{
    uint32_t s = 0;
    if (mc_registry_parse_state(reg, text, strlen(text), &s, NULL) != MC_OK)
        s = mc_registry_air(reg);
    return s;
}

/* The showcase: distinct states of coloured blocks and of stairs in every
 * orientation, enough (> 256) that the section holding them is direct. */
static void build_showcase(srv_terrain *t)
{
    static const char *const colours[] = {"white", "orange", "magenta", "light_blue", "yellow", "lime",
                                          "pink", "gray", "light_gray", "cyan", "purple", "blue",
                                          "brown", "green", "red", "black"};
    static const char *const kinds[] = {"wool", "concrete", "terracotta", "stained_glass", "concrete_powder",
                                        "carpet", "glazed_terracotta"};
    static const char *const stairs[] = {"oak_stairs", "stone_stairs", "brick_stairs", "sandstone_stairs",
                                         "spruce_stairs", "birch_stairs"};
    static const char *const facing[] = {"north", "south", "west", "east"};
    static const char *const half[] = {"top", "bottom"};
    static const char *const shape[] = {"straight", "inner_left", "inner_right", "outer_left", "outer_right"};
    size_t cap = 16 * 7 + 6 * 4 * 2 * 5 * 2;
    t->showcase = calloc(cap, sizeof *t->showcase);
    if (!t->showcase)
        return;
    char buf[128];
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t c = 0; c < 16; c++) {
            snprintf(buf, sizeof buf, "%s_%s%s", colours[c], kinds[k],
                     !strcmp(kinds[k], "glazed_terracotta") ? "[facing=north]" : "");
            uint32_t s;
            if (mc_registry_parse_state(t->reg, buf, strlen(buf), &s, NULL) == MC_OK)
                t->showcase[t->showcase_len++] = s;
        }
    for (size_t a = 0; a < sizeof stairs / sizeof stairs[0]; a++)
        for (int f = 0; f < 4; f++)
            for (int h = 0; h < 2; h++)
                for (int sh = 0; sh < 5; sh++)
                    for (int w = 0; w < 2; w++) {
                        snprintf(buf, sizeof buf, "%s[facing=%s,half=%s,shape=%s,waterlogged=%s]", stairs[a],
                                 facing[f], half[h], shape[sh], w ? "true" : "false");
                        uint32_t s;
                        if (mc_registry_parse_state(t->reg, buf, strlen(buf), &s, NULL) == MC_OK)
                            t->showcase[t->showcase_len++] = s;
                    }
}

srv_terrain *srv_terrain_new(const mc_registry *reg, uint64_t seed)
{
    srv_terrain *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->reg = reg;
    t->seed = seed;
    for (int i = 0; i < B_COUNT; i++)
        t->block[i] = lookup(reg, block_names[i]);
    static const char *const leaf_kinds[3] = {"oak_leaves", "birch_leaves", "spruce_leaves"};
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 7; d++) {
            char buf[96];
            snprintf(buf, sizeof buf, "%s[distance=%d,persistent=false]", leaf_kinds[k], d + 1);
            t->leaves[k][d] = lookup(reg, buf);
        }
    for (int i = 0; i < BIO_COUNT; i++) {
        uint32_t id = mc_registry_biome_id(reg, biome_names[i]);
        t->biome[i] = id == MC_STATE_NONE ? 0 : id;
    }
    build_showcase(t);
    t->light = mc_light_engine_new(NULL); /* NULL (no memory): columns get the simple sky light */
    return t;
}

void srv_terrain_free(srv_terrain *t)
{
    if (!t)
        return;
    for (int i = 0; i < GEN_CACHE; i++)
        mc_column_free(t->cache[i].col);
    mc_light_engine_free(t->light);
    free(t->showcase);
    free(t);
}

const mc_registry *srv_terrain_registry(const srv_terrain *t) { return t->reg; }

int srv_terrain_surface(const srv_terrain *t, int32_t x, int32_t z)
{
    column_info ci = column_at(t, x, z);
    return ci.height < SEA_LEVEL ? SEA_LEVEL : ci.height;
}

static void put(uint32_t *blocks, int lx, int y, int lz, uint32_t state)
{
    if (y < MIN_Y || y >= MIN_Y + HEIGHT || lx < 0 || lx > 15 || lz < 0 || lz > 15)
        return;
    int sy = (y - MIN_Y) >> 4;
    blocks[(size_t)sy * 4096 + (size_t)(((y & 15) << 8) | (lz << 4) | lx)] = state;
}

static uint32_t get(const uint32_t *blocks, int lx, int y, int lz)
{
    int sy = (y - MIN_Y) >> 4;
    return blocks[(size_t)sy * 4096 + (size_t)(((y & 15) << 8) | (lz << 4) | lx)];
}

static void place_tree(const srv_terrain *t, uint32_t *blocks, int64_t ox, int64_t oz, const tree *tr)
{
    int lx = (int)(tr->x - ox), lz = (int)(tr->z - oz);
    const uint32_t *B = t->block;
    if (tr->kind == B_CACTUS) {
        for (int i = 0; i < tr->height; i++)
            put(blocks, lx, tr->base + i, lz, B[B_CACTUS]);
        return;
    }
    const uint32_t *leaves = t->leaves[tr->kind == B_OAK_LOG ? 0 : tr->kind == B_BIRCH_LOG ? 1 : 2];
    int top = tr->base + tr->height;
    for (int y = top - 3; y <= top; y++) {
        int r = tr->kind == B_SPRUCE_LOG ? (top - y + 1) / 2 + (y < top - 1) : (y >= top - 1 ? 1 : 2);
        for (int dx = -r; dx <= r; dx++)
            for (int dz = -r; dz <= r; dz++) {
                if (abs(dx) == r && abs(dz) == r && r > 1)
                    continue;
                int x = lx + dx, z = lz + dz;
                if (x < 0 || x > 15 || z < 0 || z > 15)
                    continue;
                /* Vanilla's leaves record their distance to the nearest log (1..7). */
                int dist = abs(dx) + abs(dz) + (y > top ? 1 : 0);
                if (dist < 1)
                    dist = 1;
                if (get(blocks, x, y, z) == B[B_AIR])
                    put(blocks, x, y, z, leaves[dist > 7 ? 6 : dist - 1]);
            }
    }
    put(blocks, lx, top + 1, lz, leaves[0]);
    for (int i = 0; i < tr->height; i++)
        put(blocks, lx, tr->base + i, lz, B[tr->kind]);
}

/* Ground a torch may stand on, and what may be in its place before. */
static bool torch_ground(const uint32_t *B, uint32_t s)
{
    static const int ok[] = {B_GRASS, B_GRASS_SNOWY, B_SAND, B_STONE, B_DIRT, B_PODZOL, B_COARSE_DIRT,
                             B_COBBLESTONE, B_MOSSY_COBBLESTONE};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (s == B[ok[i]])
            return true;
    return false;
}

static bool torch_spot(const uint32_t *B, uint32_t s)
{
    static const int ok[] = {B_AIR, B_SNOW, B_SHORT_GRASS, B_FERN, B_DANDELION, B_POPPY, B_BLUE_ORCHID, B_ALLIUM,
                             B_AZURE_BLUET, B_RED_TULIP, B_ORANGE_TULIP, B_WHITE_TULIP, B_PINK_TULIP,
                             B_OXEYE_DAISY, B_CORNFLOWER, B_LILY_OF_THE_VALLEY, B_DEAD_BUSH};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (s == B[ok[i]])
            return true;
    return false;
}

/* Light sources: a torch on dry ground in a third of the columns (never on
 * the column's middle, where a player may spawn) and glowstone in the roof
 * of up to two caves per column; lava already fills the deepest caves. */
static void place_lights(const srv_terrain *t, uint32_t *blocks, int32_t cx, int32_t cz, column_info cols[16][16])
{
    const uint32_t *B = t->block;
    const uint64_t h = hash3(t->seed ^ 0xDDDD, cx, 0, cz);
    if (h % 3 == 0) {
        int lx = (int)(h >> 8) & 15, lz = (int)(h >> 12) & 15;
        if (lx == 8 && lz == 8)
            lx = 9;
        const int y = cols[lz][lx].height;
        if (y > SEA_LEVEL && y + 1 < MIN_Y + HEIGHT && torch_ground(B, get(blocks, lx, y, lz)) &&
            torch_spot(B, get(blocks, lx, y + 1, lz)))
            put(blocks, lx, y + 1, lz, B[B_TORCH]);
    }
    for (int k = 0; k < 2; k++) {
        const uint64_t g = hash3(t->seed ^ 0xEEEE, cx, k, cz);
        const int lx = (int)(g >> 8) & 15, lz = (int)(g >> 12) & 15, top = cols[lz][lx].height - 4;
        if (top <= MIN_Y + 12)
            continue;
        int y = MIN_Y + 12 + (int)((g >> 20) % (uint64_t)(top - MIN_Y - 12));
        while (y < top && get(blocks, lx, y, lz) != B[B_AIR])
            y++; /* up into a cave, if there is one */
        while (y + 1 < top && get(blocks, lx, y + 1, lz) == B[B_AIR])
            y++;
        if (y + 1 >= top || get(blocks, lx, y, lz) != B[B_AIR])
            continue;
        const uint32_t roof = get(blocks, lx, y + 1, lz);
        if (roof == B[B_STONE] || roof == B[B_DEEPSLATE] || roof == B[B_TUFF] || roof == B[B_GRANITE] ||
            roof == B[B_DIORITE] || roof == B[B_ANDESITE])
            put(blocks, lx, y + 1, lz, B[B_GLOWSTONE]);
    }
}

void srv_terrain_generate(const srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes)
{
    const uint32_t *B = t->block;
    int64_t ox = (int64_t)cx * 16, oz = (int64_t)cz * 16;
    for (size_t i = 0; i < (size_t)MC_TERRAIN_SECTIONS * 4096; i++)
        blocks[i] = B[B_AIR];
    static_assert(MC_TERRAIN_SECTIONS * 16 == HEIGHT, "sections cover the height");
    cave_lattice *lattice = malloc(sizeof *lattice);
    if (!lattice)
        return;
    cave_lattice_fill(t, ox, oz, lattice);
    /* Per-column hashes: ore cells (2x2x2) and rock patches (8x8x8). */
    static_assert(HEIGHT % 8 == 0, "lattices");
    uint64_t *ore_hash = malloc(sizeof(uint64_t) * (HEIGHT / 2) * 64);
    uint64_t rock_hash[(HEIGHT / 8) * 4];
    if (!ore_hash) {
        free(lattice);
        return;
    }
    for (int y2 = 0; y2 < HEIGHT / 2; y2++)
        for (int c = 0; c < 64; c++)
            ore_hash[y2 * 64 + c] = hash3(t->seed ^ 0x8888, (ox >> 1) + (c & 7), (MIN_Y >> 1) + y2, (oz >> 1) + (c >> 3));
    for (int y8 = 0; y8 < HEIGHT / 8; y8++)
        for (int c = 0; c < 4; c++)
            rock_hash[y8 * 4 + c] = hash3(t->seed ^ 0xBBBB, (ox >> 3) + (c & 1), (MIN_Y >> 3) + y8, (oz >> 3) + (c >> 1));
    column_info cols[16][16];
    for (int lz = 0; lz < 16; lz++)
        for (int lx = 0; lx < 16; lx++)
            cols[lz][lx] = column_at(t, ox + lx, oz + lz);

    for (int lz = 0; lz < 16; lz++)
        for (int lx = 0; lx < 16; lx++) {
            int64_t x = ox + lx, z = oz + lz;
            column_info ci = cols[lz][lx];
            int h = ci.height;
            bool sandy = ci.biome == BIO_DESERT || ci.biome == BIO_BEACH;
            bool under = h < SEA_LEVEL;
            float plane[CAVE_NY];
            cave_plane(lattice, lx, lz, plane);
            for (int y = MIN_Y; y <= h; y++) {
                uint32_t s;
                if (y <= MIN_Y + 3 && y <= MIN_Y + (int)(hash3(t->seed, x, y, z) % 4)) {
                    s = B[B_BEDROCK];
                } else if (y >= h - 3) {
                    if (y == h)
                        s = sandy ? B[B_SAND]
                            : under ? (ci.biome == BIO_RIVER ? B[B_CLAY] : (h < SEA_LEVEL - 8 ? B[B_GRAVEL] : B[B_SAND]))
                            : ci.biome == BIO_HILLS && h > 120 ? B[B_STONE]
                            : ci.biome == BIO_SNOWY || ci.biome == BIO_TAIGA ? B[B_GRASS_SNOWY] : B[B_GRASS];
                    else
                        s = sandy ? (y < h - 2 ? B[B_SANDSTONE] : B[B_SAND]) : under ? B[B_GRAVEL] : B[B_DIRT];
                } else if (cave_at(plane, y, h)) {
                    s = y < MIN_Y + 10 ? B[B_LAVA] : B[B_AIR];
                } else {
                    int ore = ore_at(t, ore_hash[((y - MIN_Y) >> 1) * 64 + (lz >> 1) * 8 + (lx >> 1)], y);
                    if (ore >= 0) {
                        s = B[ore];
                    } else if (y < 0) {
                        s = unit(rock_hash[((y - MIN_Y) >> 3) * 4 + (lz >> 3) * 2 + (lx >> 3)]) < 0.05 ? B[B_TUFF]
                                                                                                : B[B_DEEPSLATE];
                    } else {
                        double r = unit(rock_hash[((y - MIN_Y) >> 3) * 4 + (lz >> 3) * 2 + (lx >> 3)] >> 7);
                        s = r < 0.04 ? B[B_GRANITE] : r < 0.08 ? B[B_DIORITE] : r < 0.12 ? B[B_ANDESITE] : B[B_STONE];
                    }
                }
                put(blocks, lx, y, lz, s);
            }
            for (int y = h + 1; y <= SEA_LEVEL; y++)
                put(blocks, lx, y, lz, (y == SEA_LEVEL && ci.biome == BIO_SNOWY) ? B[B_ICE] : B[B_WATER]);
            if (!under) {
                uint64_t hh = hash3(t->seed ^ 0xCCCC, x, 0, z);
                double r = unit(hh);
                if (ci.biome == BIO_SNOWY || ci.biome == BIO_TAIGA)
                    put(blocks, lx, h + 1, lz, B[B_SNOW]);
                else if (ci.biome == BIO_DESERT && r < 0.01)
                    put(blocks, lx, h + 1, lz, B[B_DEAD_BUSH]);
                else if ((ci.biome == BIO_PLAINS || ci.biome == BIO_FOREST || ci.biome == BIO_BIRCH) && r < 0.3) {
                    static const int flowers[] = {B_DANDELION, B_POPPY, B_BLUE_ORCHID, B_ALLIUM, B_AZURE_BLUET,
                                                  B_RED_TULIP, B_ORANGE_TULIP, B_WHITE_TULIP, B_PINK_TULIP,
                                                  B_OXEYE_DAISY, B_CORNFLOWER, B_LILY_OF_THE_VALLEY, B_PUMPKIN,
                                                  B_BROWN_MUSHROOM, B_RED_MUSHROOM};
                    int pick = r < 0.06 ? flowers[(hh >> 20) % (sizeof flowers / sizeof flowers[0])]
                               : r < 0.08 ? B_FERN : B_SHORT_GRASS;
                    put(blocks, lx, h + 1, lz, B[pick]);
                } else if (ci.biome == BIO_TAIGA && r < 0.2) {
                    put(blocks, lx, h, lz, B[r < 0.1 ? B_PODZOL : B_COARSE_DIRT]);
                    put(blocks, lx, h + 1, lz, B[r < 0.05 ? B_FERN : B_SNOW]);
                } else if (ci.biome == BIO_HILLS && r < 0.1) {
                    put(blocks, lx, h, lz, B[r < 0.05 ? B_MOSSY_COBBLESTONE : B_COBBLESTONE]);
                }
                if (h == SEA_LEVEL && r > 0.97 && ci.biome != BIO_DESERT)
                    for (int k = 1; k <= 1 + (int)(hh >> 60) % 3; k++)
                        put(blocks, lx, h + k, lz, B[B_SUGAR_CANE]);
            }
        }

    free(lattice);
    free(ore_hash);

    /* Trees from every 5x5 cell whose crown may reach into this column. */
    for (int64_t gcz = (oz - 3) / 5 - 1; gcz <= (oz + 18) / 5 + 1; gcz++)
        for (int64_t gcx = (ox - 3) / 5 - 1; gcx <= (ox + 18) / 5 + 1; gcx++) {
            tree tr;
            if (!tree_in_cell(t, gcx, gcz, &tr))
                continue;
            if (tr.x < ox - 3 || tr.x > ox + 18 || tr.z < oz - 3 || tr.z > oz + 18)
                continue;
            /* Replace the ground cover under the trunk. */
            int lx = (int)(tr.x - ox), lz = (int)(tr.z - oz);
            if (lx >= 0 && lx < 16 && lz >= 0 && lz < 16)
                put(blocks, lx, tr.base, lz, B[B_AIR]);
            place_tree(t, blocks, ox, oz, &tr);
        }

    /* The showcase: a 16x16 layer of distinct states, two blocks under the sky. */
    if (cx == SHOWCASE_CX && cz == SHOWCASE_CZ && t->showcase_len) {
        int top = 0;
        for (int lz = 0; lz < 16; lz++)
            for (int lx = 0; lx < 16; lx++)
                if (cols[lz][lx].height > top)
                    top = cols[lz][lx].height;
        int y0 = top + 12;
        for (size_t i = 0; i < t->showcase_len && i < 512; i++)
            put(blocks, (int)(i & 15), y0 + (int)(i >> 8), (int)((i >> 4) & 15), t->showcase[i]);
    }

    place_lights(t, blocks, cx, cz, cols);

    /* Biomes: one per 4x4x4 cell, from the column at the cell's centre;
     * deep cells get the same biome (this world has no cave biomes). */
    for (int sy = 0; sy < MC_TERRAIN_SECTIONS; sy++)
        for (int c = 0; c < 64; c++) {
            int bx = c & 3, bz = (c >> 2) & 3;
            biomes[(size_t)sy * 64 + (size_t)c] = t->biome[cols[bz * 4 + 2][bx * 4 + 2].biome];
        }
}

void srv_terrain_find_spawn(const srv_terrain *t, int32_t *x, int32_t *y, int32_t *z)
{
    /* Spiral out from (8, 8) in steps of 16 to the first dry column that is
     * not a tree cell's trunk spot; fall back to (8, 8). */
    for (int r = 0; r < 64; r++)
        for (int dz = -r; dz <= r; dz++)
            for (int dx = -r; dx <= r; dx++) {
                if (abs(dx) != r && abs(dz) != r)
                    continue;
                int32_t px = 8 + dx * 16, pz = 8 + dz * 16;
                column_info ci = column_at(t, px, pz);
                if (ci.height > SEA_LEVEL + 1 && ci.biome != BIO_DESERT) {
                    *x = px;
                    *z = pz;
                    *y = ci.height + 1;
                    return;
                }
            }
    *x = 8;
    *z = 8;
    *y = srv_terrain_surface(t, 8, 8) + 1;
}

/* Simple sky light: full above the highest non-air block of each (x, z),
 * none below. Block light stays absent. */
void srv_simple_sky_light(mc_column *col)
{
    uint32_t n = mc_column_section_count(col);
    int32_t min_y = mc_column_min_y(col);
    uint16_t top[256];
    mc_column_compute_heightmaps(col, 1u << MC_HEIGHTMAP_WORLD_SURFACE | 1u << MC_HEIGHTMAP_MOTION_BLOCKING);
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

/* The column's blocks and biomes, without light. */
static mc_column *build_column(const srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes)
{
    srv_terrain_generate(t, cx, cz, blocks, biomes);
    mc_column *col = mc_column_new(t->reg, cx, cz, MC_TERRAIN_MIN_Y >> 4, MC_TERRAIN_SECTIONS, NULL);
    if (!col)
        return NULL;
    for (uint32_t i = 0; i < MC_TERRAIN_SECTIONS; i++) {
        mc_section *s = mc_column_section_at(col, i);
        if (mc_container_set_all(&s->blocks, blocks + (size_t)i * 4096) != MC_OK ||
            mc_container_set_all(&s->biomes, biomes + (size_t)i * 64) != MC_OK) {
            mc_column_free(col);
            return NULL;
        }
        mc_section_recount(s, t->reg);
    }
    return col;
}

/* Column (cx, cz) without light, from the cache or generated into it (in
 * place of the entry used longest ago, never one this call uses). */
static const mc_column *unlit_column(srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes)
{
    gen_entry *slot = NULL;
    for (int i = 0; i < GEN_CACHE; i++) {
        gen_entry *e = &t->cache[i];
        if (e->used && e->cx == cx && e->cz == cz) {
            e->used = t->calls;
            return e->col;
        }
        if (e->used < t->calls && (!slot || e->used < slot->used))
            slot = e;
    }
    mc_column *col = build_column(t, cx, cz, blocks, biomes);
    if (!col || !slot) /* (there is always a slot: a call uses 9 of GEN_CACHE) */
        return mc_column_free(col), NULL;
    mc_column_free(slot->col);
    *slot = (gen_entry){cx, cz, t->calls, col};
    return col;
}

mc_column *srv_terrain_column(srv_terrain *t, int32_t cx, int32_t cz, uint32_t *blocks, uint32_t *biomes)
{
    t->calls++;
    const mc_column *around[9];
    for (int k = 0; k < 9; k++)
        around[k] = unlit_column(t, cx + k % 3 - 1, cz + k / 3 - 1, blocks, biomes);
    if (!around[4])
        return NULL;
    mc_column *col = mc_column_new(t->reg, cx, cz, MC_TERRAIN_MIN_Y >> 4, MC_TERRAIN_SECTIONS, NULL);
    for (uint32_t i = 0; col && i < MC_TERRAIN_SECTIONS; i++)
        if (mc_section_copy(mc_column_section_at(col, i), mc_column_section_const(around[4], (int32_t)i +
                                                                                     (MC_TERRAIN_MIN_Y >> 4))) != MC_OK) {
            mc_column_free(col);
            return NULL;
        }
    if (!col)
        return NULL;
    const mc_column *nb[8] = {around[0], around[1], around[2], around[3], around[5], around[6], around[7], around[8]};
    mc_error err;
    if (!t->light || mc_light_column(t->light, col, nb, MC_LIGHT_BOTH, &err) != MC_OK)
        srv_simple_sky_light(col); /* no memory for the engine: at least the sky */
    /* most sections have no block light at all: no array (encoders send
     * zeros or an empty mask), 48 KiB less per served column */
    static const uint8_t dark[MC_LIGHT_BYTES];
    for (uint32_t i = 0; i < MC_TERRAIN_SECTIONS; i++) {
        mc_section *s = mc_column_section_at(col, i);
        if (s->block_light && !memcmp(s->block_light, dark, MC_LIGHT_BYTES))
            mc_section_set_block_light(s, NULL);
    }
    mc_column_compute_heightmaps(col, 1u << MC_HEIGHTMAP_WORLD_SURFACE | 1u << MC_HEIGHTMAP_MOTION_BLOCKING);
    return col;
}
