/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Judging decoded evidence (evidence-decoded.h): named checks in audit's
 * style, each result pass, warn, fail, skip or needs-root with a message
 * and, unless it passed, a hint. What the evidence cannot show is skip
 * ("cannot be verified from this evidence: why"), never pass. The inputs
 * (trust store, pins, reference manifest) are loaded by their own modules;
 * nothing here reads a file.
 *
 *   evidence.decode          every object decodes
 *   ├ evidence.chain         chains in order, to a trust anchor (or a pin); the leaf rules
 *   ├ evidence.root-hash     RootHash = digest of the root verified to
 *   ├ evidence.algorithms    leaf key fits BaseAsymAlgo; algorithms allowed
 *   ├ evidence.signature     measurements signed by the named slot's leaf key
 *   ├ evidence.measurements  blocks against the reference manifest
 *   ├ evidence.report-ranges MMIO ranges inside their BARs, MSI-X in place
 *   └ evidence.binding       the report and the leaf name the function judged
 *   evidence.generation      one generation; refreshed and signed for the nonce
 */
#ifndef TSMCTL_EVIDENCE_VERIFY_H
#define TSMCTL_EVIDENCE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json.h>

#include "tsmctl/audit.h"
#include "tsmctl/evidence-decoded.h"

struct x509_store_st;
struct ev_cache;
struct ev_pins;
struct ev_reference;

/* One check of the table: the id tests and the man page pin. */
struct ev_check_def {
	const char *id;
	const char *parent;
	const char *description;
	const char *hint;		/* the generic fix */
};

extern const struct ev_check_def ev_checks[];
extern const size_t ev_nr_checks;

/*
 * What a skip leaves unproven, when a decision may take it on trust under an
 * option of its own (the gate names the option). A skip of EV_RISK_NONE is
 * accepted by no option: a decision that meets it refuses.
 */
enum ev_risk {
	EV_RISK_NONE,
	EV_RISK_FIRST_USE,	/* the chain's root is pinned now, never vouched for */
	EV_RISK_UNSIGNED,	/* the measurements' signature cannot be checked here */
	EV_RISK_NO_REFERENCE,	/* the measurements are not compared with a reference */
	EV_RISK_NOT_FRESH,	/* no nonce of this reader's: a replay is not excluded */
	EV_RISK_REPORT_OFFSETS,	/* the report gives MMIO as offsets: addresses not proven */
	EV_NR_RISKS
};

struct ev_result {
	const struct ev_check_def *check;
	char *object;		/* "cert0", "measurements/3", "report", "evidence" */
	enum audit_status status;
	enum ev_risk risk;	/* a skip's: what taking it on trust risks */
	char *message;
	char *hint;		/* NULL when passing */
};

struct ev_results {
	struct ev_result *v;
	size_t n, cap;
};

struct ev_verify_opts {
	struct x509_store_st *store;	/* trust anchors; NULL: no trust store */
	const char *store_path;		/* named in messages */
	const char *store_missing;	/* why there is none ("does not exist") */
	bool partial_chain;		/* a trust anchor need not be self-signed */
	struct ev_pins *pins;		/* --pin: compared; a first use proposed (evidence-trust.h) */
	const struct ev_reference *ref;	/* NULL: no reference manifest */
	bool live;			/* read from the kernel just now, not a saved copy */
	struct ev_cache *cache;		/* the run's verified certificates; NULL: none kept */
};

void ev_verify(const struct ev_decoded *d, const struct ev_verify_opts *o, struct ev_results *r);
void ev_results_free(struct ev_results *r);
size_t ev_results_count(const struct ev_results *r, enum audit_status st);

/* "pass", "warn", "fail", "skip", "needs-root" (audit's words). */
const char *ev_status_name(enum audit_status st);

#endif
