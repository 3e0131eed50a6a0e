/* cmd_version.c: `mcchunk version` prints the library version. */
#include <stdio.h>

#include "commands.h"
#include "mcchunk/core.h"

int mc_cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("mcchunk %s\n", mc_version());
    return MC_EXIT_OK;
}
