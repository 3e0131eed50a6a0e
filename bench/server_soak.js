// server_soak.js: a memory and fairness soak of `mcchunk serve` (a benchmark
// to run by hand, not a test). N mineflayer bots of 5 versions join the
// built-in world and keep walking (a /tp a few chunks further every few
// seconds, so new columns are made, encoded per protocol and sent all the
// time) for a given time. The bots run in several node processes (--procs),
// because one node process cannot read what 40 bots are sent: a bot whose
// process lags 30 s behind its socket times out on keep-alives, and that
// would say nothing about the server. Every 5 s it prints the server's RSS
// (/proc/PID/status) and CPU share (/proc/PID/stat), the bots online, the
// chunks they received, the errors, and the longest gap any bot saw between
// two keep-alives; the server's own status line (players, columns made,
// longest tick gap) is printed as it comes. At the end: RSS flat after the
// warm-up, under the bound `serve --help` states, lower again once the bots
// have quit, and every bot still online (no errors) is what to look for.
//   node bench/server_soak.js [--bots 40] [--procs 4] [--seconds 300]
//        [--cache-mb 64] [--jump 64] [--every 2] [--bin build/mcchunk]
// Uses the oracle packages installed for tests/interop (mineflayer).
'use strict'
const fs = require('fs')
const path = require('path')
const { execFileSync, fork } = require('child_process')

const args = process.argv.slice(2)
function opt (name, def) {
  const i = args.indexOf('--' + name)
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def
}
const BOTS = Number(opt('bots', 40))
const PROCS = Math.max(1, Math.min(BOTS, Number(opt('procs', Math.ceil(BOTS / 10)))))
const SECONDS = Number(opt('seconds', 300))
const CACHE_MB = Number(opt('cache-mb', 64))
const JUMP = Number(opt('jump', 64))
const EVERY = Number(opt('every', 2))
process.env.MCCHUNK_BIN = path.resolve(opt('bin', process.env.MCCHUNK_BIN || path.join(__dirname, '..', 'build', 'mcchunk')))

const interop = path.join(__dirname, '..', 'tests', 'interop')
const VERSIONS = ['1.8.8', '1.12.2', '1.16.5', '1.20.4', '1.21.11']
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// ---------------------------------------------------------------- a child
// Runs bots first, first + step, ... below BOTS against the port and reports
// its counters to the parent once a second.
async function child (port, first, step) {
  const mineflayer = require(path.join(interop, 'node_modules', 'mineflayer'))
  const { createBot } = require(path.join(interop, 'server_util'))
  const st = { online: 0, chunks: 0, errors: 0, maxKeepaliveGapMs: 0, messages: [] }
  const bots = []
  for (let i = first; i < BOTS; i += step) {
    const version = VERSIONS[i % VERSIONS.length]
    const bot = createBot(mineflayer, { host: '127.0.0.1', port, username: 'soak' + i, version, auth: 'offline' })
    const b = { bot, x: i * 20000, timer: null, lastKeepalive: 0 }
    const fail = why => { st.errors++; if (st.messages.length < 5) st.messages.push(`soak${i} (${version}): ${why}`) }
    bot.on('error', e => fail(String(e && e.message)))
    bot.on('kicked', r => fail('kicked: ' + JSON.stringify(r)))
    bot._client.on('map_chunk', () => { st.chunks++ })
    bot._client.on('keep_alive', () => {
      const now = Date.now()
      if (b.lastKeepalive) st.maxKeepaliveGapMs = Math.max(st.maxKeepaliveGapMs, now - b.lastKeepalive)
      b.lastKeepalive = now
    })
    bot.once('spawn', () => {
      st.online++
      b.timer = setInterval(() => { b.x += JUMP; bot.chat(`/tp ${b.x} 120 ${i * 20000}`) }, EVERY * 1000)
    })
    bot.once('end', () => { if (b.timer) { clearInterval(b.timer); b.timer = null; st.online-- } })
    bots.push(b)
    await sleep(100 * step) // logins spread a little, as players' are
  }
  const report = setInterval(() => { process.send(st); st.messages = [] }, 1000)
  process.on('message', async m => {
    if (m !== 'quit') return
    for (const b of bots) { if (b.timer) clearInterval(b.timer); b.bot.quit() }
    await sleep(1000)
    clearInterval(report)
    process.send(st)
    process.exit(0)
  })
}

// --------------------------------------------------------------- the parent
function rssMib (pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch { return 0 }
}

// utime + stime of a process, in seconds.
function cpuSeconds (pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ')
    return (Number(rest[11]) + Number(rest[12])) / 100
  } catch { return 0 }
}

function statedBound (clients) {
  const help = execFileSync(process.env.MCCHUNK_BIN, ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ (\d+) MiB per client \+ --send-queue-kb per client/.exec(help)
  const q = /--send-queue-kb N .*?\(default (\d+)\)/.exec(help)
  if (!m || !q) return NaN
  return Number(m[1]) + Number(m[2]) * CACHE_MB + clients * (Number(m[3]) + Number(q[1]) / 1024)
}

async function parent () {
  const { startServer } = require(path.join(interop, 'server_util'))
  const srv = await startServer(['--cache-mb', String(CACHE_MB), '--max-players', String(BOTS + 10)],
    { exitAfter: SECONDS + 600 })
  console.log(`mcchunk serve --cache-mb ${CACHE_MB}: ${BOTS} bots of ${VERSIONS.join(', ')} in ${PROCS} node processes ` +
    `for ${SECONDS} s, each jumping ${JUMP} blocks every ${EVERY} s; stated RSS bound ${statedBound(BOTS).toFixed(0)} MiB`)
  console.log(`RSS at start: ${rssMib(srv.pid).toFixed(1)} MiB`)
  let logSeen = srv.log().length
  const printStatus = () => {
    const log = srv.log()
    for (const line of log.slice(logSeen).split('\n')) {
      if (/status:|WARN|ERROR/.test(line)) console.log('  server: ' + line.trim())
    }
    logSeen = log.length
  }
  const stats = []
  const kids = []
  for (let k = 0; k < PROCS; k++) {
    const kid = fork(__filename, ['--child', String(srv.port), String(k), String(PROCS), ...args])
    stats[k] = { online: 0, chunks: 0, errors: 0, maxKeepaliveGapMs: 0 }
    kid.on('message', m => {
      stats[k] = m
      for (const msg of m.messages || []) console.log('  bot: ' + msg)
    })
    kids.push(kid)
  }
  const sum = key => stats.reduce((a, s) => a + s[key], 0)
  const max = key => stats.reduce((a, s) => Math.max(a, s[key]), 0)
  const t0 = Date.now()
  let peak = 0; let cpu0 = cpuSeconds(srv.pid); let tPrev = Date.now()
  const rows = []
  while (Date.now() - t0 < SECONDS * 1000) {
    await sleep(5000)
    const r = rssMib(srv.pid)
    const cpu = cpuSeconds(srv.pid); const now = Date.now()
    const share = (cpu - cpu0) / ((now - tPrev) / 1000)
    cpu0 = cpu; tPrev = now
    peak = Math.max(peak, r)
    rows.push(r)
    printStatus()
    console.log(`t=${String(Math.round((now - t0) / 1000)).padStart(4)} s  RSS ${r.toFixed(1).padStart(7)} MiB  ` +
      `server CPU ${(100 * share).toFixed(0).padStart(3)}%  bots online ${String(sum('online')).padStart(3)}  ` +
      `chunks received ${sum('chunks')}  errors ${sum('errors')}  longest keep-alive gap ${(max('maxKeepaliveGapMs') / 1000).toFixed(1)} s`)
  }
  const onlineAtEnd = sum('online')
  for (const kid of kids) kid.send('quit')
  await Promise.all(kids.map(kid => new Promise(resolve => kid.on('exit', resolve))))
  await sleep(5000)
  printStatus()
  const after = rssMib(srv.pid)
  const half = rows.slice(Math.floor(rows.length / 2))
  const spread = half.length ? Math.max(...half) - Math.min(...half) : 0
  console.log(`peak ${peak.toFixed(1)} MiB; second half of the run: ${half.length ? Math.min(...half).toFixed(1) : '-'}..` +
    `${half.length ? Math.max(...half).toFixed(1) : '-'} MiB (spread ${spread.toFixed(1)} MiB); ` +
    `5 s after the bots quit: ${after.toFixed(1)} MiB; stated bound ${statedBound(BOTS).toFixed(0)} MiB with ${BOTS} clients, ` +
    `${statedBound(0).toFixed(0)} MiB with none`)
  console.log(`bots online at the end: ${onlineAtEnd}/${BOTS}; errors ${sum('errors')}; ` +
    `longest keep-alive gap a bot saw ${(max('maxKeepaliveGapMs') / 1000).toFixed(1)} s (the server sends one every 15 s)`)
  await srv.stop()
  process.exit(0)
}

const c = args.indexOf('--child')
if (c >= 0) child(Number(args[c + 1]), Number(args[c + 2]), Number(args[c + 3])).catch(e => { console.error(e); process.exit(1) })
else parent().catch(e => { console.error(e); process.exit(1) })
