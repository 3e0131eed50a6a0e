/*
 * test_world_stop.c: Ctrl-C in a world command (programs/mcchunk/world/
 * pool.c) is a clean stop at every moment of it, not only while the
 * workers run:
 *  - a SIGINT that comes after world_stop_install and before the job (the
 *    command's setup) leaves the process alive and makes the job run no
 *    task and say it was interrupted;
 *  - a SIGTERM after a job ended (the command's last steps) is still
 *    caught: the handlers stay for the rest of the process;
 *  - a job without a stop runs every task once and counts their chunks;
 *  - a second Ctrl-C ends the process at once (the default action).
 * Each case runs in a child process of its own, since the stop flag and the
 * handlers are process-wide and a missing handler kills the process.
 */
#include "support.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "world/world.h"

static atomic_int ran;

static int count_task(void *user, int worker, size_t task)
{
    (void)user, (void)worker, (void)task;
    atomic_fetch_add(&ran, 1);
    world_count_chunks(3);
    return MC_EXIT_OK;
}

static world_outcome run_job(size_t ntasks, int threads)
{
    atomic_store(&ran, 0);
    world_job job = {"test", ntasks, threads, false, count_task, NULL};
    world_outcome out;
    world_job_run(&job, &out);
    return out;
}

/* Runs fn in a child; returns its wait status. */
static int in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return st;
}

/* exit codes of the children: 0 right, 10+ which check failed */
static int stop_in_setup(void)
{
    world_stop_install();
    raise(SIGINT); /* the setup before the workers */
    if (!world_stop_requested())
        return 10;
    world_outcome out = run_job(8, 2);
    if (atomic_load(&ran) != 0)
        return 11; /* the job forgot the stop */
    if (!out.interrupted || out.done != 0 || out.failed != 0)
        return 12;
    return 0;
}

static int stop_after_job(void)
{
    world_stop_install();
    world_outcome out = run_job(5, 2);
    if (atomic_load(&ran) != 5 || out.done != 5 || out.interrupted || out.chunks != 15)
        return 20;
    raise(SIGTERM); /* the last steps after the workers */
    if (!world_stop_requested())
        return 21;
    out = run_job(3, 1);
    if (atomic_load(&ran) != 0 || !out.interrupted)
        return 22;
    return 0;
}

static int second_ctrl_c(void)
{
    world_stop_install();
    raise(SIGINT);
    raise(SIGINT); /* the default action: the process ends here */
    return 30;
}

static void test_stop_in_setup(void **state)
{
    (void)state;
    int st = in_child(stop_in_setup);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_stop_after_job(void **state)
{
    (void)state;
    int st = in_child(stop_after_job);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_second_ctrl_c(void **state)
{
    (void)state;
    int st = in_child(second_ctrl_c);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_in_setup),
        cmocka_unit_test(test_stop_after_job),
        cmocka_unit_test(test_second_ctrl_c),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
