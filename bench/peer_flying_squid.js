// peer_flying_squid.js: starts flying-squid (an existing Node server, the
// peer of bench_server) on a loopback port with a generated world, offline,
// and writes the port to the file given; stops after the given seconds.
// Usage: node bench/peer_flying_squid.js VERSION VIEW_DISTANCE PORT_FILE SECONDS
'use strict'
const path = require('path')
const fs = require('fs')
const mcServer = require(path.join(__dirname, 'peers/node_modules/flying-squid'))
const [version, vd, portFile, seconds] = process.argv.slice(2)
const port = 30000 + Math.floor(Math.random() * 20000)
const serv = mcServer.createMCServer({
  port,
  host: '127.0.0.1',
  'max-players': 1000,
  'online-mode': false,
  logging: false,
  gameMode: 1,
  difficulty: 0,
  worldFolder: undefined,
  generation: { name: 'diamond_square', options: { worldHeight: 80 } },
  kickTimeout: 60000,
  plugins: {},
  modpe: false,
  'view-distance': Number(vd),
  'player-list-text': { header: 'x', footer: 'y' },
  'everybody-op': true,
  'max-entities': 1000000, // players count as entities: 0 kicks the second one ("Too many mobs!")
  version
})
serv.on('listening', () => fs.writeFileSync(portFile, String(port)))
serv.on('error', e => { console.error(e); process.exit(1) })
setTimeout(() => process.exit(0), Number(seconds) * 1000)
