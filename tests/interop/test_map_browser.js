// test_map_browser.js: the live web map in a real browser. `mcchunk serve
// --http 0` serves a world folder of two corpus regions (1.16 r.0.-1, 1.19.4
// r.0.0); Debian's chromium (headless, driven by playwright-core) opens the
// page, and the test checks what a person would see:
//   - the tiles of the view are asked for and come back as PNGs (the
//     expected zoom-0 tiles 0/-1 and 0/0 among them), the screenshot shows
//     the world (thousands of coloured, varied pixels, not a blank page),
//     and the console has no errors;
//   - a tile fetched over HTTP is the pixels of `mcchunk render --area` of
//     the same blocks;
//   - a mineflayer bot that joins appears as a marker where it stands, and
//     the marker follows it when it is teleported;
//   - the cursor's block coordinates and the link to the view are shown;
//   - the static map of `render --tiles` opens from file:// and shows its
//     tiles, without console errors (absent tiles are never asked for);
//   - the built-in world (`serve --http` without --world, --view-distance 3):
//     its tiles are the pixels of `render --area` of the same blocks of
//     `world create` (same seed) inside the square the map shows around
//     spawn, and transparent just outside it; a Java bot and a Bedrock
//     client (bedrock-protocol) are both in /players.json, each with its
//     edition and position, and both markers on the page; a tile far away
//     is empty until the bot is teleported there, then shows the square
//     around the bot and nothing beyond it, and the page looking there asks
//     for it again by itself and gets the land.
// Skipped, saying so, only when chromium is not installed (scripts/install-deps
// installs it).
'use strict'
const assert = require('assert')
const fs = require('fs')
const os = require('os')
const path = require('path')
const http = require('http')
const { spawnSync } = require('child_process')
const { PNG } = require('pngjs')
const { startServer, bin, createBot, spawned } = require('./server_util')
const { startBedrock, join } = require('./bedrock_server_util')

const CHROMIUM = '/usr/bin/chromium'
const CORPUS = process.env.MCCHUNK_CORPUS || path.join(__dirname, '../../../shared/corpus')
if (!process.env.MCCHUNK_BIN) { console.log('MCCHUNK_BIN not set: skipping'); process.exit(0) }
if (!fs.existsSync(CHROMIUM)) { console.log(`SKIP: ${CHROMIUM} is not installed (scripts/install-deps installs chromium)`); process.exit(0) }
if (!fs.existsSync(path.join(CORPUS, 'anvil'))) { console.log('corpus absent: skipping'); process.exit(0) }
const { chromium } = require('playwright-core')
const mineflayer = require('mineflayer')

function get (port, p) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p }, (res) => {
      const chunks = []
      res.on('data', (d) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), type: res.headers['content-type'] }))
    }).on('error', reject)
  })
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function waitFor (what, fn, ms) {
  const until = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > until) throw new Error('timed out waiting for ' + what)
    await sleep(200)
  }
}

// The pixel (r, g, b, a) of block (x, z) in a map of 512 * 2^0 tiles fetched by tileAt.
const pixelOf = (png, u, v) => Array.from(png.data.slice((v * png.width + u) * 4, (v * png.width + u) * 4 + 4))

// The built-in world's map (see the top): its own server with a Bedrock port.
async function builtInWorld (tmp, context) {
  const { srv, port: bedrockPort } = await startBedrock(['--http', '0', '--view-distance', '3'], { exitAfter: 300 })
  let bot = null
  let client = null
  try {
    const port = Number((await waitFor('the web map\'s port', () => /web map on http:\/\/127\.0\.0\.1:(\d+)\//.exec(srv.log()), 20000))[1])
    const sp = /spawn (-?\d+) (-?\d+) (-?\d+)/.exec(srv.log()).slice(1).map(Number)
    const R = 3 // --view-distance
    const scx = sp[0] >> 4; const scz = sp[2] >> 4
    assert(Math.abs(scx) + R <= 5 && Math.abs(scz) + R <= 5, `spawn chunk ${scx} ${scz} lies within world create --radius 5`)
    const tiles = new Map()
    const tileAt = async (x, z) => { // the zoom-0 tile holding block (x, z), decoded
      const key = `${Math.floor(x / 512)}/${Math.floor(z / 512)}`
      if (!tiles.has(key)) {
        const t = await get(port, `/tiles/overworld/0/${key}.png`)
        assert.strictEqual(t.status, 200, key)
        tiles.set(key, PNG.sync.read(t.body))
      }
      return pixelOf(tiles.get(key), x - 512 * Math.floor(x / 512), z - 512 * Math.floor(z / 512))
    }
    // the same blocks written as a world: inside the square the map shows
    // (less its first row and column, whose hillshade looks at chunks the
    // map does not show) every pixel is render --area's
    const world = path.join(tmp, 'builtin')
    const wc = spawnSync(bin(), ['world', 'create', world, '--version', '26.1', '--radius', '5', '--threads', '1', '--quiet'])
    assert.strictEqual(wc.status, 0, wc.stderr.toString())
    const x0 = (scx - R) * 16 + 1; const z0 = (scz - R) * 16 + 1; const x1 = (scx + R) * 16 + 15; const z1 = (scz + R) * 16 + 15
    const area = path.join(tmp, 'builtin.png')
    const r = spawnSync(bin(), ['render', world, '-o', area, '--area', `${x0},${z0},${x1},${z1}`, '-q'])
    assert.strictEqual(r.status, 0, r.stderr.toString())
    const want = PNG.sync.read(fs.readFileSync(area))
    let differ = 0
    for (let z = z0; z <= z1; z++) {
      for (let x = x0; x <= x1; x++) {
        const got = await tileAt(x, z)
        if (got.join() !== pixelOf(want, x - x0, z - z0).join() && differ++ < 3) console.log(`     block ${x} ${z}: tile ${got} render ${pixelOf(want, x - x0, z - z0)}`)
      }
    }
    assert.strictEqual(differ, 0, `${differ} of ${want.width * want.height} pixels differ from render --area`)
    assert.strictEqual((await tileAt(x0 - 1, z0))[3], 255, 'the square\'s first column is drawn')
    for (const [x, z] of [[x0 - 2, z0], [x1 + 1, z0], [x0, z0 - 2], [x0, z1 + 1]]) {
      assert.strictEqual((await tileAt(x, z))[3], 0, `block ${x} ${z}, outside the square, is transparent`)
    }
    console.log(`ok   built-in world: tiles = render --area of world create over ${want.width}x${want.height} blocks; transparent beyond ${R} chunks of spawn`)

    // players of both editions
    bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'MapBot', version: '1.20.4', auth: 'offline' })
    const rock = join({ port: bedrockPort, version: '1.26.51', backend: 'jsp-raknet', name: 'RockBot', radius: 2, every: false })
    rock.then((j) => { client = j.client }, () => {})
    const [joined] = await Promise.all([rock, spawned(bot)]) // both at once: the test's time
    const pos = joined.startGame.player_position
    const players = async () => JSON.parse((await get(port, '/players.json')).body)
    const close = (p, x, y, z) => Math.abs(p.x - x) < 0.5 && Math.abs(p.y - y) < 0.5 && Math.abs(p.z - z) < 0.5
    const both = await waitFor('both players in players.json', async () => {
      const list = await players()
      const java = list.find((p) => p.name === 'MapBot'); const rock = list.find((p) => p.name === 'RockBot')
      return java && rock ? { java, rock } : null
    }, 20000)
    assert.strictEqual(both.java.edition, 'java')
    assert.strictEqual(both.rock.edition, 'bedrock')
    assert.strictEqual(both.rock.dimension, 'overworld')
    const b = bot.entity.position
    assert(close(both.java, b.x, b.y, b.z), `java at ${JSON.stringify(both.java)}, bot at ${b}`)
    assert(close(both.rock, pos.x, pos.y - 1.62, pos.z), `bedrock at ${JSON.stringify(both.rock)}, StartGame put it at ${JSON.stringify(pos)} (eyes)`)
    console.log(`ok   players.json: MapBot (java) at ${b.x} ${b.z} and RockBot (bedrock) at ${both.rock.x} ${both.rock.y} ${both.rock.z}`)
    // the page, looking at 1800 1800 where nobody is yet
    const page = await context.newPage()
    const errors = []
    const farTiles = [] // the bodies of tile 0/3/3 the page got
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('response', (res) => { if (new URL(res.url()).pathname === '/tiles/overworld/0/3/3.png') res.body().then((b) => farTiles.push(b), () => {}) })
    await page.goto(`http://127.0.0.1:${port}/#dim=overworld&x=1800&z=1800&zoom=0`)
    await waitFor('markers of both editions', () => page.evaluate(() => {
      const m = window.mcchunkMarkers
      return m && m['java:MapBot'] && m['bedrock:RockBot'] && document.querySelector('[data-player="RockBot"]')
    }), 20000)
    console.log('ok   the page shows a marker for each edition')

    // the map follows the players: a far tile is empty until the bot is
    // there, and the page asks for it again once the bot has moved
    const empty = (await get(port, '/tiles/overworld/0/40/40.png')).body
    const far = async () => PNG.sync.read((await get(port, '/tiles/overworld/0/3/3.png')).body)
    assert(!(await far()).data.some((v, i) => i % 4 === 3 && v), 'tile 0/3/3 is empty before anyone is there')
    await waitFor('the page\'s tile 0/3/3', () => farTiles.length > 0, 20000)
    assert(farTiles.every((b) => b.equals(empty)), 'the page got tile 0/3/3 empty')
    bot.chat('/tp 1800 120 1800')
    await waitFor('the bot at 1800 1800 in players.json', async () => (await players()).some((p) => p.name === 'MapBot' && Math.abs(p.x - 1800) < 1), 20000)
    await waitFor('the page asking for tile 0/3/3 again and getting the land', () => farTiles.some((b) => !b.equals(empty)), 20000)
    const redraws = await page.evaluate(() => window.mcchunkRedraws)
    assert.deepStrictEqual(errors, [], 'page errors')
    await page.close()
    console.log(`ok   the page asks for the tiles in view again when a player moves (${redraws} redraw)`)
    const t = await far()
    const at = (x, z) => pixelOf(t, x - 1536, z - 1536)[3]
    assert.strictEqual(at(1800, 1800), 255, 'the bot\'s surroundings are drawn')
    assert.strictEqual(at(1744, 1855), 255, 'the corner of its square (chunks 109..115) is drawn')
    for (const [x, z] of [[1742, 1800], [1856, 1800], [1800, 1742], [1800, 1856]]) assert.strictEqual(at(x, z), 0, `${x} ${z} is beyond the bot's square`)
    console.log('ok   a far tile shows the square around the bot once it is there, and nothing else')
  } finally {
    if (client) client.close()
    if (bot) bot.quit()
    const code = await srv.stop()
    assert.strictEqual(code, 0, `the built-in world's server stopped with ${code}:\n${srv.log().slice(-3000)}`)
  }
}

async function main () {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-browser-'))
  const world = path.join(tmp, 'world')
  fs.mkdirSync(path.join(world, 'region'), { recursive: true })
  fs.copyFileSync(path.join(CORPUS, 'anvil/1.16/ppa-r.0.-1.mca'), path.join(world, 'region/r.0.-1.mca'))
  fs.copyFileSync(path.join(CORPUS, 'anvil/1.19.4/ppa-r.0.0.mca'), path.join(world, 'region/r.0.0.mca'))
  const srv = await startServer(['--world', world, '--http', '0', '--view-distance', '3'], { exitAfter: 300 })
  const m = await waitFor('the web map\'s port in the log', () => /web map on http:\/\/127\.0\.0\.1:(\d+)\//.exec(srv.log()), 20000)
  const port = Number(m[1])
  let context = null
  let bot = null
  try {
    // a tile over HTTP is the render of the same blocks
    const tile = await get(port, '/tiles/overworld/0/0/-1.png')
    assert.strictEqual(tile.status, 200)
    assert.strictEqual(tile.type, 'image/png')
    const area = path.join(tmp, 'area.png')
    const r = spawnSync(bin(), ['render', world, '-o', area, '--area', '0,-512,511,-1', '-q'])
    assert.strictEqual(r.status, 0, r.stderr.toString())
    assert(PNG.sync.read(tile.body).data.equals(PNG.sync.read(fs.readFileSync(area)).data), 'tile 0/0/-1 = render --area')
    console.log('ok   a served tile equals render --area of its blocks')

    context = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1000, height: 700 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync']
    })
    const page = context.pages()[0] || await context.newPage()
    const errors = []
    const tiles = new Map()
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(msg.text() + ' ' + JSON.stringify(msg.location())) })
    page.on('pageerror', (e) => errors.push(String(e)))
    page.on('response', (res) => {
      const u = new URL(res.url())
      if (u.pathname.startsWith('/tiles/') && u.pathname.endsWith('.png')) tiles.set(u.pathname, res.status())
    })
    await page.goto(`http://127.0.0.1:${port}/#dim=overworld&x=200&z=-60&zoom=0`)
    await waitFor('the view\'s tiles', () => tiles.has('/tiles/overworld/0/0/-1.png') && tiles.has('/tiles/overworld/0/0/0.png'), 30000)
    await page.waitForLoadState('networkidle')
    for (const [p, status] of tiles) assert.strictEqual(status, 200, p)
    const shotFile = process.env.MCCHUNK_MAP_SCREENSHOT || path.join(tmp, 'map.png') // keep it to look at
    const shot = PNG.sync.read(await page.screenshot({ path: shotFile }))
    const colours = new Set()
    let world_px = 0
    for (let i = 0; i < shot.data.length; i += 4) {
      const [r0, g0, b0] = shot.data.slice(i, i + 3)
      if (!(r0 === 0x1b && g0 === 0x1b && b0 === 0x1b)) world_px++ // the page's background
      colours.add((r0 << 16) | (g0 << 8) | b0)
    }
    assert(world_px > 60000, `${world_px} pixels of world in the screenshot`)
    assert(colours.size > 500, `${colours.size} colours in the screenshot`)
    console.log(`ok   the page shows the world: ${tiles.size} tiles, ${world_px} pixels, ${colours.size} colours`)

    // the cursor's coordinates and the link
    const at = await page.evaluate(() => { const p = window.mcchunkMap.latLngToContainerPoint([-50, 210]); return [p.x, p.y] })
    await page.mouse.move(at[0] + 0.5, at[1] + 0.5)
    await waitFor('cursor coordinates', async () => (await page.textContent('#mc-x')) === '210' && (await page.textContent('#mc-z')) === '-50', 5000)
    const link = await page.getAttribute('#mc-link', 'href')
    assert.match(link, /^#dim=overworld&x=-?\d+&z=-?\d+&zoom=0$/)
    console.log('ok   cursor coordinates and the link to the view')

    // a player joins: a marker where it stands, and it follows a teleport
    bot = createBot(mineflayer, { host: '127.0.0.1', port: srv.port, username: 'MapBot', version: '1.20.4', auth: 'offline' })
    await new Promise((resolve, reject) => { bot.once('spawn', resolve); bot.once('error', reject); bot.once('kicked', (why) => reject(new Error('kicked ' + why))) })
    const near = async (x, z) => {
      const ll = await page.evaluate(() => {
        const m = window.mcchunkMarkers && window.mcchunkMarkers['java:MapBot']
        if (!m) return null
        const e = document.querySelector('[data-player="MapBot"]')
        return e ? [m.getLatLng().lat, m.getLatLng().lng] : null
      })
      return ll && Math.abs(ll[0] - z) < 1.5 && Math.abs(ll[1] - x) < 1.5
    }
    await waitFor('the bot\'s marker at its position', () => near(bot.entity.position.x, bot.entity.position.z), 20000)
    console.log(`ok   the bot's marker is at ${bot.entity.position.x.toFixed(1)} ${bot.entity.position.z.toFixed(1)}`)
    bot.chat('/tp 300 120 200')
    await waitFor('the marker after /tp', () => near(300, 200), 20000)
    console.log('ok   the marker follows the bot to 300 200')
    const players = JSON.parse((await get(port, '/players.json')).body)
    assert.strictEqual(players.length, 1)
    assert.strictEqual(players[0].name, 'MapBot')
    assert.strictEqual(players[0].edition, 'java')
    assert.deepStrictEqual(errors, [], 'console errors')
    console.log('ok   no console errors')

    // the static map of `render --tiles`, opened from the file system
    const site = path.join(tmp, 'site')
    const rt = spawnSync(bin(), ['render', world, '--tiles', site, '--zooms', '2', '-q'])
    assert.strictEqual(rt.status, 0, rt.stderr.toString())
    const page2 = await context.newPage()
    const errors2 = []
    page2.on('console', (msg) => { if (msg.type() === 'error') errors2.push(msg.text()) })
    page2.on('pageerror', (e) => errors2.push(String(e)))
    await page2.goto('file://' + path.join(site, 'index.html') + '#x=200&z=-60&zoom=1')
    const loaded = await waitFor('the static tiles', () => page2.evaluate(() => {
      const imgs = [...document.querySelectorAll('img.leaflet-tile')].filter((i) => /tiles\/overworld\/1\//.test(i.src))
      return imgs.length >= 1 && imgs.every((i) => i.complete && i.naturalWidth === 512) ? imgs.map((i) => i.src.replace(/^.*tiles\//, '')) : null
    }), 20000)
    assert(loaded.includes('overworld/1/0/-1.png'), loaded.join(' '))
    assert.deepStrictEqual(errors2, [], 'console errors of the static map')
    console.log(`ok   the static map opens from file:// (${loaded.length} tiles shown, no console errors)`)

    await builtInWorld(tmp, context)
  } finally {
    if (bot) bot.quit()
    if (context) await context.close()
    await srv.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

main().then(() => { console.log('all passed') }, (e) => { console.log('FAIL ' + (e.stack || e)); process.exit(1) })
