// java_chunk_bench.js: prismarine-chunk's half of bench/bench_java_chunk.c.
// It reads the packets bench_java_chunk wrote (u32le count, then u32le
// length + Chunk Data packet bytes), takes each packet's chunk data with
// minecraft-protocol's parser (outside the timing), and times
// prismarine-chunk's load(data) and dump() of the same columns in the same
// run. Prints one JSON line: {"dump_us": ..., "load_us": ..., "columns": n}.
'use strict'
const fs = require('fs')
const path = require('path')
const mods = path.join(__dirname, '..', 'tests', 'interop', 'node_modules')
const { createDeserializer } = require(path.join(mods, 'minecraft-protocol', 'src', 'transforms', 'serializer'))

const file = fs.readFileSync(process.argv[2])
const version = process.argv[3]
const minSeconds = Number(process.argv[4] || 1)
const Chunk = require(path.join(mods, 'prismarine-chunk'))(version)
const des = createDeserializer({ state: 'play', isServer: false, version, noErrorLogging: true })

const count = file.readUInt32LE(0)
const datas = []
let off = 4
for (let i = 0; i < count; i++) {
  const len = file.readUInt32LE(off)
  const parsed = des.parsePacketBuffer(file.subarray(off + 4, off + 4 + len))
  datas.push(parsed.data.params.chunkData)
  off += 4 + len
}
const cols = datas.map((d) => { const c = new Chunk({ minY: -64, worldHeight: 384 }); c.load(d); return c })

function time (fn) {
  for (let i = 0; i < 3; i++) fn()
  let n = 0
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 } // CPU time, as the C side
  const t0 = cpu()
  let el = 0
  do { fn(); n += count; el = cpu() - t0 } while (el < minSeconds)
  return el * 1e6 / n
}
let sink = 0
const dumpUs = time(() => { for (const c of cols) sink += c.dump().length })
const loadUs = time(() => { for (const d of datas) { const c = new Chunk({ minY: -64, worldHeight: 384 }); c.load(d); sink += c.sections.length } })
console.log(JSON.stringify({ dump_us: dumpUs, load_us: loadUs, columns: count, sink }))
