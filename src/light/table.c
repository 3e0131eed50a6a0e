/*
 * table.c: the light facts of every state of a registry (opacity, luminance,
 * shape faces), built once per registry from the generated rows and the
 * state-dependent rules minecraft-data does not carry, so that the engine
 * reads one byte per block and never looks a name up while it lights.
 *
 * Registries without their own rows (Java 1.8-1.13 and Bedrock) are mapped
 * to a Java registry that has them (mc_registry_map) and take the facts of
 * the state they map to.
 *
 * Last, the states' facts are folded into light kinds (light_private.h):
 * every distinct (opacity, faces, luminance) gets a number, ordered by
 * whether it shines and how it treats sky light falling from above, so
 * that a block's kind is one byte and those questions are range tests.
 */
#include "light/light_private.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_DV 1457 /* the oldest rows (1.13) */

static const char *strip(const char *name)
{
    return strncmp(name, "minecraft:", 10) == 0 ? name + 10 : name;
}

/* The newest row of `name` not newer than dv, or NULL. */
static const mc__light_row *find_row(const char *name, int32_t dv)
{
    size_t lo = 0, hi = mc__light_row_count;
    while (lo < hi) { /* first row whose name is >= name */
        size_t mid = (lo + hi) / 2;
        if (strcmp(mc__light_names + mc__light_rows[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const mc__light_row *best = NULL;
    for (size_t i = lo; i < mc__light_row_count && strcmp(mc__light_names + mc__light_rows[i].name, name) == 0; i++)
        if (!best || mc__light_rows[i].dv <= dv)
            best = &mc__light_rows[i]; /* rows are in data-version order: the last fitting one wins */
    return best;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int prop_int(const mc_registry *reg, uint32_t state, const char *key, int dflt)
{
    const char *v = mc_registry_state_prop_value(reg, state, key);
    return v ? atoi(v) : dflt;
}

static bool prop_true(const mc_registry *reg, uint32_t state, const char *key)
{
    const char *v = mc_registry_state_prop_value(reg, state, key);
    return v && strcmp(v, "true") == 0;
}

/* How a block's luminance depends on its state's properties. */
typedef enum emission_rule {
    RULE_ROW,         /* the row's emitLight holds for every state */
    RULE_LIT,         /* `level` when lit=true, else 0 */
    RULE_CANDLE,      /* 3 per candle when lit */
    RULE_CANDLE_CAKE, /* 3 when lit */
    RULE_SEA_PICKLE,  /* 3 + 3 per pickle when waterlogged */
    RULE_LIGHT,       /* the light block: its level */
    RULE_ANCHOR,      /* respawn anchor: charges * 15 / 4 */
    RULE_BERRIES,     /* cave vines: 14 with berries */
    RULE_FIXED,       /* `level` whatever the state (glow lichen) */
} emission_rule;

/* The rule of block `name` (without its namespace), and its level. */
static emission_rule rule_of(const char *name, int *level)
{
    static const struct { const char *name; int level; } lit[] = {
        {"furnace", 13}, {"blast_furnace", 13}, {"smoker", 13}, {"redstone_ore", 9},
        {"deepslate_redstone_ore", 9}, {"redstone_torch", 7}, {"redstone_wall_torch", 7},
        {"redstone_lamp", 15}, {"campfire", 15}, {"soul_campfire", 10}, {"copper_bulb", 15},
        {"exposed_copper_bulb", 12}, {"weathered_copper_bulb", 8}, {"oxidized_copper_bulb", 4},
        {"waxed_copper_bulb", 15}, {"waxed_exposed_copper_bulb", 12},
        {"waxed_weathered_copper_bulb", 8}, {"waxed_oxidized_copper_bulb", 4},
    };
    *level = 0;
    for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++)
        if (strcmp(name, lit[i].name) == 0)
            return *level = lit[i].level, RULE_LIT;
    if (strcmp(name, "candle") == 0 || ends_with(name, "_candle"))
        return RULE_CANDLE;
    if (ends_with(name, "candle_cake"))
        return RULE_CANDLE_CAKE;
    if (strcmp(name, "sea_pickle") == 0)
        return RULE_SEA_PICKLE;
    if (strcmp(name, "light") == 0)
        return RULE_LIGHT;
    if (strcmp(name, "respawn_anchor") == 0)
        return RULE_ANCHOR;
    if (strcmp(name, "cave_vines") == 0 || strcmp(name, "cave_vines_plant") == 0)
        return RULE_BERRIES;
    if (strcmp(name, "glow_lichen") == 0)
        return *level = 7, RULE_FIXED;
    return RULE_ROW;
}

/* Luminance of a state of a block whose rule is not RULE_ROW. */
static unsigned rule_emission(emission_rule rule, int level, const mc_registry *reg, uint32_t state)
{
    switch (rule) {
    case RULE_LIT:
        return prop_true(reg, state, "lit") ? (unsigned)level : 0;
    case RULE_CANDLE:
        return prop_true(reg, state, "lit") ? (unsigned)(3 * prop_int(reg, state, "candles", 1)) : 0;
    case RULE_CANDLE_CAKE:
        return prop_true(reg, state, "lit") ? 3 : 0;
    case RULE_SEA_PICKLE:
        return prop_true(reg, state, "waterlogged") ? (unsigned)(3 + 3 * prop_int(reg, state, "pickles", 1)) : 0;
    case RULE_LIGHT:
        return (unsigned)prop_int(reg, state, "level", 15);
    case RULE_ANCHOR:
        return (unsigned)(prop_int(reg, state, "charges", 0) * 15 / 4);
    case RULE_BERRIES:
        return prop_true(reg, state, "berries") ? 14 : 0;
    default:
        return (unsigned)level;
    }
}

/* What a block's states share: looked up once per block, not per state
 * (a registry has ~27,000 states of ~1,000 blocks). */
typedef struct block_facts {
    const mc__light_row *row;
    emission_rule rule;
    int level;
    bool waterloggable; /* has the waterlogged property */
} block_facts;

static void block_facts_of(const mc_registry *reg, int32_t dv, uint32_t state, block_facts *b)
{
    const char *full = mc_registry_state_name(reg, state);
    const char *name = full ? strip(full) : "";
    b->row = find_row(name, dv);
    b->rule = rule_of(name, &b->level);
    b->waterloggable = mc_registry_state_prop_value(reg, state, "waterlogged") != NULL;
}

/* The facts of one state of a registry that has rows of its own; `first`
 * is its block's first state. */
static void state_facts(const mc_registry *reg, const block_facts *b, uint32_t state, uint32_t first,
                        uint8_t *info, uint8_t *faces)
{
    const mc__light_row *row = b->row;
    unsigned opacity = row ? row->filter : 15, emit = row ? row->emit : 0, f = 0;
    if (b->rule != RULE_ROW)
        emit = rule_emission(b->rule, b->level, reg, state);
    if (row && row->face_count) {
        uint32_t k = state - first;
        f = k < row->face_count ? mc__light_faces[row->faces + k] : 0;
        opacity = f == 63 ? 15 : 0; /* solid render only as a full cube */
    }
    if (b->waterloggable && opacity == 0 && prop_true(reg, state, "waterlogged"))
        opacity = 1; /* a fluid inside: no longer lets sky light straight down */
    *info = (uint8_t)((opacity > 15 ? 15 : opacity) | (emit > 15 ? 15 : emit) << 4);
    *faces = (uint8_t)(f == 63 ? 0 : f); /* a full cube dampens 15 anyway */
}

static int32_t own_dv(const mc_registry *reg)
{
    mc_version_info v;
    if (mc_registry_edition(reg) != MC_EDITION_JAVA || !mc_java_version_find(mc_registry_name(reg), &v) ||
        v.data_version < FIRST_DV)
        return -1;
    return v.data_version;
}

/* The Java registry with rows that reg's states are mapped to. */
static const mc_registry *proxy_for(const mc_registry *reg)
{
    if (mc_registry_edition(reg) == MC_EDITION_JAVA)
        return mc_registry_find("1.13.2");
    const mc_registry *best = NULL;
    for (size_t i = 0; i < mc_registry_count(); i++) {
        const mc_registry *r = mc_registry_at(i);
        if (mc_registry_edition(r) == MC_EDITION_JAVA && own_dv(r) > 0)
            best = r; /* Java first, oldest first: the last one is the newest */
    }
    return best;
}

/* The class of a special kind in the numbering of light_private.h: 0 sky
 * passes, 1 sky enters but stops below, 2 sky stops above. */
static unsigned special_class(unsigned opacity, unsigned faces)
{
    return opacity || (faces & MC__FACE_UP) ? 2 : (faces & MC__FACE_DOWN) ? 1 : 0;
}

#define KEY(opacity, faces, emission) ((opacity) | (faces) << 4 | (emission) << 10)

/* Numbers the facts of t's states as kinds: a plain state's kind is its
 * opacity; the special ones (faces or luminance) get 128 on, by class,
 * then by key. MC_ERR_LIMIT if a registry ever had more than 127 special
 * kinds (the newest has about 50). */
static mc_status number_kinds(mc__light_table *t, const mc_allocator *alloc)
{
    const size_t nkeys = 1u << 14;
    uint8_t *seen = alloc->alloc(alloc->user, nkeys);
    if (!seen)
        return mc__light_table_free(t, alloc), MC_ERR_NOMEM;
    memset(seen, 0, nkeys);
    for (uint32_t s = 0; s <= t->count; s++)
        seen[KEY(t->info[s] & 15u, t->faces[s], t->info[s] >> 4)] = 1;
    mc__light_kinds *k = &t->kinds;
    memset(k, 0, sizeof *k);
    for (unsigned o = 0; o < MC__KIND_PLAIN; o++) {
        k->opacity[o] = (uint8_t)o;
        seen[KEY(o, 0, 0)] = (uint8_t)(o + 1); /* 0 stays "not seen" */
    }
    uint8_t *bounds[3] = {&k->hp, &k->st, NULL};
    unsigned next = MC__KIND_SPECIAL;
    for (unsigned c = 0; c < 3; c++) {
        for (unsigned key = MC__KIND_PLAIN; key < nkeys; key++) {
            const unsigned op = key & 15u, f = (key >> 4) & 63u, em = key >> 10;
            if (seen[key] != 1 || (f == 0 && em == 0) || special_class(op, f) != c)
                continue;
            if (next >= MC__KIND_WALL) {
                alloc->free(alloc->user, seen, nkeys);
                return mc__light_table_free(t, alloc), MC_ERR_LIMIT;
            }
            seen[key] = (uint8_t)(next + 1);
            k->opacity[next] = (uint8_t)op;
            k->faces[next] = (uint8_t)f;
            k->emission[next] = (uint8_t)em;
            next++;
        }
        if (bounds[c])
            *bounds[c] = (uint8_t)next;
    }
    k->opacity[MC__KIND_WALL] = 15;
    for (unsigned kd = 0; kd < 256; kd++) {
        const unsigned o = k->opacity[kd];
        k->cls[kd] = (uint8_t)((o <= 1 ? MC__CLS_PASS : 0) | (o == 0 ? MC__CLS_CLEAR : 0) |
                               (!k->faces[kd] && (o <= 1 || o == 15) ? MC__CLS_DIRECT : 0) |
                               (kd <= 1 || kd == 15 ? MC__CLS_PLAIN : 0));
    }
    for (uint32_t s = 0; s <= t->count; s++)
        t->kind[s] = (uint8_t)(seen[KEY(t->info[s] & 15u, t->faces[s], t->info[s] >> 4)] - 1);
    alloc->free(alloc->user, seen, nkeys);
    return MC_OK;
}

static mc_status fill_own(mc__light_table *t, const mc_registry *reg, int32_t dv)
{
    const char *prev = NULL;
    uint32_t first = 0;
    block_facts b = {0};
    for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
         s = mc_registry_next_state(reg, s)) {
        if (s >= t->count)
            break;
        const char *name = mc_registry_state_name(reg, s);
        if (!prev || !name || strcmp(prev, name) != 0) {
            first = s;
            block_facts_of(reg, dv, s, &b);
        }
        prev = name;
        state_facts(reg, &b, s, first, &t->info[s], &t->faces[s]);
    }
    return MC_OK;
}

mc_status mc__light_table_build(mc__light_table *t, const mc_registry *reg, const mc_allocator *alloc)
{
    alloc = mc_alloc_or_default(alloc);
    memset(t, 0, sizeof *t);
    t->reg = reg;
    t->count = mc_registry_state_count(reg);
    t->info = alloc->alloc(alloc->user, (size_t)t->count + 1);
    t->faces = alloc->alloc(alloc->user, (size_t)t->count + 1);
    t->kind = alloc->alloc(alloc->user, (size_t)t->count + 1);
    if (!t->info || !t->faces || !t->kind) {
        mc__light_table_free(t, alloc);
        return MC_ERR_NOMEM;
    }
    memset(t->info, 15, (size_t)t->count + 1); /* invalid ids: opaque, dark */
    memset(t->faces, 0, (size_t)t->count + 1);
    int32_t dv = own_dv(reg);
    if (dv > 0) {
        fill_own(t, reg, dv);
        return number_kinds(t, alloc);
    }
    const mc_registry *proxy = proxy_for(reg);
    const uint32_t *map = proxy ? mc_registry_map(reg, proxy) : NULL;
    if (!map)
        return mc__light_table_free(t, alloc), MC_ERR_NOMEM;
    mc__light_table pt;
    mc_status st = mc__light_table_build(&pt, proxy, alloc);
    if (st != MC_OK)
        return mc__light_table_free(t, alloc), st;
    for (uint32_t s = 0; s < t->count; s++)
        if (mc_registry_state_valid(reg, s) && map[s] < pt.count) {
            t->info[s] = pt.info[map[s]];
            t->faces[s] = pt.faces[map[s]];
        }
    mc__light_table_free(&pt, alloc);
    return number_kinds(t, alloc);
}

void mc__light_table_free(mc__light_table *t, const mc_allocator *alloc)
{
    alloc = mc_alloc_or_default(alloc);
    if (t->info)
        alloc->free(alloc->user, t->info, (size_t)t->count + 1);
    if (t->faces)
        alloc->free(alloc->user, t->faces, (size_t)t->count + 1);
    if (t->kind)
        alloc->free(alloc->user, t->kind, (size_t)t->count + 1);
    t->info = t->faces = t->kind = NULL;
}
