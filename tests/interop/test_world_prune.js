#!/usr/bin/env node
/*
 * test_world_prune.js: `mcchunk world prune` on a world with region,
 * entities and poi files: a 1.16 corpus region converted to 1.18.2 by
 * `world convert` (its entities now in entities/, level.dat written), plus
 * the vanilla 1.18.2 corpus region (full and proto-chunks, InhabitedTime
 * from 0 up) with a vanilla poi file beside it.
 *
 * For each prune (by status and InhabitedTime; by InhabitedTime outside a
 * box; --outside a box that leaves one region empty; --keep-radius):
 *  - the chunks deleted are exactly those the criteria name, judged here
 *    from the chunks' own NBT (prismarine-nbt: Status ranked in the game's
 *    order, InhabitedTime), and with them their entities/ and poi/ records;
 *  - every chunk and record kept is byte-identical to before (hashes of
 *    what `chunk get --raw` prints), the emptied region file is gone, and
 *    `world verify` is clean;
 *  - --dry-run reports the same counts and changes nothing; running the
 *    same prune again deletes nothing more.
 * Bad durations and criteria exit 2.
 */
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const nbt = require('prismarine-nbt');
const U = require('./world_util');

if (!fs.existsSync(U.ANVIL)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}

const { check, finish } = U.harness();

/* The game's generation order (1.14+ names; 1.20 renames folded in). */
const ORDER = ['empty', 'structure_starts', 'structure_references', 'biomes', 'noise', 'surface', 'carvers',
    'liquid_carvers', 'features', 'initialize_light', 'light', 'spawn', 'heightmaps', 'full'];
const rank = (s) => ORDER.indexOf(String(s).replace(/^minecraft:/, ''));

/* "rel x,z" -> {status, inhabited} of every terrain chunk. */
function terrain(world) {
    const out = new Map();
    for (const { file, kind } of U.regionFiles(world)) {
        if (kind !== 'region') continue;
        for (const { x, z, raw } of U.rawChunks(file)) {
            const root = nbt.simplify(nbt.parseUncompressed(raw));
            const lvl = root.Level || root;
            out.set(`${x},${z}`, { status: rank(lvl.Status), inhabited: Number(lvl.InhabitedTime || 0) });
        }
    }
    return out;
}

const t0 = Date.now();
const tmp = U.tmpDir('world-prune');
const src = path.join(tmp, 'src'), world = path.join(tmp, 'w');
U.subsetRegion(path.join(U.ANVIL, '1.16/ppa-r.0.-1.mca'), path.join(src, 'region/r.0.-1.mca'),
    (x, z) => x >= 2 && x < 14 && z >= 20 && z < 32);
U.ok(['world', 'convert', src, world, '--to', '1.18.2', '--quiet']);
U.subsetRegion(path.join(U.ANVIL, '1.18.2/ppa-r.0.0.mca'), path.join(world, 'region/r.0.0.mca'), () => true);
U.subsetRegion(path.join(U.ANVIL, '1.16.5/amulet-poi-r.0.0.mca'), path.join(world, 'poi/r.0.0.mca'), () => true);
U.ok(['world', 'verify', world]);

/* Runs a prune; checks it against `deleted(x, z, chunk)`. */
function prune(name, args, deleted) {
    check(name, () => {
        const before = U.worldHashes(world);
        const chunks = terrain(world);
        const want = new Set([...chunks].filter(([k, c]) => deleted(...k.split(',').map(Number), c)).map(([k]) => k));
        const dry = JSON.parse(U.ok(['world', 'prune', world, ...args, '--dry-run', '--json']).out);
        assert.deepStrictEqual(U.worldHashes(world), before, '--dry-run changed nothing');
        const rep = JSON.parse(U.ok(['world', 'prune', world, ...args, '--json']).out);
        assert.strictEqual(rep.chunks_deleted, want.size, 'chunks deleted');
        for (const k of ['chunks_deleted', 'entity_records_deleted', 'poi_records_deleted', 'files_removed'])
            assert.strictEqual(dry[k], rep[k], `--dry-run's ${k}`);
        const after = U.worldHashes(world);
        let kept = 0, gone = 0, records = 0;
        for (const [key, hash] of before) {
            const xz = key.split(' ')[1];
            if (want.has(xz)) {
                assert(!after.has(key), `${key} should be gone`);
                gone++;
                records += !key.startsWith('region');
            } else {
                assert.strictEqual(after.get(key), hash, `${key} kept byte for byte`);
                kept++;
            }
        }
        assert.strictEqual(after.size, kept, 'nothing new');
        assert.strictEqual(rep.entity_records_deleted + rep.poi_records_deleted, records, 'records deleted');
        const v = U.run(['world', 'verify', world]);
        assert.strictEqual(v.status, 0, v.out);
        const again = JSON.parse(U.ok(['world', 'prune', world, ...args, '--json']).out);
        assert.strictEqual(again.chunks_deleted, 0, 'a second run deletes nothing');
        console.log(`     ${want.size} chunks and ${records} records deleted, ${kept} kept byte for byte, ` +
            `${rep.files_removed} files removed, ${rep.bytes_freed} bytes freed`);
    });
}

prune('--status-below full --inhabited-below 30s', ['--status-below', 'full', '--inhabited-below', '30s'],
    (x, z, c) => c.status >= 0 && c.status < rank('full') && c.inhabited < 600);
prune('--inhabited-below 61 (ticks) --outside a box', ['--inhabited-below', '61', '--outside', '2,-12,8,2'],
    (x, z, c) => c.inhabited < 61 && !(x >= 2 && x <= 8 && z >= -12 && z <= 2));
prune('--outside a box (one region emptied)', ['--outside', '0,0,20,31'],
    (x, z) => !(x >= 0 && x <= 20 && z >= 0 && z <= 31));
check('the emptied region file is gone', () => {
    assert(!fs.existsSync(path.join(world, 'region/r.0.-1.mca')));
    assert(!fs.existsSync(path.join(world, 'entities/r.0.-1.mca')));
});
const level = JSON.parse(U.ok(['world', 'info', world, '--json']).out).level;
const [sx, sz] = [level.spawn[0] >> 4, level.spawn[2] >> 4];
prune('--keep-radius 6 around the spawn', ['--keep-radius', '6'],
    (x, z) => Math.abs(x - sx) > 6 || Math.abs(z - sz) > 6);

check('bad criteria exit 2', () => {
    for (const args of [[], ['--inhabited-below', '5x'], ['--inhabited-below', '-1'], ['--status-below', 'done'],
        ['--outside', '1,2,3'], ['--outside', '0,0,1,1', '--keep-radius', '3'], ['--keep-radius', 'x']]) {
        const r = U.run(['world', 'prune', world, ...args]);
        assert.strictEqual(r.status, 2, `${args.join(' ')}: ${r.err}`);
        assert.strictEqual(r.out, '');
    }
});

fs.rmSync(tmp, { recursive: true, force: true });
finish(t0);
