// test_region_lz4.js: region compression 4 (the game's LZ4 framing, lz4-java's
// LZ4BlockOutputStream) checked against an independent reader and writer.
//
// The LZ4 block decoder, the XXH32 and the framing walker below are written
// here from the format descriptions (LZ4 block format; XXH32 spec; FORMATS.md
// §4.3), sharing no code with mcchunk. prismarine-nbt (pinned in
// package.json) writes the chunk NBT and reads it back.
//
// 1. `mcchunk chunk put … --compression lz4` writes a chunk bigger than one
//    64 KiB block with compressible and incompressible parts; we parse the
//    region header and record by hand, walk the block stream (magic, token =
//    method|level 6, lengths, XXH32 seed 0x9747B28C masked 0x0FFFFFFF, the
//    empty RAW terminator right at the record's end, zero sector padding),
//    decode it, and compare with the payload.
// 2. The other direction: we build a region with our own LZ4Block stream
//    (an LZ4 literal-and-match block, a stored block, the terminator) and
//    `mcchunk chunk get --raw` must return the bytes; with a wrong checksum
//    it must fail.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { execFileSync, spawnSync } = require('child_process')
// prismarine-nbt comes from `npm ci` in tests/interop; without it, the NBT is
// written by the small writer below and not parsed back (the LZ4 checks,
// which are the point of this test, need no package).
let nbt = null
try { nbt = require('prismarine-nbt') } catch { console.log('prismarine-nbt not installed: NBT parse-back checks skipped') }

const BIN = process.env.MCCHUNK_BIN
if (!BIN) {
  console.log('MCCHUNK_BIN not set: skipping')
  process.exit(0)
}

// ------------------------------------------------------------ XXH32
const P1 = 0x9E3779B1; const P2 = 0x85EBCA77; const P3 = 0xC2B2AE3D
const P4 = 0x27D4EB2F; const P5 = 0x165667B1
const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0
function xxh32 (buf, seed) {
  const len = buf.length
  let i = 0
  let h
  if (len >= 16) {
    const round = (v, x) => Math.imul(rotl((v + Math.imul(x, P2)) >>> 0, 13), P1) >>> 0
    let v1 = (seed + P1 + P2) >>> 0; let v2 = (seed + P2) >>> 0
    let v3 = seed >>> 0; let v4 = (seed - P1) >>> 0
    for (; i + 16 <= len; i += 16) {
      v1 = round(v1, buf.readUInt32LE(i)); v2 = round(v2, buf.readUInt32LE(i + 4))
      v3 = round(v3, buf.readUInt32LE(i + 8)); v4 = round(v4, buf.readUInt32LE(i + 12))
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0
  } else {
    h = (seed + P5) >>> 0
  }
  h = (h + len) >>> 0
  for (; i + 4 <= len; i += 4) h = Math.imul(rotl((h + Math.imul(buf.readUInt32LE(i), P3)) >>> 0, 17), P4) >>> 0
  for (; i < len; i++) h = Math.imul(rotl((h + Math.imul(buf[i], P5)) >>> 0, 11), P1) >>> 0
  h = (h ^ (h >>> 15)) >>> 0; h = Math.imul(h, P2) >>> 0
  h = (h ^ (h >>> 13)) >>> 0; h = Math.imul(h, P3) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}
// Published test vectors, so that a bug here cannot hide one in mcchunk.
assert.strictEqual(xxh32(Buffer.alloc(0), 0), 0x02CC5D05)
assert.strictEqual(xxh32(Buffer.from('abc'), 0), 0x32D153FF)
const SEED = 0x9747B28C
const check = (b) => (xxh32(b, SEED) & 0x0FFFFFFF) >>> 0

// ------------------------------------------------------------ LZ4 block
function lz4Decode (src, dlen) {
  const out = Buffer.alloc(dlen)
  let s = 0; let d = 0
  const more = () => { let n = 0; let b; do { assert(s < src.length, 'lz4: length runs off'); b = src[s++]; n += b } while (b === 255); return n }
  while (s < src.length) {
    const token = src[s++]
    let lit = token >> 4
    if (lit === 15) lit += more()
    assert(s + lit <= src.length && d + lit <= dlen, 'lz4: literals overflow')
    src.copy(out, d, s, s + lit); s += lit; d += lit
    if (s === src.length) break // the last sequence has literals only
    assert(s + 2 <= src.length, 'lz4: offset cut')
    const off = src[s] | (src[s + 1] << 8); s += 2
    let ml = token & 15
    if (ml === 15) ml += more()
    ml += 4
    assert(off > 0 && off <= d && d + ml <= dlen, 'lz4: bad match')
    for (let k = 0; k < ml; k++, d++) out[d] = out[d - off]
  }
  assert.strictEqual(d, dlen, 'lz4: decoded size')
  return out
}
// An LZ4 block of our own: literals, one match repeating them, end literals.
function lz4EncodeSimple (lits, repeat, tail) {
  const parts = []
  const lenBytes = (n) => { const b = []; while (n >= 255) { b.push(255); n -= 255 } b.push(n); return b }
  const ml = repeat - 4
  parts.push(Buffer.from([(Math.min(lits.length, 15) << 4) | Math.min(ml, 15)]))
  if (lits.length >= 15) parts.push(Buffer.from(lenBytes(lits.length - 15)))
  parts.push(lits, Buffer.from([lits.length & 255, lits.length >> 8]))
  if (ml >= 15) parts.push(Buffer.from(lenBytes(ml - 15)))
  parts.push(Buffer.from([Math.min(tail.length, 15) << 4]))
  if (tail.length >= 15) parts.push(Buffer.from(lenBytes(tail.length - 15)))
  parts.push(tail)
  return Buffer.concat(parts)
}

// ------------------------------------------------------------ framing
function walkStream (stream) {
  const blocks = []
  const out = []
  let p = 0
  for (;;) {
    assert(p + 21 <= stream.length, 'stream cut before a block header (no terminator?)')
    assert.strictEqual(stream.toString('latin1', p, p + 8), 'LZ4Block', 'magic')
    const token = stream[p + 8]
    const method = token & 0xF0; const level = token & 0x0F
    const clen = stream.readInt32LE(p + 9); const dlen = stream.readInt32LE(p + 13)
    const sum = stream.readUInt32LE(p + 17)
    assert.strictEqual(level, 6, 'level 6 = 64 KiB blocks')
    assert(method === 0x10 || method === 0x20, 'method')
    p += 21
    if (dlen === 0) {
      assert.strictEqual(method, 0x10, 'terminator is RAW')
      assert.strictEqual(clen, 0); assert.strictEqual(sum, 0)
      blocks.push({ method, clen, dlen, terminator: true })
      return { blocks, data: Buffer.concat(out), end: p }
    }
    assert(dlen <= 65536, 'block size')
    const payload = stream.subarray(p, p + clen)
    assert.strictEqual(payload.length, clen, 'payload cut')
    const data = method === 0x10 ? Buffer.from(payload) : lz4Decode(payload, dlen)
    if (method === 0x10) assert.strictEqual(clen, dlen)
    assert.strictEqual(check(data), sum, 'XXH32 checksum')
    blocks.push({ method, clen, dlen })
    out.push(data)
    p += clen
  }
}

function block (method, data, compressed) {
  const h = Buffer.alloc(21)
  h.write('LZ4Block', 0, 'latin1')
  h[8] = method | 6
  const body = compressed || data
  h.writeInt32LE(body.length, 9); h.writeInt32LE(data.length, 13)
  h.writeUInt32LE(data.length ? check(data) : 0, 17)
  return Buffer.concat([h, body])
}

// ------------------------------------------------------------ tests
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-lz4-'))
let failures = 0
function test (name, fn) {
  try { fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
}

function chunkNbt (x, z, data) {
  if (nbt) {
    return nbt.writeUncompressed({
      type: 'compound',
      name: '',
      value: {
        xPos: { type: 'int', value: x },
        zPos: { type: 'int', value: z },
        Status: { type: 'string', value: 'minecraft:full' },
        Data: { type: 'byteArray', value: Array.from(data, b => (b << 24) >> 24) }
      }
    }, 'big')
  }
  const named = (id, name, payload) => {
    const h = Buffer.alloc(3); h[0] = id; h.writeUInt16BE(name.length, 1)
    return Buffer.concat([h, Buffer.from(name, 'latin1'), payload])
  }
  const i32 = (v) => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b }
  const str = (t) => { const b = Buffer.alloc(2); b.writeUInt16BE(t.length); return Buffer.concat([b, Buffer.from(t, 'latin1')]) }
  return Buffer.concat([Buffer.from([10, 0, 0]), named(3, 'xPos', i32(x)), named(3, 'zPos', i32(z)),
    named(8, 'Status', str('minecraft:full')), named(7, 'Data', Buffer.concat([i32(data.length), data])),
    Buffer.from([0])])
}

test('mcchunk writes LZ4Block the way lz4-java frames it', () => {
  // 150 KB compressible + 80 KB noise: LZ4 and stored blocks, 4 data blocks.
  const data = Buffer.alloc(230000)
  for (let i = 0; i < 150000; i++) data[i] = 'minecraft:stone,'.charCodeAt(i % 16) ^ ((i >> 10) & 3)
  let seed = 12345
  for (let i = 150000; i < data.length; i++) { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; data[i] = seed >>> 24 }
  const payload = chunkNbt(33, 66, data)
  const nbtFile = path.join(tmp, 'chunk.nbt')
  fs.writeFileSync(nbtFile, payload)
  const region = path.join(tmp, 'r.1.2.mca')
  execFileSync(BIN, ['chunk', 'put', region, '33', '66', nbtFile, '--compression', 'lz4'])

  const file = fs.readFileSync(region)
  assert.strictEqual(file.length % 4096, 0, 'file padded to whole sectors')
  const idx = 1 + 2 * 32
  const loc = file.readUInt32BE(4 * idx)
  const off = loc >>> 8; const count = loc & 0xFF
  assert(off >= 2 && count >= 1)
  assert(file.readUInt32BE(4096 + 4 * idx) > 0, 'timestamp written')
  const rec = file.subarray(off * 4096, (off + count) * 4096)
  const length = rec.readUInt32BE(0)
  assert.strictEqual(rec[4], 4, 'compression id 4')
  assert.strictEqual(Math.ceil((length + 4) / 4096), count, 'sector count fits the length')
  const stream = rec.subarray(5, 4 + length)
  const walked = walkStream(stream)
  assert.strictEqual(walked.end, stream.length, 'terminator ends the record exactly')
  assert(rec.subarray(4 + length).every(b => b === 0), 'zero padding')
  const kinds = walked.blocks.filter(b => !b.terminator)
  assert.strictEqual(kinds.length, Math.ceil(payload.length / 65536))
  assert(kinds.some(b => b.method === 0x20), 'has LZ4 blocks')
  assert(kinds.some(b => b.method === 0x10), 'has stored blocks for noise')
  assert(walked.data.equals(payload), 'decoded payload equals what was put')
  if (nbt) {
    const parsed = nbt.parseUncompressed(walked.data, 'big')
    assert.strictEqual(parsed.value.xPos.value, 33)
    assert.strictEqual(parsed.value.zPos.value, 66)
  }
})

test('mcchunk reads an LZ4Block stream built here', () => {
  const part1 = Buffer.alloc(40000)
  for (let i = 0; i < part1.length; i++) part1[i] = (i * 7) & 0xFF
  const payload = chunkNbt(0, 0, part1)
  // Block 1: our own LZ4 (literals, one long match, literal tail) covering the
  // first bytes; block 2: the rest stored.
  const n1 = 300
  const first = payload.subarray(0, n1)
  const lits = first.subarray(0, 100)
  const tailStart = 100 + 150
  // Make bytes 100..249 repeat 0..99 then 0..49 so one match (offset 100) covers them.
  const b1 = Buffer.concat([lits, Buffer.alloc(150), first.subarray(tailStart)])
  for (let i = 100; i < 250; i++) b1[i] = b1[i - 100]
  const lz = lz4EncodeSimple(lits, 150, b1.subarray(tailStart))
  assert(lz4Decode(lz, n1).equals(b1), 'own encoder round trip')
  // The payload must be valid NBT, so patch our block's bytes back in: we
  // keep the payload as is and instead compress a payload whose first 300
  // bytes are b1 -- the NBT prefix (root, xPos, zPos, Status) is < 100 bytes
  // and Data's bytes follow, so replacing bytes 100..249 keeps it valid NBT.
  const full = Buffer.concat([b1, payload.subarray(n1)])
  if (nbt) nbt.parseUncompressed(full, 'big')
  const stream = Buffer.concat([block(0x20, b1, lz), block(0x10, full.subarray(n1)), block(0x10, Buffer.alloc(0))])

  function regionWith (s) {
    const length = s.length + 1
    const sectors = Math.ceil((length + 4) / 4096)
    const file = Buffer.alloc((2 + sectors) * 4096)
    file.writeUInt32BE((2 << 8) | sectors, 0)
    file.writeUInt32BE(1700000000, 4096)
    file.writeUInt32BE(length, 8192)
    file[8196] = 4
    s.copy(file, 8197)
    return file
  }
  const region = path.join(tmp, 'r.0.0.mca')
  fs.writeFileSync(region, regionWith(stream))
  const got = execFileSync(BIN, ['chunk', 'get', region, '0', '0', '--raw'], { maxBuffer: 1 << 26 })
  assert(got.equals(full), 'mcchunk decodes our stream')
  const ls = execFileSync(BIN, ['region', 'ls', region]).toString()
  assert.match(ls, /^0 0 2 \d+ \d+ lz4 1700000000$/m)

  const bad = Buffer.from(stream)
  bad[17] ^= 1 // first block's checksum
  fs.writeFileSync(region, regionWith(bad))
  const r = spawnSync(BIN, ['chunk', 'get', region, '0', '0', '--raw'])
  assert.strictEqual(r.status, 1, 'checksum mismatch is an error')
  assert.match(r.stderr.toString(), /checksum/)
  const v = spawnSync(BIN, ['region', 'verify', region])
  assert.strictEqual(v.status, 1, 'verify reports it')
})

fs.rmSync(tmp, { recursive: true, force: true })
if (failures) { console.log(`${failures} failed`); process.exit(1) }
console.log('all passed')
