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

async function startServer (args = [], { exitAfter = 1500 } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcchunk-srv-'))
  const portFile = path.join(dir, 'port')
  const proc = spawn(bin(), ['serve', '--bind', '127.0.0.1', '--port', '0', '--port-file', portFile,
    '--exit-after', String(exitAfter), '--exit-with-parent', ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  proc.stderr.on('data', d => { log += d })
  const exited = new Promise(resolve => proc.on('exit', code => resolve(code)))
  // Ready when the port is written and the log (read asynchronously) has the
  // listening line, so that callers can read what was logged before it.
  for (let i = 0; i < 1200; i++) {
    if (fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim() && /listening on/.test(log)) break
    if (proc.exitCode !== null) throw new Error('server exited early:\n' + log)
    await new Promise(resolve => setTimeout(resolve, 50))
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

module.exports = { startServer, bin }
