/*
 * view.c: a player's set of columns and its queue (view.h). The set is an
 * open-addressed table of packed keys, kept at most half full; the queue is
 * rebuilt on every recenter (a player crosses a column border at most a few
 * times a second) and sorted by distance from the center.
 */
#define _GNU_SOURCE /* qsort_r */
#include "server/view.h"

#include <stdlib.h>

static uint64_t key_of(int32_t x, int32_t z)
{
    return ((uint64_t)(uint32_t)(x + 0x40000000) << 32) | (uint32_t)(z + 0x40000000);
}

static size_t slot_of(uint64_t k, size_t cap)
{
    return (size_t)(k * 0x9E3779B97F4A7C15ULL >> 20) & (cap - 1);
}

static bool set_has(const srv_view *v, uint64_t k)
{
    if (!v->loaded_cap)
        return false;
    for (size_t i = slot_of(k, v->loaded_cap); v->loaded[i]; i = (i + 1) & (v->loaded_cap - 1))
        if (v->loaded[i] == k)
            return true;
    return false;
}

static void set_rebuild(srv_view *v, size_t cap);

static bool set_add(srv_view *v, uint64_t k)
{
    if ((v->loaded_n + 1) * 2 > v->loaded_cap)
        set_rebuild(v, v->loaded_cap ? v->loaded_cap * 2 : 256);
    if (!v->loaded)
        return false;
    size_t i = slot_of(k, v->loaded_cap);
    for (; v->loaded[i]; i = (i + 1) & (v->loaded_cap - 1))
        if (v->loaded[i] == k)
            return false;
    v->loaded[i] = k;
    v->loaded_n++;
    return true;
}

static void set_rebuild(srv_view *v, size_t cap)
{
    uint64_t *old = v->loaded;
    size_t oldcap = v->loaded_cap;
    v->loaded = calloc(cap, sizeof *v->loaded);
    v->loaded_cap = v->loaded ? cap : 0;
    v->loaded_n = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] && v->loaded)
            set_add(v, old[i]);
    free(old);
}

static int cmp_dist(const void *a, const void *b, void *ctx)
{
    const int32_t *pa = a, *pb = b, *center = ctx;
    int64_t da = (int64_t)(pa[0] - center[0]) * (pa[0] - center[0]) + (int64_t)(pa[1] - center[1]) * (pa[1] - center[1]);
    int64_t db = (int64_t)(pb[0] - center[0]) * (pb[0] - center[0]) + (int64_t)(pb[1] - center[1]) * (pb[1] - center[1]);
    return da < db ? -1 : da > db;
}

bool srv_view_recenter(srv_view *v, int32_t cx, int32_t cz, int vd, void (*left)(void *user, int32_t x, int32_t z),
                       void *user)
{
    v->cx = cx;
    v->cz = cz;
    v->vd = vd;
    /* Forget the columns now out of range: the set is rebuilt without them. */
    uint64_t *old = v->loaded;
    size_t oldcap = v->loaded_cap;
    v->loaded = NULL;
    v->loaded_cap = v->loaded_n = 0;
    set_rebuild(v, oldcap ? oldcap : 256);
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i])
            continue;
        int32_t x = (int32_t)(old[i] >> 32) - 0x40000000, z = (int32_t)(uint32_t)old[i] - 0x40000000;
        if (abs(x - cx) > vd || abs(z - cz) > vd) {
            if (left)
                left(user, x, z);
        } else {
            set_add(v, old[i]);
        }
    }
    free(old);
    /* The queue becomes every wanted column not there yet. */
    size_t side = (size_t)(2 * vd + 1), need = side * side * 2;
    if (v->qcap < need) {
        int32_t *q = realloc(v->queue, need * sizeof *q);
        if (!q)
            return false;
        v->queue = q;
        v->qcap = need;
    }
    v->qhead = v->qlen = 0;
    for (int32_t dz = -vd; dz <= vd; dz++)
        for (int32_t dx = -vd; dx <= vd; dx++)
            if (!set_has(v, key_of(cx + dx, cz + dz))) {
                v->queue[2 * v->qlen] = cx + dx;
                v->queue[2 * v->qlen + 1] = cz + dz;
                v->qlen++;
            }
    int32_t center[2] = {cx, cz};
    qsort_r(v->queue, v->qlen, 2 * sizeof(int32_t), cmp_dist, center);
    return v->loaded != NULL;
}

bool srv_view_next(srv_view *v, int32_t *x, int32_t *z)
{
    if (v->qhead >= v->qlen)
        return false;
    *x = v->queue[2 * v->qhead];
    *z = v->queue[2 * v->qhead + 1];
    v->qhead++;
    return true;
}

void srv_view_add(srv_view *v, int32_t x, int32_t z)
{
    set_add(v, key_of(x, z));
}

bool srv_view_has(const srv_view *v, int32_t x, int32_t z)
{
    return set_has(v, key_of(x, z));
}

size_t srv_view_waiting(const srv_view *v)
{
    return v->qlen - v->qhead;
}

size_t srv_view_memory(const srv_view *v)
{
    return v->loaded_cap * sizeof *v->loaded + v->qcap * sizeof *v->queue;
}

void srv_view_free(srv_view *v)
{
    free(v->loaded);
    free(v->queue);
    v->loaded = NULL;
    v->queue = NULL;
    v->loaded_cap = v->loaded_n = v->qcap = v->qlen = v->qhead = 0;
}
