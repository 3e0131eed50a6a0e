// bedrock_bench.js: prismarine-chunk's side of bench/bench_bedrock.c. It
// loads the subchunk payloads mcchunk wrote (DIR/c<x>_<z>_s<y>.bin, 5x5
// columns of 24) into prismarine-chunk 1.41.0 columns (1.21.60), then times
// what a prismarine-based server does for the same work:
//   encode24  networkEncodeSubChunkNoCache for the 24 subchunks of the
//             center column (microseconds per column)
//   batch100  the same for the 100 subchunks of DIR/offsets.bin
//   batch100_serialized  ... plus bedrock-protocol's serializer building
//             the SubChunk packet from them
// Prints "name microseconds" lines (median of the rounds, CPU time).
'use strict'
const fs = require('fs')
const path = require('path')
const nm = path.join(__dirname, '../tests/interop/node_modules')
const req = (m) => require(path.join(nm, m))

const dir = process.argv[2]
const rounds = Math.max(3, Number(process.argv[3] || 9))
const version = '1.21.60'
const registry = req('prismarine-registry')('bedrock_' + version)
if (registry.handleStartGame) registry.handleStartGame({ itemstates: [], block_network_ids_are_hashes: false })
const ChunkColumn = req('prismarine-chunk')(registry)

function median (a) { a.sort((x, y) => x - y); return a[a.length >> 1] }
// CPU time of the process (user + system), like the C side's thread CPU time.
function nowUs () { const u = process.cpuUsage(); return u.user + u.system }

async function main () {
  const cols = new Map()
  for (let x = -2; x <= 2; x++) {
    for (let z = -2; z <= 2; z++) {
      const col = new ChunkColumn({ x, z })
      for (let y = -4; y < 20; y++) {
        await col.networkDecodeSubChunkNoCache(y, fs.readFileSync(path.join(dir, `c${x}_${z}_s${y}.bin`)))
      }
      cols.set(`${x},${z}`, col)
    }
  }
  const center = cols.get('0,0')
  const offs = fs.readFileSync(path.join(dir, 'offsets.bin'))
  const reqs = []
  for (let i = 0; i + 2 < offs.length; i += 3) reqs.push([offs.readInt8(i), offs.readInt8(i + 1), offs.readInt8(i + 2)])

  const t24 = []
  for (let r = 0; r < rounds; r++) {
    const iters = 20
    const t0 = nowUs()
    for (let k = 0; k < iters; k++) {
      for (let y = -4; y < 20; y++) await center.networkEncodeSubChunkNoCache(y)
    }
    t24.push((nowUs() - t0) / iters)
  }
  console.log('encode24 ' + median(t24).toFixed(2))

  const tb = []; const tbs = []
  const { createSerializer } = req('bedrock-protocol/src/transforms/serializer')
  const ser = createSerializer(version)
  for (let r = 0; r < rounds; r++) {
    const iters = 5
    let t0 = nowUs()
    let payloads
    for (let k = 0; k < iters; k++) {
      payloads = []
      for (const [dx, dy, dz] of reqs) payloads.push(await cols.get(`${dx},${dz}`).networkEncodeSubChunkNoCache(dy))
    }
    tb.push((nowUs() - t0) / iters)
    t0 = nowUs()
    for (let k = 0; k < iters; k++) {
      payloads = []
      for (const [dx, dy, dz] of reqs) payloads.push(await cols.get(`${dx},${dz}`).networkEncodeSubChunkNoCache(dy))
      ser.createPacketBuffer({
        name: 'subchunk',
        params: {
          cache_enabled: false,
          dimension: 0,
          origin: { x: 0, y: 0, z: 0 },
          entries: reqs.map(([dx, dy, dz], i) => ({ dx, dy, dz, result: 'success', payload: payloads[i], heightmap_type: 'no_data' }))
        }
      })
    }
    tbs.push((nowUs() - t0) / iters)
  }
  console.log('batch100 ' + median(tb).toFixed(2))
  console.log('batch100_serialized ' + median(tbs).toFixed(2))
}
main().catch(e => { console.error('bedrock_bench.js: ' + e.stack); process.exit(1) })
