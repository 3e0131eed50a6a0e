// test_render_cli.js: `mcchunk render` end to end on a world folder made of
// corpus region files (copied into a temporary folder: r.0.-1 from 1.16,
// r.0.0 from 1.19.4, r.-1.0 from 1.8.9, so regions touch and the hillshade
// reads across their edges). PNGs are decoded here with pngjs.
//   - every zoom-0 tile equals `render -o --area` of the same 512x512 blocks,
//     pixel for pixel, and a zoom-1 tile is the alpha-weighted 2x2 average of
//     its children;
//   - the area printed without --area is the bounding box of the chunks;
//     --scale N repeats each block N x N;
//   - a second run renders nothing; a changed region file is re-rendered
//     with its south and east neighbours; a removed one loses its tile;
//   - arguments: exit 2 for every bad one, 1 for a world that is not there,
//     0 for --help; an interrupted render leaves MAP.png whole (old or new)
//     and no temporary file.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawn, spawnSync } = require('child_process')
const { PNG } = require('pngjs')
const { signalWhenCaught } = require('./world_util')

const BIN = process.env.MCCHUNK_BIN
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
if (!BIN) {
  console.log('MCCHUNK_BIN not set: skipping')
  process.exit(0)
}
if (!fs.existsSync(path.join(CORPUS, 'anvil'))) {
  console.log('corpus absent: skipping')
  process.exit(0)
}

function run (...args) {
  const r = spawnSync(BIN, ['render', ...args], { maxBuffer: 1 << 26 })
  return { status: r.status, text: r.stdout.toString(), err: r.stderr.toString() }
}
const png = (file) => PNG.sync.read(fs.readFileSync(file))

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-render-'))
const world = path.join(tmp, 'world')
fs.mkdirSync(path.join(world, 'region'), { recursive: true })
const sources = { 'r.0.-1.mca': '1.16/ppa-r.0.-1.mca', 'r.0.0.mca': '1.19.4/ppa-r.0.0.mca', 'r.-1.0.mca': '1.8.9/ppa-r.-1.0.mca' }
for (const [name, src] of Object.entries(sources)) fs.copyFileSync(path.join(CORPUS, 'anvil', src), path.join(world, 'region', name))

let failures = 0
function test (name, fn) {
  try { fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
}

const site = path.join(tmp, 'site')
const tile = (z, x, y) => path.join(site, 'tiles', 'overworld', String(z), String(x), `${y}.png`)

test('tiles: page, zoom 0 per region, zooms above, summary', () => {
  const r = run(world, '--tiles', site, '--zooms', '2', '--threads', '2')
  assert.strictEqual(r.status, 0, r.err)
  assert.match(r.text, /3 of 3 regions rendered/)
  for (const f of ['index.html', 'map.js', 'leaflet/leaflet.js', 'leaflet/leaflet.css', 'dimensions.js', 'tiles/overworld/map-data.js'])
    assert(fs.existsSync(path.join(site, f)), f)
  for (const [x, y] of [[0, -1], [0, 0], [-1, 0]]) assert(fs.existsSync(tile(0, x, y)), `zoom 0 tile ${x} ${y}`)
  for (const [x, y] of [[0, -1], [0, 0], [-1, 0]]) assert(fs.existsSync(tile(1, x, y)), `zoom 1 tile ${x} ${y}`)
  assert(fs.existsSync(tile(2, 0, 0)) && fs.existsSync(tile(2, -1, 0)) && fs.existsSync(tile(2, 0, -1)))
  const data = fs.readFileSync(path.join(site, 'tiles/overworld/map-data.js'), 'utf8')
  assert.match(data, /"0\/0\/-1"/)
  assert.match(data, /"zooms": 2/)
})

test('every zoom-0 tile equals render --area of its blocks', () => {
  for (const [x, y] of [[0, -1], [0, 0], [-1, 0]]) {
    const out = path.join(tmp, `area${x}_${y}.png`)
    const area = [512 * x, 512 * y, 512 * x + 511, 512 * y + 511].join(',')
    const r = run(world, '-o', out, '--area', area, '--quiet')
    assert.strictEqual(r.status, 0, r.err)
    const a = png(out); const t = png(tile(0, x, y))
    assert.strictEqual(a.width, 512)
    assert.strictEqual(a.height, 512)
    assert(a.data.equals(t.data), `tile ${x} ${y} differs from --area ${area}`)
    let shown = 0
    for (let i = 3; i < t.data.length; i += 4) shown += t.data[i] > 0
    assert(shown > 10000, `tile ${x} ${y} shows ${shown} pixels`)
  }
})

test('a zoom-1 tile is the alpha-weighted 2x2 average of its children', () => {
  const child = png(tile(0, 0, 0)); const parent = png(tile(1, 0, 0))
  let checked = 0
  for (let y = 0; y < 256; y += 7) {
    for (let x = 0; x < 256; x += 5) {
      let r = 0; let g = 0; let b = 0; let a = 0
      for (let k = 0; k < 4; k++) {
        const i = ((2 * y + (k >> 1)) * 512 + 2 * x + (k & 1)) * 4
        const w = child.data[i + 3]
        r += child.data[i] * w; g += child.data[i + 1] * w; b += child.data[i + 2] * w; a += w
      }
      const p = (y * 512 + x) * 4
      if (!a) { assert.strictEqual(parent.data[p + 3], 0); continue }
      assert.deepStrictEqual([...parent.data.slice(p, p + 4)],
        [Math.floor((r + Math.floor(a / 2)) / a), Math.floor((g + Math.floor(a / 2)) / a), Math.floor((b + Math.floor(a / 2)) / a), Math.floor((a + 2) / 4)])
      checked++
    }
  }
  assert(checked > 100, `${checked} pixels checked`)
})

test('the default area is the chunks\' bounding box; --scale repeats blocks', () => {
  const out = path.join(tmp, 'all.png')
  let r = run(world, '-o', out)
  assert.strictEqual(r.status, 0, r.err)
  const m = /^area (-?\d+),(-?\d+),(-?\d+),(-?\d+) \((\d+) x (\d+) blocks\)/.exec(r.text)
  assert(m, r.text)
  const [x0, z0, x1, z1] = m.slice(1, 5).map(Number)
  assert.strictEqual((x0 % 16 + 16) % 16, 0)
  assert.strictEqual((x1 % 16 + 16) % 16, 15)
  assert(x0 >= -512 && x0 < 0 && z0 >= -512 && z0 < 0 && x1 < 512 && z1 < 512)
  const all = png(out)
  assert.strictEqual(all.width, x1 - x0 + 1)
  assert.strictEqual(all.height, z1 - z0 + 1)
  const small = path.join(tmp, 'small.png'); const big = path.join(tmp, 'big.png')
  assert.strictEqual(run(world, '-o', small, '--area', '100,100,139,119', '-q').status, 0)
  assert.strictEqual(run(world, '-o', big, '--area', '100,100,139,119', '--scale', '3', '-q').status, 0)
  const s = png(small); const b = png(big)
  assert.strictEqual(b.width, 120)
  assert.strictEqual(b.height, 60)
  for (let y = 0; y < 60; y++) {
    for (let x = 0; x < 120; x++) {
      const i = (y * 120 + x) * 4; const j = (Math.floor(y / 3) * 40 + Math.floor(x / 3)) * 4
      assert(b.data.slice(i, i + 4).equals(s.data.slice(j, j + 4)))
    }
  }
  r = run(world, '-o', path.join(tmp, 'j.png'), '--area', '0,0,15,15', '--json')
  const j = JSON.parse(r.text)
  assert.deepStrictEqual(j.area, [0, 0, 15, 15])
  assert.strictEqual(j.mode, 'normal')
})

test('re-running renders only what changed', () => {
  let r = run(world, '--tiles', site, '--zooms', '2', '--json')
  assert.strictEqual(r.status, 0, r.err)
  assert.strictEqual(JSON.parse(r.text).regions_rendered, 0)
  const before = fs.readFileSync(tile(0, 0, 0))
  const later = new Date(Date.now() + 5000)
  fs.utimesSync(path.join(world, 'region', 'r.-1.0.mca'), later, later)
  r = run(world, '--tiles', site, '--zooms', '2', '--json')
  assert.strictEqual(JSON.parse(r.text).regions_rendered, 2) // r.-1.0 and its east neighbour r.0.0
  assert(fs.readFileSync(tile(0, 0, 0)).equals(before)) // same blocks, same tile
  fs.unlinkSync(path.join(world, 'region', 'r.-1.0.mca'))
  r = run(world, '--tiles', site, '--zooms', '2', '--json')
  assert.strictEqual(r.status, 0, r.err)
  assert.strictEqual(JSON.parse(r.text).regions_rendered, 1) // r.0.0 lost its west neighbour
  assert(!fs.existsSync(tile(0, -1, 0)), 'the removed region\'s tile is gone')
  assert(!fs.existsSync(tile(1, -1, 0)))
  r = run(world, '--tiles', site, '--mode', 'height', '--json')
  assert.strictEqual(JSON.parse(r.text).regions_rendered, 2) // another mode: everything
})

test('bad arguments: exit 2; no world: exit 1; --help: 0', () => {
  const out = path.join(tmp, 'x.png')
  for (const args of [[], [world], [world, '-o', out, '--tiles', site], [world, '-o', out, '--area', '1,2,3'],
    [world, '-o', out, '--area', '5,0,4,0'], [world, '-o', out, '--area', 'a,b,c,d'], [world, '-o', out, '--scale', '0'],
    [world, '-o', out, '--scale', '17'], [world, '-o', out, '--mode', 'night'], [world, '-o', out, '--threads', '0'],
    [world, '-o', out, '--bogus'], [world, '-o'], [world, '--tiles', site, '--zooms', '9'],
    [world, '--tiles', site, '--area', '0,0,1,1'], [path.join(world, 'region', 'r.0.0.mca'), '-o', out, '--dimension', 'the_end'],
    [world, '-o', out, '--area', '0,0,300000,1', '--scale', '16'], [world, '-o', out, '--json', '--quiet']]) {
    const r = run(...args)
    assert.strictEqual(r.status, 2, `${args.join(' ')}: ${r.status} ${r.err}`)
    assert(r.err.length > 0)
    assert.strictEqual(r.text, '')
  }
  assert.strictEqual(run(path.join(tmp, 'nowhere.mca'), '-o', out).status, 1)
  assert.strictEqual(run(world, '--dimension', 'the_end', '-o', out).status, 1) // no chunks there
  const h = run('--help')
  assert.strictEqual(h.status, 0)
  assert.match(h.text, /exit status/)
})


async function interrupted () {
  const out = path.join(tmp, 'int.png')
  fs.writeFileSync(out, 'old')
  const child = spawn(BIN, ['render', world, '-o', out, '--scale', '8', '--threads', '1', '-q'])
  const exited = new Promise((resolve) => child.on('exit', resolve))
  // Ctrl-C once the tool catches it (a SIGINT while the process is still
  // starting, which a loaded machine or a sanitizer build makes long, would
  // kill it by the default action: the kernel's doing, not the tool's)
  await signalWhenCaught(child, 'SIGINT', 150)
  const code = await exited
  const now = fs.readFileSync(out)
  if (code === 0) {
    assert.strictEqual(now.slice(1, 4).toString(), 'PNG') // it finished first: the new map, whole
    png(out)
  } else {
    assert.strictEqual(code, 1)
    assert.strictEqual(now.toString(), 'old')
  }
  assert.deepStrictEqual(fs.readdirSync(tmp).filter((f) => f.includes('.tmp-')), [])
  console.log(`ok   an interrupted render leaves MAP.png whole and no temporary (exit ${code})`)
}

interrupted().catch((e) => { failures++; console.log('FAIL interrupted: ' + (e.stack || e)) }).then(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
  if (failures) { console.log(`${failures} failed`); process.exit(1) }
  console.log('all passed')
})
