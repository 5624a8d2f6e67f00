/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * profile_load.c - finding and reading the profile once at start:
 * PAGECLEAR_PROFILE if set (then a missing file is an error; set and
 * empty, no profile at all), else the user's ($XDG_CONFIG_HOME or
 * ~/.config)/pageclear/profile, else /etc/pageclear/profile, else the
 * profile shipped for this CPU. A user's, system or named profile that
 * cannot be read or is refused is ignored as a whole, with one warning
 * line on stderr, and ends the search: the person who put it there meant
 * it, and a shipped profile must not stand in for it silently.
 *
 * Shipped profiles (data/profiles/ in the source, installed to
 * PCI_PROFILES_DIR) are the ones `pageclear tune` wrote on the CPUs the
 * project measured; each carries the identity of its CPU, and the first
 * *.profile in name order that pc_profile_parse accepts here is taken.
 * One made on another CPU or for another major version is not for this
 * host and is passed over in silence; one that is malformed or unreadable
 * is a packaging fault: a warning, and the search goes on.
 */
#include <dirent.h>
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

/* Where the shipped profiles are installed (CMakeLists.txt passes
 * ${datadir}/pageclear/profiles; a build without it, such as the Rust
 * crate's bundled library, looks where the distribution packages put
 * them). */
#ifndef PCI_PROFILES_DIR
#define PCI_PROFILES_DIR "/usr/share/pageclear/profiles"
#endif
/* Shipped profiles read at most: one per CPU measured, a handful today;
 * the bound keeps what every process reads at start (each file at most
 * PCI_PROFILE_FILE_MAX) finite whatever the directory holds. */
#define PCI_SHIPPED_MAX 256

static struct pci_profile profile;
static pthread_once_t profile_once = PTHREAD_ONCE_INIT;

/* A path as messages show it: control bytes would break the one line.
 * out may be path itself. */
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

/* Take the profile text[0, n) from path: 0, or pci_profile_parse's error
 * (why says why). where says where it came from, in the status. */
static int take(const char *path, const char *text, long n, const char *where, char *why,
                size_t whylen)
{
    struct pci_tuning t;
    int rc = pci_profile_parse(text, (size_t)n, &t, why, whylen);
    if (rc != 0)
        return rc;
    profile.t = t;
    path_shown(path, profile.path, sizeof(profile.path));
    set_line(profile.status, sizeof(profile.status), "in force, %s", where);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    /* strcmp, not strcoll: the order must not depend on the locale. */
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped directory's listing, on the heap: 70 KiB is too much for
 * the stack of whichever thread first calls the library. */
struct shipped {
    char name[PCI_SHIPPED_MAX][256]; /* NAME_MAX + 1 */
    char *sorted[PCI_SHIPPED_MAX];
    char path[4096];
};

/* The names of the *.profile entries of d into s->sorted, sorted, at most
 * PCI_SHIPPED_MAX: the first ones in that order, so the bound does not
 * make the choice depend on the directory's order. Returns the count. */
static size_t list_shipped(DIR *d, struct shipped *s)
{
    size_t n = 0, over = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 9 || len >= sizeof(s->name[0]) ||
            strcmp(e->d_name + len - 8, ".profile") != 0)
            continue;
        size_t slot = n;
        if (n == PCI_SHIPPED_MAX) { /* full: this one replaces the last by name, if before it */
            over++;
            slot = 0;
            for (size_t i = 1; i < n; i++)
                if (strcmp(s->name[i], s->name[slot]) > 0)
                    slot = i;
            if (strcmp(e->d_name, s->name[slot]) > 0)
                continue;
        } else {
            n++;
        }
        memcpy(s->name[slot], e->d_name, len + 1);
    }
    if (over > 0 && !pci_quiet())
        fprintf(stderr, "pageclear: more than %d shipped profiles; reading the first %d "
                "by name\n", PCI_SHIPPED_MAX, PCI_SHIPPED_MAX);
    for (size_t i = 0; i < n; i++)
        s->sorted[i] = s->name[i];
    qsort(s->sorted, n, sizeof(s->sorted[0]), by_name);
    return n;
}

/* Take the profile shipped for this CPU from dir, if there is one: 0 if
 * taken. Out of memory, it looks no further: the built-in thresholds. */
static int find_shipped(const char *dir, char *buf)
{
    struct shipped *s = malloc(sizeof(*s));
    DIR *d = s != NULL ? opendir(dir) : NULL;
    size_t n = d != NULL ? list_shipped(d, s) : 0;
    int rc = -ENOENT;
    for (size_t i = 0; i < n && rc != 0; i++) {
        char why[200];
        if ((size_t)snprintf(s->path, sizeof(s->path), "%s/%s", dir, s->sorted[i]) >=
            sizeof(s->path))
            continue; /* the directory's path alone is longer than any real one */
        long len = read_profile(s->path, buf, why, sizeof(why));
        rc = len < 0 ? (int)len
                     : take(s->path, buf, len, "shipped for this CPU", why, sizeof(why));
        /* Another CPU's or another major version's: for another host. Gone
         * since the directory was read: not there. */
        if (rc == 0 || rc == -ENODEV || rc == -EPROTO || rc == -ENOENT || pci_quiet())
            continue;
        path_shown(s->path, s->path, sizeof(s->path));
        fprintf(stderr, "pageclear: ignoring shipped profile %s: %s\n", s->path, why);
    }
    if (d != NULL)
        closedir(d);
    free(s);
    return rc;
}

/* The places looked in, in order, and what each is called in the
 * status. */
struct place {
    const char *path;
    const char *where;
};

static void load(void)
{
    char user[4096], why[200];
    const char *named = secure_getenv("PAGECLEAR_PROFILE");
    /* secure_getenv: a set-user-ID program reads the installed ones. */
    const char *shipped = secure_getenv("PAGECLEAR_PROFILES_DIR");
    struct place places[2];
    size_t nplaces = 0;
    if (shipped == NULL)
        shipped = PCI_PROFILES_DIR;
    if (named != NULL) {
        places[nplaces++] = (struct place){named, "named by PAGECLEAR_PROFILE"};
    } else {
        if (user_path(user, sizeof(user)))
            places[nplaces++] = (struct place){user, "the user's"};
        places[nplaces++] = (struct place){"/etc/pageclear/profile", "the system's"};
    }
    if (named != NULL && *named == '\0') {
        /* Set and empty: the built-in thresholds, whatever files exist
         * (what `pageclear tune` measures against). */
        snprintf(profile.status, sizeof(profile.status),
                 "none: PAGECLEAR_PROFILE is set and empty");
        return;
    }
    const char *origin = named ? "PAGECLEAR_PROFILE=" : "";
    char *buf = malloc(PCI_PROFILE_FILE_MAX + 1);
    if (buf == NULL) {
        refuse(places[0].path, origin, "out of memory");
        return;
    }
    for (size_t i = 0; i < nplaces; i++) {
        long n = read_profile(places[i].path, buf, why, sizeof(why));
        /* A default place with no file is not an error: look further. */
        if (!named && (n == -ENOENT || n == -ENOTDIR))
            continue;
        if (n < 0 || take(places[i].path, buf, n, places[i].where, why, sizeof(why)) != 0)
            refuse(places[i].path, origin, why);
        free(buf);
        return;
    }
    if (*shipped == '\0') {
        snprintf(profile.status, sizeof(profile.status),
                 "none found (PAGECLEAR_PROFILES_DIR is set and empty: no shipped profile)");
    } else if (find_shipped(shipped, buf) != 0) {
        char shown_dir[sizeof(profile.status)];
        path_shown(shipped, shown_dir, sizeof(shown_dir));
        set_line(profile.status, sizeof(profile.status),
                 "none found (no user's or system profile, none shipped for this CPU in %s)",
                 shown_dir);
    }
    free(buf);
}

const struct pci_profile *pci_profile(void)
{
    pthread_once(&profile_once, load);
    return &profile;
}
