// server_util.js: start `mcchunk serve` for a test on a free loopback port,
// wait until it listens, and stop it. The server also stops by itself when
// the test's node process goes (--exit-with-parent) and, as a backstop, after
// --exit-after seconds, so a crashed test never leaves it running.
'use strict'
const { spawn } = require('child_process')
const fs = require('fs')
const os = require('os')
const path = require('path')

function bin () {
  const b = process.env.MCCHUNK_BIN
  if (!b) throw new Error('MCCHUNK_BIN is not set (run through ctest)')
  return b
}

// Whether the binary under test is a sanitizer build (ASan reserves shadow
// memory and keeps freed blocks in quarantine, so its RSS says nothing about
// the server's own bound): its runtime's name is in the binary.
function sanitizerBuild () {
  return fs.readFileSync(bin()).includes('AddressSanitizer')
}

async function startServer (args = [], { exitAfter = 1500 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-srv-'))
  const portFile = path.join(dir, 'port')
  // No Bedrock listener unless a test asks for one (on a free port): two
  // servers must never compete for UDP 19132.
  const bedrock = args.some(a => a === '--bedrock-port' || a === '--no-bedrock') ? [] : ['--no-bedrock']
  const proc = spawn(bin(), ['serve', '--bind', '127.0.0.1', '--port', '0', '--port-file', portFile,
    '--exit-after', String(exitAfter), '--exit-with-parent', ...bedrock, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  proc.stderr.on('data', d => { log += d })
  const exited = new Promise(resolve => proc.on('exit', code => resolve(code)))
  // Ready when the port is written and the log (read asynchronously) has the
  // listening line, so that callers can read what was logged before it.
  // The built-in world's columns are made before it listens: a sanitizer
  // build on a loaded machine took 38 s for them (9 s of CPU), so the wait
  // is long (5 minutes; the test's own limit is 20).
  const ready = () => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim() && /listening on/.test(log)
  for (let i = 0; i < 6000 && !ready(); i++) {
    if (proc.exitCode !== null) throw new Error('server exited early:\n' + log)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  if (!ready()) {
    proc.kill('SIGKILL')
    throw new Error('server not listening after 5 minutes:\n' + log)
  }
  const port = parseInt(fs.readFileSync(portFile, 'utf8'), 10)
  return {
    port,
    pid: proc.pid,
    exited,
    running: () => proc.exitCode === null && proc.signalCode === null,
    log: () => log,
    async stop () {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      // A server that does not stop on SIGTERM is killed (its exit code,
      // null then, fails the tests that check it).
      const timer = setTimeout(() => proc.kill('SIGKILL'), 20000)
      const code = await exited
      clearTimeout(timer)
      fs.rmSync(dir, { recursive: true, force: true })
      return code
    }
  }
}

// mineflayer.createBot, but the TCP connection opens only once mineflayer
// has injected its plugins. mineflayer injects them on a setTimeout(0) after
// createBot while the connection proceeds; when a fast local server answers
// the login (Login Success, Join Game, the chunks: all in one go before
// 1.20.2) before that timer runs on a loaded machine, the plugins miss Join
// Game, and the bot dies inside its own handlers ("Cannot read properties of
// undefined (reading 'getColumn')", "Object.defineProperty called on
// non-object") without ever spawning. (Seen with 1.8.8 bots under load: it
// is how the CI run of 2026-11-21 failed.)
function createBot (mineflayer, options) {
  const net = require('net')
  let release
  const injected = new Promise(resolve => { release = resolve })
  const bot = mineflayer.createBot({
    ...options,
    connect: client => {
      injected.then(() => {
        const socket = net.connect(options.port, options.host)
        client.setSocket(socket)
      })
    }
  })
  bot.once('inject_allowed', () => setImmediate(release))
  return bot
}

// Resolves once pred() holds (polled every 50 ms); rejects after ms,
// naming `what`.
function waitFor (pred, ms, what) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now()
    const iv = setInterval(() => {
      if (pred()) { clearInterval(iv); resolve() } else if (Date.now() - t0 > ms) { clearInterval(iv); reject(new Error('timed out waiting for ' + what)) }
    }, 50)
  })
}

// Resolves when the bot spawns; rejects on an error, a kick, or no spawn
// within `ms`.
function spawned (bot, ms = 60000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no spawn within ${ms / 1000} s`)), ms)
    bot.once('spawn', () => { clearTimeout(timer); resolve() })
    bot.once('error', e => { clearTimeout(timer); reject(e) })
    bot.once('kicked', r => { clearTimeout(timer); reject(new Error('kicked ' + r)) })
  })
}

// A test's named checks: each runs fn, counts a pass or a failure, and on
// a failure prints the message and the tail of the server's log.
function checks () {
  const counts = { passed: 0, failed: 0 }
  async function check (name, fn, srv) {
    try {
      await fn(); counts.passed++; console.log('ok   ' + name)
    } catch (e) {
      counts.failed++; console.log('FAIL ' + name + ': ' + e.message)
      if (srv) console.log('  server log (tail):\n' + srv.log().trimEnd().split('\n').slice(-12).map(l => '  | ' + l).join('\n'))
    }
  }
  return { check, counts }
}

module.exports = { startServer, bin, createBot, sanitizerBuild, waitFor, spawned, checks }
