/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * first_touch.c - PAGECLEAR_PRELOAD_FIRST_TOUCH (first_touch.h).
 *
 * A zero memset of memory no one has touched yet (the commonest large one:
 * value-initialised C++ containers, a calloc that cannot prove its memory
 * fresh) makes the kernel fault in pages it has already zeroed, and then
 * stores zeros over them. The modes:
 *   store     the C library's memset, whose temporal stores beat streaming
 *             ones over pages just faulted in (docs/notes.md, "The
 *             preload's threshold");
 *   populate  the pages pc_clear_present can prove absent are faulted in
 *             by this thread with MADV_POPULATE_WRITE: resident, zeroed,
 *             on its node, as after the memset, without the stores. The
 *             default;
 *   skip      they are left absent: they read zero already, and are
 *             faulted in when first used. Opt-in, because a program may
 *             memset fresh memory on purpose, to fault it in ahead of time
 *             or to place it on a node.
 * Under populate and skip the call is pc_clear_present with
 * PC_PRESENT_NO_FALLBACK: where a page cannot be proven to read zero
 * (a file's or shared mapping, hugetlb, userfaultfd, a kernel or filter
 * that does not answer) nothing is written and the C library's memset
 * does it, as under store. Under store with the stats on, the same calls
 * get a dry run of populate, so a user sees what the default would do.
 *
 * The proof's one costly part, reading /proc/self/smaps up to the range,
 * costs per resident page; populating saves per populated page. So a
 * process resident over RESIDENT_MAX times the call's length leaves the
 * call to the C library, as under store.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "first_touch.h"
#include "pageclear.h"
#include "preload_env.h"
#include "preload_stats.h"
#include "seccomp.h"

/* At most half the ratio of the two costs that tests/stress/bench_first_touch.c
 * measures (tests/data/first-touch-cost.txt holds its runs): the resident
 * memory may all lie below the range. */
#define RESIDENT_MAX 16

static enum pci_first_touch mode = PCI_FT_POPULATE;
static const char *const mode_word[] = {"store", "populate", "skip"};
static uintptr_t page_size = 4096;

/* Calls pc_clear_present took (or its dry run), and the bytes it
 * populated, skipped and stored; calls it refused; calls left to the C
 * library for the process's size. Lock-free. */
static _Atomic unsigned long long calls, populated, skipped, cleared, refused, costly;

void pci_preload_first_touch_init(void)
{
    int skip = pci_env_switch("PAGECLEAR_PRELOAD_SKIP_ABSENT", 0);
    mode = (enum pci_first_touch)pci_env_choice("PAGECLEAR_PRELOAD_FIRST_TOUCH", mode_word, 3,
                                                skip ? PCI_FT_SKIP : PCI_FT_POPULATE);
    long pg = sysconf(_SC_PAGESIZE);
    page_size = pg > 0 ? (uintptr_t)pg : page_size;
}

/* 1 if [s, s + n) looks never touched: the page of its middle byte is not
 * resident, or mincore cannot tell (ENOMEM: not mapped; the C library's
 * memset then faults as it would without the preload). The middle, not an
 * end: an allocator's header may have touched the first page, and the
 * caller the last (CPython writes a bytearray's terminating NUL first). */
static int untouched(const void *s, size_t n)
{
    uintptr_t mid = ((uintptr_t)s + n / 2) & ~(page_size - 1);
    unsigned char vec = 0;
    return mincore((void *)mid, 1, &vec) != 0 || (vec & 1) == 0;
}

/* 1 if this thread runs on its signal stack, or cannot tell: such a stack
 * may be small (MINSIGSTKSZ), and pc_clear_present needs up to 3 KiB. */
static int on_signal_stack(void)
{
    stack_t ss;
    return sigaltstack(NULL, &ss) != 0 || (ss.ss_flags & SS_ONSTACK) != 0;
}

/* The process's resident bytes, from /proc/self/statm's second field
 * (a counter the kernel keeps: no walk), or SIZE_MAX where unreadable. */
static size_t resident(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return SIZE_MAX;
    ssize_t k = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (k <= 0)
        return SIZE_MAX;
    buf[k] = '\0';
    const char *at = buf;
    while (*at != ' ' && *at != '\0')
        at++;
    size_t pages = 0;
    for (at++; *at >= '0' && *at <= '9'; at++)
        pages = pages * 10 + (size_t)(*at - '0');
    return pages > SIZE_MAX / page_size ? SIZE_MAX : pages * page_size;
}

static void count(int rc, const struct pc_present_report *r)
{
    atomic_fetch_add_explicit(rc == 0 ? &calls : &refused, 1, memory_order_relaxed);
    if (rc != 0)
        return;
    atomic_fetch_add_explicit(&populated, r->populated, memory_order_relaxed);
    atomic_fetch_add_explicit(&skipped, r->skipped, memory_order_relaxed);
    atomic_fetch_add_explicit(&cleared, r->cleared, memory_order_relaxed);
}

static int first_touch(void *s, int c, size_t n)
{
    if (!untouched(s, n))
        return -1;
    if ((unsigned char)c != 0 || on_signal_stack())
        return 0;
    if (mode == PCI_FT_STORE && !pci_preload_stats_on)
        return 0;
    if (resident() / RESIDENT_MAX > n) {
        if (pci_preload_stats_on)
            atomic_fetch_add_explicit(&costly, 1, memory_order_relaxed);
        return 0;
    }
    int flags = PC_PRESENT_NO_FALLBACK | (mode == PCI_FT_SKIP ? 0 : PC_PRESENT_POPULATE) |
                (mode == PCI_FT_STORE ? PC_PRESENT_DRY_RUN : 0);
    struct pc_present_report r;
    int rc = pc_clear_present(s, n, flags, &r);
    if (pci_preload_stats_on)
        count(rc, &r);
    return mode != PCI_FT_STORE && rc == 0;
}

int pci_preload_first_touch(void *s, int c, size_t n)
{
    int saved = errno;
    int rc = first_touch(s, c, n);
    errno = saved;
    return rc;
}

static void put(const char *line, int k, size_t cap)
{
    if (k > 0)
        (void)!write(STDERR_FILENO, line, (size_t)k < cap ? (size_t)k : cap - 1);
}

void pci_preload_first_touch_print(void)
{
    /* Under store the counts are a dry run of populate: what it would do. */
    static const char *const done[] = {"populated", "skipped", "cleared", "refused", "costly"};
    static const char *const would[] = {"would-populate", "would-skip", "would-clear",
                                        "would-refuse", "costly"};
    const char *const *w = mode == PCI_FT_STORE ? would : done;
    char line[256];
    int k = snprintf(line, sizeof(line),
                     "pageclear-preload: first-touch %s: calls %llu %s %llu %s %llu %s %llu %s "
                     "%llu %s %llu\n",
                     mode_word[mode], atomic_load(&calls), w[0], atomic_load(&populated), w[1],
                     atomic_load(&skipped), w[2], atomic_load(&cleared), w[3],
                     atomic_load(&refused), w[4], atomic_load(&costly));
    put(line, k, sizeof(line));
    const char *why = pci_preload_calls_why();
    k = snprintf(line, sizeof(line), "pageclear-preload: system calls: %s%s\n",
                 why == NULL ? "on" : "off: ", why == NULL ? "" : why);
    put(line, k, sizeof(line));
}
