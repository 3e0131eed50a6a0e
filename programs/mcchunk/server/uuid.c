/*
 * uuid.c: offline-mode player UUIDs. The digest is OpenSSL's MD5 (libcrypto),
 * which the Bedrock side needs for its encryption anyway: the server carries
 * no hash of its own.
 */
#include "server/uuid.h"

#include <string.h>

#include <openssl/evp.h>

void srv_offline_uuid(const char *name, size_t len, uint8_t uuid[16])
{
    static const char prefix[] = "OfflinePlayer:";
    char buf[sizeof prefix - 1 + 64];
    if (len > 64)
        len = 64;
    memcpy(buf, prefix, sizeof prefix - 1);
    memcpy(buf + sizeof prefix - 1, name, len);
    unsigned int n = 16;
    /* EVP_Digest fails only on allocation failure; a zero UUID is then still
     * a well-formed (if shared) identity, never uninitialised bytes. */
    if (!EVP_Digest(buf, sizeof prefix - 1 + len, uuid, &n, EVP_md5(), NULL) || n != 16)
        memset(uuid, 0, 16);
    uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x30); /* version 3 */
    uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80); /* IETF variant */
}

void srv_uuid_format(const uint8_t uuid[16], char out[37])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[uuid[i] >> 4];
        out[o++] = hex[uuid[i] & 15];
    }
    out[o] = '\0';
}
