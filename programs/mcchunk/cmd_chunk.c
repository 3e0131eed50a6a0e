/*
 * cmd_chunk.c: `mcchunk chunk get|put`, one chunk record of a region file or
 * of a world, by absolute chunk coordinates.
 *
 * PATH is a region file, or a world folder, where --dimension and --kind
 * pick the region folder (both world layouts, see mcchunk/anvil.h). get
 * prints the chunk's NBT as SNBT (default) or JSON, or with --raw writes the
 * decompressed payload bytes to stdout. put reads an uncompressed NBT payload
 * from FILE (- for stdin), checks that it parses, and writes it crash-safely
 * with the chosen compression, creating the region file when needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

int mc_chunk_model_cmd(int argc, char **argv); /* chunk blocks|convert: programs/mcchunk/chunk_blocks.c */
#include "mcchunk/anvil.h"
#include "mcchunk/nbt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk chunk get PATH X Z [--snbt|--json|--raw] [options]\n"
            "       mcchunk chunk put PATH X Z FILE [--compression zlib|gzip|lz4|none] [options]\n"
            "\n"
            "PATH is a region file (r.RX.RZ.mca) or a world folder; X Z are absolute chunk\n"
            "coordinates (for a region file whose name is not r.RX.RZ.mca, local 0..31).\n"
            "  get   prints the chunk: --snbt (default, indented), --json, or --raw (the\n"
            "        decompressed NBT bytes, to stdout)\n"
            "  put   writes FILE (uncompressed NBT; - reads stdin) as the chunk, compressed\n"
            "        with --compression (default zlib); creates the region file if absent.\n"
            "        The write is crash-safe: the old or the new chunk, never a mix.\n"
            "options:\n"
            "  --dimension DIM   with a world: minecraft:overworld (default), the_nether,\n"
            "                    the_end, or any namespace:path\n"
            "  --kind KIND       with a world: region (default), entities or poi\n"
            "\n"
            "exit status: 0 ok, 1 failure (absent chunk, bad data, I/O), 2 usage error\n");
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

static int32_t floor_div32(int32_t v)
{
    return v >= 0 ? v / 32 : -((-(v + 1)) / 32) - 1;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static uint8_t *read_input(const char *file, size_t *len, mc_error *err)
{
    if (strcmp(file, "-") != 0) {
        uint8_t *data = NULL;
        if (mc_read_file(file, NULL, &data, len, err) != MC_OK)
            return NULL;
        return data;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf)
        mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory reading stdin");
    *len = n;
    return buf;
}

static void free_input(const char *file, uint8_t *data, size_t len)
{
    if (!strcmp(file, "-"))
        free(data);
    else
        mc_default_allocator()->free(NULL, data, len);
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
    int32_t x, z;
    if (npos != (get ? 3 : 4) || !parse_i32(pos[1], &x) || !parse_i32(pos[2], &z)) {
        fprintf(stderr, "mcchunk chunk %s: needs PATH X Z%s (integers)\n", sub, get ? "" : " FILE");
        return MC_EXIT_USAGE;
    }

    /* Find the region file and local coordinates. */
    char path[4096];
    int lx, lz;
    mc_error err;
    mc_error_clear(&err);
    bool world = is_dir(pos[0]);
    if (world) {
        mc_status st = mc_world_region_path(pos[0], MC_WORLD_LAYOUT_AUTO, dimension, kind, x, z,
                                            path, sizeof path, &lx, &lz, &err);
        if (st == MC_ERR_INVALID_ARG) {
            fprintf(stderr, "mcchunk chunk: %s\n", err.message);
            return MC_EXIT_USAGE;
        }
        if (st && !(st == MC_ERR_NOT_FOUND && put)) {
            fprintf(stderr, "mcchunk chunk: %s\n", err.message);
            return MC_EXIT_FAIL;
        }
    } else {
        snprintf(path, sizeof path, "%s", pos[0]);
        lx = (int)((uint32_t)x & 31);
        lz = (int)((uint32_t)z & 31);
    }

    mc_region_options opt = {0};
    opt.writable = put;
    opt.create = put;
    mc_region *r = NULL;
    if (mc_region_open(path, &opt, &r, &err) != MC_OK) {
        fprintf(stderr, "mcchunk chunk: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    int32_t rx, rz;
    if (!world && mc_region_origin(r, &rx, &rz) &&
        (floor_div32(x) != rx || floor_div32(z) != rz)) {
        fprintf(stderr, "mcchunk chunk: chunk %d %d is not in region %d %d (%s)\n", (int)x,
                (int)z, (int)rx, (int)rz, path);
        mc_region_close(r);
        return MC_EXIT_FAIL;
    }

    int rc = MC_EXIT_OK;
    if (put) {
        size_t len = 0;
        uint8_t *data = read_input(pos[3], &len, &err);
        if (!data) {
            fprintf(stderr, "mcchunk chunk put: %s\n", err.message);
            mc_region_close(r);
            return MC_EXIT_FAIL;
        }
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        if (!doc || mc_nbt_parse(doc, data, len, MC_NBT_JAVA, NULL, &err) != MC_OK) {
            fprintf(stderr, "mcchunk chunk put: %s is not uncompressed Java NBT: %s\n", pos[3],
                    doc ? err.message : "out of memory");
            rc = MC_EXIT_FAIL;
        } else if (mc_region_write_chunk(r, lx, lz, data, len, comp, 0, &err) != MC_OK) {
            fprintf(stderr, "mcchunk chunk put: %s\n", err.message);
            rc = MC_EXIT_FAIL;
        }
        mc_nbt_doc_free(doc);
        free_input(pos[3], data, len);
        mc_region_close(r);
        return rc;
    }

    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_region_record rec;
    if (mc_region_read_chunk(r, lx, lz, &nbt, &rec, &err) != MC_OK) {
        fprintf(stderr, "mcchunk chunk get: %s\n", err.message);
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
