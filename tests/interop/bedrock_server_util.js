// bedrock_server_util.js: what the tests of `mcchunk serve`'s Bedrock side
// share: starting the server with a Bedrock port, joining it with
// bedrock-protocol's client (offline, either RakNet backend), asking for
// subchunks as a vanilla client would (bedrock-protocol's client never
// sends SubChunkRequest itself), fetching blobs, and checking what came
// against `mcchunk generate X Z --edition bedrock --version V --ids` with
// prismarine-chunk decoding the subchunks (bedrock_oracle.js corrects its
// known deviations).
'use strict'
const assert = require('assert')
const bedrock = require('bedrock-protocol')
const { startServer, bin } = require('./server_util')
const { registry } = require('./bedrock_oracle')
const { getChecksum } = require('prismarine-chunk/src/bedrock/common/util')

const versions = bedrock.Versions || require('bedrock-protocol/src/options').Versions
function protocolOf (version) { return versions[version] }

async function startBedrock (args = [], opts = {}) {
  const srv = await startServer(['--bedrock-port', '0', ...args], opts)
  // The Bedrock line follows the listening line startServer waits for; on a
  // loaded machine it can reach the log a moment later.
  const listener = /Bedrock \(RakNet\) on UDP 127\.0\.0\.1:(\d+)/
  for (let i = 0; i < 200 && !listener.test(srv.log()); i++) await new Promise(resolve => setTimeout(resolve, 50))
  const m = srv.log().match(listener)
  if (!m) throw new Error('no Bedrock listener:\n' + srv.log())
  return { srv, port: parseInt(m[1], 10) }
}

function withTimeout (promise, ms, what) {
  let timer
  return Promise.race([promise.finally(() => clearTimeout(timer)),
    new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms) })])
}

// Joins and waits for spawn and for the LevelChunks of the whole radius
// (with `every` false: at least one).
// Resolves to { client, chunks: Map "x,z" -> level_chunk params, startGame }.
// prepare(client): called before anything is sent.
function join ({ port, version, backend = 'raknet-native', cache = false, radius = 2, name = 'Tester', timeout = 30000, every = true, prepare = null }) {
  const client = bedrock.createClient({
    host: '127.0.0.1', port, version, username: name, offline: true, skipPing: true,
    raknetBackend: backend, conLog: null, connectTimeout: timeout
  })
  client.viewDistance = radius
  if (prepare) prepare(client)
  // createClient queues client_cache_status(false) on resource_packs_info;
  // ours, registered after it, comes later and wins
  client.once('resource_packs_info', () => client.queue('client_cache_status', { enabled: cache }))
  const chunks = new Map()
  let startGame = null
  const want = every ? (2 * radius + 1) * (2 * radius + 1) : 1 // a world folder may lack some
  let spawned = false
  return withTimeout(new Promise((resolve, reject) => {
    const done = () => { if (spawned && chunks.size >= want) resolve({ client, chunks, startGame }) }
    client.on('error', reject)
    client.on('kick', p => reject(new Error(`${version}: kicked: ${p.message}`)))
    client.on('close', () => reject(new Error(`${version}: closed before joining`)))
    client.on('start_game', p => { startGame = p })
    client.on('level_chunk', p => { chunks.set(`${p.x},${p.z}`, p); done() })
    client.on('spawn', () => { spawned = true; done() })
  }), timeout, `${version} ${backend} join`).catch(e => {
    client.close()
    if (/nothing within/.test(e.message)) e.message += ` (${name}: ${startGame ? 'StartGame' : 'no StartGame'}, ${spawned ? 'spawned' : 'no spawn'}, ${chunks.size} of ${want} LevelChunks)`
    throw e
  })
}

function offsetNames (dx, dy, dz) { return { dx, dy, dz, x: dx, y: dy, z: dz } }

// Sends SubChunkRequests for `wanted` (absolute [x, y, z, dim] subchunks),
// grouped per column as the client does (center = the column at y 0), and
// collects the answers: Map "x,y,z,dim" -> entry (result, payload,
// heightmap_type, heightmap as 256 numbers, blob_id).
function requestSubchunks (client, version, wanted, timeout = 30000) {
  const proto = protocolOf(version)
  const got = new Map()
  return withTimeout(new Promise((resolve, reject) => {
    client.on('error', reject)
    client.on('kick', p => reject(new Error(`${version}: kicked: ${p.message}`)))
    client.on('subchunk', p => {
      if (proto < 486) { // 1.18.0: one subchunk per packet
        got.set(`${p.x},${p.y},${p.z},${p.dimension}`, {
          result: p.request_result, payload: p.data, heightmap_type: p.heightmap_type,
          heightmap: p.heightmap && [...Int8Array.from(p.heightmap)], blob_id: p.cache_enabled ? p.blob_id : undefined
        })
      } else {
        for (const e of p.entries) {
          const key = `${p.origin.x + e.dx},${p.origin.y + e.dy},${p.origin.z + e.dz},${p.dimension}`
          let hm = e.heightmap
          if (hm && !Buffer.isBuffer(hm) && Array.isArray(hm[0])) hm = hm.flat() // 1.26.51: 16 rows
          got.set(key, {
            result: e.result, payload: e.payload, heightmap_type: e.heightmap_type,
            heightmap: hm ? [...Int8Array.from(hm)] : undefined, blob_id: e.blob_id, cache: p.cache_enabled
          })
        }
      }
      if (got.size >= wanted.length) resolve(got)
    })
    if (proto < 486) {
      for (const [x, y, z, dimension] of wanted) client.queue('subchunk_request', { dimension, x, y, z })
    } else {
      const groups = new Map()
      for (const [x, y, z, dim] of wanted) {
        const k = `${x},${z},${dim}`
        if (!groups.has(k)) groups.set(k, { dimension: dim, origin: { x, y: 0, z }, requests: [] })
        groups.get(k).requests.push(offsetNames(0, y, 0))
      }
      for (const g of groups.values()) client.queue('subchunk_request', g)
    }
  }), timeout, `${version}: ${wanted.length} subchunk answers`)
}

// Fetches blobs by id (BigInt): Map String(id) -> payload.
function fetchBlobs (client, version, ids, timeout = 20000) {
  const got = new Map()
  return withTimeout(new Promise((resolve, reject) => {
    client.on('client_cache_miss_response', p => {
      for (const b of p.blobs) got.set(String(b.hash), b.payload)
      if (got.size >= ids.length) resolve(got)
    })
    for (let i = 0; i < ids.length; i += 2048) {
      const part = ids.slice(i, i + 2048)
      // before 1.26.30 the two counts come first, then the arrays
      client.queue('client_cache_blob_status', protocolOf(version) < 1001
        ? { misses: part.length, haves: 0, missing: part, have: [] }
        : { missing: part, have: [] })
    }
  }), timeout, `${ids.length} blobs`)
}

// The Bedrock ids of column (x, z) as generate prints them: an array over
// y -64..319 (or `minY`..), index ((y - minY) * 16 + z & 15) * 16 + x & 15,
// -1 where generate prints nothing (air). Several columns at once, each
// in its own process.
const { execFile } = require('child_process')
function generated (columns, version, minY = -64) {
  return Promise.all(columns.map(([x, z]) => new Promise((resolve, reject) => {
    execFile(bin(), ['generate', String(x), String(z), '--edition', 'bedrock', '--version', version, '--ids'],
      { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`generate ${x} ${z} ${version}: ${stderr || err.message}`))
        const ids = new Int32Array(16 * 16 * 384).fill(-1)
        for (const line of stdout.split('\n')) {
          if (!line) continue
          const [bx, by, bz, id] = line.split(' ').map(Number)
          ids[((by - minY) * 16 + (bz & 15)) * 16 + (bx & 15)] = id
        }
        resolve(ids)
      })
  })))
}

// The subchunk heightmap the column's blocks imply, as the library's
// engine defines it: heights = 1 + y of the highest non-air block; per
// subchunk value clamp(height - base, -1, 16) in [z][x] order, "too_high"
// when every value is 16, "too_low" when every one is -1.
function expectedHeightmap (ids, sy, minY) {
  const heights = new Array(256).fill(minY)
  for (let i = ids.length - 1; i >= 0; i--) {
    const xz = i & 255
    if (ids[i] >= 0 && heights[xz] === minY) heights[xz] = (i >> 8) + minY + 1
  }
  const base = sy * 16
  const vals = heights.map(h => Math.max(-1, Math.min(16, h - base)))
  if (vals.every(v => v === 16)) return { type: 'too_high' }
  if (vals.every(v => v === -1)) return { type: 'too_low' }
  return { type: 'has_data', values: vals }
}

// Whether subchunk sy has a block; the highest such (relative to the
// column's lowest subchunk), -1 for none.
function hasBlocks (ids, sy, minY) {
  const from = (sy * 16 - minY) * 256
  for (let i = from; i < from + 4096; i++) if (ids[i] >= 0) return true
  return false
}
function highestOf (ids, minY) {
  for (let i = ids.length - 1; i >= 0; i--) if (ids[i] >= 0) return (i >> 12)
  return -1
}

// Compares a decoded subchunk (prismarine section) with the generated ids
// at every position.
function checkSection (sec, ids, x, z, sy, minY, air, what) {
  assert.ok(sec, `${what}: no section decoded`)
  for (let ly = 0; ly < 16; ly++) {
    for (let lz = 0; lz < 16; lz++) {
      for (let lx = 0; lx < 16; lx++) {
        const want = ids[((sy * 16 + ly - minY) * 16 + lz) * 16 + lx]
        const have = sec.getBlockStateId(0, lx, ly, lz)
        if (have !== (want < 0 ? air : want)) {
          throw new Error(`${what}: block ${x * 16 + lx} ${sy * 16 + ly} ${z * 16 + lz}: prismarine decodes state ` +
            `${have}, generate says ${want < 0 ? 'air' : want}`)
        }
      }
    }
  }
}

// prismarine-chunk's ChunkColumn class for a version, in id mode `hashed`
// (1.26 has no implementation of its own there: its 1.18 one reads the
// same subchunk format).
function columnClass (version, hashed) {
  const reg = registry(version, hashed)
  const major = version.split('.').slice(0, 2).join('.')
  const impl = major === '1.26' ? require('prismarine-chunk/src/bedrock/1.18/chunk')
    : require('prismarine-chunk')
  return { Column: major === '1.26' ? impl(reg) : impl(reg), reg }
}

// Checks what a joined client got and gets, against generate: the
// skeleton LevelChunks of `chunks` (request mode, the highest subchunk, the
// cache flag), then it asks for every subchunk of those columns (and, with
// `extra`, some out of range and in another dimension) and checks each
// answer (result, heightmap, blob id and blob, every position decoded by
// prismarine-chunk). Returns a line of counts and times for the log.
async function verifyColumns (client, version, chunks, { hashed, cache, what, extra = true }) {
  const proto = protocolOf(version)
  const { Column, reg } = columnClass(version, hashed)
  const air = reg.blocksByName.air.defaultState
  const wanted = []
  const keys = [...chunks.keys()]
  const all = await generated(keys.map(k => k.split(',').map(Number)), version)
  const gen = new Map(keys.map((k, i) => [k, all[i]]))
  for (const [key, lc] of chunks) {
    const [x, z] = key.split(',').map(Number)
    const ids = gen.get(key)
    // request mode: 1.18.0 "limitless" (-1), then "limited" (-2) with the highest subchunk
    assert.strictEqual(lc.sub_chunk_count, proto < 486 ? -1 : -2, `${what}: column ${key} in request mode`)
    if (proto >= 486) {
      const top = highestOf(ids, -64)
      const highest = lc.highest_subchunk_count ?? lc.highest_subchunk
      assert.strictEqual(highest, top < 0 ? 0 : top, `${what}: ${key} highest subchunk`)
    }
    assert.strictEqual(!!lc.cache_enabled, cache, `${what}: ${key} LevelChunk cache flag`)
    for (let sy = -4; sy < 20; sy++) wanted.push([x, sy, z, 0])
  }
  const [x0, z0] = [...chunks.keys()][0].split(',').map(Number)
  if (extra && proto >= 486) { // 1.18.0 has no code for these
    wanted.push([x0, 20, z0, 0], [x0, -5, z0, 0], [x0, 4, z0, 1])
  }
  const t0 = Date.now()
  const answers = await requestSubchunks(client, version, wanted)
  const tAnswers = Date.now() - t0
  // the blobs the answers name (cache on), fetched as a client does
  const blobIds = []
  for (const a of answers.values()) if (cache && a.result === 'success') blobIds.push(a.blob_id)
  const blobs = blobIds.length ? await fetchBlobs(client, version, blobIds) : new Map()
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
    if (cache) {
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
return `${answers.size} answers (${compared} positions equal generate, ${allAir} all air` +
  `${cache ? `, ${blobsChecked} blobs` : ''}; answers in ${tAnswers} ms, blobs in ${tBlobs} ms, ` +
  `checks in ${Date.now() - t0 - tAnswers - tBlobs} ms)`
}

module.exports = {
  startBedrock, join, requestSubchunks, fetchBlobs, generated, expectedHeightmap, columnClass, checkSection,
  hasBlocks, highestOf, verifyColumns,
  protocolOf, withTimeout, getChecksum
}
