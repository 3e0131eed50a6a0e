/*
 * layout.h: writing a Bedrock packet of any supported version from its
 * layout (protocol_data.h: field operations generated from minecraft-data's
 * protocol.json), with the values the caller gives by field path and the
 * type's zero for every other field. One writer serves every version:
 * where a field moved, was renamed into a container or gained a neighbour,
 * the layout says so and the caller's values still land where they belong.
 *
 * Paths join field names with dots ("spawn_position.x"); an array's
 * elements are "name[]" ("itemstates[].runtime_id"), an option's value
 * "name?" ("teleport?.cause"). An array's own path asks for its length, an
 * option's for whether it is present (nonzero: present). Fields of
 * anonymous containers and of switch cases belong to the enclosing
 * container's path.
 */
#ifndef MC_SERVER_BEDROCK_LAYOUT_H
#define MC_SERVER_BEDROCK_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcchunk/core.h"
#include "server/bedrock/protocol_data.h"

typedef enum srv_bvalue_kind {
    SRV_BV_NONE = 0, /* not given: the type's zero */
    SRV_BV_INT,      /* integers, bools, counts, presence */
    SRV_BV_FLOAT,
    SRV_BV_STRING,   /* strings and byte arrays: data, len */
    SRV_BV_RAW       /* bytes written as they are in place of the field (e.g. NBT) */
} srv_bvalue_kind;

typedef struct srv_bvalue {
    srv_bvalue_kind kind;
    int64_t i;
    double f;
    const void *data;
    size_t len;
} srv_bvalue;

/* The caller's values: fills *out (kind NONE: not given) for the field at
 * `path`; index[0..depth) are the element numbers of the enclosing arrays,
 * outermost first. */
typedef void (*srv_bvalue_fn)(void *ctx, const char *path, const uint32_t *index, unsigned depth, srv_bvalue *out);

/* A fixed table of values: {path, value} pairs ending with a NULL path, for
 * srv_bvalues_lookup (give it as ctx). */
typedef struct srv_bfield {
    const char *path;
    srv_bvalue v;
} srv_bfield;
void srv_bvalues_lookup(void *table, const char *path, const uint32_t *index, unsigned depth, srv_bvalue *out);

#define SRV_BINT(p, x) {(p), {SRV_BV_INT, (int64_t)(x), 0, NULL, 0}}
#define SRV_BFLOAT(p, x) {(p), {SRV_BV_FLOAT, 0, (double)(x), NULL, 0}}
#define SRV_BSTR(p, s) {(p), {SRV_BV_STRING, 0, 0, (s), 0}} /* NUL-terminated: len from strlen */

/* The generated facts of a protocol, or NULL when it is not one of the
 * releases the server knows. */
const srv_bedrock_version *srv_bedrock_version_of(int protocol);
/* Oldest and newest known. */
const srv_bedrock_version *srv_bedrock_version_first(void);
const srv_bedrock_version *srv_bedrock_version_last(void);

/* Appends packet `sent` (srv_bedrock_sent) of version v to out: the id
 * varint, then the body. MC_ERR_UNSUPPORTED when v has no such packet,
 * MC_ERR_INVALID_ARG when a given value does not fit its field,
 * MC_ERR_NOMEM. */
mc_status srv_bedrock_write(mc_buf *out, const srv_bedrock_version *v, int sent, srv_bvalue_fn values, void *ctx,
                            mc_error *err);

/* The packet id of a sent packet. */
uint32_t srv_bedrock_sent_id(int sent);

#endif
