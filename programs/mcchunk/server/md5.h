/* md5.h: MD5 and the offline-mode player UUID derived from it. */
#ifndef MC_SERVER_MD5_H
#define MC_SERVER_MD5_H

#include <stddef.h>
#include <stdint.h>

void mc_md5(const void *data, size_t len, uint8_t out[16]);
/* The UUID the game gives an offline player: MD5("OfflinePlayer:" + name) with
 * the version set to 3 and the IETF variant. */
void mc_offline_uuid(const char *name, size_t len, uint8_t uuid[16]);
/* 8-4-4-4-12 lower-case hex with hyphens. */
void mc_uuid_format(const uint8_t uuid[16], char out[37]);

#endif
