// test_server_world.js: mineflayer joins `mcchunk serve` (built-in world) in
// every version it speaks, 1.8.8 to 26.1, receives every column of its view
// distance, and the blocks it decoded equal the world's: at hundreds of
// positions per version, including every block of the showcase layer (a
// section that needs the direct, global palette). Expected states come from
// `mcchunk generate X Z --version V --ids`, i.e. the world translated to the
// client's registry by the registry module, compared as state ids
// (1.13+: the global state id; before: id << 4 | meta).
// Then the bot teleports far (/tp): the new columns arrive, the old ones are
// unloaded, and blocks there are checked too.
'use strict'
const assert = require('assert')
const { execFileSync } = require('child_process')
const mineflayer = require('mineflayer')
const mc = require('minecraft-protocol')
const { Vec3 } = require('vec3')
const { startServer, bin, createBot, waitFor, spawned } = require('./server_util')
const { sampleReleases } = require('./sample')

const VD = 4
const versions = sampleReleases(mc.supportedVersions.filter(v => v !== '1.7'))
const only = process.env.MCCHUNK_VERSIONS ? process.env.MCCHUNK_VERSIONS.split(',') : null

function expectedColumn (cx, cz, version) {
  const out = execFileSync(bin(), ['generate', String(cx), String(cz), '--version', version, '--ids'],
    { encoding: 'utf8', maxBuffer: 64 << 20 })
  const m = new Map()
  for (const line of out.split('\n')) {
    if (!line) continue
    const [x, y, z, s] = line.split(' ').map(Number)
    m.set(`${x},${y},${z}`, s)
  }
  return m
}

function stateOf (block, legacy) {
  if (!block) return null
  return legacy ? (block.type << 4) | block.metadata : block.stateId
}

// Positions to compare in column (cx, cz): random ones (many air, many not),
// plus, for the showcase column, its whole top layer(s).
function samplePositions (cx, cz, expected, yMin, yMax, n, seed) {
  let s = seed
  const rnd = () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x7fffffff }
  const out = []
  const solid = [...expected.keys()].filter(k => { const y = Number(k.split(',')[1]); return y >= yMin && y <= yMax })
  for (let i = 0; i < n; i++) {
    if (i % 2 && solid.length) {
      const [x, y, z] = solid[Math.floor(rnd() * solid.length)].split(',').map(Number)
      out.push(new Vec3(x, y, z))
    } else {
      out.push(new Vec3(cx * 16 + Math.floor(rnd() * 16), yMin + Math.floor(rnd() * (yMax - yMin + 1)), cz * 16 + Math.floor(rnd() * 16)))
    }
  }
  return out
}

function showcaseLayer (expected) {
  let top = -1e9
  for (const k of expected.keys()) top = Math.max(top, Number(k.split(',')[1]))
  return [...expected.keys()].map(k => k.split(',').map(Number)).filter(([, y]) => y >= top - 1).map(([x, y, z]) => new Vec3(x, y, z))
}

function compare (bot, version, legacy, positions, expected, airId) {
  let bad = 0; let first = ''
  for (const p of positions) {
    const want = expected.has(`${p.x},${p.y},${p.z}`) ? expected.get(`${p.x},${p.y},${p.z}`) : airId
    const got = stateOf(bot.blockAt(p), legacy)
    if (got !== want) { bad++; if (!first) first = `${p} want ${want} got ${got}` }
  }
  assert.strictEqual(bad, 0, `${version}: ${bad}/${positions.length} blocks differ, first ${first}`)
  return positions.length
}

let passed = 0; let failed = 0
async function check (name, fn) {
  try { await fn(); passed++; console.log('ok   ' + name) } catch (e) { failed++; console.log('FAIL ' + name + ': ' + e.message) }
}

;(async () => {
  const srv = await startServer(['--view-distance', String(VD)])
  const m = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log())
  const spawn = { x: Number(m[1]), z: Number(m[3]) }
  const scx = spawn.x >> 4; const scz = spawn.z >> 4
  try {
    for (const v of versions) {
      if (only && !only.includes(v)) continue
      await check(`world ${v}`, async () => {
        const legacy = require('minecraft-data')(v).isOlderThan('1.13')
        const modern = require('minecraft-data')(v).isNewerOrEqualTo('1.18')
        const [yMin, yMax] = modern ? [-64, 319] : [0, 255]
        const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'w' + v.replace(/\./g, ''), version: v, auth: 'offline' })
        const loaded = new Set()
        const unloaded = new Set()
        bot.on('chunkColumnLoad', p => { loaded.add(`${p.x >> 4},${p.z >> 4}`) })
        bot.on('chunkColumnUnload', p => { unloaded.add(`${p.x >> 4},${p.z >> 4}`) })
        try {
          await spawned(bot)
          const want = (2 * VD + 1) ** 2
          await waitFor(() => loaded.size >= want, 20000, `${want} columns (have ${loaded.size})`)
          for (let dz = -VD; dz <= VD; dz++) {
            for (let dx = -VD; dx <= VD; dx++) assert.ok(loaded.has(`${scx + dx},${scz + dz}`), `column ${scx + dx},${scz + dz} missing`)
          }
          let n = 0
          const cols = [[scx, scz], [scx + 1, scz + 1], [scx - VD, scz + VD], [scx + VD, scz - VD], [1, 1]]
          for (const [cx, cz] of cols) {
            const exp = expectedColumn(cx, cz, v)
            n += compare(bot, v, legacy, samplePositions(cx, cz, exp, yMin, yMax, 120, cx * 31 + cz), exp, 0)
            if (cx === 1 && cz === 1) n += compare(bot, v, legacy, showcaseLayer(exp), exp, 0)
          }
          assert.ok(n >= 600, 'sampled ' + n)
          // Far away: new columns come, old ones go.
          const far = { x: 4000 + 8, z: -3000 + 8 }
          bot.chat(`/tp ${far.x} 200 ${far.z}`)
          const fcx = far.x >> 4; const fcz = far.z >> 4
          await waitFor(() => {
            for (let dz = -VD; dz <= VD; dz++) for (let dx = -VD; dx <= VD; dx++) if (!loaded.has(`${fcx + dx},${fcz + dz}`)) return false
            return true
          }, 20000, 'columns around the teleport target')
          await waitFor(() => unloaded.has(`${scx},${scz}`), 10000, 'unload of the spawn column')
          const exp = expectedColumn(fcx, fcz, v)
          compare(bot, v, legacy, samplePositions(fcx, fcz, exp, yMin, yMax, 120, 7), exp, 0)
        } finally {
          bot.end()
        }
      })
    }
  } finally {
    await srv.stop()
  }
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
})()
