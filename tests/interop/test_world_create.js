#!/usr/bin/env node
/*
 * test_world_create.js: `mcchunk world create` writes worlds that
 * prismarine-provider-anvil reads (ORACLES.md), for a release of each
 * chunk-format era it knows (1.12.2, 1.16, 1.20.6):
 *  - every chunk of the radius is there (and none beyond), and the oracle
 *    reads each one to exactly the non-air blocks `mcchunk generate X Z
 *    --version V --ids` prints for that column of the built-in world;
 *  - the chunks carry light: the oracle's sky light is 15 at the top of
 *    every column and 0 at the bottom of the world (1.12.2 and 1.20.6:
 *    the oracle's 1.13-1.17 Anvil reader loads light through its BitArray
 *    and returns values vanilla's arrays do not hold, so it is not asked);
 *  - level.dat reads in the oracle (readLevel) with V's name and
 *    DataVersion, the seed (RandomSeed before 1.16, WorldGenSettings from
 *    it) and a spawn on the surface;
 *  - `world verify` is clean; 26.1 gets the 26.1 folder layout;
 *  - --compression lz4 writes the same chunk NBT in LZ4 records (decoded
 *    by lz4js), and a compression the release cannot read exits 2;
 *  - --deflate-level 1 writes the same chunk NBT in more zlib bytes than
 *    the default (6); a level outside 1..12, or one given with
 *    --compression lz4 or none (no deflate), exits 2;
 *  - a non-empty DIR exits 1, bad arguments exit 2.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { Vec3 } = require('vec3');
const U = require('./world_util');
const { ppaShift, oracleBlocks, isLegacy } = require('./anvil_oracle');

/* (2: 25 chunks a version; 1 in a sanitizer build, where the light engine
 * runs many times slower) */
const RADIUS = fs.readFileSync(U.BIN).includes('AddressSanitizer') ? 1 : 2;
const VERSIONS = [['1.12.2', 1343], ['1.16', 2566], ['1.20.6', 3839]];
const H = U.harness();
const fail = H.fail;

async function checkVersion(tmp, version, dv) {
    const before = H.failures();
    const dir = path.join(tmp, version);
    U.ok(['world', 'create', dir, '--version', version, '--radius', String(RADIUS), '--seed', '42', '--quiet']);
    const v = U.run(['world', 'verify', dir]);
    if (v.status !== 0) fail(`${version}: world verify: ${v.out}`);
    const Anvil = require('prismarine-provider-anvil').Anvil(version);
    const anvil = new Anvil(path.join(dir, 'region'));
    const shift = /^1\.1[3-7](\.|$)/.test(version) ? ppaShift(require('minecraft-data')(version)) : (id) => id;
    const air = isLegacy(version) ? null : new Set(['air', 'cave_air', 'void_air']
        .map((n) => require('minecraft-data')(version).blocksByName[n]).filter(Boolean).map((b) => b.minStateId));
    let chunks = 0, blocks = 0;
    const p = new Vec3(0, 0, 0);
    for (let cz = -RADIUS - 1; cz <= RADIUS + 1; cz++) {
        for (let cx = -RADIUS - 1; cx <= RADIUS + 1; cx++) {
            const inside = Math.abs(cx) <= RADIUS && Math.abs(cz) <= RADIUS;
            let col;
            try {
                col = await anvil.load(cx, cz);
            } catch (e) {
                fail(`${version}: the oracle cannot read chunk ${cx} ${cz}: ${e.message}`);
                continue;
            }
            if (!inside) {
                if (col) fail(`${version}: chunk ${cx} ${cz} outside the radius`);
                continue;
            }
            if (!col) {
                fail(`${version}: chunk ${cx} ${cz} missing`);
                continue;
            }
            chunks++;
            const theirs = oracleBlocks(col, version, cx, cz);
            const gen = U.ok(['generate', String(cx), String(cz), '--version', version, '--ids', '--seed', '42']).out;
            const ours = gen.split('\n').filter(Boolean).map((l) => l.split(' '))
                .filter((q) => +q[1] >= theirs.minY && +q[1] < theirs.minY + theirs.height && !(air && air.has(+q[3])))
                .map((q) => { q[3] = String(shift(+q[3])); return q.join(' '); });
            blocks += ours.length;
            if (ours.join('\n') !== theirs.lines.join('\n')) {
                const i = ours.findIndex((l, k) => l !== theirs.lines[k]);
                fail(`${version}: chunk ${cx} ${cz}: ${ours.length} blocks generated, oracle ${theirs.lines.length}; ` +
                    `first difference '${ours[i]}' vs '${theirs.lines[i]}'`);
            }
            /* light: open sky 15 at the top, darkness at the bottom */
            const top = theirs.minY + theirs.height - 1;
            for (let x = 0; x < 16 && !/^1\.1[3-7](\.|$)/.test(version); x++)
                for (let z = 0; z < 16; z++) {
                    p.x = x, p.y = top, p.z = z;
                    const sky = col.getSkyLight(p);
                    p.y = theirs.minY;
                    const bottom = col.getSkyLight(p);
                    if ((sky !== 15 || bottom !== 0) && H.failures() < 25)
                        fail(`${version}: chunk ${cx} ${cz} column ${x} ${z}: sky light ${sky} at the top, ${bottom} at the bottom`);
                }
        }
    }
    await anvil.close();
    const { readLevel } = require('prismarine-provider-anvil').level;
    const level = await readLevel(path.join(dir, 'level.dat'));
    const seed = dv >= 2566 ? level.WorldGenSettings && level.WorldGenSettings.seed : level.RandomSeed;
    const seedNum = Array.isArray(seed) ? seed[1] : Number(seed);
    if (level.Version.Name !== version || level.DataVersion !== dv || seedNum !== 42)
        fail(`${version}: level.dat says ${level.Version.Name} ${level.DataVersion} seed ${JSON.stringify(seed)}`);
    if (!(level.SpawnY > 0) || Math.abs(level.SpawnX) > 512)
        fail(`${version}: level.dat spawn ${level.SpawnX} ${level.SpawnY} ${level.SpawnZ}`);
    console.log(`${H.failures() === before ? 'ok  ' : 'FAIL'} ${version}: ${chunks} chunks read by the oracle, ${blocks} blocks equal to generate's, ` +
        `${/^1\.1[3-7](\.|$)/.test(version) ? '' : 'light at top and bottom, '}level.dat ${level.Version.Name} (${level.DataVersion}) seed ${seedNum}`);
}

(async () => {
    const t0 = Date.now();
    const tmp = U.tmpDir('world-create');
    for (const [version, dv] of VERSIONS) {
        try {
            await checkVersion(tmp, version, dv);
        } catch (e) {
            fail(`${version}: ${e.stack}`);
        }
    }
    try {
        const d26 = path.join(tmp, '26.1');
        U.ok(['world', 'create', d26, '--version', '26.1', '--radius', '1', '--quiet']);
        if (!fs.existsSync(path.join(d26, 'dimensions/minecraft/overworld/region/r.0.0.mca')) ||
            fs.existsSync(path.join(d26, 'region')))
            fail('26.1: not the 26.1 layout');
        U.ok(['world', 'verify', d26]);
        const a = U.ok(['chunk', 'blocks', d26, '1', '-1', '--ids']).out;
        const b = U.ok(['generate', '1', '-1', '--ids']).out;
        if (a !== b) fail('26.1: chunk 1 -1 differs from generate 1 -1');
        /* --compression lz4: the 1.20.6 world's chunks again, LZ4 records
         * (read by lz4js through world_util) holding the same NBT */
        const zl = path.join(tmp, '1.20.6'), lz = path.join(tmp, '1.20.6-lz4');
        U.ok(['world', 'create', lz, '--version', '1.20.6', '--radius', String(RADIUS), '--seed', '42', '--quiet',
            '--compression', 'lz4']);
        U.ok(['world', 'verify', lz]);
        const recs = (w) => U.rawChunks(path.join(w, 'region/r.0.0.mca')).concat(U.rawChunks(path.join(w, 'region/r.-1.-1.mca')));
        const want = recs(zl), got = recs(lz);
        if (got.length !== want.length || got.length < 4 ||
            got.some((c, i) => c.comp !== 4 || want[i].comp !== 2 || !c.raw.equals(want[i].raw)))
            fail(`--compression lz4: ${got.length} records not the zlib world's ${want.length} in LZ4`);
        /* --deflate-level 1: zlib records holding the same NBT, larger than
         * the default's (6, the game's) */
        const l1 = path.join(tmp, '1.20.6-level1');
        U.ok(['world', 'create', l1, '--version', '1.20.6', '--radius', String(RADIUS), '--seed', '42', '--quiet',
            '--deflate-level', '1']);
        const fast = recs(l1), size = (cs) => cs.reduce((n, c) => n + c.stored, 0);
        if (fast.length !== want.length || fast.some((c, i) => c.comp !== 2 || !c.raw.equals(want[i].raw)) ||
            !(size(fast) > size(want)))
            fail(`--deflate-level 1: ${fast.length} records, ${size(fast)} bytes vs the default's ${size(want)}`);
        const r = U.run(['world', 'create', d26, '--version', '26.1']);
        if (r.status !== 1 || !/not empty/.test(r.err)) fail(`create into a world: status ${r.status} ${r.err}`);
        for (const args of [['--version', '9.9'], ['--version', '1.20.6', '--radius', '5000'], ['--radius', '3'],
            ['--version', '1.20.6', '--seed', 'x'], ['--version', '1.20.4', '--compression', 'lz4'],
            ['--version', '1.14.4', '--compression', 'none'], ['--version', '1.20.6', '--compression', 'zstd'],
            ['--version', '1.20.6', '--deflate-level', '0'], ['--version', '1.20.6', '--deflate-level', '13'],
            ['--version', '1.20.6', '--compression', 'lz4', '--deflate-level', '1'],
            ['--version', '1.20.6', '--deflate-level', '3', '--compression', 'none']]) {
            const u = U.run(['world', 'create', path.join(tmp, 'u'), ...args]);
            if (u.status !== 2 || u.out) fail(`create ${args.join(' ')}: status ${u.status}`);
        }
        console.log('ok   26.1 layout and blocks; --compression lz4 records hold the zlib world\'s NBT, --deflate-level 1 ' +
            'the same in more bytes; a non-empty DIR ' +
            'exits 1, bad arguments 2');
    } catch (e) {
        fail(e.stack);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
    H.finish(t0);
})();
