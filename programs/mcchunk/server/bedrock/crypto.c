/*
 * crypto.c: Bedrock encryption through OpenSSL (crypto.h says what the
 * protocol asks). Nothing here is hand-written cryptography: key pairs,
 * ECDH, SHA-256, ECDSA and AES are OpenSSL's EVP calls; this file only puts
 * the protocol's pieces together (which bytes are hashed, which IV).
 */
#include "server/bedrock/crypto.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

struct srv_bcipher {
    EVP_CIPHER_CTX *enc, *dec;
    uint8_t key[32];
    uint64_t send_counter, recv_counter;
};

/* --------------------------------------------------------------- base64 */

void srv_base64_encode(mc_buf *out, const void *data, size_t len, bool url)
{
    size_t need = 4 * ((len + 2) / 3) + 1;
    if (!mc_buf_reserve(out, need))
        return;
    char *p = (char *)out->data + out->len;
    int n = EVP_EncodeBlock((unsigned char *)p, data, (int)len);
    if (url) {
        while (n > 0 && p[n - 1] == '=')
            n--;
        for (int i = 0; i < n; i++)
            p[i] = p[i] == '+' ? '-' : p[i] == '/' ? '_' : p[i];
    }
    out->len += (size_t)n;
}

bool srv_base64_decode(mc_buf *out, const char *text, size_t len)
{
    if (len > ((size_t)64 << 20))
        return false;
    /* to the standard alphabet, padded to a multiple of 4 */
    mc_buf std;
    mc_buf_init(&std, NULL);
    for (size_t i = 0; i < len; i++) {
        char ch = text[i] == '-' ? '+' : text[i] == '_' ? '/' : text[i];
        mc_buf_put_u8(&std, (uint8_t)ch);
    }
    while (std.len % 4)
        mc_buf_put_u8(&std, '=');
    bool ok = mc_buf_ok(&std) && mc_buf_reserve(out, std.len / 4 * 3 + 1);
    if (ok && std.len) {
        int n = EVP_DecodeBlock(out->data + out->len, std.data, (int)std.len);
        ok = n >= 0;
        if (ok) {
            /* EVP_DecodeBlock counts padding as zero bytes */
            size_t pad = 0;
            while (pad < 2 && std.data[std.len - 1 - pad] == '=')
                pad++;
            out->len += (size_t)n - pad;
        }
    }
    mc_buf_free(&std);
    return ok;
}

/* ------------------------------------------------------------- handshake */

static EVP_PKEY *client_key(const char *b64, size_t len)
{
    mc_buf der;
    mc_buf_init(&der, NULL);
    EVP_PKEY *key = NULL;
    if (srv_base64_decode(&der, b64, len)) {
        const unsigned char *p = der.data;
        key = d2i_PUBKEY(NULL, &p, (long)der.len);
    }
    mc_buf_free(&der);
    char group[64];
    size_t glen = 0;
    if (key && (EVP_PKEY_base_id(key) != EVP_PKEY_EC ||
                !EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &glen) ||
                strcmp(group, "secp384r1"))) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return key;
}

/* The JWT's ES384 signature over "header.payload": OpenSSL gives DER; JWS
 * wants r || s, 48 bytes each. */
static bool sign_es384(EVP_PKEY *key, const uint8_t *msg, size_t len, uint8_t sig[96])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t der[128];
    size_t der_len = sizeof der;
    bool ok = md && EVP_DigestSignInit(md, NULL, EVP_sha384(), NULL, key) == 1 &&
              EVP_DigestSign(md, der, &der_len, msg, len) == 1;
    EVP_MD_CTX_free(md);
    if (!ok)
        return false;
    const unsigned char *p = der;
    ECDSA_SIG *s = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    if (!s)
        return false;
    ok = BN_bn2binpad(ECDSA_SIG_get0_r(s), sig, 48) == 48 && BN_bn2binpad(ECDSA_SIG_get0_s(s), sig + 48, 48) == 48;
    ECDSA_SIG_free(s);
    return ok;
}

static bool handshake_token(EVP_PKEY *server, const uint8_t salt[16], mc_buf *token)
{
    uint8_t *der = NULL;
    int der_len = i2d_PUBKEY(server, &der);
    if (der_len <= 0)
        return false;
    mc_buf pub, head, body;
    mc_buf_init(&pub, NULL);
    mc_buf_init(&head, NULL);
    mc_buf_init(&body, NULL);
    srv_base64_encode(&pub, der, (size_t)der_len, false);
    OPENSSL_free(der);
    mc_buf_put(&head, "{\"alg\":\"ES384\",\"x5u\":\"", 22);
    mc_buf_put(&head, pub.data, pub.len);
    mc_buf_put(&head, "\"}", 2);
    mc_buf_put(&body, "{\"salt\":\"", 9);
    srv_base64_encode(&body, salt, 16, false);
    mc_buf_put(&body, "\"}", 2);
    srv_base64_encode(token, head.data, head.len, true);
    mc_buf_put_u8(token, '.');
    srv_base64_encode(token, body.data, body.len, true);
    uint8_t sig[96];
    bool ok = mc_buf_ok(token) && sign_es384(server, token->data, token->len, sig);
    if (ok) {
        mc_buf_put_u8(token, '.');
        srv_base64_encode(token, sig, sizeof sig, true);
        ok = mc_buf_ok(token);
    }
    mc_buf_free(&pub);
    mc_buf_free(&head);
    mc_buf_free(&body);
    return ok;
}

static bool derive_key(EVP_PKEY *server, EVP_PKEY *client, const uint8_t salt[16], uint8_t key[32])
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(server, NULL);
    uint8_t secret[64];
    size_t n = sizeof secret;
    bool ok = ctx && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, client) == 1 &&
              EVP_PKEY_derive(ctx, secret, &n) == 1;
    EVP_PKEY_CTX_free(ctx);
    if (!ok)
        return false;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int out_len = 0;
    ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 && EVP_DigestUpdate(md, salt, 16) == 1 &&
         EVP_DigestUpdate(md, secret, n) == 1 && EVP_DigestFinal_ex(md, key, &out_len) == 1 && out_len == 32;
    EVP_MD_CTX_free(md);
    OPENSSL_cleanse(secret, sizeof secret);
    return ok;
}

static bool start_ciphers(srv_bcipher *c, bool cfb8)
{
    uint8_t iv[16];
    const EVP_CIPHER *type;
    if (cfb8) {
        memcpy(iv, c->key, 16);
        type = EVP_aes_256_cfb8();
    } else { /* GCM without tags: CTR from the block after J0 = iv || 00000001 */
        memcpy(iv, c->key, 12);
        iv[12] = 0, iv[13] = 0, iv[14] = 0, iv[15] = 2;
        type = EVP_aes_256_ctr();
    }
    c->enc = EVP_CIPHER_CTX_new();
    c->dec = EVP_CIPHER_CTX_new();
    return c->enc && c->dec && EVP_EncryptInit_ex(c->enc, type, NULL, c->key, iv) == 1 &&
           EVP_DecryptInit_ex(c->dec, type, NULL, c->key, iv) == 1;
}

srv_bcipher *srv_bcipher_new(const char *client_key_b64, size_t key_len, bool cfb8, mc_buf *token, char *why,
                             size_t why_len)
{
    EVP_PKEY *peer = client_key(client_key_b64, key_len);
    if (!peer) {
        snprintf(why, why_len, "the client's public key is not a base64 P-384 key");
        return NULL;
    }
    srv_bcipher *c = OPENSSL_zalloc(sizeof *c);
    EVP_PKEY *server = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
    uint8_t salt[16];
    bool ok = c && server && RAND_bytes(salt, sizeof salt) == 1 && derive_key(server, peer, salt, c->key) &&
              handshake_token(server, salt, token) && start_ciphers(c, cfb8);
    EVP_PKEY_free(server);
    EVP_PKEY_free(peer);
    if (!ok) {
        snprintf(why, why_len, "OpenSSL could not set up encryption");
        srv_bcipher_free(c);
        return NULL;
    }
    return c;
}

void srv_bcipher_free(srv_bcipher *c)
{
    if (!c)
        return;
    EVP_CIPHER_CTX_free(c->enc);
    EVP_CIPHER_CTX_free(c->dec);
    OPENSSL_clear_free(c, sizeof *c);
}

/* --------------------------------------------------------------- batches */

static bool checksum(const srv_bcipher *c, uint64_t counter, const uint8_t *data, size_t len, uint8_t out[8])
{
    uint8_t le[8], hash[32];
    mc_store_u64le(le, counter);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned int n = 0;
    bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 && EVP_DigestUpdate(md, le, 8) == 1 &&
              EVP_DigestUpdate(md, data, len) == 1 && EVP_DigestUpdate(md, c->key, 32) == 1 &&
              EVP_DigestFinal_ex(md, hash, &n) == 1;
    EVP_MD_CTX_free(md);
    memcpy(out, hash, 8);
    return ok;
}

bool srv_bcipher_seal(srv_bcipher *c, const uint8_t *plain, size_t len, mc_buf *out)
{
    uint8_t sum[8];
    if (len > 0x7FFFFFF0u || !checksum(c, c->send_counter++, plain, len, sum) || !mc_buf_reserve(out, len + 8))
        return false;
    int n1 = 0, n2 = 0;
    uint8_t *p = out->data + out->len;
    if (EVP_EncryptUpdate(c->enc, p, &n1, plain, (int)len) != 1 || EVP_EncryptUpdate(c->enc, p + n1, &n2, sum, 8) != 1)
        return false;
    out->len += (size_t)n1 + (size_t)n2;
    return true;
}

bool srv_bcipher_open(srv_bcipher *c, uint8_t *data, size_t len, size_t *plain_len)
{
    int n = 0;
    if (len < 8 || len > 0x7FFFFFF0u || EVP_DecryptUpdate(c->dec, data, &n, data, (int)len) != 1 || (size_t)n != len)
        return false;
    uint8_t sum[8];
    if (!checksum(c, c->recv_counter++, data, len - 8, sum) || CRYPTO_memcmp(sum, data + len - 8, 8) != 0)
        return false;
    *plain_len = len - 8;
    return true;
}
