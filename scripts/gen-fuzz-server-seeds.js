#!/usr/bin/env node
// gen-fuzz-server-seeds.js: writes fuzz/corpus/fuzz_server/, the seeds of the
// server fuzz target: the bytes real clients send to `mcchunk serve`.
// mineflayer bots (an implementation we did not write) of a spread of
// versions join a server started from the given binary through a recording
// proxy, spawn, send a chat command (/tp) and walk a little; minecraft-
// protocol's server-list ping and the pre-1.7 legacy ping are recorded too.
// Each seed is one piece-size byte (what fuzz_server.c reads first) followed
// by everything the client sent, in order.
//
//   node scripts/gen-fuzz-server-seeds.js build/mcchunk
//
// The bytes depend on timing (how many movement packets fit in the window),
// so a rerun gives equivalent, not identical, seeds.
'use strict'
const fs = require('fs')
const net = require('net')
const path = require('path')
const { spawn } = require('child_process')

const root = path.resolve(__dirname, '..')
const nm = path.join(root, 'tests/interop/node_modules')
const mc = require(path.join(nm, 'minecraft-protocol'))
const mineflayer = require(path.join(nm, 'mineflayer'))
const out = path.join(root, 'fuzz/corpus/fuzz_server')
const bin = process.argv[2] || path.join(root, 'build/mcchunk')

async function startServer () {
  const portFile = path.join(fs.mkdtempSync(path.join(require('os').tmpdir(), 'mcchunk-seeds-')), 'port')
  const p = spawn(bin, ['serve', '--port', '0', '--port-file', portFile, '--view-distance', '2',
    '--exit-after', '300', '--exit-with-parent', '--quiet'], { stdio: 'inherit' })
  for (let i = 0; i < 200 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++) await sleep(50)
  return { proc: p, port: parseInt(fs.readFileSync(portFile, 'utf8'), 10) }
}

// A proxy on a free port that records what its one client sends.
function recorder (port) {
  return new Promise(resolve => {
    const rec = { chunks: [] }
    const srv = net.createServer(c => {
      const s = net.connect(port, '127.0.0.1')
      c.on('data', d => { rec.chunks.push(d); s.write(d) })
      s.on('data', d => c.write(d))
      c.on('close', () => s.destroy())
      s.on('close', () => c.destroy())
      c.on('error', () => {})
      s.on('error', () => {})
    })
    srv.listen(0, '127.0.0.1', () => { rec.port = srv.address().port; rec.close = () => srv.close(); resolve(rec) })
  })
}

function save (name, piece, rec) {
  const bytes = Buffer.concat([Buffer.from([piece]), ...rec.chunks])
  fs.writeFileSync(path.join(out, name), bytes)
  console.log(`${name}: ${bytes.length} bytes`)
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

;(async () => {
  fs.mkdirSync(out, { recursive: true })
  const { proc, port } = await startServer()
  try {
    for (const v of ['1.8.8', '1.12.2', '1.16.5', '1.18.2', '1.19.4', '1.20.1', '1.20.4', '1.20.6', '1.21.4', '1.21.11', '26.1']) {
      const rec = await recorder(port)
      const bot = mineflayer.createBot({ host: '127.0.0.1', port: rec.port, username: 'seed', version: v, auth: 'offline' })
      await new Promise((resolve, reject) => { bot.once('spawn', resolve); bot.once('error', reject); setTimeout(() => reject(new Error(v + ': no spawn')), 30000) })
      await sleep(500)
      bot.chat('/tp 100 90 -40')
      await sleep(500)
      bot.setControlState('forward', true)
      await sleep(500)
      bot.end()
      await sleep(200)
      rec.close()
      save(`login-${v}`, 255, rec)
      save(`login-${v}-split`, 6, rec) // the same bytes in 7-byte reads
    }
    {
      const rec = await recorder(port)
      await mc.ping({ host: '127.0.0.1', port: rec.port, version: '1.21.11' })
      await sleep(200)
      rec.close()
      save('status-1.21.11', 255, rec)
    }
    // Legacy pings: beta (FE), 1.4-1.5 (FE 01), 1.6 (FE 01 FA MC|PingHost ...).
    const host = Buffer.from('localhost', 'utf16le').swap16()
    const mcPing = Buffer.from('MC|PingHost', 'utf16le').swap16()
    const tail = Buffer.concat([Buffer.from([0x4a, 0, host.length / 2]), host, Buffer.from([0, 0, 0x63, 0xdd])])
    const legacy16 = Buffer.concat([Buffer.from([0xfe, 0x01, 0xfa, 0x00, 0x0b]), mcPing,
      Buffer.from([tail.length >> 8, tail.length & 0xff]), tail])
    for (const [name, bytes] of [['legacy-beta', Buffer.from([0xfe])], ['legacy-1.4', Buffer.from([0xfe, 0x01])], ['legacy-1.6', legacy16]]) {
      fs.writeFileSync(path.join(out, name), Buffer.concat([Buffer.from([255]), bytes]))
      console.log(`${name}: ${bytes.length + 1} bytes`)
    }
  } finally {
    proc.kill('SIGTERM')
  }
  process.exit(0)
})().catch(e => { console.error(e); process.exit(1) })
