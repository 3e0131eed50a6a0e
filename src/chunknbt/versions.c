/*
 * versions.c: the facts of chunk NBT that depend on the DataVersion alone,
 * shared by the reader and the writer: which registry a DataVersion's
 * chunks are written in, the DataVersion of a chunk or a column, and the
 * biome names that 1.18 (schema 2838) merged and renamed, in both
 * directions. (The section layout rules per DataVersion range are a table in
 * chunknbt_private.h.)
 */
#include "chunknbt/chunknbt_private.h"

#include <string.h>

/* ------------------------------------------------------------ registries */

const mc_registry *mc_chunknbt_registry_for(int32_t dv)
{
    if (dv <= 0)
        return mc_registry_find("1.8.9");
    if (dv < MC_CHUNKNBT_DV_FLATTENING && dv > 1343)
        return mc_registry_find("1.12.2"); /* 1.13 snapshots before the flattening */
    const mc_registry *r = mc_registry_find_data_version(dv);
    if (r)
        return r;
    for (size_t i = mc_java_version_count(); i-- > 0;) {
        mc_version_info vi;
        if (mc_java_version_at(i, &vi) && vi.registry)
            return vi.registry;
    }
    return NULL;
}

int32_t mc__newest_known_dv(void)
{
    for (size_t i = mc_java_version_count(); i-- > 0;) {
        mc_version_info vi;
        if (mc_java_version_at(i, &vi) && vi.registry)
            return vi.data_version;
    }
    return 0;
}

int32_t mc_chunknbt_data_version(const mc_nbt_tag *root)
{
    int64_t v = 0;
    if (mc_nbt_get_integer(mc_nbt_get(root, "DataVersion"), &v) != MC_OK || v < 0 || v > INT32_MAX)
        return 0;
    return (int32_t)v;
}

int32_t mc_chunknbt_column_data_version(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col);
    int32_t dv;
    if (x && mc_nbt_get_int(mc_nbt_get(x, MC__KEY_SOURCE_DV), &dv) == MC_OK)
        return dv;
    /* a column built in memory: the DataVersion of its registry's release */
    const mc_registry *reg = mc_column_registry(col);
    int32_t best = 0;
    for (size_t i = 0; i < mc_java_version_count(); i++) {
        mc_version_info vi;
        if (mc_java_version_at(i, &vi) && vi.registry == reg)
            best = vi.data_version;
    }
    return best;
}

/* ----------------------------------------------------- 1.18 biome names */

/* 1.18 (21w40a, schema 2838 CavesAndCliffsRenames; deep_warm_ocean at 2843)
 * merged and renamed the pre-1.18 biomes; a name missing in the target is
 * looked up under its other-era name (old -> new here, and new -> the first
 * old name for writes to older versions). */
static const char *const biome_renames[][2] = {
    {"minecraft:badlands_plateau", "minecraft:badlands"},
    {"minecraft:bamboo_jungle_hills", "minecraft:bamboo_jungle"},
    {"minecraft:birch_forest_hills", "minecraft:birch_forest"},
    {"minecraft:dark_forest_hills", "minecraft:dark_forest"},
    {"minecraft:desert_hills", "minecraft:desert"},
    {"minecraft:desert_lakes", "minecraft:desert"},
    {"minecraft:giant_spruce_taiga", "minecraft:old_growth_spruce_taiga"},
    {"minecraft:giant_spruce_taiga_hills", "minecraft:old_growth_spruce_taiga"},
    {"minecraft:giant_tree_taiga", "minecraft:old_growth_pine_taiga"},
    {"minecraft:giant_tree_taiga_hills", "minecraft:old_growth_pine_taiga"},
    {"minecraft:gravelly_mountains", "minecraft:windswept_gravelly_hills"},
    {"minecraft:modified_gravelly_mountains", "minecraft:windswept_gravelly_hills"},
    {"minecraft:jungle_edge", "minecraft:sparse_jungle"},
    {"minecraft:modified_jungle_edge", "minecraft:sparse_jungle"},
    {"minecraft:jungle_hills", "minecraft:jungle"},
    {"minecraft:modified_jungle", "minecraft:jungle"},
    {"minecraft:modified_badlands_plateau", "minecraft:badlands"},
    {"minecraft:wooded_badlands_plateau", "minecraft:wooded_badlands"},
    {"minecraft:modified_wooded_badlands_plateau", "minecraft:wooded_badlands"},
    {"minecraft:mountains", "minecraft:windswept_hills"},
    {"minecraft:mountain_edge", "minecraft:windswept_hills"},
    {"minecraft:wooded_mountains", "minecraft:windswept_forest"},
    {"minecraft:mushroom_field_shore", "minecraft:mushroom_fields"},
    {"minecraft:shattered_savanna", "minecraft:windswept_savanna"},
    {"minecraft:shattered_savanna_plateau", "minecraft:windswept_savanna"},
    {"minecraft:snowy_tundra", "minecraft:snowy_plains"},
    {"minecraft:snowy_mountains", "minecraft:snowy_plains"},
    {"minecraft:snowy_taiga_hills", "minecraft:snowy_taiga"},
    {"minecraft:snowy_taiga_mountains", "minecraft:snowy_taiga"},
    {"minecraft:stone_shore", "minecraft:stony_shore"},
    {"minecraft:swamp_hills", "minecraft:swamp"},
    {"minecraft:taiga_hills", "minecraft:taiga"},
    {"minecraft:taiga_mountains", "minecraft:taiga"},
    {"minecraft:tall_birch_forest", "minecraft:old_growth_birch_forest"},
    {"minecraft:tall_birch_hills", "minecraft:old_growth_birch_forest"},
    {"minecraft:wooded_hills", "minecraft:forest"},
    {"minecraft:lofty_peaks", "minecraft:jagged_peaks"},
    {"minecraft:snowcapped_peaks", "minecraft:frozen_peaks"},
    {"minecraft:deep_warm_ocean", "minecraft:warm_ocean"},
};

const char *mc__biome_renamed_1_18(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof biome_renames / sizeof biome_renames[0]; i++)
        if (strlen(biome_renames[i][0]) == len && !memcmp(biome_renames[i][0], name, len))
            return biome_renames[i][1];
    return NULL;
}

/* The names 2832..2837 chunks use for biomes that schema 2838 renamed
 * (the one-to-one entries of CavesAndCliffsRenames; the merged ones kept
 * a name that existed before) [MOJ-J util/datafix/fixes]. */
static const char *const pre_2838_names[][2] = {
    {"minecraft:windswept_hills", "minecraft:mountains"},
    {"minecraft:windswept_gravelly_hills", "minecraft:gravelly_mountains"},
    {"minecraft:windswept_forest", "minecraft:wooded_mountains"},
    {"minecraft:windswept_savanna", "minecraft:shattered_savanna"},
    {"minecraft:old_growth_pine_taiga", "minecraft:giant_tree_taiga"},
    {"minecraft:old_growth_spruce_taiga", "minecraft:giant_spruce_taiga"},
    {"minecraft:old_growth_birch_forest", "minecraft:tall_birch_forest"},
    {"minecraft:snowy_plains", "minecraft:snowy_tundra"},
    {"minecraft:sparse_jungle", "minecraft:jungle_edge"},
    {"minecraft:stony_shore", "minecraft:stone_shore"},
    {"minecraft:wooded_badlands", "minecraft:wooded_badlands_plateau"},
    {"minecraft:jagged_peaks", "minecraft:lofty_peaks"},
    {"minecraft:frozen_peaks", "minecraft:snowcapped_peaks"},
};

const char *mc__biome_pre_2838_name(const char *name)
{
    for (size_t i = 0; i < sizeof pre_2838_names / sizeof pre_2838_names[0]; i++)
        if (!strcmp(pre_2838_names[i][0], name))
            return pre_2838_names[i][1];
    return NULL;
}

uint32_t mc__biome_renamed_id(const mc_registry *to, const char *name)
{
    for (size_t i = 0; i < sizeof biome_renames / sizeof biome_renames[0]; i++)
        for (int dir = 0; dir < 2; dir++)
            if (!strcmp(biome_renames[i][dir], name)) {
                uint32_t t = mc_registry_biome_id(to, biome_renames[i][!dir]);
                if (t != MC_STATE_NONE)
                    return t;
            }
    return MC_STATE_NONE;
}
