#!/usr/bin/env node
/*
 * gen-block-colors.js: the colour of every block state and every biome's
 * tints, as seen on a top-down map, from the game's own textures (npm
 * minecraft-assets, pinned 1.19.0) and biome data (minecraft-data 3.117.0),
 * written as the const tables of src/registry/data/colors.c.
 *
 * Block states: every state of the newest Java registry (26.1). A state's
 * blockstate entry (a variant, or the multipart pieces whose conditions it
 * meets) names models with rotations; each model's elements are turned by
 * the variant's x rotation (which changes the face that looks up; the y
 * rotation only spins the picture, which leaves its average alone) and laid
 * on a 16x16 grid seen from above: each cell shows the texel of the highest
 * element's upward face there. The colour is the alpha-weighted average of
 * the grid's texels, its alpha the mean alpha over all 256 cells (so glass,
 * water, leaves, torches and flowers are translucent: a map blends them
 * over what lies below). Models with nothing facing up (crosses: flowers,
 * saplings, sugar cane) take the average of all their faces' textures, and
 * models without elements (fluids, chests, signs: drawn by code) their
 * particle texture; the invisible blocks (air, barrier, light, structure
 * void) are fully transparent. Animated textures use their first frame.
 *
 * Tints (the game's BlockColors; facts, listed below): a state of a block
 * tinted by its biome (grass, foliage, dry foliage, water) keeps the
 * untinted (grey) average and says which tint applies; the renderer
 * multiplies by the biome's colour. Fixed tints (spruce and birch leaves,
 * lily pad, stems, redstone wire by power) are multiplied in here. Parts of
 * a model that are not tinted (pink petals' flowers over tinted stems) count
 * with their own colour; a block whose tinted part is the smaller one is
 * stored with the tinted part multiplied by the tint's default (plains)
 * colour and no tint.
 *
 * Biomes: every biome name of every Java and Bedrock version minecraft-data
 * lists. Grass, foliage and dry foliage come from the colormaps
 * (textures colormap/grass.png, foliage.png, dry_foliage.png) sampled at
 * the biome's temperature and downfall (the game's rule: both clamped to
 * 0..1, downfall *= temperature, pixel ((1-downfall)*255, (1-temperature)*255)),
 * unless the biome overrides it (minecraft-data tints.json: badlands,
 * swamps, cherry grove, pale garden...); dark forests average with 0x28340A
 * (the game's dark_forest grass modifier). Water is the biome's water
 * colour (tints.json). Older and Bedrock names take the overrides of the
 * modern biome they are a form of (a short table below).
 *
 * Usage: node scripts/gen-block-colors.js [--out FILE]   (from anywhere;
 * rewrites src/registry/data/colors.c, or writes FILE, byte for byte the
 * same from the same packages)
 */
'use strict';
const fs = require('fs');
const path = require('path');
const assert = require('assert');

const ROOT = path.resolve(__dirname, '..');
const NM = path.join(ROOT, 'tests/interop/node_modules');
const MD = path.join(NM, 'minecraft-data');
const MA = path.join(NM, 'minecraft-assets');
const { PNG } = require(path.join(NM, 'pngjs'));
assert.strictEqual(require(path.join(MD, 'package.json')).version, '3.117.0', 'minecraft-data must be the pinned 3.117.0');
assert.strictEqual(require(path.join(MA, 'package.json')).version, '1.19.0', 'minecraft-assets must be the pinned 1.19.0');
const DATA = path.join(MD, 'minecraft-data/data');
const PATHS = require(path.join(DATA, 'dataPaths.json'));
const VERSION = '26.1';
const ASSETS = path.join(MA, 'minecraft-assets/data', VERSION);
const OUT_ARG = process.argv.indexOf('--out');
const OUT = OUT_ARG > 0 ? path.resolve(process.argv[OUT_ARG + 1]) : path.join(ROOT, 'src/registry/data/colors.c');

/* tint kinds: the C enum mc_tint (include/mcchunk/registry.h) */
const TINT = { none: 0, grass: 1, foliage: 2, dry_foliage: 3, water: 4, fixed: 5 };

/* The game's BlockColors (client), per block: which colour its tinted faces take. */
const BIOME_TINTED = {
    grass: ['grass_block', 'short_grass', 'tall_grass', 'fern', 'large_fern', 'potted_fern',
        'sugar_cane', 'pink_petals', 'wildflowers', 'bush'],
    foliage: ['oak_leaves', 'jungle_leaves', 'acacia_leaves', 'dark_oak_leaves', 'mangrove_leaves', 'vine'],
    dry_foliage: ['leaf_litter'],
    water: ['water', 'bubble_column', 'water_cauldron'],
};
const tintOf = new Map();
for (const [kind, names] of Object.entries(BIOME_TINTED))
    for (const n of names)
        tintOf.set(n, kind);

function unsigned(c) {
    return c >>> 0 & 0xffffff;
}
/* fixed tints: minecraft-data tints.json "constant" and "redstone" (the game's
 * FoliageColor and RedStoneWireBlock colours); stems by age (StemBlock: red
 * age*32, green 255-age*8, blue age*4) */
const TINTS = require(path.join(DATA, PATHS.pc[VERSION].tints, 'tints.json'));
const FIXED = new Map(TINTS.constant.data.map((e) => [e.keys[0], unsigned(e.color)]));
const REDSTONE = TINTS.redstone.data.map((e) => unsigned(e.color));
function fixedTint(name, props) {
    if (name === 'redstone_wire')
        return REDSTONE[Number(props.power)];
    if (name === 'melon_stem' || name === 'pumpkin_stem') {
        const age = Number(props.age);
        return (age * 32) << 16 | (255 - age * 8) << 8 | age * 4;
    }
    return FIXED.has(name) ? FIXED.get(name) : null;
}

/* blocks whose models have tinted faces that the game leaves untinted */
const UNTINTED = new Set(['cherry_leaves', 'pale_oak_leaves', 'lava_cauldron', 'powder_snow_cauldron',
    'bamboo_sapling', 'stonecutter']);

const INVISIBLE = new Set(['air', 'cave_air', 'void_air', 'barrier', 'light', 'structure_void', 'moving_piston']);

/* ------------------------------------------------------------ textures */

const textureCache = new Map();
/* "minecraft:block/stone" -> {w, h (one frame), data} or null */
function texture(ref) {
    ref = ref.replace(/^minecraft:/, '');
    if (textureCache.has(ref))
        return textureCache.get(ref);
    const [dir, ...rest] = ref.split('/');
    const file = path.join(ASSETS, dir === 'block' ? 'blocks' : dir === 'item' ? 'items' : dir, rest.join('/') + '.png');
    let tex = null;
    if (fs.existsSync(file)) {
        const png = PNG.sync.read(fs.readFileSync(file));
        tex = { w: png.width, h: Math.min(png.width, png.height), data: png.data }; /* first frame */
    }
    textureCache.set(ref, tex);
    return tex;
}

function texel(tex, u, v) { /* u, v in 0..16 */
    const x = Math.min(tex.w - 1, Math.max(0, Math.floor(u * tex.w / 16)));
    const y = Math.min(tex.h - 1, Math.max(0, Math.floor(v * tex.h / 16)));
    const i = (y * tex.w + x) * 4;
    return [tex.data[i], tex.data[i + 1], tex.data[i + 2], tex.data[i + 3]];
}

/* -------------------------------------------------------------- models */

const MODELS = require(path.join(ASSETS, 'blocks_models.json'));
const BLOCKSTATES = require(path.join(ASSETS, 'blocks_states.json'));
const modelKey = (ref) => ref.replace(/^minecraft:/, '').replace(/^block\//, '');

/* a model with its parents' textures and elements: {elements, textures} */
const modelCache = new Map();
function model(ref) {
    const key = modelKey(ref);
    if (modelCache.has(key))
        return modelCache.get(key);
    const m = MODELS[key];
    assert(m, 'unknown model ' + ref);
    const parent = m.parent && !m.parent.startsWith('builtin/') ? model(m.parent) : { elements: null, textures: {} };
    const textures = { ...parent.textures };
    for (const [k, v] of Object.entries(m.textures || {}))
        textures[k] = typeof v === 'string' ? v : v.sprite;
    const out = { elements: m.elements || parent.elements, textures };
    modelCache.set(key, out);
    return out;
}

function resolveTexture(textures, ref) {
    for (let i = 0; ref && ref.startsWith('#') && i < 16; i++)
        ref = textures[ref.slice(1)];
    return ref && !ref.startsWith('#') ? texture(ref) : null;
}

/* The face that looks up after an x rotation (the blockstate's "x": the
 * observer facing up is its north face turned by 270), and the element box
 * turned the same way about the block's centre. */
const UP_FACE = { 0: 'up', 90: 'south', 180: 'down', 270: 'north' };
function turnBox(from, to, x) {
    const [x0, y0, z0] = from, [x1, y1, z1] = to;
    switch (x) {
    case 90: return [[x0, z0, 16 - y1], [x1, z1, 16 - y0]];
    case 180: return [[x0, 16 - y1, 16 - z1], [x1, 16 - y0, 16 - z0]];
    case 270: return [[x0, 16 - z1, y0], [x1, 16 - z0, y1]];
    default: return [from, to];
    }
}
/* the texture area a face shows when the model gives no uv (the game's defaults) */
function defaultUv(face, from, to) {
    const [x0, y0, z0] = from, [x1, y1, z1] = to;
    switch (face) {
    case 'up': return [x0, z0, x1, z1];
    case 'down': return [x0, 16 - z1, x1, 16 - z0];
    case 'north': return [16 - x1, 16 - y1, 16 - x0, 16 - y0];
    case 'south': return [x0, 16 - y1, x1, 16 - y0];
    case 'west': return [z0, 16 - y1, z1, 16 - y0];
    default: return [16 - z1, 16 - y1, 16 - z0, 16 - y0];
    }
}

/* Lays one model (turned by x) onto the top-view grid: cells of
 * {top, rgba, tinted}. Returns the faces seen, for the cross fallback. */
function layModel(grid, m, x, faces) {
    for (const e of m.elements || []) {
        for (const [name, f] of Object.entries(e.faces))
            faces.push({ tex: resolveTexture(m.textures, f.texture), uv: f.uv || defaultUv(name, e.from, e.to),
                tinted: f.tintindex !== undefined });
        const faceName = UP_FACE[x || 0];
        const f = e.faces[faceName];
        if (!f)
            continue;
        const tex = resolveTexture(m.textures, f.texture);
        if (!tex)
            continue;
        const [from, to] = turnBox(e.from, e.to, x || 0);
        const uv = f.uv || defaultUv(faceName, e.from, e.to);
        const w = to[0] - from[0], d = to[2] - from[2];
        if (w <= 0 || d <= 0)
            continue;
        for (let cz = 0; cz < 16; cz++)
            for (let cx = 0; cx < 16; cx++) {
                const px = cx + 0.5, pz = cz + 0.5;
                if (px < from[0] || px > to[0] || pz < from[2] || pz > to[2])
                    continue;
                const cell = grid[cz * 16 + cx];
                if (cell && cell.top > to[1])
                    continue;
                const u = uv[0] + (uv[2] - uv[0]) * (px - from[0]) / w;
                const v = uv[1] + (uv[3] - uv[1]) * (pz - from[2]) / d;
                const rgba = texel(tex, u, v);
                if (rgba[3] === 0 && cell)
                    continue; /* a cut-out hole shows what is below */
                grid[cz * 16 + cx] = { top: to[1], rgba, tinted: f.tintindex !== undefined };
            }
    }
}

/* texels of a face's uv area, for models with nothing facing up */
function faceTexels(face) {
    const out = [];
    if (!face.tex)
        return out;
    const [u0, v0, u1, v1] = face.uv;
    const us = Math.min(u0, u1), ue = Math.max(u0, u1), vs = Math.min(v0, v1), ve = Math.max(v0, v1);
    for (let v = vs + 0.5; v < ve; v++)
        for (let u = us + 0.5; u < ue; u++)
            out.push({ rgba: texel(face.tex, u, v), tinted: face.tinted });
    return out;
}

/* ----------------------------------------------------------- states */

function matchesWhen(when, props) {
    if (!when)
        return true;
    if (when.OR)
        return when.OR.some((w) => matchesWhen(w, props));
    if (when.AND)
        return when.AND.every((w) => matchesWhen(w, props));
    return Object.entries(when).every(([k, v]) => String(v).split('|').includes(props[k]));
}

/* the (model, x) pieces a state shows */
function piecesOf(name, props) {
    const bs = BLOCKSTATES[name];
    assert(bs, 'no blockstate for ' + name);
    const pick = (v) => (Array.isArray(v) ? v[0] : v);
    if (bs.variants) {
        for (const [key, v] of Object.entries(bs.variants)) {
            const ok = key === '' || key.split(',').every((kv) => {
                const [k, val] = kv.split('=');
                return props[k] === val;
            });
            if (ok)
                return [pick(v)];
        }
        throw new Error('no variant for ' + name + ' ' + JSON.stringify(props));
    }
    return bs.multipart.filter((p) => matchesWhen(p.when, props)).map((p) => pick(p.apply));
}

const mul = (a, b) => Math.round(a * b / 255);

/* {r, g, b, a, tint} of one state */
function stateColor(name, props) {
    if (INVISIBLE.has(name))
        return { r: 0, g: 0, b: 0, a: 0, tint: TINT.none };
    const grid = new Array(256).fill(null);
    const faces = [];
    let particle = null;
    for (const piece of piecesOf(name, props)) {
        const m = model(piece.model);
        layModel(grid, m, piece.x, faces);
        particle = particle || resolveTexture(m.textures, m.textures.particle);
    }
    let samples = grid.filter((c) => c).map((c) => ({ rgba: c.rgba, tinted: c.tinted }));
    let cells = 256;
    if (!samples.some((s) => s.rgba[3] > 0)) {
        /* nothing faces up: the faces' average, or the particle texture */
        samples = faces.flatMap(faceTexels);
        if (!samples.length && particle)
            for (let v = 0.5; v < 16; v++)
                for (let u = 0.5; u < 16; u++)
                    samples.push({ rgba: texel(particle, u, v), tinted: tintOf.has(name) });
        cells = samples.length;
    }
    const fixed = fixedTint(name, props);
    const kind = fixed !== null ? 'fixed' : tintOf.get(name) || 'none';
    const def = kind === 'none' || kind === 'fixed' ? null : DEFAULT_TINT[kind];
    let tintedWeight = 0, plainWeight = 0;
    for (const s of samples)
        if (s.tinted && kind !== 'none')
            tintedWeight += s.rgba[3];
        else
            plainWeight += s.rgba[3];
    const keepTint = def !== null && tintedWeight >= plainWeight && tintedWeight > 0;
    let r = 0, g = 0, b = 0, a = 0;
    for (const s of samples) {
        let [sr, sg, sb, sa] = s.rgba;
        if (s.tinted && fixed !== null)
            [sr, sg, sb] = [mul(sr, fixed >> 16 & 255), mul(sg, fixed >> 8 & 255), mul(sb, fixed & 255)];
        else if (s.tinted && def !== null && !keepTint)
            [sr, sg, sb] = [mul(sr, def >> 16 & 255), mul(sg, def >> 8 & 255), mul(sb, def & 255)];
        else if (!s.tinted && keepTint) /* stored untinted: undo what the renderer will multiply */
            [sr, sg, sb] = [sr, sg, sb].map((c, i) => Math.min(255, Math.round(c * 255 / Math.max(1, def >> (16 - 8 * i) & 255))));
        r += sr * sa, g += sg * sa, b += sb * sa, a += sa;
    }
    if (a === 0)
        return { r: 0, g: 0, b: 0, a: 0, tint: TINT.none };
    return {
        r: Math.round(r / a), g: Math.round(g / a), b: Math.round(b / a),
        a: Math.max(1, Math.round(a / cells)),
        tint: keepTint ? TINT[kind] : kind === 'fixed' ? TINT.fixed : TINT.none,
    };
}

/* the properties of every state of a minecraft-data block, in state id order
 * (first property slowest; bools are listed true, false) */
function statesOf(block) {
    const props = (block.states || []).map((p) => ({
        name: p.name, values: p.type === 'bool' ? ['true', 'false'] : p.values.map(String),
    }));
    const out = [];
    const count = block.maxStateId - block.minStateId + 1;
    for (let i = 0; i < count; i++) {
        const st = {};
        let rest = i;
        for (let p = props.length - 1; p >= 0; p--) {
            st[props[p].name] = props[p].values[rest % props[p].values.length];
            rest = Math.floor(rest / props[p].values.length);
        }
        out.push(st);
    }
    return out;
}

/* ------------------------------------------------------------- biomes */

function colormap(name) {
    const png = PNG.sync.read(fs.readFileSync(path.join(ASSETS, 'colormap', name + '.png')));
    assert(png.width === 256 && png.height === 256);
    /* the game's arithmetic: float climate values clamped, then doubles */
    const clamp = (x) => Math.fround(Math.min(1, Math.max(0, Math.fround(x))));
    return (temperature, downfall) => {
        const t = clamp(temperature);
        const d = clamp(downfall) * t;
        const i = (Math.trunc((1 - d) * 255) << 8 | Math.trunc((1 - t) * 255)) * 4;
        return png.data[i] << 16 | png.data[i + 1] << 8 | png.data[i + 2];
    };
}
const GRASS = colormap('grass'), FOLIAGE = colormap('foliage'), DRY_FOLIAGE = colormap('dry_foliage');
/* the colour a tinted block shows where no biome is known: plains (0.8, 0.4) */
const DEFAULT_TINT = {
    grass: GRASS(0.8, 0.4), foliage: FOLIAGE(0.8, 0.4), dry_foliage: DRY_FOLIAGE(0.8, 0.4), water: 0x3f76e4,
};

/* Downfall of the biomes that minecraft-data lists only without it (from
 * the game's worldgen/biome files: cherry_grove and pale_garden 0.8). */
const DOWNFALL = { cherry_grove: 0.8, pale_garden: 0.8 };

/* Older (pre-1.18 Java) and Bedrock names -> the modern biome whose colour
 * overrides they share. */
const OVERRIDE_FAMILY = [
    [/mangrove/, 'mangrove_swamp'], [/swamp/, 'swamp'], [/mesa|badlands/, 'badlands'],
    [/roofed_forest|dark_forest/, 'dark_forest'], [/cherry/, 'cherry_grove'], [/pale_garden/, 'pale_garden'],
    [/deep_frozen|frozen_ocean|frozen_river/, 'frozen_ocean'], [/lukewarm/, 'lukewarm_ocean'],
    [/warm_ocean/, 'warm_ocean'], [/cold_ocean|cold_beach|snowy_beach/, 'cold_ocean'],
    [/cold_taiga|snowy_taiga/, 'snowy_taiga'], [/meadow/, 'meadow'],
];
function overrides(table) {
    const m = new Map();
    for (const e of table.data)
        for (const k of e.keys)
            m.set(k, unsigned(e.color) | (e.color === 0 ? 0x1000000 : 0)); /* 0: none (flag bit) */
    return m;
}
const GRASS_OVR = overrides(TINTS.grass), FOLIAGE_OVR = overrides(TINTS.foliage), WATER_OVR = overrides(TINTS.water);
const override = (map, name) => {
    let key = map.has(name) ? name : null;
    for (const [re, family] of OVERRIDE_FAMILY)
        if (!key && re.test(name))
            key = family;
    const c = key !== null ? map.get(key) : undefined;
    return c === undefined || c & 0x1000000 ? null : c;
};

/* every biome name with its climate: the newest data that has a downfall for it */
function biomeClimates() {
    const seen = new Map(); /* name -> {temperature, downfall, order} */
    const files = [];
    for (const edition of ['bedrock', 'pc']) /* Java's data wins for names both have */
        for (const p of Object.values(PATHS[edition]))
            if (p.biomes && !files.includes(p.biomes))
                files.push(p.biomes);
    files.forEach((file, order) => {
        for (const b of require(path.join(DATA, file, 'biomes.json'))) {
            const name = b.name;
            const downfall = b.rainfall !== undefined ? b.rainfall : DOWNFALL[name];
            const old = seen.get(name);
            if (downfall === undefined && old)
                continue;
            seen.set(name, { temperature: b.temperature, downfall, order });
        }
    });
    return seen;
}

function biomeColors(name, c) {
    const downfall = c.downfall === undefined ? 0.5 : c.downfall; /* none known: the game's default */
    const darkForest = /roofed_forest|dark_forest/.test(name);
    /* tints.json's dark_forest "grass" is the modifier's constant, not a colour */
    let grass = darkForest ? null : override(GRASS_OVR, name);
    if (grass === null) {
        grass = GRASS(c.temperature, downfall);
        if (darkForest) /* the dark_forest grass modifier */
            grass = ((grass & 0xfefefe) + 0x28340a) >> 1;
    }
    const foliage = override(FOLIAGE_OVR, name);
    const water = override(WATER_OVR, name);
    return {
        grass, foliage: foliage === null ? FOLIAGE(c.temperature, downfall) : foliage,
        dry: DRY_FOLIAGE(c.temperature, downfall), water: water === null ? 0x3f76e4 : water,
    };
}

/* ------------------------------------------------------------- output */

function main() {
    const blocks = require(path.join(DATA, PATHS.pc[VERSION].blocks, 'blocks.json'));
    const stateCount = blocks[blocks.length - 1].maxStateId + 1;
    const perState = new Array(stateCount);
    const tintedModels = new Set();
    for (const b of blocks) {
        statesOf(b).forEach((props, i) => {
            perState[b.minStateId + i] = stateColor(b.name, props);
        });
        for (const piece of piecesOf(b.name, statesOf(b)[0]))
            for (const e of model(piece.model).elements || [])
                if (Object.values(e.faces).some((f) => f.tintindex !== undefined))
                    tintedModels.add(b.name);
    }
    for (const n of tintedModels)
        if (!tintOf.has(n) && !UNTINTED.has(n) && fixedTint(n, { power: '0', age: '0' }) === null)
            console.warn('note: ' + n + ' has tinted faces but no tint rule (drawn untinted)');

    /* a palette of distinct colours and, per state, runs of one palette index */
    const palette = [], paletteIndex = new Map(), runs = [];
    for (const c of perState) {
        const key = [c.r, c.g, c.b, c.a, c.tint].join(',');
        if (!paletteIndex.has(key)) {
            paletteIndex.set(key, palette.length);
            palette.push(c);
        }
        const idx = paletteIndex.get(key);
        const last = runs[runs.length - 1];
        if (last && last.idx === idx && last.len < 65535)
            last.len++;
        else
            runs.push({ idx, len: 1 });
    }
    assert(palette.length < 65536);

    const climates = biomeClimates();
    const biomeNames = [...climates.keys()].sort();

    const hex = (n, w) => '0x' + n.toString(16).padStart(w, '0');
    const lines = [];
    lines.push('/*');
    lines.push(' * GENERATED by scripts/gen-block-colors.js from minecraft-assets 1.19.0 (' + VERSION + ' textures,');
    lines.push(' * blockstates and models) and minecraft-data 3.117.0 (blocks, biomes, tints).');
    lines.push(' * Do not edit; rerun `node scripts/gen-block-colors.js`. Layout: src/registry/colors_data.h.');
    lines.push(' */');
    lines.push('#include "registry/colors_data.h"');
    lines.push('');
    lines.push('const char mc__color_version[] = "' + VERSION + '";');
    lines.push('const uint32_t mc__color_state_count = ' + stateCount + ';');
    lines.push('');
    lines.push('/* distinct colours: 0xRRGGBBAA and the tint (mc_tint) */');
    lines.push('const mc__color_entry mc__color_palette[] = {');
    for (let i = 0; i < palette.length; i += 4)
        lines.push('    ' + palette.slice(i, i + 4).map((c) =>
            '{' + hex(((c.r << 24) | (c.g << 16) | (c.b << 8) | c.a) >>> 0, 8) + ',' + c.tint + '}').join(',') + ',');
    lines.push('};');
    lines.push('const uint32_t mc__color_palette_count = ' + palette.length + ';');
    lines.push('');
    lines.push('/* the states of ' + VERSION + ' in id order as runs: {length, palette index} */');
    lines.push('const mc__color_run mc__color_runs[] = {');
    for (let i = 0; i < runs.length; i += 8)
        lines.push('    ' + runs.slice(i, i + 8).map((r) => '{' + r.len + ',' + r.idx + '}').join(',') + ',');
    lines.push('};');
    lines.push('const uint32_t mc__color_run_count = ' + runs.length + ';');
    lines.push('');
    lines.push('/* biomes by name (sorted, without "minecraft:"): grass, foliage, dry foliage, water (0xRRGGBB) */');
    lines.push('const mc__biome_color mc__biome_colors[] = {');
    for (const name of biomeNames) {
        const c = biomeColors(name, climates.get(name));
        lines.push('    {"' + name + '", ' + [c.grass, c.foliage, c.dry, c.water].map((n) => hex(n, 6)).join(', ') + '},');
    }
    lines.push('};');
    lines.push('const uint32_t mc__biome_color_count = ' + biomeNames.length + ';');
    fs.writeFileSync(OUT, lines.join('\n') + '\n');
    console.log(`${OUT}: ${stateCount} states, ${palette.length} colours, ${runs.length} runs, ${biomeNames.length} biomes`);
}

main();
