/*
 * test_chunknbt_write_text.c: strings that are not plain ASCII in a chunk
 * the chunk NBT writer writes: sign text and a custom name with "é", a NUL
 * and an emoji, a biome name the registry does not know ("minecraft:néant",
 * kept with its section's raw biomes) and a root key of a mod with "é" in
 * its name.
 *
 * The game reads NBT strings with Java's DataInput.readUTF, modified
 * UTF-8: "é" is C3 A9 as in UTF-8, NUL is C0 80 (no 0 byte inside a
 * string), and a character above U+FFFF is its UTF-16 surrogate pair, each
 * half 3 bytes (U+1F600 is ED A0 BD ED B8 80, never UTF-8's F0 9F 98 80).
 * The writer's bytes path (mc_chunknbt_writer_write_bytes) and its tree
 * path (mc_chunknbt_write, then mc_nbt_write) must both write exactly those
 * bytes, and reading them back must give the text that went in.
 *
 * (The bytes path writes the palette entries it makes from the registry
 * itself, and would give an entry with a byte of 0x80 or more to the tree
 * writer; but no name, property or biome of any registry has one, so the
 * strings of a chunk that are not ASCII are those it carries: block
 * entities, raw biome palettes, extra keys, all written by the NBT writer.)
 */
#include "support.h"

#include <string.h>

#include "mcchunk/chunknbt.h"

#define DV_1_21_1 3955

/* UTF-8 as the API takes it: "é", NUL, U+1F600 */
#define SIGN_TEXT "{\"text\":\"Caf\xc3\xa9 \x00 \xf0\x9f\x98\x80\"}"
#define SIGN_TEXT_LEN (sizeof SIGN_TEXT - 1)
#define SIGN_MUTF8 "{\"text\":\"Caf\xc3\xa9 \xc0\x80 \xed\xa0\xbd\xed\xb8\x80\"}"
#define NAME_TEXT "\"\xf0\x9f\x98\x80 Coffre \xc3\xa9\"" /* the emoji first: a pair at the start */
#define NAME_MUTF8 "\"\xed\xa0\xbd\xed\xb8\x80 Coffre \xc3\xa9\""
#define BIOME "minecraft:n\xc3\xa9" "ant"
#define MOD_KEY "mod:caf\xc3\xa9"

static mc_nbt_tag *put_palette(mc_nbt_doc *doc, mc_nbt_tag *section, const char *key, mc_nbt_type type)
{
    mc_nbt_tag *c = mc_nbt_put_compound(doc, section, key);
    assert_non_null(c);
    mc_nbt_tag *pal = mc_nbt_put_list(doc, c, "palette", type);
    assert_non_null(pal);
    return pal;
}

/* A 1.21.1 chunk: two sections (oak signs with the unknown biome; air),
 * a sign and a chest with non-ASCII text, and the mod's key. */
static mc_nbt_doc *make_chunk(void)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_non_null(doc);
    mc_nbt_tag *root = mc_nbt_doc_new_root(doc, MC_NBT_COMPOUND);
    mc_nbt_put_int(doc, root, "DataVersion", DV_1_21_1);
    mc_nbt_put_int(doc, root, "xPos", 2);
    mc_nbt_put_int(doc, root, "yPos", -4);
    mc_nbt_put_int(doc, root, "zPos", -3);
    mc_nbt_put_string(doc, root, "Status", "minecraft:full", 14);
    mc_nbt_tag *sections = mc_nbt_put_list(doc, root, "sections", MC_NBT_COMPOUND);
    for (int8_t y = 0; y < 2; y++) {
        mc_nbt_tag *s = mc_nbt_list_append(doc, sections, MC_NBT_COMPOUND);
        mc_nbt_put_byte(doc, s, "Y", y);
        mc_nbt_tag *e = mc_nbt_list_append(doc, put_palette(doc, s, "block_states", MC_NBT_COMPOUND),
                                           MC_NBT_COMPOUND);
        if (y == 0) {
            mc_nbt_put_string(doc, e, "Name", "minecraft:oak_sign", 18);
            mc_nbt_tag *p = mc_nbt_put_compound(doc, e, "Properties");
            mc_nbt_put_string(doc, p, "rotation", "0", 1);
            mc_nbt_put_string(doc, p, "waterlogged", "false", 5);
        } else {
            mc_nbt_put_string(doc, e, "Name", "minecraft:air", 13);
        }
        mc_nbt_tag *b = mc_nbt_list_append(doc, put_palette(doc, s, "biomes", MC_NBT_STRING), MC_NBT_STRING);
        if (y == 0)
            assert_int_equal(mc_nbt_set_string(doc, b, BIOME, strlen(BIOME)), MC_OK);
        else
            assert_int_equal(mc_nbt_set_string(doc, b, "minecraft:plains", 16), MC_OK);
    }
    mc_nbt_tag *bes = mc_nbt_put_list(doc, root, "block_entities", MC_NBT_COMPOUND);
    mc_nbt_tag *sign = mc_nbt_list_append(doc, bes, MC_NBT_COMPOUND);
    mc_nbt_put_string(doc, sign, "id", "minecraft:sign", 14);
    mc_nbt_put_int(doc, sign, "x", 2 * 16 + 1);
    mc_nbt_put_int(doc, sign, "y", 3);
    mc_nbt_put_int(doc, sign, "z", -3 * 16 + 4);
    mc_nbt_tag *front = mc_nbt_put_compound(doc, sign, "front_text");
    mc_nbt_tag *messages = mc_nbt_put_list(doc, front, "messages", MC_NBT_STRING);
    assert_int_equal(mc_nbt_set_string(doc, mc_nbt_list_append(doc, messages, MC_NBT_STRING), SIGN_TEXT,
                                       SIGN_TEXT_LEN), MC_OK);
    for (int i = 0; i < 3; i++)
        mc_nbt_set_string(doc, mc_nbt_list_append(doc, messages, MC_NBT_STRING), "\"\"", 2);
    mc_nbt_put_string(doc, front, "color", "black", 5);
    mc_nbt_put_byte(doc, front, "has_glowing_text", 0);
    mc_nbt_put_byte(doc, sign, "is_waxed", 0);
    mc_nbt_tag *chest = mc_nbt_list_append(doc, bes, MC_NBT_COMPOUND);
    mc_nbt_put_string(doc, chest, "id", "minecraft:chest", 15);
    mc_nbt_put_int(doc, chest, "x", 2 * 16 + 5);
    mc_nbt_put_int(doc, chest, "y", 20);
    mc_nbt_put_int(doc, chest, "z", -3 * 16 + 6);
    mc_nbt_put_string(doc, chest, "CustomName", NAME_TEXT, strlen(NAME_TEXT));
    mc_nbt_put_list(doc, chest, "Items", MC_NBT_COMPOUND);
    mc_nbt_put_int(doc, root, MOD_KEY, 7);
    return doc;
}

/* The Java NBT string payload of s[0..n): u16 BE length, the bytes. */
static bool has_string(const mc_buf *b, const char *s, size_t n)
{
    uint8_t want[256];
    assert_true(n + 2 <= sizeof want);
    want[0] = (uint8_t)(n >> 8);
    want[1] = (uint8_t)n;
    memcpy(want + 2, s, n);
    for (size_t i = 0; i + n + 2 <= b->len; i++)
        if (!memcmp(b->data + i, want, n + 2))
            return true;
    return false;
}

static bool has_bytes(const mc_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i + n <= b->len; i++)
        if (!memcmp(b->data + i, s, n))
            return true;
    return false;
}

static void check_text(const mc_nbt_tag *t, const char *want, size_t want_len)
{
    const char *s;
    size_t n;
    assert_int_equal(mc_nbt_get_string(t, &s, &n), MC_OK);
    assert_int_equal(n, want_len);
    assert_memory_equal(s, want, n);
}

static void test_non_ascii_strings(void **state)
{
    (void)state;
    mc_nbt_doc *src = make_chunk();
    mc_buf in;
    mc_buf_init(&in, NULL);
    mc_error err;
    assert_int_equal(mc_nbt_write(src, MC_NBT_JAVA, &in, &err), MC_OK);
    mc_column *col = NULL;
    assert_int_equal(mc_chunknbt_read_bytes(in.data, in.len, NULL, &col, &err), MC_OK);

    /* the bytes path (a writer reused: its second chunk takes its kept
     * palette entries) and the tree path */
    mc_chunknbt_writer *wr = mc_chunknbt_writer_new();
    assert_non_null(wr);
    mc_buf bytes[2], tree;
    for (int i = 0; i < 2; i++) {
        mc_buf_init(&bytes[i], NULL);
        assert_int_equal(mc_chunknbt_writer_write_bytes(wr, col, MC_CHUNKNBT_OWN_VERSION, &bytes[i], NULL, &err),
                         MC_OK);
    }
    mc_buf_init(&tree, NULL);
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_chunknbt_write(col, MC_CHUNKNBT_OWN_VERSION, doc, NULL, &err), MC_OK);
    assert_int_equal(mc_nbt_write(doc, MC_NBT_JAVA, &tree, &err), MC_OK);
    mc_nbt_doc_free(doc);
    assert_int_equal(bytes[0].len, tree.len);
    assert_memory_equal(bytes[0].data, tree.data, tree.len);
    assert_int_equal(bytes[1].len, tree.len);
    assert_memory_equal(bytes[1].data, tree.data, tree.len);

    /* the game's bytes for every string; no UTF-8 form of the emoji, no
     * 0 byte of the NUL inside a string */
    assert_true(has_string(&tree, SIGN_MUTF8, sizeof SIGN_MUTF8 - 1));
    assert_true(has_string(&tree, NAME_MUTF8, sizeof NAME_MUTF8 - 1));
    assert_true(has_string(&tree, BIOME, strlen(BIOME)));
    assert_true(has_string(&tree, MOD_KEY, strlen(MOD_KEY)));
    assert_false(has_bytes(&tree, "\xf0\x9f\x98\x80", 4));
    assert_false(has_bytes(&tree, "\xc3\xa9 \x00", 4));
    /* and what the input held: the same chunk, written the same */
    assert_true(has_string(&in, SIGN_MUTF8, sizeof SIGN_MUTF8 - 1));

    /* read back: the text that went in */
    mc_nbt_doc *back = mc_nbt_doc_new(NULL);
    assert_int_equal(mc_nbt_parse(back, tree.data, tree.len, MC_NBT_JAVA, NULL, &err), MC_OK);
    const mc_nbt_tag *root = mc_nbt_doc_root(back);
    const mc_nbt_tag *bes = mc_nbt_get(root, "block_entities");
    assert_int_equal(mc_nbt_count(bes), 2);
    const mc_nbt_tag *sign = NULL, *chest = NULL;
    for (size_t i = 0; i < 2; i++) {
        const mc_nbt_tag *be = mc_nbt_list_at(bes, i);
        const char *id;
        size_t n;
        assert_int_equal(mc_nbt_get_string(mc_nbt_get(be, "id"), &id, &n), MC_OK);
        if (n == 14 && !memcmp(id, "minecraft:sign", 14))
            sign = be;
        else
            chest = be;
    }
    assert_non_null(sign);
    assert_non_null(chest);
    check_text(mc_nbt_list_at(mc_nbt_get(mc_nbt_get(sign, "front_text"), "messages"), 0), SIGN_TEXT, SIGN_TEXT_LEN);
    check_text(mc_nbt_get(chest, "CustomName"), NAME_TEXT, strlen(NAME_TEXT));
    const mc_nbt_tag *s0 = mc_nbt_list_at(mc_nbt_get(root, "sections"), 0);
    check_text(mc_nbt_list_at(mc_nbt_get(mc_nbt_get(s0, "biomes"), "palette"), 0), BIOME, strlen(BIOME));
    assert_non_null(mc_nbt_get(root, MOD_KEY));
    /* and the whole chunk as it was read */
    assert_true(mc_nbt_equal(mc_nbt_doc_root(src), root));

    mc_nbt_doc_free(back);
    mc_buf_free(&tree);
    mc_buf_free(&bytes[0]);
    mc_buf_free(&bytes[1]);
    mc_chunknbt_writer_free(wr);
    mc_column_free(col);
    mc_buf_free(&in);
    mc_nbt_doc_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_non_ascii_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
