/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * wx.c - run a program where no memory may become writable and executable:
 * a seccomp filter, kept across execve, kills the process (SIGSYS) at any
 * mmap, mprotect or pkey_mprotect asking for PROT_WRITE and PROT_EXEC
 * together, as systemd's MemoryDenyWriteExecute= does.
 * tests/integration/preload/preload.sh
 * runs programs under the preload through it: a preload that wrote its
 * own code would die here.
 * Usage: wx PROGRAM [ARGS...]   (the environment, LD_PRELOAD included, is
 *                                passed on; exit status 125 where the
 *                                filter cannot be installed)
 *        wx --self-test          asks for writable and executable memory
 *                                under the filter: must die of SIGSYS
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define WX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WX_ARCH AUDIT_ARCH_AARCH64
#else
#define WX_ARCH 0
#endif

#ifndef SYS_pkey_mprotect
#define SYS_pkey_mprotect -1 /* no such call here: never matches */
#endif

/* The low 32 bits of argument i (prot is an int; x86-64 and arm64 are
 * little-endian). */
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wx PROGRAM [ARGS...]\n");
        return 2;
    }
    if (WX_ARCH == 0) {
        fprintf(stderr, "wx: no seccomp architecture known for this build\n");
        return 125;
    }
    const unsigned wx = PROT_WRITE | PROT_EXEC;
    struct sock_filter f[] = {
        /* Another architecture's calls (x32, i386 under x86-64) pass:
         * their numbers differ, and the preload is built for this one. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WX_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)SYS_pkey_mprotect, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* prot is the third argument of all three. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, wx),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, wx, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        fprintf(stderr, "wx: cannot install the seccomp filter: %s\n", strerror(errno));
        return 125;
    }
    if (strcmp(argv[1], "--self-test") == 0) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        fprintf(stderr, "wx: the filter let writable and executable memory through (%p)\n", p);
        return 1;
    }
    execv(argv[1], argv + 1);
    fprintf(stderr, "wx: cannot run %s: %s\n", argv[1], strerror(errno));
    return 127;
}
