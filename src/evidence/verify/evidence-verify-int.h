/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Between the verification engine (evidence-verify.c) and the checks in
 * evidence-verify-*.c: recording a result, and the parent rule (a check of
 * an object that did not decode is skip).
 */
#ifndef TSMCTL_EVIDENCE_VERIFY_INT_H
#define TSMCTL_EVIDENCE_VERIFY_INT_H

#include "tsmctl/evidence-verify.h"

#define EV_UNVERIFIABLE	"cannot be verified from this evidence: "

/* Record a result; HINT is taken over (NULL: the check's generic hint, none for pass). */
void ev_add(struct ev_results *r, const char *id, const char *object, enum audit_status st,
	    char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Record a skip that a decision may take on trust as RISK (evidence-verify.h). */
void ev_add_risk(struct ev_results *r, const char *id, const char *object, enum ev_risk risk,
		 char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Object TYPE decoded (or is empty); else a skip of check ID for OBJECT is recorded. */
bool ev_parent_ok(const struct ev_decoded *d, unsigned int type, struct ev_results *r,
		  const char *id, const char *object);

/*
 * Each slot's root certificate as evidence.chain found it: the anchor the
 * chain verified to when it lies above the first certificate, else the first
 * certificate when it is a root (a self-signed CA); for evidence.root-hash.
 */
#define EV_ROOT_IN_CHAIN	"the chain's first certificate"

struct ev_root {
	uint8_t *der;		/* heap: its DER, NULL when not known */
	size_t der_len;
	const char *from;	/* EV_ROOT_IN_CHAIN, or the anchor's words */
	char *why;		/* heap: why it is not known */
};

struct ev_roots {
	struct ev_root slot[EV_NR_SLOTS];
};

void ev_roots_release(struct ev_roots *roots);

/* The checks, one function each, in evidence-verify-*.c */
void ev_check_chains(const struct ev_decoded *d, const struct ev_verify_opts *o,
		     struct ev_results *r, struct ev_roots *roots);
void ev_check_root_hash(const struct ev_decoded *d, const struct ev_roots *roots,
			struct ev_results *r);
/* libspdm's leaf rules for slot K's leaf (evidence-verify-leaf.c): NULL, or what is wrong. */
char *ev_leaf_misuse(const struct ev_decoded *d, unsigned int k);
void ev_check_algorithms(const struct ev_decoded *d, const struct ev_verify_opts *o,
			 struct ev_results *r);
void ev_check_measurements(const struct ev_decoded *d, const struct ev_verify_opts *o,
			   struct ev_results *r);

/* What evidence.signature found, for evidence.generation's nonce result. */
struct ev_sig_verdict {
	enum audit_status status;	/* of its result for "measurements" */
	enum ev_risk risk;		/* a skip's */
	bool measured;			/* there were measurements that decoded */
	bool over_nonce;		/* the L1 that verified carried the nonce the set records */
	bool nonce_mismatch;		/* a carried request named another nonce than that one */
};
void ev_check_signature(const struct ev_decoded *d, const struct ev_verify_opts *o,
			struct ev_results *r, struct ev_sig_verdict *v);
void ev_check_report(const struct ev_decoded *d, const struct ev_verify_opts *o,
		     struct ev_results *r);
void ev_check_binding(const struct ev_decoded *d, struct ev_results *r);

#endif
