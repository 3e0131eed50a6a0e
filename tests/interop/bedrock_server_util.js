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
  const m = srv.log().match(/Bedrock \(RakNet\) on UDP 127\.0\.0\.1:(\d+)/)
  if (!m) throw new Error('no Bedrock listener:\n' + srv.log())
  return { srv, port: parseInt(m[1], 10) }
}

function withTimeout (promise, ms, what) {
  let timer
  return Promise.race([promise.finally(() => clearTimeout(timer)),
    new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms) })])
}

// Joins and waits for spawn and for the LevelChunks of the whole radius.
// Resolves to { client, chunks: Map "x,z" -> level_chunk params, startGame }.
function join ({ port, version, backend = 'raknet-native', cache = false, radius = 2, name = 'Tester', timeout = 30000 }) {
  const client = bedrock.createClient({
    host: '127.0.0.1', port, version, username: name, offline: true, skipPing: true,
    raknetBackend: backend, conLog: null, connectTimeout: timeout
  })
  client.viewDistance = radius
  // createClient queues client_cache_status(false) on resource_packs_info;
  // ours, registered after it, comes later and wins
  client.once('resource_packs_info', () => client.queue('client_cache_status', { enabled: cache }))
  const chunks = new Map()
  let startGame = null
  const want = (2 * radius + 1) * (2 * radius + 1)
  return withTimeout(new Promise((resolve, reject) => {
    let spawned = false
    const done = () => { if (spawned && chunks.size >= want) resolve({ client, chunks, startGame }) }
    client.on('error', reject)
    client.on('kick', p => reject(new Error(`${version}: kicked: ${p.message}`)))
    client.on('close', () => reject(new Error(`${version}: closed before joining`)))
    client.on('start_game', p => { startGame = p })
    client.on('level_chunk', p => { chunks.set(`${p.x},${p.z}`, p); done() })
    client.on('spawn', () => { spawned = true; done() })
  }), timeout, `${version} ${backend} join`).catch(e => { client.close(); throw e })
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

module.exports = {
  startBedrock, join, requestSubchunks, fetchBlobs, generated, expectedHeightmap, columnClass, checkSection,
  hasBlocks, highestOf,
  protocolOf, withTimeout, getChecksum
}
