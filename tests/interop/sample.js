// sample.js: the release sample of the sanitizer pass. .ci/run runs the
// whole suite twice: once in the normal build, where every test checks
// every release, and once under ASan + UBSan, where what is looked for is
// memory and undefined-behaviour errors in our C code, not another
// comparison with the oracles. With MCCHUNK_SAMPLE=1 (set by .ci/run for
// that pass), the tests that repeat one check per release (a server join,
// a packet round trip) run it for one release of each era of the Java
// chunk and login packets instead, which keeps every code path of the
// encoders and the server and halves the pass.
'use strict'

// One release per era (FORMATS.md): 1.8 shorts; 1.9-1.12 spanning longs
// (1.9.4 block entities in the packet); 1.13 flattening; 1.14 light apart;
// 1.15 3D biomes; 1.16 padded longs; 1.17 BitSet masks; 1.18 every
// section; 1.19; 1.20.2 nameless NBT and configuration; 1.20.5 known
// packs; 1.21.2; 1.21.5 no data-array length; and the newest.
const ERA_RELEASES = new Set(['1.8.8', '1.8.9', '1.9.4', '1.12.2', '1.13.2', '1.14.4', '1.15.2', '1.16.5',
  '1.17.1', '1.18.2', '1.19.4', '1.20.1', '1.20.2', '1.20.4', '1.20.6', '1.21.1', '1.21.4', '1.21.5'])

function sampling () {
  return process.env.MCCHUNK_SAMPLE === '1'
}

// `names` (oldest first) as they are, or sampled: the era releases among
// them and the last one.
function sampleReleases (names, nameOf = x => x) {
  if (!sampling()) return names
  return names.filter((x, i) => ERA_RELEASES.has(nameOf(x)) || i === names.length - 1)
}

module.exports = { sampling, sampleReleases }
