/*
 * blockentity.c: a block entity from the chunk NBT of one DataVersion to
 * another (include/mcchunk/translate.h lists what is carried).
 *
 * The game upgrades old data through a chain of DataFixer steps, each at
 * the DataVersion where the format changed. A translation here walks the
 * same steps: upwards in the game's order, downwards in reverse with each
 * step undone, so a fact is written once, at its DataVersion, and a round
 * trip A -> B -> A passes the same steps both ways. Per kind one function
 * lists its steps in order (the ups ascending, then the downs descending;
 * one walk only ever goes one way).
 *
 * Some blocks are a block state and a block entity together: before 1.13 a
 * bed's colour, a banner's base colour, a skull's kind and rotation, a
 * pot's plant and a note block's note lived in the block entity; the
 * flattening step moves them into the block state (or back), so these
 * steps read and change the block state beside the compound.
 */
#include "chunk/chunk_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- kinds */

/* Block entity kinds: the id (1.11+ form, without "minecraft:"), the
 * 1.8-1.10 id, and the DataVersions of the first release with it and of
 * the one that removed it (0: still there). */
static const struct be_kind {
    const char *id, *old;
    int32_t since, gone;
} be_kinds[] = {
    {"banner", "Banner", 0, 0},           {"beacon", "Beacon", 0, 0},
    {"brewing_stand", "Cauldron", 0, 0},  {"chest", "Chest", 0, 0},
    {"comparator", "Comparator", 0, 0},   {"command_block", "Control", 0, 0},
    {"daylight_detector", "DLDetector", 0, 0}, {"dropper", "Dropper", 0, 0},
    {"enchanting_table", "EnchantTable", 0, 0}, {"end_gateway", "EndGateway", 0, 0},
    {"ender_chest", "EnderChest", 0, 0},  {"flower_pot", "FlowerPot", 0, MC__BE_DV_FLATTENING},
    {"furnace", "Furnace", 0, 0},         {"hopper", "Hopper", 0, 0},
    {"mob_spawner", "MobSpawner", 0, 0},  {"noteblock", "Music", 0, MC__BE_DV_FLATTENING},
    {"piston", "Piston", 0, 0},           {"jukebox", "RecordPlayer", 0, 0},
    {"sign", "Sign", 0, 0},               {"skull", "Skull", 0, 0},
    {"structure_block", "Structure", 0, 0}, {"dispenser", "Trap", 0, 0},
    {"end_portal", "Airportal", 0, 0},
    {"shulker_box", NULL, 808, 0},        /* 1.11 */
    {"bed", NULL, MC__BE_DV_BED, 0},      /* 1.12 */
    {"trapped_chest", NULL, MC__BE_DV_FLATTENING, 0},
    {"conduit", NULL, 1481, 0},           /* 1.13 */
    {"barrel", NULL, 1906, 0},            {"smoker", NULL, 1906, 0}, /* 1.14 */
    {"blast_furnace", NULL, 1906, 0},     {"lectern", NULL, 1906, 0},
    {"bell", NULL, 1906, 0},              {"jigsaw", NULL, 1909, 0},
    {"campfire", NULL, 1920, 0},
    {"beehive", NULL, 2100, 0},           /* 1.15 */
    {"sculk_sensor", NULL, 2684, 0},      /* 1.17 */
    {"sculk_catalyst", NULL, 3076, 0},    {"sculk_shrieker", NULL, 3078, 0}, /* 1.19 */
    {"hanging_sign", NULL, 3202, 0},      {"chiseled_bookshelf", NULL, 3204, 0}, /* 1.19.3 */
    {"decorated_pot", NULL, 3327, 0},     {"suspicious_sand", NULL, 3327, 3438}, /* 1.19.4 */
    {"brushable_block", NULL, 3438, 0},   {"calibrated_sculk_sensor", NULL, 3438, 0}, /* 1.20 */
    {"crafter", NULL, 3682, 0},           {"trial_spawner", NULL, 3689, 0}, /* 1.20.3 */
    {"vault", NULL, 3807, 0},             /* 1.20.5 */
    {"creaking_heart", NULL, 4071, 0},    /* 1.21.4 */
    {"test_block", NULL, 4302, 0},        {"test_instance_block", NULL, 4302, 0}, /* 1.21.5 */
    {"copper_golem_statue", NULL, 4532, 0}, {"shelf", NULL, 4533, 0}, /* 1.21.9 */
};
#define NKINDS (sizeof be_kinds / sizeof be_kinds[0])

/* (the first letters compared before the names: this is asked three
 * times of every block entity a conversion meets) */
static const struct be_kind *kind_of(const char *id)
{
    for (size_t i = 0; i < NKINDS; i++)
        if ((be_kinds[i].id[0] == id[0] && !strcmp(be_kinds[i].id, id)) ||
            (be_kinds[i].old && be_kinds[i].old[0] == id[0] && !strcmp(be_kinds[i].old, id)))
            return &be_kinds[i];
    return NULL;
}

/* a then b into dst of cap bytes, cut to fit as snprintf "%s%s" cuts (a
 * printf per block entity was a fifth of translating one) */
static void join(char *dst, size_t cap, const char *a, const char *b)
{
    size_t n = 0;
    for (const char *s = a; *s && n + 1 < cap; s++)
        dst[n++] = *s;
    for (const char *s = b; *s && n + 1 < cap; s++)
        dst[n++] = *s;
    if (cap)
        dst[n] = '\0';
}

static bool kind_exists(const struct be_kind *k, int32_t dv)
{
    return dv >= k->since && (k->gone == 0 || dv < k->gone);
}

/* 1.13 dye ids (the numbering of banners and beds from 1.13, and of beds in
 * 1.12); before 1.13 banners number them backwards (15 - id). */
static const char *const dyes[16] = {"white", "orange", "magenta", "light_blue", "yellow", "lime",
                                     "pink", "gray", "light_gray", "cyan", "purple", "blue",
                                     "brown", "green", "red", "black"};

/* The dye a colour-prefixed block name starts with ("light_blue_bed"), or -1. */
static int dye_prefix(const char *name, const char *suffix)
{
    const size_t n = strlen(name), sn = strlen(suffix);
    for (int d = 0; d < 16; d++) {
        const size_t dn = strlen(dyes[d]);
        if (n == dn + sn && !strncmp(name, dyes[d], dn) && !strcmp(name + dn, suffix))
            return d;
    }
    return -1;
}

/* ---------------------------------------------------------- NBT helpers */

mc_status mc__be_rename(mc_nbt_doc *doc, mc_nbt_tag *compound, const char *from, const char *to)
{
    return mc__be_move(doc, compound, from, compound, to);
}

static int64_t get_int(const mc_nbt_tag *compound, const char *key, int64_t dflt)
{
    int64_t v;
    return mc_nbt_get_integer(mc_nbt_get(compound, key), &v) == MC_OK ? v : dflt;
}

static void drop_key(mc_nbt_tag *compound, const char *key)
{
    mc_nbt_remove(compound, key, strlen(key));
}

/* -------------------------------------------------------- state helpers */

/* The block name of a state without "minecraft:" into buf ("" if none). */
static const char *block_name(const mc_registry *reg, uint32_t state, char *buf, size_t cap)
{
    const char *n = mc_registry_state_name(reg, state);
    if (!n)
        n = "";
    if (!strncmp(n, "minecraft:", 10))
        n += 10;
    join(buf, cap, "", n);
    return buf;
}

/* `state` with property `key` set to `value` (when `key` is not NULL) and
 * its block renamed to `name` (when not NULL): the properties the new
 * block has keep their values. MC_STATE_NONE when there is no such state. */
static uint32_t state_change(const mc_registry *reg, uint32_t state, const char *name, const char *key,
                             const char *value)
{
    char block[128];
    if (!name)
        name = block_name(reg, state, block, sizeof block);
    mc_state_prop props[16];
    unsigned n = mc_registry_state_prop_count(reg, state), k = 0;
    bool set = false;
    for (unsigned i = 0; i < n && k < 16; i++) {
        const char *pk, *pv;
        if (!mc_registry_state_prop(reg, state, i, &pk, &pv))
            continue;
        if (key && !strcmp(pk, key)) {
            pv = value;
            set = true;
        }
        props[k++] = (mc_state_prop){pk, strlen(pk), pv, strlen(pv)};
    }
    if (key && !set && k < 16)
        props[k++] = (mc_state_prop){key, strlen(key), value, strlen(value)};
    uint32_t out;
    if (mc_registry_lookup(reg, name, strlen(name), props, k, &out, NULL) == MC_OK)
        return out;
    /* a property the new block lacks: its default with what still fits */
    uint32_t d = mc_registry_default_state(reg, name);
    for (unsigned i = 0; d != MC_STATE_NONE && i < k; i++) {
        uint32_t t;
        if (mc_registry_lookup(reg, name, strlen(name), &props[i], 1, &t, NULL) == MC_OK) {
            char v[64];
            snprintf(v, sizeof v, "%.*s", (int)props[i].value_len, props[i].value);
            char pk[64];
            snprintf(pk, sizeof pk, "%.*s", (int)props[i].key_len, props[i].key);
            uint32_t with = state_change(reg, d, name, pk, v);
            if (with != MC_STATE_NONE && with != d)
                d = with;
        }
    }
    return d;
}

static const char *prop(const mc_registry *reg, uint32_t state, const char *key)
{
    return mc_registry_state_prop_value(reg, state, key);
}

/* Down across the flattening, a block whose colour or kind the block
 * entity now carries: the target block is that of the variant 1.12 had
 * one id for (white banners, red beds, skeleton skulls), renamed as
 * `variant` with the source's properties (and `key`=`value`). */
static void variant_down(mc__be_ctx *c, const char *variant, const char *key, const char *value)
{
    const uint32_t v = state_change(c->from, c->from_state, variant, key, value);
    const uint32_t *map = v != MC_STATE_NONE ? mc_registry_map(c->from, c->to) : NULL;
    if (map && v < mc_registry_state_count(c->from))
        c->to_state = map[v];
}

/* ----------------------------------------------------------- text keys */

/* CustomName: plain before 1.13, JSON text, NBT from 1.21.5. */
static mc_status custom_name(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *name = mc_nbt_get(be, "CustomName");
    if (!name)
        return MC_OK;
    char plain[1024];
    if (mc__be_up(c, MC__BE_DV_NAME_COMPONENT) && mc__be_string(name, plain, sizeof plain))
        return mc__text_put_plain(c, be, "CustomName", plain, strlen(plain));
    if (mc__be_down(c, MC__BE_DV_NAME_COMPONENT)) {
        mc__text_plain(name, plain, sizeof plain);
        return mc_nbt_put_string(c->doc, be, "CustomName", plain, strlen(plain));
    }
    return mc__text_put(c, be, "CustomName", name);
}

/* ---------------------------------------------------------------- signs */

static const char *const sign_lines[4] = {"Text1", "Text2", "Text3", "Text4"};
/* Sign text colours came with 1.14, glowing text with 1.17 (the releases'
 * DataVersions: the game added the keys without a DataFixer step). */
#define SIGN_DV_COLOR 1952
#define SIGN_DV_GLOW 2724

/* The lines of a side: messages[0..3] of a 1.20+ side, or Text1..4. */
static void side_lines(const mc_nbt_tag *side, const mc_nbt_tag *lines[4])
{
    mc_nbt_tag *m = mc_nbt_get(side, "messages");
    for (size_t i = 0; i < 4; i++)
        lines[i] = mc_nbt_list_at(m, i);
}

/* Rewrites a 1.20+ side's lists of lines in the target's text form. */
static mc_status side_text_form(const mc__be_ctx *c, mc_nbt_tag *side, const char *key)
{
    mc_nbt_tag *old = mc_nbt_get(side, key);
    if (mc_nbt_tag_type(old) != MC_NBT_LIST)
        return MC_OK;
    /* the new list beside the old one (its lines are read while written) */
    mc_nbt_tag *fresh = mc_nbt_put_list(c->doc, side, "mcchunk:lines", MC_NBT_END);
    const mc_nbt_tag *lines[4] = {0};
    for (size_t i = 0; i < 4; i++)
        lines[i] = mc_nbt_list_at(old, i);
    mc_status st = fresh ? mc__text_put_list(c, fresh, lines, 4) : MC_ERR_NOMEM;
    if (st == MC_OK) {
        drop_key(side, key);
        st = mc__be_rename(c->doc, side, "mcchunk:lines", key);
    }
    return st;
}

/* Text1..4, Color, GlowingText -> front_text/back_text/is_waxed (1.20). */
static mc_status sign_sides_up(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *front = mc_nbt_put_compound(c->doc, be, "front_text");
    mc_nbt_tag *msgs = front ? mc_nbt_put_list(c->doc, front, "messages", MC_NBT_END) : NULL;
    if (!msgs)
        return MC_ERR_NOMEM;
    const mc_nbt_tag *lines[4];
    bool filtered = false;
    for (size_t i = 0; i < 4; i++) {
        lines[i] = mc_nbt_get(be, sign_lines[i]);
        char k[16];
        join(k, sizeof k, "Filtered", sign_lines[i]);
        filtered |= mc_nbt_get(be, k) != NULL;
    }
    mc_status st = mc__text_put_list(c, msgs, lines, 4);
    char color[32] = "black";
    mc__be_string(mc_nbt_get(be, "Color"), color, sizeof color);
    const int8_t glow = (int8_t)(get_int(be, "GlowingText", 0) != 0);
    if (st == MC_OK && (mc_nbt_put_string(c->doc, front, "color", color, strlen(color)) != MC_OK ||
                        mc_nbt_put_byte(c->doc, front, "has_glowing_text", glow) != MC_OK))
        st = MC_ERR_NOMEM;
    if (st == MC_OK && filtered) {
        mc_nbt_tag *fm = mc_nbt_put_list(c->doc, front, "filtered_messages", MC_NBT_END);
        const mc_nbt_tag *fl[4];
        for (size_t i = 0; i < 4; i++) {
            char k[16];
            join(k, sizeof k, "Filtered", sign_lines[i]);
            fl[i] = mc_nbt_get(be, k) ? mc_nbt_get(be, k) : lines[i];
        }
        st = fm ? mc__text_put_list(c, fm, fl, 4) : MC_ERR_NOMEM;
    }
    mc_nbt_tag *back = st == MC_OK ? mc_nbt_put_compound(c->doc, be, "back_text") : NULL;
    mc_nbt_tag *bm = back ? mc_nbt_put_list(c->doc, back, "messages", MC_NBT_END) : NULL;
    const mc_nbt_tag *none[4] = {0};
    if (st == MC_OK)
        st = bm ? mc__text_put_list(c, bm, none, 4) : MC_ERR_NOMEM;
    if (st == MC_OK && (mc_nbt_put_string(c->doc, back, "color", "black", 5) != MC_OK ||
                        mc_nbt_put_byte(c->doc, back, "has_glowing_text", 0) != MC_OK ||
                        mc_nbt_put_byte(c->doc, be, "is_waxed", 0) != MC_OK))
        st = MC_ERR_NOMEM;
    for (size_t i = 0; i < 4; i++) {
        char k[16];
        join(k, sizeof k, "Filtered", sign_lines[i]);
        drop_key(be, sign_lines[i]);
        drop_key(be, k);
    }
    drop_key(be, "Color");
    drop_key(be, "GlowingText");
    return st;
}

/* front_text -> Text1..4 (Color from 1.14, GlowingText from 1.17); what an
 * older sign cannot show is counted. */
static mc_status sign_sides_down(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *front = mc_nbt_get(be, "front_text"), *back = mc_nbt_get(be, "back_text");
    const mc_nbt_tag *lines[4];
    side_lines(front, lines);
    mc_status st = MC_OK;
    for (size_t i = 0; i < 4 && st == MC_OK; i++) {
        if (lines[i])
            st = mc__text_put(c, be, sign_lines[i], lines[i]);
        else
            st = mc__text_put_plain(c, be, sign_lines[i], "", 0);
    }
    const mc_nbt_tag *back_lines[4];
    side_lines(back, back_lines);
    bool back_used = false;
    for (size_t i = 0; i < 4; i++)
        back_used |= !mc__text_is_empty(back_lines[i]);
    if (back_used || get_int(be, "is_waxed", 0))
        mc__be_lost(c, MC_BE_LOSS_TEXT);
    if (mc_nbt_get(front, "filtered_messages"))
        mc__be_lost(c, MC_BE_LOSS_FIELD);
    char color[32] = "black";
    mc__be_string(mc_nbt_get(front, "color"), color, sizeof color);
    const int8_t glow = (int8_t)(get_int(front, "has_glowing_text", 0) != 0);
    if (st == MC_OK && c->to_dv >= SIGN_DV_COLOR)
        st = mc_nbt_put_string(c->doc, be, "Color", color, strlen(color));
    else if (strcmp(color, "black"))
        mc__be_lost(c, MC_BE_LOSS_TEXT);
    if (st == MC_OK && c->to_dv >= SIGN_DV_GLOW)
        st = mc_nbt_put_byte(c->doc, be, "GlowingText", glow);
    else if (glow)
        mc__be_lost(c, MC_BE_LOSS_TEXT);
    drop_key(be, "front_text");
    drop_key(be, "back_text");
    drop_key(be, "is_waxed");
    return st;
}

static mc_status sign(const mc__be_ctx *c, mc_nbt_tag *be)
{
    if (mc__be_up(c, MC__BE_DV_SIGN_SIDES))
        return sign_sides_up(c, be);
    if (mc__be_down(c, MC__BE_DV_SIGN_SIDES))
        return sign_sides_down(c, be);
    mc_status st = MC_OK;
    if (c->from_dv >= MC__BE_DV_SIGN_SIDES) { /* both 1.20+: the lines' form */
        const char *sides[2] = {"front_text", "back_text"};
        for (int s = 0; s < 2 && st == MC_OK; s++) {
            mc_nbt_tag *side = mc_nbt_get(be, sides[s]);
            st = side_text_form(c, side, "messages");
            if (st == MC_OK)
                st = side_text_form(c, side, "filtered_messages");
        }
    } else { /* both before 1.20: JSON lines */
        for (size_t i = 0; i < 4 && st == MC_OK; i++)
            if (mc_nbt_get(be, sign_lines[i]))
                st = mc__text_put(c, be, sign_lines[i], mc_nbt_get(be, sign_lines[i]));
        char color[32] = "black";
        if (mc__be_down(c, SIGN_DV_COLOR) && mc__be_string(mc_nbt_get(be, "Color"), color, sizeof color) &&
            strcmp(color, "black"))
            mc__be_lost(c, MC_BE_LOSS_TEXT);
        if (mc__be_down(c, SIGN_DV_COLOR))
            drop_key(be, "Color");
        if (mc__be_down(c, SIGN_DV_GLOW) && get_int(be, "GlowingText", 0))
            mc__be_lost(c, MC_BE_LOSS_TEXT);
        if (mc__be_down(c, SIGN_DV_GLOW))
            drop_key(be, "GlowingText");
    }
    return st;
}

/* -------------------------------------------------------------- banners */

/* Pattern codes (1.8-1.20.4) and ids (1.20.5+), the game's
 * BannerPatternFormatFix table; `since`: the first release with it. */
static const struct pattern {
    const char *code, *id;
    int32_t since;
} patterns[] = {
    {"b", "base", 0},          {"bl", "square_bottom_left", 0}, {"br", "square_bottom_right", 0},
    {"tl", "square_top_left", 0}, {"tr", "square_top_right", 0}, {"bs", "stripe_bottom", 0},
    {"ts", "stripe_top", 0},   {"ls", "stripe_left", 0},    {"rs", "stripe_right", 0},
    {"cs", "stripe_center", 0}, {"ms", "stripe_middle", 0}, {"drs", "stripe_downright", 0},
    {"dls", "stripe_downleft", 0}, {"ss", "small_stripes", 0}, {"cr", "cross", 0},
    {"sc", "straight_cross", 0}, {"bt", "triangle_bottom", 0}, {"tt", "triangle_top", 0},
    {"bts", "triangles_bottom", 0}, {"tts", "triangles_top", 0}, {"ld", "diagonal_left", 0},
    {"rd", "diagonal_up_right", 0}, {"lud", "diagonal_up_left", 0}, {"rud", "diagonal_right", 0},
    {"mc", "circle", 0},       {"mr", "rhombus", 0},        {"vh", "half_vertical", 0},
    {"hh", "half_horizontal", 0}, {"vhr", "half_vertical_right", 0},
    {"hhb", "half_horizontal_bottom", 0}, {"bo", "border", 0}, {"cbo", "curly_border", 0},
    {"gra", "gradient", 0},    {"gru", "gradient_up", 0},   {"bri", "bricks", 0},
    {"glb", "globe", 1952},    /* 1.14 */
    {"cre", "creeper", 0},     {"sku", "skull", 0},         {"flo", "flower", 0},
    {"moj", "mojang", 0},      {"pig", "piglin", 2566},     /* 1.16 */
    {NULL, "flow", 3953},      {NULL, "guster", 3953},      /* 1.21: ids only */
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])

static const struct pattern *pattern_by(const char *code, const char *id)
{
    if (id && !strncmp(id, "minecraft:", 10))
        id += 10;
    for (size_t i = 0; i < NPATTERNS; i++)
        if ((code && patterns[i].code && !strcmp(patterns[i].code, code)) || (id && !strcmp(patterns[i].id, id)))
            return &patterns[i];
    return NULL;
}

/* Flips every layer's Color (the 1.13 renumbering: 15 - n). */
static void flip_colors(mc_nbt_tag *list)
{
    for (mc_nbt_tag *l = mc_nbt_first(list); l; l = mc_nbt_next(l)) {
        mc_nbt_tag *col = mc_nbt_get(l, "Color");
        int64_t v;
        if (mc_nbt_get_integer(col, &v) == MC_OK)
            mc_nbt_set_int(col, (int32_t)(15 - (v & 15)));
    }
}

/* Patterns [{Pattern, Color}] <-> patterns [{pattern, color}] (1.20.5). */
static mc_status patterns_up(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *old = mc_nbt_get(be, "Patterns");
    if (!old)
        return MC_OK;
    mc_nbt_tag *list = mc_nbt_put_list(c->doc, be, "patterns", MC_NBT_END);
    if (!list)
        return MC_ERR_NOMEM;
    for (mc_nbt_tag *l = mc_nbt_first(old); l; l = mc_nbt_next(l)) {
        char code[16] = "";
        mc__be_string(mc_nbt_get(l, "Pattern"), code, sizeof code);
        const struct pattern *p = pattern_by(code, NULL);
        char id[64];
        join(id, sizeof id, p ? "minecraft:" : "", p ? p->id : code);
        const char *color = dyes[get_int(l, "Color", 0) & 15];
        mc_nbt_tag *e = mc_nbt_list_append(c->doc, list, MC_NBT_COMPOUND);
        if (!e || mc_nbt_put_string(c->doc, e, "pattern", id, strlen(id)) != MC_OK ||
            mc_nbt_put_string(c->doc, e, "color", color, strlen(color)) != MC_OK)
            return MC_ERR_NOMEM;
    }
    drop_key(be, "Patterns");
    return MC_OK;
}

static mc_status patterns_down(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *now = mc_nbt_get(be, "patterns");
    if (!now)
        return MC_OK;
    mc_nbt_tag *list = mc_nbt_put_list(c->doc, be, "Patterns", MC_NBT_END);
    if (!list)
        return MC_ERR_NOMEM;
    for (mc_nbt_tag *l = mc_nbt_first(now); l; l = mc_nbt_next(l)) {
        char id[64] = "", color[32] = "white";
        mc__be_string(mc_nbt_get(l, "pattern"), id, sizeof id);
        mc__be_string(mc_nbt_get(l, "color"), color, sizeof color);
        const struct pattern *p = pattern_by(NULL, id);
        if (!p || !p->code || c->to_dv < p->since) {
            mc__be_lost(c, MC_BE_LOSS_PATTERN);
            continue;
        }
        int dye = 0;
        for (int d = 0; d < 16; d++)
            if (!strcmp(dyes[d], color))
                dye = d;
        mc_nbt_tag *e = mc_nbt_list_append(c->doc, list, MC_NBT_COMPOUND);
        if (!e || mc_nbt_put_string(c->doc, e, "Pattern", p->code, strlen(p->code)) != MC_OK ||
            mc_nbt_put_int(c->doc, e, "Color", dye) != MC_OK)
            return MC_ERR_NOMEM;
    }
    drop_key(be, "patterns");
    return MC_OK;
}

/* Layers a target older than their pattern cannot show (within one form). */
static void patterns_prune(const mc__be_ctx *c, mc_nbt_tag *be)
{
    const bool ids = c->to_dv >= MC__BE_DV_COMPONENTS;
    mc_nbt_tag *list = mc_nbt_get(be, ids ? "patterns" : "Patterns");
    size_t i = 0;
    for (mc_nbt_tag *l = mc_nbt_first(list); l;) {
        mc_nbt_tag *next = mc_nbt_next(l);
        char key[64] = "";
        mc__be_string(mc_nbt_get(l, ids ? "pattern" : "Pattern"), key, sizeof key);
        const struct pattern *p = ids ? pattern_by(NULL, key) : pattern_by(key, NULL);
        if (p && c->to_dv < p->since) {
            mc__be_lost(c, MC_BE_LOSS_PATTERN);
            mc_nbt_list_remove(list, i);
        } else {
            i++;
        }
        l = next;
    }
}

static mc_status banner(mc__be_ctx *c, mc_nbt_tag *be)
{
    char name[128];
    mc_status st = MC_OK;
    if (mc__be_up(c, MC__BE_DV_FLATTENING)) {
        /* Base (15 - dye) is the block's colour now */
        const int dye = 15 - (int)(get_int(be, "Base", 0) & 15);
        block_name(c->to, c->to_state, name, sizeof name);
        const bool wall = strstr(name, "wall_banner") != NULL;
        char want[64];
        join(want, sizeof want, dyes[dye], wall ? "_wall_banner" : "_banner");
        uint32_t s = state_change(c->to, c->to_state, want, NULL, NULL);
        if (s != MC_STATE_NONE)
            c->to_state = s;
        drop_key(be, "Base");
        flip_colors(mc_nbt_get(be, "Patterns"));
    }
    if (st == MC_OK && mc__be_up(c, MC__BE_DV_COMPONENTS))
        st = patterns_up(c, be);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_COMPONENTS))
        st = patterns_down(c, be);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_FLATTENING)) {
        block_name(c->from, c->from_state, name, sizeof name);
        int dye = dye_prefix(name, "_banner");
        const bool wall = dye < 0;
        if (dye < 0)
            dye = dye_prefix(name, "_wall_banner");
        variant_down(c, wall ? "white_wall_banner" : "white_banner", NULL, NULL);
        st = mc_nbt_put_int(c->doc, be, "Base", 15 - (dye < 0 ? 0 : dye));
        flip_colors(mc_nbt_get(be, "Patterns"));
    }
    if (st == MC_OK)
        patterns_prune(c, be);
    return st;
}

/* ----------------------------------------------------------------- beds */

/* 1.12's bed colour <-> the 1.13 colour_bed blocks. Returns false when the
 * target keeps no block entity. */
static bool bed(mc__be_ctx *c, mc_nbt_tag *be, mc_status *st)
{
    char name[128];
    if (mc__be_up(c, MC__BE_DV_FLATTENING)) {
        const int dye = (int)(get_int(be, "color", 14) & 15);
        char want[64];
        join(want, sizeof want, dyes[dye], "_bed");
        uint32_t s = state_change(c->to, c->to_state, want, NULL, NULL);
        if (s != MC_STATE_NONE)
            c->to_state = s;
        drop_key(be, "color");
    }
    if (mc__be_down(c, MC__BE_DV_FLATTENING)) {
        const int dye = dye_prefix(block_name(c->from, c->from_state, name, sizeof name), "_bed");
        variant_down(c, "red_bed", NULL, NULL);
        *st = mc_nbt_put_int(c->doc, be, "color", dye < 0 ? 14 : dye);
    }
    if (mc__be_down(c, MC__BE_DV_BED)) {
        /* 1.8-1.11 beds are red and have no block entity */
        if (get_int(be, "color", 14) != 14)
            mc__be_lost(c, MC_BE_LOSS_VARIANT);
        return false;
    }
    return true;
}

/* --------------------------------------------------------------- skulls */

/* SkullType 0..5 and the 1.13 block names (floor, wall). */
static const char *const skull_blocks[6][2] = {
    {"skeleton_skull", "skeleton_wall_skull"}, {"wither_skeleton_skull", "wither_skeleton_wall_skull"},
    {"zombie_head", "zombie_wall_head"},       {"player_head", "player_wall_head"},
    {"creeper_head", "creeper_wall_head"},     {"dragon_head", "dragon_wall_head"},
};

static int skull_type_of(const char *block, bool *wall)
{
    for (int t = 0; t < 6; t++)
        for (int w = 0; w < 2; w++)
            if (!strcmp(skull_blocks[t][w], block)) {
                *wall = w == 1;
                return t;
            }
    *wall = strstr(block, "_wall_") != NULL;
    return -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" <-> four ints (most significant first). */
static bool uuid_parse(const char *s, int32_t out[4])
{
    uint64_t hi = 0, lo = 0;
    int nib = 0;
    for (const char *p = s; *p; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (d < 0) {
            if (*p != '-')
                return false;
            continue;
        }
        if (nib < 16)
            hi = hi << 4 | (uint64_t)d;
        else
            lo = lo << 4 | (uint64_t)d;
        nib++;
    }
    if (nib != 32)
        return false;
    out[0] = (int32_t)(uint32_t)(hi >> 32);
    out[1] = (int32_t)(uint32_t)hi;
    out[2] = (int32_t)(uint32_t)(lo >> 32);
    out[3] = (int32_t)(uint32_t)lo;
    return true;
}

static void uuid_format(const int32_t v[4], char out[37])
{
    uint32_t a = (uint32_t)v[0], b = (uint32_t)v[1], c = (uint32_t)v[2], d = (uint32_t)v[3];
    snprintf(out, 37, "%08x-%04x-%04x-%04x-%04x%08x", a, b >> 16, b & 0xFFFF, c >> 16, c & 0xFFFF, d);
}

/* Owner{Id: "uuid"} <-> SkullOwner{Id: int[4]} (1.16). */
static mc_status owner_uuid(const mc__be_ctx *c, mc_nbt_tag *be, bool up)
{
    mc_status st = mc__be_rename(c->doc, be, up ? "Owner" : "SkullOwner", up ? "SkullOwner" : "Owner");
    mc_nbt_tag *owner = mc_nbt_get(be, up ? "SkullOwner" : "Owner");
    mc_nbt_tag *id = mc_nbt_get(owner, "Id");
    if (st != MC_OK || !id)
        return st;
    if (up) {
        char s[64];
        int32_t v[4];
        if (mc__be_string(id, s, sizeof s) && uuid_parse(s, v))
            return mc_nbt_put_int_array(c->doc, owner, "Id", v, 4);
    } else {
        int32_t v[4];
        size_t n = 0;
        char s[37];
        if (mc_nbt_array_copy_i32(id, v, 4, &n) == MC_OK && n == 4) {
            uuid_format(v, s);
            return mc_nbt_put_string(c->doc, owner, "Id", s, strlen(s));
        }
    }
    return MC_OK;
}

/* SkullOwner (or ExtraType, a name) <-> profile (1.20.5). */
static mc_status profile_up(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *owner = mc_nbt_get(be, "SkullOwner");
    if (!owner)
        owner = mc_nbt_get(be, "ExtraType");
    if (!owner)
        return MC_OK;
    mc_nbt_tag *p = mc_nbt_put_compound(c->doc, be, "mcchunk:profile");
    if (!p)
        return MC_ERR_NOMEM;
    char name[64];
    mc_status st = MC_OK;
    if (mc__be_string(owner, name, sizeof name) ||
        mc__be_string(mc_nbt_get(owner, "Name"), name, sizeof name))
        st = name[0] ? mc_nbt_put_string(c->doc, p, "name", name, strlen(name)) : MC_OK;
    if (st == MC_OK && mc_nbt_get(owner, "Id")) {
        mc_nbt_tag *id = mc_nbt_copy(c->doc, mc_nbt_get(owner, "Id"));
        st = id ? mc_nbt_attach(c->doc, p, "id", 2, id) : MC_ERR_NOMEM;
    }
    mc_nbt_tag *props = mc_nbt_get(owner, "Properties");
    if (st == MC_OK && mc_nbt_count(props)) {
        mc_nbt_tag *list = mc_nbt_put_list(c->doc, p, "properties", MC_NBT_COMPOUND);
        for (mc_nbt_tag *k = mc_nbt_first(props); k && list && st == MC_OK; k = mc_nbt_next(k)) {
            size_t kl;
            const char *key = mc_nbt_tag_key(k, &kl);
            for (mc_nbt_tag *v = mc_nbt_first(k); v && st == MC_OK; v = mc_nbt_next(v)) {
                mc_nbt_tag *e = mc_nbt_list_append(c->doc, list, MC_NBT_COMPOUND);
                mc_nbt_tag *nm = e ? mc_nbt_put(c->doc, e, "name", 4, MC_NBT_STRING) : NULL;
                st = nm ? mc_nbt_set_string(c->doc, nm, key, kl) : MC_ERR_NOMEM;
                mc_nbt_tag *val = mc_nbt_get(v, "Value"), *sig = mc_nbt_get(v, "Signature");
                if (st == MC_OK && val) {
                    mc_nbt_tag *cp = mc_nbt_copy(c->doc, val);
                    st = cp ? mc_nbt_attach(c->doc, e, "value", 5, cp) : MC_ERR_NOMEM;
                }
                if (st == MC_OK && sig) {
                    mc_nbt_tag *cp = mc_nbt_copy(c->doc, sig);
                    st = cp ? mc_nbt_attach(c->doc, e, "signature", 9, cp) : MC_ERR_NOMEM;
                }
            }
        }
        if (!list)
            st = MC_ERR_NOMEM;
    }
    drop_key(be, "SkullOwner");
    drop_key(be, "ExtraType");
    return st == MC_OK ? mc__be_rename(c->doc, be, "mcchunk:profile", "profile") : st;
}

static mc_status profile_down(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_nbt_tag *p = mc_nbt_get(be, "profile");
    if (!p)
        return MC_OK;
    mc_nbt_tag *o = mc_nbt_put_compound(c->doc, be, "SkullOwner");
    if (!o)
        return MC_ERR_NOMEM;
    mc_status st = MC_OK;
    char name[64];
    if (mc__be_string(p, name, sizeof name) || mc__be_string(mc_nbt_get(p, "name"), name, sizeof name))
        st = mc_nbt_put_string(c->doc, o, "Name", name, strlen(name));
    if (st == MC_OK && mc_nbt_get(p, "id")) {
        mc_nbt_tag *id = mc_nbt_copy(c->doc, mc_nbt_get(p, "id"));
        st = id ? mc_nbt_attach(c->doc, o, "Id", 2, id) : MC_ERR_NOMEM;
    }
    mc_nbt_tag *props = mc_nbt_get(p, "properties");
    if (st == MC_OK && mc_nbt_count(props)) {
        mc_nbt_tag *pc = mc_nbt_put_compound(c->doc, o, "Properties");
        for (mc_nbt_tag *e = mc_nbt_first(props); e && pc && st == MC_OK; e = mc_nbt_next(e)) {
            char key[64] = "textures";
            mc__be_string(mc_nbt_get(e, "name"), key, sizeof key);
            mc_nbt_tag *list = mc_nbt_get(pc, key);
            if (!list)
                list = mc_nbt_put_list(c->doc, pc, key, MC_NBT_COMPOUND);
            mc_nbt_tag *v = list ? mc_nbt_list_append(c->doc, list, MC_NBT_COMPOUND) : NULL;
            if (!v) {
                st = MC_ERR_NOMEM;
                break;
            }
            if (mc_nbt_get(e, "value")) {
                mc_nbt_tag *cp = mc_nbt_copy(c->doc, mc_nbt_get(e, "value"));
                st = cp ? mc_nbt_attach(c->doc, v, "Value", 5, cp) : MC_ERR_NOMEM;
            }
            if (st == MC_OK && mc_nbt_get(e, "signature")) {
                mc_nbt_tag *cp = mc_nbt_copy(c->doc, mc_nbt_get(e, "signature"));
                st = cp ? mc_nbt_attach(c->doc, v, "Signature", 9, cp) : MC_ERR_NOMEM;
            }
        }
        if (!pc)
            st = MC_ERR_NOMEM;
    }
    drop_key(be, "profile");
    return st;
}

static mc_status skull(mc__be_ctx *c, mc_nbt_tag *be)
{
    char name[128];
    mc_status st = MC_OK;
    if (mc__be_up(c, MC__BE_DV_FLATTENING)) {
        int type = (int)get_int(be, "SkullType", 0);
        if (type < 0 || type > 5) {
            type = 0;
            mc__be_lost(c, MC_BE_LOSS_VARIANT);
        }
        bool wall;
        skull_type_of(block_name(c->to, c->to_state, name, sizeof name), &wall);
        uint32_t s;
        if (wall) {
            s = state_change(c->to, c->to_state, skull_blocks[type][1], NULL, NULL);
        } else {
            char rot[8];
            snprintf(rot, sizeof rot, "%d", (int)(get_int(be, "Rot", 0) & 15));
            s = state_change(c->to, c->to_state, skull_blocks[type][0], "rotation", rot);
        }
        if (s != MC_STATE_NONE)
            c->to_state = s;
        drop_key(be, "SkullType");
        drop_key(be, "Rot");
    }
    if (mc__be_up(c, MC__BE_DV_UUID))
        st = owner_uuid(c, be, true);
    if (st == MC_OK && mc__be_up(c, MC__BE_DV_PROFILE))
        st = profile_up(c, be);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_PROFILE))
        st = profile_down(c, be);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_UUID))
        st = owner_uuid(c, be, false);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_FLATTENING)) {
        bool wall;
        int type = skull_type_of(block_name(c->from, c->from_state, name, sizeof name), &wall);
        if (type < 0) {
            type = 0; /* piglin heads and later kinds: none before 1.13 */
            mc__be_lost(c, MC_BE_LOSS_VARIANT);
        }
        const char *rot = prop(c->from, c->from_state, "rotation");
        /* 1.12 floor skulls are meta 1, which 1.13 read as rotation 4 */
        variant_down(c, wall ? "skeleton_wall_skull" : "skeleton_skull", wall ? NULL : "rotation", "4");
        if (mc_nbt_put_byte(c->doc, be, "SkullType", (int8_t)type) != MC_OK ||
            mc_nbt_put_byte(c->doc, be, "Rot", (int8_t)(rot && !wall ? atoi(rot) : 0)) != MC_OK)
            st = MC_ERR_NOMEM;
    }
    return st;
}

/* ---------------------------------------------- flower pots, note blocks */

/* 1.8-1.12 pot contents (Item, Data) and the 1.13 potted blocks: the
 * game's ChunkPalettedStorageFix table, and the numeric item ids some old
 * pots kept. (The game's fixer emptied potted cacti; they stay cacti.) */
static const struct pot {
    const char *item;
    int data, numeric;
    const char *block;
} pot_plants[] = {
    {"red_flower", 0, 38, "potted_poppy"},       {"red_flower", 1, 38, "potted_blue_orchid"},
    {"red_flower", 2, 38, "potted_allium"},      {"red_flower", 3, 38, "potted_azure_bluet"},
    {"red_flower", 4, 38, "potted_red_tulip"},   {"red_flower", 5, 38, "potted_orange_tulip"},
    {"red_flower", 6, 38, "potted_white_tulip"}, {"red_flower", 7, 38, "potted_pink_tulip"},
    {"red_flower", 8, 38, "potted_oxeye_daisy"}, {"yellow_flower", 0, 37, "potted_dandelion"},
    {"sapling", 0, 6, "potted_oak_sapling"},     {"sapling", 1, 6, "potted_spruce_sapling"},
    {"sapling", 2, 6, "potted_birch_sapling"},   {"sapling", 3, 6, "potted_jungle_sapling"},
    {"sapling", 4, 6, "potted_acacia_sapling"},  {"sapling", 5, 6, "potted_dark_oak_sapling"},
    {"red_mushroom", 0, 40, "potted_red_mushroom"}, {"brown_mushroom", 0, 39, "potted_brown_mushroom"},
    {"deadbush", 0, 32, "potted_dead_bush"},     {"tallgrass", 2, 31, "potted_fern"},
    {"cactus", 0, 81, "potted_cactus"},          {"air", 0, 0, "flower_pot"},
};
#define NPOTS (sizeof pot_plants / sizeof pot_plants[0])

/* A 1.12 pot's contents -> the potted block of the target (folded). */
static void pot_up(mc__be_ctx *c, const mc_nbt_tag *be)
{
    char item[64] = "air";
    int64_t numeric = -1;
    if (!mc__be_string(mc_nbt_get(be, "Item"), item, sizeof item))
        mc_nbt_get_integer(mc_nbt_get(be, "Item"), &numeric);
    const char *bare = !strncmp(item, "minecraft:", 10) ? item + 10 : item;
    const int data = (int)get_int(be, "Data", 0);
    const char *block = NULL;
    for (size_t i = 0; i < NPOTS && !block; i++)
        if ((numeric >= 0 ? pot_plants[i].numeric == numeric : !strcmp(pot_plants[i].item, bare[0] ? bare : "air")) &&
            pot_plants[i].data == data)
            block = pot_plants[i].block;
    if (!block) {
        mc__be_lost(c, MC_BE_LOSS_VARIANT);
        block = "flower_pot";
    }
    uint32_t s = mc_registry_default_state(c->to, block);
    if (s != MC_STATE_NONE)
        c->to_state = s;
    if (c->rep)
        c->rep->folded++;
}

/* A 1.13+ potted block -> a 1.12 pot block entity (Item, Data). */
static mc_status pot_down(mc__be_ctx *c, mc_nbt_tag *be)
{
    char name[128];
    block_name(c->from, c->from_state, name, sizeof name);
    const struct pot *p = NULL;
    for (size_t i = 0; i < NPOTS && !p; i++)
        if (!strcmp(pot_plants[i].block, name))
            p = &pot_plants[i];
    if (!p) {
        mc__be_lost(c, MC_BE_LOSS_VARIANT); /* a plant 1.12 cannot pot */
        p = &pot_plants[NPOTS - 1];
    }
    uint32_t s = mc_registry_default_state(c->to, "flower_pot");
    if (s != MC_STATE_NONE)
        c->to_state = s;
    char item[64] = "";
    if (strcmp(p->item, "air"))
        join(item, sizeof item, "minecraft:", p->item);
    return mc_nbt_put_string(c->doc, be, "Item", item, strlen(item)) == MC_OK &&
                   mc_nbt_put_int(c->doc, be, "Data", p->data) == MC_OK
               ? MC_OK
               : MC_ERR_NOMEM;
}

static void note_up(mc__be_ctx *c, const mc_nbt_tag *be)
{
    char note[8];
    int64_t n = get_int(be, "note", 0);
    snprintf(note, sizeof note, "%d", (int)(n < 0 ? 0 : n > 24 ? 24 : n));
    uint32_t s = state_change(c->to, c->to_state, "note_block", "note", note);
    if (s != MC_STATE_NONE)
        s = state_change(c->to, s, NULL, "powered", get_int(be, "powered", 0) ? "true" : "false");
    if (s != MC_STATE_NONE)
        c->to_state = s;
    if (c->rep)
        c->rep->folded++;
}

static mc_status note_down(mc__be_ctx *c, mc_nbt_tag *be)
{
    const char *note = prop(c->from, c->from_state, "note"), *pw = prop(c->from, c->from_state, "powered");
    if (mc_nbt_put_byte(c->doc, be, "note", (int8_t)(note ? atoi(note) : 0)) != MC_OK ||
        mc_nbt_put_byte(c->doc, be, "powered", (int8_t)(pw && !strcmp(pw, "true"))) != MC_OK)
        return MC_ERR_NOMEM;
    return MC_OK;
}

/* ------------------------------------------------------------- spawners */

/* Entity ids: 1.8-1.10 names <-> 1.11 ids (the game's EntityIdFix), for
 * the mobs a spawner holds. */
static const char *const entity_ids[][2] = {
    {"Bat", "bat"}, {"Blaze", "blaze"}, {"CaveSpider", "cave_spider"}, {"Chicken", "chicken"},
    {"Cow", "cow"}, {"Creeper", "creeper"}, {"Enderman", "enderman"}, {"Endermite", "endermite"},
    {"Ghast", "ghast"}, {"Giant", "giant"}, {"Guardian", "guardian"}, {"Horse", "horse"},
    {"LavaSlime", "magma_cube"}, {"MushroomCow", "mooshroom"}, {"Ozelot", "ocelot"}, {"Pig", "pig"},
    {"PigZombie", "zombie_pigman"}, {"Rabbit", "rabbit"}, {"Sheep", "sheep"}, {"Silverfish", "silverfish"},
    {"Skeleton", "skeleton"}, {"Slime", "slime"}, {"SnowMan", "snowman"}, {"Spider", "spider"},
    {"Squid", "squid"}, {"Villager", "villager"}, {"VillagerGolem", "villager_golem"}, {"Witch", "witch"},
    {"WitherBoss", "wither"}, {"Wolf", "wolf"}, {"Zombie", "zombie"}, {"EnderDragon", "ender_dragon"},
    {"Shulker", "shulker"}, {"PolarBear", "polar_bear"},
};
/* Later renames of mobs: 1.13 (EntityTheRenameningFix), 1.16. */
static const struct entity_rename {
    int32_t dv;
    const char *old, *now;
} entity_renames[] = {
    {MC__BE_DV_RENAMENING, "villager_golem", "iron_golem"},
    {MC__BE_DV_RENAMENING, "snowman", "snow_golem"},
    {MC__BE_DV_RENAMENING, "evocation_illager", "evoker"},
    {MC__BE_DV_RENAMENING, "vindication_illager", "vindicator"},
    {MC__BE_DV_RENAMENING, "illusion_illager", "illusioner"},
    {MC__BE_DV_PIGLIN, "zombie_pigman", "zombified_piglin"},
};

/* One entity id through the steps of the walk. */
static mc_status entity_id(const mc__be_ctx *c, mc_nbt_tag *holder, const char *key)
{
    char id[96];
    if (!mc__be_string(mc_nbt_get(holder, key), id, sizeof id))
        return MC_OK;
    char *bare = !strncmp(id, "minecraft:", 10) ? id + 10 : id;
    char out[96];
    join(out, sizeof out, "", bare);
    if (mc__be_up(c, MC__BE_DV_NAMESPACED))
        for (size_t i = 0; i < sizeof entity_ids / sizeof entity_ids[0]; i++)
            if (!strcmp(entity_ids[i][0], bare))
                join(out, sizeof out, "", entity_ids[i][1]);
    for (size_t i = 0; i < sizeof entity_renames / sizeof entity_renames[0]; i++)
        if (mc__be_up(c, entity_renames[i].dv) && !strcmp(out, entity_renames[i].old))
            join(out, sizeof out, "", entity_renames[i].now);
    for (size_t i = sizeof entity_renames / sizeof entity_renames[0]; i-- > 0;)
        if (mc__be_down(c, entity_renames[i].dv) && !strcmp(out, entity_renames[i].now))
            join(out, sizeof out, "", entity_renames[i].old);
    char full[128];
    join(full, sizeof full, "minecraft:", out);
    const char *w = full;
    if (c->to_dv < MC__BE_DV_NAMESPACED) {
        w = out;
        for (size_t i = 0; i < sizeof entity_ids / sizeof entity_ids[0]; i++)
            if (!strcmp(entity_ids[i][1], out))
                w = entity_ids[i][0];
    }
    return mc_nbt_put_string(c->doc, holder, key, w, strlen(w));
}

/* Every entity id of a spawner in its form at DataVersions 106..2830:
 * SpawnData.id, SpawnPotentials[].Entity.id. */
static mc_status spawner_ids(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_status st = entity_id(c, mc_nbt_get(be, "SpawnData"), "id");
    for (mc_nbt_tag *p = mc_nbt_first(mc_nbt_get(be, "SpawnPotentials")); p && st == MC_OK; p = mc_nbt_next(p))
        st = entity_id(c, mc_nbt_get(p, "Entity"), "id");
    return st;
}

/* 1.8 EntityId / SpawnPotentials [{Type, Weight, Properties}] <-> 1.9. */
static mc_status spawner_1_9(const mc__be_ctx *c, mc_nbt_tag *be, bool up)
{
    mc_nbt_tag *pots = mc_nbt_get(be, "SpawnPotentials");
    if (up) {
        char id[96];
        if (mc__be_string(mc_nbt_get(be, "EntityId"), id, sizeof id)) {
            mc_nbt_tag *sd = mc_nbt_get(be, "SpawnData");
            if (!sd && !(sd = mc_nbt_put_compound(c->doc, be, "SpawnData")))
                return MC_ERR_NOMEM;
            if (mc_nbt_put_string(c->doc, sd, "id", id[0] ? id : "Pig", strlen(id[0] ? id : "Pig")) != MC_OK)
                return MC_ERR_NOMEM;
            drop_key(be, "EntityId");
        }
        for (mc_nbt_tag *p = mc_nbt_first(pots); p; p = mc_nbt_next(p)) {
            if (!mc__be_string(mc_nbt_get(p, "Type"), id, sizeof id))
                continue;
            if (!mc_nbt_get(p, "Properties") && !mc_nbt_put_compound(c->doc, p, "Properties"))
                return MC_ERR_NOMEM;
            if (mc_nbt_put_string(c->doc, mc_nbt_get(p, "Properties"), "id", id, strlen(id)) != MC_OK ||
                mc__be_rename(c->doc, p, "Properties", "Entity") != MC_OK)
                return MC_ERR_NOMEM;
            drop_key(p, "Type");
        }
        return MC_OK;
    }
    mc_nbt_tag *sd = mc_nbt_get(be, "SpawnData");
    char id[96];
    if (mc__be_string(mc_nbt_get(sd, "id"), id, sizeof id)) {
        if (mc_nbt_put_string(c->doc, be, "EntityId", id, strlen(id)) != MC_OK)
            return MC_ERR_NOMEM;
        drop_key(sd, "id");
        if (mc_nbt_count(sd) == 0)
            drop_key(be, "SpawnData"); /* 1.8 keeps entity data only */
    }
    for (mc_nbt_tag *p = mc_nbt_first(pots); p; p = mc_nbt_next(p)) {
        mc_nbt_tag *e = mc_nbt_get(p, "Entity");
        if (!mc__be_string(mc_nbt_get(e, "id"), id, sizeof id))
            continue;
        drop_key(e, "id");
        if (mc_nbt_put_string(c->doc, p, "Type", id, strlen(id)) != MC_OK ||
            mc__be_rename(c->doc, p, "Entity", "Properties") != MC_OK)
            return MC_ERR_NOMEM;
    }
    return MC_OK;
}

/* SpawnData{id..} <-> SpawnData{entity{id..}}; SpawnPotentials [{Weight,
 * Entity}] <-> [{weight, data{entity}}] (1.18). */
static mc_status spawner_1_18(const mc__be_ctx *c, mc_nbt_tag *be, bool up)
{
    mc_nbt_tag *sd = mc_nbt_get(be, "SpawnData");
    if (sd) {
        mc_nbt_tag *copy = up ? mc_nbt_copy(c->doc, sd) : mc_nbt_copy(c->doc, mc_nbt_get(sd, "entity"));
        if (up) {
            mc_nbt_tag *fresh = copy ? mc_nbt_put_compound(c->doc, be, "SpawnData") : NULL;
            if (!fresh || mc_nbt_attach(c->doc, fresh, "entity", 6, copy) != MC_OK)
                return MC_ERR_NOMEM;
        } else if (copy) {
            if (mc_nbt_attach(c->doc, be, "SpawnData", 9, copy) != MC_OK)
                return MC_ERR_NOMEM;
        } else if (mc_nbt_count(sd)) {
            mc__be_lost(c, MC_BE_LOSS_FIELD); /* custom spawn rules and the like */
        }
    }
    mc_nbt_tag *pots = mc_nbt_get(be, "SpawnPotentials");
    if (!pots)
        return MC_OK;
    mc_nbt_tag *list = mc_nbt_put_list(c->doc, be, "mcchunk:pots", MC_NBT_COMPOUND);
    for (mc_nbt_tag *p = mc_nbt_first(pots); p && list; p = mc_nbt_next(p)) {
        mc_nbt_tag *e = mc_nbt_list_append(c->doc, list, MC_NBT_COMPOUND);
        if (!e)
            return MC_ERR_NOMEM;
        const int32_t weight = (int32_t)get_int(p, up ? "Weight" : "weight", 1);
        mc_nbt_tag *ent = up ? mc_nbt_get(p, "Entity") : mc_nbt_get(mc_nbt_get(p, "data"), "entity");
        mc_nbt_tag *copy = ent ? mc_nbt_copy(c->doc, ent) : NULL;
        if (mc_nbt_put_int(c->doc, e, up ? "weight" : "Weight", weight) != MC_OK || (ent && !copy))
            return MC_ERR_NOMEM;
        if (copy && up) {
            mc_nbt_tag *data = mc_nbt_put_compound(c->doc, e, "data");
            if (!data || mc_nbt_attach(c->doc, data, "entity", 6, copy) != MC_OK)
                return MC_ERR_NOMEM;
        } else if (copy && mc_nbt_attach(c->doc, e, "Entity", 6, copy) != MC_OK) {
            return MC_ERR_NOMEM;
        }
    }
    if (!list)
        return MC_ERR_NOMEM;
    drop_key(be, "SpawnPotentials");
    return mc__be_rename(c->doc, be, "mcchunk:pots", "SpawnPotentials");
}

static mc_status spawner(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_status st = MC_OK;
    if (mc__be_up(c, MC__BE_DV_SPAWNER_IDS))
        st = spawner_1_9(c, be, true);
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_SPAWN_DATA))
        st = spawner_1_18(c, be, false);
    /* the ids in the 106..2830 form, every id step at once */
    if (st == MC_OK && c->from_dv != c->to_dv) {
        const bool pre_1_18 = c->from_dv < MC__BE_DV_SPAWN_DATA || mc__be_down(c, MC__BE_DV_SPAWN_DATA);
        if (pre_1_18 || c->to_dv < MC__BE_DV_SPAWN_DATA)
            st = spawner_ids(c, be);
    }
    if (st == MC_OK && mc__be_up(c, MC__BE_DV_SPAWN_DATA))
        st = spawner_1_18(c, be, true);
    if (st == MC_OK && c->from_dv >= MC__BE_DV_SPAWN_DATA && c->to_dv >= MC__BE_DV_SPAWN_DATA) {
        st = entity_id(c, mc_nbt_get(mc_nbt_get(be, "SpawnData"), "entity"), "id");
        for (mc_nbt_tag *p = mc_nbt_first(mc_nbt_get(be, "SpawnPotentials")); p && st == MC_OK; p = mc_nbt_next(p))
            st = entity_id(c, mc_nbt_get(mc_nbt_get(p, "data"), "entity"), "id");
    }
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_SPAWNER_IDS))
        st = spawner_1_9(c, be, false);
    return st;
}

/* ------------------------------------------------- common keys, jukebox */

/* Music discs by their 1.8-1.12 numeric ids (1.8-1.12 jukeboxes may keep
 * only Record, the id). */
static const char *const records[12] = {"record_13", "record_cat", "record_blocks", "record_chirp",
                                        "record_far", "record_mall", "record_mellohi", "record_stal",
                                        "record_strad", "record_ward", "record_11", "record_wait"};

static mc_status jukebox(const mc__be_ctx *c, mc_nbt_tag *be)
{
    if (mc__be_up(c, MC__BE_DV_FLATTENING)) {
        const int64_t record = get_int(be, "Record", 0);
        if (!mc_nbt_get(be, "RecordItem") && record >= 2256 && record <= 2267) {
            /* the game's BlockEntityJukeboxFix: the disc as a stack */
            mc_nbt_tag *it = mc_nbt_put_compound(c->doc, be, "RecordItem");
            char id[64];
            join(id, sizeof id, "minecraft:", records[record - 2256]);
            if (!it || mc_nbt_put_string(c->doc, it, "id", id, strlen(id)) != MC_OK ||
                mc_nbt_put_byte(c->doc, it, "Count", 1) != MC_OK || mc_nbt_put_short(c->doc, it, "Damage", 0) != MC_OK)
                return MC_ERR_NOMEM;
        }
        drop_key(be, "Record");
    }
    mc_nbt_tag *rec = mc_nbt_get(be, "RecordItem");
    if (rec && !mc__item_translate(c, rec)) {
        mc__be_lost(c, MC_BE_LOSS_ITEM);
        drop_key(be, "RecordItem");
    }
    return MC_OK;
}

/* Keys many kinds share: contents, custom name, lock, lectern book, and
 * keepPacked, which the game writes into full chunks from 1.13 on (seen in
 * the corpus's 1.13.2 to 1.21.11 chunks; proto-chunks lack it). */
static mc_status common_keys(const mc__be_ctx *c, mc_nbt_tag *be)
{
    mc_status st = mc__items_translate(c, mc_nbt_get(be, "Items"));
    if (mc__be_down(c, MC__BE_DV_FLATTENING))
        drop_key(be, "keepPacked");
    else if (mc__be_up(c, MC__BE_DV_FLATTENING) && !mc_nbt_get(be, "keepPacked"))
        st = mc_nbt_put_byte(c->doc, be, "keepPacked", 0);
    if (st == MC_OK)
        st = custom_name(c, be);
    mc_nbt_tag *book = mc_nbt_get(be, "Book");
    if (st == MC_OK && mc_nbt_tag_type(book) == MC_NBT_COMPOUND && !mc__item_translate(c, book)) {
        mc__be_lost(c, MC_BE_LOSS_ITEM);
        drop_key(be, "Book");
    }
    /* Lock "key" became an item predicate in 1.21.2; an empty one is none */
    char lock[8];
    if (st == MC_OK && mc__be_up(c, MC__BE_DV_LOCK) && mc_nbt_get(be, "Lock")) {
        if (!mc__be_string(mc_nbt_get(be, "Lock"), lock, sizeof lock) || lock[0])
            mc__be_lost(c, MC_BE_LOSS_FIELD);
        drop_key(be, "Lock");
    }
    if (st == MC_OK && mc__be_down(c, MC__BE_DV_LOCK) && mc_nbt_get(be, "lock")) {
        mc__be_lost(c, MC_BE_LOSS_FIELD);
        drop_key(be, "lock");
    }
    return st;
}

/* ----------------------------------------------------------------- ids */


/* The id as the target writes it: 1.8-1.10 names, else "minecraft:..". */
static mc_status put_id(const mc__be_ctx *c, mc_nbt_tag *be, const char *id)
{
    const struct be_kind *k = kind_of(id);
    char full[96];
    const char *w = id;
    if (c->to_dv < MC__BE_DV_NAMESPACED && k && k->old) {
        w = k->old;
    } else if (c->to_dv >= MC__BE_DV_NAMESPACED) {
        join(full, sizeof full, "minecraft:", k ? k->id : id);
        w = full;
    }
    return mc_nbt_put_string(c->doc, be, "id", w, strlen(w));
}

/* ------------------------------------------------------------- the walk */

/* The kind's steps on `be` (a copy in c->doc). *keep false: the target has
 * no block entity here (folded into the block, or none before 1.12). */
static mc_status walk(mc__be_ctx *c, mc_nbt_tag *be, char *id, size_t cap, bool *keep)
{
    mc_status st = MC_OK;
    char to_block[128];
    *keep = true;
    if (!strcmp(id, "sign") || !strcmp(id, "hanging_sign")) {
        st = sign(c, be);
    } else if (!strcmp(id, "banner")) {
        st = banner(c, be);
    } else if (!strcmp(id, "bed")) {
        *keep = bed(c, be, &st);
    } else if (!strcmp(id, "skull")) {
        st = skull(c, be);
    } else if (!strcmp(id, "flower_pot") && mc__be_up(c, MC__BE_DV_FLATTENING)) {
        pot_up(c, be);
        *keep = false;
    } else if (!strcmp(id, "noteblock") && mc__be_up(c, MC__BE_DV_FLATTENING)) {
        note_up(c, be);
        *keep = false;
    } else if (!strcmp(id, "mob_spawner")) {
        st = spawner(c, be);
    } else if (!strcmp(id, "jukebox")) {
        st = jukebox(c, be);
    } else if (!strcmp(id, "chest") || !strcmp(id, "trapped_chest")) {
        /* 1.13: a trapped chest has an id of its own */
        const bool trapped = !strcmp(block_name(c->to, c->to_state, to_block, sizeof to_block), "trapped_chest");
        join(id, cap, "", trapped && c->to_dv >= MC__BE_DV_FLATTENING ? "trapped_chest" : "chest");
    } else if (!strcmp(id, "suspicious_sand") && mc__be_up(c, 3438)) {
        join(id, cap, "", "brushable_block"); /* 1.20 BlockEntityRenameFix */
    } else if (!strcmp(id, "brushable_block") && mc__be_down(c, 3438)) {
        join(id, cap, "", "suspicious_sand");
    }
    if (st == MC_OK && *keep)
        st = common_keys(c, be);
    return st;
}

/* A block entity for a block that had none in the source (see
 * mc_block_entity_needed): its id and fields in the target's form. */
static mc_status create(mc__be_ctx *c, char *id, size_t cap, mc_nbt_tag *be, bool *keep)
{
    char name[128];
    block_name(c->from, c->from_state, name, sizeof name);
    bool wall;
    *keep = true;
    mc_status st;
    if (mc__be_up(c, MC__BE_DV_BED)) { /* 1.8-1.11 bed: red */
        join(id, cap, "", "bed");
        st = mc_nbt_put_int(c->doc, be, "color", 14);
    } else if (!strcmp(name, "flower_pot") || !strncmp(name, "potted_", 7)) {
        join(id, cap, "", "flower_pot");
        st = pot_down(c, be);
    } else if (!strcmp(name, "note_block")) {
        join(id, cap, "", "noteblock");
        st = note_down(c, be);
    } else if (dye_prefix(name, "_bed") >= 0) {
        join(id, cap, "", "bed");
        *keep = bed(c, be, &st);
    } else if (skull_type_of(name, &wall) >= 0 || strstr(name, "_skull") || strstr(name, "_head")) {
        join(id, cap, "", "skull");
        st = skull(c, be);
    } else {
        join(id, cap, "", "banner");
        st = banner(c, be);
    }
    if (c->rep && *keep)
        c->rep->created++;
    return st;
}

mc_status mc_block_entity_translate(const mc_be_translation *t, const mc_nbt_tag *src, int32_t x, int32_t y,
                                    int32_t z, uint32_t from_state, uint32_t *to_state, mc_nbt_doc *doc,
                                    mc_nbt_tag **out)
{
    if (!t || !t->from || !t->to || !to_state || !doc || !out || (src && mc_nbt_tag_type(src) != MC_NBT_COMPOUND))
        return MC_ERR_INVALID_ARG;
    *out = NULL;
    /* the walk works in a scratch document; the result is copied out */
    mc_nbt_doc *work = mc_nbt_doc_new(NULL);
    mc_nbt_tag *holder = work ? mc_nbt_doc_new_root(work, MC_NBT_COMPOUND) : NULL;
    mc_nbt_tag *be = holder && src ? mc_nbt_copy(work, src) : NULL;
    if (!holder || (src && !be) ||
        (be ? mc_nbt_attach(work, holder, "be", 2, be) : !mc_nbt_put_compound(work, holder, "be"))) {
        mc_nbt_doc_free(work);
        return MC_ERR_NOMEM;
    }
    be = mc_nbt_get(holder, "be");
    mc__be_ctx c = {work, t->from, t->to, t->from_dv, t->to_dv, from_state, *to_state, x, y, z, t->report};
    char id[96] = "";
    mc__be_string(mc_nbt_get(be, "id"), id, sizeof id);
    if (!strncmp(id, "minecraft:", 10))
        memmove(id, id + 10, strlen(id + 10) + 1);
    const struct be_kind *k = kind_of(id);
    if (k)
        join(id, sizeof id, "", k->id);
    bool keep = true;
    mc_status st = src ? walk(&c, be, id, sizeof id, &keep) : create(&c, id, sizeof id, be, &keep);
    k = kind_of(id);
    const bool block_gone = (mc_registry_state_flags(c.to, c.to_state) & MC_STATE_AIR) != 0;
    if (st == MC_OK && keep && (block_gone || (k && !kind_exists(k, c.to_dv)))) {
        keep = false; /* nothing in the target shows it */
        mc__be_lost(&c, MC_BE_LOSS_BLOCK_ENTITY);
    }
    if (st == MC_OK && keep) {
        st = put_id(&c, be, id);
        if (st == MC_OK && !src)
            st = mc_nbt_put_int(work, be, "x", x) == MC_OK && mc_nbt_put_int(work, be, "y", y) == MC_OK &&
                         mc_nbt_put_int(work, be, "z", z) == MC_OK
                     ? MC_OK
                     : MC_ERR_NOMEM;
        if (st == MC_OK && !(*out = mc_nbt_copy(doc, be)))
            st = MC_ERR_NOMEM;
        if (st == MC_OK && t->report)
            t->report->translated++;
    }
    mc_nbt_doc_free(work);
    if (st == MC_OK)
        *to_state = c.to_state;
    return st;
}

bool mc_block_entity_needed(const mc_be_translation *t, uint32_t from_state)
{
    if (!t || !t->from)
        return false;
    const bool beds_up = t->from_dv < MC__BE_DV_BED && MC__BE_DV_BED <= t->to_dv;
    if (!beds_up && !(t->to_dv < MC__BE_DV_FLATTENING && MC__BE_DV_FLATTENING <= t->from_dv))
        return false; /* (before the name: this is asked of every state of a registry) */
    char name[128];
    block_name(t->from, from_state, name, sizeof name);
    if (beds_up)
        return !strcmp(name, "bed"); /* 1.8-1.11 beds for 1.12 */
    bool wall;
    return !strcmp(name, "flower_pot") || !strncmp(name, "potted_", 7) || !strcmp(name, "note_block") ||
           dye_prefix(name, "_bed") >= 0 || dye_prefix(name, "_banner") >= 0 ||
           dye_prefix(name, "_wall_banner") >= 0 || skull_type_of(name, &wall) >= 0 ||
           !strcmp(name, "piglin_head") || !strcmp(name, "piglin_wall_head");
}

const char *mc_be_loss_name(mc_be_loss kind)
{
    static const char *const names[MC_BE_LOSS_COUNT] = {
        "block entity", "item", "item data", "sign text", "banner pattern", "variant", "field",
    };
    return (unsigned)kind < MC_BE_LOSS_COUNT ? names[kind] : "?";
}
