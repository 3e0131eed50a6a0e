// bedrock_oracle.js: prismarine-chunk's Bedrock code as an oracle, with the
// deviations from vanilla that ORACLES.md lists corrected here (never in
// mcchunk):
//  1. it picks storage widths with neededBits(), which can be 7 or 9-15;
//     vanilla only has 0-6, 8 and 16 -> widths are rounded up before writing;
//  2. encodeV8 writes the y index with writeUInt8 and throws for negative y;
//     the wire byte is an int8 -> the byte is masked;
//  3. hashed runtime ids need registry.handleStartGame first.
'use strict'
const VALID = [0, 1, 2, 3, 4, 5, 6, 8, 16]
let patched = false

function patch () {
  if (patched) return
  patched = true
  const SubChunk13 = require('prismarine-chunk/src/bedrock/1.3/SubChunk')
  const PalettedStorage = require('prismarine-chunk/src/bedrock/common/PalettedStorage')
  const origWrite = SubChunk13.prototype.writeStorage
  SubChunk13.prototype.writeStorage = function (stream, l, format) {
    const s = this.blocks[l]
    const b = VALID.find(v => v >= s.bitsPerBlock)
    if (b !== s.bitsPerBlock) { // deviation 1
      const n = new PalettedStorage(b)
      for (let x = 0; x < 16; x++) {
        for (let y = 0; y < 16; y++) {
          for (let z = 0; z < 16; z++) n.set(x, y, z, s.get(x, y, z))
        }
      }
      this.blocks[l] = n
    }
    return origWrite.call(this, stream, l, format)
  }
  const origV8 = SubChunk13.prototype.encodeV8
  SubChunk13.prototype.encodeV8 = function (stream, format, compact) {
    const w = stream.writeUInt8 // deviation 2
    stream.writeUInt8 = function (v) { return w.call(this, v & 0xff) }
    try { return origV8.call(this, stream, format, compact) } finally { stream.writeUInt8 = w }
  }
}

const registries = new Map()
function registry (version, hashed) {
  const key = version + (hashed ? '#h' : '')
  if (!registries.has(key)) {
    const reg = require('prismarine-registry')('bedrock_' + version)
    if (reg.handleStartGame) { // deviation 3
      reg.handleStartGame({ itemstates: [], block_network_ids_are_hashes: !!hashed })
    }
    registries.set(key, reg)
  }
  return registries.get(key)
}

// A prismarine ChunkColumn class for a version (null when unsupported).
function chunkColumn (version, hashed) {
  patch()
  try {
    return require('prismarine-chunk')(registry(version, hashed))
  } catch (e) {
    return null
  }
}

module.exports = { chunkColumn, registry, VALID }
