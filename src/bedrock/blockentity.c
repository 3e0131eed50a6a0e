/*
 * blockentity.c: Java block entities as Bedrock ones (for serving a Java
 * world to Bedrock clients), and the id renaming back.
 *
 * What is written (network NBT, one compound per block entity):
 *   id          the Bedrock name of the Java id (table below; pre-1.11 Java
 *               names such as "Chest" and "Trap" too; without an id the
 *               block's name decides). Ids without a Bedrock counterpart
 *               (moving pistons, ...) are not written at all.
 *   x, y, z     the block's position; isMovable 1.
 *   CustomName  the plain text of the Java name (see component_text).
 * and per kind:
 *   Chest       pairx/pairz (+ pairlead on the "right" half) from the chest
 *               block's type=left|right and facing: a left half pairs with
 *               the block clockwise of its facing, a right half with the
 *               one counter-clockwise;
 *   Sign, HangingSign  FrontText/BackText {Text (lines joined by "\n"),
 *               SignTextColor (ARGB of the Java dye's text colour),
 *               IgnoreLighting (glowing), HideGlowOutline 0,
 *               PersistFormatting 1, TextOwner ""} and IsWaxed (1.19.80+
 *               clients), plus the same front side as top-level Text,
 *               SignTextColor, IgnoreLighting, PersistFormatting and
 *               TextOwner for older clients (each ignores the other's keys);
 *               from 1.20+ front_text/back_text or 1.8-1.19 Text1..Text4;
 *   Bed         color (the dye id: white 0 ... red 14 ... black 15) from
 *               the block name, or 1.12's "color";
 *   Banner      Base and Patterns [{Pattern (short code), Color}] in
 *               Bedrock's colour numbering (black 0 ... white 15, i.e.
 *               15 - the Java 1.13+ dye id; Java 1.8-1.12 banners already
 *               use it); the base colour from the block name; 1.20.5+
 *               "patterns" [{pattern: "minecraft:stripe_top", color:
 *               "red"}] through the pattern-code table; Type 0;
 *   Skull       SkullType (skeleton 0, wither 1, zombie 2, player 3,
 *               creeper 4, dragon 5, piglin 6) from the block name or 1.12's
 *               SkullType, Rotation in degrees (rotation * 22.5) for
 *               standing skulls;
 *   MobSpawner  EntityIdentifier from SpawnData (1.18+: SpawnData.entity.id,
 *               1.9-1.17: SpawnData.id; namespaced ids only);
 *   FlowerPot   PlantBlock {name, states, version}: the plant's Bedrock
 *               state, from a 1.13+ potted_* block (no Java block entity)
 *               or a 1.8-1.12 flower_pot block entity (below).
 * A 1.8-1.12 skull's kind lives in its block entity; Bedrock 1.20.50+ has
 * a block per kind, which convert.c sets from mc__bedrock_state_from_java_be.
 * Dropped: container contents (Items: item names are not translated between
 * the editions, and clients get contents when they open a container), lock,
 * loot tables, custom data and every field not listed above.
 *
 * Text components: Java stores them as JSON text (before 1.21.5) or NBT
 * (1.21.5+: a string tag is plain text, a compound {text, extra}, a list
 * concatenates). A string that parses completely as JSON is read as JSON
 * (its "text" and, recursively, "extra"; translations and scores give
 * nothing), any other string is plain text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"
#include "mcchunk/translate.h"

/* ------------------------------------------------------------- id table */

typedef struct be_name {
    const char *java;    /* without "minecraft:" */
    const char *bedrock;
} be_name;

static const be_name be_names[] = {
    {"banner", "Banner"},
    {"barrel", "Barrel"},
    {"beacon", "Beacon"},
    {"bed", "Bed"},
    {"beehive", "Beehive"},
    {"bell", "Bell"},
    {"blast_furnace", "BlastFurnace"},
    {"brewing_stand", "BrewingStand"},
    {"brushable_block", "BrushableBlock"},
    {"calibrated_sculk_sensor", "CalibratedSculkSensor"},
    {"campfire", "Campfire"},
    {"chest", "Chest"},
    {"chiseled_bookshelf", "ChiseledBookshelf"},
    {"command_block", "CommandBlock"},
    {"comparator", "Comparator"},
    {"conduit", "Conduit"},
    {"crafter", "Crafter"},
    {"creaking_heart", "CreakingHeart"},
    {"daylight_detector", "DaylightDetector"},
    {"decorated_pot", "DecoratedPot"},
    {"dispenser", "Dispenser"},
    {"dropper", "Dropper"},
    {"enchanting_table", "EnchantTable"},
    {"end_gateway", "EndGateway"},
    {"end_portal", "EndPortal"},
    {"ender_chest", "EnderChest"},
    {"furnace", "Furnace"},
    {"hanging_sign", "HangingSign"},
    {"hopper", "Hopper"},
    {"jigsaw", "JigsawBlock"},
    {"jukebox", "Jukebox"},
    {"lectern", "Lectern"},
    {"mob_spawner", "MobSpawner"},
    {"sculk_catalyst", "SculkCatalyst"},
    {"sculk_sensor", "SculkSensor"},
    {"sculk_shrieker", "SculkShrieker"},
    {"shulker_box", "ShulkerBox"},
    {"sign", "Sign"},
    {"skull", "Skull"},
    {"smoker", "Smoker"},
    {"structure_block", "StructureBlock"},
    {"trapped_chest", "Chest"},
    {"trial_spawner", "TrialSpawner"},
    {"vault", "Vault"},
};

/* Java 1.8-1.10 names (no namespace) that differ from the table's. */
static const be_name be_legacy[] = {
    {"Airportal", "EndPortal"},      {"Banner", "Banner"},       {"Beacon", "Beacon"},
    {"Cauldron", "BrewingStand"},    {"Chest", "Chest"},         {"Comparator", "Comparator"},
    {"Control", "CommandBlock"},     {"DLDetector", "DaylightDetector"},
    {"Dropper", "Dropper"},          {"EnchantTable", "EnchantTable"},
    {"EndGateway", "EndGateway"},    {"EnderChest", "EnderChest"}, {"Furnace", "Furnace"},
    {"Hopper", "Hopper"},            {"MobSpawner", "MobSpawner"}, {"RecordPlayer", "Jukebox"},
    {"Sign", "Sign"},                {"Skull", "Skull"},         {"Structure", "StructureBlock"},
    {"Trap", "Dispenser"},
};

static bool name_eq(const char *a, size_t alen, const char *b)
{
    return strlen(b) == alen && !memcmp(a, b, alen);
}

const char *mc_bedrock_block_entity_id(const char *java_id, size_t len)
{
    if (!java_id)
        return NULL;
    if (len > 10 && !memcmp(java_id, "minecraft:", 10)) {
        for (size_t i = 0; i < sizeof be_names / sizeof *be_names; i++)
            if (name_eq(java_id + 10, len - 10, be_names[i].java))
                return be_names[i].bedrock;
        return NULL;
    }
    for (size_t i = 0; i < sizeof be_names / sizeof *be_names; i++)
        if (name_eq(java_id, len, be_names[i].java))
            return be_names[i].bedrock;
    for (size_t i = 0; i < sizeof be_legacy / sizeof *be_legacy; i++)
        if (name_eq(java_id, len, be_legacy[i].java))
            return be_legacy[i].bedrock;
    return NULL;
}

const char *mc_bedrock_block_entity_java_id(const char *bedrock_id, size_t len)
{
    static const char *const java_full[] = {
#define X(j) "minecraft:" j
        X("banner"), X("barrel"), X("beacon"), X("bed"), X("beehive"), X("bell"), X("blast_furnace"),
        X("brewing_stand"), X("brushable_block"), X("calibrated_sculk_sensor"), X("campfire"), X("chest"),
        X("chiseled_bookshelf"), X("command_block"), X("comparator"), X("conduit"), X("crafter"),
        X("creaking_heart"), X("daylight_detector"), X("decorated_pot"), X("dispenser"), X("dropper"),
        X("enchanting_table"), X("end_gateway"), X("end_portal"), X("ender_chest"), X("furnace"),
        X("hanging_sign"), X("hopper"), X("jigsaw"), X("jukebox"), X("lectern"), X("mob_spawner"),
        X("sculk_catalyst"), X("sculk_sensor"), X("sculk_shrieker"), X("shulker_box"), X("sign"), X("skull"),
        X("smoker"), X("structure_block"), X("trapped_chest"), X("trial_spawner"), X("vault"),
#undef X
    };
    _Static_assert(sizeof java_full / sizeof *java_full == sizeof be_names / sizeof *be_names, "tables");
    if (!bedrock_id)
        return NULL;
    /* the first Java id with that Bedrock name (Chest -> chest) */
    for (size_t i = 0; i < sizeof be_names / sizeof *be_names; i++)
        if (name_eq(bedrock_id, len, be_names[i].bedrock))
            return java_full[i];
    return NULL;
}

/* The block-entity id of a Java block without an "id": by block name. */
static const char *id_from_block(const char *block)
{
    if (!block || strncmp(block, "minecraft:", 10))
        return NULL;
    const char *b = block + 10;
    size_t n = strlen(b);
#define ENDS(s) (n >= sizeof(s) - 1 && !strcmp(b + n - (sizeof(s) - 1), s))
    if (ENDS("hanging_sign"))
        return "HangingSign";
    if (ENDS("_sign"))
        return "Sign";
    if (ENDS("_bed"))
        return "Bed";
    if (ENDS("_banner"))
        return "Banner";
    if (ENDS("_skull") || ENDS("_head"))
        return "Skull";
    if (ENDS("shulker_box"))
        return "ShulkerBox";
    if (ENDS("campfire"))
        return "Campfire";
    if (ENDS("command_block"))
        return "CommandBlock";
    if (!strcmp(b, "spawner"))
        return "MobSpawner";
#undef ENDS
    return mc_bedrock_block_entity_id(b, n);
}

/* ---------------------------------------------------------------- colours */

static const char *const dye_names[16] = {"white", "orange", "magenta", "light_blue", "yellow", "lime",
                                          "pink",  "gray",   "light_gray", "cyan",     "purple", "blue",
                                          "brown", "green",  "red",        "black"};
/* Java's sign text colour of each dye (RGB). */
static const uint32_t dye_text_rgb[16] = {0xFFFFFF, 0xFF681F, 0xFF00FF, 0x9AC0CD, 0xFFFF00, 0xBFFF00,
                                          0xFF69B4, 0x808080, 0xD3D3D3, 0x00FFFF, 0xA020F0, 0x0000FF,
                                          0x8B4513, 0x00FF00, 0xFF0000, 0x000000};

static int dye_index(const char *s, size_t n)
{
    for (int i = 0; i < 16; i++)
        if (name_eq(s, n, dye_names[i]))
            return i;
    return -1;
}

/* The dye of a colored block "minecraft:<dye>_<suffix>" (longest match:
 * light_blue before blue), or -1. */
static int block_dye(const char *block)
{
    if (!block || strncmp(block, "minecraft:", 10))
        return -1;
    const char *b = block + 10;
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < 16; i++) {
        size_t l = strlen(dye_names[i]);
        if (!strncmp(b, dye_names[i], l) && b[l] == '_' && l > best_len) {
            best = i;
            best_len = l;
        }
    }
    return best;
}

/* Banner pattern resource names (1.20.5+) and their short codes. */
static const char *const pattern_codes[][2] = {
    {"base", "b"},
    {"border", "bo"},
    {"bricks", "bri"},
    {"circle", "mc"},
    {"creeper", "cre"},
    {"cross", "cr"},
    {"curly_border", "cbo"},
    {"diagonal_left", "ld"},
    {"diagonal_right", "rud"},
    {"diagonal_up_left", "lud"},
    {"diagonal_up_right", "rd"},
    {"flow", "flw"},
    {"flower", "flo"},
    {"globe", "glb"},
    {"gradient", "gra"},
    {"gradient_up", "gru"},
    {"guster", "gus"},
    {"half_horizontal", "hh"},
    {"half_horizontal_bottom", "hhb"},
    {"half_vertical", "vh"},
    {"half_vertical_right", "vhr"},
    {"mojang", "moj"},
    {"piglin", "pig"},
    {"rhombus", "mr"},
    {"skull", "sku"},
    {"small_stripes", "ss"},
    {"square_bottom_left", "bl"},
    {"square_bottom_right", "br"},
    {"square_top_left", "tl"},
    {"square_top_right", "tr"},
    {"straight_cross", "sc"},
    {"stripe_bottom", "bs"},
    {"stripe_center", "cs"},
    {"stripe_downleft", "dls"},
    {"stripe_downright", "drs"},
    {"stripe_left", "ls"},
    {"stripe_middle", "ms"},
    {"stripe_right", "rs"},
    {"stripe_top", "ts"},
    {"triangle_bottom", "bt"},
    {"triangle_top", "tt"},
    {"triangles_bottom", "bts"},
    {"triangles_top", "tts"},
};

static const char *pattern_code(const char *s, size_t n)
{
    if (n > 10 && !memcmp(s, "minecraft:", 10)) {
        s += 10;
        n -= 10;
    }
    for (size_t i = 0; i < sizeof pattern_codes / sizeof *pattern_codes; i++)
        if (name_eq(s, n, pattern_codes[i][0]))
            return pattern_codes[i][1];
    return NULL;
}

/* For the way back (blockentity_java.c): a dye's name, the dye whose sign
 * text colour is nearest an ARGB value, a pattern's name by short code. */
const char *mc__bedrock_dye_name(int dye)
{
    return dye >= 0 && dye < 16 ? dye_names[dye] : NULL;
}

int mc__bedrock_dye_of_text_color(uint32_t argb)
{
    int best = 15;
    uint32_t best_d = UINT32_MAX;
    for (int i = 0; i < 16; i++) {
        int dr = (int)((argb >> 16) & 255) - (int)(dye_text_rgb[i] >> 16);
        int dg = (int)((argb >> 8) & 255) - (int)((dye_text_rgb[i] >> 8) & 255);
        int db = (int)(argb & 255) - (int)(dye_text_rgb[i] & 255);
        uint32_t d = (uint32_t)(dr * dr + dg * dg + db * db);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

const char *mc__bedrock_pattern_name(const char *code, size_t n)
{
    for (size_t i = 0; i < sizeof pattern_codes / sizeof *pattern_codes; i++)
        if (name_eq(code, n, pattern_codes[i][1]))
            return pattern_codes[i][0];
    return NULL;
}

/* ------------------------------------------------------ text components */

#define TEXT_MAX_DEPTH 16
#define TEXT_MAX_BYTES 4096 /* per component; longer text is cut */

typedef struct jparse {
    const char *p, *end;
    mc_buf *out; /* NULL: skip */
} jparse;

static void jws(jparse *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static void put_utf8(mc_buf *out, uint32_t cp)
{
    uint8_t b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (uint8_t)(0xC0 | (cp >> 6));
        b[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (uint8_t)(0xE0 | (cp >> 12));
        b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (uint8_t)(0xF0 | (cp >> 18));
        b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    if (out->len + n <= TEXT_MAX_BYTES)
        mc_buf_put(out, b, n);
}

static bool jhex4(jparse *j, uint32_t *v)
{
    if (j->end - j->p < 4)
        return false;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *j->p++;
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                          : 16u;
        if (d > 15)
            return false;
        *v = (*v << 4) | d;
    }
    return true;
}

/* A JSON string at j->p (the opening quote), decoded into `out` (may be NULL). */
static bool jstring(jparse *j, mc_buf *out)
{
    if (j->p >= j->end || *j->p != '"')
        return false;
    j->p++;
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"')
            return true;
        if (c < 0x20)
            return false;
        if (c != '\\') {
            if (out && out->len < TEXT_MAX_BYTES)
                mc_buf_put_u8(out, c);
            continue;
        }
        if (j->p >= j->end)
            return false;
        char e = *j->p++;
        uint32_t cp;
        switch (e) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = 8; break;
        case 'f': cp = 12; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (!jhex4(j, &cp))
                return false;
            if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                const char *save = j->p;
                uint32_t lo;
                j->p += 2;
                if (jhex4(j, &lo) && lo >= 0xDC00 && lo < 0xE000)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else {
                    j->p = save;
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            break;
        default: return false;
        }
        if (out)
            put_utf8(out, cp);
    }
    return false;
}

static bool jvalue(jparse *j, int depth, bool collect);

/* After a member or element: 1 for ',' (more follow), 0 for `close` (the
 * end), -1 for anything else. */
static int jnext(jparse *j, char close)
{
    jws(j);
    if (j->p < j->end && (*j->p == ',' || *j->p == close))
        return *j->p++ == ',';
    return -1;
}

/* A component object: its "text", then its "extra" (in that order whatever
 * the members' order). */
static bool jobject(jparse *j, int depth, bool collect)
{
    j->p++; /* '{' */
    const char *text_at = NULL, *extra_at = NULL;
    jws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return true;
    }
    for (;;) {
        jws(j);
        char key[8];
        mc_buf kb;
        mc_buf_init(&kb, NULL);
        bool ok = jstring(j, &kb);
        size_t kl = kb.len < sizeof key - 1 ? kb.len : sizeof key - 1;
        if (ok && kb.data)
            memcpy(key, kb.data, kl);
        key[kl] = 0;
        bool exact = kb.len == kl;
        mc_buf_free(&kb);
        if (!ok)
            return false;
        jws(j);
        if (j->p >= j->end || *j->p != ':')
            return false;
        j->p++;
        jws(j);
        if (exact && !strcmp(key, "text"))
            text_at = j->p;
        else if (exact && !strcmp(key, "extra"))
            extra_at = j->p;
        if (!jvalue(j, depth + 1, false))
            return false;
        int more = jnext(j, '}');
        if (more < 0)
            return false;
        if (!more)
            break;
    }
    if (collect) {
        const char *after = j->p;
        if (text_at) {
            j->p = text_at;
            if (*j->p == '"')
                jstring(j, j->out);
        }
        if (extra_at) {
            j->p = extra_at;
            jvalue(j, depth + 1, true);
        }
        j->p = after;
    }
    return true;
}

static bool jvalue(jparse *j, int depth, bool collect)
{
    if (depth > TEXT_MAX_DEPTH)
        return false;
    jws(j);
    if (j->p >= j->end)
        return false;
    char c = *j->p;
    if (c == '"')
        return jstring(j, collect ? j->out : NULL);
    if (c == '{')
        return jobject(j, depth, collect);
    if (c == '[') {
        j->p++;
        jws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return true;
        }
        for (;;) {
            if (!jvalue(j, depth + 1, collect))
                return false;
            int more = jnext(j, ']');
            if (more <= 0)
                return more == 0;
        }
    }
    /* numbers, true, false, null: skipped */
    const char *s = j->p;
    while (j->p < j->end && (*j->p == '-' || *j->p == '+' || *j->p == '.' || (*j->p >= '0' && *j->p <= '9') ||
                             (*j->p >= 'a' && *j->p <= 'z') || (*j->p >= 'A' && *j->p <= 'Z')))
        j->p++;
    return j->p > s;
}

/* Appends the plain text of a component tag (see the top of the file). */
static void component_text(const mc_nbt_tag *t, mc_buf *out, int depth)
{
    if (!t || depth > TEXT_MAX_DEPTH)
        return;
    const char *s;
    size_t n;
    if (mc_nbt_get_string(t, &s, &n) == MC_OK) {
        size_t start = out->len;
        jparse j = {s, s + n, out};
        bool json = n && (s[0] == '"' || s[0] == '{' || s[0] == '[') && jvalue(&j, 0, true);
        if (json) {
            jws(&j);
            json = j.p == j.end;
        }
        if (!json) {
            out->len = start;
            mc_buf_put(out, s, n < TEXT_MAX_BYTES ? n : TEXT_MAX_BYTES);
        }
        return;
    }
    mc_nbt_type type = mc_nbt_tag_type(t);
    if (type == MC_NBT_COMPOUND) {
        if (mc_nbt_get_string(mc_nbt_get(t, "text"), &s, &n) == MC_OK && out->len + n <= TEXT_MAX_BYTES)
            mc_buf_put(out, s, n);
        component_text(mc_nbt_get(t, "extra"), out, depth + 1);
    } else if (type == MC_NBT_LIST) {
        for (mc_nbt_tag *e = mc_nbt_first(t); e; e = mc_nbt_next(e))
            component_text(e, out, depth + 1);
    }
}

/* ----------------------------------------------------------- builders */

typedef struct be_ctx {
    mc_nbt_doc *doc;
    mc_nbt_tag *root;
    const mc_nbt_tag *java;
    const mc_registry *reg;
    uint32_t state;
    const char *block; /* the Java block name at the position, or NULL */
    int32_t x, y, z;
    mc_status st;
} be_ctx;

static void ok(be_ctx *c, mc_status st)
{
    if (c->st == MC_OK && st != MC_OK)
        c->st = st;
}

static void put_text(be_ctx *c, mc_nbt_tag *dst, const char *key, const mc_nbt_tag *component)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    component_text(component, &b, 0);
    ok(c, mc_buf_ok(&b) ? mc_nbt_put_string(c->doc, dst, key, b.data ? (const char *)b.data : "", b.len)
                        : MC_ERR_NOMEM);
    mc_buf_free(&b);
}

static const char *prop(const be_ctx *c, const char *key)
{
    return c->block ? mc_registry_state_prop_value(c->reg, c->state, key) : NULL;
}

static void chest(be_ctx *c)
{
    const char *type = prop(c, "type"), *facing = prop(c, "facing");
    if (!type || !facing || !strcmp(type, "single"))
        return;
    /* unit vectors of north, east, south, west; clockwise = next */
    static const char *const dirs[4] = {"north", "east", "south", "west"};
    static const int dx[4] = {0, 1, 0, -1}, dz[4] = {-1, 0, 1, 0};
    int f = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(facing, dirs[i]))
            f = i;
    if (f < 0)
        return;
    bool left = !strcmp(type, "left");
    int d = left ? (f + 1) & 3 : (f + 3) & 3;
    ok(c, mc_nbt_put_int(c->doc, c->root, "pairx", c->x + dx[d]));
    ok(c, mc_nbt_put_int(c->doc, c->root, "pairz", c->z + dz[d]));
    if (!left)
        ok(c, mc_nbt_put_byte(c->doc, c->root, "pairlead", 1));
}

/* One side of a sign: lines (4 components), dye name, glowing. */
static void sign_side(be_ctx *c, const char *key, const mc_nbt_tag *const lines[4], const char *color, size_t clen,
                      bool glow, bool legacy_top)
{
    mc_buf text;
    mc_buf_init(&text, NULL);
    for (int i = 0; i < 4; i++) {
        if (i)
            mc_buf_put_u8(&text, '\n');
        component_text(lines[i], &text, 0);
    }
    int dye = color ? dye_index(color, clen) : -1;
    int32_t argb = (int32_t)(0xFF000000u | dye_text_rgb[dye < 0 ? 15 : dye]);
    mc_nbt_tag *side = mc_nbt_put_compound(c->doc, c->root, key);
    const char *tx = text.data ? (const char *)text.data : "";
    if (!side || !mc_buf_ok(&text)) {
        ok(c, MC_ERR_NOMEM);
        mc_buf_free(&text);
        return;
    }
    for (int k = 0; k < (legacy_top ? 2 : 1); k++) {
        mc_nbt_tag *dst = k ? c->root : side;
        ok(c, mc_nbt_put_string(c->doc, dst, "Text", tx, text.len));
        ok(c, mc_nbt_put_int(c->doc, dst, "SignTextColor", argb));
        ok(c, mc_nbt_put_byte(c->doc, dst, "IgnoreLighting", glow));
        if (!k)
            ok(c, mc_nbt_put_byte(c->doc, dst, "HideGlowOutline", 0));
        ok(c, mc_nbt_put_byte(c->doc, dst, "PersistFormatting", 1));
        ok(c, mc_nbt_put_string(c->doc, dst, "TextOwner", "", 0));
    }
    mc_buf_free(&text);
}

static bool get_flag(const mc_nbt_tag *t)
{
    int64_t v;
    return mc_nbt_get_integer(t, &v) == MC_OK && v != 0;
}

static void sign(be_ctx *c)
{
    const mc_nbt_tag *j = c->java;
    const char *col;
    size_t cl;
    for (int side = 0; side < 2; side++) {
        const mc_nbt_tag *lines[4] = {NULL, NULL, NULL, NULL};
        const char *color = NULL;
        size_t clen = 0;
        bool glow = false;
        const mc_nbt_tag *st = mc_nbt_get(j, side ? "back_text" : "front_text");
        if (st) { /* 1.20+ */
            const mc_nbt_tag *m = mc_nbt_get(st, "messages");
            for (int i = 0; i < 4; i++)
                lines[i] = mc_nbt_list_at(m, (size_t)i);
            if (mc_nbt_get_string(mc_nbt_get(st, "color"), &col, &cl) == MC_OK) {
                color = col;
                clen = cl;
            }
            glow = get_flag(mc_nbt_get(st, "has_glowing_text"));
        } else if (!side) { /* 1.8-1.19 */
            static const char *const keys[4] = {"Text1", "Text2", "Text3", "Text4"};
            for (int i = 0; i < 4; i++)
                lines[i] = mc_nbt_get(j, keys[i]);
            if (mc_nbt_get_string(mc_nbt_get(j, "Color"), &col, &cl) == MC_OK) {
                color = col;
                clen = cl;
            }
            glow = get_flag(mc_nbt_get(j, "GlowingText"));
        }
        sign_side(c, side ? "BackText" : "FrontText", lines, color, clen, glow, !side);
    }
    ok(c, mc_nbt_put_byte(c->doc, c->root, "IsWaxed", get_flag(mc_nbt_get(j, "is_waxed"))));
}

static void bed(be_ctx *c)
{
    int32_t v;
    int dye = block_dye(c->block);
    if (dye < 0 && mc_nbt_get_int(mc_nbt_get(c->java, "color"), &v) == MC_OK && v >= 0 && v < 16)
        dye = v; /* 1.12 */
    ok(c, mc_nbt_put_byte(c->doc, c->root, "color", (int8_t)(dye < 0 ? 14 : dye)));
}

static void banner(be_ctx *c)
{
    int32_t base;
    /* Java 1.8-1.12 banners have Base and colours in Bedrock's numbering */
    bool legacy = mc_nbt_get_int(mc_nbt_get(c->java, "Base"), &base) == MC_OK;
    if (!legacy) {
        int dye = block_dye(c->block);
        base = 15 - (dye < 0 ? 0 : dye);
    }
    ok(c, mc_nbt_put_int(c->doc, c->root, "Base", base & 15));
    ok(c, mc_nbt_put_int(c->doc, c->root, "Type", 0));
    mc_nbt_tag *out = mc_nbt_put_list(c->doc, c->root, "Patterns", MC_NBT_COMPOUND);
    if (!out) {
        ok(c, MC_ERR_NOMEM);
        return;
    }
    const mc_nbt_tag *old = mc_nbt_get(c->java, "Patterns"), *mod = mc_nbt_get(c->java, "patterns");
    for (const mc_nbt_tag *p = mc_nbt_first(old ? old : mod); p; p = mc_nbt_next(p)) {
        const char *s, *code = NULL;
        size_t n;
        int32_t color = -1;
        if (old) { /* {Pattern: code, Color: int} */
            if (mc_nbt_get_string(mc_nbt_get(p, "Pattern"), &s, &n) == MC_OK && n && n < 8 &&
                mc_nbt_get_int(mc_nbt_get(p, "Color"), &color) == MC_OK && color >= 0 && color < 16) {
                code = s;
                color = legacy ? color : 15 - color;
            }
        } else { /* {pattern: "minecraft:name", color: "red"} */
            int dye = -1;
            if (mc_nbt_get_string(mc_nbt_get(p, "color"), &s, &n) == MC_OK)
                dye = dye_index(s, n);
            if (dye >= 0 && mc_nbt_get_string(mc_nbt_get(p, "pattern"), &s, &n) == MC_OK &&
                (code = pattern_code(s, n)) != NULL) {
                n = strlen(code);
                color = 15 - dye;
            }
        }
        if (!code)
            continue; /* inline pattern definitions and bad entries */
        mc_nbt_tag *e = mc_nbt_list_append(c->doc, out, MC_NBT_COMPOUND);
        if (!e) {
            ok(c, MC_ERR_NOMEM);
            return;
        }
        ok(c, mc_nbt_put_int(c->doc, e, "Color", color));
        ok(c, mc_nbt_put_string(c->doc, e, "Pattern", code, n));
    }
}

static void skull(be_ctx *c)
{
    static const char *const kinds[][2] = {{"skeleton_", "0"}, {"wither_skeleton_", "1"}, {"zombie_", "2"},
                                           {"player_", "3"},   {"creeper_", "4"},          {"dragon_", "5"},
                                           {"piglin_", "6"}};
    int type = -1;
    const char *b = c->block && !strncmp(c->block, "minecraft:", 10) ? c->block + 10 : NULL;
    for (size_t i = 0; b && i < sizeof kinds / sizeof *kinds; i++)
        if (!strncmp(b, kinds[i][0], strlen(kinds[i][0])))
            type = kinds[i][1][0] - '0';
    int8_t t8;
    if (type < 0 && mc_nbt_get_byte(mc_nbt_get(c->java, "SkullType"), &t8) == MC_OK && t8 >= 0 && t8 < 7)
        type = t8; /* 1.12 */
    ok(c, mc_nbt_put_byte(c->doc, c->root, "SkullType", (int8_t)(type < 0 ? 0 : type)));
    float rot = 0;
    const char *r = prop(c, "rotation");
    int8_t rb;
    if (r)
        rot = (float)(atoi(r) & 15) * 22.5f;
    else if (mc_nbt_get_byte(mc_nbt_get(c->java, "Rot"), &rb) == MC_OK)
        rot = (float)(rb & 15) * 22.5f;
    ok(c, mc_nbt_put_float(c->doc, c->root, "Rotation", rot));
}

static void spawner(be_ctx *c)
{
    const mc_nbt_tag *sd = mc_nbt_get(c->java, "SpawnData");
    const mc_nbt_tag *id = mc_nbt_get(mc_nbt_get(sd, "entity"), "id");
    if (!id)
        id = mc_nbt_get(sd, "id");
    const char *s;
    size_t n;
    if (mc_nbt_get_string(id, &s, &n) == MC_OK && memchr(s, ':', n))
        ok(c, mc_nbt_put_string(c->doc, c->root, "EntityIdentifier", s, n));
}

mc_status mc_bedrock_block_entity_from_java(const mc_nbt_tag *java, int32_t x, int32_t y, int32_t z,
                                            const mc_registry *java_reg, uint32_t java_state, mc_buf *out,
                                            mc_error *err)
{
    if (!java || mc_nbt_tag_type(java) != MC_NBT_COMPOUND)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: block entity is not a compound");
    be_ctx c;
    memset(&c, 0, sizeof c);
    c.java = java;
    c.reg = java_reg;
    c.state = java_state;
    c.block = java_reg ? mc_registry_state_name(java_reg, java_state) : NULL;
    c.x = x;
    c.y = y;
    c.z = z;
    const char *jid;
    size_t jl;
    const char *bid = mc_nbt_get_string(mc_nbt_get(java, "id"), &jid, &jl) == MC_OK
                          ? mc_bedrock_block_entity_id(jid, jl)
                          : id_from_block(c.block);
    if (!bid)
        return MC_ERR_NOT_FOUND; /* nothing written: no Bedrock counterpart */
    c.doc = mc_nbt_doc_new(NULL);
    c.root = c.doc ? mc_nbt_doc_new_root(c.doc, MC_NBT_COMPOUND) : NULL;
    if (!c.root) {
        mc_nbt_doc_free(c.doc);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    }
    ok(&c, mc_nbt_put_string(c.doc, c.root, "id", bid, strlen(bid)));
    ok(&c, mc_nbt_put_int(c.doc, c.root, "x", x));
    ok(&c, mc_nbt_put_int(c.doc, c.root, "y", y));
    ok(&c, mc_nbt_put_int(c.doc, c.root, "z", z));
    ok(&c, mc_nbt_put_byte(c.doc, c.root, "isMovable", 1));
    const mc_nbt_tag *name = mc_nbt_get(java, "CustomName");
    if (name)
        put_text(&c, c.root, "CustomName", name);
    if (!strcmp(bid, "Chest"))
        chest(&c);
    else if (!strcmp(bid, "Sign") || !strcmp(bid, "HangingSign"))
        sign(&c);
    else if (!strcmp(bid, "Bed"))
        bed(&c);
    else if (!strcmp(bid, "Banner"))
        banner(&c);
    else if (!strcmp(bid, "Skull"))
        skull(&c);
    else if (!strcmp(bid, "MobSpawner"))
        spawner(&c);
    mc_status st = c.st;
    if (st == MC_OK)
        st = mc_nbt_write(c.doc, MC_NBT_BEDROCK_NETWORK, out, err);
    else
        mc_error_set(err, st, SIZE_MAX, "bedrock: cannot build the %s block entity", bid);
    mc_nbt_doc_free(c.doc);
    return st;
}

/* ------------------------------------------------------- flower pots */

/* Java keeps a pot's plant in the block (1.13+ potted_<plant>) or, before
 * 1.13, in a flower_pot block entity {Item, Data}; Bedrock in a FlowerPot
 * block entity {PlantBlock: the plant's Bedrock state {name, states,
 * version}} beside a plain flower_pot block. Both Java forms go through
 * the newest Java registry (the 1.12 block entity folded into its potted
 * block by mc_block_entity_translate), whose plant maps to Bedrock. */
static mc_status state_compound(mc_nbt_doc *doc, mc_nbt_tag *dst, const char *key, const mc_registry *reg,
                                uint32_t state)
{
    mc_nbt_tag *c = mc_nbt_put_compound(doc, dst, key);
    return c ? mc__bedrock_state_fill(doc, c, reg, state) : MC_ERR_NOMEM;
}

bool mc__bedrock_is_pot(const mc_registry *java, uint32_t state)
{
    const char *n = mc_registry_state_name(java, state);
    return n && !strncmp(n, "minecraft:potted_", 17);
}

/* The newest Java registry and its DataVersion, and `java`'s (-1 if none). */
static const mc_registry *pivot_of(const mc_registry *java, int32_t *pivot_dv, int32_t *java_dv)
{
    const mc_registry *pivot = NULL;
    *java_dv = -1;
    mc_version_info vi;
    for (size_t i = 0; mc_java_version_at(i, &vi); i++) {
        if (vi.registry) {
            pivot = vi.registry;
            *pivot_dv = vi.data_version;
        }
        if (vi.registry == java)
            *java_dv = vi.data_version;
    }
    return pivot;
}

#define DV_FLATTENING 1451 /* 1.13: colours and kinds moved into block states */

uint32_t mc__bedrock_state_from_java_be(const mc_registry *java, uint32_t java_state, const mc_nbt_tag *java_be,
                                        int32_t x, int32_t y, int32_t z, const mc_registry *bedrock)
{
    int32_t pivot_dv = 0, java_dv;
    const mc_registry *pivot = pivot_of(java, &pivot_dv, &java_dv);
    const char *id;
    size_t n;
    if (!pivot || java_dv < 0 || java_dv >= DV_FLATTENING ||
        mc_nbt_get_string(mc_nbt_get(java_be, "id"), &id, &n) != MC_OK ||
        !((n == 15 && !memcmp(id, "minecraft:skull", 15)) || (n == 5 && !memcmp(id, "Skull", 5))))
        return MC_STATE_NONE; /* beds, banners, pots: one Bedrock block for every colour and plant */
    const uint32_t *to_pivot = mc_registry_map(java, pivot), *to_bedrock = mc_registry_map(pivot, bedrock);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!to_pivot || !to_bedrock || !doc) {
        mc_nbt_doc_free(doc);
        return MC_STATE_NONE;
    }
    uint32_t ps = mc_registry_map_apply(to_pivot, mc_registry_state_count(java), java_state, mc_registry_air(pivot));
    mc_be_translation tr = {java, pivot, java_dv, pivot_dv, NULL};
    mc_nbt_tag *none = NULL;
    uint32_t out = MC_STATE_NONE;
    if (mc_block_entity_translate(&tr, java_be, x, y, z, java_state, &ps, doc, &none) == MC_OK)
        out = mc_registry_map_apply(to_bedrock, mc_registry_state_count(pivot), ps, MC_STATE_NONE);
    mc_nbt_doc_free(doc);
    return out;
}

mc_status mc__bedrock_pot_from_java(const mc_registry *java, uint32_t java_state, const mc_nbt_tag *java_be,
                                    int32_t x, int32_t y, int32_t z, const mc_registry *bedrock, mc_buf *out,
                                    mc_error *err)
{
    int32_t pivot_dv = 0, java_dv;
    const mc_registry *pivot = pivot_of(java, &pivot_dv, &java_dv);
    const uint32_t *to_pivot = pivot ? mc_registry_map(java, pivot) : NULL;
    const uint32_t *to_bedrock = pivot ? mc_registry_map(pivot, bedrock) : NULL;
    if (!to_pivot || !to_bedrock || java_dv < 0)
        return MC_OK;
    uint32_t ps = mc_registry_map_apply(to_pivot, mc_registry_state_count(java), java_state, mc_registry_air(pivot));
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = doc ? mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND) : NULL;
    mc_status st = root ? MC_OK : MC_ERR_NOMEM;
    if (st == MC_OK && java_be) { /* 1.8-1.12: the plant is in the block entity */
        mc_be_translation tr = {java, pivot, java_dv, pivot_dv, NULL};
        mc_nbt_tag *none = NULL;
        st = mc_block_entity_translate(&tr, java_be, x, y, z, java_state, &ps, doc, &none);
    }
    const char *potted = mc_registry_state_name(pivot, ps);
    if (st != MC_OK || !potted || strncmp(potted, "minecraft:potted_", 17)) {
        mc_nbt_doc_free(doc);
        return st == MC_OK ? MC_OK : mc_error_set(err, st, SIZE_MAX, "bedrock: out of memory");
    }
    char plant[96];
    snprintf(plant, sizeof plant, "minecraft:%s", potted + 17);
    uint32_t plant_state = mc_registry_default_state(pivot, plant);
    uint32_t bs = plant_state == MC_STATE_NONE
                      ? MC_STATE_NONE
                      : mc_registry_map_apply(to_bedrock, mc_registry_state_count(pivot), plant_state, MC_STATE_NONE);
    if (bs == MC_STATE_NONE || bs == mc_registry_air(bedrock)) {
        mc_nbt_doc_free(doc);
        return MC_OK; /* a plant Bedrock lacks: an empty pot */
    }
    if (mc_nbt_put_string(doc, root, "id", "FlowerPot", 9) != MC_OK || mc_nbt_put_int(doc, root, "x", x) != MC_OK ||
        mc_nbt_put_int(doc, root, "y", y) != MC_OK || mc_nbt_put_int(doc, root, "z", z) != MC_OK ||
        mc_nbt_put_byte(doc, root, "isMovable", 1) != MC_OK)
        st = MC_ERR_NOMEM;
    if (st == MC_OK)
        st = state_compound(doc, root, "PlantBlock", bedrock, bs);
    if (st == MC_OK)
        st = mc_nbt_write(doc, MC_NBT_BEDROCK_NETWORK, out, err);
    else
        mc_error_set(err, st, SIZE_MAX, "bedrock: out of memory");
    mc_nbt_doc_free(doc);
    return st;
}

mc_status mc__bedrock_be_from_java(const mc_column *col, const mc_nbt_tag *t, int32_t x, int32_t y, int32_t z,
                                   mc_buf *out, mc_error *err)
{
    const mc_registry *reg = mc_column_registry(col);
    mc_status st = mc_bedrock_block_entity_from_java(t, x, y, z, reg, mc_column_get_block(col, x, y, z), out, err);
    return st == MC_ERR_NOT_FOUND ? MC_OK : st; /* no counterpart: left out */
}

mc_status mc__bedrock_be_rename_to_java(mc_nbt_doc *doc, mc_nbt_tag *root)
{
    const char *s;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(root, "id"), &s, &n) != MC_OK)
        return MC_OK;
    const char *j = mc_bedrock_block_entity_java_id(s, n);
    return j ? mc_nbt_put_string(doc, root, "id", j, strlen(j)) : MC_OK;
}
