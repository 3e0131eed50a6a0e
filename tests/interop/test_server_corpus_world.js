// test_server_corpus_world.js: `mcchunk serve --world` on worlds written by
// vanilla Minecraft (region files of ../shared/corpus, copied into a temporary
// world folder outside the project: the server does not follow links inside a
// region folder): mineflayer bots of several
// versions join, receive the columns around the spawn, and their blocks
// equal `mcchunk chunk blocks --ids --version V` (the same chunk read by the
// Anvil reader and translated by the registry module) at sampled positions.
// Skipped, with a message, when the corpus is absent.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { execFileSync } = require('child_process')
const mineflayer = require('mineflayer')
const { Vec3 } = require('vec3')
const { startServer, bin, createBot } = require('./server_util')

const corpus = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
const mc = require('minecraft-protocol')
const everyVersion = mc.supportedVersions.filter(v => v !== '1.7')
const some = ['1.8.8', '1.12.2', '1.16.5', '1.18.2', '1.20.4', '1.21.11', '26.1']
// The 1.21.11 world goes to every client version; the others to a spread of
// eras; the 26.1 folder layout (dimensions/minecraft/overworld/region) once.
const worlds = [
  { name: '1.21.11', file: 'anvil/1.21.11/minestom-r.-1.-1.mca', region: 'r.-1.-1.mca', versions: everyVersion },
  { name: '1.21.11 in the 26.1 layout', file: 'anvil/1.21.11/minestom-r.-1.-1.mca', region: 'r.-1.-1.mca', layout26: true, versions: ['1.21.11', '26.1'] },
  { name: '1.12.2', file: 'anvil/1.12.2/mcaselector-r.0.0.mca', region: 'r.0.0.mca', versions: some },
  { name: '1.8.9', file: 'anvil/1.8.9/ppa-r.-1.0.mca', region: 'r.-1.0.mca', versions: some }
]

let passed = 0; let failed = 0; let skipped = 0
async function check (name, fn, srv) {
  try {
    await fn(); passed++; console.log('ok   ' + name)
  } catch (e) {
    failed++; console.log('FAIL ' + name + ': ' + e.message)
    // What the server said about it: the tail of its log.
    if (srv) console.log('  server log (tail):\n' + srv.log().trimEnd().split('\n').slice(-12).map(l => '  | ' + l).join('\n'))
  }
}

function expected (world, cx, cz, version) {
  const out = execFileSync(bin(), ['chunk', 'blocks', world, String(cx), String(cz), '--ids', '--version', version],
    { encoding: 'utf8', maxBuffer: 64 << 20 })
  const m = new Map()
  for (const line of out.split('\n')) {
    if (!line) continue
    const [x, y, z, s] = line.split(' ').map(Number)
    m.set(`${x},${y},${z}`, s)
  }
  return m
}

;(async () => {
  if (!fs.existsSync(corpus)) {
    console.log(`corpus absent (${corpus}): skipping the corpus-world cases`)
    console.log('0 passed, 0 failed, 1 skipped')
    process.exit(0)
  }
  for (const w of worlds) {
    const src = path.join(corpus, w.file)
    if (!fs.existsSync(src)) { skipped++; console.log('skip ' + w.file); continue }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-world-'))
    const rdir = w.layout26 ? path.join(dir, 'dimensions', 'minecraft', 'overworld', 'region') : path.join(dir, 'region')
    fs.mkdirSync(rdir, { recursive: true })
    fs.copyFileSync(src, path.join(rdir, w.region))
    const args = ['--world', dir, '--view-distance', '3']
    let srv = await startServer(args)
    const m = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log())
    const scx = Number(m[1]) >> 4; const scz = Number(m[3]) >> 4
    try {
      if (w.layout26) assert.ok(/26\.1 layout/.test(srv.log()), 'server did not detect the 26.1 layout')
      for (const v of w.versions) {
        // A server that stopped (the failure was reported with its log)
        // is started again, so that one failure is not every later one's.
        if (!srv.running()) { await srv.stop(); srv = await startServer(args) }
        await check(`world ${w.name} as ${v}`, async () => {
          const mcd = require('minecraft-data')(v)
          const legacy = mcd.isOlderThan('1.13')
          const [yMin, yMax] = mcd.isNewerOrEqualTo('1.18') ? [-64, 319] : [0, 255]
          const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'c' + v.replace(/\./g, ''), version: v, auth: 'offline' })
          const loaded = new Set()
          bot.on('chunkColumnLoad', p => loaded.add(`${p.x >> 4},${p.z >> 4}`))
          try {
            await new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('no spawn within 60 s')), 60000)
              bot.once('spawn', () => { clearTimeout(timer); resolve() })
              bot.once('error', e => { clearTimeout(timer); reject(e) })
              bot.once('kicked', r => { clearTimeout(timer); reject(new Error('kicked ' + r)) })
            })
            const t0 = Date.now()
            while (!loaded.has(`${scx},${scz}`) && Date.now() - t0 < 15000) await new Promise(resolve => setTimeout(resolve, 50))
            await new Promise(resolve => setTimeout(resolve, 500))
            assert.ok(loaded.has(`${scx},${scz}`), 'spawn column not received')
            let n = 0; let bad = 0; let first = ''
            for (const key of loaded) {
              const [cx, cz] = key.split(',').map(Number)
              if (Math.abs(cx - scx) > 1 || Math.abs(cz - scz) > 1) continue
              const exp = expected(dir, cx, cz, v)
              let s = cx * 7919 + cz
              for (let i = 0; i < 150; i++) {
                s = (s * 1103515245 + 12345) & 0x7fffffff
                const p = new Vec3(cx * 16 + (s & 15), yMin + ((s >> 4) % (yMax - yMin + 1)), cz * 16 + ((s >> 13) & 15))
                const want = exp.get(`${p.x},${p.y},${p.z}`) ?? 0
                const b = bot.blockAt(p)
                const got = b ? (legacy ? (b.type << 4) | b.metadata : b.stateId) : null
                n++
                if (got !== want) { bad++; if (!first) first = `${p} want ${want} got ${got}` }
              }
            }
            assert.ok(n >= 150, 'sampled ' + n)
            assert.strictEqual(bad, 0, `${bad}/${n} differ, first ${first}`)
          } finally { bot.end() }
        }, srv)
      }
    } finally {
      await srv.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
  process.exit(failed ? 1 : 0)
})()
