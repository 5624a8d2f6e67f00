/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * perf_options.c - perf's option syntax, for `pageclear bench mem`: a script
 * that drives perf drives this unchanged, and a mistake gets the message
 * perf gives it (docs/perf.md says what perf accepts;
 * tests/integration/command/perf_shape.py
 * holds these messages to the real tool's, stored under tests/data/perf/).
 *   -s 4MB, -s4MB, -cl5      short options, values next or attached,
 *                            several switches in one word
 *   --size 4MB, --size=4MB   long ones, or any unambiguous beginning of
 *   --si=4MB, --no-cycles    one; "no-" turns a switch off
 *   --                       the end of the options
 * A bad value or a missing one: " Error: switch `l' expects a numerical
 * value" and the usage line; an unknown option: "  Error: unknown switch
 * `x'" and the whole usage; -h or --help: the whole usage. All on stderr;
 * the caller exits 129, as perf does.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define OPTS_WIDTH 24 /* the usage's column of help texts, less the gap */
#define OPTS_GAP 2
#define MAX_OPTS 16

static size_t count(const struct cli_perf_cmd *c)
{
    size_t n = 0;
    while (c->opts[n].name != NULL)
        n++;
    return n;
}

/* One option's line of the usage. */
static void option_line(const struct cli_perf_opt *o)
{
    int pos = fprintf(stderr, "    -%c, --%s", o->key, o->name);
    if (o->type == CLI_PERF_UINT)
        pos += fprintf(stderr, " <n>");
    else if (o->type == CLI_PERF_STRING)
        pos += fprintf(stderr, " <%s>", o->argh != NULL ? o->argh : "...");
    int pad = OPTS_WIDTH - pos;
    if (pos > OPTS_WIDTH) {
        fputc('\n', stderr);
        pad = OPTS_WIDTH;
    }
    fprintf(stderr, "%*s%s\n", pad + OPTS_GAP, "", o->help);
}

/* Usage order: by short name, whatever its case, then long name. */
static int before(const struct cli_perf_opt *a, const struct cli_perf_opt *b)
{
    int d = tolower((unsigned char)a->key) - tolower((unsigned char)b->key);
    return d != 0 ? d < 0 : strcmp(a->name, b->name) < 0;
}

void cli_perf_usage(const struct cli_perf_cmd *c)
{
    const struct cli_perf_opt *sorted[MAX_OPTS];
    size_t n = count(c);
    if (n > MAX_OPTS)
        n = MAX_OPTS;
    for (size_t i = 0; i < n; i++) { /* insertion sort: a handful */
        size_t j = i;
        while (j > 0 && before(&c->opts[i], sorted[j - 1])) {
            sorted[j] = sorted[j - 1];
            j--;
        }
        sorted[j] = &c->opts[i];
    }
    fprintf(stderr, "\n Usage: %s\n\n", c->usage);
    for (size_t i = 0; i < n; i++)
        option_line(sorted[i]);
    fputc('\n', stderr);
}

/* A bad or missing value (perf's opterror, then its short usage: the
 * usage line and the lines of the benchmark's own options it names). */
static int value_error(const struct cli_perf_cmd *c, const struct cli_perf_opt *o,
                       int is_short, int unset, const char *arg, const char *reason)
{
    if (is_short)
        fprintf(stderr, " Error: switch `%c' %s", o->key, reason);
    else
        fprintf(stderr, " Error: option `%s%s' %s", unset ? "no-" : "", o->name, reason);
    fprintf(stderr, "\n Usage: %s\n\n", c->usage);
    for (size_t i = 0; c->opts[i].name != NULL; i++) {
        const struct cli_perf_opt *x = &c->opts[i];
        if (x->own && (is_short ? x->key == o->key
                                : strncmp(x->name, arg, strlen(arg)) == 0))
            option_line(x);
    }
    return -1;
}

static int unknown(const struct cli_perf_cmd *c, const char *what, const char *name,
                   char key)
{
    if (name != NULL)
        fprintf(stderr, "  Error: unknown %s `%s'\n", what, name);
    else
        fprintf(stderr, "  Error: unknown %s `%c'\n", what, key);
    cli_perf_usage(c);
    return -1;
}

/* Store v into o; -1 after the message if it is no number (or does not
 * fit perf's unsigned int, which perf would wrap). */
static int set_value(const struct cli_perf_cmd *c, const struct cli_perf_opt *o,
                     const char *v, int is_short, const char *arg)
{
    if (o->type == CLI_PERF_STRING) {
        *(const char **)o->value = v;
        return 0;
    }
    if (v[0] == '-')
        return value_error(c, o, is_short, 0, arg, "expects an unsigned numerical value");
    char *end;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (*end != '\0')
        return value_error(c, o, is_short, 0, arg, "expects a numerical value");
    if (errno == ERANGE || n > UINT_MAX)
        return value_error(c, o, is_short, 0, arg, "expects a value below 2^32");
    *(unsigned int *)o->value = (unsigned int)n;
    return 0;
}

static const struct cli_perf_opt *by_key(const struct cli_perf_cmd *c, char key)
{
    for (size_t i = 0; c->opts[i].name != NULL; i++)
        if (c->opts[i].key == key)
            return &c->opts[i];
    return NULL;
}

/* "-size" meant as "--size": perf stops there, as it does here. */
static int typo(const struct cli_perf_cmd *c, const char *word)
{
    if (strlen(word) < 3)
        return 0;
    int hit = strncmp(word, "no-", 3) == 0;
    for (size_t i = 0; !hit && c->opts[i].name != NULL; i++)
        hit = c->opts[i].own && strncmp(c->opts[i].name, word, strlen(word)) == 0;
    if (hit)
        fprintf(stderr, " Error: did you mean `--%s` (with two dashes ?)\n", word);
    return hit;
}

/* One word of short options: switches, then at most one with a value
 * (the rest of the word, or the next word). */
static int short_word(const struct cli_perf_cmd *c, int argc, char **argv, int *i)
{
    const char *word = argv[*i] + 1, *p = word;
    while (*p != '\0') {
        if (*p == 'h') {
            cli_perf_usage(c);
            return -1;
        }
        const struct cli_perf_opt *o = by_key(c, *p);
        if (o == NULL)
            return unknown(c, "switch", NULL, *p);
        p++;
        if (o->type == CLI_PERF_BOOL) {
            *(int *)o->value = 1;
            if (p == word + 1 && *p != '\0' && typo(c, word))
                return -1;
            continue;
        }
        if (*p == '\0') {
            if (*i + 1 >= argc)
                return value_error(c, o, 1, 0, word, "requires a value");
            p = argv[++*i];
        }
        return set_value(c, o, p, 1, word);
    }
    return 0;
}

/* Which option a long word names: its whole name, or the only option
 * whose name (or "no-" and its name) it begins. */
static const struct cli_perf_opt *long_match(const struct cli_perf_cmd *c, const char *arg,
                                             size_t len, int *unset)
{
    const struct cli_perf_opt *last = NULL, *prev = NULL;
    int last_unset = 0, prev_unset = 0;
    for (size_t i = 0; c->opts[i].name != NULL; i++) {
        const struct cli_perf_opt *o = &c->opts[i];
        size_t ln = strlen(o->name);
        int neg = len >= 3 && strncmp(arg, "no-", 3) == 0;
        if (len == ln && strncmp(arg, o->name, ln) == 0)
            return *unset = 0, o;
        if (neg && len - 3 == ln && strncmp(arg + 3, o->name, ln) == 0)
            return *unset = 1, o;
        int u = -1;
        if (strncmp(o->name, arg, len) == 0)
            u = 0;
        else if (len <= 3 && strncmp("no-", arg, len) == 0)
            u = 1; /* "--n", "--no", "--no-": any switch turned off */
        else if (neg && strncmp(o->name, arg + 3, len - 3) == 0)
            u = 1;
        if (u >= 0) {
            prev = last, prev_unset = last_unset;
            last = o, last_unset = u;
        }
    }
    if (prev != NULL) {
        fprintf(stderr, " Error: Ambiguous option: %s (could be --%s%s or --%s%s)", arg,
                prev_unset ? "no-" : "", prev->name, last_unset ? "no-" : "", last->name);
        *unset = -1;
        return NULL;
    }
    *unset = last_unset;
    return last;
}

static int long_word(const struct cli_perf_cmd *c, int argc, char **argv, int *i)
{
    const char *arg = argv[*i] + 2;
    if (strcmp(arg, "help") == 0 || strcmp(arg, "help-all") == 0) {
        cli_perf_usage(c);
        return -1;
    }
    size_t len = strcspn(arg, "=");
    const char *eq = arg[len] == '=' ? arg + len + 1 : NULL;
    int unset;
    const struct cli_perf_opt *o = long_match(c, arg, len, &unset);
    if (o == NULL && unset < 0) { /* ambiguous: said; the usage line */
        fprintf(stderr, "\n Usage: %s\n\n", c->usage);
        return -1;
    }
    if (o == NULL)
        return unknown(c, "option", arg, 0);
    if ((unset || o->type == CLI_PERF_BOOL) && eq != NULL)
        return value_error(c, o, 0, unset, arg, "takes no value");
    if (o->type == CLI_PERF_BOOL) {
        *(int *)o->value = !unset;
        return 0;
    }
    /* perf would store nothing (a null string, a zero) and go on to
     * crash or divide by it; here it is refused. */
    if (unset)
        return value_error(c, o, 0, 1, arg, "isn't available");
    if (eq == NULL) {
        if (*i + 1 >= argc)
            return value_error(c, o, 0, 0, arg, "requires a value");
        eq = argv[++*i];
    }
    return set_value(c, o, eq, 0, arg);
}

int cli_perf_parse(const struct cli_perf_cmd *c, int argc, char **argv)
{
    int kept = 0, i = 0;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (a[0] != '-' || a[1] == '\0') {
            if (c->stop_at_word)
                break;
            argv[kept++] = argv[i];
            continue;
        }
        if (a[1] != '-')
            rc = short_word(c, argc, argv, &i);
        else if (a[2] == '\0')
            break;
        else
            rc = long_word(c, argc, argv, &i);
        if (rc != 0)
            return -1;
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    while (i < argc)
        argv[kept++] = argv[i++];
    return kept;
}
