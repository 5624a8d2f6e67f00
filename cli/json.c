/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * json.c - a small, bounded JSON reader (RFC 8259) for results files, and
 * JSON string quoting for the writers. Recursive descent over a length-
 * delimited text: never past in + len, nesting at most CLI_JSON_MAX_DEPTH
 * deep (so the stack is bounded), at most CLI_JSON_MAX_NODES values, and
 * strings decoded into one store no larger than the text (an escape never
 * decodes to more bytes than it takes). Duplicate member names, "\u0000",
 * lone surrogates and numbers beyond a double are refused: each would
 * make a results file mean two things.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define NUMBER_MAX 64 /* characters of a number: 17 significant digits,
                         sign, point, exponent, with room to spare */

struct parser {
    const char *in;
    size_t len, pos;
    struct cli_json *doc;
    char *err;
    size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The reason, prefixed with where: line and column (1-based, in bytes). */
static int fail(struct parser *p, const char *fmt, ...)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++, col++)
        if (p->in[i] == '\n')
            line++, col = 0;
    int w = snprintf(p->err, p->errlen, "line %zu, column %zu: ", line, col);
    if (w >= 0 && (size_t)w < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + w, p->errlen - (size_t)w, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int truncated(struct parser *p)
{
    return fail(p, "the text ends early (truncated?)");
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len && (p->in[p->pos] == ' ' || p->in[p->pos] == '\t' ||
                               p->in[p->pos] == '\n' || p->in[p->pos] == '\r'))
        p->pos++;
}

/* A new node of type t; its index in *out. */
static int new_node(struct parser *p, enum cli_json_type t, uint32_t *out)
{
    struct cli_json *d = p->doc;
    if (d->count == CLI_JSON_MAX_NODES)
        return fail(p, "more than %zu values", (size_t)CLI_JSON_MAX_NODES);
    if (d->count == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 256;
        struct cli_json_node *n = realloc(d->node, cap * sizeof(*n));
        if (n == NULL)
            return fail(p, "out of memory");
        d->node = n;
        d->cap = cap;
    }
    d->node[d->count] = (struct cli_json_node){.type = t};
    *out = (uint32_t)d->count++;
    return 0;
}

static int hex4(struct parser *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++, p->pos++) {
        if (p->pos >= p->len)
            return truncated(p);
        char c = p->in[p->pos];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return fail(p, "'\\u' needs four hexadecimal digits");
        *v = *v << 4 | d;
    }
    return 0;
}

/* "\uXXXX" (p->pos after the 'u'), a surrogate pair whole, as UTF-8. */
static int unicode(struct parser *p, char *out, size_t *n)
{
    unsigned c, lo;
    if (hex4(p, &c) != 0)
        return -1;
    if (c == 0)
        return fail(p, "'\\u0000' in a string is not accepted");
    if (c >= 0xdc00 && c <= 0xdfff)
        return fail(p, "a lone low surrogate '\\u%04x'", c);
    if (c >= 0xd800 && c <= 0xdbff) {
        size_t left = p->len - p->pos;
        if (left < 2 && memcmp(p->in + p->pos, "\\u", left) == 0)
            return p->pos = p->len, truncated(p); /* the text ends in "\\u" or before */
        if (left < 2 || p->in[p->pos] != '\\' || p->in[p->pos + 1] != 'u')
            return fail(p, "a high surrogate without its low half");
        p->pos += 2;
        if (hex4(p, &lo) != 0)
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail(p, "a high surrogate without its low half");
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
    }
    if (c < 0x80) {
        out[(*n)++] = (char)c;
    } else if (c < 0x800) {
        out[(*n)++] = (char)(0xc0 | c >> 6);
        out[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        out[(*n)++] = (char)(0xe0 | c >> 12);
        out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3f));
        out[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | c >> 18);
        out[(*n)++] = (char)(0x80 | (c >> 12 & 0x3f));
        out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3f));
        out[(*n)++] = (char)(0x80 | (c & 0x3f));
    }
    return 0;
}

/* One escape (p->pos at the character after '\\') into out[*n]. */
static int escape(struct parser *p, char *out, size_t *n)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (p->pos >= p->len)
        return truncated(p);
    char c = p->in[p->pos++];
    if (c == 'u')
        return unicode(p, out, n);
    const char *k = c ? strchr(from, c) : NULL;
    if (k == NULL)
        return p->pos--, fail(p, "an unknown escape (backslash, then byte 0x%02x)",
                              (unsigned char)c);
    out[(*n)++] = to[k - from];
    return 0;
}

/* A string at p->pos (its opening quote), decoded into the text store;
 * its offset and length. */
static int string(struct parser *p, uint32_t *off, uint32_t *len)
{
    struct cli_json *d = p->doc;
    char *out = d->text + d->text_used;
    size_t n = 0;
    p->pos++;
    for (;;) {
        if (p->pos >= p->len)
            return truncated(p);
        unsigned char c = (unsigned char)p->in[p->pos];
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(p, "a control character (0x%02x) in a string", c);
        p->pos++;
        if (c != '\\')
            out[n++] = (char)c;
        else if (escape(p, out, &n) != 0)
            return -1;
    }
    p->pos++;
    out[n] = '\0';
    *off = (uint32_t)d->text_used;
    *len = (uint32_t)n;
    d->text_used += n + 1;
    return 0;
}

static size_t digits(struct parser *p)
{
    size_t start = p->pos;
    while (p->pos < p->len && p->in[p->pos] >= '0' && p->in[p->pos] <= '9')
        p->pos++;
    return p->pos - start;
}

/* A number after JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(struct parser *p, double *v)
{
    size_t start = p->pos;
    char buf[NUMBER_MAX + 1];
    if (p->in[p->pos] == '-')
        p->pos++;
    size_t lead = p->pos;
    size_t nd = digits(p);
    if (nd == 0)
        return p->pos < p->len ? fail(p, "a number needs a digit") : truncated(p);
    if (nd > 1 && p->in[lead] == '0')
        return p->pos = lead, fail(p, "a number may not start with 0");
    if (p->pos < p->len && p->in[p->pos] == '.' && (++p->pos, digits(p) == 0))
        return p->pos < p->len ? fail(p, "a digit must follow the decimal point") : truncated(p);
    if (p->pos < p->len && (p->in[p->pos] == 'e' || p->in[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (p->in[p->pos] == '+' || p->in[p->pos] == '-'))
            p->pos++;
        if (digits(p) == 0)
            return p->pos < p->len ? fail(p, "a digit must follow the exponent") : truncated(p);
    }
    size_t n = p->pos - start;
    if (n > NUMBER_MAX)
        return p->pos = start, fail(p, "a number of more than %d characters", NUMBER_MAX);
    memcpy(buf, p->in + start, n);
    buf[n] = '\0';
    *v = strtod(buf, NULL);
    if (!isfinite(*v))
        return p->pos = start, fail(p, "a number beyond the range of a double");
    return 0;
}

static int literal(struct parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n)
        return memcmp(p->in + p->pos, word, p->len - p->pos) == 0
                   ? truncated(p)
                   : fail(p, "unexpected text (not a value)");
    if (memcmp(p->in + p->pos, word, n) != 0)
        return fail(p, "unexpected text (not a value)");
    p->pos += n;
    return 0;
}

static int value(struct parser *p, int depth, uint32_t *out);

/* The elements of an array or the members of an object, p->pos after
 * its opening bracket; linked as children of node `self`. */
static int elements(struct parser *p, int depth, uint32_t self, int object)
{
    const char close = object ? '}' : ']';
    uint32_t last = 0, count = 0;
    skip_ws(p);
    if (p->pos < p->len && p->in[p->pos] == close)
        return p->pos++, 0;
    for (;;) {
        uint32_t key = 0, klen, child;
        skip_ws(p);
        if (object) {
            if (p->pos >= p->len)
                return truncated(p);
            if (p->in[p->pos] != '"')
                return fail(p, "expected a member name in double quotes");
            if (string(p, &key, &klen) != 0)
                return -1;
            skip_ws(p);
            if (p->pos >= p->len)
                return truncated(p);
            if (p->in[p->pos++] != ':')
                return p->pos--, fail(p, "expected ':' after the member name");
            for (uint32_t i = p->doc->node[self].child; i != 0; i = p->doc->node[i].next)
                if (strcmp(p->doc->text + p->doc->node[i].key, p->doc->text + key) == 0)
                    return fail(p, "the member \"%.40s\" appears twice", p->doc->text + key);
            if (count == CLI_JSON_MAX_MEMBERS)
                return fail(p, "an object of more than %d members", CLI_JSON_MAX_MEMBERS);
        }
        if (value(p, depth + 1, &child) != 0)
            return -1;
        p->doc->node[child].key = key;
        if (last == 0)
            p->doc->node[self].child = child;
        else
            p->doc->node[last].next = child;
        last = child;
        p->doc->node[self].len = ++count;
        skip_ws(p);
        if (p->pos >= p->len)
            return truncated(p);
        char c = p->in[p->pos++];
        if (c == close)
            return 0;
        if (c != ',')
            return p->pos--, fail(p, "expected ',' or '%c'", close);
    }
}

static int value(struct parser *p, int depth, uint32_t *out)
{
    if (depth > CLI_JSON_MAX_DEPTH)
        return fail(p, "nested more than %d deep", CLI_JSON_MAX_DEPTH);
    skip_ws(p);
    if (p->pos >= p->len)
        return truncated(p);
    char c = p->in[p->pos];
    enum cli_json_type t = c == '{'   ? CLI_JSON_OBJECT
                           : c == '[' ? CLI_JSON_ARRAY
                           : c == '"' ? CLI_JSON_STRING
                           : c == 't' ? CLI_JSON_TRUE
                           : c == 'f' ? CLI_JSON_FALSE
                           : c == 'n' ? CLI_JSON_NULL
                                      : CLI_JSON_NUMBER;
    if (t == CLI_JSON_NUMBER && c != '-' && (c < '0' || c > '9'))
        return fail(p, "unexpected byte 0x%02x (not the start of a value)", (unsigned char)c);
    if (new_node(p, t, out) != 0)
        return -1;
    struct cli_json_node *n = &p->doc->node[*out];
    switch (t) {
    case CLI_JSON_OBJECT:
    case CLI_JSON_ARRAY:
        p->pos++;
        return elements(p, depth, *out, t == CLI_JSON_OBJECT);
    case CLI_JSON_STRING:
        return string(p, &n->str, &n->len);
    case CLI_JSON_NUMBER:
        return number(p, &n->num);
    default:
        return literal(p, t == CLI_JSON_TRUE ? "true" : t == CLI_JSON_FALSE ? "false" : "null");
    }
}

int cli_json_parse(struct cli_json *doc, const char *in, size_t len, char *err, size_t errlen)
{
    struct parser p = {in, len, 0, doc, err, errlen};
    uint32_t root;
    *doc = (struct cli_json){0};
    if (errlen > 0)
        err[0] = '\0';
    if (len > CLI_JSON_MAX_BYTES)
        return snprintf(err, errlen, "larger than %zu MiB", CLI_JSON_MAX_BYTES >> 20), -1;
    skip_ws(&p);
    if (p.pos == len)
        return snprintf(err, errlen, "empty: no JSON value"), -1;
    /* Decoded strings with their NULs never outgrow the text. */
    doc->text = malloc(len + 1);
    int rc = doc->text == NULL ? fail(&p, "out of memory") : value(&p, 0, &root);
    skip_ws(&p);
    if (rc == 0 && p.pos != len)
        rc = fail(&p, "text after the end of the JSON value");
    if (rc != 0)
        cli_json_free(doc);
    return rc;
}

void cli_json_free(struct cli_json *doc)
{
    free(doc->node);
    free(doc->text);
    *doc = (struct cli_json){0};
}

const struct cli_json_node *cli_json_root(const struct cli_json *doc)
{
    return doc->count ? &doc->node[0] : NULL;
}

const struct cli_json_node *cli_json_first(const struct cli_json *doc,
                                           const struct cli_json_node *n)
{
    if (n == NULL || (n->type != CLI_JSON_ARRAY && n->type != CLI_JSON_OBJECT) || !n->child)
        return NULL;
    return &doc->node[n->child];
}

const struct cli_json_node *cli_json_next(const struct cli_json *doc,
                                          const struct cli_json_node *n)
{
    return n != NULL && n->next ? &doc->node[n->next] : NULL;
}

const struct cli_json_node *cli_json_get(const struct cli_json *doc,
                                         const struct cli_json_node *o, const char *name)
{
    if (o == NULL || o->type != CLI_JSON_OBJECT)
        return NULL;
    for (const struct cli_json_node *m = cli_json_first(doc, o); m; m = cli_json_next(doc, m))
        if (strcmp(doc->text + m->key, name) == 0)
            return m;
    return NULL;
}

const char *cli_json_str(const struct cli_json *doc, const struct cli_json_node *n)
{
    return n != NULL && n->type == CLI_JSON_STRING ? doc->text + n->str : NULL;
}

const char *cli_json_key(const struct cli_json *doc, const struct cli_json_node *n)
{
    return doc->text + n->key;
}

void cli_json_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
