/*
 * raknet.h: RakNet, the UDP transport under Minecraft Bedrock Edition, as a
 * socket-free state machine plus a thin libuv binding.
 *
 * An endpoint (srv_rak) is fed datagrams (srv_rak_receive) and the passing of
 * time (srv_rak_tick), both with a millisecond clock the caller owns, and
 * emits datagrams through a callback. Nothing in it touches a socket or reads
 * a clock, so tests drive two endpoints through an in-memory link that loses,
 * duplicates and reorders datagrams, and the fuzz target feeds it bytes.
 * srv_rak_uv (uv.c) binds one endpoint to a libuv UDP socket and timer.
 *
 * What it speaks: the offline handshake (unconnected ping/pong with the
 * server-list string, open connection request/reply 1 and 2 with MTU
 * discovery, incompatible protocol), then per peer the connected layer:
 * datagrams with ACK/NACK ranges, the reliability types, 32 ordered channels,
 * split packets, resends with an RTT-based timeout, a congestion window, and
 * the connection request / accepted / new incoming connection, connected
 * ping/pong and disconnect messages. Every limit a peer can push against
 * (split parts, concurrent splits, bytes being reassembled, ordering and
 * reliability windows, unacknowledged data, silence, malformed datagrams)
 * drops that peer with a logged reason; the others are unaffected.
 *
 * Callbacks may call back into the endpoint (send, disconnect); a peer is
 * freed only after its `disconnected` callback and never inside a call that
 * the user made with it, so a peer pointer stays valid until then.
 */
#ifndef MC_SERVER_RAKNET_H
#define MC_SERVER_RAKNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_rak srv_rak;
typedef struct srv_rak_peer srv_rak_peer;

/* A UDP address: family 4 (ip[0..3]) or 6 (ip[0..15]), port in host order. */
typedef struct srv_rak_addr {
    uint8_t family;
    uint8_t ip[16];
    uint16_t port;
} srv_rak_addr;

/* Reliability types (the wire's 3-bit field). The "with ack receipt"
 * variants 5-7 are accepted on receipt and handled as 0, 2 and 3. */
enum {
    MC_RAK_UNRELIABLE = 0,
    MC_RAK_UNRELIABLE_SEQUENCED = 1,
    MC_RAK_RELIABLE = 2,
    MC_RAK_RELIABLE_ORDERED = 3,
    MC_RAK_RELIABLE_SEQUENCED = 4
};

#define MC_RAK_CHANNELS 32
#define MC_RAK_MIN_MTU 576
#define MC_RAK_MAX_MTU 1492

enum { MC_RAK_LOG_INFO, MC_RAK_LOG_WARN };

/* srv_rak_send results. */
typedef enum srv_rak_send_result {
    MC_RAK_SENT = 0,    /* queued; it goes out at the next flush or tick */
    MC_RAK_FULL,        /* back-pressure: the peer's send window is full, nothing queued */
    MC_RAK_CLOSED,      /* the peer is disconnecting or gone */
    MC_RAK_BAD_ARGUMENT /* empty, too large (max_message_bytes), bad channel or type */
} srv_rak_send_result;

typedef struct srv_rak_config {
    uint64_t guid;                  /* this endpoint's GUID (the pong and handshake carry it) */
    bool accept;                    /* accept incoming connections (a server) */
    unsigned max_peers;             /* peers at once, handshaking ones included */
    uint16_t max_mtu;               /* MC_RAK_MIN_MTU..MC_RAK_MAX_MTU */
    uint8_t protocol;               /* the RakNet protocol this endpoint speaks as a client */
    uint8_t min_protocol, max_protocol; /* accepted from clients (Bedrock: 10 before 1.19.30, 11) */
    uint32_t max_split_parts;       /* parts of one split message */
    uint32_t max_splits;            /* split messages being reassembled at once, per peer */
    size_t max_reassembly_bytes;    /* bytes held per peer for splits and out-of-order messages */
    size_t max_message_bytes;       /* largest message srv_rak_send takes */
    size_t send_window_bytes;       /* queued + unacknowledged bytes per peer (back-pressure) */
    unsigned max_in_flight;         /* unacknowledged datagrams per peer (<= 1024) */
    uint32_t idle_timeout_ms;       /* a peer silent this long is dropped */
    uint32_t ack_timeout_ms;        /* data unacknowledged this long drops the peer */
    uint32_t handshake_timeout_ms;  /* connecting must finish within this */
    uint32_t ping_interval_ms;      /* connected pings to each peer */
    unsigned max_bad_datagrams;     /* malformed datagrams a peer may send before it is dropped */
} srv_rak_config;

typedef struct srv_rak_callbacks {
    void *user;
    /* Emits one datagram (required). */
    void (*send)(void *user, const srv_rak_addr *to, const uint8_t *data, size_t len);
    /* A peer finished the connection handshake (both sides). */
    void (*connected)(void *user, srv_rak_peer *peer);
    /* A user message (first byte >= 0x80, e.g. Bedrock's 0xFE batch), in
     * the order its reliability type promises; `data` lives for the call. */
    void (*message)(void *user, srv_rak_peer *peer, const uint8_t *data, size_t len);
    /* The peer is going away (once per peer, also for peers that never
     * connected); it is freed after this returns. */
    void (*disconnected)(void *user, srv_rak_peer *peer, const char *reason);
    /* An unconnected pong's string (the client side of the server-list ping). */
    void (*pong)(void *user, const srv_rak_addr *from, const uint8_t *data, size_t len);
    /* One log line (without newline); may be NULL. */
    void (*log)(void *user, int level, const char *line);
    /* The peer's backlog fell to the mark srv_rak_peer_notify_writable
     * asked for (once per asking); may be NULL. */
    void (*writable)(void *user, srv_rak_peer *peer);
} srv_rak_callbacks;

/* Fills a config with the defaults: accept off, 1024 peers, MTU 1492,
 * protocol 11 (accepting 10-11), 8192 parts a split, 16 splits at once,
 * 16 MiB reassembly, 4 MiB messages, 16 MiB send window, 512 datagrams in
 * flight, 10 s idle, 15 s unacknowledged, 10 s handshake, ping every 2 s,
 * 64 bad datagrams. */
void srv_rak_config_defaults(srv_rak_config *cfg);

/* A new endpoint (copies cfg and cb), or NULL without memory. */
srv_rak *srv_rak_new(const srv_rak_config *cfg, const srv_rak_callbacks *cb);
/* Frees the endpoint and its peers without callbacks or datagrams (use
 * srv_rak_disconnect_all first for a clean stop). */
void srv_rak_free(srv_rak *rak);
/* The string an unconnected pong carries (copied; at most 65535 bytes). */
void srv_rak_set_pong(srv_rak *rak, const char *data, size_t len);

/* One datagram received from `from` at time now_ms. */
void srv_rak_receive(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len, uint64_t now_ms);
/* srv_rak_receive without its closing flush (ACKs, and messages the
 * datagram let through the windows, wait): for datagrams read in a batch,
 * followed by one srv_rak_flush. */
void srv_rak_receive_unflushed(srv_rak *rak, const srv_rak_addr *from, const uint8_t *data, size_t len,
                               uint64_t now_ms);
/* Timeouts, resends, pings, and a flush; call every 10-50 ms. */
void srv_rak_tick(srv_rak *rak, uint64_t now_ms);
/* Sends what the peers have queued (ACKs, messages) that the windows allow. */
void srv_rak_flush(srv_rak *rak, uint64_t now_ms);

/* Client side: starts connecting to a server (OCR1 with MTU discovery
 * 1492, 1200, 576); the peer reports `connected` or `disconnected`. NULL
 * when out of peers or memory. */
srv_rak_peer *srv_rak_connect(srv_rak *rak, const srv_rak_addr *to, uint64_t now_ms);
/* Client side: sends an unconnected ping (the answer comes to `pong`). */
void srv_rak_ping(srv_rak *rak, const srv_rak_addr *to, uint64_t now_ms);

/* Queues a message (its first byte is its id; user messages start at 0x80).
 * Larger than what fits a datagram, it is split. */
srv_rak_send_result srv_rak_send(srv_rak_peer *peer, const uint8_t *data, size_t len, int reliability,
                               unsigned channel);
/* Closes a peer cleanly: its queued messages and a disconnect notification
 * are still sent (for up to 2 s), and `disconnected` is called now with
 * `reason` (also logged). */
void srv_rak_disconnect(srv_rak_peer *peer, const char *reason);
/* srv_rak_disconnect for every peer. */
void srv_rak_disconnect_all(srv_rak *rak, const char *reason);

/* Peers that are not yet freed (connecting, connected, closing). */
unsigned srv_rak_peer_count(const srv_rak *rak);
/* The endpoint's clock: the time of the latest call that gave one. */
uint64_t srv_rak_now(const srv_rak *rak);

void srv_rak_peer_set_user(srv_rak_peer *peer, void *user);
void *srv_rak_peer_user(const srv_rak_peer *peer);
const srv_rak_addr *srv_rak_peer_addr(const srv_rak_peer *peer);
/* "1.2.3.4:5" or "[::1]:5". */
const char *srv_rak_peer_name(const srv_rak_peer *peer);
uint16_t srv_rak_peer_mtu(const srv_rak_peer *peer);
uint8_t srv_rak_peer_protocol(const srv_rak_peer *peer);
uint64_t srv_rak_peer_guid(const srv_rak_peer *peer);
bool srv_rak_peer_connected(const srv_rak_peer *peer);
/* Bytes queued or sent but not yet acknowledged (the send window's use). */
size_t srv_rak_peer_backlog(const srv_rak_peer *peer);
/* Smoothed round-trip time, ms. */
uint32_t srv_rak_peer_rtt_ms(const srv_rak_peer *peer);
/* Frames (messages, or parts of split ones) queued or sent and not yet
 * acknowledged: what a receiver holds while one of them is lost, which
 * its ordering window bounds. */
size_t srv_rak_peer_frames(const srv_rak_peer *peer);
/* Asks for the `writable` callback once the peer's backlog (queued and
 * unacknowledged bytes) is at most `bytes` and its frames at most
 * `frames`, which acknowledgements bring about (one asking, one callback).
 * Returns true, asking nothing, when both already are that small. */
bool srv_rak_peer_notify_writable(srv_rak_peer *peer, size_t bytes, size_t frames);

typedef struct srv_rak_stats {
    uint64_t datagrams_sent, datagrams_received;
    uint64_t frames_resent;       /* reliable frames sent again after a loss */
    uint64_t duplicates_dropped;  /* datagrams or reliable frames seen twice */
    uint64_t bad_datagrams;       /* malformed or unexpected datagrams ignored */
    uint64_t peers_dropped;       /* peers dropped for a limit or protocol violation */
} srv_rak_stats;
const srv_rak_stats *srv_rak_get_stats(const srv_rak *rak);

/* Formats an address as srv_rak_peer_name does. */
void srv_rak_addr_format(const srv_rak_addr *addr, char *buf, size_t cap);

/* ------------------------------------------------------ libuv binding */

struct uv_loop_s;
typedef struct srv_rak_uv srv_rak_uv;

/* Binds a UDP socket on bind:port (port 0: any free one) and runs an
 * endpoint on it (cb->send is supplied by the binding) with a 10 ms tick
 * on uv_now. NULL on failure, with the reason in err. */
srv_rak_uv *srv_rak_uv_start(struct uv_loop_s *loop, const char *bind, int port, const srv_rak_config *cfg,
                           const srv_rak_callbacks *cb, char *err, size_t errlen);
srv_rak *srv_rak_uv_endpoint(srv_rak_uv *u);
/* The bound port. */
int srv_rak_uv_port(const srv_rak_uv *u);
/* The loop's clock as the endpoint sees it (for srv_rak_connect etc.). */
uint64_t srv_rak_uv_now(const srv_rak_uv *u);
/* Sends queued data now rather than at the next tick. */
void srv_rak_uv_flush(srv_rak_uv *u);
/* What the binding handed the kernel: datagrams, the send entries they took
 * (a GSO entry carries several datagrams), and whether UDP GSO is in use
 * (probed at start; off after a refusal or with MCCHUNK_RAKNET_GSO=0). */
typedef struct srv_rak_uv_stats {
    bool gso;
    uint64_t datagrams;
    uint64_t sends;
    uint64_t gso_sends; /* entries of more than one datagram */
} srv_rak_uv_stats;
const srv_rak_uv_stats *srv_rak_uv_get_stats(const srv_rak_uv *u);
/* Sends raw datagrams (datagrams[i] of lens[i] bytes to to[i]) as one batch,
 * grouped as the endpoint's own are (for tests of the socket layer). */
void srv_rak_uv_send_batch(srv_rak_uv *u, const srv_rak_addr *to, const uint8_t *const *datagrams,
                           const size_t *lens, size_t count);
/* Disconnects every peer (their notifications are sent), closes the socket
 * and the timer, and frees everything once libuv has closed them. */
void srv_rak_uv_close(srv_rak_uv *u, const char *reason);

#endif
