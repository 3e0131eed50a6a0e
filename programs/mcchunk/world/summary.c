/*
 * summary.c: the few keys of a chunk that info, prune and verify look at
 * -- DataVersion, position, generation status, InhabitedTime, LastUpdate --
 * read without decoding the chunk: a filtered parse keeps those keys of
 * the root and of Level (before 1.18) and steps over everything else
 * (checked for structure, never built).
 *
 * Statuses: the game renamed them twice, so they are ranked in one order.
 * 1.13's names (base, carved, liquid_carved, decorated, lighted,
 * mobs_spawned, finalized, fullchunk, postprocessed) became 1.14's
 * (surface, carvers, liquid_carvers, features, light, spawn, heightmaps,
 * full, full) [DataFixer ChunkStatusFix2]; 1.20 (RemapChunkStatusFix)
 * folded liquid_carvers into carvers and heightmaps into spawn, added
 * initialize_light, and namespaced them all ("minecraft:full"). Before
 * 1.13 a chunk has only TerrainPopulated: 1 is a finished chunk, 0 one
 * whose terrain awaits its features.
 */
#include <string.h>

#include "world/world.h"

static const struct {
    const char *name;
    int rank;
} status_names[] = {
    {"empty", WORLD_STATUS_EMPTY},
    {"structure_starts", WORLD_STATUS_STRUCTURE_STARTS},
    {"structure_references", WORLD_STATUS_STRUCTURE_REFERENCES},
    {"biomes", WORLD_STATUS_BIOMES},
    {"noise", WORLD_STATUS_NOISE},
    {"surface", WORLD_STATUS_SURFACE},
    {"carvers", WORLD_STATUS_CARVERS},
    {"liquid_carvers", WORLD_STATUS_LIQUID_CARVERS},
    {"features", WORLD_STATUS_FEATURES},
    {"initialize_light", WORLD_STATUS_INITIALIZE_LIGHT},
    {"light", WORLD_STATUS_LIGHT},
    {"spawn", WORLD_STATUS_SPAWN},
    {"heightmaps", WORLD_STATUS_HEIGHTMAPS},
    {"full", WORLD_STATUS_FULL},
    /* 1.13 */
    {"base", WORLD_STATUS_SURFACE},
    {"carved", WORLD_STATUS_CARVERS},
    {"liquid_carved", WORLD_STATUS_LIQUID_CARVERS},
    {"decorated", WORLD_STATUS_FEATURES},
    {"lighted", WORLD_STATUS_LIGHT},
    {"mobs_spawned", WORLD_STATUS_SPAWN},
    {"finalized", WORLD_STATUS_HEIGHTMAPS},
    {"fullchunk", WORLD_STATUS_FULL},
    {"postprocessed", WORLD_STATUS_FULL},
};

int world_status_rank(const char *name, size_t len)
{
    if (len > 10 && !memcmp(name, "minecraft:", 10))
        name += 10, len -= 10;
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (strlen(status_names[i].name) == len && !memcmp(status_names[i].name, name, len))
            return status_names[i].rank;
    return WORLD_STATUS_UNKNOWN;
}

const char *world_status_name(int rank)
{
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (status_names[i].rank == rank)
            return status_names[i].name;
    return "unknown";
}

static bool key_is(const char *k, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(k, lit, n);
}

static bool keep_key(void *user, unsigned depth, const char *parent, size_t parent_len, const char *key,
                     size_t key_len)
{
    (void)user;
    if (depth == 2 && !key_is(parent, parent_len, "Level"))
        return false;
    if (depth == 1 && key_is(key, key_len, "Level"))
        return true;
    return key_is(key, key_len, "DataVersion") || key_is(key, key_len, "xPos") || key_is(key, key_len, "zPos") ||
           key_is(key, key_len, "Status") || key_is(key, key_len, "InhabitedTime") ||
           key_is(key, key_len, "LastUpdate") || key_is(key, key_len, "TerrainPopulated") ||
           key_is(key, key_len, "Position");
}

static bool get_integer(const mc_nbt_tag *c, const char *key, int64_t *out)
{
    return c && mc_nbt_get_integer(mc_nbt_get(c, key), out) == MC_OK;
}

mc_status world_chunk_summarize(mc_nbt_doc *doc, const uint8_t *nbt, size_t len, world_chunk_summary *out,
                                mc_error *err)
{
    memset(out, 0, sizeof *out);
    out->status = WORLD_STATUS_UNKNOWN;
    mc_nbt_doc_reset(doc);
    mc_nbt_filter f = {2, keep_key, NULL, NULL, false};
    mc_status st = mc_nbt_parse_filtered(doc, nbt, len, MC_NBT_JAVA, 0, &f, NULL, NULL, err);
    if (st)
        return st;
    const mc_nbt_tag *root = mc_nbt_doc_root(doc);
    if (!root || mc_nbt_tag_type(root) != MC_NBT_COMPOUND)
        return mc_error_set(err, MC_ERR_MALFORMED, 0, "chunk NBT root is not a compound");
    int64_t v;
    if (get_integer(root, "DataVersion", &v))
        out->data_version = (int32_t)v;
    const mc_nbt_tag *level = mc_nbt_get(root, "Level");
    if (level && mc_nbt_tag_type(level) != MC_NBT_COMPOUND)
        level = NULL;
    const mc_nbt_tag *h = level ? level : root;
    int64_t x, z;
    if (get_integer(h, "xPos", &x) && get_integer(h, "zPos", &z)) {
        out->x = (int32_t)x, out->z = (int32_t)z;
        out->has_position = true;
    } else {
        mc_nbt_array a;
        if (mc_nbt_get_array(mc_nbt_get(root, "Position"), MC_NBT_INT_ARRAY, &a) == MC_OK && a.count == 2) {
            out->x = (int32_t)mc_nbt_array_i32(&a, 0), out->z = (int32_t)mc_nbt_array_i32(&a, 1);
            out->has_position = true;
        }
    }
    get_integer(h, "InhabitedTime", &out->inhabited);
    get_integer(h, "LastUpdate", &out->last_update);
    const char *s;
    size_t n;
    if (mc_nbt_get_string(mc_nbt_get(h, "Status"), &s, &n) == MC_OK)
        out->status = world_status_rank(s, n);
    else if (get_integer(h, "TerrainPopulated", &v))
        out->status = v ? WORLD_STATUS_FULL : WORLD_STATUS_LIQUID_CARVERS;
    else if (level)
        out->status = WORLD_STATUS_LIQUID_CARVERS; /* a missing flag reads as 0 */
    return MC_OK;
}
