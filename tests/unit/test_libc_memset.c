/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_libc_memset.c - what the C library's memset does, as
 * src/libc_memset.c says it: glibc's version strings, GLIBC_TUNABLES
 * values read as glibc reads them or refused, the rule of when memset
 * takes rep stosb on each vendor and version, a seeded fuzz of tunables
 * strings, and the running C library as the library reads it.
 */
#include <stdint.h>
#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "harness.h"
#include "libc_memset.h"

static void versions(void)
{
    CHECK_EQ(pci_glibc_minor("2.36"), 36);
    CHECK_EQ(pci_glibc_minor("2.41"), 41);
    CHECK_EQ(pci_glibc_minor("2.4"), 4); /* 2.4 is not 2.40 */
    CHECK_EQ(pci_glibc_minor("2.41.9000"), 41);
    CHECK_EQ(pci_glibc_minor("2.36.1"), 36);
    static const char *const bad[] = {NULL, "", "2", "2.", "2.x", "3.0", "1.99", "12.36",
                                      "2.36x", "2.36.", "2.36.1.", "2.36 ", " 2.36",
                                      "2.99999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_EQ(pci_glibc_minor(bad[i]), -1);
}

static void tunables(void)
{
    const char *n = PCI_GLIBC_STOSB_TUNABLE;
    size_t v = 7;
    CHECK_EQ(pci_glibc_tunable(NULL, n, &v), 0);
    CHECK_EQ(pci_glibc_tunable("", n, &v), 0);
    CHECK_EQ(pci_glibc_tunable("glibc.malloc.check=3", n, &v), 0);
    CHECK_EQ(v, 7); /* untouched when not set */
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_threshold=4096", n, &v), 1);
    CHECK_EQ(v, 4096);
    CHECK_EQ(pci_glibc_tunable("a=1:glibc.cpu.x86_rep_stosb_threshold=0x1F00:b=2", n, &v), 1);
    CHECK_EQ(v, 0x1f00);
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_threshold=0X10", n, &v), 1);
    CHECK_EQ(v, 16);
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_threshold=0", n, &v), 1);
    CHECK_EQ(v, 0);
    /* the last entry counts */
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_threshold=1::"
                               "glibc.cpu.x86_rep_stosb_threshold=9",
                               n, &v),
             1);
    CHECK_EQ(v, 9);
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_threshold=18446744073709551615", n, &v),
             1);
    CHECK_EQ(v == SIZE_MAX, 1);
    /* names that only start like it, or differ in case, are others' */
    CHECK_EQ(pci_glibc_tunable("glibc.cpu.x86_rep_stosb_thresholdX=5:"
                               "GLIBC.CPU.X86_REP_STOSB_THRESHOLD=5:"
                               "glibc.cpu.x86_rep_stosb_threshold:5",
                               n, &v),
             0);
    static const char *const unreadable[] = {
        "glibc.cpu.x86_rep_stosb_threshold=",
        "glibc.cpu.x86_rep_stosb_threshold=0x",
        "glibc.cpu.x86_rep_stosb_threshold=010",   /* octal to glibc */
        "glibc.cpu.x86_rep_stosb_threshold=-1",
        "glibc.cpu.x86_rep_stosb_threshold=+4",
        "glibc.cpu.x86_rep_stosb_threshold= 4",
        "glibc.cpu.x86_rep_stosb_threshold=4k",
        "glibc.cpu.x86_rep_stosb_threshold=0x1g",
        "glibc.cpu.x86_rep_stosb_threshold=18446744073709551616",
        "glibc.cpu.x86_rep_stosb_threshold=0x10000000000000000",
        "glibc.cpu.x86_rep_stosb_threshold=4096:glibc.cpu.x86_rep_stosb_threshold=x",
    };
    for (size_t i = 0; i < sizeof(unreadable) / sizeof(unreadable[0]); i++)
        CHECK_EQ(pci_glibc_tunable(unreadable[i], n, &v), -1);
}

static void rule(void)
{
    const enum pci_vendor I = PCI_VENDOR_INTEL, A = PCI_VENDOR_AMD;
    /* the defaults */
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.36", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.33", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.41", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.33", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.36", ""), 2048);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.38", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.40", NULL) == PC_NEVER, 1);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41", NULL) == PC_NEVER, 1);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.43", NULL) == PC_NEVER, 1);
    /* 2.39's release and its maintenance updates differ on AMD */
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.39", NULL), PCI_LIBC_UNKNOWN);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.39.1", NULL), PCI_LIBC_UNKNOWN);
    for (int m = 26; m <= 43; m++) {
        char v[8];
        snprintf(v, sizeof(v), "2.%d", m);
        CHECK_EQ(pci_libc_stosb_above(I, 1, v, NULL), 2048);
    }
    /* 2.26-2.31: a fixed 2048 on both vendors; a tunable set there is
     * ignored by the release, honoured by a distribution's backport */
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.26", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.31", NULL), 2048);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.28", "glibc.cpu.x86_rep_stosb_threshold=4096"),
             PCI_LIBC_UNKNOWN);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.31", "glibc.malloc.check=3"), 2048);
    /* 2.32 brought the tunable */
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.32", "glibc.cpu.x86_rep_stosb_threshold=4096"), 4096);
    /* not glibc 2.26 or later, or neither vendor: unknown */
    static const char *const old[] = {NULL, "", "2.25", "2.24", "1.0", "musl"};
    for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
        CHECK_EQ(pci_libc_stosb_above(I, 1, old[i], NULL), PCI_LIBC_UNKNOWN);
        CHECK_EQ(pci_libc_stosb_above(A, 1, old[i], NULL), PCI_LIBC_UNKNOWN);
    }
    CHECK_EQ(pci_libc_stosb_above(PCI_VENDOR_OTHER, 1, "2.36", NULL), PCI_LIBC_UNKNOWN);
    CHECK_EQ(pci_libc_stosb_above(PCI_VENDOR_ARM, 1, "2.36", NULL), PCI_LIBC_UNKNOWN);
    /* without ERMS: never, on either vendor, set threshold or not */
    CHECK_EQ(pci_libc_stosb_above(I, 0, "2.36", NULL) == PC_NEVER, 1);
    CHECK_EQ(pci_libc_stosb_above(A, 0, "2.41", "glibc.cpu.x86_rep_stosb_threshold=4096") ==
                 PC_NEVER,
             1);
    /* the threshold set: its value on either vendor and version known */
    const char *t = "glibc.malloc.check=3:glibc.cpu.x86_rep_stosb_threshold=1048576";
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.36", t), 1048576);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.36", t), 1048576);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41", t), 1048576);
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41", "glibc.cpu.x86_rep_stosb_threshold=1"), 1);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.41",
                                  "glibc.cpu.x86_rep_stosb_threshold=0xffffffffffffffff") ==
                 PC_NEVER,
             1);
    /* set to 0 (below glibc's least, ignored there), or unreadable */
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41", "glibc.cpu.x86_rep_stosb_threshold=0"),
             PCI_LIBC_UNKNOWN);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.36", "glibc.cpu.x86_rep_stosb_threshold=010"),
             PCI_LIBC_UNKNOWN);
    /* entries that may move or turn off rep stosb some other way */
    static const char *const movers[] = {
        "glibc.cpu.hwcaps=-ERMS",
        "glibc.cpu.hwcaps=-AVX512F,-erms",
        "glibc.cpu.hwcaps=Avoid_STOSB",
        "glibc.cpu.x86_non_temporal_threshold=0x4040",
        "glibc.cpu.x86_memset_non_temporal_threshold=16384",
        "GLIBC.CPU.X86_REP_STOSB_THRESHOLD=4096",
        "glibc.cpu.x86_rep_stosb_thresholdX=4096",
    };
    for (size_t i = 0; i < sizeof(movers) / sizeof(movers[0]); i++) {
        CHECK_EQ(pci_libc_stosb_above(I, 1, "2.36", movers[i]), PCI_LIBC_UNKNOWN);
        CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41", movers[i]), PCI_LIBC_UNKNOWN);
    }
    /* others' tunables move nothing */
    CHECK_EQ(pci_libc_stosb_above(A, 1, "2.41",
                                  "glibc.cpu.hwcaps=-AVX512F,-AVX512VL:glibc.malloc.check=3") ==
                 PC_NEVER,
             1);
    CHECK_EQ(pci_libc_stosb_above(I, 1, "2.36", "glibc.cpu.x86_rep_movsb_threshold=4096"),
             2048);
}

/* Tunables strings of random bytes from a small alphabet (the names'
 * own letters, digits, ':', '=', 'x'): the readers never read past the
 * string, and every answer is one the contract allows. */
static void fuzz(void)
{
    static const char alphabet[] = "glibc.pu_x86repstosbthrldERMSnoempa0123456789xX:=";
    static const char *const parts[] = {PCI_GLIBC_STOSB_TUNABLE "=", ":", "=", "0x", "erms",
                                        "non_temporal", "2048"};
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int round = 0; round < 20000; round++) {
        char s[96];
        size_t n = 0, len = (size_t)(seed >> 58) + 1;
        while (n < len && n + 24 < sizeof(s)) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            if ((seed >> 60) < 3) {
                const char *p = parts[(seed >> 32) % (sizeof(parts) / sizeof(parts[0]))];
                size_t k = strlen(p);
                if (n + k >= sizeof(s) - 1)
                    break;
                memcpy(s + n, p, k);
                n += k;
            } else {
                s[n++] = alphabet[(seed >> 33) % (sizeof(alphabet) - 1)];
            }
        }
        s[n] = '\0';
        size_t v = 0;
        int r = pci_glibc_tunable(s, PCI_GLIBC_STOSB_TUNABLE, &v);
        CHECK(r == -1 || r == 0 || r == 1);
        size_t a = pci_libc_stosb_above(PCI_VENDOR_AMD, 1, "2.41", s);
        /* set and readable from 1 with no other mover: its value */
        if (a != PCI_LIBC_UNKNOWN && a != PC_NEVER)
            CHECK(r == 1 && a == v);
        if (r == -1)
            CHECK_EQ(a, PCI_LIBC_UNKNOWN);
    }
}

/* The running C library, read once: the same answer each time, and the
 * version this program was built against where that is glibc. */
static void host(void)
{
    const struct pci_libc *l = pci_libc();
    CHECK(l == pci_libc());
#if defined(__GLIBC__)
    /* never older than the glibc it was built against */
    CHECK(l->glibc_minor >= __GLIBC_MINOR__);
    const struct pci_cpu *c = pci_cpu();
    CHECK_EQ(l->stosb_above, pci_libc_stosb_above(c->vendor, (c->features & PCI_F_ERMS) != 0,
                                                  gnu_get_libc_version(),
                                                  getenv("GLIBC_TUNABLES")));
    /* ctest runs this with the threshold set (tests/CMakeLists.txt): on
     * an x86-64 CPU with ERMS the library takes it from the environment */
    const char *want = getenv("PC_TEST_STOSB_ABOVE");
    int known = (c->vendor == PCI_VENDOR_INTEL || c->vendor == PCI_VENDOR_AMD) &&
                (c->features & PCI_F_ERMS) &&
                l->glibc_minor >= PCI_GLIBC_STOSB_TUNABLE_SINCE;
    if (want != NULL && known)
        CHECK_EQ(l->stosb_above, strtoull(want, NULL, 10));
#else
    CHECK_EQ(l->glibc_minor, -1);
    CHECK_EQ(l->stosb_above, PCI_LIBC_UNKNOWN);
#endif
    printf("host: glibc minor %d, memset rep stosb above %zu%s\n", l->glibc_minor,
           l->stosb_above, l->stosb_above == PC_NEVER ? " (never)"
                           : l->stosb_above == PCI_LIBC_UNKNOWN ? " (unknown)" : "");
}

int main(void)
{
    versions();
    tunables();
    rule();
    fuzz();
    host();
    printf("test_libc_memset: ok\n");
    return 0;
}
