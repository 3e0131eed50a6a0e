#!/usr/bin/env node
/*
 * test_convert_matrix.js: chunks converted by `mcchunk chunk convert` to
 * every release prismarine-provider-anvil reads, from every source era of
 * the corpus, stored with `mcchunk chunk put`, must (a) read in that oracle,
 * every one, with the blocks `mcchunk chunk blocks --version TARGET` prints
 * for the source chunk, position by position, and (b) have the section
 * layout vanilla writes for the target: the facts are taken from the
 * corpus's vanilla regions of that version, not written down here.
 *
 * Why both: the oracle reads what it understands and skips the rest, so a
 * chunk it reads can still be one the game refuses (1.13 fails on a section
 * whose light arrays are not 2048 bytes; the oracle does not look); and the
 * structure check alone says nothing about the blocks.
 *
 * Sources: one region per corpus/anvil folder (plus the 1.17.1 custom-height
 * one), entities/ and poi/ files aside; of each, the first full chunk with
 * sections and one more (a proto-chunk with sections when the region has
 * one, else a full chunk from the middle).
 *
 * Structure facts per target, from every chunk of its vanilla regions
 * (custom-height ones only for a chunk of such a region written for its own
 * version, where the datapack's height is kept): the sets of non-light keys
 * a section with block data in the block range has (0..15 before 1.18,
 * yPos up from 1.18); whether vanilla writes sections without block data
 * at all (light only, or only a Y: 1.14-1.17; never before); whether every
 * section in the range has BlockLight and SkyLight; the non-light key sets
 * of sections outside the range, if vanilla writes any (1.14-1.17's Y -1 and
 * 16; none before 1.14); whether the range's sections run from yPos without
 * a gap (1.18+). Every light array must be 2048 bytes.
 *
 * Oracle corrections (ORACLES.md):
 *  - its 1.13-1.17 readers turn an int property's value into parseInt(value)
 *    instead of its index (the same code in src/1.13 and src/1.14), so
 *    mcchunk's id is mapped through that formula before comparing;
 *  - its 1.18+ reader forces minY -64 and height 384 and its 1.13-1.17
 *    Chunk holds 0..255: positions outside the oracle's column are not
 *    compared (the converted chunk does not hold them either: the writer
 *    drops sections outside the target's height and reports them).
 */
'use strict';
const { execFile } = require('child_process');
const { promisify } = require('util');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const nbt = require('prismarine-nbt');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus');
const ANVIL = path.join(CORPUS, 'anvil');

if (!fs.existsSync(ANVIL)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}

const RegionFile = require('prismarine-provider-anvil/src/region');
const chunkCodec = require('prismarine-provider-anvil').chunk;
const run = promisify(execFile);

/* The releases the oracle reads (ORACLES.md), each with a vanilla region. */
const TARGETS = ['1.8.9', '1.9', '1.11.2', '1.12.2', '1.13.2', '1.14.4', '1.16', '1.17.1', '1.18.2', '1.19.4',
    '1.20.6', '1.21.1'];
const { isLegacy, ppaShift, oracleBlocks } = require('./anvil_oracle');
const { limiter } = require('./world_util');
const isModern = (v) => !/^1\.([0-9]|1[0-7])(\.|$)/.test(v); // 1.18+

/* ------------------------------------------------------------ region files */

/* The chunks of a region file as parsed NBT, with their coordinates
 * (zlib only: every corpus region and everything `chunk put` writes). */
function regionChunks(file, raw) {
    const b = fs.readFileSync(file);
    const base = /r\.(-?\d+)\.(-?\d+)\.mca$/.exec(path.basename(file));
    const out = [];
    for (let i = 0; b.length >= 8192 && i < 1024; i++) {
        const off = b.readUIntBE(i * 4, 3), n = b[i * 4 + 3];
        if (!off || !n || (off + n) * 4096 > b.length) continue;
        const len = b.readUInt32BE(off * 4096), comp = b[off * 4096 + 4];
        if (comp !== 2) throw new Error(`${file}: chunk ${i} compression ${comp}`);
        const bytes = zlib.inflateSync(b.subarray(off * 4096 + 5, off * 4096 + 4 + len));
        out.push({ x: +base[1] * 32 + (i & 31), z: +base[2] * 32 + (i >> 5),
            ...(raw ? { bytes } : { root: nbt.parseUncompressed(bytes) }) });
    }
    return out;
}

function levelOf(root) {
    return root.value.Level ? root.value.Level.value : root.value;
}

function sectionsOf(root) {
    const lvl = levelOf(root);
    const s = lvl.Sections || lvl.sections;
    return s && s.value && Array.isArray(s.value.value) ? s.value.value : [];
}

const LIGHT = ['BlockLight', 'SkyLight'];
const blockKeys = (s) => Object.keys(s).filter((k) => k !== 'Y' && !LIGHT.includes(k)).sort().join(',');
const hasBlocks = (s) => ['Blocks', 'Palette', 'block_states'].some((k) => k in s);

/* ------------------------------------------------------ structure facts */

/* The block range of a chunk: 0..15 before 1.18, yPos .. yPos+23 after. */
function blockRange(root, modern) {
    if (!modern) return [0, 15];
    const lvl = levelOf(root);
    const lo = lvl.yPos ? lvl.yPos.value : -4;
    return [lo, lo + 23];
}

/* [facts of the plain regions, facts with the custom-height ones too] */
function vanillaFacts(version) {
    const dir = path.join(ANVIL, version);
    const newFacts = () => ({ inRange: new Set(), outside: new Set(), noBlocks: false, lightAlways: true,
        contiguous: true, chunks: 0, files: [] });
    const plain = newFacts(), all = newFacts();
    const modern = isModern(version);
    for (const f of fs.readdirSync(dir).sort()) {
        if (!f.endsWith('.mca') || /poi|entities/.test(f)) continue;
        const chunks = regionChunks(path.join(dir, f));
        if (!chunks.length) continue;
        const custom = /customheight/.test(f);
        for (const facts of custom ? [all] : [plain, all])
            gatherFacts(facts, f, chunks, modern);
    }
    return [plain, all];
}

function gatherFacts(facts, f, chunks, modern) {
    {
        facts.files.push(f);
        for (const c of chunks) {
            const secs = sectionsOf(c.root);
            if (!secs.length) continue;
            facts.chunks++;
            const [lo, hi] = blockRange(c.root, modern);
            const ys = [];
            for (const s of secs) {
                const y = s.Y.value;
                if (!hasBlocks(s)) facts.noBlocks = true;
                if (y < lo || y > hi) {
                    facts.outside.add(blockKeys(s));
                    continue;
                }
                ys.push(y);
                if (hasBlocks(s)) facts.inRange.add(blockKeys(s));
                if (!('BlockLight' in s && 'SkyLight' in s)) facts.lightAlways = false;
            }
            ys.sort((a, b) => a - b);
            for (let i = 0; i < ys.length; i++)
                if (ys[i] !== ys[0] + i || (modern && ys[0] !== lo)) facts.contiguous = false;
        }
    }
}

/* Problems of one written chunk against the target's vanilla facts. */
function structureProblems(root, target, facts) {
    const problems = [];
    const modern = isModern(target);
    const [lo, hi] = blockRange(root, modern);
    const ys = [];
    for (const s of sectionsOf(root)) {
        const y = s.Y.value;
        const keys = blockKeys(s);
        for (const k of LIGHT)
            if (k in s && s[k].value.length !== 2048) problems.push(`Y=${y}: ${k} of ${s[k].value.length} bytes`);
        if (y < lo || y > hi) {
            if (!facts.outside.has(keys))
                problems.push(`Y=${y} outside ${lo}..${hi} with keys {${keys}} (vanilla ${target}: ` +
                    (facts.outside.size ? [...facts.outside].map((k) => `{${k}}`).join(' ') : 'none') + ')');
            continue;
        }
        ys.push(y);
        if (!hasBlocks(s)) {
            if (!facts.noBlocks)
                problems.push(`Y=${y}: no block data (vanilla ${target} writes no such section)`);
        } else if (!facts.inRange.has(keys))
            problems.push(`Y=${y}: keys {${keys}} (vanilla ${target}: ${[...facts.inRange].map((k) => `{${k}}`).join(' ')})`);
        if (facts.lightAlways && !('BlockLight' in s && 'SkyLight' in s))
            problems.push(`Y=${y}: no ${'BlockLight' in s ? 'SkyLight' : 'BlockLight'} (vanilla ${target} stores both in every section)`);
    }
    if (facts.contiguous && modern) {
        ys.sort((a, b) => a - b);
        for (let i = 0; i < ys.length; i++)
            if (ys[i] !== lo + i) {
                problems.push(`sections ${ys.join(',')} do not run from yPos ${lo} without a gap`);
                break;
            }
    }
    return problems;
}

/* --------------------------------------------------------------- oracle */

/* ----------------------------------------------------------------- main */

function u16(n) {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    return b;
}

function pickSources() {
    const out = [];
    for (const folder of fs.readdirSync(ANVIL).sort()) {
        const dir = path.join(ANVIL, folder);
        if (!fs.statSync(dir).isDirectory()) continue;
        const files = fs.readdirSync(dir).filter((f) => f.endsWith('.mca') && !/poi|entities/.test(f)).sort();
        let took = 0;
        for (const f of files) {
            const custom = /customheight/.test(f);
            if (took && !custom) continue;
            /* a look at the bytes is enough here: the Status string (none
             * before 1.13: full) and whether any section has block data */
            const chunks = regionChunks(path.join(dir, f), true).filter((c) =>
                ['Palette', 'palette', 'Blocks'].some((k) => c.bytes.includes(Buffer.concat([u16(k.length), Buffer.from(k)]))));
            const status = (c) => {
                const key = Buffer.from([8, 0, 6, ...Buffer.from('Status')]);
                const at = c.bytes.indexOf(key);
                if (at < 0) return 'full';
                const n = c.bytes.readUInt16BE(at + key.length);
                return c.bytes.toString('utf8', at + key.length + 2, at + key.length + 2 + n);
            };
            const full = chunks.filter((c) => /full|postprocessed/.test(status(c)));
            const proto = chunks.filter((c) => !/full|postprocessed/.test(status(c)));
            const picks = [];
            if (full.length) picks.push(full[0]);
            if (proto.length) picks.push(proto[proto.length >> 1]);
            else if (full.length > 2) picks.push(full[full.length >> 1]);
            if (!picks.length) continue;
            out.push({ rel: `${folder}/${f}`, chunks: picks.map((c) => [c.x, c.z]) });
            if (!custom) took++;
        }
    }
    return out;
}

const limit = limiter(2);

/* `chunk convert` to the target, `chunk put` into a region file of its own,
 * and the source's blocks in the target's ids. */
async function prepare(tmp, rel, x, z, target) {
    const src = path.join(ANVIL, rel);
    const dir = fs.mkdtempSync(path.join(tmp, 'w-'));
    const nbtFile = path.join(dir, 'c.nbt');
    let stderr;
    try {
        ({ stderr } = await run(BIN, ['chunk', 'convert', src, String(x), String(z), '--to-version', target, '-o', nbtFile]));
    } catch (e) {
        return { error: `convert failed: ${e.stderr || e.message}` };
    }
    const region = path.join(dir, `r.${x >> 5}.${z >> 5}.mca`);
    try {
        await run(BIN, ['chunk', 'put', region, String(x), String(z), nbtFile]);
    } catch (e) {
        return { error: `put failed: ${e.stderr || e.message}` };
    }
    const { stdout } = await run(BIN, ['chunk', 'blocks', src, String(x), String(z), '--ids', '--version', target],
        { maxBuffer: 1 << 28 });
    return { stderr, region, blocks: stdout };
}

(async () => {
    const t0 = Date.now();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-convert-matrix-'));
    const sources = pickSources();
    let failures = 0, checked = 0, sections = 0, filledSaid = 0;
    const fail = (msg) => {
        if (failures++ < 40) console.error(msg);
    };
    for (const target of TARGETS) {
        const [facts, customFacts] = vanillaFacts(target);
        if (!facts.chunks) {
            fail(`${target}: no vanilla chunks with sections in the corpus to take the layout from`);
            continue;
        }
        console.log(`${target.padEnd(7)} vanilla (${facts.files.join(', ')}, ${facts.chunks} chunks): ` +
            `sections {${[...facts.inRange].join('} {')}}${facts.lightAlways ? ' all with both light arrays' : ''}` +
            `${facts.noBlocks ? ', also without block data' : ''}; ` +
            `outside the range: ${facts.outside.size ? '{' + [...facts.outside].join('} {') + '}' : 'none'}`);
        const legacy = isLegacy(target);
        const expect = /^1\.1[3-7](\.|$)/.test(target) ? ppaShift(require('minecraft-data')(target)) : (id) => id;
        const { nbtChunkToPrismarineChunk } = chunkCodec(target);
        /* `chunk blocks --version V` prints a source block that V lacks as
         * V's air (its line stays, with the id the converted chunk holds);
         * the oracle's list leaves air out, so ours does too */
        const mcData = require('minecraft-data')(target);
        const targetAir = legacy ? (id) => id >> 4 === 0
            : ((ids) => (id) => ids.has(id))(new Set(['air', 'cave_air', 'void_air']
                .filter((n) => mcData.blocksByName[n]).map((n) => mcData.blocksByName[n].minStateId)));
        /* the tool runs (convert, put, blocks of the source) go ahead two at
         * a time while this process asks the oracle about the previous ones */
        const jobs = [];
        for (const { rel, chunks } of sources)
            for (const [x, z] of chunks)
                jobs.push({ rel, x, z, ready: limit(() => prepare(tmp, rel, x, z, target)) });
        for (const { rel, x, z, ready } of jobs) {
            const what = `${rel} chunk ${x} ${z} as ${target}`;
            const job = await ready;
            if (job.error) {
                fail(`${what}: ${job.error}`);
                continue;
            }
            const said = job.stderr.split('\n').filter((l) => l.startsWith('light of')).length;
            if (said > 1) fail(`${what}: the filled light is reported ${said} times`);
            if (said) filledSaid++;
            // (b) the layout vanilla writes for the target
            const written = regionChunks(job.region).find((c) => c.x === x && c.z === z);
            const own = /customheight/.test(rel) && rel.startsWith(target + '/');
            const problems = structureProblems(written.root, target, own ? customFacts : facts);
            sections += sectionsOf(written.root).length;
            for (const p of problems.slice(0, 3)) fail(`${what}: ${p}`);
            if (problems.length > 3) fail(`${what}: ... ${problems.length} layout problems`);
            // (a) the oracle reads it, with the blocks of the source
            const rf = new RegionFile(job.region);
            await rf.initialize();
            let col;
            try {
                col = nbtChunkToPrismarineChunk(await rf.read(x & 31, z & 31));
            } catch (e) {
                fail(`${what}: the oracle cannot read it: ${e.message}`);
                continue;
            } finally {
                await rf.file.close();
                checked++;
            }
            const theirs = oracleBlocks(col, target, x, z);
            const ours = job.blocks.split('\n').filter(Boolean)
                .map((l) => l.split(' '))
                .filter((q) => +q[1] >= theirs.minY && +q[1] < theirs.minY + theirs.height && !targetAir(+q[3]))
                .map((q) => { q[3] = String(expect(+q[3])); return q.join(' '); });
            let first = -1;
            for (let i = 0; i < Math.max(ours.length, theirs.lines.length) && first < 0; i++)
                if (ours[i] !== theirs.lines[i]) first = i;
            if (first >= 0)
                fail(`${what}: mcchunk ${ours.length} blocks, oracle ${theirs.lines.length}; first difference ` +
                    `'${ours[first]}' vs '${theirs.lines[first]}'`);
        }
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    const n = sources.reduce((a, s) => a + s.chunks.length, 0);
    console.log(`${sources.length} source regions, ${n} chunks x ${TARGETS.length} targets: ${checked} converted chunks ` +
        `read by the oracle, ${sections} sections checked against vanilla layouts, ${filledSaid} conversions said they ` +
        `filled light, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (failures) {
        console.error(`${failures} problem(s)`);
        process.exit(1);
    }
})().catch((e) => {
    console.error(e);
    process.exit(1);
});
