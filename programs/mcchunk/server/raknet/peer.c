/*
 * peer.c: RakNet's connected layer for one peer — reliability, ordering,
 * splitting, acknowledgement, resends — and the connection messages that
 * travel inside it (connection request/accepted, new incoming connection,
 * connected ping/pong, disconnect).
 *
 * Sending: a message becomes one frame, or several split frames when it does
 * not fit a datagram, each a heap object in the "fresh" queue. A flush packs
 * frames (lost ones first) into datagrams while the congestion window allows;
 * a datagram that carries reliable frames occupies the slot seq % RING of a
 * ring until it is acknowledged (its frames are freed and its send time is
 * an RTT sample: every datagram is sent once, a resend takes a new number,
 * so no sample is ambiguous) or declared lost by a NACK or the RTT-based
 * timeout (its frames go to the "resend" queue and keep their message
 * indexes, so the receiver drops copies). The ring bounds what is in flight;
 * `backlog` (queued + unacknowledged bytes) is the send window that
 * srv_rak_send refuses beyond, which is how a slow reader reaches the caller
 * instead of growing the server's memory.
 *
 * Congestion: `cwnd` datagrams may be in flight. It grows by one per
 * acknowledged datagram below `ssthresh` (doubling each round trip) and by
 * one per window's worth of acknowledgements above it; a loss (NACK or
 * timeout) halves it once per round trip (losses of datagrams sent before
 * the last cut do not cut again) and sets ssthresh there, as TCP's Reno
 * does. Growing by one per acknowledgement without end made every reader
 * slower than the link (a client's full socket buffer) lose a burst of
 * datagrams each time the window outgrew it, which were then all sent
 * again.
 *
 * Receiving: datagram numbers are remembered in a window anchored at the
 * highest seen (duplicates are acknowledged again but not processed; gaps
 * are NACKed); reliable message indexes in a window anchored at the lowest
 * missing; ordered messages wait in a per-channel ring until their turn;
 * split parts wait in a bounded table. Every window and table has a limit,
 * and a peer that pushes past one is dropped, never trimmed silently, since
 * silently losing a reliable message would break the stream above.
 */
#include <stdio.h>
#include <stdlib.h>

#include "server/raknet/raknet_private.h"

#define RING 1024          /* in-flight datagram slots (max_in_flight <= RING) */
#define RECV_WINDOW 1024   /* datagram numbers remembered behind the highest */
#define REL_WINDOW 8192    /* reliable message indexes ahead of the lowest missing */
#define ORDER_WINDOW 1024  /* ordered messages that may wait per channel */
#define MAX_ACKS 4096      /* acknowledgements waiting for a flush */
#define MAX_NACK_GAP 256   /* a larger jump in datagram numbers is not NACKed */
#define MAX_HOLES 256      /* missing datagram numbers NACKed again */
#define HOLE_NACKS 5       /* times a missing datagram is NACKed */
#define MAX_RANGES 512 /* more than a datagram holds */
#define MIN_RTO_MS 100
#define MAX_RTO_MS 3000
#define MIN_CWND 8
#define INTERNAL_ADDRESSES 20 /* Bedrock's RakNet is built with 20 */

typedef struct out_frame {
    struct out_frame *next;
    srv__rak_frame f; /* f.data points at payload */
    uint8_t payload[];
} out_frame;

typedef struct frame_queue {
    out_frame *head, *tail;
} frame_queue;

typedef struct flight {
    bool used;
    uint32_t seq;
    uint64_t sent_ms;
    out_frame *frames; /* the reliable frames it carries, in order */
} flight;

/* A datagram number not received while later ones were: NACKed again
 * until it comes, since a NACK can be lost too and some senders (jsp-raknet)
 * resend only when NACKed. */
typedef struct hole {
    uint32_t seq;
    uint8_t nacks;
    uint64_t next_ms;
} hole;

typedef struct held_message {
    uint8_t *data;
    size_t len;
} held_message;

typedef struct channel_state {
    uint32_t send_order, send_seq;
    uint32_t recv_order;         /* next order index to deliver */
    uint32_t recv_seq;           /* highest sequenced index delivered */
    bool recv_seq_any;
    held_message *held;          /* ORDER_WINDOW slots, allocated on first use */
} channel_state;

typedef struct split_state {
    bool used;
    uint16_t id;
    uint32_t count, got;
    size_t bytes;      /* counted against max_reassembly_bytes: the part table and the parts */
    size_t data_bytes; /* the parts */
    uint8_t **parts;
    uint32_t *lens;
    srv__rak_frame head; /* reliability and ordering of the whole message */
} split_state;

struct srv__rak_peer_state {
    frame_queue fresh, resend;
    flight ring[RING];
    uint32_t next_seq;
    unsigned in_flight, cwnd;
    unsigned ssthresh;     /* cwnd grows by one per round trip from here */
    unsigned cwnd_acks;    /* acknowledgements towards the next growth above ssthresh */
    uint32_t recover_seq;  /* a loss of an earlier datagram does not cut cwnd again */
    uint32_t oldest_seq;   /* no datagram before it is in flight */
    bool cut_once;         /* recover_seq is set */
    uint32_t next_msg_index;
    uint16_t next_split_id;
    size_t backlog;
    size_t frames;      /* frames queued or unacknowledged (the backlog counted in frames) */
    uint64_t last_ack_ms, last_ping_ms;
    double srtt, rttvar;
    bool rtt_valid;
    uint32_t rto;
    bool accepted_sent; /* server: connection request accepted */

    bool recv_any;
    uint32_t recv_highest;
    uint64_t recv_bits[RECV_WINDOW / 64];
    uint32_t rel_base;
    uint64_t rel_bits[REL_WINDOW / 64];
    uint32_t acks[MAX_ACKS], nacks[MAX_ACKS];
    size_t ack_count, nack_count;
    hole holes[MAX_HOLES];
    unsigned nholes;

    channel_state ch[MC_RAK_CHANNELS];
    split_state *splits;
    size_t held_bytes; /* split parts and out-of-order messages */
    uint8_t dgram[MC_RAK_MAX_MTU];
};

static bool bit_get(const uint64_t *bits, uint32_t i, uint32_t window)
{
    i %= window;
    return (bits[i / 64] >> (i % 64)) & 1;
}

static void bit_set(uint64_t *bits, uint32_t i, uint32_t window, bool v)
{
    i %= window;
    if (v)
        bits[i / 64] |= (uint64_t)1 << (i % 64);
    else
        bits[i / 64] &= ~((uint64_t)1 << (i % 64));
}

static bool alive(const srv_rak_peer *p)
{
    return p->state == MC__RAK_CONNECTING || p->state == MC__RAK_CONNECTED;
}

bool srv__rak_peer_start(srv_rak_peer *p)
{
    p->rs = calloc(1, sizeof *p->rs);
    if (!p->rs)
        return false;
    p->rs->splits = calloc(p->rak->cfg.max_splits ? p->rak->cfg.max_splits : 1, sizeof *p->rs->splits);
    if (!p->rs->splits) {
        free(p->rs);
        p->rs = NULL;
        return false;
    }
    p->rs->cwnd = 32;
    p->rs->ssthresh = RING;
    p->rs->rto = 500;
    p->rs->last_ack_ms = p->rs->last_ping_ms = p->rak->now;
    return true;
}

static void free_chain(out_frame *f)
{
    while (f) {
        out_frame *next = f->next;
        free(f);
        f = next;
    }
}

static void free_split(srv__rak_peer_state *rs, split_state *s)
{
    if (s->parts)
        for (uint32_t i = 0; i < s->count; i++)
            free(s->parts[i]);
    free(s->parts);
    free(s->lens);
    rs->held_bytes -= s->bytes;
    memset(s, 0, sizeof *s);
}

void srv__rak_peer_release(srv_rak_peer *p)
{
    srv__rak_peer_state *rs = p->rs;
    if (!rs)
        return;
    free_chain(rs->fresh.head);
    free_chain(rs->resend.head);
    for (int i = 0; i < RING; i++)
        if (rs->ring[i].used)
            free_chain(rs->ring[i].frames);
    for (int c = 0; c < MC_RAK_CHANNELS; c++)
        if (rs->ch[c].held) {
            for (int i = 0; i < ORDER_WINDOW; i++)
                free(rs->ch[c].held[i].data);
            free(rs->ch[c].held);
        }
    for (uint32_t i = 0; i < p->rak->cfg.max_splits; i++)
        if (rs->splits[i].used)
            free_split(rs, &rs->splits[i]);
    free(rs->splits);
    free(rs);
    p->rs = NULL;
}

void srv__rak_peer_notify(srv_rak_peer *p, const char *reason)
{
    if (p->notified)
        return;
    p->notified = true;
    if (p->rak->cb.disconnected)
        p->rak->cb.disconnected(p->rak->cb.user, p, reason);
}

void srv__rak_peer_drop(srv_rak_peer *p, const char *fmt, ...)
{
    if (p->state == MC__RAK_DEAD)
        return;
    char reason[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    srv__rak_log(p->rak, MC_RAK_LOG_WARN, "%s: dropped: %s", p->name, reason);
    p->rak->stats.peers_dropped++;
    if (p->rs) {
        /* One unreliable notification, so that a well-meaning peer learns it. */
        uint8_t d[8] = {MC__RAK_VALID, 0, 0, 0};
        srv__rak_put_u24le(d + 1, p->rs->next_seq);
        srv__rak_frame f = {.reliability = MC_RAK_UNRELIABLE, .data = (const uint8_t[]){MC__RAK_DISCONNECT}, .len = 1};
        size_t n = 4 + srv__rak_frame_write(d + 4, &f);
        srv__rak_emit(p->rak, &p->addr, d, n);
    }
    p->state = MC__RAK_DEAD;
    srv__rak_peer_notify(p, reason);
}

/* ------------------------------------------------------------- sending */

static void queue_push(frame_queue *q, out_frame *f)
{
    f->next = NULL;
    if (q->tail)
        q->tail->next = f;
    else
        q->head = f;
    q->tail = f;
}

static out_frame *queue_pop(frame_queue *q)
{
    out_frame *f = q->head;
    if (f) {
        q->head = f->next;
        if (!q->head)
            q->tail = NULL;
        f->next = NULL;
    }
    return f;
}

/* Bytes of frames a datagram may carry. */
static size_t datagram_budget(const srv_rak_peer *p)
{
    return (size_t)p->mtu - MC__RAK_UDP_OVERHEAD - MC__RAK_DATAGRAM_HEADER;
}

static bool push_frame(srv_rak_peer *p, const srv__rak_frame *h, const uint8_t *data, size_t len)
{
    srv__rak_peer_state *rs = p->rs;
    out_frame *o = malloc(sizeof *o + len);
    if (!o) {
        srv__rak_peer_drop(p, "out of memory");
        return false;
    }
    o->f = *h;
    if (srv__rak_is_reliable(h->reliability)) {
        o->f.msg_index = rs->next_msg_index;
        rs->next_msg_index = (rs->next_msg_index + 1) & MC__RAK_U24;
    }
    memcpy(o->payload, data, len);
    o->f.data = o->payload;
    o->f.len = len;
    rs->backlog += len;
    rs->frames++;
    queue_push(&rs->fresh, o);
    return true;
}

/* Frames a message (split when needed) into the fresh queue. */
static bool queue_message(srv_rak_peer *p, const uint8_t *data, size_t len, int reliability, unsigned channel)
{
    srv__rak_peer_state *rs = p->rs;
    srv__rak_frame h = {.reliability = (uint8_t)reliability, .channel = (uint8_t)channel};
    size_t budget = datagram_budget(p);
    if (srv__rak_frame_header_size(&h) + len > budget) {
        /* A split message is reliable: one lost part would lose it all. */
        if (h.reliability == MC_RAK_UNRELIABLE)
            h.reliability = MC_RAK_RELIABLE;
        else if (h.reliability == MC_RAK_UNRELIABLE_SEQUENCED)
            h.reliability = MC_RAK_RELIABLE_SEQUENCED;
        h.split = true;
    }
    channel_state *ch = &rs->ch[channel];
    if (srv__rak_is_sequenced(h.reliability)) {
        h.seq_index = ch->send_seq;
        ch->send_seq = (ch->send_seq + 1) & MC__RAK_U24;
        h.order_index = ch->send_order;
    } else if (srv__rak_is_ordered(h.reliability)) {
        h.order_index = ch->send_order;
        ch->send_order = (ch->send_order + 1) & MC__RAK_U24;
    }
    if (!h.split)
        return push_frame(p, &h, data, len);
    size_t part = budget - srv__rak_frame_header_size(&h);
    h.split_count = (uint32_t)((len + part - 1) / part);
    h.split_id = rs->next_split_id++;
    for (uint32_t i = 0; i < h.split_count; i++) {
        size_t off = (size_t)i * part;
        h.split_index = i;
        if (!push_frame(p, &h, data + off, len - off < part ? len - off : part))
            return false;
    }
    return true;
}

srv_rak_send_result srv_rak_send(srv_rak_peer *p, const uint8_t *data, size_t len, int reliability, unsigned channel)
{
    if (!alive(p) || !p->rs)
        return MC_RAK_CLOSED;
    if (len == 0 || len > p->rak->cfg.max_message_bytes || reliability < 0 || reliability > 4 ||
        channel >= MC_RAK_CHANNELS)
        return MC_RAK_BAD_ARGUMENT;
    if (p->rs->backlog + len > p->rak->cfg.send_window_bytes)
        return MC_RAK_FULL;
    return queue_message(p, data, len, reliability, channel) ? MC_RAK_SENT : MC_RAK_CLOSED;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void flush_ranges(srv_rak_peer *p, uint8_t flag, uint32_t *seqs, size_t *count)
{
    if (!*count)
        return;
    qsort(seqs, *count, sizeof *seqs, cmp_u32);
    size_t n = 0;
    for (size_t i = 0; i < *count; i++)
        if (n == 0 || seqs[n - 1] != seqs[i])
            seqs[n++] = seqs[i];
    size_t done = 0;
    while (done < n) {
        size_t used = 0;
        size_t len = srv__rak_ranges_write(p->rs->dgram, (size_t)p->mtu - MC__RAK_UDP_OVERHEAD, flag, seqs + done,
                                          n - done, &used);
        srv__rak_emit(p->rak, &p->addr, p->rs->dgram, len);
        done += used;
    }
    *count = 0;
}

/* Moves a lost datagram's frames to the resend queue. */
static void lose(srv_rak_peer *p, flight *fl)
{
    srv__rak_peer_state *rs = p->rs;
    for (out_frame *f = fl->frames, *next; f; f = next) {
        next = f->next;
        queue_push(&rs->resend, f);
        p->rak->stats.frames_resent++;
    }
    fl->frames = NULL;
    fl->used = false;
    rs->in_flight--;
}

static void send_datagrams(srv_rak_peer *p)
{
    srv__rak_peer_state *rs = p->rs;
    size_t cap = (size_t)p->mtu - MC__RAK_UDP_OVERHEAD;
    unsigned window = rs->cwnd < p->rak->cfg.max_in_flight ? rs->cwnd : p->rak->cfg.max_in_flight;
    while ((rs->resend.head || rs->fresh.head) && rs->in_flight < window) {
        flight *fl = &rs->ring[rs->next_seq % RING];
        if (fl->used)
            break;
        /* a datagram of resent frames is no fresh start for the ACK
         * watchdog, even when the timeout took every datagram out of flight */
        bool resending = rs->resend.head != NULL;
        uint8_t *d = rs->dgram;
        d[0] = MC__RAK_VALID | MC__RAK_NEEDS_B_AND_AS;
        srv__rak_put_u24le(d + 1, rs->next_seq);
        size_t len = MC__RAK_DATAGRAM_HEADER;
        out_frame *chain = NULL, *tail = NULL;
        for (;;) {
            frame_queue *q = rs->resend.head ? &rs->resend : &rs->fresh;
            out_frame *f = q->head;
            if (!f || len + srv__rak_frame_header_size(&f->f) + f->f.len > cap)
                break;
            queue_pop(q);
            len += srv__rak_frame_write(d + len, &f->f);
            if (srv__rak_is_reliable(f->f.reliability)) {
                if (tail)
                    tail->next = f;
                else
                    chain = f;
                tail = f;
            } else {
                rs->backlog -= f->f.len;
                rs->frames--;
                free(f);
            }
        }
        if (len == MC__RAK_DATAGRAM_HEADER) { /* frames are cut to fit: cannot happen */
            srv__rak_peer_drop(p, "internal error: a frame larger than the MTU");
            return;
        }
        srv__rak_emit(p->rak, &p->addr, d, len);
        if (chain) {
            if (rs->in_flight == 0 && !resending)
                rs->last_ack_ms = p->rak->now;
            fl->used = true;
            fl->seq = rs->next_seq;
            fl->sent_ms = p->rak->now;
            fl->frames = chain;
            rs->in_flight++;
        }
        rs->next_seq = (rs->next_seq + 1) & MC__RAK_U24;
    }
}

void srv__rak_peer_flush(srv_rak_peer *p)
{
    if (!p->rs || p->state == MC__RAK_DEAD)
        return;
    flush_ranges(p, MC__RAK_ACK, p->rs->acks, &p->rs->ack_count);
    flush_ranges(p, MC__RAK_NACK, p->rs->nacks, &p->rs->nack_count);
    send_datagrams(p);
}

bool srv__rak_peer_idle(const srv_rak_peer *p)
{
    return !p->rs || (!p->rs->in_flight && !p->rs->fresh.head && !p->rs->resend.head);
}

/* ---------------------------------------------------- acknowledgements */

static void rtt_sample(srv__rak_peer_state *rs, double ms)
{
    if (!rs->rtt_valid) {
        rs->srtt = ms;
        rs->rttvar = ms / 2;
        rs->rtt_valid = true;
    } else {
        double err = rs->srtt > ms ? rs->srtt - ms : ms - rs->srtt;
        rs->rttvar = 0.75 * rs->rttvar + 0.25 * err;
        rs->srtt = 0.875 * rs->srtt + 0.125 * ms;
    }
    double rto = rs->srtt + 4 * rs->rttvar + 10; /* + the peer's ack delay (a 10 ms tick) */
    rs->rto = rto < MIN_RTO_MS ? MIN_RTO_MS : rto > MAX_RTO_MS ? MAX_RTO_MS : (uint32_t)rto;
}

static void on_ack(srv_rak_peer *p, uint32_t seq)
{
    srv__rak_peer_state *rs = p->rs;
    flight *fl = &rs->ring[seq % RING];
    if (!fl->used || fl->seq != seq)
        return;
    rtt_sample(rs, (double)(p->rak->now - fl->sent_ms));
    for (out_frame *f = fl->frames, *next; f; f = next) {
        next = f->next;
        rs->backlog -= f->f.len;
        rs->frames--;
        free(f);
    }
    fl->frames = NULL;
    fl->used = false;
    rs->in_flight--;
    rs->last_ack_ms = p->rak->now;
    if (rs->cwnd >= RING)
        return;
    if (rs->cwnd < rs->ssthresh) {
        rs->cwnd++;
    } else if (++rs->cwnd_acks >= rs->cwnd) {
        rs->cwnd_acks = 0;
        rs->cwnd++;
    }
}

/* Datagram `seq` was lost: halves the window, once per round trip. */
static void congestion_loss(srv__rak_peer_state *rs, uint32_t seq)
{
    if (rs->cut_once && srv__rak_u24_diff(rs->recover_seq, seq) >= 0x800000u)
        return; /* sent before the last cut */
    rs->ssthresh = rs->cwnd / 2 >= MIN_CWND ? rs->cwnd / 2 : MIN_CWND;
    rs->cwnd = rs->ssthresh;
    rs->cwnd_acks = 0;
    rs->recover_seq = rs->next_seq;
    rs->cut_once = true;
}

static void on_nack(srv_rak_peer *p, uint32_t seq)
{
    flight *fl = &p->rs->ring[seq % RING];
    if (fl->used && fl->seq == seq) {
        congestion_loss(p->rs, seq);
        lose(p, fl);
    }
}

static void handle_ranges(srv_rak_peer *p, mc_reader *r, bool ack)
{
    srv__rak_range ranges[MAX_RANGES];
    int n = srv__rak_ranges_read(r, ranges, MAX_RANGES);
    if (n < 0) {
        p->rak->stats.bad_datagrams++;
        p->bad_datagrams++;
        return;
    }
    for (int i = 0; i < n && p->rs; i++) {
        uint32_t span = srv__rak_u24_diff(ranges[i].first, ranges[i].last);
        if (span >= 0x800000u)
            continue; /* reversed */
        if (span < RING) {
            for (uint32_t k = 0; k <= span; k++) {
                uint32_t s = (ranges[i].first + k) & MC__RAK_U24;
                if (ack)
                    on_ack(p, s);
                else
                    on_nack(p, s);
            }
        } else {
            for (int k = 0; k < RING; k++) {
                flight *fl = &p->rs->ring[k];
                if (fl->used && srv__rak_u24_diff(ranges[i].first, fl->seq) <= span) {
                    if (ack)
                        on_ack(p, fl->seq);
                    else
                        on_nack(p, fl->seq);
                }
            }
        }
    }
}

/* ------------------------------------------------------------ receiving */

static void send_internal(srv_rak_peer *p, const uint8_t *data, size_t len, int reliability)
{
    if (alive(p))
        queue_message(p, data, len, reliability, 0);
}

static void put_time(uint8_t *p, uint64_t t) { mc_store_u64be(p, t); }

static size_t put_internal_addresses(uint8_t *p)
{
    /* RakNet's unassigned address, 255.255.255.255:0, in each slot. */
    srv_rak_addr none = {.family = 4, .ip = {255, 255, 255, 255}, .port = 0};
    size_t n = 0;
    for (int i = 0; i < INTERNAL_ADDRESSES; i++)
        n += srv__rak_addr_write(p + n, &none);
    return n;
}

static void become_connected(srv_rak_peer *p)
{
    p->state = MC__RAK_CONNECTED;
    srv__rak_log(p->rak, MC_RAK_LOG_INFO, "%s: RakNet connection established (protocol %u, MTU %u)", p->name,
                p->protocol, p->mtu);
    if (p->rak->cb.connected)
        p->rak->cb.connected(p->rak->cb.user, p);
}

void srv__rak_peer_send_connection_request(srv_rak_peer *p)
{
    uint8_t m[18];
    m[0] = MC__RAK_CONNECTION_REQUEST;
    mc_store_u64be(m + 1, p->rak->cfg.guid);
    put_time(m + 9, p->rak->now);
    m[17] = 0; /* no security */
    send_internal(p, m, sizeof m, MC_RAK_RELIABLE);
}

/* A message for the connection itself or for the user. */
static void dispatch(srv_rak_peer *p, const uint8_t *data, size_t len)
{
    srv_rak *rak = p->rak;
    uint8_t id = data[0];
    if (id >= MC__RAK_USER) {
        if (p->state == MC__RAK_CONNECTING && !p->client && p->rs->accepted_sent)
            become_connected(p); /* its new incoming connection was lost or is behind */
        if (p->state == MC__RAK_CONNECTED && rak->cb.message)
            rak->cb.message(rak->cb.user, p, data, len);
        return;
    }
    switch (id) {
    case MC__RAK_CONNECTED_PING:
        if (len >= 9) {
            uint8_t m[17];
            m[0] = MC__RAK_CONNECTED_PONG;
            memcpy(m + 1, data + 1, 8);
            put_time(m + 9, rak->now);
            send_internal(p, m, sizeof m, MC_RAK_UNRELIABLE);
        }
        break;
    case MC__RAK_CONNECTION_REQUEST:
        if (!p->client && p->state == MC__RAK_CONNECTING && len >= 17) {
            uint8_t m[1 + 29 + 2 + INTERNAL_ADDRESSES * 7 + 16];
            size_t n = 0;
            m[n++] = MC__RAK_CONNECTION_ACCEPTED;
            n += srv__rak_addr_write(m + n, &p->addr);
            mc_store_u16be(m + n, 0); /* system index */
            n += 2;
            n += put_internal_addresses(m + n);
            memcpy(m + n, data + 9, 8); /* their request time */
            put_time(m + n + 8, rak->now);
            n += 16;
            send_internal(p, m, n, MC_RAK_RELIABLE_ORDERED);
            p->rs->accepted_sent = true;
        }
        break;
    case MC__RAK_CONNECTION_ACCEPTED:
        if (p->client && p->state == MC__RAK_CONNECTING && len >= 17) {
            uint8_t m[1 + 29 + INTERNAL_ADDRESSES * 7 + 16];
            size_t n = 0;
            m[n++] = MC__RAK_NEW_INCOMING;
            n += srv__rak_addr_write(m + n, &p->addr);
            n += put_internal_addresses(m + n);
            memcpy(m + n, data + len - 8, 8); /* their reply time */
            put_time(m + n + 8, rak->now);
            n += 16;
            send_internal(p, m, n, MC_RAK_RELIABLE_ORDERED);
            become_connected(p);
        }
        break;
    case MC__RAK_NEW_INCOMING:
        if (!p->client && p->state == MC__RAK_CONNECTING && p->rs->accepted_sent)
            become_connected(p);
        break;
    case MC__RAK_DISCONNECT:
        srv__rak_log(rak, MC_RAK_LOG_INFO, "%s: disconnected by the peer", p->name);
        p->state = MC__RAK_DEAD;
        srv__rak_peer_notify(p, "disconnected by the peer");
        break;
    default: /* pongs and anything else: nothing to do */
        break;
    }
}

/* Delivers a message through its channel's ordering; `owned` messages are
 * freed here or kept while they wait. */
static void route(srv_rak_peer *p, const srv__rak_frame *h, uint8_t *data, size_t len, bool owned)
{
    srv__rak_peer_state *rs = p->rs;
    channel_state *ch = &rs->ch[h->channel];
    if (srv__rak_is_sequenced(h->reliability)) {
        if (!ch->recv_seq_any || srv__rak_u24_after(ch->recv_seq, h->seq_index)) {
            ch->recv_seq = h->seq_index;
            ch->recv_seq_any = true;
            dispatch(p, data, len);
        }
    } else if (srv__rak_is_ordered(h->reliability)) {
        uint32_t ahead = srv__rak_u24_diff(ch->recv_order, h->order_index);
        if (ahead >= 0x800000u) {
            p->rak->stats.duplicates_dropped++; /* already delivered */
        } else if (ahead >= ORDER_WINDOW) {
            srv__rak_peer_drop(p, "ordered message %u on channel %u is %u ahead (limit %u)", h->order_index,
                              h->channel, ahead, ORDER_WINDOW);
        } else if (ahead > 0) {
            if (!ch->held && !(ch->held = calloc(ORDER_WINDOW, sizeof *ch->held))) {
                srv__rak_peer_drop(p, "out of memory");
            } else if (ch->held[h->order_index % ORDER_WINDOW].data) {
                p->rak->stats.duplicates_dropped++;
            } else if (rs->held_bytes + len > p->rak->cfg.max_reassembly_bytes) {
                srv__rak_peer_drop(p, "messages waiting for their turn exceed %zu bytes",
                                  p->rak->cfg.max_reassembly_bytes);
            } else {
                uint8_t *copy = owned ? data : malloc(len);
                if (!copy) {
                    srv__rak_peer_drop(p, "out of memory");
                } else {
                    if (!owned)
                        memcpy(copy, data, len);
                    ch->held[h->order_index % ORDER_WINDOW] = (held_message){copy, len};
                    rs->held_bytes += len;
                    return; /* kept */
                }
            }
        } else {
            dispatch(p, data, len);
            ch->recv_order = (ch->recv_order + 1) & MC__RAK_U24;
            while (alive(p) && ch->held) {
                held_message *m = &ch->held[ch->recv_order % ORDER_WINDOW];
                if (!m->data)
                    break;
                held_message next = *m;
                *m = (held_message){NULL, 0};
                rs->held_bytes -= next.len;
                ch->recv_order = (ch->recv_order + 1) & MC__RAK_U24;
                dispatch(p, next.data, next.len);
                free(next.data);
            }
        }
    } else {
        dispatch(p, data, len);
    }
    if (owned)
        free(data);
}

/* Adds a split part; returns the whole message (malloc'd) once complete. */
static uint8_t *add_split_part(srv_rak_peer *p, const srv__rak_frame *f, size_t *out_len, srv__rak_frame *head)
{
    srv__rak_peer_state *rs = p->rs;
    const srv_rak_config *cfg = &p->rak->cfg;
    split_state *s = NULL, *free_slot = NULL;
    for (uint32_t i = 0; i < cfg->max_splits; i++) {
        if (rs->splits[i].used && rs->splits[i].id == f->split_id)
            s = &rs->splits[i];
        else if (!rs->splits[i].used && !free_slot)
            free_slot = &rs->splits[i];
    }
    if (!s) {
        if (f->split_count > cfg->max_split_parts) {
            srv__rak_peer_drop(p, "split message of %u parts (limit %u)", f->split_count, cfg->max_split_parts);
            return NULL;
        }
        if (!free_slot) {
            srv__rak_peer_drop(p, "more than %u split messages at once", cfg->max_splits);
            return NULL;
        }
        size_t table = (size_t)f->split_count * (sizeof *s->parts + sizeof *s->lens);
        if (rs->held_bytes + table > cfg->max_reassembly_bytes) {
            srv__rak_peer_drop(p, "split messages being reassembled exceed %zu bytes", cfg->max_reassembly_bytes);
            return NULL;
        }
        s = free_slot;
        s->parts = calloc(f->split_count, sizeof *s->parts);
        s->lens = calloc(f->split_count, sizeof *s->lens);
        if (!s->parts || !s->lens) {
            free(s->parts);
            free(s->lens);
            s->parts = NULL;
            s->lens = NULL;
            srv__rak_peer_drop(p, "out of memory");
            return NULL;
        }
        s->used = true;
        s->id = f->split_id;
        s->count = f->split_count;
        s->bytes = table; /* the part table counts, so that many empty splits cost too */
        rs->held_bytes += table;
        s->head = *f;
        s->head.data = NULL;
    } else if (s->count != f->split_count) {
        srv__rak_peer_drop(p, "split message %u changes its part count (%u, then %u)", f->split_id, s->count,
                          f->split_count);
        return NULL;
    }
    if (s->parts[f->split_index]) {
        p->rak->stats.duplicates_dropped++;
        return NULL;
    }
    if (rs->held_bytes + f->len > cfg->max_reassembly_bytes) {
        srv__rak_peer_drop(p, "split messages being reassembled exceed %zu bytes", cfg->max_reassembly_bytes);
        return NULL;
    }
    uint8_t *copy = malloc(f->len);
    if (!copy) {
        srv__rak_peer_drop(p, "out of memory");
        return NULL;
    }
    memcpy(copy, f->data, f->len);
    s->parts[f->split_index] = copy;
    s->lens[f->split_index] = (uint32_t)f->len;
    s->bytes += f->len;
    s->data_bytes += f->len;
    rs->held_bytes += f->len;
    if (++s->got < s->count)
        return NULL;
    uint8_t *whole = malloc(s->data_bytes);
    if (!whole) {
        srv__rak_peer_drop(p, "out of memory");
        return NULL;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        memcpy(whole + n, s->parts[i], s->lens[i]);
        n += s->lens[i];
    }
    *out_len = n;
    *head = s->head;
    free_split(rs, s);
    return whole;
}

static void handle_frame(srv_rak_peer *p, const srv__rak_frame *f)
{
    srv__rak_peer_state *rs = p->rs;
    if (srv__rak_is_reliable(f->reliability)) {
        uint32_t ahead = srv__rak_u24_diff(rs->rel_base, f->msg_index);
        if (ahead >= 0x800000u || bit_get(rs->rel_bits, f->msg_index, REL_WINDOW)) {
            p->rak->stats.duplicates_dropped++;
            return;
        }
        if (ahead >= REL_WINDOW) {
            srv__rak_peer_drop(p, "reliable message %u is %u ahead of the lowest missing (limit %u)", f->msg_index,
                              ahead, REL_WINDOW);
            return;
        }
        bit_set(rs->rel_bits, f->msg_index, REL_WINDOW, true);
        while (bit_get(rs->rel_bits, rs->rel_base, REL_WINDOW)) {
            bit_set(rs->rel_bits, rs->rel_base, REL_WINDOW, false);
            rs->rel_base = (rs->rel_base + 1) & MC__RAK_U24;
        }
    }
    if (f->split) {
        srv__rak_frame head;
        size_t len = 0;
        uint8_t *whole = add_split_part(p, f, &len, &head);
        if (whole)
            route(p, &head, whole, len, true);
        return;
    }
    route(p, f, (uint8_t *)f->data, f->len, false);
}

static void bad_datagram(srv_rak_peer *p, const char *what)
{
    p->rak->stats.bad_datagrams++;
    if (++p->bad_datagrams > p->rak->cfg.max_bad_datagrams)
        srv__rak_peer_drop(p, "too many malformed datagrams (last: %s)", what);
}

/* Records datagram number seq; false when it was seen before. */
static bool note_datagram(srv_rak_peer *p, uint32_t seq)
{
    srv__rak_peer_state *rs = p->rs;
    if (rs->ack_count >= MAX_ACKS)
        flush_ranges(p, MC__RAK_ACK, rs->acks, &rs->ack_count);
    rs->acks[rs->ack_count++] = seq;
    if (!rs->recv_any) {
        rs->recv_any = true;
        rs->recv_highest = seq;
        bit_set(rs->recv_bits, seq, RECV_WINDOW, true);
        return true;
    }
    if (srv__rak_u24_after(rs->recv_highest, seq)) {
        uint32_t jump = srv__rak_u24_diff(rs->recv_highest, seq);
        for (uint32_t k = 1; k <= jump && k <= RECV_WINDOW; k++)
            bit_set(rs->recv_bits, (rs->recv_highest + k) & MC__RAK_U24, RECV_WINDOW, false);
        if (jump > 1 && jump <= MAX_NACK_GAP) {
            for (uint32_t k = 1; k < jump; k++) {
                uint32_t missing = (rs->recv_highest + k) & MC__RAK_U24;
                if (rs->nack_count >= MAX_ACKS)
                    flush_ranges(p, MC__RAK_NACK, rs->nacks, &rs->nack_count);
                rs->nacks[rs->nack_count++] = missing;
                if (rs->nholes < MAX_HOLES)
                    rs->holes[rs->nholes++] = (hole){missing, 1, p->rak->now + rs->rto};
            }
        }
        rs->recv_highest = seq;
        bit_set(rs->recv_bits, seq, RECV_WINDOW, true);
        return true;
    }
    if (srv__rak_u24_diff(seq, rs->recv_highest) >= RECV_WINDOW || bit_get(rs->recv_bits, seq, RECV_WINDOW))
        return false;
    bit_set(rs->recv_bits, seq, RECV_WINDOW, true);
    for (unsigned i = 0; i < rs->nholes; i++)
        if (rs->holes[i].seq == seq) {
            rs->holes[i] = rs->holes[--rs->nholes];
            break;
        }
    return true;
}

/* The user asked to hear when the backlog has fallen to its marks
 * (srv_rak_peer_notify_writable): acknowledgements just freed room. */
static void check_writable(srv_rak_peer *p)
{
    if (!p->writable_mark || !p->rs || !alive(p) || p->rs->backlog > p->writable_mark - 1 ||
        p->rs->frames > p->writable_frames)
        return;
    p->writable_mark = 0;
    if (p->rak->cb.writable)
        p->rak->cb.writable(p->rak->cb.user, p);
}

bool srv_rak_peer_notify_writable(srv_rak_peer *p, size_t bytes, size_t frames)
{
    if (!p->rs || (p->rs->backlog <= bytes && p->rs->frames <= frames))
        return true;
    p->writable_mark = bytes + 1;
    p->writable_frames = frames;
    return false;
}

void srv__rak_peer_datagram(srv_rak_peer *p, const uint8_t *data, size_t len)
{
    if (!p->rs || p->state == MC__RAK_DEAD)
        return;
    mc_reader r;
    mc_reader_init(&r, data, len, "raknet", NULL);
    uint8_t flags = mc_read_u8(&r);
    if (flags & MC__RAK_ACK) {
        if (flags & 0x20) /* "has B and AS": a float we do not use */
            mc_read_skip(&r, 4, "AS");
        handle_ranges(p, &r, true);
        check_writable(p);
        return;
    }
    if (flags & MC__RAK_NACK) {
        handle_ranges(p, &r, false);
        return;
    }
    uint32_t seq = srv__rak_read_u24le(&r);
    if (!mc_reader_ok(&r)) {
        bad_datagram(p, "truncated header");
        return;
    }
    /* Validate every frame before acting on any: a datagram is taken whole
     * or not at all. */
    size_t start = r.pos;
    srv__rak_frame f;
    unsigned frames = 0;
    while (mc_reader_remaining(&r) > 0) {
        if (!srv__rak_frame_read(&r, &f)) {
            bad_datagram(p, "malformed frame");
            return;
        }
        frames++;
    }
    if (frames == 0) {
        bad_datagram(p, "no frames");
        return;
    }
    if (!note_datagram(p, seq)) {
        p->rak->stats.duplicates_dropped++;
        return;
    }
    r.pos = start;
    while (mc_reader_remaining(&r) > 0 && p->rs && (alive(p) || p->state == MC__RAK_CLOSING)) {
        srv__rak_frame_read(&r, &f);
        if (p->state == MC__RAK_CLOSING)
            continue; /* acknowledged, not delivered */
        handle_frame(p, &f);
    }
}

/* ----------------------------------------------------------------- tick */

void srv__rak_peer_tick(srv_rak_peer *p)
{
    srv__rak_peer_state *rs = p->rs;
    srv_rak *rak = p->rak;
    if (!rs)
        return;
    if (rs->in_flight) {
        bool lost = false;
        /* Datagrams go out in number order, so their send times only grow:
         * from the oldest in flight, the ones due come first. */
        if (srv__rak_u24_diff(rs->oldest_seq, rs->next_seq) > RING)
            rs->oldest_seq = (rs->next_seq - RING) & MC__RAK_U24;
        for (uint32_t seq = rs->oldest_seq; seq != rs->next_seq; seq = (seq + 1) & MC__RAK_U24) {
            flight *fl = &rs->ring[seq % RING];
            if (!fl->used || fl->seq != seq) {
                if (seq == rs->oldest_seq)
                    rs->oldest_seq = (seq + 1) & MC__RAK_U24;
                continue;
            }
            if (rak->now - fl->sent_ms < rs->rto)
                break;
            lose(p, fl);
            lost = true;
        }
        if (lost) {
            rs->cut_once = false; /* a timeout always cuts */
            congestion_loss(rs, rs->next_seq);
            rs->rto = rs->rto * 2 < MAX_RTO_MS ? rs->rto * 2 : MAX_RTO_MS; /* backs off until an ACK */
        }
        if (rak->now - rs->last_ack_ms > rak->cfg.ack_timeout_ms && p->state != MC__RAK_CLOSING) {
            srv__rak_peer_drop(p, "nothing acknowledged for %u ms", rak->cfg.ack_timeout_ms);
            return;
        }
    }
    for (unsigned i = 0; i < rs->nholes;) {
        hole *h = &rs->holes[i];
        if (rak->now < h->next_ms) {
            i++;
        } else if (h->nacks >= HOLE_NACKS) {
            *h = rs->holes[--rs->nholes];
        } else {
            if (rs->nack_count >= MAX_ACKS)
                flush_ranges(p, MC__RAK_NACK, rs->nacks, &rs->nack_count);
            rs->nacks[rs->nack_count++] = h->seq;
            h->nacks++;
            h->next_ms = rak->now + rs->rto;
            i++;
        }
    }
    if (p->state == MC__RAK_CONNECTED && rak->now - rs->last_ping_ms >= rak->cfg.ping_interval_ms) {
        uint8_t m[9];
        m[0] = MC__RAK_CONNECTED_PING;
        put_time(m + 1, rak->now);
        send_internal(p, m, sizeof m, MC_RAK_UNRELIABLE);
        rs->last_ping_ms = rak->now;
    }
    srv__rak_peer_flush(p);
}

/* -------------------------------------------------------------- queries */

size_t srv_rak_peer_backlog(const srv_rak_peer *p) { return p->rs ? p->rs->backlog : 0; }
size_t srv_rak_peer_frames(const srv_rak_peer *p) { return p->rs ? p->rs->frames : 0; }

uint32_t srv_rak_peer_rtt_ms(const srv_rak_peer *p)
{
    return p->rs && p->rs->rtt_valid ? (uint32_t)(p->rs->srtt + 0.5) : 0;
}

void srv_rak_disconnect(srv_rak_peer *p, const char *reason)
{
    if (p->state == MC__RAK_DEAD || p->state == MC__RAK_CLOSING)
        return;
    srv__rak_log(p->rak, MC_RAK_LOG_INFO, "%s: disconnecting: %s", p->name, reason);
    if (p->rs && alive(p)) {
        uint8_t m = MC__RAK_DISCONNECT;
        queue_message(p, &m, 1, MC_RAK_RELIABLE_ORDERED, 0);
    }
    if (p->state != MC__RAK_DEAD) {
        p->state = p->rs ? MC__RAK_CLOSING : MC__RAK_DEAD;
        p->close_deadline_ms = p->rak->now + 2000;
    }
    srv__rak_peer_notify(p, reason);
}
