/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Evidence judged for a decision, with the one rule of evidence-decision.h:
 * `accept --verify` (fetch the locked TDI's evidence, decide, and tie the
 * accept to the generation decided on: the family's validate where it has
 * one, else a re-read just before the write), audit's device.evidence and
 * metrics' per-device series (each device with evidence, a dependent
 * through its DSM's). One transport and one set of inputs per run. A tree
 * no kernel serves (a tsmctl-collect capture, a copy) is judged from the
 * evidence saved in it (tsmctl-evidence/BDF), never the running kernel's.
 */
#ifndef TSMCTL_EVIDENCE_GATE_H
#define TSMCTL_EVIDENCE_GATE_H

#include <stdbool.h>

#include "tsmctl/audit.h"
#include "tsmctl/evidence-judge.h"
#include "tsmctl/snapshot.h"

/* A device's evidence as metrics count it (one-hot). */
enum ev_gate_state {
	EV_STATE_VERIFIED,	/* proven */
	EV_STATE_TRUSTED,	/* accepted, taking on trust the risks the options allowed */
	EV_STATE_UNVERIFIED,	/* not proven, or not judged: why says */
	EV_STATE_FAILED,	/* a check failed */
	EV_NR_STATES
};

/*
 * Why a device's evidence is unverified: the risks whose options were not
 * given (bits 1u << enum ev_risk), and these (bits 1u << enum ev_gate_why).
 */
enum ev_gate_why {
	EV_WHY_NO_TRUST_STORE = EV_NR_RISKS,	/* no trust store, no pins: nothing to verify against */
	EV_WHY_UNREADABLE,	/* the evidence could not be read (no family, not saved, ...) */
	EV_WHY_NEEDS_ROOT,	/* reading or judging it needs root */
	EV_WHY_UNPROVEN,	/* a proof is missing, or a skip no option accepts */
	EV_WHY_NR
};

/* "verified", "trusted", "unverified", "failed" */
const char *ev_gate_state_name(enum ev_gate_state st);
/* A why bit's name: the risks' (ev_risk_name()), "no-trust-store", "unreadable", "needs-root", "unproven"; NULL for none. */
const char *ev_gate_why_name(unsigned int bit);

/* One device judged (audit, metrics): its own evidence or its DSM's. */
struct ev_gate_outcome {
	char bdf[BDF_MAX];
	enum ev_gate_state state;
	unsigned int why;
};

/* An evidence source judged once per run, whatever number of functions share it. */
struct ev_gate_judged;

struct ev_gate {
	struct ev_judge judge;
	struct ev_judge_opts opts;
	int judge_rc;			/* 1 not loaded yet (the default store is read on first need) */
	char *judge_why;
	struct evidence_conn *conn;
	int conn_rc;			/* 1 not opened yet, 0 open, -errno failed */
	struct evidence_error conn_err;
	/* accept --verify: what ev_gate_verify() decided on */
	long long generation;
	unsigned int peek_type;		/* the smallest object, for a re-read of the generation */
	char *line;			/* "evidence of generation 1 verified: ..." */
	bool pins_due;			/* the decision accepted: its first use's pins wait for the accept */
	/* audit, metrics */
	const struct tsm_snapshot *snap;	/* the snapshot audited, for ev_gate_audit_fn() */
	struct ev_gate_judged *judged;
	size_t nr_judged, cap_judged;
	struct ev_gate_outcome *outcomes;
	size_t nr_outcomes, cap_outcomes;
};

/*
 * The judge's inputs (trust store, reference, pins), loaded now when named
 * (0, or -errno with *WHY); the default trust store only when first needed,
 * so that a run that reads no evidence never looks outside the sysroot.
 */
int ev_gate_init(struct ev_gate *g, const struct ev_judge_opts *o, char **why);
void ev_gate_release(struct ev_gate *g);

/* Is the tree one no kernel serves (a capture, a copy), judged from its saved evidence? */
bool ev_gate_from_capture(void);

/*
 * accept --verify's decision: BDF's evidence fetched and decided on as a
 * TDI's. 0 when the decision accepts (g->line says how); -EACCES when it
 * refuses, -errno when the evidence could not be read; *MSG (allocated,
 * escaped for a terminal) says what and why.
 */
int ev_gate_verify(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg);

/*
 * Once the accept ev_gate_verify() decided on is written and shown: the pins
 * its first use proposed saved (a device the kernel did not accept never
 * becomes "the one seen before"). 0 with *NOTE ("pinned ...", NULL when
 * nothing was due), or -errno with *MSG; both escaped for a terminal.
 */
int ev_gate_save_pins(struct ev_gate *g, char **note, char **msg);

/*
 * Just before the accept is written: 0 when BDF's evidence is still the
 * generation decided on; -ESTALE when it moved, other -errno when that
 * could not be learnt, with *MSG.
 */
int ev_gate_confirm(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg);

/*
 * audit's device.evidence for F (a dependent: through its DSM's evidence):
 * pass when the decision accepts, fail when a check failed, warn when the
 * evidence does not prove the device (never verified), needs-root, skip
 * when it cannot be read. The words are allocated in *MESSAGE and *HINT
 * (NULL for none); the outcome is kept for metrics (g->outcomes).
 */
enum audit_status ev_gate_audit(struct ev_gate *g, const struct tsm_snapshot *snap,
				const struct pci_func *f, char **message, char **hint);

/* audit_opts.evidence, with audit_opts.evidence_arg the gate (its snap set to the snapshot audited). */
enum audit_status ev_gate_audit_fn(const struct pci_func *f, void *gate, char **message,
				   char **hint);

/* Is a trust store configured (loaded, holding a certificate)? Loads the inputs on first need. */
bool ev_gate_has_trust_store(struct ev_gate *g);

#endif
