#!/usr/bin/env node
// gen-bedrock-server-data.js: writes programs/mcchunk/server/data/bedrock_data.c,
// the facts of the Bedrock protocol that `mcchunk serve` needs per client
// version (programs/mcchunk/server/bedrock/protocol_data.h describes them):
//   - for each packet the server sends, per Bedrock release from 1.16.201 to
//     the newest minecraft-data knows, the packet's layout from that
//     release's data/bedrock/<version>/protocol.json, compiled into field
//     operations (srv_bop) that the server's layout writer walks: the field
//     list and types are minecraft-data's facts, the writer is ours;
//   - the packet ids, checked against protocol_data.h's constants in every
//     release (the script fails when one differs);
//   - the item palette of each release (items.json: names and runtime ids,
//     and from 1.26.30 each item's version and component NBT, kept as SNBT
//     text that the server parses and writes as network NBT), zlib-compressed.
//
//   node scripts/gen-bedrock-server-data.js
//
// Rerunning it with the pinned packages (tests/interop/package.json) and the
// same node reproduces the file byte for byte.
'use strict'
const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const root = path.resolve(__dirname, '..')
const nm = path.join(root, 'tests/interop/node_modules')
const mdRoot = path.join(nm, 'minecraft-data/minecraft-data/data')
const dataPaths = require(path.join(mdRoot, 'dataPaths.json')).bedrock
const mdVersion = require(path.join(nm, 'minecraft-data/package.json')).version
const headerPath = path.join(root, 'programs/mcchunk/server/bedrock/protocol_data.h')
const outPath = path.join(root, 'programs/mcchunk/server/data/bedrock_data.c')
const FIRST = '1.16.201'

function load (p, file) { return JSON.parse(fs.readFileSync(path.join(mdRoot, p, file + '.json'), 'utf8')) }
function cmp (a, b) {
  const x = a.split('.').map(Number); const y = b.split('.').map(Number)
  for (let i = 0; i < Math.max(x.length, y.length); i++) { const d = (x[i] || 0) - (y[i] || 0); if (d) return d }
  return 0
}

// ------------------------------------------------- the header's enums
const header = fs.readFileSync(headerPath, 'utf8')
function enumNames (tag, prefix) {
  const body = header.slice(header.indexOf('enum ' + tag + ' {'))
  const block = body.slice(0, body.indexOf('};'))
  return [...block.matchAll(new RegExp('\\b' + prefix + '([A-Z0-9_]+)', 'g'))].map(m => m[1])
}
const OPS = Object.fromEntries(enumNames('srv_bop_code', 'SRV_BOP_').map((n, i) => [n, i]))
const SENT = enumNames('srv_bedrock_sent', 'SRV_BSENT_').filter(n => n !== 'COUNT').map(n => n.toLowerCase())
const IDS = [...header.matchAll(/SRV_BPID_[A-Z0-9_]+ = (\d+),?\s*\/\* (\w+) \*\//g)].map(m => [m[2], Number(m[1])])

// ------------------------------------------------------------ releases
const releases = load('bedrock/common', 'protocolVersions')
  .filter(p => p.releaseType === 'release' && dataPaths[p.minecraftVersion] && dataPaths[p.minecraftVersion].protocol)
  .filter(p => cmp(p.minecraftVersion, FIRST) >= 0)
  .sort((a, b) => cmp(a.minecraftVersion, b.minecraftVersion))
const byProtocol = new Map() // protocol -> newest release
for (const r of releases) byProtocol.set(r.version, r.minecraftVersion)

// ---------------------------------------------------------- compiling
const names = ['']
const nameIndex = new Map([['', 0]])
function nameOf (s) {
  if (!nameIndex.has(s)) { nameIndex.set(s, names.length); names.push(s) }
  return nameIndex.get(s)
}

const LEAF = {
  void: 'VOID', bool: 'BOOL', u8: 'U8', i8: 'U8', u16: 'U16', i16: 'U16', lu16: 'LU16', li16: 'LU16',
  u32: 'U32', i32: 'U32', lu32: 'LU32', li32: 'LU32', u64: 'U64', i64: 'U64', lu64: 'LU64', li64: 'LU64',
  f32: 'F32', lf32: 'LF32', f64: 'F64', lf64: 'LF64', varint: 'VARINT', varint64: 'VARINT64',
  zigzag32: 'ZIGZAG32', zigzag64: 'ZIGZAG64', uuid: 'UUID', nbt: 'NBT', lnbt: 'LNBT', restBuffer: 'REST'
}

function leafOp (types, t) {
  // a count or length type: a leaf, possibly through a named alias
  while (typeof t === 'string' && !LEAF[t] && types[t] && types[t] !== 'native') t = types[t]
  if (typeof t === 'string' && LEAF[t]) return OPS[LEAF[t]]
  throw new Error('not a leaf count type: ' + JSON.stringify(t))
}

// The type of field `name` in a container's field list (for switch cases).
function mapperOf (types, fields, name) {
  const f = fields && fields.find(x => x.name === name)
  if (!f) return null
  let t = f.type
  while (typeof t === 'string' && types[t] && types[t] !== 'native') t = types[t]
  if (Array.isArray(t) && t[0] === 'mapper') return t[1].mappings
  if (t === 'bool') return { 0: 'false', 1: 'true' }
  return null
}

function caseValue (key, mappings) {
  if (mappings) {
    for (const [num, nm2] of Object.entries(mappings)) if (nm2 === key) return Number(num)
  }
  if (key === 'true') return 1
  if (key === 'false') return 0
  if (/^-?\d+$/.test(key)) return Number(key)
  throw new Error('switch case ' + key + ' has no numeric value')
}

// Appends the ops of type t (field `name`) to out. scopes: the field lists
// of the enclosing containers, innermost last. merged: a container whose
// fields belong to the enclosing one (an anonymous field, a switch case).
function compile (types, t, name, out, scopes, depth, merged = false) {
  if (depth > 64) throw new Error('type nesting too deep at ' + name)
  const n = nameOf(name || '')
  if (typeof t === 'string') {
    if (LEAF[t]) { out.push({ op: OPS[LEAF[t]], arg: 0, name: n, end: 0, value: 0 }); return }
    if (types[t] && types[t] !== 'native') return compile(types, types[t], name, out, scopes, depth + 1, merged)
    throw new Error('unknown type ' + t + ' at ' + name)
  }
  const [k, a] = t
  const at = out.length
  const op = (code, arg = 0, value = 0) => { out.push({ op: OPS[code], arg, name: n, end: 0, value }); return out[out.length - 1] }
  switch (k) {
    case 'container': {
      const o = op('CONTAINER', merged ? 1 : 0)
      const inner = merged ? [...scopes.slice(0, -1), [...(scopes[scopes.length - 1] || []), ...a]] : [...scopes, a]
      for (const f of a) compile(types, f.type, f.anon ? '' : f.name, out, inner, depth + 1, !!f.anon)
      o.end = out.length
      return
    }
    case 'pstring':
      op('STRING', leafOp(types, a.countType)); return
    case 'buffer':
      if (a.countType) op('BYTES', leafOp(types, a.countType))
      else op('BYTES', OPS.VOID, a.count)
      return
    case 'mapper': case 'bitflags':
      return compile(types, a.type, name, out, scopes, depth + 1, merged)
    case 'array': {
      const o = a.countType ? op('ARRAY', leafOp(types, a.countType)) : op('ARRAY', OPS.VOID, a.count)
      compile(types, a.type, '', out, scopes, depth + 1)
      o.end = out.length
      return
    }
    case 'option': {
      const o = op('OPTION')
      compile(types, a, '', out, scopes, depth + 1)
      o.end = out.length
      return
    }
    case 'encapsulated': {
      const o = op('ENCAP', leafOp(types, a.lengthType))
      compile(types, a.type, '', out, scopes, depth + 1)
      o.end = out.length
      return
    }
    case 'switch': {
      let target = a.compareTo; let up = 0
      while (target.startsWith('../')) { target = target.slice(3); up++ }
      if (target.includes('/') || target.startsWith('$')) throw new Error('switch on ' + a.compareTo + ' at ' + name)
      const mappings = mapperOf(types, scopes[scopes.length - 1 - up], target)
      const o = op('SWITCH', up, nameOf(target))
      for (const [key, ct] of Object.entries(a.fields)) {
        const c = { op: OPS.CASE, arg: 0, name: 0, end: 0, value: caseValue(key, mappings) }
        out.push(c)
        compile(types, ct, '', out, scopes, depth + 1, true)
        c.end = out.length
      }
      const d = { op: OPS.DEFAULT, arg: 0, name: 0, end: 0, value: 0 }
      out.push(d)
      compile(types, a.default || 'void', '', out, scopes, depth + 1, true)
      d.end = out.length
      o.end = out.length
      return
    }
    default:
      throw new Error('unsupported type ' + k + ' at ' + name + ' (' + at + ')')
  }
}

// All programs in one array, each field's ops in the order compile() gives
// them. A run of sibling fields (SHARED_MIN ops or more) that stands already
// in the array as siblings, in this layout or an earlier one, is written
// once: its later places hold a REF op to the first (never the CASE and
// DEFAULT ops that their SWITCH walks in place). A packet's program is the
// index of its root op; identical layouts share one.
const SHARED_MIN = 4
const ops = []
const programIndex = new Map()
const framing = o => o.op >= OPS.CONTAINER
const keyAt = [] // per op: the JSONs of the fields it stands for (a REF: several)
const parentOf = [] // per op: its framing op (-1: a packet's root)
const byKey = new Map() // a field's JSON -> the ops that stand for it
const nextSibling = i => framing(ops[i]) ? ops[i].end : i + 1
function siblingsEnd (i) {
  const p = parentOf[i]
  if (p < 0) return nextSibling(i)
  return ops[p].end || ops.length // the parent's end, or it is still open
}
function fieldKey (out, at) {
  const extent = framing(out[at]) ? out[at].end : at + 1
  return JSON.stringify(out.slice(at, extent).map(x => ({ ...x, end: x.end ? x.end - at : 0 })))
}
// Appends the ops of out[at] (ends relative to out) under parent.
function emit (out, at, parent) {
  const o = out[at]
  const here = ops.length
  ops.push({ ...o, end: 0 })
  const key = fieldKey(out, at)
  keyAt.push([key])
  parentOf.push(parent)
  if (o.op !== OPS.CASE && o.op !== OPS.DEFAULT) {
    if (!byKey.has(key)) byKey.set(key, [])
    byKey.get(key).push(here)
  }
  if (!framing(o)) return at + 1
  const kids = []
  for (let i = at + 1; i < o.end; i = framing(out[i]) ? out[i].end : i + 1) kids.push({ at: i, key: fieldKey(out, i), size: (framing(out[i]) ? out[i].end : i + 1) - i })
  for (let k = 0; k < kids.length;) {
    let best = null
    if (o.op !== OPS.SWITCH) {
      for (const p of byKey.get(kids[k].key) || []) {
        const stop = siblingsEnd(p)
        let q = p; let n = 0; let size = 0
        // whole ops only: a REF's fields all match or the run ends before it
        while (q < stop && keyAt[q].every((key, j) => k + n + j < kids.length && kids[k + n + j].key === key)) {
          for (let j = 0; j < keyAt[q].length; j++) size += kids[k + n + j].size
          n += keyAt[q].length
          q = nextSibling(q)
        }
        if (!best || size > best.size) best = { p, q, n, size }
      }
    }
    if (best && best.size >= SHARED_MIN) {
      ops.push({ op: OPS.REF, arg: 0, name: 0, end: best.p, value: best.q })
      keyAt.push(kids.slice(k, k + best.n).map(x => x.key))
      byKey.get(kids[k].key).push(ops.length - 1) // a run may start at a REF too
      parentOf.push(here)
      k += best.n
    } else {
      emit(out, kids[k].at, here)
      k++
    }
  }
  ops[here].end = ops.length
  return o.end
}
// The ops of [at, stop) with every REF replaced by what it runs: the check
// that the shared table says what compile() said.
function expand (at, stop, acc = []) {
  for (let i = at; i < stop;) {
    const o = ops[i]
    if (o.op === OPS.REF) { expand(o.end, o.value, acc); i++; continue }
    const mine = acc.length
    acc.push({ ...o, end: 0 })
    if (!framing(o)) { i++; continue }
    expand(i + 1, o.end, acc)
    acc[mine].end = acc.length
    i = o.end
  }
  return acc
}
function program (types, packet) {
  const t = types['packet_' + packet]
  if (!t) return -1
  const out = []
  compile(types, t, '', out, [], 0)
  const key = JSON.stringify(out)
  if (!programIndex.has(key)) {
    const base = ops.length
    emit(out, 0, -1)
    if (JSON.stringify(expand(base, ops[base].end)) !== key) throw new Error('packet ' + packet + ': the shared ops differ')
    if (ops[base].op !== OPS.CONTAINER) throw new Error('packet ' + packet + ' is not a container')
    programIndex.set(key, base)
  }
  return programIndex.get(key)
}

// ---------------------------------------------------------------- items
function snbt (tag) {
  const v = tag.value
  switch (tag.type) {
    case 'compound': return '{' + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ':' + snbt(x)).join(',') + '}'
    case 'list': return '[' + (v.value || []).map(x => snbt({ type: v.type, value: x })).join(',') + ']'
    case 'string': return JSON.stringify(v)
    case 'byte': return v + 'b'
    case 'short': return v + 's'
    case 'int': return String(v)
    case 'long': return (Array.isArray(v) ? (BigInt(v[0]) << 32n | BigInt(v[1] >>> 0)).toString() : String(v)) + 'L'
    case 'float': return v + 'f'
    case 'double': return v + 'd'
    case 'byteArray': return '[B;' + v.map(x => x + 'b').join(',') + ']'
    case 'intArray': return '[I;' + v.join(',') + ']'
    case 'longArray': return '[L;' + v.map(x => (Array.isArray(x) ? (BigInt(x[0]) << 32n | BigInt(x[1] >>> 0)).toString() : String(x)) + 'L').join(',') + ']'
    default: throw new Error('nbt type ' + tag.type)
  }
}

const itemTables = []
const itemTableIndex = new Map()
const itemNames = []; const itemNameIndex = new Map()
const snbts = []; const snbtIndex = new Map()
const VERSIONS = { legacy: 0, data_driven: 1, none: 2 }
function itemTable (p) {
  if (!itemTableIndex.has(p)) {
    // minecraft-data's 1.18.11 and 1.18.30 items give a runtime id to two
    // names (a legacy block name beside the item: pistonArmCollision,
    // movingBlock, reeds, concretePowder, stone_slab); a palette's ids must
    // be unique: the first one listed keeps it
    const taken = new Set()
    const items = load(p, 'items').filter(it => !taken.has(it.id) && taken.add(it.id)).sort((a, b) => a.id - b.id)
    const rows = items.map(it => {
      const nm2 = it.name.includes(':') ? it.name : 'minecraft:' + it.name
      if (!itemNameIndex.has(nm2)) { itemNameIndex.set(nm2, itemNames.length); itemNames.push(nm2) }
      let text = null
      if (it.nbt && Object.keys(it.nbt.value || {}).length) {
        text = snbt(it.nbt)
        if (!snbtIndex.has(text)) { snbtIndex.set(text, snbts.length); snbts.push(text) }
      }
      return {
        name: itemNameIndex.get(nm2),
        id: it.id,
        component: it.nbt && it.version === 'data_driven' ? 1 : 0,
        version: it.version in VERSIONS ? VERSIONS[it.version] + 1 : 0,
        snbt: text === null ? -1 : snbtIndex.get(text)
      }
    })
    itemTableIndex.set(p, itemTables.length)
    itemTables.push(rows)
  }
  return itemTableIndex.get(p)
}

function varint (out, v) {
  v >>>= 0
  while (v >= 0x80) { out.push((v & 0x7f) | 0x80); v >>>= 7 }
  out.push(v)
}
function zigzag (v) { return ((v << 1) ^ (v >> 31)) >>> 0 }
function putString (out, s) {
  const b = Buffer.from(s, 'utf8')
  varint(out, b.length)
  for (const x of b) out.push(x)
}

// ------------------------------------------------------------- versions
const versions = []
let firstItems = null
for (const [protocol, release] of [...byProtocol].sort((a, b) => a[0] - b[0])) {
  const dp = dataPaths[release]
  const types = load(dp.protocol, 'protocol').types
  const mapping = types.mcpe_packet[1][0].type[1].mappings
  for (const [pname, id] of IDS) {
    const have = Object.entries(mapping).find(([, n]) => n === pname)
    if (have && Number(have[0]) !== id) throw new Error(`${release}: ${pname} is ${have[0]}, the header says ${id}`)
  }
  const programs = SENT.map(p => program(types, p))
  let items = -1; let itemsFrom = null
  if (dp.items) { items = itemTable(dp.items); itemsFrom = dp.items.split('/')[1] }
  if (items >= 0 && firstItems === null) firstItems = { items, itemsFrom }
  versions.push({ protocol, release, programs, items, itemsFrom })
}
// releases older than the first items.json take the oldest palette
for (const v of versions) if (v.items < 0 && firstItems) Object.assign(v, firstItems)

// ------------------------------------------------------------- writing
const raw = []
varint(raw, itemTables.length)
for (const t of itemTables) {
  varint(raw, t.length)
  let prev = 0
  for (const r of t) {
    varint(raw, r.name)
    varint(raw, zigzag(r.id - prev))
    prev = r.id
    raw.push(r.component | (r.version << 1) | (r.snbt >= 0 ? 8 : 0))
    if (r.snbt >= 0) varint(raw, r.snbt)
  }
}
varint(raw, itemNames.length)
for (const s of itemNames) putString(raw, s)
varint(raw, snbts.length)
for (const s of snbts) putString(raw, s)
const z = zlib.deflateSync(Buffer.from(raw), { level: 9 })

function bytes (buf) {
  const lines = []
  for (let i = 0; i < buf.length; i += 24) lines.push('    ' + [...buf.slice(i, i + 24)].join(', ') + ',')
  return lines.join('\n')
}
const opName = Object.fromEntries(Object.entries(OPS).map(([k, v]) => [v, 'SRV_BOP_' + k]))
let c = `/*
 * GENERATED FILE: do not edit.
 * Made by scripts/gen-bedrock-server-data.js from minecraft-data ${mdVersion}
 * (data/bedrock/<version>/protocol.json and items.json): the layouts of the
 * packets the Bedrock server sends, per release ${versions[0].release} to ${versions[versions.length - 1].release},
 * and the item palettes (see server/bedrock/protocol_data.h).
 */
#include "server/bedrock/protocol_data.h"

const char *const srv_bedrock_field_names[] = {
${names.map(s => '    ' + JSON.stringify(s) + ',').join('\n')}
};

/* ${ops.length} operations, ${programIndex.size} distinct packet layouts */
const srv_bop srv_bedrock_ops[] = {
${ops.map(o => `    {${opName[o.op]}, ${o.arg}, ${o.name}, ${o.end}, ${o.value}},`).join('\n')}
};

const srv_bedrock_version srv_bedrock_versions[] = {
${versions.map(v => `    {${v.protocol}, "${v.release}", {${v.programs.join(', ')}}, ${v.items}, ${v.itemsFrom ? '"' + v.itemsFrom + '"' : 'NULL'}},`).join('\n')}
};
const unsigned srv_bedrock_version_count = ${versions.length};

/* ${itemTables.length} item palettes, ${itemNames.length} names, ${snbts.length} component texts */
const uint32_t srv_bedrock_items_z_len = ${z.length}, srv_bedrock_items_raw_len = ${raw.length};
const uint8_t srv_bedrock_items_z[] = {
${bytes(z)}
};
`
c = c.replace('#include "server/bedrock/protocol_data.h"\n', '#include <stddef.h>\n\n#include "server/bedrock/protocol_data.h"\n')
fs.writeFileSync(outPath, c)
console.log(`${versions.length} protocols (${versions[0].release}..${versions[versions.length - 1].release}), ` +
  `${programIndex.size} layouts in ${ops.length} ops, ${names.length} names; ` +
  `${itemTables.length} item palettes (${raw.length} bytes, ${z.length} compressed)`)
