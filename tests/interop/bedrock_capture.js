// bedrock_capture.js: helpers for the Bedrock interop tests. The corpus holds
// packets captured by bedrock-protocol from vanilla dedicated servers as JSON
// (Buffers as {type:'Buffer', data:[...]}, u64 as decimal strings); these
// helpers turn them back into packet bytes with bedrock-protocol's own
// serializer, and list the captures with their version and flags.
'use strict'
const fs = require('fs')
const path = require('path')

// One compiled protocol per version (compiling takes ~0.5 s), shared by
// the serializer and the parser.
const protocols = new Map()
function protocol (version) {
  if (!protocols.has(version)) {
    const { createProtocol } = require('bedrock-protocol/src/transforms/serializer')
    protocols.set(version, createProtocol(version))
  }
  return protocols.get(version)
}
const serializers = new Map()
function serializer (version) {
  if (!serializers.has(version)) {
    const { Serializer } = require('protodef')
    serializers.set(version, new Serializer(protocol(version), 'mcpe_packet'))
  }
  return serializers.get(version)
}
const deserializers = new Map()
function deserializer (version) {
  if (!deserializers.has(version)) {
    const { FullPacketParser } = require('protodef')
    deserializers.set(version, new FullPacketParser(protocol(version), 'mcpe_packet'))
  }
  return deserializers.get(version)
}

// JSON -> protodef values: Buffers back to Buffer, u64 strings to BigInt.
function revive (v, key) {
  if (Array.isArray(v)) return v.map(x => revive(x))
  if (v && typeof v === 'object') {
    if (v.type === 'Buffer' && Array.isArray(v.data)) return Buffer.from(v.data)
    const o = {}
    for (const [k, x] of Object.entries(v)) o[k] = revive(x, k)
    return o
  }
  if (typeof v === 'string' && /^\d+$/.test(v) && (key === 'blob_id' || key === 'hash')) return BigInt(v)
  return v
}

function packetName (file) {
  const b = path.basename(file)
  if (b.includes('cache-miss-response')) return 'client_cache_miss_response'
  if (b.startsWith('level_chunk')) return 'level_chunk'
  if (b.startsWith('subchunk')) return 'subchunk'
  return null
}

// Every capture: {file, version, name, params, hashed, cached}.
function listCaptures (corpus) {
  const root = path.join(corpus, 'bedrock')
  const out = []
  if (!fs.existsSync(root)) return out
  for (const version of fs.readdirSync(root).sort()) {
    const net = path.join(root, version, 'network')
    if (!fs.existsSync(net)) continue
    const walk = (d) => {
      for (const e of fs.readdirSync(d).sort()) {
        const p = path.join(d, e)
        if (fs.statSync(p).isDirectory()) walk(p)
        else if (e.endsWith('.json')) {
          let json = JSON.parse(fs.readFileSync(p, 'utf8'))
          let name = packetName(p)
          if (json.name && json.params) { name = json.name; json = json.params }
          if (!name) continue
          const flags = path.relative(net, p)
          out.push({
            file: p,
            version,
            name,
            params: revive(json),
            hashed: /(^|\/)(cache|no-cache)_hash\//.test(flags),
            cached: /(^|\/)cache_/.test(flags) || path.basename(p).includes('_cached_')
          })
        }
      }
    }
    walk(net)
  }
  return out
}

// Packet bytes (id varint + body) of a capture, serialized by bedrock-protocol.
function packetBytes (version, name, params) {
  if (name === 'client_cache_miss_response' && !Array.isArray(params.blobs)) {
    params = { blobs: Object.entries(params.blobs).map(([h, b]) => ({ hash: BigInt(h), payload: b })) }
  }
  return serializer(version).createPacketBuffer({ name, params })
}

// Parses a whole packet; throws when bytes are left over.
function parsePacket (version, buf) {
  const r = deserializer(version).parsePacketBuffer(buf)
  if (r.metadata && r.metadata.size !== buf.length) {
    throw new Error(`${buf.length - r.metadata.size} bytes after the packet`)
  }
  return r.data
}

module.exports = { listCaptures, packetBytes, parsePacket, serializer, revive }
