// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl help [COMMAND]: the commands, or one command's --help, as git help and ip help give them. */
#include <stdio.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"

static int run_help(struct cmd_ctx *ctx)
{
	const struct cmd_def *cmd;

	if (ctx->nargs > 1)
		return extra_operand(ctx->cmd, ctx->args[1]);
	if (!ctx->nargs) {
		tsmctl_usage(stdout);
		return EXIT_OK;
	}
	cmd = cmd_lookup(ctx->args[0]);
	if (!cmd)
		return tsmctl_unknown_command(ctx->args[0]);
	cmd_usage(stdout, cmd);
	return EXIT_OK;
}

const struct cmd_def cmd_help = {
	.name = "help",
	.args = "[COMMAND]",
	.summary = "show the commands, or a command's options (its --help)",
	.description = "Without a command, list the commands; with one, print its --help: options,\n"
		       "columns and where its manual page is. Reads no tree",
	.run = run_help,
};
