// test_bedrock_server_badlogin.js: a malformed Login from a client of a
// release before 1.19.30 (which sends no RequestNetworkSettings: the
// Login's first field, its protocol number, is where it says its release).
// With bedrock-protocol 3.59.0's client, whose Login is cut after its
// protocol number and followed by bytes that are no token chain:
//   - 1.19.21 and 1.16.220 clients (the protocol numbers the server
//     speaks) each parse the server's Disconnect in their release's layout
//     and read the reason, "malformed login (tokens of 5 bytes)";
//   - a client whose protocol number is one the server does not speak, or
//     whose Login ends inside it (the server cannot know the Disconnect's
//     layout), sees its connection closed with no packet, as before.
'use strict'
const assert = require('assert')
const bedrock = require('bedrock-protocol')
const { startBedrock, withTimeout } = require('./bedrock_server_util')

// A client whose Login packet keeps its id and protocol number (rewritten
// to `protocol` when given) and then has a token length of 5 followed by
// 4 bytes: the identity's length cannot be read whole. With `cut`, the
// packet is its id and the protocol number's first 2 bytes.
function badLogin (port, { version, protocol, cut = false, name }) {
  const client = bedrock.createClient({
    host: '127.0.0.1', port, version, username: name, offline: true, skipPing: true,
    raknetBackend: 'jsp-raknet', conLog: null, connectTimeout: 15000
  })
  const create = client.serializer.createPacketBuffer.bind(client.serializer)
  client.serializer.createPacketBuffer = packet => {
    const buf = create(packet)
    if (packet.name !== 'login') return buf
    assert.strictEqual(buf[0], 0x01, 'a Login packet id of one byte')
    const head = Buffer.from(buf.subarray(0, 5))
    if (cut) return head.subarray(0, 3)
    if (protocol !== undefined) head.writeInt32BE(protocol, 1)
    return Buffer.concat([head, Buffer.from([0x05, 1, 2, 3, 4])])
  }
  const seen = []
  client.on('packet', des => seen.push(des.data.name))
  return withTimeout(new Promise(resolve => {
    client.on('kick', p => resolve({ kick: p.message, seen }))
    client.on('error', e => resolve({ error: e.message, seen }))
    client.on('close', () => resolve({ closed: true, seen }))
  }), 15000, `${name}: the end of its malformed login`).finally(() => client.close())
}

async function main () {
  const { srv, port } = await startBedrock(['--view-distance', '2'])
  try {
    const [a, b, c, d] = await Promise.all([
      badLogin(port, { version: '1.19.21', name: 'Bad0' }),
      badLogin(port, { version: '1.16.220', name: 'Bad1' }),
      badLogin(port, { version: '1.19.21', protocol: 12345, name: 'Bad2' }),
      badLogin(port, { version: '1.19.21', cut: true, name: 'Bad3' })
    ])
    const reason = 'malformed login (tokens of 5 bytes)'
    for (const [version, r] of [['1.19.21', a], ['1.16.220', b]]) {
      assert.deepStrictEqual(r, { kick: reason, seen: ['disconnect'] }, `${version}: ${JSON.stringify(r)}`)
      console.log(`ok ${version}: a Login malformed after its protocol number: Disconnect "${reason}" parsed`)
    }
    assert.deepStrictEqual(c, { closed: true, seen: [] }, `protocol 12345: ${JSON.stringify(c)}`)
    console.log('ok protocol 12345 (not spoken): a malformed Login closes the connection, no packet')
    assert.deepStrictEqual(d, { closed: true, seen: [] }, `a Login of 2 bytes: ${JSON.stringify(d)}`)
    console.log('ok a Login that ends inside its protocol number: the connection closed, no packet')
    // the log comes through a pipe: its lines may come after the packets
    const unknown = /disconnected: malformed login \(tokens of [05] bytes\) \(its release is not known yet/g
    for (let t = 0; t < 5000 && (srv.log().match(unknown) || []).length < 2; t += 100) await new Promise(resolve => setTimeout(resolve, 100))
    assert.strictEqual((srv.log().match(unknown) || []).length, 2, 'the two kicks without a known release in the log')
  } catch (e) {
    console.error(srv.log().slice(-6000))
    throw e
  } finally {
    assert.strictEqual(await srv.stop(), 0)
  }
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
