/*
 * chunk_private.h (private to src/chunk): what the block-entity translation
 * files share: the generated item tables (data/item_data.c, made by
 * scripts/gen-item-data.js), the translation context that walks a block
 * entity from one DataVersion to another, and the text and item helpers.
 *
 * A translation walks the game's DataFixer steps between the two
 * DataVersions (upwards in order, downwards in reverse, each step undone),
 * so each fact lives at the one DataVersion where the game changed it.
 */
#ifndef MC_CHUNK_PRIVATE_H
#define MC_CHUNK_PRIVATE_H

#include "mcchunk/translate.h"

/* DataVersions where block entities changed (the game's DataFixer schema
 * numbers; the release that first had each in brackets). */
#define MC__BE_DV_SPAWNER_IDS 106     /* [1.9] EntityId -> SpawnData.id, SpawnPotentials Type -> Entity */
#define MC__BE_DV_NAMESPACED 704      /* [1.11] "Chest" -> "minecraft:chest", entity ids likewise (705) */
#define MC__BE_DV_BED 1125            /* [1.12] beds get a block entity with their colour */
#define MC__BE_DV_FLATTENING 1451     /* [1.13] pots, note blocks, skulls, banners, beds into block states */
#define MC__BE_DV_NAME_COMPONENT 1458 /* [1.13] CustomName becomes a JSON text component */
#define MC__BE_DV_RENAMENING 1510     /* [1.13] villager_golem -> iron_golem, snowman -> snow_golem */
#define MC__BE_DV_UUID 2514           /* [1.16] skull Owner{Id: "uuid"} -> SkullOwner{Id: int[4]} */
#define MC__BE_DV_PIGLIN 2509         /* [1.16] zombie_pigman -> zombified_piglin */
#define MC__BE_DV_SPAWN_DATA 2831     /* [1.18] SpawnData{entity}, SpawnPotentials [{weight, data}] */
#define MC__BE_DV_SIGN_SIDES 3439     /* [1.20] front_text / back_text */
#define MC__BE_DV_PLAIN_TEXT 3698     /* [1.20.3] a plain text component is written as a JSON string */
#define MC__BE_DV_COMPONENTS 3818     /* [1.20.5] banner patterns by id; item stacks with components */
#define MC__BE_DV_PROFILE 3820        /* [1.20.5] skull SkullOwner -> profile */
#define MC__BE_DV_LOCK 4068           /* [1.21.2] Lock "key" -> lock item predicate */
#define MC__BE_DV_NBT_TEXT 4290       /* [1.21.5] text components as NBT, not JSON strings */

/* ----------------------------------------------------- generated tables */

/* A 1.8-1.12 item (its 1.12 name and damage; damage -1: the item has a
 * durability and keeps its damage as damage) and its 1.13 name. */
typedef struct mc__legacy_item {
    const char *legacy;
    int16_t damage;
    const char *flat;
} mc__legacy_item;
extern const mc__legacy_item mc__legacy_items[];
extern const size_t mc__legacy_item_count;

/* An item name of the releases from 1.13 on: the DataVersion of the first
 * release with it, and of the first release after the last one with it
 * (0: every release since has it). */
typedef struct mc__item_span {
    const char *name;
    int32_t first_dv, gone_dv;
} mc__item_span;
extern const mc__item_span mc__item_spans[];
extern const size_t mc__item_span_count;

/* ------------------------------------------------------------- context */

/* One block entity on its way from one DataVersion to another. */
typedef struct mc__be_ctx {
    mc_nbt_doc *doc;            /* where the block entity being changed lives */
    const mc_registry *from, *to;
    int32_t from_dv, to_dv;
    uint32_t from_state;        /* the block in `from` */
    uint32_t to_state;          /* the block in `to` (a step may change it) */
    int32_t x, y, z;            /* absolute position */
    mc_be_report *rep;
} mc__be_ctx;

/* Whether the walk crosses the step at `dv` upwards or downwards. */
static inline bool mc__be_up(const mc__be_ctx *c, int32_t dv)
{
    return c->from_dv < dv && dv <= c->to_dv;
}
static inline bool mc__be_down(const mc__be_ctx *c, int32_t dv)
{
    return c->to_dv < dv && dv <= c->from_dv;
}
static inline void mc__be_lost(const mc__be_ctx *c, mc_be_loss kind)
{
    if (c->rep)
        c->rep->lost[kind]++;
}

/* NBT helpers: a string value as a NUL-terminated copy in buf (false when
 * absent, not a string, or too long); moving src[key] (any tag, when
 * present) to dst[dkey]; renaming a key in place. */
bool mc__be_string(const mc_nbt_tag *t, char *buf, size_t cap);
mc_status mc__be_move(mc_nbt_doc *doc, mc_nbt_tag *src, const char *key, mc_nbt_tag *dst, const char *dkey);
mc_status mc__be_rename(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *from, const char *to);

/* ---------------------------------------------------------------- text */

/* Puts a text component (sign line, custom name) of ctx->from_dv's form
 * under `key` of compound `dst` in ctx->to_dv's form: JSON text in a string
 * tag before 1.21.5, NBT from then on (a plain text as a string tag, else a
 * compound or list). */
mc_status mc__text_put(const mc__be_ctx *c, mc_nbt_tag *dst, const char *key, const mc_nbt_tag *text);
/* Appends the components texts[0..n) (NULL: an empty line) to a list, in
 * ctx->to_dv's form, all of one tag type as NBT lists need. */
mc_status mc__text_put_list(const mc__be_ctx *c, mc_nbt_tag *list, const mc_nbt_tag *const *texts, size_t n);
/* Puts a plain string (a CustomName before 1.13) as a component of
 * ctx->to_dv's form. */
mc_status mc__text_put_plain(const mc__be_ctx *c, mc_nbt_tag *dst, const char *key, const char *s, size_t len);
/* The plain text a component of any form shows, into buf (truncated to
 * cap-1 bytes, NUL-terminated); returns its full length. */
size_t mc__text_plain(const mc_nbt_tag *text, char *buf, size_t cap);
/* Whether a component (of any form) shows no text at all. */
bool mc__text_is_empty(const mc_nbt_tag *text);

/* --------------------------------------------------------------- items */

/* Translates an item stack compound in place (it belongs to ctx->doc).
 * Returns false when the target has no such item (the caller drops it and
 * counts it); data the target cannot hold is dropped and counted. */
bool mc__item_translate(const mc__be_ctx *c, mc_nbt_tag *item);
/* Translates every stack of a list of item stacks in place, dropping (and
 * counting) those the target has no item for. */
mc_status mc__items_translate(const mc__be_ctx *c, mc_nbt_tag *list);

/* ------------------------------------------------ a column's block entities */

/* mc_column_put_block_entity for a position that holds none yet (no
 * search: a column gets thousands in constant time each). */
mc_status mc__column_add_block_entity(mc_column *col, int32_t x, int32_t y, int32_t z, const mc_nbt_tag *tag);

/* ------------------------------------------------------------ containers */

/* mc_container_set_indexed for indices their maker knows to be below n (it
 * built the palette from them: the legacy reader, translation's
 * reindexing), without the walk over all of them that checks it. */
mc_status mc__container_set_indexed_below(mc_container *c, const uint32_t *palette, size_t n, const uint16_t *idx);

/* Every DataVersion above, ascending: the steps a walk can cross. Each is
 * the DataVersion of a release whose block states changed as well, so all
 * releases that share a registry share one block entity format (checked by
 * test_java_chunk_be.c), and a registry speaks for its releases. */
extern const int32_t mc__be_steps[];
extern const size_t mc__be_step_count;

/* The DataVersion of the newest Java release with registry `reg` (the
 * format of its block entities), or -1 when no Java release has it. */
int32_t mc__registry_data_version(const mc_registry *reg);

/* The key of a column's extra NBT where the chunk NBT reader records the
 * chunk's DataVersion (its MC__KEY_SOURCE_DV: the modules share no header). */
#define MC__KEY_COLUMN_DV "mcchunk:data_version"
/* The key where mc_column_translate records the DataVersion its block
 * entities now follow (the target's), when the column has a recorded
 * DataVersion: that one still describes the layout of the other extra
 * data, which the chunk NBT writer moves by it (chunknbt's
 * MC__KEY_BLOCK_ENTITIES_DV). */
#define MC__KEY_COLUMN_BE_DV "mcchunk:block_entities_data_version"

/* For a copy `dst` of `src` that replaces it (mc_column_translate_take):
 * src's NBT document -- its extra NBT, deferred tags and block entity
 * tags -- becomes dst's instead of being copied. src still reads its extra
 * NBT (mc_column_extra_peek) and block entities from it until it is freed,
 * which must be before dst, and must not be changed. False (nothing lent)
 * when dst has a document already, src has none, or their allocators
 * differ (column.c). */
bool mc__column_lend_nbt(mc_column *dst, mc_column *src);

/* Moves src's heightmap `type` to dst, as mc_column_heightmap_get_all of
 * src and set_all of dst would copy it (the same height; dst without that
 * map), for mc_column_translate_take; false when it cannot (column.c). */
bool mc__column_lend_heightmap(mc_column *dst, mc_column *src, mc_heightmap_type type);

/* Sets int `key` of the column's extra NBT (column.c). */
mc_status mc__column_put_extra_int(mc_column *col, const char *key, int32_t v);


/*
 * The state map with facts that translate.c keeps per registry pair (the
 * "packed map"): one uint32 per source state, the target state in the low
 * 24 bits; in the top byte the MC_STATE_* flags the translation changes
 * (bits 0-3), MC__PACKED_MAKES_BE when a block entity may have to be made
 * for the state (mc_block_entity_needed), and MC__PACKED_SHARED when another
 * source state has the same target. MC__PACKED_EXTRA entries of facts of
 * the pair follow: [state count] has in its top byte MC__PACKED_MAKES_BE
 * when any state has it and MC__PACKED_JAVA when both registries are those
 * of Java releases (block entities are translated), [state count + 1] and
 * [+ 2] the DataVersions of the two (mc__registry_data_version, as
 * uint32), so that a view looks up nothing per column.
 */
#define MC__PACKED_STATE 0xFFFFFFu
#define MC__PACKED_EXTRA 3u
#define MC__PACKED_FLAGS 0x0Fu    /* of the top byte */
#define MC__PACKED_JAVA 0x20u     /* of the top byte of entry [state count] */
#define MC__PACKED_MAKES_BE 0x40u /* of the top byte */
#define MC__PACKED_SHARED 0x80u   /* of the top byte */

/* A block state that a translated block entity decides, at section y `sy`
 * and block index `index` (mc_block_index). */
typedef struct mc__be_override {
    int32_t sy;
    uint16_t index;
    uint32_t state;
} mc__be_override;

/* A translated block entity at absolute (x, y, z) (tag in the set's doc). */
typedef struct mc__be_entry {
    int32_t x, y, z;
    mc_nbt_tag *tag;
} mc__be_entry;

/* The block entities of a column translated for another registry, and the
 * block states they decide (zero-initialise; mc__be_set_free). */
typedef struct mc__be_set {
    mc_nbt_doc *doc;           /* holds the translated compounds */
    mc__be_entry *entries;
    size_t count, cap;
    mc__be_override *overrides; /* in the order the block entities came */
    size_t override_count, override_cap;
    mc_be_report report;
} mc__be_set;

/* Translates the block entities of `src` (whose registry is not `to`, both
 * Java) through the packed map of the pair (`packed`, state count +
 * MC__PACKED_EXTRA entries): each one with the state the map gives its block, then those
 * the target needs for blocks that have none (sections whose palette holds
 * an MC__PACKED_MAKES_BE state). A block entity without a string "id" is
 * dropped and counted (its kind, and so its meaning in the target, is
 * unknown). Errors: MC_ERR_NOMEM (set is then freed). */
mc_status mc__be_set_build(mc__be_set *set, const mc_column *src, const mc_registry *to, const uint32_t *packed);
void mc__be_set_free(mc__be_set *set);

/* Whether any override falls in section `sy`. */
bool mc__be_set_touches(const mc__be_set *set, int32_t sy);

/* The container `in` (a translated block container of section `sy`) with
 * the set's overrides of that section applied, built afresh into `out`
 * (mc_container_set_all under `rules`). *flags_changed receives the OR of
 * the MC_STATE_* flags (of registry `to`) that differ between the states
 * replaced and their overrides. */
mc_status mc__be_set_apply(const mc__be_set *set, int32_t sy, const mc_container *in, const mc_registry *to,
                           const mc_container_rules *rules, mc_container *out, uint32_t *flags_changed);

#endif
