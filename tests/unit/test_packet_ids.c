/* test_packet_ids.c: the generated Java packet-id table, checked against the
 * ids listed per era in FORMATS.md §0 (an independent summary of protocol
 * documentation), every era from 1.8 to 26.1. */
#include "support.h"

#include <string.h>

#include "mcchunk/java.h"

static void expect(uint32_t proto, mc_java_state st, const char *name, int id)
{
    int got = mc_java_packet_id(proto, st, MC_JAVA_TO_CLIENT, name);
    if (got != id)
        fail_msg("protocol %u %s: expected 0x%02x, got %d", proto, name, id, got);
    if (id >= 0)
        assert_string_equal(mc_java_packet_name(proto, st, MC_JAVA_TO_CLIENT, id), name);
}

static void test_chunk_data_ids(void **state)
{
    (void)state;
    static const struct { uint32_t proto; int id; } v[] = {
        {47, 0x21},  {107, 0x20}, {110, 0x20}, {340, 0x20}, {393, 0x22}, {404, 0x22},
        {477, 0x21}, {498, 0x21}, {573, 0x22}, {578, 0x22}, {735, 0x21}, {736, 0x21},
        {751, 0x20}, {754, 0x20}, {755, 0x22}, {756, 0x22}, {757, 0x22}, {758, 0x22},
        {759, 0x1F}, {760, 0x21}, {761, 0x20}, {762, 0x24}, {763, 0x24}, {764, 0x25},
        {765, 0x25}, {766, 0x27}, {767, 0x27}, {768, 0x28}, {769, 0x28}, {770, 0x27},
        {771, 0x27}, {772, 0x27}, {773, 0x2C}, {774, 0x2C}, {775, 0x2D},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        expect(v[i].proto, MC_JAVA_PLAY, "map_chunk", v[i].id);
}

static void test_companion_ids(void **state)
{
    (void)state;
    expect(47, MC_JAVA_PLAY, "map_chunk_bulk", 0x26);
    expect(107, MC_JAVA_PLAY, "map_chunk_bulk", -1); /* 1.9: bulk removed */
    expect(47, MC_JAVA_PLAY, "update_light", -1);
    expect(477, MC_JAVA_PLAY, "update_light", 0x24);
    expect(573, MC_JAVA_PLAY, "update_light", 0x25);
    expect(735, MC_JAVA_PLAY, "update_light", 0x24);
    expect(751, MC_JAVA_PLAY, "update_light", 0x23);
    expect(755, MC_JAVA_PLAY, "update_light", 0x25);
    expect(758, MC_JAVA_PLAY, "update_light", 0x25);
    expect(770, MC_JAVA_PLAY, "update_light", 0x2A);
    expect(773, MC_JAVA_PLAY, "update_light", 0x2F);
    expect(775, MC_JAVA_PLAY, "update_light", 0x30);
    expect(107, MC_JAVA_PLAY, "unload_chunk", 0x1D);
    expect(340, MC_JAVA_PLAY, "unload_chunk", 0x1D);
    expect(763, MC_JAVA_PLAY, "chunk_batch_start", -1);
    expect(764, MC_JAVA_PLAY, "chunk_batch_start", 0x0D);
    expect(764, MC_JAVA_PLAY, "chunk_batch_finished", 0x0C);
    expect(770, MC_JAVA_PLAY, "chunk_batch_start", 0x0C);
    expect(775, MC_JAVA_PLAY, "chunk_batch_finished", 0x0B);
    expect(762, MC_JAVA_PLAY, "chunk_biomes", 0x0D);
    /* States other than play, and the serverbound direction. */
    assert_int_equal(mc_java_packet_id(47, MC_JAVA_HANDSHAKING, MC_JAVA_TO_SERVER, "set_protocol"), 0);
    assert_int_equal(mc_java_packet_id(764, MC_JAVA_STATUS, MC_JAVA_TO_CLIENT, "server_info"), 0);
    assert_int_equal(mc_java_packet_id(764, MC_JAVA_CONFIGURATION, MC_JAVA_TO_CLIENT, "finish_configuration"), 2);
    /* 1.20.5 inserted Cookie Request at 0x00, moving it to 0x03. */
    assert_int_equal(mc_java_packet_id(766, MC_JAVA_CONFIGURATION, MC_JAVA_TO_CLIENT, "finish_configuration"), 3);
    assert_int_equal(mc_java_packet_id(763, MC_JAVA_CONFIGURATION, MC_JAVA_TO_CLIENT, "finish_configuration"), -1);
    assert_int_equal(mc_java_packet_id(764, MC_JAVA_PLAY, MC_JAVA_TO_SERVER, "chunk_batch_received"), 0x07);
}

static void test_unknown_and_range(void **state)
{
    (void)state;
    assert_int_equal(mc_java_packet_id(12345, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "map_chunk"), -1);
    assert_int_equal(mc_java_packet_id(47, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, "no_such_packet"), -1);
    assert_int_equal(mc_java_packet_id(47, (mc_java_state)9, MC_JAVA_TO_CLIENT, "map_chunk"), -1);
    assert_null(mc_java_packet_name(47, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, 0x7FF));
    assert_null(mc_java_packet_name(47, MC_JAVA_PLAY, MC_JAVA_TO_CLIENT, -1));
    const char *v = NULL;
    assert_true(mc_java_protocol_known(340, &v));
    assert_string_equal(v, "1.12.2");
    assert_true(mc_java_protocol_known(775, &v));
    assert_string_equal(v, "26.1");
    assert_false(mc_java_protocol_known(1, &v));
    /* The protocol list is ascending and covers 1.8 through 26.1. */
    uint32_t prev = 0, p;
    unsigned n = 0;
    bool has47 = false, has775 = false;
    for (unsigned i = 0; (p = mc_java_protocol_at(i)); i++, n++) {
        assert_true(p > prev);
        prev = p;
        has47 |= p == 47;
        has775 |= p == 775;
    }
    assert_true(has47 && has775);
    assert_true(n >= 40);
}

/* Every packet of every protocol, state and direction: its name leads back
 * to its id (the name -> id search finds the state's run of the table, and
 * the first and last packets of each run are where a bound slips). */
static void test_every_name_round_trips(void **state)
{
    (void)state;
    uint32_t p;
    size_t checked = 0;
    for (unsigned i = 0; (p = mc_java_protocol_at(i)); i++)
        for (int st = MC_JAVA_HANDSHAKING; st <= MC_JAVA_PLAY; st++)
            for (int dir = MC_JAVA_TO_CLIENT; dir <= MC_JAVA_TO_SERVER; dir++)
                for (int id = 0; id < 0x200; id++) {
                    const char *name = mc_java_packet_name(p, (mc_java_state)st, (mc_java_dir)dir, id);
                    if (!name)
                        continue;
                    const int back = mc_java_packet_id(p, (mc_java_state)st, (mc_java_dir)dir, name);
                    if (back != id)
                        fail_msg("protocol %u state %d dir %d: %s is 0x%02x, looked up as %d", p, st, dir, name,
                                 id, back);
                    checked++;
                }
    assert_true(checked > 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_data_ids),
        cmocka_unit_test(test_companion_ids),
        cmocka_unit_test(test_unknown_and_range),
        cmocka_unit_test(test_every_name_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
