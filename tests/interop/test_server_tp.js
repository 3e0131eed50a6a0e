// test_server_tp.js: the server's one chat command, `/tp X Y Z`, takes only
// what the game could mean: the whole text as numbers, x and z within the
// world border (±30,000,000 blocks). A refused /tp moves nobody, sends no
// position and logs a warning naming the range; an accepted one sends the
// client a position packet to exactly that place. The client is
// minecraft-protocol (1.12.2: chat is "chat" with the slash, position has a
// teleport id), an implementation we did not write.
'use strict'
const assert = require('assert')
const mc = require('minecraft-protocol')
const { startServer } = require('./server_util')

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

async function main () {
  const srv = await startServer([], { exitAfter: 120 })
  let client
  try {
    client = mc.createClient({ host: '127.0.0.1', port: srv.port, username: 'tp_tester', version: '1.12.2', auth: 'offline' })
    const positions = []
    client.on('position', p => {
      positions.push(p)
      client.write('teleport_confirm', { teleportId: p.teleportId })
    })
    let error = null
    client.on('error', e => { error = e })
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no Join Game in 40 s:\n' + srv.log())), 40000)
      client.once('login', () => { clearTimeout(t); resolve() })
    })
    // the spawn position arrives after the join
    for (let t0 = Date.now(); positions.length === 0 && Date.now() - t0 < 20000;) await sleep(100)
    assert.ok(positions.length > 0, 'no spawn position')
    const spawned = positions.length

    const refused = [
      '/tp 30000001 100 0', // past the border
      '/tp 0 100 -99999999', // z past the border
      '/tp 2147483648 100 0', // past int32
      '/tp 12abc 100 0', // not a number
      '/tp 1e400 100 0', // inf
      '/tp nan 100 0',
      '/tp 5 100 5 junk', // trailing text
      '/tp 5 100' // too few
    ]
    for (const cmd of refused) client.write('chat', { message: cmd })
    // The server takes a client's commands in order: the position the /tp
    // at the border (inside) sends comes after whatever the refused ones did.
    // Waits for it and for the warnings (the log comes by another pipe),
    // not for a time that a loaded machine could exceed.
    client.write('chat', { message: '/tp 30000000 70 -30000000' })
    const warnings = () => srv.log().split('\n').filter(l => /\/tp refused/.test(l))
    for (let t0 = Date.now(); (positions.length === spawned || warnings().length < refused.length) && Date.now() - t0 < 30000;) await sleep(100)
    assert.ok(positions.length <= spawned + 1, 'a refused /tp moved the player: ' + JSON.stringify(positions.slice(spawned)))
    assert.strictEqual(warnings().length, refused.length, 'one warning per refused /tp:\n' + srv.log())
    assert.ok(warnings().every(l => /-30000000\.\.30000000/.test(l)), 'the warning names the range: ' + warnings()[0])
    assert.strictEqual(positions.length, spawned + 1, 'the /tp at the border sent no position:\n' + srv.log())
    const p = positions[spawned]
    assert.deepStrictEqual([p.x, p.y, p.z], [30000000, 70, -30000000])
    assert.ifError(error)
    console.log(`ok   ${refused.length} bad /tp refused with a warning, none moved the player; /tp at the border accepted`)
  } finally {
    if (client) client.end()
    await srv.stop()
  }
}

main().then(() => console.log('1 passed, 0 failed'), e => { console.error('FAIL', e && e.stack || e); console.log('0 passed, 1 failed'); process.exit(1) })
