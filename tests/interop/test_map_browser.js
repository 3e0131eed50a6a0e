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
//     tiles, without console errors (absent tiles are never asked for).
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
const { startServer, bin, createBot } = require('./server_util')

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
  } finally {
    if (bot) bot.quit()
    if (context) await context.close()
    await srv.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

main().then(() => { console.log('all passed') }, (e) => { console.log('FAIL ' + (e.stack || e)); process.exit(1) })
