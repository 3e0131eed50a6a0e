#!/usr/bin/env python3
# gen-fuzz-raknet-seeds.py: writes fuzz/corpus/fuzz_raknet/, the seeds of the
# RakNet fuzz target (fuzz/fuzz_raknet.c). Each seed is a series of records
# [ctl u8][len u16 LE][datagram] as that target reads them (ctl & 3: sender,
# 0 = the client it has already connected; & 4: tick after; & 8: +2 s first).
# The datagrams are built here from RakNet's byte layout; rerun to regenerate.
import os
import struct

MAGIC = bytes.fromhex('00ffff00fefefefefdfdfdfd12345678')
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'corpus', 'fuzz_raknet')


def u24(v):
    return struct.pack('<I', v)[:3]


def frame(payload, rel=0, msg=0, seq=0, order=0, channel=0, split=None):
    out = bytes([rel << 5 | (0x10 if split else 0)]) + struct.pack('>H', len(payload) * 8)
    if rel in (2, 3, 4, 6, 7):
        out += u24(msg)
    if rel in (1, 4):
        out += u24(seq)
    if rel in (1, 3, 4, 7):
        out += u24(order) + bytes([channel])
    if split:
        count, sid, index = split
        out += struct.pack('>IHI', count, sid, index)
    return out + payload


def datagram(seq, *frames):
    return bytes([0x84]) + u24(seq) + b''.join(frames)


def ranges(flag, rs):
    out = bytes([flag]) + struct.pack('>H', len(rs))
    for a, b in rs:
        out += bytes([1]) + u24(a) if a == b else bytes([0]) + u24(a) + u24(b)
    return out


def addr4(ip, port):
    return bytes([4]) + bytes(~int(x) & 0xFF for x in ip.split('.')) + struct.pack('>H', port)


def rec(d, sender=0, tick=False, later=False):
    return bytes([sender | (4 if tick else 0) | (8 if later else 0)]) + struct.pack('<H', len(d)) + d


ping = bytes([1]) + struct.pack('>Q', 1234) + MAGIC + struct.pack('>Q', 99)
ocr1 = bytes([5]) + MAGIC + bytes([11]) + bytes(1464 - 18)
ocr1_old = bytes([5]) + MAGIC + bytes([9]) + bytes(100)
ocr2 = bytes([7]) + MAGIC + addr4('127.0.0.1', 19132) + struct.pack('>HQ', 1400, 77)
conn_req = bytes([9]) + struct.pack('>QQ', 77, 5) + bytes([0])
new_incoming = bytes([0x13]) + addr4('127.0.0.1', 19132) + addr4('255.255.255.255', 0) * 20 + struct.pack('>QQ', 5, 6)
game = bytes([0xFE]) + b'hello, bedrock'
big = bytes([0xFE]) + bytes(range(256)) * 12

seeds = {
    'ping': rec(ping, 1),
    'handshake_stranger': rec(ocr1, 1) + rec(ocr2, 1) + rec(datagram(0, frame(conn_req, 2, 0)), 1, True) +
    rec(datagram(1, frame(new_incoming, 3, 1, order=0)), 1) + rec(datagram(2, frame(game, 3, 2, order=1)), 1, True),
    'incompatible': rec(ocr1_old, 2),
    'game_messages': rec(datagram(100, frame(game, 3, 2, order=1), frame(bytes([0]) + struct.pack('>Q', 7), 0)), 0, True) +
    rec(datagram(101, frame(game, 2, 3), frame(game, 1, seq=0, order=2, channel=1)), 0, True),
    'split': b''.join(rec(datagram(200 + i, frame(big[i * 1024:(i + 1) * 1024], 3, 10 + i, order=1,
                                                  split=(3, 7, i))), 0, i == 2) for i in range(3)),
    'out_of_order': rec(datagram(300, frame(game, 3, 5, order=3)), 0) + rec(datagram(299, frame(game, 3, 4, order=2)), 0) +
    rec(datagram(298, frame(game, 3, 2, order=1)), 0, True),
    'acks': rec(ranges(0xC0, [(0, 3), (5, 5)]), 0) + rec(ranges(0xA0, [(4, 4), (6, 9)]), 0, True) +
    rec(ranges(0xE0, [(0, 0)])[:1] + b'\0\0\0\0' + ranges(0xC0, [(0, 0)])[1:], 0),
    'disconnect': rec(datagram(400, frame(bytes([0x15]), 3, 2, order=1)), 0, True),
    'timeouts': rec(datagram(500, frame(game, 3, 2, order=1)), 0) + rec(b'', 0, True, True) * 8,
    'garbage': rec(bytes([0x84, 0, 0, 0, 0xE0, 0xFF, 0xFF]), 0) + rec(bytes([0x99]), 2) + rec(bytes([0x84]), 3),
}

os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(data)
print('wrote', len(seeds), 'seeds to', os.path.normpath(OUT))
