#!/usr/bin/env python3
# gen-fuzz-world-stats-raw-seeds.py: writes fuzz/corpus/fuzz_world_stats_raw/,
# the seeds of fuzz/fuzz_world_stats_raw.c (`world stats`' reader of
# 1.8-1.17 chunk bytes against the model reader): small hand-made chunks
# (uncompressed Java NBT) of each shape that reader takes -- 1.8-1.12
# Blocks/Data (with and without Add), 1.13-1.15 Palette + spanning
# BlockStates, 1.16-1.17 padded, 2D byte/int and 3D int biomes, block
# entities (a duplicate position among them), entities -- and a few it
# declines (two sections of one Y, an index past the palette).
# usage: scripts/gen-fuzz-world-stats-raw-seeds.py
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fuzz', 'corpus', 'fuzz_world_stats_raw')

END, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, BYTES, STRING, LIST, COMPOUND, INTS, LONGS = range(13)


def name(s):
    b = s.encode()
    return struct.pack('>H', len(b)) + b


def payload(t, v):
    if t == BYTE:
        return struct.pack('>b', v)
    if t == INT:
        return struct.pack('>i', v)
    if t == DOUBLE:
        return struct.pack('>d', v)
    if t == STRING:
        return name(v)
    if t == BYTES:
        return struct.pack('>i', len(v)) + bytes(x & 255 for x in v)
    if t == INTS:
        return struct.pack('>i', len(v)) + b''.join(struct.pack('>i', x) for x in v)
    if t == LONGS:
        return struct.pack('>i', len(v)) + b''.join(struct.pack('>Q', x & (2**64 - 1)) for x in v)
    if t == LIST:
        et, items = v
        return struct.pack('>bi', et, len(items)) + b''.join(payload(et, x) for x in items)
    if t == COMPOUND:
        return b''.join(struct.pack('>b', tt) + name(k) + payload(tt, x) for k, tt, x in v) + b'\0'
    raise ValueError(t)


def root(tags):
    return struct.pack('>b', COMPOUND) + name('') + payload(COMPOUND, tags)


def pack(indices, bits, padded):
    """Entries of `bits` bits into longs, padded (1.16+) or spanning."""
    longs = []
    if padded:
        per = 64 // bits
        for i in range(0, len(indices), per):
            w = 0
            for k, v in enumerate(indices[i:i + per]):
                w |= v << (k * bits)
            longs.append(w)
    else:
        acc, n = 0, 0
        for v in indices:
            acc |= v << n
            n += bits
        for i in range((len(indices) * bits + 63) // 64):
            longs.append((acc >> (64 * i)) & (2**64 - 1))
    return longs


def legacy_section(y, seed, add=False):
    blocks = [(i * 7 + seed) % 5 if i % 16 else 1 for i in range(4096)]  # stone, air, grass... and rows of one
    data = [((i * 3 + seed) % 4) | (((i * 5) % 3) << 4) for i in range(2048)]
    tags = [('Y', BYTE, y), ('Blocks', BYTES, blocks),
            ('Data', BYTES, data),
            ('SkyLight', BYTES, [0] * 2048), ('BlockLight', BYTES, [0] * 2048)]
    if add:
        tags.append(('Add', BYTES, [1 if i % 64 == 0 else 0 for i in range(2048)]))
    return tags


def entry(block, props=()):
    tags = [('Name', STRING, block)]
    if props:
        tags.insert(0, ('Properties', COMPOUND, [(k, STRING, v) for k, v in props]))
    return tags


PALETTE = [entry('minecraft:air'), entry('minecraft:stone'), entry('minecraft:grass_block', [('snowy', 'false')]),
           entry('minecraft:oak_log', [('axis', 'y')]), entry('minecraft:water', [('level', '0')]),
           entry('minecraft:no_such_block')]


def flat_section(y, padded, n=len(PALETTE), bad_index=False):
    idx = [(i // 16 + i % 3) % n for i in range(4096)]
    if bad_index:
        idx[77] = n  # past the palette
    bits = max(4, (n - 1).bit_length())
    return [('Y', BYTE, y), ('Palette', LIST, (COMPOUND, PALETTE[:n])),
            ('BlockStates', LONGS, pack(idx, bits, padded))]


def block_entities(dup=False):
    items = [[('id', STRING, 'minecraft:chest'), ('x', INT, 3), ('y', INT, 5), ('z', INT, 7)],
             [('id', STRING, 'minecraft:sign'), ('x', INT, 4), ('y', INT, 5), ('z', INT, 7)]]
    if dup:
        items.append([('id', STRING, 'minecraft:furnace'), ('x', INT, 3), ('y', INT, 5), ('z', INT, 7)])
    return (COMPOUND, items)


def chunk(dv, sections, biomes=None, extra=()):
    level = [('xPos', INT, 0), ('zPos', INT, 0), ('Sections', LIST, (COMPOUND, sections))]
    if biomes is not None:
        level.append(('Biomes',) + biomes)
    level.extend(extra)
    tags = [('Level', COMPOUND, level)]
    if dv is not None:
        tags.append(('DataVersion', INT, dv))  # after Level, as the game writes it
    return root(tags)


ents = ('Entities', LIST, (COMPOUND, [[('id', STRING, 'minecraft:cow'),
                                       ('Pos', LIST, (DOUBLE, [1.5, 70.0, 2.5]))]]))
seeds = {
    'legacy_1_8': chunk(None, [legacy_section(0, 1), legacy_section(3, 2)], (BYTES, [i % 7 for i in range(256)]),
                        [('TileEntities', LIST, block_entities()), ents]),
    'legacy_add_1_12': chunk(1343, [legacy_section(1, 3, add=True)], (BYTES, [200 + i % 60 for i in range(256)]),
                             [('TileEntities', LIST, block_entities(dup=True))]),
    'flat_1_13_spanning': chunk(1631, [flat_section(0, False), flat_section(2, False, 2)],
                                (INTS, [i % 9 for i in range(256)])),
    'flat_1_15_3d': chunk(2230, [flat_section(4, False, 3)], (INTS, [(i // 64) % 5 for i in range(1024)]),
                          [('TileEntities', LIST, block_entities())]),
    'flat_1_16_padded': chunk(2586, [flat_section(0, True), flat_section(15, True, 1)],
                              (INTS, [i % 3 for i in range(1024)])),
    'flat_1_17_padded': chunk(2730, [flat_section(5, True)], (INTS, [1] * 1024)),
    'declined_duplicate_y': chunk(1343, [legacy_section(2, 1), legacy_section(2, 4)]),
    'declined_bad_index': chunk(2586, [flat_section(1, True, bad_index=True)], (INTS, [0] * 1024)),
}
os.makedirs(OUT, exist_ok=True)
for k, v in seeds.items():
    with open(os.path.join(OUT, 'seed_' + k), 'wb') as f:
        f.write(v)
