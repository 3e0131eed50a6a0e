// test_server_memory_silent.js: a client that logs in and then never reads
// its socket (minecraft-protocol's socket unpiped and paused) while it keeps
// asking for new columns (a /tp far away every second: writing needs no
// reading). The server must not buffer the world for it: chunks wait while
// its send queue is full, RSS stays under what `serve --help` states for one
// client with --cache-mb 16, and once its queue has taken nothing for the
// send timeout (--send-timeout 5 here, to keep the test short) it is
// dropped with the reason in the log; the server goes on answering others.
'use strict'
const assert = require('assert')
const fs = require('fs')
const { execFileSync } = require('child_process')
const mc = require('minecraft-protocol')
const { startServer, bin, sanitizerBuild } = require('./server_util')

const CACHE_MB = 16
const SANITIZED = sanitizerBuild()

function helpBound () {
  const help = execFileSync(bin(), ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ (\d+) MiB per Java client \+ --send-queue-kb per Java client/.exec(help)
  assert.ok(m, 'serve --help states no RSS bound: ' + help)
  const queueMb = Number(/--send-queue-kb N .*?\(default (\d+)\)/.exec(help)[1]) / 1024
  const timeout = Number(/--send-timeout SECONDS .*?\(default (\d+)\)/.exec(help)[1])
  return { timeout, mib: (clients, cacheMb) => Number(m[1]) + Number(m[2]) * cacheMb + clients * (Number(m[3]) + queueMb) }
}

function rssMib (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : 0
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

async function main () {
  if (SANITIZED) console.log('note: sanitizer build: RSS is not compared with the bound (shadow memory, quarantine); the drop is still checked')
  const bound = helpBound()
  const limit = bound.mib(1, CACHE_MB)
  // No compression: a 1.8 column is then tens of KiB, and a few views are
  // more than the socket buffers of both ends hold however slowly the
  // machine makes columns, so the server's own queue is what fills.
  const TIMEOUT = 5
  const srv = await startServer(['--cache-mb', String(CACHE_MB), '--compression-threshold', '-1',
    '--send-timeout', String(TIMEOUT)], { exitAfter: 120 })
  let failed = false
  try {
    const c = mc.createClient({ host: '127.0.0.1', port: srv.port, username: 'silent', version: '1.8.8', auth: 'offline' })
    c.on('error', () => {})
    await new Promise((resolve, reject) => {
      c.once('login', resolve)
      setTimeout(() => reject(new Error('no Join Game in 40 s')), 40000)
    })
    c.socket.unpipe()
    c.socket.pause()
    let x = 0
    const tp = setInterval(() => { x += 400; c.write('chat', { message: `/tp ${x} 120 0` }) }, 1000)
    const t0 = Date.now(); let peak = 0; const samples = []
    const dropped = () => /silent disconnected: client too slow: its send queue took nothing for \d+ s/.test(srv.log())
    // The queue fills within seconds; then the timeout; slack for a loaded machine.
    const deadline = (TIMEOUT + 35) * 1000
    while (!dropped() && Date.now() - t0 < deadline) {
      await sleep(250)
      const r = rssMib(srv.pid)
      peak = Math.max(peak, r)
      samples.push(r)
      assert.ok(SANITIZED || r <= limit, `RSS ${r.toFixed(1)} MiB after ${(Date.now() - t0) / 1000} s passes the stated ${limit.toFixed(1)} MiB`)
    }
    clearInterval(tp)
    const took = (Date.now() - t0) / 1000
    assert.ok(dropped(), `the client that does not read was not dropped in ${took} s`)
    console.log(`ok   a client that does not read is dropped after ${took.toFixed(1)} s (--send-timeout ${TIMEOUT}; default ${bound.timeout} s), reason logged; RSS peak ${peak.toFixed(1)} MiB, stated bound ${limit.toFixed(1)} MiB`)
    console.log('     RSS every 2 s: ' + samples.filter((_, i) => i % 8 === 7).map(r => r.toFixed(0)).join(' '))
    c.socket.destroy()
    const r = await mc.ping({ host: '127.0.0.1', port: srv.port, version: '1.8.8' })
    assert.ok(r.version, 'no answer to a ping after the drop')
    console.log('ok   the server answers others after the drop')
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
