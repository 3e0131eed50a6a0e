// test_server_spawn.js: mineflayer (a real client we did not write) joins
// `mcchunk serve` in every version it speaks, 1.8.8 to 26.1, and spawns: it
// must accept Join Game, abilities, position and health in each era's
// layout; its game mode must be creative and its position the spawn point.
// Then many bots of mixed versions at once, and the max-players limit.
'use strict'
const assert = require('assert')
const mineflayer = require('mineflayer')
const mc = require('minecraft-protocol')
const { startServer, createBot } = require('./server_util')

const versions = mc.supportedVersions.filter(v => v !== '1.7')

function spawnBot (port, version, username) {
  return new Promise((resolve, reject) => {
    const bot = createBot(mineflayer, { host: '127.0.0.1', port, username, version, auth: 'offline' })
    let kicked = null
    const timer = setTimeout(() => { bot.end(); reject(new Error(`${version}: no spawn within 60 s`)) }, 60000)
    bot.on('kicked', r => { kicked = JSON.stringify(r) })
    bot.on('error', e => { clearTimeout(timer); reject(new Error(`${version}: ${e.message}`)) })
    // The socket's end can be reported before the kick packet that preceded
    // it has come through the client's stream pipeline: wait a little for it,
    // and settle in every case (a promise left pending would hang the test).
    bot.on('end', reason => {
      clearTimeout(timer)
      setTimeout(() => reject(new Error(`${version}: ` + (kicked ? `kicked ${kicked}` : `connection ended before spawn (${reason})`))), 1000)
    })
    bot.once('spawn', () => { clearTimeout(timer); resolve(bot) })
  })
}

let passed = 0; let failed = 0
async function check (name, fn) {
  try { await fn(); passed++; console.log('ok   ' + name) } catch (e) { failed++; console.log('FAIL ' + name + ': ' + e.message) }
}

;(async () => {
  // A small view distance: this test is about joining (and 50 bots at once),
  // test_server_world.js checks the chunks.
  const srv = await startServer(['--max-players', '60', '--view-distance', '3'])
  try {
    for (const v of versions) {
      await check(`spawn ${v}`, async () => {
        const bot = await spawnBot(srv.port, v, 'b' + v.replace(/\./g, ''))
        try {
          assert.strictEqual(bot.game.gameMode, 'creative')
          const p = bot.entity.position
          const m = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log())
          assert.ok(m, 'server logs its spawn point')
          assert.deepStrictEqual([p.x, p.z], [Number(m[1]) + 0.5, Number(m[3]) + 0.5])
        } finally { bot.end() }
      })
    }
    await check('50 bots of mixed versions at once', async () => {
      const bots = await Promise.all(Array.from({ length: 50 }, (_, i) =>
        spawnBot(srv.port, versions[i % versions.length], 'm' + i)))
      bots.forEach(b => b.end())
    })
  } finally {
    await srv.stop()
  }
  const full = await startServer(['--max-players', '1', '--view-distance', '2'])
  try {
    await check('server full is refused with a reason', async () => {
      const first = await spawnBot(full.port, '1.20.4', 'first')
      try {
        await assert.rejects(spawnBot(full.port, '1.20.4', 'second'), /full/)
      } finally { first.end() }
    })
  } finally {
    await full.stop()
  }
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed ? 1 : 0)
})()
