/*
 * cmd_chunk.c: `mcchunk chunk get|put`, one chunk record of a region file or
 * of a world, by absolute chunk coordinates.
 *
 * PATH is a region file, which must hold chunk X Z (its name says which
 * region it is; tool_common.c checks), or a world folder, where --dimension
 * and --kind pick the region folder (both world layouts, see
 * mcchunk/anvil.h). get prints the chunk's NBT as SNBT (default) or JSON,
 * or with --raw writes the decompressed payload bytes to stdout. put reads
 * an uncompressed NBT payload from FILE (- for stdin), checks that it parses
 * and that the position it names (xPos/zPos, or Level.xPos/zPos) is X Z --
 * or rewrites it with --relocate -- and writes it crash-safely with the
 * chosen compression, creating the region file when needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "tool_common.h"

int mc_chunk_model_cmd(int argc, char **argv); /* chunk blocks|convert: programs/mcchunk/chunk_blocks.c */
#include "mcchunk/anvil.h"
#include "mcchunk/nbt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk chunk get PATH X Z [--snbt|--json|--raw] [options]\n"
            "       mcchunk chunk put PATH X Z FILE [--compression zlib|gzip|lz4|none] [--relocate] [options]\n"
            "       mcchunk chunk blocks|convert ...   (mcchunk chunk blocks --help)\n"
            "\n"
            "PATH is a region file (r.RX.RZ.mca) or a world folder; X Z are absolute chunk\n"
            "coordinates, within -1875000..1875000 (for a region file whose name is not\n"
            "r.RX.RZ.mca, local 0..31); a region file must hold the chunk, a world folder\n"
            "reads the region file that does.\n"
            "  get   prints the chunk: --snbt (default, indented), --json, or --raw (the\n"
            "        decompressed NBT bytes, to stdout); nothing on stdout on failure\n"
            "  put   writes FILE (uncompressed NBT; - reads stdin) as the chunk, compressed\n"
            "        with --compression (default zlib); creates the region file if absent.\n"
            "        The write is crash-safe: the old or the new chunk, never a mix.\n"
            "        A chunk whose xPos/zPos (or Level.xPos/zPos) name another chunk is\n"
            "        refused, unless --relocate, which rewrites them to X Z.\n"
            "options:\n"
            "  --dimension DIM   with a world: minecraft:overworld (default), the_nether,\n"
            "                    the_end, or any namespace:path\n"
            "  --kind KIND       with a world: region (default), entities or poi\n"
            "\n"
            "exit status: 0 ok, 1 failure (absent chunk, chunk not in the region file,\n"
            "bad data, position mismatch, I/O), 2 usage error (bad option, coordinates\n"
            "that are not integers or lie outside the world)\n");
}

/* The position a chunk's NBT names: xPos/zPos at the root (1.18+) or in
 * Level (before). NULL tags when it names none. */
static void chunk_position(mc_nbt_doc *doc, mc_nbt_tag **xt, mc_nbt_tag **zt)
{
    mc_nbt_tag *root = mc_nbt_doc_root(doc);
    int32_t v;
    *xt = mc_nbt_get(root, "xPos");
    *zt = mc_nbt_get(root, "zPos");
    if (mc_nbt_get_int(*xt, &v) == MC_OK && mc_nbt_get_int(*zt, &v) == MC_OK)
        return;
    mc_nbt_tag *level = mc_nbt_get(root, "Level");
    *xt = mc_nbt_get(level, "xPos");
    *zt = mc_nbt_get(level, "zPos");
    if (mc_nbt_get_int(*xt, &v) != MC_OK || mc_nbt_get_int(*zt, &v) != MC_OK)
        *xt = *zt = NULL;
}

/* put: reads FILE, checks that it is Java NBT naming chunk (x, z) (or
 * rewrites the position with --relocate) and writes it. */
static int put_chunk(mc_region *r, const char *file, int32_t x, int32_t z, int lx, int lz, mc_compression comp,
                     bool relocate)
{
    static const char prog[] = "mcchunk chunk put";
    uint8_t *data = NULL;
    size_t len = 0;
    if (!mc_tool_read_input(prog, file, &data, &len))
        return MC_EXIT_FAIL;
    mc_error err;
    mc_error_clear(&err);
    int rc = MC_EXIT_OK;
    mc_buf moved;
    mc_buf_init(&moved, NULL);
    const uint8_t *payload = data;
    size_t payload_len = len;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *xt = NULL, *zt = NULL;
    int32_t nx = x, nz = z;
    if (!doc || mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, &err) != MC_OK) {
        fprintf(stderr, "%s: %s is not uncompressed Java NBT: %s\n", prog, file, doc ? err.message : "out of memory");
        rc = MC_EXIT_FAIL;
    } else {
        chunk_position(doc, &xt, &zt);
        if (xt) {
            mc_nbt_get_int(xt, &nx);
            mc_nbt_get_int(zt, &nz);
        }
    }
    if (rc == MC_EXIT_OK && (nx != x || nz != z)) {
        if (!relocate) {
            fprintf(stderr, "%s: %s names chunk %d %d, not %d %d: nothing written (--relocate rewrites its "
                            "position)\n", prog, file, (int)nx, (int)nz, (int)x, (int)z);
            rc = MC_EXIT_FAIL;
        } else if (mc_nbt_set_int(xt, x) != MC_OK || mc_nbt_set_int(zt, z) != MC_OK ||
                   mc_nbt_write(doc, MC_NBT_JAVA, &moved, &err) != MC_OK) {
            fprintf(stderr, "%s: cannot relocate %s: %s\n", prog, file, err.message);
            rc = MC_EXIT_FAIL;
        } else {
            payload = moved.data;
            payload_len = moved.len;
            fprintf(stderr, "%s: relocated from chunk %d %d to %d %d\n", prog, (int)nx, (int)nz, (int)x, (int)z);
        }
    }
    if (rc == MC_EXIT_OK && mc_region_write_chunk(r, lx, lz, payload, payload_len, comp, 0, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        rc = MC_EXIT_FAIL;
    }
    mc_buf_free(&moved);
    mc_nbt_doc_free(doc);
    free(data);
    return rc;
}

int mc_cmd_chunk(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? MC_EXIT_USAGE : MC_EXIT_OK;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "blocks") || !strcmp(sub, "convert"))
        return mc_chunk_model_cmd(argc, argv); /* programs/mcchunk/chunk_blocks.c */
    bool get = !strcmp(sub, "get"), put = !strcmp(sub, "put");
    if (!get && !put) {
        fprintf(stderr, "mcchunk chunk: unknown subcommand '%s'\n\n", sub);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    const char *pos[4];
    int npos = 0;
    const char *dimension = "minecraft:overworld";
    mc_region_kind kind = MC_REGION_KIND_REGION;
    mc_compression comp = MC_COMPRESSION_ZLIB;
    enum { OUT_SNBT, OUT_JSON, OUT_RAW } out = OUT_SNBT;
    bool relocate = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--snbt")) {
            out = OUT_SNBT;
        } else if (!strcmp(a, "--json")) {
            out = OUT_JSON;
        } else if (!strcmp(a, "--raw")) {
            out = OUT_RAW;
        } else if (!strcmp(a, "--relocate") && put) {
            relocate = true;
        } else if (!strcmp(a, "--dimension") || !strcmp(a, "--kind") ||
                   !strcmp(a, "--compression")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mcchunk chunk: %s needs a value\n", a);
                return MC_EXIT_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--dimension")) {
                dimension = v;
            } else if (!strcmp(a, "--kind")) {
                if (!strcmp(v, "region")) kind = MC_REGION_KIND_REGION;
                else if (!strcmp(v, "entities")) kind = MC_REGION_KIND_ENTITIES;
                else if (!strcmp(v, "poi")) kind = MC_REGION_KIND_POI;
                else {
                    fprintf(stderr, "mcchunk chunk: --kind is region, entities or poi\n");
                    return MC_EXIT_USAGE;
                }
            } else if (!mc_compression_parse(v, &comp)) {
                fprintf(stderr, "mcchunk chunk: --compression is zlib, gzip, lz4 or none\n");
                return MC_EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
            fprintf(stderr, "mcchunk chunk: unknown option %s\n", a);
            return MC_EXIT_USAGE;
        } else if (npos < 4) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "mcchunk chunk: too many arguments\n");
            return MC_EXIT_USAGE;
        }
    }
    char prog[32];
    snprintf(prog, sizeof prog, "mcchunk chunk %s", sub);
    if (npos != (get ? 3 : 4)) {
        fprintf(stderr, "%s: needs PATH X Z%s\n", prog, get ? "" : " FILE");
        return MC_EXIT_USAGE;
    }
    int32_t x, z;
    if (!mc_tool_parse_chunk(prog, "X", pos[1], &x) || !mc_tool_parse_chunk(prog, "Z", pos[2], &z))
        return MC_EXIT_USAGE;

    /* Find the region file and local coordinates (checked: the file holds the chunk). */
    char path[4096];
    int lx = 0, lz = 0;
    int rc = mc_tool_locate_chunk(prog, pos[0], dimension, kind, x, z, put, path, sizeof path, &lx, &lz);
    if (rc)
        return rc;
    mc_error err;
    mc_error_clear(&err);
    mc_region_options opt = {0};
    opt.writable = put;
    opt.create = put;
    mc_region *r = NULL;
    if (mc_region_open(path, &opt, &r, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return MC_EXIT_FAIL;
    }
    if (put) {
        rc = put_chunk(r, pos[3], x, z, lx, lz, comp, relocate);
        mc_region_close(r);
        return rc;
    }

    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_region_record rec;
    if (mc_region_read_chunk(r, lx, lz, &nbt, &rec, &err) != MC_OK) {
        mc_tool_chunk_error(prog, x, z, path, &err);
        rc = MC_EXIT_FAIL;
    } else if (out == OUT_RAW) {
        if (fwrite(nbt.data, 1, nbt.len, stdout) != nbt.len)
            rc = MC_EXIT_FAIL;
    } else {
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        mc_buf text;
        mc_buf_init(&text, NULL);
        if (!doc || mc_nbt_parse(doc, nbt.data, nbt.len, MC_NBT_JAVA, NULL, &err) != MC_OK) {
            fprintf(stderr, "mcchunk chunk get: chunk NBT unreadable: %s\n",
                    doc ? err.message : "out of memory");
            rc = MC_EXIT_FAIL;
        } else if ((out == OUT_JSON ? mc_nbt_to_json(mc_nbt_doc_root(doc), MC_NBT_PRINT_PRETTY, &text)
                                    : mc_nbt_to_snbt(mc_nbt_doc_root(doc), MC_NBT_PRINT_PRETTY, &text)) != MC_OK) {
            fprintf(stderr, "mcchunk chunk get: cannot print the chunk\n");
            rc = MC_EXIT_FAIL;
        } else {
            fwrite(text.data, 1, text.len, stdout);
            fputc('\n', stdout);
        }
        mc_buf_free(&text);
        mc_nbt_doc_free(doc);
    }
    mc_buf_free(&nbt);
    mc_region_close(r);
    return rc;
}
