/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * vmm_guest.c - a VMM's guest memory: faulted in on all cores before the
 * guest starts, scrubbed with streaming stores when it is given back.
 *
 * A VMM maps its guest's RAM and faults all of it in up front (QEMU's
 * -mem-prealloc), so the guest never waits on a host page fault;
 * pc_populate does that on every core, without changing the contents.
 * Memory a guest gives back must be scrubbed before the host hands it to
 * anyone else, and nobody will read it soon, so the clear should stream
 * past the cache rather than evict the host's working set:
 *   - a memory slot unplugged while the guest runs: pc_clear_cold;
 *   - all of the RAM when the guest shuts down: pc_clear_parallel on every
 *     core, with the selection for the whole extent (streaming stores, or
 *     rep stosb where the CPU stops allocating lines for it by itself).
 * The program checks residency with mincore(2), that populating kept the
 * contents, and that each scrub zeroed its range and nothing else.
 *
 * usage: vmm_guest [SIZE]   (default 1G; capped at a quarter of the
 *                            memory available)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pageclear.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 8 /* the guest's RAM as 8 hot-pluggable slots; the last is unplugged */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    return n == 0 || (p[0] == v && memcmp(p, p + 1, n - 1) == 0);
}

/* Pages of [p, p + n) resident in memory, or (size_t)-1 on error. */
static size_t resident_pages(void *p, size_t n)
{
    size_t pages = n / PC_PAGE_SIZE, count = 0;
    unsigned char *vec = malloc(pages);
    if (vec == NULL || mincore(p, n, vec) != 0) {
        free(vec);
        return (size_t)-1;
    }
    for (size_t i = 0; i < pages; i++)
        count += vec[i] & 1;
    free(vec);
    return count;
}

static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long kb = 0;
    char line[128];
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (size_t)kb << 10;
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "vmm_guest: %s%s%s\n", what, rc ? ": " : "", rc ? strerror(-rc) : "");
    return 1;
}

int main(int argc, char **argv)
{
    size_t size = (size_t)1 << 30, avail = mem_available();
    if (argc > 2 || (argc == 2 && (pc_parse_size(argv[1], &size) != 0 || size == 0))) {
        fprintf(stderr, "usage: vmm_guest [SIZE]   e.g. 1G, 256M\n");
        return 2;
    }
    if (avail && size > avail / 4)
        size = avail / 4;
    size_t slot = (size / SLOTS + PC_PAGE_SIZE - 1) & ~(PC_PAGE_SIZE - 1);
    size = slot * SLOTS;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned char *ram = mmap(NULL, size, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (ram == MAP_FAILED)
        return fail("mmap", -errno);
    printf("vmm_guest: %zu MiB of guest RAM in %d slots, %ld cpus\n", size >> 20, SLOTS, cpus);

    size_t before = resident_pages(ram, size);
    double t = now_s();
    int rc = pc_populate(ram, size, 0, 0); /* 0 threads: one per online cpu */
    t = now_s() - t;
    if (rc != 0)
        return fail("pc_populate", rc);
    size_t after = resident_pages(ram, size);
    if (after != size / PC_PAGE_SIZE || !all_equal(ram, size, 0))
        return fail("populate left pages out or changed the contents", 0);
    printf("vmm_guest: populated before boot: resident pages %zu -> %zu, in %.0f ms "
           "(%.1f GB/s)\n", before, after, t * 1e3, size / t / 1e9);

    memset(ram, 0x5E, size); /* the guest runs and fills its memory */

    unsigned char *unplugged = ram + (SLOTS - 1) * slot;
    t = now_s();
    rc = pc_clear_cold(unplugged, slot);
    t = now_s() - t;
    if (rc != 0)
        return fail("pc_clear_cold", rc);
    if (!all_equal(unplugged, slot, 0) || !all_equal(ram, size - slot, 0x5E))
        return fail("the unplugged slot's scrub did not zero exactly that slot", 0);
    printf("vmm_guest: slot %d unplugged and scrubbed with %s: %zu MiB in %.1f ms\n",
           SLOTS - 1, pc_selected_cold(slot), slot >> 20, t * 1e3);

    t = now_s();
    rc = pc_clear_parallel(ram, size - slot, 0);
    t = now_s() - t;
    if (rc != 0)
        return fail("pc_clear_parallel", rc);
    if (!all_equal(ram, size, 0))
        return fail("guest RAM not all zero after the scrub", 0);
    printf("vmm_guest: guest shut down, RAM scrubbed on up to %ld threads: %zu MiB in "
           "%.0f ms (%.1f GB/s); all zero\n", cpus, (size - slot) >> 20, t * 1e3,
           (size - slot) / t / 1e9);
    munmap(ram, size);
    return 0;
}
