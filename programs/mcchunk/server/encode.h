/* encode.h: a world column as a Java client's chunk packets (encode.c). */
#ifndef MC_SERVER_ENCODE_H
#define MC_SERVER_ENCODE_H

#include <stdint.h>

#include "mcchunk/core.h"

struct mc_column;

/* Encodes a column for a protocol: Chunk Data (id + body) into chunk, and
 * for 1.14-1.17 Update Light into light (left empty otherwise). The column
 * is fitted to the protocol's overworld height first (0..255 before 1.18). */
mc_status srv_server_encode_column(const struct mc_column *col, uint32_t protocol, mc_buf *chunk, mc_buf *light,
                                   mc_error *err);

#endif
