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
#include "profile_child.h"

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
    expect_status(&r, named, "in force, named by PAGECLEAR_PROFILE");
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
    expect_status(&r, named, "in force, named by PAGECLEAR_PROFILE");
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
    expect_status(&r, path_in("xdg/pageclear/profile"), "in force, the user's");
    const char *e2[] = {home, NULL};
    child_run(e2, &r);
    expect_tuning(&r, &home_t);
    expect_status(&r, path_in("home/.config/pageclear/profile"), "in force, the user's");
    const char *e3[] = {xdg_rel, home, NULL}; /* a relative XDG path is ignored */
    child_run(e3, &r);
    expect_tuning(&r, &home_t);
    const char *e4[] = {kv, xdg, home, NULL};
    child_run(e4, &r);
    expect_tuning(&r, &tuned);
    expect_status(&r, named, "in force, named by PAGECLEAR_PROFILE");
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
        /* Where it looked last: the shipped profiles (child.h's empty
         * place; test_profile_shipped.c has the rest). */
        expect_status(&r, "", "none shipped for this CPU in " CHILD_NO_SHIPPED);
    }
    test_applied(etc_exists);
    test_refused();
    remove_tree(dir);
    puts("ok");
    return 0;
}
