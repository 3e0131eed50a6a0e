/*
 * protocol_data.h: the facts of the Bedrock protocol the server needs per
 * client version, as scripts/gen-bedrock-server-data.js generates them from
 * minecraft-data's data/bedrock/<version>/protocol.json and items.json into
 * data/bedrock_data.c:
 *
 *   - the layout of each packet the server sends, per version, as a small
 *     program of field operations (srv_bop) that layout.c walks to write the
 *     packet, taking each field's value from the caller by name (every field
 *     not given gets its type's zero: 0, false, "", an empty list, an absent
 *     option, an empty compound);
 *   - the packet ids (the same in every version from 1.16.201 to 1.26.51:
 *     the generator checks the constants below against every version);
 *   - the item palette each version's StartGame or ItemRegistry carries.
 *
 * The generator reads the enums below (op codes, sent packets) from this
 * file, so the two cannot drift apart.
 */
#ifndef MC_SERVER_BEDROCK_PROTOCOL_DATA_H
#define MC_SERVER_BEDROCK_PROTOCOL_DATA_H

#include <stdint.h>

/* Field operations. Leaves write one value; the rest frame others. */
enum srv_bop_code {
    SRV_BOP_VOID,      /* nothing */
    SRV_BOP_BOOL,
    SRV_BOP_U8,
    SRV_BOP_U16,       /* big-endian */
    SRV_BOP_LU16,      /* little-endian */
    SRV_BOP_U32,
    SRV_BOP_LU32,
    SRV_BOP_U64,
    SRV_BOP_LU64,
    SRV_BOP_F32,
    SRV_BOP_LF32,
    SRV_BOP_F64,
    SRV_BOP_LF64,
    SRV_BOP_VARINT,    /* unsigned LEB128, 32 bits */
    SRV_BOP_VARINT64,
    SRV_BOP_ZIGZAG32,
    SRV_BOP_ZIGZAG64,
    SRV_BOP_UUID,      /* 16 bytes */
    SRV_BOP_NBT,       /* network (varint) NBT, an empty compound by default */
    SRV_BOP_LNBT,      /* little-endian NBT */
    SRV_BOP_REST,      /* the rest of the packet: raw bytes */
    SRV_BOP_STRING,    /* arg: the op of the length prefix */
    SRV_BOP_BYTES,     /* arg: the op of the length prefix, or VOID with a fixed count in value */
    SRV_BOP_REF,       /* the sibling fields whose ops are [end, value), written once in
                          the table and run here as if they stood in this place */
    SRV_BOP_CONTAINER, /* fields follow until end; arg 1: they belong to the
                          enclosing container (an anonymous field, a switch case) */
    SRV_BOP_ARRAY,     /* arg: the op of the count (VOID: fixed count in value); one element's ops follow */
    SRV_BOP_OPTION,    /* a bool, then the value's ops when true */
    SRV_BOP_SWITCH,    /* on the field named `value`, `arg` containers up; CASE/DEFAULT ops follow */
    SRV_BOP_CASE,      /* taken when the field equals `value`; its ops follow until end */
    SRV_BOP_DEFAULT,   /* taken when no case matched */
    SRV_BOP_ENCAP,     /* arg: the op of the length prefix; the framed ops follow */
    SRV_BOP_COUNT
};

typedef struct srv_bop {
    uint8_t op;    /* srv_bop_code */
    uint8_t arg;   /* see the codes */
    uint16_t name; /* index into srv_bedrock_field_names (0: no name) */
    uint32_t end;  /* framing ops: index of the op after what they frame */
    int32_t value; /* SWITCH: the name of the field compared; CASE: its value; fixed counts */
} srv_bop;

/* The packets the server writes through layouts (the order is the
 * generator's too). */
enum srv_bedrock_sent {
    SRV_BSENT_NETWORK_SETTINGS,
    SRV_BSENT_PLAY_STATUS,
    SRV_BSENT_SERVER_TO_CLIENT_HANDSHAKE,
    SRV_BSENT_DISCONNECT,
    SRV_BSENT_RESOURCE_PACKS_INFO,
    SRV_BSENT_RESOURCE_PACK_STACK,
    SRV_BSENT_START_GAME,
    SRV_BSENT_ITEM_REGISTRY,
    SRV_BSENT_CHUNK_RADIUS_UPDATE,
    SRV_BSENT_NETWORK_CHUNK_PUBLISHER_UPDATE,
    SRV_BSENT_MOVE_PLAYER,
    SRV_BSENT_COUNT
};

/* Packet ids (minecraft-data's mcpe_packet names in the comments). */
enum srv_bedrock_packet_id {
    SRV_BPID_LOGIN = 1,                          /* login */
    SRV_BPID_PLAY_STATUS = 2,                    /* play_status */
    SRV_BPID_SERVER_TO_CLIENT_HANDSHAKE = 3,     /* server_to_client_handshake */
    SRV_BPID_CLIENT_TO_SERVER_HANDSHAKE = 4,     /* client_to_server_handshake */
    SRV_BPID_DISCONNECT = 5,                     /* disconnect */
    SRV_BPID_RESOURCE_PACKS_INFO = 6,            /* resource_packs_info */
    SRV_BPID_RESOURCE_PACK_STACK = 7,            /* resource_pack_stack */
    SRV_BPID_RESOURCE_PACK_CLIENT_RESPONSE = 8,  /* resource_pack_client_response */
    SRV_BPID_TEXT = 9,                           /* text */
    SRV_BPID_START_GAME = 11,                    /* start_game */
    SRV_BPID_MOVE_PLAYER = 19,                   /* move_player */
    SRV_BPID_TICK_SYNC = 23,                     /* tick_sync */
    SRV_BPID_LEVEL_CHUNK = 58,                   /* level_chunk */
    SRV_BPID_REQUEST_CHUNK_RADIUS = 69,          /* request_chunk_radius */
    SRV_BPID_CHUNK_RADIUS_UPDATE = 70,           /* chunk_radius_update */
    SRV_BPID_COMMAND_REQUEST = 77,               /* command_request */
    SRV_BPID_SET_LOCAL_PLAYER_AS_INITIALIZED = 113, /* set_local_player_as_initialized */
    SRV_BPID_NETWORK_STACK_LATENCY = 115,        /* network_stack_latency */
    SRV_BPID_NETWORK_CHUNK_PUBLISHER_UPDATE = 121, /* network_chunk_publisher_update */
    SRV_BPID_CLIENT_CACHE_STATUS = 129,          /* client_cache_status */
    SRV_BPID_CLIENT_CACHE_BLOB_STATUS = 135,     /* client_cache_blob_status */
    SRV_BPID_CLIENT_CACHE_MISS_RESPONSE = 136,   /* client_cache_miss_response */
    SRV_BPID_NETWORK_SETTINGS = 143,             /* network_settings */
    SRV_BPID_PLAYER_AUTH_INPUT = 144,            /* player_auth_input */
    SRV_BPID_PACKET_VIOLATION_WARNING = 156,     /* packet_violation_warning */
    SRV_BPID_ITEM_REGISTRY = 162,                /* item_registry */
    SRV_BPID_SUBCHUNK = 174,                     /* subchunk */
    SRV_BPID_SUBCHUNK_REQUEST = 175,             /* subchunk_request */
    SRV_BPID_REQUEST_NETWORK_SETTINGS = 193      /* request_network_settings */
};

typedef struct srv_bedrock_version {
    int protocol;
    const char *name;                  /* the newest release with this protocol */
    int32_t program[SRV_BSENT_COUNT];  /* index into srv_bedrock_ops (a CONTAINER), -1: no such packet */
    int8_t items;                      /* the item palette (index into the item tables), -1 none */
    const char *items_from;            /* the minecraft-data version the items come from */
} srv_bedrock_version;

extern const srv_bop srv_bedrock_ops[];
extern const char *const srv_bedrock_field_names[];
extern const srv_bedrock_version srv_bedrock_versions[];
extern const unsigned srv_bedrock_version_count;

/* The item palettes, zlib-compressed (layout.c's items_* read them):
 * varint table count; per table: varint item count, then per item varint
 * name index, zigzag32 id minus the previous item's id, u8 flags (bit 0
 * component based, bits 1-2: version + 1, 0 = none given), and when bit 3
 * is set a varint index into the SNBT texts (the item's components);
 * then varint name count + names, varint SNBT count + texts (each a varint
 * length and bytes). */
extern const uint8_t srv_bedrock_items_z[];
extern const uint32_t srv_bedrock_items_z_len, srv_bedrock_items_raw_len;

#endif
