/*
 * map_jobs.c: renders a list of regions on N threads (libuv threads), each
 * with its own map_reader and a 512x512 buffer, handing every finished
 * region to a callback. The callback runs on the worker thread; callers
 * write into disjoint places (a band's columns, a tile file) or take their
 * own lock. A stop flag (Ctrl-C) is checked between regions.
 */
#include "map/map_jobs.h"

#include <stdlib.h>
#include <string.h>
#include <uv.h>

typedef struct job_run {
    const map_world *world;
    map_mode mode;
    const map_job *jobs;
    size_t count;
    size_t next;
    uv_mutex_t lock;
    map_job_done done;
    void *user;
    volatile const sig_atomic_t *stop;
    map_stats stats;
    bool failed;
    char error[256];
} job_run;

static bool take(job_run *run, size_t *index)
{
    uv_mutex_lock(&run->lock);
    bool got = !run->failed && run->next < run->count && !(run->stop && *run->stop);
    if (got)
        *index = run->next++;
    uv_mutex_unlock(&run->lock);
    return got;
}

static void worker(void *arg)
{
    job_run *run = arg;
    map_reader *reader = map_reader_new(run->world, run->mode);
    uint8_t *rgba = malloc(MAP_REGION_BYTES);
    map_stats stats = {0};
    bool ok = reader && rgba;
    size_t i;
    while (ok && take(run, &i)) {
        ok = map_render_region(reader, run->jobs[i].rx, run->jobs[i].rz, rgba, &stats);
        if (ok)
            ok = run->done(run->user, &run->jobs[i], rgba);
    }
    uv_mutex_lock(&run->lock);
    run->stats.chunks += stats.chunks;
    run->stats.edge_chunks += stats.edge_chunks;
    run->stats.bad_chunks += stats.bad_chunks;
    if (reader && map_reader_last_error(reader) && !run->error[0])
        map_say(run->error, sizeof run->error, "%s", map_reader_last_error(reader));
    if (!ok)
        run->failed = true;
    uv_mutex_unlock(&run->lock);
    map_reader_free(reader);
    free(rgba);
}

bool map_jobs_run(const map_world *world, map_mode mode, const map_job *jobs, size_t count, unsigned threads,
                  map_job_done done, void *user, volatile const sig_atomic_t *stop, map_stats *stats,
                  char *first_error, size_t error_size)
{
    job_run run;
    memset(&run, 0, sizeof run);
    run.world = world, run.mode = mode, run.jobs = jobs, run.count = count;
    run.done = done, run.user = user, run.stop = stop;
    if (uv_mutex_init(&run.lock) != 0)
        return false;
    if (threads < 1)
        threads = 1;
    if (threads > count)
        threads = count ? (unsigned)count : 1;
    uv_thread_t *tids = calloc(threads, sizeof *tids);
    unsigned started = 0;
    if (tids)
        for (; started < threads; started++)
            if (uv_thread_create(&tids[started], worker, &run) != 0)
                break;
    if (!started) /* no thread at all: work here */
        worker(&run);
    for (unsigned t = 0; t < started; t++)
        uv_thread_join(&tids[t]);
    free(tids);
    uv_mutex_destroy(&run.lock);
    if (stats) {
        stats->chunks += run.stats.chunks;
        stats->edge_chunks += run.stats.edge_chunks;
        stats->bad_chunks += run.stats.bad_chunks;
    }
    if (first_error && error_size && run.error[0] && !first_error[0])
        map_say(first_error, error_size, "%s", run.error);
    return !run.failed;
}

unsigned map_default_threads(void)
{
    unsigned n = uv_available_parallelism();
    return n ? n : 1;
}
