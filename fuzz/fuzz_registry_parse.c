/*
 * fuzz_registry_parse.c: the block-state text parser (mc_registry_parse_state)
 * on arbitrary bytes. The first input byte picks the registry (Java legacy,
 * flattened, or Bedrock); the rest is the text. Whatever parses must be a
 * valid state whose printed form parses back to the same id; whatever fails
 * must fail with a status and a message, leaving the output untouched.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const mc_registry *reg = mc_registry_at(data[0] % mc_registry_count());
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    uint32_t state = 0xDEADBEEF;
    mc_error err;
    mc_error_clear(&err);
    mc_status st = mc_registry_parse_state(reg, text, len, &state, &err);
    if (st != MC_OK) {
        if (state != 0xDEADBEEF || err.status != st || !err.message[0])
            abort();
        return 0;
    }
    if (!mc_registry_state_valid(reg, state))
        abort();
    char buf[1024];
    size_t n = mc_registry_format_state(reg, state, buf, sizeof buf, MC_FORMAT_SORTED);
    uint32_t again;
    if (n == 0 || n >= sizeof buf || mc_registry_parse_state(reg, buf, n, &again, NULL) != MC_OK || again != state)
        abort();
    /* translation of a parsed state always lands on a valid state */
    const mc_registry *to = mc_registry_at((data[0] / 7u) % mc_registry_count());
    if (!mc_registry_state_valid(to, mc_registry_translate_state(reg, to, state, NULL)))
        abort();
    return 0;
}
