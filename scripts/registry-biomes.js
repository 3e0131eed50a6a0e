/*
 * registry-biomes.js: the climate of every biome name, for gen-registries.js
 * (src/registry/data/reg_biomes.c). A biome a version lacks is translated
 * to the biome of that version with the nearest climate (temperature,
 * downfall, precipitation) in the same dimension, preferring its category
 * (src/registry/biome.c); these are the facts it compares.
 *
 * Per name (Java and Bedrock names share one table: most are the same
 * biome), from minecraft-data's biomes.json of every version, newest
 * first: temperature, "rainfall" (downfall; minecraft-data has it up to
 * 1.17), precipitation ("precipitation" != "none", or has_precipitation),
 * dimension, colour, and the category, normalised to one vocabulary
 * (minecraft-data's Java categories changed in 1.18 and Bedrock's are tags).
 * The downfall of the biomes 1.18 and later added is not in minecraft-data;
 * DOWNFALL below has the game's values (its worldgen biome definitions).
 */
'use strict';

/* Downfall of biomes minecraft-data lists only without it (1.18+). */
const DOWNFALL = {
    meadow: 0.8, grove: 0.8, snowy_slopes: 0.9, frozen_peaks: 0.9, jagged_peaks: 0.9, stony_peaks: 0.3,
    lush_caves: 0.5, dripstone_caves: 0.4, deep_dark: 0.4, mangrove_swamp: 0.9, cherry_grove: 0.8,
    pale_garden: 0.8,
};

/* Categories minecraft-data gives otherwise than the game's biome tags. */
const CATEGORY_OVERRIDE = { mangrove_swamp: 'swamp', pale_garden: 'forest' };

/* Category names -> the canonical ones (order: the C side's MC__BIOME_CAT_*). */
const CATEGORIES = ['none', 'ocean', 'plains', 'desert', 'mountain', 'forest', 'taiga', 'swamp', 'river',
    'nether', 'the_end', 'icy', 'mushroom', 'beach', 'jungle', 'savanna', 'mesa', 'underground'];
const CATEGORY_ALIASES = {
    extreme_hills: 'mountain', mountains: 'mountain', hills: 'mountain', ice: 'icy', frozen: 'icy',
    birch: 'forest', flower_forest: 'forest', mangrove_swamp: 'swamp', mooshroom_island: 'mushroom',
    bamboo: 'jungle', caves: 'underground', cold: 'taiga',
};
function category(c) {
    const n = CATEGORY_ALIASES[c] || c;
    const i = CATEGORIES.indexOf(n);
    return i < 0 ? 0 : i;
}
const DIMENSIONS = { overworld: 0, nether: 1, the_nether: 1, end: 2, the_end: 2 };

function build({ DATA, PATHS, load, vcmp }) {
    const climate = new Map(); /* bare name -> fields, first (newest) wins per field */
    for (const edition of ['pc', 'bedrock']) {
        const versions = Object.keys(PATHS[edition]).filter((v) => PATHS[edition][v].biomes).sort(vcmp).reverse();
        for (const v of versions) {
            for (const b of load(PATHS[edition][v].biomes, 'biomes') || []) {
                const name = b.name.replace(/^minecraft:/, '');
                if (!climate.has(name)) climate.set(name, {});
                const c = climate.get(name);
                if (c.temperature === undefined && typeof b.temperature === 'number') c.temperature = b.temperature;
                if (c.downfall === undefined && typeof b.rainfall === 'number') c.downfall = b.rainfall;
                if (c.precipitation === undefined && b.precipitation !== undefined) c.precipitation = b.precipitation !== 'none';
                if (c.precipitation === undefined && b.has_precipitation !== undefined) c.precipitation = !!b.has_precipitation;
                if (c.dimension === undefined && DIMENSIONS[b.dimension] !== undefined) c.dimension = DIMENSIONS[b.dimension];
                if (c.color === undefined && typeof b.color === 'number') c.color = b.color;
                const cat = CATEGORY_OVERRIDE[name] || (/river$/.test(name) ? 'river' : /ocean$/.test(name) ? 'ocean'
                    : /(beach|shore)$/.test(name) ? 'beach' : b.category);
                if (!c.category && category(cat)) c.category = category(cat);
            }
        }
    }
    void DATA;
    const out = [];
    for (const [name, c] of climate) {
        const precipitation = c.precipitation === undefined ? true : c.precipitation;
        let downfall = c.downfall;
        if (downfall === undefined) downfall = DOWNFALL[name] !== undefined ? DOWNFALL[name] : precipitation ? 0.5 : 0;
        out.push({
            name: 'minecraft:' + name,
            temperature: Math.round((c.temperature === undefined ? 0.5 : c.temperature) * 1000),
            downfall: Math.round(downfall * 1000),
            color: (c.color || 0) & 0xffffff,
            category: c.category || 0,
            dimension: c.dimension || 0,
            precipitation: precipitation ? 1 : 0,
        });
    }
    return out;
}

module.exports = { build, CATEGORIES };
