// anvil_read_ppa.js: prismarine-provider-anvil's half of
// bench/bench_anvil_read.c. Arguments: seconds, then pairs of region file
// and game version. Each file is copied to a temporary folder (the provider
// opens region files read-write), then every chunk is read the provider's
// way -- RegionFile.read (file read, zlib inflate, prismarine-nbt parse)
// and nbtChunkToPrismarineChunk (the column) -- in whole rounds for at least
// the given seconds of CPU time. Prints one JSON line: {"us_per_chunk": ..., "chunks": n}.
'use strict'
const fs = require('fs')
const os = require('os')
const path = require('path')
const mods = path.join(__dirname, '..', 'tests', 'interop', 'node_modules')
const RegionFile = require(path.join(mods, 'prismarine-provider-anvil', 'src', 'region'))
const anvil = require(path.join(mods, 'prismarine-provider-anvil'))

async function main () {
  const seconds = Number(process.argv[2] || 2)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-ppa-bench-'))
  const work = []
  for (let i = 3; i + 1 < process.argv.length; i += 2) {
    const src = process.argv[i]
    const copy = path.join(tmp, `${i}-` + path.basename(src))
    fs.copyFileSync(src, copy)
    const region = new RegionFile(copy)
    await region.initialize()
    const { nbtChunkToPrismarineChunk } = anvil.chunk(process.argv[i + 1])
    const chunks = []
    for (let x = 0; x < 32; x++) for (let z = 0; z < 32; z++) if (region.hasChunk(x, z)) chunks.push([x, z])
    work.push({ region, decode: nbtChunkToPrismarineChunk, chunks })
  }
  let sink = 0
  let total = 0
  for (const w of work) total += w.chunks.length
  const round = async () => {
    for (const w of work) {
      for (const [x, z] of w.chunks) {
        const col = w.decode(await w.region.read(x, z))
        sink += col ? 1 : 0
      }
    }
  }
  await round() // warm up
  // CPU time (user + system) of this process, as bench_anvil_read measures
  // its own: the machine is shared
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
  let rounds = 0
  const t0 = cpu()
  let elapsed = 0
  do {
    await round()
    rounds++
    elapsed = cpu() - t0
  } while (elapsed < seconds)
  for (const w of work) await w.region.file.close()
  fs.rmSync(tmp, { recursive: true, force: true })
  console.log(JSON.stringify({ us_per_chunk: elapsed * 1e6 / (rounds * total), chunks: total, rounds, sink }))
}
main().catch((e) => { console.error(e); process.exit(1) })
