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
  startBedrock, join, verifyColumns, generated, columnClass, protocolOf, checkSection, highestOf
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

async function main () {
  const servers = {
    hashed: await startBedrock(['--view-distance', '2']),
    index: await startBedrock(['--view-distance', '2', '--bedrock-ids', 'index'])
  }
  try {
    const only = process.env.BEDROCK_ONLY // a version, to run one case by hand
    for (const c of CASES) if (!only || c.version === only) await requestMode(servers, c)
    for (const v of ['1.16.220', '1.17.40']) if (!only || v === only) await fullChunks(servers, v)
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
