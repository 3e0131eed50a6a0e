/*
 * java_era.h: what the server's own Java packets (login, configuration,
 * join, position, keep-alive, view) look like in one protocol, as one set of
 * switches, so that session and world code ask "does this client have X"
 * instead of comparing protocol numbers. java_era.c fills it, one line per
 * fact, keyed by the protocol that introduced it (the chunk packets' own
 * eras are the library's: src/java/chunk_era.c).
 */
#ifndef MC_SERVER_JAVA_ERA_H
#define MC_SERVER_JAVA_ERA_H

#include <stdbool.h>
#include <stdint.h>

typedef struct srv_java_era {
    bool login_uuid_string;     /* before 1.16 (735): Login Success has the UUID as text */
    bool login_properties;      /* 1.19 (759)+: Login Success lists profile properties */
    bool login_strict_errors;   /* 1.20.5-1.21.1 (766-767): Login Success's strictErrorHandling */
    bool configuration;         /* 1.20.2 (764)+: a configuration phase before play */
    bool known_packs;           /* 1.20.5 (766)+: configuration opens with Select Known Packs */
    bool text_nbt;              /* 1.20.3 (765)+: text components (outside login) as NBT */
    bool position_xzy;          /* 1.14 (477)+: a block position long is x:26 z:26 y:12 */
    bool view_position;         /* 1.14 (477)+: Set Center Chunk (update_view_position) */
    bool chunk_batches;         /* 1.20.2 (764)+: chunks in acknowledged Chunk Batches */
    bool wait_for_chunks_event; /* 1.20.3 (765)+: game event 13 "start waiting for level chunks" */
    bool spawn_angle;           /* 1.17 (755)+: Spawn Position has an angle */
    bool spawn_respawn_data;    /* 1.21.9 (773)+: Spawn Position is RespawnData (dimension, pitch) */
    bool teleport_id;           /* 1.9 (107)+: Player Position carries an id to confirm */
    bool teleport_dismount;     /* 1.17-1.19.3 (755-761): Player Position's dismount flag */
    bool teleport_velocity;     /* 1.21.2 (768)+: Player Position: id first, velocity, u32 flags */
    bool keepalive_varint;      /* before 1.12.2 (340): play keep-alive ids are VarInts */
} srv_java_era;

/* The switches of a protocol (any number: those of the era it falls in). */
srv_java_era srv_java_era_of(uint32_t protocol);

#endif
