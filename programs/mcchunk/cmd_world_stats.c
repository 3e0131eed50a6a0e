/* cmd_world_stats.c: placeholder while being written. */
#include <stdio.h>
#include "commands.h"
#include "world/subcommands.h"
int world_cmd_stats(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "mcchunk world stats: not written yet\n");
    return MC_EXIT_FAIL;
}
