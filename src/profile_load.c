/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile_load.c - finding and reading the profile once at start:
 * PAGECLEAR_PROFILE if set (then a missing file is an error; set and
 * empty, no profile at all), else the
 * user's ($XDG_CONFIG_HOME or ~/.config)/pageclear/profile, else
 * /etc/pageclear/profile. A profile that cannot be read or is refused is
 * ignored as a whole, with one warning line on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pageclear.h"
#include "options.h"
#include "profile.h"
#include "tuning.h"

static struct pci_profile profile;
static pthread_once_t profile_once = PTHREAD_ONCE_INIT;

/* A path as messages show it: control bytes would break the one line. */
static void path_shown(const char *path, char *out, size_t size)
{
    size_t n = 0;
    for (; path[n] != '\0' && n + 1 < size; n++)
        out[n] = (unsigned char)path[n] < ' ' || path[n] == 0x7f ? '?' : path[n];
    out[n] = '\0';
}

static const char *errno_text(int e, char *buf, size_t size)
{
    /* The GNU strerror_r returns the message (maybe a static one). */
    return strerror_r(e, buf, size);
}

/* Read path into buf (PCI_PROFILE_FILE_MAX + 1 bytes). Returns the bytes read,
 * or -errno; a negative result's reason goes to why. */
static long read_profile(const char *path, char *buf, char *why, size_t whylen)
{
    char e[128];
    /* O_NONBLOCK: a FIFO named by mistake must not hang the start-up. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        int err = errno;
        snprintf(why, whylen, "cannot open: %s", errno_text(err, e, sizeof(e)));
        return -err;
    }
    struct stat st;
    long n = 0;
    if (fstat(fd, &st) != 0) {
        n = -errno;
        snprintf(why, whylen, "cannot stat: %s", errno_text((int)-n, e, sizeof(e)));
    } else if (!S_ISREG(st.st_mode)) {
        n = -EINVAL;
        snprintf(why, whylen, "not a regular file");
    } else {
        while ((size_t)n <= PCI_PROFILE_FILE_MAX) {
            ssize_t r = read(fd, buf + n, PCI_PROFILE_FILE_MAX + 1 - (size_t)n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                n = -errno;
                snprintf(why, whylen, "cannot read: %s", errno_text((int)-n, e, sizeof(e)));
                break;
            }
            if (r == 0)
                break;
            n += r;
        }
        if (n > (long)PCI_PROFILE_FILE_MAX) {
            n = -EFBIG;
            snprintf(why, whylen, "larger than %zu KiB", PCI_PROFILE_FILE_MAX >> 10);
        }
    }
    close(fd);
    return n;
}

/* The user's profile path per the XDG base directory rules: an absolute
 * $XDG_CONFIG_HOME, else an absolute $HOME/.config (as `pageclear tune`
 * writes it). 0 if neither gives one. */
static int user_path(char *out, size_t size)
{
    /* secure_getenv: a set-user-ID program must not be pointed at files
     * by whoever runs it. */
    const char *xdg = secure_getenv("XDG_CONFIG_HOME");
    const char *home = secure_getenv("HOME");
    int n;
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(out, size, "%s/pageclear/profile", xdg);
    else if (home != NULL && home[0] == '/')
        n = snprintf(out, size, "%s/.config/pageclear/profile", home);
    else
        return 0;
    return n > 0 && (size_t)n < size;
}

/* Format into a fixed line; a status too long for pc_host ends in "...". */
static void set_line(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_line(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(dst, size, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n >= size && size > 4)
        memcpy(dst + size - 4, "...", 4);
}

static void refuse(const char *path, const char *origin, const char *why)
{
    char shown_path[4096];
    path_shown(path, shown_path, sizeof(shown_path));
    set_line(profile.status, sizeof(profile.status), "refused: %s%s: %s", origin,
             shown_path, why);
    if (!pci_quiet())
        fprintf(stderr, "pageclear: ignoring profile %s%s: %s; keeping the built-in "
                "thresholds\n", origin, shown_path, why);
}

static void load(void)
{
    static const char system_path[] = "/etc/pageclear/profile";
    char user[4096], why[200];
    const char *named = secure_getenv("PAGECLEAR_PROFILE");
    const char *paths[2];
    size_t npaths = 0;
    if (named != NULL) {
        paths[npaths++] = named;
    } else {
        if (user_path(user, sizeof(user)))
            paths[npaths++] = user;
        paths[npaths++] = system_path;
    }
    snprintf(profile.status, sizeof(profile.status), "none found");
    if (named != NULL && *named == '\0') {
        /* Set and empty: the built-in thresholds, whatever files exist
         * (what `pageclear tune` measures against). */
        snprintf(profile.status, sizeof(profile.status),
                 "none: PAGECLEAR_PROFILE is set and empty");
        return;
    }
    char *buf = malloc(PCI_PROFILE_FILE_MAX + 1);
    if (buf == NULL) {
        refuse(paths[0], named ? "PAGECLEAR_PROFILE=" : "", "out of memory");
        return;
    }
    for (size_t i = 0; i < npaths; i++) {
        const char *origin = named ? "PAGECLEAR_PROFILE=" : "";
        long n = read_profile(paths[i], buf, why, sizeof(why));
        /* A default place with no file is not an error: look further. */
        if (!named && (n == -ENOENT || n == -ENOTDIR))
            continue;
        if (n < 0) {
            refuse(paths[i], origin, why);
            break;
        }
        struct pci_tuning t;
        if (pci_profile_parse(buf, (size_t)n, &t, why, sizeof(why)) != 0) {
            refuse(paths[i], origin, why);
            break;
        }
        profile.t = t;
        path_shown(paths[i], profile.path, sizeof(profile.path));
        snprintf(profile.status, sizeof(profile.status), "in force");
        break;
    }
    free(buf);
}

const struct pci_profile *pci_profile(void)
{
    pthread_once(&profile_once, load);
    return &profile;
}
