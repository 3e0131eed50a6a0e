/*
 * fuzz_chunknbt_recode.c: mc_chunknbt_recode (world convert's byte path for
 * 1.18+ chunks) on any bytes, checked against the model path.
 *
 * Input: uncompressed Java NBT (a chunk root); its first byte picks the
 * target (even: 1.21.4, odd: 1.20.1) and whether the light is dropped.
 * The recoder must never crash, read out of bounds or leak; when it
 * declines, `out` is unchanged; when it accepts, its output must equal,
 * as NBT content, what the model path writes for the same chunk
 * (mc_chunknbt_read_bytes, the light dropped and isLightOn 0 when asked,
 * mc_column_translate, mc_chunknbt_write, an empty block_entities added
 * when absent: what world convert does), so a chunk the byte path gets
 * wrong is a crash here rather than a wrong file there.
 *
 * Seeds in fuzz/corpus/fuzz_chunknbt_recode/: the 1.18+ seeds of
 * fuzz_chunknbt (chunks our own writer made: 1.18.2, 1.21.1, 1.21.11),
 * and chunk 0 0 of `mcchunk world create W --version 1.20.1 --radius 0`
 * (terrain with light: its sections above the ground repeat the one below
 * but for Y, which the recoder's repeated-section shortcuts take).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcchunk/chunknbt.h"
#include "mcchunk/translate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned decide(void *user, const mc_chunknbt_recode_facts *f)
{
    (void)f;
    return *(const bool *)user ? MC_RECODE_DROP_LIGHT : 0;
}

/* The model path's chunk, as bytes into out (false: it fails). */
static bool model_path(const uint8_t *data, size_t size, int32_t dv, bool drop, mc_buf *out)
{
    mc_column *col = NULL;
    mc_error err;
    if (mc_chunknbt_read_bytes(data, size, NULL, &col, &err) != MC_OK)
        return false;
    for (uint32_t s = 0; drop && s < mc_column_section_count(col); s++) {
        mc_section_set_sky_light(mc_column_section_at(col, s), NULL);
        mc_section_set_block_light(mc_column_section_at(col, s), NULL);
    }
    const mc_registry *to = mc_chunknbt_registry_for(dv);
    if (mc_column_registry(col) != to) {
        mc_column *t = mc_column_translate(col, to, NULL, &err);
        mc_column_free(col);
        if (!t)
            return false;
        col = t;
    }
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    bool ok = doc && mc_chunknbt_write(col, dv, doc, NULL, &err) == MC_OK;
    mc_nbt_tag *root = ok ? mc_nbt_doc_root(doc) : NULL;
    if (ok && drop) {
        mc_nbt_tag *on = mc_nbt_get(root, "isLightOn");
        ok = on ? mc_nbt_set_byte(on, 0) == MC_OK : mc_nbt_put_byte(doc, root, "isLightOn", 0) == MC_OK;
    }
    if (ok && !mc_nbt_get(root, "block_entities"))
        ok = mc_nbt_put_list(doc, root, "block_entities", MC_NBT_END) != NULL;
    ok = ok && mc_nbt_write(doc, MC_NBT_JAVA, out, &err) == MC_OK;
    mc_nbt_doc_free(doc);
    mc_column_free(col);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int32_t dv = data[0] & 1 ? 3465 : 4189; /* 1.20.1, 1.21.4 */
    bool drop = (data[0] >> 1) & 1;
    mc_chunknbt_recoder *rc = mc_chunknbt_recoder_new();
    if (!rc)
        return 0;
    mc_chunknbt_recode_options opt = {dv, decide, NULL, &drop};
    mc_buf out, model;
    mc_buf_init(&out, NULL);
    mc_buf_init(&model, NULL);
    mc_buf_put_u8(&out, 0x55); /* a byte before: a decline leaves it alone */
    mc_error err;
    mc_status st = mc_chunknbt_recode(rc, data, size, &opt, &out, &err);
    if (st != MC_OK && (out.len != 1 || out.data[0] != 0x55))
        abort();
    if (st == MC_OK) {
        if (!model_path(data, size, dv, drop, &model))
            abort(); /* the byte path took a chunk the model path refuses */
        mc_nbt_doc *a = mc_nbt_doc_new(NULL), *b = mc_nbt_doc_new(NULL);
        if (!a || !b || mc_nbt_parse(a, out.data + 1, out.len - 1, MC_NBT_JAVA, NULL, &err) != MC_OK ||
            mc_nbt_parse(b, model.data, model.len, MC_NBT_JAVA, NULL, &err) != MC_OK ||
            !mc_nbt_equal(mc_nbt_doc_root(a), mc_nbt_doc_root(b)))
            abort();
        mc_nbt_doc_free(a);
        mc_nbt_doc_free(b);
    }
    mc_buf_free(&out);
    mc_buf_free(&model);
    mc_chunknbt_recoder_free(rc);
    return 0;
}
