/*
 * items.h: the item palettes StartGame (before 1.21.60) or ItemRegistry
 * (1.21.60+) carry: every item's name and runtime id, and from 1.26.30's
 * data its version and components (items.c reads them from the generated
 * data, protocol_data.h). Shared by every client: made once, read only.
 */
#ifndef MC_SERVER_BEDROCK_ITEMS_H
#define MC_SERVER_BEDROCK_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/bedrock/layout.h"

typedef struct srv_bitems srv_bitems;

/* The palettes, inflated and decoded (NULL: corrupt data or no memory). */
srv_bitems *srv_bitems_load(void);
void srv_bitems_free(srv_bitems *it);

/* A value function (layout.h) for the field "itemstates" of StartGame or
 * ItemRegistry: ctx is a srv_bitems_values. */
typedef struct srv_bitems_values {
    srv_bitems *items;
    int table;              /* the version's palette (srv_bedrock_version.items) */
    srv_bvalue_fn others;   /* every other field */
    void *others_ctx;
} srv_bitems_values;
void srv_bitems_value(void *ctx, const char *path, const uint32_t *index, unsigned depth, srv_bvalue *out);

/* Items in a palette (0 for a bad index). */
uint32_t srv_bitems_count(const srv_bitems *it, int table);

#endif
