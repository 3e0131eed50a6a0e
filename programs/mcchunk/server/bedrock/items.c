/*
 * items.c: the item palettes (items.h). The generated data is one zlib
 * stream (protocol_data.h gives its layout); it is inflated and decoded
 * into arrays once, and each item's components (kept as SNBT text) are
 * parsed and written as network NBT then, so that sending a palette is a
 * walk over arrays.
 */
#include "server/bedrock/items.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/nbt.h"

typedef struct item {
    uint32_t name;
    int32_t id;
    uint8_t flags; /* bit 0 component based, bits 1-2 version + 1 */
    int32_t nbt;   /* index into nbts, -1 none */
} item;

typedef struct table {
    item *items;
    uint32_t count;
} table;

struct srv_bitems {
    table *tables;
    uint32_t ntables;
    char **names;
    uint32_t nnames;
    mc_buf *nbts; /* network NBT of each component text */
    uint32_t nnbts;
};

void srv_bitems_free(srv_bitems *it)
{
    if (!it)
        return;
    for (uint32_t i = 0; i < it->ntables; i++)
        free(it->tables[i].items);
    for (uint32_t i = 0; i < it->nnames; i++)
        free(it->names[i]);
    for (uint32_t i = 0; i < it->nnbts; i++)
        mc_buf_free(&it->nbts[i]);
    free(it->tables);
    free(it->names);
    free(it->nbts);
    free(it);
}

/* A varint-length string of the data, copied and NUL-terminated. */
static char *read_string(mc_reader *r)
{
    size_t n;
    const uint8_t *p = mc_read_str_uvarint(r, &n);
    char *s = p ? malloc(n + 1) : NULL;
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

static bool read_tables(srv_bitems *it, mc_reader *r)
{
    it->ntables = mc_read_uvarint32(r);
    if (!mc_reader_ok(r) || it->ntables > 256 || !(it->tables = calloc(it->ntables + 1, sizeof *it->tables)))
        return false;
    for (uint32_t t = 0; t < it->ntables; t++) {
        table *tb = &it->tables[t];
        tb->count = mc_read_uvarint32(r);
        if (!mc_reader_ok(r) || tb->count > 65536 || !(tb->items = calloc(tb->count + 1, sizeof *tb->items)))
            return false;
        int32_t id = 0;
        for (uint32_t i = 0; i < tb->count; i++) {
            item *e = &tb->items[i];
            e->name = mc_read_uvarint32(r);
            id += mc_read_zigzag32(r);
            e->id = id;
            e->flags = mc_read_u8(r);
            e->nbt = e->flags & 8 ? (int32_t)mc_read_uvarint32(r) : -1;
        }
    }
    return mc_reader_ok(r);
}

static bool read_nbt(mc_buf *out, const char *snbt)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    bool ok = doc && mc_snbt_parse(doc, snbt, strlen(snbt), NULL, &err) == MC_OK &&
              mc_nbt_write(doc, MC_NBT_BEDROCK_NETWORK, out, &err) == MC_OK;
    mc_nbt_doc_free(doc);
    return ok;
}

static bool read_strings(srv_bitems *it, mc_reader *r)
{
    it->nnames = mc_read_uvarint32(r);
    if (!mc_reader_ok(r) || it->nnames > 65536 || !(it->names = calloc(it->nnames + 1, sizeof *it->names)))
        return false;
    for (uint32_t i = 0; i < it->nnames; i++)
        if (!(it->names[i] = read_string(r)))
            return false;
    it->nnbts = mc_read_uvarint32(r);
    if (!mc_reader_ok(r) || it->nnbts > 65536 || !(it->nbts = calloc(it->nnbts + 1, sizeof *it->nbts)))
        return false;
    for (uint32_t i = 0; i < it->nnbts; i++) {
        char *text = read_string(r);
        mc_buf_init(&it->nbts[i], NULL);
        bool ok = text && read_nbt(&it->nbts[i], text);
        free(text);
        if (!ok)
            return false;
    }
    /* every index the tables hold must be in range */
    for (uint32_t t = 0; t < it->ntables; t++)
        for (uint32_t i = 0; i < it->tables[t].count; i++) {
            const item *e = &it->tables[t].items[i];
            if (e->name >= it->nnames || (e->nbt >= 0 && (uint32_t)e->nbt >= it->nnbts))
                return false;
        }
    return true;
}

srv_bitems *srv_bitems_load(void)
{
    srv_bitems *it = calloc(1, sizeof *it);
    uint8_t *raw = malloc(srv_bedrock_items_raw_len);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t got = 0;
    bool ok = it && raw && d &&
              libdeflate_zlib_decompress(d, srv_bedrock_items_z, srv_bedrock_items_z_len, raw,
                                         srv_bedrock_items_raw_len, &got) == LIBDEFLATE_SUCCESS &&
              got == srv_bedrock_items_raw_len;
    if (ok) {
        mc_error err;
        mc_error_clear(&err);
        mc_reader r;
        mc_reader_init(&r, raw, got, "items", &err);
        ok = read_tables(it, &r) && read_strings(it, &r);
    }
    if (d)
        libdeflate_free_decompressor(d);
    free(raw);
    if (!ok) {
        srv_bitems_free(it);
        return NULL;
    }
    return it;
}

uint32_t srv_bitems_count(const srv_bitems *it, int t)
{
    return it && t >= 0 && (uint32_t)t < it->ntables ? it->tables[t].count : 0;
}

void srv_bitems_value(void *ctx, const char *path, const uint32_t *index, unsigned depth, srv_bvalue *out)
{
    srv_bitems_values *v = ctx;
    static const char prefix[] = "itemstates";
    if (strncmp(path, prefix, sizeof prefix - 1)) {
        v->others(v->others_ctx, path, index, depth, out);
        return;
    }
    const char *rest = path + sizeof prefix - 1;
    if (!*rest) { /* the array's length */
        out->kind = SRV_BV_INT;
        out->i = srv_bitems_count(v->items, v->table);
        return;
    }
    if (depth < 1 || index[depth - 1] >= srv_bitems_count(v->items, v->table) || strncmp(rest, "[].", 3))
        return;
    const item *e = &v->items->tables[v->table].items[index[depth - 1]];
    const char *field = rest + 3;
    if (!strcmp(field, "name")) {
        out->kind = SRV_BV_STRING;
        out->data = v->items->names[e->name];
        out->len = strlen(v->items->names[e->name]);
    } else if (!strcmp(field, "runtime_id")) {
        out->kind = SRV_BV_INT;
        out->i = e->id;
    } else if (!strcmp(field, "component_based")) {
        out->kind = SRV_BV_INT;
        out->i = e->flags & 1;
    } else if (!strcmp(field, "version")) {
        out->kind = SRV_BV_INT;
        out->i = (e->flags >> 1 & 3) ? (e->flags >> 1 & 3) - 1 : 0; /* not given: legacy */
    } else if (!strcmp(field, "nbt") && e->nbt >= 0) {
        out->kind = SRV_BV_RAW;
        out->data = v->items->nbts[e->nbt].data;
        out->len = v->items->nbts[e->nbt].len;
    }
}
