/*
 * encode.c: the server's bridge to the Java chunk codecs (src/java): a column
 * in the world's registry becomes the Chunk Data packet (and Update Light for
 * 1.14-1.17) of a client's protocol, translated to its registry by the codec.
 *
 * The world's columns span the 1.18+ overworld (-64..319). Clients before
 * 1.18 live in an overworld of 0..255, which the Join Game sent to them
 * says, so their columns are cut to the protocol's height first (the 1.17
 * codec sends a column's own height, which would shift everything). The
 * world caches the framed result per protocol, so this runs once per column
 * and protocol. The packets are those the library says carry a column
 * (mc_java_encode_column_packets): Chunk Data, Update Light for 1.14-1.17,
 * and for 1.8-1.9.2, whose Chunk Data has no block entities, an Update Sign
 * per sign and an Update Block Entity per head, pot, banner, spawner, ...
 */
#include "server/encode.h"

#include "mcchunk/chunk.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

/* Frames one packet of the column's sequence into the entry's bytes. */
typedef struct framer {
    mc_buf *out;
    int threshold;
    mc_java_zctx *z;
    mc_error *err;
} framer;

static mc_status frame_one(void *user, const uint8_t *packet, size_t len)
{
    framer *f = user;
    return mc_java_frame_write(f->out, packet, len, f->threshold, f->z, f->err);
}

mc_status srv_server_encode_column(const struct mc_column *col, uint32_t protocol, int threshold, mc_java_zctx *z,
                                   mc_buf *framed, mc_error *err)
{
    int32_t min_y;
    uint32_t height;
    mc_status st = mc_java_default_height(protocol, &min_y, &height, err);
    if (st != MC_OK)
        return st;
    framer f = {framed, threshold, z, err};
    if (mc_column_min_section(col) == min_y >> 4 && mc_column_section_count(col) == height >> 4)
        return mc_java_encode_column_packets(col, protocol, frame_one, &f, err);
    mc_column *cut = mc_column_reshape(col, min_y >> 4, height >> 4, NULL, err);
    if (!cut)
        return err && err->status != MC_OK ? err->status : MC_ERR_NOMEM;
    st = mc_java_encode_column_packets(cut, protocol, frame_one, &f, err);
    mc_column_free(cut);
    return st;
}
