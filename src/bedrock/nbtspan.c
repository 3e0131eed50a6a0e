/*
 * nbtspan.c: measures one NBT compound in Bedrock's little-endian or network
 * encoding without building a tree.
 *
 * Subchunk palettes and payload block entities are runs of NBT compounds
 * with no length in front; the only way to know where one ends is to walk
 * it. The codecs here keep state tags and block entities as the exact bytes
 * they came as (which is what makes re-encoding byte-exact and cheap), so all
 * they need is the span. The walk is bounded like every decoder: lengths are
 * checked against what remains and nesting stops at MC_BEDROCK_NBT_DEPTH.
 *
 * Network NBT (Bedrock network, all versions): int and long and all
 * array/list lengths are zigzag varints, string lengths unsigned varints,
 * int/long array elements zigzag varints too.
 */
#include "bedrock_private.h"

#define MC_BEDROCK_NBT_DEPTH 512

static bool skip_payload(mc_reader *r, unsigned type, bool net, unsigned depth);

static bool read_len(mc_reader *r, bool net, uint32_t *out)
{
    int32_t n = net ? mc_read_zigzag32(r) : mc_read_i32le(r);
    if (!mc_reader_ok(r))
        return false;
    if (n < 0) {
        mc_reader_fail(r, MC_ERR_MALFORMED, "nbt: negative length %d", (int)n);
        return false;
    }
    *out = (uint32_t)n;
    return true;
}

static bool skip_string(mc_reader *r, bool net)
{
    size_t len;
    if (net)
        return mc_read_str_uvarint(r, &len) != NULL || (mc_reader_ok(r) && len == 0);
    return mc_read_str_u16le(r, &len) != NULL || (mc_reader_ok(r) && len == 0);
}

static bool skip_n(mc_reader *r, uint32_t n, size_t size, const char *what)
{
    if ((uint64_t)n * size > mc_reader_remaining(r)) {
        mc_reader_need(r, (size_t)((uint64_t)n * size > SIZE_MAX ? SIZE_MAX : (uint64_t)n * size), what);
        return false;
    }
    return mc_read_skip(r, (size_t)n * size, what);
}

static bool skip_payload(mc_reader *r, unsigned type, bool net, unsigned depth)
{
    uint32_t n;
    switch (type) {
    case 1: return mc_read_skip(r, 1, "nbt byte");
    case 2: return mc_read_skip(r, 2, "nbt short");
    case 3:
        if (net) { mc_read_zigzag32(r); return mc_reader_ok(r); }
        return mc_read_skip(r, 4, "nbt int");
    case 4:
        if (net) { mc_read_zigzag64(r); return mc_reader_ok(r); }
        return mc_read_skip(r, 8, "nbt long");
    case 5: return mc_read_skip(r, 4, "nbt float");
    case 6: return mc_read_skip(r, 8, "nbt double");
    case 7:
        return read_len(r, net, &n) && skip_n(r, n, 1, "nbt byte array");
    case 8:
        return skip_string(r, net);
    case 9: {
        unsigned et = mc_read_u8(r);
        if (!read_len(r, net, &n))
            return false;
        if (et > 12 || (et == 0 && n > 0)) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "nbt: bad list element type %u", et);
            return false;
        }
        if (depth >= MC_BEDROCK_NBT_DEPTH) {
            mc_reader_fail(r, MC_ERR_LIMIT, "nbt: nesting deeper than %d", MC_BEDROCK_NBT_DEPTH);
            return false;
        }
        if (!net && et >= 1 && et <= 6) {
            static const uint8_t sz[] = {0, 1, 2, 4, 8, 4, 8};
            return skip_n(r, n, sz[et], "nbt list");
        }
        for (uint32_t i = 0; i < n; i++) {
            if (mc_reader_remaining(r) == 0 && et != 10 && et != 9) {
                mc_reader_need(r, 1, "nbt list element");
                return false;
            }
            if (!skip_payload(r, et, net, depth + 1))
                return false;
        }
        return true;
    }
    case 10:
        if (depth >= MC_BEDROCK_NBT_DEPTH) {
            mc_reader_fail(r, MC_ERR_LIMIT, "nbt: nesting deeper than %d", MC_BEDROCK_NBT_DEPTH);
            return false;
        }
        for (;;) {
            unsigned t = mc_read_u8(r);
            if (!mc_reader_ok(r))
                return false;
            if (t == 0)
                return true;
            if (t > 12) {
                mc_reader_fail(r, MC_ERR_MALFORMED, "nbt: bad tag id %u", t);
                return false;
            }
            if (!skip_string(r, net) || !skip_payload(r, t, net, depth + 1))
                return false;
        }
    case 11:
        if (!read_len(r, net, &n))
            return false;
        if (!net)
            return skip_n(r, n, 4, "nbt int array");
        for (uint32_t i = 0; i < n && mc_reader_ok(r); i++) {
            mc_read_zigzag32(r);
        }
        return mc_reader_ok(r);
    case 12:
        if (!read_len(r, net, &n))
            return false;
        if (!net)
            return skip_n(r, n, 8, "nbt long array");
        for (uint32_t i = 0; i < n && mc_reader_ok(r); i++)
            mc_read_zigzag64(r);
        return mc_reader_ok(r);
    default:
        mc_reader_fail(r, MC_ERR_MALFORMED, "nbt: bad tag id %u", type);
        return false;
    }
}

mc_status mc_bedrock_nbt_span(const uint8_t *data, size_t len, bool network, size_t *span,
                              mc_error *err)
{
    mc_reader r;
    mc_reader_init(&r, data, len, "nbt", err);
    unsigned t = mc_read_u8(&r);
    if (mc_reader_ok(&r) && t != 10)
        mc_reader_fail_at(&r, 0, MC_ERR_MALFORMED, "nbt: root tag type %u is not a compound", t);
    if (mc_reader_ok(&r))
        skip_string(&r, network);
    if (mc_reader_ok(&r))
        skip_payload(&r, 10, network, 0);
    if (!mc_reader_ok(&r))
        return r.status;
    *span = r.pos;
    return MC_OK;
}
