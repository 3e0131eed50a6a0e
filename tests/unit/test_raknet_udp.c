/* test_raknet_udp.c: the RakNet endpoint on real UDP sockets through its
 * libuv binding (programs/mcchunk/server/raknet/uv.c), on 127.0.0.1.
 *
 * As a ctest test (no arguments) it runs a server and a client endpoint in
 * one loop: the server-list ping, the connection, messages both ways (one
 * split over many datagrams), a clean disconnect, and the close of both.
 * Then the socket layer alone: a batch of raw datagrams of mixed sizes to
 * two plain sockets must arrive as sent (bytes and order), grouped into
 * UDP GSO entries where the kernel has GSO (the entry count is checked),
 * and the same with GSO turned off (MCCHUNK_RAKNET_GSO=0) and with GSO
 * refused by the kernel mid-run (SO_NO_CHECK makes it refuse a GSO send).
 *
 * With `--echo-server PORTFILE SECONDS` it is the peer of the oracle test
 * tests/interop/test_raknet.js: a RakNet server on a free port (written to
 * PORTFILE) that answers pings with a fixed MCPE string and sends every user
 * message back (reliable ordered, channel 0), until SECONDS pass or its
 * parent process exits. */
#include "support.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <uv.h>

#include "server/raknet/raknet.h"

#define ECHO_PONG "MCPE;mcchunk echo;2193;1.26.51;3;20;4242;echo;Creative;1;19132;19133;0;"

/* ------------------------------------------------------- echo server */

typedef struct echo_state {
    uv_loop_t *loop;
    srv_rak_uv *rak;
    uv_timer_t timer;
    uint64_t deadline;
    long parent;
    unsigned long messages;
} echo_state;

static void echo_message(void *user, srv_rak_peer *p, const uint8_t *d, size_t len)
{
    echo_state *e = user;
    e->messages++;
    fprintf(stderr, "echo: %s sent %zu bytes (0x%02x)\n", srv_rak_peer_name(p), len, d[0]);
    srv_rak_send(p, d, len, MC_RAK_RELIABLE_ORDERED, 0);
    srv_rak_uv_flush(e->rak);
}

static void echo_log(void *user, int level, const char *line) { fprintf(stderr, "echo: %s\n", line); }

static void echo_tick(uv_timer_t *t)
{
    echo_state *e = t->data;
    if (uv_now(e->loop) >= e->deadline || (long)getppid() != e->parent) {
        srv_rak_uv_close(e->rak, "echo server stopping");
        uv_close((uv_handle_t *)&e->timer, NULL);
    }
}

static int echo_server(const char *port_file, double seconds)
{
    echo_state e = {.loop = uv_default_loop(), .parent = (long)getppid()};
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    cfg.accept = true;
    cfg.guid = 4242;
    srv_rak_callbacks cb = {.user = &e, .message = echo_message, .log = echo_log};
    char err[160];
    e.rak = srv_rak_uv_start(e.loop, "127.0.0.1", 0, &cfg, &cb, err, sizeof err);
    if (!e.rak) {
        fprintf(stderr, "echo: %s\n", err);
        return 1;
    }
    srv_rak_set_pong(srv_rak_uv_endpoint(e.rak), ECHO_PONG, strlen(ECHO_PONG));
    e.deadline = uv_now(e.loop) + (uint64_t)(seconds * 1000);
    uv_timer_init(e.loop, &e.timer);
    e.timer.data = &e;
    uv_timer_start(&e.timer, echo_tick, 200, 200);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return 1;
    fprintf(f, "%d\n", srv_rak_uv_port(e.rak));
    fclose(f);
    rename(tmp, port_file);
    fprintf(stderr, "echo: listening on 127.0.0.1:%d\n", srv_rak_uv_port(e.rak));
    uv_run(e.loop, UV_RUN_DEFAULT);
    uv_loop_close(e.loop);
    fprintf(stderr, "echo: stopped after %lu messages\n", e.messages);
    return 0;
}

/* ------------------------------------------------------------ the test */

typedef struct pair {
    uv_loop_t loop;
    srv_rak_uv *server, *client;
    srv_rak_peer *server_peer, *client_peer;
    int connected, disconnected;
    char pong[256];
    uint8_t *got[2]; /* last message at the server (0) and the client (1) */
    size_t got_len[2];
    unsigned got_count[2];
    char reason[128];
    uv_timer_t step;
    int phase;
} pair;

static void p_connected(void *user, srv_rak_peer *peer)
{
    pair *p = user;
    p->connected++;
    if (srv_rak_peer_user(peer) == NULL)
        srv_rak_peer_set_user(peer, p);
}

static void record(pair *p, int side, const uint8_t *d, size_t len)
{
    free(p->got[side]);
    p->got[side] = malloc(len);
    memcpy(p->got[side], d, len);
    p->got_len[side] = len;
    p->got_count[side]++;
}

static void s_message(void *user, srv_rak_peer *peer, const uint8_t *d, size_t len)
{
    pair *p = user;
    record(p, 0, d, len);
    assert_int_equal(srv_rak_send(peer, d, len, MC_RAK_RELIABLE_ORDERED, 0), MC_RAK_SENT); /* echo */
}

static void c_message(void *user, srv_rak_peer *peer, const uint8_t *d, size_t len) { record(user, 1, d, len); }

static void s_connected(void *user, srv_rak_peer *peer)
{
    pair *p = user;
    p->server_peer = peer;
    p_connected(user, peer);
}

static void c_connected(void *user, srv_rak_peer *peer)
{
    pair *p = user;
    p->client_peer = peer;
    p_connected(user, peer);
}

static void p_disconnected(void *user, srv_rak_peer *peer, const char *why)
{
    pair *p = user;
    p->disconnected++;
    snprintf(p->reason, sizeof p->reason, "%s", why);
}

static void p_pong(void *user, const srv_rak_addr *from, const uint8_t *d, size_t len)
{
    pair *p = user;
    snprintf(p->pong, sizeof p->pong, "%.*s", (int)len, (const char *)d);
}

static void p_log(void *user, int level, const char *line)
{
    if (getenv("RAKNET_TEST_LOG"))
        fprintf(stderr, "%s\n", line);
}

/* One scripted step every 20 ms; each waits for the previous to show. */
static void on_step(uv_timer_t *t)
{
    pair *p = t->data;
    static uint8_t big[100000];
    srv_rak_addr server = {.family = 4, .ip = {127, 0, 0, 1}, .port = (uint16_t)srv_rak_uv_port(p->server)};
    switch (p->phase) {
    case 0:
        srv_rak_ping(srv_rak_uv_endpoint(p->client), &server, srv_rak_uv_now(p->client));
        p->phase++;
        break;
    case 1:
        if (!p->pong[0])
            return;
        assert_non_null(srv_rak_connect(srv_rak_uv_endpoint(p->client), &server, srv_rak_uv_now(p->client)));
        p->phase++;
        break;
    case 2:
        if (p->connected < 2)
            return;
        for (size_t i = 0; i < sizeof big; i++)
            big[i] = (uint8_t)(i * 13 + 1);
        big[0] = 0xFE;
        assert_int_equal(srv_rak_send(p->client_peer, big, sizeof big, MC_RAK_RELIABLE_ORDERED, 0), MC_RAK_SENT);
        srv_rak_uv_flush(p->client);
        p->phase++;
        break;
    case 3:
        if (p->got_count[1] < 1)
            return;
        assert_int_equal(p->got_len[0], sizeof big);
        assert_memory_equal(p->got[0], big, sizeof big);
        assert_int_equal(p->got_len[1], sizeof big);
        assert_memory_equal(p->got[1], big, sizeof big);
        srv_rak_disconnect(p->client_peer, "test done");
        p->phase++;
        break;
    case 4:
        if (p->disconnected < 2)
            return;
        srv_rak_uv_close(p->server, NULL);
        srv_rak_uv_close(p->client, NULL);
        uv_close((uv_handle_t *)&p->step, NULL);
        p->phase++;
        break;
    }
}

static void test_two_endpoints_over_udp(void **state)
{
    (void)state;
    pair *p = calloc(1, sizeof *p);
    assert_int_equal(uv_loop_init(&p->loop), 0);
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    cfg.accept = true;
    cfg.guid = 1;
    char err[160];
    srv_rak_callbacks scb = {.user = p, .connected = s_connected, .message = s_message,
                            .disconnected = p_disconnected, .log = p_log};
    p->server = srv_rak_uv_start(&p->loop, "127.0.0.1", 0, &cfg, &scb, err, sizeof err);
    assert_non_null(p->server);
    assert_true(srv_rak_uv_port(p->server) > 0);
    srv_rak_set_pong(srv_rak_uv_endpoint(p->server), ECHO_PONG, strlen(ECHO_PONG));
    cfg.accept = false;
    cfg.guid = 2;
    srv_rak_callbacks ccb = {.user = p, .connected = c_connected, .message = c_message,
                            .disconnected = p_disconnected, .pong = p_pong, .log = p_log};
    p->client = srv_rak_uv_start(&p->loop, "127.0.0.1", 0, &cfg, &ccb, err, sizeof err);
    assert_non_null(p->client);
    uv_timer_init(&p->loop, &p->step);
    p->step.data = p;
    uv_timer_start(&p->step, on_step, 20, 20);
    uv_run(&p->loop, UV_RUN_DEFAULT); /* ends when every handle is closed */
    assert_int_equal(p->phase, 5);
    assert_string_equal(p->pong, ECHO_PONG);
    assert_string_equal(p->reason, "disconnected by the peer"); /* the server's, after the client's own */
    assert_int_equal(uv_loop_close(&p->loop), 0);
    free(p->got[0]);
    free(p->got[1]);
    free(p);
}

static void test_bind_failure_is_reported(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    srv_rak_callbacks cb = {0};
    char err[160];
    assert_null(srv_rak_uv_start(&loop, "not-an-address", 0, &cfg, &cb, err, sizeof err));
    assert_string_equal(err, "bad bind address 'not-an-address'");
    srv_rak_uv *a = srv_rak_uv_start(&loop, "127.0.0.1", 0, &cfg, &cb, err, sizeof err);
    assert_non_null(a);
    assert_null(srv_rak_uv_start(&loop, "127.0.0.1", srv_rak_uv_port(a), &cfg, &cb, err, sizeof err));
    assert_non_null(strstr(err, "cannot bind UDP 127.0.0.1:"));
    srv_rak_uv_close(a, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* ------------------------------------------- the socket layer, raw */

/* The batch: runs that fill a GSO entry to its byte cap (46 x 1450) and
 * segment cap (70 x 100), a run ended by a shorter datagram, a longer one
 * after a shorter, a run to the other socket, alternating peers. */
typedef struct raw_item {
    int to;     /* socket 0 or 1 */
    size_t len;
} raw_item;
#define RAW_MAX 160

static size_t raw_plan(raw_item *items)
{
    static const struct {
        int to, count;
        size_t len;
    } runs[] = {{0, 46, 1450}, {0, 2, 1450}, {0, 2, 900}, {0, 1, 1200}, {1, 5, 700}, {0, 70, 100},
                {1, 1, 300},   {0, 1, 300},  {1, 1, 300}, {0, 1, 1}};
    size_t n = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (int i = 0; i < runs[r].count; i++)
            items[n++] = (raw_item){runs[r].to, runs[r].len};
    return n;
}

/* Datagram i's bytes: its number, then a pattern of it. */
static void raw_fill(uint8_t *d, size_t i, size_t len)
{
    for (size_t j = 0; j < len; j++)
        d[j] = (uint8_t)(j == 0 ? i : i * 7 + j);
}

static int plain_socket(srv_rak_addr *addr)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    int buf = 1 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    struct timeval tv = {5, 0}; /* a datagram that never comes fails the test, not hangs it */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
    socklen_t len = sizeof sin;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    memset(addr, 0, sizeof *addr);
    addr->family = 4;
    memcpy(addr->ip, &sin.sin_addr, 4);
    addr->port = ntohs(sin.sin_port);
    return fd;
}

/* The endpoint's UDP socket: the descriptor bound to its port. */
static int endpoint_fd(srv_rak_uv *u)
{
    for (int fd = 3; fd < 1024; fd++) {
        struct sockaddr_in sin;
        socklen_t len = sizeof sin;
        int type = 0;
        socklen_t tlen = sizeof type;
        if (getsockname(fd, (struct sockaddr *)&sin, &len) == 0 && sin.sin_family == AF_INET &&
            ntohs(sin.sin_port) == srv_rak_uv_port(u) && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 &&
            type == SOCK_DGRAM)
            return fd;
    }
    return -1;
}

static char raw_log[512];
static void raw_log_cb(void *user, int level, const char *line)
{
    (void)user;
    (void)level;
    if (strlen(raw_log) + strlen(line) + 2 < sizeof raw_log) {
        strcat(raw_log, line);
        strcat(raw_log, "\n");
    }
}

enum raw_mode { RAW_GSO, RAW_GSO_OFF, RAW_GSO_REFUSED };

/* Sends the batch through an endpoint and checks what each socket got;
 * returns the endpoint's stats after it. */
static srv_rak_uv_stats raw_batch(enum raw_mode mode)
{
    raw_item items[RAW_MAX];
    size_t n = raw_plan(items);
    srv_rak_addr peer[2];
    int sock[2] = {plain_socket(&peer[0]), plain_socket(&peer[1])};
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    srv_rak_config cfg;
    srv_rak_config_defaults(&cfg);
    srv_rak_callbacks cb = {.log = raw_log_cb};
    char err[160];
    raw_log[0] = '\0';
    if (mode == RAW_GSO_OFF)
        setenv("MCCHUNK_RAKNET_GSO", "0", 1);
    srv_rak_uv *u = srv_rak_uv_start(&loop, "127.0.0.1", 0, &cfg, &cb, err, sizeof err);
    unsetenv("MCCHUNK_RAKNET_GSO");
    assert_non_null(u);
    if (mode == RAW_GSO_REFUSED) {
        int fd = endpoint_fd(u), on = 1;
        assert_true(fd >= 0);
        assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &on, sizeof on), 0);
    }
    static uint8_t data[RAW_MAX][1500];
    const uint8_t *ptr[RAW_MAX];
    size_t lens[RAW_MAX];
    srv_rak_addr to[RAW_MAX];
    for (size_t i = 0; i < n; i++) {
        raw_fill(data[i], i, items[i].len);
        ptr[i] = data[i];
        lens[i] = items[i].len;
        to[i] = peer[items[i].to];
    }
    srv_rak_uv_send_batch(u, to, ptr, lens, n);
    for (int s = 0; s < 2; s++) { /* each socket gets its datagrams, in order, as sent */
        for (size_t i = 0; i < n; i++) {
            if (items[i].to != s)
                continue;
            uint8_t got[2000];
            ssize_t len = recv(sock[s], got, sizeof got, 0);
            assert_int_equal(len, (ssize_t)items[i].len);
            assert_memory_equal(got, data[i], items[i].len);
        }
        uint8_t extra[16];
        assert_int_equal(recv(sock[s], extra, sizeof extra, MSG_DONTWAIT), -1); /* nothing more */
    }
    srv_rak_uv_stats st = *srv_rak_uv_get_stats(u);
    assert_int_equal(st.datagrams, n);
    srv_rak_uv_close(u, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    close(sock[0]);
    close(sock[1]);
    return st;
}

static void test_gso_batches_arrive_as_sent(void **state)
{
    (void)state;
    srv_rak_uv_stats st = raw_batch(RAW_GSO);
    if (!st.gso) { /* a kernel before 4.18: the datagrams were checked, one entry each */
        fprintf(stderr, "UDP GSO unavailable here: %s", raw_log);
        assert_int_equal(st.sends, st.datagrams);
        return;
    }
    /* entries: 44 x 1450 (byte cap), 4 x 1450 + 900, 900, 1200, 5 x 700 to the
     * other socket, 64 x 100 (segment cap), 6 x 100, three alternating 300s, 1 */
    assert_int_equal(st.sends, 11);
    assert_int_equal(st.gso_sends, 5);
}

static void test_gso_off_sends_one_datagram_per_entry(void **state)
{
    (void)state;
    srv_rak_uv_stats st = raw_batch(RAW_GSO_OFF);
    assert_false(st.gso);
    assert_int_equal(st.sends, st.datagrams);
    assert_int_equal(st.gso_sends, 0);
    assert_non_null(strstr(raw_log, "UDP GSO off (MCCHUNK_RAKNET_GSO=0)"));
}

static void test_gso_refused_falls_back_once(void **state)
{
    (void)state;
    srv_rak_uv_stats st = raw_batch(RAW_GSO_REFUSED);
    assert_false(st.gso);
    assert_int_equal(st.sends, st.datagrams); /* the refused group went again, one datagram each */
    assert_int_equal(st.gso_sends, 0);
    if (!strstr(raw_log, "UDP GSO unavailable")) { /* it was on, and was refused: said once */
        const char *said = strstr(raw_log, "UDP GSO refused by the kernel");
        assert_non_null(said);
        assert_null(strstr(said + 1, "UDP GSO refused"));
    }
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--echo-server"))
        return echo_server(argv[2], atof(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_endpoints_over_udp),
        cmocka_unit_test(test_bind_failure_is_reported),
        cmocka_unit_test(test_gso_batches_arrive_as_sent),
        cmocka_unit_test(test_gso_off_sends_one_datagram_per_entry),
        cmocka_unit_test(test_gso_refused_falls_back_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
