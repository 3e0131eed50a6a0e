// nbt_bench.js: prismarine-nbt's half of bench/bench_nbt.c. It reads the
// payload file that bench_nbt wrote (u32le count, then u32le length + bytes
// per payload: uncompressed Java NBT) and times prismarine-nbt's
// parseUncompressed on the same payloads in the same run. Prints one JSON
// line: {"us_per_payload": ..., "payloads": n, "rounds": r}; us_per_payload
// is the median round, as bench_nbt reports its own (mean_us_per_payload:
// the mean over all rounds).
'use strict'
const fs = require('fs')
const path = require('path')
const nbt = require(path.join(__dirname, '..', 'tests', 'interop', 'node_modules', 'prismarine-nbt'))

const file = fs.readFileSync(process.argv[2])
const minSeconds = Number(process.argv[3] || 2)
const count = file.readUInt32LE(0)
const payloads = []
let off = 4
for (let i = 0; i < count; i++) {
  const len = file.readUInt32LE(off)
  payloads.push(file.subarray(off + 4, off + 4 + len))
  off += 4 + len
}

let sink = 0
function round () {
  for (const p of payloads) sink += Object.keys(nbt.parseUncompressed(p, 'big').value).length
}
// Warm up the JIT, then time whole rounds for at least minSeconds.
for (let i = 0; i < 3; i++) round()
const times = []
const t0 = process.hrtime.bigint()
let elapsed = 0
do {
  const r0 = process.hrtime.bigint()
  round()
  times.push(Number(process.hrtime.bigint() - r0) / 1e3 / payloads.length)
  elapsed = Number(process.hrtime.bigint() - t0) / 1e9
} while (elapsed < minSeconds || times.length < 5)
const mean = elapsed * 1e6 / (times.length * payloads.length)
times.sort((a, b) => a - b)
const median = times[Math.floor(times.length / 2)]
console.log(JSON.stringify({ us_per_payload: median, mean_us_per_payload: mean, payloads: payloads.length, rounds: times.length, sink }))
