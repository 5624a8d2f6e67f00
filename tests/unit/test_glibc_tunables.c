/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_glibc_tunables.c - the GLIBC_TUNABLES setting `pageclear tune`
 * suggests (cli/tune/glibc_tunables.c): the string built (values, the user's
 * own GLIBC_TUNABLES kept and appended to, our tunables not doubled), the
 * glibc 2.40 gate of the memset non-temporal tunable, reading the
 * loader's listing, and the rule that keeps a setting only on a gain.
 */
#include <stdint.h>

#include "../../cli/tune/glibc_tunables.h"
#include "harness.h"

static void strings(void)
{
    char b[512];
    /* alone: the values, in decimal */
    CHECK_EQ(cli_glibc_tunables(b, sizeof(b), NULL, 32768, 0), 39);
    CHECK(strcmp(b, "glibc.cpu.x86_rep_stosb_threshold=32768") == 0);
    CHECK(cli_glibc_tunables(b, sizeof(b), "", 65536, 4194304) > 0);
    CHECK(strcmp(b, "glibc.cpu.x86_rep_stosb_threshold=65536:"
                    "glibc.cpu.x86_memset_non_temporal_threshold=4194304") == 0);
    /* "never": the largest the loader accepts */
    CHECK(cli_glibc_tunables(b, sizeof(b), NULL, 0, SIZE_MAX) > 0);
    CHECK(strcmp(b, "glibc.cpu.x86_memset_non_temporal_threshold=18446744073709551615") == 0);
    /* the user's setting kept, ours appended */
    CHECK(cli_glibc_tunables(b, sizeof(b), "glibc.malloc.check=3", 16384, 0) > 0);
    CHECK(strcmp(b, "glibc.malloc.check=3:glibc.cpu.x86_rep_stosb_threshold=16384") == 0);
    /* the user's value of a tunable set here replaced, the others kept in
     * their order (a name that only starts like ours is another's) */
    CHECK(cli_glibc_tunables(b, sizeof(b),
                             "glibc.cpu.x86_rep_stosb_threshold=100:glibc.malloc.check=3:"
                             "glibc.cpu.x86_rep_stosb_thresholdX=7::glibc.pthread.rseq=0",
                             16384, 0) > 0);
    CHECK(strcmp(b, "glibc.malloc.check=3:glibc.cpu.x86_rep_stosb_thresholdX=7:"
                    "glibc.pthread.rseq=0:glibc.cpu.x86_rep_stosb_threshold=16384") == 0);
    /* a tunable not set here stays as the user has it */
    CHECK(cli_glibc_tunables(b, sizeof(b), "glibc.cpu.x86_rep_stosb_threshold=100", 0,
                             8388608) > 0);
    CHECK(strcmp(b, "glibc.cpu.x86_rep_stosb_threshold=100:"
                    "glibc.cpu.x86_memset_non_temporal_threshold=8388608") == 0);
    /* too small a buffer: refused, not cut */
    CHECK_EQ(cli_glibc_tunables(b, 20, "glibc.malloc.check=3", 16384, 0), -1);
    CHECK_EQ(cli_glibc_tunables(b, 39, NULL, 32768, 0), -1);
    CHECK_EQ(cli_glibc_tunables(b, 40, NULL, 32768, 0), 39);
}

/* The memset non-temporal tunable is offered from glibc 2.40 on (the
 * version strings themselves: tests/unit/test_libc_memset.c). */
static void versions(void)
{
    CHECK_EQ(PCI_GLIBC_MEMSET_NT_SINCE, 40);
    CHECK(pci_glibc_minor("2.36") < PCI_GLIBC_MEMSET_NT_SINCE);
    CHECK(pci_glibc_minor("2.39") < PCI_GLIBC_MEMSET_NT_SINCE);
    CHECK(pci_glibc_minor("2.4") < PCI_GLIBC_MEMSET_NT_SINCE); /* 2.4 is not 2.40 */
    CHECK(pci_glibc_minor("2.40") >= PCI_GLIBC_MEMSET_NT_SINCE);
    CHECK(pci_glibc_minor("2.41.9000") >= PCI_GLIBC_MEMSET_NT_SINCE);
    CHECK(pci_glibc_minor("") < PCI_GLIBC_MEMSET_NT_SINCE);
    CHECK(pci_glibc_minor(NULL) < PCI_GLIBC_MEMSET_NT_SINCE);
}

static void listing(void)
{
    /* `ld.so --list-tunables` as glibc 2.41 prints it */
    const char *l = "glibc.cpu.x86_memset_non_temporal_threshold: 0x8300000 (min: 0x4040, "
                    "max: 0xffffffffffffffff)\n"
                    "glibc.cpu.x86_non_temporal_threshold: 0x6300000 (min: 0x4040, max: "
                    "0xfffffffffffffff)\n"
                    "glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: 0x1, max: "
                    "0xffffffffffffffff)\n";
    size_t v = 0;
    CHECK_EQ(cli_glibc_listed(l, PCI_GLIBC_STOSB_TUNABLE, &v), 0);
    CHECK_EQ(v, 2048);
    CHECK_EQ(cli_glibc_listed(l, PCI_GLIBC_MEMSET_NT_TUNABLE, &v), 0);
    CHECK_EQ(v, 0x8300000);
    /* 2.36 lists no memset threshold: not found, v untouched */
    const char *l236 = "glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: 0x1, max: "
                       "0xffffffffffffffff)\n"
                       "glibc.cpu.x86_non_temporal_threshold: 0x6300000 (min: 0x4040, max: "
                       "0xfffffffffffffff)\n";
    v = 7;
    CHECK_EQ(cli_glibc_listed(l236, PCI_GLIBC_MEMSET_NT_TUNABLE, &v), -1);
    CHECK_EQ(v, 7);
    CHECK_EQ(cli_glibc_listed(l236, PCI_GLIBC_STOSB_TUNABLE, &v), 0);
    CHECK_EQ(v, 2048);
    v = 7;
    CHECK_EQ(cli_glibc_listed("", PCI_GLIBC_STOSB_TUNABLE, &v), -1);
    CHECK_EQ(v, 7);
}

static struct cli_gt_point pt(double ratio, double se, double tol)
{
    return (struct cli_gt_point){.size = 1 << 20, .ratio = ratio, .se = se, .tol = tol};
}

static void verdicts(void)
{
    struct cli_gt_point p[3];
    /* a gain beyond the noise, nothing lost: kept */
    p[0] = pt(1.29, 0.03, 0.10);
    p[1] = pt(1.00, 0.03, 0.05);
    CHECK_EQ(cli_glibc_verdict(p, 2), 1);
    /* within the noise: not kept */
    p[0] = pt(1.02, 0.03, 0.10);
    CHECK_EQ(cli_glibc_verdict(p, 2), 0);
    /* no gain anywhere, a loss: not kept */
    p[0] = pt(0.80, 0.03, 0.10);
    CHECK_EQ(cli_glibc_verdict(p, 2), 0);
    /* +30% in use (tolerance 5%) for -14% warm (tolerance 10%): the
     * setting's worst loss, 1.4 tolerances, is below memset's now, 4.6 */
    p[0] = pt(0.86, 0.03, 0.10);
    p[1] = pt(1.30, 0.03, 0.05);
    CHECK_EQ(cli_glibc_verdict(p, 2), 1);
    /* +6% in use for -30% warm: 3 tolerances lost for 1.1 gained */
    p[0] = pt(0.70, 0.02, 0.10);
    p[1] = pt(1.06, 0.02, 0.05);
    CHECK_EQ(cli_glibc_verdict(p, 2), 0);
    /* a failed run proves nothing */
    p[0] = pt(1.50, 0.02, 0.10);
    p[1] = pt(0, 0, 0.05);
    CHECK_EQ(cli_glibc_verdict(p, 2), 0);
    CHECK_EQ(cli_glibc_verdict(p, 0), 0);
}

int main(void)
{
    strings();
    versions();
    listing();
    verdicts();
    printf("test_glibc_tunables: ok\n");
    return 0;
}
