/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * tune_report.c - what `pageclear tune` prints and writes: the table
 * behind each threshold with the choice and its reason, the records for
 * --json/--csv, and the profile file, written whole or not at all (or
 * kept, with --if-needed, when the library takes the one there).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pageclear.h"

#include "args.h"
#include "decide.h"
#include "output.h"
#include "stats.h"
#include "target.h"
#include "tune_report.h"

/* ---- reporting ------------------------------------------------------------ */

const char *cli_thr_str(size_t v, char *buf, size_t n)
{
    return v == SIZE_MAX ? "never" : cli_fmt_size(v, buf, n);
}

/* Print what a decision rests on and what it chose, against the built-in
 * default; add the measurements to the records. */
void cli_tune_report(FILE *f, struct cli_records *rs, enum cli_format fmt, unsigned long runs,
                     const char *key, const char *an, const char *bn,
                     const struct cli_xover *x, const struct cli_decision *d, size_t dflt,
                     unsigned long threads)
{
    char s1[32], s2[32];
    for (size_t i = 0; i < x->n; i++)
        for (int c = 0; c < CLI_NCACHE; c++) {
            if (x->tol[c] <= 0)
                continue;
            for (int f = 0; f < 2; f++) {
                struct cli_stats st = {.median = f ? x->b[i][c] : x->a[i][c],
                                       .mean = f ? x->b[i][c] : x->a[i][c],
                                       .stdev_pct = f ? x->b_sd[i][c] : x->a_sd[i][c],
                                       .n = runs};
                st.min = st.max = st.p99 = st.median;
                struct cli_record r = {"tune", f ? bn : an, "4KB", x->sizes[i], 0, 1, threads,
                                       "GB/s", st, NULL, cli_cache_name((enum cli_cache)c),
                                       "zero", NULL};
                cli_records_add(rs, &r);
            }
        }
    if (fmt != CLI_FMT_DEFAULT)
        return;
    fprintf(f, "\n## %s: %s below, %s from it%s (GB/s, median ± %%stdev of %lu runs)\n", key, an,
           bn, threads > 1 ? " (all cores at once)" : "", runs);
    fprintf(f, "%-8s", "size");
    for (int c = 0; c < CLI_NCACHE; c++)
        if (x->tol[c] > 0)
            fprintf(f, "  %-33s", cli_cache_name((enum cli_cache)c));
    fprintf(f, "\n");
    for (size_t i = x->first; i < x->n; i++) {
        fprintf(f, "%-8s", cli_fmt_size(x->sizes[i], s1, sizeof(s1)));
        for (int c = 0; c < CLI_NCACHE; c++)
            if (x->tol[c] > 0)
                fprintf(f, "  %7.2f ±%3.0f%% vs %7.2f ±%3.0f%% %s", x->a[i][c], x->a_sd[i][c],
                       x->b[i][c], x->b_sd[i][c],
                       x->b[i][c] > x->a[i][c] ? "(b)" : "(a)");
        fprintf(f, "%s\n", x->sizes[i] == d->threshold ? "   <- threshold" : "");
    }
    size_t wi;
    int wc;
    double dl = cli_xover_loss(x, dflt, &wi, &wc);
    fprintf(f, "chose %s = %s: worst loss %.1f%%", key, cli_thr_str(d->threshold, s1, sizeof(s1)),
           100 * d->worst_loss);
    if (d->worst_state >= 0 && d->worst_loss > 0)
        fprintf(f, " (%s, %s)", cli_cache_name((enum cli_cache)d->worst_state),
               cli_fmt_size(x->sizes[d->worst_index], s2, sizeof(s2)));
    fprintf(f, "; the built-in %s would lose %.1f%%", cli_thr_str(dflt, s2, sizeof(s2)), 100 * dl);
    if (wc >= 0 && dl > 0)
        fprintf(f, " (%s, %s)", cli_cache_name((enum cli_cache)wc),
               cli_fmt_size(x->sizes[wi], s1, sizeof(s1)));
    fprintf(f, "\n");
    if (d->ambiguous)
        fprintf(f, "ambiguous: other thresholds come within the noise (the medians' "
                   "standard error, ±%.1f%%); "
               "%s\n", d->noise_pct,
               d->threshold == dflt ? "kept the built-in, which the runs cannot fault"
                                    : "took the one that loses least if the noise hid the "
                                      "truth");
}

void cli_tune_summary(FILE *f, const struct pc_tuning *t)
{
    fprintf(f, "\nchose");
    for (int i = 0; i < PC_NTHRESHOLDS; i++) {
        struct pc_threshold_info ti;
        size_t v;
        char s[32];
        pc_threshold_info(i, &ti);
        pc_tuning_get(t, i, &v);
        fprintf(f, "%s %s = %s", i ? "," : "", ti.key, cli_thr_str(v, s, sizeof(s)));
    }
    fprintf(f, "\n");
}

/* ---- the profile ------------------------------------------------------------ */

int cli_profile_path(char *buf, size_t n)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg != NULL && *xdg == '/')
        snprintf(buf, n, "%s/pageclear/profile", xdg);
    else if (home != NULL && *home == '/')
        snprintf(buf, n, "%s/.config/pageclear/profile", home);
    else
        return -1;
    return 0;
}

void cli_tune_written(FILE *f, const char *file, double secs)
{
    char user[4096], abs[4096];
    int have_user = cli_profile_path(user, sizeof(user)) == 0;
    fprintf(f, "wrote %s in %.0f s", file, secs);
    if (have_user && strcmp(file, user) == 0) {
        fprintf(f, "; the library reads it at start; 'pageclear check' shows what it gives\n");
        return;
    }
    /* The variable is read in whatever directory a program starts in. */
    if (realpath(file, abs) == NULL)
        snprintf(abs, sizeof(abs), "%s", file);
    fprintf(f, "; the library reads it when told: PAGECLEAR_PROFILE=%s in a program's "
               "environment", abs);
    if (have_user)
        fprintf(f, ", or copy it to %s, where it looks at start", user);
    fprintf(f, "; 'PAGECLEAR_PROFILE=%s pageclear check' shows what it gives\n", abs);
}

/* mkdir -p of path's directory. */
static int make_parent(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

/* Make path's directory and open the temporary file beside it that a
 * write goes through (tmp gets its name); NULL after a message. */
static FILE *open_tmp(const char *path, char *tmp, size_t n)
{
    if (make_parent(path) != 0) {
        cli_error("cannot create the directory of '%s': %s", path, strerror(errno));
        return NULL;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        cli_error("cannot write '%s': %s", tmp, strerror(errno));
    return f;
}

int cli_check_writable(const char *path)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof(tmp));
    if (f == NULL)
        return -1;
    fclose(f);
    unlink(tmp);
    return 0;
}

/* Write text to path through a temporary file and rename, so a reader
 * never sees half a profile. */
int cli_write_file(const char *path, const char *text)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof(tmp));
    if (f == NULL)
        return -1;
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        cli_error("cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int cli_tune_write(const char *dest, const struct pc_tuning *t, int quick, unsigned long runs,
                   double secs)
{
    char comment[1024], text[8192];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    snprintf(comment, sizeof(comment),
             "made by 'pageclear tune%s' on %04d-%02d-%02d, %lu runs, %.0f s\n"
             "thresholds measured in the cache states each contract serves; see pageclear(1)",
             quick ? " --quick" : "", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, runs, secs);
    int len = pc_profile_format(t, comment, text, sizeof(text));
    if (len < 0 || (size_t)len >= sizeof(text)) {
        cli_error("tune: cannot format the profile (%d)", len);
        return -1;
    }
    if (strcmp(dest, "-") != 0)
        return cli_write_file(dest, text);
    fputs(text, stdout);
    fflush(stdout);
    return 0;
}

/* The largest profile read back: the library reads no more at start
 * (pc_profile_parse(3)), so a larger file is refused there too. */
#define PROFILE_READ_MAX (64 * 1024)

/* Read path whole into buf (PROFILE_READ_MAX + 1 bytes): its length, or
 * -errno with why filled. O_NONBLOCK and the regular-file test: a FIFO
 * named by mistake must not hang a boot-time run. */
static long read_profile(const char *path, char *buf, char *why, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        snprintf(why, n, "%s", strerror(e));
        return -e;
    }
    struct stat st;
    long len = 0;
    if (fstat(fd, &st) != 0) {
        len = -errno;
        snprintf(why, n, "%s", strerror((int)-len));
    } else if (!S_ISREG(st.st_mode)) {
        len = -EINVAL;
        snprintf(why, n, "not a regular file");
    }
    while (len >= 0 && len <= PROFILE_READ_MAX) {
        ssize_t r = read(fd, buf + len, (size_t)(PROFILE_READ_MAX + 1 - len));
        if (r == 0)
            break;
        if (r < 0 && errno != EINTR) {
            len = -errno;
            snprintf(why, n, "%s", strerror((int)-len));
        } else if (r > 0) {
            len += r;
        }
    }
    if (len > PROFILE_READ_MAX) {
        len = -EFBIG;
        snprintf(why, n, "larger than %d KiB", PROFILE_READ_MAX / 1024);
    }
    close(fd);
    return len;
}

int cli_tune_if_needed(const char *path, FILE *say)
{
    static char buf[PROFILE_READ_MAX + 1];
    char why[256];
    struct pc_tuning t;
    long len = read_profile(path, buf, why, sizeof(why));
    int rc = len < 0 ? (int)len : pc_profile_parse(buf, (size_t)len, &t, why, sizeof(why));
    if (rc == 0) {
        fprintf(say, "kept %s: the library takes it on this machine (made on this CPU, for "
                     "this major version); nothing measured\n", path);
        return 1;
    }
    if (rc == -ENOENT)
        fprintf(stderr, "pageclear: tune: %s does not exist; measuring\n", path);
    else
        fprintf(stderr, "pageclear: tune: %s is not taken here (%s); measuring to replace "
                        "it\n", path, why);
    return 0;
}
