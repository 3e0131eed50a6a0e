/*
 * subchunk.c: reading and writing serialized Bedrock subchunks.
 *
 * A subchunk starts with a version byte:
 *   0, 2-7  legacy (before 1.2.13): 4096 block ids, 2048 bytes of meta
 *           nibbles, sometimes light after them (ignored). Read only.
 *   1       one block storage, no count (1.2.13 era; still accepted).
 *   8       storage count u8, then the storages (1.3+).
 *   9       storage count u8, y index i8, then the storages (1.17.30+ / 1.18).
 * Each storage starts with (bits << 1) | runtime_flag. Flag 1 means a
 * network palette of zigzag-varint runtime ids; flag 0 a palette of NBT
 * compounds -- little-endian with an i32 count on disk, network NBT with a
 * zigzag count in the "network persistent" form. A 0-bit storage has no
 * words and its single palette entry comes without a count (1.17.30+).
 *
 * State tags are stored as their exact bytes in one growable block owned by
 * the subchunk, so re-encoding is a copy and nothing needs an NBT tree.
 */
#include <stdlib.h>
#include <string.h>

#include "bedrock_private.h"

static const mc_allocator *sc_alloc(const mc_bedrock_subchunk *sc)
{
    return mc_alloc_or_default(sc->alloc);
}

void mc_bedrock_subchunk_init(mc_bedrock_subchunk *sc, const mc_allocator *alloc)
{
    memset(sc, 0, sizeof *sc);
    sc->version = 9;
    sc->kind = MC_BEDROCK_PALETTE_RUNTIME;
    sc->alloc = mc_alloc_or_default(alloc);
}

void mc_bedrock_subchunk_free(mc_bedrock_subchunk *sc)
{
    const mc_allocator *a = sc_alloc(sc);
    for (unsigned i = 0; i < MC_BEDROCK_MAX_STORAGES; i++)
        mc_bedrock_storage_free(&sc->storages[i], a);
    if (sc->tags)
        a->free(a->user, sc->tags, sc->tag_cap * sizeof *sc->tags);
    if (sc->tag_bytes)
        a->free(a->user, sc->tag_bytes, sc->tag_bytes_cap);
    mc_bedrock_subchunk_init(sc, a);
}

mc_status mc_bedrock_subchunk_add_tag(mc_bedrock_subchunk *sc, const void *nbt, size_t len,
                                      uint32_t *index)
{
    const mc_allocator *a = sc_alloc(sc);
    if (sc->tag_count == sc->tag_cap) {
        size_t ncap = sc->tag_cap ? sc->tag_cap * 2 : 8;
        void *p = a->realloc(a->user, sc->tags, sc->tag_cap * sizeof *sc->tags, ncap * sizeof *sc->tags);
        if (!p)
            return MC_ERR_NOMEM;
        sc->tags = p;
        sc->tag_cap = ncap;
    }
    if (len > sc->tag_bytes_cap - sc->tag_bytes_len) {
        size_t ncap = sc->tag_bytes_cap ? sc->tag_bytes_cap : 256;
        while (ncap - sc->tag_bytes_len < len)
            ncap *= 2;
        void *p = a->realloc(a->user, sc->tag_bytes, sc->tag_bytes_cap, ncap);
        if (!p)
            return MC_ERR_NOMEM;
        sc->tag_bytes = p;
        sc->tag_bytes_cap = ncap;
    }
    if (len)
        memcpy(sc->tag_bytes + sc->tag_bytes_len, nbt, len);
    sc->tags[sc->tag_count].offset = sc->tag_bytes_len;
    sc->tags[sc->tag_count].len = len;
    sc->tag_bytes_len += len;
    if (index)
        *index = (uint32_t)sc->tag_count;
    sc->tag_count++;
    return MC_OK;
}

const uint8_t *mc_bedrock_subchunk_tag(const mc_bedrock_subchunk *sc, uint32_t index, size_t *len)
{
    if (index >= sc->tag_count)
        return NULL;
    if (len)
        *len = sc->tags[index].len;
    return sc->tag_bytes + sc->tags[index].offset;
}

/* ------------------------------------------------------------ decoding */

static bool read_nbt_entry(mc_reader *r, mc_bedrock_subchunk *sc, bool net, uint32_t *index)
{
    size_t span;
    mc_error e;
    size_t at = r->pos;
    mc_status st = mc_bedrock_nbt_span(r->data + r->pos, r->len - r->pos, net, &span, &e);
    if (st != MC_OK) {
        size_t off = e.offset == SIZE_MAX ? 0 : e.offset;
        mc_reader_fail_at(r, at + off, st, "bedrock: palette entry: %s", e.message);
        return false;
    }
    r->pos += span;
    st = mc_bedrock_subchunk_add_tag(sc, r->data + at, span, index);
    if (st != MC_OK) {
        mc_reader_fail_at(r, at, st, "bedrock: out of memory");
        return false;
    }
    return true;
}

/* A disk palette entry is little-endian NBT with an empty root name,
 * 0a 00 00 <first tag>; network NBT writes 0a 00 <first tag>. Disk palettes
 * also have a 4-byte count in front (except for 0 bits). */
static bool looks_disk_palette(const mc_reader *r, unsigned bits)
{
    const uint8_t *p = r->data + r->pos;
    size_t n = r->len - r->pos;
    size_t k = bits ? 4 : 0;
    if (n < k + 3 || p[k] != 10 || p[k + 1] != 0 || p[k + 2] != 0)
        return false;
    if (!bits)
        return true;
    /* The disk form's i32 count must be a possible palette size: the
     * persistent form's one-byte varint count followed by its NBT can
     * otherwise look like a disk entry (found by fuzz_bedrock_packet). */
    uint32_t count = mc_load_u32le(p);
    uint32_t max = bits >= 12 ? 4096u : 1u << bits;
    return count >= 1 && count <= max;
}

static bool decode_storage(mc_reader *r, mc_bedrock_subchunk *sc, mc_bedrock_storage *s,
                           mc_bedrock_form form, bool first)
{
    size_t at = r->pos;
    unsigned header = mc_read_u8(r);
    if (!mc_reader_ok(r))
        return false;
    unsigned bits = header >> 1;
    if (!mc_bedrock_bits_valid(bits)) {
        mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "bedrock: storage width %u is not one of 0-6, 8, 16", bits);
        return false;
    }
    mc_bedrock_palette_kind kind;
    if (header & 1) {
        kind = MC_BEDROCK_PALETTE_RUNTIME;
    } else if (form == MC_BEDROCK_FORM_DISK) {
        kind = MC_BEDROCK_PALETTE_DISK;
    } else if (form == MC_BEDROCK_FORM_PERSISTENT) {
        kind = MC_BEDROCK_PALETTE_PERSISTENT;
    } else if (form == MC_BEDROCK_FORM_NETWORK) {
        mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "bedrock: storage without runtime flag in network form");
        return false;
    } else {
        kind = MC_BEDROCK_PALETTE_PERSISTENT;
        mc_reader tmp = *r;
        tmp.err = NULL;
        mc_read_skip(&tmp, mc_bedrock_word_count(bits) * 4, NULL);
        if (mc_reader_ok(&tmp) && looks_disk_palette(&tmp, bits))
            kind = MC_BEDROCK_PALETTE_DISK;
    }
    if (first) {
        sc->kind = kind;
    } else if (kind != sc->kind) {
        mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "bedrock: storages of one subchunk mix palette kinds");
        return false;
    }
    if (mc__bedrock_storage_alloc(s, bits, 0, sc->alloc) != MC_OK) {
        mc_reader_fail_at(r, at, MC_ERR_NOMEM, "bedrock: out of memory");
        return false;
    }
    if (!mc__bedrock_read_words(r, s))
        return false;
    size_t pal_at = r->pos;
    uint32_t count = 1;
    if (bits != 0) {
        int32_t n = kind == MC_BEDROCK_PALETTE_DISK ? mc_read_i32le(r) : mc_read_zigzag32(r);
        if (!mc_reader_ok(r))
            return false;
        if (n <= 0 || n > MC_BEDROCK_SUBCHUNK_VOLUME) {
            mc_reader_fail_at(r, pal_at, MC_ERR_MALFORMED, "bedrock: palette size %d out of 1..4096", (int)n);
            return false;
        }
        count = (uint32_t)n;
    }
    /* Each entry takes at least one byte: a count beyond the input is false. */
    if (count > mc_reader_remaining(r)) {
        mc_reader_fail_at(r, pal_at, MC_ERR_TRUNCATED, "bedrock: palette of %u entries exceeds remaining %zu bytes",
                          count, mc_reader_remaining(r));
        return false;
    }
    if (!mc__bedrock_palette_reserve(s, count, sc->alloc)) {
        mc_reader_fail_at(r, pal_at, MC_ERR_NOMEM, "bedrock: out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t v;
        if (kind == MC_BEDROCK_PALETTE_RUNTIME) {
            v = (uint32_t)mc_read_zigzag32(r);
            if (!mc_reader_ok(r))
                return false;
        } else if (!read_nbt_entry(r, sc, kind == MC_BEDROCK_PALETTE_PERSISTENT, &v)) {
            return false;
        }
        s->palette[i] = v;
    }
    s->palette_len = count;
    return mc__bedrock_check_indices(r, s, at);
}

static bool decode_legacy(mc_reader *r, mc_bedrock_subchunk *sc)
{
    const uint8_t *ids = mc_read_bytes(r, 4096, "legacy block ids");
    const uint8_t *meta = mc_read_bytes(r, 2048, "legacy meta");
    if (!ids || !meta)
        return false;
    uint32_t *vals = malloc(4096 * sizeof *vals);
    if (!vals) {
        mc_reader_fail(r, MC_ERR_NOMEM, "bedrock: out of memory");
        return false;
    }
    for (unsigned i = 0; i < 4096; i++)
        vals[i] = (uint32_t)ids[i] << 4 | ((meta[i >> 1] >> ((i & 1) * 4)) & 15);
    mc_status st = mc_bedrock_storage_from_values(&sc->storages[0], vals, sc->alloc);
    free(vals);
    if (st != MC_OK) {
        mc_reader_fail(r, st, "bedrock: out of memory");
        return false;
    }
    sc->storage_count = 1;
    sc->kind = MC_BEDROCK_PALETTE_LEGACY;
    /* Light nibbles (2 x 2048) may follow in old worlds: skip them. */
    if (mc_reader_remaining(r) >= 4096)
        r->pos += 4096;
    return true;
}

mc_status mc_bedrock_subchunk_decode(mc_bedrock_subchunk *sc, const uint8_t *data, size_t len,
                                     mc_bedrock_form form, size_t *consumed, mc_error *err)
{
    const mc_allocator *a = sc->alloc ? sc->alloc : mc_default_allocator();
    mc_bedrock_subchunk_free(sc);
    sc->alloc = a;
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock subchunk", err);
    unsigned version = mc_read_u8(&r);
    if (!mc_reader_ok(&r))
        return r.status;
    sc->version = (uint8_t)version;
    unsigned count = 1;
    switch (version) {
    case 0: case 2: case 3: case 4: case 5: case 6: case 7:
        decode_legacy(&r, sc);
        goto finish;
    case 1:
        break;
    case 8:
        count = mc_read_u8(&r);
        break;
    case 9:
        count = mc_read_u8(&r);
        sc->y_index = mc_read_i8(&r);
        break;
    default:
        mc_reader_fail_at(&r, 0, MC_ERR_UNSUPPORTED, "bedrock: unknown subchunk version %u", version);
        goto finish;
    }
    if (mc_reader_ok(&r) && count > MC_BEDROCK_MAX_STORAGES)
        mc_reader_fail_at(&r, 1, MC_ERR_LIMIT, "bedrock: %u storages (at most %d)", count,
                          MC_BEDROCK_MAX_STORAGES);
    for (unsigned i = 0; i < count && mc_reader_ok(&r); i++) {
        if (decode_storage(&r, sc, &sc->storages[i], form, i == 0))
            sc->storage_count = (uint8_t)(i + 1);
    }
finish:
    if (!mc_reader_ok(&r)) {
        mc_status st = r.status;
        mc_bedrock_subchunk_free(sc);
        return st;
    }
    if (consumed)
        *consumed = r.pos;
    return MC_OK;
}

/* ------------------------------------------------------------ encoding */

static mc_status encode_storage(const mc_bedrock_subchunk *sc, const mc_bedrock_storage *s,
                                unsigned version, mc_bedrock_form form, mc_buf *out, mc_error *err)
{
    if (!mc_bedrock_bits_valid(s->bits))
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: storage width %u", s->bits);
    if (s->palette_len == 0 || (s->bits == 0 && s->palette_len != 1) ||
        ((uint64_t)1 << s->bits) < s->palette_len)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "bedrock: palette of %u entries does not fit %u bits", s->palette_len, s->bits);
    if (s->bits == 0 && version < 9) {
        /* Before 1.17.30 there are no 0-bit storages: one bit, all zero. */
        mc_buf_put_u8(out, (uint8_t)(1 << 1 | (form == MC_BEDROCK_FORM_NETWORK)));
        uint8_t *w = mc_buf_extend(out, mc_bedrock_word_count(1) * 4);
        if (w)
            memset(w, 0, mc_bedrock_word_count(1) * 4);
        if (form == MC_BEDROCK_FORM_DISK)
            mc_buf_put_u32le(out, 1);
        else
            mc_buf_put_zigzag32(out, 1);
    } else {
        mc_buf_put_u8(out, (uint8_t)(s->bits << 1 | (form == MC_BEDROCK_FORM_NETWORK)));
        mc__bedrock_put_words(out, s);
    }
    if (form == MC_BEDROCK_FORM_NETWORK) {
        if (s->bits)
            mc_buf_put_zigzag32(out, (int32_t)s->palette_len);
        for (uint32_t i = 0; i < s->palette_len; i++)
            mc_buf_put_zigzag32(out, (int32_t)s->palette[i]);
        return MC_OK;
    }
    if (s->bits) {
        if (form == MC_BEDROCK_FORM_DISK)
            mc_buf_put_u32le(out, s->palette_len);
        else
            mc_buf_put_zigzag32(out, (int32_t)s->palette_len);
    }
    for (uint32_t i = 0; i < s->palette_len; i++) {
        size_t n;
        const uint8_t *p = mc_bedrock_subchunk_tag(sc, s->palette[i], &n);
        if (!p)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "bedrock: palette value %u names no state tag", s->palette[i]);
        mc_buf_put(out, p, n);
    }
    return MC_OK;
}

mc_status mc_bedrock_subchunk_encode(const mc_bedrock_subchunk *sc, unsigned version,
                                     mc_bedrock_form form, mc_buf *out, mc_error *err)
{
    mc_bedrock_palette_kind need = form == MC_BEDROCK_FORM_NETWORK ? MC_BEDROCK_PALETTE_RUNTIME
                                 : form == MC_BEDROCK_FORM_DISK    ? MC_BEDROCK_PALETTE_DISK
                                                                   : MC_BEDROCK_PALETTE_PERSISTENT;
    if (form == MC_BEDROCK_FORM_AUTO)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: encoding needs a form");
    if (sc->storage_count && sc->kind != need)
        return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                            "bedrock: subchunk palette kind does not match the form");
    size_t start = out->len;
    unsigned n = sc->storage_count;
    switch (version) {
    case 1:
        if (n < 1)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX, "bedrock: v1 needs a storage");
        mc_buf_put_u8(out, 1);
        n = 1;
        break;
    case 8:
        mc_buf_put_u8(out, 8);
        mc_buf_put_u8(out, (uint8_t)n);
        break;
    case 9:
        mc_buf_put_u8(out, 9);
        mc_buf_put_u8(out, (uint8_t)n);
        mc_buf_put_u8(out, (uint8_t)sc->y_index);
        break;
    default:
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "bedrock: cannot write subchunk version %u", version);
    }
    for (unsigned i = 0; i < n; i++) {
        mc_status st = encode_storage(sc, &sc->storages[i], version, form, out, err);
        if (st != MC_OK) {
            out->len = start;
            return st;
        }
    }
    if (!mc_buf_ok(out))
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
    return MC_OK;
}

static size_t zz_size(int32_t v)
{
    return mc_uvarint_size(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

size_t mc__bedrock_subchunk_net_size(const mc_bedrock_subchunk *sc)
{
    size_t n = 3;
    for (unsigned i = 0; i < sc->storage_count; i++) {
        const mc_bedrock_storage *s = &sc->storages[i];
        n += 1 + 4 * mc_bedrock_word_count(s->bits);
        if (s->bits)
            n += zz_size((int32_t)s->palette_len);
        for (uint32_t k = 0; k < s->palette_len; k++)
            n += zz_size((int32_t)s->palette[k]);
    }
    return n;
}
