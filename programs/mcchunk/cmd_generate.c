/* cmd_generate.c: `mcchunk generate`, the built-in world of `mcchunk serve`
 * printed column by column, optionally translated to another version: a
 * Java release's registry, or (--edition bedrock) the Bedrock states a
 * Bedrock client of that release is sent, made by the same conversion the
 * server uses (the library's Java column -> Bedrock column) and read back
 * from that Bedrock column, so what is printed is what the subchunks say; with --light, the
 * light the server sends Java clients. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "mcchunk/bedrock.h"
#include "mcchunk/chunk.h"
#include "mcchunk/registry.h"
#include "mcchunk/translate.h"
#include "server/terrain.h"

static void help(FILE *out)
{
    fputs("usage: mcchunk generate X Z [--seed N] [--version V] [--edition java|bedrock] [--ids] [--all] [--light]\n\n"
          "Prints chunk column X Z (chunk coordinates, -1875000..1875000) of the built-in\n"
          "world that `mcchunk serve` serves, one line per non-air block, `x y z state`,\n"
          "in absolute coordinates ordered by y, then z, then x, like `mcchunk chunk blocks`.\n"
          "  --seed N     world seed, a 64-bit integer (default 20260101, the server's)\n"
          "  --version V  translate to Java release V's registry first (default 26.1); a\n"
          "               release before 1.18 drops the blocks outside y 0..255 and says\n"
          "               how many on stderr\n"
          "  --edition E  java (default) or bedrock: with bedrock, --version V is a Bedrock\n"
          "               release (1.16.220 ... 1.26.51, required) and the states are the\n"
          "               blocks (storage 0) of the subchunks a client of V is sent: y\n"
          "               -64..319 from 1.18.0, 0..255 before (the count of dropped blocks\n"
          "               on stderr); the water layer of waterlogged blocks is not printed\n"
          "  --ids        print numeric state ids (before 1.13: id<<4|meta; Bedrock: the\n"
          "               runtime id as an index into the version's sorted state list)\n"
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

/* The built-in world's column (cx, cz) in the world's (Java 26.1) registry,
 * or NULL (a message said why). */
static mc_column *world_column(const char *prog, int32_t cx, int32_t cz, uint64_t seed)
{
    const mc_registry *world = mc_registry_find("26.1");
    if (!world) {
        fprintf(stderr, "%s: the 26.1 registry is missing\n", prog);
        return NULL;
    }
    srv_terrain *t = srv_terrain_new(world, seed);
    uint32_t *blocks = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 4096);
    uint32_t *biomes = malloc(sizeof(uint32_t) * MC_TERRAIN_SECTIONS * 64);
    mc_column *col = t && blocks && biomes ? srv_terrain_column(t, cx, cz, blocks, biomes) : NULL;
    if (!col)
        fprintf(stderr, "%s: out of memory\n", prog);
    srv_terrain_free(t);
    free(blocks);
    free(biomes);
    return col;
}

/* --edition bedrock: the column as a Bedrock client of `version` gets it.
 * Pre-1.18 clients live in y 0..255, so the column is fitted first (as the
 * server does); then Java column -> Bedrock column (runtime ids, storages)
 * -> a column in the Bedrock registry, whose blocks are printed. */
static int generate_bedrock(int32_t cx, int32_t cz, uint64_t seed, const char *version, bool ids, bool all)
{
    static const char prog[] = "mcchunk generate";
    if (!version) {
        fprintf(stderr, "%s: --edition bedrock needs --version (a Bedrock release, e.g. 1.21.60)\n", prog);
        return MC_EXIT_USAGE;
    }
    const mc_registry *reg = mc_registry_find_bedrock(version);
    int protocol = mc_bedrock_protocol(version);
    if (!reg || protocol <= 0)
        return mc_tool_unknown_version(prog, version);
    mc_column *col = world_column(prog, cx, cz, seed);
    if (!col)
        return MC_EXIT_FAIL;
    if (protocol < MC_BEDROCK_PROTO_1_18_0 && mc_tool_fit_height(prog, version, &col, 0, 256) != MC_EXIT_OK)
        return MC_EXIT_FAIL;
    mc_error err;
    mc_error_clear(&err);
    mc_bedrock_ids map;
    mc_bedrock_column bc;
    mc_column *back = NULL;
    bool have_bc = false;
    mc_status st = mc_bedrock_ids_init(&map, mc_column_registry(col), reg, false);
    if (st == MC_OK) {
        st = mc_bedrock_column_from_mc_column(&bc, col, MC_BEDROCK_OVERWORLD, &map, NULL, &err);
        have_bc = st == MC_OK;
    }
    if (st == MC_OK)
        back = mc_bedrock_column_to_mc_column(&bc, reg, false, NULL, &err);
    int rc = MC_EXIT_FAIL;
    if (back)
        rc = mc_tool_print_blocks(back, NULL, ids, 0, all);
    else
        fprintf(stderr, "%s: %s\n", prog, err.message[0] ? err.message : "out of memory");
    mc_column_free(back);
    if (have_bc)
        mc_bedrock_column_free(&bc);
    mc_column_free(col);
    return rc;
}

int mc_cmd_generate(int argc, char **argv)
{
    static const char prog[] = "mcchunk generate";
    const char *version = NULL;
    uint64_t seed = 20260101;
    bool ids = false, all = false, light = false, bedrock = false;
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
        } else if (!strcmp(a, "--seed") || !strcmp(a, "--version") || !strcmp(a, "--edition")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, a);
                return MC_EXIT_USAGE;
            }
            if (!strcmp(a, "--version")) {
                version = argv[++i];
            } else if (!strcmp(a, "--edition")) {
                const char *e = argv[++i];
                if (strcmp(e, "java") && strcmp(e, "bedrock")) {
                    fprintf(stderr, "%s: --edition must be java or bedrock, not '%s'\n", prog, e);
                    return MC_EXIT_USAGE;
                }
                bedrock = !strcmp(e, "bedrock");
            }
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
    if (bedrock && light) {
        fprintf(stderr, "%s: --light is for Java (a Bedrock client computes its own light)\n", prog);
        return MC_EXIT_USAGE;
    }
    if (bedrock)
        return generate_bedrock(cx, cz, seed, version, ids, all);
    bool before_1_18 = false;
    const mc_registry *target = version ? mc_tool_java_registry(version, &before_1_18) : NULL;
    if (version && !target)
        return mc_tool_unknown_version(prog, version);
    mc_column *col = world_column(prog, cx, cz, seed);
    if (!col)
        return MC_EXIT_FAIL;
    const mc_registry *world = mc_column_registry(col);
    if (!target)
        target = world;
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
    return rc;
}
