/*
 * storage.c: the Bedrock block storage -- a palette of uint32 values and 4096
 * indices packed into 32-bit words.
 *
 * Bedrock packs floor(32/bits) indices into each word, lowest bits first, and
 * never lets an index span two words, so widths 3, 5 and 6 leave 2, 2 and 2
 * high bits of every word unused (all versions since the paletted format, 1.2.13).
 * The words are kept in host order; on little-endian machines they are the
 * serialized bytes as they are, which makes reading and writing a memcpy.
 * Only the widths the game knows are allowed: 0 (one value, no words), 1, 2,
 * 3, 4, 5, 6, 8 and 16.
 */
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"

static const uint8_t valid_bits[] = {0, 1, 2, 3, 4, 5, 6, 8, 16};

bool mc_bedrock_bits_valid(unsigned bits)
{
    for (size_t i = 0; i < sizeof valid_bits; i++)
        if (valid_bits[i] == bits)
            return true;
    return false;
}

size_t mc_bedrock_word_count(unsigned bits)
{
    if (bits == 0 || bits > 32)
        return 0;
    unsigned per = 32 / bits;
    return (MC_BEDROCK_SUBCHUNK_VOLUME + per - 1) / per;
}

unsigned mc_bedrock_bits_for(uint32_t palette_len)
{
    if (palette_len <= 1)
        return 0;
    for (size_t i = 1; i < sizeof valid_bits; i++)
        if (((uint64_t)1 << valid_bits[i]) >= palette_len)
            return valid_bits[i];
    return 32; /* more than 65536 values: not representable */
}

static void *mc__alloc(const mc_allocator *a, size_t n)
{
    a = mc_alloc_or_default(a);
    return a->alloc(a->user, n);
}

static void mc__free(const mc_allocator *a, void *p, size_t n)
{
    if (!p)
        return;
    a = mc_alloc_or_default(a);
    a->free(a->user, p, n);
}

bool mc__bedrock_palette_reserve(mc_bedrock_storage *s, uint32_t cap, const mc_allocator *alloc)
{
    if (cap <= s->palette_cap)
        return true;
    uint32_t ncap = s->palette_cap ? s->palette_cap : 4;
    while (ncap < cap)
        ncap *= 2;
    const mc_allocator *a = mc_alloc_or_default(alloc);
    uint32_t *p = a->realloc(a->user, s->palette, (size_t)s->palette_cap * 4, (size_t)ncap * 4);
    if (!p)
        return false;
    s->palette = p;
    s->palette_cap = ncap;
    return true;
}

mc_status mc__bedrock_storage_alloc(mc_bedrock_storage *s, unsigned bits, uint32_t cap,
                                    const mc_allocator *alloc)
{
    memset(s, 0, sizeof *s);
    s->bits = (uint8_t)bits;
    size_t nw = mc_bedrock_word_count(bits);
    if (nw) {
        s->words = mc__alloc(alloc, nw * 4);
        if (!s->words)
            return MC_ERR_NOMEM;
        memset(s->words, 0, nw * 4);
    }
    if (cap && !mc__bedrock_palette_reserve(s, cap, alloc)) {
        mc__free(alloc, s->words, nw * 4);
        s->words = NULL;
        return MC_ERR_NOMEM;
    }
    return MC_OK;
}

void mc_bedrock_storage_free(mc_bedrock_storage *s, const mc_allocator *alloc)
{
    mc__free(alloc, s->words, mc_bedrock_word_count(s->bits) * 4);
    mc__free(alloc, s->palette, (size_t)s->palette_cap * 4);
    memset(s, 0, sizeof *s);
}

mc_status mc_bedrock_storage_init_single(mc_bedrock_storage *s, uint32_t value,
                                         const mc_allocator *alloc)
{
    mc_status st = mc__bedrock_storage_alloc(s, 0, 1, alloc);
    if (st != MC_OK)
        return st;
    s->palette[0] = value;
    s->palette_len = 1;
    return MC_OK;
}

mc_status mc_bedrock_storage_copy(mc_bedrock_storage *dst, const mc_bedrock_storage *src,
                                  const mc_allocator *alloc)
{
    mc_status st = mc__bedrock_storage_alloc(dst, src->bits, src->palette_len, alloc);
    if (st != MC_OK)
        return st;
    size_t nw = mc_bedrock_word_count(src->bits);
    if (nw && src->words)
        memcpy(dst->words, src->words, nw * 4);
    if (src->palette_len)
        memcpy(dst->palette, src->palette, (size_t)src->palette_len * 4);
    dst->palette_len = src->palette_len;
    return MC_OK;
}

uint32_t mc_bedrock_storage_get_index(const mc_bedrock_storage *s, unsigned index)
{
    if (s->bits == 0 || !s->words)
        return 0;
    unsigned per = 32u / s->bits;
    uint32_t w = s->words[index / per];
    return (w >> ((index % per) * s->bits)) & ((1u << s->bits) - 1u);
}

uint32_t mc_bedrock_storage_get(const mc_bedrock_storage *s, unsigned index)
{
    if (!s->palette_len)
        return 0;
    uint32_t i = mc_bedrock_storage_get_index(s, index);
    return i < s->palette_len ? s->palette[i] : s->palette[0];
}

static void set_index(mc_bedrock_storage *s, unsigned index, uint32_t v)
{
    unsigned per = 32u / s->bits;
    unsigned shift = (index % per) * s->bits;
    uint32_t mask = ((1u << s->bits) - 1u) << shift;
    uint32_t *w = &s->words[index / per];
    *w = (*w & ~mask) | ((v << shift) & mask);
}

/* Re-packs `s` at a new width (the indices stay). */
static mc_status repack(mc_bedrock_storage *s, unsigned bits, const mc_allocator *alloc)
{
    mc_bedrock_storage n;
    mc_status st = mc__bedrock_storage_alloc(&n, bits, 0, alloc);
    if (st != MC_OK)
        return st;
    if (bits)
        for (unsigned i = 0; i < MC_BEDROCK_SUBCHUNK_VOLUME; i++)
            set_index(&n, i, mc_bedrock_storage_get_index(s, i));
    mc__free(alloc, s->words, mc_bedrock_word_count(s->bits) * 4);
    s->words = n.words;
    s->bits = (uint8_t)bits;
    return MC_OK;
}

mc_status mc_bedrock_storage_set(mc_bedrock_storage *s, unsigned index, uint32_t value,
                                 const mc_allocator *alloc)
{
    if (index >= MC_BEDROCK_SUBCHUNK_VOLUME)
        return MC_ERR_RANGE;
    uint32_t pi = 0;
    while (pi < s->palette_len && s->palette[pi] != value)
        pi++;
    if (pi == s->palette_len) {
        if (s->palette_len >= 65536)
            return MC_ERR_LIMIT;
        if (!mc__bedrock_palette_reserve(s, s->palette_len + 1, alloc))
            return MC_ERR_NOMEM;
        s->palette[s->palette_len++] = value;
        unsigned need = mc_bedrock_bits_for(s->palette_len);
        if (need > s->bits) {
            mc_status st = repack(s, need, alloc);
            if (st != MC_OK) {
                s->palette_len--;
                return st;
            }
        }
    }
    if (s->bits)
        set_index(s, index, pi);
    return MC_OK;
}

mc_status mc_bedrock_storage_from_values(mc_bedrock_storage *s, const uint32_t *values,
                                         const mc_allocator *alloc)
{
    /* Palette in order of first appearance; a small open-addressed map keeps
     * this linear. */
    uint16_t *idx = mc__alloc(alloc, MC_BEDROCK_SUBCHUNK_VOLUME * 2);
    uint32_t *keys = mc__alloc(alloc, 8192 * 4);
    uint16_t *slot = mc__alloc(alloc, 8192 * 2);
    uint32_t pal[MC_BEDROCK_SUBCHUNK_VOLUME];
    mc_status st = MC_OK;
    if (!idx || !keys || !slot) {
        st = MC_ERR_NOMEM;
        goto done;
    }
    memset(slot, 0xff, 8192 * 2);
    uint32_t n = 0;
    uint32_t last = values[0] + 1, last_i = 0;
    for (unsigned i = 0; i < MC_BEDROCK_SUBCHUNK_VOLUME; i++) {
        uint32_t v = values[i];
        if (v == last) {
            idx[i] = (uint16_t)last_i;
            continue;
        }
        uint32_t h = (v * 2654435761u) >> 19;
        for (;;) {
            if (slot[h] == 0xffff) {
                slot[h] = (uint16_t)n;
                keys[h] = v;
                pal[n] = v;
                last_i = n++;
                break;
            }
            if (keys[h] == v) {
                last_i = slot[h];
                break;
            }
            h = (h + 1) & 8191;
        }
        last = v;
        idx[i] = (uint16_t)last_i;
    }
    unsigned bits = mc_bedrock_bits_for(n);
    st = mc__bedrock_storage_alloc(s, bits, n, alloc);
    if (st != MC_OK)
        goto done;
    memcpy(s->palette, pal, (size_t)n * 4);
    s->palette_len = n;
    if (bits) {
        unsigned per = 32 / bits;
        size_t nw = mc_bedrock_word_count(bits);
        for (size_t w = 0; w < nw; w++) {
            uint32_t word = 0;
            unsigned base = (unsigned)w * per;
            for (unsigned k = 0; k < per && base + k < MC_BEDROCK_SUBCHUNK_VOLUME; k++)
                word |= (uint32_t)idx[base + k] << (k * bits);
            s->words[w] = word;
        }
    }
done:
    mc__free(alloc, idx, MC_BEDROCK_SUBCHUNK_VOLUME * 2);
    mc__free(alloc, keys, 8192 * 4);
    mc__free(alloc, slot, 8192 * 2);
    return st;
}

void mc_bedrock_storage_values(const mc_bedrock_storage *s, uint32_t *out)
{
    if (!s->palette_len) {
        memset(out, 0, MC_BEDROCK_SUBCHUNK_VOLUME * 4);
        return;
    }
    if (s->bits == 0) {
        for (unsigned i = 0; i < MC_BEDROCK_SUBCHUNK_VOLUME; i++)
            out[i] = s->palette[0];
        return;
    }
    unsigned bits = s->bits, per = 32 / bits;
    uint32_t mask = (1u << bits) - 1u;
    size_t nw = mc_bedrock_word_count(bits);
    unsigned i = 0;
    for (size_t w = 0; w < nw; w++) {
        uint32_t word = s->words[w];
        for (unsigned k = 0; k < per && i < MC_BEDROCK_SUBCHUNK_VOLUME; k++, i++) {
            uint32_t pi = (word >> (k * bits)) & mask;
            out[i] = pi < s->palette_len ? s->palette[pi] : s->palette[0];
        }
    }
}

mc_status mc_bedrock_storage_compact(mc_bedrock_storage *s, const mc_allocator *alloc)
{
    if (!s->palette_len)
        return MC_OK;
    uint32_t *vals = mc__alloc(alloc, MC_BEDROCK_SUBCHUNK_VOLUME * 4);
    if (!vals)
        return MC_ERR_NOMEM;
    mc_bedrock_storage_values(s, vals);
    mc_bedrock_storage n;
    mc_status st = mc_bedrock_storage_from_values(&n, vals, alloc);
    mc__free(alloc, vals, MC_BEDROCK_SUBCHUNK_VOLUME * 4);
    if (st != MC_OK)
        return st;
    mc_bedrock_storage_free(s, alloc);
    *s = n;
    return MC_OK;
}

bool mc_bedrock_storage_is_uniform(const mc_bedrock_storage *s, uint32_t value)
{
    if (!s->palette_len)
        return false;
    /* Fast path: no palette entry other than `value` exists. */
    bool only = true;
    for (uint32_t i = 0; i < s->palette_len; i++)
        if (s->palette[i] != value)
            only = false;
    if (only)
        return true;
    if (s->bits == 0)
        return s->palette[0] == value;
    for (unsigned i = 0; i < MC_BEDROCK_SUBCHUNK_VOLUME; i++)
        if (mc_bedrock_storage_get(s, i) != value)
            return false;
    return true;
}

/* ------------------------------------------------- serialized words */

bool mc__bedrock_read_words(mc_reader *r, mc_bedrock_storage *s)
{
    size_t nw = mc_bedrock_word_count(s->bits);
    if (!nw)
        return true;
    const uint8_t *p = mc_read_bytes(r, nw * 4, "storage words");
    if (!p)
        return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(s->words, p, nw * 4);
#else
    for (size_t i = 0; i < nw; i++)
        s->words[i] = mc_load_u32le(p + 4 * i);
#endif
    return true;
}

void mc__bedrock_put_words(mc_buf *out, const mc_bedrock_storage *s)
{
    size_t nw = mc_bedrock_word_count(s->bits);
    if (!nw)
        return;
    uint8_t *p = mc_buf_extend(out, nw * 4);
    if (!p)
        return;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, s->words, nw * 4);
#else
    for (size_t i = 0; i < nw; i++)
        mc_store_u32le(p + 4 * i, s->words[i]);
#endif
}

bool mc__bedrock_check_indices(mc_reader *r, const mc_bedrock_storage *s, size_t at)
{
    if (s->bits == 0)
        return true;
    /* An index can only reach palette_len when 2^bits exceeds it. */
    if (((uint64_t)1 << s->bits) <= s->palette_len)
        return true;
    unsigned bits = s->bits, per = 32 / bits;
    uint32_t mask = (1u << bits) - 1u, max = 0;
    size_t nw = mc_bedrock_word_count(bits);
    unsigned i = 0;
    for (size_t w = 0; w < nw; w++) {
        uint32_t word = s->words[w];
        for (unsigned k = 0; k < per && i < MC_BEDROCK_SUBCHUNK_VOLUME; k++, i++) {
            uint32_t v = (word >> (k * bits)) & mask;
            max = v > max ? v : max;
        }
    }
    if (max >= s->palette_len) {
        mc_reader_fail_at(r, at, MC_ERR_MALFORMED,
                          "bedrock: palette index %u beyond palette of %u", max, s->palette_len);
        return false;
    }
    return true;
}

void mc__bedrock_unpack_indices(const mc_bedrock_storage *s, uint16_t *out)
{
    if (s->bits == 0 || !s->words) {
        memset(out, 0, MC_BEDROCK_SUBCHUNK_VOLUME * sizeof *out);
        return;
    }
    unsigned bits = s->bits, per = 32 / bits;
    uint32_t mask = (1u << bits) - 1u;
    size_t nw = mc_bedrock_word_count(bits);
    unsigned i = 0;
    for (size_t w = 0; w < nw; w++) {
        uint32_t word = s->words[w];
        for (unsigned k = 0; k < per && i < MC_BEDROCK_SUBCHUNK_VOLUME; k++, i++)
            out[i] = (uint16_t)((word >> (k * bits)) & mask);
    }
}
