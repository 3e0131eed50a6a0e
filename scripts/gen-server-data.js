#!/usr/bin/env node
// gen-server-data.js: writes programs/mcchunk/server/data/join_data.c, the per-protocol
// constant packets `mcchunk serve` sends when a player joins:
//   - the Join Game packet ("login" in minecraft-data's names), for every
//     release protocol from 1.8 (47) to 26.1 (775), in creative mode in the
//     overworld; from 1.16 on with the registry codec that a vanilla server
//     sends (minecraft-data's captured loginPacket of that version);
//   - for 1.20.2+ the Registry Data packets of the configuration phase.
// Packets are serialized by minecraft-protocol's own serializer (an
// independent implementation of each version's packet layout), then stored
// zlib-compressed. Values the server sets at run time (view distance,
// simulation distance) are located by serializing twice with different
// values and recording the offset of the single byte that differs.
//
//   node scripts/gen-server-data.js
//
// Rerunning it with the pinned packages (tests/interop/package.json)
// reproduces the file byte for byte.
'use strict'
const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const root = path.resolve(__dirname, '..')
const nm = path.join(root, 'tests/interop/node_modules')
const mc = require(path.join(nm, 'minecraft-protocol'))
const mcData = require(path.join(nm, 'minecraft-data'))
const dataPaths = require(path.join(nm, 'minecraft-data/minecraft-data/data/dataPaths.json')).pc
const mdVersion = require(path.join(nm, 'minecraft-data/package.json')).version
const mpVersion = require(path.join(nm, 'minecraft-protocol/package.json')).version

function isRelease (v) { return /^\d+\.\d+(\.\d+)?$/.test(v) }
function cmp (a, b) {
  const pa = a.split('.').map(Number); const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) { const d = (pa[i] || 0) - (pb[i] || 0); if (d) return d }
  return 0
}

// One entry per protocol number: the newest release that has it.
const byProto = new Map()
for (const v of Object.keys(dataPaths).filter(isRelease).sort(cmp)) {
  const d = mcData(v)
  if (!d || !d.version || d.version.version < 47) continue
  byProto.set(d.version.version, v)
}

function loginParams (v, d, viewDistance, simulationDistance) {
  const fields = d.protocol.play.toClient.types.packet_login[1].map(f => f.name)
  const lp = d.loginPacket ? JSON.parse(JSON.stringify(d.loginPacket)) : {}
  const p = {}
  for (const f of fields) {
    if (f in lp) p[f] = lp[f]
  }
  const set = (k, val) => { if (fields.includes(k)) p[k] = val }
  set('entityId', 1)
  set('isHardcore', false)
  set('gameMode', 1) // creative: the player may fly to look around
  const typeOf = k => { const f = d.protocol.play.toClient.types.packet_login[1].find(x => x.name === k); return f && f.type }
  set('previousGameMode', typeOf('previousGameMode') === 'i8' ? -1 : 255)
  set('difficulty', 0)
  set('maxPlayers', 20)
  set('levelType', 'default')
  set('reducedDebugInfo', false)
  set('enableRespawnScreen', true)
  set('hashedSeed', [0, 0])
  set('isDebug', false)
  set('isFlat', false)
  set('portalCooldown', 0)
  set('doLimitedCrafting', false)
  set('enforcesSecureChat', false)
  set('viewDistance', viewDistance)
  set('simulationDistance', simulationDistance)
  if (fields.includes('dimension') && !('dimension' in p)) p.dimension = 0
  if (p.worldState) {
    p.worldState.gamemode = 'creative'
    p.worldState.hashedSeed = [0, 0]
    p.worldState.isDebug = false
    p.worldState.isFlat = false
    p.worldState.portalCooldown = 0
    delete p.worldState.death
  }
  // 1.20.2-1.20.4 keep these at top level
  if ('gameMode' in p && typeof p.gameMode === 'string') p.gameMode = 'creative'
  delete p.dimensionCodec
  if (fields.includes('dimensionCodec')) p.dimensionCodec = lp.dimensionCodec
  return p
}

function diffOffset (a, b, what, v) {
  if (a.length !== b.length) throw new Error(`${v}: ${what} changes the packet length`)
  const offs = []
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) offs.push(i)
  if (offs.length !== 1) throw new Error(`${v}: ${what} differs in ${offs.length} bytes`)
  return offs[0]
}

const entries = []
for (const proto of [...byProto.keys()].sort((a, b) => a - b)) {
  const v = byProto.get(proto)
  const d = mcData(v)
  const play = mc.createSerializer({ state: 'play', isServer: true, version: v })
  const fields = d.protocol.play.toClient.types.packet_login[1].map(f => f.name)
  const base = play.createPacketBuffer({ name: 'login', params: loginParams(v, d, 10, 10) })
  let vdOff = -1; let sdOff = -1
  if (fields.includes('viewDistance')) {
    const other = play.createPacketBuffer({ name: 'login', params: loginParams(v, d, 11, 10) })
    vdOff = diffOffset(base, other, 'viewDistance', v)
  }
  if (fields.includes('simulationDistance')) {
    const other = play.createPacketBuffer({ name: 'login', params: loginParams(v, d, 10, 11) })
    sdOff = diffOffset(base, other, 'simulationDistance', v)
  }
  const registry = []
  if (proto >= 764) {
    const cfg = mc.createSerializer({ state: 'configuration', isServer: true, version: v })
    const codec = d.registryCodec || d.loginPacket.dimensionCodec
    if (proto >= 766) {
      for (const key of Object.keys(codec)) registry.push(cfg.createPacketBuffer({ name: 'registry_data', params: codec[key] }))
    } else {
      registry.push(cfg.createPacketBuffer({ name: 'registry_data', params: { codec } }))
    }
  }
  const parts = [base]
  for (const r of registry) {
    const len = Buffer.alloc(4); len.writeUInt32LE(r.length)
    parts.push(len, r)
  }
  const raw = Buffer.concat(parts)
  const z = zlib.deflateSync(raw, { level: 9 })
  entries.push({ proto, v, raw, z, loginLen: base.length, vdOff, sdOff, nreg: registry.length })
}

let out = '/*\n * GENERATED FILE: do not edit.\n'
out += ` * Made by scripts/gen-server-data.js from minecraft-data ${mdVersion} (loginPacket.json)\n`
out += ` * serialized with minecraft-protocol ${mpVersion}.\n`
out += ' * Per protocol: zlib of [Join Game packet][(u32le length, Registry Data packet)...].\n */\n'
out += '#include "server/join_data.h"\n\n'
// Identical data (protocols whose packets did not change) is stored once.
const blobOf = new Map()
for (const e of entries) {
  const key = e.z.toString('base64')
  if (blobOf.has(key)) { e.blob = blobOf.get(key); continue }
  e.blob = `z${e.proto}`
  blobOf.set(key, e.blob)
  out += `static const uint8_t z${e.proto}[${e.z.length}] = {`
  for (let i = 0; i < e.z.length; i++) {
    if (i % 24 === 0) out += '\n   '
    out += ' ' + e.z[i] + ','
  }
  out += '\n};\n'
}
out += `\nconst mc_join_data mc_join_data_table[${entries.length}] = {\n`
for (const e of entries) {
  out += `    {${e.proto}, "${e.v}", ${e.blob}, ${e.z.length}, ${e.raw.length}, ${e.loginLen}, ${e.vdOff}, ${e.sdOff}, ${e.nreg}},\n`
}
out += '};\n'
out += `const unsigned mc_join_data_count = ${entries.length};\n`
fs.writeFileSync(path.join(root, 'programs/mcchunk/server/data/join_data.c'), out)
const total = [...new Set(entries.map(e => e.blob))].reduce((s, b) => s + entries.find(e => e.blob === b).z.length, 0)
console.log(`wrote programs/mcchunk/server/data/join_data.c: ${entries.length} protocols, ${total} bytes compressed`)
