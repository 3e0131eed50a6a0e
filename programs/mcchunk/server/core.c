/*
 * core.c: the log and the clock of the server (core.h), the list of
 * players of both editions (for the log's lines on who is where), and the
 * one JSON helper both editions' texts use.
 *
 * The log writes "[HH:MM:SS LEVEL] text" lines to stderr. Once the server
 * listens it lets through MC_LOG_LINES_PER_SECOND lines a second and counts
 * the rest by level, reported as one line when the second is over, so that
 * a flood of clients cannot flood the log (or the disk under it).
 */
#include "server/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void log_prefix(int level)
{
    char when[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    fprintf(stderr, "[%s %s] ", when, level == MC_LOG_WARN ? "WARN" : level == MC_LOG_ERROR ? "ERROR" : "INFO");
}

void srv__srv_log_flush(srv_server *srv)
{
    unsigned *h = srv->log_held;
    if (!h[MC_LOG_INFO] && !h[MC_LOG_WARN] && !h[MC_LOG_ERROR])
        return;
    log_prefix(h[MC_LOG_WARN] || h[MC_LOG_ERROR] ? MC_LOG_WARN : MC_LOG_INFO);
    fprintf(stderr, "log: %u more lines in that second not shown (over %u a second): %u info, %u warnings, %u errors\n",
            h[0] + h[1] + h[2], MC_LOG_LINES_PER_SECOND, h[MC_LOG_INFO], h[MC_LOG_WARN], h[MC_LOG_ERROR]);
    memset(srv->log_held, 0, sizeof srv->log_held);
}

void srv_log(srv_server *srv, int level, const char *fmt, ...)
{
    if ((level == MC_LOG_INFO && srv->cfg->quiet) || srv->cfg->silent)
        return;
    if (srv->log_limited) {
        uint64_t second = uv_hrtime() / 1000000000u;
        if (second != srv->log_second) {
            srv__srv_log_flush(srv);
            srv->log_second = second;
            srv->log_lines = 0;
        }
        if (++srv->log_lines > MC_LOG_LINES_PER_SECOND) {
            srv->log_held[level == MC_LOG_WARN ? MC_LOG_WARN : level == MC_LOG_ERROR ? MC_LOG_ERROR : MC_LOG_INFO]++;
            return;
        }
    }
    log_prefix(level);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

uint64_t srv_server_clock(srv_server *srv)
{
    uint64_t real = uv_now(srv->loop);
    if (real > srv->clock_real_ms) {
        uint64_t step = real - srv->clock_real_ms;
        srv->clock_ms += step < MC_SERVER_MAX_STEP_MS ? step : MC_SERVER_MAX_STEP_MS;
        srv->clock_real_ms = real;
    }
    return srv->clock_ms;
}

/* ------------------------------------------------------------- players */

void srv_player_join(srv_server *srv, srv_player *p, double x, double y, double z)
{
    if (p->listed)
        return;
    p->x = x, p->y = y, p->z = z;
    p->listed = true;
    p->prev = NULL;
    p->next = srv->players;
    if (srv->players)
        srv->players->prev = p;
    srv->players = p;
    unsigned java = 0, bedrock = 0, listed = 0;
    for (const srv_player *q = srv->players; q; q = q->next)
        *(strcmp(q->edition, "java") ? &bedrock : &java) += 1;
    char line[640];
    size_t n = 0;
    const srv_player *q = srv->players;
    for (; q && n < sizeof line - 120; q = q->next, listed++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s (%s) at %.1f %.1f %.1f", listed ? "; " : "", q->name,
                              q->edition, q->x, q->y, q->z);
    if (q)
        snprintf(line + n, sizeof line - n, "; and %u more", java + bedrock - listed);
    srv_log(srv, MC_LOG_INFO, "players online: %u (%u java, %u bedrock): %s", java + bedrock, java, bedrock, line);
}

void srv_player_moved(srv_server *srv, srv_player *p, double x, double y, double z)
{
    if (!p->listed)
        return;
    bool other_column = ((int64_t)floor(x) >> 4) != ((int64_t)floor(p->x) >> 4) ||
                        ((int64_t)floor(z) >> 4) != ((int64_t)floor(p->z) >> 4);
    p->x = x, p->y = y, p->z = z;
    if (other_column)
        srv_log(srv, MC_LOG_INFO, "%s (%s) at %.1f %.1f %.1f", p->name, p->edition, x, y, z);
}

void srv_player_leave(srv_server *srv, srv_player *p)
{
    if (!p->listed)
        return;
    if (p->prev)
        p->prev->next = p->next;
    else
        srv->players = p->next;
    if (p->next)
        p->next->prev = p->prev;
    p->listed = false;
    p->prev = p->next = NULL;
}

/* ---------------------------------------------------------------- json */

void srv_json_string(mc_buf *b, const char *s)
{
    mc_buf_put_u8(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            mc_buf_put_u8(b, '\\');
            mc_buf_put_u8(b, *p);
        } else if (*p < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            mc_buf_put(b, esc, 6);
        } else {
            mc_buf_put_u8(b, *p);
        }
    }
    mc_buf_put_u8(b, '"');
}
