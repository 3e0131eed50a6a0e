/*
 * light.c: the light half of Java chunk packets (1.14+), shared by the
 * Update Light packet and, from 1.18, the Chunk Data packet itself.
 *
 * Light covers the column's sections plus one below and one above. Each
 * entry is absent (neither mask bit: the client keeps what it had), "empty"
 * (the empty-mask bit: all zero, no bytes sent) or a 2048-byte array. The
 * model keeps section light as nullable arrays; the two edge entries live in
 * the column's extra NBT (chunk_era.h) so a decoded packet re-encodes to the
 * same bytes. An all-zero array is sent as "empty", as vanilla sends a light
 * layer it never wrote to.
 *
 * 1.14-1.16: masks are varints (18 sections), arrays follow as (varint
 * 2048, bytes) for each sky bit, then each block bit. 1.17+: masks are
 * BitSets (varint count of longs), and each array list has a count.
 */
#include "java/chunk_era.h"

#include <stdlib.h>
#include <string.h>

/* The bookkeeping keys a decoder put in the extra NBT: peeked at, so that
 * encoding a column read from a chunk does not parse its deferred keys. */
static const uint8_t *extra_array(const mc_column *col, const char *key)
{
    const mc_nbt_tag *x = mc_column_extra_peek(col);
    mc_nbt_tag *t = x ? mc_nbt_get(x, key) : NULL;
    mc_nbt_array a;
    if (!t || mc_nbt_get_array(t, MC_NBT_BYTE_ARRAY, &a) != MC_OK || a.count != MC_LIGHT_BYTES)
        return NULL;
    return (const uint8_t *)a.data;
}

void mc__light_arrays(const mc_column *col, bool sky, int32_t lo, uint32_t n, const uint8_t **out)
{
    const int32_t min = mc_column_min_section(col);
    const int32_t max = min + (int32_t)mc_column_section_count(col); /* exclusive */
    for (uint32_t i = 0; i < n + 2; i++) {
        const int32_t sy = lo - 1 + (int32_t)i;
        if (sy == min - 1)
            out[i] = extra_array(col, sky ? MC__KEY_SKY_BELOW : MC__KEY_BLOCK_BELOW);
        else if (sy == max)
            out[i] = extra_array(col, sky ? MC__KEY_SKY_ABOVE : MC__KEY_BLOCK_ABOVE);
        else if (sy < min || sy > max)
            out[i] = NULL;
        else {
            const mc_section *s = mc_column_section_const(col, sy);
            out[i] = sky ? s->sky_light : s->block_light;
        }
    }
}

/* A recorded empty mask (see chunk_era.h), or false when there is none. */
static bool recorded_mask(const mc_column *col, const char *key, uint64_t *words, size_t cap)
{
    const mc_nbt_tag *x = mc_column_extra_peek(col);
    mc_nbt_tag *t = x ? mc_nbt_get(x, key) : NULL;
    int64_t v[65];
    size_t n = 0;
    if (!t || mc_nbt_array_copy_i64(t, v, 65, &n) != MC_OK)
        return false;
    memset(words, 0, cap * sizeof *words);
    for (size_t i = 0; i < n && i < cap; i++)
        words[i] = (uint64_t)v[i];
    return true;
}

static bool all_zero(const uint8_t *p)
{
    /* blocks of 256 bytes, leaving at the first non-zero one; four
     * accumulators so that the loads are not one chain (a block light array
     * is often all zero and read to its end) */
    for (size_t b = 0; b < MC_LIGHT_BYTES; b += 256) {
        uint64_t acc[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < 256; i += 32)
            for (size_t k = 0; k < 4; k++) {
                uint64_t v;
                memcpy(&v, p + b + i + 8 * k, 8);
                acc[k] |= v;
            }
        if (acc[0] | acc[1] | acc[2] | acc[3])
            return false;
    }
    return true;
}

static void put_bitset(mc_buf *out, const uint64_t *words, size_t nwords)
{
    while (nwords && !words[nwords - 1])
        nwords--; /* BitSet.toLongArray drops trailing zero words */
    mc_buf_put_varint(out, (int32_t)nwords);
    for (size_t i = 0; i < nwords; i++)
        mc_buf_put_u64be(out, words[i]);
}

#define MAX_LIGHT_ENTRIES 4098u

void mc__write_light(mc_buf *out, const mc__era *e, const mc_column *col)
{
    int32_t lo;
    uint32_t nsec;
    mc__era_window(e, col, &lo, &nsec);
    const uint32_t n = nsec + 2;
    const uint8_t *stack_sky[66], *stack_blk[66];
    const uint8_t **sky = stack_sky, **blk = stack_blk;
    if (n > 66) {
        sky = malloc(n * sizeof *sky);
        blk = malloc(n * sizeof *blk);
        if (!sky || !blk) {
            free(sky == stack_sky ? NULL : sky);
            free(blk == stack_blk ? NULL : blk);
            out->failed = true;
            return;
        }
    }
    mc__light_arrays(col, true, lo, nsec, sky);
    mc__light_arrays(col, false, lo, nsec, blk);
    /* recorded empty masks describe the column's own range only */
    const bool own = lo == mc_column_min_section(col) && nsec == mc_column_section_count(col);
    const size_t nw = (n + 63) / 64;
    uint64_t masks[4][65];
    memset(masks, 0, sizeof masks);
    uint64_t rec_sky[65], rec_blk[65];
    const bool have_sky = own && recorded_mask(col, MC__KEY_EMPTY_SKY, rec_sky, 65);
    const bool have_blk = own && recorded_mask(col, MC__KEY_EMPTY_BLOCK, rec_blk, 65);
    for (uint32_t i = 0; i < n; i++) {
        const bool sky_empty_ok = !have_sky || ((rec_sky[i >> 6] >> (i & 63)) & 1u);
        const bool blk_empty_ok = !have_blk || ((rec_blk[i >> 6] >> (i & 63)) & 1u);
        if (sky[i]) {
            if (sky_empty_ok && all_zero(sky[i]))
                masks[2][i >> 6] |= 1ull << (i & 63);
            else
                masks[0][i >> 6] |= 1ull << (i & 63);
        }
        if (blk[i]) {
            if (blk_empty_ok && all_zero(blk[i]))
                masks[3][i >> 6] |= 1ull << (i & 63);
            else
                masks[1][i >> 6] |= 1ull << (i & 63);
        }
    }
    const bool bitsets = e->kind >= MC__ERA_1_17;
    for (int m = 0; m < 4; m++) {
        if (bitsets)
            put_bitset(out, masks[m], nw);
        else
            mc_buf_put_varint(out, (int32_t)(uint32_t)masks[m][0]);
    }
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t **arr = pass == 0 ? sky : blk;
        const uint64_t *mask = masks[pass];
        if (bitsets) {
            uint32_t cnt = 0;
            for (uint32_t i = 0; i < n; i++)
                cnt += (uint32_t)((mask[i >> 6] >> (i & 63)) & 1u);
            mc_buf_put_varint(out, (int32_t)cnt);
        }
        for (uint32_t i = 0; i < n; i++) {
            if (!((mask[i >> 6] >> (i & 63)) & 1u))
                continue;
            mc_buf_put_varint(out, MC_LIGHT_BYTES);
            mc_buf_put(out, arr[i], MC_LIGHT_BYTES);
        }
    }
    if (sky != stack_sky) {
        free(sky);
        free(blk);
    }
}

static bool get_bit(const uint64_t *w, size_t nw, uint32_t i)
{
    return (i >> 6) < nw && ((w[i >> 6] >> (i & 63)) & 1u);
}

static mc_status set_edge(mc_column *col, const char *key, const uint8_t *data)
{
    mc_nbt_tag *extra = mc_column_extra(col);
    if (!extra)
        return MC_ERR_NOMEM;
    return mc_nbt_put_byte_array(mc_column_nbt(col), extra, key, (const int8_t *)data,
                                 MC_LIGHT_BYTES);
}

static mc_status store(mc_column *col, bool sky, uint32_t i, uint32_t n, const uint8_t *data)
{
    if (i == 0)
        return set_edge(col, sky ? MC__KEY_SKY_BELOW : MC__KEY_BLOCK_BELOW, data);
    if (i == n - 1)
        return set_edge(col, sky ? MC__KEY_SKY_ABOVE : MC__KEY_BLOCK_ABOVE, data);
    mc_section *s = mc_column_section_at(col, i - 1);
    return sky ? mc_section_set_sky_light(s, data) : mc_section_set_block_light(s, data);
}

mc_status mc__read_light(mc_reader *r, const mc__era *e, mc_column *col, bool strict)
{
    const uint32_t n = col ? mc_column_section_count(col) + 2 : 0;
    const bool bitsets = e->kind >= MC__ERA_1_17;
    uint64_t masks[4][65];
    size_t nw[4];
    memset(masks, 0, sizeof masks);
    static const char *const names[4] = {"sky light mask", "block light mask",
                                         "empty sky light mask", "empty block light mask"};
    for (int m = 0; m < 4; m++) {
        size_t at = r->pos;
        if (bitsets) {
            int32_t cnt = mc_read_varint(r);
            if (cnt < 0 || cnt > 65)
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "%s has %d longs",
                                         names[m], cnt);
            nw[m] = (size_t)cnt;
            for (int32_t i = 0; i < cnt; i++)
                masks[m][i] = mc_read_u64be(r);
        } else {
            masks[m][0] = (uint32_t)mc_read_varint(r);
            nw[m] = 1;
        }
        if (!mc_reader_ok(r))
            return r->status;
        if (col) {
            for (size_t w = 0; w < nw[m]; w++) {
                uint64_t beyond = w * 64 >= n ? masks[m][w]
                                : (n - w * 64 >= 64 ? 0 : masks[m][w] >> (n - w * 64));
                if (beyond && strict)
                    return mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                                             "%s has bits beyond %u sections", names[m],
                                             n);
            }
        }
    }
    if (col) {
        /* keep the empty masks for a faithful re-encode */
        mc_nbt_tag *extra = mc_column_extra(col);
        for (int m = 2; m < 4 && extra; m++) {
            int64_t v[65];
            for (size_t w = 0; w < nw[m]; w++)
                v[w] = (int64_t)masks[m][w];
            if (mc_nbt_put_long_array(mc_column_nbt(col), extra,
                                      m == 2 ? MC__KEY_EMPTY_SKY : MC__KEY_EMPTY_BLOCK, v,
                                      nw[m]) != MC_OK)
                return mc_reader_fail(r, MC_ERR_NOMEM, "no memory");
        }
    }
    uint8_t zero[MC_LIGHT_BYTES];
    memset(zero, 0, sizeof zero);
    for (int pass = 0; pass < 2; pass++) {
        const bool sky = pass == 0;
        uint32_t expect = 0;
        for (size_t w = 0; w < nw[pass]; w++)
            expect += (uint32_t)__builtin_popcountll(masks[pass][w]);
        uint32_t cnt = expect;
        if (bitsets) {
            size_t at = r->pos;
            int32_t c = mc_read_varint(r);
            if (!mc_reader_ok(r))
                return r->status;
            if (c < 0 || (uint32_t)c > MAX_LIGHT_ENTRIES || (strict && (uint32_t)c != expect))
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                                         "%s array count %d, mask has %u",
                                         sky ? "sky" : "block", c, expect);
            cnt = (uint32_t)c;
        }
        /* Arrays go to the set bits in order; extra arrays (lenient) are skipped. */
        uint32_t bit = 0;
        for (uint32_t k = 0; k < cnt; k++) {
            size_t at = r->pos;
            int32_t alen = mc_read_varint(r);
            if (!mc_reader_ok(r))
                return r->status;
            if (alen != MC_LIGHT_BYTES && (strict || alen < 0 || alen > MC_LIGHT_BYTES))
                return mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                                         "%s array length %d (vanilla: 2048)",
                                         sky ? "sky" : "block", alen);
            const uint8_t *data = mc_read_bytes(r, (size_t)alen, "light array");
            if (!data)
                return r->status;
            while (bit < 64 * 65 && !get_bit(masks[pass], nw[pass], bit))
                bit++;
            if (col && bit < n && alen == MC_LIGHT_BYTES) {
                mc_status st = store(col, sky, bit, n, data);
                if (st != MC_OK)
                    return mc_reader_fail_at(r, at, st, "no memory");
            }
            bit++;
        }
        for (uint32_t i = 0; col && i < n; i++)
            if (get_bit(masks[2 + pass], nw[2 + pass], i)) {
                mc_status st = store(col, sky, i, n, zero);
                if (st != MC_OK)
                    return mc_reader_fail(r, st, "no memory");
            }
    }
    return MC_OK;
}

/* ------------------------------------------------------- Update Light */

mc_status mc_java_encode_update_light(const mc_column *col, uint32_t protocol, mc_buf *out,
                                      mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "update_light");
    if (e.kind < MC__ERA_1_14 || id < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java light: protocol %u has no Update Light packet", protocol);
    const size_t start = out->len;
    mc_buf_put_varint(out, id);
    mc_buf_put_varint(out, mc_column_x(col));
    mc_buf_put_varint(out, mc_column_z(col));
    if (e.trust_edges)
        mc_buf_put_u8(out, 1); /* 1.16-1.19.4: trustEdges, true in vanilla's sends */
    mc__write_light(out, &e, col);
    if (!mc_buf_ok(out)) {
        out->len = start;
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "java light: out of memory");
    }
    return MC_OK;
}

mc_status mc_java_decode_update_light(const uint8_t *packet, size_t len, uint32_t protocol,
                                      const mc_java_decode_opts *opts, mc_column *col, int32_t *x,
                                      int32_t *z, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    const bool strict = !(opts && opts->lenient);
    mc_reader r;
    mc_reader_init(&r, packet, len, "java light", err);
    int id = mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "update_light");
    int32_t got = mc_read_varint(&r);
    if (mc_reader_ok(&r) && got != id)
        return mc_reader_fail_at(&r, 0, MC_ERR_MALFORMED,
                                 "packet id 0x%x is not Update Light (0x%x)", got, id);
    int32_t px = mc_read_varint(&r), pz = mc_read_varint(&r);
    if (e.trust_edges) {
        size_t at = r.pos;
        uint8_t t = mc_read_u8(&r);
        if (mc_reader_ok(&r) && t > 1)
            return mc_reader_fail_at(&r, at, MC_ERR_MALFORMED, "trustEdges byte %u", t);
    }
    if (!mc_reader_ok(&r))
        return r.status;
    if (x)
        *x = px;
    if (z)
        *z = pz;
    st = mc__read_light(&r, &e, col, strict);
    if (st != MC_OK)
        return st;
    if (strict && mc_reader_remaining(&r))
        return mc_reader_fail(&r, MC_ERR_MALFORMED, "%zu bytes after the packet",
                              mc_reader_remaining(&r));
    return MC_OK;
}
