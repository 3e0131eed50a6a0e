/* packet_table.h: layout of the generated packet-id table (data/packet_ids.c). */
#ifndef MC_JAVA_PACKET_TABLE_H
#define MC_JAVA_PACKET_TABLE_H

#include <stdint.h>

typedef struct {
    uint32_t protocol;
    const char *version;     /* the release (or snapshot) the ids were taken from */
    const uint16_t *entries; /* pairs: (state << 12) | (dir << 11) | id, name index; sorted */
    uint32_t count;          /* number of pairs */
} mc__java_packet_protocol;

extern const char *const mc__java_packet_names[];
extern const unsigned mc__java_packet_name_count;
extern const mc__java_packet_protocol mc__java_packet_protocols[];
extern const unsigned mc__java_packet_protocol_count;

#endif
