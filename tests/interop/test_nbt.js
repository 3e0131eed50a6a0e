// test_nbt.js: mcchunk's NBT against an independent implementation,
// prismarine-nbt 2.8.0, through the `mcchunk nbt` tool.
//
// For real chunk NBT from the corpus (loose chunk files, chunks inflated from
// region files, Bedrock level.dat) and for synthetic trees with every tag
// type:
//   1. theirs -> ours: prismarine-nbt writes the tree in each encoding it has
//      (big = Java, anonymous big = Java network, little = Bedrock,
//      littleVarint = Bedrock network); mcchunk must parse it and, asked to
//      re-encode in the same encoding, give back the same bytes (so it read
//      every value and every key, in order).
//   2. ours -> theirs: mcchunk converts the Java bytes into each encoding (and
//      into gzip), and prismarine-nbt must parse what we wrote to a tree
//      deep-equal to the one it started from.
//
// Where prismarine-nbt deviates from the game, the test corrects for the
// oracle (never for us):
//   - it writes strings as plain UTF-8 in the Java encoding, where the game
//     writes modified UTF-8 (NUL as C0 80, characters above U+FFFF as
//     surrogate pairs). Java-encoded trees given to it therefore hold no NUL
//     and no supplementary characters; Bedrock ones do (there UTF-8 is right).
//     A separate check shows mcchunk refuses its 4-byte form in Java NBT with
//     a clear error.
//   - in its Bedrock network form, int/long array elements are fixed-width
//     little-endian; the game (and mcchunk) write each as a zigzag varint like
//     every other int/long of that form. Trees compared in that form therefore
//     carry no int/long arrays (they are covered by the other encodings).
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const zlib = require('zlib')
const { execFileSync, spawnSync } = require('child_process')
const nbt = require('prismarine-nbt')

const BIN = process.env.MCCHUNK_BIN
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '..', '..', '..', 'shared', 'corpus')
if (!BIN) {
  console.error('test_nbt: set MCCHUNK_BIN to the mcchunk tool')
  process.exit(1)
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-nbt-'))
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))

let counter = 0
function tmpFile (bytes) {
  const f = path.join(tmp, `f${counter++}`)
  fs.writeFileSync(f, bytes)
  return f
}

// Runs `mcchunk nbt IN <flags> --write OUT --format F [--compression C]`.
function reencode (bytes, inFlag, format, compression) {
  const input = tmpFile(bytes)
  const out = input + '.out'
  const args = ['nbt', input, ...(inFlag ? [inFlag] : []), '--write', out, '--format', format]
  if (compression) args.push('--compression', compression)
  const r = spawnSync(BIN, args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`mcchunk ${args.join(' ')} failed: ${r.stderr}`)
  return fs.readFileSync(out)
}

const encodings = [
  // prismarine proto/type, our input flag, our format name, nameless root
  { proto: 'big', type: 'nbt', flag: '--java', format: 'java' },
  { proto: 'big', type: 'anonymousNbt', flag: '--java-network', format: 'java-network' },
  { proto: 'little', type: 'nbt', flag: '--bedrock', format: 'bedrock' },
  { proto: 'littleVarint', type: 'nbt', flag: '--bedrock-network', format: 'bedrock-network' }
]

function theirWrite (tree, enc) {
  const value = enc.type === 'anonymousNbt' ? { type: tree.type, value: tree.value } : tree
  return nbt.protos[enc.proto].createPacketBuffer(enc.type, value)
}
function theirParse (bytes, enc) {
  return nbt.protos[enc.proto].parsePacketBuffer(enc.type, bytes).data
}

// Walks a prismarine tree; true when fn(tag) holds for some tag.
function some (tag, fn) {
  if (fn(tag)) return true
  if (tag.type === 'compound') return Object.values(tag.value).some(t => some(t, fn))
  if (tag.type === 'list') {
    const inner = tag.value.type
    return tag.value.value.some(v => some({ type: inner, value: v }, fn))
  }
  return false
}
const hasIntLongArrays = tree => some(tree, t => t.type === 'intArray' || t.type === 'longArray')

function stripName (tree) { return { type: tree.type, value: tree.value } }

// prismarine-nbt hands out a long as [hi, lo] (a SignedBigInt array) from
// its fixed-width protos and as a BigInt from the varint one: compare longs
// as decimal strings.
function longString (v) {
  if (typeof v === 'bigint') return v.toString()
  if (Array.isArray(v)) return ((BigInt(v[0]) << 32n) | BigInt(v[1] >>> 0)).toString()
  return String(v)
}
function normalize (type, value) {
  switch (type) {
    case 'long': return longString(value)
    case 'longArray': return value.map(longString)
    case 'compound': {
      const o = {}
      for (const k of Object.keys(value)) o[k] = { type: value[k].type, value: normalize(value[k].type, value[k].value) }
      return o
    }
    case 'list': return { type: value.type, value: value.value.map(v => normalize(value.type, v)) }
    default: return value
  }
}
const norm = tree => ({ type: tree.type, name: tree.name, value: normalize(tree.type, tree.value) })

// A copy without int/long arrays (for the Bedrock network form, see top).
function withoutArrays (tag) {
  if (tag.type === 'compound') {
    const o = {}
    for (const [k, v] of Object.entries(tag.value)) {
      if (v.type === 'intArray' || v.type === 'longArray') continue
      o[k] = withoutArrays(v)
    }
    return { ...tag, value: o }
  }
  if (tag.type === 'list') {
    const t = tag.value.type
    if (t === 'intArray' || t === 'longArray') return { type: 'list', value: { type: 'end', value: [] } }
    return { type: 'list', value: { type: t, value: tag.value.value.map(v => withoutArrays({ type: t, value: v }).value) } }
  }
  return tag
}

let checks = 0
function checkTree (label, tree) {
  if (hasIntLongArrays(tree)) checkVarint(label + ' (no int/long arrays)', withoutArrays(tree))
  checkAll(label, tree)
}

// Its varint proto writes longs only from BigInt values.
function bigintLongs (type, value) {
  switch (type) {
    case 'long': return BigInt(longString(value))
    case 'compound': {
      const o = {}
      for (const k of Object.keys(value)) o[k] = { type: value[k].type, value: bigintLongs(value[k].type, value[k].value) }
      return o
    }
    case 'list': return { type: value.type, value: value.value.map(v => bigintLongs(value.type, v)) }
    default: return value
  }
}

function checkVarint (label, tree) {
  const enc = encodings[3]
  const theirs = theirWrite({ ...tree, value: bigintLongs(tree.type, tree.value) }, enc)
  assert.ok(theirs.equals(reencode(theirs, enc.flag, enc.format)), `${label}: bedrock-network bytes differ`)
  const ours = reencode(theirWrite(tree, encodings[0]), '--java', enc.format)
  assert.deepStrictEqual(norm(theirParse(ours, enc)), norm(tree), `${label}: prismarine reads our bedrock-network differently`)
  checks += 2
}

function checkAll (label, tree) {
  for (const enc of encodings) {
    if (enc.proto === 'littleVarint' && hasIntLongArrays(tree)) continue // oracle deviation (see top)
    // 1. theirs -> ours -> same bytes
    const theirs = theirWrite(tree, enc)
    const ours = reencode(theirs, enc.flag, enc.format)
    assert.ok(theirs.equals(ours), `${label}: ${enc.format}: prismarine's bytes did not survive mcchunk (${theirs.length} vs ${ours.length} bytes)`)
    checks++
  }
  // 2. ours -> theirs: from Java bytes into every encoding
  const java = theirWrite(tree, encodings[0])
  for (const enc of encodings) {
    if (enc.proto === 'littleVarint' && hasIntLongArrays(tree)) continue
    const ours = reencode(java, '--java', enc.format)
    const back = theirParse(ours, enc)
    const want = enc.type === 'anonymousNbt' ? stripName(tree) : tree
    assert.deepStrictEqual(norm(enc.type === 'anonymousNbt' ? stripName(back) : back), norm(want), `${label}: prismarine reads our ${enc.format} differently`)
    checks++
  }
}

async function checkGzip (label, tree) {
  const java = theirWrite(tree, encodings[0])
  for (const c of ['gzip', 'zlib']) {
    const ours = reencode(java, '--java', 'java', c)
    const inflated = c === 'gzip' ? zlib.gunzipSync(ours) : zlib.inflateSync(ours)
    assert.ok(inflated.equals(java), `${label}: ${c} payload differs`)
    if (c === 'gzip') {
      const { parsed } = await nbt.parse(ours)
      assert.deepStrictEqual(norm(parsed), norm(tree), `${label}: prismarine reads our gzip file differently`)
    }
    checks++
  }
}

// ------------------------------------------------------------------ inputs

function regionChunks (file, limit) {
  const buf = fs.readFileSync(file)
  const out = []
  for (let i = 0; i < 1024 && out.length < limit; i++) {
    const e = buf.readUInt32BE(i * 4)
    if (!e) continue
    const off = (e >>> 8) * 4096
    const len = buf.readUInt32BE(off)
    const kind = buf[off + 4]
    const payload = buf.subarray(off + 5, off + 4 + len)
    if (kind === 2) out.push(zlib.inflateSync(payload))
    else if (kind === 1) out.push(zlib.gunzipSync(payload))
  }
  return out
}

function synthetic (supplementary) {
  const s = supplementary ? 'h\u00e9llo \u20ac \u{1F600} a\u0000b' : 'h\u00e9llo \u20ac'
  return nbt.comp({
    byte: nbt.byte(-5),
    short: nbt.short(-30000),
    int: nbt.int(-2147483648),
    long: nbt.long([-2147483648, 1]),
    float: nbt.float(0.5),
    double: nbt.double(-1e300),
    str: nbt.string(s),
    [s]: nbt.string('unicode key'),
    bytes: nbt.byteArray([1, -1, 127, -128]),
    ints: nbt.intArray([0, -1, 2147483647]),
    longs: nbt.longArray([[0, 1], [-1, -1]]),
    emptyList: nbt.list(),
    list: nbt.list(nbt.comp([{ a: nbt.int(1) }, { b: nbt.string('x') }])),
    lists: { type: 'list', value: { type: 'list', value: [{ type: 'short', value: [1, 2] }, { type: 'float', value: [1.5] }] } },
    nested: nbt.comp({ deeper: nbt.comp({ deepest: nbt.list(nbt.string(['p', 'q'])) }) })
  }, 'synthetic')
}

async function main () {
  const inputs = []
  const chunkDir = path.join(CORPUS, 'anvil', 'chunk-nbt')
  if (fs.existsSync(chunkDir)) {
    for (const f of fs.readdirSync(chunkDir).sort()) inputs.push({ label: f, bytes: fs.readFileSync(path.join(chunkDir, f)), proto: 'big' })
    for (const r of ['1.12.2/ppa-r.0.-1.mca', '1.16/ppa-r.0.-1.mca', '1.18.2/ppa-r.0.0.mca', '1.21.1/ppa-r.0.0.mca', '1.21.11/minestom-r.-1.-1.mca']) {
      const file = path.join(CORPUS, 'anvil', r)
      if (!fs.existsSync(file)) continue
      regionChunks(file, 3).forEach((bytes, i) => inputs.push({ label: `${r}#${i}`, bytes, proto: 'big' }))
    }
    const worlds = path.join(CORPUS, 'bedrock', 'leveldb-worlds')
    if (fs.existsSync(worlds)) {
      for (const w of fs.readdirSync(worlds).sort()) {
        const f = path.join(worlds, w, 'level.dat')
        if (!fs.existsSync(f)) continue
        const data = fs.readFileSync(f)
        inputs.push({ label: `${w}/level.dat`, bytes: data.subarray(8), proto: 'little', levelDat: data })
      }
    }
  } else {
    console.log('corpus absent: only synthetic trees')
  }

  for (const input of inputs) {
    const tree = theirParse(input.bytes, { proto: input.proto, type: 'nbt' })
    checkTree(input.label, tree)
    if (input.levelDat) {
      // the whole file, header included, survives mcchunk byte for byte
      const ours = reencode(input.levelDat, '', 'bedrock-level-dat')
      assert.ok(ours.equals(input.levelDat), `${input.label}: level.dat differs`)
      checks++
    }
  }
  const javaSafe = synthetic(false)
  checkTree('synthetic', javaSafe)
  await checkGzip('synthetic', javaSafe)
  if (inputs.length) await checkGzip(inputs[0].label, theirParse(inputs[0].bytes, { proto: 'big', type: 'nbt' }))

  // Supplementary characters and NUL: Bedrock encodings only (see top) ...
  const full = synthetic(true)
  for (const enc of encodings.slice(2)) {
    if (enc.proto === 'littleVarint') continue // has int/long arrays
    const theirs = theirWrite(full, enc)
    assert.ok(theirs.equals(reencode(theirs, enc.flag, enc.format)), `supplementary: ${enc.format}`)
    // ... and our Java form of it is modified UTF-8, which we read back equal
    const javaOurs = reencode(theirs, enc.flag, 'java')
    assert.ok(javaOurs.includes(Buffer.from([0xc0, 0x80])), 'NUL is C0 80 in Java NBT')
    assert.ok(javaOurs.includes(Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80])), 'U+1F600 is a surrogate pair in Java NBT')
    const again = reencode(javaOurs, '--java', enc.format)
    assert.ok(again.equals(theirs), 'Bedrock -> Java -> Bedrock keeps every string')
    checks += 2
  }
  // prismarine's plain-UTF-8 Java strings are refused with a clear error
  const bad = theirWrite(full, encodings[0])
  const r = spawnSync(BIN, ['nbt', tmpFile(bad), '--java'], { encoding: 'utf8' })
  assert.strictEqual(r.status, 1)
  assert.match(r.stderr, /not valid modified UTF-8 \(byte 0xf0\) at offset \d+/)
  checks++

  // The printers run on real data and JSON is valid JSON.
  if (inputs.length) {
    const f = tmpFile(inputs[0].bytes)
    JSON.parse(execFileSync(BIN, ['nbt', f, '--json']).toString())
    assert.ok(execFileSync(BIN, ['nbt', f, '--snbt', '--compact']).toString().startsWith('{'))
  }
  console.log(`test_nbt: ${checks} checks against prismarine-nbt passed (${inputs.length} corpus payloads)`)
}

main().catch(e => { console.error(e); process.exit(1) })
