/*
 * login.h: reading a Bedrock Login packet (login.c): the protocol number
 * and the identity the client claims. The server runs in offline mode, like
 * its Java side: the JWTs of the chain are decoded, not verified against
 * Mojang's key, and the session says so in the log.
 *
 * The identity travels as a JSON string:
 *   - {"chain": [JWT, ...]} before 1.21.90: one JWT's payload has extraData
 *     {displayName, identity (UUID), XUID}; the last one's identityPublicKey
 *     is the client's key (base64 DER, P-384);
 *   - 1.21.90+: {"Certificate": "<the same JSON as a string>",
 *     "AuthenticationType": n, "Token": JWT}, where an offline client may
 *     send an empty chain and put its identity in the Token (xname,
 *     identity, cpk = its key);
 * and the client data (skin, device, the name as ThirdPartyName) is a JWT
 * signed with the client's key, whose header's x5u is that key again.
 */
#ifndef MC_SERVER_BEDROCK_LOGIN_H
#define MC_SERVER_BEDROCK_LOGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct srv_blogin {
    int32_t protocol;
    char name[33];        /* display name (gamertag), printable UTF-8 */
    char uuid_text[37];   /* as the chain gives it, or "" */
    uint8_t uuid[16];     /* parsed, or the offline UUID of the name */
    char xuid[24];        /* "" or digits */
    char key[256];        /* the client's public key, base64 DER ("": none found) */
    char device[40];      /* DeviceModel of the client data, for the log */
} srv_blogin;

/* Reads the body of a Login packet (after the id). False with the reason
 * in `why` when it is malformed or names no player. out->protocol is read
 * first: with len >= 4 it is the client's number even when false. */
bool srv_blogin_read(const uint8_t *body, size_t len, srv_blogin *out, char *why, size_t why_len);

#endif
