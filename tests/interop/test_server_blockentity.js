// test_server_blockentity.js: old clients of a modern world see its block
// entities in their own version's shape. A world folder is built in a
// temporary directory: the 1.12.2 corpus chunk of blockentity_fixture.js
// (a sign with text, a blue banner, a creeper head, a potted allium, a blue
// bed, a note block) converted to 1.21.4 by `mcchunk chunk convert` (front_text
// sign, banner colour and head kind in the block state, no pot or note block
// entity) and put into region/r.0.0.mca. `mcchunk serve --world` serves it;
// mineflayer bots of 1.12.2 and 1.16.5 join, and what they get for chunk
// 0 0 is read two ways: the raw Chunk Data packet as minecraft-protocol
// parsed it (its block entity list), and the world mineflayer built from it
// with prismarine-chunk and prismarine-block (bot.blockAt: names, signText,
// blockEntity). 1.12.2: sign Text1..4 JSON, banner Base 4, skull SkullType 4
// on a floor skull, flower pot Item red_flower Data 2, bed color 11 (each
// where the block is); 1.16.5: the same sign text, blue_banner,
// creeper_head, potted_allium, blue_bed blocks. Without the translation a
// 1.12 client gets 1.21's front_text (no text shown) and no banner, bed,
// skull or pot data. For 1.8, whose Chunk Data has no block entities, the
// server sends an Update Sign per sign and an Update Block Entity per head,
// pot and banner after the column (mc_java_encode_column_packets): a 1.8.8
// mineflayer bot receives them (the sign's lines as mineflayer shows them,
// the banner's Base, the skull's SkullType, the pot's Item and Data); and
// the same packets as `mcchunk packet encode --block-entities-out` writes
// them are read by minecraft-protocol's 1.8 deserializer, every byte.
// Bedrock: a bedrock-protocol 1.21.60 client of the same server asks for
// the subchunk holding them, and prismarine-chunk decodes its payload (the
// blocks, then the block entities as little-endian varint NBT with
// prismarine-nbt): Sign FrontText.Text = the lines joined by "\n", Banner
// Base 4 (blue: 15 - the Java dye) and Patterns [{cre, 1}], Skull
// SkullType 4, Bed color 11, FlowerPot PlantBlock naming allium (from the
// potted_allium block), a Chest without a pair, each at its position over
// the block Bedrock shows there.
// Skipped, with a message, when the corpus is absent.
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const { spawnSync } = require('child_process')
const mineflayer = require('mineflayer')
const nbt = require('prismarine-nbt')
const { Vec3 } = require('vec3')
const { createDeserializer } = require('minecraft-protocol/src/transforms/serializer')
const { bin, createBot, spawned, checks } = require('./server_util')
const { startBedrock, join, requestSubchunks, columnClass } = require('./bedrock_server_util')
const { CX, CZ, X, Z, placed, sourceChunk } = require('./blockentity_fixture')

const corpus = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
const SRC = path.join(corpus, 'anvil/1.12.2/mcaselector-r.0.0.mca')
const VERSION = '1.21.60' // the Bedrock client

function run (...args) {
  const r = spawnSync(bin(), args, { maxBuffer: 1 << 28 })
  return { status: r.status, out: r.stdout, err: r.stderr.toString() }
}

// The plain text of a JSON text component.
function plain (json) {
  const j = JSON.parse(json)
  if (typeof j === 'string') return j
  return (j.text || '') + (j.extra || []).map(e => typeof e === 'string' ? e : plain(JSON.stringify(e))).join('')
}

const { check, counts } = checks()
const at = (p) => new Vec3(CX * 16 + X, p.y, CZ * 16 + Z)

// The block entities of a map_chunk packet, simplified, by y.
function packetBlockEntities (packet) {
  const m = new Map()
  for (const be of packet.blockEntities || []) {
    if (be.nbtData !== undefined) m.set(be.y, { type: be.type, ...(be.nbtData ? nbt.simplify(be.nbtData) : {}) }) // 1.18+
    else { const s = nbt.simplify(be); m.set(s.y, s) }
  }
  return m
}

const expectations = {
  '1.8.8': (bot, raw, extra) => {
    const by = new Map(extra.map(p => [p.location.y, p]))
    const sign = by.get(placed.sign.y)
    assert.ok(sign && sign.name === 'update_sign', 'no Update Sign for the sign')
    assert.deepStrictEqual([sign.text1, sign.text2, sign.text3, sign.text4].map(plain), ['Hello', 'from mcchunk', '', ''])
    const data = (p, action) => {
      const q = by.get(p.y)
      assert.ok(q && q.name === 'tile_entity_data' && q.action === action, `no Update Block Entity (action ${action}) at y ${p.y}`)
      return nbt.simplify(q.nbtData)
    }
    assert.strictEqual(data(placed.banner, 6).Base, 4, 'banner colour (blue)')
    assert.strictEqual(data(placed.skull, 4).SkullType, 4, 'skull type (creeper)')
    const pot = data(placed.pot, 5)
    assert.deepStrictEqual([pot.Item, pot.Data], ['minecraft:red_flower', 2])
    assert.strictEqual(bot.blockAt(at(placed.sign)).signText.split('\n').slice(0, 2).join('|'), 'Hello|from mcchunk')
  },
  '1.12.2': (bot, raw) => {
    const sign = raw.get(placed.sign.y)
    assert.ok(sign, 'no sign block entity in the packet')
    assert.deepStrictEqual([sign.Text1, sign.Text2, sign.Text3, sign.Text4].map(plain), ['Hello', 'from mcchunk', '', ''])
    assert.strictEqual(sign.id, 'minecraft:sign')
    assert.strictEqual(raw.get(placed.banner.y).Base, 4, 'banner colour (blue)')
    assert.strictEqual(raw.get(placed.skull.y).SkullType, 4, 'skull type (creeper)')
    assert.strictEqual(raw.get(placed.pot.y).Item, 'minecraft:red_flower')
    assert.strictEqual(raw.get(placed.pot.y).Data, 2, 'potted allium')
    assert.strictEqual(raw.get(placed.bed.y).color, 11, 'bed colour (blue)')
    // the world mineflayer built (prismarine-chunk, prismarine-block)
    const b = (p) => bot.blockAt(at(p))
    assert.strictEqual(b(placed.sign).signText.split('\n').slice(0, 2).join('|'), 'Hello|from mcchunk')
    assert.strictEqual(b(placed.banner).name, 'standing_banner')
    assert.strictEqual(b(placed.banner).blockEntity.Base, 4)
    assert.strictEqual(b(placed.skull).name, 'skull')
    assert.strictEqual(b(placed.skull).metadata, 1, 'a skull on the floor')
    assert.strictEqual(b(placed.skull).blockEntity.SkullType, 4)
    assert.strictEqual(b(placed.pot).name, 'flower_pot')
    assert.strictEqual(b(placed.bed).name, 'bed')
    assert.strictEqual(b(placed.bed).blockEntity.color, 11)
  },
  '1.16.5': (bot, raw) => {
    const sign = raw.get(placed.sign.y)
    assert.ok(sign, 'no sign block entity in the packet')
    assert.deepStrictEqual([sign.Text1, sign.Text2, sign.Text3, sign.Text4].map(plain), ['Hello', 'from mcchunk', '', ''])
    assert.ok(!raw.get(placed.pot.y), 'a pot has no block entity in 1.16')
    const b = (p) => bot.blockAt(at(p))
    assert.strictEqual(b(placed.sign).signText.split('\n').slice(0, 2).join('|'), 'Hello|from mcchunk')
    assert.strictEqual(b(placed.banner).name, 'blue_banner')
    assert.strictEqual(b(placed.skull).name, 'creeper_head')
    assert.strictEqual(b(placed.pot).name, 'potted_allium')
    assert.strictEqual(b(placed.bed).name, 'blue_bed')
    assert.strictEqual(b(placed.note).name, 'note_block')
    assert.strictEqual(b(placed.note).getProperties().note, 7)
  }
}

;(async () => {
  if (!fs.existsSync(SRC)) {
    console.log(`corpus absent (${SRC}): skipping`)
    console.log('0 passed, 0 failed, 1 skipped')
    process.exit(0)
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-srv-be-'))
  let srv
  try {
    const region = await sourceChunk(run, SRC, tmp)
    const modern = path.join(tmp, 'modern.nbt')
    let r = run('chunk', 'convert', region, String(CX), String(CZ), '--to-version', '1.21.4', '-o', modern)
    assert.strictEqual(r.status, 0, r.err)
    const world = path.join(tmp, 'world')
    fs.mkdirSync(path.join(world, 'region'), { recursive: true })
    r = run('chunk', 'put', path.join(world, 'region', 'r.0.0.mca'), String(CX), String(CZ), modern)
    assert.strictEqual(r.status, 0, r.err)
    const started = await startBedrock(['--world', world, '--view-distance', '2'])
    srv = started.srv
    const bport = started.port
    let client
    // both clients at once (the test stays short)
    await Promise.all(Object.keys(expectations).map(v =>
      check(`1.21.4 world as ${v}: sign text, banner colour, head, pot, bed in ${v}'s shape`, async () => {
        const bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'b' + v.replace(/\./g, ''), version: v, auth: 'offline' })
        let raw = null
        const extra = [] // 1.8: the block entities' own packets
        bot._client.on('map_chunk', p => { if (p.x === CX && p.z === CZ) raw = p })
        bot._client.on('update_sign', p => extra.push({ name: 'update_sign', ...p }))
        bot._client.on('tile_entity_data', p => extra.push({ name: 'tile_entity_data', ...p }))
        const want = v === '1.8.8' ? 4 : 0
        try {
          await spawned(bot)
          for (const t0 = Date.now(); !(raw && bot.blockAt(at(placed.sign)) && extra.length >= want) && Date.now() - t0 < 20000;) {
            await new Promise(resolve => setTimeout(resolve, 200))
          }
          assert.ok(raw, `no Chunk Data for ${CX} ${CZ}`)
          expectations[v](bot, packetBlockEntities(raw), extra)
        } finally { bot.end() }
      }, srv)))
    await check(`1.21.4 world as Bedrock ${VERSION}: block entities in Bedrock's shape in the SubChunk payload`, async () => {
      const joined = await join({ port: bport, version: VERSION, radius: 2, every: false, name: 'BeTester' })
      client = joined.client
      const sy = placed.sign.y >> 4
      const answers = await requestSubchunks(client, VERSION, [[CX, sy, CZ, 0]])
      const a = answers.get(`${CX},${sy},${CZ},0`)
      assert.ok(a && a.result === 'success', `subchunk ${CX} ${sy} ${CZ}: ${a && a.result}`)
      const { Column } = columnClass(VERSION, true) // the server's default: hashed runtime ids
      const column = new Column({ x: CX, z: CZ })
      await column.networkDecodeSubChunkNoCache(sy, a.payload)
      const byY = new Map()
      for (const tag of Object.values(column.blockEntities)) {
        const s = nbt.simplify(tag)
        assert.deepStrictEqual([s.x, s.z], [CX * 16 + X, CZ * 16 + Z], `${s.id} position`)
        byY.set(s.y, s)
      }
      const be = (p, id) => {
        const s = byY.get(p.y)
        assert.ok(s, `no block entity at y ${p.y} (have ${[...byY.keys()].join(', ')})`)
        assert.strictEqual(s.id, id, `y ${p.y}`)
        return s
      }
      const block = (p) => column.getBlock({ x: X, y: p.y, z: Z }).name
      const sign = be(placed.sign, 'Sign')
      assert.strictEqual(sign.FrontText.Text, 'Hello\nfrom mcchunk\n\n')
      assert.strictEqual(sign.Text, 'Hello\nfrom mcchunk\n\n', 'top-level Text for older clients')
      assert.ok(/sign/.test(block(placed.sign)), `sign block: ${block(placed.sign)}`)
      const banner = be(placed.banner, 'Banner')
      assert.strictEqual(banner.Base, 4, 'banner base (blue)')
      assert.deepStrictEqual(banner.Patterns, [{ Pattern: 'cre', Color: 1 }], 'a red creeper')
      assert.ok(/banner/.test(block(placed.banner)), `banner block: ${block(placed.banner)}`)
      assert.strictEqual(be(placed.skull, 'Skull').SkullType, 4, 'creeper head')
      assert.strictEqual(be(placed.bed, 'Bed').color, 11, 'blue bed')
      assert.strictEqual(block(placed.bed), 'bed')
      const pot = be(placed.pot, 'FlowerPot')
      assert.strictEqual(pot.PlantBlock.name, 'minecraft:allium', 'potted allium')
      assert.strictEqual(block(placed.pot), 'flower_pot')
      const chest = be(placed.chest, 'Chest')
      assert.ok(chest.pairx === undefined, 'a single chest has no pair')
    }, srv).finally(() => { if (client) client.close() })
    // 1.8 has no block entities in Chunk Data: the packets that follow it,
    // as minecraft-protocol's 1.8 deserializer reads them
    await check('1.21.4 chunk for 1.8: Update Sign and Update Block Entity packets in 1.8\'s shape', async () => {
      const beFile = path.join(tmp, 'be-1.8.bin')
      r = run('packet', 'encode', '--version', '1.8', '--from', world, '--chunk', `${CX},${CZ}`,
        '-o', path.join(tmp, 'chunk-1.8.bin'), '--block-entities-out', beFile)
      assert.strictEqual(r.status, 0, r.err)
      const des = createDeserializer({ state: 'play', isServer: false, version: '1.8', noErrorLogging: true })
      const buf = fs.readFileSync(beFile)
      const got = {}
      for (let at = 0; at < buf.length;) {
        let len = 0; let shift = 0; let b
        do { b = buf[at++]; len |= (b & 0x7f) << shift; shift += 7 } while (b & 0x80)
        const parsed = des.parsePacketBuffer(buf.subarray(at, at + len))
        assert.strictEqual(parsed.metadata.size, len, `${parsed.data.name}: parser used ${parsed.metadata.size} of ${len} bytes`)
        const p = parsed.data.params
        assert.deepStrictEqual([p.location.x, p.location.z], [CX * 16 + X, CZ * 16 + Z])
        got[p.location.y] = { name: parsed.data.name, ...p }
        at += len
      }
      const sign = got[placed.sign.y]
      assert.strictEqual(sign.name, 'update_sign')
      assert.deepStrictEqual([sign.text1, sign.text2, sign.text3, sign.text4].map(plain), ['Hello', 'from mcchunk', '', ''])
      const data = (p, action) => {
        assert.strictEqual(got[p.y].name, 'tile_entity_data')
        assert.strictEqual(got[p.y].action, action)
        return nbt.simplify(got[p.y].nbtData)
      }
      assert.strictEqual(data(placed.banner, 6).Base, 4, 'banner colour (blue)')
      assert.strictEqual(data(placed.skull, 4).SkullType, 4, 'skull type (creeper)')
      const pot = data(placed.pot, 5)
      assert.deepStrictEqual([pot.Item, pot.Data], ['minecraft:red_flower', 2])
      assert.deepStrictEqual(Object.keys(got).map(Number).sort(), [placed.sign.y, placed.banner.y, placed.skull.y, placed.pot.y])
    })
  } finally {
    if (srv) await srv.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  console.log(`${counts.passed} passed, ${counts.failed} failed`)
  process.exit(counts.failed ? 1 : 0)
})()
