/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile_child.h - what the profile-loading tests share
 * (test_profile_load.c, test_profile_shipped.c): the child that reports
 * the thresholds and the profile in force, profiles written into a
 * temporary directory, and the checks of what the child said. Each
 * program sets dir (mkdtemp) and defaults (pc_tuning_defaults) first.
 */
#ifndef PC_TEST_PROFILE_CHILD_H
#define PC_TEST_PROFILE_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "child.h"

static inline int child(void)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    printf("vector_max=%zu\nnt=%zu\ncold_nt=%zu\nparallel_nt=%zu\n", h.vector_max,
           h.nt_threshold, h.cold_nt_threshold, h.parallel_nt_threshold);
    printf("profile=%s\nstatus=%s\n", h.profile, h.profile_status);
    printf("sel_4m=%s\ncold_64k=%s\ncold_4m=%s\ntemporal_64k=%s\n",
           pc_selected((size_t)4 << 20), pc_selected_cold((size_t)64 << 10),
           pc_selected_cold((size_t)4 << 20), pc_selected_temporal((size_t)64 << 10));
    /* What is reported is what runs. */
    static char buf[70000];
    pat_fill(buf, sizeof(buf));
    CHECK_EQ(pc_clear_cold(buf + 5, sizeof(buf) - 9), 0);
    CHECK_EQ(pat_check(buf, sizeof(buf), 5, sizeof(buf) - 4), SIZE_MAX);
    return 0;
}

static char dir[256];
static struct pc_tuning defaults;
/* The profile the main cases install: every threshold off its default. */
static const struct pc_tuning tuned = {8 << 10, 2 << 20, 1 << 20, 512 << 20, 96 << 20};

/* dir/rel; each result stays valid (the test makes a few dozen). */
static inline const char *path_in(const char *rel)
{
    static char bufs[128][512];
    static size_t next;
    CHECK(next < 128);
    char *p = bufs[next++];
    snprintf(p, sizeof(bufs[0]), "%s/%s", dir, rel);
    return p;
}

/* Create the directories leading to path. */
static inline void mkdirs(const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            CHECK(mkdir(tmp, 0700) == 0 || errno == EEXIST);
            *p = '/';
        }
}

static inline void write_text(const char *path, const char *text, size_t len)
{
    mkdirs(path);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK_EQ(fwrite(text, 1, len, f), len);
    CHECK(fclose(f) == 0);
}

/* A profile for this host carrying *t, with extra lines appended. */
static inline void write_profile(const char *path, const struct pc_tuning *t, const char *extra)
{
    char text[4096];
    int n = pc_profile_format(t, "written by test_profile_load", text, sizeof(text));
    CHECK(n > 0 && (size_t)n + strlen(extra) < sizeof(text));
    strcat(text, extra);
    write_text(path, text, strlen(text));
}

/* Replace the line of text starting with key (and " = ") by line. */
static inline void replace_line(char *text, size_t size, const char *key, const char *line)
{
    char k[64], rest[4096];
    snprintf(k, sizeof(k), "%s = ", key);
    char *at = strstr(text, k);
    CHECK(at != NULL && (at == text || at[-1] == '\n'));
    snprintf(rest, sizeof(rest), "%s", strchr(at, '\n'));
    CHECK((size_t)(at - text) + strlen(line) + strlen(rest) < size);
    strcpy(at, line);
    strcat(at, rest);
}

static inline void expect_tuning(const struct result *r, const struct pc_tuning *t)
{
    char a[64], want[64];
    const char *keys[] = {"vector_max", "nt", "cold_nt", "parallel_nt"};
    const size_t v[] = {t->vector_max, t->nt_threshold, t->cold_nt_threshold,
                        t->parallel_nt_threshold};
    for (int i = 0; i < 4; i++) {
        snprintf(want, sizeof(want), "%zu", v[i]);
        if (strcmp(child_field(r, keys[i], a, sizeof(a)), want) != 0) {
            fprintf(stderr, "%s=%s, want %s; child said:\n%s%s\n", keys[i], a, want,
                    r->out, r->err);
            exit(1);
        }
    }
}

static inline void expect_status(const struct result *r, const char *profile, const char *status)
{
    char a[512];
    CHECK(strcmp(child_field(r, "profile", a, sizeof(a)), profile) == 0);
    if (strstr(child_field(r, "status", a, sizeof(a)), status) == NULL) {
        fprintf(stderr, "status \"%s\" lacks \"%s\"\n", a, status);
        exit(1);
    }
}

/* A refused profile: one warning line naming the file and the reason, all
 * defaults, the status saying why. */
static inline void expect_refused(const char *const *env, const char *file, const char *reason)
{
    struct result r;
    child_run(env, &r);
    if (child_err_lines(&r) != 1 || !strstr(r.err, file) || !strstr(r.err, reason)) {
        fprintf(stderr, "want one warning naming %s and \"%s\", got:\n%s", file, reason,
                r.err);
        exit(1);
    }
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "refused: ");
    expect_status(&r, "", reason);
    /* PAGECLEAR_QUIET=1 silences the warning, not the refusal. */
    const char *quiet[16] = {"PAGECLEAR_QUIET=1"};
    for (size_t i = 0; env[i] != NULL && i < 14; i++)
        quiet[i + 1] = env[i];
    child_run(quiet, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &defaults);
    expect_status(&r, "", reason);
}

static inline void remove_tree(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    CHECK(system(cmd) == 0);
}

#endif
