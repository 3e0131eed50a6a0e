/*
 * tool_common.c: pieces several subcommands share — reading one chunk of a
 * region file or world folder into a column, and printing a column's blocks
 * in the one line format the tools (and the tests that compare them with
 * the oracles) use.
 */
#include "tool_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "mcchunk/anvil.h"
#include "mcchunk/bits.h"
#include "mcchunk/chunknbt.h"

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int mc_tool_load_column(const char *prog, const char *path_arg, const char *dimension, int32_t x, int32_t z,
                        mc_column **out)
{
    char path[4096];
    int lx, lz;
    mc_error err;
    mc_error_clear(&err);
    *out = NULL;
    if (is_dir(path_arg)) {
        if (mc_world_region_path(path_arg, MC_WORLD_LAYOUT_AUTO, dimension ? dimension : "minecraft:overworld",
                                 MC_REGION_KIND_REGION, x, z, path, sizeof path, &lx, &lz, &err) != MC_OK) {
            fprintf(stderr, "%s: %s\n", prog, err.message);
            return MC_EXIT_FAIL;
        }
    } else {
        snprintf(path, sizeof path, "%s", path_arg);
        lx = (int)((uint32_t)x & 31);
        lz = (int)((uint32_t)z & 31);
    }
    mc_region *r = NULL;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return MC_EXIT_FAIL;
    }
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    int rc = MC_EXIT_OK;
    if (mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) != MC_OK ||
        mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, out, &err) != MC_OK) {
        fprintf(stderr, "%s: chunk %d %d: %s\n", prog, (int)x, (int)z, err.message);
        *out = NULL;
        rc = MC_EXIT_FAIL;
    }
    mc_buf_free(&nbt);
    mc_region_close(r);
    return rc;
}

/* The lines of mc_tool_print_blocks are built in a buffer of our own and
 * handed to fwrite when it fills: printf per line had been 80% of
 * `mcchunk chunk blocks` (parsing the same format string millions of
 * times). A line is four pieces of text made once and copied: x, y and z
 * (16 values each per column or section, each with its space, in 16-byte
 * slots copied whole) and the state's text (its name, or with --ids its
 * number), made the first time the state is met. Writes go to stdout
 * through stdio, so they stay in order with any printf around them
 * (blocks --all). */
typedef struct {
    size_t len;
    bool failed; /* an fwrite came up short */
    char buf[1 << 16];
} line_out;

/* One coordinate's text with its trailing space: at most 12 bytes. */
typedef struct {
    char s[16];
    size_t n;
} coord_text;

/* A state met in the column: its text and whether its blocks print. The
 * column's states are few (tens to hundreds of the registry's thousands):
 * they live in a small growing array, found through slot[v] (index + 1,
 * 0: not met yet), so that neither making nor freeing the table costs
 * anything per registry state. */
typedef struct {
    char *text;
    uint16_t len;
    bool print; /* not air */
} state_entry;

static void lo_flush(line_out *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, stdout) != w->len)
        w->failed = true;
    w->len = 0;
}

/* Decimal of v as printf's %d (INT32_MIN included), then a space. */
static void coord_set(coord_text *c, int32_t v)
{
    char t[12];
    int n = 0;
    uint32_t m = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    do {
        t[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    size_t k = 0;
    if (v < 0)
        c->s[k++] = '-';
    while (n)
        c->s[k++] = t[--n];
    c->s[k++] = ' ';
    c->n = k;
}

/* The text of state v (output state o): its sorted name, or its number. */
static char *state_text(const mc_registry *out_reg, uint32_t o, bool ids, uint16_t *len)
{
    char buf[512];
    if (ids)
        snprintf(buf, sizeof buf, "%u", o);
    else if (!mc_registry_format_state(out_reg, o, buf, sizeof buf, MC_FORMAT_SORTED))
        snprintf(buf, sizeof buf, "#%u", o);
    *len = (uint16_t)strlen(buf); /* < sizeof buf */
    return strdup(buf);
}

/* The states of one call: slot[v] is the index + 1 of state v's entry. */
typedef struct {
    const mc_registry *reg, *out_reg;
    const uint32_t *map;
    uint32_t count, air, out_air;
    bool ids;
    uint32_t *slot;
    state_entry *states;
    size_t n, cap;
} state_table;

/* The entry of state v (< count), made the first time; NULL: out of memory. */
static const state_entry *state_get(state_table *t, uint32_t v)
{
    if (t->slot[v])
        return &t->states[t->slot[v] - 1];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        state_entry *more = realloc(t->states, cap * sizeof *more);
        if (!more)
            return NULL;
        t->states = more;
        t->cap = cap;
    }
    state_entry *e = &t->states[t->n++];
    e->print = !((mc_registry_state_flags(t->reg, v) & MC_STATE_AIR) || v == t->air);
    uint32_t o = t->map ? mc_registry_map_apply(t->map, t->count, v, t->out_air) : v;
    e->text = state_text(t->out_reg, o, t->ids, &e->len);
    t->slot[v] = (uint32_t)t->n;
    return e;
}

/* Appends "x y z text\n" for position i of the section. */
static inline void put_line(line_out *w, const coord_text *xs, const coord_text *ys, const coord_text *zs,
                            unsigned i, const char *text, size_t tlen)
{
    if (sizeof w->buf - w->len < 3 * sizeof xs[0].s + tlen + 1) /* tlen < 512 */
        lo_flush(w);
    char *p = w->buf + w->len;
    const coord_text *cx = &xs[i & 15], *cy = &ys[i >> 8], *cz = &zs[(i >> 4) & 15];
    memcpy(p, cx->s, sizeof cx->s);
    p += cx->n;
    memcpy(p, cy->s, sizeof cy->s);
    p += cy->n;
    memcpy(p, cz->s, sizeof cz->s);
    p += cz->n;
    memcpy(p, text, tlen);
    p[tlen] = '\n';
    w->len = (size_t)(p + tlen + 1 - w->buf);
}

int mc_tool_print_blocks(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all)
{
    const mc_registry *reg = mc_column_registry(col);
    if (!out_reg)
        out_reg = reg;
    const uint32_t *map = NULL;
    if (out_reg != reg && !(map = mc_registry_map(reg, out_reg))) {
        fprintf(stderr, "mcchunk: out of memory\n");
        return MC_EXIT_FAIL;
    }
    state_table t = {reg, out_reg, map, mc_registry_state_count(reg), mc_registry_air(reg), mc_registry_air(out_reg),
                     ids, NULL, NULL, 0, 0};
    t.slot = calloc(t.count ? t.count : 1, sizeof *t.slot);
    line_out *w = malloc(sizeof *w);
    if (!t.slot || !w) {
        free(t.slot);
        free(w);
        return MC_EXIT_FAIL;
    }
    w->len = 0;
    w->failed = false;
    int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), /* wraps: chunk x from input may be huge */
        bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    coord_text xs[16], ys[16], zs[16];
    for (int i = 0; i < 16; i++) {
        coord_set(&xs[i], bx + i);
        coord_set(&zs[i], bz + i);
    }
    uint32_t vals[MC_SECTION_BLOCKS];
    uint16_t idx[MC_SECTION_BLOCKS];
    const state_entry *pal[256];
    char buf[512];
    uint64_t phase = every ? ((uint32_t)mc_column_x(col) * 7u + (uint32_t)mc_column_z(col) * 13u) % every : 0;
    for (uint32_t si = 0; si < mc_column_section_count(col); si++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)si);
        const mc_container *c = &s->blocks;
        if (!every && !all && c->kind == MC_CONTAINER_SINGLE && (mc_registry_state_flags(reg, c->value) & MC_STATE_AIR))
            continue;
        int32_t by = (mc_column_min_section(col) + (int32_t)si) * 16;
        for (int i = 0; i < 16; i++)
            coord_set(&ys[i], by + i);
        /* A palette (the usual case): its entries once, then per position
         * the palette index only. */
        bool by_palette = c->kind == MC_CONTAINER_INDIRECT && c->bits <= 8 && c->palette_len <= 256;
        for (uint32_t k = 0; by_palette && k < c->palette_len; k++)
            by_palette = c->palette[k] < t.count;
        if (by_palette && !every) {
            for (uint32_t k = 0; k < c->palette_len; k++)
                if (!state_get(&t, c->palette[k])) {
                    w->failed = true; /* out of memory: the output is cut short */
                    goto done;
                }
            for (uint32_t k = 0; k < c->palette_len; k++) /* after the last realloc */
                pal[k] = &t.states[t.slot[c->palette[k]] - 1];
            mc_bits_unpack_u16(c->longs, MC_SECTION_BLOCKS, c->bits, MC_BITS_PADDED, idx);
            for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
                const state_entry *e = pal[idx[i]]; /* indices are within the palette: containers validate */
                if (!all && !e->print)
                    continue;
                put_line(w, xs, ys, zs, i, e->text ? e->text : "?", e->text ? e->len : 1);
            }
            continue;
        }
        mc_container_get_all(c, vals);
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            uint32_t v = vals[i];
            if (every && ((uint64_t)si * MC_SECTION_BLOCKS + i + phase) % every)
                continue;
            if (v < t.count) {
                const state_entry *e = state_get(&t, v);
                if (!e) {
                    w->failed = true;
                    goto done;
                }
                if (!every && !all && !e->print)
                    continue;
                put_line(w, xs, ys, zs, i, e->text ? e->text : "?", e->text ? e->len : 1);
            } else {
                /* not a state of the registry (a damaged chunk): as printf did */
                if (!every && !all && ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == t.air))
                    continue;
                uint32_t o = map ? mc_registry_map_apply(map, t.count, v, t.out_air) : v;
                snprintf(buf, sizeof buf, "%s%u", ids ? "" : "#", ids ? o : v);
                put_line(w, xs, ys, zs, i, buf, strlen(buf));
            }
        }
    }
done:
    lo_flush(w);
    bool failed = w->failed;
    free(w);
    for (size_t i = 0; i < t.n; i++)
        free(t.states[i].text);
    free(t.states);
    free(t.slot);
    return failed || ferror(stdout) ? MC_EXIT_FAIL : MC_EXIT_OK;
}
