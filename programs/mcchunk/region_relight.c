/*
 * region_relight.c: `mcchunk region relight FILE...`: recomputes the sky and
 * block light of every full chunk of region files with the library's light
 * engine and writes each chunk back crash-safely (mc_region_write_chunk:
 * the file always holds the old or the new chunk), with isLightOn set.
 *
 * Kept apart from cmd_region.c (which only dispatches here) because it is
 * the one region subcommand that decodes chunks into columns. A region file
 * alone does not know the chunks of the files next to it: chunks at the
 * file's edge are lit with those neighbours absent (as the game treats
 * unloaded chunks). Full chunks: Status "full" / "minecraft:full" (1.14+;
 * older chunks have no light engine of this kind and are left alone). The
 * light-only sections below and above the world keep what they held.
 */
#include "region_relight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "mcchunk/mcchunk.h"

/* The compound holding Status and isLightOn: the root, or Level before 1.18. */
static mc_nbt_tag *status_holder(mc_column *col)
{
    mc_nbt_tag *x = mc_column_extra(col);
    if (!x)
        return NULL;
    mc_nbt_tag *level = mc_nbt_get(x, "Level");
    return level ? level : x;
}

static bool is_full(mc_column *col)
{
    mc_nbt_tag *h = status_holder(col), *st = h ? mc_nbt_get(h, "Status") : NULL;
    const char *s;
    size_t n;
    return st && mc_nbt_get_string(st, &s, &n) == MC_OK &&
           ((n == 4 && !memcmp(s, "full", 4)) || (n == 14 && !memcmp(s, "minecraft:full", 14)));
}

static int relight_file(const char *path, mc_light_engine *eng, bool quiet)
{
    mc_region_options opt = {0};
    opt.writable = true;
    mc_region *region;
    mc_error err;
    if (mc_region_open(path, &opt, &region, &err) != MC_OK) {
        fprintf(stderr, "mcchunk region relight: %s: %s\n", path, err.message);
        return MC_EXIT_FAIL;
    }
    mc_column **cols = calloc(32 * 32, sizeof *cols);
    bool *full = calloc(32 * 32, sizeof *full);
    int32_t *dv = calloc(32 * 32, sizeof *dv);
    uint8_t *comp = calloc(32 * 32, 1);
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    int rc = cols && full && dv && comp ? MC_EXIT_OK : MC_EXIT_FAIL;
    unsigned nchunks = 0, nfull = 0, written = 0;
    for (int i = 0; i < 32 * 32 && rc == MC_EXIT_OK; i++) {
        if (!mc_region_has_chunk(region, i % 32, i / 32))
            continue;
        nchunks++;
        nbt.len = 0;
        mc_region_record rec;
        if (mc_region_read_chunk(region, i % 32, i / 32, &nbt, &rec, &err) != MC_OK ||
            mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, &cols[i], &err) != MC_OK) {
            fprintf(stderr, "mcchunk region relight: %s: chunk %d %d: %s (left as it is)\n", path, i % 32,
                    i / 32, err.message);
            cols[i] = NULL;
            continue;
        }
        dv[i] = mc_chunknbt_column_data_version(cols[i]);
        comp[i] = rec.compression;
        full[i] = is_full(cols[i]) && dv[i] >= 1952; /* 1.14's light engine on */
        nfull += full[i];
    }
    for (int i = 0; i < 32 * 32 && rc == MC_EXIT_OK; i++) {
        if (!full[i])
            continue;
        const int lx = i % 32, lz = i / 32;
        const mc_column *nb[8];
        int k = 0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dx = -1; dx <= 1; dx++)
                if (dx || dz) {
                    const int x = lx + dx, z = lz + dz;
                    nb[k++] = x >= 0 && x < 32 && z >= 0 && z < 32 ? cols[z * 32 + x] : NULL;
                }
        /* relighting one chunk changes only its own light, which no
         * later call reads (mc_light_column reads blocks only) */
        mc_nbt_tag *h = status_holder(cols[i]), *on = h ? mc_nbt_get(h, "isLightOn") : NULL;
        if (mc_light_column(eng, cols[i], nb, MC_LIGHT_BOTH, &err) != MC_OK ||
            (on ? mc_nbt_set_byte(on, 1) : h ? mc_nbt_put_byte(mc_column_nbt(cols[i]), h, "isLightOn", 1)
                                              : MC_ERR_NOMEM) != MC_OK) {
            fprintf(stderr, "mcchunk region relight: %s: chunk %d %d: %s\n", path, lx, lz,
                    on || h ? err.message : "no memory");
            rc = MC_EXIT_FAIL;
            break;
        }
        nbt.len = 0; /* written back with the compression it had (custom: zlib) */
        const mc_compression c = comp[i] == MC_COMPRESSION_GZIP || comp[i] == MC_COMPRESSION_NONE ||
                                         comp[i] == MC_COMPRESSION_LZ4
                                     ? (mc_compression)comp[i]
                                     : MC_COMPRESSION_ZLIB;
        if (mc_chunknbt_write_bytes(cols[i], dv[i], &nbt, NULL, &err) != MC_OK ||
            mc_region_write_chunk(region, lx, lz, nbt.data, nbt.len, c, 0, &err) != MC_OK) {
            fprintf(stderr, "mcchunk region relight: %s: chunk %d %d: %s\n", path, lx, lz, err.message);
            rc = MC_EXIT_FAIL;
            break;
        }
        written++;
    }
    if (!quiet)
        printf("%s: %u chunks, %u full, %u relit\n", path, nchunks, nfull, written);
    for (int i = 0; cols && i < 32 * 32; i++)
        mc_column_free(cols[i]);
    free(cols);
    free(full);
    free(dv);
    free(comp);
    mc_buf_free(&nbt);
    mc_region_close(region);
    return rc;
}

int mc_region_relight(int nfiles, const char *const *files, bool quiet)
{
    mc_light_engine *eng = mc_light_engine_new(NULL);
    if (!eng) {
        fprintf(stderr, "mcchunk region relight: out of memory\n");
        return MC_EXIT_FAIL;
    }
    int rc = MC_EXIT_OK;
    for (int i = 0; i < nfiles; i++)
        if (relight_file(files[i], eng, quiet) != MC_EXIT_OK)
            rc = MC_EXIT_FAIL;
    mc_light_engine_free(eng);
    return rc;
}
