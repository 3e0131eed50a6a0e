/*
 * wire.c: RakNet's byte formats — frames (encapsulated packets), ACK/NACK
 * range lists and addresses — read through mc_reader and written into
 * caller buffers whose size the caller has checked (datagrams are at most
 * an MTU, so they are built on the stack rather than in growable buffers).
 *
 * The readers trust nothing: a frame's bit length is checked against what
 * remains, a reliability type or split field the format does not allow
 * fails the frame, and an ACK list cannot claim more records than its bytes
 * hold. Byte orders are RakNet's: u24 indexes little-endian, everything
 * else big-endian (except the IPv6 family field, which is the sender's
 * sockaddr_in6 copied as it was).
 */
#include "server/raknet/raknet_private.h"

const uint8_t srv__rak_magic[MC__RAK_MAGIC_LEN] = {0x00, 0xFF, 0xFF, 0x00, 0xFE, 0xFE, 0xFE, 0xFE,
                                                   0xFD, 0xFD, 0xFD, 0xFD, 0x12, 0x34, 0x56, 0x78};

bool srv__rak_frame_read(mc_reader *r, srv__rak_frame *f)
{
    memset(f, 0, sizeof *f);
    uint8_t flags = mc_read_u8(r);
    uint16_t bits = mc_read_u16be(r);
    if (!mc_reader_ok(r))
        return false;
    f->reliability = flags >> 5;
    f->split = (flags & 0x10) != 0;
    if (bits == 0) {
        mc_reader_fail(r, MC_ERR_MALFORMED, "raknet: empty frame");
        return false;
    }
    if (srv__rak_is_reliable(f->reliability))
        f->msg_index = srv__rak_read_u24le(r);
    if (srv__rak_is_sequenced(f->reliability))
        f->seq_index = srv__rak_read_u24le(r);
    if (srv__rak_has_order(f->reliability)) {
        f->order_index = srv__rak_read_u24le(r);
        f->channel = mc_read_u8(r);
        if (mc_reader_ok(r) && f->channel >= MC_RAK_CHANNELS) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "raknet: channel %u", f->channel);
            return false;
        }
    }
    if (f->split) {
        f->split_count = mc_read_u32be(r);
        f->split_id = mc_read_u16be(r);
        f->split_index = mc_read_u32be(r);
        if (mc_reader_ok(r) && (f->split_count == 0 || f->split_index >= f->split_count)) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "raknet: split part %u of %u", f->split_index, f->split_count);
            return false;
        }
    }
    f->len = ((size_t)bits + 7) / 8;
    f->data = mc_read_bytes(r, f->len, "frame data");
    return f->data != NULL;
}

size_t srv__rak_frame_header_size(const srv__rak_frame *f)
{
    size_t n = 3;
    if (srv__rak_is_reliable(f->reliability))
        n += 3;
    if (srv__rak_is_sequenced(f->reliability))
        n += 3;
    if (srv__rak_has_order(f->reliability))
        n += 4;
    if (f->split)
        n += 10;
    return n;
}

size_t srv__rak_frame_write(uint8_t *p, const srv__rak_frame *f)
{
    uint8_t *start = p;
    *p++ = (uint8_t)(f->reliability << 5 | (f->split ? 0x10 : 0));
    mc_store_u16be(p, (uint16_t)(f->len * 8));
    p += 2;
    if (srv__rak_is_reliable(f->reliability)) {
        srv__rak_put_u24le(p, f->msg_index);
        p += 3;
    }
    if (srv__rak_is_sequenced(f->reliability)) {
        srv__rak_put_u24le(p, f->seq_index);
        p += 3;
    }
    if (srv__rak_has_order(f->reliability)) {
        srv__rak_put_u24le(p, f->order_index);
        p[3] = f->channel;
        p += 4;
    }
    if (f->split) {
        mc_store_u32be(p, f->split_count);
        mc_store_u16be(p + 4, f->split_id);
        mc_store_u32be(p + 6, f->split_index);
        p += 10;
    }
    memcpy(p, f->data, f->len);
    return (size_t)(p - start) + f->len;
}

int srv__rak_ranges_read(mc_reader *r, srv__rak_range *out, int cap)
{
    uint16_t count = mc_read_u16be(r);
    if (!mc_reader_ok(r))
        return -1;
    /* Each record is at least 4 bytes: a count beyond that is a lie. */
    if ((size_t)count * 4 > mc_reader_remaining(r) || count > cap) {
        mc_reader_fail(r, MC_ERR_MALFORMED, "raknet: %u ack records", count);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        uint8_t single = mc_read_u8(r);
        out[i].first = srv__rak_read_u24le(r);
        out[i].last = single ? out[i].first : srv__rak_read_u24le(r);
        if (!mc_reader_ok(r))
            return -1;
    }
    return count;
}

size_t srv__rak_ranges_write(uint8_t *out, size_t cap, uint8_t flag, const uint32_t *seqs, size_t n, size_t *used)
{
    size_t len = 3;
    uint16_t records = 0;
    size_t i = 0;
    out[0] = (uint8_t)(MC__RAK_VALID | flag);
    while (i < n && records < 0xFFFF) {
        size_t j = i;
        while (j + 1 < n && seqs[j + 1] == seqs[j] + 1)
            j++;
        size_t need = i == j ? 4 : 7;
        if (len + need > cap)
            break;
        out[len] = i == j;
        srv__rak_put_u24le(out + len + 1, seqs[i]);
        if (i != j)
            srv__rak_put_u24le(out + len + 4, seqs[j]);
        len += need;
        records++;
        i = j + 1;
    }
    mc_store_u16be(out + 1, records);
    *used = i;
    return len;
}

bool srv__rak_addr_read(mc_reader *r, srv_rak_addr *a)
{
    memset(a, 0, sizeof *a);
    uint8_t version = mc_read_u8(r);
    if (version == 4) {
        const uint8_t *ip = mc_read_bytes(r, 4, "ipv4 address");
        a->port = mc_read_u16be(r);
        if (!ip)
            return false;
        a->family = 4;
        for (int i = 0; i < 4; i++)
            a->ip[i] = (uint8_t)~ip[i];
    } else if (version == 6) {
        mc_read_u16le(r); /* family, as the sender's OS numbers it */
        a->port = mc_read_u16be(r);
        mc_read_u32be(r); /* flow info */
        const uint8_t *ip = mc_read_bytes(r, 16, "ipv6 address");
        mc_read_u32be(r); /* scope id */
        if (!ip || !mc_reader_ok(r))
            return false;
        a->family = 6;
        memcpy(a->ip, ip, 16);
    } else {
        if (mc_reader_ok(r))
            mc_reader_fail(r, MC_ERR_MALFORMED, "raknet: address version %u", version);
        return false;
    }
    return mc_reader_ok(r);
}

size_t srv__rak_addr_write(uint8_t *p, const srv_rak_addr *a)
{
    if (a->family == 6) {
        p[0] = 6;
        mc_store_u16le(p + 1, 10); /* AF_INET6 as Linux numbers it */
        mc_store_u16be(p + 3, a->port);
        memset(p + 5, 0, 4);
        memcpy(p + 9, a->ip, 16);
        memset(p + 25, 0, 4);
        return 29;
    }
    p[0] = 4;
    for (int i = 0; i < 4; i++)
        p[1 + i] = (uint8_t)~a->ip[i];
    mc_store_u16be(p + 5, a->port);
    return 7;
}

bool srv__rak_addr_equal(const srv_rak_addr *a, const srv_rak_addr *b)
{
    return a->family == b->family && a->port == b->port && !memcmp(a->ip, b->ip, a->family == 6 ? 16 : 4);
}
