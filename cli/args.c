/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* args.c - argument helpers and error messages for the command. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pageclear.h"

#include "args.h"

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("pageclear: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_size(const char *opt, const char *s, size_t min, size_t *out)
{
    int rc = pc_parse_size(s, out);
    if (rc == 0 && *out < min) {
        cli_error("%s: the size must be at least %zu byte%s", opt, min, min == 1 ? "" : "s");
        return -1;
    }
    if (rc == -ERANGE) {
        cli_error("%s: size '%s' is too large", opt, s);
        return -1;
    }
    if (rc != 0) {
        cli_error("%s: invalid size '%s' (a number with an optional B, KB, MB, "
                  "GB or TB suffix; powers of 1024)", opt, s);
        return -1;
    }
    return 0;
}

int cli_uint(const char *opt, const char *s, unsigned long min,
             unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno == ERANGE || v < min ||
        v > max) {
        cli_error("%s: '%s' is not a whole number from %lu to %lu", opt, s, min,
                  max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_opt_value(const struct cli_opt *spec, const char *cmd, int argc,
                  char **argv, int *i, const char **val)
{
    const char *a = argv[*i];
    for (const struct cli_opt *o = spec; o->key; o++) {
        size_t ln = strlen(o->long_name);
        if (strncmp(a, o->long_name, ln) == 0 && a[ln] == '=') {
            *val = a + ln + 1;
            return o->key;
        }
        int shortm = a[0] == '-' && a[1] == o->key && a[2] == '\0';
        if (shortm || strcmp(a, o->long_name) == 0) {
            if (*i + 1 >= argc) {
                cli_error("%s: option '%s' needs a value", cmd, a);
                return -1;
            }
            *val = argv[++*i];
            return o->key;
        }
    }
    cli_error("%s: unknown option '%s'", cmd, a);
    return -1;
}

int cli_parse_format(const char *arg, enum cli_format *fmt)
{
    if (strcmp(arg, "--format=simple") == 0)
        *fmt = CLI_FMT_SIMPLE;
    else if (strcmp(arg, "--format=default") == 0)
        *fmt = CLI_FMT_DEFAULT;
    else if (strcmp(arg, "--json") == 0 || strcmp(arg, "--format=json") == 0)
        *fmt = CLI_FMT_JSON;
    else if (strcmp(arg, "--csv") == 0 || strcmp(arg, "--format=csv") == 0)
        *fmt = CLI_FMT_CSV;
    else
        return 0;
    return 1;
}

int cli_next_opt(const struct cli_opt *spec, const char *foreign, const char *cmd,
                 int argc, char **argv, int *i, enum cli_format *fmt, const char **val)
{
    while (*i < argc && cli_parse_format(argv[*i], fmt))
        ++*i;
    if (*i >= argc)
        return 0;
    const char *opt = argv[*i];
    int key = cli_opt_value(spec, cmd, argc, argv, i, val);
    ++*i;
    if (key > 0 && strchr(foreign, key) != NULL) {
        cli_error("%s: option '%s' is not for this command", cmd, opt);
        return -1;
    }
    return key;
}
