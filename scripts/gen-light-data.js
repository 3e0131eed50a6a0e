#!/usr/bin/env node
/*
 * gen-light-data.js: the light facts of every Java block from minecraft-data
 * (pinned 3.117.0), as the const table src/light/data/light_data.c.
 *
 * Per block name, from 1.13 on: emitLight (luminance of the default state),
 * filterLight (light dampening of the default state) and, for the blocks
 * whose light occlusion follows their shape (the game's
 * useShapeForLightOcclusion: slabs, stairs, snow layers, farmland, ...), a
 * mask of the six faces each state covers completely, from
 * blockCollisionShapes.json (snow from its layers: its collision box is one
 * layer lower than the shape light sees). A block gets a new row only in the
 * data version where one of these facts changes, so the table stays small;
 * src/light/table.c picks the newest row not newer than a registry and adds
 * the state-dependent rules (lit furnaces, waterlogged states, pickles, ...)
 * that minecraft-data does not carry.
 *
 * Face bits: 1 down, 2 up, 4 north (-z), 8 south (+z), 16 west (-x), 32 east (+x).
 *
 * Usage: node scripts/gen-light-data.js   (from anywhere; rewrites the file)
 */
'use strict';
const fs = require('fs');
const path = require('path');
const assert = require('assert');

const ROOT = path.resolve(__dirname, '..');
const MD = path.join(ROOT, 'tests/interop/node_modules/minecraft-data');
const MD_VERSION = require(path.join(MD, 'package.json')).version;
assert.strictEqual(MD_VERSION, '3.117.0', 'minecraft-data must be the pinned 3.117.0');
const DATA = path.join(MD, 'minecraft-data/data');
const PATHS = require(path.join(DATA, 'dataPaths.json')).pc;
const VERSIONS = require(path.join(DATA, 'pc/common/protocolVersions.json'));
const OUT = path.join(ROOT, 'src/light/data/light_data.c');

/* blocks whose light occlusion is their shape (vanilla's useShapeForLightOcclusion) */
const SHAPED = new Set([
    'snow', 'farmland', 'dirt_path', 'grass_path', 'daylight_detector', 'enchanting_table',
    'end_portal_frame', 'lectern', 'stonecutter', 'sculk_sensor', 'calibrated_sculk_sensor',
    'sculk_shrieker', 'piston', 'sticky_piston', 'piston_head',
]);
const shaped = (name) => SHAPED.has(name) || name.endsWith('_slab') || name.endsWith('_stairs');

/* releases from 1.13 with both files, grouped by the files they use */
const dv = new Map();
for (const v of VERSIONS)
    if (v.usesNetty && (v.releaseType || 'release') === 'release' && v.dataVersion && !dv.has(v.minecraftVersion))
        dv.set(v.minecraftVersion, v.dataVersion);
const groups = new Map();
for (const [name, p] of Object.entries(PATHS)) {
    if (!p.blocks || !p.blockCollisionShapes || !dv.has(name) || dv.get(name) < 1451)
        continue;
    const key = p.blocks + '|' + p.blockCollisionShapes;
    const g = groups.get(key);
    if (!g || dv.get(name) < g.dv)
        groups.set(key, {dv: dv.get(name), blocks: p.blocks, shapes: p.blockCollisionShapes});
}
const order = [...groups.values()].sort((a, b) => a.dv - b.dv);

/* the faces a list of boxes covers completely (a 16x16 raster per face) */
function faceMask(boxes) {
    let mask = 0;
    const px = (v) => Math.round(v * 16);
    const faces = [ // axis, plane value, the two other axes
        [1, 0], [1, 1], [2, 0], [2, 1], [0, 0], [0, 1],
    ];
    faces.forEach(([axis, at], bit) => {
        const grid = new Uint8Array(256);
        const [u, w] = [0, 1, 2].filter((a) => a !== axis);
        for (const b of boxes) {
            const lo = b[axis], hi = b[axis + 3];
            if (at === 0 ? lo > 1e-6 : hi < 1 - 1e-6)
                continue;
            for (let i = px(b[u]); i < px(b[u + 3]); i++)
                for (let j = px(b[w]); j < px(b[w + 3]); j++)
                    grid[i * 16 + j] = 1;
        }
        if (grid.every((c) => c))
            mask |= 1 << bit;
    });
    return mask;
}

const rows = new Map(); /* name -> [{dv, emit, filter, faces}] */
for (const g of order) {
    const blocks = require(path.join(DATA, g.blocks, 'blocks.json'));
    const shapes = require(path.join(DATA, g.shapes, 'blockCollisionShapes.json'));
    for (const b of blocks) {
        let faces = null;
        if (shaped(b.name)) {
            const n = b.maxStateId - b.minStateId + 1;
            faces = [];
            const ids = shapes.blocks[b.name];
            for (let i = 0; i < n; i++) {
                if (b.name === 'snow') { /* layers 1..8 is the only property */
                    const layers = i + 1;
                    faces.push(faceMask([[0, 0, 0, 1, layers / 8, 1]]));
                    continue;
                }
                const id = Array.isArray(ids) ? ids[i] : ids;
                faces.push(id === undefined ? 0 : faceMask(shapes.shapes[id] || []));
            }
        }
        const row = {dv: g.dv, emit: b.emitLight | 0, filter: b.filterLight | 0, faces};
        const list = rows.get(b.name) || [];
        const last = list[list.length - 1];
        if (!last || last.emit !== row.emit || last.filter !== row.filter ||
            JSON.stringify(last.faces) !== JSON.stringify(row.faces))
            list.push(row);
        rows.set(b.name, list);
    }
}

/* minecraft-data's emitLight/filterLight before 1.17 come from an older
 * extraction that is wrong for many blocks (leaves 0, water 2, redstone ore
 * 0, honey 15, structure void 15), while the game's values did not change
 * from 1.14 to 1.17: older rows take the facts of the block's first row
 * from 1.17 on (their own face masks stay), when the block still exists. */
const TRUSTED_DV = 2724;
for (const list of rows.values()) {
    const trusted = list.find((r) => r.dv >= TRUSTED_DV);
    if (!trusted)
        continue;
    for (const r of list)
        if (r.dv < TRUSTED_DV) {
            r.emit = trusted.emit;
            r.filter = trusted.filter;
        }
    for (let i = list.length - 1; i > 0; i--)
        if (list[i].emit === list[i - 1].emit && list[i].filter === list[i - 1].filter &&
            JSON.stringify(list[i].faces) === JSON.stringify(list[i - 1].faces))
            list.splice(i, 1);
}

const names = [...rows.keys()].sort();
let pool = '';
const poolOff = new Map();
for (const n of names) {
    poolOff.set(n, pool.length);
    pool += n + '\0';
}
const faces = [];
const faceOff = new Map();
const out = [];
out.push('/* Generated by scripts/gen-light-data.js from minecraft-data ' + MD_VERSION +
         ' (releases with data versions ' + order.map((g) => g.dv).join(', ') + '): do not edit. */');
out.push('#include "light/light_private.h"');
out.push('');
const rowText = [];
for (const n of names)
    for (const r of rows.get(n)) {
        let off = 0, cnt = 0;
        if (r.faces) {
            const k = r.faces.join(',');
            if (!faceOff.has(k)) {
                faceOff.set(k, faces.length);
                faces.push(...r.faces);
            }
            off = faceOff.get(k);
            cnt = r.faces.length;
        }
        rowText.push(`    {${poolOff.get(n)}, ${r.dv}, ${r.emit}, ${r.filter}, ${off}, ${cnt}},`);
    }
const chunks = [];
for (let i = 0; i < pool.length; i += 100)
    chunks.push('    ' + JSON.stringify(pool.slice(i, i + 100)).replace(/\\u0000/g, '\\0'));
out.push('const char mc__light_names[] =');
out.push(chunks.join('\n') + ';');
out.push('');
out.push(`const uint8_t mc__light_faces[${Math.max(1, faces.length)}] = {`);
for (let i = 0; i < faces.length; i += 24)
    out.push('    ' + faces.slice(i, i + 24).join(', ') + ',');
if (!faces.length)
    out.push('    0,');
out.push('};');
out.push('');
out.push('/* sorted by name, then data version */');
out.push(`const mc__light_row mc__light_rows[${rowText.length}] = {`);
out.push(...rowText);
out.push('};');
out.push(`const size_t mc__light_row_count = ${rowText.length};`);
fs.mkdirSync(path.dirname(OUT), {recursive: true});
fs.writeFileSync(OUT, out.join('\n') + '\n');
console.log(`${OUT}: ${names.length} blocks, ${rowText.length} rows, ${faces.length} face masks`);
