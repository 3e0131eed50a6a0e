/*
 * login.c: the Login packet's identity (login.h), read with jansson for the
 * JSON and OpenSSL's base64 for the JWTs. Every string the client sends is
 * bounded before it is used: the name must be printable and short, the
 * UUID must parse, the key is kept only when it fits.
 */
#include "server/bedrock/login.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "mcchunk/core.h"
#include "server/bedrock/crypto.h"
#include "server/uuid.h"

/* The identity and client JWTs together; a larger login is not a player. */
#define MAX_TOKENS ((size_t)8 << 20)

/* Decodes part `part` (0 header, 1 payload) of a JWT as JSON, or NULL. */
static json_t *jwt_part(const char *jwt, size_t len, int part)
{
    const char *p = jwt, *end = jwt + len;
    for (int i = 0; i < part; i++) {
        p = memchr(p, '.', (size_t)(end - p));
        if (!p)
            return NULL;
        p++;
    }
    const char *dot = memchr(p, '.', (size_t)(end - p));
    size_t n = dot ? (size_t)(dot - p) : (size_t)(end - p);
    mc_buf raw;
    mc_buf_init(&raw, NULL);
    json_t *j = NULL;
    if (srv_base64_decode(&raw, p, n) && raw.len)
        j = json_loadb((const char *)raw.data, raw.len, 0, NULL);
    mc_buf_free(&raw);
    return j;
}

static void copy_string(char *dst, size_t cap, json_t *s)
{
    const char *v = json_string_value(s);
    if (v && strlen(v) < cap && !dst[0])
        snprintf(dst, cap, "%s", v);
}

/* What one JWT of the chain (or the Token) says about the player. */
static void read_claims(srv_blogin *out, json_t *claims)
{
    json_t *extra = json_object_get(claims, "extraData");
    if (json_is_object(extra)) {
        copy_string(out->name, sizeof out->name, json_object_get(extra, "displayName"));
        copy_string(out->uuid_text, sizeof out->uuid_text, json_object_get(extra, "identity"));
        copy_string(out->xuid, sizeof out->xuid, json_object_get(extra, "XUID"));
    }
    /* 1.21.90+ multiplayer token (offline clients put their identity there) */
    copy_string(out->name, sizeof out->name, json_object_get(claims, "xname"));
    copy_string(out->uuid_text, sizeof out->uuid_text, json_object_get(claims, "identity"));
    copy_string(out->xuid, sizeof out->xuid, json_object_get(claims, "xid"));
    copy_string(out->key, sizeof out->key, json_object_get(claims, "cpk"));
}

/* The chain's JWTs: identity claims from any, the key from the last. */
static void read_chain(srv_blogin *out, json_t *chain)
{
    char last_key[sizeof out->key] = "";
    size_t i;
    json_t *jwt;
    json_array_foreach(chain, i, jwt)
    {
        const char *t = json_string_value(jwt);
        json_t *claims = t && t[0] ? jwt_part(t, strlen(t), 1) : NULL;
        if (!claims)
            continue;
        read_claims(out, claims);
        const char *k = json_string_value(json_object_get(claims, "identityPublicKey"));
        if (k && strlen(k) < sizeof last_key)
            snprintf(last_key, sizeof last_key, "%s", k);
        json_decref(claims);
    }
    if (last_key[0] && !out->key[0])
        snprintf(out->key, sizeof out->key, "%s", last_key);
}

static bool read_identity(srv_blogin *out, const uint8_t *text, size_t len)
{
    json_t *root = json_loadb((const char *)text, len, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        return false;
    }
    json_t *cert = NULL, *chain = json_object_get(root, "chain");
    const char *c = json_string_value(json_object_get(root, "Certificate"));
    if (c && (cert = json_loads(c, 0, NULL)))
        chain = json_object_get(cert, "chain");
    if (json_is_array(chain))
        read_chain(out, chain);
    const char *token = json_string_value(json_object_get(root, "Token"));
    json_t *claims = token && token[0] ? jwt_part(token, strlen(token), 1) : NULL;
    if (claims)
        read_claims(out, claims);
    bool ok = json_is_array(chain) || claims;
    json_decref(claims);
    json_decref(cert);
    json_decref(root);
    return ok;
}

static void read_client_data(srv_blogin *out, const uint8_t *jwt, size_t len)
{
    json_t *head = jwt_part((const char *)jwt, len, 0), *body = jwt_part((const char *)jwt, len, 1);
    copy_string(out->key, sizeof out->key, json_object_get(head, "x5u"));
    copy_string(out->name, sizeof out->name, json_object_get(body, "ThirdPartyName"));
    copy_string(out->device, sizeof out->device, json_object_get(body, "DeviceModel"));
    json_decref(head);
    json_decref(body);
}

static bool printable_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F)
            return false;
    return true;
}

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* "8-4-4-4-12" hex into 16 bytes. */
static bool parse_uuid(const char *s, uint8_t out[16])
{
    if (strlen(s) != 36)
        return false;
    for (int i = 0, b = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            continue;
        }
        int h = hexval(s[i]), l = hexval(s[i + 1]);
        if (h < 0 || l < 0)
            return false;
        out[b++] = (uint8_t)(h << 4 | l);
        i++;
    }
    return true;
}

bool srv_blogin_read(const uint8_t *body, size_t len, srv_blogin *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    mc_error err;
    mc_error_clear(&err);
    mc_reader r;
    mc_reader_init(&r, body, len, "login", &err);
    out->protocol = mc_read_i32be(&r);
    uint32_t tokens_len = mc_read_uvarint32(&r);
    uint32_t id_len = mc_read_u32le(&r);
    const uint8_t *identity = mc_reader_ok(&r) && id_len <= MAX_TOKENS ? mc_read_bytes(&r, id_len, "identity") : NULL;
    uint32_t cd_len = mc_read_u32le(&r);
    const uint8_t *client = mc_reader_ok(&r) && cd_len <= MAX_TOKENS ? mc_read_bytes(&r, cd_len, "client") : NULL;
    if (!identity || !client || (size_t)tokens_len != (size_t)id_len + cd_len + 8) {
        snprintf(why, why_len, "malformed login (tokens of %u bytes)", tokens_len);
        return false;
    }
    if (!read_identity(out, identity, id_len)) {
        snprintf(why, why_len, "the login's identity is not a JSON chain or certificate");
        return false;
    }
    read_client_data(out, client, cd_len);
    if (!printable_name(out->name)) {
        snprintf(why, why_len, "the login names no player (or a name that is not 1-32 printable bytes)");
        return false;
    }
    if (!parse_uuid(out->uuid_text, out->uuid)) {
        out->uuid_text[0] = '\0';
        srv_offline_uuid(out->name, strlen(out->name), out->uuid);
    }
    for (const char *p = out->xuid; *p; p++)
        if (*p < '0' || *p > '9') {
            out->xuid[0] = '\0';
            break;
        }
    for (char *p = out->device; *p; p++)
        if ((unsigned char)*p < 0x20)
            *p = '?';
    return true;
}
