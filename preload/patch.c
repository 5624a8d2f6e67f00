/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * patch.c - the memset entry's limits written into its code once the
 * constructor has set them, so that a short call reads no variable.
 *
 * Why: on the Zen 5 guest each load of a limit in the entry cost a short
 * call up to a fifth of its time against the C library's memset, which
 * reads nothing below 129 B (128 B: 1.19 with two loads, 1.00 with none;
 * how much moved with the page offset of the variable, as the stores of
 * a run of calls cover every offset). The dynamic loader's way of
 * choosing code once, an indirect function, made it print "Relink ...
 * for IFUNC symbol memset" in every program with a library bound at load
 * (docs/notes.md, "Zen 5: the loads of the limits").
 *
 * Each compare of a limit in the entry is `cmp VAR(%rip), REG` (48 3b,
 * 7 bytes), recorded as a site by PCI_ASM_CMP (entry.h) in the section
 * pci_preload_sites; the tail jump to the C library's memset is
 * `jmp *pci_preload_real(%rip)` (ff 25, 6 bytes), recorded by
 * PCI_ASM_JMP_REAL. Once the limits hold their final values (the
 * constructor writes each once and never again), a compare becomes
 * `cmp $VALUE, REG` (48 81, 7 bytes, VALUE sign-extended from 32 bits:
 * a limit that does not fit stays a load) and the jump `jmp REAL` (e9,
 * 5 bytes, and a byte never reached; where the C library's memset lies
 * more than 2 GiB away it stays). Either form of each instruction does
 * the same with the values as they are then, so a copy of the code taken
 * before the change (a core, a tool that translated it) stays right.
 *
 * What makes writing code safe here, and what is done where it is not:
 * - Another thread could fetch an instruction half written: the code is
 *   changed only while the process has one thread (/proc/self/stat; a
 *   library's constructor, run before this one, may have started one),
 *   and none can appear meanwhile, as only this thread runs.
 * - A signal handler on this thread could call memset mid-change: every
 *   signal is blocked meanwhile.
 * - The pages are made writable and executable at once (never
 *   non-executable: a memset call may come at any time), then back to
 *   read and execute. Where the system refuses the first step (an SELinux
 *   policy without execmod, PaX), nothing is changed; where it refuses the
 *   last, the pages stay writable and executable, and this says so.
 * - PAGECLEAR_PRELOAD_PATCH=0 leaves the code alone.
 * The pages changed become the process's own copies (two at most: each
 * entry, with all its sites, is under 512 bytes long).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "entry.h"

#if PCI_PRELOAD_ASM_ENTRY

/* One site: where its instruction starts and the variable it reads, each
 * as an offset from the field itself (no relocation at load). */
struct pci_site {
    int32_t at, var;
};
extern const struct pci_site __start_pci_preload_sites[] __attribute__((visibility("hidden")));
extern const struct pci_site __stop_pci_preload_sites[] __attribute__((visibility("hidden")));

static unsigned char *site_at(const struct pci_site *s)
{
    return (unsigned char *)((uintptr_t)&s->at + (uintptr_t)(intptr_t)s->at);
}

static const void *site_var(const struct pci_site *s)
{
    return (const void *)((uintptr_t)&s->var + (uintptr_t)(intptr_t)s->var);
}

/* The number of threads of this process (field 20 of /proc/self/stat),
 * or 0 where it cannot be read. Parsed as cli/env.c parses the same file:
 * from the last ')', as the command name may hold spaces and parentheses. */
static long threads(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    long v = 0;
    /* After ')': state is field 3, num_threads field 20. */
    if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
                                   "%*d %*d %*d %ld", &v) != 1)
        return 0;
    return v;
}

/* The bytes that replace the instruction at p, which reads var, into
 * out; their count, or 0 where it stays (not the form expected, or a
 * value that does not fit). */
static size_t replacement(const unsigned char *p, const void *var, unsigned char out[7])
{
    int32_t disp;
    if (p[0] == 0x48 && p[1] == 0x3b && (p[2] & 0xc7) == 0x05) { /* cmp var(%rip), reg */
        memcpy(&disp, p + 3, 4);
        if ((const unsigned char *)var != p + 7 + disp)
            return 0;
        size_t v = atomic_load_explicit((_Atomic size_t *)var, memory_order_acquire);
        if (v > 0x7fffffffu && v < (size_t)0xffffffff80000000u)
            return 0;
        int32_t imm = (int32_t)(int64_t)v;
        out[0] = 0x48;
        out[1] = 0x81;
        out[2] = (unsigned char)(0xf8 | ((p[2] >> 3) & 7)); /* cmp $imm, reg */
        memcpy(out + 3, &imm, 4);
        return 7;
    }
    if (p[0] == 0xff && p[1] == 0x25) { /* jmp *var(%rip) */
        memcpy(&disp, p + 2, 4);
        if ((const unsigned char *)var != p + 6 + disp)
            return 0;
        uintptr_t to = (uintptr_t) * (void *const *)var;
        intptr_t rel = (intptr_t)(to - (uintptr_t)(p + 5));
        if (to == 0 || rel != (intptr_t)(int32_t)rel)
            return 0;
        int32_t r = (int32_t)rel;
        out[0] = 0xe9; /* jmp rel32 */
        memcpy(out + 1, &r, 4);
        out[5] = 0x90;
        return 6;
    }
    return 0;
}

const char *pci_preload_patch(void)
{
    const struct pci_site *b = __start_pci_preload_sites, *e = __stop_pci_preload_sites;
    if (b == e)
        return "no entry in assembly here";
    long nt = threads();
    if (nt != 1)
        return nt == 0 ? "no /proc/self/stat" : "other threads";
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (const struct pci_site *s = b; s < e; s++) {
        uintptr_t a = (uintptr_t)site_at(s);
        lo = a < lo ? a : lo;
        hi = a + 7 > hi ? a + 7 : hi;
    }
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t mask = (uintptr_t)(pg > 0 ? pg : 4096) - 1;
    lo &= ~mask;
    hi = (hi + mask) & ~mask;
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    const char *why = NULL;
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        why = "the system refused writable code";
    } else {
        for (const struct pci_site *s = b; s < e; s++) {
            unsigned char out[7];
            unsigned char *p = site_at(s);
            size_t n = replacement(p, site_var(s), out);
            /* The opcode bytes last, though nothing runs this code now. */
            for (size_t i = n; i-- > 0;)
                ((volatile unsigned char *)p)[i] = out[i];
        }
        if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC) != 0)
            why = "changed, but the pages stay writable";
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return why;
}

#else

const char *pci_preload_patch(void)
{
    return "no entry in assembly here";
}

#endif
