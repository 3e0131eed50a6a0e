// test_bedrock_server_memory.js: `mcchunk serve --cache-mb 16` under
// Bedrock clients that walk into new land (a MovePlayer 96 blocks on every
// 0.25 s) and ask for every subchunk of every column they are sent, so
// that columns are converted, answered, compressed and cached all the time
// and old ones are never asked for again: RSS stays under what `serve
// --help` states for that many Bedrock clients and that cache (the Bedrock
// data shares --cache-mb with the rest), and every request is answered.
// Three releases in three id and cache settings, so that the variants
// share the one budget. RSS is read from /proc/PID/status every 0.25 s
// (not compared in a sanitizer build).
'use strict'
const assert = require('assert')
const fs = require('fs')
const { execFileSync } = require('child_process')
const { bin, sanitizerBuild } = require('./server_util')
const { startBedrock, join } = require('./bedrock_server_util')

const CACHE_MB = 16
const WALK_MS = 10000
const CLIENTS = [['1.21.60', false], ['1.26.51', true], ['1.20.61', true]]

function helpBound () {
  const help = execFileSync(bin(), ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ .*? \+ (\d+) MiB per Bedrock client/.exec(help)
  assert.ok(m, 'serve --help states no RSS bound for Bedrock clients')
  return { text: m[0], mib: (clients, cacheMb) => Number(m[1]) + Number(m[2]) * cacheMb + clients * Number(m[3]) }
}

function rssMib (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : 0
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

// A client that asks for every subchunk of each column it is sent and
// counts the answers.
function walker (b, version, i) {
  const w = { asked: 0, answered: 0, error: null, x: i * 100000, timer: null }
  b.client.on('subchunk', p => { w.answered += p.entries ? p.entries.length : 1 })
  b.client.on('kick', p => { w.error = new Error(`${version} kicked: ${p.message}`) })
  b.client.on('level_chunk', p => {
    const requests = []
    for (let dy = -4; dy < 20; dy++) requests.push({ dx: 0, dy, dz: 0, x: 0, y: dy, z: 0 })
    b.client.queue('subchunk_request', { dimension: 0, origin: { x: p.x, y: 0, z: p.z }, requests })
    w.asked += requests.length
  })
  w.walk = () => {
    w.timer = setInterval(() => {
      w.x += 96
      b.client.queue('move_player', {
        runtime_id: Number(b.startGame.runtime_entity_id), position: { x: w.x, y: 101.62, z: 0 }, pitch: 0, yaw: 0,
        head_yaw: 0, mode: 'normal', on_ground: false, ridden_runtime_id: 0, tick: 0n
      })
    }, 250)
  }
  return w
}

async function main () {
  const sanitized = sanitizerBuild()
  const bound = helpBound()
  const { srv, port } = await startBedrock(['--view-distance', '3', '--cache-mb', String(CACHE_MB), '--bedrock-ids', 'index'],
    { exitAfter: 120 })
  const clients = []
  try {
    for (const [i, [version, cache]] of CLIENTS.entries()) {
      const b = await join({ port, version, radius: 3, cache, name: `W${i}`, timeout: 60000 })
      clients.push({ b, w: walker(b, version, i) })
    }
    for (const { w } of clients) w.walk()
    const limit = bound.mib(clients.length, CACHE_MB)
    let peak = 0
    for (const t0 = Date.now(); Date.now() - t0 < WALK_MS;) {
      await sleep(250)
      const r = rssMib(srv.pid)
      peak = Math.max(peak, r)
      assert.ok(srv.running(), 'the server died')
      assert.ok(sanitized || r <= limit, `RSS ${r.toFixed(1)} MiB passes the stated ${limit.toFixed(1)} MiB (${bound.text})`)
    }
    for (const { w } of clients) clearInterval(w.timer)
    for (let t = 0; t < 20000 && clients.some(({ w }) => w.answered < w.asked); t += 250) await sleep(250)
    for (const [i, { w }] of clients.entries()) {
      assert.ifError(w.error)
      // (a walker asks for what it is sent: columns made and lit 5-10x
      // slower in a sanitizer build, so fewer of them in the same walk)
      assert.ok(w.asked > (sanitized ? 400 : 2000), `W${i} asked for only ${w.asked} subchunks`)
      assert.strictEqual(w.answered, w.asked, `W${i}: ${w.answered} of ${w.asked} subchunks answered`)
    }
    const asked = clients.reduce((n, { w }) => n + w.asked, 0)
    console.log(`ok ${clients.length} Bedrock clients walked ${WALK_MS / 1000} s with --cache-mb ${CACHE_MB}: all ${asked} ` +
      `subchunks asked for answered; peak RSS ${peak.toFixed(0)} MiB` + (sanitized ? ' (sanitizer build: not compared)' : ` (stated bound ${limit.toFixed(0)} MiB)`))
  } catch (e) {
    console.error(srv.log().slice(-4000))
    throw e
  } finally {
    for (const { b, w } of clients) { clearInterval(w.timer); b.client.close() }
    assert.strictEqual(await srv.stop(), 0)
  }
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
