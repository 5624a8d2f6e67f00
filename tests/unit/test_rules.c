/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_rules.c - the built-in defaults' rules (src/tuning/defaults.c) against the
 * machines they were measured on, read from the file named on the command
 * line (tests/data/thresholds/machines.json; tests/data/README.md gives its
 * schema). Each machine is the CPU description cpuid gives there (what
 * src/arch/x86_64/cpu_x86_64.c derives), the window each threshold's measured
 * crossover allows, and which primitive pc_clear (warm, use) or
 * pc_clear_cold (cold) should pick at sizes from 4 KiB to 1 GiB where the
 * measurements say; docs/notes.md, "Selection thresholds", sums them up.
 * The rules and the selector are pure functions of the description, so
 * nothing here runs an instruction the host lacks.
 */
#include "harness.h"
#include "cpu.h"
#include "impl.h"
#include "plan.h"
#include "tuning.h"
#include "json.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)

enum state { WARM, USE, COLD };

/* A threshold's measured crossover: the default must lie in [lo, hi]. */
struct window {
    enum pc_threshold i;
    size_t lo, hi;
};

/* At size in state, the primitives the measurements accept (within the
 * state's tolerance of the best, or the side the rule takes where no
 * threshold serves every state: conflict is 1 and the data says what the
 * other state loses). A list ends at NONE or after four; the picks at a
 * size of 0. */
#define NONE (-1)
struct pick {
    size_t size;
    enum state state;
    int ok[4];
    int conflict;
};

#define MAX_MACHINES 8
#define MAX_PICKS 24
struct machine {
    char name[32];
    struct pci_cpu cpu;
    struct window win[4];
    struct pick picks[MAX_PICKS];
};
static struct machine machines[MAX_MACHINES];
static size_t nmachines;

/* Every machine was measured under Debian 12's glibc 2.36, whose memset
 * takes rep stosb above 2048 B with ERMS (src/libc_memset.h). */
static const struct pci_libc glibc_2_36 = {36, PCI_GLIBC_STOSB_DEFAULT};

/* ---- the data file: every member known, every value checked ---- */

static const char *data_path;
static struct cli_json doc;

#define DATA_CHECK(cond, ...)                                                  \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s: ", data_path);                                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

/* Object o has members of these names only (a NULL-ended list). */
static void known(const struct cli_json_node *o, const char *what, const char *const *names)
{
    DATA_CHECK(o != NULL && o->type == CLI_JSON_OBJECT, "%s: not an object", what);
    for (const struct cli_json_node *m = cli_json_first(&doc, o); m; m = cli_json_next(&doc, m)) {
        const char *k = cli_json_key(&doc, m);
        size_t i = 0;
        while (names[i] != NULL && strcmp(names[i], k) != 0)
            i++;
        DATA_CHECK(names[i] != NULL, "%s: unknown member \"%s\"", what, k);
    }
}

/* Member name of o as a non-empty string; NULL if absent and optional. */
static const char *text(const struct cli_json_node *o, const char *what, const char *name,
                        int optional)
{
    const struct cli_json_node *n = cli_json_get(&doc, o, name);
    DATA_CHECK(n != NULL || optional, "%s: no \"%s\"", what, name);
    if (n == NULL)
        return NULL;
    const char *s = cli_json_str(&doc, n);
    DATA_CHECK(s != NULL && s[0] != '\0', "%s: \"%s\" is not a non-empty string", what, name);
    return s;
}

static size_t size_of(const struct cli_json_node *o, const char *what, const char *name)
{
    size_t v;
    const char *s = text(o, what, name, 0);
    DATA_CHECK(pc_parse_size(s, &v) == 0 && v != 0, "%s: %s \"%s\" is not a size", what, name, s);
    return v;
}

static unsigned whole(const struct cli_json_node *o, const char *what, const char *name)
{
    const struct cli_json_node *n = cli_json_get(&doc, o, name);
    DATA_CHECK(n != NULL && n->type == CLI_JSON_NUMBER && n->num >= 0 && n->num < 65536 &&
                   n->num == (double)(unsigned)n->num,
               "%s: \"%s\" is not a whole number", what, name);
    return (unsigned)n->num;
}

/* A feature word as pc_host.features shows it (host.c) to its bit. */
static unsigned feature(const char *what, const char *word)
{
    for (unsigned bit = 1; bit != 0; bit <<= 1) {
        char name[32];
        pci_feature_names(bit, name, sizeof(name));
        if (name[0] != '\0' && strcmp(name, word) == 0)
            return bit;
    }
    DATA_CHECK(0, "%s: unknown feature \"%s\"", what, word);
    return 0;
}

static void load_cpu(const struct cli_json_node *o, const char *what, struct pci_cpu *c)
{
    static const char *const names[] = {"vendor", "vendor_name", "hypervisor", "family", "model",
                                        "stepping", "l2", "llc", "features", NULL};
    static const char *const vendors[] = {"other", "intel", "amd", "arm"};
    known(o, what, names);
    const char *v = text(o, what, "vendor", 0);
    size_t i = 0;
    while (i < 4 && strcmp(vendors[i], v) != 0)
        i++;
    DATA_CHECK(i < 4, "%s: unknown vendor \"%s\"", what, v);
    c->vendor = (enum pci_vendor)i;
    v = text(o, what, "vendor_name", 0);
    DATA_CHECK(strlen(v) < sizeof(c->vendor_name), "%s: vendor_name too long", what);
    strcpy(c->vendor_name, v);
    const struct cli_json_node *h = cli_json_get(&doc, o, "hypervisor");
    DATA_CHECK(h && (h->type == CLI_JSON_TRUE || h->type == CLI_JSON_FALSE),
               "%s: \"hypervisor\" is not true or false", what);
    c->hypervisor = h->type == CLI_JSON_TRUE;
    c->family = whole(o, what, "family");
    c->model = whole(o, what, "model");
    c->stepping = whole(o, what, "stepping");
    c->l2_size = size_of(o, what, "l2");
    c->llc_size = size_of(o, what, "llc");
    const struct cli_json_node *f = cli_json_get(&doc, o, "features");
    DATA_CHECK(f && f->type == CLI_JSON_ARRAY, "%s: \"features\" is not a list", what);
    for (const struct cli_json_node *w = cli_json_first(&doc, f); w; w = cli_json_next(&doc, w)) {
        const char *s = cli_json_str(&doc, w);
        DATA_CHECK(s != NULL, "%s: a feature is not a string", what);
        c->features |= feature(what, s);
    }
}

static void load_window(const struct cli_json_node *o, const char *what, struct window *w)
{
    static const char *const names[] = {"threshold", "above", "from", "to", "evidence", NULL};
    known(o, what, names);
    const char *key = text(o, what, "threshold", 0);
    int i = 0;
    while (i < PC_NTHRESHOLDS && strcmp(pci_thresholds[i].key, key) != 0)
        i++;
    DATA_CHECK(i < PC_NTHRESHOLDS, "%s: unknown threshold \"%s\"", what, key);
    w->i = (enum pc_threshold)i;
    int above = cli_json_get(&doc, o, "above") != NULL;
    DATA_CHECK(above != (cli_json_get(&doc, o, "from") != NULL),
               "%s: %s: one of \"above\" and \"from\"", what, key);
    w->lo = above ? size_of(o, what, "above") + 1 : size_of(o, what, "from");
    w->hi = size_of(o, what, "to");
    DATA_CHECK(w->lo <= w->hi, "%s: %s: an empty window", what, key);
    text(o, what, "evidence", 0);
}

static void load_pick(const struct cli_json_node *o, const char *what, struct pick *p)
{
    static const char *const names[] = {"size", "state", "ok", "conflict", "evidence", NULL};
    static const char *const states[] = {"warm", "use", "cold"};
    known(o, what, names);
    p->size = size_of(o, what, "size");
    const char *s = text(o, what, "state", 0);
    int i = 0;
    while (i < 3 && strcmp(states[i], s) != 0)
        i++;
    DATA_CHECK(i < 3, "%s: unknown state \"%s\"", what, s);
    p->state = (enum state)i;
    const struct cli_json_node *ok = cli_json_get(&doc, o, "ok");
    DATA_CHECK(ok && ok->type == CLI_JSON_ARRAY && ok->len >= 1 && ok->len <= 4,
               "%s: \"ok\" is not a list of 1-4 primitives", what);
    int k = 0;
    for (const struct cli_json_node *n = cli_json_first(&doc, ok); n; n = cli_json_next(&doc, n)) {
        const char *name = cli_json_str(&doc, n);
        p->ok[k] = name != NULL ? pc_impl_find(name) : -1;
        DATA_CHECK(p->ok[k] >= 0, "%s: \"%s\" is no primitive", what, name ? name : "?");
        k++;
    }
    while (k < 4)
        p->ok[k++] = NONE;
    p->conflict = text(o, what, "conflict", 1) != NULL;
    text(o, what, "evidence", 1);
}

static void load_machine(const struct cli_json_node *o, struct machine *m)
{
    static const char *const names[] = {"name", "notes", "cpu", "windows", "picks", "conflicts",
                                        NULL};
    known(o, "a machine", names);
    const char *name = text(o, "a machine", "name", 0);
    DATA_CHECK(strlen(name) < sizeof(m->name), "%s: name too long", name);
    strcpy(m->name, name);
    text(o, name, "notes", 0);
    load_cpu(cli_json_get(&doc, o, "cpu"), name, &m->cpu);
    const struct cli_json_node *ws = cli_json_get(&doc, o, "windows");
    DATA_CHECK(ws && ws->type == CLI_JSON_ARRAY && ws->len == 4, "%s: not 4 windows", name);
    size_t k = 0;
    unsigned seen = 0;
    for (const struct cli_json_node *n = cli_json_first(&doc, ws); n; n = cli_json_next(&doc, n)) {
        load_window(n, name, &m->win[k]);
        DATA_CHECK(!(seen & 1u << m->win[k].i), "%s: two windows of one threshold", name);
        seen |= 1u << m->win[k++].i;
    }
    const struct cli_json_node *ps = cli_json_get(&doc, o, "picks");
    DATA_CHECK(ps && ps->type == CLI_JSON_ARRAY && ps->len >= 1 && ps->len < MAX_PICKS,
               "%s: \"picks\" is not a list of 1-%d", name, MAX_PICKS - 1);
    int conflicts = 0;
    k = 0;
    for (const struct cli_json_node *n = cli_json_first(&doc, ps); n; n = cli_json_next(&doc, n)) {
        load_pick(n, name, &m->picks[k]);
        conflicts += m->picks[k++].conflict;
    }
    DATA_CHECK((int)whole(o, name, "conflicts") == conflicts,
               "%s: \"conflicts\" is not the number of picks with a \"conflict\"", name);
}

static void load(const char *path)
{
    static const char *const names[] = {"schema", "about", "glibc", "machines", NULL};
    static char buf[1 << 20];
    char err[256];
    data_path = path;
    FILE *f = fopen(path, "rb");
    DATA_CHECK(f != NULL, "cannot open");
    size_t len = fread(buf, 1, sizeof(buf), f);
    DATA_CHECK(len < sizeof(buf) && !ferror(f), "cannot read it whole");
    fclose(f);
    DATA_CHECK(cli_json_parse(&doc, buf, len, err, sizeof(err)) == 0, "%s", err);
    const struct cli_json_node *root = cli_json_root(&doc);
    known(root, "the file", names);
    DATA_CHECK(whole(root, "the file", "schema") == 1, "schema is not 1");
    text(root, "the file", "about", 0);
    /* what every machine ran: the base the rules are checked under */
    DATA_CHECK(pci_glibc_minor(text(root, "the file", "glibc", 0)) == glibc_2_36.glibc_minor,
               "\"glibc\" is not 2.36");
    const struct cli_json_node *ms = cli_json_get(&doc, root, "machines");
    DATA_CHECK(ms && ms->type == CLI_JSON_ARRAY && ms->len >= 1 && ms->len <= MAX_MACHINES,
               "\"machines\" is not a list of 1-%d", MAX_MACHINES);
    for (const struct cli_json_node *n = cli_json_first(&doc, ms); n; n = cli_json_next(&doc, n))
        load_machine(n, &machines[nmachines++]);
    cli_json_free(&doc);
}

/* The machine called name; every one the checks below name must be there. */
static const struct machine *by_name(const char *name)
{
    for (size_t i = 0; i < nmachines; i++)
        if (strcmp(machines[i].name, name) == 0)
            return &machines[i];
    DATA_CHECK(0, "no machine \"%s\"", name);
    return NULL;
}

static const char *state_name(enum state s)
{
    return s == WARM ? "warm" : s == USE ? "use" : "cold";
}

static void check_windows(const struct machine *m, const struct pci_tuning *t)
{
    for (size_t w = 0; w < sizeof(m->win) / sizeof(m->win[0]); w++) {
        const struct window *x = &m->win[w];
        size_t v = t->v[x->i];
        if (v < x->lo || v > x->hi) {
            fprintf(stderr, "%s: threshold %d = %zu outside [%zu, %zu]\n", m->name,
                    (int)x->i, v, x->lo, x->hi);
            CHECK(0);
        }
    }
}

/* Returns the number of conflict rows, each a loss the docs name. */
static int check_picks(const struct machine *m, const struct pci_tuning *t)
{
    int conflicts = 0;
    for (const struct pick *p = m->picks; p->size != 0; p++) {
        enum pci_plan_kind kind = p->state == COLD ? PCI_PLAN_COLD : PCI_PLAN_CLEAR;
        int id = pci_select_kind(&m->cpu, t, kind, p->size), hit = 0;
        for (int k = 0; k < 4 && p->ok[k] != NONE; k++)
            hit |= p->ok[k] == id;
        if (!hit) {
            fprintf(stderr, "%s: %zu bytes %s picks %s\n", m->name, p->size,
                    state_name(p->state), pci_impls[id].name);
            CHECK(0);
        }
        /* the plan the library runs agrees with the selector */
        struct pci_plan plan;
        pci_plan_build_kind(&m->cpu, t, -1, kind, &plan);
        CHECK_EQ(plan.id[pci_plan_slot(&plan, p->size)], id);
        conflicts += p->conflict;
    }
    return conflicts;
}

/* Under glibc 2.41, whose memset on AMD never takes rep stosb (it loops
 * at every size), preload_min drops to half the L3 where that is below
 * nt_threshold: on the Zen 5 guest, where 8 MiB loses `use` and 16-24 MiB
 * gain or hold in every state (docs/notes.md, "The preload's threshold").
 * Zen 3 and 4 keep their 16 MiB; Intel, where 2.41 takes rep stosb above
 * 2 KiB, keeps its rule; a user's x86_rep_stosb_threshold brings rep
 * stosb back, and with it the 2.36 rule; a C library the rule does not
 * know keeps it too. */
static void under_glibc_2_41(void)
{
    struct pci_tuning t, t36;
    for (size_t i = 0; i < nmachines; i++) {
        const struct machine *m = &machines[i];
        struct pci_libc l = {41, pci_libc_stosb_above(m->cpu.vendor, 1, "2.41", NULL)};
        pci_tuning_defaults(&m->cpu, &l, &t);
        pci_tuning_defaults(&m->cpu, &glibc_2_36, &t36);
        for (int k = 0; k < PC_NTHRESHOLDS; k++)
            if (k != PC_THRESHOLD_PRELOAD_MIN)
                CHECK_EQ(t.v[k], t36.v[k]);
        if (m->cpu.family == 26) {
            CHECK(t.v[PC_THRESHOLD_PRELOAD_MIN] > 8 * MIB);
            CHECK(t.v[PC_THRESHOLD_PRELOAD_MIN] <= 16 * MIB);
        } else {
            CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], t36.v[PC_THRESHOLD_PRELOAD_MIN]);
        }
    }
    /* Zen 5 with a 96 MiB L3 (nt_threshold 96 MiB): half of it; with no
     * L3 from cpuid: the 16 MiB measured; a 16 MiB L3: no lower. */
    struct pci_cpu c = by_name("amd-zen5-guest")->cpu;
    struct pci_libc l = {41, pci_libc_stosb_above(c.vendor, 1, "2.41", NULL)};
    CHECK_EQ(l.stosb_above, PC_NEVER);
    c.llc_size = 96 * MIB;
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 48 * MIB);
    c.llc_size = 0;
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 32 * MIB);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 16 * MIB);
    c.llc_size = 16 * MIB;
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 16 * MIB);
    /* rep stosb set back on under 2.41 (what `pageclear tune` may
     * suggest), or a C library the rule does not know: 32 MiB again */
    c = by_name("amd-zen5-guest")->cpu;
    l.stosb_above = pci_libc_stosb_above(c.vendor, 1, "2.41",
                                         "glibc.cpu.x86_rep_stosb_threshold=1048576");
    CHECK_EQ(l.stosb_above, 1 * MIB);
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 32 * MIB);
    /* 2.40 as 2.41 (the same default on AMD); 2.38 as 2.36 */
    l = (struct pci_libc){40, pci_libc_stosb_above(c.vendor, 1, "2.40", NULL)};
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 16 * MIB);
    l = (struct pci_libc){38, pci_libc_stosb_above(c.vendor, 1, "2.38", NULL)};
    pci_tuning_defaults(&c, &l, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 32 * MIB);
    const char *unknown[] = {"2.39", NULL, "1.0"};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        l = (struct pci_libc){pci_glibc_minor(unknown[i]),
                              pci_libc_stosb_above(c.vendor, 1, unknown[i], NULL)};
        CHECK_EQ(l.stosb_above, PCI_LIBC_UNKNOWN);
        pci_tuning_defaults(&c, &l, &t);
        CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 32 * MIB);
    }
}

int main(int argc, char **argv)
{
    CHECK(argc == 2);
    load(argv[1]);
    int conflicts[MAX_MACHINES];
    for (size_t i = 0; i < nmachines; i++) {
        const struct machine *m = &machines[i];
        struct pci_tuning t;
        pci_tuning_defaults(&m->cpu, &glibc_2_36, &t);
        CHECK_EQ(t.set, PCI_TUNING_ALL);
        check_windows(m, &t);
        conflicts[i] = check_picks(m, &t);
        /* parallel shares stream where pc_clear does (no measurement
         * moves them apart by default) */
        CHECK_EQ(t.v[PC_THRESHOLD_PARALLEL_NT], t.v[PC_THRESHOLD_NT]);
    }
    /* Only the Intel guest's warm 4 MiB, Zen 3's use below 8 MiB and Zen
     * 5's use from 16 KiB to 1 MiB and at 16 MiB are losses no threshold
     * avoids (the picks with a "conflict" in the data; docs/notes.md,
     * "Selection thresholds"). */
    CHECK_EQ(conflicts[by_name("intel-xeon-guest") - machines], 1);
    CHECK_EQ(conflicts[by_name("amd-zen4-guest") - machines], 0);
    CHECK_EQ(conflicts[by_name("amd-zen3-guest") - machines], 3);
    CHECK_EQ(conflicts[by_name("amd-zen5-guest") - machines], 3);

    /* The rules follow the caches, not the machines' names: Zen 4 with a
     * 96 MiB L3 streams from 48 MiB; an Intel part with a 1 MiB L2 from
     * 2 MiB, one with an LLC below twice its L2 from the LLC. */
    struct pci_tuning t;
    struct pci_cpu c = by_name("amd-zen4-guest")->cpu;
    c.llc_size = 96 * MIB;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 48 * MIB);
    c = by_name("intel-xeon-guest")->cpu;
    c.l2_size = 1 * MIB;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 2 * MIB);
    c.llc_size = 1536 * KIB;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 1536 * KIB);
    c.l2_size = 0; /* no L2 from cpuid: the measured 4 MiB, under the LLC */
    c.llc_size = 0;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 4 * MIB);

    /* Zen 5's rules follow its caches too (a 2 MiB L2, a 96 MiB L3), fall
     * back on the sizes measured where cpuid gives none, need a vector
     * unit to move vector_max, and are Zen 5's alone: the same caches in
     * family 25 get Zen 4's rules. */
    c = by_name("amd-zen5-guest")->cpu;
    c.l2_size = 2 * MIB;
    c.llc_size = 96 * MIB;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_VECTOR_MAX], 1536 * KIB);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 96 * MIB);
    CHECK_EQ(t.v[PC_THRESHOLD_PRELOAD_MIN], 96 * MIB);
    c.l2_size = 0;
    c.llc_size = 0;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_VECTOR_MAX], 768 * KIB);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 32 * MIB);
    c.features &= ~(unsigned)(PCI_F_AVX2 | PCI_F_AVX512);
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_VECTOR_MAX], 32 * KIB);
    c = by_name("amd-zen5-guest")->cpu;
    c.family = 25;
    pci_tuning_defaults(&c, &glibc_2_36, &t);
    CHECK_EQ(t.v[PC_THRESHOLD_VECTOR_MAX], 32 * KIB);
    CHECK_EQ(t.v[PC_THRESHOLD_NT], 16 * MIB);

    under_glibc_2_41();

    /* The host's description: an L2, where cpuid gives one, fits the LLC. */
    const struct pci_cpu *h = pci_cpu();
    if (h->l2_size != 0 && h->llc_size != 0)
        CHECK(h->l2_size <= h->llc_size);
    printf("ok   rules (%zu machines)\n", nmachines);
    return 0;
}
