// test_cli.js: the `mcchunk` command as a person meets it (issue 19): no
// silent wrong answers, the exit codes the README states (0 ok, 1 failed
// work, 2 bad usage), nothing on stdout for a failed request, messages that
// say what to do, and a README command table that matches the commands.
//
// It runs the built binary (MCCHUNK_BIN) on data it makes itself: chunk NBT
// written from SNBT by `mcchunk nbt`, region files by `mcchunk chunk put`,
// the built-in world of `mcchunk generate`, Bedrock packets of `mcchunk
// bedrock generate`. Corpus cases (MCCHUNK_CORPUS) skip without it. No npm
// package is needed. Each case checks the exit status, that stdout is empty
// when the request failed, and the key words of the message.
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
const SRC = path.join(__dirname, '..', '..')
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(SRC, '..', 'shared', 'corpus')

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-cli19-'))
const p = (...a) => path.join(tmp, ...a)

function run (...args) {
  const r = spawnSync(BIN, args, { maxBuffer: 1 << 26, cwd: tmp, timeout: 60000 })
  const err = r.stderr.toString()
  // (a sanitizer build reports on stderr and exits 1, which a failure case would accept)
  assert.doesNotMatch(err, /AddressSanitizer|LeakSanitizer|runtime error:/, args.join(' '))
  return { status: r.status, out: r.stdout, text: r.stdout.toString(), err }
}

// A request that fails: the status, nothing on stdout, and every pattern in
// the message on stderr.
function fails (status, args, ...patterns) {
  const r = run(...args)
  const what = args.join(' ')
  assert.strictEqual(r.status, status, `${what}: status ${r.status}, want ${status}; stderr: ${r.err}`)
  assert.strictEqual(r.text, '', `${what}: stdout must be empty, got: ${r.text.slice(0, 200)}`)
  for (const re of patterns) assert.match(r.err, re, `${what}: stderr ${JSON.stringify(r.err)}`)
  return r
}

function ok (args) {
  const r = run(...args)
  assert.strictEqual(r.status, 0, `${args.join(' ')}: status ${r.status}; stderr: ${r.err}`)
  return r
}

let failures = 0
function test (name, fn) {
  try { fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
}

// A 1.21 chunk at (x, z): stone in section -1 (y -16..-1), dirt in section 0.
function chunkSnbt (x, z, level) {
  const sections = '[{Y:-1b,block_states:{palette:[{Name:"minecraft:stone"}]},biomes:{palette:["minecraft:plains"]}},' +
    '{Y:0b,block_states:{palette:[{Name:"minecraft:dirt"}]},biomes:{palette:["minecraft:plains"]}}]'
  if (level) return `{DataVersion:1343,Level:{xPos:${x},zPos:${z},Sections:[]}}`
  return `{DataVersion:3953,xPos:${x},zPos:${z},yPos:-4,Status:"minecraft:full",sections:${sections}}`
}
function chunkFile (name, x, z, level) {
  fs.writeFileSync(p(name + '.snbt'), chunkSnbt(x, z, level))
  ok(['nbt', p(name + '.snbt'), '--from-snbt', '--write', p(name + '.nbt'), '--format', 'java'])
  return p(name + '.nbt')
}

const REGION = p('r.-1.-1.mca')
chunkFile('c11', -1, -1)
chunkFile('c22', -2, -2)
chunkFile('c3232', -32, -32)
ok(['chunk', 'put', REGION, '-1', '-1', p('c11.nbt')])
ok(['chunk', 'put', REGION, '-2', '-2', p('c22.nbt')])
const WORLD = p('world')
fs.mkdirSync(path.join(WORLD, 'region'), { recursive: true })
chunkFile('c4040', 40, 40)
ok(['chunk', 'put', WORLD, '40', '40', p('c4040.nbt')])

// Reads the sector of a chunk's record from a region header.
function recordOffset (bytes, lx, lz) { return (bytes.readUInt32BE(4 * (lx + 32 * lz)) >>> 8) * 4096 }

// ------------------------------------------------ 1. chunk coordinates

test('chunk commands refuse coordinates of another region (no wrap modulo 32)', () => {
  const notIn = /chunk 999 999 is not in r\.-1\.-1\.mca/
  fails(1, ['chunk', 'blocks', REGION, '999', '999'], notIn, /r\.31\.31\.mca/)
  fails(1, ['chunk', 'convert', REGION, '999', '999', '--to-version', '1.20.4', '-o', p('conv.nbt')], notIn)
  fails(1, ['chunk', 'get', REGION, '999', '999'], notIn)
  fails(1, ['packet', 'encode', '--version', '1.21.4', '--from', REGION, '--chunk', '999,999', '-o', p('pk.bin')], notIn)
  assert(!fs.existsSync(p('pk.bin')) && !fs.existsSync(p('conv.nbt')), 'nothing written')
  // -1 -1 is local 31 31; 31 31 itself is not in this region
  fails(1, ['chunk', 'blocks', REGION, '31', '31'], /chunk 31 31 is not in r\.-1\.-1\.mca/)
  const before = fs.readFileSync(REGION)
  fails(1, ['chunk', 'put', REGION, '5', '5', p('c11.nbt')], /chunk 5 5 is not in/)
  assert(fs.readFileSync(REGION).equals(before), 'put left the file alone')
  // the right coordinates work, and print absolute ones
  const r = ok(['chunk', 'blocks', REGION, '-1', '-1'])
  assert.match(r.text, /^-16 -16 -16 minecraft:stone$/m)
})

test('a world folder reads the region that holds the chunk', () => {
  assert(fs.existsSync(path.join(WORLD, 'region', 'r.1.1.mca')))
  const r = ok(['chunk', 'blocks', WORLD, '40', '40'])
  assert.match(r.text, /^640 -16 640 minecraft:stone$/m)
  ok(['packet', 'encode', '--version', '1.21.4', '--from', WORLD, '--chunk', '40,40', '-o', p('w.bin')])
  fails(1, ['chunk', 'blocks', WORLD, '41', '40'], /chunk 41 40 is absent/)
  fails(1, ['chunk', 'blocks', WORLD, '4000', '40'], /chunk 4000 40 is absent/, /r\.125\.1\.mca/)
})

test('coordinates outside +-1875000 chunks or not integers are usage errors everywhere', () => {
  const range = /-1875000\.\.1875000/
  for (const c of ['99999999', '2147483647', '9999999999', '1875001', '-1875001', '1.5', '12abc', 'x', '']) {
    fails(2, ['chunk', 'blocks', REGION, c, '-1'], range)
    fails(2, ['chunk', 'get', REGION, '-1', c], range)
    fails(2, ['generate', c, '0'], range)
  }
  fails(2, ['chunk', 'put', REGION, '99999999', '0', p('c11.nbt')], range)
  fails(2, ['chunk', 'convert', REGION, '-1', '99999999', '--to-version', '1.20.4', '-o', p('x.nbt')], range)
  fails(2, ['packet', 'encode', '--version', '1.21.4', '--from', REGION, '--chunk', '99999999,99999999', '-o', p('x.bin')], range, /--chunk/)
  fails(2, ['packet', 'encode', '--version', '1.21.4', '--from', REGION, '--chunk', '5', '-o', p('x.bin')], /X,Z/)
  fails(2, ['bedrock', 'generate', '--version', '1.21.60', '--out', tmp, '--java', REGION, '--chunk', '2147483647', '0'], range)
  // the edge of the world is fine
  const r = ok(['generate', '1875000', '-1875000'])
  assert.match(r.text.split('\n')[0], /^30000000 -64 -30000000 /)
})

test('one number parser: whole string, range, the option named', () => {
  fails(2, ['generate', '0', '0', '--seed', 'banana'], /--seed/, /not 'banana'/)
  fails(2, ['generate', '0', '0', '--seed', '12abc'], /--seed/, /not '12abc'/)
  fails(2, ['generate', '0', '0', '--seed', '99999999999999999999'], /--seed/)
  const a = ok(['generate', '0', '0', '--seed', '12']).text
  assert.notStrictEqual(a, ok(['generate', '0', '0', '--seed', '0']).text, 'the seed counts')
  ok(['generate', '0', '0', '--seed', '-5'])
  fails(2, ['chunk', 'blocks', REGION, '-1', '-1', '--every', '0'], /--every/, /1\.\./)
  fails(2, ['chunk', 'blocks', REGION, '-1', '-1', '--every', '3x'], /--every/)
  fails(2, ['chunk', 'blocks', REGION, '-1', '-1', '--every'], /--every/)
  fails(2, ['packet', 'encode', '--version', '1.21.4', '--generated', '7x', '-o', p('g.bin')], /--generated/)
  fails(2, ['packet', 'decode', '--version', '1.21.4', p('w.bin'), '--min-y', '5'], /--min-y/, /multiple of 16/)
  fails(2, ['packet', 'decode', '--version', '1.21.4', p('w.bin'), '--height', 'tall'], /--height/)
  fails(2, ['bedrock', 'subchunk', 'decode', '--version', '1.21.60', 'f', '--layer', 'one'], /--layer/, /0\.\./)
  fails(2, ['bedrock', 'subchunk', 'decode', '--version', '1.21.60', 'f', '--y', '4x'], /--y/)
  for (const [opt, val, range] of [['--port', '70000', /0\.\.65535/], ['--view-distance', '1', /2\.\.32/],
    ['--view-distance', '10abc', /2\.\.32/], ['--seed', 'banana', /--seed/], ['--exit-after', 'soon', /--exit-after/],
    ['--exit-after', 'nan', /--exit-after/], ['--cache-mb', '0', /1\.\./], ['--idle-timeout', '-3', /1\.\.86400/], ['--login-timeout', '0', /0\.1\.\.86400/],
    ['--compression-threshold', '-2', /-1\.\.8388608/], ['--max-players', '1e3', /--max-players/]]) {
    fails(2, ['serve', opt, val, '--exit-after', '1'], new RegExp(opt), range)
  }
})

// ------------------------------------------- 2. failed work exits 1

test('region salvage of a file that lost every chunk exits 1', () => {
  const bytes = fs.readFileSync(REGION)
  for (const [lx, lz] of [[31, 31], [30, 30]]) {
    const off = recordOffset(bytes, lx, lz)
    bytes.fill(0x55, off + 5, off + 40) // the zlib streams
  }
  const dead = p('dead', 'r.-1.-1.mca')
  fs.mkdirSync(path.dirname(dead))
  fs.writeFileSync(dead, bytes)
  const out = p('dead', 'saved.mca')
  fails(1, ['region', 'salvage', dead, '-o', out], /every chunk is lost \(2\)/, /nothing saved/,
    /chunk -1 -1/, /chunk -2 -2/)
  assert(!fs.existsSync(out), 'no empty output file left behind')
})

test('region info and ls of a file cut inside its 8 KiB header exit 1', () => {
  const cut = p('cut', 'r.-1.-1.mca')
  fs.mkdirSync(path.dirname(cut))
  fs.writeFileSync(cut, fs.readFileSync(REGION).subarray(0, 5000))
  fails(1, ['region', 'info', cut], /truncated/, /5000 bytes/, /8192-byte header/)
  fails(1, ['region', 'ls', cut], /truncated/)
  fails(1, ['region', 'ls', '--json', cut], /truncated/)
  const v = run('region', 'verify', cut)
  assert.strictEqual(v.status, 1)
  assert.match(v.text, /shorter than the 8192-byte header/)
})

test('chunk put refuses a chunk whose position disagrees, --relocate rewrites it', () => {
  const before = fs.readFileSync(REGION)
  fails(1, ['chunk', 'put', REGION, '-3', '-1', p('c11.nbt')], /names chunk -1 -1, not -3 -1/, /--relocate/)
  assert(fs.readFileSync(REGION).equals(before), 'nothing written')
  const old = chunkFile('lvl', -1, -1, true)
  fails(1, ['chunk', 'put', REGION, '-4', '-1', old], /names chunk -1 -1, not -4 -1/)
  fails(1, ['chunk', 'get', REGION, '-3', '-1'], /chunk -3 -1 is absent/)
  const r = ok(['chunk', 'put', REGION, '-3', '-1', p('c11.nbt'), '--relocate'])
  assert.match(r.err, /relocated from chunk -1 -1 to -3 -1/)
  const j = JSON.parse(ok(['chunk', 'get', REGION, '-3', '-1', '--json']).text)
  assert.strictEqual(j.xPos, -3)
  assert.strictEqual(j.zPos, -1)
  ok(['chunk', 'put', REGION, '-4', '-1', old, '--relocate'])
  const k = JSON.parse(ok(['chunk', 'get', REGION, '-4', '-1', '--json']).text)
  assert.strictEqual(k.Level.xPos, -4)
  const v = run('region', 'verify', REGION)
  assert.strictEqual(v.status, 0, v.text)
})

test('unknown version names are usage errors with the way out', () => {
  const hint = /`mcchunk registry --versions` lists them/
  fails(2, ['registry', '--version', 'banana', 'minecraft:stone'], /unknown Java version banana/, /registry --versions/)
  fails(2, ['registry', '--version', '1.21.4', '--to', 'banana', 'minecraft:stone'], /unknown Java version banana/)
  fails(2, ['packet', 'encode', '--version', '1.22.7', '--from', REGION, '--chunk', '-1,-1', '-o', p('x.bin')],
    /unknown version 1\.22\.7/, hint)
  fails(2, ['packet', 'decode', '--version', '1.22.7', p('w.bin')], /unknown version 1\.22\.7/, hint)
  fails(2, ['chunk', 'blocks', REGION, '-1', '-1', '--version', '1.22.7'], /unknown version 1\.22\.7/, hint)
  fails(2, ['chunk', 'convert', REGION, '-1', '-1', '--to-version', '1.22.7', '-o', p('x.nbt')], hint)
  fails(2, ['generate', '0', '0', '--version', '1.22.7'], /unknown version 1\.22\.7/, hint)
  fails(2, ['bedrock', 'subchunk', 'decode', '--version', '9.9.9', 'f'], /unknown Bedrock version 9\.9\.9/,
    /--edition bedrock/)
})

// ------------------------------------------------------- 3. messages

test('chunk coordinates in messages and listings are absolute', () => {
  fails(1, ['chunk', 'get', REGION, '-32', '-32'], /chunk -32 -32 is absent from/)
  fails(1, ['chunk', 'blocks', REGION, '-32', '-32'], /chunk -32 -32 is absent from/)
  const bytes = fs.readFileSync(REGION)
  const off = recordOffset(bytes, 31, 31)
  bytes.fill(0x55, off + 5, off + 40)
  const broken = p('broken', 'r.-1.-1.mca')
  fs.mkdirSync(path.dirname(broken))
  fs.writeFileSync(broken, bytes)
  const v = run('region', 'verify', broken)
  assert.strictEqual(v.status, 1)
  assert.match(v.text, /^# .*r\.-1\.-1\.mca: region -1 -1, chunks x -32\.\.-1 z -32\.\.-1$/m, 'header line')
  assert.match(v.text, /chunk -1 -1 \(zlib\)/)
  assert.doesNotMatch(v.text, /chunk 31 31/)
  const s = run('region', 'salvage', broken, '-o', p('broken', 'out.mca'))
  assert.strictEqual(s.status, 0, s.err)
  assert.match(s.err, /lost: chunk -1 -1/)
  assert.match(s.text, /chunks saved/)
})

test('region ls and verify: a header line, and --json', () => {
  const ls = ok(['region', 'ls', REGION]).text.trim().split('\n')
  assert.match(ls[0], /^# .*: region -1 -1, .*columns: x z sector sectors length compression timestamp$/)
  assert(ls.slice(1).every((l) => /^-?\d+ -?\d+ \d+ \d+ \d+ \S+ \d+$/.test(l)), ls.join('\n'))
  assert(ls.some((l) => l.startsWith('-1 -1 ')) && ls.some((l) => l.startsWith('-2 -2 ')))
  const j = JSON.parse(ok(['region', 'ls', '--json', REGION, REGION]).text)
  assert.strictEqual(j.length, 2)
  assert.deepStrictEqual(j[0].region, [-1, -1])
  assert(j[0].chunks.some((c) => c.x === -1 && c.z === -1 && c.compression === 'zlib'))
  const vj = JSON.parse(ok(['region', 'verify', '--json', REGION]).text)
  assert.strictEqual(vj[0].ok, true)
  const bj = JSON.parse(run('region', 'verify', '--json', p('broken', 'r.-1.-1.mca')).text)
  assert.strictEqual(bj[0].ok, false)
  assert(bj[0].problems.some((q) => q.x === -1 && q.z === -1 && q.kind === 'bad_compression'), JSON.stringify(bj))
  fails(2, ['region', 'info', '--json', REGION], /--json is for ls and verify/)
})

test('hints for likely mistakes', () => {
  // SNBT given to nbt without --from-snbt: detected
  const r = ok(['nbt', p('c11.snbt'), '--compact'])
  assert.match(r.text, /xPos:-1/)
  fs.writeFileSync(p('bad.snbt'), '{a:')
  fails(1, ['nbt', p('bad.snbt')], /looks like SNBT/)
  fails(1, ['nbt', REGION], /this is a region file: use `mcchunk chunk get/)
  fails(1, ['nbt', tmp], /is a directory/)
  fails(2, ['region', 'info', tmp], /is a directory/)
  fails(1, ['chunk', 'put', REGION, '-1', '-1', tmp], /is a directory/)
  fails(2, ['serve', '--world', REGION, '--exit-after', '1'], /is a file, not a world folder/)
  fails(2, ['serve', '--world', p('nope'), '--exit-after', '1'], /--world/)
  fails(1, ['packet', 'encode', '--version', '1.21.4', '--from', REGION, '--chunk', '-1,-1', '-o', p('no', 'dir', 'x.bin')],
    /cannot write .*no\/dir\/x\.bin: No such file or directory/)
  fails(1, ['packet', 'encode', '--version', '1.21.4', '--from', REGION, '--chunk', '-1,-1', '-o', tmp], /is a directory/)
  // Bedrock hashed runtime ids without --hashed
  const dir = p('bedrock')
  fs.mkdirSync(dir)
  ok(['bedrock', 'generate', '--version', '1.21.60', '--out', dir, '--hashed', '--tiny'])
  const sub = path.join(dir, 'sub_net_0.bin')
  fails(1, ['bedrock', 'subchunk', 'decode', '--version', '1.21.60', sub], /ids look hashed: try --hashed/)
  assert.notStrictEqual(ok(['bedrock', 'subchunk', 'decode', '--version', '1.21.60', sub, '--hashed']).text, '')
})

test('a version that drops blocks outside its height says how many, once', () => {
  const once = (err, n, v) => {
    const m = err.match(/(\d+) blocks outside (\S+)'s height \(y 0\.\.255\) dropped/g) || []
    assert.strictEqual(m.length, 1, err)
    if (n !== undefined) assert.match(m[0], new RegExp(`^${n} blocks outside ${v.replace(/\./g, '\\.')}`))
  }
  let r = ok(['chunk', 'blocks', REGION, '-1', '-1', '--version', '1.17.1'])
  once(r.err, 4096, '1.17.1')
  assert(!/^\S+ -\d+ /m.test(r.text), 'no block below y 0')
  assert.match(r.text, /^-16 0 -16 minecraft:dirt$/m)
  r = ok(['generate', '0', '0', '--version', '1.17.1'])
  once(r.err)
  assert(!/^\S+ -\d+ /m.test(r.text) && !/^\S+ (25[6-9]|2[6-9]\d|3\d\d) /m.test(r.text), 'only y 0..255')
  r = ok(['packet', 'encode', '--version', '1.17.1', '--from', REGION, '--chunk', '-1,-1', '-o', p('old.bin')])
  once(r.err, 4096, '1.17.1')
  r = ok(['chunk', 'convert', REGION, '-1', '-1', '--to-version', '1.17.1', '-o', p('old.nbt')])
  once(r.err, 4096, '1.17.1')
  // a 1.18+ target keeps them and says nothing
  r = ok(['chunk', 'blocks', REGION, '-1', '-1', '--version', '1.20.4'])
  assert.doesNotMatch(r.err, /dropped/)
})

test('corpus: a region file refuses the chunks of its neighbours', () => {
  const dir = path.join(CORPUS, 'anvil', '1.11.2')
  const file = path.join(dir, 'ppa-r.-1.0.mca')
  if (!fs.existsSync(file)) { console.log('     (corpus absent: skipped)'); return }
  fails(1, ['chunk', 'blocks', file, '0', '0'], /chunk 0 0 is not in ppa-r\.-1\.0\.mca/)
  fails(1, ['chunk', 'blocks', file, '-33', '0'], /is not in/)
  const ls = ok(['region', 'ls', file]).text.trim().split('\n')
  assert.match(ls[0], /region -1 0/)
  const [x, z] = ls[1].split(' ')
  assert(Number(x) < 0 && Number(x) >= -32, 'absolute x')
  const r = ok(['chunk', 'blocks', file, x, z])
  assert.notStrictEqual(r.text, '')
})

// ---------------------------------------------------------- 4. docs

const README = fs.readFileSync(path.join(SRC, 'README.md'), 'utf8')
const rows = README.split('\n').filter((l) => l.startsWith('| `mcchunk'))
const optionsOf = (text) => new Set((text.match(/(?<![\w-])--?[a-z][a-z0-9-]*/g) || []).filter((o) => o !== '-'))
// "mcchunk chunk blocks PATH ..." -> ["chunk", "blocks"]
const commandOf = (row) => {
  const words = row.slice(row.indexOf('`mcchunk') + 9, row.indexOf('`', row.indexOf('`mcchunk') + 1)).split(' ')
  const cmd = []
  for (const w of words) { if (/^[a-z][a-z0-9]*$/.test(w)) cmd.push(w); else break }
  return cmd
}
const helpOf = (cmd) => run(...cmd, '--help')

test('every command answers --help with what it prints and its exit codes', () => {
  const top = ok(['--help']).text
  const names = [...top.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1])
  assert(names.length >= 9, top)
  const sub = { chunk: ['get', 'put', 'blocks', 'convert'], region: ['info', 'ls', 'verify', 'salvage', 'compact'],
    packet: ['encode', 'decode'], bedrock: ['subchunk decode', 'packet decode', 'generate', 'biomes decode'],
    world: ['info', 'stats', 'convert', 'prune', 'verify', 'create', 'relight'] }
  for (const n of names) {
    for (const s of sub[n] || ['']) {
      const cmd = [n, ...s.split(' ').filter(Boolean)]
      const r = helpOf(cmd)
      assert.strictEqual(r.status, 0, cmd.join(' '))
      assert.match(r.text, /usage: mcchunk/, cmd.join(' '))
      assert.match(r.text, /exit status: 0 /, cmd.join(' ') + ' states its exit codes')
      assert.match(r.text, /2 usage error/, cmd.join(' '))
    }
    assert(rows.some((row) => commandOf(row)[0] === n), `README table has no row for ${n}`)
  }
})

test('every README table row names an existing command and options it has, and lists all of them', () => {
  assert(rows.length >= 15, 'table found')
  const known = new Map() // command group -> options its rows list
  for (const row of rows) {
    const cmd = commandOf(row)
    assert(cmd.length >= 1, row)
    const h = helpOf(cmd)
    assert.strictEqual(h.status, 0, `${cmd.join(' ')} --help`)
    const helpOpts = optionsOf(h.text)
    const syntax = row.split(/(?<!\\)\|/)[1] // (\| inside a cell is a literal bar)
    for (const o of optionsOf(syntax)) {
      assert(helpOpts.has(o), `README row "${cmd.join(' ')}" lists ${o}, which its --help does not know`)
    }
    const g = cmd.slice(0, 2).join(' ')
    known.set(g, new Set([...(known.get(g) || []), ...optionsOf(syntax)]))
  }
  // the other way: every option a command's --help shows is in its README rows
  for (const [g, opts] of known) {
    // (`mcchunk other --option` quoted in a help text is another command's)
    for (const o of optionsOf(helpOf(g.split(' ')).text.replace(/`[^`]*`/g, ''))) {
      if (o === '--help' || o === '-h') continue
      const group = [...known].filter(([k]) => k.split(' ')[0] === g.split(' ')[0]).flatMap(([, v]) => [...v])
      assert(group.includes(o), `mcchunk ${g} --help shows ${o}, the README table does not`)
    }
  }
})

test('make run installs only what the server needs, make test everything', () => {
  const deps = path.join(SRC, 'scripts', 'install-deps')
  const runDeps = spawnSync('bash', [deps, '--run', '--print']).stdout.toString()
  const allDeps = spawnSync('bash', [deps, '--print']).stdout.toString()
  for (const pkg of ['clang', 'llvm', 'libcmocka-dev', 'npm', 'nodejs']) {
    assert(!new RegExp(`(^| )${pkg}( |$)`, 'm').test(runDeps.split('\n')[0]), `--run installs ${pkg}: ${runDeps}`)
    assert(new RegExp(`(^| )${pkg}( |$)`, 'm').test(allDeps.split('\n')[0]), `make test misses ${pkg}`)
  }
  assert.match(runDeps, /npm: none/)
  assert.match(runDeps, /libuv1-dev/)
  const make = spawnSync('make', ['-n', '-C', SRC, 'run'])
  if (make.error) { console.log('     (make absent: Makefile check skipped)'); return }
  const plan = make.stdout.toString()
  assert.match(plan, /install-deps --run/)
  assert.match(plan, /-DMCCHUNK_TESTS=OFF/)
  assert.match(spawnSync('make', ['-n', '-C', SRC, 'test']).stdout.toString(), /install-deps\n/)
})

fs.rmSync(tmp, { recursive: true, force: true })
if (failures) { console.log(`${failures} failed`); process.exit(1) }
console.log('all passed')
