/*
 * chunk_era.c: from a protocol number to the switches of its chunk packet
 * layout (chunk_era.h), and the block-entity type ids that 1.18+ packets
 * carry instead of names.
 *
 * The switches are derived from protocol ranges of releases; the registry
 * is the one the registry module keeps for that protocol.
 */
#include "java/chunk_era.h"

#include <string.h>

mc_status mc__era_get(uint32_t protocol, mc__era *e, mc_error *err)
{
    memset(e, 0, sizeof *e);
    e->protocol = protocol;
    if (protocol < 47 || protocol >= 0x40000000u || (protocol > 47 && protocol < 107))
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java chunk: protocol %u is not a release from 1.8 on", protocol);
    e->reg = mc_registry_find_protocol((int32_t)protocol);
    if (!e->reg)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX,
                            "java chunk: no registry for protocol %u", protocol);
    uint32_t p = protocol;
    e->kind = p == 47 ? MC__ERA_1_8
            : p <= 340 ? MC__ERA_1_9
            : p <= 404 ? MC__ERA_1_13
            : p <= 498 ? MC__ERA_1_14
            : p <= 578 ? MC__ERA_1_15
            : p <= 754 ? MC__ERA_1_16
            : p <= 756 ? MC__ERA_1_17
                       : MC__ERA_1_18;
    e->block_entities = p >= 110;               /* 1.9.4 */
    e->ignore_old_data = p >= 735 && p <= 736;  /* 1.16-1.16.1 */
    e->varint_biomes = p >= 751;                /* 1.16.2 */
    e->trust_edges = p >= 735 && p <= 762;      /* 1.16 (light), removed in 1.20 */
    e->nameless_nbt = p >= 764;                 /* 1.20.2 */
    e->no_data_length = p >= 770;               /* 1.21.5 */
    e->heightmap_array = p >= 770;              /* 1.21.5 */
    e->fluid_count = p >= 775;                  /* 26.1 */
    /* Vanilla 1.18-1.20.1 (seen in captures) size a single-value block
     * container's data length as varint(4096) = 2 bytes but write varint(0);
     * assumed up to 1.21.4 [UNVERIFIED 1.20.2-1.21.4]; 1.21.5 drops the field. */
    e->size_slack = p >= 757 && p <= 769;
    e->layout = p >= 735 ? MC_BITS_PADDED : MC_BITS_SPANNING; /* 1.16: padded longs */
    /* 1.9-1.12: 13-bit global palette (id<<4|meta, 4096 ids but 13 bits on the
     * wire); later the registry's ceil(log2(states)). */
    e->direct_bits = e->kind == MC__ERA_1_9 ? 13 : mc_registry_direct_bits(e->reg);
    e->biome_bits = mc_registry_biome_direct_bits(e->reg);
    e->default_min_y = e->kind == MC__ERA_1_18 ? -64 : 0;
    e->default_height = e->kind == MC__ERA_1_18 ? 384 : 256;
    return MC_OK;
}

mc_status mc_java_default_height(uint32_t protocol, int32_t *min_y, uint32_t *height, mc_error *err)
{
    mc__era e;
    mc_status st = mc__era_get(protocol, &e, err);
    if (st != MC_OK)
        return st;
    *min_y = e.default_min_y;
    *height = e.default_height;
    return MC_OK;
}

/* Block entity types in registry order (BuiltInRegistries.BLOCK_ENTITY_TYPE),
 * with the protocol that added each; an entry inserted mid-list shifts the
 * later ids from that protocol on. */
typedef struct be_type {
    const char *name;
    uint32_t since;     /* protocol that added it */
    uint32_t until;     /* first protocol without it (0: still there) */
} be_type;

static const be_type be_types[] = {
    {"minecraft:furnace", 0, 0},
    {"minecraft:chest", 0, 0},
    {"minecraft:trapped_chest", 0, 0},
    {"minecraft:ender_chest", 0, 0},
    {"minecraft:jukebox", 0, 0},
    {"minecraft:dispenser", 0, 0},
    {"minecraft:dropper", 0, 0},
    {"minecraft:sign", 0, 0},
    {"minecraft:hanging_sign", 761, 0},        /* 1.19.3 */
    {"minecraft:mob_spawner", 0, 0},
    {"minecraft:creaking_heart", 768, 0},      /* 1.21.2 [UNVERIFIED position] */
    {"minecraft:piston", 0, 0},
    {"minecraft:brewing_stand", 0, 0},
    {"minecraft:enchanting_table", 0, 0},
    {"minecraft:end_portal", 0, 0},
    {"minecraft:beacon", 0, 0},
    {"minecraft:skull", 0, 0},
    {"minecraft:daylight_detector", 0, 0},
    {"minecraft:hopper", 0, 0},
    {"minecraft:comparator", 0, 0},
    {"minecraft:banner", 0, 0},
    {"minecraft:structure_block", 0, 0},
    {"minecraft:end_gateway", 0, 0},
    {"minecraft:command_block", 0, 0},
    {"minecraft:shulker_box", 0, 0},
    {"minecraft:bed", 0, 0},
    {"minecraft:conduit", 0, 0},
    {"minecraft:barrel", 0, 0},
    {"minecraft:smoker", 0, 0},
    {"minecraft:blast_furnace", 0, 0},
    {"minecraft:lectern", 0, 0},
    {"minecraft:bell", 0, 0},
    {"minecraft:jigsaw", 0, 0},
    {"minecraft:campfire", 0, 0},
    {"minecraft:beehive", 0, 0},
    {"minecraft:sculk_sensor", 0, 0},
    {"minecraft:calibrated_sculk_sensor", 763, 0}, /* 1.20 */
    {"minecraft:sculk_catalyst", 759, 0},      /* 1.19 */
    {"minecraft:sculk_shrieker", 759, 0},      /* 1.19 */
    {"minecraft:chiseled_bookshelf", 761, 0},  /* 1.19.3 (experimental then) */
    {"minecraft:suspicious_sand", 762, 763},   /* 1.19.4, renamed in 1.20 */
    {"minecraft:brushable_block", 763, 0},     /* 1.20 */
    {"minecraft:decorated_pot", 762, 0},       /* 1.19.4 */
    {"minecraft:crafter", 765, 0},             /* 1.20.3 */
    {"minecraft:trial_spawner", 765, 0},       /* 1.20.3 */
    {"minecraft:vault", 766, 0},               /* 1.20.5 */
    {"minecraft:test_block", 770, 0},          /* 1.21.5 [UNVERIFIED] */
    {"minecraft:test_instance_block", 770, 0}, /* 1.21.5 [UNVERIFIED] */
};
/* In 1.19.4 suspicious_sand sat where brushable_block sits from 1.20; the
 * 1.20 calibrated sensor is inserted earlier, so both orders come from the
 * since/until ranges above. */

static bool be_present(const be_type *t, uint32_t protocol)
{
    return protocol >= t->since && (t->until == 0 || protocol < t->until);
}

int mc__be_type_id(uint32_t protocol, const char *name, size_t len)
{
    int id = 0;
    const size_t n = sizeof be_types / sizeof be_types[0];
    size_t skip = (len < 10 || memcmp(name, "minecraft:", 10) != 0) ? 10 : 0;
    for (size_t i = 0; i < n; i++) {
        if (!be_present(&be_types[i], protocol))
            continue;
        const char *tn = be_types[i].name + skip;
        if (strlen(tn) == len && memcmp(tn, name, len) == 0)
            return id;
        id++;
    }
    return -1;
}

const char *mc__be_type_name(uint32_t protocol, int id)
{
    const size_t n = sizeof be_types / sizeof be_types[0];
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!be_present(&be_types[i], protocol))
            continue;
        if (k++ == id)
            return be_types[i].name;
    }
    return NULL;
}

void mc__era_window(const mc__era *e, const mc_column *col, int32_t *lo, uint32_t *n)
{
    if (e->kind >= MC__ERA_1_17) {
        *lo = mc_column_min_section(col);
        *n = mc_column_section_count(col);
        if (e->kind == MC__ERA_1_17 && *n > 64)
            *n = 64; /* one long of mask (the codec's limit) */
    } else {
        *lo = 0;
        *n = 16;
    }
}
