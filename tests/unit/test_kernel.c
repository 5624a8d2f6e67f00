/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_kernel.c - how a kernel clears huge pages (cli/host/kernel.c), decided
 * for kernels made up of their inputs: a kernel with the multi-page
 * clearing under each preemption model and from each source of it (32 MiB
 * units under none and voluntary, the whole page under full and lazy), a
 * kernel that clears page at a time, and kernels whose symbols cannot be
 * read or are hidden (unknown, with the release's inference); and what
 * each kernel makes of the headroom table's page sizes. Then the
 * reader: a kallsyms file streamed through its bounded buffer (a long line
 * is never read in pieces, the scan stops where the answer is known), and
 * the running kernel against a plain reading of its /proc/kallsyms.
 */
#include <errno.h>

#include "../../cli/host/kernel.h"
#include "harness.h"

#define PAGE_AT_A_TIME "ffffffff821eb070 T clear_page_rep\n"  \
                       "ffffffff821eb090 T clear_page_orig\n" \
                       "ffffffff821eb0e0 T clear_page_erms\n"
#define WITH_SERIES "ffffffff81e2c4a0 T clear_pages\n" \
                    "ffffffff81e2c500 T __clear_pages_unrolled\n"

/* Lines of text through the scanner; returns the line that stopped it
 * (1-based), 0 if none did. */
static int feed(struct cli_ksyms *k, const char *text)
{
    char line[512];
    int n = 0;
    cli_ksyms_init(k, NULL);
    for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0')) {
        snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
        n++;
        if (cli_ksyms_line(k, line))
            return n;
    }
    return 0;
}

/* A kernel of the given symbols, version string and debugfs text. */
static void kernel(struct cli_kernel *out, const char *syms, const char *version,
                   const char *debugfs, const char *cmdline, const char *config_model,
                   int dynamic)
{
    struct cli_kernel_in in = {.release = "7.2.13+deb14-amd64", .version = version,
                               .cmdline = cmdline, .debugfs = debugfs,
                               .debugfs_why = "debugfs is not mounted",
                               .config = "/boot/config-7.2.13+deb14-amd64",
                               .config_model = config_model, .config_dynamic = dynamic,
                               .realtime = -1, .base_page = 4096};
    feed(&in.syms, syms);
    cli_kernel_decide(&in, out);
}

static void check_units(const struct cli_kernel *k, enum cli_kunits u, size_t gib_chunk,
                        int assumed)
{
    int a = -1;
    CHECK_EQ(k->units, u);
    CHECK_EQ(cli_kernel_chunk(k, (size_t)1 << 30, &a), gib_chunk);
    CHECK_EQ(a, assumed);
    /* A 2 MiB page: never more than the page; a base page: one call. */
    size_t c2 = cli_kernel_chunk(k, 2 * MIB, &a);
    CHECK(c2 == 2 * MIB || c2 == 4096);
    CHECK_EQ(cli_kernel_chunk(k, 4096, &a), 4096);
    CHECK_EQ(a, 0);
}

static void extents(void)
{
    struct cli_kernel k;
    struct cli_ksyms s;
    char u[64];
    /* The scan stops at the first multi-page symbol. */
    CHECK_EQ(feed(&s, "ffffffff81000000 T _stext\n" WITH_SERIES PAGE_AT_A_TIME), 2);
    CHECK_EQ(s.names, 2);

    /* The active model from debugfs: lazy -> the whole page in one unit. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC Debian 7.2.13-1",
           "none voluntary full (lazy)\n", "", "lazy", 1);
    CHECK_EQ(k.clear, CLI_KCLEAR_EXTENTS);
    CHECK(strstr(k.clear_from, "clear_pages") != NULL);
    CHECK_EQ(k.model, CLI_KMODEL_LAZY);
    CHECK(strstr(k.model_from, "/sys/kernel/debug/sched/preempt") != NULL);
    check_units(&k, CLI_KUNITS_WHOLE, (size_t)1 << 30, 0);
    CHECK(strcmp(cli_kunits_name(&k, u, sizeof(u)), "whole extent") == 0);
    /* full, from debugfs too: whole. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC", "none voluntary (full) lazy", NULL,
           NULL, 1);
    CHECK_EQ(k.model, CLI_KMODEL_FULL);
    check_units(&k, CLI_KUNITS_WHOLE, (size_t)1 << 30, 0);

    /* none and voluntary: 32 MiB units, a 2 MiB page still one call. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC", "(none) voluntary full lazy", NULL,
           NULL, 1);
    CHECK_EQ(k.model, CLI_KMODEL_NONE);
    check_units(&k, CLI_KUNITS_BATCH, 32 * MIB, 0);
    int a;
    CHECK_EQ(cli_kernel_chunk(&k, 2 * MIB, &a), 2 * MIB);
    CHECK(strcmp(cli_kunits_name(&k, u, sizeof(u)), "32 MiB units") == 0);
    /* voluntary as the build's default under PREEMPT_DYNAMIC, labelled so. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC", NULL, "quiet", "voluntary", 1);
    CHECK_EQ(k.model, CLI_KMODEL_VOLUNTARY);
    CHECK(strstr(k.model_from, "build's default") != NULL);
    CHECK(strstr(k.model_from, "debugfs is not mounted") != NULL);
    check_units(&k, CLI_KUNITS_BATCH, 32 * MIB, 0);
    /* ... and preempt= on the command line overrides that default. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC", NULL, "quiet preempt=full ro",
           "voluntary", 1);
    CHECK_EQ(k.model, CLI_KMODEL_FULL);
    CHECK(strstr(k.model_from, "preempt=") != NULL);
    check_units(&k, CLI_KUNITS_WHOLE, (size_t)1 << 30, 0);
}

/* The model from uname -v and /sys alone, labelled as such. */
static void version_only(void)
{
    struct cli_kernel k;
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT Fri Jan 2", NULL, NULL, NULL, 0);
    CHECK_EQ(k.model, CLI_KMODEL_FULL_OR_LAZY);
    CHECK(strstr(k.model_from, "uname -v") != NULL);
    check_units(&k, CLI_KUNITS_WHOLE, (size_t)1 << 30, 0);
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_LAZY", NULL, NULL, NULL, 0);
    CHECK_EQ(k.model, CLI_KMODEL_LAZY);
    kernel(&k, WITH_SERIES, "#1 SMP Fri Jan 2", NULL, "preempt=full", NULL, 0);
    CHECK_EQ(k.model, CLI_KMODEL_NONE_OR_VOLUNTARY); /* preempt= needs PREEMPT_DYNAMIC */
    check_units(&k, CLI_KUNITS_BATCH, 32 * MIB, 0);
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_RT", NULL, NULL, NULL, 0);
    CHECK_EQ(k.model, CLI_KMODEL_FULL_OR_LAZY);
    /* A dynamic kernel with nothing to say which model: in extents, but
     * 32 MiB units or whole; the more cautious one measured, assumed. */
    kernel(&k, WITH_SERIES, "#1 SMP PREEMPT_DYNAMIC", "garbage", NULL, NULL, 0);
    CHECK_EQ(k.model, CLI_KMODEL_UNKNOWN);
    CHECK(cli_kmodel_name(k.model) == NULL);
    CHECK(strstr(k.model_from, "mount -t debugfs") != NULL);
    check_units(&k, CLI_KUNITS_BATCH_OR_WHOLE, 32 * MIB, 1);
    /* /sys/kernel/realtime on its own. */
    struct cli_kernel_in in = {.release = "6.12.0", .realtime = 1};
    feed(&in.syms, WITH_SERIES);
    cli_kernel_decide(&in, &k);
    CHECK_EQ(k.model, CLI_KMODEL_FULL_OR_LAZY);
    CHECK(strstr(k.model_from, "/sys/kernel/realtime") != NULL);
}

static void page_at_a_time(void)
{
    struct cli_kernel k;
    char u[64];
    /* Whatever the model: a huge page in 4 KiB units. */
    kernel(&k, "ffffffff8159f580 T clear_page_dirty_for_io\n" PAGE_AT_A_TIME,
           "#1 SMP PREEMPT_DYNAMIC", "none voluntary (full) lazy", NULL, NULL, 1);
    CHECK_EQ(k.clear, CLI_KCLEAR_PAGES);
    CHECK(strstr(k.clear_from, "clear_page_erms") != NULL);
    CHECK(strstr(k.clear_from, "none of clear_pages") != NULL);
    CHECK(strstr(k.clear_from, "dirty") == NULL); /* names match whole */
    check_units(&k, CLI_KUNITS_PAGE, 4096, 0);
    CHECK(strcmp(cli_kunits_name(&k, u, sizeof(u)), "4 KiB units") == 0);
    /* Addresses hidden (kptr_restrict) do not hide the names. */
    kernel(&k, "0000000000000000 T clear_page_erms\n0000000000000000 T clear_page_rep\n",
           "#1 SMP", NULL, NULL, NULL, 0);
    CHECK_EQ(k.clear, CLI_KCLEAR_PAGES);
    /* arm64's one-page clear. */
    kernel(&k, "ffff800080010000 T clear_page\n", "#1 SMP PREEMPT", NULL, NULL, NULL, 0);
    CHECK_EQ(k.clear, CLI_KCLEAR_PAGES);
}

static void decide(struct cli_kernel *k, const char *release, struct cli_ksyms *syms)
{
    struct cli_kernel_in in = {.release = release, .version = "#1 SMP PREEMPT_DYNAMIC",
                               .config_model = "lazy", .config = "/proc/config.gz",
                               .config_dynamic = 1, .realtime = -1};
    in.syms = *syms;
    cli_kernel_decide(&in, k);
}

static void unknown(void)
{
    struct cli_kernel k;
    struct cli_ksyms s;
    char u[64];
    /* Unreadable: unknown, and the release's inference labelled as one. */
    cli_ksyms_read(&s, "/nonexistent/kallsyms");
    CHECK_EQ(s.error, ENOENT);
    decide(&k, "6.18.44-fc-v669", &s);
    CHECK_EQ(k.clear, CLI_KCLEAR_UNKNOWN);
    CHECK_EQ(k.inferred, CLI_KCLEAR_PAGES);
    CHECK(strstr(k.clear_from, "cannot be read") != NULL);
    CHECK(strstr(k.clear_from, "inferred from the release 6.18") != NULL);
    CHECK_EQ(k.units, CLI_KUNITS_PAGE);
    CHECK(strcmp(cli_kunits_name(&k, u, sizeof(u)), "4 KiB units (inferred)") == 0);
    int a;
    CHECK_EQ(cli_kernel_chunk(&k, (size_t)1 << 30, &a), 4096);
    CHECK_EQ(a, 1);
    /* Hidden: addresses all zeros and none of the names (a list cut to
     * modules' symbols); a 7.3 release is inferred to have the series. */
    feed(&s, "0000000000000000 t nf_hook\t[nf_tables]\n0000000000000000 T ext4_fill\t[ext4]\n");
    decide(&k, "7.3.1-amd64", &s);
    CHECK_EQ(k.clear, CLI_KCLEAR_UNKNOWN);
    CHECK_EQ(k.inferred, CLI_KCLEAR_EXTENTS);
    CHECK(strstr(k.clear_from, "addresses are hidden") != NULL);
    CHECK_EQ(k.units, CLI_KUNITS_WHOLE); /* lazy, the build's */
    CHECK_EQ(k.units_inferred, 1);
    CHECK(strcmp(cli_kunits_name(&k, u, sizeof(u)), "whole extent (inferred)") == 0);
    CHECK_EQ(cli_kernel_chunk(&k, (size_t)1 << 30, &a), (size_t)1 << 30);
    CHECK_EQ(a, 1);
    /* Empty, and a release between the two known ones: no inference. */
    feed(&s, "");
    decide(&k, "7.0.3", &s);
    CHECK_EQ(k.inferred, CLI_KCLEAR_UNKNOWN);
    CHECK(strstr(k.clear_from, "lists no symbols") != NULL);
    CHECK(strstr(k.clear_from, "could be either") != NULL);
    CHECK_EQ(k.units, CLI_KUNITS_UNKNOWN);
    CHECK(cli_kunits_name(&k, u, sizeof(u)) == NULL);
    CHECK_EQ(cli_kernel_chunk(&k, (size_t)1 << 30, &a), 4096);
    CHECK_EQ(a, 1);
    decide(&k, NULL, &s);
    CHECK(strstr(k.clear_from, "no release") != NULL);
}

/* The headroom table's "kernel's way" column (cli/bench/headroom.c): for each
 * of its page sizes, the bytes per call this kernel clears a huge page in. */
static void headroom_units(void)
{
    static const size_t pages[3] = {4096, 2 * MIB, (size_t)1 << 30}; /* 4KB, THP/2MB, 1GB */
    static const struct {
        const char *syms, *debugfs, *release;
        size_t chunk[3];
        int assumed;
    } kernels[] = {
        {PAGE_AT_A_TIME, "none voluntary (full) lazy", NULL, {4096, 4096, 4096}, 0},
        {WITH_SERIES, "none (voluntary) full lazy", NULL, {4096, 2 * MIB, 32 * MIB}, 0},
        {WITH_SERIES, "none voluntary full (lazy)", NULL, {4096, 2 * MIB, (size_t)1 << 30}, 0},
        {"", "none voluntary (full) lazy", "7.4.0", {4096, 2 * MIB, (size_t)1 << 30}, 1},
        {"", "none voluntary (full) lazy", "6.12.117", {4096, 4096, 4096}, 1},
        {"", "none voluntary (full) lazy", "7.1.0", {4096, 4096, 4096}, 1},
    };
    for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
        struct cli_kernel_in in = {.release = kernels[i].release, .debugfs = kernels[i].debugfs,
                                   .realtime = -1};
        struct cli_kernel k;
        feed(&in.syms, kernels[i].syms);
        cli_kernel_decide(&in, &k);
        for (int p = 0; p < 3; p++) {
            int a = -1;
            CHECK_EQ(cli_kernel_chunk(&k, pages[p], &a), kernels[i].chunk[p]);
            CHECK_EQ(a, p == 0 ? 0 : kernels[i].assumed);
        }
    }
}

/* The reader: a long line's tail must not pass for a line (it would say
 * "in extents" here), and the scan stops at the answer. */
static void reader(void)
{
    char path[] = "/tmp/pageclear-test-kallsyms-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    CHECK(f != NULL);
    char name[256];
    memset(name, 'x', sizeof(name));
    /* 255 bytes (the buffer's worth) before the tail that looks like a line. */
    fprintf(f, "ffffffff81000000 t %.*s", 255 - 19, name);
    fprintf(f, "ffffffff81000001 T clear_pages\n" PAGE_AT_A_TIME);
    fclose(f);
    struct cli_ksyms s;
    cli_ksyms_read(&s, path);
    CHECK_EQ(s.error, 0);
    CHECK_EQ(s.names, 3);
    CHECK_EQ(s.found & ((1u << CLI_KSYM_EXTENTS) - 1), 0);
    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(WITH_SERIES, f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "ffffffff8200%04x T filler_%d\n", i, i);
    fprintf(f, "ffffffff8300%04x T clear_page_erms", 0); /* no newline at the end */
    fclose(f);
    cli_ksyms_read(&s, path);
    CHECK_EQ(s.names, 1);
    CHECK_EQ(s.stopped, 1);
    CHECK(unlink(path) == 0);
}

/* The running kernel against a plain search of its whole kallsyms. */
static void running(void)
{
    const struct cli_kernel *k = cli_kernel();
    FILE *f = fopen("/proc/kallsyms", "r");
    char line[1024];
    int ext = 0, page = 0, names = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *nm = strrchr(line, ' ');
        if (nm == NULL)
            continue;
        names++;
        nm[strcspn(nm, "\t\n")] = '\0';
        for (int i = 0; i < CLI_KSYM_COUNT; i++)
            if (strcmp(nm + 1, cli_ksym_name(i)) == 0)
                *(i < CLI_KSYM_EXTENTS ? &ext : &page) = 1;
    }
    if (f != NULL)
        fclose(f);
    enum cli_kclear want = ext ? CLI_KCLEAR_EXTENTS : page ? CLI_KCLEAR_PAGES
                                                         : CLI_KCLEAR_UNKNOWN;
    printf("this kernel: %s (%s)\n", cli_kclear_name(k->clear), k->clear_from);
    CHECK_EQ(k->clear, want);
    CHECK(names > 0 || k->clear == CLI_KCLEAR_UNKNOWN);
}

int main(void)
{
    extents();
    version_only();
    page_at_a_time();
    unknown();
    headroom_units();
    reader();
    running();
    printf("test_kernel: ok\n");
    return 0;
}
