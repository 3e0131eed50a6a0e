// test_server_memory_log.js: what the server writes to its log is bounded
// and says what went wrong.
// - A flood of server-list pings (the legacy 0xFE 0x01 ping over raw
//   sockets, 40 at a time for a few seconds: each is a connection and a log
//   line): once listening, the server writes at most 20 lines a second and
//   reports the rest as one line of counts. (A machine too loaded to ping
//   faster than 30 a second proves nothing either way: that case says so and
//   is skipped.)
// - `serve --world` with a level.dat that is corrupt, an inflate bomb
//   (64 MiB of zeros, gzipped) or without a spawn: the server starts, and
//   logs a warning with the reason and the fallback. The world is a region
//   file of ../shared/corpus copied into a temporary folder (those cases
//   skip, with a message, without the corpus).
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const net = require('net')
const zlib = require('zlib')
const mc = require('minecraft-protocol')
const nbt = require('prismarine-nbt')
const { startServer } = require('./server_util')

const corpus = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
const REGION = 'anvil/1.17.1/amulet-region-r.0.0.mca'

let passed = 0; let failed = 0; let skipped = 0
async function check (name, fn) {
  try {
    const was = skipped
    await fn()
    if (skipped === was) { passed++; console.log('ok   ' + name) }
  } catch (e) {
    failed++; console.log('FAIL ' + name + ': ' + e.message)
  }
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

async function pingFlood () {
  const srv = await startServer(['--cache-mb', '16'], { exitAfter: 120 })
  try {
    const before = srv.log().split('\n').length
    const t0 = Date.now(); let pings = 0; let errors = 0
    const legacyPing = () => new Promise((resolve, reject) => {
      const s = net.connect(srv.port, '127.0.0.1')
      let got = 0
      const timer = setTimeout(() => { s.destroy(); reject(new Error('no answer')) }, 5000)
      s.on('connect', () => s.write(Buffer.from([0xfe, 0x01])))
      s.on('data', d => { got += d.length })
      s.on('error', () => {})
      s.on('close', () => { clearTimeout(timer); got ? resolve() : reject(new Error('closed without an answer')) })
    })
    const worker = async () => {
      while (Date.now() - t0 < 4000) {
        try { await legacyPing(); pings++ } catch { errors++ }
      }
    }
    await Promise.all(Array.from({ length: 40 }, worker))
    const flood = (Date.now() - t0) / 1000
    // The line of counts for the last second comes with the next tick: waits
    // (at most 30 s) for the pings to be in the log, shown or counted (a few
    // may stay in the pipe), rather than for a time a loaded machine may
    // exceed.
    const logged = () => {
      const lines = srv.log().split('\n').slice(before).filter(l => l)
      const counts = lines.filter(l => /log: \d+ more lines in that second not shown \(over 20 a second\): \d+ info/.test(l))
      return { lines, counts, held: counts.reduce((n, l) => n + Number(/log: (\d+) more/.exec(l)[1]), 0) }
    }
    for (let t = 0; t < 30000; t += 100) {
      const { lines, counts, held } = logged()
      if (counts.length && held + lines.length - counts.length >= pings * 0.98) break
      await sleep(100)
    }
    const seconds = (Date.now() - t0) / 1000
    const { lines, counts, held } = logged()
    if (pings / flood < 30) {
      console.log(`skip the flood: this machine answered only ${pings} pings in ${flood.toFixed(1)} s (${errors} failed)`)
      skipped++
      return
    }
    const allowed = (Math.ceil(seconds) + 1) * 21
    assert.ok(lines.length <= allowed, `${lines.length} log lines for ${pings} pings in ${seconds.toFixed(1)} s (allowed ${allowed})`)
    assert.ok(counts.length > 0, 'no line of counts: ' + lines.slice(-3).join(' | '))
    const shown = lines.length - counts.length
    // Every ping is a line, shown or counted (a few may still be in the pipe).
    assert.ok(held + shown >= pings * 0.98, `${held} counted + ${shown} shown, for ${pings} pings`)
    console.log(`     ${pings} pings in ${seconds.toFixed(1)} s: ${lines.length} log lines (${counts.length} of counts, ${held} lines counted)`)
  } finally {
    await srv.stop()
  }
}

function worldWith (levelDat) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-leveldat-'))
  fs.mkdirSync(path.join(dir, 'region'))
  fs.copyFileSync(path.join(corpus, REGION), path.join(dir, 'region', 'r.0.0.mca'))
  fs.writeFileSync(path.join(dir, 'level.dat'), levelDat)
  return dir
}

async function levelDat (name, bytes, reason) {
  if (!fs.existsSync(path.join(corpus, REGION))) {
    skipped++
    console.log(`skip ${name}: no corpus at ${corpus}`)
    return
  }
  await check(name, async () => {
    const dir = worldWith(bytes)
    const srv = await startServer(['--world', dir], { exitAfter: 60 })
    try {
      const log = srv.log()
      const warn = log.split('\n').find(l => /WARN\] .*level\.dat: /.test(l))
      assert.ok(warn, 'no warning about level.dat:\n' + log)
      assert.ok(reason.test(warn), `the warning does not say why (${reason}): ${warn}`)
      assert.ok(/spawn falls back to the first chunk of the first region file/.test(warn), 'no word on the fallback: ' + warn)
      const r = await mc.ping({ host: '127.0.0.1', port: srv.port, version: '1.8.8' })
      assert.ok(r.version, 'the server does not answer')
      console.log('     ' + warn)
    } finally {
      await srv.stop()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
}

async function main () {
  await check('a status-ping flood writes at most 20 log lines a second, the rest as counts', pingFlood)
  const noSpawn = zlib.gzipSync(nbt.writeUncompressed({
    type: 'compound', name: '', value: { Data: { type: 'compound', value: { LevelName: { type: 'string', value: 'x' } } } }
  }))
  await levelDat('a corrupt level.dat is reported', Buffer.concat([zlib.gzipSync(Buffer.from([10, 0, 0, 99, 99, 99])).subarray(0, 20)]), /not readable NBT: /)
  await levelDat('a level.dat that inflates without end is reported', zlib.gzipSync(Buffer.alloc(64 << 20)), /not readable NBT: .*(limit|budget|large|exceed)/i)
  await levelDat('a level.dat without a spawn is reported', noSpawn, /no spawn in it/)
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
  process.exit(failed ? 1 : 0)
}

main().catch(e => { console.error(e); process.exit(1) })
