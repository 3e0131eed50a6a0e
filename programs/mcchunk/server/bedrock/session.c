/*
 * session.c: one Bedrock client, from its RakNet connection to play.
 *
 * The states follow the protocol: RequestNetworkSettings (1.19.30+; the
 * answer turns compression on) -> Login (the identity is read, not
 * verified: offline mode, logged as such; the protocol must be one the
 * generated data knows) -> with --bedrock-encryption the handshake
 * (ServerToClientHandshake carries the salt and our key; everything after
 * it is encrypted, and the client's ClientToServerHandshake proves it
 * followed) -> PlayStatus login_success -> ResourcePacksInfo and
 * ResourcePackStack, both empty, each answered by the client ->
 * StartGame (and from 1.21.60 ItemRegistry) -> the client's
 * RequestChunkRadius (kept when it comes early, after ResourcePacksInfo, as
 * bedrock-protocol's client sends it) -> ChunkRadiusUpdated, then the
 * chunks (chunks.c) ->
 * PlayStatus player_spawn once the nearest are out -> the client's
 * SetLocalPlayerAsInitialized -> play: movement (MovePlayer,
 * PlayerAuthInput), SubChunkRequests, the blob cache, /tp.
 *
 * Every packet the server sends is written from its version's layout
 * (layout.h) with the values given here by field name; packets of one
 * handler go out as one batch. Anything a client sends out of turn, or
 * that does not parse, ends its session with the reason in the log;
 * packets the server has no use for are ignored, as a game server would.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/bedrock.h"
#include "mcchunk/registry.h"
#include "server/bedrock/items.h"
#include "server/bedrock/session.h"
#include "server/world.h"
#include "server/uuid.h"

/* The player's eye is this far above its feet (positions on the wire are
 * the eye's). */
#define EYE_HEIGHT 1.62

/* Play status codes (play_status). */
enum {
    STATUS_LOGIN_SUCCESS = 0,
    STATUS_FAILED_CLIENT = 1, /* the client is too old */
    STATUS_FAILED_SPAWN = 2,  /* the server is too old (the client is too new) */
    STATUS_PLAYER_SPAWN = 3,
    STATUS_SERVER_FULL = 7
};

/* ------------------------------------------------------------ lifecycle */

static srv_server *server_of(const srv_bsession *s)
{
    return s->client.sh->srv;
}

static void session_free(srv_bsession *s)
{
    srv_server *srv = server_of(s);
    srv_bchunks_free(&s->chunks);
    srv_player_leave(srv, &s->player);
    if (s->counted)
        srv->online--;
    srv_bclient_free(&s->client);
    free(s);
}

/* Calls from outside (RakNet, the world's turns) are bracketed: a session
 * that goes inside one is freed at its end. */
static void enter(srv_bsession *s)
{
    s->busy++;
}

static void leave(srv_bsession *s)
{
    if (--s->busy == 0 && s->free_later)
        session_free(s);
}

static void spawn_ready(void *user);
static void chunk_radius(srv_bsession *s, int32_t wanted);

/* The world gives the client its go (its share of column work). */
static void work_turn(srv_work_client *wc)
{
    srv_bchunks *ch = (srv_bchunks *)((char *)wc - offsetof(srv_bchunks, work));
    srv_bsession *s = ch->user;
    enter(s);
    srv_bchunks_pump(ch);
    leave(s);
}

srv_bsession *srv_bsession_new(srv_bshared *sh, srv_rak_peer *peer)
{
    srv_bsession *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->state = SRV_BS_NEW;
    srv_bclient_init(&s->client, sh, peer, s->login.name);
    /* RakNet 10 is spoken before 1.19.30, whose clients compress from the
     * first batch (there is no RequestNetworkSettings) */
    s->client.codec.compressing = srv_rak_peer_protocol(peer) < 11;
    s->connected_ms = srv_server_clock(sh->srv);
    srv_bchunks_init(&s->chunks, &s->client);
    s->chunks.user = s;
    s->chunks.spawn_ready = spawn_ready;
    s->chunks.work.turn = work_turn;
    return s;
}

void srv_bsession_gone(srv_bsession *s, const char *reason)
{
    if (!s->client.gone && s->login.name[0])
        srv_log(server_of(s), MC_LOG_INFO, "bedrock %s %s disconnected: %s", s->client.peer_name, s->login.name,
                reason);
    s->client.gone = true;
    s->client.peer = NULL;
    if (s->busy)
        s->free_later = true;
    else
        session_free(s);
}

size_t srv_bsession_memory(const srv_bsession *s)
{
    return sizeof *s + s->client.out.cap + s->client.msg.cap + srv_bchunks_memory(&s->chunks);
}

static bool write_packet(srv_bsession *s, int sent, srv_bvalue_fn values, void *ctx)
{
    return srv_bclient_write(&s->client, sent, values, ctx);
}

static void kick(srv_bsession *s, const char *reason, bool warn)
{
    srv_bclient_kick(&s->client, reason, warn);
}

static void play_status(srv_bsession *s, int status)
{
    srv_bfield f[] = {SRV_BINT("status", status), {NULL, {0}}};
    write_packet(s, SRV_BSENT_PLAY_STATUS, srv_bvalues_lookup, f);
}

/* A login the server cannot take: PlayStatus with the reason's code
 * (what the client shows), then the disconnect. */
static void refuse(srv_bsession *s, int status, const char *why)
{
    play_status(s, status);
    kick(s, why, false);
}

/* ------------------------------------------------------------- login */

static void network_settings(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "request_network_settings", NULL);
    int32_t protocol = mc_read_i32be(&r);
    if (!mc_reader_ok(&r)) {
        kick(s, "Malformed RequestNetworkSettings", true);
        return;
    }
    const srv_bedrock_version *v = srv_bedrock_version_of(protocol);
    char why[160];
    if (!v) {
        bool old = protocol < srv_bedrock_version_first()->protocol;
        snprintf(why, sizeof why, "Unsupported Bedrock protocol %d; this server speaks %s to %s", protocol,
                 srv_bedrock_version_first()->name, srv_bedrock_version_last()->name);
        refuse(s, old ? STATUS_FAILED_CLIENT : STATUS_FAILED_SPAWN, why);
        return;
    }
    s->client.v = v;
    srv_bfield f[] = {SRV_BINT("compression_threshold", 256), SRV_BINT("compression_algorithm", 0), {NULL, {0}}};
    write_packet(s, SRV_BSENT_NETWORK_SETTINGS, srv_bvalues_lookup, f);
    s->client.codec.compressing = false; /* whatever RakNet's protocol suggested: this one goes raw */
    srv_bclient_flush(&s->client); /* the last uncompressed batch */
    s->client.codec.protocol = protocol;
    s->client.codec.compressing = true;
    s->client.codec.threshold = 256;
    s->client.codec.algorithm_byte = protocol >= MC_BEDROCK_PROTO_1_20_60;
    s->state = SRV_BS_LOGIN;
}

static void send_packs_info(srv_bsession *s)
{
    play_status(s, STATUS_LOGIN_SUCCESS);
    srv_bfield none[] = {{NULL, {0}}};
    write_packet(s, SRV_BSENT_RESOURCE_PACKS_INFO, srv_bvalues_lookup, none);
    s->state = SRV_BS_PACKS;
}

static void start_encryption(srv_bsession *s)
{
    mc_buf token;
    mc_buf_init(&token, NULL);
    char why[160];
    s->client.codec.cipher = NULL;
    srv_bcipher *c = srv_bcipher_new(s->login.key, strlen(s->login.key), s->client.v->protocol < 431, &token, why, sizeof why);
    if (!c) {
        mc_buf_free(&token);
        kick(s, why, true);
        return;
    }
    srv_bfield f[] = {{"token", {SRV_BV_STRING, 0, 0, token.data, token.len}}, {NULL, {0}}};
    write_packet(s, SRV_BSENT_SERVER_TO_CLIENT_HANDSHAKE, srv_bvalues_lookup, f);
    srv_bclient_flush(&s->client); /* in the clear; what follows is encrypted */
    mc_buf_free(&token);
    s->client.codec.cipher = c;
    s->state = SRV_BS_HANDSHAKE;
}

static void login(srv_bsession *s, const uint8_t *body, size_t len)
{
    srv_server *srv = server_of(s);
    char why[200];
    if (!srv_blogin_read(body, len, &s->login, why, sizeof why)) {
        /* Below 1.19.30 the Login is the first packet, and its first field
         * (read before what is malformed) is where the client says its
         * release: one the server speaks gets the reason in its layout. */
        if (!s->client.v && len >= 4)
            s->client.v = srv_bedrock_version_of(s->login.protocol);
        kick(s, why, true);
        return;
    }
    const srv_bedrock_version *v = srv_bedrock_version_of(s->login.protocol);
    if (!v || (s->client.v && s->client.v != v)) {
        bool old = s->login.protocol < srv_bedrock_version_first()->protocol;
        snprintf(why, sizeof why, "Unsupported Bedrock protocol %d; this server speaks %s to %s", s->login.protocol,
                 srv_bedrock_version_first()->name, srv_bedrock_version_last()->name);
        refuse(s, old ? STATUS_FAILED_CLIENT : STATUS_FAILED_SPAWN, why);
        return;
    }
    s->client.v = v;
    s->client.codec.protocol = v->protocol;
    if (!mc_registry_find_bedrock(v->name)) { /* minecraft-data has no block states for it */
        snprintf(why, sizeof why, "Bedrock %s is not served: no block palette is known for it (1.16.220 and newer are)",
                 v->name);
        refuse(s, STATUS_FAILED_CLIENT, why);
        return;
    }
    if (srv->online >= srv->cfg->max_players) {
        refuse(s, STATUS_SERVER_FULL, "The server is full");
        return;
    }
    char uuid[37];
    srv_uuid_format(s->login.uuid, uuid);
    srv_log(srv, MC_LOG_INFO,
            "bedrock %s logging in as %s (%s, xuid %s, Bedrock %s, protocol %d, RakNet %u%s%s): identity read "
            "from the login, NOT verified (offline mode)",
            s->client.peer_name, s->login.name, uuid, s->login.xuid[0] ? s->login.xuid : "none", v->name, v->protocol,
            srv_rak_peer_protocol(s->client.peer), s->login.device[0] ? ", " : "", s->login.device);
    s->counted = true;
    srv->online++;
    if (server_of(s)->cfg->bedrock_encryption)
        start_encryption(s);
    else
        send_packs_info(s);
}

/* --------------------------------------------------------- start game */

static void start_game(srv_bsession *s)
{
    srv_server *srv = server_of(s);
    int32_t sx, sy, sz;
    srv_world_spawn(srv, &sx, &sy, &sz);
    s->chunks.x = sx + 0.5;
    s->chunks.y = sy;
    s->chunks.z = sz + 0.5;
    s->entity_id = ++s->client.sh->next_entity_id;
    bool hashed = srv_bshared_hashed(s->client.sh) && s->client.v->protocol >= MC_BEDROCK_PROTO_1_19_80;
    const char *name = srv->cfg->motd;
    srv_bfield f[] = {
        SRV_BINT("entity_id", s->entity_id), SRV_BINT("runtime_entity_id", s->entity_id),
        SRV_BINT("player_gamemode", 1), /* creative: a person can fly and look around */
        SRV_BFLOAT("player_position.x", s->chunks.x), SRV_BFLOAT("player_position.y", s->chunks.y + EYE_HEIGHT),
        SRV_BFLOAT("player_position.z", s->chunks.z), SRV_BFLOAT("spawn.x", s->chunks.x), SRV_BFLOAT("spawn.y", s->chunks.y + EYE_HEIGHT),
        SRV_BFLOAT("spawn.z", s->chunks.z), SRV_BINT("seed", (int64_t)srv->cfg->seed), SRV_BSTR("biome_name", "plains"),
        SRV_BINT("dimension", MC_BEDROCK_OVERWORLD), SRV_BINT("generator", 1), SRV_BINT("world_gamemode", 1),
        SRV_BINT("difficulty", 0), SRV_BINT("spawn_position.x", sx), SRV_BINT("spawn_position.y", sy),
        SRV_BINT("spawn_position.z", sz), SRV_BINT("achievements_disabled", 1), SRV_BINT("day_cycle_stop_time", -1),
        SRV_BINT("is_multiplayer", 1), SRV_BINT("broadcast_to_lan", 1), SRV_BINT("xbox_live_broadcast_mode", 4),
        SRV_BINT("platform_broadcast_mode", 4), SRV_BINT("enable_commands", 1),
        SRV_BINT("permission_level", 1), /* member */
        SRV_BINT("server_chunk_tick_range", 4), SRV_BSTR("game_version", s->client.v->name),
        SRV_BINT("is_new_nether", 1), SRV_BSTR("level_id", "mcchunk"), SRV_BSTR("world_name", name),
        SRV_BINT("movement_authority", 1), /* server: PlayerAuthInput every tick */
        SRV_BSTR("multiplayer_correlation_id", "mcchunk"), SRV_BSTR("engine", "mcchunk"),
        SRV_BINT("block_network_ids_are_hashes", hashed), SRV_BSTR("server_identifier", "mcchunk"),
        SRV_BSTR("world_identifier", "mcchunk"), {NULL, {0}}};
    srv_bitems *items = srv_bshared_items(s->client.sh);
    if (!items) {
        kick(s, "Server error: no item palette", true);
        return;
    }
    srv_bitems_values iv = {items, s->client.v->items, srv_bvalues_lookup, f};
    bool registry = s->client.v->program[SRV_BSENT_ITEM_REGISTRY] >= 0; /* 1.21.60+: items in their own packet */
    srv_bitems_values none = {items, -1, srv_bvalues_lookup, f};
    if (!write_packet(s, SRV_BSENT_START_GAME, srv_bitems_value, registry ? &none : &iv) ||
        (registry && !write_packet(s, SRV_BSENT_ITEM_REGISTRY, srv_bitems_value, &iv))) {
        kick(s, "Server error: cannot write StartGame", true);
        return;
    }
    s->state = SRV_BS_RADIUS;
    if (s->early_radius)
        chunk_radius(s, s->early_radius);
}

static void pack_response(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "resource_pack_client_response", NULL);
    /* 1.26.40+: a varint (0 refused .. 3 completed); before: a byte (0 none, 1 refused .. 4 completed) */
    bool varint = s->client.v->protocol >= MC_BEDROCK_PROTO_1_26_40;
    uint32_t status = varint ? mc_read_uvarint32(&r) : mc_read_u8(&r);
    if (!mc_reader_ok(&r)) {
        kick(s, "Malformed ResourcePackClientResponse", true);
        return;
    }
    uint32_t have_all = varint ? 2 : 3, completed = varint ? 3 : 4, send_packs = varint ? 1 : 2;
    if (status == send_packs) {
        kick(s, "The client asks for resource packs; this server has none", true);
    } else if (s->state == SRV_BS_PACKS && (status == have_all || status == completed)) {
        srv_bfield f[] = {SRV_BSTR("game_version", "*"), {NULL, {0}}};
        write_packet(s, SRV_BSENT_RESOURCE_PACK_STACK, srv_bvalues_lookup, f);
        s->state = SRV_BS_STACK;
    } else if (s->state == SRV_BS_STACK) { /* completed, or refused: there is nothing to refuse */
        start_game(s);
    }
}

/* ------------------------------------------------------------ in game */

static void spawn_ready(void *user)
{
    srv_bsession *s = user;
    play_status(s, STATUS_PLAYER_SPAWN);
    srv_bclient_flush(&s->client);
    s->state = SRV_BS_INITIALIZING;
}

/* The radius a RequestChunkRadius asks for (0 and a kick when malformed). */
static int32_t radius_asked(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "request_chunk_radius", NULL);
    int32_t wanted = mc_read_zigzag32(&r);
    if (!mc_reader_ok(&r)) {
        kick(s, "Malformed RequestChunkRadius", true);
        return 0;
    }
    return wanted < 1 ? 1 : wanted;
}

static void chunk_radius(srv_bsession *s, int32_t wanted)
{
    int radius = srv_bchunks_radius(&s->chunks, wanted);
    if (s->client.gone)
        return;
    srv_bfield f[] = {SRV_BINT("chunk_radius", radius), {NULL, {0}}};
    write_packet(s, SRV_BSENT_CHUNK_RADIUS_UPDATE, srv_bvalues_lookup, f);
    if (s->state == SRV_BS_RADIUS) {
        s->state = SRV_BS_SPAWNING;
        s->chunks.spawn_pending = true;
    }
    srv_bchunks_pump(&s->chunks);
}

static void initialized(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "set_local_player_as_initialized", NULL);
    uint64_t id = mc_read_uvarint64(&r);
    if (!mc_reader_ok(&r) || id != (uint64_t)s->entity_id) {
        kick(s, "SetLocalPlayerAsInitialized for another entity", true);
        return;
    }
    s->state = SRV_BS_PLAYING;
    srv_server *srv = server_of(s);
    srv_log(srv, MC_LOG_INFO, "%s joined (Bedrock %s, protocol %d, %s ids, blob cache %s%s, radius %d)", s->login.name,
            s->client.v->name, s->client.v->protocol, srv_bshared_hashed(s->client.sh) && s->client.v->protocol >= MC_BEDROCK_PROTO_1_19_80 ? "hashed" : "index",
            s->chunks.cache ? "on" : "off", s->client.codec.cipher ? ", encrypted" : "", s->chunks.radius);
    s->player.edition = "bedrock";
    s->player.name = s->login.name;
    srv_player_join(srv, &s->player, s->chunks.x, s->chunks.y, s->chunks.z);
    char label[48];
    snprintf(label, sizeof label, "Bedrock %s", s->client.v->name);
    srv_world_log_translation(srv, NULL, mc_registry_find_bedrock(s->client.v->name), label);
}

/* The player is at (x, eye y, z): a position inside the world moves it. */
static void moved(srv_bsession *s, double x, double eye_y, double z)
{
    if (!(fabs(x) < 3.0e7) || !(fabs(z) < 3.0e7) || !(fabs(eye_y) < 1.0e5))
        return; /* not a place in the world (NaN included): ignored */
    double y = eye_y - EYE_HEIGHT;
    srv_player_moved(server_of(s), &s->player, x, y, z);
    srv_bchunks_moved(&s->chunks, x, y, z);
}

static void movement(srv_bsession *s, uint32_t id, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "movement", NULL);
    if (id == SRV_BPID_MOVE_PLAYER) {
        uint64_t rid = mc_read_uvarint64(&r);
        if (rid != (uint64_t)s->entity_id)
            return; /* another entity (a vehicle): not the player */
    } else { /* PlayerAuthInput: pitch, yaw, then the position */
        mc_read_f32le(&r);
        mc_read_f32le(&r);
    }
    double x = mc_read_f32le(&r), y = mc_read_f32le(&r), z = mc_read_f32le(&r);
    if (mc_reader_ok(&r))
        moved(s, x, y, z);
}

/* "/tp X Y Z": the server's one command, as on the Java side. */
static void command(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "command_request", NULL);
    size_t n;
    const uint8_t *text = mc_read_str_uvarint(&r, &n);
    char buf[256];
    if (!text || n >= sizeof buf)
        return;
    memcpy(buf, text, n);
    buf[n] = '\0';
    double x, y, z;
    int used = 0;
    srv_server *srv = server_of(s);
    if (strncmp(buf, "/tp ", 4) && strncmp(buf, "/teleport ", 10))
        return;
    const char *args = strchr(buf, ' ');
    if (sscanf(args, " %lf %lf %lf %n", &x, &y, &z, &used) != 3 || args[used] ||
        !(x >= -3.0e7 && x <= 3.0e7 && z >= -3.0e7 && z <= 3.0e7 && y >= -2048 && y < 4096)) {
        srv_log(srv, MC_LOG_WARN,
                "%s: /tp refused: %.60s (x and z must be numbers in -30000000..30000000, y in -2048..4095)",
                s->login.name, buf);
        return;
    }
    srv_log(srv, MC_LOG_INFO, "%s teleported to %.1f %.1f %.1f", s->login.name, x, y, z);
    srv_bfield f[] = {SRV_BINT("runtime_id", s->entity_id), SRV_BFLOAT("position.x", x),
                      SRV_BFLOAT("position.y", y + EYE_HEIGHT), SRV_BFLOAT("position.z", z),
                      SRV_BINT("mode", 2), /* teleport */
                      SRV_BINT("teleport", 1), {NULL, {0}}};
    write_packet(s, SRV_BSENT_MOVE_PLAYER, srv_bvalues_lookup, f);
    moved(s, x, y + EYE_HEIGHT, z);
}

static void cache_status(srv_bsession *s, const uint8_t *body, size_t len)
{
    mc_reader r;
    mc_reader_init(&r, body, len, "client_cache_status", NULL);
    bool on = mc_read_u8(&r) != 0;
    if (!mc_reader_ok(&r))
        return;
    srv_bchunks_set_cache(&s->chunks, on); /* the next columns and answers in the new form */
}

/* ------------------------------------------------------------ dispatch */

/* Which packets each state takes (anything else before play is out of
 * turn); in play every packet is taken. */
static bool expected(const srv_bsession *s, uint32_t id)
{
    switch (s->state) {
    case SRV_BS_NEW: return id == SRV_BPID_REQUEST_NETWORK_SETTINGS || id == SRV_BPID_LOGIN;
    case SRV_BS_LOGIN: return id == SRV_BPID_LOGIN;
    case SRV_BS_HANDSHAKE: return id == SRV_BPID_CLIENT_TO_SERVER_HANDSHAKE;
    default: return true;
    }
}

static void handle(srv_bsession *s, uint32_t id, const uint8_t *body, size_t len)
{
    if (!expected(s, id)) {
        char why[96];
        snprintf(why, sizeof why, "Unexpected packet %u while logging in", id);
        kick(s, why, true);
        return;
    }
    bool joined = s->state >= SRV_BS_RADIUS;
    switch (id) {
    case SRV_BPID_REQUEST_NETWORK_SETTINGS: network_settings(s, body, len); break;
    case SRV_BPID_LOGIN: login(s, body, len); break;
    case SRV_BPID_CLIENT_TO_SERVER_HANDSHAKE:
        if (s->state == SRV_BS_HANDSHAKE)
            send_packs_info(s);
        break;
    case SRV_BPID_RESOURCE_PACK_CLIENT_RESPONSE: pack_response(s, body, len); break;
    case SRV_BPID_CLIENT_CACHE_STATUS: cache_status(s, body, len); break;
    case SRV_BPID_REQUEST_CHUNK_RADIUS: {
        /* bedrock-protocol's client asks half a second after ResourcePacksInfo,
         * which on a busy server can be before StartGame: kept until then */
        int32_t wanted = radius_asked(s, body, len);
        if (wanted && joined)
            chunk_radius(s, wanted);
        else if (wanted && s->state >= SRV_BS_PACKS)
            s->early_radius = wanted;
        break;
    }
    case SRV_BPID_SET_LOCAL_PLAYER_AS_INITIALIZED:
        if (s->state == SRV_BS_INITIALIZING)
            initialized(s, body, len);
        break;
    case SRV_BPID_MOVE_PLAYER:
    case SRV_BPID_PLAYER_AUTH_INPUT:
        if (joined)
            movement(s, id, body, len);
        break;
    case SRV_BPID_SUBCHUNK_REQUEST:
        if (joined)
            srv_bchunks_request(&s->chunks, body, len);
        break;
    case SRV_BPID_CLIENT_CACHE_BLOB_STATUS:
        if (joined)
            srv_bchunks_blob_status(&s->chunks, body, len);
        break;
    case SRV_BPID_COMMAND_REQUEST:
        if (s->state == SRV_BS_PLAYING)
            command(s, body, len);
        break;
    case SRV_BPID_DISCONNECT: kick(s, "left the game", false); break;
    default: break; /* a packet the server has no use for */
    }
}

/* Decodes a batch; at the first batch of a client that spoke RakNet 11
 * but compresses (or the other way round) the other framing is tried. */
static bool open_batch(srv_bsession *s, uint8_t *data, size_t len, char *why, size_t why_len)
{
    srv_bcodec_shared *sh = &s->client.sh->codec;
    if (s->state != SRV_BS_NEW || s->client.codec.cipher)
        return srv_bcodec_open(&s->client.codec, sh, data, len, why, why_len);
    mc_buf copy; /* opening may not change the bytes without a cipher, but keep them for the retry */
    mc_buf_init(&copy, NULL);
    mc_buf_put(&copy, data, len);
    bool ok = srv_bcodec_open(&s->client.codec, sh, data, len, why, why_len);
    if (!ok && mc_buf_ok(&copy)) {
        s->client.codec.compressing = !s->client.codec.compressing;
        ok = srv_bcodec_open(&s->client.codec, sh, copy.data, copy.len, why, why_len);
        if (!ok)
            s->client.codec.compressing = !s->client.codec.compressing;
    }
    mc_buf_free(&copy);
    return ok;
}

void srv_bsession_message(srv_bsession *s, uint8_t *data, size_t len)
{
    if (s->client.gone)
        return;
    enter(s);
    char why[160];
    if (!open_batch(s, data, len, why, sizeof why)) {
        kick(s, why, true);
        leave(s);
        return;
    }
    /* the packets live in the shared inflate buffer, which handling a
     * packet never reuses (only the next batch does) */
    srv_bcodec_shared *sh = &s->client.sh->codec;
    srv_bpackets it;
    srv_bpackets_init(&it, sh->inflated.data, sh->inflated.len);
    const uint8_t *pkt;
    size_t n;
    bool bad = false;
    while (!s->client.gone && srv_bpackets_next(&it, &pkt, &n, &bad)) {
        mc_reader r;
        mc_reader_init(&r, pkt, n, "packet", NULL);
        uint32_t header = mc_read_uvarint32(&r);
        if (!mc_reader_ok(&r)) {
            bad = true;
            break;
        }
        handle(s, header & 0x3FF, pkt + r.pos, n - r.pos); /* the bits above 10 are split-screen ids */
    }
    if (bad && !s->client.gone)
        kick(s, "a batch with a malformed packet length", true);
    srv_bclient_flush(&s->client);
    leave(s);
}

void srv_bsession_writable(srv_bsession *s)
{
    enter(s);
    srv_bchunks_writable(&s->chunks);
    leave(s);
}

void srv_bsession_tick(srv_bsession *s, uint64_t now)
{
    if (s->state < SRV_BS_RADIUS && !s->client.gone &&
        now - s->connected_ms > (uint64_t)server_of(s)->cfg->login_timeout_ms) {
        enter(s);
        kick(s, "Took too long to log in", true);
        leave(s);
    }
}
