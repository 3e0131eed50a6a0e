/*
 * doc.h: what doc.c gives the rest of the NBT module: the document's arena
 * (8-byte aligned allocations; the fast path, a pointer bump, inline here,
 * everything else out of line in doc.c) and new tags carved from it.
 * Private to src/nbt.
 */
#ifndef MC_NBT_DOC_H
#define MC_NBT_DOC_H

#include "nbt/nbt_internal.h"

/* Arena allocation (8-byte aligned), NULL on failure (doc->budget_hit tells
 * whether the budget or the allocator refused). The fast path is a pointer
 * bump; everything else is in the slow path. */
void *mc__arena_alloc_slow(mc_nbt_doc *doc, size_t size);
static inline void *mc__arena_alloc(mc_nbt_doc *doc, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (size <= (size_t)(doc->end - doc->cur)) {
        void *p = doc->cur;
        doc->cur += size;
        return p;
    }
    return mc__arena_alloc_slow(doc, size);
}
/* Starts / ends a budgeted stretch (a parse): afterwards the arena is
 * unlimited again. */
void mc__arena_budget(mc_nbt_doc *doc, size_t budget);
void *mc__arena_dup(mc_nbt_doc *doc, const void *src, size_t n);

/* A new detached tag of `type`, zeroed. */
mc_nbt_tag *mc__tag_new(mc_nbt_doc *doc, mc_nbt_type type);

#endif
