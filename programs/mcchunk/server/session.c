/*
 * session.c: a player's session after login — the configuration phase
 * (1.20.2+) and play.
 *
 * Configuration: the Registry Data packets the vanilla server sends for the
 * client's version (generated, see join_data.h), the vanilla feature flag,
 * Finish Configuration; the client's own Finish Configuration moves it to
 * play. Play: Join Game (generated per protocol, view distance patched in),
 * abilities (creative flight, so a person can look around), center chunk
 * (1.14+), the "start waiting for level chunks" game event (1.20.3+), spawn
 * position, the player's position and health, each in its era's layout.
 * Keep-alive runs in both phases: sent every 15 s as vanilla does, and a
 * client that has not answered within 30 s is dropped.
 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/registry.h"
#include "server/join_data.h"
#include "server/session.h"
#include "server/world.h"

typedef struct session {
    uint64_t keepalive_id;
    uint64_t keepalive_sent_ms; /* 0: none outstanding */
    uint64_t last_keepalive_ms;
    bool configured; /* finish_configuration sent */
    bool packs_asked; /* select_known_packs sent, answer awaited (1.20.5+) */
    bool joined;
    double x, y, z;
    int32_t teleport_id;
    bool awaiting_teleport; /* movement is ignored until the client takes the teleport */
} session;

/* ------------------------------------------------------ generated data */

static const srv_join_data *join_data_for(uint32_t protocol)
{
    for (unsigned i = 0; i < srv_join_data_count; i++)
        if (srv_join_data_table[i].protocol == protocol)
            return &srv_join_data_table[i];
    return NULL;
}

/* Inflates a protocol's join data once and keeps it for the server's life. */
static const uint8_t *join_raw(srv_server *srv, const srv_join_data *jd)
{
    unsigned idx = (unsigned)(jd - srv_join_data_table);
    if (!srv->join_cache) {
        srv->join_cache = calloc(srv_join_data_count, sizeof *srv->join_cache);
        if (!srv->join_cache)
            return NULL;
    }
    if (!srv->join_cache[idx]) {
        uint8_t *raw = malloc(jd->raw_len);
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        size_t got = 0;
        if (!raw || !d ||
            libdeflate_zlib_decompress(d, jd->z, jd->z_len, raw, jd->raw_len, &got) != LIBDEFLATE_SUCCESS ||
            got != jd->raw_len) {
            free(raw);
            raw = NULL;
        }
        if (d)
            libdeflate_free_decompressor(d);
        srv->join_cache[idx] = raw;
    }
    return srv->join_cache[idx];
}

void srv_session_release_cache(srv_server *srv)
{
    if (!srv->join_cache)
        return;
    for (unsigned i = 0; i < srv_join_data_count; i++)
        free(srv->join_cache[i]);
    free(srv->join_cache);
    srv->join_cache = NULL;
}

/* Sends an already built packet (id + body). */
static void send_bytes(srv_conn *c, const uint8_t *p, size_t n)
{
    c->pkt.len = 0;
    mc_buf_put(&c->pkt, p, n);
    srv_conn_send(c, &c->pkt);
}

/* ------------------------------------------------------ configuration */

/* 1.20.5+: the server names the data packs it uses (vanilla: minecraft:core
 * at its version) and waits for the client to say which it has. Our
 * Registry Data always carries every value, so the answer only decides
 * when to go on. */
static void ask_known_packs(srv_conn *c, session *s)
{
    const srv_join_data *jd = join_data_for(c->protocol);
    if (!jd || !srv_conn_begin(c, MC_JAVA_CONFIGURATION, "select_known_packs"))
        return;
    mc_buf_put_varint(&c->pkt, 1);
    mc_buf_put_str_varint(&c->pkt, "minecraft", 9);
    mc_buf_put_str_varint(&c->pkt, "core", 4);
    mc_buf_put_str_varint(&c->pkt, jd->version, strlen(jd->version));
    srv_conn_send(c, &c->pkt);
    s->packs_asked = true;
}

static void start_configuration(srv_conn *c, session *s)
{
    const srv_join_data *jd = join_data_for(c->protocol);
    const uint8_t *raw = jd ? join_raw(c->srv, jd) : NULL;
    if (!raw) {
        srv_conn_disconnect(c, "Internal error: no join data for this version");
        return;
    }
    size_t off = jd->login_len;
    for (uint32_t i = 0; i < jd->registry_packets && !c->closing; i++) {
        uint32_t n = mc_load_u32le(raw + off);
        send_bytes(c, raw + off + 4, n);
        off += 4 + (size_t)n;
    }
    if (srv_conn_begin(c, MC_JAVA_CONFIGURATION, "feature_flags")) {
        mc_buf_put_varint(&c->pkt, 1);
        mc_buf_put_str_varint(&c->pkt, "minecraft:vanilla", 17);
        srv_conn_send(c, &c->pkt);
    }
    if (srv_conn_begin(c, MC_JAVA_CONFIGURATION, "finish_configuration"))
        srv_conn_send(c, &c->pkt);
    s->configured = true;
}

/* ---------------------------------------------------------------- play */

/* Block position as one long: 1.8-1.13 x:26 y:12 z:26; 1.14+ x:26 z:26 y:12. */
static uint64_t pack_position(const srv_java_era *era, int32_t x, int32_t y, int32_t z)
{
    uint64_t ux = (uint64_t)(uint32_t)x & 0x3FFFFFF, uy = (uint64_t)(uint32_t)y & 0xFFF,
             uz = (uint64_t)(uint32_t)z & 0x3FFFFFF;
    if (!era->position_xzy)
        return ux << 38 | uy << 26 | uz;
    return ux << 38 | uz << 12 | uy;
}

static void send_join(srv_conn *c, const srv_join_data *jd, const uint8_t *raw)
{
    c->pkt.len = 0;
    mc_buf_put(&c->pkt, raw, jd->login_len);
    int vd = c->srv->cfg->view_distance;
    if (jd->view_distance_at >= 0 && mc_buf_ok(&c->pkt))
        c->pkt.data[jd->view_distance_at] = (uint8_t)vd;
    if (jd->simulation_distance_at >= 0 && mc_buf_ok(&c->pkt))
        c->pkt.data[jd->simulation_distance_at] = (uint8_t)vd;
    srv_conn_send(c, &c->pkt);
}

static void send_abilities(srv_conn *c)
{
    if (!srv_conn_begin(c, MC_JAVA_PLAY, "abilities"))
        return;
    mc_buf_put_u8(&c->pkt, 0x02 | 0x04 | 0x08); /* flying, may fly, creative */
    mc_buf_put_f32be(&c->pkt, 0.05f);
    mc_buf_put_f32be(&c->pkt, 0.1f);
    srv_conn_send(c, &c->pkt);
}

static void send_spawn_position(srv_conn *c, int32_t x, int32_t y, int32_t z)
{
    if (!srv_conn_begin(c, MC_JAVA_PLAY, "spawn_position"))
        return;
    if (c->era.spawn_respawn_data) /* RespawnData = global position, yaw, pitch */
        mc_buf_put_str_varint(&c->pkt, "minecraft:overworld", 19);
    mc_buf_put_u64be(&c->pkt, pack_position(&c->era, x, y, z));
    if (c->era.spawn_angle)
        mc_buf_put_f32be(&c->pkt, 0.0f);
    if (c->era.spawn_respawn_data)
        mc_buf_put_f32be(&c->pkt, 0.0f);
    srv_conn_send(c, &c->pkt);
}

static void send_position(srv_conn *c, session *s)
{
    if (!srv_conn_begin(c, MC_JAVA_PLAY, "position"))
        return;
    s->teleport_id++;
    s->awaiting_teleport = true;
    if (c->era.teleport_velocity) { /* id first, velocity, u32 flags */
        mc_buf_put_varint(&c->pkt, s->teleport_id);
        mc_buf_put_f64be(&c->pkt, s->x);
        mc_buf_put_f64be(&c->pkt, s->y);
        mc_buf_put_f64be(&c->pkt, s->z);
        for (int i = 0; i < 3; i++)
            mc_buf_put_f64be(&c->pkt, 0.0);
        mc_buf_put_f32be(&c->pkt, 0.0f);
        mc_buf_put_f32be(&c->pkt, 0.0f);
        mc_buf_put_u32be(&c->pkt, 0);
    } else {
        mc_buf_put_f64be(&c->pkt, s->x);
        mc_buf_put_f64be(&c->pkt, s->y);
        mc_buf_put_f64be(&c->pkt, s->z);
        mc_buf_put_f32be(&c->pkt, 0.0f);
        mc_buf_put_f32be(&c->pkt, 0.0f);
        mc_buf_put_u8(&c->pkt, 0); /* absolute */
        if (c->era.teleport_id)
            mc_buf_put_varint(&c->pkt, s->teleport_id);
        if (c->era.teleport_dismount)
            mc_buf_put_u8(&c->pkt, 0);
    }
    srv_conn_send(c, &c->pkt);
}

static void join_world(srv_conn *c, session *s)
{
    const srv_join_data *jd = join_data_for(c->protocol);
    const uint8_t *raw = jd ? join_raw(c->srv, jd) : NULL;
    if (!raw) {
        srv_conn_disconnect(c, "Internal error: no join data for this version");
        return;
    }
    int32_t sx, sy, sz;
    srv_world_spawn(c->srv, &sx, &sy, &sz);
    s->x = sx + 0.5;
    s->y = sy;
    s->z = sz + 0.5;
    send_join(c, jd, raw);
    send_abilities(c);
    if (c->era.view_position && srv_conn_begin(c, MC_JAVA_PLAY, "update_view_position")) {
        mc_buf_put_varint(&c->pkt, sx >> 4);
        mc_buf_put_varint(&c->pkt, sz >> 4);
        srv_conn_send(c, &c->pkt);
    }
    if (c->era.wait_for_chunks_event && srv_conn_begin(c, MC_JAVA_PLAY, "game_state_change")) {
        mc_buf_put_u8(&c->pkt, 13); /* start waiting for level chunks */
        mc_buf_put_f32be(&c->pkt, 0.0f);
        srv_conn_send(c, &c->pkt);
    }
    srv_world_send_initial_chunks(c);
    send_spawn_position(c, sx, sy, sz);
    send_position(c, s);
    if (srv_conn_begin(c, MC_JAVA_PLAY, "update_health")) {
        mc_buf_put_f32be(&c->pkt, 20.0f);
        mc_buf_put_varint(&c->pkt, 20);
        mc_buf_put_f32be(&c->pkt, 5.0f);
        srv_conn_send(c, &c->pkt);
    }
    s->joined = true;
    srv_log(c->srv, MC_LOG_INFO, "%s joined (protocol %u, %s)", c->name, c->protocol, jd->version);
    srv_world_log_translation(c->srv, NULL, mc_registry_find_protocol((int32_t)c->protocol), jd->version);
    c->player.edition = "java";
    c->player.name = c->name;
    srv_player_join(c->srv, &c->player, s->x, s->y, s->z);
}

/* ---------------------------------------------------------- lifecycle */

void srv_session_begin(srv_conn *c)
{
    session *s = calloc(1, sizeof *s);
    if (!s) {
        srv_conn_close(c, "out of memory");
        return;
    }
    c->session = s;
    s->last_keepalive_ms = srv_server_clock(c->srv);
    if (c->state == MC_JAVA_CONFIGURATION && c->era.known_packs)
        ask_known_packs(c, s);
    else if (c->state == MC_JAVA_CONFIGURATION)
        start_configuration(c, s);
    else
        join_world(c, s);
}

static void send_keepalive(srv_conn *c, session *s, uint64_t now)
{
    mc_java_state st = (mc_java_state)c->state;
    if (!srv_conn_begin(c, st, "keep_alive"))
        return;
    s->keepalive_id = now ^ 0x5DEECE66DULL;
    if (st == MC_JAVA_PLAY && c->era.keepalive_varint)
        mc_buf_put_varint(&c->pkt, (int32_t)(s->keepalive_id & 0x7FFFFFFF));
    else
        mc_buf_put_u64be(&c->pkt, s->keepalive_id);
    srv_conn_send(c, &c->pkt);
    s->keepalive_sent_ms = now;
    s->last_keepalive_ms = now;
}

void srv_session_tick(srv_conn *c, uint64_t now)
{
    session *s = c->session;
    if (!s)
        return;
    if (s->keepalive_sent_ms && now - s->keepalive_sent_ms > 30000) {
        srv_conn_disconnect(c, "Timed out (no keep-alive answer)");
        return;
    }
    if (!s->keepalive_sent_ms && now - s->last_keepalive_ms >= 15000)
        send_keepalive(c, s, now);
}

/* "/tp X Y Z" (or "teleport"): the one command the server knows, so that a
 * person or a test can jump far and watch columns load and unload. Chat
 * arrives as "chat" (before 1.19, with the slash) or as "chat_command" /
 * "chat_command_signed" (1.19+, without it); the text is the first field. */
static void handle_command(srv_conn *c, session *s, const char *text, size_t len)
{
    char buf[256];
    if (len >= sizeof buf)
        return;
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *p = buf[0] == '/' ? buf + 1 : buf;
    double x = 0, y = 0, z = 0;
    char word[16];
    int wlen = 0, used = 0;
    if (sscanf(p, "%15s%n", word, &wlen) != 1 || (strcmp(word, "tp") && strcmp(word, "teleport")))
        return; /* not our command: chat */
    /* three numbers and nothing else, inside the world (+-30,000,000 blocks;
     * y -2048..4095); anything else is refused with a word in the log */
    if (sscanf(p + wlen, " %lf %lf %lf %n", &x, &y, &z, &used) != 3 || p[wlen + used] ||
        !(x >= -3.0e7 && x <= 3.0e7 && z >= -3.0e7 && z <= 3.0e7 && y >= -2048 && y < 4096)) {
        srv_log(c->srv, MC_LOG_WARN, "%s: /tp refused: %.60s (x and z must be numbers in -30000000..30000000, "
                                        "y in -2048..4095)", c->name, p);
        return;
    }
    s->x = x;
    s->y = y;
    s->z = z;
    srv_log(c->srv, MC_LOG_INFO, "%s teleported to %.1f %.1f %.1f", c->name, x, y, z);
    srv_player_moved(c->srv, &c->player, x, y, z);
    send_position(c, s);
    srv_world_player_moved(c, x, z);
}

void srv_session_packet(srv_conn *c, mc_reader *r, int id)
{
    session *s = c->session;
    const char *name = mc_java_packet_name(c->protocol, (mc_java_state)c->state, MC_JAVA_TO_SERVER, id);
    if (!name || !s) {
        srv_conn_disconnect(c, "Unknown packet");
        return;
    }
    if (!strcmp(name, "keep_alive")) {
        bool short_id = c->state == MC_JAVA_PLAY && c->era.keepalive_varint;
        uint64_t got = short_id ? (uint64_t)(uint32_t)mc_read_varint(r) : mc_read_u64be(r);
        uint64_t want = short_id ? (s->keepalive_id & 0x7FFFFFFF) : s->keepalive_id;
        if (!mc_reader_ok(r) || !s->keepalive_sent_ms || got != want) {
            srv_conn_disconnect(c, "Bad keep-alive");
            return;
        }
        s->keepalive_sent_ms = 0;
    } else if (c->state == MC_JAVA_CONFIGURATION && !strcmp(name, "select_known_packs")) {
        if (!s->packs_asked || s->configured) {
            srv_conn_disconnect(c, "Unexpected known packs");
            return;
        }
        start_configuration(c, s);
    } else if (c->state == MC_JAVA_CONFIGURATION && !strcmp(name, "finish_configuration")) {
        if (!s->configured) {
            srv_conn_disconnect(c, "Finished configuration before the server did");
            return;
        }
        c->state = MC_JAVA_PLAY;
        join_world(c, s);
    } else if (c->state == MC_JAVA_PLAY && s->joined && (!strcmp(name, "chat") || !strcmp(name, "chat_command") ||
                                                         !strcmp(name, "chat_command_signed"))) {
        size_t n;
        const uint8_t *text = mc_read_str_varint(r, 256 * 4, &n);
        if (mc_reader_ok(r) && (strcmp(name, "chat") || (n && text[0] == '/')))
            handle_command(c, s, (const char *)text, n);
    } else if (c->state == MC_JAVA_PLAY && s->joined && !strcmp(name, "teleport_confirm")) {
        /* 1.9+: the client took teleport `id`; its movement counts again. */
        int32_t tid = mc_read_varint(r);
        if (mc_reader_ok(r) && tid == s->teleport_id)
            s->awaiting_teleport = false;
    } else if (c->state == MC_JAVA_PLAY && s->joined) {
        if (s->awaiting_teleport && (!strcmp(name, "position") || !strcmp(name, "position_look"))) {
            /* Movement sent before the client applied the teleport would drag
             * the view back (vanilla ignores it too). 1.8 has no confirm: the
             * first position at the target ends the wait. */
            if (c->era.teleport_id)
                return;
            mc_reader peek = *r;
            double x = mc_read_f64be(&peek);
            mc_read_f64be(&peek);
            double z = mc_read_f64be(&peek);
            if (!mc_reader_ok(&peek) || x < s->x - 1.0 || x > s->x + 1.0 || z < s->z - 1.0 || z > s->z + 1.0)
                return;
            s->awaiting_teleport = false;
        }
        srv_world_player_packet(c, name, r);
    }
    /* Other packets (settings, brand, known packs, ...) are accepted and ignored. */
}

void srv_session_free(srv_conn *c)
{
    srv_player_leave(c->srv, &c->player);
    free(c->session);
    c->session = NULL;
}
