/*
 * registry-bedrock.js: Bedrock registries for gen-registries.js.
 *
 * minecraft-data's blockStates.json lists a version's block states in
 * runtime-id order (the sorted list the game numbers), each with a name and
 * typed states (byte, int, string). Per block the states are usually every
 * combination of its values in mixed-radix order (first property slowest),
 * which the Java machinery already handles; for the blocks where they are
 * not (a subset, or another order) the kind records each state's value
 * indices explicitly. Byte values are 0/1 and print as false/true, as
 * blocksJ2B.json writes them. Hashed runtime ids are not stored: the C side
 * computes them from name and typed values (src/registry/bedrock_hash.c).
 *
 * blocksJ2B/blocksB2J map state strings of one Java version to this
 * version's states; the Java registry they use is found by trying every
 * Java registry and keeping the one where all (else most) Java strings
 * resolve, newest first.
 *
 * Also the Bedrock version table: release names, protocols, registries.
 */
'use strict';

const TYPE = { string: 0, byte: 1, int: 2 };

/* The oldest release in the version table (bedrock-protocol's minimum). */
const FIRST_RELEASE = '1.16.201';
/* Releases minecraft-data's protocolVersions.json skips: it lists the hotfix
 * that followed with the same protocol (1.18.11, 1.20.61, 1.20.71, 1.21.42). */
const EXTRA_RELEASES = [['1.18.10', 486], ['1.20.60', 649], ['1.20.70', 662], ['1.21.40', 748]];

function vcmp(a, b) {
    const x = a.split('.').map(Number), y = b.split('.').map(Number);
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const d = (x[i] || 0) - (y[i] || 0);
        if (d) return d;
    }
    return 0;
}

function valueText(v) {
    return v.type === 'byte' ? (v.value ? 'true' : 'false') : String(v.value);
}

function canonical(name, props) {
    const n = name.includes(':') ? name : 'minecraft:' + name;
    const keys = Object.keys(props).sort();
    return n + (keys.length ? '[' + keys.map((k) => `${k}=${props[k]}`).join(',') + ']' : '');
}

function parseStateString(s) {
    const m = /^([^[]+)(?:\[(.*)\])?$/.exec(s);
    const props = {};
    if (m[2]) for (const kv of m[2].split(',')) { const i = kv.indexOf('='); props[kv.slice(0, i)] = kv.slice(i + 1); }
    return { name: m[1], props };
}

function build(ctx) {
    const { PATHS, load, pool, flags, assert, javaRegistries, javaStateStrings } = ctx;
    const versions = Object.keys(PATHS.bedrock).filter((v) => PATHS.bedrock[v].blockStates);
    const releaseList = load('bedrock/common', 'protocolVersions').filter((p) => p.releaseType === 'release');
    const protocols = new Map(releaseList.map((p) => [p.minecraftVersion, p.version]));
    const registries = [], byKey = new Map(), out = [];

    for (const v of versions) {
        const p = PATHS.bedrock[v];
        const key = [p.blockStates, p.blocks, p.biomes, p.blocksJ2B].join('|');
        if (!byKey.has(key)) {
            const reg = buildOne(p);
            reg.index = registries.length;
            reg.versions = [];
            registries.push(reg);
            byKey.set(key, reg);
        }
        const reg = byKey.get(key);
        reg.versions.push(v);
        reg.display = v; /* versions are oldest first: the newest wins */
        out.push({ name: v, protocol: protocols.get(v) || 0, registry: reg.index });
    }
    return { registries, versions: releaseTable(out) };

    /* The version table (the one the library has: names <-> protocols for
     * the network code too): every release from FIRST_RELEASE on that
     * minecraft-data lists, and the EXTRA_RELEASES it skips. A release
     * without its own data uses the registry of the newest release with the
     * same protocol (the same states on the wire), else none. */
    function releaseTable(withData) {
        const own = new Map(withData.map((v) => [v.name, v]));
        const all = releaseList.filter((p) => vcmp(p.minecraftVersion, FIRST_RELEASE) >= 0)
            .map((p) => ({ name: p.minecraftVersion, protocol: p.version }));
        for (const [name, protocol] of EXTRA_RELEASES) {
            assert(!all.some((v) => v.name === name), `${name} is in minecraft-data now: drop it from EXTRA_RELEASES`);
            all.push({ name, protocol });
        }
        for (const v of withData) assert(all.some((a) => a.name === v.name), `${v.name} has data but no release entry`);
        all.sort((a, b) => vcmp(a.name, b.name));
        return all.map((v) => {
            if (own.has(v.name)) return own.get(v.name);
            const twins = withData.filter((w) => w.protocol === v.protocol);
            return { name: v.name, protocol: v.protocol, registry: twins.length ? twins[twins.length - 1].registry : -1 };
        });
    }

    function buildOne(p) {
        const states = load(p.blockStates, 'blockStates');
        const blocks = load(p.blocks, 'blocks') || [];
        const blockByName = new Map(blocks.map((b) => [b.name, b]));
        const kinds = [], mins = [], stateKey = [];
        let i = 0;
        while (i < states.length) {
            let j = i;
            while (j < states.length && states[j].name === states[i].name) j++;
            const name = 'minecraft:' + states[i].name.replace(/^minecraft:/, '');
            const keys = Object.keys(states[i].states);
            const props = keys.map((k) => ({ name: k, values: [], type: TYPE[states[i].states[k].type] }));
            for (let t = i; t < j; t++)
                keys.forEach((k, ki) => {
                    const st = states[t].states[k];
                    assert(st && TYPE[st.type] === props[ki].type, `${p.blockStates}: ${name} property ${k}`);
                    const text = valueText(st);
                    if (!props[ki].values.includes(text)) props[ki].values.push(text);
                });
            /* byte values in false, true order; ints ascending */
            for (const pr of props) {
                if (pr.type === TYPE.byte) pr.values.sort((a, b) => (a === 'true') - (b === 'true'));
                if (pr.type === TYPE.int) pr.values.sort((a, b) => Number(a) - Number(b));
            }
            const tuples = [];
            for (let t = i; t < j; t++) {
                tuples.push(keys.map((k, ki) => props[ki].values.indexOf(valueText(states[t].states[k]))));
                const pv = {};
                keys.forEach((k) => { pv[k] = valueText(states[t].states[k]); });
                stateKey.push(canonical(name, pv));
            }
            const count = props.reduce((n, pr) => n * pr.values.length, 1);
            let radix = count === j - i;
            for (let t = 0; radix && t < tuples.length; t++) {
                let off = 0;
                tuples[t].forEach((d, ki) => { off = off * props[ki].values.length + d; });
                if (off !== t) radix = false;
            }
            const b = blockByName.get(states[i].name.replace(/^minecraft:/, ''));
            let defaultOff = 0;
            if (b && b.defaultState >= i && b.defaultState < j) defaultOff = b.defaultState - i;
            const stateFlags = tuples.map(() => flags.bedrockFlags(name, b));
            const kindIndex = pool.kind(name, props, defaultOff, stateFlags, radix ? null : tuples,
                ctx.materialOf(name));
            if (!radix) pool.kinds[kindIndex].explicitTuples = tuples;
            kinds.push(kindIndex);
            mins.push(i);
            i = j;
        }
        const biomes = [];
        for (const bi of (p.biomes ? load(p.biomes, 'biomes') : []) || []) biomes[bi.id] = 'minecraft:' + bi.name;
        for (let k = 0; k < biomes.length; k++) if (!biomes[k]) biomes[k] = null;
        const reg = { kinds, mins, stateCount: states.length, biomes, legacy: false };
        if (p.blocksJ2B) addMappings(reg, p, stateKey);
        return reg;
    }

    /* Closest state of a registry (kinds + first ids) for a state string its
     * exact index lacks: the block by name, the properties it has, then the
     * ones `hint` gives (see javaHints), defaults for the rest (blocksJ2B/B2J
     * of a version sometimes name properties or values of a neighbouring
     * version). -1 when the block is absent. */
    function approx(reg, name, props, hint = {}) {
        if (!reg.byName) {
            reg.byName = new Map();
            reg.kinds.forEach((ki, b) => reg.byName.set(pool.kinds[ki].jsName, b));
        }
        const b = reg.byName.get(name.includes(':') ? name : 'minecraft:' + name);
        if (b === undefined) return -1;
        const k = pool.kinds[reg.kinds[b]];
        const d = [];
        let rest = k.defaultOff;
        if (k.explicitTuples) d.push(...k.explicitTuples[k.defaultOff]);
        else for (let i = k.jsProps.length - 1; i >= 0; i--) {
            d.unshift(rest % k.jsProps[i].values.length);
            rest = Math.floor(rest / k.jsProps[i].values.length);
        }
        k.jsProps.forEach((pr, i) => {
            let v = props[pr.name] !== undefined ? pr.values.indexOf(props[pr.name]) : -1;
            if (v < 0 && props[pr.name] === undefined && hint[pr.name] !== undefined) v = pr.values.indexOf(hint[pr.name]);
            if (v >= 0) d[i] = v;
        });
        let off;
        if (k.explicitTuples) {
            off = k.explicitTuples.findIndex((t) => t.every((x, i) => x === d[i]));
            if (off < 0) off = k.defaultOff;
        } else {
            off = 0;
            k.jsProps.forEach((pr, i) => { off = off * pr.values.length + d[i]; });
        }
        return reg.mins[b] + off;
    }

    /* Bedrock properties a Java state says directly, for the pairs whose
     * Bedrock side names an older property (1.21.60's blocksJ2B writes a
     * door's "direction" as an int, its blockStates has
     * minecraft:cardinal_direction, which is the Java facing; likewise
     * top_slot_bit -> minecraft:vertical_half, facing_direction ->
     * minecraft:block_face). Each door, gate and slab numbered "direction"
     * its own way, so the value comes from the Java state, not the int. */
    function javaHints(javaProps) {
        const h = {};
        const f = javaProps.facing;
        if (['north', 'south', 'west', 'east'].includes(f)) h['minecraft:cardinal_direction'] = f;
        if (['north', 'south', 'west', 'east', 'up', 'down'].includes(f)) h['minecraft:block_face'] = f;
        const half = javaProps.type === 'top' || javaProps.type === 'bottom' ? javaProps.type : javaProps.half;
        if (half === 'top' || half === 'bottom') h['minecraft:vertical_half'] = half;
        return h;
    }

    function addMappings(reg, p, stateKey) {
        const j2b = load(p.blocksJ2B, 'blocksJ2B');
        const b2j = load(p.blocksB2J, 'blocksB2J') || {};
        const bedrockIndex = new Map(stateKey.map((k, idx) => [k, idx]));
        let approximate = 0;
        const resolveB = (s, javaSide) => {
            const t = parseStateString(s);
            const c = canonical(t.name, t.props);
            if (bedrockIndex.has(c)) return bedrockIndex.get(c);
            approximate++;
            return approx(reg, t.name, t.props, javaSide ? javaHints(parseStateString(javaSide).props) : {});
        };
        const resolveJ = (index, jr, s) => {
            const t = parseStateString(s);
            const c = canonical(t.name, t.props);
            if (index.has(c)) return index.get(c);
            approximate++;
            const r = approx(jr, t.name, t.props);
            return r < 0 ? undefined : r;
        };
        /* the Java registry whose states the mapping names */
        const javaKeys = Object.keys(j2b).map((s) => { const t = parseStateString(s); return canonical(t.name, t.props); });
        let best = null, bestHits = -1;
        for (const jr of javaRegistries.slice().reverse()) {
            if (jr.legacy) continue;
            const index = javaStateStrings(jr);
            let hits = 0;
            for (const k of javaKeys) if (index.has(k)) hits++;
            if (hits > bestHits) { best = jr; bestHits = hits; }
            if (hits === javaKeys.length) break;
        }
        const jIndex = javaStateStrings(best);
        reg.javaIndex = best.index;
        reg.j2b = new Array(best.stateCount).fill(0xffff);
        let unresolved = 0;
        for (const [js, bs] of Object.entries(j2b)) {
            const jid = resolveJ(jIndex, best, js);
            const bid = resolveB(bs, js);
            if (jid === undefined || bid < 0) { unresolved++; continue; }
            reg.j2b[jid] = bid;
        }
        /* Bedrock -> Java: the Java state that blocksJ2B maps here and agrees
         * most with its block's default state (so Java -> Bedrock -> Java
         * comes back with defaults for what Bedrock does not store, e.g. a
         * stairs shape); blocksB2J only for states J2B never reaches. */
        reg.b2j = new Array(reg.stateCount).fill(0xffff);
        const bestScore = new Array(reg.stateCount).fill(-1);
        best.kinds.forEach((ki, b) => {
            const k = pool.kinds[ki];
            const dflt = [];
            let rest = k.defaultOff;
            for (let i = k.jsProps.length - 1; i >= 0; i--) {
                dflt.unshift(rest % k.jsProps[i].values.length);
                rest = Math.floor(rest / k.jsProps[i].values.length);
            }
            for (let off = 0; off < k.count; off++) {
                const jid = best.mins[b] + off;
                const bid = reg.j2b[jid];
                if (bid === 0xffff) continue;
                let r = off, score = 0;
                for (let i = k.jsProps.length - 1; i >= 0; i--) {
                    const n = k.jsProps[i].values.length;
                    if (r % n === dflt[i]) score++;
                    r = Math.floor(r / n);
                }
                if (score > bestScore[bid]) { bestScore[bid] = score; reg.b2j[bid] = jid; }
            }
        });
        for (const [bs, js] of Object.entries(b2j)) {
            const jid = resolveJ(jIndex, best, js);
            const bid = resolveB(bs, js);
            if (jid === undefined || bid < 0) { unresolved++; continue; }
            if (reg.b2j[bid] === 0xffff) reg.b2j[bid] = jid;
        }
        /* Java states J2B leaves out (newer blocks) fall back to translation by name */
        reg.mappingNote = `Java ${best.display}; ${bestHits}/${javaKeys.length} J2B keys exact, ` +
            `${approximate} sides matched by name and known properties, ${unresolved} pairs dropped`;
    }
}

module.exports = { build };
