// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tsmctl/cli.h"
#include "tsmctl/log.h"
#include "tsmctl/names.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* getopt_long's value for a long-only option: this plus its index in the command's list */
#define LONG_ONLY	0x100

const char *tsmctl_sysroot;
bool tsmctl_sysroot_from_env;

/* The shared options' words; a command's table names them with OPT_COMMON(id). */
static const struct opt_def common_opts[COMMON_NR] = {
	[COMMON_ALL] = { 'a', "all", NULL, "act on every candidate" },
	[COMMON_HOST_BRIDGE] = { 'b', "host-bridge", "NAME", "only these host bridges (pciDDDD:BB, list)" },
	[COMMON_DEVICE] = { 'd', "device", "BDF", "only these devices ([DDDD:]BB:DD.F, list)" },
	[COMMON_TSM] = { 't', "tsm", "NAME", "only these TSMs (tsmN, list)" },
	[COMMON_JSON] = { 'J', "json", NULL, "use JSON output format" },
	[COMMON_OUTPUT] = { 'o', "output", "LIST", "output columns (+LIST appends to the default)" },
	[COMMON_OUTPUT_ALL] = { 0, "output-all", NULL, "output all columns" },
	[COMMON_LIST_COLUMNS] = { 'H', "list-columns", NULL, "list the available columns" },
	[COMMON_NOHEADINGS] = { 'n', "noheadings", NULL, "don't print headings" },
	[COMMON_RAW] = { 'r', "raw", NULL, "use the raw output format" },
	[COMMON_PAIRS] = { 'P', "pairs", NULL, "use the key=\"value\" output format" },
	[COMMON_SHELL] = { 'y', "shell", NULL, "use column names usable as shell variables (-P: HOST_BRIDGE=)" },
	[COMMON_SYSROOT] = { 0, "sysroot", "DIR", "read DIR/sys: DIR stands for / (env TSMCTL_SYSROOT)" },
	[COMMON_VERBOSE] = { 'v', "verbose", NULL, "say on stderr which links leave the root" },
	[COMMON_HELP] = { 'h', "help", NULL, "display this help" },
	[COMMON_VERSION] = { 'V', "version", NULL, "display version" },
};

/* Every command takes these after its own: the root, -v, then help and version. */
static const struct opt_def global_opts[] = {
	OPT_COMMON(COMMON_SYSROOT), OPT_COMMON(COMMON_VERBOSE), OPT_COMMON(COMMON_HELP),
	OPT_COMMON(COMMON_VERSION), OPT_END(),
};

/* A table entry with its words: a shared option's come from common_opts. */
static const struct opt_def *opt_words(const struct opt_def *o)
{
	return o->common ? &common_opts[o->common] : o;
}

const struct cmd_def *cmd_lookup(const char *name)
{
	for (size_t i = 0; i < nr_commands; i++)
		if (streq(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* The options CMD accepts, in --help order: its own table, then global_opts. NULL-terminated. */
static size_t cmd_options(const struct cmd_def *cmd, const struct opt_def **out, size_t max)
{
	const struct opt_def *const tables[] = { cmd->opts, global_opts };
	size_t n = 0;

	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (const struct opt_def *o = tables[t]; o && o->name && n < max - 1; o++)
			out[n++] = o;
	out[n] = NULL;
	return n;
}

/* Room for any command's options with the global ones (devices has 16 in all). */
#define CMD_MAX_OPTS	40

static void print_opt(FILE *out, const struct cmd_def *cmd, const struct opt_def *entry)
{
	const struct opt_def *o = opt_words(entry);
	const char *help = entry->common == COMMON_VERBOSE && cmd->verbose_help ?
			   cmd->verbose_help : entry->help ? entry->help : o->help;
	char buf[64];

	if (o->short_name)
		snprintf(buf, sizeof(buf), "-%c, --%s%s%s", o->short_name, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(buf, sizeof(buf), "    --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	/* an option too long for the column gets its text on the next line, in the column */
	if (strlen(buf) > 28)
		fprintf(out, " %s\n %-28s %s\n", buf, "", help);
	else
		fprintf(out, " %-28s %s\n", buf, help);
}

void cmd_print_options(FILE *out, const struct cmd_def *cmd)
{
	const struct opt_def *opts[CMD_MAX_OPTS];

	cmd_options(cmd, opts, ARRAY_SIZE(opts));
	for (const struct opt_def **p = opts; *p; p++) {
		const struct opt_def *o = opt_words(*p);

		fprintf(out, "--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		if (o->short_name)
			fprintf(out, "-%c%s%s\n", o->short_name, o->arg ? " " : "",
				o->arg ? o->arg : "");
	}
}

void cmd_usage(FILE *out, const struct cmd_def *cmd)
{
	fprintf(out, "\nUsage:\n tsmctl %s [options]%s%s\n\n%s.\n", cmd->name,
		cmd->args ? " " : "", cmd->args ? cmd->args : "", cmd->description);
	fputs("\nOptions:\n", out);
	for (const struct opt_def *o = cmd->opts; o && o->name; o++)
		print_opt(out, cmd, o);
	for (const struct opt_def *o = global_opts; o->name; o++) {
		/* a blank line sets help and version apart */
		if (o->common == COMMON_HELP)
			fputs("\n", out);
		print_opt(out, cmd, o);
	}
	if (cmd->ncols) {
		fputs("\nAvailable output columns:\n", out);
		columns_print_help(out, cmd->cols, cmd->ncols);
	}
	fprintf(out, "\nFor more details see tsmctl-%s(8).\n", cmd->name);
}

int usage_error(const struct cmd_def *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_error(cmd ? cmd->name : NULL, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'tsmctl%s%s --help'.\n", cmd ? " " : "", cmd ? cmd->name : "");
	return EXIT_USAGE;
}

int extra_operand(const struct cmd_def *cmd, const char *arg)
{
	/* a synopsis of options alone ("--nonce HEX | --inblob FILE") takes no operand */
	if (!cmd->args || cmd->args[0] == '-')
		return usage_error(cmd, "extra operand '%s': %s takes no operands", arg, cmd->name);
	return usage_error(cmd, "extra operand '%s' (tsmctl %s %s)", arg, cmd->name, cmd->args);
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

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 :
	       (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

int parse_hex_option(const struct cmd_def *cmd, const char *opt, const char *hex, uint8_t *out,
		     size_t max, size_t *len)
{
	size_t n = strlen(hex);

	if (!n)
		return usage_error(cmd, "%s is empty", opt);
	for (size_t i = 0; i < n; i++)
		if (hexval((unsigned char)hex[i]) < 0)
			return usage_error(cmd, "%s: '%c' is not a hex digit", opt, hex[i]);
	if (n % 2)
		return usage_error(cmd, "%s has an odd number of hex digits (%zu)", opt, n);
	if (n / 2 > max)
		return usage_error(cmd, "%s is %zu bytes; the kernel takes at most %zu", opt, n / 2,
				   max);
	for (size_t i = 0; i < n / 2; i++)
		out[i] = (uint8_t)(hexval((unsigned char)hex[2 * i]) << 4 |
				   hexval((unsigned char)hex[2 * i + 1]));
	*len = n / 2;
	return 0;
}

int read_option_file(const struct cmd_def *cmd, const char *opt, const char *file, uint8_t *out,
		     size_t max, size_t *len)
{
	bool std = streq(file, "-");
	int fd = std ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	uint8_t *buf = xmalloc(max + 1);
	size_t got = 0;
	struct stat st;
	int rc = 0;

	if (fd < 0) {
		cmd_error(cmd->name, "%s %s: %s", opt, file, strerror(errno));
		free(buf);
		return EXIT_FAIL;
	}
	if (!std && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		cmd_error(cmd->name, "%s %s: is a directory", opt, file);
		rc = EXIT_FAIL;
		goto out;
	}
	/* one byte more than the kernel takes, to tell "too big" from "exactly the most" */
	while (got < max + 1) {
		ssize_t n = read(fd, buf + got, max + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cmd_error(cmd->name, "%s %s: %s", opt, file, strerror(errno));
			rc = EXIT_FAIL;
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max)
		rc = usage_error(cmd, "%s %s holds more than %zu bytes, the most the kernel takes",
				 opt, file, max);
	else if (!got)
		rc = usage_error(cmd, "%s %s is empty", opt, file);
	else {
		memcpy(out, buf, got);
		*len = got;
	}
out:
	if (!std)
		close(fd);
	free(buf);
	return rc;
}

static void filter_add(struct filter *f, const char *v)
{
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	f->v[f->n++] = xstrdup(v);
}

int option_list(const struct cmd_def *cmd, const char *opt, const char *arg, char ***items,
		size_t *n)
{
	if (list_split(arg, items, n))
		return usage_error(cmd, "invalid %s '%s': an empty value in the list (a comma with "
				   "nothing before or after it)", opt, arg);
	return 0;
}

/* One -d/-t/-b value, canonical, into F: 0 or EXIT_USAGE. */
static int filter_value(const struct cmd_def *cmd, struct filter *f, enum common_opt id,
			const char *tok)
{
	char canon[BDF_MAX];
	unsigned int a, b;
	int tid;

	if (id == COMMON_DEVICE) {
		if (bdf_canonical(tok, canon) && slot_canonical(tok, canon))
			return usage_error(cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F, "
					   "or [DDDD:]BB:DD for every function of a slot)", tok);
		filter_add(f, canon);
	} else if (id == COMMON_TSM) {
		if (tsm_name_parse(tok, &tid))
			return usage_error(cmd, "invalid TSM name '%s' (expected tsmN)", tok);
		filter_add(f, tok);
	} else {
		if (hb_name_parse(tok, &a, &b))
			return usage_error(cmd, "invalid host bridge '%s' (expected pciDDDD:BB)", tok);
		filter_add(f, tok);
	}
	return 0;
}

/* A -d/-t/-b value: a list of names, each canonicalised; "all" empties the filter. */
static int filter_parse(const struct cmd_def *cmd, struct filter *f, enum common_opt id,
			const char *arg)
{
	char *opt = xasprintf("--%s", common_opts[id].name), **v;
	size_t n = 0;
	int rc = option_list(cmd, opt, arg, &v, &n);

	for (size_t i = 0; !rc && i < n; i++) {
		if (streq(v[i], "all")) {
			strv_free(f->v, f->n);
			f->v = NULL;
			f->n = 0;
			break;
		}
		rc = filter_value(cmd, f, id, v[i]);
	}
	/* an unset shell variable must not turn "only this one" into "everything" */
	if (!rc && !n)
		rc = usage_error(cmd, "%s needs a value (a list of names, or 'all')", opt);
	strv_free(v, n);
	free(opt);
	return rc;
}

bool filter_match(const struct filter *f, const char *name)
{
	if (!f->n)
		return true;
	if (!name)
		return false;
	for (size_t i = 0; i < f->n; i++) {
		if (streq(f->v[i], name) || bdf_in_slot(name, f->v[i]))
			return true;
	}
	return false;
}

/* A shared option into CTX: 0, or the exit status that ends the command (help, version, errors). */
static int common_option(struct cmd_ctx *ctx, enum common_opt id, const char *arg)
{
	switch (id) {
	case COMMON_JSON: ctx->out.json = true; break;
	case COMMON_RAW: ctx->out.raw = true; break;
	case COMMON_PAIRS: ctx->out.pairs = true; break;
	case COMMON_SHELL: ctx->out.shellvar = true; break;
	case COMMON_NOHEADINGS: ctx->out.noheadings = true; break;
	case COMMON_OUTPUT: ctx->output_arg = arg; break;
	case COMMON_OUTPUT_ALL: ctx->output_all = true; break;
	case COMMON_LIST_COLUMNS: ctx->list_columns = true; break;
	case COMMON_ALL: ctx->all = true; break;
	case COMMON_VERBOSE: ctx->verbose = true; log_set_level(LOG_LEVEL_VERBOSE); break;
	case COMMON_SYSROOT:
		if (!*arg)
			return usage_error(ctx->cmd, "--sysroot needs a directory");
		tsmctl_sysroot = arg;
		tsmctl_sysroot_from_env = false;
		break;
	case COMMON_DEVICE:
		return filter_parse(ctx->cmd, &ctx->devices, id, arg);
	case COMMON_TSM:
		return filter_parse(ctx->cmd, &ctx->tsms, id, arg);
	case COMMON_HOST_BRIDGE:
		return filter_parse(ctx->cmd, &ctx->hbs, id, arg);
	case COMMON_HELP:
		cmd_usage(stdout, ctx->cmd);
		return EXIT_OK;
	case COMMON_VERSION:
		print_version();
		return EXIT_OK;
	case COMMON_NONE:
	case COMMON_NR:
		break;
	}
	return 0;
}

int filter_add_arg(struct cmd_ctx *ctx, enum common_opt id, const char *arg)
{
	return common_option(ctx, id, arg);
}

/* A command's own option into its parameter struct: 0, or EXIT_USAGE. */
static int own_option(const struct cmd_def *cmd, const struct opt_def *o, const char *arg)
{
	if (o->flag)
		*o->flag = true;
	else if (o->value)
		*o->value = arg;
	else if (o->parse)
		return o->parse(cmd, arg, o->dest);
	return 0;
}

/* Options that only make sense together are checked once all are read. */
static int check_output_options(const struct cmd_ctx *ctx)
{
	if ((ctx->out.json + ctx->out.raw + ctx->out.pairs) > 1)
		return usage_error(ctx->cmd, "--json, --raw and --pairs are mutually exclusive");
	/* the JSON document always holds every key: a table option there would be ignored */
	if (ctx->out.json && (ctx->output_arg || ctx->output_all || ctx->out.noheadings ||
			      ctx->out.shellvar))
		return usage_error(ctx->cmd, "--json takes no %s: the document always has every key "
				   "(see tsmctl(8), JSON)", ctx->output_arg ? "--output" :
				   ctx->output_all ? "--output-all" : ctx->out.noheadings ?
				   "--noheadings" : "--shell");
	return 0;
}

static void operand_add(struct cmd_ctx *ctx, char *arg)
{
	ctx->args = xrealloc(ctx->args, (size_t)(ctx->nargs + 1) * sizeof(char *));
	ctx->args[ctx->nargs++] = arg;
}

bool cmd_parse(struct cmd_ctx *ctx, const struct cmd_def *cmd, int argc, char **argv, int *status)
{
	const struct opt_def *opts[CMD_MAX_OPTS];
	struct option longopts[CMD_MAX_OPTS];
	/* '-': positional arguments come back in order as 1; ':': report missing arguments */
	char shortopts[CMD_MAX_OPTS * 2 + 3] = "-:";
	size_t nopts = cmd_options(cmd, opts, ARRAY_SIZE(opts)), ns = 2;
	int c, rc = 0;

	memset(ctx, 0, sizeof(*ctx));
	ctx->cmd = cmd;
	/* getopt gives back a short option's letter, a long-only one's LONG_ONLY + index */
	for (size_t i = 0; i < nopts; i++) {
		const struct opt_def *o = opt_words(opts[i]);

		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, o->short_name ? o->short_name : LONG_ONLY + (int)i };
		if (o->short_name) {
			shortopts[ns++] = (char)o->short_name;
			if (o->arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[nopts] = (struct option){ 0 };
	shortopts[ns] = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct opt_def *o = NULL;

		if (c == 1) {
			if (!rc)
				operand_add(ctx, optarg);
			continue;
		}
		if (c >= LONG_ONLY && c < LONG_ONLY + (int)nopts)
			o = opts[c - LONG_ONLY];
		for (size_t i = 0; i < nopts && !o && c != '?' && c != ':'; i++)
			if (opt_words(opts[i])->short_name == c)
				o = opts[i];
		/* after a usage error only -J counts: the empty document is printed all the same */
		if (rc) {
			ctx->out.json |= o && o->common == COMMON_JSON;
			continue;
		}
		if (!o)
			rc = option_error(cmd, longopts, argv[optind - 1], optopt, c == ':');
		else if (o->common)
			rc = common_option(ctx, o->common, optarg);
		else
			rc = own_option(cmd, o, optarg);
		/* --help and --version end the command with EXIT_OK */
		if (!rc && o && (o->common == COMMON_HELP || o->common == COMMON_VERSION)) {
			*status = EXIT_OK;
			return false;
		}
	}
	/* getopt stops at "--": what follows it is operands, as getopt's contract says */
	for (int i = optind; !rc && i < argc; i++)
		operand_add(ctx, argv[i]);
	if (!rc)
		rc = check_output_options(ctx);
	*status = rc;
	return !rc;
}

void cmd_ctx_free(struct cmd_ctx *ctx)
{
	free(ctx->args);
	strv_free(ctx->devices.v, ctx->devices.n);
	strv_free(ctx->tsms.v, ctx->tsms.n);
	strv_free(ctx->hbs.v, ctx->hbs.n);
}

/*
 * "-d A,B" appended to ACC (a space first when it holds text); a slot
 * "0000:41:00.*" shown as the user wrote it, "0000:41:00".
 */
static void filter_text(const struct filter *f, const char *opt, struct strbuf *acc)
{
	for (size_t i = 0; i < f->n; i++) {
		int len = (int)(strlen(f->v[i]) - (bdf_is_slot(f->v[i]) ? 2 : 0));

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
	cmd_error(ctx->cmd->name, "no %s matches %s%s%s", what, given,
		  reason ? ": " : "", reason ? reason : "");
	free(given);
}


/* Filters that name objects the tree does not have are errors, not empty results. */
int filters_check(struct cmd_ctx *ctx, const struct tsm_snapshot *snap)
{
	static const char *const what[] = {
		[SNAPSHOT_NO_DEVICE] = "PCI device", [SNAPSHOT_NO_SLOT] = "PCI slot",
		[SNAPSHOT_NO_TSM] = "TSM", [SNAPSHOT_NO_HB] = "host bridge",
	};
	const struct snapshot_names want = {
		ctx->devices.v, ctx->devices.n, ctx->tsms.v, ctx->tsms.n, ctx->hbs.v, ctx->hbs.n,
	};
	struct snapshot_missing miss;
	char *shown;

	if (!snapshot_find_missing(snap, &want, &miss))
		return 0;
	/* a slot "DDDD:BB:DD.*" is shown as "DDDD:BB:DD" */
	shown = xstrndup(miss.name, strlen(miss.name) - (miss.kind == SNAPSHOT_NO_SLOT ? 2 : 0));
	/* with -J the empty document follows all the same (tsmctl.c) */
	cmd_error(ctx->cmd->name, "%s: no such %s", shown, what[miss.kind]);
	free(shown);
	return EXIT_FAIL;
}
