/*
 * be_text.c: text components (sign lines, custom names) between the forms
 * the game stored them in.
 *
 *   1.8-1.12   CustomName is a plain string; sign lines Text1..Text4 are
 *              JSON text in string tags (1.9 made the JSON strict);
 *   1.13       CustomName becomes JSON text too (DataVersion 1458);
 *   1.20.3     the game writes a plain component as a JSON string ("hi")
 *              instead of {"text":"hi"} (both read everywhere);
 *   1.21.5     components are NBT (DataVersion 4290, the game's
 *              UnflattenTextComponentFix): the JSON tree as tags, objects as
 *              compounds, arrays as lists, a plain text as a string tag.
 *
 * Between two JSON versions the string is copied as it is. Into NBT the
 * JSON is parsed (a small bounded recursive-descent parser: a component is
 * at most MC_NBT_MAX_DEPTH deep and as long as its tag) and built as tags;
 * out of NBT the tags are printed as JSON, bytes 0/1 as the booleans the
 * style keys are. NBT lists hold one tag type, so an array that mixes
 * strings and objects becomes a list of compounds ({"text": s} for a
 * string, which is the same component).
 */
#include "chunk/chunk_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX_DEPTH 64

/* ------------------------------------------------------------- JSON in */

typedef struct json_in {
    const char *p, *end;
    int depth;
    mc_nbt_doc *doc;
    mc_buf scratch; /* unescaped strings */
} json_in;

static void skip_ws(json_in *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static void put_utf8(mc_buf *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | (cp >> 6));
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | (cp >> 12));
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | (cp >> 18));
        u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    mc_buf_put(b, u, n);
}

/* Reads a JSON string (at the opening quote) into j->scratch. */
static bool read_string(json_in *j)
{
    j->scratch.len = 0;
    if (j->p >= j->end || *j->p != '"')
        return false;
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        char c = *j->p++;
        if (c != '\\') {
            mc_buf_put_u8(&j->scratch, (uint8_t)c);
            continue;
        }
        if (j->p >= j->end)
            return false;
        c = *j->p++;
        switch (c) {
        case 'n': mc_buf_put_u8(&j->scratch, '\n'); break;
        case 't': mc_buf_put_u8(&j->scratch, '\t'); break;
        case 'r': mc_buf_put_u8(&j->scratch, '\r'); break;
        case 'b': mc_buf_put_u8(&j->scratch, '\b'); break;
        case 'f': mc_buf_put_u8(&j->scratch, '\f'); break;
        case 'u': {
            if (j->end - j->p < 4)
                return false;
            int cp = hex4(j->p);
            if (cp < 0)
                return false;
            j->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
                int lo = hex4(j->p + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    j->p += 6;
                }
            }
            put_utf8(&j->scratch, (uint32_t)cp);
            break;
        }
        default: mc_buf_put_u8(&j->scratch, (uint8_t)c); break; /* \" \\ \/ and lenient others */
        }
    }
    if (j->p >= j->end)
        return false;
    j->p++;
    return mc_buf_ok(&j->scratch);
}

/* After a member or element: 1 when a comma follows (another comes), 0 at
 * the closing `close`, -1 for anything else. */
static int next_item(json_in *j, char close)
{
    skip_ws(j);
    if (j->p >= j->end)
        return -1;
    if (*j->p == ',') {
        j->p++;
        return 1;
    }
    return *j->p++ == close ? 0 : -1;
}

/* Skips one value (for the look-ahead over an array's element kinds). */
static bool skip_value(json_in *j, int depth)
{
    skip_ws(j);
    if (j->p >= j->end || depth > TEXT_MAX_DEPTH)
        return false;
    char c = *j->p;
    if (c == '"') {
        j->p++;
        while (j->p < j->end && *j->p != '"')
            j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
        if (j->p >= j->end)
            return false;
        j->p++;
        return true;
    }
    if (c == '{' || c == '[') {
        const char close = c == '{' ? '}' : ']';
        j->p++;
        skip_ws(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return true;
        }
        for (;;) {
            if (c == '{') {
                skip_ws(j);
                if (!skip_value(j, depth + 1))
                    return false;
                skip_ws(j);
                if (j->p >= j->end || *j->p++ != ':')
                    return false;
            }
            if (!skip_value(j, depth + 1))
                return false;
            const int more = next_item(j, close);
            if (more <= 0)
                return more == 0;
        }
    }
    const char *start = j->p;
    while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' && *j->p != ' ' && *j->p != '\n' &&
           *j->p != '\r' && *j->p != '\t')
        j->p++;
    return j->p != start; /* a stray , } or ] is no value (every loop must advance) */
}

/* What a JSON value becomes: string, compound (object), list, byte (bool),
 * int or double. */
static mc_nbt_type kind_at(const json_in *j, bool *is_bool)
{
    const char *p = j->p;
    *is_bool = false;
    if (p >= j->end)
        return MC_NBT_END;
    switch (*p) {
    case '"': return MC_NBT_STRING;
    case '{': return MC_NBT_COMPOUND;
    case '[': return MC_NBT_LIST;
    case 't':
    case 'f': *is_bool = true; return MC_NBT_BYTE;
    case 'n': return MC_NBT_END; /* null */
    default: break;
    }
    for (const char *q = p; q < j->end && *q != ',' && *q != '}' && *q != ']'; q++)
        if (*q == '.' || *q == 'e' || *q == 'E')
            return MC_NBT_DOUBLE;
    return MC_NBT_INT;
}

static bool value_into(json_in *j, mc_nbt_tag *dst);

/* A new tag of `type` for the current value: under `key` of a compound or
 * appended to a list. */
static mc_nbt_tag *slot(json_in *j, mc_nbt_tag *parent, const char *key, size_t klen, mc_nbt_type type)
{
    if (mc_nbt_tag_type(parent) == MC_NBT_COMPOUND)
        return mc_nbt_put(j->doc, parent, key, klen, type);
    return mc_nbt_list_append(j->doc, parent, type);
}

static bool object_into(json_in *j, mc_nbt_tag *obj)
{
    j->p++; /* { */
    skip_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return true;
    }
    char key[256];
    for (;;) {
        skip_ws(j);
        if (!read_string(j) || j->scratch.len >= sizeof key)
            return false;
        if (j->scratch.len) /* an empty key ("") may have no buffer yet */
            memcpy(key, j->scratch.data, j->scratch.len);
        const size_t klen = j->scratch.len;
        skip_ws(j);
        if (j->p >= j->end || *j->p++ != ':')
            return false;
        skip_ws(j);
        bool is_bool;
        mc_nbt_type t = kind_at(j, &is_bool);
        if (t == MC_NBT_END) { /* null: no key */
            if (!skip_value(j, j->depth))
                return false;
        } else {
            mc_nbt_tag *v = slot(j, obj, key, klen, t);
            if (!v || !value_into(j, v))
                return false;
        }
        const int more = next_item(j, '}');
        if (more <= 0)
            return more == 0;
    }
}

static bool array_into(json_in *j, mc_nbt_tag *list)
{
    /* the element type: one kind, or compounds when they mix */
    const char *start = ++j->p;
    mc_nbt_type elem = MC_NBT_END;
    bool mixed = false;
    skip_ws(j);
    while (j->p < j->end && *j->p != ']') {
        bool is_bool;
        mc_nbt_type t = kind_at(j, &is_bool);
        if (t != MC_NBT_END) {
            mixed |= elem != MC_NBT_END && elem != t;
            elem = elem == MC_NBT_END ? t : elem;
        }
        if (!skip_value(j, j->depth))
            return false;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',')
            j->p++;
        skip_ws(j);
    }
    if (j->p >= j->end)
        return false;
    j->p = start;
    for (;;) {
        skip_ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return true;
        }
        bool is_bool;
        mc_nbt_type t = kind_at(j, &is_bool);
        if (t == MC_NBT_END) {
            if (!skip_value(j, j->depth))
                return false;
        } else if (mixed && t != MC_NBT_COMPOUND) {
            /* a string (or number) among objects: {"text": it} */
            mc_nbt_tag *c = mc_nbt_list_append(j->doc, list, MC_NBT_COMPOUND);
            mc_nbt_tag *v = c ? mc_nbt_put(j->doc, c, "text", 4, MC_NBT_STRING) : NULL;
            if (!v || !value_into(j, v))
                return false;
        } else {
            mc_nbt_tag *v = mc_nbt_list_append(j->doc, list, t);
            if (!v || !value_into(j, v))
                return false;
        }
        skip_ws(j);
        if (j->p < j->end && *j->p == ',')
            j->p++;
    }
}

/* Fills `dst` (made with the type kind_at gave) from the value at j->p. A
 * string tag also takes numbers and booleans as their text. */
static bool value_into(json_in *j, mc_nbt_tag *dst)
{
    if (++j->depth > TEXT_MAX_DEPTH)
        return false;
    bool ok;
    skip_ws(j);
    const mc_nbt_type t = mc_nbt_tag_type(dst);
    if (t == MC_NBT_COMPOUND) {
        ok = j->p < j->end && *j->p == '{' && object_into(j, dst);
    } else if (t == MC_NBT_LIST) {
        ok = j->p < j->end && *j->p == '[' && array_into(j, dst);
    } else if (j->p < j->end && *j->p == '"') {
        ok = t == MC_NBT_STRING && read_string(j) &&
             mc_nbt_set_string(j->doc, dst, (const char *)j->scratch.data, j->scratch.len) == MC_OK;
    } else {
        const char *s = j->p;
        ok = skip_value(j, j->depth);
        char num[64];
        size_t n = (size_t)(j->p - s) < sizeof num - 1 ? (size_t)(j->p - s) : sizeof num - 1;
        memcpy(num, s, n);
        num[n] = 0;
        if (t == MC_NBT_BYTE)
            ok = ok && mc_nbt_set_byte(dst, num[0] == 't' ? 1 : 0) == MC_OK;
        else if (t == MC_NBT_INT)
            ok = ok && mc_nbt_set_int(dst, (int32_t)strtol(num, NULL, 10)) == MC_OK;
        else if (t == MC_NBT_DOUBLE)
            ok = ok && mc_nbt_set_double(dst, strtod(num, NULL)) == MC_OK;
        else if (t == MC_NBT_STRING)
            ok = ok && mc_nbt_set_string(j->doc, dst, num, n) == MC_OK;
        else
            ok = false;
    }
    j->depth--;
    return ok;
}

/* ------------------------------------------------------------ JSON out */

static void put_json_string(mc_buf *out, const char *s, size_t n)
{
    mc_buf_put_u8(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            mc_buf_put_u8(out, '\\');
            mc_buf_put_u8(out, c);
        } else if (c == '\n') {
            mc_buf_put(out, "\\n", 2);
        } else if (c < 0x20) {
            char esc[8];
            snprintf(esc, sizeof esc, "\\u%04x", c);
            mc_buf_put(out, esc, 6);
        } else {
            mc_buf_put_u8(out, c);
        }
    }
    mc_buf_put_u8(out, '"');
}

static void nbt_to_json(const mc_nbt_tag *t, mc_buf *out, int depth)
{
    if (depth > TEXT_MAX_DEPTH) {
        mc_buf_put(out, "\"\"", 2);
        return;
    }
    const char *s;
    size_t n;
    int64_t iv;
    double dv;
    char num[40];
    switch (mc_nbt_tag_type(t)) {
    case MC_NBT_STRING:
        mc_nbt_get_string(t, &s, &n);
        put_json_string(out, s, n);
        return;
    case MC_NBT_COMPOUND:
    case MC_NBT_LIST: {
        const bool obj = mc_nbt_tag_type(t) == MC_NBT_COMPOUND;
        mc_buf_put_u8(out, obj ? '{' : '[');
        for (mc_nbt_tag *c = mc_nbt_first(t); c; c = mc_nbt_next(c)) {
            if (c != mc_nbt_first(t))
                mc_buf_put_u8(out, ',');
            if (obj) {
                s = mc_nbt_tag_key(c, &n);
                put_json_string(out, s, n);
                mc_buf_put_u8(out, ':');
            }
            nbt_to_json(c, out, depth + 1);
        }
        mc_buf_put_u8(out, obj ? '}' : ']');
        return;
    }
    case MC_NBT_BYTE: {
        int8_t b = 0;
        mc_nbt_get_byte(t, &b);
        if (b == 0 || b == 1) { /* the style flags (bold, italic, ...) are booleans */
            mc_buf_put(out, b ? "true" : "false", b ? 4 : 5);
            return;
        }
        iv = b;
        break;
    }
    case MC_NBT_FLOAT:
    case MC_NBT_DOUBLE:
        mc_nbt_get_number(t, &dv);
        snprintf(num, sizeof num, "%.17g", dv);
        mc_buf_put(out, num, strlen(num));
        return;
    default:
        if (mc_nbt_get_integer(t, &iv) != MC_OK) {
            mc_buf_put(out, "\"\"", 2);
            return;
        }
        break;
    }
    snprintf(num, sizeof num, "%lld", (long long)iv);
    mc_buf_put(out, num, strlen(num));
}

/* ---------------------------------------------------------- plain text */

static void plain_json(json_in *j, mc_buf *out, int depth);

static void plain_json_object(json_in *j, mc_buf *out, int depth)
{
    j->p++;
    for (;;) {
        skip_ws(j);
        if (j->p >= j->end || *j->p == '}') {
            j->p += j->p < j->end;
            return;
        }
        if (!read_string(j))
            return;
        const bool text = j->scratch.len == 4 && !memcmp(j->scratch.data, "text", 4);
        const bool extra = j->scratch.len == 5 && !memcmp(j->scratch.data, "extra", 5);
        skip_ws(j);
        if (j->p >= j->end || *j->p++ != ':')
            return;
        skip_ws(j);
        if (text || extra)
            plain_json(j, out, depth + 1);
        else if (!skip_value(j, depth))
            return;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',')
            j->p++;
    }
}

/* Appends the text a JSON component shows ("text" and "extra", in order). */
static void plain_json(json_in *j, mc_buf *out, int depth)
{
    skip_ws(j);
    if (j->p >= j->end || depth > TEXT_MAX_DEPTH)
        return;
    if (*j->p == '"') {
        if (read_string(j))
            mc_buf_put(out, j->scratch.data, j->scratch.len);
    } else if (*j->p == '{') {
        plain_json_object(j, out, depth);
    } else if (*j->p == '[') {
        j->p++;
        for (;;) {
            skip_ws(j);
            if (j->p >= j->end || *j->p == ']') {
                j->p += j->p < j->end;
                return;
            }
            const char *at = j->p;
            plain_json(j, out, depth + 1);
            if (j->p == at)
                return; /* nothing read: malformed, stop */
            skip_ws(j);
            if (j->p < j->end && *j->p == ',')
                j->p++;
        }
    } else {
        skip_value(j, depth);
    }
}

static void plain_nbt(const mc_nbt_tag *t, mc_buf *out, int depth)
{
    const char *s;
    size_t n;
    if (depth > TEXT_MAX_DEPTH)
        return;
    if (mc_nbt_get_string(t, &s, &n) == MC_OK) {
        mc_buf_put(out, s, n);
    } else if (mc_nbt_tag_type(t) == MC_NBT_COMPOUND) {
        plain_nbt(mc_nbt_get(t, "text"), out, depth + 1);
        plain_nbt(mc_nbt_get(t, "extra"), out, depth + 1);
    } else if (mc_nbt_tag_type(t) == MC_NBT_LIST) {
        for (mc_nbt_tag *c = mc_nbt_first(t); c; c = mc_nbt_next(c))
            plain_nbt(c, out, depth + 1);
    }
}

/* The text of a JSON string (as the JSON form stores it). */
static void plain_of_json(const char *s, size_t n, mc_buf *out)
{
    json_in j = {s, s + n, 0, NULL, {0}};
    mc_buf_init(&j.scratch, NULL);
    skip_ws(&j);
    if (j.p < j.end && (*j.p == '{' || *j.p == '[' || *j.p == '"'))
        plain_json(&j, out, 0);
    else
        mc_buf_put(out, s, n); /* not JSON: the game read such lines as plain text */
    mc_buf_free(&j.scratch);
}

size_t mc__text_plain(const mc_nbt_tag *text, char *buf, size_t cap)
{
    mc_buf out;
    mc_buf_init(&out, NULL);
    const char *s;
    size_t n;
    /* a string is JSON before 1.21.5 and plain text after; JSON's plain
     * forms start with one of {[" */
    if (mc_nbt_get_string(text, &s, &n) == MC_OK) {
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\n'))
            k++;
        if (k < n && (s[k] == '{' || s[k] == '[' || s[k] == '"'))
            plain_of_json(s, n, &out);
        else
            mc_buf_put(&out, s, n);
    } else {
        plain_nbt(text, &out, 0);
    }
    size_t len = mc_buf_ok(&out) ? out.len : 0;
    if (cap) {
        size_t k = len < cap - 1 ? len : cap - 1;
        if (k)
            memcpy(buf, out.data, k);
        buf[k] = 0;
    }
    mc_buf_free(&out);
    return len;
}

bool mc__text_is_empty(const mc_nbt_tag *text)
{
    char c[2];
    return !text || mc__text_plain(text, c, sizeof c) == 0;
}

/* ---------------------------------------------------------- translation */

/* The JSON of a component of either form into out. */
static void as_json(const mc_nbt_tag *text, bool nbt_form, mc_buf *out)
{
    const char *s;
    size_t n;
    if (!nbt_form && mc_nbt_get_string(text, &s, &n) == MC_OK)
        mc_buf_put(out, s, n);
    else if (text)
        nbt_to_json(text, out, 0);
    else
        mc_buf_put(out, "\"\"", 2);
}

/* Whether a JSON text is a plain string or {"text": s} with nothing else. */
static bool json_is_plain(const char *json, size_t n)
{
    json_in j = {json, json + n, 0, NULL, {0}};
    mc_buf_init(&j.scratch, NULL);
    skip_ws(&j);
    bool plain = false;
    if (j.p < j.end && *j.p == '"') {
        plain = read_string(&j);
    } else if (j.p < j.end && *j.p == '{') {
        j.p++;
        skip_ws(&j);
        plain = read_string(&j) && j.scratch.len == 4 && !memcmp(j.scratch.data, "text", 4);
        skip_ws(&j);
        plain = plain && j.p < j.end && *j.p++ == ':';
        skip_ws(&j);
        plain = plain && read_string(&j);
        skip_ws(&j);
        plain = plain && j.p < j.end && *j.p == '}';
    }
    mc_buf_free(&j.scratch);
    return plain;
}

/* A new tag of `type` under (parent, key), or appended to a list (key NULL). */
static mc_nbt_tag *put_slot(mc_nbt_doc *doc, mc_nbt_tag *parent, const char *key, mc_nbt_type type)
{
    return key ? mc_nbt_put(doc, parent, key, strlen(key), type) : mc_nbt_list_append(doc, parent, type);
}

/* A plain text s in NBT form: a string tag, or {text: s} where `compound`. */
static mc_status put_nbt_plain(mc_nbt_doc *doc, mc_nbt_tag *parent, const char *key, const char *s, size_t n,
                               bool compound)
{
    mc_nbt_tag *v = put_slot(doc, parent, key, compound ? MC_NBT_COMPOUND : MC_NBT_STRING);
    if (v && compound)
        v = mc_nbt_put(doc, v, "text", 4, MC_NBT_STRING);
    return v ? mc_nbt_set_string(doc, v, s, n) : MC_ERR_NOMEM;
}

/* Puts the JSON text json[0..n) in NBT form under (parent, key) or appended
 * to a list (key NULL); `compound` forces a compound for a plain text (in
 * a list of compounds). What does not parse is shown as its plain text, as
 * the game shows such a line. */
static mc_status put_nbt_from_json(mc_nbt_doc *doc, mc_nbt_tag *parent, const char *key, const char *json,
                                   size_t n, bool compound)
{
    mc_buf plain;
    mc_buf_init(&plain, NULL);
    mc_status st = MC_ERR_NOMEM;
    json_in j = {json, json + n, 0, doc, {0}};
    mc_buf_init(&j.scratch, NULL);
    skip_ws(&j);
    bool is_bool;
    const mc_nbt_type t = kind_at(&j, &is_bool);
    bool done = false;
    if (!json_is_plain(json, n) && (t == MC_NBT_COMPOUND || t == MC_NBT_LIST)) {
        const size_t before = key ? 0 : mc_nbt_count(parent);
        mc_nbt_tag *v = put_slot(doc, parent, key, t);
        if (v && value_into(&j, v)) {
            st = MC_OK;
            done = true;
        } else if (v && !key) {
            mc_nbt_list_remove(parent, before); /* the half-built element */
        }
    }
    if (!done) {
        plain_of_json(json, n, &plain);
        if (mc_buf_ok(&plain))
            st = put_nbt_plain(doc, parent, key, (const char *)plain.data, plain.len, compound);
    }
    mc_buf_free(&j.scratch);
    mc_buf_free(&plain);
    return st;
}

/* Puts one component, of ctx->from_dv's form, at (parent, key) or appended
 * to a list, in ctx->to_dv's form. */
static mc_status put_text(const mc__be_ctx *c, mc_nbt_tag *parent, const char *key, const mc_nbt_tag *text,
                          bool compound)
{
    const bool from_nbt = c->from_dv >= MC__BE_DV_NBT_TEXT, to_nbt = c->to_dv >= MC__BE_DV_NBT_TEXT;
    if (from_nbt == to_nbt && text && !(to_nbt && compound && mc_nbt_tag_type(text) != MC_NBT_COMPOUND)) {
        mc_nbt_tag *copy = mc_nbt_copy(c->doc, text);
        if (!copy)
            return MC_ERR_NOMEM;
        return key ? mc_nbt_attach(c->doc, parent, key, strlen(key), copy) : mc_nbt_list_attach(c->doc, parent, copy);
    }
    mc_buf json;
    mc_buf_init(&json, NULL);
    as_json(text, from_nbt, &json);
    mc_status st;
    if (!mc_buf_ok(&json)) {
        st = MC_ERR_NOMEM;
    } else if (to_nbt) {
        st = put_nbt_from_json(c->doc, parent, key, (const char *)json.data, json.len, compound);
    } else {
        /* JSON: a plain text as the target's game writes it */
        mc_buf plain;
        mc_buf_init(&plain, NULL);
        if (json_is_plain((const char *)json.data, json.len)) {
            plain_of_json((const char *)json.data, json.len, &plain);
            json.len = 0;
            if (c->to_dv >= MC__BE_DV_PLAIN_TEXT) {
                put_json_string(&json, (const char *)plain.data, plain.len);
            } else {
                mc_buf_put(&json, "{\"text\":", 8);
                put_json_string(&json, (const char *)plain.data, plain.len);
                mc_buf_put_u8(&json, '}');
            }
        }
        mc_buf_free(&plain);
        mc_nbt_tag *v = key ? mc_nbt_put(c->doc, parent, key, strlen(key), MC_NBT_STRING)
                            : mc_nbt_list_append(c->doc, parent, MC_NBT_STRING);
        st = v && mc_buf_ok(&json) ? mc_nbt_set_string(c->doc, v, (const char *)json.data, json.len) : MC_ERR_NOMEM;
    }
    mc_buf_free(&json);
    return st;
}

/* The empty component in the target's form, appended to a list. */
static mc_status put_empty(const mc__be_ctx *c, mc_nbt_tag *list, bool compound)
{
    if (c->to_dv >= MC__BE_DV_NBT_TEXT)
        return put_nbt_plain(c->doc, list, NULL, "", 0, compound);
    const char *json = c->to_dv >= MC__BE_DV_PLAIN_TEXT ? "\"\"" : "{\"text\":\"\"}";
    mc_nbt_tag *v = mc_nbt_list_append(c->doc, list, MC_NBT_STRING);
    return v ? mc_nbt_set_string(c->doc, v, json, strlen(json)) : MC_ERR_NOMEM;
}

mc_status mc__text_put(const mc__be_ctx *c, mc_nbt_tag *dst, const char *key, const mc_nbt_tag *text)
{
    return put_text(c, dst, key, text, false);
}

mc_status mc__text_put_list(const mc__be_ctx *c, mc_nbt_tag *list, const mc_nbt_tag *const *texts, size_t n)
{
    /* NBT: one tag type for every line; compounds as soon as one line needs one */
    bool compound = false;
    if (c->to_dv >= MC__BE_DV_NBT_TEXT)
        for (size_t i = 0; i < n && !compound; i++) {
            const mc_nbt_tag *t = texts[i];
            const char *s;
            size_t len;
            if (!t)
                continue;
            if (c->from_dv >= MC__BE_DV_NBT_TEXT)
                compound = mc_nbt_tag_type(t) != MC_NBT_STRING;
            else if (mc_nbt_get_string(t, &s, &len) == MC_OK)
                compound = !json_is_plain(s, len);
        }
    for (size_t i = 0; i < n; i++) {
        mc_status st = texts[i] ? put_text(c, list, NULL, texts[i], compound) : put_empty(c, list, compound);
        if (st != MC_OK)
            return st;
    }
    return MC_OK;
}

mc_status mc__text_put_plain(const mc__be_ctx *c, mc_nbt_tag *dst, const char *key, const char *s, size_t len)
{
    mc_buf json;
    mc_buf_init(&json, NULL);
    put_json_string(&json, s, len);
    mc_status st = MC_ERR_NOMEM;
    if (mc_buf_ok(&json)) {
        if (c->to_dv >= MC__BE_DV_NBT_TEXT)
            st = mc_nbt_put_string(c->doc, dst, key, s, len);
        else if (c->to_dv >= MC__BE_DV_PLAIN_TEXT)
            st = mc_nbt_put_string(c->doc, dst, key, (const char *)json.data, json.len);
        else {
            mc_buf obj;
            mc_buf_init(&obj, NULL);
            mc_buf_put(&obj, "{\"text\":", 8);
            mc_buf_put(&obj, json.data, json.len);
            mc_buf_put_u8(&obj, '}');
            st = mc_buf_ok(&obj) ? mc_nbt_put_string(c->doc, dst, key, (const char *)obj.data, obj.len) : MC_ERR_NOMEM;
            mc_buf_free(&obj);
        }
    }
    mc_buf_free(&json);
    return st;
}

