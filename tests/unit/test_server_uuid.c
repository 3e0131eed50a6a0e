/* test_server_uuid.c: MD5 against RFC 1321's test suite, and offline-mode
 * UUIDs against values computed independently (node's crypto). */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "server/md5.h"

static void hex(const uint8_t *d, char *out)
{
    for (int i = 0; i < 16; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_md5_rfc1321(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } v[] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "3b0c8ac703f828b04c6c197006d17218"},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "014842d480b571495a4a0363793f7367"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[16];
        char h[33];
        mc_md5(v[i].in, strlen(v[i].in), d);
        hex(d, h);
        assert_string_equal(h, v[i].out);
    }
}

static void test_offline_uuid(void **state)
{
    (void)state;
    static const struct { const char *name, *uuid; } v[] = {
        {"Notch", "b50ad385-829d-3141-a216-7e7d7539ba7f"},
        {"bot_1", "9bd5f836-30e9-3c2a-8b1c-2762d89bb0e8"},
        {"a", "52428a0e-1e30-3cb1-976c-e728b2614047"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t u[16];
        char s[37];
        mc_offline_uuid(v[i].name, strlen(v[i].name), u);
        mc_uuid_format(u, s);
        assert_string_equal(s, v[i].uuid);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md5_rfc1321),
        cmocka_unit_test(test_offline_uuid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
