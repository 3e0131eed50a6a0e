/* cmd_world_create.c: placeholder while being written. */
#include <stdio.h>
#include "commands.h"
#include "world/subcommands.h"
int world_cmd_create(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "mcchunk world create: not written yet\n");
    return MC_EXIT_FAIL;
}
