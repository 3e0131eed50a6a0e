// test_server_translate.js: an old client of a modern world sees no holes
// (issue 25). `mcchunk serve --world` runs on a 1.21.11 world (a vanilla
// region file of ../shared/corpus, copied into a temporary world folder
// outside the project); mineflayer bots of 1.12.2 and 1.8.8 join, and at
// every position y 0..255 of the columns around the spawn that hold the
// most blocks 1.12 does not have (blue_ice, copper_ore, calcite, amethyst,
// tuff, glow_lichen, bubble_column, ...), a block that is not air-like in
// the world (`mcchunk chunk blocks`, the chunk in its own version) is not
// air in the client's world (bot.blockAt). Which blocks 1.12 lacks comes
// from minecraft-data's legacy.json (the 1.13 names of every 1.12 state),
// not from mcchunk. Skipped, with a message, when the corpus is absent.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { execFileSync } = require('child_process')
const mineflayer = require('mineflayer')
const { Vec3 } = require('vec3')
const { startServer, bin, createBot, spawned, checks } = require('./server_util')

const corpus = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
const REGION = 'anvil/1.21.11/minestom-r.-1.-1.mca'
const VERSIONS = ['1.12.2', '1.8.8']
const AIR_LIKE = new Set(['minecraft:air', 'minecraft:cave_air', 'minecraft:void_air', 'minecraft:light',
  'minecraft:structure_void'])
// 1.13 names of the blocks 1.12 has (legacy.json's targets)
const legacy = require('minecraft-data/minecraft-data/data/pc/common/legacy.json').blocks
const known112 = new Set(Object.values(legacy).map(s => s.replace(/\[.*$/, '')))

// The world's blocks of a column, y 0..255, by "x,y,z" -> name.
function worldBlocks (world, cx, cz) {
  const out = execFileSync(bin(), ['chunk', 'blocks', world, String(cx), String(cz)], { encoding: 'utf8', maxBuffer: 256 << 20 })
  const m = new Map()
  for (const line of out.split('\n')) {
    if (!line) continue
    const [x, y, z, s] = line.split(' ')
    if (Number(y) >= 0 && Number(y) <= 255) m.set(`${x},${y},${z}`, s.replace(/\[.*$/, ''))
  }
  return m
}

const { check, counts } = checks()

;(async () => {
  const src = path.join(corpus, REGION)
  if (!fs.existsSync(src)) {
    console.log(`corpus absent (${src}): skipping`)
    console.log('0 passed, 0 failed, 1 skipped')
    process.exit(0)
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-translate-'))
  fs.mkdirSync(path.join(dir, 'region'))
  fs.copyFileSync(src, path.join(dir, 'region', path.basename(REGION).replace(/^minestom-/, '')))
  const args = ['--world', dir, '--view-distance', '3']
  let srv = await startServer(args)
  const m = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log())
  const scx = Number(m[1]) >> 4; const scz = Number(m[3]) >> 4
  // The columns near the spawn with the most blocks 1.12 lacks.
  const candidates = []
  for (let dx = -2; dx <= 2; dx++) {
    for (let dz = -2; dz <= 2; dz++) {
      let blocks
      try { blocks = worldBlocks(dir, scx + dx, scz + dz) } catch (e) { continue } // absent chunk (message on stderr)
      let modern = 0
      for (const name of blocks.values()) if (!AIR_LIKE.has(name) && !known112.has(name)) modern++
      candidates.push({ cx: scx + dx, cz: scz + dz, blocks, modern })
    }
  }
  candidates.sort((a, b) => b.modern - a.modern)
  try {
    assert.ok(candidates.some(c => c.modern > 0), 'no column near the spawn holds a block 1.12 lacks: the test would prove nothing')
    for (const v of VERSIONS) {
      if (!srv.running()) { await srv.stop(); srv = await startServer(args) }
      await check(`1.21.11 world as ${v}: no air where the world has a block`, async () => {
        const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 't' + v.replace(/\./g, ''), version: v, auth: 'offline' })
        const loaded = new Set()
        bot.on('chunkColumnLoad', p => loaded.add(`${p.x >> 4},${p.z >> 4}`))
        try {
          await spawned(bot)
          // The server sends the columns vanilla finished (not proto-chunks):
          // wait until they stop coming, then take the three received ones
          // with the most blocks 1.12 lacks.
          let seen = -1
          for (const t0 = Date.now(); seen !== loaded.size && Date.now() - t0 < 30000;) {
            seen = loaded.size
            await new Promise(resolve => setTimeout(resolve, 1500))
          }
          const columns = candidates.filter(c => c.modern > 0 && loaded.has(`${c.cx},${c.cz}`)).slice(0, 3)
          assert.ok(columns.length > 0, `none of the ${loaded.size} columns received holds a block 1.12 lacks`)
          console.log(`  ${v}: columns ` + columns.map(c => `${c.cx},${c.cz} (${c.modern} blocks 1.12 lacks)`).join(', '))
          let checked = 0; let holes = 0; let modern = 0; let first = ''
          for (const c of columns) {
            for (let y = 0; y <= 255; y++) {
              for (let z = 0; z < 16; z++) {
                for (let x = 0; x < 16; x++) {
                  const wx = c.cx * 16 + x; const wz = c.cz * 16 + z
                  const name = c.blocks.get(`${wx},${y},${wz}`)
                  if (!name || AIR_LIKE.has(name)) continue
                  const b = bot.blockAt(new Vec3(wx, y, wz))
                  checked++
                  if (!known112.has(name)) modern++
                  if (!b || b.type === 0) {
                    holes++
                    if (!first) first = `${wx} ${y} ${wz} (${name}) is ${b ? b.name : 'not loaded'}`
                  }
                }
              }
            }
          }
          console.log(`  ${v}: ${checked} blocks checked (${modern} of kinds 1.12 lacks), ${holes} holes`)
          assert.ok(modern > 0, 'no block 1.12 lacks among the checked ones')
          assert.strictEqual(holes, 0, `${holes} of ${checked} blocks are air for the client, first ${first}`)
          // the server said how it translates the world for this version
          // (named by the release of the protocol's registry: 1.8.8 -> 1.8.9)
          const said = new RegExp(`translation for ${v.split('.').slice(0, 2).join('\\.')}(?:\\.\\d+)? clients: the world's states are (\\d+) exact, (\\d+) renamed, ` +
            '(\\d+) same-shape, (\\d+) nearest-colour, (\\d+) air-like, (\\d+) lost').exec(srv.log())
          assert.ok(said, `no translation line for ${v} in the log`)
          const [exact, renamed, shape, colour, airLike, lost] = said.slice(1).map(Number)
          console.log(`  ${v}: the log counts ${exact} exact, ${renamed} renamed, ${shape} same-shape, ${colour} nearest-colour, ${airLike} air-like, ${lost} lost`)
          assert.strictEqual(lost, 0, 'states lost')
          assert.ok(renamed + shape + colour > 0 && airLike >= 3, 'a 1.21.11 world translated to an old version approximates')
        } finally { bot.end() }
      }, srv)
    }
  } finally {
    await srv.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  console.log(`${counts.passed} passed, ${counts.failed} failed`)
  process.exit(counts.failed ? 1 : 0)
})()
