/*
 * uv.c: the RakNet endpoint on a libuv UDP socket. The endpoint does all
 * the work; this file only converts addresses, hands it every datagram
 * with uv_now as the clock, ticks it every 10 ms, and sends what it emits
 * (a datagram the kernel will not take now is dropped, which to RakNet is
 * loss like any other, recovered by its resends).
 *
 * System calls are the cost of UDP at a few thousand datagrams a second
 * per client, so on Linux both directions are batched: what the endpoint
 * emits during one of its calls (a receive, a tick, a flush) is kept (up to
 * SEND_BATCH datagrams) and handed to the kernel with one sendmmsg at the
 * end of the call, and libuv reads with recvmmsg (UV_UDP_RECVMMSG, up to
 * RECV_BATCH datagrams a call). Elsewhere each datagram is one
 * uv_udp_try_send.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* sendmmsg */
#include <sys/socket.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "server/raknet/raknet.h"

#define TICK_MS 10
#define SEND_BATCH 64
#define RECV_BATCH 16

typedef struct out_datagram {
    struct sockaddr_storage to;
    socklen_t to_len;
    size_t len;
    uint8_t data[MC_RAK_MAX_MTU];
} out_datagram;

struct srv_rak_uv {
    uv_loop_t *loop;
    uv_udp_t udp;
    uv_timer_t timer;
    srv_rak *rak;
    srv_rak_callbacks user_cb;
    int port;
    int open_handles;
    int depth;       /* >0 inside a call of the endpoint: sends are batched */
    unsigned nout;
    out_datagram out[SEND_BATCH];
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

/* Hands the batched datagrams to the kernel. */
static void send_out(srv_rak_uv *u)
{
    unsigned n = u->nout;
    u->nout = 0;
    if (!n)
        return;
#if defined(__linux__)
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)&u->udp, &fd) == 0) {
        struct mmsghdr msgs[SEND_BATCH];
        struct iovec iov[SEND_BATCH];
        memset(msgs, 0, sizeof msgs[0] * n);
        for (unsigned i = 0; i < n; i++) {
            iov[i].iov_base = u->out[i].data;
            iov[i].iov_len = u->out[i].len;
            msgs[i].msg_hdr.msg_name = &u->out[i].to;
            msgs[i].msg_hdr.msg_namelen = u->out[i].to_len;
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        for (unsigned done = 0; done < n;) {
            int sent = sendmmsg(fd, msgs + done, n - done, MSG_DONTWAIT);
            if (sent <= 0) /* a full buffer: the rest is lost, RakNet resends */
                break;
            done += (unsigned)sent;
        }
        return;
    }
#endif
    for (unsigned i = 0; i < n; i++) {
        uv_buf_t b = uv_buf_init((char *)u->out[i].data, (unsigned)u->out[i].len);
        uv_udp_try_send(&u->udp, &b, 1, (const struct sockaddr *)&u->out[i].to);
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

static void log_cb(void *user, int level, const char *line)
{
    srv_rak_uv *u = user;
    if (u->user_cb.log)
        u->user_cb.log(u->user_cb.user, level, line);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    srv_rak_uv *u = h->data;
    *buf = uv_buf_init((char *)u->buf, sizeof u->buf);
}

static void on_recv(uv_udp_t *h, ssize_t n, const uv_buf_t *buf, const struct sockaddr *from, unsigned flags)
{
    srv_rak_uv *u = h->data;
    if (n <= 0 || !from || (flags & UV_UDP_PARTIAL) || !u->rak)
        return;
    srv_rak_addr a;
    to_rak_addr(from, &a);
    enter(u);
    srv_rak_receive(u->rak, &a, (const uint8_t *)buf->base, (size_t)n, uv_now(u->loop));
    leave(u);
}

static void on_tick(uv_timer_t *t)
{
    srv_rak_uv *u = t->data;
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
    int handles = u->open_handles;
    if (handles >= 2)
        uv_close((uv_handle_t *)&u->timer, on_closed);
    uv_close((uv_handle_t *)&u->udp, on_closed);
}
