/*
 * commands.h: the subcommands of the `mcchunk` tool. Each lives in its own
 * file programs/mcchunk/cmd_<name>.c and has the signature below: it gets argv from its
 * own name on (argv[0] = "nbt"), prints its own --help, and returns the exit
 * status (0 success, 1 failure of the work, 2 bad usage).
 *
 * To add a command, add one MC_COMMAND line here and its file.
 */
#ifndef MC_TOOLS_COMMANDS_H
#define MC_TOOLS_COMMANDS_H

#define MC_COMMANDS(X)                                                           \
    X(bedrock, "decode Bedrock subchunks and chunk packets (LevelChunk, SubChunk, requests)") \
    X(chunk, "get or put one chunk of a region file or world (SNBT, JSON, raw NBT)")   \
    X(generate, "print a column of the built-in world (any version)")                \
    X(nbt, "print, query or re-encode an NBT file (SNBT, JSON; Java and Bedrock)")   \
    X(packet, "Java chunk packets (1.8-26.1): encode a chunk for a version, decode a packet") \
    X(region, "region files: info, ls, verify, salvage, compact, relight")                  \
    X(registry, "block states, biomes and versions of every registry")             \
    X(render, "a top-down map of a world: one PNG, or a static web map of tiles")  \
    X(serve, "run the reference server (Java Edition 1.8 to 26.1)")                \
    X(version, "print the library version")                                         \
    X(world, "whole worlds: info, stats, convert, prune, verify, create, relight")

#define MC_DECLARE_COMMAND(name, help) int mc_cmd_##name(int argc, char **argv);
MC_COMMANDS(MC_DECLARE_COMMAND)
#undef MC_DECLARE_COMMAND

/* Exit codes shared by every command. */
enum { MC_EXIT_OK = 0, MC_EXIT_FAIL = 1, MC_EXIT_USAGE = 2 };

#endif
