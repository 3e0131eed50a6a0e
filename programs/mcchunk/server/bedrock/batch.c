/*
 * batch.c: Bedrock batches in and out (batch.h). Inflating uses one buffer
 * the size of the limit, shared by every client of the listener, so no
 * batch costs an allocation and none can inflate past the limit; deflating
 * uses libdeflate's whole-buffer compressor (level 1 for what is sent once,
 * 6 for what the world caches and sends many times).
 */
#include "server/bedrock/batch.h"

#include <libdeflate.h>
#include <stdio.h>
#include <string.h>

bool srv_bcodec_shared_init(srv_bcodec_shared *s)
{
    memset(s, 0, sizeof *s);
    s->fast = libdeflate_alloc_compressor(1);
    s->small = libdeflate_alloc_compressor(6);
    s->inflater = libdeflate_alloc_decompressor();
    mc_buf_init(&s->inflated, NULL);
    mc_buf_init(&s->sealed, NULL);
    return s->fast && s->small && s->inflater;
}

void srv_bcodec_shared_free(srv_bcodec_shared *s)
{
    if (s->fast)
        libdeflate_free_compressor(s->fast);
    if (s->small)
        libdeflate_free_compressor(s->small);
    if (s->inflater)
        libdeflate_free_decompressor(s->inflater);
    mc_buf_free(&s->inflated);
    mc_buf_free(&s->sealed);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------- packets */

void srv_bpackets_init(srv_bpackets *it, const uint8_t *data, size_t len)
{
    mc_error_clear(&it->err);
    mc_reader_init(&it->r, data, len, "batch", &it->err);
    it->count = 0;
}

bool srv_bpackets_next(srv_bpackets *it, const uint8_t **pkt, size_t *len, bool *bad)
{
    *bad = false;
    if (!mc_reader_remaining(&it->r))
        return false;
    uint32_t n = mc_read_uvarint32(&it->r);
    const uint8_t *p = mc_reader_ok(&it->r) && n ? mc_read_bytes(&it->r, n, "packet") : NULL;
    if (!p || ++it->count > SRV_BATCH_MAX_PACKETS) {
        *bad = true;
        return false;
    }
    *pkt = p;
    *len = n;
    return true;
}

/* Whether data is a whole sequence of length-prefixed packets. */
static bool whole_packets(const uint8_t *data, size_t len)
{
    srv_bpackets it;
    srv_bpackets_init(&it, data, len);
    const uint8_t *p;
    size_t n;
    bool bad = false;
    while (srv_bpackets_next(&it, &p, &n, &bad)) {
    }
    return !bad && it.count > 0;
}

void srv_bpacket_frame(mc_buf *out, const uint8_t *packet, size_t len)
{
    mc_buf_put_uvarint32(out, (uint32_t)len);
    mc_buf_put(out, packet, len);
}

/* --------------------------------------------------------------- in */

static bool inflate_raw(srv_bcodec_shared *s, const uint8_t *in, size_t len)
{
    if (!mc_buf_reserve(&s->inflated, SRV_BATCH_MAX_INFLATED))
        return false;
    size_t got = 0;
    if (libdeflate_deflate_decompress(s->inflater, in, len, s->inflated.data, SRV_BATCH_MAX_INFLATED, &got) !=
        LIBDEFLATE_SUCCESS)
        return false;
    s->inflated.len = got;
    return true;
}

static bool copy_raw(srv_bcodec_shared *s, const uint8_t *in, size_t len)
{
    s->inflated.len = 0;
    mc_buf_put(&s->inflated, in, len);
    return mc_buf_ok(&s->inflated);
}

bool srv_bcodec_open(srv_bcodec *c, srv_bcodec_shared *s, uint8_t *msg, size_t len, char *why, size_t why_len)
{
    s->inflated.len = 0;
    if (len < 2 || msg[0] != SRV_BATCH_HEADER) {
        snprintf(why, why_len, "not a game batch (first byte 0x%02x, %zu bytes)", len ? msg[0] : 0, len);
        return false;
    }
    uint8_t *body = msg + 1;
    size_t n = len - 1;
    if (c->cipher && !srv_bcipher_open(c->cipher, body, n, &n)) {
        snprintf(why, why_len, "an encrypted batch whose checksum does not match");
        return false;
    }
    bool ok;
    if (!c->compressing) {
        ok = copy_raw(s, body, n);
    } else if (c->algorithm_byte) {
        if (n < 1) {
            ok = false;
        } else if (body[0] == 0xFF) {
            ok = copy_raw(s, body + 1, n - 1);
        } else if (body[0] == 0) {
            ok = inflate_raw(s, body + 1, n - 1);
        } else {
            snprintf(why, why_len, "compression algorithm %u is not DEFLATE or none", body[0]);
            return false;
        }
    } else { /* before 1.20.60: DEFLATE, or raw from bedrock-protocol's client (batch.h) */
        ok = inflate_raw(s, body, n) && whole_packets(s->inflated.data, s->inflated.len);
        if (!ok && whole_packets(body, n))
            ok = copy_raw(s, body, n);
    }
    if (!ok || !s->inflated.len) {
        snprintf(why, why_len, "a batch that does not inflate to packets (%zu bytes%s)", n,
                 s->inflated.len >= SRV_BATCH_MAX_INFLATED ? ", or over 4 MiB" : "");
        return false;
    }
    return true;
}

/* --------------------------------------------------------------- out */

bool srv_bcodec_body(const srv_bcodec *c, srv_bcodec_shared *s, const uint8_t *packets, size_t len, bool best,
                     mc_buf *out)
{
    if (!c->compressing) {
        mc_buf_put(out, packets, len);
        return mc_buf_ok(out);
    }
    if (c->algorithm_byte && len < c->threshold) {
        mc_buf_put_u8(out, 0xFF);
        mc_buf_put(out, packets, len);
        return mc_buf_ok(out);
    }
    struct libdeflate_compressor *z = best ? s->small : s->fast;
    size_t bound = libdeflate_deflate_compress_bound(z, len);
    if (!mc_buf_reserve(out, bound + 1))
        return false;
    if (c->algorithm_byte)
        out->data[out->len++] = 0;
    size_t n = libdeflate_deflate_compress(z, packets, len, out->data + out->len, bound);
    if (!n)
        return false;
    out->len += n;
    return true;
}

bool srv_bcodec_seal(srv_bcodec *c, const uint8_t *body, size_t len, mc_buf *out)
{
    mc_buf_put_u8(out, SRV_BATCH_HEADER);
    if (c->cipher)
        return srv_bcipher_seal(c->cipher, body, len, out) && mc_buf_ok(out);
    mc_buf_put(out, body, len);
    return mc_buf_ok(out);
}
