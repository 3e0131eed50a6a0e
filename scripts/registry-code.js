/*
 * registry-code.js: codes a registry's per-block tables as their difference
 * from the registry before it, for gen-registries.js. The decoder is
 * src/registry/tables.c; the two must agree on every detail below.
 *
 * Why: consecutive game versions share almost all of their tables. Adding a
 * block to Bedrock shifts every later state id by a constant, so the new
 * Java -> Bedrock map is the old one in long runs with a constant added; a
 * new Java block shifts the positions instead. Written out in full, 31
 * Bedrock and 25 Java registries were 8.7 MB (87k lines) of C and 2.9 MB
 * of the library; as runs copied from the previous version, with the
 * shared pools, 0.5 MB and 0.37 MB.
 *
 * A field (an array of n unsigned values, NONE = all ones of its width)
 * is coded against the same field of the previous registry, P, as a
 * sequence of runs until n values are out:
 *   op = varint; len = op >> 1 (>= 1)
 *   op odd:  copy. sd += zigzag(varint); add += zigzag(varint);
 *            out[i + t] = S[i + sd + t] + add (NONE stays NONE), t < len,
 *            where S is P followed by the values decoded so far (a copy
 *            from the field itself repeats a pattern: every stairs block
 *            maps its states the same way)
 *   op even: literals, one varint each: 0 = NONE, else
 *            last += 1 + zigzag(varint - 1); out = last
 * sd, add start at 0 and last at -1, per field. A varint is written in
 * characters of the alphabet below, 5 bits each, least significant first;
 * a character from the second half of the alphabet says more follow (no
 * quote, backslash or question mark, so a C string holds it unescaped).
 */
'use strict';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const MIN_COPY = 3;

function varint(out, v) {
    if (!(v >= 0 && v <= 0xffffffff && Number.isInteger(v))) throw new Error('varint out of range: ' + v);
    for (;;) {
        const low = v % 32;
        v = Math.floor(v / 32);
        if (!v) { out.push(ALPHABET[low]); return; }
        out.push(ALPHABET[32 + low]);
    }
}
function zigzag(v) { return v >= 0 ? 2 * v : -2 * v - 1; }

/* Codes X against P (both plain arrays; none: the NONE value). Appends to out. */
function field(out, X, P, none) {
    /* P's positions by the shape of the next four values (the differences,
     * which a constant add leaves alone): the candidates for a copy */
    const shape = (A, j) => {
        const s = [];
        for (let t = 0; t < 3; t++) {
            const a = A[j + t], b = A[j + t + 1];
            s.push(a === none ? 'n' : b === none ? 'm' : String(b - a));
        }
        return s.join(',');
    };
    const index = new Map(), selfIndex = new Map();
    for (let j = 0; j + 3 < P.length; j++) {
        const k = shape(P, j);
        if (!index.has(k)) index.set(k, []);
        const list = index.get(k);
        if (list.length < 8) list.push(j);
    }
    /* S: P, then X (only its positions before i may be read) */
    const S = (q) => (q < P.length ? P[q] : X[q - P.length]);
    let i = 0, sd = 0, add = 0, last = -1, indexed = 0;
    const lits = [];
    const flush = () => {
        if (!lits.length) return;
        varint(out, lits.length * 2);
        for (const v of lits) {
            if (v === none) { varint(out, 0); continue; }
            varint(out, zigzag(v - last - 1) + 1);
            last = v;
        }
        lits.length = 0;
    };
    const runLength = (j, a) => {
        let n = 0;
        while (i + n < X.length && j + n < P.length + i + n) {
            const p = S(j + n), x = X[i + n];
            if (p === none ? x !== none : (x === none || x !== p + a)) break;
            n++;
        }
        return n;
    };
    while (i < X.length) {
        let best = 0, bestJ = 0, bestAdd = 0;
        const consider = (j) => {
            if (j < 0 || j >= P.length + i) return;
            const a = (S(j) === none || X[i] === none) ? add : X[i] - S(j);
            const n = runLength(j, a);
            if (n > best) { best = n; bestJ = j; bestAdd = a; }
        };
        for (; indexed + 3 < i; indexed++) { /* X's positions, the newest 4 per shape */
            const k = shape(X, indexed);
            if (!selfIndex.has(k)) selfIndex.set(k, []);
            const list = selfIndex.get(k);
            if (list.length === 4) list.shift();
            list.push(P.length + indexed);
        }
        consider(i + sd);
        if (best < 16 && i + 3 < X.length) {
            const k = shape(X, i);
            for (const j of index.get(k) || []) consider(j);
            for (const j of selfIndex.get(k) || []) consider(j);
        }
        if (best >= MIN_COPY) {
            flush();
            varint(out, best * 2 + 1);
            varint(out, zigzag(bestJ - i - sd));
            varint(out, zigzag(bestAdd - add));
            sd = bestJ - i;
            add = bestAdd;
            i += best;
        } else {
            lits.push(X[i]);
            i++;
        }
    }
    flush();
}

/* The reference decoder (the generator checks every coded registry with it). */
function decodeField(text, pos, n, P, none) {
    const digit = (c) => ALPHABET.indexOf(c);
    const next = () => {
        let v = 0, scale = 1;
        for (;;) {
            const d = digit(text[pos.at++]);
            if (d < 0) throw new Error('bad character');
            v += (d % 32) * scale;
            if (d < 32) return v;
            scale *= 32;
        }
    };
    const unzig = (z) => (z % 2 ? -(z + 1) / 2 : z / 2);
    const out = [];
    let sd = 0, add = 0, last = -1;
    while (out.length < n) {
        const op = next(), len = Math.floor(op / 2);
        if (op % 2) {
            sd += unzig(next());
            add += unzig(next());
            for (let t = 0; t < len; t++) {
                const q = out.length + sd;
                if (q < 0 || q >= P.length + out.length) throw new Error('copy out of range');
                const p = q < P.length ? P[q] : out[q - P.length];
                out.push(p === none ? none : p + add);
            }
        } else {
            for (let t = 0; t < len; t++) {
                const c = next();
                if (c === 0) { out.push(none); continue; }
                last += 1 + unzig(c - 1);
                out.push(last);
            }
        }
    }
    return out;
}

module.exports = { field, decodeField, ALPHABET };
