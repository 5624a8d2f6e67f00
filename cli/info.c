/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * info.c - `pageclear info`: what the figures on this machine depend on.
 * CPU, the features the library confirmed, caches, the primitive chosen per
 * size class, glibc and its tunables, huge pages, THP, how the kernel
 * clears huge pages and its preemption model, and whether hardware
 * counters can be read.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "buffer.h"
#include "commands.h"
#include "counters.h"
#include "exec.h"
#include "kernel.h"
#include "libc.h"
#include "../src/libc_memset.h"

/* First line of a file, newline stripped; "" if unreadable. */
static const char *read_line(const char *path, char *buf, size_t n)
{
    cli_first_line(path, buf, n); /* buf is "" where it returns NULL */
    return buf;
}

static void cpu_model(char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, n, "unknown");
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *c = strchr(line, ':');
        if (c != NULL && (strncmp(line, "model name", 10) == 0 ||
                          strncmp(line, "Model", 5) == 0)) {
            c++;
            while (*c == ' ' || *c == '\t')
                c++;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, n, "%s", c);
            break;
        }
    }
    fclose(f);
}

static void caches(void)
{
    char path[128], level[16], type[32], size[32], shared[64];
    printf("caches:");
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (*read_line(path, level, sizeof(level)) == '\0')
            break;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        read_line(path, type, sizeof(type));
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        read_line(path, size, sizeof(size));
        snprintf(path, sizeof(path),
                 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        read_line(path, shared, sizeof(shared));
        printf(" L%s%s %s (cpus %s);", level,
               strcmp(type, "Data") == 0 ? "d" : strcmp(type, "Instruction") == 0 ? "i" : "",
               size, shared);
    }
    printf("\n");
}

/* The C library's memset tunables, from the loader this process runs
 * under (libc.c). */
static void glibc_tunables(void)
{
    const char *env = getenv("GLIBC_TUNABLES");
    char tun[2048];
    printf("memset:         %s (GLIBC_TUNABLES=%s)\n", cli_libc_version(), env ? env : "unset");
    /* What the library's rules take it to do with a long call
     * (src/libc_memset.h); preload_min's default follows it. */
    size_t stosb = pci_libc()->stosb_above;
    if (stosb == PCI_LIBC_UNKNOWN)
        printf("  rep stosb: not known to pageclear's rules (they take it as under glibc 2.36)\n");
    else if (stosb == PC_NEVER)
        printf("  rep stosb: never (vector stores at every length)\n");
    else
        printf("  rep stosb: above %zu B\n", stosb);
    if (cli_libc_tunables(tun, sizeof(tun)) == 0)
        return;
    for (char *l = strtok(tun, "\n"); l != NULL; l = strtok(NULL, "\n"))
        printf("  tunable %s\n", l);
}

static void hugepages(void)
{
    DIR *d = opendir("/sys/kernel/mm/hugepages");
    struct dirent *e;
    printf("hugetlb pages:");
    if (d == NULL) {
        printf(" not available (no /sys/kernel/mm/hugepages)\n");
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "hugepages-", 10) != 0)
            continue;
        char path[320], nr[32], fr[32];
        snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/nr_hugepages", e->d_name);
        read_line(path, nr, sizeof(nr));
        snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/free_hugepages", e->d_name);
        read_line(path, fr, sizeof(fr));
        printf(" %s: %s reserved, %s free;", e->d_name + 10, nr, fr);
    }
    closedir(d);
    printf("\n");
}

/* How the kernel clears huge pages, its preemption model and what the
 * two make of a huge page, each with what it was read from (kernel.c). */
static void kernel_clearing(void)
{
    const struct cli_kernel *k = cli_kernel();
    char u[64];
    const char *m = cli_kmodel_name(k->model);
    printf("kernel clears:  %s (%s)\n", cli_kclear_name(k->clear), k->clear_from);
    printf("preemption:     %s (%s)\n", m ? m : "unknown", k->model_from);
    printf("huge page clear: %s (%s)\n",
           cli_kunits_name(k, u, sizeof(u)) ? u : "unknown", k->units_why);
}

/* "from SIZE", or "never" for SIZE_MAX. */
static const char *nt_from(size_t v, char *buf, size_t n)
{
    char sz[64];
    if (v == SIZE_MAX)
        snprintf(buf, n, "never");
    else
        snprintf(buf, n, "from %s", cli_fmt_size(v, sz, sizeof(sz)));
    return buf;
}

/* What `pageclear exec` would preload, and from which length it sends a
 * memset to pageclear, before a user times a program with it. (The
 * preload's build for the CPU is the dynamic loader's choice when the
 * program starts: preload/filter.c.) */
static void preload(void)
{
    struct pc_threshold_info t;
    char buf[64];
    const char *lib = cli_exec_found(), *env = getenv("PAGECLEAR_PRELOAD_LIB");
    if (pc_threshold_info(PC_THRESHOLD_PRELOAD_MIN, &t) != 0)
        return;
    printf("preload:        ");
    if (lib != NULL)
        printf("%s", lib);
    else if (env != NULL && *env != '\0')
        printf("PAGECLEAR_PRELOAD_LIB=%s cannot be read", env);
    else
        printf("none installed or built (PAGECLEAR_PRELOAD_LIB names one)");
    printf(", from %s (pageclear exec)\n",
           t.value == PC_NEVER ? "never" : cli_fmt_size(t.value, buf, sizeof(buf)));
}

void cli_info_usage(FILE *f)
{
    fprintf(f, "usage: pageclear info\n"
               "  this machine as the library sees it: CPU and features, caches, the\n"
               "  selection and thresholds in force and where they come from, huge\n"
               "  pages; it takes no options\n");
}

int cli_info(int argc, char **argv)
{
    struct pc_host h;
    char buf[512];
    struct utsname u;
    if (argc > 0) { /* it takes no options: what it prints is all there is */
        cli_error("info: unexpected argument '%s'", argv[0]);
        cli_info_usage(stderr);
        return CLI_EXIT_USAGE;
    }

    pc_host_get(&h);
    cpu_model(buf, sizeof(buf));
    printf("cpu:            %s (%s family %u model %u stepping %u%s)\n", buf, h.vendor,
           h.family, h.model, h.stepping, h.hypervisor ? ", under a hypervisor" : "");
    printf("features used:  %s\n", h.features);
    caches();
    printf("llc (cpuid):    %s\n",
           h.llc_size ? cli_fmt_size(h.llc_size, buf, sizeof(buf)) : "unknown");
    if (h.zva_block)
        printf("dc zva block:   %zu bytes\n", h.zva_block);
    printf("thresholds:     vector below %s, ", cli_fmt_size(h.vector_max, buf, sizeof(buf)));
    printf("non-temporal %s", nt_from(h.nt_threshold, buf, sizeof(buf)));
    printf(", batching unit %s\n", cli_fmt_size(h.unit, buf, sizeof(buf)));
    printf("cold clear:     non-temporal %s\n", nt_from(h.cold_nt_threshold, buf, sizeof(buf)));
    printf("parallel clear: non-temporal %s (on more than one thread)\n",
           nt_from(h.parallel_nt_threshold, buf, sizeof(buf)));
    if (h.profile[0] != '\0')
        printf("profile:        %s (%s)\n", h.profile, h.profile_status);
    else
        printf("profile:        %s\n", h.profile_status);
    if (h.forced)
        printf("forced:         %s (PAGECLEAR_IMPL)\n", h.forced);
    printf("pc_clear uses:");
    static const size_t classes[] = {256, 4096, 65536, 1 << 20, 16 << 20, (size_t)1 << 30};
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        printf(" %s: %s;", cli_fmt_size(classes[i], buf, sizeof(buf)), pc_selected(classes[i]));
    printf("\npc_clear_cold uses:");
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        printf(" %s: %s;", cli_fmt_size(classes[i], buf, sizeof(buf)),
               pc_selected_cold(classes[i]));
    printf("\nhint neighbourhood uses: %s\n", pc_selected_temporal(5 * PC_PAGE_SIZE));
    glibc_tunables();
    hugepages();
    printf("thp:            %s\n",
           read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)));
    printf("pool clears:    %s\n", h.pool_tracking ? h.pool_tracking : "unknown");
    kernel_clearing();
    if (uname(&u) == 0)
        printf("kernel:         %s %s\n", u.release, u.machine);
    printf("memory:         %s available\n", cli_fmt_size(cli_mem_available(), buf, sizeof(buf)));
    printf("cpus:           %ld online\n", sysconf(_SC_NPROCESSORS_ONLN));
    printf("hw counters:    %s\n", cli_counters_status(buf, sizeof(buf)));
    preload();
    printf("libpageclear:   %s\n", pc_version());
    return 0;
}
