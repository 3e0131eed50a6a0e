/* cmd_generate.c: `mcchunk generate`, the built-in world of `mcchunk serve`
 * printed column by column, optionally translated to another version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "mcchunk/chunk.h"
#include "mcchunk/registry.h"
#include "mcchunk/translate.h"
#include "server/terrain.h"

static void help(FILE *out)
{
    fputs("usage: mcchunk generate X Z [--seed N] [--version V] [--ids] [--all]\n\n"
          "Prints chunk column X Z (chunk coordinates) of the built-in world that\n"
          "`mcchunk serve` serves, one line per non-air block, `x y z state`, in\n"
          "absolute coordinates ordered by y, then z, then x, like `mcchunk chunk blocks`.\n"
          "  --seed N     world seed (default 20260101, the server's default)\n"
          "  --version V  translate to version V's registry first (default 26.1)\n"
          "  --ids        print numeric state ids (before 1.13: id<<4|meta)\n"
          "  --all        print air too\n",
          out);
}

int mc_cmd_generate(int argc, char **argv)
{
    const char *version = NULL;
    unsigned long long seed = 20260101;
    bool ids = false, all = false;
    int npos = 0;
    long pos[2] = {0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(argv[i], "--ids")) {
            ids = true;
        } else if (!strcmp(argv[i], "--all")) {
            all = true;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--version") && i + 1 < argc) {
            version = argv[++i];
        } else if (npos < 2 && (argv[i][0] == '-' ? argv[i][1] >= '0' && argv[i][1] <= '9' : 1)) {
            char *end;
            pos[npos++] = strtol(argv[i], &end, 10);
            if (*end) {
                help(stderr);
                return MC_EXIT_USAGE;
            }
        } else {
            help(stderr);
            return MC_EXIT_USAGE;
        }
    }
    if (npos != 2) {
        help(stderr);
        return MC_EXIT_USAGE;
    }
    const mc_registry *world = mc_registry_find("26.1");
    const mc_registry *target = version ? mc_registry_find(version) : world;
    if (!world || !target) {
        fprintf(stderr, "mcchunk generate: unknown version '%s'\n", version ? version : "26.1");
        return MC_EXIT_USAGE;
    }
    mc_terrain *t = mc_terrain_new(world, seed);
    uint32_t *blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
    uint32_t *biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    mc_column *col = t && blocks && biomes ? mc_terrain_column(t, (int32_t)pos[0], (int32_t)pos[1], blocks, biomes) : NULL;
    int rc = MC_EXIT_FAIL;
    mc_error err;
    mc_error_clear(&err);
    mc_column *out = col && target != world ? mc_column_translate(col, target, NULL, &err) : NULL;
    const mc_column *show = target != world ? out : col;
    if (show) {
        rc = mc_tool_print_blocks(show, NULL, ids, 0, all);
    } else {
        fprintf(stderr, "mcchunk generate: %s\n", err.message[0] ? err.message : "out of memory");
    }
    mc_column_free(out);
    mc_column_free(col);
    mc_terrain_free(t);
    free(blocks);
    free(biomes);
    return rc;
}
