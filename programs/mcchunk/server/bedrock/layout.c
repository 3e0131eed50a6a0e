/*
 * layout.c: the writer of layouts (layout.h). It walks a packet's field
 * operations once, front to back, keeping three small stacks: the path
 * (field names, so that the caller is asked by name), the element index of
 * each enclosing array, and per container the integer values written in it
 * (what a later switch in that container compares with). A field the
 * caller does not give is written as its type's zero, which for the
 * framing types means an empty array, an absent option, the switch case
 * that zero selects.
 */
#include "server/bedrock/layout.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 32
#define MAX_SCOPE_VALUES 64
#define PATH_MAX_LEN 256

typedef struct scope {
    uint16_t names[MAX_SCOPE_VALUES];
    int64_t values[MAX_SCOPE_VALUES];
    unsigned n;
} scope;

typedef struct writer {
    mc_buf *out;
    srv_bvalue_fn values;
    void *ctx;
    mc_error *err;
    mc_status status;
    char path[PATH_MAX_LEN];
    size_t path_len;
    uint32_t index[MAX_DEPTH];
    unsigned depth; /* arrays */
    scope scopes[MAX_DEPTH];
    unsigned nscopes;
} writer;

static const uint32_t sent_ids[SRV_BSENT_COUNT] = {
    [SRV_BSENT_NETWORK_SETTINGS] = SRV_BPID_NETWORK_SETTINGS,
    [SRV_BSENT_PLAY_STATUS] = SRV_BPID_PLAY_STATUS,
    [SRV_BSENT_SERVER_TO_CLIENT_HANDSHAKE] = SRV_BPID_SERVER_TO_CLIENT_HANDSHAKE,
    [SRV_BSENT_DISCONNECT] = SRV_BPID_DISCONNECT,
    [SRV_BSENT_RESOURCE_PACKS_INFO] = SRV_BPID_RESOURCE_PACKS_INFO,
    [SRV_BSENT_RESOURCE_PACK_STACK] = SRV_BPID_RESOURCE_PACK_STACK,
    [SRV_BSENT_START_GAME] = SRV_BPID_START_GAME,
    [SRV_BSENT_ITEM_REGISTRY] = SRV_BPID_ITEM_REGISTRY,
    [SRV_BSENT_CHUNK_RADIUS_UPDATE] = SRV_BPID_CHUNK_RADIUS_UPDATE,
    [SRV_BSENT_NETWORK_CHUNK_PUBLISHER_UPDATE] = SRV_BPID_NETWORK_CHUNK_PUBLISHER_UPDATE,
    [SRV_BSENT_MOVE_PLAYER] = SRV_BPID_MOVE_PLAYER,
};

uint32_t srv_bedrock_sent_id(int sent)
{
    return sent >= 0 && sent < SRV_BSENT_COUNT ? sent_ids[sent] : 0;
}

/* ------------------------------------------------------------ versions */

const srv_bedrock_version *srv_bedrock_version_of(int protocol)
{
    for (unsigned i = 0; i < srv_bedrock_version_count; i++)
        if (srv_bedrock_versions[i].protocol == protocol)
            return &srv_bedrock_versions[i];
    return NULL;
}

const srv_bedrock_version *srv_bedrock_version_first(void)
{
    return &srv_bedrock_versions[0];
}

const srv_bedrock_version *srv_bedrock_version_last(void)
{
    return &srv_bedrock_versions[srv_bedrock_version_count - 1];
}

/* -------------------------------------------------------------- values */

void srv_bvalues_lookup(void *table, const char *path, const uint32_t *index, unsigned depth, srv_bvalue *out)
{
    for (const srv_bfield *f = table; f->path; f++)
        if (!strcmp(f->path, path)) {
            *out = f->v;
            if (out->kind == SRV_BV_STRING && !out->len && out->data)
                out->len = strlen(out->data);
            return;
        }
}

static bool fail(writer *w, mc_status st, const char *what)
{
    if (w->status == MC_OK) {
        w->status = st;
        mc_error_set(w->err, st, SIZE_MAX, "bedrock layout: %s at %s", what, w->path[0] ? w->path : "(packet)");
    }
    return false;
}

static void ask(writer *w, srv_bvalue *v)
{
    memset(v, 0, sizeof *v);
    w->values(w->ctx, w->path, w->index, w->depth, v);
}

/* Appends ".name" (or "name" at the start, or a suffix such as "[]") to
 * the path; returns the length to restore. */
static size_t path_push(writer *w, const char *name, const char *suffix)
{
    size_t old = w->path_len;
    int n = snprintf(w->path + old, sizeof w->path - old, "%s%s%s", old && name[0] ? "." : "", name, suffix);
    if (n < 0 || (size_t)n >= sizeof w->path - old)
        fail(w, MC_ERR_RANGE, "field path too long");
    else
        w->path_len += (size_t)n;
    return old;
}

static void path_pop(writer *w, size_t len)
{
    w->path_len = len;
    w->path[len] = '\0';
}

static void remember(writer *w, uint16_t name, int64_t value)
{
    if (!w->nscopes || !name)
        return;
    scope *s = &w->scopes[w->nscopes - 1];
    for (unsigned i = 0; i < s->n; i++)
        if (s->names[i] == name) {
            s->values[i] = value;
            return;
        }
    if (s->n < MAX_SCOPE_VALUES) {
        s->names[s->n] = name;
        s->values[s->n++] = value;
    }
}

/* ---------------------------------------------------------------- leaves */

static int64_t int_of(const srv_bvalue *v)
{
    return v->kind == SRV_BV_INT ? v->i : v->kind == SRV_BV_FLOAT ? (int64_t)v->f : 0;
}

static double float_of(const srv_bvalue *v)
{
    return v->kind == SRV_BV_FLOAT ? v->f : v->kind == SRV_BV_INT ? (double)v->i : 0.0;
}

/* Writes an integer in the encoding of a leaf op (also length prefixes). */
static void put_int(mc_buf *b, int op, int64_t x)
{
    switch (op) {
    case SRV_BOP_BOOL: mc_buf_put_u8(b, x != 0); break;
    case SRV_BOP_U8: mc_buf_put_u8(b, (uint8_t)x); break;
    case SRV_BOP_U16: mc_buf_put_u16be(b, (uint16_t)x); break;
    case SRV_BOP_LU16: mc_buf_put_u16le(b, (uint16_t)x); break;
    case SRV_BOP_U32: mc_buf_put_u32be(b, (uint32_t)x); break;
    case SRV_BOP_LU32: mc_buf_put_u32le(b, (uint32_t)x); break;
    case SRV_BOP_U64: mc_buf_put_u64be(b, (uint64_t)x); break;
    case SRV_BOP_LU64: mc_buf_put_u64le(b, (uint64_t)x); break;
    case SRV_BOP_VARINT: mc_buf_put_uvarint32(b, (uint32_t)x); break;
    case SRV_BOP_VARINT64: mc_buf_put_uvarint64(b, (uint64_t)x); break;
    case SRV_BOP_ZIGZAG32: mc_buf_put_zigzag32(b, (int32_t)x); break;
    case SRV_BOP_ZIGZAG64: mc_buf_put_zigzag64(b, x); break;
    default: break;
    }
}

static bool is_int_op(int op)
{
    return op == SRV_BOP_BOOL || op == SRV_BOP_U8 || op == SRV_BOP_U16 || op == SRV_BOP_LU16 || op == SRV_BOP_U32 ||
           op == SRV_BOP_LU32 || op == SRV_BOP_U64 || op == SRV_BOP_LU64 || op == SRV_BOP_VARINT ||
           op == SRV_BOP_VARINT64 || op == SRV_BOP_ZIGZAG32 || op == SRV_BOP_ZIGZAG64;
}

static void leaf(writer *w, const srv_bop *o)
{
    srv_bvalue v;
    ask(w, &v);
    mc_buf *b = w->out;
    if (v.kind == SRV_BV_RAW) {
        mc_buf_put(b, v.data, v.len);
        return;
    }
    if (is_int_op(o->op)) {
        int64_t x = int_of(&v);
        put_int(b, o->op, x);
        remember(w, o->name, x);
        return;
    }
    switch (o->op) {
    case SRV_BOP_VOID: break;
    case SRV_BOP_F32: mc_buf_put_f32be(b, (float)float_of(&v)); break;
    case SRV_BOP_LF32: mc_buf_put_f32le(b, (float)float_of(&v)); break;
    case SRV_BOP_F64: mc_buf_put_f64be(b, float_of(&v)); break;
    case SRV_BOP_LF64: mc_buf_put_f64le(b, float_of(&v)); break;
    case SRV_BOP_UUID: {
        uint8_t zero[16] = {0};
        mc_buf_put(b, v.kind == SRV_BV_STRING && v.len == 16 ? v.data : zero, 16);
        break;
    }
    case SRV_BOP_NBT: /* an empty compound with an empty name, network form */
        mc_buf_put(b, "\x0a\x00\x00", 3);
        break;
    case SRV_BOP_LNBT: /* the same, little-endian (u16 name length) */
        mc_buf_put(b, "\x0a\x00\x00\x00", 4);
        break;
    case SRV_BOP_REST:
        if (v.kind == SRV_BV_STRING)
            mc_buf_put(b, v.data, v.len);
        break;
    case SRV_BOP_STRING:
    case SRV_BOP_BYTES: {
        size_t n = v.kind == SRV_BV_STRING ? v.len : 0;
        if (o->arg == SRV_BOP_VOID) { /* fixed size */
            if (n != (size_t)o->value && v.kind == SRV_BV_STRING) {
                fail(w, MC_ERR_INVALID_ARG, "a fixed-size field of another size");
                return;
            }
            for (size_t i = 0; v.kind != SRV_BV_STRING && i < (size_t)o->value; i++)
                mc_buf_put_u8(b, 0);
        } else {
            put_int(b, o->arg, (int64_t)n);
        }
        if (n)
            mc_buf_put(b, v.data, n);
        break;
    }
    default:
        fail(w, MC_ERR_MALFORMED, "unknown operation");
    }
}

/* ------------------------------------------------------------- framing */

static uint32_t run(writer *w, uint32_t at, uint32_t end);

/* The value `name` had in the container `up` levels above the current one. */
static int64_t lookup(writer *w, unsigned up, uint16_t name)
{
    if (up >= w->nscopes)
        return 0;
    const scope *s = &w->scopes[w->nscopes - 1 - up];
    for (unsigned i = 0; i < s->n; i++)
        if (s->names[i] == name)
            return s->values[i];
    return 0;
}

static bool scope_push(writer *w)
{
    if (w->nscopes == MAX_DEPTH)
        return fail(w, MC_ERR_RANGE, "layout nested too deep");
    w->scopes[w->nscopes++].n = 0;
    return true;
}

static void container(writer *w, const srv_bop *o, uint32_t at)
{
    bool own_scope = o->arg == 0;
    if (own_scope && !scope_push(w))
        return;
    run(w, at + 1, o->end);
    if (own_scope)
        w->nscopes--;
}

static void array(writer *w, const srv_bop *o, uint32_t at)
{
    srv_bvalue v;
    ask(w, &v);
    int64_t n = o->arg == SRV_BOP_VOID ? o->value : int_of(&v);
    if (n < 0 || n > 0x7FFFFFFF || w->depth == MAX_DEPTH) {
        fail(w, MC_ERR_INVALID_ARG, "bad array length");
        return;
    }
    if (o->arg != SRV_BOP_VOID)
        put_int(w->out, o->arg, n);
    size_t old = path_push(w, "", "[]");
    unsigned d = w->depth++;
    for (int64_t i = 0; i < n && w->status == MC_OK; i++) {
        w->index[d] = (uint32_t)i;
        if (!scope_push(w))
            break;
        run(w, at + 1, o->end);
        w->nscopes--;
    }
    w->depth--;
    path_pop(w, old);
}

static void option(writer *w, const srv_bop *o, uint32_t at)
{
    srv_bvalue v;
    ask(w, &v);
    bool present = int_of(&v) != 0;
    mc_buf_put_u8(w->out, present);
    remember(w, o->name, present);
    if (!present)
        return;
    size_t old = path_push(w, "", "?");
    run(w, at + 1, o->end);
    path_pop(w, old);
}

static void switch_(writer *w, const srv_bop *o, uint32_t at)
{
    int64_t key = lookup(w, o->arg, (uint16_t)o->value);
    uint32_t i = at + 1, chosen = 0;
    while (i < o->end) {
        const srv_bop *c = &srv_bedrock_ops[i];
        if (!chosen && (c->op == SRV_BOP_DEFAULT || c->value == key))
            chosen = i;
        i = c->end;
    }
    if (chosen)
        run(w, chosen + 1, srv_bedrock_ops[chosen].end);
}

static void encap(writer *w, const srv_bop *o, uint32_t at)
{
    mc_buf inner;
    mc_buf_init(&inner, NULL);
    mc_buf *outer = w->out;
    w->out = &inner;
    run(w, at + 1, o->end);
    w->out = outer;
    if (!mc_buf_ok(&inner))
        fail(w, MC_ERR_NOMEM, "out of memory");
    put_int(outer, o->arg, (int64_t)inner.len);
    mc_buf_put(outer, inner.data, inner.len);
    mc_buf_free(&inner);
}

/* Runs the operations [at, end) (siblings); returns end. */
static uint32_t run(writer *w, uint32_t at, uint32_t end)
{
    while (at < end && w->status == MC_OK) {
        const srv_bop *o = &srv_bedrock_ops[at];
        if (o->op == SRV_BOP_REF) { /* fields shared with another place: no name of its own */
            run(w, o->end, (uint32_t)o->value);
            at++;
            continue;
        }
        const char *name = srv_bedrock_field_names[o->name];
        size_t old = path_push(w, name, "");
        bool framing = o->op >= SRV_BOP_CONTAINER;
        if (framing && o->op != SRV_BOP_CONTAINER && o->op != SRV_BOP_CASE && o->op != SRV_BOP_DEFAULT) {
            /* the caller may give the whole field as raw bytes */
            srv_bvalue v;
            ask(w, &v);
            if (v.kind == SRV_BV_RAW) {
                mc_buf_put(w->out, v.data, v.len);
                path_pop(w, old);
                at = o->end;
                continue;
            }
        }
        switch (o->op) {
        case SRV_BOP_CONTAINER: container(w, o, at); break;
        case SRV_BOP_ARRAY: array(w, o, at); break;
        case SRV_BOP_OPTION: option(w, o, at); break;
        case SRV_BOP_SWITCH: switch_(w, o, at); break;
        case SRV_BOP_ENCAP: encap(w, o, at); break;
        case SRV_BOP_CASE:
        case SRV_BOP_DEFAULT: fail(w, MC_ERR_MALFORMED, "a case outside a switch"); break;
        default: leaf(w, o); break;
        }
        path_pop(w, old);
        at = framing ? o->end : at + 1;
    }
    return end;
}

mc_status srv_bedrock_write(mc_buf *out, const srv_bedrock_version *v, int sent, srv_bvalue_fn values, void *ctx,
                            mc_error *err)
{
    if (sent < 0 || sent >= SRV_BSENT_COUNT || v->program[sent] < 0)
        return mc_error_set(err, MC_ERR_UNSUPPORTED, SIZE_MAX, "bedrock %s has no packet %d", v->name, sent);
    writer w;
    memset(&w, 0, sizeof w);
    w.out = out;
    w.values = values;
    w.ctx = ctx;
    w.err = err;
    w.status = MC_OK;
    size_t start = out->len;
    mc_buf_put_uvarint32(out, srv_bedrock_sent_id(sent));
    uint32_t at = (uint32_t)v->program[sent];
    run(&w, at, srv_bedrock_ops[at].end);
    if (w.status == MC_OK && !mc_buf_ok(out))
        fail(&w, MC_ERR_NOMEM, "out of memory");
    if (w.status != MC_OK)
        out->len = start;
    return w.status;
}
