/*
 * chunk_blocks.c: `mcchunk chunk blocks` and `mcchunk chunk convert`, the
 * chunk-model views of one chunk of a region file or world (cmd_chunk.c
 * dispatches here).
 *
 *   blocks PATH X Z [--ids] [--version V]
 *       one line per non-air block, "x y z state", absolute coordinates,
 *       ordered by y, then z, then x; the state as minecraft:name[k=v,...]
 *       with properties sorted by name, or with --ids the state id in the
 *       registry of version V (default: the chunk's own; before 1.13,
 *       id<<4|meta). This is what the interop test compares with
 *       prismarine-provider-anvil.
 *   convert PATH X Z --to-version V -o FILE
 *       writes the chunk's NBT for another version's DataVersion to FILE
 *       (uncompressed Java NBT) and lists what the conversion dropped.
 *
 * Air is every state with the registry's air flag (air, cave_air,
 * void_air). Sections print in one pass per section: blocks are unpacked
 * and formatted through a per-chunk cache of state strings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "tool_common.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

int mc_chunk_model_cmd(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk chunk blocks PATH X Z [--ids] [--version V] [--dimension DIM]\n"
            "       mcchunk chunk convert PATH X Z --to-version V -o FILE [--dimension DIM]\n"
            "\n"
            "PATH is a region file or a world folder; X Z are absolute chunk coordinates.\n"
            "  blocks   prints 'x y z state' for every non-air block, ordered by y, z, x;\n"
            "           state is minecraft:name[k=v,...] (properties sorted), or with --ids\n"
            "           the numeric state id in the registry of --version V (default: the\n"
            "           chunk's own version; 1.8-1.12: id<<4|meta)\n"
            "           --every K prints every K-th position (air included); --all with a\n"
            "           region file instead of X Z prints every chunk after 'chunk X Z' lines\n"
            "  convert  writes the chunk NBT for version V (uncompressed) to FILE and lists\n"
            "           what the conversion dropped on stderr\n"
            "exit status: 0 ok, 1 failure, 2 usage error\n");
}

static bool parse_i32(const char *s, int32_t *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

static const mc_registry *registry_of_version(const char *v)
{
    mc_version_info vi;
    if (mc_java_version_find(v, &vi) && vi.registry)
        return vi.registry;
    return mc_registry_find(v);
}

static int32_t data_version_of(const char *v)
{
    mc_version_info vi;
    if (!mc_java_version_find(v, &vi))
        return -1;
    if (vi.data_version < 169) /* 1.8.x chunks carry no DataVersion */
        return 0;
    return vi.data_version;
}

/* every == 0: the non-air blocks; every == K: every K-th position of the
 * column (air included), starting at a phase taken from the chunk's
 * coordinates, so that a test can compare a sample against an oracle. */
static int cmd_blocks(mc_column *col, bool ids, const char *version, unsigned every)
{
    const mc_registry *out_reg = NULL;
    if (version && !(out_reg = registry_of_version(version))) {
        fprintf(stderr, "mcchunk chunk blocks: unknown version %s\n", version);
        return MC_EXIT_USAGE;
    }
    return mc_tool_print_blocks(col, out_reg, ids, every, false);
}

static int cmd_convert(mc_column *col, const char *version, const char *file)
{
    int32_t dv = data_version_of(version);
    if (dv < 0) {
        fprintf(stderr, "mcchunk chunk convert: unknown version %s\n", version);
        return MC_EXIT_USAGE;
    }
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_chunknbt_report rep;
    mc_error err;
    int rc = MC_EXIT_OK;
    if (mc_chunknbt_write_bytes(col, dv, &out, &rep, &err) != MC_OK) {
        fprintf(stderr, "mcchunk chunk convert: %s\n", err.message);
        rc = MC_EXIT_FAIL;
    } else {
        FILE *f = strcmp(file, "-") ? fopen(file, "wb") : stdout;
        if (!f || fwrite(out.data, 1, out.len, f) != out.len) {
            fprintf(stderr, "mcchunk chunk convert: cannot write %s\n", file);
            rc = MC_EXIT_FAIL;
        }
        if (f && f != stdout)
            fclose(f);
        fprintf(stderr, "converted to %s (DataVersion %d): %u states inexact (%u to air), %u biomes, "
                        "%u sections, %u block entities, %u extra keys dropped\n%s",
                version, (int)dv, rep.states_inexact, rep.states_to_air, rep.biomes_inexact,
                rep.sections_dropped, rep.block_entities_dropped, rep.extra_dropped, rep.text);
    }
    mc_buf_free(&out);
    return rc;
}

/* --all: every chunk of a region file, each after a "chunk X Z" line
 * (or "chunk X Z error MESSAGE"). */
static int blocks_all(const char *path, bool ids, const char *version, unsigned every)
{
    mc_region *r = NULL;
    mc_error err;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "mcchunk chunk: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    int32_t rx = 0, rz = 0;
    mc_region_origin(r, &rx, &rz);
    mc_chunknbt_cache *cache = mc_chunknbt_cache_new(NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    int rc = MC_EXIT_OK;
    for (int lz = 0; lz < 32 && rc != MC_EXIT_USAGE; lz++)
        for (int lx = 0; lx < 32 && rc != MC_EXIT_USAGE; lx++) {
            if (!mc_region_has_chunk(r, lx, lz))
                continue;
            int32_t x = rx * 32 + lx, z = rz * 32 + lz;
            nbt.len = 0;
            mc_column *col = NULL;
            mc_chunknbt_options opt = {0};
            opt.cache = cache;
            opt.doc = doc;
            if (mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) != MC_OK ||
                mc_chunknbt_read_bytes(nbt.data, nbt.len, &opt, &col, &err) != MC_OK) {
                printf("chunk %d %d error %s\n", (int)x, (int)z, err.message);
                rc = MC_EXIT_FAIL;
                continue;
            }
            printf("chunk %d %d\n", (int)mc_column_x(col), (int)mc_column_z(col));
            int k = cmd_blocks(col, ids, version, every);
            if (k != MC_EXIT_OK)
                rc = k;
            mc_column_free(col);
        }
    mc_buf_free(&nbt);
    mc_nbt_doc_free(doc);
    mc_chunknbt_cache_free(cache);
    mc_region_close(r);
    return rc;
}

int mc_chunk_model_cmd(int argc, char **argv)
{
    bool blocks = !strcmp(argv[1], "blocks");
    const char *pos[3];
    int npos = 0;
    bool ids = false, all = false;
    unsigned every = 0;
    const char *version = NULL, *outfile = NULL, *dimension = "minecraft:overworld";
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--ids")) {
            ids = true;
        } else if (!strcmp(a, "--all")) {
            all = true;
        } else if (!strcmp(a, "--every")) {
            if (i + 1 >= argc || atoi(argv[i + 1]) <= 0) {
                fprintf(stderr, "mcchunk chunk: --every needs a positive number\n");
                return MC_EXIT_USAGE;
            }
            every = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(a, "--version") || !strcmp(a, "--to-version") || !strcmp(a, "-o") ||
                   !strcmp(a, "--dimension")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mcchunk chunk: %s needs a value\n", a);
                return MC_EXIT_USAGE;
            }
            if (!strcmp(a, "-o"))
                outfile = argv[++i];
            else if (!strcmp(a, "--dimension"))
                dimension = argv[++i];
            else
                version = argv[++i];
        } else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
            fprintf(stderr, "mcchunk chunk: unknown option %s\n", a);
            return MC_EXIT_USAGE;
        } else if (npos < 3) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "mcchunk chunk: too many arguments\n");
            return MC_EXIT_USAGE;
        }
    }
    if (blocks && all && npos == 1)
        return blocks_all(pos[0], ids, version, every);
    int32_t x, z;
    if (npos != 3 || !parse_i32(pos[1], &x) || !parse_i32(pos[2], &z)) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (!blocks && (!version || !outfile)) {
        fprintf(stderr, "mcchunk chunk convert: needs --to-version V and -o FILE\n");
        return MC_EXIT_USAGE;
    }
    mc_column *col = NULL;
    int rc = mc_tool_load_column("mcchunk chunk", pos[0], dimension, x, z, &col);
    if (rc == MC_EXIT_OK)
        rc = blocks ? cmd_blocks(col, ids, version, every) : cmd_convert(col, version, outfile);
    mc_column_free(col);
    return rc;
}
