/*
 * test_snbt.c: the SNBT parser against the text forms the game accepts since
 * 1.21.5 (snapshots 25w09a and 25w10a): hexadecimal and binary integers,
 * '_' between digits, signed/unsigned suffixes, the float forms, no leading
 * zeros, unquoted strings that may not start like a number, integer-only
 * typed arrays, heterogeneous lists (stored wrapped, as the game stores
 * them), case-insensitive true/false, and the bool()/uuid() operations.
 * Every invalid form is an error with the offset of the culprit.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/nbt.h"

/* Parses `text` and prints it back compactly. */
static void ok(const char *text, const char *want)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    if (mc_snbt_parse(doc, text, strlen(text), NULL, &err) != MC_OK)
        fail_msg("'%s': %s", text, err.message);
    mc_buf b;
    mc_buf_init(&b, NULL);
    assert_int_equal(mc_nbt_to_snbt(mc_nbt_doc_root(doc), 0, &b), MC_OK);
    if (b.len != strlen(want) || memcmp(b.data, want, b.len))
        fail_msg("'%s' printed as '%.*s', want '%s'", text, (int)b.len, (const char *)b.data, want);
    /* and what we print reads back to the same tree */
    mc_nbt_doc *back = mc_nbt_doc_new(NULL);
    if (mc_snbt_parse(back, (const char *)b.data, b.len, NULL, &err) != MC_OK)
        fail_msg("'%s' printed as '%s', which does not parse: %s", text, want, err.message);
    assert_true(mc_nbt_equal(mc_nbt_doc_root(doc), mc_nbt_doc_root(back)));
    mc_nbt_doc_free(back);
    mc_buf_free(&b);
    mc_nbt_doc_free(doc);
}

/* `text` fails with MC_ERR_MALFORMED, a message containing `needle` and
 * the error offset `at`. */
static void bad(const char *text, const char *needle, size_t at)
{
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_status s = mc_snbt_parse(doc, text, strlen(text), NULL, &err);
    if (s != MC_ERR_MALFORMED)
        fail_msg("'%s': want malformed, got %s (%s)", text, mc_status_name(s), err.message);
    if (needle && !strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", text, err.message, needle);
    if (err.offset != at)
        fail_msg("'%s': error at offset %zu, want %zu (%s)", text, err.offset, at, err.message);
    assert_null(mc_nbt_doc_root(doc));
    mc_nbt_doc_free(doc);
}

static void test_hex_and_binary(void **state)
{
    (void)state;
    /* the 25w09a examples */
    ok("0xbad", "2989");
    ok("0xCAFE", "51966");
    ok("0b101", "5");
    ok("0X1f", "31");
    ok("0B11", "3");
    /* hex and binary default to unsigned: the full width of the type */
    ok("0xFFFFFFFF", "-1");
    ok("0x7FFFFFFF", "2147483647");
    ok("0xFFs", "255s");
    ok("0xFFFFs", "-1s");
    ok("0xFFFFFFFFFFFFFFFFL", "-1L");
    ok("0b11111111ub", "-1b");
    /* b is a hex digit: a hex byte needs a sign letter */
    ok("0xFFb", "4091");
    ok("0x11ub", "17b");
    ok("0x7Fsb", "127b");
    ok("-0x80sb", "-128b");
    ok("+0x10", "16");
    /* 0b alone is the byte zero; 0b1b is a binary byte */
    ok("0b", "0b");
    ok("0b1b", "1b");
    ok("[0b,0B]", "[0b,0b]");
    bad("0x", "expected hex digits", 2);
    bad("0xG", "expected hex digits", 2);
    bad("-0x1", "can't be negative", 0);
    bad("0x80sb", "out of range for a signed byte", 0);
    bad("0x100ub", "out of range for an unsigned byte", 0);
    bad("0x1_0000_0000", "out of range for an unsigned int", 0);
    bad("0x1_0000_0000_0000_0000L", "out of range", 0);
    bad("0b12", "unexpected '2' after a number", 3);
}

static void test_signed_unsigned_suffixes(void **state)
{
    (void)state;
    ok("240ub", "-16b");
    ok("255UB", "-1b");
    ok("65535us", "-1s");
    ok("4294967295ui", "-1");
    ok("18446744073709551615ul", "-1L");
    ok("-5sb", "-5b");
    ok("5SI", "5");
    ok("7sl", "7L");
    ok("1i", "1");
    ok("{a:1I,b:2ss,c:3Us}", "{a:1,b:2s,c:3s}");
    ok("-128b", "-128b");
    ok("-9223372036854775808L", "-9223372036854775808L");
    bad("240sb", "out of range for a signed byte", 0);
    bad("128b", "out of range for a signed byte", 0);
    bad("-129b", "out of range", 0);
    bad("-1ub", "can't be negative", 0);
    bad("2147483648", "out of range for a signed int", 0);
    bad("9223372036854775808L", "out of range", 0);
    bad("1u", "unexpected 'u' after a number", 1);
    bad("1sx", "unexpected 'x' after a number", 2);
    bad("[1,2bb]", "unexpected 'b' after a number", 5);
}

static void test_underscores_and_zeros(void **state)
{
    (void)state;
    ok("1_000", "1000");
    ok("1__0", "10");
    ok("0b10_01", "9");
    ok("0xAB_CD", "43981");
    ok("1_2.3_4__5f", "12.345f");
    ok("1_2e3_4", "1.2E35d");
    ok("0", "0");
    ok("-0", "0");
    ok("01.5", "1.5d");  /* floats may have leading zeros */
    ok("00e1", "0.0d");
    bad("012", "leading zeros", 0);
    bad("-00", "leading zeros", 1);
    bad("1_", "'_' only between digits", 0);
    bad("1_000_", "'_' only between digits", 0);
    bad("0x_1", "'_' only between digits", 2);
    bad("1._5", "'_' only between digits", 2);
    /* '_' starts an unquoted string, not a number */
    ok("_1", "\"_1\"");
}

static void test_floats(void **state)
{
    (void)state;
    ok(".5", "0.5d");
    ok("1.", "1.0d");
    ok("1.e2", "100.0d");
    ok("-.5f", "-0.5f");
    ok("+1.5", "1.5d");
    ok("1E3", "1000.0d");
    ok("2e-3f", "0.002f");
    ok("1e+2D", "100.0d");
    ok("0d", "0.0d");
    ok("0f", "0.0f");
    ok("3F", "3.0f");
    ok("1e-400", "0.0d"); /* underflow is fine, overflow is not */
    bad("1e39f", "infinity is not allowed", 0);
    bad("-1e309", "infinity is not allowed", 0);
    bad("1.2.3", "unexpected '.' after a number", 3);
    bad("1.5e", "unexpected 'e' after a number", 3);
    bad("1.5L", "unexpected 'L' after a number", 3);
    bad(".", "expected a number", 0);
    bad("-", "expected a number", 1);
    bad("+.e1", "expected a number", 1);
    /* no NaN/Infinity literals: these are words, and -Infinityf starts like a number */
    ok("NaNf", "\"NaNf\"");
    bad("-Infinityf", "expected a number", 1);
}

static void test_unquoted_strings_and_booleans(void **state)
{
    (void)state;
    ok("{k:abc,l:a-b_c.d+e}", "{k:\"abc\",l:\"a-b_c.d+e\"}");
    ok("[true,FALSE,True,fAlSe]", "[1b,0b,1b,0b]");
    ok("truex", "\"truex\"");
    /* keys may start with digits (only values may not) */
    ok("{1a:2,-x:3,.y:4}", "{1a:2,-x:3,.y:4}");
    bad("1a", "unexpected 'a' after a number", 1);
    bad("{a:-x}", "expected a number", 4);
    bad("{a:.x}", "expected a number", 3);
    bad("+foo", "expected a number", 1);
    bad("{a:1 b:2}", "expected '}', found 'b'", 5);
    /* named escapes need the Unicode name table: refused, with a position */
    bad("'\\N{SNOWMAN}'", "invalid escape", 1);
}

static void test_arrays(void **state)
{
    (void)state;
    ok("[B;1,2]", "[B;1B,2B]");
    ok("[B;-128,127,0xFF,1b]", "[B;-128B,127B,-1B,1B]");
    ok("[I;1b,2s,3,4i]", "[I;1,2,3,4]");
    ok("[I;0xFFFFFFFF,0b1]", "[I;-1,1]");
    ok("[L;1,2i,3s,4b,5L]", "[L;1L,2L,3L,4L,5L]");
    ok("[L;0xFFFFFFFFFFFFFFFF]", "[L;-1L]");
    ok("[B;1,]", "[B;1B]");
    bad("[B;1s]", "can't insert short into byte_array", 3);
    bad("[I;1L]", "can't insert long into int_array", 3);
    bad("[B;300]", "out of range for a signed byte", 3);
    bad("[B;200b]", "out of range for a signed byte", 3);
    bad("[I;1.5]", "unexpected '.' after a number", 4);
    bad("[I;1f]", "unexpected 'f' after a number", 4);
    bad("[B;true]", "integers only", 3);
    bad("[L;'1']", "integers only", 3);
    bad("[B;,]", "integers only", 3);
    bad("[B;1,,]", "integers only", 5);
}

static void test_heterogeneous_lists(void **state)
{
    (void)state;
    /* the 25w09a example: ['a', {'b':3}] is stored as [{'':'a'},{'b':3}] */
    ok("['a',{'b':3}]", "[{\"\":\"a\"},{b:3}]");
    ok("[1,2b]", "[{\"\":1},{\"\":2b}]");
    ok("[[1],{},3L]", "[{\"\":[1]},{},{\"\":3L}]");
    /* a compound that looks like a wrapper is wrapped itself */
    ok("[{'':1},2]", "[{\"\":{\"\":1}},{\"\":2}]");
    /* lists of lists are one type whatever the inner types */
    ok("[[1],[a],[]]", "[[1],[\"a\"],[]]");
    ok("[1,2,3,]", "[1,2,3]");
    bad("[,]", "expected a value, found ','", 1);
    bad("[1,,]", "expected a value, found ','", 3);
    bad("{,}", "expected a key", 1);
    bad("{a:1,,}", "expected a key", 5);
}

static void test_operations(void **state)
{
    (void)state;
    ok("bool(5)", "1b");
    ok("bool(0.0)", "0b");
    ok("bool(true)", "1b");
    ok("bool( 0b , )", "0b");
    ok("{a:bool(-2s)}", "{a:1b}");
    ok("uuid(\"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\")", "[I;-132296786,2112623056,-1486552928,-920753162]");
    ok("uuid('0-0-0-0-1')", "[I;0,0,0,1]");
    bad("foo(1)", "no operation foo with 1 argument", 0);
    bad("bool(1,2)", "no operation bool with 2 arguments", 0);
    bad("bool()", "no operation bool with 0 arguments", 0);
    bad("bool('x')", "bool() wants a number or boolean", 0);
    bad("{a:uuid(1)}", "uuid() wants a UUID string", 3);
    bad("uuid('1-2-3-4')", "uuid() wants a UUID string", 0);
    bad("uuid('123456789-0-0-0-0')", "uuid() wants a UUID string", 0);
    bad("uuid('1-2-3-4-5-6')", "uuid() wants a UUID string", 0); /* found by fuzz_snbt */
    bad("uuid('1-2-3-4-5-')", "uuid() wants a UUID string", 0);
    bad("bool(1", "expected ')' but the text ended", 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hex_and_binary),
        cmocka_unit_test(test_signed_unsigned_suffixes),
        cmocka_unit_test(test_underscores_and_zeros),
        cmocka_unit_test(test_floats),
        cmocka_unit_test(test_unquoted_strings_and_booleans),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_heterogeneous_lists),
        cmocka_unit_test(test_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
