// test_bedrock_server_crowd.js: 20 Bedrock and 20 Java clients on one
// `mcchunk serve` at once, all on the same built-in world. The Bedrock
// clients (bedrock-protocol 3.59.0, both RakNet backends, three releases)
// join, spawn and get their radius's LevelChunks, then ask for every
// subchunk of their columns, all at the same time; each gets every answer,
// and those of three of them are decoded and compared with generate. The
// Java clients (minecraft-protocol, four releases) get their columns
// meanwhile. A Java player (/tp), a Bedrock player (MovePlayer) and
// another (PlayerAuthInput, as 1.21.60+ clients send every tick) move to
// other places and the log says where each is, and lists both editions'
// players. The
// server's RSS stays under what `serve --help` states for that many
// clients of each edition (not checked in a sanitizer build). A sanitizer
// build (.ci/run's second pass, several times slower) joins 8 of each
// edition: 20 Bedrock logins at once there, beside another Bedrock test,
// came near the server's 30 s login limit; the 20 + 20 are the normal
// build's. At a load average of 10-14 the normal build's logins passed
// 30 s too (3 runs of 3), so the server here allows 120 s
// (--login-timeout): each client's own 90 s join limit is the bound this
// test holds logins to (test_bedrock_server_net.js checks the deadline
// itself).
'use strict'
const assert = require('assert')
const fs = require('fs')
const { execFileSync } = require('child_process')
const mc = require('minecraft-protocol')
const { bin, sanitizerBuild } = require('./server_util')
const { startBedrock, join, verifyColumns, requestSubchunks, withTimeout } = require('./bedrock_server_util')

const N = sanitizerBuild() ? 8 : 20
const BEDROCK = ['1.21.60', '1.26.51', '1.20.61']
const JAVA = ['1.21.4', '1.20.4', '1.16.5', '1.12.2']

function helpBound () {
  const help = execFileSync(bin(), ['serve', '--help'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  const m = /RSS stays under (\d+) MiB \+ ([\d.]+) x --cache-mb \+ (\d+) MiB per Java client \+ --send-queue-kb per Java client \+ (\d+) MiB per Bedrock client/.exec(help)
  assert.ok(m, 'serve --help states no RSS bound with Bedrock clients: ' + help)
  const queueMb = Number(/--send-queue-kb N .*?\(default (\d+)\)/.exec(help)[1]) / 1024
  return (java, bedrock, cacheMb) => Number(m[1]) + Number(m[2]) * cacheMb + java * (Number(m[3]) + queueMb) + bedrock * Number(m[4])
}

function rssMib (pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : 0
}

function javaClient (port, version, name) {
  return withTimeout(new Promise((resolve, reject) => {
    const c = mc.createClient({ host: '127.0.0.1', port, username: name, version, auth: 'offline' })
    let chunks = 0
    c.on('error', reject)
    c.on('kick_disconnect', p => reject(new Error(`${name} kicked: ${JSON.stringify(p.reason)}`)))
    c.on('map_chunk', () => { if (++chunks === 25) resolve(c) })
    // 1.20.2+: chunks come in batches the client acknowledges (mineflayer does this)
    c.on('chunk_batch_finished', () => c.write('chunk_batch_received', { chunksPerTick: 20 }))
  }), 90000, `${name} (${version}) columns`)
}

async function main () {
  const { srv, port } = await startBedrock(['--view-distance', '2', '--max-players', '60', '--login-timeout', '120'])
  const java = []; const bedrock = []
  try {
    const joining = []
    for (let i = 0; i < N; i++) {
      joining.push(javaClient(srv.port, JAVA[i % JAVA.length], `J${i}`).then(c => java.push(c)))
      joining.push(join({ port, version: BEDROCK[i % BEDROCK.length], backend: i % 4 === 3 ? 'jsp-raknet' : 'raknet-native', radius: 1, name: `B${i}`, timeout: 90000 })
        .then(b => bedrock.push({ ...b, version: BEDROCK[i % BEDROCK.length], name: `B${i}` })))
    }
    await Promise.all(joining)
    console.log(`ok ${java.length} Java clients got their 25 columns and ${bedrock.length} Bedrock clients joined at once`)
    // every Bedrock client asks for all its subchunks at the same time
    const t0 = Date.now()
    const counts = await Promise.all(bedrock.map(b => {
      const wanted = []
      for (const key of b.chunks.keys()) {
        const [x, z] = key.split(',').map(Number)
        for (let sy = -4; sy < 20; sy++) wanted.push([x, sy, z, 0])
      }
      return requestSubchunks(b.client, b.version, wanted, 90000).then(a => {
        for (const e of a.values()) assert.ok(['success', 'success_all_air'].includes(e.result), `${b.name}: ${e.result}`)
        return a.size
      })
    }))
    console.log(`ok ${counts.reduce((a, b) => a + b, 0)} subchunks answered to ${bedrock.length} clients asking at once in ${Date.now() - t0} ms`)
    for (const b of bedrock.slice(0, 3)) {
      const r = await verifyColumns(b.client, b.version, b.chunks, { hashed: true, cache: false, what: b.name, extra: false })
      console.log(`ok ${b.name} (${b.version}): ${r}`)
    }
    // both editions in the log: who is online, and where players go
    // One more player, a second later: the line its join writes is not one
    // of those the log's rate limit held back while 40 joined at once.
    await new Promise(resolve => setTimeout(resolve, 1500))
    const late = await join({ port, version: '1.26.51', radius: 1, name: 'Late', timeout: 60000 })
    bedrock.push({ ...late, version: '1.26.51', name: 'Late' })
    const line = new RegExp(`players online: ${2 * N + 1} \\(${N} java, ${N + 1} bedrock\\): Late \\(bedrock\\) at `)
    for (let t = 0; t < 10000 && !line.test(srv.log()); t += 100) await new Promise(resolve => setTimeout(resolve, 100))
    assert.match(srv.log(), line, 'the players-online line of the last to join counts both editions')
    const j = java.find(c => c.version === '1.12.2')
    j.write('chat', { message: '/tp 1000 90 1000' })
    const b = bedrock.find(c => c.version === '1.21.60')
    b.client.queue('move_player', {
      runtime_id: Number(b.startGame.runtime_entity_id), position: { x: -500, y: 101.62, z: 700 }, pitch: 0, yaw: 0, head_yaw: 0,
      mode: 'normal', on_ground: false, ridden_runtime_id: 0, tick: 0n
    })
    // PlayerAuthInput (what 1.21.60+ clients send every tick under server
    // movement authority): the server reads pitch, yaw, then the position
    const auth = bedrock.find(c => c.version === '1.26.51' && c.name !== 'Late')
    const pkt = Buffer.alloc(2 + 4 * 5)
    pkt.writeUInt8(0x90, 0); pkt.writeUInt8(0x01, 1) // id 144
    pkt.writeFloatLE(0, 2); pkt.writeFloatLE(0, 6)
    pkt.writeFloatLE(-2000.5, 10); pkt.writeFloatLE(81.62, 14); pkt.writeFloatLE(300.5, 18)
    auth.client.sendBuffer(pkt)
    for (let t = 0; t < 10000 && !(/\(java\) at 1000\.0 90\.0 1000\.0/.test(srv.log()) && /\(bedrock\) at -500\.0 100\.0 700\.0/.test(srv.log()) &&
      /\(bedrock\) at -2000\.5 80\.0 300\.5/.test(srv.log())); t += 100) {
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    assert.match(srv.log(), new RegExp(`${j.username} \\(java\\) at 1000\\.0 90\\.0 1000\\.0`))
    assert.match(srv.log(), new RegExp(`${b.name} \\(bedrock\\) at -500\\.0 100\\.0 700\\.0`))
    assert.match(srv.log(), new RegExp(`${auth.name} \\(bedrock\\) at -2000\\.5 80\\.0 300\\.5`))
    console.log(`ok the log says where the Java and the Bedrock players went (${j.username} (java) by /tp, ${b.name} (bedrock) by MovePlayer, ${auth.name} by PlayerAuthInput)`)
    const bound = helpBound()(java.length, bedrock.length, 256)
    const rss = rssMib(srv.pid)
    if (sanitizerBuild()) {
      console.log(`note: sanitizer build: RSS ${rss.toFixed(0)} MiB not compared with the stated ${bound.toFixed(0)} MiB`)
    } else {
      assert.ok(rss <= bound, `RSS ${rss.toFixed(1)} MiB passes the stated ${bound.toFixed(1)} MiB`)
      console.log(`ok RSS ${rss.toFixed(0)} MiB with ${java.length} Java and ${bedrock.length} Bedrock clients (stated bound ${bound.toFixed(0)} MiB)`)
    }
    assert.ok(srv.running(), 'the server stopped')
  } catch (e) {
    console.error(process.env.BEDROCK_FULL_LOG ? srv.log() : srv.log().slice(-6000))
    throw e
  } finally {
    for (const c of java) c.end()
    for (const b of bedrock) b.client.close()
    assert.strictEqual(await srv.stop(), 0)
  }
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
