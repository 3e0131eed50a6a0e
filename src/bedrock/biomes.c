/*
 * biomes.c: Bedrock 3D biomes, on disk (LevelDB Data3D, and the old Data2D)
 * and in LevelChunk payloads.
 *
 * Since 1.18 (and 1.17 worlds with Caves & Cliffs) a column's biomes are one
 * 4096-entry storage per subchunk, packed exactly like block storages, with
 * a palette of numeric biome ids. A storage whose header is 0xFF (bits 127)
 * repeats the previous one. On disk the record starts with the column's
 * 256 i16 heightmap and the palette is i32le (vanilla writes the header with
 * the low bit set and 0xFF as the repeat marker, as the 1.17.20-1.18 corpus
 * records show); on the network the palette is zigzag varints.
 */
#include <string.h>

#include "bedrock_private.h"

void mc_bedrock_biomes_free(mc_bedrock_biomes *b, const mc_allocator *alloc)
{
    for (unsigned i = 0; i < MC_BEDROCK_MAX_BIOME_STORAGES; i++)
        mc_bedrock_storage_free(&b->storages[i], alloc);
    memset(b, 0, sizeof *b);
}

/* Reads one biome storage (header already read, not a repeat). */
static bool read_biome_storage(mc_reader *r, mc_bedrock_storage *s, unsigned bits, bool net,
                               size_t at, const mc_allocator *alloc)
{
    if (!mc_bedrock_bits_valid(bits)) {
        mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "bedrock: biome storage width %u", bits);
        return false;
    }
    if (mc__bedrock_storage_alloc(s, bits, 0, alloc) != MC_OK) {
        mc_reader_fail_at(r, at, MC_ERR_NOMEM, "bedrock: out of memory");
        return false;
    }
    if (!mc__bedrock_read_words(r, s))
        return false;
    size_t pal_at = r->pos;
    uint32_t count = 1;
    if (bits) {
        int32_t n = net ? mc_read_zigzag32(r) : mc_read_i32le(r);
        if (!mc_reader_ok(r))
            return false;
        if (n <= 0 || n > MC_BEDROCK_SUBCHUNK_VOLUME) {
            mc_reader_fail_at(r, pal_at, MC_ERR_MALFORMED, "bedrock: biome palette size %d", (int)n);
            return false;
        }
        count = (uint32_t)n;
    }
    if (count > mc_reader_remaining(r)) {
        mc_reader_fail_at(r, pal_at, MC_ERR_TRUNCATED, "bedrock: biome palette of %u entries exceeds input", count);
        return false;
    }
    if (!mc__bedrock_palette_reserve(s, count, alloc)) {
        mc_reader_fail_at(r, pal_at, MC_ERR_NOMEM, "bedrock: out of memory");
        return false;
    }
    for (uint32_t i = 0; i < count; i++)
        s->palette[i] = net ? (uint32_t)mc_read_zigzag32(r) : mc_read_u32le(r);
    if (!mc_reader_ok(r))
        return false;
    s->palette_len = count;
    return mc__bedrock_check_indices(r, s, at);
}

static bool read_storages(mc_reader *r, mc_bedrock_biomes *b, bool net, uint32_t count,
                          const mc_allocator *alloc)
{
    for (;;) {
        if (count ? b->count >= count : mc_reader_remaining(r) == 0)
            break;
        if (!count && net && (r->data[r->pos] & 1) == 0)
            break; /* the border-block count byte: the biome list is over */
        if (b->count >= MC_BEDROCK_MAX_BIOME_STORAGES) {
            mc_reader_fail(r, MC_ERR_LIMIT, "bedrock: more than %d biome storages", MC_BEDROCK_MAX_BIOME_STORAGES);
            return false;
        }
        size_t at = r->pos;
        unsigned header = mc_read_u8(r);
        if (!mc_reader_ok(r))
            return false;
        uint32_t i = b->count;
        if ((header >> 1) == 127) {
            if (i == 0) {
                mc_reader_fail_at(r, at, MC_ERR_MALFORMED, "bedrock: first biome storage repeats nothing");
                return false;
            }
            if (mc_bedrock_storage_copy(&b->storages[i], &b->storages[i - 1], alloc) != MC_OK) {
                mc_reader_fail_at(r, at, MC_ERR_NOMEM, "bedrock: out of memory");
                return false;
            }
            b->copy_previous[i] = true;
        } else if (!read_biome_storage(r, &b->storages[i], header >> 1, net, at, alloc)) {
            mc_bedrock_storage_free(&b->storages[i], alloc);
            return false;
        }
        b->count++;
    }
    return true;
}

mc_status mc_bedrock_data3d_decode(mc_bedrock_biomes *b, const uint8_t *data, size_t len,
                                   const mc_allocator *alloc, mc_error *err)
{
    memset(b, 0, sizeof *b);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock data3d", err);
    const uint8_t *hm = mc_read_bytes(&r, 512, "heightmap");
    if (hm)
        for (int i = 0; i < 256; i++)
            b->heightmap[i] = (int16_t)mc_load_u16le(hm + 2 * i);
    if (mc_reader_ok(&r))
        read_storages(&r, b, false, 0, alloc);
    if (!mc_reader_ok(&r)) {
        mc_bedrock_biomes_free(b, alloc);
        return r.status;
    }
    return MC_OK;
}

mc_status mc_bedrock_data2d_decode(mc_bedrock_biomes *b, const uint8_t *data, size_t len,
                                   mc_error *err)
{
    memset(b, 0, sizeof *b);
    mc_reader r;
    mc_reader_init(&r, data, len, "bedrock data2d", err);
    const uint8_t *hm = mc_read_bytes(&r, 512, "heightmap");
    const uint8_t *bio = mc_read_bytes(&r, 256, "biomes");
    if (!hm || !bio)
        return r.status;
    for (int i = 0; i < 256; i++)
        b->heightmap[i] = (int16_t)mc_load_u16le(hm + 2 * i);
    memcpy(b->biomes2d, bio, 256);
    b->has_2d = true;
    if (mc_reader_remaining(&r))
        return mc_reader_fail(&r, MC_ERR_MALFORMED, "bedrock: %zu bytes after Data2D", mc_reader_remaining(&r));
    return MC_OK;
}

static mc_status write_storages(const mc_bedrock_biomes *b, bool net, mc_buf *out, mc_error *err)
{
    for (uint32_t i = 0; i < b->count; i++) {
        if (b->copy_previous[i] && i > 0) {
            mc_buf_put_u8(out, 0xFF);
            continue;
        }
        const mc_bedrock_storage *s = &b->storages[i];
        if (!mc_bedrock_bits_valid(s->bits) || s->palette_len == 0 ||
            ((uint64_t)1 << s->bits) < s->palette_len)
            return mc_error_set(err, MC_ERR_INVALID_ARG, SIZE_MAX,
                                "bedrock: biome storage %u has %u entries for %u bits", i, s->palette_len, s->bits);
        mc_buf_put_u8(out, (uint8_t)(s->bits << 1 | 1));
        mc__bedrock_put_words(out, s);
        if (s->bits) {
            if (net)
                mc_buf_put_zigzag32(out, (int32_t)s->palette_len);
            else
                mc_buf_put_u32le(out, s->palette_len);
        }
        for (uint32_t k = 0; k < s->palette_len; k++) {
            if (net)
                mc_buf_put_zigzag32(out, (int32_t)s->palette[k]);
            else
                mc_buf_put_u32le(out, s->palette[k]);
        }
    }
    return mc_buf_ok(out) ? MC_OK : mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "bedrock: out of memory");
}

mc_status mc_bedrock_data3d_encode(const mc_bedrock_biomes *b, mc_buf *out, mc_error *err)
{
    size_t start = out->len;
    for (int i = 0; i < 256; i++)
        mc_buf_put_u16le(out, (uint16_t)b->heightmap[i]);
    mc_status st = write_storages(b, false, out, err);
    if (st != MC_OK)
        out->len = start;
    return st;
}

mc_status mc_bedrock_biomes_net_decode(mc_bedrock_biomes *b, mc_reader *r, uint32_t count,
                                       const mc_allocator *alloc)
{
    memset(b, 0, sizeof *b);
    if (count > MC_BEDROCK_MAX_BIOME_STORAGES)
        return mc_reader_fail(r, MC_ERR_LIMIT, "bedrock: %u biome storages", count);
    if (!read_storages(r, b, true, count, alloc)) {
        mc_bedrock_biomes_free(b, alloc);
        return r->status;
    }
    return MC_OK;
}

mc_status mc_bedrock_biomes_net_encode(const mc_bedrock_biomes *b, mc_buf *out, mc_error *err)
{
    size_t start = out->len;
    mc_status st = write_storages(b, true, out, err);
    if (st != MC_OK)
        out->len = start;
    return st;
}
