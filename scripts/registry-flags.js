/*
 * registry-flags.js: the per-state MC_STATE_* flags, derived from what
 * minecraft-data records (see include/mcchunk/registry.h for the bits).
 *
 * Rules (Java; Bedrock uses the same name rules and minecraft-data's
 * boundingBox, as it has no per-state shapes):
 *   AIR           name is air, cave_air or void_air.
 *   FLUID         name is water, lava, bubble_column, kelp, kelp_plant,
 *                 seagrass or tall_seagrass (always a fluid state in vanilla),
 *                 or the state has waterlogged=true.
 *   LEAVES        name ends in "leaves" (vanilla: LeavesBlock subclasses).
 *   BLOCKS_MOTION the game's 1.20+ "legacy solid" rule applied to the state's
 *                 collision shape from blockCollisionShapes.json: a non-empty
 *                 shape whose bounding box has mean edge >= 0.7291666 or
 *                 height >= 1. Exceptions vanilla hard-codes: cobweb and
 *                 bamboo_sapling never block motion; snow layers never do
 *                 (forceSolidOff; before 1.20 the TOP_SNOW material). Without
 *                 a shape entry: minecraft-data's boundingBox == "block".
 *   VALID         every state of the registry.
 * Two more bits are the translation's, never shown by the public flag
 * functions (src/registry/registry.c masks them): the state's shape class,
 * which tells the fallbacks of src/registry/fallback.c a full building
 * block from a plant:
 *   FULL          the collision shape is exactly the unit cube (without a
 *                 shape entry: boundingBox == "block").
 *   NOCOLL        the collision shape is empty (boundingBox == "empty").
 * Heightmaps: MOTION_BLOCKING = BLOCKS_MOTION | FLUID, OCEAN_FLOOR =
 * BLOCKS_MOTION; the chunk module combines them.
 */
'use strict';

const AIR = 1, FLUID = 2, BLOCKS_MOTION = 4, LEAVES = 8, FULL = 16, NOCOLL = 32, VALID = 128;
const AIR_NAMES = new Set(['air', 'cave_air', 'void_air']);
const FLUID_NAMES = new Set(['water', 'lava', 'bubble_column', 'kelp', 'kelp_plant', 'seagrass',
    'tall_seagrass', 'flowing_water', 'flowing_lava']);
const NEVER_BLOCKS = new Set(['cobweb', 'web', 'bamboo_sapling', 'snow', 'snow_layer']);

function bare(name) { return name.replace(/^minecraft:/, ''); }

function shapeSolid(boxes) {
    if (!boxes || boxes.length === 0) return false;
    let x0 = 1e9, y0 = 1e9, z0 = 1e9, x1 = -1e9, y1 = -1e9, z1 = -1e9;
    for (const b of boxes) {
        x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); z0 = Math.min(z0, b[2]);
        x1 = Math.max(x1, b[3]); y1 = Math.max(y1, b[4]); z1 = Math.max(z1, b[5]);
    }
    const mean = ((x1 - x0) + (y1 - y0) + (z1 - z0)) / 3;
    return mean >= 0.7291666666666666 || (y1 - y0) >= 1.0;
}

function isUnitCube(boxes) {
    return !!boxes && boxes.length === 1 && boxes[0].join(',') === '0,0,0,1,1,1';
}

/* FULL / NOCOLL of a state from its boxes (null: no shape data) and boundingBox. */
function shapeClass(boxes, boundingBox) {
    if (boxes) return isUnitCube(boxes) ? FULL : boxes.length === 0 ? NOCOLL : 0;
    return boundingBox === 'block' ? FULL : boundingBox === 'empty' ? NOCOLL : 0;
}

function nameFlags(name) {
    const n = bare(name);
    let f = VALID;
    if (AIR_NAMES.has(n)) f |= AIR;
    if (FLUID_NAMES.has(n)) f |= FLUID;
    if (n.endsWith('leaves') || n === 'leaves2') f |= LEAVES;
    return f;
}

/* block: minecraft-data block entry; values: {prop: value} of the state;
 * index: the state's offset inside the block; shapes: blockCollisionShapes. */
function javaFlags(block, values, index, shapes) {
    let f = nameFlags(block.name);
    if (values.waterlogged === 'true') f |= FLUID;
    if (f & AIR) return f | NOCOLL;
    let solid, boxes = null;
    const entry = shapes.blocks[block.name];
    if (entry === undefined) {
        solid = block.boundingBox === 'block';
    } else {
        const id = Array.isArray(entry) ? entry[index] : entry;
        boxes = shapes.shapes[id] || [];
        solid = shapeSolid(boxes);
    }
    if (NEVER_BLOCKS.has(block.name)) solid = false;
    if (solid) f |= BLOCKS_MOTION;
    return f | shapeClass(boxes, block.boundingBox);
}

/* A legacy state that legacy.json does not map to 1.13. */
function legacyFallbackFlags(block) {
    let f = nameFlags(block.name);
    if (!(f & (AIR | FLUID)) && block.boundingBox === 'block' && !NEVER_BLOCKS.has(block.name))
        f |= BLOCKS_MOTION;
    return f | shapeClass(null, block.boundingBox);
}

/* Bedrock: names, the water-layer-free view (waterlogging is a second
 * storage layer there, not a state), and boundingBox. */
function bedrockFlags(name, block) {
    let f = nameFlags(name);
    const n = bare(name);
    if (n === 'flowing_water' || n === 'flowing_lava') f |= FLUID;
    if (!(f & (AIR | FLUID)) && block && block.boundingBox === 'block' && !NEVER_BLOCKS.has(n))
        f |= BLOCKS_MOTION;
    return f | (f & AIR ? NOCOLL : shapeClass(null, block && block.boundingBox));
}

/* A block's coarse material class from minecraft-data's "material" (the
 * old material names up to 1.16, the mining tags after): 0 unknown, 1 rock,
 * 2 wood, 3 earth, 4 plant, 5 wool, 6 leaves. The translation's fallbacks
 * prefer a stand-in of the same class (rock for rock, ...). */
const MATERIAL_RULES = [
    [/leaves/, 6], [/plant|vine|gourd|coweb|web/, 4], [/wool/, 5],
    [/pickaxe|^rock$|incorrect_for_wooden_tool/, 1], [/mineable\/axe|^wood$/, 2], [/shovel|^dirt$/, 3],
];
function materialClass(material) {
    for (const [re, c] of MATERIAL_RULES) if (typeof material === 'string' && re.test(material)) return c;
    return 0;
}

module.exports = { materialClass, javaFlags, legacyFallbackFlags, bedrockFlags, AIR, FLUID, BLOCKS_MOTION, LEAVES, FULL, NOCOLL, VALID };
