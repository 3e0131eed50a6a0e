/* cmd_world_convert.c: placeholder while being written. */
#include <stdio.h>
#include "commands.h"
#include "world/subcommands.h"
int world_cmd_convert(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "mcchunk world convert: not written yet\n");
    return MC_EXIT_FAIL;
}
