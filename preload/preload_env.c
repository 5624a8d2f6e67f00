/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * preload_env.c - the preload's variables (preload_env.h). No stdio and
 * no allocation: the constructor may run before the C library's stdio is
 * ready for a program, and a bad value is said with one write(2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload_env.h"

int pci_env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    if (v == NULL)
        return value == NULL;
    return value != NULL && strcmp(v, value) == 0;
}

/* Say that name's value v is ignored: want says what is taken. */
static void ignored(const char *name, const char *v, const char *want)
{
    if (pci_env_is("PAGECLEAR_QUIET", "1"))
        return;
    char msg[256];
    int k = snprintf(msg, sizeof(msg),
                     "pageclear-preload: ignoring %s=\"%.64s\": want %s; keeping the default\n",
                     name, v, want);
    size_t len = k < 0 ? 0 : (size_t)k < sizeof(msg) ? (size_t)k : sizeof(msg) - 1;
    (void)!write(STDERR_FILENO, msg, len);
}

int pci_env_switch(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (v == NULL || v[0] == '\0')
        return dflt;
    if ((v[0] == '0' || v[0] == '1') && v[1] == '\0')
        return v[0] - '0';
    ignored(name, v, "0 or 1");
    return dflt;
}

int pci_env_choice(const char *name, const char *const *words, int n, int dflt)
{
    const char *v = getenv(name);
    if (v == NULL || v[0] == '\0')
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(v, words[i]) == 0)
            return i;
    char want[128] = "";
    size_t at = 0;
    for (int i = 0; i < n && at < sizeof(want); i++) {
        int k = snprintf(want + at, sizeof(want) - at, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                         words[i]);
        at += k > 0 ? (size_t)k : 0;
    }
    ignored(name, v, want);
    return dflt;
}
