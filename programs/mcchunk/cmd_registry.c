/*
 * cmd_registry.c: `mcchunk registry`, a window on the block-state and biome
 * registries: look states up by text or number, list every state or biome
 * of a version, print the version table, and translate states between
 * versions. Output is one "id text" line per state, properties sorted by
 * name, so that it can be compared line by line with other tools.
 *
 * --report says how a translation approximates: per kind (exact, renamed,
 * same shape, nearest colour, air-like, lost) the number of states and the
 * list of block pairs (source block -> target block, how many states), as
 * text or JSON; the kinds come from the library's MC_TRANSLATE_* bits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "mcchunk/registry.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk registry --version V [--edition java|bedrock] [--hashed] STATE...\n"
            "       mcchunk registry --version V [--edition E] --list | --biomes | --info\n"
            "       mcchunk registry --version V --to V2 [--to-edition E] STATE... | --list\n"
            "       mcchunk registry --version V --to V2 [--to-edition E] --report [--json]\n"
            "       mcchunk registry --versions [--edition E]\n\n"
            "STATE is minecraft:name[key=value,...] (missing properties take the block's\n"
            "default) or a state id. Prints 'id state' per state, properties sorted by name.\n"
            "Java 1.8-1.12 states are id<<4|meta with one property, meta.\n"
            "  --version V    release (1.8.9, 1.12.2, 1.21.4, 26.1; Bedrock 1.21.60 ...)\n"
            "  --edition E    java (default) or bedrock\n"
            "  --hashed       Bedrock: print and read hashed runtime ids instead of indices\n"
            "  --list         every state of the registry\n"
            "  --biomes       every biome: 'id name'; with --to, 'id name -> id2 name2' and\n"
            "                 how a biome the target lacks was chosen (renamed, same-category\n"
            "                 or nearest climate)\n"
            "  --info         sizes and direct-palette widths\n"
            "  --to V2        translate each STATE into V2 ('id state -> id2 state2');\n"
            "                 with --list, the whole translation map; a translated STATE\n"
            "                 shows how it was approximated in parentheses\n"
            "  --report       with --to: per kind of approximation (exact, renamed, same-shape,\n"
            "                 nearest-colour, air-like, lost) the number of states of V, then\n"
            "                 per kind the block pairs 'block -> block2 (N states)'\n"
            "  --json         with --report: the same as one JSON object\n"
            "  --versions     the version table (Java: name protocol DataVersion registry)\n"
            "exit status: 0 ok, 1 a STATE that does not resolve, 2 usage error (bad option,\n"
            "unknown version)\n");
}

/* ---------------------------------------------------------- report */

typedef struct pair_count {
    const char *from, *to; /* block names (pool strings) */
    uint32_t states;
    uint8_t kind;
} pair_count;

static int pair_order(const void *a, const void *b)
{
    const pair_count *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    int c = strcmp(x->from, y->from);
    return c ? c : strcmp(x->to, y->to);
}

/* The block pairs of a map with their kind and state counts, sorted by
 * kind, then names; *n gets their number. NULL when memory runs out. */
static pair_count *report_pairs(const mc_registry *from, const mc_registry *to, const uint32_t *map,
                                const uint16_t *hows, size_t *n)
{
    size_t cap = 256, len = 0;
    pair_count *pairs = malloc(cap * sizeof *pairs);
    for (uint32_t s = mc_registry_next_state(from, MC_STATE_NONE); pairs && s != MC_STATE_NONE;
         s = mc_registry_next_state(from, s)) {
        const char *a = mc_registry_state_name(from, s), *b = mc_registry_state_name(to, map[s]);
        uint8_t kind = (uint8_t)mc_translate_kind_of(hows[s]);
        /* states of one block come in a run: the pair is usually the last one */
        size_t i = len;
        while (i > 0 && len - i < 8 && !(pairs[i - 1].from == a && pairs[i - 1].to == b && pairs[i - 1].kind == kind))
            i--;
        if (i > 0 && len - i < 8 && pairs[i - 1].from == a && pairs[i - 1].to == b && pairs[i - 1].kind == kind) {
            pairs[i - 1].states++;
            continue;
        }
        if (len == cap) {
            pair_count *more = realloc(pairs, 2 * cap * sizeof *pairs);
            if (!more) {
                free(pairs);
                return NULL;
            }
            pairs = more;
            cap *= 2;
        }
        pairs[len++] = (pair_count){a, b ? b : "?", 1, kind};
    }
    if (!pairs)
        return NULL;
    qsort(pairs, len, sizeof *pairs, pair_order);
    size_t out = 0; /* pairs a block's states split between runs: merge */
    for (size_t i = 0; i < len; i++) {
        if (out && !pair_order(&pairs[out - 1], &pairs[i]))
            pairs[out - 1].states += pairs[i].states;
        else
            pairs[out++] = pairs[i];
    }
    *n = out;
    return pairs;
}

static int print_report(const mc_registry *from, const mc_registry *to, bool json)
{
    const uint32_t *map = mc_registry_map(from, to);
    const uint16_t *hows = mc_registry_map_how(from, to);
    size_t n = 0;
    pair_count *pairs = map && hows ? report_pairs(from, to, map, hows, &n) : NULL;
    if (!pairs) {
        fprintf(stderr, "mcchunk registry: out of memory\n");
        return MC_EXIT_FAIL;
    }
    uint32_t counts[MC_TRANSLATE_KIND_COUNT] = {0}, total = 0, props = 0;
    for (uint32_t s = mc_registry_next_state(from, MC_STATE_NONE); s != MC_STATE_NONE; s = mc_registry_next_state(from, s)) {
        counts[mc_translate_kind_of(hows[s])]++;
        props += (hows[s] & (MC_TRANSLATE_PROP_DROPPED | MC_TRANSLATE_VALUE_DEFAULTED)) != 0;
        total++;
    }
    if (json) {
        printf("{\"from\":");
        mc_tool_json_string(stdout, mc_registry_name(from));
        printf(",\"to\":");
        mc_tool_json_string(stdout, mc_registry_name(to));
        printf(",\"states\":%u,\"properties_changed\":%u,\"counts\":{", total, props);
        for (int k = 0; k < MC_TRANSLATE_KIND_COUNT; k++)
            printf("%s\"%s\":%u", k ? "," : "", mc_translate_kind_name((mc_translate_kind)k), counts[k]);
        printf("},\"pairs\":{");
        for (int k = 0; k < MC_TRANSLATE_KIND_COUNT; k++) {
            printf("%s\"%s\":[", k ? "," : "", mc_translate_kind_name((mc_translate_kind)k));
            bool first = true;
            for (size_t i = 0; i < n; i++) {
                if (pairs[i].kind != k)
                    continue;
                printf("%s{\"from\":", first ? "" : ",");
                mc_tool_json_string(stdout, pairs[i].from);
                printf(",\"to\":");
                mc_tool_json_string(stdout, pairs[i].to);
                printf(",\"states\":%u}", pairs[i].states);
                first = false;
            }
            printf("]");
        }
        printf("}}\n");
    } else {
        printf("translation %s -> %s: %u states\n", mc_registry_name(from), mc_registry_name(to), total);
        for (int k = 0; k < MC_TRANSLATE_KIND_COUNT; k++)
            printf("  %-15s %6u\n", mc_translate_kind_name((mc_translate_kind)k), counts[k]);
        printf("  (%u states with a property dropped or defaulted)\n", props);
        for (int k = 0; k < MC_TRANSLATE_KIND_COUNT; k++) {
            if (!counts[k])
                continue;
            printf("\n%s (%u states):\n", mc_translate_kind_name((mc_translate_kind)k), counts[k]);
            for (size_t i = 0; i < n; i++)
                if (pairs[i].kind == k)
                    printf("  %s -> %s (%u)\n", pairs[i].from, pairs[i].to, pairs[i].states);
        }
    }
    free(pairs);
    return MC_EXIT_OK;
}

static bool parse_edition(const char *s, mc_edition *out)
{
    if (!strcmp(s, "java")) *out = MC_EDITION_JAVA;
    else if (!strcmp(s, "bedrock")) *out = MC_EDITION_BEDROCK;
    else return false;
    return true;
}

static void print_state(const mc_registry *reg, uint32_t state, bool hashed, const char *suffix)
{
    char text[1024];
    mc_registry_format_state(reg, state, text, sizeof text, MC_FORMAT_SORTED);
    printf("%u %s%s", hashed ? mc_registry_state_hash(reg, state) : state, text, suffix);
}

static bool parse_number(const char *s, uint32_t *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno || v > 0xFFFFFFFFull)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Resolves one STATE argument; prints an error and returns false on failure. */
static bool resolve(const mc_registry *reg, const char *arg, bool hashed, uint32_t *state)
{
    uint32_t n;
    if (parse_number(arg, &n)) {
        if (hashed) {
            n = mc_registry_state_from_hash(reg, n);
            if (n == MC_STATE_NONE) {
                fprintf(stderr, "mcchunk registry: no state has hash %s in %s\n", arg, mc_registry_name(reg));
                return false;
            }
        } else if (!mc_registry_state_valid(reg, n)) {
            fprintf(stderr, "mcchunk registry: %s is not a state of %s\n", arg, mc_registry_name(reg));
            return false;
        }
        *state = n;
        return true;
    }
    mc_error err;
    mc_error_clear(&err);
    if (mc_registry_parse_state(reg, arg, strlen(arg), state, &err) != MC_OK) {
        fprintf(stderr, "mcchunk registry: %s\n", err.message);
        return false;
    }
    return true;
}

static int print_versions(mc_edition edition)
{
    mc_version_info v;
    if (edition == MC_EDITION_BEDROCK) {
        for (size_t i = 0; mc_bedrock_version_at(i, &v); i++)
            printf("%s %d %s\n", v.name, v.protocol, v.registry ? mc_registry_name(v.registry) : "-");
        return MC_EXIT_OK;
    }
    for (size_t i = 0; mc_java_version_at(i, &v); i++)
        printf("%s %d %d %s\n", v.name, v.protocol, v.data_version,
               v.registry ? mc_registry_name(v.registry) : "-");
    return MC_EXIT_OK;
}

int mc_cmd_registry(int argc, char **argv)
{
    const char *version = NULL, *to_version = NULL;
    mc_edition edition = MC_EDITION_JAVA, to_edition = MC_EDITION_JAVA;
    bool hashed = false, list = false, biomes = false, versions = false, info = false, report = false, json = false;
    bool to_edition_set = false;
    int first_state = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--version") && i + 1 < argc) {
            version = argv[++i];
        } else if (!strcmp(a, "--to") && i + 1 < argc) {
            to_version = argv[++i];
        } else if (!strcmp(a, "--edition") && i + 1 < argc) {
            if (!parse_edition(argv[++i], &edition)) {
                usage(stderr);
                return MC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--to-edition") && i + 1 < argc) {
            if (!parse_edition(argv[++i], &to_edition)) {
                usage(stderr);
                return MC_EXIT_USAGE;
            }
            to_edition_set = true;
        } else if (!strcmp(a, "--hashed")) {
            hashed = true;
        } else if (!strcmp(a, "--list")) {
            list = true;
        } else if (!strcmp(a, "--biomes")) {
            biomes = true;
        } else if (!strcmp(a, "--info")) {
            info = true;
        } else if (!strcmp(a, "--report")) {
            report = true;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--versions")) {
            versions = true;
        } else if (!strcmp(a, "--")) {
            first_state = i + 1;
            break;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "mcchunk registry: unknown option or missing value: %s\n", a);
            usage(stderr);
            return MC_EXIT_USAGE;
        } else {
            first_state = i;
            break;
        }
    }
    if (versions)
        return print_versions(edition);
    if (!version) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    const mc_registry *reg = mc_registry_find_edition(edition, version);
    if (!reg) {
        fprintf(stderr, "mcchunk registry: unknown %s version %s; `mcchunk registry --versions%s` lists them\n",
                edition == MC_EDITION_BEDROCK ? "Bedrock" : "Java", version,
                edition == MC_EDITION_BEDROCK ? " --edition bedrock" : "");
        return MC_EXIT_USAGE;
    }
    if (hashed && mc_registry_edition(reg) != MC_EDITION_BEDROCK) {
        fprintf(stderr, "mcchunk registry: --hashed is for Bedrock registries\n");
        return MC_EXIT_USAGE;
    }
    if (info) {
        printf("registry %s (%s)\nstates %u (direct bits %u)\nbiomes %u (direct bits %u)\nair %u\n",
               mc_registry_name(reg), mc_registry_edition(reg) == MC_EDITION_BEDROCK ? "bedrock" : "java",
               mc_registry_state_count(reg), mc_registry_direct_bits(reg), mc_registry_biome_count(reg),
               mc_registry_biome_direct_bits(reg), mc_registry_air(reg));
        return MC_EXIT_OK;
    }
    const mc_registry *to = NULL;
    if (to_version) {
        mc_edition te = to_edition_set ? to_edition : edition;
        to = mc_registry_find_edition(te, to_version);
        if (!to) {
            fprintf(stderr, "mcchunk registry: unknown %s version %s; `mcchunk registry --versions%s` lists them\n",
                    te == MC_EDITION_BEDROCK ? "Bedrock" : "Java", to_version,
                    te == MC_EDITION_BEDROCK ? " --edition bedrock" : "");
            return MC_EXIT_USAGE;
        }
    }
    if ((report || json) && (!to || !report || list || biomes || first_state < argc)) {
        fprintf(stderr, "mcchunk registry: --report needs --to and no STATE, --list or --biomes; --json needs --report\n");
        return MC_EXIT_USAGE;
    }
    if (report)
        return print_report(reg, to, json);
    if (list) {
        const uint32_t *map = to ? mc_registry_map(reg, to) : NULL;
        if (to && !map) {
            fprintf(stderr, "mcchunk registry: out of memory\n");
            return MC_EXIT_FAIL;
        }
        for (uint32_t s = mc_registry_next_state(reg, MC_STATE_NONE); s != MC_STATE_NONE;
             s = mc_registry_next_state(reg, s)) {
            print_state(reg, s, hashed, to ? " -> " : "\n");
            if (to)
                print_state(to, map[s], false, "\n");
        }
        return MC_EXIT_OK;
    }
    if (biomes) {
        for (uint32_t id = 0; id < mc_registry_biome_count(reg); id++) {
            const char *name = mc_registry_biome_name(reg, id);
            if (!name)
                continue;
            printf("%u %s", id, name);
            if (to) {
                unsigned how = 0;
                uint32_t t = mc_registry_translate_biome(reg, to, id, &how);
                const char *tn = mc_registry_biome_name(to, t);
                mc_translate_kind kind = mc_translate_kind_of(how);
                printf(" -> %u %s", t, tn ? tn : "?");
                if (kind != MC_TRANSLATE_KIND_EXACT)
                    printf("  (%s)", kind == MC_TRANSLATE_KIND_SAME_SHAPE ? "same-category"
                                     : kind == MC_TRANSLATE_KIND_NEAREST_COLOR ? "nearest-climate"
                                                                               : mc_translate_kind_name(kind));
            }
            printf("\n");
        }
        return MC_EXIT_OK;
    }
    if (first_state >= argc) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    int status = MC_EXIT_OK;
    for (int i = first_state; i < argc; i++) {
        uint32_t state;
        if (!resolve(reg, argv[i], hashed, &state)) {
            status = MC_EXIT_FAIL;
            continue;
        }
        if (!to) {
            print_state(reg, state, hashed, "\n");
            continue;
        }
        unsigned how = 0;
        uint32_t t = mc_registry_translate_state(reg, to, state, &how);
        print_state(reg, state, hashed, " -> ");
        print_state(to, t, false, "");
        if (how) {
            static const char *const names[] = {"dropped", "defaulted", "renamed", "ancestor", "air",
                                                "mapped", "same-family", "nearest-colour", "air-like"};
            printf("  (");
            bool first = true;
            for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++)
                if (how & (1u << b)) {
                    printf("%s%s", first ? "" : ",", names[b]);
                    first = false;
                }
            printf(")");
        }
        printf("\n");
    }
    return status;
}
