/*
 * fuzz_registry_parse.c: the block-state text parser (mc_registry_parse_state)
 * on arbitrary bytes. The first input byte picks the registry (Java legacy,
 * flattened, or Bedrock); the rest is the text. Whatever parses must be a
 * valid state whose printed form parses back to the same id (1.8-1.12: to
 * an id with the same printed form, as torch:0 and torch:5 are both
 * facing=up); whatever fails must fail with a status and a message, leaving
 * the output untouched. A translated state is valid, and has a kind.
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
    if (n == 0 || n >= sizeof buf || mc_registry_parse_state(reg, buf, n, &again, NULL) != MC_OK)
        abort();
    if (again != state) {
        char buf2[1024];
        if (mc_registry_state_count(reg) != 4096 ||
            mc_registry_format_state(reg, again, buf2, sizeof buf2, MC_FORMAT_SORTED) != n || memcmp(buf, buf2, n))
            abort();
    }
    /* translation of a parsed state always lands on a valid state */
    const mc_registry *to = mc_registry_at((data[0] / 7u) % mc_registry_count());
    unsigned how = 0;
    if (!mc_registry_state_valid(to, mc_registry_translate_state(reg, to, state, &how)) ||
        mc_translate_kind_of(how) == MC_TRANSLATE_KIND_LOST)
        abort();
    return 0;
}
