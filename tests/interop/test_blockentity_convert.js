#!/usr/bin/env node
/*
 * test_blockentity_convert.js: block entities through `mcchunk chunk
 * convert`, read by independent code: prismarine-nbt parses the converted
 * chunk NBT, prismarine-provider-anvil (with prismarine-chunk) loads it as
 * the target version's chunk and shows its blocks and (1.18+) block
 * entities.
 *
 * A vanilla 1.12.2 chunk of the corpus gets a sign with text, a chest with
 * items, a blue banner, a creeper head, a potted allium, a blue bed and a
 * note block (their blocks and 1.12 block entities written here, with
 * prismarine-nbt). It is converted to 1.13.2, 1.16.5, 1.20.4, 1.21.1 and
 * 1.21.5: the sign's text and the chest's items must be there in each
 * version's shape (Text1 JSON; front_text.messages JSON; NBT text in
 * 1.21.5; Count or count; rose_red then red_dye), and the blocks the block
 * entities decided must be the right ones (blue_banner, creeper_head,
 * potted_allium, blue_bed, note_block with its note). The 1.21.5 chunk
 * converted back to 1.12.2 gives the original block entities. A sign whose
 * back side 1.12 cannot show is reported on stderr.
 *
 * Oracle corrections: prismarine-chunk's loadBlockEntities keys block
 * entities by (x >> 4, y, z >> 4), so two in one chunk at one y collide:
 * the block entities here sit at different heights, and are looked up by
 * their own x/y/z. prismarine-provider-anvil reads block entities only for
 * 1.18+, and has no 1.21.5: earlier versions' blocks, and 1.21.5 whole, are
 * checked through prismarine-nbt.
 */
'use strict';
const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const nbt = require('prismarine-nbt');
const { Vec3 } = require('vec3');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const SRC = path.join(CORPUS, 'anvil/1.12.2/mcaselector-r.0.0.mca');
if (!fs.existsSync(SRC)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}
const RegionFile = require('prismarine-provider-anvil/src/region');
const chunkCodec = require('prismarine-provider-anvil').chunk;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-be-'));
let failures = 0;
async function test(name, fn) {
    try {
        await fn();
        console.log('ok   ' + name);
    } catch (e) {
        failures++;
        console.log('FAIL ' + name + ': ' + (e.stack || e));
    }
}

function run(...args) {
    const r = spawnSync(BIN, args, { maxBuffer: 1 << 28 });
    return { status: r.status, out: r.stdout, err: r.stderr.toString() };
}

const { CX, CZ, X, Z, placed, beTag, sourceChunk: makeSource } = require('./blockentity_fixture');
const sourceChunk = () => makeSource(run, SRC, tmp);

function convert(region, version) {
    const out = path.join(tmp, `to-${version}.nbt`);
    const r = run('chunk', 'convert', region, String(CX), String(CZ), '--to-version', version, '-o', out);
    assert.strictEqual(r.status, 0, r.err);
    return { tag: nbt.parseUncompressed(fs.readFileSync(out)), file: out, err: r.err };
}

/* The block entities of a converted chunk (either era's key), simplified. */
function blockEntities(tag) {
    const root = tag.value.Level ? tag.value.Level.value : tag.value;
    const list = root.block_entities || root.TileEntities;
    return nbt.simplify({ type: 'list', value: list.value }).filter(Boolean);
}
function at(list, y) {
    return list.find((b) => b.y === y && b.x === CX * 16 + X && b.z === CZ * 16 + Z);
}

/* The plain text of a sign line in any version's form. */
function lineText(line) {
    if (typeof line === 'string') {
        try {
            const j = JSON.parse(line);
            return typeof j === 'string' ? j : (j.text || '') + (j.extra || []).map(lineText).join('');
        } catch (e) {
            return line; /* 1.21.5: an NBT string is the text itself */
        }
    }
    return (line.text || '') + (line.extra || []).map(lineText).join('');
}

const VERSIONS = ['1.13.2', '1.16.5', '1.20.4', '1.21.1', '1.21.5'];
const PPA = new Set(['1.13.2', '1.16.5', '1.20.4', '1.21.1']);

(async () => {
    const region = await sourceChunk();
    for (const version of VERSIONS) {
        await test(`1.12.2 -> ${version}: sign text, items and the blocks block entities decide`, async () => {
            const { tag, file } = convert(region, version);
            const bes = blockEntities(tag);
            const sign = at(bes, placed.sign.y);
            assert(sign, 'no sign block entity');
            const lines = version >= '1.20' ? sign.front_text.messages : [sign.Text1, sign.Text2, sign.Text3, sign.Text4];
            assert.deepStrictEqual(lines.map(lineText), ['Hello', 'from mcchunk', '', ''], 'sign text');
            if (version === '1.21.5') /* NBT text: the styled line keeps its colour */
                assert.strictEqual(sign.front_text.messages[1].color, 'red');
            const chest = at(bes, placed.chest.y);
            const items = chest.Items.map((it) => [it.Slot, it.id, it.Count !== undefined ? it.Count : it.count]);
            const dye = version === '1.13.2' ? 'minecraft:rose_red' : 'minecraft:red_dye';
            assert.deepStrictEqual(items, [[0, 'minecraft:diamond', 5], [3, dye, 7], [4, 'minecraft:iron_pickaxe', 1]]);
            const pick = chest.Items[2];
            assert.strictEqual(version >= '1.20.5' ? pick.components['minecraft:damage'] : pick.tag.Damage, 12);
            assert(!at(bes, placed.pot.y), 'pots have no block entity from 1.13');
            assert(!at(bes, placed.note.y), 'note blocks have no block entity from 1.13');
            if (!PPA.has(version))
                return;
            /* the chunk as prismarine-provider-anvil reads it */
            const copy = path.join(tmp, `ppa-${version}.mca`);
            fs.copyFileSync(SRC, copy);
            const put = run('chunk', 'put', copy, String(CX), String(CZ), file, '--relocate');
            assert.strictEqual(put.status, 0, put.err);
            const rf = new RegionFile(copy);
            await rf.initialize();
            try {
                const col = chunkCodec(version).nbtChunkToPrismarineChunk(await rf.read(CX & 31, CZ & 31));
                const name = (y) => col.getBlock(new Vec3(X, y, Z));
                assert.match(name(placed.sign.y).name, /sign/);
                assert.strictEqual(name(placed.chest.y).name, 'chest');
                assert.strictEqual(name(placed.banner.y).name, 'blue_banner');
                assert.strictEqual(name(placed.skull.y).name, 'creeper_head');
                assert.strictEqual(name(placed.pot.y).name, 'potted_allium');
                assert.strictEqual(name(placed.bed.y).name, 'blue_bed');
                const note = name(placed.note.y);
                assert.strictEqual(note.name, 'note_block');
                assert.strictEqual(Number(note.getProperties().note), 7); /* a string in some versions' data */
                if (version >= '1.18') {
                    const seen = Object.values(col.blockEntities).map((t) => nbt.simplify({ type: 'compound', value: t }));
                    const s = seen.find((b) => b.y === placed.sign.y);
                    assert(s, 'prismarine-chunk sees the sign');
                    assert.strictEqual(lineText(s.front_text.messages[0]), 'Hello');
                    const c = seen.find((b) => b.y === placed.chest.y);
                    assert.strictEqual(c.Items.length, 3);
                }
            } finally {
                await rf.close();
            }
        });
    }

    await test('1.12.2 -> 1.21.5 -> 1.12.2 gives the original block entities and blocks', async () => {
        const { file } = convert(region, '1.21.5');
        const back = path.join(tmp, 'back.mca');
        fs.copyFileSync(SRC, back);
        const put = run('chunk', 'put', back, String(CX), String(CZ), file);
        assert.strictEqual(put.status, 0, put.err);
        const { tag } = convert(back, '1.12.2');
        const bes = blockEntities(tag);
        for (const [n, p] of Object.entries(placed)) {
            const want = nbt.simplify(nbt.comp(beTag(n, p)));
            assert.deepStrictEqual(at(bes, p.y), want, n);
        }
        const sections = tag.value.Level.value.Sections.value.value;
        for (const [n, p] of Object.entries(placed)) {
            const sec = sections.find((s) => s.Y.value === p.y >> 4);
            const i = ((p.y & 15) << 8) | (Z << 4) | X;
            const meta = (sec.Data.value[i >> 1] >> ((i & 1) * 4)) & 15;
            assert.deepStrictEqual([sec.Blocks.value[i] & 0xFF, meta], [p.id, p.meta], n);
        }
    });

    await test('a sign side 1.12 cannot show is reported', async () => {
        const { tag } = convert(region, '1.20.4');
        const root = tag.value;
        const sign = root.block_entities.value.value.find((b) => b.y.value === placed.sign.y);
        sign.back_text.value.messages.value.value[0] = '"Back"';
        const file = path.join(tmp, 'back-side.nbt');
        fs.writeFileSync(file, nbt.writeUncompressed(tag));
        const r2 = path.join(tmp, 'r-back.mca');
        fs.copyFileSync(SRC, r2);
        assert.strictEqual(run('chunk', 'put', r2, String(CX), String(CZ), file).status, 0);
        const { err } = convert(r2, '1.12.2');
        assert.match(err, /not carried: 1 sign text/);
        assert.match(err, /block entities: 1 sign text not carried/);
    });

    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(failures ? `${failures} FAILED` : 'all passed');
    process.exit(failures ? 1 : 0);
})();
