// test_map_http.js: the web map's HTTP server (`mcchunk serve --http`) under
// bad and many requests, spoken to over raw TCP so that every byte is the
// test's own:
//   - path traversal in every spelling, a zoom beyond --zooms (and a huge
//     one), tile numbers that are not whole decimal numbers or lie outside
//     the world, other methods, a broken request line, an over-long path
//     and over-long headers: each a 4xx, never a file;
//   - tiles at negative numbers (west and north of the origin) are tiles;
//   - 10,000 requests at once: every one answered (200, or 429 when more
//     than 512 connections are open), the server alive afterwards, its
//     resident memory within what `serve --help` states for --http;
//   - a connection that never sends its request is answered 408 and closed;
//   - the built-in world (no --world): 2,000 tile requests at once over
//     zooms 0-4, near spawn and far, all answered, memory within what
//     `serve --help` states for --http with the built-in world, tiles beyond
//     the square around spawn the empty tile, tiles of the other dimensions
//     empty, and map-data.js's bounds that square.
'use strict'
const assert = require('assert')
const fs = require('fs')
const net = require('net')
const os = require('os')
const path = require('path')
const { startServer, sanitizerBuild } = require('./server_util')

const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
if (!process.env.MCCHUNK_BIN) { console.log('MCCHUNK_BIN not set: skipping'); process.exit(0) }
if (!fs.existsSync(path.join(CORPUS, 'anvil'))) { console.log('corpus absent: skipping'); process.exit(0) }

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// Sends `raw` and resolves with the status code (0: closed without an answer).
function request (port, raw, timeoutMs = 30000) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    let got = Buffer.alloc(0)
    let done = false
    const finish = (v) => { if (!done) { done = true; s.destroy(); resolve(v) } }
    s.setTimeout(timeoutMs, () => finish(-1))
    s.on('connect', () => s.write(raw))
    s.on('data', (d) => {
      got = Buffer.concat([got, d])
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(got.toString('latin1', 0, 16))
      const end = got.indexOf('\r\n\r\n')
      if (m && end >= 0) {
        const len = Number((/Content-Length: (\d+)/i.exec(got.toString('latin1', 0, end)) || [0, 0])[1])
        if (got.length >= end + 4 + len || raw.startsWith('HEAD')) finish({ status: Number(m[1]), body: got.slice(end + 4) })
      }
    })
    s.on('error', () => finish(0))
    s.on('close', () => finish(0))
  })
}
const get = (port, p) => request(port, `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`)

function rssKiB (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : 0
}

async function main () {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-http-'))
  const world = path.join(tmp, 'world')
  fs.mkdirSync(path.join(world, 'region'), { recursive: true })
  fs.copyFileSync(path.join(CORPUS, 'anvil/1.16/ppa-r.0.-1.mca'), path.join(world, 'region/r.0.-1.mca'))
  fs.copyFileSync(path.join(CORPUS, 'anvil/1.8.9/ppa-r.-1.0.mca'), path.join(world, 'region/r.-1.0.mca'))
  const srv = await startServer(['--world', world, '--http', '0'], { exitAfter: 300 })
  let port = 0
  for (let i = 0; i < 200 && !port; i++) {
    const m = /web map on http:\/\/127\.0\.0\.1:(\d+)\//.exec(srv.log())
    if (m) port = Number(m[1]); else await sleep(50)
  }
  assert(port, 'the web map\'s port is logged')
  let failures = 0
  const check = async (name, fn) => {
    try { await fn(); console.log('ok   ' + name) } catch (e) { failures++; console.log('FAIL ' + name + ': ' + (e.stack || e)) }
  }
  try {
    const silent = new Promise((resolve) => { // sends nothing: 408 after 10 s
      const s = net.connect(port, '127.0.0.1')
      let got = ''
      s.on('data', (d) => { got += d })
      s.on('close', () => resolve(got))
      s.on('error', () => resolve(got))
    })

    await check('bad requests are 4xx', async () => {
      const cases = [
        ['GET /../etc/passwd HTTP/1.1', 400], ['GET /%2e%2e/etc/passwd HTTP/1.1', 400],
        ['GET /tiles/overworld/0/../../../etc/passwd HTTP/1.1', 400], ['GET //etc/passwd HTTP/1.1', 400],
        ['GET /leaflet/../../server.c HTTP/1.1', 400], ['GET /etc/passwd HTTP/1.1', 404],
        ['GET /index.html/.. HTTP/1.1', 400], ['GET /tiles/overworld/5/0/0.png HTTP/1.1', 400],
        ['GET /tiles/overworld/99999999999/0/0.png HTTP/1.1', 400], ['GET /tiles/overworld/-1/0/0.png HTTP/1.1', 400],
        ['GET /tiles/overworld/0/a/0.png HTTP/1.1', 400], ['GET /tiles/overworld/0/1e3/0.png HTTP/1.1', 400],
        ['GET /tiles/overworld/0/0x10/0.png HTTP/1.1', 400], ['GET /tiles/overworld/0/+1/0.png HTTP/1.1', 400],
        ['GET /tiles/overworld/0//0.png HTTP/1.1', 400], ['GET /tiles/overworld/0/1/2/3.png HTTP/1.1', 400],
        ['GET /tiles/overworld/0/99999999/0.png HTTP/1.1', 400], ['GET /tiles/overworld/0/0/-60000.png HTTP/1.1', 400],
        ['GET /tiles/overworld/0/0/0.jpg HTTP/1.1', 400], ['GET /tiles/nether/0/0/0.png HTTP/1.1', 404],
        ['POST /players.json HTTP/1.1', 405], ['DELETE / HTTP/1.1', 405], ['GET / HTTP/2.0', 400],
        ['GARBAGE', 400], ['GET /' + 'a'.repeat(300) + ' HTTP/1.1', 414], ['GET /\u00e9 HTTP/1.1', 400]
      ]
      for (const [line, want] of cases) {
        const r = await request(port, line + '\r\nHost: x\r\n\r\n')
        assert.strictEqual(r.status, want, `${line}: ${r.status}`)
        assert(!/root:/.test(r.body.toString()), line)
      }
      const big = await request(port, 'GET / HTTP/1.1\r\nX-Big: ' + 'b'.repeat(9000) + '\r\n\r\n')
      assert.strictEqual(big.status, 431)
      const head = await request(port, 'HEAD / HTTP/1.1\r\n\r\n')
      assert.strictEqual(head.status, 200)
      assert.strictEqual(head.body.length, 0)
    })

    await check('negative tile numbers are tiles; the page and its data are served', async () => {
      const t = await get(port, '/tiles/overworld/0/-1/0.png')
      assert.strictEqual(t.status, 200)
      assert.strictEqual(t.body.slice(1, 4).toString(), 'PNG')
      assert.strictEqual((await get(port, '/tiles/overworld/2/-1/-1.png')).status, 200)
      for (const p of ['/', '/map.js', '/leaflet/leaflet.js', '/leaflet/leaflet.css', '/dimensions.js', '/tiles/the_end/map-data.js']) {
        assert.strictEqual((await get(port, p)).status, 200, p)
      }
      assert.deepStrictEqual(JSON.parse((await get(port, '/players.json')).body), [])
    })

    await check('10,000 requests at once: all answered, memory bounded', async () => {
      const before = rssKiB(srv.pid)
      const paths = []
      for (let i = 0; i < 10000; i++) {
        // tiles of the two regions and around them (a few dozen renders), and far ones (empty)
        const z = i % 3; const span = 4 >> z
        paths.push(i % 5 === 0 ? `/tiles/overworld/0/${1000 + i}/${-i}.png` : `/tiles/overworld/${z}/${(i % (2 * span)) - span}/${((i >> 3) % (2 * span)) - span}.png`)
      }
      const results = await Promise.all(paths.map((p) => get(port, p)))
      const count = {}
      for (const r of results) count[r.status] = (count[r.status] || 0) + 1
      console.log('     answers:', JSON.stringify(count), `RSS ${before} -> ${rssKiB(srv.pid)} KiB`)
      assert.strictEqual((count[200] || 0) + (count[429] || 0), 10000, JSON.stringify(count))
      assert(count[200] > 0, JSON.stringify(count)) // how many before the limit bites depends on the machine
      assert(srv.running())
      assert.strictEqual((await get(port, '/tiles/overworld/0/0/-1.png')).status, 200)
      // serve --help: --http adds at most 100 MiB (tiles, renders, connections)
      if (!sanitizerBuild()) assert(rssKiB(srv.pid) - before < 100 * 1024, `RSS ${before} -> ${rssKiB(srv.pid)} KiB`)
    })

    await check('a connection that sends no request is answered 408 and closed', async () => {
      const got = await silent
      assert.match(got, /^HTTP\/1\.1 408 /)
    })
    await check('the built-in world: 2,000 requests at once, memory bounded, nothing beyond the square', async () => {
      const b = await startServer(['--http', '0', '--view-distance', '2'], { exitAfter: 300 })
      try {
        let bport = 0
        for (let i = 0; i < 200 && !bport; i++) {
          const m = /web map on http:\/\/127\.0\.0\.1:(\d+)\//.exec(b.log())
          if (m) bport = Number(m[1]); else await sleep(50)
        }
        const sp = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(b.log()).slice(1).map(Number)
        const [cx, cz] = [sp[0] >> 4, sp[2] >> 4]
        const data = (await get(bport, '/tiles/overworld/map-data.js')).body.toString()
        assert(data.includes(`"bounds": [${(cx - 2) * 16}, ${(cz - 2) * 16}, ${(cx + 2) * 16 + 15}, ${(cz + 2) * 16 + 15}]`), data)
        const empty = (await get(bport, '/tiles/overworld/0/40/40.png')).body
        const before = rssKiB(b.pid)
        const paths = []
        for (let i = 0; i < 2000; i++) {
          const z = i % 5; const span = 2
          paths.push(i % 4 === 0 ? `/tiles/overworld/0/${100 + i}/${-i}.png` : `/tiles/overworld/${z}/${(i % (2 * span)) - span}/${((i >> 2) % (2 * span)) - span}.png`)
        }
        const results = await Promise.all(paths.map((p) => get(bport, p)))
        const count = {}
        for (const r of results) count[r.status] = (count[r.status] || 0) + 1
        console.log('     built-in world answers:', JSON.stringify(count), `RSS ${before} -> ${rssKiB(b.pid)} KiB`)
        assert.strictEqual((count[200] || 0) + (count[429] || 0), 2000, JSON.stringify(count))
        assert(results.filter((r, i) => i % 4 === 0 && r.status === 200).every((r) => r.body.equals(empty)), 'far tiles are the empty tile')
        const spawnTile = await get(bport, `/tiles/overworld/0/${Math.floor(sp[0] / 512)}/${Math.floor(sp[2] / 512)}.png`)
        assert.strictEqual(spawnTile.status, 200)
        assert(!spawnTile.body.equals(empty), 'the spawn\'s tile shows the world')
        assert((await get(bport, '/tiles/the_nether/0/0/0.png')).body.equals(empty), 'no nether in the built-in world')
        // serve --help: --http adds at most 100 MiB, and 2 x 16 MiB for the built-in world's generators
        if (!sanitizerBuild()) assert(rssKiB(b.pid) - before < 132 * 1024, `RSS ${before} -> ${rssKiB(b.pid)} KiB`)
      } finally {
        assert.strictEqual(await b.stop(), 0, b.log().slice(-3000))
      }
    })
  } finally {
    const code = await srv.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
    if (code !== 0) { failures++; console.log(`FAIL the server stopped with ${code} (a sanitizer report?):\n${srv.log().slice(-3000)}`) }
  }
  if (failures) { console.log(`${failures} failed`); process.exit(1) }
  console.log('all passed')
}

main().catch((e) => { console.log('FAIL ' + (e.stack || e)); process.exit(1) })
