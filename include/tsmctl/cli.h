/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Commands and their option tables: one source for parsing, --help, -H and
 * shell completion, so they cannot drift apart.
 *
 * A command's options, in the shape of ndctl's builtins:
 *
 *	static struct wait_param { const char *timeout; } param;
 *	static const struct opt_def wait_opts[] = {
 *		OPT_STRING(0, "timeout", &param.timeout, "SECONDS", "give up after SECONDS"),
 *		OPT_COMMON(COMMON_JSON), OPT_END()
 *	};
 *
 * and .opts = wait_opts in its struct cmd_def.
 */
#ifndef TSMCTL_CLI_H
#define TSMCTL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>

#include "tsmctl/output.h"

/*
 * Return convention. Below the commands (model, sysfs, actions) functions
 * return 0 or -errno; only the commands (cmd-*.c, tsmctl.c) turn results into
 * exit statuses. A step a command takes before its work (checking an option,
 * the filters) returns 0 to go on, or the exit status (> 0) the command ends
 * with, its message said. The two steps that can also end a command
 * successfully (cmd_parse: --help, --version; a view's -H) return true to go
 * on, or false with the exit status in *status.
 */
#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

/*
 * The options every command may share: their words (name, argument, help) are
 * cli.c's, and they fill struct cmd_ctx. A command's own options live in its
 * own table and fill its own parameter struct (see OPT_BOOLEAN below).
 */
enum common_opt {
	COMMON_NONE = 0,
	COMMON_ALL,		/* -a: act on (devices: show) every candidate */
	COMMON_HOST_BRIDGE,	/* -b LIST */
	COMMON_DEVICE,		/* -d LIST */
	COMMON_TSM,		/* -t LIST */
	COMMON_JSON,		/* -J */
	COMMON_OUTPUT,		/* -o LIST */
	COMMON_OUTPUT_ALL,
	COMMON_LIST_COLUMNS,	/* -H */
	COMMON_NOHEADINGS,	/* -n */
	COMMON_RAW,		/* -r */
	COMMON_PAIRS,		/* -P */
	COMMON_SHELL,		/* -y */
	/* every command takes these four, listed after its own */
	COMMON_SYSROOT,
	COMMON_VERBOSE,		/* -v */
	COMMON_HELP,		/* -h */
	COMMON_VERSION,		/* -V */
	COMMON_NR
};

struct cmd_def;

/*
 * One option of a command's table, in --help order. Either a shared one
 * (OPT_COMMON) or the command's own, which fills one field of the command's
 * parameter struct: a flag, the raw argument (checked by the command), or
 * what a parse function makes of it at parse time.
 */
struct opt_def {
	int short_name;		/* 'x', or 0: long only */
	const char *name;	/* long name; NULL ends the table */
	const char *arg;	/* argument placeholder for --help; NULL: takes no argument */
	const char *help;
	enum common_opt common;	/* a shared option; the fields above are cli.c's */
	bool *flag;
	const char **value;
	/* 0, or a usage error's exit status (usage_error()) */
	int (*parse)(const struct cmd_def *cmd, const char *arg, void *dest);
	void *dest;
};

/* a shared option by its id; "" only keeps the table going (the words are cli.c's) */
#define OPT_COMMON(id)	{ .name = "", .common = (id) }
/* a shared option whose --help text is the command's own (devices -a shows, it does not act) */
#define OPT_COMMON_HELP(id, h)	{ .name = "", .common = (id), .help = (h) }
#define OPT_BOOLEAN(s, l, v, h)	{ .short_name = (s), .name = (l), .help = (h), .flag = (v) }
#define OPT_STRING(s, l, v, a, h) \
	{ .short_name = (s), .name = (l), .arg = (a), .help = (h), .value = (v) }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ .short_name = (s), .name = (l), .arg = (a), .help = (h), .parse = (f), .dest = (v) }
#define OPT_END()	{ .name = NULL }

/* The output options of a view (-J, -o, --output-all, -H, -n, -r, -P, -y), in this order. */
#define OPT_VIEW_OUTPUT() \
	OPT_COMMON(COMMON_JSON), OPT_COMMON(COMMON_OUTPUT), OPT_COMMON(COMMON_OUTPUT_ALL), \
	OPT_COMMON(COMMON_LIST_COLUMNS), OPT_COMMON(COMMON_NOHEADINGS), \
	OPT_COMMON(COMMON_RAW), OPT_COMMON(COMMON_PAIRS), OPT_COMMON(COMMON_SHELL)

/*
 * A filter value list (-d, -t, -b): canonical names; empty means "all". A
 * device slot ("41:00", every function of it) is kept as "0000:41:00.*".
 */
struct filter {
	char **v;
	size_t n;
};

/* What the shared options say; a command's own options are in its own parameter struct. */
struct cmd_ctx {
	const struct cmd_def *cmd;
	char **args;		/* positional arguments */
	int nargs;
	struct output_opts out;
	const char *output_arg;
	bool output_all, list_columns, verbose, all;
	struct filter devices, tsms, hbs;
};

struct cmd_def {
	const char *name;
	const char *args;	/* synopsis after the options, e.g. "BDF... TSM" */
	const char *summary;	/* one line for tsmctl --help */
	const char *description;
	const struct opt_def *opts;	/* its options in --help order, OPT_END()-terminated */
	const struct column *cols;
	size_t ncols;
	/*
	 * With -J, the document of a run that ends without one (a usage error,
	 * a timeout, a filter naming nothing): the empty JSON_NAME list
	 * ("devices"), or what JSON_EMPTY prints. Neither: no document (watch's
	 * lines, evidence's own).
	 */
	const char *json_name;
	void (*json_empty)(const struct cmd_def *cmd);
	const char *verbose_help;	/* what -v does here; NULL: the generic text */
	int (*run)(struct cmd_ctx *ctx);
	bool hidden;
};

extern const struct cmd_def *const commands[];
extern const size_t nr_commands;

const struct cmd_def *cmd_lookup(const char *name);

/*
 * Parse a command's options: the shared ones into CTX, its own into its
 * parameter struct. True to run the command; false when parsing ended it,
 * *status its exit status (EXIT_OK after --help or --version, EXIT_USAGE).
 */
bool cmd_parse(struct cmd_ctx *ctx, const struct cmd_def *cmd, int argc, char **argv, int *status);
void cmd_ctx_free(struct cmd_ctx *ctx);
void cmd_usage(FILE *out, const struct cmd_def *cmd);
/* One option per line, "--name ARG" / "-x ARG", for completion. */
void cmd_print_options(FILE *out, const struct cmd_def *cmd);
/* "tsmctl CMD: msg" + "Try 'tsmctl CMD --help'." → EXIT_USAGE (the message escaped) */
int usage_error(const struct cmd_def *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "extra operand 'ARG'" and what CMD takes (its synopsis, or none): EXIT_USAGE. */
int extra_operand(const struct cmd_def *cmd, const char *arg);
/*
 * getopt_long's '?' or ':' for ARG (the option word, argv[optind - 1]) and
 * OPTOPT, said as glibc says it: unrecognized, ambiguous (with the
 * possibilities), invalid, requires / does not allow an argument. EXIT_USAGE.
 */
int option_error(const struct cmd_def *cmd, const struct option *longopts, const char *arg,
		 int optopt, bool missing);
/* "tsmctl 0.2.0 (git DESCRIPTION)" on stdout. */
void print_version(void);
/* tsmctl --help: the commands (tsmctl.c). */
void tsmctl_usage(FILE *out);
/* "unknown command 'X'; did you mean 'Y'?" and a pointer to --help: EXIT_USAGE (tsmctl.c). */
int tsmctl_unknown_command(const char *name);

/* Strict option values: decimal digits (and one '.' for seconds) only. 0 or -EINVAL/-ERANGE. */
int parse_decimal(const char *s, unsigned long long max, unsigned long long *out);
int parse_seconds(const char *s, double max, double *out);

/*
 * Binary inputs the kernel caps (report --nonce/--inblob, evidence
 * --nonce/--nonce-file): HEX as pairs of hex digits, or FILE ('-': stdin)
 * read whole, into OUT, at most MAX bytes and at least one. 0, or the
 * usage error (or, for a file that cannot be read, EXIT_FAIL) said.
 */
int parse_hex_option(const struct cmd_def *cmd, const char *opt, const char *hex, uint8_t *out,
		     size_t max, size_t *len);
int read_option_file(const struct cmd_def *cmd, const char *opt, const char *file, uint8_t *out,
		     size_t max, size_t *len);

/*
 * OPT's list ARG (comma- or blank-separated) into *ITEMS (list_split()): 0,
 * or the usage error for an empty value ("41:00.0,"), said: EXIT_USAGE.
 */
int option_list(const struct cmd_def *cmd, const char *opt, const char *arg, char ***items,
		size_t *n);

bool filter_match(const struct filter *f, const char *name);
/* ARG added to the filter ID (COMMON_DEVICE, _TSM, _HOST_BRIDGE) as the option reads it: 0 or EXIT_USAGE. */
int filter_add_arg(struct cmd_ctx *ctx, enum common_opt id, const char *arg);
static inline bool filter_active(const struct filter *f)
{
	return f->n > 0;
}

struct tsm_snapshot;
/*
 * -d/-t/-b values that name nothing in the tree: message, with -J the empty
 * document, EXIT_FAIL; else 0 (go on).
 */
int filters_check(struct cmd_ctx *ctx, const struct tsm_snapshot *snap);
/* Any of -d, -t, -b given? */
bool filters_active(const struct cmd_ctx *ctx);
/* A filtered view showed nothing: "no WHAT matches -d ... -t ...[: REASON]" on stderr. */
void filters_matched_nothing(const struct cmd_ctx *ctx, const char *what, const char *reason);

/* Global state from the global options. */
extern const char *tsmctl_sysroot;
extern bool tsmctl_sysroot_from_env;	/* TSMCTL_SYSROOT, not --sysroot */

#endif
