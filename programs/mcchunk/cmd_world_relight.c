/* cmd_world_relight.c: placeholder while being written. */
#include <stdio.h>
#include "commands.h"
#include "world/subcommands.h"
int world_cmd_relight(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "mcchunk world relight: not written yet\n");
    return MC_EXIT_FAIL;
}
