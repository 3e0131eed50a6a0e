// udp_relay.js: a UDP relay between one client and a server for the RakNet
// tests, which loses, duplicates and delays (so reorders) datagrams:
// `upLoss` of the client's, `downLoss` of the server's, `dup` of both,
// each delayed by up to `jitterMs`. `dropUp(buf)`, when given, decides
// which of the client's datagrams never arrive (e.g. its ACKs).
'use strict'
const dgram = require('dgram')

async function lossyRelay (serverPort, { upLoss = 0.1, downLoss = 0.1, dup = 0.05, jitterMs = 30, dropUp = null } = {}) {
  const front = dgram.createSocket('udp4')
  const back = dgram.createSocket('udp4')
  let clientPort = null
  const stats = { passed: 0, lost: 0, duplicated: 0, dropped: 0 }
  const pass = (sock, buf, port, loss) => {
    if (Math.random() < loss) { stats.lost++; return }
    const copies = Math.random() < dup ? 2 : 1
    if (copies === 2) stats.duplicated++
    for (let i = 0; i < copies; i++) {
      setTimeout(() => { try { sock.send(buf, port, '127.0.0.1') } catch {} }, Math.random() * jitterMs)
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
