// test_server_protocol.js: `mcchunk serve` against minecraft-protocol, an
// independent client implementation, for every version it speaks (1.8.8 to
// 26.1): server-list ping, offline login (Set Compression, Login Success in
// each era's shape, the offline UUID), configuration (1.20.2+) and Join Game;
// the pre-1.7 legacy pings over a raw socket; and the bad-client cases
// (oversized frame, garbage, unsupported version, idle client).
'use strict'
const assert = require('assert')
const crypto = require('crypto')
const net = require('net')
const mc = require('minecraft-protocol')
const { startServer } = require('./server_util')
const { sampleReleases } = require('./sample')

const versions = sampleReleases(mc.supportedVersions.filter(v => v !== '1.7'))

function offlineUuid (name) {
  const h = crypto.createHash('md5').update('OfflinePlayer:' + name).digest()
  h[6] = (h[6] & 0x0f) | 0x30
  h[8] = (h[8] & 0x3f) | 0x80
  const x = h.toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

function textOf (reason) {
  // JSON string (before 1.20.3) or NBT (1.20.3+) as parsed by minecraft-protocol.
  if (typeof reason === 'string') {
    try { const j = JSON.parse(reason); return typeof j === 'string' ? j : j.text } catch { return reason }
  }
  if (reason && reason.type === 'string') return reason.value
  if (reason && reason.type === 'compound') return reason.value.text.value
  return JSON.stringify(reason)
}

// Logs in and waits for Join Game (the play-state "login" packet), which
// minecraft-protocol only parses if everything before it was right.
function login (port, version, username) {
  return new Promise((resolve, reject) => {
    const c = mc.createClient({ host: '127.0.0.1', port, username, version, auth: 'offline' })
    const seen = { compression: null, uuid: null, reason: null, joined: null }
    const timer = setTimeout(() => { c.end(); reject(new Error(`${version}: login timed out`)) }, 15000)
    c.on('compress', p => { seen.compression = p.threshold })
    c.on('success', p => { seen.uuid = p.uuid })
    c.on('disconnect', p => { seen.reason = textOf(p.reason) })
    c.on('kick_disconnect', p => { seen.reason = textOf(p.reason) })
    c.on('login', p => { seen.joined = p; c.end() })
    c.on('error', e => { clearTimeout(timer); reject(new Error(`${version}: ${e.message}`)) })
    // A disconnect packet can come out of the client's stream pipeline after
    // the socket's end is reported: give it a moment.
    c.on('end', () => { clearTimeout(timer); setTimeout(() => resolve(seen), 300) })
  })
}

function raw (port, bytes, { waitMs = 3000 } = {}) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    let got = Buffer.alloc(0)
    const timer = setTimeout(() => { s.destroy(); resolve({ data: got, closed: false }) }, waitMs)
    s.on('connect', () => s.write(bytes))
    s.on('data', d => { got = Buffer.concat([got, d]) })
    s.on('error', () => {})
    s.on('close', () => { clearTimeout(timer); resolve({ data: got, closed: true }) })
  })
}

function utf16be (buf) {
  let s = ''
  for (let i = 0; i + 1 < buf.length; i += 2) s += String.fromCharCode(buf.readUInt16BE(i))
  return s
}

const frame = b => Buffer.concat([Buffer.from([b.length]), b])
// A 1.12.2 (protocol 340) handshake to login and Login Start for `name`,
// framed without compression, as a raw client sends them.
function login1122 (name) {
  const hs = Buffer.from([0x00, 0xd4, 0x02, 0x01, 0x78, 0x63, 0xdd, 0x02])
  return Buffer.concat([frame(hs), frame(Buffer.concat([Buffer.from([0x00, name.length]), Buffer.from(name)]))])
}

let passed = 0; let failed = 0
async function check (name, fn) {
  try { await fn(); passed++; console.log('ok   ' + name) } catch (e) { failed++; console.log('FAIL ' + name + ': ' + e.message) }
}

;(async () => {
  const srv = await startServer(['--motd', 'mcchunk test', '--max-players', '7', '--view-distance', '6'])
  try {
    for (const v of versions) {
      await check(`status ${v}`, async () => {
        const r = await mc.ping({ host: '127.0.0.1', port: srv.port, version: v })
        assert.strictEqual(r.version.protocol, require('minecraft-data')(v).version.version)
        assert.strictEqual(r.players.max, 7)
        assert.strictEqual(r.description.text, 'mcchunk test')
      })
      await check(`login ${v}`, async () => {
        const name = 'bot_' + v.replace(/\./g, '')
        const seen = await login(srv.port, v, name)
        assert.strictEqual(seen.compression, 256, 'Set Compression threshold')
        assert.strictEqual(seen.uuid, offlineUuid(name), 'offline UUID')
        assert.strictEqual(seen.reason, null, 'disconnected: ' + seen.reason)
        assert.ok(seen.joined, 'no Join Game')
        const vd = seen.joined.viewDistance
        if (vd !== undefined) assert.strictEqual(vd, 6, 'view distance patched into Join Game')
      })
    }
    await check('legacy ping 1.4-1.6', async () => {
      const { data } = await raw(srv.port, Buffer.from([0xfe, 0x01, 0xfa]))
      assert.strictEqual(data[0], 0xff)
      const n = data.readUInt16BE(1)
      const s = utf16be(data.subarray(3))
      assert.strictEqual(s.length, n)
      assert.deepStrictEqual(s.split('\0'), ['\u00a71', '127', '1.8-26.1', 'mcchunk test', '0', '7'])
    })
    await check('legacy ping beta', async () => {
      const { data } = await raw(srv.port, Buffer.from([0xfe]))
      assert.strictEqual(data[0], 0xff)
      assert.strictEqual(utf16be(data.subarray(3)), 'mcchunk test\u00a70\u00a77')
    })
    await check('oversized frame is refused', async () => {
      // Length varint 0x3fffff (> 2 MiB): dropped at once, not buffered.
      const { closed } = await raw(srv.port, Buffer.from([0xff, 0xff, 0xff, 0x01]))
      assert.ok(closed)
    })
    await check('garbage handshake is refused', async () => {
      const { closed } = await raw(srv.port, Buffer.from([0x05, 0x07, 0xff, 0xff, 0xff, 0xff]))
      assert.ok(closed)
    })
    await check('clients vanishing mid-stream do not take the server down', async () => {
      // Log in (1.8 and 1.21.11 raw handshakes) and reset the connection as
      // soon as the first bytes arrive, while the server is still writing
      // the world: it must drop only those clients (no SIGPIPE death).
      for (const proto of [47, 774]) {
        for (let i = 0; i < 5; i++) {
          await new Promise(resolve => {
            const s = net.connect(srv.port, '127.0.0.1')
            s.on('connect', () => {
              const hs = Buffer.concat([Buffer.from([0x00]), Buffer.from(proto === 47 ? [0x2f] : [0x86, 0x06]), Buffer.from([0x01, 0x78, 0x63, 0xdd, 0x02])])
              const name = Buffer.from('gone' + i)
              let ls = Buffer.concat([Buffer.from([0x00, name.length]), name])
              if (proto >= 764) ls = Buffer.concat([ls, Buffer.alloc(16)])
              s.write(Buffer.concat([frame(hs), frame(ls)]))
            })
            s.once('data', () => { s.resetAndDestroy ? s.resetAndDestroy() : s.destroy(); resolve() })
            s.on('error', () => resolve())
            s.on('close', () => resolve())
          })
        }
      }
      const r = await mc.ping({ host: '127.0.0.1', port: srv.port, version: '1.21.11' })
      assert.strictEqual(r.description.text, 'mcchunk test')
    })
    await check('unsupported protocol gets a reason', async () => {
      // handshake: protocol 5 (1.7.10), host "x", port, next state login; then login start.
      const hs = Buffer.from([0x00, 0x05, 0x01, 0x78, 0x63, 0xdd, 0x02])
      const ls = Buffer.from([0x00, 0x03, 0x62, 0x6f, 0x74])
      const { data, closed } = await raw(srv.port, Buffer.concat([frame(hs), frame(ls)]))
      assert.ok(closed)
      assert.ok(data.toString('utf8').includes('Unsupported client version'))
    })
    await check('a kicked client behind on reading still gets the reason (no reset)', async () => {
      // A 1.12.2 client logs in and stops reading while the server streams
      // the view (megabytes: the kernel buffers fill); it sends a packet that
      // does not exist, which gets it kicked, then more bytes, then reads
      // again. Were the socket closed with those bytes unread, the kernel
      // would answer with a reset and drop what it still had to send,
      // the kick among it.
      const big = await startServer(['--view-distance', '20', '--compression-threshold', '-1', '--idle-timeout', '300'])
      let got = Buffer.alloc(0); let err = null
      const s = net.connect({ port: big.port, host: '127.0.0.1', onread: { buffer: Buffer.alloc(65536), callback: (n, buf) => { got = Buffer.concat([got, buf.subarray(0, n)]) } } })
      s.on('error', e => { err = e })
      const closed = new Promise(resolve => s.on('close', resolve))
      await new Promise(resolve => s.on('connect', resolve))
      s.pause()
      s.write(login1122('late'))
      // The whole view is queued when the join is logged (a sanitizer build
      // takes seconds for it).
      for (let t0 = Date.now(); !/late joined/.test(big.log()) && Date.now() - t0 < 120000;) await new Promise(resolve => setTimeout(resolve, 100))
      await new Promise(resolve => setTimeout(resolve, 300))
      s.write(Buffer.from([0x01, 0x7f])) // packet 0x7f: none in 1.12.2
      await new Promise(resolve => setTimeout(resolve, 500))
      s.write(Buffer.alloc(4096, 0x01))
      await new Promise(resolve => setTimeout(resolve, 300))
      s.resume()
      await Promise.race([closed, new Promise(resolve => setTimeout(resolve, 120000))])
      s.destroy()
      await big.stop()
      assert.ok(got.length > 1 << 20, 'the view was not streamed: ' + got.length + ' bytes')
      assert.strictEqual(err, null, 'connection error ' + (err && err.code) + ' after ' + got.length + ' bytes')
      assert.ok(got.subarray(-200).toString('utf8').includes('Unknown packet'), 'the kick was not the last thing received')
    })
  } finally {
    const code = await srv.stop()
    await check('server stops cleanly', async () => assert.strictEqual(code, 0))
  }
  // A config file (command-line options win), a client too slow to read the
  // world it asked for, and a packet out of order.
  const fs = require('fs'); const os = require('os'); const path = require('path')
  const conf = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-conf-')), 'server.conf')
  fs.writeFileSync(conf, '# mcchunk serve options\nmotd = From the file\nmax-players = 3\nview-distance = 10\nsend-queue-kb = 64\nsend-timeout = 3\ncompression-threshold = -1\n')
  const slow = await startServer(['--config', conf, '--max-players', '4'])
  try {
    await check('config file, overridden by the command line', async () => {
      const r = await mc.ping({ host: '127.0.0.1', port: slow.port, version: '1.21.11' })
      assert.strictEqual(r.description.text, 'From the file')
      assert.strictEqual(r.players.max, 4)
    })
    await check('a client that does not read is dropped as too slow', async () => {
      // 1.12.2 raw login; the client never reads but teleports far every
      // 0.25 s (chat "/tp", id 2; no compression, so that the columns soon
      // fill the socket buffers of both ends). Chunks are
      // queued only while the client's queue has room; once its queue has
      // taken nothing for --send-timeout, only it is dropped.
      const s = net.connect(slow.port, '127.0.0.1')
      await new Promise(resolve => s.on('connect', resolve))
      s.pause()
      s.write(login1122('slow'))
      let x = 0
      const tp = setInterval(() => {
        const text = Buffer.from(`/tp ${x += 1000} 100 0`)
        s.write(frame(Buffer.concat([Buffer.from([0x02, text.length]), text])))
      }, 250)
      const t0 = Date.now()
      while (!/too slow/.test(slow.log()) && Date.now() - t0 < 15000) await new Promise(resolve => setTimeout(resolve, 100))
      clearInterval(tp)
      s.destroy()
      assert.ok(/slow disconnected: client too slow/.test(slow.log()), 'server log: ' + slow.log().split('\n').slice(-5).join(' | '))
      const r = await mc.ping({ host: '127.0.0.1', port: slow.port, version: '1.8.8' })
      assert.strictEqual(r.description.text, 'From the file')
    })
    await check('a packet out of order ends the login with a reason', async () => {
      const hs = Buffer.from([0x00, 0xd4, 0x02, 0x01, 0x78, 0x63, 0xdd, 0x02])
      const odd = Buffer.from([0x2a, 0x01, 0x02]) // no such login packet
      const { data, closed } = await raw(slow.port, Buffer.concat([frame(hs), frame(odd)]))
      assert.ok(closed)
      assert.ok(data.toString('utf8').includes('Unexpected packet during login'))
    })
  } finally {
    await slow.stop()
  }
  const idle = await startServer(['--idle-timeout', '1', '--compression-threshold', '-1'])
  try {
    await check('idle client is dropped', async () => {
      // --idle-timeout 1 against the default 30: dropped well before the
      // default, with room for a loaded machine (the bound is not a speed)
      const t0 = Date.now()
      const { closed } = await raw(idle.port, Buffer.alloc(0), { waitMs: 15000 })
      assert.ok(closed && Date.now() - t0 < 15000, 'not dropped in time')
      assert.ok(Date.now() - t0 >= 900, 'dropped before the idle time')
    })
    await check('login without compression', async () => {
      const seen = await login(idle.port, '1.20.4', 'plain')
      assert.strictEqual(seen.compression, null)
      assert.strictEqual(seen.uuid, offlineUuid('plain'))
    })
  } finally {
    await idle.stop()
  }
  await check('the server stops even when a client does not read', async () => {
    // A client that never reads holds unsent bytes that a graceful close
    // would wait for without end: the server gives it a few seconds.
    const big = await startServer(['--view-distance', '20', '--compression-threshold', '-1'])
    const s = net.connect({ port: big.port, host: '127.0.0.1', onread: { buffer: Buffer.alloc(65536), callback: () => {} } })
    s.on('error', () => {})
    await new Promise(resolve => s.on('connect', resolve))
    s.pause()
    s.write(login1122('stuck'))
    // The whole view is queued when the join is logged (not after a time: a
    // SIGTERM before it finds nothing unsent, and no grace to give)
    for (let t0 = Date.now(); !/stuck joined/.test(big.log()) && Date.now() - t0 < 60000;) await new Promise(resolve => setTimeout(resolve, 100))
    const t0 = Date.now()
    process.kill(big.pid, 'SIGTERM')
    const code = await Promise.race([big.exited, new Promise(resolve => setTimeout(() => resolve('still running'), 15000))])
    s.destroy()
    if (code === 'still running') await big.stop()
    assert.strictEqual(code, 0, 'server exit after SIGTERM')
    assert.ok(Date.now() - t0 >= 2500, 'the client was not given its grace time')
  })
  // How the server stops by itself: after --exit-after seconds (code 0, the
  // reason logged), and, with --exit-with-parent, when the process that
  // started it exits (here a shell that starts it in the background and
  // leaves a second after the server listens, which a loaded machine makes
  // take seconds (the built-in world's columns come first: 6 s at load 8;
  // the shell waits up to 2 minutes); the backstop is ten minutes, so only
  // the parent watch can end it within the test's 15 s).
  await check('--exit-after stops the server by itself', async () => {
    const t0 = Date.now()
    const srv = await startServer([], { exitAfter: 2 })
    const code = await Promise.race([srv.exited, new Promise(resolve => setTimeout(() => resolve('still running'), 15000))])
    if (code === 'still running') await srv.stop()
    assert.strictEqual(code, 0)
    assert.ok(Date.now() - t0 >= 1900, 'stopped too early')
    assert.ok(/stopping: --exit-after reached/.test(srv.log()), srv.log())
  })
  await check('--exit-with-parent stops the server when its parent exits', async () => {
    const { execFileSync } = require('child_process')
    const { bin } = require('./server_util')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-parent-'))
    const portFile = path.join(dir, 'port')
    const pid = parseInt(execFileSync('sh', ['-c',
      '"$0" serve --bind 127.0.0.1 --port 0 --no-bedrock --port-file "$1" --exit-after 600 --exit-with-parent --quiet </dev/null >/dev/null 2>&1 & ' +
      'echo $!; i=0; while [ ! -s "$1" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; sleep 1',
      bin(), portFile], { encoding: 'utf8' }), 10)
    // The shell has exited; the server was running (it wrote its port) and
    // must now stop. A process that ended may stay a zombie until reaped, so
    // /proc's state tells, not kill(pid, 0).
    const alive = () => { try { return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) } catch { return false } }
    assert.ok(fs.readFileSync(portFile, 'utf8').trim(), 'the server never listened')
    const t0 = Date.now()
    while (alive() && Date.now() - t0 < 15000) await new Promise(resolve => setTimeout(resolve, 100))
    const still = alive()
    if (still) process.kill(pid, 'SIGTERM')
    fs.rmSync(dir, { recursive: true, force: true })
    assert.ok(!still, 'server still running 15 s after its parent exited')
  })
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
})()
