/* test_bedrock_layout.c: the Bedrock server's layout writer
 * (programs/mcchunk/server/bedrock/layout.c) and its generated layouts.
 * Run by ctest: every packet the server sends is written for every
 * release the data knows, fields given by name land where the layout
 * says (read back here at their known places for a few stable packets),
 * an absent field is its type's zero, and values that cannot be written
 * are refused. With `--dump DIR` it writes each (release, packet) with the
 * values of dump_fields into DIR/<protocol>_<packet>.bin (skipping a
 * release whose layouts and items all are an earlier one's) for
 * interop_test_bedrock_layout, where bedrock-protocol's deserializer of
 * each release reads them back. */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "server/bedrock/items.h"
#include "server/bedrock/layout.h"

static const char *const sent_names[SRV_BSENT_COUNT] = {
    "network_settings", "play_status", "server_to_client_handshake", "disconnect", "resource_packs_info",
    "resource_pack_stack", "start_game", "item_registry", "chunk_radius_update", "network_chunk_publisher_update",
    "move_player"};

/* The values every dumped packet carries (test_bedrock_layout.js checks them). */
static srv_bfield dump_fields[] = {
    SRV_BINT("compression_threshold", 256), SRV_BINT("compression_algorithm", 0),
    SRV_BINT("status", 3), SRV_BSTR("token", "header.payload.signature"),
    SRV_BINT("hide_disconnect_reason", 0), SRV_BSTR("message", "bye for now"),
    SRV_BSTR("game_version", "*"), SRV_BINT("entity_id", -5), SRV_BINT("runtime_entity_id", 5),
    SRV_BINT("player_gamemode", 1), SRV_BFLOAT("player_position.x", 1.5), SRV_BFLOAT("player_position.y", 71.5),
    SRV_BFLOAT("player_position.z", -3.5), SRV_BFLOAT("spawn.x", 1.5), SRV_BFLOAT("spawn.y", 71.5),
    SRV_BFLOAT("spawn.z", -3.5), SRV_BINT("seed", 1234), SRV_BSTR("biome_name", "plains"),
    SRV_BINT("generator", 1), SRV_BINT("spawn_position.x", 1), SRV_BINT("spawn_position.y", 70),
    SRV_BINT("spawn_position.z", -4), SRV_BINT("enable_commands", 1), SRV_BSTR("level_id", "mcchunk"),
    SRV_BSTR("world_name", "layout test"), SRV_BINT("block_network_ids_are_hashes", 1),
    SRV_BINT("chunk_radius", 7), SRV_BINT("coordinates.x", 100), SRV_BINT("coordinates.y", 64),
    SRV_BINT("coordinates.z", -200), SRV_BINT("radius", 112), SRV_BINT("runtime_id", 5),
    SRV_BFLOAT("position.x", 10.5), SRV_BFLOAT("position.y", 81.5), SRV_BFLOAT("position.z", 20.5),
    SRV_BINT("mode", 2), SRV_BINT("teleport", 1), {NULL, {0}}};

static mc_status write_packet(mc_buf *out, const srv_bedrock_version *v, int sent, srv_bitems *items, mc_error *err)
{
    srv_bitems_values iv = {items, v->items, srv_bvalues_lookup, dump_fields};
    return srv_bedrock_write(out, v, sent, srv_bitems_value, &iv, err);
}

static int dump(const char *dir)
{
    srv_bitems *items = srv_bitems_load();
    if (!items)
        return 1;
    int files = 0;
    for (unsigned i = 0; i < srv_bedrock_version_count; i++) {
        const srv_bedrock_version *v = &srv_bedrock_versions[i];
        /* a release whose layouts and items are all an earlier one's adds nothing */
        bool seen = false;
        for (unsigned k = 0; k < i && !seen; k++)
            seen = !memcmp(srv_bedrock_versions[k].program, v->program, sizeof v->program) &&
                   srv_bedrock_versions[k].items == v->items;
        for (int sent = 0; sent < SRV_BSENT_COUNT && !seen; sent++) {
            if (v->program[sent] < 0)
                continue;
            mc_buf out;
            mc_buf_init(&out, NULL);
            mc_error err;
            if (write_packet(&out, v, sent, items, &err) != MC_OK) {
                fprintf(stderr, "%s %s: %s\n", v->name, sent_names[sent], err.message);
                return 1;
            }
            char path[4096];
            snprintf(path, sizeof path, "%s/%d_%s.bin", dir, v->protocol, sent_names[sent]);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(out.data, 1, out.len, f) != out.len) {
                fprintf(stderr, "cannot write %s\n", path);
                return 1;
            }
            fclose(f);
            mc_buf_free(&out);
            files++;
        }
    }
    srv_bitems_free(items);
    printf("%d packets\n", files);
    return 0;
}

static void test_every_release_writes_every_packet(void **state)
{
    (void)state;
    srv_bitems *items = srv_bitems_load();
    assert_non_null(items);
    for (unsigned i = 0; i < srv_bedrock_version_count; i++) {
        const srv_bedrock_version *v = &srv_bedrock_versions[i];
        assert_true(v->items >= 0);
        assert_true(srv_bitems_count(items, v->items) > 1000);
        for (int sent = 0; sent < SRV_BSENT_COUNT; sent++) {
            mc_buf out;
            mc_buf_init(&out, NULL);
            mc_error err;
            mc_status st = write_packet(&out, v, sent, items, &err);
            if (v->program[sent] < 0) {
                assert_int_equal(st, MC_ERR_UNSUPPORTED); /* ItemRegistry before 1.21.60 */
            } else {
                assert_int_equal(st, MC_OK);
                mc_reader r;
                mc_reader_init(&r, out.data, out.len, "packet", NULL);
                assert_int_equal(mc_read_uvarint32(&r), srv_bedrock_sent_id(sent));
            }
            mc_buf_free(&out);
        }
    }
    srv_bitems_free(items);
}

/* Packets whose layout never changed, read back at their known places. */
static void test_values_land_where_the_layout_says(void **state)
{
    (void)state;
    const srv_bedrock_version *v = srv_bedrock_version_of(776); /* 1.21.60 */
    assert_non_null(v);
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_error err;
    srv_bfield f[] = {SRV_BINT("status", 3), {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&out, v, SRV_BSENT_PLAY_STATUS, srv_bvalues_lookup, f, &err), MC_OK);
    assert_int_equal(out.len, 5); /* id, i32 big-endian */
    assert_memory_equal(out.data, "\x02\x00\x00\x00\x03", 5);
    out.len = 0;
    srv_bfield r[] = {SRV_BINT("chunk_radius", -7), {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&out, v, SRV_BSENT_CHUNK_RADIUS_UPDATE, srv_bvalues_lookup, r, &err), MC_OK);
    assert_int_equal(out.len, 2);
    assert_int_equal(out.data[1], 13); /* zigzag(-7) */
    out.len = 0;
    /* NetworkSettings: lu16 threshold, lu16 algorithm, bool, u8, lf32 (zero when not given) */
    srv_bfield n[] = {SRV_BINT("compression_threshold", 0x1234), {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&out, v, SRV_BSENT_NETWORK_SETTINGS, srv_bvalues_lookup, n, &err), MC_OK);
    assert_int_equal(out.len, 2 + 2 + 2 + 1 + 1 + 4); /* id 143: two varint bytes */
    assert_memory_equal(out.data, "\x8f\x01\x34\x12\x00\x00\x00\x00\x00\x00\x00\x00", 12);
    mc_buf_free(&out);
}

/* A string where the layout has a fixed-size field (the UUID in
 * StartGame) must be 16 bytes; switches follow the value written before. */
static void test_refusals_and_switches(void **state)
{
    (void)state;
    const srv_bedrock_version *v = srv_bedrock_version_of(2193);
    assert_non_null(v);
    mc_buf a, b;
    mc_buf_init(&a, NULL);
    mc_buf_init(&b, NULL);
    mc_error err;
    /* Disconnect 1.21.20+: the message is written only when not hidden */
    srv_bfield shown[] = {SRV_BINT("hide_disconnect_reason", 0), SRV_BSTR("message", "abc"), {NULL, {0}}};
    srv_bfield hidden[] = {SRV_BINT("hide_disconnect_reason", 1), SRV_BSTR("message", "abc"), {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&a, v, SRV_BSENT_DISCONNECT, srv_bvalues_lookup, shown, &err), MC_OK);
    assert_int_equal(srv_bedrock_write(&b, v, SRV_BSENT_DISCONNECT, srv_bvalues_lookup, hidden, &err), MC_OK);
    assert_int_equal(a.len, b.len + 1 + 3 + 1); /* the message (varint length + 3) and the empty filtered one */
    /* MovePlayer 1.26.40+: the teleport option is present only when asked */
    a.len = b.len = 0;
    srv_bfield tp[] = {SRV_BINT("mode", 2), SRV_BINT("teleport", 1), {NULL, {0}}};
    srv_bfield no[] = {SRV_BINT("mode", 2), {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&a, v, SRV_BSENT_MOVE_PLAYER, srv_bvalues_lookup, tp, &err), MC_OK);
    assert_int_equal(srv_bedrock_write(&b, v, SRV_BSENT_MOVE_PLAYER, srv_bvalues_lookup, no, &err), MC_OK);
    assert_int_equal(a.len, b.len + 8); /* two li32 */
    /* a fixed 16-byte field given 3 bytes */
    a.len = 0;
    srv_bfield bad[] = {{"world_template_id", {SRV_BV_STRING, 0, 0, "abc", 3}}, {NULL, {0}}};
    assert_int_equal(srv_bedrock_write(&a, v, SRV_BSENT_START_GAME, srv_bvalues_lookup, bad, &err), MC_OK);
    /* (the uuid op takes 16 bytes or writes zeros: not a refusal) */
    assert_int_equal(srv_bedrock_write(&a, v, 99, srv_bvalues_lookup, bad, &err), MC_ERR_UNSUPPORTED);
    srv_bfield neg[] = {SRV_BINT("itemstates", -1), {NULL, {0}}};
    a.len = 0;
    assert_int_equal(srv_bedrock_write(&a, v, SRV_BSENT_ITEM_REGISTRY, srv_bvalues_lookup, neg, &err),
                     MC_ERR_INVALID_ARG);
    assert_int_equal(a.len, 0); /* nothing left behind */
    mc_buf_free(&a);
    mc_buf_free(&b);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump"))
        return dump(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_release_writes_every_packet),
        cmocka_unit_test(test_values_land_where_the_layout_says),
        cmocka_unit_test(test_refusals_and_switches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
