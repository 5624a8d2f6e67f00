/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * client.c - a program of another release run against this library: the
 * size contract at the top of pageclear.h, checked from outside.
 *
 * Built against the header PC_ABI_HEADER names (never include/: the
 * frozen 1.0 copy, or a "grown" one whose every struct has a field more)
 * and linked against the library PC_ABI_LIB_DIR holds (the current one, or
 * one built from the grown header, PC_ABI_LIB_GROWN), so that
 * tests/abi/CMakeLists.txt runs each pairing: a 1.0 program on this
 * library, on a library whose structs have grown, and a program newer than
 * the library. Every function taking a struct is called with it at the
 * end of a page followed by a PROT_NONE page (slot.h), with the size the
 * header gives, with less than 1.0's (refused, nothing written), exactly
 * 1.0's fields, and more than the library knows (zero-filled on output;
 * on input -E2BIG unless the bytes past the library's size are zero).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>

#include PC_ABI_HEADER
#include "slot.h"

#ifdef PCI_ABI_TEST_GROW /* the grown header says so */
#define PROG_GROWN 1
#define GROWN ((size_t)PCI_ABI_TEST_GROW)
#else
#define PROG_GROWN 0
#define GROWN sizeof(size_t) /* what the grown library's structs add */
#endif
#define LIB_GROWN PC_ABI_LIB_GROWN

/* A struct's size in this tree's header, the library's own before the
 * grown build adds its field (cur_sizes.c): 1.0's size until a release
 * grows the struct. A grown program has exactly that plus its field. */
#define CUR_SIZE(type) pc_abi_cur_##type
extern const size_t pc_abi_cur_pc_batch, pc_abi_cur_pc_impl_info, pc_abi_cur_pc_pool_opts,
    pc_abi_cur_pc_pool_stats, pc_abi_cur_pc_host, pc_abi_cur_pc_tuning,
    pc_abi_cur_pc_threshold_info, pc_abi_cur_pc_present_report;
/* The end of a field: the least size the library takes is the end of the
 * struct's last 1.0 field. */
#define END(type, field) (offsetof(struct type, field) + sizeof(((struct type *)0)->field))
/* More than any library knows: the library must look at all of it. */
#define MORE 64

static size_t lib_size(size_t cur)
{
    return cur + (LIB_GROWN ? GROWN : 0);
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* After a call that filled the struct at p given size passed (the
 * library's size before growing s10, a slot of slot_n bytes): nothing
 * before it or past passed was
 * written; a grown library's field reached the caller as far as passed
 * covers it; bytes past the library's struct were zeroed. */
static void check_out(const char *what, const unsigned char *p, size_t passed, size_t s10,
                      size_t slot_n)
{
    size_t lib = lib_size(s10);
    int ok = before_untouched(p) && all(p + passed, slot_n - passed, CANARY);
    if (LIB_GROWN && passed > s10)
        ok = ok && all(p + s10, min_size(passed, lib) - s10, GROWN_BYTE);
    if (passed > lib)
        ok = ok && all(p + lib, passed - lib, 0);
    if (!ok) {
        fprintf(stderr, "%s, size %zu: bytes written where they should not be\n", what,
                passed);
        exit(1);
    }
}

/* ------------------------------------------------------------------------ */
/* Output structs                                                            */

static struct pc_pool *pool; /* for pc_pool_stats */
static char profile[4096];   /* for pc_profile_parse: this host's defaults */
static int profile_len;

static int call_batch_init(void *p, size_t n) { (pc_batch_init)(p, n); return 0; }
static int call_opts_init(void *p, size_t n) { (pc_pool_opts_init)(p, n); return 0; }
static int call_impl_get(void *p, size_t n) { return (pc_impl_get)(0, p, n); }
static int call_pool_stats(void *p, size_t n) { return (pc_pool_stats)(pool, p, n); }
static int call_host_get(void *p, size_t n) { return (pc_host_get)(p, n); }
static int call_tuning_defaults(void *p, size_t n) { return (pc_tuning_defaults)(p, n); }
static int call_threshold_info(void *p, size_t n) { return (pc_threshold_info)(1, p, n); }
static int call_profile_parse(void *p, size_t n)
{
    return (pc_profile_parse)(profile, (size_t)profile_len, p, n, NULL, 0);
}

#ifdef PC_PRESENT_DRY_RUN /* 1.1's header: pc_clear_present */
/* A page of a private anonymous mapping, never touched: a dry run says it
 * would skip it, and writes nothing (where the kernel cannot say, as under
 * qemu-user or before Linux 6.7, that it would clear it, and why). */
static unsigned char *present_page;

static int call_present(void *p, size_t n)
{
    return (pc_clear_present)(present_page, SLOT_PAGE, PC_PRESENT_DRY_RUN, p, n);
}

static void verify_present(const void *p)
{
    const struct pc_present_report *r = p;
    CHECK(r->skipped + r->cleared == SLOT_PAGE);
    if (r->why == PC_PRESENT_PROVEN)
        CHECK(r->skipped == SLOT_PAGE && (r->used & PC_PRESENT_USED_SCAN));
    else
        CHECK((r->why == PC_PRESENT_NO_SCAN || r->why == PC_PRESENT_REFUSED) &&
              r->unproven == SLOT_PAGE && r->error != 0);
}
#endif

static void verify_batch(const void *p)
{
    const struct pc_batch *b = p;
    CHECK(b->unit == 0 && b->model == PC_PREEMPT_NONE && b->resched == NULL && b->ctx == NULL);
}

static void verify_opts(const void *p)
{
    const struct pc_pool_opts *o = p;
    CHECK(o->capacity == (size_t)256 << 20 && o->backing == PC_BACKING_AUTO);
    CHECK(o->policy == PC_POOL_INIT_ON_ALLOC && o->populate == 1);
}

static void verify_impl(const void *p)
{
    const struct pc_impl_info *in = p;
    CHECK(in->name != NULL && pc_impl_find(in->name) == 0);
    CHECK(in->arch != NULL && in->features != NULL && in->description != NULL);
    CHECK(in->supported == 0 || in->supported == 1);
    CHECK(in->cache <= PC_CACHE_ADAPTIVE);
}

static void verify_stats(const void *p)
{
    const struct pc_pool_stats *st = p;
    CHECK(st->backing == PC_BACKING_4K && st->policy == PC_POOL_INIT_ON_FREE);
    CHECK(st->capacity == (size_t)1 << 20 && st->in_use == 0 && st->allocs == 0);
}

static size_t threshold_value(int i, int dflt)
{
    struct pc_threshold_info in;
    CHECK_EQ(pc_threshold_info(i, &in), 0);
    return dflt ? in.dflt : in.value;
}

static void verify_host(const void *p)
{
    const struct pc_host *h = p;
    CHECK(memchr(h->vendor, 0, sizeof(h->vendor)) != NULL && h->vendor[0] != 0);
    CHECK(memchr(h->profile_status, 0, sizeof(h->profile_status)) != NULL);
    CHECK(h->profile_status[0] != 0 && h->numa_nodes >= 1);
    CHECK(h->unit == pc_default_unit());
    CHECK(h->vector_max == threshold_value(PC_THRESHOLD_VECTOR_MAX, 0));
    CHECK(h->nt_threshold == threshold_value(PC_THRESHOLD_NT, 0));
    CHECK(h->cold_nt_threshold == threshold_value(PC_THRESHOLD_COLD_NT, 0));
    CHECK(h->parallel_nt_threshold == threshold_value(PC_THRESHOLD_PARALLEL_NT, 0));
}

static void verify_tuning(const void *p)
{
    const struct pc_tuning *t = p;
    CHECK(t->vector_max == threshold_value(PC_THRESHOLD_VECTOR_MAX, 1));
    CHECK(t->nt_threshold == threshold_value(PC_THRESHOLD_NT, 1));
    CHECK(t->cold_nt_threshold == threshold_value(PC_THRESHOLD_COLD_NT, 1));
    CHECK(t->parallel_nt_threshold == threshold_value(PC_THRESHOLD_PARALLEL_NT, 1));
}

static void verify_threshold(const void *p)
{
    const struct pc_threshold_info *in = p;
    CHECK(in->key != NULL && strcmp(in->key, "nt_threshold") == 0);
    CHECK(in->env != NULL && strcmp(in->env, "PAGECLEAR_NT_THRESHOLD") == 0);
    CHECK(in->description != NULL && in->min <= in->max && (in->never == 0 || in->never == 1));
}

struct out_case {
    const char *what;
    int (*call)(void *p, size_t size);
    int is_void; /* the init functions: refusing is doing nothing */
    int null_ok; /* a NULL struct is no error (pc_clear_present's report) */
    size_t size, s10, min;
    void (*verify)(const void *p);
};

static void run_out(const struct out_case *c)
{
    const size_t sizes[] = {c->size, c->size + MORE, c->min, c->min - 1, 0, SLOT_PAGE + 1};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k], slot_n = n > c->size ? n : c->size;
        if (slot_n > SLOT_PAGE)
            slot_n = c->size; /* a size past the bound: no slot holds it */
        unsigned char *p = slot(slot_n);
        int rc = c->call(p, n);
        if (n < c->min || n > SLOT_PAGE) {
            /* Refused: -EINVAL, and not a byte written. */
            CHECK(c->is_void || rc == -EINVAL);
            CHECK(all(slot_page, SLOT_PAGE, CANARY));
            continue;
        }
        CHECK_EQ(rc, 0);
        check_out(c->what, p, n, c->s10, slot_n);
        c->verify(p); /* n covers every 1.0 field */
    }
    CHECK(c->is_void || c->call(NULL, c->size) == (c->null_ok ? 0 : -EINVAL));
}

#define OUT_CASE(type, last, fn, is_void, verify) \
    {#fn, fn, is_void, 0, sizeof(struct type), CUR_SIZE(type), END(type, last), verify}

static int test_outputs(void)
{
    struct pc_pool_opts o;
    pc_pool_opts_init(&o);
    o.capacity = (size_t)1 << 20;
    o.backing = PC_BACKING_4K;
    o.policy = PC_POOL_INIT_ON_FREE;
    o.populate = 0;
    pool = pc_pool_create(&o);
    CHECK(pool != NULL);
    struct pc_tuning t;
    CHECK_EQ(pc_tuning_defaults(&t), 0);
    profile_len = pc_profile_format(&t, NULL, profile, sizeof(profile));
    CHECK(profile_len > 0 && (size_t)profile_len < sizeof(profile));

    const struct out_case cases[] = {
        OUT_CASE(pc_batch, ctx, call_batch_init, 1, verify_batch),
        OUT_CASE(pc_pool_opts, populate, call_opts_init, 1, verify_opts),
        OUT_CASE(pc_impl_info, supported, call_impl_get, 0, verify_impl),
        OUT_CASE(pc_pool_stats, cleared_bytes, call_pool_stats, 0, verify_stats),
        OUT_CASE(pc_host, profile_status, call_host_get, 0, verify_host),
        OUT_CASE(pc_tuning, parallel_nt_threshold, call_tuning_defaults, 0, verify_tuning),
        OUT_CASE(pc_threshold_info, value, call_threshold_info, 0, verify_threshold),
        OUT_CASE(pc_tuning, parallel_nt_threshold, call_profile_parse, 0, verify_tuning),
#ifdef PC_PRESENT_DRY_RUN
        {"call_present", call_present, 0, 1, sizeof(struct pc_present_report),
         CUR_SIZE(pc_present_report), END(pc_present_report, used), verify_present},
#endif
    };
#ifdef PC_PRESENT_DRY_RUN
    present_page = mmap(NULL, SLOT_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    CHECK(present_page != MAP_FAILED);
#endif
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_out(&cases[i]);
    pc_pool_destroy(pool);
    return (int)(sizeof(cases) / sizeof(cases[0]));
}

/* ------------------------------------------------------------------------ */
/* Input structs                                                             */

#define BUF_LEN (5 * SLOT_PAGE + 100) /* six units of a page */
static unsigned char buf[BUF_LEN] __attribute__((aligned(4096))); /* on the page grid */
static int resched_calls;
static size_t cleared;

static int count_resched(void *ctx, size_t done, size_t total)
{
    CHECK(ctx == &resched_calls && done < total && total == BUF_LEN);
    resched_calls++;
    return 0;
}

/* Make the caller's struct at p, of size n, as the 1.0 fields say. */
static void prepare_batch(void *p, size_t n)
{
    (pc_batch_init)(p, n);
    struct pc_batch *b = p;
    b->unit = SLOT_PAGE;
    b->model = PC_PREEMPT_VOLUNTARY;
    b->resched = count_resched;
    b->ctx = &resched_calls;
}

static void prepare_opts(void *p, size_t n)
{
    (pc_pool_opts_init)(p, n);
    struct pc_pool_opts *o = p;
    o->capacity = (size_t)1 << 20;
    o->backing = PC_BACKING_4K;
    o->policy = PC_POOL_INIT_ON_FREE;
    o->populate = 0;
}

static void prepare_tuning(void *p, size_t n)
{
    CHECK_EQ((pc_tuning_defaults)(p, n), 0);
    struct pc_tuning *t = p; /* values a profile takes, none a default */
    t->vector_max = (size_t)8 << 10;
    t->nt_threshold = (size_t)12 << 20;
    t->cold_nt_threshold = (size_t)20 << 20;
    t->parallel_nt_threshold = (size_t)28 << 20;
}

/* The effect of each call: done (1) or not a trace of it (0). */
static void reset_buf(void)
{
    memset(buf, 0x5A, sizeof(buf));
    resched_calls = 0;
    cleared = SIZE_MAX;
}

static int call_batched(const void *p, size_t n)
{
    reset_buf();
    int rc = (pc_clear_batched)(buf, BUF_LEN, p, n, &cleared);
    int done = all(buf, BUF_LEN, 0) && cleared == BUF_LEN && resched_calls == 6;
    CHECK(rc == 0 ? done : all(buf, BUF_LEN, 0x5A) && cleared == 0 && resched_calls == 0);
    return rc;
}

static int call_hint_batched(const void *p, size_t n)
{
    reset_buf();
    int rc = (pc_clear_hint_batched)(buf, BUF_LEN, buf + 3 * SLOT_PAGE, p, n, &cleared);
    int done = all(buf, BUF_LEN, 0) && cleared == BUF_LEN && resched_calls == 6;
    CHECK(rc == 0 ? done : all(buf, BUF_LEN, 0x5A) && cleared == 0 && resched_calls == 0);
    return rc;
}

static int call_pool_create(const void *p, size_t n)
{
    errno = 0;
    struct pc_pool *pl = (pc_pool_create)(p, n);
    if (pl == NULL)
        return -errno;
    struct pc_pool_stats st;
    CHECK_EQ(pc_pool_stats(pl, &st), 0);
    verify_stats(&st);
    /* populate = 0 taken too: a page handed out clean was never touched. */
    unsigned char *a = pc_pool_alloc(pl, SLOT_PAGE), resident = 1;
    CHECK(a != NULL && mincore(a, SLOT_PAGE, &resident) == 0 && (resident & 1) == 0);
    CHECK_EQ(pc_pool_free(pl, a), 0);
    pc_pool_destroy(pl);
    return 0;
}

static int call_profile_format(const void *p, size_t n)
{
    char out[4096];
    memset(out, 0x5A, sizeof(out));
    int rc = (pc_profile_format)(p, n, NULL, out, sizeof(out));
    if (rc < 0) {
        CHECK(all(out, sizeof(out), 0x5A));
        return rc;
    }
    CHECK(rc > 0 && (size_t)rc < sizeof(out) && strstr(out, "\nvector_max = 8K\n") != NULL);
    CHECK(strstr(out, "\nnt_threshold = 12M\n") && strstr(out, "\ncold_nt_threshold = 20M\n"));
    CHECK(strstr(out, "\nparallel_nt_threshold = 28M\n") != NULL);
    return 0;
}

struct in_case {
    const char *what;
    void (*prepare)(void *p, size_t size);
    int (*call)(const void *p, size_t size);
    size_t size, s10, min;
};

/* One call with the struct made for size n (at the end of a slot), its
 * bytes [from, to) then set to 1; the result must be want. */
static void in_call(const struct in_case *c, size_t n, size_t from, size_t to, int want)
{
    unsigned char *p = slot(n > c->size ? n : c->size);
    c->prepare(p, n);
    memset(p + from, 1, to - from);
    int rc = c->call(p, n);
    if (rc != want) {
        fprintf(stderr, "%s, size %zu, bytes [%zu, %zu) set: %d, not %d\n", c->what, n,
                from, to, rc, want);
        exit(1);
    }
}

static void run_in(const struct in_case *c)
{
    size_t lib = lib_size(c->s10), more = c->size + MORE;
    in_call(c, c->size, 0, 0, 0);
    /* The field a grown program has and the library may not: set, it is
     * refused unless the library knows it. */
    if (PROG_GROWN)
        in_call(c, c->size, c->s10, c->size, LIB_GROWN ? 0 : -E2BIG);
    in_call(c, more, 0, 0, 0);                  /* zero past the library: taken */
    in_call(c, more, more - 1, more, -E2BIG);   /* a byte past it set: refused */
    in_call(c, more, c->s10, lib, 0);           /* what it knows set: taken */
    in_call(c, c->min, 0, 0, 0);
    CHECK_EQ(c->call(slot(c->size), c->min - 1), -EINVAL);
    CHECK_EQ(c->call(slot(c->size), SLOT_PAGE + 1), -EINVAL);
}

#define IN_CASE(type, last, prepare, fn) \
    {#fn, prepare, fn, sizeof(struct type), CUR_SIZE(type), END(type, last)}

static int test_inputs(void)
{
    const struct in_case cases[] = {
        IN_CASE(pc_batch, ctx, prepare_batch, call_batched),
        IN_CASE(pc_batch, ctx, prepare_batch, call_hint_batched),
        IN_CASE(pc_pool_opts, populate, prepare_opts, call_pool_create),
        IN_CASE(pc_tuning, parallel_nt_threshold, prepare_tuning, call_profile_format),
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_in(&cases[i]);
    /* NULL: the defaults, whatever the size. */
    reset_buf();
    CHECK_EQ((pc_clear_batched)(buf, BUF_LEN, NULL, 0, &cleared), 0);
    CHECK(all(buf, BUF_LEN, 0) && cleared == BUF_LEN);
    return (int)(sizeof(cases) / sizeof(cases[0]));
}

/* pc_tuning_get and _set: one field, in place; nothing else is read. */
static void test_tuning_fields(void)
{
    size_t n = sizeof(struct pc_tuning);
    struct pc_tuning *t = slot(n + MORE);
    CHECK_EQ((pc_tuning_defaults)(t, n + MORE), 0);
    memset((unsigned char *)t + n, 1, MORE); /* neither read nor checked */
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        size_t v = 0, want = threshold_value(i, 1);
        CHECK_EQ((pc_tuning_get)(t, n + MORE, i, &v), 0);
        CHECK(v == want);
        struct pc_threshold_info in;
        CHECK_EQ(pc_threshold_info(i, &in), 0);
        CHECK_EQ((pc_tuning_set)(t, n, i, in.min), 0);
        CHECK_EQ(pc_tuning_get(t, i, &v), 0);
        CHECK(v == in.min);
        CHECK_EQ((pc_tuning_get)(t, END(pc_tuning, parallel_nt_threshold) - 1, i, &v),
                 -EINVAL);
        CHECK_EQ((pc_tuning_set)(t, END(pc_tuning, parallel_nt_threshold) - 1, i, 0),
                 -EINVAL);
    }
    CHECK(before_untouched(t) && all((unsigned char *)t + n, MORE, 1));
}

/* The constants no function's signature carries, which abidw therefore
 * cannot see (enum pc_threshold, passed as int, and the #defines): the
 * library still reads this program's values as the header meant them. */
static void test_constants(void)
{
    static const char *const keys[] = {
        [PC_THRESHOLD_VECTOR_MAX] = "vector_max", [PC_THRESHOLD_NT] = "nt_threshold",
        [PC_THRESHOLD_COLD_NT] = "cold_nt_threshold",
        [PC_THRESHOLD_PARALLEL_NT] = "parallel_nt_threshold",
#if PC_NTHRESHOLDS >= 5 /* 1.1's header; 1.0's has 4 */
        [PC_THRESHOLD_PRELOAD_MIN] = "preload_min",
#endif
    };
    _Static_assert(sizeof(keys) / sizeof(keys[0]) == PC_NTHRESHOLDS, "a key per threshold");
    struct pc_tuning t;
    CHECK_EQ(pc_tuning_defaults(&t), 0);
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        struct pc_threshold_info in;
        CHECK_EQ(pc_threshold_info(i, &in), 0);
        CHECK(strcmp(in.key, keys[i]) == 0);
        CHECK_EQ(pc_tuning_set(&t, i, PC_NEVER), in.never ? 0 : -ERANGE);
    }
    /* PC_PAGE_SIZE: a page of pc_clear_pages is that many bytes. */
    unsigned char *p = slot(SLOT_PAGE);
    CHECK(PC_PAGE_SIZE == SLOT_PAGE && pc_clear_pages(p, 1) == 0 && all(p, SLOT_PAGE, 0));
    /* PC_POPULATE_TOUCH is a flag the library takes. */
    CHECK_EQ(pc_populate(p, SLOT_PAGE, 1, PC_POPULATE_TOUCH), 0);
    CHECK(strcmp(pc_backing_name(PC_BACKING_4K), "4K") == 0);
    CHECK(strcmp(pc_backing_name(PC_BACKING_HUGETLB_2M), "hugetlb-2M") == 0);
}

/* The library this program runs on is the one it was meant to. */
static void check_library(void)
{
    Dl_info dl;
    CHECK(dladdr((void *)(uintptr_t)pc_clear, &dl) != 0 && dl.dli_fname != NULL);
    const char *dir = PC_ABI_LIB_DIR "/";
    if (strncmp(dl.dli_fname, dir, strlen(dir)) != 0) {
        fprintf(stderr, "running on %s, not the library in %s\n", dl.dli_fname, dir);
        exit(1);
    }
}

/* A grown program's field starts at the library's own size: where a newer
 * field must. */
static void grown_at_end(void)
{
#if PROG_GROWN
#define GROWN_AT_END(type) \
    CHECK_EQ(offsetof(struct type, pc_abi_grown), CUR_SIZE(type)); \
    CHECK_EQ(sizeof(struct type), CUR_SIZE(type) + GROWN);
    GROWN_AT_END(pc_batch)
    GROWN_AT_END(pc_impl_info)
    GROWN_AT_END(pc_pool_opts)
    GROWN_AT_END(pc_pool_stats)
    GROWN_AT_END(pc_host)
    GROWN_AT_END(pc_tuning)
    GROWN_AT_END(pc_threshold_info)
    GROWN_AT_END(pc_present_report)
#endif
}

int main(void)
{
    check_library();
    grown_at_end();
    int nout = test_outputs();
    int nin = test_inputs();
    test_tuning_fields();
    test_constants();
    printf("abi client: a %s program on a %s library: %d output and %d input calls checked "
           "at 6 sizes each, pc_tuning_get/_set, the constants\n",
           PROG_GROWN ? "newer (grown)" : "1.0", LIB_GROWN ? "newer (grown)" : "current",
           nout, nin);
    return 0;
}
