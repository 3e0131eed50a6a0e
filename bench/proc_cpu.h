/*
 * proc_cpu.h: the CPU time a server process has used, for the server
 * benchmarks (bench_server.c, bench_bedrock_server.c): the sum over its
 * threads of /proc/PID/task/TID/schedstat, nanoseconds the scheduler ran
 * each, which a busy machine's waiting does not inflate.
 */
#ifndef MC_BENCH_PROC_CPU_H
#define MC_BENCH_PROC_CPU_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* CPU time of process `pid` in seconds: the sum over its threads of the
 * first field of /proc/PID/task/TID/schedstat (nanoseconds on a CPU). Falls
 * back to /proc/PID/stat's utime+stime (clock ticks) where schedstat is
 * missing; *ns_precise says which one it was. -1 when the process is gone. */
static inline double cpu_of(int pid, bool *ns_precise)
{
    *ns_precise = false;
    if (pid <= 0)
        return -1;
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (d) {
        unsigned long long total = 0;
        int threads = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%d/task/%.16s/schedstat", pid, e->d_name);
            FILE *f = fopen(path, "r");
            unsigned long long ns = 0;
            if (f && fscanf(f, "%llu", &ns) == 1) {
                total += ns;
                threads++;
            }
            if (f)
                fclose(f);
        }
        closedir(d);
        if (threads > 0) {
            *ns_precise = true;
            return (double)total / 1e9;
        }
    }
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    unsigned long utime = 0, stime = 0;
    /* fields after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* User and kernel CPU seconds of process `pid` (all its threads) from
 * /proc/PID/stat's utime and stime (clock ticks: 10 ms steps, for the
 * split rather than the total); false when the process is gone. */
static inline bool user_kernel_of(int pid, double *user, double *kernel)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = pid > 0 ? fopen(path, "r") : NULL;
    if (!f)
        return false;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return false;
    *user = (double)utime / (double)sysconf(_SC_CLK_TCK);
    *kernel = (double)stime / (double)sysconf(_SC_CLK_TCK);
    return true;
}

#endif
