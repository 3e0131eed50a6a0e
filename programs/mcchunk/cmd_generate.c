/* cmd_generate.c: `mcchunk generate`, the built-in world of `mcchunk serve`
 * printed column by column, optionally translated to another version, with
 * the light the server sends (--light). */
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
    fputs("usage: mcchunk generate X Z [--seed N] [--version V] [--ids] [--all] [--light]\n\n"
          "Prints chunk column X Z (chunk coordinates, -1875000..1875000) of the built-in\n"
          "world that `mcchunk serve` serves, one line per non-air block, `x y z state`,\n"
          "in absolute coordinates ordered by y, then z, then x, like `mcchunk chunk blocks`.\n"
          "  --seed N     world seed, a 64-bit integer (default 20260101, the server's)\n"
          "  --version V  translate to Java release V's registry first (default 26.1); a\n"
          "               release before 1.18 drops the blocks outside y 0..255 and says\n"
          "               how many on stderr\n"
          "  --ids        print numeric state ids (before 1.13: id<<4|meta)\n"
          "  --all        print air too\n"
          "  --light      add the block's sky light and block light (0..15), as the server\n"
          "               sends them: `x y z state sky block`\n"
          "exit status: 0 ok, 1 failure, 2 usage error (bad option, unknown version,\n"
          "coordinates that are not integers or lie outside the world)\n",
          out);
}

/* The lines of mc_tool_print_blocks with the block's sky and block light
 * appended (a column without an array of one: 0). */
static int print_with_light(const mc_column *col, bool ids, bool all)
{
    const mc_registry *reg = mc_column_registry(col);
    const int32_t bx = mc_column_x(col) * 16, bz = mc_column_z(col) * 16;
    char name[512];
    for (uint32_t si = 0; si < mc_column_section_count(col); si++) {
        const int32_t sy = mc_column_min_section(col) + (int32_t)si;
        const mc_section *s = mc_column_section_const(col, sy);
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            const uint32_t v = mc_container_get(&s->blocks, i);
            if (!all && ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == mc_registry_air(reg)))
                continue;
            if (ids)
                snprintf(name, sizeof name, "%u", v);
            else if (!mc_registry_format_state(reg, v, name, sizeof name, MC_FORMAT_SORTED))
                snprintf(name, sizeof name, "#%u", v);
            printf("%d %d %d %s %u %u\n", (int)(bx + (int32_t)(i & 15)), (int)(sy * 16 + (int32_t)(i >> 8)),
                   (int)(bz + (int32_t)((i >> 4) & 15)), name, s->sky_light ? mc_light_get(s->sky_light, i) : 0u,
                   s->block_light ? mc_light_get(s->block_light, i) : 0u);
        }
    }
    return ferror(stdout) ? MC_EXIT_FAIL : MC_EXIT_OK;
}

int mc_cmd_generate(int argc, char **argv)
{
    static const char prog[] = "mcchunk generate";
    const char *version = NULL;
    uint64_t seed = 20260101;
    bool ids = false, all = false, light = false;
    int npos = 0;
    const char *pos[2] = {NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--ids")) {
            ids = true;
        } else if (!strcmp(a, "--all")) {
            all = true;
        } else if (!strcmp(a, "--light")) {
            light = true;
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--version")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, a);
                return MC_EXIT_USAGE;
            }
            if (!strcmp(a, "--version"))
                version = argv[++i];
            else if (!mc_tool_parse_seed(prog, "--seed", argv[++i], &seed))
                return MC_EXIT_USAGE;
        } else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
            fprintf(stderr, "%s: unknown option %s\n\n", prog, a);
            help(stderr);
            return MC_EXIT_USAGE;
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            fprintf(stderr, "%s: too many arguments\n", prog);
            return MC_EXIT_USAGE;
        }
    }
    if (npos != 2) {
        help(stderr);
        return MC_EXIT_USAGE;
    }
    int32_t cx, cz;
    if (!mc_tool_parse_chunk(prog, "X", pos[0], &cx) || !mc_tool_parse_chunk(prog, "Z", pos[1], &cz))
        return MC_EXIT_USAGE;
    const mc_registry *world = mc_registry_find("26.1");
    bool before_1_18 = false;
    const mc_registry *target = version ? mc_tool_java_registry(version, &before_1_18) : world;
    if (!target)
        return mc_tool_unknown_version(prog, version);
    if (!world) {
        fprintf(stderr, "%s: the 26.1 registry is missing\n", prog);
        return MC_EXIT_FAIL;
    }
    srv_terrain *t = srv_terrain_new(world, seed);
    uint32_t *blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
    uint32_t *biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    mc_column *col = t && blocks && biomes ? srv_terrain_column(t, cx, cz, blocks, biomes) : NULL;
    int rc = MC_EXIT_FAIL;
    mc_error err;
    mc_error_clear(&err);
    mc_column *out = col && target != world ? mc_column_translate(col, target, NULL, &err) : NULL;
    if (out && before_1_18 && mc_tool_fit_height(prog, version, &out, 0, 256) != MC_EXIT_OK)
        out = NULL; /* (freed; the message is printed) */
    const mc_column *show = target != world ? out : col;
    if (show) {
        rc = light ? print_with_light(show, ids, all) : mc_tool_print_blocks(show, NULL, ids, 0, all);
    } else if (!before_1_18 || err.message[0]) {
        fprintf(stderr, "%s: %s\n", prog, err.message[0] ? err.message : "out of memory");
    }
    mc_column_free(out);
    mc_column_free(col);
    srv_terrain_free(t);
    free(blocks);
    free(biomes);
    return rc;
}
