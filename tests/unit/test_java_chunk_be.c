/*
 * test_java_chunk_be.c: the block entities of a Chunk Data packet for
 * another protocol are the column's, translated to that protocol's
 * version, and the blocks they decide agree with them.
 *
 * The column: a 1.12.2 chunk with a sign (two lines of text), a blue banner
 * with a pattern, a creeper head, a potted allium, a blue bed and a note
 * block, each with its 1.12 block entity, converted to 1.21.4 by the chunk
 * NBT writer (the world a modern server holds). It is encoded for a
 * protocol of every era that carries block entities in the chunk packet
 * (1.9.4-1.17 compounds, 1.18+ typed entries) and decoded again; what the
 * client gets must equal what the chunk NBT writer makes of the column for
 * that protocol's release (mc_chunknbt_write's own walk, read back): every
 * block of the sent height and every block entity (1.18+: without x/y/z,
 * which the entry's position replaces). For 1.12.2 and 1.16.5 the decoded
 * packet is also checked against the facts written out here (the sign's
 * Text1 JSON, the banner's Base, the head's SkullType and floor state, the
 * bed's colour, the pot's Item; blue_banner, creeper_head, potted_allium,
 * blue_bed in 1.16.5). mc_column_translate gives the same block entities
 * and states as the packet, and the view says what it could not carry.
 *
 * Also: every DataVersion step of the block entity walk falls on a release
 * whose registry differs from the one before, so a registry speaks for the
 * block entity format of all its releases (blockentity_column.c).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunk/chunk_private.h"
#include "mcchunk/chunknbt.h"
#include "mcchunk/java.h"
#include "mcchunk/translate.h"

#define BX 5
#define BZ 7

/* The 1.12 blocks (id:meta) and block entities at (BX, y, BZ). */
static const struct placed {
    int32_t y;
    const char *block, *be;
} placed[] = {
    {200, "63:0", "{id:\"minecraft:sign\",Text1:'{\"text\":\"Hello\"}',Text2:'{\"text\":\"from mcchunk\"}',"
                  "Text3:'{\"text\":\"\"}',Text4:'{\"text\":\"\"}'}"},
    {202, "176:4", "{id:\"minecraft:banner\",Base:4,Patterns:[{Pattern:\"cre\",Color:1}]}"},
    {203, "144:1", "{id:\"minecraft:skull\",SkullType:4b,Rot:5b}"},
    {204, "140:0", "{id:\"minecraft:flower_pot\",Item:\"minecraft:red_flower\",Data:2}"},
    {205, "26:9", "{id:\"minecraft:bed\",color:11}"},
    {206, "25:0", "{id:\"minecraft:noteblock\",note:7b,powered:0b}"},
};
#define NPLACED (sizeof placed / sizeof placed[0])

static uint32_t parse_state(const mc_registry *r, const char *text)
{
    uint32_t s;
    mc_error err;
    if (mc_registry_parse_state(r, text, strlen(text), &s, &err) != MC_OK) {
        print_message("state %s: %s\n", text, err.message);
        fail();
    }
    return s;
}

static void print_be(const char *what, const mc_nbt_tag *t)
{
    mc_buf b;
    mc_buf_init(&b, NULL);
    if (t)
        mc_nbt_to_snbt(t, 0, &b);
    print_message("%s %.*s\n", what, (int)b.len, b.len ? (const char *)b.data : "(none)");
    mc_buf_free(&b);
}

/* A chunk NBT tree read into a column. */
static mc_column *read_back(const mc_nbt_doc *doc)
{
    mc_column *col = NULL;
    mc_error err;
    if (mc_chunknbt_read(mc_nbt_doc_root((mc_nbt_doc *)doc), NULL, &col, &err) != MC_OK) {
        print_message("read: %s\n", err.message);
        fail();
    }
    return col;
}

/* The column a modern server holds: the 1.12.2 chunk above as 1.21.4. */
static mc_column *modern_column(void)
{
    const mc_registry *r12 = mc_registry_find("1.12.2");
    mc_column *col = mc_column_new(r12, 0, 0, 0, 16, NULL);
    assert_non_null(col);
    assert_int_equal(mc_column_set_block(col, 3, 64, 3, parse_state(r12, "1:0")), MC_OK);
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    for (size_t i = 0; i < NPLACED; i++) {
        mc_error err;
        assert_int_equal(mc_column_set_block(col, BX, placed[i].y, BZ, parse_state(r12, placed[i].block)), MC_OK);
        assert_int_equal(mc_snbt_parse(d, placed[i].be, strlen(placed[i].be), NULL, &err), MC_OK);
        mc_nbt_tag *be = mc_nbt_doc_root(d); /* with its position, as chunks hold them */
        assert_int_equal(mc_nbt_put_int(d, be, "x", BX), MC_OK);
        assert_int_equal(mc_nbt_put_int(d, be, "y", placed[i].y), MC_OK);
        assert_int_equal(mc_nbt_put_int(d, be, "z", BZ), MC_OK);
        assert_int_equal(mc_column_put_block_entity(col, BX, placed[i].y, BZ, be), MC_OK);
    }
    mc_nbt_doc_free(d);
    mc_nbt_doc *out = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_chunknbt_write(col, 4189, out, NULL, &err), MC_OK); /* 1.21.4 */
    mc_column *modern = read_back(out);
    mc_nbt_doc_free(out);
    mc_column_free(col);
    assert_int_equal(mc_column_block_entity_count(modern), 4); /* pot and note block: states in 1.13+ */
    return modern;
}

/* The DataVersion of the newest release speaking `protocol`. */
static int32_t dv_of_protocol(uint32_t protocol)
{
    int32_t dv = -1;
    mc_version_info vi;
    for (size_t i = 0; mc_java_version_at(i, &vi); i++)
        if (vi.protocol == (int32_t)protocol)
            dv = vi.data_version;
    assert_true(dv >= 0);
    return dv;
}

/* Keys of the chunk's block entity that a 1.18+ entry does not carry: the
 * position (the entry's) and keepPacked (storage only: vanilla's update tag
 * has none). */
static bool position_key(const char *k, size_t n)
{
    return (n == 1 && (*k == 'x' || *k == 'y' || *k == 'z')) || (n == 10 && !memcmp(k, "keepPacked", 10));
}

/* Two block entities equal (without x/y/z and keepPacked when `no_position`). */
static bool be_equal(const mc_nbt_tag *a, const mc_nbt_tag *b, bool no_position)
{
    if (!no_position)
        return mc_nbt_equal(a, b);
    size_t na = 0, nb = 0;
    for (mc_nbt_tag *t = mc_nbt_first(a); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        if (position_key(k, kl))
            continue;
        na++;
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)kl, k);
        if (!mc_nbt_equal(t, mc_nbt_get(b, key)))
            return false;
    }
    for (mc_nbt_tag *t = mc_nbt_first(b); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        nb += !position_key(k, kl);
    }
    return na == nb;
}


/* `got` (a packet decoded, or a translated column) holds the blocks and
 * block entities of `want` (the chunk NBT writer's) from y lo to hi. */
static void same_as_written(const mc_column *got, const mc_column *want, int32_t lo, int32_t hi, bool no_position,
                            uint32_t protocol)
{
    for (int32_t y = lo; y < hi; y++)
        for (int32_t z = 0; z < 16; z++)
            for (int32_t x = 0; x < 16; x++)
                if (mc_column_get_block(got, x, y, z) != mc_column_get_block(want, x, y, z)) {
                    print_message("protocol %u: block %d %d %d is %u, written %u\n", protocol, x, y, z,
                                  mc_column_get_block(got, x, y, z), mc_column_get_block(want, x, y, z));
                    fail();
                }
    if (mc_column_block_entity_count(got) != mc_column_block_entity_count(want)) {
        print_message("protocol %u: %zu block entities, written %zu\n", protocol, mc_column_block_entity_count(got),
                      mc_column_block_entity_count(want));
        for (size_t i = 0; i < mc_column_block_entity_count(got); i++)
            print_be("got", mc_column_block_entity_at(got, i, NULL, NULL, NULL));
        for (size_t i = 0; i < mc_column_block_entity_count(want); i++)
            print_be("written", mc_column_block_entity_at(want, i, NULL, NULL, NULL));
        fail();
    }
    for (size_t i = 0; i < mc_column_block_entity_count(want); i++) {
        int32_t x, y, z;
        const mc_nbt_tag *w = mc_column_block_entity_at(want, i, &x, &y, &z);
        const mc_nbt_tag *g = mc_column_block_entity(got, x, y, z);
        if (!be_equal(g, w, no_position)) {
            print_message("protocol %u: block entity at %d %d %d\n", protocol, x, y, z);
            print_be("got    ", g);
            print_be("written", w);
            fail();
        }
    }
}

/* The string at `key` of the block entity at (BX, y, BZ) contains `part`. */
static void be_string_has(const mc_column *col, int32_t y, const char *key, const char *part)
{
    const char *s;
    size_t n;
    const mc_nbt_tag *be = mc_column_block_entity(col, BX, y, BZ);
    assert_non_null(be);
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(be, key), &s, &n), MC_OK);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)n, s);
    if (!strstr(buf, part)) {
        print_message("%s at y %d is %s, without %s\n", key, y, buf, part);
        fail();
    }
}

static int32_t be_int(const mc_column *col, int32_t y, const char *key)
{
    const mc_nbt_tag *be = mc_column_block_entity(col, BX, y, BZ);
    assert_non_null(be);
    int64_t v;
    if (mc_nbt_get_integer(mc_nbt_get(be, key), &v) != MC_OK) {
        print_be(key, be);
        fail();
    }
    return (int32_t)v;
}

static void block_is(const mc_column *col, int32_t y, const char *want)
{
    char got[256];
    mc_registry_format_state(mc_column_registry(col), mc_column_get_block(col, BX, y, BZ), got, sizeof got,
                             MC_FORMAT_SORTED);
    if (strncmp(got, want, strlen(want))) {
        print_message("block at y %d is %s, want %s\n", y, got, want);
        fail();
    }
}

/* Facts a 1.12.2 client must be sent, written out by hand. */
static void check_1_12(const mc_column *c)
{
    be_string_has(c, 200, "Text1", "Hello");
    be_string_has(c, 200, "Text2", "from mcchunk");
    assert_int_equal(be_int(c, 202, "Base"), 4); /* blue */
    assert_int_equal(be_int(c, 203, "SkullType"), 4); /* creeper */
    assert_int_equal(mc_column_get_block(c, BX, 203, BZ), 144u << 4 | 1u); /* on the floor */
    be_string_has(c, 204, "Item", "red_flower");
    assert_int_equal(be_int(c, 204, "Data"), 2); /* allium */
    assert_int_equal(be_int(c, 205, "color"), 11); /* blue */
    assert_int_equal(mc_column_get_block(c, BX, 205, BZ) >> 4, 26u);
}

/* ... and a 1.16.5 client. */
static void check_1_16(const mc_column *c)
{
    be_string_has(c, 200, "Text1", "Hello");
    be_string_has(c, 200, "Text2", "from mcchunk");
    block_is(c, 202, "minecraft:blue_banner");
    block_is(c, 203, "minecraft:creeper_head");
    block_is(c, 204, "minecraft:potted_allium");
    block_is(c, 205, "minecraft:blue_bed");
    block_is(c, 206, "minecraft:note_block[instrument=harp,note=7");
    assert_int_equal(mc_nbt_count(mc_column_block_entity(c, BX, 202, BZ)) > 0, 1);
}

static void test_packets_carry_translated(void **state)
{
    (void)state;
    mc_column *col = modern_column();
    /* one protocol of every era with block entities in the chunk packet */
    static const uint32_t protos[] = {210, 340, 404, 498, 578, 754, 756, 758, 763, 765, 769, 770, 775};
    mc_buf out;
    mc_buf_init(&out, NULL);
    for (size_t p = 0; p < sizeof protos / sizeof protos[0]; p++) {
        const uint32_t proto = protos[p];
        mc_error err;
        out.len = 0;
        assert_int_equal(mc_java_encode_chunk(col, proto, &out, NULL, &err), MC_OK);
        mc_java_decode_opts o = {0};
        int32_t lo = 0, hi = 256;
        if (proto >= 755) { /* 1.17+: the column's own height */
            o.has_height = true;
            o.min_y = lo = mc_column_min_y(col);
            o.height = mc_column_height(col);
            hi = lo + (int32_t)o.height;
        }
        mc_column *got = NULL;
        if (mc_java_decode_chunk(out.data, out.len, proto, &o, &got, NULL, &err) != MC_OK) {
            print_message("protocol %u: %s\n", proto, err.message);
            fail();
        }
        /* the chunk NBT writer's conversion to the protocol's release */
        const int32_t dv = dv_of_protocol(proto);
        mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
        assert_int_equal(mc_chunknbt_write(col, dv, doc, NULL, &err), MC_OK);
        mc_column *want = read_back(doc);
        mc_nbt_doc_free(doc);
        assert_ptr_equal(mc_column_registry(want), mc_column_registry(got));
        same_as_written(got, want, lo, hi, proto >= 757, proto);
        /* mc_column_translate gives the client's blocks and block entities */
        mc_column *t = mc_column_translate(col, mc_column_registry(got), NULL, &err);
        assert_non_null(t);
        same_as_written(t, want, lo, hi, false, proto);
        mc_column_free(t);
        if (proto == 340)
            check_1_12(got);
        if (proto == 754)
            check_1_16(got);
        mc_column_free(want);
        mc_column_free(got);
    }
    mc_buf_free(&out);
    mc_column_free(col);
}

/* A view counts what its target cannot hold: a 1.21.4 sign with text on
 * its back, sent to a 1.12.2 client. */
static void test_view_report(void **state)
{
    (void)state;
    const mc_registry *r21 = mc_registry_find("1.21.4"), *r12 = mc_registry_find("1.12.2");
    mc_column *col = mc_column_new(r21, 0, 0, -4, 24, NULL);
    assert_int_equal(mc_column_set_block(col, 1, 70, 2, parse_state(r21, "minecraft:oak_sign[rotation=0]")), MC_OK);
    static const char sign[] =
        "{id:\"minecraft:sign\",is_waxed:0b,front_text:{messages:['\"front\"','\"\"','\"\"','\"\"'],"
        "color:\"black\",has_glowing_text:0b},back_text:{messages:['\"back\"','\"\"','\"\"','\"\"'],"
        "color:\"black\",has_glowing_text:0b}}";
    mc_nbt_doc *d = mc_nbt_doc_new(NULL);
    mc_error err;
    assert_int_equal(mc_snbt_parse(d, sign, strlen(sign), NULL, &err), MC_OK);
    assert_int_equal(mc_column_put_block_entity(col, 1, 70, 2, mc_nbt_doc_root(d)), MC_OK);
    mc_nbt_doc_free(d);
    mc_column_view *v = mc_column_view_new(col, r12, NULL, &err);
    assert_non_null(v);
    assert_int_equal(mc_column_view_block_entity_count(v), 1);
    int32_t x, y, z;
    const mc_nbt_tag *be = mc_column_view_block_entity_at(v, 0, &x, &y, &z);
    assert_int_equal(x, 1);
    assert_int_equal(y, 70);
    assert_int_equal(z, 2);
    const char *s;
    size_t n;
    assert_int_equal(mc_nbt_get_string(mc_nbt_get(be, "Text1"), &s, &n), MC_OK);
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)n, s);
    assert_non_null(strstr(text, "front"));
    assert_null(mc_column_view_block_entity_at(v, 1, NULL, NULL, NULL));
    const mc_be_report *rep = mc_column_view_block_entity_report(v);
    unsigned lost = 0;
    for (int k = 0; k < MC_BE_LOSS_COUNT; k++)
        lost += rep->lost[k];
    assert_true(lost > 0); /* the back text */
    mc_column_view_free(v);
    /* the same registry: the column's own block entity, untouched */
    v = mc_column_view_new(col, r21, NULL, &err);
    assert_ptr_equal(mc_column_view_block_entity_at(v, 0, NULL, NULL, NULL), mc_column_block_entity(col, 1, 70, 2));
    mc_column_view_free(v);
    mc_column_free(col);
}

/* ------------------------------------------- 1.8-1.9.2: packets of their own */

typedef struct packets {
    mc_buf all[16];
    size_t n;
} packets;

static mc_status keep_packet(void *user, const uint8_t *packet, size_t len)
{
    packets *p = user;
    if (p->n == 16)
        return MC_ERR_RANGE;
    mc_buf_init(&p->all[p->n], NULL);
    memcpy(mc_buf_extend(&p->all[p->n], len), packet, len);
    p->n++;
    return MC_OK;
}

static void packets_free(packets *p)
{
    for (size_t i = 0; i < p->n; i++)
        mc_buf_free(&p->all[i]);
    p->n = 0;
}

static int packet_id(const mc_buf *b)
{
    mc_reader r;
    mc_reader_init(&r, b->data, b->len, NULL, NULL);
    return mc_read_varint(&r);
}

static const char *packet_name(const mc_buf *b, uint32_t protocol)
{
    return mc_java_packet_name(protocol, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, packet_id(b));
}

/* The position field of a 1.8-1.13 packet at `at`. */
static void position_at(const mc_buf *b, size_t at, int32_t *x, int32_t *y, int32_t *z)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b->data[at + (size_t)i];
    *x = (int32_t)(v >> 38) << 6 >> 6; /* 26 bits, signed */
    *y = (int32_t)((v >> 26) & 0xFFF) << 20 >> 20;
    *z = (int32_t)(v << 38 >> 38) << 6 >> 6;
}

/* A 1.8 client is sent the sign text in Update Sign and the skull, banner
 * and pot in Update Block Entity, after the chunk; 1.9.4+ clients get
 * them in the chunk (no more packets); 1.14-1.17 clients Update Light. */
static void test_legacy_packets(void **state)
{
    (void)state;
    mc_column *col = modern_column();
    packets p = {0};
    mc_error err;
    /* 1.8 */
    assert_int_equal(mc_java_encode_column_packets(col, 47, keep_packet, &p, &err), MC_OK);
    assert_string_equal(packet_name(&p.all[0], 47), "map_chunk");
    mc_buf single;
    mc_buf_init(&single, NULL);
    assert_int_equal(mc_java_encode_chunk(col, 47, &single, NULL, &err), MC_OK);
    assert_int_equal(single.len, p.all[0].len);
    assert_memory_equal(single.data, p.all[0].data, single.len);
    mc_buf_free(&single);
    unsigned signs = 0, seen = 0;
    for (size_t i = 1; i < p.n; i++) {
        const mc_buf *b = &p.all[i];
        mc_reader r;
        mc_reader_init(&r, b->data, b->len, NULL, NULL);
        mc_read_varint(&r);
        int32_t x, y, z;
        position_at(b, r.pos, &x, &y, &z);
        assert_int_equal(x, BX);
        assert_int_equal(z, BZ);
        r.pos += 8;
        if (!strcmp(packet_name(b, 47), "update_sign")) {
            assert_int_equal(y, 200);
            char lines[4][64];
            for (int k = 0; k < 4; k++) {
                int32_t n = mc_read_varint(&r);
                assert_true(n >= 0 && (size_t)n <= mc_reader_remaining(&r) && n < 64);
                snprintf(lines[k], sizeof lines[k], "%.*s", (int)n, (const char *)b->data + r.pos);
                r.pos += (size_t)n;
            }
            assert_int_equal(mc_reader_remaining(&r), 0);
            assert_non_null(strstr(lines[0], "Hello"));
            assert_non_null(strstr(lines[1], "from mcchunk"));
            signs++;
            continue;
        }
        assert_string_equal(packet_name(b, 47), "tile_entity_data");
        const uint8_t action = b->data[r.pos++];
        mc_nbt_doc *d = mc_nbt_doc_new(NULL);
        size_t used = 0;
        assert_int_equal(mc_nbt_parse_ex(d, b->data + r.pos, b->len - r.pos, MC_NBT_JAVA, MC_NBT_PARSE_PREFIX, NULL,
                                         &used, &err),
                         MC_OK);
        assert_int_equal(r.pos + used, b->len);
        const mc_nbt_tag *be = mc_nbt_doc_root(d);
        int64_t v;
        const char *s;
        size_t sl;
        switch (y) {
        case 202: /* banner: blue */
            assert_int_equal(action, 6);
            assert_int_equal(mc_nbt_get_integer(mc_nbt_get(be, "Base"), &v), MC_OK);
            assert_int_equal(v, 4);
            break;
        case 203: /* skull: creeper */
            assert_int_equal(action, 4);
            assert_int_equal(mc_nbt_get_integer(mc_nbt_get(be, "SkullType"), &v), MC_OK);
            assert_int_equal(v, 4);
            break;
        case 204: /* flower pot: allium */
            assert_int_equal(action, 5);
            assert_int_equal(mc_nbt_get_string(mc_nbt_get(be, "Item"), &s, &sl), MC_OK);
            assert_true(sl == 20 && !memcmp(s, "minecraft:red_flower", 20));
            assert_int_equal(mc_nbt_get_integer(mc_nbt_get(be, "Data"), &v), MC_OK);
            assert_int_equal(v, 2);
            break;
        default:
            print_message("a block entity packet for y %d\n", y);
            fail();
        }
        assert_int_equal(mc_nbt_get_integer(mc_nbt_get(be, "y"), &v), MC_OK);
        assert_int_equal(v, y);
        seen |= 1u << (y - 202);
        mc_nbt_doc_free(d);
    }
    assert_int_equal(signs, 1);
    assert_int_equal(seen, 7u); /* banner, skull, pot; no bed or note block entity in 1.8 */
    assert_int_equal(p.n, 5);
    packets_free(&p);
    /* 1.9 (protocol 107): the same kinds, still outside the chunk */
    assert_int_equal(mc_java_encode_column_packets(col, 107, keep_packet, &p, &err), MC_OK);
    assert_int_equal(p.n, 5);
    assert_string_equal(packet_name(&p.all[1], 107), "update_sign");
    packets_free(&p);
    /* 1.12.2: all in the chunk; 1.16.5: the chunk and Update Light */
    assert_int_equal(mc_java_encode_column_packets(col, 340, keep_packet, &p, &err), MC_OK);
    assert_int_equal(p.n, 1);
    packets_free(&p);
    assert_int_equal(mc_java_encode_column_packets(col, 754, keep_packet, &p, &err), MC_OK);
    assert_int_equal(p.n, 2);
    assert_string_equal(packet_name(&p.all[1], 754), "update_light");
    packets_free(&p);
    mc_column_free(col);
}

/* No step of the walk lies between two releases of one registry. */
static void test_steps_fall_on_registries(void **state)
{
    (void)state;
    mc_version_info a, b;
    unsigned pairs = 0;
    for (size_t i = 1; mc_java_version_at(i, &b); i++) {
        assert_true(mc_java_version_at(i - 1, &a));
        if (!a.registry || a.registry != b.registry)
            continue;
        pairs++;
        for (size_t k = 0; k < mc__be_step_count; k++)
            if (a.data_version < mc__be_steps[k] && mc__be_steps[k] <= b.data_version) {
                print_message("step %d between %s and %s (one registry)\n", (int)mc__be_steps[k], a.name, b.name);
                fail();
            }
        assert_int_equal(mc__registry_data_version(b.registry) >= b.data_version, 1);
    }
    assert_true(pairs > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packets_carry_translated),
        cmocka_unit_test(test_view_report),
        cmocka_unit_test(test_legacy_packets),
        cmocka_unit_test(test_steps_fall_on_registries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
