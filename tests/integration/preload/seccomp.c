/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * seccomp.c - a program built without pageclear that runs under a seccomp
 * filter whose action on one system call is KILL, TRAP or ERRNO, for
 * tests/integration/preload/preload_seccomp.sh: with the preload it must
 * exit and print
 * exactly what it does without it.
 *
 *   preload_seccomp run HOW CALL ACTION
 *       HOW: none (no filter), prctl, syscall (seccomp(2) through the C
 *       library), tsync (seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC while
 *       another thread zeroes fresh memory in a loop), raw (seccomp(2)
 *       through the C library's own syscall, past the symbol the loader
 *       binds, as a program with system calls of its own installs it). Then zeroes 64 MiB
 *       of fresh and 64 MiB of resident memory, fills 64 MiB of resident
 *       memory with a byte, checks every byte, and prints the count of
 *       SIGSYS it caught (TRAP) and "ok".
 *   preload_seccomp exec CALL ACTION PROGRAM ARGS...
 *       installs the filter, then executes PROGRAM: a filter in place
 *       before exec, as a service manager or sandbox installs it.
 * CALL is a system call's name (the list below); ACTION kill, trap or
 * errno (EPERM). Exit status 0 when every byte is right; a killed program
 * dies of SIGSYS.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#define SIZE ((size_t)64 << 20)

static const struct {
    const char *name;
    long nr;
} calls[] = {
    {"mincore", SYS_mincore}, {"ioctl", SYS_ioctl},   {"openat", SYS_openat},
    {"read", SYS_read},       {"madvise", SYS_madvise}, {"close", SYS_close},
    {"sigaltstack", SYS_sigaltstack},
};

static volatile sig_atomic_t trapped;

static void on_sigsys(int sig)
{
    (void)sig;
    trapped++;
}

static void die(const char *what)
{
    char msg[256];
    int k = snprintf(msg, sizeof(msg), "preload_seccomp: %s\n", what);
    (void)!write(2, msg, (size_t)k);
    _exit(2);
}

static long call_nr(const char *name)
{
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
        if (strcmp(name, calls[i].name) == 0)
            return calls[i].nr;
    die("unknown system call");
    return -1;
}

static unsigned action_of(const char *name)
{
    if (strcmp(name, "kill") == 0)
        return SECCOMP_RET_KILL_PROCESS;
    if (strcmp(name, "trap") == 0)
        return SECCOMP_RET_TRAP;
    if (strcmp(name, "errno") == 0)
        return SECCOMP_RET_ERRNO | EPERM;
    die("unknown action");
    return 0;
}

/* seccomp(2) past the symbol every object binds to (the preload's, under
 * it): the C library's own syscall, asked of libc.so.6 itself, as a
 * runtime with system calls of its own would bypass an interposer. */
static long raw_seccomp(unsigned long op, unsigned long flags, void *arg)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    long (*f)(long, ...) = libc == NULL ? NULL : (long (*)(long, ...))dlsym(libc, "syscall");
    if (f == NULL)
        die("libc.so.6's own syscall");
    return f(SYS_seccomp, op, flags, arg);
}

/* The filter: ACTION for call nr, everything else allowed. how: 0 prctl,
 * 1 seccomp(2), 2 seccomp(2) with TSYNC, 3 seccomp(2) past the C library. */
static void install(long nr, unsigned action, int how)
{
#ifdef ARCH
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, action),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die("PR_SET_NO_NEW_PRIVS");
    long rc = how == 0   ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)
              : how == 3 ? raw_seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog)
                         : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                   how == 2 ? SECCOMP_FILTER_FLAG_TSYNC : 0, &prog);
    if (rc != 0)
        die("installing the filter");
#else
    (void)nr, (void)action, (void)how;
    die("no seccomp architecture constant for this CPU");
#endif
}

static int all(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static unsigned char *fresh(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("mmap");
    return p;
}

/* Zero fresh memory until told to stop: the other thread of tsync. */
static volatile int stop;
static void *zeroer(void *arg)
{
    (void)arg;
    while (!stop) {
        unsigned char *p = fresh(SIZE);
        memset(p, 0, SIZE);
        if (!all(p, SIZE, 0))
            die("the other thread's bytes");
        munmap(p, SIZE);
    }
    return NULL;
}

/* The work: each memset is a call the preload takes from 32 MiB on. */
static void work(void)
{
    unsigned char *a = fresh(SIZE), *b = fresh(SIZE);
    memset(b, 0x5a, SIZE); /* resident now */
    memset(a, 0, SIZE);    /* a first touch */
    if (!all(a, SIZE, 0) || !all(b, SIZE, 0x5a))
        die("the bytes after the first memsets");
    memset(b, 0, SIZE); /* resident */
    if (!all(b, SIZE, 0))
        die("the resident memory's bytes");
    memset(b, 0xa5, SIZE);
    if (!all(b, SIZE, 0xa5))
        die("the filled bytes");
    char msg[64];
    int k = snprintf(msg, sizeof(msg), "sigsys %d\nok\n", (int)trapped);
    (void)!write(1, msg, (size_t)k);
}

int main(int argc, char **argv)
{
    signal(SIGSYS, on_sigsys);
    if (argc >= 5 && strcmp(argv[1], "run") == 0) {
        const char *how = argv[2];
        pthread_t t;
        if (strcmp(how, "tsync") == 0 && pthread_create(&t, NULL, zeroer, NULL) != 0)
            die("pthread_create");
        if (strcmp(how, "none") != 0)
            install(call_nr(argv[3]), action_of(argv[4]),
                    strcmp(how, "prctl") == 0     ? 0
                    : strcmp(how, "syscall") == 0 ? 1
                    : strcmp(how, "raw") == 0     ? 3
                                                  : 2);
        if (strcmp(how, "tsync") == 0) {
            usleep(20000);
            stop = 1;
            pthread_join(t, NULL);
        }
        work();
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "exec") == 0) {
        install(call_nr(argv[2]), action_of(argv[3]), 0);
        execv(argv[4], argv + 4);
        die("execv");
    }
    die("usage: preload_seccomp run HOW CALL ACTION | exec CALL ACTION PROGRAM ARGS...");
    return 2;
}
