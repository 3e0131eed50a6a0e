/*
 * registry-dump.c: prints everything the public registry API says about
 * every registry and version, so two builds of the library can be compared
 * after a change to how the registry tables are stored or generated (the
 * regenerated tables must say exactly what the old ones said).
 *
 * Per registry: its name, edition, counts and direct-palette widths; per
 * state the id, the sorted state text, the flags and (Bedrock) the hashed id
 * and the state found from that hash; per biome id its name and the id
 * found from the name. The translation maps from every registry to its
 * neighbours and to the oldest and newest of each edition (they read
 * Bedrock's maps to and from Java) are printed as one FNV-1a hash each,
 * with a sample of one-state translations and their flags as another. Then both version tables. Only the public API, so the same source
 * builds against any version of the library.
 *
 * usage (from the repository root, for a build in build/):
 *   cc -O2 -Iinclude scripts/registry-dump.c build/libmcchunk.so \
 *      -Wl,-rpath,$PWD/build -o /tmp/registry-dump && /tmp/registry-dump > dump.txt
 * then the same against the other build, and `cmp` the two dumps.
 */
#include <stdio.h>
#include <string.h>

#include "mcchunk/mcchunk.h"

static uint32_t fnv(uint32_t h, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        h = (h ^ ((v >> (8 * i)) & 0xFF)) * 16777619u;
    return h;
}

int main(void)
{
    char text[1024];
    size_t n = mc_registry_count();
    for (size_t r = 0; r < n; r++) {
        const mc_registry *reg = mc_registry_at(r);
        bool bedrock = mc_registry_edition(reg) == MC_EDITION_BEDROCK;
        printf("registry %zu %s %s states %u biomes %u bits %u %u air %u\n", r, mc_registry_name(reg),
               bedrock ? "bedrock" : "java", mc_registry_state_count(reg), mc_registry_biome_count(reg),
               mc_registry_direct_bits(reg), mc_registry_biome_direct_bits(reg), mc_registry_air(reg));
        for (uint32_t s = 0; s < mc_registry_state_count(reg); s++) {
            mc_registry_format_state(reg, s, text, sizeof text, MC_FORMAT_SORTED);
            printf("%u %s flags %u", s, text, mc_registry_state_flags(reg, s));
            if (bedrock) {
                uint32_t h = mc_registry_state_hash(reg, s);
                printf(" hash %u back %u", h, mc_registry_state_from_hash(reg, h));
            }
            printf("\n");
        }
        for (uint32_t b = 0; b < mc_registry_biome_count(reg); b++) {
            const char *name = mc_registry_biome_name(reg, b);
            printf("biome %u %s %u\n", b, name ? name : "-", name ? mc_registry_biome_id(reg, name) : 0);
        }
    }
    /* maps to the neighbours and to the ends of both editions (every pair
     * would cache n^2 maps); all Java 1.8-26.1 and Bedrock registries meet */
    size_t java_count = 0, pivot = 0;
    while (java_count < n && mc_registry_edition(mc_registry_at(java_count)) == MC_EDITION_JAVA)
        java_count++;
    for (size_t i = 0; i < java_count; i++)
        if (!strcmp(mc_registry_name(mc_registry_at(i)), "1.13"))
            pivot = i;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
            if (!(b + 1 == a || b == a + 1 || b == 0 || b == pivot || b + 1 == java_count ||
                  b == java_count || b + 1 == n))
                continue;
            const mc_registry *from = mc_registry_at(a), *to = mc_registry_at(b);
            const uint32_t *map = mc_registry_map(from, to);
            uint32_t h = 2166136261u, hh = 2166136261u;
            for (uint32_t s = 0; map && s < mc_registry_state_count(from); s++)
                h = fnv(h, map[s]);
            /* the one-state path (and its flags) on a sample of states */
            for (uint32_t s = 0; s < mc_registry_state_count(from); s += 7) {
                unsigned how = 0;
                hh = fnv(fnv(hh, mc_registry_translate_state(from, to, s, &how)), how);
            }
            printf("map %s/%d -> %s/%d %s %08x %08x\n", mc_registry_name(from), (int)mc_registry_edition(from),
                   mc_registry_name(to), (int)mc_registry_edition(to), map ? "ok" : "NULL", h, hh);
        }
    mc_version_info v;
    for (size_t i = 0; mc_java_version_at(i, &v); i++)
        printf("java %s %d %d %s\n", v.name, v.protocol, v.data_version, v.registry ? mc_registry_name(v.registry) : "-");
    for (size_t i = 0; mc_bedrock_version_at(i, &v); i++)
        printf("bedrock %s %d %s\n", v.name, v.protocol, v.registry ? mc_registry_name(v.registry) : "-");
    return 0;
}
