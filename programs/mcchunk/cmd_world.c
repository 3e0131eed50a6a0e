/*
 * cmd_world.c: `mcchunk world`, whole worlds: info, stats, convert, prune,
 * verify, create, relight. Each subcommand lives in cmd_world_<name>.c
 * and runs on the pipeline in programs/mcchunk/world/ (world.h): regions
 * in parallel, bounded memory, progress on a terminal, Ctrl-C clean,
 * --shard K/N for spreading one world over many machines.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "world/world.h"
#include "world/subcommands.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} subcommands[] = {
    {"info", world_cmd_info, "name, versions, spawn, seed, dimensions, chunk counts, sizes, timestamps"},
    {"stats", world_cmd_stats, "block-state, biome, block entity and entity counts (by y, biome, ...)"},
    {"convert", world_cmd_convert, "the whole world to another Java version, crash-safe and resumable"},
    {"prune", world_cmd_prune, "delete chunks by InhabitedTime, status or position; compact the files"},
    {"verify", world_cmd_verify, "check every region file, chunk positions, level.dat, DataVersions"},
    {"create", world_cmd_create, "write the built-in world as a Java world of any version"},
    {"relight", world_cmd_relight, "recompute the light of every full chunk with the light engine"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: mcchunk world SUBCOMMAND DIR [options]   (mcchunk world SUBCOMMAND --help)\n\n"
                 "Whole Java worlds (a folder with region/, or the 26.1 dimensions/ layout),\n"
                 "every dimension unless --dimension, region by region on every core. A folder\n"
                 "with neither level.dat nor a region, entities or poi file (r.<x>.<z>.mca) in\n"
                 "any dimension is not a world: the subcommands that read one refuse it (exit 1).\n");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].help);
    fprintf(out, "\nexit status: 0 ok, 1 the work failed or found problems, 2 usage error\n");
}

int mc_cmd_world(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? MC_EXIT_USAGE : MC_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name)) {
            /* from here a Ctrl-C is a clean stop, in the setup too */
            world_stop_install();
            return subcommands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "mcchunk world: unknown subcommand '%s'\n\n", argv[1]);
    usage(stderr);
    return MC_EXIT_USAGE;
}
