/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A verification's inputs, loaded once (the trust store, the reference
 * manifest, the pin file), and an evidence set judged with them: decoded,
 * checked (evidence-verify.h), decided (evidence-decision.h), the pins of a
 * first use written back only when the decision accepted. What `evidence
 * --verify`, `accept --verify`, audit's device.evidence and metrics share.
 */
#ifndef TSMCTL_EVIDENCE_JUDGE_H
#define TSMCTL_EVIDENCE_JUDGE_H

#include <stdbool.h>

#include "tsmctl/evidence-decision.h"
#include "tsmctl/evidence-reference.h"
#include "tsmctl/evidence-set.h"
#include "tsmctl/evidence-trust.h"
#include "tsmctl/evidence-verify.h"
#include "tsmctl/evidence-verify-cache.h"

/*
 * What the options name; NULL: the default trust store, no reference, no
 * pins. ALLOW: the risks the decision may take on trust, one option each.
 */
struct ev_judge_opts {
	const char *trust, *reference, *pin;
	bool partial_chain;
	bool allow[EV_NR_RISKS];
};

/* The options naming them, for a command's option table (cli.h): J is a struct ev_judge_opts. */
#define OPT_EV_TRUST(j) \
	OPT_STRING(0, "trust", &(j).trust, "FILE|DIR", \
		   "trust anchors the chains are verified against (default " EV_TRUST_DEFAULT ")"), \
	OPT_STRING(0, "reference", &(j).reference, "FILE", \
		   "reference manifest the measurements are judged by")
#define OPT_EV_PARTIAL(j) \
	OPT_BOOLEAN(0, "partial-chain", &(j).partial_chain, \
		    "let a trust anchor be an intermediate or the leaf itself")
/* evidence --verify, accept --verify: every input, the pins, the risks */
#define OPT_EV_JUDGE(j) \
	OPT_EV_TRUST(j), \
	OPT_STRING(0, "pin", &(j).pin, "FILE", \
		   "record each root's digest in FILE on first use, compare it later"), \
	OPT_EV_PARTIAL(j), OPT_EV_RISKS((j).allow)
/* audit, metrics: the inputs and the risks, no pin file (they write nothing) */
#define OPT_EV_JUDGE_READONLY(j) \
	OPT_EV_TRUST(j), OPT_EV_PARTIAL(j), OPT_EV_RISKS((j).allow)

/* Any option of the inputs or the risks given (they go with a decision)? */
bool ev_judge_opts_given(const struct ev_judge_opts *o);

struct ev_judge {
	struct ev_trust trust;
	struct ev_reference ref;
	bool has_ref;
	struct ev_pins pins;
	bool has_pins;
	bool partial_chain;
	struct ev_cache cache;		/* what this run verified of certificates, for every set */
};

/* 0, or -errno with *WHY (allocated): an input that was named but cannot be used. */
int ev_judge_load(struct ev_judge *j, const struct ev_judge_opts *o, char **why);
/* With TSMCTL_DEBUG=evidence-stats, says on stderr what the run verified and reused. */
void ev_judge_release(struct ev_judge *j);

/* One set judged: the results, and the decision over them. */
struct ev_judgement {
	struct ev_results results;
	struct ev_decide_opts decide;	/* what it was decided with (the signer's slot found) */
	struct ev_decision decision;
};

/*
 * Decode S, run every check (LIVE: read from the kernel just now) and
 * decide, taking on trust the risks ALLOW (ev_risk_mask()) accepts; a TDI
 * (NEED_REPORT) must have its interface report proven. With --pin, a chain
 * that verified to a root the pin file does not hold yet proposes that
 * root's pin (EV_RISK_FIRST_USE when no trust anchor vouched for it); the
 * proposals of an earlier run that were not saved are dropped.
 */
void ev_judge_run(struct ev_judge *j, const struct evidence_set *s, bool live, unsigned int allow,
		  bool need_report, struct ev_judgement *out);
void ev_judgement_release(struct ev_judgement *jm);

/*
 * The pins the last ev_judge_run() proposed, "BDF slot K (SHA-384 ...)", or
 * NULL: what ev_judge_save_pins() would write, for the note that says so.
 */
char *ev_judge_pending_pins(const struct ev_judge *j);

/*
 * Write the pins the last ev_judge_run() proposed into the pin file, when
 * its decision ACCEPTED (a refused device never becomes "the one seen
 * before"). Call it only once the action that decision gated has succeeded,
 * and say "pinned" only when it returns 0: the pin is on disk then. 0 (also
 * when nothing was saved), or -errno with *WHY.
 */
int ev_judge_save_pins(struct ev_judge *j, bool accepted, char **why);

#endif
