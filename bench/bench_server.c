/*
 * bench_server.c: how fast `mcchunk serve` (or any server speaking the Java
 * protocol) delivers a world, measured by minimal clients written on
 * mcchunk's own framing: they log in (protocol 774 = 1.21.11 by default),
 * finish configuration, acknowledge chunk batches as a vanilla client does
 * (reporting 64 chunks per tick), answer keep-alives, and count Chunk Data
 * packets without decoding them — so the figure is the server's, not a
 * client's parser's.
 *
 *   bench_server PORT [--protocol N] [--clients N] [--view-distance N | --columns N]
 *                [--pid PID] [--startup-ms MS] [--startup-cpu-ms MS] [--min-cpu SECONDS]
 *
 * Prints the time from Login Success to the N-th column for one client
 * (twice: cold, then with the server's caches warm); with --startup-ms (the
 * server's start-up as the caller measured it: process start to listening)
 * also the cold time counted from the server's start, since a server that
 * prepares its world at start-up moves work out of the first login; with
 * --pid the server's CPU time for the cold login too, and with
 * --startup-cpu-ms (its CPU time up to listening) that sum as well, which
 * a busy machine does not blur as it blurs wall time. Then
 * rounds of many clients at once: the columns per second delivered and,
 * when the server's pid is given (--pid), its CPU time, i.e. columns per
 * server CPU second. The CPU time is the sum over the server's threads of
 * /proc/PID/task/TID/schedstat (nanoseconds the scheduler ran each thread),
 * not /proc/PID/stat's 10 ms ticks; rounds repeat until the server has used
 * --min-cpu seconds (default 0.5) so that wake-up and accounting jitter of
 * a few hundred microseconds stay below 1% (at most 20 rounds / 60 s).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/java.h"
#include "proc_cpu.h"

typedef struct {
    int fd;
    int state; /* mc_java_state */
    int threshold;
    mc_buf in, scratch, out;
    long columns;
    double t_connect; /* connect() returned */
    double t_login;  /* Login Success received */
    double t_done;   /* N-th column received */
    bool done, failed;
    char name[17];
    char why[96]; /* first reason of a failure */
} bclient;

static uint32_t protocol = 774;
static long want = 441;
static int view_distance = 10;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void send_packet(bclient *c, const mc_buf *pkt)
{
    c->out.len = 0;
    mc_java_frame_write(&c->out, pkt->data, pkt->len, c->threshold, NULL, NULL);
    size_t off = 0;
    while (off < c->out.len) {
        ssize_t n = write(c->fd, c->out.data + off, c->out.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            c->failed = true;
            return;
        }
        off += (size_t)n;
    }
}

static void fail(bclient *c, const char *why)
{
    if (!c->failed)
        snprintf(c->why, sizeof c->why, "%s", why);
    c->failed = true;
}

static void begin(mc_buf *p, mc_java_state st, const char *name)
{
    p->len = 0;
    mc_buf_put_varint(p, mc_java_packet_id(protocol, st, MC_JAVA_TO_SERVER, name));
}

static bool open_client(bclient *c, int port, const char *name)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->threshold = -1;
    mc_buf_init(&c->in, NULL);
    mc_buf_init(&c->scratch, NULL);
    mc_buf_init(&c->out, NULL);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
        return false;
    c->t_connect = now();
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    mc_buf p;
    mc_buf_init(&p, NULL);
    mc_buf_put_varint(&p, 0); /* handshake */
    mc_buf_put_varint(&p, (int32_t)protocol);
    mc_buf_put_str_varint(&p, "127.0.0.1", 9);
    mc_buf_put_u16be(&p, (uint16_t)port);
    mc_buf_put_varint(&p, 2);
    send_packet(c, &p);
    begin(&p, MC_JAVA_LOGIN, "login_start");
    mc_buf_put_str_varint(&p, c->name, strlen(c->name));
    if (protocol >= 764) { /* 1.20.2+: UUID */
        for (int i = 0; i < 16; i++)
            mc_buf_put_u8(&p, (uint8_t)i);
    } else if (protocol >= 759) { /* 1.19-1.20.1: no signature, no UUID */
        mc_buf_put_u8(&p, 0);
        if (protocol >= 760)
            mc_buf_put_u8(&p, 0);
    }
    send_packet(c, &p);
    mc_buf_free(&p);
    c->state = MC_JAVA_LOGIN;
    return !c->failed;
}

static void on_packet(bclient *c, const uint8_t *pkt, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, pkt, len, "bench", NULL);
    int id = mc_read_varint(&r);
    const char *name = mc_java_packet_name(protocol, (mc_java_state)c->state, MC_JAVA_TO_CLIENT, id);
    if (!name)
        return;
    mc_buf p;
    mc_buf_init(&p, NULL);
    if (c->state == MC_JAVA_LOGIN) {
        if (!strcmp(name, "compress")) {
            c->threshold = mc_read_varint(&r);
        } else if (!strcmp(name, "success")) {
            c->t_login = now();
            if (protocol >= 764) {
                begin(&p, MC_JAVA_LOGIN, "login_acknowledged");
                send_packet(c, &p);
                c->state = MC_JAVA_CONFIGURATION;
            } else {
                c->state = MC_JAVA_PLAY;
            }
        } else if (!strcmp(name, "disconnect")) {
            fail(c, "disconnected during login");
        }
    } else if (c->state == MC_JAVA_CONFIGURATION) {
        if (!strcmp(name, "finish_configuration")) {
            begin(&p, MC_JAVA_CONFIGURATION, "finish_configuration");
            send_packet(c, &p);
            c->state = MC_JAVA_PLAY;
            /* Client Settings with the view distance, as vanilla clients send
             * it (some servers wait for it); layout of 1.20.2-1.20.4. */
            if (protocol >= 764 && protocol <= 765 && mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_SERVER, "settings") >= 0) {
                begin(&p, MC_JAVA_PLAY, "settings");
                mc_buf_put_str_varint(&p, "en_us", 5);
                mc_buf_put_u8(&p, (uint8_t)view_distance);
                mc_buf_put_varint(&p, 0);
                mc_buf_put_u8(&p, 1);
                mc_buf_put_u8(&p, 0x7f);
                mc_buf_put_varint(&p, 1);
                mc_buf_put_u8(&p, 0);
                mc_buf_put_u8(&p, 1);
                send_packet(c, &p);
            }
        } else if (!strcmp(name, "select_known_packs")) {
            /* 1.20.5+: the server names its data packs and waits for the
             * client's answer; a vanilla client that has them all (ours
             * needs none) answers with the same list. */
            begin(&p, MC_JAVA_CONFIGURATION, "select_known_packs");
            mc_buf_put(&p, pkt + r.pos, len - r.pos);
            send_packet(c, &p);
        } else if (!strcmp(name, "keep_alive")) {
            uint64_t k = mc_read_u64be(&r);
            begin(&p, MC_JAVA_CONFIGURATION, "keep_alive");
            mc_buf_put_u64be(&p, k);
            send_packet(c, &p);
        }
    } else {
        if (!strcmp(name, "map_chunk")) {
            if (++c->columns == want && !c->done) {
                c->done = true;
                c->t_done = now();
            }
        } else if (!strcmp(name, "position")) {
            /* As a vanilla client: confirm the teleport, then a movement
             * packet (some servers wait for one before sending the view). */
            int32_t tid = 0;
            if (protocol >= 768) {
                tid = mc_read_varint(&r);
            } else if (protocol >= 107) {
                mc_read_skip(&r, 8 * 3 + 4 * 2 + 1, "position");
                tid = mc_read_varint(&r);
            }
            if (protocol >= 107 && mc_reader_ok(&r)) {
                begin(&p, MC_JAVA_PLAY, "teleport_confirm");
                mc_buf_put_varint(&p, tid);
                send_packet(c, &p);
            }
            if (mc_java_packet_id(protocol, MC_JAVA_PLAY, MC_JAVA_TO_SERVER, "flying") >= 0) {
                begin(&p, MC_JAVA_PLAY, "flying");
                mc_buf_put_u8(&p, 0); /* on ground: no (1.21.2+: flags 0) */
                send_packet(c, &p);
            }
        } else if (!strcmp(name, "chunk_batch_finished")) {
            begin(&p, MC_JAVA_PLAY, "chunk_batch_received");
            mc_buf_put_f32be(&p, 64.0f);
            send_packet(c, &p);
        } else if (!strcmp(name, "keep_alive")) {
            begin(&p, MC_JAVA_PLAY, "keep_alive");
            if (protocol >= 340)
                mc_buf_put_u64be(&p, mc_read_u64be(&r));
            else
                mc_buf_put_varint(&p, mc_read_varint(&r));
            send_packet(c, &p);
        } else if (!strcmp(name, "kick_disconnect")) {
            fail(c, "kicked");
        }
    }
    mc_buf_free(&p);
}

static void on_readable(bclient *c)
{
    if (!mc_buf_reserve(&c->in, 1 << 16)) {
        c->failed = true;
        return;
    }
    ssize_t n = read(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len);
    if (n <= 0) {
        if (!c->done)
            fail(c, n == 0 ? "server closed the connection" : strerror(errno));
        return;
    }
    c->in.len += (size_t)n;
    size_t off = 0;
    while (off < c->in.len) {
        const uint8_t *pkt;
        size_t plen, used;
        mc_status st = mc_java_frame_read(c->in.data + off, c->in.len - off, c->threshold, 0, NULL, &c->scratch,
                                          &pkt, &plen, &used, NULL);
        if (st == MC_ERR_TRUNCATED)
            break;
        if (st != MC_OK) {
            fail(c, "bad frame");
            return;
        }
        off += used;
        on_packet(c, pkt, plen);
    }
    memmove(c->in.data, c->in.data + off, c->in.len - off);
    c->in.len -= off;
}

static void close_client(bclient *c)
{
    if (c->fd >= 0)
        close(c->fd);
    mc_buf_free(&c->in);
    mc_buf_free(&c->scratch);
    mc_buf_free(&c->out);
}

/* What one run of clients did. */
typedef struct {
    int ok;             /* clients that received every column */
    double elapsed;     /* first connect to the last client's last column, s */
    double max_latency; /* slowest client, Login Success to its last column, s */
    double from_connect;/* slowest client, connect to its last column, s */
} run_result;

/* Runs n clients at once until each has `want` columns (or 60 s pass). */
static run_result run(int port, int n, const char *prefix)
{
    run_result res = {0, 0, 0, 0};
    bclient *cs = calloc((size_t)n, sizeof *cs);
    struct pollfd *pf = calloc((size_t)n, sizeof *pf);
    if (!cs || !pf) {
        free(cs);
        free(pf);
        return res;
    }
    double limit = getenv("BENCH_TIMEOUT") ? atof(getenv("BENCH_TIMEOUT")) : 60;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        char name[17];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        if (!open_client(&cs[i], port, name))
            fail(&cs[i], "cannot connect");
    }
    for (;;) {
        int active = 0;
        for (int i = 0; i < n; i++) {
            pf[i].fd = cs[i].done || cs[i].failed ? -1 : cs[i].fd;
            pf[i].events = POLLIN;
            active += pf[i].fd >= 0;
        }
        if (!active || now() - t0 > limit)
            break;
        if (poll(pf, (nfds_t)n, 1000) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++)
            if (pf[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                on_readable(&cs[i]);
    }
    double last = t0;
    for (int i = 0; i < n; i++) {
        if (!cs[i].done)
            fprintf(stderr, "client %s: %s (%ld columns)\n", cs[i].name, cs[i].failed ? cs[i].why : "timed out",
                    cs[i].columns);
        if (cs[i].done) {
            res.ok++;
            if (cs[i].t_done > last)
                last = cs[i].t_done;
            if (cs[i].t_done - cs[i].t_login > res.max_latency)
                res.max_latency = cs[i].t_done - cs[i].t_login;
            if (cs[i].t_done - cs[i].t_connect > res.from_connect)
                res.from_connect = cs[i].t_done - cs[i].t_connect;
        }
        close_client(&cs[i]);
    }
    res.elapsed = last - t0;
    free(cs);
    free(pf);
    return res;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_server PORT [--protocol N] [--clients N] [--view-distance N | --columns N]\n"
                        "                    [--pid PID] [--startup-ms MS] [--startup-cpu-ms MS] [--min-cpu SECONDS]\n");
        return 2;
    }
    int port = atoi(argv[1]), clients = 32, pid = 0;
    double startup_ms = -1, startup_cpu_ms = -1, min_cpu = 0.5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--protocol"))
            protocol = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--clients"))
            clients = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--columns"))
            want = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--view-distance"))
            view_distance = atoi(argv[i + 1]), want = (2L * view_distance + 1) * (2L * view_distance + 1);
        else if (!strcmp(argv[i], "--pid"))
            pid = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--startup-ms"))
            startup_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--startup-cpu-ms"))
            startup_cpu_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-cpu"))
            min_cpu = atof(argv[i + 1]);
        else {
            fprintf(stderr, "bench_server: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (port <= 0 || clients <= 0 || want <= 0)
        return 2;
    const char *ver = "?";
    mc_java_protocol_known(protocol, &ver);
    bool failed = false;
    bool precise = false;
    double c0 = cpu_of(pid, &precise);
    run_result r = run(port, 1, "cold");
    double cold_cpu = c0 >= 0 ? cpu_of(pid, &precise) - c0 : -1;
    failed |= r.ok != 1;
    printf("protocol %u (%s), %ld columns, one client, cold: %s%.1f ms from Login Success to the last column",
           protocol, ver, want, r.ok ? "" : "FAILED ", r.max_latency * 1e3);
    if (startup_ms >= 0)
        printf("; %.1f ms counted from the server's process start (start-up %.1f ms + connect to last column %.1f ms)",
               startup_ms + r.from_connect * 1e3, startup_ms, r.from_connect * 1e3);
    if (cold_cpu >= 0) {
        printf("; server CPU for the login %.1f ms", cold_cpu * 1e3);
        if (startup_cpu_ms >= 0)
            printf(", %.1f ms with its start-up's %.1f ms", cold_cpu * 1e3 + startup_cpu_ms, startup_cpu_ms);
    }
    printf("\n");
    r = run(port, 1, "warm");
    failed |= r.ok != 1;
    printf("protocol %u (%s), %ld columns, one client, warm: %s%.1f ms from Login Success to the last column\n",
           protocol, ver, want, r.ok ? "" : "FAILED ", r.max_latency * 1e3);

    /* Rounds of `clients` at once until the server's CPU time is large
     * enough to be measured to 1%. */
    double cpu0 = cpu_of(pid, &precise), cpu = 0, wall = 0, slowest = 0;
    long cols = 0;
    int rounds = 0, ok = 0;
    double t_start = now();
    do {
        r = run(port, clients, "many");
        rounds++;
        ok += r.ok;
        cols += (long)r.ok * want;
        wall += r.elapsed;
        if (r.max_latency > slowest)
            slowest = r.max_latency;
        if (r.ok != clients)
            failed = true;
        if (cpu0 >= 0)
            cpu = cpu_of(pid, &precise) - cpu0;
    } while (!failed && cpu0 >= 0 && cpu < min_cpu && rounds < 20 && now() - t_start < 60);
    printf("%d clients at once x %d rounds (%d/%d got every column): %ld columns in %.3f s = %.0f columns/s "
           "(slowest client %.0f ms)",
           clients, rounds, ok, clients * rounds, cols, wall, wall > 0 ? (double)cols / wall : 0.0, slowest * 1e3);
    if (cpu0 >= 0 && cpu > 0)
        printf("; server CPU %.4f s (%s) = %.0f columns per server CPU second", cpu,
               precise ? "sum of its threads' schedstat, ns" : "/proc/PID/stat, 10 ms ticks", (double)cols / cpu);
    printf("\n");
    return failed ? 1 : 0;
}
