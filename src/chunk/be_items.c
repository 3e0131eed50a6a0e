/*
 * be_items.c: item stacks (chest contents, jukebox records, lectern books)
 * from one DataVersion's form to another's.
 *
 * An item stack changed three times in the ways a chunk shows:
 *   1.13 (1451)    the flattening: 1.8-1.12 {id: "minecraft:dye", Damage: 1}
 *                  became {id: "minecraft:rose_red"}; for items with a
 *                  durability Damage is wear and moved to tag.Damage
 *                  (generated table: legacy.json via gen-item-data.js);
 *                  1458 made tag.display.Name a JSON text component;
 *   renames        single items renamed later (the game's ItemRenameFix
 *                  steps, the table below);
 *   1.20.5 (3818)  {id, count (int), components}: Count became count and
 *                  the tag became components: tag.Damage -> minecraft:damage,
 *                  display.Name -> minecraft:custom_name, and what has no
 *                  component of its own here goes to minecraft:custom_data
 *                  as the game does with keys it does not know (its meaning
 *                  is lost: counted as item data); downwards custom_data
 *                  becomes the tag again and other components are dropped
 *                  and counted;
 *   1.21.5 (4290)  custom_name is an NBT text component.
 * An older target from 1.13 on that has no such item (the generated span
 * table: first release with it, first release after the last with it)
 * loses the stack.
 */
#include "chunk/chunk_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two NBT helpers of the block-entity translation (blockentity.c uses them
 * too; they live here, below it): a string tag's text into buf, and a key
 * moved (copied, then removed at the source) to another compound or name. */
bool mc__be_string(const mc_nbt_tag *t, char *buf, size_t cap)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(t, &s, &n) != MC_OK || n >= cap)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    return true;
}

mc_status mc__be_move(mc_nbt_doc *doc, mc_nbt_tag *src, const char *key, mc_nbt_tag *dst, const char *dkey)
{
    mc_nbt_tag *t = mc_nbt_get(src, key);
    if (!t)
        return MC_OK;
    mc_nbt_tag *copy = mc_nbt_copy(doc, t);
    if (!copy || mc_nbt_attach(doc, dst, dkey, strlen(dkey), copy) != MC_OK)
        return MC_ERR_NOMEM;
    if (src != dst || strcmp(key, dkey))
        mc_nbt_remove(src, key, strlen(key));
    return MC_OK;
}

/* Items the game renamed between releases (its ItemRenameFix steps). */
static const struct item_rename {
    int32_t dv;
    const char *old, *now;
} item_renames[] = {
    {1800, "rose_red", "red_dye"},              /* 1.14 DyeItemRenameFix */
    {1800, "dandelion_yellow", "yellow_dye"},
    {1800, "cactus_green", "green_dye"},
    {1802, "sign", "oak_sign"},                 /* 1.14 */
    {1802, "stone_slab", "smooth_stone_slab"},
    {2509, "zombie_pigman_spawn_egg", "zombified_piglin_spawn_egg"}, /* 1.16 */
    {2680, "grass_path", "dirt_path"},          /* 1.17 */
    {3692, "grass", "short_grass"},             /* 1.20.3 */
    {3800, "scute", "turtle_scute"},            /* 1.20.5 */
    {4541, "chain", "iron_chain"},              /* 1.21.9 */
};
#define NRENAMES (sizeof item_renames / sizeof item_renames[0])

/* ----------------------------------------------------------- the tables */

static const mc__legacy_item *legacy_of(const char *name, int damage)
{
    size_t lo = 0, hi = mc__legacy_item_count;
    while (lo < hi) { /* the first entry of `name` */
        size_t mid = (lo + hi) / 2;
        if (strcmp(mc__legacy_items[mid].legacy, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const mc__legacy_item *zero = NULL;
    for (size_t i = lo; i < mc__legacy_item_count && !strcmp(mc__legacy_items[i].legacy, name); i++) {
        if (mc__legacy_items[i].damage == -1 || mc__legacy_items[i].damage == damage)
            return &mc__legacy_items[i];
        if (mc__legacy_items[i].damage == 0)
            zero = &mc__legacy_items[i];
    }
    return zero; /* an unknown variant: the game took the base item */
}

static const mc__legacy_item *legacy_of_flat(const char *flat)
{
    for (size_t i = 0; i < mc__legacy_item_count; i++)
        if (!strcmp(mc__legacy_items[i].flat, flat))
            return &mc__legacy_items[i];
    return NULL;
}

/* Whether a release of DataVersion dv (1.13+) has the item; names the
 * table does not know (mods, data packs) are kept. */
static bool item_exists(const char *name, int32_t dv)
{
    size_t lo = 0, hi = mc__item_span_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(mc__item_spans[mid].name, name);
        if (c == 0) {
            const mc__item_span *s = &mc__item_spans[mid];
            return dv >= s->first_dv && (s->gone_dv == 0 || dv < s->gone_dv);
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return true;
}

bool mc_java_item_exists(const char *name, int32_t data_version)
{
    if (!name)
        return false;
    if (!strncmp(name, "minecraft:", 10))
        name += 10;
    size_t lo = 0, hi = mc__item_span_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(mc__item_spans[mid].name, name);
        if (c == 0)
            return data_version >= MC__BE_DV_FLATTENING && item_exists(name, data_version);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ------------------------------------------------------------- helpers */

static mc_nbt_tag *get_or_put_compound(mc_nbt_doc *doc, mc_nbt_tag *parent, const char *key)
{
    mc_nbt_tag *t = mc_nbt_get(parent, key);
    if (mc_nbt_tag_type(t) == MC_NBT_COMPOUND)
        return t;
    return mc_nbt_put_compound(doc, parent, key);
}

/* The custom name of an item (display.Name before 1.20.5), in place. */
static mc_status name_translate(const mc__be_ctx *c, mc_nbt_tag *holder, const char *key)
{
    mc_nbt_tag *name = mc_nbt_get(holder, key);
    if (!name)
        return MC_OK;
    char plain[1024];
    if (mc__be_up(c, MC__BE_DV_NAME_COMPONENT) && mc__be_string(name, plain, sizeof plain))
        return mc__text_put_plain(c, holder, key, plain, strlen(plain));
    if (mc__be_down(c, MC__BE_DV_NAME_COMPONENT)) {
        mc__text_plain(name, plain, sizeof plain);
        return mc_nbt_put_string(c->doc, holder, key, plain, strlen(plain));
    }
    return mc__text_put(c, holder, key, name); /* reads the tag before replacing it */
}

/* ----------------------------------------------------------- the steps */

/* 1.13 flattening of the id; *name is the unprefixed id. */
static bool flatten(const mc__be_ctx *c, mc_nbt_tag *item, char *name, size_t cap)
{
    int64_t damage = 0;
    mc_nbt_get_integer(mc_nbt_get(item, "Damage"), &damage);
    const mc__legacy_item *l = legacy_of(name, (int)damage);
    mc_nbt_remove(item, "Damage", 6);
    if (!l)
        return false;
    snprintf(name, cap, "%s", l->flat);
    if (l->damage == -1 && damage != 0) {
        mc_nbt_tag *tag = get_or_put_compound(c->doc, item, "tag");
        if (!tag || mc_nbt_put_int(c->doc, tag, "Damage", (int32_t)damage) != MC_OK)
            return false;
    }
    return true;
}

static bool unflatten(const mc__be_ctx *c, mc_nbt_tag *item, char *name, size_t cap)
{
    const mc__legacy_item *l = legacy_of_flat(name);
    if (!l)
        return false;
    snprintf(name, cap, "%s", l->legacy);
    int64_t damage = l->damage < 0 ? 0 : l->damage;
    mc_nbt_tag *tag = mc_nbt_get(item, "tag");
    if (l->damage < 0 && mc_nbt_get_integer(mc_nbt_get(tag, "Damage"), &damage) == MC_OK)
        mc_nbt_remove(tag, "Damage", 6);
    if (tag && mc_nbt_count(tag) == 0)
        mc_nbt_remove(item, "tag", 3);
    return mc_nbt_put_short(c->doc, item, "Damage", (int16_t)damage) == MC_OK;
}

/* 1.20.5: Count/tag -> count/components. */
static mc_status componentize(const mc__be_ctx *c, mc_nbt_tag *item)
{
    int64_t count = 1;
    mc_nbt_get_integer(mc_nbt_get(item, "Count"), &count);
    mc_nbt_remove(item, "Count", 5);
    if (mc_nbt_put_int(c->doc, item, "count", (int32_t)count) != MC_OK)
        return MC_ERR_NOMEM;
    mc_nbt_tag *tag = mc_nbt_get(item, "tag");
    if (mc_nbt_tag_type(tag) != MC_NBT_COMPOUND) {
        mc_nbt_remove(item, "tag", 3);
        return MC_OK;
    }
    mc_nbt_tag *comp = get_or_put_compound(c->doc, item, "components");
    if (!comp)
        return MC_ERR_NOMEM;
    int64_t damage;
    if (mc_nbt_get_integer(mc_nbt_get(tag, "Damage"), &damage) == MC_OK) {
        if (damage && mc_nbt_put_int(c->doc, comp, "minecraft:damage", (int32_t)damage) != MC_OK)
            return MC_ERR_NOMEM;
        mc_nbt_remove(tag, "Damage", 6);
    }
    mc_nbt_tag *display = mc_nbt_get(tag, "display");
    if (mc_nbt_get(display, "Name")) {
        mc_status st = mc__be_move(c->doc, display, "Name", comp, "minecraft:custom_name");
        if (st != MC_OK)
            return st;
        if (mc_nbt_count(display) == 0)
            mc_nbt_remove(tag, "display", 7);
    }
    /* what is left keeps its data but not its meaning (enchantments, lore,
     * ...: their components differ by version) */
    for (mc_nbt_tag *k = mc_nbt_first(tag); k; k = mc_nbt_next(k))
        mc__be_lost(c, MC_BE_LOSS_ITEM_DATA);
    mc_status st = mc_nbt_count(tag) ? mc__be_move(c->doc, item, "tag", comp, "minecraft:custom_data") : MC_OK;
    mc_nbt_remove(item, "tag", 3);
    if (mc_nbt_count(comp) == 0)
        mc_nbt_remove(item, "components", 10);
    return st;
}

static mc_status decomponentize(const mc__be_ctx *c, mc_nbt_tag *item)
{
    int64_t count = 1;
    mc_nbt_get_integer(mc_nbt_get(item, "count"), &count);
    mc_nbt_remove(item, "count", 5);
    if (mc_nbt_put_byte(c->doc, item, "Count", (int8_t)(count > 127 ? 127 : count)) != MC_OK)
        return MC_ERR_NOMEM;
    mc_nbt_tag *comp = mc_nbt_get(item, "components");
    if (mc_nbt_tag_type(comp) != MC_NBT_COMPOUND) {
        mc_nbt_remove(item, "components", 10);
        return MC_OK;
    }
    mc_nbt_tag *data = mc_nbt_get(comp, "minecraft:custom_data");
    mc_nbt_tag *tag = NULL;
    if (mc_nbt_tag_type(data) == MC_NBT_COMPOUND) {
        mc_status st = mc__be_move(c->doc, comp, "minecraft:custom_data", item, "tag");
        if (st != MC_OK)
            return st;
        tag = mc_nbt_get(item, "tag");
    }
    int64_t damage;
    if (mc_nbt_get_integer(mc_nbt_get(comp, "minecraft:damage"), &damage) == MC_OK) {
        if (!tag && !(tag = mc_nbt_put_compound(c->doc, item, "tag")))
            return MC_ERR_NOMEM;
        if (mc_nbt_put_int(c->doc, tag, "Damage", (int32_t)damage) != MC_OK)
            return MC_ERR_NOMEM;
        mc_nbt_remove(comp, "minecraft:damage", 16);
    }
    if (mc_nbt_get(comp, "minecraft:custom_name")) {
        if (!tag && !(tag = mc_nbt_put_compound(c->doc, item, "tag")))
            return MC_ERR_NOMEM;
        mc_nbt_tag *display = get_or_put_compound(c->doc, tag, "display");
        mc_status st = display ? mc__be_move(c->doc, comp, "minecraft:custom_name", display, "Name") : MC_ERR_NOMEM;
        if (st != MC_OK)
            return st;
    }
    for (mc_nbt_tag *k = mc_nbt_first(comp); k; k = mc_nbt_next(k))
        mc__be_lost(c, MC_BE_LOSS_ITEM_DATA); /* components without a tag form here */
    mc_nbt_remove(item, "components", 10);
    return MC_OK;
}

bool mc__item_translate(const mc__be_ctx *c, mc_nbt_tag *item)
{
    char name[128];
    if (mc_nbt_tag_type(item) != MC_NBT_COMPOUND || !mc__be_string(mc_nbt_get(item, "id"), name, sizeof name))
        return false; /* numeric ids (before 1.8) and malformed stacks */
    if (!strncmp(name, "minecraft:", 10))
        memmove(name, name + 10, strlen(name + 10) + 1);
    /* the custom name into the target's form where the source keeps it;
     * the forms below only move it */
    mc_status st = c->from_dv < MC__BE_DV_COMPONENTS
                       ? name_translate(c, mc_nbt_get(mc_nbt_get(item, "tag"), "display"), "Name")
                       : name_translate(c, mc_nbt_get(item, "components"), "minecraft:custom_name");
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_COMPONENTS))
        st = decomponentize(c, item);
    if (st != MC_OK)
        return false;
    if (mc__be_up(c, MC__BE_DV_FLATTENING) && !flatten(c, item, name, sizeof name))
        return false;
    for (size_t i = 0; i < NRENAMES; i++)
        if (mc__be_up(c, item_renames[i].dv) && !strcmp(name, item_renames[i].old))
            snprintf(name, sizeof name, "%s", item_renames[i].now);
    for (size_t i = NRENAMES; i-- > 0;)
        if (mc__be_down(c, item_renames[i].dv) && !strcmp(name, item_renames[i].now))
            snprintf(name, sizeof name, "%s", item_renames[i].old);
    if (mc__be_down(c, MC__BE_DV_FLATTENING) && !unflatten(c, item, name, sizeof name))
        return false;
    /* an older target may lack a newer item (items are not removed later) */
    if (c->to_dv < c->from_dv && c->to_dv >= MC__BE_DV_FLATTENING && !item_exists(name, c->to_dv))
        return false;
    if (mc__be_up(c, MC__BE_DV_COMPONENTS) && componentize(c, item) != MC_OK)
        return false;
    char id[160];
    snprintf(id, sizeof id, "minecraft:%s", name);
    return mc_nbt_put_string(c->doc, item, "id", id, strlen(id)) == MC_OK;
}

mc_status mc__items_translate(const mc__be_ctx *c, mc_nbt_tag *list)
{
    if (mc_nbt_tag_type(list) != MC_NBT_LIST)
        return MC_OK;
    size_t i = 0;
    for (mc_nbt_tag *it = mc_nbt_first(list); it;) {
        mc_nbt_tag *next = mc_nbt_next(it);
        if (!mc__item_translate(c, it)) {
            mc__be_lost(c, MC_BE_LOSS_ITEM);
            if (mc_nbt_list_remove(list, i) != MC_OK)
                return MC_ERR_NOMEM;
        } else {
            i++;
        }
        it = next;
    }
    return MC_OK;
}
