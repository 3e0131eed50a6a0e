// test_region_cli.js: the `mcchunk region` and `mcchunk chunk` commands end to
// end, with exit codes (0 ok, 1 failure, 2 usage): chunk put/get in both
// world layouts and every compression, get as SNBT/JSON/raw, region
// info/ls/verify on good and damaged files, salvage and compact. The region
// bytes are checked here by hand (header entries, record heads), not through
// mcchunk.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')

const BIN = process.env.MCCHUNK_BIN
if (!BIN) {
  console.log('MCCHUNK_BIN not set: skipping')
  process.exit(0)
}

function run (...args) {
  const r = spawnSync(BIN, args, { maxBuffer: 1 << 26 })
  return { status: r.status, out: r.stdout, text: r.stdout.toString(), err: r.stderr.toString() }
}

// {xPos, zPos, Status, Data} as Java NBT, written here.
function chunkNbt (x, z, n) {
  const named = (id, name, payload) => {
    const h = Buffer.alloc(3); h[0] = id; h.writeUInt16BE(name.length, 1)
    return Buffer.concat([h, Buffer.from(name, 'latin1'), payload])
  }
  const i32 = (v) => { const b = Buffer.alloc(4); b.writeInt32BE(v); return b }
  const str = (t) => { const b = Buffer.alloc(2); b.writeUInt16BE(t.length); return Buffer.concat([b, Buffer.from(t, 'latin1')]) }
  const data = Buffer.alloc(n)
  for (let i = 0; i < n; i++) data[i] = (i * 31 + x) & 0xFF
  return Buffer.concat([Buffer.from([10, 0, 0]), named(3, 'xPos', i32(x)), named(3, 'zPos', i32(z)),
    named(8, 'Status', str('minecraft:full')), named(7, 'Data', Buffer.concat([i32(n), data])),
    Buffer.from([0])])
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-cli-'))
let failures = 0
function test (name, fn) {
  try { fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
}

test('chunk put/get through a <=1.21.11 world, every compression', () => {
  const world = path.join(tmp, 'old')
  fs.mkdirSync(path.join(world, 'DIM-1', 'region'), { recursive: true })
  const comps = { gzip: 1, zlib: 2, none: 3, lz4: 4 }
  let i = 0
  for (const [name, id] of Object.entries(comps)) {
    const x = -40 + i; const z = 70 + i; i++
    const file = path.join(tmp, `c${i}.nbt`)
    const nbt = chunkNbt(x, z, 5000 * i)
    fs.writeFileSync(file, nbt)
    let r = run('chunk', 'put', world, String(x), String(z), file, '--dimension', 'minecraft:the_nether', '--compression', name)
    assert.strictEqual(r.status, 0, r.err)
    const region = path.join(world, 'DIM-1', 'region', `r.${Math.floor(x / 32)}.${Math.floor(z / 32)}.mca`)
    const bytes = fs.readFileSync(region)
    const idx = (x & 31) + (z & 31) * 32
    const off = bytes.readUInt32BE(4 * idx) >>> 8
    assert.strictEqual(bytes[off * 4096 + 4], id, 'compression byte')
    r = run('chunk', 'get', world, String(x), String(z), '--dimension', 'nether', '--raw')
    assert.strictEqual(r.status, 0, r.err)
    assert(r.out.equals(nbt), 'raw round trip ' + name)
    r = run('chunk', 'get', world, String(x), String(z), '--dimension', 'the_nether', '--json')
    assert.strictEqual(r.status, 0, r.err)
    const j = JSON.parse(r.text)
    assert.strictEqual(j.xPos, x); assert.strictEqual(j.zPos, z)
    r = run('chunk', 'get', region, String(x), String(z))
    assert.strictEqual(r.status, 0, r.err)
    assert.match(r.text, /Status: "minecraft:full"/)
  }
  // Absent chunk: 1; absent region file: 1; overworld has no region folder: 1.
  assert.strictEqual(run('chunk', 'get', world, '-40', '71', '--dimension', 'the_nether').status, 1)
  assert.strictEqual(run('chunk', 'get', world, '5000', '5000', '--dimension', 'the_nether').status, 1)
  assert.strictEqual(run('chunk', 'get', world, '0', '0').status, 1)
})

test('chunk put into a 26.1 world lands in dimensions/minecraft/<dim>/<kind>', () => {
  const world = path.join(tmp, 'new')
  fs.mkdirSync(path.join(world, 'dimensions', 'minecraft', 'overworld', 'region'), { recursive: true })
  fs.mkdirSync(path.join(world, 'dimensions', 'minecraft', 'the_end', 'entities'), { recursive: true })
  const file = path.join(tmp, 'e.nbt')
  fs.writeFileSync(file, chunkNbt(3, -3, 10))
  assert.strictEqual(run('chunk', 'put', world, '3', '-3', file, '--dimension', 'end', '--kind', 'entities').status, 0)
  assert(fs.existsSync(path.join(world, 'dimensions', 'minecraft', 'the_end', 'entities', 'r.0.-1.mca')))
  assert.strictEqual(run('chunk', 'put', world, '3', '-3', file).status, 0)
  assert(fs.existsSync(path.join(world, 'dimensions', 'minecraft', 'overworld', 'region', 'r.0.-1.mca')))
})

test('region info/ls/verify/salvage/compact', () => {
  const region = path.join(tmp, 'old', 'DIM-1', 'region', 'r.-2.2.mca')
  let r = run('region', 'info', region)
  assert.strictEqual(r.status, 0, r.err)
  assert.match(r.text, /chunks +4/)
  assert.match(r.text, /gzip:1 zlib:1 none:1 lz4:1/)
  r = run('region', 'ls', region)
  const lines = r.text.trim().split('\n').filter((l) => !l.startsWith('#')) // after the header line
  assert.strictEqual(lines.length, 4)
  assert.match(lines[0], /^-40 70 2 \d+ \d+ gzip \d+$/)
  r = run('region', 'verify', region)
  assert.strictEqual(r.status, 0, r.text + r.err)

  // Damage one record's compressed bytes: verify fails, salvage keeps 3.
  const bytes = fs.readFileSync(region)
  const idx = (-39 & 31) + (71 & 31) * 32 // the zlib chunk
  const off = bytes.readUInt32BE(4 * idx) >>> 8
  bytes.fill(0x55, off * 4096 + 12, off * 4096 + 40)
  const broken = path.join(tmp, 'r.-2.2.mca')
  fs.writeFileSync(broken, bytes)
  r = run('region', 'verify', broken)
  assert.strictEqual(r.status, 1)
  assert.match(r.text, /chunk -39 71 \(zlib\)/) // absolute (local 25 7)
  const out = path.join(tmp, 'saved', 'r.-2.2.mca')
  fs.mkdirSync(path.dirname(out))
  r = run('region', 'salvage', broken, '-o', out)
  assert.strictEqual(r.status, 0, r.err)
  assert.match(r.text, /3 chunks saved .* 1 lost/)
  assert.strictEqual(run('region', 'verify', out).status, 0)
  assert.strictEqual(run('region', 'salvage', broken, '-o', out).status, 1, 'will not overwrite')
  // Compaction copies records byte for byte: the damaged one stays damaged
  // (nothing more is lost); a record it cannot even locate stops it.
  assert.strictEqual(run('region', 'compact', broken).status, 0)
  assert.strictEqual(run('region', 'verify', broken).status, 1)
  const lost = Buffer.from(bytes)
  lost.writeUInt32BE((5000 << 8) | 1, 0)
  fs.writeFileSync(broken, lost)
  const size = fs.statSync(broken).size
  r = run('region', 'compact', broken)
  assert.strictEqual(r.status, 1, 'compact refuses a record beyond the file')
  assert.match(r.err, /salvage/)
  assert.strictEqual(fs.statSync(broken).size, size, 'and leaves the file alone')

  // Rewrite a chunk bigger (leaves a hole), then compact shrinks the file.
  const big = path.join(tmp, 'big.nbt')
  fs.writeFileSync(big, chunkNbt(-40, 70, 60000))
  assert.strictEqual(run('chunk', 'put', out, '-40', '70', big, '--compression', 'none').status, 0)
  const before = fs.statSync(out).size
  r = run('region', 'compact', out)
  assert.strictEqual(r.status, 0, r.err)
  assert(fs.statSync(out).size < before, 'compaction removed the hole')
  assert.strictEqual(run('region', 'verify', out).status, 0)
  assert(run('chunk', 'get', out, '-40', '70', '--raw').out.equals(fs.readFileSync(big)))
})

test('usage errors exit 2, --help exits 0', () => {
  for (const args of [['region'], ['region', 'frob', 'x'], ['region', 'info'], ['region', 'salvage', 'x'],
    ['chunk'], ['chunk', 'get', 'x', '1'], ['chunk', 'get', 'x', 'a', 'b'],
    ['chunk', 'put', 'x', '1', '2', 'f', '--compression', 'zstd'], ['chunk', 'get', 'x', '1', '2', '--bogus']]) {
    assert.strictEqual(run(...args).status, 2, args.join(' '))
  }
  for (const args of [['region', '--help'], ['chunk', '--help'], ['chunk', 'put', '--help']]) {
    const r = run(...args)
    assert.strictEqual(r.status, 0)
    assert.match(r.text, /usage:/)
  }
  assert.strictEqual(run('region', 'info', path.join(tmp, 'nope.mca')).status, 1)
})

fs.rmSync(tmp, { recursive: true, force: true })
if (failures) { console.log(`${failures} failed`); process.exit(1) }
console.log('all passed')
