/*
 * raknet_private.h: what the files of the RakNet module share: the wire
 * codec (wire.c), what is emitted (datagrams and log lines, output.c), the
 * per-peer reliability layer (peer.c) and the endpoint with its offline
 * handshake and peer table (endpoint.c), in that order of dependence.
 */
#ifndef MC_SERVER_RAKNET_PRIVATE_H
#define MC_SERVER_RAKNET_PRIVATE_H

#include <stdarg.h>

#include "mcchunk/core.h"
#include "server/raknet/raknet.h"

/* ---------------------------------------------------------------- wire */

/* Message ids. */
enum {
    MC__RAK_CONNECTED_PING = 0x00,
    MC__RAK_UNCONNECTED_PING = 0x01,
    MC__RAK_UNCONNECTED_PING_OPEN = 0x02,
    MC__RAK_CONNECTED_PONG = 0x03,
    MC__RAK_OPEN_REQUEST_1 = 0x05,
    MC__RAK_OPEN_REPLY_1 = 0x06,
    MC__RAK_OPEN_REQUEST_2 = 0x07,
    MC__RAK_OPEN_REPLY_2 = 0x08,
    MC__RAK_CONNECTION_REQUEST = 0x09,
    MC__RAK_CONNECTION_ACCEPTED = 0x10,
    MC__RAK_NEW_INCOMING = 0x13,
    MC__RAK_NO_FREE_CONNECTIONS = 0x14,
    MC__RAK_DISCONNECT = 0x15,
    MC__RAK_INCOMPATIBLE = 0x19,
    MC__RAK_UNCONNECTED_PONG = 0x1C,
    MC__RAK_USER = 0x80
};

/* Datagram header flags. */
enum { MC__RAK_VALID = 0x80, MC__RAK_ACK = 0x40, MC__RAK_NACK = 0x20, MC__RAK_NEEDS_B_AND_AS = 0x04 };

#define MC__RAK_MAGIC_LEN 16
extern const uint8_t srv__rak_magic[MC__RAK_MAGIC_LEN];

/* IP + UDP headers: what an MTU counts beyond the datagram. */
#define MC__RAK_UDP_OVERHEAD 28
/* Datagram header (flags + u24 sequence number). */
#define MC__RAK_DATAGRAM_HEADER 4
/* The largest frame header (flags, bit length, message, sequence and order
 * indexes, channel, split fields). */
#define MC__RAK_FRAME_HEADER_MAX 23
#define MC__RAK_U24 0xFFFFFFu

/* One frame (encapsulated packet) of a data datagram. */
typedef struct srv__rak_frame {
    uint8_t reliability;
    bool split;
    uint8_t channel;
    uint16_t split_id;
    uint32_t msg_index, seq_index, order_index; /* u24 */
    uint32_t split_count, split_index;
    const uint8_t *data;
    size_t len;
} srv__rak_frame;

static inline bool srv__rak_is_reliable(uint8_t r) { return r == 2 || r == 3 || r == 4 || r == 6 || r == 7; }
static inline bool srv__rak_is_sequenced(uint8_t r) { return r == 1 || r == 4; }
static inline bool srv__rak_is_ordered(uint8_t r) { return r == 3 || r == 7; }
/* Ordered or sequenced: the frame carries an order index and a channel. */
static inline bool srv__rak_has_order(uint8_t r) { return r == 1 || r == 3 || r == 4 || r == 7; }

/* Reads one frame (its data points into the reader's bytes); false on a
 * malformed or truncated frame (the reader's error says which). */
bool srv__rak_frame_read(mc_reader *r, srv__rak_frame *f);
/* Header bytes of a frame. */
size_t srv__rak_frame_header_size(const srv__rak_frame *f);
/* Writes a frame (header + data) at p, returns the bytes written. */
size_t srv__rak_frame_write(uint8_t *p, const srv__rak_frame *f);

/* Reads an ACK/NACK body (after the flags byte) into ranges; returns the
 * number read, or -1 when malformed. Ranges beyond `cap` fail it too. */
typedef struct srv__rak_range {
    uint32_t first, last;
} srv__rak_range;
int srv__rak_ranges_read(mc_reader *r, srv__rak_range *out, int cap);
/* Writes an ACK or NACK datagram (flag MC__RAK_ACK or MC__RAK_NACK) of the
 * sorted, deduplicated sequence numbers seqs[0..n) into out (cap bytes),
 * as many as fit; *used says how many seqs it took. Returns bytes written. */
size_t srv__rak_ranges_write(uint8_t *out, size_t cap, uint8_t flag, const uint32_t *seqs, size_t n, size_t *used);

/* RakNet's address form: 4, ~ip (4), port BE; or 6, family u16 LE, port BE,
 * flow u32, ip (16), scope u32. */
bool srv__rak_addr_read(mc_reader *r, srv_rak_addr *a);
size_t srv__rak_addr_write(uint8_t *p, const srv_rak_addr *a); /* 7 or 29 bytes */
bool srv__rak_addr_equal(const srv_rak_addr *a, const srv_rak_addr *b);

/* u24 helpers: modular distance from a to b, and "b is after a". */
static inline uint32_t srv__rak_u24_diff(uint32_t a, uint32_t b) { return (b - a) & MC__RAK_U24; }
static inline bool srv__rak_u24_after(uint32_t a, uint32_t b)
{
    uint32_t d = srv__rak_u24_diff(a, b);
    return d != 0 && d < 0x800000u;
}
static inline void srv__rak_put_u24le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
}
static inline uint32_t srv__rak_read_u24le(mc_reader *r)
{
    const uint8_t *p = mc_read_bytes(r, 3, "u24");
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 : 0;
}

/* ---------------------------------------------------------------- peer */

enum srv__rak_state {
    MC__RAK_HANDSHAKE_1, /* client: OCR1 sent, waiting for reply 1 */
    MC__RAK_HANDSHAKE_2, /* client: OCR2 sent, waiting for reply 2 */
    MC__RAK_CONNECTING,  /* reliability up, connection request/accepted under way */
    MC__RAK_CONNECTED,
    MC__RAK_CLOSING,     /* disconnect queued: flushing, then freed */
    MC__RAK_DEAD         /* freed at the next reap */
};

typedef struct srv__rak_peer_state srv__rak_peer_state;

struct srv_rak_peer {
    srv_rak *rak;
    srv_rak_peer *next;
    srv_rak_addr addr;
    char name[56];
    int state;
    bool client;     /* we started it (srv_rak_connect) */
    bool notified;   /* `disconnected` was called */
    uint8_t protocol;
    uint16_t mtu;
    uint64_t guid;   /* the other side's */
    uint64_t created_ms, last_recv_ms, close_deadline_ms;
    unsigned bad_datagrams;
    /* client handshake */
    unsigned hs_tries;
    uint64_t hs_next_ms;
    void *user;
    size_t writable_mark;    /* 1 + the backlog at which `writable` is due; 0 none asked */
    size_t writable_frames;  /* and the frames queued or unacknowledged */
    srv__rak_peer_state *rs; /* reliability layer, from CONNECTING on */
};

struct srv_rak {
    srv_rak_config cfg;
    srv_rak_callbacks cb;
    srv_rak_peer *peers;
    unsigned npeers;
    uint64_t now;
    uint8_t *pong;
    size_t pong_len;
    srv_rak_stats stats;
    int depth; /* >0 while inside an entry point: reaping waits */
};

/* peer.c */
bool srv__rak_peer_start(srv_rak_peer *p); /* allocates the reliability layer */
void srv__rak_peer_release(srv_rak_peer *p);
void srv__rak_peer_datagram(srv_rak_peer *p, const uint8_t *data, size_t len);
void srv__rak_peer_tick(srv_rak_peer *p);
void srv__rak_peer_flush(srv_rak_peer *p);
bool srv__rak_peer_idle(const srv_rak_peer *p); /* nothing queued or unacknowledged */
/* Drops a peer for a violation: logged as a warning, `disconnected`
 * called, one unreliable disconnect notification sent, freed at reap. */
void srv__rak_peer_drop(srv_rak_peer *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Calls `disconnected` once. */
void srv__rak_peer_notify(srv_rak_peer *p, const char *reason);
/* Client: sends the connection request (after reply 2). */
void srv__rak_peer_send_connection_request(srv_rak_peer *p);

/* output.c */
void srv__rak_log(srv_rak *rak, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void srv__rak_emit(srv_rak *rak, const srv_rak_addr *to, const uint8_t *data, size_t len);

#endif
