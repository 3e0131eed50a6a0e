#!/usr/bin/env node
/*
 * test_java_chunk.js: the Java chunk codecs against prismarine-chunk 1.41.0
 * and minecraft-protocol 1.68.0, in every release minecraft-data has
 * protocol data for (every name of `mcchunk registry --versions` whose
 * protocol minecraft-data knows; several names share a protocol).
 *
 * Per release:
 *  A. mcchunk -> oracle: `mcchunk packet encode --generated SEED` (random
 *     columns: every palette kind, empty sections, light, block entities;
 *     1.17+ also a custom height) must parse with minecraft-protocol's
 *     deserializer for that version (the whole packet consumed), and
 *     prismarine-chunk loading its data must show, at every position, the
 *     state `mcchunk packet decode --ids` prints.
 *  B. oracle -> mcchunk: a column built with prismarine-chunk and dumped,
 *     wrapped into a full packet by minecraft-protocol's serializer (the
 *     other fields taken from A's parsed packet), must decode in mcchunk to
 *     prismarine's state at every position.
 *  C. cross-version: a chunk of the corpus 1.21.1 region, encoded by
 *     `mcchunk packet encode --from` for 1.8.9, 1.12.2, 1.16.5, 1.20.4 and
 *     the newest release, decodes (mcchunk and prismarine) to the states
 *     that `mcchunk chunk blocks --version V --ids` translates to.
 *
 * Oracle corrections (ORACLES.md), applied to the oracle, never to mcchunk:
 *  - 1.9-1.12: prismarine's global palette is 12 bits; vanilla's 13, so
 *    maxBitsPerBlock = 13 is set on its columns;
 *  - 1.18+: prismarine reads direct biome palettes at neededBits(#biomes);
 *    vanilla writes ceil(log2 #biomes): maxBitsPerBiome is set to that;
 *  - air, cave_air and void_air are all "air" when comparing (mcchunk's
 *    block lists leave out every air state);
 *  - light is not compared through prismarine's getters (its nibble order
 *    is permuted, ORACLES.md #1); the unit tests check light byte for byte.
 */
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const mcData = require('minecraft-data');
const { Vec3 } = require('vec3');
const { createDeserializer, createSerializer } = require('minecraft-protocol/src/transforms/serializer');
const protocolVersions = require('minecraft-data/minecraft-data/data/pc/common/protocolVersions.json');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-jc-'));
let failures = 0;
function fail(msg) { failures++; console.error('FAIL ' + msg); }
function run(args) { return execFileSync(BIN, args, { maxBuffer: 1 << 28, encoding: 'utf8' }); }

/* Releases of the tool's version table whose protocol minecraft-data has
 * protocol data for, with the minecraft-data version to use. */
function releases() {
    const out = [];
    const byProto = new Map();
    for (const v of mcData.versions.pc) {
        if (v.releaseType !== 'release' && v.releaseType !== undefined) continue;
        const d = mcData(v.minecraftVersion);
        if (!d || !d.protocol || !d.protocol.play || d.version.version !== v.version) continue;
        if (!byProto.has(v.version)) byProto.set(v.version, v.minecraftVersion);
    }
    for (const line of run(['registry', '--versions']).split('\n')) {
        const [name, proto, , reg] = line.trim().split(/\s+/);
        if (!name || !reg || reg === '-' || Number(proto) < 47) continue;
        const pv = protocolVersions.find((p) => p.minecraftVersion === name);
        if (pv && pv.releaseType && pv.releaseType !== 'release') continue;
        const md = byProto.get(Number(proto));
        if (md) out.push({ name, protocol: Number(proto), md });
    }
    return out;
}

function airTest(data, protocol) {
    if (protocol < 393) return (s) => (s >> 4) === 0;
    const ranges = ['air', 'cave_air', 'void_air'].map((n) => data.blocksByName[n]).filter(Boolean)
        .map((b) => [b.minStateId, b.maxStateId]);
    return (s) => ranges.some(([a, b]) => s >= a && s <= b);
}

function parseBlocks(text) {
    const m = new Map();
    for (const line of text.split('\n')) {
        if (!line) continue;
        const [x, y, z, s] = line.split(' ').map(Number);
        m.set(`${x},${y},${z}`, s);
    }
    return m;
}

function ceilLog2(n) { let b = 0; while ((1 << b) < n) b++; return b; }

/* A prismarine column for the version and dimension, with the corrections. */
function oracleColumn(md, protocol, minY, height) {
    const Chunk = require('prismarine-chunk')(md);
    const c = protocol >= 755 ? new Chunk({ minY, worldHeight: height }) : new Chunk();
    if (protocol >= 107 && protocol <= 340) c.maxBitsPerBlock = 13;
    if (protocol >= 757) c.maxBitsPerBiome = ceilLog2(Object.values(mcData(md).biomes).length);
    return c;
}

function loadOracle(c, protocol, p, sky) {
    if (protocol === 47) c.load(p.chunkData, p.bitMap, sky, p.groundUp);
    else if (protocol <= 498) c.load(p.chunkData, p.bitMap, sky, p.groundUp);
    else if (protocol <= 754) { c.load(p.chunkData, p.bitMap); c.loadBiomes(p.biomes); }
    else if (protocol <= 756) { c.load(p.chunkData, p.bitMap); c.loadBiomes(p.biomes); }
    else c.load(p.chunkData);
}

/* Compares the oracle column with mcchunk's block list at every position. */
function compare(label, c, blocks, isAir, x0, z0, minY, height) {
    let bad = 0;
    for (let y = minY; y < minY + height; y++) {
        for (let z = 0; z < 16; z++) {
            for (let x = 0; x < 16; x++) {
                let o = c.getBlockStateId(new Vec3(x, y, z));
                if (o === undefined || isAir(o)) o = 0;
                const m = blocks.get(`${x0 * 16 + x},${y},${z0 * 16 + z}`) || 0;
                if (o !== m && bad++ < 3) fail(`${label}: (${x},${y},${z}) oracle ${o}, mcchunk ${m}`);
            }
        }
    }
    return bad === 0;
}

function parsePacket(md, buf, label) {
    const des = createDeserializer({ state: 'play', isServer: false, version: md, noErrorLogging: true });
    const parsed = des.parsePacketBuffer(buf);
    if (parsed.data.name !== 'map_chunk') fail(`${label}: parsed as ${parsed.data.name}`);
    if (parsed.metadata.size !== buf.length) fail(`${label}: parser used ${parsed.metadata.size} of ${buf.length} bytes`);
    return parsed.data.params;
}

function randomState(data, protocol, rnd) {
    const blocks = data.blocksArray.filter((b) => !['air', 'cave_air', 'void_air'].includes(b.name));
    const b = blocks[Math.floor(rnd() * blocks.length)];
    if (protocol < 393) return b.id << 4;
    return b.minStateId + Math.floor(rnd() * (b.maxStateId - b.minStateId + 1));
}

function rng(seed) {
    let s = seed >>> 0 || 1;
    return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

const seenProtocols = new Set();

/* Every release gets A; the second seed and B run once per protocol (the
 * names of one protocol share every byte of the format). */
function testRelease(r) {
    const { name, protocol, md } = r;
    const first = !seenProtocols.has(protocol);
    seenProtocols.add(protocol);
    const data = mcData(md);
    const isAir = airTest(data, protocol);
    const modern = protocol >= 757;
    /* 1.17 has datapack heights too: its second dimension is the 1.18 overworld's */
    const dims = modern ? [[-64, 384], [0, 256]] : protocol >= 755 ? [[0, 256], [-64, 384]] : [[0, 256]];
    let template = null;
    for (const [minY, height] of dims) {
        if (modern && minY === 0 && !first) continue;
        for (const seed of modern && minY === 0 ? [9] : first ? [1, 2] : [1]) {
            const label = `${name} A seed ${seed} ${minY}/${height}`;
            const pf = path.join(tmp, `a_${name}_${seed}_${minY}.bin`);
            run(['packet', 'encode', '--version', name, '--generated', String(seed), '--chunk', `${seed},-${seed}`,
                '--min-y', String(minY), '--height', String(height), '-o', pf]);
            const buf = fs.readFileSync(pf);
            const p = parsePacket(md, buf, label);
            if (minY === dims[0][0] && !template) template = p;
            const dec = ['packet', 'decode', '--version', name, pf, '--min-y', String(minY), '--height', String(height)];
            const info = run([...dec, '--info']);
            const sky = / sky light/.test(info) && !/no sky light/.test(info);
            const blocks = parseBlocks(run([...dec, '--ids']));
            const c = oracleColumn(md, protocol, minY, height);
            loadOracle(c, protocol, p, sky);
            compare(label, c, blocks, isAir, seed, -seed, minY, height);
        }
    }
    if (!first)
        return;
    /* B: prismarine -> packet (minecraft-protocol) -> mcchunk */
    const [minY, height] = dims[0];
    const c = oracleColumn(md, protocol, minY, height);
    const rnd = rng(protocol * 7919);
    let mask = 0;
    for (let s = 0; s < height / 16; s++) {
        const kind = Math.floor(rnd() * 4);
        if (kind === 0) continue; /* empty */
        mask |= 1 << s;
        const pal = Array.from({ length: kind === 1 ? 1 : kind === 2 ? 3 : 40 }, () => randomState(data, protocol, rnd));
        for (let y = 0; y < 16; y++) for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) {
            c.setBlockStateId(new Vec3(x, minY + s * 16 + y, z), pal[Math.floor(rnd() * pal.length)]);
        }
    }
    const p = JSON.parse(JSON.stringify(template, (k, v) => (v && v.type === 'Buffer') ? v : v));
    Object.assign(p, template);
    p.x = 3; p.z = -7;
    if (protocol === 47) { p.chunkData = c.dump(mask & 0xffff, true); p.bitMap = mask & 0xffff; }
    else p.chunkData = c.dump();
    if (protocol > 47 && protocol < 757) p.bitMap = protocol >= 755 ? c.getMask() : c.getMask();
    if (protocol >= 110) p.blockEntities = [];
    if ('groundUp' in p) p.groundUp = true;
    const ser = createSerializer({ state: 'play', isServer: true, version: md });
    const pkt = ser.createPacketBuffer({ name: 'map_chunk', params: p });
    const pf = path.join(tmp, `b_${name}.bin`);
    fs.writeFileSync(pf, pkt);
    let out;
    try {
        /* lenient: prismarine is not a vanilla server (heightmaps and light
         * taken from A do not describe these blocks, block counts are its own) */
        out = run(['packet', 'decode', '--version', name, pf, '--ids', '--lenient']);
    } catch (e) {
        fail(`${name} B: mcchunk refused prismarine's packet: ${e.stderr}`);
        return;
    }
    compare(`${name} B`, c, parseBlocks(out), isAir, 3, -7, minY, height);
}

function testCrossVersion() {
    const region = path.join(CORPUS, 'anvil/1.21.1/ppa-r.0.0.mca');
    if (!fs.existsSync(region)) { console.log('corpus absent: cross-version skipped'); return; }
    const newest = protocolVersions.filter((p) => p.releaseType === 'release')[0];
    const targets = ['1.8.9', '1.12.2', '1.16.5', '1.20.4', '26.1'];
    for (const [cx, cz] of [[0, 0], [2, 0]]) {
        for (const name of targets) {
            const rel = all.find((r) => r.name === name);
            if (!rel) { fail(`cross-version: ${name} not testable`); continue; }
            const pf = path.join(tmp, `x_${name}.bin`);
            run(['packet', 'encode', '--version', name, '--from', region, '--chunk', `${cx},${cz}`, '-o', pf]);
            const modern = rel.protocol >= 757;
            const [minY, height] = modern ? [-64, 384] : [0, 256];
            const ours = parseBlocks(run(['packet', 'decode', '--version', name, pf, '--ids']));
            const want = parseBlocks(run(['chunk', 'blocks', region, String(cx), String(cz), '--version', name, '--ids']));
            const data = mcData(rel.md);
            const isAir = airTest(data, rel.protocol);
            let bad = 0;
            for (const [k, v] of want) {
                const y = Number(k.split(',')[1]);
                if (y < minY || y >= minY + height) continue;
                const w = isAir(v) ? 0 : v;
                if ((ours.get(k) || 0) !== w && bad++ < 3) fail(`cross ${name} ${k}: mcchunk ${ours.get(k)}, translated ${w}`);
            }
            for (const [k, v] of ours) if (!want.has(k) && bad++ < 3) fail(`cross ${name} ${k}: extra ${v}`);
            const p = parsePacket(rel.md, fs.readFileSync(pf), `cross ${name}`);
            const info = run(['packet', 'decode', '--version', name, pf, '--info']);
            const c = oracleColumn(rel.md, rel.protocol, minY, height);
            loadOracle(c, rel.protocol, p, / sky light/.test(info) && !/no sky light/.test(info));
            compare(`cross ${name} oracle`, c, ours, isAir, cx, cz, minY, height);
        }
    }
    void newest;
}

const all = releases();
const list = require('./sample').sampleReleases(all, (r) => r.name);
let done = 0;
for (const r of list) {
    try { testRelease(r); done++; } catch (e) { fail(`${r.name}: ${e.stack || e}`); }
}
testCrossVersion();
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`java chunk interop: ${done}/${list.length} releases (${new Set(list.map((r) => r.protocol)).size} protocols), ${failures} failures`);
process.exit(failures ? 1 : 0);
