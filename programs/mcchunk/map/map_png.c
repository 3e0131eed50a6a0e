/*
 * map_png.c: PNG output through libspng: a whole image into memory (tiles,
 * the web map's answers), or a file written a band of rows at a time
 * (`mcchunk render -o`, whose image can be larger than memory should hold).
 *
 * A file is written as OUT.tmp-PID beside OUT and renamed over it only
 * when complete, so an interrupted render leaves OUT as it was.
 *
 * Rows unfiltered (filter type 0) at compression level 3: a map is runs of
 * the same few colours, which deflate finds as they are; the default
 * choice among the five filters per row costs more than the deflate and
 * turns those runs into noisier differences. On bench_render's corpus
 * tiles (encoded with both in one run): 6.7 ms and 54 KiB a 512x512 tile
 * unfiltered vs 28.6 ms and 82 KiB with the filter choice (SUB: 10.1 ms,
 * 74 KiB; unfiltered at level 1: 5.0 ms, 60 KiB).
 */
#include "map/map.h"

#include <errno.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAP_PNG_LEVEL 3

static bool set_header(spng_ctx *ctx, uint32_t width, uint32_t height)
{
    struct spng_ihdr ihdr = {0};
    ihdr.width = width;
    ihdr.height = height;
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
    return spng_set_ihdr(ctx, &ihdr) == 0 && spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, MAP_PNG_LEVEL) == 0 &&
           spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_NONE) == 0;
}

bool map_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, uint8_t **out,
                    size_t *out_len, char *err, size_t err_size)
{
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    int rc = ctx ? 0 : SPNG_EMEM;
    if (!rc)
        rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    if (!rc && !set_header(ctx, width, height))
        rc = SPNG_EINTERNAL;
    if (!rc)
        rc = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG, SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    for (uint32_t y = 0; !rc && y < height; y++) {
        rc = spng_encode_row(ctx, rgba + (size_t)y * stride, (size_t)width * 4);
        if (rc == SPNG_EOI && y == height - 1)
            rc = 0;
    }
    void *png = NULL;
    if (!rc)
        png = spng_get_png_buffer(ctx, out_len, &rc);
    spng_ctx_free(ctx);
    if (rc || !png) {
        free(png);
        map_say(err, err_size, "PNG encoding failed: %s", spng_strerror(rc ? rc : SPNG_EMEM));
        return false;
    }
    *out = png;
    return true;
}

bool map_png_decode_tile(const uint8_t *png, size_t len, uint8_t *rgba)
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    size_t need = 0;
    bool ok = ctx && spng_set_png_buffer(ctx, png, len) == 0 && spng_get_ihdr(ctx, &ihdr) == 0 &&
              ihdr.width == MAP_REGION_BLOCKS && ihdr.height == MAP_REGION_BLOCKS &&
              spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &need) == 0 && need == MAP_REGION_BYTES &&
              spng_decode_image(ctx, rgba, MAP_REGION_BYTES, SPNG_FMT_RGBA8, 0) == 0;
    spng_ctx_free(ctx);
    return ok;
}

struct map_png_writer {
    spng_ctx *ctx;
    FILE *file;
    char *path, *tmp;
    uint32_t width, height, written;
};

map_png_writer *map_png_writer_open(const char *path, uint32_t width, uint32_t height, char *err,
                                    size_t err_size)
{
    map_png_writer *pw = calloc(1, sizeof *pw);
    size_t n = strlen(path) + 32;
    if (!pw || !(pw->path = strdup(path)) || !(pw->tmp = malloc(n))) {
        map_png_writer_abort(pw);
        map_say(err, err_size, "out of memory");
        return NULL;
    }
    snprintf(pw->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    pw->width = width;
    pw->height = height;
    if (!(pw->file = fopen(pw->tmp, "wb"))) {
        map_say(err, err_size, "cannot write %s: %s", pw->tmp, strerror(errno));
        map_png_writer_abort(pw);
        return NULL;
    }
    pw->ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    int rc = pw->ctx ? spng_set_png_file(pw->ctx, pw->file) : SPNG_EMEM;
    if (!rc && !set_header(pw->ctx, width, height))
        rc = SPNG_EINTERNAL;
    if (!rc)
        rc = spng_encode_image(pw->ctx, NULL, 0, SPNG_FMT_PNG, SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE);
    if (rc) {
        map_say(err, err_size, "PNG encoding failed: %s", spng_strerror(rc));
        map_png_writer_abort(pw);
        return NULL;
    }
    return pw;
}

bool map_png_writer_rows(map_png_writer *pw, const uint8_t *rgba, uint32_t rows, size_t stride, char *err,
                         size_t err_size)
{
    for (uint32_t y = 0; y < rows; y++) {
        if (pw->written >= pw->height) {
            map_say(err, err_size, "more rows than the image has");
            return false;
        }
        int rc = spng_encode_row(pw->ctx, rgba + (size_t)y * stride, (size_t)pw->width * 4);
        pw->written++;
        if (rc && !(rc == SPNG_EOI && pw->written == pw->height)) {
            map_say(err, err_size, "PNG encoding failed: %s", spng_strerror(rc));
            return false;
        }
    }
    return true;
}

bool map_png_writer_close(map_png_writer *pw, char *err, size_t err_size)
{
    bool ok = pw->written == pw->height;
    if (!ok)
        map_say(err, err_size, "image incomplete");
    spng_ctx_free(pw->ctx);
    pw->ctx = NULL;
    if (ok && (fflush(pw->file) != 0 || fsync(fileno(pw->file)) != 0)) {
        map_say(err, err_size, "cannot write %s: %s", pw->tmp, strerror(errno));
        ok = false;
    }
    if (fclose(pw->file) != 0 && ok) {
        map_say(err, err_size, "cannot write %s: %s", pw->tmp, strerror(errno));
        ok = false;
    }
    pw->file = NULL;
    if (ok && rename(pw->tmp, pw->path) != 0) {
        map_say(err, err_size, "cannot rename %s to %s: %s", pw->tmp, pw->path, strerror(errno));
        ok = false;
    }
    if (!ok)
        unlink(pw->tmp);
    free(pw->path);
    free(pw->tmp);
    free(pw);
    return ok;
}

void map_png_writer_abort(map_png_writer *pw)
{
    if (!pw)
        return;
    spng_ctx_free(pw->ctx);
    if (pw->file) {
        fclose(pw->file);
        unlink(pw->tmp);
    }
    free(pw->path);
    free(pw->tmp);
    free(pw);
}
