/* support.c: corpus location, file helpers and the built tool's path for the unit tests. */
#include "support.h"

#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *mc_test_corpus_dir(void)
{
    static char dir[4096];
    static int state = 0; /* 0 unknown, 1 present, 2 absent */
    if (state == 0) {
        const char *env = getenv("MCCHUNK_CORPUS");
        const char *cand = env && *env ? env : MC_CORPUS_DIR;
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(dir, sizeof dir, "%s", cand);
            state = 1;
        } else {
            state = 2;
        }
    }
    return state == 1 ? dir : NULL;
}

const char *mc_test_corpus_path(const char *rel)
{
    static char path[4096];
    const char *dir = mc_test_corpus_dir();
    if (!dir)
        return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return path;
}

const char *mc_test_tool(void)
{
    static char tool[4096];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    snprintf(tool, sizeof tool, "%s/mcchunk", dirname(self));
    if (access(tool, X_OK) != 0) {
        print_message("%s not built: skipping\n", tool);
        skip();
    }
    return tool;
}

int mc_test_run_tool(const char *args)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", mc_test_tool(), args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

uint8_t *mc_test_read_file(const char *path, size_t *len)
{
    uint8_t *data = NULL;
    mc_error err;
    mc_error_clear(&err);
    if (mc_read_file(path, NULL, &data, len, &err) != MC_OK)
        fail_msg("cannot read %s: %s", path, err.message);
    return data;
}

typedef struct { char **v; size_t n, cap; } list;

static void push(list *l, const char *s)
{
    if (l->n + 2 > l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = strdup(s);
    l->v[l->n] = NULL;
}

static void walk(list *l, const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(l, p, suffix);
        } else {
            size_t n = strlen(p), k = strlen(suffix);
            if (n >= k && strcmp(p + n - k, suffix) == 0)
                push(l, p);
        }
    }
    closedir(d);
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **mc_test_list_corpus(const char *rel, const char *suffix)
{
    list l = {0};
    l.v = calloc(1, sizeof *l.v);
    l.cap = 1;
    const char *dir = mc_test_corpus_dir();
    if (dir) {
        char root[4096];
        snprintf(root, sizeof root, "%s/%s", dir, rel);
        walk(&l, root, suffix);
        qsort(l.v, l.n, sizeof *l.v, cmp);
    }
    return l.v;
}

void mc_test_free_list(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}


const mc_registry *mc_test_registry(const char *version)
{
    const mc_registry *reg = mc_registry_find(version);
    if (!reg)
        reg = mc_registry_find_bedrock(version);
    if (!reg)
        fail_msg("no registry for %s", version);
    return reg;
}

uint32_t mc_test_state(const mc_registry *reg, const char *text)
{
    uint32_t s = MC_STATE_NONE;
    mc_error err;
    mc_error_clear(&err);
    if (mc_registry_parse_state(reg, text, strlen(text), &s, &err) != MC_OK)
        fail_msg("%s: %s", text, err.message);
    return s;
}
