/*
 * blockentity_column.c: the block entities of a whole column for another
 * registry, as mc_column_translate and translated views (translate.c) carry
 * them to the target.
 *
 * Each block entity goes through mc_block_entity_translate with the state
 * the registry map gives its block; then the target gets those it needs
 * for blocks that had none (1.13+ pots and note blocks, beds, banners and
 * skulls for 1.8-1.12; 1.8-1.11 beds for 1.12). Where a block entity
 * decides its block (a bed's or banner's colour, a skull's kind, a potted
 * plant, a note), the state it gives is kept as an override of the
 * translated section: the same agreement mc_chunknbt_write makes when it
 * writes converted sections, so a client sees a blue bed where the world
 * has one whichever version it speaks.
 *
 * The DataVersions come from the registries. Every step of the walk
 * (mc__be_steps) falls on a release whose block states changed too, so all
 * releases that share a registry share the block entity format and the
 * newest of them speaks for all (test_java_chunk_be checks this against the
 * version table). A column the chunk NBT reader made names its own
 * DataVersion, which is used when present.
 *
 * The cost is one translation per block entity (a scratch NBT document
 * each) and, only for pairs that make block entities, a look at each
 * section's palette; a column is translated once per registry by its users
 * (the server caches the encoded packets per protocol).
 */
#include "chunk/chunk_private.h"

#include <stdlib.h>
#include <string.h>

const int32_t mc__be_steps[] = {
    MC__BE_DV_SPAWNER_IDS, MC__BE_DV_NAMESPACED,     MC__BE_DV_BED,      MC__BE_DV_FLATTENING,
    MC__BE_DV_NAME_COMPONENT, MC__BE_DV_RENAMENING,  MC__BE_DV_PIGLIN,   MC__BE_DV_UUID,
    MC__BE_DV_SPAWN_DATA,  MC__BE_DV_SIGN_SIDES,     MC__BE_DV_PLAIN_TEXT, MC__BE_DV_COMPONENTS,
    MC__BE_DV_PROFILE,     MC__BE_DV_LOCK,           MC__BE_DV_NBT_TEXT,
};
const size_t mc__be_step_count = sizeof mc__be_steps / sizeof mc__be_steps[0];

int32_t mc__registry_data_version(const mc_registry *reg)
{
    int32_t dv = -1;
    mc_version_info vi;
    for (size_t i = 0; mc_java_version_at(i, &vi); i++)
        if (vi.registry == reg)
            dv = vi.data_version; /* oldest first: the last one is the newest */
    return dv;
}

/* The DataVersion a column's block entities follow: the one
 * mc_column_translate recorded when it translated them, else the one the
 * chunk NBT reader recorded in its extra NBT ("mcchunk:data_version"; both
 * read without parsing deferred data), else its registry's, `registry_dv`. */
static int32_t column_data_version(const mc_column *col, int32_t registry_dv)
{
    const mc_nbt_tag *x = mc_column_extra_peek(col);
    int32_t dv;
    if (x && mc_nbt_get_int(mc_nbt_get(x, MC__KEY_COLUMN_BE_DV), &dv) == MC_OK && dv >= 0)
        return dv; /* translated by mc_column_translate */
    if (x && mc_nbt_get_int(mc_nbt_get(x, MC__KEY_COLUMN_DV), &dv) == MC_OK && dv >= 0)
        return dv;
    return registry_dv;
}

/* ------------------------------------------------------------ the set */

/* Room for one more element in the array *items of *cap (count used). */
static bool room_for_one(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    const size_t n = *cap ? *cap * 2 : 8;
    void *grown = realloc(*items, n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

static mc_status push_entry(mc__be_set *set, int32_t x, int32_t y, int32_t z, mc_nbt_tag *tag)
{
    if (!room_for_one((void **)&set->entries, &set->cap, set->count, sizeof *set->entries))
        return MC_ERR_NOMEM;
    set->entries[set->count++] = (mc__be_entry){x, y, z, tag};
    return MC_OK;
}

static int32_t floor_div16(int32_t y)
{
    return (int32_t)((int64_t)y >> 4); /* arithmetic: -1 -> -1 */
}

static mc_status push_override(mc__be_set *set, int32_t x, int32_t y, int32_t z, uint32_t state)
{
    if (!room_for_one((void **)&set->overrides, &set->override_cap, set->override_count, sizeof *set->overrides))
        return MC_ERR_NOMEM;
    set->overrides[set->override_count++] =
        (mc__be_override){floor_div16(y), (uint16_t)mc_block_index((unsigned)x, (unsigned)y, (unsigned)z), state};
    return MC_OK;
}

/* The target state the packed map gives a source state (air outside it). */
static uint32_t mapped_state(const uint32_t *packed, uint32_t n, uint32_t state, uint32_t air)
{
    return state < n ? packed[state] & MC__PACKED_STATE : air;
}

/* One block entity (src NULL: made for its block) through the walk; the
 * state it decides becomes an override. */
static mc_status translate_one(mc__be_set *set, const mc_be_translation *t, const mc_column *col,
                               const uint32_t *packed, const mc_nbt_tag *src, int32_t x, int32_t y, int32_t z)
{
    const uint32_t from = mc_column_get_block(col, x, y, z);
    const uint32_t mapped = mapped_state(packed, mc_registry_state_count(t->from), from, mc_registry_air(t->to));
    uint32_t to = mapped;
    mc_nbt_tag *out = NULL;
    if (!set->doc && !(set->doc = mc_nbt_doc_new(NULL))) /* made on first use */
        return MC_ERR_NOMEM;
    mc_status st = mc_block_entity_translate(t, src, x, y, z, from, &to, set->doc, &out);
    if (st == MC_OK && out)
        st = push_entry(set, x, y, z, out);
    if (st == MC_OK && to != mapped)
        st = push_override(set, x, y, z, to);
    return st;
}

/* Whether a block entity names its kind with a string "id". */
static bool has_string_id(const mc_nbt_tag *be)
{
    const char *s;
    size_t n;
    return mc_nbt_tag_type(be) == MC_NBT_COMPOUND && mc_nbt_get_string(mc_nbt_get(be, "id"), &s, &n) == MC_OK &&
           n > 0;
}

/* Whether a container holds a state the map marks MAKES_BE. */
static bool container_makes_be(const mc_container *c, const uint32_t *packed, uint32_t n, uint32_t *vals)
{
    size_t len = 0;
    const uint32_t *pal = mc_container_palette(c, &len);
    if (!pal) {
        if (c->rules.size > MC_SECTION_BLOCKS)
            return false;
        mc_container_get_all(c, vals);
        pal = vals;
        len = c->rules.size;
    }
    for (size_t i = 0; i < len; i++)
        if (pal[i] < n && ((packed[pal[i]] >> 24) & MC__PACKED_MAKES_BE))
            return true;
    return false;
}

/* The block entities the target needs for blocks of section `sy` that
 * have none in the source. */
static mc_status make_for_section(mc__be_set *set, const mc_be_translation *t, const mc_column *col,
                                  const uint32_t *packed, int32_t sy, uint32_t *vals)
{
    const mc_section *s = mc_column_section_const(col, sy);
    const uint32_t n = mc_registry_state_count(t->from);
    if (!s || !container_makes_be(&s->blocks, packed, n, vals))
        return MC_OK;
    /* the positions of this section that have a block entity already */
    uint8_t has[MC_SECTION_BLOCKS / 8];
    memset(has, 0, sizeof has);
    for (size_t i = 0; i < mc_column_block_entity_count(col); i++) {
        int32_t x, y, z;
        mc_column_block_entity_at(col, i, &x, &y, &z);
        if (floor_div16(y) == sy) {
            const unsigned k = mc_block_index((unsigned)x, (unsigned)y, (unsigned)z);
            has[k >> 3] |= (uint8_t)(1u << (k & 7));
        }
    }
    mc_container_get_all(&s->blocks, vals);
    const int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    mc_status st = MC_OK;
    for (unsigned k = 0; k < MC_SECTION_BLOCKS && st == MC_OK; k++) {
        const uint32_t v = vals[k];
        if (v >= n || !((packed[v] >> 24) & MC__PACKED_MAKES_BE) || (has[k >> 3] >> (k & 7)) & 1)
            continue;
        st = translate_one(set, t, col, packed, NULL, bx + (int32_t)(k & 15), sy * 16 + (int32_t)(k >> 8),
                           bz + (int32_t)((k >> 4) & 15));
    }
    return st;
}

mc_status mc__be_set_build(mc__be_set *set, const mc_column *src, const mc_registry *to, const uint32_t *packed)
{
    memset(set, 0, sizeof *set);
    const mc_registry *from = mc_column_registry(src);
    const uint32_t n = mc_registry_state_count(from);
    const size_t nbe = mc_column_block_entity_count(src);
    const bool makes = (packed[n] >> 24) & MC__PACKED_MAKES_BE;
    if (!nbe && !makes)
        return MC_OK; /* nothing to translate or make (most columns between 1.18+ releases) */
    const mc_be_translation t = {from, to, column_data_version(src, (int32_t)packed[n + 1]),
                                 (int32_t)packed[n + 2], &set->report};
    mc_status st = MC_OK;
    for (size_t i = 0; i < nbe && st == MC_OK; i++) {
        int32_t x, y, z;
        const mc_nbt_tag *tag = mc_column_block_entity_at(src, i, &x, &y, &z);
        if (!has_string_id(tag)) {
            set->report.lost[MC_BE_LOSS_BLOCK_ENTITY]++;
            continue;
        }
        st = translate_one(set, &t, src, packed, tag, x, y, z);
    }
    if (makes) {
        uint32_t *vals = malloc(MC_SECTION_BLOCKS * sizeof *vals);
        if (!vals)
            st = MC_ERR_NOMEM;
        const int32_t lo = mc_column_min_section(src);
        for (uint32_t i = 0; i < mc_column_section_count(src) && st == MC_OK; i++)
            st = make_for_section(set, &t, src, packed, lo + (int32_t)i, vals);
        free(vals);
    }
    if (st != MC_OK)
        mc__be_set_free(set);
    return st;
}

void mc__be_set_free(mc__be_set *set)
{
    mc_nbt_doc_free(set->doc);
    free(set->entries);
    free(set->overrides);
    memset(set, 0, sizeof *set);
}

bool mc__be_set_touches(const mc__be_set *set, int32_t sy)
{
    for (size_t i = 0; i < set->override_count; i++)
        if (set->overrides[i].sy == sy)
            return true;
    return false;
}

mc_status mc__be_set_apply(const mc__be_set *set, int32_t sy, const mc_container *in, const mc_registry *to,
                           const mc_container_rules *rules, mc_container *out, uint32_t *flags_changed)
{
    if (in->rules.size != MC_SECTION_BLOCKS || rules->size != MC_SECTION_BLOCKS)
        return MC_ERR_INVALID_ARG;
    uint32_t *vals = malloc(MC_SECTION_BLOCKS * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    mc_container_get_all(in, vals);
    uint32_t changed = 0;
    for (size_t i = 0; i < set->override_count; i++) {
        const mc__be_override *o = &set->overrides[i];
        if (o->sy != sy)
            continue;
        changed |= mc_registry_state_flags(to, vals[o->index]) ^ mc_registry_state_flags(to, o->state);
        vals[o->index] = o->state;
    }
    *flags_changed = changed & MC__PACKED_FLAGS;
    mc_container_init(out, rules, vals[0], in->alloc);
    mc_status st = mc_container_set_all(out, vals);
    if (st != MC_OK)
        mc_container_free(out);
    free(vals);
    return st;
}
