/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_bench.c - `pageclear serve --bench`: time to usable memory, fresh
 * (mmap MAP_POPULATE of hugetlb pages: the kernel faults and zeroes every
 * page) against from the service (pc_serve_get of a block the reserve
 * holds, then mmap MAP_SHARED|MAP_POPULATE of it: page tables only), and
 * the rate at which the reserve's worker fills a block.
 *
 * Each run starts a daemon in this process (its own socket in a temporary
 * directory), waits for its reserve to be full, takes the memory through
 * the real client call and socket, then stops the daemon before the fresh
 * mapping, so the two never hold pages at once, nor compete for the CPU.
 * `--page thp` compares a filled shmem memfd's mapping with a fresh THP
 * one, which the service does not offer (docs/serve.md says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "serve.h"
#include "serve_daemon.h"
#include "serve_log.h"
#include "stats.h"
#include "units.h"

#define MAX_SIZES 8
#define MAX_RUNS 50
/* The reserve fills at idle priority; on a busy machine that can take
 * long, but not this long for the sizes measured here. */
#define FILL_WAIT_NS (300 * 1000000000ull)

struct bench {
    size_t sizes[MAX_SIZES];
    unsigned nsizes;
    unsigned long runs;
    enum cli_page page;
    char dir[64];
    char sock[128];
};

/* Every page's first and last words read zero. */
static int reads_zero(const char *p, size_t len, size_t page)
{
    for (size_t off = 0; off < len; off += page) {
        uint64_t a, b;
        memcpy(&a, p + off, sizeof(a));
        memcpy(&b, p + off + page - sizeof(b), sizeof(b));
        if (a != 0 || b != 0)
            return 0;
    }
    return 1;
}

struct runner {
    struct serve_daemon d;
    pthread_t thread;
    int efd;
};

static void *run_loop(void *arg)
{
    struct runner *r = arg;
    serve_daemon_run(&r->d, r->efd);
    return NULL;
}

static void stop(struct runner *r)
{
    uint64_t one = 1;
    ssize_t w = write(r->efd, &one, sizeof(one));
    (void)w;
    pthread_join(r->thread, NULL);
    serve_daemon_close(&r->d);
    close(r->efd);
}

/* A daemon with one block of size bytes, its reserve full. 0 with the
 * fill's rate in *rate (GiB/s), or -1 after a message. */
static int start(struct bench *b, struct runner *r, size_t size, double *rate)
{
    struct serve_config c;
    int p = b->page == CLI_PAGE_1G ? SERVE_PAGE_1G : SERVE_PAGE_2M;
    serve_config_defaults(&c);
    c.reserve[p][0] = size;
    c.nblocks[p] = 1;
    c.on_miss = SERVE_MISS_ERROR; /* a fill at request time is not measured */
    c.reserve_for = SERVE_FOR_ALL; /* whatever this process's cgroups limit */
    r->efd = eventfd(0, EFD_CLOEXEC);
    if (r->efd < 0) {
        cli_error("serve --bench: eventfd: %s", strerror(errno));
        return -1;
    }
    if (serve_daemon_open(&r->d, &c, b->sock) != 0 ||
        pthread_create(&r->thread, NULL, run_loop, r) != 0) {
        cli_error("serve --bench: cannot start the service (above)");
        serve_daemon_close(&r->d);
        close(r->efd);
        return -1;
    }
    uint64_t t0 = cli_now_ns(), bytes, ns;
    while (serve_reserve_full_bytes(&r->d.reserve[p]) < size) {
        if (cli_now_ns() - t0 > FILL_WAIT_NS) {
            cli_error("serve --bench: the reserve did not fill in %llu s",
                      FILL_WAIT_NS / 1000000000ull);
            stop(r);
            return -1;
        }
        usleep(1000);
    }
    serve_reserve_rate(&r->d.reserve[p], &bytes, &ns);
    *rate = ns > 0 ? (double)bytes / (double)GIB / ((double)ns / 1e9) : 0;
    return 0;
}

/* One run from the service: ms for the request alone and to usable. */
static int from_service(struct bench *b, size_t size, double *get_ms, double *all_ms,
                        double *rate)
{
    struct runner *r = malloc(sizeof(*r));
    if (r == NULL || start(b, r, size, rate) != 0) {
        free(r);
        return -1;
    }
    size_t pg = cli_page_bytes(b->page);
    int fd = -1, ok = 0;
    uint64_t t0 = cli_now_ns();
    int rc = pc_serve_get(size, pg, PC_SERVE_RESERVE_ONLY, &fd);
    uint64_t t1 = cli_now_ns();
    void *m = rc == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                             fd, 0)
                      : MAP_FAILED;
    uint64_t t2 = cli_now_ns();
    if (m != MAP_FAILED) {
        ok = reads_zero(m, size, pg);
        munmap(m, size);
    }
    if (fd >= 0)
        close(fd);
    stop(r);
    free(r);
    if (!ok) {
        cli_error("serve --bench: %s", rc != 0 ? strerror(-rc)
                                   : m == MAP_FAILED ? "cannot map the memory"
                                                     : "the memory does not read zero");
        return -1;
    }
    *get_ms = (double)(t1 - t0) / 1e6;
    *all_ms = (double)(t2 - t0) / 1e6;
    return 0;
}

static int fresh(struct bench *b, size_t size, double *ms)
{
    struct cli_buf buf;
    char err[256];
    uint64_t t0 = cli_now_ns();
    if (cli_buf_map(&buf, size, b->page, CLI_MAP_POPULATE, err, sizeof(err)) != 0) {
        cli_error("serve --bench: %s", err);
        return -1;
    }
    *ms = (double)(cli_now_ns() - t0) / 1e6;
    int ok = reads_zero(buf.addr, size, cli_page_bytes(b->page));
    cli_buf_unmap(&buf);
    return ok ? 0 : -1;
}

static void cell(double *v, size_t n, int width, const char *unit)
{
    struct cli_stats s;
    char t[64];
    cli_stats(v, n, &s);
    snprintf(t, sizeof(t), "%.3g %s (%.3g-%.3g)", s.median, unit, s.min, s.max);
    printf("  %-*s", width, t);
}

/* Runs per size, after one of each not counted: on a guest, the host may
 * still be backing the memory of the first use with its own pages. */
static int bench_size(struct bench *b, size_t size)
{
    double fr[MAX_RUNS], get[MAX_RUNS], all[MAX_RUNS], rate[MAX_RUNS], warm;
    char s[32];
    long avail = serve_free_pages(b->page == CLI_PAGE_1G ? SERVE_PAGE_1G : SERVE_PAGE_2M);
    size_t need = size / cli_page_bytes(b->page);
    printf("%-8s", cli_fmt_size(size, s, sizeof(s)));
    if (avail >= 0 && (size_t)avail < need) {
        printf("  skipped: needs %zu free %s pages, the kernel has %ld\n", need,
               cli_page_name(b->page), avail);
        return 0;
    }
    fflush(stdout);
    if (from_service(b, size, &warm, &warm, &warm) != 0 || fresh(b, size, &warm) != 0)
        return -1;
    for (unsigned long i = 0; i < b->runs; i++)
        if (from_service(b, size, &get[i], &all[i], &rate[i]) != 0 ||
            fresh(b, size, &fr[i]) != 0)
            return -1;
    cell(fr, b->runs, 24, "ms");
    cell(all, b->runs, 24, "ms");
    cell(get, b->runs, 22, "ms");
    cell(rate, b->runs, 20, "GiB/s");
    printf("\n");
    return 0;
}

/* THP: a shmem memfd filled ahead, then mapped, against a fresh THP
 * mapping. */
static int bench_thp(struct bench *b, size_t size)
{
    double fr[MAX_RUNS], mapped[MAX_RUNS];
    char s[32];
    size_t avail = cli_mem_available();
    if (avail != 0 && size > avail / 2) { /* the memfd and the fresh mapping */
        printf("%-8s  skipped: %s available\n", cli_fmt_size(size, s, sizeof(s)),
               cli_fmt_size(avail, s, sizeof(s)));
        return 0;
    }
    for (unsigned long i = 0; i < b->runs; i++) {
        if (fresh(b, size, &fr[i]) != 0)
            return -1;
        int fd = memfd_create("pageclear-bench", MFD_CLOEXEC);
        if (fd < 0 || fallocate(fd, 0, 0, (off_t)size) != 0) {
            cli_error("serve --bench: thp: a filled memfd: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        uint64_t t0 = cli_now_ns();
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
        mapped[i] = (double)(cli_now_ns() - t0) / 1e6;
        close(fd);
        if (m == MAP_FAILED)
            return -1;
        munmap(m, size);
    }
    printf("%-8s", cli_fmt_size(size, s, sizeof(s)));
    cell(fr, b->runs, 24, "ms");
    cell(mapped, b->runs, 24, "ms");
    printf("\n");
    return 0;
}

static int parse_sizes(struct bench *b, const char *list)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof(buf), "%s", list);
    b->nsizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        size_t pg = cli_page_bytes(b->page);
        if (b->nsizes == MAX_SIZES || cli_size("--sizes", t, pg, &b->sizes[b->nsizes]) != 0)
            return -1;
        b->sizes[b->nsizes] = (b->sizes[b->nsizes] + pg - 1) / pg * pg;
        b->nsizes++;
    }
    return b->nsizes > 0 ? 0 : -1;
}

static int parse(struct bench *b, int argc, char **argv)
{
    static const struct cli_opt spec[] = {
        {'z', "--sizes"}, {'n', "--runs"}, {'p', "--page"}, {0, NULL}};
    const char *sizes = "1G,4G,16G", *val;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0)
            continue;
        int k = cli_opt_value(spec, "serve --bench", argc, argv, &i, &val);
        if (k < 0)
            return -1;
        if (k == 'z')
            sizes = val;
        if (k == 'n' && cli_uint("--runs", val, 1, MAX_RUNS, &b->runs) != 0)
            return -1;
        if (k == 'p' && (cli_parse_page(val, &b->page) != 0 || b->page == CLI_PAGE_4K)) {
            cli_error("serve --bench: --page: want 2MB, 1GB or thp, not '%s'", val);
            return -1;
        }
    }
    return parse_sizes(b, sizes);
}

int cli_serve_bench(int argc, char **argv)
{
    struct bench b = {.runs = 5, .page = CLI_PAGE_2M};
    if (parse(&b, argc, argv) != 0)
        return CLI_EXIT_USAGE;
    snprintf(b.dir, sizeof(b.dir), "/tmp/pageclear-bench.XXXXXX");
    if (b.page != CLI_PAGE_THP && mkdtemp(b.dir) == NULL) {
        cli_error("serve --bench: mkdtemp: %s", strerror(errno));
        return CLI_EXIT_RUNTIME;
    }
    snprintf(b.sock, sizeof(b.sock), "%s/serve.sock", b.dir);
    setenv("PAGECLEAR_SOCKET", b.sock, 1);
    /* The daemon is this process: the client is to trust its uid. */
    char uid[16];
    snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
    setenv("PAGECLEAR_SERVE_UID", uid, 1);
    serve_log_level = SERVE_WARNING;
    printf("time to usable memory, %s pages: median of %lu runs (min-max)\n",
           cli_page_name(b.page), b.runs);
    if (b.page == CLI_PAGE_THP)
        printf("%-8s  %-24s  %-24s\n", "size", "fresh (THP, populate)",
               "filled shmem memfd, map");
    else
        printf("%-8s  %-24s  %-24s  %-22s  %-20s\n", "size", "fresh (mmap populate)",
               "service (get + map)", "of which get", "refill rate");
    int rc = 0;
    for (unsigned i = 0; i < b.nsizes && rc == 0; i++)
        rc = b.page == CLI_PAGE_THP ? bench_thp(&b, b.sizes[i]) : bench_size(&b, b.sizes[i]);
    if (b.page != CLI_PAGE_THP)
        rmdir(b.dir);
    return rc == 0 ? 0 : CLI_EXIT_RUNTIME;
}
