/*
 * column.c: a chunk column (include/mcchunk/chunk.h).
 *
 * A column is an array of sections for a contiguous range of section y, so
 * any dimension height works (custom heights and negative y included), plus
 * what belongs to the whole column: heightmaps, block entities and the extra
 * root data a format carries that the model does not interpret.
 *
 * Heightmaps are kept packed (1.16+ padded layout at ceil(log2(height+1))
 * bits, 37 longs for 384 blocks), exactly as read; compute_heightmaps()
 * derives them from the blocks through predicates on registry flags,
 * scanning sections from the top and stopping as soon as every (x, z) of
 * every requested map has found its block. Per section it evaluates flags
 * once per palette entry, not per block.
 *
 * Block entities and extra data are NBT in one document owned by the column
 * (nbt.h's arena model: tags live until the column is freed); block entities
 * are found by position through a small array (a chunk has few of them).
 */
#include "chunk/chunk_private.h"
#include "mcchunk/chunk.h"

#include <stdlib.h>
#include <string.h>

typedef struct block_entity {
    int32_t x, y, z;
    mc_nbt_tag *tag;
} block_entity;

struct mc_column {
    const mc_registry *reg;
    const mc_allocator *alloc;
    int32_t x, z;
    int32_t min_section;
    uint32_t count;
    mc_section *sections;
    uint64_t *heightmaps[MC_HEIGHTMAP_COUNT]; /* padded longs or NULL */
    unsigned hm_bits;
    size_t hm_longs;
    mc_nbt_doc *nbt;    /* created on first use */
    mc_nbt_tag *extra;  /* compound in nbt, created on first use */
    uint8_t *deferred;  /* Java NBT tags + end tag for extra, not yet parsed */
    size_t deferred_len;
    block_entity *bes;
    size_t be_len, be_cap;
};

/* ------------------------------------------------------------- lifecycle */

mc_column *mc_column_new(const mc_registry *reg, int32_t x, int32_t z, int32_t min_section_y,
                         uint32_t section_count, const mc_allocator *alloc)
{
    const mc_allocator *a = mc_alloc_or_default(alloc);
    if (section_count == 0 || section_count > 4095) /* heights fit uint16_t */
        return NULL;
    mc_column *col = a->alloc(a->user, sizeof *col);
    if (!col)
        return NULL;
    memset(col, 0, sizeof *col);
    col->sections = a->alloc(a->user, section_count * sizeof *col->sections);
    if (!col->sections) {
        a->free(a->user, col, sizeof *col);
        return NULL;
    }
    col->reg = reg;
    col->alloc = a;
    col->x = x;
    col->z = z;
    col->min_section = min_section_y;
    col->count = section_count;
    /* one all-air section, copied: the registry is asked once, not per section */
    mc_section_init(&col->sections[0], reg, a);
    for (uint32_t i = 1; i < section_count; i++)
        col->sections[i] = col->sections[0];
    col->hm_bits = mc_bits_ceil_log2((uint64_t)section_count * 16 + 1);
    col->hm_longs = mc_bits_longs(256, col->hm_bits, MC_BITS_PADDED);
    return col;
}

void mc_column_free(mc_column *col)
{
    if (!col)
        return;
    const mc_allocator *a = col->alloc;
    for (uint32_t i = 0; i < col->count; i++)
        mc_section_free(&col->sections[i]);
    a->free(a->user, col->sections, col->count * sizeof *col->sections);
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
        if (col->heightmaps[k])
            a->free(a->user, col->heightmaps[k], col->hm_longs * 8);
    if (col->bes)
        a->free(a->user, col->bes, col->be_cap * sizeof *col->bes);
    mc_nbt_doc_free(col->nbt);
    if (col->deferred)
        a->free(a->user, col->deferred, col->deferred_len);
    a->free(a->user, col, sizeof *col);
}

int32_t mc_column_x(const mc_column *col) { return col->x; }
int32_t mc_column_z(const mc_column *col) { return col->z; }
const mc_registry *mc_column_registry(const mc_column *col) { return col->reg; }
int32_t mc_column_min_section(const mc_column *col) { return col->min_section; }
uint32_t mc_column_section_count(const mc_column *col) { return col->count; }
int32_t mc_column_min_y(const mc_column *col) { return col->min_section * 16; }
uint32_t mc_column_height(const mc_column *col) { return col->count * 16; }

mc_section *mc_column_section(mc_column *col, int32_t sy)
{
    int64_t i = (int64_t)sy - col->min_section;
    return i >= 0 && i < col->count ? &col->sections[i] : NULL;
}

const mc_section *mc_column_section_const(const mc_column *col, int32_t sy)
{
    int64_t i = (int64_t)sy - col->min_section;
    return i >= 0 && i < col->count ? &col->sections[i] : NULL;
}

mc_section *mc_column_section_at(mc_column *col, uint32_t i)
{
    return i < col->count ? &col->sections[i] : NULL;
}

/* ------------------------------------------------------------ blocks etc. */

/* Arithmetic shift for negative y: floor division by 16 / 4. */
static int32_t floor_shift(int32_t v, unsigned s) { return v >= 0 ? v >> s : -(int32_t)((-(int64_t)v - 1) >> s) - 1; }

uint32_t mc_column_get_block(const mc_column *col, int32_t x, int32_t y, int32_t z)
{
    const mc_section *s = mc_column_section_const(col, floor_shift(y, 4));
    if (!s)
        return col->reg ? mc_registry_air(col->reg) : 0;
    return mc_section_get_block(s, (unsigned)x, (unsigned)y, (unsigned)z);
}

mc_status mc_column_set_block(mc_column *col, int32_t x, int32_t y, int32_t z, uint32_t state)
{
    mc_section *s = mc_column_section(col, floor_shift(y, 4));
    if (!s)
        return MC_ERR_RANGE;
    return mc_section_set_block(s, col->reg, (unsigned)x, (unsigned)y, (unsigned)z, state);
}

uint32_t mc_column_get_biome(const mc_column *col, int32_t cx, int32_t cy, int32_t cz)
{
    const mc_section *s = mc_column_section_const(col, floor_shift(cy, 2));
    if (!s)
        return 0;
    return mc_section_get_biome(s, (unsigned)cx, (unsigned)cy, (unsigned)cz);
}

mc_status mc_column_set_biome(mc_column *col, int32_t cx, int32_t cy, int32_t cz, uint32_t biome)
{
    mc_section *s = mc_column_section(col, floor_shift(cy, 2));
    if (!s)
        return MC_ERR_RANGE;
    return mc_section_set_biome(s, (unsigned)cx, (unsigned)cy, (unsigned)cz, biome);
}

static int get_light(const mc_column *col, bool sky, int32_t x, int32_t y, int32_t z)
{
    const mc_section *s = mc_column_section_const(col, floor_shift(y, 4));
    const uint8_t *arr = s ? (sky ? s->sky_light : s->block_light) : NULL;
    if (!arr)
        return -1;
    return (int)mc_light_get(arr, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z));
}

static mc_status set_light(mc_column *col, bool sky, int32_t x, int32_t y, int32_t z, unsigned level)
{
    mc_section *s = mc_column_section(col, floor_shift(y, 4));
    if (!s || level > 15)
        return MC_ERR_RANGE;
    uint8_t **arr = sky ? &s->sky_light : &s->block_light;
    if (!*arr) {
        uint8_t zero[MC_LIGHT_BYTES];
        memset(zero, 0, sizeof zero);
        mc_status st = sky ? mc_section_set_sky_light(s, zero) : mc_section_set_block_light(s, zero);
        if (st != MC_OK)
            return st;
    }
    mc_light_set(*arr, mc_block_index((unsigned)x, (unsigned)y, (unsigned)z), level);
    return MC_OK;
}

int mc_column_get_block_light(const mc_column *col, int32_t x, int32_t y, int32_t z)
{
    return get_light(col, false, x, y, z);
}
int mc_column_get_sky_light(const mc_column *col, int32_t x, int32_t y, int32_t z)
{
    return get_light(col, true, x, y, z);
}
mc_status mc_column_set_block_light(mc_column *col, int32_t x, int32_t y, int32_t z, unsigned level)
{
    return set_light(col, false, x, y, z, level);
}
mc_status mc_column_set_sky_light(mc_column *col, int32_t x, int32_t y, int32_t z, unsigned level)
{
    return set_light(col, true, x, y, z, level);
}

void mc_column_recount(mc_column *col)
{
    for (uint32_t i = 0; i < col->count; i++)
        mc_section_recount(&col->sections[i], col->reg);
}

mc_status mc_column_compact(mc_column *col)
{
    for (uint32_t i = 0; i < col->count; i++) {
        mc_status st = mc_container_compact(&col->sections[i].blocks);
        if (st == MC_OK)
            st = mc_container_compact(&col->sections[i].biomes);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

size_t mc_column_memory(const mc_column *col)
{
    size_t m = sizeof *col + col->count * sizeof *col->sections + col->be_cap * sizeof *col->bes;
    for (uint32_t i = 0; i < col->count; i++)
        m += mc_section_memory(&col->sections[i]);
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
        if (col->heightmaps[k])
            m += col->hm_longs * 8;
    return m;
}

/* ------------------------------------------------------------ heightmaps */

static const char *const hm_names[MC_HEIGHTMAP_COUNT] = {
    "WORLD_SURFACE_WG", "WORLD_SURFACE", "OCEAN_FLOOR_WG",
    "OCEAN_FLOOR", "MOTION_BLOCKING", "MOTION_BLOCKING_NO_LEAVES",
};

const char *mc_heightmap_name(mc_heightmap_type type)
{
    return (unsigned)type < MC_HEIGHTMAP_COUNT ? hm_names[type] : "?";
}

bool mc_heightmap_from_name(const char *name, size_t len, mc_heightmap_type *out)
{
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
        if (strlen(hm_names[k]) == len && memcmp(hm_names[k], name, len) == 0) {
            *out = (mc_heightmap_type)k;
            return true;
        }
    return false;
}

bool mc_heightmap_matches(mc_heightmap_type type, uint32_t f)
{
    /* 1.18+ Heightmap.Types predicates: NOT_AIR, MATERIAL_MOTION_BLOCKING,
     * blocksMotion || fluid, and that without LeavesBlock */
    switch (type) {
    case MC_HEIGHTMAP_WORLD_SURFACE_WG:
    case MC_HEIGHTMAP_WORLD_SURFACE:
        return !(f & MC_STATE_AIR);
    case MC_HEIGHTMAP_OCEAN_FLOOR_WG:
    case MC_HEIGHTMAP_OCEAN_FLOOR:
        return (f & MC_STATE_BLOCKS_MOTION) != 0;
    case MC_HEIGHTMAP_MOTION_BLOCKING:
        return (f & (MC_STATE_BLOCKS_MOTION | MC_STATE_FLUID)) != 0;
    case MC_HEIGHTMAP_MOTION_BLOCKING_NO_LEAVES:
        return (f & (MC_STATE_BLOCKS_MOTION | MC_STATE_FLUID)) != 0 && !(f & MC_STATE_LEAVES);
    default:
        return false;
    }
}

/* The set of maps (bit per type, within `mask`) a state counts for. */
static uint8_t hm_match_set(const mc_column *col, uint32_t state, unsigned mask)
{
    uint32_t f = col->reg ? mc_registry_state_flags(col->reg, state) : (state == 0 ? MC_STATE_AIR : 0);
    uint8_t m = 0;
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
        if ((mask >> k & 1) && mc_heightmap_matches((mc_heightmap_type)k, f))
            m |= (uint8_t)(1u << k);
    return m;
}

unsigned mc_column_heightmap_bits(const mc_column *col) { return col->hm_bits; }

static uint64_t *hm_slot(mc_column *col, mc_heightmap_type type)
{
    if (!col->heightmaps[type]) {
        col->heightmaps[type] = col->alloc->alloc(col->alloc->user, col->hm_longs * 8);
        if (col->heightmaps[type])
            memset(col->heightmaps[type], 0, col->hm_longs * 8);
    }
    return col->heightmaps[type];
}

mc_status mc_column_heightmap_set_all(mc_column *col, mc_heightmap_type type, const uint16_t *values)
{
    if ((unsigned)type >= MC_HEIGHTMAP_COUNT)
        return MC_ERR_INVALID_ARG;
    for (int i = 0; i < 256; i++)
        if (values[i] > mc_column_height(col))
            return MC_ERR_RANGE;
    uint64_t *hm = hm_slot(col, type);
    if (!hm)
        return MC_ERR_NOMEM;
    mc_bits_pack_u16(values, 256, col->hm_bits, MC_BITS_PADDED, hm);
    return MC_OK;
}

mc_status mc_column_compute_heightmaps(mc_column *col, unsigned mask)
{
    mask &= MC_HEIGHTMAP_ALL;
    if (!mask)
        return MC_OK;
    uint16_t result[MC_HEIGHTMAP_COUNT][256];
    uint8_t pending[256];
    memset(result, 0, sizeof result);
    memset(pending, (int)mask, sizeof pending);
    unsigned open = 256; /* columns with something pending */
    uint32_t vals[4096];
    uint8_t pal_match[256];
    for (int64_t si = (int64_t)col->count - 1; si >= 0 && open; si--) {
        const mc_section *s = &col->sections[si];
        const mc_container *b = &s->blocks;
        const uint16_t base = (uint16_t)(si * 16); /* y - min_y of the section's bottom */
        if (b->kind == MC_CONTAINER_SINGLE) {
            uint8_t m = hm_match_set(col, b->value, mask);
            if (!m)
                continue;
            for (int xz = 0; xz < 256; xz++) {
                uint8_t hit = pending[xz] & m;
                if (!hit)
                    continue;
                for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
                    if (hit >> k & 1)
                        result[k][xz] = (uint16_t)(base + 16);
                pending[xz] &= (uint8_t)~hit;
                open -= pending[xz] == 0;
            }
            continue;
        }
        /* match set per entry: through the palette (once per palette entry)
         * or, for direct data, with a one-entry cache of the last id */
        uint16_t idx[4096];
        bool indirect = b->kind == MC_CONTAINER_INDIRECT && b->palette_len <= 256;
        if (indirect) {
            mc_bits_unpack_u16(b->longs, 4096, b->bits, MC_BITS_PADDED, idx);
            for (uint32_t k = 0; k < b->palette_len; k++)
                pal_match[k] = hm_match_set(col, b->palette[k], mask);
        } else {
            mc_container_get_all(b, vals);
        }
        uint32_t last_id = 0;
        uint8_t last_m = hm_match_set(col, 0, mask);
        for (int y = 15; y >= 0 && open; y--) {
            for (int xz = 0; xz < 256; xz++) {
                if (!pending[xz])
                    continue;
                unsigned i = ((unsigned)y << 8) | (unsigned)xz;
                uint8_t m;
                if (indirect) {
                    m = pal_match[idx[i]];
                } else {
                    if (vals[i] != last_id) {
                        last_id = vals[i];
                        last_m = hm_match_set(col, last_id, mask);
                    }
                    m = last_m;
                }
                uint8_t hit = pending[xz] & m;
                if (!hit)
                    continue;
                for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++)
                    if (hit >> k & 1)
                        result[k][xz] = (uint16_t)(base + y + 1);
                pending[xz] &= (uint8_t)~hit;
                open -= pending[xz] == 0;
            }
        }
    }
    for (int k = 0; k < MC_HEIGHTMAP_COUNT; k++) {
        if (!(mask >> k & 1))
            continue;
        mc_status st = mc_column_heightmap_set_all(col, (mc_heightmap_type)k, result[k]);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

bool mc_column_has_heightmap(const mc_column *col, mc_heightmap_type type)
{
    return (unsigned)type < MC_HEIGHTMAP_COUNT && col->heightmaps[type] != NULL;
}

uint32_t mc_column_heightmap_get(const mc_column *col, mc_heightmap_type type, int32_t x, int32_t z)
{
    if (!mc_column_has_heightmap(col, type))
        return 0;
    return mc_bits_get(col->heightmaps[type], (size_t)((x & 15) + (z & 15) * 16), col->hm_bits,
                       MC_BITS_PADDED);
}

bool mc_column_heightmap_get_all(const mc_column *col, mc_heightmap_type type, uint16_t *out)
{
    if (!mc_column_has_heightmap(col, type))
        return false;
    mc_bits_unpack_u16(col->heightmaps[type], 256, col->hm_bits, MC_BITS_PADDED, out);
    return true;
}

mc_status mc_column_heightmap_from_be(mc_column *col, mc_heightmap_type type, const uint8_t *be,
                                      size_t nlongs, mc_bits_layout layout, mc_error *err)
{
    if ((unsigned)type >= MC_HEIGHTMAP_COUNT)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "heightmap: bad type");
    size_t want = mc_bits_longs(256, col->hm_bits, layout);
    if (nlongs != want)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                            "heightmap %s: %zu longs given, %u bits %s need %zu",
                            hm_names[type], nlongs, col->hm_bits,
                            layout == MC_BITS_PADDED ? "padded" : "spanning", want);
    if (layout == MC_BITS_PADDED && col->hm_bits && col->hm_longs == nlongs && nlongs <= 64) {
        /* the stored form is the model's: byte-swap, bound-check in place
         * (SWAR), clear the padding bits */
        uint64_t t[64];
        mc_bits_load_be(be, nlongs, t);
        if (mc_bits_all_below(t, 256, col->hm_bits, (uint64_t)mc_column_height(col) + 1)) {
            const unsigned per = 64 / col->hm_bits, last = 256 - (unsigned)(nlongs - 1) * per;
            const uint64_t full = per * col->hm_bits >= 64 ? ~0ull : ((1ull << (per * col->hm_bits)) - 1);
            for (size_t i = 0; i + 1 < nlongs; i++)
                t[i] &= full;
            t[nlongs - 1] &= last * col->hm_bits >= 64 ? ~0ull : ((1ull << (last * col->hm_bits)) - 1);
            uint64_t *hm = hm_slot(col, type);
            if (!hm)
                return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "heightmap: out of memory");
            memcpy(hm, t, nlongs * 8);
            return MC_OK;
        }
    }
    uint16_t v[256];
    mc_bits_unpack_be_u16(be, 256, col->hm_bits, layout, v);
    /* (1.14-1.15's spanning longs) the largest value first, in sixteen
     * lanes without a branch; the one at fault looked for only then */
    uint16_t top[16] = {0};
    for (int i = 0; i < 256; i += 16)
        for (int k = 0; k < 16; k++)
            top[k] = v[i + k] > top[k] ? v[i + k] : top[k];
    for (int k = 1; k < 16; k++)
        top[0] = top[k] > top[0] ? top[k] : top[0];
    for (int i = top[0] > mc_column_height(col) ? 0 : 256; i < 256; i++)
        if (v[i] > mc_column_height(col))
            return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX,
                                "heightmap %s: value %u at %d exceeds the height %u",
                                hm_names[type], v[i], i, mc_column_height(col));
    uint64_t *hm = hm_slot(col, type); /* (mc_column_heightmap_set_all without its check again) */
    if (!hm)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "heightmap: out of memory");
    mc_bits_pack_u16(v, 256, col->hm_bits, MC_BITS_PADDED, hm);
    return MC_OK;
}

mc_status mc_column_heightmap_write_be(const mc_column *col, mc_heightmap_type type,
                                       mc_bits_layout layout, uint8_t *out)
{
    if (!mc_column_has_heightmap(col, type))
        return MC_ERR_NOT_FOUND;
    if (layout == MC_BITS_PADDED) {
        mc_bits_store_be(col->heightmaps[type], col->hm_longs, out);
        return MC_OK;
    }
    uint16_t v[256];
    mc_bits_unpack_u16(col->heightmaps[type], 256, col->hm_bits, MC_BITS_PADDED, v);
    mc_bits_pack_be_u16(v, 256, col->hm_bits, layout, out);
    return MC_OK;
}

void mc_column_heightmap_remove(mc_column *col, mc_heightmap_type type)
{
    if (mc_column_has_heightmap(col, type)) {
        col->alloc->free(col->alloc->user, col->heightmaps[type], col->hm_longs * 8);
        col->heightmaps[type] = NULL;
    }
}

/* ------------------------------------------------------ NBT-held data */

/* The document and the extra compound as they stand (created on first use),
 * deferred tags left deferred: for block entities, and for the public
 * accessors before they parse the deferred tags. */
static mc_nbt_doc *nbt_doc(mc_column *col)
{
    if (!col->nbt)
        col->nbt = mc_nbt_doc_new(col->alloc);
    return col->nbt;
}

static mc_nbt_tag *extra_now(mc_column *col)
{
    if (!col->extra) {
        mc_nbt_doc *doc = nbt_doc(col);
        if (!doc)
            return NULL;
        mc_nbt_tag *root = mc_nbt_doc_root(doc);
        if (!root)
            root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
        if (!root)
            return NULL;
        col->extra = root;
    }
    return col->extra;
}

/* Parses the deferred tags into the extra compound (copied into the
 * document's arena, so the column's copy goes). On failure they stay
 * deferred and false is returned. */
static bool undefer(mc_column *col)
{
    if (!col->deferred)
        return true;
    mc_nbt_tag *x = extra_now(col);
    if (!x || mc_nbt_parse_into(col->nbt, x, col->deferred, col->deferred_len, MC_NBT_JAVA, MC_NBT_PARSE_COPY,
                                NULL) != MC_OK)
        return false;
    col->alloc->free(col->alloc->user, col->deferred, col->deferred_len);
    col->deferred = NULL;
    col->deferred_len = 0;
    return true;
}

mc_nbt_doc *mc_column_nbt(mc_column *col)
{
    mc_nbt_doc *doc = nbt_doc(col);
    return doc && undefer(col) ? doc : NULL;
}

mc_nbt_tag *mc_column_extra(mc_column *col)
{
    mc_nbt_tag *x = extra_now(col);
    return x && undefer(col) ? x : NULL;
}

bool mc__column_lend_nbt(mc_column *dst, mc_column *src)
{
    if (dst->nbt || dst->deferred || dst->extra || (!src->nbt && !src->deferred) || dst->alloc != src->alloc)
        return false;
    dst->nbt = src->nbt;
    dst->extra = src->extra;
    dst->deferred = src->deferred;
    dst->deferred_len = src->deferred_len;
    /* what mc_column_extra_peek(src) gave: the root, now in dst's document */
    src->extra = src->extra ? src->extra : src->nbt ? mc_nbt_doc_root(src->nbt) : NULL;
    src->nbt = NULL;
    src->deferred = NULL;
    src->deferred_len = 0;
    return true;
}

bool mc__column_lend_heightmap(mc_column *dst, mc_column *src, mc_heightmap_type type)
{
    if ((unsigned)type >= MC_HEIGHTMAP_COUNT || !src->heightmaps[type] || dst->heightmaps[type] ||
        dst->alloc != src->alloc || dst->hm_bits != src->hm_bits || dst->hm_longs != src->hm_longs ||
        !mc_bits_all_below(src->heightmaps[type], 256, src->hm_bits, (uint64_t)mc_column_height(dst) + 1))
        return false; /* (a height past the column: mc_column_heightmap_set_all refuses it) */
    dst->heightmaps[type] = src->heightmaps[type];
    src->heightmaps[type] = NULL;
    return true;
}

mc_status mc__column_put_extra_int(mc_column *col, const char *key, int32_t v)
{
    mc_nbt_tag *x = mc_column_extra(col);
    return x ? mc_nbt_put_int(col->nbt, x, key, v) : MC_ERR_NOMEM;
}

const mc_nbt_tag *mc_column_extra_peek(const mc_column *col)
{
    /* the extra compound is the document's root (see extra_now) */
    return col->extra ? col->extra : col->nbt ? mc_nbt_doc_root(col->nbt) : NULL;
}

bool mc_column_extra_deferred(const mc_column *col)
{
    return col->deferred != NULL;
}

mc_status mc_column_defer_extra(mc_column *col, size_t nparts, const void *const *parts, const size_t *lens)
{
    const size_t had = col->deferred ? col->deferred_len - 1 : 0; /* before the end tag */
    size_t total = had;
    for (size_t i = 0; i < nparts; i++) {
        if (lens[i] > SIZE_MAX - 1 - total)
            return MC_ERR_LIMIT;
        total += lens[i];
    }
    if (total == had)
        return MC_OK; /* nothing new */
    uint8_t *buf = col->deferred ? col->alloc->realloc(col->alloc->user, col->deferred, col->deferred_len, total + 1)
                                 : col->alloc->alloc(col->alloc->user, total + 1);
    if (!buf)
        return MC_ERR_NOMEM;
    size_t at = had;
    for (size_t i = 0; i < nparts; i++) {
        if (lens[i])
            memcpy(buf + at, parts[i], lens[i]);
        at += lens[i];
    }
    buf[at] = MC_NBT_END; /* the end tag the parse of a compound's payload wants */
    col->deferred = buf;
    col->deferred_len = total + 1;
    return MC_OK;
}

static block_entity *find_be(const mc_column *col, int32_t x, int32_t y, int32_t z)
{
    for (size_t i = 0; i < col->be_len; i++)
        if (col->bes[i].x == x && col->bes[i].y == y && col->bes[i].z == z)
            return &col->bes[i];
    return NULL;
}

/* Stores a copy of `tag` at (x, y, z): replacing the one there when
 * `replace`, else appended (the caller knows the position holds none). */
static mc_status store_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z, const mc_nbt_tag *tag,
                                    bool replace)
{
    if (!tag)
        return MC_ERR_INVALID_ARG;
    mc_nbt_doc *doc = nbt_doc(col);
    if (!doc)
        return MC_ERR_NOMEM;
    mc_nbt_tag *copy = mc_nbt_copy(doc, tag);
    if (!copy)
        return MC_ERR_NOMEM;
    block_entity *be = replace ? find_be(col, x, y, z) : NULL;
    if (be) {
        be->tag = copy;
        return MC_OK;
    }
    if (col->be_len == col->be_cap) {
        size_t cap = col->be_cap ? col->be_cap * 2 : 8;
        block_entity *n = col->alloc->realloc(col->alloc->user, col->bes, col->be_cap * sizeof *n,
                                              cap * sizeof *n);
        if (!n)
            return MC_ERR_NOMEM;
        col->bes = n;
        col->be_cap = cap;
    }
    block_entity e = {x, y, z, copy};
    col->bes[col->be_len++] = e;
    return MC_OK;
}

mc_status mc_column_put_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z,
                                     const mc_nbt_tag *tag)
{
    return store_block_entity(col, x, y, z, tag, true);
}

mc_status mc__column_add_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z, const mc_nbt_tag *tag)
{
    return store_block_entity(col, x, y, z, tag, false);
}

mc_nbt_tag *mc_column_block_entity(const mc_column *col, int32_t x, int32_t y, int32_t z)
{
    block_entity *be = find_be(col, x, y, z);
    return be ? be->tag : NULL;
}

bool mc_column_remove_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z)
{
    block_entity *be = find_be(col, x, y, z);
    if (!be)
        return false;
    size_t i = (size_t)(be - col->bes);
    memmove(&col->bes[i], &col->bes[i + 1], (col->be_len - i - 1) * sizeof *be);
    col->be_len--;
    return true;
}

size_t mc_column_block_entity_count(const mc_column *col) { return col->be_len; }

mc_nbt_tag *mc_column_block_entity_at(const mc_column *col, size_t i, int32_t *x, int32_t *y, int32_t *z)
{
    if (i >= col->be_len)
        return NULL;
    if (x)
        *x = col->bes[i].x;
    if (y)
        *y = col->bes[i].y;
    if (z)
        *z = col->bes[i].z;
    return col->bes[i].tag;
}
