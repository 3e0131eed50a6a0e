/*
 * cmd_bedrock.c: `mcchunk bedrock`, a look inside Bedrock subchunks and chunk
 * packets.
 *
 *   mcchunk bedrock subchunk decode --version V FILE [--hashed] [--ids]
 *                                   [--layer N] [--y N] [--summary] [--check]
 *   mcchunk bedrock packet decode --version V FILE [--blocks] [--hashed]
 *                                 [--ids] [--check]
 *   mcchunk bedrock generate --version V --out DIR [--cache] [--hashed]
 *                            [--java PATH --chunk X Z]
 *   mcchunk bedrock biomes decode FILE --data3d|--data2d|--network [--check]
 *
 * Blocks print as "x y z state", one per non-air block, x and z within the
 * subchunk, y absolute; states as minecraft:name[k=v,...] with properties
 * sorted by name -- from the version's Bedrock registry for runtime ids, or
 * from the palette's NBT for disk palettes -- or, with --ids, the runtime id.
 * --check re-encodes what was decoded and fails unless the bytes are the
 * same (what the corpus tests use); --summary adds "# ..." lines (version,
 * storages, widths, block entities) before the blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mcchunk/bedrock.h"
#include "mcchunk/nbt.h"
#include "mcchunk/registry.h"
#include "mcchunk/translate.h"
#include "tool_common.h"

typedef struct opts {
    const char *version;
    int protocol;
    const mc_registry *reg;
    bool hashed, ids, blocks, check, summary;
    int layer;
    bool have_y;
    int y;
    const char *file;
    char **files;   /* every FILE argument (several: each result ends with "== FILE rc=N") */
    int nfiles;
} opts;

static void usage(FILE *f)
{
    fprintf(f, "usage: mcchunk bedrock subchunk decode --version V FILE... [--hashed] [--ids] [--layer N] [--y N]\n"
               "                                      [--summary] [--check]\n"
               "       mcchunk bedrock packet decode --version V FILE... [--blocks] [--hashed] [--ids] [--check]\n"
               "       mcchunk bedrock generate --version V --out DIR [--cache] [--hashed] [--tiny]\n"
               "                                [--java PATH --chunk X Z]\n"
               "       mcchunk bedrock biomes decode FILE --data3d|--data2d|--network [--check]\n"
               "\n"
               "V: a Bedrock version (1.21.60; `mcchunk registry --versions --edition bedrock`)\n"
               "or a protocol number.\n"
               "  subchunk decode  FILE is one subchunk (network or disk form); prints 'x y z state'\n"
               "                   per non-air block (x z in the subchunk, y absolute; --y N sets\n"
               "                   the subchunk index), states as minecraft:name[k=v,...] or with\n"
               "                   --ids the runtime id; --layer N (0..%d) the storage; --summary\n"
               "                   adds '# ...' lines (version, storages, widths, block entities)\n"
               "  packet decode    FILE is a LevelChunk, SubChunk, SubChunkRequest or client cache\n"
               "                   packet (id varint + body); prints its fields, and with --blocks\n"
               "                   the blocks of every subchunk\n"
               "  --hashed         runtime ids are hashed (the server's block network id hashes);\n"
               "                   ids that only resolve as hashes fail with a hint to use it\n"
               "  --check          re-encodes what was decoded; fails unless the bytes are equal\n"
               "  With several FILEs each result ends with a line '== FILE rc=N'.\n"
               "  generate         writes a deterministic test column's packets and block lists\n"
               "                   into the folder DIR (level_chunk*.bin, subchunk*.bin, blocks.txt,\n"
               "                   ...); --java PATH --chunk X Z converts that Java chunk instead\n"
               "  biomes decode    a LevelDB Data3D/Data2D value or a network biome blob: prints\n"
               "                   the storages and their palettes\n"
               "\n"
               "exit status: 0 ok, 1 failure (bad data, runtime ids the registry does not name,\n"
               "re-encoding differs, I/O), 2 usage error (bad option, unknown version)\n",
            MC_BEDROCK_MAX_STORAGES - 1);
}

/* ------------------------------------------------------ state printing */

typedef struct { const char *k; size_t kl; char v[64]; } kv;

static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    size_t n = x->kl < y->kl ? x->kl : y->kl;
    int c = memcmp(x->k, y->k, n);
    return c ? c : (x->kl > y->kl) - (x->kl < y->kl);
}

/* Formats a palette NBT compound {name, states} as name[k=v,...]. */
static void format_tag(const uint8_t *nbt, size_t len, bool network, char *out, size_t cap)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    snprintf(out, cap, "?");
    if (!doc)
        return;
    if (mc_nbt_parse(doc, nbt, len, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, NULL, NULL) == MC_OK) {
        mc_nbt_tag *root = mc_nbt_doc_root(doc);
        const char *name;
        size_t nl;
        if (mc_nbt_get_string(mc_nbt_get(root, "name"), &name, &nl) == MC_OK) {
            kv props[64];
            size_t n = 0;
            for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(root, "states")); t && n < 64; t = mc_nbt_next(t)) {
                props[n].k = mc_nbt_tag_key(t, &props[n].kl);
                const char *s;
                size_t sl;
                int64_t iv;
                if (mc_nbt_get_string(t, &s, &sl) == MC_OK)
                    snprintf(props[n].v, sizeof props[n].v, "%.*s", (int)sl, s);
                else if (mc_nbt_tag_type(t) == MC_NBT_BYTE && mc_nbt_get_integer(t, &iv) == MC_OK)
                    snprintf(props[n].v, sizeof props[n].v, "%s", iv ? "true" : "false");
                else if (mc_nbt_get_integer(t, &iv) == MC_OK)
                    snprintf(props[n].v, sizeof props[n].v, "%lld", (long long)iv);
                else
                    snprintf(props[n].v, sizeof props[n].v, "?");
                n++;
            }
            qsort(props, n, sizeof *props, kv_cmp);
            size_t o = (size_t)snprintf(out, cap, "%s%.*s", memchr(name, ':', nl) ? "" : "minecraft:", (int)nl, name);
            for (size_t i = 0; i < n && o < cap; i++)
                o += (size_t)snprintf(out + o, cap - o, "%c%.*s=%s", i ? ',' : '[', (int)props[i].kl, props[i].k,
                                      props[i].v);
            if (n && o < cap)
                snprintf(out + o, cap - o, "]");
        }
    }
    mc_nbt_doc_free(doc);
}

/* The registry state of a runtime id (hashed or not), or MC_STATE_NONE. */
static uint32_t runtime_state(const opts *o, uint32_t id)
{
    if (!o->reg)
        return MC_STATE_NONE;
    if (o->hashed)
        return mc_registry_state_from_hash(o->reg, id);
    return mc_registry_state_valid(o->reg, id) ? id : MC_STATE_NONE;
}

static bool is_air_name(const char *s)
{
    return !strcmp(s, "minecraft:air");
}

/* Prints the non-air blocks of one storage; returns the count, or without
 * printing anything -1 on a runtime id the registry does not name, -2 when
 * every such id is a hashed runtime id of the registry (--hashed missing). */
static long print_blocks(const opts *o, const mc_bedrock_subchunk *sc, unsigned layer, int base_y)
{
    if (layer >= sc->storage_count)
        return 0;
    const mc_bedrock_storage *s = &sc->storages[layer];
    /* Resolve the palette once. */
    char (*names)[256] = calloc(s->palette_len ? s->palette_len : 1, sizeof *names);
    bool *air = calloc(s->palette_len ? s->palette_len : 1, 1);
    if (!names || !air) {
        free(names);
        free(air);
        return -1;
    }
    bool unknown = false, all_hashes = true;
    for (uint32_t i = 0; i < s->palette_len; i++) {
        uint32_t v = s->palette[i];
        if (sc->kind == MC_BEDROCK_PALETTE_RUNTIME) {
            uint32_t st = runtime_state(o, v);
            if (st == MC_STATE_NONE) {
                snprintf(names[i], sizeof names[i], "?%u", v);
                unknown = true;
                if (o->hashed || !o->reg || mc_registry_state_from_hash(o->reg, v) == MC_STATE_NONE)
                    all_hashes = false;
            } else {
                mc_registry_format_state(o->reg, st, names[i], sizeof names[i], MC_FORMAT_SORTED);
                air[i] = (mc_registry_state_flags(o->reg, st) & MC_STATE_AIR) != 0 ||
                         !strncmp(names[i], "minecraft:air", 14);
            }
            if (o->ids)
                snprintf(names[i], sizeof names[i], "%u", v);
        } else if (sc->kind == MC_BEDROCK_PALETTE_LEGACY) {
            snprintf(names[i], sizeof names[i], "%u:%u", v >> 4, v & 15);
            air[i] = (v >> 4) == 0;
        } else {
            size_t len;
            const uint8_t *t = mc_bedrock_subchunk_tag(sc, v, &len);
            bool net = sc->kind == MC_BEDROCK_PALETTE_PERSISTENT;
            uint32_t st = MC_STATE_NONE;
            /* the registry's name for the state; the tag's own text if it has none */
            if (o->reg && mc_bedrock_state_from_nbt(o->reg, t, len, net, &st, NULL) == MC_OK)
                mc_registry_format_state(o->reg, st, names[i], sizeof names[i], MC_FORMAT_SORTED);
            else
                format_tag(t, len, net, names[i], sizeof names[i]);
            air[i] = is_air_name(names[i]);
            if (o->ids && o->reg) {
                if (st != MC_STATE_NONE)
                    snprintf(names[i], sizeof names[i], "%u", st);
                else
                    unknown = true;
            }
        }
    }
    long count = 0;
    if (unknown && o->reg) {
        free(names);
        free(air);
        return all_hashes && !o->hashed ? -2 : -1;
    }
    for (unsigned x = 0; x < 16; x++)
        for (unsigned z = 0; z < 16; z++)
            for (unsigned y = 0; y < 16; y++) {
                uint32_t pi = mc_bedrock_storage_get_index(s, mc_bedrock_index(x, y, z));
                if (pi >= s->palette_len || air[pi])
                    continue;
                printf("%u %d %u %s\n", x, base_y + (int)y, z, names[pi]);
                count++;
            }
    free(names);
    free(air);
    return count;
}

static int subchunk_base_y(const mc_bedrock_subchunk *sc, const opts *o, int fallback_index)
{
    if (o->have_y)
        return o->y * 16;
    if (sc->version == 9)
        return sc->y_index * 16;
    return fallback_index * 16;
}

/* Decodes a subchunk payload (subchunk + block entities) and optionally
 * checks its re-encoding. Returns 0 or an exit code. */
static int do_payload(const opts *o, const uint8_t *p, size_t len, int fallback_index, bool print, const char *what)
{
    mc_bedrock_subchunk sc;
    mc_bedrock_subchunk_init(&sc, NULL);
    size_t used;
    mc_error err;
    if (mc_bedrock_subchunk_decode(&sc, p, len, MC_BEDROCK_FORM_AUTO, &used, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", what, err.message);
        return MC_EXIT_FAIL;
    }
    int rc = 0;
    /* The rest is block entities (network NBT). */
    size_t off = used, nbe = 0;
    while (off < len) {
        size_t span;
        if (mc_bedrock_nbt_span(p + off, len - off, true, &span, &err) != MC_OK) {
            fprintf(stderr, "mcchunk bedrock: %s: block entity: %s\n", what, err.message);
            rc = MC_EXIT_FAIL;
            break;
        }
        off += span;
        nbe++;
    }
    if (print && o->summary) {
        printf("# subchunk version %u, %u storage(s), %s palette%s", sc.version, sc.storage_count,
               sc.kind == MC_BEDROCK_PALETTE_RUNTIME ? "runtime-id" : sc.kind == MC_BEDROCK_PALETTE_DISK ? "disk NBT"
               : sc.kind == MC_BEDROCK_PALETTE_PERSISTENT ? "network NBT" : "legacy id:meta",
               sc.version == 9 ? "" : "\n");
        if (sc.version == 9)
            printf(", y index %d\n", sc.y_index);
        for (unsigned i = 0; i < sc.storage_count; i++)
            printf("# storage %u: %u bits, palette %u\n", i, sc.storages[i].bits, sc.storages[i].palette_len);
        if (nbe)
            printf("# %zu block entit%s\n", nbe, nbe == 1 ? "y" : "ies");
    }
    if (print) {
        long n = print_blocks(o, &sc, (unsigned)o->layer, subchunk_base_y(&sc, o, fallback_index));
        if (n < 0 && o->reg) {
            fprintf(stderr, "mcchunk bedrock: %s: runtime ids the %s registry does not name%s\n", what, o->version,
                    n == -2 ? "; ids look hashed: try --hashed" : "");
            rc = MC_EXIT_FAIL;
        }
    }
    if (o->check && sc.kind != MC_BEDROCK_PALETTE_LEGACY) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        mc_bedrock_form form = sc.kind == MC_BEDROCK_PALETTE_RUNTIME ? MC_BEDROCK_FORM_NETWORK
                             : sc.kind == MC_BEDROCK_PALETTE_DISK    ? MC_BEDROCK_FORM_DISK
                                                                     : MC_BEDROCK_FORM_PERSISTENT;
        if (mc_bedrock_subchunk_encode(&sc, sc.version, form, &b, &err) != MC_OK || b.len != used ||
            memcmp(b.data, p, used) != 0) {
            fprintf(stderr, "mcchunk bedrock: %s: re-encoding differs\n", what);
            rc = MC_EXIT_FAIL;
        }
        mc_buf_free(&b);
    }
    mc_bedrock_subchunk_free(&sc);
    return rc;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--version") && i + 1 < argc)
            o->version = argv[++i];
        else if (!strcmp(a, "--hashed"))
            o->hashed = true;
        else if (!strcmp(a, "--ids"))
            o->ids = true;
        else if (!strcmp(a, "--blocks"))
            o->blocks = true;
        else if (!strcmp(a, "--check"))
            o->check = true;
        else if (!strcmp(a, "--summary"))
            o->summary = true;
        else if (!strcmp(a, "--layer") && i + 1 < argc) {
            if (!mc_tool_parse_int("mcchunk bedrock", "--layer", argv[++i], 0, MC_BEDROCK_MAX_STORAGES - 1,
                                   &o->layer))
                return MC_EXIT_USAGE;
        } else if (!strcmp(a, "--y") && i + 1 < argc) {
            o->have_y = true;
            if (!mc_tool_parse_int("mcchunk bedrock", "--y (a subchunk index)", argv[++i], -128, 127, &o->y))
                return MC_EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mcchunk bedrock: unknown option or missing value: %s\n", a);
            return MC_EXIT_USAGE;
        } else {
            if (!o->file) {
                o->file = a;
                o->files = argv + i;
            }
            /* files are the non-option arguments; keep them in order */
            argv[o->files - argv + o->nfiles] = argv[i];
            o->nfiles++;
        }
    }
    if (!o->version || !o->file) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    o->protocol = mc_bedrock_protocol(o->version);
    if (!o->protocol) {
        fprintf(stderr, "mcchunk bedrock: unknown Bedrock version %s; `mcchunk registry --versions --edition "
                        "bedrock` lists them\n", o->version);
        return MC_EXIT_USAGE;
    }
    o->reg = mc_registry_find_bedrock(o->version);
    if (!o->reg && mc_bedrock_version_name(o->protocol))
        o->reg = mc_registry_find_bedrock(mc_bedrock_version_name(o->protocol));
    if (o->layer < 0 || o->layer >= MC_BEDROCK_MAX_STORAGES) {
        fprintf(stderr, "mcchunk bedrock: --layer out of range\n");
        return MC_EXIT_USAGE;
    }
    return 0;
}

static void print_heightmap(const char *label, const int8_t *hm)
{
    if (!hm)
        return;
    printf("    %s:", label);
    for (int i = 0; i < 256; i++)
        printf("%s%d", i % 16 ? "," : (i ? " | " : " "), hm[i]);
    printf("\n");
}

static int packet_level_chunk(const opts *o, const uint8_t *body, size_t len)
{
    mc_bedrock_level_chunk lc;
    mc_error err;
    if (mc_bedrock_level_chunk_decode(&lc, o->protocol, body, len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: level_chunk: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    printf("level_chunk x=%d z=%d", lc.x, lc.z);
    if (o->protocol >= MC_BEDROCK_PROTO_1_20_60)
        printf(" dimension=%d", lc.dimension);
    if (lc.sub_chunk_count == MC_BEDROCK_REQUEST_LIMITLESS)
        printf(" sub_chunk_count=request(limitless)");
    else if (lc.sub_chunk_count == MC_BEDROCK_REQUEST_LIMITED)
        printf(" sub_chunk_count=request(limited)");
    else
        printf(" sub_chunk_count=%u", lc.sub_chunk_count);
    if (lc.has_highest)
        printf(" highest_subchunk=%d", lc.highest_subchunk);
    printf(" cache_enabled=%s blobs=%u payload=%zu\n", lc.cache_enabled ? "true" : "false", lc.blob_count,
           lc.payload_len);
    for (uint32_t i = 0; i < lc.blob_count; i++)
        printf("  blob %u: %llu\n", i, (unsigned long long)mc_bedrock_u64_at(lc.blob_ids, i));
    int rc = 0;
    if (o->check) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        if (mc_bedrock_level_chunk_encode(&lc, o->protocol, &b, &err) != MC_OK || b.len != len ||
            memcmp(b.data, body, len)) {
            fprintf(stderr, "mcchunk bedrock: level_chunk: re-encoding differs\n");
            rc = MC_EXIT_FAIL;
        }
        mc_buf_free(&b);
    }
    /* The payload (cached: only border + block entities). */
    mc_bedrock_chunk_payload pl;
    if (mc_bedrock_chunk_payload_decode(&pl, o->protocol, lc.sub_chunk_count, lc.cache_enabled, lc.payload,
                                        lc.payload_len, NULL, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: level_chunk payload: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    printf("  payload: %u subchunk(s), biomes=%s%u, border=%u, block entities %zu bytes\n", pl.subchunk_count,
           pl.biomes.has_2d ? "2d " : "", pl.biomes.has_2d ? 256 : pl.biomes.count, pl.border_count,
           pl.block_entities_len);
    for (uint32_t i = 0; i < pl.subchunk_count; i++) {
        const mc_bedrock_subchunk *sc = &pl.subchunks[i];
        printf("  subchunk %u: version %u, %u storage(s)", i, sc->version, sc->storage_count);
        if (sc->version == 9)
            printf(", y index %d", sc->y_index);
        printf("\n");
        long n = o->blocks ? print_blocks(o, sc, (unsigned)o->layer, subchunk_base_y(sc, o, (int)i)) : 0;
        if (n < 0 && o->reg) {
            fprintf(stderr, "mcchunk bedrock: subchunk %u: runtime ids the registry does not name%s\n", i,
                    n == -2 ? "; ids look hashed: try --hashed" : "");
            rc = MC_EXIT_FAIL;
        }
    }
    if (o->check) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        if (mc_bedrock_chunk_payload_encode(&pl, o->protocol, &b, &err) != MC_OK || b.len != lc.payload_len ||
            memcmp(b.data, lc.payload, b.len)) {
            fprintf(stderr, "mcchunk bedrock: level_chunk payload: re-encoding differs\n");
            rc = MC_EXIT_FAIL;
        }
        mc_buf_free(&b);
    }
    mc_bedrock_chunk_payload_free(&pl);
    return rc;
}

static int packet_subchunk(const opts *o_in, const uint8_t *body, size_t len)
{
    opts ob = *o_in;
    ob.summary = true; /* inside a packet, every payload gets its summary lines */
    const opts *o = &ob;
    mc_bedrock_subchunk_packet p;
    mc_error err;
    if (mc_bedrock_subchunk_packet_decode(&p, o->protocol, body, len, NULL, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: subchunk: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    printf("subchunk cache_enabled=%s dimension=%d %s=(%d,%d,%d) entries=%u\n", p.cache_enabled ? "true" : "false",
           p.dimension, o->protocol < MC_BEDROCK_PROTO_1_18_10 ? "position" : "center", p.x, p.y, p.z, p.count);
    int rc = 0;
    for (uint32_t i = 0; i < p.count; i++) {
        const mc_bedrock_subchunk_entry *e = &p.entries[i];
        printf("  entry %u: offset=(%d,%d,%d) result=%s payload=", i, e->dx, e->dy, e->dz,
               mc_bedrock_result_name(e->result));
        if (e->has_payload)
            printf("%zu", e->payload_len);
        else
            printf("none");
        printf(" heightmap=%s", mc_bedrock_heightmap_type_name(e->heightmap_type));
        if (o->protocol >= MC_BEDROCK_PROTO_1_21_90)
            printf(" render_heightmap=%s", mc_bedrock_heightmap_type_name(e->render_type));
        if (e->has_blob)
            printf(" blob=%llu", (unsigned long long)e->blob_id);
        printf("\n");
        print_heightmap("heightmap", e->heightmap);
        print_heightmap("render_heightmap", e->render_heightmap);
        if (e->has_payload && e->payload_len && p.cache_enabled) {
            /* cached: the subchunk is in the blob; what travels is block entities */
            size_t off = 0, span;
            while (off < e->payload_len) {
                if (mc_bedrock_nbt_span(e->payload + off, e->payload_len - off, true, &span, &err) != MC_OK) {
                    fprintf(stderr, "mcchunk bedrock: entry %u: block entity: %s\n", i, err.message);
                    rc = MC_EXIT_FAIL;
                    break;
                }
                off += span;
            }
        } else if (e->has_payload && e->payload_len) {
            char what[64];
            snprintf(what, sizeof what, "entry %u", i);
            int r = do_payload(o, e->payload, e->payload_len, p.y + e->dy, o->blocks, what);
            if (r)
                rc = r;
        }
    }
    if (o->check) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        if (mc_bedrock_subchunk_packet_encode(&p, o->protocol, &b, &err) != MC_OK || b.len != len ||
            memcmp(b.data, body, len)) {
            fprintf(stderr, "mcchunk bedrock: subchunk: re-encoding differs\n");
            rc = MC_EXIT_FAIL;
        }
        mc_buf_free(&b);
    }
    mc_bedrock_subchunk_packet_free(&p);
    return rc;
}

static int packet_request(const opts *o, const uint8_t *body, size_t len)
{
    mc_bedrock_subchunk_request r;
    mc_error err;
    if (mc_bedrock_subchunk_request_decode(&r, o->protocol, body, len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: subchunk_request: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    printf("subchunk_request dimension=%d %s=(%d,%d,%d) count=%u\n", r.dimension,
           o->protocol < MC_BEDROCK_PROTO_1_18_10 ? "position" : "center", r.x, r.y, r.z, r.count);
    for (uint32_t i = 0; r.offsets && i < r.count; i++) {
        int8_t dx, dy, dz;
        mc_bedrock_request_offset(&r, i, &dx, &dy, &dz);
        printf("  offset %u: (%d,%d,%d)\n", i, dx, dy, dz);
    }
    if (o->check) {
        mc_buf b;
        mc_buf_init(&b, NULL);
        int rc = 0;
        if (mc_bedrock_subchunk_request_encode(&r, o->protocol, &b, &err) != MC_OK || b.len != len ||
            memcmp(b.data, body, len)) {
            fprintf(stderr, "mcchunk bedrock: subchunk_request: re-encoding differs\n");
            rc = MC_EXIT_FAIL;
        }
        mc_buf_free(&b);
        return rc;
    }
    return 0;
}

static int packet_blob_status(const opts *o, const uint8_t *body, size_t len)
{
    mc_bedrock_blob_status s;
    mc_error err;
    if (mc_bedrock_blob_status_decode(&s, o->protocol, body, len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: client_cache_blob_status: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    printf("client_cache_blob_status missing=%u have=%u\n", s.missing_count, s.have_count);
    for (uint32_t i = 0; i < s.missing_count; i++)
        printf("  missing %llu\n", (unsigned long long)mc_bedrock_u64_at(s.missing, i));
    for (uint32_t i = 0; i < s.have_count; i++)
        printf("  have %llu\n", (unsigned long long)mc_bedrock_u64_at(s.have, i));
    return 0;
}

static int packet_miss_response(const opts *o, const uint8_t *body, size_t len)
{
    mc_error err;
    uint32_t n = 0;
    mc_bedrock_blob *blobs = NULL;
    mc_status st = mc_bedrock_miss_response_decode(body, len, NULL, 0, &n, &err);
    if (st == MC_ERR_RANGE) {
        blobs = calloc(n ? n : 1, sizeof *blobs);
        st = blobs ? mc_bedrock_miss_response_decode(body, len, blobs, n, &n, &err) : MC_ERR_NOMEM;
    }
    if (st != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: client_cache_miss_response: %s\n", err.message);
        free(blobs);
        return MC_EXIT_FAIL;
    }
    printf("client_cache_miss_response blobs=%u\n", n);
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = mc_bedrock_blob_hash(blobs[i].data, blobs[i].len);
        printf("  blob %llu: %zu bytes%s\n", (unsigned long long)blobs[i].hash, blobs[i].len,
               h == blobs[i].hash ? "" : " (hash mismatch)");
        if (h != blobs[i].hash)
            rc = MC_EXIT_FAIL;
    }
    free(blobs);
    return rc;
}

static int cmd_packet_one(const opts *o)
{
    uint8_t *data;
    size_t len;
    mc_error err;
    if (mc_read_file(o->file, NULL, &data, &len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", o->file, err.message);
        return MC_EXIT_FAIL;
    }
    uint32_t id;
    size_t hl;
    int rc;
    if (mc_bedrock_packet_id(data, len, &id, &hl, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", o->file, err.message);
        rc = MC_EXIT_FAIL;
    } else if (id == MC_BEDROCK_PACKET_LEVEL_CHUNK)
        rc = packet_level_chunk(o, data + hl, len - hl);
    else if (id == MC_BEDROCK_PACKET_SUBCHUNK)
        rc = packet_subchunk(o, data + hl, len - hl);
    else if (id == MC_BEDROCK_PACKET_SUBCHUNK_REQUEST)
        rc = packet_request(o, data + hl, len - hl);
    else if (id == MC_BEDROCK_PACKET_CLIENT_CACHE_BLOB_STATUS)
        rc = packet_blob_status(o, data + hl, len - hl);
    else if (id == MC_BEDROCK_PACKET_CLIENT_CACHE_MISS_RESPONSE)
        rc = packet_miss_response(o, data + hl, len - hl);
    else {
        fprintf(stderr, "mcchunk bedrock: %s: packet id %u is not a chunk packet\n", o->file, id);
        rc = MC_EXIT_FAIL;
    }
    mc_default_allocator()->free(mc_default_allocator()->user, data, len);
    return rc;
}

static int cmd_subchunk_one(const opts *o)
{
    uint8_t *data;
    size_t len;
    mc_error err;
    if (mc_read_file(o->file, NULL, &data, &len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", o->file, err.message);
        return MC_EXIT_FAIL;
    }
    int rc = do_payload(o, data, len, 0, true, o->file);
    mc_default_allocator()->free(mc_default_allocator()->user, data, len);
    return rc;
}

/* ------------------------------------------------------------ generate */

/* `mcchunk bedrock generate --version V --out DIR [--cache] [--hashed]`
 * writes a deterministic test column through our encoders, for the oracle
 * tests and the benchmark: every valid storage width (0-6, 8, 16), a water
 * layer, a block entity, biomes with repeats, and air above. Files:
 *   level_chunk_full.bin   LevelChunk with every subchunk up to the highest
 *   level_chunk.bin        the request-mode skeleton (471+)
 *   subchunk_request.bin   a request batch over the column (+ misses)
 *   subchunk.bin           the engine's answer to it
 *   miss_response.bin      (--cache) every blob the answer announced
 *   blocks.txt             "x y z id" of every non-air block of storage 0
 *   layer1.txt             the same for storage 1 (the water layer)
 * With --java PATH --chunk X Z (1.18+ versions) the column is instead Java
 * chunk (X, Z) of a region file or world, converted as a server would
 * (mc_bedrock_column_from_mc_column: waterlogged blocks get a water layer,
 * block entities are translated), and two more files list what the oracle
 * tests check:
 *   java_waterlogged.txt   "x y z" of every Java waterlogged=true block
 *   java_block_entities.txt "x y z BedrockId" of every Java block entity
 *                          with a Bedrock counterpart (absolute x, z). */

typedef struct gen_world {
    mc_bedrock_column col;
} gen_world;

static mc_status gen_get(void *user, int32_t dim, int32_t cx, int32_t cz, const mc_bedrock_column **out)
{
    gen_world *w = user;
    if (dim != w->col.dimension || cx != w->col.x || cz != w->col.z)
        return MC_ERR_NOT_FOUND;
    *out = &w->col;
    return MC_OK;
}

static uint64_t gen_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Picks `n` distinct non-air runtime ids spread over the registry. */
static uint32_t gen_pick_ids(const mc_registry *reg, bool hashed, uint32_t *ids, uint32_t n, uint32_t *air)
{
    if (!reg) {
        *air = 0;
        for (uint32_t i = 0; i < n; i++)
            ids[i] = i + 1;
        return n;
    }
    uint32_t count = mc_registry_state_count(reg), got = 0;
    uint32_t a = mc_registry_air(reg);
    *air = hashed ? mc_registry_state_hash(reg, a) : a;
    uint32_t step = count / (n + 1) ? count / (n + 1) : 1;
    for (uint32_t s = 1; s < count && got < n; s += step) {
        uint32_t st = s;
        while (st < count && (!mc_registry_state_valid(reg, st) || (mc_registry_state_flags(reg, st) & MC_STATE_AIR)))
            st++;
        if (st >= count)
            break;
        ids[got++] = hashed ? mc_registry_state_hash(reg, st) : st;
    }
    return got;
}

static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "mcchunk bedrock: cannot write %s\n", path);
        if (f)
            fclose(f);
        return MC_EXIT_FAIL;
    }
    fclose(f);
    return 0;
}

static void put_packet(mc_buf *b, uint32_t id)
{
    b->len = 0;
    mc_buf_put_uvarint32(b, id);
}

/* Builds the test column (see above). */
static mc_status gen_column(mc_bedrock_column *col, int protocol, const mc_registry *reg, bool hashed, bool tiny)
{
    bool modern = protocol >= MC_BEDROCK_PROTO_1_18_0;
    uint32_t ids[320], air;
    uint32_t nids = gen_pick_ids(reg, hashed, ids, 320, &air);
    mc_status st = modern ? mc_bedrock_column_init(col, 3, -2, 0, air, NULL)
                          : mc_bedrock_column_init_range(col, 3, -2, 0, 0, 16, air, NULL);
    if (st != MC_OK)
        return st;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    static const uint32_t distinct[] = {1, 2, 3, 5, 12, 20, 40, 100, 300};
    uint32_t *vals = malloc(4096 * sizeof *vals);
    if (!vals)
        return MC_ERR_NOMEM;
    for (uint32_t i = 0; i < (tiny ? 4u : 10u) && i < col->count; i++) {
        mc_bedrock_subchunk *sc = &col->subchunks[i];
        sc->kind = MC_BEDROCK_PALETTE_RUNTIME;
        if (i < 9) {
            uint32_t k = distinct[i] < nids ? distinct[i] : nids;
            for (unsigned j = 0; j < 4096; j++)
                vals[j] = (i > 0 && gen_rand(&rng) % 8 == 0) ? air : ids[(j + gen_rand(&rng) % k) % k];
            if (i == 1) /* two ids only: air would make three */
                for (unsigned j = 0; j < 4096; j++)
                    vals[j] = ids[(j & 15) < 8 ? 0 : 1];
        } else {
            /* mostly air, a few blocks up to different heights */
            for (unsigned j = 0; j < 4096; j++) {
                unsigned x = j >> 8, z = (j >> 4) & 15, y = j & 15;
                vals[j] = y < (x + z) % 13 ? ids[(x * 16 + z) % nids] : air;
            }
        }
        st = mc_bedrock_storage_from_values(&sc->storages[0], vals, NULL);
        if (st != MC_OK)
            break;
        sc->storage_count = 1;
        if (i == 3) { /* a water layer */
            for (unsigned j = 0; j < 4096; j++)
                vals[j] = j % 7 == 0 ? ids[nids - 1] : air;
            st = mc_bedrock_storage_from_values(&sc->storages[1], vals, NULL);
            sc->storage_count = 2;
        }
    }
    free(vals);
    if (st != MC_OK)
        return st;
    /* A block entity in subchunk 2, network NBT. */
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (doc) {
        mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
        int32_t by = (col->min_y + 2) * 16 + 5;
        mc_nbt_put_string(doc, root, "id", "Chest", 5);
        mc_nbt_put_byte(doc, root, "isMovable", 1);
        mc_nbt_put_int(doc, root, "x", col->x * 16 + 1);
        mc_nbt_put_int(doc, root, "y", by);
        mc_nbt_put_int(doc, root, "z", col->z * 16 + 2);
        mc_nbt_write(doc, MC_NBT_BEDROCK_NETWORK, &col->block_entities[2], NULL);
        mc_nbt_doc_free(doc);
    }
    /* Biomes: two in the bottom storage, then repeats and single values. */
    col->biomes.count = col->count;
    for (uint32_t i = 0; i < col->count && st == MC_OK; i++) {
        if (i == 0) {
            uint32_t *b = malloc(4096 * sizeof *b);
            if (!b)
                return MC_ERR_NOMEM;
            for (unsigned j = 0; j < 4096; j++)
                b[j] = (j >> 8) < 8 ? 1 : 4;
            st = mc_bedrock_storage_from_values(&col->biomes.storages[0], b, NULL);
            free(b);
        } else if (i % 3 == 0) {
            st = mc_bedrock_storage_init_single(&col->biomes.storages[i], 7 + i, NULL);
        } else {
            st = mc_bedrock_storage_copy(&col->biomes.storages[i], &col->biomes.storages[i - 1], NULL);
            col->biomes.copy_previous[i] = true;
        }
    }
    mc_bedrock_column_update_heights(col);
    return st;
}

/* The state tag of runtime id `id` (a registry state, or its hash when
 * `hashed`): mc_bedrock_state_to_nbt; an id no registry names (a protocol
 * without one) as {name: minecraft:test_<id>}. */
static mc_status gen_state_tag(const mc_registry *reg, bool hashed, uint32_t id, bool network, mc_buf *out)
{
    uint32_t state = !reg ? MC_STATE_NONE : hashed ? mc_registry_state_from_hash(reg, id) : id;
    if (state != MC_STATE_NONE && mc_registry_state_valid(reg, state))
        return mc_bedrock_state_to_nbt(reg, state, network, out, NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = doc ? mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND) : NULL;
    char name[32];
    snprintf(name, sizeof name, "minecraft:test_%u", id);
    mc_status st = root ? mc_nbt_put_string(doc, root, "name", name, strlen(name)) : MC_ERR_NOMEM;
    if (st == MC_OK)
        st = mc_nbt_write(doc, network ? MC_NBT_BEDROCK_NETWORK : MC_NBT_BEDROCK, out, NULL);
    mc_nbt_doc_free(doc);
    return st;
}

/* --tiny: every non-air subchunk as sub_{net,disk,persist}_<i>.bin, and the
 * biomes as biomes_net.bin and data3d.bin (fuzz seeds). */
static int gen_tiny_files(const char *dir, const mc_bedrock_column *col, const mc_registry *reg, bool hashed)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    int rc = 0;
    char name[64];
    for (uint32_t i = 0; i < col->count && !rc; i++) {
        const mc_bedrock_subchunk *sc = &col->subchunks[i];
        if (!sc->storage_count)
            continue;
        b.len = 0;
        if (mc_bedrock_subchunk_encode(sc, 9, MC_BEDROCK_FORM_NETWORK, &b, NULL) != MC_OK)
            return MC_EXIT_FAIL;
        snprintf(name, sizeof name, "sub_net_%u.bin", i);
        rc = write_file(dir, name, b.data, b.len);
        for (int network = 0; network < 2 && !rc; network++) {
            mc_bedrock_subchunk t;
            mc_bedrock_subchunk_init(&t, NULL);
            t.kind = network ? MC_BEDROCK_PALETTE_PERSISTENT : MC_BEDROCK_PALETTE_DISK;
            t.y_index = sc->y_index;
            t.storage_count = sc->storage_count;
            for (unsigned k = 0; k < sc->storage_count && !rc; k++) {
                if (mc_bedrock_storage_copy(&t.storages[k], &sc->storages[k], NULL) != MC_OK)
                    rc = MC_EXIT_FAIL;
                for (uint32_t p = 0; p < t.storages[k].palette_len && !rc; p++) {
                    mc_buf tag;
                    mc_buf_init(&tag, NULL);
                    uint32_t idx = 0;
                    if (gen_state_tag(reg, hashed, t.storages[k].palette[p], network, &tag) != MC_OK ||
                        mc_bedrock_subchunk_add_tag(&t, tag.data, tag.len, &idx) != MC_OK)
                        rc = MC_EXIT_FAIL;
                    t.storages[k].palette[p] = idx;
                    mc_buf_free(&tag);
                }
            }
            b.len = 0;
            if (!rc && mc_bedrock_subchunk_encode(&t, i % 2 ? 8 : 9,
                                                  network ? MC_BEDROCK_FORM_PERSISTENT : MC_BEDROCK_FORM_DISK, &b,
                                                  NULL) != MC_OK)
                rc = MC_EXIT_FAIL;
            snprintf(name, sizeof name, "sub_%s_%u.bin", network ? "persist" : "disk", i);
            if (!rc)
                rc = write_file(dir, name, b.data, b.len);
            mc_bedrock_subchunk_free(&t);
        }
    }
    b.len = 0;
    if (!rc && mc_bedrock_biomes_net_encode(&col->biomes, &b, NULL) == MC_OK)
        rc = write_file(dir, "biomes_net.bin", b.data, b.len);
    b.len = 0;
    if (!rc && mc_bedrock_data3d_encode(&col->biomes, &b, NULL) == MC_OK)
        rc = write_file(dir, "data3d.bin", b.data, b.len);
    mc_buf_free(&b);
    return rc;
}

/* What `bedrock generate` was asked for. */
typedef struct gen_args {
    const char *version, *dir, *java_path;
    bool cache, hashed, tiny;
    int32_t jx, jz;
    int protocol;
    const mc_registry *reg;
} gen_args;

/* Parses and checks the arguments; 0 or the usage exit code. */
static int gen_parse_args(int argc, char **argv, gen_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--version") && i + 1 < argc)
            a->version = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            a->dir = argv[++i];
        else if (!strcmp(argv[i], "--cache"))
            a->cache = true;
        else if (!strcmp(argv[i], "--hashed"))
            a->hashed = true;
        else if (!strcmp(argv[i], "--tiny"))
            a->tiny = true;
        else if (!strcmp(argv[i], "--java") && i + 1 < argc)
            a->java_path = argv[++i];
        else if (!strcmp(argv[i], "--chunk") && i + 2 < argc) {
            if (!mc_tool_parse_chunk("mcchunk bedrock generate", "X of --chunk", argv[i + 1], &a->jx) ||
                !mc_tool_parse_chunk("mcchunk bedrock generate", "Z of --chunk", argv[i + 2], &a->jz))
                return MC_EXIT_USAGE;
            i += 2;
        } else {
            fprintf(stderr, "mcchunk bedrock generate: unknown argument %s\n", argv[i]);
            return MC_EXIT_USAGE;
        }
    }
    a->protocol = a->version ? mc_bedrock_protocol(a->version) : 0;
    if (a->version && !a->protocol) {
        fprintf(stderr, "mcchunk bedrock generate: unknown Bedrock version %s; `mcchunk registry --versions "
                        "--edition bedrock` lists them\n", a->version);
        return MC_EXIT_USAGE;
    }
    if (!a->protocol || !a->dir) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (!mc_tool_is_dir(a->dir)) {
        fprintf(stderr, "mcchunk bedrock generate: --out %s is not a folder\n", a->dir);
        return MC_EXIT_USAGE;
    }
    a->reg = mc_registry_find_bedrock(a->version);
    if (!a->reg && mc_bedrock_version_name(a->protocol))
        a->reg = mc_registry_find_bedrock(mc_bedrock_version_name(a->protocol));
    if (a->java_path && (!a->reg || a->protocol < MC_BEDROCK_PROTO_1_18_0)) {
        fprintf(stderr, "mcchunk bedrock generate: --java needs a 1.18+ version with a registry\n");
        return MC_EXIT_USAGE;
    }
    return 0;
}

/* --java: the Java chunk converted as a server would, into col; *jcol
 * keeps the Java column for the lists of what the oracle tests check.
 * 0 or an exit code (the reason printed). */
static int gen_java_column(const gen_args *a, mc_bedrock_column *col, mc_column **jcol)
{
    int lrc = mc_tool_load_column("mcchunk bedrock generate", a->java_path, NULL, a->jx, a->jz, jcol);
    if (lrc)
        return lrc;
    mc_error err;
    mc_error_clear(&err);
    mc_bedrock_ids ids;
    mc_status st = mc_bedrock_ids_init(&ids, mc_column_registry(*jcol), a->reg, a->hashed);
    if (st == MC_OK && (mc_column_min_section(*jcol) != -4 || mc_column_section_count(*jcol) != 24)) {
        mc_column *r = mc_column_reshape(*jcol, -4, 24, NULL, &err); /* the 1.18+ overworld */
        mc_column_free(*jcol);
        *jcol = r;
        st = r ? MC_OK : err.status;
    }
    if (st == MC_OK)
        st = mc_bedrock_column_from_mc_column(col, *jcol, 0, &ids, NULL, &err);
    if (st != MC_OK) {
        fprintf(stderr, "mcchunk bedrock generate: cannot convert the Java column: %s\n", err.message);
        return MC_EXIT_FAIL;
    }
    return 0;
}

/* level_chunk_full.bin: the LevelChunk with every subchunk. */
static int gen_write_full_chunk(const gen_args *a, const mc_bedrock_column *col, mc_buf *pkt, mc_error *err)
{
    mc_buf payload;
    mc_buf_init(&payload, NULL);
    mc_bedrock_level_chunk lc;
    memset(&lc, 0, sizeof lc);
    lc.x = col->x;
    lc.z = col->z;
    int rc = 0;
    if (mc_bedrock_column_full_payload(col, a->protocol, &payload, &lc.sub_chunk_count, err) != MC_OK)
        rc = MC_EXIT_FAIL;
    lc.payload = payload.data;
    lc.payload_len = payload.len;
    put_packet(pkt, MC_BEDROCK_PACKET_LEVEL_CHUNK);
    if (!rc && mc_bedrock_level_chunk_encode(&lc, a->protocol, pkt, err) == MC_OK)
        rc = write_file(a->dir, "level_chunk_full.bin", pkt->data, pkt->len);
    mc_buf_free(&payload);
    return rc;
}

/* The request over the column: every subchunk of it, then one above the
 * world and one in a column that does not exist (1.18.0: one subchunk). */
static void gen_request(const gen_args *a, const mc_bedrock_column *col, mc_bedrock_subchunk_request *req,
                        uint8_t offs[3 * 32])
{
    *req = (mc_bedrock_subchunk_request){0, col->x, 0, col->z, 0, offs};
    if (a->protocol < MC_BEDROCK_PROTO_1_18_10) {
        req->y = 2;
        req->count = 1;
        req->offsets = NULL;
        return;
    }
    for (uint32_t i = 0; i < col->count; i++) {
        offs[3 * req->count] = 0;
        offs[3 * req->count + 1] = (uint8_t)(int8_t)(col->min_y + (int32_t)i);
        offs[3 * req->count + 2] = 0;
        req->count++;
    }
    uint8_t extra[] = {0, (uint8_t)(int8_t)(col->min_y + (int32_t)col->count), 0, 1, 0, 0};
    memcpy(offs + 3 * req->count, extra, sizeof extra);
    req->count += 2;
}

/* --cache: miss_response.bin (every blob the answer in `answer` announced,
 * read back from our own packet for the ids) and blob_status.bin. */
static int gen_write_blob_files(const gen_args *a, mc_bedrock_engine *e, const mc_buf *answer, mc_error *err)
{
    mc_bedrock_subchunk_packet sp;
    if (mc_bedrock_subchunk_packet_decode(&sp, a->protocol, answer->data + 2, answer->len - 2, NULL, err) != MC_OK)
        return MC_EXIT_FAIL;
    mc_bedrock_blob blobs[64];
    uint8_t ids[64 * 8];
    uint32_t nb = 0;
    for (uint32_t i = 0; i < sp.count && nb < 64; i++) {
        size_t bl;
        const uint8_t *bd;
        if (sp.entries[i].has_blob &&
            (bd = mc_bedrock_blob_cache_get(mc_bedrock_engine_cache(e), sp.entries[i].blob_id, &bl))) {
            blobs[nb] = (mc_bedrock_blob){sp.entries[i].blob_id, bd, bl};
            mc_store_u64le(ids + 8 * nb, sp.entries[i].blob_id);
            nb++;
        }
    }
    mc_bedrock_subchunk_packet_free(&sp);
    mc_buf b;
    mc_buf_init(&b, NULL);
    put_packet(&b, MC_BEDROCK_PACKET_CLIENT_CACHE_MISS_RESPONSE);
    mc_bedrock_miss_response_encode(blobs, nb, &b);
    int rc = write_file(a->dir, "miss_response.bin", b.data, b.len);
    mc_bedrock_blob_status bs = {nb, 0, ids, NULL};
    put_packet(&b, MC_BEDROCK_PACKET_CLIENT_CACHE_BLOB_STATUS);
    mc_bedrock_blob_status_encode(&bs, a->protocol, &b, err);
    if (!rc)
        rc = write_file(a->dir, "blob_status.bin", b.data, b.len);
    mc_buf_free(&b);
    return rc;
}

/* The request system (1.17.40+): level_chunk.bin (the skeleton),
 * subchunk_request.bin, subchunk.bin (the engine's answer) and with
 * --cache the blob files. */
static int gen_write_request_files(const gen_args *a, gen_world *w, mc_buf *pkt, mc_error *err)
{
    const mc_bedrock_column *col = &w->col;
    mc_bedrock_world_source src = {w, gen_get, NULL};
    mc_bedrock_engine_options eo = {a->protocol, a->cache, 0, 0};
    mc_bedrock_engine *e = mc_bedrock_engine_new(&src, &eo, NULL);
    int rc = 0;
    put_packet(pkt, MC_BEDROCK_PACKET_LEVEL_CHUNK);
    if (!e || mc_bedrock_engine_level_chunk(e, col, pkt, err) != MC_OK)
        rc = MC_EXIT_FAIL;
    else
        rc = write_file(a->dir, "level_chunk.bin", pkt->data, pkt->len);
    uint8_t offs[3 * 32];
    mc_bedrock_subchunk_request req;
    gen_request(a, col, &req, offs);
    put_packet(pkt, MC_BEDROCK_PACKET_SUBCHUNK_REQUEST);
    if (!rc && mc_bedrock_subchunk_request_encode(&req, a->protocol, pkt, err) == MC_OK)
        rc = write_file(a->dir, "subchunk_request.bin", pkt->data, pkt->len);
    put_packet(pkt, MC_BEDROCK_PACKET_SUBCHUNK);
    if (!rc && mc_bedrock_engine_answer_request(e, &req, pkt, err) == MC_OK)
        rc = write_file(a->dir, "subchunk.bin", pkt->data, pkt->len);
    else if (!rc)
        rc = MC_EXIT_FAIL;
    if (!rc && a->cache && a->protocol >= MC_BEDROCK_PROTO_1_18_0)
        rc = gen_write_blob_files(a, e, pkt, err);
    mc_bedrock_engine_free(e);
    return rc;
}

/* blocks.txt and layer1.txt: "x y z id" of every non-air block of storage 0
 * and of storage 1 (the water layer). */
static int gen_write_block_lists(const char *dir, const mc_bedrock_column *col)
{
    for (unsigned layer = 0; layer < 2; layer++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, layer ? "layer1.txt" : "blocks.txt");
        FILE *f = fopen(path, "w");
        if (!f)
            return MC_EXIT_FAIL;
        for (uint32_t i = 0; i < col->count; i++) {
            const mc_bedrock_subchunk *sc = &col->subchunks[i];
            if (sc->storage_count <= layer)
                continue;
            for (unsigned x = 0; x < 16; x++)
                for (unsigned z = 0; z < 16; z++)
                    for (unsigned y = 0; y < 16; y++) {
                        uint32_t v = mc_bedrock_storage_get(&sc->storages[layer], mc_bedrock_index(x, y, z));
                        if (v != col->air)
                            fprintf(f, "%u %d %u %u\n", x, (col->min_y + (int)i) * 16 + (int)y, z, v);
                    }
        }
        if (fclose(f) != 0)
            return MC_EXIT_FAIL;
    }
    return 0;
}

/* --java: java_waterlogged.txt and java_block_entities.txt, what the oracle
 * tests check the conversion against. */
static int gen_write_java_lists(const char *dir, const mc_column *jcol)
{
    const mc_registry *jreg = mc_column_registry(jcol);
    char path[1024];
    snprintf(path, sizeof path, "%s/java_waterlogged.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return MC_EXIT_FAIL;
    int32_t min_y = mc_column_min_y(jcol), top = min_y + (int32_t)mc_column_height(jcol);
    for (int32_t y = min_y; y < top; y++)
        for (int z = 0; z < 16; z++)
            for (int x = 0; x < 16; x++) {
                const char *v = mc_registry_state_prop_value(jreg, mc_column_get_block(jcol, x, y, z), "waterlogged");
                if (v && !strcmp(v, "true"))
                    fprintf(f, "%d %d %d\n", x, y, z);
            }
    bool ok = fclose(f) == 0;
    snprintf(path, sizeof path, "%s/java_block_entities.txt", dir);
    FILE *g = fopen(path, "w");
    if (!g)
        return MC_EXIT_FAIL;
    for (size_t i = 0; i < mc_column_block_entity_count(jcol); i++) {
        int32_t x, y, z;
        mc_nbt_tag *t = mc_column_block_entity_at(jcol, i, &x, &y, &z);
        const char *id;
        size_t n;
        const char *b = t && mc_nbt_get_string(mc_nbt_get(t, "id"), &id, &n) == MC_OK
                            ? mc_bedrock_block_entity_id(id, n) : NULL;
        if (b)
            fprintf(g, "%d %d %d %s\n", x, y, z, b);
    }
    ok = fclose(g) == 0 && ok;
    return ok ? 0 : MC_EXIT_FAIL;
}

static int cmd_generate(int argc, char **argv)
{
    gen_args a;
    int rc = gen_parse_args(argc, argv, &a);
    if (rc)
        return rc;
    gen_world w;
    memset(&w, 0, sizeof w);
    mc_column *jcol = NULL;
    if (a.java_path) {
        rc = gen_java_column(&a, &w.col, &jcol);
    } else if (gen_column(&w.col, a.protocol, a.reg, a.hashed, a.tiny) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock generate: cannot build the column\n");
        rc = MC_EXIT_FAIL;
    }
    mc_error err;
    mc_error_clear(&err);
    mc_buf pkt;
    mc_buf_init(&pkt, NULL);
    if (!rc)
        rc = gen_write_full_chunk(&a, &w.col, &pkt, &err);
    if (!rc && a.protocol >= MC_BEDROCK_PROTO_1_17_40)
        rc = gen_write_request_files(&a, &w, &pkt, &err);
    if (!rc && a.tiny)
        rc = gen_tiny_files(a.dir, &w.col, a.reg, a.hashed);
    if (!rc)
        rc = gen_write_block_lists(a.dir, &w.col);
    if (!rc && jcol)
        rc = gen_write_java_lists(a.dir, jcol);
    if (rc && err.message[0])
        fprintf(stderr, "mcchunk bedrock generate: %s\n", err.message);
    mc_column_free(jcol);
    mc_buf_free(&pkt);
    mc_bedrock_column_free(&w.col);
    return rc;
}

/* `mcchunk bedrock biomes decode FILE --data3d|--data2d|--network [--check]`:
 * a LevelDB Data3D/Data2D value or a network biome blob (storages to the end). */
static int cmd_biomes(int argc, char **argv)
{
    const char *file = NULL, *kind = NULL;
    bool check = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--data3d") || !strcmp(argv[i], "--data2d") || !strcmp(argv[i], "--network"))
            kind = argv[i] + 2;
        else if (!strcmp(argv[i], "--check"))
            check = true;
        else if (!strcmp(argv[i], "--version") && i + 1 < argc)
            i++; /* accepted for symmetry; biomes do not depend on it */
        else if (!file && argv[i][0] != '-')
            file = argv[i];
        else {
            fprintf(stderr, "mcchunk bedrock biomes: unknown argument %s\n", argv[i]);
            return MC_EXIT_USAGE;
        }
    }
    if (!file || !kind) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    uint8_t *data;
    size_t len;
    mc_error err;
    if (mc_read_file(file, NULL, &data, &len, &err) != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", file, err.message);
        return MC_EXIT_FAIL;
    }
    mc_bedrock_biomes b;
    mc_status st;
    mc_reader r;
    if (!strcmp(kind, "data3d"))
        st = mc_bedrock_data3d_decode(&b, data, len, NULL, &err);
    else if (!strcmp(kind, "data2d"))
        st = mc_bedrock_data2d_decode(&b, data, len, &err);
    else {
        mc_reader_init(&r, data, len, "bedrock biomes", &err);
        st = mc_bedrock_biomes_net_decode(&b, &r, 0, NULL);
        if (st == MC_OK && mc_reader_remaining(&r))
            st = mc_reader_fail(&r, MC_ERR_MALFORMED, "bedrock: %zu bytes after the biomes", mc_reader_remaining(&r));
    }
    int rc = 0;
    if (st != MC_OK) {
        fprintf(stderr, "mcchunk bedrock: %s: %s\n", file, err.message);
        rc = MC_EXIT_FAIL;
    } else if (b.has_2d) {
        printf("data2d: heightmap[0]=%d biomes[0]=%u\n", b.heightmap[0], b.biomes2d[0]);
    } else {
        printf("%u biome storage(s)\n", b.count);
        for (uint32_t i = 0; i < b.count; i++) {
            const mc_bedrock_storage *s = &b.storages[i];
            printf("  %u: %s%u bits, biomes", i, b.copy_previous[i] ? "copy of previous, " : "", s->bits);
            for (uint32_t k = 0; k < s->palette_len; k++)
                printf(" %u", s->palette[k]);
            printf("\n");
        }
        if (check) {
            mc_buf o;
            mc_buf_init(&o, NULL);
            st = !strcmp(kind, "data3d") ? mc_bedrock_data3d_encode(&b, &o, &err) : mc_bedrock_biomes_net_encode(&b, &o, &err);
            if (st != MC_OK || o.len != len || memcmp(o.data, data, len)) {
                fprintf(stderr, "mcchunk bedrock: %s: re-encoding differs\n", file);
                rc = MC_EXIT_FAIL;
            }
            mc_buf_free(&o);
        }
    }
    if (st == MC_OK)
        mc_bedrock_biomes_free(&b, NULL);
    mc_default_allocator()->free(mc_default_allocator()->user, data, len);
    return rc;
}

/* Runs `one` over every FILE; with several, each result ends with a line
 * "== FILE rc=N" (and stdout is flushed so that stderr lines stay near). */
static int each_file(opts *o, int (*one)(const opts *o))
{
    int rc = 0;
    int n = o->nfiles;
    char **files = o->files;
    for (int i = 0; i < n; i++) {
        o->file = files[i];
        int r = one(o);
        if (n > 1) {
            printf("== %s rc=%d\n", files[i], r);
            fflush(stdout);
        }
        if (r > rc)
            rc = r;
    }
    return rc;
}

int mc_cmd_bedrock(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        }
    if (argc >= 3 && !strcmp(argv[1], "biomes") && !strcmp(argv[2], "decode"))
        return cmd_biomes(argc - 3, argv + 3);
    if (argc >= 2 && !strcmp(argv[1], "generate"))
        return cmd_generate(argc - 2, argv + 2);
    if (argc < 3 || strcmp(argv[2], "decode") || (strcmp(argv[1], "subchunk") && strcmp(argv[1], "packet"))) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    opts o;
    int rc = parse_opts(argc - 3, argv + 3, &o);
    if (rc)
        return rc;
    return each_file(&o, !strcmp(argv[1], "subchunk") ? cmd_subchunk_one : cmd_packet_one);
}
