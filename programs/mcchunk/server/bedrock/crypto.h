/*
 * crypto.h: what Bedrock's optional encryption needs, all through OpenSSL
 * (crypto.c): the server's key pair on secp384r1, the shared secret with a
 * client's public key (ECDH), the handshake token (a JWT signed ES384 that
 * carries the salt and the server's public key), the stream ciphers of
 * both directions and the per-packet checksum, and base64 in both forms
 * (the login's JWTs use the URL-safe one).
 *
 * The protocol (as the game and bedrock-protocol do it): key = SHA-256(salt
 * || shared secret); from 1.16.220 both directions are AES-256-GCM used as
 * a stream without tags, which is AES-256-CTR with the counter block
 * key[0..12) || 00 00 00 02 (GCM's first block after J0), before it
 * AES-256-CFB8 with IV key[0..16); each batch's plaintext is followed by
 * SHA-256(send counter as u64le || plaintext || key)[0..8), the counters
 * counting batches from 0 in each direction.
 */
#ifndef MC_SERVER_BEDROCK_CRYPTO_H
#define MC_SERVER_BEDROCK_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcchunk/core.h"

/* Base64 (standard, padded) of data; URL-safe without padding when `url`. */
void srv_base64_encode(mc_buf *out, const void *data, size_t len, bool url);
/* Decodes standard or URL-safe base64, padded or not; false when malformed. */
bool srv_base64_decode(mc_buf *out, const char *text, size_t len);

typedef struct srv_bcipher srv_bcipher;

/* Sets up encryption with a client whose public key is `client_key_b64`
 * (base64 DER SubjectPublicKeyInfo, as the login carries it): makes the
 * server's key pair and a salt, derives the key, and writes the handshake
 * token (the JWT of ServerToClientHandshake) into token. cfb8: the
 * pre-1.16.220 cipher. NULL with a reason in `why` when the key is not a
 * P-384 key or OpenSSL fails. */
srv_bcipher *srv_bcipher_new(const char *client_key_b64, size_t key_len, bool cfb8, mc_buf *token, char *why,
                             size_t why_len);
void srv_bcipher_free(srv_bcipher *c);

/* Outgoing batch: appends encrypt(plain || checksum) to out. */
bool srv_bcipher_seal(srv_bcipher *c, const uint8_t *plain, size_t len, mc_buf *out);
/* Incoming batch: decrypts data in place and checks the checksum; *plain_len
 * gets the plaintext's length (the checksum cut off). False when it does
 * not match (a forged or out-of-order batch). */
bool srv_bcipher_open(srv_bcipher *c, uint8_t *data, size_t len, size_t *plain_len);

#endif
