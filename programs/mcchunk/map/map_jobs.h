/*
 * map_jobs.h: rendering many regions on several threads (map_jobs.c).
 */
#ifndef MC_MAP_JOBS_H
#define MC_MAP_JOBS_H

#include <signal.h>

#include "map/map.h"

typedef struct map_job {
    int32_t rx, rz;
    size_t tag; /* the caller's */
} map_job;

/* Called on a worker thread with a rendered region (MAP_REGION_BYTES);
 * false stops the run (a write failed). */
typedef bool (*map_job_done)(void *user, const map_job *job, const uint8_t *rgba);

/* Renders every job on `threads` threads (at most one per job); stops
 * early when *stop becomes non-zero (may be NULL) or a callback fails.
 * Adds to *stats; the first chunk error goes to first_error (when it is
 * still empty). False when a callback failed or memory ran out. */
bool map_jobs_run(const map_world *world, map_mode mode, const map_job *jobs, size_t count, unsigned threads,
                  map_job_done done, void *user, volatile const sig_atomic_t *stop, map_stats *stats,
                  char *first_error, size_t error_size);

/* The number of cores this process may use. */
unsigned map_default_threads(void);

#endif
