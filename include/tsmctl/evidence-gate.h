/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live evidence judged for a decision: `accept --verify` (fetch the locked
 * TDI's evidence, run the checks, and tie the accept to the generation
 * verified: the family's validate where it has one, else a re-read just
 * before the write) and audit's device.evidence (each device's chains
 * against the trust store). One transport and one set of inputs per run.
 */
#ifndef TSMCTL_EVIDENCE_GATE_H
#define TSMCTL_EVIDENCE_GATE_H

#include <stdbool.h>

#include "tsmctl/audit.h"
#include "tsmctl/evidence-judge.h"
#include "tsmctl/snapshot.h"

struct ev_gate {
	struct ev_judge judge;
	struct ev_judge_opts opts;
	int judge_rc;			/* 1 not loaded yet (the default store is read on first need) */
	char *judge_why;
	struct evidence_conn *conn;
	int conn_rc;			/* 1 not opened yet, 0 open, -errno failed */
	struct evidence_error conn_err;
	/* accept --verify: what ev_gate_verify() judged */
	long long generation;
	unsigned int peek_type;		/* the smallest object, for a re-read of the generation */
	char *summary;			/* "21 pass, 3 skip" */
};

/*
 * The judge's inputs (trust store, reference, pins), loaded now when named
 * (0, or -errno with *WHY); the default trust store only when first needed,
 * so that a run that reads no evidence never looks outside the sysroot.
 */
int ev_gate_init(struct ev_gate *g, const struct ev_judge_opts *o, char **why);
void ev_gate_release(struct ev_gate *g);

/*
 * accept --verify's check: BDF's evidence fetched and judged. 0 when no
 * check failed; -EACCES when one did, -errno when the evidence could not be
 * read; *MSG (allocated, escaped for a terminal) says what and why.
 */
int ev_gate_verify(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg);

/*
 * Just before the accept is written: 0 when BDF's evidence is still the
 * generation verified; -ESTALE when it moved, other -errno when that could
 * not be learnt, with *MSG.
 */
int ev_gate_confirm(struct ev_gate *g, const struct tsm_snapshot *snap, const char *bdf, char **msg);

/*
 * audit's device.evidence for F: its chains against the trust store (no
 * trust store, or no evidence interface: skip with why). The words are
 * allocated in *MESSAGE and *HINT (NULL for none).
 */
enum audit_status ev_gate_audit(struct ev_gate *g, const struct tsm_snapshot *snap,
				const struct pci_func *f, char **message, char **hint);

#endif
