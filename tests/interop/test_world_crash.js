#!/usr/bin/env node
/*
 * test_world_crash.js: kill -9 in the middle of `world convert` and of
 * `world prune`, at random moments (three runs of each in this test, two
 * in a sanitizer build; MCCHUNK_LONG=1 for twenty by hand):
 *  - after each kill the destination (convert; once it has its level.dat,
 *    written right after the log that marks the conversion begun and
 *    before any region) or the world (prune) passes `world verify`
 *    (temporaries a killed write left are allowed: they are leftovers,
 *    not damage), and every chunk in it is one of the finished
 *    result's: no file is half-written;
 *  - `convert --resume` (interrupted again, then let finish) and a prune run
 *    again end with exactly the chunks an uninterrupted run writes
 *    (hashes of what `chunk get --raw` prints, every region, entities and
 *    poi file), and with no leftovers;
 *  - convert's log says "complete" at the end, and --resume of a complete
 *    conversion does nothing;
 *  - SIGINT (Ctrl-C) stops a conversion by itself: exit 1, a message
 *    saying --resume finishes it, no temporary left, and --resume does.
 * The source: half of each of six vanilla corpus regions of six releases in
 * two dimensions, with a level.dat, converted to 1.20.6 with two threads.
 */
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const U = require('./world_util');

if (!fs.existsSync(U.ANVIL)) {
    console.log('corpus absent: skipping');
    process.exit(0);
}

/* (a sanitizer build runs every conversion several times slower: two rounds) */
const ROUNDS = process.env.MCCHUNK_LONG ? 20 : fs.readFileSync(U.BIN).includes('AddressSanitizer') ? 2 : 3;
const H = U.harness();
const fail = H.fail;

/* Runs the tool and sends it `signal` (SIGKILL unless said) after `ms`
 * (if still running); a SIGINT only once the tool catches it: one that
 * came while the process is still starting (before main, on a slow or
 * loaded machine) would test the kernel's default action, not the tool.
 * `sentAfter`: the delay it was sent after (null: the run ended first),
 * for the messages (the delays are random). */
function killAfter(args, ms, signal = 'SIGKILL') {
    return new Promise((resolve) => {
        const p = spawn(U.BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        p.stderr.on('data', (d) => (err += d));
        const sent = U.signalWhenCaught(p, signal, ms);
        p.on('close', (status, signal) => {
            sent.then((sentAfter) => resolve({ status, signal, err, sentAfter }));
        });
    });
}

/* After a kill: verify passes and every chunk is one of the final result's. */
function checkConsistent(dir, final, what) {
    const v = U.run(['world', 'verify', dir]);
    if (v.status !== 0)
        return fail(`${what}: world verify: ${v.out.slice(-800)}`);
    const now = U.worldHashes(dir, 0);
    for (const [k, h] of now)
        if (final.get(k) !== h) return fail(`${what}: ${k} is not the finished result's chunk`);
    return now.size;
}

function leftovers(dir) {
    const out = [];
    const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true }))
            if (e.isDirectory()) walk(path.join(d, e.name));
            else if (/\.tmp$|_new$/.test(e.name)) out.push(path.join(d, e.name));
    };
    walk(dir);
    return out;
}

function regionFiles(dir) {
    const out = [];
    const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true }))
            if (e.isDirectory()) walk(path.join(d, e.name));
            else if (/\.mca/.test(e.name)) out.push(path.join(d, e.name));
    };
    walk(dir);
    return out;
}

const same = (a, b) => a.size === b.size && [...a].every(([k, h]) => b.get(k) === h);

(async () => {
    const t0 = Date.now();
    const tmp = U.tmpDir('world-crash');
    const src = path.join(tmp, 'src');
    for (const [from, to] of [['1.16/ppa-r.0.-1.mca', 'region/r.0.-1.mca'], ['1.18.2/ppa-r.0.0.mca', 'region/r.0.0.mca'],
        ['1.13.2/ppa-r.-1.-1.mca', 'region/r.-1.-1.mca'], ['1.8.9/ppa-r.-1.0.mca', 'region/r.-1.0.mca'],
        ['1.9/ppa-r.-1.-1.mca', 'DIM-1/region/r.-1.-1.mca'], ['1.12.2/ppa-r.0.-1.mca', 'DIM-1/region/r.0.-1.mca']])
        U.subsetRegion(path.join(U.ANVIL, from), path.join(src, to), (x) => x < 16); /* half of each */
    /* a level.dat of its own (a made one carries the time it was made) */
    U.ok(['world', 'create', path.join(tmp, 'lv'), '--version', '1.18.2', '--radius', '0', '--quiet']);
    fs.copyFileSync(path.join(tmp, 'lv', 'level.dat'), path.join(src, 'level.dat'));

    /* ------------------------------------------------------- convert */
    const ref = path.join(tmp, 'ref');
    const t1 = Date.now();
    U.ok(['world', 'convert', src, ref, '--to', '1.20.6', '--threads', '2', '--quiet']);
    const took = Date.now() - t1;
    const final = U.worldHashes(ref);
    const lvl = fs.readFileSync(path.join(ref, 'level.dat'));
    let kills = 0, seen = 0;
    for (let round = 0; round < ROUNDS; round++) {
        const dst = path.join(tmp, `conv${round}`);
        let args = ['world', 'convert', src, dst, '--to', '1.20.6', '--threads', '2', '--quiet'];
        for (let attempt = 0; attempt < 2; attempt++) {
            const r = await killAfter(args, took * (0.2 + 0.6 * Math.random()));
            if (r.signal === 'SIGKILL') {
                kills++;
                if (fs.existsSync(path.join(dst, 'level.dat')))
                    seen += checkConsistent(dst, final, `convert round ${round} kill ${attempt} (after ${r.sentAfter} ms)`) || 0;
                else if (fs.existsSync(dst) && regionFiles(dst).length)
                    /* the log (the conversion begun) comes before level.dat, the regions after it */
                    fail(`convert round ${round} kill ${attempt} (after ${r.sentAfter} ms): regions written before level.dat: ${regionFiles(dst).join(' ')}`);
            } else if (r.status !== 0) {
                fail(`convert round ${round}: status ${r.status}: ${r.err}`);
            }
            if (fs.existsSync(path.join(dst, 'mcchunk-convert.log')))
                args = [...args, '--resume'];
            else
                fs.rmSync(dst, { recursive: true, force: true }); /* killed before it began */
        }
        const r = U.run(args);
        if (r.status !== 0) fail(`convert round ${round}: the finishing run: ${r.err}`);
        const got = U.worldHashes(dst, 0);
        if (!same(got, final)) fail(`convert round ${round}: ${got.size} chunks, the uninterrupted run has ${final.size}`);
        if (!fs.readFileSync(path.join(dst, 'level.dat')).equals(lvl)) fail(`convert round ${round}: level.dat differs`);
        const left = leftovers(dst);
        if (left.length) fail(`convert round ${round}: leftovers ${left.join(' ')}`);
        if (!/complete\n$/.test(fs.readFileSync(path.join(dst, 'mcchunk-convert.log'), 'utf8')))
            fail(`convert round ${round}: the log does not end with complete`);
        const again = U.run(['world', 'convert', src, dst, '--to', '1.20.6', '--resume']);
        if (again.status !== 0 || !/already complete/.test(again.out)) fail(`--resume of a complete run: ${again.out}`);
    }
    /* Ctrl-C: a clean stop (exit 1, the message), DST whole, --resume
     * finishes; at once (the moment the tool catches SIGINT: the world
     * subcommand's start, before its setup), midway and late (the last
     * steps after the workers): the tool ends by itself every time, never
     * by the signal's default action */
    let stops = 0;
    for (const at of [0, 0.5, 0.95]) {
        const dint = path.join(tmp, `conv-int-${at}`);
        const r = await killAfter(['world', 'convert', src, dint, '--to', '1.20.6', '--threads', '2'], took * at, 'SIGINT');
        if (r.signal) {
            fail(`Ctrl-C at ${at} of the run: the convert ended by signal ${r.signal}, not by itself`);
            continue;
        } else if (r.status === 1) {
            stops++;
            if (!/interrupted.*--resume finishes/s.test(r.err)) fail(`Ctrl-C at ${at}: message '${r.err.trim()}'`);
            checkConsistent(dint, final, `Ctrl-C at ${at}`);
            if (leftovers(dint).length) fail(`Ctrl-C at ${at} left ${leftovers(dint).join(' ')}`);
            U.ok(['world', 'convert', src, dint, '--to', '1.20.6', '--resume', '--quiet']);
        } else if (r.status !== 0) {
            fail(`Ctrl-C at ${at}: status ${r.status}: ${r.err}`);
            continue;
        }
        if (!same(U.worldHashes(dint, 0), final)) fail(`Ctrl-C at ${at} (then --resume): not the uninterrupted result`);
        fs.rmSync(dint, { recursive: true, force: true });
    }
    if (!stops) fail('Ctrl-C: no stop landed before the end of a conversion');
    console.log(`${H.failures() ? 'FAIL' : 'ok  '} convert: ${ROUNDS} runs killed ${kills} times (${seen} chunks checked right after), ` +
        `each resumed to the ${final.size} chunks of the uninterrupted run (${(took / 1000).toFixed(1)} s)`);

    /* --------------------------------------------------------- prune */
    const before0 = H.failures();
    const base = path.join(tmp, 'pbase');
    fs.cpSync(ref, base, { recursive: true });
    const args = (dir) => ['world', 'prune', dir, '--outside', '-20,-40,10,10', '--threads', '2', '--quiet'];
    const pref = path.join(tmp, 'pref');
    fs.cpSync(base, pref, { recursive: true });
    const t2 = Date.now();
    U.ok(args(pref));
    const ptook = Date.now() - t2;
    const pfinal = U.worldHashes(pref);
    const before = U.worldHashes(base, 0);
    let pkills = 0, attempts = 0;
    /* a prune takes a moment: tries until ROUNDS kills landed in one (at
     * most 4 tries each) */
    for (let round = 0; pkills < ROUNDS && attempts < 4 * ROUNDS; round++, attempts++) {
        const dir = path.join(tmp, `prune${round}`);
        fs.cpSync(base, dir, { recursive: true });
        const r = await killAfter(args(dir), ptook * Math.random());
        if (r.signal === 'SIGKILL') {
            pkills++;
            const v = U.run(['world', 'verify', dir]);
            if (v.status !== 0) fail(`prune round ${round}: world verify after the kill (after ${r.sentAfter} ms): ${v.out.slice(-600)}`);
            /* each chunk is the one it was (kept, or not yet deleted) */
            for (const [k, h] of U.worldHashes(dir, 0))
                if (before.get(k) !== h) fail(`prune round ${round}: ${k} changed`);
        }
        U.ok(args(dir));
        if (!same(U.worldHashes(dir, 0), pfinal)) fail(`prune round ${round}: not the uninterrupted result`);
        if (leftovers(dir).length) fail(`prune round ${round}: leftovers`);
        fs.rmSync(dir, { recursive: true, force: true });
    }
    if (!pkills) fail('no kill landed in a prune');
    console.log(`${H.failures() > before0 ? 'FAIL' : 'ok  '} prune: ${attempts} runs, ${pkills} killed, world verify clean after each, the same prune ` +
        `again ends at the ${pfinal.size} chunks of the uninterrupted run`);
    fs.rmSync(tmp, { recursive: true, force: true });
    H.finish(t0);
})().catch((e) => {
    console.error('FAIL ' + (e.stack || e));
    process.exit(1);
});
