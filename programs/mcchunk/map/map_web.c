/*
 * map_web.c: the page's files (generated into data/web_assets.c by
 * scripts/vendor-leaflet.sh) and the per-dimension data script the page
 * loads (tiles/DIM/map-data.js), for the static map and the live one alike.
 */
#include "map/map_tiles.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void map_say(char *buf, size_t size, const char *fmt, ...)
{
    if (!buf || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

const map_web_asset *map_web_find(const char *path)
{
    for (size_t i = 0; i < map_web_asset_count; i++)
        if (!strcmp(map_web_assets[i].path, path))
            return &map_web_assets[i];
    return NULL;
}

/* A JSON string (only names we made or checked go here; escaped anyway). */
static void put_json_string(mc_buf *b, const char *s)
{
    mc_buf_put_u8(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c < 0x20 || c == '<') {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            mc_buf_put(b, esc, 6);
        } else {
            mc_buf_put_u8(b, c);
        }
    }
    mc_buf_put_u8(b, '"');
}

char *map_web_data_js(const char *dimension, int zooms, bool live, const int32_t bounds[4], char *const *tiles,
                      size_t ntiles)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    char head[256];
    int n = snprintf(head, sizeof head, "window.MCCHUNK_MAP = {\"zooms\": %d, \"live\": %s, \"bounds\": [%d, %d, %d, %d], "
                     "\"dimension\": ", zooms, live ? "true" : "false", bounds[0], bounds[1], bounds[2], bounds[3]);
    mc_buf_put(&b, head, (size_t)n);
    put_json_string(&b, dimension);
    mc_buf_put(&b, ", \"tiles\": ", 11);
    if (!tiles) {
        mc_buf_put(&b, "null", 4);
    } else {
        mc_buf_put_u8(&b, '[');
        for (size_t i = 0; i < ntiles; i++) {
            if (i)
                mc_buf_put(&b, i % 8 ? ", " : ",\n", 2);
            put_json_string(&b, tiles[i]);
        }
        mc_buf_put_u8(&b, ']');
    }
    mc_buf_put(&b, "};\n", 4); /* with the terminating NUL */
    if (!mc_buf_ok(&b)) {
        mc_buf_free(&b);
        return NULL;
    }
    size_t len, cap;
    return (char *)mc_buf_detach(&b, &len, &cap);
}

void map_json_string(mc_buf *b, const char *s)
{
    put_json_string(b, s);
}
