// test_server_light.js: the light a client of `mcchunk serve` (built-in
// world) receives is the light engine's. mineflayer joins as 1.12.2 (light
// inside each section of the chunk packet) and as 1.20.1 (light in its own
// arrays of the chunk packet); at hundreds of positions of several columns
// (half of them where the light is neither 0 nor 15, and every block round
// a torch) prismarine-chunk's getSkyLight/getBlockLight equal what
// `mcchunk generate X Z --version V --light --all` prints for that block,
// i.e. what mc_light_column computed with the column's eight neighbours.
// Then a torch the generator placed: block light 14 in it and one less per
// block straight up, as the client sees it.
//
// prismarine-chunk reads light of 1.9 and later through a permutation (see
// ORACLES.md, "Light nibble order"): its x is the game's x ^ 14 within a
// chunk. The test reads the client's light at x ^ 14 to get the game's
// light at x (corrects the oracle, not our bytes); the permutation is also
// checked: read without it, the lights differ.
// A section the 1.12.2 client did not receive (all air: the game does not
// send those) has no light to compare.
'use strict'
const assert = require('assert')
const { execFileSync } = require('child_process')
const mineflayer = require('mineflayer')
const { Vec3 } = require('vec3')
const { startServer, bin, createBot, waitFor, spawned } = require('./server_util')

const VD = 3
const versions = ['1.12.2', '1.20.1']

// column (cx, cz) as the server sends it to `version`: key "x,y,z" ->
// {name, sky, block}; every block (air too)
function expectedColumn (cx, cz, version) {
  const out = execFileSync(bin(), ['generate', String(cx), String(cz), '--version', version, '--light', '--all'],
    { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
  const m = new Map()
  for (const line of out.split('\n')) {
    if (!line) continue
    const f = line.split(' ')
    m.set(`${f[0]},${f[1]},${f[2]}`, { name: f[3], sky: Number(f[4]), block: Number(f[5]) })
  }
  return m
}

// The game's light at (x, y, z) as the client holds it: prismarine's x is
// the game's x ^ 14 within the chunk (permuted = false: read as is).
function clientLight (bot, x, y, z, permuted = true) {
  const px = permuted ? (x & ~15) | ((x & 15) ^ 14) : x
  const p = new Vec3(px, y, z)
  return { sky: bot.world.getSkyLight(p), block: bot.world.getBlockLight(p) }
}

function received (bot, version, x, y, z) {
  if (version !== '1.12.2') return true
  const col = bot.world.getColumn(x >> 4, z >> 4)
  return !!(col && col.sections[y >> 4])
}

// minecraft:torch (1.13+), minecraft:torch[facing=up] (1.12.2)
const isTorch = name => /^minecraft:torch(\[|$)/.test(name)

// Positions of column (cx, cz): n at random (half of them among blocks
// whose light is neither dark nor full sky), and every block within 3 of
// each torch.
function samplePositions (cx, cz, exp, n, seed) {
  let s = seed
  const rnd = () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x7fffffff }
  const keys = [...exp.keys()]
  const lit = keys.filter(k => { const e = exp.get(k); return (e.sky > 0 && e.sky < 15) || e.block > 0 })
  const out = []
  for (let i = 0; i < n; i++) {
    const from = i % 2 && lit.length ? lit : keys
    out.push(from[Math.floor(rnd() * from.length)].split(',').map(Number))
  }
  for (const k of keys) {
    if (!isTorch(exp.get(k).name)) continue
    const [x, y, z] = k.split(',').map(Number)
    for (let dy = -3; dy <= 3; dy++) {
      for (let dz = -3; dz <= 3; dz++) {
        for (let dx = -3; dx <= 3; dx++) {
          if ((x + dx) >> 4 === cx && (z + dz) >> 4 === cz && exp.has(`${x + dx},${y + dy},${z + dz}`)) out.push([x + dx, y + dy, z + dz])
        }
      }
    }
  }
  return out
}

let passed = 0; let failed = 0
;(async () => {
  const srv = await startServer(['--view-distance', String(VD)])
  const m = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log())
  const scx = Number(m[1]) >> 4; const scz = Number(m[3]) >> 4
  try {
    for (const v of versions) {
      await lightOf(v, srv, scx, scz).then(() => { passed++; console.log(`ok   light ${v}`) },
        e => { failed++; console.log(`FAIL light ${v}: ${e.message}`) })
    }
  } finally {
    await srv.stop()
  }
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
})()

// One client of `version`: its light at the sampled positions, the torch.
async function lightOf (v, srv, scx, scz) {
  const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'l' + v.replace(/\./g, ''), version: v, auth: 'offline' })
  const loaded = new Set()
  bot.on('chunkColumnLoad', p => { loaded.add(`${p.x >> 4},${p.z >> 4}`) })
  try {
    await spawned(bot)
    const want = (2 * VD + 1) ** 2
    await waitFor(() => loaded.size >= want, 30000, `${want} columns (have ${loaded.size})`)
    // the columns: the spawn's, and those of the view with a torch
    let cols = [[scx, scz], [scx + 1, scz - 1]]
    const torches = []
    for (let dz = -VD + 1; dz < VD; dz++) {
      for (let dx = -VD + 1; dx < VD; dx++) {
        const out = execFileSync(bin(), ['generate', String(scx + dx), String(scz + dz), '--version', v], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
        for (const line of out.split('\n')) {
          const f = line.split(' ')
          if (isTorch(f[3] || '')) torches.push(f.slice(0, 3).map(Number))
        }
      }
    }
    assert.ok(torches.length >= 2, `torches in view: ${torches.length}`)
    for (const [x, , z] of torches.slice(0, 2)) cols.push([x >> 4, z >> 4])
    cols = cols.filter((c, i) => cols.findIndex(d => d[0] === c[0] && d[1] === c[1]) === i)
    let n = 0; let bad = 0; let unpermutedBad = 0; let first = ''; let litSeen = 0
    for (const [cx, cz] of cols) {
      const exp = expectedColumn(cx, cz, v)
      for (const [x, y, z] of samplePositions(cx, cz, exp, 400, cx * 31 + cz + 7)) {
        if (!received(bot, v, x, y, z)) continue
        const e = exp.get(`${x},${y},${z}`)
        const got = clientLight(bot, x, y, z)
        n++
        if ((e.sky > 0 && e.sky < 15) || e.block > 0) litSeen++
        if (got.sky !== e.sky || got.block !== e.block) {
          bad++
          if (!first) first = `${x} ${y} ${z} (${e.name}): want sky ${e.sky} block ${e.block}, got ${got.sky} ${got.block}`
        }
        const raw = clientLight(bot, x, y, z, false)
        if (raw.sky !== e.sky || raw.block !== e.block) unpermutedBad++
      }
    }
    console.log(`  ${v}: ${n} positions in ${cols.length} columns (${litSeen} neither dark nor full sky), ` +
      `${bad} differ; read without the oracle's permutation ${unpermutedBad} would`)
    assert.ok(n >= 1000 && litSeen >= 300, `too few positions: ${n}, ${litSeen}`)
    assert.strictEqual(bad, 0, `${v}: ${bad}/${n} lights differ, first ${first}`)
    assert.ok(unpermutedBad > 50, 'the permutation of ORACLES.md is what makes them equal')
    // a torch: 14, and one less per block up
    const [tx, ty, tz] = torches[0]
    for (let k = 0; k <= 5; k++) {
      assert.strictEqual(clientLight(bot, tx, ty + k, tz).block, 14 - k, `block light ${k} above the torch at ${tx} ${ty} ${tz}`)
    }
  } finally {
    bot.end()
  }
}
