/*
 * registry-pool.js: the deduplicating pools behind gen-registries.js.
 *
 * Everything a registry table refers to is interned here exactly once:
 * strings (one NUL-separated pool, referenced by byte offset), value lists
 * (runs of string offsets), property definitions (name + value list),
 * property lists (runs of property-definition indices, in the game's order),
 * per-state flag sequences (runs of bytes) and block kinds (name, property
 * list, default state offset, flags). The C side mirrors these arrays.
 */
'use strict';

function create() {
    const strings = new Map();
    let stringBytes = 0;
    const stringList = [];
    const valueRefs = [], valueLists = new Map();
    const propdefs = [], propdefMap = new Map();
    const propLists = [], propListMap = new Map();
    const flagBytes = [], flagMap = new Map();
    const kinds = [], kindMap = new Map();
    const digitBytes = [], digitMap = new Map();

    function str(s) {
        if (!strings.has(s)) {
            strings.set(s, stringBytes);
            stringList.push(s);
            stringBytes += Buffer.byteLength(s, 'utf8') + 1;
        }
        return strings.get(s);
    }
    const lengthOf = new Map();
    function lengthAt(off) {
        if (!lengthOf.size) for (const [k, v] of strings) lengthOf.set(v, Buffer.byteLength(k, 'utf8'));
        const n = lengthOf.get(off);
        if (n > 255) throw new Error('string longer than 255 bytes');
        return n;
    }
    function valueList(values) {
        const refs = values.map(str);
        const key = refs.join(',');
        if (!valueLists.has(key)) {
            valueLists.set(key, valueRefs.length);
            valueRefs.push(...refs);
        }
        return valueLists.get(key);
    }
    /* type: NBT type of a Bedrock property's values (0 string, 1 byte, 2 int) */
    function propdef(name, values, type = 0) {
        const n = str(name), v = valueList(values);
        const key = n + ':' + v + ':' + values.length + ':' + type;
        if (!propdefMap.has(key)) {
            propdefMap.set(key, propdefs.length);
            propdefs.push({ name: n, values: v, count: values.length, type, jsName: name, jsValues: values });
        }
        return propdefMap.get(key);
    }
    function propList(props) {
        const ids = props.map((p) => propdef(p.name, p.values, p.type || 0));
        const key = ids.join(',');
        if (!propListMap.has(key)) {
            propListMap.set(key, propLists.length);
            propLists.push(...ids);
        }
        return propListMap.get(key);
    }
    function flagSeq(seq) {
        const key = seq.join(',');
        if (!flagMap.has(key)) {
            flagMap.set(key, flagBytes.length);
            flagBytes.push(...seq);
        }
        return flagMap.get(key);
    }
    /* The value indices of a block's default state, one byte per property. */
    function digitRun(d) {
        const key = d.join(',');
        if (!digitMap.has(key)) {
            digitMap.set(key, digitBytes.length);
            digitBytes.push(...d);
        }
        return digitMap.get(key);
    }
    function digits(props, defaultOff, explicit) {
        if (explicit) return digitRun(explicit[defaultOff]);
        const d = [];
        let rest = defaultOff;
        for (let p = props.length - 1; p >= 0; p--) {
            d.unshift(rest % props[p].values.length);
            rest = Math.floor(rest / props[p].values.length);
            if (props[p].values.length > 255) throw new Error('more than 255 values');
        }
        return digitRun(d);
    }
    /* A block kind. Flags are stored once per kind when uniform, else as a
     * flag sequence (one byte per state of the block). */
    /* explicit: for blocks whose states are not every combination of their
     * values in mixed-radix order (some Bedrock blocks), the value indices of
     * each state, in state order. */
    /* material: the coarse material class of registry-flags.js materialClass
     * (what the translation's fallbacks prefer to keep). */
    function kind(name, props, defaultOff, stateFlags, explicit, material = 0) {
        const n = str(name);
        const pl = props.length ? propList(props) : 0;
        const uniform = stateFlags.every((f) => f === stateFlags[0]);
        const seq = uniform ? 0xffffffff : flagSeq(stateFlags);
        const ex = explicit ? digitRun(explicit.flat()) : 0xffffffff;
        const key = [n, pl, props.length, defaultOff, uniform ? 'u' + stateFlags[0] : 's' + seq, ex, material].join('|');
        if (!kindMap.has(key)) {
            kindMap.set(key, kinds.length);
            if (props.length > 32) throw new Error(name + ': more than 32 properties');
            kinds.push({ name: n, jsName: name, props: pl, nprops: props.length, jsProps: props,
                digits: digits(props, defaultOff, explicit), explicit: ex,
                count: stateFlags.length, defaultOff, base: stateFlags[0], seq, flags: stateFlags, material });
        }
        return kindMap.get(key);
    }
    return { str, lengthAt, valueList, propdef, propList, flagSeq, digitRun, kind, kinds, propdefs, propLists,
        valueRefs, flagBytes, digitBytes, stringList, stringBytes: () => stringBytes };
}

module.exports = { create };
