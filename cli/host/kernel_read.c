/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * kernel_read.c - what kernel.c decides from, read from the running
 * kernel: /proc/kallsyms (some 100,000 lines, streamed through a bounded
 * buffer and left as soon as the answer is known), uname, the command
 * line, debugfs's sched/preempt, /sys/kernel/realtime and the build
 * configuration. Nothing here needs privileges; what cannot be read is
 * said to be so.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel.h"

/* A kallsyms line: address, type, name, maybe a module. Names of the
 * symbols looked for are short; a longer line (a long Rust name) is
 * skipped whole, never fed in pieces. */
#define KSYM_LINE_MAX 256

void cli_ksyms_read(struct cli_ksyms *k, const char *path)
{
    char line[KSYM_LINE_MAX];
    cli_ksyms_init(k, path);
    FILE *f = fopen(k->path, "r");
    if (f == NULL) {
        k->error = errno ? errno : EIO;
        return;
    }
    int skipping = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        int whole = strchr(line, '\n') != NULL || feof(f);
        if (!skipping && whole && cli_ksyms_line(k, line))
            break;
        skipping = !whole; /* the rest of a long line comes next */
    }
    if (ferror(f) && !k->stopped)
        k->error = errno ? errno : EIO;
    fclose(f);
}

const char *cli_first_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f == NULL)
        return NULL;
    if (fgets(buf, (int)n, f) == NULL)
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? buf : NULL;
}

/* The build configuration's stream: /boot/config-RELEASE, or the
 * kernel's own copy through gzip. */
static FILE *open_config(const char *release, char *path, size_t n, int *piped)
{
    snprintf(path, n, "/boot/config-%s", release);
    FILE *f = fopen(path, "r");
    *piped = 0;
    if (f == NULL && access("/proc/config.gz", R_OK) == 0) {
        f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
        *piped = f != NULL;
        snprintf(path, n, "/proc/config.gz");
    }
    return f;
}

void cli_kconfig_read(const char *release, struct cli_kconfig *c)
{
    /* Read once a process: the environment block and the kernel's
     * decision both want it, and /proc/config.gz costs a gzip. */
    static struct cli_kconfig once;
    static char once_release[256];
    static int have;
    if (have && release != NULL && strcmp(release, once_release) == 0) {
        *c = once;
        return;
    }
    static char path[512];
    static const char *const models[][2] = {
        {"CONFIG_PREEMPT_NONE=y\n", "none"}, {"CONFIG_PREEMPT_VOLUNTARY=y\n", "voluntary"},
        {"CONFIG_PREEMPT=y\n", "full"},      {"CONFIG_PREEMPT_LAZY=y\n", "lazy"}};
    char line[256];
    int piped;
    *c = (struct cli_kconfig){0};
    FILE *f = release ? open_config(release, path, sizeof(path), &piped) : NULL;
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        c->read = 1;
        for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
            if (strcmp(line, models[i][0]) == 0)
                c->model = models[i][1];
        c->dynamic |= strcmp(line, "CONFIG_PREEMPT_DYNAMIC=y\n") == 0;
        c->on_alloc |= strcmp(line, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y\n") == 0;
        c->on_free |= strcmp(line, "CONFIG_INIT_ON_FREE_DEFAULT_ON=y\n") == 0;
    }
    c->path = c->read ? path : NULL;
    if (piped)
        pclose(f);
    else
        fclose(f);
    once = *c;
    snprintf(once_release, sizeof(once_release), "%s", release);
    have = 1;
}

/* 1 if debugfs is mounted where the kernel's files expect it. */
static int debugfs_mounted(void)
{
    char line[512];
    int found = 0;
    FILE *f = fopen("/proc/self/mounts", "r");
    while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
        found = strstr(line, " /sys/kernel/debug debugfs ") != NULL;
    if (f != NULL)
        fclose(f);
    return found;
}

/* debugfs's sched/preempt into buf, or NULL with why it could not be. */
static const char *read_debugfs(char *buf, size_t n, const char **why)
{
    errno = 0;
    if (cli_first_line("/sys/kernel/debug/sched/preempt", buf, n) != NULL)
        return buf;
    int err = errno;
    *why = err == EACCES || err == EPERM ? "debugfs's sched/preempt is not readable (root only)"
           : !debugfs_mounted()          ? "debugfs is not mounted"
                                         : "debugfs has no sched/preempt (no PREEMPT_DYNAMIC)";
    return NULL;
}

const struct cli_kernel *cli_kernel(void)
{
    static struct cli_kernel k;
    static int done;
    static char cmdline[4096], debugfs[256], realtime[16];
    static struct utsname u;
    struct cli_kernel_in in = {.realtime = -1};
    struct cli_kconfig c;
    if (done)
        return &k;
    done = 1;
    if (uname(&u) == 0) {
        in.release = u.release;
        in.version = u.version;
    }
    in.cmdline = cli_first_line("/proc/cmdline", cmdline, sizeof(cmdline));
    in.debugfs = read_debugfs(debugfs, sizeof(debugfs), &in.debugfs_why);
    if (cli_first_line("/sys/kernel/realtime", realtime, sizeof(realtime)) != NULL)
        in.realtime = realtime[0] == '1';
    cli_kconfig_read(in.release, &c);
    in.config = c.path;
    in.config_model = c.model;
    in.config_dynamic = c.dynamic;
    long page = sysconf(_SC_PAGESIZE);
    in.base_page = page > 0 ? (size_t)page : 0;
    cli_ksyms_read(&in.syms, "/proc/kallsyms");
    cli_kernel_decide(&in, &k);
    return &k;
}
