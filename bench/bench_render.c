/*
 * bench_render.c: the map renderer (programs/mcchunk/map) on real corpus
 * regions, next to `region verify`'s read-only pass over the same files in
 * the same run, and the web map's tile latency.
 *
 *   verify  mc_region_verify: every record read, inflated, its NBT parsed
 *           and its position checked (what `mcchunk region verify` does):
 *           the cost of reading the chunks at all;
 *   render  map_render_region (normal mode): read, inflate, decode into the
 *           chunk model (1.8-1.12 sections: left as stored, only the blocks
 *           a column reaches from the top looked at), draw every column
 *           (target: render <= 2x verify);
 *   encode  map_png_encode of the rendered region (its share of render +
 *           encode is reported).
 * Rounds alternate verify and render over all files until the given seconds
 * have passed; CPU time of this one thread (CLOCK_THREAD_CPUTIME_ID), so a
 * loaded machine's waiting does not count. Chunks per second per core.
 *
 * Tile latency: srv_http (server/http.c) on its own loop thread over a
 * world folder of the same regions (copies in a temporary folder); each
 * zoom-0 tile asked for over a loopback socket twice: cold (rendered) and
 * warm (from the cache); then a zoom-2 tile (16 regions' worth) cold and warm.
 *
 * The built-in world's tiles (serve --http without --world): the four
 * zoom-0 tiles around spawn (radius 10, the default view distance) cold and
 * warm, in process CPU time (the render thread's; the loop and this thread
 * wait), next to making the same columns in the same order with the
 * server's generator in this thread (srv_terrain_column: generated and
 * lit, what the server does for the chunks it sends): the map's own share
 * is drawing and PNG encoding on top of that.
 *
 * usage: bench_render [seconds, default 3] [NAME]
 * NAME: only the files whose corpus path contains it, and no tile latency
 * (to profile one era: `valgrind --tool=callgrind bench_render 0 1.8.9`
 * runs two rounds; compare map_render_region with mc_region_verify).
 */
#define _GNU_SOURCE /* clock_gettime, mkdtemp */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "map/map.h"
#include "mcchunk/mcchunk.h"
#include "server/http.h"
#include "server/terrain.h"

static const char *const files[] = {
    "anvil/1.8.9/ppa-r.-1.0.mca", "anvil/1.9/ppa-r.-1.-1.mca", "anvil/1.12.2/ppa-r.0.-1.mca",
    "anvil/1.16/ppa-r.0.-1.mca", "anvil/1.19.4/ppa-r.0.0.mca",
};
#define NFILES (sizeof files / sizeof files[0])

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *corpus(const char *rel, char *buf, size_t n)
{
    const char *root = getenv("MCCHUNK_CORPUS") ? getenv("MCCHUNK_CORPUS") : MC_CORPUS_DIR;
    snprintf(buf, n, "%s/%s", root, rel);
    return buf;
}

/* ------------------------------------------------------- tile latency */

typedef struct loop_thread {
    uv_loop_t loop;
    uv_async_t stop;
    srv_http *http;
    int port;
    const char *world;
    const mc_registry *terrain; /* the built-in world instead */
    int32_t spawn_cx, spawn_cz;
    int ready;
} loop_thread;

static void on_stop(uv_async_t *a)
{
    loop_thread *t = a->data;
    srv_http_stop(t->http);
    uv_close((uv_handle_t *)a, NULL);
}

static void run_loop(void *arg)
{
    loop_thread *t = arg;
    uv_loop_init(&t->loop);
    srv_http_config cfg;
    srv_http_config_defaults(&cfg);
    cfg.port = 0;
    cfg.world = t->world;
    cfg.terrain_registry = t->terrain;
    cfg.seed = 20260101;
    cfg.spawn_cx = t->spawn_cx;
    cfg.spawn_cz = t->spawn_cz;
    cfg.render_threads = 1;
    cfg.log = NULL;
    uv_async_init(&t->loop, &t->stop, on_stop);
    t->stop.data = t;
    if (srv_http_start(&t->loop, &cfg, &t->http, &t->port) != 0)
        t->port = -1;
    __atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    uv_loop_close(&t->loop);
}

/* Milliseconds for one GET (the whole response read), or -1. */
static double get_ms(int port, const char *path, size_t *bytes)
{
    double t0 = wall_now();
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    char buf[65536];
    size_t total = 0;
    ssize_t got;
    bool ok = false;
    while ((got = read(fd, buf, sizeof buf)) > 0) {
        if (!total)
            ok = !strncmp(buf, "HTTP/1.1 200", 12);
        total += (size_t)got;
    }
    close(fd);
    *bytes = total;
    return ok ? (wall_now() - t0) * 1000 : -1;
}

static double process_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void start_loop(loop_thread *t, uv_thread_t *tid)
{
    uv_thread_create(tid, run_loop, t);
    while (!__atomic_load_n(&t->ready, __ATOMIC_ACQUIRE))
        usleep(1000);
}

/* The columns of the built-in world region (rx, rz)'s tile reads, within r
 * chunks of (scx, scz), made in the renderer's order (its chunks row by
 * row, then the row north and column west); returns how many. */
static int make_tile_columns(srv_terrain *t, int32_t rx, int32_t rz, int32_t scx, int32_t scz, int32_t r,
                             uint32_t *blocks, uint32_t *biomes)
{
    int made = 0;
    for (int k = 0; k < 1024 + 64; k++) {
        int32_t cx, cz;
        if (k < 1024)
            cx = rx * 32 + k % 32, cz = rz * 32 + k / 32;
        else if (k % 2 == 0)
            cx = rx * 32 + (k - 1024) / 2, cz = rz * 32 - 1;
        else
            cx = rx * 32 - 1, cz = rz * 32 + (k - 1024) / 2;
        if (cx < scx - r || cx > scx + r || cz < scz - r || cz > scz + r)
            continue;
        mc_column_free(srv_terrain_column(t, cx, cz, blocks, biomes));
        made++;
    }
    return made;
}

static void builtin_tile_latency(void)
{
    const mc_registry *reg = mc_registry_find("26.1");
    srv_terrain *terrain = reg ? srv_terrain_new(reg, 20260101) : NULL;
    uint32_t *blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
    uint32_t *biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    if (!terrain || !blocks || !biomes) {
        srv_terrain_free(terrain);
        free(blocks);
        free(biomes);
        return;
    }
    int32_t sx, sy, sz;
    srv_terrain_find_spawn(terrain, &sx, &sy, &sz);
    loop_thread t = {0};
    t.terrain = reg;
    t.spawn_cx = sx >> 4;
    t.spawn_cz = sz >> 4;
    uv_thread_t tid;
    start_loop(&t, &tid);
    static const int32_t tiles[4][2] = {{-1, -1}, {0, -1}, {-1, 0}, {0, 0}};
    double cold = 0, warm = 0, make = 0;
    int columns = 0, n = 0;
    size_t bytes = 0;
    for (int i = 0; i < 4 && t.port > 0; i++) {
        char p[128];
        snprintf(p, sizeof p, "/tiles/overworld/0/%d/%d.png", tiles[i][0], tiles[i][1]);
        double c0 = process_cpu(), c = get_ms(t.port, p, &bytes), c1 = process_cpu();
        double w = get_ms(t.port, p, &bytes), c2 = process_cpu();
        double m0 = cpu_now();
        columns += make_tile_columns(terrain, tiles[i][0], tiles[i][1], t.spawn_cx, t.spawn_cz, 10, blocks, biomes);
        double m1 = cpu_now();
        if (c < 0 || w < 0)
            continue;
        cold += c1 - c0, warm += c2 - c1, make += m1 - m0, n++;
    }
    if (n == 4)
        printf("built-in world tiles (4 zoom-0 tiles around spawn, %d columns within 10 chunks, 1 render thread), "
               "process CPU: cold %.1f ms per tile, warm %.2f ms; making the same columns with the server's "
               "generator (generated and lit) %.1f ms per tile: the tile costs %.2fx the columns it shows\n",
               columns, cold * 1000 / 4, warm * 1000 / 4, make * 1000 / 4, cold / make);
    uv_async_send(&t.stop);
    uv_thread_join(&tid);
    srv_terrain_free(terrain);
    free(blocks);
    free(biomes);
}

static void tile_latency(void)
{
    char tmpl[] = "/tmp/mcchunk-bench-render-XXXXXX", path[4096], dst[4200];
    if (!mkdtemp(tmpl))
        return;
    snprintf(dst, sizeof dst, "%s/region", tmpl);
    mkdir(dst, 0755);
    int32_t origins[NFILES][2];
    for (size_t i = 0; i < NFILES; i++) {
        mc_region *r;
        if (mc_region_open(corpus(files[i], path, sizeof path), NULL, &r, NULL) != MC_OK)
            continue;
        mc_region_origin(r, &origins[i][0], &origins[i][1]);
        mc_region_close(r);
        uint8_t *data;
        size_t len;
        if (mc_read_file(path, NULL, &data, &len, NULL) != MC_OK)
            continue;
        snprintf(dst, sizeof dst, "%s/region/r.%d.%d.mca", tmpl, origins[i][0], origins[i][1]);
        FILE *f = fopen(dst, "wb");
        if (f) { /* two files at one position: the later wins, as in a world */
            fwrite(data, 1, len, f);
            fclose(f);
        }
        free(data);
    }
    loop_thread t = {0};
    t.world = tmpl;
    uv_thread_t tid;
    start_loop(&t, &tid);
    if (t.port > 0) {
        double cold = 0, warm = 0;
        int n = 0;
        size_t bytes = 0;
        for (size_t i = 0; i < NFILES; i++) {
            char p[128];
            snprintf(p, sizeof p, "/tiles/overworld/0/%d/%d.png", origins[i][0], origins[i][1]);
            double c = get_ms(t.port, p, &bytes), w = get_ms(t.port, p, &bytes);
            if (c < 0 || w < 0)
                continue;
            cold += c, warm += w, n++;
        }
        double c2 = get_ms(t.port, "/tiles/overworld/2/-1/-1.png", &bytes);
        double w2 = get_ms(t.port, "/tiles/overworld/2/-1/-1.png", &bytes);
        if (n)
            printf("tile latency over loopback HTTP (1 render thread): zoom 0 cold %.1f ms, warm %.2f ms "
                   "(mean of %d tiles); zoom 2 (-1,-1) cold %.1f ms (its zoom-0 and zoom-1 tiles partly cached), "
                   "warm %.2f ms\n", cold / n, warm / n, n, c2, w2);
    }
    uv_async_send(&t.stop);
    uv_thread_join(&tid);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpl);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    const char *only = argc > 2 ? argv[2] : NULL;
    bool use[NFILES];
    size_t nused = 0;
    for (size_t i = 0; i < NFILES; i++)
        nused += use[i] = !only || strstr(files[i], only);
    if (!nused) {
        fprintf(stderr, "bench_render: no corpus file matches %s\n", only);
        return 2;
    }
    char path[4096];
    map_world *worlds[NFILES];
    for (size_t i = 0; i < NFILES; i++) {
        char err[256];
        char *p = (char *)corpus(files[i], path, sizeof path);
        if (!(worlds[i] = map_world_open_files(&p, 1, err, sizeof err))) {
            printf("bench_render: %s: %s (corpus absent?)\n", files[i], err);
            return 0;
        }
    }
    printf("bench_render: top-down render of %zu corpus regions (1.8.9 ... 1.19.4) vs region verify's read, "
           "one core, CPU time\n", nused);
    uint8_t *rgba = malloc(MAP_REGION_BYTES);
    double t_verify = 0, t_render = 0, t_encode = 0, fv[NFILES] = {0}, fr[NFILES] = {0};
    uint64_t n_verify = 0, n_render = 0, fn[NFILES] = {0};
    size_t png_bytes = 0;
    int rounds = 0;
    double start = wall_now();
    while (wall_now() - start < seconds || rounds < 2) {
        for (size_t i = 0; i < NFILES; i++) {
            if (!use[i])
                continue;
            const map_region_file *f = map_world_region_at(worlds[i], 0);
            mc_region *region;
            double t0 = cpu_now();
            if (mc_region_open(f->path, NULL, &region, NULL) == MC_OK) {
                size_t ok = 0;
                mc_region_verify(region, NULL, NULL, &ok);
                mc_region_close(region);
                n_verify += ok;
            }
            double t1 = cpu_now();
            map_reader *reader = map_reader_new(worlds[i], MAP_MODE_NORMAL);
            map_stats st = {0};
            map_render_region(reader, f->rx, f->rz, rgba, &st);
            map_reader_free(reader);
            double t2 = cpu_now();
            uint8_t *png;
            size_t len;
            if (map_png_encode(rgba, 512, 512, 2048, &png, &len, NULL, 0)) {
                png_bytes += len;
                free(png);
            }
            double t3 = cpu_now();
            t_verify += t1 - t0, t_render += t2 - t1, t_encode += t3 - t2;
            n_render += st.chunks;
            fv[i] += t1 - t0, fr[i] += t2 - t1, fn[i] += st.chunks;
        }
        rounds++;
    }
    printf("verify (read, inflate, parse): %.0f chunks/s\n", n_verify / t_verify);
    printf("render (read, decode, draw):   %.0f chunks/s  = %.2fx verify's time per chunk (target <= 2)\n",
           n_render / t_render, (t_render / n_render) / (t_verify / n_verify));
    for (size_t i = 0; i < NFILES; i++)
        if (use[i])
            printf("  %-32s %5.1f us/chunk render, %5.1f verify: %.2fx\n", files[i], fr[i] * 1e6 / (double)fn[i],
               fv[i] * 1e6 / (double)fn[i], fr[i] / fv[i]);
    printf("PNG encode: %.1f ms per 512x512 region (%.0f KiB), %.0f%% of render + encode\n",
           t_encode * 1000 / (rounds * (double)nused), png_bytes / 1024.0 / (rounds * (double)nused),
           100 * t_encode / (t_render + t_encode));
    printf("(%d rounds; %llu chunks rendered per round)\n", rounds, (unsigned long long)(n_render / (uint64_t)rounds));
    free(rgba);
    for (size_t i = 0; i < NFILES; i++)
        map_world_free(worlds[i]);
    if (!only) {
        tile_latency();
        builtin_tile_latency();
    }
    return 0;
}
