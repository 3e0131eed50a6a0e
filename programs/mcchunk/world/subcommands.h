/*
 * world/subcommands.h: the `mcchunk world` subcommands (cmd_world_*.c), each
 * called with argv from its own name on (argv[0] = "info") and returning
 * an MC_EXIT_* code; cmd_world.c dispatches.
 */
#ifndef MC_TOOLS_WORLD_SUBCOMMANDS_H
#define MC_TOOLS_WORLD_SUBCOMMANDS_H

int world_cmd_info(int argc, char **argv);
int world_cmd_stats(int argc, char **argv);
int world_cmd_convert(int argc, char **argv);
int world_cmd_prune(int argc, char **argv);
int world_cmd_verify(int argc, char **argv);
int world_cmd_create(int argc, char **argv);
int world_cmd_relight(int argc, char **argv);

#endif
