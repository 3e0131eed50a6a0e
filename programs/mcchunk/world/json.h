/*
 * world/json.h: JSON in and out for the world commands.
 *
 * Out: a writer that keeps track of commas and nesting, so a command
 * writes `key, value` pairs and never a separator by hand.
 * In: a reader for the files `world stats --json` writes, read back by
 * --merge: objects, arrays, strings, integers, true/false/null; every
 * length bounded by the input (mc_reader), nesting to 32, numbers whole
 * 64-bit integers (a fraction or exponent is refused: the counts are
 * whole). Files are data from elsewhere: errors say what and at which
 * byte.
 */
#ifndef MC_TOOLS_WORLD_JSON_H
#define MC_TOOLS_WORLD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mcchunk/core.h"

/* ----------------------------------------------------------------- out */

typedef struct world_json {
    FILE *out;
    int depth;
    bool pretty;
    bool need_comma[34];
} world_json;

void world_json_init(world_json *j, FILE *out, bool pretty);
void world_json_begin_object(world_json *j, const char *key); /* key NULL inside arrays / at the top */
void world_json_end_object(world_json *j);
void world_json_begin_array(world_json *j, const char *key);
void world_json_end_array(world_json *j);
void world_json_str(world_json *j, const char *key, const char *value);
void world_json_strn(world_json *j, const char *key, const char *value, size_t len);
void world_json_int(world_json *j, const char *key, int64_t value);
void world_json_uint(world_json *j, const char *key, uint64_t value);
void world_json_double(world_json *j, const char *key, double value);
void world_json_bool(world_json *j, const char *key, bool value);
/* Ends the document with a newline. */
void world_json_finish(world_json *j);

/* ------------------------------------------------------------------ in */

typedef enum world_jtype { WJ_NULL, WJ_BOOL, WJ_INT, WJ_STRING, WJ_ARRAY, WJ_OBJECT } world_jtype;

/* A parsed value. Strings are decoded (escapes, \u with surrogate pairs,
 * to UTF-8) and NUL-terminated; object members keep their order. */
typedef struct world_jvalue {
    world_jtype type;
    int64_t num;               /* WJ_INT, WJ_BOOL (0/1) */
    char *str;                 /* WJ_STRING */
    size_t len;
    size_t count;              /* WJ_ARRAY, WJ_OBJECT */
    char **keys;               /* WJ_OBJECT */
    size_t *key_lens;
    struct world_jvalue *items;
} world_jvalue;

/* Parses data[0..len) (one value, whitespace around it). On failure
 * returns MC_ERR_MALFORMED (or MC_ERR_LIMIT, MC_ERR_NOMEM) with the byte
 * offset in err; *out is then empty. Free with world_json_free. */
mc_status world_json_parse(const uint8_t *data, size_t len, world_jvalue *out, mc_error *err);
void world_json_free(world_jvalue *v);
/* The member `key` of an object, or NULL. */
const world_jvalue *world_json_get(const world_jvalue *obj, const char *key);

#endif
