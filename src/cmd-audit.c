// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl audit: options, filters and output around src/audit.c's findings:
 * a compact tree (default), non-passing results only (--short), with
 * descriptions and hints (-v), or one JSON document with a summary (-J).
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tsmctl/audit.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/evidence-gate.h"
#include "tsmctl/modhint.h"
#include "tsmctl/names.h"
#include "tsmctl/output.h"
#include "tsmctl/slot.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"
#include "tsmctl/view.h"

struct audit_view {
	const struct audit_report *rep;
	bool *shown;		/* per finding: passes the filters (and --short) */
	bool verbose, utf8;
	size_t id_width, obj_width;
};

/* audit's own options */
static struct audit_param {
	bool shrt, strict, list_checks;
	const char *require_connected, *require_verified;
	struct ev_judge_opts judge;	/* device.evidence's inputs and the risks it may take */
} param;

/* ---- --require-connected, --require-verified ---- */

/* BDF onto LIST. */
static void list_add(char ***list, size_t *n, const char *bdf)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(bdf);
}

/*
 * ARG of OPT (NULL: not given) as canonical BDFs or 'all': 0, or EXIT_USAGE.
 * A slot stands for its DSM, function 0 (DSM_ONLY: what a connect takes), or
 * for each of its functions the tree has (what an accept takes).
 */
static int parse_bdf_list(struct cmd_ctx *ctx, const char *opt, const char *arg, bool dsm_only,
			  bool *all, char ***list, size_t *n)
{
	char **v;
	size_t nv;
	int rc;

	*list = NULL;
	if (!arg)
		return 0;
	rc = option_list(ctx->cmd, opt, arg, &v, &nv);
	for (size_t i = 0; !rc && i < nv; i++) {
		char canon[BDF_MAX], fns[SLOT_MAX_FUNCS][BDF_MAX];

		if (streq(v[i], "all")) {
			*all = true;
		} else if (!bdf_canonical(v[i], canon)) {
			list_add(list, n, canon);
		} else if (!slot_canonical(v[i], canon)) {
			size_t k = slot_targets("audit", v[i], canon, dsm_only, fns);

			for (size_t j = 0; j < k; j++)
				list_add(list, n, fns[j]);
		} else {
			rc = usage_error(ctx->cmd, "invalid PCI address '%s' in %s "
					 "(expected [DDDD:]BB:DD.F, a slot [DDDD:]BB:DD, or 'all')",
					 v[i], opt);
			break;
		}
	}
	if (!rc && !*all && !*n)
		rc = usage_error(ctx->cmd, "%s needs a BDF list or 'all'", opt);
	strv_free(v, nv);
	return rc;
}

static int parse_required(struct cmd_ctx *ctx, struct audit_opts *o, char ***list, char ***verified)
{
	int rc = parse_bdf_list(ctx, "--require-connected", param.require_connected, true,
				&o->require_all, list, &o->nr_require);

	o->require = *list;
	if (!rc)
		rc = parse_bdf_list(ctx, "--require-verified", param.require_verified, false,
				    &o->require_verified_all, verified, &o->nr_require_verified);
	o->require_verified = *verified;
	return rc;
}

/* Which of N BDFs sysfs does not have at all (the checks have no I/O of their own). */
static bool *absent_of(const struct tsm_snapshot *snap, char *const *bdfs, size_t n)
{
	bool *absent = xcalloc(n ? n : 1, sizeof(*absent));

	for (size_t i = 0; i < n; i++) {
		char *const one[] = { bdfs[i] };
		const struct snapshot_names want = { .devices = one, .nr_devices = 1 };
		struct snapshot_missing miss;

		absent[i] = snapshot_find_missing(snap, &want, &miss) != 0;
	}
	return absent;
}

/* ---- filters ---- */

static bool finding_selected(const struct cmd_ctx *ctx, const struct audit_finding *f)
{
	if (f->global)
		return true;
	if (filter_active(&ctx->devices) && !filter_match(&ctx->devices, f->devices[0]) &&
	    !filter_match(&ctx->devices, f->devices[1]))
		return false;
	return (f->hb_tsms ? filter_match_hb_tsms(&ctx->tsms, f->hb_tsms) :
		filter_match(&ctx->tsms, f->tsm)) && filter_match(&ctx->hbs, f->hb);
}

/* ---- text ---- */

/* Display width of UTF-8 text (the tree glyphs are one column each). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void put_padded(FILE *out, const char *s, size_t w)
{
	size_t n = width(s);

	fputs_escaped(s, out);	/* sysfs values end up in messages */
	for (; n < w; n++)
		fputc(' ', out);
}

static bool check_has_shown(const struct audit_view *v, const struct audit_check *c)
{
	for (size_t i = 0; i < v->rep->n; i++)
		if (v->shown[i] && v->rep->findings[i].check == c)
			return true;
	return false;
}

/* A check is drawn when it or something below it has a shown result. */
static bool check_drawn(const struct audit_view *v, const struct audit_check *c)
{
	if (check_has_shown(v, c))
		return true;
	for (size_t i = 0; i < audit_nr_checks; i++)
		if (audit_checks[i].parent && streq(audit_checks[i].parent, c->id) &&
		    check_drawn(v, &audit_checks[i]))
			return true;
	return false;
}

static const struct audit_check *next_drawn_child(const struct audit_view *v, const char *parent,
						  size_t from)
{
	for (size_t i = from; i < audit_nr_checks; i++) {
		const struct audit_check *c = &audit_checks[i];

		if ((parent ? streq(c->parent, parent) : !c->parent) && check_drawn(v, c))
			return c;
	}
	return NULL;
}

static void put_status(FILE *out, const char *status)
{
	put_padded(out, status, 11);
}

static void put_note(const struct audit_view *v, const char *cont, const char *label,
		     const char *text)
{
	put_status(stdout, "");
	put_padded(stdout, cont, v->id_width + 1);
	fputs(label, stdout);
	fputs_escaped(text, stdout);
	fputc('\n', stdout);
}

static void print_check(const struct audit_view *v, const struct audit_check *c, const char *indent,
			bool root, bool last)
{
	const char *branch = v->utf8 ? (last ? "\u2514\u2500" : "\u251c\u2500") : (last ? "`-" : "|-");
	const char *bar = v->utf8 ? "\u2502 " : "| ";
	char *head = xasprintf("%s%s%s", indent, root ? "" : branch, c->id);
	char *sub = xasprintf("%s%s", indent, root ? "" : last ? "  " : bar);
	const struct audit_check *child = NULL;
	char *cont;
	bool first = true;

	for (size_t i = 0; i < audit_nr_checks && !child; i++)
		if (streq(audit_checks[i].parent, c->id) && check_drawn(v, &audit_checks[i]))
			child = &audit_checks[i];
	cont = xasprintf("%s%s", sub, child ? bar : "  ");

	for (size_t i = 0; i < v->rep->n; i++) {
		const struct audit_finding *f = &v->rep->findings[i];

		if (!v->shown[i] || f->check != c)
			continue;
		put_status(stdout, audit_status_name(f->status));
		put_padded(stdout, first ? head : cont, v->id_width + 1);
		put_padded(stdout, f->object, v->obj_width + 2);
		fputs_escaped(f->message, stdout);
		fputc('\n', stdout);
		if (v->verbose && f->hint)
			put_note(v, cont, "hint: ", f->hint);
		first = false;
	}
	if (first) {	/* nothing of its own shown, but below it */
		put_status(stdout, "");
		put_padded(stdout, head, v->id_width + 1);
		fputs("(no object selected)\n", stdout);
	}
	if (v->verbose)
		put_note(v, cont, "about: ", c->description);

	for (size_t i = 0; i < audit_nr_checks; i++) {
		const struct audit_check *k = &audit_checks[i];

		if (!streq(k->parent, c->id) || !check_drawn(v, k))
			continue;
		print_check(v, k, sub, false, !next_drawn_child(v, c->id, i + 1));
	}
	free(head);
	free(sub);
	free(cont);
}

/* Width of the check column: deepest indent plus id. */
static size_t tree_width(const struct audit_check *c, size_t depth)
{
	size_t w = depth * 2 + strlen(c->id);

	for (size_t i = 0; i < audit_nr_checks; i++) {
		if (streq(audit_checks[i].parent, c->id)) {
			size_t cw = tree_width(&audit_checks[i], depth + 1);

			if (cw > w)
				w = cw;
		}
	}
	return w;
}

static void print_tree(struct audit_view *v)
{
	for (size_t i = 0; i < audit_nr_checks; i++)
		if (!audit_checks[i].parent) {
			size_t w = tree_width(&audit_checks[i], 0);

			if (w > v->id_width)
				v->id_width = w;
		}
	for (size_t i = 0; i < audit_nr_checks; i++) {
		const struct audit_check *c = &audit_checks[i];

		if (!c->parent && check_drawn(v, c))
			print_check(v, c, "", true, true);
	}
}

/* Shown results of C skipped only for lack of root (result_skip_needs_root()). */
static size_t needs_root_shown(const struct audit_view *v, const struct audit_check *c)
{
	size_t n = 0;

	for (size_t i = 0; i < v->rep->n; i++)
		n += v->shown[i] && v->rep->findings[i].check == c && v->rep->findings[i].needs_root;
	return n;
}

/* "3 functions", "1 stream": N objects of C's scope. */
static char *scope_count(const struct audit_check *c, size_t n)
{
	static const char *const nouns[][2] = {
		[AUDIT_SCOPE_PLATFORM] = { "platform", "platforms" },
		[AUDIT_SCOPE_TSM] = { "TSM", "TSMs" },
		[AUDIT_SCOPE_FUNC] = { "function", "functions" },
		[AUDIT_SCOPE_STREAM] = { "stream", "streams" },
		[AUDIT_SCOPE_HB] = { "host bridge", "host bridges" },
	};

	return xasprintf("%zu %s", n, nouns[c->scope][n != 1]);
}

/*
 * C's N needs-root results as one line (a non-root run has one per
 * function and check): how many, and the first few objects.
 */
static void print_needs_root_group(const struct audit_view *v, const struct audit_check *c,
				   size_t n)
{
	struct strbuf objs = STRBUF_INIT;
	size_t listed = 0;
	char *count = scope_count(c, n);

	for (size_t i = 0; i < v->rep->n && listed < 3; i++) {
		const struct audit_finding *f = &v->rep->findings[i];

		if (v->shown[i] && f->check == c && f->needs_root && ++listed)
			strbuf_join(&objs, ", ", "%s", f->object);
	}
	if (n > listed)
		strbuf_appendf(&objs, " and %zu more ('tsmctl audit' without --short lists each)",
			       n - listed);
	put_status(stdout, audit_status_name(AUDIT_SKIP));
	put_padded(stdout, c->id, v->id_width + 1);
	put_padded(stdout, count, v->obj_width + 2);
	fputs("unreadable without root (see platform.config-access): ", stdout);
	fputs_escaped(objs.s, stdout);
	fputc('\n', stdout);
	if (v->verbose)
		put_note(v, "", "hint: ", "run the audit as root");
	strbuf_release(&objs);
	free(count);
}

static void print_short(struct audit_view *v)
{
	for (size_t i = 0; i < v->rep->n; i++) {
		const struct audit_finding *f = &v->rep->findings[i];
		size_t w = strlen(f->check->id);

		if (v->shown[i] && w > v->id_width)
			v->id_width = w;
	}
	for (size_t i = 0; i < v->rep->n; i++) {
		const struct audit_finding *f = &v->rep->findings[i];
		size_t group;

		if (!v->shown[i])
			continue;
		/* a check's needs-root results: one line, where the first of them stands */
		if (f->needs_root && (group = needs_root_shown(v, f->check)) > 1) {
			bool first = true;

			for (size_t k = 0; k < i && first; k++)
				first = !(v->shown[k] && v->rep->findings[k].check == f->check &&
					  v->rep->findings[k].needs_root);
			if (first)
				print_needs_root_group(v, f->check, group);
			continue;
		}
		put_status(stdout, audit_status_name(f->status));
		put_padded(stdout, f->check->id, v->id_width + 1);
		put_padded(stdout, f->object, v->obj_width + 2);
		fputs_escaped(f->message, stdout);
		fputc('\n', stdout);
		if (v->verbose && f->hint)
			put_note(v, "", "hint: ", f->hint);
	}
}

/* ---- a table (-o, --output-all, -n, -r, -P, -y), as the other views print ---- */

enum { ACOL_STATUS, ACOL_CHECK, ACOL_CATEGORY, ACOL_PARENT, ACOL_OBJECT, ACOL_MESSAGE, ACOL_HINT,
       ACOL_DESCRIPTION };

static const struct column audit_columns[] = {
	[ACOL_STATUS] = { "STATUS", 6, 0, "pass, warn, fail, skip or needs-root" },
	[ACOL_CHECK] = { "CHECK", 18, 0, "check id (audit --list-checks)" },
	[ACOL_CATEGORY] = { "CATEGORY", 8, 0, "the check's category" },
	[ACOL_PARENT] = { "PARENT", 18, 0, "the check it depends on" },
	[ACOL_OBJECT] = { "OBJECT", 14, 0, "what was checked: platform, tsmN, BDF, stream, host bridge" },
	[ACOL_MESSAGE] = { "MESSAGE", 40, 0, "the result, with the values observed" },
	[ACOL_HINT] = { "HINT", 30, 0, "how to fix it (results that did not pass)" },
	[ACOL_DESCRIPTION] = { "DESCRIPTION", 30, 0, "what the check tests" },
};

static const int audit_defaults[] = { ACOL_STATUS, ACOL_CHECK, ACOL_OBJECT, ACOL_MESSAGE };
/* -v: the hint too, as the tree shows it */
static const int audit_verbose[] = { ACOL_HINT };

static const struct view audit_table_view = {
	.defaults = audit_defaults,
	.ndefaults = ARRAY_SIZE(audit_defaults),
	.verbose_extra = audit_verbose,
	.nverbose_extra = ARRAY_SIZE(audit_verbose),
};

/* Any option that chooses a table rather than the tree? */
static bool table_wanted(const struct cmd_ctx *ctx)
{
	return ctx->list_columns || ctx->output_arg || ctx->output_all || ctx->out.noheadings ||
	       ctx->out.raw || ctx->out.pairs || ctx->out.shellvar;
}

static char *finding_cell(const struct audit_finding *f, int col)
{
	const struct audit_check *c = f->check;

	switch (col) {
	case ACOL_STATUS: return cell_str(audit_status_name(f->status));
	case ACOL_CHECK: return cell_str(c->id);
	case ACOL_CATEGORY: return cell_str(c->category);
	case ACOL_PARENT: return cell_str(c->parent);
	case ACOL_OBJECT: return cell_str(f->object);
	case ACOL_MESSAGE: return cell_str(f->message);
	case ACOL_HINT: return cell_str(f->hint);
	case ACOL_DESCRIPTION: return cell_str(c->description);
	}
	return NULL;
}

/* One row per result shown, in the order the checks made them; no summary line (scripts parse it). */
static void print_table(const struct cmd_ctx *ctx, const struct audit_view *v)
{
	struct table *tb = table_new(&ctx->out, ctx->cmd->cols);

	for (size_t i = 0; i < v->rep->n; i++) {
		char *values[OUTPUT_MAX_COLUMNS];

		if (!v->shown[i])
			continue;
		for (size_t c = 0; c < ctx->out.ncols; c++)
			values[c] = finding_cell(&v->rep->findings[i], ctx->out.cols[c]);
		table_add_row(tb, values);
	}
	table_print_free(tb);
}

/* ---- JSON ---- */

static struct json_object *finding_json(const struct audit_finding *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", js_str(f->check->id));
	json_object_object_add(o, "category", js_str(f->check->category));
	json_object_object_add(o, "parent", js_str(f->check->parent));
	json_object_object_add(o, "object", js_str(f->object));
	json_object_object_add(o, "status", js_str(audit_status_name(f->status)));
	json_object_object_add(o, "message", js_str(f->message));
	json_object_object_add(o, "hint", js_str(f->hint));
	return o;
}

/* What the streamed JSON report needs while the checks run. */
struct json_sink {
	const struct cmd_ctx *ctx;
	struct json_list w;
	size_t count[AUDIT_NR_STATUS], total;
};

static void emit_json(const struct audit_finding *f, void *arg)
{
	struct json_sink *sink = arg;

	if (!finding_selected(sink->ctx, f))
		return;
	sink->count[f->status]++;
	sink->total++;
	if (!param.shrt || f->status != AUDIT_PASS)
		json_list_item(&sink->w, finding_json(f));
}

/* The document's end: the summary of what SINK counted. */
static void json_end(struct json_sink *sink)
{
	static const char *const keys[] = {
		[AUDIT_PASS] = "pass", [AUDIT_WARN] = "warn", [AUDIT_FAIL] = "fail",
		[AUDIT_SKIP] = "skip", [AUDIT_NEEDS_ROOT] = "needs_root",
	};
	struct json_object *sum = json_object_new_object();

	json_object_object_add(sum, "total", js_u64(sink->total));
	for (int st = 0; st < AUDIT_NR_STATUS; st++)
		json_object_object_add(sum, keys[st], js_u64(sink->count[st]));
	json_list_end_with(&sink->w, "summary", sum);
}

/* The document of a run that ends before any check (a usage error, a filter naming nothing). */
static void json_empty(const struct cmd_def *cmd)
{
	struct json_sink none = { 0 };

	(void)cmd;
	json_list_begin(&none.w, stdout, "checks");
	json_end(&none);
}

/* -J: each result printed as the checks make it, the summary last. */
static int run_json(const struct cmd_ctx *ctx, const struct tsm_snapshot *snap,
		    struct audit_opts *opts)
{
	struct json_sink sink = { .ctx = ctx };
	struct audit_report rep;

	opts->emit = emit_json;
	opts->emit_arg = &sink;
	json_list_begin(&sink.w, stdout, "checks");
	audit_run(snap, opts, &rep);
	audit_report_free(&rep);
	json_end(&sink);
	return sink.count[AUDIT_FAIL] ? EXIT_FAIL : EXIT_OK;
}

/* --list-checks: the table itself, for people, scripts and the man page test. */
static int list_checks(const struct cmd_ctx *ctx)
{
	struct json_object *doc, *arr;

	if (!ctx->out.json) {
		for (size_t i = 0; i < audit_nr_checks; i++) {
			const struct audit_check *c = &audit_checks[i];

			printf("%-22s %-10s %-22s %s\n", c->id, c->category,
			       c->parent ? c->parent : "-", c->description);
		}
		return EXIT_OK;
	}
	doc = json_object_new_object();
	arr = json_object_new_array();
	for (size_t i = 0; i < audit_nr_checks; i++) {
		const struct audit_check *c = &audit_checks[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", js_str(c->id));
		json_object_object_add(o, "category", js_str(c->category));
		json_object_object_add(o, "parent", js_str(c->parent));
		json_object_object_add(o, "description", js_str(c->description));
		json_object_object_add(o, "hint", js_str(c->hint));
		json_object_array_add(arr, o);
	}
	json_object_object_add(doc, "schema_version", json_object_new_int(1));
	json_object_object_add(doc, "checks", arr);
	json_print_document(stdout, doc);
	return EXIT_OK;
}

static bool utf8_locale(void)
{
	const char *cs;

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static int run_audit(struct cmd_ctx *ctx)
{
	struct module_state mods[8];
	struct audit_opts opts = { .strict = param.strict };
	struct audit_report rep;
	struct audit_view v = { .rep = &rep, .verbose = ctx->verbose };
	struct tsm_snapshot snap;
	size_t count[AUDIT_NR_STATUS] = { 0 }, total = 0;
	struct ev_gate gate;
	char **required = NULL, **verified = NULL, *why = NULL, *sys = NULL;
	bool *absent = NULL, *verified_absent = NULL;
	int rc;

	if (param.list_checks)
		return list_checks(ctx);
	if (ctx->nargs)
		return extra_operand(ctx->cmd, ctx->args[0]);
	/* -H, and -o's columns: as every view */
	if (table_wanted(ctx) && !view_columns(ctx, &audit_table_view, &rc))
		return rc;
	rc = parse_required(ctx, &opts, &required, &verified);
	if (rc)
		goto out_required;
	if (ev_gate_init(&gate, &param.judge, &why)) {
		cmd_error("audit", "%s", why);
		free(why);
		rc = EXIT_FAIL;
		goto out_gate;
	}
	/* device.evidence: each device's evidence read and decided on (evidence-gate.c) */
	gate.snap = &snap;
	opts.evidence = ev_gate_audit_fn;
	opts.evidence_arg = &gate;
	sys = sysfs_display_path("sys");
	opts.sys = sys;

	snapshot_scan(&snap, SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES | SCAN_IDE_PORTS | SCAN_PLATFORM);
	rc = filters_check(ctx, &snap);
	if (rc)
		goto out_snap;
	absent = absent_of(&snap, opts.require, opts.nr_require);
	opts.require_absent = absent;
	verified_absent = absent_of(&snap, opts.require_verified, opts.nr_require_verified);
	opts.require_verified_absent = verified_absent;
	if (!snap.nr_tsms) {	/* the hints name the provider modules */
		opts.modules = mods;
		opts.nr_modules = provider_modules(mods, ARRAY_SIZE(mods));
	}
	if (ctx->out.json) {
		rc = run_json(ctx, &snap, &opts);
		goto out_snap;
	}
	audit_run(&snap, &opts, &rep);

	v.shown = xcalloc(rep.n ? rep.n : 1, sizeof(*v.shown));
	for (size_t i = 0; i < rep.n; i++) {
		const struct audit_finding *f = &rep.findings[i];

		if (!finding_selected(ctx, f))
			continue;
		count[f->status]++;
		total++;
		v.shown[i] = !param.shrt || f->status != AUDIT_PASS;
		if (v.shown[i] && strlen(f->object) > v.obj_width)
			v.obj_width = strlen(f->object);
	}
	v.utf8 = utf8_locale();
	if (table_wanted(ctx))
		print_table(ctx, &v);
	else if (param.shrt)
		print_short(&v);
	else
		print_tree(&v);
	if (!table_wanted(ctx))
		printf("%zu result%s: %zu pass, %zu warn, %zu fail, %zu skip, %zu needs-root\n",
		       total, total == 1 ? "" : "s", count[AUDIT_PASS], count[AUDIT_WARN],
		       count[AUDIT_FAIL], count[AUDIT_SKIP], count[AUDIT_NEEDS_ROOT]);
	rc = count[AUDIT_FAIL] ? EXIT_FAIL : EXIT_OK;
	free(v.shown);
	audit_report_free(&rep);
out_snap:
	free(absent);
	free(verified_absent);
	free(sys);
	snapshot_free(&snap);
out_gate:
	ev_gate_release(&gate);
out_required:
	strv_free(required, opts.nr_require);
	strv_free(verified, opts.nr_require_verified);
	return rc;
}

static const struct opt_def audit_options[] = {
	OPT_COMMON(COMMON_DEVICE), OPT_COMMON(COMMON_TSM), OPT_COMMON(COMMON_HOST_BRIDGE),
	OPT_COMMON(COMMON_JSON),
	OPT_BOOLEAN(0, "short", &param.shrt, "show only results that did not pass"),
	OPT_BOOLEAN(0, "strict", &param.strict, "count warnings as failures"),
	OPT_STRING(0, "require-connected", &param.require_connected, "LIST",
		   "devices that must be connected (BDF or slot list, or 'all')"),
	OPT_STRING(0, "require-verified", &param.require_verified, "LIST",
		   "devices whose evidence must prove them (BDF or slot list, or 'all' with evidence)"),
	OPT_EV_JUDGE_READONLY(param.judge),
	OPT_BOOLEAN(0, "list-checks", &param.list_checks,
		    "list the checks: id, category, parent, description"),
	OPT_COMMON(COMMON_OUTPUT), OPT_COMMON(COMMON_OUTPUT_ALL), OPT_COMMON(COMMON_LIST_COLUMNS),
	OPT_COMMON(COMMON_NOHEADINGS), OPT_COMMON(COMMON_RAW), OPT_COMMON(COMMON_PAIRS),
	OPT_COMMON(COMMON_SHELL),
	OPT_END()
};

const struct cmd_def cmd_audit = {
	.name = "audit",
	.summary = "check TSM, device and IDE stream state; exit 1 on failure",
	.description = "Run the readiness checks over TSMs, devices, IDE streams and host bridges.\n"
		       "A check whose parent failed or was skipped is skipped. Exit status 0 when\n"
		       "nothing failed (warnings allowed, unless --strict), 1 when a check failed",
	.opts = audit_options,
	.cols = audit_columns,
	.ncols = ARRAY_SIZE(audit_columns),
	.json_empty = json_empty,
	.verbose_help = "show each check's description and each result's hint (a table: HINT)",
	.run = run_audit,
};
