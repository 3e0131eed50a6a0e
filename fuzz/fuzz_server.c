/* fuzz_server.c: the reference server's handling of what a client sends —
 * framing, handshake, legacy pings, status, login, configuration and play
 * packets of every protocol it speaks — on hostile bytes. One in-process
 * server (the built-in world, view distance 2) serves every input through a
 * connection over a socketpair; the input arrives in pieces (sizes from its
 * first byte) so that frames split across reads are exercised, whatever the
 * server sends back is read and dropped, and at the end the client side
 * closes and the connection must be freed within a bounded number of loop
 * turns (a connection that never goes away is reported as a crash).
 * The server (and its world's caches) lives across inputs, as it does
 * across clients: what it keeps must stay within its budget (cache_bytes,
 * checked after every input; the newest entry may overshoot it), or the
 * fuzzer's memory grows with every column an input teleports to. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "server/conn.h"
#include "server/server.h"
#include "server/world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static srv_server srv;
static srv_server_config cfg;

static void setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    srv_server_config_defaults(&cfg);
    cfg.view_distance = 2;
    cfg.cache_bytes = 16u << 20;
    cfg.quiet = true;
    cfg.silent = true;
    srv_server_init(&srv, &cfg, uv_default_loop());
    if (srv_world_open(&srv) != 0)
        abort();
}

static void drain(int fd)
{
    char buf[65536];
    while (read(fd, buf, sizeof buf) > 0) {
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1)
        return 0;
    size_t piece = (size_t)data[0] + 1;
    data++;
    size--;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return 0;
    fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
    srv_conn *c = srv__conn_new(&srv);
    if (!c || !c->z || uv_tcp_open(&c->tcp, fds[0]) != 0)
        abort();
    /* c is freed once closed: srv.nconns (this is the only connection)
     * says whether it still exists. */
    for (size_t off = 0; off < size && srv.nconns && !c->closing;) {
        size_t n = size - off < piece ? size - off : piece;
        if (!mc_buf_reserve(&c->in, n))
            abort();
        memcpy(c->in.data + c->in.len, data + off, n);
        off += n;
        srv__conn_received(c, n);
        uv_run(srv.loop, UV_RUN_NOWAIT);
        drain(fds[1]);
    }
    /* The client goes: every byte sent is read, then its side closes. */
    for (int i = 0; i < 64 && srv.nconns && !c->closing; i++) {
        uv_run(srv.loop, UV_RUN_NOWAIT);
        drain(fds[1]);
    }
    if (srv.nconns && !c->closing)
        srv_conn_close(c, NULL);
    for (int i = 0; i < 1000 && srv.nconns; i++) {
        drain(fds[1]);
        if (i == 8)
            shutdown(fds[1], SHUT_WR); /* EOF to a connection draining its input */
        uv_run(srv.loop, UV_RUN_NOWAIT);
    }
    close(fds[1]);
    if (srv.nconns)
        abort(); /* the connection was never freed */
    if (srv_world_cache_bytes(&srv) > cfg.cache_bytes + ((size_t)1 << 20))
        abort(); /* the caches outgrew their budget */
    return 0;
}
