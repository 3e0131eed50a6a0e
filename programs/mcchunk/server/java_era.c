/*
 * java_era.c: the one place where the server's Java packets' protocol
 * numbers live (java_era.h says what each switch means). Facts from
 * minecraft-data's protocol.json per version and FORMATS.md §1.
 */
#include "server/java_era.h"

srv_java_era srv_java_era_of(uint32_t p)
{
    srv_java_era e;
    e.login_uuid_string = p < 735;
    e.login_properties = p >= 759;
    e.login_strict_errors = p >= 766 && p <= 767;
    e.configuration = p >= 764;
    e.known_packs = p >= 766;
    e.text_nbt = p >= 765;
    e.position_xzy = p >= 477;
    e.view_position = p >= 477;
    e.chunk_batches = p >= 764;
    e.wait_for_chunks_event = p >= 765;
    e.spawn_angle = p >= 755;
    e.spawn_respawn_data = p >= 773;
    e.teleport_id = p >= 107;
    e.teleport_dismount = p >= 755 && p <= 761;
    e.teleport_velocity = p >= 768;
    e.keepalive_varint = p < 340;
    return e;
}
