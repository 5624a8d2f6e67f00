/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * serve_log.h - the daemon's log (serve_log.c): one line per event on
 * stderr, which systemd sends to the journal.
 */
#ifndef PAGECLEAR_SERVE_LOG_H
#define PAGECLEAR_SERVE_LOG_H

#include <stddef.h>

/* Levels, as syslog numbers them: the journal reads them from a "<N>"
 * prefix. */
enum serve_level { SERVE_ERR = 3, SERVE_WARNING = 4, SERVE_INFO = 6, SERVE_DEBUG = 7 };

/* Log one line at level: "pageclear-serve: MSG" on a terminal or file,
 * "<N>MSG" under systemd (JOURNAL_STREAM set). Lines are written with one
 * write(2), so threads never interleave within a line. Lines above
 * serve_log_level (SERVE_INFO unless changed) are not written. */
void serve_log(enum serve_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

extern enum serve_level serve_log_level;

/* A refusal's line: as serve_log at SERVE_INFO, but at most `per_second`
 * of them a second, with bursts of as many (serve_log_refusals sets it;
 * 10 until then). Lines past that are counted, and the count is logged
 * before the next line that passes: one user's flood of connections does
 * not flood the journal. */
void serve_log_refusal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void serve_log_refusals(unsigned per_second);

/* v bytes as a log line says them into buf (n bytes): the largest binary
 * unit that leaves at least 1 ("8MiB", "1.50GiB", "512B"), as the
 * command prints sizes, so that a log and `pageclear` agree. buf. */
const char *serve_log_size(unsigned long long v, char *buf, size_t n);

#endif
