/*
 * world/stats.h: the counting behind `mcchunk world stats` (stats.c).
 *
 * Two levels. A worker counts into a world_stat_counter, keyed by numbers
 * only (registry, group, kind, state or biome id): no string is made per
 * block. At the end each counter's keys are named (block states as
 * `chunk blocks` prints them, biome names, block entity and entity ids)
 * and added into one world_stat_result, which prints as text, JSON or CSV
 * and also reads back the JSON it printed (--merge), so that partial
 * results of shards add up to the whole.
 */
#ifndef MC_TOOLS_WORLD_STATS_H
#define MC_TOOLS_WORLD_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mcchunk/mcchunk.h"

typedef enum world_stat_by { STAT_BY_NONE, STAT_BY_Y, STAT_BY_BIOME, STAT_BY_DIMENSION, STAT_BY_CHUNK } world_stat_by;
enum { STAT_BLOCK, STAT_BIOME, STAT_BLOCK_ENTITY, STAT_ENTITY, STAT_KINDS };

/* "y", "biome", "dimension", "chunk" (NULL for none); parse returns false
 * for anything else. */
const char *world_stat_by_name(world_stat_by by);
bool world_stat_by_parse(const char *s, world_stat_by *out);

/* ------------------------------------------------------------ counter */

typedef struct world_stat_counter world_stat_counter;

world_stat_counter *world_stat_counter_new(void);
void world_stat_counter_free(world_stat_counter *c);
/* Adds n to (reg, group, kind, value); false when out of memory. For
 * STAT_BLOCK value is a state of reg, for STAT_BIOME a biome of reg, for
 * the others an id from world_stat_intern (reg is then ignored). */
bool world_stat_count(world_stat_counter *c, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                      uint64_t n);
/* The id of string s[0..len) in this counter (UINT32_MAX: out of memory). */
uint32_t world_stat_intern(world_stat_counter *c, const char *s, size_t len);
/* The string of an interned id (NULL when there is none). */
const char *world_stat_string(const world_stat_counter *c, uint32_t id);
/* Walks every key: fn(user, reg, group, kind, value_or_string, n). For
 * the string kinds `name` is the interned string, else NULL. */
void world_stat_each(const world_stat_counter *c,
                     void (*fn)(void *user, const mc_registry *reg, uint64_t group, int kind, uint32_t value,
                                const char *name, uint64_t n),
                     void *user);

/* ------------------------------------------------------------- result */

typedef struct world_stat_result world_stat_result;

world_stat_result *world_stat_result_new(world_stat_by by);
void world_stat_result_free(world_stat_result *r);
world_stat_by world_stat_result_by(const world_stat_result *r);
/* Adds n to `name` of `kind` in `group` (NULL: the totals). `order` sorts
 * the groups (numeric for y; groups with equal order sort by name). */
bool world_stat_add(world_stat_result *r, const char *group, int64_t order, int kind, const char *name, uint64_t n);
/* The id of name s[0..len) in r (added when new; UINT32_MAX: out of
 * memory), and world_stat_add with such an id for the name: a caller
 * meeting one name many times looks it up once. */
uint32_t world_stat_name_id(world_stat_result *r, const char *s, size_t len);
bool world_stat_add_id(world_stat_result *r, const char *group, int64_t order, int kind, uint32_t name, uint64_t n);
/* Adds to the totals of chunks, regions and blocks (the volume). */
void world_stat_add_meta(world_stat_result *r, uint64_t chunks, uint64_t regions, uint64_t volume);
uint64_t world_stat_chunks(const world_stat_result *r);
uint64_t world_stat_regions(const world_stat_result *r);
uint64_t world_stat_volume(const world_stat_result *r);
/* Entries (name, kind, group) held. */
size_t world_stat_size(const world_stat_result *r);
/* Adds a JSON document printed by world_stat_print_json. Errors (with the
 * byte offset): MC_ERR_MALFORMED for anything else, MC_ERR_INVALID_ARG when
 * its "by" differs from r's. */
mc_status world_stat_merge_json(world_stat_result *r, const uint8_t *json, size_t len, mc_error *err);

/* Output. json: one object {"chunks", "regions", "volume", "blocks": {state:
 * count}, "biomes", "block_entities", "entities"} plus, with a grouping,
 * "by" and "groups": {group: {"blocks", ...}}; keys sorted. csv: a header,
 * then `group,kind,name,count` rows (group only with a grouping; kind is
 * block, biome, block_entity or entity), names quoted. text: per kind the
 * counts, largest first. */
void world_stat_print_json(const world_stat_result *r, FILE *out);
void world_stat_print_csv(const world_stat_result *r, FILE *out);
/* text: `limit` rows per kind and group at most (0: all). */
void world_stat_print_text(const world_stat_result *r, FILE *out, size_t limit);

#endif
