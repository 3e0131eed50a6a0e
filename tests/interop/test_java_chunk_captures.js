#!/usr/bin/env node
/*
 * test_java_chunk_captures.js: the chunk data captured by prismarine-chunk's
 * chunk dumper from vanilla servers (and from Hypixel, a custom server)
 * in corpus/java-packets/<version>/prismarine-chunk: each .dump is the data
 * field of a Chunk Data packet and its .meta the other fields. The packet is
 * rebuilt with minecraft-protocol's serializer for that version (fields the
 * dumper did not keep, such as block entities, come from a packet mcchunk
 * encoded and minecraft-protocol parsed), decoded by `mcchunk packet
 * decode` (strict for vanilla captures, lenient for Hypixel's), and the
 * blocks compared with prismarine-chunk's reading of the same dump at every
 * position (with the ORACLES.md corrections of test_java_chunk.js). The
 * 1.14-1.17 chunk_light_*.meta Update Light packets are rebuilt the same way
 * and decoded with their chunk.
 */
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Vec3 } = require('vec3');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const mcData = require('minecraft-data');
const { createDeserializer, createSerializer } = require('minecraft-protocol/src/transforms/serializer');

const root = path.join(CORPUS, 'java-packets');
if (!fs.existsSync(root)) { console.log('corpus absent: skipped'); process.exit(0); }
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-jcc-'));
let failures = 0, decoded = 0, total = 0, lights = 0;
function fail(msg) { failures++; console.error('FAIL ' + msg); }
function run(args) { return execFileSync(BIN, args, { maxBuffer: 1 << 28, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }); }

const versions = new Map();
for (const line of run(['registry', '--versions']).split('\n')) {
    const [name, proto] = line.trim().split(/\s+/);
    if (name) versions.set(name, Number(proto));
}
const mdByProto = new Map();
for (const v of mcData.versions.pc) {
    const d = mcData(v.minecraftVersion);
    if (d && d.protocol && d.protocol.play && d.version.version === v.version && !mdByProto.has(v.version))
        mdByProto.set(v.version, v.minecraftVersion);
}

function ceilLog2(n) { let b = 0; while ((1 << b) < n) b++; return b; }
function airTest(data, protocol) {
    if (protocol < 393) return (s) => (s >> 4) === 0;
    const r = ['air', 'cave_air', 'void_air'].map((n) => data.blocksByName[n]).filter(Boolean).map((b) => [b.minStateId, b.maxStateId]);
    return (s) => r.some(([a, b]) => s >= a && s <= b);
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
function toBuffer(v) {
    if (Buffer.isBuffer(v)) return v;
    if (v && v.type === 'Buffer') return Buffer.from(v.data);
    return v;
}

for (const ver of fs.readdirSync(root).sort()) {
    const dir = path.join(root, ver, 'prismarine-chunk');
    if (!fs.existsSync(dir)) continue;
    const protocol = versions.get(ver);
    const md = mdByProto.get(protocol);
    if (!protocol || !md) { fail(`${ver}: no protocol data`); continue; }
    const data = mcData(md);
    const isAir = airTest(data, protocol);
    const modern = protocol >= 757;
    const des = createDeserializer({ state: 'play', isServer: false, version: md, noErrorLogging: true });
    const ser = createSerializer({ state: 'play', isServer: true, version: md });
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.dump') && !n.startsWith('chunk_light_')).sort()) {
        const base = f.slice(0, -5);
        const meta = JSON.parse(fs.readFileSync(path.join(dir, base + '.meta'), 'utf8'));
        const worldFile = path.join(dir, base + '.world');
        const world = fs.existsSync(worldFile) ? JSON.parse(fs.readFileSync(worldFile, 'utf8'))
            : modern ? { minY: -64, worldHeight: 384 } : { minY: 0, worldHeight: 256 };
        const vanilla = !base.includes('hypixel');
        const label = `${ver}/${base}`;
        total++;
        /* template fields from an mcchunk packet of this version */
        const tf = path.join(tmp, 't.bin');
        run(['packet', 'encode', '--version', ver, '--generated', '1', '--min-y', String(world.minY),
            '--height', String(world.worldHeight), '-o', tf]);
        const p = des.parsePacketBuffer(fs.readFileSync(tf)).data.params;
        const dump = fs.readFileSync(path.join(dir, f));
        p.x = meta.x; p.z = meta.z;
        p.chunkData = dump;
        for (const k of ['bitMap', 'groundUp', 'biomes', 'heightmaps', 'trustEdges', 'skyLightMask', 'blockLightMask',
            'emptySkyLightMask', 'emptyBlockLightMask', 'skyLight', 'blockLight']) {
            if (k in meta && k in p) p[k] = meta[k];
        }
        if ('ignoreOldData' in p) p.ignoreOldData = true;
        if ('blockEntities' in p) p.blockEntities = [];
        let pkt;
        try {
            pkt = ser.createPacketBuffer({ name: 'map_chunk', params: p });
        } catch (e) { fail(`${label}: serializer: ${e.message}`); continue; }
        const pf = path.join(tmp, 'p.bin');
        fs.writeFileSync(pf, pkt);
        const args = ['packet', 'decode', '--version', ver, pf, '--ids', '--min-y', String(world.minY), '--height', String(world.worldHeight)];
        /* the matching Update Light capture (1.14-1.17) */
        const lmeta = path.join(dir, base.replace(/^chunk_/, 'chunk_light_') + '.meta');
        if (protocol >= 477 && protocol < 757 && fs.existsSync(lmeta)) {
            const lm = JSON.parse(fs.readFileSync(lmeta, 'utf8'));
            const lt = path.join(tmp, 'lt.bin');
            run(['packet', 'encode', '--version', ver, '--generated', '1', '-o', tf, '--light-out', lt]);
            const lp = des.parsePacketBuffer(fs.readFileSync(lt)).data.params;
            for (const k of Object.keys(lm)) if (k in lp) lp[k] = lm[k];
            const ldump = path.join(dir, base.replace(/^chunk_/, 'chunk_light_') + '.dump');
            if ('data' in lp && fs.existsSync(ldump)) lp.data = fs.readFileSync(ldump); /* 1.14-1.16: the arrays */
            if ('trustEdges' in lp && !('trustEdges' in lm)) lp.trustEdges = true;
            try {
                fs.writeFileSync(lt, ser.createPacketBuffer({ name: 'update_light', params: lp }));
                args.push('--light', lt);
                lights++;
            } catch (e) { fail(`${label}: light serializer: ${e.message}`); }
        }
        if (!vanilla) args.push('--lenient');
        let out;
        try { out = run(args); } catch (e) { fail(`${label}: mcchunk: ${e.stderr}`); continue; }
        decoded++;
        const blocks = parseBlocks(out);
        const Chunk = require('prismarine-chunk')(md);
        const c = protocol >= 755 ? new Chunk({ minY: world.minY, worldHeight: world.worldHeight }) : new Chunk();
        if (protocol >= 107 && protocol <= 340) c.maxBitsPerBlock = 13;
        if (modern) c.maxBitsPerBiome = ceilLog2(Object.values(data.biomes).length);
        try {
            if (protocol === 47) c.load(dump, meta.bitMap, meta.skyLightSent !== false, meta.groundUp !== false);
            else if (protocol <= 498) c.load(dump, meta.bitMap, meta.skyLightSent !== false, meta.groundUp !== false);
            else if (protocol < 757) c.load(dump, meta.bitMap);
            else c.load(dump);
        } catch (e) { console.log(`${label}: prismarine cannot load it (${e.message}); mcchunk decoded it`); continue; }
        let bad = 0;
        for (let y = world.minY; y < world.minY + world.worldHeight; y++) {
            for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) {
                let o = c.getBlockStateId(new Vec3(x, y, z));
                if (o === undefined || isAir(o)) o = 0;
                const m = blocks.get(`${meta.x * 16 + x},${y},${meta.z * 16 + z}`) || 0;
                if (o !== m && bad++ < 3) fail(`${label}: (${x},${y},${z}) prismarine ${o}, mcchunk ${m}`);
            }
        }
    }
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`prismarine-chunk captures: ${decoded}/${total} decoded (${lights} with their Update Light), ${failures} failures`);
process.exit(failures ? 1 : 0);
