// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tsmctl connect / disconnect, and the guest TDISP verbs lock / accept /
 * unlock: one or more targets, each checked and written once through
 * action.c, the tree rescanned after every store, a result per target and a
 * summary ("connected 2 of 3 devices"). One run serves all five; a failure's
 * words come from explain_action() (explain-action.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/action.h"
#include "tsmctl/builtin.h"
#include "tsmctl/cli.h"
#include "tsmctl/evidence-gate.h"
#include "tsmctl/explain.h"
#include "tsmctl/names.h"
#include "tsmctl/output.h"
#include "tsmctl/render.h"
#include "tsmctl/slot.h"
#include "tsmctl/snapshot.h"
#include "tsmctl/stopsig.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

/* What the checks and the report read; scanned again after every store. */
#define ACTION_SCAN	(SCAN_TSMS | SCAN_STREAMS | SCAN_DEVICES)
#define STRICT_NOTE	"a failure with --strict"

/* The verbs' own options; wait_seconds < 0: do not wait. */
static struct action_param {
	bool dry_run, no_syslog, keep_going, strict, force;
	double wait_seconds;
	bool verify;			/* accept --verify */
	struct ev_judge_opts judge;
} param = { .wait_seconds = -1 };

/* accept --verify: the inputs and the transport, for every target (evidence-gate.c) */
static struct ev_gate *accept_gate;

enum result {
	RESULT_OK,
	RESULT_ALREADY,		/* the state asked for holds already: nothing written */
	RESULT_DRY_RUN,		/* --dry-run: the store would be made */
	RESULT_INSECURE,	/* connected, but a stream is not SECURE or reports IDE_FAIL */
	RESULT_FAILED,
	RESULT_SKIPPED,
};

static const char *const result_names[] = {
	[RESULT_OK] = "ok",
	[RESULT_ALREADY] = "already",
	[RESULT_DRY_RUN] = "dry-run",
	[RESULT_INSECURE] = "insecure",
	[RESULT_FAILED] = "failed",
	[RESULT_SKIPPED] = "skipped",
};

/* A failed target: one that makes the command exit 1 and stops a batch without --keep-going. */
static bool result_failed(enum result r)
{
	return r == RESULT_FAILED || r == RESULT_INSECURE;
}

/* The words of one verb. */
struct verb {
	enum tsm_action action;
	const char *done;	/* "connected" */
	const char *prep;	/* "to" / "from" */
};

static const struct verb verbs[] = {
	{ ACTION_CONNECT, "connected", "to" },
	{ ACTION_DISCONNECT, "disconnected", "from" },
	{ ACTION_LOCK, "locked", "to" },
	{ ACTION_ACCEPT, "accepted", "by" },
	{ ACTION_UNLOCK, "unlocked", "from" },
};

struct target {
	char *bdf;
	enum result result;
	int err;		/* -errno behind a failure; 0 for none or a failed verification */
	char *message;
	char *warning;		/* done, but with this to say */
	char *tsm;
	struct json_object *streams;	/* owned until printed */
	char *streams_text;
	long long available;	/* the host bridge's available_secure_streams afterwards */
	/* lock/accept/unlock: the TDISP state the kernel shows afterwards */
	char *locked, *driver;
	int accepted;		/* 1, 0, or -1 for absent/unknown */
	char *verified;		/* accept --verify: what the evidence checks said */
};

struct batch {
	struct cmd_ctx *ctx;
	const struct verb *verb;
	const char *tsm;	/* as given; NULL: disconnect from the connected one */
	struct target *targets;
	size_t n;
};

static const char *verb_name(const struct batch *b)
{
	return action_name(b->verb->action);
}

static void target_add(struct batch *b, const char *bdf)
{
	struct target *t;

	b->targets = xrealloc(b->targets, (b->n + 1) * sizeof(*b->targets));
	t = &b->targets[b->n++];
	memset(t, 0, sizeof(*t));
	t->bdf = xstrdup(bdf);
	t->available = -1;
	t->accepted = -1;
}

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct target *t = &b->targets[i];

		free(t->bdf);
		free(t->message);
		free(t->warning);
		free(t->tsm);
		free(t->streams_text);
		free(t->locked);
		free(t->driver);
		free(t->verified);
		json_object_put(t->streams);
	}
	free(b->targets);
}

/* Refused before any device is tried: WHO's message, and with -J the (empty) results document. */
static int fail_up_front(const struct batch *b, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_up_front(const struct batch *b, const char *who, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcmd_message(stderr, who, fmt, ap);
	va_end(ap);
	if (b->ctx->out.json)
		json_list_empty(stdout, "results");
	return EXIT_FAIL;
}

/*
 * A device argument: hex digits, ':' and '.' only and the strict parser
 * (else a usage error); a well-formed address naming no device is exit 1,
 * as for the filters: the tree, not the command line, lacks it.
 */
static int add_bdf_arg(struct batch *b, const char *arg)
{
	const struct cmd_def *cmd = b->ctx->cmd;
	char canon[BDF_MAX], targets[SLOT_MAX_FUNCS][BDF_MAX];
	size_t n = 1;

	if (!*arg || strspn(arg, "0123456789abcdefABCDEF:.") != strlen(arg) || strstr(arg, "..") ||
	    (bdf_canonical(arg, canon) && slot_canonical(arg, canon)))
		return usage_error(cmd, "invalid PCI address '%s' (expected [DDDD:]BB:DD.F, or "
				   "[DDDD:]BB:DD for a slot)", arg);
	if (bdf_is_slot(canon))
		n = slot_targets(cmd->name, arg, canon, !action_is_tdisp(b->verb->action), targets);
	else
		memcpy(targets[0], canon, BDF_MAX);
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < b->n; i++)
			if (streq(b->targets[i].bdf, targets[k]))
				return usage_error(cmd, "%s is given twice", targets[k]);
		target_add(b, targets[k]);
	}
	return 0;
}

/* Every device named exists (checked once the syntax of all arguments is known good). */
static int check_targets_exist(const struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (!action_device_present(b->targets[i].bdf))
			return fail_up_front(b, verb_name(b), "%s: no such PCI device (see 'tsmctl "
					     "devices --all')", b->targets[i].bdf);
	return 0;
}

/* A PCI address or slot as the targets are written: what the TSM operand is not. */
static bool is_device_arg(const char *arg)
{
	char canon[BDF_MAX];

	return !bdf_canonical(arg, canon) || !slot_canonical(arg, canon);
}

/* The TSM is the last operand: one before it leaves the rest extra (0 when none is). */
static int check_tsm_last(const struct cmd_ctx *ctx)
{
	int id;

	for (int i = 0; i + 1 < ctx->nargs; i++)
		if (!tsm_name_parse(ctx->args[i], &id))
			return usage_error(ctx->cmd, "extra operand '%s': the TSM (%s) comes last "
					   "(tsmctl %s %s)", ctx->args[i + 1], ctx->args[i],
					   ctx->cmd->name, ctx->cmd->args);
	return 0;
}

/* BDF... TSM (connect, lock), BDF... [TSM] (disconnect, unlock), BDF... (accept), or --all. */
static int parse_args(struct batch *b)
{
	struct cmd_ctx *ctx = b->ctx;
	enum tsm_action action = b->verb->action;
	int nargs = ctx->nargs, id, rc;

	if (action != ACTION_ACCEPT && (rc = check_tsm_last(ctx)))
		return rc;
	if (action == ACTION_CONNECT || action == ACTION_LOCK) {
		if (!nargs)
			return usage_error(ctx->cmd, "no TSM given (BDF... TSM, or --all TSM)");
		/* "connect 01:00.0": the TSM forgotten, not a device misspelt as one */
		if (is_device_arg(ctx->args[nargs - 1]))
			return usage_error(ctx->cmd, "no TSM given: '%s' is a device, and the TSM "
					   "comes last (tsmctl %s %s)", ctx->args[nargs - 1],
					   ctx->cmd->name, ctx->cmd->args);
		b->tsm = ctx->args[--nargs];
	} else if (action == ACTION_ACCEPT) {
		if (nargs && startswith(ctx->args[nargs - 1], "tsm"))
			return usage_error(ctx->cmd, "accept takes no TSM: the device's lock names "
					   "it ('%s')", ctx->args[nargs - 1]);
		/* without --verify nothing is judged: an input or a risk taken would be a promise unkept */
		if (!param.verify && ev_judge_opts_given(&param.judge))
			return usage_error(ctx->cmd, "--trust, --reference, --pin, --partial-chain and "
					   "the --allow-* options go with --verify");
	} else if (nargs && startswith(ctx->args[nargs - 1], "tsm")) {
		b->tsm = ctx->args[--nargs];
	}
	if (b->tsm && tsm_name_parse(b->tsm, &id))
		return usage_error(ctx->cmd, "invalid TSM name '%s' (expected tsmN)", b->tsm);
	if (ctx->all && nargs)
		return usage_error(ctx->cmd, "--all and a device list exclude each other");
	if (!ctx->all && !nargs)
		return usage_error(ctx->cmd, "no device given (BDF..., or --all)");
	for (int i = 0; i < nargs; i++) {
		rc = add_bdf_arg(b, ctx->args[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * lock --all: every unlocked device without a driver (a bound driver makes
 * the lock EBUSY); accept --all: every locked, unaccepted one without a
 * driver; unlock --all: every locked one (to TSM).
 */
static bool tdisp_wanted(const struct batch *b, const struct pci_func *f)
{
	const char *holder = func_lock_holder(f);

	switch (b->verb->action) {
	case ACTION_LOCK:
		return f->lock && !*f->lock && !f->driver;
	case ACTION_ACCEPT:
		return holder && func_accepted(f) == 0 && !f->driver;
	default:
		return holder && (!b->tsm || streq(holder, b->tsm));
	}
}

static void select_all_tdisp(struct batch *b, const struct tsm_snapshot *snap)
{
	static const char *const none[] = {
		[ACTION_LOCK] = "no device with tsm/lock is unlocked and without a driver",
		[ACTION_ACCEPT] = "no device is locked and waiting for accept without a driver",
		[ACTION_UNLOCK] = "no device is locked",
	};

	for (size_t i = 0; i < snap->nr_funcs; i++)
		if (snap->funcs[i]->has_lock && tdisp_wanted(b, snap->funcs[i]))
			target_add(b, snap->funcs[i]->bdf);
	if (!b->n)
		cmd_error(verb_name(b), "%s%s%s", none[b->verb->action],
			  b->tsm && b->verb->action == ACTION_UNLOCK ? " by " : "",
			  b->tsm && b->verb->action == ACTION_UNLOCK ? b->tsm : "");
}

/* --all: every unconnected device with tsm/connect, or every connected one (to TSM). */
static void select_all(struct batch *b, const struct tsm_snapshot *snap)
{
	bool any_group = false;

	if (action_is_tdisp(b->verb->action)) {
		select_all_tdisp(b, snap);
		return;
	}
	size_t unconnectable = 0;
	char *why;

	for (size_t i = 0; i < snap->nr_funcs; i++) {
		const struct pci_func *f = snap->funcs[i];

		if (!f->has_connect)
			continue;
		any_group = true;
		/* what would only fail is left out: the model's judgement, as audit's */
		if (b->verb->action == ACTION_CONNECT && f->connect && !*f->connect &&
		    (why = func_connect_blocker(f, snapshot_find_tsm(snap, b->tsm)))) {
			cmd_note("connect", "--all leaves out %s: %s", f->bdf, why);
			unconnectable++;
			free(why);
			continue;
		}
		if (b->verb->action == ACTION_CONNECT ? f->connect && !*f->connect :
		    func_connected(f) && (!b->tsm || streq(f->connect, b->tsm)))
			target_add(b, f->bdf);
	}
	if (b->n)
		return;
	if (!any_group)
		explain_no_devices(snap, verb_name(b));
	else if (b->verb->action == ACTION_CONNECT && unconnectable)
		cmd_error("connect", "no device is left that a connect could succeed for");
	else if (b->verb->action == ACTION_CONNECT)
		cmd_error("connect", "every device with tsm/connect is connected already");
	else
		cmd_error("disconnect", "no device is connected%s%s",
			  b->tsm ? " to " : "", b->tsm ? b->tsm : "");
}

/* S into T's result and the text list TEXT; a stream that went away is told with its last state, as such. */
static void stream_add(struct target *t, struct strbuf *text, const struct ide_stream *s, bool gone)
{
	char *eps = render_partner_state(s, true), *rps = render_partner_state(s, false);
	const struct ide_sel_stream *ep = stream_partner_block(s, true);

	strbuf_join(text, "; ", "%s on %s", s->name, s->hb->name);
	if (ep)
		strbuf_appendf(text, " (Stream ID %u)", ep->regs.stream_id);
	strbuf_appendf(text, ", %sendpoint %s, root port %s", gone ? "last state: " : "", eps, rps);
	json_object_array_add(t->streams, render_stream_brief_json(s));
	free(eps);
	free(rps);
}

static bool stream_in(const struct tsm_snapshot *snap, const struct ide_stream *s)
{
	for (size_t i = 0; i < snap->nr_streams; i++)
		if (streq(snap->streams[i]->name, s->name) &&
		    streq(snap->streams[i]->hb->name, s->hb->name))
			return true;
	return false;
}

/*
 * The streams a result reports: a connect's as the kernel now shows them; a
 * done disconnect's that went away (with their last state); otherwise those left.
 */
static void report_streams(struct target *t, const struct tsm_snapshot *before,
			   const struct tsm_snapshot *now, bool gone)
{
	const struct tsm_snapshot *from = gone ? before : now;
	const struct pci_func *f = snapshot_find_func(now, t->bdf);
	struct strbuf text = STRBUF_INIT;

	t->streams = json_object_new_array();
	for (size_t i = 0; i < from->nr_streams; i++) {
		const struct ide_stream *s = from->streams[i];

		if (!s->endpoint || !streq(s->endpoint->bdf, t->bdf))
			continue;
		if (gone && stream_in(now, s))
			continue;
		stream_add(t, &text, s, gone);
	}
	t->streams_text = text.len ? strbuf_take(&text) : NULL;
	if (f && f->hb)
		t->available = f->hb->available_streams;
}

/* The TDISP state a lock/accept/unlock result reports: as the kernel now shows it. */
static void report_tdisp(struct target *t, const struct pci_func *f)
{
	if (!f)
		return;
	t->locked = func_lock_holder(f) ? xstrdup(func_lock_holder(f)) : NULL;
	t->accepted = func_accepted(f);
	t->driver = f->driver ? xstrdup(f->driver) : NULL;
}

static char *already_message(enum tsm_action action, const char *tsm)
{
	switch (action) {
	case ACTION_ACCEPT:
		return xasprintf("already accepted (locked to %s)", tsm);
	case ACTION_DISCONNECT:
		return xstrdup("not connected");
	case ACTION_UNLOCK:
		return xstrdup("not locked");
	default:
		return xasprintf("already %s to %s", action == ACTION_LOCK ? "locked" : "connected",
				 tsm);
	}
}

/* The errno --strict gives a target that was done already: the kernel's for the store. */
static int already_errno(enum tsm_action action)
{
	return action == ACTION_DISCONNECT ? -ENXIO : action == ACTION_UNLOCK ? -EINVAL : -EBUSY;
}

/* "connected to tsm0", "accepted (locked to tsm0)" */
static char *done_message(const struct batch *b, const char *tsm)
{
	if (b->verb->action == ACTION_ACCEPT)
		return xasprintf("accepted (locked to %s)", tsm);
	return xasprintf("%s %s %s", b->verb->done, b->verb->prep, tsm);
}

static char *interrupted_message(void)
{
	return xasprintf("not attempted: interrupted by %s", stopsig_name(stop_signal));
}

static void set_result(struct target *t, enum result r, int err, char *message)
{
	t->result = r;
	t->err = err;
	t->message = message;
}

static char *with_note(char *msg, char *note)
{
	char *s;

	if (!note)
		return msg;
	s = xasprintf("%s; %s", msg, note);
	free(msg);
	free(note);
	return s;
}

/*
 * Why a dry run knows the store would fail, NULL when it does not: a connect
 * the model says must fail (func_connect_blocker(): no pool, TDX Connect's
 * association rule, ABI.md §1.3, §2.1-2.6). NAME is the TSM's name in SNAP,
 * SHOWN its escaped text.
 */
static char *predicted_failure(const struct tsm_snapshot *snap, enum tsm_action action,
			       const struct pci_func *f, const char *name, const char *shown)
{
	char *why, *esc, *s;
	bool no_pool;

	if (action != ACTION_CONNECT || !f)
		return NULL;
	why = func_no_pool_reason(f);
	no_pool = why;
	if (!why && !(why = func_connect_blocker(f, snapshot_find_tsm(snap, name))))
		return NULL;
	esc = text_escape(why);	/* it names tree objects */
	free(why);
	if (!no_pool)
		return esc;
	s = xasprintf("%s, so %s cannot set up an IDE stream", esc, shown);
	free(esc);
	return s;
}

/*
 * accept --verify: the TDI's evidence judged, and still the generation judged
 * just before the store (not for a dry run, which stores nothing). False
 * with T's result set when the accept must not be written.
 */
static bool evidence_passes(const struct tsm_snapshot *snap, struct target *t)
{
	const struct pci_func *f = snapshot_find_func(snap, t->bdf);
	char *msg = NULL;
	int rc;

	/* not locked, or accepted already: the store's own checks say so */
	if (!f || !func_lock_holder(f) || func_accepted(f) != 0)
		return true;
	rc = ev_gate_verify(accept_gate, snap, t->bdf, &msg);
	if (!rc && !param.dry_run) {
		free(msg);
		rc = ev_gate_confirm(accept_gate, snap, t->bdf, &msg);
	}
	if (!rc) {
		/* "evidence of generation N verified: ..." or "... taking on trust: ...; verified: ..." */
		t->verified = text_escape(accept_gate->line);
		free(msg);
		return true;
	}
	set_result(t, RESULT_FAILED, rc == -EACCES || rc == -ESTALE ? 0 : rc, msg);
	t->tsm = xstrdup(func_lock_holder(f));
	report_tdisp(t, f);
	return false;
}

/*
 * accept --verify, once the kernel shows T accepted: the first use's pins
 * saved; a pin that could not be saved fails T, saying the accept stands.
 */
static void save_pins(struct target *t)
{
	char *note, *msg, *done = t->message;

	if (ev_gate_save_pins(accept_gate, &note, &msg)) {
		free(t->verified);
		t->verified = NULL;
		set_result(t, RESULT_FAILED, 0, xasprintf("%s, but %s", done, msg));
		free(done);
		free(msg);
	} else if (note) {
		t->verified = with_note(t->verified, note);
	}
}

/* A dry run's result: what would be written, or why the store would fail. */
static void dry_run_result(const struct batch *b, struct target *t, const struct action_plan *plan,
			   const struct tsm_snapshot *now, const struct pci_func *f,
			   const char *tsm, const char *value)
{
	char *shown = sysfs_display_path(plan->path);
	char *why = predicted_failure(now, b->verb->action, f, plan->tsm, tsm);

	/* a store the dry run knows would fail counts as failing, as the store would */
	if (why)
		set_result(t, RESULT_FAILED, 0, xasprintf("would write '%s' to %s, but the %s would "
							  "fail: %s", value, shown, verb_name(b),
							  why));
	else
		set_result(t, RESULT_DRY_RUN, 0, xasprintf("would write '%s' to %s", value, shown));
	free(why);
	free(shown);
}

/* Check, write once, rescan, and judge what the kernel shows; SNAP becomes the rescan. */
static void run_target(struct batch *b, struct tsm_snapshot *snap, struct target *t)
{
	enum tsm_action action = b->verb->action;
	struct tsm_snapshot after, *now = snap;
	struct action_plan plan;
	enum action_verdict verdict = VERDICT_FAILED;
	const struct pci_func *f;
	char *note = NULL, *done, *tsm, *value;
	bool raced;
	unsigned int flags = (param.dry_run ? ACTION_DRY_RUN : 0) |
			     (param.no_syslog ? ACTION_NO_SYSLOG : 0) | (param.force ? ACTION_FORCE : 0) |
			     (param.strict ? ACTION_STRICT : 0);

	if (action == ACTION_ACCEPT && accept_gate && !evidence_passes(snap, t))
		return;
	action_apply(snap, action, t->bdf, b->tsm, flags, &plan);
	/* the TSM name and value may be the tree's text (disconnect, accept): escaped for messages */
	tsm = text_escape(plan.tsm);
	value = text_escape(plan.value);
	if (plan.written) {
		/* a failed connect: the enabled blocks too, whose boot Stream IDs may be why */
		snapshot_scan(&after, ACTION_SCAN | (action == ACTION_CONNECT && plan.err ?
						      SCAN_IDE_PORTS : 0));
		now = &after;
	}
	f = snapshot_find_func(now, t->bdf);
	t->tsm = plan.tsm ? xstrdup(plan.tsm) : NULL;
	if (action_store_taken(&plan))
		verdict = action_verify(&plan, snap, now, &note);
	/* an EBUSY while the rescan shows what was asked: another writer won the race */
	raced = f && ((action == ACTION_CONNECT && streq(f->connect, plan.tsm)) ||
		      (action == ACTION_LOCK && streq(func_lock_holder(f), plan.tsm)));
	switch (action_classify(&plan, verdict, flags, raced)) {
	case OUTCOME_ALREADY_STRICT:
		plan.err = already_errno(action);
		set_result(t, RESULT_FAILED, plan.err,
			   with_note(explain_action(&plan, now), xstrdup(STRICT_NOTE)));
		break;
	case OUTCOME_ALREADY:
		set_result(t, RESULT_ALREADY, 0, already_message(action, tsm));
		break;
	case OUTCOME_WOULD_WRITE:
		dry_run_result(b, t, &plan, now, f, tsm, value);
		break;
	case OUTCOME_DONE:
		set_result(t, RESULT_OK, 0, done_message(b, tsm));
		t->warning = note;
		note = NULL;
		break;
	case OUTCOME_DONE_WARNED_STRICT:
		done = done_message(b, tsm);
		set_result(t, RESULT_FAILED, 0, with_note(xasprintf("%s, but %s", done, note),
							  xstrdup(STRICT_NOTE)));
		free(done);
		break;
	case OUTCOME_NOT_SHOWN:
		/* INSECURE (connected, not secure) or FAILED (the kernel does not show it done) */
		set_result(t, verdict == VERDICT_INSECURE ? RESULT_INSECURE : RESULT_FAILED, 0, note);
		note = NULL;
		break;
	case OUTCOME_RACED_STRICT:
		set_result(t, RESULT_FAILED, -EBUSY,
			   with_note(explain_action(&plan, now), xstrdup(STRICT_NOTE)));
		break;
	case OUTCOME_RACED:
		done = already_message(action, tsm);
		set_result(t, RESULT_ALREADY, 0,
			   xasprintf("%s (by another writer, while this one was checking)", done));
		free(done);
		break;
	case OUTCOME_INTERRUPTED:
		set_result(t, RESULT_SKIPPED, 0, interrupted_message());
		break;
	case OUTCOME_FAILED:
		set_result(t, RESULT_FAILED, plan.err, explain_action(&plan, now));
		break;
	}
	free(note);
	free(tsm);
	free(value);
	if (t->result == RESULT_OK && t->verified)
		save_pins(t);
	if ((t->result == RESULT_OK || t->result == RESULT_DRY_RUN) && t->verified) {
		t->message = with_note(t->message, t->verified);
		t->verified = NULL;
	} else if (t->result == RESULT_OK && action == ACTION_ACCEPT) {
		t->message = with_note(t->message, xstrdup("its evidence was not checked ('tsmctl "
							   "accept --verify' checks it first)"));
	} else if (t->result == RESULT_DRY_RUN && action == ACTION_ACCEPT) {
		t->message = with_note(t->message, xstrdup("its evidence would not be checked "
							   "(--verify checks it first)"));
	} else if (t->result == RESULT_OK && action == ACTION_LOCK) {
		t->message = with_note(t->message, xasprintf("next: tsmctl accept --verify %s",
							     t->bdf));
	}
	if (action_is_tdisp(action))
		report_tdisp(t, f);
	else
		report_streams(t, snap, now, action == ACTION_DISCONNECT &&
			       t->result == RESULT_OK);
	if (plan.written) {
		snapshot_free(snap);
		*snap = after;
	}
	action_plan_release(&plan);
}

static void print_target(const struct batch *b, const struct target *t)
{
	const char *errname = t->err ? errno_symbol(-t->err) : NULL;
	bool dry = param.dry_run;

	if (result_failed(t->result)) {
		/* escaped already (explain_action, action_verify): cmd_error() would escape it twice */
		fprintf(stderr, "tsmctl %s %s: %s%s%s%s\n", verb_name(b), t->bdf, t->message,
			errname ? " (" : "", errname ? errname : "", errname ? ")" : "");
		if (b->ctx->out.json)
			return;
		printf("%s: %s%s%s%s", t->bdf, result_names[t->result], errname ? " (" : "",
		       errname ? errname : "", errname ? ")" : "");
		if (t->streams_text)
			printf(": %s", t->streams_text);
		putchar('\n');
		stdout_flush();
		return;
	}
	if (b->ctx->out.json)
		return;
	if (t->result == RESULT_SKIPPED) {
		printf("%s: skipped (%s)\n", t->bdf, t->message);
		stdout_flush();
		return;
	}
	printf("%s: %s", t->bdf, t->message);
	if (t->streams_text && b->verb->action == ACTION_CONNECT)
		printf(": %s", t->streams_text);
	else if (t->streams_text)
		printf(dry ? "; would remove %s" : "; removed %s", t->streams_text);
	if (b->verb->action == ACTION_DISCONNECT && t->available >= 0 && !dry &&
	    t->result == RESULT_OK)
		printf("; %lld secure stream%s available", t->available, t->available == 1 ? "" : "s");
	if (t->warning)
		printf("; warning: %s", t->warning);
	putchar('\n');
	stdout_flush();
}

static struct json_object *target_json(const struct batch *b, struct target *t)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "bdf", js_str(t->bdf));
	json_object_object_add(o, "action", js_str(verb_name(b)));
	json_object_object_add(o, "result", js_str(result_names[t->result]));
	json_object_object_add(o, "errno", t->err ? js_str(errno_symbol(-t->err)) : NULL);
	if (t->warning) {
		char *msg = xasprintf("%s; warning: %s", t->message, t->warning);

		json_object_object_add(o, "message", js_str(msg));
		free(msg);
	} else {
		json_object_object_add(o, "message", js_str(t->message));
	}
	json_object_object_add(o, "tsm", js_str(t->tsm));
	if (action_is_tdisp(b->verb->action)) {
		json_object_object_add(o, "locked", js_str(t->locked));
		json_object_object_add(o, "accepted", t->accepted < 0 ? NULL :
				       js_bool(t->accepted));
		json_object_object_add(o, "driver", js_str(t->driver));
		return o;
	}
	json_object_object_add(o, "streams", t->streams ? t->streams : json_object_new_array());
	t->streams = NULL;
	json_object_object_add(o, "available_secure_streams", js_num(t->available));
	return o;
}

static void print_summary(const struct batch *b)
{
	size_t count[ARRAY_SIZE(result_names)] = { 0 };
	struct strbuf more = STRBUF_INIT;
	char *extra;
	static const enum result shown[] = { RESULT_ALREADY, RESULT_INSECURE, RESULT_FAILED,
					     RESULT_SKIPPED };
	static const char *const words[] = { "already", "insecure", "failed", "skipped" };

	for (size_t i = 0; i < b->n; i++)
		count[b->targets[i].result]++;
	for (size_t i = 0; i < ARRAY_SIZE(shown); i++)
		if (count[shown[i]])
			strbuf_join(&more, ", ", "%zu %s", count[shown[i]], words[i]);
	extra = strbuf_take(&more);
	printf("%s%s %zu of %zu device%s%s%s%s\n", param.dry_run ? "would " : "",
	       param.dry_run ? verb_name(b) : b->verb->done,
	       count[RESULT_OK] + count[RESULT_DRY_RUN] + count[RESULT_ALREADY], b->n,
	       b->n == 1 ? "" : "s",
	       *extra ? " (" : "", extra, *extra ? ")" : "");
	free(extra);
}

/* A TSM named on the command line: checked once, before any device (no device can fix it). */
static int check_tsm(const struct batch *b, const struct tsm_snapshot *snap)
{
	const char *errname;
	char *why, *who;
	int err = action_check_tsm(snap, b->verb->action, b->tsm), rc;

	if (!err)
		return 0;
	why = explain_tsm_unfit(snap, b->verb->action, b->tsm);
	errname = errno_symbol(-err);
	who = xasprintf("%s %s", verb_name(b), b->tsm);
	rc = fail_up_front(b, who, "%s (%s)", why, errname);
	free(who);
	free(why);
	return rc;
}

/* The TSM a skipped target would have used, for its result. */
static char *skipped_tsm(const struct batch *b, const struct tsm_snapshot *snap, const char *bdf)
{
	const struct pci_func *f = snapshot_find_func(snap, bdf);

	if (b->tsm && b->verb->action != ACTION_ACCEPT)
		return xstrdup(b->tsm);
	if (action_is_tdisp(b->verb->action))
		return f && func_lock_holder(f) ? xstrdup(func_lock_holder(f)) : NULL;
	return f && func_connected(f) ? xstrdup(f->connect) : NULL;
}

/* accept --verify's inputs, loaded once before any device: 0, or the failure said. */
static int open_gate(const struct batch *b)
{
	static struct ev_gate gate;
	char *why = NULL;
	int rc;

	if (ev_gate_init(&gate, &param.judge, &why)) {
		rc = fail_up_front(b, "accept", "--verify: %s", why);
		free(why);
		ev_gate_release(&gate);
		return rc;
	}
	accept_gate = &gate;
	return 0;
}

/* The verb a command runs: its name is the attribute it writes (action_name()). */
static const struct verb *verb_of(const struct cmd_def *cmd)
{
	size_t i = 0;

	/* run_action is the run of the five verbs' commands only: the last is unlock */
	while (i + 1 < ARRAY_SIZE(verbs) && !streq(action_name(verbs[i].action), cmd->name))
		i++;
	return &verbs[i];
}

/* Every verb's run: check the arguments, select, check and write each target, report. */
static int run_action(struct cmd_ctx *ctx)
{
	const struct verb *verb = verb_of(ctx->cmd);
	struct batch b = { .ctx = ctx, .verb = verb };
	struct tsm_snapshot snap;
	const char *failed_bdf = NULL;
	bool any_failed = false;
	int rc = parse_args(&b);

	if (rc)
		goto out;
	stopsig_catch(0);
	/* --wait is tsmctl wait TSM: not ready by then is a failure, and nothing is written */
	if (param.wait_seconds >= 0 && (rc = action_wait_ready(b.tsm, param.wait_seconds))) {
		if (rc == -EINTR) {
			cmd_error(verb_name(&b), "interrupted while waiting for %s; nothing written",
				  b.tsm);
			rc = stopsig_exit_status();
			goto out;
		}
		explain_not_ready(verb_name(&b), b.tsm, param.wait_seconds, rc);
		rc = fail_up_front(&b, verb_name(&b), "nothing written");
		goto out;
	}
	rc = check_targets_exist(&b);
	if (rc)
		goto out;
	snapshot_scan(&snap, ACTION_SCAN);
	if (action_is_tdisp(verb->action)) {
		char *missing = explain_tdisp_missing(&snap);

		/* Feature detection: the guest TDISP ABI is proposed (ABI.md §1.2). */
		if (missing) {
			rc = fail_up_front(&b, verb_name(&b), "%s", missing);
			free(missing);
			snapshot_free(&snap);
			goto out;
		}
	}
	rc = check_tsm(&b, &snap);
	if (!rc && param.verify)
		rc = open_gate(&b);
	if (rc) {
		snapshot_free(&snap);
		goto out;
	}
	if (ctx->all)
		select_all(&b, &snap);
	for (size_t i = 0; i < b.n; i++) {
		struct target *t = &b.targets[i];

		if (stop_signal || failed_bdf) {
			set_result(t, RESULT_SKIPPED, 0, stop_signal ? interrupted_message() :
				   xasprintf("not attempted after %s failed; --keep-going goes on",
					     failed_bdf));
			t->tsm = skipped_tsm(&b, &snap, t->bdf);
		} else {
			run_target(&b, &snap, t);
		}
		print_target(&b, t);
		if (result_failed(t->result)) {
			any_failed = true;
			if (!param.keep_going && !failed_bdf)
				failed_bdf = t->bdf;
		}
	}
	if (ctx->out.json) {
		struct json_list w;

		json_list_begin(&w, stdout, "results");
		for (size_t i = 0; i < b.n; i++)
			json_list_item(&w, target_json(&b, &b.targets[i]));
		json_list_end(&w);
	} else {
		print_summary(&b);
	}
	snapshot_free(&snap);
	if (accept_gate)
		ev_gate_release(accept_gate);
	accept_gate = NULL;
	if (stop_signal)
		rc = stopsig_exit_status();
	else
		rc = any_failed ? EXIT_FAIL : EXIT_OK;
out:
	batch_free(&b);
	return rc;
}

/* What the five verbs share: -v's text and the one run. */
#define VERB_CMD	.verbose_help = "print each sysfs path written", .json_name = "results", \
			.run = run_action

/* --wait SECONDS, checked as it is read: 0 or EXIT_USAGE */
static int parse_wait(const struct cmd_def *cmd, const char *arg, void *seconds)
{
	if (parse_seconds(arg, 86400, seconds))
		return usage_error(cmd, "invalid --wait value '%s' (decimal seconds, 0-86400)", arg);
	return 0;
}

#define OPT_DRY_RUN() \
	OPT_BOOLEAN(0, "dry-run", &param.dry_run, "say what would be written where; change nothing")
#define OPT_KEEP_GOING_STRICT() \
	OPT_BOOLEAN(0, "keep-going", &param.keep_going, "go on with the next target after a failure"), \
	OPT_BOOLEAN(0, "strict", &param.strict, "treat 'already done' (or warnings) as failure")
#define OPT_NO_SYSLOG_JSON() \
	OPT_BOOLEAN(0, "force", &param.force, \
		    "write even into a tree that is not a kernel's sysfs (a copy)"), \
	OPT_BOOLEAN(0, "no-syslog", &param.no_syslog, \
		    "do not log the stores to the system log (audit trail)"), \
	OPT_COMMON(COMMON_JSON)

static const struct opt_def connect_opts[] = {
	OPT_COMMON(COMMON_ALL), OPT_DRY_RUN(), OPT_KEEP_GOING_STRICT(),
	OPT_CALLBACK(0, "wait", &param.wait_seconds, "SECONDS",
		     "wait up to SECONDS for the TSM and device", parse_wait),
	OPT_NO_SYSLOG_JSON(), OPT_END()
};
/* accept's: disconnect's, and --verify with the evidence checks' inputs */
static const struct opt_def accept_opts[] = {
	OPT_COMMON(COMMON_ALL), OPT_DRY_RUN(), OPT_KEEP_GOING_STRICT(),
	OPT_BOOLEAN(0, "verify", &param.verify,
		    "accept only when the device's evidence proves it (tsmctl-evidence(8), THE "
		    "DECISION)"),
	OPT_EV_JUDGE(param.judge),
	OPT_NO_SYSLOG_JSON(), OPT_END()
};

/* disconnect's, and the TDISP verbs' */
static const struct opt_def disconnect_opts[] = {
	OPT_COMMON(COMMON_ALL), OPT_DRY_RUN(), OPT_KEEP_GOING_STRICT(), OPT_NO_SYSLOG_JSON(),
	OPT_END()
};

const struct cmd_def cmd_connect = {
	.name = "connect",
	.args = "BDF... TSM | --all TSM",
	.summary = "connect devices to a link TSM (SPDM session, IDE streams)",
	.description = "Connect each device to the link TSM by writing its name once to the\n"
		       "device's tsm/connect, then report what the kernel shows: the TSM and the\n"
		       "new IDE streams with their state on both partners. A stream that is not\n"
		       "SECURE on both partners is a failure. --all connects every unconnected\n"
		       "device with tsm/connect",
	.opts = connect_opts,
	VERB_CMD,
};

const struct cmd_def cmd_disconnect = {
	.name = "disconnect",
	.args = "BDF... [TSM] | --all [TSM]",
	.summary = "disconnect devices from their TSM",
	.description = "Disconnect each device from the TSM it is connected to (or the TSM\n"
		       "named, which must be that one) by writing its name once to tsm/disconnect,\n"
		       "then report the IDE streams that went away and the host bridge's\n"
		       "available_secure_streams. --all disconnects every connected device",
	.opts = disconnect_opts,
	VERB_CMD,
};

const struct cmd_def cmd_lock = {
	.name = "lock",
	.args = "BDF... TSM | --all TSM",
	.summary = "lock devices to the guest's devsec TSM (TDISP LOCKED)",
	.description = "Inside a confidential guest: lock each device's TDISP interface to the\n"
		       "devsec TSM by writing its name once to tsm/lock (UNLOCKED -> LOCKED; the\n"
		       "device's configuration is frozen), then report what the kernel shows.\n"
		       "The device must have no driver bound. Then 'tsmctl accept --verify'\n"
		       "checks its evidence and accepts it. --all locks every unlocked device\n"
		       "with tsm/lock that has no driver",
	.opts = disconnect_opts,
	VERB_CMD,
};

const struct cmd_def cmd_accept = {
	.name = "accept",
	.args = "BDF... | --all",
	.summary = "accept locked devices into the guest's TCB (TDISP RUN)",
	.description = "Inside a confidential guest: accept each locked device by writing 1 once\n"
		       "to tsm/accept (LOCKED -> RUN: private DMA and MMIO enabled), then report\n"
		       "what the kernel shows. With --verify the device's evidence is read and\n"
		       "decided on first: the accept is written only when it proves the device\n"
		       "(identity, the measurements' signature, the interface report) or the\n"
		       "--allow-* options take what it cannot prove on trust, and the evidence\n"
		       "is still the generation decided on. Accept before binding its driver.\n"
		       "--all accepts every locked, unaccepted device that has no driver",
	.opts = accept_opts,
	VERB_CMD,
};

const struct cmd_def cmd_unlock = {
	.name = "unlock",
	.args = "BDF... [TSM] | --all [TSM]",
	.summary = "unlock devices from their devsec TSM (TDISP UNLOCKED)",
	.description = "Inside a confidential guest: unlock each device from the devsec TSM that\n"
		       "holds its lock (or the TSM named, which must be that one) by writing its\n"
		       "name once to tsm/unlock (-> UNLOCKED; the accept state is dropped), then\n"
		       "report what the kernel shows. The device must have no driver bound.\n"
		       "--all unlocks every locked device",
	.opts = disconnect_opts,
	VERB_CMD,
};
