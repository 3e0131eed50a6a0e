/*
 * options.c: the options every `mcchunk world` command shares, read and
 * described in one place so that each command refuses the same bad value
 * with the same message: --threads N, --shard K/N, --quiet, and where the
 * command takes them --json, --area X0,Z0,X1,Z1 and --dimension D; and
 * the value of --compression of the commands that write chunks anew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "tool_common.h"
#include "world/world.h"

#define DV_UNCOMPRESSED 2203   /* 19w36a (1.15): region compression id 3 */
#define DV_LZ4 3806            /* 24w04a (1.20.5): region compression id 4 */

/* The most threads asked for that make sense (a region each). */
#define WORLD_MAX_THREADS 1024

/* "K/N": 0 <= K < N <= 1,000,000. */
static bool parse_shard(const char *prog, const char *s, uint32_t *k, uint32_t *n)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    char a[32];
    long long kv, nv;
    if (!slash || (size_t)(slash - s) >= sizeof a) {
        fprintf(stderr, "%s: --shard wants K/N (0 <= K < N), not '%s'\n", prog, s ? s : "");
        return false;
    }
    memcpy(a, s, (size_t)(slash - s));
    a[slash - s] = 0;
    if (!mc_tool_parse_ll(prog, "--shard N", slash + 1, 1, 1000000, &nv) ||
        !mc_tool_parse_ll(prog, "--shard K", a, 0, nv - 1, &kv))
        return false;
    *k = (uint32_t)kv;
    *n = (uint32_t)nv;
    return true;
}

/* "X0,Z0,X1,Z1" chunk coordinates, ordered so that x0 <= x1, z0 <= z1. */
bool world_parse_box(const char *prog, const char *what, const char *s, int32_t box[4])
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf) {
        fprintf(stderr, "%s: %s wants X0,Z0,X1,Z1 (chunk coordinates)\n", prog, what);
        return false;
    }
    strcpy(buf, s);
    char *parts[4];
    int n = 0;
    for (char *p = buf, *comma; n < 4; p = comma + 1) {
        parts[n++] = p;
        comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = 0;
    }
    if (n != 4 || strchr(parts[3], ',')) {
        fprintf(stderr, "%s: %s wants X0,Z0,X1,Z1 (four chunk coordinates), not '%s'\n", prog, what, s);
        return false;
    }
    static const char *const names[4] = {"X0", "Z0", "X1", "Z1"};
    for (int i = 0; i < 4; i++) {
        char w[64];
        snprintf(w, sizeof w, "%s %s", what, names[i]);
        if (!mc_tool_parse_chunk(prog, w, parts[i], &box[i]))
            return false;
    }
    int32_t t;
    if (box[0] > box[2])
        t = box[0], box[0] = box[2], box[2] = t;
    if (box[1] > box[3])
        t = box[1], box[1] = box[3], box[3] = t;
    return true;
}

int world_parse_option(world_opts *o, unsigned which, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
        o->quiet = true;
        return 1;
    }
    if ((which & WORLD_OPT_JSON) && !strcmp(a, "--json")) {
        o->json = true;
        return 1;
    }
    bool threads = !strcmp(a, "--threads"), shard = !strcmp(a, "--shard");
    bool area = (which & WORLD_OPT_AREA) && !strcmp(a, "--area");
    bool dim = (which & WORLD_OPT_DIMENSION) && !strcmp(a, "--dimension");
    bool level = (which & WORLD_OPT_DEFLATE) && !strcmp(a, "--deflate-level");
    if (!threads && !shard && !area && !dim && !level)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", o->prog, a);
        return -MC_EXIT_USAGE;
    }
    const char *v = argv[++*i];
    if (threads) {
        if (!mc_tool_parse_int(o->prog, "--threads", v, 1, WORLD_MAX_THREADS, &o->threads))
            return -MC_EXIT_USAGE;
    } else if (shard) {
        if (!parse_shard(o->prog, v, &o->shard_k, &o->shard_n))
            return -MC_EXIT_USAGE;
    } else if (level) {
        if (!mc_tool_parse_int(o->prog, "--deflate-level", v, 1, 12, &o->deflate_level))
            return -MC_EXIT_USAGE;
    } else if (area) {
        int32_t box[4];
        if (!world_parse_box(o->prog, "--area", v, box))
            return -MC_EXIT_USAGE;
        o->area = true;
        o->area_x0 = box[0], o->area_z0 = box[1], o->area_x1 = box[2], o->area_z1 = box[3];
    } else {
        char dir[64];
        mc_error err;
        if (mc_world_region_dir("/", MC_WORLD_LAYOUT_LEGACY, v, MC_REGION_KIND_REGION, dir, sizeof dir, &err) ==
            MC_ERR_INVALID_ARG) {
            fprintf(stderr, "%s: --dimension: '%s' is not a dimension id (minecraft:overworld, the_nether, "
                            "the_end, or namespace:path)\n", o->prog, v);
            return -MC_EXIT_USAGE;
        }
        o->dimension = v;
    }
    return 1;
}

void world_help_options(FILE *out, unsigned which)
{
    if (which & WORLD_OPT_DIMENSION)
        fprintf(out, "  --dimension D     only dimension D (minecraft:overworld, the_nether, the_end, or\n"
                     "                    namespace:path); default every dimension the world has\n");
    if (which & WORLD_OPT_AREA)
        fprintf(out, "  --area X0,Z0,X1,Z1  only the chunks in this box (chunk coordinates, inclusive)\n");
    if (which & WORLD_OPT_DEFLATE)
        fprintf(out, "  --deflate-level N the deflate level (1..12) of the zlib records written: 1 the\n"
                     "                    fastest (a third of level 6's CPU or less; files ~5%% larger\n"
                     "                    on real worlds, up to ~40%% on very regular terrain), 6 the\n"
                     "                    game's, 12 the smallest\n");
    fprintf(out, "  --threads N       worker threads, each on its own region (default: every core)\n"
                 "  --shard K/N       only the regions whose coordinates hash to K of N (0 <= K < N):\n"
                 "                    N runs with K = 0..N-1 cover the world once, on any machines\n"
                 "  --quiet           no progress line (shown on stderr only when it is a terminal)\n");
    if (which & WORLD_OPT_JSON)
        fprintf(out, "  --json            the result as one JSON object on stdout\n");
}

int world_parse_dir_args(world_opts *o, unsigned which, int argc, char **argv, void (*usage)(FILE *))
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
        int r = world_parse_option(o, which, argc, argv, &i);
        if (r < 0)
            return -r;
        if (r)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "%s: unknown option %s\n", o->prog, argv[i]);
            return MC_EXIT_USAGE;
        }
        if (o->dir) {
            fprintf(stderr, "%s: one world folder only (%s, then %s)\n", o->prog, o->dir, argv[i]);
            return MC_EXIT_USAGE;
        }
        o->dir = argv[i];
    }
    if (!o->dir) {
        fprintf(stderr, "%s: needs a world folder\n\n", o->prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (!mc_tool_is_dir(o->dir)) {
        fprintf(stderr, "%s: %s is not a folder\n", o->prog, o->dir);
        return MC_EXIT_FAIL;
    }
    return -1;
}

int world_deflate_level(const world_opts *o, int dflt)
{
    return o->deflate_level ? o->deflate_level : dflt;
}

int world_threads(const world_opts *o)
{
    if (o->threads > 0)
        return o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > WORLD_MAX_THREADS ? WORLD_MAX_THREADS : (int)n;
}

bool world_progress_wanted(const world_opts *o)
{
    return !o->quiet && isatty(STDERR_FILENO);
}

int world_parse_compression(const world_opts *o, const char *name, const mc_version_info *target,
                            mc_compression *out)
{
    const char *prog = o->prog;
    static const struct { const char *name; mc_compression c; int32_t dv; const char *since; } known[] = {
        {"zlib", MC_COMPRESSION_ZLIB, 0, NULL},
        {"lz4", MC_COMPRESSION_LZ4, DV_LZ4, "1.20.5 (snapshot 24w04a)"},
        {"none", MC_COMPRESSION_NONE, DV_UNCOMPRESSED, "1.15 (snapshot 19w36a)"},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (strcmp(name, known[k].name))
            continue;
        if (target->data_version < known[k].dv) {
            fprintf(stderr, "%s: --compression %s: region files in %s are read by %s and later, not by %s\n",
                    prog, name, name, known[k].since, target->name);
            return MC_EXIT_USAGE;
        }
        if (o->deflate_level && known[k].c != MC_COMPRESSION_ZLIB) {
            fprintf(stderr, "%s: --deflate-level is for zlib records, not --compression %s\n", prog, name);
            return MC_EXIT_USAGE;
        }
        *out = known[k].c;
        return 0;
    }
    fprintf(stderr, "%s: --compression takes zlib, lz4 or none, not '%s'\n", prog, name);
    return MC_EXIT_USAGE;
}
