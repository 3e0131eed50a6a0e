/* test_server_clock.c: the server's clock (srv_server_clock) follows the
 * loop's monotonic time step by step, but a leap of that time (a virtual
 * machine paused or migrated) counts as at most MC_SERVER_MAX_STEP_MS, so it
 * cannot time every client out or end an --exit-after run at once. The loop's
 * cached time is set by hand to play the leaps. */
#include "support.h"

#include <string.h>
#include <uv.h>

#include "server/core.h"

/* A server with only a loop, whose clock starts at 0 at loop time t0. */
static void start(uv_loop_t *loop, srv_server *srv, uint64_t t0)
{
    assert_int_equal(uv_loop_init(loop), 0);
    memset(srv, 0, sizeof *srv);
    srv->loop = loop;
    loop->time = t0;
    srv->clock_real_ms = t0;
}

static void test_clock_follows_small_steps(void **state)
{
    (void)state;
    uv_loop_t loop;
    srv_server srv;
    start(&loop, &srv, 5000);
    assert_int_equal(srv_server_clock(&srv), 0);
    uint64_t want = 0;
    for (int i = 0; i < 100; i++) {
        loop.time += 250;
        want += 250;
        assert_int_equal(srv_server_clock(&srv), want);
        assert_int_equal(srv_server_clock(&srv), want); /* no time, no step */
    }
    loop.time += MC_SERVER_MAX_STEP_MS; /* a step of exactly the limit counts in full */
    want += MC_SERVER_MAX_STEP_MS;
    assert_int_equal(srv_server_clock(&srv), want);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_clock_leap_counts_as_one_step(void **state)
{
    (void)state;
    uv_loop_t loop;
    srv_server srv;
    start(&loop, &srv, 1);
    loop.time += 250;
    assert_int_equal(srv_server_clock(&srv), 250);
    loop.time += 300000; /* five minutes in one step: the paused VM */
    assert_int_equal(srv_server_clock(&srv), 250 + MC_SERVER_MAX_STEP_MS);
    loop.time += 250; /* and the clock goes on from there */
    assert_int_equal(srv_server_clock(&srv), 500 + MC_SERVER_MAX_STEP_MS);
    /* A time behind the last one read (cannot happen with a monotonic loop
     * time, but must not wrap) adds nothing. */
    loop.time -= 1000;
    assert_int_equal(srv_server_clock(&srv), 500 + MC_SERVER_MAX_STEP_MS);
    loop.time += 1100; /* 100 ms past the latest time read */
    assert_int_equal(srv_server_clock(&srv), 600 + MC_SERVER_MAX_STEP_MS);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_follows_small_steps),
        cmocka_unit_test(test_clock_leap_counts_as_one_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
