// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Audit's result engine: runs the checks of audit_checks[] (audit-checks.c)
 * in table order and records their results. Pure: nothing here reads a file
 * or prints.
 *
 * A check runs once per object of its scope: the engine walks the scope
 * and opens each result (audit_for_each()), or, for a check with results
 * beyond its scope's objects, the check's own eval does. A result whose parent check
 * failed or was skipped for the same object (or, for a parent of platform
 * scope, at all) is `skip`. Missing privilege is not a failure:
 * platform.config-access says needs-root once, up front; a check that needed
 * unreadable config is skipped with "needs root", and such a skip lets its
 * children try (they skip themselves if they need the same bytes).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-engine.h"
#include "tsmctl/util.h"

/*
 * The verdict of a parent check for an object: children look it up here, so
 * a streamed report need not keep the parent's finding.
 */
struct result_slot {
	const struct audit_check *check;	/* NULL: empty slot */
	const void *subject;
	enum audit_status status;
	bool needs_root;
};

static bool check_is_parent(const struct audit_run *run, const struct audit_check *c)
{
	return run->is_parent[c - audit_checks];
}

const char *audit_status_name(enum audit_status st)
{
	static const char *const names[] = {
		[AUDIT_PASS] = "pass", [AUDIT_WARN] = "warn", [AUDIT_FAIL] = "fail",
		[AUDIT_SKIP] = "skip", [AUDIT_NEEDS_ROOT] = "needs-root",
	};

	return st < AUDIT_NR_STATUS ? names[st] : "?";
}

const struct audit_check *audit_check_lookup(const char *id)
{
	for (size_t i = 0; i < audit_nr_checks; i++)
		if (streq(audit_checks[i].id, id))
			return &audit_checks[i];
	return NULL;
}

const char *audit_sys(const struct audit_run *run)
{
	return run->opts->sys ? run->opts->sys : "/sys";
}

void audit_text_add(char **s, const char *fmt, ...)
{
	va_list ap;
	char *piece;

	va_start(ap, fmt);
	piece = xvasprintf(fmt, ap);
	va_end(ap);
	str_join(s, "; ", "%s", piece);
	free(piece);
}

/* ---- recording results ---- */

static size_t slot_hash(const struct audit_check *c, const void *subject, size_t mask)
{
	uint64_t h = ((uint64_t)(uintptr_t)c * 0x9e3779b97f4a7c15ull) ^ (uint64_t)(uintptr_t)subject;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32)) & mask;
}

/* Platform-scope results are one per check whatever the object: keyed without a subject. */
static const void *slot_subject(const struct audit_check *c, const void *subject)
{
	return c->scope == AUDIT_SCOPE_PLATFORM ? NULL : subject;
}

static struct result_slot *slot_find(const struct audit_run *run, const struct audit_check *c,
				     const void *subject)
{
	size_t mask = run->nr_slots - 1;

	subject = slot_subject(c, subject);
	for (size_t i = slot_hash(c, subject, mask);; i = (i + 1) & mask) {
		struct result_slot *sl = &run->slots[i];

		if (!sl->check || (sl->check == c && sl->subject == subject))
			return sl;
	}
}

static void slots_grow(struct audit_run *run)
{
	struct result_slot *old = run->slots;
	size_t nold = run->nr_slots;

	run->nr_slots = nold ? nold * 2 : 1024;
	run->slots = xcalloc(run->nr_slots, sizeof(*run->slots));
	for (size_t i = 0; i < nold; i++)
		if (old[i].check)
			*slot_find(run, old[i].check, old[i].subject) = old[i];
	free(old);
}

static void record_result(struct audit_run *run, const struct audit_finding *f)
{
	struct result_slot *sl;

	if ((run->used_slots + 1) * 2 > run->nr_slots)
		slots_grow(run);
	sl = slot_find(run, f->check, f->subject);
	if (!sl->check)
		run->used_slots++;
	*sl = (struct result_slot){
		f->check, slot_subject(f->check, f->subject), f->status, f->needs_root,
	};
}

static const struct result_slot *find_result(const struct audit_run *run,
					     const struct audit_check *c, const void *ptr)
{
	const struct result_slot *sl = slot_find(run, c, ptr);

	return sl->check ? sl : NULL;
}

/* A finding is complete: keep a parent's verdict, stream it out if asked to. */
static void finish(struct audit_run *run, struct audit_finding *f)
{
	if (check_is_parent(run, f->check))
		record_result(run, f);
	if (!run->opts->emit)
		return;
	run->opts->emit(f, run->opts->emit_arg);
	free(f->object);
	free(f->message);
	free(f->hint);
	/* Streamed: the verdict is in the slots, so f is not kept. */
	run->rep->n--;
}

struct audit_finding *result_start(struct audit_run *run, const struct audit_check *c,
				   const struct subject *s)
{
	struct audit_report *rep = run->rep;
	const struct audit_check *pc = c->parent ? audit_check_lookup(c->parent) : NULL;
	const struct result_slot *parent = pc ? find_result(run, pc, s->ptr) : NULL;
	struct audit_finding *f;

	xgrow(&rep->findings, &rep->cap, rep->n, sizeof(*rep->findings));
	f = &rep->findings[rep->n++];
	*f = (struct audit_finding){
		.check = c, .object = xstrdup(s->object), .status = AUDIT_PASS,
		.subject = s->ptr, .devices = { s->dev0, s->dev1 },
		.tsm = s->tsm, .hb_tsms = s->hb_tsms, .hb = s->hb, .global = s->global,
	};
	if (parent) {
		enum audit_status pst = parent->status;

		/* A parent skipped only for lack of privilege lets its children try. */
		if (pst == AUDIT_FAIL || (pst == AUDIT_SKIP && !parent->needs_root)) {
			f->status = AUDIT_SKIP;
			f->message = xasprintf("parent check %s %s", pc->id,
					       pst == AUDIT_FAIL ? "failed" : "was skipped");
			f->hint = xasprintf("%s %s first", pst == AUDIT_FAIL ? "resolve" : "see",
					    pc->id);
			finish(run, f);
			return NULL;
		}
	}
	return f;
}

static void result_vdone(struct audit_run *run, struct audit_finding *f, enum audit_status st,
			 char *hint, const char *fmt, va_list ap)
{
	if (st == AUDIT_WARN && run->opts->strict)
		st = AUDIT_FAIL;
	f->status = st;
	f->message = xvasprintf(fmt, ap);
	if (st == AUDIT_PASS) {
		free(hint);
		hint = NULL;
	} else if (!hint) {
		hint = xstrdup(f->check->hint);
	}
	f->hint = hint;
	finish(run, f);
}

void result_done(struct audit_run *run, struct audit_finding *f, enum audit_status st,
		 char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vdone(run, f, st, hint, fmt, ap);
	va_end(ap);
}

/*
 * What a non-root run cannot read is not a failure: platform.config-access
 * says needs-root once, up front; the checks that needed it are skipped.
 */
#define NEEDS_ROOT_SUFFIX " (needs root, see platform.config-access)"

void result_skip_needs_root(struct audit_run *run, struct audit_finding *f, const char *fmt, ...)
{
	char *text;
	va_list ap;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	f->needs_root = true;	/* before result_done: a parent's verdict is kept there */
	result_done(run, f, AUDIT_SKIP, xstrdup("run the audit as root"), "%s" NEEDS_ROOT_SUFFIX, text);
	free(text);
}

const struct subject subject_platform = {
	.ptr = NULL, .object = "platform", .global = true,
};

struct subject subject_func(const struct pci_func *f)
{
	return (struct subject){
		.ptr = f, .object = f->bdf, .dev0 = f->bdf, .tsm = func_tsm(f),
		.hb = f->hb ? f->hb->name : NULL,
	};
}

struct subject subject_stream(const struct ide_stream *s, char **buf)
{
	*buf = xasprintf("%s/%s", s->hb->name, s->name);
	return (struct subject){
		.ptr = s, .object = *buf,
		.dev0 = s->endpoint ? s->endpoint->bdf : base_name(s->target),
		.dev1 = s->root_port ? s->root_port->bdf : NULL,
		.tsm = stream_connected_tsm(s),
		.hb = s->hb->name,
	};
}

struct subject subject_hb(const struct host_bridge *hb)
{
	return (struct subject){
		.ptr = hb, .object = hb->name, .hb = hb->name, .hb_tsms = hb,
	};
}

struct subject subject_tsm(const struct tsm *t)
{
	return (struct subject){ .ptr = t, .object = t->name, .tsm = t->name };
}

/* Object I of C's scope (I < scope_size()) and its subject; *BUF freed by the caller. */
static const void *scope_object(const struct audit_run *run, enum audit_scope scope, size_t i,
				struct subject *s, char **buf)
{
	const struct tsm_snapshot *snap = run->snap;

	*buf = NULL;
	switch (scope) {
	case AUDIT_SCOPE_TSM:
		*s = subject_tsm(snap->tsms[i]);
		break;
	case AUDIT_SCOPE_FUNC:
		*s = subject_func(snap->funcs[i]);
		break;
	case AUDIT_SCOPE_STREAM:
		*s = subject_stream(snap->streams[i], buf);
		break;
	case AUDIT_SCOPE_HB:
		*s = subject_hb(snap->hbs[i]);
		break;
	default:
		*s = subject_platform;
		break;
	}
	return s->ptr;
}

static size_t scope_size(const struct tsm_snapshot *snap, enum audit_scope scope)
{
	switch (scope) {
	case AUDIT_SCOPE_TSM:
		return snap->nr_tsms;
	case AUDIT_SCOPE_FUNC:
		return snap->nr_funcs;
	case AUDIT_SCOPE_STREAM:
		return snap->nr_streams;
	case AUDIT_SCOPE_HB:
		return snap->nr_hbs;
	default:
		return 1;
	}
}

void audit_for_each(struct audit_run *run, const struct audit_check *c)
{
	for (size_t i = 0, n = scope_size(run->snap, c->scope); i < n; i++) {
		struct audit_finding *f = NULL;
		struct subject s;
		char *buf;
		const void *obj = scope_object(run, c->scope, i, &s, &buf);

		if (!c->applies || c->applies(run, obj))
			f = result_start(run, c, &s);
		free(buf);
		if (f)
			c->eval_object(run, f, obj);
	}
}

void audit_run(const struct tsm_snapshot *snap, const struct audit_opts *opts,
	       struct audit_report *report)
{
	struct audit_run run = { .snap = snap, .opts = opts, .rep = report };

	memset(report, 0, sizeof(*report));
	run.is_parent = xcalloc(audit_nr_checks, sizeof(*run.is_parent));
	for (size_t i = 0; i < audit_nr_checks; i++)
		if (audit_checks[i].parent)
			run.is_parent[audit_check_lookup(audit_checks[i].parent) - audit_checks] = true;
	slots_grow(&run);
	for (size_t i = 0; i < audit_nr_checks; i++)
		if (audit_checks[i].eval)
			audit_checks[i].eval(&run, &audit_checks[i]);
		else
			audit_for_each(&run, &audit_checks[i]);
	free(run.slots);
	free(run.is_parent);
}

void audit_report_free(struct audit_report *report)
{
	for (size_t i = 0; i < report->n; i++) {
		free(report->findings[i].object);
		free(report->findings[i].message);
		free(report->findings[i].hint);
	}
	free(report->findings);
	memset(report, 0, sizeof(*report));
}
