/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_profile.c - the profile text format: pc_profile_format writes what
 * pc_profile_parse reads back; every refusal (malformed, out of range,
 * another CPU, another version) gives its documented errno and a reason
 * naming the line, and leaves the result untouched. In-process: parsing
 * does not depend on the environment or on any profile file.
 */
#include <errno.h>

#include "harness.h"

static struct pc_tuning defaults;
static char identity[4096]; /* this host's identity lines, no thresholds */

/* Fill *t with a pattern no parse result has, to see it left untouched. */
static void poison(struct pc_tuning *t)
{
    memset(t, 0xa5, sizeof(*t));
}

static int untouched(const struct pc_tuning *t)
{
    struct pc_tuning p;
    poison(&p);
    return memcmp(t, &p, sizeof(p)) == 0;
}

static int same(const struct pc_tuning *a, const struct pc_tuning *b)
{
    return a->vector_max == b->vector_max && a->nt_threshold == b->nt_threshold &&
           a->cold_nt_threshold == b->cold_nt_threshold &&
           a->parallel_nt_threshold == b->parallel_nt_threshold;
}

/* Parse text; on failure also check *t is untouched and the reason (one
 * line) contains want (NULL: anything). Returns the result. */
static int parse(const char *text, const char *want, struct pc_tuning *out)
{
    struct pc_tuning t;
    char why[256];
    poison(&t);
    memset(why, 'x', sizeof(why));
    int rc = pc_profile_parse(text, strlen(text), &t, why, sizeof(why));
    CHECK(memchr(why, '\0', sizeof(why)) != NULL);
    CHECK(strchr(why, '\n') == NULL);
    if (rc != 0) {
        CHECK(untouched(&t));
        CHECK(why[0] != '\0');
        if (want != NULL && strstr(why, want) == NULL) {
            fprintf(stderr, "reason \"%s\" lacks \"%s\" for:\n%s\n", why, want, text);
            exit(1);
        }
    } else {
        CHECK(why[0] == '\0');
    }
    if (out != NULL)
        *out = t;
    return rc;
}

static void expect(const char *text, int rc, const char *want)
{
    int got = parse(text, want, NULL);
    if (got != rc) {
        fprintf(stderr, "expected %d, got %d for:\n%s\n", rc, got, text);
        exit(1);
    }
}

/* identity with the line starting "key =" replaced by line (NULL: removed),
 * then extra appended. */
static const char *variant(const char *key, const char *line, const char *extra)
{
    static char out[8192];
    size_t n = 0, klen = key ? strlen(key) : 0;
    for (const char *p = identity; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = (size_t)(nl - p) + 1;
        if (key && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            if (line)
                n += (size_t)snprintf(out + n, sizeof(out) - n, "%s\n", line);
        } else {
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
    }
    snprintf(out + n, sizeof(out) - n, "%s", extra ? extra : "");
    return out;
}

static void setup(void)
{
    static char full[4096];
    CHECK_EQ(pc_tuning_defaults(NULL), -EINVAL);
    CHECK_EQ(pc_tuning_defaults(&defaults), 0);
    int n = pc_profile_format(&defaults, NULL, full, sizeof(full));
    CHECK(n > 0 && (size_t)n < sizeof(full));
    CHECK_EQ(strlen(full), n);
    /* Drop the threshold lines: what stays is the identity. */
    size_t k = 0;
    for (const char *p = full; *p;) {
        const char *nl = strchr(p, '\n');
        CHECK(nl != NULL);
        size_t len = (size_t)(nl - p) + 1;
        int thr = strncmp(p, "vector_max ", 11) == 0 || strncmp(p, "nt_threshold ", 13) == 0 ||
                  strncmp(p, "cold_nt_threshold ", 18) == 0 ||
                  strncmp(p, "parallel_nt_threshold ", 22) == 0;
        if (!thr) {
            memcpy(identity + k, p, len);
            k += len;
        }
        p += len;
    }
    identity[k] = '\0';
    CHECK(strstr(identity, "format = 1\n") == identity);
    CHECK(strstr(identity, "vector_max") == NULL);
    CHECK(strstr(identity, "\nhypervisor = ") != NULL);
}

static void test_defaults_in_range(void)
{
    CHECK(defaults.vector_max <= ((size_t)64 << 20));
    size_t nt[] = {defaults.nt_threshold, defaults.cold_nt_threshold,
                   defaults.parallel_nt_threshold};
    for (int i = 0; i < 3; i++)
        CHECK(nt[i] == SIZE_MAX || (nt[i] >= 4096 && nt[i] <= ((size_t)1 << 40)));
}

static void round_trip(const struct pc_tuning *t, const char *comment)
{
    static char buf[70000];
    struct pc_tuning back;
    int n = pc_profile_format(t, comment, buf, sizeof(buf));
    CHECK(n > 0 && (size_t)n < sizeof(buf));
    CHECK_EQ(parse(buf, NULL, &back), 0);
    CHECK(same(&back, t));
}

static void test_round_trip(void)
{
    round_trip(&defaults, NULL);
    const struct pc_tuning cases[] = {
        {0, 4096, 4096, 4096, 4096},
        {(size_t)64 << 20, (size_t)1 << 40, SIZE_MAX, SIZE_MAX, (size_t)1 << 40},
        {1, 8 << 20, 1 << 20, SIZE_MAX, SIZE_MAX},
        {12345, 4097, 3 << 20, (size_t)5 << 30, 12345 << 10},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        round_trip(&cases[i], "measured by a test");
    /* Comments: several lines, empty ones, one longer than the parser's
     * line limit (wrapped), UTF-8 (not cut inside a character). */
    static char lng[3000];
    for (size_t i = 0; i + 2 < sizeof(lng); i += 2)
        memcpy(lng + i, "\xc3\xa9", 2); /* é */
    lng[sizeof(lng) - 1] = '\0';
    round_trip(&defaults, "first\n\nthird\n");
    round_trip(&defaults, lng);
    char out[8192];
    CHECK(pc_profile_format(&defaults, lng, out, sizeof(out)) > 0);
    for (char *p = out; (p = strchr(p, '#')) != NULL; p++)
        CHECK(((unsigned char)p[2] & 0xc0) != 0x80); /* starts a character */
    round_trip(&defaults, "a = b # not a key\nformat = 7");
}

static void test_format_contract(void)
{
    char buf[4096], small[40];
    int n = pc_profile_format(&defaults, "c", buf, sizeof(buf));
    CHECK(n > 0);
    CHECK(strncmp(buf, "# c\n", 4) == 0);
    /* As snprintf: the full length, a NUL-terminated prefix. */
    memset(small, 'z', sizeof(small));
    CHECK_EQ(pc_profile_format(&defaults, "c", small, sizeof(small)), n);
    CHECK_EQ(strlen(small), sizeof(small) - 1);
    CHECK(strncmp(small, buf, sizeof(small) - 1) == 0);
    CHECK_EQ(pc_profile_format(&defaults, "c", NULL, 0), n);
    small[0] = 'q';
    CHECK_EQ(pc_profile_format(&defaults, "c", small, 1), n);
    CHECK_EQ(small[0], '\0');
    CHECK_EQ(pc_profile_format(NULL, NULL, buf, sizeof(buf)), -EINVAL);
    CHECK_EQ(pc_profile_format(&defaults, NULL, NULL, 10), -EINVAL);
    /* never for SIZE_MAX, exact units otherwise. */
    struct pc_tuning t = {32 << 10, SIZE_MAX, 3 << 20, 5000, 64 << 20};
    CHECK(pc_profile_format(&t, NULL, buf, sizeof(buf)) > 0);
    CHECK(strstr(buf, "\nvector_max = 32K\n") && strstr(buf, "\nnt_threshold = never\n"));
    CHECK(strstr(buf, "\ncold_nt_threshold = 3M\n") &&
          strstr(buf, "\nparallel_nt_threshold = 5000\n") &&
          strstr(buf, "\npreload_min = 64M\n"));
    /* Values parse would refuse are not written. */
    const struct pc_tuning bad[] = {
        {((size_t)64 << 20) + 1, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX},
        {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX},
        {0, 4095, SIZE_MAX, SIZE_MAX, SIZE_MAX},
        {0, SIZE_MAX, ((size_t)1 << 40) + 1, SIZE_MAX, SIZE_MAX},
        {0, SIZE_MAX, SIZE_MAX, 0, SIZE_MAX},
        {0, SIZE_MAX, SIZE_MAX, SIZE_MAX, ((size_t)1 << 40) + 1},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        buf[0] = 'q';
        CHECK_EQ(pc_profile_format(&bad[i], NULL, buf, sizeof(buf)), -ERANGE);
    }
    /* A comment that would make the file larger than the loader reads. */
    static char huge[70 << 10];
    memset(huge, 'h', sizeof(huge) - 1);
    CHECK_EQ(pc_profile_format(&defaults, huge, NULL, 0), -ERANGE);
}

static void test_accepted_forms(void)
{
    struct pc_tuning t;
    /* Identity alone: every threshold keeps its default. */
    CHECK_EQ(parse(identity, NULL, &t), 0);
    CHECK(same(&t, &defaults));
    /* One threshold: that one set, the others default. */
    CHECK_EQ(parse(variant(NULL, NULL, "nt_threshold = 8M\n"), NULL, &t), 0);
    CHECK_EQ(t.nt_threshold, (size_t)8 << 20);
    CHECK_EQ(t.vector_max, defaults.vector_max);
    CHECK_EQ(t.cold_nt_threshold, defaults.cold_nt_threshold);
    CHECK_EQ(parse(variant(NULL, NULL, "cold_nt_threshold=NEVER"), NULL, &t), 0);
    CHECK_EQ(t.cold_nt_threshold, SIZE_MAX);
    CHECK_EQ(parse(variant(NULL, NULL, "parallel_nt_threshold = never # c\n"
                                       "vector_max = 0\n"), NULL, &t), 0);
    CHECK_EQ(t.parallel_nt_threshold, SIZE_MAX);
    CHECK_EQ(t.vector_max, 0);
    CHECK_EQ(parse(variant(NULL, NULL, "vector_max = 16KiB\n"), NULL, &t), 0);
    CHECK_EQ(t.vector_max, 16 << 10);

    /* Comments, blank lines, CRLF, tabs and spaces around tokens, no final
     * newline, features in another order and repeated. */
    static char text[8192];
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    char rev[300] = "";
    for (char *w = h.features + strlen(h.features); w >= h.features; w--)
        if (w == h.features || w[-1] == ' ') {
            strncat(rev, w, strcspn(w, " "));
            strcat(rev, " ");
        }
    snprintf(text, sizeof(text), "# a profile\r\n\r\n%s", variant("features", "", ""));
    char feat[400];
    if (*h.features == '\0') /* the portable build: no feature, "none" */
        snprintf(feat, sizeof(feat), "\t features\t=  none  # set\r\n");
    else
        snprintf(feat, sizeof(feat), "\t features\t=  %s %s  # set\r\n", rev, rev);
    strcat(text, feat);
    strcat(text, "   vector_max   =   24K   ");
    CHECK_EQ(parse(text, NULL, &t), 0);
    CHECK_EQ(t.vector_max, 24 << 10);
    /* The same MAJOR.MINOR with another patch level. */
    char lib[64];
    snprintf(lib, sizeof(lib), "library = %d.%d.%d", PC_VERSION_MAJOR, PC_VERSION_MINOR,
             PC_VERSION_PATCH + 7);
    CHECK_EQ(parse(variant("library", lib, NULL), NULL, NULL), 0);
}

static void test_malformed(void)
{
    expect(variant(NULL, NULL, "speed = 11\n"), -EINVAL, "unknown key 'speed'");
    expect(variant(NULL, NULL, "nt_threshold = 8M\nnt_threshold = 8M\n"), -EINVAL,
           "duplicate key");
    expect(variant("cpu", "cpu = 1.2.3\ncpu = 1.2.3", NULL), -EINVAL, "duplicate key 'cpu'");
    expect(variant(NULL, NULL, "just words\n"), -EINVAL, "no '='");
    expect(variant(NULL, NULL, "= 5\n"), -EINVAL, "malformed key");
    expect(variant(NULL, NULL, "vector max = 5\n"), -EINVAL, "malformed key");
    expect(variant(NULL, NULL, "vector_max =\n"), -EINVAL, "no value");
    expect(variant(NULL, NULL, "vector_max = 32Kx\n"), -EINVAL, "not a size");
    expect(variant(NULL, NULL, "vector_max = 32 K\n"), -EINVAL, "not a size");
    expect(variant(NULL, NULL, "vector_max = -1\n"), -EINVAL, "not a size");
    expect(variant(NULL, NULL, "vector_max = never\n"), -EINVAL, "vector_max");
    expect(variant(NULL, NULL, "nt_threshold = sometimes\n"), -EINVAL, "or never");
    expect(variant(NULL, NULL, "cold_nt_threshold = 1M 2M\n"), -EINVAL, "not a size");
    expect(variant("cpu", "cpu = 25.17", NULL), -EINVAL, "bad cpu value");
    expect(variant("cpu", "cpu = 25.17.1.0", NULL), -EINVAL, "bad cpu value");
    expect(variant("cpu", "cpu = 25..1", NULL), -EINVAL, "bad cpu value");
    expect(variant("hypervisor", "hypervisor = 2", NULL), -EINVAL, "hypervisor");
    expect(variant("hypervisor", "hypervisor = yes", NULL), -EINVAL, "hypervisor");
    expect(variant("library", "library = 0.2", NULL), -EINVAL, "library");
    expect(variant("format", "format = one", NULL), -EINVAL, "format");
    expect(variant("llc", "llc = big", NULL), -EINVAL, "llc");
    /* Over-long lines (a comment too), NUL bytes, with the line number. */
    static char text[8192];
    char longline[600];
    memset(longline, 'c', sizeof(longline));
    longline[0] = '#';
    longline[sizeof(longline) - 1] = '\0';
    snprintf(text, sizeof(text), "%s%s\n", identity, longline);
    size_t lines = 0;
    for (const char *p = identity; *p; p++)
        lines += *p == '\n';
    char at[32];
    snprintf(at, sizeof(at), "line %zu:", lines + 1);
    expect(text, -EINVAL, at);
    expect(text, -EINVAL, "longer than");
    struct pc_tuning t;
    poison(&t);
    char why[128];
    snprintf(text, sizeof(text), "%svector_max = 1K\n", identity);
    size_t len = strlen(text);
    text[len - 3] = '\0'; /* "vector_max = 1\0\n" */
    CHECK_EQ(pc_profile_parse(text, len, &t, why, sizeof(why)), -EINVAL);
    CHECK(strstr(why, "NUL byte") && strstr(why, at));
    CHECK(untouched(&t));
    /* Each identity key missing. */
    const char *keys[] = {"format", "library", "vendor", "cpu", "features", "llc",
                          "hypervisor"};
    for (size_t i = 0; i < 7; i++) {
        char want[64];
        snprintf(want, sizeof(want), "missing identity key '%s'", keys[i]);
        expect(variant(keys[i], NULL, NULL), -EINVAL, want);
    }
    expect("", -EINVAL, "missing identity");
    expect("# nothing\n\n", -EINVAL, "missing identity");
    /* Bad arguments. */
    CHECK_EQ(pc_profile_parse(identity, strlen(identity), NULL, NULL, 0), -EINVAL);
    CHECK_EQ(pc_profile_parse(NULL, 5, &t, NULL, 0), -EINVAL);
    CHECK(untouched(&t));
}

static void test_out_of_range(void)
{
    expect(variant(NULL, NULL, "vector_max = 65537K\n"), -ERANGE, "out of range");
    expect(variant(NULL, NULL, "nt_threshold = 4095\n"), -ERANGE, "nt_threshold");
    expect(variant(NULL, NULL, "nt_threshold = 0\n"), -ERANGE, "out of range");
    expect(variant(NULL, NULL, "cold_nt_threshold = 1K\n"), -ERANGE, "cold_nt_threshold");
    expect(variant(NULL, NULL, "parallel_nt_threshold = 2T\n"), -ERANGE, "out of range");
    expect(variant(NULL, NULL, "parallel_nt_threshold = 99999999999999999999999\n"),
           -ERANGE, "out of range");
    expect(variant(NULL, NULL, "nt_threshold = 17179869184G\n"), -ERANGE, "out of range");
    expect(variant("llc", "llc = 99999999999999999999999", NULL), -ERANGE, "llc");
    /* The limits themselves are in range. */
    CHECK_EQ(parse(variant(NULL, NULL, "vector_max = 64M\nnt_threshold = 1T\n"
                                       "cold_nt_threshold = 4K\n"), NULL, NULL), 0);
    /* The line number is named. */
    size_t lines = 0;
    for (const char *p = identity; *p; p++)
        lines += *p == '\n';
    char at[32];
    snprintf(at, sizeof(at), "line %zu:", lines + 2);
    expect(variant(NULL, NULL, "\nvector_max = 1G\n"), -ERANGE, at);
}

static void test_other_host(void)
{
    struct pc_host h;
    CHECK_EQ(pc_host_get(&h), 0);
    char line[512];
    const char *other = strcmp(h.vendor, "GenuineIntel") == 0 ? "AuthenticAMD" : "GenuineIntel";
    snprintf(line, sizeof(line), "vendor = %s", other);
    expect(variant("vendor", line, NULL), -ENODEV, "another CPU");
    snprintf(line, sizeof(line), "cpu = %u.%u.%u", h.family, h.model, h.stepping + 1);
    expect(variant("cpu", line, NULL), -ENODEV, "cpu");
    snprintf(line, sizeof(line), "cpu = %u.%u.%u", h.family + 1, h.model, h.stepping);
    expect(variant("cpu", line, NULL), -ENODEV, "another CPU");
    snprintf(line, sizeof(line), "features = %s warp", h.features);
    expect(variant("features", line, NULL), -ENODEV, "feature warp");
    /* Without the host's last feature. */
    snprintf(line, sizeof(line), "features = %s", h.features);
    char *sp = strrchr(line, ' ');
    if (sp != NULL && sp > strchr(line, '=') + 1) {
        *sp = '\0';
        expect(variant("features", line, NULL), -ENODEV, "lacks feature");
    }
    /* The empty set is a value (the portable build's), not this host's. */
    if (h.features[0] != '\0')
        expect(variant("features", "features = none", NULL), -ENODEV, "lacks feature");
    snprintf(line, sizeof(line), "llc = %zu", h.llc_size + 4096);
    expect(variant("llc", line, NULL), -ENODEV, "llc");
    snprintf(line, sizeof(line), "hypervisor = %d", !h.hypervisor);
    expect(variant("hypervisor", line, NULL), -ENODEV, "hypervisor");
}

static void test_other_version(void)
{
    char line[64];
    /* Within the major version the thresholds keep their meaning: another
     * minor or patch level, earlier or later, is read. */
    snprintf(line, sizeof(line), "library = %d.%d.0", PC_VERSION_MAJOR, PC_VERSION_MINOR + 1);
    expect(variant("library", line, NULL), 0, NULL);
    snprintf(line, sizeof(line), "library = %d.0.0", PC_VERSION_MAJOR);
    expect(variant("library", line, NULL), 0, NULL);
    snprintf(line, sizeof(line), "library = %d.999.999", PC_VERSION_MAJOR);
    expect(variant("library", line, NULL), 0, NULL);
    /* Another major, later or earlier, is refused as such. */
    snprintf(line, sizeof(line), "library = %d.%d.%d", PC_VERSION_MAJOR + 1,
             PC_VERSION_MINOR, PC_VERSION_PATCH);
    expect(variant("library", line, NULL), -EPROTO, "library");
    snprintf(line, sizeof(line), "library = %d.0.0", PC_VERSION_MAJOR + 1);
    expect(variant("library", line, NULL), -EPROTO, "the major version must match");
    if (PC_VERSION_MAJOR > 0) {
        snprintf(line, sizeof(line), "library = %d.%d.%d", PC_VERSION_MAJOR - 1,
                 PC_VERSION_MINOR, PC_VERSION_PATCH);
        expect(variant("library", line, NULL), -EPROTO, "major version");
    }
    expect(variant("format", "format = 2", NULL), -EPROTO, "format 2");
    expect(variant("format", "format = 0", NULL), -EPROTO, "format");
    /* Another version is named as such even if its keys are unknown here. */
    expect(variant("format", "format = 2", "turbo = 1\n"), -EPROTO, "format");
    /* Another version outranks another CPU. */
    expect(variant("format", "format = 2", NULL), -EPROTO, NULL);
}

/* The reason buffer: NULL, none, or too short (cut, NUL-terminated). */
static void test_reason_buffer(void)
{
    const char *bad = variant(NULL, NULL, "speed = 11\n");
    struct pc_tuning t;
    poison(&t);
    CHECK_EQ(pc_profile_parse(bad, strlen(bad), &t, NULL, 100), -EINVAL);
    char why[8] = "unset!";
    CHECK_EQ(pc_profile_parse(bad, strlen(bad), &t, why, 0), -EINVAL);
    CHECK(strcmp(why, "unset!") == 0);
    char cut[12];
    memset(cut, 'x', sizeof(cut));
    CHECK_EQ(pc_profile_parse(bad, strlen(bad), &t, cut, 6), -EINVAL);
    CHECK_EQ(strlen(cut), 5);
    CHECK_EQ(cut[6], 'x');
    CHECK(untouched(&t));
}

/* Only text[0, len) is read: the text ends flush against a PROT_NONE page,
 * with and without a final newline, and a prefix of a longer text parses
 * as that prefix alone. */
static void test_bounds(void)
{
    struct guarded g;
    guarded_alloc(&g, 8192);
    const char *texts[] = {identity, variant(NULL, NULL, "vector_max = 8K")};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(texts[i]);
        char *at = g.lo + g.len - n;
        memcpy(at, texts[i], n);
        struct pc_tuning t;
        CHECK_EQ(pc_profile_parse(at, n, &t, NULL, 0), 0);
        CHECK_EQ(t.vector_max, i ? (size_t)8 << 10 : defaults.vector_max);
        for (size_t cut = 0; cut < n; cut += 7)
            (void)pc_profile_parse(at + cut, n - cut, &t, NULL, 0);
    }
    const char *longer = variant(NULL, NULL, "vector_max = 8K\n");
    struct pc_tuning t;
    CHECK_EQ(pc_profile_parse(longer, strlen(identity), &t, NULL, 0), 0);
    CHECK_EQ(t.vector_max, defaults.vector_max);
    guarded_free(&g);
}

/* The thresholds by index: the info names each field, key and variable
 * once; get/set reach the same fields as the names; set refuses what a
 * profile refuses and then changes nothing; dflt is pc_tuning_defaults'. */
static void test_by_index(void)
{
    struct pc_threshold_info in;
    struct pc_tuning t = defaults;
    size_t v;
    CHECK_EQ(pc_threshold_info(0, NULL), -EINVAL);
    CHECK_EQ(pc_threshold_info(-1, &in), -ENOENT);
    CHECK_EQ(pc_threshold_info(PC_NTHRESHOLDS, &in), -ENOENT);
    CHECK_EQ(pc_tuning_get(&t, PC_NTHRESHOLDS, &v), -ENOENT);
    CHECK_EQ(pc_tuning_get(NULL, 0, &v), -EINVAL);
    CHECK_EQ(pc_tuning_get(&t, 0, NULL), -EINVAL);
    CHECK_EQ(pc_tuning_set(NULL, 0, 0), -EINVAL);
    CHECK_EQ(pc_tuning_set(&t, -1, 0), -ENOENT);
    const size_t *field[PC_NTHRESHOLDS] = {
        [PC_THRESHOLD_VECTOR_MAX] = &t.vector_max,
        [PC_THRESHOLD_NT] = &t.nt_threshold,
        [PC_THRESHOLD_COLD_NT] = &t.cold_nt_threshold,
        [PC_THRESHOLD_PARALLEL_NT] = &t.parallel_nt_threshold,
        [PC_THRESHOLD_PRELOAD_MIN] = &t.preload_min};
    const char *keys[PC_NTHRESHOLDS] = {"vector_max", "nt_threshold", "cold_nt_threshold",
                                        "parallel_nt_threshold", "preload_min"};
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        CHECK_EQ(pc_threshold_info(i, &in), 0);
        CHECK(strcmp(in.key, keys[i]) == 0);
        CHECK(strncmp(in.env, "PAGECLEAR_", 10) == 0);
        for (size_t c = 0; in.key[c]; c++) /* the variable is the key, upper case */
            CHECK(in.env[10 + c] == (in.key[c] >= 'a' && in.key[c] <= 'z' ? in.key[c] - 32
                                                                           : in.key[c]));
        CHECK(in.description != NULL && *in.description != '\0');
        CHECK(in.min <= in.max && in.max != PC_NEVER);
        CHECK_EQ(in.never, i != PC_THRESHOLD_VECTOR_MAX);
        CHECK_EQ(pc_tuning_get(&defaults, i, &v), 0);
        CHECK_EQ(v, in.dflt);
        CHECK_EQ(pc_tuning_set(&t, i, in.max), 0);
        CHECK_EQ(*field[i], in.max);
        CHECK_EQ(pc_tuning_get(&t, i, &v), 0);
        CHECK_EQ(v, in.max);
        if (in.min > 0) {
            CHECK_EQ(pc_tuning_set(&t, i, in.min - 1), -ERANGE);
            CHECK_EQ(*field[i], in.max);
        }
        CHECK_EQ(pc_tuning_set(&t, i, in.max + 1), -ERANGE);
        CHECK_EQ(pc_tuning_set(&t, i, PC_NEVER), in.never ? 0 : -ERANGE);
        CHECK_EQ(*field[i], in.never ? PC_NEVER : in.max);
        CHECK_EQ(pc_tuning_set(&t, i, in.min), 0);
        CHECK_EQ(*field[i], in.min);
        round_trip(&t, NULL); /* every value set accepts is one a profile takes */
    }
}

int main(void)
{
    setup();
    test_by_index();
    test_defaults_in_range();
    test_round_trip();
    test_format_contract();
    test_accepted_forms();
    test_malformed();
    test_out_of_range();
    test_other_host();
    test_other_version();
    test_reason_buffer();
    test_bounds();
    puts("ok");
    return 0;
}
