// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/cli.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

const char *tsmctl_sysroot;
bool tsmctl_sysroot_from_env;
bool tsmctl_verbose;

static const struct opt_def opt_table[] = {
	{ OPT_ALL, "all", no_argument, NULL, "act on / show every candidate" },
	{ OPT_HOST_BRIDGE, "host-bridge", required_argument, "NAME", "only these host bridges (pciDDDD:BB, list)" },
	{ OPT_DEVICE, "device", required_argument, "BDF", "only these devices ([DDDD:]BB:DD.F, list)" },
	{ OPT_TSM, "tsm", required_argument, "NAME", "only these TSMs (tsmN, list)" },
	{ OPT_JSON, "json", no_argument, NULL, "use JSON output format" },
	{ OPT_OUTPUT, "output", required_argument, "LIST", "output columns (+LIST appends to the default)" },
	{ OPT_OUTPUT_ALL, "output-all", no_argument, NULL, "output all columns" },
	{ OPT_LIST_COLUMNS, "list-columns", no_argument, NULL, "list the available columns" },
	{ OPT_NOHEADINGS, "noheadings", no_argument, NULL, "don't print headings" },
	{ OPT_RAW, "raw", no_argument, NULL, "use the raw output format" },
	{ OPT_PAIRS, "pairs", no_argument, NULL, "use the key=\"value\" output format" },
	{ OPT_SHELL, "shell", no_argument, NULL, "use column names usable as shell variables (-P: HOST_BRIDGE=)" },
	{ OPT_DRY_RUN, "dry-run", no_argument, NULL, "say what would be written where; change nothing" },
	{ OPT_NO_SYSLOG, "no-syslog", no_argument, NULL, "do not log the stores to the system log (audit trail)" },
	{ OPT_KEEP_GOING, "keep-going", no_argument, NULL, "go on with the next target after a failure" },
	{ OPT_STRICT, "strict", no_argument, NULL, "treat 'already done' (or warnings) as failure" },
	{ OPT_WAIT, "wait", required_argument, "SECONDS", "wait up to SECONDS for the TSM and device" },
	{ OPT_SHORT, "short", no_argument, NULL, "show only results that did not pass" },
	{ OPT_REQUIRE_CONNECTED, "require-connected", required_argument, "LIST", "devices that must be connected (BDF list or 'all')" },
	{ OPT_LIST_CHECKS, "list-checks", no_argument, NULL, "list the checks: id, category, parent, description" },
	{ OPT_NONCE, "nonce", required_argument, "HEX", "report data: up to 64 bytes as hex digits" },
	{ OPT_INBLOB, "inblob", required_argument, "FILE", "report data: up to 64 bytes from FILE ('-': stdin)" },
	{ OPT_PRIVLEVEL, "privlevel", required_argument, "N", "privilege level of the report (0-3)" },
	{ OPT_SERVICE_PROVIDER, "service-provider", required_argument, "NAME", "service provider of a service report (svsm)" },
	{ OPT_SERVICE_GUID, "service-guid", required_argument, "UUID", "service GUID of a service report" },
	{ OPT_SERVICE_MANIFEST_VERSION, "service-manifest-version", required_argument, "N", "service manifest version" },
	{ OPT_OUTBLOB, "outblob", required_argument, "FILE", "write the report to FILE ('-': stdout)" },
	{ OPT_AUXBLOB, "auxblob", required_argument, "FILE", "write the auxiliary blob to FILE" },
	{ OPT_MANIFESTBLOB, "manifestblob", required_argument, "FILE", "write the service manifest to FILE" },
	{ OPT_TIMEOUT, "timeout", required_argument, "SECONDS", "give up after SECONDS" },
	{ OPT_INTERVAL, "interval", required_argument, "SECONDS", "re-read the state every SECONDS" },
	{ OPT_EXIT_ON_FAIL, "exit-on-fail", no_argument, NULL, "exit non-zero at the first failure event" },
	{ OPT_COUNT, "count", required_argument, "N", "stop after N intervals" },
	{ OPT_OUTPUT_FILE, "output-file", required_argument, "FILE", "write to FILE atomically (temporary file, rename; '-': stdout)" },
	{ OPT_SYSROOT, "sysroot", required_argument, "DIR", "use DIR as the root of /sys (env TSMCTL_SYSROOT)" },
	{ OPT_VERBOSE, "verbose", no_argument, NULL, "say on stderr which links leave the root" },
	{ OPT_HELP, "help", no_argument, NULL, "display this help" },
	{ OPT_VERSION, "version", no_argument, NULL, "display version" },
};

const struct opt_def *opt_lookup(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_table); i++)
		if (opt_table[i].id == id)
			return &opt_table[i];
	return NULL;
}

const struct cmd_def *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < nr_commands; i++)
		if (streq(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* Options every command takes, appended to its own list. */
static const int global_opts[] = { OPT_SYSROOT, OPT_VERBOSE, OPT_HELP, OPT_VERSION, OPT_END };

static bool cmd_accepts(const struct cmd_def *cmd, int id)
{
	for (const int *p = cmd->opts; p && *p; p++)
		if (*p == id)
			return true;
	for (const int *p = global_opts; *p; p++)
		if (*p == id)
			return true;
	return false;
}

static void print_opt(FILE *out, const struct cmd_def *cmd, const struct opt_def *o)
{
	const char *help = o->id == OPT_VERBOSE && cmd->verbose_help ? cmd->verbose_help : o->help;
	char buf[64];

	if (o->id < 0x100)
		snprintf(buf, sizeof(buf), "-%c, --%s%s%s", o->id, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(buf, sizeof(buf), "    --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	fprintf(out, " %-28s %s\n", buf, help);
}

void cmd_print_options(FILE *out, const struct cmd_def *cmd)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_table); i++) {
		const struct opt_def *o = &opt_table[i];

		if (!cmd_accepts(cmd, o->id))
			continue;
		fprintf(out, "--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (o->id < 0x100)
			fprintf(out, "-%c%s%s\n", o->id, o->arg ? " " : "", o->arg ? o->arg : "");
	}
}

void cmd_usage(FILE *out, const struct cmd_def *cmd)
{
	fprintf(out, "\nUsage:\n tsmctl %s [options]%s%s\n\n%s.\n", cmd->name,
		cmd->args ? " " : "", cmd->args ? cmd->args : "", cmd->description);
	fputs("\nOptions:\n", out);
	for (const int *p = cmd->opts; p && *p; p++)
		print_opt(out, cmd, opt_lookup(*p));
	print_opt(out, cmd, opt_lookup(OPT_SYSROOT));
	print_opt(out, cmd, opt_lookup(OPT_VERBOSE));
	fputs("\n", out);
	print_opt(out, cmd, opt_lookup(OPT_HELP));
	print_opt(out, cmd, opt_lookup(OPT_VERSION));
	if (cmd->ncols) {
		fputs("\nAvailable output columns:\n", out);
		columns_print_help(out, cmd->cols, cmd->ncols);
	}
	fprintf(out, "\nFor more details see tsmctl-%s(8).\n", cmd->name);
}

int usage_error(const struct cmd_def *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	print_error("tsmctl%s%s: %s", cmd ? " " : "", cmd ? cmd->name : "", msg);
	fprintf(stderr, "Try 'tsmctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd->name : "");
	free(msg);
	return EXIT_USAGE;
}

int option_error(const struct cmd_def *cmd, const struct option *longopts, const char *arg,
		 int optopt, bool missing)
{
	char *name, *list = NULL;
	size_t len, matches = 0;
	bool exact = false;
	int rc;

	if (!startswith(arg, "--")) {
		if (missing)
			return usage_error(cmd, "option '-%c' requires an argument", optopt);
		if (optopt > 0x20 && optopt < 0x7f)
			return usage_error(cmd, "invalid option '-%c'", optopt);
		return usage_error(cmd, "invalid option '%s'", arg);
	}
	len = strcspn(arg + 2, "=");
	name = xstrndup(arg + 2, len);
	if (missing) {
		rc = usage_error(cmd, "option '--%s' requires an argument", name);
		free(name);
		return rc;
	}
	for (const struct option *o = longopts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		exact |= strlen(o->name) == len;
		str_join(&list, "", " '--%s'", o->name);
		matches++;
	}
	if (exact)
		rc = usage_error(cmd, "option '--%s' doesn't allow an argument", name);
	else if (matches > 1)
		rc = usage_error(cmd, "option '--%s' is ambiguous; possibilities:%s", name, list);
	else
		rc = usage_error(cmd, "unrecognized option '--%s'", name);
	free(list);
	free(name);
	return rc;
}

void print_version(void)
{
	if (*TSMCTL_GIT)
		printf("tsmctl %s (git %s)\n", TSMCTL_VERSION, TSMCTL_GIT);
	else
		printf("tsmctl %s\n", TSMCTL_VERSION);
}

int parse_decimal(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (unsigned)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned)(*s - '0');
	}
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double max, double *out)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;

	/* "2", "0.5", ".5", "2.": no sign, exponent, hex, inf or blanks (strtod takes them all) */
	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789") + 1;
	if (whole + frac == 0 || (whole == 0 && frac == 1) || s[whole + frac])
		return -EINVAL;
	*out = strtod(s, NULL);
	return *out > max ? -ERANGE : 0;
}

static void filter_add(struct filter *f, const char *v)
{
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	f->v[f->n++] = xstrdup(v);
}

/* "41:00" or "0000:41:00", lspci -s's slot: "0000:41:00.*" into BUF; 0 or -EINVAL. */
static int slot_canonical(const char *tok, char buf[BDF_MAX])
{
	char with_fn[BDF_MAX + 2];

	if (strchr(tok, '.') || strlen(tok) >= BDF_MAX)
		return -EINVAL;
	snprintf(with_fn, sizeof(with_fn), "%s.0", tok);
	if (bdf_canonical(with_fn, buf))
		return -EINVAL;
	buf[strlen(buf) - 1] = '*';
	return 0;
}

static bool is_slot(const char *v)
{
	size_t n = strlen(v);

	return n > 2 && v[n - 1] == '*' && v[n - 2] == '.';
}

/* Split a -d/-t/-b value on commas and blanks; canonicalise each element. */
static int filter_parse(const struct cmd_def *cmd, struct filter *f, int id, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;
	bool any = false;
	int rc = -1;

	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char canon[BDF_MAX];
		unsigned int a, b;
		int tid;

		any = true;
		if (streq(tok, "all")) {
			strv_free(f->v, f->n);
			f->v = NULL;
			f->n = 0;
			goto out;
		}
		if (id == OPT_DEVICE) {
			if (bdf_canonical(tok, canon) && slot_canonical(tok, canon)) {
				rc = usage_error(cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F, "
						 "or [DDDD:]BB:DD for every function of a slot)", tok);
				goto out;
			}
			filter_add(f, canon);
		} else if (id == OPT_TSM) {
			if (tsm_name_parse(tok, &tid)) {
				rc = usage_error(cmd, "invalid TSM name '%s' (expected tsmN)", tok);
				goto out;
			}
			filter_add(f, tok);
		} else {
			if (hb_name_parse(tok, &a, &b)) {
				rc = usage_error(cmd, "invalid host bridge '%s' (expected pciDDDD:BB)", tok);
				goto out;
			}
			filter_add(f, tok);
		}
	}
	/* an unset shell variable must not turn "only this one" into "everything" */
	if (!any)
		rc = usage_error(cmd, "--%s needs a value (a list of names, or 'all')",
				 opt_lookup(id)->name);
out:
	free(copy);
	return rc;
}

bool filter_match(const struct filter *f, const char *name)
{
	if (!f->n)
		return true;
	if (!name)
		return false;
	for (size_t i = 0; i < f->n; i++) {
		if (streq(f->v[i], name))
			return true;
		/* a slot: "0000:41:00.*" matches "0000:41:00.F" */
		if (is_slot(f->v[i]) && !strncmp(f->v[i], name, strlen(f->v[i]) - 1) &&
		    strlen(name) == strlen(f->v[i]))
			return true;
	}
	return false;
}

int cmd_parse(struct cmd_ctx *ctx, const struct cmd_def *cmd, int argc, char **argv)
{
	struct option longopts[ARRAY_SIZE(opt_table) + 1];
	/* '-': positional arguments come back in order as 1; ':': report missing arguments */
	char shortopts[ARRAY_SIZE(opt_table) * 2 + 3] = "-:";
	size_t nl = 0, ns = 2;
	int c, rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->cmd = cmd;
	ctx->wait_seconds = -1;
	for (size_t i = 0; i < ARRAY_SIZE(opt_table); i++) {
		const struct opt_def *o = &opt_table[i];

		if (!cmd_accepts(cmd, o->id))
			continue;
		longopts[nl++] = (struct option){ o->name, o->has_arg, NULL, o->id };
		if (o->id < 0x100) {
			shortopts[ns++] = (char)o->id;
			if (o->has_arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){ 0 };
	shortopts[ns] = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			ctx->args = xrealloc(ctx->args, (size_t)(ctx->nargs + 1) * sizeof(char *));
			ctx->args[ctx->nargs++] = optarg;
			break;
		case OPT_JSON: ctx->out.json = true; break;
		case OPT_RAW: ctx->out.raw = true; break;
		case OPT_PAIRS: ctx->out.pairs = true; break;
		case OPT_SHELL: ctx->out.shellvar = true; break;
		case OPT_NOHEADINGS: ctx->out.noheadings = true; break;
		case OPT_OUTPUT: ctx->output_arg = optarg; break;
		case OPT_OUTPUT_ALL: ctx->output_all = true; break;
		case OPT_LIST_COLUMNS: ctx->list_columns = true; break;
		case OPT_ALL: ctx->all = true; break;
		case OPT_VERBOSE: ctx->verbose = tsmctl_verbose = true; break;
		case OPT_DRY_RUN: ctx->dry_run = true; break;
		case OPT_NO_SYSLOG: ctx->no_syslog = true; break;
		case OPT_KEEP_GOING: ctx->keep_going = true; break;
		case OPT_STRICT: ctx->strict = true; break;
		case OPT_SHORT: ctx->shrt = true; break;
		case OPT_REQUIRE_CONNECTED: ctx->require_connected = optarg; break;
		case OPT_LIST_CHECKS: ctx->list_checks = true; break;
		case OPT_SYSROOT:
			if (!*optarg)
				return usage_error(cmd, "--sysroot needs a directory");
			tsmctl_sysroot = optarg;
			tsmctl_sysroot_from_env = false;
			break;
		case OPT_NONCE: ctx->nonce = optarg; break;
		case OPT_INBLOB: ctx->inblob = optarg; break;
		case OPT_PRIVLEVEL: ctx->privlevel = optarg; break;
		case OPT_SERVICE_PROVIDER: ctx->service_provider = optarg; break;
		case OPT_SERVICE_GUID: ctx->service_guid = optarg; break;
		case OPT_SERVICE_MANIFEST_VERSION: ctx->service_manifest_version = optarg; break;
		case OPT_OUTBLOB: ctx->outblob = optarg; break;
		case OPT_AUXBLOB: ctx->auxblob = optarg; break;
		case OPT_MANIFESTBLOB: ctx->manifestblob = optarg; break;
		case OPT_TIMEOUT: ctx->timeout = optarg; break;
		case OPT_INTERVAL: ctx->interval = optarg; break;
		case OPT_EXIT_ON_FAIL: ctx->exit_on_fail = true; break;
		case OPT_COUNT: ctx->count = optarg; break;
		case OPT_OUTPUT_FILE: ctx->output_file = optarg; break;
		case OPT_WAIT:
			if (parse_seconds(optarg, 86400, &ctx->wait_seconds))
				return usage_error(cmd, "invalid --wait value '%s' (decimal seconds, "
						   "0-86400)", optarg);
			break;
		case OPT_DEVICE:
		case OPT_TSM:
		case OPT_HOST_BRIDGE:
			rc = filter_parse(cmd, c == OPT_DEVICE ? &ctx->devices :
					  c == OPT_TSM ? &ctx->tsms : &ctx->hbs, c, optarg);
			if (rc >= 0)
				return rc;
			break;
		case OPT_HELP:
			cmd_usage(stdout, cmd);
			return EXIT_OK;
		case OPT_VERSION:
			print_version();
			return EXIT_OK;
		default:
			return option_error(cmd, longopts, argv[optind - 1], optopt, c == ':');
		}
	}
	if ((ctx->out.json + ctx->out.raw + ctx->out.pairs) > 1)
		return usage_error(cmd, "--json, --raw and --pairs are mutually exclusive");
	/* the JSON document always holds every key: a table option there would be ignored */
	if (ctx->out.json && (ctx->output_arg || ctx->output_all || ctx->out.noheadings ||
			      ctx->out.shellvar))
		return usage_error(cmd, "--json takes no %s: the document always has every key "
				   "(see tsmctl(8), JSON)", ctx->output_arg ? "--output" :
				   ctx->output_all ? "--output-all" : ctx->out.noheadings ?
				   "--noheadings" : "--shell");
	return -1;
}

void cmd_ctx_free(struct cmd_ctx *ctx)
{
	free(ctx->args);
	strv_free(ctx->devices.v, ctx->devices.n);
	strv_free(ctx->tsms.v, ctx->tsms.n);
	strv_free(ctx->hbs.v, ctx->hbs.n);
}

int view_columns(struct cmd_ctx *ctx, const int *defaults, size_t ndefaults)
{
	char *why = NULL;
	int rc;

	if (ctx->list_columns) {
		if (ctx->out.json)
			columns_print_json(stdout, ctx->cmd->cols, ctx->cmd->ncols);
		else
			columns_print_help(stdout, ctx->cmd->cols, ctx->cmd->ncols);
		return EXIT_OK;
	}
	if (ctx->nargs)
		return usage_error(ctx->cmd, "unexpected argument '%s'", ctx->args[0]);
	if (!columns_select(&ctx->out, ctx->cmd->cols, ctx->cmd->ncols, defaults, ndefaults,
			    ctx->output_arg, ctx->output_all, &why))
		return -1;
	rc = usage_error(ctx->cmd, "--output: %s", why);
	free(why);
	return rc;
}

/* Does any PCI function of the slot "DDDD:BB:DD.*" exist? */
static bool slot_exists(const char *slot)
{
	bool found = false;
	char **names;
	size_t n;

	if (sysfs_list("sys/bus/pci/devices", &names, &n))
		return false;
	for (size_t i = 0; i < n && !found; i++)
		found = strlen(names[i]) == strlen(slot) && !strncmp(names[i], slot, strlen(slot) - 1);
	strv_free(names, n);
	return found;
}

static bool device_exists(const char *v)
{
	char *path;
	bool ok;

	if (is_slot(v))
		return slot_exists(v);
	path = path_join("sys/bus/pci/devices", v);
	ok = sysfs_exists(path);
	free(path);
	return ok;
}

/*
 * "-d A,B" appended to ACC (a space first when it holds text); a slot
 * "0000:41:00.*" shown as the user wrote it, "0000:41:00".
 */
static void filter_text(const struct filter *f, const char *opt, struct strbuf *acc)
{
	for (size_t i = 0; i < f->n; i++) {
		int len = (int)(strlen(f->v[i]) - (is_slot(f->v[i]) ? 2 : 0));

		if (i)
			strbuf_appendf(acc, ",%.*s", len, f->v[i]);
		else
			strbuf_join(acc, " ", "%s %.*s", opt, len, f->v[i]);
	}
}

bool filters_active(const struct cmd_ctx *ctx)
{
	return filter_active(&ctx->devices) || filter_active(&ctx->tsms) ||
	       filter_active(&ctx->hbs);
}

void filters_matched_nothing(const struct cmd_ctx *ctx, const char *what, const char *reason)
{
	struct strbuf acc = STRBUF_INIT;
	char *given;

	filter_text(&ctx->devices, "-d", &acc);
	filter_text(&ctx->tsms, "-t", &acc);
	filter_text(&ctx->hbs, "-b", &acc);
	given = strbuf_take(&acc);
	print_error("tsmctl %s: no %s matches %s%s%s", ctx->cmd->name, what, given,
		    reason ? ": " : "", reason ? reason : "");
	free(given);
}

/* Nothing found for a filter: the message, and with -J the (empty) document all the same. */
static int no_such(const struct cmd_ctx *ctx, const char *name, const char *what)
{
	print_error("tsmctl %s: %s: no such %s", ctx->cmd->name, name, what);
	if (ctx->out.json && ctx->cmd->json_name) {
		json_list_begin(stdout, ctx->cmd->json_name);
		json_list_end(stdout);
	}
	return EXIT_FAIL;
}

/* Filters that name objects the tree does not have are errors, not empty results. */
int filters_check(struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	for (size_t i = 0; i < ctx->devices.n; i++) {
		const char *v = ctx->devices.v[i];

		if (!device_exists(v)) {
			char *shown = xstrndup(v, strlen(v) - (is_slot(v) ? 2 : 0));
			int rc = no_such(ctx, shown, is_slot(v) ? "PCI slot" : "PCI device");

			free(shown);
			return rc;
		}
	}
	for (size_t i = 0; i < ctx->tsms.n; i++)
		if (!snapshot_find_tsm(snap, ctx->tsms.v[i]))
			return no_such(ctx, ctx->tsms.v[i], "TSM");
	for (size_t i = 0; i < ctx->hbs.n; i++)
		if (!snapshot_find_hb(snap, ctx->hbs.v[i]))
			return no_such(ctx, ctx->hbs.v[i], "host bridge");
	return -1;
}
