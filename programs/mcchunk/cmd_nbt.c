/*
 * cmd_nbt.c: `mcchunk nbt FILE` -- show an NBT file as a person wants to
 * read it (pretty SNBT by default, or JSON), pick a part of it with --path,
 * or re-encode it (--write OUT --format F), which is also what the interop
 * tests use to hand our bytes to another implementation.
 *
 * Compression (gzip, zlib, none) and encoding (Java, Java network, Bedrock,
 * Bedrock level.dat, Bedrock network) are detected; flags force an encoding
 * when detection would guess wrong (a tiny Bedrock network payload can also
 * be valid Java, for instance).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "tool_common.h"
#include "mcchunk/nbt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mcchunk nbt FILE [options]\n"
            "Print an NBT file (gzip, zlib or uncompressed; '-' reads stdin).\n\n"
            "output:\n"
            "  --snbt              SNBT, the game's text form (default; pretty)\n"
            "  --json              JSON (types are not kept)\n"
            "  --compact           on one line\n"
            "  --path P            only the tag at P, e.g. sections[3].block_states.palette\n"
            "  --info              also print encoding, compression and size to stderr\n"
            "input encoding (default: detected):\n"
            "  --java  --java-network  --bedrock  --bedrock-level  --bedrock-network\n"
            "  --network           Java network form (with --bedrock: Bedrock network)\n"
            "  --from-snbt         FILE is SNBT text (also detected: input that is not\n"
            "                      binary NBT and starts with '{' or '[')\n"
            "re-encoding:\n"
            "  --write OUT         write the tree (or the --path tag) to OUT\n"
            "  --format F          java, java-network, bedrock, bedrock-level-dat or\n"
            "                      bedrock-network (default: the input's; java for SNBT)\n"
            "  --compression C     none (default), gzip or zlib\n"
            "  --name NAME         root name to write (default: the input's)\n"
            "\n"
            "Prints the tree on stdout (nothing with --write OUT, or on failure).\n"
            "exit status: 0 ok, 1 failure (unreadable file, not NBT, no tag at --path,\n"
            "cannot write OUT), 2 usage error\n");
}

/* True when `file` is named like a region file or its bytes look like one
 * (a whole number of 4 KiB sectors, the 8 KiB header first). */
static bool looks_like_region(const char *file, const uint8_t *data, size_t len)
{
    size_t n = strlen(file);
    if (n > 4 && (!strcmp(file + n - 4, ".mca") || !strcmp(file + n - 4, ".mcr")))
        return true;
    return len >= 8192 && len % 4096 == 0 && data[0] == 0 && data[4096] == 0;
}

/* True when the text starts (after blanks) like SNBT: '{' or '['. Neither
 * is an NBT tag id nor a gzip/zlib header byte, so binary input never does. */
static bool looks_like_snbt(const uint8_t *data, size_t len)
{
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    return i < len && (data[i] == '{' || data[i] == '[');
}

int mc_cmd_nbt(int argc, char **argv)
{
    const char *file = NULL, *path = NULL, *out_path = NULL, *name = NULL;
    bool json = false, compact = false, info = false, from_snbt = false;
    bool want_bedrock = false, want_network = false;
    mc_nbt_format in_format = MC_NBT_AUTO, out_format = MC_NBT_AUTO;
    mc_nbt_compression out_comp = MC_NBT_UNCOMPRESSED;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--snbt")) {
            json = false;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--compact")) {
            compact = true;
        } else if (!strcmp(a, "--info")) {
            info = true;
        } else if (!strcmp(a, "--from-snbt")) {
            from_snbt = true;
        } else if (!strcmp(a, "--java")) {
            in_format = MC_NBT_JAVA;
        } else if (!strcmp(a, "--java-network")) {
            in_format = MC_NBT_JAVA_NETWORK;
        } else if (!strcmp(a, "--bedrock")) {
            want_bedrock = true;
        } else if (!strcmp(a, "--bedrock-level") || !strcmp(a, "--bedrock-level-dat")) {
            in_format = MC_NBT_BEDROCK_LEVEL_DAT;
        } else if (!strcmp(a, "--bedrock-network")) {
            in_format = MC_NBT_BEDROCK_NETWORK;
        } else if (!strcmp(a, "--network")) {
            want_network = true;
        } else if ((!strcmp(a, "--path") || !strcmp(a, "--write") || !strcmp(a, "--format") ||
                    !strcmp(a, "--compression") || !strcmp(a, "--name")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (!strcmp(a, "--path")) {
                path = v;
            } else if (!strcmp(a, "--write")) {
                out_path = v;
            } else if (!strcmp(a, "--name")) {
                name = v;
            } else if (!strcmp(a, "--format")) {
                if (mc_nbt_format_from_name(v, &out_format) != MC_OK || out_format == MC_NBT_AUTO) {
                    fprintf(stderr, "mcchunk nbt: unknown format '%s'\n", v);
                    return MC_EXIT_USAGE;
                }
            } else {
                if (!strcmp(v, "none")) out_comp = MC_NBT_UNCOMPRESSED;
                else if (!strcmp(v, "gzip")) out_comp = MC_NBT_GZIP;
                else if (!strcmp(v, "zlib")) out_comp = MC_NBT_ZLIB;
                else {
                    fprintf(stderr, "mcchunk nbt: unknown compression '%s'\n", v);
                    return MC_EXIT_USAGE;
                }
            }
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "mcchunk nbt: unknown or incomplete option '%s'\n\n", a);
            usage(stderr);
            return MC_EXIT_USAGE;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "mcchunk nbt: one FILE only\n");
            return MC_EXIT_USAGE;
        }
    }
    if (!file) {
        usage(stderr);
        return MC_EXIT_USAGE;
    }
    if (want_bedrock)
        in_format = want_network ? MC_NBT_BEDROCK_NETWORK : in_format == MC_NBT_AUTO ? MC_NBT_BEDROCK : in_format;
    else if (want_network)
        in_format = MC_NBT_JAVA_NETWORK;

    uint8_t *data = NULL;
    size_t len = 0;
    if (!mc_tool_read_input("mcchunk nbt", file, &data, &len))
        return MC_EXIT_FAIL;

    int rc = MC_EXIT_FAIL;
    mc_nbt_doc *doc = mc_nbt_doc_new(NULL);
    mc_buf out;
    mc_buf_init(&out, NULL);
    mc_error err;
    mc_error_clear(&err);
    mc_nbt_compression comp = MC_NBT_UNCOMPRESSED;
    mc_nbt_format detected = MC_NBT_JAVA;
    mc_status s;
    if (!doc) {
        fprintf(stderr, "mcchunk nbt: out of memory\n");
        goto done;
    }
    if (from_snbt)
        s = mc_snbt_parse(doc, (const char *)data, len, NULL, &err);
    else
        s = mc_nbt_load(doc, data, len, in_format, NULL, &comp, &detected, &err);
    if (s != MC_OK && !from_snbt && in_format == MC_NBT_AUTO && looks_like_snbt(data, len)) {
        /* SNBT text given without --from-snbt: read it as SNBT */
        mc_error serr;
        mc_error_clear(&serr);
        mc_nbt_doc_reset(doc);
        s = mc_snbt_parse(doc, (const char *)data, len, NULL, &serr);
        if (s != MC_OK) {
            fprintf(stderr, "mcchunk nbt: %s: looks like SNBT text but does not parse: %s\n", file, serr.message);
            goto done;
        }
        from_snbt = true;
    }
    if (s != MC_OK) {
        fprintf(stderr, "mcchunk nbt: %s: %s\n", file, err.message);
        if (looks_like_region(file, data, len))
            fprintf(stderr, "mcchunk nbt: %s: this is a region file: use `mcchunk chunk get %s X Z` for one "
                            "chunk, `mcchunk region ls %s` for the list\n", file, file, file);
        goto done;
    }
    if (info)
        fprintf(stderr, "%s: %s NBT, compression %s, %zu bytes\n", file,
                from_snbt ? "SNBT" : mc_nbt_format_name(detected), mc_nbt_compression_name(comp), len);

    mc_nbt_tag *tag = mc_nbt_doc_root(doc);
    if (path) {
        tag = mc_nbt_path(tag, path);
        if (!tag) {
            fprintf(stderr, "mcchunk nbt: %s: no tag at path '%s'\n", file, path);
            goto done;
        }
    }

    if (out_path) {
        mc_nbt_format f = out_format != MC_NBT_AUTO ? out_format : from_snbt ? MC_NBT_JAVA : detected;
        size_t nlen = 0;
        const char *rname = name;
        if (rname)
            nlen = strlen(rname);
        else if (tag == mc_nbt_doc_root(doc))
            rname = mc_nbt_doc_root_name(doc, &nlen);
        else
            rname = mc_nbt_tag_key(tag, &nlen);
        mc_buf raw;
        mc_buf_init(&raw, NULL);
        if (tag == mc_nbt_doc_root(doc) && !name)
            s = mc_nbt_write(doc, f, &raw, &err);
        else
            s = mc_nbt_write_tag(tag, rname ? rname : "", rname ? nlen : 0, f, &raw, &err);
        if (s == MC_OK)
            s = mc_nbt_compress(raw.data, raw.len, out_comp, 0, &out, &err);
        mc_buf_free(&raw);
        if (s != MC_OK) {
            fprintf(stderr, "mcchunk nbt: writing %s: %s\n", out_path, err.message);
            goto done;
        }
        if (!mc_tool_write_output("mcchunk nbt", out_path, out.data, out.len))
            goto done;
        rc = MC_EXIT_OK;
        goto done;
    }

    unsigned flags = compact ? 0 : MC_NBT_PRINT_PRETTY;
    s = json ? mc_nbt_to_json(tag, flags, &out) : mc_nbt_to_snbt(tag, flags, &out);
    if (s != MC_OK) {
        fprintf(stderr, "mcchunk nbt: %s: printing failed: %s\n", file, mc_status_name(s));
        goto done;
    }
    mc_buf_put_u8(&out, '\n');
    if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
        perror("stdout");
        goto done;
    }
    rc = MC_EXIT_OK;
done:
    mc_buf_free(&out);
    mc_nbt_doc_free(doc);
    free(data);
    return rc;
}
