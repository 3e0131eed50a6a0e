// test_hostile_files.js: a world folder is data from elsewhere, and the
// built `mcchunk` must read nothing but the regular files inside it. Through
// the command (env MCCHUNK_BIN) and the server: FIFOs named like region,
// .mcc and level.dat files (each command exits within a second instead of
// blocking for ever), symbolic links from a region folder to files outside
// the world (refused, saying why, and nothing of the target printed or
// served), region folders that lead out of the world, and the temporaries a
// killed `chunk put` or `region compact` leaves (reported by verify, removed
// by the next write or compaction, and nothing else removed). Everything is
// made here in a temporary folder; no oracle package is needed.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync, execFileSync } = require('child_process')
const { startServer } = require('./server_util')

const BIN = process.env.MCCHUNK_BIN
if (!BIN) {
  console.log('MCCHUNK_BIN not set: skipping')
  process.exit(0)
}

// Runs the command with a hard timeout: a hang fails instead of blocking.
function run (...args) {
  const t0 = Date.now()
  const r = spawnSync(BIN, args, { maxBuffer: 1 << 26, timeout: 10000, killSignal: 'SIGKILL' })
  const ms = Date.now() - t0
  return { status: r.status, signal: r.signal, ms, out: r.stdout, text: r.stdout.toString(), err: r.stderr.toString() }
}

// "Within a second" of the work itself: the start-up of a process on a
// loaded machine (what `mcchunk version` takes) is not counted.
let startup = Infinity
for (let i = 0; i < 3; i++) startup = Math.min(startup, run('version').ms)

function refused (r, what, pattern) {
  assert.strictEqual(r.signal, null, `${what}: killed after ${r.ms} ms (it blocked)`)
  // A blocked open or read never returns: the 10 s kill above tells that;
  // this bound only says "promptly", with room for a loaded machine and a
  // sanitizer build (a second of slack is tight there)
  assert.ok(r.ms < 5000 + startup, `${what}: took ${r.ms} ms (start-up ${startup} ms)`)
  assert.strictEqual(r.status, 1, `${what}: exit ${r.status}\n${r.err}`)
  if (pattern) assert.match(r.err + r.text, pattern, what)
}

function named (id, name, payload) {
  const h = Buffer.alloc(3); h[0] = id; h.writeUInt16BE(name.length, 1)
  return Buffer.concat([h, Buffer.from(name, 'latin1'), payload])
}
function i32 (v) { const b = Buffer.alloc(4); b.writeInt32BE(v); return b }
function str (t) { const b = Buffer.alloc(2); b.writeUInt16BE(t.length); return Buffer.concat([b, Buffer.from(t, 'latin1')]) }
// {xPos, zPos, Status: full, Data: byte[n], Note: note} as uncompressed Java NBT.
function chunkNbt (x, z, n, note = '') {
  const data = Buffer.alloc(n)
  for (let i = 0; i < n; i++) data[i] = (i * 31 + x) & 0xFF
  return Buffer.concat([Buffer.from([10, 0, 0]), named(3, 'xPos', i32(x)), named(3, 'zPos', i32(z)),
    named(8, 'Status', str('minecraft:full')), named(8, 'Note', str(note)),
    named(7, 'Data', Buffer.concat([i32(n), data])), Buffer.from([0])])
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-hostile-'))
const SECRET = 'SECRET-' + process.pid + '-not-for-clients'
let failures = 0
async function test (name, fn) {
  try { await fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
}

// A world whose chunk 0 0 is external (a stub in r.0.0.mca, the data in
// c.0.0.mcc, stored uncompressed) and chunk 1 0 an ordinary record.
function makeWorld (name) {
  const world = path.join(tmp, name)
  fs.mkdirSync(path.join(world, 'region'), { recursive: true })
  const big = path.join(tmp, name + '-big.nbt')
  const small = path.join(tmp, name + '-small.nbt')
  fs.writeFileSync(big, chunkNbt(0, 0, 1100000))
  fs.writeFileSync(small, chunkNbt(1, 0, 100))
  let r = run('chunk', 'put', world, '0', '0', big, '--compression', 'none')
  assert.strictEqual(r.status, 0, r.err)
  r = run('chunk', 'put', world, '1', '0', small)
  assert.strictEqual(r.status, 0, r.err)
  const region = path.join(world, 'region')
  assert.ok(fs.existsSync(path.join(region, 'c.0.0.mcc')), 'chunk 0 0 is not external')
  return { world, region, rfile: path.join(region, 'r.0.0.mca'), mcc: path.join(region, 'c.0.0.mcc') }
}

// A file outside every world, holding the secret: as uncompressed chunk NBT
// (what the server would load and send) and as plain text.
const secretNbt = path.join(tmp, 'secret.nbt')
fs.writeFileSync(secretNbt, chunkNbt(0, 0, 64, SECRET))
const secretText = path.join(tmp, 'secret.txt')
fs.writeFileSync(secretText, SECRET + '\n')

function mkfifo (p) { execFileSync('mkfifo', [p]) }

async function main () {
  await test('a FIFO as c.0.0.mcc: chunk get and verify exit 1 at once, info does not block', () => {
    const w = makeWorld('fifo-mcc')
    fs.rmSync(w.mcc); mkfifo(w.mcc)
    refused(run('chunk', 'get', w.world, '0', '0', '--raw'), 'chunk get (world)', /c\.0\.0\.mcc: not a regular file/)
    refused(run('chunk', 'get', w.rfile, '0', '0'), 'chunk get (region file)', /not a regular file/)
    const v = run('region', 'verify', w.rfile)
    refused(v, 'region verify', /c\.0\.0\.mcc: not a regular file/)
    const i = run('region', 'info', w.rfile)
    assert.strictEqual(i.signal, null, 'region info blocked')
    assert.strictEqual(i.status, 0, i.err)
    // The other chunk still reads.
    assert.strictEqual(run('chunk', 'get', w.world, '1', '0').status, 0)
  })

  await test('a FIFO as the region file, and as level.dat: exit 1 at once', () => {
    const w = makeWorld('fifo-mca')
    fs.rmSync(w.rfile); mkfifo(w.rfile)
    for (const sub of ['info', 'ls', 'verify', 'compact']) { refused(run('region', sub, w.rfile), 'region ' + sub, /not a regular file/) }
    refused(run('chunk', 'get', w.world, '1', '0'), 'chunk get (world)', /not a regular file/)
    refused(run('chunk', 'get', w.rfile, '1', '0'), 'chunk get (region file)', /not a regular file/)
    refused(run('chunk', 'put', w.rfile, '1', '0', secretNbt), 'chunk put (region file)', /not a regular file/)
    const level = path.join(w.world, 'level.dat')
    mkfifo(level)
    refused(run('nbt', level), 'nbt level.dat', /not a regular file/)
  })

  await test('c.0.0.mcc linked to a file outside the world: refused, nothing of it printed', () => {
    const w = makeWorld('link-mcc')
    for (const target of [secretText, secretNbt, '/etc/passwd']) {
      fs.rmSync(w.mcc); fs.symlinkSync(target, w.mcc)
      for (const out of ['--raw', '--snbt', '--json']) {
        for (const where of [w.world, w.rfile]) {
          const r = run('chunk', 'get', where, '0', '0', out)
          refused(r, `chunk get ${out} -> ${target}`, /c\.0\.0\.mcc: a symbolic link, which is not followed/)
          assert.ok(!r.out.includes(SECRET) && !r.text.includes('root:'), 'the target was printed')
        }
      }
      const v = run('region', 'verify', w.rfile)
      refused(v, 'region verify', /symbolic link/)
      assert.ok(!v.text.includes(SECRET))
      refused(run('region', 'compact', w.rfile), 'region compact', /symbolic link/)
    }
    // Writing the chunk again replaces the link with the region's own file,
    // and the target is untouched.
    fs.rmSync(w.mcc); fs.symlinkSync(secretText, w.mcc)
    const big = path.join(tmp, 'link-mcc-big2.nbt')
    fs.writeFileSync(big, chunkNbt(0, 0, 1200000))
    const r = run('chunk', 'put', w.world, '0', '0', big, '--compression', 'none')
    assert.strictEqual(r.status, 0, r.err)
    assert.ok(!fs.lstatSync(w.mcc).isSymbolicLink())
    assert.strictEqual(fs.readFileSync(secretText, 'utf8'), SECRET + '\n')
    assert.deepStrictEqual(run('chunk', 'get', w.world, '0', '0', '--raw').out, fs.readFileSync(big))
  })

  await test('a region file linked from outside, a region folder leading out of the world: refused', () => {
    const outside = makeWorld('outside')
    const w = path.join(tmp, 'linked-file')
    fs.mkdirSync(path.join(w, 'region'), { recursive: true })
    fs.symlinkSync(outside.rfile, path.join(w, 'region', 'r.0.0.mca'))
    refused(run('chunk', 'get', w, '1', '0', '--raw'), 'chunk get through a linked r.0.0.mca', /r\.0\.0\.mca is a symbolic link/)
    refused(run('chunk', 'put', w, '1', '0', secretNbt), 'chunk put through a linked r.0.0.mca', /symbolic link/)
    // Whole-world commands read neither the link nor a file the game would
    // not read (a name other than r.<x>.<z>.mca), and say so on stderr.
    fs.copyFileSync(outside.rfile, path.join(w, 'region', 'mcaselector-r.0.0.mca'))
    const skipped = err => {
      assert.match(err, /skipping \S+\/region\/r\.0\.0\.mca: a symbolic link \(not followed\)/)
      assert.match(err, /skipping \S+\/region\/mcaselector-r\.0\.0\.mca: not a region file name/)
    }
    // With nothing else in it (no level.dat), the folder is not a world.
    let info = run('world', 'info', w, '--json')
    assert.strictEqual(info.status, 1, info.err)
    assert.strictEqual(info.out.length, 0)
    assert.match(info.err, /is not a Minecraft world/)
    skipped(info.err)
    assert.ok(!info.err.includes(SECRET))
    // With a region file of its own: that file alone is read.
    const own = path.join(tmp, 'own-40-40.nbt')
    fs.writeFileSync(own, chunkNbt(40, 40, 100))
    assert.strictEqual(run('chunk', 'put', w, '40', '40', own).status, 0)
    info = run('world', 'info', w, '--json')
    assert.strictEqual(info.status, 0, info.err)
    assert.strictEqual(JSON.parse(info.text).files.region.chunks, 1, info.text)
    skipped(info.err)
    assert.ok(!info.text.includes(SECRET) && !info.err.includes(SECRET))
    const w2 = path.join(tmp, 'linked-folder')
    fs.mkdirSync(w2)
    fs.symlinkSync(outside.region, path.join(w2, 'region'))
    const r = run('chunk', 'get', w2, '1', '0', '--raw')
    refused(r, 'chunk get through a region folder outside', /outside the world folder/)
    assert.strictEqual(r.out.length, 0)
    refused(run('chunk', 'put', w2, '2', '0', secretNbt), 'chunk put through a region folder outside', /outside the world folder/)
    // A link that stays inside the world is followed.
    const w3 = path.join(tmp, 'inside-link')
    fs.mkdirSync(path.join(w3, 'store'), { recursive: true })
    fs.copyFileSync(outside.rfile, path.join(w3, 'store', 'r.0.0.mca'))
    fs.symlinkSync('store', path.join(w3, 'region'))
    assert.strictEqual(run('chunk', 'get', w3, '1', '0', '--raw').status, 0)
  })

  await test('stale temporaries: verify reports them, the next put or compact removes only them', () => {
    const w = makeWorld('stale')
    const ours = ['c.5.7.mcc.tmp', 'c.31.31.mcc.tmp', 'r.0.0.mca.compact.tmp']
    // Not ours: another region's chunk, other suffixes, other files.
    const others = ['c.32.0.mcc.tmp', 'c.-1.0.mcc.tmp', 'c.5.7.mcc.tmp.keep', 'c.5.7.mcc', 'r.0.0.mca.tmp',
      'r.1.0.mca.compact.tmp', 'notes.tmp', 'x.c.5.7.mcc.tmp']
    const plant = () => {
      for (const n of ours) fs.writeFileSync(path.join(w.region, n), Buffer.alloc(5000, 7))
      for (const n of others) { if (!fs.existsSync(path.join(w.region, n))) fs.writeFileSync(path.join(w.region, n), 'keep') }
    }
    const check = (what) => {
      for (const n of ours) assert.ok(!fs.existsSync(path.join(w.region, n)), `${what}: ${n} left`)
      for (const n of others) assert.ok(fs.existsSync(path.join(w.region, n)), `${what}: ${n} removed`)
    }
    plant()
    const v = run('region', 'verify', w.rfile)
    assert.strictEqual(v.status, 1, v.text + v.err)
    for (const n of ours) assert.match(v.text, new RegExp('stale temporary \\S*' + n.replace(/\./g, '\\.') + ' \\(5000 bytes\\)'))
    for (const n of others) assert.ok(!v.text.includes(n + ' '), `verify reported ${n}`)
    assert.match(v.text, /3 problems, 2 chunks fine/)

    const small = path.join(tmp, 'stale-small.nbt')
    fs.writeFileSync(small, chunkNbt(3, 3, 200))
    let r = run('chunk', 'put', w.world, '3', '3', small)
    assert.strictEqual(r.status, 0, r.err)
    check('after chunk put')
    assert.match(run('region', 'verify', w.rfile).text, /ok, 3 chunks/)

    plant()
    r = run('region', 'compact', w.rfile)
    assert.strictEqual(r.status, 0, r.err)
    check('after region compact')
    assert.match(run('region', 'verify', w.rfile).text, /ok, 3 chunks/)
  })

  await test('serve --world: FIFOs do not block it, a linked .mcc outside the world is not served', async () => {
    for (const kind of ['fifo', 'link']) {
      const w = makeWorld('serve-' + kind)
      fs.rmSync(w.mcc)
      if (kind === 'fifo') {
        mkfifo(w.mcc)
        mkfifo(path.join(w.world, 'level.dat'))
      } else {
        // A chunk the server would load and send, if it followed the link.
        fs.symlinkSync(secretNbt, w.mcc)
      }
      const t0 = Date.now()
      const srv = await startServer(['--world', w.world], { exitAfter: 60 })
      try {
        assert.ok(Date.now() - t0 < 20000, 'server start took ' + (Date.now() - t0) + ' ms')
        assert.match(srv.log(), kind === 'fifo' ? /c\.0\.0\.mcc: not a regular file/ : /c\.0\.0\.mcc: a symbolic link/)
        // The spawn is on chunk 1 0: chunk 0 0 (the first one it tries) was not read.
        assert.match(srv.log(), /spawn 24 -?\d+ 8/)
      } finally {
        assert.strictEqual(await srv.stop(), 0)
      }
    }
  })

  fs.rmSync(tmp, { recursive: true, force: true })
  if (failures) {
    console.log(failures + ' failed')
    process.exit(1)
  }
}

main()
