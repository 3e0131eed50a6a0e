#!/usr/bin/env node
// gen-packet-ids.js: writes src/java/data/packet_ids.c, the Java Edition
// packet-id table of every protocol version minecraft-data describes (1.7 on),
// for every connection state and both directions, from minecraft-data's
// protocol.json files. Packet names are minecraft-data's (map_chunk,
// update_light, chunk_batch_start, ...).
//
//   node scripts/gen-packet-ids.js [path/to/minecraft-data]
//
// Rerunning it with the pinned minecraft-data (tests/interop/package.json)
// reproduces the file byte for byte: versions and packets are emitted in a
// fixed order and nothing depends on time or the machine.
'use strict'
const fs = require('fs')
const path = require('path')

const root = path.resolve(__dirname, '..')
const mdRoot = process.argv[2] ||
  path.join(root, 'tests/interop/node_modules/minecraft-data/minecraft-data/data')
const mdVersion = require(path.join(mdRoot, '../../package.json')).version
const dataPaths = require(path.join(mdRoot, 'dataPaths.json')).pc

const STATES = ['handshaking', 'status', 'login', 'configuration', 'play']
const DIRS = ['toClient', 'toServer']

function isRelease (v) { return /^\d+\.\d+(\.\d+)?$/.test(v) }

// Collect (protocol number -> version) preferring releases, then the newest name.
const byProtocol = new Map()
for (const v of Object.keys(dataPaths)) {
  const p = dataPaths[v]
  if (!p.protocol || !p.version) continue
  const ver = require(path.join(mdRoot, p.version, 'version.json'))
  if (ver.majorVersion === '0.30c' || typeof ver.version !== 'number') continue
  const proto = ver.version
  const prev = byProtocol.get(proto)
  const better = !prev || (isRelease(v) && !isRelease(prev.name)) ||
    (isRelease(v) === isRelease(prev.name) && cmpVersion(v, prev.name) > 0)
  if (better) byProtocol.set(proto, { name: v, protocolPath: p.protocol })
}
function cmpVersion (a, b) {
  const pa = a.split(/[.-]/).map(x => parseInt(x, 10) || 0)
  const pb = b.split(/[.-]/).map(x => parseInt(x, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] || 0) - (pb[i] || 0)
    if (d) return d
  }
  return 0
}

const protocols = [...byProtocol.keys()].sort((a, b) => a - b)
const names = new Map() // packet name -> index in the name pool
const rows = [] // per protocol: [{state, dir, id, name}]
for (const proto of protocols) {
  const { protocolPath } = byProtocol.get(proto)
  const pj = require(path.join(mdRoot, protocolPath, 'protocol.json'))
  const list = []
  STATES.forEach((state, si) => {
    DIRS.forEach((dir, di) => {
      const t = pj[state] && pj[state][dir] && pj[state][dir].types && pj[state][dir].types.packet
      if (!t) return
      const mappings = t[1][0].type[1].mappings
      for (const [idHex, name] of Object.entries(mappings)) {
        if (!names.has(name)) names.set(name, null)
        list.push({ si, di, id: parseInt(idHex, 16), name })
      }
    })
  })
  list.sort((a, b) => a.si - b.si || a.di - b.di || a.id - b.id)
  rows.push(list)
}
const sortedNames = [...names.keys()].sort()
sortedNames.forEach((n, i) => names.set(n, i))

let out = ''
out += '/*\n * GENERATED FILE: do not edit.\n'
out += ` * Made by scripts/gen-packet-ids.js from minecraft-data ${mdVersion}\n`
out += ' * (data/pc/VERSION/protocol.json and version.json).\n'
out += ' * Java Edition packet ids per protocol version, state and direction.\n */\n'
out += '#include "java/packet_table.h"\n\n'
out += `const char *const mc__java_packet_names[${sortedNames.length}] = {\n`
for (const n of sortedNames) out += `    "${n}",\n`
out += '};\n'
out += `const unsigned mc__java_packet_name_count = ${sortedNames.length};\n\n`
out += '/* Entries: (state << 12) | (direction << 11) | id, then the name index. */\n'
rows.forEach((list, i) => {
  out += `static const uint16_t p${protocols[i]}[${list.length * 2}] = {\n`
  let line = '   '
  for (const e of list) {
    const item = ` ${(e.si << 12) | (e.di << 11) | e.id}, ${names.get(e.name)},`
    if (line.length + item.length > 96) { out += line + '\n'; line = '   ' }
    line += item
  }
  out += line + '\n};\n'
})
out += `\nconst mc__java_packet_protocol mc__java_packet_protocols[${protocols.length}] = {\n`
protocols.forEach((proto, i) => {
  out += `    {${proto}, "${byProtocol.get(proto).name}", p${proto}, ${rows[i].length}},\n`
})
out += '};\n'
out += `const unsigned mc__java_packet_protocol_count = ${protocols.length};\n`

fs.writeFileSync(path.join(root, 'src/java/data/packet_ids.c'), out)
console.log(`wrote src/java/data/packet_ids.c: ${protocols.length} protocols, ${sortedNames.length} packet names`)
