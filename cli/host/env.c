/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * env.c - the environment a measurement ran in: what a result depends on
 * beyond the code measured (the kernel, its command line and preemption
 * model, THP, reserved huge pages, the profile, the C library), so that
 * two results files say what changed between them. Read from /proc, /sys
 * and the kernel's build configuration; nothing here needs privileges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pageclear.h"

#include "commands.h"
#include "env.h"
#include "json.h"
#include "kernel.h"
#include "libc.h"

#define VALUE_MAX 1024 /* the kernel's command line is at most 2 KiB on x86;
                          what a comparison reads of it fits in 1 KiB */

static const char *const names[CLI_ENV_COUNT] = {
#define CLI_ENV_NAME(k, what) #k,
    CLI_ENV_KEYS(CLI_ENV_NAME)
#undef CLI_ENV_NAME
};
static const char *const whats[CLI_ENV_COUNT] = {
#define CLI_ENV_WHAT(k, what) what,
    CLI_ENV_KEYS(CLI_ENV_WHAT)
#undef CLI_ENV_WHAT
};

const char *cli_env_name(enum cli_env_key k)
{
    return k < CLI_ENV_COUNT ? names[k] : "?";
}

const char *cli_env_what(enum cli_env_key k)
{
    return k < CLI_ENV_COUNT ? whats[k] : "?";
}

int cli_env_incidental(enum cli_env_key k)
{
    return k == CLI_ENV_command || k == CLI_ENV_started;
}

static char values[CLI_ENV_COUNT][VALUE_MAX];
static int known[CLI_ENV_COUNT];

static void set(enum cli_env_key k, const char *v)
{
    snprintf(values[k], VALUE_MAX, "%s", v);
    known[k] = 1;
}

/* The choice in brackets ("always [madvise] never" -> "madvise"). */
static int chosen(const char *line, char open, char close, char *out, size_t n)
{
    const char *a = line ? strchr(line, open) : NULL;
    const char *b = a ? strchr(a, close) : NULL;
    if (b == NULL)
        return 0;
    snprintf(out, n, "%.*s", (int)(b - a - 1), a + 1);
    return 1;
}

/* The preemption model and how the kernel clears huge pages, as
 * kernel.c decides them (the same as `pageclear info` says). */
static void kernel_clearing(void)
{
    const struct cli_kernel *k = cli_kernel();
    char v[64];
    if (cli_kmodel_name(k->model) != NULL)
        set(CLI_ENV_preempt, cli_kmodel_name(k->model));
    set(CLI_ENV_preempt_from, k->model_from);
    set(CLI_ENV_clearing, cli_kclear_name(k->clear));
    set(CLI_ENV_clearing_from, k->clear_from);
    if (cli_kunits_name(k, v, sizeof(v)) != NULL)
        set(CLI_ENV_huge_page_units, v);
}

/* init_on_alloc / init_on_free: the command line's, else the build's. */
static void init_on(enum cli_env_key k, const char *cmdline, int config, int dflt)
{
    char v[16];
    size_t len;
    const char *p = cli_cmdline_param(cmdline, cli_env_name(k), &len);
    if (p != NULL) {
        snprintf(v, sizeof(v), "%.*s", (int)len, p);
        set(k, v);
    } else if (config)
        set(k, dflt ? "1" : "0");
}

static void cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *c = strchr(line, ':');
        if (c != NULL &&
            (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0)) {
            c += 1 + strspn(c + 1, " \t");
            c[strcspn(c, "\n")] = '\0';
            set(CLI_ENV_cpu, c);
            break;
        }
    }
    fclose(f);
}

/* When this process started: its start in clock ticks after boot
 * (/proc/self/stat) plus the boot time (/proc/stat); now if unreadable. */
static void started(void)
{
    char buf[1024], line[256], when[32];
    unsigned long long ticks = 0, btime = 0;
    time_t t = time(NULL);
    const char *rp = cli_first_line("/proc/self/stat", buf, sizeof(buf));
    rp = rp ? strrchr(rp, ')') : NULL; /* the name may hold spaces */
    FILE *f = fopen("/proc/stat", "r");
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "btime %llu", &btime) == 1)
            break;
    if (f != NULL)
        fclose(f);
    /* After ')': state is field 3, starttime field 22. */
    if (rp != NULL && btime > 0 &&
        sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                       "%*d %*d %*d %*d %llu", &ticks) == 1)
        t = (time_t)(btime + ticks / (unsigned long long)sysconf(_SC_CLK_TCK));
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    set(CLI_ENV_started, when);
}

static void command_line(void)
{
    char cmd[VALUE_MAX] = "pageclear";
    size_t used = strlen(cmd);
    for (char **a = cli_argv ? cli_argv + 1 : NULL; a && *a && used < sizeof(cmd); a++) {
        int w = snprintf(cmd + used, sizeof(cmd) - used, " %s", *a);
        used += w > 0 ? (size_t)w : 0;
    }
    set(CLI_ENV_command, cmd);
}

static void hugepages(void)
{
    static const char *const sizes[] = {"2048kB", "1048576kB"};
    char out[128] = "", path[128], nr[32];
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%s/nr_hugepages",
                 sizes[i]);
        if (cli_first_line(path, nr, sizeof(nr)) != NULL)
            snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s=%s",
                     out[0] ? " " : "", sizes[i], nr);
    }
    if (out[0])
        set(CLI_ENV_hugepages, out);
}

static void host(void)
{
    struct pc_host h;
    char v[VALUE_MAX];
    pc_host_get(&h);
    snprintf(v, sizeof(v), "%s family %u model %u stepping %u", h.vendor, h.family, h.model,
             h.stepping);
    set(CLI_ENV_cpu_id, v);
    set(CLI_ENV_hypervisor, h.hypervisor ? "yes" : "no");
    if (h.profile[0])
        snprintf(v, sizeof(v), "%s (%s)", h.profile, h.profile_status);
    else
        snprintf(v, sizeof(v), "%s", h.profile_status);
    set(CLI_ENV_profile, v);
}

/* The variables that change what is measured: the library's PAGECLEAR_*
 * (a threshold, a forced primitive, a profile) and glibc's tunables (its
 * memset's strategy). */
static void overrides(void)
{
    char out[VALUE_MAX] = "";
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "PAGECLEAR_", 10) == 0 || strncmp(*e, "GLIBC_TUNABLES=", 15) == 0)
            snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? " " : "",
                     *e);
    set(CLI_ENV_overrides, out[0] ? out : "none");
}

static void gather(void)
{
    static int done;
    char v[VALUE_MAX], line[VALUE_MAX], cmdline[VALUE_MAX] = "";
    struct utsname u;
    struct cli_kconfig b = {0};
    if (done)
        return;
    done = 1;
    set(CLI_ENV_pageclear, pc_version());
    command_line();
    started();
    cpu_model();
    host();
    snprintf(v, sizeof(v), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    set(CLI_ENV_cpus, v);
    if (cli_first_line("/proc/cmdline", cmdline, sizeof(cmdline)) != NULL)
        set(CLI_ENV_cmdline, cmdline);
    if (uname(&u) == 0) {
        set(CLI_ENV_kernel, u.release);
        set(CLI_ENV_kernel_build, u.version);
        cli_kconfig_read(u.release, &b);
    }
    kernel_clearing();
    init_on(CLI_ENV_init_on_alloc, cmdline, b.read, b.on_alloc);
    init_on(CLI_ENV_init_on_free, cmdline, b.read, b.on_free);
    if (chosen(cli_first_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof(line)),
               '[', ']', v, sizeof(v)))
        set(CLI_ENV_thp_enabled, v);
    if (chosen(cli_first_line("/sys/kernel/mm/transparent_hugepage/defrag", line, sizeof(line)),
               '[', ']', v, sizeof(v)))
        set(CLI_ENV_thp_defrag, v);
    hugepages();
    overrides();
    set(CLI_ENV_libc, cli_libc_version());
}

const char *cli_env_value(enum cli_env_key k)
{
    gather();
    return k < CLI_ENV_COUNT && known[k] ? values[k] : NULL;
}

void cli_env_print_json(FILE *f, int ind)
{
    fputs("{", f);
    for (int k = 0; k < CLI_ENV_COUNT; k++) {
        const char *v = cli_env_value((enum cli_env_key)k);
        fprintf(f, "%s\n%*s\"%s\": ", k ? "," : "", ind + 2, "", names[k]);
        if (v == NULL)
            fputs("null", f);
        else
            cli_json_put_string(f, v);
    }
    fprintf(f, "\n%*s}", ind, "");
}
