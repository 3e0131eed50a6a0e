/*
 * view.h: a player's view of the world as a set (view.c): the columns it
 * has been sent, within the view distance of the column it stands in, and
 * the queue of those it still lacks, nearest first. Both editions' players
 * use it; what "sending" and "unloading" mean is theirs.
 */
#ifndef MC_SERVER_VIEW_H
#define MC_SERVER_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_view {
    int32_t cx, cz;   /* column the player stands in */
    int vd;           /* view distance (columns each way) */
    uint64_t *loaded; /* set of packed (x, z); 0 = empty slot (the key is offset) */
    size_t loaded_cap, loaded_n;
    int32_t *queue;   /* (x, z) pairs still to send, nearest first */
    size_t qhead, qlen, qcap;
    uint64_t sent_total;
} srv_view;

/* Centers the view on (cx, cz) with distance vd: every column it had that
 * is now farther than vd in x or z is forgotten (`left` is told, may be
 * NULL), and the queue becomes every column within vd it does not have,
 * nearest first. False when out of memory. */
bool srv_view_recenter(srv_view *v, int32_t cx, int32_t cz, int vd, void (*left)(void *user, int32_t x, int32_t z),
                       void *user);
/* Takes the next column the view lacks (false when none is left). */
bool srv_view_next(srv_view *v, int32_t *x, int32_t *z);
/* The column was sent: the view has it. */
void srv_view_add(srv_view *v, int32_t x, int32_t z);
bool srv_view_has(const srv_view *v, int32_t x, int32_t z);
/* Columns still queued. */
size_t srv_view_waiting(const srv_view *v);
/* Bytes the view holds (its set and queue). */
size_t srv_view_memory(const srv_view *v);
void srv_view_free(srv_view *v);

#endif
