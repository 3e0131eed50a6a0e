// test_bedrock_server.js: `mcchunk serve`'s Bedrock game layer against
// bedrock-protocol 3.59.0's client (offline; raknet-native, the RakNet C++
// library's bindings, and jsp-raknet), which decodes every packet with each
// release's own layout from minecraft-data and fails on bytes that do not
// fit it.
//
// For each packet-layout era of the chunk packets from 1.18.0 on (1.18.0
// single requests, 1.18.10 batched, 1.19.80 hashed ids, 1.20.60 dimension
// and algorithm byte, 1.21.90 render heightmaps, 1.26.30 reordered
// requests, 1.26.40 optional fields, 1.26.51 row heightmaps) a client joins
// a server of hashed or index ids, with its blob cache on or off, spawns and
// gets the skeleton LevelChunks of its radius (request mode, the highest
// subchunk = the highest one with a block, per generate). The test then
// asks for every subchunk of every announced column (the library's client
// never does; a vanilla client would), plus ones outside the column and in
// another dimension, and checks each answer: the result code (success,
// success_all_air, y_index_out_of_bounds, invalid_dimension), the heightmap
// type and values the blocks imply, with the cache the blob id as xxHash64
// of the blob fetched through ClientCacheBlobStatus/MissResponse, and the
// subchunk itself, decoded by prismarine-chunk with the version's registry
// in the announced id mode (its hashes are its own, so hashed ids are
// checked against an independent hash), equal at every one of its 4096
// positions to `mcchunk generate X Z --edition bedrock --version V --ids`.
// 1.16.220 and 1.17.40 clients get full LevelChunks, decoded and compared
// the same way (y 0..255). The log says the identity was not verified.
'use strict'
const assert = require('assert')
const {
  startBedrock, join, verifyColumns, generated, columnClass, protocolOf, checkSection, highestOf, withTimeout
} = require('./bedrock_server_util')

const RADIUS = 1

const CASES = [
  { version: '1.18.0', backend: 'raknet-native', cache: false, ids: 'hashed' },
  { version: '1.18.11', backend: 'jsp-raknet', cache: true, ids: 'hashed' },
  { version: '1.19.80', backend: 'raknet-native', cache: false, ids: 'hashed' },
  { version: '1.20.61', backend: 'raknet-native', cache: true, ids: 'index' },
  { version: '1.21.90', backend: 'jsp-raknet', cache: true, ids: 'hashed' },
  { version: '1.26.30', backend: 'raknet-native', cache: false, ids: 'index' },
  { version: '1.26.40', backend: 'raknet-native', cache: true, ids: 'index' },
  { version: '1.26.51', backend: 'jsp-raknet', cache: false, ids: 'hashed' },
  { version: '1.26.51', backend: 'raknet-native', cache: true, ids: 'hashed' }
]

async function requestMode (servers, c) {
  const what = `${c.version} ${c.backend} ${c.ids} ids, cache ${c.cache ? 'on' : 'off'}`
  const proto = protocolOf(c.version)
  const hashed = c.ids === 'hashed' && proto >= 582
  const { srv, port } = servers[c.ids]
  const tJoin = Date.now()
  const { client, chunks, startGame } = await join({ port, version: c.version, backend: c.backend, cache: c.cache, radius: RADIUS })
  console.log(`   ${c.version}: joined in ${Date.now() - tJoin} ms`)
  try {
    assert.strictEqual(!!startGame.block_network_ids_are_hashes, hashed, `${what}: StartGame's id mode`)
    const r = await verifyColumns(client, c.version, chunks, { hashed, cache: c.cache, what })
    console.log(`ok ${what}: spawned, ${chunks.size} skeleton LevelChunks, ${r}`)
  } catch (e) {
    console.error(srv.log().slice(-4000))
    throw e
  } finally {
    client.close()
  }
}

async function fullChunks (servers, version) {
  const { srv, port } = servers.hashed
  const { client, chunks } = await join({ port, version, radius: RADIUS })
  try {
    const { Column, reg } = columnClass(version, false)
    const air = reg.blocksByName.air.defaultState
    let compared = 0
    const keys = [...chunks.keys()]
    const all = await generated(keys.map(k => k.split(',').map(Number)), version, 0)
    for (const [i, key] of keys.entries()) {
      const lc = chunks.get(key)
      const [x, z] = key.split(',').map(Number)
      const ids = all[i]
      const top = highestOf(ids, 0)
      assert.strictEqual(lc.sub_chunk_count, top + 1, `${version} ${key}: full LevelChunk of the subchunks up to the highest`)
      const column = new Column({ x, z })
      column.networkDecodeNoCache(lc.payload, lc.sub_chunk_count)
      for (let sy = 0; sy <= top; sy++) {
        checkSection(column.getSectionAtIndex(sy), ids, x, z, sy, 0, air, `${version} full LevelChunk ${key} subchunk ${sy}`)
        compared += 4096
      }
    }
    console.log(`ok ${version}: full LevelChunks for its radius, ${compared} positions equal generate (y 0..255)`)
  } catch (e) {
    console.error(srv.log().slice(-4000))
    throw e
  } finally {
    client.close()
  }
}

// /tp as a command (CommandRequest): the server moves the player there
// (MovePlayer, mode teleport) and sends the columns around the new place,
// whose subchunks are right too.
async function teleport (servers) {
  const { srv, port } = servers.hashed
  const version = '1.21.60'
  const { client } = await join({ port, version, radius: RADIUS, name: 'Jumper' })
  try {
    const chunks = new Map()
    const moved = new Promise(resolve => client.on('move_player', p => { if (p.mode === 'teleport') resolve(p) }))
    client.on('level_chunk', p => { if (Math.abs(p.x - 31) <= RADIUS && Math.abs(p.z - 62) <= RADIUS) chunks.set(`${p.x},${p.z}`, p) })
    client.queue('command_request', {
      command: '/tp 500 90 1000', origin: { type: 'player', uuid: '00000000-0000-0000-0000-000000000000', request_id: '' },
      internal: false, version: 52
    })
    const m = await withTimeout(moved, 10000, 'the teleport')
    assert.ok(Math.abs(m.position.x - 500) < 1e-3 && Math.abs(m.position.z - 1000) < 1e-3, JSON.stringify(m.position))
    for (let t = 0; t < 15000 && chunks.size < 9; t += 100) await new Promise(resolve => setTimeout(resolve, 100))
    assert.strictEqual(chunks.size, 9, 'the columns around the new place')
    const r = await verifyColumns(client, version, chunks, { hashed: true, cache: false, what: 'after /tp', extra: false })
    assert.match(srv.log(), /Jumper teleported to 500\.0 90\.0 1000\.0/)
    console.log(`ok /tp 500 90 1000 (CommandRequest): MovePlayer teleport, the 9 columns around column 31 62: ${r}`)
  } finally {
    client.close()
  }
}

// generate's Bedrock form refuses what it cannot do, with usage errors.
function generateUsage () {
  const { spawnSync } = require('child_process')
  const { bin } = require('./server_util')
  const run = args => spawnSync(bin(), ['generate', ...args], { encoding: 'utf8' })
  assert.strictEqual(run(['0', '0', '--edition', 'bedrock']).status, 2, 'no --version')
  assert.strictEqual(run(['0', '0', '--edition', 'bedrock', '--version', '1.99.0']).status, 2, 'unknown version')
  assert.strictEqual(run(['0', '0', '--edition', 'pocket']).status, 2, 'unknown edition')
  const old = run(['0', '0', '--edition', 'bedrock', '--version', '1.17.40'])
  assert.strictEqual(old.status, 0)
  assert.match(old.stderr, /blocks outside 1\.17\.40's height \(y 0\.\.255\) dropped/)
  console.log('ok generate --edition bedrock: usage errors exit 2; before 1.18 the dropped blocks are counted')
}

async function inParallel (tasks, n) {
  const queue = [...tasks]
  await Promise.all(Array.from({ length: n }, async () => {
    while (queue.length) await queue.shift()()
  }))
}

async function main () {
  generateUsage()
  const servers = {
    hashed: await startBedrock(['--view-distance', '2']),
    index: await startBedrock(['--view-distance', '2', '--bedrock-ids', 'index'])
  }
  try {
    const only = process.env.BEDROCK_ONLY // a version (or "tp"), to run one case by hand
    const tasks = [
      ...CASES.filter(c => !only || c.version === only).map(c => () => requestMode(servers, c)),
      ...['1.16.220', '1.17.40'].filter(v => !only || v === only).map(v => () => fullChunks(servers, v)),
      ...(!only || only === 'tp' ? [() => teleport(servers)] : [])
    ]
    await inParallel(tasks, 3) // each case is a client of its own: three at a time
    if (only) return
    const log = servers.hashed.srv.log()
    assert.match(log, /logging in as Tester .*identity read from the login, NOT verified \(offline mode\)/)
    assert.match(log, /Tester joined \(Bedrock 1\.26\.51, protocol 2193, hashed ids, blob cache on/)
    assert.match(servers.index.srv.log(), /Tester joined \(Bedrock 1\.26\.40, protocol 2168, index ids, blob cache on/)
    console.log('ok the log names each client, its version and modes, and says identities are not verified')
  } finally {
    for (const s of Object.values(servers)) assert.strictEqual(await s.srv.stop(), 0)
  }
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
