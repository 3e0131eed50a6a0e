/*
 * snbt.c: text forms of NBT -- the SNBT printer and parser (the game's
 * "stringified NBT", as in commands and /data get) and a JSON printer.
 *
 * Printing: numbers carry the game's suffixes (1b 2s 3 4L 5.0f 6.0d) and
 * floats are printed with the fewest digits that read back to the same
 * value; keys are left unquoted when the game would accept them so;
 * strings are quoted with " (or ' when that avoids escapes). The pretty form
 * puts each compound entry on its own line but keeps arrays and lists of
 * numbers on one line, since a chunk's long arrays are thousands of values.
 *
 * Parsing follows the game's reader: a bare word is typed by its shape
 * (digits with a suffix, a decimal number, true/false) and anything else --
 * including a number out of range for its suffix -- is a string. Lists hold
 * one type; [B;..] [I;..] [L;..] are arrays. Trailing commas are allowed,
 * as the game allows them. Recursion is bounded by the depth limit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbt/nbt_internal.h"

/* ------------------------------------------------------------- printing */

typedef struct printer {
    mc_buf *out;
    bool pretty;
    bool json;
    mc_status status;
} printer;

static void put_str(printer *p, const char *s) { mc_buf_put(p->out, s, strlen(s)); }

static void newline(printer *p, unsigned indent)
{
    if (!p->pretty)
        return;
    mc_buf_put_u8(p->out, '\n');
    for (unsigned i = 0; i < indent; i++)
        mc_buf_put(p->out, p->json ? "  " : "    ", p->json ? 2 : 4);
}

static void print_double(printer *p, double v, bool is_float, const char *suffix)
{
    char tmp[40];
    if (isnan(v) || isinf(v)) {
        if (p->json) {
            put_str(p, "null");
            return;
        }
        put_str(p, isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        put_str(p, suffix);
        return;
    }
    /* The fewest significant digits that read back to the same value... */
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        if (is_float ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v)
            break;
    }
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
    int exp10 = atoi(strchr(tmp, 'e') + 1);
    /* ...laid out as Java's toString does: plain for 1e-3 <= |v| < 1e7,
     * else d.dddE±n; always with a fraction digit. */
    double mag = fabs(v);
    if (v == 0 || (mag >= 1e-3 && mag < 1e7)) {
        int decimals = prec - 1 - exp10;
        snprintf(tmp, sizeof tmp, "%.*f", decimals > 0 ? decimals : 0, v);
        put_str(p, tmp);
        if (decimals <= 0)
            put_str(p, ".0");
    } else {
        char *e = strchr(tmp, 'e');
        *e = 0;
        put_str(p, tmp);
        if (!strchr(tmp, '.'))
            put_str(p, ".0");
        snprintf(tmp, sizeof tmp, "E%d", exp10);
        put_str(p, tmp);
    }
    if (!p->json)
        put_str(p, suffix);
}

static bool bare_key_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           c == '-' || c == '.' || c == '+';
}

/* A quoted string: SNBT or JSON escaping. Invalid UTF-8 becomes U+FFFD in
 * JSON; SNBT passes bytes through (it is text of the same bytes). */
static void print_quoted(printer *p, const uint8_t *s, size_t n)
{
    char q = '"';
    if (!p->json && memchr(s, '"', n) && !memchr(s, '\'', n))
        q = '\'';
    mc_buf_put_u8(p->out, (uint8_t)q);
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == (uint8_t)q || c == '\\') {
            mc_buf_put_u8(p->out, '\\');
            mc_buf_put_u8(p->out, c);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f" : NULL;
            char tmp[8];
            if (!e) {
                snprintf(tmp, sizeof tmp, p->json ? "\\u%04x" : "\\x%02x", c);
                e = tmp;
            }
            put_str(p, e);
            i++;
        } else if (c < 0x80 || !p->json) {
            mc_buf_put_u8(p->out, c);
            i++;
        } else {
            uint32_t cp;
            size_t len = mc__utf8_next(s + i, n - i, &cp);
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD;
            uint8_t u[4];
            mc_buf_put(p->out, u, mc__utf8_put(u, cp));
            i += len;
        }
    }
    mc_buf_put_u8(p->out, (uint8_t)q);
}

static void print_key(printer *p, const uint8_t *k, size_t n)
{
    bool bare = n > 0 && !p->json;
    for (size_t i = 0; bare && i < n; i++)
        bare = bare_key_char(k[i]);
    if (bare)
        mc_buf_put(p->out, k, n);
    else
        print_quoted(p, k ? k : (const uint8_t *)"", n);
}

static bool is_scalar_type(unsigned t) { return t >= MC_NBT_BYTE && t <= MC_NBT_DOUBLE; }

static void print_tag(printer *p, const mc_nbt_tag *t, unsigned depth);

static void print_array(printer *p, const mc_nbt_tag *t)
{
    mc_nbt_array a = {0};
    mc_nbt_get_array(t, (mc_nbt_type)t->type, &a);
    const char *sep = p->pretty ? ", " : ",";
    if (!p->json)
        put_str(p, t->type == MC_NBT_BYTE_ARRAY ? "[B;" : t->type == MC_NBT_INT_ARRAY ? "[I;" : "[L;");
    else
        put_str(p, "[");
    if (p->pretty && !p->json && a.count)
        put_str(p, " ");
    char tmp[32];
    for (size_t i = 0; i < a.count; i++) {
        if (i)
            put_str(p, sep);
        if (t->type == MC_NBT_BYTE_ARRAY)
            snprintf(tmp, sizeof tmp, p->json ? "%d" : "%dB", (int)(int8_t)a.data[i]);
        else if (t->type == MC_NBT_INT_ARRAY)
            snprintf(tmp, sizeof tmp, "%d", (int)mc_nbt_array_i32(&a, i));
        else
            snprintf(tmp, sizeof tmp, p->json ? "%lld" : "%lldL", (long long)mc_nbt_array_i64(&a, i));
        put_str(p, tmp);
    }
    put_str(p, "]");
}

static void print_tag(printer *p, const mc_nbt_tag *t, unsigned depth)
{
    char tmp[32];
    switch (t->type) {
    case MC_NBT_END:
        put_str(p, p->json ? "null" : "\"\"");
        return;
    case MC_NBT_BYTE:
        snprintf(tmp, sizeof tmp, p->json ? "%d" : "%db", (int)(int8_t)t->v.bits);
        put_str(p, tmp);
        return;
    case MC_NBT_SHORT:
        snprintf(tmp, sizeof tmp, p->json ? "%d" : "%ds", (int)(int16_t)t->v.bits);
        put_str(p, tmp);
        return;
    case MC_NBT_INT:
        snprintf(tmp, sizeof tmp, "%d", (int)(int32_t)t->v.bits);
        put_str(p, tmp);
        return;
    case MC_NBT_LONG:
        snprintf(tmp, sizeof tmp, p->json ? "%lld" : "%lldL", (long long)(int64_t)t->v.bits);
        put_str(p, tmp);
        return;
    case MC_NBT_FLOAT:
        print_double(p, mc_bits_to_f32((uint32_t)t->v.bits), true, "f");
        return;
    case MC_NBT_DOUBLE:
        print_double(p, mc_bits_to_f64(t->v.bits), false, "d");
        return;
    case MC_NBT_STRING:
        print_quoted(p, t->count ? t->v.ptr : (const uint8_t *)"", t->count);
        return;
    case MC_NBT_BYTE_ARRAY: case MC_NBT_INT_ARRAY: case MC_NBT_LONG_ARRAY:
        print_array(p, t);
        return;
    default:
        break;
    }
    if (depth + 1 > MC_NBT_MAX_DEPTH) {
        p->status = MC_ERR_LIMIT;
        return;
    }
    bool compound = t->type == MC_NBT_COMPOUND;
    mc_buf_put_u8(p->out, compound ? (p->json ? '{' : '{') : '[');
    if (!t->count) {
        mc_buf_put_u8(p->out, compound ? '}' : ']');
        return;
    }
    /* Lists of numbers stay on one line even when pretty. */
    bool inline_list = !compound && is_scalar_type(mc__list_elem(t));
    bool was_pretty = p->pretty;
    if (inline_list)
        p->pretty = false;
    for (const mc_nbt_tag *c = t->v.first; c && p->status == MC_OK; c = c->next) {
        if (c != t->v.first) {
            mc_buf_put_u8(p->out, ',');
            if (inline_list && was_pretty)
                mc_buf_put_u8(p->out, ' ');
        }
        newline(p, depth + 1);
        if (compound) {
            print_key(p, c->name, c->name_len);
            put_str(p, p->pretty ? ": " : ":");
        }
        print_tag(p, c, depth + 1);
    }
    newline(p, depth);
    p->pretty = was_pretty;
    mc_buf_put_u8(p->out, compound ? '}' : ']');
}

static mc_status print_root(const mc_nbt_tag *tag, unsigned flags, mc_buf *out, bool json)
{
    if (!tag || !out)
        return MC_ERR_INVALID_ARG;
    size_t start = out->len;
    printer p = {out, (flags & MC_NBT_PRINT_PRETTY) != 0, json, MC_OK};
    print_tag(&p, tag, 0);
    if (p.status == MC_OK && !mc_buf_ok(out))
        p.status = MC_ERR_NOMEM;
    if (p.status != MC_OK && mc_buf_ok(out))
        out->len = start;
    return p.status;
}

mc_status mc_nbt_to_snbt(const mc_nbt_tag *tag, unsigned flags, mc_buf *out)
{
    return print_root(tag, flags, out, false);
}

mc_status mc_nbt_to_json(const mc_nbt_tag *tag, unsigned flags, mc_buf *out)
{
    return print_root(tag, flags, out, true);
}

/* -------------------------------------------------------------- parsing */

typedef struct sparser {
    mc_nbt_doc *doc;
    const char *s;
    size_t n, i;
    unsigned max_depth;
    mc_error *err;
    mc_status status;
    mc_buf tmp; /* scratch for strings and arrays */
} sparser;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static bool sfail(sparser *ps, size_t at, mc_status st, const char *fmt, ...)
{
    if (ps->status != MC_OK)
        return false;
    ps->status = st;
    if (ps->err) {
        char msg[MC_ERROR_MESSAGE_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        mc_error_set(ps->err, st, at, "snbt: %s", msg);
    }
    return false;
}

static void skip_ws(sparser *ps)
{
    while (ps->i < ps->n) {
        char c = ps->s[ps->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
            ps->i++;
        else
            break;
    }
}

static bool expect(sparser *ps, char c)
{
    skip_ws(ps);
    if (ps->i < ps->n && ps->s[ps->i] == c) {
        ps->i++;
        return true;
    }
    if (ps->i >= ps->n)
        return sfail(ps, ps->i, MC_ERR_MALFORMED, "expected '%c' but the text ended", c);
    return sfail(ps, ps->i, MC_ERR_MALFORMED, "expected '%c', found '%c'", c, ps->s[ps->i]);
}

static mc_nbt_tag *new_tag(sparser *ps, mc_nbt_type type)
{
    mc_nbt_tag *t = mc__tag_new(ps->doc, type);
    if (!t)
        sfail(ps, ps->i, ps->doc->budget_hit ? MC_ERR_LIMIT : MC_ERR_NOMEM,
              ps->doc->budget_hit ? "byte budget exceeded" : "out of memory");
    return t;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A quoted string into ps->tmp (as UTF-8). */
static bool read_quoted(sparser *ps)
{
    char q = ps->s[ps->i++];
    ps->tmp.len = 0;
    while (ps->i < ps->n) {
        char c = ps->s[ps->i];
        if (c == q) {
            ps->i++;
            return mc_buf_ok(&ps->tmp) ? true : sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory");
        }
        if (c != '\\') {
            mc_buf_put_u8(&ps->tmp, (uint8_t)c);
            ps->i++;
            continue;
        }
        size_t at = ps->i;
        if (++ps->i >= ps->n)
            break;
        char e = ps->s[ps->i++];
        int digits = 0;
        switch (e) {
        case '\\': case '\'': case '"': mc_buf_put_u8(&ps->tmp, (uint8_t)e); break;
        case 'n': mc_buf_put_u8(&ps->tmp, '\n'); break;
        case 't': mc_buf_put_u8(&ps->tmp, '\t'); break;
        case 'r': mc_buf_put_u8(&ps->tmp, '\r'); break;
        case 'b': mc_buf_put_u8(&ps->tmp, '\b'); break;
        case 'f': mc_buf_put_u8(&ps->tmp, '\f'); break;
        case 's': mc_buf_put_u8(&ps->tmp, ' '); break;
        case 'x': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            return sfail(ps, at, MC_ERR_MALFORMED, "invalid escape '\\%c'", e);
        }
        if (digits) {
            uint32_t cp = 0;
            for (int k = 0; k < digits; k++) {
                int h = ps->i < ps->n ? hexval(ps->s[ps->i]) : -1;
                if (h < 0)
                    return sfail(ps, at, MC_ERR_MALFORMED, "escape needs %d hex digits", digits);
                cp = cp << 4 | (uint32_t)h;
                ps->i++;
            }
            if (cp > 0x10FFFF)
                return sfail(ps, at, MC_ERR_MALFORMED, "escape beyond U+10FFFF");
            uint8_t u[4];
            mc_buf_put(&ps->tmp, u, mc__utf8_put(u, cp));
        }
    }
    return sfail(ps, ps->i, MC_ERR_MALFORMED, "string not closed");
}

static bool word_char(char c) { return bare_key_char((uint8_t)c); }

/* Matches [-+]?(0|[1-9][0-9]*) exactly. */
static bool is_integer(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0')
        return i + 1 == n;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* Matches [-+]?([0-9]+[.]?|[0-9]*[.][0-9]+)(e[-+]?[0-9]+)? ; *dot says
 * whether a '.' or exponent appeared. */
static bool is_decimal(const char *s, size_t n, bool *dot)
{
    size_t i = 0, d1 = 0, d2 = 0;
    *dot = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, d1++;
    if (i < n && s[i] == '.') {
        *dot = true;
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, d2++;
    }
    if (!d1 && !d2)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *dot = true;
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        size_t d3 = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, d3++;
        if (!d3)
            return false;
    }
    return i == n;
}

/* Types a bare word as the game does. Numbers out of range stay strings. */
static mc_nbt_tag *typed_word(sparser *ps, const char *w, size_t n)
{
    char buf[64];
    if (n > 0 && n < sizeof buf) {
        memcpy(buf, w, n);
        buf[n] = 0;
        char last = (char)(w[n - 1] | 0x20);
        bool dot;
        if ((last == 'b' || last == 's' || last == 'l') && is_integer(w, n - 1)) {
            buf[n - 1] = 0;
            char *end;
            errno = 0;
            long long v = strtoll(buf, &end, 10);
            long long lo = last == 'b' ? -128 : last == 's' ? -32768 : INT64_MIN;
            long long hi = last == 'b' ? 127 : last == 's' ? 32767 : INT64_MAX;
            if (!errno && v >= lo && v <= hi) {
                mc_nbt_tag *t = new_tag(ps, last == 'b' ? MC_NBT_BYTE : last == 's' ? MC_NBT_SHORT : MC_NBT_LONG);
                if (t)
                    t->v.bits = (uint64_t)v;
                return t;
            }
        } else if (is_integer(w, n)) {
            errno = 0;
            long long v = strtoll(buf, NULL, 10);
            if (!errno && v >= INT32_MIN && v <= INT32_MAX) {
                mc_nbt_tag *t = new_tag(ps, MC_NBT_INT);
                if (t)
                    t->v.bits = (uint64_t)v;
                return t;
            }
        } else if ((last == 'f' || last == 'd') && is_decimal(w, n - 1, &dot)) {
            buf[n - 1] = 0;
            mc_nbt_tag *t = new_tag(ps, last == 'f' ? MC_NBT_FLOAT : MC_NBT_DOUBLE);
            if (t)
                t->v.bits = last == 'f' ? mc_f32_to_bits(strtof(buf, NULL)) : mc_f64_to_bits(strtod(buf, NULL));
            return t;
        } else if (is_decimal(w, n, &dot) && dot) {
            mc_nbt_tag *t = new_tag(ps, MC_NBT_DOUBLE);
            if (t)
                t->v.bits = mc_f64_to_bits(strtod(buf, NULL));
            return t;
        } else if (!strcmp(buf, "true") || !strcmp(buf, "false")) {
            mc_nbt_tag *t = new_tag(ps, MC_NBT_BYTE);
            if (t)
                t->v.bits = buf[0] == 't';
            return t;
        } else {
            /* Our printer's names for non-finite floats. */
            static const char *const nonfinite[] = {"NaN", "Infinity", "-Infinity"};
            for (int k = 0; k < 3; k++) {
                size_t kl = strlen(nonfinite[k]);
                if (n == kl + 1 && !memcmp(w, nonfinite[k], kl) && (last == 'f' || last == 'd')) {
                    double v = k == 0 ? NAN : k == 1 ? INFINITY : -INFINITY;
                    mc_nbt_tag *t = new_tag(ps, last == 'f' ? MC_NBT_FLOAT : MC_NBT_DOUBLE);
                    if (t)
                        t->v.bits = last == 'f' ? mc_f32_to_bits((float)v) : mc_f64_to_bits(v);
                    return t;
                }
            }
        }
    }
    mc_nbt_tag *t = new_tag(ps, MC_NBT_STRING);
    if (t) {
        t->v.ptr = mc__arena_dup(ps->doc, w, n);
        t->count = (uint32_t)n;
        if (!t->v.ptr)
            return sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory"), NULL;
    }
    return t;
}

static mc_nbt_tag *parse_value(sparser *ps, unsigned depth);

static bool read_key(sparser *ps, const uint8_t **key, size_t *klen)
{
    skip_ws(ps);
    size_t at = ps->i;
    if (ps->i < ps->n && (ps->s[ps->i] == '"' || ps->s[ps->i] == '\'')) {
        if (!read_quoted(ps))
            return false;
        *klen = ps->tmp.len;
        *key = mc__arena_dup(ps->doc, ps->tmp.data, ps->tmp.len);
    } else {
        while (ps->i < ps->n && word_char(ps->s[ps->i]))
            ps->i++;
        *klen = ps->i - at;
        if (!*klen)
            return sfail(ps, at, MC_ERR_MALFORMED, "expected a key");
        *key = mc__arena_dup(ps->doc, ps->s + at, *klen);
    }
    if (*klen > 65535)
        return sfail(ps, at, MC_ERR_LIMIT, "key longer than 65535 bytes");
    if (!*key)
        return sfail(ps, at, MC_ERR_NOMEM, "out of memory");
    return true;
}

/* After an element: true when another may follow (a comma was eaten). */
static bool separator(sparser *ps)
{
    skip_ws(ps);
    if (ps->i < ps->n && ps->s[ps->i] == ',') {
        ps->i++;
        skip_ws(ps);
        return true;
    }
    return false;
}

static mc_nbt_tag *last_of(const mc_nbt_tag *t)
{
    mc_nbt_tag *c = t->v.first;
    while (c && c->next)
        c = c->next;
    return c;
}

static mc_nbt_tag *parse_compound(sparser *ps, unsigned depth)
{
    mc_nbt_tag *t = new_tag(ps, MC_NBT_COMPOUND);
    if (!t)
        return NULL;
    ps->i++; /* '{' */
    skip_ws(ps);
    mc_nbt_tag *last = NULL;
    while (ps->i < ps->n && ps->s[ps->i] != '}') {
        const uint8_t *key = NULL;
        size_t klen = 0;
        if (!read_key(ps, &key, &klen) || !expect(ps, ':'))
            return NULL;
        mc_nbt_tag *v = parse_value(ps, depth);
        if (!v)
            return NULL;
        /* A repeated key replaces the earlier value, as in the game. */
        if (mc_nbt_get_n(t, (const char *)key, klen)) {
            mc_nbt_remove(t, (const char *)key, klen);
            last = t->count ? last_of(t) : NULL;
        }
        v->name = key;
        v->name_len = (uint16_t)klen;
        v->aux |= AUX_ATTACHED;
        if (last)
            last->next = v;
        else
            t->v.first = v;
        last = v;
        t->count++;
        if (!separator(ps))
            break;
    }
    return expect(ps, '}') ? t : NULL;
}

static mc_nbt_tag *parse_array(sparser *ps, char kind)
{
    mc_nbt_type type = kind == 'B' ? MC_NBT_BYTE_ARRAY : kind == 'I' ? MC_NBT_INT_ARRAY : MC_NBT_LONG_ARRAY;
    size_t es = kind == 'B' ? 1 : kind == 'I' ? 4 : 8;
    long long lo = kind == 'B' ? -128 : kind == 'I' ? INT32_MIN : INT64_MIN;
    long long hi = kind == 'B' ? 127 : kind == 'I' ? INT32_MAX : INT64_MAX;
    ps->i += 3; /* "[X;" */
    skip_ws(ps);
    mc_buf vals;
    mc_buf_init(&vals, NULL);
    while (ps->i < ps->n && ps->s[ps->i] != ']') {
        size_t at = ps->i;
        if (ps->s[ps->i] == '{' || ps->s[ps->i] == '[') {
            sfail(ps, at, MC_ERR_MALFORMED, "can't insert a %s into %s",
                  ps->s[ps->i] == '{' ? "compound" : "list", mc_nbt_type_name(type));
            goto fail;
        }
        mc_nbt_tag *v = parse_value(ps, 0);
        if (!v)
            goto fail;
        /* The game wants the element type itself; integers of other
         * widths that fit are accepted too. */
        if (v->type < MC_NBT_BYTE || v->type > MC_NBT_LONG || (int64_t)v->v.bits < lo ||
            (int64_t)v->v.bits > hi) {
            sfail(ps, at, MC_ERR_MALFORMED, "can't insert %s into %s", mc_nbt_type_name((mc_nbt_type)v->type),
                  mc_nbt_type_name(type));
            goto fail;
        }
        int64_t x = (int64_t)v->v.bits;
        if (es == 1) {
            mc_buf_put_u8(&vals, (uint8_t)x);
        } else if (es == 4) {
            int32_t y = (int32_t)x;
            mc_buf_put(&vals, &y, 4);
        } else {
            mc_buf_put(&vals, &x, 8);
        }
        if (vals.len / es > INT32_MAX) {
            sfail(ps, at, MC_ERR_LIMIT, "array too long");
            goto fail;
        }
        if (!separator(ps))
            break;
    }
    if (!mc_buf_ok(&vals)) {
        sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (!expect(ps, ']'))
        goto fail;
    mc_nbt_tag *t = new_tag(ps, type);
    if (!t)
        goto fail;
    t->count = (uint32_t)(vals.len / es);
    t->v.ptr = mc__arena_dup(ps->doc, vals.data, vals.len);
    if (!t->v.ptr) {
        sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory");
        goto fail;
    }
    mc_buf_free(&vals);
    return t;
fail:
    mc_buf_free(&vals);
    return NULL;
}

static mc_nbt_tag *parse_list(sparser *ps, unsigned depth)
{
    mc_nbt_tag *t = new_tag(ps, MC_NBT_LIST);
    if (!t)
        return NULL;
    ps->i++; /* '[' */
    skip_ws(ps);
    mc_nbt_tag *last = NULL;
    while (ps->i < ps->n && ps->s[ps->i] != ']') {
        size_t at = ps->i;
        mc_nbt_tag *v = parse_value(ps, depth);
        if (!v)
            return NULL;
        if (t->count && v->type != mc__list_elem(t))
            return sfail(ps, at, MC_ERR_MALFORMED, "can't insert %s into list of %s",
                         mc_nbt_type_name((mc_nbt_type)v->type), mc_nbt_type_name(mc__list_elem(t))),
                   NULL;
        if (t->count >= INT32_MAX)
            return sfail(ps, at, MC_ERR_LIMIT, "list too long"), NULL;
        t->aux = (uint8_t)((t->aux & ~AUX_VALUE) | v->type);
        v->aux |= AUX_ATTACHED;
        if (last)
            last->next = v;
        else
            t->v.first = v;
        last = v;
        t->count++;
        if (!separator(ps))
            break;
    }
    return expect(ps, ']') ? t : NULL;
}

static mc_nbt_tag *parse_value(sparser *ps, unsigned depth)
{
    skip_ws(ps);
    if (ps->i >= ps->n)
        return sfail(ps, ps->i, MC_ERR_MALFORMED, "expected a value but the text ended"), NULL;
    char c = ps->s[ps->i];
    if (c == '{' || c == '[') {
        if (depth + 1 > ps->max_depth)
            return sfail(ps, ps->i, MC_ERR_LIMIT, "nesting deeper than %u", ps->max_depth), NULL;
        if (c == '{')
            return parse_compound(ps, depth + 1);
        if (ps->i + 2 < ps->n && ps->s[ps->i + 2] == ';' && ps->s[ps->i + 1] != '"' &&
            ps->s[ps->i + 1] != '\'') {
            char k = ps->s[ps->i + 1];
            if (k != 'B' && k != 'I' && k != 'L')
                return sfail(ps, ps->i + 1, MC_ERR_MALFORMED, "invalid array type '%c'", k), NULL;
            return parse_array(ps, k);
        }
        return parse_list(ps, depth + 1);
    }
    if (c == '"' || c == '\'') {
        if (!read_quoted(ps))
            return NULL;
        mc_nbt_tag *t = new_tag(ps, MC_NBT_STRING);
        if (!t)
            return NULL;
        if (ps->tmp.len > UINT32_MAX)
            return sfail(ps, ps->i, MC_ERR_LIMIT, "string too long"), NULL;
        t->v.ptr = mc__arena_dup(ps->doc, ps->tmp.data, ps->tmp.len);
        t->count = (uint32_t)ps->tmp.len;
        if (!t->v.ptr)
            return sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory"), NULL;
        return t;
    }
    size_t at = ps->i;
    while (ps->i < ps->n && word_char(ps->s[ps->i]))
        ps->i++;
    if (ps->i == at)
        return sfail(ps, at, MC_ERR_MALFORMED, "expected a value, found '%c'", c), NULL;
    return typed_word(ps, ps->s + at, ps->i - at);
}

mc_status mc_snbt_parse(mc_nbt_doc *doc, const char *text, size_t len, const mc_nbt_limits *limits,
                        mc_error *err)
{
    if (!doc || (!text && len))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "snbt: no document or no text");
    sparser ps;
    memset(&ps, 0, sizeof ps);
    ps.doc = doc;
    ps.s = text ? text : "";
    ps.n = len;
    ps.max_depth = limits && limits->max_depth && limits->max_depth < MC_NBT_MAX_DEPTH
                       ? limits->max_depth : MC_NBT_MAX_DEPTH;
    ps.err = err;
    mc_buf_init(&ps.tmp, &doc->alloc);
    mc_nbt_doc_reset(doc);
    mc__arena_budget(doc, limits && limits->max_bytes ? limits->max_bytes : MC_NBT_DEFAULT_MAX_BYTES);
    mc_nbt_tag *root = parse_value(&ps, 0);
    if (root) {
        skip_ws(&ps);
        if (ps.i != ps.n)
            sfail(&ps, ps.i, MC_ERR_MALFORMED, "unexpected '%c' after the value", ps.s[ps.i]);
    }
    mc_buf_free(&ps.tmp);
    mc__arena_budget(doc, SIZE_MAX);
    if (ps.status != MC_OK || !root) {
        mc_nbt_doc_reset(doc);
        return ps.status != MC_OK ? ps.status : MC_ERR_MALFORMED;
    }
    root->aux |= AUX_ATTACHED;
    doc->root = root;
    return MC_OK;
}
