// SPDX-License-Identifier: GPL-2.0-or-later
/* tsmctl: main() and the command table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/cli.h"
#include "tsmctl/pci.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

extern const struct cmd_def cmd_list, cmd_devices, cmd_streams, cmd_host_bridges, cmd_audit;
extern const struct cmd_def cmd_connect, cmd_disconnect;
extern const struct cmd_def cmd_report;
extern const struct cmd_def cmd_lock, cmd_accept, cmd_unlock;
extern const struct cmd_def cmd_wait, cmd_watch, cmd_metrics;

const struct cmd_def *const commands[] = {
	&cmd_list,
	&cmd_devices,
	&cmd_streams,
	&cmd_host_bridges,
	&cmd_audit,
	&cmd_connect, &cmd_disconnect,
	&cmd_report,
	&cmd_lock, &cmd_accept, &cmd_unlock,
	&cmd_wait, &cmd_watch, &cmd_metrics,
};
const size_t nr_commands = ARRAY_SIZE(commands);

static void main_usage(FILE *out)
{
	fputs("\nUsage:\n tsmctl [--sysroot DIR] <command> [options]\n\n"
	      "Show and drive PCIe device security (TSM, IDE, TDISP) on Linux.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < nr_commands; i++)
		if (!commands[i]->hidden)
			fprintf(out, " %-14s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nOptions:\n"
	      "     --sysroot DIR   use DIR as the root of /sys (env TSMCTL_SYSROOT)\n"
	      " -h, --help          display this help\n"
	      " -V, --version       display version\n"
	      "\nRun 'tsmctl <command> --help' for a command's options.\n"
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

static int unknown_command(const char *name)
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
	fprintf(stderr, "tsmctl: unknown command '%s'%s%s%s\n", name,
		best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
	fputs("Try 'tsmctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* Index of the command word: the first argument that is not an option or its value. */
static int find_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--sysroot")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-' || streq(argv[i], "-"))
			return i;
	}
	return -1;
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

int main(int argc, char **argv)
{
	const struct cmd_def *cmd;
	struct cmd_ctx ctx;
	char **cargv;
	int ci, rc;

	if (argc >= 2 && (streq(argv[1], "--list-cmds") || streq(argv[1], "--list-opts") ||
			  streq(argv[1], "--list-cols")))
		return completion_query(argc, argv);
	ci = find_command(argc, argv);
	if (ci < 0) {
		for (int i = 1; i < argc; i++) {
			if (streq(argv[i], "-h") || streq(argv[i], "--help")) {
				main_usage(stdout);
				return EXIT_OK;
			}
			if (streq(argv[i], "-V") || streq(argv[i], "--version")) {
				printf("tsmctl %s\n", TSMCTL_VERSION);
				return EXIT_OK;
			}
		}
		if (argc > 1)
			return usage_error(NULL, "unrecognized option '%s'", argv[1]);
		main_usage(stderr);
		return EXIT_USAGE;
	}
	cmd = cmd_lookup(argv[ci]);
	if (!cmd)
		return unknown_command(argv[ci]);

	/* The command parses everything else, so global options may stand on either side. */
	cargv = xcalloc((size_t)argc, sizeof(*cargv));
	for (int i = 0, j = 0; i < argc; i++)
		if (i != ci)
			cargv[j++] = argv[i];
	tsmctl_sysroot = getenv("TSMCTL_SYSROOT");
	rc = cmd_parse(&ctx, cmd, argc - 1, cargv);
	if (rc >= 0)
		goto out;
	rc = sysfs_init(tsmctl_sysroot);
	if (rc < 0) {
		fprintf(stderr, "tsmctl %s: --sysroot %s: %s\n", cmd->name,
			tsmctl_sysroot ? tsmctl_sysroot : "/", strerror(-rc));
		rc = EXIT_USAGE;
		goto out;
	}
	rc = cmd->run(&ctx);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "tsmctl: write error: %s\n", strerror(errno));
		rc = EXIT_FAIL;
	}
	pci_names_exit();
	sysfs_exit();
out:
	cmd_ctx_free(&ctx);
	free(cargv);
	return rc;
}
