/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fault_guard.c - touching pages with SIGBUS and SIGSEGV turned into error
 * codes, for pc_populate's fallback on kernels without MADV_POPULATE_WRITE.
 * The handlers are installed once and chain to whatever the program had:
 * a fault on a thread that is not inside a guarded touch goes to the
 * previous handler (or, for the default action, is re-raised as before).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "pageclear.h"
#include "fault_guard.h"

static struct sigaction old_bus, old_segv;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
/* volatile: the handler reads these asynchronously. Without it the store
 * of guard_jmp before the touching loop is dead to the compiler (nothing
 * it can see reads it before it is reset), and clang -O2 dropped it. */
static __thread sigjmp_buf *volatile guard_jmp;
static __thread volatile int guard_errno;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    if (guard_jmp != NULL) {
        /* What MADV_POPULATE_WRITE would have said: EFAULT where the access
         * raises SIGBUS or is not allowed, ENOMEM where nothing is mapped. */
        guard_errno = (sig == SIGSEGV && si->si_code == SEGV_MAPERR) ? ENOMEM : EFAULT;
        siglongjmp(*guard_jmp, 1);
    }
    const struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    } else {
        /* Default action: restore it; returning re-runs the faulting access,
         * which now ends the process as it would have without us. */
        signal(sig, SIG_DFL);
    }
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGSEGV, &sa, &old_segv);
}

/* The store that faults a page in for writing without changing it: a
 * compare-exchange that stores back the value it finds. Guessing 0 first
 * (fresh memory) makes it one write fault per page; a concurrent writer
 * only makes it go round again. Not an atomic add of zero: compilers may
 * lower that idempotent RMW to a fenced plain load (clang -O2 on x86 did,
 * volatile or not), and a load neither write-faults the page nor notices
 * that it is read-only. */
static void touch_page(char *p)
{
    int *w = (int *)(void *)p, seen = 0;
    while (!__atomic_compare_exchange_n(w, &seen, seen, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ; /* seen now holds the current value: store that back */
}

int pci_touch_pages(char *addr, size_t len)
{
    sigjmp_buf jb;
    pthread_once(&install_once, install);
    if (sigsetjmp(jb, 1)) {
        guard_jmp = NULL;
        return -guard_errno;
    }
    guard_jmp = &jb;
    for (size_t off = 0; off < len; off += PC_PAGE_SIZE)
        touch_page(addr + off);
    guard_jmp = NULL;
    return 0;
}
