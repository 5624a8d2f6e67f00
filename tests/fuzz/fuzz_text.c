/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fuzz_text.c - fuzz target for the readers of the kernel's text files:
 * pc_clear_present's line reader and /proc/self/maps parser
 * (src/present/proc_text.c), and the command's reading of /proc/kallsyms
 * and of the preemption model's sources (cli/host/kernel.c). The kernel
 * writes those files, but a reader that trusts their shape is one change
 * of the kernel's format away from reading past a buffer.
 * The first byte picks the line reader's buffer size; the rest is a file.
 * Invariants: the line reader gives back the file's lines, each cut to
 * its buffer exactly as a reference split of the bytes says, and ends; a
 * maps line that parses has start <= end and 0/1 flags; the kallsyms
 * scan ends, and the decision over any strings names a known clearing
 * mode, preemption model and units, each with a NUL-terminated reason.
 * libFuzzer with clang (-DPC_FUZZ=ON); otherwise a seeded driver that
 * builds files from the formats' own tokens.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "kernel.h"
#include "proc_text.h"

static int parsed; /* maps lines accepted: the driver must reach them */

/* The bytes as a file the line reader can read: a memfd, or -1. */
static int as_file(const uint8_t *d, size_t n)
{
    int fd = memfd_create("fuzz_text", MFD_CLOEXEC);
    CHECK(fd >= 0);
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, d + done, n - done);
        CHECK(w > 0);
        done += (size_t)w;
    }
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    return fd;
}

/* Every line the reader gives against the reference split of d[0, n),
 * each cut to cap - 1 bytes; each whole one through the maps parser and
 * the kallsyms scan. */
static void read_lines(const uint8_t *d, size_t n, size_t cap, struct cli_ksyms *k)
{
    struct pci_lines r;
    char line[PCI_LINES_BUF + 8];
    int fd = as_file(d, n);
    pci_lines_init(&r, fd);
    size_t at = 0;
    for (;;) {
        memset(line, 0x6b, sizeof(line));
        int rc = pci_lines_next(&r, line, cap);
        if (rc == 0)
            break;
        CHECK(rc == 1 || rc == 2);
        CHECK(at < n);
        const uint8_t *nl = memchr(d + at, '\n', n - at);
        size_t len = nl != NULL ? (size_t)(nl - (d + at)) : n - at;
        size_t kept = len < cap - 1 ? len : cap - 1;
        CHECK_EQ(rc, len > cap - 1 ? 2 : 1);
        CHECK(memcmp(line, d + at, kept) == 0 && line[kept] == '\0');
        CHECK((unsigned char)line[cap] == 0x6b); /* nothing past the buffer */
        at += len + (nl != NULL);
        struct pci_maps_line m;
        if (rc == 1 && strlen(line) == kept && pci_maps_parse(line, &m) == 0) {
            CHECK(m.start <= m.end);
            CHECK((m.writable | m.shared | m.file) <= 1);
            parsed++;
        }
        cli_ksyms_line(k, line);
    }
    CHECK(at == n); /* every byte read, none twice */
    pci_proc_close(fd);
}

/* The i-th NUL-separated field of d[0, n) in buf, or NULL past the end. */
static const char *field(const uint8_t *d, size_t n, int i, char *buf, size_t cap)
{
    size_t at = 0;
    for (; i > 0 && at < n; i--) {
        const uint8_t *z = memchr(d + at, '\0', n - at);
        at = z != NULL ? (size_t)(z - d) + 1 : n;
    }
    if (at >= n)
        return NULL;
    size_t len = strnlen((const char *)d + at, n - at);
    len = len < cap - 1 ? len : cap - 1;
    memcpy(buf, d + at, len);
    buf[len] = '\0';
    return buf;
}

static void decide(const uint8_t *d, size_t n, const struct cli_ksyms *k)
{
    char f[6][256];
    struct cli_kernel_in in = {
        .release = field(d, n, 0, f[0], sizeof(f[0])),
        .version = field(d, n, 1, f[1], sizeof(f[1])),
        .cmdline = field(d, n, 2, f[2], sizeof(f[2])),
        .debugfs = field(d, n, 3, f[3], sizeof(f[3])),
        .config_model = field(d, n, 4, f[4], sizeof(f[4])),
        .config = field(d, n, 5, f[5], sizeof(f[5])),
        .config_dynamic = n > 0 && (d[0] & 1),
        .realtime = n > 0 ? (int)(d[0] >> 1) % 3 - 1 : -1,
        .base_page = n > 1 ? (size_t)1 << (12 + d[1] % 5) : 0,
        .syms = *k,
    };
    struct cli_kernel out;
    memset(&out, 0x6b, sizeof(out));
    cli_kernel_decide(&in, &out);
    CHECK(out.clear == CLI_KCLEAR_UNKNOWN || out.clear == CLI_KCLEAR_PAGES ||
          out.clear == CLI_KCLEAR_EXTENTS);
    CHECK(cli_kmodel_name(out.model) != NULL || out.model == CLI_KMODEL_UNKNOWN);
    CHECK(memchr(out.clear_from, '\0', sizeof(out.clear_from)) != NULL);
    CHECK(memchr(out.model_from, '\0', sizeof(out.model_from)) != NULL);
    CHECK(memchr(out.units_why, '\0', sizeof(out.units_why)) != NULL);
    char u[64];
    CHECK(cli_kunits_name(&out, u, sizeof(u)) != NULL || out.units == CLI_KUNITS_UNKNOWN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap = 2 + data[0] % (PCI_LINES_BUF - 1);
    struct cli_ksyms k;
    cli_ksyms_init(&k, "fuzz");
    read_lines(data + 1, size - 1, cap, &k);
    decide(data + 1, size - 1, &k);
    return 0;
}

#ifndef PC_LIBFUZZER
/* Plain-test driver: files built from maps lines, kallsyms lines and the
 * preemption model's words, with raw bytes and over-long lines mixed in. */
static const char *const tokens[] = {
    "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n",
    "55d0c0a00000-55d0c0a21000 r--s 00001000 fd:01 1234 /usr/bin/x\n",
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n",
    "7f0000200000-7f0000100000 rw-p 0 00:00 0\n", "1-2 rwxp", "ffffffffffffffff-0",
    "ffffffff81000000 T clear_page_erms\n", "0000000000000000 T clear_pages\n",
    "ffffffff81000010 t __clear_pages_unrolled\n", "ffffffff8 T clear_page_rep\n",
    "ffffffff81000020 T clear_highpages_kasan_tagged [kasan]\n",
    "none voluntary (full) lazy", "(lazy)", "preempt=full", "preempt=", "PREEMPT_DYNAMIC",
    "#1 SMP PREEMPT_RT", "7.2.13", "6.18.44", "7.0", "none", "voluntary", "full", "lazy",
    " ", "\t", "\n", "\n\n", "-", "\0", "(", ")", "=",
};

int main(int argc, char **argv)
{
    unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 50000;
    uint64_t seed = 0x243f6a8885a308d3ULL;
    static uint8_t in[4096];
    const size_t nt = sizeof(tokens) / sizeof(tokens[0]);
    for (unsigned long it = 0; it < iters; it++) {
        size_t n = 0;
        in[n++] = (uint8_t)rng_next(&seed);
        size_t parts = rng_next(&seed) % 24;
        for (size_t p = 0; p < parts; p++) {
            uint64_t r = rng_next(&seed);
            const char *tok = tokens[r / 8 % nt];
            size_t k = r % 8 == 0 ? r / 8 % 6 + 1 : (*tok ? strlen(tok) : 1);
            if (n + k > sizeof(in))
                break;
            for (size_t j = 0; j < k; j++)
                in[n + j] = r % 8 == 0 ? (uint8_t)rng_next(&seed) : (uint8_t)tok[j];
            n += k;
        }
        if (it % 53 == 0 && n + 1200 < sizeof(in)) { /* a line over any buffer */
            memset(in + n, '7', 1200);
            n += 1200;
        }
        LLVMFuzzerTestOneInput(in, n);
    }
    CHECK(parsed > 0);
    printf("ok: %lu inputs, %d maps lines accepted\n", iters, parsed);
    return 0;
}
#endif
