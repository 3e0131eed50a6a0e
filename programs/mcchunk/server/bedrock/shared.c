/* shared.c: the Bedrock clients' shared state (shared.h). */
#include "server/bedrock/shared.h"

void srv_bshared_flush(srv_bshared *sh)
{
    if (sh->uv) /* the binding batches what goes out */
        srv_rak_uv_flush(sh->uv);
    else if (sh->rak) /* the caller's endpoint, on its own clock */
        srv_rak_flush(sh->rak, srv_rak_now(sh->rak));
}

srv_bitems *srv_bshared_items(srv_bshared *sh)
{
    if (!sh->items && !sh->items_failed) {
        sh->items = srv_bitems_load();
        sh->items_failed = !sh->items;
        if (sh->items_failed)
            srv_log(sh->srv, MC_LOG_ERROR, "bedrock: the item palettes cannot be read (out of memory?)");
    }
    return sh->items;
}

bool srv_bshared_hashed(const srv_bshared *sh)
{
    return !sh->srv->cfg->bedrock_index_ids;
}
