/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_profile_shipped.c - the profiles shipped with pageclear, looked up
 * after the user's and the system's: each case re-runs this program as a
 * child with PAGECLEAR_PROFILES_DIR pointing at a temporary directory of
 * profiles (profile_child.h). The first *.profile in name order made for
 * this host is taken; another CPU's or another major version's are passed
 * over in silence, a malformed one with a warning, and none breaks the
 * start; a user's profile comes first, and one that is refused still ends
 * the search. Then the repository's own data/profiles/: well-formed,
 * named by identity, one per CPU, and the one for this host (if any) is
 * what the library takes. /etc is never written: the cases are skipped
 * if /etc/pageclear/profile exists (it would come before them all).
 */
#include <dirent.h>

#include "profile_child.h"

static char kv_dir[600];
static const struct pc_tuning other_t = {16 << 10, 4 << 20, 2 << 20, 256 << 20, 32 << 20};

/* PAGECLEAR_PROFILES_DIR=dir/rel, for the case's environment. */
static const char *shipped_in(const char *rel)
{
    snprintf(kv_dir, sizeof(kv_dir), "PAGECLEAR_PROFILES_DIR=%s", path_in(rel));
    return kv_dir;
}

/* A profile for this host carrying *t, with the line of key replaced by
 * line (key NULL: as pc_profile_format writes it). */
static void write_variant(const char *path, const struct pc_tuning *t, const char *key,
                          const char *line)
{
    char text[4096];
    CHECK(pc_profile_format(t, "a test's shipped profile", text, sizeof(text)) > 0);
    if (key != NULL)
        replace_line(text, sizeof(text), key, line);
    write_text(path, text, strlen(text));
}

static void expect_shipped(const struct result *r, const char *path, const struct pc_tuning *t)
{
    expect_tuning(r, t);
    expect_status(r, path, "in force, shipped for this CPU");
}

static void test_pick(void)
{
    struct result r;
    /* Sorted by name: another CPU's (silent), then two for this host: the
     * first is taken. A hidden file and one not named *.profile are not
     * read, though they would be refused. */
    write_variant(path_in("s1/a-other.profile"), &other_t, "cpu", "cpu = 9999.1.1");
    write_profile(path_in("s1/b-here.profile"), &tuned, "");
    write_profile(path_in("s1/c-here.profile"), &other_t, "");
    write_text(path_in("s1/.hidden.profile"), "turbo = on\n", 11);
    write_text(path_in("s1/README"), "turbo = on\n", 11);
    write_text(path_in("s1/x.profile.orig"), "turbo = on\n", 11);
    const char *e1[] = {shipped_in("s1"), NULL};
    child_run(e1, &r);
    if (r.err[0] != '\0') {
        fprintf(stderr, "no warning expected, got:\n%s", r.err);
        exit(1);
    }
    expect_shipped(&r, path_in("s1/b-here.profile"), &tuned);

    /* Only other hosts' (another CPU, another major version, another
     * format): nothing taken, nothing said. */
    char line[64];
    snprintf(line, sizeof(line), "library = %d.0.0", PC_VERSION_MAJOR + 1);
    write_variant(path_in("s2/a.profile"), &other_t, "cpu", "cpu = 9999.1.1");
    write_variant(path_in("s2/b.profile"), &tuned, "library", line);
    write_variant(path_in("s2/c.profile"), &tuned, "format", "format = 2");
    write_variant(path_in("s2/d.profile"), &tuned, "hypervisor", "hypervisor = 2");
    const char *e2[] = {shipped_in("s2"), NULL};
    child_run(e2, &r);
    /* d.profile is malformed, not another host's: the one warning. */
    CHECK_EQ(child_err_lines(&r), 1);
    CHECK(strstr(r.err, "shipped profile") && strstr(r.err, "d.profile") &&
          strstr(r.err, "hypervisor"));
    CHECK(strstr(r.err, "a.profile") == NULL && strstr(r.err, "b.profile") == NULL);
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "none found");
    expect_status(&r, "", "none shipped for this CPU in ");
    expect_status(&r, "", path_in("s2"));
    const char *q2[] = {shipped_in("s2"), "PAGECLEAR_QUIET=1", NULL};
    child_run(q2, &r);
    CHECK(r.err[0] == '\0');

    /* Malformed, out of range, not a regular file, before the one for
     * this host: a warning each, and the search goes on. */
    write_text(path_in("s3/2.profile"), "vector_max = 1K\n", 16);
    write_variant(path_in("s3/3.profile"), &tuned, "vector_max", "vector_max = 9G");
    CHECK(mkdir(path_in("s3/4.profile"), 0700) == 0);
    write_profile(path_in("s3/5.profile"), &other_t, "");
    const char *e3[] = {shipped_in("s3"), NULL};
    child_run(e3, &r);
    CHECK_EQ(child_err_lines(&r), 3);
    CHECK(strstr(r.err, "2.profile: missing identity") != NULL);
    CHECK(strstr(r.err, "3.profile: line") && strstr(r.err, "out of range"));
    CHECK(strstr(r.err, "4.profile: not a regular file") != NULL);
    expect_shipped(&r, path_in("s3/5.profile"), &other_t);

    /* A directory that does not exist, or set and empty: none. */
    const char *e4[] = {shipped_in("missing"), NULL};
    child_run(e4, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "none shipped for this CPU in ");
    const char *e5[] = {"PAGECLEAR_PROFILES_DIR=", NULL};
    child_run(e5, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "PAGECLEAR_PROFILES_DIR is set and empty");
}

/* The user's profile and PAGECLEAR_PROFILE come before the shipped one; a
 * refused one ends the search all the same. */
static void test_precedence(void)
{
    struct result r;
    write_profile(path_in("p/here.profile"), &tuned, "");
    const char *shipped = shipped_in("p");
    write_profile(path_in("home/.config/pageclear/profile"), &other_t, "");
    static char home[600], named[600], bad[600];
    snprintf(home, sizeof(home), "HOME=%s", path_in("home"));
    const char *e1[] = {shipped, home, NULL};
    child_run(e1, &r);
    CHECK(r.err[0] == '\0');
    expect_tuning(&r, &other_t);
    expect_status(&r, path_in("home/.config/pageclear/profile"), "in force, the user's");

    write_profile(path_in("named/profile"), &other_t, "");
    snprintf(named, sizeof(named), "PAGECLEAR_PROFILE=%s", path_in("named/profile"));
    const char *e2[] = {shipped, named, NULL};
    child_run(e2, &r);
    expect_tuning(&r, &other_t);
    expect_status(&r, path_in("named/profile"), "in force, named by PAGECLEAR_PROFILE");
    /* Named but missing, or set and empty: the shipped one is not looked at. */
    snprintf(named, sizeof(named), "PAGECLEAR_PROFILE=%s", path_in("named/missing"));
    expect_refused(e2, path_in("named/missing"), "No such file");
    const char *e3[] = {shipped, "PAGECLEAR_PROFILE=", NULL};
    child_run(e3, &r);
    expect_tuning(&r, &defaults);
    expect_status(&r, "", "none: PAGECLEAR_PROFILE is set and empty");

    /* A user's profile made on another CPU: refused, and no shipped one
     * stands in for it. */
    char text[4096];
    CHECK(pc_profile_format(&other_t, NULL, text, sizeof(text)) > 0);
    replace_line(text, sizeof(text), "cpu", "cpu = 9999.1.1");
    write_text(path_in("bad/pageclear/profile"), text, strlen(text));
    snprintf(bad, sizeof(bad), "XDG_CONFIG_HOME=%s", path_in("bad"));
    const char *e4[] = {shipped, bad, NULL};
    expect_refused(e4, path_in("bad/pageclear/profile"), "another CPU");

    /* Without the variable the library looks where it was built to
     * (PC_TEST_PROFILES_DIR, the install's datadir). */
    const char *e5[] = {"PAGECLEAR_PROFILES_DIR", NULL};
    child_run(e5, &r);
    if (access(PC_TEST_PROFILES_DIR, F_OK) != 0) {
        CHECK(r.err[0] == '\0');
        expect_status(&r, "", "none shipped for this CPU in " PC_TEST_PROFILES_DIR);
    }
}

/* More *.profile files than the library reads: the first ones by name,
 * whatever order the directory lists them in, and one warning. */
static void test_bound(void)
{
    char path[512], text[4096];
    CHECK(pc_profile_format(&other_t, NULL, text, sizeof(text)) > 0);
    replace_line(text, sizeof(text), "cpu", "cpu = 9999.1.1");
    for (int i = 0; i < 256; i++) {
        snprintf(path, sizeof(path), "%s/many/m%03d.profile", dir, i);
        write_text(path, text, strlen(text));
    }
    write_profile(path_in("many/zz-here.profile"), &tuned, "");
    struct result r;
    const char *e1[] = {shipped_in("many"), NULL};
    child_run(e1, &r);
    CHECK_EQ(child_err_lines(&r), 1);
    CHECK(strstr(r.err, "more than 256 shipped profiles") != NULL);
    expect_tuning(&r, &defaults);
    /* One fewer: the 256th by name is read, and taken. */
    snprintf(path, sizeof(path), "%s/many/m000.profile", dir);
    CHECK(unlink(path) == 0);
    child_run(e1, &r);
    CHECK(r.err[0] == '\0');
    expect_shipped(&r, path_in("many/zz-here.profile"), &tuned);
}

/* The short vendor name a shipped profile's file name starts with. */
static void vendor_short(const char *vendor, char *out, size_t size)
{
    if (strcmp(vendor, "GenuineIntel") == 0)
        vendor = "intel";
    else if (strcmp(vendor, "AuthenticAMD") == 0)
        vendor = "amd";
    size_t n = 0;
    for (; vendor[n] && n + 1 < size; n++)
        out[n] = vendor[n] >= 'A' && vendor[n] <= 'Z' ? (char)(vendor[n] + 32) : vendor[n];
    out[n] = '\0';
}

/* The value of "key = value" in text, into out. */
static const char *value_of(const char *text, const char *key, char *out, size_t size)
{
    char k[64];
    snprintf(k, sizeof(k), "\n%s = ", key);
    const char *at = strstr(text, k);
    CHECK(at != NULL);
    at += strlen(k);
    size_t n = strcspn(at, "\n");
    CHECK(n < size);
    memcpy(out, at, n);
    out[n] = '\0';
    return out;
}

/* One file of data/profiles/: made by tune, saying where and when; named
 * by its identity; for this major version (from 1.0, the release they
 * ship with). Copied into dir/repo/ with the library line made this
 * library's, it parses here or is another CPU's. Returns 1 if it is this
 * host's (*t its thresholds). */
static int check_repo_file(const char *name, struct pc_tuning *t)
{
    static char text[65536];
    char path[700], rel[256], v[128], f[4][32], hv[8], want[256], line[64];
    snprintf(path, sizeof(path), "%s/data/profiles/%s", PC_TEST_SOURCE_DIR, name);
    FILE *in = fopen(path, "r");
    CHECK(in != NULL);
    size_t len = fread(text, 1, sizeof(text) - 1, in);
    fclose(in);
    text[len] = '\0';
    CHECK(strncmp(text, "# made by 'pageclear tune' on ", 30) == 0);
    CHECK(strstr(text, "\n# Where and when: ") != NULL);
    unsigned major;
    CHECK(sscanf(value_of(text, "library", v, sizeof(v)), "%u.", &major) == 1);
    CHECK(PC_VERSION_MAJOR == 0 || major == PC_VERSION_MAJOR);
    vendor_short(value_of(text, "vendor", v, sizeof(v)), f[0], sizeof(f[0]));
    CHECK(sscanf(value_of(text, "cpu", v, sizeof(v)), "%31[0-9].%31[0-9].%31[0-9]", f[1],
                 f[2], f[3]) == 3);
    value_of(text, "hypervisor", hv, sizeof(hv));
    snprintf(want, sizeof(want), "%s-%s-%s-%s%s.profile", f[0], f[1], f[2], f[3],
             strcmp(hv, "1") == 0 ? "-guest" : "");
    if (strcmp(name, want) != 0) {
        fprintf(stderr, "data/profiles/%s: named by its identity it is %s\n", name, want);
        exit(1);
    }
    snprintf(line, sizeof(line), "library = %s", pc_version());
    replace_line(text, sizeof(text), "library", line);
    snprintf(rel, sizeof(rel), "repo/%.200s", name);
    write_text(path_in(rel), text, strlen(text));
    char why[256];
    int rc = pc_profile_parse(text, strlen(text), t, why, sizeof(why));
    if (rc != 0 && rc != -ENODEV) {
        fprintf(stderr, "data/profiles/%s: %s\n", name, why);
        exit(1);
    }
    return rc == 0;
}

/* The repository's data/profiles/: each file well-formed and named by
 * identity, at most one for this host, and that one what the library
 * takes from a directory of them. */
static void test_repository(void)
{
    char src[600], here[256] = "";
    struct pc_tuning t, here_t;
    snprintf(src, sizeof(src), "%s/data/profiles", PC_TEST_SOURCE_DIR);
    DIR *d = opendir(src);
    CHECK(d != NULL);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.')
            continue;
        CHECK(len > 8 && strcmp(e->d_name + len - 8, ".profile") == 0);
        n++;
        if (check_repo_file(e->d_name, &t)) {
            CHECK(here[0] == '\0'); /* two for one host: the second would be dead */
            snprintf(here, sizeof(here), "repo/%s", e->d_name);
            here_t = t;
        }
    }
    closedir(d);
    CHECK(n >= 2);
    struct result r;
    const char *e1[] = {shipped_in("repo"), NULL};
    child_run(e1, &r);
    CHECK(r.err[0] == '\0');
    if (here[0] != '\0') {
        printf("data/profiles: %s is this host's\n", here + 5);
        expect_shipped(&r, path_in(here), &here_t);
    } else {
        printf("data/profiles: none is this host's\n");
        expect_tuning(&r, &defaults);
        expect_status(&r, "", "none shipped for this CPU");
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    CHECK_EQ(pc_tuning_defaults(&defaults), 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/pageclear-shipped-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    if (access("/etc/pageclear/profile", F_OK) == 0) {
        printf("skipped: /etc/pageclear/profile exists and comes before shipped profiles\n");
        remove_tree(dir);
        return 77;
    }
    test_pick();
    test_precedence();
    test_bound();
    test_repository();
    remove_tree(dir);
    puts("ok");
    return 0;
}
