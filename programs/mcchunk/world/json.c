/*
 * json.c: see json.h. The writer prints as it goes (no tree); the reader
 * is recursive descent over an mc_reader, so no read can pass the end of
 * the input, with a depth limit so that no input can exhaust the stack.
 */
#include "world/json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- out */

void world_json_init(world_json *j, FILE *out, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
}

/* Writes s[0..n) as a JSON string: runs of bytes that need no escape go
 * out in one fwrite (a stats output is mostly names: one call each, not
 * one per byte). */
static void put_escaped(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    size_t run = 0; /* start of the pending plain run */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        fwrite(s + run, 1, i - run, out);
        run = i + 1;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else
            fprintf(out, "\\u%04x", c);
    }
    fwrite(s + run, 1, n - run, out);
    fputc('"', out);
}

static void indent(world_json *j)
{
    if (!j->pretty)
        return;
    /* a newline and two spaces a level (depth is at most 32) */
    static const char line[] = "\n                                                                ";
    fwrite(line, 1, 1 + 2 * (size_t)j->depth, j->out);
}

/* The separator and key before a value. */
static void lead(world_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            fputc(',', j->out);
        indent(j);
    }
    j->need_comma[j->depth] = true;
    if (key) {
        put_escaped(j->out, key, strlen(key));
        fputs(j->pretty ? ": " : ":", j->out);
    }
}

static void open_container(world_json *j, const char *key, char c)
{
    lead(j, key);
    fputc(c, j->out);
    if (j->depth < 32)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_container(world_json *j, char c)
{
    bool any = j->need_comma[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (any)
        indent(j);
    fputc(c, j->out);
}

void world_json_begin_object(world_json *j, const char *key) { open_container(j, key, '{'); }
void world_json_end_object(world_json *j) { close_container(j, '}'); }
void world_json_begin_array(world_json *j, const char *key) { open_container(j, key, '['); }
void world_json_end_array(world_json *j) { close_container(j, ']'); }

void world_json_strn(world_json *j, const char *key, const char *value, size_t len)
{
    lead(j, key);
    put_escaped(j->out, value, len);
}

void world_json_str(world_json *j, const char *key, const char *value)
{
    world_json_strn(j, key, value, strlen(value));
}

void world_json_int(world_json *j, const char *key, int64_t value)
{
    lead(j, key);
    fprintf(j->out, "%" PRId64, value);
}

void world_json_uint(world_json *j, const char *key, uint64_t value)
{
    lead(j, key);
    fprintf(j->out, "%" PRIu64, value);
}

void world_json_double(world_json *j, const char *key, double value)
{
    lead(j, key);
    fprintf(j->out, "%.6g", value);
}

void world_json_bool(world_json *j, const char *key, bool value)
{
    lead(j, key);
    fputs(value ? "true" : "false", j->out);
}

void world_json_finish(world_json *j)
{
    fputc('\n', j->out);
}

/* ------------------------------------------------------------------ in */

#define JSON_MAX_DEPTH 32

static void skip_space(mc_reader *r)
{
    while (mc_reader_remaining(r)) {
        uint8_t c = r->data[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        r->pos++;
    }
}

static int peek(mc_reader *r)
{
    return mc_reader_remaining(r) ? r->data[r->pos] : -1;
}

static bool expect_word(mc_reader *r, const char *w)
{
    size_t n = strlen(w);
    if (mc_reader_remaining(r) < n || memcmp(r->data + r->pos, w, n)) {
        mc_reader_fail(r, MC_ERR_MALFORMED, "json: expected %s", w);
        return false;
    }
    r->pos += n;
    return true;
}

static int hex4(mc_reader *r)
{
    if (mc_reader_remaining(r) < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = r->data[r->pos + (size_t)i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                       : c >= 'A' && c <= 'F'         ? c - 'A' + 10
                                                                      : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    r->pos += 4;
    return v;
}

static void put_utf8(mc_buf *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (uint8_t)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (uint8_t)(0xC0 | cp >> 6), u[1] = (uint8_t)(0x80 | (cp & 63)), n = 2;
    else if (cp < 0x10000)
        u[0] = (uint8_t)(0xE0 | cp >> 12), u[1] = (uint8_t)(0x80 | (cp >> 6 & 63)), u[2] = (uint8_t)(0x80 | (cp & 63)), n = 3;
    else
        u[0] = (uint8_t)(0xF0 | cp >> 18), u[1] = (uint8_t)(0x80 | (cp >> 12 & 63)),
        u[2] = (uint8_t)(0x80 | (cp >> 6 & 63)), u[3] = (uint8_t)(0x80 | (cp & 63)), n = 4;
    mc_buf_put(b, u, n);
}

/* A string (after its opening quote) into a new NUL-terminated buffer. */
static char *read_string(mc_reader *r, size_t *len)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    for (;;) {
        int c = peek(r);
        if (c < 0) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "json: unterminated string");
            break;
        }
        r->pos++;
        if (c == '"') {
            char *s = mc_buf_ok(&b) ? malloc(b.len + 1) : NULL;
            if (!s) {
                mc_reader_fail(r, MC_ERR_NOMEM, "json: out of memory");
                break;
            }
            if (b.len)
                memcpy(s, b.data, b.len);
            s[b.len] = 0;
            *len = b.len;
            mc_buf_free(&b);
            return s;
        }
        if (c < 0x20) {
            mc_reader_fail(r, MC_ERR_MALFORMED, "json: control character in a string");
            break;
        }
        if (c != '\\') {
            uint8_t ch = (uint8_t)c;
            mc_buf_put(&b, &ch, 1);
            continue;
        }
        int e = peek(r);
        r->pos += e >= 0;
        const char *simple = strchr("\"\\/bfnrt", e > 0 ? e : 'x');
        if (e > 0 && simple) {
            static const char out[] = "\"\\/\b\f\n\r\t";
            mc_buf_put(&b, &out[simple - "\"\\/bfnrt"], 1);
        } else if (e == 'u') {
            int hi = hex4(r);
            uint32_t cp = (uint32_t)hi;
            if (hi >= 0xD800 && hi < 0xDC00 && expect_word(r, "\\u")) {
                int lo = hex4(r);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    hi = -1;
                else
                    cp = 0x10000 + (((uint32_t)hi - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
            } else if (hi >= 0xDC00 && hi <= 0xDFFF) {
                hi = -1;
            }
            if (hi < 0 || r->status) {
                mc_reader_fail(r, MC_ERR_MALFORMED, "json: bad \\u escape");
                break;
            }
            put_utf8(&b, cp);
        } else {
            mc_reader_fail(r, MC_ERR_MALFORMED, "json: bad escape");
            break;
        }
    }
    mc_buf_free(&b);
    return NULL;
}

static bool read_value(mc_reader *r, world_jvalue *v, int depth);

static bool grow(world_jvalue *v, size_t *cap, bool object)
{
    if (v->count < *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 8;
    world_jvalue *items = realloc(v->items, n * sizeof *items);
    if (!items)
        return false;
    v->items = items;
    if (object) {
        char **keys = realloc(v->keys, n * sizeof *keys);
        if (!keys)
            return false;
        v->keys = keys;
        size_t *kl = realloc(v->key_lens, n * sizeof *kl);
        if (!kl)
            return false;
        v->key_lens = kl;
    }
    *cap = n;
    return true;
}

static bool read_container(mc_reader *r, world_jvalue *v, int depth, bool object)
{
    v->type = object ? WJ_OBJECT : WJ_ARRAY;
    size_t cap = 0;
    skip_space(r);
    if (peek(r) == (object ? '}' : ']')) {
        r->pos++;
        return true;
    }
    for (;;) {
        skip_space(r);
        if (!grow(v, &cap, object)) {
            mc_reader_fail(r, MC_ERR_NOMEM, "json: out of memory");
            return false;
        }
        if (object) {
            if (peek(r) != '"') {
                mc_reader_fail(r, MC_ERR_MALFORMED, "json: expected a member name");
                return false;
            }
            r->pos++;
            size_t kl = 0;
            char *k = read_string(r, &kl);
            if (!k)
                return false;
            v->keys[v->count] = k;
            v->key_lens[v->count] = kl;
            skip_space(r);
            if (peek(r) != ':') {
                free(k);
                mc_reader_fail(r, MC_ERR_MALFORMED, "json: expected ':'");
                return false;
            }
            r->pos++;
        }
        memset(&v->items[v->count], 0, sizeof v->items[0]);
        v->count++;
        if (!read_value(r, &v->items[v->count - 1], depth + 1))
            return false;
        skip_space(r);
        int c = peek(r);
        r->pos += c >= 0;
        if (c == ',')
            continue;
        if (c == (object ? '}' : ']'))
            return true;
        mc_reader_fail(r, MC_ERR_MALFORMED, "json: expected ',' or '%c'", object ? '}' : ']');
        return false;
    }
}

static bool read_number(mc_reader *r, world_jvalue *v)
{
    bool neg = peek(r) == '-';
    r->pos += neg;
    uint64_t n = 0;
    size_t digits = 0;
    while (peek(r) >= '0' && peek(r) <= '9') {
        unsigned d = (unsigned)(peek(r) - '0');
        if (n > (UINT64_MAX - d) / 10) {
            mc_reader_fail(r, MC_ERR_RANGE, "json: number out of range");
            return false;
        }
        n = n * 10 + d;
        r->pos++;
        digits++;
    }
    int c = peek(r);
    if (!digits || c == '.' || c == 'e' || c == 'E' || (neg ? n > (uint64_t)INT64_MAX + 1 : n > INT64_MAX)) {
        mc_reader_fail(r, digits ? MC_ERR_RANGE : MC_ERR_MALFORMED, "json: expected a whole 64-bit number");
        return false;
    }
    v->type = WJ_INT;
    v->num = neg ? (int64_t)(0 - n) : (int64_t)n;
    return true;
}

static bool read_value(mc_reader *r, world_jvalue *v, int depth)
{
    if (depth > JSON_MAX_DEPTH) {
        mc_reader_fail(r, MC_ERR_LIMIT, "json: nested deeper than %d", JSON_MAX_DEPTH);
        return false;
    }
    skip_space(r);
    int c = peek(r);
    if (c == '{' || c == '[') {
        r->pos++;
        return read_container(r, v, depth, c == '{');
    }
    if (c == '"') {
        r->pos++;
        v->type = WJ_STRING;
        v->str = read_string(r, &v->len);
        return v->str != NULL;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return read_number(r, v);
    if (c == 't' || c == 'f') {
        v->type = WJ_BOOL;
        v->num = c == 't';
        return expect_word(r, c == 't' ? "true" : "false");
    }
    if (c == 'n') {
        v->type = WJ_NULL;
        return expect_word(r, "null");
    }
    mc_reader_fail(r, MC_ERR_MALFORMED, c < 0 ? "json: unexpected end" : "json: unexpected character");
    return false;
}

mc_status world_json_parse(const uint8_t *data, size_t len, world_jvalue *out, mc_error *err)
{
    memset(out, 0, sizeof *out);
    mc_reader r;
    mc_reader_init(&r, data, len, "json", err);
    if (read_value(&r, out, 0)) {
        skip_space(&r);
        if (mc_reader_remaining(&r))
            mc_reader_fail(&r, MC_ERR_MALFORMED, "json: more after the value");
    }
    if (r.status) {
        world_json_free(out);
        return r.status;
    }
    return MC_OK;
}

void world_json_free(world_jvalue *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        world_json_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->key_lens);
    free(v->str);
    memset(v, 0, sizeof *v);
}

const world_jvalue *world_json_get(const world_jvalue *obj, const char *key)
{
    if (!obj || obj->type != WJ_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->count; i++)
        if (obj->key_lens[i] == n && !memcmp(obj->keys[i], key, n))
            return &obj->items[i];
    return NULL;
}
