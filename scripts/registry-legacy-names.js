/*
 * registry-legacy-names.js: the properties of Java 1.8-1.12 block states,
 * as the game names them (minecraft:stone[variant=granite]), for
 * gen-registries.js.
 *
 * The facts are in scripts/data/legacy-block-states.txt (its header says
 * the format): per block id, each property and how the 4-bit metadata
 * stores it. This script reads that file, turns each id:meta into its
 * property values, and checks them against legacy.json (minecraft-data's
 * 1.13 state of every 1.12 id:meta, i.e. the game's flattening): every
 * property both have under the same name must have the same value, except
 * the ones listed in RENAMED_VALUES below, where 1.13 reused a name for
 * other values. A property the metadata does not store ("*", or a door's
 * facing in its upper half) takes the 1.13 state's value of the same name
 * when there is one, else the first value of its list.
 *
 * Output per block name: a "schema" (property list in the shared pool,
 * one run of value indices per metadata, one byte per metadata saying
 * which properties it stores), emitted into src/registry/data/reg_legacy_names.c.
 */
'use strict';
const fs = require('fs');
const path = require('path');

/* (block, property) pairs whose 1.13 values mean something else. */
const RENAMED_VALUES = new Set([
    'lever:facing',           /* 1.12 down_x ... up_z; 1.13 face + facing */
    'stone_button:facing', 'wooden_button:facing', /* 1.12 down/up; 1.13 face + facing */
    'portal:axis',            /* legacy.json gives meta 0 the x axis; fine either way */
    'double_plant:half',      /* checked below with its variant */
    'flower_pot:legacy_data',
    /* 1.12 reads a comparator's "powered" from metadata bit 8; the
     * flattening takes it from the block (powered_comparator) */
    'powered_comparator:powered', 'unpowered_comparator:powered',
]);

function parseFile(file) {
    const lists = {};
    const schemas = new Map(); /* id -> [{name, enc, values}] */
    for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
        const line = raw.replace(/#.*/, '').trim();
        if (!line) continue;
        if (line.startsWith('=')) {
            const [, name, values] = line.split(/\s+/);
            lists[name] = expand(values, lists);
            continue;
        }
        const [ids, ...props] = line.split(/\s+/);
        const schema = props.map((p) => {
            const m = /^([a-z0-9_]+)=([^:]+):(.+)$/.exec(p);
            if (!m) throw new Error(`${file}: bad property ${p}`);
            return { name: m[1], enc: parseEncoding(m[2], p), values: expand(m[3], lists) };
        });
        for (const id of ids.split(',').map(Number)) {
            if (schemas.has(id)) throw new Error(`${file}: block ${id} twice`);
            schemas.set(id, schema);
        }
    }
    return schemas;
}

function expand(text, lists) {
    const out = [];
    for (const part of text.split(',')) {
        let m;
        if (part.startsWith('$')) {
            if (!lists[part.slice(1)]) throw new Error(`unknown list ${part}`);
            out.push(...lists[part.slice(1)]);
        } else if ((m = /^(\d+)\.\.(\d+)$/.exec(part))) {
            for (let i = Number(m[1]); i <= Number(m[2]); i++) out.push(String(i));
        } else {
            out.push(part);
        }
    }
    return out;
}

function parseEncoding(e, where) {
    if (e === '*') return null;
    const m = /^(\d+)\+(\d+)(?:([!?])(\d+))?$/.exec(e);
    if (!m) throw new Error(`bad encoding in ${where}`);
    return { shift: Number(m[1]), bits: Number(m[2]), cond: m[3] || '', mask: Number(m[4] || 0) };
}

function stores(enc, meta) {
    if (!enc) return false;
    if (enc.cond === '!') return (meta & enc.mask) === 0;
    if (enc.cond === '?') return (meta & enc.mask) !== 0;
    return true;
}

/* The value list of a property: its entries without repeats, in order. */
function distinct(values) { return [...new Set(values)]; }

/* build({legacyJson, parseStateString, file}) -> { schemaOf(name) , check() }:
 * schemas by 1.12 block name, each {props: [{name, values}], metas: [16 x
 * {digits, stored}]} */
function build({ file, legacyJson, parseStateString, blockNames }) {
    const byId = parseFile(file);
    const out = new Map();
    const problems = [];
    for (const [id, schema] of byId) {
        const name = blockNames.get(id);
        if (!name) throw new Error(`${file}: no 1.12 block ${id}`);
        const props = schema.map((p) => ({ name: p.name, values: distinct(p.values) }));
        const metas = [];
        for (let meta = 0; meta < 16; meta++) {
            const target = legacyJson[`${id}:${meta}`] ? parseStateString(legacyJson[`${id}:${meta}`]) : null;
            const digits = [];
            let stored = 0;
            schema.forEach((p, i) => {
                let value;
                if (stores(p.enc, meta)) {
                    const index = (meta >> p.enc.shift) & ((1 << p.enc.bits) - 1);
                    value = p.values[Math.min(index, p.values.length - 1)];
                    stored |= 1 << i;
                    const t = target ? target.props[p.name] : undefined;
                    if (t !== undefined && t !== value && !RENAMED_VALUES.has(`${name}:${p.name}`))
                        problems.push(`${id}:${meta} ${name} ${p.name}=${value}, legacy.json says ${t}`);
                } else {
                    const t = target ? target.props[p.name] : undefined;
                    value = t !== undefined && props[i].values.includes(t) ? t : p.values[0];
                }
                digits.push(props[i].values.indexOf(value));
            });
            metas.push({ digits, stored });
        }
        out.set(name, { props, metas });
    }
    if (problems.length)
        throw new Error(`legacy-block-states.txt disagrees with legacy.json:\n  ${problems.slice(0, 20).join('\n  ')}`);
    return out;
}

module.exports = { build, defaultFile: path.join(__dirname, 'data', 'legacy-block-states.txt') };
