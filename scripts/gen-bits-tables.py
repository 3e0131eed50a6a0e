#!/usr/bin/env python3
"""gen_bits_tables.py: writes src/bits/bits_tables.h, the shuffle and shift
tables of the AVX-512 unpack kernels in bits_avx512.c.

Rerun after changing the scheme: python3 scripts/gen-bits-tables.py

Scheme. A vector step produces E entries from one 64-byte load that starts
at the long holding the step's first entry. For each output lane, vpermb
gathers a little-endian window of the lane's width (2, 4 or 8 bytes) that
starts at the byte holding the entry's lowest bit; a per-lane variable
shift (vpsrlvw/d/q) by that bit's offset inside the byte, and a mask, leave
the entry. Lanes are:
  W: 16-bit lanes, E = 32, needs offset(<=7) + bits <= 16, i.e. bits <= 9
  D: 32-bit lanes, E = 16, bits <= 25
  Q: 64-bit lanes, E = 8,  bits <= 32
  E: spanning bits 26..31, E = 16: 32-bit lanes from a 128-byte window
     (two-source vpermt2b): the entry's low 4 bytes shifted right, its 5th
     byte shifted left into the top, since entry + offset can reach 39 bits
  M: (bits 10..16) 16-bit entries, E = 32: each 64-bit lane gathers the
     bytes of four entries (skipping padding bytes between longs), and
     vpmultishiftqb pulls each entry's 16 bits from its bit offset in the
     lane; needs the four entries' bytes to fit in 8.
The pattern of windows repeats after P steps, when the steps have covered a
whole number of units (a padded long holds 64/bits entries; a spanning
period of 64 entries fills `bits` longs), so each width needs P tables.
For big-endian input the same windows are gathered from the byte-reversed
positions, which folds the byte swap into the shuffle. Window bytes past the
end of an entry's long (padded) only feed bits above the entry and are
masked off, so any in-range index serves there.
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "bits_tables.h")

LANE = {"W": 2, "D": 4, "Q": 8}
E = {"W": 32, "D": 16, "Q": 8, "M": 32, "E": 16}


def first_bit(e, b, padded):
    if padded:
        k = 64 // b
        return (e // k) * 64 + (e % k) * b
    return e * b


def mode_for(b, padded):
    if padded and 64 // b == 2:
        return None  # two entries per long: a dedicated shift/or kernel
    if 10 <= b <= 16 and fits_m(b, padded):
        return "M"
    if not padded and 26 <= b <= 31:
        return "E"
    for m in ("W", "D", "Q"):
        lim = {"W": 16, "D": 32, "Q": 64}[m]
        if 7 + b <= lim and fits(b, padded, m):
            return m
    raise SystemExit("no mode for bits=%d padded=%s" % (b, padded))


def period(b, padded, m):
    unit = 64 // b if padded else 64
    return unit // math.gcd(E[m], unit)


def fits(b, padded, m):
    for t in range(period(b, padded, m)):
        e0 = E[m] * t
        base = first_bit(e0, b, padded) // 64
        for j in range(E[m]):
            fb = first_bit(e0 + j, b, padded)
            byte = fb // 8 - base * 8
            # the bytes that hold the entry itself must be inside the load
            last = (fb + b - 1) // 8 - base * 8
            if last >= 64 or byte >= 64:
                return False
    return True


def m_lane(b, padded, e0, base):
    """Source bytes (relative to the load) of a lane of 4 entries from e0,
    and each entry's bit offset inside the lane; None when over 8 bytes."""
    srcs = set()
    for j in range(4):
        fb = first_bit(e0 + j, b, padded)
        for q in range(fb // 8, (fb + b - 1) // 8 + 1):
            srcs.add(q - base * 8)
    order = sorted(srcs)
    if len(order) > 8 or order[-1] >= 64:
        return None
    offs = []
    for j in range(4):
        fb = first_bit(e0 + j, b, padded)
        p = order.index(fb // 8 - base * 8) * 8 + fb % 8
        if p + b > 64:
            return None
        offs.append(p)
    return order, offs


def fits_m(b, padded):
    for t in range(period(b, padded, "M")):
        e0 = 32 * t
        base = first_bit(e0, b, padded) // 64
        for lane in range(8):
            if m_lane(b, padded, e0 + 4 * lane, base) is None:
                return False
    return True


def tables_m(b, padded, be):
    p = period(b, padded, "M")
    unit = 64 // b if padded else 64
    offs, idxs, ctrls = [], [], []
    for t in range(p):
        e0 = 32 * t
        base = first_bit(e0, b, padded) // 64
        offs.append(base)
        idx, ctrl = [], []
        for lane in range(8):
            order, eoffs = m_lane(b, padded, e0 + 4 * lane, base)
            order = order + [order[-1]] * (8 - len(order))
            for q in order:
                idx.append((q // 8) * 8 + 7 - (q % 8) if be else q)
            for po in eoffs:
                ctrl.extend([po, po + 8])
        idxs.append(idx)
        ctrls.append(ctrl)
    longs = 32 * p // unit if padded else 32 * p * b // 64
    return p, longs, offs, idxs, ctrls


def tables_e(b, be):
    p = period(b, False, "E")
    offs, idxs, idx2s, shifts = [], [], [], []
    for t in range(p):
        e0 = 16 * t
        base = first_bit(e0, b, False) // 64
        offs.append(base)
        idx, idx2, sh = [], [], []
        for j in range(16):
            fb = first_bit(e0 + j, b, False)
            byte = fb // 8 - base * 8
            assert byte + 4 < 128
            for k in range(4):
                idx.append(byte + k)
                idx2.append(byte + 4)
            sh.extend((fb % 8).to_bytes(4, "little"))
        if be:
            idx = [(q // 8) * 8 + 7 - (q % 8) for q in idx]
            idx2 = [(q // 8) * 8 + 7 - (q % 8) for q in idx2]
        idxs.append(idx)
        idx2s.append(idx2)
        shifts.append(sh)
    return p, 16 * p * b // 64, offs, idxs, shifts, idx2s


def tables(b, padded, be, m):
    if m == "E":
        return tables_e(b, be)
    if m == "M":
        return tables_m(b, padded, be)
    p = period(b, padded, m)
    unit = 64 // b if padded else 64
    offs, idxs, shifts = [], [], []
    base0 = 0
    for t in range(p):
        e0 = E[m] * t
        base = first_bit(e0, b, padded) // 64
        offs.append(base - base0)
        idx, sh = [], []
        for j in range(E[m]):
            fb = first_bit(e0 + j, b, padded)
            byte = fb // 8 - base * 8
            entry_last = (fb + b - 1) // 8 - base * 8
            for k in range(LANE[m]):
                q = byte + k
                if q > entry_last or q >= 64:
                    q = byte  # above the entry: masked off later
                if be:
                    q = (q // 8) * 8 + 7 - (q % 8)
                idx.append(q)
            s = fb % 8
            sh.extend(s.to_bytes(LANE[m], "little"))
        idxs.append(idx)
        shifts.append(sh)
    if padded:
        longs = E[m] * p // unit
    else:
        longs = E[m] * p * b // 64
    return p, longs, offs, idxs, shifts


def c_bytes(vals):
    return "{" + ",".join(str(v) for v in vals) + "}"


def main():
    out = []
    out.append("/* bits_tables.h: generated by scripts/gen-bits-tables.py; do not edit.\n"
               " * Shuffle/shift tables of the AVX-512 unpack kernels (see the script for\n"
               " * the scheme). */")
    out.append("#ifndef MC_CHUNK_BITS_TABLES_H\n#define MC_CHUNK_BITS_TABLES_H\n")
    out.append("#include <stdint.h>\n")
    out.append("typedef struct mc__bits_tab {\n"
               "    uint8_t mode;    /* 0 none (dedicated kernel), 1 W, 2 D, 3 Q, 4 M, 5 E */\n"
               "    uint8_t period;  /* steps per pattern */\n"
               "    uint16_t longs;  /* longs consumed per period */\n"
               "    const uint8_t *offs;       /* per step: first long, from the period's */\n"
               "    const uint8_t (*idx)[64];  /* per step: vpermb indices */\n"
               "    const uint8_t (*shift)[64];/* per step: lane shift counts */\n"
               "    const uint8_t (*idx2)[64]; /* E only: indices of the 5th bytes */\n"
               "} mc__bits_tab;\n")
    descs = {}
    for lay, padded in (("p", True), ("s", False)):
        for be in (0, 1):
            for b in range(1, 33):
                m = mode_for(b, padded)
                if m is None:
                    descs[(lay, be, b)] = "{0, 0, 0, 0, 0, 0, 0}"
                    continue
                res = tables(b, padded, be, m)
                p, longs, offs, idxs, shifts = res[:5]
                name = "mc__tab_%s%d_%d" % (lay, be, b)
                out.append("static const uint8_t %s_offs[%d] = %s;" % (name, p, c_bytes(offs)))
                out.append("static const uint8_t %s_idx[%d][64] = {%s};" %
                           (name, p, ",".join(c_bytes(i) for i in idxs)))
                out.append("static const uint8_t %s_shift[%d][64] = {%s};" %
                           (name, p, ",".join(c_bytes(s) for s in shifts)))
                idx2 = "0"
                if m == "E":
                    out.append("static const uint8_t %s_idx2[%d][64] = {%s};" %
                               (name, p, ",".join(c_bytes(i) for i in res[5])))
                    idx2 = name + "_idx2"
                descs[(lay, be, b)] = "{%d, %d, %d, %s_offs, %s_idx, %s_shift, %s}" % (
                    " WDQME".index(m), p, longs, name, name, name, idx2)
    out.append("\n/* [spanning][big-endian][bits] */")
    out.append("static const mc__bits_tab mc__bits_tabs[2][2][33] = {")
    for lay in ("p", "s"):
        out.append(" {")
        for be in (0, 1):
            row = ["{0, 0, 0, 0, 0, 0, 0}"] + [descs[(lay, be, b)] for b in range(1, 33)]
            out.append("  {" + ",\n   ".join(row) + "},")
        out.append(" },")
    out.append("};\n\n#endif")
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()


# ------------------------------------------------------------------ AVX2
# AVX2 has no cross-lane byte shuffle, so each 128-bit lane loads its own
# 16-byte window (two longs) starting at the long of the lane's first entry,
# and vpshufb gathers windows inside the lane:
#   A16 (bits <= 9): 8 entries per lane as 16-bit windows; vpmullw by
#       2^(16-bits-shift) then a right shift by 16-bits isolates each entry.
#   A8 (bits 10..21 padded, ..25 spanning): 4 entries per lane as 32-bit
#       windows, vpsrlvd by the shift, then a mask.
# Per step: the two lanes' long offsets, 32 shuffle indices, 16 words of
# multipliers (A16) or 8 dwords of shifts (A8).

def avx2_mode(b, padded):
    """The lane mode whose windows fit 16 bytes for every step, or None."""
    for m in ("A16", "A8"):
        if (m == "A16" and b > 9) or b > 25:
            continue
        try:
            avx2_tables(b, padded, 0, m)
            return m
        except AssertionError:
            pass
    return None


def avx2_tables(b, padded, be, m=None):
    m = m or avx2_mode(b, padded)
    per_lane = 8 if m == "A16" else 4
    step = 2 * per_lane
    unit = 64 // b if padded else 64
    p = unit // math.gcd(step, unit)
    offs, idxs, muls = [], [], []
    for t in range(p):
        idx, mul, lane_offs = [], [], []
        for lane in range(2):
            e0 = step * t + per_lane * lane
            base = first_bit(e0, b, padded) // 64
            lane_offs.append(base)
            width = 2 if m == "A16" else 4
            for j in range(per_lane):
                fb = first_bit(e0 + j, b, padded)
                byte = fb // 8 - base * 8
                last = (fb + b - 1) // 8 - base * 8
                assert last < 16, (b, padded, t, lane, j)
                for k in range(width):
                    q = byte + k
                    if q > last:
                        idx.append(0x80)  # above the entry: zero
                        continue
                    idx.append((q // 8) * 8 + 7 - (q % 8) if be else q)
                s = fb % 8
                if m == "A16":
                    mul.extend((1 << (16 - b - s)).to_bytes(2, "little"))
                else:
                    mul.extend(s.to_bytes(4, "little"))
        offs.extend(lane_offs)
        idxs.append(idx)
        muls.append(mul)
    longs = step * p // unit if padded else step * p * b // 64
    return m, p, longs, offs, idxs, muls


def main_avx2():
    out = []
    out.append("/* bits_tables_avx2.h: generated by scripts/gen-bits-tables.py; do not edit.\n"
               " * Shuffle tables of the AVX2 unpack kernels (see the script). */")
    out.append("#ifndef MC_CHUNK_BITS_TABLES_AVX2_H\n#define MC_CHUNK_BITS_TABLES_AVX2_H\n")
    out.append("#include <stdint.h>\n")
    out.append("typedef struct mc__bits_tab2 {\n"
               "    uint8_t mode;    /* 0 none, 1 A16, 2 A8 */\n"
               "    uint8_t period;\n"
               "    uint16_t longs;  /* longs per period */\n"
               "    const uint8_t (*offs)[2];  /* per step: each lane's first long */\n"
               "    const uint8_t (*idx)[32];\n"
               "    const uint8_t (*mul)[32];  /* A16: multipliers; A8: shifts */\n"
               "} mc__bits_tab2;\n")
    descs = {}
    for lay, padded in (("p", True), ("s", False)):
        for be in (0, 1):
            for b in range(1, 33):
                if avx2_mode(b, padded) is None:
                    descs[(lay, be, b)] = "{0, 0, 0, 0, 0, 0}"
                    continue
                m, p, longs, offs, idxs, muls = avx2_tables(b, padded, be)
                name = "mc__tab2_%s%d_%d" % (lay, be, b)
                out.append("static const uint8_t %s_offs[%d][2] = {%s};" % (
                    name, p, ",".join("{%d,%d}" % (offs[2 * i], offs[2 * i + 1]) for i in range(p))))
                out.append("static const uint8_t %s_idx[%d][32] = {%s};" % (name, p, ",".join(c_bytes(i) for i in idxs)))
                out.append("static const uint8_t %s_mul[%d][32] = {%s};" % (name, p, ",".join(c_bytes(x) for x in muls)))
                descs[(lay, be, b)] = "{%d, %d, %d, %s_offs, %s_idx, %s_mul}" % (
                    1 if m == "A16" else 2, p, longs, name, name, name)
    out.append("\n/* [spanning][big-endian][bits] */")
    out.append("static const mc__bits_tab2 mc__bits_tabs2[2][2][33] = {")
    for lay in ("p", "s"):
        out.append(" {")
        for be in (0, 1):
            row = ["{0, 0, 0, 0, 0, 0}"] + [descs[(lay, be, b)] for b in range(1, 33)]
            out.append("  {" + ",\n   ".join(row) + "},")
        out.append(" },")
    out.append("};\n\n#endif")
    with open(os.path.join(HERE, "bits_tables_avx2.h"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main_avx2()
