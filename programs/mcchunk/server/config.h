/*
 * config.h: what `mcchunk serve` is told (its options, cmd_serve.c parses
 * them) and their defaults. The bottom of the server: every part reads it,
 * it reads nothing.
 */
#ifndef MC_SERVER_CONFIG_H
#define MC_SERVER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_server_config {
    const char *bind;          /* address to listen on (default 127.0.0.1) */
    int port;                  /* TCP port (default 25565; 0 = any free port) */
    int bedrock_port;          /* Bedrock UDP port (default 19132; 0 = any free port; < 0 = off) */
    bool bedrock_encryption;   /* offer Bedrock clients encryption (ECDH + AES) */
    bool bedrock_index_ids;    /* Bedrock runtime ids as palette indexes even where hashes are possible */
    int view_distance;         /* chunks (2..32) */
    int max_players;
    const char *motd;
    int compression_threshold; /* bytes; < 0 disables compression */
    const char *world;         /* world folder, or NULL for the built-in world */
    double exit_after;         /* seconds of the server's clock; 0 = run until SIGINT/SIGTERM */
    bool exit_with_parent;     /* stop when the process that started the server exits */
    int idle_timeout_ms;       /* a client silent this long is dropped (vanilla: 30 s) */
    int login_timeout_ms;      /* handshake+login must finish within this */
    size_t max_pending_write;  /* bytes queued to a client before it counts as too slow */
    int send_timeout_ms;       /* a client whose queue takes nothing this long is dropped */
    const char *port_file;     /* if set, the bound port is written there (for tests) */
    uint64_t seed;             /* built-in world seed */
    size_t cache_bytes;        /* budget of every cache together (columns, packets, reader) */
    int http_port;             /* the web map's HTTP port (0 = any free port; < 0 = off, the default) */
    const char *http_bind;     /* its address (default 127.0.0.1) */
    bool quiet;                /* log only warnings and errors */
    bool silent;               /* log nothing (the fuzz target) */
} srv_server_config;

/* Defaults of the send queue: its hard limit per client (KiB), and how long
 * a queue may take nothing before its client is dropped (seconds). */
#define MC_SEND_QUEUE_DEFAULT_KB 4096
#define MC_SEND_TIMEOUT_DEFAULT_S 20

/* Fills a config with the defaults above. */
void srv_server_config_defaults(srv_server_config *cfg);

#endif
