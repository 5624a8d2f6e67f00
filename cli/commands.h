/*
 * commands.h - the subcommands' entry points, which main.c dispatches to.
 */
#ifndef PAGECLEAR_CLI_COMMANDS_H
#define PAGECLEAR_CLI_COMMANDS_H

/* The command line as main() got it (tune re-runs itself with it). */
extern char **cli_argv;

int cli_mem(int argc, char **argv);
int cli_mmap(int argc, char **argv);
int cli_info(void);
int cli_bench(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_tune(int argc, char **argv);
/* pool.c: `pageclear pool` / `pageclear parallel`. */
int cli_pool_cmd(const char *cmd, int argc, char **argv);

#endif
