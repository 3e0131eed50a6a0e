/*
 * mcchunk/translate.h: moving a whole column from one registry to another
 * (one game version's block states and biomes to another's).
 *
 * Translation remaps palettes, not blocks: an indirect container keeps its
 * packed longs and only its palette entries go through the registry
 * module's cached state map (mc_registry_map), so the cost is O(palette).
 * Single-value containers cost one lookup; only direct (global-palette)
 * containers take a pass over their 4096 entries. When two source states
 * become the same target state the palette is rebuilt without duplicates.
 *
 * Biomes go by name (mc_biome_translate): the same name, else a short table
 * of the game's renames (1.18 renamed many biomes: mountains <->
 * windswept_hills, ...), else the documented fallback MC_BIOME_FALLBACK
 * ("minecraft:plains", present in every registry), else id 0.
 *
 * Block entities between two Java registries are translated to the
 * target's DataVersion (mc_block_entity_translate, below: the newest release
 * with the registry; every release that shares a registry shares the block
 * entity format), together with the block states they decide, and those
 * the target needs for blocks that had none are made (see "block entities"
 * below); a block entity without a string "id" cannot be translated and is
 * left out. To or from a Bedrock registry they are copied.
 *
 * Light and the column's extra NBT are copied (a DataVersion the chunk NBT
 * reader recorded there becomes the target's when block entities were
 * translated). Heightmaps
 * the source had are copied when every state (and every state a block
 * entity decided) keeps the flags they test (air, blocks motion, fluid,
 * leaves: the source's maps are then exact, and may be the game's own), and
 * recomputed from the translated blocks otherwise; the block and fluid counts are recounted with the target
 * registry.
 *
 * Encoders that only read the result need not copy the column at all: a
 * translated view (mc_column_view_new, below) gives the same sections with
 * new palettes over the source's packed longs.
 */
#ifndef MCCHUNK_TRANSLATE_H
#define MCCHUNK_TRANSLATE_H

#include "mcchunk/chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The biome used when the target registry lacks a biome under every name. */
#define MC_BIOME_FALLBACK "minecraft:plains"

/* A biome id of `from` as an id of `to` (see above). *fallback (may be
 * NULL) is set true when the fallback was used (also for ids `from` lacks). */
MC_API uint32_t mc_biome_translate(const mc_registry *from, const mc_registry *to, uint32_t biome,
                                   bool *fallback);

/* A new column in registry `to` with the blocks and biomes of `src`
 * translated, and everything else copied (see the top of this file).
 * `to` == the source's registry gives a deep copy. `alloc` NULL: default.
 * NULL on failure (err says why: MC_ERR_NOMEM, MC_ERR_INVALID_ARG). */
MC_API mc_column *mc_column_translate(const mc_column *src, const mc_registry *to,
                                      const mc_allocator *alloc, mc_error *err);

/* mc_column_translate for a caller done with `src`: src is freed (in every
 * case), and its extra NBT becomes the result's instead of being copied
 * (world convert: the copy was a sixth of translating an older chunk). */
MC_API mc_column *mc_column_translate_take(mc_column *src, const mc_registry *to, const mc_allocator *alloc,
                                           mc_error *err);

/* A copy of `src` over sections min_section .. min_section+count-1: the
 * sections both ranges share are copied, the others are dropped or added
 * as air (biome: the nearest kept section's lowest cells; no light), and
 * so are the block entities. Heightmaps are recomputed for the maps the
 * source had. For serving a column of one dimension height to a client of
 * another (a 0..255 column to a 1.18+ overworld client, say). NULL on
 * failure (err says why). */
MC_API mc_column *mc_column_reshape(const mc_column *src, int32_t min_section, uint32_t count,
                                    const mc_allocator *alloc, mc_error *err);

/* Translates one container in place through a state map of `map_len`
 * entries (ids beyond it become `fallback`), giving it `rules` (the target's
 * widths). Palette-only when no two entries merge. */
MC_API mc_status mc_container_translate(mc_container *c, const uint32_t *map, uint32_t map_len,
                                        uint32_t fallback, const mc_container_rules *rules);

/* ------------------------------------------------------------- views */

/* The biome map from -> to: an array of mc_registry_biome_count(from) ids of
 * `to` (map[b] = mc_biome_translate(from, to, b, NULL)), then one more: the
 * id in `to` of MC_BIOME_FALLBACK (0 when it has none). Built on first use,
 * cached for the life of the process and shared between threads (published
 * once, never changed); never free it. NULL only when memory runs out. */
MC_API const uint32_t *mc_biome_map(const mc_registry *from, const mc_registry *to);

/*
 * A translated view: a column seen in another registry without copying it,
 * for encoders that only read (a Chunk Data packet for another protocol).
 * Its sections are what mc_column_translate would give, but an indirect or
 * single container only gets a new palette (the mapped entries, held by the
 * view) over the source's own packed longs; a container whose entries merge
 * (two source states, one target state) or that is direct is rebuilt, as
 * mc_column_translate rebuilds it (an indirect one by remapping its
 * indices). Building a view costs O(palette) per section plus one pass per
 * rebuilt container. (A source palette that holds one value twice, which
 * only outside data can make, is mapped as it is.)
 *
 * Counts: a section whose states all keep their air and fluid flags keeps
 * the source's counts (as they were: known or MC_SECTION_COUNT_UNKNOWN);
 * otherwise they are MC_SECTION_COUNT_UNKNOWN, to be counted with the
 * target registry (mc_section_counts). Heightmaps: the source's hold for the
 * view when every state of every section keeps the flags heightmaps test
 * (air, blocks motion, fluid, leaves: mc_column_view_heightmaps_kept);
 * mc_column_translate copies them in exactly that case and recomputes them
 * otherwise.
 *
 * Block entities: the view holds them as mc_column_translate gives them
 * (translated between Java registries, the states they decide put into the
 * view's sections: such a section's block container is rebuilt, its counts
 * left to be made, and the heightmaps are not kept when a decided state
 * changes a flag they test); building them costs one translation per block
 * entity, and for pairs across 1.12/1.13 a look at each section's palette
 * for blocks that need one made.
 *
 * The view borrows the source column (its longs, light, extra NBT, and its
 * block entities when the registries are one or not both Java): the column
 * must outlive it and not change meanwhile. A view belongs to one thread at
 * a time.
 */
typedef struct mc_column_view mc_column_view;

/* A view of `src` in registry `to` (`to` may be the source's own: then the
 * sections are the source's). NULL on failure (err: MC_ERR_NOMEM,
 * MC_ERR_INVALID_ARG). */
MC_API mc_column_view *mc_column_view_new(const mc_column *src, const mc_registry *to,
                                          const mc_allocator *alloc, mc_error *err);
MC_API void mc_column_view_free(mc_column_view *v);
/* The section with section y `sy` as the target registry reads it, or NULL
 * outside the column. Read-only: never pass it to a function that changes or
 * frees a section. */
MC_API const mc_section *mc_column_view_section(const mc_column_view *v, int32_t sy);
/* Whether the source's heightmaps are the view's (see above). */
MC_API bool mc_column_view_heightmaps_kept(const mc_column_view *v);
/* A biome id of the source as an id of the target (the cached biome map;
 * ids the source registry lacks become 0, as 2D biome arrays translate). */
MC_API uint32_t mc_column_view_biome(const mc_column_view *v, uint32_t biome);
/* The source column and the target registry. */
MC_API const mc_column *mc_column_view_source(const mc_column_view *v);
MC_API const mc_registry *mc_column_view_registry(const mc_column_view *v);
/* The view's block entities (see above): the count, and the i-th with its
 * absolute position (NULL past the end). The compounds belong to the view
 * (or the source column) and are read-only. */
MC_API size_t mc_column_view_block_entity_count(const mc_column_view *v);
MC_API const mc_nbt_tag *mc_column_view_block_entity_at(const mc_column_view *v, size_t i, int32_t *x, int32_t *y,
                                                        int32_t *z);

/* ------------------------------------------------------ block entities */

/*
 * Block entities keep their meaning across versions: a block entity of the
 * chunk NBT of one DataVersion becomes that of another, walking the game's
 * DataFixer steps between them (upwards as the game does; downwards each
 * step undone). Where a block state and a block entity together make the
 * visible block, both are translated together:
 *
 *   ids         1.8-1.10 "Chest", "Sign", "MobSpawner"... <-> 1.11+
 *               "minecraft:chest"...; trapped chests "minecraft:trapped_chest"
 *               from 1.13 (a chest before);
 *   signs       1.8-1.19 Text1..Text4 (JSON text), Color, GlowingText <->
 *               1.20 front_text/back_text {messages[4], color,
 *               has_glowing_text} and is_waxed; hanging signs likewise;
 *               1.21.5+ lines as NBT text components; a back side or waxing
 *               an older target cannot show is counted (MC_BE_LOSS_TEXT);
 *   banners     before 1.13 Base (the colour, in the legacy numbering:
 *               15 - the 1.13 dye id) decides the block colour_banner, and
 *               the layers' Color numbers flip likewise; 1.20.5+ patterns
 *               [{pattern: "minecraft:stripe_top", color: "red"}];
 *   beds        1.12's color (dye id) <-> the colour_bed blocks; 1.8-1.11
 *               beds have no block entity (red);
 *   skulls      1.8-1.12 SkullType (skeleton, wither, zombie, player,
 *               creeper, dragon) and Rot (floor skulls) <-> the 1.13 skull
 *               and head blocks with rotation/facing; the owner Owner{Id
 *               string} <-> 1.16 SkullOwner{Id int[4]} <-> 1.20.5 profile;
 *   flower pots 1.8-1.12 Item/Data <-> the 1.13 potted_* blocks (no block
 *               entity any more); note blocks' note/powered likewise;
 *   containers  Items [{Slot, id, Count, Damage, tag}] <-> 1.13 flattened
 *               ids (damage of tools into tag.Damage) <-> 1.20.5 {Slot, id,
 *               count, components} (damage, custom name; the rest of an
 *               old tag as custom_data); item renames (dyes, signs,
 *               short_grass, turtle_scute, iron_chain, ...); an item the
 *               target lacks is dropped and counted; jukebox RecordItem and
 *               lectern Book likewise; CustomName plain text <-> JSON text
 *               <-> NBT text; Lock "key" <-> 1.21.2 lock predicate;
 *   spawners    1.8 EntityId <-> SpawnData.id; entity names "Zombie" <->
 *               "minecraft:zombie" (and the 1.13/1.16 renames); 1.18
 *               SpawnData{entity}, SpawnPotentials [{weight, data}].
 * A block entity whose kind the target does not have, or whose block
 * became air, is dropped and counted (MC_BE_LOSS_BLOCK_ENTITY). Facts come
 * from the game's DataFixers (decompiled) and minecraft-data.
 */

/* Kinds of what a translation could not carry. */
typedef enum mc_be_loss {
    MC_BE_LOSS_BLOCK_ENTITY = 0, /* whole block entities: no kind (or no block) in the target */
    MC_BE_LOSS_ITEM,             /* item stacks the target has no item for */
    MC_BE_LOSS_ITEM_DATA,        /* item data not carried (components, tag keys) */
    MC_BE_LOSS_TEXT,             /* sign text the target cannot show (back side, waxing) */
    MC_BE_LOSS_PATTERN,          /* banner layers the target has no pattern for */
    MC_BE_LOSS_VARIANT,          /* variants the target lacks (skull kind, potted plant, bed colour before 1.12) */
    MC_BE_LOSS_FIELD,            /* other fields dropped (filtered text, conduit target, ...) */
    MC_BE_LOSS_COUNT
} mc_be_loss;

/* What a translation did (zero-initialise; translations add to it). */
typedef struct mc_be_report {
    uint32_t translated;            /* block entities written for the target */
    uint32_t created;               /* made from a block state (pots, note blocks, beds for older targets) */
    uint32_t folded;                /* turned into the block state (pots, note blocks for 1.13+) */
    uint32_t lost[MC_BE_LOSS_COUNT];
} mc_be_report;

/* "block entity", "item", ... (for reports). */
MC_API const char *mc_be_loss_name(mc_be_loss kind);

/* What the view's block entity translation did (all zero when nothing was
 * translated). Owned by the view. */
MC_API const mc_be_report *mc_column_view_block_entity_report(const mc_column_view *v);

/* A translation between the chunk NBT of two versions. */
typedef struct mc_be_translation {
    const mc_registry *from, *to; /* the block-state registries */
    int32_t from_dv, to_dv;       /* DataVersions (0: 1.8, which has none) */
    mc_be_report *report;         /* may be NULL */
} mc_be_translation;

/* Translates the block entity at absolute (x, y, z), whose block is
 * `from_state` (of t->from), into `doc`: *out receives a new detached
 * compound of `doc` (attach it with mc_nbt_attach / mc_nbt_list_attach), or
 * NULL when the target has no block entity there. `src` may be NULL (the
 * source had none: one is made where the target needs it, e.g. a 1.13
 * potted plant for 1.12). *to_state: in, the block as the state translation
 * gave it (of t->to); out, the block the block entity decides (a bed's
 * colour, a skull, a potted plant...). `doc` is not otherwise changed (the
 * work happens in a scratch document). Errors: MC_ERR_NOMEM,
 * MC_ERR_INVALID_ARG (src not a compound). */
MC_API mc_status mc_block_entity_translate(const mc_be_translation *t, const mc_nbt_tag *src, int32_t x,
                                           int32_t y, int32_t z, uint32_t from_state, uint32_t *to_state,
                                           mc_nbt_doc *doc, mc_nbt_tag **out);

/* Whether Java 1.13+ has the item `name` ("minecraft:" optional) at
 * `data_version` (the generated item table, minecraft-data's items.json of
 * each release); false before 1.13 and for names no release has. */
MC_API bool mc_java_item_exists(const char *name, int32_t data_version);

/* Whether a block of `from_state` without a block entity may need one made
 * (or its state decided) by the translation: 1.13+ potted plants and note
 * blocks, and the colour blocks, for a 1.8-1.12 target; 1.8-1.11 beds for
 * 1.12. */
MC_API bool mc_block_entity_needed(const mc_be_translation *t, uint32_t from_state);

#ifdef __cplusplus
}
#endif
#endif
