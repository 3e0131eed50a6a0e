/*
 * encode.c: the server's bridge to the Java chunk codecs (src/java): a column
 * in the world's registry becomes the Chunk Data packet (and Update Light for
 * 1.14-1.17) of a client's protocol, translated to its registry by the codec.
 * The world caches the framed result per protocol, so this runs once per
 * column and protocol.
 */
#include "mcchunk/java.h"
#include "server/session.h"

mc_status mc_server_encode_column(const struct mc_column *col, uint32_t protocol, mc_buf *chunk, mc_buf *light,
                                  mc_error *err)
{
    return mc_java_encode_chunk(col, protocol, chunk, light, err);
}
