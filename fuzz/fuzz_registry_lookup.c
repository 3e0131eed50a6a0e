/*
 * fuzz_registry_lookup.c: mc_registry_lookup (name + properties -> state)
 * against the generic lookup it speeds up (mc__lookup_generic, the code the
 * index in src/registry/lookup_index.c must agree with). The first input
 * byte picks the registry; the rest is split at '\n' into the name, then
 * key, value, key, value... (any other byte, NUL included, is part of a
 * string). Both lookups must give the same status and state, and a success
 * must be a valid state.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/registry.h"
#include "registry/reg_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const mc_registry *reg = mc_registry_at(data[0] % mc_registry_count());
    const char *text = (const char *)data + 1, *end = text + size - 1;
    const char *fields[2 * 64 + 1];
    size_t lens[2 * 64 + 1], n = 0;
    for (const char *at = text; n < sizeof fields / sizeof fields[0];) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        fields[n] = at;
        lens[n++] = (size_t)((nl ? nl : end) - at);
        if (!nl)
            break;
        at = nl + 1;
    }
    mc_state_prop props[64];
    size_t count = 0;
    for (size_t i = 1; i + 1 < n; i += 2)
        props[count++] = (mc_state_prop){fields[i], lens[i], fields[i + 1], lens[i + 1]};
    uint32_t fast = 0xDEADBEEF, slow = 0xDEADBEEF;
    mc_error err;
    mc_error_clear(&err);
    mc_status a = mc_registry_lookup(reg, fields[0], lens[0], props, count, &fast, &err);
    mc_status b = mc__lookup_generic(reg, fields[0], lens[0], props, count, &slow, NULL);
    if (a != b || fast != slow)
        abort();
    if (a == MC_OK ? !mc_registry_state_valid(reg, fast) : (err.status != a || !err.message[0]))
        abort();
    return 0;
}
