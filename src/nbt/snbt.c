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
 * Parsing follows the game's reader as of 1.21.5 (see mc_snbt_parse in
 * nbt.h for the rules): a value that starts like a number (0-9 . + -) must
 * be a valid number -- hex, binary, '_' separators, u/s suffixes, floats
 * with optional whole or fraction part -- or it is an error at the offending
 * character; any other bare word is true/false, a bool()/uuid() operation
 * or a string. [B;..] [I;..] [L;..] hold integers only; a list of mixed
 * types is stored wrapped, as the game stores it. Trailing commas are
 * allowed. Recursion is bounded by the depth limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbt/doc.h"

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

/* ---- numbers: the grammar of 1.21.5+ (25w09a/25w10a)
 *
 *   integer  [+-]? ( 0x HEX | 0b BIN | 0 | [1-9] DEC ) suffix?
 *   suffix   [us]? [bsil]        (any case; u/s: unsigned/signed range)
 *   float    [+-]? ( D . D? exp? | . D exp? | D exp | D exp? ) [fd]?
 *            (the last two forms need an exp or the suffix; no suffix: double)
 *   exp      [eE] [+-]? D
 *
 * D, HEX, BIN are runs of their digits and '_', not starting or ending with
 * '_'. Integers may not have leading zeros; floats may. Without u/s a
 * decimal number is signed and a hex or binary one unsigned: 0xFFFFFFFF is
 * -1, 240ub is -16b, 240sb is out of range, -1ub is an error. Unsigned only
 * widens the range; values are stored signed. Since b is a hex digit, a hex
 * byte needs ub or sb. A float that overflows to infinity is an error;
 * there is no NaN or infinity literal. Anything else that starts like a
 * number (+ - . 0-9) is an error, never a string. */

static int digit_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
}

static bool can_start_number(char c) { return c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'); }

/* End of the run of radix digits and underscores at s[i..n). */
static size_t digit_run(const char *s, size_t i, size_t n, int radix)
{
    while (i < n && (s[i] == '_' || digit_value(s[i]) < radix))
        i++;
    return i;
}

/* A non-empty run that neither starts nor ends with '_'. */
static bool run_ok(const char *s, size_t a, size_t b) { return b > a && s[a] != '_' && s[b - 1] != '_'; }

/* Appends s[a..b) without underscores to ps->tmp. */
static void put_digits(sparser *ps, size_t a, size_t b)
{
    for (size_t k = a; k < b; k++)
        if (ps->s[k] != '_')
            mc_buf_put_u8(&ps->tmp, (uint8_t)ps->s[k]);
}

/* What may follow a value: the text's end, white space, or punctuation. */
static bool value_may_end(const sparser *ps, size_t j)
{
    if (j >= ps->n)
        return true;
    char c = ps->s[j];
    return c == ',' || c == ']' || c == '}' || c == ')' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
           c == '\f' || c == '\v';
}

typedef struct snum {
    mc_nbt_type type;
    uint64_t bits;
} snum;

static mc_nbt_type int_suffix_type(char c)
{
    switch (c | 0x20) {
    case 'b': return MC_NBT_BYTE;
    case 's': return MC_NBT_SHORT;
    case 'i': return MC_NBT_INT;
    case 'l': return MC_NBT_LONG;
    default: return MC_NBT_END;
    }
}

static unsigned int_bits(mc_nbt_type t)
{
    return t == MC_NBT_BYTE ? 8 : t == MC_NBT_SHORT ? 16 : t == MC_NBT_INT ? 32 : 64;
}

/* A float at s[i..) (i after the sign): true with *end and the value when
 * the text has a float's shape, false when it does not (then it may still
 * be an integer); a float that does not convert is an error (*err set). */
static bool read_float(sparser *ps, size_t start, size_t i, bool minus, snum *out, size_t *end, bool *err)
{
    const char *s = ps->s;
    size_t n = ps->n;
    size_t w0 = i, w1 = digit_run(s, i, n, 10), f0 = 0, f1 = 0, e0 = 0, e1 = 0;
    bool whole = run_ok(s, w0, w1), dot = false, exp = false;
    char esign = 0, suffix = 0;
    *err = false;
    if (w1 > w0 && !whole)
        return false; /* a bad run: the integer reader reports it */
    size_t j = w1;
    if (j < n && s[j] == '.') {
        f0 = j + 1;
        f1 = digit_run(s, f0, n, 10);
        if (f1 > f0 && !run_ok(s, f0, f1)) {
            *err = true;
            return sfail(ps, f0, MC_ERR_MALFORMED, "'_' only between digits");
        }
        if (!whole && f1 == f0)
            return false; /* a lone '.' */
        dot = true;
        j = f1;
    } else if (!whole) {
        return false;
    }
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        char sg = 0;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            sg = s[k++];
        size_t r = digit_run(s, k, n, 10);
        if (run_ok(s, k, r)) {
            exp = true;
            esign = sg;
            e0 = k;
            e1 = r;
            j = r;
        }
    }
    if (j < n && ((s[j] | 0x20) == 'f' || (s[j] | 0x20) == 'd'))
        suffix = (char)(s[j++] | 0x20);
    if (!dot && !exp && !suffix)
        return false;
    ps->tmp.len = 0;
    if (minus)
        mc_buf_put_u8(&ps->tmp, '-');
    put_digits(ps, w0, w1);
    if (dot) {
        mc_buf_put_u8(&ps->tmp, '.');
        put_digits(ps, f0, f1);
    }
    if (exp) {
        mc_buf_put_u8(&ps->tmp, 'e');
        if (esign)
            mc_buf_put_u8(&ps->tmp, (uint8_t)esign);
        put_digits(ps, e0, e1);
    }
    mc_buf_put_u8(&ps->tmp, 0);
    if (!mc_buf_ok(&ps->tmp)) {
        *err = true;
        return sfail(ps, start, MC_ERR_NOMEM, "out of memory");
    }
    const char *text = (const char *)ps->tmp.data;
    if (suffix == 'f') {
        float f = strtof(text, NULL);
        if (isinf(f)) {
            *err = true;
            return sfail(ps, start, MC_ERR_MALFORMED, "float out of range (infinity is not allowed)");
        }
        *out = (snum){MC_NBT_FLOAT, mc_f32_to_bits(f)};
    } else {
        double d = strtod(text, NULL);
        if (isinf(d)) {
            *err = true;
            return sfail(ps, start, MC_ERR_MALFORMED, "double out of range (infinity is not allowed)");
        }
        *out = (snum){MC_NBT_DOUBLE, mc_f64_to_bits(d)};
    }
    *end = j;
    return true;
}

/* A number at ps->i. `array` is the element type of the array being read
 * (MC_NBT_END outside arrays): there only integers are allowed, an integer
 * without a type suffix takes the array's type, and a suffix must name a
 * type no wider than the array's. */
static bool read_number(sparser *ps, mc_nbt_type array, snum *out)
{
    const char *s = ps->s;
    size_t n = ps->n, start = ps->i, i = start;
    bool minus = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        minus = s[i++] == '-';
    size_t j = 0;
    if (array == MC_NBT_END) {
        bool err;
        if (read_float(ps, start, i, minus, out, &j, &err)) {
            if (!value_may_end(ps, j))
                return sfail(ps, j, MC_ERR_MALFORMED, "unexpected '%c' after a number", s[j]);
            ps->i = j;
            return true;
        }
        if (err)
            return false;
    }
    /* an integer: digits [d0, d1) in `radix` */
    int radix = 10;
    size_t d0, d1;
    if (i < n && s[i] == '0' && i + 1 < n && (s[i + 1] | 0x20) == 'x') {
        radix = 16;
        d0 = i + 2;
        d1 = digit_run(s, d0, n, 16);
        if (!run_ok(s, d0, d1))
            return sfail(ps, d0, MC_ERR_MALFORMED, d1 > d0 ? "'_' only between digits" : "expected hex digits");
    } else if (i < n && s[i] == '0' && i + 1 < n && (s[i + 1] | 0x20) == 'b' &&
               run_ok(s, i + 2, digit_run(s, i + 2, n, 2))) {
        radix = 2;
        d0 = i + 2;
        d1 = digit_run(s, d0, n, 2);
    } else if (i < n && s[i] == '0') {
        /* 0 alone (0b is the byte 0) */
        if (digit_run(s, i + 1, n, 10) > i + 1)
            return sfail(ps, i, MC_ERR_MALFORMED, "leading zeros are not allowed");
        d0 = i;
        d1 = i + 1;
    } else if (i < n && s[i] >= '1' && s[i] <= '9') {
        d0 = i;
        d1 = digit_run(s, i, n, 10);
        if (!run_ok(s, d0, d1))
            return sfail(ps, d0, MC_ERR_MALFORMED, "'_' only between digits");
    } else {
        return sfail(ps, i, MC_ERR_MALFORMED, array == MC_NBT_END ? "expected a number" : "expected an integer");
    }
    /* suffix: [us]?[bsil] */
    j = d1;
    char sign_prefix = 0;
    mc_nbt_type type = MC_NBT_END;
    if (j + 1 < n && ((s[j] | 0x20) == 'u' || (s[j] | 0x20) == 's') && int_suffix_type(s[j + 1]) != MC_NBT_END) {
        sign_prefix = (char)(s[j] | 0x20);
        type = int_suffix_type(s[j + 1]);
        j += 2;
    } else if (j < n && int_suffix_type(s[j]) != MC_NBT_END) {
        type = int_suffix_type(s[j]);
        j += 1;
    }
    if (!value_may_end(ps, j))
        return sfail(ps, j, MC_ERR_MALFORMED, "unexpected '%c' after a number", s[j]);
    if (array != MC_NBT_END) {
        if (type == MC_NBT_END)
            type = array;
        else if (int_bits(type) > int_bits(array))
            return sfail(ps, start, MC_ERR_MALFORMED, "can't insert %s into %s_array", mc_nbt_type_name(type),
                         mc_nbt_type_name(array));
    } else if (type == MC_NBT_END) {
        type = MC_NBT_INT;
    }
    bool is_signed = sign_prefix ? sign_prefix == 's' : radix == 10;
    if (!is_signed && minus)
        return sfail(ps, start, MC_ERR_MALFORMED, "an unsigned number can't be negative");
    uint64_t v = 0;
    for (size_t k = d0; k < d1; k++) {
        if (s[k] == '_')
            continue;
        uint64_t d = (uint64_t)digit_value(s[k]);
        if (v > (UINT64_MAX - d) / (uint64_t)radix)
            return sfail(ps, start, MC_ERR_MALFORMED, "number out of range");
        v = v * (uint64_t)radix + d;
    }
    unsigned bits = int_bits(type);
    uint64_t bits_val;
    if (is_signed) {
        uint64_t limit = ((uint64_t)1 << (bits - 1)) - (minus ? 0 : 1);
        if (v > limit)
            return sfail(ps, start, MC_ERR_MALFORMED, "number out of range for a signed %s", mc_nbt_type_name(type));
        bits_val = minus ? (uint64_t)0 - v : v;
    } else {
        if (bits < 64 && v >> bits)
            return sfail(ps, start, MC_ERR_MALFORMED, "number out of range for an unsigned %s",
                         mc_nbt_type_name(type));
        /* sign-extend from the type's width (stored signed) */
        bits_val = bits == 64 ? v : (uint64_t)(((int64_t)(v << (64 - bits))) >> (64 - bits));
    }
    *out = (snum){type, bits_val};
    ps->i = j;
    return true;
}

static mc_nbt_tag *number_value(sparser *ps)
{
    snum v;
    if (!read_number(ps, MC_NBT_END, &v))
        return NULL;
    mc_nbt_tag *t = new_tag(ps, v.type);
    if (t)
        t->v.bits = v.bits;
    return t;
}

static mc_nbt_tag *parse_value(sparser *ps, unsigned depth);

/* ---- built-in operations (25w10a): bool(x) and uuid(str) */

/* Java's UUID text: five groups of hex digits split by '-' (at most 8, 4, 4,
 * 4, 12 digits). */
static bool parse_uuid(const uint8_t *s, size_t n, uint32_t out[4])
{
    static const size_t max_digits[5] = {8, 4, 4, 4, 12};
    uint64_t part[5] = {0};
    size_t g = 0, digits = 0;
    for (size_t k = 0; k <= n; k++) {
        if (k == n || s[k] == '-') {
            if (!digits || g >= 5)
                return false;
            g++;
            digits = 0;
            continue;
        }
        int h = digit_value((char)s[k]);
        if (g >= 5 || h > 15 || ++digits > max_digits[g])
            return false;
        part[g] = part[g] << 4 | (uint64_t)h;
    }
    if (g != 5)
        return false;
    uint64_t msb = part[0] << 32 | part[1] << 16 | part[2];
    uint64_t lsb = part[3] << 48 | part[4];
    out[0] = (uint32_t)(msb >> 32);
    out[1] = (uint32_t)msb;
    out[2] = (uint32_t)(lsb >> 32);
    out[3] = (uint32_t)lsb;
    return true;
}

static mc_nbt_tag *builtin(sparser *ps, const char *name, size_t nlen, size_t at, unsigned depth)
{
    ps->i++; /* '(' */
    mc_nbt_tag *args[2] = {NULL, NULL};
    size_t nargs = 0;
    skip_ws(ps);
    while (ps->i < ps->n && ps->s[ps->i] != ')') {
        mc_nbt_tag *v = parse_value(ps, depth);
        if (!v)
            return NULL;
        if (nargs < 2)
            args[nargs] = v;
        nargs++;
        skip_ws(ps);
        if (ps->i < ps->n && ps->s[ps->i] == ',') {
            ps->i++;
            skip_ws(ps);
        } else {
            break;
        }
    }
    if (!expect(ps, ')'))
        return NULL;
    bool is_bool = nlen == 4 && !memcmp(name, "bool", 4), is_uuid = nlen == 4 && !memcmp(name, "uuid", 4);
    if ((!is_bool && !is_uuid) || nargs != 1)
        return sfail(ps, at, MC_ERR_MALFORMED, "no operation %.*s with %zu argument%s", (int)nlen, name, nargs,
                     nargs == 1 ? "" : "s"), NULL;
    mc_nbt_tag *a = args[0];
    if (is_bool) {
        double x;
        if (mc_nbt_get_number(a, &x) != MC_OK)
            return sfail(ps, at, MC_ERR_MALFORMED, "bool() wants a number or boolean"), NULL;
        mc_nbt_tag *t = new_tag(ps, MC_NBT_BYTE);
        if (t)
            t->v.bits = x != 0;
        return t;
    }
    uint32_t w[4];
    if (a->type != MC_NBT_STRING || !parse_uuid(a->v.ptr, a->count, w))
        return sfail(ps, at, MC_ERR_MALFORMED, "uuid() wants a UUID string"), NULL;
    mc_nbt_tag *t = new_tag(ps, MC_NBT_INT_ARRAY);
    if (!t)
        return NULL;
    int32_t host[4];
    for (int k = 0; k < 4; k++)
        host[k] = (int32_t)w[k];
    t->v.ptr = mc__arena_dup(ps->doc, host, sizeof host);
    t->count = 4;
    if (!t->v.ptr)
        return sfail(ps, at, MC_ERR_NOMEM, "out of memory"), NULL;
    return t;
}

static bool same_ascii_ci(const char *a, const char *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if ((a[k] | 0x20) != b[k])
            return false;
    return true;
}

/* An unquoted word that does not start like a number: true/false (any
 * case) as bytes, a built-in operation when '(' follows, else a string. */
static mc_nbt_tag *word_value(sparser *ps, unsigned depth)
{
    size_t at = ps->i;
    while (ps->i < ps->n && word_char(ps->s[ps->i]))
        ps->i++;
    const char *w = ps->s + at;
    size_t n = ps->i - at;
    if (!n)
        return sfail(ps, at, MC_ERR_MALFORMED, "expected a value, found '%c'", ps->s[at]), NULL;
    size_t after = ps->i;
    skip_ws(ps);
    if (ps->i < ps->n && ps->s[ps->i] == '(')
        return builtin(ps, w, n, at, depth);
    ps->i = after;
    if ((n == 4 && same_ascii_ci(w, "true", 4)) || (n == 5 && same_ascii_ci(w, "false", 5))) {
        mc_nbt_tag *t = new_tag(ps, MC_NBT_BYTE);
        if (t)
            t->v.bits = n == 4;
        return t;
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

/* [B;..] [I;..] [L;..]: integers only (see read_number for their types). */
static mc_nbt_tag *parse_array(sparser *ps, char kind)
{
    mc_nbt_type type = kind == 'B' ? MC_NBT_BYTE_ARRAY : kind == 'I' ? MC_NBT_INT_ARRAY : MC_NBT_LONG_ARRAY;
    mc_nbt_type elem = kind == 'B' ? MC_NBT_BYTE : kind == 'I' ? MC_NBT_INT : MC_NBT_LONG;
    size_t es = kind == 'B' ? 1 : kind == 'I' ? 4 : 8;
    ps->i += 3; /* "[X;" */
    skip_ws(ps);
    mc_buf vals;
    mc_buf_init(&vals, NULL);
    while (ps->i < ps->n && ps->s[ps->i] != ']') {
        size_t at = ps->i;
        snum v;
        if (!can_start_number(ps->s[ps->i])) {
            sfail(ps, at, MC_ERR_MALFORMED, "can't insert '%c...' into %s (integers only)", ps->s[ps->i],
                  mc_nbt_type_name(type));
            goto fail;
        }
        if (!read_number(ps, elem, &v))
            goto fail;
        int64_t x = (int64_t)v.bits;
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

/* A compound that a heterogeneous list stores as itself: any compound but
 * one that looks like a wrapper (its only key is ""). */
static bool keeps_unwrapped(const mc_nbt_tag *v)
{
    return v->type == MC_NBT_COMPOUND && !(v->count == 1 && v->v.first->name_len == 0);
}

/* 1.21.5+: a list whose elements differ in type is stored as a list of
 * compounds, each other element wrapped as {"": element}, as the game
 * stores it (['a', {b:3}] becomes [{"":"a"},{b:3}]). */
static bool wrap_elements(sparser *ps, mc_nbt_tag *list)
{
    mc_nbt_tag **link = &list->v.first;
    for (mc_nbt_tag *v = list->v.first; v; v = v->next) {
        mc_nbt_tag *elem = v;
        if (!keeps_unwrapped(v)) {
            mc_nbt_tag *w = new_tag(ps, MC_NBT_COMPOUND);
            const uint8_t *empty = w ? mc__arena_dup(ps->doc, "", 0) : NULL;
            if (!w || !empty)
                return w ? sfail(ps, ps->i, MC_ERR_NOMEM, "out of memory") : false;
            w->aux |= AUX_ATTACHED;
            w->next = v->next;
            w->v.first = v;
            w->count = 1;
            v->next = NULL;
            v->name = empty;
            v->name_len = 0;
            elem = w;
        }
        *link = elem;
        link = &elem->next;
        v = elem;
    }
    list->aux = (uint8_t)((list->aux & ~AUX_VALUE) | MC_NBT_COMPOUND);
    return true;
}

static mc_nbt_tag *parse_list(sparser *ps, unsigned depth)
{
    mc_nbt_tag *t = new_tag(ps, MC_NBT_LIST);
    if (!t)
        return NULL;
    ps->i++; /* '[' */
    skip_ws(ps);
    mc_nbt_tag *last = NULL;
    bool mixed = false;
    while (ps->i < ps->n && ps->s[ps->i] != ']') {
        size_t at = ps->i;
        mc_nbt_tag *v = parse_value(ps, depth);
        if (!v)
            return NULL;
        if (t->count && v->type != mc__list_elem(t))
            mixed = true;
        if (t->count >= INT32_MAX)
            return sfail(ps, at, MC_ERR_LIMIT, "list too long"), NULL;
        if (!t->count)
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
    if (!expect(ps, ']'))
        return NULL;
    if (mixed && !wrap_elements(ps, t))
        return NULL;
    return t;
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
    if (can_start_number(c))
        return number_value(ps);
    return word_value(ps, depth);
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
