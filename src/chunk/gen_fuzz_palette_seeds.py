#!/usr/bin/env python3
"""gen_fuzz_palette_seeds.py: writes the seed corpus of fuzz/fuzz_palette.c
into fuzz/corpus/fuzz_palette/ (small, synthetic inputs; see the input format
at the top of fuzz_palette.c). Rerun: python3 src/chunk/gen_fuzz_palette_seeds.py
"""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "fuzz", "corpus", "fuzz_palette")


def longs_for(n, b, spanning):
    if b == 0:
        return 0
    return -(-n * b // 64) if spanning else -(-n // (64 // b))


def pack(vals, b, spanning):
    w = [0] * longs_for(len(vals), b, spanning)
    k = 64 // b
    for i, v in enumerate(vals):
        pos = i * b if spanning else (i // k) * 64 + (i % k) * b
        for j in range(b):
            if v >> j & 1:
                w[(pos + j) // 64] |= 1 << ((pos + j) % 64)
    return b"".join(struct.pack(">Q", x) for x in w)


def seed(name, flags, bits, direct, pal, vals, spanning):
    body = bytes([flags, bits, direct]) + struct.pack(">H", len(pal))
    body += b"".join(struct.pack(">I", p) for p in pal)
    body += pack(vals, bits, spanning) if bits else b""
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(body)


def main():
    random.seed(1)
    os.makedirs(OUT, exist_ok=True)
    seed("single_blocks", 0, 0, 15, [1], [], False)
    # 000_ac38556b76dd1524.txt: biomes at 1 bit, palette [0x27, 3], CC FF x4
    with open(os.path.join(OUT, "seed_biome_ccff"), "wb") as f:
        f.write(bytes([1, 1, 6]) + struct.pack(">H", 2) + struct.pack(">II", 0x27, 3)
                + bytes.fromhex("CCFFCCFFCCFFCCFF"))
    seed("blocks_4bit_padded", 0, 4, 15, [0, 1, 9, 33, 80], [random.randrange(5) for _ in range(4096)], False)
    seed("blocks_5bit_spanning", 2, 5, 14, list(range(20)), [random.randrange(20) for _ in range(4096)], True)
    seed("blocks_direct15_native", 4, 15, 15, [], [random.randrange(27914) for _ in range(4096)], False)
    seed("biomes_3bit", 1, 3, 7, [1, 2, 3, 4, 5, 6, 7], [random.randrange(7) for _ in range(64)], False)
    seed("bad_index", 0, 4, 15, [0, 1], [random.randrange(4) for _ in range(4096)], False)
    with open(os.path.join(OUT, "bad_length"), "wb") as f:
        f.write(bytes([8, 4, 15, 0, 1, 0, 0, 0, 7]) + bytes(8 * 10))


if __name__ == "__main__":
    main()
