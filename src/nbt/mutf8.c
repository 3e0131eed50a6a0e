/*
 * mutf8.c: Java's "modified UTF-8" <-> UTF-8.
 *
 * Java writes strings (DataOutput.writeUTF) as UTF-16 code units, each
 * encoded like UTF-8 in 1-3 bytes, with two twists: U+0000 is C0 80 (so no
 * zero byte appears), and a character above U+FFFF is its surrogate pair,
 * two 3-byte sequences (6 bytes, where UTF-8 uses 4). The library's strings
 * are real UTF-8, so the parser converts and the writer converts back.
 *
 * Almost every string in real files is ASCII and needs nothing: the check
 * tells the parser whether it can keep pointing at the input. We are strict
 * (we refuse raw NUL bytes, overlong forms other than C0 80, and 4-byte
 * sequences) so that what we accept is exactly what we write back, which
 * keeps round trips byte-exact. Lone surrogates, which Java allows, stay as
 * their 3-byte form in our UTF-8 (the "WTF-8" convention) for the same reason.
 */
#include "nbt/nbt_internal.h"

int mc__mutf8_check(const uint8_t *s, size_t n, size_t *bad)
{
    int convert = 0;
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c >= 0x01 && c < 0x80) {
            i++;
            continue;
        }
        if (c == 0)
            goto invalid;
        if ((c & 0xE0) == 0xC0) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                goto invalid;
            if (c < 0xC2) {
                /* Only C0 80 (NUL) may be overlong. */
                if (!(c == 0xC0 && s[i + 1] == 0x80))
                    goto invalid;
                convert = 1;
            }
            i += 2;
            continue;
        }
        if ((c & 0xF0) == 0xE0) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80)
                goto invalid;
            if (c == 0xE0 && s[i + 1] < 0xA0)
                goto invalid; /* overlong */
            if (c == 0xED && s[i + 1] >= 0xA0) {
                /* A surrogate: a high one followed by a low one is a pair
                 * (becomes one 4-byte UTF-8 sequence); lone ones stay. */
                if (s[i + 1] < 0xB0 && i + 5 < n && s[i + 3] == 0xED && s[i + 4] >= 0xB0 &&
                    s[i + 4] <= 0xBF && (s[i + 5] & 0xC0) == 0x80) {
                    convert = 1;
                    i += 6;
                    continue;
                }
            }
            i += 3;
            continue;
        }
        goto invalid;
    }
    return convert;
invalid:
    if (bad)
        *bad = i;
    return -1;
}

size_t mc__mutf8_to_utf8(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == 0xC0 && i + 1 < n && s[i + 1] == 0x80) {
            out[o++] = 0;
            i += 2;
        } else if (c == 0xED && i + 5 < n && s[i + 1] >= 0xA0 && s[i + 1] < 0xB0 && s[i + 3] == 0xED &&
                   s[i + 4] >= 0xB0 && s[i + 4] <= 0xBF) {
            uint32_t hi = 0xD000u | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            uint32_t lo = 0xD000u | ((uint32_t)(s[i + 4] & 0x3F) << 6) | (s[i + 5] & 0x3F);
            uint32_t cp = 0x10000u + ((hi - 0xD800u) << 10) + (lo - 0xDC00u);
            o += mc__utf8_put(out + o, cp);
            i += 6;
        } else {
            out[o++] = c;
            i++;
        }
    }
    return o;
}

bool mc__utf8_is_mutf8(const uint8_t *s, size_t n)
{
    /* ASCII without NUL, eight bytes at a time; anything else gets the
     * exact check. */
    const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = mc_load_u64le(s + i);
        if (((w - ones) | w) & tops)
            break;
    }
    for (; i < n; i++)
        if ((uint8_t)(s[i] - 1) >= 0x7F)
            break;
    if (i == n)
        return true;
    /* Non-ASCII: it is its own modified UTF-8 exactly when it is valid
     * modified UTF-8 needing no conversion. */
    return mc__mutf8_check(s, n, NULL) == 0;
}

int mc__utf8_check_wtf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || i + len > n)
            return -1;
        uint32_t v = c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return -1;
            v = (v << 6) | (s[i + k] & 0x3F);
        }
        if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)))
            return -1;
        /* A high surrogate directly followed by a low one must have been
         * written as one 4-byte sequence. */
        if (len == 3 && v >= 0xD800 && v < 0xDC00 && i + 5 < n && s[i + 3] == 0xED && s[i + 4] >= 0xB0 &&
            s[i + 4] <= 0xBF)
            return -1;
        i += len;
    }
    return 0;
}

size_t mc__utf8_to_mutf8_len(const uint8_t *s, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == 0)
            len += 2;
        else if (s[i] >= 0xF0 && s[i] <= 0xF4 && i + 3 < n) {
            len += 6;
            i += 3;
        } else
            len++;
    }
    return len;
}

size_t mc__utf8_to_mutf8(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == 0) {
            out[o++] = 0xC0;
            out[o++] = 0x80;
        } else if (c >= 0xF0 && c <= 0xF4 && i + 3 < n) {
            uint32_t cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
                          ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
            cp -= 0x10000u;
            o += mc__utf8_put(out + o, 0xD800u + (cp >> 10));
            o += mc__utf8_put(out + o, 0xDC00u + (cp & 0x3FF));
            i += 3;
        } else {
            out[o++] = c;
        }
    }
    return o;
}

size_t mc__utf8_put(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

size_t mc__utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (!len || len > n)
        goto bad;
    uint32_t v = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            goto bad;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF)))
        goto bad;
    *cp = v;
    return len;
bad:
    *cp = 0xFFFD;
    return 1;
}
