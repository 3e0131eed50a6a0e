/* test_server_uuid.c: offline-mode UUIDs (OpenSSL's MD5 under our version and
 * variant bits) against values computed independently (node's crypto), names
 * cut at 64 bytes, and the text form. */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "server/uuid.h"

static void test_offline_uuid(void **state)
{
    (void)state;
    static const struct { const char *name, *uuid; } v[] = {
        {"Notch", "b50ad385-829d-3141-a216-7e7d7539ba7f"},
        {"bot_1", "9bd5f836-30e9-3c2a-8b1c-2762d89bb0e8"},
        {"a", "52428a0e-1e30-3cb1-976c-e728b2614047"},
        /* 64 bytes: the longest name hashed whole */
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "58d1b84e-d3bf-354d-84d1-81a95a843dff"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t u[16];
        char s[37];
        srv_offline_uuid(v[i].name, strlen(v[i].name), u);
        srv_uuid_format(u, s);
        assert_string_equal(s, v[i].uuid);
    }
}

static void test_long_name_cut(void **state)
{
    (void)state;
    char name[80];
    memset(name, 'a', sizeof name);
    uint8_t u64[16], u80[16];
    srv_offline_uuid(name, 64, u64);
    srv_offline_uuid(name, sizeof name, u80);
    assert_memory_equal(u64, u80, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offline_uuid),
        cmocka_unit_test(test_long_name_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
