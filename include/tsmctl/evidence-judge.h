/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A verification's inputs, loaded once (the trust store, the reference
 * manifest, the pin file), and an evidence set judged with them: decoded,
 * checked (evidence-verify.h), the pins of a first use written back. What
 * `evidence --verify`, `accept --verify` and audit's device.evidence share.
 */
#ifndef TSMCTL_EVIDENCE_JUDGE_H
#define TSMCTL_EVIDENCE_JUDGE_H

#include <stdbool.h>

#include "tsmctl/evidence-reference.h"
#include "tsmctl/evidence-set.h"
#include "tsmctl/evidence-trust.h"
#include "tsmctl/evidence-verify.h"

/* What the options name; NULL: the default trust store, no reference, no pins. */
struct ev_judge_opts {
	const char *trust, *reference, *pin;
	bool partial_chain;
};

/* The options naming them, for a command's option table (cli.h): J is a struct ev_judge_opts. */
#define OPT_EV_JUDGE(j) \
	OPT_STRING(0, "trust", &(j).trust, "FILE|DIR", \
		   "trust anchors for --verify (default " EV_TRUST_DEFAULT ")"), \
	OPT_STRING(0, "reference", &(j).reference, "FILE", \
		   "reference manifest the measurements are judged by"), \
	OPT_STRING(0, "pin", &(j).pin, "FILE", \
		   "trust on first use: record each root's digest in FILE, compare it later"), \
	OPT_BOOLEAN(0, "partial-chain", &(j).partial_chain, \
		    "let a trust anchor be an intermediate or the leaf itself")

struct ev_judge {
	struct ev_trust trust;
	struct ev_reference ref;
	bool has_ref;
	struct ev_pins pins;
	bool has_pins;
	bool partial_chain;
};

/* 0, or -errno with *WHY (allocated): an input that was named but cannot be used. */
int ev_judge_load(struct ev_judge *j, const struct ev_judge_opts *o, char **why);
void ev_judge_release(struct ev_judge *j);

/*
 * Decode S and run every check into R (LIVE: read from the kernel just now).
 * With --pin, a chain that verified to a root the pin file does not hold yet
 * proposes that root's pin (EV_RISK_FIRST_USE when no trust anchor vouched
 * for it); the proposals of an earlier run that were not saved are dropped.
 */
void ev_judge_run(struct ev_judge *j, const struct evidence_set *s, bool live, struct ev_results *r);

/*
 * The pins the last ev_judge_run() proposed, "BDF slot K (SHA-384 ...)", or
 * NULL: what ev_judge_save_pins() would write, for the note that says so.
 */
char *ev_judge_pending_pins(const struct ev_judge *j);

/*
 * Write the pins the last ev_judge_run() proposed into the pin file. Call it
 * only once the decision that took the set's risks (EV_RISK_FIRST_USE) has
 * succeeded, and say "pinned" only when it returns 0: the pin is on disk
 * then. 0 (also when nothing was proposed), or -errno with *WHY.
 */
int ev_judge_save_pins(struct ev_judge *j, char **why);

#endif
