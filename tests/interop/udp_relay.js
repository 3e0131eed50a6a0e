// udp_relay.js: a UDP relay between one client and a server for the RakNet
// tests, which loses, duplicates and delays (so reorders) datagrams:
// `upLoss` of the client's, `downLoss` of the server's, `dup` of both,
// each delayed by up to `jitterMs`. `dropUp(buf)`, when given, decides
// which of the client's datagrams never arrive (e.g. its ACKs).
// The losses are drawn from a seeded generator whose seed is printed
// (MCCHUNK_SEED=N draws the same sequence again; the timing still varies).
'use strict'
const dgram = require('dgram')

// mulberry32: a small seeded generator of floats in [0, 1)
function seeded (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function lossyRelay (serverPort, { upLoss = 0.1, downLoss = 0.1, dup = 0.05, jitterMs = 30, dropUp = null } = {}) {
  const front = dgram.createSocket('udp4')
  const back = dgram.createSocket('udp4')
  let clientPort = null
  const stats = { passed: 0, lost: 0, duplicated: 0, dropped: 0 }
  const seed = process.env.MCCHUNK_SEED ? Number(process.env.MCCHUNK_SEED) : Math.floor(Math.random() * 2 ** 32)
  console.log(`     udp relay: seed ${seed} (MCCHUNK_SEED=${seed} draws the same losses)`)
  const random = seeded(seed)
  const pass = (sock, buf, port, loss) => {
    if (random() < loss) { stats.lost++; return }
    const copies = random() < dup ? 2 : 1
    if (copies === 2) stats.duplicated++
    for (let i = 0; i < copies; i++) {
      setTimeout(() => { try { sock.send(buf, port, '127.0.0.1') } catch {} }, random() * jitterMs)
    }
    stats.passed++
  }
  front.on('message', (m, r) => {
    clientPort = r.port
    if (dropUp && dropUp(m)) { stats.dropped++; return }
    pass(back, m, serverPort, upLoss)
  })
  back.on('message', m => { if (clientPort) pass(front, m, clientPort, downLoss) })
  await new Promise(resolve => front.bind(0, '127.0.0.1', resolve))
  await new Promise(resolve => back.bind(0, '127.0.0.1', resolve))
  let closed = false
  return { port: front.address().port, stats, close () { if (!closed) { closed = true; front.close(); back.close() } } }
}

module.exports = { lossyRelay }
