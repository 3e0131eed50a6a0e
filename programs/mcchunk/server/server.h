/*
 * server.h: the reference server as `mcchunk serve` starts it (the server is
 * part of the `mcchunk` tool, not of the library; it uses only public
 * headers). core.h draws the server's layers.
 */
#ifndef MC_SERVER_SERVER_H
#define MC_SERVER_SERVER_H

#include "server/config.h"

/* Runs the server until it is stopped (signal, exit_after). Returns 0 on a
 * clean stop, 1 when it could not start (the reason is logged). */
int srv_server_run(const srv_server_config *cfg);

/* Oldest and newest protocol numbers the server speaks. */
#define MC_SERVER_MIN_PROTOCOL 47u
#define MC_SERVER_MAX_PROTOCOL 775u

/* A server on `loop` with its parts wired (the connection layer's hooks),
 * not yet listening: what srv_server_run starts with, and what the server
 * fuzz target drives by hand (then srv_world_open). */
struct srv_server;
struct uv_loop_s;
void srv_server_init(struct srv_server *srv, const srv_server_config *cfg, struct uv_loop_s *loop);

#endif
