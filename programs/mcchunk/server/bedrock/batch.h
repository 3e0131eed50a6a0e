/*
 * batch.h: Bedrock's game-packet framing over RakNet (batch.c). Every
 * RakNet message of the game is a batch: the byte 0xFE, then (encrypted
 * once encryption is on) the compressed concatenation of packets, each
 * prefixed by its length as a varint. Compression:
 *   - before 1.19.30 there is no negotiation: raw DEFLATE both ways;
 *   - from 1.19.30 the client asks (RequestNetworkSettings) and the server's
 *     NetworkSettings turns compression on (raw DEFLATE here) with a
 *     threshold; those two packets themselves travel uncompressed;
 *   - from 1.20.60 (649) every compressed-phase batch starts with the
 *     algorithm byte: 0 DEFLATE, 1 Snappy, 0xFF none (a batch under the
 *     threshold).
 * Before 1.20.60 the game compresses every batch; bedrock-protocol's
 * client leaves batches under its threshold raw (and its own server reads
 * a batch that does not inflate as raw), so for those versions an incoming
 * batch that does not inflate to a whole sequence of packets is read as
 * raw when it is one (ORACLES.md).
 */
#ifndef MC_SERVER_BEDROCK_BATCH_H
#define MC_SERVER_BEDROCK_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcchunk/core.h"
#include "server/bedrock/crypto.h"

#define SRV_BATCH_HEADER 0xFE
/* An incoming batch inflates to at most this (a login with a large skin
 * is the largest a client sends: a few hundred KiB). */
#define SRV_BATCH_MAX_INFLATED ((size_t)4 << 20)
/* Packets in one incoming batch. */
#define SRV_BATCH_MAX_PACKETS 4096

struct libdeflate_compressor;
struct libdeflate_decompressor;

/* One client's side of the framing. */
typedef struct srv_bcodec {
    int protocol;           /* the client's (0 until known: before login) */
    bool compressing;       /* compression in force (NetworkSettings sent, or a pre-1.19.30 login) */
    bool algorithm_byte;    /* 1.20.60+: the algorithm byte leads each compressed-phase batch */
    uint16_t threshold;     /* batches shorter than this go uncompressed (algorithm byte 0xFF) */
    srv_bcipher *cipher;    /* encryption in force, or NULL */
} srv_bcodec;

/* What a codec shares with the others of the listener: libdeflate's
 * state and the inflate buffer (one event loop: one batch at a time). */
typedef struct srv_bcodec_shared {
    struct libdeflate_compressor *fast, *small; /* levels 1 and 6 */
    struct libdeflate_decompressor *inflater;
    mc_buf inflated;
    mc_buf sealed; /* scratch: a message on its way to RakNet */
} srv_bcodec_shared;

bool srv_bcodec_shared_init(srv_bcodec_shared *s);
void srv_bcodec_shared_free(srv_bcodec_shared *s);

/* Decodes an incoming batch (a RakNet message) into the concatenated
 * packets in s->inflated (decrypting `msg` in place when encrypted); false
 * with the reason in `why` when it is not a valid batch. */
bool srv_bcodec_open(srv_bcodec *c, srv_bcodec_shared *s, uint8_t *msg, size_t len, char *why, size_t why_len);

/* Walks the packets of an opened batch: *pkt and *len the next one; false at
 * the end or on a malformed length (then *bad is set). */
typedef struct srv_bpackets {
    mc_reader r;
    mc_error err;
    unsigned count;
} srv_bpackets;
void srv_bpackets_init(srv_bpackets *it, const uint8_t *data, size_t len);
bool srv_bpackets_next(srv_bpackets *it, const uint8_t **pkt, size_t *len, bool *bad);

/* The cleartext body of an outgoing batch (what follows 0xFE, before
 * encryption) for one or more packets (each length-prefixed already) in
 * `packets`: [algorithm byte] + compressed, or the packets as they are
 * before compression is on. `best`: compress harder (data sent many times,
 * e.g. cached chunks). Appends to out. */
bool srv_bcodec_body(const srv_bcodec *c, srv_bcodec_shared *s, const uint8_t *packets, size_t len, bool best,
                     mc_buf *out);
/* The message to send for a cleartext body: 0xFE + body, or 0xFE +
 * encrypt(body + checksum). Appends to out. */
bool srv_bcodec_seal(srv_bcodec *c, const uint8_t *body, size_t len, mc_buf *out);

/* Appends one packet (id + fields) length-prefixed, ready for a batch. */
void srv_bpacket_frame(mc_buf *out, const uint8_t *packet, size_t len);

#endif
