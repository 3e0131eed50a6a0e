/*
 * tool_common.c: pieces several subcommands share — reading one chunk of a
 * region file or world folder into a column, and printing a column's blocks
 * in the one line format the tools (and the tests that compare them with
 * the oracles) use.
 */
#include "tool_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "mcchunk/anvil.h"
#include "mcchunk/chunknbt.h"

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int mc_tool_load_column(const char *prog, const char *path_arg, const char *dimension, int32_t x, int32_t z,
                        mc_column **out)
{
    char path[4096];
    int lx, lz;
    mc_error err;
    mc_error_clear(&err);
    *out = NULL;
    if (is_dir(path_arg)) {
        if (mc_world_region_path(path_arg, MC_WORLD_LAYOUT_AUTO, dimension ? dimension : "minecraft:overworld",
                                 MC_REGION_KIND_REGION, x, z, path, sizeof path, &lx, &lz, &err) != MC_OK) {
            fprintf(stderr, "%s: %s\n", prog, err.message);
            return MC_EXIT_FAIL;
        }
    } else {
        snprintf(path, sizeof path, "%s", path_arg);
        lx = (int)((uint32_t)x & 31);
        lz = (int)((uint32_t)z & 31);
    }
    mc_region *r = NULL;
    if (mc_region_open(path, NULL, &r, &err) != MC_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.message);
        return MC_EXIT_FAIL;
    }
    mc_buf nbt;
    mc_buf_init(&nbt, NULL);
    int rc = MC_EXIT_OK;
    if (mc_region_read_chunk(r, lx, lz, &nbt, NULL, &err) != MC_OK ||
        mc_chunknbt_read_bytes(nbt.data, nbt.len, NULL, out, &err) != MC_OK) {
        fprintf(stderr, "%s: chunk %d %d: %s\n", prog, (int)x, (int)z, err.message);
        *out = NULL;
        rc = MC_EXIT_FAIL;
    }
    mc_buf_free(&nbt);
    mc_region_close(r);
    return rc;
}

int mc_tool_print_blocks(const mc_column *col, const mc_registry *out_reg, bool ids, unsigned every, bool all)
{
    const mc_registry *reg = mc_column_registry(col);
    if (!out_reg)
        out_reg = reg;
    const uint32_t *map = NULL;
    if (out_reg != reg && !(map = mc_registry_map(reg, out_reg))) {
        fprintf(stderr, "mcchunk: out of memory\n");
        return MC_EXIT_FAIL;
    }
    uint32_t count = mc_registry_state_count(reg);
    char **names = calloc(count ? count : 1, sizeof *names); /* formatted once per state */
    if (!names)
        return MC_EXIT_FAIL;
    int32_t bx = (int32_t)((uint32_t)mc_column_x(col) << 4), /* wraps: chunk x from input may be huge */
        bz = (int32_t)((uint32_t)mc_column_z(col) << 4);
    uint32_t vals[MC_SECTION_BLOCKS];
    char buf[512];
    uint64_t phase = every ? ((uint32_t)mc_column_x(col) * 7u + (uint32_t)mc_column_z(col) * 13u) % every : 0;
    for (uint32_t si = 0; si < mc_column_section_count(col); si++) {
        const mc_section *s = mc_column_section_const(col, mc_column_min_section(col) + (int32_t)si);
        if (!every && !all && s->blocks.kind == MC_CONTAINER_SINGLE &&
            (mc_registry_state_flags(reg, s->blocks.value) & MC_STATE_AIR))
            continue;
        mc_container_get_all(&s->blocks, vals);
        int32_t by = (mc_column_min_section(col) + (int32_t)si) * 16;
        for (unsigned i = 0; i < MC_SECTION_BLOCKS; i++) {
            uint32_t v = vals[i];
            if (every) {
                if (((uint64_t)si * MC_SECTION_BLOCKS + i + phase) % every)
                    continue;
            } else if (!all && ((mc_registry_state_flags(reg, v) & MC_STATE_AIR) || v == mc_registry_air(reg))) {
                continue;
            }
            int x = (int)(i & 15), z = (int)((i >> 4) & 15), y = (int)(i >> 8);
            uint32_t o = map ? mc_registry_map_apply(map, count, v, mc_registry_air(out_reg)) : v;
            if (ids) {
                printf("%d %d %d %u\n", bx + x, by + y, bz + z, o);
                continue;
            }
            const char *name = buf;
            if (v < count) {
                if (!names[v]) {
                    if (!mc_registry_format_state(out_reg, o, buf, sizeof buf, MC_FORMAT_SORTED))
                        snprintf(buf, sizeof buf, "#%u", o);
                    names[v] = strdup(buf);
                }
                name = names[v] ? names[v] : "?";
            } else {
                snprintf(buf, sizeof buf, "#%u", v);
            }
            printf("%d %d %d %s\n", bx + x, by + y, bz + z, name);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return ferror(stdout) ? MC_EXIT_FAIL : MC_EXIT_OK;
}
