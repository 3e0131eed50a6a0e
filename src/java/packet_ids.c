/*
 * packet_ids.c: look-ups in the generated packet-id table.
 *
 * The table (data/packet_ids.c) holds, per protocol, pairs sorted by a key of
 * state, direction and id, so id -> name is a binary search and name -> id a
 * binary search for the state's run, then a linear scan of it (at most ~130
 * packets). Protocols are sorted by number.
 */
#include <stdlib.h>
#include <string.h>

#include "java/packet_table.h"
#include "mcchunk/java.h"

static const mc__java_packet_protocol *find_protocol(uint32_t protocol)
{
    unsigned lo = 0, hi = mc__java_packet_protocol_count;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        uint32_t p = mc__java_packet_protocols[mid].protocol;
        if (p == protocol)
            return &mc__java_packet_protocols[mid];
        if (p < protocol)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static unsigned key_of(mc_java_state state, mc_java_dir dir, unsigned id)
{
    return ((unsigned)state << 12) | ((unsigned)dir << 11) | id;
}

int mc_java_packet_id(uint32_t protocol, mc_java_state state, mc_java_dir dir, const char *name)
{
    const mc__java_packet_protocol *p = find_protocol(protocol);
    if (!p || !name || (unsigned)state > MC_JAVA_PLAY || (unsigned)dir > MC_JAVA_TO_SERVER)
        return -1;
    const unsigned lo = key_of(state, dir, 0), hi = key_of(state, dir, 0x7FF);
    /* the state's packets are one run of the sorted pairs: find its start */
    uint32_t a = 0, b = p->count;
    while (a < b) {
        const uint32_t mid = (a + b) / 2;
        if (p->entries[2 * mid] < lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (uint32_t i = a; i < p->count && p->entries[2 * i] <= hi; i++) {
        const char *n = mc__java_packet_names[p->entries[2 * i + 1]];
        if (n[0] == name[0] && !strcmp(n, name))
            return (int)(p->entries[2 * i] & 0x7FF);
    }
    return -1;
}

const char *mc_java_packet_name(uint32_t protocol, mc_java_state state, mc_java_dir dir, int id)
{
    const mc__java_packet_protocol *p = find_protocol(protocol);
    if (!p || id < 0 || id > 0x7FF || (unsigned)state > MC_JAVA_PLAY || (unsigned)dir > MC_JAVA_TO_SERVER)
        return NULL;
    unsigned key = key_of(state, dir, (unsigned)id);
    uint32_t lo = 0, hi = p->count;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        unsigned k = p->entries[2 * mid];
        if (k == key)
            return mc__java_packet_names[p->entries[2 * mid + 1]];
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool mc_java_protocol_known(uint32_t protocol, const char **version)
{
    const mc__java_packet_protocol *p = find_protocol(protocol);
    if (version)
        *version = p ? p->version : NULL;
    return p != NULL;
}

uint32_t mc_java_protocol_at(unsigned i)
{
    return i < mc__java_packet_protocol_count ? mc__java_packet_protocols[i].protocol : 0;
}
