/*
 * test_options.c - PAGECLEAR_* environment variables. Options are read
 * once per process, so each case re-runs this program as a child with its
 * own environment and reads back what the child reports and prints on
 * stderr.
 */
#include <sys/wait.h>

#include "harness.h"

/* Child mode: report what the library decided. */
static int child(void)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    printf("small=%s\nlarge=%s\ntemporal_large=%s\nunit=%zu\nforced=%s\n",
           pc_selected(100), pc_selected((size_t)1 << 30),
           pc_selected_temporal((size_t)1 << 30), pc_default_unit(),
           h.forced ? h.forced : "-");
    /* The library's behaviour must follow what it reports. */
    static char buf[8192];
    pat_fill(buf, sizeof(buf));
    CHECK_EQ(pc_clear(buf + 1, sizeof(buf) - 2), 0);
    CHECK_EQ(pat_check(buf, sizeof(buf), 1, sizeof(buf) - 1), SIZE_MAX);
    return 0;
}

struct result {
    char out[1024];
    char err[2048];
};

static void slurp(int fd, char *dst, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, dst + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    dst[n] = '\0';
    close(fd);
}

/* Run the child with up to two "NAME=VALUE" settings (NULL: none). Under
 * an emulator (cross builds set PC_TEST_EMULATOR, e.g. qemu-aarch64 -L
 * ...) the child is started through it. */
static void run2(const char *self, const char *env_kv, const char *env_kv2,
                 struct result *res)
{
    int out[2], err[2];
    CHECK(pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        unsetenv("PAGECLEAR_IMPL");
        unsetenv("PAGECLEAR_UNIT");
        unsetenv("PAGECLEAR_VECTOR_MAX");
        unsetenv("PAGECLEAR_NT_THRESHOLD");
        unsetenv("PAGECLEAR_QUIET");
        if (env_kv != NULL)
            putenv((char *)env_kv);
        if (env_kv2 != NULL)
            putenv((char *)env_kv2);
        if (getenv("PC_TEST_EMULATOR") != NULL)
            execl("/bin/sh", "sh", "-c", "exec $PC_TEST_EMULATOR \"$0\" child", self,
                  (char *)NULL);
        else
            execl(self, self, "child", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    slurp(err[0], res->err, sizeof(res->err)); /* small: no pipe deadlock */
    slurp(out[0], res->out, sizeof(res->out));
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "child with %s failed:\n%s%s\n", env_kv ? env_kv : "(none)",
                res->out, res->err);
        exit(1);
    }
}

static void run(const char *self, const char *env_kv, struct result *res)
{
    run2(self, env_kv, NULL, res);
}

static const char *field(const struct result *r, const char *key, char *buf, size_t n)
{
    const char *p = strstr(r->out, key);
    CHECK(p != NULL);
    p += strlen(key);
    CHECK(*p == '=');
    p++;
    size_t k = 0;
    while (p[k] && p[k] != '\n' && k + 1 < n) {
        buf[k] = p[k];
        k++;
    }
    buf[k] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();

    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0);
    self[n] = '\0';
    char a[64], b[64];
    struct result base, r;
    run(self, NULL, &base);
    CHECK(base.err[0] == '\0');

    /* Forcing a primitive this host runs: used at every size, no message. */
    const char *forced_name = NULL;
    const char *candidates[] = {"x86-64-stosq", "aarch64-stp", "generic"};
    for (size_t i = 0; i < 3 && !forced_name; i++) {
        struct pc_impl_info in;
        int id = pc_impl_find(candidates[i]);
        if (id >= 0 && pc_impl_get((size_t)id, &in) == 0 && in.supported)
            forced_name = candidates[i];
    }
    static char kv[128];
    snprintf(kv, sizeof(kv), "PAGECLEAR_IMPL=%s", forced_name);
    run(self, kv, &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "small", a, sizeof(a)), forced_name) == 0);
    CHECK(strcmp(field(&r, "large", a, sizeof(a)), forced_name) == 0);
    CHECK(strcmp(field(&r, "forced", a, sizeof(a)), forced_name) == 0);

    /* An unknown name: one clear message, the default selection kept. */
    run(self, "PAGECLEAR_IMPL=warp-drive", &r);
    CHECK(strstr(r.err, "PAGECLEAR_IMPL") && strstr(r.err, "no such primitive"));
    CHECK(strcmp(r.out, base.out) == 0);

    /* A known name this host cannot run: refused with a message. */
    for (size_t i = 0; i < pc_impl_count(); i++) {
        struct pc_impl_info in;
        pc_impl_get(i, &in);
        if (in.supported)
            continue;
        static char kv2[128];
        snprintf(kv2, sizeof(kv2), "PAGECLEAR_IMPL=%s", in.name);
        run(self, kv2, &r);
        CHECK(strstr(r.err, "cannot run it") != NULL);
        CHECK(strcmp(r.out, base.out) == 0);
    }

    /* A forced non-temporal primitive still leaves the hint neighbourhood
     * to cache-allocating stores. */
    struct pc_impl_info nt;
    int nt_id = pc_impl_find("x86-64-avx2-nt");
    if (nt_id >= 0 && pc_impl_get((size_t)nt_id, &nt) == 0 && nt.supported) {
        run(self, "PAGECLEAR_IMPL=x86-64-avx2-nt", &r);
        CHECK(strcmp(field(&r, "large", a, sizeof(a)), "x86-64-avx2-nt") == 0);
        int t = pc_impl_find(field(&r, "temporal_large", b, sizeof(b)));
        CHECK(t >= 0);
        pc_impl_get((size_t)t, &nt);
        CHECK(nt.cache != PC_CACHE_NONTEMPORAL);
    }

    /* Unit: a good value is used; a bad one warns and keeps the default. */
    run(self, "PAGECLEAR_UNIT=4M", &r);
    CHECK(strcmp(field(&r, "unit", a, sizeof(a)), "4194304") == 0);
    run(self, "PAGECLEAR_UNIT=lots", &r);
    CHECK(strstr(r.err, "PAGECLEAR_UNIT") != NULL);
    CHECK(strcmp(field(&r, "unit", a, sizeof(a)), field(&base, "unit", b, sizeof(b))) == 0);
    run(self, "PAGECLEAR_UNIT=0", &r);
    CHECK(strstr(r.err, "PAGECLEAR_UNIT") != NULL);

    /* Thresholds move the selection: no vector stores for 100 bytes, and
     * a 1 GiB extent below an NT threshold of 2 GiB stays temporal. */
    run(self, "PAGECLEAR_VECTOR_MAX=0", &r);
    CHECK(strstr(field(&r, "small", a, sizeof(a)), "avx") == NULL);
    run(self, "PAGECLEAR_NT_THRESHOLD=2G", &r);
    CHECK(strstr(field(&r, "large", a, sizeof(a)), "-nt") == NULL);
    run(self, "PAGECLEAR_NT_THRESHOLD=-5", &r);
    CHECK(strstr(r.err, "PAGECLEAR_NT_THRESHOLD") != NULL);
    CHECK(strcmp(r.out, base.out) == 0);

    /* PAGECLEAR_QUIET=1 silences the warnings, and only them. */
    run2(self, "PAGECLEAR_QUIET=1", "PAGECLEAR_IMPL=warp-drive", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(r.out, base.out) == 0);

    puts("ok");
    return 0;
}
