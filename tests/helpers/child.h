/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * child.h - running this test program again as a child with a controlled
 * environment, for what the library reads once per process (PAGECLEAR_*
 * variables, the profile). The child's stdout and stderr come back as
 * text. Every PAGECLEAR_* variable is cleared in the child and HOME points
 * at a directory that does not exist, XDG_CONFIG_HOME unset, so neither the
 * caller's variables nor a user profile can leak in, and the shipped
 * profiles are looked for in a directory that does not exist, so no
 * installed one can either; each case then sets what it tests.
 */
#ifndef PC_TEST_CHILD_H
#define PC_TEST_CHILD_H

#include <sys/wait.h>

#include "harness.h"

struct result {
    char out[2048];
    char err[2048];
};

/* A HOME with no profile under it: the lookup finds nothing there. */
#define CHILD_NO_HOME "/nonexistent/pageclear-test-home"
/* Shipped profiles: none there either. */
#define CHILD_NO_SHIPPED "/nonexistent/pageclear-test-profiles"

static inline void child_slurp(int fd, char *dst, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, dst + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    dst[n] = '\0';
    close(fd);
}

/* This program's path, for re-running it. */
static inline const char *child_self(void)
{
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0);
    self[n] = '\0';
    return self;
}

/* Run `self child` with env applied after the reset: "NAME=VALUE" sets,
 * a bare "NAME" unsets; env ends with NULL (env itself may be NULL). Under
 * an emulator (cross builds set PC_TEST_EMULATOR, e.g. qemu-aarch64 -L
 * ...) the child is started through it. The child must exit 0. */
static inline void child_run(const char *const *env, struct result *res)
{
    static const char *const reset[] = {
        "PAGECLEAR_IMPL", "PAGECLEAR_UNIT", "PAGECLEAR_VECTOR_MAX",
        "PAGECLEAR_NT_THRESHOLD", "PAGECLEAR_COLD_NT_THRESHOLD",
        "PAGECLEAR_PARALLEL_NT_THRESHOLD", "PAGECLEAR_QUIET", "PAGECLEAR_PROFILE",
        "XDG_CONFIG_HOME",
    };
    const char *self = child_self();
    int out[2], err[2];
    fflush(NULL);
    CHECK(pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        close(out[0]);
        close(err[0]);
        for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
            unsetenv(reset[i]);
        setenv("HOME", CHILD_NO_HOME, 1);
        setenv("PAGECLEAR_PROFILES_DIR", CHILD_NO_SHIPPED, 1);
        for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
            if (strchr(env[i], '=') != NULL)
                putenv((char *)env[i]);
            else
                unsetenv(env[i]);
        }
        if (getenv("PC_TEST_EMULATOR") != NULL)
            execl("/bin/sh", "sh", "-c", "exec $PC_TEST_EMULATOR \"$0\" child", self,
                  (char *)NULL);
        else
            execl(self, self, "child", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    child_slurp(err[0], res->err, sizeof(res->err)); /* small: no pipe deadlock */
    child_slurp(out[0], res->out, sizeof(res->out));
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "child with %s failed:\n%s%s\n",
                env && env[0] ? env[0] : "(defaults)", res->out, res->err);
        exit(1);
    }
}

/* The value of "key=value" in the child's output (key at a line start). */
static inline const char *child_field(const struct result *r, const char *key, char *buf,
                                      size_t n)
{
    size_t klen = strlen(key);
    const char *p = r->out;
    while (p != NULL && !(strncmp(p, key, klen) == 0 && p[klen] == '=')) {
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    if (p == NULL) {
        fprintf(stderr, "child output lacks %s:\n%s\n", key, r->out);
        exit(1);
    }
    p += klen + 1;
    size_t k = 0;
    while (p[k] && p[k] != '\n' && k + 1 < n) {
        buf[k] = p[k];
        k++;
    }
    buf[k] = '\0';
    return buf;
}

/* Lines on the child's stderr. */
static inline size_t child_err_lines(const struct result *r)
{
    size_t n = 0;
    for (const char *p = r->err; *p; p++)
        n += *p == '\n';
    return n;
}

#endif
