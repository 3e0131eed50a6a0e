/*
 * main.c: the `mcchunk` command. Dispatches to the subcommands listed in
 * commands.h; each prints its own help with --help.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "mcchunk/core.h"

typedef struct {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} command;

#define MC_TABLE_ENTRY(n, h) {#n, h, mc_cmd_##n},
static const command commands[] = {MC_COMMANDS(MC_TABLE_ENTRY)};
#undef MC_TABLE_ENTRY

static void usage(FILE *out)
{
    fprintf(out, "mcchunk %s: Minecraft chunk data tools\n\n"
                 "usage: mcchunk COMMAND [ARGS...]   (mcchunk COMMAND --help for details)\n\ncommands:\n",
            mc_version());
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(out, "\nexit status: 0 success, 1 the work failed (bad data, a failed check, an absent\n"
                 "chunk), 2 bad usage (unknown command or option, a bad number, an unknown version)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return MC_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("mcchunk %s\n", mc_version());
        return MC_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "mcchunk: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return MC_EXIT_USAGE;
}
