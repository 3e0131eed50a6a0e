/*
 * tool_common.c: pieces every subcommand shares (see tool_common.h): the
 * one parser of numbers and chunk coordinates, reading input files and
 * stdin, finding (and checking) the region file of a chunk, reading one
 * chunk into a column, fitting a column to a version's height, and printing
 * a column's blocks in the one line format the tools (and the tests that
 * compare them with the oracles) use. Written once here so that every
 * command refuses the same bad input with the same message.
 */
#include "tool_common.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "mcchunk/anvil.h"
#include "mcchunk/bits.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

/* ------------------------------------------------------------- numbers */

static bool whole_ll(const char *s, long long *out)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool mc_tool_parse_ll(const char *prog, const char *what, const char *s, long long lo, long long hi,
                      long long *out)
{
    long long v;
    if (!whole_ll(s, &v) || v < lo || v > hi) {
        fprintf(stderr, "%s: %s must be an integer in %lld..%lld, not '%s'\n", prog, what, lo, hi, s ? s : "");
        return false;
    }
    *out = v;
    return true;
}

bool mc_tool_parse_int(const char *prog, const char *what, const char *s, int lo, int hi, int *out)
{
    long long v;
    if (!mc_tool_parse_ll(prog, what, s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool mc_tool_parse_i32(const char *prog, const char *what, const char *s, int32_t lo, int32_t hi, int32_t *out)
{
    long long v;
    if (!mc_tool_parse_ll(prog, what, s, lo, hi, &v))
        return false;
    *out = (int32_t)v;
    return true;
}

bool mc_tool_parse_seed(const char *prog, const char *what, const char *s, uint64_t *out)
{
    bool ok = s && *s && !isspace((unsigned char)*s);
    char *end = NULL;
    errno = 0;
    if (ok && *s == '-') {
        long long v = strtoll(s, &end, 10);
        *out = (uint64_t)v;
    } else if (ok) {
        *out = (uint64_t)strtoull(s, &end, 10);
    }
    if (!ok || errno || *end || *s == '+') {
        fprintf(stderr, "%s: %s must be a 64-bit integer (-9223372036854775808..18446744073709551615), not '%s'\n",
                prog, what, s ? s : "");
        return false;
    }
    return true;
}

bool mc_tool_parse_double(const char *prog, const char *what, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = s && *s && !isspace((unsigned char)*s) ? strtod(s, &end) : 0;
    if (!end || errno || *end || !(v >= lo && v <= hi)) { /* NaN fails the range */
        fprintf(stderr, "%s: %s must be a number in %g..%g, not '%s'\n", prog, what, lo, hi, s ? s : "");
        return false;
    }
    *out = v;
    return true;
}

bool mc_tool_parse_chunk(const char *prog, const char *what, const char *s, int32_t *out)
{
    long long v;
    if (!whole_ll(s, &v) || v < -MC_TOOL_CHUNK_LIMIT || v > MC_TOOL_CHUNK_LIMIT) {
        fprintf(stderr,
                "%s: chunk coordinate %s must be an integer in %d..%d (the world ends at +-%d blocks), not '%s'\n",
                prog, what, -MC_TOOL_CHUNK_LIMIT, MC_TOOL_CHUNK_LIMIT, MC_TOOL_BLOCK_LIMIT, s ? s : "");
        return false;
    }
    *out = (int32_t)v;
    return true;
}

bool mc_tool_parse_chunk_pair(const char *prog, const char *what, const char *s, int32_t *x, int32_t *z)
{
    char buf[64];
    const char *comma = s ? strchr(s, ',') : NULL;
    if (!comma || strlen(s) >= sizeof buf) {
        fprintf(stderr, "%s: %s wants X,Z (chunk coordinates), not '%s'\n", prog, what, s ? s : "");
        return false;
    }
    snprintf(buf, sizeof buf, "%.*s", (int)(comma - s), s);
    char name[80];
    snprintf(name, sizeof name, "X of %s", what);
    if (!mc_tool_parse_chunk(prog, name, buf, x))
        return false;
    snprintf(name, sizeof name, "Z of %s", what);
    return mc_tool_parse_chunk(prog, name, comma + 1, z);
}

/* --------------------------------------------------------------- files */

bool mc_tool_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mc_tool_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Plain malloc, so that what mc_tool_read_input returns is freed with free(). */
static void *plain_alloc(void *user, size_t n) { (void)user; return malloc(n ? n : 1); }
static void *plain_realloc(void *user, void *p, size_t old, size_t n) { (void)user; (void)old; return realloc(p, n ? n : 1); }
static void plain_free(void *user, void *p, size_t n) { (void)user; (void)n; free(p); }
static const mc_allocator plain_allocator = {plain_alloc, plain_realloc, plain_free, NULL};

bool mc_tool_read_input(const char *prog, const char *file, uint8_t **data, size_t *len)
{
    bool in = !strcmp(file, "-");
    *data = NULL;
    *len = 0;
    if (!in && mc_tool_is_dir(file)) {
        fprintf(stderr, "%s: %s is a directory\n", prog, file);
        return false;
    }
    if (!in) { /* the library's reader: regular files only, never blocks on a FIFO */
        mc_error err;
        if (mc_read_file(file, &plain_allocator, data, len, &err) != MC_OK) {
            fprintf(stderr, "%s: %s\n", prog, err.message); /* names the file */
            return false;
        }
        return true;
    }
    FILE *f = stdin;
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = cap < (SIZE_MAX >> 1) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    bool bad = buf && ferror(f);
    int e = errno;
    if (!buf || bad) {
        fprintf(stderr, "%s: stdin: %s\n", prog, buf ? strerror(e) : "out of memory");
        free(buf);
        return false;
    }
    *data = buf;
    *len = n;
    return true;
}

bool mc_tool_write_output(const char *prog, const char *path, const void *data, size_t len)
{
    bool out = !strcmp(path, "-");
    if (!out && mc_tool_is_dir(path)) {
        fprintf(stderr, "%s: cannot write %s: it is a directory\n", prog, path);
        return false;
    }
    errno = 0;
    FILE *f = out ? stdout : fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && !out)
        ok = fclose(f) == 0 && ok;
    else if (f)
        ok = fflush(f) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, out ? "stdout" : path,
                errno ? strerror(errno) : "short write");
        return false;
    }
    return true;
}

/* -------------------------------------------------------------- chunks */

/* The region coordinates a file name gives: "r.A.B.mca" (or .mcr) at its
 * end, after the start of the name or a character that is not a letter or
 * digit ("ppa-r.-1.0.mca"), the rule mc_region_open follows. */
static bool region_name(const char *path, int32_t *rx, int32_t *rz)
{
    const char *base = mc_tool_basename(path);
    for (const char *p = base; (p = strstr(p, "r.")) != NULL; p++) {
        if (p > base && isalnum((unsigned char)p[-1]))
            continue;
        int x, z, used = 0;
        char a;
        if (sscanf(p, "r.%d.%d.mc%c%n", &x, &z, &a, &used) == 3 && (a == 'a' || a == 'r') && !p[used]) {
            *rx = x;
            *rz = z;
            return true;
        }
    }
    return false;
}

static int32_t floor_div32(int32_t v)
{
    return v >= 0 ? v / 32 : -((-(v + 1)) / 32) - 1;
}

int mc_tool_locate_chunk(const char *prog, const char *path_arg, const char *dimension, mc_region_kind kind,
                         int32_t x, int32_t z, bool for_write, char *out, size_t out_size, int *lx, int *lz)
{
    mc_error err;
    mc_error_clear(&err);
    if (mc_tool_is_dir(path_arg)) {
        mc_status st = mc_world_region_path(path_arg, MC_WORLD_LAYOUT_AUTO,
                                            dimension ? dimension : "minecraft:overworld", kind, x, z, out,
                                            out_size, lx, lz, &err);
        if (st == MC_ERR_INVALID_ARG) {
            fprintf(stderr, "%s: %s\n", prog, err.message);
            return MC_EXIT_USAGE;
        }
        if (st == MC_ERR_NOT_FOUND && !for_write) {
            fprintf(stderr, "%s: chunk %d %d is absent: no region file %s\n", prog, (int)x, (int)z, out);
            return MC_EXIT_FAIL;
        }
        if (st && st != MC_ERR_NOT_FOUND) {
            fprintf(stderr, "%s: %s\n", prog, err.message);
            return MC_EXIT_FAIL;
        }
        return MC_EXIT_OK;
    }
    if ((size_t)snprintf(out, out_size, "%s", path_arg) >= out_size) {
        fprintf(stderr, "%s: path too long\n", prog);
        return MC_EXIT_USAGE;
    }
    int32_t rx, rz;
    if (region_name(path_arg, &rx, &rz)) {
        if (floor_div32(x) != rx || floor_div32(z) != rz) {
            fprintf(stderr, "%s: chunk %d %d is not in %s (region %d %d; the chunk is in r.%d.%d.mca)\n", prog,
                    (int)x, (int)z, mc_tool_basename(path_arg), (int)rx, (int)rz, (int)floor_div32(x),
                    (int)floor_div32(z));
            return MC_EXIT_FAIL;
        }
    } else if (x < 0 || x > 31 || z < 0 || z > 31) {
        fprintf(stderr,
                "%s: chunk %d %d is not in %s: its name is not r.A.B.mca, so X Z are local (0..31)\n",
                prog, (int)x, (int)z, mc_tool_basename(path_arg));
        return MC_EXIT_FAIL;
    }
    *lx = (int)((uint32_t)x & 31);
    *lz = (int)((uint32_t)z & 31);
    return MC_EXIT_OK;
}

void mc_tool_chunk_error(const char *prog, int32_t x, int32_t z, const char *file, const mc_error *err)
{
    if (err->status == MC_ERR_NOT_FOUND && strstr(err->message, "is absent"))
        fprintf(stderr, "%s: chunk %d %d is absent from %s\n", prog, (int)x, (int)z, file);
    else
        fprintf(stderr, "%s: chunk %d %d: %s\n", prog, (int)x, (int)z, err->message);
}

int mc_tool_load_column(const char *prog, const char *path_arg, const char *dimension, int32_t x, int32_t z,
                        mc_column **out)
{
    char path[4096];
    int lx = 0, lz = 0;
    *out = NULL;
    int rc = mc_tool_locate_chunk(prog, path_arg, dimension, MC_REGION_KIND_REGION, x, z, false, path, sizeof path,
                                  &lx, &lz);
    if (rc)
        return rc;
    mc_error err;
    mc_error_clear(&err);
    mc_region *r = NULL;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return MC_EXIT_FAIL;
    }
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    if (mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) != MC_OK) {
        mc_tool_chunk_error(prog, x, z, path, &err);
        rc = MC_EXIT_FAIL;
    } else if (mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, out, &err) != MC_OK) {
        fprintf(stderr, "%s: chunk %d %d: %s\n", prog, (int)x, (int)z, err.message);
        *out = NULL;
        rc = MC_EXIT_FAIL;
    }
    mc_buf_free(&nbt);
    mc_region_close(r);
    return rc;
}

mc_status mc_tool_copy_extra(mc_column *dst, mc_column *src)
{
    mc_nbt_tag *from = mc_column_extra(src), *to = mc_column_extra(dst);
    if (!from || !to)
        return MC_ERR_NOMEM;
    mc_nbt_doc *doc = mc_column_nbt(dst);
    for (mc_nbt_tag *t = mc_nbt_first(from); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        if (kl == 8 && !memcmp(k, "sections", 8))
            continue;
        mc_nbt_tag *c = mc_nbt_copy(doc, t);
        if (!c || mc_nbt_attach(doc, to, k, kl, c) != MC_OK)
            return MC_ERR_NOMEM;
    }
    return MC_OK;
}

int mc_tool_fit_height(const char *prog, const char *version, mc_column **colp, int32_t min_y, int32_t height)
{
    mc_column *col = *colp;
    int32_t have_min = mc_column_min_y(col), have_h = (int32_t)mc_column_height(col);
    if (have_min == min_y && have_h == height)
        return MC_EXIT_OK;
    /* count the non-air blocks of the sections that do not fit */
    unsigned long long lost = 0;
    for (uint32_t i = 0; i < mc_column_section_count(col); i++) {
        int32_t sy = mc_column_min_section(col) + (int32_t)i;
        if (sy * 16 >= min_y && sy * 16 + 16 <= min_y + height)
            continue;
        unsigned blocks = 0, fluids = 0;
        mc_section_counts(mc_column_section_const(col, sy), mc_column_registry(col), &blocks, &fluids);
        lost += blocks;
    }
    mc_error err;
    mc_error_clear(&err);
    mc_column *r = mc_column_reshape(col, min_y / 16, (uint32_t)height / 16, NULL, &err);
    /* (reshape keeps blocks, biomes, light, block entities: not the rest) */
    if (r && mc_tool_copy_extra(r, col) != MC_OK) {
        mc_column_free(r);
        r = NULL;
        mc_error_set(&err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    }
    mc_column_free(col);
    *colp = r;
    if (!r) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return MC_EXIT_FAIL;
    }
    if (lost)
        fprintf(stderr, "%s: %llu block%s outside %s's height (y %d..%d) dropped\n", prog, lost,
                lost == 1 ? "" : "s", version, (int)min_y, (int)(min_y + height - 1));
    return MC_EXIT_OK;
}

/* ------------------------------------------------------------ versions */

const mc_registry *mc_tool_java_registry(const char *v, bool *before_1_18)
{
    mc_version_info vi;
    const mc_registry *reg = NULL;
    if (mc_java_version_find(v, &vi) && vi.registry)
        reg = vi.registry;
    else if ((reg = mc_registry_find(v)) && mc_registry_edition(reg) == MC_EDITION_JAVA &&
             mc_java_version_find(mc_registry_name(reg), &vi))
        ; /* a registry name that is also a release */
    else
        reg = NULL;
    if (before_1_18)
        *before_1_18 = reg && vi.protocol < 757;
    return reg;
}

/* ------------------------------------------------------------ messages */

int mc_tool_unknown_version(const char *prog, const char *version)
{
    fprintf(stderr, "%s: unknown version %s; `mcchunk registry --versions` lists them\n", prog, version);
    return MC_EXIT_USAGE;
}

void mc_tool_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

/* ------------------------------------------------------------- blocks */
/* The lines of mc_tool_print_blocks are built in a buffer of our own and
 * handed to fwrite when it fills: printf per line had been 80% of
 * `mcchunk chunk blocks` (parsing the same format string millions of
 * times). A line is three pieces of text made once and copied in
 * fixed-size moves, which the compiler turns into a few vector stores
 * (a variable-length memcpy per piece was a call each, the larger part of
 * a short --ids line's cost): "x " (16 values per column, 16-byte slots),
 * "y z " (made per section and row, 32-byte slots) and the state's text
 * with its newline (its name, or with --ids its number, made the first
 * time the state is met, in a slot padded so that 32 bytes can always be
 * read). Each copy writes its whole slot and the next piece starts where
 * the text ended. Writes go to stdout through stdio, so they stay in
 * order with any printf around them (blocks --all). */
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

/* A section row's "y z " text: at most 24 bytes. */
typedef struct {
    char s[32];
    size_t n;
} yz_text;

/* A state met in the column: its text and whether its blocks print. The
 * column's states are few (tens to hundreds of the registry's thousands):
 * they live in a small growing array, found through slot[v] (index + 1,
 * 0: not met yet), so that neither making nor freeing the table costs
 * anything per registry state. */
typedef struct {
    char *text;   /* with its newline; readable for max(len, 32) bytes */
    uint16_t len; /* the newline included */
    bool print;   /* not air */
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

/* The text of state v (output state o) and a newline, in a block padded
 * to at least 32 bytes: its sorted name, or its number. */
static char *state_text(const mc_registry *out_reg, uint32_t o, bool ids, uint16_t *len)
{
    char buf[512];
    if (ids)
        snprintf(buf, sizeof buf, "%u", o);
    else if (!mc_registry_format_state(out_reg, o, buf, sizeof buf, MC_FORMAT_SORTED))
        snprintf(buf, sizeof buf, "#%u", o);
    size_t n = strlen(buf); /* < sizeof buf */
    char *text = calloc(n + 1 < 32 ? 32 : n + 1, 1);
    if (!text)
        return NULL;
    memcpy(text, buf, n);
    text[n] = '\n';
    *len = (uint16_t)(n + 1);
    return text;
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
    size_t max_len; /* the longest text made */
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
    if (e->text && e->len > t->max_len)
        t->max_len = e->len;
    t->slot[v] = (uint32_t)t->n;
    return e;
}

/* Writes "x y z text" (text ends with its newline) at p and returns the
 * end: fixed-size copies of whole slots (see the top of this part); `text`
 * must be readable for 32 bytes when tlen <= 32, and p have room for
 * 16 + 32 + max(tlen, 32) bytes. */
static inline char *put_text(char *p, const coord_text *x, const yz_text *yz, const char *text, size_t tlen)
{
    memcpy(p, x->s, sizeof x->s);
    p += x->n;
    memcpy(p, yz->s, sizeof yz->s);
    p += yz->n;
    if (tlen <= 32)
        memcpy(p, text, 32);
    else
        memcpy(p, text, tlen);
    return p + tlen;
}

/* Appends "x y z text" (text ends with its newline) for column x of a row. */
static void put_line(line_out *w, const coord_text *x, const yz_text *yz, const char *text, size_t tlen)
{
    if (sizeof w->buf - w->len < sizeof x->s + sizeof yz->s + (tlen < 32 ? 32 : tlen))
        lo_flush(w);
    w->len = (size_t)(put_text(w->buf + w->len, x, yz, text, tlen) - w->buf);
}

/* The "y z " texts of the 16 rows (z) of section row y. */
static void yz_set(yz_text yz[16], int32_t y, const coord_text zs[16])
{
    coord_text yt;
    coord_set(&yt, y);
    for (int z = 0; z < 16; z++) {
        memcpy(yz[z].s, yt.s, yt.n);
        memcpy(yz[z].s + yt.n, zs[z].s, zs[z].n);
        yz[z].n = yt.n + zs[z].n;
    }
}

int mc_tool_print_blocks(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all)
{
    static const char unknown_text[32] = "?\n"; /* a state whose text could not be made (out of memory) */
    const mc_registry *reg = mc_column_registry(col);
    if (!out_reg)
        out_reg = reg;
    const uint32_t *map = NULL;
    if (out_reg != reg && !(map = mc_registry_map(reg, out_reg))) {
        fprintf(stderr, "mcchunk: out of memory\n");
        return MC_EXIT_FAIL;
    }
    state_table t = {reg, out_reg, map, mc_registry_state_count(reg), mc_registry_air(reg), mc_registry_air(out_reg),
                     ids, NULL, NULL, 0, 0, 0};
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
    coord_text xs[16], zs[16];
    yz_text yz[16][16]; /* [y & 15][z] of the current section */
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
            yz_set(yz[i], by + i, zs);
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
            /* Row by row (16 positions of one y and z): room for the whole
             * row is made once, and the lines are written through a local
             * pointer (stores through char * may alias anything, so a
             * length kept in the buffer's struct would be reloaded for
             * every piece). */
            size_t row_room = 16 * (sizeof xs[0].s + sizeof yz[0][0].s + (t.max_len < 32 ? 32 : t.max_len));
            for (unsigned row = 0; row < 256; row++) {
                if (sizeof w->buf - w->len < row_room)
                    lo_flush(w);
                char *p = w->buf + w->len;
                const yz_text *yzr = &yz[row >> 4][row & 15];
                const uint16_t *ri = idx + row * 16;
                for (unsigned x = 0; x < 16; x++) {
                    const state_entry *e = pal[ri[x]]; /* indices are within the palette: containers validate */
                    if (!all && !e->print)
                        continue;
                    p = put_text(p, &xs[x], yzr, e->text ? e->text : unknown_text, e->text ? e->len : 2);
                }
                w->len = (size_t)(p - w->buf);
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
                if (e->text)
                    put_line(w, &xs[i & 15], &yz[i >> 8][(i >> 4) & 15], e->text, e->len);
                else
                    put_line(w, &xs[i & 15], &yz[i >> 8][(i >> 4) & 15], unknown_text, 2);
            } else {
                /* not a state of the registry (a damaged chunk): as printf did */
                if (!every && !all && ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == t.air))
                    continue;
                uint32_t o = map ? mc_registry_map_apply(map, t.count, v, t.out_air) : v;
                memset(buf, 0, 32);
                snprintf(buf, sizeof buf, "%s%u\n", ids ? "" : "#", ids ? o : v);
                put_line(w, &xs[i & 15], &yz[i >> 8][(i >> 4) & 15], buf, strlen(buf));
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
