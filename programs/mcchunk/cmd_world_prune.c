/* cmd_world_prune.c: placeholder while being written. */
#include <stdio.h>
#include "commands.h"
#include "world/subcommands.h"
int world_cmd_prune(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "mcchunk world prune: not written yet\n");
    return MC_EXIT_FAIL;
}
