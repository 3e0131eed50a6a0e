/*
 * blockentity_java.c: Bedrock block entities as Java ones, in the Java
 * target version's shape, together with the block states they decide.
 *
 * The idea: the Java block entity is built once, in the shape of the
 * newest Java release with a registry (the pivot), and its block there is
 * decided from the Bedrock fields; then mc_block_entity_translate
 * (src/chunk/blockentity.c) takes both down to the target's DataVersion,
 * so each version shape (1.8-1.19 Text1..4, 1.20 front_text/back_text,
 * JSON or 1.21.5+ NBT text, pre-1.13 colours and kinds in the block
 * entity, 1.20.5 banner patterns by id, ...) is written in one place, the
 * same one Java -> Java translation uses.
 *
 * Bedrock fields read (the Minecraft wiki's "Bedrock Edition level
 * format/Block entity format" page; the forward rules in blockentity.c):
 *   Sign, HangingSign  FrontText/BackText {Text, SignTextColor,
 *               IgnoreLighting}, or before 1.19.80 the top-level Text,
 *               SignTextColor, IgnoreLighting (front side); IsWaxed. Text
 *               is split at "\n" into 4 lines (more are dropped and counted
 *               as sign text); the colour is the dye whose Java text colour
 *               is nearest; -> front_text/back_text {messages, color,
 *               has_glowing_text}, is_waxed;
 *   Bed         color (the dye id) -> the <dye>_bed block;
 *   Banner      Base and Patterns [{Pattern, Color}] in Bedrock's colour
 *               numbering (15 - the Java dye id) -> the <dye>_banner or
 *               <dye>_wall_banner block and patterns [{pattern, color}];
 *               unknown codes are dropped and counted; Type 1 (ominous)
 *               is counted as a field;
 *   Skull       the kind from SkullType (skeleton 0, wither 1, zombie 2,
 *               player 3, creeper 4, dragon 5, piglin 6), else from the
 *               block (Bedrock 1.20.50+ has one per kind); Rotation
 *               (degrees) -> the skull or head block
 *               (standing: rotation = degrees / 22.5; on a wall: its
 *               facing; an old "skull" block's facing_direction: 1
 *               standing, 2-5 north/south/west/east);
 *   FlowerPot   PlantBlock {name, states} -> the potted_<plant> block (a
 *               plant Java cannot pot: an empty pot, counted as a variant);
 *   Chest       pairx/pairz -> type=left/right of the chest block (the
 *               left half pairs with the block clockwise of its facing);
 *   MobSpawner  EntityIdentifier -> SpawnData.entity.id;
 *   any         CustomName (plain text); Items [{Slot, Name, Count}] ->
 *               [{Slot, id, count}] where Java has an item of that name
 *               (mc_java_item_exists); other stacks are dropped and counted
 *               as items; Damage and tag data are dropped and counted as
 *               item data.
 * Every other field is dropped; a Bedrock id without a Java block entity
 * loses the block entity (counted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"
#include "mcchunk/translate.h"

/* ------------------------------------------------------------ context */

static int32_t newest_data_version(const mc_registry *reg)
{
    int32_t dv = -1;
    mc_version_info vi;
    for (size_t i = 0; mc_java_version_at(i, &vi); i++)
        if (vi.registry == reg)
            dv = vi.data_version;
    return dv;
}

bool mc__bedrock_to_java_init(mc__bedrock_to_java *t, const mc_registry *bedrock, const mc_registry *target,
                              struct mc_be_report *report)
{
    memset(t, 0, sizeof *t);
    if (!bedrock || !target || mc_registry_edition(target) != MC_EDITION_JAVA)
        return false;
    mc_version_info vi;
    for (size_t i = 0; mc_java_version_at(i, &vi); i++)
        if (vi.registry) {
            t->pivot = vi.registry;
            t->pivot_dv = vi.data_version;
        }
    t->bedrock = bedrock;
    t->target = target;
    t->target_dv = newest_data_version(target);
    t->report = report;
    t->to_pivot = mc_registry_map(bedrock, t->pivot);
    t->pivot_to_target = t->pivot == target ? NULL : mc_registry_map(t->pivot, target);
    return t->pivot && t->target_dv >= 0 && t->to_pivot && (t->pivot == target || t->pivot_to_target);
}

typedef struct jb {
    const mc__bedrock_to_java *t;
    const mc_nbt_tag *be;  /* the Bedrock compound */
    uint32_t bstate;       /* its block (Bedrock registry) */
    mc_nbt_doc *doc;       /* scratch */
    mc_nbt_tag *out;       /* the Java compound in the pivot's shape */
    uint32_t state;        /* its block (pivot registry) */
    bool decides;          /* the block entity decides the block */
    mc_status st;
} jb;

static void ok(jb *j, mc_status st)
{
    if (j->st == MC_OK && st != MC_OK)
        j->st = st;
}

static void lost(const jb *j, mc_be_loss kind)
{
    if (j->t->report)
        j->t->report->lost[kind]++;
}

static int64_t get_int(const mc_nbt_tag *compound, const char *key, int64_t dflt)
{
    int64_t v;
    return mc_nbt_get_integer(mc_nbt_get(compound, key), &v) == MC_OK ? v : dflt;
}

/* The pivot block `name` (with "minecraft:") with the properties of the
 * current state it has, and `key`=`value` when key is not NULL. */
static void set_block(jb *j, const char *name, const char *key, const char *value)
{
    const mc_registry *reg = j->t->pivot;
    mc_state_prop props[16];
    unsigned n = mc_registry_state_prop_count(reg, j->state), k = 0;
    for (unsigned i = 0; i < n && k < 16; i++) {
        const char *pk, *pv;
        if (!mc_registry_state_prop(reg, j->state, i, &pk, &pv))
            continue;
        if (key && !strcmp(pk, key))
            pv = value;
        props[k++] = (mc_state_prop){pk, strlen(pk), pv, strlen(pv)};
    }
    if (key && !mc_registry_state_prop_value(reg, j->state, key) && k < 16)
        props[k++] = (mc_state_prop){key, strlen(key), value, strlen(value)};
    uint32_t s;
    if (mc_registry_lookup(reg, name, strlen(name), props, k, &s, NULL) != MC_OK) {
        s = mc_registry_default_state(reg, name); /* a property it lacks */
        if (s != MC_STATE_NONE && key) {
            uint32_t with;
            mc_state_prop one = {key, strlen(key), value, strlen(value)};
            if (mc_registry_lookup(reg, name, strlen(name), &one, 1, &with, NULL) == MC_OK)
                s = with;
        }
    }
    if (s != MC_STATE_NONE) {
        j->state = s;
        j->decides = true;
    }
}

static bool block_has(const jb *j, const char *part)
{
    const char *n = mc_registry_state_name(j->t->pivot, j->state);
    return n && strstr(n, part);
}

/* Bedrock strings are bytes; Java NBT holds (modified) UTF-8 only: each
 * byte sequence that is not UTF-8 becomes U+FFFD. */
static void put_utf8_clean(mc_buf *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (s[i + k] & 0xC0) == 0x80;
        if (ok && len == 3) /* no overlong forms, no surrogates */
            ok = !(c == 0xE0 && s[i + 1] < 0xA0) && !(c == 0xED && s[i + 1] >= 0xA0);
        if (ok && len == 4) /* no overlong forms, nothing past U+10FFFF */
            ok = !(c == 0xF0 && s[i + 1] < 0x90) && !(c == 0xF4 && s[i + 1] >= 0x90);
        if (ok) {
            mc_buf_put(out, s + i, len);
            i += len;
        } else {
            mc_buf_put(out, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
}

/* A string tag (or list element when key is NULL: `dst` is then the
 * element) from Bedrock bytes. */
static void put_string(jb *j, mc_nbt_tag *dst, const char *key, const char *str, size_t n)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    put_utf8_clean(&b, str, n);
    const char *t = b.data ? (const char *)b.data : "";
    if (!mc_buf_ok(&b))
        ok(j, MC_ERR_NOMEM);
    else if (key)
        ok(j, mc_nbt_put_string(j->doc, dst, key, t, b.len));
    else
        ok(j, mc_nbt_set_string(j->doc, dst, t, b.len));
    mc_buf_free(&b);
}

/* -------------------------------------------------------------- kinds */

/* One side: Text split into 4 plain lines (NBT text at the pivot). */
static void sign_side(jb *j, const mc_nbt_tag *src, const char *key)
{
    const char *text = "";
    size_t n = 0;
    mc_nbt_get_string(mc_nbt_get(src, "Text"), &text, &n);
    mc_nbt_tag *side = mc_nbt_put_compound(j->doc, j->out, key);
    mc_nbt_tag *msgs = side ? mc_nbt_put_list(j->doc, side, "messages", MC_NBT_STRING) : NULL;
    if (!msgs) {
        ok(j, MC_ERR_NOMEM);
        return;
    }
    size_t at = 0;
    for (int line = 0; line < 4; line++) {
        size_t end = at;
        while (end < n && text[end] != '\n')
            end++;
        mc_nbt_tag *m = mc_nbt_list_append(j->doc, msgs, MC_NBT_STRING);
        if (m)
            put_string(j, m, NULL, text + at, end - at);
        else
            ok(j, MC_ERR_NOMEM);
        at = end < n ? end + 1 : n;
    }
    if (at < n)
        lost(j, MC_BE_LOSS_TEXT); /* a fifth line and more */
    int64_t argb = get_int(src, "SignTextColor", (int32_t)0xFF000000u);
    const char *color = mc__bedrock_dye_name(mc__bedrock_dye_of_text_color((uint32_t)argb));
    ok(j, mc_nbt_put_string(j->doc, side, "color", color, strlen(color)));
    ok(j, mc_nbt_put_byte(j->doc, side, "has_glowing_text", get_int(src, "IgnoreLighting", 0) != 0));
}

static void sign(jb *j)
{
    const mc_nbt_tag *front = mc_nbt_get(j->be, "FrontText");
    sign_side(j, front ? front : j->be, "front_text"); /* before 1.19.80: top level */
    sign_side(j, mc_nbt_get(j->be, "BackText"), "back_text");
    ok(j, mc_nbt_put_byte(j->doc, j->out, "is_waxed", get_int(j->be, "IsWaxed", 0) != 0));
}

static void bed(jb *j)
{
    const char *dye = mc__bedrock_dye_name((int)(get_int(j->be, "color", 14) & 15));
    char name[64];
    snprintf(name, sizeof name, "minecraft:%s_bed", dye);
    set_block(j, name, NULL, NULL);
}

static void banner(jb *j)
{
    const char *dye = mc__bedrock_dye_name(15 - (int)(get_int(j->be, "Base", 15) & 15));
    char name[64];
    snprintf(name, sizeof name, "minecraft:%s_%s", dye, block_has(j, "wall_banner") ? "wall_banner" : "banner");
    set_block(j, name, NULL, NULL);
    if (get_int(j->be, "Type", 0) != 0)
        lost(j, MC_BE_LOSS_FIELD); /* the ominous banner's kind */
    const mc_nbt_tag *pats = mc_nbt_get(j->be, "Patterns");
    if (!mc_nbt_count(pats))
        return;
    mc_nbt_tag *list = mc_nbt_put_list(j->doc, j->out, "patterns", MC_NBT_COMPOUND);
    if (!list) {
        ok(j, MC_ERR_NOMEM);
        return;
    }
    for (const mc_nbt_tag *p = mc_nbt_first(pats); p; p = mc_nbt_next(p)) {
        const char *code, *pname = NULL;
        size_t n;
        if (mc_nbt_get_string(mc_nbt_get(p, "Pattern"), &code, &n) == MC_OK)
            pname = mc__bedrock_pattern_name(code, n);
        if (!pname) {
            lost(j, MC_BE_LOSS_PATTERN);
            continue;
        }
        char id[64];
        snprintf(id, sizeof id, "minecraft:%s", pname);
        const char *color = mc__bedrock_dye_name(15 - (int)(get_int(p, "Color", 0) & 15));
        mc_nbt_tag *e = mc_nbt_list_append(j->doc, list, MC_NBT_COMPOUND);
        ok(j, e ? mc_nbt_put_string(j->doc, e, "pattern", id, strlen(id)) : MC_ERR_NOMEM);
        ok(j, e ? mc_nbt_put_string(j->doc, e, "color", color, strlen(color)) : MC_ERR_NOMEM);
    }
}

static void skull(jb *j)
{
    static const char *const kinds[7][2] = {
        {"skeleton_skull", "skeleton_wall_skull"}, {"wither_skeleton_skull", "wither_skeleton_wall_skull"},
        {"zombie_head", "zombie_wall_head"},       {"player_head", "player_wall_head"},
        {"creeper_head", "creeper_wall_head"},     {"dragon_head", "dragon_wall_head"},
        {"piglin_head", "piglin_wall_head"},
    };
    /* SkullType first (our Java -> Bedrock side writes it beside the block
     * the state map gives, which for a 1.8-1.12 skull is a skeleton
     * skull), else the block (Bedrock 1.20.50+ has one per kind) */
    int64_t type = get_int(j->be, "SkullType", -1);
    for (int k = 0; type < 0 && k < 7; k++)
        for (int w = 0; w < 2; w++) {
            char n[64];
            snprintf(n, sizeof n, "minecraft:%s", kinds[k][w]);
            const char *have = mc_registry_state_name(j->t->pivot, j->state);
            if (have && !strcmp(have, n))
                type = k;
        }
    if (type < 0 || type > 6) {
        lost(j, MC_BE_LOSS_VARIANT);
        type = 0;
    }
    bool is_skull = block_has(j, "_skull") || block_has(j, "_head");
    const char *fd = mc_registry_state_prop_value(j->t->bedrock, j->bstate, "facing_direction");
    bool wall = is_skull ? block_has(j, "_wall_") : fd && atoi(fd) >= 2;
    char name[64];
    snprintf(name, sizeof name, "minecraft:%s", kinds[type][wall]);
    if (wall) {
        static const char *const facings[6] = {"north", "north", "north", "south", "west", "east"};
        const char *f = is_skull ? mc_registry_state_prop_value(j->t->pivot, j->state, "facing") : NULL;
        set_block(j, name, "facing", f ? f : facings[fd ? atoi(fd) % 6 : 2]);
    } else {
        double deg = 0;
        float fr;
        if (mc_nbt_get_float(mc_nbt_get(j->be, "Rotation"), &fr) == MC_OK && isfinite(fr))
            deg = fr;
        long r = lround(fmod(deg, 360.0) / 22.5);
        char rot[8];
        snprintf(rot, sizeof rot, "%ld", ((r % 16) + 16) % 16);
        set_block(j, name, "rotation", rot);
    }
}

/* The potted block of PlantBlock {name, states} (a Bedrock state). */
static void pot(jb *j)
{
    const mc_nbt_tag *plant = mc_nbt_get(j->be, "PlantBlock");
    const char *pn;
    size_t pl;
    if (mc_nbt_tag_type(plant) != MC_NBT_COMPOUND || mc_nbt_get_string(mc_nbt_get(plant, "name"), &pn, &pl) != MC_OK ||
        (pl == 13 && !memcmp(pn, "minecraft:air", 13))) {
        set_block(j, "minecraft:flower_pot", NULL, NULL);
        return;
    }
    mc_buf b;
    mc_buf_init(&b, NULL);
    uint32_t bs = MC_STATE_NONE, ps = MC_STATE_NONE;
    if (mc_nbt_write_tag(plant, "", 0, MC_NBT_BEDROCK_NETWORK, &b, NULL) == MC_OK &&
        mc_bedrock_state_from_nbt(j->t->bedrock, b.data, b.len, true, &bs, NULL) == MC_OK)
        ps = mc_registry_map_apply(j->t->to_pivot, mc_registry_state_count(j->t->bedrock), bs, MC_STATE_NONE);
    mc_buf_free(&b);
    const char *java = ps != MC_STATE_NONE ? mc_registry_state_name(j->t->pivot, ps) : NULL;
    char name[96];
    snprintf(name, sizeof name, "minecraft:potted_%s", java && !strncmp(java, "minecraft:", 10) ? java + 10 : "?");
    if (!java || mc_registry_default_state(j->t->pivot, name) == MC_STATE_NONE) {
        lost(j, MC_BE_LOSS_VARIANT); /* a plant Java cannot pot */
        snprintf(name, sizeof name, "minecraft:flower_pot");
    }
    set_block(j, name, NULL, NULL);
}

static void chest(jb *j, int32_t x, int32_t z)
{
    static const char *const dirs[4] = {"north", "east", "south", "west"};
    static const int dx[4] = {0, 1, 0, -1}, dz[4] = {-1, 0, 1, 0};
    const char *facing = mc_registry_state_prop_value(j->t->pivot, j->state, "facing");
    int64_t px = get_int(j->be, "pairx", INT64_MIN), pz = get_int(j->be, "pairz", INT64_MIN);
    if (!facing || !mc_registry_state_prop_value(j->t->pivot, j->state, "type") || px == INT64_MIN ||
        pz == INT64_MIN)
        return;
    for (int f = 0; f < 4; f++) {
        if (strcmp(facing, dirs[f]))
            continue;
        int left = (f + 1) & 3, right = (f + 3) & 3;
        const char *name = mc_registry_state_name(j->t->pivot, j->state);
        if (px == x + dx[left] && pz == z + dz[left])
            set_block(j, name, "type", "left");
        else if (px == x + dx[right] && pz == z + dz[right])
            set_block(j, name, "type", "right");
    }
}

static void spawner(jb *j)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(j->be, "EntityIdentifier"), &s, &n) != MC_OK || !n)
        return;
    mc_nbt_tag *sd = mc_nbt_put_compound(j->doc, j->out, "SpawnData");
    mc_nbt_tag *e = sd ? mc_nbt_put_compound(j->doc, sd, "entity") : NULL;
    if (e)
        put_string(j, e, "id", s, n);
    else
        ok(j, MC_ERR_NOMEM);
}

/* Items [{Slot, Name, Count, Damage, tag}] -> [{Slot, id, count}]. */
static void items(jb *j)
{
    const mc_nbt_tag *src = mc_nbt_get(j->be, "Items");
    if (mc_nbt_tag_type(src) != MC_NBT_LIST)
        return;
    mc_nbt_tag *list = mc_nbt_put_list(j->doc, j->out, "Items", MC_NBT_COMPOUND);
    if (!list) {
        ok(j, MC_ERR_NOMEM);
        return;
    }
    for (const mc_nbt_tag *it = mc_nbt_first(src); it; it = mc_nbt_next(it)) {
        char name[128];
        const char *s;
        size_t n;
        int64_t count = get_int(it, "Count", 0);
        if (mc_nbt_get_string(mc_nbt_get(it, "Name"), &s, &n) != MC_OK || n >= sizeof name || count <= 0)
            continue; /* empty slots */
        snprintf(name, sizeof name, "%.*s", (int)n, s);
        if (!mc_java_item_exists(name, j->t->pivot_dv)) {
            lost(j, MC_BE_LOSS_ITEM);
            continue;
        }
        if (get_int(it, "Damage", 0) != 0 || mc_nbt_get(it, "tag"))
            lost(j, MC_BE_LOSS_ITEM_DATA);
        char id[140];
        snprintf(id, sizeof id, "%s%s", strncmp(name, "minecraft:", 10) ? "minecraft:" : "", name);
        mc_nbt_tag *e = mc_nbt_list_append(j->doc, list, MC_NBT_COMPOUND);
        ok(j, e ? mc_nbt_put_byte(j->doc, e, "Slot", (int8_t)get_int(it, "Slot", 0)) : MC_ERR_NOMEM);
        ok(j, e ? mc_nbt_put_string(j->doc, e, "id", id, strlen(id)) : MC_ERR_NOMEM);
        ok(j, e ? mc_nbt_put_int(j->doc, e, "count", (int32_t)count) : MC_ERR_NOMEM);
    }
}

/* ------------------------------------------------------------- entry */

/* The pivot-shape compound of `be` into j->out (NULL when Java keeps no
 * block entity there at the pivot: pots); false when Java has none. */
static bool build(jb *j, int32_t x, int32_t z)
{
    const char *bid;
    size_t bl;
    if (mc_nbt_get_string(mc_nbt_get(j->be, "id"), &bid, &bl) != MC_OK)
        return false;
    if (bl == 9 && !memcmp(bid, "FlowerPot", 9)) {
        pot(j);
        return true;
    }
    const char *jid = mc_bedrock_block_entity_java_id(bid, bl);
    if (!jid)
        return false;
    j->out = mc_nbt_doc_new_root(j->doc, MC_NBT_COMPOUND);
    if (!j->out) {
        ok(j, MC_ERR_NOMEM);
        return true;
    }
    ok(j, mc_nbt_put_string(j->doc, j->out, "id", jid, strlen(jid)));
    const char *name;
    size_t nl;
    if (mc_nbt_get_string(mc_nbt_get(j->be, "CustomName"), &name, &nl) == MC_OK && nl)
        put_string(j, j->out, "CustomName", name, nl);
    items(j);
    const char *k = jid + 10;
    if (!strcmp(k, "sign") || !strcmp(k, "hanging_sign"))
        sign(j);
    else if (!strcmp(k, "bed"))
        bed(j);
    else if (!strcmp(k, "banner"))
        banner(j);
    else if (!strcmp(k, "skull"))
        skull(j);
    else if (!strcmp(k, "chest"))
        chest(j, x, z);
    else if (!strcmp(k, "mob_spawner"))
        spawner(j);
    return true;
}

mc_status mc__bedrock_be_to_java(const mc__bedrock_to_java *t, const mc_nbt_tag *be, int32_t x, int32_t y,
                                 int32_t z, uint32_t bedrock_state, uint32_t *target_state, mc_nbt_doc *doc,
                                 mc_nbt_tag **out)
{
    *out = NULL;
    if (mc_nbt_tag_type(be) != MC_NBT_COMPOUND)
        return MC_OK;
    jb j;
    memset(&j, 0, sizeof j);
    j.t = t;
    j.be = be;
    j.bstate = bedrock_state;
    j.state = mc_registry_map_apply(t->to_pivot, mc_registry_state_count(t->bedrock), bedrock_state,
                                    mc_registry_air(t->pivot));
    j.doc = mc_nbt_doc_new(NULL);
    if (!j.doc)
        return MC_ERR_NOMEM;
    if (!build(&j, x, z)) {
        if (t->report)
            t->report->lost[MC_BE_LOSS_BLOCK_ENTITY]++;
        mc_nbt_doc_free(j.doc);
        return MC_OK;
    }
    mc_status st = j.st;
    uint32_t to = *target_state;
    if (j.decides)
        to = t->pivot_to_target ? mc_registry_map_apply(t->pivot_to_target, mc_registry_state_count(t->pivot),
                                                        j.state, mc_registry_air(t->target))
                                : j.state;
    mc_be_translation tr = {t->pivot, t->target, t->pivot_dv, t->target_dv, t->report};
    /* a pot has no block entity at the pivot; older targets may make one */
    if (st == MC_OK && (j.out || mc_block_entity_needed(&tr, j.state)))
        st = mc_block_entity_translate(&tr, j.out, x, y, z, j.state, &to, doc, out);
    else if (st == MC_OK && t->report)
        t->report->folded++;
    if (st == MC_OK)
        *target_state = to;
    mc_nbt_doc_free(j.doc);
    return st;
}
