/* fuzz_server_http.c: the web map's request parser (server/http_parse.c) on
 * any bytes: whatever comes in, it answers a route or a 4xx, never reads
 * past the input, and what it accepts is well formed (a tile has a zoom in
 * range and a known dimension; an asset is one of the page's files).
 * Seeds: fuzz/corpus/fuzz_server_http/ (written by hand: a few requests). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_tiles.h"
#include "server/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *copy = malloc(size ? size : 1); /* exactly the input: overreads show */
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    srv_http_request r;
    srv_http_parse(copy, size, 4, &r);
    if (r.status == 0) {
        if (r.route == SRV_HTTP_TILE && (r.zoom < 0 || r.zoom > 4 || r.dimension < 0 || r.dimension >= SRV_HTTP_DIMENSIONS))
            abort();
        if (r.route == SRV_HTTP_ASSET && (!r.asset || !memchr(copy, '/', size)))
            abort();
    } else if (r.status < 400 || r.status > 499 || !r.error) {
        abort();
    }
    free(copy);
    return 0;
}
