// server_soak.js: a memory soak of `mcchunk serve` (a benchmark to run by
// hand, not a test). N mineflayer bots of 5 versions join the built-in world
// and keep walking (a /tp a few chunks further every few seconds, so new
// columns are made, encoded per protocol and sent all the time) for a given
// time; the server's RSS (/proc/PID/status) is printed every 5 s with the
// bots online and the chunks they received, then again once the bots have
// quit. What to look for: RSS flat after the warm-up (the caches filling
// their --cache-mb), under the bound `serve --help` states, and lower again
// after the bots have left.
//   node bench/server_soak.js [--bots 40] [--seconds 300] [--cache-mb 64]
//        [--jump 64] [--every 2] [--bin build/mcchunk]
// Uses the oracle packages installed for tests/interop (mineflayer).
'use strict'
const fs = require('fs')
const path = require('path')
const { execFileSync } = require('child_process')

const args = process.argv.slice(2)
function opt (name, def) {
  const i = args.indexOf('--' + name)
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def
}
const BOTS = Number(opt('bots', 40))
const SECONDS = Number(opt('seconds', 300))
const CACHE_MB = Number(opt('cache-mb', 64))
const JUMP = Number(opt('jump', 64))
const EVERY = Number(opt('every', 2))
process.env.MCCHUNK_BIN = path.resolve(opt('bin', process.env.MCCHUNK_BIN || path.join(__dirname, '..', 'build', 'mcchunk')))

const interop = path.join(__dirname, '..', 'tests', 'interop')
const mineflayer = require(path.join(interop, 'node_modules', 'mineflayer'))
const { startServer, createBot } = require(path.join(interop, 'server_util'))

const VERSIONS = ['1.8.8', '1.12.2', '1.16.5', '1.20.4', '1.21.11']
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

function rssMib (pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch { return 0 }
}

function statedBound (clients) {
  const help = execFileSync(process.env.MCCHUNK_BIN, ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ (\d+) MiB per client \+ --send-queue-kb per client/.exec(help)
  const q = /--send-queue-kb N .*?\(default (\d+)\)/.exec(help)
  if (!m || !q) return NaN
  return Number(m[1]) + Number(m[2]) * CACHE_MB + clients * (Number(m[3]) + Number(q[1]) / 1024)
}

async function main () {
  const srv = await startServer(['--cache-mb', String(CACHE_MB), '--max-players', String(BOTS + 10), '--quiet'],
    { exitAfter: SECONDS + 600 })
  console.log(`mcchunk serve --cache-mb ${CACHE_MB}: ${BOTS} bots of ${VERSIONS.join(', ')} for ${SECONDS} s, ` +
    `each jumping ${JUMP} blocks every ${EVERY} s; stated RSS bound ${statedBound(BOTS).toFixed(0)} MiB`)
  console.log(`RSS at start: ${rssMib(srv.pid).toFixed(1)} MiB`)
  const bots = []
  let chunks = 0; let online = 0; let errors = 0
  for (let i = 0; i < BOTS; i++) {
    const version = VERSIONS[i % VERSIONS.length]
    const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'soak' + i, version, auth: 'offline' })
    const b = { bot, x: i * 20000, timer: null }
    bot.on('error', () => { errors++ })
    bot.on('kicked', () => { errors++ })
    bot._client.on('map_chunk', () => { chunks++ })
    bot.once('spawn', () => {
      online++
      b.timer = setInterval(() => { b.x += JUMP; bot.chat(`/tp ${b.x} 120 ${i * 20000}`) }, EVERY * 1000)
    })
    bot.once('end', () => { if (b.timer) { clearInterval(b.timer); online-- } })
    bots.push(b)
    await sleep(100) // logins spread a little, as players' are
  }
  const t0 = Date.now(); let peak = 0
  const rows = []
  while (Date.now() - t0 < SECONDS * 1000) {
    await sleep(5000)
    const r = rssMib(srv.pid)
    peak = Math.max(peak, r)
    rows.push(r)
    console.log(`t=${String(Math.round((Date.now() - t0) / 1000)).padStart(4)} s  RSS ${r.toFixed(1).padStart(7)} MiB  bots online ${String(online).padStart(3)}  chunks received ${chunks}  errors ${errors}`)
  }
  for (const b of bots) { if (b.timer) clearInterval(b.timer); b.bot.quit() }
  await sleep(5000)
  const after = rssMib(srv.pid)
  const half = rows.slice(Math.floor(rows.length / 2))
  const spread = half.length ? Math.max(...half) - Math.min(...half) : 0
  console.log(`peak ${peak.toFixed(1)} MiB; second half of the run: ${half.length ? Math.min(...half).toFixed(1) : '-'}..` +
    `${half.length ? Math.max(...half).toFixed(1) : '-'} MiB (spread ${spread.toFixed(1)} MiB); ` +
    `5 s after the bots quit: ${after.toFixed(1)} MiB; stated bound ${statedBound(BOTS).toFixed(0)} MiB with ${BOTS} clients, ` +
    `${statedBound(0).toFixed(0)} MiB with none`)
  await srv.stop()
  process.exit(0)
}

main().catch(e => { console.error(e); process.exit(1) })
