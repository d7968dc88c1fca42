// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decision over evidence results (src/evidence/gate/evidence-decision.c) on result
 * lists built by hand, as the checks would record them: a fail, a
 * needs-root and every skip no option accepts refuse; each risk option
 * accepts its own risk and no other; positive proof (identity by the
 * signer's chain, the measurements' signature, the report of a TDI) is
 * required, and its absence refuses with a reason; the one line says what
 * was verified and what was taken on trust.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/evidence-decision.h"
#include "tsmctl/util.h"
#include "unit.h"

/* The checks by id: evidence.signature is the measurements' signature check the decision needs. */
static const struct ev_check_def defs[] = {
	{ "evidence.decode", NULL, "", "" },
	{ "evidence.chain", "evidence.decode", "", "" },
	{ "evidence.root-hash", "evidence.decode", "", "" },
	{ "evidence.algorithms", "evidence.decode", "", "" },
	{ "evidence.signature", "evidence.decode", "", "" },
	{ "evidence.measurements", "evidence.decode", "", "" },
	{ "evidence.report-ranges", "evidence.decode", "", "" },
	{ "evidence.binding", "evidence.decode", "", "" },
	{ "evidence.generation", NULL, "", "" },
};

static const struct ev_check_def *def(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(defs); i++)
		if (streq(defs[i].id, id))
			return &defs[i];
	abort();
}

static void put(struct ev_results *r, const char *id, const char *object, enum audit_status st,
		enum ev_risk risk, const char *message)
{
	struct ev_result *res;

	xgrow(&r->v, &r->cap, r->n, sizeof(*r->v));
	res = &r->v[r->n++];
	res->check = def(id);
	res->object = xstrdup(object);
	res->status = st;
	res->risk = risk;
	res->message = xstrdup(message);
	res->hint = st == AUDIT_PASS ? NULL : xstrdup("hint");
}

static void results_free(struct ev_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].object);
		free(r->v[i].message);
		free(r->v[i].hint);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* Everything a TDI's evidence can prove, proven, slot 0 signing. */
static void good(struct ev_results *r)
{
	results_free(r);
	for (const char *const *o = (const char *const[]){ "cert0", "vca", "measurements", "report", NULL };
	     *o; o++)
		put(r, "evidence.decode", *o, AUDIT_PASS, EV_RISK_NONE, "well-formed");
	put(r, "evidence.chain", "cert0", AUDIT_PASS, EV_RISK_NONE, "verified against T (root CN=R)");
	put(r, "evidence.root-hash", "cert0", AUDIT_PASS, EV_RISK_NONE, "RootHash is the root's");
	put(r, "evidence.algorithms", "vca", AUDIT_PASS, EV_RISK_NONE, "fits");
	put(r, "evidence.signature", "measurements", AUDIT_PASS, EV_RISK_NONE, "signed by slot 0");
	put(r, "evidence.measurements", "measurements/1", AUDIT_PASS, EV_RISK_NONE, "index 1 ok");
	put(r, "evidence.report-ranges", "report", AUDIT_PASS, EV_RISK_NONE, "4 ranges inside");
	put(r, "evidence.binding", "report", AUDIT_PASS, EV_RISK_NONE, "INTERFACE_ID names 01:00.0");
	put(r, "evidence.generation", "evidence", AUDIT_PASS, EV_RISK_NONE, "one generation");
	put(r, "evidence.generation", "nonce", AUDIT_PASS, EV_RISK_NONE, "the nonce signed");
}

/* Drop every result of ID about OBJECT (NULL: any object). */
static void drop(struct ev_results *r, const char *id, const char *object)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct ev_result *res = &r->v[i];

		if (streq(res->check->id, id) && (!object || streq(res->object, object))) {
			free(res->object);
			free(res->message);
			free(res->hint);
			continue;
		}
		r->v[k++] = *res;
	}
	r->n = k;
}

static struct ev_decide_opts tdi(unsigned int allow)
{
	return (struct ev_decide_opts){ .allow = allow, .signer_slot = 0, .need_report = true };
}

/* The decision's line for R under O (allocated), its verdict in *V. */
static char *decide(const struct ev_results *r, const struct ev_decide_opts *o, enum ev_verdict *v)
{
	struct ev_decision d;
	char *line;

	ev_decide(r, o, &d);
	*v = d.verdict;
	line = ev_decision_line(&d);
	ev_decision_release(&d);
	return line;
}

static bool has(const char *s, const char *part)
{
	if (strstr(s, part))
		return true;
	printf("  no \"%s\" in \"%s\"\n", part, s);
	return false;
}

static void test_proven(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0);
	enum ev_verdict v;
	char *line;

	good(&r);
	line = decide(&r, &o, &v);
	CHECK(v == EV_PROVEN);
	CHECK(streq(line, "verified: identity (cert0: verified against T (root CN=R)), measurements' "
		    "signature (slot 0's key), interface report, measurements against the reference, "
		    "freshness (the nonce)"));
	free(line);
	/* a warning the reference manifest allows (unknown index: warn) refuses nothing */
	put(&r, "evidence.measurements", "measurements/8", AUDIT_WARN, EV_RISK_NONE, "not in the reference");
	line = decide(&r, &o, &v);
	CHECK(v == EV_PROVEN);
	free(line);
	results_free(&r);
}

/* The absence of failures is no proof: a missing result refuses, with its reason. */
static void test_missing_proof(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0x3e);	/* every risk option given */
	struct ev_decision d;
	enum ev_verdict v;
	char *line;

	good(&r);
	drop(&r, "evidence.signature", NULL);	/* a tsmctl without the signature check */
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN);
	CHECK(has(line, "does not prove the device: evidence.signature measurements: no result: nothing "
		  "shows the measurements were signed with slot 0's key"));
	CHECK(!strstr(line, "verified"));
	free(line);
	ev_decide(&r, &o, &d);
	CHECK(d.unprovable && !d.risks_refused);
	CHECK(d.verified.n == 4 && d.refused.n == 1 && streq(d.refused.v[0].check, "evidence.signature"));
	ev_decision_release(&d);

	good(&r);
	drop(&r, "evidence.report-ranges", NULL);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.report-ranges report: no result"));
	free(line);

	/* a report bound to no function proves nothing about this one, its ranges whatever they are */
	good(&r);
	drop(&r, "evidence.binding", NULL);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.binding report: no result: nothing shows the "
				      "interface report is this function's"));
	CHECK(!strstr(line, "verified"));
	free(line);
	good(&r);
	drop(&r, "evidence.binding", NULL);
	put(&r, "evidence.binding", "report", AUDIT_WARN, EV_RISK_NONE, "INTERFACE_ID unreadable");
	ev_decide(&r, &o, &d);
	CHECK(d.verdict == EV_UNPROVEN && d.unprovable);
	for (size_t i = 0; i < d.verified.n; i++)
		CHECK(!streq(d.verified.v[i].text, "interface report"));
	ev_decision_release(&d);

	good(&r);
	drop(&r, "evidence.chain", NULL);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.chain cert0: the measurements name slot 0 as their "
				      "signer's, and it has no certificate chain"));
	free(line);

	/* nothing at all */
	results_free(&r);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "no evidence object was judged"));
	free(line);
}

/* A locked TDI whose eleven objects are all empty, with a trust store. */
static void test_all_empty(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0x3e);
	enum ev_verdict v;
	char *line;

	put(&r, "evidence.decode", "evidence", AUDIT_SKIP, EV_RISK_NONE,
	    "every object is empty: there is nothing to verify");
	put(&r, "evidence.chain", "certificates", AUDIT_SKIP, EV_RISK_NONE,
	    "cannot be verified from this evidence: every certificate slot is empty");
	put(&r, "evidence.algorithms", "vca", AUDIT_SKIP, EV_RISK_NONE, "the VCA transcript is empty");
	put(&r, "evidence.measurements", "measurements", AUDIT_SKIP, EV_RISK_NONE, "empty");
	put(&r, "evidence.report-ranges", "report", AUDIT_SKIP, EV_RISK_NONE, "the report is empty");
	put(&r, "evidence.generation", "evidence", AUDIT_PASS, EV_RISK_NONE, "all 11 objects are of generation 1");
	put(&r, "evidence.generation", "nonce", AUDIT_SKIP, EV_RISK_NOT_FRESH, "no nonce was sent");
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN);
	CHECK(has(line, "evidence.decode evidence: every object is empty"));
	CHECK(has(line, "evidence.chain certificates: cannot be verified"));
	free(line);
	results_free(&r);
}

/* Decoded objects, but no certificate in any slot. */
static void test_no_cert_slot(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0x3e);
	enum ev_verdict v;
	char *line;

	good(&r);
	drop(&r, "evidence.decode", "cert0");
	drop(&r, "evidence.chain", NULL);
	drop(&r, "evidence.root-hash", NULL);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN);
	CHECK(has(line, "evidence.chain certificates: no certificate chain in any slot: nothing "
		  "proves whose device it is"));
	free(line);
	results_free(&r);
}

/* Each option accepts its own risk, and no other; a risk of none is accepted by no option. */
static void test_each_risk(void)
{
	for (int k = EV_RISK_NONE + 1; k < EV_NR_RISKS; k++) {
		struct ev_results r = { 0 };
		struct ev_decide_opts o;
		struct ev_decision d;
		enum ev_verdict v;
		char *line, *want;

		good(&r);
		put(&r, "evidence.generation", "risky", AUDIT_SKIP, (enum ev_risk)k, "cannot be proven");
		o = tdi(1u << k);
		line = decide(&r, &o, &v);
		CHECK(v == EV_TAKEN_ON_TRUST);
		want = xasprintf("(risky; %s); verified: identity", ev_risk_option((enum ev_risk)k));
		CHECK(startswith(line, "taking on trust: ") && has(line, want));
		free(want);
		free(line);
		/* every other option, not this one */
		o = tdi(0x3eu & ~(1u << k));
		ev_decide(&r, &o, &d);
		CHECK(d.verdict == EV_UNPROVEN && d.risks_refused == 1u << k && !d.unprovable);
		line = ev_decision_line(&d);
		want = xasprintf("does not prove the device: evidence.generation risky: cannot be proven "
				 "(%s takes this risk)", ev_risk_option((enum ev_risk)k));
		CHECK(streq(line, want));
		free(want);
		free(line);
		ev_decision_release(&d);
		results_free(&r);
	}
	{
		struct ev_results r = { 0 };
		struct ev_decide_opts o = tdi(0x3e);
		struct ev_decision d;

		good(&r);
		put(&r, "evidence.chain", "cert1", AUDIT_SKIP, EV_RISK_NONE, "no trust store: T does not exist");
		ev_decide(&r, &o, &d);
		CHECK(d.verdict == EV_UNPROVEN && d.unprovable && !d.risks_refused);
		ev_decision_release(&d);
		results_free(&r);
	}
}

/* First use taken on trust: identity is then not "verified", and the objects of one risk are said once. */
static void test_first_use(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(1u << EV_RISK_FIRST_USE);
	enum ev_verdict v;
	char *line;

	good(&r);
	drop(&r, "evidence.chain", NULL);
	put(&r, "evidence.decode", "cert1", AUDIT_PASS, EV_RISK_NONE, "well-formed");
	put(&r, "evidence.chain", "cert0", AUDIT_SKIP, EV_RISK_FIRST_USE, "root pinned now");
	put(&r, "evidence.chain", "cert1", AUDIT_SKIP, EV_RISK_FIRST_USE, "root pinned now");
	line = decide(&r, &o, &v);
	CHECK(v == EV_TAKEN_ON_TRUST);
	CHECK(streq(line, "taking on trust: a root pinned on first use, vouched for by no trust anchor "
		    "(cert0, cert1; --allow-first-use); verified: measurements' signature (slot 0's key), "
		    "interface report, measurements against the reference, freshness (the nonce)"));
	free(line);
	/* without the option: refused, naming it */
	o = tdi(0);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.chain cert0: root pinned now (--allow-first-use "
				      "takes this risk)"));
	free(line);
	/* today's pin on first use without a store is a warning: no proof of identity, and no option */
	drop(&r, "evidence.chain", NULL);
	put(&r, "evidence.chain", "cert0", AUDIT_WARN, EV_RISK_NONE, "verified to its own root");
	o = tdi(0x3e);
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.chain cert0: verified to its own root: not verified "
				      "to a trust anchor or a root pinned before"));
	free(line);
	results_free(&r);
}

static void test_fail_and_root(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0x3e);
	enum ev_verdict v;
	char *line;

	good(&r);
	put(&r, "evidence.report-ranges", "report2", AUDIT_NEEDS_ROOT, EV_RISK_NONE, "config needs root");
	line = decide(&r, &o, &v);
	CHECK(v == EV_NEEDS_ROOT && streq(line, "cannot be checked without root: "
					  "evidence.report-ranges report2: config needs root"));
	free(line);
	put(&r, "evidence.root-hash", "cert0", AUDIT_FAIL, EV_RISK_NONE, "RootHash 00 is not the root's");
	put(&r, "evidence.generation", "nonce", AUDIT_SKIP, EV_RISK_NONE, "unproven too");
	line = decide(&r, &o, &v);
	/* the failure, and only it */
	CHECK(v == EV_FAILED && streq(line, "does not verify: evidence.root-hash cert0: RootHash 00 is "
				      "not the root's"));
	free(line);
	results_free(&r);
}

/* The signer's slot is the identity; slot 15 is a key without a certificate. */
static void test_signer_slot(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0);
	enum ev_verdict v;
	char *line;

	good(&r);
	o.signer_slot = 1;
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.chain cert1: the measurements name slot 1 as their signer's, and it has no certificate chain"));
	free(line);
	put(&r, "evidence.decode", "cert1", AUDIT_PASS, EV_RISK_NONE, "well-formed");
	put(&r, "evidence.chain", "cert1", AUDIT_PASS, EV_RISK_NONE, "verified against T (root CN=S)");
	line = decide(&r, &o, &v);
	CHECK(v == EV_PROVEN && has(line, "verified: identity (cert1: verified against T (root CN=S)), "
				    "measurements' signature (slot 1's key)"));
	free(line);
	o.signer_slot = 15;
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "a key provisioned without a certificate (slot 15)"));
	free(line);
	results_free(&r);
}

/* A DSM's link evidence has no report: not needed unless the evidence carries one or it is a TDI. */
static void test_report_needed(void)
{
	struct ev_results r = { 0 };
	struct ev_decide_opts o = tdi(0);
	enum ev_verdict v;
	char *line;

	good(&r);
	drop(&r, "evidence.decode", "report");
	drop(&r, "evidence.report-ranges", NULL);
	put(&r, "evidence.report-ranges", "report", AUDIT_SKIP, EV_RISK_NONE, "the interface report is empty");
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "evidence.report-ranges report: the interface report is empty"));
	free(line);
	o.need_report = false;
	line = decide(&r, &o, &v);
	CHECK(v == EV_PROVEN && !strstr(line, "interface report"));
	free(line);
	/* a report the evidence carries is judged, TDI or not */
	good(&r);
	drop(&r, "evidence.report-ranges", NULL);
	put(&r, "evidence.report-ranges", "report", AUDIT_SKIP, EV_RISK_REPORT_OFFSETS, "offsets");
	line = decide(&r, &o, &v);
	CHECK(v == EV_UNPROVEN && has(line, "offsets (--allow-report-offsets takes this risk)"));
	free(line);
	o.allow = 1u << EV_RISK_REPORT_OFFSETS;
	line = decide(&r, &o, &v);
	CHECK(v == EV_TAKEN_ON_TRUST && !strstr(line, "interface report,"));
	free(line);
	results_free(&r);
}

static void test_names(void)
{
	bool allow[EV_NR_RISKS] = { 0 };

	CHECK(streq(ev_risk_option(EV_RISK_FIRST_USE), "--allow-first-use"));
	CHECK(streq(ev_risk_option(EV_RISK_UNSIGNED), "--allow-unsigned-measurements"));
	CHECK(streq(ev_risk_option(EV_RISK_NO_REFERENCE), "--allow-no-reference"));
	CHECK(streq(ev_risk_option(EV_RISK_NOT_FRESH), "--allow-replay"));
	CHECK(streq(ev_risk_option(EV_RISK_REPORT_OFFSETS), "--allow-report-offsets"));
	CHECK(!ev_risk_option(EV_RISK_NONE) && !ev_risk_name(EV_RISK_NONE));
	/* the option is "--allow-" and the name, for every risk */
	for (int k = EV_RISK_NONE + 1; k < EV_NR_RISKS; k++)
		CHECK(streq(ev_risk_option((enum ev_risk)k) + strlen("--allow-"),
			    ev_risk_name((enum ev_risk)k)));
	CHECK(ev_risk_mask(allow) == 0 && !ev_risk_any(allow));
	allow[EV_RISK_NOT_FRESH] = true;
	CHECK(ev_risk_mask(allow) == 1u << EV_RISK_NOT_FRESH && ev_risk_any(allow));
	CHECK(streq(ev_verdict_name(EV_TAKEN_ON_TRUST), "taken-on-trust"));
}

int main(void)
{
	test_proven();
	test_missing_proof();
	test_all_empty();
	test_no_cert_slot();
	test_each_risk();
	test_first_use();
	test_fail_and_root();
	test_signer_slot();
	test_report_needed();
	test_names();
	return unit_report();
}
