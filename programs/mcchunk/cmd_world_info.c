/*
 * cmd_world_info.c: `mcchunk world info` and `mcchunk world verify`, the
 * two commands that read a whole world without decoding its chunks.
 *
 * info   what the world is: level.dat's name, version, seed and spawn, the
 *        dimensions, and from every chunk record its compression, size,
 *        timestamp, DataVersion, generation status and InhabitedTime
 *        (a filtered parse of a few keys, world/summary.c).
 * verify `region verify` over every region, entities and poi file (sectors,
 *        lengths, compression, .mcc files, NBT, chunk positions against the
 *        file's name), plus the world's own rules: level.dat readable with
 *        a Data compound, and no chunk newer (DataVersion) than the world;
 *        exit 1 when anything is wrong. Temporaries a killed write left
 *        (<file>.compact.tmp, c.X.Z.mcc.tmp) are listed as leftovers, not
 *        problems: every file is still whole, and the next write of that
 *        region or a --resume removes them.
 * Both run region by region on the pipeline (world/world.h); each worker
 * adds into its own totals, merged at the end; verify's messages are kept
 * per region and printed in the world's order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "tool_common.h"
#include "world/subcommands.h"
#include "world/json.h"
#include "world/world.h"

static const char *const kind_names[3] = {"region", "entities", "poi"};

/* Per-worker reading state. */
typedef struct reader_state {
    mc_nbt_doc *doc;
    mc_buf raw, nbt;
} reader_state;

static bool reader_init(reader_state *r)
{
    memset(r, 0, sizeof *r);
    r->doc = mc_nbt_doc_new(NULL);
    mc_buf_init(&r->raw, NULL);
    mc_buf_init(&r->nbt, NULL);
    return r->doc != NULL;
}

static void reader_free(reader_state *r)
{
    mc_nbt_doc_free(r->doc);
    mc_buf_free(&r->raw);
    mc_buf_free(&r->nbt);
}

/* ------------------------------------------------------------------ info */

#define MAX_DV 64
enum { INHABITED_BUCKETS = 6 };
static const int64_t inhabited_limits[INHABITED_BUCKETS - 1] = {1, 1200, 12000, 72000, 720000};
static const char *const inhabited_names[INHABITED_BUCKETS] = {"0", "<1m", "<10m", "<1h", "<10h", ">=10h"};

typedef struct info_totals {
    uint64_t files[3], file_bytes[3], chunks[3];
    uint64_t unreadable, external;
    uint64_t status[WORLD_STATUS_COUNT + 1];   /* last: unknown */
    uint64_t comp_chunks[6], comp_bytes[6];    /* 1..4, 5 = custom, 0 = other */
    uint32_t ts_min, ts_max;
    uint64_t inhabited[INHABITED_BUCKETS];
    int32_t dv[MAX_DV];
    uint64_t dv_count[MAX_DV];
    size_t ndv;
    uint64_t dv_other;
    uint64_t *dim_files, *dim_chunks;          /* per dimension */
} info_totals;

typedef struct info_job {
    const world_opts *o;
    const world_scan *scan;
    info_totals *per;                          /* per worker */
    reader_state *rs;
} info_job;

static void add_dv(info_totals *t, int32_t dv)
{
    for (size_t i = 0; i < t->ndv; i++)
        if (t->dv[i] == dv) {
            t->dv_count[i]++;
            return;
        }
    if (t->ndv < MAX_DV) {
        t->dv[t->ndv] = dv;
        t->dv_count[t->ndv++] = 1;
    } else {
        t->dv_other++;
    }
}

static int comp_slot(int c)
{
    return c >= 1 && c <= 4 ? c : c == MC_COMPRESSION_CUSTOM ? 5 : 0;
}

static void info_chunk(info_totals *t, reader_state *rs, mc_region *r, int lx, int lz, mc_region_kind kind,
                       uint16_t dim)
{
    mc_region_record rec;
    mc_error err;
    rs->raw.len = 0;
    rs->nbt.len = 0;
    t->chunks[kind]++;
    t->dim_chunks[dim] += kind == MC_REGION_KIND_REGION;
    uint32_t ts = mc_region_get_entry(r, lx, lz).timestamp;
    if (ts && (!t->ts_min || ts < t->ts_min))
        t->ts_min = ts;
    if (ts > t->ts_max)
        t->ts_max = ts;
    if (mc_region_read_raw(r, lx, lz, &rs->raw, &rec, &err) != MC_OK) {
        t->unreadable++;
        return;
    }
    t->comp_chunks[comp_slot(rec.compression)]++;
    t->comp_bytes[comp_slot(rec.compression)] += rec.compressed_size;
    t->external += rec.external;
    if (kind != MC_REGION_KIND_REGION)
        return;
    world_chunk_summary s;
    if (mc_region_decompress(rec.compression, rs->raw.data, rs->raw.len, &rs->nbt, 0, &err) != MC_OK ||
        world_chunk_summarize(rs->doc, rs->nbt.data, rs->nbt.len, &s, &err) != MC_OK) {
        t->unreadable++;
        return;
    }
    add_dv(t, s.data_version);
    t->status[s.status < WORLD_STATUS_COUNT ? s.status : WORLD_STATUS_COUNT]++;
    int b = 0;
    while (b < INHABITED_BUCKETS - 1 && s.inhabited >= inhabited_limits[b])
        b++;
    t->inhabited[b]++;
}

static int info_task(void *user, int worker, size_t ti)
{
    info_job *j = user;
    info_totals *t = &j->per[worker];
    const world_task *task = &j->scan->tasks[ti];
    int rc = MC_EXIT_OK;
    for (int k = 0; k < 3; k++) {
        if (!task->has[k])
            continue;
        char path[4200];
        mc_error err;
        mc_region *r = NULL;
        if (world_task_path(j->scan, j->o->dir, task, (mc_region_kind)k, path, sizeof path, &err) != MC_OK ||
            mc_region_open(path, NULL, &r, &err) != MC_OK) {
            fprintf(stderr, "%s: %s\n", j->o->prog, err.message);
            rc = MC_EXIT_FAIL;
            continue;
        }
        t->files[k]++;
        t->file_bytes[k] += mc_region_file_size(r);
        t->dim_files[task->dim] += k == MC_REGION_KIND_REGION;
        uint64_t n = 0;
        for (int i = 0; i < 1024 && !world_stop_requested(); i++) {
            int lx = i & 31, lz = i >> 5;
            if (!mc_region_has_chunk(r, lx, lz) ||
                !world_in_area(j->o, task->rx * 32 + lx, task->rz * 32 + lz))
                continue;
            info_chunk(t, &j->rs[worker], r, lx, lz, (mc_region_kind)k, task->dim);
            n++;
        }
        world_count_chunks(n);
        mc_region_close(r);
    }
    return world_stop_requested() ? MC_EXIT_FAIL : rc;
}

static void merge_info(info_totals *a, const info_totals *b, size_t ndims)
{
    for (int k = 0; k < 3; k++) {
        a->files[k] += b->files[k];
        a->file_bytes[k] += b->file_bytes[k];
        a->chunks[k] += b->chunks[k];
    }
    a->unreadable += b->unreadable;
    a->external += b->external;
    for (int i = 0; i <= WORLD_STATUS_COUNT; i++)
        a->status[i] += b->status[i];
    for (int i = 0; i < 6; i++) {
        a->comp_chunks[i] += b->comp_chunks[i];
        a->comp_bytes[i] += b->comp_bytes[i];
    }
    if (b->ts_min && (!a->ts_min || b->ts_min < a->ts_min))
        a->ts_min = b->ts_min;
    if (b->ts_max > a->ts_max)
        a->ts_max = b->ts_max;
    for (int i = 0; i < INHABITED_BUCKETS; i++)
        a->inhabited[i] += b->inhabited[i];
    for (size_t i = 0; i < b->ndv; i++)
        for (uint64_t n = 0; n < b->dv_count[i]; n++)
            add_dv(a, b->dv[i]);
    a->dv_other += b->dv_other;
    for (size_t d = 0; d < ndims; d++) {
        a->dim_files[d] += b->dim_files[d];
        a->dim_chunks[d] += b->dim_chunks[d];
    }
}

static const char *comp_name(int slot)
{
    return slot == 5 ? "custom" : slot ? mc_compression_name(slot) : "other";
}

static void time_text(char *out, size_t n, uint32_t ts)
{
    time_t t = (time_t)ts;
    struct tm tm;
    if (!ts || !gmtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, n, "-");
}

static void print_info_json(const world_opts *o, const world_scan *s, const world_level *lv, bool have_level,
                            const info_totals *t)
{
    world_json j;
    world_json_init(&j, stdout, true);
    world_json_begin_object(&j, NULL);
    world_json_str(&j, "world", o->dir);
    world_json_str(&j, "layout", s->layout == MC_WORLD_LAYOUT_26_1 ? "26.1" : "legacy");
    if (have_level) {
        world_json_begin_object(&j, "level");
        world_json_str(&j, "name", lv->name);
        world_json_str(&j, "version", lv->version_name);
        world_json_int(&j, "data_version", lv->data_version);
        if (lv->has_seed)
            world_json_int(&j, "seed", lv->seed);
        if (lv->has_spawn) {
            world_json_begin_array(&j, "spawn");
            for (int i = 0; i < 3; i++)
                world_json_int(&j, NULL, lv->spawn[i]);
            world_json_end_array(&j);
        }
        world_json_end_object(&j);
    }
    world_json_begin_array(&j, "dimensions");
    for (size_t d = 0; d < s->ndims; d++) {
        world_json_begin_object(&j, NULL);
        world_json_str(&j, "id", s->dims[d]);
        world_json_uint(&j, "region_files", t->dim_files[d]);
        world_json_uint(&j, "chunks", t->dim_chunks[d]);
        world_json_end_object(&j);
    }
    world_json_end_array(&j);
    world_json_begin_object(&j, "files");
    for (int k = 0; k < 3; k++) {
        world_json_begin_object(&j, kind_names[k]);
        world_json_uint(&j, "files", t->files[k]);
        world_json_uint(&j, "bytes", t->file_bytes[k]);
        world_json_uint(&j, "chunks", t->chunks[k]);
        world_json_end_object(&j);
    }
    world_json_end_object(&j);
    world_json_begin_object(&j, "data_versions");
    for (size_t i = 0; i < t->ndv; i++) {
        char k[16];
        snprintf(k, sizeof k, "%d", (int)t->dv[i]);
        world_json_uint(&j, k, t->dv_count[i]);
    }
    if (t->dv_other)
        world_json_uint(&j, "other", t->dv_other);
    world_json_end_object(&j);
    world_json_begin_object(&j, "status");
    for (int i = 0; i <= WORLD_STATUS_COUNT; i++)
        if (t->status[i])
            world_json_uint(&j, i < WORLD_STATUS_COUNT ? world_status_name(i) : "unknown", t->status[i]);
    world_json_end_object(&j);
    world_json_begin_object(&j, "compression");
    for (int i = 0; i < 6; i++)
        if (t->comp_chunks[i]) {
            world_json_begin_object(&j, comp_name(i));
            world_json_uint(&j, "chunks", t->comp_chunks[i]);
            world_json_uint(&j, "bytes", t->comp_bytes[i]);
            world_json_end_object(&j);
        }
    world_json_end_object(&j);
    world_json_uint(&j, "external_chunks", t->external);
    world_json_uint(&j, "unreadable_chunks", t->unreadable);
    char a[40], b[40];
    time_text(a, sizeof a, t->ts_min);
    time_text(b, sizeof b, t->ts_max);
    world_json_begin_object(&j, "timestamps");
    world_json_uint(&j, "oldest", t->ts_min);
    world_json_uint(&j, "newest", t->ts_max);
    world_json_str(&j, "oldest_utc", a);
    world_json_str(&j, "newest_utc", b);
    world_json_end_object(&j);
    world_json_begin_object(&j, "inhabited_time");
    for (int i = 0; i < INHABITED_BUCKETS; i++)
        world_json_uint(&j, inhabited_names[i], t->inhabited[i]);
    world_json_end_object(&j);
    world_json_end_object(&j);
    world_json_finish(&j);
}

static void print_info_text(const world_opts *o, const world_scan *s, const world_level *lv, bool have_level,
                            const char *level_why, const info_totals *t)
{
    printf("world: %s (%s layout)\n", o->dir, s->layout == MC_WORLD_LAYOUT_26_1 ? "26.1" : "<=1.21.11");
    if (have_level) {
        printf("name: %s\nversion: %s (DataVersion %d)\n", lv->name, lv->version_name[0] ? lv->version_name : "?",
               (int)lv->data_version);
        if (lv->has_seed)
            printf("seed: %" PRId64 "\n", lv->seed);
        if (lv->has_spawn)
            printf("spawn: %d %d %d\n", (int)lv->spawn[0], (int)lv->spawn[1], (int)lv->spawn[2]);
    } else {
        printf("level.dat: %s\n", level_why);
    }
    printf("dimensions:");
    for (size_t d = 0; d < s->ndims; d++)
        printf("%s %s (%" PRIu64 " region files, %" PRIu64 " chunks)", d ? "," : "", s->dims[d], t->dim_files[d],
               t->dim_chunks[d]);
    printf("%s\n", s->ndims ? "" : " none");
    for (int k = 0; k < 3; k++)
        printf("%s files: %" PRIu64 ", %" PRIu64 " bytes, %" PRIu64 " chunks\n", kind_names[k], t->files[k],
               t->file_bytes[k], t->chunks[k]);
    printf("chunks by DataVersion:");
    for (size_t i = 0; i < t->ndv; i++)
        printf(" %d: %" PRIu64 "%s", (int)t->dv[i], t->dv_count[i], i + 1 < t->ndv ? "," : "");
    if (t->dv_other)
        printf(", other: %" PRIu64, t->dv_other);
    printf("\nchunks by status:");
    const char *sep = " ";
    for (int i = 0; i <= WORLD_STATUS_COUNT; i++)
        if (t->status[i]) {
            printf("%s%s %" PRIu64, sep, i < WORLD_STATUS_COUNT ? world_status_name(i) : "unknown", t->status[i]);
            sep = ", ";
        }
    printf("\nsize on disk by compression (payload bytes):");
    sep = " ";
    for (int i = 0; i < 6; i++)
        if (t->comp_chunks[i]) {
            printf("%s%s %" PRIu64 " chunks %" PRIu64 " bytes", sep, comp_name(i), t->comp_chunks[i], t->comp_bytes[i]);
            sep = ", ";
        }
    char a[40], b[40];
    time_text(a, sizeof a, t->ts_min);
    time_text(b, sizeof b, t->ts_max);
    printf("\nexternal (.mcc) chunks: %" PRIu64 "\nunreadable chunks: %" PRIu64 "\ntimestamps: oldest %s, newest %s\n",
           t->external, t->unreadable, a, b);
    printf("InhabitedTime:");
    for (int i = 0; i < INHABITED_BUCKETS; i++)
        printf(" %s: %" PRIu64 "%s", inhabited_names[i], t->inhabited[i], i + 1 < INHABITED_BUCKETS ? "," : "\n");
}

static void usage_info(FILE *out)
{
    fprintf(out, "usage: mcchunk world info DIR [--json] [options]\n\n"
                 "Prints what world DIR is: level.dat's name, game version and DataVersion, seed\n"
                 "and spawn; its dimensions with their region files and chunks; files, bytes and\n"
                 "chunks of region/, entities/ and poi/; chunks by DataVersion, by generation\n"
                 "status and by InhabitedTime (0, <1m, <10m, <1h, <10h, >=10h); payload bytes by\n"
                 "compression, external (.mcc) and unreadable chunks; the oldest and newest\n"
                 "chunk timestamps. Reads a few keys of each chunk, never decodes one.\n"
                 "options:\n");
    world_help_options(out, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_AREA);
    fprintf(out, "memory: peak about 8 MB + 2 MB per thread (one chunk record at a time),\n"
                 "whatever the size of the world\n"
                 "exit status: 0 ok, 1 the world or a region file could not be read, 2 usage error\n");
}

int world_cmd_info(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world info"};
    int rc = world_parse_dir_args(&o, WORLD_OPT_JSON | WORLD_OPT_DIMENSION | WORLD_OPT_AREA, argc, argv, usage_info);
    if (rc >= 0)
        return rc;
    world_scan scan;
    if ((rc = world_scan_build(&o, 7, &scan)) != MC_EXIT_OK)
        return rc;
    world_level lv;
    mc_error err;
    bool have_level = world_level_read(o.dir, &lv, &err) == MC_OK;
    char level_why[MC_ERROR_MESSAGE_MAX];
    snprintf(level_why, sizeof level_why, "%s", have_level ? "" : err.message);
    int threads = world_threads(&o);
    info_job j = {&o, &scan, calloc((size_t)threads + 1, sizeof(info_totals)),
                  calloc((size_t)threads, sizeof(reader_state))};
    bool ok = j.per && j.rs;
    for (int w = 0; ok && w <= threads; w++) {
        j.per[w].dim_files = calloc(scan.ndims + 1, sizeof(uint64_t));
        j.per[w].dim_chunks = calloc(scan.ndims + 1, sizeof(uint64_t));
        ok = j.per[w].dim_files && j.per[w].dim_chunks && (w == threads || reader_init(&j.rs[w]));
    }
    rc = MC_EXIT_FAIL;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
    } else {
        world_job job = {o.prog, scan.count, threads, world_progress_wanted(&o), info_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        info_totals *all = &j.per[threads];
        for (int w = 0; w < threads; w++)
            merge_info(all, &j.per[w], scan.ndims);
        if (out.interrupted) {
            fprintf(stderr, "%s: interrupted after %zu of %zu regions; nothing printed\n", o.prog, out.done,
                    scan.count);
        } else {
            if (o.json)
                print_info_json(&o, &scan, &lv, have_level, all);
            else
                print_info_text(&o, &scan, &lv, have_level, level_why, all);
            rc = out.failed ? MC_EXIT_FAIL : MC_EXIT_OK;
        }
    }
    for (int w = 0; j.per && w <= threads; w++) {
        free(j.per[w].dim_files);
        free(j.per[w].dim_chunks);
        if (w < threads && j.rs)
            reader_free(&j.rs[w]);
    }
    free(j.per);
    free(j.rs);
    if (have_level)
        world_level_free(&lv);
    world_scan_free(&scan);
    return rc;
}

/* ---------------------------------------------------------------- verify */

typedef struct verify_job {
    const world_opts *o;
    const world_scan *scan;
    int32_t level_dv;          /* 0: no level.dat to compare with */
    mc_buf *problems;          /* per task: lines "FILE: ..." */
    mc_buf *leftovers;         /* per task: stale temporaries */
    size_t *problem_count, *leftover_count;
    uint64_t *chunks_ok;       /* per task */
    reader_state *rs;
} verify_job;

typedef struct verify_ctx {
    verify_job *j;
    size_t task;
    const char *path;
    int32_t rx, rz;
} verify_ctx;

static void add_line(mc_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_line(mc_buf *b, const char *fmt, ...)
{
    char line[MC_ERROR_MESSAGE_MAX + 4400];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0)
        mc_buf_put(b, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    mc_buf_put(b, "\n", 1);
}

static void on_problem(void *user, const mc_region_problem *p)
{
    verify_ctx *c = user;
    if (p->kind == MC_REGION_PROBLEM_STALE_TEMP) {
        add_line(&c->j->leftovers[c->task], "%s: %s", c->path, p->message);
        c->j->leftover_count[c->task]++;
        return;
    }
    if (p->lx >= 0)
        add_line(&c->j->problems[c->task], "%s: chunk %d %d: %s", c->path, (int)(c->rx * 32 + p->lx),
                 (int)(c->rz * 32 + p->lz), p->message);
    else
        add_line(&c->j->problems[c->task], "%s: %s", c->path, p->message);
    c->j->problem_count[c->task]++;
}

/* The DataVersion of every chunk against level.dat's. */
static void check_versions(verify_ctx *c, mc_region *r, reader_state *rs, mc_region_kind kind)
{
    for (int i = 0; i < 1024 && c->j->level_dv > 0; i++) {
        int lx = i & 31, lz = i >> 5;
        if (!mc_region_has_chunk(r, lx, lz))
            continue;
        mc_error err;
        world_chunk_summary s;
        rs->nbt.len = 0;
        if (mc_region_read_chunk(r, lx, lz, &rs->nbt, NULL, &err) != MC_OK ||
            world_chunk_summarize(rs->doc, rs->nbt.data, rs->nbt.len, &s, &err) != MC_OK)
            continue; /* (verify reported it) */
        if (s.data_version > c->j->level_dv) {
            add_line(&c->j->problems[c->task], "%s: chunk %d %d: %s DataVersion %d is newer than the world's "
                     "(level.dat: %d)", c->path, (int)(c->rx * 32 + lx), (int)(c->rz * 32 + lz),
                     kind_names[kind], (int)s.data_version, (int)c->j->level_dv);
            c->j->problem_count[c->task]++;
        }
    }
}

static int verify_task(void *user, int worker, size_t ti)
{
    verify_job *j = user;
    const world_task *task = &j->scan->tasks[ti];
    for (int k = 0; k < 3 && !world_stop_requested(); k++) {
        if (!task->has[k])
            continue;
        char path[4200];
        mc_error err;
        mc_region *r = NULL;
        verify_ctx c = {j, ti, path, task->rx, task->rz};
        if (world_task_path(j->scan, j->o->dir, task, (mc_region_kind)k, path, sizeof path, &err) != MC_OK ||
            mc_region_open(path, NULL, &r, &err) != MC_OK) {
            add_line(&j->problems[ti], "%s", err.message);
            j->problem_count[ti]++;
            continue;
        }
        size_t ok = 0;
        mc_region_verify(r, on_problem, &c, &ok);
        j->chunks_ok[ti] += ok;
        world_count_chunks(ok);
        check_versions(&c, r, &j->rs[worker], (mc_region_kind)k);
        mc_region_close(r);
    }
    return world_stop_requested() ? MC_EXIT_FAIL : MC_EXIT_OK;
}

static void usage_verify(FILE *out)
{
    fprintf(out, "usage: mcchunk world verify DIR [--json] [options]\n\n"
                 "Checks world DIR: every region, entities and poi file as `region verify` does\n"
                 "(sectors, lengths, compression, .mcc files, NBT, each chunk's position against\n"
                 "the file's name), level.dat (present, readable, a Data compound), and that no\n"
                 "chunk's DataVersion is newer than level.dat's. Prints each problem as 'FILE:\n"
                 "chunk X Z: what' (absolute chunk coordinates), the temporaries an interrupted\n"
                 "write left (leftovers: every file is still whole; the next write of that\n"
                 "region removes them), and a summary line.\n"
                 "options:\n");
    world_help_options(out, WORLD_OPT_JSON | WORLD_OPT_DIMENSION);
    fprintf(out, "memory: peak about 8 MB + 2 MB per thread (one chunk record at a time)\n"
                 "exit status: 0 no problem, 1 problems found (or the world unreadable), 2 usage error\n");
}

int world_cmd_verify(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world verify"};
    int rc = world_parse_dir_args(&o, WORLD_OPT_JSON | WORLD_OPT_DIMENSION, argc, argv, usage_verify);
    if (rc >= 0)
        return rc;
    world_scan scan;
    if ((rc = world_scan_build(&o, 7, &scan)) != MC_EXIT_OK)
        return rc;
    world_level lv;
    mc_error err;
    char level_problem[MC_ERROR_MESSAGE_MAX + 64] = "";
    if (world_level_read(o.dir, &lv, &err) == MC_OK) {
        if (lv.data_version <= 0 && mc_nbt_path(mc_nbt_doc_root(lv.doc), "Data.Version"))
            snprintf(level_problem, sizeof level_problem, "%s/level.dat: Version without a DataVersion", o.dir);
    } else {
        snprintf(level_problem, sizeof level_problem, "%s", err.message);
        memset(&lv, 0, sizeof lv);
    }
    int threads = world_threads(&o);
    size_t n = scan.count ? scan.count : 1;
    verify_job j = {&o, &scan, lv.data_version, calloc(n, sizeof(mc_buf)), calloc(n, sizeof(mc_buf)),
                    calloc(n, sizeof(size_t)), calloc(n, sizeof(size_t)), calloc(n, sizeof(uint64_t)),
                    calloc((size_t)threads, sizeof(reader_state))};
    bool ok = j.problems && j.leftovers && j.problem_count && j.leftover_count && j.chunks_ok && j.rs;
    for (int w = 0; ok && w < threads; w++)
        ok = reader_init(&j.rs[w]);
    rc = MC_EXIT_FAIL;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
    } else {
        for (size_t i = 0; i < scan.count; i++) {
            mc_buf_init(&j.problems[i], NULL);
            mc_buf_init(&j.leftovers[i], NULL);
        }
        world_job job = {o.prog, scan.count, threads, world_progress_wanted(&o), verify_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        size_t problems = level_problem[0] != 0, leftovers = 0;
        uint64_t chunks = 0;
        for (size_t i = 0; i < scan.count; i++) {
            problems += j.problem_count[i];
            leftovers += j.leftover_count[i];
            chunks += j.chunks_ok[i];
        }
        if (o.json) {
            world_json js;
            world_json_init(&js, stdout, true);
            world_json_begin_object(&js, NULL);
            world_json_str(&js, "world", o.dir);
            world_json_bool(&js, "ok", !problems && !out.interrupted);
            world_json_uint(&js, "regions", scan.count);
            world_json_uint(&js, "chunks_ok", chunks);
            world_json_begin_array(&js, "problems");
            if (level_problem[0])
                world_json_str(&js, NULL, level_problem);
            for (size_t i = 0; i < scan.count; i++)
                for (char *p = (char *)j.problems[i].data, *e; p && (e = memchr(p, '\n', j.problems[i].len -
                                                                     (size_t)(p - (char *)j.problems[i].data))); p = e + 1)
                    world_json_strn(&js, NULL, p, (size_t)(e - p));
            world_json_end_array(&js);
            world_json_begin_array(&js, "leftovers");
            for (size_t i = 0; i < scan.count; i++)
                for (char *p = (char *)j.leftovers[i].data, *e; p && (e = memchr(p, '\n', j.leftovers[i].len -
                                                                      (size_t)(p - (char *)j.leftovers[i].data))); p = e + 1)
                    world_json_strn(&js, NULL, p, (size_t)(e - p));
            world_json_end_array(&js);
            world_json_bool(&js, "interrupted", out.interrupted);
            world_json_end_object(&js);
            world_json_finish(&js);
        } else {
            if (level_problem[0])
                printf("%s\n", level_problem);
            for (size_t i = 0; i < scan.count; i++)
                fwrite(j.problems[i].data ? (char *)j.problems[i].data : "", 1, j.problems[i].len, stdout);
            for (size_t i = 0; i < scan.count; i++)
                if (j.leftovers[i].len) {
                    fputs("leftover ", stdout);
                    fwrite(j.leftovers[i].data, 1, j.leftovers[i].len, stdout);
                }
            printf("%s: %zu region%s, %" PRIu64 " chunks fine, %zu problem%s, %zu leftover temporar%s%s\n", o.dir,
                   scan.count, scan.count == 1 ? "" : "s", chunks, problems, problems == 1 ? "" : "s", leftovers,
                   leftovers == 1 ? "y" : "ies", out.interrupted ? " (interrupted: not every region checked)" : "");
        }
        rc = problems || out.interrupted ? MC_EXIT_FAIL : MC_EXIT_OK;
    }
    for (size_t i = 0; i < scan.count && j.problems && j.leftovers; i++) {
        mc_buf_free(&j.problems[i]);
        mc_buf_free(&j.leftovers[i]);
    }
    for (int w = 0; j.rs && w < threads; w++)
        reader_free(&j.rs[w]);
    free(j.problems);
    free(j.leftovers);
    free(j.problem_count);
    free(j.leftover_count);
    free(j.chunks_ok);
    free(j.rs);
    if (lv.doc)
        world_level_free(&lv);
    world_scan_free(&scan);
    return rc;
}
