/*
 * mcchunk/registry.h: block-state and biome registries of game versions.
 *
 * A block state in mcchunk is a number in a registry: the global palette of
 * one game version (Java 1.8-1.12: id<<4|meta; Java 1.13+: flattened state
 * ids; Bedrock: runtime ids). Registries are generated const tables; a
 * registry pointer stays valid for the life of the process and may be shared
 * by any number of threads.
 *
 * CONTRACT (fixed; other modules depend on these names): the functions in
 * the first block below. The registry module adds lookups by version,
 * names/properties, parsing/printing and translation maps after it.
 */
#ifndef MCCHUNK_REGISTRY_H
#define MCCHUNK_REGISTRY_H

#include "mcchunk/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mc_registry mc_registry;

typedef enum mc_edition { MC_EDITION_JAVA = 0, MC_EDITION_BEDROCK = 1 } mc_edition;

/* Per-state flags, the facts the chunk model needs (heightmaps, counts). */
enum {
    MC_STATE_AIR = 1u << 0,           /* air, cave_air, void_air: not counted as blocks */
    MC_STATE_FLUID = 1u << 1,         /* has a fluid state: water, lava, waterlogged=true, bubble column, kelp, seagrass... */
    MC_STATE_BLOCKS_MOTION = 1u << 2, /* "solid" for heightmaps (OCEAN_FLOOR, MOTION_BLOCKING) */
    MC_STATE_LEAVES = 1u << 3,        /* leaves (excluded by MOTION_BLOCKING_NO_LEAVES) */
    MC_STATE_VALID = 1u << 7          /* the id names a state (pre-1.13: a valid id:meta pair) */
};

/* Number of ids in the global palette: max state id + 1 (pre-1.13: 4096
 * id<<4|meta slots for 1.8-1.12). */
MC_API uint32_t mc_registry_state_count(const mc_registry *reg);
/* Number of biomes as the vanilla server sends them. */
MC_API uint32_t mc_registry_biome_count(const mc_registry *reg);
/* MC_STATE_* flags of a state id; 0 for ids outside the registry. */
MC_API uint32_t mc_registry_state_flags(const mc_registry *reg, uint32_t state);
/* The air state id (0 in every Java registry). */
MC_API uint32_t mc_registry_air(const mc_registry *reg);
/* Width of the direct (global) palette for block states and biomes:
 * ceil(log2(count)). (Eras that override it, e.g. 13 bits for 1.9-1.12 on the
 * wire, are the codecs' business.) */
MC_API unsigned mc_registry_direct_bits(const mc_registry *reg);
MC_API unsigned mc_registry_biome_direct_bits(const mc_registry *reg);
/* Edition and a display name such as "1.21.4" (the newest version using it). */
MC_API mc_edition mc_registry_edition(const mc_registry *reg);
MC_API const char *mc_registry_name(const mc_registry *reg);

/* Finds a Java registry by release name ("1.21.4", "1.8.9") or NULL. */
MC_API const mc_registry *mc_registry_find(const char *version);

#ifdef __cplusplus
}
#endif
#endif
