/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* serve.h - what serve.c and serve_bench.c share. */
#ifndef PAGECLEAR_CLI_SERVE_H
#define PAGECLEAR_CLI_SERVE_H

/* `pageclear serve --bench ...` (serve_bench.c): argv as cli_serve got it. */
int cli_serve_bench(int argc, char **argv);

#endif
