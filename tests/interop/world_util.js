/*
 * world_util.js: what the `mcchunk world` tests share: running the tool,
 * building test worlds out of corpus region files (copied into a temporary
 * world folder, never into the project), listing a region file's chunks,
 * hashing chunks as `chunk get --raw` gives them, and checking a world's
 * chunks against prismarine-provider-anvil at the positions `chunk blocks
 * --every K` samples.
 */
'use strict';
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const zlib = require('zlib');
const lz4js = require('lz4js');
const lz4xxh32 = require('lz4js/xxh32.js');
const { Vec3 } = require('vec3');
const { isLegacy, ppaShift, oracleStateAt } = require('./anvil_oracle');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const ANVIL = path.join(CORPUS, 'anvil');

/* Runs the tool; fails the test on a sanitizer report. */
function run(args, opts = {}) {
    const r = spawnSync(BIN, args, { maxBuffer: 1 << 28, timeout: 120000, ...opts });
    const err = r.stderr ? r.stderr.toString() : '';
    assert.doesNotMatch(err, /AddressSanitizer|LeakSanitizer|runtime error:/, args.join(' '));
    return { status: r.status, signal: r.signal, out: r.stdout ? r.stdout.toString() : '', err };
}

/* Runs it and wants exit 0. */
function ok(args, opts) {
    const r = run(args, opts);
    assert.strictEqual(r.status, 0, `mcchunk ${args.join(' ')}: status ${r.status} ${r.signal || ''}\n${r.err}`);
    return r;
}

/* The same, asynchronously (so that node can work meanwhile). */
function runAsync(args) {
    return new Promise((resolve) => {
        const p = spawn(BIN, args);
        const out = [], err = [];
        p.stdout.on('data', (d) => out.push(d));
        p.stderr.on('data', (d) => err.push(d));
        p.on('close', (status, signal) =>
            resolve({ status, signal, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() }));
    });
}

function tmpDir(name) {
    return fs.mkdtempSync(path.join(os.tmpdir(), `mcchunk-${name}-`));
}

/* A world folder from corpus files: placements [{src: 'anvil/1.16/ppa-r.0.-1.mca', dst: 'region/r.0.-1.mca'}]. */
function corpusWorld(dir, placements) {
    for (const { src, dst } of placements) {
        const to = path.join(dir, dst);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        fs.copyFileSync(path.join(CORPUS, src), to);
    }
    return dir;
}

/* Writes to `dst` a region file holding the chunks of region file `src`
 * whose local coordinates pass keep(lx, lz), their records copied as they
 * are (a smaller test world out of a corpus region). */
function subsetRegion(src, dst, keep) {
    const b = fs.readFileSync(src);
    const header = Buffer.alloc(8192);
    const parts = [header];
    let next = 2;
    for (let i = 0; i < 1024; i++) {
        const loc = b.readUInt32BE(i * 4), off = loc >>> 8, n = loc & 255;
        if (!off || !keep(i & 31, i >> 5)) continue;
        parts.push(b.subarray(off * 4096, (off + n) * 4096));
        header.writeUInt32BE(((next << 8) | n) >>> 0, i * 4);
        header.writeUInt32BE(b.readUInt32BE(4096 + i * 4), 4096 + i * 4);
        next += n;
    }
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.writeFileSync(dst, Buffer.concat(parts));
    return dst;
}

/* Region files of a world: [{file, kind, rx, rz}] (both layouts, every dimension). */
function regionFiles(world) {
    const out = [];
    const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            const m = /^r\.(-?\d+)\.(-?\d+)\.mca$/.exec(e.name);
            if (m && e.isFile())
                out.push({ file: p, kind: path.basename(d), rx: +m[1], rz: +m[2] });
        }
    };
    walk(world);
    return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/* The chunks a region file holds: [{x, z}] absolute, from its header. */
function chunksOf(file) {
    const b = fs.readFileSync(file);
    const m = /r\.(-?\d+)\.(-?\d+)\.mca$/.exec(file);
    const out = [];
    for (let i = 0; b.length >= 8192 && i < 1024; i++)
        if (b.readUInt32BE(i * 4))
            out.push({ x: +m[1] * 32 + (i & 31), z: +m[2] * 32 + (i >> 5) });
    return out;
}

/* A record of region compression 4 (lz4-java's LZ4BlockOutputStream,
 * FORMATS.md 4.3) decoded with lz4js, an LZ4 block decoder and XXH32 that
 * share no code with mcchunk or liblz4. Checks the framing as lz4-java's
 * reader does: per block the magic "LZ4Block", token = method (0x10 stored,
 * 0x20 LZ4) | level 6 (64 KiB blocks), the lengths, XXH32 (seed 0x9747B28C)
 * of the decoded bytes masked to 28 bits; then the empty stored terminator
 * ending the record exactly. Returns the bytes; stats.blocks counts the
 * data blocks (when given). */
function lz4BlockStream(data, stats) {
    const parts = [];
    let at = 0;
    for (;;) {
        assert(at + 21 <= data.length, `lz4block: header at ${at} runs off the record`);
        assert.strictEqual(data.toString('latin1', at, at + 8), 'LZ4Block', `lz4block: magic at ${at}`);
        const token = data[at + 8], clen = data.readInt32LE(at + 9), dlen = data.readInt32LE(at + 13);
        const check = data.readUInt32LE(at + 17);
        assert([0x16, 0x26].includes(token), `lz4block: token 0x${token.toString(16)} at ${at}`);
        at += 21;
        if (dlen === 0) {
            assert(token === 0x16 && clen === 0 && check === 0, `lz4block: terminator at ${at - 21}`);
            assert.strictEqual(at, data.length, 'lz4block: bytes after the terminator');
            return Buffer.concat(parts);
        }
        assert(dlen <= 65536 && clen > 0 && at + clen <= data.length, `lz4block: lengths ${clen}/${dlen}`);
        let out;
        if (token === 0x16) {
            assert.strictEqual(clen, dlen, 'lz4block: stored block lengths');
            out = Buffer.from(data.subarray(at, at + clen));
        } else {
            out = Buffer.alloc(dlen);
            const end = lz4js.decompressBlock(data, out, at, clen, 0);
            assert.strictEqual(end, dlen, `lz4block: block at ${at - 21} decodes to ${end} of ${dlen} bytes`);
        }
        assert.strictEqual(check, (lz4xxh32.hash(0x9747B28C, out, 0, dlen) & 0x0FFFFFFF) >>> 0,
            `lz4block: checksum of the block at ${at - 21}`);
        parts.push(out);
        if (stats) stats.blocks = (stats.blocks || 0) + 1;
        at += clen;
    }
}

/* The decompressed NBT of every chunk record of a region file, as
 * `chunk get --raw` prints it (gzip, zlib, none or lz4; others: null):
 * [{x, z, raw, comp}]; stats as lz4BlockStream's. */
function rawChunks(file, stats) {
    const b = fs.readFileSync(file);
    const m = /r\.(-?\d+)\.(-?\d+)\.mca$/.exec(file);
    const out = [];
    for (let i = 0; b.length >= 8192 && i < 1024; i++) {
        const off = b.readUIntBE(i * 4, 3);
        if (!off) continue;
        const len = b.readUInt32BE(off * 4096), comp = b[off * 4096 + 4];
        const data = b.subarray(off * 4096 + 5, off * 4096 + 4 + len);
        const raw = comp === 2 ? zlib.inflateSync(data) : comp === 1 ? zlib.gunzipSync(data) : comp === 3 ? data
            : comp === 4 ? lz4BlockStream(data, stats) : null;
        out.push({ x: +m[1] * 32 + (i & 31), z: +m[2] * 32 + (i >> 5), raw, comp, stored: data.length });
    }
    return out;
}

/* sha256 of every chunk of every region/entities/poi file of a world:
 * Map "relative-path x,z" -> hash of what `chunk get --raw` prints (read
 * here; `sample` chunks are also asked of the tool, to tie the two). */
function worldHashes(world, sample = 3) {
    const all = new Map();
    let asked = 0;
    for (const { file } of regionFiles(world)) {
        const rel = path.relative(world, file);
        for (const { x, z, raw } of rawChunks(file)) {
            const hash = crypto.createHash('sha256').update(raw || Buffer.alloc(0)).digest('hex');
            all.set(`${rel} ${x},${z}`, hash);
            if (asked < sample) {
                asked++;
                const r = spawnSync(BIN, ['chunk', 'get', file, String(x), String(z), '--raw'], { maxBuffer: 1 << 26 });
                assert.strictEqual(crypto.createHash('sha256').update(r.stdout).digest('hex'), hash,
                    `chunk get --raw ${rel} ${x} ${z}`);
            }
        }
    }
    return all;
}

/* At most n of the async functions run at once. */
function limiter(n) {
    let active = 0;
    const queue = [];
    const next = () => {
        if (active >= n || !queue.length) return;
        active++;
        const { fn, resolve } = queue.shift();
        fn().then(resolve, (e) => resolve({ error: String(e && e.stack) })).finally(() => {
            active--;
            next();
        });
    };
    return (fn) => new Promise((resolve) => {
        queue.push({ fn, resolve });
        next();
    });
}

/*
 * Checks every chunk of converted region file `converted` (release
 * `target`, read by prismarine-provider-anvil) against `listing`: the
 * output of `chunk blocks SOURCE --all --ids --version TARGET --every K`
 * for the source region ('chunk X Z' lines, then 'x y z id' lines, air
 * included). Returns {chunks, positions, problems[]}; `expectChunk(x, z)`
 * says whether the converted file must hold a chunk listed in the source
 * (false: dropped on purpose, e.g. a proto-chunk of another era).
 */
async function compareSampled(converted, target, listing, expectChunk = () => true) {
    const RegionFile = require('prismarine-provider-anvil/src/region');
    const { nbtChunkToPrismarineChunk } = require('prismarine-provider-anvil').chunk(target);
    const shift = /^1\.1[3-7](\.|$)/.test(target) ? ppaShift(require('minecraft-data')(target)) : (id) => id;
    const rf = new RegionFile(converted);
    await rf.initialize();
    const res = { chunks: 0, positions: 0, problems: [] };
    const p = new Vec3(0, 0, 0);
    let col = null, cx = 0, cz = 0, skip = false;
    try {
        for (const line of listing.split('\n')) {
            if (!line) continue;
            const q = line.split(' ');
            if (q[0] === 'chunk') {
                cx = +q[1];
                cz = +q[2];
                if (q[3] === 'error') {
                    res.problems.push(`source chunk ${cx} ${cz}: ${line}`);
                    skip = true;
                    continue;
                }
                const want = expectChunk(cx, cz);
                const has = rf.hasChunk(cx & 31, cz & 31);
                skip = !want || !has;
                if (want !== has)
                    res.problems.push(`${converted}: chunk ${cx} ${cz} ${has ? 'present' : 'absent'}, want it ${want ? 'present' : 'absent'}`);
                if (skip) continue;
                try {
                    col = nbtChunkToPrismarineChunk(await rf.read(cx & 31, cz & 31));
                    res.chunks++;
                } catch (e) {
                    res.problems.push(`${converted}: the oracle cannot read chunk ${cx} ${cz}: ${e.message}`);
                    skip = true;
                }
                continue;
            }
            if (skip || q.length !== 4) continue;
            const x = +q[0], y = +q[1], z = +q[2];
            const minY = col.minY ?? 0, height = col.worldHeight ?? 256;
            if (y < minY || y >= minY + height) continue; /* outside the oracle's column */
            const theirs = oracleStateAt(col, target, x - cx * 16, y, z - cz * 16, p);
            const ours = shift(+q[3]);
            res.positions++;
            if (theirs !== ours && res.problems.length < 20)
                res.problems.push(`${converted}: ${x} ${y} ${z}: mcchunk ${ours}, oracle ${theirs}`);
        }
    } finally {
        await rf.file.close();
    }
    return res;
}

/* A test's bookkeeping: check(name, fn) runs a case and prints ok/FAIL,
 * fail(msg) records a problem (the first 40 printed), failures() counts
 * them, finish(t0) prints the time and exits 1 when anything failed. */
function harness() {
    let failures = 0;
    const fail = (msg) => {
        if (failures++ < 40) console.error('FAIL ' + msg);
    };
    return {
        fail,
        failures: () => failures,
        check(name, fn) {
            try {
                fn();
                console.log('ok   ' + name);
            } catch (e) {
                fail(name + ': ' + (e.stack || e));
            }
        },
        finish(t0) {
            console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
            if (failures) {
                console.error(`${failures} problem(s)`);
                process.exit(1);
            }
        },
    };
}

/* Whether process `pid` has a handler installed for `signal` (Linux: the
 * SigCgt mask in /proc/PID/status). A signal sent before the tool installs
 * its handler (while it is still starting, which on a slow or loaded
 * machine takes any time) kills it by the default action: a test that
 * means to test the tool's own stop waits for this, not for a time. */
function catches(pid, signal) {
    const bit = BigInt(os.constants.signals[signal] - 1);
    try {
        const m = /^SigCgt:\s*([0-9a-f]+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return !!m && ((BigInt('0x' + m[1]) >> bit) & 1n) === 1n;
    } catch {
        return false; /* gone */
    }
}

/* Sends `signal` to child process `p` once `ms` have passed and it
 * catches that signal (for SIGKILL: after `ms`); nothing if it ended
 * first. Resolves to the delay it was sent after (or null). */
function signalWhenCaught(p, signal, ms) {
    const t0 = Date.now();
    return new Promise((resolve) => {
        let timer;
        const tick = () => {
            if (signal !== 'SIGKILL' && !catches(p.pid, signal)) return (timer = setTimeout(tick, 2));
            p.kill(signal);
            resolve(Date.now() - t0);
        };
        timer = setTimeout(tick, ms);
        p.once('exit', () => { clearTimeout(timer); resolve(null); });
    });
}

module.exports = {
    harness,
    BIN, CORPUS, ANVIL, run, ok, runAsync, tmpDir, corpusWorld, subsetRegion, regionFiles, chunksOf, rawChunks, lz4BlockStream,
    worldHashes, catches, signalWhenCaught,
    limiter, compareSampled, isLegacy,
};
