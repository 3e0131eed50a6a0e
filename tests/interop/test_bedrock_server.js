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
  startBedrock, join, requestSubchunks, fetchBlobs, generated, expectedHeightmap, columnClass, protocolOf,
  getChecksum, checkSection, hasBlocks, highestOf
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
    const { Column, reg } = columnClass(c.version, hashed)
    const air = reg.blocksByName.air.defaultState
    const wanted = []
    const keys = [...chunks.keys()]
    const all = await generated(keys.map(k => k.split(',').map(Number)), c.version)
    const gen = new Map(keys.map((k, i) => [k, all[i]]))
    for (const [key, lc] of chunks) {
      const [x, z] = key.split(',').map(Number)
      const ids = gen.get(key)
      // request mode: 1.18.0 "limitless" (-1), then "limited" (-2) with the highest subchunk
      assert.strictEqual(lc.sub_chunk_count, proto < 486 ? -1 : -2, `${what}: column ${key} in request mode`)
      if (proto >= 486) {
        const top = highestOf(ids, -64)
        const highest = lc.highest_subchunk_count ?? lc.highest_subchunk
        assert.strictEqual(typeof highest === 'object' ? highest : highest, top < 0 ? 0 : top, `${what}: ${key} highest subchunk`)
      }
      assert.strictEqual(!!lc.cache_enabled, c.cache, `${what}: ${key} LevelChunk cache flag`)
      for (let sy = -4; sy < 20; sy++) wanted.push([x, sy, z, 0])
    }
    const [x0, z0] = [...chunks.keys()][0].split(',').map(Number)
    if (proto >= 486) { // 1.18.0 has no code for these
      wanted.push([x0, 20, z0, 0], [x0, -5, z0, 0], [x0, 4, z0, 1])
    }
    const t0 = Date.now()
    const answers = await requestSubchunks(client, c.version, wanted)
    const tAnswers = Date.now() - t0
    // the blobs the answers name (cache on), fetched as a client does
    const blobIds = []
    for (const a of answers.values()) if (c.cache && a.result === 'success') blobIds.push(a.blob_id)
    const blobs = blobIds.length ? await fetchBlobs(client, c.version, blobIds) : new Map()
    const tBlobs = Date.now() - t0 - tAnswers
    let compared = 0; let allAir = 0; let blobsChecked = 0
    const col = new Map()
    for (const [x, sy, z, dim] of wanted) {
      const a = answers.get(`${x},${sy},${z},${dim}`)
      const where = `${what}: subchunk ${x} ${sy} ${z} dim ${dim}`
      assert.ok(a, `${where}: no answer`)
      if (dim !== 0) { assert.strictEqual(a.result, 'invalid_dimension', where); continue }
      if (sy < -4 || sy > 19) { assert.strictEqual(a.result, 'y_index_out_of_bounds', where); continue }
      const ids = gen.get(`${x},${z}`)
      const blocks = hasBlocks(ids, sy, -64)
      // 1.18.0 has no success_all_air: an air subchunk is a success with its payload
      assert.strictEqual(a.result, blocks || proto < 486 ? 'success' : 'success_all_air', `${where}: result`)
      const hm = expectedHeightmap(ids, sy, -64)
      assert.strictEqual(a.heightmap_type, hm.type, `${where}: heightmap type`)
      if (hm.type === 'has_data') assert.deepStrictEqual(a.heightmap, hm.values, `${where}: heightmap`)
      if (a.result === 'success_all_air') { allAir++; continue }
      let payload = a.payload
      if (c.cache) {
        assert.ok(!payload || payload.length === 0, `${where}: payload beside a blob id`)
        payload = blobs.get(String(a.blob_id))
        assert.ok(payload, `${where}: blob ${a.blob_id} not sent`)
        assert.strictEqual(await getChecksum(payload), BigInt(a.blob_id), `${where}: blob id is not xxHash64 of the blob`)
        blobsChecked++
      }
      if (!col.has(`${x},${z}`)) col.set(`${x},${z}`, new Column({ x, z }))
      const column = col.get(`${x},${z}`)
      await column.networkDecodeSubChunkNoCache(sy, payload)
      checkSection(column.getSectionAtIndex(sy), ids, x, z, sy, -64, air, where)
      compared += 4096
    }
    console.log(`ok ${what}: spawned, ${chunks.size} skeleton LevelChunks, ${answers.size} answers ` +
      `(${compared} positions equal generate, ${allAir} all air${c.cache ? `, ${blobsChecked} blobs` : ''}; ` +
      `answers in ${tAnswers} ms, blobs in ${tBlobs} ms, checks in ${Date.now() - t0 - tAnswers - tBlobs} ms)`)
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
