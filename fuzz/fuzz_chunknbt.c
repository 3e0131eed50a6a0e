/*
 * fuzz_chunknbt.c: chunk NBT -> model, for every era, and what a program
 * does next with an accepted column: write it back for its own DataVersion
 * (which must read again) and for another era's, where the writer's bytes
 * path (mc_chunknbt_writer) must write what its tree path writes.
 *
 * Input: uncompressed Java NBT (a chunk root). The reader must refuse bad
 * structure with an error, never crash, read out of bounds or leak; and
 * mc_chunknbt_read_bytes (which reads 1.18+ sections and the
 * Level.Sections of older chunks from their bytes)
 * must give the same status, message and column as the tree reader; with
 * MC_CHUNKNBT_LEGACY_RAW the same status, and the blocks of the sections
 * it leaves as stored are those of the column read without it.
 *
 * Seeds in fuzz/corpus/fuzz_chunknbt/ are small chunks written by our own
 * writer (one or two sections of a few states per era: 1.8, 1.12.2, 1.13.2,
 * 1.15.2, 1.16.5, 1.17.1 custom height, 1.18.2, 1.21.1, 1.21.11; 1.12.2 and
 * 1.16.5 again with keys under Level the model does not read). They are
 * made by this file compiled with MC_FUZZ_CHUNKNBT_GEN:
 *   cc -DMC_FUZZ_CHUNKNBT_GEN -Iinclude fuzz/fuzz_chunknbt.c \
 *      build/libmcchunk.a -ldeflate -llz4 -lxxhash -lm -o /tmp/gen && \
 *      /tmp/gen fuzz/corpus/fuzz_chunknbt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunknbt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A read with MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_LEGACY_RAW (1.8-1.12
 * sections left as stored) has the status of the same read without
 * LEGACY_RAW, and each block of a section left as stored is, from its
 * bytes (inside the input), the block of that read's column. */
static void check_stored_sections(const uint8_t *data, size_t size, const mc_chunknbt_options *opt)
{
    mc_chunknbt_options plain = *opt, raw = *opt;
    plain.flags |= MC_CHUNKNBT_NO_EXTRA;
    raw.flags |= MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_LEGACY_RAW;
    mc_chunknbt_info info;
    mc_column *col = NULL, *lean = NULL;
    mc_error err;
    mc_status st = mc_chunknbt_read_bytes(data, size, &plain, &col, &err);
    if (mc_chunknbt_read_bytes_ex(data, size, &raw, &lean, &info, &err) != st)
        abort();
    for (int sy = 0; st == MC_OK && sy < 16; sy++) {
        const uint8_t *blocks = info.legacy_blocks[sy][0], *meta = info.legacy_blocks[sy][1];
        if (!blocks != !meta || (blocks && (blocks < data || blocks + 4096 > data + size || meta < data ||
                                           meta + 2048 > data + size)))
            abort();
        /* (blocks by absolute coordinates: a column so far out that they
         * do not fit in 32 bits is checked by the read's status only) */
        const int64_t x0 = (int64_t)mc_column_x(col) * 16, z0 = (int64_t)mc_column_z(col) * 16;
        if (x0 < INT32_MIN || x0 > INT32_MAX - 15 || z0 < INT32_MIN || z0 > INT32_MAX - 15)
            continue;
        for (unsigned at = 0; blocks && at < 4096; at++) {
            uint32_t state = (uint32_t)blocks[at] << 4 | (meta[at >> 1] >> ((at & 1) * 4) & 15u);
            if (state != mc_column_get_block(col, (int32_t)(x0 + (at & 15)), sy * 16 + (int32_t)(at >> 8),
                                             (int32_t)(z0 + (at >> 4 & 15))))
                abort();
        }
    }
    mc_column_free(col);
    mc_column_free(lean);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    if (!doc)
        return 0;
    mc_nbt_limits lim = {0};
    lim.max_bytes = (size_t)64 << 20;
    mc_error err;
    if (mc_nbt_parse(doc, data, size, MC_NBT_JAVA, &lim, &err) != MC_OK) {
        mc_nbt_doc_free(doc);
        return 0;
    }
    mc_chunknbt_options opt = {0};
    opt.flags = size & 1 ? 0 : MC_CHUNKNBT_NO_LIGHT;
    if (size % 3 == 0)
        opt.flags |= MC_CHUNKNBT_NO_EXTRA | MC_CHUNKNBT_BLOCK_ENTITIES;
    if (opt.flags & MC_CHUNKNBT_NO_EXTRA) {
        /* the tree such a read parses (lean) */
        mc_nbt_doc_reset(doc);
        if (mc_chunknbt_parse(doc, data, size, opt.flags, &err) != MC_OK) {
            mc_nbt_doc_free(doc);
            return 0;
        }
    }
    mc_column *col = NULL;
    mc_status tree_st = mc_chunknbt_read(mc_nbt_doc_root(doc), &opt, &col, &err);

    /* the fast way (1.18+ sections read from their bytes) must agree: same
     * status, same column written back */
    mc_column *fast = NULL;
    mc_error ferr;
    mc_status fast_st = mc_chunknbt_read_bytes(data, size, &opt, &fast, &ferr);
    if (fast_st != tree_st)
        abort();
    if (fast_st == MC_OK) {
        mc_buf a, b;
        mc_buf_init(&a, NULL);
        mc_buf_init(&b, NULL);
        mc_status sa = mc_chunknbt_write_bytes(col, MC_CHUNKNBT_OWN_VERSION, &a, NULL, NULL);
        mc_status sb = mc_chunknbt_write_bytes(fast, MC_CHUNKNBT_OWN_VERSION, &b, NULL, NULL);
        if (sa != sb || a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
            abort();
        mc_buf_free(&a);
        mc_buf_free(&b);
    } else if (strcmp(err.message, ferr.message) != 0) {
        abort();
    }
    check_stored_sections(data, size, &opt);
    mc_column_free(fast);

    if (tree_st == MC_OK) {
        mc_nbt_doc *out = mc_nbt_doc_new(NULL);
        if (out && mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, out, NULL, &err) == MC_OK) {
            mc_column *again = NULL;
            if (mc_chunknbt_read(mc_nbt_doc_root(out), &opt, &again, &err) == MC_OK)
                mc_column_free(again);
        }
        /* another era: 1.12.2 for modern chunks, 1.21.1 for older ones */
        mc_chunknbt_report rep;
        int32_t dv = mc_chunknbt_data_version(mc_nbt_doc_root(doc)) >= 2844 ? 1343 : 3955;
        if (out)
            (void)mc_chunknbt_write(col, dv, out, &rep, &err);
        /* the writer's bytes path (mc_chunknbt_writer) writes what the
         * tree path writes, for both DataVersions */
        for (int k = 0; out && k < 2; k++) {
            const int32_t to = k ? dv : MC_CHUNKNBT_OWN_VERSION;
            mc_buf a, b;
            mc_buf_init(&a, NULL);
            mc_buf_init(&b, NULL);
            mc_status sa = mc_chunknbt_write(col, to, out, NULL, &err);
            if (sa == MC_OK)
                sa = mc_nbt_write(out, MC_NBT_JAVA, &a, &err);
            mc_status sb = mc_chunknbt_write_bytes(col, to, &b, NULL, &err);
            if (sa != sb || a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
                abort();
            mc_buf_free(&a);
            mc_buf_free(&b);
        }
        mc_nbt_doc_free(out);
        mc_column_free(col);
    }
    mc_nbt_doc_free(doc);
    return 0;
}

#ifdef MC_FUZZ_CHUNKNBT_GEN
/* The chunk of `col` for `dv` (1.12.2, 1.16.5) with keys under Level the
 * model does not read first, between the ones it reads and last, which the
 * fast path steps over and parses from their bytes: seed_VERSION_level_keys. */
static int write_level_keys(const mc_column *col, int32_t dv, const char *path)
{
    mc_nbt_doc *src = mc_nbt_doc_new(NULL), *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    if (!src || !doc || mc_chunknbt_write(col, dv, src, NULL, &err) != MC_OK)
        return 1;
    mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    mc_nbt_put_int(doc, root, "DataVersion", dv);
    mc_nbt_tag *level = mc_nbt_put_compound(doc, root, "Level");
    mc_nbt_put_byte(doc, level, "TerrainPopulated", 1);
    for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(mc_nbt_doc_root(src), "Level")); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        if (mc_nbt_attach(doc, level, k, kl, mc_nbt_copy(doc, t)) != MC_OK)
            return 1;
        if (kl == 4 && !memcmp(k, "xPos", 4))
            mc_nbt_put_long(doc, level, "LastUpdate", 5);
        if (kl == 8 && !memcmp(k, "Sections", 8)) {
            mc_nbt_tag *e = mc_nbt_list_append(doc, mc_nbt_put_list(doc, level, "Entities", MC_NBT_COMPOUND),
                                               MC_NBT_COMPOUND);
            mc_nbt_put_string(doc, e, "id", "minecraft:pig", 13);
        }
    }
    mc_nbt_tag *tick = mc_nbt_list_append(doc, mc_nbt_put_list(doc, level, "TileTicks", MC_NBT_COMPOUND),
                                          MC_NBT_COMPOUND);
    mc_nbt_put_string(doc, tick, "i", "minecraft:water", 15);
    mc_nbt_put_int(doc, tick, "t", 3);
    mc_nbt_put_long(doc, level, "InhabitedTime", 9);
    mc_buf out;
    mc_buf_init(&out, NULL);
    FILE *f = NULL;
    int bad = mc_nbt_write(doc, MC_NBT_JAVA, &out, &err) != MC_OK || !(f = fopen(path, "wb")) ||
              fwrite(out.data, 1, out.len, f) != out.len;
    if (f)
        fclose(f);
    mc_buf_free(&out);
    mc_nbt_doc_free(src);
    mc_nbt_doc_free(doc);
    return bad;
}

int main(int argc, char **argv)
{
    static const struct { const char *version; int32_t dv; int32_t min; uint32_t count; } eras[] = {
        {"1.8.9", 0, 0, 16},       {"1.12.2", 1343, 0, 16}, {"1.13.2", 1631, 0, 16},
        {"1.15.2", 2230, 0, 16},   {"1.16.5", 2586, 0, 16}, {"1.17.1", 2730, -2, 20},
        {"1.18.2", 2975, -4, 24},  {"1.21.1", 3955, -4, 24}, {"1.21.11", 4671, -4, 24},
    };
    const char *dir = argc > 1 ? argv[1] : ".";
    for (size_t e = 0; e < sizeof eras / sizeof eras[0]; e++) {
        const mc_registry *reg = mc_registry_find(eras[e].version);
        if (!reg)
            return 1;
        mc_column *col = mc_column_new(reg, 1, -2, eras[e].min, eras[e].count, NULL);
        const char *names[] = {"stone", "dirt", "oak_planks", "glass", "water"};
        for (int i = 0; i < 200; i++) {
            uint32_t s = mc_registry_default_state(reg, names[i % 5]);
            if (s == MC_STATE_NONE)
                s = 1;
            mc_column_set_block(col, i % 16, eras[e].min * 16 + (i / 37), (i * 7) % 16, s);
        }
        mc_column_set_biome(col, 1, eras[e].min * 4, 2, 1);
        mc_column_set_block_light(col, 3, eras[e].min * 16 + 1, 4, 12);
        mc_column_compute_heightmaps(col, MC_HEIGHTMAP_ALL);
        mc_buf out;
        mc_buf_init(&out, NULL);
        mc_error err;
        if (mc_chunknbt_write_bytes(col, eras[e].dv, &out, NULL, &err) != MC_OK) {
            fprintf(stderr, "%s: %s\n", eras[e].version, err.message);
            return 1;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/seed_%s", dir, eras[e].version);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out.data, 1, out.len, f) != out.len)
            return 1;
        fclose(f);
        mc_buf_free(&out);
        snprintf(path, sizeof path, "%s/seed_%s_level_keys", dir, eras[e].version);
        if ((eras[e].dv == 1343 || eras[e].dv == 2586) && write_level_keys(col, eras[e].dv, path))
            return 1;
        mc_column_free(col);
    }
    return 0;
}
#endif
