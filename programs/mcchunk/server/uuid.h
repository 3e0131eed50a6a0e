/* uuid.h: the offline-mode player UUID and its text form. */
#ifndef MC_SERVER_UUID_H
#define MC_SERVER_UUID_H

#include <stddef.h>
#include <stdint.h>

/* The UUID the game gives an offline player: MD5("OfflinePlayer:" + name) with
 * the version set to 3 and the IETF variant (a name-based UUID, RFC 4122 §4.3).
 * Names longer than 64 bytes are cut at 64 (the protocol allows 16). */
void srv_offline_uuid(const char *name, size_t len, uint8_t uuid[16]);
/* 8-4-4-4-12 lower-case hex with hyphens. */
void srv_uuid_format(const uint8_t uuid[16], char out[37]);

#endif
