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
 *       (uncompressed Java NBT; block entities translated, translate.h) and
 *       lists what the conversion dropped, block entity losses by kind,
 *       and counts the chunk's blocks by kind of approximation (exact,
 *       renamed, same shape, nearest colour, air-like, lost: the
 *       registry's MC_TRANSLATE_* bits of each block's state). A chunk
 *       stored without any light (a proto-chunk, a tool's world) is lit
 *       first by the light engine, with the neighbours PATH holds.
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
#include "mcchunk/light.h"

int mc_chunk_model_cmd(int argc, char **argv);

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk chunk blocks PATH X Z [--ids] [--version V] [--every K] [--dimension DIM]\n"
            "       mcchunk chunk blocks REGIONFILE --all [--ids] [--version V] [--every K]\n"
            "       mcchunk chunk convert PATH X Z --to-version V -o FILE [--dimension DIM]\n"
            "\n"
            "PATH is a region file or a world folder; X Z are absolute chunk coordinates\n"
            "(-1875000..1875000); a region file must hold the chunk.\n"
            "  blocks   prints 'x y z state' for every non-air block, ordered by y, z, x;\n"
            "           state is minecraft:name[k=v,...] (properties sorted), or with --ids\n"
            "           the numeric state id in the registry of --version V (default: the\n"
            "           chunk's own version; 1.8-1.12: id<<4|meta); a V before 1.18 drops\n"
            "           the blocks outside y 0..255 and says how many on stderr\n"
            "           --every K prints every K-th position (air included); --all with a\n"
            "           region file instead of X Z prints every chunk after 'chunk X Z' lines\n"
            "  convert  writes the chunk NBT for version V (uncompressed; - for stdout) to\n"
            "           FILE, block entities in V's form (sign text, banners, beds, skulls,\n"
            "           pots, note blocks, container items, spawners; with the block states\n"
            "           they decide), and lists on stderr what the conversion dropped, with\n"
            "           the block entity data V cannot hold counted by kind, then a line\n"
            "           'blocks: N exact, N renamed, N same-shape, N nearest-colour, N air-like,\n"
            "           N lost' counting the chunk's blocks by how their state was translated;\n"
            "           a chunk stored without light gets the light the game would compute\n"
            "           (from its blocks and those of the neighbours PATH holds), said on stderr\n"
            "exit status: 0 ok, 1 failure (absent chunk, chunk not in the region file, bad\n"
            "data, I/O), 2 usage error (bad option, unknown version, coordinates that are\n"
            "not integers or lie outside the world)\n");
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
static int cmd_blocks(mc_column **col, bool ids, const char *version, unsigned every)
{
    const mc_registry *out_reg = NULL;
    bool before_1_18 = false;
    if (version && !(out_reg = mc_tool_java_registry(version, &before_1_18)))
        return mc_tool_unknown_version("mcchunk chunk blocks", version);
    /* a release before 1.18 has no blocks below 0 or above 255 */
    if (before_1_18 && (mc_column_min_y(*col) < 0 || mc_column_min_y(*col) + (int32_t)mc_column_height(*col) > 256)) {
        int rc = mc_tool_fit_height("mcchunk chunk blocks", version, col, 0, 256);
        if (rc)
            return rc;
    }
    return mc_tool_print_blocks(*col, out_reg, ids, every, false);
}

/* The column's blocks counted by kind of approximation into `to`. */
static bool count_kinds(const mc_column *col, const mc_registry *to, uint64_t counts[MC_TRANSLATE_KIND_COUNT])
{
    const mc_registry *from = mc_column_registry(col);
    const uint16_t *hows = mc_registry_map_how(from, to);
    if (!hows)
        return false;
    uint32_t n = mc_registry_state_count(from);
    uint32_t vals[MC_SECTION_BLOCKS];
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)i);
        if (!s)
            continue;
        mc_container_get_all(&s->blocks, vals);
        for (size_t b = 0; b < MC_SECTION_BLOCKS; b++)
            counts[vals[b] < n ? mc_translate_kind_of(hows[vals[b]]) : MC_TRANSLATE_KIND_LOST]++;
    }
    return true;
}

/* What the conversion dropped, on stderr: the counts, what the block
 * entities could not carry by kind, then the report's lines. */
static void print_convert_report(const char *version, int32_t dv, const mc_chunknbt_report *rep)
{
    fprintf(stderr, "converted to %s (DataVersion %d): %u states inexact (%u to air), %u biomes, "
                    "%u sections, %u block entities, %u extra keys dropped\n",
            version, (int)dv, rep->states_inexact, rep->states_to_air, rep->biomes_inexact, rep->sections_dropped,
            rep->block_entities_dropped, rep->extra_dropped);
    const mc_be_report *b = &rep->block_entity_report;
    if (b->translated || b->created || b->folded) {
        fprintf(stderr, "block entities: %u translated, %u made from blocks, %u folded into blocks; not carried:",
                b->translated, b->created, b->folded);
        unsigned lost = 0;
        for (int k = 0; k < MC_BE_LOSS_COUNT; k++)
            if (b->lost[k]) {
                fprintf(stderr, "%s %u %s", lost ? "," : "", b->lost[k], mc_be_loss_name((mc_be_loss)k));
                lost += b->lost[k];
            }
        fprintf(stderr, "%s\n", lost ? "" : " nothing");
    }
    fputs(rep->text, stderr);
}

/* Chunk (x, z) of PATH if PATH holds it (a region file: its own chunks
 * only), quietly NULL otherwise: a neighbour for the light engine. */
static mc_column *neighbour(const char *path_arg, const char *dimension, int32_t cx, int32_t cz, int32_t x, int32_t z)
{
    char path[4096];
    int lx = (int)((uint32_t)x & 31), lz = (int)((uint32_t)z & 31);
    mc_error err;
    if (mc_tool_is_dir(path_arg)) {
        if (mc_world_region_path(path_arg, MC_WORLD_LAYOUT_AUTO, dimension ? dimension : "minecraft:overworld",
                                 MC_REGION_KIND_REGION, x, z, path, sizeof path, &lx, &lz, &err) != MC_OK)
            return NULL;
    } else if (((uint32_t)x >> 5) != ((uint32_t)cx >> 5) || ((uint32_t)z >> 5) != ((uint32_t)cz >> 5) ||
               (size_t)snprintf(path, sizeof path, "%s", path_arg) >= sizeof path) {
        return NULL; /* in another region file */
    }
    mc_region *r = NULL;
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    mc_column *col = NULL;
    if (mc_region_open(path, NULL, &r, &err) == MC_OK && mc_region_has_chunk(r, lx, lz) &&
        mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) == MC_OK &&
        mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &col, &err) != MC_OK)
        col = NULL;
    mc_buf_free(&nbt);
    mc_region_close(r);
    return col;
}

/* A chunk stored without any light is lit as the game would light it, from
 * its blocks and its neighbours' (those PATH holds); its isLightOn, if it
 * has one, becomes 1. Says so on stderr. */
static int light_unlit(const char *prog, mc_column *col, const char *path_arg, const char *dimension, int32_t x,
                       int32_t z)
{
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *s = mc_column_section_at(col, i);
        if (s->sky_light || s->block_light)
            return MC_EXIT_OK;
    }
    mc_column *around[8];
    const mc_column *nb[8];
    unsigned found = 0;
    for (int k = 0, n = 0; k < 9; k++)
        if (k != 4) {
            around[n] = neighbour(path_arg, dimension, x, z, x + k % 3 - 1, z + k / 3 - 1);
            nb[n] = around[n];
            found += around[n++] != NULL;
        }
    mc_light_engine *e = mc_light_engine_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    int rc = MC_EXIT_OK;
    if (!e || mc_light_column(e, col, nb, MC_LIGHT_BOTH, &err) != MC_OK) {
        fprintf(stderr, "%s: chunk %d %d: cannot light it: %s\n", prog, (int)x, (int)z,
                err.message[0] ? err.message : "out of memory");
        rc = MC_EXIT_FAIL;
    } else {
        mc_nbt_tag *extra = mc_column_extra(col), *level = extra ? mc_nbt_get(extra, "Level") : NULL;
        mc_nbt_tag *on = mc_nbt_get(level ? level : extra, "isLightOn");
        if (on)
            mc_nbt_set_byte(on, 1);
        fprintf(stderr, "%s: chunk %d %d had no light: lit from its blocks and %u neighbour%s\n", prog, (int)x,
                (int)z, found, found == 1 ? "" : "s");
    }
    mc_light_engine_free(e);
    for (int k = 0; k < 8; k++)
        mc_column_free(around[k]);
    return rc;
}

static int cmd_convert(mc_column **colp, const char *version, const char *file)
{
    int32_t dv = data_version_of(version);
    if (dv < 0)
        return mc_tool_unknown_version("mcchunk chunk convert", version);
    if (dv < 2860 && (mc_column_min_y(*colp) < 0 || mc_column_min_y(*colp) + (int32_t)mc_column_height(*colp) > 256)) {
        /* before 1.18 (DataVersion 2860) the world is y 0..255 */
        int frc = mc_tool_fit_height("mcchunk chunk convert", version, colp, 0, 256);
        if (frc)
            return frc;
    }
    mc_column *col = *colp;
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_chunknbt_report rep;
    mc_error err;
    int rc = MC_EXIT_OK;
    if (mc_chunknbt_write_bytes(col, dv, &out, &rep, &err) != MC_OK) {
        fprintf(stderr, "mcchunk chunk convert: %s\n", err.message);
        rc = MC_EXIT_FAIL;
    } else {
        if (!mc_tool_write_output("mcchunk chunk convert", file, out.data, out.len))
            rc = MC_EXIT_FAIL;
        else {
            print_convert_report(version, dv, &rep);
            uint64_t counts[MC_TRANSLATE_KIND_COUNT] = {0};
            const mc_registry *to = mc_chunknbt_registry_for(dv);
            if (to && count_kinds(col, to, counts)) {
                fprintf(stderr, "blocks:");
                for (int k = 0; k < MC_TRANSLATE_KIND_COUNT; k++)
                    fprintf(stderr, "%s %llu %s", k ? "," : "", (unsigned long long)counts[k],
                            mc_translate_kind_name((mc_translate_kind)k));
                fprintf(stderr, "\n");
            }
        }
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
            int k = cmd_blocks(&col, ids, version, every);
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
            int k = 0;
            if (!mc_tool_parse_int("mcchunk chunk", "--every", i + 1 < argc ? argv[i + 1] : "", 1, 1 << 30, &k))
                return MC_EXIT_USAGE;
            every = (unsigned)k;
            i++;
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
    const char *prog = blocks ? "mcchunk chunk blocks" : "mcchunk chunk convert";
    if (version && blocks && !mc_tool_java_registry(version, NULL))
        return mc_tool_unknown_version(prog, version);
    if (version && !blocks && data_version_of(version) < 0)
        return mc_tool_unknown_version(prog, version);
    if (all && !blocks) {
        fprintf(stderr, "%s: --all is for chunk blocks\n", prog);
        return MC_EXIT_USAGE;
    }
    if (blocks && all) {
        if (npos != 1) {
            fprintf(stderr, "%s: --all takes a region file and no X Z\n", prog);
            return MC_EXIT_USAGE;
        }
        if (mc_tool_is_dir(pos[0])) {
            fprintf(stderr, "%s: --all wants a region file; %s is a directory\n", prog, pos[0]);
            return MC_EXIT_USAGE;
        }
        return blocks_all(pos[0], ids, version, every);
    }
    if (npos != 3) {
        fprintf(stderr, "%s: needs PATH X Z\n\n", prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    int32_t x, z;
    if (!mc_tool_parse_chunk(prog, "X", pos[1], &x) || !mc_tool_parse_chunk(prog, "Z", pos[2], &z))
        return MC_EXIT_USAGE;
    if (!blocks && (!version || !outfile)) {
        fprintf(stderr, "mcchunk chunk convert: needs --to-version V and -o FILE\n");
        return MC_EXIT_USAGE;
    }
    mc_column *col = NULL;
    int rc = mc_tool_load_column(prog, pos[0], dimension, x, z, &col);
    if (rc == MC_EXIT_OK && !blocks)
        rc = light_unlit(prog, col, pos[0], dimension, x, z);
    if (rc == MC_EXIT_OK)
        rc = blocks ? cmd_blocks(&col, ids, version, every) : cmd_convert(&col, version, outfile);
    mc_column_free(col);
    return rc;
}
