/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_options.c - PAGECLEAR_* environment variables. Options are read
 * once per process, so each case re-runs this program as a child with its
 * own environment and reads back what the child reports and prints on
 * stderr.
 */
#include "child.h"

/* Child mode: report what the library decided. */
static int child(void)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    printf("small=%s\nlarge=%s\ntemporal_large=%s\nunit=%zu\nforced=%s\n",
           pc_selected(100), pc_selected((size_t)1 << 30),
           pc_selected_temporal((size_t)1 << 30), pc_default_unit(),
           h.forced ? h.forced : "-");
    printf("vector_max=%zu\nnt=%zu\ncold_nt=%zu\nparallel_nt=%zu\n", h.vector_max,
           h.nt_threshold, h.cold_nt_threshold, h.parallel_nt_threshold);
    /* pc_host's threshold fields hold what pc_threshold_info says is in
     * force (host.c fills them from the threshold table). */
    const size_t host_v[PC_NTHRESHOLDS] = {
        [PC_THRESHOLD_VECTOR_MAX] = h.vector_max, [PC_THRESHOLD_NT] = h.nt_threshold,
        [PC_THRESHOLD_COLD_NT] = h.cold_nt_threshold,
        [PC_THRESHOLD_PARALLEL_NT] = h.parallel_nt_threshold};
    for (int i = 0; i <= PC_THRESHOLD_PARALLEL_NT; i++) { /* later: not in pc_host */
        struct pc_threshold_info in;
        CHECK_EQ(pc_threshold_info(i, &in), 0);
        CHECK_EQ(in.value, host_v[i]);
    }
    struct pc_threshold_info pre;
    CHECK_EQ(pc_threshold_info(PC_THRESHOLD_PRELOAD_MIN, &pre), 0);
    printf("preload_min=%zu\n", pre.value);
    printf("cold_64k=%s\ncold_large=%s\ntemporal_64k=%s\n",
           pc_selected_cold((size_t)64 << 10), pc_selected_cold((size_t)1 << 30),
           pc_selected_temporal((size_t)64 << 10));
    /* The library's behaviour must follow what it reports. */
    static char buf[8192];
    pat_fill(buf, sizeof(buf));
    CHECK_EQ(pc_clear(buf + 1, sizeof(buf) - 2), 0);
    CHECK_EQ(pat_check(buf, sizeof(buf), 1, sizeof(buf) - 1), SIZE_MAX);
    pat_fill(buf, sizeof(buf));
    CHECK_EQ(pc_clear_cold(buf + 3, sizeof(buf) - 5), 0);
    CHECK_EQ(pat_check(buf, sizeof(buf), 3, sizeof(buf) - 2), SIZE_MAX);
    return 0;
}

/* Run the child with up to two "NAME=VALUE" settings (NULL: none). */
static void run2(const char *self, const char *env_kv, const char *env_kv2,
                 struct result *res)
{
    const char *env[] = {env_kv, env_kv2, NULL};
    (void)self;
    if (env_kv == NULL)
        env[0] = env_kv2;
    child_run(env, res);
}

static void run(const char *self, const char *env_kv, struct result *res)
{
    run2(self, env_kv, NULL, res);
}

static const char *field(const struct result *r, const char *key, char *buf, size_t n)
{
    return child_field(r, key, buf, n);
}

static int has_nt_stores(void)
{
    struct pc_impl_info in;
    int id = pc_impl_find("x86-64-avx2-nt");
    return id >= 0 && pc_impl_get((size_t)id, &in) == 0 && in.supported;
}

/* The cold and parallel thresholds and "never" for the non-temporal
 * variables. */
static void test_thresholds(const char *self, const struct result *base)
{
    char a[64], b[64], never[32];
    struct result r;
    snprintf(never, sizeof(never), "%zu", SIZE_MAX);
    run(self, "PAGECLEAR_COLD_NT_THRESHOLD=8M", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "cold_nt", a, sizeof(a)), "8388608") == 0);
    /* Below the cold threshold the cold clear allocates in cache. */
    CHECK(strcmp(field(&r, "cold_64k", a, sizeof(a)),
                 field(&r, "temporal_64k", b, sizeof(b))) == 0);
    CHECK(strcmp(field(&r, "nt", a, sizeof(a)), field(base, "nt", b, sizeof(b))) == 0);
    run(self, "PAGECLEAR_COLD_NT_THRESHOLD=64K", &r);
    if (has_nt_stores()) /* from it, streaming stores */
        CHECK(is_streaming(field(&r, "cold_64k", a, sizeof(a))));
    run(self, "PAGECLEAR_COLD_NT_THRESHOLD=never", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "cold_nt", a, sizeof(a)), never) == 0);
    CHECK(strcmp(field(&r, "cold_large", a, sizeof(a)),
                 field(&r, "temporal_large", b, sizeof(b))) == 0);
    run(self, "PAGECLEAR_PARALLEL_NT_THRESHOLD=512M", &r);
    CHECK(strcmp(field(&r, "parallel_nt", a, sizeof(a)), "536870912") == 0);
    run(self, "PAGECLEAR_PARALLEL_NT_THRESHOLD=Never", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "parallel_nt", a, sizeof(a)), never) == 0);
    run(self, "PAGECLEAR_NT_THRESHOLD=never", &r);
    CHECK(r.err[0] == '\0');
    CHECK(!is_streaming(field(&r, "large", a, sizeof(a))));
    CHECK(strcmp(field(&r, "nt", a, sizeof(a)), never) == 0);
    run(self, "PAGECLEAR_PRELOAD_MIN=3M", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "preload_min", a, sizeof(a)), "3145728") == 0);
    run(self, "PAGECLEAR_PRELOAD_MIN=0", &r); /* every length */
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(field(&r, "preload_min", a, sizeof(a)), "0") == 0);
    /* Bad values: one warning each, nothing changed. vector_max takes no
     * "never"; 0 is no threshold for streaming. */
    const char *bad[] = {"PAGECLEAR_VECTOR_MAX=never", "PAGECLEAR_COLD_NT_THRESHOLD=0",
                         "PAGECLEAR_PARALLEL_NT_THRESHOLD=soon",
                         "PAGECLEAR_COLD_NT_THRESHOLD=nevermore",
                         "PAGECLEAR_PRELOAD_MIN=big"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        run(self, bad[i], &r);
        CHECK_EQ(child_err_lines(&r), 1);
        CHECK(strncmp(strstr(r.err, "PAGECLEAR_"), bad[i], strcspn(bad[i], "=")) == 0);
        CHECK(strcmp(r.out, base->out) == 0);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();

    const char *self = child_self();
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
    CHECK(!is_streaming(field(&r, "large", a, sizeof(a))));
    run(self, "PAGECLEAR_NT_THRESHOLD=-5", &r);
    CHECK(strstr(r.err, "PAGECLEAR_NT_THRESHOLD") != NULL);
    CHECK(strcmp(r.out, base.out) == 0);

    /* PAGECLEAR_QUIET=1 silences the warnings, and only them. */
    run2(self, "PAGECLEAR_QUIET=1", "PAGECLEAR_IMPL=warp-drive", &r);
    CHECK(r.err[0] == '\0');
    CHECK(strcmp(r.out, base.out) == 0);

    test_thresholds(self, &base);

    puts("ok");
    return 0;
}
