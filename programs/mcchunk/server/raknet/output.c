/*
 * output.c: the two ways the RakNet endpoint speaks outward, shared by the
 * endpoint's offline handshake (endpoint.c) and each peer's connected layer
 * (peer.c): a datagram handed to the socket callback (and counted), and a
 * log line handed to the log callback.
 */
#include <stdarg.h>
#include <stdio.h>

#include "server/raknet/raknet_private.h"

void srv__rak_log(srv_rak *rak, int level, const char *fmt, ...)
{
    if (!rak->cb.log)
        return;
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rak->cb.log(rak->cb.user, level, line);
}

void srv__rak_emit(srv_rak *rak, const srv_rak_addr *to, const uint8_t *data, size_t len)
{
    rak->stats.datagrams_sent++;
    rak->cb.send(rak->cb.user, to, data, len);
}
