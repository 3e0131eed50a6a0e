/*
 * corpus_region.h: a test-only reader for the chunks of a real region file,
 * so that NBT tests can reach every chunk payload of the corpus without
 * depending on the region module (src/anvil), which is tested on its own.
 * It knows just enough Anvil: the 4 KiB offset table, the 5-byte chunk
 * header, zlib/gzip/uncompressed payloads (others are skipped and counted).
 */
#ifndef MC_TEST_CORPUS_REGION_H
#define MC_TEST_CORPUS_REGION_H

#include <stddef.h>
#include <stdint.h>

/* Called once per chunk with its inflated NBT; return nonzero to stop. */
typedef int (*mc_test_chunk_fn)(void *user, int index, const uint8_t *nbt, size_t len);

/* Reads region file `path` and calls fn for every chunk it holds, in table
 * order. Returns the number of chunks delivered, or -1 when the file cannot
 * be read or a chunk is corrupt. *skipped (may be NULL) counts chunks in
 * compressions this helper does not inflate (LZ4, external). */
int mc_test_region_chunks(const char *path, mc_test_chunk_fn fn, void *user, int *skipped);

#endif
