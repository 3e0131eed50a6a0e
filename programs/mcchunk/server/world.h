/*
 * world.h: the world the server serves (world.c) — its columns, cached
 * within --cache-mb, and each Java player's view of them: which columns it
 * has, which it still lacks, sent at the pace its connection takes them and
 * within the fair share of column work every player gets.
 */
#ifndef MC_SERVER_WORLD_H
#define MC_SERVER_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcchunk/core.h"
#include "server/conn.h"

struct mc_column;
typedef struct srv_world srv_world;

/* Opened before listening (0 ok), closed after the loop ends. */
int srv_world_open(srv_server *srv);
void srv_world_close(srv_server *srv);
/* The built-in world's generator (the web map makes its columns with one
 * of its own from the same registry and seed), or NULL for a world folder. */
struct srv_terrain;
const struct srv_terrain *srv_world_terrain(const srv_server *srv);
/* Block position where players appear (feet). */
void srv_world_spawn(srv_server *srv, int32_t *x, int32_t *y, int32_t *z);
/* The world's column at (cx, cz) (cached), or NULL where it has none. */
struct mc_column *srv_world_column(srv_server *srv, int32_t cx, int32_t cz);
size_t srv_world_cached_columns(const srv_server *srv);
/* Columns sent to players since the start, and the time spent fetching,
 * making and encoding them (the status line's figures). */
void srv_world_work(const srv_server *srv, uint64_t *columns, uint64_t *ns);
/* Bytes the world's caches hold (entries and reader scratch), which
 * cache_bytes bounds but for the newest entry. */
size_t srv_world_cache_bytes(const srv_server *srv);

/* Other layers' objects in the world's cache, under the same budget
 * (--cache-mb), least recently used out first: each is keyed by a kind
 * (from SRV_WORLD_KIND_OTHER up; below it are the world's own) and a
 * column. get: the object or NULL (it may have been evicted), good until
 * the next put or column made. put: takes the object (freed with free_obj
 * when evicted, or at once when there is no memory) costing `cost` bytes;
 * an existing entry of the same key must not be there. */
#define SRV_WORLD_KIND_OTHER 0x80000000u
void *srv_world_cache_get(srv_server *srv, uint32_t kind, int32_t x, int32_t z);
bool srv_world_cache_put(srv_server *srv, uint32_t kind, int32_t x, int32_t z, void *obj, size_t cost,
                         void (*free_obj)(void *obj));

/* Column work is shared fairly (world.c, "fair shares"): one turn of the
 * loop spends at most 8 ms on it, all clients together. A client that wants
 * work done checks the turn's budget; when it is spent the client waits in
 * the world's round-robin queue and `turn` is called at its next go. */
typedef struct srv_work_client {
    void (*turn)(struct srv_work_client *wc);
    bool queued;
    struct srv_work_client *prev, *next;
} srv_work_client;
bool srv_world_work_spent(srv_world *w);
/* Counts ns of work (and `columns` columns made) against the turn. */
void srv_world_work_charge(srv_world *w, uint64_t ns, uint64_t columns);
void srv_world_work_wait(srv_world *w, srv_work_client *wc);
void srv_world_work_cancel(srv_world *w, srv_work_client *wc);

/* A Java player's view. */
/* Sends the chunks around a player who just joined (play state). */
void srv_world_send_initial_chunks(srv_conn *c);
void srv_world_view_free(srv_conn *c);
/* The player is now at block x, z (teleport): recenter its view. */
void srv_world_player_moved(srv_conn *c, double x, double z);
/* The first time columns of registry `world` (NULL: the built-in world's)
 * go to a client of registry `client` (a Java release's or a Bedrock
 * version's), one INFO line counts how the world's states translate to it,
 * by kind of approximation (exact, renamed, same-shape, nearest-colour,
 * air-like, lost). Once per pair. */
void srv_world_log_translation(srv_server *srv, const struct mc_registry *world, const struct mc_registry *client,
                               const char *label);
/* The web map's /players.json: the players of both editions in the game,
 * their names, editions and the feet positions they last sent, as a JSON
 * array. */
void srv_world_players_json(void *srv, mc_buf *out);
uint64_t srv_world_view_sent(const srv_conn *c);
/* The player's send queue has drained: sends more of what its view lacks. */
void srv_world_resume(srv_conn *c);
/* A play packet from a joined player (movement etc.), by minecraft-data name. */
void srv_world_player_packet(srv_conn *c, const char *name, mc_reader *r);

#endif
