/* cmd_version.c: `mcchunk version` prints the library version. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "mcchunk/core.h"

int mc_cmd_version(int argc, char **argv)
{
    if (argc > 1) {
        bool help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        fprintf(help ? stdout : stderr, "%s"
                "usage: mcchunk version\n\n"
                "Prints 'mcchunk VERSION', the library's version.\n"
                "exit status: 0 ok, 2 usage error (any argument)\n", help ? "" : "mcchunk version: takes no arguments\n");
        return help ? MC_EXIT_OK : MC_EXIT_USAGE;
    }
    printf("mcchunk %s\n", mc_version());
    return MC_EXIT_OK;
}
