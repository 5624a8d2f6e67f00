/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* serve.h - what serve.c and serve_bench.c share. */
#ifndef PAGECLEAR_CLI_SERVE_H
#define PAGECLEAR_CLI_SERVE_H

#include "serve_config.h"

/* The configuration from path (NULL: the default file if it exists, else
 * the built-in defaults), names resolved. 0, or -1 after a message. */
int cli_serve_load(const char *path, struct serve_config *c);

/* `pageclear serve --bench ...` (serve_bench.c): argv as cli_serve got it. */
int cli_serve_bench(int argc, char **argv);

#endif
