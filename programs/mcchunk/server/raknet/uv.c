/*
 * uv.c: the RakNet endpoint on a libuv UDP socket. The endpoint does all
 * the work; this file only converts addresses, hands it every datagram
 * with uv_now as the clock, ticks it every 10 ms, and sends what it emits
 * (a datagram the kernel will not take now is dropped, which to RakNet is
 * loss like any other, recovered by its resends).
 *
 * System calls are the cost of UDP at a few thousand datagrams a second
 * per client, so on Linux both directions are batched: what the endpoint
 * emits during one of its calls (a tick, a flush, the datagrams of one
 * read, flushed once at its end) is kept (up to SEND_BATCH datagrams) and
 * handed to the kernel with one sendmmsg at the end, and libuv reads with
 * recvmmsg (UV_UDP_RECVMMSG, up to RECV_BATCH datagrams a call). Elsewhere each datagram is one
 * uv_udp_try_send.
 *
 * Each datagram the kernel takes costs a walk through its UDP and IP
 * layers, so on Linux 4.18+ consecutive datagrams of a batch to the same
 * peer go as one entry with UDP generic segmentation offload (a UDP_SEGMENT
 * control message: the kernel walks one large buffer through the stack and
 * cuts it into datagrams of the segment size at the end, the last one may
 * be shorter). A group is a run of datagrams of one size, ended by the
 * first shorter one (it goes last) or a different peer: the order and
 * bytes of the datagrams are what they would be without it. Support is
 * probed when the socket opens (getsockopt UDP_SEGMENT); a send the device
 * refuses (EIO: no checksum offload) turns it off for the socket, said
 * once in the log, and the group goes again one datagram per entry.
 * MCCHUNK_RAKNET_GSO=0 in the environment turns it off (to measure both).
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sendmmsg */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103 /* linux/udp.h, Linux 4.18 */
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "server/raknet/raknet.h"

#define TICK_MS 10
#define SEND_BATCH 256
#define RECV_BATCH 16
/* One GSO send: at most this many datagrams (the kernel's UDP_MAX_SEGMENTS
 * is 64 or more) and bytes (the IP length field, headers included). */
#define GSO_MAX_SEGMENTS 64
#define GSO_MAX_BYTES 65000

typedef struct out_datagram {
    struct sockaddr_storage to;
    socklen_t to_len;
    size_t len;
    uint8_t data[MC_RAK_MAX_MTU];
} out_datagram;

#if defined(__linux__)
/* The sendmmsg entries of one batch: entry e sends out[first[e]] up to
 * out[first[e + 1]] (exclusive), one datagram or a GSO group. */
struct send_plan {
    struct mmsghdr msgs[SEND_BATCH];
    struct iovec iov[SEND_BATCH];
    unsigned first[SEND_BATCH + 1];
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(uint16_t))];
    } ctl[SEND_BATCH];
};
#endif

struct srv_rak_uv {
    uv_loop_t *loop;
    uv_udp_t udp;
    uv_timer_t timer;
    srv_rak *rak;
    srv_rak_callbacks user_cb;
    int port;
    int open_handles;
    int depth;       /* >0 inside a call of the endpoint: sends are batched */
    bool gso;        /* group datagrams with UDP_SEGMENT (probed at start) */
    bool in_read_batch; /* between the datagrams of one recvmmsg and its end */
    srv_rak_uv_stats stats;
    unsigned nout;
    out_datagram out[SEND_BATCH];
#if defined(__linux__)
    struct send_plan plan[1]; /* the sendmmsg entries of a batch */
#endif
    uint8_t buf[RECV_BATCH * 65536];
};

static void to_rak_addr(const struct sockaddr *sa, srv_rak_addr *a)
{
    memset(a, 0, sizeof *a);
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
        a->family = 6;
        memcpy(a->ip, &s6->sin6_addr, 16);
        a->port = ntohs(s6->sin6_port);
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
        a->family = 4;
        memcpy(a->ip, &s4->sin_addr, 4);
        a->port = ntohs(s4->sin_port);
    }
}

static socklen_t to_sockaddr(const srv_rak_addr *to, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (to->family == 6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        memcpy(&s6->sin6_addr, to->ip, 16);
        s6->sin6_port = htons(to->port);
        return sizeof *s6;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    s4->sin_family = AF_INET;
    memcpy(&s4->sin_addr, to->ip, 4);
    s4->sin_port = htons(to->port);
    return sizeof *s4;
}

static void uv_log(srv_rak_uv *u, int level, const char *line)
{
    if (u->user_cb.log)
        u->user_cb.log(u->user_cb.user, level, line);
}

#if defined(__linux__)
static bool same_peer(const out_datagram *a, const out_datagram *b)
{
    return a->to_len == b->to_len && memcmp(&a->to, &b->to, a->to_len) == 0;
}

/* The datagrams from out[i] that go as one GSO entry: a run of one size
 * to one peer, ended by a shorter one (which it takes) or another peer. */
static unsigned gso_run(const srv_rak_uv *u, unsigned i, unsigned n)
{
    const out_datagram *first = &u->out[i];
    size_t total = first->len;
    unsigned k = 1;
    while (i + k < n && k < GSO_MAX_SEGMENTS) {
        const out_datagram *d = &u->out[i + k];
        if (d->len > first->len || total + d->len > GSO_MAX_BYTES || !same_peer(first, d))
            break;
        total += d->len;
        k++;
        if (d->len < first->len)
            break;
    }
    return k;
}

/* Plans the entries for out[from..n): grouped when `group`; the count. */
static unsigned plan_entries(srv_rak_uv *u, unsigned from, unsigned n, bool group)
{
    struct send_plan *pl = u->plan;
    unsigned e = 0;
    for (unsigned i = from; i < n; e++) {
        unsigned k = group ? gso_run(u, i, n) : 1;
        struct msghdr *h = &pl->msgs[e].msg_hdr;
        memset(&pl->msgs[e], 0, sizeof pl->msgs[e]);
        h->msg_name = &u->out[i].to;
        h->msg_namelen = u->out[i].to_len;
        h->msg_iov = &pl->iov[i];
        h->msg_iovlen = k;
        for (unsigned j = i; j < i + k; j++) {
            pl->iov[j].iov_base = u->out[j].data;
            pl->iov[j].iov_len = u->out[j].len;
        }
        if (k > 1) {
            memset(&pl->ctl[e], 0, sizeof pl->ctl[e]);
            h->msg_control = pl->ctl[e].buf;
            h->msg_controllen = sizeof pl->ctl[e].buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(h);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t segment = (uint16_t)u->out[i].len;
            memcpy(CMSG_DATA(c), &segment, sizeof segment);
        }
        pl->first[e] = i;
        i += k;
    }
    pl->first[e] = n;
    return e;
}

static void count_sent(srv_rak_uv *u, unsigned from_entry, unsigned entries)
{
    struct send_plan *pl = u->plan;
    for (unsigned e = from_entry; e < from_entry + entries; e++) {
        unsigned k = pl->first[e + 1] - pl->first[e];
        u->stats.sends++;
        u->stats.datagrams += k;
        if (k > 1)
            u->stats.gso_sends++;
    }
}

/* A grouped entry was refused for a reason other than a full buffer: GSO
 * is off for this socket from now on. */
static void gso_refused(srv_rak_uv *u, int err)
{
    char line[160];
    snprintf(line, sizeof line, "UDP GSO refused by the kernel (%s): sending one datagram per entry from now on",
             strerror(err));
    uv_log(u, MC_RAK_LOG_WARN, line);
    u->gso = false;
    u->stats.gso = false;
}

/* Sends out[0..n) with sendmmsg; false when the socket cannot be used. */
static bool send_linux(srv_rak_uv *u, unsigned n)
{
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)&u->udp, &fd) != 0)
        return false;
    unsigned i = 0;
    while (i < n) {
        unsigned entries = plan_entries(u, i, n, u->gso), done = 0;
        int err = EAGAIN;
        while (done < entries) {
            int sent = sendmmsg(fd, u->plan->msgs + done, entries - done, MSG_DONTWAIT);
            if (sent <= 0) {
                err = sent < 0 ? errno : EAGAIN;
                break;
            }
            count_sent(u, done, (unsigned)sent);
            done += (unsigned)sent;
        }
        if (done == entries)
            return true;
        bool grouped = u->plan->msgs[done].msg_hdr.msg_iovlen > 1;
        if (!grouped || err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS || err == ENOMEM)
            return true; /* a full buffer: the rest is lost, RakNet resends */
        gso_refused(u, err);
        i = u->plan->first[done];
    }
    return true;
}
#endif

/* Hands the batched datagrams to the kernel. */
static void send_out(srv_rak_uv *u)
{
    unsigned n = u->nout;
    u->nout = 0;
    if (!n)
        return;
#if defined(__linux__)
    if (send_linux(u, n))
        return;
#endif
    for (unsigned i = 0; i < n; i++) {
        uv_buf_t b = uv_buf_init((char *)u->out[i].data, (unsigned)u->out[i].len);
        if (uv_udp_try_send(&u->udp, &b, 1, (const struct sockaddr *)&u->out[i].to) >= 0) {
            u->stats.sends++;
            u->stats.datagrams++;
        }
    }
}

static void send_cb(void *user, const srv_rak_addr *to, const uint8_t *data, size_t len)
{
    srv_rak_uv *u = user;
    if (len > MC_RAK_MAX_MTU)
        return;
    out_datagram *d = &u->out[u->nout++];
    d->to_len = to_sockaddr(to, &d->to);
    memcpy(d->data, data, len);
    d->len = len;
    if (u->nout == SEND_BATCH || !u->depth)
        send_out(u);
}

/* Brackets the endpoint's calls: what they emit goes out in one batch. */
static void enter(srv_rak_uv *u) { u->depth++; }
static void leave(srv_rak_uv *u)
{
    if (--u->depth == 0)
        send_out(u);
}

/* The user's callbacks get the user's pointer back. */
static void connected_cb(void *user, srv_rak_peer *p)
{
    srv_rak_uv *u = user;
    if (u->user_cb.connected)
        u->user_cb.connected(u->user_cb.user, p);
}

static void message_cb(void *user, srv_rak_peer *p, const uint8_t *d, size_t n)
{
    srv_rak_uv *u = user;
    if (u->user_cb.message)
        u->user_cb.message(u->user_cb.user, p, d, n);
}

static void disconnected_cb(void *user, srv_rak_peer *p, const char *why)
{
    srv_rak_uv *u = user;
    if (u->user_cb.disconnected)
        u->user_cb.disconnected(u->user_cb.user, p, why);
}

static void pong_cb(void *user, const srv_rak_addr *from, const uint8_t *d, size_t n)
{
    srv_rak_uv *u = user;
    if (u->user_cb.pong)
        u->user_cb.pong(u->user_cb.user, from, d, n);
}

static void writable_cb(void *user, srv_rak_peer *p)
{
    srv_rak_uv *u = user;
    if (u->user_cb.writable)
        u->user_cb.writable(u->user_cb.user, p);
}

static void log_cb(void *user, int level, const char *line) { uv_log(user, level, line); }

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    srv_rak_uv *u = h->data;
    *buf = uv_buf_init((char *)u->buf, sizeof u->buf);
}

/* Ends a batch of datagrams read by one recvmmsg: one flush, one send. */
static void end_read_batch(srv_rak_uv *u)
{
    if (!u->in_read_batch)
        return;
    u->in_read_batch = false;
    srv_rak_flush(u->rak, uv_now(u->loop));
    leave(u);
}

/* With recvmmsg libuv hands over each datagram of a read (flagged
 * UV_UDP_MMSG_CHUNK), then calls once more (UV_UDP_MMSG_FREE): the
 * endpoint takes the datagrams without flushing and flushes once at the
 * end, so their ACKs and what they let through go out in one batch. */
static void on_recv(uv_udp_t *h, ssize_t n, const uv_buf_t *buf, const struct sockaddr *from, unsigned flags)
{
    srv_rak_uv *u = h->data;
    if (flags & UV_UDP_MMSG_FREE) {
        end_read_batch(u);
        return;
    }
    if (n <= 0 || !from || (flags & UV_UDP_PARTIAL) || !u->rak)
        return;
    srv_rak_addr a;
    to_rak_addr(from, &a);
    if (flags & UV_UDP_MMSG_CHUNK) {
        if (!u->in_read_batch) {
            u->in_read_batch = true;
            enter(u);
        }
        srv_rak_receive_unflushed(u->rak, &a, (const uint8_t *)buf->base, (size_t)n, uv_now(u->loop));
        return;
    }
    enter(u);
    srv_rak_receive(u->rak, &a, (const uint8_t *)buf->base, (size_t)n, uv_now(u->loop));
    leave(u);
}

/* Whether the socket can send with UDP_SEGMENT (said in the log when not). */
static bool gso_probe(srv_rak_uv *u)
{
    const char *env = getenv("MCCHUNK_RAKNET_GSO");
    if (env && strcmp(env, "0") == 0) {
        uv_log(u, MC_RAK_LOG_INFO, "UDP GSO off (MCCHUNK_RAKNET_GSO=0): one datagram per send entry");
        return false;
    }
#if defined(__linux__)
    uv_os_fd_t fd;
    int segment = 0;
    socklen_t len = sizeof segment;
    if (uv_fileno((uv_handle_t *)&u->udp, &fd) == 0 && getsockopt(fd, SOL_UDP, UDP_SEGMENT, &segment, &len) == 0)
        return true;
    char line[160];
    snprintf(line, sizeof line, "UDP GSO unavailable (%s): one datagram per send entry", strerror(errno));
    uv_log(u, MC_RAK_LOG_INFO, line);
#endif
    return false;
}

static void on_tick(uv_timer_t *t)
{
    srv_rak_uv *u = t->data;
    end_read_batch(u); /* only if libuv never ended one (its reading stopped) */
    enter(u);
    srv_rak_tick(u->rak, uv_now(u->loop));
    leave(u);
}

srv_rak_uv *srv_rak_uv_start(uv_loop_t *loop, const char *bind, int port, const srv_rak_config *cfg,
                           const srv_rak_callbacks *cb, char *err, size_t errlen)
{
    struct sockaddr_storage addr;
    if (uv_ip4_addr(bind, port, (struct sockaddr_in *)&addr) < 0 &&
        uv_ip6_addr(bind, port, (struct sockaddr_in6 *)&addr) < 0) {
        snprintf(err, errlen, "bad bind address '%s'", bind);
        return NULL;
    }
    srv_rak_uv *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    u->loop = loop;
    u->user_cb = *cb;
    srv_rak_callbacks inner = {.user = u,
                              .send = send_cb,
                              .connected = connected_cb,
                              .message = message_cb,
                              .disconnected = disconnected_cb,
                              .pong = pong_cb,
                              .log = log_cb,
                              .writable = writable_cb};
    u->rak = srv_rak_new(cfg, &inner);
    if (!u->rak) {
        free(u);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
#if defined(__linux__)
    uv_udp_init_ex(loop, &u->udp, AF_UNSPEC | UV_UDP_RECVMMSG); /* reads of up to RECV_BATCH datagrams */
#else
    uv_udp_init(loop, &u->udp);
#endif
    u->udp.data = u;
    u->open_handles = 1;
    int rc = uv_udp_bind(&u->udp, (const struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_udp_recv_start(&u->udp, on_alloc, on_recv);
    if (rc < 0) {
        snprintf(err, errlen, "cannot bind UDP %s:%d: %s", bind, port, uv_strerror(rc));
        srv_rak_uv_close(u, NULL);
        return NULL;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    u->port = port;
    if (uv_udp_getsockname(&u->udp, (struct sockaddr *)&bound, &blen) == 0)
        u->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                    : ((struct sockaddr_in *)&bound)->sin_port);
    u->gso = u->stats.gso = gso_probe(u);
    uv_timer_init(loop, &u->timer);
    u->timer.data = u;
    u->open_handles++;
    uv_timer_start(&u->timer, on_tick, TICK_MS, TICK_MS);
    return u;
}

srv_rak *srv_rak_uv_endpoint(srv_rak_uv *u) { return u->rak; }
int srv_rak_uv_port(const srv_rak_uv *u) { return u->port; }
uint64_t srv_rak_uv_now(const srv_rak_uv *u) { return uv_now(u->loop); }
void srv_rak_uv_flush(srv_rak_uv *u)
{
    enter(u);
    srv_rak_flush(u->rak, uv_now(u->loop));
    leave(u);
}

const srv_rak_uv_stats *srv_rak_uv_get_stats(const srv_rak_uv *u) { return &u->stats; }

void srv_rak_uv_send_batch(srv_rak_uv *u, const srv_rak_addr *to, const uint8_t *const *datagrams,
                           const size_t *lens, size_t count)
{
    enter(u);
    for (size_t i = 0; i < count; i++)
        send_cb(u, &to[i], datagrams[i], lens[i]);
    leave(u);
}

static void on_closed(uv_handle_t *h)
{
    srv_rak_uv *u = h->data;
    if (--u->open_handles == 0) {
        srv_rak_free(u->rak);
        free(u);
    }
}

void srv_rak_uv_close(srv_rak_uv *u, const char *reason)
{
    if (!u)
        return;
    if (reason)
        srv_rak_disconnect_all(u->rak, reason);
    char line[200];
    const srv_rak_stats *rs = srv_rak_get_stats(u->rak);
    snprintf(line, sizeof line,
             "sent %llu datagrams in %llu send entries (%llu of them UDP GSO groups), %llu frames resent; received %llu",
             (unsigned long long)u->stats.datagrams, (unsigned long long)u->stats.sends,
             (unsigned long long)u->stats.gso_sends, (unsigned long long)rs->frames_resent,
             (unsigned long long)rs->datagrams_received);
    uv_log(u, MC_RAK_LOG_INFO, line);
    int handles = u->open_handles;
    if (handles >= 2)
        uv_close((uv_handle_t *)&u->timer, on_closed);
    uv_close((uv_handle_t *)&u->udp, on_closed);
}
