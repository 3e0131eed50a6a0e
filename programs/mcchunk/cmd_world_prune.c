/*
 * cmd_world_prune.c: `mcchunk world prune DIR`: deletes the chunks that
 * match every criterion given -- little InhabitedTime, an early generation
 * status, a position outside a box or beyond a radius of the spawn -- with
 * their entities/ and poi/ records, and compacts what is left.
 *
 * A chunk is judged from its terrain record alone (a filtered parse of
 * Status, TerrainPopulated and InhabitedTime: world/summary.c), never
 * decoded; the chunks kept are copied record for record, byte for byte
 * (payload, compression and timestamp), into a new file put in place whole
 * (mc_region_writer), so the kept chunks are exactly what they were, the
 * holes are gone, and a file left with no chunk is removed. Per region the
 * entities and poi files change first and the terrain file last: after a
 * crash in between, the chunks still there match the criteria and running
 * the same prune again finishes the job (a prune is idempotent; nothing
 * else needs to be remembered).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "world/json.h"
#include "world/subcommands.h"
#include "world/world.h"

typedef struct prune_rules {
    bool inhabited;            /* --inhabited-below */
    int64_t inhabited_below;   /* ticks */
    bool status;               /* --status-below */
    int status_below;          /* WORLD_STATUS_* rank */
    bool outside;              /* --outside (box[]) */
    int32_t box[4];
    bool radius;               /* --keep-radius */
    int32_t keep_radius, centre_x, centre_z;
} prune_rules;

typedef struct prune_counts {
    uint64_t chunks_seen, chunks_deleted, records_deleted[3];
    uint64_t files_rewritten, files_removed, bytes_before, bytes_after, unreadable;
} prune_counts;

typedef struct prune_worker {
    mc_nbt_doc *doc;
    mc_buf nbt, raw;
    prune_counts c;
} prune_worker;

typedef struct prune_job {
    const world_opts *o;
    const world_scan *scan;
    const prune_rules *rules;
    bool dry_run;
    prune_worker *workers;
} prune_job;

/* ------------------------------------------------------------ criteria */

/* "1200", "1200t", "30s", "5m", "1h", "2d": ticks (20 a second). */
static bool parse_duration(const char *prog, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = s && isdigit((unsigned char)*s) ? strtoll(s, &end, 10) : -1;
    int64_t unit = 0;
    if (v >= 0 && !errno) {
        if (!*end || !strcmp(end, "t"))
            unit = 1;
        else if (!strcmp(end, "s"))
            unit = 20;
        else if (!strcmp(end, "m"))
            unit = 20 * 60;
        else if (!strcmp(end, "h"))
            unit = 20 * 3600;
        else if (!strcmp(end, "d"))
            unit = 20 * 86400;
    }
    if (!unit || v > INT64_MAX / unit) {
        fprintf(stderr, "%s: --inhabited-below wants a duration: ticks (1200, 1200t) or with a unit (30s, 5m, "
                        "1h, 2d), not '%s'\n", prog, s ? s : "");
        return false;
    }
    *out = v * unit;
    return true;
}

static bool matches(const prune_rules *r, const world_chunk_summary *s, int32_t cx, int32_t cz)
{
    if (r->inhabited && !(s->inhabited < r->inhabited_below))
        return false;
    if (r->status && !(s->status != WORLD_STATUS_UNKNOWN && s->status < r->status_below))
        return false;
    if (r->outside && cx >= r->box[0] && cx <= r->box[2] && cz >= r->box[1] && cz <= r->box[3])
        return false;
    if (r->radius) {
        int64_t dx = (int64_t)cx - r->centre_x, dz = (int64_t)cz - r->centre_z;
        if (llabs(dx) <= r->keep_radius && llabs(dz) <= r->keep_radius)
            return false;
    }
    return true;
}

/* -------------------------------------------------------------- work */

/* Rewrites `r` (at `path`) without the chunks in `del`; counts. */
static mc_status rewrite_without(prune_job *j, prune_worker *w, mc_region *r, const char *path, const bool *del,
                                 mc_region_kind kind, mc_error *err)
{
    size_t gone = 0, kept = 0;
    for (int i = 0; i < 1024; i++)
        if (mc_region_has_chunk(r, i & 31, i >> 5))
            del[i] ? gone++ : kept++;
    if (!gone)
        return MC_OK;
    w->c.records_deleted[kind] += gone;
    w->c.bytes_before += mc_region_file_size(r);
    if (j->dry_run) {
        /* what compaction would leave: each kept record in whole sectors */
        for (int i = 0; i < 1024; i++)
            if (!del[i] && mc_region_has_chunk(r, i & 31, i >> 5))
                w->c.bytes_after += (uint64_t)mc_region_get_entry(r, i & 31, i >> 5).sector_count * 4096;
        w->c.bytes_after += kept ? 8192 : 0;
        w->c.files_rewritten += kept > 0;
        w->c.files_removed += kept == 0;
        return MC_OK;
    }
    mc_region_writer *out = NULL;
    mc_status st = mc_region_writer_new(path, NULL, &out, err);
    for (int i = 0; i < 1024 && !st; i++) {
        int lx = i & 31, lz = i >> 5;
        if (del[i] || !mc_region_has_chunk(r, lx, lz))
            continue;
        if (world_stop_requested()) {
            st = mc_error_set(err, MC_ERR_IO, SIZE_MAX, "interrupted");
            break;
        }
        mc_region_record rec;
        w->raw.len = 0;
        st = mc_region_read_raw(r, lx, lz, &w->raw, &rec, err);
        if (!st)
            st = mc_region_writer_put_raw(out, lx, lz, w->raw.data, w->raw.len, rec.compression,
                                          mc_region_get_entry(r, lx, lz).timestamp, err);
    }
    uint64_t size = 0;
    if (st) {
        mc_region_writer_abandon(out);
        return st;
    }
    st = mc_region_writer_commit(out, &size, err);
    if (!st) {
        w->c.bytes_after += size;
        w->c.files_rewritten += kept > 0;
        w->c.files_removed += kept == 0;
    }
    return st;
}

static int prune_task(void *user, int worker, size_t ti)
{
    prune_job *j = user;
    prune_worker *w = &j->workers[worker];
    const world_task *t = &j->scan->tasks[ti];
    if (!t->has[MC_REGION_KIND_REGION])
        return MC_EXIT_OK;
    char paths[3][4200];
    mc_region *files[3] = {NULL, NULL, NULL};
    mc_error err;
    int rc = MC_EXIT_OK;
    for (int k = 0; k < 3 && rc == MC_EXIT_OK; k++) {
        mc_status st = world_task_path(j->scan, j->o->dir, t, (mc_region_kind)k, paths[k], sizeof paths[k], &err);
        if (st == MC_ERR_NOT_FOUND && k)
            continue;
        if (!st)
            st = mc_region_open(paths[k], NULL, &files[k], &err);
        if (st) {
            fprintf(stderr, "%s: %s\n", j->o->prog, err.message);
            rc = MC_EXIT_FAIL;
        }
    }
    bool del[1024];
    memset(del, 0, sizeof del);
    size_t n = 0, seen = 0;
    for (int i = 0; i < 1024 && rc == MC_EXIT_OK; i++) {
        int lx = i & 31, lz = i >> 5;
        if (!mc_region_has_chunk(files[0], lx, lz))
            continue;
        seen++;
        world_chunk_summary s;
        w->nbt.len = 0;
        if (mc_region_read_chunk(files[0], lx, lz, &w->nbt, NULL, &err) != MC_OK ||
            world_chunk_summarize(w->doc, w->nbt.data, w->nbt.len, &s, &err) != MC_OK) {
            /* a chunk that cannot be read is kept: deleting what one cannot
             * judge is not pruning (world verify names it) */
            w->c.unreadable++;
            continue;
        }
        del[i] = matches(j->rules, &s, t->rx * 32 + lx, t->rz * 32 + lz);
        n += del[i];
    }
    w->c.chunks_seen += seen;
    world_count_chunks(seen);
    /* entities and poi first, the terrain file last (see the top) */
    static const int order[3] = {MC_REGION_KIND_ENTITIES, MC_REGION_KIND_POI, MC_REGION_KIND_REGION};
    for (int k = 0; k < 3 && rc == MC_EXIT_OK && n; k++) {
        int kind = order[k];
        if (!files[kind])
            continue;
        if (rewrite_without(j, w, files[kind], paths[kind], del, (mc_region_kind)kind, &err) != MC_OK) {
            if (!world_stop_requested())
                fprintf(stderr, "%s: %s: %s (the file is left as it was)\n", j->o->prog, paths[kind], err.message);
            rc = MC_EXIT_FAIL;
        }
    }
    if (rc == MC_EXIT_OK)
        w->c.chunks_deleted += n;
    for (int k = 0; k < 3; k++)
        mc_region_close(files[k]);
    return rc;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk world prune DIR [--inhabited-below DURATION] [--status-below STATUS]\n"
            "                               [--outside X0,Z0,X1,Z1 | --keep-radius N] [--dry-run] [options]\n\n"
            "Deletes from world DIR every chunk that matches all the criteria given (at least\n"
            "one), with its entities/ and poi/ records, and rewrites each file it touched\n"
            "without holes (the chunks kept byte for byte; a file left empty is removed).\n"
            "Prints the chunks, records, files and bytes freed (--json: one object).\n"
            "  --inhabited-below DURATION  InhabitedTime less than DURATION: ticks (1200,\n"
            "                  1200t) or with a unit: 30s, 5m, 1h, 2d (20 ticks a second)\n"
            "  --status-below STATUS  generation status earlier than STATUS (empty,\n"
            "                  structure_starts, structure_references, biomes, noise, surface,\n"
            "                  carvers, liquid_carvers, features, initialize_light, light,\n"
            "                  spawn, heightmaps, full; 1.13's names too; before 1.13 a chunk\n"
            "                  with TerrainPopulated 0 counts as liquid_carvers, 1 as full)\n"
            "  --outside X0,Z0,X1,Z1  outside this box (chunk coordinates, inclusive)\n"
            "  --keep-radius N    farther than N chunks (either axis) from the spawn chunk\n"
            "                  (level.dat's spawn; 0 0 without one)\n"
            "  --dry-run       report what would be deleted; change nothing\n"
            "options:\n");
    world_help_options(out, WORLD_OPT_JSON | WORLD_OPT_DIMENSION);
    fprintf(out,
            "Chunks that cannot be read are kept (world verify names them). Each file is put\n"
            "back whole: after Ctrl-C, kill -9 or a crash every file is as it was or pruned,\n"
            "and running the same prune again finishes the job.\n"
            "memory: peak about 8 MB + 2 MB per thread (one record at a time), whatever the\n"
            "size of the world\n"
            "exit status: 0 ok, 1 a file failed or the run was interrupted, 2 usage error\n");
}

static int parse_rules(world_opts *o, prune_rules *r, bool *dry, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
        int k = world_parse_option(o, WORLD_OPT_JSON | WORLD_OPT_DIMENSION, argc, argv, &i);
        if (k < 0)
            return -k;
        if (k)
            continue;
        bool takes = !strcmp(a, "--inhabited-below") || !strcmp(a, "--status-below") || !strcmp(a, "--outside") ||
                     !strcmp(a, "--keep-radius");
        if (takes && i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", o->prog, a);
            return MC_EXIT_USAGE;
        }
        const char *v = takes ? argv[++i] : NULL;
        if (!strcmp(a, "--dry-run")) {
            *dry = true;
        } else if (!strcmp(a, "--inhabited-below")) {
            if (!parse_duration(o->prog, v, &r->inhabited_below))
                return MC_EXIT_USAGE;
            r->inhabited = true;
        } else if (!strcmp(a, "--status-below")) {
            r->status_below = world_status_rank(v, strlen(v));
            if (r->status_below == WORLD_STATUS_UNKNOWN) {
                fprintf(stderr, "%s: --status-below: unknown status '%s' (see --help)\n", o->prog, v);
                return MC_EXIT_USAGE;
            }
            r->status = true;
        } else if (!strcmp(a, "--outside")) {
            if (!world_parse_box(o->prog, "--outside", v, r->box))
                return MC_EXIT_USAGE;
            r->outside = true;
        } else if (!strcmp(a, "--keep-radius")) {
            if (!mc_tool_parse_i32(o->prog, "--keep-radius", v, 0, MC_TOOL_CHUNK_LIMIT * 2, &r->keep_radius))
                return MC_EXIT_USAGE;
            r->radius = true;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "%s: unknown option %s\n", o->prog, a);
            return MC_EXIT_USAGE;
        } else if (o->dir) {
            fprintf(stderr, "%s: one world folder only (%s, then %s)\n", o->prog, o->dir, a);
            return MC_EXIT_USAGE;
        } else {
            o->dir = a;
        }
    }
    if (!o->dir) {
        fprintf(stderr, "%s: needs a world folder\n\n", o->prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (!r->inhabited && !r->status && !r->outside && !r->radius) {
        fprintf(stderr, "%s: give at least one of --inhabited-below, --status-below, --outside, --keep-radius "
                        "(a prune without a criterion would delete every chunk)\n", o->prog);
        return MC_EXIT_USAGE;
    }
    if (r->outside && r->radius) {
        fprintf(stderr, "%s: --outside and --keep-radius both say which chunks to keep: give one\n", o->prog);
        return MC_EXIT_USAGE;
    }
    if (!mc_tool_is_dir(o->dir)) {
        fprintf(stderr, "%s: %s is not a folder\n", o->prog, o->dir);
        return MC_EXIT_FAIL;
    }
    return -1;
}

static void print_counts(const prune_job *j, const prune_counts *c, const world_outcome *out)
{
    uint64_t freed = c->bytes_before > c->bytes_after ? c->bytes_before - c->bytes_after : 0;
    if (j->o->json) {
        world_json js;
        world_json_init(&js, stdout, true);
        world_json_begin_object(&js, NULL);
        world_json_str(&js, "world", j->o->dir);
        world_json_bool(&js, "dry_run", j->dry_run);
        world_json_uint(&js, "chunks_seen", c->chunks_seen);
        world_json_uint(&js, "chunks_deleted", c->chunks_deleted);
        world_json_uint(&js, "entity_records_deleted", c->records_deleted[MC_REGION_KIND_ENTITIES]);
        world_json_uint(&js, "poi_records_deleted", c->records_deleted[MC_REGION_KIND_POI]);
        world_json_uint(&js, "files_rewritten", c->files_rewritten);
        world_json_uint(&js, "files_removed", c->files_removed);
        world_json_uint(&js, "bytes_freed", freed);
        world_json_uint(&js, "unreadable_kept", c->unreadable);
        world_json_bool(&js, "interrupted", out->interrupted);
        world_json_end_object(&js);
        world_json_finish(&js);
        return;
    }
    if (j->o->quiet)
        return;
    printf("%s%s: %" PRIu64 " of %" PRIu64 " chunks %s, with %" PRIu64 " entity and %" PRIu64
           " poi records; %" PRIu64 " files rewritten, %" PRIu64 " removed; %" PRIu64 " bytes freed%s\n",
           j->dry_run ? "dry run: " : "", j->o->dir, c->chunks_deleted, c->chunks_seen,
           j->dry_run ? "would be deleted" : "deleted", c->records_deleted[MC_REGION_KIND_ENTITIES],
           c->records_deleted[MC_REGION_KIND_POI], c->files_rewritten, c->files_removed, freed,
           c->unreadable ? " (unreadable chunks kept)" : "");
}

int world_cmd_prune(int argc, char **argv)
{
    world_opts o = {.prog = "mcchunk world prune"};
    prune_rules rules;
    memset(&rules, 0, sizeof rules);
    bool dry = false;
    int rc = parse_rules(&o, &rules, &dry, argc, argv);
    if (rc >= 0)
        return rc;
    if (rules.radius) {
        world_level lv;
        mc_error err;
        if (world_level_read(o.dir, &lv, &err) == MC_OK) {
            if (lv.has_spawn) {
                rules.centre_x = lv.spawn[0] >> 4;
                rules.centre_z = lv.spawn[2] >> 4;
            }
            world_level_free(&lv);
        }
    }
    world_scan scan;
    if ((rc = world_scan_build(&o, 7, &scan)) != MC_EXIT_OK)
        return rc;
    int threads = world_threads(&o);
    prune_job j = {&o, &scan, &rules, dry, calloc((size_t)threads, sizeof(prune_worker))};
    bool ok = j.workers != NULL;
    for (int w = 0; ok && w < threads; w++) {
        j.workers[w].doc = mc_nbt_doc_new(NULL);
        mc_buf_init(&j.workers[w].nbt, NULL);
        mc_buf_init(&j.workers[w].raw, NULL);
        ok = j.workers[w].doc != NULL;
    }
    rc = MC_EXIT_FAIL;
    if (!ok) {
        fprintf(stderr, "%s: out of memory\n", o.prog);
    } else {
        world_job job = {o.prog, scan.count, threads, world_progress_wanted(&o), prune_task, &j};
        world_outcome out;
        world_job_run(&job, &out);
        prune_counts all;
        memset(&all, 0, sizeof all);
        for (int w = 0; w < threads; w++) {
            const uint64_t *p = (const uint64_t *)&j.workers[w].c;
            uint64_t *q = (uint64_t *)&all;
            for (size_t k = 0; k < sizeof all / sizeof(uint64_t); k++)
                q[k] += p[k];
        }
        print_counts(&j, &all, &out);
        if (out.interrupted)
            fprintf(stderr, "%s: interrupted: %zu of %zu regions done, the others untouched; run it again to "
                            "finish\n", o.prog, out.done, scan.count);
        rc = out.failed || out.interrupted ? MC_EXIT_FAIL : MC_EXIT_OK;
    }
    for (int w = 0; j.workers && w < threads; w++) {
        mc_nbt_doc_free(j.workers[w].doc);
        mc_buf_free(&j.workers[w].nbt);
        mc_buf_free(&j.workers[w].raw);
    }
    free(j.workers);
    world_scan_free(&scan);
    return rc;
}
