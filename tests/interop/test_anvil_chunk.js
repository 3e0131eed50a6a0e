#!/usr/bin/env node
/*
 * test_anvil_chunk.js: block states read by mcchunk's chunk NBT reader
 * against prismarine-provider-anvil 2.13.0, an independent reader, on every
 * terrain region file of the corpus whose version it supports.
 *
 * For every region file: `mcchunk chunk blocks FILE --all --ids --every 61`
 * prints every 61st position of every chunk (air included, a phase per
 * chunk so the samples move), and each sample must equal the state id the
 * oracle's column has there (1.13+: getBlockStateId, the global state id of
 * minecraft-data, which mcchunk's registry mirrors; 1.8-1.12: id<<4|meta).
 * Every chunk of every file is compared that way. In addition, two chunks
 * per file are compared at every position: `mcchunk chunk blocks FILE X Z`
 * (non-air blocks, sorted state strings) against the oracle's blocks
 * formatted the same way, and the --ids form likewise.
 *
 * Oracle corrections (ORACLES.md): its 1.18+ reader forces minY -64 and
 * height 384, which holds for the overworld files here; it has no 26.x and
 * no snapshots (18w22a, 21w44a, 1.20.5-pre1 are skipped, mcchunk's own unit
 * test reads them); entities/ and poi/ files hold no blocks. It opens region
 * files read-write, so it reads copies in a temporary folder.
 */
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Vec3 } = require('vec3');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const ANVIL = path.join(CORPUS, 'anvil');
const EVERY = 61;

if (!fs.existsSync(ANVIL)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}

const RegionFile = require('prismarine-provider-anvil/src/region');
const chunkCodec = require('prismarine-provider-anvil').chunk;

function versionOf(folder) {
    if (/snapshot|pre/.test(folder)) return null; // the oracle has no snapshots
    return folder;
}

function mcchunk(args) {
    return execFileSync(BIN, ['chunk', ...args], { maxBuffer: 1 << 30, encoding: 'utf8' });
}

function sortedProps(props) {
    const keys = Object.keys(props).sort();
    return keys.length ? '[' + keys.map((k) => `${k}=${String(props[k])}`).join(',') + ']' : '';
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-anvil-chunk-'));
let failures = 0;
let totalChunks = 0, totalSamples = 0, totalFull = 0;

/* Oracle correction (seen here, not in ORACLES.md before): its 1.14-1.17
 * reader (src/1.14/chunk.js readPalette) turns an int property's value into
 * parseInt(value) instead of its index, so properties whose values do not
 * start at 0 (leaves' distance 1..7, ...) give a state id shifted within the
 * block (spruce_leaves[distance=2] becomes distance=3). The test maps
 * mcchunk's id through that same formula before comparing. */
const { ppaShift } = require('./anvil_oracle'); /* the formula above (anvil_oracle.js) */

function oracleId(col, legacy, x, y, z) {
    const p = new Vec3(x, y, z);
    if (legacy) return (col.getBlockType(p) << 4) | col.getBlockData(p);
    return col.getBlockStateId(p);
}

async function checkFile(rel, version) {
    const src = path.join(ANVIL, rel);
    const copy = path.join(tmp, rel.replace(/\//g, '_'));
    fs.copyFileSync(src, copy);
    const legacy = /^1\.(8|9|10|11|12)(\.|$)/.test(version);
    const { nbtChunkToPrismarineChunk } = chunkCodec(version);
    const Block = require('prismarine-block')(version);
    const shifted = /^1\.1[4-7](\.|$)/.test(version);
    const expect = shifted ? ppaShift(require('minecraft-data')(version)) : (id) => id;
    const region = new RegionFile(copy);
    await region.initialize();

    // samples of every chunk from mcchunk
    const out = mcchunk(['blocks', src, '--all', '--ids', '--every', String(EVERY)]).split('\n');
    const chunks = [];
    let cur = null;
    for (const line of out) {
        if (!line) continue;
        if (line.startsWith('chunk ')) {
            const parts = line.split(' ');
            if (parts[3] === 'error') {
                console.error(`${rel}: mcchunk cannot read chunk ${parts[1]} ${parts[2]}: ${line}`);
                failures++;
                cur = null;
                continue;
            }
            cur = { x: +parts[1], z: +parts[2], samples: [] };
            chunks.push(cur);
        } else if (cur) {
            cur.samples.push(line.split(' ').map(Number));
        }
    }
    let bad = 0, samples = 0, skipped = 0;
    for (const c of chunks) {
        const data = await region.read(c.x & 31, c.z & 31);
        let col;
        try {
            col = nbtChunkToPrismarineChunk(data);
        } catch (e) {
            skipped++;
            continue;
        }
        const expectedMin = Math.floor(c.samples.length ? 1 : 0);
        if (c.samples.length < expectedMin) bad++;
        for (const [x, y, z, id] of c.samples) {
            samples++;
            const o = oracleId(col, legacy, x & 15, y, z & 15);
            if (o !== expect(id)) {
                if (bad++ < 5) console.error(`${rel}: chunk ${c.x} ${c.z} at ${x} ${y} ${z}: mcchunk ${id}, oracle ${o}`);
            }
        }
    }
    // full comparison of two chunks (first and middle)
    const picks = chunks.length ? [chunks[0], chunks[chunks.length >> 1]] : [];
    let fullBad = 0;
    for (const c of picks) {
        const col = nbtChunkToPrismarineChunk(await region.read(c.x & 31, c.z & 31));
        const minY = col.minY ?? 0, height = col.worldHeight ?? 256;
        const ours = mcchunk(['blocks', src, String(c.x), String(c.z), '--ids']).split('\n').filter(Boolean)
            .map((l) => { const p = l.split(' '); p[3] = String(expect(+p[3])); return p.join(' '); });
        const oursText = legacy || shifted ? null : mcchunk(['blocks', src, String(c.x), String(c.z)]).split('\n').filter(Boolean);
        const theirs = [], theirsText = [];
        for (let y = minY; y < minY + height; y++)
            for (let z = 0; z < 16; z++)
                for (let x = 0; x < 16; x++) {
                    const id = oracleId(col, legacy, x, y, z);
                    if (legacy ? id >> 4 === 0 : Block.fromStateId(id).name.endsWith('air') && ['air', 'cave_air', 'void_air'].includes(Block.fromStateId(id).name)) continue;
                    const ax = c.x * 16 + x, az = c.z * 16 + z;
                    theirs.push(`${ax} ${y} ${az} ${id}`);
                    if (!legacy && !shifted) {
                        const b = Block.fromStateId(id);
                        theirsText.push(`${ax} ${y} ${az} minecraft:${b.name}${sortedProps(b.getProperties())}`);
                    }
                }
        const cmp = (a, b, what) => {
            if (a.length !== b.length) {
                console.error(`${rel}: chunk ${c.x} ${c.z} ${what}: mcchunk ${a.length} blocks, oracle ${b.length}`);
                fullBad++;
            }
            for (let i = 0; i < Math.min(a.length, b.length); i++)
                if (a[i] !== b[i]) {
                    if (fullBad++ < 5) console.error(`${rel}: chunk ${c.x} ${c.z} ${what} line ${i}: mcchunk '${a[i]}' oracle '${b[i]}'`);
                    break;
                }
        };
        cmp(ours, theirs, 'ids');
        if (oursText) cmp(oursText, theirsText, 'states');
        totalFull += ours.length;
    }
    await region.file.close();
    console.log(`${rel.padEnd(52)} ${version.padEnd(7)} chunks ${String(chunks.length).padStart(4)} samples ${String(samples).padStart(7)} mismatches ${bad}${skipped ? ` (oracle could not read ${skipped})` : ''}; full chunks ${picks.length} mismatches ${fullBad}`);
    totalChunks += chunks.length - skipped;
    totalSamples += samples;
    if (bad || fullBad) failures++;
    return skipped;
}

/* The writer against the same oracle: chunks of a 1.21.1 and a 1.12.2
 * region converted by `mcchunk chunk convert` to every era the oracle
 * reads, stored with `mcchunk chunk put` into a fresh region file, must
 * read in the oracle with the blocks mcchunk reads back from it, at every
 * position. */
async function checkWriter() {
    const sources = [['1.21.1/ppa-r.0.0.mca', [[5, 5], [9, 12]]], ['1.12.2/ppa-r.0.-1.mca', [[1, -5], [4, -5]]]];
    const targets = ['1.8.9', '1.12.2', '1.13.2', '1.14.4', '1.15.2', '1.16.5', '1.17.1', '1.18.2', '1.20.6', '1.21.1'];
    let checked = 0;
    for (const [rel, chunks] of sources) {
        const src = path.join(ANVIL, rel);
        for (const target of targets) {
            const legacy = /^1\.(8|9|10|11|12)(\.|$)/.test(target);
            const shifted = /^1\.1[4-7](\.|$)/.test(target);
            const expect = shifted ? ppaShift(require('minecraft-data')(target)) : (id) => id;
            const { nbtChunkToPrismarineChunk } = chunkCodec(target);
            const dir = fs.mkdtempSync(path.join(tmp, 'w-'));
            for (const [x, z] of chunks) {
                const nbtFile = path.join(dir, `c.${x}.${z}.nbt`);
                execFileSync(BIN, ['chunk', 'convert', src, String(x), String(z), '--to-version', target, '-o', nbtFile],
                    { stdio: ['ignore', 'ignore', 'ignore'] });
                const region = path.join(dir, `r.${x >> 5}.${z >> 5}.mca`);
                execFileSync(BIN, ['chunk', 'put', region, String(x), String(z), nbtFile]);
                const ours = mcchunk(['blocks', region, String(x), String(z), '--ids']).split('\n').filter(Boolean);
                const rf = new RegionFile(region);
                await rf.initialize();
                const col = nbtChunkToPrismarineChunk(await rf.read(x & 31, z & 31));
                await rf.file.close();
                const theirs = [];
                const minY = col.minY ?? 0, height = col.worldHeight ?? 256;
                for (let y = minY; y < minY + height; y++)
                    for (let zz = 0; zz < 16; zz++)
                        for (let xx = 0; xx < 16; xx++) {
                            const id = oracleId(col, legacy, xx, y, zz);
                            if (id === 0 || (legacy && id >> 4 === 0)) continue;
                            theirs.push(`${x * 16 + xx} ${y} ${z * 16 + zz} ${id}`);
                        }
                const mine = ours.map((l) => { const q = l.split(' '); q[3] = String(expect(+q[3])); return q.join(' '); })
                    .filter((l) => !l.endsWith(' 0'));
                let bad = mine.length !== theirs.length ? 1 : 0;
                for (let i = 0; i < Math.min(mine.length, theirs.length) && !bad; i++)
                    if (mine[i] !== theirs[i]) bad = i + 1;
                if (bad) {
                    failures++;
                    console.error(`writer: ${rel} chunk ${x} ${z} as ${target}: mcchunk ${mine.length} blocks, oracle ${theirs.length}` +
                        (bad > 1 ? `; first difference '${mine[bad - 1]}' vs '${theirs[bad - 1]}'` : ''));
                }
                checked++;
            }
        }
    }
    console.log(`writer: ${checked} converted chunks read by the oracle with the same blocks`);
}

(async () => {
    const files = [];
    for (const folder of fs.readdirSync(ANVIL).sort()) {
        const dir = path.join(ANVIL, folder);
        if (!fs.statSync(dir).isDirectory()) continue;
        for (const f of fs.readdirSync(dir).sort()) {
            if (!f.endsWith('.mca') || /poi|entities/.test(f)) continue;
            if (fs.statSync(path.join(dir, f)).size <= 8192) continue;
            files.push([`${folder}/${f}`, versionOf(folder)]);
        }
    }
    let unreadable = 0;
    for (const [rel, version] of files) {
        if (!version) {
            console.log(`${rel.padEnd(52)} skipped (the oracle has no snapshot versions)`);
            continue;
        }
        unreadable += await checkFile(rel, version);
    }
    await checkWriter();
    fs.rmSync(tmp, { recursive: true, force: true });
    console.log(`${totalChunks} chunks compared at ${totalSamples} sampled positions, ${totalFull} blocks in full; ${unreadable} chunks the oracle could not read`);
    if (failures) {
        console.error(`${failures} file(s) disagree`);
        process.exit(1);
    }
})().catch((e) => {
    console.error(e);
    process.exit(1);
});
