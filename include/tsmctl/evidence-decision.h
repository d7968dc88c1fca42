/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one decision over evidence results (evidence-verify.h): does the
 * evidence prove the device, and if not, what would it take on trust? Pure:
 * a results list in, a verdict with what was verified, what was taken on
 * trust and why it refused out. accept --verify, evidence --verify's exit
 * status, audit's device.evidence (--require-verified), metrics and the
 * Ansible modules (through tsmctl) all decide with it.
 *
 * The rule (tsmctl-evidence(8), THE DECISION):
 *   - any fail refuses; any needs-root refuses;
 *   - a skip refuses unless its risk (enum ev_risk) was accepted by that
 *     risk's own option; a skip of EV_RISK_NONE is accepted by no option;
 *   - positive proof is required, never the mere absence of failures:
 *     evidence at all, a certificate chain in some slot, identity (an
 *     evidence.chain pass for the slot whose key signed the measurements),
 *     binding (an evidence.signature pass on "measurements") and, for a
 *     TDI or wherever the evidence carries one, the interface report (an
 *     evidence.report-ranges pass on "report"). A missing result refuses.
 */
#ifndef TSMCTL_EVIDENCE_DECISION_H
#define TSMCTL_EVIDENCE_DECISION_H

#include <stdbool.h>
#include <stddef.h>

#include "tsmctl/evidence-verify.h"

/* The options that take one risk each, named for it ("--allow-" and ev_risk_name()). */
#define EV_OPT_FIRST_USE	"allow-first-use"
#define EV_OPT_UNSIGNED		"allow-unsigned-measurements"
#define EV_OPT_NO_REFERENCE	"allow-no-reference"
#define EV_OPT_NOT_FRESH	"allow-replay"
#define EV_OPT_REPORT_OFFSETS	"allow-report-offsets"

/* The risk options for a command's option table (cli.h): A is a bool[EV_NR_RISKS]. */
#define OPT_EV_RISKS(a) \
	OPT_BOOLEAN(0, EV_OPT_FIRST_USE, &(a)[EV_RISK_FIRST_USE], \
		    "accept a chain whose root is only pinned now, on first use, not vouched for"), \
	OPT_BOOLEAN(0, EV_OPT_UNSIGNED, &(a)[EV_RISK_UNSIGNED], \
		    "accept measurements whose signature cannot be checked here (the TSM's SPDM " \
		    "authentication stands in)"), \
	OPT_BOOLEAN(0, EV_OPT_NO_REFERENCE, &(a)[EV_RISK_NO_REFERENCE], \
		    "accept measurements compared with no reference manifest"), \
	OPT_BOOLEAN(0, EV_OPT_NOT_FRESH, &(a)[EV_RISK_NOT_FRESH], \
		    "accept evidence with no nonce of this reader's (a replay is not excluded)"), \
	OPT_BOOLEAN(0, EV_OPT_REPORT_OFFSETS, &(a)[EV_RISK_REPORT_OFFSETS], \
		    "accept an interface report that gives MMIO as offsets (addresses not proven)")

/* The risks a bool[EV_NR_RISKS] of those options accepts, as a mask (bit 1u << risk). */
unsigned int ev_risk_mask(const bool *allow);
/* Any risk option given? */
bool ev_risk_any(const bool *allow);

/* "first-use", "unsigned-measurements", ... (JSON, metrics); NULL for EV_RISK_NONE. */
const char *ev_risk_name(enum ev_risk risk);
/* "--allow-first-use", ...: the one option that accepts RISK; NULL for EV_RISK_NONE. */
const char *ev_risk_option(enum ev_risk risk);

enum ev_verdict {
	EV_PROVEN,		/* everything the decision needs was verified */
	EV_TAKEN_ON_TRUST,	/* verified but for risks the options accepted */
	EV_UNPROVEN,		/* refused: a proof is missing, or a risk was not accepted */
	EV_NEEDS_ROOT,		/* refused: a check could not run without root */
	EV_FAILED,		/* refused: a check failed */
};

/* "proven", "taken-on-trust", "unproven", "needs-root", "failed" */
const char *ev_verdict_name(enum ev_verdict v);

/* One thing the decision says: verified, taken on trust, or a reason it refused. */
struct ev_decision_item {
	enum audit_status status;	/* the result's; skip for a proof missing altogether */
	const char *check;	/* the check id, NULL for a proof missing altogether */
	char *object;		/* NULL with check */
	char *text;
	enum ev_risk risk;	/* the risk taken, or whose option would take it; NONE: no option */
};

struct ev_decision_list {
	struct ev_decision_item *v;
	size_t n, cap;
};

struct ev_decision {
	enum ev_verdict verdict;
	struct ev_decision_list verified, on_trust, refused;
	unsigned int risks_refused;	/* risks met whose options were not given (bit per risk) */
	bool unprovable;		/* refused for something no option accepts */
};

/* What the decision is asked. */
struct ev_decide_opts {
	unsigned int allow;	/* the risks accepted (ev_risk_mask()) */
	int signer_slot;	/* the slot the measurements name as their signer's (0 when unsigned);
				 * 15: a key provisioned without a certificate */
	bool need_report;	/* a TDI: its interface report must be proven even when absent */
};

void ev_decide(const struct ev_results *r, const struct ev_decide_opts *o, struct ev_decision *d);
/* Nothing was read (WHY, or NULL): unproven, with that as its one refusal. */
void ev_decide_unread(struct ev_decision *d, const char *why);
void ev_decision_release(struct ev_decision *d);

/* The gate opens: proven, or taken on trust as the options allowed. */
static inline bool ev_decision_accepts(const struct ev_decision *d)
{
	return d->verdict == EV_PROVEN || d->verdict == EV_TAKEN_ON_TRUST;
}

/*
 * The decision in one line, escaped for a terminal by no one (the caller
 * does): "verified: A, B, C"; "taking on trust: X (--allow-x); verified:
 * A, B"; "not proven: ..."; "cannot be checked without root: ..."; "does
 * not verify: ...". Allocated.
 */
char *ev_decision_line(const struct ev_decision *d);

/* Is result RES one the decision takes on trust under O (a skip of an accepted risk)? */
bool ev_decision_trusts(const struct ev_result *res, const struct ev_decide_opts *o);

#endif
