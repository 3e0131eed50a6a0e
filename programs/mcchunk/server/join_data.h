/* join_data.h: the generated per-protocol Join Game and Registry Data
 * packets (scripts/gen-server-data.js -> data/join_data.c). */
#ifndef MC_SERVER_JOIN_DATA_H
#define MC_SERVER_JOIN_DATA_H

#include <stdint.h>

typedef struct srv_join_data {
    uint32_t protocol;
    const char *version;      /* release the data was made for */
    const uint8_t *z;         /* zlib stream */
    uint32_t z_len, raw_len;  /* compressed and inflated sizes */
    uint32_t login_len;       /* the Join Game packet (id + body) opens the raw data */
    int32_t view_distance_at; /* offset of the view-distance byte in it, or -1 */
    int32_t simulation_distance_at;
    uint32_t registry_packets; /* (u32le length, packet) pairs that follow */
} srv_join_data;

extern const srv_join_data srv_join_data_table[];
extern const unsigned srv_join_data_count;

#endif
