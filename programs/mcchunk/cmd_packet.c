/*
 * cmd_packet.c: `mcchunk packet encode|decode`, the Java chunk packet codecs
 * from the command line.
 *
 *   encode  writes the Chunk Data packet (packet id varint + body, no length
 *           prefix, no compression) of version V for one chunk of a region
 *           file or world folder (translated to V's registry as needed), or
 *           for a generated test column (--generated SEED); for 1.14-1.17
 *           also the Update Light packet (--light-out); for 1.8-1.9.2 the
 *           Update Sign / Update Block Entity packets that carry its block
 *           entities after it (--block-entities-out, each length-prefixed).
 *   decode  reads such a packet (and --light) and prints its blocks as
 *           `mcchunk chunk blocks` does: "x y z state" per non-air block,
 *           absolute coordinates, ordered by y, z, x, states with sorted
 *           properties (or ids with --ids); --info prints the packet's fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "tool_common.h"
#include "chunk_gen.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk packet encode --version V (--from PATH --chunk X,Z | --generated SEED)\n"
            "                             -o FILE [--light-out FILE] [--block-entities-out FILE]\n"
            "                             [--dimension DIM] [--min-y N --height N] [--registry V2]\n"
            "       mcchunk packet decode --version V FILE [--light FILE] [--min-y N --height N]\n"
            "                             [--ids] [--info] [--lenient]\n"
            "\n"
            "encode writes the Chunk Data packet of release V (packet id varint + body; no\n"
            "length prefix, no compression) for chunk X,Z of a region file or world folder,\n"
            "translated to V's blocks and biomes; for 1.14-1.17 --light-out also writes the\n"
            "Update Light packet. For 1.8-1.9.2, whose Chunk Data has no block entities,\n"
            "--block-entities-out writes the packets that carry them after it (Update Sign,\n"
            "Update Block Entity; in V's form), each preceded by its length as a varint (an\n"
            "uncompressed frame); the file is empty for other versions. --generated SEED encodes a random test column instead (in\n"
            "V's registry, or --registry V2's, at --min-y/--height or the era's default;\n"
            "--chunk sets its position). X,Z are absolute chunk coordinates in\n"
            "-1875000..1875000; a region file must hold the chunk. A chunk whose height\n"
            "differs from the target's dimension (--min-y/--height, multiples of 16;\n"
            "default 0..255 before 1.18, -64..319 from 1.18) is cut or extended with air\n"
            "to it; how many blocks the cut drops is said on stderr. Writes FILE only.\n"
            "decode prints one line per non-air block, 'x y z state', ordered by y, z, x,\n"
            "properties sorted by name (--ids: the numeric state id; before 1.13 id<<4|meta).\n"
            "From 1.18 the dimension defaults to the overworld (-64, 384). --info prints the\n"
            "packet's fields, palettes and sizes instead. Decoding is strict (rejects what a\n"
            "vanilla server would not send) unless --lenient (accepts what the client does).\n"
            "\n"
            "exit status: 0 ok, 1 failure (absent chunk, chunk not in the region file, bad\n"
            "packet, cannot write FILE), 2 usage error (bad option or number, unknown\n"
            "version, coordinates outside the world)\n");
}

/* mc_java_encode_column_packets' packets by kind: Chunk Data, Update
 * Light (1.14-1.17), and the block entity packets (1.8-1.9.2), framed. */
typedef struct sorted_packets {
    mc_buf *chunk, *light, *block_entities;
    uint32_t protocol;
    unsigned seen;
} sorted_packets;

static mc_status sort_packet(void *user, const uint8_t *packet, size_t len)
{
    sorted_packets *sp = user;
    if (sp->seen++ == 0) {
        mc_buf_put(sp->chunk, packet, len);
        return mc_buf_ok(sp->chunk) ? MC_OK : MC_ERR_NOMEM;
    }
    mc_reader r;
    mc_reader_init(&r, packet, len, NULL, NULL);
    const int32_t id = mc_read_varint(&r);
    const char *name = mc_java_packet_name(sp->protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, id);
    if (name && !strcmp(name, "update_light")) {
        mc_buf_put(sp->light, packet, len);
        return mc_buf_ok(sp->light) ? MC_OK : MC_ERR_NOMEM;
    }
    return mc_java_frame_write(sp->block_entities, packet, len, -1, NULL, NULL);
}

static bool version_protocol(const char *v, uint32_t *protocol)
{
    mc_version_info vi;
    if (!mc_java_version_find(v, &vi) || vi.protocol < 47)
        return false;
    *protocol = (uint32_t)vi.protocol;
    return true;
}

/* --min-y: a multiple of 16 in -2032..2016 (the game's dimension limits);
 * --height: a multiple of 16 in 16..4064. */
static bool parse_min_y(const char *prog, const char *v, int32_t *out)
{
    if (!mc_tool_parse_i32(prog, "--min-y", v, -2032, 2016, out))
        return false;
    if (*out % 16) {
        fprintf(stderr, "%s: --min-y must be a multiple of 16 in -2032..2016, not '%s'\n", prog, v);
        return false;
    }
    return true;
}

static bool parse_height(const char *prog, const char *v, int32_t *out)
{
    if (!mc_tool_parse_i32(prog, "--height", v, 16, 4064, out))
        return false;
    if (*out % 16) {
        fprintf(stderr, "%s: --height must be a multiple of 16 in 16..4064, not '%s'\n", prog, v);
        return false;
    }
    return true;
}

static int cmd_encode(int argc, char **argv)
{
    static const char prog[] = "mcchunk packet encode";
    const char *version = NULL, *from = NULL, *outp = NULL, *lightp = NULL, *dim = NULL,
               *regv = NULL, *bep = NULL;
    int32_t cx = 0, cz = 0, min_y = 0, height = 0;
    bool have_chunk = false, have_gen = false, have_min = false, have_h = false;
    uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
        if (!v) {
            fprintf(stderr, "mcchunk packet encode: %s needs a value\n", a);
            return MC_EXIT_USAGE;
        }
        i++;
        if (!strcmp(a, "--version"))
            version = v;
        else if (!strcmp(a, "--from"))
            from = v;
        else if (!strcmp(a, "-o"))
            outp = v;
        else if (!strcmp(a, "--light-out"))
            lightp = v;
        else if (!strcmp(a, "--block-entities-out"))
            bep = v;
        else if (!strcmp(a, "--dimension"))
            dim = v;
        else if (!strcmp(a, "--registry"))
            regv = v;
        else if (!strcmp(a, "--chunk")) {
            if (!mc_tool_parse_chunk_pair(prog, "--chunk", v, &cx, &cz))
                return MC_EXIT_USAGE;
            have_chunk = true;
        } else if (!strcmp(a, "--generated")) {
            if (!mc_tool_parse_seed(prog, "--generated", v, &seed))
                return MC_EXIT_USAGE;
            have_gen = true;
        } else if (!strcmp(a, "--min-y")) {
            if (!parse_min_y(prog, v, &min_y))
                return MC_EXIT_USAGE;
            have_min = true;
        } else if (!strcmp(a, "--height")) {
            if (!parse_height(prog, v, &height))
                return MC_EXIT_USAGE;
            have_h = true;
        } else {
            fprintf(stderr, "mcchunk packet encode: unknown option %s\n", a);
            return MC_EXIT_USAGE;
        }
    }
    uint32_t protocol;
    if (!version) {
        fprintf(stderr, "%s: --version V is required\n", prog);
        return MC_EXIT_USAGE;
    }
    if (!version_protocol(version, &protocol))
        return mc_tool_unknown_version(prog, version);
    if (!outp || (!from && !have_gen) || (from && !have_chunk) || (from && have_gen)) {
        fprintf(stderr, "%s: needs -o FILE and either --from PATH --chunk X,Z or --generated SEED\n\n", prog);
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (regv && !have_gen) {
        fprintf(stderr, "%s: --registry is for --generated\n", prog);
        return MC_EXIT_USAGE;
    }
    /* the overworld a client of the target assumes, unless --min-y/--height */
    int32_t def_min = 0;
    uint32_t def_h = 256;
    mc_error herr;
    if (mc_java_default_height(protocol, &def_min, &def_h, &herr) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, herr.message);
        return MC_EXIT_USAGE;
    }
    mc_column *col;
    if (have_gen) {
        const mc_registry *reg = regv ? mc_registry_find(regv) : mc_registry_find_protocol((int32_t)protocol);
        if (regv && !reg) {
            mc_version_info vi;
            if (mc_java_version_find(regv, &vi))
                reg = vi.registry;
        }
        if (!reg)
            return regv ? mc_tool_unknown_version(prog, regv)
                        : (fprintf(stderr, "%s: no registry for %s\n", prog, version), MC_EXIT_FAIL);
        if (!have_min)
            min_y = def_min;
        if (!have_h)
            height = (int32_t)def_h;
        col = mc__gen_column(reg, seed, cx, cz, min_y / 16, (uint32_t)height / 16);
    } else {
        int lrc = mc_tool_load_column(prog, from, dim, cx, cz, &col);
        if (lrc)
            return lrc;
    }
    if (!col)
        return MC_EXIT_FAIL;
    /* A chunk of another height than the target's dimension (--min-y/--height,
     * else 0..255 before 1.18 and -64..319 from 1.18): reshaped to it, and the
     * blocks that do not fit are counted on stderr. */
    if (!have_gen) {
        int32_t want_min = have_min ? min_y : def_min;
        int32_t want_h = have_h ? height : (int32_t)def_h;
        if (mc_tool_fit_height(prog, version, &col, want_min, want_h) != MC_EXIT_OK)
            return MC_EXIT_FAIL;
    }
    mc_buf out, light;
    mc_buf_init(&out, NULL);
    mc_buf_init(&light, NULL);
    mc_error err;
    mc_error_clear(&err);
    int rc = MC_EXIT_OK;
    mc_buf bes;
    mc_buf_init(&bes, NULL);
    sorted_packets sp = {&out, &light, &bes, protocol, 0};
    if (mc_java_encode_column_packets(col, protocol, sort_packet, &sp, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        rc = MC_EXIT_FAIL;
    } else if (!mc_tool_write_output(prog, outp, out.data, out.len) ||
               (lightp && light.len && !mc_tool_write_output(prog, lightp, light.data, light.len)) ||
               (bep && !mc_tool_write_output(prog, bep, bes.data ? bes.data : (const uint8_t *)"", bes.len))) {
        rc = MC_EXIT_FAIL;
    } else if (lightp && !light.len) {
        /* 1.8-1.13 and 1.18+: the light is in the Chunk Data packet */
        remove(lightp);
    }
    mc_buf_free(&out);
    mc_buf_free(&light);
    mc_buf_free(&bes);
    mc_column_free(col);
    return rc;
}

static const char *kind_name(const mc_container *c)
{
    return c->kind == MC_CONTAINER_SINGLE ? "single" : c->kind == MC_CONTAINER_INDIRECT ? "indirect"
                                                                                       : "direct";
}

static void print_info(const mc_column *col, const mc_java_chunk_info *info, uint32_t protocol,
                       size_t len)
{
    printf("protocol %u packet 0x%02x length %zu\n", protocol, (unsigned)info->packet_id, len);
    printf("chunk %d %d full %s%s\n", (int)info->x, (int)info->z, info->full ? "true" : "false",
           info->unload ? " (unload)" : "");
    if (protocol < 757)
        printf("mask 0x%llx sections %u%s\n", (unsigned long long)info->mask, info->sections_sent,
               protocol <= 404 ? (info->sky_light ? " sky light" : " no sky light") : "");
    else
        printf("sections %u (min y %d)\n", info->sections_sent, (int)mc_column_min_y(col));
    printf("data size %zu used %zu\n", info->data_size, info->data_used);
    printf("heightmaps");
    for (int t = 0; t < MC_HEIGHTMAP_COUNT; t++)
        if (info->heightmaps & (1u << t))
            printf(" %s", mc_heightmap_name((mc_heightmap_type)t));
    printf("\nblock entities %u\n", info->block_entities);
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)i);
        size_t bl, ml;
        unsigned blocks, fluids;
        mc_section_counts(s, mc_column_registry(col), &blocks, &fluids);
        mc_container_palette(&s->blocks, &bl);
        mc_container_palette(&s->biomes, &ml);
        printf("section %d blocks %s bits %u palette %zu count %u fluids %u biomes %s bits %u palette "
               "%zu light%s%s\n",
               (int)(mc_column_min_section(col) + (int32_t)i), kind_name(&s->blocks),
               mc_container_bits(&s->blocks), bl, blocks, fluids, kind_name(&s->biomes),
               mc_container_bits(&s->biomes), ml, s->block_light ? " block" : "",
               s->sky_light ? " sky" : "");
    }
}


static int cmd_decode(int argc, char **argv)
{
    const char *version = NULL, *file = NULL, *lightp = NULL;
    bool ids = false, info_only = false, have_min = false, have_h = false;
    int32_t min_y = 0, height = 0;
    mc_java_decode_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--ids")) {
            ids = true;
        } else if (!strcmp(a, "--info")) {
            info_only = true;
        } else if (!strcmp(a, "--lenient")) {
            o.lenient = true;
        } else if (a[0] == '-' && a[1]) {
            if (!v) {
                fprintf(stderr, "mcchunk packet decode: %s needs a value\n", a);
                return MC_EXIT_USAGE;
            }
            i++;
            if (!strcmp(a, "--version"))
                version = v;
            else if (!strcmp(a, "--light"))
                lightp = v;
            else if (!strcmp(a, "--min-y")) {
                if (!parse_min_y("mcchunk packet decode", v, &min_y))
                    return MC_EXIT_USAGE;
                have_min = true;
            } else if (!strcmp(a, "--height")) {
                if (!parse_height("mcchunk packet decode", v, &height))
                    return MC_EXIT_USAGE;
                have_h = true;
            } else {
                fprintf(stderr, "mcchunk packet decode: unknown option %s\n", a);
                return MC_EXIT_USAGE;
            }
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "mcchunk packet decode: too many arguments\n");
            return MC_EXIT_USAGE;
        }
    }
    uint32_t protocol;
    if (!version) {
        fprintf(stderr, "mcchunk packet decode: --version V is required\n");
        return MC_EXIT_USAGE;
    }
    if (!version_protocol(version, &protocol))
        return mc_tool_unknown_version("mcchunk packet decode", version);
    if (!file) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (have_min || have_h) {
        o.has_height = true;
        int32_t def_min = 0;
        uint32_t def_h = 256;
        mc_error derr;
        if (mc_java_default_height(protocol, &def_min, &def_h, &derr) != MC_OK) {
            fprintf(stderr, "mcchunk packet decode: %s\n", derr.message);
            return MC_EXIT_USAGE;
        }
        o.min_y = have_min ? min_y : def_min;
        o.height = have_h ? (uint32_t)height : def_h;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    mc_error err;
    mc_error_clear(&err);
    if (mc_read_file(file, NULL, &data, &len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk packet decode: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    mc_column *col = NULL;
    mc_java_chunk_info info;
    int rc = MC_EXIT_OK;
    if (mc_java_decode_chunk(data, len, protocol, &o, &col, &info, &err) != MC_OK) {
        fprintf(stderr, "mcchunk packet decode: %s\n", err.message);
        rc = MC_EXIT_FAIL;
    }
    free(data);
    if (rc == MC_EXIT_OK && lightp) {
        uint8_t *ld = NULL;
        size_t ll = 0;
        if (mc_read_file(lightp, NULL, &ld, &ll, &err) != MC_OK ||
            mc_java_decode_update_light(ld, ll, protocol, &o, col, NULL, NULL, &err) != MC_OK) {
            fprintf(stderr, "mcchunk packet decode: light: %s\n", err.message);
            rc = MC_EXIT_FAIL;
        }
        free(ld);
    }
    if (rc == MC_EXIT_OK)
        rc = info_only ? (print_info(col, &info, protocol, len), MC_EXIT_OK) : mc_tool_print_blocks(col, NULL, ids, 0, false);
    mc_column_free(col);
    return rc;
}

int mc_cmd_packet(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? MC_EXIT_USAGE : MC_EXIT_OK;
    }
    if (!strcmp(argv[1], "encode"))
        return cmd_encode(argc - 1, argv + 1);
    if (!strcmp(argv[1], "decode"))
        return cmd_decode(argc - 1, argv + 1);
    fprintf(stderr, "mcchunk packet: unknown subcommand %s\n", argv[1]);
    usage(stderr);
    return MC_EXIT_USAGE;
}
