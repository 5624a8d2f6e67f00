/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * demand_zero.c - a region zeroed on demand, one 2 MiB folio per fault,
 * with the faulting address's neighbourhood cleared last.
 *
 * A runtime that recycles a large region (a JIT heap, a balloon, an arena
 * handed back) need not zero all of it up front: it revokes access and
 * zeroes each 2 MiB folio when a thread first touches it, as the kernel
 * does for anonymous huge pages. The touching thread is waiting, so the
 * folio is cleared with pc_clear_hint: far pages first, the 5 pages around
 * the faulting address last, so they are still in cache when it retries.
 *
 * The faults are real: the region is PROT_NONE; a SIGSEGV handler zeroes
 * the folio holding the address, makes it read-write, and the access
 * restarts. pc_clear_hint is fit for the handler once the library has
 * initialised (below, before the handler is installed): then it takes no
 * lock and allocates nothing, and these faults come from plain loads in
 * this program, never from inside a library call.
 *
 * usage: demand_zero [SIZE]   (default 256M)
 */
#define _GNU_SOURCE
#include <pageclear.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FOLIO ((size_t)2 << 20)
#define TOUCHES 200
#define STALE 0xEE /* what the region's previous user left behind */

static unsigned char *region;
static size_t region_len;
static volatile sig_atomic_t faults, bad_hint;
static unsigned char *served; /* one flag per folio, set by the handler */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    uintptr_t a = (uintptr_t)si->si_addr, lo = (uintptr_t)region;
    size_t f = (a - lo) / FOLIO;
    if (a < lo || a >= lo + region_len || served[f]) {
        signal(sig, SIG_DFL); /* not ours: fault again, and die as without us */
        return;
    }
    unsigned char *folio = region + f * FOLIO;
    if (mprotect(folio, FOLIO, PROT_READ | PROT_WRITE) != 0 ||
        pc_clear_hint(folio, FOLIO, si->si_addr) != 0) {
        bad_hint = 1;
        signal(sig, SIG_DFL);
        return;
    }
    served[f] = 1;
    faults++;
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    return n == 0 || (p[0] == v && memcmp(p, p + 1, n - 1) == 0);
}

int main(int argc, char **argv)
{
    size_t size = (size_t)256 << 20;
    if (argc > 2 || (argc == 2 && (pc_parse_size(argv[1], &size) != 0 || size == 0))) {
        fprintf(stderr, "usage: demand_zero [SIZE]   e.g. 256M, 1G\n");
        return 2;
    }
    size_t nfolios = (size + FOLIO - 1) / FOLIO;
    region_len = nfolios * FOLIO;
    region = mmap(NULL, region_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    served = calloc(nfolios, 1);
    unsigned char *touched = calloc(nfolios, 1);
    if (region == MAP_FAILED || served == NULL || touched == NULL) {
        perror("demand_zero");
        return 1;
    }
    memset(region, STALE, region_len);
    if (mprotect(region, region_len, PROT_NONE) != 0) {
        perror("demand_zero: mprotect");
        return 1;
    }
    /* Initialise the library (options, selection) outside the handler. */
    printf("demand_zero: %zu folios of 2 MiB; the fault's 5 pages are cleared last "
           "with %s, the rest with %s\n", nfolios, pc_selected_temporal(5 * PC_PAGE_SIZE),
           pc_selected(FOLIO));
    struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0) {
        perror("demand_zero: sigaction");
        return 1;
    }

    srand(7);
    size_t distinct = 0;
    for (int i = 0; i < TOUCHES; i++) {
        size_t off = (((size_t)rand() << 16) ^ (size_t)rand()) % region_len, f = off / FOLIO;
        volatile unsigned char *p = region + off;
        unsigned char v = *p; /* faults on a folio's first touch */
        if (!touched[f]) {
            /* First touch: the whole folio must read as zero, no stale byte. */
            if (v != 0 || !all_equal(region + f * FOLIO, FOLIO, 0)) {
                fprintf(stderr, "demand_zero: folio %zu not zero at first touch\n", f);
                return 1;
            }
            touched[f] = 1;
            distinct++;
        }
        *p = (unsigned char)(1 + i % 200); /* the program's own data */
    }
    if (bad_hint || (size_t)faults != distinct) {
        fprintf(stderr, "demand_zero: %d faults for %zu folios touched\n", (int)faults,
                distinct);
        return 1;
    }
    /* Untouched folios were never cleared: the stale bytes are still there. */
    if (mprotect(region, region_len, PROT_READ) != 0)
        return perror("demand_zero: mprotect"), 1;
    for (size_t f = 0; f < nfolios; f++)
        if (!touched[f] && !all_equal(region + f * FOLIO, FOLIO, STALE)) {
            fprintf(stderr, "demand_zero: folio %zu was written without a fault\n", f);
            return 1;
        }
    printf("demand_zero: %d touches, %zu of %zu folios faulted in, each zeroed once, "
           "hint last; %zu never touched, never cleared\n", TOUCHES, distinct, nfolios,
           nfolios - distinct);
    munmap(region, region_len);
    free(touched);
    free(served);
    return 0;
}
