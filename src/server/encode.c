/*
 * encode.c: the server's bridge to the Java chunk codecs (src/java): a column
 * in the world's registry becomes the Chunk Data packet (and Update Light for
 * 1.14-1.17) of a client's protocol, translated to its registry.
 *
 * Until the codecs are in the library this reports MC_ERR_UNSUPPORTED, and
 * the world sends no chunks (players still join and spawn).
 */
#include "server/session.h"

mc_status mc_server_encode_column(const struct mc_column *col, uint32_t protocol, mc_buf *chunk, mc_buf *light,
                                  mc_error *err)
{
    (void)col;
    (void)chunk;
    (void)light;
    return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "no Java chunk encoder for protocol %u in this build",
                        protocol);
}
