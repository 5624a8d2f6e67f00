/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_preload_cpu.c - which short-call stores the preload's x86-64 entries
 * may run (preload/short_stores.c): the rules fed the CPUs of the project's
 * guests and their near misses, then this machine's own words against the
 * kernel's account of its CPU (/proc/cpuinfo).
 */
#include <stdio.h>
#include <string.h>

#include "../../preload/short_stores.h"
#include "harness.h"

#define OSXSAVE (1u << 27)
#define AVX (1u << 28)
#define AVX2 (1u << 5)
#define RTM (1u << 11)
#define BMI2 (1u << 8)
#define AVX512F (1u << 16)
#define AVX512BW (1u << 30)
#define AVX512VL (1u << 31)
#define AVX_VNNI (1u << 4)
#define ERMS (1u << 9)
#define XCR0_ALL 0xe7u /* x87, SSE, AVX, opmask, ZMM upper halves, ZMM16-31 */

/* leaf 0 ebx, edx, ecx of a vendor string */
static void vendor(struct pci_cpuid *c, const char *v)
{
    memcpy(&c->vendor[0], v, 4);
    memcpy(&c->vendor[1], v + 4, 4);
    memcpy(&c->vendor[2], v + 8, 4);
}

/* Sapphire Rapids class (the Intel guest): everything, AVX-VNNI too. */
static struct pci_cpuid intel_avx_vnni(void)
{
    struct pci_cpuid c = {.max_leaf = 0x1f,
                          .leaf1_ecx = OSXSAVE | AVX,
                          .leaf7_eax = 2,
                          .leaf7_ebx = AVX2 | BMI2 | ERMS | AVX512F | AVX512BW | AVX512VL,
                          .leaf7_1_eax = AVX_VNNI,
                          .xcr0 = XCR0_ALL};
    vendor(&c, "GenuineIntel");
    return c;
}

/* An AVX-512 rule, which holds on intel_avx_vnni(), against that CPU with
 * each leaf 7 feature of need7 missing alone, each XCR0 state component
 * the OS must save missing alone (bit 0, x87, is not needed), no OSXSAVE
 * (XCR0 cannot be read, whatever it says), no leaf 7 (whatever its words
 * say), and nothing at all. */
static void each_missing(int (*rule)(const struct pci_cpuid *), const unsigned *need7, size_t n)
{
    struct pci_cpuid c = intel_avx_vnni();
    CHECK_EQ(rule(&c), 1);
    for (size_t i = 0; i < n; i++) {
        c = intel_avx_vnni();
        c.leaf7_ebx &= ~need7[i];
        CHECK_EQ(rule(&c), 0);
    }
    for (unsigned bit = 0; bit < 8; bit++) {
        c = intel_avx_vnni();
        c.xcr0 &= ~(1u << bit);
        CHECK_EQ(rule(&c), (0xe6u >> bit & 1) ? 0 : 1);
    }
    c = intel_avx_vnni();
    c.leaf1_ecx = 0;
    CHECK_EQ(rule(&c), 0);
    c = intel_avx_vnni();
    c.max_leaf = 6;
    CHECK_EQ(rule(&c), 0);
    struct pci_cpuid none = {0};
    CHECK_EQ(rule(&none), 0);
}

static void synthetic(void)
{
    struct pci_cpuid c = intel_avx_vnni();
    CHECK_EQ(pci_preload_short_avx512(&c), 1);

    /* Skylake-SP to Ice Lake: AVX-512 without AVX-VNNI lowers the clock */
    c.leaf7_1_eax = 0;
    CHECK_EQ(pci_preload_short_avx512(&c), 0);
    /* AVX-VNNI reported in a subleaf the CPU says it does not have */
    c = intel_avx_vnni();
    c.leaf7_eax = 0;
    CHECK_EQ(pci_preload_short_avx512(&c), 0);

    /* Zen 4 (the AMD guest): AVX-512, no AVX-VNNI, full speed */
    struct pci_cpuid z = intel_avx_vnni();
    vendor(&z, "AuthenticAMD");
    z.leaf7_eax = 1;
    z.leaf7_1_eax = 0;
    CHECK_EQ(pci_preload_short_avx512(&z), 1);
    /* Zen 3: no AVX-512 */
    z.leaf7_ebx = BMI2;
    CHECK_EQ(pci_preload_short_avx512(&z), 0);
    /* a vendor one letter off is not AMD */
    z = intel_avx_vnni();
    vendor(&z, "AuthenticAMX");
    z.leaf7_1_eax = 0;
    CHECK_EQ(pci_preload_short_avx512(&z), 0);

    const unsigned need7[] = {BMI2, AVX512F, AVX512BW};
    each_missing(pci_preload_short_avx512, need7, sizeof(need7) / sizeof(need7[0]));
}

/* The AVX-512 copy's 256-bit cases: every AVX-512 CPU with VL, whatever
 * its clock does with 512-bit stores. */
static void synthetic_evex256(void)
{
    struct pci_cpuid c = intel_avx_vnni();
    CHECK_EQ(pci_preload_short_evex256(&c), 1);
    c.leaf7_1_eax = 0; /* Skylake-SP to Ice Lake: these, not the 64-byte store */
    CHECK_EQ(pci_preload_short_evex256(&c), 1);
    CHECK_EQ(pci_preload_short_avx512(&c), 0);
    vendor(&c, "AuthenticAMD"); /* Zen 4 */
    CHECK_EQ(pci_preload_short_evex256(&c), 1);
    c.leaf7_ebx = AVX2 | BMI2; /* Zen 3 */
    CHECK_EQ(pci_preload_short_evex256(&c), 0);

    const unsigned need7[] = {BMI2, AVX512F, AVX512BW, AVX512VL};
    each_missing(pci_preload_short_evex256, need7, sizeof(need7) / sizeof(need7[0]));
}

/* The AVX2 case: Zen 3, and any AVX2 CPU, whatever its vendor. */
static void synthetic_avx2(void)
{
    struct pci_cpuid c = intel_avx_vnni();
    CHECK_EQ(pci_preload_short_avx2(&c), 1);
    c.leaf7_1_eax = 0; /* an AVX-512 CPU without AVX-VNNI: still AVX2 */
    CHECK_EQ(pci_preload_short_avx2(&c), 1);
    vendor(&c, "AuthenticAMD"); /* Zen 3 */
    c.leaf7_ebx = AVX2 | BMI2;
    c.xcr0 = 0x7;
    CHECK_EQ(pci_preload_short_avx2(&c), 1);
    CHECK_EQ(pci_preload_short_avx512(&c), 0);
    const unsigned need1[] = {OSXSAVE, AVX};
    for (size_t i = 0; i < sizeof(need1) / sizeof(need1[0]); i++) {
        struct pci_cpuid m = c;
        m.leaf1_ecx &= ~need1[i];
        CHECK_EQ(pci_preload_short_avx2(&m), 0);
    }
    for (unsigned bit = 0; bit < 3; bit++) { /* SSE and AVX state, not x87 */
        struct pci_cpuid m = c;
        m.xcr0 &= ~(1u << bit);
        CHECK_EQ(pci_preload_short_avx2(&m), bit == 0);
    }
    struct pci_cpuid m = c;
    m.leaf7_ebx &= ~AVX2;
    CHECK_EQ(pci_preload_short_avx2(&m), 0);
    m = c;
    m.max_leaf = 6;
    CHECK_EQ(pci_preload_short_avx2(&m), 0);

    /* RTM, read from leaf 7 only where the CPU has it */
    CHECK_EQ(pci_preload_cpu_rtm(&c), 0);
    m = c;
    m.leaf7_ebx |= RTM;
    CHECK_EQ(pci_preload_cpu_rtm(&m), 1);
    m.max_leaf = 6;
    CHECK_EQ(pci_preload_cpu_rtm(&m), 0);
}

/* rep stosb as the C library's memset (src/libc_memset.h's rule giving
 * 2048 B): Intel with ERMS from glibc 2.26 (AMD with ERMS under glibc
 * 2.26-2.38), and no tunable that moves its rep stosb or non-temporal
 * thresholds or turns ERMS off; the rule's own cases are in
 * tests/unit/test_libc_memset.c. */
static void synthetic_stosb(void)
{
    struct pci_cpuid c = intel_avx_vnni();
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.36"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, "", "2.33"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, "glibc.malloc.check=0:glibc.cpu.x86_ibt=on", "2.41"), 1);
    /* the threshold set to its default, in either base: as unset */
    CHECK_EQ(pci_preload_stosb_as_libc(&c, "glibc.cpu.x86_rep_stosb_threshold=2048", "2.41"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, "glibc.cpu.x86_rep_stosb_threshold=0x800", "2.41"), 1);
    /* a C library the rule does not know */
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, NULL), 0);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.25"), 0);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.31"), 1); /* a fixed 2048 */
    static const char *const moved[] = {
        "glibc.cpu.x86_rep_stosb_threshold=4096",
        "glibc.malloc.check=0:glibc.cpu.x86_rep_stosb_threshold=1",
        "glibc.cpu.x86_rep_stosb_threshold=2048:glibc.cpu.x86_rep_stosb_threshold=4096",
        "glibc.cpu.x86_rep_stosb_threshold=04000",
        "glibc.cpu.hwcaps=-ERMS",
        "glibc.cpu.hwcaps=Avoid_STOSB",
        "glibc.cpu.x86_non_temporal_threshold=0x4040",
        "glibc.cpu.x86_memset_non_temporal_threshold=16384",
        "GLIBC.CPU.X86_REP_STOSB_THRESHOLD=4096",
    };
    for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
        CHECK_EQ(pci_preload_stosb_as_libc(&c, moved[i], "2.36"), 0);
    c.leaf7_1_eax = 0; /* Skylake-SP to Ice Lake: their memsets take rep stosb too */
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.36"), 1);
    struct pci_cpuid m = c;
    m.leaf7_ebx &= ~ERMS;
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36"), 0);
    m = c;
    m.max_leaf = 6;
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36"), 0);
    m = c;
    /* AMD: glibc 2.26-2.38 take rep stosb from 2 KiB (2.36 measured on
     * Zen 5), 2.40 on never; 2.39 (either) and an unknown version are
     * left to the C library. */
    vendor(&m, "AuthenticAMD");
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, NULL), 0);
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36.1"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.33"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.38"), 1);
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.28"), 1);
    static const char *const not_stosb[] = {"2.41", "2.39", "2.40", "2.25", "2.9",
                                            "3.36", "2.", "", "2.036x"};
    for (size_t i = 0; i < sizeof(not_stosb) / sizeof(not_stosb[0]); i++)
        CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, not_stosb[i]), 0);
    for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++)
        CHECK_EQ(pci_preload_stosb_as_libc(&m, moved[i], "2.36"), 0);
    /* 2.41 on AMD with the threshold set back to 2048: as 2.36 */
    CHECK_EQ(pci_preload_stosb_as_libc(&m, "glibc.cpu.x86_rep_stosb_threshold=2048", "2.41"), 1);
    m.leaf7_ebx &= ~ERMS;
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36"), 0);
    m = c;
    vendor(&m, "GenuineIntal");
    CHECK_EQ(pci_preload_stosb_as_libc(&m, NULL, "2.36"), 0);
}

#if defined(__x86_64__)
/* 1 if the flags line of /proc/cpuinfo holds the word w */
static int has_flag(const char *flags, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = flags; (p = strstr(p, w)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
            return 1;
    return 0;
}
#endif

static void host(void)
{
    struct pci_cpuid c;
    pci_cpuid_read(&c);
    int got = pci_preload_short_avx512(&c), got2 = pci_preload_short_avx2(&c);
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        printf("host: no /proc/cpuinfo, rule gives %d\n", got);
        return;
    }
    char line[8192], flags[8192] = "", vend[64] = "";
    while (fgets(line, sizeof(line), f) != NULL && (flags[0] == 0 || vend[0] == 0)) {
        if (strncmp(line, "flags", 5) == 0 && flags[0] == 0)
            snprintf(flags, sizeof(flags), "%s", strchr(line, ':') ? strchr(line, ':') + 1 : "");
        if (strncmp(line, "vendor_id", 9) == 0 && vend[0] == 0)
            sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : "", "%63s", vend);
    }
    fclose(f);
    CHECK(flags[0] != 0 && vend[0] != 0);
    char words[13];
    memcpy(words, c.vendor, 12);
    words[12] = 0;
    CHECK(strcmp(words, vend) == 0);
    /* The kernel lists an AVX-512 flag only where it saves that state. */
    int want = has_flag(flags, "avx512f") && has_flag(flags, "avx512bw") &&
               has_flag(flags, "bmi2") &&
               (has_flag(flags, "avx_vnni") || strcmp(vend, "AuthenticAMD") == 0);
    printf("host: %s, short-call store %s, AVX2 case %s\n", vend, got ? "AVX-512" : "baseline",
           got2 ? "yes" : "no");
    CHECK_EQ(got, want);
    CHECK_EQ(got2, has_flag(flags, "avx2"));
    CHECK_EQ(pci_preload_cpu_rtm(&c), has_flag(flags, "rtm"));
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.36"),
             has_flag(flags, "erms") && (strcmp(vend, "GenuineIntel") == 0 ||
                                         strcmp(vend, "AuthenticAMD") == 0));
    CHECK_EQ(pci_preload_short_evex256(&c), has_flag(flags, "avx512f") &&
                                                has_flag(flags, "avx512bw") &&
                                                has_flag(flags, "avx512vl") &&
                                                has_flag(flags, "bmi2"));
#else
    CHECK_EQ(got, 0); /* the entry is the x86-64 one only */
    CHECK_EQ(got2, 0);
    CHECK_EQ(pci_preload_short_evex256(&c), 0);
    CHECK_EQ(pci_preload_stosb_as_libc(&c, NULL, "2.36"), 0);
    printf("host: not x86-64, baseline\n");
#endif
}

int main(void)
{
    synthetic();
    synthetic_evex256();
    synthetic_avx2();
    synthetic_stosb();
    host();
    printf("test_preload_cpu: ok\n");
    return 0;
}
