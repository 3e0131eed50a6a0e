#!/usr/bin/env node
/*
 * test_world_info.js: `mcchunk world info` and `mcchunk world verify` on a
 * world of vanilla corpus regions of four releases in two dimensions (and
 * an entities/ file):
 *  - info's chunk counts by DataVersion and by generation status, its
 *    InhabitedTime buckets, files, chunks and bytes per kind, compression
 *    and timestamps equal what prismarine-nbt and the region headers say
 *    (the statuses ranked as the game renamed them: postprocessed is
 *    full, TerrainPopulated 0 before 1.13 is liquid_carvers);
 *  - verify: clean with a level.dat newer than every chunk; a level.dat
 *    older than some chunks, a damaged record (its zlib stream overwritten)
 *    and a chunk moved into another one's slot are each a problem (exit 1)
 *    named with absolute coordinates; a temporary a killed write left is a
 *    leftover, not a problem; no level.dat is a problem;
 *  - the progress line (regions done/total, chunks/s) goes to stderr when
 *    it is a terminal (`script` makes one), not otherwise, not with --quiet.
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
const t0 = Date.now();
const tmp = U.tmpDir('world-info');
const world = path.join(tmp, 'w');
for (const [src, dst] of [['1.16/ppa-r.0.-1.mca', 'region/r.0.-1.mca'], ['1.18.2/ppa-r.0.0.mca', 'region/r.0.0.mca'],
    ['1.13.2/ppa-r.-1.-1.mca', 'DIM-1/region/r.-1.-1.mca'], ['1.11.2/ppa-r.-1.0.mca', 'DIM-1/region/r.-1.0.mca'],
    ['1.17.1/amulet-entities-r.-1.0.mca', 'entities/r.-1.0.mca']])
    U.subsetRegion(path.join(U.ANVIL, src), path.join(world, dst), () => true);

const ORDER = ['empty', 'structure_starts', 'structure_references', 'biomes', 'noise', 'surface', 'carvers',
    'liquid_carvers', 'features', 'initialize_light', 'light', 'spawn', 'heightmaps', 'full'];
const RENAMED = { base: 'surface', carved: 'carvers', liquid_carved: 'liquid_carvers', decorated: 'features',
    lighted: 'light', mobs_spawned: 'spawn', finalized: 'heightmaps', fullchunk: 'full', postprocessed: 'full' };
const status = (lvl) => {
    if (lvl.Status === undefined) return lvl.TerrainPopulated ? 'full' : 'liquid_carvers';
    const s = String(lvl.Status).replace(/^minecraft:/, '');
    return RENAMED[s] || (ORDER.includes(s) ? s : 'unknown');
};
const bucket = (t) => (t < 1 ? '0' : t < 1200 ? '<1m' : t < 12000 ? '<10m' : t < 72000 ? '<1h' : t < 720000 ? '<10h' : '>=10h');

check('info counts what the chunks and headers say', () => {
    const info = JSON.parse(U.ok(['world', 'info', world, '--json']).out);
    const dvs = {}, statuses = {}, inhabited = {}, kinds = { region: [0, 0, 0], entities: [0, 0, 0], poi: [0, 0, 0] };
    let oldest = Infinity, newest = 0;
    for (const { file, kind } of U.regionFiles(world)) {
        const b = fs.readFileSync(file);
        kinds[kind][0]++;
        kinds[kind][1] += b.length;
        for (let i = 0; i < 1024; i++) {
            if (!b.readUInt32BE(i * 4)) continue;
            const ts = b.readUInt32BE(4096 + i * 4);
            if (ts) oldest = Math.min(oldest, ts);
            newest = Math.max(newest, ts);
        }
        for (const { raw } of U.rawChunks(file)) {
            kinds[kind][2]++;
            if (kind !== 'region') continue;
            const root = nbt.simplify(nbt.parseUncompressed(raw));
            const lvl = root.Level || root;
            dvs[root.DataVersion || 0] = (dvs[root.DataVersion || 0] || 0) + 1;
            const st = status(lvl);
            statuses[st] = (statuses[st] || 0) + 1;
            const b2 = bucket(Number(lvl.InhabitedTime || 0));
            inhabited[b2] = (inhabited[b2] || 0) + 1;
        }
    }
    assert.deepStrictEqual(info.data_versions, Object.fromEntries(Object.entries(dvs).map(([k, v]) => [k, v])));
    assert.deepStrictEqual(info.status, statuses);
    for (const [k, v] of Object.entries(info.inhabited_time)) assert.strictEqual(v, inhabited[k] || 0, `InhabitedTime ${k}`);
    for (const k of Object.keys(kinds))
        assert.deepStrictEqual([info.files[k].files, info.files[k].bytes, info.files[k].chunks], kinds[k], k);
    assert.strictEqual(info.timestamps.oldest, oldest);
    assert.strictEqual(info.timestamps.newest, newest);
    assert.strictEqual(info.compression.zlib.chunks, kinds.region[2] + kinds.entities[2]);
    assert.deepStrictEqual(info.dimensions.map((d) => d.id), ['minecraft:overworld', 'minecraft:the_nether']);
    assert.strictEqual(info.level, undefined, 'no level.dat');
    const text = U.ok(['world', 'info', world]).out;
    assert.match(text, /level\.dat: .*absent/);
    assert.match(text, /chunks by status: .*full \d+/);
});

/* A level.dat of DataVersion dv (one made by world create, renamed). */
function levelDat(version) {
    const d = path.join(tmp, 'lv-' + version);
    if (!fs.existsSync(d)) U.ok(['world', 'create', d, '--version', version, '--radius', '0', '--quiet']);
    fs.copyFileSync(path.join(d, 'level.dat'), path.join(world, 'level.dat'));
}

check('verify: clean, then each kind of damage named', () => {
    let r = U.run(['world', 'verify', world]);
    assert.strictEqual(r.status, 1);
    assert.match(r.out, /level\.dat: absent/);
    levelDat('1.18.2');
    r = U.run(['world', 'verify', world, '--json']);
    assert.strictEqual(r.status, 0, r.out);
    const clean = JSON.parse(r.out);
    assert(clean.ok && clean.chunks_ok > 600 && clean.problems.length === 0);
    levelDat('1.16');
    r = U.run(['world', 'verify', world]);
    assert.strictEqual(r.status, 1);
    assert.match(r.out, /chunk \d+ \d+: region DataVersion 2975 is newer than the world's \(level\.dat: 2566\)/);
    levelDat('1.18.2');
    /* a damaged record and a chunk in the wrong slot, absolute coordinates */
    const file = path.join(world, 'region/r.0.-1.mca');
    const b = fs.readFileSync(file);
    const first = [...Array(1024).keys()].filter((i) => b.readUInt32BE(i * 4));
    const off = (b.readUInt32BE(first[0] * 4) >>> 8) * 4096;
    b.fill(0x55, off + 5, off + 40);
    /* slot 1 names a copy of chunk 2's record, appended at the end */
    const loc2 = b.readUInt32BE(first[2] * 4), n2 = loc2 & 255;
    const copy = b.subarray((loc2 >>> 8) * 4096, ((loc2 >>> 8) + n2) * 4096);
    b.writeUInt32BE((((b.length / 4096) << 8) | n2) >>> 0, first[1] * 4);
    fs.writeFileSync(file, Buffer.concat([b, copy]));
    const xz = (i) => `${i & 31} ${(i >> 5) - 32}`;
    r = U.run(['world', 'verify', world]);
    assert.strictEqual(r.status, 1);
    assert.match(r.out, new RegExp(`r\\.0\\.-1\\.mca: chunk ${xz(first[0])}: `));
    assert.match(r.out, new RegExp(`chunk ${xz(first[1])}: .*NBT says chunk ${xz(first[2])}`));
    assert.match(r.out, /2 problems/);
    fs.writeFileSync(file, fs.readFileSync(path.join(U.ANVIL, '1.16/ppa-r.0.-1.mca')));
    /* a temporary a killed write left: a leftover, exit 0 */
    fs.writeFileSync(file + '.compact.tmp', 'x');
    r = U.run(['world', 'verify', world]);
    assert.strictEqual(r.status, 0, r.out);
    assert.match(r.out, /^leftover .*r\.0\.-1\.mca.*compact\.tmp/m);
    assert.match(r.out, /0 problems, 1 leftover temporary/);
});

check('progress on stderr only when it is a terminal, never with --quiet', () => {
    const quiet = U.run(['world', 'stats', world, '--threads', '1', '--json']);
    assert.strictEqual(quiet.err, '', 'not a terminal: nothing on stderr');
    const { spawnSync } = require('child_process');
    const typescript = path.join(tmp, 'typescript');
    const cmd = (extra) => `'${U.BIN}' world stats '${world}' --threads 1 --json ${extra} > /dev/null`;
    if (spawnSync('script', ['-qc', cmd(''), typescript]).status !== 0) {
        console.log('     (no `script` to make a terminal: skipped)');
        return;
    }
    assert.match(fs.readFileSync(typescript, 'latin1'), /\r\x1b\[Kmcchunk world stats: \d+\/5 regions, \d+ chunks\/s/);
    spawnSync('script', ['-qc', cmd('--quiet'), typescript]);
    assert.doesNotMatch(fs.readFileSync(typescript, 'latin1'), /regions,/);
});

check('a folder that is not a world: every subcommand says so (exit 1) and writes nothing; an empty world is fine', () => {
    /* region/ holds a vanilla region file under a name the game does not
     * read, and there is no level.dat */
    const nw = path.join(tmp, 'not-a-world');
    fs.mkdirSync(path.join(nw, 'region'), { recursive: true });
    const stray = path.join(nw, 'region', 'ppa-r.0.0.mca');
    fs.copyFileSync(path.join(U.ANVIL, '1.16/ppa-r.0.-1.mca'), stray);
    const dst = path.join(tmp, 'not-a-world-converted');
    const runs = {
        info: ['world', 'info', nw],
        stats: ['world', 'stats', nw],
        convert: ['world', 'convert', nw, dst, '--to', '1.20.4'],
        prune: ['world', 'prune', nw, '--keep-radius', '1'],
        relight: ['world', 'relight', nw],
        verify: ['world', 'verify', nw],
    };
    const before = fs.readFileSync(stray), failed = [];
    for (const [name, args] of Object.entries(runs)) {
      try { /* each subcommand's outcome, then the failures together */
        const r = U.run(args);
        assert.strictEqual(r.status, 1, `${name}: exit ${r.status}\n${r.out}${r.err}`);
        assert.strictEqual(r.out, '', `${name}: nothing on stdout`);
        assert.ok(r.err.includes(`mcchunk world ${name}: ${nw} is not a Minecraft world: it has no level.dat and no region, entities or poi file`),
            `${name}: ${r.err}`);
        assert.ok(r.err.includes(`skipping ${stray}: not a region file name`), `${name}: the skipped file named: ${r.err}`);
        assert.deepStrictEqual(fs.readdirSync(nw).sort(), ['region'], `${name}: nothing written in the folder`);
        assert.deepStrictEqual(fs.readFileSync(stray), before, `${name}: the stray file untouched`);
      } catch (e) { failed.push(e.message.split('\n')[0]); }
    }
    assert.deepStrictEqual(failed, [], 'subcommands that took a folder that is not a world');
    assert.ok(!fs.existsSync(dst), 'convert made no destination');
    /* a real world with nothing in it yet (level.dat alone) stays a world */
    const empty = path.join(tmp, 'empty-world');
    U.ok(['world', 'create', empty, '--version', '1.20.4', '--radius', '0', '--quiet']);
    for (const f of U.regionFiles(empty)) fs.rmSync(f.file);
    const edst = path.join(tmp, 'empty-world-converted');
    for (const args of [['world', 'info', empty], ['world', 'stats', empty], ['world', 'verify', empty],
        ['world', 'prune', empty, '--keep-radius', '1'], ['world', 'relight', empty],
        ['world', 'convert', empty, edst, '--to', '1.18.2', '--quiet']]) {
        const r = U.ok(args);
        assert.doesNotMatch(r.err, /not a Minecraft world/, args.join(' '));
    }
    assert.ok(fs.existsSync(path.join(edst, 'level.dat')), 'the empty world converted: its level.dat');
    /* a missing folder: the message and exit status of before */
    const r = U.run(['world', 'stats', path.join(tmp, 'absent')]);
    assert.strictEqual(r.status, 1);
    assert.match(r.err, /absent is not a folder/);
});

fs.rmSync(tmp, { recursive: true, force: true });
finish(t0);
