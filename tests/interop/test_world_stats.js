#!/usr/bin/env node
/*
 * test_world_stats.js: `mcchunk world stats` on a world of vanilla corpus
 * chunks of nine releases (1.8.9 to 1.21.11) in three dimensions:
 *  - every block state's count equals the number of its lines in `chunk
 *    blocks FILE --all` over every region file (the non-air blocks), the air
 *    states add up to the rest, and the block and biome counts each add up to
 *    the volume, which is what `chunk blocks --every 4096` counts (one line
 *    per section);
 *  - block entities and entities by id equal what prismarine-nbt finds in
 *    the chunks (TileEntities / block_entities, Level.Entities) and the
 *    entities/ files;
 *  - 4 shards (--shard K/4) merged with --merge equal the unsharded result,
 *    plain and --by y, biome, dimension; --by y's CSV rows add up to the
 *    totals; --area counts only the chunks in its box;
 *  - --merge of something else, or of another grouping, fails.
 */
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const nbt = require('prismarine-nbt');
const U = require('./world_util');

if (!fs.existsSync(U.ANVIL)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}

const { check, finish } = U.harness();

/* 6x6 chunks of each region, where its block entities and entities are
 * (all of the small ones). */
const box = (x0, z0) => (x, z) => x >= x0 && x < x0 + 6 && z >= z0 && z < z0 + 6;
const PARTS = [
    ['1.16/ppa-r.0.-1.mca', 'region/r.0.-1.mca', (x, z) => box(4, 24)(x, z) || box(21, 22)(x, z)],
    ['1.18.2/ppa-r.0.0.mca', 'region/r.0.0.mca', box(0, 0)],
    ['1.13.2/ppa-r.-1.-1.mca', 'region/r.-1.-1.mca', box(26, 13)],
    ['1.8.9/ppa-r.-1.0.mca', 'region/r.-1.0.mca', box(26, 12)],
    ['1.17.1/amulet-entities-r.-1.0.mca', 'entities/r.-1.0.mca', () => true],
    ['1.12.2/mcaselector-r.0.0.mca', 'DIM-1/region/r.0.0.mca', box(0, 0)],
    ['1.9/ppa-r.-1.-1.mca', 'DIM-1/region/r.-1.-1.mca', box(20, 0)],
    ['1.11.2/ppa-r.-1.0.mca', 'DIM-1/region/r.-1.0.mca', () => true],
    ['1.20.6/ppa-r.0.0.mca', 'DIM1/region/r.0.0.mca', box(0, 0)],
    ['1.21.11/minestom-r.-1.-1.mca', 'DIM1/region/r.-1.-1.mca', box(26, 20)],
];

/* The parsed chunks of a region file (zlib). */
function parsed(file) {
    const b = fs.readFileSync(file);
    const out = [];
    for (let i = 0; b.length >= 8192 && i < 1024; i++) {
        const off = b.readUIntBE(i * 4, 3);
        if (!off) continue;
        const len = b.readUInt32BE(off * 4096);
        out.push(nbt.simplify(nbt.parseUncompressed(zlib.inflateSync(b.subarray(off * 4096 + 5, off * 4096 + 4 + len)))));
    }
    return out;
}

const stats = (...args) => JSON.parse(U.ok(['world', 'stats', ...args, '--json', '--quiet']).out);
/* air as `chunk blocks` leaves it out (1.8-1.12: minecraft:air[meta=0]) */
const AIR = { has: (s) => /^minecraft:(air|cave_air|void_air)(\[|$)/.test(s) };
const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);

const t0 = Date.now();
const tmp = U.tmpDir('world-stats');
const world = path.join(tmp, 'w');
for (const [src, dst, keep] of PARTS)
    U.subsetRegion(path.join(U.ANVIL, src), path.join(world, dst), keep);
const files = U.regionFiles(world);
const all = stats(world);

check('block counts equal the chunk blocks listings; air and biomes add up to the volume', () => {
    const listed = {};
    let sections = 0;
    for (const { file, kind } of files) {
        if (kind !== 'region') continue;
        for (const line of U.ok(['chunk', 'blocks', file, '--all']).out.split('\n')) {
            if (!line || line.startsWith('chunk ')) continue;
            const state = line.slice(line.lastIndexOf(' ') + 1);
            listed[state] = (listed[state] || 0) + 1;
        }
        sections += U.ok(['chunk', 'blocks', file, '--all', '--every', '4096']).out.split('\n')
            .filter((l) => l && !l.startsWith('chunk ')).length;
    }
    const nonAir = Object.fromEntries(Object.entries(all.blocks).filter(([k]) => !AIR.has(k)));
    assert.deepStrictEqual(nonAir, listed);
    assert.strictEqual(all.volume, sections * 4096, 'volume');
    assert.strictEqual(sum(all.blocks), all.volume);
    assert.strictEqual(sum(all.biomes), all.volume);
    const air = sum(all.blocks) - sum(nonAir);
    console.log(`     ${all.chunks} chunks, ${Object.keys(all.blocks).length} states, ${sum(nonAir)} non-air blocks ` +
        `+ ${air} air = ${all.volume}, ${Object.keys(all.biomes).length} biomes`);
});

check('block entities and entities by id equal prismarine-nbt\'s', () => {
    const be = {}, ents = {};
    for (const { file, kind } of files)
        for (const root of parsed(file)) {
            const lvl = root.Level || root;
            for (const t of (kind === 'region' ? lvl.TileEntities || lvl.block_entities : null) || [])
                be[t.id] = (be[t.id] || 0) + 1;
            const list = kind === 'entities' ? root.Entities : kind === 'region' ? lvl.Entities : null;
            for (const e of list || []) ents[e.id] = (ents[e.id] || 0) + 1;
        }
    assert.deepStrictEqual(all.block_entities, be);
    assert.deepStrictEqual(all.entities, ents);
    assert(sum(ents) > 50 && sum(be) > 5, `entities ${sum(ents)}, block entities ${sum(be)}`);
});

check('4 shards merged equal the whole, plain and grouped', () => {
    for (const by of [[], ['--by', 'y'], ['--by', 'biome'], ['--by', 'dimension']]) {
        const whole = stats(world, ...by);
        const parts = [0, 1, 2, 3].map((k) => {
            const f = path.join(tmp, `shard${k}.json`);
            fs.writeFileSync(f, U.ok(['world', 'stats', world, ...by, '--json', '--shard', `${k}/4`]).out);
            return f;
        });
        const regions = parts.map((f) => JSON.parse(fs.readFileSync(f)).regions);
        assert(regions.filter((n) => n > 0).length >= 3, `shards hold ${regions} regions: not split`);
        const merged = JSON.parse(U.ok(['world', 'stats', ...by, '--json', '--merge', ...parts]).out);
        assert.deepStrictEqual(merged, whole, `merge ${by.join(' ')}`);
        if (by.length) {
            const groups = Object.values(whole.groups);
            const blocks = {};
            for (const g of groups) for (const [k, v] of Object.entries(g.blocks)) blocks[k] = (blocks[k] || 0) + v;
            assert.deepStrictEqual(blocks, whole.blocks, `groups of ${by[1]} add up to the totals`);
        }
    }
    const merged = U.ok(['world', 'stats', '--merge', path.join(tmp, 'shard0.json'), path.join(tmp, 'shard1.json'),
        path.join(tmp, 'shard2.json'), path.join(tmp, 'shard3.json'), '--by', 'dimension']);
    assert.strictEqual(merged.status, 0);
});

check('--by y --csv rows add up to the totals', () => {
    const csv = U.ok(['world', 'stats', world, '--by', 'y', '--csv']).out.trim().split('\n');
    assert.strictEqual(csv[0], 'y,kind,name,count');
    const blocks = {};
    for (const row of csv.slice(1)) {
        const m = /^"(-?\d+)",(\w+),"((?:[^"]|"")*)",(\d+)$/.exec(row);
        assert(m, row);
        if (m[2] === 'block') blocks[m[3].replace(/""/g, '"')] = (blocks[m[3]] || 0) + +m[4];
    }
    assert.deepStrictEqual(blocks, all.blocks);
});

check('--area counts only its chunks', () => {
    const a = stats(world, '--area', '8,-8,9,-7', '--dimension', 'minecraft:overworld');
    assert.strictEqual(a.chunks, 4);
    const listed = {};
    for (const [x, z] of [[8, -8], [9, -8], [8, -7], [9, -7]])
        for (const line of U.ok(['chunk', 'blocks', world, String(x), String(z)]).out.split('\n').filter(Boolean)) {
            const s = line.slice(line.lastIndexOf(' ') + 1);
            listed[s] = (listed[s] || 0) + 1;
        }
    assert.deepStrictEqual(Object.fromEntries(Object.entries(a.blocks).filter(([k]) => !AIR.has(k))), listed);
});

check('1.8-1.17 chunks read from their bytes count as the model reader counts them, every corpus chunk', () => {
    /* every terrain region file of the corpus before 1.18 (later ones go
     * to the model reader anyway), each in a dimension of its own;
     * MCCHUNK_STATS_READER=model reads every chunk through the model
     * reader (mc_chunknbt_read_bytes), =report says how many the raw
     * reader (world/stats_raw.c) took. --by chunk compares each chunk's
     * counts (and the totals), --by y each block layer's. */
    const corpus = path.join(tmp, 'corpus');
    const found = [];
    const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
            if (e.isDirectory()) { if (!/^1\.(1[89]|[2-9]\d)/.test(e.name)) walk(path.join(d, e.name)); }
            else if (/r\.-?\d+\.-?\d+\.mca$/.test(e.name) && !/poi|entities/.test(e.name)) found.push(path.join(d, e.name));
        }
    };
    walk(U.ANVIL);
    found.forEach((f, i) => {
        const to = path.join(corpus, 'dimensions', 'c', `d${i}`, 'region', /r\.-?\d+\.-?\d+\.mca$/.exec(f)[0]);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(f, to);
    });
    /* and a 1.15 chunk whose 3D biomes hold an id past the registry's: the
     * model reader reads such an array as biome 0 throughout, and so must
     * the raw reader (stats_raw.c read_biomes, which copies before it
     * checks) */
    const src = fs.readFileSync(path.join(U.ANVIL, '1.15.2', 'mcaselector-r.0.0.mca'));
    const first = parsed(path.join(U.ANVIL, '1.15.2', 'mcaselector-r.0.0.mca')).find((c) => c.Level.Biomes.length === 1024);
    const off = src.readUInt32BE(4 * ((first.Level.zPos & 31) * 32 + (first.Level.xPos & 31))) >>> 8;
    const doc = nbt.parseUncompressed(zlib.inflateSync(src.subarray(off * 4096 + 5, off * 4096 + 4 + src.readUInt32BE(off * 4096))));
    doc.value.Level.value.Biomes.value[300] = 0x7fffffff;
    const data = zlib.deflateSync(nbt.writeUncompressed(doc, 'big'));
    const region = Buffer.alloc(8192 + Math.ceil((data.length + 5) / 4096) * 4096);
    region.writeUInt32BE(2 << 8 | Math.ceil((data.length + 5) / 4096), 0); /* chunk (0, 0) at sector 2 */
    region.writeUInt32BE(data.length + 1, 8192);
    region[8196] = 2;
    data.copy(region, 8197);
    fs.mkdirSync(path.join(corpus, 'dimensions', 'c', 'odd_biome', 'region'), { recursive: true });
    fs.writeFileSync(path.join(corpus, 'dimensions', 'c', 'odd_biome', 'region', 'r.0.0.mca'), region);
    const reader = (mode, args) => {
        const r = U.ok(['world', 'stats', corpus, ...args, '--json', '--quiet'],
            { env: { ...process.env, MCCHUNK_STATS_READER: mode } });
        return { out: r.out, err: r.err };
    };
    for (const args of [['--by', 'chunk'], ['--by', 'y']]) {
        const raw = reader('report', args), model = reader('model', args);
        const m = /from their bytes: (\d+) 1\.8-1\.12, (\d+) 1\.13-1\.17; (\d+) by the model reader/.exec(raw.err);
        assert(m, raw.err);
        assert(+m[1] > 500 && +m[2] > 500, `few chunks read raw: ${m[0]}`);
        assert(raw.out === model.out, `world stats ${args.join(' ')}: the raw reader's counts differ from the model's`);
        if (args[1] === 'chunk')
            console.log(`     ${found.length} files, ${JSON.parse(raw.out).chunks} chunks: ${m[1]} (1.8-1.12) + ${m[2]} ` +
                `(1.13-1.17) read raw, ${m[3]} by the model reader; the same counts per chunk and per y`);
    }
});

check('--merge refuses other files and other groupings', () => {
    const junk = path.join(tmp, 'junk.json');
    fs.writeFileSync(junk, '{"blocks": {"a": 1.5}}');
    let r = U.run(['world', 'stats', '--merge', junk]);
    assert(r.status === 1 && /not a count|whole/.test(r.err), r.err);
    fs.writeFileSync(junk, '[1, 2');
    r = U.run(['world', 'stats', '--merge', junk]);
    assert(r.status === 1 && /json/.test(r.err), r.err);
    r = U.run(['world', 'stats', '--merge', path.join(tmp, 'shard0.json'), '--by', 'y']);
    assert(r.status === 2 && /grouped by dimension, not by y/.test(r.err), r.err);
    r = U.run(['world', 'stats', world, '--by', 'height']);
    assert(r.status === 2 && r.out === '', r.err);
});

check('--merge prints back what it read, names that need escaping too', () => {
    const doc = { chunks: 1, regions: 1, volume: 5,
        blocks: { 'a"b': 1, c: 2, 'd\\e': 3, 'f\u0001g': 4, 'line\nbreak': 5, z: 9007199254740991 },
        biomes: { 'minecraft:plains': 7 }, block_entities: { x: 0 }, entities: {} };
    /* names of 1-19 bytes with a character to escape at each place (the
     * escape check goes a word at a time: first word, middle, tail), and
     * plain ones with the bytes next to the special ones */
    for (let len = 1; len < 20; len++)
        for (let at = 0; at < len; at++)
            for (const ch of ['"', '\\', '\u0001', '\u001f'])
                doc.blocks['p'.repeat(at) + ch + 'q'.repeat(len - at - 1)] = len * 100 + at;
    for (const ch of [' ', '!', '#', '[', ']', '\u007f', '\u00e9'])
        doc.blocks['minecraft:plain_name' + ch + 'xyz'] = 1;
    const f = path.join(tmp, 'escapes.json');
    fs.writeFileSync(f, JSON.stringify(doc));
    const back = U.ok(['world', 'stats', '--json', '--merge', f]).out;
    assert.deepStrictEqual(JSON.parse(back), doc);
    /* pretty, as world_json prints it */
    assert(back.includes('\n    "a\\"b": 1,\n') && back.includes('\n    "c": 2,\n'), back);
});

check('--merge prints rows in byte order: prefixes at every length, long shared prefixes, high bytes', () => {
    /* Names a string sort could get wrong (the output is in byte order):
     * every prefix of a 70-byte state (a name that is the start of
     * another), those plus a low, middle, high or non-ASCII byte, names
     * sharing 520-1700 bytes, and pseudo-random ones; counts with many
     * ties (text breaks them by name), differing only in the top bit of a
     * byte. */
    const S = 'minecraft:oak_stairs[facing=east,half=bottom,shape=straight,waterlogged=';
    const names = [];
    for (let k = 1; k <= S.length; k++) {
        names.push(S.slice(0, k));
        if (k % 4 === 0 || k % 8 === 7)
            for (const c of ['\u0001', '!', 'Z', 'z', '\u007f', '\u00e9', '\u00ff', '\u4e2d'])
                names.push(S.slice(0, k) + c);
    }
    for (const len of [520, 599, 600, 601])
        for (const c of ['', 'a', 'b', '\u00e9'])
            names.push('x'.repeat(len) + c);
    for (let i = 0; i < 40; i++) /* 1,700 bytes shared, then one that differs */
        names.push('y'.repeat(1700) + String.fromCharCode(0x7e - i) + 'y'.repeat(i % 9));
    let seed = 12345;
    const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    for (let i = 0; i < 400; i++) {
        let t = 'r';
        for (let j = rnd(30); j >= 0; j--)
            t += String.fromCharCode(0x21 + rnd(94)).replace(/["\\]/, '_');
        names.push(t);
    }
    const uniq = [...new Set(names)];
    const KINDS = ['blocks', 'biomes', 'block_entities', 'entities'];
    const kinds = () => Object.fromEntries(KINDS.map((k, ki) =>
        [k, Object.fromEntries(uniq.filter((_, i) => (i + ki) % 3 !== 0).map((nm) => [nm, [1, 129, 32769, 32897][rnd(4)]]))]));
    const GROUPS = ['320', '05', 'abc', '-64', '12', '5', '-3', '0', 'A', ''];
    const doc = { chunks: 1, regions: 1, volume: 1, ...kinds(), by: 'y',
        groups: Object.fromEntries(GROUPS.map((g) => [g, kinds()])) };
    for (const k of KINDS) /* (zeros: the totals keep counts that differ in one bit) */
        for (const nm of Object.keys(doc.groups[''][k]))
            doc.groups[''][k][nm] = 0;
    const f = path.join(tmp, 'order.json');
    fs.writeFileSync(f, JSON.stringify(doc));
    const bytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    /* groups: y numerically (strtoll: "abc" and "A" are 0), then by bytes;
     * "" is the totals' own name, so its counts join the totals */
    const groupOrder = GROUPS.filter((g) => g !== '').sort((a, b) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0) || bytes(a, b));
    /* --csv: group, kind (in KINDS order), name by bytes */
    const csv = U.ok(['world', 'stats', '--csv', '--by', 'y', '--merge', f]).out.split('\n').slice(1, -1)
        .map((line) => /^"(.*)",([a-z_]+),"(.*)",(\d+)$/s.exec(line));
    assert(csv.every(Boolean), 'a CSV row did not parse');
    const want = [];
    for (const g of groupOrder)
        for (const [ki, k] of KINDS.entries())
            for (const nm of Object.keys(doc.groups[g][k]).sort(bytes))
                want.push([g, ['block', 'biome', 'block_entity', 'entity'][ki], nm].join('\u0000'));
    const got = csv.map((m) => [m[1], m[2], m[3]].join('\u0000'));
    assert.strictEqual(got.length, want.length);
    const bad = got.findIndex((x, i) => x !== want[i]);
    assert(bad < 0, `CSV row ${bad}: ${JSON.stringify(got[bad])}, expected ${JSON.stringify(want[bad])}`);
    /* --json: the totals' names in byte order per kind (no name is an integer, so key order is print order) */
    const json = JSON.parse(U.ok(['world', 'stats', '--json', '--by', 'y', '--merge', f]).out);
    for (const k of KINDS)
        assert.deepStrictEqual(Object.keys(json[k]), Object.keys(json[k]).sort(bytes), `json ${k} out of order`);
    /* text: per group and kind, larger counts first, ties by bytes */
    const text = U.ok(['world', 'stats', '--by', 'y', '--merge', f]).out.split('\n');
    let rows = [], checked = 0;
    const flush = () => {
        for (let i = 1; i < rows.length; i++)
            assert(rows[i - 1].n > rows[i].n || (rows[i - 1].n === rows[i].n && bytes(rows[i - 1].nm, rows[i].nm) < 0),
                `text: ${JSON.stringify(rows[i - 1])} before ${JSON.stringify(rows[i])}`);
        checked += rows.length;
        rows = [];
    };
    for (const line of text) {
        const m = /^ *(\d+)  (.*)$/s.exec(line);
        if (m)
            rows.push({ n: +m[1], nm: m[2] });
        else
            flush();
    }
    flush();
    assert.strictEqual(checked, csv.length + KINDS.reduce((a, k) => a + Object.keys(json[k]).length, 0));
});

fs.rmSync(tmp, { recursive: true, force: true });
finish(t0);
