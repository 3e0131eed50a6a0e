/*
 * http_parse.c: what a request to the web map asks for (http.h), decided
 * from its bytes alone, without I/O, so that it can be fuzzed
 * (fuzz/fuzz_server_http.c).
 *
 * Only the request line is read: the method (GET, HEAD), the path (up to
 * 256 bytes, the query dropped), "HTTP/1.x". A path is answered only when
 * every byte is a letter, a digit or one of "/._-", with no ".." and no
 * "//", and it names one of the page's files, /dimensions.js,
 * /players.json, /tiles/DIM/map-data.js or a tile /tiles/DIM/Z/TX/TZ.png
 * with whole decimal numbers: Z in 0..max_zoom, TX and TZ inside the
 * world's 30,000,000 blocks at that zoom (negative numbers are tiles west
 * and north of the origin, like any others).
 */
#include "server/http.h"

#include <string.h>

#include "map/map.h"
#include "map/map_tiles.h"

const char *const srv_http_dimensions[SRV_HTTP_DIMENSIONS] = {"overworld", "the_nether", "the_end"};

static void refuse(srv_http_request *r, int status, const char *why)
{
    r->status = status;
    r->error = why;
}

/* A decimal integer, the whole of [s, end), in lo..hi. */
static bool parse_int(const char *s, const char *end, long long lo, long long hi, int32_t *out)
{
    bool neg = s < end && *s == '-';
    const char *p = s + neg;
    if (p == end || end - p > 9)
        return false;
    long long v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (*p - '0');
    }
    v = neg ? -v : v;
    if (v < lo || v > hi)
        return false;
    *out = (int32_t)v;
    return true;
}

/* /tiles/DIM/map-data.js or /tiles/DIM/Z/TX/TZ.png; `p` after "/tiles/". */
static void parse_tiles(const char *p, const char *end, int max_zoom, srv_http_request *r)
{
    r->dimension = -1;
    for (int i = 0; i < SRV_HTTP_DIMENSIONS; i++) {
        size_t n = strlen(srv_http_dimensions[i]);
        if ((size_t)(end - p) > n && !memcmp(p, srv_http_dimensions[i], n) && p[n] == '/')
            r->dimension = i;
    }
    if (r->dimension < 0) {
        refuse(r, 404, "no such dimension (overworld, the_nether, the_end)\n");
        return;
    }
    p += strlen(srv_http_dimensions[r->dimension]) + 1;
    if (end - p == 11 && !memcmp(p, "map-data.js", 11)) {
        r->route = SRV_HTTP_MAP_DATA;
        return;
    }
    const char *s1 = memchr(p, '/', (size_t)(end - p));
    const char *s2 = s1 ? memchr(s1 + 1, '/', (size_t)(end - s1 - 1)) : NULL;
    if (!s2 || end - s2 < 5 || memcmp(end - 4, ".png", 4) || !parse_int(p, s1, 0, 99, &r->zoom)) {
        refuse(r, 400, "tiles are /tiles/DIM/Z/TX/TZ.png with whole numbers\n");
        return;
    }
    if (r->zoom > max_zoom) {
        refuse(r, 400, "zoom out of range\n");
        return;
    }
    int32_t limit = (MAP_REGION_LIMIT >> r->zoom) + 1;
    if (!parse_int(s1 + 1, s2, -limit, limit, &r->tx) || !parse_int(s2 + 1, end - 4, -limit, limit, &r->tz)) {
        refuse(r, 400, "tile numbers must be whole numbers inside the world\n");
        return;
    }
    r->route = SRV_HTTP_TILE;
}

static void parse_path(const char *path, size_t len, int max_zoom, srv_http_request *r)
{
    for (size_t i = 0; i < len; i++) {
        char ch = path[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '/' ||
                  ch == '.' || ch == '-' || ch == '_';
        if (!ok || (ch == '.' && i && path[i - 1] == '.') || (ch == '/' && i && path[i - 1] == '/')) {
            refuse(r, 400, "bad path\n");
            return;
        }
    }
    if (len == 1) {
        path = "/index.html";
        len = 11;
    }
    if (len == 13 && !memcmp(path, "/players.json", 13)) {
        r->route = SRV_HTTP_PLAYERS;
    } else if (len == 14 && !memcmp(path, "/dimensions.js", 14)) {
        r->route = SRV_HTTP_DIMENSIONS_JS;
    } else if (len > 7 && !memcmp(path, "/tiles/", 7)) {
        parse_tiles(path + 7, path + len, max_zoom, r);
    } else {
        char name[64];
        if (len - 1 < sizeof name) {
            memcpy(name, path + 1, len - 1);
            name[len - 1] = '\0';
            r->asset = map_web_find(name);
        }
        if (r->asset)
            r->route = SRV_HTTP_ASSET;
        else
            refuse(r, 404, "not found\n");
    }
}

void srv_http_parse(const char *buf, size_t len, int max_zoom, srv_http_request *r)
{
    memset(r, 0, sizeof *r);
    const char *line_end = memchr(buf, '\r', len);
    const char *sp1 = line_end ? memchr(buf, ' ', (size_t)(line_end - buf)) : NULL;
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp2 || line_end - sp2 != 9 || memcmp(sp2 + 1, "HTTP/1.", 7) || sp2[8] < '0' || sp2[8] > '9') {
        refuse(r, 400, "bad request line\n");
        return;
    }
    size_t mlen = (size_t)(sp1 - buf);
    r->head = mlen == 4 && !memcmp(buf, "HEAD", 4);
    if (!r->head && !(mlen == 3 && !memcmp(buf, "GET", 3))) {
        refuse(r, 405, "only GET and HEAD\n");
        return;
    }
    const char *path = sp1 + 1;
    size_t plen = (size_t)(sp2 - path);
    const char *q = memchr(path, '?', plen);
    if (q)
        plen = (size_t)(q - path); /* the page keeps its view in the fragment; queries mean nothing here */
    if (!plen || path[0] != '/') {
        refuse(r, 400, "bad path\n");
        return;
    }
    if (plen > 256) {
        refuse(r, 414, "path too long\n");
        return;
    }
    parse_path(path, plen, max_zoom, r);
}
