#!/usr/bin/env node
/*
 * test_block_colors.js: the committed colour tables (src/registry/data/colors.c)
 * are what scripts/gen-block-colors.js makes from the pinned packages, and
 * the simplest case agrees with the textures read directly: every block
 * drawn as a plain cube with one texture on all faces (minecraft-assets
 * model parent "block/cube_all") has, for each of its states, the
 * alpha-weighted average of that texture (pngjs) and its mean alpha. The
 * state ids come from minecraft-data's blocks.json, independently of the
 * generator's own enumeration.
 */
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { PNG } = require('pngjs');

const ROOT = path.join(__dirname, '../..');
const COMMITTED = path.join(ROOT, 'src/registry/data/colors.c');
const ASSETS = path.dirname(require.resolve('minecraft-assets/package.json')) + '/minecraft-assets/data/26.1';

/* 1. reproducible */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-colors-'));
try {
    const out = path.join(tmp, 'colors.c');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/gen-block-colors.js'), '--out', out], { stdio: 'pipe' });
    assert(fs.readFileSync(out).equals(fs.readFileSync(COMMITTED)),
        'src/registry/data/colors.c differs from what scripts/gen-block-colors.js writes: rerun it');
} finally {
    fs.rmSync(tmp, { recursive: true, force: true });
}
console.log('colors.c is what the generator writes');

/* 2. the table, per state, from the C text */
const text = fs.readFileSync(COMMITTED, 'utf8');
const section = (name) => text.slice(text.indexOf(name + '[] = {'), text.indexOf('};', text.indexOf(name + '[] = {')));
const palette = [...section('mc__color_palette').matchAll(/\{0x([0-9a-f]{8}),(\d)\}/g)]
    .map((m) => ({ rgba: parseInt(m[1], 16) >>> 0, tint: Number(m[2]) }));
const perState = [];
for (const m of section('mc__color_runs').matchAll(/\{(\d+),(\d+)\}/g))
    for (let i = 0; i < Number(m[1]); i++)
        perState.push(palette[Number(m[2])]);

const blocks = require('minecraft-data')('26.1').blocksArray;
assert.strictEqual(perState.length, blocks.reduce((n, b) => Math.max(n, b.maxStateId), 0) + 1, 'one colour per state');

const models = require(path.join(ASSETS, 'blocks_models.json'));
const states = require(path.join(ASSETS, 'blocks_states.json'));
let checked = 0, bad = 0;
for (const b of blocks) {
    const bs = states[b.name];
    if (!bs || !bs.variants || Object.keys(bs.variants).length !== 1)
        continue;
    const v = Object.values(bs.variants)[0];
    const model = models[(Array.isArray(v) ? v[0] : v).model.replace(/^minecraft:block\//, '')];
    if (!model || model.parent !== 'minecraft:block/cube_all' || typeof model.textures.all !== 'string')
        continue;
    const png = PNG.sync.read(fs.readFileSync(path.join(ASSETS, 'blocks',
        model.textures.all.replace(/^minecraft:block\//, '') + '.png')));
    const n = png.width * png.width; /* the first frame of an animation */
    let r = 0, g = 0, bl = 0, a = 0;
    for (let i = 0; i < n; i++) {
        const w = png.data[i * 4 + 3];
        r += png.data[i * 4] * w, g += png.data[i * 4 + 1] * w, bl += png.data[i * 4 + 2] * w, a += w;
    }
    const want = [r / a, g / a, bl / a, a / n];
    for (let s = b.minStateId; s <= b.maxStateId; s++) {
        const c = perState[s];
        const got = [c.rgba >>> 24, c.rgba >>> 16 & 255, c.rgba >>> 8 & 255, c.rgba & 255];
        /* one texel per 1/16 block: a 32 px texture is sampled, not averaged */
        const tolerance = png.width === 16 ? 0.51 : 24;
        if (c.tint === 0 && got.some((x, i) => Math.abs(x - want[i]) > tolerance) && bad++ < 10)
            console.error(`${b.name} state ${s}: table ${got}, texture average ${want.map((x) => x.toFixed(1))}`);
        checked++;
    }
}
assert(checked > 300, `only ${checked} plain cube states found`);
if (bad) {
    console.error(`${bad} of ${checked} plain cube states differ from their texture's average`);
    process.exit(1);
}
console.log(`${checked} plain cube states equal their texture's average`);
