/*
 * pool.c: worker threads for a world command, the progress line, and a
 * clean stop on Ctrl-C.
 *
 * Workers (libuv threads) take the next task index from a shared counter
 * until none is left or a stop was asked for; the calling thread waits and,
 * when stderr is a terminal, redraws one line five times a second:
 * regions done/total, chunks per second, time left (from the regions done
 * so far). The line goes to stderr only, never into the data on stdout.
 *
 * Stopping: SIGINT (Ctrl-C) and SIGTERM set a flag. A worker checks it
 * between chunks (world_stop_requested) and abandons its region -- the
 * region is only ever put in place whole, so nothing is left half-written
 * -- and no worker takes a new task. The handlers are installed when the
 * world command starts (world_stop_install) and stay until it exits, so a
 * Ctrl-C during the setup before the workers (or the last steps after
 * them) is a clean stop too, never the default death by signal. They are
 * installed with SA_RESETHAND: a second Ctrl-C (the same signal again)
 * ends the process at once, which is still safe for the files (it is no
 * different from kill -9). The flag is the one piece of process-wide
 * state here, as a signal handler needs.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "commands.h"
#include "world/world.h"

static volatile sig_atomic_t stop_signal;   /* set by the handler */
static atomic_ullong chunks_done;           /* world_count_chunks */

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

void world_stop_install(void)
{
    static bool installed;
    if (installed)
        return;
    installed = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool world_stop_requested(void)
{
    return stop_signal != 0;
}

void world_count_chunks(uint64_t n)
{
    atomic_fetch_add_explicit(&chunks_done, n, memory_order_relaxed);
}

typedef struct pool_state {
    const world_job *job;
    atomic_size_t next;        /* next task index */
    size_t done, failed;       /* under lock */
    int running;               /* workers still at work, under lock */
    uv_mutex_t lock;
    uv_cond_t changed;
} pool_state;

typedef struct worker_arg {
    pool_state *ps;
    int index;
} worker_arg;

static void worker_main(void *arg)
{
    worker_arg *w = arg;
    pool_state *ps = w->ps;
    for (;;) {
        if (world_stop_requested())
            break;
        size_t t = atomic_fetch_add(&ps->next, 1);
        if (t >= ps->job->ntasks)
            break;
        int rc = ps->job->run(ps->job->user, w->index, t);
        uv_mutex_lock(&ps->lock);
        /* a task abandoned because of a stop is neither done nor failed */
        if (!(rc != MC_EXIT_OK && world_stop_requested())) {
            ps->done++;
            ps->failed += rc != MC_EXIT_OK;
        }
        uv_cond_signal(&ps->changed);
        uv_mutex_unlock(&ps->lock);
    }
    uv_mutex_lock(&ps->lock);
    ps->running--;
    uv_cond_signal(&ps->changed);
    uv_mutex_unlock(&ps->lock);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void format_duration(char *out, size_t n, double s)
{
    if (s < 0 || s > 1e8)
        snprintf(out, n, "?");
    else if (s < 60)
        snprintf(out, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(out, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(out, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

static void draw_progress(const world_job *job, size_t done, double elapsed)
{
    uint64_t chunks = atomic_load_explicit(&chunks_done, memory_order_relaxed);
    char eta[32];
    format_duration(eta, sizeof eta, done ? elapsed / (double)done * (double)(job->ntasks - done) : -1);
    fprintf(stderr, "\r\033[K%s: %zu/%zu regions, %.0f chunks/s, %s left%s", job->prog, done, job->ntasks,
            elapsed > 0 ? (double)chunks / elapsed : 0.0, done ? eta : "?",
            world_stop_requested() ? " (stopping)" : "");
    fflush(stderr);
}

void world_job_run(const world_job *job, world_outcome *out)
{
    memset(out, 0, sizeof *out);
    world_stop_install(); /* (a stop that came before stays asked for) */
    atomic_store(&chunks_done, 0);

    pool_state ps;
    memset(&ps, 0, sizeof ps);
    ps.job = job;
    atomic_init(&ps.next, 0);
    uv_mutex_init(&ps.lock);
    uv_cond_init(&ps.changed);
    int nthreads = job->threads < 1 ? 1 : job->threads;
    if ((size_t)nthreads > job->ntasks)
        nthreads = job->ntasks ? (int)job->ntasks : 1;
    uv_thread_t *threads = calloc((size_t)nthreads, sizeof *threads);
    worker_arg *args = calloc((size_t)nthreads, sizeof *args);
    double t0 = now_seconds();
    int started = 0;
    if (threads && args && job->ntasks) {
        uv_mutex_lock(&ps.lock);
        for (int i = 0; i < nthreads; i++) {
            args[i] = (worker_arg){&ps, i};
            if (uv_thread_create(&threads[i], worker_main, &args[i]) == 0)
                started++;
        }
        ps.running = started;
        uv_mutex_unlock(&ps.lock);
        if (!started) { /* no thread could be made: the work is done here */
            ps.running = 1;
            args[0] = (worker_arg){&ps, 0};
            worker_main(&args[0]);
        }
        uv_mutex_lock(&ps.lock);
        while (ps.running > 0) {
            if (job->progress) {
                size_t done = ps.done;
                uv_mutex_unlock(&ps.lock);
                draw_progress(job, done, now_seconds() - t0);
                uv_mutex_lock(&ps.lock);
                if (ps.running > 0)
                    uv_cond_timedwait(&ps.changed, &ps.lock, 200 * 1000 * 1000ull);
            } else {
                uv_cond_wait(&ps.changed, &ps.lock);
            }
        }
        uv_mutex_unlock(&ps.lock);
        for (int i = 0; i < started; i++)
            uv_thread_join(&threads[i]);
    }
    if (job->progress && job->ntasks)
        fprintf(stderr, "\r\033[K");
    out->done = ps.done;
    out->failed = ps.failed;
    out->interrupted = world_stop_requested() && ps.done < job->ntasks;
    out->seconds = now_seconds() - t0;
    out->chunks = atomic_load(&chunks_done);
    free(threads);
    free(args);
    uv_cond_destroy(&ps.changed);
    uv_mutex_destroy(&ps.lock);
}
