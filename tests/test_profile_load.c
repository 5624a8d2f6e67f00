/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_profile_load.c - finding, reading and applying the profile, which
 * the library does once per process: each case re-runs this program as a
 * child with its own environment (PAGECLEAR_PROFILE, XDG_CONFIG_HOME, HOME
 * pointing into a temporary directory) and reads back what it reports.
 * Covers precedence (defaults < profile < single PAGECLEAR_* variables),
 * the lookup order, and that any refusal gives one warning line and every
 * default (never half a profile). /etc is never written; the cases that
 * need "no profile anywhere" are skipped if /etc/pageclear/profile exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "child.h"

static int child(void)
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
static const char *path_in(const char *rel)
{
    static char bufs[128][512];
    static size_t next;
    CHECK(next < 128);
    char *p = bufs[next++];
    snprintf(p, sizeof(bufs[0]), "%s/%s", dir, rel);
    return p;
}

/* Create the directories leading to path. */
static void mkdirs(const char *path)
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

static void write_text(const char *path, const char *text, size_t len)
{
    mkdirs(path);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK_EQ(fwrite(text, 1, len, f), len);
    CHECK(fclose(f) == 0);
}

/* A profile for this host carrying *t, with extra lines appended. */
static void write_profile(const char *path, const struct pc_tuning *t, const char *extra)
{
    char text[4096];
    int n = pc_profile_format(t, "written by test_profile_load", text, sizeof(text));
    CHECK(n > 0 && (size_t)n + strlen(extra) < sizeof(text));
    strcat(text, extra);
    write_text(path, text, strlen(text));
}

/* Replace the line of text starting with key (and " = ") by line. */
static void replace_line(char *text, size_t size, const char *key, const char *line)
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

static void expect_tuning(const struct result *r, const struct pc_tuning *t)
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

static void expect_status(const struct result *r, const char *profile, const char *status)
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
static void expect_refused(const char *const *env, const char *file, const char *reason)
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

static int has_nt_stores(void)
{
    struct pc_impl_info in;
    int id = pc_impl_find("x86-64-avx2-nt");
    return id >= 0 && pc_impl_get((size_t)id, &in) == 0 && in.supported;
}

static void test_applied(int etc_exists)
{
    static char kv[600];
    struct result r;
    char a[64];
    const char *named = path_in("named/profile");
    write_profile(named, &tuned, "");
    snprintf(kv, sizeof(kv), "PAGECLEAR_PROFILE=%s", named);
    const char *env[] = {kv, NULL};
    child_run(env, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &tuned);
    expect_status(&r, named, "in force");
    /* The selection follows: 4 MiB streams from pc_clear's 2 MiB, and the
     * cold clear allocates in cache below its 1 MiB. */
    char b[64];
    CHECK(strcmp(child_field(&r, "cold_64k", a, sizeof(a)),
                 child_field(&r, "temporal_64k", b, sizeof(b))) == 0);
    if (has_nt_stores()) {
        CHECK(is_streaming(child_field(&r, "sel_4m", a, sizeof(a))));
        CHECK(is_streaming(child_field(&r, "cold_4m", a, sizeof(a))));
    }

    /* A single variable overrides the profile's key, and only it. */
    const char *over[] = {kv, "PAGECLEAR_NT_THRESHOLD=never",
                          "PAGECLEAR_COLD_NT_THRESHOLD=8M", NULL};
    child_run(over, &r);
    CHECK(r.err[0] == '\0');
    struct pc_tuning want = tuned;
    want.nt_threshold = SIZE_MAX;
    want.cold_nt_threshold = 8 << 20;
    expect_tuning(&r, &want);
    expect_status(&r, named, "in force");
    CHECK(!is_streaming(child_field(&r, "sel_4m", a, sizeof(a))));
    const char *over2[] = {kv, "PAGECLEAR_VECTOR_MAX=0", "PAGECLEAR_PARALLEL_NT_THRESHOLD=1G",
                           NULL};
    child_run(over2, &r);
    want = tuned;
    want.vector_max = 0;
    want.parallel_nt_threshold = (size_t)1 << 30;
    expect_tuning(&r, &want);

    /* A profile with some thresholds: the rest keep their defaults. */
    const char *partial = path_in("partial/profile");
    char text[4096];
    CHECK(pc_profile_format(&defaults, NULL, text, sizeof(text)) > 0);
    *strstr(text, "vector_max = ") = '\0';
    strcat(text, "cold_nt_threshold = 3M\n");
    write_text(partial, text, strlen(text));
    static char kvp[600];
    snprintf(kvp, sizeof(kvp), "PAGECLEAR_PROFILE=%s", partial);
    const char *envp[] = {kvp, NULL};
    child_run(envp, &r);
    want = defaults;
    want.cold_nt_threshold = 3 << 20;
    expect_tuning(&r, &want);

    /* The lookup: $XDG_CONFIG_HOME/pageclear/profile, else
     * $HOME/.config/pageclear/profile; PAGECLEAR_PROFILE before both. */
    const struct pc_tuning xdg_t = {16 << 10, 4 << 20, 2 << 20, 256 << 20, 32 << 20};
    const struct pc_tuning home_t = {12 << 10, 6 << 20, 4 << 20, 128 << 20, 48 << 20};
    write_profile(path_in("xdg/pageclear/profile"), &xdg_t, "");
    write_profile(path_in("home/.config/pageclear/profile"), &home_t, "");
    static char xdg[600], home[600], xdg_empty[600], xdg_rel[] = "XDG_CONFIG_HOME=rel/dir";
    snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", path_in("xdg"));
    snprintf(home, sizeof(home), "HOME=%s", path_in("home"));
    snprintf(xdg_empty, sizeof(xdg_empty), "XDG_CONFIG_HOME=%s", path_in("named"));
    const char *e1[] = {xdg, home, NULL};
    child_run(e1, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &xdg_t);
    expect_status(&r, path_in("xdg/pageclear/profile"), "in force");
    const char *e2[] = {home, NULL};
    child_run(e2, &r);
    expect_tuning(&r, &home_t);
    expect_status(&r, path_in("home/.config/pageclear/profile"), "in force");
    const char *e3[] = {xdg_rel, home, NULL}; /* a relative XDG path is ignored */
    child_run(e3, &r);
    expect_tuning(&r, &home_t);
    const char *e4[] = {kv, xdg, home, NULL};
    child_run(e4, &r);
    expect_tuning(&r, &tuned);
    expect_status(&r, named, "in force");
    /* PAGECLEAR_PROFILE set and empty: no profile, though the user's is
     * there, and no warning. */
    static char off[] = "PAGECLEAR_PROFILE=";
    const char *e6[] = {off, xdg, home, NULL};
    child_run(e6, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "none: PAGECLEAR_PROFILE is set and empty");
    if (!etc_exists) {
        /* XDG_CONFIG_HOME replaces ~/.config: with no profile there, the
         * next place is /etc, and nothing is found. */
        const char *e5[] = {xdg_empty, home, NULL};
        child_run(e5, &r);
        CHECK(r.err[0] == '\0');
        expect_tuning(&r, &defaults);
        expect_status(&r, "", "none found");
    }
}

static void test_refused(void)
{
    static char kv[8][600];
    char text[4096];
    int k = 0;
#define NAMED(rel) (snprintf(kv[k], sizeof(kv[k]), "PAGECLEAR_PROFILE=%s", path_in(rel)), kv[k++])

    /* A named file that does not exist. */
    const char *e1[] = {NAMED("missing/profile"), NULL};
    expect_refused(e1, path_in("missing/profile"), "No such file");

    /* Malformed after a valid threshold line: none of it applies. */
    CHECK(pc_profile_format(&tuned, NULL, text, sizeof(text)) > 0);
    strcat(text, "turbo = on\n");
    write_text(path_in("bad/profile"), text, strlen(text));
    const char *e2[] = {NAMED("bad/profile"), NULL};
    expect_refused(e2, path_in("bad/profile"), "unknown key 'turbo'");

    /* Out of range; another CPU; another library version. */
    CHECK(pc_profile_format(&tuned, NULL, text, sizeof(text)) > 0);
    replace_line(text, sizeof(text), "vector_max", "vector_max = 9G");
    write_text(path_in("range/profile"), text, strlen(text));
    const char *e3[] = {NAMED("range/profile"), NULL};
    expect_refused(e3, path_in("range/profile"), "out of range");

    CHECK(pc_profile_format(&tuned, NULL, text, sizeof(text)) > 0);
    replace_line(text, sizeof(text), "cpu", "cpu = 9999.1.1"); /* no CPU's family */
    write_text(path_in("cpu/profile"), text, strlen(text));
    const char *e4[] = {NAMED("cpu/profile"), NULL};
    expect_refused(e4, path_in("cpu/profile"), "another CPU");

    CHECK(pc_profile_format(&tuned, NULL, text, sizeof(text)) > 0);
    replace_line(text, sizeof(text), "format", "format = 7");
    write_text(path_in("version/profile"), text, strlen(text));
    const char *e5[] = {NAMED("version/profile"), NULL};
    expect_refused(e5, path_in("version/profile"), "format 7");

    /* Not a regular file (a directory, a FIFO: no hang), too large. */
    const char *e6[] = {NAMED("named"), NULL};
    expect_refused(e6, path_in("named"), "not a regular file");
    CHECK(mkfifo(path_in("fifo"), 0600) == 0);
    const char *e7[] = {NAMED("fifo"), NULL};
    expect_refused(e7, path_in("fifo"), "not a regular file");
    static char big[(64 << 10) + 100];
    memset(big, '#', sizeof(big));
    for (size_t i = 100; i < sizeof(big); i += 100)
        big[i] = '\n';
    write_text(path_in("big/profile"), big, sizeof(big));
    const char *e8[] = {NAMED("big/profile"), NULL};
    expect_refused(e8, path_in("big/profile"), "larger than 64 KiB");
#undef NAMED

    /* A refused profile in a default place: also one warning, defaults. */
    static char xdg[600];
    snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", path_in("bad-xdg"));
    write_text(path_in("bad-xdg/pageclear/profile"), "vector_max = 1K\n", 16);
    const char *e9[] = {xdg, NULL};
    expect_refused(e9, path_in("bad-xdg/pageclear/profile"), "missing identity");

    /* A refused profile does not stop a single variable. */
    const char *e10[] = {kv[1], "PAGECLEAR_VECTOR_MAX=4K", NULL};
    struct result r;
    child_run(e10, &r);
    CHECK_EQ(child_err_lines(&r), 1);
    struct pc_tuning want = defaults;
    want.vector_max = 4 << 10;
    expect_tuning(&r, &want);
}

static void remove_tree(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    CHECK(system(cmd) == 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    CHECK_EQ(pc_tuning_defaults(&defaults), 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/pageclear-profile-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);

    int etc_exists = access("/etc/pageclear/profile", F_OK) == 0;
    struct result r;
    child_run(NULL, &r);
    if (etc_exists) {
        printf("note: /etc/pageclear/profile exists; the no-profile cases are skipped\n");
    } else {
        CHECK(r.err[0] == '\0');
        expect_tuning(&r, &defaults);
        expect_status(&r, "", "none found");
    }
    test_applied(etc_exists);
    test_refused();
    remove_tree(dir);
    puts("ok");
    return 0;
}
