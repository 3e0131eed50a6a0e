#!/usr/bin/env node
/*
 * gen-registries.js: turns minecraft-data (pinned 3.117.0) into the compact
 * const C tables of src/registry/data/.
 *
 * The idea: block-state registries of different game versions share almost
 * everything. A block "kind" (name, property list, default state, per-state
 * flags) repeats across dozens of versions, and a property definition
 * (name + ordered value list) repeats across hundreds of blocks. So every
 * string lives once in one pool, every property definition once, every kind
 * once, and a registry is just the kind of each block (its first state id
 * follows from the state counts of the blocks before it). State ids inside a
 * block are computed arithmetically (mixed radix, first property slowest),
 * the way the game numbers them. Registries with identical content are
 * emitted once, and each registry's tables are coded as their difference
 * from the registry before it (registry-code.js).
 *
 * Outputs (all rewritten on every run, byte for byte reproducible):
 *   src/registry/data/reg_pool.c     string pool, value lists, property defs,
 *                                    property lists, kinds, flag sequences
 *   src/registry/data/reg_java.c     Java registries (coded), legacy tables,
 *                                    the version table
 *   src/registry/data/reg_bedrock.c  Bedrock registries (coded, built by
 *                                    registry-bedrock.js) and version table
 *   src/registry/data/reg_biomes.c   the climate of every biome name
 *                                    (registry-biomes.js)
 *   src/registry/data/reg_legacy_names.c  the properties of 1.8-1.12 states
 *                                    (registry-legacy-names.js)
 *
 * Usage: node scripts/gen-registries.js   (from anywhere)
 */
'use strict';
const fs = require('fs');
const path = require('path');
const assert = require('assert');

const ROOT = path.resolve(__dirname, '..');
const MD = path.join(ROOT, 'tests/interop/node_modules/minecraft-data');
const MD_VERSION = require(path.join(MD, 'package.json')).version;
assert.strictEqual(MD_VERSION, '3.117.0', 'minecraft-data must be the pinned 3.117.0');
const DATA = path.join(MD, 'minecraft-data/data');
const OUT = path.join(ROOT, 'src/registry/data');
const PATHS = require(path.join(DATA, 'dataPaths.json'));

const cache = new Map();
function load(dir, file) {
    const key = dir + '/' + file;
    if (!cache.has(key)) {
        const f = path.join(DATA, dir, file + '.json');
        cache.set(key, fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);
    }
    return cache.get(key);
}

/* ------------------------------------------------------------ the pool */
const pool = require('./registry-pool.js').create();
const flags = require('./registry-flags.js');

/* ------------------------------------------------------------ versions */
const RELEASE_RE = /^\d+\.\d+(\.\d+)?$/;
function vkey(name) { return name.split('.').map(Number); }
function vcmp(a, b) {
    const x = vkey(a), y = vkey(b);
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const d = (x[i] || 0) - (y[i] || 0);
        if (d) return d;
    }
    return 0;
}
const protocolVersions = load('pc/common', 'protocolVersions');
/* Releases from 1.8 on, oldest first (protocolVersions.json lists newest first). */
const releases = protocolVersions
    .filter((v) => RELEASE_RE.test(v.minecraftVersion) && vcmp(v.minecraftVersion, '1.8') >= 0)
    .map((v) => ({ name: v.minecraftVersion, protocol: v.version, dataVersion: v.dataVersion }))
    .sort((a, b) => vcmp(a.name, b.name));
const protocolOf = new Map(releases.map((r) => [r.name, r.protocol]));
/* minecraft-data's own release names with data, e.g. "1.8", "1.21.4", "26.1". */
const mdReleases = Object.keys(PATHS.pc)
    .filter((v) => RELEASE_RE.test(v) && vcmp(v, '1.8') >= 0 && PATHS.pc[v].blocks)
    .sort(vcmp);
const newestMdProtocol = Math.max(...mdReleases.map((v) => protocolOf.get(v)));
/* A release without its own minecraft-data entry uses the newest one with the
 * same protocol number, else the newest older one (1.8.9 -> 1.8, 1.14.2 ->
 * 1.14.1); releases newer than minecraft-data's newest get no registry. */
function mdVersionFor(release) {
    if (PATHS.pc[release.name] && PATHS.pc[release.name].blocks) return release.name;
    if (release.protocol > newestMdProtocol) return null;
    const same = mdReleases.filter((v) => protocolOf.get(v) === release.protocol);
    if (same.length) return same[same.length - 1];
    const older = mdReleases.filter((v) => protocolOf.get(v) < release.protocol);
    return older.length ? older[older.length - 1] : null;
}

/* A block's material class (registry-flags.js materialClass) by name, the
 * same in every version and edition so that it never splits a kind (nor a
 * registry): the newest minecraft-data entry of that name that says more
 * than "unknown". */
const materialByName = new Map();
for (const edition of ['pc', 'bedrock'])
    for (const v of Object.keys(PATHS[edition]).sort(vcmp).reverse()) {
        const dir = PATHS[edition][v].blocks;
        for (const b of (dir && load(dir, 'blocks')) || []) {
            const name = 'minecraft:' + b.name.replace(/^minecraft:/, '');
            if (!materialByName.get(name)) materialByName.set(name, flags.materialClass(b.material));
        }
    }
function materialOf(name) { return materialByName.get(name) || 0; }

/* ------------------------------------------------- flattened registries */
function propValues(s) {
    if (s.type === 'bool') return ['true', 'false'];
    if (s.values) return s.values.map(String);
    /* minecraft-data omits the list for some int properties; they count from 0. */
    return Array.from({ length: s.num_values }, (_, i) => String(i));
}

function shapeTable(dir) {
    const t = dir ? load(dir, 'blockCollisionShapes') : null;
    return t || { blocks: {}, shapes: {} };
}

/* Builds the kinds of one flattened Java block list; returns
 * { kinds: [kind index], mins: [first state], stateCount }. */
function buildFlattened(blocksDir, shapesDir) {
    const blocks = load(blocksDir, 'blocks').slice().sort((a, b) => a.minStateId - b.minStateId);
    const shapes = shapeTable(shapesDir);
    const kinds = [], mins = [];
    let next = 0;
    for (const b of blocks) {
        assert.strictEqual(b.minStateId, next, `${blocksDir}: ${b.name} not contiguous`);
        const props = (b.states || []).map((s) => ({ name: s.name, values: propValues(s) }));
        const count = props.reduce((n, p) => n * p.values.length, 1);
        assert.strictEqual(b.maxStateId - b.minStateId + 1, count, `${blocksDir}: ${b.name} state count`);
        const name = 'minecraft:' + b.name;
        const stateFlags = [];
        for (let i = 0; i < count; i++) {
            const values = {};
            let rest = i;
            for (let p = props.length - 1; p >= 0; p--) {
                values[props[p].name] = props[p].values[rest % props[p].values.length];
                rest = Math.floor(rest / props[p].values.length);
            }
            stateFlags.push(flags.javaFlags(b, values, i, shapes));
        }
        kinds.push(pool.kind(name, props, b.defaultState - b.minStateId, stateFlags, null, materialOf(name)));
        mins.push(b.minStateId);
        next = b.maxStateId + 1;
    }
    return { kinds, mins, stateCount: next, names: blocks.map((b) => 'minecraft:' + b.name) };
}

/* ---------------------------------------------------- legacy registries */
const legacyJson = load('pc/common', 'legacy').blocks;
/* legacy.json gives 53:0-7 (oak stairs only) shape=outer_right; the game's
 * flattening never stores a shape in 1.12 metadata and upgrades to straight
 * (every other stairs block in the same file says straight). Corrected here. */
function legacyTarget(key) {
    let s = legacyJson[key];
    if (key.startsWith('53:')) s = s.replace('shape=outer_right', 'shape=straight');
    return s;
}
function parseStateString(s) {
    const m = /^([^[]+)(?:\[(.*)\])?$/.exec(s);
    const props = {};
    if (m[2]) for (const kv of m[2].split(',')) { const [k, v] = kv.split('='); props[k] = v; }
    return { name: m[1], props };
}

/* The 1.13 registry is the pivot between the legacy and the flattened worlds. */
const PIVOT_DIR = PATHS.pc['1.13'].blocks;
const pivotBlocks = load(PIVOT_DIR, 'blocks');
const pivotByName = new Map(pivotBlocks.map((b) => [b.name, b]));
function pivotStateOf(name, props) {
    const b = pivotByName.get(name.replace(/^minecraft:/, ''));
    if (!b) return -1;
    let off = 0, stride = 1;
    const st = b.states || [];
    for (let p = st.length - 1; p >= 0; p--) {
        const vals = propValues(st[p]);
        let idx = props[st[p].name] !== undefined ? vals.indexOf(props[st[p].name]) : -1;
        if (idx < 0) {
            /* missing: the default state's value */
            const d = b.defaultState - b.minStateId;
            idx = Math.floor(d / stride) % vals.length;
        }
        off += idx * stride;
        stride *= vals.length;
    }
    return b.minStateId + off;
}
function pivotStateProps(state) {
    const b = pivotBlocks.find((x) => state >= x.minStateId && state <= x.maxStateId);
    const st = b.states || [];
    const props = {};
    let rest = state - b.minStateId;
    for (let p = st.length - 1; p >= 0; p--) {
        const vals = propValues(st[p]);
        props[st[p].name] = vals[rest % vals.length];
        rest = Math.floor(rest / vals.length);
    }
    return { name: b.name, props };
}

const legacyToPivot = new Array(4096).fill(0xffff);
for (const key of Object.keys(legacyJson)) {
    const [id, meta] = key.split(':').map(Number);
    const t = parseStateString(legacyTarget(key));
    const s = pivotStateOf(t.name, t.props);
    assert(s >= 0, `legacy ${key} -> ${t.name} missing in 1.13`);
    legacyToPivot[(id << 4) | meta] = s;
}

/* 1.13 state -> the closest 1.12 id<<4|meta: among the legacy states that
 * became a block of the same name, the one agreeing on most properties (ties:
 * the lowest id:meta; "half", "part" and "type" weigh 10, still water and
 * lava win over flowing). 1.13 blocks no legacy state became fall back by name:
 * "stripped_" dropped, wood variants of trapdoors/buttons/pressure plates to
 * oak, water plants to water; else air (0). */
const legacyByPivotName = new Map();
for (const key of Object.keys(legacyJson).sort((a, b) => {
    const [i, m] = a.split(':').map(Number), [j, n] = b.split(':').map(Number);
    return ((i << 4) | m) - ((j << 4) | n);
})) {
    const t = pivotStateProps(legacyToPivot[(Number(key.split(':')[0]) << 4) | Number(key.split(':')[1])]);
    const [id, meta] = key.split(':').map(Number);
    if (!legacyByPivotName.has(t.name)) legacyByPivotName.set(t.name, []);
    legacyByPivotName.get(t.name).push({ code: (id << 4) | meta, props: t.props });
}
function legacyFallbackName(name) {
    if (name.startsWith('stripped_')) return name.slice(9);
    const m = /^(spruce|birch|jungle|acacia|dark_oak)_(trapdoor|button|pressure_plate)$/.exec(name);
    if (m) return name === 'oak_trapdoor' ? null : (m[2] === 'trapdoor' ? 'oak_trapdoor' : 'oak_' + m[2]);
    if (['kelp', 'kelp_plant', 'seagrass', 'tall_seagrass', 'bubble_column'].includes(name)) return 'water';
    if (name === 'cave_air' || name === 'void_air') return 'air';
    return null;
}
/* Properties that say which part of a multi-block thing a state is (a
 * door's upper half stores hinge and power, its lower half facing and open):
 * agreeing on them outweighs agreeing on all others. */
const STRUCTURAL = new Set(['half', 'part', 'type']);
const pivotToLegacy = [];
for (const b of pivotBlocks.slice().sort((x, y) => x.minStateId - y.minStateId)) {
    for (let s = b.minStateId; s <= b.maxStateId; s++) {
        const t = pivotStateProps(s);
        let name = t.name, cands = legacyByPivotName.get(name);
        for (let hop = 0; !cands && hop < 3; hop++) {
            name = legacyFallbackName(name);
            if (!name) break;
            cands = legacyByPivotName.get(name);
        }
        let best = 0, bestScore = -1;
        for (const c of cands || []) {
            let score = 0;
            for (const k of Object.keys(t.props))
                if (c.props[k] === t.props[k]) score += STRUCTURAL.has(k) ? 10 : 1;
            /* still water and lava (9, 11) over flowing (8, 10) */
            if ((c.code >> 4) === 9 || (c.code >> 4) === 11) score += 0.5;
            if (score > bestScore) { best = c.code; bestScore = score; }
        }
        pivotToLegacy.push(best);
    }
}

/* The properties of 1.8-1.12 states as the game names them (F3, /setblock):
 * one schema per block name (registry-legacy-names.js), pooled like kinds. */
const legacyNames = require('./registry-legacy-names.js');
const legacySchemas = [];   /* {props: prop list index, nprops, digits, stored} */
const legacyStored = [];    /* per schema, 16 bytes: the properties each meta stores */
const schemaOfName = new Map();
{
    const blocks112 = load(PATHS.pc['1.12.2'].blocks, 'blocks');
    const names = new Map(blocks112.map((b) => [b.id, b.name]));
    const corrected = Object.fromEntries(Object.keys(legacyJson).map((k) => [k, legacyTarget(k)]));
    const built = legacyNames.build({ file: legacyNames.defaultFile, legacyJson: corrected, parseStateString,
        blockNames: names });
    for (const [name, s] of built) {
        schemaOfName.set('minecraft:' + name, legacySchemas.length);
        legacySchemas.push({
            props: pool.propList(s.props), nprops: s.props.length,
            digits: pool.digitRun(s.metas.flatMap((m) => m.digits)), stored: legacyStored.length,
        });
        legacyStored.push(...s.metas.map((m) => m.stored));
    }
}

/* Pivot flags, to give legacy states the flags of what they became. */
let pivotFlags = null;

function buildLegacy(blocksDir) {
    const blocks = load(blocksDir, 'blocks');
    const byId = new Map(blocks.map((b) => [b.id, b]));
    const maxId = Math.max(...blocks.map((b) => b.id));
    const entries = [];
    for (let id = 0; id <= maxId; id++) {
        const b = byId.get(id);
        if (!b) { entries.push(null); continue; }
        /* valid metas: legacy.json's (the states 1.12 writes) and the
         * version's own variations; meta 0 alone for an id neither lists */
        let mask = 0;
        for (const v of b.variations || []) if (v.metadata < 16) mask |= 1 << v.metadata;
        for (let m = 0; m < 16; m++) if (legacyJson[id + ':' + m]) mask |= 1 << m;
        if (!mask) mask = 1;
        const metaFlags = [];
        for (let m = 0; m < 16; m++) {
            if (!(mask & (1 << m))) { metaFlags.push(0); continue; }
            const p = legacyToPivot[(id << 4) | m];
            metaFlags.push(p !== 0xffff ? pivotFlags[p] : flags.legacyFallbackFlags(b));
        }
        const name = 'minecraft:' + b.name;
        entries.push({ name, mask, flagSeq: pool.flagSeq(metaFlags),
            schema: schemaOfName.has(name) ? schemaOfName.get(name) : 0xffffffff });
    }
    return entries;
}

/* ------------------------------------------------------------- biomes */
function buildBiomes(dir) {
    const list = load(dir, 'biomes');
    const maxId = Math.max(...list.map((b) => b.id));
    const names = new Array(maxId + 1).fill(null);
    for (const b of list) names[b.id] = 'minecraft:' + b.name;
    return names;
}

/* ----------------------------------------------------- Java registries */
const registries = []; /* {key, edition, kind, ...} */
const regByKey = new Map();
function addRegistry(reg) {
    if (regByKey.has(reg.key)) return regByKey.get(reg.key);
    reg.index = registries.length;
    registries.push(reg);
    regByKey.set(reg.key, reg);
    return reg;
}

/* the pivot first, so legacy flags can use it */
const pivotBuilt = buildFlattened(PIVOT_DIR, PATHS.pc['1.13'].blockCollisionShapes);
pivotFlags = [];
for (let b = 0; b < pivotBuilt.kinds.length; b++) {
    const k = pool.kinds[pivotBuilt.kinds[b]];
    for (let i = 0; i < k.count; i++) pivotFlags.push(k.flags[i]);
}

const flatCache = new Map();
const versionRegistry = new Map(); /* md version -> registry */
for (const v of mdReleases) {
    const p = PATHS.pc[v];
    const legacy = vcmp(v, '1.13') < 0;
    const biomes = buildBiomes(p.biomes);
    let reg;
    if (legacy) {
        const entries = buildLegacy(p.blocks);
        const key = 'L' + JSON.stringify(entries) + JSON.stringify(biomes);
        reg = addRegistry({ key, edition: 0, legacy: true, entries, biomes, stateCount: 4096, versions: [] });
    } else {
        const ck = p.blocks + '|' + p.blockCollisionShapes;
        if (!flatCache.has(ck)) flatCache.set(ck, buildFlattened(p.blocks, p.blockCollisionShapes));
        const f = flatCache.get(ck);
        const key = 'F' + JSON.stringify(f.kinds) + JSON.stringify(biomes);
        reg = addRegistry({ key, edition: 0, legacy: false, kinds: f.kinds, mins: f.mins,
            stateCount: f.stateCount, biomes, versions: [] });
        if (v === '1.13') reg.pivot = true;
    }
    versionRegistry.set(v, reg);
}
for (const r of releases) {
    const md = mdVersionFor(r);
    r.registry = md ? versionRegistry.get(md) : null;
    if (r.registry) r.registry.versions.push(r.name);
}
for (const reg of registries) {
    /* display name: the newest release using it */
    reg.display = reg.versions.length ? reg.versions[reg.versions.length - 1] : null;
    assert(reg.display, 'registry without a release');
}
assert(registries.length <= 128, 'MC__MAX_REGISTRIES is 256 for Java and Bedrock together');

/* ---------------------------------------------------- Bedrock registries */
/* canonical "minecraft:name[k=v,...]" (keys sorted) -> state id of a flattened Java registry */
const stateStrings = new Map();
function javaStateStrings(reg) {
    if (stateStrings.has(reg)) return stateStrings.get(reg);
    const m = new Map();
    reg.kinds.forEach((ki, b) => {
        const k = pool.kinds[ki];
        for (let i = 0; i < k.count; i++) {
            const props = {};
            let rest = i;
            for (let p = k.jsProps.length - 1; p >= 0; p--) {
                const vals = k.jsProps[p].values;
                props[k.jsProps[p].name] = vals[rest % vals.length];
                rest = Math.floor(rest / vals.length);
            }
            const keys = Object.keys(props).sort();
            m.set(k.jsName + (keys.length ? '[' + keys.map((x) => `${x}=${props[x]}`).join(',') + ']' : ''), reg.mins[b] + i);
        }
    });
    stateStrings.set(reg, m);
    return m;
}
const bedrock = require('./registry-bedrock.js').build({ DATA, PATHS, load, pool, flags, assert,
    javaRegistries: registries, javaStateStrings, materialOf });

/* -------------------------------------------------------------- output */
const emit = require('./registry-emit.js');
const header = (what) => emit.header(what, MD_VERSION);

fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, 'reg_pool.c'), emit.poolFile(header('shared pools'), pool));
fs.writeFileSync(path.join(OUT, 'reg_java.c'),
    emit.javaFile(header('Java registries and version table'), { pool, registries, releases,
        legacyToPivot, pivotToLegacy, pivotIndex: registries.find((r) => r.pivot).index }));
/* reg_bedrock_N.c: one file per Bedrock registry before the tables were coded */
for (const f of fs.readdirSync(OUT)) if (/^reg_bedrock_\d+\.c$/.test(f)) fs.unlinkSync(path.join(OUT, f));
fs.writeFileSync(path.join(OUT, 'reg_bedrock.c'),
    emit.bedrockFile(header('Bedrock registries and version table'), { pool, bedrock, javaCount: registries.length }));
for (const r of bedrock.registries) if (r.mappingNote) console.log(`bedrock ${r.display}: ${r.mappingNote}`);
const climates = require('./registry-biomes.js').build({ DATA, PATHS, load, vcmp });
fs.writeFileSync(path.join(OUT, 'reg_biomes.c'), emit.biomeFile(header('biome climates'), pool, climates));
fs.writeFileSync(path.join(OUT, 'reg_legacy_names.c'),
    emit.legacyNamesFile(header('Java 1.8-1.12 state properties, from scripts/data/legacy-block-states.txt'),
        legacySchemas, legacyStored));
fs.writeFileSync(path.join(OUT, 'reg_strings.c'), emit.stringsFile(header('string pool'), pool));
console.log(`registries: ${registries.length} Java, ${bedrock.registries.length} Bedrock; ` +
    `strings ${pool.stringBytes()} bytes, kinds ${pool.kinds.length}, flag bytes ${pool.flagBytes.length}`);
