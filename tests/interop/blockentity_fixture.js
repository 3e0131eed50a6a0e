/*
 * blockentity_fixture.js: a vanilla 1.12.2 chunk of the corpus with a block
 * entity of each kind whose meaning changes across versions (a sign with
 * text, a chest with items, a blue banner with a pattern, a creeper head,
 * a potted allium, a blue bed, a note block), their blocks and 1.12 block
 * entities written with prismarine-nbt. Used by test_blockentity_convert.js
 * (chunk convert) and test_server_blockentity.js (what clients of `mcchunk
 * serve` are sent).
 */
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const nbt = require('prismarine-nbt');

const CX = 0, CZ = 0;
/* the blocks (1.12 id, meta), their heights, and their 1.12 block entities */
const X = 5, Z = 7;
const placed = {
    sign: { y: 200, id: 63, meta: 0,
        be: { id: 'minecraft:sign', Text1: '{"text":"Hello"}', Text2: '{"text":"from mcchunk","color":"red"}',
              Text3: '{"text":""}', Text4: '{"text":""}' } },
    chest: { y: 201, id: 54, meta: 2, be: { id: 'minecraft:chest', Items: [
        { Slot: 0, id: 'minecraft:diamond', Count: 5, Damage: 0 },
        { Slot: 3, id: 'minecraft:dye', Count: 7, Damage: 1 },
        { Slot: 4, id: 'minecraft:iron_pickaxe', Count: 1, Damage: 12 }] } },
    banner: { y: 202, id: 176, meta: 4, be: { id: 'minecraft:banner', Base: 4, Patterns: [{ Pattern: 'cre', Color: 1 }] } },
    skull: { y: 203, id: 144, meta: 1, be: { id: 'minecraft:skull', SkullType: 4, Rot: 5 } },
    pot: { y: 204, id: 140, meta: 0, be: { id: 'minecraft:flower_pot', Item: 'minecraft:red_flower', Data: 2 } },
    bed: { y: 205, id: 26, meta: 9, be: { id: 'minecraft:bed', color: 11 } },
    note: { y: 206, id: 25, meta: 0, be: { id: 'minecraft:noteblock', note: 7, powered: 1 } },
};

/* prismarine-nbt tags of a 1.12 block entity (ints, bytes, shorts as the game writes them) */
function beTag(name, p) {
    const v = { x: nbt.int(CX * 16 + X), y: nbt.int(p.y), z: nbt.int(CZ * 16 + Z) };
    for (const [k, val] of Object.entries(p.be)) {
        if (k === 'Items')
            v.Items = nbt.list(nbt.comp(val.map((it) => ({ Slot: nbt.byte(it.Slot), id: nbt.string(it.id),
                Count: nbt.byte(it.Count), Damage: nbt.short(it.Damage) }))));
        else if (k === 'Patterns')
            v.Patterns = nbt.list(nbt.comp(val.map((l) => ({ Pattern: nbt.string(l.Pattern), Color: nbt.int(l.Color) }))));
        else if (typeof val === 'string')
            v[k] = nbt.string(val);
        else if (['SkullType', 'Rot', 'note', 'powered'].includes(k))
            v[k] = nbt.byte(val);
        else
            v[k] = nbt.int(val);
    }
    return nbt.comp(v).value;
}

/* The corpus chunk with the blocks and block entities above. */
/* run(...args) -> {status, out, err} runs the tool; src the 1.12.2 region
 * (mcaselector-r.0.0.mca); tmp a scratch folder. Returns the region file
 * (a copy of src in tmp) holding the chunk. */
async function sourceChunk(run, SRC, tmp) {
    const r = run('chunk', 'get', SRC, String(CX), String(CZ), '--raw');
    assert.strictEqual(r.status, 0, r.err);
    const tag = nbt.parseUncompressed(r.out);
    const level = tag.value.Level.value;
    const sections = level.Sections.value.value;
    for (const p of Object.values(placed)) {
        let sec = sections.find((s) => s.Y.value === p.y >> 4);
        if (!sec) {
            sec = { Y: nbt.byte(p.y >> 4), Blocks: { type: 'byteArray', value: new Array(4096).fill(0) },
                    Data: { type: 'byteArray', value: new Array(2048).fill(0) },
                    BlockLight: { type: 'byteArray', value: new Array(2048).fill(0) },
                    SkyLight: { type: 'byteArray', value: new Array(2048).fill(-1) } };
            sections.push(sec);
        }
        const i = ((p.y & 15) << 8) | (Z << 4) | X;
        const signed = (v) => (v << 24) >> 24; /* byte arrays hold signed bytes */
        sec.Blocks.value[i] = signed(p.id);
        const d = sec.Data.value;
        d[i >> 1] = signed((i & 1) ? ((d[i >> 1] & 0x0F) | (p.meta << 4)) : ((d[i >> 1] & 0xF0) | p.meta));
    }
    level.TileEntities = nbt.list(nbt.comp(Object.entries(placed).map(([n, p]) => beTag(n, p))));
    const file = path.join(tmp, 'src.nbt');
    fs.writeFileSync(file, nbt.writeUncompressed(tag));
    const region = path.join(tmp, 'r.0.0.mca');
    fs.copyFileSync(SRC, region);
    const put = run('chunk', 'put', region, String(CX), String(CZ), file);
    assert.strictEqual(put.status, 0, put.err);
    return region;
}

module.exports = { CX, CZ, X, Z, placed, beTag, sourceChunk };
