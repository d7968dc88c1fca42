// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one decision over evidence results (evidence-decision.h): fail
 * closed, say exactly what was proven. A skip stops it unless its own risk
 * option was given; a proof that is missing stops it too, so the absence of
 * failures never passes for proof.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-decision.h"
#include "tsmctl/util.h"

static const struct {
	const char *name, *option, *words;
} risks[EV_NR_RISKS] = {
	[EV_RISK_FIRST_USE] = { "first-use", "--" EV_OPT_FIRST_USE,
				"a root pinned on first use, vouched for by no trust anchor" },
	[EV_RISK_UNSIGNED] = { "unsigned-measurements", "--" EV_OPT_UNSIGNED,
			       "measurements whose signature is not checked here (the TSM's SPDM "
			       "authentication stands in)" },
	[EV_RISK_NO_REFERENCE] = { "no-reference", "--" EV_OPT_NO_REFERENCE,
				   "measurements compared with no reference" },
	[EV_RISK_NOT_FRESH] = { "replay", "--" EV_OPT_NOT_FRESH,
				"evidence with no nonce of this reader's (a replay is not excluded)" },
	[EV_RISK_REPORT_OFFSETS] = { "report-offsets", "--" EV_OPT_REPORT_OFFSETS,
				     "MMIO ranges given as offsets (their addresses not proven)" },
};

const char *ev_risk_name(enum ev_risk risk)
{
	return risk > EV_RISK_NONE && risk < EV_NR_RISKS ? risks[risk].name : NULL;
}

const char *ev_risk_option(enum ev_risk risk)
{
	return risk > EV_RISK_NONE && risk < EV_NR_RISKS ? risks[risk].option : NULL;
}

unsigned int ev_risk_mask(const bool *allow)
{
	unsigned int mask = 0;

	for (int k = EV_RISK_NONE + 1; k < EV_NR_RISKS; k++)
		mask |= allow[k] ? 1u << k : 0;
	return mask;
}

bool ev_risk_any(const bool *allow)
{
	return ev_risk_mask(allow) != 0;
}

const char *ev_verdict_name(enum ev_verdict v)
{
	static const char *const names[] = {
		[EV_PROVEN] = "proven", [EV_TAKEN_ON_TRUST] = "taken-on-trust",
		[EV_UNPROVEN] = "unproven", [EV_NEEDS_ROOT] = "needs-root", [EV_FAILED] = "failed",
	};

	return v <= EV_FAILED ? names[v] : "?";
}

static bool accepted(const struct ev_decide_opts *o, enum ev_risk risk)
{
	return risk > EV_RISK_NONE && risk < EV_NR_RISKS && (o->allow & 1u << risk);
}

bool ev_decision_trusts(const struct ev_result *res, const struct ev_decide_opts *o)
{
	return res->status == AUDIT_SKIP && accepted(o, res->risk);
}

/* TEXT is taken over; CHECK, OBJECT may be NULL. */
static void add(struct ev_decision_list *l, enum audit_status st, const char *check,
		const char *object, enum ev_risk risk, char *text)
{
	struct ev_decision_item *it;

	xgrow(&l->v, &l->cap, l->n, sizeof(*l->v));
	it = &l->v[l->n++];
	it->status = st;
	it->check = check;
	it->object = object ? xstrdup(object) : NULL;
	it->text = text;
	it->risk = risk;
}

/* A risk taken on trust: one item per risk, the objects it covers joined. */
static void add_trusted(struct ev_decision_list *l, const struct ev_result *res)
{
	char *objects;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].risk != res->risk)
			continue;
		objects = xasprintf("%s, %s", l->v[i].object, res->object);
		free(l->v[i].object);
		l->v[i].object = objects;
		return;
	}
	add(l, AUDIT_SKIP, res->check->id, res->object, res->risk, xstrdup(risks[res->risk].words));
}

/* What a result gives as a refusal: "id object: message", with the option that would take its risk. */
static void add_refusal(struct ev_decision *d, const struct ev_result *res)
{
	const char *opt = ev_risk_option(res->risk);

	if (opt)
		d->risks_refused |= 1u << res->risk;
	else
		d->unprovable = true;
	add(&d->refused, res->status, res->check->id, res->object, res->risk,
	    opt ? xasprintf("%s (%s takes this risk)", res->message, opt) : xstrdup(res->message));
}

/* A proof the results do not hold at all. */
static void add_missing(struct ev_decision *d, const char *check, const char *object, char *text)
{
	d->unprovable = true;
	add(&d->refused, AUDIT_SKIP, check, object, EV_RISK_NONE, text);
}

/* The facts the positive proof is judged by, found in one pass. */
struct found {
	bool evidence, certs, report;	/* an object decoded (or failed to); a chain; a report */
	bool empty_said;		/* evidence.decode said every object is empty */
	const struct ev_result *chain, *signature, *ranges, *binding, *nonce;
	bool reference;			/* an evidence.measurements pass */
};

static bool is(const struct ev_result *res, const char *id, const char *object)
{
	return streq(res->check->id, id) && (!object || streq(res->object, object));
}

static void find(const struct ev_results *r, const char *signer, struct found *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < r->n; i++) {
		const struct ev_result *res = &r->v[i];

		if (is(res, "evidence.decode", "evidence")) {
			f->empty_said = true;
		} else if (is(res, "evidence.decode", NULL)) {
			f->evidence = true;
			f->certs |= startswith(res->object, "cert");
			f->report |= streq(res->object, "report");
		}
		if (is(res, "evidence.chain", signer))
			f->chain = res;
		else if (is(res, "evidence.signature", "measurements"))
			f->signature = res;
		else if (is(res, "evidence.report-ranges", "report"))
			f->ranges = res;
		else if (is(res, "evidence.binding", "report"))
			f->binding = res;
		else if (is(res, "evidence.generation", "nonce") && res->status == AUDIT_PASS)
			f->nonce = res;
		else if (is(res, "evidence.measurements", NULL) && res->status == AUDIT_PASS)
			f->reference = true;
	}
}

/* A result the positive proof needs, which passed: else why not, unless its own status said it. */
static bool proven(struct ev_decision *d, const struct ev_result *res, const char *why)
{
	if (res->status == AUDIT_PASS)
		return true;
	/* fail, skip and needs-root are counted already; a warning is no proof */
	if (res->status == AUDIT_WARN)
		add_missing(d, res->check->id, res->object, xasprintf("%s: %s", res->message, why));
	return false;
}

static void judge_identity(struct ev_decision *d, const struct found *f,
			   const struct ev_decide_opts *o)
{
	if (o->signer_slot == 15) {
		add_missing(d, "evidence.chain", "measurements",
			    xstrdup("the measurements are signed with a key provisioned without a "
				    "certificate (slot 15): no chain says whose key it is"));
	} else if (!f->chain && !f->certs) {
		add_missing(d, "evidence.chain", "certificates",
			    xstrdup("no certificate chain in any slot: nothing proves whose device it is"));
	} else if (!f->chain) {
		char signer[16];

		snprintf(signer, sizeof(signer), "cert%d", o->signer_slot);
		add_missing(d, "evidence.chain", signer,
			    xasprintf("the measurements name slot %d as their signer's, and it has no "
				      "certificate chain", o->signer_slot));
	} else if (proven(d, f->chain, "not verified to a trust anchor or a root pinned before")) {
		add(&d->verified, AUDIT_PASS, f->chain->check->id, f->chain->object, EV_RISK_NONE,
		    xasprintf("identity (%s: %s)", f->chain->object, f->chain->message));
	}
}

static void judge_binding(struct ev_decision *d, const struct found *f,
			  const struct ev_decide_opts *o)
{
	if (!f->signature)
		add_missing(d, "evidence.signature", "measurements",
			    xasprintf("no result: nothing shows the measurements were signed with "
				      "slot %d's key, so they are bound to no certificate",
				      o->signer_slot));
	else if (proven(d, f->signature, "the measurements are not shown to be signed"))
		add(&d->verified, AUDIT_PASS, f->signature->check->id, f->signature->object, EV_RISK_NONE,
		    xasprintf("measurements' signature (slot %d's key)", o->signer_slot));
}

/* The report is the function's (binding: its INTERFACE_ID) and describes its BARs (ranges). */
static void judge_report(struct ev_decision *d, const struct found *f)
{
	bool bound = false;

	if (!f->binding)
		add_missing(d, "evidence.binding", "report",
			    xstrdup("no result: nothing shows the interface report is this function's"));
	else
		bound = proven(d, f->binding, "the interface report is not shown to be this function's");
	if (!f->ranges)
		add_missing(d, "evidence.report-ranges", "report",
			    xstrdup("no result: the interface report's ranges were not checked"));
	else if (proven(d, f->ranges, "the interface report's ranges are not shown to be the function's") &&
		 bound)
		add(&d->verified, AUDIT_PASS, f->ranges->check->id, f->ranges->object, EV_RISK_NONE,
		    xstrdup("interface report"));
}

void ev_decide(const struct ev_results *r, const struct ev_decide_opts *o, struct ev_decision *d)
{
	char signer[16];
	struct found f;
	size_t fails = 0, roots = 0;

	memset(d, 0, sizeof(*d));
	snprintf(signer, sizeof(signer), "cert%d", o->signer_slot);
	find(r, signer, &f);
	for (size_t i = 0; i < r->n; i++) {
		const struct ev_result *res = &r->v[i];

		/* a DSM's link evidence has no report: nothing to prove there */
		if (res->status != AUDIT_PASS && !o->need_report && !f.report &&
		    is(res, "evidence.report-ranges", "report"))
			continue;
		if (res->status == AUDIT_FAIL || res->status == AUDIT_NEEDS_ROOT) {
			fails += res->status == AUDIT_FAIL;
			roots += res->status == AUDIT_NEEDS_ROOT;
			add(&d->refused, res->status, res->check->id, res->object, EV_RISK_NONE,
			    xstrdup(res->message));
		} else if (ev_decision_trusts(res, o)) {
			add_trusted(&d->on_trust, res);
		} else if (res->status == AUDIT_SKIP) {
			add_refusal(d, res);
		}
	}
	if (!f.evidence) {
		if (!f.empty_said)
			add_missing(d, "evidence.decode", "evidence",
				    xstrdup("no evidence object was judged: there is nothing to verify"));
	} else {
		judge_identity(d, &f, o);
		judge_binding(d, &f, o);
		if (o->need_report || f.report)
			judge_report(d, &f);
		if (f.reference)
			add(&d->verified, AUDIT_PASS, "evidence.measurements", "measurements", EV_RISK_NONE,
			    xstrdup("measurements against the reference"));
		if (f.nonce)
			add(&d->verified, AUDIT_PASS, f.nonce->check->id, f.nonce->object, EV_RISK_NONE,
			    xstrdup("freshness (the nonce)"));
	}
	if (fails)
		d->verdict = EV_FAILED;
	else if (roots)
		d->verdict = EV_NEEDS_ROOT;
	else if (d->refused.n)
		d->verdict = EV_UNPROVEN;
	else if (d->on_trust.n)
		d->verdict = EV_TAKEN_ON_TRUST;
	else
		d->verdict = EV_PROVEN;
}

void ev_decide_unread(struct ev_decision *d, const char *why)
{
	memset(d, 0, sizeof(*d));
	add_missing(d, NULL, NULL, why ? xasprintf("no evidence was read: %s", why) :
			 xstrdup("no evidence was read"));
	d->verdict = EV_UNPROVEN;
}

static void list_release(struct ev_decision_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].object);
		free(l->v[i].text);
	}
	free(l->v);
}

void ev_decision_release(struct ev_decision *d)
{
	list_release(&d->verified);
	list_release(&d->on_trust);
	list_release(&d->refused);
	memset(d, 0, sizeof(*d));
}

/* "id object: text" (or less, as much as the item names). */
static void item_text(struct strbuf *b, const struct ev_decision_item *it)
{
	if (it->check && it->object)
		strbuf_appendf(b, "%s %s: %s", it->check, it->object, it->text);
	else if (it->check)
		strbuf_appendf(b, "%s: %s", it->check, it->text);
	else
		strbuf_appendf(b, "%s", it->text);
}

static void join_verified(struct strbuf *b, const struct ev_decision *d)
{
	if (!d->verified.n)
		strbuf_appendf(b, "nothing");
	for (size_t i = 0; i < d->verified.n; i++)
		strbuf_appendf(b, "%s%s", i ? ", " : "", d->verified.v[i].text);
}

char *ev_decision_line(const struct ev_decision *d)
{
	struct strbuf b = STRBUF_INIT;
	const char *lead[] = {
		[EV_UNPROVEN] = "does not prove the device: ",
		[EV_NEEDS_ROOT] = "cannot be checked without root: ",
		[EV_FAILED] = "does not verify: ",
	};
	bool first = true;

	switch (d->verdict) {
	case EV_PROVEN:
		strbuf_appendf(&b, "verified: ");
		join_verified(&b, d);
		break;
	case EV_TAKEN_ON_TRUST:
		strbuf_appendf(&b, "taking on trust: ");
		for (size_t i = 0; i < d->on_trust.n; i++)
			strbuf_appendf(&b, "%s%s (%s; %s)", i ? ", " : "", d->on_trust.v[i].text,
				       d->on_trust.v[i].object, ev_risk_option(d->on_trust.v[i].risk));
		strbuf_appendf(&b, "; verified: ");
		join_verified(&b, d);
		break;
	default:
		strbuf_appendf(&b, "%s", lead[d->verdict]);
		/* a failure says enough: what else is missing matters once it is fixed */
		for (size_t i = 0; i < d->refused.n; i++) {
			if (d->verdict == EV_FAILED && d->refused.v[i].status != AUDIT_FAIL)
				continue;
			if (!first)
				strbuf_appendf(&b, "; ");
			item_text(&b, &d->refused.v[i]);
			first = false;
		}
		break;
	}
	return strbuf_take(&b);
}
