#!/usr/bin/env node
// gen-fuzz-bedrock-seeds.js: writes the seeds of fuzz/fuzz_server_bedrock.c
// into fuzz/corpus/fuzz_server_bedrock/: whole client sides of a Bedrock
// join, so that the fuzzer starts from inputs that reach every state of
// the server's session. Packets are made with bedrock-protocol's
// serializer (the layouts of each release), batches framed as the client
// frames them: raw before NetworkSettings, then with the algorithm byte
// (0xFF none, or 0 and raw DEFLATE) from 1.20.60, always DEFLATE before
// 1.19.30 (which also speaks RakNet 10, the seed's first byte 1). The
// login's JWTs carry JSON the server reads; their signatures are not
// checked (offline mode), so they are left empty.
// Record format (see the fuzz target): a first byte, then [len u16 LE][bytes].
//
//   node scripts/gen-fuzz-bedrock-seeds.js
'use strict'
const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const root = path.resolve(__dirname, '..')
const nm = path.join(root, 'tests/interop/node_modules')
const { createSerializer } = require(path.join(nm, 'bedrock-protocol/src/transforms/serializer'))
const out = path.join(root, 'fuzz/corpus/fuzz_server_bedrock')

const b64url = o => Buffer.from(JSON.stringify(o)).toString('base64url')
const jwt = (head, body) => `${b64url(head)}.${b64url(body)}.`

function loginTokens (name, newForm) {
  const key = 'MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAE' + 'A'.repeat(128)
  const chain = [jwt({ alg: 'ES384', x5u: key }, {
    extraData: { displayName: name, identity: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', XUID: '0' },
    identityPublicKey: key
  })]
  const identity = newForm
    ? JSON.stringify({ Certificate: JSON.stringify({ chain }), AuthenticationType: 2, Token: '' })
    : JSON.stringify({ chain })
  const client = jwt({ alg: 'ES384', x5u: key }, { ThirdPartyName: name, DeviceModel: 'fuzz', SkinData: 'AAAA' })
  return { identity, client }
}

function varint (n) {
  const b = []
  while (n >= 0x80) { b.push((n & 0x7f) | 0x80); n >>>= 7 }
  b.push(n)
  return Buffer.from(b)
}

// One batch of packets: raw, or compressed as the phase and release want.
function batch (packets, { compressed, algorithmByte, deflate }) {
  const body = Buffer.concat(packets.flatMap(p => [varint(p.length), p]))
  if (!compressed) return Buffer.concat([Buffer.from([0xfe]), body])
  const z = zlib.deflateRawSync(body)
  if (!algorithmByte) return Buffer.concat([Buffer.from([0xfe]), z])
  return deflate ? Buffer.concat([Buffer.from([0xfe, 0]), z]) : Buffer.concat([Buffer.from([0xfe, 0xff]), body])
}

function records (first, messages) {
  const parts = [Buffer.from([first])]
  for (const m of messages) {
    const len = Buffer.alloc(2)
    len.writeUInt16LE(Math.min(m.length, 65535))
    parts.push(len, m.subarray(0, 65535))
  }
  return Buffer.concat(parts)
}

function join (version, protocol, { cache = false, deflate = false, extras = [] } = {}) {
  const s = createSerializer(version)
  const p = (name, params) => s.createPacketBuffer({ name, params })
  const settingsFlow = protocol >= 554
  const algorithmByte = protocol >= 649
  const later = packets => batch(packets, { compressed: true, algorithmByte, deflate })
  const msgs = []
  if (settingsFlow) msgs.push(batch([p('request_network_settings', { client_protocol: protocol })], { compressed: false }))
  msgs.push(later([p('login', { protocol_version: protocol, tokens: loginTokens('Fuzzer', protocol >= 818) })]))
  const response = { response_status: 'completed', response_status_name: 'resourcepackstackfinished', resourcepackids: [] }
  msgs.push(later([p('resource_pack_client_response', response), p('client_cache_status', { enabled: cache })]))
  msgs.push(later([p('resource_pack_client_response', response)]))
  msgs.push(later([p('request_chunk_radius', { chunk_radius: 2, max_radius: 2 })]))
  msgs.push(later([p('set_local_player_as_initialized', { runtime_entity_id: 1n })]))
  for (const e of extras) msgs.push(later(e(p)))
  return records(settingsFlow ? 0 : 1, msgs)
}

const requests = p => [p('subchunk_request', {
  dimension: 0,
  origin: { x: 0, y: 0, z: -1 },
  requests: [[0, 0, 0], [0, 4, 0], [1, -4, 1], [0, 20, 0], [-1, 2, 0]].map(([dx, dy, dz]) => ({ dx, dy, dz, x: dx, y: dy, z: dz }))
})]
const move = p => [p('move_player', {
  runtime_id: 1, position: { x: 40.5, y: 80, z: -30.5 }, pitch: 0, yaw: 0, head_yaw: 0, mode: 'normal',
  on_ground: false, ridden_runtime_id: 0, tick: 0n
})]
const blobs = p => [p('client_cache_blob_status', { misses: 2, haves: 0, missing: [1n, 2n], have: [] })]

fs.rmSync(out, { recursive: true, force: true })
fs.mkdirSync(out, { recursive: true })
const seeds = {
  'join_1.21.60': join('1.21.60', 776, { extras: [requests, move] }),
  'join_1.21.60_deflate_cache': join('1.21.60', 776, { cache: true, deflate: true, extras: [requests, blobs] }),
  'join_1.26.51': join('1.26.51', 2193, { extras: [requests] }),
  'join_1.19.21_raknet10': join('1.19.21', 545, { extras: [requests] }),
  'join_1.18.11': join('1.18.11', 486, { cache: true, extras: [requests, blobs] }),
  'join_1.17.40_full': join('1.17.40', 471),
  'garbage_batch': records(0, [Buffer.from([0xfe, 0x05, 0xc1, 0x01, 0x00, 0x00]), Buffer.from([0x86, 1, 2])])
}
for (const [name, bytes] of Object.entries(seeds)) fs.writeFileSync(path.join(out, name), bytes)
console.log(`${Object.keys(seeds).length} seeds in ${path.relative(root, out)}`)
