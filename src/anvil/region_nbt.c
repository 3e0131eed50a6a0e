/*
 * region_nbt.c: the NBT-level checks verify and salvage apply to a
 * decompressed chunk payload (see region_check_nbt.h).
 *
 * The payload must be one Java NBT root tag (a compound) and nothing else.
 * A chunk names its own position in one of three places, by era: xPos/zPos
 * at the root (21w43a / 1.18+), Level.xPos/Level.zPos (before), or
 * Position: int[2] (entities/ files, 20w45a / 1.17+). POI records carry no
 * position. When one is present and the file name gave the region's
 * coordinates, it must equal the chunk's absolute coordinates.
 */
#include <stdio.h>

#include "anvil/region_check_nbt.h"
#include "mcchunk/nbt.h"

static bool get_int(const mc_nbt_tag *compound, const char *key, int32_t *out)
{
    const mc_nbt_tag *t = compound ? mc_nbt_get(compound, key) : NULL;
    int64_t v;
    if (!t || mc_nbt_get_integer(t, &v) != MC_OK)
        return false;
    *out = (int32_t)v;
    return true;
}

/* Finds the position the chunk claims; false when it names none. */
static bool claimed_position(const mc_nbt_tag *root, int32_t *x, int32_t *z)
{
    if (get_int(root, "xPos", x) && get_int(root, "zPos", z))
        return true;
    const mc_nbt_tag *level = mc_nbt_get(root, "Level");
    if (level && mc_nbt_tag_type(level) == MC_NBT_COMPOUND && get_int(level, "xPos", x) &&
        get_int(level, "zPos", z))
        return true;
    mc_nbt_array a;
    const mc_nbt_tag *pos = mc_nbt_get(root, "Position");
    if (pos && mc_nbt_get_array(pos, MC_NBT_INT_ARRAY, &a) == MC_OK && a.count == 2) {
        *x = (int32_t)mc_nbt_array_i32(&a, 0);
        *z = (int32_t)mc_nbt_array_i32(&a, 1);
        return true;
    }
    return false;
}

int mc__region_check_nbt(const uint8_t *data, size_t len, bool origin_known, int32_t cx,
                         int32_t cz, mc_region_problem_kind *kind, char *msg, size_t msg_size)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc) {
        *kind = MC_REGION_PROBLEM_BAD_NBT;
        snprintf(msg, msg_size, "out of memory checking NBT");
        return 1;
    }
    mc_error err;
    mc_error_clear(&err);
    int bad = 0;
    if (mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, &err) != MC_OK) {
        *kind = MC_REGION_PROBLEM_BAD_NBT;
        snprintf(msg, msg_size, "unreadable NBT: %s", err.message);
        bad = 1;
    } else {
        const mc_nbt_tag *root = mc_nbt_doc_root(doc);
        int32_t x, z;
        if (!root || mc_nbt_tag_type(root) != MC_NBT_COMPOUND) {
            *kind = MC_REGION_PROBLEM_BAD_NBT;
            snprintf(msg, msg_size, "NBT root is not a compound");
            bad = 1;
        } else if (origin_known && claimed_position(root, &x, &z) && (x != cx || z != cz)) {
            *kind = MC_REGION_PROBLEM_POSITION;
            snprintf(msg, msg_size, "NBT says chunk %d %d, its place is chunk %d %d", (int)x,
                     (int)z, (int)cx, (int)cz);
            bad = 1;
        }
    }
    mc_nbt_doc_free(doc);
    return bad;
}
