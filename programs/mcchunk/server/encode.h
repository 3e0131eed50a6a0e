/* encode.h: a world column as a Java client's chunk packets (encode.c). */
#ifndef MC_SERVER_ENCODE_H
#define MC_SERVER_ENCODE_H

#include <stdint.h>

#include "mcchunk/core.h"
#include "mcchunk/java.h"

struct mc_column;

/* Appends to `framed` the packets that carry a column to a client of
 * `protocol`, each framed for the connection (threshold, z as
 * mc_java_frame_write): Chunk Data, Update Light for 1.14-1.17, and for
 * 1.8-1.9.2 the Update Sign / Update Block Entity packets of its block
 * entities. The column is fitted to the protocol's overworld height first
 * (0..255 before 1.18) and translated to its registry by the codec. */
mc_status srv_server_encode_column(const struct mc_column *col, uint32_t protocol, int threshold, mc_java_zctx *z,
                                   mc_buf *framed, mc_error *err);

#endif
