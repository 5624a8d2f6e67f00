/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * seccomp.c - whether memset's path may make system calls (seccomp.h),
 * and the prctl and syscall the preload interposes to know it.
 *
 * The first-touch modes ask the kernel (mincore, sigaltstack, the
 * /proc/self files pc_clear_present reads, madvise). A seccomp filter may
 * kill or trap at any of them, and the program, which without the preload
 * never makes them, would die of the preload. A filter cannot be read from
 * inside the process, so the calls are made only while no filter exists:
 *  - at start, /proc/self/status says "Seccomp: 0". It is read with
 *    openat, read and close, the calls the dynamic loader made to load the
 *    program, which a filter installed before exec therefore allows;
 *  - since then, no filter was installed through the C library's prctl or
 *    syscall (libseccomp uses both). The first such call refuses the calls
 *    for good, then waits for those under way: with
 *    SECCOMP_FILTER_FLAG_TSYNC a filter reaches every thread at once.
 * A program that installs a filter with a system-call instruction of its
 * own bypasses the C library and is not seen: PAGECLEAR_PRELOAD_CALLS=0
 * turns the calls off from the start (docs/preload.md, "Seccomp").
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload_env.h"
#include "seccomp.h"

#define PCI_EXPORT __attribute__((visibility("default")))
PCI_EXPORT int prctl(int option, ...);
PCI_EXPORT long syscall(long nr, ...);

/* Why the calls are refused; NULL while they are allowed. Set once. */
static const char *_Atomic refused;
/* Paths between pci_preload_calls_begin and _end, all threads; and this
 * thread's (a signal handler may seal while its thread is inside). */
static _Atomic unsigned long inflight;
static _Thread_local unsigned long own __attribute__((tls_model("initial-exec")));

/* How long a seal waits for the calls under way: a populate of many GiB
 * on a loaded machine takes seconds. Bounded, because a path left with
 * siglongjmp from a signal handler never ends its count. */
#define SEAL_WAIT_NS (10ull * 1000 * 1000 * 1000)

static unsigned long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Refuse the calls from now on; the first refusal waits for the paths
 * already past pci_preload_calls_begin (a filter is installed next). */
static void seal(const char *why)
{
    const char *none = NULL;
    if (!atomic_compare_exchange_strong(&refused, &none, why))
        return;
    int saved = errno;
    unsigned long long start = 0;
    while (atomic_load(&inflight) > own) {
        unsigned long long t = now_ns();
        if (start == 0)
            start = t;
        else if (t - start > SEAL_WAIT_NS)
            break;
        sched_yield();
    }
    errno = saved;
}

int pci_preload_calls_begin(void)
{
    atomic_fetch_add(&inflight, 1);
    own++;
    if (atomic_load(&refused) == NULL)
        return 1;
    pci_preload_calls_end();
    return 0;
}

void pci_preload_calls_end(void)
{
    own--;
    atomic_fetch_sub(&inflight, 1);
}

const char *pci_preload_calls_why(void)
{
    return atomic_load(&refused);
}

/* In a child only the forking thread goes on: the others' counts go. */
static void after_fork_child(void)
{
    atomic_store(&inflight, own);
}

/* The next prctl and syscall, resolved at the first call or by the
 * constructor, whichever comes first: another library's constructor may
 * call before this one's. */
static void *_Atomic next_prctl, *_Atomic next_syscall;

static void *next_of(void *_Atomic *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    if (f == NULL) {
        f = dlsym(RTLD_NEXT, name);
        atomic_store_explicit(slot, f, memory_order_release);
    }
    return f;
}

/* The seccomp mode /proc/self/status gives (0 none, 1 strict, 2 filter),
 * or -1 if it cannot be read. */
static int status_mode(void)
{
    static const char key[] = "\nSeccomp:";
    char buf[4096];
    size_t len = 0;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (;;) {
        ssize_t k = read(fd, buf + len, sizeof(buf) - 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == sizeof(buf) - 1)
            break;
    }
    close(fd);
    buf[len] = '\0';
    const char *at = strstr(buf, key);
    if (at == NULL)
        return -1;
    at += sizeof(key) - 1;
    while (*at == ' ' || *at == '\t')
        at++;
    return *at >= '0' && *at <= '2' && (at[1] == '\n' || at[1] == '\0') ? *at - '0' : -1;
}

int pci_preload_calls_init(void)
{
    (void)next_of(&next_prctl, "prctl");
    (void)next_of(&next_syscall, "syscall");
    if (atomic_load(&refused) != NULL)
        return -1; /* a constructor before this one installed a filter */
    /* For a program that installs its filter past the C library. */
    if (!pci_env_switch("PAGECLEAR_PRELOAD_CALLS", 1)) {
        seal("PAGECLEAR_PRELOAD_CALLS=0");
        return 0;
    }
    int saved = errno;
    int mode = status_mode();
    errno = saved;
    if (mode != 0) {
        seal(mode < 0 ? "/proc/self/status has no seccomp mode"
                      : "a seccomp filter was in place at start");
        return 0;
    }
    (void)pthread_atfork(NULL, NULL, after_fork_child);
    return 1;
}


int prctl(int option, ...)
{
    unsigned long a[4];
    va_list ap;
    va_start(ap, option);
    for (int i = 0; i < 4; i++)
        a[i] = va_arg(ap, unsigned long);
    va_end(ap);
    if (option == PR_SET_SECCOMP)
        seal("the program installed a seccomp filter (prctl)");
    int (*f)(int, ...) = (int (*)(int, ...))next_of(&next_prctl, "prctl");
    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return f(option, a[0], a[1], a[2], a[3]);
}

/* seccomp(2)'s operations that install: strict mode or a filter. */
static int installs(long nr, unsigned long op)
{
    if (nr == SYS_seccomp)
        return op == SECCOMP_SET_MODE_STRICT || op == SECCOMP_SET_MODE_FILTER;
    return nr == SYS_prctl && op == PR_SET_SECCOMP;
}

long syscall(long nr, ...)
{
    unsigned long a[6];
    va_list ap;
    va_start(ap, nr);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, unsigned long);
    va_end(ap);
    if (installs(nr, a[0]))
        seal("the program installed a seccomp filter (syscall)");
    long (*f)(long, ...) = (long (*)(long, ...))next_of(&next_syscall, "syscall");
    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return f(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
