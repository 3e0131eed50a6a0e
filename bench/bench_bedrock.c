/*
 * bench_bedrock.c: how fast mcchunk serves Bedrock subchunks, next to
 * prismarine-chunk doing the same work on the same data in the same run.
 *
 * The data: a 1.21.60 overworld column (24 subchunks, y -64..319) of
 * plausible terrain -- deepslate and stone with ores, dirt and grass, water
 * up to sea level, caves of air, a few hills -- built in the chunk model
 * (mc_column, Bedrock registry) and, for the batch, a 5x5 area of such
 * columns.
 *
 * Figures (median of several rounds, CPU time on both sides):
 *   java      the headline: the same terrain as a Java 1.21.4 column, the
 *             form a server holds (`mcchunk serve` keeps Java columns),
 *             converted to the Bedrock form (state map, water layers, block
 *             entities) and encoded to 24 network payloads, as the server
 *             pays it per column;
 *   encode    24 subchunks of one column to network payloads (v9 + block
 *             entities), from the Bedrock form the engine keeps (mostly a
 *             copy of stored words: a secondary figure);
 *   convert   the same from the chunk model (section -> subchunk, XZY);
 *   batch     the engine answering a 100-offset SubChunkRequest into a
 *             SubChunk packet, without and with the blob cache, columns
 *             already converted (as a server keeps them) and cold;
 * then `node bench/bedrock_bench.js DIR` decodes our payloads into
 * prismarine-chunk and times its networkEncodeSubChunkNoCache over the same
 * 24 subchunks and the same 100 subchunks (plus bedrock-protocol's packet
 * serializer for the batch), and the ratios are printed.
 *
 * Run: build/bench_bedrock [rounds]   (needs node and tests/interop/node_modules
 * for the comparison; without them only our figures are printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/bedrock.h"

/* CPU time of this thread: the machine may be shared, and the node side
 * measures its process CPU time too, so both sides count work, not waiting. */
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static uint32_t state(const mc_registry *reg, const char *name)
{
    uint32_t s = mc_registry_default_state(reg, name);
    if (s == MC_STATE_NONE) {
        fprintf(stderr, "bench_bedrock: no state %s\n", name);
        exit(1);
    }
    return s;
}

/* Terrain at column (cx, cz): a deterministic height field and caves. */
static mc_column *make_column(const mc_registry *reg, int32_t cx, int32_t cz)
{
    mc_column *col = mc_column_new(reg, cx, cz, -4, 24, NULL);
    if (!col)
        exit(1);
    uint32_t bedrock = state(reg, "bedrock"), deepslate = state(reg, "deepslate"), stone = state(reg, "stone"),
             dirt = state(reg, "dirt"), grass = state(reg, "grass_block"), water = state(reg, "water"),
             coal = state(reg, "coal_ore"), iron = state(reg, "iron_ore"), dia = state(reg, "deepslate_diamond_ore"),
             gravel = state(reg, "gravel"), tuff = state(reg, "tuff"), granite = state(reg, "granite"),
             air = state(reg, "air");
    uint64_t rng = (uint64_t)(cx * 73856093) ^ (uint64_t)(cz * 19349663) ^ 0x9E3779B97F4A7C15ull;
    uint32_t vals[4096];
    for (int sy = -4; sy < 20; sy++) {
        for (int x = 0; x < 16; x++)
            for (int z = 0; z < 16; z++) {
                int wx = cx * 16 + x, wz = cz * 16 + z;
                int h = 62 + (int)((wx * 7 + wz * 13) % 23) - 8 + ((wx / 5 + wz / 7) % 5);
                for (int y = 0; y < 16; y++) {
                    int wy = sy * 16 + y;
                    uint32_t v;
                    uint64_t r = rng_next(&rng);
                    if (wy == -64)
                        v = bedrock;
                    else if (wy < h - 4) {
                        bool cave = ((unsigned)(wx * 3 + wy * 5 + wz * 7 + 100000) % 41) < 3 && wy > -50;
                        if (cave)
                            v = wy < -54 ? water : air;
                        else if (wy < 0)
                            v = r % 97 == 0 ? dia : r % 31 == 0 ? tuff : deepslate;
                        else
                            v = r % 53 == 0 ? coal : r % 71 == 0 ? iron : r % 29 == 0 ? granite : r % 43 == 0 ? gravel : stone;
                    } else if (wy < h - 1)
                        v = dirt;
                    else if (wy == h - 1)
                        v = h - 1 < 62 ? dirt : grass;
                    else if (wy < 62)
                        v = water;
                    else
                        v = air;
                    vals[(y << 8) | (z << 4) | x] = v;
                }
            }
        mc_section *s = mc_column_section(col, sy);
        mc_status st = mc_container_set_all(&s->blocks, vals);
        if (st != MC_OK) {
            fprintf(stderr, "bench_bedrock: section %d: %s\n", sy, mc_status_name(st));
            exit(1);
        }
        mc_section_recount(s, reg);
    }
    return col;
}

typedef struct area {
    mc_column *cols[25];
} area;

static mc_status area_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_column **out)
{
    area *a = user;
    if (dim != 0 || cx < -2 || cx > 2 || cz < -2 || cz > 2)
        return MC_ERR_NOT_FOUND;
    *out = a->cols[(cx + 2) * 5 + (cz + 2)];
    return MC_OK;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 3)
        rounds = 3;
    const mc_registry *reg = mc_registry_find_bedrock("1.21.60");
    if (!reg) {
        fprintf(stderr, "bench_bedrock: no 1.21.60 Bedrock registry\n");
        return 1;
    }
    area a;
    for (int i = 0; i < 25; i++)
        a.cols[i] = make_column(reg, i / 5 - 2, i % 5 - 2);
    mc_bedrock_ids ids;
    mc_bedrock_ids_init(&ids, reg, reg, false);
    mc_bedrock_column bc;
    mc_error err;
    if (mc_bedrock_column_from_mc_column(&bc, a.cols[12], 0, &ids, NULL, &err) != MC_OK) {
        fprintf(stderr, "bench_bedrock: %s\n", err.message);
        return 1;
    }
    mc_buf out;
    mc_buf_init(&out, NULL);
    double t[64];
    if (getenv("MCCHUNK_BENCH_VERBOSE"))
        for (uint32_t i = 0; i < bc.count; i++)
            printf("  subchunk %d: %u storage(s), %u bits, palette %u\n", (int)i - 4, bc.subchunks[i].storage_count,
                   bc.subchunks[i].storages[0].bits, bc.subchunks[i].storages[0].palette_len);

    /* 1. encode: 24 subchunks from the Bedrock form */
    int iters = 2000;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_us();
        for (int k = 0; k < iters; k++) {
            out.len = 0;
            for (uint32_t i = 0; i < bc.count; i++)
                mc_bedrock_column_subchunk_payload(&bc, i, &out, NULL);
        }
        t[r] = (now_us() - t0) / iters;
    }
    double encode_us = median(t, rounds);
    size_t column_bytes = out.len;

    /* 1b. the worst case: every subchunk filled (16 block kinds, 4 bits) */
    mc_bedrock_column dense;
    mc_bedrock_column_init(&dense, 9, 9, 0, bc.air, NULL);
    {
        uint32_t vals[4096];
        uint64_t rng = 42;
        for (uint32_t i = 0; i < dense.count; i++) {
            for (unsigned j = 0; j < 4096; j++)
                vals[j] = 100 + (uint32_t)(rng_next(&rng) % 16);
            mc_bedrock_storage_from_values(&dense.subchunks[i].storages[0], vals, NULL);
            dense.subchunks[i].storage_count = 1;
        }
    }
    for (int r = 0; r < rounds; r++) {
        double t0 = now_us();
        for (int k = 0; k < 500; k++) {
            out.len = 0;
            for (uint32_t i = 0; i < dense.count; i++)
                mc_bedrock_column_subchunk_payload(&dense, i, &out, NULL);
        }
        t[r] = (now_us() - t0) / 500;
    }
    double dense_us = median(t, rounds);
    size_t dense_bytes = out.len;
    mc_bedrock_column_free(&dense);

    /* 2. convert: from the chunk model */
    iters = 200;
    for (int r = 0; r < rounds; r++) {
        double t0 = now_us();
        for (int k = 0; k < iters; k++) {
            mc_bedrock_column c2;
            mc_bedrock_column_from_mc_column(&c2, a.cols[12], 0, &ids, NULL, NULL);
            out.len = 0;
            for (uint32_t i = 0; i < c2.count; i++)
                mc_bedrock_column_subchunk_payload(&c2, i, &out, NULL);
            mc_bedrock_column_free(&c2);
        }
        t[r] = (now_us() - t0) / iters;
    }
    double convert_us = median(t, rounds);

    /* 2b. the headline, what the server pays per column: a Java column
     * (the same terrain in the Java 1.21.4 registry, the Java release of
     * Bedrock 1.21.60's time) converted (states mapped, waterlogged blocks
     * given their water layer, block entities translated) and encoded */
    const mc_registry *jreg = mc_registry_find("1.21.4");
    double java_us = -1;
    size_t java_bytes = 0;
    if (jreg) {
        mc_column *jcol = make_column(jreg, 0, 0);
        mc_bedrock_ids jids;
        if (mc_bedrock_ids_init(&jids, jreg, reg, false) != MC_OK) {
            fprintf(stderr, "bench_bedrock: no Java -> Bedrock mapping\n");
            return 1;
        }
        for (int r = 0; r < rounds; r++) {
            double t0 = now_us();
            for (int k = 0; k < iters; k++) {
                mc_bedrock_column c2;
                if (mc_bedrock_column_from_mc_column(&c2, jcol, 0, &jids, NULL, &err) != MC_OK) {
                    fprintf(stderr, "bench_bedrock: Java column: %s\n", err.message);
                    return 1;
                }
                out.len = 0;
                for (uint32_t i = 0; i < c2.count; i++)
                    mc_bedrock_column_subchunk_payload(&c2, i, &out, NULL);
                mc_bedrock_column_free(&c2);
            }
            t[r] = (now_us() - t0) / iters;
        }
        java_us = median(t, rounds);
        java_bytes = out.len;
        mc_column_free(jcol);
    }

    /* 3. a 100-offset batch: the center column and its neighbours, every
     * subchunk from y -4 up, in the order a client walks outwards */
    uint8_t offs[300];
    uint32_t n = 0;
    for (int ring = 0; ring <= 2 && n < 100; ring++)
        for (int dx = -ring; dx <= ring && n < 100; dx++)
            for (int dz = -ring; dz <= ring && n < 100; dz++) {
                if (abs(dx) != ring && abs(dz) != ring)
                    continue;
                for (int dy = -4; dy < 20 && n < 100; dy += 1 + (ring > 0) * 2) {
                    offs[3 * n] = (uint8_t)(int8_t)dx;
                    offs[3 * n + 1] = (uint8_t)(int8_t)dy;
                    offs[3 * n + 2] = (uint8_t)(int8_t)dz;
                    n++;
                }
            }
    mc_bedrock_subchunk_request req = {0, 0, 0, 0, n, offs};
    mc_bedrock_column_provider prov = {&a, area_get, NULL};
    double batch_us[2], batch_cold_us = 0;
    size_t batch_bytes[2] = {0, 0};
    for (int cache = 0; cache < 2; cache++) {
        mc_bedrock_mc_source *src = mc_bedrock_mc_source_new(&prov, reg, false, 64, NULL);
        mc_bedrock_world_source ws = mc_bedrock_mc_source_world(src);
        mc_bedrock_engine_options eo = {776, cache != 0, 0, 0};
        mc_bedrock_engine *e = mc_bedrock_engine_new(&ws, &eo, NULL);
        out.len = 0;
        mc_bedrock_engine_answer_request(e, &req, &out, NULL); /* warm: converts the columns */
        iters = 200;
        for (int r = 0; r < rounds; r++) {
            double t0 = now_us();
            for (int k = 0; k < iters; k++) {
                out.len = 0;
                mc_bedrock_engine_answer_request(e, &req, &out, NULL);
            }
            t[r] = (now_us() - t0) / iters;
        }
        batch_us[cache] = median(t, rounds);
        batch_bytes[cache] = out.len;
        if (!cache) { /* cold: every column converted again */
            for (int r = 0; r < rounds; r++) {
                double t0 = now_us();
                for (int k = 0; k < 20; k++) {
                    for (int i = 0; i < 25; i++)
                        mc_bedrock_mc_source_invalidate(src, 0, i / 5 - 2, i % 5 - 2);
                    out.len = 0;
                    mc_bedrock_engine_answer_request(e, &req, &out, NULL);
                }
                t[r] = (now_us() - t0) / 20;
            }
            batch_cold_us = median(t, rounds);
        }
        mc_bedrock_engine_free(e);
        mc_bedrock_mc_source_free(src);
    }

    printf("mcchunk bedrock: CPU time per column to make its 24 network subchunks (1.21.60 overworld, %zu payload "
           "bytes; %u-offset batch)\n",
           column_bytes, n);
    if (java_us >= 0)
        printf("  Java 1.21.4 column -> 24 subchunks (convert + encode, as the server pays it) %9.2f us (%zu B)\n",
               java_us, java_bytes);
    else
        printf("  Java column -> subchunks: no Java 1.21.4 registry in this build\n");
    printf("  secondary: encode 24 subchunks from the Bedrock form held (stored words copied) %9.2f us\n", encode_us);
    printf("  encode 24 dense subchunks (%6zu B)         %9.2f us   (target <= 15 us)\n", dense_bytes, dense_us);
    printf("  convert + encode 24 (mc_column in the Bedrock registry) %9.2f us\n", convert_us);
    printf("  100-offset batch, no cache (%6zu B)       %9.2f us   (target <= 2000 us)\n", batch_bytes[0], batch_us[0]);
    printf("  100-offset batch, blob cache (%6zu B)     %9.2f us\n", batch_bytes[1], batch_us[1]);
    printf("  100-offset batch, cold (25 conversions)    %9.2f us\n", batch_cold_us);

    /* the same data for prismarine: our payloads of the 25 columns */
    char dir[] = "/tmp/mcchunk-bench-bedrock-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    for (int i = 0; i < 25; i++) {
        mc_bedrock_column c2;
        mc_bedrock_column_from_mc_column(&c2, a.cols[i], 0, &ids, NULL, NULL);
        for (uint32_t s = 0; s < c2.count; s++) {
            out.len = 0;
            mc_bedrock_column_subchunk_payload(&c2, s, &out, NULL);
            char path[256];
            snprintf(path, sizeof path, "%s/c%d_%d_s%d.bin", dir, i / 5 - 2, i % 5 - 2, (int)s - 4);
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(out.data, 1, out.len, f);
                fclose(f);
            }
        }
        mc_bedrock_column_free(&c2);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/offsets.bin", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(offs, 1, 3 * n, f);
        fclose(f);
    }
    /* bench/bedrock_bench.js of the source tree (__FILE__ may be relative
     * to the build folder, e.g. under ccache) */
    char script[1024];
    snprintf(script, sizeof script, "%s/bench/bedrock_bench.js", MC_SOURCE_DIR);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' %d 2>&1", script, dir, rounds);
    FILE *p = popen(cmd, "r");
    double pe = 0, pb = 0, pbs = 0;
    char line[512];
    while (p && fgets(line, sizeof line, p)) {
        if (sscanf(line, "encode24 %lf", &pe) == 1 || sscanf(line, "batch100 %lf", &pb) == 1 ||
            sscanf(line, "batch100_serialized %lf", &pbs) == 1)
            continue;
        fputs(line, stdout);
    }
    if (p)
        pclose(p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_bedrock: could not remove %s\n", dir);
    if (pe > 0) {
        printf("prismarine-chunk 1.41.0 (same data, same run)\n");
        printf("  encode 24 subchunks from its own column    %9.2f us   -> mcchunk %.1fx faster from its held form, "
               "%.1fx from a Java column (convert + encode)\n",
               pe, pe / encode_us, java_us > 0 ? pe / java_us : 0.0);
        printf("  100 subchunks (networkEncodeSubChunkNoCache) %7.2f us   -> mcchunk batch %.1fx faster\n", pb,
               pb / batch_us[0]);
        if (pbs > 0)
            printf("  ... + bedrock-protocol SubChunk packet     %9.2f us   -> mcchunk batch %.1fx faster\n", pbs,
                   pbs / batch_us[0]);
    } else {
        printf("prismarine-chunk comparison unavailable (node or tests/interop/node_modules missing)\n");
    }
    mc_buf_free(&out);
    mc_bedrock_column_free(&bc);
    for (int i = 0; i < 25; i++)
        mc_column_free(a.cols[i]);
    return 0;
}
