/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * exec.c - `pageclear exec [--min SIZE] [--stats] [--first-touch MODE] -- CMD
 * [ARGS...]`: runs CMD with libpageclear-preload.so first in LD_PRELOAD
 * (docs/preload.md), so that a program that cannot be rebuilt clears its
 * large extents through pageclear. The command replaces this process
 * (execvp): its exit status and signals are CMD's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "exec.h"
#include "exec_elf.h"
#include "../../preload/note.h"

void cli_exec_usage(FILE *f)
{
    fprintf(f,
            "usage: pageclear exec [--min SIZE] [--stats] [--first-touch MODE] [--lib PATH] -- "
            "CMD [ARGS...]\n"
            "  runs CMD with libpageclear-preload.so in LD_PRELOAD (before what it\n"
            "  already holds): its memset, bzero, explicit_bzero and __memset_chk from\n"
            "  preload_min on go through pageclear\n"
            "  --min SIZE  preload_min for this run (PAGECLEAR_PRELOAD_MIN; default:\n"
            "              the profile's, else the built-in)\n"
            "  --stats     print at exit, on stderr, the calls and bytes per size class\n"
            "              and where they went (PAGECLEAR_PRELOAD_STATS=1)\n"
            "  --first-touch MODE\n"
            "              a zero memset of memory the kernel has not handed out yet (a\n"
            "              first touch, from preload_min and 1 MiB on): populate (the\n"
            "              default) has the kernel fault those pages in, without the\n"
            "              stores; skip leaves them alone, as they read zero already;\n"
            "              store leaves the call to the C library\n"
            "              (PAGECLEAR_PRELOAD_FIRST_TOUCH; docs/preload.md)\n"
            "  --skip-absent  --first-touch skip\n"
            "  --lib PATH  the preload library (default: $PAGECLEAR_PRELOAD_LIB, the\n"
            "              installed one, the build tree's; each loads the build of the\n"
            "              preload for this CPU, glibc-hwcaps/x86-64-v3/ or x86-64-v4/\n"
            "              beside it, where there is one)\n");
}

static int usage(void)
{
    cli_exec_usage(stderr);
    return CLI_EXIT_USAGE;
}

static int readable(const char *path)
{
    return path != NULL && *path != '\0' && access(path, R_OK) == 0;
}

/* PAGECLEAR_PRELOAD_LIB, NULL where unset or empty (`NAME= cmd` unsets a
 * variable for one command, as the preload's switches take it). */
static const char *env_lib(void)
{
    const char *lib = getenv("PAGECLEAR_PRELOAD_LIB");
    return lib != NULL && *lib != '\0' ? lib : NULL;
}

/* The preload installed beside this command: PC_PRELOAD_FROM_BINDIR is
 * its path relative to the directory the command is installed in, so a
 * prefix installed with --prefix, or moved, finds its own preload before
 * the path it was configured with. NULL where it is not there (the build
 * tree, or /proc not mounted). */
static const char *beside_command(void)
{
    static char path[4096];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    int w = snprintf(path, sizeof(path), "%s/%s", exe, PC_PRELOAD_FROM_BINDIR);
    return w > 0 && (size_t)w < sizeof(path) && readable(path) ? path : NULL;
}

const char *cli_exec_found(void)
{
    const char *lib = env_lib();
    if (lib != NULL)
        return readable(lib) ? lib : NULL;
    if ((lib = beside_command()) != NULL)
        return lib;
    if (readable(PC_PRELOAD_INSTALLED))
        return PC_PRELOAD_INSTALLED;
    if (readable(PC_PRELOAD_BUILD))
        return PC_PRELOAD_BUILD;
    return NULL;
}

const char *cli_exec_preload(const char *lib)
{
    if (lib == NULL)
        lib = env_lib();
    if (lib != NULL) {
        if (readable(lib))
            return lib;
        if (*lib == '\0')
            cli_error("exec: the preload library's path is empty");
        else
            cli_error("exec: the preload library %s cannot be read: %s", lib, strerror(errno));
        return NULL;
    }
    lib = cli_exec_found();
    if (lib == NULL)
        cli_error("exec: no preload library: neither %s nor %s (set PAGECLEAR_PRELOAD_LIB "
                  "or --lib)", PC_PRELOAD_INSTALLED, PC_PRELOAD_BUILD);
    return lib;
}

/* 1 if the entry of LD_PRELOAD at p (len bytes) is a path to a copy of
 * the preload or of its filter (their notes: exec_elf.h). An entry
 * without a '/' is a name the loader looks up itself, which this cannot
 * follow. */
static int is_preload_entry(const char *p, size_t len)
{
    char path[4096];
    if (len >= sizeof(path) || memchr(p, '/', len) == NULL)
        return 0;
    memcpy(path, p, len);
    path[len] = '\0';
    enum cli_elf_lib l = cli_elf_lib_of(path, NULL);
    return l == CLI_ELF_LIB_PRELOAD || l == CLI_ELF_LIB_FILTER;
}

int cli_exec_ld_preload(const char *lib, const char *old, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s", lib);
    if (k < 0 || (size_t)k >= n)
        return -1;
    size_t at = (size_t)k;
    /* The loader splits on colons and spaces. A copy of the preload among
     * old's entries (the user's own LD_PRELOAD of it, by path) is left
     * out: loaded too, it would be the memset after lib, which then hands
     * it the short calls instead of storing them itself. */
    for (const char *p = old != NULL ? old : ""; *p != '\0';) {
        size_t len = strcspn(p, ": ");
        if (len > 0 && !is_preload_entry(p, len)) {
            if (len + 1 >= n - at)
                return -1;
            buf[at++] = ':';
            memcpy(buf + at, p, len);
            at += len;
            buf[at] = '\0';
        }
        p += len + (p[len] != '\0');
    }
    return 0;
}

/* Why a command was not found: the reason for the first name that
 * exists but cannot be run, and that name. */
struct why {
    int err;        /* ENOENT while no name exists */
    char path[4096];
};

/* 1 if path is a regular file this process may execute. Else 0, and w,
 * while still ENOENT, becomes what a user should hear about path: EISDIR
 * (a directory), EACCES (no execute permission, neither file nor
 * directory, or a directory on the way that may not be searched), or
 * another error of stat's than a missing name. */
static int runnable(const char *path, struct why *w)
{
    struct stat st;
    int e = 0;
    if (stat(path, &st) != 0)
        e = errno == ENOENT || errno == ENOTDIR ? 0 : errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        e = EACCES;
    else
        return 1;
    if (w->err == ENOENT && e != 0) {
        w->err = e;
        snprintf(w->path, sizeof(w->path), "%s", path);
    }
    return 0;
}

/* CMD as execvp will find it: itself if it holds a '/', else the first
 * executable regular file of that name on PATH (execvp, too, goes on past
 * a directory or a file it may not run). NULL if none, with w saying why
 * (runnable). */
static const char *resolve(const char *cmd, char *buf, size_t n, struct why *w)
{
    w->err = ENOENT;
    w->path[0] = '\0';
    if (*cmd == '\0')
        return NULL;
    if (strchr(cmd, '/') != NULL)
        return runnable(cmd, w) ? cmd : NULL;
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        int k = snprintf(buf, n, "%.*s/%s", (int)len, len ? path : ".", cmd);
        if (k > 0 && (size_t)k < n && runnable(buf, w))
            return buf;
        path += len + (path[len] == ':');
    }
    return NULL;
}

/* The message for a CMD resolve did not find, by w. */
static void not_runnable(const char *cmd, const struct why *w)
{
    const char *reason = w->err == EISDIR   ? "is a directory"
                         : w->err == EACCES ? "cannot be run: permission denied"
                                            : strerror(w->err);
    if (*cmd == '\0')
        cli_error("exec: the command is an empty string");
    else if (w->err == ENOENT)
        cli_error("exec: %s: no such command%s", cmd,
                  strchr(cmd, '/') != NULL ? "" : " on PATH");
    else if (strcmp(cmd, w->path) == 0)
        cli_error("exec: %s %s", cmd, reason);
    else
        cli_error("exec: %s: no command of that name on PATH can be run (%s %s)", cmd,
                  w->path, reason);
}

/* 0 if the filter lib, the file a user names, has the preload beside it
 * to load (preload/filter.c), else CLI_EXIT_USAGE after a message: the
 * loader would run CMD without it, with the filter's warning. */
static int check_filter(const char *lib)
{
    char impl[4096];
    const char *slash = strrchr(lib, '/');
    int dir = slash == NULL ? 0 : (int)(slash - lib + 1);
    int k = snprintf(impl, sizeof(impl), "%.*s%s", dir, lib, PC_PRELOAD_IMPL_FILE);
    if (k < 0 || (size_t)k >= sizeof(impl)) {
        cli_error("exec: the preload library's path %s is too long", lib);
        return CLI_EXIT_USAGE;
    }
    if (!readable(impl)) {
        cli_error("exec: %s loads the preload from %s, which cannot be read: %s", lib, impl,
                  strerror(errno));
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* 0 if lib is the preload or its filter, with its identity in *id, else
 * CLI_EXIT_USAGE after a message: the loader would skip a file that is no
 * shared library with a message of its own and run CMD without
 * pageclear, and load a shared library that is not the preload to no
 * effect, silently. */
static int check_lib(const char *lib, struct cli_elf_id *id)
{
    struct stat st;
    if (stat(lib, &st) == 0 && !S_ISREG(st.st_mode)) {
        cli_error("exec: the preload library %s is not a file", lib);
        return CLI_EXIT_USAGE;
    }
    switch (cli_elf_lib_of(lib, id)) {
    case CLI_ELF_LIB_PRELOAD:
        return 0;
    case CLI_ELF_LIB_FILTER:
        return check_filter(lib);
    case CLI_ELF_LIB_NOT_ELF:
        cli_error("exec: the preload library %s is not an ELF file", lib);
        break;
    case CLI_ELF_LIB_NOT_SHARED:
        cli_error("exec: the preload library %s is not a shared library (a program, or "
                  "malformed): the dynamic loader cannot preload it", lib);
        break;
    case CLI_ELF_LIB_NOT_PRELOAD:
        cli_error("exec: %s is not libpageclear-preload.so (it lacks the pageclear preload "
                  "note): its memset would not be pageclear's", lib);
        break;
    case CLI_ELF_LIB_UNREAD:
        cli_error("exec: the preload library %s cannot be read: %s", lib, strerror(errno));
        break;
    }
    return CLI_EXIT_USAGE;
}

/* 0 if CMD can run under the preload of identity lib, else
 * CLI_EXIT_USAGE after a message: not found, not a file it may run,
 * set-user-ID, static, or of another word size, byte order or machine
 * than lib (exec_elf.c). */
static int check_cmd(const char *cmd, const struct cli_elf_id *lib)
{
    char buf[4096];
    struct stat st;
    struct why why;
    const char *path = resolve(cmd, buf, sizeof(buf), &why);
    if (path == NULL) {
        not_runnable(cmd, &why);
        return CLI_EXIT_USAGE;
    }
    if (stat(path, &st) != 0) {
        cli_error("exec: %s: %s", path, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    /* The dynamic loader ignores LD_PRELOAD in secure-execution mode: the
     * command would run without pageclear, which the user did not ask. */
    if (st.st_mode & (S_ISUID | S_ISGID)) {
        cli_error("exec: %s is set-user-ID or set-group-ID: the dynamic loader ignores "
                  "LD_PRELOAD for it, so pageclear cannot apply", path);
        return CLI_EXIT_USAGE;
    }
    char judged[4096];
    enum cli_elf_kind kind = cli_elf_kind_of(path, lib, judged, sizeof(judged));
    /* For a script, the interpreter its #! line names is what the kernel
     * runs and what the loader would run for. */
    int script = strcmp(judged, path) != 0;
    const char *who = script ? path : "";
    const char *its = script ? ": its interpreter " : "";
    switch (kind) {
    case CLI_ELF_STATIC:
        cli_error("exec: %s%s%s is statically linked: no dynamic loader runs for it to "
                  "read LD_PRELOAD, so pageclear cannot apply", who, its, judged);
        return CLI_EXIT_USAGE;
    case CLI_ELF_FOREIGN:
        cli_error("exec: %s%s%s is built for another word size or architecture than the "
                  "preload library: its dynamic loader cannot load it, so pageclear "
                  "cannot apply", who, its, judged);
        return CLI_EXIT_USAGE;
    default:
        return 0; /* dynamic, or not read: execve judges */
    }
}

/* The options before "--" (or before the first operand). 0, or an exit
 * status after a message; *first is CMD's index. */
static int options(int argc, char **argv, int *first, const char **lib)
{
    static const struct cli_opt spec[] = {
        {'m', "--min"}, {'l', "--lib"}, {'f', "--first-touch"}, {0, NULL}};
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *val;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cli_exec_usage(stdout);
            return -1;
        }
        if (strcmp(argv[i], "--stats") == 0) {
            setenv("PAGECLEAR_PRELOAD_STATS", "1", 1);
            continue;
        }
        if (strcmp(argv[i], "--skip-absent") == 0) {
            setenv("PAGECLEAR_PRELOAD_FIRST_TOUCH", "skip", 1);
            continue;
        }
        int key = cli_opt_value(spec, "exec", argc, argv, &i, &val);
        size_t min;
        if (key < 0)
            return usage();
        if (key == 'l') {
            *lib = val;
        } else if (key == 'f') {
            if (strcmp(val, "store") != 0 && strcmp(val, "populate") != 0 &&
                strcmp(val, "skip") != 0) {
                cli_error("exec: --first-touch %s: want store, populate or skip", val);
                return CLI_EXIT_USAGE;
            }
            setenv("PAGECLEAR_PRELOAD_FIRST_TOUCH", val, 1);
        } else {
            char s[32];
            if (cli_size("--min", val, 0, &min) != 0)
                return CLI_EXIT_USAGE;
            snprintf(s, sizeof(s), "%zu", min);
            setenv("PAGECLEAR_PRELOAD_MIN", s, 1);
        }
    }
    if (i >= argc) {
        cli_error("exec: no command given");
        return usage();
    }
    *first = i;
    return 0;
}

int cli_exec(int argc, char **argv)
{
    int first;
    const char *lib = NULL;
    int rc = options(argc, argv, &first, &lib);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    lib = cli_exec_preload(lib);
    if (lib == NULL)
        return CLI_EXIT_USAGE;
    struct cli_elf_id id;
    rc = check_lib(lib, &id);
    if (rc == 0)
        rc = check_cmd(argv[first], &id);
    if (rc != 0)
        return rc;
    /* LD_PRELOAD splits on spaces and colons: a path holding one cannot
     * be put there. */
    if (strpbrk(lib, " :") != NULL) {
        cli_error("exec: the preload library's path %s holds a space or colon, which "
                  "LD_PRELOAD cannot carry", lib);
        return CLI_EXIT_USAGE;
    }
    static char value[8192];
    if (cli_exec_ld_preload(lib, getenv("LD_PRELOAD"), value, sizeof(value)) != 0) {
        cli_error("exec: LD_PRELOAD too long");
        return CLI_EXIT_USAGE;
    }
    setenv("LD_PRELOAD", value, 1);
    execvp(argv[first], argv + first);
    cli_error("exec: %s: %s", argv[first], strerror(errno));
    return errno == ENOENT ? CLI_EXIT_USAGE : 126;
}
