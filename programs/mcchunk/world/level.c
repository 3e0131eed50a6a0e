/*
 * level.c: level.dat, the world's global record (gzip NBT, everything
 * under the compound "Data"), read, moved to another version, or made new.
 *
 * What changes with the version, and what is done about it here:
 *   - Data.DataVersion and Data.Version {Id, Name, Series, Snapshot}: both
 *     since 15w32a (1.9); a 1.8 level.dat has neither. Set to the target's.
 *   - The seed and world generator. Before 1.16 they are the keys
 *     RandomSeed, generatorName ("default", "flat", "largeBiomes",
 *     "amplified", ...), generatorVersion, generatorOptions and MapFeatures;
 *     from 1.16 (DataFixer WorldGenSettingsFix, schema 2550) one compound
 *     WorldGenSettings {seed, generate_features, bonus_chest, dimensions:
 *     {"minecraft:overworld": {type, generator}, ...}} with a noise
 *     generator per vanilla dimension. The overworld's biome source was
 *     "minecraft:vanilla_layered" {seed, large_biomes} until 1.18 and is
 *     "minecraft:multi_noise" {preset: "minecraft:overworld"} from 1.18
 *     (WorldGenSettingsHeightAndBiomeFix), large biomes moving to the
 *     noise settings "minecraft:large_biomes". Generators and biome
 *     sources also carried the seed until 1.19; the game's codecs ignore
 *     keys they do not know, so it is written where an era reads it and
 *     left alone otherwise. Converted in both directions; a superflat or
 *     customised generator's options have no exact equivalent across the
 *     1.16 change and are noted.
 *   - The spawn: SpawnX/SpawnY/SpawnZ (and SpawnAngle) until 1.21.8, a
 *     compound spawn {dimension, pos: int[3], yaw, pitch} from 1.21.9
 *     (the change that made the spawn packet carry RespawnData; the
 *     server's level.dat reader accepts both). Converted both ways.
 *   - 26.1 moved the world-generation settings out of level.dat into
 *     data/minecraft/world_gen_settings.dat, whose exact layout this tool
 *     does not know: for 26.1 the settings stay in level.dat and a note
 *     says the game will not read them there.
 * Everything else (game rules, the singleplayer Player, data packs, border,
 * weather) is carried as it is: the game's own DataFixers upgrade what a
 * newer version changed from the DataVersion of the file it finds, and a
 * downgrade keeps whatever the older game ignores.
 *
 * Writing is crash-safe: level.dat_new (the game's own temporary name),
 * fsync, rename over level.dat, fsync of the folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "world/world.h"

/* level.dat is a few KiB (some hundred with many data packs). */
#define LEVEL_MAX_FILE ((size_t)16 << 20)
#define LEVEL_MAX_NBT ((size_t)64 << 20)

/* DataVersions of the changes above (releases: the first DataVersion of
 * the release that brought them). */
#define DV_VERSION_TAG 100          /* 15w32a: DataVersion, Version{} */
#define DV_WORLDGEN_SETTINGS 2550   /* 20w20a: WorldGenSettings */
#define DV_MULTI_NOISE_OVERWORLD 2825 /* 1.18's overworld biome source */
#define DV_NO_GENERATOR_SEED 3105   /* 1.19: generators lose their seed */
#define DV_SPAWN_COMPOUND 4554      /* 1.21.9: spawn {dimension, pos, yaw, pitch} */
#define DV_26_1 4786                /* 26.1: world_gen_settings.dat */

/* ------------------------------------------------------------- files */

bool world_folder_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)) != NULL)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

/* p[0..n) as a folder, its missing parents first. The whole path is tried
 * first: a converter asks for the same few folders once per region file, and
 * walking down from the root cost a failing mkdir and a stat per component
 * every time (300 mkdir and 1,100 stat calls over the corpus). */
static bool mkdirs_in(char *p, size_t n)
{
    while (n > 1 && p[n - 1] == '/')
        n--;
    char c = p[n];
    p[n] = 0;
    bool ok = mkdir(p, 0755) == 0;
    if (!ok && errno == ENOENT) {
        size_t cut = n; /* just past the last slash; 0 or 1 ("x", "/x"): no parent to make */
        while (cut > 0 && p[cut - 1] != '/')
            cut--;
        ok = cut > 1 && mkdirs_in(p, cut - 1) && mkdir(p, 0755) == 0;
    }
    if (!ok && errno == EEXIST) {
        /* there already (or made by another worker just now): a folder, or a link to one */
        struct stat st;
        ok = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
        if (!ok)
            errno = ENOTDIR;
    }
    p[n] = c;
    return ok;
}

bool world_mkdirs(const char *path)
{
    char p[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof p) {
        errno = ENAMETOOLONG;
        return false;
    }
    memcpy(p, path, n + 1);
    return mkdirs_in(p, n);
}

static int fsync_folder_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n >= sizeof dir)
        return ENAMETOOLONG;
    if (n == 0)
        strcpy(dir, slash ? "/" : ".");
    else
        memcpy(dir, path, n), dir[n] = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return errno;
    int rc = fsync(fd) ? errno : 0;
    close(fd);
    return rc;
}

/* Writes data to `tmp` (made afresh, not through a link), fsyncs it and
 * renames it to `path`, then fsyncs the folder. */
static mc_status write_via(const char *tmp, const char *path, const void *data, size_t len, mc_error *err)
{
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
    if (fd < 0)
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "cannot create %s: %s", tmp, strerror(errno));
    const uint8_t *p = data;
    size_t left = len;
    int rc = 0;
    while (left && !rc) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno != EINTR)
            rc = errno;
        else if (w > 0)
            p += w, left -= (size_t)w;
    }
    if (!rc && fsync(fd))
        rc = errno;
    if (close(fd) && !rc)
        rc = errno;
    if (!rc && rename(tmp, path))
        rc = errno;
    if (!rc)
        rc = fsync_folder_of(path);
    if (rc) {
        unlink(tmp);
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "cannot write %s: %s", path, strerror(rc));
    }
    return MC_OK;
}

mc_status world_write_file_atomic(const char *path, const void *data, size_t len, mc_error *err)
{
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return mc_error_set(err, MC_ERR_RANGE, SIZE_MAX, "path too long: %s", path);
    return write_via(tmp, path, data, len, err);
}

/* -------------------------------------------------------------- read */

static void fill_summary(world_level *l)
{
    mc_nbt_tag *data = mc_nbt_get(mc_nbt_doc_root(l->doc), "Data");
    int32_t v;
    const char *s;
    size_t n;
    if (mc_nbt_get_int(mc_nbt_get(data, "DataVersion"), &v) == MC_OK)
        l->data_version = v;
    if (mc_nbt_get_string(mc_nbt_path(data, "Version.Name"), &s, &n) == MC_OK)
        snprintf(l->version_name, sizeof l->version_name, "%.*s", (int)n, s);
    if (mc_nbt_get_string(mc_nbt_get(data, "LevelName"), &s, &n) == MC_OK)
        snprintf(l->name, sizeof l->name, "%.*s", (int)n, s);
    int64_t seed;
    if (mc_nbt_get_long(mc_nbt_path(data, "WorldGenSettings.seed"), &seed) == MC_OK ||
        mc_nbt_get_long(mc_nbt_get(data, "RandomSeed"), &seed) == MC_OK) {
        l->seed = seed;
        l->has_seed = true;
    }
    int32_t x, y, z;
    mc_nbt_array a;
    if (mc_nbt_get_int(mc_nbt_get(data, "SpawnX"), &x) == MC_OK &&
        mc_nbt_get_int(mc_nbt_get(data, "SpawnY"), &y) == MC_OK &&
        mc_nbt_get_int(mc_nbt_get(data, "SpawnZ"), &z) == MC_OK) {
        l->spawn[0] = x, l->spawn[1] = y, l->spawn[2] = z;
        l->has_spawn = true;
    } else if (mc_nbt_get_array(mc_nbt_path(data, "spawn.pos"), MC_NBT_INT_ARRAY, &a) == MC_OK && a.count == 3) {
        for (int i = 0; i < 3; i++)
            l->spawn[i] = (int32_t)mc_nbt_array_i32(&a, (size_t)i);
        l->has_spawn = true;
    }
}

mc_status world_level_read(const char *dir, world_level *out, mc_error *err)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    snprintf(path, sizeof path, "%s/level.dat", dir);
    struct stat st;
    if (lstat(path, &st) != 0)
        return mc_error_set(err, MC_ERR_NOT_FOUND, SIZE_MAX, "%s: absent", path);
    if (!S_ISREG(st.st_mode))
        return mc_error_set(err, MC_ERR_IO, SIZE_MAX, "%s: not a regular file", path);
    if ((uint64_t)st.st_size > LEVEL_MAX_FILE)
        return mc_error_set(err, MC_ERR_LIMIT, SIZE_MAX, "%s: %lld bytes, too large to be a level.dat", path,
                            (long long)st.st_size);
    uint8_t *data = NULL;
    size_t len = 0;
    mc_status s = mc_read_file(path, NULL, &data, &len, err);
    if (s)
        return s;
    out->doc = mc_nbt_doc_new(NULL);
    mc_nbt_limits limits = {0, LEVEL_MAX_NBT}; /* an inflate bomb stops here */
    if (!out->doc)
        s = mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "out of memory");
    else if ((s = mc_nbt_load(out->doc, data, len, MC_NBT_JAVA, &limits, NULL, NULL, err)) != MC_OK)
        ;
    else if (mc_nbt_tag_type(mc_nbt_get(mc_nbt_doc_root(out->doc), "Data")) != MC_NBT_COMPOUND)
        s = mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "%s: no Data compound", path);
    mc_default_allocator()->free(mc_default_allocator()->user, data, len);
    if (s) {
        world_level_free(out);
        return s;
    }
    fill_summary(out);
    return MC_OK;
}

void world_level_free(world_level *l)
{
    mc_nbt_doc_free(l->doc);
    memset(l, 0, sizeof *l);
}

/* ----------------------------------------------------------- helpers */

static void note(mc_buf *notes, const char *text)
{
    if (notes) {
        mc_buf_put(notes, text, strlen(text));
        mc_buf_put(notes, "\n", 1);
    }
}

static bool put_string(mc_nbt_doc *d, mc_nbt_tag *c, const char *key, const char *v)
{
    return mc_nbt_put_string(d, c, key, v, strlen(v)) == MC_OK;
}

static bool string_is(const mc_nbt_tag *t, const char *lit)
{
    const char *s;
    size_t n;
    return t && mc_nbt_get_string(t, &s, &n) == MC_OK && strlen(lit) == n && !memcmp(s, lit, n);
}

/* The noise generator of a vanilla dimension for era `dv`. */
static bool put_dimension(mc_nbt_doc *d, mc_nbt_tag *dims, const char *id, const char *settings,
                          const char *biome_type, int64_t seed, bool large_biomes, int32_t dv)
{
    mc_nbt_tag *dim = mc_nbt_put_compound(d, dims, id);
    mc_nbt_tag *gen = dim ? mc_nbt_put_compound(d, dim, "generator") : NULL;
    mc_nbt_tag *bs = gen ? mc_nbt_put_compound(d, gen, "biome_source") : NULL;
    if (!bs || !put_string(d, dim, "type", id) || !put_string(d, gen, "type", "minecraft:noise") ||
        !put_string(d, gen, "settings", settings) || !put_string(d, bs, "type", biome_type))
        return false;
    bool ok = true;
    if (dv < DV_NO_GENERATOR_SEED)
        ok = mc_nbt_put_long(d, gen, "seed", seed) == MC_OK;
    if (!strcmp(biome_type, "minecraft:vanilla_layered"))
        ok = ok && mc_nbt_put_long(d, bs, "seed", seed) == MC_OK &&
             mc_nbt_put_byte(d, bs, "large_biomes", large_biomes) == MC_OK;
    else if (!strcmp(biome_type, "minecraft:multi_noise"))
        ok = ok && put_string(d, bs, "preset", !strcmp(id, "minecraft:overworld") ? "minecraft:overworld"
                                                                                   : "minecraft:nether") &&
             (dv >= DV_NO_GENERATOR_SEED || mc_nbt_put_long(d, bs, "seed", seed) == MC_OK);
    else if (dv < DV_NO_GENERATOR_SEED)
        ok = ok && mc_nbt_put_long(d, bs, "seed", seed) == MC_OK;
    return ok;
}

/* WorldGenSettings of the vanilla three dimensions for era `dv`:
 * overworld_settings is "minecraft:overworld", "minecraft:amplified" or
 * "minecraft:large_biomes" (the last one is the 1.18+ spelling; before,
 * large biomes are a flag of the biome source). */
static bool put_worldgen(mc_nbt_doc *d, mc_nbt_tag *data, int64_t seed, bool features, bool bonus,
                         const char *overworld_settings, int32_t dv)
{
    mc_nbt_tag *wgs = mc_nbt_put_compound(d, data, "WorldGenSettings");
    mc_nbt_tag *dims = wgs ? mc_nbt_put_compound(d, wgs, "dimensions") : NULL;
    if (!dims || mc_nbt_put_long(d, wgs, "seed", seed) || mc_nbt_put_byte(d, wgs, "generate_features", features) ||
        mc_nbt_put_byte(d, wgs, "bonus_chest", bonus))
        return false;
    bool large = !strcmp(overworld_settings, "minecraft:large_biomes");
    bool modern = dv >= DV_MULTI_NOISE_OVERWORLD;
    return put_dimension(d, dims, "minecraft:overworld", large && !modern ? "minecraft:overworld" : overworld_settings,
                         modern ? "minecraft:multi_noise" : "minecraft:vanilla_layered", seed, large, dv) &&
           put_dimension(d, dims, "minecraft:the_nether", "minecraft:nether", "minecraft:multi_noise", seed, false, dv) &&
           put_dimension(d, dims, "minecraft:the_end", "minecraft:end", "minecraft:the_end", seed, false, dv);
}

static bool put_version(mc_nbt_doc *d, mc_nbt_tag *data, const mc_version_info *v)
{
    mc_nbt_remove(data, "DataVersion", 11);
    mc_nbt_remove(data, "Version", 7);
    if (v->data_version < DV_VERSION_TAG)
        return true;
    mc_nbt_tag *ver = mc_nbt_put_compound(d, data, "Version");
    return ver && mc_nbt_put_int(d, data, "DataVersion", v->data_version) == MC_OK &&
           mc_nbt_put_int(d, ver, "Id", v->data_version) == MC_OK && put_string(d, ver, "Name", v->name) &&
           put_string(d, ver, "Series", "main") && mc_nbt_put_byte(d, ver, "Snapshot", 0) == MC_OK;
}

static bool put_spawn(mc_nbt_doc *d, mc_nbt_tag *data, const int32_t spawn[3], int32_t dv)
{
    static const char *const old_keys[] = {"SpawnX", "SpawnY", "SpawnZ", "SpawnAngle", "spawn"};
    for (size_t i = 0; i < 5; i++)
        mc_nbt_remove(data, old_keys[i], strlen(old_keys[i]));
    if (dv < DV_SPAWN_COMPOUND)
        return mc_nbt_put_int(d, data, "SpawnX", spawn[0]) == MC_OK &&
               mc_nbt_put_int(d, data, "SpawnY", spawn[1]) == MC_OK &&
               mc_nbt_put_int(d, data, "SpawnZ", spawn[2]) == MC_OK &&
               mc_nbt_put_float(d, data, "SpawnAngle", 0.0f) == MC_OK;
    mc_nbt_tag *sp = mc_nbt_put_compound(d, data, "spawn");
    return sp && put_string(d, sp, "dimension", "minecraft:overworld") &&
           mc_nbt_put_int_array(d, sp, "pos", spawn, 3) == MC_OK && mc_nbt_put_float(d, sp, "yaw", 0.0f) == MC_OK &&
           mc_nbt_put_float(d, sp, "pitch", 0.0f) == MC_OK;
}

/* The overworld generator's settings name from WorldGenSettings, as one
 * of "minecraft:overworld", "minecraft:amplified", "minecraft:large_biomes",
 * or NULL for anything else (flat, custom, modded). */
static const char *overworld_kind(const mc_nbt_tag *wgs)
{
    const mc_nbt_tag *gen = mc_nbt_path(wgs, "dimensions.minecraft:overworld.generator");
    if (!gen || !string_is(mc_nbt_get(gen, "type"), "minecraft:noise"))
        return NULL;
    const mc_nbt_tag *set = mc_nbt_get(gen, "settings");
    int8_t large = 0;
    mc_nbt_get_byte(mc_nbt_path(gen, "biome_source.large_biomes"), &large);
    if (string_is(set, "minecraft:amplified"))
        return "minecraft:amplified";
    if (string_is(set, "minecraft:large_biomes") || (string_is(set, "minecraft:overworld") && large))
        return "minecraft:large_biomes";
    return string_is(set, "minecraft:overworld") ? "minecraft:overworld" : NULL;
}

/* Pre-1.16 keys -> WorldGenSettings. */
static bool seed_keys_up(mc_nbt_doc *d, mc_nbt_tag *data, int32_t dv, mc_buf *notes)
{
    int64_t seed = 0;
    int8_t features = 1, bonus = 0;
    mc_nbt_get_long(mc_nbt_get(data, "RandomSeed"), &seed);
    mc_nbt_get_byte(mc_nbt_get(data, "MapFeatures"), &features);
    mc_nbt_get_byte(mc_nbt_get(data, "BonusChest"), &bonus);
    const char *gen = "default", *settings = "minecraft:overworld";
    const char *s;
    size_t n;
    char name[64] = "default";
    if (mc_nbt_get_string(mc_nbt_get(data, "generatorName"), &s, &n) == MC_OK)
        snprintf(name, sizeof name, "%.*s", (int)n, s);
    gen = name;
    if (!strcmp(gen, "amplified"))
        settings = "minecraft:amplified";
    else if (!strcmp(gen, "largeBiomes"))
        settings = "minecraft:large_biomes";
    else if (strcmp(gen, "default") && strcmp(gen, "default_1_1")) {
        char t[160];
        snprintf(t, sizeof t, "level.dat: generator \"%s\" written as the default noise generator", gen);
        note(notes, t);
    }
    static const char *const old[] = {"RandomSeed", "generatorName", "generatorVersion", "generatorOptions",
                                      "MapFeatures", "BonusChest", "legacy_custom_options"};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        mc_nbt_remove(data, old[i], strlen(old[i]));
    return put_worldgen(d, data, seed, features, bonus, settings, dv);
}

/* WorldGenSettings -> pre-1.16 keys. */
static bool seed_keys_down(mc_nbt_doc *d, mc_nbt_tag *data, mc_buf *notes)
{
    mc_nbt_tag *wgs = mc_nbt_get(data, "WorldGenSettings");
    int64_t seed = 0;
    int8_t features = 1, bonus = 0;
    mc_nbt_get_long(mc_nbt_get(wgs, "seed"), &seed);
    mc_nbt_get_byte(mc_nbt_get(wgs, "generate_features"), &features);
    mc_nbt_get_byte(mc_nbt_get(wgs, "bonus_chest"), &bonus);
    const char *kind = overworld_kind(wgs), *name = "default";
    if (kind && !strcmp(kind, "minecraft:amplified"))
        name = "amplified";
    else if (kind && !strcmp(kind, "minecraft:large_biomes"))
        name = "largeBiomes";
    else if (!kind)
        note(notes, "level.dat: the overworld generator (flat, custom or modded) written as \"default\"");
    mc_nbt_remove(data, "WorldGenSettings", 16);
    return mc_nbt_put_long(d, data, "RandomSeed", seed) == MC_OK && put_string(d, data, "generatorName", name) &&
           mc_nbt_put_int(d, data, "generatorVersion", 1) == MC_OK &&
           mc_nbt_put_byte(d, data, "MapFeatures", features) == MC_OK &&
           mc_nbt_put_byte(d, data, "BonusChest", bonus) == MC_OK;
}

/* WorldGenSettings of one 1.16+ era -> another: the vanilla three rebuilt
 * for the target when the overworld is one the game makes; others kept. */
static bool worldgen_between(mc_nbt_doc *d, mc_nbt_tag *data, int32_t from_dv, int32_t dv, mc_buf *notes)
{
    mc_nbt_tag *wgs = mc_nbt_get(data, "WorldGenSettings");
    bool crosses = (from_dv < DV_MULTI_NOISE_OVERWORLD) != (dv < DV_MULTI_NOISE_OVERWORLD) ||
                   (from_dv < DV_NO_GENERATOR_SEED) != (dv < DV_NO_GENERATOR_SEED);
    if (!crosses)
        return true;
    const char *kind = overworld_kind(wgs);
    if (!kind) {
        note(notes, "level.dat: WorldGenSettings with a flat, custom or modded overworld kept as it is");
        return true;
    }
    int64_t seed = 0;
    int8_t features = 1, bonus = 0;
    mc_nbt_get_long(mc_nbt_get(wgs, "seed"), &seed);
    mc_nbt_get_byte(mc_nbt_get(wgs, "generate_features"), &features);
    mc_nbt_get_byte(mc_nbt_get(wgs, "bonus_chest"), &bonus);
    /* the other dimensions (datapack ones) are carried over */
    mc_nbt_doc *keep = mc_nbt_doc_new(NULL);
    mc_nbt_tag *others = keep ? mc_nbt_doc_new_root(keep, MC_NBT_COMPOUND) : NULL;
    if (!others) {
        mc_nbt_doc_free(keep);
        return false;
    }
    for (mc_nbt_tag *t = mc_nbt_first(mc_nbt_get(wgs, "dimensions")); t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        bool vanilla = (kl == 19 && !memcmp(k, "minecraft:overworld", 19)) ||
                       (kl == 20 && !memcmp(k, "minecraft:the_nether", 20)) ||
                       (kl == 17 && !memcmp(k, "minecraft:the_end", 17));
        mc_nbt_tag *c = vanilla ? NULL : mc_nbt_copy(keep, t);
        if (c)
            mc_nbt_attach(keep, others, k, kl, c);
    }
    mc_nbt_remove(data, "WorldGenSettings", 16);
    bool ok = put_worldgen(d, data, seed, features, bonus, kind, dv);
    mc_nbt_tag *dims = mc_nbt_path(data, "WorldGenSettings.dimensions");
    for (mc_nbt_tag *t = mc_nbt_first(others); ok && t; t = mc_nbt_next(t)) {
        size_t kl;
        const char *k = mc_nbt_tag_key(t, &kl);
        mc_nbt_tag *c = mc_nbt_copy(d, t);
        ok = c && mc_nbt_attach(d, dims, k, kl, c) == MC_OK;
    }
    mc_nbt_doc_free(keep);
    return ok;
}

mc_status world_level_convert(world_level *l, const mc_version_info *target, mc_buf *notes, mc_error *err)
{
    mc_nbt_doc *d = l->doc;
    mc_nbt_tag *data = mc_nbt_get(mc_nbt_doc_root(d), "Data");
    if (!data)
        return mc_error_set(err, MC_ERR_MALFORMED, SIZE_MAX, "level.dat: no Data compound");
    int32_t from = l->data_version, dv = target->data_version;
    bool ok = put_version(d, data, target);
    bool has_wgs = mc_nbt_get(data, "WorldGenSettings") != NULL;
    if (ok && dv >= DV_WORLDGEN_SETTINGS && !has_wgs)
        ok = seed_keys_up(d, data, dv, notes);
    else if (ok && dv < DV_WORLDGEN_SETTINGS && has_wgs)
        ok = seed_keys_down(d, data, notes);
    else if (ok && has_wgs)
        ok = worldgen_between(d, data, from, dv, notes);
    if (ok && l->has_spawn && (from >= DV_SPAWN_COMPOUND) != (dv >= DV_SPAWN_COMPOUND))
        ok = put_spawn(d, data, l->spawn, dv);
    if (ok && dv >= DV_26_1 && from < DV_26_1)
        note(notes, "level.dat: 26.1 reads the world-generation settings from data/minecraft/"
                    "world_gen_settings.dat, which is not written: they stay in level.dat, where 26.1 does not "
                    "look (new chunks are generated with 26.1's defaults)");
    if (!ok)
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "level.dat: out of memory");
    world_level keep = *l;
    memset(l, 0, sizeof *l);
    l->doc = keep.doc;
    fill_summary(l);
    return MC_OK;
}

mc_status world_level_create(world_level *l, const mc_version_info *target, const char *name, int64_t seed,
                             const int32_t spawn[3], mc_error *err)
{
    memset(l, 0, sizeof *l);
    l->doc = mc_nbt_doc_new(NULL);
    mc_nbt_tag *root = l->doc ? mc_nbt_doc_new_root(l->doc, MC_NBT_COMPOUND) : NULL;
    mc_nbt_doc *d = l->doc;
    mc_nbt_tag *data = root ? mc_nbt_put_compound(d, root, "Data") : NULL;
    const int32_t dv = target->data_version;
    bool ok = data && put_version(d, data, target) && mc_nbt_put_int(d, data, "version", 19133) == MC_OK &&
              put_string(d, data, "LevelName", name) && mc_nbt_put_byte(d, data, "initialized", 1) == MC_OK &&
              mc_nbt_put_int(d, data, "GameType", 1) == MC_OK && mc_nbt_put_byte(d, data, "allowCommands", 1) == MC_OK &&
              mc_nbt_put_byte(d, data, "hardcore", 0) == MC_OK && mc_nbt_put_byte(d, data, "Difficulty", 2) == MC_OK &&
              mc_nbt_put_byte(d, data, "DifficultyLocked", 0) == MC_OK &&
              mc_nbt_put_long(d, data, "Time", 0) == MC_OK && mc_nbt_put_long(d, data, "DayTime", 6000) == MC_OK &&
              mc_nbt_put_long(d, data, "LastPlayed", (int64_t)time(NULL) * 1000) == MC_OK &&
              mc_nbt_put_byte(d, data, "raining", 0) == MC_OK && mc_nbt_put_int(d, data, "rainTime", 0) == MC_OK &&
              mc_nbt_put_byte(d, data, "thundering", 0) == MC_OK &&
              mc_nbt_put_int(d, data, "thunderTime", 0) == MC_OK &&
              mc_nbt_put_int(d, data, "clearWeatherTime", 0) == MC_OK &&
              mc_nbt_put_compound(d, data, "GameRules") != NULL && put_spawn(d, data, spawn, dv);
    if (ok && dv >= 1451) { /* 1.13: data packs */
        mc_nbt_tag *packs = mc_nbt_put_compound(d, data, "DataPacks");
        mc_nbt_tag *en = packs ? mc_nbt_put_list(d, packs, "Enabled", MC_NBT_STRING) : NULL;
        mc_nbt_tag *v = en ? mc_nbt_list_append(d, en, MC_NBT_STRING) : NULL;
        ok = v && mc_nbt_set_string(d, v, "vanilla", 7) == MC_OK &&
             mc_nbt_put_list(d, packs, "Disabled", MC_NBT_STRING) != NULL;
    }
    if (ok && dv >= DV_WORLDGEN_SETTINGS)
        ok = put_worldgen(d, data, seed, true, false, "minecraft:overworld", dv);
    else if (ok)
        ok = mc_nbt_put_long(d, data, "RandomSeed", seed) == MC_OK && put_string(d, data, "generatorName", "default") &&
             mc_nbt_put_int(d, data, "generatorVersion", 1) == MC_OK &&
             mc_nbt_put_byte(d, data, "MapFeatures", 1) == MC_OK;
    if (!ok) {
        world_level_free(l);
        return mc_error_set(err, MC_ERR_NOMEM, SIZE_MAX, "level.dat: out of memory");
    }
    fill_summary(l);
    return MC_OK;
}

mc_status world_level_write(const world_level *l, const char *dir, mc_error *err)
{
    mc_buf raw, gz;
    mc_buf_init(&raw, NULL);
    mc_buf_init(&gz, NULL);
    mc_status s = mc_nbt_write(l->doc, MC_NBT_JAVA, &raw, err);
    if (!s)
        s = mc_nbt_compress(raw.data, raw.len, MC_NBT_GZIP, 0, &gz, err);
    if (!s) {
        char path[4200], tmp[4200];
        snprintf(path, sizeof path, "%s/level.dat", dir);
        snprintf(tmp, sizeof tmp, "%s/level.dat_new", dir);
        s = write_via(tmp, path, gz.data, gz.len, err);
    }
    mc_buf_free(&raw);
    mc_buf_free(&gz);
    return s;
}
