/*
 * bench_chunk_blocks.c: the output side of `mcchunk chunk blocks` (and of
 * `generate`/`packet ... --blocks`): mc_tool_print_blocks, which turns a
 * column into "x y z state" lines, against the cost of writing the same
 * bytes, and against formatting each line with printf (how the tool did it
 * before; kept here as the peer and as the reference the output must match
 * byte for byte).
 *
 * Input: the first 128 chunks of two corpus region files (1.8.9: the pre-flattening
 * ids; 1.21.11: block-state names), read into columns first (reading is
 * not what is measured). Each figure is the process CPU time (user +
 * system: the machine is shared) of one pass over all columns with stdout
 * sent to a regular file in $TMPDIR (truncated before each pass), the best
 * of 5 passes:
 *   ours    mc_tool_print_blocks per column (names and --ids lines)
 *   printf  the same lines with one printf per line
 *   write   fwrite of the bytes `ours` produced, 64 KiB at a time, to the
 *           same kind of file: the floor any formatter pays
 * It prints ours/write (target <= 2) and printf/ours, and fails (exit 1)
 * when ours and printf differ by a byte.
 *
 * usage: bench_chunk_blocks   (corpus from MCCHUNK_CORPUS or ../shared/corpus)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fileno, dup */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

/* The tool's printing code itself (a source of the command, not of the library). */
#include "../programs/mcchunk/tool_common.c"

#define PASSES 5
#define PER_REGION 128 /* columns taken from each region file */

static const char *const regions[] = {
    "anvil/1.8.9/ppa-r.-1.0.mca",
    "anvil/1.21.11/minestom-r.-1.-1.mca",
};

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The reference: one printf per line, the tool's former output path. */
static void print_blocks_printf(const mc_column *col, bool ids)
{
    const mc_registry *reg = mc_column_registry(col);
    uint32_t count = mc_registry_state_count(reg);
    char **names = calloc(count ? count : 1, sizeof *names);
    if (!names)
        return;
    int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    static uint32_t vals[MC_SECTION_BLOCKS];
    char buf[512];
    for (uint32_t si = 0; si < mc_column_section_count(col); si++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)si);
        if (s->blocks.kind == MC_CONTAINER_SINGLE && (mc_registry_state_flags(reg, s->blocks.value) & MC_STATE_AIR))
            continue;
        mc_container_get_all(&s->blocks, vals);
        int32_t by = (mc_column_min_section(col) + (int32_t)si) * 16;
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            uint32_t v = vals[i];
            if ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == mc_registry_air(reg))
                continue;
            int x = (int)(i & 15), z = (int)((i >> 4) & 15), y = (int)(i >> 8);
            if (ids) {
                printf("%d %d %d %u\n", bx + x, by + y, bz + z, v);
                continue;
            }
            const char *name = buf;
            if (v < count) {
                if (!names[v]) {
                    if (!mc_registry_format_state(reg, v, buf, sizeof buf, MC_FORMAT_SORTED))
                        snprintf(buf, sizeof buf, "#%u", v);
                    names[v] = strdup(buf);
                }
                name = names[v] ? names[v] : "?";
            } else {
                snprintf(buf, sizeof buf, "#%u", v);
            }
            printf("%d %d %d %s\n", bx + x, by + y, bz + z, name);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* Points stdout (fd 1 and the FILE) at `path`, truncated. */
static void stdout_to(const char *path)
{
    fflush(stdout);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || dup2(fd, 1) < 0) {
        perror(path);
        exit(1);
    }
    close(fd);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

int main(void)
{
    const char *corpus = getenv("MCCHUNK_CORPUS") ? getenv("MCCHUNK_CORPUS") : MC_CORPUS_DIR;
    mc_column **cols = NULL;
    size_t ncols = 0, cap = 0;
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    for (size_t f = 0; f < sizeof regions / sizeof regions[0]; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, regions[f]);
        mc_region *r = NULL;
        mc_error err;
        if (mc_region_open(path, NULL, &r, &err) != MC_OK) {
            fprintf(stderr, "bench_chunk_blocks: %s (no corpus?)\n", err.message);
            return 1;
        }
        size_t first = ncols;
        for (int lz = 0; lz < 32; lz++)
            for (int lx = 0; lx < 32; lx++) {
                if (!mc_region_has_chunk(r, lx, lz) || ncols - first >= PER_REGION)
                    continue;
                nbt.len = 0;
                mc_column *col = NULL;
                mc_chunknbt_options opt = {0};
                opt.cache = cache;
                opt.doc = doc;
                if (mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) != MC_OK ||
                    mc_chunknbt_read_bytes(nbt.data, nbt.len, &opt, &col, &err) != MC_OK)
                    continue;
                if (ncols == cap) {
                    cap = cap ? 2 * cap : 256;
                    cols = realloc(cols, cap * sizeof *cols);
                }
                cols[ncols++] = col;
            }
        mc_region_close(r);
    }
    mc_buf_free(&nbt);
    mc_nbt_doc_free(doc);
    mc_chunknbt_cache_free(cache);

    const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char out_ours[4096], out_ref[4096], out_copy[4096];
    snprintf(out_ours, sizeof out_ours, "%s/bench_chunk_blocks.%d.ours", tmpdir, (int)getpid());
    snprintf(out_ref, sizeof out_ref, "%s/bench_chunk_blocks.%d.printf", tmpdir, (int)getpid());
    snprintf(out_copy, sizeof out_copy, "%s/bench_chunk_blocks.%d.write", tmpdir, (int)getpid());
    int saved = dup(1);
    FILE *report = fdopen(dup(1), "w");
    if (saved < 0 || !report)
        return 1;
    fprintf(report, "mcchunk bench_chunk_blocks: CPU seconds (user+sys, best of %d) to write the 'x y z state' "
                    "lines of %zu columns (1.8.9 + 1.21.11 regions) to a file: ours vs printf per line vs "
                    "fwrite of the same bytes\n",
            PASSES, ncols);
    int rc = 0;
    for (int ids = 0; ids <= 1; ids++) {
        double best_ours = 1e30, best_ref = 1e30, best_write = 1e30;
        size_t bytes = 0;
        for (int pass = 0; pass < PASSES; pass++) {
            stdout_to(out_ours);
            double t0 = cpu_now();
            for (size_t i = 0; i < ncols; i++)
                mc_tool_print_blocks(cols[i], NULL, ids, 0, false);
            fflush(stdout);
            double t1 = cpu_now();
            stdout_to(out_ref);
            for (size_t i = 0; i < ncols; i++)
                print_blocks_printf(cols[i], ids);
            fflush(stdout);
            double t2 = cpu_now();
            if (t1 - t0 < best_ours)
                best_ours = t1 - t0;
            if (t2 - t1 < best_ref)
                best_ref = t2 - t1;
            /* the same bytes, written as they are */
            uint8_t *data = slurp(out_ours, &bytes);
            if (!data)
                return 1;
            stdout_to(out_copy);
            double t3 = cpu_now();
            for (size_t off = 0; off < bytes; off += 65536)
                fwrite(data + off, 1, bytes - off < 65536 ? bytes - off : 65536, stdout);
            fflush(stdout);
            double t4 = cpu_now();
            if (t4 - t3 < best_write)
                best_write = t4 - t3;
            if (pass == 0) {
                size_t rlen;
                uint8_t *ref = slurp(out_ref, &rlen);
                if (!ref || rlen != bytes || memcmp(ref, data, bytes)) {
                    fprintf(report, "%s: OUTPUT DIFFERS from the printf reference (%zu vs %zu bytes)\n",
                            ids ? "--ids" : "names", bytes, rlen);
                    rc = 1;
                }
                free(ref);
            }
            free(data);
        }
        fprintf(report,
                "%-6s %6.1f MB: ours %.3f s (%.0f MB/s), printf %.3f s, write %.3f s; ours/write %.2fx (target <= 2), "
                "printf/ours %.1fx%s\n",
                ids ? "--ids" : "names", (double)bytes / 1e6, best_ours, (double)bytes / 1e6 / best_ours, best_ref,
                best_write, best_ours / best_write, best_ref / best_ours, rc ? "" : ", byte-identical");
    }
    fflush(stdout);
    dup2(saved, 1);
    remove(out_ours);
    remove(out_ref);
    remove(out_copy);
    for (size_t i = 0; i < ncols; i++)
        mc_column_free(cols[i]);
    free(cols);
    fclose(report);
    return rc;
}
