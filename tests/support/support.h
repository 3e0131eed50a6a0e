/*
 * support.h: helpers shared by the cmocka unit tests.
 *
 * Corpus files (real files written by vanilla Minecraft) live outside the
 * project in ../shared/corpus; tests never copy them. mc_test_corpus_path()
 * finds that folder (env MCCHUNK_CORPUS, else the path CMake baked in) and
 * returns NULL when it is absent, so a test can skip only the cases that need
 * it: call MC_SKIP_WITHOUT_CORPUS() first.
 */
#ifndef MC_TEST_SUPPORT_H
#define MC_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mcchunk/core.h"
#include "mcchunk/registry.h"

/* Root of the corpus, or NULL when it is not there. */
const char *mc_test_corpus_dir(void);
/* corpus root + "/" + rel, in a static buffer; NULL without corpus. */
const char *mc_test_corpus_path(const char *rel);
/* Reads a file fully (malloc'd); fails the test on error. */
uint8_t *mc_test_read_file(const char *path, size_t *len);
/* Lists files under corpus/rel (recursively) whose names end in `suffix`.
 * Returns a malloc'd NULL-terminated array of malloc'd paths (sorted);
 * free with mc_test_free_list. Empty list without corpus. */
char **mc_test_list_corpus(const char *rel, const char *suffix);
void mc_test_free_list(char **list);
/* The `mcchunk` tool built beside the test program; skips the test (with a
 * message) when it is not there. The path is a static buffer. */
const char *mc_test_tool(void);
/* Runs `mcchunk ARGS` (args: a shell-quoted argument string), output
 * discarded; returns its exit status (-1 when it did not exit). */
int mc_test_run_tool(const char *args);
/* The registry of a Java or Bedrock version name; fails the test when
 * there is none. */
const mc_registry *mc_test_registry(const char *version);
/* A state of `reg` from its text (minecraft:name[k=v,...], as
 * mc_registry_parse_state reads it); fails the test naming the text when
 * `reg` has no such state. */
uint32_t mc_test_state(const mc_registry *reg, const char *text);
/* A small deterministic PRNG (xorshift64*) for property tests. */
typedef struct { uint64_t s; } mc_test_rng;
static inline uint64_t mc_test_rand(mc_test_rng *r)
{
    r->s ^= r->s >> 12; r->s ^= r->s << 25; r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

#define MC_SKIP_WITHOUT_CORPUS()                                               \
    do {                                                                       \
        if (!mc_test_corpus_dir()) {                                           \
            print_message("corpus absent (../shared/corpus): skipping %s\n",   \
                          __func__);                                           \
            skip();                                                            \
        }                                                                      \
    } while (0)

#endif
