#!/usr/bin/env node
/*
 * test_registry.js: every Java registry against minecraft-data, state by
 * state. For every release from 1.8 in `mcchunk registry --versions`, the
 * tool's `--list` (every state id with its name and properties, sorted by
 * key) must equal what prismarine-block decodes from minecraft-data for that
 * release, line by line; likewise `--biomes`, and the version table itself
 * against protocolVersions.json. Bedrock registries (when present) are
 * checked against minecraft-data's blockStates.json the same way.
 *
 * Oracle note: minecraft-data resolves a release it has no folder for by
 * major version (1.21.2 -> 1.21, 1.21.7 -> 1.21), which gives the wrong
 * blocks (1.21.2 has 1.21.3's). The test resolves such releases as mcchunk
 * does: the release of minecraft-data with the same protocol number, else
 * the newest older one.
 */
'use strict';
const { execFileSync } = require('child_process');
const assert = require('assert');
const path = require('path');

const BIN = process.env.MCCHUNK_BIN || path.join(__dirname, '../../build/mcchunk');
const mcData = require('minecraft-data');
const prismarineRegistry = require('prismarine-registry');
const prismarineBlock = require('prismarine-block');
const dataPaths = require('minecraft-data/minecraft-data/data/dataPaths.json');
const protocolVersions = require('minecraft-data/minecraft-data/data/pc/common/protocolVersions.json');
const legacy = require('minecraft-data/minecraft-data/data/pc/common/legacy.json').blocks;

function run(args) {
    return execFileSync(BIN, ['registry', ...args], { maxBuffer: 1 << 28, encoding: 'utf8' });
}
function lines(text) { return text.split('\n').filter((l) => l.length); }

function sortedProps(props) {
    const keys = Object.keys(props).sort();
    return keys.length ? '[' + keys.map((k) => `${k}=${String(props[k])}`).join(',') + ']' : '';
}

let failures = 0;
function compare(what, actual, expected) {
    if (actual.length !== expected.length)
        console.error(`${what}: ${actual.length} lines, minecraft-data has ${expected.length}`);
    const n = Math.min(actual.length, expected.length);
    let shown = 0;
    for (let i = 0; i < n; i++) {
        if (actual[i] !== expected[i]) {
            if (shown++ < 5) console.error(`${what}: line ${i + 1}: mcchunk '${actual[i]}' != minecraft-data '${expected[i]}'`);
        }
    }
    if (shown || actual.length !== expected.length) {
        failures++;
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- Java */
const RELEASE = /^\d+\.\d+(\.\d+)?$/;
function vcmp(a, b) {
    const x = a.split('.').map(Number), y = b.split('.').map(Number);
    for (let i = 0; i < 3; i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0);
    return 0;
}
const protoOf = new Map(protocolVersions.filter((v) => RELEASE.test(v.minecraftVersion))
    .map((v) => [v.minecraftVersion, v.version]));
const mdReleases = Object.keys(dataPaths.pc).filter((v) => RELEASE.test(v) && dataPaths.pc[v].blocks && vcmp(v, '1.8') >= 0);
function mdVersionFor(name) {
    if (dataPaths.pc[name] && dataPaths.pc[name].blocks) return name;
    const p = protoOf.get(name);
    const same = mdReleases.filter((v) => protoOf.get(v) === p).sort(vcmp);
    if (same.length) return same[same.length - 1];
    const older = mdReleases.filter((v) => protoOf.get(v) < p).sort(vcmp);
    return older[older.length - 1];
}

function expectedStates(mdVersion) {
    const registry = prismarineRegistry(mdVersion);
    const Block = prismarineBlock(registry);
    const out = [];
    if (vcmp(mdVersion, '1.13') >= 0) {
        const max = registry.blocksArray.reduce((m, b) => Math.max(m, b.maxStateId), 0);
        for (let id = 0; id <= max; id++) {
            const b = Block.fromStateId(id, 0);
            out.push(`${id} minecraft:${b.name}${sortedProps(b.getProperties())}`);
        }
        return out;
    }
    /* 1.8-1.12: id<<4|meta for the metas minecraft-data lists (variations,
     * and legacy.json's 1.12 states of that id); meta 0 when neither does.
     * minecraft-data has no properties for these versions: the names are
     * compared here, the properties against legacy.json below. */
    for (const b of registry.blocksArray.slice().sort((x, y) => x.id - y.id)) {
        const metas = new Set((b.variations || []).map((v) => v.metadata).filter((m) => m < 16));
        for (let m = 0; m < 16; m++) if (legacy[`${b.id}:${m}`]) metas.add(m);
        if (!metas.size) metas.add(0);
        for (const m of [...metas].sort((x, y) => x - y)) {
            const blk = Block.fromStateId((b.id << 4) | m, 0);
            out.push(`${(b.id << 4) | m} minecraft:${blk.name}`);
        }
    }
    return out.sort((a, b) => parseInt(a) - parseInt(b));
}

/* minecraft-data's 1.8-1.12 biomes.json lists id 161 twice (same name); one line per id */
function expectedBiomes(mdVersion) {
    const byId = new Map();
    for (const b of mcData(mdVersion).biomesArray) if (!byId.has(b.id)) byId.set(b.id, b.name);
    return [...byId.keys()].sort((a, b) => a - b).map((id) => `${id} minecraft:${byId.get(id)}`);
}

const versionLines = lines(run(['--versions']));
const expectedVersions = protocolVersions
    .filter((v) => RELEASE.test(v.minecraftVersion) && vcmp(v.minecraftVersion, '1.8') >= 0)
    .sort((a, b) => vcmp(a.minecraftVersion, b.minecraftVersion))
    .map((v) => `${v.minecraftVersion} ${v.version} ${v.dataVersion}`);
compare('--versions', versionLines.map((l) => l.split(' ').slice(0, 3).join(' ')), expectedVersions);

const listCache = new Map(), biomeCache = new Map(), expCache = new Map(), expBiomeCache = new Map();
let checkedVersions = 0, checkedStates = 0;
for (const line of versionLines) {
    const [name, , , regName] = line.split(' ');
    const md = mdVersionFor(name);
    if (regName === '-') {
        assert(!md || protoOf.get(name) > Math.max(...mdReleases.map((v) => protoOf.get(v))),
            `${name} has minecraft-data but no registry`);
        continue;
    }
    if (!listCache.has(regName)) listCache.set(regName, lines(run(['--version', regName, '--list'])));
    if (!biomeCache.has(regName)) biomeCache.set(regName, lines(run(['--version', regName, '--biomes'])));
    const key = dataPaths.pc[md].blocks + '|' + dataPaths.pc[md].biomes;
    if (!expCache.has(key)) expCache.set(key, expectedStates(md));
    if (!expBiomeCache.has(key)) expBiomeCache.set(key, expectedBiomes(md));
    /* the tool must answer for the release name itself, with the same registry */
    const info = run(['--version', name, '--info']);
    assert(info.startsWith(`registry ${regName} `), `${name}: --info says ${info.split('\n')[0]}`);
    const legacyNames = vcmp(md, '1.13') < 0; /* only the block name before the properties */
    const listed = legacyNames ? listCache.get(regName).map((l) => l.replace(/\[.*$/, '')) : listCache.get(regName);
    if (compare(`${name} (registry ${regName}, minecraft-data ${md}) states`, listed, expCache.get(key)))
        checkedStates += listCache.get(regName).length;
    compare(`${name} biomes`, biomeCache.get(regName), expBiomeCache.get(key));
    checkedVersions++;
}
console.log(`Java: ${checkedVersions} releases, ${checkedStates} state lines compared with minecraft-data ${require('minecraft-data/package.json').version}`);

/* 1.8-1.12 properties as the game names them (minecraft:stone[variant=granite]),
 * against legacy.json, minecraft-data's 1.13 state of each 1.12 id:meta
 * (the game's flattening): a property both have under one name has one
 * value, except where 1.13 gave the name other values (lever and button
 * facing), took it from the block instead of the metadata (a comparator's
 * powered), or from elsewhere (flower pots). The id:meta form reads back. */
{
    const OTHER_VALUES = new Set(['lever:facing', 'stone_button:facing', 'wooden_button:facing', 'portal:axis',
        'powered_comparator:powered', 'unpowered_comparator:powered', 'flower_pot:legacy_data']);
    const parse = (s) => {
        const m = /^(?:minecraft:)?([^[]+)(?:\[(.*)\])?$/.exec(s);
        const props = {};
        if (m[2]) for (const kv of m[2].split(',')) { const [k, v] = kv.split('='); props[k] = v; }
        return { name: m[1], props };
    };
    let checked = 0, bad = 0, withProps = 0;
    for (const line of lines(run(['--version', '1.12.2', '--list']))) {
        const [id, text] = line.split(' ');
        const key = `${Number(id) >> 4}:${Number(id) & 15}`;
        const ours = parse(text);
        if (Object.keys(ours.props).length) withProps++;
        if (!legacy[key]) continue;
        /* oak stairs only: legacy.json says outer_right where the game writes straight */
        const theirs = parse(legacy[key].replace(/^(minecraft:oak_stairs\[.*)shape=outer_right/, '$1shape=straight'));
        for (const [k, v] of Object.entries(ours.props))
            if (theirs.props[k] !== undefined && theirs.props[k] !== v && !OTHER_VALUES.has(`${ours.name}:${k}`)) {
                if (bad++ < 5) console.error(`1.12.2 ${key} ${text}: legacy.json ${legacy[key]}`);
            }
        checked++;
    }
    const back = lines(run(['--version', '1.12.2', '1:1', '35:14', 'minecraft:log:5', 'minecraft:stone[variant=granite]']));
    assert.deepStrictEqual(back, ['17 minecraft:stone[variant=granite]', '574 minecraft:wool[color=red]',
        '277 minecraft:log[axis=x,variant=spruce]', '17 minecraft:stone[variant=granite]']);
    assert(withProps > 1000, `only ${withProps} 1.12.2 states have properties`);
    if (bad) failures++;
    console.log(`Java 1.12.2: ${checked} states' properties agree with legacy.json (${withProps} with properties)`);
}

/* ------------------------------------------------------------- Bedrock */
const bedrockVersions = lines(run(['--versions', '--edition', 'bedrock']));
const bedrockData = new Map();
let hashedChecked = 0;
for (const line of bedrockVersions) {
    const [name, protocol, regName] = line.split(' ');
    const dir = dataPaths.bedrock[name] && dataPaths.bedrock[name].blockStates;
    if (!dir) { /* a release without data of its own: none, or a same-protocol twin's */
        const twin = bedrockVersions.map((l) => l.split(' '))
            .some((v) => v[1] === protocol && v[2] === regName && dataPaths.bedrock[v[0]]);
        assert(regName === '-' || twin, `bedrock ${name}: registry ${regName}`);
        continue;
    }
    if (!bedrockData.has(regName)) {
        const states = require(`minecraft-data/minecraft-data/data/${dir}/blockStates.json`);
        const expected = states.map((s, i) => {
            const props = {};
            for (const [k, v] of Object.entries(s.states))
                props[k] = v.type === 'byte' ? (v.value ? 'true' : 'false') : String(v.value);
            return `${i} minecraft:${s.name}${sortedProps(props)}`;
        });
        const actual = lines(run(['--version', regName, '--edition', 'bedrock', '--list']));
        compare(`bedrock ${regName} states`, actual, expected);
        /* hashed runtime ids against prismarine-block's Block.getHash (FNV-1a
         * of the little-endian NBT), for versions with the blockHashes feature */
        const preg = prismarineRegistry('bedrock_' + regName);
        if (preg.supportFeature('blockHashes')) {
            const Block = prismarineBlock(preg);
            const hashed = lines(run(['--version', regName, '--edition', 'bedrock', '--list', '--hashed']));
            const want = states.map((st, i) => `${Block.getHash(st.name, st.states) >>> 0} ${expected[i].slice(expected[i].indexOf(' ') + 1)}`);
            if (compare(`bedrock ${regName} hashed ids`, hashed, want)) hashedChecked++;
        }
        bedrockData.set(regName, dir);
    }
    assert.strictEqual(bedrockData.get(regName), dir, `bedrock ${name}: registry ${regName} has other data`);
}
console.log(`Bedrock: ${bedrockVersions.length} versions, ${bedrockData.size} registries compared, ${hashedChecked} with hashed ids`);

/* ------------------------------------------------- Java -> Bedrock maps */
/* Every pair of blocksJ2B.json whose two sides are exact states of the two
 * registries must be what mcchunk's translation map gives. */
let j2bChecked = 0;
for (const [javaVersion, bedrockVersion] of [['1.21.4', '1.21.60'], ['1.20.4', '1.20.50'], ['1.18.2', '1.18.11']]) {
    const dir = dataPaths.bedrock[bedrockVersion].blocksJ2B;
    const j2b = require(`minecraft-data/minecraft-data/data/${dir}/blocksJ2B.json`);
    const norm = (s) => {
        const m = /^([^[]+)(?:\[(.*)\])?$/.exec(s);
        const kv = m[2] ? m[2].split(',').sort() : [];
        return m[1] + (kv.length ? '[' + kv.join(',') + ']' : '');
    };
    const map = new Map();
    for (const line of lines(run(['--version', javaVersion, '--to', bedrockVersion, '--to-edition', 'bedrock', '--list']))) {
        const [from, to] = line.split(' -> ');
        map.set(from.slice(from.indexOf(' ') + 1), to.slice(to.indexOf(' ') + 1));
    }
    const bedrockStates = new Set(lines(run(['--version', bedrockVersion, '--edition', 'bedrock', '--list'])).map((l) => l.slice(l.indexOf(' ') + 1)));
    let bad = 0, n = 0;
    for (const [js, bs] of Object.entries(j2b)) {
        const j = norm(js), b = norm(bs);
        if (!map.has(j) || !bedrockStates.has(b)) continue;
        n++;
        if (map.get(j) !== b && bad++ < 5) console.error(`J2B ${javaVersion} -> ${bedrockVersion}: ${j}: mcchunk ${map.get(j)}, minecraft-data ${b}`);
    }
    if (bad) failures++;
    j2bChecked += n;
}
console.log(`Java -> Bedrock: ${j2bChecked} blocksJ2B pairs match the translation maps`);

if (failures) {
    console.error(`${failures} comparison(s) failed`);
    process.exit(1);
}
console.log('ok');
