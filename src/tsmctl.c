// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl: main() and the command table. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/output.h"
#include "tsmctl/pci.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

const struct cmd_def *const commands[] = {
	&cmd_list,
	&cmd_devices,
	&cmd_streams,
	&cmd_host_bridges,
	&cmd_tree,
	&cmd_audit,
	&cmd_mitigations, &cmd_verify_mitigation,
	&cmd_connect, &cmd_disconnect,
	&cmd_report,
	&cmd_measurements, &cmd_extend,
	&cmd_evidence,
	&cmd_lock, &cmd_accept, &cmd_unlock,
	&cmd_wait, &cmd_watch, &cmd_metrics,
	&cmd_help,
};
const size_t nr_commands = ARRAY_SIZE(commands);

void tsmctl_usage(FILE *out)
{
	int width = 14;	/* the longest name sets the column (verify-mitigation) */

	fputs("\nUsage:\n tsmctl [--sysroot DIR] <command> [options]\n\n"
	      "Show and drive PCIe device security (TSM, IDE, TDISP) on Linux.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < nr_commands; i++)
		if (!commands[i]->hidden && (int)strlen(commands[i]->name) > width)
			width = (int)strlen(commands[i]->name);
	for (size_t i = 0; i < nr_commands; i++)
		if (!commands[i]->hidden)
			fprintf(out, " %-*s %s\n", width, commands[i]->name, commands[i]->summary);
	fputs("\nOptions:\n"
	      "     --sysroot DIR   read DIR/sys: DIR stands for / (env TSMCTL_SYSROOT)\n"
	      " -h, --help          display this help\n"
	      " -V, --version       display version\n"
	      "\nRun 'tsmctl help <command>' for a command's options.\n"
	      "For more details see tsmctl(8).\n", out);
}

/* Edit distance, for "did you mean" on a misspelled command. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xcalloc(lb + 1, sizeof(*row)), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;

			row[j] = sub < best ? sub : best;
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

int tsmctl_unknown_command(const char *name)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (size_t i = 0; i < nr_commands; i++) {
		size_t d = distance(name, commands[i]->name);

		if (d < bestd) {
			bestd = d;
			best = commands[i]->name;
		}
	}
	cmd_error(NULL, "unknown command '%s'%s%s%s", name,
		  best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
	fputs("Try 'tsmctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* "--sysroot" as getopt_long also takes it: any unambiguous prefix from "--sy" on. */
static bool is_sysroot_option(const char *arg)
{
	size_t n = strlen(arg);

	return n >= 4 && !strchr(arg, '=') && !strncmp(arg, "--sysroot", n);
}

/* Index of the command word: the first argument that is not an option or its value. */
static int find_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (is_sysroot_option(argv[i])) {
			i++;
			continue;
		}
		if (argv[i][0] != '-' || streq(argv[i], "-"))
			return i;
	}
	return -1;
}

/* No command word: only the global options, with getopt's own checks and words. */
static int run_without_command(int argc, char **argv)
{
	enum { SYSROOT = 0x100 };
	static const struct option longopts[] = {
		{ "sysroot", required_argument, NULL, SYSROOT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			tsmctl_usage(stdout);
			return EXIT_OK;
		case 'V':
			print_version();
			return EXIT_OK;
		case SYSROOT:
		case 'v':
			break;
		default:
			return option_error(NULL, longopts, argv[optind - 1], optopt, c == ':');
		}
	}
	if (argc > 1)
		cmd_error(NULL, "no command given");
	tsmctl_usage(stderr);
	return EXIT_USAGE;
}

/* Hidden queries for shell completion, answered from the same tables as --help. */
static int completion_query(int argc, char **argv)
{
	const struct cmd_def *cmd = argc > 2 ? cmd_lookup(argv[2]) : NULL;

	if (streq(argv[1], "--list-cmds")) {
		for (size_t i = 0; i < nr_commands; i++)
			if (!commands[i]->hidden)
				puts(commands[i]->name);
		return EXIT_OK;
	}
	if (!cmd)
		return EXIT_USAGE;
	if (streq(argv[1], "--list-opts")) {
		cmd_print_options(stdout, cmd);
		return EXIT_OK;
	}
	for (size_t i = 0; i < cmd->ncols; i++)
		puts(cmd->cols[i].name);
	return EXIT_OK;
}

/* Where the root came from, for messages: "--sysroot DIR" or "TSMCTL_SYSROOT=DIR". */
static char *sysroot_origin(void)
{
	return xasprintf(tsmctl_sysroot_from_env ? "TSMCTL_SYSROOT=%s" : "--sysroot %s",
			 tsmctl_sysroot);
}

/* Open the root: 0, or EXIT_USAGE for a sysroot that is no directory or holds no sys/. */
static int open_root(const struct cmd_def *cmd)
{
	char *origin;
	int rc = sysfs_init(tsmctl_sysroot);

	if (!rc && (!tsmctl_sysroot || sysfs_root_has_sys()))
		return 0;
	origin = sysroot_origin();
	if (rc)
		cmd_error(cmd->name, "%s: %s", origin, strerror(-rc));
	else
		cmd_error(cmd->name, "%s: no sys/ directory in it: not a root directory tree "
			  "(tsmctl reads DIR/sys/class/tsm, DIR/sys/bus/pci, ...)", origin);
	free(origin);
	sysfs_exit();
	return EXIT_USAGE;
}

/* -J and no document yet (a usage error, a timeout, a refusal): the command's empty one. */
static void json_fallback(const struct cmd_ctx *ctx)
{
	const struct cmd_def *cmd = ctx->cmd;

	if (!ctx->out.json || json_document_printed())
		return;
	if (cmd->json_empty)
		cmd->json_empty(cmd);
	else if (cmd->json_name)
		json_list_empty(stdout, cmd->json_name);
}

static int run(int argc, char **argv)
{
	const struct cmd_def *cmd;
	const char *env;
	struct cmd_ctx ctx;
	char **cargv;
	int ci, rc;

	if (argc >= 2 && (streq(argv[1], "--list-cmds") || streq(argv[1], "--list-opts") ||
			  streq(argv[1], "--list-cols")))
		return completion_query(argc, argv);
	ci = find_command(argc, argv);
	if (ci < 0)
		return run_without_command(argc, argv);
	cmd = cmd_lookup(argv[ci]);
	if (!cmd)
		return tsmctl_unknown_command(argv[ci]);

	/* The command parses everything else, so global options may stand on either side. */
	cargv = xcalloc((size_t)argc, sizeof(*cargv));
	for (int i = 0, j = 0; i < argc; i++)
		if (i != ci)
			cargv[j++] = argv[i];
	/* an empty variable is an unset one; --sysroot overrides it */
	env = getenv("TSMCTL_SYSROOT");
	tsmctl_sysroot = env && *env ? env : NULL;
	tsmctl_sysroot_from_env = tsmctl_sysroot != NULL;
	if (!cmd_parse(&ctx, cmd, argc - 1, cargv, &rc)) {
		/* --help and --version print their text, nothing else */
		if (rc)
			json_fallback(&ctx);
		goto out;
	}
	/* help reads no tree: a broken TSMCTL_SYSROOT must not hide it */
	rc = cmd == &cmd_help ? 0 : open_root(cmd);
	if (!rc) {
		rc = cmd->run(&ctx);
		pci_names_exit();
		sysfs_exit();
	}
	json_fallback(&ctx);
out:
	cmd_ctx_free(&ctx);
	free(cargv);
	return rc;
}

int main(int argc, char **argv)
{
	/* a document of a thousand streams in 64 KiB writes, not 4 KiB ones; a terminal keeps lines */
	static char out_buf[65536];

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	/* every path, --help and --version included, ends with stdout checked */
	return close_stdout(run(argc, argv));
}
