/* fuzz_java_frame.c: Java packet framing on hostile bytes, with compression
 * off and on; every frame read back is re-framed and must read again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/java.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int threshold = data[0] & 1 ? -1 : (int)(data[0] >> 1) * 4;
    data++;
    size--;
    mc_buf scratch, again, scratch2;
    mc_buf_init(&scratch, NULL);
    mc_buf_init(&again, NULL);
    mc_buf_init(&scratch2, NULL);
    mc_java_zctx *z = mc_java_zctx_new(1);
    size_t off = 0;
    while (off < size) {
        const uint8_t *p;
        size_t pl, used;
        mc_error e;
        if (mc_java_frame_read(data + off, size - off, threshold, 0, z, &scratch, &p, &pl, &used, &e) != MC_OK)
            break;
        again.len = 0;
        if (mc_java_frame_write(&again, p, pl, threshold, z, NULL) == MC_OK) {
            const uint8_t *p2;
            size_t pl2, used2;
            if (mc_java_frame_read(again.data, again.len, threshold, 0, z, &scratch2, &p2, &pl2, &used2, &e) != MC_OK ||
                pl2 != pl || memcmp(p, p2, pl) != 0)
                abort();
        }
        off += used;
    }
    mc_java_zctx_free(z);
    mc_buf_free(&scratch);
    mc_buf_free(&again);
    mc_buf_free(&scratch2);
    return 0;
}
