/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command table and the option table: one source for parsing, --help,
 * -H and shell completion, so they cannot drift apart.
 */
#ifndef TSMCTL_CLI_H
#define TSMCTL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>

#include "tsmctl/output.h"

#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

enum opt_id {
	OPT_END = 0,
	OPT_ALL = 'a',
	OPT_HOST_BRIDGE = 'b',
	OPT_DEVICE = 'd',
	OPT_HELP = 'h',
	OPT_INTERVAL = 'i',
	OPT_LIST_COLUMNS = 'H',
	OPT_JSON = 'J',
	OPT_NOHEADINGS = 'n',
	OPT_OUTPUT = 'o',
	OPT_PAIRS = 'P',
	OPT_RAW = 'r',
	OPT_TSM = 't',
	OPT_VERBOSE = 'v',
	OPT_VERSION = 'V',
	OPT_SHELL = 'y',
	OPT_SYSROOT = 0x100,
	OPT_OUTPUT_ALL,
	OPT_DRY_RUN,
	OPT_NO_SYSLOG,
	OPT_KEEP_GOING,
	OPT_STRICT,
	OPT_WAIT,
	OPT_SHORT,
	OPT_REQUIRE_CONNECTED,
	OPT_LIST_CHECKS,
	/* report */
	OPT_NONCE,
	OPT_INBLOB,
	OPT_PRIVLEVEL,
	OPT_SERVICE_PROVIDER,
	OPT_SERVICE_GUID,
	OPT_SERVICE_MANIFEST_VERSION,
	OPT_OUTBLOB,
	OPT_AUXBLOB,
	OPT_MANIFESTBLOB,
	/* wait, watch, metrics */
	OPT_TIMEOUT,
	OPT_EXIT_ON_FAIL,
	OPT_COUNT,
	OPT_OUTPUT_FILE,
};

struct opt_def {
	int id;
	const char *name;	/* long name */
	int has_arg;		/* no_argument / required_argument */
	const char *arg;	/* argument placeholder for --help */
	const char *help;
};

/*
 * A filter value list (-d, -t, -b): canonical names; empty means "all". A
 * device slot ("41:00", every function of it) is kept as "0000:41:00.*".
 */
struct filter {
	char **v;
	size_t n;
};

struct cmd_def;

struct cmd_ctx {
	const struct cmd_def *cmd;
	char **args;		/* positional arguments */
	int nargs;
	struct output_opts out;
	const char *output_arg;
	bool output_all, list_columns, verbose, all;
	bool dry_run, no_syslog, keep_going, strict, shrt, list_checks;
	double wait_seconds;	/* < 0: do not wait */
	const char *require_connected;
	struct filter devices, tsms, hbs;
	/* Raw option values the command validates itself (NULL when absent). */
	const char *nonce, *inblob, *privlevel, *service_provider, *service_guid,
		   *service_manifest_version, *outblob, *auxblob, *manifestblob;
	const char *timeout, *interval, *count, *output_file;
	bool exit_on_fail;
};

struct cmd_def {
	const char *name;
	const char *args;	/* synopsis after the options, e.g. "BDF... TSM" */
	const char *summary;	/* one line for tsmctl --help */
	const char *description;
	const int *opts;	/* accepted options, OPT_END-terminated */
	const struct column *cols;
	size_t ncols;
	const char *json_name;	/* the view's JSON array ("devices"), for an empty document */
	const char *verbose_help;	/* what -v does here; NULL: the generic text */
	int (*run)(struct cmd_ctx *ctx);
	bool hidden;
};

extern const struct cmd_def *const commands[];
extern const size_t nr_commands;

const struct opt_def *opt_lookup(int id);
const struct cmd_def *cmd_lookup(const char *name);

/* Parse a command's options; exit status on error (EXIT_USAGE), -1 to go on. */
int cmd_parse(struct cmd_ctx *ctx, const struct cmd_def *cmd, int argc, char **argv);
void cmd_ctx_free(struct cmd_ctx *ctx);
void cmd_usage(FILE *out, const struct cmd_def *cmd);
/* One option per line, "--name ARG" / "-x ARG", for completion. */
void cmd_print_options(FILE *out, const struct cmd_def *cmd);
/* "tsmctl CMD: msg" + "Try 'tsmctl CMD --help'." → EXIT_USAGE (the message escaped) */
int usage_error(const struct cmd_def *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * getopt_long's '?' or ':' for ARG (the option word, argv[optind - 1]) and
 * OPTOPT, said as glibc says it: unrecognized, ambiguous (with the
 * possibilities), invalid, requires / does not allow an argument. EXIT_USAGE.
 */
int option_error(const struct cmd_def *cmd, const struct option *longopts, const char *arg,
		 int optopt, bool missing);
/* "tsmctl 0.2.0 (git DESCRIPTION)" on stdout. */
void print_version(void);

/* Strict option values: decimal digits (and one '.' for seconds) only. 0 or -EINVAL/-ERANGE. */
int parse_decimal(const char *s, unsigned long long max, unsigned long long *out);
int parse_seconds(const char *s, double max, double *out);

bool filter_match(const struct filter *f, const char *name);
static inline bool filter_active(const struct filter *f)
{
	return f->n > 0;
}

/* Set up columns for a view from ctx (-o, --output-all); EXIT_USAGE or -1. */
int view_columns(struct cmd_ctx *ctx, const int *defaults, size_t ndefaults);

struct tsm_snapshot;
/*
 * -d/-t/-b values that name nothing in the tree: message, with -J the empty
 * document, EXIT_FAIL; else -1.
 */
int filters_check(struct cmd_ctx *ctx, const struct tsm_snapshot *snap);
/* Any of -d, -t, -b given? */
bool filters_active(const struct cmd_ctx *ctx);
/* A filtered view showed nothing: "no WHAT matches -d ... -t ...[: REASON]" on stderr. */
void filters_matched_nothing(const struct cmd_ctx *ctx, const char *what, const char *reason);

/* Global state from the global options. */
extern const char *tsmctl_sysroot;
extern bool tsmctl_sysroot_from_env;	/* TSMCTL_SYSROOT, not --sysroot */
extern bool tsmctl_verbose;

#endif
