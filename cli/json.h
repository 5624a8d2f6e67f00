/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * json.h - a small, bounded JSON reader for results files, and the
 * string quoting every JSON writer of the command uses (json.c).
 *
 * The whole text is parsed into an array of nodes, each value one node:
 * an array's or object's elements are its children, linked in order. The
 * reader refuses, with the line and column, whatever is not JSON (RFC
 * 8259) or goes beyond its bounds, and never reads outside [in, in + len).
 */
#ifndef PAGECLEAR_CLI_JSON_H
#define PAGECLEAR_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bounds: a results file of the default suite is ~100 KiB, of `check`
 * with -n 200 ~2 MiB; nesting is 3 deep; a record has ~25 members. */
#define CLI_JSON_MAX_BYTES ((size_t)32 << 20)
#define CLI_JSON_MAX_DEPTH 32
#define CLI_JSON_MAX_NODES ((size_t)4 << 20)
#define CLI_JSON_MAX_MEMBERS 128 /* per object: duplicates are looked for */

enum cli_json_type {
    CLI_JSON_NULL,
    CLI_JSON_FALSE,
    CLI_JSON_TRUE,
    CLI_JSON_NUMBER,
    CLI_JSON_STRING,
    CLI_JSON_ARRAY,
    CLI_JSON_OBJECT
};

struct cli_json_node {
    enum cli_json_type type;
    uint32_t key;   /* an object's member: its name's offset in the text */
    uint32_t str;   /* a string: its offset in the text (NUL-terminated) */
    uint32_t len;   /* a string: its bytes; array, object: its elements */
    uint32_t child; /* array, object: the first element; 0 for none */
    uint32_t next;  /* the next element of the same parent; 0 for none */
    double num;     /* a number */
};

struct cli_json {
    struct cli_json_node *node; /* node[0] is the whole text's value */
    size_t count, cap;
    char *text; /* decoded strings and member names */
    size_t text_used;
};

/* Parse in[0, len). 0, or -1 with the reason (and where) in err and doc
 * empty. A document parsed is freed with cli_json_free. */
int cli_json_parse(struct cli_json *doc, const char *in, size_t len, char *err, size_t errlen);
void cli_json_free(struct cli_json *doc);

const struct cli_json_node *cli_json_root(const struct cli_json *doc);
/* The member called name of object o; NULL if o is not an object or has
 * none. */
const struct cli_json_node *cli_json_get(const struct cli_json *doc,
                                         const struct cli_json_node *o, const char *name);
/* The first element of an array or object, and the one after n; NULL at
 * the end. */
const struct cli_json_node *cli_json_first(const struct cli_json *doc,
                                           const struct cli_json_node *n);
const struct cli_json_node *cli_json_next(const struct cli_json *doc,
                                          const struct cli_json_node *n);
/* A string's text, or NULL if n is not a string. */
const char *cli_json_str(const struct cli_json *doc, const struct cli_json_node *n);
/* The name of an object's member. */
const char *cli_json_key(const struct cli_json *doc, const struct cli_json_node *n);

/* Write s as a JSON string: quoted, with '"', '\\' and control
 * characters escaped. */
void cli_json_put_string(FILE *f, const char *s);

#endif
