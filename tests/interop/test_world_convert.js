#!/usr/bin/env node
/*
 * test_world_convert.js: `mcchunk world convert` against prismarine-provider-
 * anvil (ORACLES.md), on a world made of vanilla corpus regions of three
 * DataVersions: the overworld holds a 1.16 region (full chunks, entities
 * inside the chunks) and a 1.18.2 one (27 full chunks, 253 proto-chunks),
 * the Nether a 1.12.2 one.
 *
 * For each target release the oracle reads (1.12.2, 1.14.4, 1.17.1, 1.20.6):
 *  - the conversion exits 0 and `world verify` finds DST clean;
 *  - every chunk of every converted region file is read by the oracle, and
 *    at the positions `chunk blocks SOURCE --all --every K --ids --version
 *    TARGET` samples (air included) holds what that prints for the source;
 *    a chunk is absent exactly when it is a proto-chunk of another format
 *    era (1.8-1.12 | 1.13-1.17 | 1.18+), which the conversion drops;
 *  - every chunk has the target era's root keys (DataVersion and Level
 *    before 1.18, with a HeightMap before 1.13; no Level from 1.18), and
 *    InhabitedTime and LastUpdate are the source's;
 *  - points of interest (a vanilla poi/ file) arrive section by section
 *    from 1.14 on and are reported dropped before;
 *  - the entities of the 1.16 chunks arrive, all of them, by id: in the
 *    chunks (Level.Entities) before 1.17, in entities/ files from 1.17;
 *    a vanilla 1.17.1 entities/ file whose chunks have no terrain is
 *    carried from 1.17 on and reported dropped before;
 *  - level.dat reads in the oracle (readLevel) with the target's name and
 *    DataVersion, and (prismarine-nbt) keeps the seed in the keys of the
 *    target's era (RandomSeed before 1.16, WorldGenSettings from it, the
 *    overworld's biome source vanilla_layered before 1.18, multi_noise
 *    from it) and the spawn in its keys (spawn{pos} from 1.21.9; also
 *    checked converting 1.21.11 back to 1.18.2).
 * Then the round trip 1.16 -> 1.20.6 -> 1.16: every block equals the source
 * block sent through both registry maps (`registry --to --list`), so every
 * state both versions have comes back as it was; the entities come back
 * into the chunks with their positions. And 26.1 (the oracle has no 26.x):
 * the 26.1 folder layout, `world verify` clean, `chunk blocks` equal.
 * --dry-run reports what the real run does and writes nothing.
 * --compression lz4 and none write the zlib run's NBT bytes in every
 * record, the LZ4 framing checked by an independent decoder (lz4js);
 * --deflate-level 6 the default's (level 1) NBT in fewer bytes.
 * Usage errors (a compression the target cannot read among them) exit 2,
 * a non-empty DST exits 1.
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

const SAMPLE = 31; /* chunk blocks --every: ~3000 positions of each 1.18 chunk */
const TARGETS = ['1.12.2', '1.14.4', '1.17.1', '1.20.6'];
const DV = { '1.12.2': 1343, '1.14.4': 1976, '1.17.1': 2730, '1.20.6': 3839, '1.16': 2566, '26.1': 4786 };
const era = (dv) => (dv < 1451 ? 0 : dv < 2832 ? 1 : 2);

const H = U.harness();
const fail = H.fail;

/* The parsed chunks of a region file (any compression the tests meet);
 * parsedChunks.cache: file -> Map "x,z" -> root, of the last parse. */
function parsedChunks(file) {
    const out = U.rawChunks(file).map(({ x, z, raw }) => ({ x, z, root: nbt.simplify(nbt.parseUncompressed(raw)) }));
    parsedChunks.cache.set(file, new Map(out.map((c) => [`${c.x},${c.z}`, c.root])));
    return out;
}
parsedChunks.cache = new Map();

const levelOf = (root) => root.Level || root;
const statusOf = (root) => {
    const l = levelOf(root);
    if (l.Status !== undefined) return String(l.Status).replace(/^minecraft:/, '');
    return l.TerrainPopulated ? 'full' : 'proto';
};
const isFull = (root) => ['full', 'postprocessed'].includes(statusOf(root));

/* "id x y z" of every entity of a world's chunks and entities/ files
 * (only: 'region' or 'entities', the one kind of file). */
function entitiesOf(world, only) {
    const out = [];
    for (const { file, kind } of U.regionFiles(world)) {
        if (only && kind !== only) continue;
        for (const c of parsedChunks(file)) {
            const list = kind === 'entities' ? c.root.Entities : kind === 'region' ? levelOf(c.root).Entities : null;
            for (const e of list || [])
                out.push(`${e.id} ${e.Pos.map((v) => v.toFixed(3)).join(' ')}`);
        }
    }
    return out.sort();
}

/* The source: parts of three corpus regions (the 1.16 one where its
 * entities are, the 1.18.2 one with its 27 full chunks and proto-chunks
 * around them), so that every chunk can be checked in a few seconds. */
function sourceWorld(dir) {
    const a = path.join(U.ANVIL, '1.16/ppa-r.0.-1.mca'), b = path.join(U.ANVIL, '1.18.2/ppa-r.0.0.mca');
    const c = path.join(U.ANVIL, '1.12.2/mcaselector-r.0.0.mca');
    U.subsetRegion(a, path.join(dir, 'region/r.0.-1.mca'), (x, z) => x >= 4 && x <= 9 && z >= 24 && z <= 29);
    U.subsetRegion(b, path.join(dir, 'region/r.0.0.mca'), (x, z) => x <= 8 && z <= 3);
    U.subsetRegion(c, path.join(dir, 'DIM-1/region/r.0.0.mca'), (x, z) => x <= 3 && z <= 3);
    /* vanilla entities/ and poi/ records: entities of 1.17.1 where no
     * terrain chunk is, points of interest beside the 1.18.2 chunks */
    U.subsetRegion(path.join(U.ANVIL, '1.17.1/amulet-entities-r.-1.0.mca'), path.join(dir, 'entities/r.-1.0.mca'),
        () => true);
    U.subsetRegion(path.join(U.ANVIL, '1.16.5/amulet-poi-r.0.0.mca'), path.join(dir, 'poi/r.0.0.mca'), () => true);
    /* a level.dat of 1.18.2 (WorldGenSettings, SpawnX/Y/Z) with seed 42 */
    U.ok(['world', 'create', dir + '-level', '--version', '1.18.2', '--radius', '0', '--seed', '42', '--quiet']);
    fs.copyFileSync(path.join(dir + '-level', 'level.dat'), path.join(dir, 'level.dat'));
    return dir;
}

/* level.dat converted for `target` (DataVersion dv): its seed is still 42,
 * in the keys of the target's era, with the overworld's biome source of
 * that era, and the spawn in the keys of that era. */
async function checkLevel(file, target, dv) {
    const lvl = nbt.simplify((await nbt.parse(fs.readFileSync(file))).parsed).Data;
    const problems = [];
    const seed = (v) => (Array.isArray(v) ? v[1] : Number(v));
    if (dv >= 2566) {
        const wgs = lvl.WorldGenSettings || {};
        const bs = (((wgs.dimensions || {})['minecraft:overworld'] || {}).generator || {}).biome_source || {};
        if (seed(wgs.seed) !== 42 || 'RandomSeed' in lvl) problems.push(`seed ${JSON.stringify(wgs.seed)}`);
        const want = dv >= 2825 ? 'minecraft:multi_noise' : 'minecraft:vanilla_layered';
        if (bs.type !== want) problems.push(`overworld biome source ${bs.type}, want ${want}`);
    } else if (seed(lvl.RandomSeed) !== 42 || 'WorldGenSettings' in lvl || lvl.generatorName !== 'default') {
        problems.push(`RandomSeed ${JSON.stringify(lvl.RandomSeed)} generatorName ${lvl.generatorName}`);
    }
    const spawn = dv >= 4554 ? lvl.spawn && lvl.spawn.pos : [lvl.SpawnX, lvl.SpawnY, lvl.SpawnZ];
    if (!spawn || spawn.length !== 3 || spawn.some((v) => typeof v !== 'number') || (dv >= 4554 && 'SpawnX' in lvl))
        problems.push(`spawn ${JSON.stringify(spawn)}`);
    if (lvl.DataVersion !== dv || lvl.Version.Name !== target) problems.push(`version ${lvl.Version.Name} ${lvl.DataVersion}`);
    return problems;
}

/* The tool's part of a target, run while node checks another: the
 * conversion, world verify, and the sampled listings of the source. */
async function prepare(src, dst, target) {
    const conv = await U.runAsync(['world', 'convert', src, dst, '--to', target, '--json', '--quiet']);
    if (conv.status !== 0) return { error: `convert: status ${conv.status}: ${conv.err}` };
    const verify = await U.runAsync(['world', 'verify', dst]);
    const listings = new Map();
    for (const { file, kind } of U.regionFiles(src))
        if (kind === 'region')
            listings.set(path.relative(src, file), await U.runAsync(['chunk', 'blocks', file, '--all', '--ids',
                '--version', target, '--every', String(SAMPLE)]));
    return { report: JSON.parse(conv.out), verify, listings };
}

async function checkTarget(src, dst, target, statuses, ready) {
    const before = H.failures();
    const job = await ready;
    if (job.error) return fail(`${target}: ${job.error}`);
    const report = job.report;
    if (job.verify.status !== 0) fail(`${target}: world verify: ${job.verify.out.slice(-600)}`);
    let chunks = 0, positions = 0;
    for (const [rel, listing] of job.listings) {
        const out = path.join(dst, rel);
        if (listing.status !== 0) {
            fail(`${target}: chunk blocks ${rel}: ${listing.err}`);
            continue;
        }
        const st = statuses.get(rel);
        const expect = (x, z) => {
            const c = st.get(`${x},${z}`);
            return c.full || era(c.dv) === era(DV[target]);
        };
        if (!fs.existsSync(out)) {
            if ([...st.keys()].some((k) => expect(...k.split(',').map(Number))))
                fail(`${target}: ${rel} not written`);
            continue;
        }
        const r = await U.compareSampled(out, target, listing.out, expect);
        chunks += r.chunks;
        positions += r.positions;
        for (const p of r.problems) fail(`${target}: ${p}`);
    }
    const dropped = [...statuses.values()].flatMap((m) => [...m.values()])
        .filter((c) => !c.full && era(c.dv) !== era(DV[target])).length;
    if (report.protos_dropped !== dropped) fail(`${target}: report says ${report.protos_dropped} proto-chunks dropped, ${dropped} expected`);
    /* what every era keeps with one meaning: InhabitedTime and LastUpdate */
    let kept = 0;
    for (const { file, kind } of U.regionFiles(src)) {
        const out = path.join(dst, path.relative(src, file));
        if (kind !== 'region' || !fs.existsSync(out)) continue;
        const theirs = new Map(parsedChunks(out).map((c) => [`${c.x},${c.z}`, levelOf(c.root)]));
        for (const [k, t] of theirs) {
            /* the keys of the target's era at the root, nothing of another */
            const root = Object.keys(parsedChunks.cache.get(out).get(k)).sort().join(',');
            const want = DV[target] >= 2844 ? !/(^|,)Level(,|$)/.test(root) && /(^|,)sections(,|$)/.test(root)
                : root === 'DataVersion,Level' && (DV[target] >= 1451 || 'HeightMap' in t);
            if (!want) fail(`${target}: chunk ${k}: root keys ${root}${DV[target] < 1451 ? ', Level ' + Object.keys(t) : ''}`);
        }
        for (const c of parsedChunks(file)) {
            const t = theirs.get(`${c.x},${c.z}`), l = levelOf(c.root);
            if (!t) continue;
            kept++;
            if (Number(t.InhabitedTime) !== Number(l.InhabitedTime) || Number(t.LastUpdate) !== Number(l.LastUpdate))
                fail(`${target}: chunk ${c.x} ${c.z}: InhabitedTime/LastUpdate ${t.InhabitedTime}/${t.LastUpdate}, ` +
                    `source ${l.InhabitedTime}/${l.LastUpdate}`);
        }
    }
    if (!kept) fail(`${target}: no chunk compared for InhabitedTime`);
    /* entities: all of them from 1.17 (entities/ files need no chunk);
     * before, those of the chunks only, the others reported dropped */
    const orphans = entitiesOf(src, 'entities');
    const want = DV[target] >= 2681 ? entitiesOf(src) : entitiesOf(src, 'region'), got = entitiesOf(dst);
    if (want.length === 0 || orphans.length === 0 ||
        JSON.stringify(want.map((e) => e.split(' ')[0])) !== JSON.stringify(got.map((e) => e.split(' ')[0])))
        fail(`${target}: entities ${got.length}, expected ${want.length}`);
    if (report.entities_no_chunk !== (DV[target] >= 2681 ? 0 : orphans.length))
        fail(`${target}: ${report.entities_no_chunk} entities reported dropped without a chunk, ${orphans.length} expected`);
    /* points of interest: carried section by section from 1.14, none before */
    const poiOut = path.join(dst, 'poi/r.0.0.mca');
    const sections = (f) => U.rawChunks(f).map((c) => Object.keys(nbt.simplify(nbt.parseUncompressed(c.raw)).Sections || {}))
        .flat().length;
    const poiIn = sections(path.join(src, 'poi/r.0.0.mca'));
    if (DV[target] >= 1952 ? !fs.existsSync(poiOut) || sections(poiOut) !== poiIn || report.poi_sections_carried !== poiIn
        : fs.existsSync(poiOut) || report.poi_records_dropped !== U.chunksOf(path.join(src, 'poi/r.0.0.mca')).length)
        fail(`${target}: points of interest: ${fs.existsSync(poiOut) ? sections(poiOut) : 'no file'}, source ${poiIn} ` +
            `sections; report ${report.poi_sections_carried} carried, ${report.poi_records_dropped} dropped`);
    const where = DV[target] >= 2681 ? 'entities/' : 'chunks';
    const { readLevel } = require('prismarine-provider-anvil').level;
    const level = await readLevel(path.join(dst, 'level.dat'));
    if (level.Version.Name !== target || level.DataVersion !== DV[target])
        fail(`${target}: level.dat says ${level.Version.Name} ${level.DataVersion}`);
    for (const p of await checkLevel(path.join(dst, 'level.dat'), target, DV[target])) fail(`${target}: level.dat: ${p}`);
    console.log(`${H.failures() === before ? 'ok  ' : 'FAIL'} ${target}: ${chunks} chunks read by the oracle, ${positions} positions equal; ` +
        `${dropped} proto-chunks dropped; ${got.length} entities in ${where}; level.dat ${level.Version.Name}`);
}

/* The registry map of `from` -> `to` as an array. */
function registryMap(from, to) {
    const map = [];
    for (const line of U.ok(['registry', '--version', from, '--to', to, '--list']).out.split('\n')) {
        const m = /^(\d+) \S+ -> (\d+) /.exec(line);
        if (m) map[+m[1]] = +m[2];
    }
    return map;
}

/* 'chunk X Z' -> Map(position -> id) of `chunk blocks FILE --all --ids` (non-air). */
function blocksOf(file) {
    const out = new Map();
    let cur = null;
    for (const line of U.ok(['chunk', 'blocks', file, '--all', '--ids']).out.split('\n')) {
        if (line.startsWith('chunk ')) {
            cur = new Map();
            out.set(line, cur);
        } else if (line) {
            const i = line.lastIndexOf(' ');
            cur.set(line.slice(0, i), +line.slice(i + 1));
        }
    }
    return out;
}

function roundTrip(tmp) {
    const before = H.failures();
    const src = path.join(tmp, 'rt-src');
    U.subsetRegion(path.join(tmp, 'src/region/r.0.-1.mca'), path.join(src, 'region/r.0.-1.mca'), () => true);
    const mid = path.join(tmp, 'rt-mid'), back = path.join(tmp, 'rt-back');
    U.ok(['world', 'convert', src, mid, '--to', '1.20.6', '--quiet']);
    U.ok(['world', 'convert', mid, back, '--to', '1.16', '--quiet']);
    const there = registryMap('1.16', '1.20.6'), home = registryMap('1.20.6', '1.16');
    const a = blocksOf(path.join(src, 'region/r.0.-1.mca')), b = blocksOf(path.join(back, 'region/r.0.-1.mca'));
    let exact = 0, mapped = 0, same = 0;
    assert.deepStrictEqual([...b.keys()], [...a.keys()], 'the same chunks come back');
    for (const [chunk, blocks] of a) {
        const got = b.get(chunk);
        for (const [pos, id] of blocks) {
            const expect = home[there[id]];
            const have = got.get(pos) ?? 0;
            if (expect === id) exact++;
            else mapped++;
            if (have === expect) same++;
            else if (same + 1 < exact + mapped && H.failures() < 20)
                fail(`round trip ${chunk} ${pos}: ${id} came back as ${have}, the maps give ${expect}`);
        }
        for (const pos of got.keys()) if (!blocks.has(pos)) fail(`round trip ${chunk} ${pos}: a block where air was`);
    }
    const e0 = entitiesOf(src), e1 = entitiesOf(back);
    if (JSON.stringify(e0) !== JSON.stringify(e1)) fail(`round trip: entities ${e1.length}, source ${e0.length}`);
    console.log(`${H.failures() === before ? 'ok  ' : 'FAIL'} round trip 1.16 -> 1.20.6 -> 1.16: ${exact} blocks of states both have came back equal, ` +
        `${mapped} others as the maps give them; ${e1.length} entities back in the chunks, positions equal`);
}

/* level.dat alone for 1.21.11 (spawn{pos}) and back to 1.18.2 (SpawnX) */
async function levelOnly(tmp, src) {
    const before = H.failures();
    const a = path.join(tmp, 'lv-1.21.11'), b = path.join(tmp, 'lv-back');
    const noDim = ['--dimension', 'minecraft:none', '--quiet'];
    U.ok(['world', 'convert', src, a, '--to', '1.21.11', ...noDim]);
    for (const p of await checkLevel(path.join(a, 'level.dat'), '1.21.11', 4671)) fail(`1.21.11: level.dat: ${p}`);
    fs.rmSync(path.join(a, 'mcchunk-convert.log'));
    U.ok(['world', 'convert', a, b, '--to', '1.18.2', ...noDim]);
    for (const p of await checkLevel(path.join(b, 'level.dat'), '1.18.2', 2975)) fail(`1.21.11 -> 1.18.2: level.dat: ${p}`);
    console.log(`${H.failures() === before ? 'ok  ' : 'FAIL'} level.dat: seed, generator and spawn in each era's keys, ` +
        '1.12.2 / 1.14.4 / 1.17.1 / 1.20.6 / 1.21.11 and back');
}

function layout26(tmp, src) {
    const dst = path.join(tmp, 'to-26.1');
    U.ok(['world', 'convert', src, dst, '--to', '26.1', '--quiet', '--dimension', 'minecraft:overworld']);
    const file = path.join(dst, 'dimensions/minecraft/overworld/region/r.0.-1.mca');
    assert(fs.existsSync(file), '26.1 layout');
    assert(!fs.existsSync(path.join(dst, 'region')), 'no legacy region folder');
    U.ok(['world', 'verify', dst]);
    const a = U.ok(['chunk', 'blocks', path.join(src, 'region/r.0.-1.mca'), '--all', '--ids', '--version', '26.1']).out;
    const b = U.ok(['chunk', 'blocks', file, '--all', '--ids']).out;
    if (a !== b) fail('26.1: blocks differ from chunk blocks --version 26.1 of the source');
    console.log('ok   26.1: dimensions/minecraft/overworld layout, verify clean, every block as chunk blocks --version 26.1');
}

/* --dry-run: the same report as the real run, nothing written */
function dryRun(tmp, src) {
    const dst = path.join(tmp, 'dry');
    const dry = JSON.parse(U.ok(['world', 'convert', src, dst, '--to', '1.20.6', '--dry-run', '--json', '--quiet']).out);
    if (fs.existsSync(dst)) fail('--dry-run made DST');
    const real = JSON.parse(U.ok(['world', 'convert', src, dst, '--to', '1.20.6', '--json', '--quiet']).out);
    for (const k of ['chunks_read', 'chunks_written', 'protos_dropped', 'blocks_exact', 'blocks_approximated',
        'entities_carried', 'poi_sections_carried', 'light_left_to_game'])
        if (dry[k] !== real[k]) fail(`--dry-run says ${k} ${dry[k]}, the real run ${real[k]}`);
    if (!dry.dry_run || dry.region_files_written !== 0 || real.region_files_written === 0)
        fail(`--dry-run: ${dry.region_files_written} files, the real run ${real.region_files_written}`);
    console.log(`ok   --dry-run: the real run's report (${real.chunks_written} chunks), nothing written`);
}

/* The report's counts of how blocks translated, against `registry --to`
 * (mc_registry_translate_state, one state at a time) for every block of a
 * 1.12.2 Nether region converted to 1.20.6: per kind (a property dropped,
 * a value defaulted, renamed, an ancestor, air) the blocks whose state
 * translates that way (an id no 1.12.2 state has: air), every other block
 * through legacy.json (mapped), and exact + approximated = all 65536 blocks
 * of each chunk. */
function translationCounts(tmp) {
    const before = H.failures(), t0 = Date.now();
    const w = path.join(tmp, 'tc');
    const file = path.join(w, 'DIM-1/region/r.0.0.mca');
    U.subsetRegion(path.join(U.ANVIL, '1.12.2/mcaselector-r.0.0.mca'), file, () => true);
    const r = JSON.parse(U.ok(['world', 'convert', w, path.join(tmp, 'tc-out'), '--to', '1.20.6', '--dry-run',
        '--json', '--quiet']).out);
    const blocks = new Map(); /* source id -> blocks (non-air) */
    for (const line of U.ok(['chunk', 'blocks', file, '--all', '--ids']).out.split('\n')) {
        if (!line || line.startsWith('chunk ')) continue;
        const id = line.slice(line.lastIndexOf(' ') + 1);
        blocks.set(id, (blocks.get(id) || 0) + 1);
    }
    const valid = new Set(U.ok(['registry', '--version', '1.12.2', '--list']).out.split('\n').map((l) => l.split(' ')[0]));
    const want = { prop_dropped: 0, value_defaulted: 0, renamed: 0, ancestor: 0, air: 0 };
    const names = { dropped: 'prop_dropped', defaulted: 'value_defaulted', renamed: 'renamed', ancestor: 'ancestor', air: 'air' };
    const ids = [...blocks.keys()].filter((id) => valid.has(id));
    let approximated = 0;
    for (const id of blocks.keys()) if (!valid.has(id)) want.air += blocks.get(id), approximated += blocks.get(id);
    for (const line of U.ok(['registry', '--version', '1.12.2', '--to', '1.20.6'].concat(ids)).out.split('\n')) {
        const m = /^(\d+) .* -> .*\(([a-z,-]+)\)$/.exec(line);
        if (!m) continue;
        const kinds = m[2].split(',').filter((k) => names[k]);
        for (const k of kinds) want[names[k]] += blocks.get(m[1]);
        if (kinds.length) approximated += blocks.get(m[1]);
    }
    const total = 65536 * r.chunks_read;
    const got = r.blocks_by_kind;
    for (const k of Object.keys(want))
        if ((got[k] || 0) !== want[k]) fail(`translation counts: ${k} ${got[k] || 0}, registry --to says ${want[k]}`);
    if (r.blocks_exact + r.blocks_approximated !== total || r.blocks_approximated !== approximated ||
        got.mapped !== total - want.air || !r.chunks_read)
        fail(`translation counts: exact ${r.blocks_exact} approximated ${r.blocks_approximated} mapped ${got.mapped}` +
            ` of ${total} (${approximated} approximated, ${want.air} air by registry --to)`);
    console.log(`${H.failures() === before ? 'ok  ' : 'FAIL'} translation counts of ${r.chunks_read} 1.12.2 chunks ` +
        `to 1.20.6 as registry --to gives them (${approximated} blocks approximated, ${want.renamed} renamed; ` +
        `${Date.now() - t0} ms)`);
}

/* --compression lz4 and none: every record (chunks, entities, poi) holds
 * the NBT bytes of a zlib run in its own compression id (none against
 * dryRun's DST; lz4 with --light against a zlib run with --light: the light
 * makes the 1.16 chunks' NBT larger than one 64 KiB LZ4 block); the LZ4
 * records decoded by lz4js (world_util's lz4BlockStream: framing, checksums,
 * terminator); our reader: `world verify` clean, `world stats --by chunk`
 * (every chunk's blocks and biomes) as the zlib world's, and `chunk get
 * --raw` of a sample. */
function compressions(tmp, src) {
    const records = (world, stats) => {
        const m = new Map();
        for (const { file } of U.regionFiles(world))
            for (const c of U.rawChunks(file, stats)) m.set(`${path.relative(world, file)} ${c.x},${c.z}`, c);
        return m;
    };
    const lit = path.join(tmp, 'comp-zlib-light');
    U.ok(['world', 'convert', src, lit, '--to', '1.20.6', '--light', '--quiet']);
    for (const [name, id, zlibDst] of [['lz4', 4, lit], ['none', 3, path.join(tmp, 'dry')]]) {
        const want = records(zlibDst);
        const dst = path.join(tmp, 'comp-' + name);
        U.ok(['world', 'convert', src, dst, '--to', '1.20.6', '--compression', name, '--quiet'].concat(
            zlibDst === lit ? ['--light'] : []));
        U.ok(['world', 'verify', dst]);
        const stats = { blocks: 0 };
        const got = records(dst, stats);
        if (got.size !== want.size || got.size < 50) fail(`--compression ${name}: ${got.size} records, zlib ${want.size}`);
        for (const [k, c] of got) {
            const w = want.get(k);
            if (c.comp !== id || !w || w.comp !== 2 || !c.raw || !w.raw.equals(c.raw))
                fail(`--compression ${name}: ${k}: id ${c.comp}, not the zlib record's NBT`);
        }
        if (id === 4 && stats.blocks <= got.size) fail(`lz4: ${stats.blocks} blocks in ${got.size} records: none spans two`);
        const perChunk = (w) => U.ok(['world', 'stats', w, '--by', 'chunk', '--json', '--quiet']).out;
        if (perChunk(dst) !== perChunk(zlibDst))
            fail(`--compression ${name}: world stats --by chunk differs from the zlib world's`);
        U.worldHashes(dst, 4);
        console.log(`ok   --compression ${name}: ${got.size} records (id ${id}) hold the zlib run's NBT` +
            (id === 4 ? `, ${stats.blocks} LZ4 blocks read by lz4js` : '') + '; verify clean, world stats by chunk equal');
    }
    /* --deflate-level 6: zlib records holding the default's (level 1) NBT,
     * in fewer bytes */
    const six = path.join(tmp, 'comp-zlib-6');
    U.ok(['world', 'convert', src, six, '--to', '1.20.6', '--light', '--quiet', '--deflate-level', '6']);
    const want = records(lit), got = records(six);
    let bytes1 = 0, bytes6 = 0;
    for (const [k, c] of got) {
        const w = want.get(k);
        if (c.comp !== 2 || !w || !w.raw.equals(c.raw)) fail(`--deflate-level 6: ${k}: not the level 1 record's NBT`);
        bytes6 += c.stored;
        bytes1 += w ? w.stored : 0;
    }
    if (got.size !== want.size || !(bytes6 < bytes1))
        fail(`--deflate-level 6: ${got.size} records of ${bytes6} bytes, level 1 ${want.size} of ${bytes1}`);
    console.log(`ok   --deflate-level 6: ${got.size} records hold level 1's NBT in ${bytes6} bytes, not ${bytes1}`);
}

function usage(tmp, src) {
    const fails = (status, args, re) => {
        const r = U.run(args);
        if (r.status !== status || r.out !== '' || !re.test(r.err))
            fail(`${args.join(' ')}: status ${r.status}, stdout '${r.out.slice(0, 80)}', stderr '${r.err.trim()}'`);
    };
    fails(2, ['world', 'convert', src], /SRC DST --to/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '9.9'], /unknown version 9\.9/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--threads', '0'], /--threads/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--shard', '4/4'], /--shard K/);
    fails(2, ['world', 'convert', src, path.join(src, 'inner'), '--to', '1.20.6'], /separate folders/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.4', '--compression', 'lz4'],
        /lz4 are read by 1\.20\.5 .*not by 1\.20\.4/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.14.4', '--compression', 'none'],
        /none are read by 1\.15 .*not by 1\.14\.4/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--compression', 'zstd'],
        /zlib, lz4 or none, not 'zstd'/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--compression'], /--compression needs/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--deflate-level', '0'], /--deflate-level .*1\.\.12/);
    fails(2, ['world', 'convert', src, path.join(tmp, 'x'), '--to', '1.20.6', '--compression', 'lz4', '--deflate-level', '6'],
        /--deflate-level is for zlib records/);
    fs.mkdirSync(path.join(tmp, 'full'));
    fs.writeFileSync(path.join(tmp, 'full', 'x'), 'x');
    fails(1, ['world', 'convert', src, path.join(tmp, 'full'), '--to', '1.20.6'], /not empty/);
    fails(1, ['world', 'convert', src, path.join(tmp, 'full'), '--to', '1.20.6', '--resume'], /not a conversion in progress/);
    console.log('ok   usage errors exit 2, a DST in the way exits 1');
}

(async () => {
    const t0 = Date.now();
    const tmp = U.tmpDir('world-convert');
    const src = sourceWorld(path.join(tmp, 'src'));
    /* source chunk statuses and DataVersions, per region file */
    const statuses = new Map();
    for (const { file, kind } of U.regionFiles(src)) {
        if (kind !== 'region') continue;
        const m = new Map();
        for (const c of parsedChunks(file))
            m.set(`${c.x},${c.z}`, { full: isFull(c.root), dv: c.root.DataVersion || 0 });
        statuses.set(path.relative(src, file), m);
    }
    const limit = U.limiter(2);
    const jobs = TARGETS.map((t) => limit(() => prepare(src, path.join(tmp, 'to-' + t), t)));
    for (let i = 0; i < TARGETS.length; i++) {
        try {
            await checkTarget(src, path.join(tmp, 'to-' + TARGETS[i]), TARGETS[i], statuses, jobs[i]);
        } catch (e) {
            fail(`${TARGETS[i]}: ${e.stack}`);
        }
    }
    try {
        await levelOnly(tmp, src);
        roundTrip(tmp);
        layout26(tmp, src);
        dryRun(tmp, src);
        translationCounts(tmp);
        compressions(tmp, src);
        usage(tmp, src);
    } catch (e) {
        fail(e.stack);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    H.finish(t0);
})();
