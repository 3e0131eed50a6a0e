// test_bedrock_layout.js: every packet `mcchunk serve` sends to Bedrock
// clients, written for every release from 1.16.201 to 1.26.51 by the
// server's layout writer from the generated layouts (test_bedrock_layout
// --dump: every release whose layouts differ from an earlier one's), read
// back by bedrock-protocol 3.59.0's deserializer
// of that release (minecraft-data's protocol.json, compiled by protodef):
// each must parse as the packet it is, use every byte, and carry the values
// written (test_bedrock_layout.c's dump_values: positions, seeds, names,
// the id mode, radii, the teleport, the item palette with the shield...).
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { execFileSync } = require('child_process')
const { createDeserializer } = require('bedrock-protocol/src/transforms/serializer')
const { Versions } = require('bedrock-protocol/src/options')

const build = process.env.MCCHUNK_BUILD
if (!build) throw new Error('MCCHUNK_BUILD is not set (run through ctest)')

const near = (a, b) => Math.abs(a - b) < 1e-3

// What each packet must say (per the values the dump wrote).
const checks = {
  network_settings: p => assert.strictEqual(p.compression_threshold, 256),
  play_status: p => assert.strictEqual(p.status, 'player_spawn'),
  server_to_client_handshake: p => assert.strictEqual(p.token, 'header.payload.signature'),
  disconnect: p => { if ('message' in p) assert.strictEqual(p.message, 'bye for now'); assert.strictEqual(p.hide_disconnect_reason, false) },
  resource_packs_info: p => assert.strictEqual(p.must_accept, false),
  resource_pack_stack: p => assert.strictEqual(p.game_version, '*'),
  start_game: (p, version) => {
    assert.strictEqual(Number(p.entity_id), -5)
    assert.strictEqual(Number(p.runtime_entity_id), 5)
    const pos = p.player_position || p.spawn
    assert.ok(near(pos.x, 1.5) && near(pos.y, 71.5) && near(pos.z, -3.5), JSON.stringify(pos))
    assert.deepStrictEqual([p.spawn_position.x, p.spawn_position.y, p.spawn_position.z], [1, 70, -4])
    assert.strictEqual(Number(p.seed), 1234)
    assert.strictEqual(p.world_name, 'layout test')
    assert.strictEqual(p.level_id, 'mcchunk')
    assert.strictEqual(p.enable_commands, true)
    if ('block_network_ids_are_hashes' in p) assert.strictEqual(p.block_network_ids_are_hashes, true)
    if (p.itemstates) checkItems(p.itemstates, version)
  },
  item_registry: (p, version) => checkItems(p.itemstates, version),
  chunk_radius_update: p => assert.strictEqual(p.chunk_radius, 7),
  network_chunk_publisher_update: p => {
    assert.deepStrictEqual([p.coordinates.x, p.coordinates.y, p.coordinates.z], [100, 64, -200])
    assert.strictEqual(p.radius, 112)
  },
  move_player: p => {
    assert.strictEqual(Number(p.runtime_id), 5)
    assert.ok(near(p.position.x, 10.5) && near(p.position.y, 81.5) && near(p.position.z, 20.5))
    assert.strictEqual(p.mode, 'teleport')
  }
}

function checkItems (items, version) {
  assert.ok(items.length > 1000, `${items.length} items`)
  const shield = items.find(i => i.name === 'minecraft:shield')
  assert.ok(shield, 'no shield in the item palette') // bedrock-protocol's client needs its id
  const ids = new Set(items.map(i => i.runtime_id))
  assert.strictEqual(ids.size, items.length, 'runtime ids repeat')
}

function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-layout-'))
  try {
    execFileSync(path.join(build, 'test_bedrock_layout'), ['--dump', dir])
    const byProtocol = new Map()
    for (const [v, p] of Object.entries(Versions)) {
      if (!byProtocol.has(p) || byProtocol.get(p) < v) byProtocol.set(p, v) // the newest release of a protocol
    }
    let n = 0; const protocols = new Set(); const deserializers = new Map()
    for (const file of fs.readdirSync(dir).sort()) {
      const m = /^(\d+)_(\w+)\.bin$/.exec(file)
      const protocol = Number(m[1]); const name = m[2]
      const version = byProtocol.get(protocol)
      assert.ok(version, `no bedrock-protocol release for protocol ${protocol}`)
      const buf = fs.readFileSync(path.join(dir, file))
      if (!deserializers.has(version)) deserializers.set(version, createDeserializer(version))
      const des = deserializers.get(version)
      let parsed
      try {
        parsed = des.parsePacketBuffer(buf)
      } catch (e) {
        throw new Error(`${version} ${name}: bedrock-protocol cannot read it: ${e.message}`)
      }
      assert.strictEqual(parsed.data.name, name, `${version}: ${file} reads as ${parsed.data.name}`)
      assert.strictEqual(parsed.metadata.size, buf.length, `${version} ${name}: ${buf.length - parsed.metadata.size} bytes left over`)
      try {
        checks[name](parsed.data.params, version)
      } catch (e) {
        throw new Error(`${version} ${name}: ${e.message}`)
      }
      n++
      protocols.add(protocol)
    }
    assert.ok(protocols.size >= 30, `only ${protocols.size} protocols dumped`)
    console.log(`ok ${n} packets of ${protocols.size} releases with distinct layouts (1.16.201 .. 1.26.51) read back by bedrock-protocol with the values written`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main()
