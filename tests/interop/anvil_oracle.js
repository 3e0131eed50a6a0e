/*
 * anvil_oracle.js: reading converted chunks through prismarine-provider-anvil
 * the way the tests compare them with `mcchunk chunk blocks`, with the
 * oracle's known deviations corrected (ORACLES.md):
 *  - its 1.13-1.17 readers turn an int property's value into
 *    parseInt(value) instead of its index (the same code in src/1.13 and
 *    src/1.14), so an mcchunk state id is mapped through that formula
 *    (ppaShift) before comparing;
 *  - 1.8-1.12 states are compared as id << 4 | meta.
 * Used by test_convert_matrix.js (one chunk at a time, every position) and
 * the world tests (every chunk of a world at sampled positions).
 */
'use strict';
const { Vec3 } = require('vec3');

const isLegacy = (v) => /^1\.(8|9|10|11|12)(\.|$)/.test(v);

/* See the header: the 1.13-1.17 readers' int property values. */
function ppaShift(mcData) {
    const cache = new Map();
    return (id) => {
        if (cache.has(id)) return cache.get(id);
        const b = mcData.blocksByStateId[id];
        let out = id;
        if (b && b.states && b.states.length) {
            let data = id - b.minStateId, offset = 1, sum = 0;
            for (let i = b.states.length - 1; i >= 0; i--) {
                const st = b.states[i];
                const idx = data % st.num_values;
                data = Math.floor(data / st.num_values);
                sum += offset * (st.type === 'int' && st.values ? parseInt(st.values[idx], 10) : idx);
                offset *= st.num_values;
            }
            out = b.minStateId + sum;
        }
        cache.set(id, out);
        return out;
    };
}

function oracleBlocks(col, target, cx, cz) {
    const legacy = isLegacy(target);
    const Block = legacy ? null : require('prismarine-block')(target);
    const airIds = new Set();
    const lines = [];
    const minY = col.minY ?? 0, height = col.worldHeight ?? 256;
    const p = new Vec3(0, 0, 0);
    for (let y = minY; y < minY + height; y++)
        for (let z = 0; z < 16; z++)
            for (let x = 0; x < 16; x++) {
                p.x = x;
                p.y = y;
                p.z = z;
                let id;
                if (legacy) {
                    id = (col.getBlockType(p) << 4) | col.getBlockData(p);
                    if (id >> 4 === 0) continue;
                } else {
                    id = col.getBlockStateId(p);
                    if (airIds.has(id)) continue;
                    if (['air', 'cave_air', 'void_air'].includes(Block.fromStateId(id).name)) {
                        airIds.add(id);
                        continue;
                    }
                }
                lines.push(`${cx * 16 + x} ${y} ${cz * 16 + z} ${id}`);
            }
    return { lines, minY, height };
}

/* The state id the oracle's column holds at local x, absolute y, local z,
 * in mcchunk's numbering for `target` (see the top): legacy id<<4|meta;
 * 1.13-1.17 ids are returned as read, compare them with ppaShift(ours). */
function oracleStateAt(col, target, x, y, z, p = new Vec3(0, 0, 0)) {
    p.x = x;
    p.y = y;
    p.z = z;
    if (isLegacy(target))
        return (col.getBlockType(p) << 4) | col.getBlockData(p);
    return col.getBlockStateId(p);
}

module.exports = { isLegacy, ppaShift, oracleBlocks, oracleStateAt };
