/*
 * map_render.c: a region of a world, seen from above (the rules are at the
 * top of map.h).
 *
 * A chunk is drawn section by section from the top. A 1.8-1.12 section is
 * not converted into the model at all (MC_CHUNKNBT_LEGACY_RAW): its Blocks
 * and Data bytes are looked at where they are stored, only the blocks a
 * column reaches (layers of air skipped by a look at their id bytes).
 * Otherwise a section whose palette holds no visible colour is skipped
 * without unpacking; the others are unpacked once (palette indices, 4096
 * u16). Each column that is not done yet is walked down through the
 * section until it is (a list of the open columns, so the done ones cost
 * nothing), so a chunk of open terrain costs about one section. The
 * colours come from the registry's colour table (one lookup per palette
 * entry, not per block) and the biome tints from a per-registry table by
 * biome id, both cached in the reader; a tinted colour is remembered by
 * (state, biome), and by each biome cell of the section being walked. A
 * run of water from a column's surface is not composited block by block:
 * its colour after n blocks is made once per tinted colour and looked up
 * (the same float operations, so the same pixels). A paletted section's
 * layers that hold only its colourless index above the others are skipped
 * by comparing words. Only the present chunks' pixels are shaded.
 *
 * A region's hillshade needs the heights one block north and west of it,
 * which lie in the neighbouring regions: their 32 + 32 edge chunks are read
 * too (an edge chunk costs what any chunk costs; about 6% more reads), so
 * every region is drawn the same whoever asks for it, and tiles equal crops
 * of a whole render.
 */
#include "map/map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READER_REGIONS 4

typedef struct open_region {
    int32_t rx, rz;
    mc_region *region; /* NULL: slot empty */
    bool absent;       /* no file there */
    unsigned age;
} open_region;

/* Per-registry lookups (the reader keeps the last one used). */
typedef struct registry_cache {
    const mc_registry *reg;
    const mc_block_color *colors;
    const uint8_t *flags;
    size_t count;
    uint32_t *biome_grass, *biome_foliage, *biome_dry, *biome_water, *biome_false;
    uint32_t biome_count;
} registry_cache;

/* A block colour tinted by its biome: mc_block_color_tinted of the state's
 * colour and the biome's tints, remembered (a chunk tints the same few
 * grass, leaves and water states in the same few biomes thousands of times). */
#define TINT_MEMO 1024
typedef struct tint_memo {
    uint32_t state, biome;
    mc_block_color color;
} tint_memo;

/* A column's colour after the first n blocks of a run of water of one
 * tinted colour from its surface, n = 0..len (len: the first n where the
 * column is opaque, at most WATER_RUN_MAX): add_block's arithmetic done
 * once per colour, so a column of water costs a lookup, not a compositing
 * per block. */
#define WATER_RUN_MAX 16
#define WATER_RUN_MEMO 64
typedef struct water_run {
    uint32_t key; /* water_run_key; 0: empty */
    unsigned len;
    float r[WATER_RUN_MAX + 1], g[WATER_RUN_MAX + 1], b[WATER_RUN_MAX + 1], a[WATER_RUN_MAX + 1];
} water_run;

struct map_reader {
    const map_world *world;  /* NULL: columns from make */
    map_make_column make;
    void *make_user;
    map_mode mode;
    open_region regions[READER_REGIONS];
    unsigned clock;
    mc_buf nbt;
    mc_chunknbt_cache *cache;
    mc_nbt_doc *doc;
    /* the last chunk read: where its 1.8-1.12 sections' block arrays are
     * (MC_CHUNKNBT_LEGACY_RAW: pointers into nbt) */
    mc_chunknbt_info info;
    bool full_model; /* map_reader_full_model: no shortcut */
    registry_cache rc;
    char error[256];
    /* one chunk's result */
    uint32_t chunk_rgba[256];
    int16_t chunk_height[256];
    /* one region's result before the shade: colours and heights, with the
     * row north (index 0) and the column west (index 0) of the region */
    uint32_t *colors;  /* 512 x 512 */
    int16_t *heights;  /* 513 x 513 */
    uint16_t indices[MC_SECTION_BLOCKS];
    /* tinted colours by (state, biome), direct-mapped; emptied when the
     * registry changes (state UINT32_MAX: empty) */
    tint_memo tints[TINT_MEMO];
    /* water runs by tinted colour, direct-mapped (emptied with the tints) */
    water_run water_runs[WATER_RUN_MEMO];
    /* shade_channel(c, step) at [step + 4][c] */
    uint8_t shade_lut[9][256];
};

bool map_mode_parse(const char *name, map_mode *out)
{
    static const char *const names[] = {"normal", "height", "biome", "light"};
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) {
            *out = (map_mode)i;
            return true;
        }
    return false;
}

const char *map_mode_name(map_mode mode)
{
    static const char *const names[] = {"normal", "height", "biome", "light"};
    return names[mode];
}

static uint8_t shade_channel(uint32_t c, int step);

map_reader *map_reader_new(const map_world *w, map_mode mode)
{
    map_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->world = w;
    r->mode = mode;
    mc_buf_init(&r->nbt, NULL);
    r->cache = mc_chunknbt_cache_new(NULL);
    r->doc = mc_nbt_doc_new(NULL);
    r->colors = malloc(sizeof *r->colors * MAP_REGION_BLOCKS * MAP_REGION_BLOCKS);
    r->heights = malloc(sizeof *r->heights * (MAP_REGION_BLOCKS + 1) * (MAP_REGION_BLOCKS + 1));
    if (!r->cache || !r->doc || !r->colors || !r->heights) {
        map_reader_free(r);
        return NULL;
    }
    for (int step = -4; step <= 4; step++)
        for (uint32_t c = 0; c < 256; c++)
            r->shade_lut[step + 4][c] = shade_channel(c, step);
    return r;
}

static void drop_registry_cache(registry_cache *rc)
{
    free(rc->biome_grass); /* one allocation for the five arrays */
    memset(rc, 0, sizeof *rc);
}

map_reader *map_reader_new_columns(map_make_column make, void *user, map_mode mode)
{
    map_reader *r = map_reader_new(NULL, mode);
    if (r) {
        r->make = make;
        r->make_user = user;
    }
    return r;
}

void map_reader_free(map_reader *r)
{
    if (!r)
        return;
    for (int i = 0; i < READER_REGIONS; i++)
        mc_region_close(r->regions[i].region);
    mc_buf_free(&r->nbt);
    mc_chunknbt_cache_free(r->cache);
    mc_nbt_doc_free(r->doc);
    drop_registry_cache(&r->rc);
    free(r->colors);
    free(r->heights);
    free(r);
}

void map_reader_full_model(map_reader *r, bool full)
{
    r->full_model = full;
}

const char *map_reader_last_error(const map_reader *r)
{
    return r->error[0] ? r->error : NULL;
}

/* The open handle of region (rx, rz), or NULL when it has no file. */
static mc_region *region_handle(map_reader *r, int32_t rx, int32_t rz)
{
    open_region *slot = NULL, *oldest = &r->regions[0];
    for (int i = 0; i < READER_REGIONS; i++) {
        open_region *o = &r->regions[i];
        if ((o->region || o->absent) && o->rx == rx && o->rz == rz) {
            o->age = ++r->clock;
            return o->region;
        }
        if (o->age < oldest->age)
            oldest = o;
    }
    slot = oldest;
    mc_region_close(slot->region);
    memset(slot, 0, sizeof *slot);
    slot->rx = rx;
    slot->rz = rz;
    slot->age = ++r->clock;
    const map_region_file *f = map_world_region(r->world, rx, rz);
    mc_error err;
    if (!f) {
        slot->absent = true;
    } else if (mc_region_open(f->path, NULL, &slot->region, &err) != MC_OK) {
        if (!r->error[0])
            map_say(r->error, sizeof r->error, "%s: %s", f->path, err.message);
        slot->region = NULL;
        slot->absent = true;
    }
    return slot->region;
}

static bool use_registry(map_reader *r, const mc_registry *reg)
{
    registry_cache *rc = &r->rc;
    if (rc->reg == reg)
        return true;
    drop_registry_cache(rc);
    for (size_t i = 0; i < TINT_MEMO; i++)
        r->tints[i].state = UINT32_MAX;
    for (size_t i = 0; i < WATER_RUN_MEMO; i++)
        r->water_runs[i].key = 0;
    size_t flag_count;
    rc->colors = mc_registry_color_table(reg, &rc->count);
    rc->flags = mc_registry_state_flag_table(reg, &flag_count);
    if (!rc->colors || !rc->flags || flag_count != rc->count)
        return false;
    uint32_t n = mc_registry_biome_count(reg);
    for (uint32_t b = 0; b < 4096; b++) /* ids may leave gaps (pre-1.18: up to 255) */
        if (mc_registry_biome_name(reg, b))
            n = b + 1 > n ? b + 1 : n;
    uint32_t *all = malloc(sizeof *all * 5 * (n ? n : 1));
    if (!all)
        return false;
    rc->biome_grass = all;
    rc->biome_foliage = all + n;
    rc->biome_dry = all + 2 * n;
    rc->biome_water = all + 3 * n;
    rc->biome_false = all + 4 * n;
    for (uint32_t b = 0; b < n; b++) {
        mc_biome_colors c;
        rc->biome_false[b] = !mc_registry_biome_colors(reg, b, &c);
        rc->biome_grass[b] = c.grass;
        rc->biome_foliage[b] = c.foliage;
        rc->biome_dry[b] = c.dry_foliage;
        rc->biome_water[b] = c.water;
    }
    rc->biome_count = n;
    rc->reg = reg;
    return true;
}

static mc_biome_colors biome_colors(const registry_cache *rc, uint32_t biome)
{
    mc_biome_colors c;
    if (biome >= rc->biome_count) {
        mc_biome_colors_by_name("plains", &c);
        return c;
    }
    c.grass = rc->biome_grass[biome];
    c.foliage = rc->biome_foliage[biome];
    c.dry_foliage = rc->biome_dry[biome];
    c.water = rc->biome_water[biome];
    return c;
}

/* A colour per biome for the biome mode: a hue from the name's hash. */
static uint32_t biome_mode_color(const mc_registry *reg, uint32_t biome)
{
    const char *name = mc_registry_biome_name(reg, biome);
    uint32_t h = 2166136261u;
    for (const char *p = name ? name : "?"; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    double hue = (h % 360) / 60.0, s = 0.55 + (h >> 9) % 30 / 100.0, v = 0.7 + (h >> 17) % 25 / 100.0;
    double c = v * s, x = c * (1 - fabs(fmod(hue, 2) - 1)), m = v - c;
    double rgb[3][6] = {{c, x, 0, 0, x, c}, {x, c, c, x, 0, 0}, {0, 0, x, c, c, x}};
    int k = (int)hue % 6;
    return (uint32_t)lround((rgb[0][k] + m) * 255) << 24 | (uint32_t)lround((rgb[1][k] + m) * 255) << 16 |
           (uint32_t)lround((rgb[2][k] + m) * 255) << 8 | 255u;
}

/* Height ramp: deep blue (y -64) .. green (y 64) .. brown .. white (y 320). */
static uint32_t height_color(int32_t y)
{
    static const struct { int32_t y; uint8_t r, g, b; } stops[] = {
        {-64, 20, 30, 110}, {0, 40, 90, 160}, {62, 60, 140, 70}, {100, 150, 160, 60},
        {160, 140, 100, 60}, {230, 200, 200, 200}, {320, 255, 255, 255}};
    size_t n = sizeof stops / sizeof stops[0];
    if (y <= stops[0].y)
        return (uint32_t)stops[0].r << 24 | (uint32_t)stops[0].g << 16 | (uint32_t)stops[0].b << 8 | 255u;
    for (size_t i = 1; i < n; i++)
        if (y <= stops[i].y || i == n - 1) {
            int32_t span = stops[i].y - stops[i - 1].y, t = y > stops[i].y ? span : y - stops[i - 1].y;
            uint32_t px = 255u;
            px |= (uint32_t)(stops[i - 1].r + (stops[i].r - stops[i - 1].r) * t / span) << 24;
            px |= (uint32_t)(stops[i - 1].g + (stops[i].g - stops[i - 1].g) * t / span) << 16;
            px |= (uint32_t)(stops[i - 1].b + (stops[i].b - stops[i - 1].b) * t / span) << 8;
            return px;
        }
    return 0;
}

/* Front-to-back compositing of one column. */
typedef struct column_acc {
    float r, g, b, a;
    int16_t height;      /* MAP_NO_HEIGHT until found */
    int16_t first_y;     /* the first visible block */
    uint8_t water_depth; /* water blocks seen in the current run */
    bool opaque;         /* the colour is complete */
    bool done;           /* colour and height complete */
    /* nonzero: r, g, b, a are those of a water run from the surface of
     * this key (water_run_key) and water_depth blocks, nothing else */
    uint32_t run_key;
} column_acc;

static void composite(column_acc *acc, mc_block_color c, float alpha)
{
    acc->run_key = 0;
    float w = (1.0f - acc->a) * alpha;
    acc->r += w * c.r;
    acc->g += w * c.g;
    acc->b += w * c.b;
    acc->a += w;
}

static uint32_t finish(const column_acc *acc)
{
    if (acc->a <= 0.0f)
        return 0;
    uint32_t a = (uint32_t)(acc->a * 255.0f + 0.5f);
    if (a == 0)
        return 0;
    uint32_t r = (uint32_t)(acc->r / acc->a + 0.5f), g = (uint32_t)(acc->g / acc->a + 0.5f),
             b = (uint32_t)(acc->b / acc->a + 0.5f);
    return (r > 255 ? 255 : r) << 24 | (g > 255 ? 255 : g) << 16 | (b > 255 ? 255 : b) << 8 | (a > 255 ? 255 : a);
}

/* What drawing a section needs besides its blocks: the biome of each of
 * its 64 cells, looked up once when a tinted block first needs it
 * (UINT32_MAX: not yet). */
typedef struct section_ctx {
    const mc_column *col;
    uint32_t cell_biome[64];
    /* each cell's last tinted colour and its state (UINT32_MAX: none): a
     * column of water, a field of grass tint the same state again and again */
    uint32_t cell_state[64];
    mc_block_color cell_color[64];
} section_ctx;

/* A section's walk begins: no biome of its cells known yet. */
static void section_begin(section_ctx *sc)
{
    memset(sc->cell_biome, 0xFF, sizeof sc->cell_biome);
    memset(sc->cell_state, 0xFF, sizeof sc->cell_state);
}

/* The colour of `state` (colour c, tinted) at (x, y, z), in the
 * section's biome cell `at` (y/4 & 3 << 4 | z/4 << 2 | x/4), through the
 * registry's memo. */
static mc_block_color tinted_in_cell(map_reader *r, section_ctx *sc, uint32_t state, mc_block_color c, int32_t x,
                                     int32_t y, int32_t z, unsigned at)
{
    uint32_t *cell = &sc->cell_biome[at];
    if (*cell == UINT32_MAX)
        *cell = mc_column_get_biome(sc->col, x >> 2, y >> 2, z >> 2);
    const uint32_t biome = *cell;
    tint_memo *m = &r->tints[((state * 0x9E3779B1u) ^ (biome * 0x85EBCA6Bu)) >> 22];
    if (m->state != state || m->biome != biome) {
        mc_biome_colors bc = biome_colors(&r->rc, biome);
        m->state = state;
        m->biome = biome;
        m->color = mc_block_color_tinted(c, &bc);
    }
    sc->cell_state[at] = state;
    sc->cell_color[at] = m->color;
    return m->color;
}

/* The colour of `state` (colour c, tinted) at (x, y, z) of the section. */
static inline mc_block_color tinted_color(map_reader *r, section_ctx *sc, uint32_t state, mc_block_color c,
                                          int32_t x, int32_t y, int32_t z)
{
    const unsigned at = (unsigned)(((y >> 2) & 3) << 4 | (z >> 2) << 2 | x >> 2);
    if (sc->cell_state[at] == state)
        return sc->cell_color[at];
    return tinted_in_cell(r, sc, state, c, x, y, z, at);
}

/* One visible block of a column (inlined into both walks: a column of
 * water adds a dozen blocks). */
static inline __attribute__((always_inline)) void add_block(map_reader *r, column_acc *acc, section_ctx *sc, uint32_t state, int32_t x, int32_t y,
                      int32_t z)
{
    const registry_cache *rc = &r->rc;
    mc_block_color c = rc->colors[state];
    uint8_t flags = rc->flags[state];
    if (acc->first_y == MAP_NO_HEIGHT)
        acc->first_y = (int16_t)y;
    if (acc->height == MAP_NO_HEIGHT && (flags & (MC_STATE_BLOCKS_MOTION | MC_STATE_FLUID)))
        acc->height = (int16_t)y;
    if (acc->opaque || r->mode == MAP_MODE_HEIGHT || r->mode == MAP_MODE_BIOME) {
        /* the colour is settled (or the height decides it): only the height is looked for */
        acc->done = acc->height != MAP_NO_HEIGHT;
        return;
    }
    float alpha = c.a / 255.0f;
    if (c.tint != MC_TINT_NONE && c.tint != MC_TINT_FIXED) {
        const bool water = c.tint == MC_TINT_WATER;
        c = tinted_color(r, sc, state, c, x, y, z);
        if (water) {
            unsigned k = acc->water_depth < 8 ? acc->water_depth : 8;
            acc->water_depth++;
            c.r = (uint8_t)(c.r * (25 - k) / 25);
            c.g = (uint8_t)(c.g * (25 - k) / 25);
            c.b = (uint8_t)(c.b * (25 - k) / 25);
            alpha *= 0.5f;
            composite(acc, c, alpha);
            acc->opaque = acc->a >= 0.996f;
            acc->done = acc->opaque && acc->height != MAP_NO_HEIGHT;
            return;
        }
    }
    acc->water_depth = 0;
    composite(acc, c, alpha);
    acc->opaque = c.a == 255 || acc->a >= 0.996f;
    acc->done = acc->opaque && acc->height != MAP_NO_HEIGHT;
}

/* The key of a water run: its tinted colour and the alpha of its state's
 * own colour (add_block's alpha), never 0 (a water colour with alpha 0 is
 * never drawn). */
static inline uint32_t water_run_key(mc_block_color tinted, uint8_t alpha)
{
    return (uint32_t)tinted.r << 24 | (uint32_t)tinted.g << 16 | (uint32_t)tinted.b << 8 | alpha;
}

/* The memo of the water run of `key`, made when missing: a fresh column
 * composited block by block as add_block does with water. */
static const water_run *water_run_of(map_reader *r, uint32_t key, mc_block_color tinted, uint8_t alpha)
{
    water_run *w = &r->water_runs[(key * 0x9E3779B1u) >> 26];
    if (w->key == key)
        return w;
    column_acc acc = {0};
    w->key = key;
    w->r[0] = w->g[0] = w->b[0] = w->a[0] = 0.0f;
    unsigned n = 0;
    while (n < WATER_RUN_MAX && !(n && acc.a >= 0.996f)) {
        mc_block_color c = tinted;
        unsigned k = n < 8 ? n : 8;
        c.r = (uint8_t)(c.r * (25 - k) / 25);
        c.g = (uint8_t)(c.g * (25 - k) / 25);
        c.b = (uint8_t)(c.b * (25 - k) / 25);
        composite(&acc, c, alpha / 255.0f * 0.5f);
        n++;
        w->r[n] = acc.r;
        w->g[n] = acc.g;
        w->b[n] = acc.b;
        w->a[n] = acc.a;
    }
    w->len = n;
    return w;
}

/* Adds the top `avail` (>= 1) blocks of a run of water (state) from local
 * y down at column i of a section (base_y its lowest y) where that helps:
 * a column with nothing composited yet, or whose colour is a water run of
 * the same tinted colour (carried over from the section above). The same
 * colour as add_block block by block (water_run_of). Returns how many
 * blocks it took; 0: none (add_block then). Only in normal and light mode
 * and not in the reference reader (map_reader_full_model). */
static unsigned add_water_run(map_reader *r, column_acc *acc, section_ctx *sc, uint32_t state, unsigned i,
                              int32_t base_y, int y, unsigned avail)
{
    const mc_block_color c = r->rc.colors[state];
    if (c.tint != MC_TINT_WATER || r->mode == MAP_MODE_HEIGHT || r->mode == MAP_MODE_BIOME || r->full_model)
        return 0;
    const bool fresh = acc->a == 0.0f; /* nothing added: no height, no first_y */
    if (fresh && !(r->rc.flags[state] & (MC_STATE_BLOCKS_MOTION | MC_STATE_FLUID)))
        return 0;
    const int32_t x = (int32_t)(i & 15), z = (int32_t)(i >> 4);
    const mc_block_color t = tinted_color(r, sc, state, c, x, base_y + y, z);
    const uint32_t key = water_run_key(t, c.a);
    if (!fresh && acc->run_key != key)
        return 0;
    const water_run *w = water_run_of(r, key, t, c.a);
    const unsigned from = fresh ? 0 : acc->water_depth;
    if (from >= w->len)
        return 0;
    unsigned take = avail < w->len - from ? avail : w->len - from;
    /* the tint may differ only in the biome cells below y's (their top y: 3 mod 4) */
    for (int top = (y & ~3) - 1; top > y - (int)take; top -= 4)
        if (water_run_key(tinted_color(r, sc, state, c, x, base_y + top, z), c.a) != key) {
            take = (unsigned)(y - top);
            break;
        }
    if (fresh)
        acc->first_y = acc->height = (int16_t)(base_y + y);
    const unsigned n = from + take;
    acc->r = w->r[n];
    acc->g = w->g[n];
    acc->b = w->b[n];
    acc->a = w->a[n];
    acc->water_depth = (uint8_t)n;
    acc->run_key = key;
    acc->opaque = acc->a >= 0.996f;
    acc->done = acc->opaque;
    return take;
}

/* The colour of a column in the modes that colour by height or biome. */
static uint32_t mode_color(map_reader *r, const mc_column *col, const column_acc *acc, int32_t x, int32_t z)
{
    if (acc->height == MAP_NO_HEIGHT)
        return 0;
    if (r->mode == MAP_MODE_HEIGHT)
        return height_color(acc->height);
    return biome_mode_color(r->rc.reg, mc_column_get_biome(col, x >> 2, acc->height >> 2, z >> 2));
}

/* Block light of the block above the surface, as a factor for light mode. */
static uint32_t darken_by_light(const mc_column *col, uint32_t rgba, int32_t x, int32_t y, int32_t z)
{
    int light = mc_column_get_block_light(col, x, y + 1, z);
    if (light < 0)
        light = 0;
    uint32_t f = 3 + (uint32_t)light; /* 3..18 of 18 */
    uint32_t r = (rgba >> 24) * f / 18, g = (rgba >> 16 & 255) * f / 18, b = (rgba >> 8 & 255) * f / 18;
    return r << 24 | g << 16 | b << 8 | (rgba & 255);
}

/* The state of each palette index of a section (an index past the
 * palette: state 0) and whether it has a visible colour; false when no
 * palette entry has one (the section is skipped). A direct section (or a
 * palette wider than 8 bits, which the library's rules never make) sets
 * *per_block: its states are looked up block by block. */
static bool section_states(const registry_cache *rc, const mc_container *c, uint32_t *state_of, uint8_t *vis,
                           bool *per_block)
{
    size_t plen;
    const uint32_t *palette = mc_container_palette(c, &plen);
    *per_block = c->kind == MC_CONTAINER_DIRECT || (c->kind == MC_CONTAINER_INDIRECT && c->bits > 8);
    if (c->kind == MC_CONTAINER_DIRECT)
        return true;
    bool any = false;
    for (size_t p = 0; p < plen && !any; p++)
        any = palette[p] < rc->count && rc->colors[palette[p]].a > 0;
    if (!any || *per_block)
        return any;
    const size_t n = c->kind == MC_CONTAINER_SINGLE ? 1 : (size_t)1 << c->bits;
    for (size_t p = 0; p < n; p++) {
        state_of[p] = p < plen ? palette[p] : 0;
        vis[p] = state_of[p] < rc->count && rc->colors[state_of[p]].a > 0;
    }
    return true;
}

/* Bit y set for each layer y of a stored 1.8-1.12 section with a block
 * id other than 0 (air, the only id without a colour whatever its data:
 * the layers above the ground up to the section's top cost nothing). */
static unsigned layers_not_air(const uint8_t *blocks)
{
    unsigned mask = 0;
    for (unsigned y = 0; y < 16; y++) {
        uint64_t any = 0, w[32];
        memcpy(w, blocks + (y << 8), sizeof w);
        for (unsigned k = 0; k < 32; k++)
            any |= w[k];
        mask |= (unsigned)(any != 0) << y;
    }
    return mask;
}

/* Walks the open columns down through a 1.8-1.12 section kept as stored
 * (blocks, data: see mc_chunknbt_info.legacy_blocks), as draw_chunk does
 * through a paletted one: the state of each block reached is read from
 * its bytes, none other is looked at. Returns how many stay open. */
static unsigned walk_stored_section(map_reader *r, column_acc *acc, uint8_t *open, unsigned nopen,
                                    section_ctx *sc, const uint8_t *blocks, const uint8_t *data, int32_t base_y)
{
    const mc_block_color *colors = r->rc.colors; /* >= 4096 states: every stored value is one */
    const unsigned layers = layers_not_air(blocks);
    if (!layers)
        return nopen;
    const int top = 31 - __builtin_clz(layers);
    unsigned kept = 0;
    for (unsigned j = 0; j < nopen; j++) {
        const unsigned i = open[j];
        column_acc *a = &acc[i];
        for (int y = top; !a->done; y--) {
            while (y >= 0 && !blocks[(unsigned)y << 8 | i]) /* air (id 0), whatever its data */
                y--;
            if (y < 0)
                break;
            const unsigned at = (unsigned)y << 8 | i;
            const uint32_t state = (uint32_t)blocks[at] << 4 | (data[at >> 1] >> ((at & 1) << 2) & 15u);
            if (!colors[state].a)
                continue;
            if (colors[state].tint == MC_TINT_WATER) {
                unsigned avail = 1;
                for (unsigned b = at - 256; avail <= (unsigned)y && avail < WATER_RUN_MAX && blocks[b] == blocks[at] &&
                                            (data[b >> 1] >> ((b & 1) << 2) & 15u) == (state & 15u);
                     b -= 256)
                    avail++;
                const unsigned took = add_water_run(r, a, sc, state, i, base_y, y, avail);
                if (took) {
                    y -= (int)took - 1;
                    continue;
                }
            }
            add_block(r, a, sc, state, (int32_t)(i & 15), base_y + y, (int32_t)(i >> 4));
        }
        if (!a->done)
            open[kept++] = (uint8_t)i;
    }
    return kept;
}

/* The highest layer of a section's unpacked indices with an index other
 * than `clear` (a palette index without colour), -1 when none: the
 * layers above it hold no colour and no column need walk them. */
static int top_layer_not_clear(const uint16_t *indices, uint16_t clear)
{
    const uint64_t pattern = clear * 0x0001000100010001ull;
    for (int y = 15; y >= 0; y--) {
        uint64_t diff = 0, w[64];
        memcpy(w, indices + ((unsigned)y << 8), sizeof w);
        for (unsigned k = 0; k < 64; k++)
            diff |= w[k] ^ pattern;
        if (diff)
            return y;
    }
    return -1;
}

/* Walks column i of a paletted section (its indices unpacked, NULL: a
 * single value, index 0) down from layer top until the column is done: the
 * blocks whose palette entry has no colour (vis 0) skipped in a tight loop,
 * a run of water taken at once where add_water_run can. */
static void walk_column_paletted(map_reader *r, column_acc *a, section_ctx *sc, const uint16_t *indices,
                                 const uint32_t *state_of, const uint8_t *vis, unsigned i, int32_t base_y, int top)
{
    for (int y = top;; y--) {
        uint32_t v = 0;
        if (indices)
            while (y >= 0 && !vis[v = indices[(unsigned)y << 8 | i]])
                y--;
        if (y < 0)
            return;
        const uint32_t state = state_of[v];
        if (r->rc.colors[state].tint == MC_TINT_WATER) {
            unsigned avail = 1;
            while (avail <= (unsigned)y && avail < WATER_RUN_MAX &&
                   (!indices || indices[(unsigned)(y - (int)avail) << 8 | i] == v))
                avail++;
            const unsigned took = add_water_run(r, a, sc, state, i, base_y, y, avail);
            if (took) {
                y -= (int)took - 1;
                if (a->done)
                    return;
                continue;
            }
        }
        add_block(r, a, sc, state, (int32_t)(i & 15), base_y + y, (int32_t)(i >> 4));
        if (a->done)
            return;
    }
}

/* Walks column i of a section whose states are looked up block by block
 * (direct, or a palette wider than 8 bits) down until it is done. */
static void walk_column_per_block(map_reader *r, column_acc *a, section_ctx *sc, const mc_container *c, unsigned i,
                                  int32_t base_y)
{
    size_t plen;
    const uint32_t *palette = mc_container_palette(c, &plen);
    for (int y = 15; y >= 0 && !a->done; y--) {
        const uint32_t v = r->indices[y << 8 | i];
        const uint32_t state = c->kind == MC_CONTAINER_DIRECT ? v : v < plen ? palette[v] : 0;
        if (state < r->rc.count && r->rc.colors[state].a != 0)
            add_block(r, a, sc, state, (int32_t)(i & 15), base_y + y, (int32_t)(i >> 4));
    }
}

/* Draws one column into r->chunk_rgba / r->chunk_height. Sections from the
 * top; in each, every column still open is walked down until it is done
 * (the same blocks in the same order as a walk layer by layer, with no
 * visit of the columns already done). */
static void draw_chunk(map_reader *r, const mc_column *col)
{
    column_acc acc[256];
    uint8_t open[256];
    for (int i = 0; i < 256; i++) {
        acc[i] = (column_acc){0, 0, 0, 0, MAP_NO_HEIGHT, MAP_NO_HEIGHT, 0, false, false, 0};
        open[i] = (uint8_t)i;
    }
    unsigned nopen = 256;
    const registry_cache *rc = &r->rc;
    uint32_t nsec = mc_column_section_count(col);
    int32_t min_y = mc_column_min_y(col);
    section_ctx sc;
    sc.col = col;
    uint32_t state_of[256];
    uint8_t vis[256];
    for (uint32_t k = nsec; k-- > 0 && nopen;) {
        const int32_t sy = mc_column_min_section(col) + (int32_t)k;
        if (sy >= 0 && sy < 16 && r->info.legacy_blocks[sy][0]) {
            section_begin(&sc);
            nopen = walk_stored_section(r, acc, open, nopen, &sc, r->info.legacy_blocks[sy][0],
                                        r->info.legacy_blocks[sy][1], min_y + (int32_t)k * 16);
            continue;
        }
        const mc_section *s = mc_column_section_const(col, sy);
        const mc_container *c = &s->blocks;
        bool per_block;
        if (!section_states(rc, c, state_of, vis, &per_block))
            continue;
        const bool single = c->kind == MC_CONTAINER_SINGLE;
        size_t nlongs;
        const uint64_t *longs = mc_container_longs(c, &nlongs);
        if (!single)
            mc_bits_unpack_u16(longs, MC_SECTION_BLOCKS, c->bits, MC_BITS_PADDED, r->indices);
        int top = 15;
        for (unsigned p = 0; !single && !per_block && p < (1u << c->bits); p++)
            if (!vis[p]) {
                top = top_layer_not_clear(r->indices, (uint16_t)p);
                break;
            }
        if (top < 0)
            continue;
        section_begin(&sc);
        const int32_t base_y = min_y + (int32_t)k * 16;
        unsigned kept = 0;
        for (unsigned j = 0; j < nopen; j++) {
            const unsigned i = open[j];
            column_acc *a = &acc[i];
            if (per_block)
                walk_column_per_block(r, a, &sc, c, i, base_y);
            else
                walk_column_paletted(r, a, &sc, single ? NULL : r->indices, state_of, vis, i, base_y, top);
            if (!a->done)
                open[kept++] = (uint8_t)i;
        }
        nopen = kept;
    }
    for (int i = 0; i < 256; i++) {
        int32_t x = i & 15, z = i >> 4;
        uint32_t px;
        if (r->mode == MAP_MODE_HEIGHT || r->mode == MAP_MODE_BIOME)
            px = mode_color(r, col, &acc[i], x, z);
        else
            px = finish(&acc[i]);
        if (r->mode == MAP_MODE_LIGHT && px)
            px = darken_by_light(col, px, x, acc[i].height != MAP_NO_HEIGHT ? acc[i].height : acc[i].first_y, z);
        r->chunk_rgba[i] = px;
        r->chunk_height[i] = acc[i].height != MAP_NO_HEIGHT ? acc[i].height : px ? acc[i].first_y : MAP_NO_HEIGHT;
    }
}

/* Reads absolute chunk (cx, cz) from its region file; NULL when it is
 * absent or unreadable (bad counted). */
static mc_column *read_column(map_reader *r, int32_t cx, int32_t cz, uint64_t *bad)
{
    mc_region *region = region_handle(r, cx >> 5, cz >> 5);
    if (!region || !mc_region_has_chunk(region, cx & 31, cz & 31))
        return NULL;
    mc_error err;
    mc_column *col = NULL;
    r->nbt.len = 0;
    mc_chunknbt_options opt = {0};
    opt.flags = MC_CHUNKNBT_NO_EXTRA | (r->mode == MAP_MODE_LIGHT ? 0 : MC_CHUNKNBT_NO_LIGHT) |
                (r->full_model ? 0 : MC_CHUNKNBT_LEGACY_RAW);
    opt.cache = r->cache;
    opt.doc = r->doc;
    if (mc_region_read_chunk(region, cx & 31, cz & 31, &r->nbt, NULL, &err) != MC_OK ||
        mc_chunknbt_read_bytes_ex(r->nbt.data, r->nbt.len, &opt, &col, &r->info, &err) != MC_OK) {
        if (!r->error[0])
            map_say(r->error, sizeof r->error, "chunk %d %d: %s", cx, cz, err.message);
        (*bad)++;
        return NULL;
    }
    return col;
}

/* Reads (or makes) absolute chunk (cx, cz) and draws it; false when it is
 * absent or unreadable (bad counted). */
static bool read_and_draw(map_reader *r, int32_t cx, int32_t cz, uint64_t *bad)
{
    memset(r->info.legacy_blocks, 0, sizeof r->info.legacy_blocks); /* a made column holds its blocks */
    mc_column *col = r->make ? r->make(r->make_user, cx, cz) : read_column(r, cx, cz, bad);
    if (!col)
        return false;
    if (!use_registry(r, mc_column_registry(col))) {
        mc_column_free(col);
        (*bad)++;
        return false;
    }
    draw_chunk(r, col);
    mc_column_free(col);
    return true;
}

static int clamp_step(int d)
{
    return d < -4 ? -4 : d > 4 ? 4 : d;
}

/* A channel value c shaded by a height step (-4..4): c * (220 + 9 step) / 220,
 * rounded, at most 255 (map_reader's shade_lut holds it for every c). */
static uint8_t shade_channel(uint32_t c, int step)
{
    uint32_t v = (c * (uint32_t)(220 + 9 * step) + 110) / 220;
    return (uint8_t)(v > 255 ? 255 : v);
}

/* rgba shaded by a height step (-4..4; alpha kept). */
static uint32_t shade(const map_reader *r, uint32_t rgba, int step)
{
    const uint8_t *lut = r->shade_lut[step + 4];
    return (uint32_t)lut[rgba >> 24] << 24 | (uint32_t)lut[rgba >> 16 & 255] << 16 |
           (uint32_t)lut[rgba >> 8 & 255] << 8 | (rgba & 255);
}

#define HEIGHT(x, z) r->heights[(size_t)((z) + 1) * (MAP_REGION_BLOCKS + 1) + (size_t)((x) + 1)]

/* Writes the pixels of chunk (lx, lz) of the region into rgba: its
 * colours hillshaded (when shaded) by the heights north and west, or
 * transparent when the chunk is absent (present false). */
static void output_chunk(const map_reader *r, int lx, int lz, bool present, bool shaded, uint8_t *rgba)
{
    for (int z = lz * 16; z < lz * 16 + 16; z++) {
        uint8_t *out = rgba + ((size_t)z * MAP_REGION_BLOCKS + (size_t)lx * 16) * 4;
        if (!present) {
            memset(out, 0, 16 * 4);
            continue;
        }
        for (int x = lx * 16; x < lx * 16 + 16; x++, out += 4) {
            uint32_t px = r->colors[(size_t)z * MAP_REGION_BLOCKS + (size_t)x];
            if (px && shaded) {
                int h = HEIGHT(x, z), hn = HEIGHT(x, z - 1), hw = HEIGHT(x - 1, z), step = 0;
                if (h != MAP_NO_HEIGHT && hn != MAP_NO_HEIGHT)
                    step += h - hn;
                if (h != MAP_NO_HEIGHT && hw != MAP_NO_HEIGHT)
                    step += h - hw;
                px = shade(r, px, clamp_step(step));
            }
            out[0] = (uint8_t)(px >> 24);
            out[1] = (uint8_t)(px >> 16);
            out[2] = (uint8_t)(px >> 8);
            out[3] = (uint8_t)px;
        }
    }
}

/* Only the present chunks' pixels are computed (a region often holds a
 * few hundred of its 1024 chunks: the rest cost a memset, not a pass over
 * 512 x 512 pixels). */
bool map_render_region(map_reader *r, int32_t rx, int32_t rz, uint8_t *rgba, map_stats *stats)
{
    map_stats local = {0};
    if (!stats)
        stats = &local;
    for (int i = -1; i < MAP_REGION_BLOCKS; i++) {
        HEIGHT(i, -1) = MAP_NO_HEIGHT;
        HEIGHT(-1, i) = MAP_NO_HEIGHT;
    }
    bool any = false, present[32][32];
    for (int lz = 0; lz < 32; lz++)
        for (int lx = 0; lx < 32; lx++) {
            present[lz][lx] = read_and_draw(r, rx * 32 + lx, rz * 32 + lz, &stats->bad_chunks);
            if (present[lz][lx]) {
                stats->chunks++;
                any = true;
            }
            for (int z = lz * 16; z < lz * 16 + 16; z++) {
                const int row = (z & 15) * 16;
                if (!present[lz][lx]) { /* its colours are not looked at */
                    for (int x = lx * 16; x < lx * 16 + 16; x++)
                        HEIGHT(x, z) = MAP_NO_HEIGHT;
                    continue;
                }
                memcpy(&r->colors[(size_t)z * MAP_REGION_BLOCKS + (size_t)lx * 16], &r->chunk_rgba[row],
                       16 * sizeof *r->colors);
                memcpy(&HEIGHT(lx * 16, z), &r->chunk_height[row], 16 * sizeof *r->heights);
            }
        }
    bool shaded = r->mode != MAP_MODE_HEIGHT;
    if (any && shaded) {
        /* the neighbours' edges: the row z = -1 and the column x = -1 */
        for (int l = 0; l < 32; l++) {
            if (read_and_draw(r, rx * 32 + l, rz * 32 - 1, &stats->bad_chunks)) {
                stats->edge_chunks++;
                for (int x = 0; x < 16; x++)
                    HEIGHT(l * 16 + x, -1) = r->chunk_height[15 * 16 + x];
            }
            if (read_and_draw(r, rx * 32 - 1, rz * 32 + l, &stats->bad_chunks)) {
                stats->edge_chunks++;
                for (int z = 0; z < 16; z++)
                    HEIGHT(-1, l * 16 + z) = r->chunk_height[z * 16 + 15];
            }
        }
    }
    for (int lz = 0; lz < 32; lz++)
        for (int lx = 0; lx < 32; lx++)
            output_chunk(r, lx, lz, present[lz][lx], shaded, rgba);
    return true;
}

/* ---------------------------------------------------------------- zooms */

void map_downsample(const uint8_t *const quads[4], uint8_t *out)
{
    const int half = MAP_REGION_BLOCKS / 2;
    for (int q = 0; q < 4; q++) {
        const uint8_t *in = quads[q];
        int ox = (q & 1) * half, oz = (q >> 1) * half;
        for (int z = 0; z < half; z++)
            for (int x = 0; x < half; x++) {
                uint8_t *px = out + ((size_t)(oz + z) * MAP_REGION_BLOCKS + (size_t)(ox + x)) * 4;
                if (!in) {
                    memset(px, 0, 4);
                    continue;
                }
                uint32_t sr = 0, sg = 0, sb = 0, sa = 0;
                for (int k = 0; k < 4; k++) {
                    const uint8_t *s = in + ((size_t)(2 * z + (k >> 1)) * MAP_REGION_BLOCKS + (size_t)(2 * x + (k & 1))) * 4;
                    sr += s[0] * s[3];
                    sg += s[1] * s[3];
                    sb += s[2] * s[3];
                    sa += s[3];
                }
                if (!sa) {
                    memset(px, 0, 4);
                    continue;
                }
                px[0] = (uint8_t)((sr + sa / 2) / sa);
                px[1] = (uint8_t)((sg + sa / 2) / sa);
                px[2] = (uint8_t)((sb + sa / 2) / sa);
                px[3] = (uint8_t)((sa + 2) / 4);
            }
    }
}
