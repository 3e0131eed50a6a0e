// test_server_memory.js: `mcchunk serve --cache-mb 16` under clients that
// walk (a teleport 80 blocks on every 0.25 s, so that new columns are
// generated, encoded and sent all the time, and old ones are never asked for
// again) stays under the RSS that `serve --help` states for that many
// clients, and gives memory back once they have left. Clients of two
// protocols (minecraft-protocol, an independent implementation), so that the
// encoded packets of each protocol share the one budget with the columns.
// (Before the budget covered the columns, one such client took the server
// from 12 to 443 MiB in 20 s.)
// RSS is read from /proc/PID/status every 0.25 s.
'use strict'
const assert = require('assert')
const fs = require('fs')
const { execFileSync } = require('child_process')
const mc = require('minecraft-protocol')
const { startServer, bin, sanitizerBuild } = require('./server_util')

const CACHE_MB = 16
const SANITIZED = sanitizerBuild()
const WALK_MS = 20000
const versions = ['1.8.8', '1.12.2'] // chat is "chat" with the slash before 1.19

// The bound `serve --help` states: "RSS stays under A MiB + B x --cache-mb
// + C MiB per Java client + --send-queue-kb per Java client ...".
function helpBound () {
  const help = execFileSync(bin(), ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ (\d+) MiB per Java client \+ --send-queue-kb per Java client/.exec(help)
  assert.ok(m, 'serve --help states no RSS bound: ' + help)
  const queueMb = Number(/--send-queue-kb N .*?\(default (\d+)\)/.exec(help)[1]) / 1024
  return { text: m[0], mib: (clients, cacheMb) => Number(m[1]) + Number(m[2]) * cacheMb + clients * (Number(m[3]) + queueMb) }
}

function rssMib (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : 0
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

function walker (port, version, name, startX) {
  return new Promise((resolve, reject) => {
    const c = mc.createClient({ host: '127.0.0.1', port, username: name, version, auth: 'offline' })
    const w = { client: c, chunks: 0, x: startX, timer: null, error: null }
    c.on('map_chunk', () => { w.chunks++ })
    c.on('error', e => { w.error = e })
    c.on('kick_disconnect', p => { w.error = new Error(`${version} kicked: ${JSON.stringify(p.reason)}`) })
    const t = setTimeout(() => reject(new Error(`${version}: no Join Game in 40 s`)), 40000)
    w.walk = () => {
      w.timer = setInterval(() => {
        w.x += 80
        c.write('chat', { message: `/tp ${w.x} 120 ${startX}` })
      }, 250)
    }
    c.once('login', () => { clearTimeout(t); resolve(w) })
  })
}

async function main () {
  if (SANITIZED) console.log('note: sanitizer build: RSS is not compared with the bound (shadow memory, quarantine); the clients are still checked')
  const bound = helpBound()
  const srv = await startServer(['--cache-mb', String(CACHE_MB)], { exitAfter: 120 })
  let failed = false
  try {
    const base = rssMib(srv.pid)
    const walkers = []
    // Everyone joins first, then walks (a walk keeps the server busy making
    // columns: on a loaded machine a later login would wait behind it).
    for (let i = 0; i < versions.length; i++) walkers.push(await walker(srv.port, versions[i], 'walker' + i, i * 100000))
    for (const w of walkers) w.walk()
    const limit = bound.mib(walkers.length, CACHE_MB)
    let peak = 0; const t0 = Date.now(); const samples = []
    while (Date.now() - t0 < WALK_MS) {
      await sleep(250)
      const r = rssMib(srv.pid)
      peak = Math.max(peak, r)
      samples.push(r)
      assert.ok(srv.running(), 'server died:\n' + srv.log())
      assert.ok(SANITIZED || r <= limit, `RSS ${r.toFixed(1)} MiB after ${(Date.now() - t0) / 1000} s of walking passes the stated ${limit.toFixed(1)} MiB (${bound.text})`)
    }
    for (const w of walkers) {
      clearInterval(w.timer)
      assert.ifError(w.error)
      // Each walker was served all along (making columns is what limits it:
      // about 100 new ones a jump, more than a loaded machine makes; a
      // sanitizer build, unoptimised, makes and lights them 10-20x slower:
      // 82-243 chunks there).
      assert.ok(w.chunks > (SANITIZED ? 40 : 300), `${w.client.version}: only ${w.chunks} chunks in ${WALK_MS / 1000} s`)
      w.client.end()
    }
    console.log(`ok   ${walkers.length} walking clients for ${WALK_MS / 1000} s with --cache-mb ${CACHE_MB}: RSS ${base.toFixed(1)} MiB at start, peak ${peak.toFixed(1)} MiB, stated bound ${limit.toFixed(1)} MiB; chunks received ${walkers.map(w => w.chunks).join(', ')}`)
    console.log('     RSS every 2 s: ' + samples.filter((_, i) => i % 8 === 7).map(r => r.toFixed(0)).join(' '))
    // Gone clients: their buffers and queues are freed and memory goes back.
    const idle = bound.mib(0, CACHE_MB)
    let after = rssMib(srv.pid)
    for (let i = 0; i < 20 && after > idle; i++) { await sleep(250); after = rssMib(srv.pid) }
    assert.ok(SANITIZED || after <= idle, `RSS ${after.toFixed(1)} MiB with no client passes the stated ${idle.toFixed(1)} MiB`)
    console.log(`ok   after the clients left: RSS ${after.toFixed(1)} MiB (stated bound with no client: ${idle.toFixed(1)} MiB)`)
  } catch (e) {
    failed = true
    console.log('FAIL ' + e.message)
    console.log('  server log (tail):\n' + srv.log().trimEnd().split('\n').filter(l => !/teleported/.test(l)).slice(-12).map(l => '  | ' + l).join('\n'))
  } finally {
    await srv.stop()
  }
  process.exit(failed ? 1 : 0)
}

main().catch(e => { console.error(e); process.exit(1) })
