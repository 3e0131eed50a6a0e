/*
 * light_private.h: what the light module's files share: the generated rows
 * of src/light/data/light_data.c and the per-registry state table built
 * from them (table.c) that the engine (engine.c) reads per block.
 */
#ifndef MCCHUNK_LIGHT_PRIVATE_H
#define MCCHUNK_LIGHT_PRIVATE_H

#include "mcchunk/light.h"

/* One block's light facts from one data version on (generated). */
typedef struct mc__light_row {
    uint16_t name;       /* offset into mc__light_names */
    uint16_t dv;         /* first data version these facts hold for */
    uint8_t emit;        /* emitLight of the default state */
    uint8_t filter;      /* filterLight of the default state */
    uint16_t faces;      /* offset into mc__light_faces (shape-occluding blocks) */
    uint16_t face_count; /* states with a face mask; 0: the block never occludes by shape */
} mc__light_row;

extern const char mc__light_names[];
extern const uint8_t mc__light_faces[];
extern const mc__light_row mc__light_rows[];
extern const size_t mc__light_row_count;

/* Face bits of mc__light_faces and of the table. */
enum { MC__FACE_DOWN = 1, MC__FACE_UP = 2, MC__FACE_NORTH = 4, MC__FACE_SOUTH = 8,
       MC__FACE_WEST = 16, MC__FACE_EAST = 32 };

/* Per state of a registry: info = opacity | emission << 4; faces = the
 * MC__FACE_* bits the state's shape covers completely (0 for blocks that
 * never occlude by shape). */
typedef struct mc__light_table {
    const mc_registry *reg;
    uint32_t count;
    uint8_t *info;
    uint8_t *faces;
} mc__light_table;

/* Builds the table of reg (memory from alloc). MC_ERR_NOMEM or MC_OK. */
mc_status mc__light_table_build(mc__light_table *t, const mc_registry *reg, const mc_allocator *alloc);
void mc__light_table_free(mc__light_table *t, const mc_allocator *alloc);

#endif
